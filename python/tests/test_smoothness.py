"""Smoothness fits (fit_smooth_box, fit_superellipsoid_to_box, ...) against a brute-force
Hausdorff distance computed here in numpy: the implicit functions re-implemented from their
formulas, surface points found by bisection along rays from the origin (a Fibonacci sphere of
directions, then grids refined about the sample nearest to each exact vertex); min |v - p| bounds
dist(v, K) from above, max n(p).(v - p) from below (K lies behind every tangent plane)."""

import math

import numpy as np
import pytest

import diffcol


def phi_polytope(A, b, beta, L):
    def phi(Y):
        C = (Y @ A.T - b) / L
        m = C.max(axis=1, keepdims=True)
        W = np.exp(beta * (C - m))
        S = W.sum(axis=1, keepdims=True)
        return (m + np.log(S) / beta)[:, 0], (W / S) @ A / L
    return phi


def phi_superellipsoid(n, axes, eps):
    axes = np.asarray(axes, float)

    def phi(Y):
        U = (Y / axes) ** 2 + (eps if n > 1 else 0.0)
        S = (U ** n).sum(axis=1)
        P = S ** (0.5 / n)
        G = (P / (2 * n * S))[:, None] * (2 * n * U ** (n - 1) * (Y / axes) / axes)
        return P - 1.0, G
    return phi


def phi_cylinder(n, R, h, eps):
    def phi(Y):
        e = eps if n > 1 else 0.0
        u1 = (Y[:, 0] / h) ** 2 + e
        ur = (Y[:, 1] ** 2 + Y[:, 2] ** 2) / R ** 2 + e
        S = u1 ** n + ur ** n
        P = S ** (0.5 / n)
        d1 = P / (2 * n * S)
        G = np.stack([d1 * 2 * n * u1 ** (n - 1) * Y[:, 0] / h ** 2,
                      d1 * 2 * n * ur ** (n - 1) * Y[:, 1] / R ** 2,
                      d1 * 2 * n * ur ** (n - 1) * Y[:, 2] / R ** 2], axis=1)
        return P - 1.0, G
    return phi


def ray_points(phi, U, rmax):
    lo = np.zeros(len(U))
    hi = np.full(len(U), 1.001 * rmax)
    for _ in range(64):
        t = 0.5 * (lo + hi)
        inside = phi(t[:, None] * U)[0] <= 0.0
        lo = np.where(inside, t, lo)
        hi = np.where(inside, hi, t)
    P = lo[:, None] * U
    G = phi(P)[1]
    return P, G / np.linalg.norm(G, axis=1, keepdims=True)


def fibonacci(n):
    i = np.arange(n)
    z = 1.0 - (2 * i + 1.0) / n
    r = np.sqrt(1 - z * z)
    a = math.pi * (3 - math.sqrt(5)) * i
    return np.stack([r * np.cos(a), r * np.sin(a), z], axis=1)


def brute_hausdorff(phi, extreme, rmax):
    """(lower, upper) bounds on max over the extreme points v of dist(v, K)."""
    P0, N0 = ray_points(phi, fibonacci(2000), rmax)
    g = np.arange(-4, 5) / 4.0
    gi, gj = [a.ravel() for a in np.meshgrid(g, g)]
    lower = upper = 0.0
    for v in np.asarray(extreme, float):
        d = np.linalg.norm(v - P0, axis=1)
        k = int(np.argmin(d))
        up, low, u0 = d[k], float(np.max(np.sum(N0 * (v - P0), axis=1))), P0[k] / np.linalg.norm(P0[k])
        radius = 0.1
        for _ in range(10):
            e1 = np.cross(u0, [1.0, 0, 0] if abs(u0[0]) < 0.9 else [0, 1.0, 0])
            e1 /= np.linalg.norm(e1)
            e2 = np.cross(u0, e1)
            U = u0 + radius * (gi[:, None] * e1 + gj[:, None] * e2)
            U /= np.linalg.norm(U, axis=1, keepdims=True)
            P, N = ray_points(phi, U, rmax)
            d = np.linalg.norm(v - P, axis=1)
            k = int(np.argmin(d))
            if d[k] < up:
                up, u0 = d[k], P[k] / np.linalg.norm(P[k])
            low = max(low, float(np.max(np.sum(N * (v - P), axis=1))))
            radius *= 0.4
        lower, upper = max(lower, low), max(upper, up)
    return lower, upper


def corners(hx, hy, hz):
    return [[sx * hx, sy * hy, sz * hz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]


def check(lower, upper, reported, tol):
    assert lower <= reported * (1 + 1e-9) and upper >= reported * (1 - 1e-9)
    assert upper - lower <= 1e-4 * tol
    assert upper <= tol * (1 + 1e-4)


def check_polytope_fit(fit, tol):
    s = fit.shape
    assert s.beta == fit.beta and s.length == fit.length
    A, b, V = s.A, s.b, s.vertices
    lo, up = brute_hausdorff(phi_polytope(A, b, fit.beta, fit.length), V, s.outer_radius)
    check(lo, up, fit.hausdorff_distance, tol)
    assert lo >= tol * (1 - 1e-5)  # not sharper than needed
    softer, _ = brute_hausdorff(phi_polytope(A, b, 0.999 * fit.beta, fit.length), V, s.outer_radius)
    assert softer > tol
    assert diffcol.smooth_polytope_hausdorff_distance(shape=s) == pytest.approx(fit.hausdorff_distance, rel=1e-10)


@pytest.mark.parametrize("tol", [0.003, 0.01, 0.05])
def test_smooth_cube(tol):
    fit = diffcol.fit_smooth_box(hx=0.4, hy=0.4, hz=0.4, tolerance=tol)
    check_polytope_fit(fit, tol)
    assert fit.beta == pytest.approx(math.sqrt(3) * math.log(3) / tol, rel=1e-3)


def test_smooth_rectangular_box_with_length():
    fit = diffcol.fit_smooth_box(1.0, 0.3, 0.1, tolerance=0.02, length=0.25)
    assert fit.length == 0.25
    check_polytope_fit(fit, 0.02)


def test_smooth_polytope_random_hull_and_half_spaces():
    rng = np.random.default_rng(3)
    U = rng.normal(size=(25, 3))
    pts = U / np.linalg.norm(U, axis=1, keepdims=True) * rng.uniform(0.5, 1.0, size=(25, 1))
    fit = diffcol.fit_smooth_convex_hull(points=pts, tolerance=0.01)
    check_polytope_fit(fit, 0.01)
    same = diffcol.fit_smooth_polytope(A=fit.shape.A, b=fit.shape.b, tolerance=0.01)
    assert same.beta == pytest.approx(fit.beta, rel=1e-12)


@pytest.mark.parametrize("axes,tol", [((0.4, 0.4, 0.4), 0.02), ((0.5, 1.0, 1.5), 0.05), ((1.0, 0.3, 0.1), 0.04)])
def test_superellipsoid_to_box(axes, tol):
    fit = diffcol.fit_superellipsoid_to_box(*axes, tolerance=tol)
    n = fit.exponent
    assert fit.shape.exponent == n
    eps = fit.shape.epsilon
    rmax = float(np.linalg.norm(axes))
    lo, up = brute_hausdorff(phi_superellipsoid(n, axes, eps), corners(*axes), rmax)
    check(lo, up, fit.hausdorff_distance, tol)
    softer, _ = brute_hausdorff(phi_superellipsoid(n - 1, axes, eps), corners(*axes), rmax)
    assert softer > tol  # n - 1 misses: n is the smallest
    if axes[0] == axes[1] == axes[2]:
        closed = axes[0] * math.sqrt(3) * (1 - 3 ** (-0.5 / n))  # eps = 0, nearest point on the diagonal
        assert fit.hausdorff_distance == pytest.approx(closed, rel=1e-4)


@pytest.mark.parametrize("R,h,tol", [(0.3, 0.6, 0.02), (1.0, 0.2, 0.01)])
def test_superelliptic_cylinder(R, h, tol):
    fit = diffcol.fit_superelliptic_cylinder(radius=R, half_height=h, tolerance=tol)
    n = fit.exponent
    rim = [[s * h, R * math.cos(t), R * math.sin(t)] for s in (-1, 1) for t in np.linspace(0.1, 6.0, 7)]
    lo, up = brute_hausdorff(phi_cylinder(n, R, h, fit.shape.epsilon), rim, math.hypot(R, h))
    check(lo, up, fit.hausdorff_distance, tol)
    softer, _ = brute_hausdorff(phi_cylinder(n - 1, R, h, fit.shape.epsilon), rim, math.hypot(R, h))
    assert softer > tol
    assert diffcol.superelliptic_cylinder_hausdorff_distance(fit.shape) == fit.hausdorff_distance


@pytest.mark.parametrize("call,match", [
    (lambda: diffcol.fit_smooth_box(0.4, 0.4, 0.4, tolerance=0.0), "finite and > 0"),
    (lambda: diffcol.fit_smooth_box(0.4, 0.4, 0.4, tolerance=float("nan")), "finite and > 0"),
    (lambda: diffcol.fit_smooth_box(0.4, 0.4, 0.4, tolerance=-1.0), "finite and > 0"),
    (lambda: diffcol.fit_smooth_box(1.0, 0.3, 0.1, tolerance=0.2), "inradius"),
    (lambda: diffcol.fit_smooth_box(0.4, 0.4, 0.4, tolerance=1e-12), "kMinFitRelativeTolerance"),
    (lambda: diffcol.fit_superellipsoid_to_box(0.4, 0.4, 0.4, tolerance=float("inf")), "finite and > 0"),
    (lambda: diffcol.fit_superellipsoid_to_box(0.4, 0.4, 0.4, tolerance=1e-3), "n = 64"),
    (lambda: diffcol.fit_superelliptic_cylinder(0.3, 0.6, tolerance=0.5), "inradius"),
    (lambda: diffcol.fit_smooth_convex_hull(np.zeros((5, 2)), tolerance=0.1), r"\(n, 3\)"),
])
def test_bad_input_raises_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()
