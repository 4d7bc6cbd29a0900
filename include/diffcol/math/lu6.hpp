#pragma once
/// @file lu6.hpp
/// LU factorization with partial pivoting of a fixed-size 6×6 matrix (no allocation; every loop
/// has compile-time bounds so the compiler unrolls it).

#include <cmath>
#include <utility>

#include "diffcol/math/hd.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol {

using Mat6RowMajor = Eigen::Matrix<double, 6, 6, Eigen::RowMajor>;

struct Lu6 {
  double lu[6][6] = {};   ///< L (unit lower, below the diagonal) and U (upper), row-major, rows permuted
  int perm[6] = {0, 1, 2, 3, 4, 5};  ///< row i of P·A is row perm[i] of A
  double inv_diag[6] = {};  ///< 1/U_ii (solves multiply instead of divide)
  double min_pivot = 0.0; ///< smallest |U_ii|
  double max_pivot = 0.0; ///< largest |U_ii|

  /// Factors A. @return false if a pivot is zero or not a number.
  DIFFCOL_HD bool factor(const Mat6& A) { return factor(Mat6RowMajor(A)); }
  DIFFCOL_HD bool factor(const Mat6RowMajor& A) {
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) lu[i][j] = A(i, j);
    return factor_in_place();
  }

  /// Factors diag(row)·A·diag(col) (an equilibrated A; the scaling is done in the copy).
  /// @return false if a pivot is zero or not a number.
  DIFFCOL_HD bool factor_scaled(const Mat6RowMajor& A, const double (&row)[6], const double (&col)[6]) {
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) lu[i][j] = row[i] * A(i, j) * col[j];
    return factor_in_place();
  }

  /// Solves A·x = b.
  DIFFCOL_HD Vec6 solve(const Vec6& b) const {
    double x[6];
    for (int i = 0; i < 6; ++i) x[i] = b[perm[i]];
    for (int i = 1; i < 6; ++i)
      for (int j = 0; j < i; ++j) x[i] -= lu[i][j] * x[j];
    for (int i = 5; i >= 0; --i) {
      for (int j = i + 1; j < 6; ++j) x[i] -= lu[i][j] * x[j];
      x[i] *= inv_diag[i];
    }
    return Vec6(x[0], x[1], x[2], x[3], x[4], x[5]);
  }
  /// Solves A·X = B for a 6×N right-hand side.
  template <int N>
  DIFFCOL_HD Eigen::Matrix<double, 6, N> solve(const Eigen::Matrix<double, 6, N>& B) const {
    Eigen::Matrix<double, 6, N> X;
    for (int c = 0; c < N; ++c) X.col(c) = solve(Vec6(B.col(c)));
    return X;
  }
  /// Turns the factors of A into those of A·diag(d) (same row permutation: P·A·D = L·(U·D)).
  DIFFCOL_HD void scale_columns(const double (&d)[6]) {
    min_pivot = 1e300;
    max_pivot = 0.0;
    for (int i = 0; i < 6; ++i) {
      for (int j = i; j < 6; ++j) lu[i][j] *= d[j];
      inv_diag[i] = 1.0 / lu[i][i];
      const double p = std::abs(lu[i][i]);
      min_pivot = p < min_pivot ? p : min_pivot;
      max_pivot = p > max_pivot ? p : max_pivot;
    }
  }

  /// Pivot ratio min|U_ii| / max|U_ii|: a cheap conditioning indicator.
  DIFFCOL_HD double pivot_ratio() const { return max_pivot > 0.0 ? min_pivot / max_pivot : 0.0; }

 private:
  // Factors the matrix held in lu.
  DIFFCOL_HD bool factor_in_place() {
    for (int i = 0; i < 6; ++i) perm[i] = i;
    min_pivot = 1e300;
    max_pivot = 0.0;
    return eliminate(std::make_integer_sequence<int, 6>{});
  }
  template <int... K>
  DIFFCOL_HD bool eliminate(std::integer_sequence<int, K...>) {
    return (step<K>() && ...);
  }
  // Elimination step K with partial pivoting.
  template <int K>
  DIFFCOL_HD bool step() {
    int p = K;
    double best = std::abs(lu[K][K]);
    for (int i = K + 1; i < 6; ++i) {
      const double v = std::abs(lu[i][K]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (!(best > 0.0)) {
      min_pivot = 0.0;
      return false;
    }
    if (p != K) {
      for (int j = 0; j < 6; ++j) std::swap(lu[K][j], lu[p][j]);
      std::swap(perm[K], perm[p]);
    }
    min_pivot = best < min_pivot ? best : min_pivot;
    max_pivot = best > max_pivot ? best : max_pivot;
    const double inv = 1.0 / lu[K][K];
    inv_diag[K] = inv;
    for (int i = K + 1; i < 6; ++i) {
      const double l = lu[i][K] * inv;
      lu[i][K] = l;
      for (int j = K + 1; j < 6; ++j) lu[i][j] -= l * lu[K][j];
    }
    return true;
  }
};

}  // namespace diffcol
