// Python bindings of include/diffcol/ssdf/dynamics.hpp into the submodule diffcol.ssdf: scenes of
// free and kinematic bodies under the soft-minimum contact model, states and controls as numpy
// arrays, Euler / RK4 steps, step Jacobians and a rollout that returns the state trajectory.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "diffcol/ssdf/dynamics.hpp"

namespace diffcol::python {

namespace bind_dynamics_local {

using namespace diffcol::ssdf;

py::array_t<double> poses_array(const Pose* poses, int n) {
  py::array_t<double> a({static_cast<py::ssize_t>(n), py::ssize_t(7)});
  for (int i = 0; i < n; ++i) {
    const Eigen::Matrix<double, 7, 1> v = pose_to_vector(poses[i]);
    for (int k = 0; k < 7; ++k) a.mutable_data()[7 * i + k] = v[k];
  }
  return a;
}

py::array_t<double> twists_array(const Vec6* v, int n) {
  py::array_t<double> a({static_cast<py::ssize_t>(n), py::ssize_t(6)});
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 6; ++k) a.mutable_data()[6 * i + k] = v[i][k];
  return a;
}

void set_poses(Pose* out, int n, const py::object& obj, const std::string& what) {
  const DoubleArray a = as_double_array(obj, what);
  if (a.ndim() == 2 && a.shape(0) == n && a.shape(1) == 7) {
    poses_from_buffer(a.data(), n, 7, what, out);
  } else if (a.ndim() == 3 && a.shape(0) == n && a.shape(1) == 4 && a.shape(2) == 4) {
    poses_from_buffer(a.data(), n, 16, what, out);
  } else {
    throw std::invalid_argument(what + ": expected shape (" + std::to_string(n) + ", 7) or (" + std::to_string(n) + ", 4, 4)");
  }
}

void set_twists(Vec6* out, int n, const py::object& obj, const std::string& what) {
  const DoubleArray a = as_double_array(obj, what);
  if (a.ndim() != 2 || a.shape(0) != n || a.shape(1) != 6)
    throw std::invalid_argument(what + ": expected shape (" + std::to_string(n) + ", 6)");
  require_finite(a.data(), a.size(), what);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 6; ++k) out[i][k] = a.data()[6 * i + k];
}

Geometry geometry_of(const std::shared_ptr<OrientedPointCloud>& cloud, double radius) {
  if (cloud) return Geometry::point_cloud(cloud);
  return Geometry::sphere(radius);
}

Eigen::VectorXd to_dynamic(const GenVec& v) { return Eigen::VectorXd(v); }

const char* const kDynamicsDoc = R"(
Velocities are mixed twists [w; v]: w body-frame angular velocity (rad/s), v world-frame velocity
of the body origin (the centre of mass, m/s). Generalized forces [tau; f]: body-frame torque about
the centre of mass, world-frame force. Tangent layout of Jacobians: state x = [dtheta_0; dp_0; ...;
w_0; v_0; ...] (12 n), control u = [kinematic pose tangents; kinematic velocities; applied wrenches]
(12 m + 6 n), z = [x; u]. See include/diffcol/ssdf/dynamics.hpp.)";

}  // namespace bind_dynamics_local

void bind_dynamics(py::module_& parent) {
  using namespace bind_dynamics_local;
  py::module_ m = parent.attr("ssdf").cast<py::module_>();

  py::class_<BodyId>(m, "BodyId", "A body handle: BodyId.free(i) (free body i) or BodyId.driven(i) (kinematic body i).")
      .def_static("free", &BodyId::free, py::arg("i"), "Free body i.")
      .def_static("driven", &BodyId::driven, py::arg("i"), "Kinematic body i.")
      .def_readonly("kinematic", &BodyId::kinematic, "True for a kinematic body")
      .def_readonly("index", &BodyId::index, "index among the free / kinematic bodies");

  py::enum_<Integrator>(m, "Integrator", "euler: semi-implicit Euler; rk4: RK4 (Munthe-Kaas on SO(3) x R^3).")
      .value("euler", Integrator::euler)
      .value("rk4", Integrator::rk4);

  py::class_<Scene>(m, "Scene", doc(std::string(R"(A scene of free and kinematic bodies with SCM contacts (eq. (24)-(25)).

Scene(params=ScmParameters(), gravity=(0, 0, -9.81)); add_free_body, add_kinematic_body,
add_contact_pair(BodyId, BodyId), set_ground(point, normal). Geometry: an OrientedPointCloud
(AOPC, body frame) or, with cloud=None, a sphere of the given radius about the body origin.
Capacities: 4 free, 4 kinematic bodies, 16 pairs. Invalid input raises ValueError.)") + kDynamicsDoc))
      .def(py::init([](const ScmParameters& params, const py::object& gravity) { return Scene(params, vec3_from(gravity, "gravity")); }),
           py::arg("params") = ScmParameters{}, py::arg("gravity") = Vec3(0.0, 0.0, -9.81))
      .def(
          "add_free_body",
          [](Scene& s, double mass, const Real<Mat3>& inertia, const std::shared_ptr<OrientedPointCloud>& cloud, double radius, bool ground_contact) {
            FreeBodySpec spec;
            spec.mass = mass;
            spec.inertia = inertia;
            spec.geometry = geometry_of(cloud, radius);
            spec.ground_contact = ground_contact;
            return s.add_free_body(spec);
          },
          py::arg("mass"), py::arg("inertia"), py::arg("cloud") = nullptr, py::arg("radius") = 0.0, py::arg("ground_contact") = true,
          "Adds a free body (mass kg, body-frame inertia (3, 3) about the COM); returns its index.")
      .def(
          "add_kinematic_body",
          [](Scene& s, const std::shared_ptr<OrientedPointCloud>& cloud, double radius) {
            KinematicBodySpec spec;
            spec.geometry = geometry_of(cloud, radius);
            return s.add_kinematic_body(spec);
          },
          py::arg("cloud") = nullptr, py::arg("radius") = 0.0, "Adds a kinematically driven body; returns its index.")
      .def("add_contact_pair", &Scene::add_contact_pair, py::arg("a"), py::arg("b"), "Declares the collision pair (a, b).")
      .def(
          "set_ground",
          [](Scene& s, const py::object& point, const py::object& normal) {
            s.set_ground(GroundPlane{vec3_from(point, "point"), vec3_from(normal, "normal")});
          },
          py::arg("point") = Vec3::Zero(), py::arg("normal") = Vec3::UnitZ(), "Enables the ground plane n^T (x - point) = 0.")
      .def("clear_ground", &Scene::clear_ground, "Removes the ground plane.")
      .def_property_readonly("num_free", &Scene::num_free, "number of free bodies")
      .def_property_readonly("num_kinematic", &Scene::num_kinematic, "number of kinematic bodies")
      .def_property_readonly("state_dim", &Scene::state_dim, "12 n")
      .def_property_readonly("control_dim", &Scene::control_dim, "12 m + 6 n")
      .def_property_readonly("parameters", &Scene::parameters, "the ScmParameters");

  py::class_<State>(m, "State", "Poses (n, 7) [x, y, z, qw, qx, qy, qz] and mixed twists (n, 6) [w; v] of the free bodies. State.zeros(scene).")
      .def_static("zeros", &State::zeros, py::arg("scene"), "Identity poses, zero velocities.")
      .def_readonly("num_bodies", &State::num_bodies, "n")
      .def_property(
          "poses", [](const State& s) { return poses_array(s.pose.data(), s.num_bodies); },
          [](State& s, const py::object& v) { set_poses(s.pose.data(), s.num_bodies, v, "poses"); }, "(n, 7) world poses (settable; also (n, 4, 4))")
      .def_property(
          "velocities", [](const State& s) { return twists_array(s.velocity.data(), s.num_bodies); },
          [](State& s, const py::object& v) { set_twists(s.velocity.data(), s.num_bodies, v, "velocities"); }, "(n, 6) mixed twists [w; v] (settable)");

  py::class_<Control>(m, "Control", "Kinematic poses (m, 7), kinematic velocities (m, 6) and applied wrenches (n, 6) [tau; f]. Control.zeros(scene).")
      .def_static("zeros", &Control::zeros, py::arg("scene"), "Identity poses, zero velocities and wrenches.")
      .def_property(
          "kinematic_poses", [](const Control& c) { return poses_array(c.pose.data(), c.num_kinematic); },
          [](Control& c, const py::object& v) { set_poses(c.pose.data(), c.num_kinematic, v, "kinematic_poses"); }, "(m, 7) poses of the kinematic bodies")
      .def_property(
          "kinematic_velocities", [](const Control& c) { return twists_array(c.velocity.data(), c.num_kinematic); },
          [](Control& c, const py::object& v) { set_twists(c.velocity.data(), c.num_kinematic, v, "kinematic_velocities"); },
          "(m, 6) mixed twists of the kinematic bodies")
      .def_property(
          "wrenches", [](const Control& c) { return twists_array(c.wrench.data(), c.num_free); },
          [](Control& c, const py::object& v) { set_twists(c.wrench.data(), c.num_free, v, "wrenches"); }, "(n, 6) applied [tau; f] on the free bodies");

  m.def("contact_forces", [](const Scene& s, const State& x, const Control& u) { return to_dynamic(contact_forces(s, x, u)); },
        py::arg("scene"), py::arg("x"), py::arg("u"), doc(std::string("Total generalized SCM contact force (6 n,) [tau_0; f_0; ...].") + kDynamicsDoc));
  m.def("forward_dynamics", [](const Scene& s, const State& x, const Control& u) { return to_dynamic(forward_dynamics(s, x, u)); },
        py::arg("scene"), py::arg("x"), py::arg("u"), "Accelerations (6 n,) [dw_0; dv_0; ...], eq. (25).");
  m.def("step", &ssdf::step, py::arg("scene"), py::arg("x"), py::arg("u"), py::arg("h"), py::arg("integrator") = Integrator::rk4,
        "One step of length h (s) with the integrator: the next State. ValueError on bad sizes, non-finite input or h <= 0.");
  m.def(
      "step_jacobian",
      [](const Scene& s, const State& x, const Control& u, double h, Integrator integrator) {
        const StepJacobian j = step_jacobian(s, x, u, h, integrator);
        return py::make_tuple(j.next, Eigen::MatrixXd(j.J_next_z));
      },
      py::arg("scene"), py::arg("x"), py::arg("u"), py::arg("h"), py::arg("integrator") = Integrator::rk4,
      doc(std::string("One step and its Jacobian: (next State, J_next_z (12 n, dim z)); columns [0, 12 n) are d x+ / d x.") + kDynamicsDoc));
  m.def(
      "inverse_dynamics",
      [](const Scene& s, const State& x, const Control& u, const Real<Eigen::VectorXd>& acceleration) {
        if (acceleration.size() > kMaxGeneralizedDim)
          throw std::invalid_argument("inverse_dynamics: acceleration has more than 6 * kMaxFreeBodies entries");
        return to_dynamic(inverse_dynamics(s, x, u, GenVec(acceleration)));
      },
      py::arg("scene"), py::arg("x"), py::arg("u"), py::arg("acceleration"),
      "Inverse dynamics, eq. (24): the generalized force (6 n,) M dv + c - sum Lambda that produces the "
      "accelerations (6 n,) [dw_0; dv_0; ...]; u.wrench is ignored.");
  m.def(
      "contact_force_jacobian",
      [](const Scene& s, const State& x, const Control& u) {
        const ContactForceJacobian j = contact_force_jacobian(s, x, u);
        return py::make_tuple(to_dynamic(j.forces), Eigen::MatrixXd(j.J_forces_z));
      },
      py::arg("scene"), py::arg("x"), py::arg("u"),
      doc(std::string("Contact forces and their Jacobian: (forces (6 n,), J_forces_z (6 n, dim z)).") + kDynamicsDoc));
  m.def(
      "step_hessian",
      [](const Scene& s, const State& x, const Control& u, double h, Integrator integrator,
         const Real<Eigen::VectorXd>& weights) {
        if (weights.size() > kMaxStateDim)
          throw std::invalid_argument("step_hessian: weights has more than 12 * kMaxFreeBodies entries");
        const StepHessian r = step_hessian(s, x, u, h, integrator, StateVec(weights));
        return py::make_tuple(r.next, Eigen::MatrixXd(r.J_next_z), Eigen::MatrixXd(r.H_z));
      },
      py::arg("scene"), py::arg("x"), py::arg("u"), py::arg("h"), py::arg("integrator"), py::arg("weights"),
      doc(std::string("One step, its Jacobian and the Hessian of the loss l = w^T (x+ [-] x+_0): (next State, "
                      "J_next_z (12 n, dim z), H_z (dim z, dim z)); x+_0 is the nominal next state, weights "
                      "(12 n,) act on its tangent. What DDP-style optimizers need.") + kDynamicsDoc));
  m.def(
      "step_hessian_tensor",
      [](const Scene& s, const State& x, const Control& u, double h, Integrator integrator) {
        const std::vector<Eigen::MatrixXd> T = step_hessian_tensor(s, x, u, h, integrator);
        const py::ssize_t no = static_cast<py::ssize_t>(T.size());
        const py::ssize_t nz = T.empty() ? 0 : static_cast<py::ssize_t>(T[0].rows());
        py::array_t<double> out({no, nz, nz});
        auto a = out.mutable_unchecked<3>();
        for (py::ssize_t o = 0; o < no; ++o)
          for (py::ssize_t i = 0; i < nz; ++i)
            for (py::ssize_t j = 0; j < nz; ++j) a(o, i, j) = T[static_cast<size_t>(o)](i, j);
        return out;
      },
      py::arg("scene"), py::arg("x"), py::arg("u"), py::arg("h"), py::arg("integrator"),
      doc(std::string("Second derivatives of every output of one step: an array (12 n, dim z, dim z) whose "
                      "slice o is d^2 x+_o / dz^2 in the tangent charts of step_jacobian (contracting it with "
                      "weights w gives step_hessian's H_z).") + kDynamicsDoc));
  m.def(
      "rollout",
      [](const Scene& s, const State& x0, const py::object& controls, double h, int steps, Integrator integrator) {
        std::vector<Control> us;
        if (py::isinstance<Control>(controls)) {
          us.push_back(controls.cast<Control>());
        } else {
          for (const auto& c : controls) us.push_back(c.cast<Control>());
        }
        if (us.empty()) throw std::invalid_argument("rollout: no control");
        if (steps < -1)
          throw std::invalid_argument("rollout: steps must be >= 0, or -1 for one step per control (got " +
                                      std::to_string(steps) + ")");
        if (steps < 0) steps = static_cast<int>(us.size());
        if (us.size() != 1 && static_cast<int>(us.size()) != steps)
          throw std::invalid_argument("rollout: give one Control (held) or one per step");
        const int n = x0.num_bodies;
        std::vector<State> traj(static_cast<size_t>(steps) + 1);
        traj[0] = x0;
        {
          py::gil_scoped_release release;
          for (int t = 0; t < steps; ++t)
            traj[static_cast<size_t>(t) + 1] = step(s, traj[static_cast<size_t>(t)], us[us.size() == 1 ? 0 : static_cast<size_t>(t)], h, integrator);
        }
        py::array_t<double> poses({static_cast<py::ssize_t>(steps) + 1, static_cast<py::ssize_t>(n), py::ssize_t(7)});
        py::array_t<double> vels({static_cast<py::ssize_t>(steps) + 1, static_cast<py::ssize_t>(n), py::ssize_t(6)});
        for (int t = 0; t <= steps; ++t) {
          const State& st = traj[static_cast<size_t>(t)];
          for (int b = 0; b < n; ++b) {
            const Eigen::Matrix<double, 7, 1> v = pose_to_vector(st.pose[static_cast<size_t>(b)]);
            for (int k = 0; k < 7; ++k) poses.mutable_data()[(t * n + b) * 7 + k] = v[k];
            for (int k = 0; k < 6; ++k) vels.mutable_data()[(t * n + b) * 6 + k] = st.velocity[static_cast<size_t>(b)][k];
          }
        }
        return py::make_tuple(poses, vels);
      },
      py::arg("scene"), py::arg("x0"), py::arg("controls"), py::arg("h"), py::arg("steps") = -1, py::arg("integrator") = Integrator::rk4,
      "Simulates from x0: controls is one Control (held for `steps` steps) or a list of T Controls (steps = T). Returns\n"
      "(poses (T+1, n, 7), velocities (T+1, n, 6)), the state trajectory including x0 (poses feed diffcol.view_rollout).");
}

}  // namespace diffcol::python
