#pragma once
// Closest points of the cores of ball-padded DCOL primitives (sphere: a point, capsule: a
// segment, padded polygon: a convex polygon) and of the solids of revolution (cylinder, cone:
// against a point or a segment), for the exact start of src/dcol/solve_contact.cpp ("ball-padded pairs"). Internal to src/dcol
// (and its white-box test).
#include <algorithm>
#include <cmath>
#include <limits>

#include "diffcol/math/se3.hpp"

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

// ---------------------------------------------------------------------------- GJK
// Closest points of two convex polytopes given by support points (E. G. Gilbert, D. W. Johnson,
// S. S. Keerthi, "A fast procedure for computing the distance between complex objects in
// three-dimensional space", 1988): the closest point to the origin of Y = K1 − (o + K2) is
// approached through simplices of support points; for polytopes it ends after finitely many.

/// A vertex of the simplex: y = p − o − q with p ∈ K1, q ∈ K2.
struct GjkVertex {
  Vec3 y, p, q;
};
struct GjkSimplex {
  GjkVertex v[4];
  int n = 0;  ///< vertices in use (the others are not read); 0: empty
};
/// dst ← src (the vertices in use only).
inline void copy_simplex(GjkSimplex& dst, const GjkSimplex& src) {
  dst.n = src.n;
  for (int i = 0; i < src.n; ++i) dst.v[i] = src.v[i];
}

/// The closest point to the origin of the segment, triangle or tetrahedron s (n = 2, 3, 4), with
/// s reduced to the vertices of the face that holds it and lambda their weights. False when the
/// origin lies inside the tetrahedron (the sets meet).
inline bool reduce_simplex(GjkSimplex& s, double (&lambda)[4]);

/// Triangle (A, B, C) = s.v[ia], s.v[ib], s.v[ic]: the closest point's face written into out
/// (vertices and weights; Voronoi regions as in C. Ericson, "Real-Time Collision Detection",
/// 2005, Sec. 5.1.5, with the query point at the origin). Returns its squared norm.
inline double closest_on_triangle(const GjkSimplex& s, int ia, int ib, int ic, GjkSimplex& out, double (&lambda)[4]) {
  const GjkVertex &A = s.v[ia], &B = s.v[ib], &C = s.v[ic];
  const Vec3 ab = B.y - A.y, ac = C.y - A.y;
  const double d1 = -ab.dot(A.y), d2 = -ac.dot(A.y);
  const auto one = [&](const GjkVertex& V) {
    out.n = 1;
    out.v[0] = V;
    lambda[0] = 1.0;
    return V.y.squaredNorm();
  };
  const auto two = [&](const GjkVertex& V, const GjkVertex& W, double t) {
    out.n = 2;
    out.v[0] = V;
    out.v[1] = W;
    lambda[0] = 1.0 - t;
    lambda[1] = t;
    return ((1.0 - t) * V.y + t * W.y).squaredNorm();
  };
  if (d1 <= 0.0 && d2 <= 0.0) return one(A);
  const double d3 = -ab.dot(B.y), d4 = -ac.dot(B.y);
  if (d3 >= 0.0 && d4 <= d3) return one(B);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return two(A, B, d1 / (d1 - d3));
  const double d5 = -ab.dot(C.y), d6 = -ac.dot(C.y);
  if (d6 >= 0.0 && d5 <= d6) return one(C);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return two(A, C, d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) return two(B, C, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double den = 1.0 / (va + vb + vc);
  const double v = vb * den, w = vc * den;
  out.n = 3;
  out.v[0] = A;
  out.v[1] = B;
  out.v[2] = C;
  lambda[0] = 1.0 - v - w;
  lambda[1] = v;
  lambda[2] = w;
  return (A.y + v * ab + w * ac).squaredNorm();
}

inline bool reduce_simplex(GjkSimplex& s, double (&lambda)[4]) {
  if (s.n == 1) {
    lambda[0] = 1.0;
    return true;
  }
  if (s.n == 2) {
    const Vec3 ab = s.v[1].y - s.v[0].y;
    const double ll = ab.squaredNorm();
    const double t = ll > 0.0 ? -s.v[0].y.dot(ab) / ll : 0.0;
    if (t <= 0.0) {
      s.n = 1;
      lambda[0] = 1.0;
    } else if (t >= 1.0) {
      s.v[0] = s.v[1];
      s.n = 1;
      lambda[0] = 1.0;
    } else {
      lambda[0] = 1.0 - t;
      lambda[1] = t;
    }
    return true;
  }
  GjkSimplex out;
  if (s.n == 3) {
    closest_on_triangle(s, 0, 1, 2, out, lambda);
    copy_simplex(s, out);
    return true;
  }
  // tetrahedron: the faces whose plane separates the origin from the opposite vertex
  static constexpr int kFace[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
  double best = std::numeric_limits<double>::infinity();
  GjkSimplex keep;
  double keep_lambda[4] = {1.0, 0.0, 0.0, 0.0};
  bool outside = false;
  for (const auto& f : kFace) {
    const Vec3& A = s.v[f[0]].y;
    const Vec3 nrm = (s.v[f[1]].y - A).cross(s.v[f[2]].y - A);
    const double side_origin = -nrm.dot(A), side_other = nrm.dot(s.v[f[3]].y - A);
    if (!(side_origin * side_other < 0.0)) continue;  // origin on the opposite vertex's side
    outside = true;
    double l[4] = {1.0, 0.0, 0.0, 0.0};
    const double d = closest_on_triangle(s, f[0], f[1], f[2], out, l);
    if (d < best) {
      best = d;
      copy_simplex(keep, out);
      for (int i = 0; i < 4; ++i) keep_lambda[i] = l[i];
    }
  }
  if (!outside) return false;
  copy_simplex(s, keep);
  for (int i = 0; i < 4; ++i) lambda[i] = keep_lambda[i];
  return true;
}

/// Closest points p ∈ K1, q ∈ K2 of K1 and o + K2 for convex polytopes K1, K2 given by
/// support1(d) (a point of K1 maximizing dᵀp) and support2(d) (of K2 likewise), which do not meet.
/// s: the simplex of the previous call (its p, q kept, y recomputed for this o: warm start) or
/// empty. False when they meet or the iteration does not settle.
template <class Support1, class Support2>
bool gjk_closest_points(const Support1& support1, const Support2& support2, const Vec3& o, GjkSimplex& s, Vec3& p,
                        Vec3& q) {
  for (int i = 0; i < s.n; ++i) s.v[i].y = s.v[i].p - o - s.v[i].q;
  if (s.n == 0) {  // a first vertex along o (Y lies around −o)
    GjkVertex& w = s.v[0];
    w.p = support1(o);
    w.q = support2(Vec3(-o));
    w.y = w.p - o - w.q;
    s.n = 1;
  }
  double lambda[4] = {1.0, 0.0, 0.0, 0.0};
  const auto finish = [&]() {
    p.setZero();
    q.setZero();
    for (int i = 0; i < s.n; ++i) {
      p += lambda[i] * s.v[i].p;
      q += lambda[i] * s.v[i].q;
    }
    return true;
  };
  for (int it = 0; it < 64; ++it) {
    if (!reduce_simplex(s, lambda)) return false;  // the origin inside a tetrahedron: the sets meet
    Vec3 v = Vec3::Zero();
    for (int i = 0; i < s.n; ++i) v += lambda[i] * s.v[i].y;
    const double vv = v.squaredNorm();
    if (!(vv > 0.0) || !std::isfinite(vv)) return false;
    GjkVertex w;
    w.p = support1(Vec3(-v));
    w.q = support2(v);
    w.y = w.p - o - w.q;
    // vᵀv − vᵀw bounds ‖v‖² − dist² from above (to rounding: vᵀw carries ~1e-16·‖v‖‖w‖); a support
    // point already in the simplex, or in the plane of a triangle whose interior holds v, ends it too
    const double vn = std::sqrt(vv);
    bool done = vv - v.dot(w.y) <= std::max(1e-14 * vv, 4e-16 * vn * w.y.norm());
    for (int i = 0; i < s.n && !done; ++i) done = (w.y - s.v[i].y).squaredNorm() <= 1e-28 * w.y.squaredNorm();
    if (!done && s.n == 3) {
      const Vec3 nrm = (s.v[1].y - s.v[0].y).cross(s.v[2].y - s.v[0].y);
      done = std::abs(nrm.dot(w.y - s.v[0].y)) <= 1e-14 * nrm.norm() * (w.y - s.v[0].y).norm();
    }
    if (done) return finish();
    s.v[s.n++] = w;
  }
  return false;
}

}  // namespace diffcol::dcol::detail
