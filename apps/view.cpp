// `diffcol view`: writes the self-contained HTML viewer page (diffcol::view) for one pose or a
// pose sequence. See docs/viewer.md.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

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
  std::string out_path, png_path;
  long steps = 1;
  view::PngOptions png;
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
    else if (take_option(args, i, "--png", v)) png_path = v;
    else if (take_option(args, i, "--width", v)) png.width = static_cast<int>(parse_long(v, "--width", 16, 8192));
    else if (take_option(args, i, "--height", v)) png.height = static_cast<int>(parse_long(v, "--height", 16, 8192));
    else throw InputError("view --manifold-demo: unknown argument '" + a + "' (allowed: --out, --png, --width, "
                          "--height, --steps, --title, --frame-duration, --autoplay)");
  }
  if (out_path.empty() && png_path.empty())
    throw InputError("view: --out FILE (the page) or --png FILE (a picture of it) is required");
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
  const std::string page = out_path.empty() ? temporary_page() : out_path;
  try {
    view::write_mesh_html(page, scene, vo);
    if (!png_path.empty()) view::render_png(page, png_path, png);
  } catch (const std::runtime_error& e) {
    if (out_path.empty()) std::filesystem::remove(page);
    throw InputError(e.what());
  }
  if (out_path.empty()) std::filesystem::remove(page);
  std::cout << "diffcol view: " << (out_path.empty() ? "drew " + png_path : "wrote " + out_path)
            << " (manifold demo, " << scene.poses.size() << " frame" << (scene.poses.size() == 1 ? "" : "s") << ", "
            << scene.manifolds.back().points.size() << " entries per frame)\n";
  if (!out_path.empty() && !png_path.empty()) std::cout << "diffcol view: drew " << png_path << "\n";
  return kExitOk;
}
#endif

}  // namespace

void print_view_usage(std::ostream& os) {
  os << R"(usage: diffcol view [--method idcol|dcol|qp] (--out FILE | --png FILE | both)
                    [--json FILE|-] [--shape1 SHAPE] [--shape2 SHAPE]
                    [--pose1 POSE] [--pose2 POSE] [--frames FILE]
                    [--pose1-to POSE] [--pose2-to POSE] [--steps N]
                    [--title TEXT] [--subdivisions K] [--scaled] [--frame-duration S]
                    [--autoplay] [--width W] [--height H] [solver options]

Writes a self-contained HTML page (three.js inlined; opens offline in a browser) showing the
two shapes, the witness points p1 and p2, the normal, and (toggle on the page) the shapes
scaled by alpha* about their origins; with several frames, an animation with a time slider.
World axes, a ground grid and a scale bar give the size. The contact is solved at every frame.
With --png, headless Chromium draws the page (first frame) into a PNG picture.

Method (as in 'diffcol query')
  --method idcol     iDCOL shapes (default; warm-started from the previous frame)
  --method dcol      DCOL primitives (exact); normal = separating normal of the solve
  --method qp        DiffPills capsules and padded polygons; shows the closest points on the
                     padded surfaces and the normal (no scaling)
                     SHAPE is the same in every method ('diffcol help query', "Shapes")

Input (shapes and poses as in 'diffcol query')
  --json FILE        read {"shape1", "shape2", "pose1", "pose2", "frames", "options", "view"}
  --shape1 SHAPE, --shape2 SHAPE, --pose1 POSE, --pose2 POSE
  --frames FILE      a pose sequence: [{"pose1": POSE, "pose2": POSE}, ...] (or {"frames": [...]});
                     a pose left out of a frame is --pose1 / --pose2
  --pose1-to POSE    animate body 1 from --pose1 to this pose (linear position, slerp rotation)
  --pose2-to POSE    animate body 2 from --pose2 to this pose
  --steps N          frames of that animation (default 60)

Page
  --out FILE         the HTML file to write (--out or --png is required)
  --png FILE         draw the page into this PNG with headless Chromium (needs chromium:
                     apt-get install chromium, or bash viewer/setup.sh; $DIFFCOL_CHROMIUM names
                     another browser); without --out the page is a temporary file
  --width W, --height H  PNG size in pixels (default 1200 x 800)
  --title TEXT       page title (default "diffcol view")
  --subdivisions K   mesh resolution, 0..7: 10*4^K+2 vertices per iDCOL shape, max(8, 4*2^K) segments
                     per turn for DCOL and DiffPills shapes (default 5)
  --scaled           start with the scaled shapes (alpha*) shown (default: hidden)
  --no-scaled        start with them hidden (the default)
  --frame-duration S seconds per frame when playing (default 1/30)
  --autoplay         start playing on load

Contax manifold demo
  --manifold-demo    write the contact manifold page of two boxes (98-vertex meshes, superquadric
                     SDFs): points, normals scaled and coloured by activity; with --steps N, body 2
                     is lowered onto body 1 over N frames (default 1 frame, in contact). Takes only
                     --out, --png, --width, --height, --steps, --title, --frame-duration, --autoplay.

Solver options: --tolerance, --max-iterations, --max-attempts, --surrogate-factor,
--last-resort-iterations, --no-continuation (as in 'diffcol query'); with --method dcol only
--max-iterations, with --method qp none. Smooth shapes (--method idcol): --smoothing-tolerance T,
--beta B, --exponent N as in 'diffcol query'.

Exit status: 0 page (and picture) written and every frame solved, 1 written but some frame not
solved (shown on the page), 2 invalid input, or the PNG could not be drawn (no Chromium, the
browser failed). See docs/viewer.md.
)";
}

namespace {

// The poses of a made shape's frame S: X_WS = X_WG·X_GS.
[[maybe_unused]] void at_shape_frame(std::vector<Pose>& X_WG, const Pose& X_GS) {
  for (Pose& X : X_WG) X = X * X_GS;
}


}  // namespace

std::string temporary_page() {
  std::string name = (std::filesystem::temp_directory_path() / "diffcol-view-XXXXXX.html").string();
  const int fd = ::mkstemps(name.data(), 5);
  if (fd < 0) throw std::runtime_error("view: cannot create a temporary file for the page");
  ::close(fd);
  return name;
}

int cmd_view(const std::vector<std::string>& args_in) {
  for (const std::string& a : args_in)
    if (a == "--scene" || a == "--urdf" || a.rfind("--scene=", 0) == 0 || a.rfind("--urdf=", 0) == 0)
      return cmd_view_scene(args_in);
  std::vector<std::string> args = args_in;
  Json doc = Json::object();
  Json cli_options = Json::object();
  Json smoothing = Json::object();
  Json view = Json::object();
  std::string out_path, frames_path, png_path;
  long png_width = 1200, png_height = 800;
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
  const std::string method = take_method(args);
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
    } else if (take_option(args, i, "--png", v)) {
      png_path = v;
    } else if (take_option(args, i, "--width", v)) {
      png_width = parse_long(v, "--width", 16, 8192);
    } else if (take_option(args, i, "--height", v)) {
      png_height = parse_long(v, "--height", 16, 8192);
    } else if (take_option(args, i, "--title", v)) {
      view["title"] = v;
    } else if (take_option(args, i, "--subdivisions", v)) {
      view["subdivisions"] = parse_long(v, "--subdivisions", 0, 7);
    } else if (a == "--no-scaled") {
      view["show_scaled_shapes"] = false;
    } else if (a == "--scaled") {
      view["show_scaled_shapes"] = true;
    } else if (take_option(args, i, "--frame-duration", v)) {
      view["frame_duration"] = parse_double(v, "--frame-duration");
    } else if (a == "--autoplay") {
      view["autoplay"] = true;
    } else if (take_solver_option(args, i, cli_options)) {
    } else if (take_smoothing_option(args, i, smoothing)) {
    } else {
      throw InputError("view: unknown argument '" + a + "' (see diffcol view --help)");
    }
  }
  if (out_path.empty() && png_path.empty())
    throw InputError("view: --out FILE (the page) or --png FILE (a picture of it) is required");
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

  if (method == "qp" && (!cli_options.empty() || !options.empty()))
    throw InputError("view --method qp: no solver options apply (got '" +
                     (cli_options.empty() ? options.begin().key() : cli_options.begin().key()) + "')");
  if (method == "dcol")
    for (const Json* o : {&cli_options, &options})
      for (auto it = o->begin(); it != o->end(); ++it)
        if (it.key() != "max_iterations")
          throw InputError("view --method dcol: only the solver option max_iterations applies (got '" + it.key() +
                           "')");
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
  view::PngOptions png;
  png.width = static_cast<int>(png_width);
  png.height = static_cast<int>(png_height);
  if (!png_path.empty() && view::find_chromium().empty())  // before any work: say so at once
    throw InputError("view: --png needs Chromium, and none was found (looked for $DIFFCOL_CHROMIUM, then chromium, "
                     "chromium-browser, google-chrome, google-chrome-stable on PATH); install it (Debian: "
                     "apt-get install chromium, or bash viewer/setup.sh) or set DIFFCOL_CHROMIUM");
  const std::string page = out_path.empty() ? temporary_page() : out_path;
  size_t frame_count = 0, failed = 0;
  try {
    if (method == "idcol") {
      vo.solve_options = parse_options(options);
      const scene::SmoothingOptions sm = parse_smoothing(smoothing, method);
      const MethodShape m1 = make_method_shape(doc["shape1"], "shape1", method, sm);
      const MethodShape m2 = make_method_shape(doc["shape2"], "shape2", method, sm);
      const Shape& s1 = m1.shape.idcol();
      const Shape& s2 = m2.shape.idcol();
      at_shape_frame(poses1, m1.X_GS);
      at_shape_frame(poses2, m2.X_GS);
      const std::vector<view::ViewFrame> frames = view::solve_frames(s1, poses1, s2, poses2, vo);
      frame_count = frames.size();
      for (const auto& f : frames) failed += f.solution.ok() ? 0 : 1;
      view::write_html(page, s1, poses1, s2, poses2, vo);
    } else if (method == "dcol") {
      if (options.contains("max_iterations")) {
        if (!options["max_iterations"].is_number_integer())
          throw InputError("options.max_iterations: expected an integer");
        vo.dcol_options.max_iterations = options["max_iterations"].get<int>();
      }
      parse_smoothing(smoothing, method);  // exact shapes: refuses smoothing flags
      const dcol::Primitive s1 = method_dcol_shape(make_method_shape(doc["shape1"], "shape1", method));
      const dcol::Primitive s2 = method_dcol_shape(make_method_shape(doc["shape2"], "shape2", method));
      const auto frames = view::solve_dcol_frames(s1, poses1, s2, poses2, vo);
      frame_count = frames.size();
      for (const auto& f : frames) failed += f.ok() ? 0 : 1;
      view::write_dcol_html(page, s1, poses1, s2, poses2, vo);
    } else {
      parse_smoothing(smoothing, method);
      const MethodShape m1 = make_method_shape(doc["shape1"], "shape1", method);
      const MethodShape m2 = make_method_shape(doc["shape2"], "shape2", method);
      const view::QpShape s1 = method_qp_shape(m1), s2 = method_qp_shape(m2);
      at_shape_frame(poses1, m1.X_GS);
      at_shape_frame(poses2, m2.X_GS);
      const auto results = view::solve_qp_frames(s1, poses1, s2, poses2, vo);
      frame_count = results.size();
      for (const auto& r : results) failed += r.ok() ? 0 : 1;
      view::write_qp_html(page, s1, poses1, s2, poses2, vo);
    }
  } catch (const std::runtime_error& e) {  // an unwritable --out is the user's input, not a bug
    if (out_path.empty()) std::filesystem::remove(page);
    throw InputError(e.what());
  } catch (...) {
    if (out_path.empty()) std::filesystem::remove(page);
    throw;
  }
  if (!out_path.empty()) {
    std::ifstream written(out_path, std::ios::binary | std::ios::ate);
    std::cout << "diffcol view: wrote " << out_path << " (" << method << ", " << frame_count << " frame"
              << (frame_count == 1 ? "" : "s") << ", " << failed << " not solved, "
              << (written ? static_cast<long>(written.tellg()) / 1024 : 0) << " KiB, three.js "
              << view::three_version() << ")\n";
  }
  if (!png_path.empty()) {
    try {
      view::render_png(page, png_path, png);
    } catch (const std::runtime_error& e) {
      if (out_path.empty()) std::filesystem::remove(page);
      throw InputError(std::string(e.what()));
    }
    if (out_path.empty()) std::filesystem::remove(page);
    std::cout << "diffcol view: drew " << png_path << " (" << png.width << "x" << png.height << ", " << method << ", "
              << frame_count << " frame" << (frame_count == 1 ? "" : "s") << ", " << failed << " not solved)\n";
  }
  return failed > 0 ? kExitNotConverged : kExitOk;
#else
  (void)png_width;
  (void)png_height;
  throw InputError("view: this diffcol was built without the viewer (three.js not found); run "
                   "'bash viewer/setup.sh', reconfigure and rebuild");
#endif
}

}  // namespace diffcol::cli
