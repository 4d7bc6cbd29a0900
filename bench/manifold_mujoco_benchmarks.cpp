// Contax at scale (seed Sec. V-2/V-3, Figs. 6–7): Google Benchmark cases.
//
//  ContaxScale/EdgeEdgeBatch/<smooth|hard>/<N>        edge_edge_witness_batch, N queries, 1 thread
//  ContaxScale/VertexFaceBatch/<smooth|hard>/<N>      vertex_face_witness_batch, N queries, 1 thread
//  ContaxScale/EdgeEdgeBatchPool/smooth/<N>           the same E-E batch over all cores (real time)
//      N = 1 … 10^6 by default; set DIFFCOL_BENCH_MAX_QUERIES=10000000 for the seed's 10^7
//      (≈ 1 GB of inputs). Queries: 4 points uniform in the unit cube (as in the seed).
//
//  ContaxScale/Figures/<case>/18           the manifold between two 18-superquadric figures
//                                         (~300 vertices each; all vertices: ~610 V-S entries;
//                                         K = 18 edges per body: 648 E-E entries), 100 random
//                                         overlapping relative poses per iteration, 1 thread.
//      forward, gradient                  dense (the seed's fixed sizes; 12 body-twist columns)
//      forward_culled, gradient_culled    ManifoldOptions::culling (exact to rounding)
//      forward_vs_only, forward_ne_culled V-S entries only (the seed's "Ours-NE")
//      forward_ne_s, forward_ne_s_culled  body 1's vertices only ("Ours-NE-S", supp. Fig. 8)
//      {forward,gradient}_hard[_culled]   every temperature 0 (the seed's "Ours-NS")
//  ContaxScale/Figures/{forward,gradient}_batch/18/100   the 100 manifolds through ManifoldBatch, all cores
//  ContaxScale/MuJoCo/collision/18        MuJoCo 2.2.2 (if found): two free bodies, 18 convex
//                                         mesh geoms each (the figures' pieces, ≤ 26 vertices),
//                                         mj_kinematics + mj_collision at the same 100 poses
//  ContaxScale/MuJoCo/kinematics/18       mj_kinematics alone (subtract for the narrow phase)
//  ContaxScale/Complexity/<case>/<k>      Fig. 7 (a): figures rebuilt from their first k pieces
//                                         (k = 1 … 18, ~305·k/18 vertices, ≥ 100; K = k edges),
//                                         100 poses, 1 thread: forward_culled, gradient_culled,
//                                         forward (dense), mujoco (k × k convex pieces)
//  ContaxScale/Batch/<case>/<k>/<N>       Fig. 7 (b) and Fig. 8: N = 1 … 1024 manifolds per call
//                                         (the 100 poses repeated) on all cores (real time), k = 5
//                                         and 18: forward_culled, gradient_culled, forward (dense),
//                                         ne_culled, ne_s_culled, mujoco (one mjData per thread)
//
// us_per_manifold = CPU (or, for the real-time cases, wall) µs per manifold / collision call.
// The host line (apps/host_info.hpp) is printed first.
// items/s = manifolds (or collision calls) per second: per-manifold time = 1/items_per_second.
// Counters: entries per manifold, mean active entries (activity > 0.5) resp. MuJoCo contacts.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <Eigen/Geometry>
#include <benchmark/benchmark.h>

#include "diffcol/batch/thread_pool.hpp"
#include "diffcol/manifold/batch.hpp"
#include "diffcol/manifold/figures.hpp"
#ifdef DIFFCOL_BENCH_HOST_INFO
#include "../apps/host_info.hpp"
#endif

#ifdef DIFFCOL_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace manifold_mujoco_benchmarks {  // one namespace per file: the benchmarks are built as a unity build

namespace mf = diffcol::manifold;
using diffcol::Pose;

// ---------------------------------------------------------------------------------------------
// Fig. 6: witness routines over N queries.
// ---------------------------------------------------------------------------------------------

const std::vector<double>& witness_queries(long n) {
  static std::map<long, std::vector<double>> cache;
  std::vector<double>& q = cache[n];
  if (q.empty()) {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> U(0.0, 1.0);
    q.resize(static_cast<std::size_t>(12 * n));
    for (double& x : q) x = U(rng);
  }
  return q;
}

diffcol::batch::ThreadPool& shared_pool() {
  static diffcol::batch::ThreadPool pool(0);
  return pool;
}

void BM_EdgeEdgeBatch(benchmark::State& state, bool smooth, bool pool) {
  const long n = state.range(0);
  const std::vector<double>& q = witness_queries(n);
  const mf::WitnessOptions opt = smooth ? mf::WitnessOptions{} : mf::WitnessOptions::hard();
  std::vector<double> e1(3 * n), e2(3 * n), dist(n);
  for (auto _ : state) {
    mf::edge_edge_witness_batch(q, opt, {e1, e2, {}, dist, {}}, pool ? &shared_pool() : nullptr);
    benchmark::DoNotOptimize(dist.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
  if (pool) state.counters["threads"] = shared_pool().num_threads();
}

void BM_VertexFaceBatch(benchmark::State& state, bool smooth) {
  const long n = state.range(0);
  const std::vector<double>& q = witness_queries(n);
  const mf::WitnessOptions opt = smooth ? mf::WitnessOptions{} : mf::WitnessOptions::hard();
  std::vector<double> point(3 * n), dist(n);
  for (auto _ : state) {
    mf::vertex_face_witness_batch(q, opt, {point, dist, {}});
    benchmark::DoNotOptimize(dist.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
}

// ---------------------------------------------------------------------------------------------
// Fig. 7: the full manifold between two 18-superquadric figures vs MuJoCo.
// ---------------------------------------------------------------------------------------------

constexpr int kPoses = 100;

struct Scene {
  mf::LimbedFigure figure1, figure2;
  std::vector<Pose> X1, X2;  // body 1 at the origin, body 2 at random overlapping poses
};

/// The two figures from their first k pieces (k = 18: the full figures, 305 vertices each; fewer
/// pieces: ~305·k/18 vertices, at least 100) and the 100 poses (the same for every k).
const Scene& scene(int k = mf::kFigurePieces) {
  static std::map<int, Scene> cache;
  auto it = cache.find(k);
  if (it != cache.end()) return it->second;
  auto figure = [&](std::uint64_t seed) {
    mf::FigureOptions o;
    o.seed = seed;
    o.num_pieces = k;
    if (k < mf::kFigurePieces) o.target_vertices = std::max(100, 305 * k / mf::kFigurePieces);
    for (int attempt = 0;; ++attempt) {
      try {
        return mf::make_limbed_figure(o);
      } catch (const std::invalid_argument&) {
        if (attempt == 8) throw;
        o.target_vertices += 40;  // a small target can lose a piece: a few more vertices
      }
    }
  };
  Scene out{figure(0), figure(5), {}, {}};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::normal_distribution<double> N(0.0, 1.0);
  for (int i = 0; i < kPoses; ++i) {
    out.X1.push_back(Pose::identity());
    Pose X;
    X.R = Eigen::Quaterniond(N(rng), N(rng), N(rng), N(rng)).normalized().toRotationMatrix();
    // The figures stand on z = 0 and are ~1 tall: centre both at mid-height, offsets that keep
    // their bounding boxes overlapping.
    const Eigen::Vector3d mid(0.0, 0.0, 0.55);
    X.p = mid - X.R * mid + Eigen::Vector3d(0.25 * U(rng), 0.25 * U(rng), 0.3 * U(rng));
    out.X2.push_back(X);
  }
  return cache.emplace(k, std::move(out)).first->second;
}

/// Simplifications of the seed's Figs. 7–8.
enum Variant : int {
  kFull = 0,      ///< all vertices, K = k edges per body (one per piece)
  kNoEdges = 1,   ///< V-S only ("Ours-NE")
  kHard = 2,      ///< every temperature 0 ("Ours-NS")
  kOneSided = 3,  ///< body 1's vertices against body 2's SDF only ("Ours-NE-S")
};

mf::ManifoldOptions variant_options(int variant, bool culling, int k = mf::kFigurePieces) {
  mf::ManifoldOptions o;  // all vertices (2 × 305 V-S), K = k edges per body (2·k·k E-E)
  if (variant == kHard) o = mf::ManifoldOptions::hard(mf::WitnessOptions{}.regularization);
  o.num_edges[0] = o.num_edges[1] = k;
  if (variant == kNoEdges || variant == kOneSided) o.edge_edge = false;
  if (variant == kOneSided) o.num_vertices[1] = 0;
  o.culling = culling;
  return o;
}

/// One thread, 100 poses per iteration; state.range(0) = pieces per figure (default 18).
void BM_Figures(benchmark::State& state, bool gradient, int variant, bool culling) {
  const int k = state.range(0);
  const Scene& s = scene(k);
  const mf::ContactObject a = s.figure1.contact_object(), b = s.figure2.contact_object();
  const mf::ManifoldOptions opt = variant_options(variant, culling, k);
  mf::ManifoldWorkspace ws;
  mf::ContactManifold m;
  mf::ManifoldDerivatives d;
  double active = 0.0, culled = 0.0;
  for (auto _ : state) {
    active = culled = 0.0;
    for (int i = 0; i < kPoses; ++i) {
      if (gradient)
        mf::compute_manifold_derivatives(a, s.X1[i], b, s.X2[i], opt, mf::PoseCoordinates::local, ws, m, d);
      else
        mf::compute_manifold(a, s.X1[i], b, s.X2[i], opt, ws, m);
      for (const mf::ManifoldEntry& e : m.entries) {
        active += e.activity > 0.5;
        culled += e.culled;
      }
      benchmark::DoNotOptimize(m.entries.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * kPoses);
  state.counters["entries"] = static_cast<double>(m.entries.size());
  state.counters["V_S"] = m.num_vertex_sdf[0] + m.num_vertex_sdf[1];
  state.counters["E_E"] = 2.0 * m.num_edges[0] * m.num_edges[1];
  state.counters["active"] = active / kPoses;
  state.counters["culled"] = culled / kPoses;
  state.counters["us_per_manifold"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kPoses) * 1e-6,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// N = state.range(1) manifolds per call (the 100 poses repeated) through ManifoldBatch on all
/// cores; state.range(0) pieces per figure.
void BM_FiguresBatch(benchmark::State& state, bool gradient, int variant, bool culling) {
  const int k = state.range(0);
  const long n = state.range(1);
  const Scene& s = scene(k);
  mf::ManifoldBatchOptions o;
  o.manifold = variant_options(variant, culling, k);
  mf::ManifoldBatch batch(s.figure1.contact_object(), s.figure2.contact_object(), o);
  batch.warm_up(gradient);
  std::vector<Pose> X1(n), X2(n);
  for (long i = 0; i < n; ++i) {
    X1[i] = s.X1[i % kPoses];
    X2[i] = s.X2[i % kPoses];
  }
  const std::size_t K = static_cast<std::size_t>(batch.entries_per_manifold());
  std::vector<double> point(n * K * 3), dist(n * K), normal(n * K * 3), act(n * K);
  std::vector<double> Jp, Jd, Jn, Ja;
  if (gradient) {
    Jp.resize(n * K * 36);
    Jn.resize(n * K * 36);
    Jd.resize(n * K * 12);
    Ja.resize(n * K * 12);
  }
  for (auto _ : state) {
    batch.compute(X1, X2, {point, dist, normal, act, Jp, Jd, Jn, Ja});
    benchmark::DoNotOptimize(act.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["threads"] = batch.num_threads();
}

#ifdef DIFFCOL_HAVE_MUJOCO

/// MJCF of two free bodies, each with one convex mesh geom per figure piece (vertices given
/// inline; MuJoCo takes their convex hull).
std::string mjcf(const Scene& s) {
  std::ostringstream x;
  x.precision(17);
  x << "<mujoco model=\"contax_figures\">\n<size nconmax=\"4000\" njmax=\"8000\"/>\n<asset>\n";
  const mf::LimbedFigure* figs[2] = {&s.figure1, &s.figure2};
  for (int b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < figs[b]->convex_pieces.size(); ++i) {
      x << "<mesh name=\"m" << b << "_" << i << "\" vertex=\"";
      for (const diffcol::Vec3& v : figs[b]->convex_pieces[i].vertices()) x << v.x() << ' ' << v.y() << ' ' << v.z() << ' ';
      x << "\"/>\n";
    }
  x << "</asset>\n<worldbody>\n";
  for (int b = 0; b < 2; ++b) {
    x << "<body name=\"fig" << b << "\"><freejoint/>\n";
    for (std::size_t i = 0; i < figs[b]->convex_pieces.size(); ++i)
      x << "<geom type=\"mesh\" mesh=\"m" << b << "_" << i << "\"/>\n";
    x << "</body>\n";
  }
  x << "</worldbody>\n</mujoco>\n";
  return x.str();
}

struct MjScene {
  mjModel* model = nullptr;
  mjData* data = nullptr;
  std::string error;
  double piece_offset = 0.0;  // max ‖geom position − piece centre‖ at the identity pose (placement check)
};

const MjScene& mujoco_scene(int k = mf::kFigurePieces) {
  static std::map<int, MjScene> cache;
  auto it = cache.find(k);
  if (it != cache.end()) return it->second;
  MjScene out;
  [&] {
    char path[] = "/tmp/diffcol_contax_XXXXXX.xml";
    const int fd = mkstemps(path, 4);
    if (fd < 0) {
      out.error = "cannot create a temporary MJCF file";
      return;
    }
    close(fd);
    std::ofstream(path) << mjcf(scene(k));
    char err[1000] = "";
    out.model = mj_loadXML(path, nullptr, err, sizeof(err));
    std::remove(path);
    if (!out.model) {
      out.error = std::string("mj_loadXML: ") + err;
      return;
    }
    out.data = mj_makeData(out.model);
    // MuJoCo re-centres meshes and offsets the geoms: check each geom lands on its piece.
    mj_kinematics(out.model, out.data);
    const mf::LimbedFigure* figs[2] = {&scene(k).figure1, &scene(k).figure2};
    for (int g = 0; g < out.model->ngeom; ++g) {
      const Eigen::Vector3d c = figs[g / k]->pieces[g % k].pose().p;
      const Eigen::Vector3d x(out.data->geom_xpos[3 * g], out.data->geom_xpos[3 * g + 1], out.data->geom_xpos[3 * g + 2]);
      out.piece_offset = std::max(out.piece_offset, (x - c).norm());
    }
  }();
  return cache.emplace(k, out).first->second;
}

/// qpos of the free joints (position, quaternion w x y z) for pose i.
void set_poses(const mjModel* m, mjData* d, const Scene& s, int i) {
  const Pose* X[2] = {&s.X1[i], &s.X2[i]};
  for (int b = 0; b < 2; ++b) {
    const int adr = m->jnt_qposadr[b];
    const Eigen::Quaterniond q(X[b]->R);
    for (int k = 0; k < 3; ++k) d->qpos[adr + k] = X[b]->p[k];
    d->qpos[adr + 3] = q.w();
    d->qpos[adr + 4] = q.x();
    d->qpos[adr + 5] = q.y();
    d->qpos[adr + 6] = q.z();
  }
}

/// mj_kinematics (+ mj_collision) at the 100 poses, one thread; state.range(0) pieces per figure.
void BM_MuJoCo(benchmark::State& state, bool collide) {
  const int k = state.range(0);
  const MjScene& ms = mujoco_scene(k);
  if (!ms.model) {
    state.SkipWithError(ms.error.c_str());
    return;
  }
  double contacts = 0.0;
  for (auto _ : state) {
    contacts = 0.0;
    for (int i = 0; i < kPoses; ++i) {
      set_poses(ms.model, ms.data, scene(k), i);
      mj_kinematics(ms.model, ms.data);
      if (collide) {
        mj_collision(ms.model, ms.data);
        contacts += ms.data->ncon;
      }
      benchmark::DoNotOptimize(ms.data->geom_xpos);
    }
  }
  state.SetItemsProcessed(state.iterations() * kPoses);
  state.counters["contacts"] = contacts / kPoses;
  state.counters["geoms"] = ms.model->ngeom;
  state.counters["piece_offset"] = ms.piece_offset;
  state.counters["us_per_manifold"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kPoses) * 1e-6,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// N collision calls (the 100 poses repeated) over the shared pool, one mjData per thread.
void BM_MuJoCoBatch(benchmark::State& state) {
  const int k = state.range(0);
  const long n = state.range(1);
  const MjScene& ms = mujoco_scene(k);
  if (!ms.model) {
    state.SkipWithError(ms.error.c_str());
    return;
  }
  const Scene& s = scene(k);
  diffcol::batch::ThreadPool& pool = shared_pool();
  struct Body {
    const MjScene* ms;
    const Scene* s;
    void operator()(long begin, long end) {
      // One mjData per (pool thread, model); never freed (the pool threads live to the end).
      thread_local std::map<const mjModel*, mjData*> own;
      mjData*& d = own[ms->model];
      if (!d) d = mj_makeData(ms->model);
      for (long i = begin; i < end; ++i) {
        set_poses(ms->model, d, *s, static_cast<int>(i % kPoses));
        mj_kinematics(ms->model, d);
        mj_collision(ms->model, d);
      }
    }
  } body{&ms, &s};
  pool.parallel_for(std::max(n, 4L * pool.num_threads()), 1, body);  // each thread's mjData outside the timing
  for (auto _ : state) pool.parallel_for(n, 1, body);
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["threads"] = pool.num_threads();
}

#endif  // DIFFCOL_HAVE_MUJOCO

/// Registers the Fig. 6 sizes up to DIFFCOL_BENCH_MAX_QUERIES (default 10^6).
const int registered = [] {
  long max_n = 1000000;
  if (const char* env = std::getenv("DIFFCOL_BENCH_MAX_QUERIES")) max_n = std::max(1L, std::atol(env));
  for (bool smooth : {true, false}) {
    const std::string tag = smooth ? "smooth" : "hard";
    benchmark::RegisterBenchmark(("ContaxScale/EdgeEdgeBatch/" + tag).c_str(), BM_EdgeEdgeBatch, smooth, false)
        ->RangeMultiplier(10)
        ->Range(1, max_n);
    benchmark::RegisterBenchmark(("ContaxScale/VertexFaceBatch/" + tag).c_str(), BM_VertexFaceBatch, smooth)
        ->RangeMultiplier(10)
        ->Range(1, max_n);
  }
  benchmark::RegisterBenchmark("ContaxScale/EdgeEdgeBatchPool/smooth", BM_EdgeEdgeBatch, true, true)
      ->RangeMultiplier(10)
      ->Range(1000, max_n)
      ->UseRealTime();
  // Fig. 7: the full figures, one thread, same run as MuJoCo; dense (the seed's fixed sizes) and culled.
  struct Case {
    const char* name;
    bool gradient;
    int variant;
    bool culling;
  };
  for (const Case& c : {Case{"forward", false, kFull, false}, Case{"gradient", true, kFull, false},
                        Case{"forward_culled", false, kFull, true}, Case{"gradient_culled", true, kFull, true},
                        Case{"forward_vs_only", false, kNoEdges, false}, Case{"forward_ne_culled", false, kNoEdges, true},
                        Case{"forward_ne_s", false, kOneSided, false}, Case{"forward_ne_s_culled", false, kOneSided, true},
                        Case{"forward_hard", false, kHard, false}, Case{"gradient_hard", true, kHard, false},
                        Case{"forward_hard_culled", false, kHard, true}, Case{"gradient_hard_culled", true, kHard, true}})
    benchmark::RegisterBenchmark((std::string("ContaxScale/Figures/") + c.name).c_str(), BM_Figures, c.gradient,
                                 c.variant, c.culling)
        ->Arg(mf::kFigurePieces)
        ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("ContaxScale/Figures/forward_batch", BM_FiguresBatch, false, kFull, false)
      ->Args({mf::kFigurePieces, kPoses})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("ContaxScale/Figures/gradient_batch", BM_FiguresBatch, true, kFull, false)
      ->Args({mf::kFigurePieces, kPoses})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
#ifdef DIFFCOL_HAVE_MUJOCO
  benchmark::RegisterBenchmark("ContaxScale/MuJoCo/collision", BM_MuJoCo, true)->Arg(mf::kFigurePieces)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("ContaxScale/MuJoCo/kinematics", BM_MuJoCo, false)->Arg(mf::kFigurePieces)->Unit(benchmark::kMicrosecond);
#endif
  // Fig. 7 (a): geometry complexity, figures rebuilt from their first k pieces, 1 thread.
  benchmark::RegisterBenchmark("ContaxScale/Complexity/forward_culled", BM_Figures, false, kFull, true)
      ->DenseRange(1, mf::kFigurePieces)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("ContaxScale/Complexity/gradient_culled", BM_Figures, true, kFull, true)
      ->DenseRange(1, mf::kFigurePieces)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("ContaxScale/Complexity/forward", BM_Figures, false, kFull, false)
      ->DenseRange(1, mf::kFigurePieces)
      ->Unit(benchmark::kMicrosecond);
#ifdef DIFFCOL_HAVE_MUJOCO
  benchmark::RegisterBenchmark("ContaxScale/Complexity/mujoco", BM_MuJoCo, true)
      ->DenseRange(1, mf::kFigurePieces)
      ->Unit(benchmark::kMicrosecond);
#endif
  // Fig. 7 (b) and Fig. 8: N = 1 … 1024 manifolds per call on all cores (real time), 5×5 and 18×18.
  for (const Case& c : {Case{"forward_culled", false, kFull, true}, Case{"gradient_culled", true, kFull, true},
                        Case{"forward", false, kFull, false}, Case{"ne_culled", false, kNoEdges, true},
                        Case{"ne_s_culled", false, kOneSided, true}})
    benchmark::RegisterBenchmark((std::string("ContaxScale/Batch/") + c.name).c_str(), BM_FiguresBatch, c.gradient,
                                 c.variant, c.culling)
        ->ArgsProduct({{5, mf::kFigurePieces}, {1, 4, 16, 64, 256, 1024}})
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
#ifdef DIFFCOL_HAVE_MUJOCO
  benchmark::RegisterBenchmark("ContaxScale/Batch/mujoco", BM_MuJoCoBatch)
      ->ArgsProduct({{5, mf::kFigurePieces}, {1, 4, 16, 64, 256, 1024}})
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
#endif
#ifdef DIFFCOL_BENCH_HOST_INFO
  const std::string host = diffcol::cli::host_line(diffcol::cli::host_info());
  std::printf("%s\n", host.c_str());
  benchmark::AddCustomContext("host", host.substr(host.find(": ") + 2));
#endif
  return 0;
}();

}  // namespace manifold_mujoco_benchmarks
