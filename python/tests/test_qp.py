"""diffcol.qp: DiffPills capsule / padded-polygon proximity and derivatives from Python.

- Bit for bit: every field of ProximityResult, every block of ProximityDerivatives (world and
  body twists) and of the (r, q) chain rule equal python/tests/reference_solver.cpp's (the C++
  library without Python) on the four shape-type pairs, and the `diffcol query --method qp`
  CLI's JSON on a few of them.
- Derivatives: central finite differences written here in numpy (SE(3) exponential: world
  twists X_Wi <- exp(h e_k^) X_Wi, body twists X_Wi <- X_Wi exp(h e_k^); raw (r, q) coordinates),
  Richardson-extrapolated, 1e-6 relative.
- Independent reference: capsule-capsule phi against a dense sampling of both segments.
- Invalid input raises ValueError; every public name has a docstring.
"""
import inspect
import json
import subprocess

import numpy as np
import pytest

import diffcol
from diffcol import qp
from helpers import best_of, check_block, query_line, random_pose7, richardson, run_reference, same_bits, twist_jacobians_fd

PENTAGON = np.array([[1.0, 0.0], [0.3, 0.9], [-0.8, 0.6], [-0.7, -0.7], [0.4, -0.9]])
SPECS = ["capsule:2:0.5", "capsule:1.2:0.3", "rect:1:0.6:0.2", "pentagon:0.1"]
RESULT_FIELDS = ["phi", "signed_distance", "core_distance", "core1_W", "core2_W", "core1_B1", "core2_B2", "p1_W",
                 "p2_W", "normal_W"]
OUTS = ["phi", "signed_distance", "core1_W", "core2_W", "p1_W", "p2_W", "normal_W"]
BLOCKS = [f"J_{o}_{x}" for o in OUTS for x in ["X1", "X2"]]
COORD_BLOCKS = [f"J_{o}_{x}" for o in OUTS for x in ["rq1", "rq2"]]


def shape(spec):
    """The Python twin of reference_solver.cpp's qp SHAPE spec."""
    kind, *v = spec.split(":")
    v = [float(x) for x in v]
    if kind == "capsule":
        return qp.Capsule(v[1], v[0])
    if kind == "rect":
        return qp.PaddedPolygon.rectangle(v[0], v[1], v[2])
    return qp.PaddedPolygon.from_vertices(PENTAGON, v[0])


def queries(n_per_pair, seed):
    """(spec1, spec2, pose1 (7,), pose2 (7,)): every ordered pair of SPECS, body 2 at a random
    relative pose within 0.2-2.5 (separated, touching cores and penetrating alike)."""
    rng = np.random.default_rng(seed)
    out = []
    for a in SPECS:
        for b in SPECS:
            for _ in range(n_per_pair):
                p1 = random_pose7(rng)
                u = rng.normal(size=3)
                u *= rng.uniform(0.2, 2.5) / np.linalg.norm(u)
                X2 = diffcol.Pose(p1) * diffcol.Pose(np.concatenate([u, rng.normal(size=4)]))
                out.append((a, b, p1, X2.to_vector()))
    return out


@pytest.mark.parametrize("convention", ["world", "body"])
def test_proximity_and_derivatives_equal_cpp_bit_for_bit(reference_exe, convention):
    qs = queries(3, seed=31 if convention == "world" else 32)
    mode = "qp" if convention == "world" else "qp_body"
    refs = run_reference(reference_exe, [query_line(mode, *q) for q in qs])
    conv = getattr(qp.ReferenceFrame, "local" if convention == "body" else convention)
    for (a, b, p1, p2), ref in zip(qs, refs):
        where = f"{a}-{b} at {p1}, {p2}"
        s1, s2 = shape(a), shape(b)
        r = qp.proximity(s1, p1, s2, p2)
        d = qp.proximity_derivatives(s1, p1, s2, p2, r, conv)
        c = qp.to_position_quaternion(d, p1[:3], p1[3:], p2[:3], p2[3:])
        assert int(r.status) == int(ref["status"][0]), where
        assert r.cores_touch == bool(ref["cores_touch"][0]) and r.unique_minimizer == bool(ref["unique_minimizer"][0])
        assert r.qp.iterations == int(ref["qp_iterations"][0]), where
        for name in RESULT_FIELDS:
            assert same_bits(np.ravel(getattr(r, name)), ref[name]), f"{where}: {name}"
        assert same_bits(r.qp.x, ref["qp_x"]) and same_bits(np.ravel(r.qp.S), ref["qp_S"]), where
        assert int(d.status) == int(ref["derivative_status"][0]) and d.frame == conv, where
        for name in BLOCKS:
            assert same_bits(np.ravel(getattr(d, name)), ref[name]), f"{where}: {name}"
        for name in COORD_BLOCKS:
            assert same_bits(np.ravel(getattr(c, name)), ref[name]), f"{where}: {name}"


CLI_SPECS = {"capsule:2:0.5": "capsule:length=2,radius=0.5", "capsule:1.2:0.3": "capsule:length=1.2,radius=0.3",
             "rect:1:0.6:0.2": "rect:half_x=1,half_y=0.6,radius=0.2",
             "pentagon:0.1": "polygon:vertices=" + ";".join(f"{x}/{y}" for x, y in PENTAGON) + ";radius=0.1"}


def same_bits_json(a, b):
    """same_bits up to the sign of zero (the CLI's JSON writer prints -0.0 as 0)."""
    return same_bits(np.ravel(a) + 0.0, np.ravel(b) + 0.0)


def test_proximity_equals_cli_json(cli_exe):
    for a, b, p1, p2 in queries(1, seed=6)[::3]:
        args = [cli_exe, "query", "--method", "qp", "--shape1", CLI_SPECS[a], "--shape2", CLI_SPECS[b], "--derivatives",
                "--pose1", ",".join(repr(float(v)) for v in p1), "--pose2", ",".join(repr(float(v)) for v in p2)]
        out = subprocess.run(args, capture_output=True, text=True)
        assert out.returncode in (0, 1), out.stderr
        ref = json.loads(out.stdout)
        s1, s2 = shape(a), shape(b)
        r = qp.proximity(s1, p1, s2, p2)
        d = qp.proximity_derivatives(s1, p1, s2, p2, r)
        assert ref["status"] == diffcol.status_name(r.status)
        for name in ["phi", "signed_distance", "core1_W", "core2_W", "p1_W", "p2_W", "normal_W"]:
            assert same_bits_json(getattr(r, name), ref[name]), f"{a}-{b}: {name}"
        assert ref["derivatives"]["status"] == diffcol.status_name(d.status)
        for name in BLOCKS:
            assert same_bits_json(getattr(d, name), ref["derivatives"][name]), f"{a}-{b}: {name}"


# ---------------------------------------------------------------- finite differences

def outputs(r):
    assert r.ok
    return {n: np.atleast_1d(np.array(getattr(r, n), dtype=float)) for n in OUTS}


def fd_configs():
    """Separated configurations with unique witness points (the derivative status ok)."""
    out = []
    for a, b, p1, p2 in queries(4, seed=13):
        s1, s2 = shape(a), shape(b)
        r = qp.proximity(s1, p1, s2, p2)
        if r.signed_distance > 0.05 and qp.proximity_derivatives(s1, p1, s2, p2, r).status == diffcol.DerivativeStatus.ok:
            out.append((a, b, p1, p2))
    return out


FD_CONFIGS = fd_configs()


def test_fd_configurations_cover_every_pair_type():
    kinds = {(a.split(":")[0] == "capsule", b.split(":")[0] == "capsule") for a, b, _, _ in FD_CONFIGS}
    assert len(kinds) == 4 and len(FD_CONFIGS) >= 16


@pytest.mark.parametrize("a,b,p1,p2", FD_CONFIGS, ids=[f"{q[0]}-{q[1]}" for q in FD_CONFIGS])
def test_twist_jacobians_match_finite_differences(a, b, p1, p2):
    s1, s2 = shape(a), shape(b)
    T1, T2 = diffcol.Pose(p1).matrix(), diffcol.Pose(p2).matrix()
    r = qp.proximity(s1, T1, s2, T2)
    for convention in ["world", "body"]:
        d = qp.proximity_derivatives(s1, T1, s2, T2, r, getattr(qp.ReferenceFrame, "local" if convention == "body" else convention))
        assert d.status == diffcol.DerivativeStatus.ok
        for wrt in ["X1", "X2"]:
            N = twist_jacobians_fd(lambda A, B: outputs(qp.proximity(s1, A, s2, B)), T1, T2, wrt, OUTS, convention)
            for n in OUTS:
                check_block(getattr(d, f"J_{n}_{wrt}"), N[n], f"{a}-{b} {convention} J_{n}_{wrt}")


@pytest.mark.parametrize("index", [0, 5, 10])
def test_position_quaternion_jacobians_match_finite_differences(index):
    a, b, p1, p2 = FD_CONFIGS[index % len(FD_CONFIGS)]
    p1 = p1 * np.r_[1, 1, 1, 2, 2, 2, 2]  # a non-unit quaternion: the map includes the normalization
    s1, s2 = shape(a), shape(b)
    r = qp.proximity(s1, p1, s2, p2)
    c = qp.to_position_quaternion(qp.proximity_derivatives(s1, p1, s2, p2, r), p1[:3], p1[3:], p2[:3], p2[3:])
    coords = np.concatenate([p1, p2])
    names = ["phi", "core1_W", "p2_W"]

    def at_step(h):
        cols = []
        for k in range(14):
            def f(t):
                cc = coords.copy()
                cc[k] += t
                rr = qp.proximity(s1, cc[:7], s2, cc[7:])
                return {n: np.atleast_1d(np.array(getattr(rr, n), dtype=float)) for n in names}

            cols.append(richardson(f, h))
        return {n: np.stack([col[n] for col in cols], axis=-1) for n in names}

    N = best_of(at_step, names)
    for n in names:
        check_block(np.hstack([np.atleast_2d(getattr(c, f"J_{n}_rq1")), np.atleast_2d(getattr(c, f"J_{n}_rq2"))]),
                    N[n], f"J_{n}_rq")
    M = qp.twist_from_position_quaternion(p1[:3], p1[3:], qp.ReferenceFrame.world)
    assert M.shape == (6, 7) and np.allclose(M @ np.r_[0, 0, 0, p1[3:]], 0, atol=1e-14)


# ---------------------------------------------------------------- independent references

def segment_points(c, T, n):
    t = np.linspace(0.0, 1.0, n)[:, None]
    pts = c.b_B + t * (c.a_B - c.b_B)
    return pts @ T[:3, :3].T + T[:3, 3]


def test_capsule_capsule_phi_against_dense_sampling():
    rng = np.random.default_rng(2)
    c1, c2 = qp.Capsule(0.5, 2.0), qp.Capsule.from_end_points([0.1, -0.3, 0.2], [-0.4, 0.5, 0.6], 0.2)
    n = 1001
    for _ in range(20):
        T1, T2 = diffcol.Pose(random_pose7(rng)).matrix(), diffcol.Pose(random_pose7(rng)).matrix()
        r = qp.proximity(c1, T1, c2, T2)
        P, Q = segment_points(c1, T1, n), segment_points(c2, T2, n)
        dmin = np.sqrt(((P[:, None, :] - Q[None, :, :]) ** 2).sum(-1).min())
        h = max(c1.length, c2.length) / (n - 1)  # sampling resolution
        assert r.core_distance <= dmin + 1e-12 and r.core_distance >= dmin - h
        assert r.phi == pytest.approx(r.core_distance ** 2 - (0.5 + 0.2) ** 2, abs=1e-12)
        # the active-set and interior-point solvers agree; the gradient fast path gives the same numbers
        # (to rounding: its phi can differ from proximity()'s in the last bit)
        ip = qp.proximity(c1, T1, c2, T2, qp.ProximityOptions(capsule_solver=qp.CapsuleSolver.interior_point))
        assert ip.phi == pytest.approx(r.phi, abs=1e-9)
        g = qp.proximity_gradient(c1, T1, c2, T2)
        d = qp.proximity_derivatives(c1, T1, c2, T2, r)
        assert g.phi == pytest.approx(r.phi, rel=1e-14, abs=1e-15)
        assert np.allclose(g.J_phi_X1, d.J_phi_X1, rtol=1e-12, atol=1e-14)
        assert np.allclose(g.J_phi_X2, d.J_phi_X2, rtol=1e-12, atol=1e-14)


def test_parallel_segments_are_finite_and_flagged():
    c = qp.Capsule(0.25, 2.0)
    r = qp.proximity(c, np.eye(4), c, [0.5, 1.0, 0.0, 1, 0, 0, 0])  # parallel, overlapping
    assert r.ok and not r.unique_minimizer
    assert r.core_distance == pytest.approx(1.0, abs=1e-14) and r.signed_distance == pytest.approx(0.5, abs=1e-14)
    d = qp.proximity_derivatives(c, np.eye(4), c, [0.5, 1.0, 0.0, 1, 0, 0, 0], r)
    assert d.status == diffcol.DerivativeStatus.non_unique_minimizer
    assert all(np.all(np.isfinite(getattr(d, n))) for n in BLOCKS)


def test_swap_shapes_and_polygon_capsule_order():
    cap, poly = qp.Capsule(0.1, 1.0), qp.PaddedPolygon.from_vertices(PENTAGON, 0.1)
    X1, X2 = [0.2, 0.1, 1.0, 0.9, 0.1, 0.3, 0.0], [0.0, 0.0, 0.0, 1, 0, 0, 0]
    a = qp.proximity(cap, X1, poly, X2)
    b = qp.proximity(poly, X2, cap, X1)
    qp.swap_shapes(b)  # in place, as in C++
    assert np.allclose(a.core1_W, b.core1_W, atol=1e-12) and np.allclose(a.normal_W, b.normal_W, atol=1e-12)
    u = qp.segment_pair_parameters(np.r_[1.0, 0, 0], np.r_[1.0, 0, 0], np.r_[0, 1.0, 0])  # parallel
    assert u.shape == (2,) and np.all(np.isfinite(u))


def test_shapes_expose_their_parameters():
    c = qp.Capsule(0.5, 2.0)
    assert np.array_equal(c.a_B, [1, 0, 0]) and np.array_equal(c.b_B, [-1, 0, 0]) and c.radius == 0.5
    assert c.length == 2.0 and np.array_equal(c.core_point_B(0.25), [-0.5, 0, 0])
    p = qp.PaddedPolygon.from_vertices(PENTAGON, 0.1)
    assert p.num_constraints == 5 and p.C.shape == (5, 2) and np.allclose(np.linalg.norm(p.C, axis=1), 1)
    assert p.vertices.shape == (5, 2) and p.contains([0.0, 0.0]) and not p.contains([2.0, 0.0])
    assert np.allclose(p.normal(0), p.C[0]) and p.offset(0) == p.d[0]
    info = qp.proximity(c, np.eye(4), p, [0, 0, 2, 1, 0, 0, 0]).qp
    assert info.n == 3 and info.x.shape == (4,) and getattr(info, "lambda").shape == (34,)


# ---------------------------------------------------------------- invalid input and docs

@pytest.mark.parametrize("make,match", [
    (lambda: qp.Capsule(0.5, -1.0), ""),
    (lambda: qp.Capsule(1.0, float("inf")), ""),
    (lambda: qp.Capsule.from_end_points([0, 0, float("nan")], [0, 0, 0], 0.1), ""),
    (lambda: qp.PaddedPolygon(np.ones((4, 3)), np.ones(4), 0.1), r"\(m, 2\)"),
    (lambda: qp.PaddedPolygon(np.array([[1.0, 0], [0, 1], [1, 1]]), np.ones(3), 0.1), ""),
    (lambda: qp.PaddedPolygon.from_vertices(PENTAGON[::-1], 0.1), ""),
    (lambda: qp.PaddedPolygon.rectangle(1.0, 0.0, 0.1), ""),
    (lambda: qp.PaddedPolygon.rectangle(1.0, 1.0, 0.1).normal(4), "out of range"),
    (lambda: qp.QpOptions(tolerance=0.0), "tolerance"),
    (lambda: qp.ProximityOptions(core_contact_tolerance=-1.0), "core_contact_tolerance"),
    (lambda: qp.proximity(qp.Capsule(0.1, 1), [0, 0, 0, 0, 0, 0, 0], qp.Capsule(0.1, 1), np.eye(4)), "quaternion"),
    (lambda: qp.twist_from_position_quaternion(np.zeros(3), np.zeros(4), qp.ReferenceFrame.world), "quaternion"),
])
def test_invalid_input_raises_value_error(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_every_public_name_has_a_docstring():
    from test_dcol import public_members_without_docs
    assert not public_members_without_docs(qp)
    for needle in ["X_W1", "[w; v]", ".local_world_aligned", "phi", "p1_W"]:
        assert needle in qp.proximity.__doc__, needle
    assert qp.ReferenceFrame is diffcol.ReferenceFrame
    from diffcol.qp import proximity  # importable as a package module
    assert proximity is qp.proximity
