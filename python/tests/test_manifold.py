"""diffcol.manifold: the Contax contact manifold from Python.

* equal to the C++ library bit for bit (python/tests/reference_solver.cpp, mode "manifold");
* every derivative block (body twists and se(3) log coordinates) against central finite
  differences written here in numpy (Richardson-extrapolated, step chosen from a ladder as in
  test_derivatives_fd.py), 1e-6 relative per row;
* geometry: resting face-on-face boxes have active contacts only on the contact plane with normals
  along z; separated boxes have none;
* SDF primitives against closed forms; ValueError on invalid input; docstrings.
"""
import numpy as np
import pytest

import diffcol
from diffcol import manifold, mesh
from helpers import query_line, random_rotation, run_reference, same_bits, se3_exp

REL = 1e-6
STEPS = [1e-3, 1e-4, 1e-5, 1e-6]
UNIT = [1.0, 1.0, 1.0]


def cube(n):
    return manifold.ContactObject(manifold.make_refined_box(UNIT, n), manifold.make_box_sdf(UNIT, 0.1))


def pose7(T):
    return diffcol.Pose.from_matrix(T).to_vector()


def tilted_pair_poses(rng):
    """Body 1 at a random pose, body 2 above it, tilted, slightly penetrating."""
    T1 = np.eye(4)
    T1[:3, :3] = random_rotation(rng)
    T1[:3, 3] = rng.normal(size=3) * 0.3
    T12 = np.eye(4)
    T12[:3, :3] = se3_exp(np.concatenate([rng.normal(size=3) * 0.3, np.zeros(3)]))[:3, :3]
    T12[:3, 3] = [rng.normal() * 0.2, rng.normal() * 0.2, 1.05 + 0.05 * rng.normal()]
    return T1, T1 @ T12


def outputs(m):
    return {"point": m.points, "normal": m.normals, "distance": m.distances, "activity": m.activities}


def numeric_jacobians(f, coords):
    """{name: (K, ..., 12)} finite differences of f(T1, T2) -> dict along the 12 coordinates."""
    def column(k, h):
        e = np.zeros(12)
        e[k] = 1.0
        def at(t):
            return {n: np.asarray(v, float) for n, v in f(*coords(t * e)).items()}
        def central(s):
            p, m = at(s), at(-s)
            return {n: (p[n] - m[n]) / (2 * s) for n in p}
        d1, d2 = central(h), central(h / 2)
        return {n: (4 * d2[n] - d1[n]) / 3 for n in d1}
    per_step = []
    for h in STEPS:
        cols = [column(k, h) for k in range(12)]
        per_step.append({n: np.stack([c[n] for c in cols], axis=-1) for n in cols[0]})
    best = {}
    for n in per_step[0]:
        diffs = [np.max(np.abs(per_step[i + 1][n] - per_step[i][n])) for i in range(len(STEPS) - 1)]
        best[n] = per_step[int(np.argmin(diffs)) + 1][n]
    return best


def assert_rows_close(A, N, what):
    A, N = np.asarray(A), np.asarray(N)
    rows_A = A.reshape(-1, 12)
    rows_N = N.reshape(-1, 12)
    scale = np.maximum(np.maximum(np.abs(rows_A).max(axis=1), np.abs(rows_N).max(axis=1)), 1e-3)
    err = np.abs(rows_A - rows_N) / scale[:, None]
    worst = np.unravel_index(np.argmax(err), err.shape)
    assert err.max() <= REL, f"{what}: relative error {err.max():.3g} at row {worst[0]}, column {worst[1]}"


SMOOTH = manifold.ManifoldOptions(contact=manifold.ContactOptions(t_pen=0.01, t_nn=0.01))


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("coordinates", [manifold.PoseCoordinates.local, manifold.PoseCoordinates.se3_log])
def test_derivatives_against_finite_differences(seed, coordinates):
    rng = np.random.default_rng(seed)
    b1, b2 = cube(1), cube(2)
    T1, T2 = tilted_pair_poses(rng)
    m, d = manifold.compute_manifold_derivatives(b1, pose7(T1), b2, pose7(T2), SMOOTH, coordinates)
    assert d.coordinates == coordinates
    K = len(m)
    assert d.J_point_X12.shape == (K, 3, 12) and d.J_distance_X12.shape == (K, 12)
    if coordinates == manifold.PoseCoordinates.local:
        def coords(dz):
            return T1 @ se3_exp(dz[:6]), T2 @ se3_exp(dz[6:])
    else:
        s1 = diffcol.se3_log(diffcol.Pose.from_matrix(T1))
        s2 = diffcol.se3_log(diffcol.Pose.from_matrix(T2))
        def coords(dz):
            return se3_exp(s1 + dz[:6]), se3_exp(s2 + dz[6:])
    f = lambda A, B: outputs(manifold.compute_manifold(b1, pose7(A), b2, pose7(B), SMOOTH))
    N = numeric_jacobians(f, coords)
    assert np.max(m.activities) > 0.5  # the configuration has contacts
    assert_rows_close(d.J_distance_X12, N["distance"], "J_distance_X12")
    assert_rows_close(d.J_activity_X12, N["activity"], "J_activity_X12")
    assert_rows_close(d.J_point_X12, N["point"], "J_point_X12")
    assert_rows_close(d.J_normal_X12, N["normal"], "J_normal_X12")


def test_equal_to_cpp(reference_exe):
    rng = np.random.default_rng(7)
    queries = []
    for (n1, n2) in [(1, 1), (1, 2), (2, 1)]:
        T1, T2 = tilted_pair_poses(rng)
        queries.append((n1, n2, pose7(T1), pose7(T2)))
    refs = run_reference(reference_exe, [query_line("manifold", str(a), str(b), p, q) for a, b, p, q in queries])
    for (n1, n2, p1, p2), ref in zip(queries, refs):
        m, d = manifold.compute_manifold_derivatives(cube(n1), p1, cube(n2), p2,
                                                    coordinates=manifold.PoseCoordinates.local)
        m2 = manifold.compute_manifold(cube(n1), p1, cube(n2), p2)
        for name, ours in [("points", m.points), ("distances", m.distances), ("normals", m.normals),
                           ("activities", m.activities), ("J_point_X12", d.J_point_X12),
                           ("J_normal_X12", d.J_normal_X12), ("J_distance_X12", d.J_distance_X12),
                           ("J_activity_X12", d.J_activity_X12)]:
            assert same_bits(np.ravel(ours), ref[name]), name
        # the value-only path gives the same entries as the derivative path (up to rounding)
        np.testing.assert_allclose(m2.points, m.points, rtol=0, atol=1e-12)
        np.testing.assert_allclose(m2.activities, m.activities, rtol=0, atol=1e-12)


def test_resting_and_separated_boxes():
    b1, b2 = cube(4), cube(4)
    assert b1.mesh.num_vertices == 98
    m = manifold.compute_manifold(b1, diffcol.Pose(), b2, [0.0, 0.0, 0.995, 1, 0, 0, 0])
    active = m.activities > 0.9
    assert active.sum() >= 4
    # active contacts lie on the contact plane z = 0.4975 (between the faces) with normals along z
    np.testing.assert_allclose(m.points[active][:, 2], 0.4975, atol=0.01)
    np.testing.assert_allclose(np.abs(m.normals[active][:, 2]), 1.0, atol=1e-2)
    # the normal points out of the other body: +z for points of body 2, -z for points of body 1
    assert np.all(np.sign(m.normals[active][:, 2]) == np.where(m.bodies[active] == 1, 1.0, -1.0))
    assert np.all(m.distances[active] < 0.0)
    far = manifold.compute_manifold(b1, diffcol.Pose(), b2, [0.0, 0.0, 1.3, 1, 0, 0, 0])
    assert far.activities.max() < 0.1
    # the objects' own poses are used when a pose is None
    b2.pose = [0.0, 0.0, 1.3, 1, 0, 0, 0]
    again = manifold.compute_manifold(b1, None, b2, None)
    assert same_bits(again.activities, far.activities)


def test_sdf_primitives_closed_forms():
    sphere = manifold.Superquadric([0.5, 0.5, 0.5], 1.0, 1.0)
    obj = manifold.SdfObject().add(sphere)
    rng = np.random.default_rng(2)
    p = rng.normal(size=(50, 3))
    np.testing.assert_allclose(obj.value(p), np.linalg.norm(p, axis=1) - 0.5, atol=1e-12)
    np.testing.assert_allclose(obj.normal(p), p / np.linalg.norm(p, axis=1)[:, None], atol=1e-9)
    poly = manifold.ConvexPolyhedron.from_halfspaces(np.vstack([np.eye(3), -np.eye(3)]), np.full(6, 0.5), 0.0)
    pobj = manifold.SdfObject().add(poly)
    q = rng.uniform(-0.45, 0.45, size=(50, 3))  # inside: the max of eq. (4) is exact
    np.testing.assert_allclose(pobj.value(q), np.max(np.abs(q), axis=1) - 0.5, atol=1e-14)
    hull = manifold.ConvexPolyhedron.from_vertices(mesh.make_box([1, 1, 1]).vertices, 0.0)
    assert hull.num_planes == 6
    s = obj.evaluate([1.0, 0.0, 0.0])
    assert s.value == pytest.approx(0.5) and np.allclose(s.gradient, [1, 0, 0])
    # smooth union / subtraction: a sphere minus a smaller one still has the outer surface
    hollow = manifold.SdfObject().add(sphere).subtract(manifold.Superquadric([0.2, 0.2, 0.2], 1.0, 1.0))
    assert hollow.value([0.0, 0.0, 0.0]) > 0 and hollow.value([0.35, 0, 0]) < 0
    assert hollow.num_added == 1 and hollow.num_subtracted == 1


def test_iso_surface_mesh():
    sdf = manifold.make_box_sdf([1.0, 0.8, 0.6], 0.3)
    opts = manifold.IsoSurfaceOptions(lower=[-0.7] * 3, upper=[0.7] * 3, cell_size=0.08)
    m = manifold.mesh_from_sdf(sdf, opts)
    assert manifold.max_vertex_sdf(sdf, m) < 1e-8
    assert np.abs(sdf.value(m.vertices)).max() < 1e-8
    obj = manifold.ContactObject(m, sdf)
    assert obj.surface_discrepancy() < 1e-8
    assert manifold.make_refined_box(UNIT, 4).num_vertices == 98


def test_limbed_figure():
    fig = manifold.make_limbed_figure(manifold.FigureOptions(seed=3, target_vertices=150))
    assert len(fig.pieces) == manifold.kFigurePieces == 18
    assert 100 <= fig.mesh.num_vertices <= 250
    assert manifold.figure_piece_name(0) and len(fig.convex_pieces) == 18
    obj = fig.contact_object([0, 0, 0, 1, 0, 0, 0])
    m = manifold.compute_manifold(obj, None, fig.contact_object(), [0.05, 0.0, 0.0, 1, 0, 0, 0],
                                  manifold.ManifoldOptions(num_vertices=(20, 20), num_edges=(8, 8)))
    assert len(m) == 20 + 20 + 2 * 8 * 8
    assert m.activities.max() > 0.9  # two overlapping figures touch


def test_invalid_input():
    b = cube(1)
    with pytest.raises(ValueError):
        manifold.compute_manifold(b, [np.nan, 0, 0, 1, 0, 0, 0], b, diffcol.Pose())
    with pytest.raises(ValueError):
        manifold.compute_manifold(b, None, b, None, manifold.ManifoldOptions(t_topk=-1.0))
    with pytest.raises(ValueError):
        manifold.compute_manifold(b, None, b, None, manifold.ManifoldOptions(num_vertices=(-2, -1)))
    with pytest.raises(ValueError):
        manifold.ContactObject(mesh.make_box(UNIT), manifold.SdfObject())  # no primitive
    with pytest.raises(ValueError):
        manifold.Superquadric([1, -1, 1], 0.5, 0.5)
    with pytest.raises(ValueError):
        manifold.Superquadric([1, 1, 1], 3.0, 0.5)
    with pytest.raises(ValueError):
        manifold.ConvexPolyhedron.from_halfspaces(np.eye(3), np.ones(3), 0.0)  # unbounded
    with pytest.raises(ValueError):
        manifold.SdfObject(blend_temperature=-1)
    with pytest.raises(ValueError):
        manifold.make_refined_box(UNIT, 0)
    with pytest.raises(ValueError):
        manifold.mesh_from_sdf(manifold.make_box_sdf(UNIT), manifold.IsoSurfaceOptions(lower=[-0.2] * 3, upper=[0.2] * 3))
    with pytest.raises(ValueError):
        manifold.WitnessOptions(t_clip=-1).validate()
    with pytest.raises(ValueError):
        manifold.make_limbed_figure(manifold.FigureOptions(height=-1))
    with pytest.raises(ValueError):
        manifold.SdfObject().add(manifold.Superquadric(UNIT, 1, 1)).value([[0, 0]])


def test_docstrings():
    assert manifold.__doc__ and len(manifold.__doc__) > 100
    assert "Entry layout" in manifold.compute_manifold.__doc__
    for name in dir(manifold):
        if name.startswith("_"):
            continue
        obj = getattr(manifold, name)
        if callable(obj):
            assert obj.__doc__ and obj.__doc__.strip(), f"diffcol.manifold.{name} has no docstring"


def test_batch_equals_one_by_one():
    b1, b2 = cube(1), cube(2)
    rng = np.random.default_rng(12)
    pairs = [tilted_pair_poses(rng) for _ in range(5)]
    X1 = np.array([pose7(a) for a, _ in pairs])
    X2 = np.array([pose7(b) for _, b in pairs])
    for threads in (1, 2):
        batch = manifold.ManifoldBatch(b1, b2, num_threads=threads)
        r = batch.compute(X1, X2, derivatives=True)
        K = batch.entries_per_manifold
        assert r.points.shape == (5, K, 3) and r.J_point_X12.shape == (5, K, 3, 12)
        for q in range(5):
            m, d = manifold.compute_manifold_derivatives(b1, X1[q], b2, X2[q])
            assert same_bits(r.points[q], m.points) and same_bits(r.activities[q], m.activities)
            assert same_bits(r.J_distance_X12[q], d.J_distance_X12) and same_bits(r.J_normal_X12[q], d.J_normal_X12)
        v = batch.compute(X1[0], X2)  # one pose for every query; values only
        assert v.J_point_X12 is None and v.distances.shape == (5, K)
    with pytest.raises(ValueError):
        batch.compute(X1[:2], X2)


def test_scene_batch_equals_one_by_one():
    # Three cubes (two meshes), three pairs, four configurations: each pair's slice of every
    # configuration is the one-by-one manifold, bit for bit.
    objects = [cube(1), cube(2), cube(1)]
    pairs = [(0, 1), (1, 2), (2, 0)]
    rng = np.random.default_rng(21)
    S = 4
    poses = np.zeros((S, 3, 7))
    for s in range(S):
        a, b = tilted_pair_poses(rng)
        c, _ = tilted_pair_poses(rng)
        poses[s] = [pose7(a), pose7(b), pose7(c)]
    batch = manifold.ManifoldBatch(objects, pairs, num_threads=2)
    assert batch.num_objects == 3 and batch.num_pairs == 3
    assert batch.entries_per_configuration == sum(batch.pair_entries(p) for p in range(3))
    r = batch.compute_scenes(poses, derivatives=True)
    Kt = batch.entries_per_configuration
    assert r.points.shape == (S, Kt, 3) and r.J_activity_X12.shape == (S, Kt, 12)
    for s in range(S):
        for p in range(3):
            a, b = batch.pair(p)
            o, k = batch.pair_offset(p), batch.pair_entries(p)
            m, d = manifold.compute_manifold_derivatives(objects[a], poses[s, a], objects[b], poses[s, b])
            assert same_bits(r.points[s, o:o + k], m.points) and same_bits(r.activities[s, o:o + k], m.activities)
            assert same_bits(r.J_point_X12[s, o:o + k], d.J_point_X12)
    values = batch.compute_scenes(poses)  # values only (their own code path)
    one = batch.compute_scenes(poses[0])  # one configuration (M, 7)
    assert one.points.shape == (1, Kt, 3) and same_bits(one.points[0], values.points[0])
    m = manifold.compute_manifold(objects[0], poses[1, 0], objects[1], poses[1, 1])
    assert same_bits(values.distances[1, :batch.pair_entries(0)], m.distances)
    with pytest.raises(ValueError):
        batch.compute_scenes(np.zeros((2, 4, 7)))
    with pytest.raises(ValueError):
        batch.compute(poses[0, 0], poses[0, 1])  # several pairs: compute_scenes only
    with pytest.raises(ValueError):
        manifold.ManifoldBatch(objects, [(0, 0)])


def test_witness_batches_match_brute_force():
    # E-E: hard witness (temperatures 0, no regularization) = the closest points of two segments,
    # checked against dense sampling; V-F: hard witness = the closest point on the triangle.
    rng = np.random.default_rng(5)
    N = 40
    ends = rng.uniform(-1.0, 1.0, size=(N, 4, 3))
    hard = manifold.WitnessOptions.hard(0.0)
    ee = manifold.edge_edge_witness_batch(ends, hard, num_threads=2)
    ee1 = manifold.edge_edge_witness_batch(ends.reshape(N, 12), hard, num_threads=1)
    assert same_bits(ee["e1"], ee1["e1"]) and same_bits(ee["distance"], ee1["distance"])
    t = np.linspace(0.0, 1.0, 801)
    for q in range(N):
        a0, a1, b0, b1 = ends[q]
        A = a0 + t[:, None] * (a1 - a0)
        B = b0 + t[:, None] * (b1 - b0)
        dmin = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)).min()
        assert ee["distance"][q] <= dmin + 1e-12
        assert ee["distance"][q] >= dmin - 1e-2
        np.testing.assert_allclose(np.linalg.norm(ee["e1"][q] - ee["e2"][q]), ee["distance"][q], atol=1e-12)
    vf = manifold.vertex_face_witness_batch(ends, hard)
    u = np.linspace(0.0, 1.0, 201)
    for q in range(N):
        v, p0, p1, p2 = ends[q]
        U, W = np.meshgrid(u, u)
        keep = U + W <= 1.0
        P = p0 + U[keep][:, None] * (p1 - p0) + W[keep][:, None] * (p2 - p0)
        dmin = np.linalg.norm(P - v, axis=1).min()
        assert vf["distance"][q] <= dmin + 1e-12
        assert vf["distance"][q] >= dmin - 3e-2
    with pytest.raises(ValueError):
        manifold.edge_edge_witness_batch(np.zeros((3, 5)))
    bad = ends.reshape(N, 12).copy()
    bad[1, 4] = np.nan  # used to give a finite distance 0 for that row
    for f in (manifold.edge_edge_witness_batch, manifold.vertex_face_witness_batch):
        with pytest.raises(ValueError, match="finite"):
            f(bad)


def test_projection_puts_edge_edge_points_on_their_surfaces():
    b1, b2 = cube(1), cube(1)
    T1, T2 = tilted_pair_poses(np.random.default_rng(3))
    plain = manifold.compute_manifold(b1, T1, b2, T2)
    opt = manifold.ManifoldOptions(projection_iterations=6)
    assert opt.projection_iterations == 6
    proj = manifold.compute_manifold(b1, T1, b2, T2, opt)
    ee = np.flatnonzero(proj.kinds == int(manifold.ContactKind.edge_edge))
    assert ee.size > 0
    worst_before = worst_after = 0.0
    for e in ee:
        T, obj = (T1, b1) if proj.bodies[e] == 0 else (T2, b2)
        Tinv = np.linalg.inv(T)
        local = lambda p: Tinv[:3, :3] @ p + Tinv[:3, 3]
        worst_before = max(worst_before, abs(obj.sdf.value(local(plain.points[e]))))
        worst_after = max(worst_after, abs(obj.sdf.value(local(proj.points[e]))))
    assert worst_before > 1e-3 and worst_after < 1e-6
    with pytest.raises(ValueError):
        manifold.compute_manifold(b1, T1, b2, T2, manifold.ManifoldOptions(projection_iterations=21))


def test_point_cloud_bandwidth_that_would_overflow_is_rejected():
    pts, nrm = [[0, 0, 1.0], [0, 0, -1.0], [1.0, 0, 0]], [[0, 0, 1.0], [0, 0, -1.0], [1.0, 0, 0]]
    with pytest.raises(ValueError, match="bandwidth"):  # 1/sigma^2 overflowed: NaN values
        manifold.OrientedPointCloud(pts, nrm, 1e-300)
    assert np.isfinite(manifold.OrientedPointCloud(pts, nrm, 1e-100).evaluate([0, 0, 2.0]).value)
