// IFT derivatives of the DCOL cone program (seed Sec. II-B, eq. (6)–(8)) and of the contact
// points (29) and gap (30).
#include "diffcol/dcol/derivatives.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "../util/target_clones.hpp"
#include "cone_ops.hpp"

namespace diffcol::dcol {

namespace {

/// Solves L Lᵀ x = b (n×n, n ≤ kMaxConeVars) in place.
[[gnu::always_inline]] inline void factor_solve(const ConeKkt& k, double* b) {
  const int n = k.n;
  for (int i = 0; i < n; ++i) {
    double v = b[i];
    for (int q = 0; q < i; ++q) v -= k.L[i][q] * b[q];
    b[i] = v * k.L[i][i];  // the diagonal holds reciprocals
  }
  for (int i = n - 1; i >= 0; --i) {
    double v = b[i];
    for (int q = i + 1; q < n; ++q) v -= k.L[q][i] * b[q];
    b[i] = v * k.L[i][i];
  }
}

/// dr/dη of a point r rigidly attached to the moving body: [−r^, I]. Inlined into the AVX2 clone
/// of its caller (see src/util/target_clones.hpp).
[[gnu::always_inline]] inline Mat36 point_twist_jacobian(const Vec3& r) {
  Mat36 J;
  J.leftCols<3>() = -skew(r);
  J.rightCols<3>().setIdentity();
  return J;
}

/// dx̂/dη from the NT-linearized KKT conditions at an interior-point iterate (the fallback when
/// the solution was not polished, e.g. a face–face contact): the derivative of the central point
/// at the final μ, reusing the Cholesky factor of H = Gᵀ W⁻² G:
///   H dx = Gᵀ W⁻² ∂s/∂θ − ∂(Gᵀz)/∂θ.
DIFFCOL_TARGET_CLONES void normal_equation_dx(const ContactResult& res, double (&dx)[2][6][kMaxConeVars]) {
  const ConeKkt& k = res.kkt;
  const int n = k.n;
  const double inv_ell = 1.0 / k.length_scale;
  const Vec3 p = res.x_W;
  // Per body b: rows of b, R̂ = ∂ŝ/∂η_b|x (row i: [(p × g_i)ᵀ, g_iᵀ]/ℓ with g_i = G_p row i),
  // the right side Gᵀ W⁻² R̂ − ∂(Gᵀz)/∂η_b (n×6), then dx = H⁻¹·(right side).
  for (int body = 0; body < 2; ++body) {
    double rhs[6][kMaxConeVars] = {};
    Vec3 gz = Vec3::Zero();  // Σ g_i z_i over the rows of this body
    // orthant rows: W⁻² = diag(1/w²)
    const int o0 = body == 0 ? 0 : k.orthant_rows[0];
    const int o1 = o0 + k.orthant_rows[body];
    for (int i = o0; i < o1; ++i) {
      const Vec3 g(k.G[i][0], k.G[i][1], k.G[i][2]);
      gz += g * k.z[i];
      const double f = inv_ell / (k.w[i] * k.w[i]);
      const Vec3 pg = p.cross(g);
      double r6[6] = {pg.x() * f, pg.y() * f, pg.z() * f, g.x() * f, g.y() * f, g.z() * f};
      for (int c = 0; c < 6; ++c)
        for (int j = 0; j < n; ++j) rhs[c][j] += k.G[i][j] * r6[c];
    }
    // cone rows of this body: W⁻² = W⁻¹W⁻¹ applied to the columns of R̂
    for (int c = 0; c < k.soc_count; ++c) {
      if (k.soc_body[c] != body) continue;
      const int s0 = k.soc_start[c], d = k.soc_dim[c];
      double Rcol[6][4];
      for (int i = 0; i < d; ++i) {
        const Vec3 g(k.G[s0 + i][0], k.G[s0 + i][1], k.G[s0 + i][2]);
        gz += g * k.z[s0 + i];
        const Vec3 pg = p.cross(g);
        for (int a = 0; a < 3; ++a) {
          Rcol[a][i] = pg[a] * inv_ell;
          Rcol[3 + a][i] = g[a] * inv_ell;
        }
      }
      const double ib = 1.0 / k.soc_beta[c];
      for (int col = 0; col < 6; ++col) {
        double t1[4], t2[4];
        detail::soc_apply(k.soc_wbar[c], d, ib, -1.0, Rcol[col], t1);
        detail::soc_apply(k.soc_wbar[c], d, ib, -1.0, t1, t2);
        for (int i = 0; i < d; ++i)
          for (int j = 0; j < n; ++j) rhs[col][j] += k.G[s0 + i][j] * t2[i];
      }
    }
    // − ∂(Gᵀz)/∂ω on the p rows: −(−skew(Σ g z)) = +skew(Σ g z)
    const Mat3 S = skew(gz);
    for (int col = 0; col < 3; ++col)
      for (int a = 0; a < 3; ++a) rhs[col][a] += S(a, col);
    for (int col = 0; col < 6; ++col) {
      factor_solve(k, rhs[col]);
      for (int j = 0; j < n; ++j) dx[body][col][j] = rhs[col][j];
    }
  }

}

/// ∂s_i/∂η_b at fixed x̂ of row i of body b: [(p × g)ᵀ, gᵀ]/ℓ, g = the row's p-coefficients.
[[gnu::always_inline]] inline void row_twist_derivative(const ConeKkt& k, const Vec3& p, double inv_ell, int i,
                                                        double* ds) {
  const Vec3 g(k.G[i][0], k.G[i][1], k.G[i][2]);
  const Vec3 pg = p.cross(g);
  for (int a = 0; a < 3; ++a) {
    ds[a] = pg[a] * inv_ell;
    ds[3 + a] = g[a] * inv_ell;
  }
}

/// ∂F/∂θ of the polished KKT system F(x, y; θ) = 0 (rows: the n unknowns, then the active
/// multipliers in the order of polish.cpp: orthant rows, then per cone ν (boundary) or z_k (apex)),
/// 12 columns: [ω; v] of body 1, then of body 2, into dF (Q rows, zeroed by the caller). Per row
/// of body b, ∂s/∂η_b|x = [(p × g)ᵀ, gᵀ]/ℓ (g = the row's p-coefficients); the stationarity rows
/// get ∂(Gᵀz)/∂ω = −skew(Σ z_i g_i) and, for a boundary cone, the curvature term
/// −ν Ḡᵀ(I − ūūᵀ)/‖s̄‖ ∂s̄/∂θ.
[[gnu::always_inline]] inline void polished_parameter_jacobian(const ContactResult& res, int Q, double (*dF)[12]) {
  const ConeKkt& k = res.kkt;
  const int N = k.n;
  const double inv_ell = 1.0 / k.length_scale;
  const Vec3 p = res.x_W;
  auto row_ds = [&](int i, double* ds) { row_twist_derivative(k, p, inv_ell, i, ds); };
  Vec3 gz[2] = {Vec3::Zero(), Vec3::Zero()};
  const int l1 = k.orthant_rows[0];
  for (int a = 0; a < k.active_count && N + a < Q; ++a) {  // N + active_count ≤ Q by construction
    const int i = k.active_rows[a];
    const int body = i < l1 ? 0 : 1;
    double ds[6];
    row_ds(i, ds);
    gz[body] += Vec3(k.G[i][0], k.G[i][1], k.G[i][2]) * k.z[i];
    for (int c = 0; c < 6; ++c) dF[N + a][6 * body + c] = -ds[c];
  }
  int yoff = k.active_count;
  for (int cone = 0; cone < k.soc_count; ++cone) {
    const int s0 = k.soc_start[cone], d = k.soc_dim[cone], st = k.soc_state[cone];
    const int o = N + yoff;
    yoff += st == 1 ? 1 : st == 2 ? d : 0;
    if (st == 0 || o + (st == 2 ? d : 1) > Q) continue;  // (never skipped for a consistent ConeKkt)
    const int col0 = 6 * k.soc_body[cone];
    double ds[4][6];
    for (int r = 0; r < d; ++r) {
      row_ds(s0 + r, ds[r]);
      gz[k.soc_body[cone]] += Vec3(k.G[s0 + r][0], k.G[s0 + r][1], k.G[s0 + r][2]) * k.z[s0 + r];
    }
    if (st == 2) {
      for (int r = 0; r < d; ++r)
        for (int c = 0; c < 6; ++c) dF[o + r][col0 + c] = -ds[r][c];
      continue;
    }
    const double* sv = k.s + s0;
    double nb = 0.0;
    for (int r = 1; r < d; ++r) nb += sv[r] * sv[r];
    nb = std::sqrt(nb);
    double u[4] = {0, 0, 0, 0};
    for (int r = 1; r < d; ++r) u[r] = sv[r] / nb;
    const double f = k.soc_nu[cone] / nb;
    double T[4][6] = {};  // −ν(I − ūūᵀ)/‖s̄‖ ∂s̄/∂θ, rows r = 1..d−1
    for (int c = 0; c < 6; ++c) {
      double uds = 0.0;
      for (int r = 1; r < d; ++r) uds += u[r] * ds[r][c];
      dF[o][col0 + c] = -(ds[0][c] - uds);  // ∂(‖s̄‖ − s₀)/∂θ
      for (int r = 1; r < d; ++r) T[r][c] = -f * (ds[r][c] - u[r] * uds);
    }
    for (int j = 0; j < N; ++j) {  // dF[j] += Σ_r G[s0 + r][j]·T[r]: contiguous in the 6 columns
      double g[4] = {0.0, 0.0, 0.0, 0.0};
      for (int r = 1; r < d; ++r) g[r] = k.G[s0 + r][j];
      for (int c = 0; c < 6; ++c) dF[j][col0 + c] += g[1] * T[1][c] + g[2] * T[2][c] + g[3] * T[3][c];
    }
  }
  // ∂(Gᵀz)_p/∂ω = −skew(Σ z g)
  for (int body = 0; body < 2; ++body) {
    const Mat3 S = skew(gz[body]);
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) dF[a][6 * body + c] -= S(a, c);
  }
}

/// Rows 0–3 of K⁻¹ (= columns, K symmetric) from kkt_lu (Q×Q): the four solves interleaved,
/// K = P⁻¹LU, both substitutions column by column (independent updates, no long dependency
/// chains), unrolled in full: with Q fixed every bound is a constant (measured 10-26% faster).
template <int Q>
[[gnu::always_inline]] inline void inverse_rows(const ConeKkt& k, double (*Y)[4]) {
  for (int i = 0; i < Q; ++i)
    for (int r = 0; r < 4; ++r) Y[i][r] = k.kkt_perm[i] == r ? 1.0 : 0.0;
#pragma GCC unroll 16
  for (int j = 0; j < Q; ++j)
#pragma GCC unroll 16
    for (int i = j + 1; i < Q; ++i)
      for (int r = 0; r < 4; ++r) Y[i][r] -= k.kkt_lu[i][j] * Y[j][r];
#pragma GCC unroll 16
  for (int j = Q - 1; j >= 0; --j) {
    for (int r = 0; r < 4; ++r) Y[j][r] *= k.kkt_lu[j][j];  // reciprocal pivot
#pragma GCC unroll 16
    for (int i = 0; i < j; ++i)
      for (int r = 0; r < 4; ++r) Y[i][r] -= k.kkt_lu[i][j] * Y[j][r];
  }
}

/// inverse_rows for the run-time dimension q of a reduced K (4 ≤ q ≤ kMaxKktDim − 2), in one
/// AVX2/FMA clone like its callers.
DIFFCOL_TARGET_CLONES void reduced_inverse_rows(const ConeKkt& k, int q, double (*Y)[4]) {
  switch (q) {
#define DIFFCOL_INVERSE_ROWS_CASE(Q)                                    \
  case Q: {                                                             \
    double L[Q][4]; /* a local: the unrolled updates stay in registers */ \
    inverse_rows<Q>(k, L);                                              \
    for (int i = 0; i < Q; ++i)                                         \
      for (int r = 0; r < 4; ++r) Y[i][r] = L[i][r];                    \
    return;                                                             \
  }
    DIFFCOL_INVERSE_ROWS_CASE(4) DIFFCOL_INVERSE_ROWS_CASE(5) DIFFCOL_INVERSE_ROWS_CASE(6)
    DIFFCOL_INVERSE_ROWS_CASE(7) DIFFCOL_INVERSE_ROWS_CASE(8) DIFFCOL_INVERSE_ROWS_CASE(9)
    DIFFCOL_INVERSE_ROWS_CASE(10) DIFFCOL_INVERSE_ROWS_CASE(11) DIFFCOL_INVERSE_ROWS_CASE(12)
    DIFFCOL_INVERSE_ROWS_CASE(13) DIFFCOL_INVERSE_ROWS_CASE(14)
#undef DIFFCOL_INVERSE_ROWS_CASE
    default: return;
  }
}
static_assert(detail::kMaxKktDim - 2 == 14, "reduced_inverse_rows lists 4..kMaxKktDim - 2");

/// dx̂/dη (x̂ = (p̂, α), scaled coordinates) of a polished solution by the IFT on the reduced
/// exact KKT system F(x, y; θ) = 0 of the Newton polish (polish.cpp), reusing its LU
/// factors: dx̂ = −(K⁻¹)_{0:4,:} ∂F/∂θ. K is symmetric, so the four needed rows of K⁻¹ are four
/// solves; ∂F/∂θ is polished_parameter_jacobian. Q = the dimension of K (n unknowns + active constraints),
/// is a template parameter so that the solves and the product have fixed trip counts.
/// With eliminated slacks (ConeKkt::elim_*) kkt_lu factors Tᵀ K T: its rows of the inverse give
/// those of K⁻¹ on the kept unknowns and, through T, on the eliminated slacks; the eliminated rows'
/// own multipliers get 0, which is exact here because ∂F/∂θ vanishes on those rows (no
/// p-coefficients).
template <int Q>
DIFFCOL_TARGET_CLONES void polished_dx(const ContactResult& res, double (&dx)[2][6][kMaxConeVars]) {
  static_assert(Q >= 4 && Q <= detail::kMaxKktDim);
  const ConeKkt& k = res.kkt;
  const int N = k.n;
  double Y[Q][4];
  if (k.elim_count == 0) {
    inverse_rows<Q>(k, Y);
  } else {
    double Yr[detail::kMaxKktDim][4];
    reduced_inverse_rows(k, k.kkt_dim, Yr);
    bool dropped[Q] = {};
    for (int e = 0; e < k.elim_count; ++e) dropped[k.elim_col[e]] = dropped[N + k.elim_slot[e]] = true;
    int c = 0;
    for (int i = 0; i < Q; ++i) {
      for (int r = 0; r < 4; ++r) Y[i][r] = dropped[i] ? 0.0 : Yr[c][r];
      c += dropped[i] ? 0 : 1;
    }
    for (int e = 0; e < k.elim_count; ++e)
      for (int t = 0; t < 2; ++t)
        if (k.elim_src[e][t] >= 0)
          for (int r = 0; r < 4; ++r) Y[k.elim_col[e]][r] += k.elim_coef[e][t] * Y[k.elim_src[e][t]][r];
  }
  // ∂F/∂θ, 12 columns: [ω; v] of body 1, then of body 2
  double dF[Q][12] = {};
  polished_parameter_jacobian(res, Q, dF);
  double out[12][4] = {};
  for (int i = 0; i < Q; ++i)
    for (int c = 0; c < 12; ++c)
      for (int j = 0; j < 4; ++j) out[c][j] -= Y[i][j] * dF[i][c];
  for (int c = 0; c < 12; ++c)
    for (int j = 0; j < 4; ++j) dx[c / 6][c % 6][j] = out[c][j];
}

/// polished_dx<Q> for the runtime dimension q of K, 4 ≤ q ≤ kMaxKktDim (checked by the caller).
/// Inlined into its (cloned) caller, see src/util/target_clones.hpp.
template <int Q = 4>
[[gnu::always_inline]] inline void polished_dx(const ContactResult& res, int q, double (&dx)[2][6][kMaxConeVars]) {
  if constexpr (Q <= detail::kMaxKktDim) {
    if (q == Q) return polished_dx<Q>(res, dx);
    return polished_dx<Q + 1>(res, q, dx);
  }
}

}  // namespace

namespace {
DIFFCOL_TARGET_CLONES void world_derivatives(const ContactResult& res, ContactDerivatives& out) {
  // every block is written below on success; failures reset the whole struct
  auto fail = [&out](DerivativeStatus why) {
    out = ContactDerivatives{};
    out.status = why;
  };
  switch (res.status) {
    case SolveStatus::ok: break;
    case SolveStatus::coincident_origins: return fail(DerivativeStatus::coincident_origins);
    case SolveStatus::invalid_input: return fail(DerivativeStatus::invalid_input);
    default: return fail(DerivativeStatus::solve_failed);
  }
  const ConeKkt& k = res.kkt;
  double dx[2][6][kMaxConeVars];  // [body][twist column][unknown]
  if (k.polished) {
    const int qf = k.kkt_full_dim;
    if (k.n < 4 || k.n > kMaxConeVars || qf < k.n || qf > std::min(2 * k.n, detail::kMaxKktDim) ||
        k.elim_count < 0 || k.elim_count > 4 || k.kkt_dim != qf - 2 * k.elim_count || k.kkt_dim < 4)
      return fail(DerivativeStatus::singular);
    for (int e = 0; e < k.elim_count; ++e) {  // T must map kept unknowns (p, α: never eliminated)
      bool ok = k.elim_col[e] >= 4 && k.elim_col[e] < k.n && k.elim_slot[e] >= 0 &&
                k.elim_slot[e] < k.active_count && k.n + k.elim_slot[e] < qf;
      for (int t = 0; t < 2; ++t) ok = ok && k.elim_src[e][t] >= -1 && k.elim_src[e][t] < k.n;
      if (!ok) return fail(DerivativeStatus::singular);
    }
    polished_dx(res, qf, dx);
  } else if (!k.factored) {
    return fail(DerivativeStatus::singular);
  } else {
    normal_equation_dx(res, dx);
  }
  const double ell = k.length_scale;
  const Vec3 p = res.x_W;

  const double alpha = res.alpha;
  const Vec3 r1 = res.X_WS1.p, r2 = res.X_WS2.p;
  const Vec3 r12 = r2 - r1;
  const double dist = r12.norm();
  const Vec3 u = r12 / dist;
  for (int body = 0; body < 2; ++body) {
    RowVec6 Ja;
    Mat36 Jx;
    for (int col = 0; col < 6; ++col) {
      Ja[col] = k.alpha_scale * dx[body][col][3];
      for (int a = 0; a < 3; ++a) Jx(a, col) = ell * dx[body][col][a];
    }
    const Vec3 rb = body == 0 ? r1 : r2;
    const Mat36 Jr = point_twist_jacobian(rb);
    // (29): p_i = r_i + (x − r_i)/α
    const double ia = 1.0 / alpha;
    auto contact_point = [&](const Vec3& ri, bool moves, Mat36& J) {
      const Vec3 c = (ia * ia) * (p - ri);
      const double f = moves ? 1.0 - ia : 0.0;
      for (int a = 0; a < 3; ++a)
        for (int col = 0; col < 6; ++col) J(a, col) = ia * Jx(a, col) - c[a] * Ja[col] + f * Jr(a, col);
    };
    // (30): d = (1 − 1/α)‖r_2 − r_1‖
    RowVec6 Jd = dist / (alpha * alpha) * Ja;
    Jd += (1.0 - 1.0 / alpha) * (body == 0 ? -1.0 : 1.0) * (u.transpose() * Jr);
    if (body == 0) {
      out.J_alpha_X1 = Ja;
      out.J_x_W_X1 = Jx;
      contact_point(r1, true, out.J_p1_W_X1);
      contact_point(r2, false, out.J_p2_W_X1);
      out.J_gap_X1 = Jd;
    } else {
      out.J_alpha_X2 = Ja;
      out.J_x_W_X2 = Jx;
      contact_point(r1, false, out.J_p1_W_X2);
      contact_point(r2, true, out.J_p2_W_X2);
      out.J_gap_X2 = Jd;
    }
  }
  // X_12 ← X_12·exp(ξ^) with body 1 fixed is X_WB2 ← X_WB2·exp(ξ^): η_2 = Ad_{X_WB2} ξ.
  // (J·Ad_X with Ad_X = [[R, 0], [p^R, R]], without forming the 6×6 adjoint)
  {
    const Mat3& R = res.X_WB2.R;
    const Eigen::Matrix<double, 1, 3> jw = out.J_alpha_X2.leftCols<3>(), jv = out.J_alpha_X2.rightCols<3>();
    out.J_alpha_X12.leftCols<3>() = (jw + jv * skew(res.X_WB2.p)) * R;
    out.J_alpha_X12.rightCols<3>() = jv * R;
  }

  const bool finite = out.J_alpha_X1.allFinite() && out.J_alpha_X2.allFinite() && out.J_x_W_X1.allFinite() &&
                      out.J_x_W_X2.allFinite() && out.J_p1_W_X1.allFinite() && out.J_p1_W_X2.allFinite() &&
                      out.J_p2_W_X1.allFinite() && out.J_p2_W_X2.allFinite() && out.J_gap_X1.allFinite() &&
                      out.J_gap_X2.allFinite() && out.J_alpha_X12.allFinite();
  if (!finite) return fail(DerivativeStatus::singular);
  out.status = DerivativeStatus::ok;
}
}  // namespace

void contact_derivatives(const ContactResult& result, ContactDerivatives& out, ReferenceFrame frame) {
  world_derivatives(result, out);
  out.frame = frame;
  if (frame == ReferenceFrame::world || !out.ok()) return;
  const Pose &X1 = result.X_WB1, &X2 = result.X_WB2;
  express_in_frame(out.J_alpha_X1, frame, X1);
  express_in_frame(out.J_gap_X1, frame, X1);
  for (Mat36* J : {&out.J_x_W_X1, &out.J_p1_W_X1, &out.J_p2_W_X1}) express_in_frame(*J, frame, X1);
  express_in_frame(out.J_alpha_X2, frame, X2);
  express_in_frame(out.J_gap_X2, frame, X2);
  for (Mat36* J : {&out.J_x_W_X2, &out.J_p1_W_X2, &out.J_p2_W_X2}) express_in_frame(*J, frame, X2);
}

ContactDerivatives contact_derivatives(const ContactResult& result, ReferenceFrame frame) {
  ContactDerivatives d;
  contact_derivatives(result, d, frame);
  return d;
}

namespace {

using KktMatrix = double[detail::kMaxKktDim][detail::kMaxKktDim];

/// K = [[M, Aᵀ], [A, 0]] of a polished solution, before any slack elimination (polish.cpp
/// factors it, or Tᵀ K T, in place; it is assembled again here from the stored solution):
/// A the active rows' coefficients (orthant rows, boundary cones' G_k0 − ūᵀḠ_k, apex cones' rows),
/// M = Σ ν Ḡᵀ(I − ūūᵀ)Ḡ/‖s̄‖ over the boundary cones (q = kkt_full_dim rows and columns of K
/// written). False if the stored sizes disagree.
bool polished_kkt_matrix(const ConeKkt& k, KktMatrix& K) {
  const int n = k.n, q = k.kkt_full_dim;
  int p = k.active_count;
  for (int c = 0; c < k.soc_count; ++c) p += k.soc_state[c] == 1 ? 1 : k.soc_state[c] == 2 ? k.soc_dim[c] : 0;
  if (n < 4 || n > kMaxConeVars || q != n + p || q > detail::kMaxKktDim) return false;
  for (int i = 0; i < q; ++i)
    for (int j = 0; j < q; ++j) K[i][j] = 0.0;
  for (int a = 0; a < k.active_count; ++a)
    for (int j = 0; j < n; ++j) K[j][n + a] = K[n + a][j] = k.G[k.active_rows[a]][j];
  int o = n + k.active_count;
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    if (k.soc_state[c] == 2) {
      for (int r = 0; r < d; ++r)
        for (int j = 0; j < n; ++j) K[j][o + r] = K[o + r][j] = k.G[s0 + r][j];
      o += d;
    } else if (k.soc_state[c] == 1) {
      double nb = 0.0;
      for (int r = 1; r < d; ++r) nb += k.s[s0 + r] * k.s[s0 + r];
      nb = std::sqrt(nb);
      if (!(nb > 0.0)) return false;
      double ug[kMaxConeVars];  // ūᵀḠ per column
      for (int j = 0; j < n; ++j) {
        double v = 0.0;
        for (int r = 1; r < d; ++r) v += k.s[s0 + r] / nb * k.G[s0 + r][j];
        ug[j] = v;
        K[j][o] = K[o][j] = k.G[s0][j] - v;
      }
      const double f = k.soc_nu[c] / nb;
      for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
          double t = 0.0;
          for (int r = 1; r < d; ++r) t += k.G[s0 + r][a] * k.G[s0 + r][b];
          K[a][b] += f * (t - ug[a] * ug[b]);
        }
      o += 1;
    }
  }
  return true;
}

/// d/dη of the dual sum u = Σ z_i g_i over body 1's rows (certificate.cpp's separating normal,
/// unnormalized), 3×12: Σ dz_i g_i + ω₁ × u (g_i turns with body 1), dz_i from dx̂ and the
/// multipliers' derivatives.
struct DualSumDerivative {
  Vec3 u = Vec3::Zero();
  Eigen::Matrix<double, 3, 12> du = Eigen::Matrix<double, 3, 12>::Zero();
};

bool dual_sum_derivative(const ContactResult& res, DualSumDerivative& out) {
  const ConeKkt& k = res.kkt;
  const int n = k.n, l1 = k.orthant_rows[0];
  const double inv_ell = 1.0 / k.length_scale;
  const Vec3 p = res.x_W;
  double dx[kMaxConeVars][12];
  // du += dz_i g_i for a row i of body 1 (dz_i: its 12 columns)
  const auto accumulate = [&](int i, const double* dzi) {
    const Vec3 g(k.G[i][0], k.G[i][1], k.G[i][2]);
    for (int c = 0; c < 12; ++c) out.du.col(c) += dzi[c] * g;
  };
  // ds_i = −g_iᵀ dx̂ + ∂s_i/∂η at fixed x̂ for a row i of body 1 (its own columns 0–5)
  const auto row_ds = [&](int i, double* ds) {
    double own[6];
    row_twist_derivative(k, p, inv_ell, i, own);
    for (int c = 0; c < 12; ++c) {
      double v = 0.0;
      for (int j = 0; j < n; ++j) v -= k.G[i][j] * dx[j][c];
      ds[c] = v + (c < 6 ? own[c] : 0.0);
    }
  };
  if (k.polished) {
    // [dx̂; dy] = −K⁻¹ ∂F/∂θ on the full system (the multipliers' derivatives are needed too), K
    // assembled at the returned point: the polish's own factors belong to the iterate before its
    // last step, close enough for dx̂ but not for dy near a cone's tip (up to 4e-4 relative error
    // in dn over 98,000 test configurations with them)
    const int q = k.kkt_full_dim;
    if (q < 4 || q > detail::kMaxKktDim) return false;
    double dF[detail::kMaxKktDim][12] = {};
    polished_parameter_jacobian(res, q, dF);
    KktMatrix K;
    int perm[detail::kMaxKktDim];
    if (!polished_kkt_matrix(k, K) || !detail::lu_factor(K, perm, q, 1e-13)) return false;
    double D[detail::kMaxKktDim][12];
    for (int c = 0; c < 12; ++c) {
      double b[detail::kMaxKktDim];
      for (int i = 0; i < q; ++i) b[i] = -dF[i][c];
      detail::lu_solve(K, perm, q, b);
      for (int i = 0; i < q; ++i) D[i][c] = b[i];
    }
    for (int j = 0; j < n; ++j)
      for (int c = 0; c < 12; ++c) dx[j][c] = D[j][c];
    for (int a = 0; a < k.active_count; ++a)
      if (k.active_rows[a] < l1) {
        double dzi[12];
        for (int c = 0; c < 12; ++c) dzi[c] = D[n + a][c];
        accumulate(k.active_rows[a], dzi);
      }
    int o = n + k.active_count;
    for (int cone = 0; cone < k.soc_count; ++cone) {
      const int s0 = k.soc_start[cone], d = k.soc_dim[cone], st = k.soc_state[cone];
      const bool mine = k.soc_body[cone] == 0;
      if (st == 2 && mine)
        for (int r = 0; r < d; ++r) {
          double dzi[12];
          for (int c = 0; c < 12; ++c) dzi[c] = D[o + r][c];
          accumulate(s0 + r, dzi);
        }
      if (st == 1 && mine) {
        // z = ν(1, −ū), ū = s̄/‖s̄‖: dz = dν(1, −ū) − ν(0, (I − ūūᵀ) ds̄/‖s̄‖)
        double nb = 0.0;
        for (int r = 1; r < d; ++r) nb += k.s[s0 + r] * k.s[s0 + r];
        nb = std::sqrt(nb);
        double ub[4] = {0.0, 0.0, 0.0, 0.0}, ds[4][12];
        for (int r = 1; r < d; ++r) {
          ub[r] = k.s[s0 + r] / nb;
          row_ds(s0 + r, ds[r]);
        }
        const double f = k.soc_nu[cone] / nb;
        double dzc[4][12];
        for (int c = 0; c < 12; ++c) {
          const double dnu = D[o][c];
          double uds = 0.0;
          for (int r = 1; r < d; ++r) uds += ub[r] * ds[r][c];
          dzc[0][c] = dnu;
          for (int r = 1; r < d; ++r) dzc[r][c] = -dnu * ub[r] - f * (ds[r][c] - ub[r] * uds);
        }
        for (int r = 0; r < d; ++r) accumulate(s0 + r, dzc[r]);
      }
      o += st == 1 ? 1 : st == 2 ? d : 0;
    }
  } else {
    if (!k.factored) return false;
    // the central point at the final μ: H dx̂ as in normal_equation_dx, dz = −W⁻² ds
    double dxb[2][6][kMaxConeVars];
    normal_equation_dx(res, dxb);
    for (int j = 0; j < n; ++j)
      for (int c = 0; c < 12; ++c) dx[j][c] = dxb[c / 6][c % 6][j];
    for (int i = 0; i < l1; ++i) {
      double ds[12];
      row_ds(i, ds);
      for (int c = 0; c < 12; ++c) ds[c] *= -1.0 / (k.w[i] * k.w[i]);
      accumulate(i, ds);
    }
    for (int cone = 0; cone < k.soc_count; ++cone) {
      if (k.soc_body[cone] != 0) continue;
      const int s0 = k.soc_start[cone], d = k.soc_dim[cone];
      double ds[4][12];
      for (int r = 0; r < d; ++r) row_ds(s0 + r, ds[r]);
      const double ib = 1.0 / k.soc_beta[cone];
      double dzc[4][12];
      for (int c = 0; c < 12; ++c) {
        double v[4], t1[4], t2[4];
        for (int r = 0; r < d; ++r) v[r] = -ds[r][c];
        detail::soc_apply(k.soc_wbar[cone], d, ib, -1.0, v, t1);
        detail::soc_apply(k.soc_wbar[cone], d, ib, -1.0, t1, t2);
        for (int r = 0; r < d; ++r) dzc[r][c] = t2[r];
      }
      for (int r = 0; r < d; ++r) accumulate(s0 + r, dzc[r]);
    }
  }
  // u over body 1's rows
  const auto add = [&](int i) { out.u += k.z[i] * Vec3(k.G[i][0], k.G[i][1], k.G[i][2]); };
  for (int i = 0; i < l1; ++i) add(i);
  for (int cone = 0; cone < k.soc_count; ++cone)
    if (k.soc_body[cone] == 0)
      for (int r = 0; r < k.soc_dim[cone]; ++r) add(k.soc_start[cone] + r);
  out.du.leftCols<3>() -= skew(out.u);  // Σ z_i (ω_1 × g_i) = ω_1 × u
  return true;
}

}  // namespace

void normal_derivatives(const ContactResult& result, NormalDerivatives& out, ReferenceFrame frame) {
  out = NormalDerivatives{};
  out.frame = frame;
  switch (result.status) {
    case SolveStatus::ok: break;
    case SolveStatus::coincident_origins: out.status = DerivativeStatus::coincident_origins; return;
    case SolveStatus::invalid_input: out.status = DerivativeStatus::invalid_input; return;
    default: out.status = DerivativeStatus::solve_failed; return;
  }
  out.status = DerivativeStatus::singular;
  const ConeKkt& k = result.kkt;
  if (!(result.alpha > 0.0) || k.n < 4 || k.n > kMaxConeVars || k.m <= 0 || k.m > kMaxConeRows) return;
  DualSumDerivative ds;
  if (!dual_sum_derivative(result, ds)) return;
  const double un = ds.u.norm();
  if (!(un > 0.0) || !std::isfinite(un)) return;
  const Vec3 u_hat = ds.u / un;
  const double sign = u_hat.dot(result.X_WS2.p - result.X_WS1.p) < 0.0 ? -1.0 : 1.0;  // as separating_normal
  const Eigen::Matrix<double, 3, 12> J = (sign / un) * (Mat3::Identity() - u_hat * u_hat.transpose()) * ds.du;
  if (!J.allFinite()) return;
  out.normal_W = sign * u_hat;
  out.J_normal_W_X1 = J.leftCols<6>();
  out.J_normal_W_X2 = J.rightCols<6>();
  if (frame != ReferenceFrame::world) {
    express_in_frame(out.J_normal_W_X1, frame, result.X_WB1);
    express_in_frame(out.J_normal_W_X2, frame, result.X_WB2);
  }
  out.status = DerivativeStatus::ok;
}

NormalDerivatives normal_derivatives(const ContactResult& result, ReferenceFrame frame) {
  NormalDerivatives d;
  normal_derivatives(result, d, frame);
  return d;
}

Eigen::Matrix<double, Eigen::Dynamic, 7> world_twist_to_position_quaternion(
    const Eigen::Ref<const Eigen::MatrixXd>& J_X, const Pose& X_WB) {
  if (J_X.cols() != 6) throw std::invalid_argument("world_twist_to_position_quaternion: J_X must have 6 columns");
  if (!J_X.allFinite() || !X_WB.is_valid())
    throw std::invalid_argument("world_twist_to_position_quaternion: J_X must be finite and X_WB a valid pose");
  // Translation dr: η = (0, dr). Rotation q → q + dq with r fixed: body rotation
  // dθ = 2[−v, wI − v^]dq (unit q = (w, v)), world ω = R dθ, v_η = r × ω.
  const Eigen::Quaterniond q = X_WB.quaternion();
  const Vec3 v(q.x(), q.y(), q.z());
  Eigen::Matrix<double, 3, 4> E;
  E.col(0) = -v;
  E.rightCols<3>() = q.w() * Mat3::Identity() - skew(v);
  E *= 2.0;
  const Eigen::MatrixXd Jw = J_X.leftCols(3) + J_X.rightCols(3) * skew(X_WB.p);
  Eigen::Matrix<double, Eigen::Dynamic, 7> out(J_X.rows(), 7);
  out.leftCols(3) = J_X.rightCols(3);
  out.rightCols(4) = Jw * X_WB.R * E;
  return out;
}

PositionQuaternionJacobians to_position_quaternion(const ContactResult& res, const ContactDerivatives& d) {
  PositionQuaternionJacobians out;
  if (d.frame != ReferenceFrame::world)
    throw std::invalid_argument("to_position_quaternion: the derivatives must be in ReferenceFrame::world");
  out.status = d.status;
  if (!d.ok()) return out;
  auto fill = [&](auto& dst, const auto& J1, const auto& J2) {
    dst.leftCols(7) = world_twist_to_position_quaternion(J1, res.X_WB1);
    dst.rightCols(7) = world_twist_to_position_quaternion(J2, res.X_WB2);
  };
  fill(out.J_alpha, d.J_alpha_X1, d.J_alpha_X2);
  fill(out.J_x_W, d.J_x_W_X1, d.J_x_W_X2);
  fill(out.J_p1_W, d.J_p1_W_X1, d.J_p1_W_X2);
  fill(out.J_p2_W, d.J_p2_W_X1, d.J_p2_W_X2);
  fill(out.J_gap, d.J_gap_X1, d.J_gap_X2);
  return out;
}

}  // namespace diffcol::dcol
