#pragma once
/// @file demo_plan.hpp
/// What the trajectory-optimization demos share: solve, check independently, report, page.
#include <string>

#include "demo.hpp"
#include "diffcol/plan/trajectory.hpp"

namespace diffcol::cli {

struct PlanDemoOutcome {
  plan::SolveResult result;
  plan::CheckResult check;
  bool success = false;  ///< Ipopt succeeded and the check found the trajectory collision-free
};

/// Solves `problem` from x0 (options.fd_gradients switches to finite-difference collision
/// Jacobians), re-checks the trajectory at `check_subdivisions` samples per interval in
/// `check_scene` (null: the problem's scene), fills report (success, status, iterations,
/// objective, constraint_violation, wall_s, collision_s, collision_share, min_distance, ...),
/// prints the figures and writes the animated page.
PlanDemoOutcome run_plan_demo(const DemoOptions& options, plan::TrajectoryProblem& problem, const Eigen::VectorXd& x0,
                              plan::SolveOptions solve_options, Json& report, const scene::Scene* check_scene = nullptr,
                              int check_subdivisions = 10, bool print_knots = false);

/// The demos (demo_<name>.cpp).
void demo_piano_mover(const DemoOptions& options, Json& report);
void demo_cone_opening(const DemoOptions& options, Json& report);
void demo_arm_reach(const DemoOptions& options, Json& report);
void demo_quadrotor_rrt(const DemoOptions& options, Json& report);
void demo_quadrotor_hallway(const DemoOptions& options, Json& report);

/// The plan demos' own arguments: --knots N, --max-iter N, --print-level N (Ipopt's output), --print-knots, --near-pairs,
/// --hessian exact|objective|limited-memory (HessianMode), --smooth (piano-mover, cone-opening, arm-reach, quadrotor-hallway: iDCOL shapes),
/// --ipopt NAME=VALUE (any Ipopt option; numbers as numbers). @throws InputError on others.
struct PlanDemoArguments {
  int knots = 0;  ///< 0: the demo's default
  bool print_knots = false;  ///< --print-knots: the optimized configurations
  bool near_pairs = false;   ///< --near-pairs: PairSelection::initial_path (the pairs near the initial path)
  bool smooth = false;       ///< --smooth: the demo's scene in iDCOL shapes (piano-mover, cone-opening, arm-reach, quadrotor-hallway)
  plan::SolveOptions solve;
};
PlanDemoArguments plan_demo_arguments(const DemoOptions& options, const char* demo);

}  // namespace diffcol::cli
