#pragma once
/// @file demo.hpp
/// `diffcol demo <name>`: the seeds' applications (trajectory optimization, simulation) as
/// self-checking programs. Each demo fills a JSON report whose top-level "success" is true only
/// when its solver finished and its independent checks held; the command prints the report
/// (--json) or the demo's own text, and exits 0 on success, 1 otherwise.
#include <iosfwd>
#include <string>
#include <vector>

#include "cli.hpp"

namespace diffcol::manifold {
struct ContactManifold;
}
namespace diffcol::mesh {
class TriangleMesh;
}

namespace diffcol::cli {

/// Options common to every demo.
struct DemoOptions {
  bool json = false;          ///< --json: print the report as JSON (no text)
  std::string page;           ///< --out FILE: the viewer page (default "<name>.html"; "" with --no-page)
  bool fd_gradients = false;  ///< --fd-gradients: derivatives by central finite differences
  bool quick = false;         ///< --quick: a shorter run (tests)
  int threads = 1;            ///< --threads N (0: all cores)
  std::vector<std::string> extra;  ///< demo-specific "--key value" arguments, in order
  std::ostream* text = nullptr;    ///< where the human-readable lines go (null with --json)
};

/// One demo: fills `report` (at least "success"; the command adds "demo", "host" and "wall_s"
/// when absent) and returns normally; throws InputError on bad demo-specific arguments.
using DemoFunction = void (*)(const DemoOptions& options, Json& report);

struct DemoEntry {
  const char* name;
  const char* summary;
  DemoFunction run;
};

/// The registered demos, in the order `diffcol demo --list` prints them.
const std::vector<DemoEntry>& demo_table();

/// Writes the animated page of a scene (view::scene_animation, body_poses[frame][body]) to
/// options.page unless it is empty, and records it as report["page"]; without the viewer, says so.
void write_demo_page(const DemoOptions& options, const scene::Scene& scene,
                     const std::vector<std::vector<Pose>>& body_poses, Json& report);

/// Writes the animated page of triangle meshes (view::MeshScene: one body-frame mesh per body,
/// poses[frame][body]) with, when `manifolds` is not empty, every frame's manifolds drawn
/// (manifolds[frame][pair]) to options.page unless it is empty; records it as report["page"].
void write_demo_mesh_page(const DemoOptions& options, const std::vector<mesh::TriangleMesh>& meshes,
                          const std::vector<std::string>& names, const std::vector<std::vector<Pose>>& poses,
                          const std::vector<std::vector<manifold::ContactManifold>>& manifolds, Json& report);

int cmd_demo(const std::vector<std::string>& args);

// The demos (demo_*.cpp).
void demo_twelve_primitives(const DemoOptions& options, Json& report);
void demo_ten_bodies(const DemoOptions& options, Json& report);
void demo_pile(const DemoOptions& options, Json& report);
void demo_figures_drop(const DemoOptions& options, Json& report);
void print_demo_usage(std::ostream& os);

}  // namespace diffcol::cli
