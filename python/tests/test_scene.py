"""diffcol.Scene: records as numpy arrays, the dispatch of mixed pairs, derivatives against central
differences of the body poses in each frame, bad input."""

import numpy as np
import pytest

import diffcol
from diffcol import dcol, qp

RF = diffcol.ReferenceFrame


def table_ball_rod():
    scene = diffcol.Scene()
    table = scene.add_body([0, 0, 0, 1, 0, 0, 0], static=True, name="table")
    ball = scene.add_body([0.05, -0.02, 0.5, 1, 0, 0, 0], name="ball")
    rod = scene.add_body([0.9, 0.1, 0.3, 0.9, 0.1, 0.3, 0.2], name="rod")
    scene.add_shape(table, dcol.Polytope.box(0.5, 0.5, 0.1))
    scene.add_shape(ball, diffcol.Superellipsoid(n=1, a=0.2, b=0.25, c=0.15), [0, 0, 0.05, 1, 0, 0, 0])
    scene.add_shape(rod, qp.Capsule(radius=0.1, length=0.6), [0.1, 0, 0, 1, 0, 0, 0])
    return scene, (table, ball, rod)


def test_records_are_arrays_and_match_the_layers():
    scene, _ = table_ball_rod()
    r = scene.query(margin=1.0)
    assert len(r) == 3 and r.candidates >= 3
    assert r.p1_W.shape == (3, 3) and r.distance.shape == (3,) and r.shape1.dtype.kind == "i"
    assert list(r.family) == ["dcol", "dcol", "dcol"]  # the n = 1 superellipsoid is a DCOL ellipsoid
    assert r.ok.all() and r.separated.all() and r.closest.all()
    assert np.allclose(np.linalg.norm(r.p2_W - r.p1_W, axis=1), r.distance, atol=1e-9)
    # table–ball against the DCOL query of the represented shapes
    e = dcol.euclidean_distance(dcol.Polytope.box(0.5, 0.5, 0.1), [0, 0, 0, 1, 0, 0, 0],
                                dcol.Ellipsoid.from_semi_axes(0.2, 0.25, 0.15), scene.shape_pose(1))
    assert abs(r.distance[0] - e.distance) < 1e-10
    with pytest.raises(ValueError):
        _ = r.J_gap  # no derivatives asked for


@pytest.mark.parametrize("frame", [RF.world, RF.local, RF.local_world_aligned])
def test_derivatives_against_central_differences(frame):
    scene, (_, ball, rod) = table_ball_rod()
    r = scene.query(margin=1.0, derivatives=True, frame=frame)
    assert r.derivatives_ok.all()
    X = {b: scene.body_pose(b) for b in (ball, rod)}
    h = 1e-6
    for k in range(len(r)):
        b1, b2 = r.body1[k], r.body2[k]
        for col in range(12):
            body = b1 if col < 6 else b2
            if body not in X:  # the static table: its columns are derivatives too, but it is not moved here
                continue
            xi = np.zeros(6)
            xi[col % 6] = h
            vals = []
            for sign in (1, -1):
                scene.set_body_pose(body, diffcol.perturb(X[body], sign * xi, frame))
                q = scene.query(margin=1.0)
                i = [j for j in range(len(q)) if q.shape1[j] == r.shape1[k] and q.shape2[j] == r.shape2[k]][0]
                vals.append(np.concatenate([[q.distance[i], q.alpha[i]], q.p1_W[i], q.normal_W[i]]))
            scene.set_body_pose(body, X[body])
            fd = (vals[0] - vals[1]) / (2 * h)
            an = np.concatenate([[r.J_distance[k, col], r.J_alpha[k, col]], r.J_p1_W[k, :, col], r.J_normal_W[k, :, col]])
            assert np.allclose(an, fd, rtol=1e-5, atol=1e-6), (k, col, an, fd)


def test_dispatch_refuses_with_both_names_and_changes_nothing():
    scene = diffcol.Scene()
    a, b = scene.add_body(), scene.add_body([1, 0, 0, 1, 0, 0, 0])
    scene.add_shape(a, dcol.Cylinder(R=0.2, L=0.5), name="post")
    with pytest.raises(ValueError, match="post"):
        scene.add_shape(b, diffcol.Superellipsoid(n=4, a=0.2, b=0.2, c=0.2), name="blob")
    assert scene.num_shapes == 1
    scene.add_shape(b, diffcol.Superellipsoid(n=4, a=0.2, b=0.2, c=0.2), group=2, mask=2)  # filtered: joins
    assert scene.num_shapes == 2


def test_bad_input():
    scene, (_, ball, _) = table_ball_rod()
    with pytest.raises(TypeError):
        scene.add_shape(ball, "sphere")
    with pytest.raises(ValueError):
        scene.add_shape(7, dcol.Sphere(1.0))
    with pytest.raises(ValueError):
        scene.set_body_pose(ball, [np.nan, 0, 0, 1, 0, 0, 0])
    before = scene.body_pose(ball).matrix()
    bad = np.tile([0, 0, 0, 1, 0, 0, 0.0], (3, 1))
    bad[2, 0] = np.inf
    with pytest.raises(ValueError):
        scene.set_body_poses(bad)
    with pytest.raises(ValueError):
        scene.set_body_poses(np.zeros((2, 7)))
    assert np.array_equal(scene.body_pose(ball).matrix(), before)
    with pytest.raises(ValueError):
        scene.query(margin=-1.0)
    with pytest.raises(ValueError):
        scene.query(num_threads=-2)


def test_two_threads_equal_one():
    rng = np.random.default_rng(4)
    scene = diffcol.Scene()
    for _ in range(80):
        b = scene.add_body(np.concatenate([rng.uniform(-1.5, 1.5, 3), [1, 0, 0, 0]]))
        scene.add_shape(b, dcol.Sphere(rng.uniform(0.1, 0.3)) if rng.random() < 0.5 else qp.Capsule(0.1, 0.3))
    one = scene.query(margin=0.2, derivatives=True)
    two = scene.query(margin=0.2, derivatives=True, num_threads=2)
    assert len(one) > 10
    assert np.array_equal(one.distance, two.distance) and np.array_equal(one.J_p1_W, two.J_p1_W)


@pytest.mark.skipif(not diffcol.has_viewer, reason="built without the viewer")
def test_view_scene(tmp_path):
    scene, _ = table_ball_rod()
    page = diffcol.view_scene(tmp_path / "scene.html", scene, margin=1.0)
    text = open(page).read()
    assert "table/shape0" in text and "rod/shape2" in text
    r = scene.query(margin=1.0)
    assert diffcol.view_scene(tmp_path / "again.html", scene, r) == str(tmp_path / "again.html")
    with pytest.raises(TypeError):
        diffcol.view_scene(tmp_path / "bad.html", "not a scene")
