// What the trajectory-optimization demos share (demo_plan.hpp).
#include "demo_plan.hpp"

#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <ostream>

namespace diffcol::cli {

PlanDemoArguments plan_demo_arguments(const DemoOptions& options, const char* demo) {
  PlanDemoArguments a;
  a.solve.max_iterations = 1000;
  const std::vector<std::string>& e = options.extra;
  for (size_t i = 0; i < e.size(); ++i) {
    auto value = [&]() -> const std::string& {
      if (i + 1 >= e.size()) throw InputError(std::string("demo ") + demo + ": " + e[i] + " needs a value");
      return e[++i];
    };
    if (e[i] == "--knots") a.knots = static_cast<int>(parse_long(value(), "--knots", 2, 100000));
    else if (e[i] == "--max-iter") a.solve.max_iterations = static_cast<int>(parse_long(value(), "--max-iter", 0, 1000000));
    else if (e[i] == "--print-level") a.solve.print_level = static_cast<int>(parse_long(value(), "--print-level", 0, 12));
    else if (e[i] == "--print-knots") a.print_knots = true;
    else if (e[i] == "--near-pairs") a.near_pairs = true;
    else if (e[i] == "--objective-hessian") a.solve.hessian = plan::HessianMode::objective;
    else if (e[i] == "--smooth") a.smooth = true;
    else if (e[i] == "--hessian") {
      const std::string& v = value();
      if (v == "exact") a.solve.hessian = plan::HessianMode::exact;
      else if (v == "objective") a.solve.hessian = plan::HessianMode::objective;
      else if (v == "limited-memory") a.solve.hessian = plan::HessianMode::limited_memory;
      else throw InputError(std::string("demo ") + demo + ": --hessian takes exact, objective or limited-memory (got '" + v + "')");
    }
    else if (e[i] == "--ipopt") {
      const std::string& kv = value();
      const size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) throw InputError(std::string("demo ") + demo + ": --ipopt needs NAME=VALUE");
      const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (end && *end == '\0' && !v.empty()) {
        if (v.find_first_of(".eE") == std::string::npos) a.solve.integer_options.emplace_back(k, static_cast<int>(d));
        else a.solve.numeric_options.emplace_back(k, d);
      } else {
        a.solve.string_options.emplace_back(k, v);
      }
    } else {
      throw InputError(std::string("demo ") + demo + ": unknown option '" + e[i] + "'");
    }
  }
  return a;
}

PlanDemoOutcome run_plan_demo(const DemoOptions& options, plan::TrajectoryProblem& problem, const Eigen::VectorXd& x0,
                              plan::SolveOptions solve_options, Json& report, const scene::Scene* check_scene,
                              int check_subdivisions, bool print_knots) {
  PlanDemoOutcome out;
  solve_options.fd_gradients = options.fd_gradients;
  plan::CheckOptions check_options;
  check_options.subdivisions = check_subdivisions;
  check_options.scene = check_scene;
  const plan::CheckResult initial = plan::check_trajectory(problem, problem.configurations(x0), check_options);
  const std::clock_t c0 = std::clock();
  out.result = plan::solve(problem, solve_options, x0);
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  out.check = plan::check_trajectory(problem, out.result.configurations, check_options);
  out.success = out.result.success && out.check.collision_free();
  const plan::SolveResult& r = out.result;
  auto shape_name = [&](int s) { return s < 0 ? std::string() : problem.scene().shape(s).name; };
  report["success"] = out.success;
  report["status"] = r.status;
  if (!r.message.empty()) report["message"] = r.message;
  report["knots"] = problem.num_knots();
  report["variables"] = problem.num_variables();
  report["constraints"] = problem.num_constraints();
  report["collision_rows"] = problem.num_collision_rows();
  report["pairs"] = static_cast<int>(problem.pairs().size());
  report["measure"] = plan::collision_measure_name(problem.spec().collision.measure);
  report["bound"] = problem.spec().collision.bound;
  report["fd_gradients"] = options.fd_gradients;
  report["iterations"] = r.iterations;
  report["objective"] = r.objective;
  report["constraint_violation"] = r.constraint_violation;
  report["solve_s"] = r.wall_s;
  report["solve_cpu_s"] = cpu;
  report["collision_s"] = r.collision_s;
  report["collision_share"] = r.wall_s > 0.0 ? r.collision_s / r.wall_s : 0.0;
  report["collision_queries"] = r.collision_queries;
  report["initial_min_distance"] = initial.min_distance;
  report["check_subdivisions"] = check_subdivisions;
  report["check_samples"] = out.check.samples;
  report["min_distance"] = out.check.min_distance;
  report["min_at_knot"] = out.check.min_at;
  report["closest_pair"] = Json::array({shape_name(out.check.shape1), shape_name(out.check.shape2)});
  report["check_failed_pairs"] = out.check.failed_pairs;
  if (std::ostream* os = options.text) {
    *os << std::setprecision(4);
    *os << "knots " << problem.num_knots() << ", variables " << problem.num_variables() << ", constraints "
        << problem.num_constraints() << " (" << problem.num_collision_rows() << " collision rows: "
        << problem.pairs().size() << " pairs, " << plan::collision_measure_name(problem.spec().collision.measure) << ")\n";
    *os << "Ipopt: " << r.status << " after " << r.iterations << " iterations, objective " << r.objective
        << ", constraint violation " << r.constraint_violation << "\n";
    if (!r.message.empty()) *os << "  " << r.message << "\n";
    *os << "time: " << r.wall_s << " s, collision queries and derivatives " << r.collision_s << " s ("
        << 100.0 * (r.wall_s > 0.0 ? r.collision_s / r.wall_s : 0.0) << "%, " << r.collision_queries << " queries"
        << (options.fd_gradients ? ", finite differences" : ", analytic") << "), process CPU " << cpu << " s\n";
    *os << "initial guess: min distance " << initial.min_distance << "\n";
    *os << "check (" << check_subdivisions << "x finer, Euclidean distance): min distance " << out.check.min_distance
        << " at knot " << out.check.min_at << " (" << shape_name(out.check.shape1) << ", " << shape_name(out.check.shape2)
        << ")" << (out.check.failed_pairs ? ", failed pair solves " + std::to_string(out.check.failed_pairs) : "") << "\n";
  }
  if (options.text && print_knots) *options.text << "knots (one row per knot):\n" << r.configurations << "\n";
  write_demo_page(options, problem.scene(), problem.animation(r.configurations, 4), report);
  return out;
}

}  // namespace diffcol::cli
