#include "demo_plan.hpp"
namespace diffcol::cli {
void demo_cone_opening(const DemoOptions& options, Json& report) { plan_demo_arguments(options, "cone-opening"); report["success"] = false; }
}  // namespace diffcol::cli
