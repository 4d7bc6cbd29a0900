// Contax at scale (seed Sec. V-2/V-3, Figs. 6–7): Google Benchmark cases.
//
//  ContaxScale/EdgeEdgeBatch/<smooth|hard>/<N>        edge_edge_witness_batch, N queries, 1 thread
//  ContaxScale/VertexFaceBatch/<smooth|hard>/<N>      vertex_face_witness_batch, N queries, 1 thread
//  ContaxScale/EdgeEdgeBatchPool/smooth/<N>           the same E-E batch over all cores (real time)
//      N = 1 … 10^6 by default; set DIFFCOL_BENCH_MAX_QUERIES=10000000 for the seed's 10^7
//      (≈ 1 GB of inputs). Queries: 4 points uniform in the unit cube (as in the seed).
//
//  ContaxScale/Figures/forward            the manifold between two 18-superquadric figures
//                                         (~300 vertices each; all vertices: ~610 V-S entries;
//                                         K = 18 edges per body: 648 E-E entries), 100 random
//                                         overlapping relative poses per iteration, 1 thread
//  ContaxScale/Figures/gradient           the same with the 12-column body-twist derivatives
//  ContaxScale/Figures/forward_vs_only    V-S entries only (the seed's "Ours-NE"): the E-E share
//  ContaxScale/Figures/{forward,gradient}_hard  every temperature 0 (the seed's "Ours-NS")
//  ContaxScale/Figures/forward_batch      the 100 manifolds through ManifoldBatch, all cores
//  ContaxScale/Figures/gradient_batch     the same with derivatives
//  ContaxScale/MuJoCo/collision           MuJoCo 2.2.2 (if found): two free bodies, 18 convex
//                                         mesh geoms each (the figures' pieces, ≤ 26 vertices),
//                                         mj_kinematics + mj_collision at the same 100 poses
//  ContaxScale/MuJoCo/kinematics          mj_kinematics alone (subtract for the narrow phase)
//
// items/s = manifolds (or collision calls) per second: per-manifold time = 1/items_per_second.
// Counters: entries per manifold, mean active entries (activity > 0.5) resp. MuJoCo contacts.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
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

const Scene& scene() {
  static const Scene s = [] {
    mf::FigureOptions o1, o2;
    o2.seed = 5;
    Scene out{mf::make_limbed_figure(o1), mf::make_limbed_figure(o2), {}, {}};
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
    return out;
  }();
  return s;
}

mf::ManifoldOptions seed_options() {
  mf::ManifoldOptions o;  // all vertices (610 V-S), K = 18 edges per body (648 E-E)
  o.num_edges[0] = o.num_edges[1] = 18;
  return o;
}

/// variant: 0 = the seed's setting, 1 = V-S only ("Ours-NE"), 2 = every temperature 0 ("Ours-NS").
void BM_Figures(benchmark::State& state, bool gradient, int variant) {
  const Scene& s = scene();
  const mf::ContactObject a = s.figure1.contact_object(), b = s.figure2.contact_object();
  mf::ManifoldOptions opt = seed_options();
  if (variant == 1) opt.edge_edge = false;
  if (variant == 2) {
    opt = mf::ManifoldOptions::hard(mf::WitnessOptions{}.regularization);
    opt.num_edges[0] = opt.num_edges[1] = 18;
  }
  mf::ManifoldWorkspace ws;
  mf::ContactManifold m;
  mf::ManifoldDerivatives d;
  double active = 0.0;
  for (auto _ : state) {
    active = 0.0;
    for (int i = 0; i < kPoses; ++i) {
      if (gradient)
        mf::compute_manifold_derivatives(a, s.X1[i], b, s.X2[i], opt, mf::PoseCoordinates::local, ws, m, d);
      else
        mf::compute_manifold(a, s.X1[i], b, s.X2[i], opt, ws, m);
      for (const mf::ManifoldEntry& e : m.entries) active += e.activity > 0.5;
      benchmark::DoNotOptimize(m.entries.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * kPoses);
  state.counters["entries"] = static_cast<double>(m.entries.size());
  state.counters["V_S"] = m.num_vertex_sdf[0] + m.num_vertex_sdf[1];
  state.counters["E_E"] = 2.0 * m.num_edges[0] * m.num_edges[1];
  state.counters["active"] = active / kPoses;
}

void BM_FiguresBatch(benchmark::State& state, bool gradient) {
  const Scene& s = scene();
  mf::ManifoldBatchOptions o;
  o.manifold = seed_options();
  mf::ManifoldBatch batch(s.figure1.contact_object(), s.figure2.contact_object(), o);
  batch.warm_up(gradient);
  const std::size_t K = static_cast<std::size_t>(batch.entries_per_manifold());
  std::vector<double> point(kPoses * K * 3), dist(kPoses * K), normal(kPoses * K * 3), act(kPoses * K);
  std::vector<double> Jp, Jd, Jn, Ja;
  if (gradient) {
    Jp.resize(kPoses * K * 36);
    Jn.resize(kPoses * K * 36);
    Jd.resize(kPoses * K * 12);
    Ja.resize(kPoses * K * 12);
  }
  for (auto _ : state) {
    batch.compute(s.X1, s.X2, {point, dist, normal, act, Jp, Jd, Jn, Ja});
    benchmark::DoNotOptimize(act.data());
  }
  state.SetItemsProcessed(state.iterations() * kPoses);
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
    for (int i = 0; i < mf::kFigurePieces; ++i) {
      x << "<mesh name=\"m" << b << "_" << i << "\" vertex=\"";
      for (const diffcol::Vec3& v : figs[b]->convex_pieces[i].vertices()) x << v.x() << ' ' << v.y() << ' ' << v.z() << ' ';
      x << "\"/>\n";
    }
  x << "</asset>\n<worldbody>\n";
  for (int b = 0; b < 2; ++b) {
    x << "<body name=\"fig" << b << "\"><freejoint/>\n";
    for (int i = 0; i < mf::kFigurePieces; ++i) x << "<geom type=\"mesh\" mesh=\"m" << b << "_" << i << "\"/>\n";
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

const MjScene& mujoco_scene() {
  static const MjScene ms = [] {
    MjScene out;
    char path[] = "/tmp/diffcol_contax_XXXXXX.xml";
    const int fd = mkstemps(path, 4);
    if (fd < 0) {
      out.error = "cannot create a temporary MJCF file";
      return out;
    }
    close(fd);
    std::ofstream(path) << mjcf(scene());
    char err[1000] = "";
    out.model = mj_loadXML(path, nullptr, err, sizeof(err));
    std::remove(path);
    if (!out.model) {
      out.error = std::string("mj_loadXML: ") + err;
      return out;
    }
    out.data = mj_makeData(out.model);
    // MuJoCo re-centres meshes and offsets the geoms: check each geom lands on its piece.
    mj_kinematics(out.model, out.data);
    const mf::LimbedFigure* figs[2] = {&scene().figure1, &scene().figure2};
    for (int g = 0; g < out.model->ngeom; ++g) {
      const Eigen::Vector3d c = figs[g / mf::kFigurePieces]->pieces[g % mf::kFigurePieces].pose().p;
      const Eigen::Vector3d x(out.data->geom_xpos[3 * g], out.data->geom_xpos[3 * g + 1], out.data->geom_xpos[3 * g + 2]);
      out.piece_offset = std::max(out.piece_offset, (x - c).norm());
    }
    return out;
  }();
  return ms;
}

/// qpos of the free joints (position, quaternion w x y z) for pose i.
void set_poses(const mjModel* m, mjData* d, int i) {
  const Scene& s = scene();
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

void BM_MuJoCo(benchmark::State& state, bool collide) {
  const MjScene& ms = mujoco_scene();
  if (!ms.model) {
    state.SkipWithError(ms.error.c_str());
    return;
  }
  double contacts = 0.0;
  for (auto _ : state) {
    contacts = 0.0;
    for (int i = 0; i < kPoses; ++i) {
      set_poses(ms.model, ms.data, i);
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
  benchmark::RegisterBenchmark("ContaxScale/Figures/forward", BM_Figures, false, 0)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("ContaxScale/Figures/gradient", BM_Figures, true, 0)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("ContaxScale/Figures/forward_vs_only", BM_Figures, false, 1)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("ContaxScale/Figures/forward_hard", BM_Figures, false, 2)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("ContaxScale/Figures/gradient_hard", BM_Figures, true, 2)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("ContaxScale/Figures/forward_batch", BM_FiguresBatch, false)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("ContaxScale/Figures/gradient_batch", BM_FiguresBatch, true)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
#ifdef DIFFCOL_HAVE_MUJOCO
  benchmark::RegisterBenchmark("ContaxScale/MuJoCo/collision", BM_MuJoCo, true)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("ContaxScale/MuJoCo/kinematics", BM_MuJoCo, false)->Unit(benchmark::kMillisecond);
#endif
  return 0;
}();

}  // namespace manifold_mujoco_benchmarks
