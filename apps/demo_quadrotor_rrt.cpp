// `diffcol demo quadrotor-rrt`: iDCOL seed Sec. VII-A. A quadrotor that only translates, one
// iDCOL ellipsoid, among eight static smooth convex obstacles inside a box workspace: an RRT path
// (plan_rrt) refined by Ipopt on path length plus smoothness under α*(p) ≥ 1 + ε at every knot.
// Options: --knots N (20), --seed S (the RRT's, 1), --fd-dense (Ipopt's finite-difference Jacobian).
// The result is re-checked at ten samples per interval by the exact Euclidean distance between
// DCOL shapes that contain the smooth ones (a conservative check by another formulation).
#include <chrono>
#include <ctime>
#include <cmath>
#include <numbers>
#include <ostream>

#include "demo.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/plan/rrt.hpp"
#include "diffcol/plan/trajectory.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/shapes/smoothness.hpp"
#include "diffcol/shapes/sphere.hpp"
#include "diffcol/shapes/superellipsoid.hpp"

namespace diffcol::cli {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

Pose translated(double x, double y, double z, const Mat3& R = Mat3::Identity()) { return Pose::from_rotation(R, Vec3(x, y, z)); }

// The obstacles twice, body for body: smooth iDCOL shapes for the optimization, and exact DCOL
// shapes that contain them for the check (each smooth fit lies inside its exact shape).
struct Worlds {
  scene::Scene smooth, exact;
  int drone = -1;
};

Worlds build_worlds() {
  Worlds w;
  auto both = [&](const Pose& X, const scene::CollisionShape& s, const scene::CollisionShape& e, const Pose& X_BS = Pose::identity()) {
    w.smooth.add_shape(w.smooth.add_body(X, true), s, X_BS);
    w.exact.add_shape(w.exact.add_body(X, true), e, X_BS);
  };
  const double tol = 0.02;  // the smooth fits' Hausdorff distance to the exact shapes
  const Mat3 vertical = Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitY()).toRotationMatrix();  // x axis to −z
  both(translated(1.5, -0.6, 1.2), Sphere(0.5), dcol::Sphere(0.5));
  both(translated(3.0, 0.0, 1.5), fit_smooth_box(0.3, 0.8, 1.0, tol).shape, dcol::Polytope::box(0.3, 0.8, 1.0));
  both(translated(2.0, 1.1, 2.0), Superellipsoid(1, 0.4, 0.6, 0.3), dcol::Ellipsoid::from_semi_axes(0.4, 0.6, 0.3));
  both(translated(4.2, -0.8, 1.5), fit_superelliptic_cylinder(0.3, 1.5, tol).shape, dcol::Cylinder(0.3, 3.0),
       Pose::from_rotation(vertical, Vec3::Zero()));
  const std::vector<Vec3> wedge = {Vec3(-0.5, -0.4, -0.5), Vec3(0.5, -0.4, -0.5), Vec3(-0.5, 0.5, -0.5),
                                   Vec3(0.5, 0.5, -0.5),   Vec3(-0.5, 0.0, 0.6),  Vec3(0.5, 0.0, 0.6)};
  both(translated(4.6, 1.0, 0.8), fit_smooth_convex_hull(wedge, tol).shape, dcol::Polytope::convex_hull(wedge));
  both(translated(3.6, 1.3, 2.4), Sphere(0.4), dcol::Sphere(0.4));
  both(translated(1.0, 0.8, 0.6), fit_superellipsoid_to_box(0.5, 0.5, 0.3, 0.05).shape, dcol::Polytope::box(0.5, 0.5, 0.3));
  both(translated(5.0, 0.2, 1.9), fit_smooth_box(0.2, 1.2, 0.2, tol).shape, dcol::Polytope::box(0.2, 1.2, 0.2));
  // the quadrotor: a flat ellipsoid (iDCOL n = 1, exactly the DCOL ellipsoid)
  w.drone = w.smooth.add_body(translated(0, 0, 1), false, "quadrotor");
  w.smooth.add_shape(w.drone, Superellipsoid(1, 0.3, 0.3, 0.1));
  w.exact.add_shape(w.exact.add_body(translated(0, 0, 1), false, "quadrotor"), dcol::Ellipsoid::from_semi_axes(0.3, 0.3, 0.1));
  return w;
}

int extra_int(const std::vector<std::string>& extra, const char* key, int fallback, int lo, int hi) {
  for (std::size_t i = 0; i + 1 < extra.size(); ++i)
    if (extra[i] == key) return static_cast<int>(parse_long(extra[i + 1], key, lo, hi));
  return fallback;
}

void check_extra(const std::vector<std::string>& extra, std::initializer_list<const char*> known) {
  for (std::size_t i = 0; i < extra.size(); i += 2) {
    bool ok = false;
    for (const char* k : known) ok = ok || extra[i] == k;
    if (!ok || i + 1 >= extra.size()) throw InputError("demo quadrotor-rrt: unknown option or missing value: " + extra[i]);
  }
}

}  // namespace

void demo_quadrotor_rrt(const DemoOptions& options, Json& report) {
  bool fd_dense = false;
  std::vector<std::string> extra;
  for (const std::string& e : options.extra) {
    if (e == "--fd-dense") fd_dense = true;
    else extra.push_back(e);
  }
  check_extra(extra, {"--seed", "--knots"});
  const int knots = extra_int(extra, "--knots", 20, 3, 10000);
  const int seed = extra_int(extra, "--seed", 1, 1, 1 << 30);
  const double epsilon = 0.1;
  const Vec3 start(0.3, -1.4, 1.0), goal(5.7, 1.4, 2.2), lower(0.0, -2.0, 0.0), upper(6.0, 2.0, 3.0);
  std::ostream* text = options.text;

  const auto t_all = Clock::now();
  const std::clock_t cpu0 = std::clock();
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
  spec.collision.measure = plan::CollisionMeasure::alpha;
  spec.collision.bound = epsilon;
  spec.collision.activation_margin = 0.5;
  spec.collision.num_threads = options.threads;
  plan::TrajectoryProblem problem(w.smooth, spec);
  Eigen::VectorXd x0 = problem.static_guess();
  for (int k = 0; k < knots; ++k) x0.segment(problem.q_index(k), 3) = rrt.waypoints[static_cast<size_t>(k)];

  plan::SolveOptions so;
  so.fd_gradients = options.fd_gradients;
  so.max_iterations = 300;
  so.tolerance = 1e-4;
  so.limited_memory_size = 6;
  // the L-BFGS update inside the augmented system: one factorization per iteration instead of
  // extra back-solves per stored pair (about half of this demo's Ipopt time)
  so.string_options.emplace_back("limited_memory_aug_solver", "extended");
  // --fd-dense: Ipopt's own finite differences of every constraint for every variable, what a
  // solver without derivatives does (each knot queried once per variable of every knot)
  if (fd_dense) so.string_options.emplace_back("jacobian_approximation", "finite-difference-values");
  const plan::SolveResult r = plan::solve(problem, so, x0);
  const double wall = seconds_since(t_all);
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;

  // 3. the independent check: ten samples per interval, exact DCOL shapes, Euclidean distance
  plan::CheckOptions co;
  co.subdivisions = 10;
  co.scene = &w.exact;
  const plan::CheckResult check = plan::check_trajectory(problem, r.configurations, co);
  double length = 0.0;
  for (int k = 0; k + 1 < knots; ++k) length += (r.configurations.row(k + 1) - r.configurations.row(k)).norm();

  const double collision_s = rrt.check_s + r.collision_s;
  report["success"] = r.success && check.collision_free();
  report["wall_s"] = wall;
  report["cpu_s"] = cpu;  // process CPU time: the figure to compare on a machine shared with other work
  report["solver"] = {{"status", r.status},       {"iterations", r.iterations},
                      {"seconds", r.wall_s},      {"objective", r.objective},
                      {"constraint_violation", r.constraint_violation},
                      {"collision_queries", r.collision_queries},
                      {"fd_gradients", options.fd_gradients ? "knot" : fd_dense ? "dense" : "analytic"}};
  report["iterations"] = r.iterations;
  report["collision_s"] = collision_s;
  report["collision_share"] = wall > 0.0 ? collision_s / wall : 0.0;
  report["min_distance"] = check.min_distance;
  report["check"] = {{"samples", check.samples},
                     {"subdivisions", co.subdivisions},
                     {"min_at", check.min_at},
                     {"failed_pairs", check.failed_pairs},
                     {"collision_free", check.collision_free()},
                     {"formulation", "Euclidean distance, exact DCOL shapes containing the smooth ones"}};
  report["knots"] = knots;
  report["epsilon"] = epsilon;
  report["path_length"] = {{"rrt", rrt.path_length}, {"optimized", length}};
  if (text) {
    *text << "RRT (seed " << seed << "): " << rrt.tree_states << " tree states, path length " << rrt.path_length << ", "
          << (rrt.plan_s + rrt.simplify_s) * 1e3 << " ms\n"
          << "Ipopt: " << r.status << " after " << r.iterations << " iterations, " << r.wall_s * 1e3 << " ms"
          << (options.fd_gradients ? " (finite-difference collision gradients)" : fd_dense ? " (Ipopt's finite-difference Jacobian)" : "") << "; path length " << length << "\n"
          << "collision queries: " << collision_s * 1e3 << " ms, " << 100.0 * collision_s / wall << "% of " << wall * 1e3
          << " ms (CPU " << cpu * 1e3 << " ms)\n"
          << "check (" << check.samples << " samples, exact DCOL shapes): min distance " << check.min_distance << " at "
          << check.min_at << "\n";
  }
  write_demo_page(options, w.smooth, problem.animation(r.configurations, 4), report);
}

}  // namespace diffcol::cli
