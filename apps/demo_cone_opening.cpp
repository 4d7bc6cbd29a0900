// `diffcol demo cone-opening`: DCOL seed Sec. IV-A-3 (plan::examples::cone_opening). The seed's
// rigid-body attitude dynamics are simplified to a double integrator on the rotation vector.
#include <algorithm>
#include <numbers>
#include <ostream>

#include "demo_plan.hpp"
#include "diffcol/plan/examples.hpp"

namespace diffcol::cli {

void demo_cone_opening(const DemoOptions& options, Json& report) {
  const PlanDemoArguments args = plan_demo_arguments(options, "cone-opening");
  plan::examples::Example e = plan::examples::cone_opening(args.knots ? args.knots : options.quick ? 25 : 40, args.smooth);
  e.problem->set_num_threads(options.threads);
  if (options.text) *options.text << e.description << "\n";
  const PlanDemoOutcome out = run_plan_demo(options, *e.problem, e.x0, args.solve, report, nullptr, 10, args.print_knots);
  double max_rotation = 0.0;  // the attitude's largest angle from the start attitude
  for (Eigen::Index k = 0; k < out.result.configurations.rows(); ++k)
    max_rotation = std::max(max_rotation, out.result.configurations.row(k).tail<3>().norm());
  report["max_rotation_deg"] = max_rotation * 180.0 / std::numbers::pi;
  if (options.text)
    *options.text << "largest rotation from the start attitude: " << max_rotation * 180.0 / std::numbers::pi << " deg\n";
}

}  // namespace diffcol::cli
