#pragma once
/// @file smooth_truncated_cone.hpp
/// Smooth truncated cone, seed eq. (15)–(17) and (A7)–(A16):
///   φ = smax_β{ r²/R(y1)² − 1, −y1/a − 1, y1/b − 1 },  R(y1) = R_b + (R_t − R_b)(y1 + a)/(a + b).
/// The axis is the body x axis; the bottom cap is at y1 = −a (radius R_b), the top cap at
/// y1 = b (radius R_t). A cone is a truncated cone with a small positive top radius.
///
/// Where the linear profile R(y1) falls below R_floor = min(R_b, R_t)/2 (far outside the
/// shape, past a cap), it is continued by R_floor·exp((R − R_floor)/R_floor), which keeps
/// φ finite and C¹ everywhere; on and near the surface the seed's formula holds exactly.

#include "diffcol/math/hd.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol {

class SmoothTruncatedCone {
 public:
  /// @throws std::invalid_argument unless β is finite and > 0 and R_b, R_t, a, b are in
  /// [kMinLength, kMaxLength] = [1e-100, 1e100].
  SmoothTruncatedCone(double bottom_radius, double top_radius, double a, double b, double beta);

  DIFFCOL_HD double beta() const { return beta_; }
  DIFFCOL_HD double bottom_radius() const { return Rb_; }
  DIFFCOL_HD double top_radius() const { return Rt_; }
  DIFFCOL_HD double bottom_extent() const { return a_; }
  DIFFCOL_HD double top_extent() const { return b_; }

  DIFFCOL_HD double eval(const Vec3& y, Vec3& grad, Mat3& hess) const { return eval_at_beta(y, grad, hess, beta_); }
  /// The same shape family at another sharpness β (used by the solver's continuation).
  DIFFCOL_HD double eval_at_beta(const Vec3& y, Vec3& grad, Mat3& hess, double beta) const {
    // lateral term (A8), (A13)-(A16)
    double R = R0_ + kappa_ * y.x();
    double dR = kappa_, d2R = 0.0;
    if (R < Rfloor_) {
      const double e = std::exp((R - Rfloor_) / Rfloor_);
      d2R = kappa_ * kappa_ * e / Rfloor_;
      dR = kappa_ * e;
      R = Rfloor_ * e;
    }
    const double r2 = y.y() * y.y() + y.z() * y.z();
    const double iR = 1.0 / R, iR2 = iR * iR;
    const double cs = r2 * iR2 - 1.0;
    Vec3 gs(-2.0 * r2 * iR2 * iR * dR, 2.0 * y.y() * iR2, 2.0 * y.z() * iR2);
    Mat3 Hs;
    Hs(0, 0) = 6.0 * r2 * iR2 * iR2 * dR * dR - 2.0 * r2 * iR2 * iR * d2R;
    Hs(1, 1) = Hs(2, 2) = 2.0 * iR2;
    Hs(0, 1) = Hs(1, 0) = -4.0 * y.y() * iR2 * iR * dR;
    Hs(0, 2) = Hs(2, 0) = -4.0 * y.z() * iR2 * iR * dR;
    Hs(1, 2) = Hs(2, 1) = 0.0;
    // caps (A9)-(A10), (A12)
    const double cb = -y.x() * inva_ - 1.0;
    const double ct = y.x() * invb_ - 1.0;
    // smooth max (A1)-(A4)
    const double m = std::max(cs, std::max(cb, ct));
    const double ws = std::exp(beta * (cs - m));
    const double wb = std::exp(beta * (cb - m));
    const double wt = std::exp(beta * (ct - m));
    const double inv = 1.0 / (ws + wb + wt);
    const double vs = ws * inv, vb = wb * inv, vt = wt * inv;
    grad = vs * gs;
    grad.x() += -vb * inva_ + vt * invb_;
    // Σ w ∇c∇cᵀ − ∇φ∇φᵀ ; cap gradients are along x only
    Mat3 M = vs * gs * gs.transpose();
    M(0, 0) += vb * inva_ * inva_ + vt * invb_ * invb_;
    hess = vs * Hs + beta * (M - grad * grad.transpose());
    return m + std::log(ws + wb + wt) / beta;
  }
  double value(const Vec3& y) const;

  /// Distance from the origin to the exact truncated cone's boundary along the unit direction u.
  DIFFCOL_HD double ray_extent(const Vec3& u) const {
    double t = 1e300;
    if (u.x() > 0.0) t = b_ / u.x();
    if (u.x() < 0.0) t = a_ / -u.x();
    const double rho = std::sqrt(u.y() * u.y() + u.z() * u.z());
    const double den = rho - kappa_ * u.x();
    if (den > 0.0) t = std::min(t, R0_ / den);
    return t;
  }
  /// A true inner bound of the smooth shape (from max c ≤ −log(3)/β, which implies φ ≤ 0).
  DIFFCOL_HD double inner_radius() const { return inner_; }
  /// Largest corner distance of the exact truncated cone: a true outer bound.
  DIFFCOL_HD double outer_radius() const { return outer_; }

 private:
  double beta_, Rb_, Rt_, a_, b_;
  double inva_, invb_, kappa_, R0_, Rfloor_;
  double inner_, outer_;
};

}  // namespace diffcol
