#pragma once
/// @file smooth_polytope.hpp
/// Smooth polytope, seed eq. (13)–(14) and (A1)–(A6):
///   φ(y) = smax_β{(a_iᵀy − b_i)/L},  smax_β(c) = (1/β) log Σ exp(β c_i).
/// The exact polytope {A y ≤ b} must be bounded and contain the origin strictly (b > 0).
/// The smooth shape lies inside the exact polytope and converges to it as β → ∞.

#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"

namespace diffcol {

class SmoothPolytope {
 public:
  /// @param A m×3 matrix of outward half-space normals (rows need not be unit).
  /// @param b m offsets; every b_i > 0 (origin strictly inside).
  /// @param beta sharpness β > 0.  @param length characteristic length L > 0.
  /// @throws std::invalid_argument for m < 4, non-finite data, b_i ≤ 0, a zero row,
  ///         an unbounded polytope, β ≤ 0, L ≤ 0, or an origin outside the smooth shape.
  SmoothPolytope(const Eigen::MatrixX3d& A, const Eigen::VectorXd& b, double beta, double length = 1.0);

  /// Axis-aligned box with half-extents hx, hy, hz about the origin.
  static SmoothPolytope box(double hx, double hy, double hz, double beta, double length = 1.0);
  /// Convex hull of a point set (brute force over facets: meant for up to a few hundred points).
  /// The origin must lie strictly inside the hull.
  static SmoothPolytope convex_hull(const std::vector<Vec3>& points, double beta, double length = 1.0);

  int num_faces() const { return static_cast<int>(normals_.size()); }
  double beta() const { return beta_; }
  double length() const { return L_; }
  /// Row i of A (as given) and b_i.
  Vec3 normal(int i) const { return normals_[i] * L_; }
  double offset(int i) const { return offsets_[i] * L_; }
  /// Vertices of the exact polytope {A y ≤ b}.
  const std::vector<Vec3>& vertices() const { return vertices_; }

  double eval(const Vec3& y, Vec3& grad, Mat3& hess) const {
    const int m = static_cast<int>(normals_.size());
    const Vec3* a = normals_.data();
    const double* b = offsets_.data();
    double cmax = -1e300;
    for (int i = 0; i < m; ++i) cmax = std::max(cmax, a[i].dot(y) - b[i]);
    // (A1)-(A4): weights w_i ∝ exp(β(c_i − max c)), ∇φ = Σ w a_i/L, ∇²φ = β(Σ w a aᵀ − ∇φ∇φᵀ)
    double sw = 0.0;
    Vec3 g = Vec3::Zero();
    Mat3 M = Mat3::Zero();
    for (int i = 0; i < m; ++i) {
      const double w = std::exp(beta_ * (a[i].dot(y) - b[i] - cmax));
      sw += w;
      g += w * a[i];
      M.noalias() += w * a[i] * a[i].transpose();
    }
    const double inv = 1.0 / sw;
    grad = g * inv;
    hess = beta_ * (M * inv - grad * grad.transpose());
    return cmax + std::log(sw) / beta_;
  }
  double value(const Vec3& y) const;

  /// Distance from the origin to the exact polytope's boundary along the unit direction u.
  double ray_extent(const Vec3& u) const;
  /// min_i (b_i − L log(m)/β)/‖a_i‖: a true inner bound of the smooth shape.
  double inner_radius() const { return inner_; }
  /// Largest vertex norm of the exact polytope: a true outer bound of the smooth shape.
  double outer_radius() const { return outer_; }

 private:
  std::vector<Vec3> normals_;   // a_i / L
  std::vector<double> offsets_; // b_i / L
  std::vector<Vec3> vertices_;
  double beta_, L_;
  double inner_, outer_;
};

}  // namespace diffcol
