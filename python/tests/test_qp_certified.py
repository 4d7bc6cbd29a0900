"""diffcol.qp polygon pairs: unit-free, certified answers and a penetration measure with a gradient.

- The same scene at scales 1e-6 ... 1e6 gives the same answer scaled (1e-10 relative), ok and
  certified (qp.certify), for capsule-polygon and polygon-polygon.
- Overlapping cores: a negative signed distance whose derivative is non-zero and matches central
  finite differences (world twists); a step along the gradient separates the shapes.
"""
import numpy as np

import diffcol
from diffcol import qp

HEX = np.array([[np.cos(k * np.pi / 3), np.sin(k * np.pi / 3)] for k in range(6)])


def scene(f):
    cap = qp.Capsule(0.3 * f, 2.0 * f)
    poly = qp.PaddedPolygon.from_vertices(HEX * f, 0.1 * f)
    X1 = diffcol.Pose(np.r_[np.array([0.3, -0.2, 0.9]) * f, 0.9, 0.2, -0.3, 0.1])
    X2 = diffcol.Pose(np.r_[np.array([-0.1, 0.4, -0.2]) * f, 0.7, -0.1, 0.5, 0.3])
    return cap, X1, poly, X2


def test_same_answer_at_every_scale_and_certified():
    cap, X1, poly, X2 = scene(1.0)
    for s1, s2 in [(cap, poly), (poly, poly)]:
        r1 = qp.proximity(s1, X1, s2, X2)
        assert r1.ok
        for f in [1e-6, 1e-4, 1e-2, 1e2, 1e6]:
            c, Y1, p, Y2 = scene(f)
            a, b = (c, p) if s1 is cap else (p, p)
            r = qp.proximity(a, Y1, b, Y2)
            assert r.status == diffcol.SolveStatus.ok, f
            unit = 3.0 + r1.core_distance
            assert abs(r.signed_distance / f - r1.signed_distance) <= 1e-10 * unit, f
            assert np.linalg.norm(np.asarray(r.core1_W) / f - r1.core1_W) <= 1e-10 * unit, f
            certified, lower = qp.certify(a, Y1, b, Y2, r)
            assert certified and lower <= r.core_distance <= lower + 1e-9 * f * unit, f


def test_overlapping_cores_have_a_gradient():
    cap, X1, poly, _ = scene(1.0)
    X2 = diffcol.Pose(np.r_[0.35, -0.15, 0.85, 0.7, -0.1, 0.5, 0.3])  # through the capsule
    r = qp.proximity(cap, X1, poly, X2)
    assert r.ok and r.cores_touch and r.penetration and r.signed_distance < -0.4
    assert r.axis != qp.PenetrationAxis.none
    assert (r.axis == qp.PenetrationAxis.edges) == (r.axis_edge1 >= 0 and r.axis_edge2 >= 0)
    assert qp.proximity(cap, X1, poly, diffcol.Pose(np.r_[9.0, 0, 0, 1, 0, 0, 0])).axis == qp.PenetrationAxis.none
    d = qp.proximity_derivatives(cap, X1, poly, X2, r)
    assert d.status == diffcol.DerivativeStatus.ok
    g = np.asarray(d.J_signed_distance_X2).ravel()
    assert np.linalg.norm(g) > 0.5
    T2 = X2.matrix()
    h = 1e-6
    for k in range(6):
        e = np.zeros(6)
        e[k] = h
        plus = qp.proximity(cap, X1, poly, diffcol.se3_exp(e).matrix() @ T2).signed_distance
        minus = qp.proximity(cap, X1, poly, diffcol.se3_exp(-e).matrix() @ T2).signed_distance
        assert abs((plus - minus) / (2 * h) - g[k]) <= 1e-6 * (1 + abs(g[k])), k
    step = qp.proximity(cap, X1, poly, diffcol.se3_exp(1e-2 * g).matrix() @ T2)
    assert step.signed_distance > r.signed_distance + 1e-3
