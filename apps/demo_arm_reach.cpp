// `diffcol demo arm-reach`: the 7-DoF test arm (tests/data/robots/arm7.urdf with its SRDF) moves
// in joint space from one side of a pillar to the other above a table, with rows for every pair
// of its links that may touch (self-collision) and against the obstacles: Euclidean distance
// ≥ 2 cm at the knots and at the interval midpoints. Initial guess: the straight line in joint
// space, which passes through the pillar.
#include <filesystem>
#include <ostream>
#include <unistd.h>

#include "demo_plan.hpp"
#include "diffcol/scene/robot_model.hpp"

#ifndef DIFFCOL_SOURCE_DIR
#define DIFFCOL_SOURCE_DIR ""
#endif

namespace diffcol::cli {

namespace arm_reach {

namespace fs = std::filesystem;

// arm7.urdf beside the program (<exe>/../tests/data/robots, <exe>/../../tests/data/robots,
// <exe>/../share/diffcol/robots) or in the source tree the program was built from.
std::string find_arm7() {
  std::vector<fs::path> dirs;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path e = exe.parent_path();
    dirs = {e / ".." / "tests" / "data" / "robots", e / ".." / ".." / "tests" / "data" / "robots",
            e / ".." / "share" / "diffcol" / "robots"};
  }
  if (std::string(DIFFCOL_SOURCE_DIR).size()) dirs.push_back(fs::path(DIFFCOL_SOURCE_DIR) / "tests" / "data" / "robots");
  std::string tried;
  for (const fs::path& d : dirs) {
    if (fs::exists(d / "arm7.urdf")) return fs::weakly_canonical(d / "arm7.urdf").string();
    tried.append(" ").append((d / "arm7.urdf").string());
  }
  tried.insert(0, "demo arm-reach: arm7.urdf not found (tried");
  throw InputError(tried.append(")"));
}

Pose at(double x, double y, double z) { return Pose::from_quaternion(Vec3(x, y, z), 1.0, 0.0, 0.0, 0.0); }

}  // namespace arm_reach

void demo_arm_reach(const DemoOptions& options, Json& report) {
  const PlanDemoArguments args = plan_demo_arguments(options, "arm-reach");
  const std::string urdf = arm_reach::find_arm7();
  std::string srdf = std::filesystem::path(urdf).replace_extension(".srdf").string();
  if (!std::filesystem::exists(srdf)) srdf.clear();
  scene::Scene s;
  const int obstacles = s.add_body(Pose::identity(), true, "obstacles");
  s.add_shape(obstacles, dcol::Polytope::box(0.3, 0.6, 0.05), arm_reach::at(0.55, 0.0, -0.05), {}, "table");
  s.add_shape(obstacles, dcol::Polytope::box(0.08, 0.08, 0.25), arm_reach::at(0.5, 0.0, 0.25), {}, "pillar");
  scene::Robot arm(s, scene::RobotModel::from_urdf_file(urdf, srdf));
  // link2's capsule and link4's sphere overlap at every configuration (the SRDF lacks the pair).
  s.disable_body_pair(arm.link_body(arm.model().link_index("link2")), arm.link_body(arm.model().link_index("link4")));

  plan::TrajectorySpec spec;
  spec.num_knots = args.knots ? args.knots : options.quick ? 12 : 20;
  spec.robot = &arm;
  spec.start = (Eigen::VectorXd(7) << -1.0, 0.6, 0.0, -1.9, 0.0, 2.5, 0.8).finished();
  spec.goal = (Eigen::VectorXd(7) << 1.0, 0.6, 0.0, -1.9, 0.0, 2.5, 0.8).finished();
  spec.collision.measure = plan::CollisionMeasure::distance;
  spec.collision.bound = 0.02;
  spec.collision.activation_margin = 0.15;
  spec.collision.interval_samples = 1;
  spec.collision.num_threads = options.threads;
  if (args.near_pairs) {
    spec.collision.selection = plan::PairSelection::initial_path;
    spec.collision.selection_margin = 0.3;
  }
  plan::TrajectoryProblem problem(s, spec);

  const int hand = arm.model().link_index("hand");
  auto hand_at = [&](const Eigen::VectorXd& q) {
    arm.set_configuration(q);
    return arm.link_poses()[static_cast<size_t>(hand)].p;
  };
  const Vec3 h0 = hand_at(spec.start), h1 = hand_at(spec.goal);
  if (options.text)
    *options.text << "arm reach: " << urdf << " (" << arm.num_positions() << " joints, " << arm.model().num_links()
                  << " links), hand from (" << h0.transpose() << ") to (" << h1.transpose()
                  << "), around the pillar from the straight line in q; distance >= "
                  << spec.collision.bound << " m\n";
  run_plan_demo(options, problem, problem.linear_guess(), args.solve, report, nullptr, 10, args.print_knots);
}

}  // namespace diffcol::cli
