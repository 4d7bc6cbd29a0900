#pragma once
// The SCM system in a generic scalar: its contact forces, forward dynamics and one integrator
// step (eqs. (21)–(25)), the loading of a state and control into jets and the reading of results,
// and the checks of the public entry points. Internal to src/ssdf.
#include <array>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>

#include "local_jets.hpp"

namespace diffcol::ssdf {
namespace {

template <class T>
struct SystemT {
  int nf = 0, nk = 0;
  std::array<BodyT<T>, kMaxFreeBodies> free;
  std::array<BodyT<T>, kMaxKinematicBodies> kin;
  std::array<WrenchT<T>, kMaxFreeBodies> applied;
};

/// Σ Λ over the collision pairs and the ground, per free body.
template <class T>
void contact_forces_t(const Scene& scene, const SystemT<T>& sys, std::array<WrenchT<T>, kMaxFreeBodies>& out) {
  for (int b = 0; b < sys.nf; ++b) out[static_cast<size_t>(b)] = WrenchT<T>();
  const ScmParameters& prm = scene.parameters();
  const bool at_query = scene.reaction_point() == ReactionPoint::query_point;
  auto body = [&](BodyId id) -> const BodyT<T>& {
    return id.kinematic ? sys.kin[static_cast<size_t>(id.index)] : sys.free[static_cast<size_t>(id.index)];
  };
  auto geom = [&](BodyId id) -> const Geometry& {
    return id.kinematic ? scene.kinematic_body(id.index).geometry : scene.free_body(id.index).geometry;
  };
  auto accumulate = [&](BodyId id, const WrenchT<T>& w) {
    if (id.kinematic) return;
    WrenchT<T>& o = out[static_cast<size_t>(id.index)];
    o.tau += w.tau;
    o.f += w.f;
  };
  // One pair's wrenches in the body types BA, BB (T, or local jets of the two bodies).
  const auto pair_wrenches = [&](BodyId a, BodyId b, const auto& A, const auto& B, auto& wa, auto& wb) {
    if (geom(a).is_sphere())  // a: the sphere (the point)
      point_ssdf(Vec3::Zero().eval(), geom(a).radius, A, *scene.point_tree(b), B, prm, at_query, wa, wb);
    else
      pair_ssdf(*scene.point_tree(a), A, *scene.point_tree(b), B, prm, at_query, wa, wb);
  };
  for (const auto& pr : scene.contact_pairs()) {
    BodyId a = pr[0], b = pr[1];
    if (!geom(a).is_sphere() && geom(b).is_sphere()) std::swap(a, b);
    if constexpr (std::is_same_v<T, JacT>) {  // first derivatives: local jets of the two bodies
      LocalTangent<24> D;
      local_tangent<24>(body(a), 0, D);
      local_tangent<24>(body(b), 12, D);
      WrenchT<LocalJet<24>> la, lb;
      pair_wrenches(a, b, local_body<24>(body(a), 0), local_body<24>(body(b), 12), la, lb);
      accumulate(a, lift<24>(la, D));
      accumulate(b, lift<24>(lb, D));
    } else if constexpr (std::is_same_v<T, HesT>) {  // second derivatives: local jets of jets
      LocalTangent<24> D, D2;
      const BodyT<LocalHes<24>> A = local_body_hessian<24>(body(a), 0, D, D2);
      const BodyT<LocalHes<24>> B = local_body_hessian<24>(body(b), 12, D, D2);
      WrenchT<LocalHes<24>> la, lb;
      pair_wrenches(a, b, A, B, la, lb);
      accumulate(a, lift_hessian<24>(la, D, D2));
      accumulate(b, lift_hessian<24>(lb, D, D2));
    } else {
      WrenchT<T> wa, wb;
      pair_wrenches(a, b, body(a), body(b), wa, wb);
      accumulate(a, wa);
      accumulate(b, wb);
    }
  }
  if (scene.has_ground()) {
    for (int i = 0; i < sys.nf; ++i) {
      if (!scene.free_body(i).ground_contact) continue;
      accumulate(BodyId::free(i), ground_contact(scene.free_body(i).geometry, scene.point_tree(BodyId::free(i)),
                                                 sys.free[static_cast<size_t>(i)], scene.ground(), prm));
    }
  }
}

/// Forward dynamics (25) per free body: [ω̇; v̇].
template <class T>
void forward_dynamics_t(const Scene& scene, const SystemT<T>& sys, std::array<WrenchT<T>, kMaxFreeBodies>& acc) {
  contact_forces_t(scene, sys, acc);
  for (int b = 0; b < sys.nf; ++b) {
    const FreeBodySpec& spec = scene.free_body(b);
    const BodyT<T>& B = sys.free[static_cast<size_t>(b)];
    WrenchT<T>& a = acc[static_cast<size_t>(b)];
    const WrenchT<T>& u = sys.applied[static_cast<size_t>(b)];
    const V<T> torque = a.tau + u.tau - cross(B.w, mul(spec.inertia, B.w));
    a.tau = mul(scene.inverse_inertia(b), torque);
    const V<T> force = a.f + u.f;
    const double im = 1.0 / spec.mass;
    a.f = V<T>{force.x * im + scene.gravity().x(), force.y * im + scene.gravity().y(),
               force.z * im + scene.gravity().z()};
  }
}

/// Kinematic bodies at time s into the step (constant control velocity).
template <class T>
void advance_kinematic(const SystemT<T>& base, double s, SystemT<T>& sys) {
  for (int k = 0; k < base.nk; ++k) {
    const BodyT<T>& K0 = base.kin[static_cast<size_t>(k)];
    BodyT<T>& K = sys.kin[static_cast<size_t>(k)];
    K = K0;
    if (s == 0.0) continue;
    K.R = mul(K0.R, so3_exp_t(s * K0.w));
    K.p = K0.p + s * K0.v;
  }
}

template <class T>
void step_euler_t(const Scene& scene, const SystemT<T>& sys, double h, SystemT<T>& next) {
  std::array<WrenchT<T>, kMaxFreeBodies> acc;
  forward_dynamics_t(scene, sys, acc);
  next = sys;
  for (int b = 0; b < sys.nf; ++b) {
    BodyT<T>& B = next.free[static_cast<size_t>(b)];
    B.w += h * acc[static_cast<size_t>(b)].tau;
    B.v += h * acc[static_cast<size_t>(b)].f;
    B.R = mul(B.R, so3_exp_t(h * B.w));
    B.p += h * B.v;
  }
}

template <class T>
void step_rk4_t(const Scene& scene, const SystemT<T>& sys, double h, SystemT<T>& next) {
  struct K {
    std::array<V<T>, kMaxFreeBodies> th, p, w, v;
  };
  std::array<K, 4> k;
  std::array<V<T>, kMaxFreeBodies> theta;  // stage rotation offsets θ_i
  SystemT<T> st = sys;
  std::array<WrenchT<T>, kMaxFreeBodies> acc;
  const double c[4] = {0.0, 0.5, 0.5, 1.0};
  for (int s = 0; s < 4; ++s) {
    advance_kinematic(sys, c[s] * h, st);
    for (int b = 0; b < sys.nf; ++b) {
      const size_t i = static_cast<size_t>(b);
      const BodyT<T>& B0 = sys.free[i];
      BodyT<T>& B = st.free[i];
      if (s == 0) {
        theta[i] = V<T>();
        B = B0;
      } else {
        const double a = c[s] * h;
        theta[i] = a * k[static_cast<size_t>(s - 1)].th[i];
        B.R = mul(B0.R, so3_exp_t(theta[i]));
        B.p = B0.p + a * k[static_cast<size_t>(s - 1)].p[i];
        B.w = B0.w + a * k[static_cast<size_t>(s - 1)].w[i];
        B.v = B0.v + a * k[static_cast<size_t>(s - 1)].v[i];
      }
    }
    forward_dynamics_t(scene, st, acc);
    for (int b = 0; b < sys.nf; ++b) {
      const size_t i = static_cast<size_t>(b);
      k[static_cast<size_t>(s)].th[i] = dexp_inv(theta[i], st.free[i].w);
      k[static_cast<size_t>(s)].p[i] = st.free[i].v;
      k[static_cast<size_t>(s)].w[i] = acc[i].tau;
      k[static_cast<size_t>(s)].v[i] = acc[i].f;
    }
  }
  next = sys;
  for (int b = 0; b < sys.nf; ++b) {
    const size_t i = static_cast<size_t>(b);
    auto comb = [&](const std::array<V<T>, kMaxFreeBodies> K::*field) {
      return (h / 6.0) * ((k[0].*field)[i] + 2.0 * (k[1].*field)[i] + 2.0 * (k[2].*field)[i] + (k[3].*field)[i]);
    };
    BodyT<T>& B = next.free[i];
    B.R = mul(B.R, so3_exp_t(comb(&K::th)));
    B.p += comb(&K::p);
    B.w += comb(&K::w);
    B.v += comb(&K::v);
  }
}

template <class T>
void step_t(const Scene& scene, const SystemT<T>& sys, double h, Integrator integ, SystemT<T>& next) {
  if (integ == Integrator::euler)
    step_euler_t(scene, sys, h, next);
  else
    step_rk4_t(scene, sys, h, next);
}

// ----------------------------------------------------------------------------------------------
// Loading a state/control into T (seeding the tangent variables) and reading results.
// ----------------------------------------------------------------------------------------------
/// Seeds: plain (T = double), Jacobian (z_k ↦ value + e_k), Hessian pass j (outer e_k, inner e_j).
struct PlainSeed {
  double operator()(double v, int) const { return v; }
};
struct JacSeed {
  JacT operator()(double v, int k) const {
    JacT x(v);
    x.d[static_cast<size_t>(k)] = 1.0;
    return x;
  }
};
struct HesSeed {
  int j = 0;
  HesT operator()(double v, int k) const {
    HesT x;
    x.v = J1(v);
    if (k == j) x.v.d[0] = 1.0;
    x.d[static_cast<size_t>(k)] = J1(1.0);
    return x;
  }
};

template <class T, class Seed>
V<T> seed3(const Vec3& v, int k0, const Seed& seed) {
  return {seed(v.x(), k0), seed(v.y(), k0 + 1), seed(v.z(), k0 + 2)};
}

/// Loads a body: R = R0·exp(δθ), p = p0 + δp, velocities; z indices pose_k (6), vel_k (6).
template <class T, class Seed>
BodyT<T> load_body(const Pose& X, const Vec6& V6, int pose_k, int vel_k, const Seed& seed) {
  BodyT<T> B;
  if constexpr (std::is_same_v<T, double>) {
    B.R = M<T>(X.R);
  } else {
    B.R = mul(X.R, so3_exp_t(seed3<T>(Vec3::Zero(), pose_k, seed)));
  }
  B.p = seed3<T>(X.p, pose_k + 3, seed);
  B.w = seed3<T>(V6.head<3>(), vel_k, seed);
  B.v = seed3<T>(V6.tail<3>(), vel_k + 3, seed);
  return B;
}

template <class T, class Seed>
SystemT<T> load(const Scene& scene, const State& x, const Control& u, const Seed& seed) {
  SystemT<T> s;
  const int nf = scene.num_free(), nk = scene.num_kinematic();
  s.nf = nf;
  s.nk = nk;
  const int nx = 12 * nf;
  for (int b = 0; b < nf; ++b) {
    const size_t i = static_cast<size_t>(b);
    s.free[i] = load_body<T>(x.pose[i], x.velocity[i], 6 * b, 6 * nf + 6 * b, seed);
    s.applied[i].tau = seed3<T>(u.wrench[i].head<3>(), nx + 12 * nk + 6 * b, seed);
    s.applied[i].f = seed3<T>(u.wrench[i].tail<3>(), nx + 12 * nk + 6 * b + 3, seed);
  }
  for (int k = 0; k < nk; ++k) {
    const size_t i = static_cast<size_t>(k);
    s.kin[i] = load_body<T>(u.pose[i], u.velocity[i], nx + 6 * k, nx + 6 * nk + 6 * k, seed);
  }
  return s;
}

template <class T> State to_state(const SystemT<T>& s) {
  State x;
  x.num_bodies = s.nf;
  for (int b = 0; b < s.nf; ++b) {
    const size_t i = static_cast<size_t>(b);
    x.pose[i].R = values(s.free[i].R);
    x.pose[i].p = values(s.free[i].p);
    x.velocity[i] << values(s.free[i].w), values(s.free[i].v);
  }
  return x;
}

/// The 12n chart coordinates of a state in T around its own value (layout of x): the rotation
/// part vee((Q − Qᵀ)/2), Q = R0ᵀR, equals log(Q) to second order at Q = I.
template <class T> void chart_outputs(const SystemT<T>& s, std::array<T, kMaxStateDim>& y) {
  const int nf = s.nf;
  for (int b = 0; b < nf; ++b) {
    const size_t i = static_cast<size_t>(b);
    const Mat3 R0 = values(s.free[i].R);
    M<T> Q = mul(Mat3(R0.transpose()), s.free[i].R);
    y[static_cast<size_t>(6 * b + 0)] = 0.5 * (Q.m[2][1] - Q.m[1][2]);
    y[static_cast<size_t>(6 * b + 1)] = 0.5 * (Q.m[0][2] - Q.m[2][0]);
    y[static_cast<size_t>(6 * b + 2)] = 0.5 * (Q.m[1][0] - Q.m[0][1]);
    for (int k = 0; k < 3; ++k) {
      y[static_cast<size_t>(6 * b + 3 + k)] = s.free[i].p[k];
      y[static_cast<size_t>(6 * nf + 6 * b + k)] = s.free[i].w[k];
      y[static_cast<size_t>(6 * nf + 6 * b + 3 + k)] = s.free[i].v[k];
    }
  }
}

template <class T> void wrench_outputs(int nf, const std::array<WrenchT<T>, kMaxFreeBodies>& w,
                                       std::array<T, kMaxGeneralizedDim>& y) {
  for (int b = 0; b < nf; ++b)
    for (int k = 0; k < 3; ++k) {
      y[static_cast<size_t>(6 * b + k)] = w[static_cast<size_t>(b)].tau[k];
      y[static_cast<size_t>(6 * b + 3 + k)] = w[static_cast<size_t>(b)].f[k];
    }
}

// ----------------------------------------------------------------------------------------------
// Validation.
// ----------------------------------------------------------------------------------------------
void validate_geometry(const Geometry& g, const char* what) {
  if (g.is_sphere()) {
    if (!std::isfinite(g.radius) || !(g.radius > 0.0) || g.radius > kMaxLength)
      throw std::invalid_argument(std::string(what) + ": sphere radius must be positive, finite and at most 1e100");
  } else if (g.cloud->size() < 1) {
    throw std::invalid_argument(std::string(what) + ": empty point cloud");
  }
}

template <class V>
bool bounded(const V& v) {
  return v.cwiseAbs().maxCoeff() <= kMaxLength;
}

void check(const Scene& scene, const State& x, const Control& u, const char* what) {
  const std::string w(what);
  if (x.num_bodies != scene.num_free()) throw std::invalid_argument(w + ": state size does not match the scene");
  if (u.num_free != scene.num_free() || u.num_kinematic != scene.num_kinematic())
    throw std::invalid_argument(w + ": control size does not match the scene");
  for (int b = 0; b < scene.num_free(); ++b) {
    const size_t i = static_cast<size_t>(b);
    if (const char* why = x.pose[i].invalid_reason()) throw std::invalid_argument(w + ": state pose: " + why);
    if (!x.velocity[i].allFinite() || !u.wrench[i].allFinite())
      throw std::invalid_argument(w + ": non-finite state or applied wrench");
    if (!bounded(x.velocity[i]) || !bounded(u.wrench[i]))
      throw std::invalid_argument(w + ": a velocity or wrench entry beyond 1e100 (kMaxLength)");
  }
  for (int k = 0; k < scene.num_kinematic(); ++k) {
    const size_t i = static_cast<size_t>(k);
    if (const char* why = u.pose[i].invalid_reason()) throw std::invalid_argument(w + ": kinematic pose: " + why);
    if (!u.velocity[i].allFinite()) throw std::invalid_argument(w + ": non-finite kinematic velocity");
    if (!bounded(u.velocity[i]))
      throw std::invalid_argument(w + ": a kinematic velocity entry beyond 1e100 (kMaxLength)");
  }
}

void check_h(double h, const char* what) {
  if (!(h > 0.0) || !(h <= kMaxStepSize))
    throw std::invalid_argument(std::string(what) + ": h must be in (0, 1000] s (kMaxStepSize)");
}

/// The culling tree of a body's AOPC (null for a sphere). Clouds of at most 32 points stay one
/// leaf in their own order: nothing to cull, and their sums keep the cloud's summation order.
std::shared_ptr<const PointTree> make_tree(const Geometry& g) {
  if (g.is_sphere()) return nullptr;
  return std::make_shared<const PointTree>(*g.cloud, g.cloud->size() <= 32 ? g.cloud->size() : 8);
}

int check_dim(const Scene& scene, const char* what) {
  const int nz = scene.state_dim() + scene.control_dim();
  if (nz > kMaxDerivativeDim)
    throw std::invalid_argument(std::string(what) + ": dim(x) + dim(u) exceeds kMaxDerivativeDim");
  return nz;
}

}  // namespace
}  // namespace diffcol::ssdf
