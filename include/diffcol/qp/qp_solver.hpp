#pragma once
/// @file qp_solver.hpp
/// Small dense convex QPs  minimize ½xᵀPx + cᵀx  subject to  Gx ≤ h  (seed eq. (1)), as they arise
/// in the DiffPills proximity problems (N ≤ 4 variables, a few dozen constraints):
///  - solve_box_qp_2d: the two-variable box active-set method (Appendix A, Algorithms 4–5) for
///    0 ≤ x ≤ 1, x ∈ R² (capsule–capsule);
///  - solve_qp: a primal–dual interior-point method with Mehrotra predictor–corrector (Sec. II-B,
///    eq. (7)–(9)), the Newton systems (41) reduced to one Cholesky factorization of
///    P + GᵀD(λ/s)G per iteration (Algorithm 6), followed by an active-set "polish".
///
/// Both return, besides x and λ, the sensitivity matrix S of the solution: for a perturbation
/// of the problem data (P, c) with G, h fixed, dx = −S·(dP·x + dc). This is the solution of the
/// derivative system (17) at strict complementarity, written in null-space form: with A the
/// active set and Z a basis of null(G_A), S = Z (ZᵀPZ)⁺ Zᵀ (inactive constraints have dλ = 0,
/// active ones keep G_A dx = 0). The proximity problems only perturb P and c (their G and h are
/// body-frame constants), so this is all (13)–(16) are needed for.
///
/// Storage is fixed-size (Eigen matrices with compile-time maximum sizes): nothing is allocated.
/// Solver failures are reported in SolveStatus; no exception is thrown by a solve.

#include <algorithm>
#include <cstdint>

#include <Eigen/Core>

#include "diffcol/status.hpp"

namespace diffcol::qp {

/// Statuses (diffcol::SolveStatus, status.hpp): ok (KKT residuals and duality gap below tolerance),
/// not_converged (iteration limit reached: the fields hold the last, finite, iterate),
/// numerical_error (the Newton matrix was not positive definite or a step was not finite: the last
/// finite iterate), invalid_input (non-finite problem data, m > MaxM or m < 0, or QpOptions out of
/// range, QpOptions::validate; x = 0, λ = 0).

/// Interior-point settings.
struct QpOptions {
  /// Termination: ‖Px + c + Gᵀλ‖∞ ≤ tol·(1 + ‖c‖∞ + ‖P‖∞), ‖Gx + s − h‖∞ ≤ tol·(1 + ‖h‖∞),
  /// and the mean complementarity μ = sᵀλ/m ≤ tol·(1 + |½xᵀPx + cᵀx|).
  double tolerance = 1e-10;
  int max_iterations = 50;
  double step_fraction = 0.99;  ///< fraction of the step to the boundary of s, λ > 0
  /// γ of the central-path neighbourhood min_i s_iλ_i ≥ γ·μ kept by backtracking the step
  /// (a safeguard against Mehrotra cycling on nearly degenerate problems); from a point
  /// outside it, the step keeps at least half the current ratio min_i s_iλ_i/μ.
  double centrality = 1e-2;
  /// After convergence, identify the active set (λ_i > s_i) and solve its KKT system exactly
  /// (null-space method); kept if the result is primal and dual feasible to 1e-9 (relative).
  /// Makes x exact to round-off instead of O(μ) and S exact.
  bool polish = true;
  /// Eigenvalues of ZᵀPZ below this fraction of max(diag P, 1e-300) count as zero: the
  /// minimizer is then not unique (QpSolution::unique = false) and S uses the pseudo-inverse.
  double singular_tolerance = 1e-12;

  /// @throws std::invalid_argument naming the first field out of range: tolerance in [1e-14, 1e-3],
  /// max_iterations in [1, 100000], step_fraction in (0, 1], centrality in [0, 1),
  /// singular_tolerance in [0, 1e-3].
  void validate() const;
  /// The same test without throwing (solve_qp returns status invalid_input when it fails).
  bool is_valid() const noexcept;

 private:
  const char* invalid_field() const noexcept;
};

/// The QP data with N variables and at most MaxM inequality constraints.
template <int N, int MaxM>
struct QpProblem {
  using MatN = Eigen::Matrix<double, N, N>;
  using VecN = Eigen::Matrix<double, N, 1>;
  using MatG = Eigen::Matrix<double, Eigen::Dynamic, N, Eigen::RowMajor, MaxM, N>;
  using VecM = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, MaxM, 1>;
  MatN P = MatN::Zero();  ///< symmetric positive semidefinite
  VecN c = VecN::Zero();
  MatG G;                 ///< m×N, m ≤ MaxM; P + GᵀG must be positive definite (bounded feasible set)
  VecM h;                 ///< m
  int m() const { return static_cast<int>(G.rows()); }
};

/// Solution of a QpProblem<N, MaxM>. Every field is always set.
template <int N, int MaxM>
struct QpSolution {
  using MatN = Eigen::Matrix<double, N, N>;
  using VecN = Eigen::Matrix<double, N, 1>;
  using VecM = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, MaxM, 1>;
  SolveStatus status = SolveStatus::invalid_input;
  int iterations = 0;        ///< interior-point iterations (0 for the active-set solver)
  bool polished = false;     ///< x solves the KKT system of the identified active set exactly
  bool unique = false;       ///< ZᵀPZ is positive definite: the minimizer is unique
  VecN x = VecN::Zero();     ///< primal solution
  VecM lambda;               ///< multipliers λ ≥ 0 (m entries)
  VecM slack;                ///< h − Gx (m entries)
  std::uint64_t active = 0;  ///< bit i: constraint i is in the active set used for S (i < 64)
  double objective = 0.0;    ///< ½xᵀPx + cᵀx
  double dual_residual = 0.0;    ///< ‖Px + c + Gᵀλ‖∞ at the returned point
  double primal_residual = 0.0;  ///< ‖max(Gx − h, 0)‖∞ at the returned point
  double gap = 0.0;              ///< sᵀλ/m at the last interior-point iterate (0 after a polish)
  MatN S = MatN::Zero();     ///< sensitivity: dx = −S·(dP·x + dc) (see the file comment)
  /// Columns 0 … null_count−1: an orthonormal basis of the directions along which the minimizer
  /// is not unique (null space of P within null(G_A)); null_count = 0 when unique.
  MatN null_directions = MatN::Zero();
  int null_count = 0;
};

/// Two-variable box QP of Appendix A, eq. (40): 0 ≤ x ≤ 1, G = [I; −I], h = (1, 1, 0, 0).
/// Multipliers ordered as the rows of G: λ = (x1 ≤ 1, x2 ≤ 1, −x1 ≤ 0, −x2 ≤ 0) (Algorithm 5).
struct BoxQp2Solution {
  Eigen::Vector2d x = Eigen::Vector2d::Zero();
  Eigen::Vector4d lambda = Eigen::Vector4d::Zero();
  bool interior = false;  ///< the unconstrained minimizer was feasible (line 3 of Algorithm 4)
  bool unique = true;     ///< false if P is singular (to singular_tolerance) on the free variables
  int free_count = 0;     ///< number of variables strictly inside (0, 1) treated as free
  Eigen::Matrix2d S = Eigen::Matrix2d::Zero();  ///< sensitivity, as QpSolution::S
};

/// The minimizer of Algorithm 4 only (no multipliers, no sensitivity): see solve_box_qp_2d.
inline Eigen::Vector2d solve_box_qp_2d_primal(const Eigen::Matrix2d& P, const Eigen::Vector2d& c, double det,
                                              double singular_tolerance = 1e-12) {
  const double P11 = P(0, 0), P12 = P(0, 1), P22 = P(1, 1);
  if (det > singular_tolerance * P11 * P22 && det > 0.0) {
    const Eigen::Vector2d x((P12 * c(1) - P22 * c(0)) / det, (P12 * c(0) - P11 * c(1)) / det);
    if (x(0) >= 0.0 && x(0) <= 1.0 && x(1) >= 0.0 && x(1) <= 1.0) return x;  // line 3
  }
  // Minimizer over t ∈ [0, 1] of ½·a·t² + b·t (a ≥ 0); a constant cost gives ½.
  auto clamped = [](double a, double b) {
    if (a > 0.0) return std::min(std::max(-b / a, 0.0), 1.0);  // ±inf from a tiny a clamps too
    return b < 0.0 ? 1.0 : (b > 0.0 ? 0.0 : 0.5);
  };
  auto cost = [&](double x1, double x2) {
    return 0.5 * (P11 * x1 * x1 + 2.0 * P12 * x1 * x2 + P22 * x2 * x2) + c(0) * x1 + c(1) * x2;
  };
  // Lines 6–14: the four edges; each clamped 1-D minimization also covers the corners.
  Eigen::Vector2d best(0.0, clamped(P22, c(1)));
  double best_cost = cost(best(0), best(1));
  const double t1 = clamped(P22, c(1) + P12);
  double f = cost(1.0, t1);
  if (f < best_cost) best_cost = f, best = Eigen::Vector2d(1.0, t1);
  const double t2 = clamped(P11, c(0));
  f = cost(t2, 0.0);
  if (f < best_cost) best_cost = f, best = Eigen::Vector2d(t2, 0.0);
  const double t3 = clamped(P11, c(0) + P12);
  f = cost(t3, 1.0);
  if (f < best_cost) best_cost = f, best = Eigen::Vector2d(t3, 1.0);
  return best;
}

/// Algorithm 4 (+ Algorithm 5 for λ) for P ⪰ 0 (2×2, symmetric), c ∈ R².
/// If the unconstrained minimizer exists (det P > singular_tolerance·P11·P22) and lies in the
/// box it is returned; otherwise the four edges (one variable fixed at 0 or 1, the other
/// minimized in 1-D and clamped to [0, 1], which also covers the four corners) are compared by
/// cost and the cheapest (first in the order x1 = 0, x1 = 1, x2 = 0, x2 = 1) is returned.
/// Singular P (parallel segments, zero-length segments) needs no special case: a linear or
/// constant 1-D cost picks its minimizing end (or ½ when constant); the result is always finite.
/// @param det optional accurately computed det P (e.g. ‖u1 × u2‖² for segments); negative = compute
/// P11·P22 − P12². No allocation; inputs are assumed finite (the caller validates).
BoxQp2Solution solve_box_qp_2d(const Eigen::Matrix2d& P, const Eigen::Vector2d& c, double det = -1.0,
                               double singular_tolerance = 1e-12);

/// Multipliers (Algorithm 5), sensitivity and flags of the box QP at a given minimizer x
/// (e.g. one found by a specialized method); what solve_box_qp_2d returns for its own x.
BoxQp2Solution box_qp_2d_solution_at(const Eigen::Matrix2d& P, const Eigen::Vector2d& c, const Eigen::Vector2d& x,
                                     double det = -1.0, double singular_tolerance = 1e-12);

/// Primal–dual interior-point solve of a QpProblem (see the file comment and QpOptions).
template <int N, int MaxM>
void solve_qp(const QpProblem<N, MaxM>& problem, const QpOptions& options, QpSolution<N, MaxM>& out);

/// Convenience returning by value.
template <int N, int MaxM>
QpSolution<N, MaxM> solve_qp(const QpProblem<N, MaxM>& problem, const QpOptions& options = {}) {
  QpSolution<N, MaxM> out;
  solve_qp(problem, options, out);
  return out;
}

// Instantiated in the library (src/qp/qp_solver_NxM.cpp, one file each) for the DiffPills sizes:
// capsule–capsule <2, 4>, capsule–polygon <3, 2 + kMaxPolygonEdges>, polygon–polygon
// <4, 2·kMaxPolygonEdges>.
extern template void solve_qp<2, 4>(const QpProblem<2, 4>&, const QpOptions&, QpSolution<2, 4>&);
extern template void solve_qp<3, 18>(const QpProblem<3, 18>&, const QpOptions&, QpSolution<3, 18>&);
extern template void solve_qp<4, 32>(const QpProblem<4, 32>&, const QpOptions&, QpSolution<4, 32>&);

}  // namespace diffcol::qp
