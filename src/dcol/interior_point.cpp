// The primal-dual interior-point method on the cone program of a DCOL pair (seed Sec. II-B; the
// algorithm of cvxopt's coneqp with Nesterov–Todd scaling), handing its iterate to the polish.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "cone_program.hpp"

namespace diffcol::dcol::detail {
namespace {

// ============================================================================ the solver

/// Cholesky H = L Lᵀ of the leading N×N block with dynamic regularization: a pivot below
/// 1e-15·max_j H_jj (H singular to working precision, e.g. at a face–face contact where the
/// optimal point is not unique) is raised to that value; the iterative refinement in
/// newton_direction corrects most of the perturbation. False only for non-finite entries.
template <int N>
bool cholesky(const double (&H)[N][N], double (&L)[kMaxConeVars][kMaxConeVars]) {
  double max_diag = 0.0;
  for (int j = 0; j < N; ++j) max_diag = std::max(max_diag, H[j][j]);
  if (!(max_diag > 0.0) || !std::isfinite(max_diag)) return false;
  const double floor = 1e-15 * max_diag;
  for (int j = 0; j < N; ++j) {
    double d = H[j][j];
    for (int q = 0; q < j; ++q) d -= L[j][q] * L[j][q];
    if (!std::isfinite(d)) return false;
    if (d < floor) d = floor;
    const double inv = 1.0 / std::sqrt(d);
    L[j][j] = inv;  // the reciprocal of the diagonal entry (see ConeKkt::L)
    for (int i = j + 1; i < N; ++i) {
      double v = H[i][j];
      for (int q = 0; q < j; ++q) v -= L[i][q] * L[j][q];
      L[i][j] = v * inv;
    }
  }
  return true;
}

/// Solves L Lᵀ x = b in place.
template <int N>
void cholesky_solve(const double (&L)[kMaxConeVars][kMaxConeVars], double* b) {
  for (int i = 0; i < N; ++i) {
    double v = b[i];
    for (int q = 0; q < i; ++q) v -= L[i][q] * b[q];
    b[i] = v * L[i][i];
  }
  for (int i = N - 1; i >= 0; --i) {
    double v = b[i];
    for (int q = i + 1; q < N; ++q) v -= L[q][i] * b[q];
    b[i] = v * L[i][i];
  }
}

template <int N>
struct Workspace {
  double lambda[kMaxConeRows];
  double inv_lambda[kMaxConeRows];  // 1/λ_i on the orthant rows
  double inv_w[kMaxConeRows];       // 1/w_i on the orthant rows
  double q[kMaxConeRows];      // W⁻¹ r_z
  double rx[N];
  // Constant over a solve (set by prepare_workspace):
  double GJG[2][N][N];  // per cone: Gₖᵀ J Gₖ, J = diag(1, −1, …, −1)
  int nz[kMaxConeRows][N];  // per orthant row (N > 5 only): its structurally nonzero columns
  int nz_count[kMaxConeRows];
};

/// The parts of the normal matrix that do not change during a solve (G is fixed).
template <int N>
void prepare_workspace(const ConeKkt& k, Workspace<N>& ws) {
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    for (int a = 0; a < N; ++a)
      for (int b = 0; b <= a; ++b) {
        double v = k.G[s0][a] * k.G[s0][b];
        for (int r = 1; r < d; ++r) v -= k.G[s0 + r][a] * k.G[s0 + r][b];
        ws.GJG[c][a][b] = ws.GJG[c][b][a] = v;
      }
  }
  if constexpr (N > 5) {
    for (int i = 0; i < orthant_count(k); ++i) {
      int cnt = 0;
      for (int a = 0; a < N; ++a)
        if (k.G[i][a] != 0.0) ws.nz[i][cnt++] = a;
      ws.nz_count[i] = cnt;
    }
  }
}

/// Forms H = Gᵀ W⁻² G and factors it into k.L. Orthant rows: W⁻² = diag(z_i/s_i) = diag(1/w_i²).
/// Cone k: W = β W̄ with W̄² = 2w̄w̄ᵀ − J (w̄ = W̄e, w̄ᵀJw̄ = 1), so W̄⁻² = J W̄² J = 2(Jw̄)(Jw̄)ᵀ − J and
///   Gₖᵀ W⁻² Gₖ = β⁻² (2 v vᵀ − Gₖᵀ J Gₖ),  v = Gₖᵀ J w̄,
/// with Gₖᵀ J Gₖ precomputed: no scaled copy of G is formed.
template <int N>
bool factor_normal_matrix(ConeKkt& k, Workspace<N>& ws) {
  const int l = orthant_count(k);
  double H[N][N] = {};
  if constexpr (N <= 5) {
    for (int i = 0; i < l; ++i) {
      const double* g = k.G[i];
      const double d = ws.inv_w[i] * ws.inv_w[i];
      double dg[N];
      for (int a = 0; a < N; ++a) dg[a] = d * g[a];
      for (int a = 0; a < N; ++a)
        for (int b = 0; b <= a; ++b) H[a][b] += dg[a] * g[b];
    }
  } else {
    for (int i = 0; i < l; ++i) {
      const double* g = k.G[i];
      const double d = ws.inv_w[i] * ws.inv_w[i];
      const int* nz = ws.nz[i];
      const int cnt = ws.nz_count[i];
      for (int a = 0; a < cnt; ++a) {
        const double ga = d * g[nz[a]];
        for (int b = 0; b <= a; ++b) H[nz[a]][nz[b]] += ga * g[nz[b]];
      }
    }
  }
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    const double* wb = k.soc_wbar[c];
    double v[N];
    for (int a = 0; a < N; ++a) {
      double t = k.G[s0][a] * wb[0];
      for (int r = 1; r < d; ++r) t -= k.G[s0 + r][a] * wb[r];
      v[a] = t;
    }
    const double f = 1.0 / (k.soc_beta[c] * k.soc_beta[c]);
    for (int a = 0; a < N; ++a)
      for (int b = 0; b <= a; ++b) H[a][b] += f * (2.0 * v[a] * v[b] - ws.GJG[c][a][b]);
  }
  for (int a = 0; a < N; ++a)
    for (int b = 0; b < a; ++b) H[b][a] = H[a][b];
  return cholesky<N>(H, k.L);
}

/// Newton direction for the scaled complementarity right side ds (Δs̃ + Δz̃ = ds), with
/// G̃ = W⁻¹G applied as vectors (W⁻¹ then G, or G then W⁻¹; W is symmetric):
///   H Δx = −r_x − Gᵀ W⁻¹(W⁻¹r_z + ds),  Δz̃ = W⁻¹ G Δx + W⁻¹r_z + ds,  Δs̃ = ds − Δz̃.
// GCC cannot see that the cone blocks (soc_start + soc_dim ≤ m) only read rows set above.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <int N>
void newton_direction(const ConeKkt& k, const Workspace<N>& ws, const double* ds, double* dx, double* dzt,
                      double* dst, bool refine) {
  const int m = k.m;
  double t[kMaxConeRows];
  for (int i = 0; i < m; ++i) t[i] = ws.q[i] + ds[i];
  detail::apply_scaling(k, true, t, t, ws.inv_w);
  for (int j = 0; j < N; ++j) dx[j] = -ws.rx[j];
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < N; ++j) dx[j] -= k.G[i][j] * t[i];
  cholesky_solve<N>(k.L, dx);
  double gdx[kMaxConeRows];
  for (int i = 0; i < m; ++i) {
    double v = 0.0;
    for (int j = 0; j < N; ++j) v += k.G[i][j] * dx[j];
    gdx[i] = v;
  }
  detail::apply_scaling(k, true, gdx, gdx, ws.inv_w);
  for (int i = 0; i < m; ++i) dzt[i] = ws.q[i] + ds[i] + gdx[i];
  if (!refine) {
    for (int i = 0; i < m; ++i) dst[i] = ds[i] - dzt[i];
    return;
  }
  // One step of iterative refinement on the dual equation G̃ᵀΔz̃ = −r_x (H is ill-conditioned
  // near the solution, as in every interior-point method; only needed late).
  detail::apply_scaling(k, true, dzt, t, ws.inv_w);
  double e[N];
  for (int j = 0; j < N; ++j) e[j] = -ws.rx[j];
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < N; ++j) e[j] -= k.G[i][j] * t[i];
  cholesky_solve<N>(k.L, e);
  for (int j = 0; j < N; ++j) dx[j] += e[j];
  for (int i = 0; i < m; ++i) {
    double v = 0.0;
    for (int j = 0; j < N; ++j) v += k.G[i][j] * e[j];
    gdx[i] = v;
  }
  detail::apply_scaling(k, true, gdx, gdx, ws.inv_w);
  for (int i = 0; i < m; ++i) {
    dzt[i] += gdx[i];
    dst[i] = ds[i] - dzt[i];
  }
}
#pragma GCC diagnostic pop

/// Shifts u into the interior of K: u ← u + (1 + a)e when a = min{t : u + t e ∈ K} ≥ 0 (cvxopt's start).
void shift_into_cone(const ConeKkt& k, double* u) {
  const int l = orthant_count(k);
  double a = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < l; ++i) a = std::max(a, -u[i]);
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    double n2 = 0.0;
    for (int i = 1; i < d; ++i) n2 += u[s0 + i] * u[s0 + i];
    a = std::max(a, std::sqrt(n2) - u[s0]);
  }
  if (a < 0.0) return;
  const double t = 1.0 + a;
  for (int i = 0; i < l; ++i) u[i] += t;
  for (int c = 0; c < k.soc_count; ++c) u[k.soc_start[c]] += t;
}

/// Reads the active set off the interior-point iterate (k.s, k.z) and polishes from k.x.
template <int N>
bool polish(ConeKkt& k, const SolveOptions& opt, double hnorm, IpmOutcome& out) {
  const int n = k.n, l = orthant_count(k);
  ActiveSet A;
  int* act = A.act;
  double* y = A.y;
  int na = 0;
  for (int i = 0; i < l; ++i)
    if (k.s[i] < k.z[i]) {
      if (na == n) return false;  // more active rows than unknowns: degenerate, keep the IPM point
      y[na] = k.z[i];
      act[na++] = i;
    }
  int p = na;
  int state[2] = {0, 0}, yoff[2] = {0, 0};
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    double sn = 0.0, zn = 0.0;
    for (int r = 1; r < d; ++r) {
      sn += k.s[s0 + r] * k.s[s0 + r];
      zn += k.z[s0 + r] * k.z[s0 + r];
    }
    sn = std::sqrt(sn);
    zn = std::sqrt(zn);
    const double sl = k.s[s0] - sn, su = k.s[s0] + sn, zl = k.z[s0] - zn, zu = k.z[s0] + zn;
    state[c] = (sl < zu) + (su < zl);
    yoff[c] = p;
    if (state[c] == 1) {
      if (p + 1 > n) return false;
      y[p++] = 0.5 * zu;
    } else if (state[c] == 2) {
      if (p + d > n) return false;
      for (int r = 0; r < d; ++r) y[p++] = k.z[s0 + r];
    }
  }
  A.na = na;
  A.p = p;
  for (int c = 0; c < 2; ++c) {
    A.state[c] = state[c];
    A.yoff[c] = yoff[c];
  }
  return polish_newton<N>(k, opt, hnorm, out, A, k.x);
}

}  // namespace

template <int N>
IpmOutcome interior_point(ConeKkt& k, const SolveOptions& opt) {
  constexpr int kAlpha = 3;
  const int m = k.m;
  const int degree = orthant_count(k) + k.soc_count;
  Workspace<N> ws;
  prepare_workspace<N>(k, ws);
  double hnorm = 0.0;
  for (int i = 0; i < m; ++i) hnorm += k.h[i] * k.h[i];
  hnorm = std::max(1.0, std::sqrt(hnorm));

  // --- start (cvxopt): W = I; x̂ = argmin ‖Gx − h‖, ŝ = h − Gx̂; ẑ = argmin ‖z‖ s.t. Gᵀz + c = 0.
  for (int i = 0; i < orthant_count(k); ++i) k.w[i] = ws.inv_w[i] = 1.0;
  for (int c = 0; c < k.soc_count; ++c) {
    k.soc_beta[c] = 1.0;
    k.soc_wbar[c][0] = 1.0;
    for (int i = 1; i < 4; ++i) k.soc_wbar[c][i] = 0.0;
  }
  if (!factor_normal_matrix<N>(k, ws)) return {SolveStatus::numerical_error, 0, 0.0, 0.0, 0.0};
  double xh[N] = {}, cz[N] = {};
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < N; ++j) xh[j] += k.G[i][j] * k.h[i];
  cholesky_solve<N>(k.L, xh);
  cz[kAlpha] = 1.0;
  cholesky_solve<N>(k.L, cz);
  for (int i = 0; i < m; ++i) {
    double gx = 0.0, gc = 0.0;
    for (int j = 0; j < N; ++j) {
      gx += k.G[i][j] * xh[j];
      gc += k.G[i][j] * cz[j];
    }
    k.s[i] = k.h[i] - gx;
    k.z[i] = -gc;
  }
  for (int j = 0; j < N; ++j) k.x[j] = xh[j];
  for (int j = N; j < kMaxConeVars; ++j) k.x[j] = 0.0;
  shift_into_cone(k, k.s);
  shift_into_cone(k, k.z);

  // Smoothing: centre at μ_target (user level). Otherwise, once converged, centre at the final
  // μ for up to opt.final_centering_steps Newton steps (polish): on curved boundaries a feasible
  // point with gap δ can be O(√δ) from x*, the central point at μ only O(μ), and the IFT
  // derivatives are exact for the central point.
  bool smoothing = opt.barrier_target > 0.0;
  double mu_target = opt.barrier_target;
  double centring_tol = 1e-8;
  int polish_left = -1;
  // The converged iterate before polishing, restored if polishing fails numerically.
  double saved_x[N], saved_s[kMaxConeRows], saved_z[kMaxConeRows];
  double saved_mu = 0.0, saved_pres = 0.0, saved_dres = 0.0;
  auto restore = [&](int iters) -> IpmOutcome {
    for (int j = 0; j < N; ++j) k.x[j] = saved_x[j];
    for (int i = 0; i < m; ++i) {
      k.s[i] = saved_s[i];
      k.z[i] = saved_z[i];
    }
    k.factored = detail::compute_scaling(k, ws.lambda, ws.inv_w, ws.inv_lambda) && factor_normal_matrix<N>(k, ws);
    return {SolveStatus::ok, iters, saved_mu, saved_pres, saved_dres};
  };
  double polish_gap = opt.polish_start;
  // the relative gap at which the next polish is tried
  double rz[kMaxConeRows];
  double mu = 0.0, pres = 0.0, dres = 0.0;
  int it = 0;
  for (;; ++it) {
    // --- residuals r_x = Gᵀz + c, r_z = s + Gx − h, and the duality measure
    for (int j = 0; j < N; ++j) ws.rx[j] = 0.0;
    ws.rx[kAlpha] = 1.0;
    double gap = 0.0, rz2 = 0.0;
    for (int i = 0; i < m; ++i) {
      const double* g = k.G[i];
      double gx = 0.0;
      for (int j = 0; j < N; ++j) {
        gx += g[j] * k.x[j];
        ws.rx[j] += g[j] * k.z[i];
      }
      rz[i] = k.s[i] + gx - k.h[i];
      rz2 += rz[i] * rz[i];
      gap += k.s[i] * k.z[i];
    }
    double rx2 = 0.0;
    for (int j = 0; j < N; ++j) rx2 += ws.rx[j] * ws.rx[j];
    pres = std::sqrt(rz2) / hnorm;
    dres = std::sqrt(rx2);
    mu = gap / degree;
    if (polish_left >= 0 && (!std::isfinite(pres) || !std::isfinite(dres) || !(mu > 0.0) ||
                             pres > opt.feasibility_tolerance || dres > opt.feasibility_tolerance))
      return restore(it);
    if (!std::isfinite(pres) || !std::isfinite(dres) || !std::isfinite(mu)) {
      k.factored = false;
      return {SolveStatus::numerical_error, it, mu, pres, dres};
    }

    // --- scaling at the current iterate; its factorization is kept for the derivatives
    const bool scaled = detail::compute_scaling(k, ws.lambda, ws.inv_w, ws.inv_lambda);
    const bool factored = scaled && factor_normal_matrix<N>(k, ws);
    k.factored = factored;

    const bool feasible = pres <= opt.feasibility_tolerance && dres <= opt.feasibility_tolerance;
    // Newton polish on the exact KKT conditions once the active set is readable (or at the end).
    const bool ipm_done = feasible && (gap <= opt.gap_tolerance || gap <= opt.gap_relative_tolerance * std::abs(k.x[kAlpha]));
    if (!smoothing && opt.polish && polish_left < 0 &&
        (ipm_done || (pres <= opt.polish_start && dres <= opt.polish_start &&
                      gap <= polish_gap * std::max(std::abs(k.x[kAlpha]), 1e-6)))) {
      IpmOutcome o{SolveStatus::ok, it, mu, pres, dres};
      if (polish<N>(k, opt, hnorm, o)) {
        k.factored = false;
        return o;
      }
      polish_gap = gap * 1e-2 / std::max(std::abs(k.x[kAlpha]), 1e-6);
    }
    bool done;
    if (smoothing) {
      // centred at μ_target: ‖λ∘λ − μ_t e‖_∞ ≤ 1e-8 μ_t
      double dev = 0.0;
      if (scaled) {
        double ll[kMaxConeRows];
        detail::jordan_product(k, ws.lambda, ws.lambda, ll);
        for (int i = 0; i < orthant_count(k); ++i) ll[i] -= mu_target;
        for (int c = 0; c < k.soc_count; ++c) ll[k.soc_start[c]] -= mu_target;
        for (int i = 0; i < m; ++i) dev = std::max(dev, std::abs(ll[i]));
      }
      done = feasible && scaled && dev <= centring_tol * mu_target;
      if (polish_left == 0) done = true;
      if (polish_left > 0) --polish_left;
    } else {
      done = feasible && (gap <= opt.gap_tolerance || gap <= opt.gap_relative_tolerance * std::abs(k.x[kAlpha]));
      // The gap has closed to rounding level but a residual stalls just above its tolerance
      // (ill-conditioned H): accept within 1000× the feasibility tolerance, do not polish.
      const bool stalled = gap <= 1e-13 && pres <= 1e3 * opt.feasibility_tolerance &&
                           dres <= 1e3 * opt.feasibility_tolerance;
      if (!done && stalled) return {SolveStatus::ok, it, mu, pres, dres};
      if (done && opt.final_centering_steps > 0 && factored) {
        for (int j = 0; j < N; ++j) saved_x[j] = k.x[j];
        for (int i = 0; i < m; ++i) {
          saved_s[i] = k.s[i];
          saved_z[i] = k.z[i];
        }
        saved_mu = mu;
        saved_pres = pres;
        saved_dres = dres;
        smoothing = true;
        mu_target = mu;
        centring_tol = opt.final_centering_tolerance;
        polish_left = opt.final_centering_steps;
        done = false;
      }
    }
    if (done) return {SolveStatus::ok, it, mu, pres, dres};
    if (polish_left >= 0 && (it >= opt.max_iterations || !factored)) return restore(it);
    if (it >= opt.max_iterations) return {SolveStatus::not_converged, it, mu, pres, dres};
    if (!factored) return {SolveStatus::numerical_error, it, mu, pres, dres};

    detail::apply_scaling(k, true, rz, ws.q, ws.inv_w);  // W⁻¹ r_z

    const bool refine = mu < 1e-9;
    // --- predictor (affine scaling): Δs̃ + Δz̃ = −λ
    double ds[kMaxConeRows], dx[N], dzt[kMaxConeRows], dst[kMaxConeRows];
    for (int i = 0; i < m; ++i) ds[i] = -ws.lambda[i];
    const bool centring = smoothing && mu <= 2.0 * mu_target;
    double sigma_mu;
    double cross[kMaxConeRows];
    if (!centring) {
      newton_direction<N>(k, ws, ds, dx, dzt, dst, refine);
      const double t_aff =
          std::min(1.0, std::min(detail::max_step(k, ws.lambda, ws.inv_lambda, dst), detail::max_step(k, ws.lambda, ws.inv_lambda, dzt)));
      const double sigma = (1.0 - t_aff) * (1.0 - t_aff) * (1.0 - t_aff);
      sigma_mu = sigma * mu;
      if (smoothing) sigma_mu = std::max(sigma_mu, mu_target);
      detail::jordan_product(k, dst, dzt, cross);  // Mehrotra's second-order term
    } else {
      sigma_mu = mu_target;  // pure Newton on s∘z = μ_t e
      for (int i = 0; i < m; ++i) cross[i] = 0.0;
    }

    // --- combined step: λ∘(Δs̃ + Δz̃) = −λ∘λ − Δs̃_a∘Δz̃_a + σμe
    double rhs[kMaxConeRows];
    detail::jordan_product(k, ws.lambda, ws.lambda, rhs);
    for (int i = 0; i < m; ++i) rhs[i] = -rhs[i] - cross[i];
    for (int i = 0; i < orthant_count(k); ++i) rhs[i] += sigma_mu;
    for (int c = 0; c < k.soc_count; ++c) rhs[k.soc_start[c]] += sigma_mu;
    detail::jordan_divide(k, ws.lambda, rhs, ds, ws.inv_lambda);
    newton_direction<N>(k, ws, ds, dx, dzt, dst, refine);
    const double t_max = std::min(detail::max_step(k, ws.lambda, ws.inv_lambda, dst), detail::max_step(k, ws.lambda, ws.inv_lambda, dzt));
    const double t = std::min(1.0, 0.99 * t_max);

    // --- update: Δz = W⁻¹ Δz̃; Δs = −r_z − GΔx from the primal equation itself (the same as
    // W Δs̃ in exact arithmetic, but it keeps the primal residual shrinking by (1 − t) exactly)
    detail::apply_scaling(k, true, dzt, dzt, ws.inv_w);
    for (int i = 0; i < m; ++i) {
      double v = -rz[i];
      for (int j = 0; j < N; ++j) v -= k.G[i][j] * dx[j];
      dst[i] = v;
    }
    for (int j = 0; j < N; ++j) k.x[j] += t * dx[j];
    for (int i = 0; i < m; ++i) {
      k.s[i] += t * dst[i];
      k.z[i] += t * dzt[i];
    }
  }
}

template IpmOutcome interior_point<4>(ConeKkt&, const SolveOptions&);
template IpmOutcome interior_point<5>(ConeKkt&, const SolveOptions&);
template IpmOutcome interior_point<6>(ConeKkt&, const SolveOptions&);
template IpmOutcome interior_point<7>(ConeKkt&, const SolveOptions&);
template IpmOutcome interior_point<8>(ConeKkt&, const SolveOptions&);

}  // namespace diffcol::dcol::detail
