// Google Benchmark cases of the SSDF layer (include/diffcol/ssdf/):
//
//  Ssdf/query/<I>                 SSDF (9) of a T-shape AOPC with I points at one world point,
//                                 with its point and pose gradients
//  Ssdf/separation/<I>            smooth separation distance (11) T(I) vs sphere(100), with Jacobian
//  Ssdf/pair/value/<I>/<J>        SCM contact (23) T(I) vs sphere(J), wrenches only
//  Ssdf/pair/jacobians/<I>/<J>    the same with the 12×12 pose and velocity Jacobians
//  Ssdf/pair/*/cutoff1e-12/...    the same with ScmParameters::weight_cutoff = 1e-12
//
//  SsdfDyn/<integrator>/<what>/<I>/<touch>
//                                 one step of the planar-pushing scene (dynamics.hpp): a free T
//                                 (I AOPC points) on the ground plane and a kinematic sphere finger
//                                 (r = 1 cm) touching a side of the T (touch = 1) or 10 cm away
//                                 (touch = 0); what = step (plain), jacobian (∂x⁺/∂[x;u], 30
//                                 columns) or hessian (also ∂²(wᵀx⁺)/∂[x;u]², 30 passes);
//                                 step_cutoff1e-12 / jacobian_cutoff1e-12: with
//                                 ScmParameters::weight_cutoff = 1e-12 (culled sums)
//
// Configurations cycle through 64 sphere positions around the T (half of them penetrating).
// Cost is O(I·J) per pair query whatever the number of contacts (Sec. III-C).
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/dynamics.hpp"
#include "diffcol/ssdf/scm.hpp"
#include "diffcol/ssdf/ssdf.hpp"

namespace ssdf_benchmarks {  // one namespace per file: the benchmarks are built as a unity build

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

/// The planar-pushing scene of the dynamics benchmarks and a state with the T resting on the
/// ground (slightly penetrating) and the finger at a side point.
struct PushBench {
  ssdf::Scene scene;
  ssdf::State x;
  ssdf::Control u;
};

PushBench push_bench(int n, bool touch, double cutoff = 0.0) {
  PushBench b;
  ssdf::ScmParameters prm;
  prm.stiffness = 2e3;
  prm.weight_cutoff = cutoff;
  b.scene.set_parameters(prm);
  ssdf::AopcOptions o;
  o.num_points = n;
  auto cloud = std::make_shared<const ssdf::OrientedPointCloud>(ssdf::make_aopc(mesh::make_t_shape(), o));
  ssdf::FreeBodySpec body;
  body.mass = 0.5;
  body.inertia = Eigen::Vector3d(1e-3, 2e-3, 3e-3).asDiagonal();
  body.geometry = ssdf::Geometry::point_cloud(cloud);
  b.scene.add_free_body(body);
  b.scene.add_kinematic_body({ssdf::Geometry::sphere(0.01)});
  b.scene.add_contact_pair(ssdf::BodyId::free(0), ssdf::BodyId::driven(0));
  b.scene.set_ground({});
  b.x = ssdf::State::zeros(b.scene);
  b.u = ssdf::Control::zeros(b.scene);
  const auto bb = mesh::make_t_shape().bounding_box();
  b.x.pose[0].p = Vec3(0.0, 0.0, -bb[0].z() - 5e-4);
  b.x.velocity[0] << 0.0, 0.0, 0.1, 0.02, 0.01, 0.0;
  // The side point of the cloud with the largest x (a side of the bar), finger just touching.
  int best = 0;
  for (int i = 0; i < cloud->size(); ++i)
    if (std::abs(cloud->normals()[static_cast<size_t>(i)].z()) < 0.5 &&
        cloud->points()[static_cast<size_t>(i)].x() > cloud->points()[static_cast<size_t>(best)].x())
      best = i;
  const Vec3 p = cloud->points()[static_cast<size_t>(best)], nrm = cloud->normals()[static_cast<size_t>(best)];
  b.u.pose[0].p = b.x.pose[0] * p + (touch ? 0.009 : 0.1) * nrm;
  b.u.velocity[0] << 0.0, 0.0, 0.0, -0.05 * nrm;
  return b;
}

enum class DynWhat { step, jacobian, hessian };

void BM_SsdfDynamics(benchmark::State& state, ssdf::Integrator integ, DynWhat what, double cutoff = 0.0) {
  const PushBench b = push_bench(static_cast<int>(state.range(0)), state.range(1) != 0, cutoff);
  const double h = 0.002;
  ssdf::StateVec w = ssdf::StateVec::Ones(b.scene.state_dim());
  for (auto _ : state) {
    if (what == DynWhat::step) {
      const ssdf::State y = ssdf::step(b.scene, b.x, b.u, h, integ);
      benchmark::DoNotOptimize(y.pose[0].p.data());
    } else if (what == DynWhat::jacobian) {
      const ssdf::StepJacobian J = ssdf::step_jacobian(b.scene, b.x, b.u, h, integ);
      benchmark::DoNotOptimize(J.J_next_z.data());
    } else {
      const ssdf::StepHessian H = ssdf::step_hessian(b.scene, b.x, b.u, h, integ, w);
      benchmark::DoNotOptimize(H.H_z.data());
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_SsdfDynamics, euler_step, ssdf::Integrator::euler, DynWhat::step)
    ->Name("SsdfDyn/euler/step")
    ->ArgsProduct({{26, 500, 4000}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
// The same with ScmParameters::weight_cutoff = 1e-12 (the point trees cull the sums).
BENCHMARK_CAPTURE(BM_SsdfDynamics, euler_step_cutoff, ssdf::Integrator::euler, DynWhat::step, 1e-12)
    ->Name("SsdfDyn/euler/step_cutoff1e-12")
    ->ArgsProduct({{26, 500, 4000}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SsdfDynamics, euler_jacobian_cutoff, ssdf::Integrator::euler, DynWhat::jacobian, 1e-12)
    ->Name("SsdfDyn/euler/jacobian_cutoff1e-12")
    ->ArgsProduct({{26, 500, 4000}, {1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SsdfDynamics, rk4_step, ssdf::Integrator::rk4, DynWhat::step)
    ->Name("SsdfDyn/rk4/step")
    ->ArgsProduct({{26, 500, 4000}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SsdfDynamics, euler_jacobian, ssdf::Integrator::euler, DynWhat::jacobian)
    ->Name("SsdfDyn/euler/jacobian")
    ->ArgsProduct({{26, 500, 4000}, {1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SsdfDynamics, rk4_jacobian, ssdf::Integrator::rk4, DynWhat::jacobian)
    ->Name("SsdfDyn/rk4/jacobian")
    ->ArgsProduct({{26, 500, 4000}, {1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SsdfDynamics, euler_hessian, ssdf::Integrator::euler, DynWhat::hessian)
    ->Name("SsdfDyn/euler/hessian")
    ->ArgsProduct({{26, 500}, {1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SsdfDynamics, rk4_hessian, ssdf::Integrator::rk4, DynWhat::hessian)
    ->Name("SsdfDyn/rk4/hessian")
    ->ArgsProduct({{26, 500}, {1}})
    ->Unit(benchmark::kMillisecond);

/// Two free boxes (10 cm, AOPCs of I points each) stacked on the ground, in contact through their
/// SSDFs (eq. (23)): the pair sum costs one point–SSDF query per point of either cloud.
void BM_SsdfPairDynamics(benchmark::State& state, double cutoff) {
  ssdf::ScmParameters prm;
  prm.stiffness = 2e3;
  prm.weight_cutoff = cutoff;
  ssdf::Scene scene(prm);
  ssdf::AopcOptions o;
  o.num_points = static_cast<int>(state.range(0));
  auto cloud = std::make_shared<const ssdf::OrientedPointCloud>(ssdf::make_aopc(mesh::make_box(Vec3(0.1, 0.1, 0.1)), o));
  for (int b = 0; b < 2; ++b) {
    ssdf::FreeBodySpec body;
    body.mass = 0.5;
    body.inertia = Eigen::Vector3d(1e-3, 1e-3, 1e-3).asDiagonal();
    body.geometry = ssdf::Geometry::point_cloud(cloud);
    scene.add_free_body(body);
  }
  scene.add_contact_pair(ssdf::BodyId::free(0), ssdf::BodyId::free(1));
  scene.set_ground({});
  ssdf::State x = ssdf::State::zeros(scene);
  const ssdf::Control u = ssdf::Control::zeros(scene);
  x.pose[0].p = Vec3(0.0, 0.0, 0.05);
  x.pose[1].p = Vec3(0.0, 0.0, 0.1495);
  for (auto _ : state) {
    const ssdf::State y = ssdf::step(scene, x, u, 0.002, ssdf::Integrator::euler);
    benchmark::DoNotOptimize(y.pose[0].p.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_SsdfPairDynamics, exact, 0.0)
    ->Name("SsdfDyn/pair_euler/step")
    ->Arg(100)
    ->Arg(500)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SsdfPairDynamics, cutoff, 1e-12)
    ->Name("SsdfDyn/pair_euler/step_cutoff1e-12")
    ->Arg(100)
    ->Arg(500)
    ->Arg(2000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace ssdf_benchmarks
