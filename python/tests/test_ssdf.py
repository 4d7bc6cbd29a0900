"""diffcol.ssdf: AOPC, SSDF, separation, collision points and SCM forces from Python.

* equal to the C++ library bit for bit (python/tests/reference_solver.cpp, mode "ssdf");
* the SSDF sign against the exact point-in-mesh test (diffcol.mesh.contains);
* gradients and pose / velocity Jacobians against central finite differences written in numpy
  (body twists X <- X exp(h e_k^), Richardson extrapolation), 1e-6 relative per row;
* point_plane_force against eqs. (14)-(15) (normal force of a resting point); action = reaction;
* ValueError on invalid input; docstrings.
"""
import numpy as np
import pytest

import diffcol
from diffcol import mesh, ssdf
from helpers import query_line, random_rotation, run_reference, same_bits, se3_exp

REL = 1e-6
STEPS = [1e-3, 1e-4, 1e-5]


def richardson(f, n, steps=STEPS):
    """(rows, n) Jacobian of f(dz) -> array at dz = 0; the finer of the best-agreeing steps."""
    ests = []
    for h in steps:
        cols = []
        for k in range(n):
            e = np.zeros(n)
            e[k] = 1.0
            c = lambda s: (np.asarray(f(s * e), float) - np.asarray(f(-s * e), float)) / (2 * s)
            cols.append((4 * c(h / 2) - c(h)) / 3)
        ests.append(np.stack(cols, axis=-1))
    diffs = [np.max(np.abs(ests[i + 1] - ests[i])) for i in range(len(ests) - 1)]
    return ests[int(np.argmin(diffs)) + 1]


def assert_rows_close(A, N, what, floor=1e-3):
    A, N = np.atleast_2d(A), np.atleast_2d(N)
    scale = np.maximum(np.maximum(np.abs(A).max(axis=1), np.abs(N).max(axis=1)), floor)
    err = np.abs(A - N) / scale[:, None]
    assert err.max() <= REL, f"{what}: relative error {err.max():.3g}"


def pose7(T):
    return diffcol.Pose.from_matrix(T).to_vector()


@pytest.fixture(scope="module")
def clouds():
    box = mesh.make_box([1.0, 1.0, 1.0])
    ball = mesh.make_icosphere(0.5, 2)
    return (box, ball, ssdf.make_aopc(box, ssdf.AopcOptions(num_points=60)),
            ssdf.make_aopc(ball, ssdf.AopcOptions(num_points=50)))


def contact_poses(rng):
    T1 = np.eye(4)
    T1[:3, :3] = random_rotation(rng)
    T1[:3, 3] = 0.2 * rng.normal(size=3)
    T2 = T1 @ se3_exp(np.concatenate([rng.normal(size=3), [0.0, 0.0, 0.97]]))
    return T1, T2


def test_equal_to_cpp(reference_exe):
    rng = np.random.default_rng(5)
    box, ball = mesh.make_box([1.0, 1.0, 1.0]), mesh.make_icosphere(0.5, 2)
    queries = []
    for i1, i2 in [(40, 30), (60, 50)]:
        T1, T2 = contact_poses(rng)
        queries.append((i1, i2, pose7(T1), pose7(T2)))
    refs = run_reference(reference_exe, [query_line("ssdf", str(a), str(b), p, q) for a, b, p, q in queries])
    for (i1, i2, p1, p2), ref in zip(queries, refs):
        c1 = ssdf.make_aopc(box, ssdf.AopcOptions(num_points=i1))
        c2 = ssdf.make_aopc(ball, ssdf.AopcOptions(num_points=i2))
        params = ssdf.ScmParameters()
        pc = ssdf.pair_contact(c1, p1, np.zeros(6), c2, p2, [0, 0, 0, 0.1, 0, -0.2], params)
        sep = ssdf.smooth_separation_distance(c1, p1, c2, p2, params.eps1, params.eps2)
        for name, ours in [("separation", pc.separation), ("wrench_1", pc.wrench_1), ("wrench_2", pc.wrench_2),
                           ("J_wrench_X", pc.J_wrench_X), ("J_wrench_V", pc.J_wrench_V),
                           ("distance", sep.distance), ("J_distance_X", sep.J_distance_X)]:
            assert same_bits(np.ravel(ours), ref[name]), name


def test_ssdf_sign_against_point_in_mesh():
    t = mesh.make_t_shape()
    cloud = ssdf.make_aopc(t, ssdf.AopcOptions(num_points=400))
    rng = np.random.default_rng(11)
    p = rng.uniform([-0.16, -0.13, -0.04], [0.16, 0.13, 0.04], size=(1000, 3))
    exact = mesh.signed_distance(t, p)
    keep = np.abs(exact) > cloud.mean_spacing  # farther than the point spacing from the surface
    assert keep.sum() > 300
    phi, grad = ssdf.soft_signed_distance(cloud, p[keep], 1e-6)
    assert grad.shape == (keep.sum(), 3)
    np.testing.assert_array_equal(phi < 0, mesh.contains(t, p[keep]))


def test_ssdf_gradients(clouds):
    _, _, c1, _ = clouds
    rng = np.random.default_rng(4)
    eps1 = 1e-2
    for q in rng.normal(size=(5, 3)) * 0.6:
        phi, g = ssdf.soft_signed_distance(c1, q, eps1)
        N = richardson(lambda dq: np.atleast_1d(ssdf.soft_signed_distance(c1, q + dq, eps1)[0]), 3)
        assert_rows_close(g, N, "grad")
        T = np.eye(4)
        T[:3, :3] = random_rotation(rng)
        T[:3, 3] = rng.normal(size=3) * 0.2
        pw = T[:3, :3] @ q + T[:3, 3]
        r = ssdf.soft_signed_distance_world(c1, pose7(T), pw, eps1, frame=diffcol.ReferenceFrame.local)
        assert r.phi == pytest.approx(phi, abs=1e-12)
        N = richardson(lambda xi: np.atleast_1d(ssdf.soft_signed_distance_world(c1, pose7(T @ se3_exp(xi)), pw, eps1).phi), 6)
        assert_rows_close(r.J_phi_X, N, "J_phi_X")
        N = richardson(lambda dp: np.atleast_1d(ssdf.soft_signed_distance_world(c1, pose7(T), pw + dp, eps1).phi), 3)
        assert_rows_close(r.J_phi_p, N, "J_phi_p")


@pytest.mark.parametrize("seed", [1, 2])
def test_pair_jacobians(clouds, seed):
    _, _, c1, c2 = clouds
    rng = np.random.default_rng(seed)
    T1, T2 = contact_poses(rng)
    V1, V2 = 0.05 * rng.normal(size=6), 0.05 * rng.normal(size=6)
    params = ssdf.ScmParameters(eps1=1e-3, eps2=1e-2, eps3=1e-2)
    pc = ssdf.pair_contact(c1, pose7(T1), V1, c2, pose7(T2), V2, params)
    assert np.abs(pc.wrench_1).max() > 1e-3  # in contact
    def wrenches_X(xi):
        r = ssdf.pair_contact(c1, pose7(T1 @ se3_exp(xi[:6])), V1, c2, pose7(T2 @ se3_exp(xi[6:])), V2, params, False)
        return np.concatenate([r.wrench_1, r.wrench_2])
    def wrenches_V(dv):
        r = ssdf.pair_contact(c1, pose7(T1), V1 + dv[:6], c2, pose7(T2), V2 + dv[6:], params, False)
        return np.concatenate([r.wrench_1, r.wrench_2])
    assert_rows_close(pc.J_wrench_X, richardson(wrenches_X, 12), "J_wrench_X")
    assert_rows_close(pc.J_wrench_V, richardson(wrenches_V, 12), "J_wrench_V")
    sep = ssdf.smooth_separation_distance(c1, pose7(T1), c2, pose7(T2), params.eps1, params.eps2,
                                          frame=diffcol.ReferenceFrame.local)
    assert sep.field.shape == (c1.size + c2.size,) and sep.size1 == c1.size
    N = richardson(lambda xi: np.atleast_1d(ssdf.smooth_separation_distance(
        c1, pose7(T1 @ se3_exp(xi[:6])), c2, pose7(T2 @ se3_exp(xi[6:])), params.eps1, params.eps2, False).distance), 12)
    assert_rows_close(sep.J_distance_X, N, "J_distance_X")
    K = 4
    cp = ssdf.collision_points(c1, pose7(T1), c2, pose7(T2), params.eps1, params.eps2, K, 0.05,
                               frame=diffcol.ReferenceFrame.local)
    assert cp.points.shape == (K, 3) and cp.J_points.shape == (K, 3, 12)
    N = richardson(lambda xi: ssdf.collision_points(c1, pose7(T1 @ se3_exp(xi[:6])), c2, pose7(T2 @ se3_exp(xi[6:])),
                                                    params.eps1, params.eps2, K, 0.05).points.ravel(), 12)
    assert_rows_close(cp.J_points.reshape(-1, 12), N, "J_points")


def test_point_ssdf_contact_jacobians(clouds):
    _, _, c1, _ = clouds
    rng = np.random.default_rng(9)
    params = ssdf.ScmParameters(eps1=1e-3, eps3=1e-2)
    a = np.array([0.0, 0.0, -0.1])
    TA = np.eye(4)
    TA[:3, 3] = [0.1, 0.05, 0.58]
    TB = np.eye(4)
    VA, VB = 0.05 * rng.normal(size=6), 0.05 * rng.normal(size=6)
    r = ssdf.point_ssdf_contact(a, pose7(TA), VA, c1, pose7(TB), VB, params)
    assert r.phi < 0
    f = lambda xi: np.concatenate(list(map(lambda c: c, [
        ssdf.point_ssdf_contact(a, pose7(TA @ se3_exp(xi[:6])), VA, c1, pose7(TB @ se3_exp(xi[6:])), VB, params, False).wrench_A,
        ssdf.point_ssdf_contact(a, pose7(TA @ se3_exp(xi[:6])), VA, c1, pose7(TB @ se3_exp(xi[6:])), VB, params, False).wrench_B])))
    assert_rows_close(r.J_wrench_X, richardson(f, 12), "J_wrench_X")


def test_point_plane_force_physics():
    params = ssdf.ScmParameters(stiffness=1000.0, eps3=1e-4, friction=0.5)
    # a point 1 cm below the plane z = 0, at rest: normal force k * 0.01 along +z (eqs. (14)-(15))
    f = ssdf.point_plane_force([0, 0, -0.01], [0, 0, 0], [0, 0, 0], [0, 0, 1], params)
    assert f.phi == pytest.approx(-0.01)
    np.testing.assert_allclose(f.force, [0, 0, 10.0], rtol=1e-6, atol=1e-9)
    # Jacobians against finite differences
    p, v = np.array([0.01, 0.02, -0.005]), np.array([0.03, -0.01, -0.02])
    g = lambda dp: ssdf.point_plane_force(p + dp, v, [0, 0, 0], [0, 0, 1], params).force
    h = lambda dv: ssdf.point_plane_force(p, v + dv, [0, 0, 0], [0, 0, 1], params).force
    r = ssdf.point_plane_force(p, v, [0, 0, 0], [0, 0, 1], params)
    assert_rows_close(r.J_force_p, richardson(g, 3, [1e-4, 1e-5, 1e-6]), "J_force_p")
    assert_rows_close(r.J_force_v, richardson(h, 3, [1e-4, 1e-5, 1e-6]), "J_force_v")


def test_action_reaction(clouds):
    _, _, c1, c2 = clouds
    rng = np.random.default_rng(3)
    T1, T2 = contact_poses(rng)
    pc = ssdf.pair_contact(c1, pose7(T1), np.zeros(6), c2, pose7(T2), np.zeros(6), ssdf.ScmParameters(eps1=1e-3))
    f1_W = T1[:3, :3] @ pc.wrench_1[3:]
    f2_W = T2[:3, :3] @ pc.wrench_2[3:]
    assert np.linalg.norm(f1_W) > 1e-3
    np.testing.assert_allclose(f1_W, -f2_W, atol=1e-9 * max(1.0, np.linalg.norm(f1_W)))


def test_aopc_and_cloud():
    box = mesh.make_box([1.0, 1.0, 1.0])
    c = ssdf.make_aopc(box, ssdf.AopcOptions(num_points=100, seed=3))
    assert c.size == 100 and c.points.shape == (100, 3) and c.point_vertices.shape == (100, 3)
    np.testing.assert_allclose(np.abs(c.points).max(axis=1), 0.5, atol=1e-12)  # on the surface
    np.testing.assert_allclose(np.linalg.norm(c.normals, axis=1), 1.0, atol=1e-12)
    same = ssdf.make_aopc(box, ssdf.AopcOptions(num_points=100, seed=3))
    assert same_bits(same.points, c.points)
    raw = ssdf.OrientedPointCloud([[0, 0, 1.0], [0, 0, -1.0]], [[0, 0, 2.0], [0, 0, -1.0]])
    np.testing.assert_allclose(raw.normals, [[0, 0, 1], [0, 0, -1]])
    T = np.eye(4)
    T[:3, 3] = [1, 2, 3]
    p, J = c.world_point(0, pose7(T))
    np.testing.assert_allclose(p, c.points[0] + [1, 2, 3])
    assert J.shape == (3, 6)


def test_invalid_input(clouds):
    box, _, c1, c2 = clouds
    with pytest.raises(ValueError):
        ssdf.make_aopc(box, ssdf.AopcOptions(num_points=2))
    with pytest.raises(ValueError):
        ssdf.soft_signed_distance(c1, [0, 0, 0], -1.0)
    with pytest.raises(ValueError):
        ssdf.soft_signed_distance(c1, [0, np.nan, 0], 1e-3)
    with pytest.raises(ValueError):
        ssdf.ScmParameters(stiffness=-1).validate()
    with pytest.raises(ValueError):
        ssdf.pair_contact(c1, diffcol.Pose(), np.zeros(6), c2, diffcol.Pose(), np.zeros(6), ssdf.ScmParameters(friction=-1))
    with pytest.raises(ValueError):
        ssdf.pair_contact(c1, diffcol.Pose(), np.zeros(5), c2, diffcol.Pose(), np.zeros(6))
    with pytest.raises(ValueError):
        ssdf.point_plane_force([0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 2], ssdf.ScmParameters())
    with pytest.raises(ValueError):
        ssdf.point_plane_force([0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 1], ssdf.ScmParameters(dissipation_velocity=0))
    with pytest.raises(ValueError):
        ssdf.collision_points(c1, diffcol.Pose(), c2, diffcol.Pose(), 1e-3, 1e-3, 0, 0.1)
    with pytest.raises(ValueError):
        ssdf.OrientedPointCloud(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError):
        ssdf.OrientedPointCloud(np.zeros((2, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError):
        ssdf.smooth_separation_distance(c1, diffcol.Pose(), c2, diffcol.Pose(), 1e-3, -1.0)


def test_docstrings():
    assert ssdf.__doc__ and len(ssdf.__doc__) > 100
    for name in dir(ssdf):
        if name.startswith("_"):
            continue
        obj = getattr(ssdf, name)
        if callable(obj):
            assert obj.__doc__ and obj.__doc__.strip(), f"diffcol.ssdf.{name} has no docstring"


# ------------------------------------------------------------------ dynamics (dynamics.hpp)

def falling_box_scene():
    box = mesh.make_box([0.2, 0.2, 0.2])
    cloud = ssdf.make_aopc(box, ssdf.AopcOptions(num_points=40))
    scene = ssdf.Scene(ssdf.ScmParameters(eps1=1e-4, eps2=1e-3))
    scene.add_free_body(1.0, np.eye(3) * 0.01, cloud)
    scene.add_kinematic_body(None, 0.05)  # a spherical finger
    scene.add_contact_pair(ssdf.BodyId.free(0), ssdf.BodyId.driven(0))
    return scene


def test_free_flight_rk4_is_exact():
    scene = falling_box_scene()
    x = ssdf.State.zeros(scene)
    x.poses = [[0.0, 0.0, 1.0, 1, 0, 0, 0]]
    x.velocities = [[0.0, 0.0, 0.0, 0.3, -0.1, 2.0]]
    u = ssdf.Control.zeros(scene)
    u.kinematic_poses = [[5.0, 5.0, 5.0, 1, 0, 0, 0]]  # far away: no contact
    h, T = 0.01, 50
    poses, vels = ssdf.rollout(scene, x, u, h, T, ssdf.Integrator.rk4)
    assert poses.shape == (T + 1, 1, 7) and vels.shape == (T + 1, 1, 6)
    t = h * T
    g = np.array([0.0, 0.0, -9.81])
    expected = np.array([0.0, 0.0, 1.0]) + np.array([0.3, -0.1, 2.0]) * t + 0.5 * g * t * t
    np.testing.assert_allclose(poses[-1, 0, :3], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(vels[-1, 0, 3:], [0.3, -0.1, 2.0 - 9.81 * t], atol=1e-12)
    # the rollout equals repeated steps
    y = x
    for _ in range(T):
        y = ssdf.step(scene, y, u, h, ssdf.Integrator.rk4)
    assert same_bits(y.poses, poses[-1])


def pressed_box():
    scene = falling_box_scene()
    x = ssdf.State.zeros(scene)
    x.poses = [[0.0, 0.0, 0.0, 1, 0, 0, 0]]
    x.velocities = [[0.1, -0.2, 0.05, 0.01, 0.0, -0.02]]
    u = ssdf.Control.zeros(scene)
    u.kinematic_poses = [[0.0, 0.0, 0.14, 1, 0, 0, 0]]  # the finger presses on the top face
    return scene, x, u


def test_step_jacobian_velocity_columns():
    scene, x, u = pressed_box()
    h = 0.002
    nxt, J = ssdf.step_jacobian(scene, x, u, h, ssdf.Integrator.euler)
    assert J.shape == (12, 12 + 12 + 6)
    assert np.abs(ssdf.contact_forces(scene, x, u)).max() > 1e-3  # in contact
    R0 = diffcol.Pose(nxt.poses[0]).R
    p0 = nxt.poses[0, :3]

    def tangent(dv):
        y = ssdf.State.zeros(scene)
        y.poses = x.poses
        y.velocities = x.velocities + dv.reshape(1, 6)
        z = ssdf.step(scene, y, u, h, ssdf.Integrator.euler)
        P = diffcol.Pose(z.poses[0])
        return np.concatenate([diffcol.so3_log(R0.T @ P.R), P.p - p0, z.velocities[0]])

    N = richardson(tangent, 6, [1e-4, 1e-5, 1e-6])
    assert_rows_close(J[:, 6:12], N, "d x+ / d velocities")
    with pytest.raises(ValueError):
        ssdf.step(scene, x, u, -1.0)
    with pytest.raises(ValueError):
        scene.add_free_body(-1.0, np.eye(3), None, 0.1)


def test_inverse_dynamics_inverts_forward_dynamics():
    scene, x, u = pressed_box()
    u.wrenches = [[0.02, -0.01, 0.03, 1.0, -2.0, 0.5]]
    a = ssdf.forward_dynamics(scene, x, u)
    tau = ssdf.inverse_dynamics(scene, x, u, a)
    np.testing.assert_allclose(tau, np.asarray(u.wrenches).ravel(), rtol=0, atol=1e-10)
    with pytest.raises(ValueError):
        ssdf.inverse_dynamics(scene, x, u, np.zeros(7))


def test_contact_force_jacobian_matches_forces():
    scene, x, u = pressed_box()
    f, J = ssdf.contact_force_jacobian(scene, x, u)
    # contact_forces sums with the vector kernels, the Jacobian with the templated code: the same
    # sums, rounded differently (src/ssdf/vector_kernels.hpp)
    np.testing.assert_allclose(f, ssdf.contact_forces(scene, x, u), rtol=1e-13, atol=1e-15)
    assert J.shape == (6, 12 + 12 + 6) and np.abs(f).max() > 1e-3

    def forces(dv):
        y = ssdf.State.zeros(scene)
        y.poses = x.poses
        y.velocities = x.velocities + dv.reshape(1, 6)
        return ssdf.contact_forces(scene, y, u)

    assert_rows_close(J[:, 6:12], richardson(forces, 6, [1e-4, 1e-5, 1e-6]), "d forces / d velocities")


def test_step_hessian_tensor_contracts_to_step_hessian():
    scene, x, u = pressed_box()
    h = 0.002
    T = ssdf.step_hessian_tensor(scene, x, u, h, ssdf.Integrator.euler)
    assert T.shape == (12, 30, 30)
    w = np.linspace(-1.0, 1.0, 12)
    _, _, H = ssdf.step_hessian(scene, x, u, h, ssdf.Integrator.euler, w)
    np.testing.assert_allclose(np.tensordot(w, T, axes=1), H, rtol=0, atol=1e-9 * max(1.0, np.abs(H).max()))
    assert np.abs(T).max() > 0.0


def test_step_hessian_velocity_block():
    # With weights on the velocity part of x+ only, l(z) = w . v+(z) + const exactly, so its
    # gradient is w^T J[6:12] and H's velocity columns are its derivative along the velocities.
    scene, x, u = pressed_box()
    h = 0.002
    w = np.zeros(12)
    w[6:12] = [0.3, -0.5, 0.2, 1.0, -0.7, 0.4]
    nxt, J, H = ssdf.step_hessian(scene, x, u, h, ssdf.Integrator.euler, w)
    _, J_ref = ssdf.step_jacobian(scene, x, u, h, ssdf.Integrator.euler)
    np.testing.assert_allclose(J, J_ref, rtol=0, atol=1e-12)
    assert H.shape == (30, 30)
    np.testing.assert_allclose(H, H.T, rtol=0, atol=1e-9 * max(1.0, np.abs(H).max()))

    def gradient(dv):
        y = ssdf.State.zeros(scene)
        y.poses = x.poses
        y.velocities = x.velocities + dv.reshape(1, 6)
        _, Jy = ssdf.step_jacobian(scene, y, u, h, ssdf.Integrator.euler)
        return w[6:12] @ Jy[6:12]

    N = richardson(gradient, 6, [1e-4, 1e-5, 1e-6])
    A = H[:, 6:12]
    scale = max(np.abs(A).max(), 1e-3)
    assert np.abs(A - N).max() / scale <= 1e-5, f"step Hessian: relative error {np.abs(A - N).max() / scale:.3g}"
    with pytest.raises(ValueError):
        ssdf.step_hessian(scene, x, u, h, ssdf.Integrator.euler, np.zeros(13))


def test_parameters_that_would_underflow_and_non_finite_weights_are_rejected():
    # v_s = 1e-300 used to be accepted and give a NaN force (v_s^2 underflows in eq. (19))
    with pytest.raises(ValueError, match="stiction_velocity"):
        ssdf.point_plane_force([0, 0, -0.01], [0, 0, 0], [0, 0, 0], [0, 0, 1],
                               ssdf.ScmParameters(stiction_velocity=1e-300))
    f = ssdf.point_plane_force([0, 0, -0.01], [0, 0, 0], [0, 0, 0], [0, 0, 1], ssdf.ScmParameters(stiction_velocity=1e-100))
    assert np.all(np.isfinite(f.force))
    scene, x, u = pressed_box()
    with pytest.raises(ValueError, match="finite"):  # used to return a Hessian with NaN entries
        ssdf.step_hessian(scene, x, u, 0.002, ssdf.Integrator.euler, np.full(12, np.nan))


def test_aopc_sizes_are_bounded():
    box = mesh.make_box([0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match="num_points"):  # 10^7 used to run for hours
        ssdf.make_aopc(box, ssdf.AopcOptions(num_points=10**7))
    with pytest.raises(ValueError, match="candidates_per_point"):
        ssdf.make_aopc(box, ssdf.AopcOptions(num_points=100, candidates_per_point=1000))


def test_far_sign_margin():
    """far_sign_margin: a box's face-centre cloud against the closed form; a flipped normal reads
    inside (negative margin, direction toward that face); make_aopc's clouds keep at least 0.005."""
    e = np.array([0.5, 0.1, 0.2])
    p, n = [], []
    for a in range(3):
        for s in (-1.0, 1.0):
            x = np.zeros(3)
            x[a] = s * e[a]
            p.append(x)
            n.append(s * np.eye(3)[a])
    g = 1.0 / e
    margin, direction, point = ssdf.far_sign_margin(ssdf.OrientedPointCloud(np.array(p), np.array(n)))
    assert margin == pytest.approx(g.min() / np.linalg.norm(g), abs=1e-10)
    n[5] = -n[5]
    margin, direction, point = ssdf.far_sign_margin(ssdf.OrientedPointCloud(np.array(p), np.array(n)))
    assert margin < 0 and point == 5 and direction[2] > 0.5
    thin = mesh.make_box([1.0, 0.05, 0.25])
    cloud = ssdf.make_aopc(thin, ssdf.AopcOptions(num_points=30))
    assert ssdf.far_sign_margin(cloud)[0] >= 0.005
    assert 30 <= cloud.size <= 30 + 30 // 2 + 8
