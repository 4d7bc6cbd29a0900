#pragma once
/// @file lu6.hpp
/// LU factorization with partial pivoting of a fixed-size 6×6 matrix (no allocation).

#include <cmath>

#include "diffcol/math/se3.hpp"

namespace diffcol {

struct Lu6 {
  double lu[6][6] = {};   ///< L (unit lower, below the diagonal) and U (upper), row-major, rows permuted
  int perm[6] = {0, 1, 2, 3, 4, 5};  ///< row i of P·A is row perm[i] of A
  double min_pivot = 0.0; ///< smallest |U_ii|
  double max_pivot = 0.0; ///< largest |U_ii|

  /// Factors A. @return false if a pivot is zero or not a number.
  bool factor(const Mat6& A) {
    for (int i = 0; i < 6; ++i) {
      perm[i] = i;
      for (int j = 0; j < 6; ++j) lu[i][j] = A(i, j);
    }
    double mn = 1e300, mx = 0.0;
    for (int k = 0; k < 6; ++k) {
      int p = k;
      double best = std::abs(lu[k][k]);
      for (int i = k + 1; i < 6; ++i) {
        const double v = std::abs(lu[i][k]);
        if (v > best) {
          best = v;
          p = i;
        }
      }
      if (!(best > 0.0)) {
        min_pivot = 0.0;
        max_pivot = mx;
        return false;
      }
      if (p != k) {
        for (int j = 0; j < 6; ++j) {
          const double t = lu[k][j];
          lu[k][j] = lu[p][j];
          lu[p][j] = t;
        }
        const int t = perm[k];
        perm[k] = perm[p];
        perm[p] = t;
      }
      mn = best < mn ? best : mn;
      mx = best > mx ? best : mx;
      const double inv = 1.0 / lu[k][k];
      for (int i = k + 1; i < 6; ++i) {
        const double l = lu[i][k] * inv;
        lu[i][k] = l;
        for (int j = k + 1; j < 6; ++j) lu[i][j] -= l * lu[k][j];
      }
    }
    min_pivot = mn;
    max_pivot = mx;
    return true;
  }

  /// Solves A·x = b.
  Vec6 solve(const Vec6& b) const {
    double x[6];
    for (int i = 0; i < 6; ++i) x[i] = b[perm[i]];
    for (int i = 1; i < 6; ++i)
      for (int j = 0; j < i; ++j) x[i] -= lu[i][j] * x[j];
    for (int i = 5; i >= 0; --i) {
      for (int j = i + 1; j < 6; ++j) x[i] -= lu[i][j] * x[j];
      x[i] /= lu[i][i];
    }
    return Vec6(x[0], x[1], x[2], x[3], x[4], x[5]);
  }
  /// Solves A·X = B for a 6×N right-hand side.
  template <int N>
  Eigen::Matrix<double, 6, N> solve(const Eigen::Matrix<double, 6, N>& B) const {
    Eigen::Matrix<double, 6, N> X;
    for (int c = 0; c < N; ++c) X.col(c) = solve(Vec6(B.col(c)));
    return X;
  }
  /// Pivot ratio min|U_ii| / max|U_ii|: a cheap conditioning indicator.
  double pivot_ratio() const { return max_pivot > 0.0 ? min_pivot / max_pivot : 0.0; }
};

}  // namespace diffcol
