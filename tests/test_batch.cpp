// Tests of the thread pool and of batched contact queries (include/diffcol/batch/).
//
// The batch must reproduce the one-by-one calls bit for bit (ContactPair::solve in step order
// per pair for the warm-started schedule, solve_contact for the cold one, contact_derivatives
// for the derivatives) for any number of threads. The number of steps per pair is
// DIFFCOL_ERGODIC_POSES / 50 (default 200), over every ordered pair of the benchmark shapes plus
// a few non-benchmark shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "diffcol/batch/contact_batch.hpp"
#include "diffcol/batch/result_fields.hpp"
#include "diffcol/batch/thread_pool.hpp"
#include "diffcol/idcol/ergodic.hpp"
#include "test_util.hpp"

namespace {

using diffcol::Pose;
using diffcol::ReferenceFrame;
using diffcol::Shape;
using diffcol::Vec3;
using diffcol::batch::BatchOptions;
using diffcol::batch::DerivativeBlocks;
using diffcol::batch::ContactBatch;
using diffcol::batch::ThreadPool;
namespace idcol = diffcol::idcol;

long steps_per_pair() { return std::max(20L, diffcol::test::env_count("DIFFCOL_ERGODIC_POSES", 10000) / 50); }

// ------------------------------------------------------------------ bitwise comparison

template <class M>
bool same_bits(const M& a, const M& b) {
  return std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every field of ContactSolution, bit for bit. Returns the first differing field ("" if none).
std::string first_difference(const idcol::ContactSolution& a, const idcol::ContactSolution& b) {
  if (a.status != b.status) return "status";
  if (a.iterations != b.iterations) return "iterations";
  if (a.jacobian_evaluations != b.jacobian_evaluations) return "jacobian_evaluations";
  if (a.attempts != b.attempts) return "attempts";
  if (a.warm_started != b.warm_started) return "warm_started";
  if (!same_bits(a.residual_norm, b.residual_norm)) return "residual_norm";
  if (!same_bits(a.alpha, b.alpha)) return "alpha";
  if (!same_bits(a.x_B1, b.x_B1)) return "x_B1";
  if (!same_bits(a.lambda1, b.lambda1)) return "lambda1";
  if (!same_bits(a.lambda2, b.lambda2)) return "lambda2";
  if (!same_bits(a.p1_B1, b.p1_B1)) return "p1_B1";
  if (!same_bits(a.p2_B1, b.p2_B1)) return "p2_B1";
  if (!same_bits(a.gap, b.gap)) return "gap";
  if (!same_bits(a.normal_B1, b.normal_B1)) return "normal_B1";
  if (!same_bits(a.x_W, b.x_W)) return "x_W";
  if (!same_bits(a.p1_W, b.p1_W)) return "p1_W";
  if (!same_bits(a.p2_W, b.p2_W)) return "p2_W";
  if (!same_bits(a.normal_W, b.normal_W)) return "normal_W";
  if (!same_bits(a.X_12.R, b.X_12.R) || !same_bits(a.X_12.p, b.X_12.p)) return "X_12";
  if (!same_bits(a.kkt_jacobian, b.kkt_jacobian)) return "kkt_jacobian";
  if (std::memcmp(a.kkt_lu.lu, b.kkt_lu.lu, sizeof a.kkt_lu.lu) != 0 ||
      std::memcmp(a.kkt_lu.perm, b.kkt_lu.perm, sizeof a.kkt_lu.perm) != 0)
    return "kkt_lu";
  return "";
}

// Every Jacobian block of ContactDerivatives (through the field table), bit for bit.
std::string first_difference(const idcol::ContactDerivatives& a, const idcol::ContactDerivatives& b) {
  if (a.status != b.status) return "status";
  std::string diff;
  diffcol::batch::for_each_derivative_block([&](const char* name, auto member) {
    if (diff.empty() && !same_bits(a.*member, b.*member)) diff = name;
  });
  return diff;
}

// ------------------------------------------------------------------ a mixed scene

struct Scene {
  std::vector<std::pair<Shape, Shape>> pairs;
  std::vector<idcol::ErgodicSweep> sweeps;
};

// Every ordered pair of benchmark shapes, plus non-benchmark shapes (a box, a hull, a thin cone).
Scene mixed_scene() {
  Scene s;
  for (const auto& a : idcol::benchmark_shape_names())
    for (const auto& b : idcol::benchmark_shape_names())
      s.pairs.emplace_back(idcol::benchmark_shape(a), idcol::benchmark_shape(b));
  const Shape box = diffcol::SmoothPolytope::box(0.3, 0.5, 0.8, 15.0);
  const Shape hull = diffcol::SmoothPolytope::convex_hull(
      {Vec3(1, 0, 0), Vec3(-0.5, 0.8, 0), Vec3(-0.5, -0.8, 0), Vec3(0, 0, 1.2), Vec3(0.1, 0.1, -0.9)}, 10.0);
  const Shape cone = diffcol::SmoothTruncatedCone(0.8, 0.05, 0.5, 1.0, 10.0);
  s.pairs.emplace_back(box, hull);
  s.pairs.emplace_back(hull, cone);
  s.pairs.emplace_back(cone, diffcol::Sphere(0.3));
  s.pairs.emplace_back(diffcol::Superellipsoid(0.4, 0.9, 0.2, 3), box);
  for (const auto& [a, b] : s.pairs) s.sweeps.push_back(idcol::ErgodicSweep::for_pair(a, b));
  return s;
}

// Poses for T steps: body 1 moves on a random rigid motion, body 2 = body 1 · sweep pose, so the
// relative pose follows the ergodic sweep (with a stride, to make warm starts work for their keep).
void make_poses(const Scene& s, long T, long first_step, std::vector<Pose>& X1, std::vector<Pose>& X2) {
  const size_t P = s.pairs.size();
  X1.resize(static_cast<size_t>(T) * P);
  X2.resize(static_cast<size_t>(T) * P);
  for (long t = 0; t < T; ++t) {
    for (size_t p = 0; p < P; ++p) {
      const long k = first_step + t;
      const Vec3 axis = Vec3(1.0, 0.3 * static_cast<double>(p % 5), -0.2).normalized();
      const Pose A = Pose::from_rotation(Eigen::AngleAxisd(0.01 * static_cast<double>(k) + 0.1 * static_cast<double>(p), axis).toRotationMatrix(),
                                         Vec3(0.5 * static_cast<double>(p), 0.001 * static_cast<double>(k), -1.0));
      const size_t i = static_cast<size_t>(t) * P + p;
      X1[i] = A;
      X2[i] = A * s.sweeps[p].pose(37 * k + static_cast<long>(p));
    }
  }
}

// ------------------------------------------------------------------ field tables

// The tables must list every field: a block added to ContactDerivatives but not to the table
// would be missing from the Python binding and from the comparisons here.
TEST(ResultFields, DerivativeTableCoversTheWholeStruct) {
  size_t bytes = 0;
  int count = 0;
  diffcol::batch::for_each_derivative_block([&](const char*, auto member) {
    using M = std::remove_reference_t<decltype(std::declval<idcol::ContactDerivatives>().*member)>;
    bytes += sizeof(M);
    ++count;
  });
  EXPECT_EQ(count, diffcol::batch::kNumDerivativeBlocks);
  // status (1 byte) plus padding to the blocks' alignment
  EXPECT_LE(sizeof(idcol::ContactDerivatives) - bytes, alignof(idcol::ContactDerivatives));
}

TEST(ResultFields, SolutionTableNamesAreUnique) {
  std::vector<std::string> names;
  diffcol::batch::for_each_solution_field([&](const char* name, auto) { names.emplace_back(name); });
  EXPECT_EQ(names.size(), 13u);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
}

// ------------------------------------------------------------------ thread pool

TEST(ThreadPool, EveryIndexRunsExactlyOnce) {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.num_threads(), threads);
    for (long count : {0L, 1L, 7L, 64L, 1000L, 4099L}) {
      for (long grain : {1L, 3L, 64L, 5000L}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(count));
        for (auto& h : hits) h.store(0);
        auto body = [&](long b, long e) {
          ASSERT_LE(e - b, grain);
          ASSERT_LT(b, e);
          for (long i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
        };
        pool.parallel_for(count, grain, body);
        for (long i = 0; i < count; ++i)
          ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1)
              << "threads " << threads << " count " << count << " grain " << grain << " index " << i;
      }
    }
  }
}

TEST(ThreadPool, DefaultUsesAvailableCoresAndRejectsBadArguments) {
  ThreadPool pool;
  EXPECT_EQ(pool.num_threads(), diffcol::batch::available_cores());
  EXPECT_GE(pool.num_threads(), 1);
  EXPECT_THROW(ThreadPool(-1), std::invalid_argument);
  auto noop = [](long, long) {};
  EXPECT_THROW(pool.parallel_for(-1, 1, noop), std::invalid_argument);
  EXPECT_THROW(pool.parallel_for(10, 0, noop), std::invalid_argument);
}

TEST(ThreadPool, ExceptionIsRethrownAndPoolStaysUsable) {
  ThreadPool pool(3);
  auto throwing = [](long b, long e) {
    for (long i = b; i < e; ++i)
      if (i == 500) throw std::runtime_error("index 500");
  };
  try {
    pool.parallel_for(1000, 7, throwing);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 500");
  }
  std::atomic<long> sum{0};
  auto summing = [&](long b, long e) {
    for (long i = b; i < e; ++i) sum += i;
  };
  for (int rep = 0; rep < 50; ++rep) pool.parallel_for(100, 3, summing);
  EXPECT_EQ(sum.load(), 50L * 4950L);
}

// ------------------------------------------------------------------ batch = one by one

TEST(ContactBatch, WarmStartedScheduleEqualsSequentialContactPairsBitForBit) {
  const Scene s = mixed_scene();
  const long T = steps_per_pair();
  const size_t P = s.pairs.size();
  // reference: one ContactPair per pair, steps in order, two calls of T/2 and T - T/2 steps
  const long T0 = T / 2, T1 = T - T0;
  std::vector<Pose> A1, A2, B1, B2;
  make_poses(s, T0, 0, A1, A2);
  make_poses(s, T1, T0, B1, B2);
  std::vector<idcol::ContactSolution> ref_a(A1.size()), ref_b(B1.size());
  std::vector<idcol::ContactDerivatives> der_a(A1.size()), der_b(B1.size());
  long warm_count = 0;
  for (size_t p = 0; p < P; ++p) {
    idcol::ContactPair pair(s.pairs[p].first, s.pairs[p].second);
    for (long t = 0; t < T0; ++t) {
      const size_t i = static_cast<size_t>(t) * P + p;
      ref_a[i] = pair.solve(A1[i], A2[i]);
      der_a[i] = idcol::contact_derivatives(ref_a[i]);
    }
    for (long t = 0; t < T1; ++t) {
      const size_t i = static_cast<size_t>(t) * P + p;
      ref_b[i] = pair.solve(B1[i], B2[i]);
      der_b[i] = idcol::contact_derivatives(ref_b[i]);
      warm_count += ref_b[i].warm_started;
    }
  }
  // the sequence really warm-starts (otherwise this test would not test the schedule)
  EXPECT_GT(warm_count, static_cast<long>(P) * T1 / 2);

  for (int threads : {1, 2, 3, 4}) {
    BatchOptions opt;
    opt.num_threads = threads;
    opt.derivatives = true;
    opt.blocks = DerivativeBlocks::all();
    ContactBatch batch(s.pairs, opt);
    ASSERT_EQ(batch.num_pairs(), static_cast<int>(P));
    ASSERT_EQ(batch.num_threads(), threads);
    for (int call = 0; call < 2; ++call) {
      const auto& X1 = call == 0 ? A1 : B1;
      const auto& X2 = call == 0 ? A2 : B2;
      const auto& ref = call == 0 ? ref_a : ref_b;
      const auto& der = call == 0 ? der_a : der_b;
      const long steps = call == 0 ? T0 : T1;
      batch.solve(X1, X2, steps);
      ASSERT_EQ(batch.num_steps(), steps);
      ASSERT_TRUE(batch.has_derivatives());
      for (long t = 0; t < steps; ++t) {
        for (size_t p = 0; p < P; ++p) {
          const size_t i = static_cast<size_t>(t) * P + p;
          const int pi = static_cast<int>(p);
          ASSERT_EQ(first_difference(batch.solution(t, pi), ref[i]), "")
              << "threads " << threads << " call " << call << " step " << t << " pair " << p;
          ASSERT_EQ(first_difference(batch.derivatives(t, pi), der[i]), "")
              << "threads " << threads << " call " << call << " step " << t << " pair " << p;
        }
      }
    }
  }
}

TEST(ContactBatch, ColdScheduleEqualsSolveContactBitForBit) {
  const Scene s = mixed_scene();
  const long T = steps_per_pair() / 4;
  const size_t P = s.pairs.size();
  std::vector<Pose> X1, X2;
  make_poses(s, T, 1000, X1, X2);
  std::vector<idcol::ContactSolution> ref(X1.size());
  std::vector<idcol::ContactDerivatives> der(X1.size());
  idcol::SolveOptions cold;
  cold.warm_start = false;
  for (size_t i = 0; i < X1.size(); ++i) {
    const auto& [s1, s2] = s.pairs[i % P];
    ref[i] = idcol::solve_contact(s1, X1[i], s2, X2[i], cold);
    der[i] = idcol::contact_derivatives(ref[i]);
  }
  for (int threads : {1, 2, 4}) {
    BatchOptions opt;
    opt.num_threads = threads;
    opt.solve = cold;
    opt.derivatives = true;
    opt.blocks = DerivativeBlocks::all();
    ContactBatch batch(s.pairs, opt);
    for (int rep = 0; rep < 2; ++rep) {  // the cold schedule has no state: same results twice
      batch.solve(X1, X2, T);
      const auto sols = batch.solutions();
      const auto ders = batch.all_derivatives();
      ASSERT_EQ(sols.size(), X1.size());
      ASSERT_EQ(ders.size(), X1.size());
      for (size_t i = 0; i < X1.size(); ++i) {
        ASSERT_EQ(first_difference(sols[i], ref[i]), "") << "threads " << threads << " query " << i;
        ASSERT_EQ(first_difference(ders[i], der[i]), "") << "threads " << threads << " query " << i;
      }
    }
    // the cold schedule leaves the pairs without warm-start state
    for (int p = 0; p < batch.num_pairs(); ++p) EXPECT_EQ(batch.pair(p).last().iterations, 0);
  }
}

TEST(ContactBatch, ResetWarmStartMakesTheNextCallCold) {
  const Scene s = mixed_scene();
  const size_t P = s.pairs.size();
  std::vector<Pose> X1, X2;
  make_poses(s, 3, 0, X1, X2);
  BatchOptions opt;
  opt.num_threads = 2;
  ContactBatch batch(s.pairs, opt);
  batch.solve(X1, X2, 3);
  batch.reset_warm_start();
  const std::vector<Pose> Y1(X1.begin(), X1.begin() + static_cast<long>(P));
  const std::vector<Pose> Y2(X2.begin(), X2.begin() + static_cast<long>(P));
  batch.solve(Y1, Y2);
  for (size_t p = 0; p < P; ++p) {
    const auto& [s1, s2] = s.pairs[p];
    const idcol::ContactSolution ref = idcol::solve_contact(s1, Y1[p], s2, Y2[p]);
    EXPECT_EQ(first_difference(batch.solution(0, static_cast<int>(p)), ref), "") << "pair " << p;
    EXPECT_FALSE(batch.solution(0, static_cast<int>(p)).warm_started);
  }
}

TEST(ContactBatch, SolveOptionsReachEveryPair) {
  const Scene s = mixed_scene();
  BatchOptions opt;
  opt.num_threads = 2;
  ContactBatch batch(s.pairs, opt);
  idcol::SolveOptions loose;
  loose.tolerance = 1e-6;
  loose.max_iterations = 17;
  batch.set_solve_options(loose);
  for (int p = 0; p < batch.num_pairs(); ++p) {
    EXPECT_EQ(batch.pair(p).options().tolerance, 1e-6);
    EXPECT_EQ(batch.pair(p).options().max_iterations, 17);
  }
  std::vector<Pose> X1, X2;
  make_poses(s, 2, 5, X1, X2);
  batch.solve(X1, X2, 2);
  idcol::ContactPair ref(s.pairs[7].first, s.pairs[7].second, loose);
  ref.solve(X1[7], X2[7]);
  const idcol::ContactSolution& r = ref.solve(X1[s.pairs.size() + 7], X2[s.pairs.size() + 7]);
  EXPECT_EQ(first_difference(batch.solution(1, 7), r), "");
}


// ------------------------------------------------------------------ one pair over N poses

// N poses of one pair: body 1 on a slow rigid motion, body 2 along the pair's sweep relative to it.
void one_pair_poses(const Shape& a, const Shape& b, long N, std::vector<Pose>& X1, std::vector<Pose>& X2) {
  const idcol::ErgodicSweep sweep = idcol::ErgodicSweep::for_pair(a, b);
  X1.resize(static_cast<size_t>(N));
  X2.resize(static_cast<size_t>(N));
  for (long k = 0; k < N; ++k) {
    const double s = static_cast<double>(k);
    const Pose A = Pose::from_rotation(
        Eigen::AngleAxisd(0.02 * s, Vec3(0.3, 1.0, -0.2).normalized()).toRotationMatrix(), Vec3(0.1, -0.003 * s, 0.4));
    X1[static_cast<size_t>(k)] = A;
    X2[static_cast<size_t>(k)] = A * sweep.pose(53 * k + 11);
  }
}

TEST(ContactBatch, SolvePosesEqualsStepsOfOnePairBitForBit) {
  const Scene s = mixed_scene();
  const long N = std::max(40L, steps_per_pair() / 2);
  for (size_t p : {size_t{2}, size_t{14}, size_t{29}, s.pairs.size() - 1}) {
    const auto& [a, b] = s.pairs[p];
    std::vector<Pose> X1, X2;
    one_pair_poses(a, b, N, X1, X2);
    // the reference: N steps of the one pair on the cold schedule, all blocks
    BatchOptions cold;
    cold.num_threads = 1;
    cold.solve.warm_start = false;
    cold.derivatives = true;
    cold.blocks = DerivativeBlocks::all();
    ContactBatch ref({{a, b}}, cold);
    ref.solve(X1, X2, N);
    for (int threads : {1, 2, 3}) {
      BatchOptions opt = cold;
      opt.num_threads = threads;
      opt.solve.warm_start = true;  // solve_poses is cold whatever the schedule
      ContactBatch one(a, b, opt);
      for (int rep = 0; rep < 2; ++rep) {  // no state: the same twice
        one.solve_poses(X1, X2);
        ASSERT_EQ(one.num_steps(), N);
        for (long k = 0; k < N; ++k) {
          ASSERT_EQ(first_difference(one.solution(k, 0), ref.solution(k, 0)), "") << "pair " << p << " pose " << k;
          ASSERT_EQ(first_difference(one.derivatives(k, 0), ref.derivatives(k, 0)), "") << "pair " << p << " pose " << k;
        }
      }
      EXPECT_EQ(one.pair(0).last().iterations, 0);  // the pair's warm start is untouched
    }
    // one pose for body 1, used for every query
    BatchOptions opt;
    opt.num_threads = 2;
    ContactBatch one(a, b, opt);
    const std::vector<Pose> same(static_cast<size_t>(N), X1[3]);
    ref.solve(same, X2, N);
    one.solve_poses(std::span<const Pose>(&X1[3], 1), X2);
    for (long k = 0; k < N; ++k)
      ASSERT_EQ(first_difference(one.solution(k, 0), ref.solution(k, 0)), "") << "pair " << p << " pose " << k;
  }
}

TEST(ContactBatch, SolvePosesRejectsBadSizesAndSeveralPairs) {
  ContactBatch one(diffcol::Sphere(1.0), diffcol::Sphere(0.5));
  ASSERT_EQ(one.num_pairs(), 1);
  std::vector<Pose> three(3), four(4), none;
  for (auto& X : four) X.p = Vec3(3.0, 0.0, 0.0);
  try {
    one.solve_poses(three, four);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("got 3 and 4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(one.solve_poses(none, four), std::invalid_argument);
  one.solve_poses(none, none);  // nothing to do
  EXPECT_EQ(one.num_steps(), 0);
  one.solve_poses(std::span<const Pose>(three.data(), 1), four);
  EXPECT_EQ(one.num_steps(), 4);
  EXPECT_NEAR(one.solution(3, 0).alpha, 2.0, 1e-9);
  ContactBatch two({{diffcol::Sphere(1.0), diffcol::Sphere(0.5)}, {diffcol::Sphere(1.0), diffcol::Sphere(0.5)}});
  try {
    two.solve_poses(four, four);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("one pair"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------ derivative blocks

TEST(DerivativeBlocks, NamesGroupsAndErrors) {
  EXPECT_EQ(DerivativeBlocks::all().count(), diffcol::batch::kNumDerivativeBlocks);
  EXPECT_TRUE(DerivativeBlocks().empty());
  const DerivativeBlocks d = DerivativeBlocks::gap_and_alpha();
  EXPECT_EQ(d.names(), (std::vector<std::string>{"J_alpha_X12", "J_gap_X12", "J_alpha_X1", "J_gap_X1", "J_alpha_X2",
                                                  "J_gap_X2"}));
  EXPECT_TRUE(d.only_gap_and_alpha());
  EXPECT_EQ(BatchOptions{}.blocks, d);  // the default
  const std::vector<std::string> names = {"J_p1_W", "J_z", "J_gap_X1"};
  const DerivativeBlocks b = DerivativeBlocks::from_names(names);
  EXPECT_EQ(b.names(), (std::vector<std::string>{"J_z_X12", "J_gap_X1", "J_p1_W_X1", "J_p1_W_X2"}));
  EXPECT_FALSE(b.only_gap_and_alpha());
  EXPECT_TRUE(b.contains("J_p1_W_X2"));
  EXPECT_FALSE(b.contains("J_p1_B1_X2"));
  EXPECT_FALSE(b.contains("J_p1_W"));  // a group is not a block
  const std::vector<std::string> every = {"all"};
  EXPECT_EQ(DerivativeBlocks::from_names(every), DerivativeBlocks::all());
  // every block name maps to itself; a group prefix does not swallow longer names (J_p1 is no group)
  int k = 0;
  diffcol::batch::for_each_derivative_block([&](const char* name, auto) {
    EXPECT_EQ(DerivativeBlocks::index_of(name), k++) << name;
  });
  for (const char* bad : {"J_gap_X3", "gap", "J_p1", "", "J_normal_W_X12"}) {
    try {
      DerivativeBlocks().add(bad);
      FAIL() << "expected std::invalid_argument for '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(std::string("unknown name \"") + bad + "\""), std::string::npos) << m;
      EXPECT_NE(m.find("\"J_gap\""), std::string::npos) << m;
      EXPECT_NE(m.find("\"J_normal_W_X2\""), std::string::npos) << m;
    }
  }
}

// Requested blocks of the batch equal the same blocks of contact_derivatives: bit for bit on the
// copying path, to 1e-6 (relative to the block's norm, plus 1e-9) on the envelope path; the blocks
// not requested are zero, also after a call that asked for them.
TEST(ContactBatch, RequestedBlocksEqualTheFullComputationOthersAreZero) {
  const Scene s = mixed_scene();
  const size_t P = s.pairs.size();
  std::vector<Pose> X1, X2;
  make_poses(s, 6, 300, X1, X2);
  const std::vector<std::string> subset_names = {"J_p1_W", "J_normal_B1_X12", "J_z", "J_gap_X2"};
  const DerivativeBlocks subset = DerivativeBlocks::from_names(subset_names);
  const std::vector<std::string> alpha_only_names = {"J_alpha_X1", "J_gap_X12"};
  const DerivativeBlocks alpha_only = DerivativeBlocks::from_names(alpha_only_names);
  for (ReferenceFrame frame : {ReferenceFrame::world, ReferenceFrame::local, ReferenceFrame::local_world_aligned}) {
    BatchOptions opt;
    opt.num_threads = 2;
    opt.solve.warm_start = false;
    opt.derivatives = true;
    opt.frame = frame;
    opt.blocks = DerivativeBlocks::all();
    ContactBatch batch(s.pairs, opt);
    // every block written once at other poses: the later calls must clear the blocks they do not
    // ask for and overwrite those they ask for
    std::vector<Pose> Y1, Y2;
    make_poses(s, 6, 900, Y1, Y2);
    batch.solve(Y1, Y2, 6);
    long compared = 0, envelope_ok = 0;
    for (const DerivativeBlocks& blocks : {subset, DerivativeBlocks::gap_and_alpha(), alpha_only, DerivativeBlocks()}) {
      batch.set_blocks(blocks);
      batch.solve(X1, X2, 6);
      ASSERT_EQ(batch.computed_blocks(), blocks);
      const bool envelope = blocks.only_gap_and_alpha();
      for (size_t i = 0; i < X1.size(); ++i) {
        const idcol::ContactDerivatives full = idcol::contact_derivatives(batch.solutions()[i], frame);
        const idcol::ContactDerivatives& got = batch.all_derivatives()[i];
        const std::string where = "query " + std::to_string(i) + " pair " + std::to_string(i % P) + " blocks " +
                                  std::to_string(blocks.count()) + " frame " + diffcol::reference_frame_name(frame);
        EXPECT_EQ(got.frame, frame) << where;
        if (!envelope) {
          ASSERT_EQ(got.status, full.status) << where;
          ASSERT_TRUE(same_bits(got.kkt_condition, full.kkt_condition)) << where;
        } else if (full.ok()) {
          ASSERT_TRUE(got.ok()) << where;
          ++envelope_ok;
        }
        int k = 0;
        diffcol::batch::for_each_derivative_block([&](const char* name, auto member) {
          const auto& g = got.*member;
          if (!blocks.contains(k++)) {
            EXPECT_TRUE(g.isZero(0.0)) << where << ": " << name << " not requested but set";
          } else if (!envelope) {
            EXPECT_TRUE(same_bits(g, full.*member)) << where << ": " << name;
            ++compared;
          } else if (full.ok()) {
            const double err = (g - full.*member).norm(), scale = (full.*member).norm();
            EXPECT_LE(err, 1e-6 * scale + 1e-9) << where << ": " << name << " envelope " << g << " full "
                                                << full.*member;
            ++compared;
          } else if (!got.ok()) {
            EXPECT_TRUE(g.isZero(0.0)) << where << ": " << name;
          }
        });
      }
    }
    EXPECT_GT(compared, 1000);
    EXPECT_GT(envelope_ok, static_cast<long>(X1.size()));
  }
}

// The envelope path's status: zero blocks and the solution's reason where it has no derivatives.
TEST(ContactBatch, EnvelopeBlocksOfFailedQueriesAreZeroWithAStatus) {
  BatchOptions opt;
  opt.num_threads = 1;
  opt.derivatives = true;  // default blocks: J_gap_*, J_alpha_* (envelope)
  ContactBatch one(diffcol::Sphere(1.0), diffcol::Sphere(0.5), opt);
  std::vector<Pose> X2(3);
  X2[0].p = Vec3(3.0, 0.0, 0.0);
  X2[1].p = Vec3(diffcol::test::kNaN, 0.0, 0.0);
  X2[2].p = Vec3(0.0, 0.0, 0.0);  // coincident origins
  one.solve_poses(std::vector<Pose>(1), X2);
  const idcol::ContactDerivatives& d0 = one.derivatives(0, 0);
  ASSERT_TRUE(d0.ok());
  // spheres: α = ‖r‖ / 1.5, d_D = ‖r‖ − 1.5 (30); d/d(v of body 2 along x) = 1/1.5 and 1
  EXPECT_NEAR(d0.J_alpha_X2[3], 1.0 / 1.5, 1e-9);
  EXPECT_NEAR(d0.J_gap_X2[3], 1.0, 1e-9);
  EXPECT_NEAR(d0.J_gap_X1[3], -1.0, 1e-9);
  EXPECT_EQ(one.derivatives(1, 0).status, diffcol::DerivativeStatus::invalid_input);
  EXPECT_EQ(one.derivatives(2, 0).status, diffcol::DerivativeStatus::coincident_origins);
  for (long k : {1L, 2L}) {
    const idcol::ContactDerivatives& d = one.derivatives(k, 0);
    EXPECT_TRUE(d.J_alpha_X12.isZero(0.0) && d.J_gap_X1.isZero(0.0) && d.J_gap_X2.isZero(0.0)) << k;
  }
}

// ------------------------------------------------------------------ bad input

TEST(ContactBatch, NonFinitePoseGivesInvalidInputStatusNotAnException) {
  BatchOptions opt;
  opt.num_threads = 2;
  opt.derivatives = true;
  ContactBatch batch({{diffcol::Sphere(1.0), diffcol::Sphere(0.5)}, {diffcol::Sphere(1.0), diffcol::Sphere(0.5)}}, opt);
  std::vector<Pose> X1(2), X2(2);
  X2[0].p = Vec3(3.0, 0.0, 0.0);
  X2[1].p = Vec3(diffcol::test::kNaN, 0.0, 0.0);
  batch.solve(X1, X2);
  EXPECT_EQ(batch.solution(0, 0).status, diffcol::SolveStatus::ok);
  EXPECT_NEAR(batch.solution(0, 0).alpha, 2.0, 1e-9);  // (1 + 0.5)·α = 3
  EXPECT_EQ(batch.solution(0, 1).status, diffcol::SolveStatus::invalid_input);
  EXPECT_EQ(batch.derivatives(0, 1).status, diffcol::DerivativeStatus::invalid_input);
  EXPECT_TRUE(batch.derivatives(0, 1).J_alpha_X1.allFinite());
}

TEST(ContactBatch, RejectsBadSizesIndicesAndThreadCounts) {
  BatchOptions bad;
  bad.num_threads = -2;
  EXPECT_THROW(ContactBatch{bad}, std::invalid_argument);

  ContactBatch batch;
  EXPECT_EQ(batch.num_pairs(), 0);
  EXPECT_EQ(batch.add_pair(diffcol::Sphere(1.0), diffcol::Sphere(1.0)), 0);
  EXPECT_EQ(batch.add_pair(diffcol::Sphere(1.0), idcol::benchmark_shape("poly")), 1);
  std::vector<Pose> three(3), four(4);
  try {
    batch.solve(three, three);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected 2 poses"), std::string::npos) << e.what();
  }
  EXPECT_THROW(batch.solve(four, three, 2), std::invalid_argument);
  EXPECT_THROW(batch.solve(four, four, -1), std::invalid_argument);
  EXPECT_THROW(batch.solution(0, 0), std::out_of_range);  // nothing solved yet

  for (auto& X : four) X.p = Vec3(0.0, 0.0, 5.0);
  const std::vector<Pose> origin(4);
  batch.solve(origin, four, 2);
  EXPECT_TRUE(batch.solution(1, 1).ok());
  EXPECT_THROW(batch.solution(2, 0), std::out_of_range);
  EXPECT_THROW(batch.solution(0, 2), std::out_of_range);
  EXPECT_THROW(batch.solution(-1, 0), std::out_of_range);
  EXPECT_THROW(batch.derivatives(0, 0), std::logic_error);  // derivatives were off
  EXPECT_THROW(batch.pair(2), std::out_of_range);
  EXPECT_TRUE(batch.all_derivatives().empty());

  // adding a pair clears the last results (their layout depends on the pair count)
  batch.add_pair(diffcol::Sphere(0.5), diffcol::Sphere(0.5));
  EXPECT_EQ(batch.num_steps(), 0);
  EXPECT_THROW(batch.solution(0, 0), std::out_of_range);

  batch.solve({}, {}, 0);  // an empty call is fine
  EXPECT_EQ(batch.num_steps(), 0);
  EXPECT_TRUE(batch.solutions().empty());
}

}  // namespace
