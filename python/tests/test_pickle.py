"""Pickling: every shape class of the three families, Scene and RobotModel survive a round trip
and give the same results bit for bit; a Robot refuses with a clear message; bad states raise."""

import copy
import pickle
from pathlib import Path

import numpy as np
import pytest

import diffcol
from diffcol import dcol, qp

ROBOTS = Path(__file__).resolve().parents[2] / "tests" / "data" / "robots"


def round_trip(obj):
    out = pickle.loads(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(out) is type(obj)
    return out


def random_poses(rng, n, spread):
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return np.hstack([rng.uniform(-spread, spread, size=(n, 3)), q])


def non_unit_rows(rng, m, k):
    # rows of random length: their normalization is not exact
    A = rng.normal(size=(m, k))
    return A * rng.uniform(0.3, 3.0, size=(m, 1))


def sphere_points(rng, n):
    p = rng.normal(size=(n, 3))
    return p / np.linalg.norm(p, axis=1, keepdims=True)


def bounded_rows(rng, m, k):
    A = non_unit_rows(rng, m, k)
    return np.vstack([A, -A.sum(axis=0, keepdims=True)])  # the rows positively span the space


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    nan = a.dtype.kind in "fc"
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=nan)


# ------------------------------------------------------------------ iDCOL

def idcol_shapes():
    rng = np.random.default_rng(11)
    A = bounded_rows(rng, 7, 3)
    return [
        diffcol.Sphere(0.3 / 7),
        diffcol.Superellipsoid(0.3 / 7, 0.2 / 3, 0.11, 4),
        diffcol.Superellipsoid(0.7 / 3, 0.2, 0.3 / 11, 1),
        diffcol.SuperellipticCylinder(0.1 / 3, 0.2 / 7, 6),
        diffcol.SmoothPolytope(A, rng.uniform(0.2, 0.4, size=8), beta=13.0, length=0.37),
        diffcol.SmoothPolytope.convex_hull(rng.normal(size=(40, 3)) * 0.2, beta=20.0, length=0.3),
        diffcol.SmoothTruncatedCone(0.2 / 3, 0.1 / 7, 0.15, 0.25 / 3, 9.0),
    ]


IDCOL_FIELDS = ("status", "alpha", "x_W", "p1_W", "p2_W", "normal_W", "iterations", "X_12")


@pytest.mark.parametrize("k", range(7))
def test_idcol_shape_round_trip_solves_bit_for_bit(k):
    s = idcol_shapes()[k]
    t = round_trip(s)
    assert repr(t) == repr(s)
    assert t.inner_radius == s.inner_radius and t.outer_radius == s.outer_radius
    for name in ("A", "b", "beta", "length", "vertices", "semi_axes", "radius", "half_height", "epsilon"):
        if hasattr(s, name):
            assert same(getattr(t, name), getattr(s, name)), name
    other = diffcol.Superellipsoid(0.2, 0.15, 0.1, 3)
    rng = np.random.default_rng(k)
    for X1, X2 in zip(random_poses(rng, 6, 0.1), random_poses(rng, 6, 0.4)):
        a = diffcol.solve_contact(s, X1, other, X2)
        b = diffcol.solve_contact(t, X1, other, X2)
        for f in IDCOL_FIELDS:
            assert same(getattr(a, f) if f != "X_12" else a.X_12.matrix(),
                        getattr(b, f) if f != "X_12" else b.X_12.matrix()), f
        y = X2[:3] * 0.3
        assert same(np.array(s.eval(y)[1]), np.array(t.eval(y)[1]))


def test_shape_round_trip_keeps_the_primitive():
    for s in idcol_shapes():
        shape = diffcol.Shape(s)
        t = round_trip(shape)
        assert t.type == shape.type and t.describe() == shape.describe()
        assert type(t.primitive) is type(s)
        y = np.array([0.05, -0.02, 0.03])
        assert same(np.array(t.eval(y)[2]), np.array(shape.eval(y)[2]))


# ------------------------------------------------------------------ DCOL

def dcol_primitives():
    rng = np.random.default_rng(5)
    off = diffcol.Pose(random_poses(rng, 1, 0.2)[0])
    P = rng.normal(size=(3, 3))
    P = P @ P.T + 3.0 * np.eye(3)
    C = bounded_rows(rng, 4, 2)
    return [
        dcol.Polytope(bounded_rows(rng, 8, 3), rng.uniform(0.2, 0.4, size=9), off),
        dcol.Polytope.convex_hull(sphere_points(rng, 200) * 0.3, off),  # a large polytope
        dcol.Capsule(0.1 / 3, 0.4 / 7, off),
        dcol.Cylinder(0.2 / 3, 0.3 / 7, off),
        dcol.Cone(0.5 / 3, 0.3, off),
        dcol.Ellipsoid(P, off),
        dcol.PaddedPolygon(C, rng.uniform(0.1, 0.3, size=5), 0.03 / 7, off),
        dcol.Sphere(0.2 / 3, off),
    ]


DCOL_FIELDS = ("status", "alpha", "x_W", "p1_W", "p2_W", "gap", "iterations")


@pytest.mark.parametrize("k", range(8))
def test_dcol_primitive_round_trip_solves_bit_for_bit(k):
    s = dcol_primitives()[k]
    t = round_trip(s)
    assert repr(t) == repr(s)
    assert same(t.offset.matrix(), s.offset.matrix())
    for name in ("A", "b", "vertices", "C", "d", "P", "U", "R", "L", "H", "beta", "inner_radius", "outer_radius"):
        if hasattr(s, name):
            assert same(getattr(t, name), getattr(s, name)), name
    if k == 1:
        assert s.num_faces > 300  # the shared large data
    other = dcol.Ellipsoid.from_semi_axes(0.2, 0.15, 0.1)
    rng = np.random.default_rng(20 + k)
    for X1, X2 in zip(random_poses(rng, 6, 0.1), random_poses(rng, 6, 0.6)):
        a = dcol.solve_contact(s, X1, other, X2)
        b = dcol.solve_contact(t, X1, other, X2)
        for f in DCOL_FIELDS:
            assert same(getattr(a, f), getattr(b, f)), f


def test_unit_rows_are_a_fixed_point():
    # A, b read back from a primitive build the same primitive (the stored rows are already unit)
    for s in dcol_primitives()[:2]:
        again = dcol.Polytope(s.A, s.b, s.offset)
        assert same(again.A, s.A) and same(again.b, s.b) and same(again.vertices, s.vertices)
    rng = np.random.default_rng(8)
    p = qp.PaddedPolygon(bounded_rows(rng, 5, 2), rng.uniform(0.1, 0.3, size=6), 0.02)
    again = qp.PaddedPolygon(p.C, p.d, p.radius)
    assert same(again.C, p.C) and same(again.d, p.d) and same(again.vertices, p.vertices)


# ------------------------------------------------------------------ QP

def qp_shapes():
    rng = np.random.default_rng(9)
    return [
        qp.Capsule(0.1 / 3, 0.4 / 7),
        qp.Capsule.from_end_points(rng.normal(size=3) * 0.1, rng.normal(size=3) * 0.1, 0.05 / 3),
        qp.PaddedPolygon(bounded_rows(rng, 5, 2), rng.uniform(0.1, 0.3, size=6), 0.02 / 7),
        qp.PaddedPolygon.from_vertices(np.array([[0.1, 0.0], [0.0, 0.1 / 3], [-0.1 / 7, 0.0], [0.0, -0.1]]), 0.01),
    ]


QP_FIELDS = ("status", "phi", "signed_distance", "core_distance", "core1_W", "core2_W", "p1_W", "p2_W")


@pytest.mark.parametrize("k", range(4))
def test_qp_shape_round_trip_proximity_bit_for_bit(k):
    s = qp_shapes()[k]
    t = round_trip(s)
    assert repr(t) == repr(s)
    for name in ("a_B", "b_B", "radius", "C", "d", "vertices", "core_radius"):
        if hasattr(s, name):
            assert same(getattr(t, name), getattr(s, name)), name
    others = [qp.Capsule(0.05, 0.3), qp.PaddedPolygon.rectangle(0.1, 0.2, 0.01)]
    rng = np.random.default_rng(40 + k)
    for other in others:
        for X1, X2 in zip(random_poses(rng, 5, 0.1), random_poses(rng, 5, 0.6)):
            a = qp.proximity(s, X1, other, X2)
            b = qp.proximity(t, X1, other, X2)
            for f in QP_FIELDS:
                if hasattr(a, f):
                    assert same(getattr(a, f), getattr(b, f)), f


# ------------------------------------------------------------------ Scene

def mixed_scene():
    rng = np.random.default_rng(2)
    scene = diffcol.Scene()
    floor = scene.add_body([0, 0, -0.1, 1, 0, 0, 0], static=True, name="floor")
    scene.add_shape(floor, dcol.Polytope.box(1.0, 1.0, 0.1), name="slab")
    bodies = [scene.add_body(X, name=f"b{i}") for i, X in enumerate(random_poses(rng, 6, 0.25))]
    general = idcol_shapes()[3:5] + [idcol_shapes()[1]]  # pair with iDCOL shapes only: group 2
    exact = [idcol_shapes()[0], idcol_shapes()[2]] + dcol_primitives()[2:] + qp_shapes()
    for i, s in enumerate(general + exact):
        group, mask = (2, 2) if i < len(general) else (1 | (i % 2) << 1, 0xFD if i % 2 == 0 else 0xFF)
        if i >= len(general) and i % 2 and not isinstance(s, (diffcol.Sphere, diffcol.Superellipsoid)):
            group, mask = 1, 0xFD
        scene.add_shape(bodies[i % len(bodies)], s, random_poses(rng, 1, 0.05)[0], group=group, mask=mask,
                        name=f"s{i}")
    scene.disable_body_pair(bodies[0], bodies[1])
    scene.disable_body_pair(bodies[4], bodies[2])
    return scene


SCENE_FIELDS = ("shape1", "shape2", "body1", "body2", "family", "status", "solver_status", "ok", "separated",
                "has_alpha", "has_gap", "has_distance", "closest", "alpha", "gap", "distance", "p1_W", "p2_W",
                "normal_W", "derivatives_ok", "points_ok", "normal_ok", "J_alpha", "J_gap", "J_distance", "J_p1_W",
                "J_p2_W", "J_normal_W")


def assert_same_query(a, b):
    assert len(a) == len(b) and a.candidates == b.candidates
    for f in SCENE_FIELDS:
        if f.startswith("J_") and not len(a.derivatives_ok) and len(a):
            with pytest.raises(ValueError):
                getattr(b, f)  # neither has derivatives
            continue
        assert same(getattr(a, f), getattr(b, f)), f


def test_scene_round_trip_queries_bit_for_bit():
    scene = mixed_scene()
    scene.query(margin=0.3)  # warm starts are not state
    copy_ = round_trip(scene)
    fresh = mixed_scene()
    assert copy_.num_bodies == scene.num_bodies and copy_.num_shapes == scene.num_shapes
    for i in range(scene.num_shapes):
        assert copy_.describe_shape(i) == scene.describe_shape(i)
        assert same(copy_.shape_pose(i).matrix(), scene.shape_pose(i).matrix())
    for i in range(scene.num_bodies):
        assert same(copy_.body_pose(i).matrix(), scene.body_pose(i).matrix())
    assert same(copy_.candidate_pairs(0.3), scene.candidate_pairs(0.3))
    for frame in (diffcol.ReferenceFrame.world, diffcol.ReferenceFrame.local):
        r0 = fresh.query(margin=0.3, derivatives=True, frame=frame)
        r1 = copy_.query(margin=0.3, derivatives=True, frame=frame)
        assert len(r0) > 20 and set(r0.family) == {"idcol", "dcol", "qp"} and r0.ok.all()
        assert_same_query(r0, r1)
    # a second round trip, and copy.deepcopy through the same state
    assert_same_query(round_trip(copy_).query(margin=0.3), mixed_scene().query(margin=0.3))
    assert_same_query(copy.deepcopy(mixed_scene()).query(margin=0.3), mixed_scene().query(margin=0.3))


def test_scene_round_trip_keeps_names_filters_and_disabled_pairs():
    scene = mixed_scene()
    state = scene.__getstate__()
    bodies, shapes, disabled = state
    assert [b[0] for b in bodies] == ["floor"] + [f"b{i}" for i in range(6)]
    assert bodies[0][2] is True and bodies[1][2] is False
    assert [s[5] for s in shapes] == ["slab"] + [f"s{i}" for i in range(len(shapes) - 1)]
    assert [s[3] for s in shapes[1:5]] == [2, 2, 2, 3] and [s[4] for s in shapes[1:6]] == [2, 2, 2, 0xFF, 0xFD]
    assert sorted(disabled) == [(1, 2), (3, 5)]
    assert round_trip(scene).__getstate__()[2] == disabled
    # DCOL primitives are stored with their offset folded into the mount
    folded = [s[1] for s in shapes if type(s[1]).__module__.endswith("dcol")]
    assert len(folded) == 7 and all(np.array_equal(p.offset.matrix(), np.eye(4)) for p in folded)


def test_bad_states_raise():
    for cls, state in [(diffcol.Sphere, (1.0, 2.0)), (dcol.Polytope, (np.eye(3), np.ones(3))),
                       (qp.Capsule, (1.0, 2.0)), (diffcol.Scene, ([], []))]:
        obj = cls.__new__(cls)
        with pytest.raises(ValueError, match="pickled state"):
            obj.__setstate__(state)
    obj = diffcol.Sphere.__new__(diffcol.Sphere)
    with pytest.raises(ValueError):
        obj.__setstate__((-1.0,))  # the constructor's checks run
    with pytest.raises(ValueError):
        diffcol.Shape.__new__(diffcol.Shape).__setstate__((dcol.Sphere(1.0),))


# ------------------------------------------------------------------ robots

def test_robot_model_round_trip_same_kinematics():
    models = [diffcol.RobotModel.from_urdf_file(str(ROBOTS / "arm7.urdf"), str(ROBOTS / "arm7.srdf")),
              diffcol.RobotModel.from_urdf_file(str(ROBOTS / "arm7_mesh.urdf"))]
    rng = np.random.default_rng(4)
    for model in models:
        copy_ = round_trip(model)
        assert repr(copy_) == repr(model) and copy_.link_names == model.link_names
        assert same(copy_.lower_limits, model.lower_limits) and same(copy_.upper_limits, model.upper_limits)
        for _ in range(5):
            q = rng.uniform(model.lower_limits, model.upper_limits)
            X = random_poses(rng, 1, 1.0)[0]
            for a, b in zip(model.forward_kinematics(q, X), copy_.forward_kinematics(q, X)):
                assert same(a.matrix(), b.matrix())
            assert same(model.link_jacobian(q, 8, X_WB=X), copy_.link_jacobian(q, 8, X_WB=X))
        # the same robot in the same scene: the same query, the SRDF pairs included
        q = rng.uniform(model.lower_limits, model.upper_limits)
        results = []
        for m in (model, copy_):
            scene = diffcol.Scene()
            robot = diffcol.Robot(scene, m)
            robot.set_configuration(q)
            results.append(robot.query(margin=0.5, derivatives=True))
        assert_same_query(results[0].pairs, results[1].pairs)
        assert same(results[0].J_distance_q, results[1].J_distance_q)


def test_robot_is_not_pickled():
    scene = diffcol.Scene()
    robot = diffcol.Robot(scene, diffcol.RobotModel.from_urdf_file(str(ROBOTS / "arm7.urdf")))
    with pytest.raises(TypeError, match="RobotModel"):
        pickle.dumps(robot)
    # the scene with the robot's links pickles as bodies at their current poses
    assert round_trip(scene).num_bodies == scene.num_bodies
