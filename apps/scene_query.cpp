// `diffcol query --scene FILE` and `--urdf FILE --q ...`: every close pair of a scene (and of a
// robot in it), printed as JSON (docs/cli.md, docs/scene.md for the scene file).
#include <cmath>
#include <fstream>
#include <map>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/scene/robot.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/scene/shape_description.hpp"
#ifdef DIFFCOL_HAVE_VIEWER
#include <filesystem>

#include "diffcol/view/view.hpp"
#endif

namespace diffcol::cli {

// (named: the program is a unity build)
namespace scene_file_detail {

Json read_scene_json(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  try {
    return Json::parse(ss.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError("invalid JSON in '" + path + "': " + e.what());
  }
}

std::string scene_folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// One shape of the scene file (docs/scene.md, "Scene files").
scene::MadeShape parse_shape(const Json& j, const std::string& where, const std::string& base_dir) {
  if (!j.is_object() || !j.contains("shape") || !j.at("shape").is_string())
    fail(where, "a shape is an object with \"shape\": sphere, box, cylinder, capsule, ellipsoid, cone, convex_hull, "
               "superellipsoid or padded_polygon");
  check_keys(j, where, {"shape", "name", "family", "pose", "group", "mask", "tolerance", "radius", "length", "half_extents",
                   "semi_axes", "height", "half_angle", "points", "mesh", "scale", "n", "half_x", "half_y"});
  const std::string kind = j.at("shape").get<std::string>();
  const scene::Family family = scene::parse_family(j.value("family", std::string("dcol")));
  scene::SmoothingOptions smoothing;
  if (j.contains("tolerance")) smoothing.tolerance = get_number(j.at("tolerance"), where + ".tolerance");
  using scene::ShapeDescription;
  if (kind == "superellipsoid") {
    if (family != scene::Family::idcol) fail(where, "a superellipsoid is an idcol shape (\"family\": \"idcol\")");
    const Vec3 a = get_vec3(require(j, "semi_axes", where), where + ".semi_axes");
    const double n = num_field(j, "n", where);
    if (std::floor(n) != n) fail(where + ".n", "the exponent must be an integer");
    return {Superellipsoid(a.x(), a.y(), a.z(), static_cast<int>(n)), Pose::identity()};
  }
  if (kind == "padded_polygon") {  // a padded rectangle in the x–y plane
    const double hx = num_field(j, "half_x", where), hy = num_field(j, "half_y", where), r = num_field(j, "radius", where);
    if (family == scene::Family::qp) return {qp::PaddedPolygon::rectangle(hx, hy, r), Pose::identity()};
    if (family == scene::Family::dcol) return {dcol::Primitive(dcol::PaddedPolygon::rectangle(hx, hy, r)), Pose::identity()};
    fail(where, "a padded_polygon is a dcol or qp shape");
  }
  ShapeDescription d;
  if (kind == "sphere") d = ShapeDescription::sphere(num_field(j, "radius", where));
  else if (kind == "box") {
    const Vec3 h = get_vec3(require(j, "half_extents", where), where + ".half_extents");
    d = ShapeDescription::box(h.x(), h.y(), h.z());
  } else if (kind == "cylinder") d = ShapeDescription::cylinder(num_field(j, "radius", where), num_field(j, "length", where));
  else if (kind == "capsule") d = ShapeDescription::capsule(num_field(j, "radius", where), num_field(j, "length", where));
  else if (kind == "ellipsoid") {
    const Vec3 a = get_vec3(require(j, "semi_axes", where), where + ".semi_axes");
    d = ShapeDescription::ellipsoid(a.x(), a.y(), a.z());
  } else if (kind == "cone") d = ShapeDescription::cone(num_field(j, "height", where), num_field(j, "half_angle", where));
  else if (kind == "convex_hull") {
    std::vector<Vec3> points;
    if (j.contains("mesh")) {
      if (!j.at("mesh").is_string()) fail(where, "\"mesh\" must be a file name (OBJ or STL)");
      std::string path = j.at("mesh").get<std::string>();
      if (!path.empty() && path[0] != '/') path = base_dir + "/" + path;
      const Vec3 scale = j.contains("scale") ? get_vec3(require(j, "scale", where), where + ".scale") : Vec3::Ones();
      try {
        const mesh::TriangleMesh m = mesh::load_mesh(path);  // kept alive for the loop
        for (const Vec3& v : m.vertices()) points.push_back(v.cwiseProduct(scale));
      } catch (const std::exception& e) {
        fail(where, "mesh '" + path + "': " + e.what());
      }
    } else if (j.contains("points") && j.at("points").is_array()) {
      for (size_t i = 0; i < j.at("points").size(); ++i) {
        const Json& p = j.at("points")[i];
        points.push_back(get_vec3(p, where + ".points[" + std::to_string(i) + "]"));
      }
    } else {
      fail(where, "a convex_hull needs \"points\" or \"mesh\"");
    }
    d = ShapeDescription::convex_hull(std::move(points));
  } else {
    fail(where, "unknown shape '" + kind + "'");
  }
  try {
    return scene::make_shape(d, family, smoothing);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
}

struct LoadedRobot {
  std::unique_ptr<scene::Robot> robot;
  Eigen::VectorXd q;
  Pose X_WB;
};

// The scene file: bodies with shapes, disabled pairs by body name.
void load_scene(const Json& doc, const std::string& base_dir, scene::Scene& s) {
  if (!doc.is_object()) fail("scene", "the scene file is an object {\"bodies\": [...], \"disabled\": [...]}");
  check_keys(doc, "scene", {"bodies", "disabled"});
  if (!doc.contains("bodies") || !doc.at("bodies").is_array()) fail("scene", "\"bodies\" must be an array");
  std::map<std::string, int> by_name;
  struct Pending {
    int body;
    scene::MadeShape made;
    Pose X_BS;
    scene::CollisionFilter filter;
    std::string name;
  };
  std::vector<Pending> shapes;
  const Json& bodies = doc.at("bodies");
  for (size_t b = 0; b < bodies.size(); ++b) {
    const std::string where = "bodies[" + std::to_string(b) + "]";
    const Json& jb = bodies[b];
    if (!jb.is_object()) fail(where, "a body is an object");
    check_keys(jb, where, {"name", "pose", "static", "shapes"});
    const std::string name = jb.value("name", "body" + std::to_string(b));
    if (by_name.count(name)) fail(where, "two bodies named '" + name + "'");
    const Pose X = parse_pose(jb.contains("pose") ? jb.at("pose") : Json(), where + ".pose");
    const int id = s.add_body(X, jb.value("static", false), name);
    by_name[name] = id;
    if (!jb.contains("shapes")) continue;
    if (!jb.at("shapes").is_array()) fail(where, "\"shapes\" must be an array");
    for (size_t k = 0; k < jb.at("shapes").size(); ++k) {
      const std::string sw = where + ".shapes[" + std::to_string(k) + "]";
      const Json& js = jb.at("shapes")[k];
      scene::MadeShape made = parse_shape(js, sw, base_dir);
      const Pose X_BS = parse_pose(js.contains("pose") ? js.at("pose") : Json(), sw + ".pose");
      scene::CollisionFilter f;
      if (js.contains("group")) {
        const double v = get_number(js.at("group"), sw + ".group");
        if (!(v >= 0.0 && v <= 4294967295.0 && std::floor(v) == v)) fail(sw + ".group", "expected a 32-bit unsigned integer");
        f.group = static_cast<std::uint32_t>(v);
      }
      if (js.contains("mask")) {
        const double v = get_number(js.at("mask"), sw + ".mask");
        if (!(v >= 0.0 && v <= 4294967295.0 && std::floor(v) == v)) fail(sw + ".mask", "expected a 32-bit unsigned integer");
        f.mask = static_cast<std::uint32_t>(v);
      }
      shapes.push_back({id, std::move(made), X_BS, f, js.value("name", std::string())});
    }
  }
  if (doc.contains("disabled")) {
    const Json& d = doc.at("disabled");
    if (!d.is_array()) fail("disabled", "must be an array of [body name, body name]");
    for (const Json& pair : d) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
        fail("disabled", "each entry is [body name, body name], got " + pair.dump());
      for (const Json& n : pair)
        if (!by_name.count(n.get<std::string>())) fail("disabled", "unknown body '" + n.get<std::string>() + "'");
      s.disable_body_pair(by_name[pair[0].get<std::string>()], by_name[pair[1].get<std::string>()]);
    }
  }
  for (Pending& p : shapes) s.add_shape(p.body, std::move(p.made.shape), p.X_BS * p.made.X_GS, p.filter, p.name);
}

Json vec_array(const Vec3& v) { return Json::array({v.x(), v.y(), v.z()}); }

Json row_array(const Eigen::Ref<const Eigen::RowVectorXd>& r) {
  Json a = Json::array();
  for (Eigen::Index i = 0; i < r.size(); ++i) a.push_back(r[i]);
  return a;
}

}  // namespace scene_file_detail

void print_query_scene_usage(std::ostream& os) {
  os << R"(usage: diffcol query --scene FILE [--margin M] [--derivatives] [--frame F] [--threads N]
       diffcol query --urdf FILE [--srdf FILE] [--q Q] [--base POSE] [--family F] [--scene FILE] ...

Every pair of a scene that is in contact or closer than the margin (and every failed pair),
as JSON: ids and names, the family that served it, status, alpha, gap (d_D), the Euclidean
distance, the points and the normal (docs/scene.md). With --urdf, a robot's links join the
scene (self-collision included) and every pair gets its gradients in q.

  --scene FILE     the scene file (docs/scene.md, "Scene files")
  --urdf FILE      a robot (URDF); --srdf FILE its disabled pairs
  --q Q            joint positions, comma-separated (default 0, clamped into the limits)
  --base POSE      the robot's base pose x,y,z[,qw,qx,qy,qz] (default identity)
  --family F       the robot's shapes: dcol (exact, default) or idcol (smooth)
  --margin M       report separated pairs closer than M (default 0: contacts only)
  --derivatives    Jacobians over the twists of both bodies (12 columns: body1 | body2)
  --frame F        their twist frame: world (default), local or local_world_aligned
  --threads N      narrow-phase threads (default 1; 0: all cores)
  --no-euclidean   no Euclidean distances for iDCOL / DCOL pairs (the margin test uses d_D)

Exit status: 0 every pair solved, 1 some pair did not converge (still printed), 2 invalid input.
)";
}

bool take_scene_input(const std::vector<std::string>& args, size_t& i, SceneInput& in) {
  std::string v;
  if (take_option(args, i, "--scene", v)) in.scene_file = v;
  else if (take_option(args, i, "--urdf", v)) in.urdf = v;
  else if (take_option(args, i, "--srdf", v)) in.srdf = v;
  else if (take_option(args, i, "--q", v)) in.q = v;
  else if (take_option(args, i, "--base", v)) in.base = v;
  else if (take_option(args, i, "--family", v)) in.family = v;
  else return false;
  return true;
}

void build_scene_input(const SceneInput& in, scene::Scene& s, std::unique_ptr<scene::Robot>& robot) {
  using namespace scene_file_detail;
  if (in.scene_file.empty() && in.urdf.empty()) throw InputError("--scene FILE or --urdf FILE is required");
  if (in.urdf.empty() && (!in.srdf.empty() || !in.q.empty() || !in.base.empty()))
    throw InputError("--srdf, --q and --base need --urdf");
  if (!in.scene_file.empty()) {
    try {
      load_scene(read_scene_json(in.scene_file), scene_folder_of(in.scene_file), s);
    } catch (const InputError&) {
      throw;
    } catch (const std::invalid_argument& e) {
      throw InputError(in.scene_file + ": " + e.what());
    }
  }
  if (in.urdf.empty()) return;
  scene::RobotOptions ro;
  try {
    ro.family = scene::parse_family(in.family);
    robot = std::make_unique<scene::Robot>(s, scene::RobotModel::from_urdf_file(in.urdf, in.srdf), ro);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  Eigen::VectorXd q = robot->q();
  if (!in.q.empty()) {
    const auto parts = split(in.q, ",");
    if (static_cast<Eigen::Index>(parts.size()) != q.size())
      throw InputError("--q: " + std::to_string(parts.size()) + " values for " + std::to_string(q.size()) + " joints");
    for (size_t k = 0; k < parts.size(); ++k) q[static_cast<Eigen::Index>(k)] = parse_double(parts[k], "--q");
  }
  const Pose X_WB = in.base.empty() ? Pose::identity() : parse_pose(pose_arg_to_json(in.base), "--base");
  try {
    robot->set_configuration(q, X_WB);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
}

int cmd_query_scene(const std::vector<std::string>& args) {
  using namespace scene_file_detail;
  SceneInput input;
  scene::QueryOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      print_query_scene_usage(std::cout);
      return kExitOk;
    } else if (take_scene_input(args, i, input)) {
    } else if (take_option(args, i, "--margin", v)) o.margin = parse_double(v, "--margin");
    else if (take_option(args, i, "--frame", v)) o.frame = parse_frame(v);
    else if (take_option(args, i, "--threads", v)) o.num_threads = static_cast<int>(parse_long(v, "--threads", 0, 1024));
    else if (a == "--derivatives") o.derivatives = true;
    else if (a == "--no-euclidean") o.euclidean = false;
    else throw InputError("query --scene/--urdf: unknown argument '" + a + "' (see diffcol query --scene --help)");
  }
  try {
    o.validate();
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  scene::Scene s;
  std::unique_ptr<scene::Robot> robot;
  build_scene_input(input, s, robot);

  scene::RobotQueryResult rr;
  if (robot) robot->query(o, rr, true);
  else s.query(o, rr.scene);
  const scene::QueryResult& r = rr.scene;

  Json pairs = Json::array();
  bool failed = false;
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    const scene::PairResult& p = r.pairs[i];
    Json j;
    j["shape1"] = s.shape(p.shape1).name;
    j["shape2"] = s.shape(p.shape2).name;
    j["body1"] = s.body(p.body1).name;
    j["body2"] = s.body(p.body2).name;
    j["family"] = scene::family_name(p.family);
    j["status"] = diffcol::status_name(p.status);
    j["solver_status"] = p.solver_status;
    j["separated"] = p.separated;
    if (p.has_alpha) j["alpha"] = p.alpha;
    if (p.has_gap) j["gap"] = p.gap;
    if (p.has_distance) j["distance"] = p.distance;
    j["points"] = p.points == scene::PointKind::closest ? "closest" : "witness";
    j["p1_W"] = vec_array(p.p1_W);
    j["p2_W"] = vec_array(p.p2_W);
    j["normal_W"] = vec_array(p.normal_W);
    failed = failed || p.status == diffcol::SolveStatus::not_converged;
    if (o.derivatives && i < r.derivatives.size()) {
      const scene::PairDerivatives& d = r.derivatives[i];
      Json dj;
      dj["ok"] = d.ok;
      dj["points"] = d.points;
      dj["normal"] = d.normal;
      dj["frame"] = reference_frame_name(d.frame);
      dj["J_alpha"] = row_array(d.J_alpha);
      dj["J_gap"] = row_array(d.J_gap);
      dj["J_distance"] = row_array(d.J_distance);
      dj["J_p1_W"] = rows_json(d.J_p1_W);
      dj["J_p2_W"] = rows_json(d.J_p2_W);
      dj["J_normal_W"] = rows_json(d.J_normal_W);
      j["derivatives"] = dj;
    }
    if (robot) {
      const auto k = static_cast<Eigen::Index>(i);
      Json jq;
      jq["J_alpha_q"] = row_array(rr.J_alpha_q.row(k));
      jq["J_gap_q"] = row_array(rr.J_gap_q.row(k));
      jq["J_distance_q"] = row_array(rr.J_distance_q.row(k));
      jq["J_p1_W_q"] = rows_json(Eigen::MatrixXd(rr.J_p1_W_q.middleRows(3 * k, 3)));
      jq["J_p2_W_q"] = rows_json(Eigen::MatrixXd(rr.J_p2_W_q.middleRows(3 * k, 3)));
      jq["J_normal_W_q"] = rows_json(Eigen::MatrixXd(rr.J_normal_W_q.middleRows(3 * k, 3)));
      j["joint_derivatives"] = jq;
    }
    pairs.push_back(j);
  }
  Json out;
  out["pairs"] = pairs;
  out["candidates"] = r.candidates;
  Json in;
  in["bodies"] = s.num_bodies();
  in["shapes"] = s.num_shapes();
  in["margin"] = o.margin;
  if (robot) {
    in["robot"] = robot->model().name();
    Json q = Json::array();
    for (Eigen::Index k = 0; k < robot->q().size(); ++k) q.push_back(robot->q()[k]);
    in["q"] = q;
  }
  out["input"] = in;
  write_json(std::cout, out);
  std::cout.flush();
  return failed ? kExitNotConverged : kExitOk;
}

int cmd_view_scene(const std::vector<std::string>& args) {
#ifdef DIFFCOL_HAVE_VIEWER
  SceneInput input;
  scene::QueryOptions o;
  std::string out_path, png_path;
  view::PngOptions png;
  view::ViewOptions vo;
  vo.title = "diffcol scene";
  long subdivisions = 3;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    const std::string& a = args[i];
    if (take_scene_input(args, i, input)) {
    } else if (take_option(args, i, "--margin", v)) o.margin = parse_double(v, "--margin");
    else if (take_option(args, i, "--out", v)) out_path = v;
    else if (take_option(args, i, "--png", v)) png_path = v;
    else if (take_option(args, i, "--width", v)) png.width = static_cast<int>(parse_long(v, "--width", 16, 8192));
    else if (take_option(args, i, "--height", v)) png.height = static_cast<int>(parse_long(v, "--height", 16, 8192));
    else if (take_option(args, i, "--title", v)) vo.title = v;
    else if (take_option(args, i, "--subdivisions", v)) subdivisions = parse_long(v, "--subdivisions", 0, 7);
    else
      throw InputError("view --scene/--urdf: unknown argument '" + a + "' (allowed: --scene, --urdf, --srdf, --q, "
                       "--base, --family, --margin, --out, --png, --width, --height, --title, --subdivisions)");
  }
  if (out_path.empty() && png_path.empty())
    throw InputError("view: --out FILE (the page) or --png FILE (a picture of it) is required");
  try {
    o.validate();
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  scene::Scene s;
  std::unique_ptr<scene::Robot> robot;
  build_scene_input(input, s, robot);
  const scene::QueryResult r = s.query(o);
  const view::MeshScene page_scene = view::scene_mesh_view(s, r, static_cast<int>(subdivisions));
  vo.min_activity = 0.0;
  const std::string page = out_path.empty() ? temporary_page() : out_path;
  try {
    view::write_mesh_html(page, page_scene, vo);
    if (!png_path.empty()) view::render_png(page, png_path, png);
  } catch (const std::runtime_error& e) {
    if (out_path.empty()) std::filesystem::remove(page);
    throw InputError(e.what());
  }
  if (out_path.empty()) std::filesystem::remove(page);
  std::cout << "diffcol view: " << (out_path.empty() ? "drew " + png_path : "wrote " + out_path) << " (" << s.num_shapes()
            << " shapes, " << r.pairs.size() << " pairs within " << o.margin << ")\n";
  if (!out_path.empty() && !png_path.empty()) std::cout << "diffcol view: drew " << png_path << "\n";
  return kExitOk;
#else
  (void)args;
  throw InputError("view: this diffcol was built without the viewer (three.js; see docs/viewer.md)");
#endif
}

}  // namespace diffcol::cli
