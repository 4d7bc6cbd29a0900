// `diffcol demo arm-reach`: the 7-DoF test arm (tests/data/robots/arm7.urdf with its SRDF) around
// a pillar in joint space, self-collision included (plan::examples::arm_reach); --smooth: in
// iDCOL shapes with the gap measure, whose rows have exact Hessians (--hessian exact).
#include <filesystem>
#include <ostream>

#include "demo_plan.hpp"
#include "diffcol/plan/examples.hpp"

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

}  // namespace arm_reach

void demo_arm_reach(const DemoOptions& options, Json& report) {
  const PlanDemoArguments args = plan_demo_arguments(options, "arm-reach");
  const std::string urdf = arm_reach::find_arm7();
  std::string srdf = std::filesystem::path(urdf).replace_extension(".srdf").string();
  if (!std::filesystem::exists(srdf)) srdf.clear();
  plan::examples::Example e = plan::examples::arm_reach(urdf, srdf, args.knots ? args.knots : options.quick ? 12 : 20,
                                                        args.near_pairs, args.smooth);
  e.problem->set_num_threads(options.threads);
  if (options.text) *options.text << e.description << " (" << urdf << ")\n";
  report["smooth"] = args.smooth;
  report["hessian"] = args.solve.hessian == plan::HessianMode::exact       ? "exact"
                      : args.solve.hessian == plan::HessianMode::objective ? "objective"
                                                                           : "limited-memory";
  // --smooth: checked in the exact shapes (DCOL boxes and cylinders) that contain the smooth ones
  run_plan_demo(options, *e.problem, e.x0, args.solve, report, e.check_scene.get(), 10, args.print_knots);
}

}  // namespace diffcol::cli
