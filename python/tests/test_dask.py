"""diffcol.dask on a LocalCluster of two worker processes: the gathered arrays equal the local
batch (and the local scene queries) bit for bit; bad input."""

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

import diffcol  # noqa: E402
import diffcol.dask as ddask  # noqa: E402
from diffcol import dcol, qp  # noqa: E402


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    # the workers import this diffcol, not another one on their path
    here = str(Path(diffcol.__file__).resolve().parents[1])
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = here + (os.pathsep + old if old else "")
    try:
        cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
        c = Client(cluster)
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    files = c.run(lambda: __import__("diffcol").__file__)
    assert len(files) == 2 and all(Path(f).resolve() == Path(diffcol.__file__).resolve() for f in files.values())
    yield c
    c.close()
    cluster.close()


def random_poses(rng, shape, spread):
    q = rng.normal(size=shape + (4,))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return np.concatenate([rng.uniform(-spread, spread, size=shape + (3,)), q], axis=-1)


def some_pairs(n):
    shapes = [diffcol.Sphere(0.2), diffcol.Superellipsoid(0.2, 0.15, 0.1, 4),
              diffcol.SuperellipticCylinder(0.1, 0.2, 4), diffcol.SmoothPolytope.box(0.1, 0.2, 0.15, beta=20.0),
              diffcol.SmoothTruncatedCone(0.15, 0.05, 0.1, 0.2, 10.0)]
    return [(shapes[i % 5], shapes[(3 * i + 1) % 5]) for i in range(n)]


def assert_same_arrays(local, remote):
    a, b = local.as_dict(), remote.as_dict()
    assert set(b) == set(a) | {"ok"}
    for k in a:
        assert a[k].shape == b[k].shape and a[k].dtype == b[k].dtype, k
        assert np.array_equal(a[k], b[k], equal_nan=True), k
    assert np.array_equal(np.asarray(local.ok), b["ok"])


def test_pairs_in_chunks_equal_the_local_batch(client):
    rng = np.random.default_rng(0)
    P = 3000
    pairs = some_pairs(P)
    X1, X2 = random_poses(rng, (P,), 0.2), random_poses(rng, (P,), 0.6)
    local = diffcol.ContactBatch(pairs, num_threads=1).solve(X1, X2)
    remote = ddask.map_contact_batch(client, pairs, X1, X2, chunk_size=700, num_threads=1)
    assert remote.steps == 1 and remote.pairs == P and remote.derivatives is None
    assert remote.alpha.shape == (P,) and remote["p1_W"].shape == (P, 3)
    assert_same_arrays(local, remote)
    assert remote.ok.mean() > 0.99


def test_steps_with_warm_starts_and_derivatives(client):
    rng = np.random.default_rng(1)
    T, P = 3, 400
    pairs = some_pairs(P)
    X1 = random_poses(rng, (T, P), 0.2)
    X2 = np.broadcast_to(np.array([0.45, 0, 0, 1, 0, 0, 0]), (T, P, 7)).copy()
    X2[..., :3] += rng.uniform(-0.05, 0.05, size=(T, P, 3))
    opts = diffcol.SolveOptions(tolerance=1e-10)
    local = diffcol.ContactBatch(pairs, num_threads=1, options=opts, derivatives=True,
                                 frame=diffcol.ReferenceFrame.local).solve(X1, X2)
    remote = ddask.map_contact_batch(client, pairs, X1, X2, chunk_size=150, options=opts, derivatives=True,
                                     frame=diffcol.ReferenceFrame.local)
    assert remote.steps == T and remote.alpha.shape == (T, P)
    assert_same_arrays(local, remote)
    d0, d1 = local.derivatives.as_dict(), remote.derivatives.as_dict()
    assert set(d0) == set(d1)
    for k in d0:
        assert np.array_equal(d0[k], d1[k], equal_nan=True), k


def test_one_pair_for_many_poses(client):
    rng = np.random.default_rng(2)
    N = 2500
    s1, s2 = diffcol.Superellipsoid(0.2, 0.1, 0.15, 6), diffcol.SmoothPolytope.box(0.1, 0.1, 0.2, beta=60.0)
    X1 = random_poses(rng, (N,), 0.5)
    X2 = diffcol.Pose([0.1, 0, 0, 1, 0, 0, 0])
    local = diffcol.ContactBatch([(s1, s2)] * N, num_threads=1).solve(X1, X2)
    remote = ddask.map_contact_batch(client, (s1, s2), X1, X2, chunk_size=1000)
    assert remote.pairs == N
    assert_same_arrays(local, remote)


def mixed_scene():
    # the general iDCOL shapes pair with iDCOL shapes only: group 2; the sphere pairs with all
    scene = diffcol.Scene()
    floor = scene.add_body([0, 0, -0.1, 1, 0, 0, 0], static=True, name="floor")
    scene.add_shape(floor, dcol.Polytope.box(1.0, 1.0, 0.1), group=1, mask=1)
    shapes = [(diffcol.Superellipsoid(0.1, 0.15, 0.1, 4), 2), (dcol.Capsule(0.05, 0.2), 1), (qp.Capsule(0.05, 0.2), 1),
              (diffcol.SmoothPolytope.box(0.1, 0.1, 0.1, beta=40.0), 2), (dcol.Cylinder(0.1, 0.2), 1),
              (diffcol.Sphere(0.1), 3), (qp.PaddedPolygon.rectangle(0.1, 0.15, 0.02), 1)]
    for i, (s, group) in enumerate(shapes):
        scene.add_shape(scene.add_body(name=f"b{i}"), s, group=group, mask=group)
    return scene


def test_scene_queries_equal_the_local_loop(client):
    rng = np.random.default_rng(3)
    scene = mixed_scene()
    C = 60
    X = random_poses(rng, (C, scene.num_bodies), 0.3)
    X[:, 0] = [0, 0, -0.1, 1, 0, 0, 0]
    remote = ddask.map_scene_query(client, scene, X, chunk_size=13, margin=0.1, derivatives=True)
    assert len(remote) == C
    local_scene = mixed_scene()
    pairs, families = 0, set()
    for c in range(C):
        local_scene.set_body_poses(X[c])
        local_scene.reset_warm_starts()
        local = ddask.scene_query_arrays(local_scene.query(margin=0.1, derivatives=True))
        assert set(local) == set(remote[c])
        for k in local:
            assert np.array_equal(local[k], remote[c][k]), (c, k)
        pairs += len(local["alpha"])
        families |= set(local["family"])
    assert pairs > C and families == {"idcol", "dcol", "qp"}, (pairs, families)
    assert scene.body_pose(1).matrix()[0, 3] == 0.0  # the scene passed in is unchanged


def test_bad_input(client):
    pairs = some_pairs(4)
    X = random_poses(np.random.default_rng(4), (4,), 0.3)
    with pytest.raises(ValueError, match="chunk_size"):
        ddask.map_contact_batch(client, pairs, X, X, chunk_size=0)
    with pytest.raises(ValueError, match="3 pairs"):
        ddask.map_contact_batch(client, pairs[:3], X, X)
    with pytest.raises(ValueError, match="leading shapes"):
        ddask.map_contact_batch(client, pairs, X, X[:3])
    with pytest.raises(ValueError, match=r"\(\.\.\., 7\)"):
        ddask.map_contact_batch(client, pairs, X[:, :5], X)
    with pytest.raises(ValueError, match="X_WB"):
        ddask.map_scene_query(client, mixed_scene(), np.zeros((3, 2, 7)))
    X[1, 3:] = np.nan  # a bad pose: the workers' ValueError comes back
    with pytest.raises(ValueError):
        ddask.map_contact_batch(client, pairs, X, X, chunk_size=2)
