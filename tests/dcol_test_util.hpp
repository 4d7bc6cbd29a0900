#pragma once
// Helpers shared by the DCOL tests: random poses and polytopes, primitives scaled by a length
// factor, and references written from the shape definitions alone (membership in a scaled
// primitive, the polytope–polytope α by LP vertex enumeration).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "diffcol/dcol/primitives.hpp"

#include "test_util.hpp"

namespace diffcol::dcol_test {

using namespace diffcol::dcol;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;

/// A random rotation and a position at a distance in [0.2, 1]·radius from the origin.
inline Pose random_pose(std::mt19937& rng, double radius) {
  std::uniform_real_distribution<double> U(0.2, 1.0);
  return make_pose(random_rotation(rng), radius * U(rng) * random_unit(rng));
}

/// Vertices of the polygon {w : C w ≤ d} in counter-clockwise order, by intersecting every pair
/// of edge lines and keeping the points inside (independent of the solver's rows).
inline std::vector<Eigen::Vector2d> polygon_vertices(const PaddedPolygon& s) {
  std::vector<Eigen::Vector2d> v;
  for (int i = 0; i < s.num_edges; ++i)
    for (int j = i + 1; j < s.num_edges; ++j) {
      Eigen::Matrix2d M;
      M << s.C(i, 0), s.C(i, 1), s.C(j, 0), s.C(j, 1);
      if (std::abs(M.determinant()) < 1e-12) continue;
      const Eigen::Vector2d p = M.inverse() * Eigen::Vector2d(s.d[i], s.d[j]);
      bool inside = true;
      for (int q = 0; q < s.num_edges && inside; ++q) inside = s.C.row(q).dot(p) <= s.d[q] + 1e-9;
      bool dup = false;
      for (const auto& e : v) dup = dup || (e - p).norm() < 1e-9;
      if (inside && !dup) v.push_back(p);
    }
  std::sort(v.begin(), v.end(), [](const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
    return std::atan2(a.y(), a.x()) < std::atan2(b.y(), b.x());  // the origin is inside
  });
  return v;
}

/// The point of the α-scaled polygon closest to w (brute force over the edges).
inline Eigen::Vector2d closest_in_scaled_polygon(const PaddedPolygon& s, double alpha, const Eigen::Vector2d& w) {
  bool inside = true;
  for (int q = 0; q < s.num_edges && inside; ++q) inside = s.C.row(q).dot(w) <= alpha * s.d[q];
  if (inside) return w;
  const std::vector<Eigen::Vector2d> v = polygon_vertices(s);
  Eigen::Vector2d best = alpha * v[0];
  for (size_t i = 0; i < v.size(); ++i) {
    const Eigen::Vector2d a = alpha * v[i], b = alpha * v[(i + 1) % v.size()];
    const double t = std::clamp((w - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
    const Eigen::Vector2d c = a + t * (b - a);
    if ((c - w).norm() < (best - w).norm()) best = c;
  }
  return best;
}

/// Checks that x lies in α-scaled shape i (a set-membership test written independently of the
/// solver's rows: directly from the shape definitions in the shape frame).
inline double membership_violation(const Primitive& p, const Pose& X_WS, const Vec3& x, double alpha) {
  const Vec3 y = X_WS.R.transpose() * (x - X_WS.p);
  return std::visit(
      [&](const auto& s) -> double {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Polytope>) {
          double v = -1e300;
          for (int i = 0; i < s.num_faces; ++i) v = std::max(v, s.normal(i).dot(y) - alpha * s.face_offset(i));
          return v;
        } else if constexpr (std::is_same_v<T, Capsule>) {
          const double g = std::clamp(y.x(), -alpha * s.L / 2, alpha * s.L / 2);
          return (y - g * Vec3::UnitX()).norm() - alpha * s.R;
        } else if constexpr (std::is_same_v<T, Cylinder>) {
          return std::max(std::hypot(y.y(), y.z()) - alpha * s.R, std::abs(y.x()) - alpha * s.L / 2);
        } else if constexpr (std::is_same_v<T, Cone>) {
          return std::max(std::hypot(y.y(), y.z()) - s.tan_beta * (y.x() + alpha * 0.75 * s.H),
                          y.x() - alpha * 0.25 * s.H);
        } else if constexpr (std::is_same_v<T, Ellipsoid>) {
          return std::sqrt(y.dot(s.P * y)) - alpha;
        } else if constexpr (std::is_same_v<T, PaddedPolygon>) {
          const Eigen::Vector2d w = closest_in_scaled_polygon(s, alpha, Eigen::Vector2d(y.x(), y.y()));
          return (y - Vec3(w.x(), w.y(), 0.0)).norm() - alpha * s.R;
        } else {
          return y.norm() - alpha * s.R;
        }
      },
      p);
}

/// min α s.t. A_i Q_iᵀ(p − r_i) ≤ α b_i by enumerating the vertices of the feasible set in
/// (p, α) ∈ R⁴ (every choice of 4 constraints): independent of the interior-point solver.
inline double polytope_lp_bruteforce(const Polytope& P1, const Pose& X1, const Polytope& P2, const Pose& X2) {
  Eigen::Matrix<double, Eigen::Dynamic, 4> G(P1.num_faces + P2.num_faces, 4);
  Eigen::VectorXd h(G.rows());
  int row = 0;
  for (const auto& [P, X] : {std::pair<const Polytope*, Pose>{&P1, X1}, {&P2, X2}}) {
    for (int i = 0; i < P->num_faces; ++i, ++row) {
      const Vec3 a = X.R * P->normal(i);
      G.row(row) << a.x(), a.y(), a.z(), -P->face_offset(i);
      h[row] = a.dot(X.p);
    }
  }
  return diffcol::test::min_alpha_over_vertices(G, h);
}

inline Polytope random_polytope(std::mt19937& rng, int faces) {
  std::uniform_real_distribution<double> U(0.5, 1.5);
  for (;;) {
    Eigen::MatrixX3d A(faces, 3);
    Eigen::VectorXd b(faces);
    for (int i = 0; i < faces; ++i) {
      A.row(i) = random_unit(rng).transpose() * U(rng);
      b[i] = U(rng);
    }
    try {
      return Polytope(A, b);
    } catch (const std::invalid_argument&) {
      // unbounded draw: try again
    }
  }
}

/// The primitive with every length multiplied by s.
inline Primitive scaled(const Primitive& p, double s) {
  return std::visit(
      [&](const auto& v) -> Primitive {
        using T = std::decay_t<decltype(v)>;
        Pose off = v.offset;
        off.p *= s;
        if constexpr (std::is_same_v<T, Polytope>) {
          if (v.large) return Polytope(v.large->A, s * v.large->b, off);
          return Polytope(v.A.topRows(v.num_faces), s * v.b.head(v.num_faces), off);
        } else if constexpr (std::is_same_v<T, Capsule>) {
          return Capsule(s * v.R, s * v.L, off);
        } else if constexpr (std::is_same_v<T, Cylinder>) {
          return Cylinder(s * v.R, s * v.L, off);
        } else if constexpr (std::is_same_v<T, Cone>) {
          return Cone(s * v.H, v.beta, off);
        } else if constexpr (std::is_same_v<T, Ellipsoid>) {
          return Ellipsoid(v.P / (s * s), off);
        } else if constexpr (std::is_same_v<T, PaddedPolygon>) {
          return PaddedPolygon(v.C.topRows(v.num_edges), s * v.d.head(v.num_edges), s * v.R, off);
        } else {
          return dcol::Sphere(s * v.R, off);
        }
      },
      p);
}

}  // namespace diffcol::dcol_test
