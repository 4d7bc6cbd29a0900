// Google Benchmark cases of the DCOL contact query (include/diffcol/dcol/):
//
//  Dcol/<shape1>-<shape2>/evaluate      solve_contact over the pair's ergodic pose list (cold start)
//  Dcol/<shape1>-<shape2>/derivatives   contact_derivatives of precomputed solutions (1000 results cycled:
//                                       each ~8 KB, so this is the cache-cold cost)
//  Dcol/<shape1>-<shape2>/evaluate_derivatives  solve_contact then contact_derivatives of that result, the
//                                       way a planner calls them; minus evaluate = the derivatives' added cost
//  DcolHull/<F>faces-<shape>/evaluate  solve_contact of the convex hull of points on the unit sphere
//                                       (F faces, a large polytope above 32) against a box
//                                       (half-extents 0.5) or the benchmark capsule, same poses
//
// Poses: idcol::ErgodicSweep with rmin = 0.1·min(inner radii), rmax = 2·max(outer radii), body 1
// at the identity, 10⁴ poses per pair computed before timing and cycled through. Every one of
// the 28 unordered pairs of the seven benchmark primitives (dcol::benchmark_primitive) is
// registered; the iDCOL timings for comparison are the Contact/*/cold cases of
// micro_benchmarks.cpp (--benchmark_filter=Contact/poly-poly/cold etc.).
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/idcol/ergodic.hpp"

namespace dcol_benchmarks {  // one namespace per file: the benchmarks are built as a unity build

using diffcol::Pose;
namespace dcol = diffcol::dcol;

constexpr int kDcolPoses = 10000;

std::vector<Pose> dcol_poses(const dcol::Primitive& a, const dcol::Primitive& b) {
  diffcol::idcol::ErgodicSweep e;
  e.rmin = 0.1 * std::min(dcol::inner_radius(a), dcol::inner_radius(b));
  e.rmax = 2.0 * std::max(dcol::outer_radius(a), dcol::outer_radius(b));
  std::vector<Pose> v(kDcolPoses);
  for (int i = 0; i < kDcolPoses; ++i) v[static_cast<size_t>(i)] = e.pose(i);
  return v;
}

void BM_DcolEvaluate(benchmark::State& state, const char* n1, const char* n2) {
  const dcol::Primitive a = dcol::benchmark_primitive(n1), b = dcol::benchmark_primitive(n2);
  const std::vector<Pose> poses = dcol_poses(a, b);
  auto res = std::make_unique<dcol::ContactResult>();
  const Pose I = Pose::identity();
  size_t i = 0;
  long iterations = 0, failures = 0;
  for (auto _ : state) {
    dcol::solve_contact(a, I, b, poses[i], *res);
    iterations += res->iterations;
    failures += !res->ok();
    benchmark::DoNotOptimize(res->alpha);
    if (++i == poses.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["ipm_it"] = benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kAvgIterations);
  state.counters["fail"] = benchmark::Counter(static_cast<double>(failures));
}

void BM_DcolDerivatives(benchmark::State& state, const char* n1, const char* n2) {
  const dcol::Primitive a = dcol::benchmark_primitive(n1), b = dcol::benchmark_primitive(n2);
  const std::vector<Pose> poses = dcol_poses(a, b);
  constexpr int kStored = 1000;  // solutions kept in memory (each holds its KKT factorization)
  std::vector<dcol::ContactResult> sols(kStored);
  for (int q = 0; q < kStored; ++q)
    dcol::solve_contact(a, Pose::identity(), b, poses[static_cast<size_t>(q * (kDcolPoses / kStored))],
                        sols[static_cast<size_t>(q)]);
  dcol::ContactDerivatives d;
  size_t i = 0;
  for (auto _ : state) {
    dcol::contact_derivatives(sols[i], d);
    benchmark::DoNotOptimize(d.J_alpha_X1.data());
    if (++i == sols.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_DcolEvaluateDerivatives(benchmark::State& state, const char* n1, const char* n2) {
  const dcol::Primitive a = dcol::benchmark_primitive(n1), b = dcol::benchmark_primitive(n2);
  const std::vector<Pose> poses = dcol_poses(a, b);
  auto res = std::make_unique<dcol::ContactResult>();
  dcol::ContactDerivatives d;
  const Pose I = Pose::identity();
  size_t i = 0;
  for (auto _ : state) {
    dcol::solve_contact(a, I, b, poses[i], *res);
    dcol::contact_derivatives(*res, d);
    benchmark::DoNotOptimize(d.J_alpha_X1.data());
    if (++i == poses.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

/// The hull of F/2 + 2 random points on the unit sphere (F triangular faces).
dcol::Polytope sphere_hull(int faces) {
  std::mt19937 rng(12345);
  std::normal_distribution<double> N(0.0, 1.0);
  std::vector<diffcol::Vec3> p;
  for (int i = 0; i < faces / 2 + 2; ++i) p.push_back(diffcol::Vec3(N(rng), N(rng), N(rng)).normalized());
  return dcol::Polytope::convex_hull(p);
}

void BM_DcolHullEvaluate(benchmark::State& state, int faces, const char* other) {
  const dcol::Primitive a = sphere_hull(faces);
  const dcol::Primitive b = std::string(other) == "box" ? dcol::Primitive(dcol::Polytope::box(0.5, 0.5, 0.5))
                                                        : dcol::benchmark_primitive(other);
  const std::vector<Pose> poses = dcol_poses(a, b);
  auto res = std::make_unique<dcol::ContactResult>();
  const Pose I = Pose::identity();
  size_t i = 0;
  long failures = 0, ipm = 0;
  for (auto _ : state) {
    dcol::solve_contact(a, I, b, poses[i], *res);
    failures += !res->ok();
    ipm += res->start == dcol::StartMethod::interior_point;
    benchmark::DoNotOptimize(res->alpha);
    if (++i == poses.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["faces"] = std::get<dcol::Polytope>(a).num_faces;
  state.counters["fail"] = benchmark::Counter(static_cast<double>(failures));
  state.counters["ipm"] = benchmark::Counter(static_cast<double>(ipm), benchmark::Counter::kAvgIterations);
}

const bool kHullRegistered = [] {
  for (int faces : {100, 1000, 4000})
    for (const char* other : {"box", "capsule", "sphere", "ellipsoid", "cylinder"})
      benchmark::RegisterBenchmark(("DcolHull/" + std::to_string(faces) + "faces-" + other + "/evaluate").c_str(),
                                   [faces, other](benchmark::State& st) { BM_DcolHullEvaluate(st, faces, other); });
  return true;
}();

const bool kRegistered = [] {
  const char* const* names = dcol::benchmark_primitive_names();
  for (int i = 0; i < dcol::kNumPrimitiveTypes; ++i)
    for (int j = i; j < dcol::kNumPrimitiveTypes; ++j) {
      const std::string pair = std::string(names[i]) + "-" + names[j];
      const char* a = names[i];
      const char* b = names[j];
      benchmark::RegisterBenchmark(("Dcol/" + pair + "/evaluate").c_str(),
                                   [a, b](benchmark::State& st) { BM_DcolEvaluate(st, a, b); });
      benchmark::RegisterBenchmark(("Dcol/" + pair + "/derivatives").c_str(),
                                   [a, b](benchmark::State& st) { BM_DcolDerivatives(st, a, b); });
      benchmark::RegisterBenchmark(("Dcol/" + pair + "/evaluate_derivatives").c_str(),
                                   [a, b](benchmark::State& st) { BM_DcolEvaluateDerivatives(st, a, b); });
    }
  return true;
}();

}  // namespace dcol_benchmarks
