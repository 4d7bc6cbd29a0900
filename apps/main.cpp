// The `diffcol` command-line program: `diffcol query`, `diffcol bench` and `diffcol view`
// (see docs/cli.md, docs/viewer.md).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "demo.hpp"
#include "fcl_baseline.hpp"

namespace diffcol::cli {

void print_usage(std::ostream& os) {
  os << R"(usage: diffcol <command> [options]

Differentiable collision detection: iDCOL between strictly convex implicit shapes (default),
DiffPills proximity of capsules and padded polygons (--method qp) and DCOL's exact convex
primitives (--method dcol).

Commands
  query    solve one pair of shapes at one pose and print the contact as JSON
  bench    the ergodic runtime benchmark over ordered pairs of the benchmark shapes
  scene-bench  a robot among obstacles, 1000 bodies and 1,000-face hulls, timed against FCL
           (when built with it) in the same run
  demo     the seeds' applications (trajectory optimization, simulation), checked and timed
  view     write an HTML page (opens offline) showing the shapes and the contact,
           animated over a pose sequence, and/or a PNG picture of it (--png)
  help     this message ('diffcol help query', 'diffcol help bench', 'diffcol help view',
           'diffcol help scene-bench', 'diffcol help query-qp', 'query-dcol', 'bench-qp', 'bench-dcol')

Options
  -h, --help     this message
  --version      version and build information

Shapes (every method): sphere, box, cylinder, capsule, ellipsoid, cone, polytope with their
sizes ('diffcol help query'); the method makes them exact (dcol, qp) or smooth (idcol).
Exit status 2 on invalid input.
Examples
  diffcol query --shape1 sphere:radius=1 --shape2 box:half_extents=0.5/1/1.5 --pose2 2,0.5,0
  diffcol query --method dcol --shape1 sphere:radius=1 --shape2 box:half_extents=0.5/1/1.5 --pose2 2,0.5,0
  diffcol query --json input.json
  diffcol bench --quick --shapes poly,se
  diffcol query --method qp --shape1 capsule:radius=0.5,length=2 \
                --shape2 padded_polygon:half_x=1,half_y=0.5,radius=0.1 --pose2 1,1.2,0.3 --derivatives
  diffcol bench --method qp --poses 100000
  diffcol bench --method dcol --shapes capsule,cone,sphere --poses 10000
  diffcol view --shape1 poly --shape2 se --pose2 2.5,0.5,0 --pose2-to 1.2,0.4,0.3 --out view.html
  diffcol view --method dcol --shape1 cone --shape2 box:half_extents=0.5/0.4/0.6 --pose2 2.5,0.5,0 --png view.png
)";
}

}  // namespace diffcol::cli

int main(int argc, char** argv) {
  using namespace diffcol::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty()) {
      print_usage(std::cerr);
      return kExitInvalidInput;
    }
    const std::string cmd = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (cmd == "-h" || cmd == "--help") {
      print_usage(std::cout);
      return kExitOk;
    }
    if (cmd == "help") {
      if (rest.empty()) print_usage(std::cout);
      else if (rest[0] == "query") print_query_usage(std::cout);
      else if (rest[0] == "bench") print_bench_usage(std::cout);
      else if (rest[0] == "query-qp") print_query_qp_usage(std::cout);
      else if (rest[0] == "query-dcol") print_query_dcol_usage(std::cout);
      else if (rest[0] == "bench-qp") print_bench_qp_usage(std::cout);
      else if (rest[0] == "bench-dcol") print_bench_dcol_usage(std::cout);
      else if (rest[0] == "view") print_view_usage(std::cout);
      else if (rest[0] == "scene-bench") print_scene_bench_usage(std::cout);
      else if (rest[0] == "demo") print_demo_usage(std::cout);
      else throw InputError("help: unknown command '" + rest[0] + "'");
      return kExitOk;
    }
    if (cmd == "--version") {
      std::cout << "diffcol " << DIFFCOL_CLI_VERSION << " (FCL baseline: "
                << (fcl_baseline::available() ? "FCL " + fcl_baseline::version() : std::string("not built")) << ")\n";
      return kExitOk;
    }
    if (cmd == "query") return cmd_query(rest);
    if (cmd == "bench") return cmd_bench(rest);
    if (cmd == "view") return cmd_view(rest);
    if (cmd == "scene-bench") return cmd_scene_bench(rest);
    if (cmd == "demo") return cmd_demo(rest);
    throw InputError("unknown command '" + cmd + "' (expected query, bench, scene-bench or view; see diffcol --help)");
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "diffcol: invalid JSON input: " << e.what() << "\n";
    return kExitInvalidInput;
  } catch (const std::invalid_argument& e) {  // InputError and the library's validation errors
    std::cerr << "diffcol: error: " << e.what() << "\n";
    return kExitInvalidInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "diffcol: out of memory\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "diffcol: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}
