"""diffcol.sphere_pair_contact: two spheres in closed form, vectorized over pairs.

References: the general iDCOL solve (diffcol.solve_contact on two Sphere shapes) and central
differences of the function itself in the centres.
"""
import numpy as np
import pytest

import diffcol


def _pose(c):
    X = np.eye(4)
    X[:3, 3] = c
    return X


def test_matches_the_general_solve_pair_by_pair():
    rng = np.random.default_rng(31)
    n = 60
    R1, R2 = 10 ** rng.uniform(-1, 0.5, n), 10 ** rng.uniform(-1, 0.5, n)
    c1 = rng.uniform(-2, 2, (n, 3))
    d = rng.normal(size=(n, 3))
    c2 = c1 + d / np.linalg.norm(d, axis=1)[:, None] * ((R1 + R2) * 10 ** rng.uniform(-2, 1.5, n))[:, None]
    out = diffcol.sphere_pair_contact(R1, c1, R2, c2)
    assert out["alpha"].shape == (n,) and out["J_normal_c2"].shape == (n, 3, 3)
    assert out["ok"].all()
    for i in range(n):
        sol = diffcol.solve_contact(diffcol.Sphere(R1[i]), _pose(c1[i]), diffcol.Sphere(R2[i]), _pose(c2[i]))
        assert sol.ok
        assert out["alpha"][i] == pytest.approx(sol.alpha, rel=1e-12)
        assert out["gap"][i] == pytest.approx(sol.gap, rel=1e-12, abs=1e-12 * (R1[i] + R2[i]))
        for key in ("normal_W", "x_W", "p1_W", "p2_W"):
            assert np.allclose(out[key][i], getattr(sol, key), rtol=0, atol=1e-12 * (1 + R1[i] + R2[i] + 4)), key


def test_derivatives_match_central_differences():
    rng = np.random.default_rng(32)
    for _ in range(40):
        R1, R2 = 10 ** rng.uniform(-1, 0.5, 2)
        c1 = rng.uniform(-2, 2, 3)
        c2 = c1 + rng.normal(size=3) * (R1 + R2)
        out = diffcol.sphere_pair_contact(R1, c1, R2, c2)
        h = 1e-6 * out["distance"]
        E = np.eye(3)
        fd = {k: [] for k in ("alpha", "gap", "normal_W")}
        for j in range(3):
            plus = diffcol.sphere_pair_contact(R1, c1, R2, c2 + h * E[j])
            minus = diffcol.sphere_pair_contact(R1, c1, R2, c2 - h * E[j])
            for k in fd:
                fd[k].append((plus[k] - minus[k]) / (2 * h))
        assert np.allclose(out["J_alpha_c2"], fd["alpha"], rtol=1e-6, atol=1e-8 / (R1 + R2))
        assert np.allclose(out["J_gap_c2"], fd["gap"], rtol=1e-6, atol=1e-8)
        assert np.allclose(out["J_normal_c2"], np.array(fd["normal_W"]).T, rtol=1e-6, atol=1e-8 / out["distance"])


def test_broadcasting_coincidence_and_bad_input():
    one = diffcol.sphere_pair_contact(1.0, [0, 0, 0], 2.0, [4, 0, 0])
    assert one["alpha"].shape == () and one["normal_W"].shape == (3,)
    assert float(one["alpha"]) == pytest.approx(4 / 3)
    many = diffcol.sphere_pair_contact([1.0, 2.0], np.zeros(3), 2.0, [[4, 0, 0], [0, 5, 0]])
    assert np.allclose(many["alpha"], [4 / 3, 5 / 4])
    same = diffcol.sphere_pair_contact(1.0, [1, 2, 3], 1.0, [1, 2, 3])
    assert not same["ok"] and float(same["alpha"]) == 0.0 and np.isfinite(same["J_normal_c2"]).all()
    with pytest.raises(ValueError, match="entries"):
        diffcol.sphere_pair_contact([1.0, 2.0], np.zeros(3), 2.0, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="radius1"):
        diffcol.sphere_pair_contact(0.0, np.zeros(3), 2.0, [4, 0, 0])
    with pytest.raises(ValueError, match="radius2"):
        diffcol.sphere_pair_contact(1.0, np.zeros(3), [1.0, np.nan], np.ones((2, 3)))
    with pytest.raises(ValueError, match="centre1"):
        diffcol.sphere_pair_contact(1.0, [np.nan, 0, 0], 2.0, [4, 0, 0])
    with pytest.raises(ValueError, match="centre2"):
        diffcol.sphere_pair_contact(1.0, np.zeros(3), 2.0, np.zeros((2, 2)))
    with pytest.raises(TypeError):
        diffcol.sphere_pair_contact(1.0, np.zeros(3, dtype=complex), 2.0, [4, 0, 0])
