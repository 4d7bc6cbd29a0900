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
/// One pair over N poses
/// ---------------------
/// ContactBatch(shape1, shape2, options) and solve_poses(X_W1, X_W2): N independent cold queries
/// of the one pair (idcol::solve_contact at X_W1[i], X_W2[i]; either span may hold one pose, used
/// for every i), all spread over the threads whatever solve.warm_start; the pair's warm-start
/// state is neither used nor changed. Query i is solution(i, 0) (num_steps() = N): the same bits
/// as solve() with N steps of the one pair under warm_start = false.
///
/// Derivative blocks
/// -----------------
/// With BatchOptions::derivatives, BatchOptions::blocks picks the Jacobian blocks of
/// idcol::ContactDerivatives that are computed and stored; the others stay zero in every
/// derivatives(step, pair). Default: gap_and_alpha() (J_gap_* and J_alpha_*, what an optimizer or
/// a collision constraint needs). Three paths, chosen per call:
///  - all blocks: idcol::contact_derivatives into the result (bit for bit the one-by-one call);
///  - only J_alpha_* / J_gap_* blocks: the envelope gradient (idcol::alpha_gradient_envelope, no
///    linear solve with J_c) and the gap's (B38) d d_D = ‖r‖/α²·dα + (1 − 1/α) r̂ᵀ dr, mapped to
///    the twists of the bodies as contact_derivatives does. Equal to contact_derivatives' blocks to
///    the solve's accuracy (tests/test_batch.cpp: 1e-6 relative), not bit for bit. Its status is
///    ok wherever the solution is a converged KKT point with r ≠ 0 and a valid X_W1, also where
///    contact_derivatives reports ill_conditioned or singular (the envelope needs no solve with
///    J_c; it stays accurate there); kkt_condition is 0 (not computed).
///  - any other set: idcol::contact_derivatives into a per-query scratch (it computes every block
///    at once), then the requested blocks are copied: the same bits as the one-by-one call.
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

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diffcol/batch/thread_pool.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"

namespace diffcol::batch {

/// A set of Jacobian blocks of idcol::ContactDerivatives: bit k is the k-th block of
/// for_each_derivative_block (result_fields.hpp), named as the member ("J_gap_X1").
class DerivativeBlocks {
 public:
  /// The empty set.
  DerivativeBlocks() = default;
  /// Every block (33).
  static DerivativeBlocks all();
  /// J_gap_X12, J_gap_X1, J_gap_X2, J_alpha_X12, J_alpha_X1, J_alpha_X2 (the BatchOptions default).
  static DerivativeBlocks gap_and_alpha();
  /// The union of the named blocks. A name is a block ("J_gap_X1"), a group "J_<output>" (every
  /// block of that output: "J_gap" = J_gap_X12, J_gap_X1, J_gap_X2; "J_p1_W" = J_p1_W_X1,
  /// J_p1_W_X2; "J_z" = J_z_X12) or "all".
  /// @throws std::invalid_argument for an unknown name (the message lists the valid names).
  static DerivativeBlocks from_names(std::span<const std::string> names);
  /// Adds a block, group or "all" (names as from_names). @throws std::invalid_argument as from_names.
  DerivativeBlocks& add(std::string_view name);

  /// Index of a block name in for_each_derivative_block's order, -1 if it is none.
  static int index_of(std::string_view block);
  bool contains(int index) const { return index >= 0 && index < 64 && ((bits_ >> index) & 1u) != 0; }
  bool contains(std::string_view block) const { return contains(index_of(block)); }
  bool empty() const { return bits_ == 0; }
  int count() const;
  /// The block names, in for_each_derivative_block's order.
  std::vector<std::string> names() const;
  /// Whether every block is J_alpha_* or J_gap_* (the envelope path; false for the empty set).
  bool only_gap_and_alpha() const;
  std::uint64_t bits() const { return bits_; }
  bool operator==(const DerivativeBlocks&) const = default;

 private:
  std::uint64_t bits_ = 0;
};

/// Settings of a ContactBatch.
struct BatchOptions {
  int num_threads = 0;             ///< threads per call, the caller included; 0 = available_cores()
  idcol::SolveOptions solve;       ///< solver settings of every pair; solve.warm_start picks the schedule
  bool derivatives = false;        ///< also compute derivatives for every query (the blocks below)
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twist of the derivatives' X1 / X2 columns
  /// The Jacobian blocks computed when `derivatives` is on (file comment, "Derivative blocks");
  /// the others are zero. An empty set with derivatives on: statuses only.
  DerivativeBlocks blocks = DerivativeBlocks::gap_and_alpha();
};

class ContactBatch {
 public:
  /// An empty batch (add pairs with add_pair()).
  /// @throws std::invalid_argument if options.num_threads < 0 (see ThreadPool).
  explicit ContactBatch(BatchOptions options = {});
  /// A batch of the given (shape 1, shape 2) pairs, in that order (pair index = position).
  ContactBatch(const std::vector<std::pair<Shape, Shape>>& pairs, BatchOptions options = {});
  /// A batch of the one pair (shape1, shape2): solve it at N poses with solve_poses().
  ContactBatch(Shape shape1, Shape shape2, BatchOptions options = {});

  /// Appends a pair (cold, no warm-start state) and returns its index. Clears the results of the
  /// last solve() (their layout depends on the number of pairs).
  int add_pair(Shape shape1, Shape shape2);
  int num_pairs() const { return static_cast<int>(pairs_.size()); }
  int num_threads() const { return pool_->num_threads(); }

  const BatchOptions& options() const { return options_; }
  /// Replaces the solver settings of every pair (warm-start state is kept).
  void set_solve_options(const idcol::SolveOptions& solve);
  void set_derivatives(bool on) { options_.derivatives = on; }
  /// The Jacobian blocks of the next solves (BatchOptions::blocks).
  void set_blocks(DerivativeBlocks blocks) { options_.blocks = blocks; }

  /// Solves every pair at num_steps steps of poses (layout and schedule: see the file comment).
  /// A non-finite pose gives that query status invalid_input (no exception).
  /// @throws std::invalid_argument if num_steps < 0 or X_W1, X_W2 do not both hold
  ///         num_steps·num_pairs() poses.
  void solve(std::span<const Pose> X_W1, std::span<const Pose> X_W2, long num_steps = 1);

  /// One pair over N poses (file comment): N independent cold queries of the batch's one pair at
  /// (X_W1[i], X_W2[i]), N = the larger size; a span of one pose is used for every i. Query i is
  /// solution(i, 0) and derivatives(i, 0).
  /// @throws std::invalid_argument if num_pairs() != 1, or a span holds neither 1 nor N poses.
  void solve_poses(std::span<const Pose> X_W1, std::span<const Pose> X_W2);

  /// Steps of the last solve() (0 before the first).
  long num_steps() const { return steps_; }
  /// Result of pair `pair` at step `step` of the last solve().
  /// @throws std::out_of_range for an index outside the last solve's grid.
  const idcol::ContactSolution& solution(long step, int pair) const;
  /// Derivatives of solution(step, pair): the blocks of the last solve's options().blocks (the
  /// others are zero).
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
  /// The blocks the last solve() computed (empty if it computed no derivatives).
  DerivativeBlocks computed_blocks() const { return has_derivatives_ ? computed_blocks_ : DerivativeBlocks{}; }

  /// Runs body(begin, end) over [0, count) in chunks of at most `grain` on the batch's threads
  /// (ThreadPool::parallel_for): e.g. to copy the results out in parallel.
  template <class Body>
  void parallel_for(long count, long grain, Body& body) {
    pool_->parallel_for(count, grain, body);
  }

  /// The pair with index i (its shapes, options and warm-start state).
  /// @throws std::out_of_range for a bad index.
  const idcol::ContactPair& pair(int i) const;
  /// Forgets every pair's warm start: the next warm-started solve() starts cold.
  void reset_warm_start();

 private:
  size_t checked_index(long step, int pair) const;
  /// Sizes the result grid for n queries and fixes the derivative plan of this call.
  void prepare(long num_steps, size_t n);

  BatchOptions options_;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<idcol::ContactPair> pairs_;
  std::vector<idcol::ContactSolution> solutions_;
  std::vector<idcol::ContactDerivatives> derivatives_;
  long steps_ = 0;
  bool has_derivatives_ = false;
  DerivativeBlocks computed_blocks_;
  // blocks written into derivatives_ since it was sized (zeroed where no longer requested)
  DerivativeBlocks written_blocks_;
};

}  // namespace diffcol::batch
