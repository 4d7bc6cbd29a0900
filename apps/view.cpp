// `diffcol view`: writes the self-contained HTML viewer page (diffcol::view) for one pose or a
// pose sequence. See docs/viewer.md.
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include <Eigen/Geometry>

#include "cli.hpp"

#ifdef DIFFCOL_HAVE_VIEWER
#include "diffcol/manifold/surface_mesh.hpp"
#include "diffcol/view/view.hpp"
#endif

namespace diffcol::cli {
namespace {

Json read_json_file(const std::string& path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw InputError("cannot open input file '" + path + "'");
    std::ostringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  }
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError("invalid JSON in '" + path + "': " + e.what());
  }
}

// A frames array from {"frames": [...]} or a bare array.
Json frames_of(const Json& j, const std::string& where) {
  const Json& f = j.is_object() && j.contains("frames") ? j.at("frames") : j;
  if (!f.is_array() || f.empty())
    throw InputError(where + ": expected a non-empty array of frames [{\"pose1\": ..., \"pose2\": ...}, ...]");
  return f;
}

// n poses from `from` to `to`: positions linear, rotations by slerp.
std::vector<Pose> interpolate(const Pose& from, const Pose& to, long n) {
  std::vector<Pose> out;
  const Eigen::Quaterniond qa = from.quaternion(), qb = to.quaternion();
  for (long i = 0; i < n; ++i) {
    const double s = n == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(n - 1);
    Pose X;
    X.R = qa.slerp(s, qb).normalized().toRotationMatrix();
    X.p = (1.0 - s) * from.p + s * to.p;
    out.push_back(X);
  }
  return out;
}

#ifdef DIFFCOL_HAVE_VIEWER
// `diffcol view --manifold-demo`: the Contax box-on-box manifold page (see the usage text).
int manifold_demo(const std::vector<std::string>& args) {
  std::string out_path;
  long steps = 1;
  view::ViewOptions vo;
  vo.title = "diffcol manifold: box on box";
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    const std::string& a = args[i];
    if (a == "--manifold-demo") continue;
    if (take_option(args, i, "--out", v)) out_path = v;
    else if (take_option(args, i, "--steps", v)) steps = parse_long(v, "--steps", 1, 10000);
    else if (take_option(args, i, "--title", v)) vo.title = v;
    else if (take_option(args, i, "--frame-duration", v)) vo.frame_duration = parse_double(v, "--frame-duration");
    else if (a == "--autoplay") vo.autoplay = true;
    else throw InputError("view --manifold-demo: unknown argument '" + a + "' (allowed: --out, --steps, --title, "
                          "--frame-duration, --autoplay)");
  }
  if (out_path.empty()) throw InputError("view: --out FILE is required");
  // Two unit boxes (98-vertex refined cube meshes, superquadric SDFs with eps = 0.1); body 2 tilted
  // about x and z, lowered from above body 1 into an edge-on-face contact over the frames.
  const Eigen::Vector3d size(1.0, 1.0, 1.0);
  const manifold::ContactObject b1(manifold::make_refined_box(size, 4), manifold::make_box_sdf(size, 0.1));
  const manifold::ContactObject b2(manifold::make_refined_box(size, 4), manifold::make_box_sdf(size, 0.1));
  const Eigen::Quaterniond q = Eigen::AngleAxisd(0.35, Vec3::UnitX()) * Eigen::AngleAxisd(0.3, Vec3::UnitZ());
  const Pose top = Pose::from_quaternion(Vec3(0.1, 0.05, 1.6), q.w(), q.x(), q.y(), q.z());
  const Pose low = Pose::from_quaternion(Vec3(0.1, 0.05, 0.98), q.w(), q.x(), q.y(), q.z());
  const std::vector<Pose> poses2 = steps == 1 ? std::vector<Pose>{low} : interpolate(top, low, steps);
  manifold::ManifoldOptions mo;
  mo.contact.t_pen = 0.01;
  const view::MeshScene scene = view::manifold_scene(b1, {Pose::identity()}, b2, poses2, mo);
  try {
    view::write_mesh_html(out_path, scene, vo);
  } catch (const std::runtime_error& e) {
    throw InputError(e.what());
  }
  std::cout << "diffcol view: wrote " << out_path << " (manifold demo, " << scene.poses.size() << " frame"
            << (scene.poses.size() == 1 ? "" : "s") << ", " << scene.manifolds.back().points.size()
            << " entries per frame)\n";
  return kExitOk;
}
#endif

}  // namespace

void print_view_usage(std::ostream& os) {
  os << R"(usage: diffcol view --out FILE [--json FILE|-] [--shape1 SHAPE] [--shape2 SHAPE]
                    [--pose1 POSE] [--pose2 POSE] [--frames FILE]
                    [--pose1-to POSE] [--pose2-to POSE] [--steps N]
                    [--title TEXT] [--subdivisions K] [--no-scaled] [--frame-duration S]
                    [--autoplay] [solver options]

Writes a self-contained HTML page (three.js inlined; opens offline in a browser) showing the
two shapes, the witness points p1 and p2, the normal, and the shapes scaled by alpha* about
their origins; with several frames, an animation with a time slider. The contact is solved at
every frame (warm-started from the previous one).

Input (shapes and poses as in 'diffcol query')
  --json FILE        read {"shape1", "shape2", "pose1", "pose2", "frames", "options", "view"}
  --shape1 SHAPE, --shape2 SHAPE, --pose1 POSE, --pose2 POSE
  --frames FILE      a pose sequence: [{"pose1": POSE, "pose2": POSE}, ...] (or {"frames": [...]});
                     a pose left out of a frame is --pose1 / --pose2
  --pose1-to POSE    animate body 1 from --pose1 to this pose (linear position, slerp rotation)
  --pose2-to POSE    animate body 2 from --pose2 to this pose
  --steps N          frames of that animation (default 60)

Page
  --out FILE         the HTML file to write (required)
  --title TEXT       page title (default "diffcol view")
  --subdivisions K   mesh resolution, 0..7: 10*4^K+2 vertices per shape (default 5)
  --no-scaled        start with the scaled shapes (alpha*) hidden
  --frame-duration S seconds per frame when playing (default 1/30)
  --autoplay         start playing on load

Contax manifold demo
  --manifold-demo    write the contact manifold page of two boxes (98-vertex meshes, superquadric
                     SDFs): points, normals scaled and coloured by activity; with --steps N, body 2
                     is lowered onto body 1 over N frames (default 1 frame, in contact). Takes only
                     --out, --steps, --title, --frame-duration, --autoplay.

Solver options: --tolerance, --max-iterations, --max-attempts, --surrogate-factor,
--last-resort-iterations, --no-continuation (as in 'diffcol query').

Exit status: 0 page written and every frame solved, 1 page written but some frame not
converged (shown on the page), 2 invalid input. See docs/viewer.md.
)";
}

int cmd_view(const std::vector<std::string>& args) {
  Json doc = Json::object();
  Json cli_options = Json::object();
  Json view = Json::object();
  std::string out_path, frames_path;
  Json pose1_to, pose2_to;
  long steps = -1;
  bool have_json = false;
  for (const std::string& a : args)
    if (a == "--manifold-demo") {
#ifdef DIFFCOL_HAVE_VIEWER
      return manifold_demo(args);
#else
      throw InputError("view: this diffcol was built without the viewer (three.js not found); run "
                       "'bash viewer/setup.sh', reconfigure and rebuild");
#endif
    }
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      print_view_usage(std::cout);
      return kExitOk;
    } else if (take_option(args, i, "--json", v)) {
      if (have_json) throw InputError("--json given twice");
      have_json = true;
      const Json file = read_json_file(v);
      if (!file.is_object()) throw InputError("the --json input must be an object {\"shape1\": ..., ...}");
      for (auto it = file.begin(); it != file.end(); ++it) {
        const std::string& k = it.key();
        if (k != "shape1" && k != "shape2" && k != "pose1" && k != "pose2" && k != "options" && k != "frames" &&
            k != "view")
          throw InputError("input: unknown field '" + k +
                           "' (allowed: shape1, pose1, shape2, pose2, frames, options, view)");
        if (!doc.contains(k)) doc[k] = it.value();  // command-line flags seen earlier win
      }
    } else if (take_pair_option(args, i, doc)) {
    } else if (take_option(args, i, "--frames", v)) {
      frames_path = v;
    } else if (take_option(args, i, "--pose1-to", v)) {
      pose1_to = pose_arg_to_json(v);
    } else if (take_option(args, i, "--pose2-to", v)) {
      pose2_to = pose_arg_to_json(v);
    } else if (take_option(args, i, "--steps", v)) {
      steps = parse_long(v, "--steps", 1, 100000);
    } else if (take_option(args, i, "--out", v)) {
      out_path = v;
    } else if (take_option(args, i, "--title", v)) {
      view["title"] = v;
    } else if (take_option(args, i, "--subdivisions", v)) {
      view["subdivisions"] = parse_long(v, "--subdivisions", 0, 7);
    } else if (a == "--no-scaled") {
      view["show_scaled_shapes"] = false;
    } else if (take_option(args, i, "--frame-duration", v)) {
      view["frame_duration"] = parse_double(v, "--frame-duration");
    } else if (a == "--autoplay") {
      view["autoplay"] = true;
    } else if (take_solver_option(args, i, cli_options)) {
    } else {
      throw InputError("view: unknown argument '" + a + "' (see diffcol view --help)");
    }
  }
  if (out_path.empty()) throw InputError("view: --out FILE is required");
  if (!doc.contains("shape1") || !doc.contains("shape2"))
    throw InputError("view: both shapes are required (--shape1 and --shape2, or --json FILE)");
  if (!frames_path.empty()) doc["frames"] = read_json_file(frames_path);
  const bool interpolated = !pose1_to.is_null() || !pose2_to.is_null();
  if (interpolated && doc.contains("frames"))
    throw InputError("view: give either a pose sequence (--frames / \"frames\") or --pose1-to / --pose2-to");
  if (steps >= 0 && !interpolated) throw InputError("view: --steps needs --pose1-to or --pose2-to");

  Json options = doc.contains("options") ? doc["options"] : Json::object();
  if (!options.is_object()) throw InputError("options: must be an object");
  for (auto it = cli_options.begin(); it != cli_options.end(); ++it) options[it.key()] = it.value();
  Json view_in = doc.contains("view") ? doc["view"] : Json::object();
  if (!view_in.is_object()) throw InputError("view: the \"view\" field must be an object");
  for (auto it = view.begin(); it != view.end(); ++it) view_in[it.key()] = it.value();

  const Shape s1 = parse_shape(doc["shape1"], "shape1");
  const Shape s2 = parse_shape(doc["shape2"], "shape2");
  const Pose X1 = parse_pose(doc.contains("pose1") ? doc["pose1"] : Json(), "pose1");
  const Pose X2 = parse_pose(doc.contains("pose2") ? doc["pose2"] : Json(), "pose2");

  std::vector<Pose> poses1, poses2;
  if (doc.contains("frames")) {
    const Json frames = frames_of(doc["frames"], "frames");
    for (size_t i = 0; i < frames.size(); ++i) {
      const std::string where = "frames[" + std::to_string(i) + "]";
      const Json& f = frames[i];
      if (!f.is_object()) throw InputError(where + ": expected an object {\"pose1\": ..., \"pose2\": ...}");
      for (auto it = f.begin(); it != f.end(); ++it)
        if (it.key() != "pose1" && it.key() != "pose2")
          throw InputError(where + ": unknown field '" + it.key() + "' (allowed: pose1, pose2)");
      poses1.push_back(f.contains("pose1") ? parse_pose(f["pose1"], where + ".pose1") : X1);
      poses2.push_back(f.contains("pose2") ? parse_pose(f["pose2"], where + ".pose2") : X2);
    }
  } else if (interpolated) {
    const long n = steps >= 0 ? steps : 60;
    poses1 = pose1_to.is_null() ? std::vector<Pose>{X1} : interpolate(X1, parse_pose(pose1_to, "--pose1-to"), n);
    poses2 = pose2_to.is_null() ? std::vector<Pose>{X2} : interpolate(X2, parse_pose(pose2_to, "--pose2-to"), n);
  } else {
    poses1 = {X1};
    poses2 = {X2};
  }

#ifdef DIFFCOL_HAVE_VIEWER
  view::ViewOptions vo;
  vo.solve_options = parse_options(options);
  for (auto it = view_in.begin(); it != view_in.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = it.value();
    if (k == "title" && v.is_string()) vo.title = v.get<std::string>();
    else if (k == "subdivisions" && v.is_number_integer()) vo.mesh_subdivisions = v.get<int>();
    else if (k == "show_scaled_shapes" && v.is_boolean()) vo.show_scaled_shapes = v.get<bool>();
    else if (k == "frame_duration" && v.is_number()) vo.frame_duration = v.get<double>();
    else if (k == "autoplay" && v.is_boolean()) vo.autoplay = v.get<bool>();
    else
      throw InputError("view." + k + ": unknown field or wrong type (title: string, subdivisions: integer 0..7, "
                       "show_scaled_shapes: bool, frame_duration: number > 0, autoplay: bool)");
  }
  const std::vector<view::ViewFrame> frames = view::solve_frames(s1, poses1, s2, poses2, vo);
  size_t failed = 0;
  for (const auto& f : frames) failed += f.solution.ok() ? 0 : 1;
  try {
    view::write_html(out_path, s1, poses1, s2, poses2, vo);
  } catch (const std::runtime_error& e) {  // an unwritable --out is the user's input, not a bug
    throw InputError(e.what());
  }
  std::ifstream written(out_path, std::ios::binary | std::ios::ate);
  std::cout << "diffcol view: wrote " << out_path << " (" << frames.size() << " frame"
            << (frames.size() == 1 ? "" : "s") << ", " << failed << " not solved, "
            << (written ? static_cast<long>(written.tellg()) / 1024 : 0) << " KiB, three.js "
            << view::three_version() << ")\n";
  return failed > 0 ? kExitNotConverged : kExitOk;
#else
  (void)s1;
  (void)s2;
  throw InputError("view: this diffcol was built without the viewer (three.js not found); run "
                   "'bash viewer/setup.sh', reconfigure and rebuild");
#endif
}

}  // namespace diffcol::cli
