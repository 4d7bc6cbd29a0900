// Throughput of batched contact queries (include/diffcol/batch/contact_batch.hpp) on the seed's
// ergodic sweep, for 1, 2, … threads (items/s = contact solves per second, wall-clock time).
//
//  Batch/ergodic_cold/threads:N   all 36 ordered pairs of benchmark shapes × kSteps poses of each
//                                 pair's sweep in one call, cold schedule (every query independent)
//  Batch/ergodic_warm/threads:N   the same grid, warm-started schedule (pairs over threads, the
//                                 steps of a pair in sequence; the sweep is strided so that
//                                 consecutive poses are close, as in a simulation)
//  Batch/step_warm/threads:N      one step (36 queries) per call, kSteps calls: per-call overhead
//  Batch/one_pair_<blocks>/threads:N  one pair (poly, se) over kSteps poses of its sweep per call
//                                 (solve_poses), derivative blocks none (values only), gap_alpha
//                                 (the envelope path), gap_p1 (J_gap + J_p1_W: contact_derivatives
//                                 and a copy of 5 blocks) or all: the cost of each derivative path
//
// Thread counts: 1, 2 and, if the machine has more, all available cores. Scaling needs idle
// cores: run it on an unloaded machine (check `uptime`). Each iteration is one full grid.
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "diffcol/batch/contact_batch.hpp"
#include "diffcol/idcol/ergodic.hpp"

namespace batch_benchmarks {  // one namespace per file: the benchmarks are built as a unity build

using diffcol::Pose;
using diffcol::Shape;
namespace batch = diffcol::batch;
namespace idcol = diffcol::idcol;

constexpr long kSteps = 1000;

struct Grid {
  std::vector<std::pair<Shape, Shape>> pairs;
  std::vector<Pose> X1, X2;  // step-major, kSteps × pairs
};

// stride 1: the sweep as sampled (dt = 1e-4, continuous motion); stride > 1 spreads kSteps
// samples over a longer stretch of the sweep.
const Grid& ergodic_grid(long stride) {
  static std::vector<std::pair<long, Grid>> cache;
  for (const auto& [s, g] : cache)
    if (s == stride) return g;
  Grid g;
  std::vector<idcol::ErgodicSweep> sweeps;
  for (const auto& a : idcol::benchmark_shape_names())
    for (const auto& b : idcol::benchmark_shape_names()) {
      g.pairs.emplace_back(idcol::benchmark_shape(a), idcol::benchmark_shape(b));
      sweeps.push_back(idcol::ErgodicSweep::for_pair(g.pairs.back().first, g.pairs.back().second));
    }
  const size_t P = g.pairs.size();
  g.X1.assign(static_cast<size_t>(kSteps) * P, Pose::identity());
  g.X2.resize(g.X1.size());
  for (long t = 0; t < kSteps; ++t)
    for (size_t p = 0; p < P; ++p) g.X2[static_cast<size_t>(t) * P + p] = sweeps[p].pose(t * stride);
  cache.emplace_back(stride, std::move(g));
  return cache.back().second;
}

void BM_BatchErgodic(benchmark::State& state, bool warm) {
  const Grid& g = ergodic_grid(warm ? 1 : 97);
  batch::BatchOptions opt;
  opt.num_threads = static_cast<int>(state.range(0));
  opt.solve.warm_start = warm;
  batch::ContactBatch b(g.pairs, opt);
  long failures = 0;
  for (auto _ : state) {
    b.solve(g.X1, g.X2, kSteps);
    for (const auto& s : b.solutions()) failures += !s.ok();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<long>(g.X1.size()));
  state.counters["fail"] = benchmark::Counter(static_cast<double>(failures));
}

void BM_BatchStep(benchmark::State& state) {
  const Grid& g = ergodic_grid(1);
  batch::BatchOptions opt;
  opt.num_threads = static_cast<int>(state.range(0));
  batch::ContactBatch b(g.pairs, opt);
  const size_t P = g.pairs.size();
  for (auto _ : state) {
    for (long t = 0; t < kSteps; ++t) {
      const size_t o = static_cast<size_t>(t) * P;
      b.solve(std::span<const Pose>(g.X1).subspan(o, P), std::span<const Pose>(g.X2).subspan(o, P));
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<long>(g.X1.size()));
}

// blocks: 0 none (derivatives off), 1 J_gap + J_alpha, 2 J_gap + J_p1_W, 3 all.
void BM_OnePair(benchmark::State& state, int blocks) {
  const Shape a = idcol::benchmark_shape("poly"), b = idcol::benchmark_shape("se");
  const idcol::ErgodicSweep sweep = idcol::ErgodicSweep::for_pair(a, b);
  std::vector<Pose> X2(static_cast<size_t>(kSteps));
  for (long t = 0; t < kSteps; ++t) X2[static_cast<size_t>(t)] = sweep.pose(97 * t);
  const Pose X1 = Pose::identity();
  batch::BatchOptions opt;
  opt.num_threads = static_cast<int>(state.range(0));
  opt.derivatives = blocks != 0;
  const std::vector<std::string> gap_p1 = {"J_gap", "J_p1_W"};
  if (blocks == 2) opt.blocks = batch::DerivativeBlocks::from_names(gap_p1);
  if (blocks == 3) opt.blocks = batch::DerivativeBlocks::all();
  batch::ContactBatch one(a, b, opt);
  for (auto _ : state) {
    one.solve_poses(std::span<const Pose>(&X1, 1), X2);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kSteps);
}

void thread_counts(benchmark::internal::Benchmark* bm) {
  bm->Arg(1)->Arg(2);
  if (batch::available_cores() > 2) bm->Arg(batch::available_cores());
  bm->ArgName("threads")->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK_CAPTURE(BM_BatchErgodic, cold, false)->Name("Batch/ergodic_cold")->Apply(thread_counts);
BENCHMARK_CAPTURE(BM_BatchErgodic, warm, true)->Name("Batch/ergodic_warm")->Apply(thread_counts);
BENCHMARK(BM_BatchStep)->Name("Batch/step_warm")->Apply(thread_counts);
BENCHMARK_CAPTURE(BM_OnePair, none, 0)->Name("Batch/one_pair_none")->Apply(thread_counts);
BENCHMARK_CAPTURE(BM_OnePair, gap_alpha, 1)->Name("Batch/one_pair_gap_alpha")->Apply(thread_counts);
BENCHMARK_CAPTURE(BM_OnePair, gap_p1, 2)->Name("Batch/one_pair_gap_p1")->Apply(thread_counts);
BENCHMARK_CAPTURE(BM_OnePair, all, 3)->Name("Batch/one_pair_all")->Apply(thread_counts);

}  // namespace batch_benchmarks
