#pragma once
/// @file detail.hpp
/// Small numeric helpers shared by the implicit shapes (not part of the public API).

#include <cmath>

#include <Eigen/Core>

#include "diffcol/math/hd.hpp"

namespace diffcol::detail {

/// u^k for integer k ≥ 0 by binary exponentiation.
DIFFCOL_HD inline double ipow(double u, int k) {
  double r = 1.0;
  while (k > 0) {
    if (k & 1) r *= u;
    u *= u;
    k >>= 1;
  }
  return r;
}

/// S^(1/(2n)) for S > 0; repeated square roots when 2n is a power of two.
DIFFCOL_HD inline double root_2n(double S, int n, int sqrt_count) {
  if (sqrt_count > 0) {
    for (int i = 0; i < sqrt_count; ++i) S = std::sqrt(S);
    return S;
  }
  return std::pow(S, 0.5 / n);
}

/// Number of square roots that compute S^(1/(2n)), or 0 if 2n is not a power of two.
inline int sqrt_count_for(int n) {
  const int m = 2 * n;
  if ((m & (m - 1)) != 0) return 0;
  int c = 0;
  for (int v = m; v > 1; v >>= 1) ++c;
  return c;
}

/// The maximizer w of eᵀw on the unit p-norm ball, p = 2n: w_i = sign(e_i)|e_i|^(q−1)/‖e‖_q^(q−1),
/// 1/p + 1/q = 1 (Hölder's equality case); w = 0 for e = 0.
template <int K>
DIFFCOL_HD Eigen::Matrix<double, K, 1> unit_ball_support(const Eigen::Matrix<double, K, 1>& e, int n) {
  const double emax = e.cwiseAbs().maxCoeff();
  if (!(emax > 0.0)) return Eigen::Matrix<double, K, 1>::Zero();
  const double q1 = 1.0 / (2.0 * n - 1.0);  // q − 1
  Eigen::Matrix<double, K, 1> w;
  double norm_q = 0.0;  // Σ |e_i/emax|^q (scaled against overflow)
  for (int i = 0; i < K; ++i) {
    const double t = std::abs(e[i]) / emax;
    const double tq1 = n == 1 ? t : std::pow(t, q1);
    w[i] = std::copysign(tq1, e[i]);
    norm_q += tq1 * t;
  }
  return w / std::pow(norm_q, 0.5 / n);  // ‖e‖_q^(q−1) / emax^(q−1) = (Σ t_i^q)^(1/(2n))
}

/// Smallest S used by the power-law shapes, so that an evaluation at (or very near) the
/// shape's origin stays finite: ψ''(S) ~ S^(1/(2n) − 2) ≤ 1e300.
constexpr double kTinyS = 1e-150;

}  // namespace diffcol::detail
