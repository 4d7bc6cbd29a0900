"""Derivatives returned by the module agree with Python-side finite differences.

The finite differences are written here in numpy: poses are perturbed through the SE(3)
exponential (world twists for the X1 / X2 blocks, X_W1 <- exp(h e_k^) X_W1; the body twist of
body 2 for the X12 blocks, X_W2 <- X_W2 exp(h e_k^)), each column is a Richardson-extrapolated
central difference (4 D(h/2) - D(h)) / 3 with D(h) = (f(+h) - f(-h)) / 2h. The step is chosen
per block from h = 1e-3, 3e-4, 1e-4, 3e-5 (a coarse step is too large near the flat faces and
sharp rims of the n = 8 superellipsoid, a fine one amplifies the solver's noise): the finer
estimate of the two successive steps that agree best is used.

The solves use tolerance 1e-12 on |f_c| (default 1e-10): derivatives are exact at the returned
KKT point, so their error is the solve's residual amplified by the conditioning of J_c (see
derivatives.hpp); at the default tolerance a few configurations reach ~2e-6 relative.

Agreement: every entry satisfies |A - N| <= 1e-6 * s, where s = max(|A|, |N|) over the row of
the block (the gradient of one output component: a finite difference resolves an entry only
relative to its row) with a floor s >= 1e-3 so rows that vanish are held to 1e-9 absolute.
"""
import numpy as np
import pytest

import diffcol
from helpers import check_block, ergodic_queries, twist_jacobians_fd

OPTS = diffcol.SolveOptions(tolerance=1e-12)

SCALARS = ["alpha", "lambda1", "lambda2", "gap"]
VECTORS_B1 = ["x_B1", "p1_B1", "p2_B1", "normal_B1"]
VECTORS_W = ["x_W", "p1_W", "p2_W", "normal_W"]


def outputs(sol, names):
    return {n: np.atleast_1d(np.array(getattr(sol, n), dtype=float)) for n in names}


def numeric_blocks(s1, s2, T1, T2, wrt, names):
    """{name: (rows, 6)} finite-difference Jacobians with respect to the twist `wrt`."""
    def evaluate(A, B):
        sol = diffcol.solve_contact(s1, A, s2, B, OPTS)
        assert sol.status == diffcol.SolveStatus.ok
        return outputs(sol, names)

    return twist_jacobians_fd(evaluate, T1, T2, wrt, names)


def configs():
    """Two poses of every ordered benchmark pair (separated and penetrating alike)."""
    out = []
    for a, b, p1, p2 in ergodic_queries(3, seed=7):
        s1, s2 = diffcol.benchmark_shape(a), diffcol.benchmark_shape(b)
        T1, T2 = diffcol.Pose(p1).matrix(), diffcol.Pose(p2).matrix()
        out.append((a, b, s1, s2, T1, T2))
    return out


CONFIGS = configs()


@pytest.mark.parametrize("a,b,s1,s2,T1,T2", CONFIGS, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CONFIGS)])
def test_world_and_relative_twist_jacobians_match_finite_differences(a, b, s1, s2, T1, T2):
    sol = diffcol.solve_contact(s1, T1, s2, T2, OPTS)
    assert sol.status == diffcol.SolveStatus.ok
    d = diffcol.contact_derivatives(sol)
    assert d.status == diffcol.DerivativeStatus.ok
    names_world = SCALARS + VECTORS_B1 + VECTORS_W
    for wrt in ["X1", "X2"]:
        N = numeric_blocks(s1, s2, T1, T2, wrt, names_world)
        for n in names_world:
            check_block(getattr(d, f"J_{n}_{wrt}"), N[n], f"{a}-{b} J_{n}_{wrt}")
    names_rel = SCALARS + VECTORS_B1
    N = numeric_blocks(s1, s2, T1, T2, "X12", names_rel)
    for n in names_rel:
        check_block(getattr(d, f"J_{n}_X12"), N[n], f"{a}-{b} J_{n}_X12")
    # z = (x_B1, alpha, lambda1, lambda2)
    Nz = np.vstack([N["x_B1"], N["alpha"], N["lambda1"], N["lambda2"]])
    check_block(d.J_z_X12, Nz, f"{a}-{b} J_z_X12")


def test_envelope_gradient_equals_implicit_function_gradient():
    for a, b, s1, s2, T1, T2 in CONFIGS[::7]:
        sol = diffcol.solve_contact(s1, T1, s2, T2, OPTS)
        d = diffcol.contact_derivatives(sol)
        env = diffcol.alpha_gradient_envelope(sol)
        check_block(env, d.J_alpha_X12, f"{a}-{b} envelope X12")
        envw = diffcol.alpha_gradient_envelope_world(sol)
        check_block(envw, np.concatenate([d.J_alpha_X1, d.J_alpha_X2]), f"{a}-{b} envelope world")


def test_hertz_wrench_jacobians_match_finite_differences():
    # a penetrating configuration: body 2 close to body 1
    s1, s2 = diffcol.benchmark_shape("ellipsoid"), diffcol.benchmark_shape("se")
    T1 = diffcol.Pose([0.1, 0.2, -0.1, 0.9, 0.2, 0.1, -0.3]).matrix()
    T2 = T1 @ diffcol.Pose([0.2, 1.0, 1.2, 0.8, -0.1, 0.4, 0.2]).matrix()
    model = diffcol.HertzModel(stiffness=100.0, exponent=1.5)
    sol = diffcol.solve_contact(s1, T1, s2, T2, OPTS)
    assert sol.gap < 0
    d = diffcol.contact_derivatives(sol)
    w = diffcol.hertz_wrenches(sol, d, model)
    assert w.in_contact and w.ok
    names = ["f_n", "F_c1_W", "F_c2_B2"]

    def wrenches(A, B):
        ww = diffcol.hertz_wrenches(diffcol.solve_contact(s1, A, s2, B, OPTS), model)
        return {"f_n": np.array([ww.f_n]), "F_c1_W": ww.F_c1_W, "F_c2_B2": ww.F_c2_B2}

    for wrt in ["X1", "X2"]:
        N = twist_jacobians_fd(wrenches, T1, T2, wrt, names)
        for n, block in [("f_n", f"J_fn_{wrt}"), ("F_c1_W", f"J_Fc1_W_{wrt}"), ("F_c2_B2", f"J_Fc2_B2_{wrt}")]:
            check_block(getattr(w, block), N[n], block)


def test_gradient_checker_accepts_python_callables():
    s1, s2 = diffcol.benchmark_shape("poly"), diffcol.benchmark_shape("sec")
    X1 = diffcol.Pose([0.2, -0.3, 0.1, 1.0, 0.2, -0.1, 0.3])
    X2 = X1 * diffcol.Pose([2.5, 0.5, -0.8, 0.3, 0.9, -0.2, 0.1])
    sol = diffcol.solve_contact(s1, X1, s2, X2, OPTS)
    d = diffcol.contact_derivatives(sol)

    def f2(A, B):  # two poses -> [alpha, x_W]
        s = diffcol.solve_contact(s1, A, s2, B, OPTS)
        return np.concatenate([[s.alpha], s.x_W])

    opt = diffcol.GradientCheckOptions()
    opt.blocks = [diffcol.OutputBlock("alpha", 0, 1), diffcol.OutputBlock("x_W", 1, 3)]
    J = np.vstack([np.concatenate([d.J_alpha_X1, d.J_alpha_X2]), np.hstack([d.J_x_W_X1, d.J_x_W_X2])])
    res = diffcol.check_pose_gradient(f2, X1, X2, J, opt)
    assert res.passed, res.report()
    assert [b.name for b in res.blocks] == ["alpha", "x_W"]
    assert res.numeric.shape == (4, 12)

    # one pose, body side: the X12 blocks
    def f1(B):
        return diffcol.solve_contact(s1, X1, s2, B, OPTS).gap

    opt1 = diffcol.GradientCheckOptions()
    opt1.frame = diffcol.ReferenceFrame.local
    res1 = diffcol.check_pose_gradient(f1, X2, d.J_gap_X12, opt1)
    assert res1.passed, res1.report()

    # a wrong Jacobian must fail
    bad = diffcol.check_pose_gradient(f1, X2, 1.01 * d.J_gap_X12, opt1)
    assert not bad.passed

    # exceptions raised by the callable propagate
    def broken(B):
        raise RuntimeError("from the callable")

    with pytest.raises(RuntimeError, match="from the callable"):
        diffcol.check_pose_gradient(broken, X2, d.J_gap_X12, opt1)


def test_gradient_check_rejects_non_positive_or_non_finite_steps():
    def f(B):
        return np.array([np.sum(B.matrix())])
    X = diffcol.Pose.identity()
    for step in (0.0, -1e-3, np.nan, np.inf):  # used to return an all-NaN numeric Jacobian
        opt = diffcol.GradientCheckOptions()
        opt.step = step
        with pytest.raises(ValueError, match="step"):
            diffcol.check_pose_gradient(f, X, np.zeros((1, 6)), opt)
