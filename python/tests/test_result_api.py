"""The result types of every layer: `ok` is a read-only bool property, sizes are properties, and
every result has a short, stable repr that names its status.

`ok` must never become a method again: a bound method is truthy, so `if result.ok:` would take the
branch for a failed solve. Each test below fails if that happens (isinstance(..., property) and
`result.ok is True` / `is False`).
"""

import re

import numpy as np
import pytest

import diffcol
from diffcol import dcol, manifold, mesh, qp, ssdf

NUM = r"-?(?:\d+(?:\.\d*)?(?:e[-+]?\d+)?|inf|nan)"  # a number as printed with 10 digits


def pose(x, y=0.0, z=0.0):
    return [x, y, z, 1.0, 0.0, 0.0, 0.0]


# ---------------------------------------------------------------- results of every layer

@pytest.fixture(scope="module")
def results():
    """One instance of each result / derivative type, from a pair of separated shapes."""
    out = {}
    s1, s2 = diffcol.benchmark_shape("ellipsoid"), diffcol.benchmark_shape("se")
    X1, X2 = np.eye(4), diffcol.Pose(pose(4.0)).matrix()
    sol = diffcol.solve_contact(s1, X1, s2, X2)
    out["ContactSolution"] = sol
    d = diffcol.contact_derivatives(sol)
    out["ContactDerivatives"] = d
    out["ContactWrenches"] = diffcol.hertz_wrenches(sol, d, diffcol.HertzModel(100.0, 1.5))

    box, cap = dcol.Polytope.box(0.4, 0.4, 0.4), dcol.Capsule(0.3, 1.0)
    r = dcol.solve_contact(box, pose(0.0), cap, pose(2.0, 0.2))
    out["dcol.ContactResult"] = r
    out["dcol.ConeKkt"] = r.kkt
    out["dcol.Certificate"] = dcol.certify(box, cap, r)
    dd = dcol.contact_derivatives(r)
    out["dcol.ContactDerivatives"] = dd
    out["dcol.PositionQuaternionJacobians"] = dcol.to_position_quaternion(r, dd)

    c1, c2 = qp.Capsule(0.2, 1.0), qp.Capsule(0.1, 0.8)
    turn = [np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)]  # 90 degrees about z: crossing cores, one minimizer
    Y2 = [0.3, 0.0, 1.0] + turn
    p = qp.proximity(c1, pose(0.0), c2, Y2)
    out["qp.ProximityResult"] = p
    out["qp.ProximityQpInfo"] = p.qp
    pd = qp.proximity_derivatives(c1, pose(0.0), c2, Y2, p)
    out["qp.ProximityDerivatives"] = pd
    out["qp.ProximityGradient"] = qp.proximity_gradient(c1, pose(0.0), c2, Y2)
    out["qp.ProximityCoordinateJacobians"] = qp.to_position_quaternion(pd, [0, 0, 0], [1, 0, 0, 0], Y2[:3], turn)

    batch = diffcol.ContactBatch([(s1, s2), (s2, s1)], num_threads=1, derivatives=True)
    br = batch.solve(np.eye(4), np.stack([X2, X2]))
    out["BatchResult"] = br
    out["BatchDerivatives"] = br.derivatives

    b = manifold.ContactObject(mesh.make_box([1.0, 1.0, 1.0]), manifold.make_box_sdf([1.0, 1.0, 1.0], 0.1))
    m, md = manifold.compute_manifold_derivatives(b, diffcol.Pose(), b, pose(0.0, 0.0, 0.995))
    out["manifold.ContactManifold"] = m
    out["manifold.ManifoldDerivatives"] = md
    out["manifold.ManifoldBatchResult"] = manifold.ManifoldBatch(b, b, num_threads=1).compute(
        np.array([pose(0.0)]), np.array([pose(0.0, 0.0, 0.995)]))
    out["manifold.SdfPoint"] = manifold.make_box_sdf([1.0, 1.0, 1.0], 0.1).evaluate([1.0, 0.0, 0.0])

    cloud1 = ssdf.make_aopc(mesh.make_box([1.0, 1.0, 1.0]), ssdf.AopcOptions(num_points=40))
    cloud2 = ssdf.make_aopc(mesh.make_icosphere(0.5, 2), ssdf.AopcOptions(num_points=40))
    params = ssdf.ScmParameters()
    Xa, Xb = pose(0.0), pose(0.0, 0.0, 0.9)
    out["ssdf.SsdfQuery"] = ssdf.soft_signed_distance_world(cloud1, Xa, [0.0, 0.0, 0.7], params.eps1)
    out["ssdf.Separation"] = ssdf.smooth_separation_distance(cloud1, Xa, cloud2, Xb, params.eps1, params.eps2)
    out["ssdf.CollisionPoints"] = ssdf.collision_points(cloud1, Xa, cloud2, Xb, params.eps1, params.eps2, 4, 0.05)
    out["ssdf.PointPlaneForce"] = ssdf.point_plane_force([0, 0, -0.01], [0, 0, -0.1], [0, 0, 0], [0, 0, 1], params)
    out["ssdf.PointSsdfContact"] = ssdf.point_ssdf_contact([0, 0, 0.45], Xa, np.zeros(6), cloud1, Xa, np.zeros(6), params)
    out["ssdf.PairContact"] = ssdf.pair_contact(cloud1, Xa, np.zeros(6), cloud2, Xb, np.zeros(6), params)

    out["GradientCheckResult"] = diffcol.check_pose_gradient(
        lambda A, B: diffcol.solve_contact(s1, A, s2, B).alpha, X1, X2, np.concatenate([d.J_alpha_X1, d.J_alpha_X2]))
    out["BlockError"] = out["GradientCheckResult"].blocks[0]
    return out


# Types with a scalar `ok`: every one of them is True for the separated pairs above.
SCALAR_OK = ["ContactSolution", "ContactDerivatives", "ContactWrenches", "dcol.ContactResult", "dcol.Certificate",
             "dcol.ContactDerivatives", "dcol.PositionQuaternionJacobians", "qp.ProximityResult",
             "qp.ProximityDerivatives", "qp.ProximityGradient"]


@pytest.mark.parametrize("name", SCALAR_OK)
def test_ok_is_a_read_only_bool_property(results, name):
    r = results[name]
    assert isinstance(type(r).ok, property), f"{name}.ok must be a property, not a method"
    assert r.ok is True, f"{name}.ok is {r.ok!r}"
    with pytest.raises(AttributeError):
        r.ok = False


@pytest.mark.parametrize("name", ["BatchResult", "BatchDerivatives"])
def test_batch_ok_is_a_boolean_array_property(results, name):
    r = results[name]
    assert isinstance(type(r).ok, property)
    assert r.ok.dtype == np.bool_ and r.ok.shape == r.status.shape and r.ok.all()


# Too few Newton steps for an overlapping sphere and polytope: the iDCOL solve does not converge.
TIGHT = dict(max_iterations=1, max_attempts=1, last_resort_iterations=0, warm_start=False)
OVERLAP = [1.0, 0.7, 0.3, 0.9, 0.2, 0.1, -0.3]


def test_ok_is_false_for_failed_results():
    s1, s2 = diffcol.benchmark_shape("sphere"), diffcol.benchmark_shape("poly")
    X2 = diffcol.Pose(OVERLAP).matrix()
    tight = diffcol.SolveOptions(**TIGHT)
    sol = diffcol.solve_contact(s1, np.eye(4), s2, X2, tight)
    assert sol.status != diffcol.SolveStatus.ok and sol.ok is False
    d = diffcol.contact_derivatives(sol)
    assert d.ok is False and diffcol.hertz_wrenches(sol, d).ok is False
    batch = diffcol.ContactBatch([(s1, s2)], num_threads=1, options=tight, derivatives=True).solve(np.eye(4), X2)
    assert batch.ok.tolist() == [False] and batch.derivatives.ok.tolist() == [False]

    box, cyl = dcol.Polytope.box(0.4, 0.4, 0.4), dcol.Cylinder(0.3, 1.0)
    X = [0.683, -0.333, 0.176, -0.270, 0.351, 0.890, -0.110]  # overlapping; one interior-point step is not enough
    r = dcol.solve_contact(box, pose(0.0), cyl, X, dcol.SolveOptions(max_iterations=1, polish=False))
    assert r.status == diffcol.SolveStatus.not_converged and r.ok is False
    rd = dcol.contact_derivatives(r)
    assert rd.ok is False and dcol.to_position_quaternion(r, rd).ok is False
    cap = dcol.Capsule(0.3, 1.0)
    cert = dcol.certify(box, cap, dcol.solve_contact(box, pose(0.0), cap, pose(2.0, 0.2)))
    assert cert.ok is True and cert.within(cert.gap) is True and cert.within(-1.0) is False

    c = qp.Capsule(0.2, 1.0)
    p = qp.proximity(c, pose(0.0), c, pose(0.0, 0.0, 0.1))  # parallel overlapping cores: no unique minimizer
    assert p.ok is True
    pd = qp.proximity_derivatives(c, pose(0.0), c, pose(0.0, 0.0, 0.1), p)
    assert pd.status != diffcol.DerivativeStatus.ok and pd.ok is False


# ---------------------------------------------------------------- repr

# Exact formats: type name, then key=value pairs; a status field holds the status' name.
REPR = {
    "ContactSolution": rf"ContactSolution\(status=ok, alpha={NUM}, gap={NUM}, iterations=\d+\)",
    "ContactDerivatives": rf"ContactDerivatives\(status=ok, kkt_condition={NUM}\)",
    "ContactWrenches": rf"ContactWrenches\(status=ok, in_contact=False, penetration={NUM}, f_n={NUM}\)",
    "dcol.ContactResult": rf"dcol\.ContactResult\(status=ok, alpha={NUM}, gap={NUM}, iterations=\d+, "
                          rf"polished=(True|False)\)",
    "dcol.Certificate": rf"dcol\.Certificate\(ok=True, gap={NUM}, bound_gap={NUM}, witness_violation={NUM}\)",
    "dcol.ContactDerivatives": r"dcol\.ContactDerivatives\(status=ok\)",
    "dcol.PositionQuaternionJacobians": r"dcol\.PositionQuaternionJacobians\(status=ok\)",
    "qp.ProximityResult": rf"qp\.ProximityResult\(status=ok, phi={NUM}, signed_distance={NUM}, unique_minimizer=True\)",
    "qp.ProximityDerivatives": r"qp\.ProximityDerivatives\(status=ok, frame=world\)",
    "qp.ProximityGradient": rf"qp\.ProximityGradient\(status=ok, phi={NUM}, signed_distance={NUM}, frame=world\)",
    "qp.ProximityCoordinateJacobians": rf"qp\.ProximityCoordinateJacobians\(\|J_phi_rq1\|={NUM}, \|J_phi_rq2\|={NUM}\)",
    "BatchResult": r"BatchResult\(steps=1, pairs=2, ok=2/2, derivatives=True\)",
    "BatchDerivatives": r"BatchDerivatives\(shape=\(2,\), ok=2/2\)",
    "manifold.ContactManifold": rf"manifold\.ContactManifold\(entries=[1-9]\d*, min_distance={NUM}\)",
    "manifold.ManifoldDerivatives": r"manifold\.ManifoldDerivatives\(entries=[1-9]\d*, coordinates=world\)",
    "manifold.ManifoldBatchResult": rf"manifold\.ManifoldBatchResult\(poses=1, entries=[1-9]\d*, min_distance={NUM}, "
                                    r"derivatives=False\)",
    "manifold.SdfPoint": rf"manifold\.SdfPoint\(value={NUM}\)",
    "ssdf.SsdfQuery": rf"ssdf\.SsdfQuery\(phi={NUM}\)",
    "ssdf.Separation": rf"ssdf\.Separation\(distance={NUM}, size1=40, size2=40\)",
    "ssdf.CollisionPoints": r"ssdf\.CollisionPoints\(points=4\)",
    "ssdf.PointPlaneForce": rf"ssdf\.PointPlaneForce\(phi={NUM}, normal_force={NUM}\)",
    "ssdf.PointSsdfContact": rf"ssdf\.PointSsdfContact\(phi={NUM}\)",
    "ssdf.PairContact": rf"ssdf\.PairContact\(separation={NUM}\)",
    "dcol.ConeKkt": r"dcol\.ConeKkt\(n=\d+, m=\d+, soc_count=[0-2], polished=(True|False)\)",
    "qp.ProximityQpInfo": r"qp\.ProximityQpInfo\(n=[2-4], m=\d+, iterations=\d+, interior_point=(True|False), "
                          r"polished=(True|False)\)",
    "BlockError": rf"BlockError\(name='[a-z_]+', passed=True, max_abs_error={NUM}, max_rel_error={NUM}\)",
    "GradientCheckResult": rf"GradientCheckResult\(passed=True, blocks=1, max_abs_error={NUM}, max_rel_error={NUM}\)",
}


@pytest.mark.parametrize("name", sorted(REPR))
def test_repr_is_short_and_stable(results, name):
    text = repr(results[name])
    assert re.fullmatch(REPR[name], text), text
    assert len(text) < 160 and "\n" not in text


def test_repr_shows_the_numbers_and_a_failed_status(results):
    sol = results["ContactSolution"]
    assert f"alpha={sol.alpha:.10g}" in repr(sol)
    s1, s2 = diffcol.benchmark_shape("sphere"), diffcol.benchmark_shape("poly")
    bad = diffcol.solve_contact(s1, np.eye(4), s2, OVERLAP, diffcol.SolveOptions(**TIGHT))
    assert repr(bad).startswith(f"ContactSolution(status={bad.status.name},")
    d = diffcol.contact_derivatives(bad)
    assert repr(d).startswith(f"ContactDerivatives(status={d.status.name},") and d.status.name != "ok"


# ---------------------------------------------------------------- sizes and constants are attributes

def test_sizes_are_read_only_properties():
    c = qp.Capsule(0.5, 2.0)
    p = qp.PaddedPolygon.rectangle(1.0, 0.5, 0.1)
    for obj, name in [(c, "length"), (c, "half_length"), (c, "radius"), (p, "num_constraints"), (p, "radius"),
                      (p, "core_radius"), (p, "vertices"), (p, "C"), (p, "d")]:
        assert isinstance(getattr(type(obj), name), property), name
        with pytest.raises(AttributeError):
            setattr(obj, name, 1.0)
    assert c.length == 2.0 and c.half_length == 1.0 and c.radius == 0.5
    assert p.num_constraints == 4 and p.radius == pytest.approx(0.1)
    assert p.vertices.shape == (4, 2) and p.core_radius == pytest.approx(np.hypot(1.0, 0.5))


def test_gradient_check_summary_is_properties(results):
    res = results["GradientCheckResult"]
    for name in ["passed", "max_abs_error", "max_rel_error"]:
        assert isinstance(getattr(type(res), name), property), name
    assert res.passed is True and bool(res) and res.max_abs_error < 1e-6 and isinstance(res.max_rel_error, float)


def test_three_version_is_a_string_attribute():
    assert isinstance(diffcol.three_version, str)
    assert (diffcol.three_version != "") == diffcol.has_viewer
