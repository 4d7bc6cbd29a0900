// diffcol.sim: penalty-contact simulation of free bodies with iDCOL shapes, integrated by
// CVODES with the analytic Jacobian, and its forward sensitivities (include/diffcol/sim/penalty.hpp,
// docs/sim.md); complementarity time stepping of DCOL bodies with rollout Jacobians
// (include/diffcol/sim/time_stepping.hpp, docs/sim-time-stepping.md). States are arrays of 13
// entries per body: p, q = (w, x, y, z), v_W, omega_B (PenaltySystem: free bodies only, one flat
// vector; TimeStepper: every body, one row each).
#include "arrays.hpp"
#include "bindings.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/sim/penalty.hpp"
#include "diffcol/sim/time_stepping.hpp"

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

/// TimeStepper states: one row [p, q (w, x, y, z), v_W, omega_B] per body (the stepper's body count).
std::vector<sim::BodyState> body_states_from(const py::handle& obj, int bodies, const std::string& what) {
  const DoubleArray a = as_double_array(obj, what);
  if (a.ndim() != 2 || a.shape(0) != bodies || a.shape(1) != 13)
    throw std::invalid_argument(what + ": expected shape (" + std::to_string(bodies) + ", 13), one row [p, q, v_W, "
                                "omega_B] per body");
  require_coordinates(a.data(), a.size(), what);
  std::vector<sim::BodyState> out(static_cast<size_t>(bodies));
  std::vector<Pose> poses(static_cast<size_t>(bodies));
  std::vector<double> rows(static_cast<size_t>(7 * bodies));
  for (int i = 0; i < bodies; ++i)
    for (int j = 0; j < 7; ++j) rows[static_cast<size_t>(7 * i + j)] = a.data()[13 * i + j];
  poses_from_buffer(rows.data(), bodies, 7, what, poses.data());  // ValueError for a zero quaternion
  for (int i = 0; i < bodies; ++i) {
    const double* r = a.data() + 13 * i;
    sim::BodyState& b = out[static_cast<size_t>(i)];
    b.X_WB = poses[static_cast<size_t>(i)];
    b.v_W = Vec3(r[7], r[8], r[9]);
    b.omega_B = Vec3(r[10], r[11], r[12]);
  }
  return out;
}

Eigen::Matrix<double, Eigen::Dynamic, 13, Eigen::RowMajor> body_states_to(const std::vector<sim::BodyState>& x) {
  Eigen::Matrix<double, Eigen::Dynamic, 13, Eigen::RowMajor> S(static_cast<Eigen::Index>(x.size()), 13);
  for (size_t i = 0; i < x.size(); ++i) {
    const Eigen::Index r = static_cast<Eigen::Index>(i);
    S.row(r).head<7>() = pose_to_vector(x[i].X_WB).transpose();
    S.row(r).segment<3>(7) = x[i].v_W.transpose();
    S.row(r).tail<3>() = x[i].omega_B.transpose();
  }
  return S;
}

py::dict step_report_dict(const sim::StepReport& r) {
  py::dict d;
  d["converged"] = r.converged;
  d["iterations"] = r.iterations;
  d["substeps"] = r.substeps;
  d["residual"] = r.residual;
  d["min_alpha"] = r.min_alpha;
  d["pairs"] = r.pairs;
  d["active"] = r.active;
  d["max_impulse"] = r.max_impulse;
  d["collision_seconds"] = r.collision_seconds;
  d["message"] = r.message;
  return d;
}

void check_time_stepping_options(const sim::TimeSteppingOptions& o) { o.validate(); }

void bind_time_stepper(py::module_& s) {
  using sim::TimeStepper;
  using sim::TimeSteppingOptions;
  py::class_<TimeSteppingOptions> o(s, "TimeSteppingOptions",
                                    "Options of TimeStepper (docs/sim-time-stepping.md); every field is checked when set.");
  o.def(py::init<>());
  def_checked(o, "dt", &TimeSteppingOptions::dt, "step h (> 0), 0.01 by default", check_time_stepping_options);
  def_checked(o, "gravity", &TimeSteppingOptions::gravity, "(3,) world acceleration, zero by default",
              check_time_stepping_options);
  def_checked(o, "margin", &TimeSteppingOptions::margin, "broad-phase margin (>= 0)", check_time_stepping_options);
  def_checked(o, "max_iterations", &TimeSteppingOptions::max_iterations, "interior-point iterations per step (>= 1)",
              check_time_stepping_options);
  def_checked(o, "tolerance", &TimeSteppingOptions::tolerance, "convergence tolerance of a step",
              check_time_stepping_options);
  def_checked(o, "max_substeps", &TimeSteppingOptions::max_substeps,
              "a failed step is retried as 2, 4, ... substeps up to this many (a power of two)", check_time_stepping_options);
  def_checked(o, "penetration_tolerance", &TimeSteppingOptions::penetration_tolerance,
              "a state with alpha < 1 - this for a pair is refused", check_time_stepping_options);
  def_checked(o, "friction", &TimeSteppingOptions::friction, "Coulomb friction mu (>= 0; 0 frictionless)",
              check_time_stepping_options);
  def_checked(o, "friction_slip_velocity", &TimeSteppingOptions::friction_slip_velocity,
              "epsilon of the smoothed cone (> 0, m/s)", check_time_stepping_options);
  def_checked(o, "friction_passes", &TimeSteppingOptions::friction_passes, "solves per step with friction (>= 1)",
              check_time_stepping_options);
  def_checked(o, "friction_tolerance", &TimeSteppingOptions::friction_tolerance,
              "the normal impulses have settled when no mu P_n changes by more than this fraction of the largest "
              "(1e-12 for rollout Jacobians with friction)",
              check_time_stepping_options);

  py::class_<TimeStepper>(s, "TimeStepper", R"(Complementarity time stepping of DCOL bodies (DCOL seed Sec. IV-B).

Every step solves for the step's velocities and one contact impulse per close pair with
alpha(q_{k+1}) >= 1 at the end of the step; rollouts return d x_N / d x_0 (implicit function
theorem per step). States: arrays (num_bodies, 13), one row [p, q (w, x, y, z), v_W, omega_B]
per body in id order (static bodies: their pose; velocities ignored). Tangent coordinates of
the Jacobians: 12 per dynamic body [dtheta (body axes), dp (world), dv (world), domega (body)].
docs/sim-time-stepping.md.)")
      .def(py::init<const TimeSteppingOptions&>(), py::arg("options") = TimeSteppingOptions{})
      .def(
          "add_body",
          [](TimeStepper& t, const py::object& shape, double mass, const Mat3& inertia, const std::string& name) {
            return t.add_body(to_dcol_primitive(shape, "shape"), mass, inertia, name);
          },
          py::arg("shape"), py::arg("mass"), py::arg("inertia"), py::arg("name") = "",
          "A free body (frame at its centre of mass) carrying a diffcol.dcol primitive; inertia (3, 3) about the "
          "centre of mass in body axes. Returns its id. ValueError for mass <= 0 or an inertia that is not "
          "symmetric positive definite.")
      .def(
          "add_static_body",
          [](TimeStepper& t, const py::object& shape, const std::string& name) {
            return t.add_static_body(to_dcol_primitive(shape, "shape"), name);
          },
          py::arg("shape"), py::arg("name") = "", "A static body (its pose comes with the state). Returns its id.")
      .def("disable_pair", &TimeStepper::disable_pair, py::arg("a"), py::arg("b"), "Bodies a and b get no constraint.")
      .def_property_readonly("num_bodies", &TimeStepper::num_bodies)
      .def_property_readonly("num_dynamic", &TimeStepper::num_dynamic)
      .def_property_readonly("tangent_dimension", &TimeStepper::tangent_dimension)
      .def_property("options", &TimeStepper::options, &TimeStepper::set_options)
      .def(
          "step",
          [](TimeStepper& t, const py::object& state, bool jacobian) {
            std::vector<sim::BodyState> x = body_states_from(state, t.num_bodies(), "state");
            Eigen::MatrixXd J;
            sim::StepReport r;
            {
              py::gil_scoped_release release;
              r = t.step(x, jacobian ? &J : nullptr);
            }
            py::dict d = step_report_dict(r);
            d["state"] = body_states_to(x);
            if (jacobian) d["jacobian"] = J;
            return d;
          },
          py::arg("state"), py::arg("jacobian") = false,
          "One step from `state`: a dict of the StepReport fields (converged, iterations, substeps, residual, "
          "min_alpha, pairs, active, max_impulse, collision_seconds, message), 'state' (the new state, or the "
          "given one when the step failed) and with jacobian=True 'jacobian' (d x_{k+1} / d x_k). ValueError for "
          "a bad state or bodies interpenetrating.")
      .def(
          "rollout",
          [](TimeStepper& t, const py::object& initial, int steps, bool jacobian) {
            const std::vector<sim::BodyState> x0 = body_states_from(initial, t.num_bodies(), "initial");
            sim::Rollout r;
            {
              py::gil_scoped_release release;
              r = t.rollout(x0, steps, jacobian);
            }
            py::array_t<double> states({static_cast<py::ssize_t>(r.states.size()),
                                        static_cast<py::ssize_t>(t.num_bodies()), static_cast<py::ssize_t>(13)});
            double* out = states.mutable_data();
            for (size_t k = 0; k < r.states.size(); ++k) {
              const auto S = body_states_to(r.states[k]);
              std::copy(S.data(), S.data() + S.size(), out + k * static_cast<size_t>(S.size()));
            }
            py::list reports;
            for (const sim::StepReport& rep : r.reports) reports.append(step_report_dict(rep));
            py::dict d;
            d["converged"] = r.converged;
            d["states"] = states;
            d["reports"] = reports;
            if (jacobian) d["jacobian"] = r.jacobian;
            return d;
          },
          py::arg("initial"), py::arg("steps"), py::arg("jacobian") = false,
          "`steps` steps from `initial` (stops at the first failed step): a dict with converged, states "
          "(steps + 1, num_bodies, 13), reports (one dict per step) and with jacobian=True 'jacobian' = d x_N / d x_0 "
          "(tangent coordinates).")
      .def(
          "retract",
          [](const TimeStepper& t, const py::object& state, const Eigen::VectorXd& delta) {
            std::vector<sim::BodyState> x = body_states_from(state, t.num_bodies(), "state");
            t.retract(x, delta);
            return body_states_to(x);
          },
          py::arg("state"), py::arg("delta"), "state (+) delta in the tangent coordinates (delta of size tangent_dimension).")
      .def(
          "linear_momentum",
          [](const TimeStepper& t, const py::object& state) {
            return t.linear_momentum(body_states_from(state, t.num_bodies(), "state"));
          },
          py::arg("state"))
      .def(
          "angular_momentum",
          [](const TimeStepper& t, const py::object& state) {
            return t.angular_momentum(body_states_from(state, t.num_bodies(), "state"));
          },
          py::arg("state"), "About the world origin.")
      .def(
          "kinetic_energy",
          [](const TimeStepper& t, const py::object& state) {
            return t.kinetic_energy(body_states_from(state, t.num_bodies(), "state"));
          },
          py::arg("state"))
      .def(
          "all_pair_alphas",
          [](const TimeStepper& t, const py::object& state) {
            py::list out;
            for (const auto& p : t.all_pair_alphas(body_states_from(state, t.num_bodies(), "state")))
              out.append(py::make_tuple(p.a, p.b, p.alpha, p.ok));
            return out;
          },
          py::arg("state"),
          "(a, b, alpha, ok) for every pair of bodies that may touch (not both static, not disabled), a < b.");

  s.def(
      "twelve_primitives",
      [](unsigned seed, const TimeSteppingOptions& options) {
        std::vector<sim::BodyState> x0;
        auto ts = std::make_unique<TimeStepper>(sim::twelve_primitives(x0, seed, options));
        return py::make_tuple(std::move(ts), body_states_to(x0));
      },
      py::arg("seed") = 1u, py::arg("options") = TimeSteppingOptions{},
      "The DCOL seed's Fig. 6 scene (diffcol demo twelve-primitives): twelve primitives of 10 kg/m^3 moving "
      "towards the origin, no gravity. Returns (TimeStepper, initial state (12, 13)).");
}

}  // namespace

void bind_sim(py::module_& m) {
  py::module_ s = m.def_submodule("sim", R"(Simulation of rigid bodies in contact.

PenaltySystem: iDCOL shapes of a diffcol.Scene, Hertz penalty contact, CVODES with the analytic
Jacobian and forward sensitivities (docs/sim.md). TimeStepper, TimeSteppingOptions: DCOL
primitives, complementarity time stepping with rollout Jacobians (docs/sim-time-stepping.md).)");

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

  bind_time_stepper(s);
}

}  // namespace diffcol::python
