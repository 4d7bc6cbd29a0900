"""contact_hessians and shape_derivatives from Python, against finite differences in numpy.

Hessians: central differences (Richardson) of the analytic first derivatives
(contact_derivatives) along world twists of either body, X_Wi <- exp(h e_k^) X_Wi; their
symmetric part is the Hessian returned (the antisymmetric part is the SE(3) bracket term, see
docs/idcol.md). Shape derivatives: central differences of the solve over each parameter.
"""
import numpy as np
import pytest

import diffcol
from helpers import perturbed, richardson

OPTS = diffcol.SolveOptions(tolerance=1e-14)
X1 = diffcol.Pose([0.1, -0.2, 0.3, 0.9, 0.1, 0.3, 0.2]).matrix()
X2 = diffcol.Pose([1.6, 0.9, 0.2, 0.8, -0.2, 0.1, 0.4]).matrix()


def shapes():
    return [
        (diffcol.benchmark_shape("tc"), diffcol.benchmark_shape("se")),
        (diffcol.benchmark_shape("poly"), diffcol.Superellipsoid(0.7, 1.0, 1.2, 2)),
        (diffcol.Sphere(0.8), diffcol.SuperellipticCylinder(0.8, 1.1, 2)),
    ]


def gradients(s1, s2, A, B):
    d = diffcol.contact_derivatives(diffcol.solve_contact(s1, A, s2, B, OPTS))
    assert d.ok
    out = {}
    for n in ["alpha", "gap"]:
        out[n] = np.concatenate([np.ravel(getattr(d, f"J_{n}_X1")), np.ravel(getattr(d, f"J_{n}_X2"))])
    for n in ["p1_B1", "normal_B1"]:
        out[n] = np.hstack([getattr(d, f"J_{n}_X1"), getattr(d, f"J_{n}_X2")])  # (3, 12)
    return out


@pytest.mark.parametrize("pair", range(3))
def test_hessians_against_differences_of_the_gradients(pair):
    s1, s2 = shapes()[pair]
    sol = diffcol.solve_contact(s1, X1, s2, X2, OPTS)
    h = diffcol.contact_hessians(s1, s2, sol)
    assert h.ok and h.frame == diffcol.ReferenceFrame.world
    cols = {n: [] for n in ["alpha", "gap", "p1_B1", "normal_B1"]}
    for wrt in ["X1", "X2"]:
        for k in range(6):
            e = np.zeros(6)
            e[k] = 1.0
            col = richardson(lambda t: gradients(s1, s2, *perturbed(X1, X2, wrt, t * e)), 1e-3)
            for n in cols:
                cols[n].append(col[n])
    for n in ["alpha", "gap"]:
        M = np.stack(cols[n], axis=-1)  # M[i, j] = d_j (d_i f)
        H = getattr(h, f"H_{n}")
        assert H.shape == (12, 12)
        assert np.array_equal(H, H.T)
        np.testing.assert_allclose(H, 0.5 * (M + M.T), rtol=0, atol=1e-6 * np.abs(H).max())
    for n in ["p1_B1", "normal_B1"]:
        M = np.stack(cols[n], axis=-1)  # (3, 12, 12)
        H = getattr(h, f"H_{n}")
        assert H.shape == (3, 12, 12)
        for c in range(3):
            np.testing.assert_allclose(H[c], 0.5 * (M[c] + M[c].T), rtol=0, atol=1e-6 * np.abs(H).max())
    # the X12 blocks, and the scalars-only option
    assert h.H_alpha_X12.shape == (6, 6) and h.H_normal_B1_X12.shape == (3, 6, 6)
    hs = diffcol.contact_hessians(s1, s2, sol, outputs=diffcol.HessianOutputs.scalars)
    assert np.array_equal(hs.H_gap, h.H_gap) and not hs.H_p1_B1.any()


def test_shape_derivatives_against_differences_of_the_solve():
    s1 = diffcol.Sphere(0.8)
    s2 = diffcol.Superellipsoid(0.7, 1.0, 1.2, 2)
    sol = diffcol.solve_contact(s1, X1, s2, X2, OPTS)
    d = diffcol.shape_derivatives(s1, s2, sol)
    assert d.ok and (d.count1, d.count2) == (1, 3)
    assert diffcol.shape_parameter_names(s2) == ["a", "b", "c"]
    assert d.d_gap.shape == (4,) and d.d_p2_W.shape == (3, 4)
    for j, (s, idx) in enumerate([(0, 0), (1, 0), (1, 1), (1, 2)]):
        shape = [s1, s2][s]
        names = diffcol.shape_parameter_names(shape)
        if isinstance(shape, diffcol.Superellipsoid):
            base = {"a": shape.semi_axes[0], "b": shape.semi_axes[1], "c": shape.semi_axes[2]}
        else:
            base = {"radius": shape.radius}

        def solve(t):
            vals = dict(base)
            vals[names[idx]] += t
            moved = (diffcol.Sphere(vals["radius"]) if s == 0 else
                     diffcol.Superellipsoid(vals["a"], vals["b"], vals["c"], 2))
            a, b = (moved, s2) if s == 0 else (s1, moved)
            r = diffcol.solve_contact(a, X1, b, X2, OPTS)
            return {"gap": np.atleast_1d(r.gap), "p1_W": np.array(r.p1_W), "normal_B1": np.array(r.normal_B1)}

        fd = richardson(solve, 1e-4)
        np.testing.assert_allclose(d.d_gap[j], fd["gap"][0], rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(d.d_p1_W[:, j], fd["p1_W"], rtol=0, atol=1e-6 * max(1.0, np.abs(fd["p1_W"]).max()))
        np.testing.assert_allclose(d.d_normal_B1[:, j], fd["normal_B1"], rtol=0, atol=1e-6)
