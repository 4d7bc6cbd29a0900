// Google Benchmark cases of the Contax witness routines (the seed's Fig. 6), single thread:
//
//  Manifold/EdgeEdge/<smooth|hard>/<N>       edge_edge_witness over N queries per iteration
//  Manifold/VertexFace/<smooth|hard>/<N>     vertex_face_witness over N queries per iteration
//  Manifold/EdgeEdgeJacobian/smooth/<N>      the same E-E routine with Dual<12> (value + the
//                                            Jacobian w.r.t. the 12 end-point coordinates)
//
//  Manifold/BoxOnBox/<value|twist_jacobian>/<n>  the full manifold between two cubes meshed with
//                                            n × n squares per face (n = 1: 8 vertices, n = 4:
//                                            98), all vertices and all E-E candidate (feature)
//                                            edges (12n per cube), tilted resting pose;
//                                            "twist_jacobian" adds the 12-column derivatives.
//  Manifold/BoxOnBoxSelected/<value|twist_jacobian>/<n>  the same with soft top-K selection of
//                                            8 edges per cube (|E_b| = 8, t_topk = 0.01).
//
// Queries are points drawn uniformly from the unit cube (as in the seed), generated once per
// size before timing; items/s = queries per second. N runs 1 … 10^6 (10^7 would need ~1 GB of
// inputs; the per-query cost is flat by then). "smooth" uses WitnessOptions{} (λ = 0.01,
// temperatures 0.1), "hard" WitnessOptions::hard() (the seed's "Ours-NS").
#include <map>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
#include "diffcol/manifold/witness.hpp"

namespace manifold_benchmarks {  // one namespace per file: the benchmarks are built as a unity build

namespace mf = diffcol::manifold;
using P3 = mf::V3<double>;

/// 4 points per query (E-E: a0, a1, b0, b1; V-F: v, p0, p1, p2), cached per size.
const std::vector<P3>& queries(long n) {
  static std::map<long, std::vector<P3>> cache;
  auto& q = cache[n];
  if (q.empty()) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> U(0.0, 1.0);
    q.resize(static_cast<size_t>(4 * n));
    for (P3& p : q) p = P3(U(rng), U(rng), U(rng));
  }
  return q;
}

/// n queries of one witness routine (edge_edge_witness or vertex_face_witness: four points each).
template <class Witness>
void witness_loop(benchmark::State& state, bool smooth, Witness witness) {
  const long n = state.range(0);
  const std::vector<P3>& q = queries(n);
  const mf::WitnessOptions opt = smooth ? mf::WitnessOptions{} : mf::WitnessOptions::hard();
  std::vector<double> out(static_cast<size_t>(n));
  for (auto _ : state) {
    for (long i = 0; i < n; ++i) {
      const P3* p = &q[static_cast<size_t>(4 * i)];
      out[static_cast<size_t>(i)] = witness(p[0], p[1], p[2], p[3], opt).distance;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_EdgeEdge(benchmark::State& state, bool smooth) {
  witness_loop(state, smooth, [](const P3& a, const P3& b, const P3& c, const P3& d, const mf::WitnessOptions& o) {
    return mf::edge_edge_witness(a, b, c, d, o);
  });
}

void BM_VertexFace(benchmark::State& state, bool smooth) {
  witness_loop(state, smooth, [](const P3& a, const P3& b, const P3& c, const P3& d, const mf::WitnessOptions& o) {
    return mf::vertex_face_witness(a, b, c, d, o);
  });
}

void BM_EdgeEdgeJacobian(benchmark::State& state) {
  using D = mf::Dual<12>;
  const long n = state.range(0);
  const std::vector<P3>& q = queries(n);
  const mf::WitnessOptions opt;
  std::vector<double> out(static_cast<size_t>(n));
  auto seed = [](const P3& p, int k) { return mf::V3<D>(D::variable(p.x, k), D::variable(p.y, k + 1), D::variable(p.z, k + 2)); };
  for (auto _ : state) {
    for (long i = 0; i < n; ++i) {
      const P3* p = &q[static_cast<size_t>(4 * i)];
      const auto w = mf::edge_edge_witness(seed(p[0], 0), seed(p[1], 3), seed(p[2], 6), seed(p[3], 9), opt);
      out[static_cast<size_t>(i)] = w.distance.d.sum();
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_BoxOnBox(benchmark::State& state, bool derivatives, bool select_edges) {
  const int n = static_cast<int>(state.range(0));
  const mf::ContactObject top(mf::make_refined_box(Eigen::Vector3d::Constant(0.7), n),
                              mf::make_box_sdf(Eigen::Vector3d::Constant(0.7), 0.1));
  const mf::ContactObject bottom(mf::make_refined_box(Eigen::Vector3d::Ones(), n),
                                 mf::make_box_sdf(Eigen::Vector3d::Ones(), 0.1));
  diffcol::Pose X1 = diffcol::Pose::identity();
  X1.R = Eigen::AngleAxisd(0.1, Eigen::Vector3d(1.0, 0.3, 0.0).normalized()).toRotationMatrix();
  X1.p = Eigen::Vector3d(0.02, -0.03, 0.84);
  const diffcol::Pose X2 = diffcol::Pose::identity();
  mf::ManifoldOptions opt;
  if (select_edges) {
    opt.num_edges[0] = opt.num_edges[1] = 8;
    opt.t_topk = 0.01;
  }
  mf::ManifoldWorkspace ws;
  mf::ContactManifold m;
  mf::ManifoldDerivatives d;
  for (auto _ : state) {
    if (derivatives)
      mf::compute_manifold_derivatives(top, X1, bottom, X2, opt, mf::PoseCoordinates::local, ws, m, d);
    else
      mf::compute_manifold(top, X1, bottom, X2, opt, ws, m);
    benchmark::DoNotOptimize(m.entries.data());
  }
  state.counters["entries"] = static_cast<double>(m.entries.size());
}


BENCHMARK_CAPTURE(BM_BoxOnBox, value, false, false)->Name("Manifold/BoxOnBox/value")->Arg(1)->Arg(4);
BENCHMARK_CAPTURE(BM_BoxOnBox, twist_jacobian, true, false)->Name("Manifold/BoxOnBox/twist_jacobian")->Arg(1)->Arg(4);
BENCHMARK_CAPTURE(BM_BoxOnBox, value, false, true)->Name("Manifold/BoxOnBoxSelected/value")->Arg(1)->Arg(4);
BENCHMARK_CAPTURE(BM_BoxOnBox, twist_jacobian, true, true)->Name("Manifold/BoxOnBoxSelected/twist_jacobian")->Arg(1)->Arg(4);
BENCHMARK_CAPTURE(BM_EdgeEdge, smooth, true)->Name("Manifold/EdgeEdge/smooth")->RangeMultiplier(10)->Range(1, 1000000);
BENCHMARK_CAPTURE(BM_EdgeEdge, hard, false)->Name("Manifold/EdgeEdge/hard")->RangeMultiplier(10)->Range(1, 1000000);
BENCHMARK_CAPTURE(BM_VertexFace, smooth, true)->Name("Manifold/VertexFace/smooth")->RangeMultiplier(10)->Range(1, 1000000);
BENCHMARK_CAPTURE(BM_VertexFace, hard, false)->Name("Manifold/VertexFace/hard")->RangeMultiplier(10)->Range(1, 1000000);
BENCHMARK(BM_EdgeEdgeJacobian)->Name("Manifold/EdgeEdgeJacobian/smooth")->RangeMultiplier(100)->Range(1, 1000000);

}  // namespace manifold_benchmarks
