"""Euclidean distance of diffcol.dcol primitives and diffcol (iDCOL) shapes from Python.

- Closed forms: sphere-sphere, sphere-box (both layers where the shape exists).
- The result API: `ok` is a bool property, __repr__, numpy arrays of shape (3,).
- Derivatives: central finite differences of the 4x4 poses through the SE(3) exponential of
  world twists (X <- exp(eta^) X), for the distance, the closest points and the normal.
- Bad input: a NaN pose raises ValueError; overlapping shapes give touching_or_overlapping.
"""
import math

import numpy as np
import pytest

import diffcol
from diffcol import dcol
from helpers import se3_exp, random_rotation


def pose(R, p):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def outputs(r):
    return np.concatenate([[r.distance], r.p1_W, r.p2_W, r.normal_W])


def fd(evaluate, T1, T2, h=1e-6):
    J = np.zeros((10, 12))
    for k in range(12):
        e = np.zeros(6)
        e[k % 6] = h
        A, B = (se3_exp(e) @ T1, T2) if k < 6 else (T1, se3_exp(e) @ T2)
        C, D = (se3_exp(-e) @ T1, T2) if k < 6 else (T1, se3_exp(-e) @ T2)
        J[:, k] = (outputs(evaluate(A, B)) - outputs(evaluate(C, D))) / (2 * h)
    return J


def analytic(d):
    top = np.hstack([np.atleast_2d(d.J_distance_X1), np.atleast_2d(d.J_distance_X2)])
    rows = [top]
    for name in ("p1_W", "p2_W", "normal_W"):
        rows.append(np.hstack([getattr(d, f"J_{name}_X1"), getattr(d, f"J_{name}_X2")]))
    return np.vstack(rows)


def test_dcol_sphere_box_closed_form_and_api():
    box, ball = dcol.Polytope.box(1.0, 0.5, 0.5), dcol.Sphere(0.5)
    T2 = pose(np.eye(3), [2.5, 1.5, 0.0])
    r = dcol.euclidean_distance(box, np.eye(4), ball, T2)
    assert r.ok is True
    assert r.status == diffcol.DistanceStatus.separated
    assert math.isclose(r.distance, math.hypot(1.5, 1.0) - 0.5, rel_tol=1e-12)
    assert isinstance(r.p1_W, np.ndarray) and r.p1_W.shape == (3,)
    np.testing.assert_allclose(r.p1_W, [1.0, 0.5, 0.0], atol=1e-9)
    assert "separated" in repr(r)
    c = dcol.solve_contact(box, np.eye(4), ball, T2)
    w = dcol.euclidean_distance(box, np.eye(4), ball, T2, warm=c)
    assert math.isclose(w.distance, r.distance, rel_tol=1e-12)
    assert abs(c.gap - r.distance) > 1e-3  # d_D is another quantity
    d = dcol.distance_derivatives(r)
    assert d.ok is True and "ok" in repr(d)
    assert d.J_p1_W_X1.shape == (3, 6)


def test_idcol_sphere_sphere_closed_form_and_api():
    T2 = pose(np.eye(3), [1.0, 2.0, 2.0])
    r = diffcol.euclidean_distance(diffcol.Sphere(1.0), np.eye(4), diffcol.Sphere(0.5), T2)
    assert r.ok is True
    assert math.isclose(r.distance, 1.5, rel_tol=1e-12)
    np.testing.assert_allclose(r.normal_W, np.array([1.0, 2.0, 2.0]) / 3.0, atol=1e-12)
    assert "separated" in repr(r)
    assert r.contact_gap >= r.distance - 1e-12


def test_bad_input_and_overlap():
    bad = np.eye(4)
    bad[0, 3] = np.nan
    with pytest.raises(ValueError):
        dcol.euclidean_distance(dcol.Sphere(1.0), bad, dcol.Sphere(1.0), np.eye(4))
    with pytest.raises(ValueError):
        diffcol.euclidean_distance(diffcol.Sphere(1.0), bad, diffcol.Sphere(1.0), np.eye(4))
    with pytest.raises(ValueError):
        dcol.euclidean_distance(dcol.Sphere(1.0), np.eye(4), dcol.Sphere(1.0), pose(np.eye(3), [3, 0, 0]),
                                tolerance=-1.0)
    T2 = pose(np.eye(3), [0.5, 0.0, 0.0])
    r = dcol.euclidean_distance(dcol.Sphere(1.0), np.eye(4), dcol.Polytope.box(1, 1, 1), T2)
    assert r.status == diffcol.DistanceStatus.touching_or_overlapping and r.ok is False and r.distance == 0.0
    assert dcol.distance_derivatives(r).status == diffcol.DistanceDerivativeStatus.not_separated
    s = diffcol.euclidean_distance(diffcol.Sphere(1.0), np.eye(4), diffcol.Sphere(1.0), T2)
    assert s.status == diffcol.DistanceStatus.touching_or_overlapping and s.ok is False


@pytest.mark.parametrize("seed", range(6))
def test_dcol_derivatives_fd(seed):
    rng = np.random.default_rng(seed)
    shapes = [dcol.Ellipsoid.from_semi_axes(0.5, 0.8, 1.1), dcol.Capsule(0.4, 1.5), dcol.Sphere(0.7)]
    s1, s2 = shapes[seed % 3], shapes[(seed + 1) % 3]
    T1 = pose(random_rotation(rng), rng.normal(size=3) * 0.3)
    T2 = pose(random_rotation(rng), T1[:3, 3] + 3.5 * np.array([1.0, 0.3, -0.2]))
    r = dcol.euclidean_distance(s1, T1, s2, T2)
    assert r.ok
    d = dcol.distance_derivatives(r)
    assert d.ok
    J = fd(lambda A, B: dcol.euclidean_distance(s1, A, s2, B), T1, T2)
    np.testing.assert_allclose(analytic(d), J, atol=2e-6 * (1 + np.abs(J).max()))


@pytest.mark.parametrize("seed", range(6))
def test_idcol_derivatives_fd(seed):
    rng = np.random.default_rng(seed)
    shapes = [diffcol.Superellipsoid(0.5, 0.8, 1.1, 2), diffcol.Sphere(0.7), diffcol.Superellipsoid(0.6, 0.9, 0.4, 1)]
    s1, s2 = shapes[seed % 3], shapes[(seed + 1) % 3]
    T1 = pose(random_rotation(rng), rng.normal(size=3) * 0.3)
    T2 = pose(random_rotation(rng), T1[:3, 3] + 3.5 * np.array([1.0, 0.3, -0.2]))
    r = diffcol.euclidean_distance(s1, T1, s2, T2)
    assert r.ok
    d = diffcol.distance_derivatives(r)
    assert d.ok
    J = fd(lambda A, B: diffcol.euclidean_distance(s1, A, s2, B), T1, T2)
    np.testing.assert_allclose(analytic(d), J, atol=2e-6 * (1 + np.abs(J).max()))
