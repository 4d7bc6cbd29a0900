// Google Benchmark cases of the SSDF layer (include/diffcol/ssdf/):
//
//  Ssdf/query/<I>                 SSDF (9) of a T-shape AOPC with I points at one world point,
//                                 with its point and pose gradients
//  Ssdf/separation/<I>            smooth separation distance (11) T(I) vs sphere(100), with Jacobian
//  Ssdf/pair/value/<I>/<J>        SCM contact (23) T(I) vs sphere(J), wrenches only
//  Ssdf/pair/jacobians/<I>/<J>    the same with the 12×12 pose and velocity Jacobians
//  Ssdf/pair/*/cutoff1e-12/...    the same with ScmParameters::weight_cutoff = 1e-12
//
// Configurations cycle through 64 sphere positions around the T (half of them penetrating).
// Cost is O(I·J) per pair query whatever the number of contacts (Sec. III-C).
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/scm.hpp"
#include "diffcol/ssdf/ssdf.hpp"

namespace {

namespace ssdf = diffcol::ssdf;
namespace mesh = diffcol::mesh;
using diffcol::Pose;
using diffcol::Vec3;
using diffcol::Vec6;

const ssdf::OrientedPointCloud& t_cloud(int n) {
  static std::vector<std::pair<int, ssdf::OrientedPointCloud>> cache;
  for (const auto& c : cache)
    if (c.first == n) return c.second;
  ssdf::AopcOptions o;
  o.num_points = n;
  cache.emplace_back(n, ssdf::make_aopc(mesh::make_t_shape(), o));
  return cache.back().second;
}

const ssdf::OrientedPointCloud& sphere_cloud(int n) {
  static std::vector<std::pair<int, ssdf::OrientedPointCloud>> cache;
  for (const auto& c : cache)
    if (c.first == n) return c.second;
  ssdf::AopcOptions o;
  o.num_points = n;
  cache.emplace_back(n, ssdf::make_aopc(mesh::make_icosphere(0.02, 3), o));
  return cache.back().second;
}

/// Sphere poses next to random T surface points, offset along the normal by r ± 5 mm.
std::vector<Pose> sphere_poses(const ssdf::OrientedPointCloud& t) {
  std::mt19937 rng(3);
  std::vector<Pose> v;
  for (int k = 0; k < 64; ++k) {
    const int i = static_cast<int>(rng() % static_cast<unsigned>(t.size()));
    Pose X;
    X.p = t.points()[static_cast<size_t>(i)] + (0.02 + (k % 2 ? 0.005 : -0.005)) * t.normals()[static_cast<size_t>(i)];
    v.push_back(X);
  }
  return v;
}

ssdf::ScmParameters bench_parameters() {
  ssdf::ScmParameters p;
  p.eps1 = 1e-5;
  p.eps2 = 1e-3;
  p.eps3 = 1e-3;
  return p;
}

void BM_SsdfQuery(benchmark::State& state) {
  const auto& c = t_cloud(static_cast<int>(state.range(0)));
  const auto poses = sphere_poses(c);
  ssdf::SsdfWorkspace ws;
  size_t i = 0;
  for (auto _ : state) {
    const auto q = ssdf::soft_signed_distance(c, Pose::identity(), poses[i].p, 1e-5, ws);
    benchmark::DoNotOptimize(q.phi);
    if (++i == poses.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SsdfQuery)->Name("Ssdf/query")->Arg(26)->Arg(500)->Arg(4000);

void BM_SsdfSeparation(benchmark::State& state) {
  const auto& t = t_cloud(static_cast<int>(state.range(0)));
  const auto& s = sphere_cloud(100);
  const auto poses = sphere_poses(t);
  ssdf::SsdfWorkspace ws;
  size_t i = 0;
  for (auto _ : state) {
    const auto r = ssdf::smooth_separation_distance(t, Pose::identity(), s, poses[i], 1e-5, 1e-3, ws, true);
    benchmark::DoNotOptimize(r.distance);
    if (++i == poses.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SsdfSeparation)->Name("Ssdf/separation")->Arg(26)->Arg(500)->Arg(4000)->Unit(benchmark::kMicrosecond);

void BM_SsdfPair(benchmark::State& state, bool jacobians, double cutoff) {
  const auto& t = t_cloud(static_cast<int>(state.range(0)));
  const auto& s = sphere_cloud(static_cast<int>(state.range(1)));
  const auto poses = sphere_poses(t);
  auto prm = bench_parameters();
  prm.weight_cutoff = cutoff;
  ssdf::SsdfWorkspace ws;
  Vec6 V1 = Vec6::Zero(), V2 = Vec6::Zero();
  V2(3) = 0.05;
  size_t i = 0;
  for (auto _ : state) {
    const auto r = ssdf::pair_contact(t, Pose::identity(), V1, s, poses[i], V2, prm, ws, jacobians);
    benchmark::DoNotOptimize(r.wrench_1.data());
    if (++i == poses.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_SsdfPair, value, false, 0.0)
    ->Name("Ssdf/pair/value")
    ->Args({26, 26})
    ->Args({500, 100})
    ->Args({4000, 100})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SsdfPair, jacobians, true, 0.0)
    ->Name("Ssdf/pair/jacobians")
    ->Args({26, 26})
    ->Args({500, 100})
    ->Args({4000, 100})
    ->Unit(benchmark::kMicrosecond);
// The same with ScmParameters::weight_cutoff = 1e-12.
BENCHMARK_CAPTURE(BM_SsdfPair, value_cutoff, false, 1e-12)
    ->Name("Ssdf/pair/value/cutoff1e-12")
    ->Args({26, 26})
    ->Args({500, 100})
    ->Args({4000, 100})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SsdfPair, jacobians_cutoff, true, 1e-12)
    ->Name("Ssdf/pair/jacobians/cutoff1e-12")
    ->Args({26, 26})
    ->Args({500, 100})
    ->Args({4000, 100})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
