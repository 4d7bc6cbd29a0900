// `diffcol demo piano-mover`: DCOL seed Sec. IV-A-1 (plan::examples::piano_mover).
#include <ostream>

#include "demo_plan.hpp"
#include "diffcol/plan/examples.hpp"

namespace diffcol::cli {

void demo_piano_mover(const DemoOptions& options, Json& report) {
  const PlanDemoArguments args = plan_demo_arguments(options, "piano-mover");
  plan::examples::Example e = plan::examples::piano_mover(args.knots ? args.knots : options.quick ? 25 : 40, args.smooth);
  e.problem->set_num_threads(options.threads);
  if (options.text) *options.text << e.description << "\n";
  report["rod_length"] = 2.6;
  report["smooth"] = args.smooth;
  report["hessian"] = args.solve.hessian == plan::HessianMode::exact       ? "exact"
                      : args.solve.hessian == plan::HessianMode::objective ? "objective"
                                                                           : "limited-memory";
  run_plan_demo(options, *e.problem, e.x0, args.solve, report, nullptr, 10, args.print_knots);
}

}  // namespace diffcol::cli
