// Derivatives of the SCM dynamics (eqs. (14)–(25)): the contact forces and one step evaluated with
// forward-mode jets (Jacobians) and jets of jets (Hessians), see system_dynamics.hpp.
#include <vector>

#include "diffcol/ssdf/dynamics.hpp"
#include "system_dynamics.hpp"

namespace diffcol::ssdf {

// ------------------------------------------------------------------------------------------------
// Derivatives.
// ------------------------------------------------------------------------------------------------
ContactForceJacobian contact_force_jacobian(const Scene& scene, const State& x, const Control& u) {
  check(scene, x, u, "contact_force_jacobian");
  const int nz = check_dim(scene, "contact_force_jacobian");
  const int ng = scene.generalized_dim();
  const SystemT<JacT> s = load<JacT>(scene, x, u, JacSeed{});
  std::array<WrenchT<JacT>, kMaxFreeBodies> w;
  contact_forces_t(scene, s, w);
  std::array<JacT, kMaxGeneralizedDim> y;
  wrench_outputs(s.nf, w, y);
  ContactForceJacobian out;
  out.forces.resize(ng);
  out.J_forces_z.resize(ng, nz);
  for (int o = 0; o < ng; ++o) {
    out.forces[o] = y[static_cast<size_t>(o)].v;
    for (int k = 0; k < nz; ++k) out.J_forces_z(o, k) = y[static_cast<size_t>(o)].d[static_cast<size_t>(k)];
  }
  return out;
}

ContactForceHessian contact_force_hessian(const Scene& scene, const State& x, const Control& u,
                                          const GenVec& weights) {
  check(scene, x, u, "contact_force_hessian");
  const int nz = check_dim(scene, "contact_force_hessian");
  const int ng = scene.generalized_dim();
  if (weights.size() != ng) throw std::invalid_argument("contact_force_hessian: weights must have 6n entries");
  ContactForceHessian out;
  out.forces.resize(ng);
  out.J_forces_z.resize(ng, nz);
  out.H_z.resize(nz, nz);
  for (int j = 0; j < nz; ++j) {
    const SystemT<HesT> s = load<HesT>(scene, x, u, HesSeed{j});
    std::array<WrenchT<HesT>, kMaxFreeBodies> w;
    contact_forces_t(scene, s, w);
    std::array<HesT, kMaxGeneralizedDim> y;
    wrench_outputs(s.nf, w, y);
    for (int k = 0; k < nz; ++k) {
      double hk = 0.0;
      for (int o = 0; o < ng; ++o) hk += weights[o] * y[static_cast<size_t>(o)].d[static_cast<size_t>(k)].d[0];
      out.H_z(k, j) = hk;
    }
    if (j == 0)
      for (int o = 0; o < ng; ++o) {
        out.forces[o] = y[static_cast<size_t>(o)].v.v;
        for (int k = 0; k < nz; ++k) out.J_forces_z(o, k) = y[static_cast<size_t>(o)].d[static_cast<size_t>(k)].v;
      }
  }
  return out;
}

StepJacobian step_jacobian(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator) {
  check(scene, x, u, "step_jacobian");
  check_h(h, "step_jacobian");
  const int nz = check_dim(scene, "step_jacobian");
  const int nx = scene.state_dim();
  const SystemT<JacT> s = load<JacT>(scene, x, u, JacSeed{});
  SystemT<JacT> next;
  step_t(scene, s, h, integrator, next);
  std::array<JacT, kMaxStateDim> y;
  chart_outputs(next, y);
  StepJacobian out;
  out.next = to_state(next);
  out.J_next_z.resize(nx, nz);
  for (int o = 0; o < nx; ++o)
    for (int k = 0; k < nz; ++k) out.J_next_z(o, k) = y[static_cast<size_t>(o)].d[static_cast<size_t>(k)];
  return out;
}

namespace {
/// Runs the dim(z) Hessian passes of the step; calls sink(j, outputs) after each.
template <class Sink>
void step_hessian_passes(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator,
                         int nz, Sink&& sink) {
  for (int j = 0; j < nz; ++j) {
    const SystemT<HesT> s = load<HesT>(scene, x, u, HesSeed{j});
    SystemT<HesT> next;
    step_t(scene, s, h, integrator, next);
    std::array<HesT, kMaxStateDim> y;
    chart_outputs(next, y);
    sink(j, next, y);
  }
}
}  // namespace

StepHessian step_hessian(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator,
                         const StateVec& weights) {
  check(scene, x, u, "step_hessian");
  check_h(h, "step_hessian");
  const int nz = check_dim(scene, "step_hessian");
  const int nx = scene.state_dim();
  if (weights.size() != nx) throw std::invalid_argument("step_hessian: weights must have 12n entries");
  if (!weights.allFinite()) throw std::invalid_argument("step_hessian: weights must be finite");
  StepHessian out;
  out.J_next_z.resize(nx, nz);
  out.H_z.resize(nz, nz);
  step_hessian_passes(scene, x, u, h, integrator, nz,
                      [&](int j, const SystemT<HesT>& next, const std::array<HesT, kMaxStateDim>& y) {
                        for (int k = 0; k < nz; ++k) {
                          double hk = 0.0;
                          for (int o = 0; o < nx; ++o)
                            hk += weights[o] * y[static_cast<size_t>(o)].d[static_cast<size_t>(k)].d[0];
                          out.H_z(k, j) = hk;
                        }
                        if (j != 0) return;
                        out.next = to_state(next);
                        for (int o = 0; o < nx; ++o)
                          for (int k = 0; k < nz; ++k)
                            out.J_next_z(o, k) = y[static_cast<size_t>(o)].d[static_cast<size_t>(k)].v;
                      });
  return out;
}

std::vector<Eigen::MatrixXd> step_hessian_tensor(const Scene& scene, const State& x, const Control& u, double h,
                                                 Integrator integrator) {
  check(scene, x, u, "step_hessian_tensor");
  check_h(h, "step_hessian_tensor");
  const int nz = check_dim(scene, "step_hessian_tensor");
  const int nx = scene.state_dim();
  std::vector<Eigen::MatrixXd> out(static_cast<size_t>(nx), Eigen::MatrixXd::Zero(nz, nz));
  step_hessian_passes(scene, x, u, h, integrator, nz,
                      [&](int j, const SystemT<HesT>&, const std::array<HesT, kMaxStateDim>& y) {
                        for (int o = 0; o < nx; ++o)
                          for (int k = 0; k < nz; ++k)
                            out[static_cast<size_t>(o)](k, j) =
                                y[static_cast<size_t>(o)].d[static_cast<size_t>(k)].d[0];
                      });
  return out;
}

}  // namespace diffcol::ssdf
