// Batched contact queries over a thread pool (see contact_batch.hpp for layout and schedules).
#include "diffcol/batch/contact_batch.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace diffcol::batch {

ContactBatch::ContactBatch(BatchOptions options)
    : options_(options), pool_(std::make_unique<ThreadPool>(options.num_threads)) {}

ContactBatch::ContactBatch(const std::vector<std::pair<Shape, Shape>>& pairs, BatchOptions options)
    : ContactBatch(options) {
  pairs_.reserve(pairs.size());
  for (const auto& [s1, s2] : pairs) add_pair(s1, s2);
}

int ContactBatch::add_pair(Shape shape1, Shape shape2) {
  pairs_.emplace_back(std::move(shape1), std::move(shape2), options_.solve);
  // the last results were laid out for the old pair count
  steps_ = 0;
  has_derivatives_ = false;
  return num_pairs() - 1;
}

void ContactBatch::set_solve_options(const idcol::SolveOptions& solve) {
  options_.solve = solve;
  for (idcol::ContactPair& p : pairs_) p.options() = solve;
}

void ContactBatch::reset_warm_start() {
  for (idcol::ContactPair& p : pairs_) p.reset_warm_start();
}

const idcol::ContactPair& ContactBatch::pair(int i) const {
  if (i < 0 || i >= num_pairs())
    throw std::out_of_range("ContactBatch::pair: index " + std::to_string(i) + " outside [0, " +
                            std::to_string(num_pairs()) + ")");
  return pairs_[static_cast<size_t>(i)];
}

size_t ContactBatch::checked_index(long step, int pair) const {
  if (step < 0 || step >= steps_ || pair < 0 || pair >= num_pairs())
    throw std::out_of_range("ContactBatch: (step " + std::to_string(step) + ", pair " + std::to_string(pair) +
                            ") outside the last solve's " + std::to_string(steps_) + " steps x " +
                            std::to_string(num_pairs()) + " pairs");
  return static_cast<size_t>(step * num_pairs() + pair);
}

const idcol::ContactSolution& ContactBatch::solution(long step, int pair) const {
  return solutions_[checked_index(step, pair)];
}

const idcol::ContactDerivatives& ContactBatch::derivatives(long step, int pair) const {
  const size_t i = checked_index(step, pair);
  if (!has_derivatives_)
    throw std::logic_error("ContactBatch::derivatives: the last solve computed no derivatives "
                           "(set BatchOptions::derivatives)");
  return derivatives_[i];
}

void ContactBatch::solve(std::span<const Pose> X_W1, std::span<const Pose> X_W2, long num_steps) {
  const long P = num_pairs();
  if (num_steps < 0) throw std::invalid_argument("ContactBatch::solve: num_steps must be >= 0");
  const size_t n = static_cast<size_t>(num_steps * P);
  if (X_W1.size() != n || X_W2.size() != n)
    throw std::invalid_argument("ContactBatch::solve: expected " + std::to_string(n) + " poses per body (" +
                                std::to_string(num_steps) + " steps x " + std::to_string(P) +
                                " pairs), got " + std::to_string(X_W1.size()) + " and " +
                                std::to_string(X_W2.size()));
  const bool with_derivatives = options_.derivatives;
  const ReferenceFrame frame = options_.frame;
  // grow the result grid only (allocation-free when it already fits)
  if (solutions_.size() < n) solutions_.resize(n);
  if (with_derivatives && derivatives_.size() < n) derivatives_.resize(n);
  steps_ = num_steps;
  has_derivatives_ = with_derivatives;
  if (n == 0) return;

  idcol::ContactPair* pairs = pairs_.data();
  idcol::ContactSolution* sols = solutions_.data();
  idcol::ContactDerivatives* ders = derivatives_.data();

  if (options_.solve.warm_start) {
    // one task per pair: its steps in order, warm-started from the previous one
    auto body = [&](long begin, long end) {
      for (long p = begin; p < end; ++p) {
        idcol::ContactPair& pair = pairs[p];
        for (long t = 0; t < num_steps; ++t) {
          const size_t i = static_cast<size_t>(t * P + p);
          sols[i] = pair.solve(X_W1[i], X_W2[i]);
          if (with_derivatives) idcol::contact_derivatives(sols[i], ders[i], frame);
        }
      }
    };
    pool_->parallel_for(P, 1, body);
  } else {
    // every query independent: chunks of consecutive (step, pair) indices
    const idcol::SolveOptions& opt = options_.solve;
    auto body = [&](long begin, long end) {
      for (long k = begin; k < end; ++k) {
        const idcol::ContactPair& pair = pairs[k % P];
        const size_t i = static_cast<size_t>(k);
        sols[i] = idcol::solve_contact(pair.shape1(), X_W1[i], pair.shape2(), X_W2[i], opt);
        if (with_derivatives) idcol::contact_derivatives(sols[i], ders[i], frame);
      }
    };
    // about 8 chunks per thread (load balance), at most 32 queries (~50 µs) each
    const long grain = std::clamp<long>(static_cast<long>(n) / (8L * pool_->num_threads()), 1L, 32L);
    pool_->parallel_for(static_cast<long>(n), grain, body);
  }
}

}  // namespace diffcol::batch
