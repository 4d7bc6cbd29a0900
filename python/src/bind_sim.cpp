// diffcol.sim: penalty-contact simulation of free bodies with iDCOL shapes, integrated by
// CVODES with the analytic Jacobian, and its forward sensitivities (include/diffcol/sim/penalty.hpp,
// docs/sim.md). States are the raw state vectors of PenaltySystem (13 entries per free body:
// p, q = (w, x, y, z), v_W, omega_B).
#include "bindings.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/sim/penalty.hpp"

namespace diffcol::python {

namespace {

using sim::PenaltySystem;

py::dict sim_stats_dict(const sim::SimStats& s) {
  py::dict d;
  d["steps"] = s.steps;
  d["rhs_evaluations"] = s.rhs_evaluations;
  d["jacobian_evaluations"] = s.jacobian_evaluations;
  d["fd_rhs_evaluations"] = s.fd_rhs_evaluations;
  d["newton_iterations"] = s.newton_iterations;
  d["error_test_failures"] = s.error_test_failures;
  d["convergence_failures"] = s.convergence_failures;
  d["contact_solves"] = s.contact_solves;
  d["fd_pair_jacobians"] = s.fd_pair_jacobians;
  d["wall_s"] = s.wall_s;
  d["cpu_s"] = s.cpu_s;
  d["collision_s"] = s.collision_s;
  d["max_penetration"] = s.max_penetration;
  return d;
}

Eigen::VectorXd sim_state_vector(const PenaltySystem& sys, const Eigen::VectorXd& y, const char* what) {
  if (y.size() != sys.state_size())
    throw py::value_error(std::string(what) + ": state of size " + std::to_string(y.size()) + ", expected " +
                          std::to_string(sys.state_size()));
  return y;
}

}  // namespace

void bind_sim(py::module_& m) {
  py::module_ s = m.def_submodule("sim", "Penalty-contact simulation with CVODES (docs/sim.md).");

  py::class_<sim::ContactModel>(s, "ContactModel", "Hertz contact with Hunt-Crossley damping and regularized Coulomb friction.")
      .def(py::init<>())
      .def_readwrite("stiffness", &sim::ContactModel::stiffness)
      .def_readwrite("exponent", &sim::ContactModel::exponent)
      .def_readwrite("damping", &sim::ContactModel::damping)
      .def_readwrite("friction", &sim::ContactModel::friction)
      .def_readwrite("slip_velocity", &sim::ContactModel::slip_velocity);

  py::enum_<sim::JacobianMode>(s, "JacobianMode")
      .value("analytic", sim::JacobianMode::analytic)
      .value("finite_difference", sim::JacobianMode::finite_difference);
  py::enum_<sim::LinearSolverKind>(s, "LinearSolverKind")
      .value("dense_blocks", sim::LinearSolverKind::dense_blocks)
      .value("dense", sim::LinearSolverKind::dense)
      .value("sparse", sim::LinearSolverKind::sparse);

  py::class_<sim::SimOptions>(s, "SimOptions", "CVODES settings (rtol, atol, max_step: 0 automatic, ...).")
      .def(py::init<>())
      .def_readwrite("rtol", &sim::SimOptions::rtol)
      .def_readwrite("atol", &sim::SimOptions::atol)
      .def_readwrite("max_step", &sim::SimOptions::max_step)
      .def_readwrite("max_steps", &sim::SimOptions::max_steps)
      .def_readwrite("max_order", &sim::SimOptions::max_order)
      .def_readwrite("jacobian", &sim::SimOptions::jacobian)
      .def_readwrite("linear_solver", &sim::SimOptions::linear_solver)
      .def_readwrite("margin", &sim::SimOptions::margin)
      .def_readwrite("allow_initial_penetration", &sim::SimOptions::allow_initial_penetration)
      .def_readwrite("project_momentum", &sim::SimOptions::project_momentum)
      .def_readwrite("jacobian_frequency", &sim::SimOptions::jacobian_frequency);

  py::class_<PenaltySystem>(s, "PenaltySystem",
                            "Free and static bodies of a diffcol.Scene with penalty contact between their iDCOL shapes.")
      .def(py::init([](const scene::Scene& scene, const std::vector<double>& mass, const std::vector<Mat3>& inertia,
                       const sim::ContactModel& model, const Vec3& gravity) {
             if (mass.size() != inertia.size())
               throw py::value_error("PenaltySystem: " + std::to_string(mass.size()) + " masses and " +
                                     std::to_string(inertia.size()) + " inertias");
             std::vector<sim::MassProperties> mp(mass.size());
             for (size_t i = 0; i < mass.size(); ++i) mp[i].mass = mass[i], mp[i].inertia = inertia[i];
             return std::make_unique<PenaltySystem>(scene, std::move(mp), model, gravity);
           }),
           py::arg("scene"), py::arg("mass"), py::arg("inertia"), py::arg("model") = sim::ContactModel{},
           py::arg("gravity") = Vec3::Zero(),
           "One mass and one 3x3 inertia (about the centre of mass, body axes) per scene body; static bodies' "
           "entries are ignored. Body frames are at the centres of mass.")
      .def_property_readonly("state_size", &PenaltySystem::state_size)
      .def_property_readonly("num_free", &PenaltySystem::num_free)
      .def_property("model", &PenaltySystem::model, &PenaltySystem::set_model)
      .def(
          "pack",
          [](const PenaltySystem& sys, const std::vector<Pose>& poses, const std::vector<Vec3>& v_W,
             const std::vector<Vec3>& omega_B) {
            if (poses.size() != v_W.size() || poses.size() != omega_B.size())
              throw py::value_error("pack: poses, v_W and omega_B must have one entry per body");
            std::vector<sim::BodyState> st(poses.size());
            for (size_t i = 0; i < st.size(); ++i) st[i].X_WB = poses[i], st[i].v_W = v_W[i], st[i].omega_B = omega_B[i];
            return sys.pack(st);
          },
          py::arg("poses"), py::arg("v_W"), py::arg("omega_B"), "The state vector of one state per scene body.")
      .def(
          "rhs",
          [](PenaltySystem& sys, const Eigen::VectorXd& y) {
            Eigen::VectorXd f;
            sys.rhs(sim_state_vector(sys, y, "rhs"), f);
            return f;
          },
          py::arg("y"))
      .def(
          "rhs_jacobian",
          [](PenaltySystem& sys, const Eigen::VectorXd& y) {
            Eigen::MatrixXd J;
            sys.rhs_jacobian(sim_state_vector(sys, y, "rhs_jacobian"), J);
            return J;
          },
          py::arg("y"), "The analytic Jacobian of rhs(y).")
      .def(
          "invariants",
          [](const PenaltySystem& sys, const Eigen::VectorXd& y) {
            const sim::SystemInvariants inv = sys.invariants(sim_state_vector(sys, y, "invariants"));
            py::dict d;
            d["linear"] = inv.linear;
            d["angular"] = inv.angular;
            d["kinetic"] = inv.kinetic;
            d["potential"] = inv.potential;
            d["momentum_scale"] = inv.momentum_scale;
            return d;
          },
          py::arg("y"))
      .def(
          "simulate",
          [](PenaltySystem& sys, const Eigen::VectorXd& y0, const std::vector<double>& times,
             const sim::SimOptions& options) {
            sim::SimResult r;
            {
              py::gil_scoped_release release;
              r = sys.simulate(y0, times, options);
            }
            Eigen::MatrixXd Y(static_cast<Eigen::Index>(r.states.size()), sys.state_size());
            for (size_t i = 0; i < r.states.size(); ++i) Y.row(static_cast<Eigen::Index>(i)) = sys.pack(r.states[i]).transpose();
            py::dict d;
            d["success"] = r.success;
            d["message"] = r.message;
            d["times"] = r.times;
            d["states"] = Y;
            d["final_time"] = r.final_time;
            d["final_y"] = r.final_y;
            d["stats"] = sim_stats_dict(r.stats);
            return d;
          },
          py::arg("y0"), py::arg("times"), py::arg("options") = sim::SimOptions{},
          "Integrates from y0 at times[0] through times. Returns a dict: success, message, times, states "
          "(one normalized state vector per time reached), final_time, final_y (raw), stats.")
      .def(
          "simulate_sensitivities",
          [](PenaltySystem& sys, const Eigen::VectorXd& y0, double duration, const sim::SimOptions& options) {
            sim::SensitivityResult r;
            {
              py::gil_scoped_release release;
              r = sys.simulate_sensitivities(y0, duration, options);
            }
            py::dict d;
            d["success"] = r.success;
            d["message"] = r.message;
            d["final_time"] = r.final_time;
            d["final_y"] = r.final_state;
            d["d_initial"] = r.d_initial;
            d["d_stiffness"] = r.d_stiffness;
            d["stats"] = sim_stats_dict(r.stats);
            return d;
          },
          py::arg("y0"), py::arg("duration"), py::arg("options") = sim::SimOptions{},
          "Forward sensitivities: d_initial = dy(T)/dy0 (n x n), d_stiffness = dy(T)/dk.");
}

}  // namespace diffcol::python
