#pragma once
/// @file superelliptic_cylinder.hpp
/// Superelliptic cylinder, seed eq. (19) and (A28)–(A37):
///   φ(y) = ((y1/h)² + ε)^n + ((y2² + y3²)/R² + ε)^n)^(1/(2n)) − 1.
/// The axis is the body x axis; radius R, half-height h, integer exponent n ≥ 1.
/// ε (eq. (A37)) is used only for n > 1.

#include "diffcol/math/hd.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/shapes/detail.hpp"

namespace diffcol {

class SuperellipticCylinder {
 public:
  static constexpr double kDefaultEpsilon = 1e-6;

  /// @throws std::invalid_argument unless 1 ≤ n ≤ 64, R, h in [kMinLength, kMaxLength] = [1e-100, 1e100]
  /// and, for n > 1, 0 ≤ ε < 0.1 (n = 1 does not use ε: any value is accepted and ignored).
  SuperellipticCylinder(double radius, double half_height, int n, double epsilon = kDefaultEpsilon);

  DIFFCOL_HD int exponent() const { return n_; }
  DIFFCOL_HD double radius() const { return R_; }        ///< as given
  DIFFCOL_HD double half_height() const { return h_; }
  DIFFCOL_HD double epsilon() const { return eps_; }

  DIFFCOL_HD double eval(const Vec3& y, Vec3& grad, Mat3& hess) const {
    // axial term u1 = (y1/h)^2 + ε, radial term ur = (y2^2+y3^2)/R^2 + ε
    const double yb = y.x() * invh_;
    const double u1 = yb * yb + eps_;
    const double ur = (y.y() * y.y() + y.z() * y.z()) * invR_ * invR_ + eps_;
    const double p1 = detail::ipow(u1, n_ - 1);
    const double pr = detail::ipow(ur, n_ - 1);
    double S = p1 * u1 + pr * ur;
    Vec3 dS;
    dS.x() = 2.0 * n_ * p1 * yb * invh_;                       // (A30)
    const double k = 2.0 * invR_ * invR_;
    dS.y() = n_ * pr * k * y.y();                              // (A31)
    dS.z() = n_ * pr * k * y.z();                              // (A32)
    Mat3 d2S = Mat3::Zero();
    const double q1 = (n_ > 1) ? (n_ - 1) * detail::ipow(u1, n_ - 2) * 4.0 * yb * yb : 0.0;
    d2S(0, 0) = n_ * (q1 + 2.0 * p1) * invh_ * invh_;          // (A33)
    // k·y (1/length) squared, not k² (1/length⁴, which overflows for R ≲ 1e-77)
    const double qr = (n_ > 1) ? n_ * (n_ - 1) * detail::ipow(ur, n_ - 2) : 0.0;
    const double ky = k * y.y(), kz = k * y.z();
    d2S(1, 1) = qr * ky * ky + n_ * pr * k;                    // (A34)
    d2S(2, 2) = qr * kz * kz + n_ * pr * k;                    // (A35)
    d2S(1, 2) = d2S(2, 1) = qr * ky * kz;                      // (A36)
    if (S < detail::kTinyS) S = detail::kTinyS;
    const double P = detail::root_2n(S, n_, sqrt_count_);
    const double d1 = P / (2.0 * n_ * S);
    const double d2 = d1 * (0.5 / n_ - 1.0) / S;
    grad = d1 * dS;
    hess.noalias() = d2 * dS * dS.transpose();
    hess += d1 * d2S;
    return P - 1.0;
  }
  double value(const Vec3& y) const;

  DIFFCOL_HD double ray_extent(const Vec3& u) const {
    const double a = std::abs(u.x()) * invh_;
    const double r = std::sqrt(u.y() * u.y() + u.z() * u.z()) * invR_;
    const double s = detail::ipow(a, 2 * n_) + detail::ipow(r, 2 * n_);
    return 1.0 / detail::root_2n(s < detail::kTinyS ? detail::kTinyS : s, n_, sqrt_count_);
  }
  /// The point farthest along d of the unregularized surface (ε = 0): in the (axial, radial)
  /// plane the maximizer of (h·d₁, R·‖(d₂, d₃)‖)ᵀw on the unit 2n-norm ball (Hölder), then
  /// rotated to the radial direction of d. The origin for d = 0. d must be finite (not checked).
  DIFFCOL_HD Vec3 support(const Vec3& d) const {
    const double dr = std::sqrt(d.y() * d.y() + d.z() * d.z());
    const Eigen::Vector2d w = detail::unit_ball_support<2>(Eigen::Vector2d(d.x() / invh_, dr / invR_), n_);
    const double rho = w.y() / invR_;
    return dr > 0.0 ? Vec3(w.x() / invh_, rho * d.y() / dr, rho * d.z() / dr) : Vec3(w.x() / invh_, 0.0, 0.0);
  }
  /// min(R, h)·√(1 − 2ε): a true inner bound (exact for n = 1).
  DIFFCOL_HD double inner_radius() const { return inner_; }
  /// ‖(R, h)‖_q with q = 2n/(n−1): exact for the unregularized surface.
  DIFFCOL_HD double outer_radius() const { return outer_; }

 private:
  int n_;
  double invR_, invh_, eps_;
  double R_, h_;  // as given: a copy built from radius(), half_height() is bit for bit the same
  int sqrt_count_;
  double inner_, outer_;
};

}  // namespace diffcol
