// Rigid bodies in contact through Contax manifolds (manifold_contact.hpp).
#include "diffcol/sim/manifold_contact.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>

#include "diffcol/manifold/figures.hpp"
#include "diffcol/manifold/surface_mesh.hpp"

namespace diffcol::sim {

namespace mf = diffcol::manifold;

namespace {

bool finite_positive(double x) { return std::isfinite(x) && x > 0.0; }
bool finite_nonnegative(double x) { return std::isfinite(x) && x >= 0.0; }

using D1 = mf::Dual<1>;

inline double softplus(double z) { return z > 0.0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)); }
inline D1 softplus(const D1& z) {
  // d/dz softplus(z) = σ(z)
  const double s = z.v > 0.0 ? 1.0 / (1.0 + std::exp(-z.v)) : std::exp(z.v) / (1.0 + std::exp(z.v));
  return D1(softplus(z.v), D1::Grad(s * z.d[0]));
}
inline double sqrt_(double x) { return std::sqrt(x); }
inline D1 sqrt_(const D1& x) { return mf::sqrt(x); }

template <class T>
mf::V3<T> v3(const Vec3& value, const Vec3& tangent);
template <>
mf::V3<double> v3<double>(const Vec3& value, const Vec3&) {
  return mf::V3<double>::from(value);
}
template <>
mf::V3<D1> v3<D1>(const Vec3& value, const Vec3& tangent) {
  return {D1(value.x(), D1::Grad(tangent.x())), D1(value.y(), D1::Grad(tangent.y())),
          D1(value.z(), D1::Grad(tangent.z()))};
}
template <class T>
T scalar(double value, double tangent);
template <>
double scalar<double>(double value, double) {
  return value;
}
template <>
D1 scalar<D1>(double value, double tangent) {
  return D1(value, D1::Grad(tangent));
}

// Left Jacobian of SO(3) at φ: exp((φ + δ)^) ≈ exp((J_l δ)^) exp(φ^).
Mat3 left_jacobian(const Vec3& phi) {
  const double t = phi.norm();
  const Mat3 K = skew(phi);
  if (t < 1e-6) return Mat3::Identity() + 0.5 * K + K * K / 6.0;
  return Mat3::Identity() + (1.0 - std::cos(t)) / (t * t) * K + (t - std::sin(t)) / (t * t * t) * K * K;
}

}  // namespace

void ManifoldContactLaw::validate() const {
  if (!finite_positive(stiffness)) throw std::invalid_argument("ManifoldContactLaw::stiffness must be finite and > 0");
  if (!finite_positive(softness)) throw std::invalid_argument("ManifoldContactLaw::softness must be finite and > 0");
  if (!finite_nonnegative(damping)) throw std::invalid_argument("ManifoldContactLaw::damping must be finite and >= 0");
  if (!finite_nonnegative(friction)) throw std::invalid_argument("ManifoldContactLaw::friction must be finite and >= 0");
  if (!finite_positive(slip_velocity))
    throw std::invalid_argument("ManifoldContactLaw::slip_velocity must be finite and > 0");
}

void ManifoldSimOptions::validate() const {
  if (!finite_positive(dt)) throw std::invalid_argument("ManifoldSimOptions::dt must be finite and > 0");
  if (!gravity.allFinite()) throw std::invalid_argument("ManifoldSimOptions::gravity must be finite");
}

MassProperties mesh_mass_properties(const mesh::TriangleMesh& mesh, double density) {
  if (!finite_positive(density)) throw std::invalid_argument("mesh_mass_properties: density must be finite and > 0");
  double volume = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();
  const auto& V = mesh.vertices();
  for (const mesh::Face& f : mesh.faces()) {
    const Vec3 &a = V[static_cast<size_t>(f[0])], &b = V[static_cast<size_t>(f[1])], &c = V[static_cast<size_t>(f[2])];
    const double v = a.dot(b.cross(c)) / 6.0;
    const Vec3 s = a + b + c;
    volume += v;
    first += v * s / 4.0;
    second += v / 20.0 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  if (!finite_positive(volume)) throw std::invalid_argument("mesh_mass_properties: the mesh encloses no positive volume");
  MassProperties out;
  out.mass = density * volume;
  out.com = first / volume;
  const Mat3 J_origin = density * (second.trace() * Mat3::Identity() - second);
  out.inertia = J_origin - out.mass * (out.com.squaredNorm() * Mat3::Identity() - out.com * out.com.transpose());
  out.inertia = 0.5 * (out.inertia + out.inertia.transpose()).eval();
  return out;
}

struct ManifoldContactSystem::Impl {
  struct Body {
    mf::ContactObject object;
    bool is_static = false;
    double mass = 0.0;
    Mat3 inertia = Mat3::Zero();  // about the centre of mass, body axes
    Pose X_BO;
    std::string name;
    int free_index = -1;
  };
  struct Pair {
    int a = -1, b = -1;
    mf::ManifoldOptions options;
    mf::ManifoldWorkspace workspace;
    mf::ContactManifold manifold;
    mf::ManifoldDerivatives derivatives;
  };
  ManifoldContactLaw law;
  ManifoldSimOptions options;
  std::vector<Body> bodies;
  std::vector<Pair> pairs;
  int num_free = 0;

  void check_state(const std::vector<BodyState>& state) const {
    if (state.size() != bodies.size())
      throw std::invalid_argument("ManifoldContactSystem: the state has " + std::to_string(state.size()) +
                                  " bodies, the system " + std::to_string(bodies.size()));
    for (size_t i = 0; i < state.size(); ++i) {
      const BodyState& s = state[i];
      if (!s.X_WB.R.allFinite() || !s.X_WB.p.allFinite() || !s.v_W.allFinite() || !s.omega_B.allFinite())
        throw std::invalid_argument("ManifoldContactSystem: the state of body " + std::to_string(i) + " (" +
                                    bodies[i].name + ") is not finite");
    }
  }

  Pose object_pose(const std::vector<BodyState>& state, int i) const {
    const Body& b = bodies[static_cast<size_t>(i)];
    return b.is_static ? b.object.pose() : state[static_cast<size_t>(i)].X_WB * b.X_BO;
  }

  // Contact wrenches in scalar T (double, or Dual<1> along the tangent `tangent`).
  template <class T>
  void wrenches(const std::vector<BodyState>& state, const Eigen::VectorXd* tangent, std::vector<mf::V3<T>>& F,
                std::vector<mf::V3<T>>& tau, ManifoldStepReport* report) {
    constexpr bool with_tangent = !std::is_same_v<T, double>;
    const size_t n = bodies.size();
    F.assign(n, mf::V3<T>(T(0.0), T(0.0), T(0.0)));
    tau.assign(n, mf::V3<T>(T(0.0), T(0.0), T(0.0)));
    // Kinematics in T and the world twist of each body along the tangent.
    std::vector<mf::V3<T>> p(n), v(n), w(n);
    std::vector<Eigen::Matrix<double, 6, 1>> eta(n, Eigen::Matrix<double, 6, 1>::Zero());
    for (size_t i = 0; i < n; ++i) {
      const Body& b = bodies[i];
      const BodyState& s = state[i];
      if (b.is_static) {
        p[i] = mf::V3<T>::from(b.object.pose().p);
        v[i] = w[i] = mf::V3<T>(T(0.0), T(0.0), T(0.0));
        continue;
      }
      Vec3 dth = Vec3::Zero(), dp = Vec3::Zero(), dv = Vec3::Zero(), dw = Vec3::Zero();
      if (tangent) {
        const auto t = tangent->segment<12>(12 * b.free_index);
        dth = t.segment<3>(0), dp = t.segment<3>(3), dv = t.segment<3>(6), dw = t.segment<3>(9);
      }
      p[i] = v3<T>(s.X_WB.p, dp);
      v[i] = v3<T>(s.v_W, dv);
      w[i] = v3<T>(s.X_WB.R * s.omega_B, dw);
      // world twist: R ← exp(δθ^)R, p ← p + δθ × p + (δp − δθ × p)
      eta[i] << dth, dp - dth.cross(s.X_WB.p);
    }
    const double k = law.stiffness, sft = law.softness, c = law.damping, mu = law.friction,
                 eps2 = law.slip_velocity * law.slip_velocity;
    for (Pair& pr : pairs) {
      const Pose Xa = object_pose(state, pr.a), Xb = object_pose(state, pr.b);
      const auto t0 = std::chrono::steady_clock::now();
      if constexpr (with_tangent)
        mf::compute_manifold_derivatives(bodies[static_cast<size_t>(pr.a)].object, Xa,
                                         bodies[static_cast<size_t>(pr.b)].object, Xb, pr.options,
                                         mf::PoseCoordinates::world, pr.workspace, pr.manifold, pr.derivatives);
      else
        mf::compute_manifold(bodies[static_cast<size_t>(pr.a)].object, Xa, bodies[static_cast<size_t>(pr.b)].object,
                             Xb, pr.options, pr.workspace, pr.manifold);
      if (report)
        report->manifold_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      Eigen::Matrix<double, 12, 1> eta12;
      eta12 << eta[static_cast<size_t>(pr.a)], eta[static_cast<size_t>(pr.b)];
      const auto& entries = pr.manifold.entries;
      for (size_t e = 0; e < entries.size(); ++e) {
        const mf::ManifoldEntry& en = entries[e];
        if (en.culled || en.activity == 0.0) {
          if constexpr (with_tangent) {
            if (en.culled || pr.derivatives.J_activity_X12[e].dot(eta12) == 0.0) continue;
          } else {
            continue;
          }
        }
        Vec3 dx = Vec3::Zero(), dn = Vec3::Zero();
        double dd = 0.0, dg = 0.0;
        if constexpr (with_tangent) {
          dx = pr.derivatives.J_point_X12[e] * eta12;
          dn = pr.derivatives.J_normal_X12[e] * eta12;
          dd = pr.derivatives.J_distance_X12[e].dot(eta12);
          dg = pr.derivatives.J_activity_X12[e].dot(eta12);
        }
        const mf::V3<T> x = v3<T>(en.point, dx), nrm = v3<T>(en.normal, dn);
        const T d = scalar<T>(en.distance, dd), gamma = scalar<T>(en.activity, dg);
        const size_t own = static_cast<size_t>(en.body == 0 ? pr.a : pr.b);
        const size_t other = static_cast<size_t>(en.body == 0 ? pr.b : pr.a);
        if (report && en.activity > 1e-6) {
          ++report->active_entries;
          report->max_penetration = std::max(report->max_penetration, -en.distance);
          if (en.kind == mf::ContactKind::edge_edge)
            report->max_edge_penetration = std::max(report->max_edge_penetration, -en.distance);
        }
        const mf::V3<T> r_own = x - p[own], r_other = x - p[other];
        const mf::V3<T> u = (v[own] + mf::cross(w[own], r_own)) - (v[other] + mf::cross(w[other], r_other));
        const T un = mf::dot(nrm, u);
        const T psi = sft * softplus(-d / sft);
        T damp = 1.0 - c * un;  // 1 + c δ̇, δ̇ = −nᵀu
        if (mf::value_of(damp) <= 0.0) continue;
        const T fN = k * gamma * psi * damp;
        mf::V3<T> f = fN * nrm;
        if (mu > 0.0) {
          const mf::V3<T> ut = u - un * nrm;
          const T scale = -mu * fN / sqrt_(mf::squared_norm(ut) + eps2);
          f = f + scale * ut;
        }
        F[own] = F[own] + f;
        tau[own] = tau[own] + mf::cross(r_own, f);
        F[other] = F[other] - f;
        tau[other] = tau[other] - mf::cross(r_other, f);
      }
    }
  }
};

ManifoldContactSystem::ManifoldContactSystem(const ManifoldContactLaw& law, const ManifoldSimOptions& options)
    : impl_(std::make_unique<Impl>()) {
  law.validate();
  options.validate();
  impl_->law = law;
  impl_->options = options;
}
ManifoldContactSystem::~ManifoldContactSystem() = default;
ManifoldContactSystem::ManifoldContactSystem(ManifoldContactSystem&&) noexcept = default;
ManifoldContactSystem& ManifoldContactSystem::operator=(ManifoldContactSystem&&) noexcept = default;

int ManifoldContactSystem::add_body(manifold::ContactObject object, const MassProperties& mass, std::string name) {
  if (!finite_positive(mass.mass)) throw std::invalid_argument("ManifoldContactSystem::add_body: mass must be finite and > 0");
  if (!mass.com.allFinite() || !mass.inertia.allFinite())
    throw std::invalid_argument("ManifoldContactSystem::add_body: com and inertia must be finite");
  if ((mass.inertia - mass.inertia.transpose()).norm() > 1e-9 * mass.inertia.norm() ||
      Eigen::SelfAdjointEigenSolver<Mat3>(mass.inertia).eigenvalues().minCoeff() <= 0.0)
    throw std::invalid_argument("ManifoldContactSystem::add_body: inertia must be symmetric positive definite");
  Impl::Body b{std::move(object), false, mass.mass, mass.inertia, Pose::identity(), std::move(name), impl_->num_free++};
  b.X_BO.p = -mass.com;
  impl_->bodies.push_back(std::move(b));
  return num_bodies() - 1;
}

int ManifoldContactSystem::add_static_body(manifold::ContactObject object, std::string name) {
  impl_->bodies.push_back(Impl::Body{std::move(object), true, 0.0, Mat3::Zero(), Pose::identity(), std::move(name), -1});
  return num_bodies() - 1;
}

void ManifoldContactSystem::add_pair(int a, int b, const manifold::ManifoldOptions& options) {
  if (a < 0 || b < 0 || a >= num_bodies() || b >= num_bodies() || a == b)
    throw std::invalid_argument("ManifoldContactSystem::add_pair: bad body ids " + std::to_string(a) + ", " +
                                std::to_string(b));
  if (is_static(a) && is_static(b)) throw std::invalid_argument("ManifoldContactSystem::add_pair: both bodies are static");
  options.validate();
  Impl::Pair p;
  p.a = a;
  p.b = b;
  p.options = options;
  impl_->pairs.push_back(std::move(p));
}

int ManifoldContactSystem::num_bodies() const { return static_cast<int>(impl_->bodies.size()); }
int ManifoldContactSystem::num_free() const { return impl_->num_free; }
int ManifoldContactSystem::num_pairs() const { return static_cast<int>(impl_->pairs.size()); }
bool ManifoldContactSystem::is_static(int body) const { return impl_->bodies.at(static_cast<size_t>(body)).is_static; }
const manifold::ContactObject& ManifoldContactSystem::object(int body) const {
  return impl_->bodies.at(static_cast<size_t>(body)).object;
}
const std::string& ManifoldContactSystem::name(int body) const { return impl_->bodies.at(static_cast<size_t>(body)).name; }
const Pose& ManifoldContactSystem::object_offset(int body) const { return impl_->bodies.at(static_cast<size_t>(body)).X_BO; }
const ManifoldContactLaw& ManifoldContactSystem::law() const { return impl_->law; }
const ManifoldSimOptions& ManifoldContactSystem::options() const { return impl_->options; }

std::vector<BodyState> ManifoldContactSystem::state_from_object_poses(const std::vector<Pose>& X_WO) const {
  if (X_WO.size() != impl_->bodies.size())
    throw std::invalid_argument("ManifoldContactSystem::state_from_object_poses: one pose per body expected");
  std::vector<BodyState> out(X_WO.size());
  for (size_t i = 0; i < X_WO.size(); ++i) {
    const Impl::Body& b = impl_->bodies[i];
    out[i].X_WB = b.is_static ? b.object.pose() : X_WO[i] * b.X_BO.inverse();
  }
  return out;
}

Pose ManifoldContactSystem::object_pose(const std::vector<BodyState>& state, int body) const {
  impl_->check_state(state);
  return impl_->object_pose(state, body);
}

Eigen::VectorXd ManifoldContactSystem::wrenches(const std::vector<BodyState>& state, ManifoldStepReport* report) {
  impl_->check_state(state);
  std::vector<mf::V3<double>> F, tau;
  impl_->wrenches<double>(state, nullptr, F, tau, report);
  Eigen::VectorXd out(6 * num_bodies());
  for (int i = 0; i < num_bodies(); ++i) {
    out.segment<3>(6 * i) = mf::values(F[static_cast<size_t>(i)]);
    out.segment<3>(6 * i + 3) = mf::values(tau[static_cast<size_t>(i)]);
  }
  return out;
}

const manifold::ContactManifold& ManifoldContactSystem::pair_manifold(const std::vector<BodyState>& state, int pair) {
  impl_->check_state(state);
  Impl::Pair& pr = impl_->pairs.at(static_cast<size_t>(pair));
  mf::compute_manifold(impl_->bodies[static_cast<size_t>(pr.a)].object, impl_->object_pose(state, pr.a),
                       impl_->bodies[static_cast<size_t>(pr.b)].object, impl_->object_pose(state, pr.b), pr.options,
                       pr.workspace, pr.manifold);
  return pr.manifold;
}

ManifoldStepReport ManifoldContactSystem::step(std::vector<BodyState>& state, Eigen::VectorXd* tangent) {
  impl_->check_state(state);
  if (tangent && tangent->size() != tangent_dimension())
    throw std::invalid_argument("ManifoldContactSystem::step: the tangent has size " + std::to_string(tangent->size()) +
                                ", expected " + std::to_string(tangent_dimension()));
  ManifoldStepReport report;
  const double h = impl_->options.dt;
  const Vec3 g = impl_->options.gravity;
  std::vector<mf::V3<double>> F, tau;
  std::vector<mf::V3<D1>> Fd, taud;
  if (tangent) {
    impl_->wrenches<D1>(state, tangent, Fd, taud, &report);
  } else {
    impl_->wrenches<double>(state, nullptr, F, tau, &report);
  }
  std::vector<BodyState> next = state;
  Eigen::VectorXd next_tangent;
  if (tangent) next_tangent.resize(tangent->size());
  for (size_t i = 0; i < impl_->bodies.size(); ++i) {
    const Impl::Body& b = impl_->bodies[i];
    if (b.is_static) continue;
    const BodyState& s = state[i];
    Vec3 f, t, df = Vec3::Zero(), dt = Vec3::Zero();
    if (tangent) {
      for (int r = 0; r < 3; ++r) {
        f[r] = Fd[i][r].v, t[r] = taud[i][r].v;
        df[r] = Fd[i][r].d[0], dt[r] = taud[i][r].d[0];
      }
    } else {
      f = mf::values(F[i]), t = mf::values(tau[i]);
    }
    const Mat3& R = s.X_WB.R;
    const Mat3 I_W = R * b.inertia * R.transpose();
    const Mat3 I_Winv = R * b.inertia.inverse() * R.transpose();
    const Vec3 w = R * s.omega_B;
    const Vec3 a = t - w.cross(I_W * w);
    const Vec3 v1 = s.v_W + h * (g + f / b.mass);
    const Vec3 w1 = w + h * (I_Winv * a);
    const Vec3 phi = h * w1;
    if (!v1.allFinite() || !phi.allFinite())
      throw std::runtime_error("ManifoldContactSystem::step: the velocity of body " + std::to_string(i) + " (" + b.name +
                               ") became non-finite");
    const Mat3 E = so3_exp(phi);
    BodyState& o = next[i];
    o.v_W = v1;
    o.X_WB.p = s.X_WB.p + h * v1;
    o.X_WB.R = E * R;
    o.omega_B = o.X_WB.R.transpose() * w1;
    if (tangent) {
      const auto z = tangent->segment<12>(12 * b.free_index);
      const Vec3 dth = z.segment<3>(0), dp = z.segment<3>(3), dv = z.segment<3>(6), dw = z.segment<3>(9);
      const Mat3 S = skew(dth);
      const Mat3 dI_W = S * I_W - I_W * S;
      const Mat3 dI_Winv = S * I_Winv - I_Winv * S;
      const Vec3 da = dt - dw.cross(I_W * w) - w.cross(dI_W * w + I_W * dw);
      const Vec3 dv1 = dv + h * df / b.mass;
      const Vec3 dw1 = dw + h * (dI_Winv * a + I_Winv * da);
      auto out = next_tangent.segment<12>(12 * b.free_index);
      out.segment<3>(0) = E * dth + h * (left_jacobian(phi) * dw1);
      out.segment<3>(3) = dp + h * dv1;
      out.segment<3>(6) = dv1;
      out.segment<3>(9) = dw1;
    }
    if (!o.X_WB.p.allFinite() || !o.v_W.allFinite() || !o.omega_B.allFinite() || !o.X_WB.R.allFinite())
      throw std::runtime_error("ManifoldContactSystem::step: the state of body " + std::to_string(i) + " (" + b.name +
                               ") became non-finite");
  }
  if (tangent) {
    if (!next_tangent.allFinite()) throw std::runtime_error("ManifoldContactSystem::step: the tangent became non-finite");
    *tangent = next_tangent;
  }
  state = std::move(next);
  return report;
}

void ManifoldContactSystem::retract(std::vector<BodyState>& state, const Eigen::VectorXd& delta) const {
  impl_->check_state(state);
  if (delta.size() != tangent_dimension())
    throw std::invalid_argument("ManifoldContactSystem::retract: delta has size " + std::to_string(delta.size()) +
                                ", expected " + std::to_string(tangent_dimension()));
  for (size_t i = 0; i < impl_->bodies.size(); ++i) {
    const Impl::Body& b = impl_->bodies[i];
    if (b.is_static) continue;
    const auto z = delta.segment<12>(12 * b.free_index);
    BodyState& s = state[i];
    const Vec3 w = s.X_WB.R * s.omega_B + z.segment<3>(9);
    s.X_WB.R = so3_exp(z.segment<3>(0)) * s.X_WB.R;
    s.X_WB.p += z.segment<3>(3);
    s.v_W += z.segment<3>(6);
    s.omega_B = s.X_WB.R.transpose() * w;
  }
}

double ManifoldContactSystem::kinetic_energy(const std::vector<BodyState>& state) const {
  impl_->check_state(state);
  double e = 0.0;
  for (size_t i = 0; i < impl_->bodies.size(); ++i) {
    const Impl::Body& b = impl_->bodies[i];
    if (b.is_static) continue;
    e += sim::kinetic_energy(b.mass, b.inertia, state[i]);
  }
  return e;
}

}  // namespace diffcol::sim

namespace diffcol::sim {

void FiguresDropOptions::validate() const {
  if (!finite_nonnegative(drop_gap)) throw std::invalid_argument("FiguresDropOptions::drop_gap must be finite and >= 0");
  if (!finite_positive(density)) throw std::invalid_argument("FiguresDropOptions::density must be finite and > 0");
  if (!finite_positive(figure_height))
    throw std::invalid_argument("FiguresDropOptions::figure_height must be finite and > 0");
  if (edges < 1) throw std::invalid_argument("FiguresDropOptions::edges must be >= 1");
  law.validate();
  options.validate();
}

FiguresDrop figures_drop(const FiguresDropOptions& o) {
  o.validate();
  auto figure = [&](std::uint64_t seed) {
    mf::FigureOptions fo;
    fo.seed = seed;
    fo.height = o.figure_height;
    return mf::make_limbed_figure(fo);
  };
  const mf::LimbedFigure f1 = figure(1), f2 = figure(2);
  // z range of a mesh under rotation R
  auto z_range = [](const mesh::TriangleMesh& m, const Mat3& R) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const Vec3& v : m.vertices()) {
      const double z = (R * v).z();
      lo = std::min(lo, z), hi = std::max(hi, z);
    }
    return std::make_pair(lo, hi);
  };
  const double L = o.figure_height;
  const Mat3 face_down = Eigen::AngleAxisd(-0.5 * M_PI, Vec3::UnitX()).toRotationMatrix();
  const Mat3 R1 = face_down;
  const Mat3 R2 = (Eigen::AngleAxisd(80.0 * M_PI / 180.0, Vec3::UnitZ()) * Eigen::AngleAxisd(0.1, Vec3::UnitY()))
                      .toRotationMatrix() * face_down;
  const auto [lo1, hi1] = z_range(f1.mesh, R1);
  const auto [lo2, hi2] = z_range(f2.mesh, R2);
  (void)hi2;
  Pose X1, X2;
  X1.R = R1;
  X2.R = R2;
  // centre each figure over the origin in x–y (mesh centroid), the lower one touching z = 0.002 L
  auto centroid = [](const mesh::TriangleMesh& m, const Mat3& R) {
    Vec3 c = Vec3::Zero();
    for (const Vec3& v : m.vertices()) c += R * v;
    return Vec3(c / static_cast<double>(m.vertices().size()));
  };
  const Vec3 c1 = centroid(f1.mesh, R1), c2 = centroid(f2.mesh, R2);
  X1.p = Vec3(-c1.x(), -c1.y(), 0.002 * L - lo1);
  X2.p = Vec3(-c2.x(), -c2.y(), X1.p.z() + hi1 + o.drop_gap - lo2);
  // lower the upper figure until the clearance (the least SDF value of either figure's vertices
  // against the other's SDF) is drop_gap: the vertical drop is at least the clearance, so every
  // step stays above the target
  for (int it = 0; it < 20; ++it) {
    double clearance = std::numeric_limits<double>::infinity();
    const Pose X12 = X1.inverse() * X2, X21 = X12.inverse();
    for (const Vec3& v : f2.mesh.vertices()) clearance = std::min(clearance, f1.sdf.value(X12 * v));
    for (const Vec3& v : f1.mesh.vertices()) clearance = std::min(clearance, f2.sdf.value(X21 * v));
    if (clearance - o.drop_gap <= 1e-4 * L) break;
    X2.p.z() -= clearance - o.drop_gap;
  }

  FiguresDrop out{ManifoldContactSystem(o.law, o.options), {}, -1, -1, -1, -1};
  ManifoldContactSystem& sys = out.system;
  std::vector<Pose> poses;
  if (o.ground) {
    const Eigen::Vector3d size(6.0 * L, 6.0 * L, L);
    Pose Xg;
    Xg.p = Vec3(0, 0, -0.5 * L);
    out.ground = sys.add_static_body(mf::ContactObject(mf::make_refined_box(size, 1), mf::make_box_sdf(size, 0.1), Xg),
                                     "ground");
    poses.push_back(Xg);
  }
  out.lower = sys.add_body(f1.contact_object(), mesh_mass_properties(f1.mesh, o.density), "lower figure");
  poses.push_back(X1);
  out.upper = sys.add_body(f2.contact_object(), mesh_mass_properties(f2.mesh, o.density), "upper figure");
  poses.push_back(X2);
  mf::ManifoldOptions pair;
  pair.num_edges[0] = pair.num_edges[1] = o.edges;
  pair.edge_edge = o.edge_edge;
  pair.culling = o.culling;
  pair.contact.t_pen = 1e-3 * L;
  pair.contact.t_nn = 1e-3 * L;
  pair.t_topk = 1e-3 * L;
  sys.add_pair(out.lower, out.upper, pair);
  out.figure_pair = 0;
  if (o.ground) {
    mf::ManifoldOptions g;  // the figure's vertices against the ground's SDF only
    g.num_vertices[1] = 0;
    g.edge_edge = false;
    g.culling = o.culling;
    g.contact.t_pen = 1e-3 * L;
    sys.add_pair(out.lower, out.ground, g);
    sys.add_pair(out.upper, out.ground, g);
  }
  out.initial = sys.state_from_object_poses(poses);
  return out;
}

}  // namespace diffcol::sim
