// The Newton polish of a DCOL cone program (seed Sec. II-B, KKT conditions (2)–(5)) on an active
// set read off an interior-point iterate or a geometric start, with its optimality certificate.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "cone_program.hpp"

namespace diffcol::dcol::detail {
namespace {

/// Multipliers y (p of them) by least squares on the stationarity c + Σ_a y_a·col_a = 0,
/// c = e_α (component 3): BᵀB y = −Bᵀc by Cholesky. False if B is (nearly) rank deficient: a
/// column whose component outside the span of the previous ones is below 1e-5 of its norm.
template <int N>
bool stationarity_multipliers(const double (&B)[kMaxConeVars][kMaxConeVars], int p, double* y) {
  constexpr int n = N;  // the unknowns: a template parameter so the column products unroll
  double M[kMaxConeVars][kMaxConeVars];
  for (int a = 0; a < p; ++a) {
    for (int b = 0; b <= a; ++b) {
      double v = 0.0;
      for (int j = 0; j < n; ++j) v += B[j][a] * B[j][b];
      M[a][b] = v;
    }
    y[a] = -B[3][a];
  }
  for (int a = 0; a < p; ++a) {
    for (int b = 0; b < a; ++b) {
      double v = M[a][b];
      for (int q = 0; q < b; ++q) v -= M[a][q] * M[b][q];
      M[a][b] = v / M[b][b];
    }
    double v = M[a][a];
    for (int q = 0; q < a; ++q) v -= M[a][q] * M[a][q];
    if (!(v > 1e-10 * M[a][a])) return false;  // column a (nearly) in the span of the others
    M[a][a] = std::sqrt(v);
  }
  for (int a = 0; a < p; ++a) {
    for (int q = 0; q < a; ++q) y[a] -= M[a][q] * y[q];
    y[a] /= M[a][a];
  }
  for (int a = p - 1; a >= 0; --a) {
    for (int q = a + 1; q < p; ++q) y[a] -= M[q][a] * y[q];
    y[a] /= M[a][a];
  }
  return true;
}

}  // namespace

/// Newton's method on the exact KKT conditions for the active set A from x_start (scaled
/// coordinates) and A.y, then the optimality certificate; on success the solution, the active set
/// and the LU factors are stored in k (see cone_program.hpp).
template <int N>
bool polish_newton(ConeKkt& k, const SolveOptions& opt, double hnorm, IpmOutcome& out, ActiveSet& A,
                   const double* x_start) {
  constexpr int kAlpha = 3;
  constexpr int n = N;  // k.n: a template parameter so the loops over the unknowns unroll
  const int m = k.m, l = orthant_count(k);
  const int* act = A.act;
  double* y = A.y;
  const int na = A.na, p = A.p;
  const int* state = A.state;
  const int* yoff = A.yoff;
  const int q = n + p;
  // Without boundary cones the active constraints are linear and K is constant: one step is exact.
  const bool linear = state[0] != 1 && state[1] != 1;
  double (&K)[detail::kMaxKktDim][detail::kMaxKktDim] = k.kkt_lu;
  // Slack elimination (ConeKkt::elim_*): a primitive's active own-slack rows (no p-coefficients,
  // h = 0) fix slacks as linear functions of α and the other slack: x = T x̃, and each Newton
  // step solves Tᵀ K T (dimension q − 2·eliminated) instead of K.
  int ne = 0, ecol[4] = {}, eslot[4] = {}, esrc[4][2];  // zeroed: GCC -Og warns
  double ecoef[4][2];
  int gstart[2] = {0, 0}, gsize[2] = {0, 0};  // eliminations of each body: [gstart, gstart + gsize)
  // only where K is too large for the fully unrolled LU: below that the transformation costs
  // more than the smaller factorization saves (measured on the capsule pairs)
  if (q > detail::kLuUnroll) {
    const int l1 = k.orthant_rows[0];
    for (int body = 0; body < 2; ++body) {
      int rows[kMaxConeVars], nr = 0, cols[2], nsc = 0;
      bool usable = true;
      for (int a = 0; a < na; ++a) {
        const int i = act[a];
        if ((i < l1) != (body == 0)) continue;
        const double* g = k.G[i];
        if (g[0] != 0.0 || g[1] != 0.0 || g[2] != 0.0 || k.h[i] != 0.0) continue;
        if (nr == kMaxConeVars) usable = false;
        else rows[nr++] = a;
        for (int j = 4; j < n; ++j) {
          if (g[j] == 0.0) continue;
          bool seen = false;
          for (int t = 0; t < nsc; ++t) seen = seen || cols[t] == j;
          if (seen) continue;
          if (nsc == 2) usable = false;
          else cols[nsc++] = j;
        }
      }
      gstart[body] = ne;
      if (!usable || nr == 0 || nsc == 0 || nr > nsc) continue;
      if (nr == 1) {  // one column, the one with the largest coefficient, from α and the other
        const double* g = k.G[act[rows[0]]];
        const int e = nsc == 2 && std::abs(g[cols[1]]) > std::abs(g[cols[0]]) ? 1 : 0;
        const int c = cols[e];
        ecol[ne] = c;
        eslot[ne] = rows[0];
        esrc[ne][0] = kAlpha;
        ecoef[ne][0] = -g[kAlpha] / g[c];
        esrc[ne][1] = nsc == 2 ? cols[1 - e] : -1;
        ecoef[ne][1] = nsc == 2 ? -g[cols[1 - e]] / g[c] : 0.0;
        ++ne;
      } else {  // two rows fix both columns: B w = −g_α α
        const double *g0 = k.G[act[rows[0]]], *g1 = k.G[act[rows[1]]];
        const double b00 = g0[cols[0]], b01 = g0[cols[1]], b10 = g1[cols[0]], b11 = g1[cols[1]];
        const double det = b00 * b11 - b01 * b10;
        if (!(std::abs(det) > 1e-8 * (std::abs(b00 * b11) + std::abs(b01 * b10)))) continue;
        const double v0 = -(b11 * g0[kAlpha] - b01 * g1[kAlpha]) / det;
        const double v1 = -(b00 * g1[kAlpha] - b10 * g0[kAlpha]) / det;
        for (int t = 0; t < 2; ++t) {
          ecol[ne] = cols[t];
          eslot[ne] = rows[t];
          esrc[ne][0] = kAlpha;
          ecoef[ne][0] = t == 0 ? v0 : v1;
          esrc[ne][1] = -1;
          ecoef[ne][1] = 0.0;
          ++ne;
        }
      }
      gsize[body] = ne - gstart[body];
    }
  }
  const int qr = q - 2 * ne;
  // x_e = Σ_t coef·x_src on the eliminated slacks (T applied to v's kept entries)
  const auto apply_elimination = [&](double* v) {
    for (int e = 0; e < ne; ++e)
      v[ecol[e]] = ecoef[e][0] * v[esrc[e][0]] + (esrc[e][1] >= 0 ? ecoef[e][1] * v[esrc[e][1]] : 0.0);
  };
  int keep[detail::kMaxKktDim], red[detail::kMaxKktDim];  // reduced → full, full → reduced (−1: dropped)
  if (ne > 0) {
    for (int i = 0; i < q; ++i) red[i] = 0;
    for (int e = 0; e < ne; ++e) red[ecol[e]] = red[n + eslot[e]] = -1;
    int c = 0;
    for (int i = 0; i < q; ++i)
      if (red[i] == 0) {
        keep[c] = i;
        red[i] = c++;
      }
  }
  double x[kMaxConeVars];
  for (int j = 0; j < n; ++j) x[j] = x_start[j];
  apply_elimination(x);  // the start on the eliminated rows
  double Kr[detail::kMaxKktDim][detail::kMaxKktDim];  // Tᵀ K T and its LU factors
  bool converged = false;
  for (int it = 0; it < 8 && !converged; ++it) {
    double F[detail::kMaxKktDim];
    for (int i = 0; i < q; ++i) {
      F[i] = 0.0;
      for (int j = 0; j < q; ++j) K[i][j] = 0.0;
    }
    F[kAlpha] = 1.0;  // c
    for (int a = 0; a < na; ++a) {  // active orthant rows: g_iᵀx − h_i = 0
      const double* g = k.G[act[a]];
      double gx = 0.0;
      for (int j = 0; j < n; ++j) {
        gx += g[j] * x[j];
        F[j] += y[a] * g[j];
        K[j][n + a] = K[n + a][j] = g[j];
      }
      F[n + a] = gx - k.h[act[a]];
    }
    for (int c = 0; c < k.soc_count; ++c) {
      if (state[c] == 0) continue;
      const int s0 = k.soc_start[c], d = k.soc_dim[c];
      // the cone's rows padded to 4 with zero rows (d = 3 or 4), so every loop below has
      // constant bounds and unrolls; a zero row adds nothing to ‖s̄‖, ūᵀḠ or the curvature
      double Gc[4][n], sv[4];
      for (int r = 0; r < 4; ++r) {
        const bool row = r < d;
        double gx = 0.0;
        for (int j = 0; j < n; ++j) {
          Gc[r][j] = row ? k.G[s0 + r][j] : 0.0;
          gx += Gc[r][j] * x[j];
        }
        sv[r] = row ? k.h[s0 + r] - gx : 0.0;
      }
      const int o = n + yoff[c];
      if (state[c] == 1) {  // boundary: ‖s̄‖ − s₀ = 0, multiplier ν
        const double nb = std::sqrt(sv[1] * sv[1] + sv[2] * sv[2] + sv[3] * sv[3]);
        if (!(nb > 0.0)) return false;
        double u[4];
        for (int r = 1; r < 4; ++r) u[r] = sv[r] / nb;
        const double nu = y[yoff[c]];
        double ug[kMaxConeVars];  // ūᵀḠ (per column)
        for (int j = 0; j < n; ++j) {
          const double v = u[1] * Gc[1][j] + u[2] * Gc[2][j] + u[3] * Gc[3][j];
          ug[j] = v;
          const double dj = Gc[0][j] - v;  // G_kᵀ(1, −ū)
          F[j] += nu * dj;
          K[j][o] = K[o][j] = dj;
        }
        F[o] = nb - sv[0];
        const double f = nu / nb;
        for (int a = 0; a < n; ++a)
          for (int b = 0; b <= a; ++b) {
            const double t = Gc[1][a] * Gc[1][b] + Gc[2][a] * Gc[2][b] + Gc[3][a] * Gc[3][b];
            const double v = f * (t - ug[a] * ug[b]);
            K[a][b] += v;
            if (b != a) K[b][a] += v;
          }
      } else {  // apex: s = 0, multiplier z_k
        for (int r = 0; r < d; ++r) {
          for (int j = 0; j < n; ++j) {
            F[j] += y[yoff[c] + r] * k.G[s0 + r][j];
            K[j][o + r] = K[o + r][j] = k.G[s0 + r][j];
          }
          F[o + r] = -sv[r];
        }
      }
    }
    if (ne == 0) {
      if (!detail::lu_factor(K, k.kkt_perm, q, 1e-11)) return false;
      for (int i = 0; i < q; ++i) F[i] = -F[i];
      detail::lu_solve(K, k.kkt_perm, q, F);
    } else {
      // Kr = Tᵀ K T, right side −Tᵀ F; K itself stays for the eliminated rows below
      double KT[detail::kMaxKktDim][detail::kMaxKktDim], Fr[detail::kMaxKktDim];
      for (int i = 0; i < q; ++i)
        for (int jr = 0; jr < qr; ++jr) KT[i][jr] = K[i][keep[jr]];
      for (int e = 0; e < ne; ++e)
        for (int t = 0; t < 2; ++t) {
          if (esrc[e][t] < 0) continue;
          const int jr = red[esrc[e][t]];
          const double c = ecoef[e][t];
          for (int i = 0; i < q; ++i) KT[i][jr] += c * K[i][ecol[e]];
        }
      for (int ir = 0; ir < qr; ++ir) {
        for (int jr = 0; jr < qr; ++jr) Kr[ir][jr] = KT[keep[ir]][jr];
        Fr[ir] = F[keep[ir]];
      }
      for (int e = 0; e < ne; ++e)
        for (int t = 0; t < 2; ++t) {
          if (esrc[e][t] < 0) continue;
          const int ir = red[esrc[e][t]];
          const double c = ecoef[e][t];
          for (int jr = 0; jr < qr; ++jr) Kr[ir][jr] += c * KT[ecol[e]][jr];
          Fr[ir] += c * F[ecol[e]];
        }
      if (!detail::lu_factor(Kr, k.kkt_perm, qr, 1e-11)) return false;
      for (int i = 0; i < qr; ++i) Fr[i] = -Fr[i];
      detail::lu_solve(Kr, k.kkt_perm, qr, Fr);
      // the full step: kept entries, eliminated slacks by T, then the eliminated rows'
      // multipliers from their slacks' stationarity rows (F + K Δ = 0 there)
      double D[detail::kMaxKktDim];
      for (int i = 0; i < q; ++i) D[i] = red[i] >= 0 ? Fr[red[i]] : 0.0;
      apply_elimination(D);
      for (int body = 0; body < 2; ++body) {
        const int e0 = gstart[body], ng = gsize[body];
        if (ng == 0) continue;
        double rhs[2];
        for (int t = 0; t < ng; ++t) {
          const int c = ecol[e0 + t];
          double v = -F[c];
          for (int j = 0; j < q; ++j) v -= K[c][j] * D[j];  // D is 0 on the unknown multipliers
          rhs[t] = v;
        }
        if (ng == 1) {
          D[n + eslot[e0]] = rhs[0] / K[ecol[e0]][n + eslot[e0]];
        } else {  // [K[c_t][n + slot_u]] (2×2, Bᵀ of the setup, det checked there) · steps = rhs
          const double a00 = K[ecol[e0]][n + eslot[e0]], a01 = K[ecol[e0]][n + eslot[e0 + 1]];
          const double a10 = K[ecol[e0 + 1]][n + eslot[e0]], a11 = K[ecol[e0 + 1]][n + eslot[e0 + 1]];
          const double det = a00 * a11 - a01 * a10;
          D[n + eslot[e0]] = (a11 * rhs[0] - a01 * rhs[1]) / det;
          D[n + eslot[e0 + 1]] = (a00 * rhs[1] - a10 * rhs[0]) / det;
        }
      }
      for (int i = 0; i < q; ++i) F[i] = D[i];
    }
    double step = 0.0;  // max |F|; a NaN entry makes it NaN (std::max would drop it)
    for (int j = 0; j < n; ++j) {
      x[j] += F[j];
      if (!(std::abs(F[j]) <= step)) step = std::abs(F[j]);
    }
    for (int i = 0; i < p; ++i) {
      y[i] += F[n + i];
      if (!(std::abs(F[n + i]) <= step)) step = std::abs(F[n + i]);
    }
    if (!std::isfinite(step)) return false;
    converged = linear || step <= 1e-9;
  }
  if (!converged || !(x[kAlpha] > 0.0)) return false;

  // Certificate: primal s = h − Gx ∈ K, dual z ∈ K, Gᵀz + c = 0, sᵀz = 0.
  double s[kMaxConeRows], z[kMaxConeRows];
  for (int i = 0; i < m; ++i) {
    double gx = 0.0;
    for (int j = 0; j < n; ++j) gx += k.G[i][j] * x[j];
    s[i] = k.h[i] - gx;
    z[i] = 0.0;
  }
  for (int a = 0; a < na; ++a) z[act[a]] = y[a];
  double pviol = 0.0, dviol = 0.0;
  for (int i = 0; i < l; ++i) {
    pviol = std::max(pviol, -s[i]);
    dviol = std::max(dviol, -z[i]);
  }
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    double sn = 0.0;
    for (int r = 1; r < d; ++r) sn += s[s0 + r] * s[s0 + r];
    sn = std::sqrt(sn);
    pviol = std::max(pviol, sn - s[s0]);
    if (state[c] == 1) {
      const double nu = y[yoff[c]];
      z[s0] = nu;
      for (int r = 1; r < d; ++r) z[s0 + r] = -nu * s[s0 + r] / sn;
      dviol = std::max(dviol, -nu);
    } else if (state[c] == 2) {
      double zn = 0.0;
      for (int r = 0; r < d; ++r) z[s0 + r] = y[yoff[c] + r];
      for (int r = 1; r < d; ++r) zn += z[s0 + r] * z[s0 + r];
      dviol = std::max(dviol, std::sqrt(zn) - z[s0]);
    }
  }
  // z is zero off the active orthant rows and the active cones: only those rows enter Gᵀz and sᵀz
  double rx[kMaxConeVars] = {}, gap = 0.0;
  rx[kAlpha] = 1.0;
  const auto add_row = [&](int i) {
    gap += s[i] * z[i];
    for (int j = 0; j < n; ++j) rx[j] += k.G[i][j] * z[i];
  };
  for (int a = 0; a < na; ++a) add_row(act[a]);
  for (int c = 0; c < k.soc_count; ++c)
    if (state[c] != 0)
      for (int r = 0; r < k.soc_dim[c]; ++r) add_row(k.soc_start[c] + r);
  double dres = 0.0;
  for (int j = 0; j < n; ++j) dres += rx[j] * rx[j];
  dres = std::sqrt(dres);
  const double pres = pviol / hnorm;
  const double tol = opt.feasibility_tolerance;
  if (!(pres <= tol) || !(dviol <= tol) || !(dres <= tol) ||
      !(std::abs(gap) <= std::max(opt.gap_tolerance, opt.gap_relative_tolerance * x[kAlpha])))
    return false;

  for (int j = 0; j < n; ++j) k.x[j] = x[j];
  for (int i = 0; i < m; ++i) {
    k.s[i] = s[i];
    k.z[i] = z[i];
  }
  for (int a = 0; a < na; ++a) k.active_rows[a] = act[a];
  k.active_count = na;
  for (int c = 0; c < 2; ++c) {
    k.soc_state[c] = c < k.soc_count ? state[c] : 0;
    k.soc_nu[c] = (c < k.soc_count && state[c] == 1) ? y[yoff[c]] : 0.0;
  }
  k.kkt_dim = qr;
  k.kkt_full_dim = q;
  k.elim_count = ne;
  for (int e = 0; e < ne; ++e) {
    k.elim_col[e] = ecol[e];
    k.elim_slot[e] = eslot[e];
    for (int t = 0; t < 2; ++t) {
      k.elim_src[e][t] = esrc[e][t];
      k.elim_coef[e][t] = ecoef[e][t];
    }
  }
  if (ne > 0)
    for (int i = 0; i < qr; ++i)
      for (int j = 0; j < qr; ++j) k.kkt_lu[i][j] = Kr[i][j];
  k.polished = true;
  out.mu = std::abs(gap) / (l + k.soc_count);
  out.pres = pres;
  out.dres = dres;
  return true;
}

template <int N>
bool start_active_set(const ConeKkt& k, const double* x0, double tau, ActiveSet& A) {
  constexpr int kMaxCandidates = 12, kMaxSubsets = 64;
  // the stationarity residual a subset smaller than the unknowns may leave (c = e_α has norm 1)
  constexpr double kSubsetResidual = 1e-6;
  constexpr int n = N;  // k.n, at compile time (the row products unroll)
  const int l = orthant_count(k);
  int cand[kMaxCandidates];
  int nc = 0;
  for (int i = 0; i < l; ++i) {
    double gx = 0.0;
    for (int j = 0; j < n; ++j) gx += k.G[i][j] * x0[j];
    if (k.h[i] - gx > tau) continue;
    if (nc == kMaxCandidates) return false;
    cand[nc++] = i;
  }
  double C[kMaxConeVars][kMaxConeVars];  // cone columns: G_kᵀ(1, −ū) (boundary) or G_kᵀ e_r (apex)
  int pc = 0;
  for (int c = 0; c < 2; ++c) A.state[c] = A.yoff[c] = 0;
  for (int c = 0; c < k.soc_count; ++c) {
    const int s0 = k.soc_start[c], d = k.soc_dim[c];
    double sv[4], sn = 0.0;
    for (int r = 0; r < d; ++r) {
      double gx = 0.0;
      for (int j = 0; j < n; ++j) gx += k.G[s0 + r][j] * x0[j];
      sv[r] = k.h[s0 + r] - gx;
      if (r > 0) sn += sv[r] * sv[r];
    }
    sn = std::sqrt(sn);
    if (sv[0] - sn > tau) continue;
    A.yoff[c] = pc;  // offset among the cone multipliers; shifted by the orthant count below
    if (sn > tau) {  // boundary
      if (pc == n) return false;
      A.state[c] = 1;
      for (int j = 0; j < n; ++j) {
        double v = k.G[s0][j];
        for (int r = 1; r < d; ++r) v -= sv[r] / sn * k.G[s0 + r][j];
        C[j][pc] = v;
      }
      ++pc;
    } else {  // apex: every row of the cone
      if (pc + d > n) return false;
      A.state[c] = 2;
      for (int r = 0; r < d; ++r, ++pc)
        for (int j = 0; j < n; ++j) C[j][pc] = k.G[s0 + r][j];
    }
  }
  // Orthant rows per subset: as many as the unknowns leave, then fewer. Rows through one point of
  // the (p, α) space are dependent beyond its dimension: a ball (a capsule's side, a padded
  // polygon's rim) on a polytope vertex where four or more faces meet has three independent face
  // rows, while the unknowns leave room for four (the capsule's γ is fixed by its cone, not by a
  // row). The smaller subsets are taken only where their least-squares stationarity holds.
  const int r_max = std::min(nc, n - pc);
  if (r_max + pc == 0) return false;
  int tried = 0;
  for (int r = r_max; r >= (pc > 0 ? 0 : 1); --r) {
    int pick[kMaxConeVars];
    for (int a = 0; a < r; ++a) pick[a] = a;
    for (; tried < kMaxSubsets; ++tried) {
      double B[kMaxConeVars][kMaxConeVars], y[kMaxConeVars];
      for (int a = 0; a < r; ++a)
        for (int j = 0; j < n; ++j) B[j][a] = k.G[cand[pick[a]]][j];
      for (int a = 0; a < pc; ++a)
        for (int j = 0; j < n; ++j) B[j][r + a] = C[j][a];
      bool ok = stationarity_multipliers<N>(B, r + pc, y);
      for (int a = 0; a < r && ok; ++a) ok = y[a] >= -1e-9;
      for (int c = 0; c < k.soc_count && ok; ++c) ok = A.state[c] != 1 || y[r + A.yoff[c]] >= -1e-9;
      if (ok && r < r_max) {  // the smaller subsets: the residual of c + B y = 0
        for (int j = 0; j < n && ok; ++j) {
          double v = j == 3 ? 1.0 : 0.0;
          for (int a = 0; a < r + pc; ++a) v += B[j][a] * y[a];
          ok = std::abs(v) <= kSubsetResidual;
        }
      }
      if (ok) {
        A.na = r;
        for (int a = 0; a < r; ++a) A.act[a] = cand[pick[a]];
        for (int c = 0; c < k.soc_count; ++c) A.yoff[c] += r;
        for (int a = 0; a < r + pc; ++a) A.y[a] = y[a];
        A.p = r + pc;
        return true;
      }
      // next combination of r out of nc
      int a = r - 1;
      while (a >= 0 && pick[a] == nc - r + a) --a;
      if (a < 0) break;
      ++pick[a];
      for (int b2 = a + 1; b2 < r; ++b2) pick[b2] = pick[b2 - 1] + 1;
    }
    if (tried >= kMaxSubsets) return false;
    if (r + pc < n) return false;  // one size below the square sets at most
  }
  return false;
}

#define DIFFCOL_DCOL_POLISH_INSTANCES(N)                                                                  \
  template bool polish_newton<N>(ConeKkt&, const SolveOptions&, double, IpmOutcome&, ActiveSet&, const double*); \
  template bool start_active_set<N>(const ConeKkt&, const double*, double, ActiveSet&);
DIFFCOL_DCOL_POLISH_INSTANCES(4)
DIFFCOL_DCOL_POLISH_INSTANCES(5)
DIFFCOL_DCOL_POLISH_INSTANCES(6)
DIFFCOL_DCOL_POLISH_INSTANCES(7)
DIFFCOL_DCOL_POLISH_INSTANCES(8)
#undef DIFFCOL_DCOL_POLISH_INSTANCES

}  // namespace diffcol::dcol::detail
