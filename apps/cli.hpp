#pragma once
/// @file cli.hpp
/// Internals of the `diffcol` command-line program (not part of the library's API):
/// input parsing (shapes, poses, solver options), the JSON writer and the sub-commands.

#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "diffcol/dcol/primitives.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/qp/shapes.hpp"
#include "diffcol/scene/robot.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/scene/shape_description.hpp"
#include "diffcol/shapes/shape.hpp"

namespace diffcol::cli {

using Json = nlohmann::ordered_json;

/// Exit codes of the program.
enum ExitCode : int {
  kExitOk = 0,
  kExitNotConverged = 1,  ///< `query`: the solver returned not_converged (the result is still printed)
  kExitInvalidInput = 2,  ///< bad command line, bad JSON, unknown shape, invalid parameters
  kExitInternal = 3,      ///< unexpected failure (a bug)
};

/// An error in the user's input (command line or JSON); maps to kExitInvalidInput.
struct InputError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// ------------------------------------------------------------------ parsing

/// JSON fields of the input files: @throws InputError naming `where` (and the key).
[[noreturn]] void fail(const std::string& where, const std::string& msg);
double get_number(const Json& j, const std::string& where);
Vec3 get_vec3(const Json& j, const std::string& where);
/// Rejects keys of j outside `allowed`, listing them.
void check_keys(const Json& j, const std::string& where, std::initializer_list<const char*> allowed);
const Json& require(const Json& j, const char* key, const std::string& where);
double num_field(const Json& j, const char* key, const std::string& where);

/// An iDCOL-only shape (superellipsoid, superelliptic_cylinder, smooth_polytope,
/// smooth_truncated_cone) from {"type": ..., parameters...}, or a benchmark name ("poly", "se",
/// ...). @throws InputError / std::invalid_argument.
Shape parse_idcol_shape(const Json& j, const std::string& where);

/// A shape of the command line's one vocabulary (docs/cli.md, "Shapes") made for a method: the
/// shared kinds of scene::ShapeDescription (sphere, box, cylinder, capsule, ellipsoid, cone,
/// polytope) through scene::make_shape, a method's own shapes, or a benchmark name of the method.
struct MethodShape {
  scene::CollisionShape shape;  ///< of the method's family
  Pose X_GS;                    ///< the shape's frame S in the described frame G (DCOL: folded into `offset`)
};
inline bool is_identity(const Pose& X) { return X.p == Vec3::Zero() && X.R == Mat3::Identity(); }
/// @param j  a benchmark name (string) or an object {"type" (or "shape"): kind, sizes...}
/// @param method idcol, dcol or qp. @throws InputError naming `where`, the shape and the method.
MethodShape make_method_shape(const Json& j, const std::string& where, const std::string& method,
                              const scene::SmoothingOptions& smoothing = {});
/// --smoothing-tolerance T, --beta B, --exponent N (take_option syntax) into smoothing["tolerance"],
/// ["beta"], ["exponent"]. Returns true and advances i when args[i] is one of them.
bool take_smoothing_option(const std::vector<std::string>& args, size_t& i, Json& smoothing);
/// The SmoothingOptions of those flags. @throws InputError when given for a method other than idcol.
scene::SmoothingOptions parse_smoothing(const Json& j, const std::string& method);
/// A pose from {"position": [x,y,z], "quaternion": [w,x,y,z]} (both optional) or a flat array
/// [x,y,z] / [x,y,z,qw,qx,qy,qz]. null means the identity.
Pose parse_pose(const Json& j, const std::string& where);
/// Solver options from {"tolerance": ..., "max_iterations": ..., ...}; null means the defaults.
idcol::SolveOptions parse_options(const Json& j);

/// The JSON value of a --shapeN argument: JSON text if it starts with '{' or '"', otherwise
/// "name" (a string: a benchmark shape) or "kind:key=value,..." (an object; numbers of a vector
/// separated by '/', points by ';': points=0/0/0;1/0/0;...).
Json shape_arg_to_json(const std::string& arg);
/// The JSON value of a --poseN argument: JSON text if it starts with '{' or '[', otherwise
/// "x,y,z" or "x,y,z,qw,qx,qy,qz".
Json pose_arg_to_json(const std::string& arg);

/// A finite double from a whole string (no trailing characters). @throws InputError.
double parse_double(const std::string& s, const std::string& what);
/// An integer in [lo, hi] from a whole string. @throws InputError.
long parse_long(const std::string& s, const std::string& what, long lo, long hi);
/// --frame: world, local or local_world_aligned (ReferenceFrame).
ReferenceFrame parse_frame(const std::string& s);
/// Splits on any of the separator characters (empty fields kept).
std::vector<std::string> split(const std::string& s, const std::string& seps);

// ------------------------------------------------------------------ output

/// Writes j as indented JSON; floating-point numbers with 17 significant digits ("%.17g",
/// exact round trip), non-finite numbers as null, arrays of scalars on one line.
void write_json(std::ostream& os, const Json& j, int indent = 2);
/// A number as the writer prints it.
std::string format_number(double v);
/// v with prec digits after the decimal point ("%.*f"), for the benchmark tables.
std::string fixed(double v, int prec);

Json vec_json(const Vec3& v);
Json pose_json(const Pose& X);
/// Everything of a ContactSolution (see docs/cli.md for the fields).
Json solution_json(const idcol::ContactSolution& s);
/// Everything of a ContactDerivatives: "status", "ok", "layout" (a one-line reminder of the
/// column conventions) and every Jacobian block under its C++ member name as an array of rows.
Json derivatives_json(const idcol::ContactDerivatives& d);
/// The fields of idcol::SolveOptions that the input format's "options" object accepts (so the
/// echo can be fed back as input): tolerance, max_iterations, max_attempts, surrogate_factor,
/// coincident_tolerance, continuation, last_resort_iterations.
Json solve_options_json(const idcol::SolveOptions& o);

// ------------------------------------------------------------------ commands

int cmd_query(const std::vector<std::string>& args);
int cmd_bench(const std::vector<std::string>& args);
/// `diffcol query --method qp` / `--method dcol` and `diffcol bench --method qp|dcol`
/// (apps/layers.cpp): the DiffPills (include/diffcol/qp) and DCOL (include/diffcol/dcol) layers.
/// `args` are the command's arguments without the --method option.
int cmd_query_qp(const std::vector<std::string>& args);
int cmd_query_dcol(const std::vector<std::string>& args);
int cmd_bench_qp(const std::vector<std::string>& args);
int cmd_bench_dcol(const std::vector<std::string>& args);
void print_query_qp_usage(std::ostream& os);
void print_query_dcol_usage(std::ostream& os);
void print_bench_qp_usage(std::ostream& os);
void print_bench_dcol_usage(std::ostream& os);
/// Removes "--method M" / "--method=M" from args and returns M ("idcol" when absent).
/// @throws InputError for a value other than idcol, qp or dcol, or --method given twice.
std::string take_method(std::vector<std::string>& args);
/// The DCOL primitive of a made shape, its X_GS folded into the primitive's offset.
dcol::Primitive method_dcol_shape(const MethodShape& m);
/// The DiffPills shape of a made shape (its X_GS is the caller's: X_WS = X_WG·X_GS).
std::variant<qp::Capsule, qp::PaddedPolygon> method_qp_shape(const MethodShape& m);
/// `diffcol query --scene FILE` / `--urdf FILE`: every close pair of a scene (apps/scene_query.cpp).
int cmd_query_scene(const std::vector<std::string>& args);
void print_query_scene_usage(std::ostream& os);
/// `diffcol view --scene FILE` / `--urdf FILE`: the scene and its close pairs as a page.
int cmd_view_scene(const std::vector<std::string>& args);
/// The options naming a scene and a robot in it (--scene, --urdf, --srdf, --q, --base, --family).
struct SceneInput {
  std::string scene_file, urdf, srdf, q, base, family = "dcol";
};
/// Takes one of SceneInput's options at args[i] (take_option syntax); false if args[i] is none.
bool take_scene_input(const std::vector<std::string>& args, size_t& i, SceneInput& in);
/// Builds the scene file's scene and the robot in it (at --q, --base). @throws InputError.
void build_scene_input(const SceneInput& in, scene::Scene& s, std::unique_ptr<scene::Robot>& robot);
/// A temporary file name ending in .html (a page behind --png without --out).
std::string temporary_page();
/// `diffcol view`: writes the HTML viewer page (apps/view.cpp, docs/viewer.md).
int cmd_view(const std::vector<std::string>& args);
/// `diffcol scene-bench`: scenes, a robot and large hulls against FCL (apps/scene_bench.cpp).
int cmd_scene_bench(const std::vector<std::string>& args);
void print_scene_bench_usage(std::ostream& os);
void print_usage(std::ostream& os);
void print_query_usage(std::ostream& os);
void print_bench_usage(std::ostream& os);
void print_view_usage(std::ostream& os);

/// Fetches the value of an option given as "--name value" or "--name=value".
/// Returns true and advances i when args[i] is that option. @throws InputError if the value is missing.
bool take_option(const std::vector<std::string>& args, size_t& i, const std::string& name, std::string& value);

/// A fixed-size Eigen block as an array of rows (row-major), 1-row blocks included ([[...]]).
template <class M>
Json rows_json(const M& m) {
  Json a = Json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    Json row = Json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(static_cast<double>(m(r, c)));
    a.push_back(row);
  }
  return a;
}

/// --shape1 / --shape2 SPEC and --pose1 / --pose2 POSE (take_option syntax) into doc["shape1"]
/// ... doc["pose2"] as JSON (shape_arg_to_json, pose_arg_to_json). Returns true and advances i
/// when args[i] is one of them.
bool take_pair_option(const std::vector<std::string>& args, size_t& i, Json& doc);

/// The iDCOL solver flags of query and view (--tolerance, --max-iterations, --max-attempts,
/// --surrogate-factor, --no-continuation) into options["tolerance"] ... as JSON (the "options"
/// object of the input format). Returns true and advances i when args[i] is one of them.
bool take_solver_option(const std::vector<std::string>& args, size_t& i, Json& options);

}  // namespace diffcol::cli
