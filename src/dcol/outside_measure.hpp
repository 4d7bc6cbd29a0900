#pragma once
// How far a shape-frame point lies outside a DCOL primitive: the certificate's witness check
// (certificate.cpp) and the Euclidean distance's membership test (euclidean.cpp). Internal to src/.
#include <algorithm>
#include <cmath>
#include <limits>

#include "diffcol/dcol/primitives.hpp"

namespace diffcol::detail {

using dcol::Capsule;
using dcol::Cone;
using dcol::Cylinder;
using dcol::Ellipsoid;
using dcol::PaddedPolygon;
using dcol::Polytope;
using dcol::Sphere;

/// How far the shape-frame point y lies outside the primitive (≤ 0 inside): a distance or, for the
/// polytope, cone and ellipsoid, a row-wise or first-order estimate of one.
inline double outside_measure(const Polytope& s, const Vec3& y) {
  double v = -std::numeric_limits<double>::infinity();
  if (s.large) {
    const auto& L = *s.large;
    // (an Eigen expression: a vectorized maximum, no temporary)
    return (L.A.col(0).array() * y.x() + L.A.col(1).array() * y.y() + L.A.col(2).array() * y.z() - L.b.array())
        .maxCoeff();
  }
  for (int i = 0; i < s.num_faces; ++i) v = std::max(v, s.A.row(i).dot(y) - s.b[i]);  // unit rows
  return v;
}
inline double outside_measure(const Capsule& s, const Vec3& y) {
  const double h = 0.5 * s.L;
  const Vec3 c(std::clamp(y.x(), -h, h), 0.0, 0.0);
  return (y - c).norm() - s.R;
}
inline double outside_measure(const Cylinder& s, const Vec3& y) {
  return std::max(std::hypot(y.y(), y.z()) - s.R, std::abs(y.x()) - 0.5 * s.L);
}
inline double outside_measure(const Cone& s, const Vec3& y) {
  // the lateral surface ‖y_⊥‖ = tan β·(y_x + 3H/4) (distance: times cos β) and the base y_x = H/4
  const double lateral = (std::hypot(y.y(), y.z()) - s.tan_beta * (y.x() + 0.75 * s.H)) * std::cos(s.beta);
  return std::max(lateral, y.x() - 0.25 * s.H);
}
inline double outside_measure(const Ellipsoid& s, const Vec3& y) {
  // the gauge γ = √(yᵀPy) to first order: distance ≈ (γ − 1)/‖∇γ‖, ∇γ = P y/γ
  const Vec3 Py = s.P * y;
  const double g = std::sqrt(std::max(0.0, y.dot(Py)));
  const double n = Py.norm();
  return n > 0.0 ? (g - 1.0) * g / n : -s.inner_radius;
}
inline double outside_measure(const PaddedPolygon& s, const Vec3& y) {
  const Eigen::Vector2d w(y.x(), y.y());
  double d2 = 0.0;  // squared distance of w to the polygon
  bool inside = true;
  for (int i = 0; i < s.num_edges; ++i) inside = inside && s.C.row(i).dot(w) <= s.d[i];
  if (!inside) {
    d2 = std::numeric_limits<double>::infinity();
    for (int i = 0; i < s.num_vertices; ++i) {
      const Eigen::Vector2d a = s.V.row(i).transpose(), b = s.V.row((i + 1) % s.num_vertices).transpose();
      const Eigen::Vector2d e = b - a;
      const double t = std::clamp((w - a).dot(e) / e.squaredNorm(), 0.0, 1.0);
      d2 = std::min(d2, (w - a - t * e).squaredNorm());
    }
  }
  return std::sqrt(d2 + y.z() * y.z()) - s.R;
}
inline double outside_measure(const Sphere& s, const Vec3& y) { return y.norm() - s.R; }

}  // namespace diffcol::detail
