// Batched contact queries over a thread pool (see contact_batch.hpp for layout, schedules and the
// derivative blocks).
#include "diffcol/batch/contact_batch.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "diffcol/batch/result_fields.hpp"

namespace diffcol::batch {

// ------------------------------------------------------------------ derivative block sets

namespace {

// One Jacobian block of ContactDerivatives: its name and where it lies in the struct.
struct BatchBlockInfo {
  const char* name = "";
  size_t offset = 0, bytes = 0;
  bool gap_or_alpha = false;  // J_gap_* or J_alpha_*
};

const std::array<BatchBlockInfo, kNumDerivativeBlocks>& batch_block_table() {
  static const std::array<BatchBlockInfo, kNumDerivativeBlocks> table = [] {
    std::array<BatchBlockInfo, kNumDerivativeBlocks> t{};
    const idcol::ContactDerivatives d;
    int k = 0;
    for_each_derivative_block([&](const char* name, auto member) {
      const std::string_view n(name);
      t[static_cast<size_t>(k++)] = {name,
                                     static_cast<size_t>(reinterpret_cast<const char*>(&(d.*member)) -
                                                         reinterpret_cast<const char*>(&d)),
                                     sizeof(d.*member), n.starts_with("J_gap_") || n.starts_with("J_alpha_")};
    });
    return t;
  }();
  return table;
}

// "J_gap_X1" -> "J_gap": the block name without its input suffix (_X12, _X1, _X2).
std::string_view batch_block_group(std::string_view block) { return block.substr(0, block.rfind('_')); }

std::string batch_valid_block_names() {
  std::string s = "\"all\"";
  std::string_view last_group;
  for (const BatchBlockInfo& b : batch_block_table()) {
    const std::string_view g = batch_block_group(b.name);
    if (g != last_group) {
      s += ", \"" + std::string(g) + "\"";
      last_group = g;
    }
  }
  for (const BatchBlockInfo& b : batch_block_table()) s += ", \"" + std::string(b.name) + "\"";
  return s;
}

}  // namespace

DerivativeBlocks DerivativeBlocks::all() {
  DerivativeBlocks b;
  b.bits_ = (std::uint64_t{1} << kNumDerivativeBlocks) - 1;
  return b;
}

DerivativeBlocks DerivativeBlocks::gap_and_alpha() {
  DerivativeBlocks b;
  b.add("J_gap").add("J_alpha");
  return b;
}

int DerivativeBlocks::index_of(std::string_view block) {
  const auto& t = batch_block_table();
  for (size_t k = 0; k < t.size(); ++k)
    if (block == t[k].name) return static_cast<int>(k);
  return -1;
}

DerivativeBlocks& DerivativeBlocks::add(std::string_view name) {
  if (name == "all") {
    bits_ = all().bits_;
    return *this;
  }
  bool found = false;
  const auto& t = batch_block_table();
  for (size_t k = 0; k < t.size(); ++k)
    if (name == t[k].name || name == batch_block_group(t[k].name)) {
      bits_ |= std::uint64_t{1} << k;
      found = true;
    }
  if (!found)
    throw std::invalid_argument("derivative blocks: unknown name \"" + std::string(name) +
                                "\"; valid names: " + batch_valid_block_names());
  return *this;
}

DerivativeBlocks DerivativeBlocks::from_names(std::span<const std::string> names) {
  DerivativeBlocks b;
  for (const std::string& n : names) b.add(n);
  return b;
}

int DerivativeBlocks::count() const { return std::popcount(bits_); }

std::vector<std::string> DerivativeBlocks::names() const {
  std::vector<std::string> out;
  const auto& t = batch_block_table();
  for (size_t k = 0; k < t.size(); ++k)
    if (contains(static_cast<int>(k))) out.emplace_back(t[k].name);
  return out;
}

bool DerivativeBlocks::only_gap_and_alpha() const {
  if (empty()) return false;
  const auto& t = batch_block_table();
  for (size_t k = 0; k < t.size(); ++k)
    if (contains(static_cast<int>(k)) && !t[k].gap_or_alpha) return false;
  return true;
}

// ------------------------------------------------------------------ per-query derivatives

namespace {

// How the derivatives of one call are computed (contact_batch.hpp, "Derivative blocks").
struct BatchDerivativePlan {
  enum class Mode { all, envelope, subset } mode = Mode::all;
  ReferenceFrame frame = ReferenceFrame::world;
  DerivativeBlocks blocks;
  int copies = 0;  // subset: the requested blocks' (offset, bytes)
  std::array<std::pair<size_t, size_t>, kNumDerivativeBlocks> copy{};
  // envelope: which of the six J_alpha_* / J_gap_* blocks are requested
  bool alpha_X12 = false, alpha_X1 = false, alpha_X2 = false, gap_X12 = false, gap_X1 = false, gap_X2 = false;
};

BatchDerivativePlan batch_plan(const DerivativeBlocks& blocks, ReferenceFrame frame) {
  BatchDerivativePlan p;
  p.frame = frame;
  p.blocks = blocks;
  if (blocks == DerivativeBlocks::all()) {
    p.mode = BatchDerivativePlan::Mode::all;
  } else if (blocks.only_gap_and_alpha()) {
    p.mode = BatchDerivativePlan::Mode::envelope;
    p.alpha_X12 = blocks.contains("J_alpha_X12");
    p.alpha_X1 = blocks.contains("J_alpha_X1");
    p.alpha_X2 = blocks.contains("J_alpha_X2");
    p.gap_X12 = blocks.contains("J_gap_X12");
    p.gap_X1 = blocks.contains("J_gap_X1");
    p.gap_X2 = blocks.contains("J_gap_X2");
  } else {
    p.mode = BatchDerivativePlan::Mode::subset;
    const auto& t = batch_block_table();
    for (size_t k = 0; k < t.size(); ++k)
      if (blocks.contains(static_cast<int>(k))) p.copy[static_cast<size_t>(p.copies++)] = {t[k].offset, t[k].bytes};
  }
  return p;
}

// As contact_derivatives' status before its linear solve: the solution's status, r ≠ 0, X_W1 valid.
diffcol::DerivativeStatus batch_envelope_status(const idcol::ContactSolution& sol) {
  using diffcol::DerivativeStatus;
  switch (sol.status) {
    case diffcol::SolveStatus::ok: break;
    case diffcol::SolveStatus::coincident_origins: return DerivativeStatus::coincident_origins;
    case diffcol::SolveStatus::invalid_input: return DerivativeStatus::invalid_input;
    default: return DerivativeStatus::solve_failed;
  }
  if (!(sol.alpha > 0.0) || !std::isfinite(sol.alpha) || !(sol.X_12.p.norm() > 0.0))
    return DerivativeStatus::coincident_origins;
  if (!sol.X_W1.is_valid()) return DerivativeStatus::invalid_input;
  return DerivativeStatus::ok;
}

// Row [a, b] (ω, v parts) times Ad_{X⁻¹}, X = (Q, t): [Q a + t × Q b, Q b] (gradients transform
// like wrenches).
idcol::RowVec6 batch_times_adjoint_inverse(const idcol::RowVec6& K, const Mat3& Q, const Vec3& t) {
  const Vec3 a(K[0], K[1], K[2]), b(K[3], K[4], K[5]);
  const Vec3 u = Q * b;
  const Vec3 w = Q * a + t.cross(u);
  idcol::RowVec6 out;
  out << w.x(), w.y(), w.z(), u.x(), u.y(), u.z();
  return out;
}

// J_alpha_* and J_gap_* by the envelope theorem: dα*/dξ = λ2·∇φ2(y2)ᵀ[ỹ2, −I/α] (9), (25a), and
// d d_D = ‖r‖/α²·dα* + (1 − 1/α)·r̂ᵀR dv for d_D = (1 − 1/α)‖r‖ (30), (B38); world twists through
// ξ = Ad_{X_W2⁻¹}(η2 − η1), as contact_derivatives. Writes only the requested blocks.
void batch_envelope_derivatives(const idcol::ContactSolution& sol, idcol::ContactDerivatives& out,
                                const BatchDerivativePlan& plan) {
  using idcol::RowVec6;
  diffcol::DerivativeStatus st = batch_envelope_status(sol);
  RowVec6 da = RowVec6::Zero(), dg = RowVec6::Zero();
  if (st == diffcol::DerivativeStatus::ok) {
    da = idcol::alpha_gradient_envelope(sol);  // zero only where it is not finite (α* grows with ‖r‖)
    const Vec3& r = sol.X_12.p;
    const double rn = r.norm(), ia = 1.0 / sol.alpha;
    const Eigen::Matrix<double, 1, 3> rR = ((1.0 - ia) / rn) * (r.transpose() * sol.X_12.R);
    for (int c = 0; c < 6; ++c) dg[c] = rn * ia * ia * da[c] + (c >= 3 ? rR(c - 3) : 0.0);
    if (da.isZero(0.0) || !dg.allFinite()) {
      st = diffcol::DerivativeStatus::singular;
      da.setZero();
      dg.setZero();
    }
  }
  out.status = st;
  out.frame = plan.frame;
  out.kkt_condition = 0.0;
  if (plan.alpha_X12) out.J_alpha_X12 = da;
  if (plan.gap_X12) out.J_gap_X12 = dg;
  if (!(plan.alpha_X1 || plan.alpha_X2 || plan.gap_X1 || plan.gap_X2)) return;
  RowVec6 a2 = RowVec6::Zero(), g2 = RowVec6::Zero(), a1 = RowVec6::Zero(), g1 = RowVec6::Zero();
  if (st == diffcol::DerivativeStatus::ok) {
    const Pose& X1 = sol.X_W1;
    const Mat3 Q = X1.R * sol.X_12.R;  // X_W2 = X_W1·X_12
    const Vec3 t = X1.R * sol.X_12.p + X1.p;
    a2 = batch_times_adjoint_inverse(da, Q, t);
    g2 = batch_times_adjoint_inverse(dg, Q, t);
    a1 = -a2;
    g1 = -g2;
    if (plan.frame != ReferenceFrame::world) {
      const Pose X2 = X1 * sol.X_12;
      express_in_frame(a1, plan.frame, X1);
      express_in_frame(g1, plan.frame, X1);
      express_in_frame(a2, plan.frame, X2);
      express_in_frame(g2, plan.frame, X2);
    }
  }
  if (plan.alpha_X1) out.J_alpha_X1 = a1;
  if (plan.alpha_X2) out.J_alpha_X2 = a2;
  if (plan.gap_X1) out.J_gap_X1 = g1;
  if (plan.gap_X2) out.J_gap_X2 = g2;
}

void batch_derivatives(const idcol::ContactSolution& sol, idcol::ContactDerivatives& out,
                       const BatchDerivativePlan& plan) {
  switch (plan.mode) {
    case BatchDerivativePlan::Mode::all:
      idcol::contact_derivatives(sol, out, plan.frame);
      return;
    case BatchDerivativePlan::Mode::envelope:
      batch_envelope_derivatives(sol, out, plan);
      return;
    case BatchDerivativePlan::Mode::subset: {
      // contact_derivatives computes every block at once: into a scratch, then the requested ones
      thread_local idcol::ContactDerivatives scratch;
      idcol::contact_derivatives(sol, scratch, plan.frame);
      out.status = scratch.status;
      out.frame = scratch.frame;
      out.kkt_condition = scratch.kkt_condition;
      const char* from = reinterpret_cast<const char*>(&scratch);
      char* to = reinterpret_cast<char*>(&out);
      for (int k = 0; k < plan.copies; ++k) {
        const auto [offset, bytes] = plan.copy[static_cast<size_t>(k)];
        std::memcpy(to + offset, from + offset, bytes);
      }
      return;
    }
  }
}

}  // namespace

// ------------------------------------------------------------------ the batch

ContactBatch::ContactBatch(BatchOptions options)
    : options_(options), pool_(std::make_unique<ThreadPool>(options.num_threads)) {}

ContactBatch::ContactBatch(const std::vector<std::pair<Shape, Shape>>& pairs, BatchOptions options)
    : ContactBatch(options) {
  pairs_.reserve(pairs.size());
  for (const auto& [s1, s2] : pairs) add_pair(s1, s2);
}

ContactBatch::ContactBatch(Shape shape1, Shape shape2, BatchOptions options) : ContactBatch(options) {
  add_pair(std::move(shape1), std::move(shape2));
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

void ContactBatch::prepare(long num_steps, size_t n) {
  const bool with_derivatives = options_.derivatives;
  // grow the result grid only (allocation-free when it already fits)
  if (solutions_.size() < n) solutions_.resize(n);
  if (with_derivatives && derivatives_.size() < n) derivatives_.resize(n);
  steps_ = num_steps;
  has_derivatives_ = with_derivatives;
  computed_blocks_ = options_.blocks;
  if (!with_derivatives) return;
  // blocks written by earlier calls and not requested now: zero them once, in the whole store
  const DerivativeBlocks all = DerivativeBlocks::all();
  std::uint64_t stale = written_blocks_.bits() & ~options_.blocks.bits();
  if (options_.blocks == all) stale = 0;  // every block is rewritten
  if (stale != 0) {
    const auto& t = batch_block_table();
    idcol::ContactDerivatives* ders = derivatives_.data();
    auto zero = [&](long begin, long end) {
      for (long i = begin; i < end; ++i)
        for (size_t k = 0; k < t.size(); ++k)
          if ((stale >> k) & 1u) std::memset(reinterpret_cast<char*>(&ders[i]) + t[k].offset, 0, t[k].bytes);
    };
    pool_->parallel_for(static_cast<long>(derivatives_.size()), 256, zero);
  }
  written_blocks_ = options_.blocks;
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
  prepare(num_steps, n);
  if (n == 0) return;
  const bool with_derivatives = options_.derivatives;
  const BatchDerivativePlan plan = batch_plan(options_.blocks, options_.frame);

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
          if (with_derivatives) batch_derivatives(sols[i], ders[i], plan);
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
        if (with_derivatives) batch_derivatives(sols[i], ders[i], plan);
      }
    };
    // about 8 chunks per thread (load balance), at most 32 queries (~50 µs) each
    const long grain = std::clamp<long>(static_cast<long>(n) / (8L * pool_->num_threads()), 1L, 32L);
    pool_->parallel_for(static_cast<long>(n), grain, body);
  }
}

void ContactBatch::solve_poses(std::span<const Pose> X_W1, std::span<const Pose> X_W2) {
  if (num_pairs() != 1)
    throw std::invalid_argument("ContactBatch::solve_poses: one pair over N poses needs a batch of one pair, this "
                                "one has " + std::to_string(num_pairs()) + " (use solve)");
  const size_t n = std::max(X_W1.size(), X_W2.size());
  const auto fits = [n](size_t m) { return m == n || (m == 1 && n > 0); };
  if (!fits(X_W1.size()) || !fits(X_W2.size()))
    throw std::invalid_argument("ContactBatch::solve_poses: X_W1 and X_W2 must hold N poses each, or one pose "
                                "used for every query; got " + std::to_string(X_W1.size()) + " and " +
                                std::to_string(X_W2.size()));
  prepare(static_cast<long>(n), n);
  if (n == 0) return;
  const bool with_derivatives = options_.derivatives;
  const BatchDerivativePlan plan = batch_plan(options_.blocks, options_.frame);
  const idcol::ContactPair& pair = pairs_[0];
  const idcol::SolveOptions& opt = options_.solve;
  const size_t step1 = X_W1.size() == 1 ? 0 : 1, step2 = X_W2.size() == 1 ? 0 : 1;
  idcol::ContactSolution* sols = solutions_.data();
  idcol::ContactDerivatives* ders = derivatives_.data();
  auto body = [&](long begin, long end) {
    for (long k = begin; k < end; ++k) {
      const size_t i = static_cast<size_t>(k);
      sols[i] = idcol::solve_contact(pair.shape1(), X_W1[step1 * i], pair.shape2(), X_W2[step2 * i], opt);
      if (with_derivatives) batch_derivatives(sols[i], ders[i], plan);
    }
  };
  const long grain = std::clamp<long>(static_cast<long>(n) / (8L * pool_->num_threads()), 1L, 32L);
  pool_->parallel_for(static_cast<long>(n), grain, body);
}

}  // namespace diffcol::batch
