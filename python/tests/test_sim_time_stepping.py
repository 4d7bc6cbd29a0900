"""diffcol.sim.TimeStepper: complementarity time stepping of DCOL bodies from Python (the C++ tests,
tests/test_sim_time_stepping.cpp, check the physics at length; these check the bindings: states in
and out, reports, rollout Jacobians against central differences taken here, and bad input)."""
import numpy as np
import pytest

import diffcol
from diffcol import dcol, sim


def ball_on_slope(mu):
    opt = sim.TimeSteppingOptions()
    opt.gravity = [0.0, 0.0, -9.81]
    opt.friction = mu
    opt.friction_tolerance = 1e-12
    opt.friction_passes = 100
    ts = sim.TimeStepper(opt)
    c, s_ = np.cos(0.35), np.sin(0.35)
    R = np.array([[c, 0.0, s_], [0.0, 1.0, 0.0], [-s_, 0.0, c]])  # about y
    slab = ts.add_static_body(dcol.Polytope.box(5.0, 5.0, 0.5), "slab")
    m, r = 1.5, 0.2
    ball = ts.add_body(dcol.Sphere(r), m, np.eye(3) * 0.4 * m * r * r, "ball")
    assert (slab, ball) == (0, 1)
    slab_pose = diffcol.Pose(np.concatenate([R @ [0.0, 0.0, -0.5], _quat(R)]))
    x = np.zeros((2, 13))
    x[0, :7] = slab_pose.to_vector()
    q = np.array([0.9, 0.2, -0.3, 0.1])
    x[1, :3] = R @ [0.0, 0.0, r + 0.004]
    x[1, 3:7] = q / np.linalg.norm(q)
    x[1, 7:10] = R @ [0.3, 0.1, -0.2]
    x[1, 10:13] = [0.5, -1.0, 2.0]
    return ts, x


def _quat(R):
    w = np.sqrt(max(0.0, 1.0 + np.trace(R))) / 2.0
    return np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w), (R[1, 0] - R[0, 1]) / (4 * w)])


@pytest.mark.parametrize("mu", [0.0, 0.5])
def test_rollout_jacobian_matches_central_differences(mu):
    ts, x0 = ball_on_slope(mu)
    steps = 12
    out = ts.rollout(x0, steps, jacobian=True)
    assert out["converged"]
    assert out["states"].shape == (steps + 1, 2, 13)
    assert len(out["reports"]) == steps and sum(r["active"] > 0 for r in out["reports"]) >= 5
    np.testing.assert_allclose(out["states"][0], x0, rtol=0, atol=1e-15)  # (quaternions renormalized)
    J = out["jacobian"]
    assert J.shape == (ts.tangent_dimension, ts.tangent_dimension) == (12, 12)
    # the final position and velocity of the ball against central differences of whole rollouts
    rng = np.random.default_rng(3)
    for _ in range(3):
        d = rng.normal(size=12)
        eps = 1e-6
        xp = ts.rollout(ts.retract(x0, eps * d), steps)["states"][-1][1]
        xm = ts.rollout(ts.retract(x0, -eps * d), steps)["states"][-1][1]
        fd = np.concatenate([(xp[:3] - xm[:3]), (xp[7:10] - xm[7:10])]) / (2 * eps)
        an = np.concatenate([(J @ d)[3:6], (J @ d)[6:9]])
        assert np.linalg.norm(an - fd) <= 1e-5 * np.linalg.norm(fd), (an, fd)


def test_step_and_conservation_without_friction():
    ts = sim.TimeStepper()
    ts.add_body(dcol.Sphere(0.5), 1.0, np.eye(3) * 0.1, "left")
    ts.add_body(dcol.Sphere(0.5), 1.0, np.eye(3) * 0.1, "right")
    x = np.zeros((2, 13))
    x[:, 3] = 1.0
    x[0, :3], x[1, :3] = [-0.6, 0.0, 0.0], [0.6, 0.05, 0.0]
    x[0, 7:10], x[1, 7:10] = [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]
    p0 = ts.linear_momentum(x)
    L0 = ts.angular_momentum(x)
    for _ in range(20):
        r = ts.step(x)
        assert r["converged"], r["message"]
        assert r["min_alpha"] >= 1.0 - 1e-9
        x = r["state"]
    np.testing.assert_allclose(ts.linear_momentum(x), p0, atol=1e-9)
    assert np.linalg.norm(ts.angular_momentum(x) - L0) <= 1e-3 * (1 + np.linalg.norm(L0))
    assert ts.kinetic_energy(x) <= 1.0 + 1e-9  # inelastic impacts take energy out
    j = ts.step(x, jacobian=True)
    assert j["jacobian"].shape == (24, 24)


def test_bad_input_raises_value_error():
    ts, x = ball_on_slope(0.0)
    with pytest.raises(ValueError, match="shape"):
        ts.step(x[:1])
    bad = x.copy()
    bad[1, 3:7] = 0.0
    with pytest.raises(ValueError):
        ts.step(bad)
    bad = x.copy()
    bad[1, 8] = np.nan
    with pytest.raises(ValueError):
        ts.step(bad)
    bad = x.copy()
    bad[1, :3] = x[0, :3]  # the ball inside the slab
    with pytest.raises(ValueError, match="ball"):
        ts.step(bad)
    with pytest.raises(ValueError):
        ts.retract(x, np.zeros(5))
    with pytest.raises(ValueError):
        ts.add_body(dcol.Sphere(0.1), -1.0, np.eye(3))
    with pytest.raises(TypeError):
        ts.add_body(diffcol.Sphere(0.1), 1.0, np.eye(3))  # an iDCOL shape, not a DCOL primitive
    o = sim.TimeSteppingOptions()
    with pytest.raises(ValueError):
        o.dt = -1.0
    assert o.dt == 0.01
    with pytest.raises(ValueError):
        o.friction = float("nan")
    assert o.friction == 0.0


def test_twelve_primitives_scene():
    ts, x0 = sim.twelve_primitives(seed=2)
    assert x0.shape == (12, 13) and ts.num_bodies == 12 and ts.num_dynamic == 12
    assert all(a < b and ok and alpha > 1.0 for a, b, alpha, ok in ts.all_pair_alphas(x0))
    assert len(ts.all_pair_alphas(x0)) == 66
    out = ts.rollout(x0, 5)
    assert out["converged"]
    np.testing.assert_allclose(ts.linear_momentum(out["states"][-1]), ts.linear_momentum(x0), atol=1e-9)
