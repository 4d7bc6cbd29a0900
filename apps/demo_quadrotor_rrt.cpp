// `diffcol demo quadrotor-rrt`: iDCOL seed Sec. VII-A. A quadrotor that only translates, one
// iDCOL ellipsoid, among eight static smooth convex obstacles inside a box workspace: an RRT path
// (plan_rrt) refined by Ipopt on path length plus smoothness under α*(p) ≥ 1 + ε at every knot
// and interval midpoint.
// Options: --seed S (the RRT's, 1) and those of every plan demo (demo_plan.hpp: --knots N, default
// 20, --ipopt NAME=VALUE, ...). `--ipopt jacobian_approximation=finite-difference-values` has Ipopt
// difference every constraint in every variable, as a solver without derivatives does.
// The result is re-checked at ten samples per interval by the exact Euclidean distance between
// DCOL shapes that contain the smooth ones (a conservative check by another formulation).
#include <cmath>
#include <numbers>
#include <ostream>

#include "demo_plan.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/plan/rrt.hpp"
#include "diffcol/plan/trajectory.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/shapes/smoothness.hpp"
#include "diffcol/shapes/sphere.hpp"
#include "diffcol/shapes/superellipsoid.hpp"

namespace diffcol::cli {

namespace {

Pose translated(double x, double y, double z, const Mat3& R = Mat3::Identity()) { return Pose::from_rotation(R, Vec3(x, y, z)); }

// The obstacles twice, body for body: smooth iDCOL shapes for the optimization, and exact DCOL
// shapes that contain them for the check (each smooth fit lies inside its exact shape).
struct Worlds {
  scene::Scene smooth, exact;
  int drone = -1;
};

Worlds build_worlds() {
  Worlds w;
  auto both = [&](const char* name, const Pose& X, const scene::CollisionShape& s, const scene::CollisionShape& e,
                  const Pose& X_BS = Pose::identity()) {
    w.smooth.add_shape(w.smooth.add_body(X, true, name), s, X_BS, {}, name);
    w.exact.add_shape(w.exact.add_body(X, true, name), e, X_BS, {}, name);
  };
  const double tol = 0.02;  // the smooth fits' Hausdorff distance to the exact shapes
  const Mat3 vertical = Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitY()).toRotationMatrix();  // x axis to −z
  both("ball", translated(1.5, -0.6, 1.2), Sphere(0.5), dcol::Sphere(0.5));
  both("slab", translated(3.0, 0.0, 1.5), fit_smooth_box(0.3, 0.8, 1.0, tol).shape, dcol::Polytope::box(0.3, 0.8, 1.0));
  both("egg", translated(2.0, 1.1, 2.0), Superellipsoid(0.4, 0.6, 0.3, 1), dcol::Ellipsoid::from_semi_axes(0.4, 0.6, 0.3));
  both("column", translated(4.2, -0.8, 1.5), fit_superelliptic_cylinder(0.3, 1.5, tol).shape, dcol::Cylinder(0.3, 3.0),
       Pose::from_rotation(vertical, Vec3::Zero()));
  const std::vector<Vec3> wedge = {Vec3(-0.5, -0.4, -0.5), Vec3(0.5, -0.4, -0.5), Vec3(-0.5, 0.5, -0.5),
                                   Vec3(0.5, 0.5, -0.5),   Vec3(-0.5, 0.0, 0.6),  Vec3(0.5, 0.0, 0.6)};
  both("wedge", translated(4.6, 1.0, 0.8), fit_smooth_convex_hull(wedge, tol).shape, dcol::Polytope::convex_hull(wedge));
  both("lamp", translated(3.6, 1.3, 2.4), Sphere(0.4), dcol::Sphere(0.4));
  both("block", translated(1.0, 0.8, 0.6), fit_superellipsoid_to_box(0.5, 0.5, 0.3, 0.05).shape, dcol::Polytope::box(0.5, 0.5, 0.3));
  both("bar", translated(5.0, 0.2, 1.9), fit_smooth_box(0.2, 1.2, 0.2, tol).shape, dcol::Polytope::box(0.2, 1.2, 0.2));
  // the quadrotor: a flat ellipsoid (iDCOL n = 1, exactly the DCOL ellipsoid)
  w.drone = w.smooth.add_body(translated(0, 0, 1), false, "quadrotor");
  w.smooth.add_shape(w.drone, Superellipsoid(0.3, 0.3, 0.1, 1), Pose::identity(), {}, "quadrotor");
  w.exact.add_shape(w.exact.add_body(translated(0, 0, 1), false, "quadrotor"), dcol::Ellipsoid::from_semi_axes(0.3, 0.3, 0.1),
                    Pose::identity(), {}, "quadrotor");
  return w;
}

}  // namespace

void demo_quadrotor_rrt(const DemoOptions& options, Json& report) {
  // --seed here, the rest is every plan demo's
  DemoOptions plan_options = options;
  plan_options.extra.clear();
  int seed = 1;
  for (std::size_t i = 0; i < options.extra.size(); ++i) {
    if (options.extra[i] != "--seed") {
      plan_options.extra.push_back(options.extra[i]);
      continue;
    }
    if (i + 1 >= options.extra.size()) throw InputError("demo quadrotor-rrt: --seed needs a value");
    seed = static_cast<int>(parse_long(options.extra[++i], "--seed", 1, 1 << 30));
  }
  const PlanDemoArguments args = plan_demo_arguments(plan_options, "quadrotor-rrt");
  const int knots = args.knots ? args.knots : 20;
  if (knots < 3) throw InputError("demo quadrotor-rrt: --knots must be at least 3");
  const double epsilon = 0.1;
  const Vec3 start(0.3, -1.4, 1.0), goal(5.7, 1.4, 2.2), lower(0.0, -2.0, 0.0), upper(6.0, 2.0, 3.0);
  std::ostream* text = options.text;
  Worlds w = build_worlds();

  // 1. the RRT path, resampled to the knots
  plan::RrtOptions ro;
  ro.algorithm = plan::RrtAlgorithm::rrt;
  ro.seed = static_cast<std::uint32_t>(seed);
  ro.clearance = 0.05;
  ro.knots = knots;
  ro.time_limit = 2.0;
  const plan::RrtResult rrt = plan::plan_rrt(w.smooth, plan::RrtProblem::translation(w.drone, start, goal, lower, upper), ro);
  report["rrt"] = {{"status", plan::status_name(rrt.status)},
                   {"message", rrt.message},
                   {"seconds", rrt.plan_s + rrt.simplify_s},
                   {"tree_states", rrt.tree_states},
                   {"validity_checks", rrt.validity_checks},
                   {"check_s", rrt.check_s},
                   {"path_length", rrt.path_length}};
  if (!rrt.ok()) {
    report["success"] = false;
    if (text) *text << "RRT: " << rrt.message << "\n";
    return;
  }

  // 2. the NLP: knots of (x, y, z) in the workspace, path length + smoothness, α* ≥ 1 + ε
  plan::TrajectorySpec spec;
  spec.num_knots = knots;
  spec.bodies = {plan::FreeBody{w.drone, plan::Parametrization::translation, Pose::identity()}};
  spec.start = start;
  spec.goal = goal;
  spec.q_lower = lower;
  spec.q_upper = upper;
  // path length: Σ‖Δp‖² (at evenly spaced knots, length²/(N − 1)); smoothness: w·Σ‖Δ²p‖²
  spec.smoothness_weight = 1.0;
  const double w_smooth = 0.1;
  spec.costs.push_back([=](const Eigen::Ref<const Eigen::VectorXd>& x, double* grad) {
    double f = 0.0;
    for (int k = 1; k + 1 < knots; ++k) {  // knot k's position is x[3k .. 3k + 2]
      const Vec3 a = x.segment<3>(3 * (k + 1)) - 2.0 * x.segment<3>(3 * k) + x.segment<3>(3 * (k - 1));
      f += w_smooth * a.squaredNorm();
      if (grad) {
        const Vec3 g = 2.0 * w_smooth * a;
        Eigen::Map<Vec3>(grad + 3 * (k + 1)) += g;
        Eigen::Map<Vec3>(grad + 3 * k) -= 2.0 * g;
        Eigen::Map<Vec3>(grad + 3 * (k - 1)) += g;
      }
    }
    return f;
  });
  // its constant Hessian (HessianMode::exact), coupling knots two apart
  spec.cost_hessians.push_back([=](const Eigen::Ref<const Eigen::VectorXd>&, double w, std::vector<plan::HessianEntry>& out) {
    const double c[3] = {1.0, -2.0, 1.0};
    for (int k = 1; k + 1 < knots; ++k)
      for (int i = 0; i < 3; ++i)
        for (int a = 0; a < 3; ++a)
          for (int b = a; b < 3; ++b)
            out.push_back({3 * (k - 1 + a) + i, 3 * (k - 1 + b) + i, 2.0 * w * w_smooth * c[a] * c[b]});
  });
  spec.cost_hessian_bandwidth = 2;
  spec.collision.measure = plan::CollisionMeasure::alpha;
  spec.collision.bound = epsilon;
  spec.collision.activation_margin = 0.5;
  spec.collision.interval_samples = 1;  // also at the midpoints: no corner cut between knots
  spec.collision.num_threads = options.threads;
  if (args.near_pairs) spec.collision.selection = plan::PairSelection::initial_path;
  plan::TrajectoryProblem problem(w.smooth, spec);
  Eigen::VectorXd x0 = problem.static_guess();
  for (int k = 0; k < knots; ++k) x0.segment(problem.q_index(k), 3) = rrt.waypoints[static_cast<size_t>(k)];
  if (text)
    *text << "RRT (seed " << seed << "): " << rrt.tree_states << " tree states, path length " << rrt.path_length << ", "
          << (rrt.plan_s + rrt.simplify_s) << " s\n";

  plan::SolveOptions so = args.solve;
  so.tolerance = 1e-4;
  so.limited_memory_size = 6;
  // the L-BFGS update inside the augmented system: one factorization per iteration instead of
  // extra back-solves per stored pair (about half of this demo's Ipopt time)
  so.string_options.insert(so.string_options.begin(), {"limited_memory_aug_solver", "extended"});
  // the check: ten samples per interval, Euclidean distance between the exact DCOL shapes
  const PlanDemoOutcome out = run_plan_demo(options, problem, x0, so, report, &w.exact, 10, args.print_knots);
  double length = 0.0;
  for (int k = 0; k + 1 < knots; ++k)
    length += (out.result.configurations.row(k + 1) - out.result.configurations.row(k)).norm();
  report["epsilon"] = epsilon;
  report["rrt_seed"] = seed;
  report["path_length"] = {{"rrt", rrt.path_length}, {"optimized", length}};
  report["check_formulation"] = "Euclidean distance, exact DCOL shapes containing the smooth ones";
  if (text) *text << "path length: RRT " << rrt.path_length << ", optimized " << length << "\n";
}

}  // namespace diffcol::cli
