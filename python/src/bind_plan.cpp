// diffcol.plan: trajectory optimization over a Scene with Ipopt (include/diffcol/plan/trajectory.hpp,
// docs/plan.md).
#include <optional>

#include "bindings.hpp"
#include "diffcol/plan/examples.hpp"
#include "diffcol/plan/trajectory.hpp"
#include "diffcol/scene/robot.hpp"

namespace diffcol::python {

namespace {

using plan::CheckResult;
using plan::CollisionConstraints;
using plan::FreeBody;
using plan::SolveOptions;
using plan::SolveResult;
using plan::TrajectoryProblem;
using plan::TrajectorySpec;

// A Python cost f(x) -> (value, gradient) as a CostFunction (gradient: None or num_variables entries).
plan::CostFunction python_cost(py::function f) {
  return [f](const Eigen::Ref<const Eigen::VectorXd>& x, double* grad) {
    py::gil_scoped_acquire gil;
    const py::object out = f(Eigen::VectorXd(x));
    const py::tuple t = out.cast<py::tuple>();
    if (t.size() != 2) throw std::invalid_argument("plan cost: return (value, gradient)");
    const double v = t[0].cast<double>();
    if (grad) {
      const Eigen::VectorXd g = t[1].cast<Eigen::VectorXd>();
      if (g.size() != x.size())
        throw std::invalid_argument("plan cost: the gradient has " + std::to_string(g.size()) + " entries, expected " +
                                    std::to_string(x.size()));
      for (Eigen::Index i = 0; i < g.size(); ++i) grad[i] += g[i];
    }
    return v;
  };
}

// A Python cost Hessian h(x, weight) -> weight·∇²c(x) as a CostHessian: a symmetric (n, n) array
// (its lower triangle read, zeros skipped) or (rows, cols, values), each unordered pair once.
plan::CostHessian python_cost_hessian(py::function h) {
  return [h](const Eigen::Ref<const Eigen::VectorXd>& x, double weight, std::vector<plan::HessianEntry>& out) {
    py::gil_scoped_acquire gil;
    const py::object r = h(Eigen::VectorXd(x), weight);
    const Eigen::Index n = x.size();
    if (py::isinstance<py::tuple>(r)) {
      const py::tuple t = r.cast<py::tuple>();
      if (t.size() != 3) throw std::invalid_argument("plan cost Hessian: return an (n, n) array or (rows, cols, values)");
      const Eigen::VectorXi rows = t[0].cast<Eigen::VectorXi>(), cols = t[1].cast<Eigen::VectorXi>();
      const Eigen::VectorXd values = t[2].cast<Eigen::VectorXd>();
      if (rows.size() != values.size() || cols.size() != values.size())
        throw std::invalid_argument("plan cost Hessian: rows, cols and values differ in length");
      if (!values.allFinite()) throw std::invalid_argument("plan cost Hessian: a value is NaN or infinite");
      for (Eigen::Index e = 0; e < values.size(); ++e) {
        if (rows[e] < 0 || rows[e] >= n || cols[e] < 0 || cols[e] >= n)
          throw std::invalid_argument("plan cost Hessian: entry (" + std::to_string(rows[e]) + ", " +
                                      std::to_string(cols[e]) + ") outside the " + std::to_string(n) + " variables");
        out.push_back({rows[e], cols[e], values[e]});
      }
      return;
    }
    const Eigen::MatrixXd H = r.cast<Eigen::MatrixXd>();
    if (H.rows() != n || H.cols() != n)
      throw std::invalid_argument("plan cost Hessian: a " + std::to_string(H.rows()) + " x " + std::to_string(H.cols()) +
                                  " array, expected " + std::to_string(n) + " x " + std::to_string(n));
    if (!H.allFinite()) throw std::invalid_argument("plan cost Hessian: an entry is NaN or infinite");
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = j; i < n; ++i)
        if (H(i, j) != 0.0) out.push_back({static_cast<int>(i), static_cast<int>(j), H(i, j)});
  };
}

// A Python residual f(k, z_k, z_next) -> (r, jacobian_values) as Dynamics::residual.
plan::Dynamics python_dynamics(int num_residuals, std::vector<std::pair<int, int>> sparsity, int knot_size,
                               py::function f) {
  plan::Dynamics d;
  d.num_residuals = num_residuals;
  d.sparsity = std::move(sparsity);
  const Eigen::Index nnz = d.sparsity.empty() ? static_cast<Eigen::Index>(num_residuals) * 2 * knot_size
                                              : static_cast<Eigen::Index>(d.sparsity.size());
  d.residual = [f, num_residuals, nnz](int k, const Eigen::Ref<const Eigen::VectorXd>& z,
                                       const Eigen::Ref<const Eigen::VectorXd>& zn, Eigen::Ref<Eigen::VectorXd> r,
                                       double* J) {
    py::gil_scoped_acquire gil;
    const py::tuple t = f(k, Eigen::VectorXd(z), Eigen::VectorXd(zn)).cast<py::tuple>();
    if (t.size() != 2) throw std::invalid_argument("plan dynamics: return (residual, jacobian_values)");
    const Eigen::VectorXd rv = t[0].cast<Eigen::VectorXd>();
    if (rv.size() != num_residuals) throw std::invalid_argument("plan dynamics: the residual has the wrong size");
    r = rv;
    if (J) {
      const Eigen::VectorXd jv = t[1].cast<Eigen::VectorXd>();
      if (jv.size() != nnz)
        throw std::invalid_argument("plan dynamics: " + std::to_string(jv.size()) + " Jacobian values, expected " +
                                    std::to_string(nnz));
      for (Eigen::Index i = 0; i < nnz; ++i) J[i] = jv[i];
    }
  };
  return d;
}

// A Python h(k, z_k, z_next, mu) -> Σ_i mu_i ∇²f_i over [z_k; z_next] as Dynamics::hessian.
void set_python_dynamics_hessian(plan::Dynamics& d, int knot_size, py::function h) {
  d.hessian = [h, knot_size](int k, const Eigen::Ref<const Eigen::VectorXd>& z, const Eigen::Ref<const Eigen::VectorXd>& zn,
                             const Eigen::Ref<const Eigen::VectorXd>& mu, Eigen::Ref<Eigen::MatrixXd> H) {
    py::gil_scoped_acquire gil;
    const Eigen::MatrixXd M = h(k, Eigen::VectorXd(z), Eigen::VectorXd(zn), Eigen::VectorXd(mu)).cast<Eigen::MatrixXd>();
    if (M.rows() != 2 * knot_size || M.cols() != 2 * knot_size)
      throw std::invalid_argument("plan dynamics Hessian: a " + std::to_string(M.rows()) + " x " + std::to_string(M.cols()) +
                                  " array, expected " + std::to_string(2 * knot_size) + " square");
    if (!M.allFinite()) throw std::invalid_argument("plan dynamics Hessian: an entry is NaN or infinite");
    H += M;
  };
}

}  // namespace

void bind_plan(py::module_& parent) {
  py::module_ m = parent.def_submodule("plan", R"(Trajectory optimization over a Scene with Ipopt (docs/plan.md).

Direct transcription: N knots of z_k = [q_k; s_k; u_k] (configuration of a Robot's joints and of
free bodies, extra state, controls); smoothness, goal and control costs; dynamics f(z_k, z_{k+1}) = 0;
one collision row per (sample, pair) of a pair set fixed at construction: alpha >= 1 + bound,
gap >= bound or Euclidean distance >= bound, with the scene's analytic Jacobians.)");

  py::enum_<plan::Parametrization>(m, "Parametrization", "Coordinates of a free body (docs/plan.md).")
      .value("translation", plan::Parametrization::translation)
      .value("planar", plan::Parametrization::planar)
      .value("pose6", plan::Parametrization::pose6);
  py::enum_<plan::CollisionMeasure>(m, "CollisionMeasure", "What a collision row measures.")
      .value("alpha", plan::CollisionMeasure::alpha)
      .value("gap", plan::CollisionMeasure::gap)
      .value("distance", plan::CollisionMeasure::distance);
  py::enum_<plan::PairSelection>(m, "PairSelection", "Which shape pairs get rows.")
      .value("all", plan::PairSelection::all)
      .value("initial_path", plan::PairSelection::initial_path);
  py::enum_<plan::HessianMode>(m, "HessianMode", "Ipopt's Hessian.")
      .value("limited_memory", plan::HessianMode::limited_memory)
      .value("exact", plan::HessianMode::exact)
      .value("objective", plan::HessianMode::objective);

  py::class_<FreeBody>(m, "FreeBody", "A moving scene body whose pose the problem optimizes.")
      .def(py::init([](int body, plan::Parametrization p, const Pose& reference) { return FreeBody{body, p, reference}; }),
           py::arg("body"), py::arg("parametrization") = plan::Parametrization::translation,
           py::arg("reference") = Pose::identity())
      .def_readwrite("body", &FreeBody::body)
      .def_readwrite("parametrization", &FreeBody::parametrization)
      .def_readwrite("reference", &FreeBody::reference);
  m.def("num_coordinates", &plan::num_coordinates, py::arg("parametrization"));
  m.def(
      "free_body_pose",
      [](const FreeBody& b, const Eigen::VectorXd& c) {
        if (c.size() != plan::num_coordinates(b.parametrization)) throw std::invalid_argument("wrong number of coordinates");
        return plan::free_body_pose(b, c.data());
      },
      py::arg("body"), py::arg("coordinates"));
  m.def(
      "free_body_jacobian",
      [](const FreeBody& b, const Eigen::VectorXd& c) {
        if (c.size() != plan::num_coordinates(b.parametrization)) throw std::invalid_argument("wrong number of coordinates");
        Eigen::Matrix<double, 6, Eigen::Dynamic> J;
        plan::free_body_jacobian(b, c.data(), J);
        return Eigen::MatrixXd(J);
      },
      py::arg("body"), py::arg("coordinates"),
      "The 6 x n Jacobian of the pose in the coordinates, as a twist [w; v] in local_world_aligned.");
  m.def("free_body_coordinates", &plan::free_body_coordinates, py::arg("body"), py::arg("pose"));

  py::class_<CollisionConstraints>(m, "CollisionConstraints", "The collision rows (docs/plan.md).")
      .def(py::init<>())
      .def_readwrite("enabled", &CollisionConstraints::enabled)
      .def_readwrite("measure", &CollisionConstraints::measure)
      .def_readwrite("bound", &CollisionConstraints::bound)
      .def_readwrite("activation_margin", &CollisionConstraints::activation_margin)
      .def_readwrite("selection", &CollisionConstraints::selection)
      .def_readwrite("selection_margin", &CollisionConstraints::selection_margin)
      .def_readwrite("num_threads", &CollisionConstraints::num_threads)
      .def_readwrite("interval_samples", &CollisionConstraints::interval_samples);

  py::class_<TrajectorySpec>(m, "TrajectorySpec", R"(What to optimize (docs/plan.md). The robot is given to
TrajectoryProblem; costs and dynamics are set with add_cost and set_dynamics.)")
      .def(py::init<>())
      .def_readwrite("num_knots", &TrajectorySpec::num_knots)
      .def_readwrite("bodies", &TrajectorySpec::bodies)
      .def_readwrite("num_extra_states", &TrajectorySpec::num_extra_states)
      .def_readwrite("num_controls", &TrajectorySpec::num_controls)
      .def_readwrite("start", &TrajectorySpec::start)
      .def_readwrite("goal", &TrajectorySpec::goal)
      .def_readwrite("fix_goal", &TrajectorySpec::fix_goal)
      .def_readwrite("goal_weight", &TrajectorySpec::goal_weight)
      .def_readwrite("start_extra", &TrajectorySpec::start_extra)
      .def_readwrite("goal_extra", &TrajectorySpec::goal_extra)
      .def_readwrite("smoothness_weight", &TrajectorySpec::smoothness_weight)
      .def_readwrite("coordinate_weights", &TrajectorySpec::coordinate_weights)
      .def_readwrite("control_weight", &TrajectorySpec::control_weight)
      .def_readwrite("q_lower", &TrajectorySpec::q_lower)
      .def_readwrite("q_upper", &TrajectorySpec::q_upper)
      .def_readwrite("extra_lower", &TrajectorySpec::extra_lower)
      .def_readwrite("extra_upper", &TrajectorySpec::extra_upper)
      .def_readwrite("control_lower", &TrajectorySpec::control_lower)
      .def_readwrite("control_upper", &TrajectorySpec::control_upper)
      .def_readwrite("collision", &TrajectorySpec::collision)
      .def(
          "add_cost",
          [](TrajectorySpec& s, py::function f, py::object hessian) {
            s.costs.push_back(python_cost(std::move(f)));
            if (!hessian.is_none() || !s.cost_hessians.empty()) {
              s.cost_hessians.resize(s.costs.size() - 1);
              s.cost_hessians.push_back(hessian.is_none() ? plan::CostHessian{}
                                                          : python_cost_hessian(hessian.cast<py::function>()));
            }
          },
          py::arg("cost"), py::arg("hessian") = py::none(),
          R"(A cost f(x) -> (value, gradient or None) over the whole decision vector. hessian (for
HessianMode.exact): h(x, weight) -> weight * the cost's Hessian, a symmetric (n, n) array (its lower
triangle is read) or (rows, cols, values) with each unordered pair once; its entries may couple
knots at most cost_hessian_bandwidth apart.)")
      .def_readwrite("cost_hessian_bandwidth", &TrajectorySpec::cost_hessian_bandwidth,
                     "The most knots apart that a cost Hessian couples (>= 1).")
      .def(
          "set_dynamics",
          [](TrajectorySpec& s, int num_residuals, std::vector<std::pair<int, int>> sparsity, py::function f,
             py::object hessian) {
            const int knot_size = s.start.size() + s.num_extra_states + s.num_controls;
            s.dynamics = python_dynamics(num_residuals, std::move(sparsity), knot_size, std::move(f));
            if (!hessian.is_none()) set_python_dynamics_hessian(s.dynamics, knot_size, hessian.cast<py::function>());
          },
          py::arg("num_residuals"), py::arg("sparsity"), py::arg("residual"), py::arg("hessian") = py::none(),
          R"(Dynamics f(z_k, z_{k+1}) = 0: residual(k, z_k, z_next) -> (r, jacobian_values in the order of
`sparsity`, a list of (row, column) over [z_k; z_next]; empty: dense row-major). hessian (for
HessianMode.exact): h(k, z_k, z_next, mu) -> sum_i mu_i * the Hessian of residual i over
[z_k; z_next], a symmetric square array of twice the knot size. Set start, num_extra_states and
num_controls first.)");

  py::class_<SolveOptions>(m, "SolveOptions", "Ipopt's options (docs/plan.md).")
      .def(py::init<>())
      .def_readwrite("tolerance", &SolveOptions::tolerance)
      .def_readwrite("acceptable_tolerance", &SolveOptions::acceptable_tolerance)
      .def_readwrite("constraint_tolerance", &SolveOptions::constraint_tolerance)
      .def_readwrite("max_iterations", &SolveOptions::max_iterations)
      .def_readwrite("max_seconds", &SolveOptions::max_seconds)
      .def_readwrite("print_level", &SolveOptions::print_level)
      .def_readwrite("hessian", &SolveOptions::hessian)
      .def_readwrite("limited_memory_size", &SolveOptions::limited_memory_size)
      .def_readwrite("fd_gradients", &SolveOptions::fd_gradients)
      .def_readwrite("fd_step", &SolveOptions::fd_step)
      .def_readwrite("string_options", &SolveOptions::string_options)
      .def_readwrite("numeric_options", &SolveOptions::numeric_options)
      .def_readwrite("integer_options", &SolveOptions::integer_options);

  py::class_<SolveResult>(m, "SolveResult", "What Ipopt returned, with the trajectory.")
      .def_readonly("success", &SolveResult::success)
      .def_readonly("status", &SolveResult::status)
      .def_readonly("message", &SolveResult::message)
      .def_readonly("iterations", &SolveResult::iterations)
      .def_readonly("objective", &SolveResult::objective)
      .def_readonly("constraint_violation", &SolveResult::constraint_violation)
      .def_readonly("wall_s", &SolveResult::wall_s)
      .def_readonly("collision_s", &SolveResult::collision_s)
      .def_readonly("collision_queries", &SolveResult::collision_queries)
      .def_readonly("x", &SolveResult::x)
      .def_readonly("configurations", &SolveResult::configurations)
      .def_readonly("lambda_", &SolveResult::lambda)
      .def_readonly("z_lower", &SolveResult::z_lower)
      .def_readonly("z_upper", &SolveResult::z_upper)
      .def("__repr__", [](const SolveResult& r) {
        return "SolveResult(" + r.status + ", iterations=" + std::to_string(r.iterations) +
               ", objective=" + std::to_string(r.objective) + ")";
      });

  py::class_<CheckResult>(m, "CheckResult", "An independent re-check of a trajectory (check_trajectory).")
      .def_readonly("min_distance", &CheckResult::min_distance)
      .def_readonly("min_at", &CheckResult::min_at)
      .def_readonly("shape1", &CheckResult::shape1)
      .def_readonly("shape2", &CheckResult::shape2)
      .def_readonly("samples", &CheckResult::samples)
      .def_readonly("failed_pairs", &CheckResult::failed_pairs)
      .def_property_readonly("collision_free", &CheckResult::collision_free);

  py::class_<TrajectoryProblem>(m, "TrajectoryProblem", R"(The NLP of a TrajectorySpec over a Scene (and a Robot of
that scene): keeps both alive; evaluations move the scene's bodies.)")
      .def(py::init([](scene::Scene& s, TrajectorySpec spec, scene::Robot* robot) {
             spec.robot = robot;
             return std::make_unique<TrajectoryProblem>(s, std::move(spec));
           }),
           py::arg("scene"), py::arg("spec"), py::arg("robot") = nullptr, py::keep_alive<1, 2>(), py::keep_alive<1, 4>())
      .def_property_readonly("num_knots", &TrajectoryProblem::num_knots)
      .def_property_readonly("num_configuration", &TrajectoryProblem::num_configuration)
      .def_property_readonly("knot_size", &TrajectoryProblem::knot_size)
      .def_property_readonly("num_variables", &TrajectoryProblem::num_variables)
      .def_property_readonly("num_constraints", &TrajectoryProblem::num_constraints)
      .def_property_readonly("num_dynamics_rows", &TrajectoryProblem::num_dynamics_rows)
      .def_property_readonly("num_collision_rows", &TrajectoryProblem::num_collision_rows)
      .def_property_readonly("pairs", &TrajectoryProblem::pairs)
      .def_property_readonly("collision_samples", &TrajectoryProblem::collision_samples)
      .def("static_guess", &TrajectoryProblem::static_guess)
      .def("linear_guess", &TrajectoryProblem::linear_guess)
      .def("variable_bounds",
           [](const TrajectoryProblem& p) {
             Eigen::VectorXd lo, hi;
             p.variable_bounds(lo, hi);
             return py::make_tuple(lo, hi);
           })
      .def("constraint_bounds",
           [](const TrajectoryProblem& p) {
             Eigen::VectorXd lo, hi;
             p.constraint_bounds(lo, hi);
             return py::make_tuple(lo, hi);
           })
      .def("objective", &TrajectoryProblem::objective, py::arg("x"))
      .def(
          "objective_gradient",
          [](TrajectoryProblem& p, const Eigen::VectorXd& x) {
            Eigen::VectorXd g;
            p.objective_gradient(x, g);
            return g;
          },
          py::arg("x"))
      .def(
          "constraints",
          [](TrajectoryProblem& p, const Eigen::VectorXd& x) {
            Eigen::VectorXd g;
            p.constraints(x, g);
            return g;
          },
          py::arg("x"))
      .def("jacobian", &TrajectoryProblem::jacobian_dense, py::arg("x"), "The constraint Jacobian, dense.")
      .def("lagrangian_hessian", &TrajectoryProblem::lagrangian_hessian_dense, py::arg("x"), py::arg("sigma"),
           py::arg("multipliers"),
           "The exact Hessian of sigma*f + multipliers.g, dense (HessianMode.exact). Raises ValueError naming "
           "what the problem has that it does not cover.")
      .def("exact_hessian_unsupported", &TrajectoryProblem::exact_hessian_unsupported,
           "What HessianMode.exact does not cover in this problem ('' when it covers everything).")
      .def("configurations", &TrajectoryProblem::configurations, py::arg("x"))
      .def("body_poses", &TrajectoryProblem::body_poses, py::arg("q"));

  m.def(
      "solve",
      [](TrajectoryProblem& p, const SolveOptions& o, const std::optional<Eigen::VectorXd>& x0) {
        py::gil_scoped_release release;
        return plan::solve(p, o, x0 ? *x0 : Eigen::VectorXd());
      },
      py::arg("problem"), py::arg("options") = SolveOptions(), py::arg("x0") = py::none(),
      "Solves from x0 (default: the static guess).");
  m.def(
      "solve_warm",
      [](TrajectoryProblem& p, const SolveResult& previous, const SolveOptions& o) {
        py::gil_scoped_release release;
        return plan::solve_warm(p, previous, o);
      },
      py::arg("problem"), py::arg("previous"), py::arg("options") = SolveOptions());
  m.def(
      "check_trajectory",
      [](TrajectoryProblem& p, const Eigen::MatrixXd& Q, int subdivisions, double margin, const scene::Scene* s) {
        return plan::check_trajectory(p, Q, {subdivisions, margin, s});
      },
      py::arg("problem"), py::arg("configurations"), py::arg("subdivisions") = 10, py::arg("margin") = 1.0,
      py::arg("scene") = nullptr,
      "Re-checks the configurations at `subdivisions` samples per interval by exact Euclidean distances.");

  // The seeds' problems of `diffcol demo` (plan/examples.hpp): the scene, the problem and its
  // initial guess, kept alive together.
  using plan::examples::Example;
  py::class_<Example, std::shared_ptr<Example>>(m, "Example", R"(A trajectory problem of the seeds' examples
(diffcol demo piano-mover, cone-opening, arm-reach): its scene, the problem over it and its initial
guess x0. The scene and the problem live as long as this object.)")
      .def_property_readonly(
          "scene", [](Example& e) -> scene::Scene& { return *e.scene; }, py::return_value_policy::reference_internal)
      .def_property_readonly(
          "problem", [](Example& e) -> TrajectoryProblem& { return *e.problem; },
          py::return_value_policy::reference_internal)
      .def_readonly("x0", &Example::x0)
      .def_readonly("description", &Example::description)
      .def("__repr__", [](const Example& e) { return "<diffcol.plan.Example: " + e.description + ">"; });
  m.def(
      "piano_mover",
      [](int knots, bool smooth) { return std::make_shared<Example>(plan::examples::piano_mover(knots, smooth)); },
      py::arg("knots") = 40, py::arg("smooth") = false,
      "DCOL seed Sec. IV-A-1: a 2.6 m rod around a 90-degree turn of a 1 m hallway. smooth: in iDCOL shapes "
      "(HessianMode.exact covers them), from a path around the corner.");
  m.def(
      "cone_opening",
      [](int knots, bool smooth) { return std::make_shared<Example>(plan::examples::cone_opening(knots, smooth)); },
      py::arg("knots") = 40, py::arg("smooth") = false,
      "DCOL seed Sec. IV-A-3: a cone through a square opening in a wall. smooth: in iDCOL shapes.");
  m.def(
      "arm_reach",
      [](const std::string& urdf, const std::string& srdf, int knots, bool near_pairs, bool smooth) {
        return std::make_shared<Example>(plan::examples::arm_reach(urdf, srdf, knots, near_pairs, smooth));
      },
      py::arg("urdf"), py::arg("srdf"), py::arg("knots") = 20, py::arg("near_pairs") = false,
      py::arg("smooth") = false,
      "The 7-DoF test arm (tests/data/robots/arm7.urdf, .srdf) around a pillar in joint space. near_pairs: "
      "PairSelection.initial_path. smooth: in iDCOL shapes with the gap d_D >= 2 cm (HessianMode.exact covers them).");
}

}  // namespace diffcol::python
