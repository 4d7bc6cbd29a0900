#pragma once
/// @file contact_batch.hpp
/// Batched iDCOL contact queries: many pairs of shapes (any mix of types) at many poses per call,
/// spread over a persistent thread pool, with per-pair warm starts kept across calls.
///
/// Layout
/// ------
/// A ContactBatch holds P pairs (one idcol::ContactPair each). One call of solve() takes T steps
/// of poses for every pair, stored step-major: the poses of pair p at step t are
/// X_W1[t·P + p] and X_W2[t·P + p] (world poses of body 1 and body 2, as for idcol::solve_contact),
/// and the results use the same index. T = 1 is one simulation step; T > 1 is, e.g., a rollout.
///
/// Schedules (chosen by options().solve.warm_start)
/// ------------------------------------------------
///  - warm_start = true: each pair is solved at steps 0, 1, …, T−1 in order with
///    ContactPair::solve, so every solve starts from the same pair's previous solution (of the
///    previous step, or of the last step of the previous call). Pairs are spread over the threads;
///    the steps of one pair run in sequence on one thread. Use for simulation and MPC rollouts.
///  - warm_start = false: every (step, pair) query is independent (a cold idcol::solve_contact);
///    all T·P queries are spread over the threads. Use for sweeps and data sets. The pairs'
///    warm-start state is neither used nor changed.
///
/// Results are bit-for-bit those of the one-by-one calls (ContactPair::solve in step order per
/// pair, resp. idcol::solve_contact, then idcol::contact_derivatives), whatever the number of
/// threads: each query writes only its own outputs (tests/test_batch.cpp checks this).
///
/// Cost: solve() allocates only when the result grid (T·P) grows beyond any earlier call's; the
/// per-query work allocates nothing. Waking the workers costs some microseconds per call, so give
/// each call at least a few dozen queries for the threads to pay off.
///
/// Thread safety: one ContactBatch must not be used from two threads at once (solve() and the
/// accessors). Different ContactBatch objects are independent (each owns its pool).

#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "diffcol/batch/thread_pool.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"

namespace diffcol::batch {

/// Settings of a ContactBatch.
struct BatchOptions {
  int num_threads = 0;             ///< threads per call, the caller included; 0 = available_cores()
  idcol::SolveOptions solve;       ///< solver settings of every pair; solve.warm_start picks the schedule
  bool derivatives = false;        ///< also compute idcol::contact_derivatives for every query
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twist of the derivatives' X1 / X2 columns
};

class ContactBatch {
 public:
  /// An empty batch (add pairs with add_pair()).
  /// @throws std::invalid_argument if options.num_threads < 0 (see ThreadPool).
  explicit ContactBatch(BatchOptions options = {});
  /// A batch of the given (shape 1, shape 2) pairs, in that order (pair index = position).
  ContactBatch(const std::vector<std::pair<Shape, Shape>>& pairs, BatchOptions options = {});

  /// Appends a pair (cold, no warm-start state) and returns its index. Clears the results of the
  /// last solve() (their layout depends on the number of pairs).
  int add_pair(Shape shape1, Shape shape2);
  int num_pairs() const { return static_cast<int>(pairs_.size()); }
  int num_threads() const { return pool_->num_threads(); }

  const BatchOptions& options() const { return options_; }
  /// Replaces the solver settings of every pair (warm-start state is kept).
  void set_solve_options(const idcol::SolveOptions& solve);
  void set_derivatives(bool on) { options_.derivatives = on; }

  /// Solves every pair at num_steps steps of poses (layout and schedule: see the file comment).
  /// A non-finite pose gives that query status invalid_input (no exception).
  /// @throws std::invalid_argument if num_steps < 0 or X_W1, X_W2 do not both hold
  ///         num_steps·num_pairs() poses.
  void solve(std::span<const Pose> X_W1, std::span<const Pose> X_W2, long num_steps = 1);

  /// Steps of the last solve() (0 before the first).
  long num_steps() const { return steps_; }
  /// Result of pair `pair` at step `step` of the last solve().
  /// @throws std::out_of_range for an index outside the last solve's grid.
  const idcol::ContactSolution& solution(long step, int pair) const;
  /// Derivatives of solution(step, pair).
  /// @throws std::out_of_range as solution(); std::logic_error if the last solve() computed no
  ///         derivatives (options().derivatives was false).
  const idcol::ContactDerivatives& derivatives(long step, int pair) const;
  /// All results of the last solve(), index t·P + p.
  std::span<const idcol::ContactSolution> solutions() const {
    return {solutions_.data(), static_cast<size_t>(steps_ * num_pairs())};
  }
  /// All derivatives of the last solve() (empty if it computed none), index t·P + p.
  std::span<const idcol::ContactDerivatives> all_derivatives() const {
    return {derivatives_.data(), has_derivatives_ ? static_cast<size_t>(steps_ * num_pairs()) : size_t{0}};
  }
  /// Whether the last solve() computed derivatives.
  bool has_derivatives() const { return has_derivatives_; }

  /// The pair with index i (its shapes, options and warm-start state).
  /// @throws std::out_of_range for a bad index.
  const idcol::ContactPair& pair(int i) const;
  /// Forgets every pair's warm start: the next warm-started solve() starts cold.
  void reset_warm_start();

 private:
  size_t checked_index(long step, int pair) const;

  BatchOptions options_;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<idcol::ContactPair> pairs_;
  std::vector<idcol::ContactSolution> solutions_;
  std::vector<idcol::ContactDerivatives> derivatives_;
  long steps_ = 0;
  bool has_derivatives_ = false;
};

}  // namespace diffcol::batch
