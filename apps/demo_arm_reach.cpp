#include "demo_plan.hpp"
namespace diffcol::cli {
void demo_arm_reach(const DemoOptions& options, Json& report) { plan_demo_arguments(options, "arm-reach"); report["success"] = false; }
}  // namespace diffcol::cli
