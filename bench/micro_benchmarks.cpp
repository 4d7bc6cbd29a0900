// Google Benchmark micro-benchmarks of diffcol (target diffcol_benchmarks).
//
//  Contact/<body1>-<body2>/cold   ContactPair::solve_cold over a precomputed ergodic pose list
//  Contact/<body1>-<body2>/warm   ContactPair::solve in sequence over the same list (warm-started)
//  Eval/<shape>                   φ, ∇φ, ∇²φ of one shape at points of the pose list
//
// Each iteration is one solve (items/s = solves per second). The poses are those of
// idcol::ErgodicSweep::for_pair (body 1 at the identity), computed once per pair before timing
// and cycled through; the hot loop allocates nothing.
//
// By default a representative subset of pairs is registered (poly-poly, poly-ellipsoid,
// ellipsoid-ellipsoid, se-se, sec-se, tc-tc); pass --all-pairs for every ordered pair of the six
// benchmark shapes. The usual --benchmark_* flags apply (e.g. --benchmark_filter=warm).
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/ergodic.hpp"

namespace micro_benchmarks {  // one namespace per file: the benchmarks are built as a unity build

using diffcol::Mat3;
using diffcol::Pose;
using diffcol::Shape;
using diffcol::Vec3;
namespace idcol = diffcol::idcol;

constexpr long kPoses = 100000;  // 10 s of the sweep (dt = 1e-4)

/// The pose list of a pair, computed once.
const std::vector<Pose>& poses_for(const std::string& n1, const std::string& n2) {
  static std::map<std::pair<std::string, std::string>, std::vector<Pose>> cache;
  auto& v = cache[{n1, n2}];
  if (v.empty()) {
    const auto sweep = idcol::ErgodicSweep::for_pair(idcol::benchmark_shape(n1), idcol::benchmark_shape(n2));
    v.resize(kPoses);
    for (long i = 0; i < kPoses; ++i) v[static_cast<size_t>(i)] = sweep.pose(i);
  }
  return v;
}

void BM_Contact(benchmark::State& state, const std::string& n1, const std::string& n2, bool warm) {
  const std::vector<Pose>& poses = poses_for(n1, n2);
  idcol::ContactPair pair(idcol::benchmark_shape(n1), idcol::benchmark_shape(n2));
  const Pose I = Pose::identity();
  const size_t n = poses.size();
  size_t i = 0;
  long iterations = 0, failures = 0;
  for (auto _ : state) {
    const idcol::ContactSolution& s = warm ? pair.solve(I, poses[i]) : pair.solve_cold(I, poses[i]);
    iterations += s.iterations;
    failures += !s.ok();
    benchmark::DoNotOptimize(&s);
    if (++i == n) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["newton_it"] = benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kAvgIterations);
  state.counters["fail"] = benchmark::Counter(static_cast<double>(failures));
}

void BM_Eval(benchmark::State& state, const std::string& name) {
  const Shape s = idcol::benchmark_shape(name);
  // Points around the surface: the sweep positions scaled onto the shape's size.
  const std::vector<Pose>& poses = poses_for(name, name);
  std::vector<Vec3> pts;
  pts.reserve(4096);
  for (size_t k = 0; k < 4096; ++k) pts.push_back(0.5 * poses[k * 7 % poses.size()].p);
  Vec3 g;
  Mat3 H;
  size_t i = 0;
  double acc = 0;
  for (auto _ : state) {
    acc += s.eval(pts[i], g, H);
    benchmark::DoNotOptimize(g.data());
    benchmark::DoNotOptimize(H.data());
    if (++i == pts.size()) i = 0;
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations());
}

void register_all(bool all_pairs) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (all_pairs) {
    for (const auto& a : idcol::benchmark_shape_names())
      for (const auto& b : idcol::benchmark_shape_names()) pairs.emplace_back(a, b);
  } else {
    pairs = {{"poly", "poly"}, {"poly", "ellipsoid"}, {"ellipsoid", "ellipsoid"},
             {"se", "se"},     {"sec", "se"},         {"tc", "tc"}};
  }
  for (const auto& [a, b] : pairs) {
    for (bool warm : {false, true}) {
      const std::string name = "Contact/" + a + "-" + b + (warm ? "/warm" : "/cold");
      benchmark::RegisterBenchmark(name.c_str(), [a = a, b = b, warm](benchmark::State& st) {
        BM_Contact(st, a, b, warm);
      });
    }
  }
  for (const auto& s : idcol::benchmark_shape_names()) {
    benchmark::RegisterBenchmark(("Eval/" + s).c_str(), [s](benchmark::State& st) { BM_Eval(st, s); });
  }
}

}  // namespace micro_benchmarks

int main(int argc, char** argv) {
  bool all_pairs = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--all-pairs") == 0) {
      all_pairs = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(args.size());
  micro_benchmarks::register_all(all_pairs);
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
