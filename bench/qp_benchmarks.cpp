// DiffPills proximity benchmarks (include/diffcol/qp/): one case per pair and stage, over an
// ergodic pose sweep (idcol::ErgodicSweep, body 1 at the identity; rmin = 0.1·min(padding
// radii), rmax = 2·max(bounding radii)), precomputed and cycled through.
//
//  QP/<pair>/proximity               proximity() (φ, signed distance, closest points)
//  QP/<pair>/proximity+derivatives   proximity() + proximity_derivatives() (world twists)
//  QP/capsule-capsule/phi+gradient   proximity_gradient() (φ and dφ/d twists only)
//  QP/capsule-capsule/ip_proximity   proximity() with the interior-point solver, for comparison
//
// Shapes: capsule L = 2, R = 0.5; polygon = regular hexagon of circumradius 1, padding 0.2.
#include <cmath>
#include <vector>

#include <benchmark/benchmark.h>

#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"

namespace qp_benchmarks {  // one namespace per file: the benchmarks are built as a unity build

using diffcol::Pose;
namespace qp = diffcol::qp;

constexpr long kQpPoses = 100000;  // 10 s of the sweep (dt = 1e-4)

const qp::Capsule& bench_capsule() {
  static const qp::Capsule c(0.5, 2.0);
  return c;
}
const qp::PaddedPolygon& bench_polygon() {
  static const qp::PaddedPolygon p = [] {
    std::vector<qp::Vec2> v;
    for (int k = 0; k < 6; ++k) v.emplace_back(std::cos(k * M_PI / 3), std::sin(k * M_PI / 3));
    return qp::PaddedPolygon::from_vertices(v, 0.2);
  }();
  return p;
}
double inner(const qp::Capsule& c) { return c.radius(); }
double outer(const qp::Capsule& c) { return c.half_length() + c.radius(); }
double inner(const qp::PaddedPolygon& p) { return p.radius(); }
double outer(const qp::PaddedPolygon& p) { return p.core_radius() + p.radius(); }

template <class S1, class S2>
std::vector<Pose> sweep_poses(const S1& s1, const S2& s2) {
  diffcol::idcol::ErgodicSweep e;
  e.rmin = 0.1 * std::min(inner(s1), inner(s2));
  e.rmax = 2.0 * std::max(outer(s1), outer(s2));
  std::vector<Pose> v(kQpPoses);
  for (long i = 0; i < kQpPoses; ++i) v[static_cast<size_t>(i)] = e.pose(i);
  return v;
}

template <class S1, class S2>
void BM_QpProximity(benchmark::State& state, const S1& s1, const S2& s2, bool derivatives,
                    qp::CapsuleSolver solver) {
  const std::vector<Pose> poses = sweep_poses(s1, s2);
  const Pose I = Pose::identity();
  qp::ProximityOptions opt;
  opt.capsule_solver = solver;
  qp::ProximityResult r;
  qp::ProximityDerivatives d;
  size_t i = 0;
  long iterations = 0, failures = 0;
  for (auto _ : state) {
    qp::proximity(s1, I, s2, poses[i], opt, r);
    if (derivatives) {
      qp::proximity_derivatives(s1, I, s2, poses[i], r, d);
      benchmark::DoNotOptimize(&d);
    }
    iterations += r.qp.iterations;
    failures += !r.ok();
    benchmark::DoNotOptimize(&r);
    if (++i == poses.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["ip_it"] = benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kAvgIterations);
  state.counters["fail"] = benchmark::Counter(static_cast<double>(failures));
}

void BM_QpCapsuleGradient(benchmark::State& state) {
  const qp::Capsule& c = bench_capsule();
  const std::vector<Pose> poses = sweep_poses(c, c);
  const Pose I = Pose::identity();
  qp::ProximityGradient g;
  size_t i = 0;
  for (auto _ : state) {
    qp::proximity_gradient(c, I, c, poses[i], g);
    benchmark::DoNotOptimize(&g);
    if (++i == poses.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

const auto AS = qp::CapsuleSolver::active_set;
const auto IP = qp::CapsuleSolver::interior_point;

BENCHMARK(BM_QpCapsuleGradient)->Name("QP/capsule-capsule/phi+gradient");
BENCHMARK_CAPTURE(BM_QpProximity, cc, bench_capsule(), bench_capsule(), false, AS)->Name("QP/capsule-capsule/proximity");
BENCHMARK_CAPTURE(BM_QpProximity, ccd, bench_capsule(), bench_capsule(), true, AS)
    ->Name("QP/capsule-capsule/proximity+derivatives");
BENCHMARK_CAPTURE(BM_QpProximity, ccip, bench_capsule(), bench_capsule(), false, IP)
    ->Name("QP/capsule-capsule/ip_proximity");
BENCHMARK_CAPTURE(BM_QpProximity, pp, bench_polygon(), bench_polygon(), false, AS)->Name("QP/polygon-polygon/proximity");
BENCHMARK_CAPTURE(BM_QpProximity, ppd, bench_polygon(), bench_polygon(), true, AS)
    ->Name("QP/polygon-polygon/proximity+derivatives");
BENCHMARK_CAPTURE(BM_QpProximity, cp, bench_capsule(), bench_polygon(), false, AS)->Name("QP/capsule-polygon/proximity");
BENCHMARK_CAPTURE(BM_QpProximity, cpd, bench_capsule(), bench_polygon(), true, AS)
    ->Name("QP/capsule-polygon/proximity+derivatives");

}  // namespace qp_benchmarks
