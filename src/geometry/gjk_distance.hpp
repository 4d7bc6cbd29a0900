#pragma once
// Closest points of two convex polytopes given by support points: GJK (E. G. Gilbert, D. W.
// Johnson, S. S. Keerthi, "A fast procedure for computing the distance between complex objects in
// three-dimensional space", 1988). The closest point to the origin of Y = K1 − (o + K2) is
// approached through simplices of support points; for polytopes it ends after finitely many.
// Used by DCOL's exact start (src/dcol/core_distance.hpp) and iDCOL's touching start of an
// ellipsoid against a polytope (src/idcol/solver_core.hpp, host only). Internal to src/.
#include <algorithm>
#include <cmath>
#include <limits>

#include "diffcol/math/se3.hpp"

namespace diffcol::detail {

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

}  // namespace diffcol::detail
