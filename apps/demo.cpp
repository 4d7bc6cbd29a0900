// `diffcol demo <name>`: the dispatcher (demo.hpp). The demos themselves live in demo_*.cpp.
#include "demo.hpp"

#include <chrono>
#include <iostream>

#include "demo_plan.hpp"
#include "diffcol/manifold/manifold.hpp"
#include "host_info.hpp"
#ifdef DIFFCOL_HAVE_VIEWER
#include "diffcol/view/view.hpp"
#endif

namespace diffcol::cli {


const std::vector<DemoEntry>& demo_table() {
  static const std::vector<DemoEntry> table = {
#ifndef DIFFCOL_CLI_NO_DEMOS
      {"piano-mover", "a 2.6 m rod around a 90-degree turn of a 1 m hallway (DCOL seed IV-A-1)", demo_piano_mover},
      {"cone-opening", "a cone through a square opening in a wall, translation and attitude (DCOL seed IV-A-3)",
       demo_cone_opening},
      {"arm-reach", "the 7-DoF test arm reaching around obstacles in joint space, self-collision included", demo_arm_reach},
      {"quadrotor-rrt", "iDCOL VII-A: an RRT path of a translating quadrotor refined under alpha >= 1 + eps (Ipopt)",
       demo_quadrotor_rrt},
      {"quadrotor-hallway", "DCOL IV-A-2: a 6-DOF quadrotor through a hallway of 12 obstacles from hover (Ipopt)",
       demo_quadrotor_hallway},
      {"ten-bodies", "ten iDCOL bodies thrown together: penalty contact, CVODES with the analytic Jacobian",
       demo_ten_bodies},
      {"pile", "mixed iDCOL bodies dropped into a box: penalty contact with damping and friction", demo_pile},
      {"figures-drop", "two 18-superquadric figures dropped onto each other: contact forces from Contax manifolds",
       demo_figures_drop},
      {"twelve-primitives", "twelve DCOL primitives collide: complementarity time stepping at 100 Hz (DCOL Fig. 6)",
       demo_twelve_primitives},
#endif
  };
  return table;
}

void print_demo_usage(std::ostream& os) {
  os << R"(usage: diffcol demo <name> [--json] [--out FILE | --no-page] [--fd-gradients] [--quick]
                    [--threads N] [demo options]

Runs one of the seeds' applications and checks its result independently. Prints its figures
(with --json: a report whose "success" is true only when the solver finished and the checks
held, with "wall_s" and the host) and writes an animated viewer page (default <name>.html).
Exit status 0 on success, 1 when the run or its checks failed, 2 on invalid input.

Options
  --json          print the JSON report only
  --out FILE      the viewer page to write (default <name>.html)
  --no-page       write no page
  --fd-gradients  collision derivatives by central finite differences (to measure what the
                  analytic ones buy)
  --quick         a shorter run
  --threads N     threads for the scene queries (default 1; 0: all cores)
  --list          list the demos

Options of the trajectory demos (piano-mover, cone-opening, arm-reach; docs/plan.md)
  --knots N             knots of the trajectory
  --max-iter N          Ipopt's iteration limit (default 1000)
  --print-level N       Ipopt's output (default 0)
  --print-knots         print the optimized configurations
  --near-pairs          rows only for the pairs near the initial path
  --objective-hessian   Ipopt's exact mode with the objective's Hessian (default: limited-memory)
  --hessian MODE        exact (the Lagrangian's, collision rows included: iDCOL pairs), objective or
                        limited-memory (default)
  --smooth              piano-mover, cone-opening, arm-reach, quadrotor-hallway: the scene in iDCOL
                        shapes (exact Hessians)
  --ipopt NAME=VALUE    any Ipopt option

Options of twelve-primitives (docs/sim-time-stepping.md)
  --seed N              the random scene (default 1)
  --duration S          simulated seconds (default 3.5; --quick 2.3)

Options of figures-drop (docs/sim.md)
  --gap G               clearance of the upper figure over the lower (default 0.05; --quick 0)
  --duration S          simulated seconds (default 3; --quick 0.05)
  --dt H                time step (default 0.0005)
  --stiffness K, --damping C, --friction MU   the contact law of each manifold entry
                        (defaults 1e6, 0.5, 0.5)
  --edge-edge 0|1       E-E contacts between the figures (default 0: V-S only)
  --edges N             E-E edges per figure with --edge-edge 1 (default 18)
  --gradient-steps N    steps of the checked rollout derivative (default 100; --quick 40)

Demos
)";
  for (const DemoEntry& d : demo_table()) {
    const std::string name = d.name;
    os << "  " << name << std::string(name.size() < 20 ? 20 - name.size() : 1, ' ') << d.summary << "\n";
  }
}

void write_demo_page(const DemoOptions& options, const scene::Scene& scene,
                     const std::vector<std::vector<Pose>>& body_poses, Json& report) {
  if (options.page.empty()) return;
#ifdef DIFFCOL_HAVE_VIEWER
  view::ViewOptions view_options;
  view_options.title = std::string("diffcol demo ") + report.value("demo", std::string());
  view::write_mesh_html(options.page, view::scene_animation(scene, body_poses), view_options);
  report["page"] = options.page;
  if (options.text) *options.text << "page: " << options.page << " (" << body_poses.size() << " frames)\n";
#else
  (void)scene;
  (void)body_poses;
  (void)report;
  if (options.text) *options.text << "page: not written (diffcol was built without the viewer)\n";
#endif
}

void write_demo_mesh_page(const DemoOptions& options, const std::vector<mesh::TriangleMesh>& meshes,
                          const std::vector<std::string>& names, const std::vector<std::vector<Pose>>& poses,
                          const std::vector<std::vector<manifold::ContactManifold>>& manifolds, Json& report) {
  if (options.page.empty()) return;
#ifdef DIFFCOL_HAVE_VIEWER
  view::MeshScene scene;
  scene.meshes = meshes;
  scene.names = names;
  scene.poses = poses;
  for (const auto& frame : manifolds) {
    view::ManifoldMarkers all;
    for (const manifold::ContactManifold& m : frame) {
      const view::ManifoldMarkers mk = view::manifold_markers(m);
      all.points.insert(all.points.end(), mk.points.begin(), mk.points.end());
      all.normals.insert(all.normals.end(), mk.normals.begin(), mk.normals.end());
      all.distances.insert(all.distances.end(), mk.distances.begin(), mk.distances.end());
      all.activities.insert(all.activities.end(), mk.activities.begin(), mk.activities.end());
    }
    scene.manifolds.push_back(std::move(all));
  }
  view::ViewOptions view_options;
  view_options.title = std::string("diffcol demo ") + report.value("demo", std::string());
  view::write_mesh_html(options.page, scene, view_options);
  report["page"] = options.page;
  if (options.text) *options.text << "page: " << options.page << " (" << poses.size() << " frames)\n";
#else
  (void)meshes;
  (void)names;
  (void)poses;
  (void)manifolds;
  (void)report;
  if (options.text) *options.text << "page: not written (diffcol was built without the viewer)\n";
#endif
}

int cmd_demo(const std::vector<std::string>& args) {
  if (args.empty()) {
    print_demo_usage(std::cerr);
    return kExitInvalidInput;
  }
  if (args[0] == "--list") {
    for (const DemoEntry& d : demo_table()) std::cout << d.name << "\n";
    return kExitOk;
  }
  if (args[0] == "-h" || args[0] == "--help") {
    print_demo_usage(std::cout);
    return kExitOk;
  }
  const DemoEntry* entry = nullptr;
  for (const DemoEntry& d : demo_table())
    if (args[0] == d.name) entry = &d;
  if (!entry) {
    std::string names;
    for (const DemoEntry& d : demo_table()) names += std::string(names.empty() ? "" : ", ") + d.name;
    if (names.empty()) throw InputError("demo: this program was built without the demos (the sanitized twin)");
    throw InputError("demo: unknown demo '" + args[0] + "' (known: " + names + ")");
  }
  DemoOptions options;
  options.page = std::string(entry->name) + ".html";
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw InputError("demo " + std::string(entry->name) + ": " + a + " needs a value");
      return args[++i];
    };
    if (a == "--json") options.json = true;
    else if (a == "--out") options.page = value();
    else if (a == "--no-page") options.page.clear();
    else if (a == "--fd-gradients") options.fd_gradients = true;
    else if (a == "--quick") options.quick = true;
    else if (a == "--threads") options.threads = static_cast<int>(parse_long(value(), "--threads", 0, 1024));
    else {
      options.extra.push_back(a);
      if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) options.extra.push_back(args[++i]);
    }
  }
  options.text = options.json ? nullptr : &std::cout;
  Json report;
  report["demo"] = entry->name;
  report["host"] = host_json(host_info());
  if (options.text) *options.text << host_line(host_info()) << "\n";
  const auto t0 = std::chrono::steady_clock::now();
  entry->run(options, report);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!report.contains("wall_s")) report["wall_s"] = wall;
  if (!report.contains("success")) report["success"] = false;
  const bool success = report["success"].get<bool>();
  if (options.json) std::cout << report.dump(2) << "\n";
  else std::cout << (success ? "success" : "FAILED") << " (" << report["wall_s"].get<double>() << " s)\n";
  return success ? kExitOk : kExitNotConverged;
}

}  // namespace diffcol::cli
