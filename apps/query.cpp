// `diffcol query`: one contact solve for one pair at one pose, printed as JSON.
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/hessians.hpp"

namespace diffcol::cli {

namespace {

template <int N>
Json square_json(const Eigen::Matrix<double, N, N>& m) {
  Json j = Json::array();
  for (int i = 0; i < N; ++i) {
    Json row = Json::array();
    for (int c = 0; c < N; ++c) row.push_back(m(i, c));
    j.push_back(row);
  }
  return j;
}
template <int N>
Json stack_json(const std::array<Eigen::Matrix<double, N, N>, 3>& a) {
  return Json::array({square_json(a[0]), square_json(a[1]), square_json(a[2])});
}

Json hessians_json(const idcol::ContactHessians& h) {
  Json j;
  j["status"] = diffcol::status_name(h.status);
  j["ok"] = h.ok();
  j["frame"] = reference_frame_name(h.frame);
  j["layout"] =
      "H_<out>_X12: d2 f(X_12 exp(xi^))/d xi_a d xi_b (6x6, xi = body twist [omega; v] of body 2 in body 1); "
      "H_<out>: 12x12 Hessian over [twist of body 1 | twist of body 2] in `frame` (world: f(exp(eta1^) X_W1, "
      "exp(eta2^) X_W2)); vectors: one matrix per component; symmetric; all zero unless status is ok";
  j["H_alpha_X12"] = square_json(h.H_alpha_X12);
  j["H_lambda1_X12"] = square_json(h.H_lambda1_X12);
  j["H_lambda2_X12"] = square_json(h.H_lambda2_X12);
  j["H_gap_X12"] = square_json(h.H_gap_X12);
  j["H_x_B1_X12"] = stack_json(h.H_x_B1_X12);
  j["H_p1_B1_X12"] = stack_json(h.H_p1_B1_X12);
  j["H_p2_B1_X12"] = stack_json(h.H_p2_B1_X12);
  j["H_normal_B1_X12"] = stack_json(h.H_normal_B1_X12);
  j["H_alpha"] = square_json(h.H_alpha);
  j["H_lambda1"] = square_json(h.H_lambda1);
  j["H_lambda2"] = square_json(h.H_lambda2);
  j["H_gap"] = square_json(h.H_gap);
  j["H_x_B1"] = stack_json(h.H_x_B1);
  j["H_p1_B1"] = stack_json(h.H_p1_B1);
  j["H_p2_B1"] = stack_json(h.H_p2_B1);
  j["H_normal_B1"] = stack_json(h.H_normal_B1);
  return j;
}

Json shape_derivatives_json(const Shape& s1, const Shape& s2, const idcol::ShapeDerivatives& d) {
  Json j;
  j["status"] = diffcol::status_name(d.status);
  j["ok"] = d.ok();
  Json names = Json::array();
  for (int i = 0; i < d.count1; ++i) names.push_back(std::string("shape1.") + idcol::shape_parameter_name(s1, i));
  for (int i = 0; i < d.count2; ++i) names.push_back(std::string("shape2.") + idcol::shape_parameter_name(s2, i));
  j["parameters"] = names;
  const int n = d.count1 + d.count2;
  const auto row = [n](const auto& r) {
    Json a = Json::array();
    for (int c = 0; c < n; ++c) a.push_back(r(0, c));
    return a;
  };
  const auto rows3 = [n](const auto& m) {
    Json a = Json::array();
    for (int i = 0; i < 3; ++i) {
      Json r = Json::array();
      for (int c = 0; c < n; ++c) r.push_back(m(i, c));
      a.push_back(r);
    }
    return a;
  };
  j["d_alpha"] = row(d.d_alpha);
  j["d_lambda1"] = row(d.d_lambda1);
  j["d_lambda2"] = row(d.d_lambda2);
  j["d_gap"] = row(d.d_gap);
  j["d_x_B1"] = rows3(d.d_x_B1);
  j["d_p1_B1"] = rows3(d.d_p1_B1);
  j["d_p2_B1"] = rows3(d.d_p2_B1);
  j["d_normal_B1"] = rows3(d.d_normal_B1);
  j["d_x_W"] = rows3(d.d_x_W);
  j["d_p1_W"] = rows3(d.d_p1_W);
  j["d_p2_W"] = rows3(d.d_p2_W);
  j["d_normal_W"] = rows3(d.d_normal_W);
  return j;
}

}  // namespace

void print_query_usage(std::ostream& os) {
  os << R"(usage: diffcol query [--json FILE|-] [--shape1 SHAPE] [--shape2 SHAPE]
                     [--pose1 POSE] [--pose2 POSE] [--derivatives] [--hessians]
                     [--shape-derivatives] [solver options]

Solves the iDCOL contact problem for one pair of shapes at one pose (cold start) and
prints the solution as JSON on stdout.

  --method M      idcol (default, everything below), qp (DiffPills capsules and padded
                  polygons: 'diffcol query --method qp --help') or dcol (DCOL primitives:
                  'diffcol query --method dcol --help')
  --scene FILE    every close pair of a scene, --urdf FILE of a robot in it
                  ('diffcol query --scene x --help')

Input
  --json FILE     read {"shape1", "pose1", "shape2", "pose2", "options"} from FILE ('-': stdin);
                  the flags below override the corresponding fields
  --shape1 SHAPE  body 1; SHAPE is a benchmark name (sphere, ellipsoid, poly, tc, se, sec),
  --shape2 SHAPE  type:key=value,... (e.g. sphere:R=1, se:n=8,a=0.5,b=1,c=1.5,
                  poly:box=0.5/1/1.5,beta=20) or inline JSON ('{"type":"sphere","R":1}')
  --pose1 POSE    pose of body 1 in the world (default identity)
  --pose2 POSE    pose of body 2 in the world (default identity);
                  POSE is x,y,z or x,y,z,qw,qx,qy,qz or JSON ({"position":[..],"quaternion":[w,x,y,z]})

Output
  --derivatives   also compute idcol::contact_derivatives and add a "derivatives" object:
                  its status and every Jacobian block J_<out>_<in> (rows of [w; v] twist
                  columns; X1/X2: twists of body 1/2 in --frame, X12: body twist of body 2 in body 1)
  --hessians      also compute idcol::contact_hessians and add a "hessians" object: status,
                  H_<out>_X12 (6x6, body twist of body 2 in body 1) and H_<out> (12x12 over
                  [twist of body 1 | twist of body 2] in --frame) for alpha, lambda1, lambda2, gap,
                  and per component [3][..][..] for x_B1, p1_B1, p2_B1, normal_B1
  --shape-derivatives  also compute idcol::shape_derivatives and add a "shape_derivatives"
                  object: parameter names of both shapes and d_<out> (columns: shape 1's
                  parameters, then shape 2's)
  --frame F       twist of the X1/X2 columns (docs/conventions.md): world (default), local or
                  local_world_aligned

Solver options (defaults of idcol::SolveOptions)
  --tolerance T          residual tolerance on ||f_c|| (1e-10)
  --max-iterations N     Newton iterations per attempt (60)
  --max-attempts N       cold-start attempts (6)
  --surrogate-factor F   surrogate scaling factor f_S >= 1 (1)
  --no-continuation      disable the beta / n continuation fallback
  --last-resort-iterations N  Newton iterations of one more attempt when all failed (2000; 0: none)

Exit status: 0 solved (converged or coincident origins), 1 not converged (result still
printed), 2 invalid input (message on stderr). See docs/cli.md.
)";
}

int cmd_query(const std::vector<std::string>& args0) {
  for (const std::string& a : args0)
    if (a == "--scene" || a == "--urdf" || a.rfind("--scene=", 0) == 0 || a.rfind("--urdf=", 0) == 0)
      return cmd_query_scene(args0);
  std::vector<std::string> args = args0;
  const std::string method = take_method(args);
  if (method == "qp") return cmd_query_qp(args);
  if (method == "dcol") return cmd_query_dcol(args);
  Json doc = Json::object();
  Json cli_options = Json::object();
  bool have_json = false;
  bool with_derivatives = false;
  bool with_hessians = false;
  bool with_shape_derivatives = false;
  ReferenceFrame frame = ReferenceFrame::world;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      print_query_usage(std::cout);
      return kExitOk;
    } else if (take_option(args, i, "--json", v)) {
      if (have_json) throw InputError("--json given twice");
      have_json = true;
      std::string text;
      if (v == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
      } else {
        std::ifstream f(v, std::ios::binary);
        if (!f) throw InputError("cannot open input file '" + v + "'");
        std::ostringstream ss;
        ss << f.rdbuf();
        text = ss.str();
      }
      Json file;
      try {
        file = Json::parse(text);
      } catch (const nlohmann::json::parse_error& e) {
        throw InputError("invalid JSON in '" + v + "': " + e.what());
      }
      if (!file.is_object()) throw InputError("the --json input must be an object {\"shape1\": ..., ...}");
      for (auto it = file.begin(); it != file.end(); ++it) {
        const std::string& k = it.key();
        if (k != "shape1" && k != "shape2" && k != "pose1" && k != "pose2" && k != "options")
          throw InputError("input: unknown field '" + k + "' (allowed: shape1, pose1, shape2, pose2, options)");
        if (!doc.contains(k)) doc[k] = it.value();  // command-line flags seen earlier win
      }
    } else if (take_pair_option(args, i, doc)) {
    } else if (take_solver_option(args, i, cli_options)) {
    } else if (a == "--derivatives") {
      with_derivatives = true;
    } else if (a == "--hessians") {
      with_hessians = true;
    } else if (a == "--shape-derivatives") {
      with_shape_derivatives = true;
    } else if (std::string v; take_option(args, i, "--frame", v)) {
      frame = parse_frame(v);
    } else {
      throw InputError("query: unknown argument '" + a + "' (see diffcol query --help)");
    }
  }
  if (!doc.contains("shape1") || !doc.contains("shape2"))
    throw InputError("query: both shapes are required (--shape1 and --shape2, or --json FILE)");

  Json options = doc.contains("options") ? doc["options"] : Json::object();
  if (!options.is_object()) throw InputError("options: must be an object");
  for (auto it = cli_options.begin(); it != cli_options.end(); ++it) options[it.key()] = it.value();

  const Shape s1 = parse_shape(doc["shape1"], "shape1");
  const Shape s2 = parse_shape(doc["shape2"], "shape2");
  const Pose X1 = parse_pose(doc.contains("pose1") ? doc["pose1"] : Json(), "pose1");
  const Pose X2 = parse_pose(doc.contains("pose2") ? doc["pose2"] : Json(), "pose2");
  const idcol::SolveOptions opt = parse_options(options);

  const idcol::ContactSolution sol = idcol::solve_contact(s1, X1, s2, X2, opt);

  Json out = solution_json(sol);
  if (with_derivatives) out["derivatives"] = derivatives_json(idcol::contact_derivatives(sol, frame));
  if (with_hessians) out["hessians"] = hessians_json(idcol::contact_hessians(s1, s2, sol, frame));
  if (with_shape_derivatives) out["shape_derivatives"] = shape_derivatives_json(s1, s2, idcol::shape_derivatives(s1, s2, sol));
  Json in;
  in["shape1"] = s1.describe();
  in["pose1"] = pose_json(X1);
  in["shape2"] = s2.describe();
  in["pose2"] = pose_json(X2);
  in["options"] = solve_options_json(opt);
  out["input"] = in;
  write_json(std::cout, out);
  std::cout.flush();
  if (sol.status == diffcol::SolveStatus::not_converged) return kExitNotConverged;
  if (sol.status == diffcol::SolveStatus::invalid_input) return kExitInvalidInput;
  return kExitOk;
}

}  // namespace diffcol::cli
