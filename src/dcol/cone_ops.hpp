#pragma once
// Cone operations on the layout of ConeKkt (R₊^l × up to two second-order cones), shared by the
// interior-point solver and the derivatives. Internal to src/dcol.
//
// Second-order cone Q = {u : ‖u_{1:}‖ ≤ u_0}; Jordan product u∘v = (uᵀv, u_0 v_1 + v_0 u_1),
// identity e = (1, 0, …); orthant: elementwise product, e = 1.
// Nesterov–Todd scaling (Vandenberghe, "The CVXOPT linear and quadratic cone program solvers",
// Sec. on NT scaling): W z = W⁻¹ s = λ, orthant W = diag(√(s/z)); cone W = β W̄ with
// W̄ = [[w0, w1ᵀ], [w1, I + w1w1ᵀ/(1 + w0)]], w0² − ‖w1‖² = 1,
// W̄⁻¹ = [[w0, −w1ᵀ], [−w1, I + w1w1ᵀ/(1 + w0)]].
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "diffcol/dcol/contact.hpp"

namespace diffcol::dcol::detail {

inline int orthant_count(const ConeKkt& k) { return k.orthant_rows[0] + k.orthant_rows[1]; }

/// W̄u (sign = +1) or W̄⁻¹u (sign = −1) for a cone block of dimension dim, scaled by f.
inline void soc_apply(const double* wb, int dim, double f, double sign, const double* u, double* out) {
  double w1u1 = 0.0;
  for (int i = 1; i < dim; ++i) w1u1 += wb[i] * u[i];
  const double u0 = u[0];
  const double c = sign * u0 + w1u1 / (1.0 + wb[0]);
  out[0] = f * (wb[0] * u0 + sign * w1u1);
  for (int i = 1; i < dim; ++i) out[i] = f * (u[i] + c * wb[i]);
}

/// out = W u (inverse = false) or W⁻¹ u (inverse = true) on all m rows; out may alias u.
inline void apply_scaling(const ConeKkt& k, bool inverse, const double* u, double* out,
                          const double* inv_w = nullptr) {
  const int l = orthant_count(k);
  if (inverse && inv_w) {
    for (int i = 0; i < l; ++i) out[i] = u[i] * inv_w[i];
  } else if (inverse) {
    for (int i = 0; i < l; ++i) out[i] = u[i] / k.w[i];
  } else {
    for (int i = 0; i < l; ++i) out[i] = u[i] * k.w[i];
  }
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    double tmp[4];
    soc_apply(k.soc_wbar[c], d, inverse ? 1.0 / k.soc_beta[c] : k.soc_beta[c], inverse ? -1.0 : 1.0, u + s0, tmp);
    for (int i = 0; i < d; ++i) out[s0 + i] = tmp[i];
  }
}

/// ‖u_{1:}‖ and the "determinant" u_0² − ‖u_{1:}‖² computed as (u_0 − ‖u_1‖)(u_0 + ‖u_1‖).
inline double soc_det(const double* u, int dim) {
  double n2 = 0.0;
  for (int i = 1; i < dim; ++i) n2 += u[i] * u[i];
  const double n = std::sqrt(n2);
  return (u[0] - n) * (u[0] + n);
}

/// Computes the NT scaling at (k.s, k.z) and λ = W z. Returns false unless s, z are interior.
/// Optionally also 1/w and 1/λ on the orthant rows (inv_w, inv_lambda may be null).
inline bool compute_scaling(ConeKkt& k, double* lambda, double* inv_w = nullptr, double* inv_lambda = nullptr) {
  const int l = orthant_count(k);
  for (int i = 0; i < l; ++i) {
    const double s = k.s[i], z = k.z[i];
    if (!(s > 0.0) || !(z > 0.0)) return false;
    const double lam = std::sqrt(s * z), inv_lam = 1.0 / lam;
    lambda[i] = lam;
    k.w[i] = s * inv_lam;  // √(s/z)
    if (inv_w) inv_w[i] = z * inv_lam;
    if (inv_lambda) inv_lambda[i] = inv_lam;
  }
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    const double* s = k.s + s0;
    const double* z = k.z + s0;
    const double ds = soc_det(s, d), dz = soc_det(z, d);
    if (!(ds > 0.0) || !(dz > 0.0) || !(s[0] > 0.0) || !(z[0] > 0.0)) return false;
    const double sn = std::sqrt(ds), zn = std::sqrt(dz);
    double sz = 0.0;  // s̄ᵀz̄
    for (int i = 0; i < d; ++i) sz += s[i] * z[i];
    sz /= sn * zn;
    const double gamma = std::sqrt(0.5 * (1.0 + sz));
    double* wb = k.soc_wbar[c];
    wb[0] = (s[0] / sn + z[0] / zn) / (2.0 * gamma);
    for (int i = 1; i < d; ++i) wb[i] = (s[i] / sn - z[i] / zn) / (2.0 * gamma);
    k.soc_beta[c] = std::sqrt(sn / zn);
    soc_apply(wb, d, k.soc_beta[c], 1.0, z, lambda + s0);
  }
  return true;
}

/// out = u∘v on all m rows.
inline void jordan_product(const ConeKkt& k, const double* u, const double* v, double* out) {
  const int l = orthant_count(k);
  for (int i = 0; i < l; ++i) out[i] = u[i] * v[i];
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    double dot = 0.0;
    for (int i = 0; i < d; ++i) dot += u[s0 + i] * v[s0 + i];
    const double u0 = u[s0], v0 = v[s0];
    for (int i = 1; i < d; ++i) out[s0 + i] = u0 * v[s0 + i] + v0 * u[s0 + i];
    out[s0] = dot;
  }
}

/// out = λ⧵d, the solution of λ∘out = d (λ interior); out may alias d.
inline void jordan_divide(const ConeKkt& k, const double* lam, const double* d, double* out,
                          const double* inv_lam = nullptr) {
  const int l = orthant_count(k);
  if (inv_lam) {
    for (int i = 0; i < l; ++i) out[i] = d[i] * inv_lam[i];
  } else {
    for (int i = 0; i < l; ++i) out[i] = d[i] / lam[i];
  }
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], dim = k.soc_dim[c];
    const double* L = lam + s0;
    const double* D = d + s0;
    double l1d1 = 0.0;
    for (int i = 1; i < dim; ++i) l1d1 += L[i] * D[i];
    const double x0 = (L[0] * D[0] - l1d1) / soc_det(L, dim);
    double tmp[4];
    tmp[0] = x0;
    for (int i = 1; i < dim; ++i) tmp[i] = (D[i] - x0 * L[i]) / L[0];
    for (int i = 0; i < dim; ++i) out[s0 + i] = tmp[i];
  }
}

/// The largest t ≥ 0 with u + t·du in the cone (u interior); +∞ when unbounded. inv_u holds
/// 1/u_i on the orthant rows.
inline double max_step(const ConeKkt& k, const double* u, const double* inv_u, const double* du) {
  const int l = orthant_count(k);
  double worst = 0.0;  // max_i −du_i/u_i over the orthant
  for (int i = 0; i < l; ++i) worst = std::max(worst, -du[i] * inv_u[i]);
  double t = worst > 0.0 ? 1.0 / worst : std::numeric_limits<double>::infinity();
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    const double* U = u + s0;
    const double* D = du + s0;
    // f(t) = (u0 + t du0)² − ‖u1 + t du1‖² = a t² + 2 b t + cc, cc > 0; first positive root.
    double a = D[0] * D[0], b = U[0] * D[0];
    for (int i = 1; i < d; ++i) {
      a -= D[i] * D[i];
      b -= U[i] * D[i];
    }
    const double cc = soc_det(U, d);
    double root = std::numeric_limits<double>::infinity();
    const double disc = b * b - a * cc;
    if (std::abs(a) <= 1e-300) {
      if (b < 0.0) root = -cc / (2.0 * b);
    } else if (disc >= 0.0) {
      const double q = -(b + std::copysign(std::sqrt(disc), b));
      const double r1 = q / a, r2 = (q != 0.0) ? cc / q : std::numeric_limits<double>::infinity();
      if (r1 > 0.0) root = std::min(root, r1);
      if (r2 > 0.0) root = std::min(root, r2);
    }
    // u0 + t du0 ≥ 0 bounds t too. It is the exact root when the step heads straight for the apex
    // (ū ∥ dū): f then has a double root, and rounding can make disc < 0 and hide it.
    if (D[0] < 0.0) root = std::min(root, -U[0] / D[0]);
    t = std::min(t, root);
  }
  return t;
}

/// Capacity of the reduced KKT system of the Newton polish (unknowns + active constraints).
inline constexpr int kMaxKktDim = 2 * kMaxConeVars;
/// Largest size whose LU factorization and solve are unrolled in full.
inline constexpr int kLuUnroll = 10;

/// LU factorization with partial pivoting of the leading Q×Q block of A in place (unit lower
/// factor below the diagonal, the reciprocals of U's diagonal on the diagonal), row permutation
/// in perm. False when a pivot is not above rel_pivot·max|A| (singular to working precision) or
/// an entry is not finite. Q is a compile-time size (lu_factor dispatches) so the loops unroll.
template <int Q>
inline bool lu_factor_fixed(double (&A)[kMaxKktDim][kMaxKktDim], int (&perm)[kMaxKktDim], double rel_pivot) {
  double cmax[Q];  // per-column maxima: Q independent chains instead of one of length Q²
  for (int j = 0; j < Q; ++j) cmax[j] = std::abs(A[0][j]);
  for (int i = 1; i < Q; ++i)
    for (int j = 0; j < Q; ++j) cmax[j] = std::max(cmax[j], std::abs(A[i][j]));
  double amax = 0.0;
  bool finite = true;
  for (int j = 0; j < Q; ++j) {
    amax = std::max(amax, cmax[j]);
    finite = finite && std::isfinite(cmax[j]);  // max drops NaN: test every column
  }
  if (!(amax > 0.0) || !finite) return false;
  for (int i = 0; i < Q; ++i) perm[i] = i;
  auto eliminate = [&](int c) -> bool {  // column c: pivot search, row swap, elimination
    int piv = c;
    double best = std::abs(A[c][c]);
    for (int r = c + 1; r < Q; ++r) {
      const double v = std::abs(A[r][c]);
      if (v > best) {
        best = v;
        piv = r;
      }
    }
    if (!(best > rel_pivot * amax)) return false;
    if (piv != c) {
      for (int j = 0; j < Q; ++j) {
        const double t = A[c][j];
        A[c][j] = A[piv][j];
        A[piv][j] = t;
      }
      const int t = perm[c];
      perm[c] = perm[piv];
      perm[piv] = t;
    }
    const double inv = 1.0 / A[c][c];
    for (int r = c + 1; r < Q; ++r) {
      const double f = A[r][c] * inv;
      A[r][c] = f;
      // KKT matrices are sparse (zero blocks, rows of one body): a zero multiplier leaves the row
      // as it is (same result to the bit; 2-9% fewer instructions per polished solve)
      if (f != 0.0)
        for (int j = c + 1; j < Q; ++j) A[r][j] -= f * A[c][j];
    }
    A[c][c] = inv;
    return true;
  };
  // Unrolled in full up to kLuUnroll (every inner bound becomes a constant: 2-12% faster solves,
  // measured); larger systems (padded polygon pairs, q = 12-14) measured slower unrolled.
  if constexpr (Q <= kLuUnroll) {
#pragma GCC unroll 16
    for (int c = 0; c < Q; ++c)
      if (!eliminate(c)) return false;
  } else {
    for (int c = 0; c < Q; ++c)
      if (!eliminate(c)) return false;
  }
  return true;
}

/// Solves A x = b with the factors of lu_factor_fixed<Q>; b is overwritten by x. Column-oriented
/// substitutions: the updates of one step are independent of each other.
template <int Q>
inline void lu_solve_fixed(const double (&A)[kMaxKktDim][kMaxKktDim], const int (&perm)[kMaxKktDim], double* b) {
  double y[Q];
  for (int i = 0; i < Q; ++i) y[i] = b[perm[i]];
  auto forward = [&](int j) {
    for (int i = j + 1; i < Q; ++i) y[i] -= A[i][j] * y[j];
  };
  auto backward = [&](int j) {
    y[j] *= A[j][j];  // reciprocal pivot
    for (int i = 0; i < j; ++i) y[i] -= A[i][j] * y[j];
  };
  if constexpr (Q <= kLuUnroll) {
#pragma GCC unroll 16
    for (int j = 0; j < Q; ++j) forward(j);
#pragma GCC unroll 16
    for (int j = Q - 1; j >= 0; --j) backward(j);
  } else {
    for (int j = 0; j < Q; ++j) forward(j);
    for (int j = Q - 1; j >= 0; --j) backward(j);
  }
  for (int i = 0; i < Q; ++i) b[i] = y[i];
}

#define DIFFCOL_LU_SIZES(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
static_assert(kMaxKktDim == 16, "DIFFCOL_LU_SIZES lists 1..kMaxKktDim");

/// lu_factor_fixed for a run-time size q (false unless 1 ≤ q ≤ kMaxKktDim).
inline bool lu_factor(double (&A)[kMaxKktDim][kMaxKktDim], int (&perm)[kMaxKktDim], int q, double rel_pivot) {
  switch (q) {
#define DIFFCOL_LU_CASE(Q) \
  case Q: return lu_factor_fixed<Q>(A, perm, rel_pivot);
    DIFFCOL_LU_SIZES(DIFFCOL_LU_CASE)
#undef DIFFCOL_LU_CASE
    default: return false;
  }
}

/// lu_solve_fixed for the run-time size q of lu_factor.
inline void lu_solve(const double (&A)[kMaxKktDim][kMaxKktDim], const int (&perm)[kMaxKktDim], int q, double* b) {
  switch (q) {
#define DIFFCOL_LU_CASE(Q) \
  case Q: lu_solve_fixed<Q>(A, perm, b); return;
    DIFFCOL_LU_SIZES(DIFFCOL_LU_CASE)
#undef DIFFCOL_LU_CASE
    default: return;
  }
}
#undef DIFFCOL_LU_SIZES

}  // namespace diffcol::dcol::detail
