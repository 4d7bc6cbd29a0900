#pragma once
// Closest points of the cores of ball-padded DCOL primitives (sphere: a point, capsule: a
// segment, padded polygon: a convex polygon) and of the solids of revolution (cylinder, cone:
// against a point or a segment), for the exact start of src/dcol/geometric_starts.hpp ("ball-padded pairs"). Internal to src/dcol
// (and its white-box test).
#include <algorithm>
#include <cmath>
#include <limits>

#include "diffcol/math/se3.hpp"

#include "../geometry/gjk_distance.hpp"

namespace diffcol::dcol::detail {

/// The point of segment [a, b] closest to x.
inline Vec3 closest_on_segment(const Vec3& a, const Vec3& b, const Vec3& x) {
  const Vec3 d = b - a;
  const double dd = d.squaredNorm();
  const double s = dd > 0.0 ? std::clamp((x - a).dot(d) / dd, 0.0, 1.0) : 0.0;
  return a + s * d;
}

/// Closest points p ∈ [a0, a1], q ∈ [b0, b1] of two segments (one of the closest pairs where
/// they are parallel).
inline void closest_segment_points(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1, Vec3& p, Vec3& q) {
  const Vec3 d1 = a1 - a0, d2 = b1 - b0, r = a0 - b0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r), c = d1.dot(r), b = d1.dot(d2);
  double s = 0.0, t = 0.0;
  if (!(a > 0.0)) {
    t = e > 0.0 ? std::clamp(f / e, 0.0, 1.0) : 0.0;
  } else if (!(e > 0.0)) {
    s = std::clamp(-c / a, 0.0, 1.0);
  } else {
    // minimize over s with t(s) = (b s + f)/e, then clamp t and re-minimize s
    const double den = a * e - b * b;
    s = den > 1e-14 * a * e ? std::clamp((b * f - c * e) / den, 0.0, 1.0) : 0.0;
    t = (b * s + f) / e;
    if (t < 0.0) {
      t = 0.0;
      s = std::clamp(-c / a, 0.0, 1.0);
    } else if (t > 1.0) {
      t = 1.0;
      s = std::clamp((b - c) / a, 0.0, 1.0);
    }
  }
  p = a0 + s * d1;
  q = b0 + t * d2;
}

/// The point of a placed padded polygon's core (vertices V counter-clockwise about the plane
/// normal m, the plane through the origin) closest to x.
inline Vec3 closest_on_polygon(const double (*V)[3], int nv, const Vec3& m, const Vec3& x) {
  const Vec3 xp = x - x.dot(m) * m;
  bool inside = true;
  for (int i = 0; i < nv; ++i) {
    const int j = i + 1 == nv ? 0 : i + 1;
    const Vec3 vi(V[i][0], V[i][1], V[i][2]), vj(V[j][0], V[j][1], V[j][2]);
    inside = inside && (vj - vi).cross(xp - vi).dot(m) >= 0.0;
  }
  if (inside) return xp;
  Vec3 best = xp;
  double bd = std::numeric_limits<double>::infinity();
  for (int i = 0; i < nv; ++i) {
    const int j = i + 1 == nv ? 0 : i + 1;
    const Vec3 c = closest_on_segment(Vec3(V[i][0], V[i][1], V[i][2]), Vec3(V[j][0], V[j][1], V[j][2]), x);
    const double dd = (c - x).squaredNorm();
    if (dd < bd) {
      bd = dd;
      best = c;
    }
  }
  return best;
}

/// The distance δ from x to the solid swept by turning a convex meridian profile P (vertices
/// (axial, radial ≥ 0), counter-clockwise, its first edge on the axis: the cylinder's rectangle
/// (−h, 0), (h, 0), (h, R), (−h, R) or the cone's triangle) about the unit axis a through the
/// origin — the closest point lies in x's meridian half-plane —, its closest point q, and along a direction d the first and second
/// directional derivatives of the distance function: f1 = n̂ᵀd (n̂ = (x − q)/δ), f2 = dᵀ∇²δ d. In
/// the meridian half-plane (u, v) = (aᵀx, ‖x − (aᵀx)a‖) the profile distance has Hessian 0 on an
/// edge and (I − n₂n₂ᵀ)/δ at a vertex; turning about the axis adds δ_v (bᵀd)²/v (b ⊥ a, e: the
/// circle through x). Returns false where x lies in the solid (δ = 0).
inline bool revolved_distance(const double (*P)[2], int n, const Vec3& a, const Vec3& x, const Vec3& d, Vec3& q,
                              double& delta, double& f1, double& f2) {
  const double u = x.dot(a);
  Vec3 e = x - u * a;
  const double v = e.norm();
  if (v > 0.0) {
    e /= v;
  } else {
    e = a.unitOrthogonal();
  }
  // the closest point of the profile and whether it is a vertex; v ≥ 0, so the axis edge is never
  // the nearest but at its ends, which the other edges share
  double cu = u, cv = v;
  bool vertex = false;
  if (n == 4) {  // the rectangle: clamping
    const double h = P[1][0], R = P[2][1];
    const bool out_u = std::abs(u) > h, out_v = v > R;
    if (!out_u && !out_v) {
      q = x;
      delta = f1 = f2 = 0.0;
      return false;
    }
    cu = std::clamp(u, -h, h);
    cv = std::min(v, R);
    vertex = out_u && out_v;
  } else {
    bool inside = true;
    double bd = std::numeric_limits<double>::infinity();
    for (int i = 1; i < n; ++i) {
      const int j = i + 1 == n ? 0 : i + 1;
      const double eu = P[j][0] - P[i][0], ev = P[j][1] - P[i][1];
      const double wu = u - P[i][0], wv = v - P[i][1];
      inside = inside && eu * wv - ev * wu >= 0.0;
      const double ee = eu * eu + ev * ev;
      const double s_raw = ee > 0.0 ? (wu * eu + wv * ev) / ee : 0.0;
      const double s = std::clamp(s_raw, 0.0, 1.0);
      const double qu = P[i][0] + s * eu, qv = P[i][1] + s * ev;
      const double dd = (qu - u) * (qu - u) + (qv - v) * (qv - v);
      if (dd < bd) {
        bd = dd;
        cu = qu;
        cv = qv;
        vertex = !(s_raw > 0.0 && s_raw < 1.0);
      }
    }
    if (inside) {
      q = x;
      delta = f1 = f2 = 0.0;
      return false;
    }
  }
  const double du = u - cu, dv = v - cv;
  delta = std::sqrt(du * du + dv * dv);
  q = cu * a + cv * e;
  if (!(delta > 0.0)) return false;
  const double nu = du / delta, nv = dv / delta;  // n₂
  const double da = a.dot(d), de = e.dot(d);
  f1 = nu * da + nv * de;
  f2 = 0.0;
  if (vertex) {  // (I − n₂n₂ᵀ)/δ: the component of (da, de) along n₂'s perpendicular
    const double w = -nv * da + nu * de;
    f2 = w * w / delta;
  }
  if (v > 0.0 && nv != 0.0) {
    const double bb = std::max(0.0, d.squaredNorm() - da * da - de * de);
    f2 += nv * bb / v;
  }
  return true;
}

/// The point of the revolved solid (profile P as in revolved_distance) closest to x; x itself
/// where it lies in the solid.
inline Vec3 closest_on_revolved(const double (*P)[2], int n, const Vec3& a, const Vec3& x) {
  Vec3 q;
  double delta, f1, f2;
  revolved_distance(P, n, a, x, Vec3::Zero(), q, delta, f1, f2);
  return q;
}

/// Closest points p ∈ [x0, x1] and q ∈ C of a segment and a revolved solid C (profile P, axis a
/// through the origin) that do not meet: Newton's method on the squared distance
/// F(s) = dist(x0 + s(x1 − x0), C)², F' = 2δf1, F'' = 2(f1² + δf2), safeguarded by the bracket
/// [lo, hi] ⊆ [0, 1] and bisection. (Where the segment nearly touches C, δ(s) is a narrow V
/// — Newton's method on δ itself then bisects down to its tip — while δ² stays a parabola.)
/// s: the start (e.g. the previous call's parameter), on return the parameter of p. False where
/// the segment meets C or the iteration does not settle.
inline bool closest_segment_revolved(const double (*P)[2], int n, const Vec3& a, const Vec3& x0, const Vec3& x1,
                                     double& s, Vec3& p, Vec3& q) {
  const Vec3 d = x1 - x0;
  double lo = 0.0, hi = 1.0;
  s = std::clamp(s, 0.0, 1.0);
  for (int it = 0; it < 60; ++it) {
    p = x0 + s * d;
    double delta, f1, f2;
    if (!revolved_distance(P, n, a, p, d, q, delta, f1, f2)) return false;
    // f1 = 0 to rounding (a scale of ‖d‖): p is optimal; likewise at an end with f1 pointing out
    if (std::abs(f1) <= 1e-15 * d.norm() || (s == 0.0 && f1 > 0.0) || (s == 1.0 && f1 < 0.0)) return true;
    if (f1 > 0.0) hi = s;
    else lo = s;
    const double curv = f1 * f1 + delta * f2;
    double next = curv > 0.0 ? s - delta * f1 / curv : (f1 > 0.0 ? -1.0 : 2.0);
    // outside the bracket: an end not yet tried, else bisection
    if (!(next > lo && next < hi)) {
      if (next <= lo && lo == 0.0 && s != 0.0) next = 0.0;
      else if (next >= hi && hi == 1.0 && s != 1.0) next = 1.0;
      else next = 0.5 * (lo + hi);
    }
    // a step below 1e-13 (of the segment) ends it: near contact (δ → 0) the direction n̂, and
    // with it f1, carries rounding of order 1e-16/δ. A tiny step with a slope far from 0 means δ
    // itself vanishes: the segment reaches into C.
    if (std::abs(next - s) <= 1e-13) return std::abs(f1) <= 1e-2 * d.norm();
    s = next;
  }
  return false;
}

// GJK (src/geometry/gjk_distance.hpp, shared with the iDCOL touching start), under the names used here.
using diffcol::detail::copy_simplex;
using diffcol::detail::gjk_closest_points;
using diffcol::detail::GjkSimplex;
using diffcol::detail::GjkVertex;
using diffcol::detail::reduce_simplex;

}  // namespace diffcol::dcol::detail
