// X = −A⁻¹B for a 6×N right-hand side B, from the solve's LU factors of A (Lu6). Internal header,
// shared by the first-order derivatives (derivatives.cpp) and the second-order and shape-parameter
// ones (hessians.cpp). Always inlined (callers run in AVX2 clones, src/util/target_clones.hpp).
#pragma once

#include "diffcol/math/lu6.hpp"

namespace diffcol::idcol {
namespace {

// X = −A⁻¹ B for the 6×6 B, with A's LU factors (P·A = L·U): every row operation acts on a
// 6-wide row of all right-hand sides at once.
template <int N>
[[gnu::always_inline]] inline void lu_solve_neg(const Lu6& lu, const double (&B)[6][N], double (&X)[6][N]) {
  for (int i = 0; i < 6; ++i)
    for (int c = 0; c < N; ++c) X[i][c] = -B[lu.perm[i]][c];
#pragma GCC unroll 6
  for (int i = 1; i < 6; ++i)
#pragma GCC unroll 6
    for (int j = 0; j < i; ++j) {
      const double l = lu.lu[i][j];
      for (int c = 0; c < N; ++c) X[i][c] -= l * X[j][c];
    }
#pragma GCC unroll 6
  for (int i = 5; i >= 0; --i) {
#pragma GCC unroll 6
    for (int j = i + 1; j < 6; ++j) {
      const double u = lu.lu[i][j];
      for (int c = 0; c < N; ++c) X[i][c] -= u * X[j][c];
    }
    const double inv = lu.inv_diag[i];
    for (int c = 0; c < N; ++c) X[i][c] *= inv;
  }
}

}  // namespace
}  // namespace diffcol::idcol
