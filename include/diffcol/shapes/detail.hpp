#pragma once
/// @file detail.hpp
/// Small numeric helpers shared by the implicit shapes (not part of the public API).

#include <cmath>

namespace diffcol::detail {

/// u^k for integer k ≥ 0 by binary exponentiation.
inline double ipow(double u, int k) {
  double r = 1.0;
  while (k > 0) {
    if (k & 1) r *= u;
    u *= u;
    k >>= 1;
  }
  return r;
}

/// S^(1/(2n)) for S > 0; repeated square roots when 2n is a power of two.
inline double root_2n(double S, int n, int sqrt_count) {
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

/// Smallest S used by the power-law shapes, so that an evaluation at (or very near) the
/// shape's origin stays finite: ψ''(S) ~ S^(1/(2n) − 2) ≤ 1e300.
constexpr double kTinyS = 1e-150;

}  // namespace diffcol::detail
