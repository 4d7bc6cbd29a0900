#pragma once
/// @file superellipsoid.hpp
/// Superellipsoid, seed eq. (18) and (A17)–(A27):
///   φ(y) = (Σ_i (ȳ_i² + ε)^n)^(1/(2n)) − 1,  ȳ = (y1/a, y2/b, y3/c).
/// Semi-axes a, b, c along the body x, y, z axes; integer exponent n ≥ 1.
/// n = 1 is the ellipsoid (no regularization: ε is used only for n > 1, eq. (A27)).

#include "diffcol/math/hd.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/shapes/detail.hpp"

namespace diffcol {

class Superellipsoid {
 public:
  /// Default regularization ε of (A27).
  static constexpr double kDefaultEpsilon = 1e-6;

  /// @throws std::invalid_argument unless 1 ≤ n ≤ 64, a, b, c in [kMinLength, kMaxLength] = [1e-100, 1e100]
  /// and, for n > 1, 0 ≤ ε < 0.1 (n = 1 does not use ε: any value is accepted and ignored).
  Superellipsoid(double a, double b, double c, int n, double epsilon = kDefaultEpsilon);
  /// The ellipsoid with semi-axes a, b, c (n = 1).
  static Superellipsoid ellipsoid(double a, double b, double c) { return Superellipsoid(a, b, c, 1); }

  DIFFCOL_HD int exponent() const { return n_; }
  DIFFCOL_HD Vec3 semi_axes() const { return axes_; }  ///< as given
  DIFFCOL_HD double epsilon() const { return eps_; }

  /// φ, ∇φ, ∇²φ in one pass (eq. (A25)–(A26)).
  DIFFCOL_HD double eval(const Vec3& y, Vec3& grad, Mat3& hess) const {
    // S = Σ u_i^n with u_i = ȳ_i² + ε; dS/dy_i = 2n u_i^(n-1) ȳ_i / a_i   (A20)
    Vec3 dS, d2S;
    double S = 0.0;
    for (int i = 0; i < 3; ++i) {
      const double yb = y[i] * inv_axes_[i];
      const double u = yb * yb + eps_;
      const double p = detail::ipow(u, n_ - 1);  // u^(n-1)
      S += p * u;
      dS[i] = 2.0 * n_ * p * yb * inv_axes_[i];
      // (A22)-(A24) in terms of u: n(n-1)u^(n-2)(2ȳ)^2 + 2n u^(n-1), over a_i^2
      const double q = (n_ > 1) ? (n_ - 1) * detail::ipow(u, n_ - 2) * 4.0 * yb * yb : 0.0;
      d2S[i] = n_ * (q + 2.0 * p) * inv_axes_[i] * inv_axes_[i];
    }
    if (S < detail::kTinyS) S = detail::kTinyS;
    const double P = detail::root_2n(S, n_, sqrt_count_);
    const double d1 = P / (2.0 * n_ * S);                 // ψ'(S)   (A19)
    const double d2 = d1 * (0.5 / n_ - 1.0) / S;          // ψ''(S)
    grad = d1 * dS;
    hess.noalias() = d2 * dS * dS.transpose();
    hess.diagonal() += d1 * d2S;
    return P - 1.0;
  }
  double value(const Vec3& y) const;

  /// Distance from the origin to the (unregularized) surface along the unit direction u.
  DIFFCOL_HD double ray_extent(const Vec3& u) const {
    double s = 0.0;
    for (int i = 0; i < 3; ++i) s += detail::ipow(std::abs(u[i] * inv_axes_[i]), 2 * n_);
    return 1.0 / detail::root_2n(s < detail::kTinyS ? detail::kTinyS : s, n_, sqrt_count_);
  }
  /// The point farthest along d of the unregularized surface (ε = 0; the regularized one lies
  /// inside it, within ~ε·size): ȳ = the maximizer of (a∘d)ᵀȳ on the unit 2n-norm ball, by
  /// Hölder's equality case. The origin for d = 0. d must be finite (not checked).
  DIFFCOL_HD Vec3 support(const Vec3& d) const {
    const Vec3 e = d.cwiseQuotient(inv_axes_);  // a∘d
    return detail::unit_ball_support<3>(e, n_).cwiseQuotient(inv_axes_);
  }
  /// Lower bound of the inscribed origin-centred sphere: min(a,b,c)·√(1 − 3ε) (exact for n = 1).
  DIFFCOL_HD double inner_radius() const { return inner_; }
  /// Circumscribed radius ‖(a,b,c)‖_q with q = 2n/(n−1) (exact for the unregularized surface,
  /// a true bound for the regularized one; max(a,b,c) for n = 1).
  DIFFCOL_HD double outer_radius() const { return outer_; }

 private:
  int n_;
  Vec3 inv_axes_;
  Vec3 axes_;  // as given: a copy built from semi_axes() is bit for bit the same
  double eps_;
  int sqrt_count_;
  double inner_, outer_;
};

}  // namespace diffcol
