// The primal-dual interior-point QP solver (Sec. II-B): solve_qp's definition, included by one
// translation unit per size it is instantiated for (qp_solver_2x4.cpp, qp_solver_3x18.cpp,
// qp_solver_4x32.cpp). In one file the three instantiations took GCC 45 s together against 10-12 s
// each alone. Internal to src/qp/.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <Eigen/Cholesky>

#include "diffcol/qp/qp_solver.hpp"

namespace diffcol::qp {

namespace {

// Smallest entry (a plain loop: GCC 12 warns falsely on Eigen's vectorized minCoeff of
// fixed-capacity vectors).
template <class V>
double min_entry(const V& v) {
  double a = std::numeric_limits<double>::infinity();
  for (int i = 0; i < v.size(); ++i) a = std::min(a, v(i));
  return a;
}

// Largest α ∈ (0, ∞] with v + α·dv ≥ 0 (v > 0).
template <class V>
double max_step(const V& v, const V& dv) {
  double a = std::numeric_limits<double>::infinity();
  for (int i = 0; i < v.size(); ++i)
    if (dv(i) < 0.0) a = std::min(a, -v(i) / dv(i));
  return a;
}

// Eigen-decomposition of the symmetric leading n×n block of A (n ≤ N) by cyclic Jacobi rotations:
// eigenvalues ascending in w, orthonormal eigenvectors in the columns of V. For the small Gram
// and reduced-Hessian matrices here (n ≤ 4) it is as accurate as Eigen's SelfAdjointEigenSolver
// and compiles far faster.
template <int N>
void symmetric_eigen(Eigen::Matrix<double, N, N> A, int n, Eigen::Matrix<double, N, 1>& w,
                     Eigen::Matrix<double, N, N>& V) {
  V.setIdentity();
  for (int sweep = 0; sweep < 32; ++sweep) {
    double off = 0.0, total = 0.0;
    for (int i = 0; i < n; ++i) {
      total += A(i, i) * A(i, i);
      for (int j = 0; j < i; ++j) off += A(i, j) * A(i, j);
    }
    if (!(off > 1e-36 * (total + 2.0 * off))) break;
    for (int p = 0; p < n; ++p) {
      for (int q = p + 1; q < n; ++q) {
        const double apq = A(p, q);
        if (apq == 0.0) continue;
        const double theta = (A(q, q) - A(p, p)) / (2.0 * apq);
        const double t = std::abs(theta) > 1e100 ? 0.5 / theta
                                                 : std::copysign(1.0, theta) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), sn = t * c;
        for (int k = 0; k < n; ++k) {  // A ← A·P
          const double akp = A(k, p), akq = A(k, q);
          A(k, p) = c * akp - sn * akq;
          A(k, q) = sn * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {  // A ← Pᵀ·A
          const double apk = A(p, k), aqk = A(q, k);
          A(p, k) = c * apk - sn * aqk;
          A(q, k) = sn * apk + c * aqk;
        }
        A(p, q) = A(q, p) = 0.0;
        for (int k = 0; k < n; ++k) {  // V ← V·P
          const double vkp = V(k, p), vkq = V(k, q);
          V(k, p) = c * vkp - sn * vkq;
          V(k, q) = sn * vkp + c * vkq;
        }
      }
    }
  }
  for (int i = 0; i < N; ++i) w(i) = i < n ? A(i, i) : 0.0;
  for (int i = 0; i < n; ++i) {  // selection sort, ascending
    int best = i;
    for (int j = i + 1; j < n; ++j)
      if (w(j) < w(best)) best = j;
    if (best != i) {
      std::swap(w(i), w(best));
      V.col(i).swap(V.col(best));
    }
  }
}

// The active-set KKT system in null-space form (the polish and the sensitivity S).
// Returns false if the candidate point is not primal/dual feasible.
template <int N, int MaxM>
bool active_set_solve(const QpProblem<N, MaxM>& pb, const QpOptions& opt, std::uint64_t active,
                      const Eigen::Matrix<double, N, 1>& x_start, QpSolution<N, MaxM>& out,
                      Eigen::Matrix<double, N, 1>& x_new, Eigen::Matrix<double, Eigen::Dynamic, 1, 0, MaxM, 1>& lam_new,
                      int& drop, int& add) {
  using MatN = Eigen::Matrix<double, N, N>;
  using VecN = Eigen::Matrix<double, N, 1>;
  const int m = pb.m();
  // Gram matrix of the active rows, its pseudo-inverse and null space.
  MatN GtG = MatN::Zero();
  for (int i = 0; i < m; ++i)
    if (active >> i & 1u) GtG.noalias() += pb.G.row(i).transpose() * pb.G.row(i);
  VecN ge;
  MatN gv;
  symmetric_eigen<N>(GtG, N, ge, gv);
  const double gmax = std::max(ge(N - 1), 0.0);
  MatN GtG_pinv = MatN::Zero();
  Eigen::Matrix<double, N, Eigen::Dynamic, 0, N, N> Z(N, 0);
  int k = 0;
  for (int j = 0; j < N; ++j) k += !(ge(j) > 1e-10 * gmax && gmax > 0.0);
  Z.resize(N, k);
  for (int j = 0, z = 0; j < N; ++j) {
    const double e = ge(j);
    if (e > 1e-10 * gmax && gmax > 0.0)
      GtG_pinv.noalias() += gv.col(j) * gv.col(j).transpose() / e;
    else
      Z.col(z++) = gv.col(j);
  }
  // Particular solution of G_A x = h_A closest to x_start.
  VecN corr = VecN::Zero();
  for (int i = 0; i < m; ++i)
    if (active >> i & 1u) corr += pb.G.row(i).transpose() * (pb.h(i) - pb.G.row(i).dot(x_start));
  const VecN xp = x_start + GtG_pinv * corr;
  // Reduced Hessian ZᵀPZ and S = Z (ZᵀPZ)⁺ Zᵀ.
  out.S.setZero();
  out.null_directions.setZero();
  out.null_count = 0;
  if (k > 0) {
    MatN H = MatN::Zero();
    H.topLeftCorner(k, k) = Z.transpose() * pb.P * Z;
    VecN he;
    MatN hv;
    symmetric_eigen<N>(H, k, he, hv);
    const double pscale = std::max(pb.P.diagonal().maxCoeff(), 1e-300);
    for (int j = 0; j < k; ++j) {
      const VecN v = Z * hv.col(j).head(k);
      const double e = he(j);
      if (e > opt.singular_tolerance * pscale)
        out.S.noalias() += v * v.transpose() / e;
      else
        out.null_directions.col(out.null_count++) = v;
    }
  }
  out.unique = out.null_count == 0;
  x_new = xp - out.S * (pb.P * xp + pb.c);
  // Multipliers: least-squares solution of G_Aᵀλ_A = −(Px + c).
  const VecN g = pb.P * x_new + pb.c;
  const VecN w = GtG_pinv * g;
  lam_new.setZero(m);
  const double cscale = 1.0 + pb.c.cwiseAbs().maxCoeff() + pb.P.cwiseAbs().maxCoeff();
  const double hscale = 1.0 + (m > 0 ? pb.h.cwiseAbs().maxCoeff() : 0.0);
  bool ok = true;
  VecN stat = g;
  drop = add = -1;
  double worst_lam = -1e-12 * cscale, worst_viol = 1e-12 * hscale;
  for (int i = 0; i < m; ++i) {
    if (active >> i & 1u) {
      lam_new(i) = -pb.G.row(i).dot(w);
      if (lam_new(i) < worst_lam) worst_lam = lam_new(i), drop = i, ok = false;
      lam_new(i) = std::max(lam_new(i), 0.0);
      stat += pb.G.row(i).transpose() * lam_new(i);
    } else {
      const double viol = pb.G.row(i).dot(x_new) - pb.h(i);
      if (viol > worst_viol) worst_viol = viol, add = i, ok = false;
    }
  }
  ok = ok && stat.cwiseAbs().maxCoeff() <= 1e-9 * cscale && x_new.allFinite();
  return ok;
}

}  // namespace

template <int N, int MaxM>
void solve_qp(const QpProblem<N, MaxM>& pb, const QpOptions& opt, QpSolution<N, MaxM>& out) {
  using MatN = Eigen::Matrix<double, N, N>;
  using VecN = Eigen::Matrix<double, N, 1>;
  using VecM = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, MaxM, 1>;
  const int m = pb.m();
  out.status = SolveStatus::invalid_input;
  out.iterations = 0;
  out.polished = false;
  out.unique = false;
  out.x.setZero();
  out.active = 0;
  out.objective = out.dual_residual = out.primal_residual = out.gap = 0.0;
  out.S.setZero();
  out.null_directions.setZero();
  out.null_count = 0;
  if (m < 1 || m > MaxM || m > 64 || pb.h.size() != m || !opt.is_valid()) {
    out.lambda.setZero(std::clamp(m, 0, MaxM));
    out.slack.setZero(std::clamp(m, 0, MaxM));
    return;
  }
  out.lambda.setZero(m);
  out.slack.setZero(m);
  if (!pb.P.allFinite() || !pb.c.allFinite() || !pb.G.allFinite() || !pb.h.allFinite()) return;

  const double cscale = 1.0 + pb.c.cwiseAbs().maxCoeff() + pb.P.cwiseAbs().maxCoeff();
  const double hscale = 1.0 + pb.h.cwiseAbs().maxCoeff();
  const auto& G = pb.G;

  // Start (W = I): minimize ½xᵀPx + cᵀx + ½‖Gx − h‖², then shift s, λ into the positive orthant.
  Eigen::LLT<MatN> llt(pb.P + G.transpose() * G);
  if (llt.info() != Eigen::Success) {
    out.status = SolveStatus::numerical_error;
    return;
  }
  VecN x = llt.solve(G.transpose() * pb.h - pb.c);
  VecM s = pb.h - G * x;
  VecM lam = -s;
  const double a_p = -min_entry(s);
  if (a_p >= 0.0) s.array() += 1.0 + a_p;
  const double a_d = -min_entry(lam);
  if (a_d >= 0.0) lam.array() += 1.0 + a_d;

  VecM rp(m), v2(m), W(m), ds(m), dl(m), ds_aff(m), dl_aff(m);
  VecN rx, dx;
  // One Newton solve of (41): P dx + Gᵀdλ = v1, λ∘ds + s∘dλ = v2, G dx + ds = v3 (Algorithm 6).
  auto newton = [&](const VecN& v1, const VecM& v2_, const VecM& v3) {
    dx = llt.solve(v1 - G.transpose() * (v2_.cwiseQuotient(s) - W.cwiseProduct(v3)));
    ds = v3 - G * dx;
    dl = (v2_ - lam.cwiseProduct(ds)).cwiseQuotient(s);
  };

  SolveStatus status = SolveStatus::not_converged;
  double mu = 0.0;
  for (int it = 0;; ++it) {
    rx = pb.P * x + pb.c + G.transpose() * lam;
    rp = G * x + s - pb.h;
    mu = s.dot(lam) / m;
    const double obj = 0.5 * x.dot(pb.P * x) + pb.c.dot(x);
    if (rx.cwiseAbs().maxCoeff() <= opt.tolerance * cscale && rp.cwiseAbs().maxCoeff() <= opt.tolerance * hscale &&
        mu <= opt.tolerance * (1.0 + std::abs(obj))) {
      status = SolveStatus::ok;
      break;
    }
    if (it >= opt.max_iterations) break;
    // Factor P + Gᵀ D(λ/s) G once; both steps reuse it.
    W = lam.cwiseQuotient(s);
    MatN M = pb.P + G.transpose() * W.asDiagonal() * G;
    llt.compute(M);
    if (llt.info() != Eigen::Success) {
      // Positive definite in exact arithmetic (G has full column rank, W > 0) but W spans many
      // orders of magnitude near convergence: retry with a tiny diagonal shift.
      M.diagonal().array() += 1e-14 * M.diagonal().cwiseAbs().maxCoeff() + 1e-300;
      llt.compute(M);
    }
    if (llt.info() != Eigen::Success) {
      status = SolveStatus::numerical_error;
      break;
    }
    // Affine (predictor) step, eq. (7).
    const VecN v1 = -rx;
    const VecM v3 = -rp;
    v2 = -s.cwiseProduct(lam);
    newton(v1, v2, v3);
    ds_aff = ds;
    dl_aff = dl;
    const double a_aff = std::min({1.0, max_step(s, ds_aff), max_step(lam, dl_aff)});
    const double mu_aff = (s + a_aff * ds_aff).dot(lam + a_aff * dl_aff) / m;
    const double sigma = std::pow(std::clamp(mu_aff / mu, 0.0, 1.0), 3);
    // Centering–corrector, eq. (8), combined with the predictor in one solve.
    v2 = -s.cwiseProduct(lam) - ds_aff.cwiseProduct(dl_aff);
    v2.array() += sigma * mu;
    newton(v1, v2, v3);
    double a = std::min(1.0, opt.step_fraction * std::min(max_step(s, ds), max_step(lam, dl)));
    // Stay in the neighbourhood min(s∘λ) ≥ γ·μ of the central path (long-step safeguard): without
    // it Mehrotra steps can cycle on nearly degenerate instances (a witness point near a sharp
    // polygon vertex).
    // Never ask for more centrality than the current point has (else α → 0 and the method stalls).
    double cur_min = std::numeric_limits<double>::infinity();
    for (int i = 0; i < m; ++i) cur_min = std::min(cur_min, s(i) * lam(i));
    const double gamma = std::min(opt.centrality, 0.5 * cur_min / mu);
    for (int back = 0; back < 40; ++back) {
      double mn = std::numeric_limits<double>::infinity(), sum = 0.0;
      for (int i = 0; i < m; ++i) {
        const double p = (s(i) + a * ds(i)) * (lam(i) + a * dl(i));
        mn = std::min(mn, p);
        sum += p;
      }
      if (mn >= gamma * sum / m) break;
      a *= 0.8;
    }
    if (!(dx.allFinite() && ds.allFinite() && dl.allFinite()) || !(a > 0.0)) {
      status = SolveStatus::numerical_error;
      break;
    }
    x += a * dx;
    s += a * ds;
    lam += a * dl;
    out.iterations = it + 1;
  }

  out.status = status;
  out.gap = mu;
  out.x = x;
  out.lambda = lam;
  // Active set: λ_i > s_i (strict complementarity separates them at convergence).
  std::uint64_t active = 0;
  for (int i = 0; i < m; ++i)
    if (lam(i) > s(i)) active |= std::uint64_t{1} << i;
  VecN x_new;
  VecM lam_new;
  int drop = -1, add = -1;
  bool ok = active_set_solve(pb, opt, active, x, out, x_new, lam_new, drop, add);
  if (status == SolveStatus::ok && opt.polish && !ok) {
    // Weakly active constraints (s_i, λ_i both small) can be misclassified: a few primal
    // active-set corrections from the interior-point iterate (drop the most negative
    // multiplier, else add the most violated constraint).
    auto corrected = [&](std::uint64_t trial, std::uint64_t& found) {
      bool good = active_set_solve(pb, opt, trial, x, out, x_new, lam_new, drop, add);
      for (int attempt = 0; attempt < 2 * N + 4 && !good; ++attempt) {
        if (drop >= 0)
          trial &= ~(std::uint64_t{1} << drop);
        else if (add >= 0)
          trial |= std::uint64_t{1} << add;
        else
          break;
        good = active_set_solve(pb, opt, trial, x, out, x_new, lam_new, drop, add);
      }
      if (good) found = trial;
      return good;
    };
    std::uint64_t found = active;
    ok = corrected(active, found);
    // Nearly touching cores have multipliers as small as the slacks (λ ∝ the distance): then
    // classify by the slack alone (s_i small against the data's scale).
    if (!ok) {
      std::uint64_t by_slack = 0;
      for (int i = 0; i < m; ++i)
        if (s(i) <= 1e-6 * hscale) by_slack |= std::uint64_t{1} << i;
      if (by_slack != active) ok = corrected(by_slack, found);
    }
    if (ok) {
      active = found;
      active_set_solve(pb, opt, active, x, out, x_new, lam_new, drop, add);
    } else {  // keep S of the interior-point active set
      active_set_solve(pb, opt, active, x, out, x_new, lam_new, drop, add);
    }
  }
  out.active = active;
  if (status == SolveStatus::ok && opt.polish && ok) {
    out.x = x_new;
    out.lambda = lam_new;
    out.polished = true;
    out.gap = 0.0;
  }
  out.slack = pb.h - G * out.x;
  out.objective = 0.5 * out.x.dot(pb.P * out.x) + pb.c.dot(out.x);
  out.dual_residual = (pb.P * out.x + pb.c + G.transpose() * out.lambda).cwiseAbs().maxCoeff();
  out.primal_residual = std::max(0.0, -min_entry(out.slack));
}

}  // namespace diffcol::qp
