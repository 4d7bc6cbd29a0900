"""The module's API: documentation, poses, shapes, options and invalid input (ValueError)."""
import inspect
import json
import math
import pickle
import subprocess

import numpy as np
import pytest

import diffcol
from helpers import random_rotation, se3_exp


# ---------------------------------------------------------------- documentation

def test_help_of_solve_contact_explains_frames_twists_and_jacobian_layout():
    text = diffcol.solve_contact.__doc__
    for needle in ["X_W1", "X_W2", "[w; v]", "world twist", "body twist", "J_<output>_<input>",
                   "_B1", "_W", "[x, y, z, qw, qx, qy, qz]", "ValueError", "X_12"]:
        assert needle in text, needle


def test_every_public_name_has_a_docstring():
    missing = []
    for name in diffcol.__all__:
        obj = getattr(diffcol, name)
        if not (obj.__doc__ or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not callable(getattr(member, "__get__", None)):
                    continue
                if isinstance(member, property) or callable(member):
                    doc = (getattr(member, "__doc__", None) or "").strip()
                    if not doc:
                        missing.append(f"{name}.{attr}")
    # enum values and plain data fields carry no docstring of their own
    missing = [m for m in missing if not any(m.startswith(e + ".") for e in
               ["SolveStatus", "DerivativeStatus", "DistanceStatus", "DistanceDerivativeStatus", "ShapeType",
                "FdMethod", "ReferenceFrame", "Family", "HessianOutputs"])]
    assert not missing, missing


def test_result_fields_have_the_cpp_names():
    sol = diffcol.solve_contact(diffcol.Sphere(1.0), np.eye(4), diffcol.Sphere(1.0), [3, 0, 0, 1, 0, 0, 0])
    for name in ["status", "iterations", "jacobian_evaluations", "attempts", "warm_started", "residual_norm",
                 "alpha", "x_B1", "lambda1", "lambda2", "p1_B1", "p2_B1", "gap", "normal_B1", "x_W", "p1_W",
                 "p2_W", "normal_W", "X_12", "kkt_jacobian"]:
        assert hasattr(sol, name), name
    assert sol.x_B1.shape == (3,) and sol.kkt_jacobian.shape == (6, 6)
    # two unit spheres 3 apart: alpha = 1.5, gap = 1, witness points at x = 1 and x = 2
    assert sol.alpha == pytest.approx(1.5, abs=1e-12)
    assert sol.gap == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(sol.p1_W, [1, 0, 0], atol=1e-12) and np.allclose(sol.p2_W, [2, 0, 0], atol=1e-12)
    assert np.allclose(sol.normal_W, [1, 0, 0], atol=1e-12)
    # result arrays are read-only views
    with pytest.raises(ValueError):
        sol.x_B1[0] = 1.0


# ---------------------------------------------------------------- poses

def test_lie_group_maps_reject_non_finite_input_and_overflow():
    for f, x in ((diffcol.skew, [np.nan, 0, 0]), (diffcol.so3_exp, [0, np.inf, 0]),
                 (diffcol.se3_exp, [0, 0, 0, np.nan, 0, 0]), (diffcol.se3_exp, [1e155, 0, 0, 0, 0, 0])):
        with pytest.raises(ValueError):
            f(np.array(x, dtype=float))
    assert diffcol.se3_exp(np.r_[0.1, 0, 0, 1e100, 0, 0]).is_finite()


def test_rotation_between_is_the_smallest_rotation():
    rng = np.random.default_rng(4)
    cases = [(rng.normal(size=3), rng.normal(size=3)) for _ in range(20)]
    a = rng.normal(size=3)
    cases += [(a, -2.5 * a), (a, 3.0 * a), (np.array([1.0, 0, 0]), np.array([-1.0, 1e-9, 0]))]
    for a, b in cases:
        R = diffcol.rotation_between(a, b)
        ah, bh = a / np.linalg.norm(a), b / np.linalg.norm(b)
        assert np.allclose(R.T @ R, np.eye(3), atol=1e-14) and np.isclose(np.linalg.det(R), 1.0)
        assert np.allclose(R @ ah, bh, atol=1e-12)
        # the angle of R (from its trace) is the angle between a and b
        angle = np.arccos(np.clip((np.trace(R) - 1.0) / 2.0, -1.0, 1.0))
        assert np.isclose(angle, np.arccos(np.clip(ah @ bh, -1.0, 1.0)), atol=1e-7)
        axis = np.cross(ah, bh)
        if np.linalg.norm(axis) > 1e-6:  # the axis of a rotation is its fixed direction
            assert np.allclose(R @ axis, axis, atol=1e-12)
    for a, b in (([0, 0, 0], [1, 0, 0]), ([1, 0, 0], [np.nan, 0, 0]), ([np.inf, 0, 0], [1, 0, 0])):
        with pytest.raises(ValueError):
            diffcol.rotation_between(np.array(a, dtype=float), np.array(b, dtype=float))


def test_pose_constructions_agree():
    rng = np.random.default_rng(0)
    R = random_rotation(rng)
    p = rng.normal(size=3)
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    a = diffcol.Pose.from_rotation(R, p)
    b = diffcol.Pose(T)
    c = diffcol.Pose.from_matrix(T)
    assert np.array_equal(a.R, R) and np.array_equal(b.matrix(), T) and np.array_equal(c.p, p)
    q = a.quaternion()
    d = diffcol.Pose.from_quaternion(p, q)
    e = diffcol.Pose(np.concatenate([p, q]))
    assert np.allclose(d.R, R, atol=1e-15) and np.array_equal(d.R, e.R)
    assert np.allclose((a * a.inverse()).matrix(), np.eye(4), atol=1e-14)
    assert np.allclose(a * np.array([1.0, 2.0, 3.0]), R @ [1, 2, 3] + p)
    assert np.allclose(diffcol.se3_exp(np.r_[0.1, 0.2, -0.3, 1, 2, 3]).matrix(), se3_exp(np.r_[0.1, 0.2, -0.3, 1, 2, 3]))
    assert np.array_equal(pickle.loads(pickle.dumps(a)).matrix(), a.matrix())


@pytest.mark.parametrize("bad,match", [
    ([0, 0, 0, 0, 0, 0, 0], "quaternion has zero norm"),
    ([0, 0, np.nan, 1, 0, 0, 0], "not finite"),
    ([0, 0, 0, 1, np.inf, 0, 0], "not finite"),
    (np.diag([1.0, 1.0, -1.0, 1.0]), "not a rotation"),
    (np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 1, 1.0]]), "last row"),
    (np.zeros(5), "got an array of shape"),
])
def test_invalid_poses_raise_value_error(bad, match):
    with pytest.raises(ValueError, match=match):
        diffcol.Pose(bad)
    with pytest.raises(ValueError, match=match):
        diffcol.solve_contact(diffcol.Sphere(1.0), np.eye(4), diffcol.Sphere(1.0), bad)


# ---------------------------------------------------------------- shapes

def test_shape_evaluation_rejects_non_finite_points_and_overflow():
    shapes = [diffcol.Sphere(1.0), diffcol.Superellipsoid(1.0, 0.8, 0.6, 2), diffcol.SuperellipticCylinder(1.0, 1.0, 2),
              diffcol.SmoothPolytope.box(1.0, 1.0, 1.0, 20.0), diffcol.SmoothTruncatedCone(1.0, 0.5, 1.0, 1.0, 20.0)]
    for s in shapes + [diffcol.Shape(s) for s in shapes]:
        for y in ([np.nan, 0, 0], [0, np.inf, 0]):  # used to return NaN
            with pytest.raises(ValueError, match="finite"):
                s.eval(y)
            with pytest.raises(ValueError, match="finite"):
                s.value(y)
    with pytest.raises(ValueError, match="overflow"):  # a NaN gradient before
        diffcol.Superellipsoid(1.0, 0.8, 0.6, 2).eval([1e300, 0, 0])
    for s in shapes:
        with pytest.raises(ValueError):
            s.ray_extent([0.0, 0.0, 0.0])
        assert s.ray_extent([1.0, 0.0, 0.0]) > 0


def test_shapes_evaluate_against_closed_forms():
    s = diffcol.Sphere(2.0)
    y = np.array([0.3, -1.2, 0.5])
    phi, g, H = s.eval(y)
    n = np.linalg.norm(y)
    assert phi == pytest.approx(n / 2 - 1, abs=1e-15)
    assert np.allclose(g, y / (2 * n)) and np.allclose(H, (np.eye(3) - np.outer(y, y) / n**2) / (2 * n))
    e = diffcol.Superellipsoid.ellipsoid(0.5, 1.0, 1.5)
    assert e.value(y) == pytest.approx(np.sqrt(np.sum((y / [0.5, 1.0, 1.5]) ** 2)) - 1, abs=1e-14)
    box = diffcol.SmoothPolytope.box(1.0, 2.0, 3.0, beta=50.0)
    assert box.num_faces == 6 and box.A.shape == (6, 3) and box.b.shape == (6,)
    V = box.vertices
    assert V.shape == (8, 3) and np.allclose(np.sort(np.abs(V), axis=0)[0], [1, 2, 3])
    hull = diffcol.SmoothPolytope.convex_hull(V, beta=50.0)
    assert hull.num_faces == 6
    cyl = diffcol.SuperellipticCylinder(1.0, 2.0, 4)
    assert cyl.radius == 1.0 and cyl.half_height == 2.0 and cyl.exponent == 4
    cone = diffcol.SmoothTruncatedCone(1.0, 1.5, 1.5, 1.5, 20.0)
    assert cone.top_radius == 1.5
    shape = diffcol.Shape(cone)
    assert shape.type == diffcol.ShapeType.smooth_truncated_cone and isinstance(shape.primitive, diffcol.SmoothTruncatedCone)
    assert "sphere" in repr(diffcol.benchmark_shape("sphere"))
    assert diffcol.benchmark_shape_names() == ["sphere", "ellipsoid", "poly", "tc", "se", "sec"]


@pytest.mark.parametrize("make,match", [
    (lambda: diffcol.Sphere(0.0), "radius"),
    (lambda: diffcol.Sphere(math.nan), "radius"),
    (lambda: diffcol.Superellipsoid(1, 1, 1, 0), ""),
    (lambda: diffcol.Superellipsoid(1, -1, 1, 2), ""),
    (lambda: diffcol.SuperellipticCylinder(1.0, 0.0, 2), ""),
    (lambda: diffcol.SmoothTruncatedCone(1.0, -1.0, 1.0, 1.0, 20.0), ""),
    (lambda: diffcol.SmoothPolytope(np.eye(3), np.ones(3), 10.0), ""),           # m < 4
    (lambda: diffcol.SmoothPolytope(np.vstack([np.eye(3), np.eye(3)]), np.ones(6), 10.0), "unbounded"),
    (lambda: diffcol.SmoothPolytope.box(1, 1, 1, beta=-1.0), "beta"),
    (lambda: diffcol.SmoothPolytope.convex_hull(np.zeros((4, 2)), 10.0), r"\(n, 3\)"),
    (lambda: diffcol.benchmark_shape("cube"), "unknown benchmark shape 'cube'"),
    (lambda: diffcol.SolveOptions(tolerance=-1.0), "tolerance"),
    (lambda: diffcol.SolveOptions(max_iterations=0), "max_iterations"),
    (lambda: diffcol.SolveOptions(surrogate_factor=0.5), "surrogate_factor"),
    (lambda: diffcol.HertzModel(stiffness=0.0), "stiffness"),
    (lambda: diffcol.HertzModel(exponent=0.5), "exponent"),
    (lambda: diffcol.ErgodicSweep().poses(-1), "n must be"),
])
def test_invalid_arguments_raise_value_error_with_the_cpp_message(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_option_setters_validate():
    o = diffcol.SolveOptions()
    o.tolerance = 1e-8
    assert o.tolerance == 1e-8
    with pytest.raises(ValueError, match="tolerance"):
        o.tolerance = float("nan")
    assert o.tolerance == 1e-8  # unchanged
    h = diffcol.HertzModel()
    with pytest.raises(ValueError, match="exponent"):
        h.exponent = 0.0


def test_one_status_vocabulary_across_the_layers():
    names = ["ok", "coincident_origins", "not_converged", "invalid_input", "numerical_error", "not_certified"]
    assert list(diffcol.SolveStatus.__members__) == names
    assert [diffcol.status_name(s) for s in diffcol.SolveStatus.__members__.values()] == names
    for enum in (diffcol.DerivativeStatus, diffcol.DistanceStatus, diffcol.DistanceDerivativeStatus):
        assert [diffcol.status_name(s) for s in enum.__members__.values()] == list(enum.__members__)
    X1, X2 = [0, 0, 0, 1, 0, 0, 0], [2, 0, 0, 1, 0, 0, 0]
    s = diffcol.Sphere(0.5)
    sol = diffcol.solve_contact(s, X1, s, X2)
    r = diffcol.dcol.solve_contact(diffcol.dcol.Sphere(0.5), X1, diffcol.dcol.Sphere(0.5), X2)
    q = diffcol.qp.proximity(diffcol.qp.Capsule(radius=0.5, length=0.0), X1, diffcol.qp.Capsule(radius=0.5, length=0.0), X2)
    for res in (sol, r, q):
        assert type(res.status) is diffcol.SolveStatus and res.status == diffcol.SolveStatus.ok
    for d in (diffcol.contact_derivatives(sol), diffcol.dcol.contact_derivatives(r),
              diffcol.qp.proximity_derivatives(diffcol.qp.Capsule(radius=0.5, length=0.0), X1,
                                               diffcol.qp.Capsule(radius=0.5, length=0.0), X2, q)):
        assert type(d.status) is diffcol.DerivativeStatus and d.status == diffcol.DerivativeStatus.ok


def test_shape_constructors_take_sizes_first():
    se = diffcol.Superellipsoid(0.1, 0.2, 0.3, 4)
    assert np.allclose(se.semi_axes, [0.1, 0.2, 0.3]) and se.exponent == 4
    se = diffcol.Superellipsoid(a=0.1, b=0.2, c=0.3, n=4, epsilon=1e-5)
    assert np.allclose(se.semi_axes, [0.1, 0.2, 0.3]) and se.exponent == 4 and se.epsilon == 1e-5
    sec = diffcol.SuperellipticCylinder(0.5, 0.7, 3)
    assert (sec.radius, sec.half_height, sec.exponent) == (0.5, 0.7, 3)
    tc = diffcol.SmoothTruncatedCone(0.3, 0.1, 0.4, 0.6, 12.0)
    assert (tc.bottom_radius, tc.top_radius, tc.bottom_extent, tc.top_extent, tc.beta) == (0.3, 0.1, 0.4, 0.6, 12.0)
    with pytest.raises(TypeError):  # the exponent first is refused, not read as a size
        diffcol.Superellipsoid(4, 0.1, 0.2, 0.3)


def test_non_converged_solutions_are_reported_by_status_not_exceptions():
    s1, s2 = diffcol.benchmark_shape("poly"), diffcol.benchmark_shape("se")
    sol = diffcol.solve_contact(s1, np.eye(4), s2, [2.0, 0.3, 0.1, 1, 0, 0, 0],
                                diffcol.SolveOptions(max_iterations=1, max_attempts=1, continuation=False,
                                                     last_resort_iterations=0))
    assert sol.status == diffcol.SolveStatus.not_converged and not sol.ok
    d = diffcol.contact_derivatives(sol)
    assert d.status == diffcol.DerivativeStatus.solve_failed
    assert np.all(d.J_alpha_X1 == 0) and np.all(np.isfinite(d.J_z_X12))
    same = diffcol.solve_contact(s1, np.eye(4), s2, np.eye(4))
    assert same.status == diffcol.SolveStatus.coincident_origins


# ---------------------------------------------------------------- sweep, pairs, coordinates

def test_ergodic_sweep_poses_are_exact():
    sweep = diffcol.ErgodicSweep.for_pair(diffcol.benchmark_shape("se"), diffcol.benchmark_shape("poly"))
    M = sweep.poses(5, start=100)
    assert M.shape == (5, 4, 4)
    for i in range(5):
        assert np.array_equal(M[i], sweep.pose(100 + i).matrix())
    assert sweep.rmin > 0 and sweep.rmax > sweep.rmin


def test_contact_pair_warm_starts_and_options():
    pair = diffcol.ContactPair(diffcol.benchmark_shape("tc"), diffcol.benchmark_shape("sec"))
    sweep = diffcol.ErgodicSweep.for_pair(pair.shape1, pair.shape2)
    first = pair.solve(np.eye(4), sweep.pose(0))
    second = pair.solve(np.eye(4), sweep.pose(1))
    assert not first.warm_started and second.warm_started
    assert pair.last.alpha == second.alpha
    cold = pair.solve_cold(np.eye(4), sweep.pose(1))
    assert not cold.warm_started and abs(cold.alpha - second.alpha) < 1e-9
    pair.options = diffcol.SolveOptions(warm_start=False)
    assert not pair.solve(np.eye(4), sweep.pose(2)).warm_started
    # the first-order warm start (default) and the plain one reach the same solution
    plain = diffcol.ContactPair(pair.shape1, pair.shape2, diffcol.SolveOptions(warm_predictor=False))
    pred = diffcol.ContactPair(pair.shape1, pair.shape2)
    assert pred.options.warm_predictor and not plain.options.warm_predictor
    for i in range(200, 205):
        a, b = plain.solve(np.eye(4), sweep.pose(i)), pred.solve(np.eye(4), sweep.pose(i))
        assert abs(a.alpha - b.alpha) < 1e-9 * a.alpha
    assert "warm_predictor=False" in repr(plain.options)


def test_to_coordinates_chain_rule():
    # body 2 moved by q = (qx, qy) along the world x and y axes: dalpha/dq = J_alpha_X2[:, v_x, v_y]
    s1, s2 = diffcol.Sphere(1.0), diffcol.benchmark_shape("ellipsoid")
    X2 = diffcol.Pose([2.0, 1.0, 0.5, 0.9, 0.1, 0.2, -0.1])
    sol = diffcol.solve_contact(s1, np.eye(4), s2, X2)
    d = diffcol.contact_derivatives(sol)
    J2 = np.zeros((6, 2))
    J2[3, 0] = J2[4, 1] = 1.0
    b1 = diffcol.BodyJacobian(np.zeros((6, 2)))
    b2 = diffcol.BodyJacobian(J2, diffcol.ReferenceFrame.world, X2)
    Jq = diffcol.to_coordinates(d.J_alpha_X1, d.J_alpha_X2, b1, b2)
    assert Jq.shape == (1, 2) and np.allclose(Jq[0], d.J_alpha_X2[3:5])
    with pytest.raises(ValueError):
        diffcol.to_coordinates(d.J_alpha_X1, d.J_alpha_X2, b1, diffcol.BodyJacobian(np.zeros((6, 3))))


def test_wrench_values_balance():
    s1, s2 = diffcol.Sphere(1.0), diffcol.Sphere(1.0)
    sol = diffcol.solve_contact(s1, np.eye(4), s2, [1.8, 0, 0, 1, 0, 0, 0])
    w = diffcol.hertz_wrenches(sol, diffcol.HertzModel(10.0, 1.5))
    # penetration 0.2: f_n = 10 * 0.2^1.5, pushing body 1 towards -x
    assert w.in_contact and w.f_n == pytest.approx(10 * 0.2**1.5, rel=1e-12)
    assert np.allclose(w.F_c1_W[3:], [-w.f_n, 0, 0]) and np.allclose(w.F_c1_W + w.F_c2_W, 0)


def test_bench_repeat_option(cli_exe):
    """diffcol bench --repeat R (all three methods): the JSON says R, every pair is there once with
    finite positive means, and R outside [1, 100] is a usage error."""
    runs = [(["bench", "--shapes", "sphere,ellipsoid", "--poses", "300"], 4, "cold"),
            (["bench", "--method", "dcol", "--shapes", "sphere,polytope", "--poses", "300"], 4, "evaluate"),
            (["bench", "--method", "qp", "--poses", "300"], 3, "evaluate")]
    for args, n_pairs, column in runs:
        out = subprocess.run([cli_exe, *args, "--repeat", "2", "--json"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        d = json.loads(out.stdout)
        assert d["repeat"] == 2 and len(d["pairs"]) == n_pairs
        for p in d["pairs"]:
            assert 0 < p[column]["mean_us"] < 1e6 and 0 < p["derivatives"]["mean_us"] < 1e6
        bad = subprocess.run([cli_exe, *args, "--repeat", "0"], capture_output=True, text=True)
        assert bad.returncode != 0 and "--repeat" in bad.stderr
