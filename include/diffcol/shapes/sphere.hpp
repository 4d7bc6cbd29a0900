#pragma once
/// @file sphere.hpp
/// Sphere of radius R centred at the body origin: φ(y) = ‖y‖/R − 1.

#include "diffcol/math/hd.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol {

class Sphere {
 public:
  /// @throws std::invalid_argument unless radius is in [kMinLength, kMaxLength] = [1e-100, 1e100].
  explicit Sphere(double radius);

  DIFFCOL_HD double radius() const { return R_; }

  /// φ(y), ∇φ(y) and ∇²φ(y) in one pass. Finite at y = 0 (returns φ = −1, ∇φ = 0, ∇²φ = I/(R·tiny)).
  DIFFCOL_HD double eval(const Vec3& y, Vec3& grad, Mat3& hess) const {
    const double n2 = y.squaredNorm();
    const double n = std::sqrt(n2 > 1e-300 ? n2 : 1e-300);
    const double inv_n = 1.0 / n;
    const double inv = inv_n * inv_R_;  // 1/(R‖y‖)
    const Vec3 u = y * inv_n;
    grad = y * inv;
    hess = (Mat3::Identity() - u * u.transpose()) * inv;
    return n * inv_R_ - 1.0;
  }
  double value(const Vec3& y) const { return y.norm() / R_ - 1.0; }

  /// Distance from the origin to the surface along the unit direction u.
  DIFFCOL_HD double ray_extent(const Vec3&) const { return R_; }
  /// The point of the sphere farthest along d: R·d/‖d‖ (the centre for d = 0; d finite, not checked).
  DIFFCOL_HD Vec3 support(const Vec3& d) const {
    const double n = d.norm();
    return n > 0.0 ? Vec3((R_ / n) * d) : Vec3::Zero();
  }
  /// Radius of the largest origin-centred sphere inside the shape (exact).
  DIFFCOL_HD double inner_radius() const { return R_; }
  /// Radius of the smallest origin-centred sphere containing the shape (exact).
  DIFFCOL_HD double outer_radius() const { return R_; }

 private:
  double R_;
  double inv_R_;  // 1/R
};

}  // namespace diffcol
