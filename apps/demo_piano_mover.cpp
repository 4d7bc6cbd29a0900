// `diffcol demo piano-mover`: DCOL seed Sec. IV-A-1. A 2.6 m rod (a DCOL capsule) moves in the
// plane (x, y, θ) around a 90° turn of a hallway 1 m wide whose walls are box polytopes; the
// constraint is α ≥ 1 + ε at every knot and the optimizer starts from the static initial guess.
#include <cmath>
#include <numbers>
#include <ostream>

#include "demo_plan.hpp"

namespace diffcol::cli {

namespace piano {

Pose at(double x, double y, double z = 0.0) { return Pose::from_quaternion(Vec3(x, y, z), 1.0, 0.0, 0.0, 0.0); }

}  // namespace piano

void demo_piano_mover(const DemoOptions& options, Json& report) {
  const PlanDemoArguments args = plan_demo_arguments(options, "piano-mover");
  scene::Scene s;
  // The hallway: along x for y in [0, 1] (x ≤ 1), then along y for x in [0, 1] (y ≥ 0).
  const int walls = s.add_body(Pose::identity(), true, "hallway");
  s.add_shape(walls, dcol::Polytope::box(3.0, 0.25, 0.5), piano::at(-1.5, -0.25), {}, "outer_wall_x");
  s.add_shape(walls, dcol::Polytope::box(0.25, 2.75, 0.5), piano::at(1.25, 2.0), {}, "outer_wall_y");
  s.add_shape(walls, dcol::Polytope::box(2.25, 1.75, 0.5), piano::at(-2.25, 2.75), {}, "inner_corner");
  const double length = 2.6, radius = 0.03;
  const int rod = s.add_body(piano::at(-2.5, 0.5), false, "piano");
  s.add_shape(rod, dcol::Capsule(radius, length - 2.0 * radius), Pose::identity(), {}, "piano");

  plan::TrajectorySpec spec;
  spec.num_knots = args.knots ? args.knots : options.quick ? 25 : 40;
  spec.bodies = {plan::FreeBody{rod, plan::Parametrization::planar, Pose::identity()}};
  spec.start = Eigen::Vector3d(-2.5, 0.5, 0.0);
  spec.goal = Eigen::Vector3d(0.5, 3.0, std::numbers::pi / 2);
  // The hallway's ends are open: the rod's centre stays within them (no way around the walls).
  spec.q_lower = Eigen::Vector3d(-3.0, 0.0, -std::numbers::pi);
  spec.q_upper = Eigen::Vector3d(1.0, 3.5, std::numbers::pi);
  spec.collision.measure = plan::CollisionMeasure::alpha;
  spec.collision.bound = 0.002;
  spec.collision.activation_margin = 0.3;
  spec.collision.num_threads = options.threads;
  plan::TrajectoryProblem problem(s, spec);

  if (options.text)
    *options.text << "piano mover: rod " << length << " m (capsule R " << radius << "), hallway 1 m wide, planar (x, y, theta), "
                  << "alpha >= 1 + " << spec.collision.bound << ", static initial guess\n";
  plan::SolveOptions so = args.solve;
  report["rod_length"] = length;
  run_plan_demo(options, problem, problem.static_guess(), so, report, nullptr, 10, args.print_knots);
}

}  // namespace diffcol::cli
