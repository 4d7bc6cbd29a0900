// Parsing of shapes, poses and solver options for the diffcol CLI.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "cli.hpp"
#include "diffcol/idcol/ergodic.hpp"

namespace diffcol::cli {

// ------------------------------------------------------------------ JSON fields (cli.hpp)

[[noreturn]] void fail(const std::string& where, const std::string& msg) {
  throw InputError(where + ": " + msg);
}

double get_number(const Json& j, const std::string& where) {
  if (!j.is_number()) fail(where, "expected a number, got " + j.dump());
  return j.get<double>();
}

Vec3 get_vec3(const Json& j, const std::string& where) {
  if (!j.is_array() || j.size() != 3) fail(where, "expected an array of 3 numbers, got " + j.dump());
  return Vec3(get_number(j[0], where + "[0]"), get_number(j[1], where + "[1]"),
              get_number(j[2], where + "[2]"));
}

// Rejects keys outside `allowed` (catches typos such as "radius" vs "R").
void check_keys(const Json& j, const std::string& where, std::initializer_list<const char*> allowed) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || it.key() == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      fail(where, "unknown field '" + it.key() + "' (allowed: " + list + ")");
    }
  }
}

const Json& require(const Json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) fail(where, std::string("missing field '") + key + "'");
  return j.at(key);
}

double num_field(const Json& j, const char* key, const std::string& where) {
  return get_number(require(j, key, where), where + "." + key);
}

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

int get_int(const Json& j, const std::string& where) {
  const double v = get_number(j, where);
  if (!std::isfinite(v) || std::floor(v) != v || std::abs(v) > 1e9)
    fail(where, "expected an integer, got " + j.dump());
  return static_cast<int>(v);
}

double num_field_or(const Json& j, const char* key, double dflt, const std::string& where) {
  return j.contains(key) ? get_number(j.at(key), where + "." + key) : dflt;
}

std::string canonical_type(const std::string& t) {
  if (t == "sphere") return "sphere";
  if (t == "superellipsoid" || t == "se") return "superellipsoid";
  if (t == "ellipsoid") return "ellipsoid";
  if (t == "superelliptic_cylinder" || t == "sec") return "superelliptic_cylinder";
  if (t == "smooth_polytope" || t == "poly" || t == "polytope") return "smooth_polytope";
  if (t == "smooth_truncated_cone" || t == "tc") return "smooth_truncated_cone";
  return "";
}

bool is_benchmark_name(const std::string& s) {
  const auto& names = idcol::benchmark_shape_names();
  return std::find(names.begin(), names.end(), s) != names.end();
}

// Input sizes the CLI accepts: the library's face limit, and hull inputs that take well under a second.
constexpr size_t kMaxPolytopeRows = SmoothPolytope::kMaxFaces;
constexpr size_t kMaxHullPoints = 100000;

const char* kTypeList =
    "sphere, superellipsoid (se), ellipsoid, superelliptic_cylinder (sec), smooth_polytope (poly), "
    "smooth_truncated_cone (tc)";

}  // namespace

std::vector<std::string> split(const std::string& s, const std::string& seps) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (seps.find(c) != std::string::npos) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

double parse_double(const std::string& s0, const std::string& what) {
  const std::string s = trim(s0);
  if (s.empty()) throw InputError(what + ": expected a number, got an empty string");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
    throw InputError(what + ": expected a finite number, got '" + s0 + "'");
  return v;
}

ReferenceFrame parse_frame(const std::string& s) {
  if (s == "world") return ReferenceFrame::world;
  if (s == "local") return ReferenceFrame::local;
  if (s == "local_world_aligned") return ReferenceFrame::local_world_aligned;
  throw InputError("--frame: expected world, local or local_world_aligned, got '" + s + "'");
}

long parse_long(const std::string& s0, const std::string& what, long lo, long hi) {
  const std::string s = trim(s0);
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
    throw InputError(what + ": expected an integer, got '" + s0 + "'");
  if (v < lo || v > hi)
    throw InputError(what + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                     s);
  return static_cast<long>(v);
}

Shape parse_shape(const Json& j, const std::string& where) {
  if (j.is_string()) {
    const std::string name = j.get<std::string>();
    if (!is_benchmark_name(name))
      fail(where, "unknown benchmark shape '" + name + "' (expected sphere, ellipsoid, poly, tc, se or sec)");
    return idcol::benchmark_shape(name);
  }
  if (!j.is_object()) fail(where, "a shape is a benchmark name or an object with a \"type\", got " + j.dump());
  const Json& tj = require(j, "type", where);
  if (!tj.is_string()) fail(where, "\"type\" must be a string");
  const std::string type_given = tj.get<std::string>();
  const std::string type = canonical_type(type_given);
  if (type.empty()) fail(where, "unknown shape type '" + type_given + "' (expected " + kTypeList + ")");
  // {"type": "poly"} alone: the benchmark shape of that name.
  if (j.size() == 1) {
    if (is_benchmark_name(type_given)) return idcol::benchmark_shape(type_given);
    if (type == "superellipsoid") return idcol::benchmark_shape("se");
    if (type == "superelliptic_cylinder") return idcol::benchmark_shape("sec");
    if (type == "smooth_polytope") return idcol::benchmark_shape("poly");
    if (type == "smooth_truncated_cone") return idcol::benchmark_shape("tc");
  }
  const std::string w = where + " (" + type + ")";

  if (type == "sphere") {
    check_keys(j, w, {"type", "R"});
    return Sphere(num_field(j, "R", w));
  }
  if (type == "ellipsoid") {
    check_keys(j, w, {"type", "a", "b", "c"});
    return Superellipsoid::ellipsoid(num_field(j, "a", w), num_field(j, "b", w), num_field(j, "c", w));
  }
  if (type == "superellipsoid") {
    check_keys(j, w, {"type", "n", "a", "b", "c", "epsilon"});
    const int n = get_int(require(j, "n", w), w + ".n");
    return Superellipsoid(num_field(j, "a", w), num_field(j, "b", w), num_field(j, "c", w), n,
                          num_field_or(j, "epsilon", Superellipsoid::kDefaultEpsilon, w));
  }
  if (type == "superelliptic_cylinder") {
    check_keys(j, w, {"type", "n", "R", "h", "epsilon"});
    const int n = get_int(require(j, "n", w), w + ".n");
    return SuperellipticCylinder(num_field(j, "R", w), num_field(j, "h", w), n,
                                 num_field_or(j, "epsilon", SuperellipticCylinder::kDefaultEpsilon, w));
  }
  if (type == "smooth_truncated_cone") {
    check_keys(j, w, {"type", "beta", "Rb", "Rt", "a", "b"});
    return SmoothTruncatedCone(num_field(j, "Rb", w), num_field(j, "Rt", w), num_field(j, "a", w),
                               num_field(j, "b", w), num_field(j, "beta", w));
  }
  // smooth_polytope
  check_keys(j, w, {"type", "A", "b", "box", "hull", "beta", "L"});
  const double beta = num_field(j, "beta", w);
  const double L = num_field_or(j, "L", 1.0, w);
  const int forms = int(j.contains("A") || j.contains("b")) + int(j.contains("box")) + int(j.contains("hull"));
  if (forms != 1) fail(w, "give exactly one of {\"A\", \"b\"}, \"box\" or \"hull\"");
  if (j.contains("box")) {
    const Vec3 h = get_vec3(j.at("box"), w + ".box");
    return SmoothPolytope::box(h.x(), h.y(), h.z(), beta, L);
  }
  if (j.contains("hull")) {
    const Json& hj = j.at("hull");
    if (!hj.is_array()) fail(w, "\"hull\" must be an array of [x,y,z] points");
    if (hj.size() > kMaxHullPoints)
      fail(w, "\"hull\" has " + std::to_string(hj.size()) + " points; at most " + std::to_string(kMaxHullPoints) +
                  " are accepted");
    std::vector<Vec3> pts;
    pts.reserve(hj.size());
    for (size_t i = 0; i < hj.size(); ++i) pts.push_back(get_vec3(hj[i], w + ".hull[" + std::to_string(i) + "]"));
    return SmoothPolytope::convex_hull(pts, beta, L);
  }
  const Json& Aj = require(j, "A", w);
  const Json& bj = require(j, "b", w);
  if (!Aj.is_array() || Aj.empty()) fail(w, "\"A\" must be a non-empty array of [a1,a2,a3] rows");
  if (Aj.size() > kMaxPolytopeRows)
    fail(w, "\"A\" has " + std::to_string(Aj.size()) + " rows; at most " + std::to_string(kMaxPolytopeRows) +
                " are accepted (SmoothPolytope::kMaxFaces)");
  if (!bj.is_array() || bj.size() != Aj.size())
    fail(w, "\"b\" must be an array with one number per row of \"A\" (" + std::to_string(Aj.size()) + ")");
  Eigen::MatrixX3d A(Aj.size(), 3);
  Eigen::VectorXd b(bj.size());
  for (size_t i = 0; i < Aj.size(); ++i) {
    A.row(static_cast<Eigen::Index>(i)) = get_vec3(Aj[i], w + ".A[" + std::to_string(i) + "]").transpose();
    b[static_cast<Eigen::Index>(i)] = get_number(bj[i], w + ".b[" + std::to_string(i) + "]");
  }
  return SmoothPolytope(A, b, beta, L);
}

Pose parse_pose(const Json& j, const std::string& where) {
  if (j.is_null()) return Pose::identity();
  if (j.is_array()) {
    if (j.size() != 3 && j.size() != 7)
      fail(where, "a pose array is [x,y,z] or [x,y,z,qw,qx,qy,qz], got " + j.dump());
    double v[7] = {0, 0, 0, 1, 0, 0, 0};
    for (size_t i = 0; i < j.size(); ++i) v[i] = get_number(j[i], where + "[" + std::to_string(i) + "]");
    return Pose::from_quaternion(Vec3(v[0], v[1], v[2]), v[3], v[4], v[5], v[6]);
  }
  if (!j.is_object()) fail(where, "a pose is {\"position\": [x,y,z], \"quaternion\": [w,x,y,z]}, got " + j.dump());
  check_keys(j, where, {"position", "quaternion"});
  const Vec3 p = j.contains("position") ? get_vec3(j.at("position"), where + ".position") : Vec3::Zero();
  double q[4] = {1, 0, 0, 0};
  if (j.contains("quaternion")) {
    const Json& qj = j.at("quaternion");
    if (!qj.is_array() || qj.size() != 4) fail(where, "\"quaternion\" must be [w, x, y, z]");
    for (int i = 0; i < 4; ++i) q[i] = get_number(qj[i], where + ".quaternion[" + std::to_string(i) + "]");
  }
  return Pose::from_quaternion(p, q[0], q[1], q[2], q[3]);
}

idcol::SolveOptions parse_options(const Json& j) {
  idcol::SolveOptions o;
  if (j.is_null()) return o;
  const std::string w = "options";
  if (!j.is_object()) fail(w, "must be an object");
  check_keys(j, w,
             {"tolerance", "max_iterations", "max_attempts", "surrogate_factor", "coincident_tolerance",
              "continuation", "last_resort_iterations"});
  // types here; ranges by the library's own check (the same messages as SolveOptions::validate)
  if (j.contains("tolerance")) o.tolerance = get_number(j.at("tolerance"), w + ".tolerance");
  if (j.contains("max_iterations")) o.max_iterations = get_int(j.at("max_iterations"), w + ".max_iterations");
  if (j.contains("max_attempts")) o.max_attempts = get_int(j.at("max_attempts"), w + ".max_attempts");
  if (j.contains("surrogate_factor")) o.surrogate_factor = get_number(j.at("surrogate_factor"), w + ".surrogate_factor");
  if (j.contains("coincident_tolerance"))
    o.coincident_tolerance = get_number(j.at("coincident_tolerance"), w + ".coincident_tolerance");
  if (j.contains("continuation")) {
    if (!j.at("continuation").is_boolean()) fail(w, "continuation must be true or false");
    o.continuation = j.at("continuation").get<bool>();
  }
  if (j.contains("last_resort_iterations"))
    o.last_resort_iterations = get_int(j.at("last_resort_iterations"), w + ".last_resort_iterations");
  try {
    o.validate();
  } catch (const std::invalid_argument& e) {  // "SolveOptions: <field> must be ..."
    const std::string msg = e.what();
    const auto colon = msg.find(": ");
    fail(w, colon == std::string::npos ? msg : msg.substr(colon + 2));
  }
  return o;
}

Json shape_arg_to_json(const std::string& arg0) {
  const std::string arg = trim(arg0);
  if (arg.empty()) throw InputError("empty shape argument");
  if (arg[0] == '{' || arg[0] == '"') return Json::parse(arg);
  const auto colon = arg.find(':');
  if (colon == std::string::npos) {
    if (is_benchmark_name(arg)) return Json(arg);
    if (!canonical_type(arg).empty()) return Json{{"type", arg}};
    throw InputError("unknown shape '" + arg + "' (expected a benchmark name sphere, ellipsoid, poly, tc, se, "
                     "sec, or type:key=value,...)");
  }
  Json j;
  j["type"] = trim(arg.substr(0, colon));
  const std::string rest = arg.substr(colon + 1);
  if (trim(rest).empty()) return j;
  for (const std::string& kv : split(rest, ",")) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos) throw InputError("shape argument '" + arg + "': expected key=value, got '" + kv + "'");
    const std::string key = trim(kv.substr(0, eq));
    const std::string val = kv.substr(eq + 1);
    if (key.empty()) throw InputError("shape argument '" + arg + "': empty key");
    if (j.contains(key)) throw InputError("shape argument '" + arg + "': '" + key + "' given twice");
    if (val.find_first_of("/;") != std::string::npos) {
      Json a = Json::array();
      for (const std::string& x : split(val, "/;")) a.push_back(parse_double(x, "shape argument " + key));
      j[key] = a;
    } else {
      j[key] = parse_double(val, "shape argument " + key);
    }
  }
  return j;
}

Json pose_arg_to_json(const std::string& arg0) {
  const std::string arg = trim(arg0);
  if (arg.empty()) throw InputError("empty pose argument");
  if (arg[0] == '{' || arg[0] == '[') return Json::parse(arg);
  const auto parts = split(arg, ",");
  if (parts.size() != 3 && parts.size() != 7)
    throw InputError("pose argument '" + arg + "': expected x,y,z or x,y,z,qw,qx,qy,qz");
  Json a = Json::array();
  for (const std::string& p : parts) a.push_back(parse_double(p, "pose argument '" + arg + "'"));
  return a;
}

std::string take_method(std::vector<std::string>& args) {
  std::string method;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    if (take_option(args, i, "--method", v)) {
      if (!method.empty()) throw InputError("--method given twice");
      if (v != "idcol" && v != "qp" && v != "dcol")
        throw InputError("--method: expected idcol (default), qp or dcol, got '" + v + "'");
      method = v;
    } else {
      rest.push_back(args[i]);
    }
  }
  args = std::move(rest);
  return method.empty() ? "idcol" : method;
}

bool take_pair_option(const std::vector<std::string>& args, size_t& i, Json& doc) {
  std::string v;
  for (const char* key : {"shape1", "shape2"})
    if (take_option(args, i, std::string("--") + key, v)) {
      doc[key] = shape_arg_to_json(v);
      return true;
    }
  for (const char* key : {"pose1", "pose2"})
    if (take_option(args, i, std::string("--") + key, v)) {
      doc[key] = pose_arg_to_json(v);
      return true;
    }
  return false;
}

bool take_solver_option(const std::vector<std::string>& args, size_t& i, Json& options) {
  std::string v;
  if (take_option(args, i, "--tolerance", v)) {
    options["tolerance"] = parse_double(v, "--tolerance");
  } else if (take_option(args, i, "--max-iterations", v)) {
    options["max_iterations"] = parse_long(v, "--max-iterations", 1, idcol::SolveOptions::kMaxIterationsLimit);
  } else if (take_option(args, i, "--max-attempts", v)) {
    options["max_attempts"] = parse_long(v, "--max-attempts", 1, idcol::SolveOptions::kMaxAttemptsLimit);
  } else if (take_option(args, i, "--surrogate-factor", v)) {
    options["surrogate_factor"] = parse_double(v, "--surrogate-factor");
  } else if (take_option(args, i, "--last-resort-iterations", v)) {
    options["last_resort_iterations"] = parse_long(v, "--last-resort-iterations", 0,
                                                       idcol::SolveOptions::kLastResortIterationsLimit);
  } else if (args[i] == "--no-continuation") {
    options["continuation"] = false;
  } else {
    return false;
  }
  return true;
}

bool take_option(const std::vector<std::string>& args, size_t& i, const std::string& name, std::string& value) {
  const std::string& a = args[i];
  if (a == name) {
    if (i + 1 >= args.size()) throw InputError("option " + name + " needs a value");
    value = args[++i];
    return true;
  }
  if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=') {
    value = a.substr(name.size() + 1);
    return true;
  }
  return false;
}

}  // namespace diffcol::cli
