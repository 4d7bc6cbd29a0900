"""diffcol.plan: trajectory optimization with Ipopt (docs/plan.md): a ball past a box, the NLP's
derivatives against central differences, a Python cost and Python dynamics, bad input."""

from pathlib import Path

import numpy as np
import pytest

import diffcol
from diffcol import dcol, plan


def ball_past_box(knots=10, measure=plan.CollisionMeasure.distance):
    scene = diffcol.Scene()
    box = scene.add_body([0, 0, 0, 1, 0, 0, 0], static=True, name="box")
    scene.add_shape(box, dcol.Polytope.box(0.3, 0.3, 0.3), name="box")
    ball = scene.add_body([-1, 0.05, 0, 1, 0, 0, 0], name="ball")
    scene.add_shape(ball, diffcol.Sphere(0.2), name="ball")
    spec = plan.TrajectorySpec()
    spec.num_knots = knots
    spec.bodies = [plan.FreeBody(ball, plan.Parametrization.translation)]
    spec.start = [-1.0, 0.05, 0.0]
    spec.goal = [1.0, 0.05, 0.0]
    spec.collision.measure = measure
    spec.collision.bound = 0.05 if measure == plan.CollisionMeasure.distance else 0.02
    spec.collision.activation_margin = 0.3
    spec.collision.interval_samples = 1
    return scene, spec


def central_differences(f, x, h=1e-6):
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        cols.append((np.atleast_1d(f(x + e)) - np.atleast_1d(f(x - e))) / (2 * h))
    return np.array(cols).T


def test_solve_check_and_derivatives():
    scene, spec = ball_past_box()
    p = plan.TrajectoryProblem(scene, spec)
    x0 = p.linear_guess() + 0.01 * np.random.default_rng(3).standard_normal(p.num_variables)
    lo, hi = p.variable_bounds()
    x0 = np.clip(x0, lo, hi)
    assert np.allclose(central_differences(p.objective, x0)[0], p.objective_gradient(x0), atol=1e-6)
    J = p.jacobian(x0)
    assert J.shape == (p.num_constraints, p.num_variables) and np.abs(J).max() > 0.1
    assert np.allclose(central_differences(p.constraints, x0), J, atol=1e-5)
    r = plan.solve(p, plan.SolveOptions(), p.linear_guess())
    assert r.success, (r.status, r.message)
    assert r.configurations.shape == (10, 3) and r.iterations > 0 and 0 < r.collision_s <= r.wall_s
    c = plan.check_trajectory(p, r.configurations)
    assert c.collision_free and c.min_distance > 0.04 and c.samples == 91
    assert plan.check_trajectory(p, p.configurations(p.linear_guess())).min_distance < 0
    w = plan.solve_warm(p, r)
    assert w.success and w.iterations <= r.iterations


def test_pose6_jacobian_and_alpha_rows():
    b = plan.FreeBody(0, plan.Parametrization.pose6, [0.1, 0.2, 0.3, 0.9, 0.2, -0.3, 0.1])
    c = np.array([0.3, -0.2, 0.5, 0.4, -0.3, 0.6])
    J = plan.free_body_jacobian(b, c)
    v = central_differences(lambda c: plan.free_body_pose(b, c).p, c)
    assert np.allclose(J[3:], v, atol=1e-8)
    scene, spec = ball_past_box(measure=plan.CollisionMeasure.alpha)
    p = plan.TrajectoryProblem(scene, spec)
    r = plan.solve(p, x0=p.linear_guess())
    assert r.success and plan.check_trajectory(p, r.configurations).collision_free


def test_python_cost_and_dynamics():
    scene, spec = ball_past_box(knots=8)
    # Σ y_k² pulls the path towards y = 0 ...
    spec.add_cost(lambda x: (float(np.sum(x[1::9] ** 2)), np.where(np.arange(x.size) % 9 == 1, 2 * x, 0.0)))
    # ... and a single integrator q_{k+1} = q_k + 0.1 v_k with v bounded drives it (z = [q; v; u]).
    spec.num_extra_states = 3
    spec.num_controls = 3
    sparsity = [(i, c) for i in range(3) for c in (i, 9 + i, 3 + i)]

    def residual(k, z, zn):
        return zn[:3] - z[:3] - 0.1 * z[3:6], np.tile([-1.0, 1.0, -0.1], 3)

    spec.set_dynamics(3, sparsity, residual)
    spec.extra_lower = [-5.0] * 3
    spec.extra_upper = [5.0] * 3
    spec.control_lower = spec.control_upper = [0.0] * 3  # no controls in this model
    p = plan.TrajectoryProblem(scene, spec)
    assert p.num_dynamics_rows == 21
    x = p.linear_guess() + 0.01
    x = np.clip(x, *p.variable_bounds())
    assert np.allclose(central_differences(p.objective, x)[0], p.objective_gradient(x), atol=1e-6)
    assert np.allclose(central_differences(p.constraints, x), p.jacobian(x), atol=1e-5)
    r = plan.solve(p)
    assert r.success, (r.status, r.message)
    q = r.configurations
    assert np.all(np.abs(np.diff(q, axis=0)) <= 0.5 + 1e-6)  # |v| ≤ 5 with dt 0.1


def test_bad_input():
    scene, spec = ball_past_box()
    spec.q_lower = [np.nan, -10, -10]
    with pytest.raises(ValueError, match="NaN"):
        plan.TrajectoryProblem(scene, spec)
    scene, spec = ball_past_box()
    spec.goal = [0.0, 0.0, 0.0]  # inside the box
    with pytest.raises(ValueError, match="goal configuration is in collision"):
        plan.TrajectoryProblem(scene, spec)
    empty = diffcol.Scene()
    body = empty.add_body([0, 0, 0, 1, 0, 0, 0])
    _, spec = ball_past_box()
    spec.bodies = [plan.FreeBody(body)]
    with pytest.raises(ValueError, match="no pair of collision shapes"):
        plan.TrajectoryProblem(empty, spec)
    scene, spec = ball_past_box()
    p = plan.TrajectoryProblem(scene, spec)
    with pytest.raises(ValueError):
        plan.solve(p, x0=np.zeros(4))
    o = plan.SolveOptions()
    o.tolerance = float("nan")
    with pytest.raises(ValueError):
        plan.solve(p, o)


def test_the_seeds_piano_mover_through_python():
    ex = plan.piano_mover()  # 40 knots, as the demo (fewer let the rod clip the corner between knots)
    assert "rod" in ex.description and ex.x0.shape == (ex.problem.num_variables,)
    res = plan.solve(ex.problem, x0=ex.x0)
    assert res.success, res.status
    check = plan.check_trajectory(ex.problem, res.configurations, subdivisions=10)
    assert check.collision_free and check.min_distance > 0


def check_lagrangian_hessian(p, x, sigma, lam):
    """The exact Lagrangian Hessian at x is symmetric and matches central differences of
    sigma*grad f + J^T lam (the analytic first derivatives)."""
    H = p.lagrangian_hessian(x, sigma, lam)
    assert np.allclose(H, H.T)

    def grad(xx):
        return sigma * p.objective_gradient(xx) + p.jacobian(xx).T @ lam
    h = 1e-6
    fd = np.column_stack([(grad(x + h * e) - grad(x - h * e)) / (2 * h) for e in np.eye(len(x))])
    assert np.abs(fd - H).max() < 1e-5 * np.abs(H).max()


def test_exact_lagrangian_hessian_from_python():
    ex = plan.piano_mover(knots=6, smooth=True)
    p = ex.problem
    assert p.exact_hessian_unsupported() == ""
    assert "dcol" in plan.piano_mover(knots=5).problem.exact_hessian_unsupported()
    check_lagrangian_hessian(p, p.linear_guess(), 0.7, np.linspace(-1.0, 1.0, p.num_constraints))
    o = plan.SolveOptions()
    o.hessian = plan.HessianMode.exact
    r = plan.solve(p, o, ex.x0)
    assert r.iterations > 0


def test_python_cost_and_dynamics_hessians():
    # iDCOL shapes (their collision rows have second derivatives), a nonconvex cost and nonlinear
    # dynamics q_{k+1} = q_k + 0.5 tanh(v_k) (z = [q; v; u]), both with Python Hessians
    scene = diffcol.Scene()
    post = scene.add_body([0, 0, 0, 1, 0, 0, 0], static=True)
    scene.add_shape(post, diffcol.Superellipsoid(0.3, 0.3, 0.3, 4))
    ball = scene.add_body([-1, 0.05, 0, 1, 0, 0, 0])
    scene.add_shape(ball, diffcol.Sphere(0.2))
    nz = 9

    def make_spec():
        spec = plan.TrajectorySpec()
        spec.num_knots = 8
        spec.bodies = [plan.FreeBody(ball, plan.Parametrization.translation)]
        spec.start, spec.goal = [-1.0, 0.05, 0.0], [1.0, 0.05, 0.0]
        spec.collision.measure = plan.CollisionMeasure.alpha
        spec.collision.bound = 0.02
        spec.collision.activation_margin = 0.3
        spec.num_extra_states = spec.num_controls = 3
        spec.extra_lower, spec.extra_upper = [-20.0] * 3, [20.0] * 3
        spec.control_lower = spec.control_upper = [0.0] * 3
        return spec

    def cost(x):  # sum_k sin(q_x) q_y^2
        qx, qy = x[0::nz], x[1::nz]
        g = np.zeros_like(x)
        g[0::nz], g[1::nz] = np.cos(qx) * qy**2, 2 * np.sin(qx) * qy
        return float(np.sum(np.sin(qx) * qy**2)), g

    def cost_hessian_entries(x, w):
        k = np.arange(0, x.size, nz)
        qx, qy = x[k], x[k + 1]
        rows = np.concatenate([k, k + 1, k + 1])
        cols = np.concatenate([k, k, k + 1])
        return rows, cols, w * np.concatenate([-np.sin(qx) * qy**2, 2 * np.cos(qx) * qy, 2 * np.sin(qx)])

    def cost_hessian_dense(x, w):
        H = np.zeros((x.size, x.size))
        r, c, v = cost_hessian_entries(x, w)
        H[r, c] = v
        return H + np.tril(H, -1).T

    sparsity = [(i, c) for i in range(3) for c in (i, nz + i, 3 + i)]

    def residual(k, z, zn):
        t = np.tanh(z[3:6])
        return zn[:3] - z[:3] - 0.5 * t, np.column_stack([-np.ones(3), np.ones(3), -0.5 * (1 - t**2)]).ravel()

    def residual_hessian(k, z, zn, mu):
        t = np.tanh(z[3:6])
        H = np.zeros((2 * nz, 2 * nz))
        H[range(3, 6), range(3, 6)] = mu * (1 - t**2) * t
        return H

    spec = make_spec()
    spec.add_cost(cost)
    spec.set_dynamics(3, sparsity, residual)
    assert "user cost 0" in plan.TrajectoryProblem(scene, spec).exact_hessian_unsupported()
    rng = np.random.default_rng(4)
    for cost_hessian in (cost_hessian_entries, cost_hessian_dense):
        spec = make_spec()
        spec.add_cost(cost, hessian=cost_hessian)
        spec.set_dynamics(3, sparsity, residual)
        assert "dynamics" in plan.TrajectoryProblem(scene, spec).exact_hessian_unsupported()
        spec.set_dynamics(3, sparsity, residual, hessian=residual_hessian)
        p = plan.TrajectoryProblem(scene, spec)
        assert p.exact_hessian_unsupported() == ""
        x = np.clip(p.linear_guess() + 0.2 * rng.standard_normal(p.num_variables), *p.variable_bounds())
        check_lagrangian_hessian(p, x, 0.7, rng.standard_normal(p.num_constraints))
    o = plan.SolveOptions()
    o.hessian = plan.HessianMode.exact
    r = plan.solve(p, o, p.linear_guess())
    assert r.success, (r.status, r.message)
    # a Hessian of the wrong shape is refused with its sizes
    spec = make_spec()
    spec.add_cost(cost, hessian=lambda x, w: np.zeros((2, 2)))
    spec.set_dynamics(3, sparsity, residual, hessian=residual_hessian)
    p = plan.TrajectoryProblem(scene, spec)
    with pytest.raises(ValueError, match="2 x 2 array"):
        p.lagrangian_hessian(p.linear_guess(), 1.0, np.zeros(p.num_constraints))
    # and NaN entries by name
    for bad_cost, bad_dynamics in ((lambda x, w: np.full((x.size, x.size), np.nan), residual_hessian),
                                   (cost_hessian_entries, lambda k, z, zn, mu: np.full((2 * nz, 2 * nz), np.nan))):
        spec = make_spec()
        spec.add_cost(cost, hessian=bad_cost)
        spec.set_dynamics(3, sparsity, residual, hessian=bad_dynamics)
        p = plan.TrajectoryProblem(scene, spec)
        with pytest.raises(ValueError, match="NaN"):
            p.lagrangian_hessian(p.linear_guess(), 1.0, np.ones(p.num_constraints))


def test_smooth_arm_reach_has_an_exact_hessian_from_python():
    robots = Path(__file__).resolve().parents[2] / "tests" / "data" / "robots"
    urdf, srdf = str(robots / "arm7.urdf"), str(robots / "arm7.srdf")
    assert plan.arm_reach(urdf, srdf, knots=4).problem.exact_hessian_unsupported() != ""
    ex = plan.arm_reach(urdf, srdf, knots=4, smooth=True)
    p = ex.problem
    assert "smooth" in ex.description or "iDCOL" in ex.description
    assert p.exact_hessian_unsupported() == ""
    x = ex.x0 + 0.05 * np.sin(np.arange(p.num_variables))
    check_lagrangian_hessian(p, x, 0.3, np.cos(np.arange(p.num_constraints)))
