// Rigid-body dynamics under SCM, eqs. (14)–(25): the scene and the plain evaluation (T = double)
// of the scalar-generic force and step code of system_dynamics.hpp; its derivatives (forward-mode
// jets) are in dynamics_derivatives.cpp.
#include "diffcol/ssdf/dynamics.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/Cholesky>

#include "system_dynamics.hpp"

namespace diffcol::ssdf {

// ------------------------------------------------------------------------------------------------
// Scene.
// ------------------------------------------------------------------------------------------------
Scene::Scene(const ScmParameters& params, const Vec3& gravity) {
  set_parameters(params);
  set_gravity(gravity);
  free_.reserve(kMaxFreeBodies);
  inv_inertia_.reserve(kMaxFreeBodies);
  kinematic_.reserve(kMaxKinematicBodies);
  free_tree_.reserve(kMaxFreeBodies);
  kinematic_tree_.reserve(kMaxKinematicBodies);
  pairs_.reserve(kMaxContactPairs);
}

void Scene::set_parameters(const ScmParameters& params) {
  params.validate();
  params_ = params;
}

void Scene::set_gravity(const Vec3& g) {
  if (!g.allFinite()) throw std::invalid_argument("Scene: gravity must be finite");
  gravity_ = g;
}

int Scene::add_free_body(const FreeBodySpec& spec) {
  if (num_free() >= kMaxFreeBodies) throw std::invalid_argument("Scene::add_free_body: capacity exceeded");
  if (!std::isfinite(spec.mass) || !(spec.mass > 0.0) || spec.mass > 1e100)
    throw std::invalid_argument("Scene::add_free_body: mass must be positive, finite and at most 1e100");
  if (!spec.inertia.allFinite() || !(spec.inertia.cwiseAbs().maxCoeff() <= 1e100) || (spec.inertia - spec.inertia.transpose()).norm() > 1e-9 * spec.inertia.norm())
    throw std::invalid_argument("Scene::add_free_body: inertia must be finite (entries at most 1e100) and symmetric");
  Eigen::LLT<Mat3> llt(spec.inertia);
  if (llt.info() != Eigen::Success || !(spec.inertia.diagonal().minCoeff() > 0.0))
    throw std::invalid_argument("Scene::add_free_body: inertia must be positive definite");
  validate_geometry(spec.geometry, "Scene::add_free_body");
  free_.push_back(spec);
  inv_inertia_.push_back(spec.inertia.inverse());
  free_tree_.push_back(make_tree(spec.geometry));
  return num_free() - 1;
}

int Scene::add_kinematic_body(const KinematicBodySpec& spec) {
  if (num_kinematic() >= kMaxKinematicBodies)
    throw std::invalid_argument("Scene::add_kinematic_body: capacity exceeded");
  validate_geometry(spec.geometry, "Scene::add_kinematic_body");
  kinematic_.push_back(spec);
  kinematic_tree_.push_back(make_tree(spec.geometry));
  return num_kinematic() - 1;
}

void Scene::add_contact_pair(BodyId a, BodyId b) {
  auto valid = [&](BodyId id) {
    return id.index >= 0 && id.index < (id.kinematic ? num_kinematic() : num_free());
  };
  if (!valid(a) || !valid(b)) throw std::invalid_argument("Scene::add_contact_pair: unknown body");
  if (a.kinematic == b.kinematic && a.index == b.index)
    throw std::invalid_argument("Scene::add_contact_pair: a body cannot collide with itself");
  if (a.kinematic && b.kinematic)
    throw std::invalid_argument("Scene::add_contact_pair: two kinematic bodies exert no dynamics");
  const Geometry& ga = a.kinematic ? kinematic_body(a.index).geometry : free_body(a.index).geometry;
  const Geometry& gb = b.kinematic ? kinematic_body(b.index).geometry : free_body(b.index).geometry;
  if (ga.is_sphere() && gb.is_sphere())
    throw std::invalid_argument("Scene::add_contact_pair: sphere-sphere pairs are not supported");
  for (const auto& p : pairs_) {
    auto same = [](BodyId x, BodyId y) { return x.kinematic == y.kinematic && x.index == y.index; };
    if ((same(p[0], a) && same(p[1], b)) || (same(p[0], b) && same(p[1], a)))
      throw std::invalid_argument("Scene::add_contact_pair: repeated pair");
  }
  if (static_cast<int>(pairs_.size()) >= kMaxContactPairs)
    throw std::invalid_argument("Scene::add_contact_pair: capacity exceeded");
  pairs_.push_back({a, b});
}

void Scene::set_ground(const GroundPlane& ground) {
  if (!ground.point.allFinite() || !ground.normal.allFinite() || !(ground.normal.norm() > 1e-12))
    throw std::invalid_argument("Scene::set_ground: non-finite point or zero normal");
  ground_.point = ground.point;
  ground_.normal = ground.normal.normalized();
  has_ground_ = true;
}

State State::zeros(const Scene& scene) {
  State x;
  x.num_bodies = scene.num_free();
  for (auto& v : x.velocity) v.setZero();
  return x;
}

Control Control::zeros(const Scene& scene) {
  Control u;
  u.num_free = scene.num_free();
  u.num_kinematic = scene.num_kinematic();
  for (auto& v : u.velocity) v.setZero();
  for (auto& v : u.wrench) v.setZero();
  return u;
}

// ------------------------------------------------------------------------------------------------
// Plain evaluation.
// ------------------------------------------------------------------------------------------------
namespace {
/// The per-body [τ; f] (or [ω̇; v̇]) of a plain evaluation as one generalized vector.
GenVec generalized(const Scene& scene, const std::array<WrenchT<double>, kMaxFreeBodies>& w) {
  std::array<double, kMaxGeneralizedDim> y;
  wrench_outputs(scene.num_free(), w, y);
  GenVec g(scene.generalized_dim());
  for (int o = 0; o < g.size(); ++o) g[o] = y[static_cast<size_t>(o)];
  return g;
}
}  // namespace

GenVec contact_forces(const Scene& scene, const State& x, const Control& u) {
  check(scene, x, u, "contact_forces");
  const SystemT<double> s = load<double>(scene, x, u, PlainSeed{});
  std::array<WrenchT<double>, kMaxFreeBodies> w;
  contact_forces_t(scene, s, w);
  return generalized(scene, w);
}

GenVec forward_dynamics(const Scene& scene, const State& x, const Control& u) {
  check(scene, x, u, "forward_dynamics");
  const SystemT<double> s = load<double>(scene, x, u, PlainSeed{});
  std::array<WrenchT<double>, kMaxFreeBodies> a;
  forward_dynamics_t(scene, s, a);
  return generalized(scene, a);
}

GenVec inverse_dynamics(const Scene& scene, const State& x, const Control& u, const GenVec& acceleration) {
  check(scene, x, u, "inverse_dynamics");
  if (acceleration.size() != scene.generalized_dim() || !acceleration.allFinite())
    throw std::invalid_argument("inverse_dynamics: acceleration must have 6n finite entries");
  const GenVec lam = contact_forces(scene, x, u);
  GenVec tau(scene.generalized_dim());
  for (int b = 0; b < scene.num_free(); ++b) {
    const FreeBodySpec& spec = scene.free_body(b);
    const Vec3 w = x.velocity[static_cast<size_t>(b)].head<3>();
    // (24): τ = M v̇ + c − ΣΛ with c = [ω × Jω; −m g].
    tau.segment<3>(6 * b) =
        spec.inertia * acceleration.segment<3>(6 * b) + w.cross(spec.inertia * w) - lam.segment<3>(6 * b);
    tau.segment<3>(6 * b + 3) =
        spec.mass * (acceleration.segment<3>(6 * b + 3) - scene.gravity()) - lam.segment<3>(6 * b + 3);
  }
  return tau;
}

State step(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator) {
  check(scene, x, u, "step");
  check_h(h, "step");
  const SystemT<double> s = load<double>(scene, x, u, PlainSeed{});
  SystemT<double> next;
  step_t(scene, s, h, integrator, next);
  return to_state(next);
}

State step_euler(const Scene& scene, const State& x, const Control& u, double h) {
  return step(scene, x, u, h, Integrator::euler);
}

State step_rk4(const Scene& scene, const State& x, const Control& u, double h) {
  return step(scene, x, u, h, Integrator::rk4);
}

StateVec state_difference(const State& x1, const State& x0) {
  if (x1.num_bodies != x0.num_bodies) throw std::invalid_argument("state_difference: sizes differ");
  const int n = x0.num_bodies;
  StateVec d(12 * n);
  for (int b = 0; b < n; ++b) {
    const size_t i = static_cast<size_t>(b);
    if (!x0.pose[i].is_finite() || !x1.pose[i].is_finite() || !x0.velocity[i].allFinite() ||
        !x1.velocity[i].allFinite())
      throw std::invalid_argument("state_difference: a pose or velocity is not finite");
    d.segment<3>(6 * b) = so3_log(x0.pose[i].R.transpose() * x1.pose[i].R);
    d.segment<3>(6 * b + 3) = x1.pose[i].p - x0.pose[i].p;
    d.segment<6>(6 * n + 6 * b) = x1.velocity[i] - x0.velocity[i];
  }
  return d;
}

State state_retract(const State& x, const StateVec& dx) {
  const int n = x.num_bodies;
  if (dx.size() != 12 * n) throw std::invalid_argument("state_retract: dx must have 12n entries");
  if (!dx.allFinite()) throw std::invalid_argument("state_retract: dx is not finite");
  for (int b = 0; b < n; ++b)
    if (!x.pose[static_cast<size_t>(b)].is_finite() || !x.velocity[static_cast<size_t>(b)].allFinite())
      throw std::invalid_argument("state_retract: a pose or velocity is not finite");
  State y = x;
  for (int b = 0; b < n; ++b) {
    const size_t i = static_cast<size_t>(b);
    y.pose[i].R = x.pose[i].R * so3_exp(dx.segment<3>(6 * b));
    y.pose[i].p += dx.segment<3>(6 * b + 3);
    y.velocity[i] += dx.segment<6>(6 * n + 6 * b);
  }
  return y;
}

}  // namespace diffcol::ssdf
