"""diffcol.dcol: DCOL primitives, solve_contact and contact_derivatives from Python.

- Bit for bit: every field of ContactResult, every block of ContactDerivatives and of the DCOL.jl
  (r, q) layout equal python/tests/reference_solver.cpp's (the C++ library without Python) on
  every ordered pair of the seven benchmark primitives, with and without offsets, and the
  `diffcol query --method dcol` CLI's JSON on a few of them.
- Derivatives: central finite differences written here in numpy (SE(3) exponential of world
  twists for the X1 / X2 blocks, of the body twist of body 2 for X12; raw (r, q) coordinates
  for the DCOL.jl layout), Richardson-extrapolated, 1e-6 relative (as test_derivatives_fd.py).
- Independent references: sphere-sphere closed form; offsets = composed poses.
- Invalid input raises ValueError; every public name has a docstring.
"""
import inspect
import json
import math
import subprocess

import numpy as np
import pytest

import diffcol
from diffcol import dcol
from helpers import best_of, check_block, query_line, random_pose7, richardson, run_reference, same_bits, twist_jacobians_fd

NAMES = dcol.benchmark_primitive_names()
OFFSETS = {  # offsets for the "with offset" queries (exact decimals: both sides parse them alike)
    "capsule": [0.1, -0.2, 0.05, 0.9, 0.1, -0.2, 0.3],
    "cone": [-0.15, 0.1, 0.2, 0.7, -0.3, 0.2, 0.1],
    "polytope": [0.05, 0.1, -0.1, 0.95, 0.2, 0.1, -0.1],
}
RESULT_FIELDS = ["alpha", "x_W", "p1_W", "p2_W", "gap", "duality_measure", "primal_residual", "dual_residual",
                 "certificate_gap"]
BLOCKS = ["J_alpha_X12", "J_alpha_X1", "J_alpha_X2", "J_gap_X1", "J_gap_X2", "J_x_W_X1", "J_x_W_X2",
          "J_p1_W_X1", "J_p1_W_X2", "J_p2_W_X1", "J_p2_W_X2"]
PQ_BLOCKS = ["J_alpha", "J_x_W", "J_p1_W", "J_p2_W", "J_gap"]


def primitive(spec):
    """The Python twin of reference_solver.cpp's dcol SHAPE spec (NAME or NAME@x,y,z,qw,qx,qy,qz)."""
    name, _, off = spec.partition("@")
    p = dcol.benchmark_primitive(name)
    if off:
        p.offset = [float(v) for v in off.split(",")]
    return p


def queries(n_per_pair, seed, with_offsets=False):
    """(spec1, spec2, pose1 (7,), pose2 (7,)) over every ordered pair: body 2 at a random relative
    pose at 0.2-1.6 times the sum of the outer radii (separated and penetrating)."""
    rng = np.random.default_rng(seed)
    out = []
    for a in NAMES:
        for b in NAMES:
            for _ in range(n_per_pair):
                sa = a + ("@" + ",".join(str(v) for v in OFFSETS[a]) if with_offsets and a in OFFSETS else "")
                sb = b + ("@" + ",".join(str(v) for v in OFFSETS[b]) if with_offsets and b in OFFSETS else "")
                p1 = random_pose7(rng)
                u = rng.normal(size=3)
                u *= rng.uniform(0.2, 1.6) * (dcol.outer_radius(primitive(a)) + dcol.outer_radius(primitive(b))) / np.linalg.norm(u)
                X2 = diffcol.Pose(p1) * diffcol.Pose(np.concatenate([u, rng.normal(size=4)]))
                out.append((sa, sb, p1, X2.to_vector()))
    return out


def compare(r, d, pq, ref, where):
    assert int(r.status) == int(ref["status"][0]), where
    assert r.iterations == int(ref["iterations"][0]), where
    assert r.kkt.polished == bool(ref["polished"][0]), where
    for name in RESULT_FIELDS:
        assert same_bits(np.ravel(getattr(r, name)), ref[name]), f"{where}: {name}"
    assert int(d.status) == int(ref["derivative_status"][0]), where
    for name in BLOCKS:
        assert same_bits(np.ravel(getattr(d, name)), ref[name]), f"{where}: {name}"
    for name in PQ_BLOCKS:
        assert same_bits(np.ravel(getattr(pq, name)), ref["pq_" + name]), f"{where}: pq {name}"


@pytest.mark.parametrize("with_offsets", [False, True])
def test_solve_and_derivatives_equal_cpp_bit_for_bit(reference_exe, with_offsets):
    qs = queries(2, seed=21 + with_offsets, with_offsets=with_offsets)  # 49 ordered pairs x 2 poses
    refs = run_reference(reference_exe, [query_line("dcol", *q) for q in qs])
    converged = 0
    for (a, b, p1, p2), ref in zip(qs, refs):
        s1, s2 = primitive(a), primitive(b)
        r = dcol.solve_contact(s1, p1, s2, p2)
        d = dcol.contact_derivatives(r)
        compare(r, d, dcol.to_position_quaternion(r, d), ref, f"{a}-{b} at {p1}, {p2}")
        converged += r.ok
    assert converged == len(qs)


def same_bits_json(a, b):
    """same_bits up to the sign of zero (the CLI's JSON writer prints -0.0 as 0)."""
    return same_bits(np.ravel(a) + 0.0, np.ravel(b) + 0.0)


def test_solve_equals_cli_json(cli_exe):
    qs = queries(1, seed=4)[::8]
    for a, b, p1, p2 in qs:
        args = [cli_exe, "query", "--method", "dcol", "--shape1", a, "--shape2", b, "--derivatives", "--hessians",
                "--shape-derivatives",
                "--pose1", ",".join(repr(float(v)) for v in p1), "--pose2", ",".join(repr(float(v)) for v in p2)]
        out = subprocess.run(args, capture_output=True, text=True)
        assert out.returncode in (0, 1), out.stderr
        ref = json.loads(out.stdout)
        r = dcol.solve_contact(primitive(a), p1, primitive(b), p2)
        d = dcol.contact_derivatives(r)
        assert ref["status"] == diffcol.status_name(r.status)
        assert ref["iterations"] == r.iterations and ref["polished"] == r.kkt.polished
        for name in RESULT_FIELDS:
            assert same_bits_json(getattr(r, name), ref[name]), f"{a}-{b}: {name}"
        assert ref["derivatives"]["status"] == diffcol.status_name(d.status)
        for name in BLOCKS:
            assert same_bits_json(getattr(d, name), ref["derivatives"][name]), f"{a}-{b}: {name}"
        nd = dcol.normal_derivatives(r)
        assert same_bits_json(dcol.separating_normal(r), ref["normal_W"]), f"{a}-{b}: normal_W"
        assert ref["derivatives"]["normal_status"] == diffcol.status_name(nd.status)
        for name in ["J_normal_W_X1", "J_normal_W_X2"]:
            assert same_bits_json(getattr(nd, name), ref["derivatives"][name]), f"{a}-{b}: {name}"
        h = dcol.contact_hessians(r)
        assert ref["hessians"]["status"] == diffcol.status_name(h.status)
        for name in ["H_alpha", "H_gap", "H_alpha_X12", "H_x_W", "H_p1_W", "H_p2_W", "H_normal_W"]:
            assert same_bits_json(getattr(h, name), ref["hessians"][name]), f"{a}-{b}: {name}"
        sd = dcol.shape_derivatives(primitive(a), primitive(b), r)
        ref_sd = ref["shape_derivatives"]
        assert ref_sd["parameters1"] + ref_sd["parameters2"] == (dcol.shape_parameter_names(primitive(a))
                                                                 + dcol.shape_parameter_names(primitive(b)))
        for name in ["d_alpha", "d_gap", "d_x_W", "d_p1_W", "d_p2_W", "d_normal_W"]:
            assert same_bits_json(np.atleast_2d(getattr(sd, name)), ref_sd[name]), f"{a}-{b}: {name}"


def test_cli_sparse_shape_derivatives_of_a_large_hull(cli_exe):
    """Above 32 faces `diffcol query --shape-derivatives` prints the sparse form: the same bits as
    dcol.sparse_shape_derivatives on the same hull, its listed parameters named."""
    rng = np.random.default_rng(17)
    pts = rng.normal(size=(40, 3))
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    spec = "polytope:points=" + ";".join("/".join(repr(float(v)) for v in p) for p in pts)
    pose2 = [1.1, 0.4, 0.2, 0.9, 0.1, 0.3, 0.2]
    out = subprocess.run([cli_exe, "query", "--method", "dcol", "--shape1", spec, "--shape2", "capsule",
                          "--pose2", ",".join(repr(v) for v in pose2), "--shape-derivatives"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    full = json.loads(out.stdout)
    ref = full["shape_derivatives"]
    # the CLI builds the hull about the centroid of its points (summed in order), mounted there
    c = np.zeros(3)
    for p in pts:
        c = c + p
    c = c / len(pts)
    assert np.array_equal(c, full["X_WS1"]["position"])
    hull = dcol.Polytope.convex_hull(pts - c, diffcol.Pose(list(c) + [1.0, 0.0, 0.0, 0.0]))
    cap = dcol.benchmark_primitive("capsule")
    assert hull.num_faces > 32
    q = np.array(pose2[3:]) / np.linalg.norm(pose2[3:])
    r = dcol.solve_contact(hull, diffcol.Pose(), cap, diffcol.Pose(pose2[:3] + list(q)))
    sp = dcol.sparse_shape_derivatives(hull, cap, r)
    assert sp.ok and ref["sparse"] and ref["ok"] and (ref["count1"], ref["count2"]) == (sp.count1, sp.count2)
    names = dcol.shape_parameter_names(hull) + dcol.shape_parameter_names(cap)
    listed = [(1 if p < sp.count1 else 2, p if p < sp.count1 else p - sp.count1, names[p]) for p in sp.parameter]
    assert [(e["shape"], e["index"], e["name"]) for e in ref["parameters"]] == listed
    for name in ["d_alpha", "d_gap", "d_x_W", "d_p1_W", "d_p2_W", "d_normal_W"]:
        assert same_bits_json(np.atleast_2d(getattr(sp, name)), ref[name]), name


# ---------------------------------------------------------------- finite differences

OUTPUTS = ["alpha", "gap", "x_W", "p1_W", "p2_W"]


def outputs(r):
    assert r.ok
    return {n: np.atleast_1d(np.array(getattr(r, n), dtype=float)) for n in OUTPUTS}


def twist_fd(s1, s2, T1, T2, wrt):
    return twist_jacobians_fd(lambda A, B: outputs(dcol.solve_contact(s1, A, s2, B)), T1, T2, wrt, OUTPUTS)


FD_CONFIGS = queries(1, seed=9, with_offsets=True)


@pytest.mark.parametrize("a,b,p1,p2", FD_CONFIGS, ids=[f"{q[0].split('@')[0]}-{q[1].split('@')[0]}" for q in FD_CONFIGS])
def test_twist_jacobians_match_finite_differences(a, b, p1, p2):
    s1, s2 = primitive(a), primitive(b)
    T1, T2 = diffcol.Pose(p1).matrix(), diffcol.Pose(p2).matrix()
    r = dcol.solve_contact(s1, T1, s2, T2)
    assert r.ok
    if not r.kkt.polished:
        pytest.skip("unpolished (non-unique x*): a non-smooth configuration")
    d = dcol.contact_derivatives(r)
    assert d.ok
    for wrt in ["X1", "X2"]:
        N = twist_fd(s1, s2, T1, T2, wrt)
        for n in OUTPUTS:
            check_block(getattr(d, f"J_{n}_{wrt}"), N[n], f"{a}-{b} J_{n}_{wrt}")
    N = twist_fd(s1, s2, T1, T2, "X12")
    check_block(d.J_alpha_X12, N["alpha"], f"{a}-{b} J_alpha_X12")
    # the dual's separating normal and its derivatives
    nd = dcol.normal_derivatives(r)
    assert nd.ok and nd.frame == diffcol.ReferenceFrame.world
    np.testing.assert_array_equal(nd.normal_W, dcol.separating_normal(r))
    assert abs(np.linalg.norm(nd.normal_W) - 1.0) < 1e-14
    for wrt in ["X1", "X2"]:
        N = twist_jacobians_fd(lambda A, B: {"n": dcol.separating_normal(dcol.solve_contact(s1, A, s2, B))},
                               T1, T2, wrt, ["n"])
        check_block(getattr(nd, f"J_normal_W_{wrt}"), N["n"], f"{a}-{b} J_normal_W_{wrt}")


@pytest.mark.parametrize("a,b", [("cone", "polytope"), ("ellipsoid", "capsule"), ("padded_polygon", "cylinder")])
def test_dcol_jl_position_quaternion_layout_matches_finite_differences(a, b):
    rng = np.random.default_rng(3)
    _, _, p1, p2 = next(q for q in queries(1, seed=5) if q[0] == a and q[1] == b)
    p1, p2 = diffcol.Pose(p1).to_vector(), diffcol.Pose(p2).to_vector()  # unit quaternions, w >= 0
    s1, s2 = primitive(a), primitive(b)
    r = dcol.solve_contact(s1, p1, s2, p2)
    pq = dcol.to_position_quaternion(r, dcol.contact_derivatives(r))
    assert pq.status == diffcol.DerivativeStatus.ok
    names = ["alpha", "x_W", "gap"]
    coords = np.concatenate([p1, p2])  # (r1, q1, r2, q2)

    def at_step(h):
        cols = []
        for k in range(14):
            def f(t):
                c = coords.copy()
                c[k] += t
                rr = dcol.solve_contact(s1, c[:7], s2, c[7:])  # the quaternion is normalized by the Pose
                return {n: np.atleast_1d(np.array(getattr(rr, n), dtype=float)) for n in names}

            cols.append(richardson(f, h))
        return {n: np.stack([c[n] for c in cols], axis=-1) for n in names}

    N = best_of(at_step, names)
    check_block(pq.J_alpha, N["alpha"], "J_alpha (r, q)")
    check_block(pq.J_x_W, N["x_W"], "J_x_W (r, q)")
    check_block(pq.J_gap, N["gap"], "J_gap (r, q)")
    # the quaternion columns are orthogonal to q (the normalization removes the radial direction)
    assert abs(pq.J_alpha[3:7] @ p1[3:]) < 1e-12 and abs(pq.J_alpha[10:14] @ p2[3:]) < 1e-12
    # the standalone map gives the same columns
    d = dcol.contact_derivatives(r)
    M = dcol.world_twist_to_position_quaternion(d.J_alpha_X2, p2)
    assert M.shape == (1, 7) and np.allclose(M[0], pq.J_alpha[7:], rtol=1e-13, atol=1e-15)
    del rng


# ---------------------------------------------------------------- independent references

def test_sphere_sphere_closed_form():
    rng = np.random.default_rng(1)
    for _ in range(20):
        R1, R2 = rng.uniform(0.2, 2.0, size=2)
        p1, p2 = random_pose7(rng, 2.0), random_pose7(rng, 2.0)
        r = dcol.solve_contact(dcol.Sphere(R1), p1, dcol.Sphere(R2), p2)
        d12 = np.linalg.norm(p2[:3] - p1[:3])
        assert r.ok and r.start == dcol.StartMethod.closed_form
        assert r.alpha == pytest.approx(d12 / (R1 + R2), rel=1e-9)
        assert r.gap == pytest.approx(d12 - R1 - R2, abs=1e-9)
        n = (p2[:3] - p1[:3]) / d12
        assert np.allclose(r.p1_W, p1[:3] + R1 * n, atol=1e-8) and np.allclose(r.p2_W, p2[:3] - R2 * n, atol=1e-8)


def test_kkt_summary_counts_the_eliminated_slacks():
    """ConeKkt.kkt_full_dim = n + the active orthant rows + the rows of the active cones; kkt_dim =
    kkt_full_dim - 2 elim_count, each eliminated slack takes one active orthant row; slacks are
    eliminated only where K has more than 10 rows (docs/dcol.md, "Solver")."""
    rng = np.random.default_rng(3)
    seen = {"padded_polygon": 0, "polytope": 0}
    for other in ["padded_polygon", "polytope"]:
        a, b = dcol.benchmark_primitive("padded_polygon"), dcol.benchmark_primitive(other)
        for _ in range(60):
            u = rng.normal(size=3)
            u *= rng.uniform(0.3, 1.5) * (dcol.outer_radius(a) + dcol.outer_radius(b)) / np.linalg.norm(u)
            r = dcol.solve_contact(a, random_pose7(rng), b, diffcol.Pose(np.concatenate([u, rng.normal(size=4)])))
            assert r.ok
            k = r.kkt
            if not k.polished:
                continue
            assert k.kkt_full_dim >= k.n + k.active_count
            assert k.kkt_dim == k.kkt_full_dim - 2 * k.elim_count
            assert 0 <= k.elim_count <= min(4, k.active_count)
            if k.elim_count:
                assert k.kkt_full_dim > 10
            seen[other] += k.elim_count
    assert seen["padded_polygon"] > 0 and seen["polytope"] > 0


def test_offset_equals_composed_body_pose():
    off = diffcol.Pose([0.3, -0.1, 0.2, 0.8, 0.2, -0.4, 0.1])
    X1 = diffcol.Pose([0.1, 0.2, 0.3, 1.0, 0.0, 0.0, 0.0])
    X2 = diffcol.Pose([1.8, 0.4, -0.5, 0.6, 0.3, 0.1, -0.2])
    cone_off = dcol.Cone(2.0, math.radians(30), offset=off)
    assert np.array_equal(dcol.primitive_offset(cone_off).matrix(), off.matrix())
    a = dcol.solve_contact(dcol.Ellipsoid.from_semi_axes(0.5, 1, 1.5), X1, cone_off, X2)
    b = dcol.solve_contact(dcol.Ellipsoid.from_semi_axes(0.5, 1, 1.5), X1, dcol.Cone(2.0, math.radians(30)), X2 * off)
    assert a.ok and b.ok
    assert a.alpha == pytest.approx(b.alpha, rel=1e-10)
    assert np.allclose(a.x_W, b.x_W, atol=1e-9) and np.allclose(a.X_WS2.matrix(), (X2 * off).matrix(), atol=1e-15)
    assert np.array_equal(a.X_WB2.matrix(), X2.matrix())


def test_primitives_expose_their_parameters():
    box = dcol.Polytope.box(1.0, 0.5, 0.25)
    assert box.num_faces == 6 and box.A.shape == (6, 3) and box.b.shape == (6,)
    assert np.allclose(np.sort(box.b), [0.25, 0.25, 0.5, 0.5, 1.0, 1.0])
    poly = dcol.Polytope(2.0 * box.A, 2.0 * box.b)  # rows are normalized
    assert np.allclose(poly.A, box.A) and np.allclose(poly.b, box.b)
    pp = dcol.PaddedPolygon.rectangle(1.0, 0.6, 0.2)
    assert pp.num_edges == 4 and pp.C.shape == (4, 2) and pp.R == 0.2
    e = dcol.Ellipsoid.from_semi_axes(0.5, 1.0, 1.5)
    assert np.allclose(e.U.T @ e.U, e.P) and np.allclose(np.diag(e.P), [4.0, 1.0, 1 / 2.25])
    assert dcol.make_primitive("capsule", {"R": 0.5, "L": 2.0}).L == 2.0
    for i, n in enumerate(NAMES):
        p = dcol.benchmark_primitive(n)
        assert int(dcol.primitive_type(p)) == i and dcol.primitive_type_name(dcol.primitive_type(p)) == n
        assert 0 < dcol.inner_radius(p) <= dcol.outer_radius(p)
        assert repr(p).startswith("dcol." + n)
    opts = dcol.SolveOptions(max_iterations=30, polish=False)
    assert opts.max_iterations == 30 and not opts.polish
    r = dcol.solve_contact(dcol.Sphere(1.0), np.eye(4), dcol.Sphere(1.0), [3, 0, 0, 1, 0, 0, 0], opts)
    assert r.ok and not r.kkt.polished and r.kkt.x.shape == (r.kkt.n,) and r.kkt.z.shape == (r.kkt.m,)
    smooth = dcol.solve_contact(dcol.Sphere(1.0), np.eye(4), dcol.Sphere(1.0), [3, 0, 0, 1, 0, 0, 0],
                                dcol.SolveOptions(barrier_target=1e-3))
    assert smooth.ok and smooth.duality_measure > 1e-6  # stopped on the central path
    assert smooth.alpha != r.alpha  # the smoothed problem is biased by O(mu)


def test_support_points_and_vertices():
    # Independent references: a box's support point is the corner with the signs of d; a sphere's
    # is R d/|d|; a capsule's adds the segment end; every vertex of the triangle is a support point.
    box = dcol.Polytope.box(1.0, 0.5, 0.25)
    assert box.vertices.shape == (8, 3)
    assert np.allclose(np.sort(np.abs(box.vertices), axis=0)[-1], [1.0, 0.5, 0.25])
    rng = np.random.default_rng(5)
    for _ in range(50):
        d = rng.normal(size=3)
        assert np.allclose(box.support(d), np.sign(d) * [1.0, 0.5, 0.25])
        assert np.allclose(dcol.Sphere(2.0).support(d), 2.0 * d / np.linalg.norm(d))
        cap = dcol.Capsule(0.5, 2.0).support(d)
        assert np.allclose(cap, [math.copysign(1.0, d[0]), 0, 0] + 0.5 * d / np.linalg.norm(d))
    tri = dcol.PaddedPolygon(np.array([[0.0, -1.0], [-1.0, 0.0], [1.0, 1.0]]), np.array([0.3, 0.3, 0.7]), 0.1)
    v = tri.vertices
    assert v.shape == (3, 2)
    assert np.all(np.diff(np.unwrap(np.arctan2(v[:, 1], v[:, 0]))) > 0)  # counter-clockwise
    for k in range(3):
        d = np.array([v[k, 0], v[k, 1], 0.0])  # the vertex direction picks that vertex
        assert np.allclose(tri.support(d), [v[k, 0], v[k, 1], 0] + 0.1 * d / np.linalg.norm(d))
    assert np.allclose(dcol.Cone(2.0, 0.5).support(np.zeros(3)), 0.0)
    with pytest.raises(ValueError, match="finite"):
        box.support([np.nan, 0.0, 1.0])


def test_coincident_origins_and_derivative_status():
    r = dcol.solve_contact(dcol.Sphere(1.0), np.eye(4), dcol.Sphere(2.0), np.eye(4))
    assert r.status == diffcol.SolveStatus.coincident_origins and r.alpha == 0.0
    assert r.start == dcol.StartMethod.none
    d = dcol.contact_derivatives(r)
    assert d.status == diffcol.DerivativeStatus.coincident_origins and not d.ok
    assert not np.any(d.J_alpha_X1) and not np.any(d.J_x_W_X2)


def test_near_coincident_origins_and_the_certificate():
    # two unit spheres 1e-11 apart: alpha = 5e-12 exactly (the unit instance), certified
    s = dcol.Sphere(1.0)
    r = dcol.solve_contact(s, np.eye(4), s, [1e-11, 0, 0, 1, 0, 0, 0])
    assert r.ok and r.alpha == pytest.approx(5e-12, rel=1e-13)
    assert r.certificate_gap <= dcol.certificate_tolerance
    c = dcol.certify(s, s, r)
    assert c.ok and c.gap == r.certificate_gap
    assert diffcol.SolveStatus.not_certified.name == "not_certified"
    # a box and an ellipsoid 1e-8 apart: the answer at unit distance, scaled
    box, ell = dcol.Polytope.box(0.5, 0.7, 0.9), dcol.Ellipsoid.from_semi_axes(0.4, 0.8, 1.1)
    q = np.array([0.9, 0.1, 0.3, 0.2]) / np.linalg.norm([0.9, 0.1, 0.3, 0.2])
    r = dcol.solve_contact(box, np.eye(4), ell, np.concatenate([[1e-8, 2e-8, -1e-8], q]))
    unit = dcol.solve_contact(box, np.eye(4), ell, np.concatenate([[1.0, 2.0, -1.0], q]))
    assert r.ok and dcol.certify(box, ell, r).ok
    assert r.alpha == pytest.approx(1e-8 * unit.alpha, rel=1e-10)


# ---------------------------------------------------------------- invalid input and docs

@pytest.mark.parametrize("make,match", [
    (lambda: dcol.Polytope(np.eye(3), np.ones(3)), "Polytope"),
    (lambda: dcol.Polytope(np.ones((6, 2)), np.ones(6)), r"\(m, 3\)"),
    (lambda: dcol.Polytope(np.vstack([np.eye(3), -np.eye(3)]), -np.ones(6)), "offsets must be > 0"),
    (lambda: dcol.Polytope(np.vstack([np.eye(3), -np.eye(3)])[:5], np.ones(5)), "unbounded"),
    (lambda: dcol.Capsule(0.0, 1.0), "R"),
    (lambda: dcol.Cylinder(1.0, float("nan")), "L"),
    (lambda: dcol.Cone(1.0, 2.0), "beta"),
    (lambda: dcol.Ellipsoid(np.array([[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]])), "symmetric"),
    (lambda: dcol.Ellipsoid(-np.eye(3)), "positive definite"),
    (lambda: dcol.PaddedPolygon(np.eye(2), np.ones(2), 0.1), "PaddedPolygon"),
    (lambda: dcol.PaddedPolygon.rectangle(1.0, 1.0, -0.1), "PaddedPolygon"),
    (lambda: dcol.Sphere(-1.0), "Sphere"),
    (lambda: dcol.Sphere(1.0, offset=[0, 0, 0, 0, 0, 0, 0]), "quaternion"),
    (lambda: dcol.benchmark_primitive("torus"), "torus"),
    (lambda: dcol.make_primitive("capsule", {"R": 0.5}), "missing parameter"),
    (lambda: dcol.SolveOptions(max_iterations=0), "max_iterations"),
    (lambda: dcol.SolveOptions(feasibility_tolerance=float("nan")), "feasibility_tolerance"),
    (lambda: dcol.SolveOptions(barrier_target=-1.0), "barrier_target"),
    (lambda: dcol.solve_contact(dcol.Sphere(1.0), [0, 0, float("nan"), 1, 0, 0, 0], dcol.Sphere(1.0), np.eye(4)), "finite"),
    (lambda: dcol.solve_contact(dcol.Sphere(1.0), np.ones(5), dcol.Sphere(1.0), np.eye(4)), "7-vector"),
    (lambda: dcol.world_twist_to_position_quaternion(np.ones((2, 5)), np.eye(4)), "6 columns"),
    (lambda: dcol.world_twist_to_position_quaternion(np.full((2, 6), np.nan), np.eye(4)), "finite"),
])
def test_invalid_input_raises_value_error(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_invalid_option_assignment_keeps_the_old_value():
    o = dcol.SolveOptions()
    with pytest.raises(ValueError, match="gap_tolerance"):
        o.gap_tolerance = 0.0
    assert o.gap_tolerance == dcol.SolveOptions().gap_tolerance
    s = dcol.Sphere(1.0)
    with pytest.raises(ValueError):
        s.offset = np.full((4, 4), np.nan)


def public_members_without_docs(module):
    missing = []
    for name in dir(module):
        if name.startswith("_") or name.startswith("kMax"):
            continue
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            continue
        if not (obj.__doc__ or "").strip():
            missing.append(name)
        if inspect.isclass(obj) and not hasattr(obj, "__members__"):  # enum values carry no docs
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, property) or callable(member):
                    if not (getattr(member, "__doc__", None) or "").strip():
                        missing.append(f"{name}.{attr}")
    return missing


def test_every_public_name_has_a_docstring():
    assert not public_members_without_docs(dcol)
    assert "X_WB1" in dcol.solve_contact.__doc__ and "[w; v]" in dcol.solve_contact.__doc__
    assert "J_<output>_<input>" in dcol.ContactDerivatives.__doc__
    assert "(r1, q1, r2, q2)" in dcol.to_position_quaternion.__doc__ or "DCOL.jl" in dcol.to_position_quaternion.__doc__
    text = dcol.__doc__
    for needle in ["Polytope", "solve_contact", "contact_derivatives", "to_position_quaternion"]:
        assert needle in text
    import diffcol.dcol as mod  # importable as a package module
    assert mod is dcol


def test_hessians_and_shape_derivatives():
    """contact_hessians (alpha, the gap, x_W and the normal) against Richardson differences of the
    analytic Jacobians (world twists, symmetric part); shape_derivatives against differences of the
    solve."""
    cone, ell = dcol.Cone(1.5, 0.5), dcol.Ellipsoid.from_semi_axes(0.6, 0.9, 1.2)
    X1 = diffcol.Pose([0.1, -0.2, 0.3, 0.9, 0.1, 0.3, 0.2])
    X2 = diffcol.Pose([1.6, 1.1, 0.9, 0.8, -0.2, 0.1, 0.4])
    r = dcol.solve_contact(cone, X1, ell, X2)
    assert r.ok and r.alpha > 1
    h = dcol.contact_hessians(r)
    assert h.ok and h.H_alpha.shape == (12, 12) and h.H_alpha_X12.shape == (6, 6) and h.H_p1_W.shape == (3, 12, 12)
    assert np.array_equal(h.H_gap, h.H_gap.T)
    scalars = dcol.contact_hessians(r, outputs=dcol.HessianOutputs.scalars)
    assert np.array_equal(scalars.H_alpha, h.H_alpha) and not scalars.H_x_W.any()

    def grads(t, wrt, e):
        A = diffcol.se3_exp(t * e) * X1 if wrt == 0 else X1
        B = diffcol.se3_exp(t * e) * X2 if wrt == 1 else X2
        res = dcol.solve_contact(cone, A, ell, B)
        d, nd = dcol.contact_derivatives(res), dcol.normal_derivatives(res)
        return {"alpha": np.concatenate([d.J_alpha_X1, d.J_alpha_X2]),
                "gap": np.concatenate([d.J_gap_X1, d.J_gap_X2]),
                "x": np.hstack([d.J_x_W_X1, d.J_x_W_X2]),
                "n": np.hstack([nd.J_normal_W_X1, nd.J_normal_W_X2])}

    cols = {"alpha": [], "gap": [], "x": [], "n": []}
    for wrt in range(2):
        for k in range(6):
            e = np.zeros(6)
            e[k] = 1.0
            col = richardson(lambda t: grads(t, wrt, e), 1e-3)
            for n in cols:
                cols[n].append(col[n])
    for n, H in [("alpha", h.H_alpha), ("gap", h.H_gap)]:
        M = np.stack(cols[n], axis=-1)
        np.testing.assert_allclose(H, 0.5 * (M + M.T), rtol=0, atol=1e-6 * np.abs(H).max())
    for n, H in [("x", h.H_x_W), ("n", h.H_normal_W)]:
        M = np.stack(cols[n], axis=-1)  # (3, 12, 12)
        np.testing.assert_allclose(H, 0.5 * (M + np.transpose(M, (0, 2, 1))), rtol=0, atol=1e-6 * np.abs(H).max())
    assert np.abs(h.H_normal_W).max() > 1e-2

    sd = dcol.shape_derivatives(cone, ell, r)
    names = dcol.shape_parameter_names(cone) + dcol.shape_parameter_names(ell)
    assert sd.ok and (sd.count1, sd.count2) == (2, 6) and names[:3] == ["height", "half_angle", "P[0][0]"]
    assert sd.d_alpha.shape == (8,) and sd.d_p2_W.shape == (3, 8)
    step = 1e-5
    fd = [(dcol.solve_contact(dcol.Cone(1.5, 0.5 + s), X1, ell, X2).p1_W) for s in (step, -step)]
    np.testing.assert_allclose(sd.d_p1_W[:, 1], (fd[0] - fd[1]) / (2 * step), atol=1e-7)
    fd = [dcol.separating_normal(dcol.solve_contact(dcol.Cone(1.5 + s, 0.5), X1, ell, X2)) for s in (step, -step)]
    assert sd.d_normal_W.shape == (3, 8) and np.abs(sd.d_normal_W[:, 0]).max() > 1e-3
    np.testing.assert_allclose(sd.d_normal_W[:, 0], (fd[0] - fd[1]) / (2 * step), atol=1e-7)
    sp = dcol.sparse_shape_derivatives(cone, ell, r)  # the same columns, listed
    assert sp.ok and (sp.count1, sp.count2) == (2, 6) and len(sp.parameter) == sp.d_alpha.shape[0] > 0
    dense = np.zeros((3, 8))
    dense[:, sp.parameter] = sp.d_normal_W
    assert np.array_equal(dense, sd.d_normal_W) and np.array_equal(sd.d_alpha[sp.parameter], sp.d_alpha)
    with pytest.raises(ValueError, match="do not match"):
        dcol.shape_derivatives(ell, cone, r)
    with pytest.raises(ValueError, match="do not match"):
        dcol.sparse_shape_derivatives(ell, cone, r)
    assert "P[0][1]" in dcol.ShapeDerivatives.__doc__ and "one-sided" in dcol.ContactHessians.__doc__


def test_convex_hull_polytopes():
    # a cube's corners: six faces (coplanar facets merged); 300 points on a sphere: 596 faces, a
    # polytope above the inline capacity, solved by both routes to the same alpha
    cube = np.array([[x, y, z] for x in (-1, 1) for y in (-0.5, 0.5) for z in (-2, 2)], float)
    P = dcol.Polytope.convex_hull(cube)
    assert P.num_faces == 6 and P.vertices.shape == (8, 3)
    rng = np.random.default_rng(3)
    pts = rng.normal(size=(300, 3))
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    H = dcol.Polytope.convex_hull(pts)
    assert H.num_faces == 596 and H.A.shape == (596, 3) and H.b.shape == (596,)
    assert np.all(pts @ H.A.T <= H.b + 1e-12)
    box = dcol.Polytope.box(0.5, 0.3, 0.2)
    for k in range(10):
        X2 = diffcol.Pose(random_pose7(rng, 3.0))
        r = dcol.solve_contact(H, diffcol.Pose(), box, X2)
        s = dcol.solve_contact(H, diffcol.Pose(), box, X2, dcol.SolveOptions(direct_newton=False))
        assert r.ok and s.ok
        assert abs(r.alpha - s.alpha) <= 1e-10 * r.alpha
    with pytest.raises(ValueError, match="coplanar"):
        dcol.Polytope.convex_hull(np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0.0]]))
    many = rng.normal(size=(4000, 3))
    many /= np.linalg.norm(many, axis=1, keepdims=True)  # ~7,996 faces
    with pytest.raises(ValueError, match="4096"):
        dcol.Polytope.convex_hull(many)
