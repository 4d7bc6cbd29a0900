#pragma once
// Closest points of the cores of ball-padded DCOL primitives (sphere: a point, capsule: a
// segment, padded polygon: a convex polygon) and of the solids of revolution (cylinder, cone),
// for the exact start of src/dcol/solve_contact.cpp ("ball-padded pairs"). Internal to src/dcol
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

/// Closest points ps ∈ [a, b], pp ∈ polygon core of a segment and a polygon that do not meet:
/// an end point against the polygon, or the segment against an edge.
inline void closest_segment_polygon(const Vec3& a, const Vec3& b, const double (*V)[3], int nv, const Vec3& m, Vec3& ps,
                                    Vec3& pp) {
  ps = a;
  pp = closest_on_polygon(V, nv, m, a);
  double bd = (pp - ps).squaredNorm();
  {
    const Vec3 c = closest_on_polygon(V, nv, m, b);
    const double dd = (c - b).squaredNorm();
    if (dd < bd) {
      bd = dd;
      ps = b;
      pp = c;
    }
  }
  for (int i = 0; i < nv; ++i) {
    const int j = i + 1 == nv ? 0 : i + 1;
    Vec3 p, q;
    closest_segment_points(a, b, Vec3(V[i][0], V[i][1], V[i][2]), Vec3(V[j][0], V[j][1], V[j][2]), p, q);
    const double dd = (q - p).squaredNorm();
    if (dd < bd) {
      bd = dd;
      ps = p;
      pp = q;
    }
  }
}

/// The point of a convex polygon P (n vertices, counter-clockwise) in the plane closest to (u, v);
/// (u, v) itself when inside.
inline void closest_in_polygon_2d(const double (*P)[2], int n, double u, double v, double& cu, double& cv) {
  bool inside = true;
  for (int i = 0; i < n; ++i) {
    const int j = i + 1 == n ? 0 : i + 1;
    inside = inside && (P[j][0] - P[i][0]) * (v - P[i][1]) - (P[j][1] - P[i][1]) * (u - P[i][0]) >= 0.0;
  }
  cu = u;
  cv = v;
  if (inside) return;
  double bd = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    const int j = i + 1 == n ? 0 : i + 1;
    const double eu = P[j][0] - P[i][0], ev = P[j][1] - P[i][1];
    const double ee = eu * eu + ev * ev;
    const double s = ee > 0.0 ? std::clamp(((u - P[i][0]) * eu + (v - P[i][1]) * ev) / ee, 0.0, 1.0) : 0.0;
    const double qu = P[i][0] + s * eu, qv = P[i][1] + s * ev;
    const double dd = (qu - u) * (qu - u) + (qv - v) * (qv - v);
    if (dd < bd) {
      bd = dd;
      cu = qu;
      cv = qv;
    }
  }
}

/// The point closest to x of the solid swept by turning the convex meridian profile P (vertices
/// (axial, radial ≥ 0), counter-clockwise) about the unit axis a through the origin: the closest
/// point lies in x's meridian half-plane (a cylinder, a cone).
inline Vec3 closest_on_revolved(const double (*P)[2], int n, const Vec3& a, const Vec3& x) {
  const double u = x.dot(a);
  Vec3 e = x - u * a;
  const double v = e.norm();
  if (v > 0.0) {
    e /= v;
  } else {  // on the axis: any radial direction
    e = a.unitOrthogonal();
  }
  double cu, cv;
  closest_in_polygon_2d(P, n, u, v, cu, cv);
  return cu * a + cv * e;
}

/// Closest points p1 ∈ P1, p2 ∈ P2 of two placed polygon cores that do not meet (vertices
/// counter-clockwise about their plane normals m1, m2, each plane through its own origin; P2
/// translated by o): every vertex against the other polygon, every edge pair.
inline void closest_polygon_points(const double (*V1)[3], int n1, const Vec3& m1, const double (*V2)[3], int n2,
                                   const Vec3& m2, const Vec3& o, Vec3& p1, Vec3& p2) {
  p1.setZero();
  p2.setZero();
  double bd = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n1; ++i) {  // vertices of P1 against o + P2 (in P2's coordinates: x − o)
    const Vec3 v(V1[i][0], V1[i][1], V1[i][2]);
    const Vec3 c = closest_on_polygon(V2, n2, m2, v - o);
    const double dd = (c + o - v).squaredNorm();
    if (dd < bd) {
      bd = dd;
      p1 = v;
      p2 = c;
    }
  }
  for (int i = 0; i < n2; ++i) {  // vertices of o + P2 against P1
    const Vec3 v(V2[i][0], V2[i][1], V2[i][2]);
    const Vec3 c = closest_on_polygon(V1, n1, m1, v + o);
    const double dd = (v + o - c).squaredNorm();
    if (dd < bd) {
      bd = dd;
      p1 = c;
      p2 = v;
    }
  }
  for (int i = 0; i < n1; ++i) {  // edge pairs
    const int i1 = i + 1 == n1 ? 0 : i + 1;
    const Vec3 a0(V1[i][0], V1[i][1], V1[i][2]), a1(V1[i1][0], V1[i1][1], V1[i1][2]);
    for (int j = 0; j < n2; ++j) {
      const int j1 = j + 1 == n2 ? 0 : j + 1;
      Vec3 p, q;
      closest_segment_points(a0, a1, Vec3(V2[j][0] + o.x(), V2[j][1] + o.y(), V2[j][2] + o.z()),
                             Vec3(V2[j1][0] + o.x(), V2[j1][1] + o.y(), V2[j1][2] + o.z()), p, q);
      const double dd = (q - p).squaredNorm();
      if (dd < bd) {
        bd = dd;
        p1 = p;
        p2 = q - o;
      }
    }
  }
}

}  // namespace diffcol::dcol::detail
