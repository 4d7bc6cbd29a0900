// `diffcol query --method qp|dcol` and `diffcol bench --method qp|dcol`: the DiffPills
// (include/diffcol/qp) and DCOL (include/diffcol/dcol) layers from the command line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <variant>

#include <unistd.h>

#include "cli.hpp"
#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/dcol/hessians.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"
#include "diffcol/qp/proximity_hessians.hpp"
#include "host_info.hpp"
#include "timing.hpp"

namespace diffcol::cli {
namespace {

using qp::ReferenceFrame;


std::string num(double v) {
  std::ostringstream os;
  os << v + 0.0;  // -0 prints as 0
  return os.str();
}


// ============================================================== QP (DiffPills) shapes

using QpShape = std::variant<qp::Capsule, qp::PaddedPolygon>;

/// The shapes of bench/qp_benchmarks.cpp: capsule L = 2, R = 0.5; regular hexagon of
/// circumradius 1 padded by 0.2.
qp::Capsule qp_bench_capsule() { return qp::Capsule(0.5, 2.0); }
qp::PaddedPolygon qp_bench_polygon() {
  std::vector<qp::Vec2> v;
  for (int k = 0; k < 6; ++k) v.emplace_back(std::cos(k * M_PI / 3), std::sin(k * M_PI / 3));
  return qp::PaddedPolygon::from_vertices(v, 0.2);
}

std::string describe(const qp::Capsule& c) {
  const Vec3 a = c.a_B(), b = c.b_B();
  return "capsule(a=" + num(a.x()) + "/" + num(a.y()) + "/" + num(a.z()) + ", b=" + num(b.x()) + "/" + num(b.y()) +
         "/" + num(b.z()) + ", radius=" + num(c.radius()) + ")";
}
std::string describe(const qp::PaddedPolygon& p) {
  std::string s = "padded_polygon(vertices=";
  for (size_t i = 0; i < p.vertices().size(); ++i) {
    if (i) s += ';';
    s += num(p.vertices()[i].x());
    s += '/';
    s += num(p.vertices()[i].y());
  }
  return s + ", radius=" + num(p.radius()) + ")";
}
std::string describe(const QpShape& s) {
  return std::visit([](const auto& x) { return describe(x); }, s);
}

double qp_inner(const qp::Capsule& c) { return c.radius(); }
double qp_outer(const qp::Capsule& c) { return c.half_length() + c.radius(); }
double qp_inner(const qp::PaddedPolygon& p) { return p.radius(); }
double qp_outer(const qp::PaddedPolygon& p) { return p.core_radius() + p.radius(); }

Json qp_result_json(const qp::ProximityResult& r) {
  Json j;
  j["status"] = diffcol::status_name(r.status);
  j["ok"] = r.ok();
  j["phi"] = r.phi;
  j["signed_distance"] = r.signed_distance;
  j["core_distance"] = r.core_distance;
  j["p1_W"] = vec_json(r.p1_W);
  j["p2_W"] = vec_json(r.p2_W);
  j["core1_W"] = vec_json(r.core1_W);
  j["core2_W"] = vec_json(r.core2_W);
  j["core1_B1"] = vec_json(r.core1_B1);
  j["core2_B2"] = vec_json(r.core2_B2);
  j["normal_W"] = vec_json(r.normal_W);
  j["cores_touch"] = r.cores_touch;
  j["unique_minimizer"] = r.unique_minimizer;
  j["penetration"] = r.penetration;
  j["core_distance_lower_bound"] = r.core_distance_lower_bound;
  j["length_unit"] = r.length_unit;
  Json q;
  q["variables"] = r.qp.n;
  q["constraints"] = r.qp.m;
  q["x"] = Json::array();
  for (int i = 0; i < r.qp.n; ++i) q["x"].push_back(r.qp.x[i]);
  q["interior_point"] = r.qp.interior_point;
  q["iterations"] = r.qp.iterations;
  q["polished"] = r.qp.polished;
  j["qp"] = q;
  return j;
}

Json qp_derivatives_json(const qp::ProximityDerivatives& d) {
  Json j;
  j["status"] = diffcol::status_name(d.status);
  j["ok"] = d.status == diffcol::DerivativeStatus::ok;
  j["frame"] = reference_frame_name(d.frame);
  j["layout"] =
      "J_<out>_<in>: rows = components of <out>, 6 columns = twist of pose <in> ordered [omega; v]; "
      "frame world: X_Wi <- exp(eta^) X_Wi; local: X_Wi <- X_Wi exp(zeta^); local_world_aligned: omega and the "
      "velocity of the body origin in world axes; all blocks zero when status is "
      "solve_failed";
#define DIFFCOL_BLOCK(name) j[#name] = rows_json(d.name)
  DIFFCOL_BLOCK(J_phi_X1);
  DIFFCOL_BLOCK(J_phi_X2);
  DIFFCOL_BLOCK(J_signed_distance_X1);
  DIFFCOL_BLOCK(J_signed_distance_X2);
  DIFFCOL_BLOCK(J_core1_W_X1);
  DIFFCOL_BLOCK(J_core1_W_X2);
  DIFFCOL_BLOCK(J_core2_W_X1);
  DIFFCOL_BLOCK(J_core2_W_X2);
  DIFFCOL_BLOCK(J_p1_W_X1);
  DIFFCOL_BLOCK(J_p1_W_X2);
  DIFFCOL_BLOCK(J_p2_W_X1);
  DIFFCOL_BLOCK(J_p2_W_X2);
  DIFFCOL_BLOCK(J_normal_W_X1);
  DIFFCOL_BLOCK(J_normal_W_X2);
#undef DIFFCOL_BLOCK
  return j;
}

Json qp_hessians_json(const qp::ProximityHessians& h) {
  Json j;
  j["status"] = diffcol::status_name(h.status);
  j["ok"] = h.ok();
  j["frame"] = reference_frame_name(h.frame);
  j["layout"] =
      "H_<out>: 12x12 Hessian over [twist of body 1 | twist of body 2] in `frame` (world: f(exp(eta1^) X_W1, "
      "exp(eta2^) X_W2)); vectors: one matrix per world component [3][12][12]; symmetric; with cores_touch only "
      "H_phi and the core witness points are set; all zero when status is solve_failed or invalid_input";
  j["H_phi"] = rows_json(h.H_phi);
  j["H_signed_distance"] = rows_json(h.H_signed_distance);
  auto stack = [](const std::array<qp::Mat12, 3>& a) {
    return Json::array({rows_json(a[0]), rows_json(a[1]), rows_json(a[2])});
  };
  j["H_core1_W"] = stack(h.H_core1_W);
  j["H_core2_W"] = stack(h.H_core2_W);
  j["H_p1_W"] = stack(h.H_p1_W);
  j["H_p2_W"] = stack(h.H_p2_W);
  j["H_normal_W"] = stack(h.H_normal_W);
  return j;
}

template <class S1, class S2>
Json qp_shape_derivatives_json(const S1& s1, const S2& s2, const qp::ProximityShapeDerivatives& d) {
  Json j;
  j["status"] = diffcol::status_name(d.status);
  j["ok"] = d.ok();
  Json names1 = Json::array(), names2 = Json::array();
  for (int i = 0; i < d.count1; ++i) names1.push_back(qp::proximity_shape_parameter_name(s1, i));
  for (int i = 0; i < d.count2; ++i) names2.push_back(qp::proximity_shape_parameter_name(s2, i));
  j["parameters1"] = names1;
  j["parameters2"] = names2;
  j["layout"] =
      "d_<out>: rows = components of <out>, columns = parameters1 then parameters2 (polygon C and d: the stored "
      "unit-row constraints)";
  j["d_phi"] = rows_json(d.d_phi);
  j["d_signed_distance"] = rows_json(d.d_signed_distance);
  j["d_core1_W"] = rows_json(d.d_core1_W);
  j["d_core2_W"] = rows_json(d.d_core2_W);
  j["d_p1_W"] = rows_json(d.d_p1_W);
  j["d_p2_W"] = rows_json(d.d_p2_W);
  j["d_normal_W"] = rows_json(d.d_normal_W);
  return j;
}

// ============================================================== DCOL shapes

std::string describe(const dcol::Primitive& p) {
  return std::visit(
      [](const auto& s) -> std::string {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, dcol::Polytope>) return "polytope(" + std::to_string(s.num_faces) + " faces)";
        else if constexpr (std::is_same_v<T, dcol::Capsule>) return "capsule(R=" + num(s.R) + ", L=" + num(s.L) + ")";
        else if constexpr (std::is_same_v<T, dcol::Cylinder>) return "cylinder(R=" + num(s.R) + ", L=" + num(s.L) + ")";
        else if constexpr (std::is_same_v<T, dcol::Cone>) return "cone(H=" + num(s.H) + ", beta=" + num(s.beta) + ")";
        else if constexpr (std::is_same_v<T, dcol::Ellipsoid>) return "ellipsoid";
        else if constexpr (std::is_same_v<T, dcol::PaddedPolygon>)
          return "padded_polygon(" + std::to_string(s.num_edges) + " edges, R=" + num(s.R) + ")";
        else return "sphere(R=" + num(s.R) + ")";
      },
      p);
}

Json dcol_result_json(const dcol::ContactResult& r) {
  Json j;
  j["status"] = diffcol::status_name(r.status);
  j["ok"] = r.ok();
  j["iterations"] = r.iterations;
  j["alpha"] = r.alpha;
  j["x_W"] = vec_json(r.x_W);
  j["p1_W"] = vec_json(r.p1_W);
  j["p2_W"] = vec_json(r.p2_W);
  j["gap"] = r.gap;
  j["normal_W"] = vec_json(dcol::separating_normal(r));
  j["polished"] = r.kkt.polished;
  j["start"] = dcol::start_method_name(r.start);
  j["duality_measure"] = r.duality_measure;
  j["primal_residual"] = r.primal_residual;
  j["dual_residual"] = r.dual_residual;
  j["certificate_gap"] = r.certificate_gap;
  j["X_WS1"] = pose_json(r.X_WS1);
  j["X_WS2"] = pose_json(r.X_WS2);
  return j;
}

Json dcol_derivatives_json(const dcol::ContactDerivatives& d, const dcol::NormalDerivatives& n) {
  Json j;
  j["status"] = diffcol::status_name(d.status);
  j["ok"] = d.ok();
  j["frame"] = reference_frame_name(d.frame);
  j["layout"] =
      "J_<out>_<in>: rows = components of <out>, 6 columns = twist of <in> ordered [omega; v]; X1, X2 = "
      "twist of body 1, body 2 in `frame` (world: X_WBi <- exp(eta^) X_WBi); X12 = body twist of body 2 relative to body 1; all "
      "blocks zero unless status is ok";
#define DIFFCOL_BLOCK(name) j[#name] = rows_json(d.name)
  DIFFCOL_BLOCK(J_alpha_X12);
  DIFFCOL_BLOCK(J_alpha_X1);
  DIFFCOL_BLOCK(J_alpha_X2);
  DIFFCOL_BLOCK(J_gap_X1);
  DIFFCOL_BLOCK(J_gap_X2);
  DIFFCOL_BLOCK(J_x_W_X1);
  DIFFCOL_BLOCK(J_x_W_X2);
  DIFFCOL_BLOCK(J_p1_W_X1);
  DIFFCOL_BLOCK(J_p1_W_X2);
  DIFFCOL_BLOCK(J_p2_W_X1);
  DIFFCOL_BLOCK(J_p2_W_X2);
#undef DIFFCOL_BLOCK
  // the separating normal's derivatives (dcol::normal_derivatives), zero unless normal_status is ok
  j["normal_status"] = diffcol::status_name(n.status);
  j["J_normal_W_X1"] = rows_json(n.J_normal_W_X1);
  j["J_normal_W_X2"] = rows_json(n.J_normal_W_X2);
  return j;
}

Json dcol_hessians_json(const dcol::ContactHessians& h) {
  Json j;
  j["status"] = diffcol::status_name(h.status);
  j["ok"] = h.ok();
  j["frame"] = reference_frame_name(h.frame);
  j["layout"] =
      "H_alpha, H_gap: 12x12 Hessian over [twist of body 1 | twist of body 2] in `frame` (world: f(exp(eta1^) X_WB1, "
      "exp(eta2^) X_WB2)); vectors: one matrix per world component [3][12][12]; H_alpha_X12: 6x6 over the body "
      "twist of X_12; symmetric; exact on the polished active set (one-sided at a feature switch); all zero unless "
      "status is ok (singular: an unpolished solution)";
  j["H_alpha"] = rows_json(h.H_alpha);
  j["H_gap"] = rows_json(h.H_gap);
  j["H_alpha_X12"] = rows_json(h.H_alpha_X12);
  auto stack = [](const std::array<dcol::Mat12, 3>& a) {
    return Json::array({rows_json(a[0]), rows_json(a[1]), rows_json(a[2])});
  };
  j["H_x_W"] = stack(h.H_x_W);
  j["H_p1_W"] = stack(h.H_p1_W);
  j["H_p2_W"] = stack(h.H_p2_W);
  j["H_normal_W"] = stack(h.H_normal_W);
  return j;
}

/// The d_<out> blocks of dcol::ShapeDerivatives or dcol::SparseShapeDerivatives (same names).
template <class D>
void put_parameter_blocks(const D& d, Json& j) {
  j["d_alpha"] = rows_json(d.d_alpha);
  j["d_gap"] = rows_json(d.d_gap);
  j["d_x_W"] = rows_json(d.d_x_W);
  j["d_p1_W"] = rows_json(d.d_p1_W);
  j["d_p2_W"] = rows_json(d.d_p2_W);
  j["d_normal_W"] = rows_json(d.d_normal_W);
}

Json dcol_shape_derivatives_json(const dcol::Primitive& s1, const dcol::Primitive& s2,
                                 const dcol::ShapeDerivatives& d) {
  Json j;
  j["status"] = diffcol::status_name(d.status);
  j["ok"] = d.ok();
  Json names1 = Json::array(), names2 = Json::array();
  for (int i = 0; i < d.count1; ++i) names1.push_back(dcol::shape_parameter_name(s1, i));
  for (int i = 0; i < d.count2; ++i) names2.push_back(dcol::shape_parameter_name(s2, i));
  j["parameters1"] = names1;
  j["parameters2"] = names2;
  j["layout"] =
      "d_<out>: rows = components of <out>, columns = parameters1 then parameters2 (polytope A and b, polygon C "
      "and d: the stored unit-row constraints); all zero unless status is ok";
  put_parameter_blocks(d, j);
  return j;
}

/// The sparse form (dcol::sparse_shape_derivatives), for a polytope above 32 faces: the columns
/// are the touched parameters only, listed in "parameters" as {"shape", "index", "name"}.
Json dcol_sparse_shape_derivatives_json(const dcol::Primitive& s1, const dcol::Primitive& s2,
                                        const dcol::SparseShapeDerivatives& d) {
  Json j;
  j["status"] = diffcol::status_name(d.status);
  j["ok"] = d.ok();
  j["sparse"] = true;
  j["count1"] = d.count1;
  j["count2"] = d.count2;
  Json params = Json::array();
  for (int c = 0; c < d.touched; ++c) {
    const int g = d.parameter[static_cast<size_t>(c)];
    const bool first = g < d.count1;
    const int i = first ? g : g - d.count1;
    params.push_back(
        Json{{"shape", first ? 1 : 2}, {"index", i}, {"name", dcol::shape_parameter_name(first ? s1 : s2, i)}});
  }
  j["parameters"] = params;
  j["layout"] =
      "sparse (a polytope above 32 faces): d_<out>: rows = components of <out>, columns = the touched parameters "
      "listed in parameters (every other parameter's derivatives are zero); no columns unless status is ok";
  put_parameter_blocks(d, j);
  return j;
}

// ============================================================== shared option scanning

struct LayerQueryArgs {
  std::string shape1, shape2;
  Pose X1 = Pose::identity(), X2 = Pose::identity();
  bool derivatives = false;
  bool hessians = false, shape_derivatives = false;
  ReferenceFrame frame = ReferenceFrame::world;
  long max_iterations = -1;  // dcol only
};


LayerQueryArgs scan_query(const std::vector<std::string>& args, const char* method, void (*usage)(std::ostream&),
                          bool& help) {
  LayerQueryArgs q;
  help = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      usage(std::cout);
      help = true;
      return q;
    } else if (take_option(args, i, "--shape1", v)) {
      q.shape1 = v;
    } else if (take_option(args, i, "--shape2", v)) {
      q.shape2 = v;
    } else if (take_option(args, i, "--pose1", v)) {
      q.X1 = parse_pose(pose_arg_to_json(v), "pose1");
    } else if (take_option(args, i, "--pose2", v)) {
      q.X2 = parse_pose(pose_arg_to_json(v), "pose2");
    } else if (a == "--derivatives") {
      q.derivatives = true;
    } else if (a == "--hessians") {
      q.hessians = true;
    } else if (a == "--shape-derivatives") {
      q.shape_derivatives = true;
    } else if (take_option(args, i, "--frame", v)) {
      q.frame = parse_frame(v);
    } else if (Json sm; take_smoothing_option(args, i, sm)) {
      parse_smoothing(sm, method);  // the shapes are exact: says so
    } else if (std::string(method) == "dcol" && take_option(args, i, "--max-iterations", v)) {
      q.max_iterations = parse_long(v, "--max-iterations", 1, 100000);
    } else {
      throw InputError(std::string("query --method ") + method + ": unknown argument '" + a +
                       "' (see diffcol query --method " + method + " --help)");
    }
  }
  if (q.shape1.empty() || q.shape2.empty())
    throw InputError(std::string("query --method ") + method + ": both shapes are required (--shape1, --shape2)");
  return q;
}

}  // namespace

// ============================================================== usage

void print_query_qp_usage(std::ostream& os) {
  os << R"(usage: diffcol query --method qp --shape1 SHAPE --shape2 SHAPE [--pose1 POSE] [--pose2 POSE]
                     [--derivatives] [--hessians] [--shape-derivatives]
                     [--frame world|local|local_world_aligned]

DiffPills proximity (include/diffcol/qp) between capsules and padded polygons: the QP of the
two cores, phi = |p1 - p2|^2 - (R1 + R2)^2 (eq. (20)), the signed distance, witness points
on the cores, closest points on the padded surfaces (eq. (21)-(22)) and the normal, as JSON.

  SHAPE  as for every method ('diffcol help query'): of those, the qp shapes are
         sphere:radius=R                   a capsule of length 0
         capsule:radius=R,length=L         core of full length L along body z, centred
         capsule:a=x/y/z;b=x/y/z;radius=R  core from b to a (body frame)
         padded_polygon:half_x=HX,half_y=HY,radius=R  padded rectangle in the body x-y plane
         polygon:vertices=x1/y1;x2/y2;...;radius=R  padded convex polygon, vertices
                                           counter-clockwise in the body x-y plane (3..16)
         capsule, polygon                  the benchmark shapes (L = 2 along x, R = 0.5;
                                           hexagon of circumradius 1, R = 0.2)
  POSE   x,y,z or x,y,z,qw,qx,qy,qz or JSON, as for the default method
  --derivatives   add qp::proximity_derivatives: every block J_<out>_X1 / J_<out>_X2
  --hessians      add qp::proximity_hessians: H_<out> (12x12 over [twist of body 1 | twist
                  of body 2] in --frame) for phi, signed_distance, and per world component
                  [3][..][..] for core1_W, core2_W, p1_W, p2_W, normal_W
  --shape-derivatives  add qp::proximity_shape_derivatives: parameter names of both shapes
                  (capsule: radius, length; polygon: radius, d[i], C[i][j]) and d_<out>
  --frame F       twist of the derivative columns (docs/conventions.md): world (default),
                  local or local_world_aligned
)";
}

void print_query_dcol_usage(std::ostream& os) {
  os << R"(usage: diffcol query --method dcol --shape1 SHAPE --shape2 SHAPE [--pose1 POSE] [--pose2 POSE]
                     [--derivatives] [--hessians] [--shape-derivatives]
                     [--frame world|local|local_world_aligned] [--max-iterations N]

DCOL (include/diffcol/dcol): the minimum uniform scaling alpha at which two convex primitives
intersect (cone program, seed eq. (9)), the intersection point x_W, the contact points p1_W,
p2_W (eq. (29)) and the signed distance (eq. (30)), as JSON.

  SHAPE  as for every method ('diffcol help query'), exact: sphere, box, cylinder, capsule,
         ellipsoid, cone, polytope, padded_polygon:half_x=..,half_y=..,radius=..; or a
         benchmark primitive: polytope, capsule, cylinder, cone, ellipsoid, padded_polygon,
         sphere. The pose is the body's; a cylinder, capsule or cone along z is DCOL's along x
         at the offset X_WS1 of the output.
  --derivatives       add dcol::contact_derivatives: every block J_<out>_<X1|X2|X12>
  --hessians          add dcol::contact_hessians: H_alpha, H_gap (12x12 over [twist of body 1 |
                      twist of body 2] in --frame), per world component [3][..][..] H_x_W,
                      H_p1_W, H_p2_W, H_normal_W, and H_alpha_X12 (6x6)
  --shape-derivatives add dcol::shape_derivatives: parameter names of both primitives and d_<out>
                      for alpha, gap, x_W, p1_W, p2_W, normal_W (with a polytope above 32 faces
                      the sparse form: the touched parameters only)
  --frame F           twist of the X1 / X2 columns: world (default), local or local_world_aligned
  --max-iterations N  interior-point iteration limit (default 40)
)";
}

// ============================================================== query

int cmd_query_qp(const std::vector<std::string>& args) {
  bool help = false;
  const LayerQueryArgs q = scan_query(args, "qp", print_query_qp_usage, help);
  if (help) return kExitOk;
  const MethodShape m1 = make_method_shape(shape_arg_to_json(q.shape1), "shape1", "qp");
  const MethodShape m2 = make_method_shape(shape_arg_to_json(q.shape2), "shape2", "qp");
  const QpShape s1 = method_qp_shape(m1), s2 = method_qp_shape(m2);
  // a capsule along z (the vocabulary's axis) is the layer's capsule along x at X_WG·X_GS
  const Pose X_WS1 = q.X1 * m1.X_GS, X_WS2 = q.X2 * m2.X_GS;
  const bool offset = !is_identity(m1.X_GS) || !is_identity(m2.X_GS);
  if (offset && q.hessians && q.frame != ReferenceFrame::world)
    throw InputError("query: --hessians of a capsule along z or a polytope (their QP frame is not the given one) "
                     "need --frame world");
  qp::ProximityResult r;
  qp::ProximityDerivatives d;
  const qp::ProximityOptions opt;
  Json hess, shape;
  std::visit(
      [&](const auto& a, const auto& b) {
        qp::proximity(a, X_WS1, b, X_WS2, opt, r);
        if (q.derivatives)
          qp::proximity_derivatives(a, X_WS1, b, X_WS2, r, d, offset ? ReferenceFrame::world : q.frame);
        if (q.hessians) {  // world twists of X_WS are those of the given pose (X_WS = X_W·X_GS)
          auto h = std::make_unique<qp::ProximityHessians>();
          qp::proximity_hessians(a, X_WS1, b, X_WS2, r, *h, q.frame);
          hess = qp_hessians_json(*h);
        }
        if (q.shape_derivatives) {
          auto sd = std::make_unique<qp::ProximityShapeDerivatives>();
          qp::proximity_shape_derivatives(a, X_WS1, b, X_WS2, r, *sd);
          shape = qp_shape_derivatives_json(a, b, *sd);
        }
      },
      s1, s2);
  if (q.derivatives && offset && q.frame != ReferenceFrame::world) {  // columns: twists of the given poses
#define DIFFCOL_EXPRESS(name, X) express_in_frame(d.name, q.frame, X)
    DIFFCOL_EXPRESS(J_phi_X1, q.X1);
    DIFFCOL_EXPRESS(J_phi_X2, q.X2);
    DIFFCOL_EXPRESS(J_signed_distance_X1, q.X1);
    DIFFCOL_EXPRESS(J_signed_distance_X2, q.X2);
    DIFFCOL_EXPRESS(J_core1_W_X1, q.X1);
    DIFFCOL_EXPRESS(J_core1_W_X2, q.X2);
    DIFFCOL_EXPRESS(J_core2_W_X1, q.X1);
    DIFFCOL_EXPRESS(J_core2_W_X2, q.X2);
    DIFFCOL_EXPRESS(J_p1_W_X1, q.X1);
    DIFFCOL_EXPRESS(J_p1_W_X2, q.X2);
    DIFFCOL_EXPRESS(J_p2_W_X1, q.X1);
    DIFFCOL_EXPRESS(J_p2_W_X2, q.X2);
    DIFFCOL_EXPRESS(J_normal_W_X1, q.X1);
    DIFFCOL_EXPRESS(J_normal_W_X2, q.X2);
#undef DIFFCOL_EXPRESS
    d.frame = q.frame;
  }
  Json out;
  out["method"] = "qp";
  const Json res = qp_result_json(r);
  for (auto it = res.begin(); it != res.end(); ++it) out[it.key()] = it.value();
  if (q.derivatives) out["derivatives"] = qp_derivatives_json(d);
  if (q.hessians) out["hessians"] = hess;
  if (q.shape_derivatives) out["shape_derivatives"] = shape;
  Json in;
  in["shape1"] = describe(s1);
  in["pose1"] = pose_json(q.X1);
  if (!is_identity(m1.X_GS)) in["X_GS1"] = pose_json(m1.X_GS);
  in["shape2"] = describe(s2);
  in["pose2"] = pose_json(q.X2);
  if (!is_identity(m2.X_GS)) in["X_GS2"] = pose_json(m2.X_GS);
  out["input"] = in;
  write_json(std::cout, out);
  std::cout.flush();
  if (r.status == diffcol::SolveStatus::invalid_input) return kExitInvalidInput;
  if (!r.ok()) return kExitNotConverged;
  return kExitOk;
}

int cmd_query_dcol(const std::vector<std::string>& args) {
  bool help = false;
  const LayerQueryArgs q = scan_query(args, "dcol", print_query_dcol_usage, help);
  if (help) return kExitOk;
  // the shapes' frames X_GS ride in the primitives' offsets: the poses are the bodies'
  const dcol::Primitive s1 = method_dcol_shape(make_method_shape(shape_arg_to_json(q.shape1), "shape1", "dcol"));
  const dcol::Primitive s2 = method_dcol_shape(make_method_shape(shape_arg_to_json(q.shape2), "shape2", "dcol"));
  dcol::SolveOptions opt;
  if (q.max_iterations > 0) opt.max_iterations = static_cast<int>(q.max_iterations);
  auto r = std::make_unique<dcol::ContactResult>();  // large (KKT storage): keep it off the stack
  dcol::solve_contact(s1, q.X1, s2, q.X2, *r, opt);
  Json out;
  out["method"] = "dcol";
  const Json res = dcol_result_json(*r);
  for (auto it = res.begin(); it != res.end(); ++it) out[it.key()] = it.value();
  if (q.derivatives) {
    auto d = std::make_unique<dcol::ContactDerivatives>();
    dcol::contact_derivatives(*r, *d, q.frame);
    out["derivatives"] = dcol_derivatives_json(*d, dcol::normal_derivatives(*r, q.frame));
  }
  if (q.hessians) {
    auto h = std::make_unique<dcol::ContactHessians>();
    dcol::contact_hessians(*r, *h, q.frame);
    out["hessians"] = dcol_hessians_json(*h);
  }
  if (q.shape_derivatives) {
    const auto large = [](const dcol::Primitive& s) {
      const auto* p = std::get_if<dcol::Polytope>(&s);
      return p && p->is_large();
    };
    if (large(s1) || large(s2)) {  // no column per parameter above 32 faces: the touched ones
      auto sd = std::make_unique<dcol::SparseShapeDerivatives>();
      dcol::sparse_shape_derivatives(s1, s2, *r, *sd);
      out["shape_derivatives"] = dcol_sparse_shape_derivatives_json(s1, s2, *sd);
    } else {
      auto sd = std::make_unique<dcol::ShapeDerivatives>();
      dcol::shape_derivatives(s1, s2, *r, *sd);
      out["shape_derivatives"] = dcol_shape_derivatives_json(s1, s2, *sd);
    }
  }
  Json in;
  in["shape1"] = describe(s1);
  in["pose1"] = pose_json(q.X1);
  in["shape2"] = describe(s2);
  in["pose2"] = pose_json(q.X2);
  in["max_iterations"] = opt.max_iterations;
  out["input"] = in;
  write_json(std::cout, out);
  std::cout.flush();
  if (r->status == diffcol::SolveStatus::invalid_input) return kExitInvalidInput;
  if (r->status == diffcol::SolveStatus::not_converged || r->status == diffcol::SolveStatus::numerical_error)
    return kExitNotConverged;
  return kExitOk;
}

// ============================================================== bench

void print_bench_qp_usage(std::ostream& os) {
  os << R"(usage: diffcol bench --method qp [--poses N | --quick] [--repeat R] [--json] [--progress]

Times DiffPills proximity (qp::proximity) and, separately, its derivatives
(qp::proximity_derivatives, world twists; qp::proximity_hessians, every output; and
qp::proximity_shape_derivatives, each on stored results of the same poses) for the pairs
capsule-capsule, polygon-polygon and capsule-polygon (capsule L = 2, R = 0.5; hexagon of
circumradius 1 padded by 0.2, as in bench/qp_benchmarks.cpp). Body 1 at the identity,
body 2 at the ergodic sweep idcol::ErgodicSweep with rmin = 0.1 min(padding radii),
rmax = 2 max(bounding radii).

  --poses N    poses per pair (default 100000)
  --quick      10000 poses per pair (unless --poses is given)
  --repeat R   run the whole sweep R times (default 1); per pair, the lowest evaluate and
               derivative means (best of R)
  --json       machine-readable JSON on stdout instead of the table
  --progress   per-pair progress on stderr (default: when stderr is a terminal)
)";
}

void print_bench_dcol_usage(std::ostream& os) {
  os << R"(usage: diffcol bench --method dcol [--shapes LIST] [--poses N | --quick] [--repeat R] [--json]
                                 [--progress]

Times DCOL (dcol::solve_contact, cold start) and, separately, dcol::contact_derivatives,
dcol::contact_hessians and dcol::shape_derivatives (each on stored results of the same poses)
for every ordered pair of the DCOL benchmark primitives. Body 1 at the identity, body 2 at the ergodic sweep
idcol::ErgodicSweep with rmin = 0.1 min(inner radii), rmax = 2 max(outer radii).

  --shapes LIST  comma-separated subset of polytope,capsule,cylinder,cone,ellipsoid,
                 padded_polygon,sphere (default: all seven, 49 ordered pairs)
  --poses N      poses per pair (default 10000)
  --quick        1000 poses per pair (unless --poses is given)
  --repeat R     run the whole sweep R times (default 1); per pair, the lowest evaluate and
                 derivative means (best of R: a burst of load on a shared machine spoils one run)
  --json         machine-readable JSON on stdout instead of the table
  --progress     per-pair progress on stderr (default: when stderr is a terminal)
)";
}

namespace {

struct LayerPairResult {
  std::string name1, name2;
  double rmin = 0, rmax = 0;
  Timing eval;
  double eval_ok_pct = 0, iterations_mean = 0;
  double deriv_mean_us = 0, deriv_mean_cpu_us = 0, deriv_ok_pct = 0;
  // qp only (0 elsewhere): proximity_hessians and proximity_shape_derivatives on stored results
  double hess_mean_us = 0, hess_mean_cpu_us = 0, shape_mean_us = 0, shape_mean_cpu_us = 0;
};

struct LayerBenchArgs {
  long poses = -1;
  long repeat = 1;
  bool quick = false;  // a tenth of the default number of poses (unless --poses is given)
  bool json = false, progress = false;
  std::vector<std::string> shapes;
  bool help = false;
};

LayerBenchArgs scan_bench(const std::vector<std::string>& args, const char* method, void (*usage)(std::ostream&)) {
  LayerBenchArgs b;
  b.progress = isatty(2) != 0;
  const bool is_dcol = std::string(method) == "dcol";
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      usage(std::cout);
      b.help = true;
      return b;
    } else if (take_option(args, i, "--poses", v)) {
      b.poses = parse_long(v, "--poses", 1, 100000000);
    } else if (take_option(args, i, "--repeat", v)) {
      b.repeat = parse_long(v, "--repeat", 1, 100);
    } else if (a == "--quick") {
      b.quick = true;
    } else if (a == "--json") {
      b.json = true;
    } else if (a == "--progress") {
      b.progress = true;
    } else if (is_dcol && take_option(args, i, "--shapes", v)) {
      const char* const* names = dcol::benchmark_primitive_names();
      b.shapes.clear();
      for (const std::string& s : split(v, ",")) {
        bool known = false;
        for (int k = 0; k < dcol::kNumPrimitiveTypes; ++k) known = known || s == names[k];
        if (!known)
          throw InputError("--shapes: unknown DCOL benchmark primitive '" + s +
                           "' (expected polytope, capsule, cylinder, cone, ellipsoid, padded_polygon, sphere)");
        if (std::find(b.shapes.begin(), b.shapes.end(), s) == b.shapes.end()) b.shapes.push_back(s);
      }
    } else {
      throw InputError(std::string("bench --method ") + method + ": unknown argument '" + a +
                       "' (see diffcol bench --method " + method + " --help)");
    }
  }
  return b;
}

/// --repeat: keeps in `best` the lower evaluate and the lower derivative mean of the two runs.
void keep_best(LayerPairResult& best, const LayerPairResult& r) {
  if (r.eval.mean_us < best.eval.mean_us) best.eval = r.eval;
  if (r.deriv_mean_us < best.deriv_mean_us) {
    best.deriv_mean_us = r.deriv_mean_us;
    best.deriv_mean_cpu_us = r.deriv_mean_cpu_us;
  }
  if (r.hess_mean_us < best.hess_mean_us) {
    best.hess_mean_us = r.hess_mean_us;
    best.hess_mean_cpu_us = r.hess_mean_cpu_us;
  }
  if (r.shape_mean_us < best.shape_mean_us) {
    best.shape_mean_us = r.shape_mean_us;
    best.shape_mean_cpu_us = r.shape_mean_cpu_us;
  }
}

void print_layer_results(const char* title, long n, long repeat, const std::vector<LayerPairResult>& results,
                         const char* iter_label, double clock_ns) {
  std::ostream& os = std::cout;
  os << title << ": " << n << " poses per pair (body 1 at identity), dt = " << idcol::ErgodicSweep{}.dt;
  if (repeat > 1) os << "; best of " << repeat << " sweeps per pair and column";
  os << "\n"
     << "times in microseconds per call; mean = batch time / N (no per-call clocks); med/p99 from per-call "
        "steady_clock times (clock read ~"
     << fixed(clock_ns, 0) << " ns, included)\n"
     << host_line(host_info()) << "\n\n";
  bool second = false;  // second-order and shape-parameter columns (qp)
  for (const auto& r : results) second = second || r.hess_mean_us > 0.0;
  char line[400];
  std::snprintf(line, sizeof line, "%-30s | %8s %8s %7s %7s %7s %6s | %8s %8s %6s", "body1-body2", "eval", "cpu",
                "med", "p99", "ok%", iter_label, "deriv", "cpu", "ok%");
  os << line;
  if (second) {
    std::snprintf(line, sizeof line, " | %8s %8s %6s | %8s %8s %6s", "hess", "cpu", "h/eval", "shape", "cpu", "s/eval");
    os << line;
  }
  os << "\n" << std::string(second ? 172 : 110, '-') << "\n";
  for (const auto& r : results) {
    const std::string pair = r.name1 + "-" + r.name2;
    std::snprintf(line, sizeof line, "%-30s | %8.3f %8.3f %7.3f %7.3f %7.2f %6.2f | %8.3f %8.3f %6.2f", pair.c_str(),
                  r.eval.mean_us, r.eval.mean_cpu_us, r.eval.median_us, r.eval.p99_us, r.eval_ok_pct,
                  r.iterations_mean, r.deriv_mean_us, r.deriv_mean_cpu_us, r.deriv_ok_pct);
    os << line;
    if (second) {
      const double e = r.eval.mean_cpu_us > 0.0 ? r.eval.mean_cpu_us : 1.0;
      std::snprintf(line, sizeof line, " | %8.3f %8.3f %6.2f | %8.3f %8.3f %6.2f", r.hess_mean_us, r.hess_mean_cpu_us,
                    r.hess_mean_cpu_us / e, r.shape_mean_us, r.shape_mean_cpu_us, r.shape_mean_cpu_us / e);
      os << line;
    }
    os << "\n";
  }
  os << "\neval: mean us per evaluation (batch wall), cpu: batch thread CPU time / N; deriv: mean us of the "
        "derivatives alone on stored results of the same poses (batch timed); ok%: status ok\n";
  if (second && std::string(iter_label) == "ip_it")
    os << "hess: qp::proximity_hessians (world twists, every output), shape: qp::proximity_shape_derivatives, "
          "both on stored results; h/eval, s/eval: their CPU means over the evaluation's CPU mean\n";
  else if (second)
    os << "hess: dcol::contact_hessians (world twists, every output), shape: "
          "dcol::shape_derivatives, both on stored results; h/eval, s/eval: their CPU means over the evaluation's "
          "CPU mean\n";
  double wall = 0, cpu = 0;
  for (const auto& r : results) {
    wall += r.eval.mean_us + r.deriv_mean_us;
    cpu += r.eval.mean_cpu_us + r.deriv_mean_cpu_us;
  }
  if (wall > 1.1 * cpu)
    os << "note: wall-clock means exceed CPU-time means by " << fixed(100.0 * (wall / cpu - 1.0), 0)
       << "%: the machine is busy (preemption); the cpu columns are the better estimate\n";
}

Json layer_results_json(const char* method, long n, long repeat, double clock_ns,
                        const std::vector<LayerPairResult>& results, const char* iter_key) {
  Json out;
  out["benchmark"] = std::string("ergodic-") + method;
  out["method"] = method;
  out["poses"] = n;
  out["repeat"] = repeat;
  out["dt"] = idcol::ErgodicSweep{}.dt;
  out["clock_overhead_ns"] = clock_ns;
  out["host"] = host_json(host_info());
  Json pairs = Json::array();
  for (const auto& r : results) {
    Json p;
    p["shape1"] = r.name1;
    p["shape2"] = r.name2;
    p["rmin"] = r.rmin;
    p["rmax"] = r.rmax;
    Json e = timing_json(r.eval);
    e["ok_pct"] = r.eval_ok_pct;
    e[iter_key] = r.iterations_mean;
    p["evaluate"] = e;
    Json d;
    d["mean_us"] = r.deriv_mean_us;
    d["mean_cpu_us"] = r.deriv_mean_cpu_us;
    d["ok_pct"] = r.deriv_ok_pct;
    p["derivatives"] = d;
    if (r.hess_mean_us > 0.0) {
      Json h;
      h["mean_us"] = r.hess_mean_us;
      h["mean_cpu_us"] = r.hess_mean_cpu_us;
      p["hessians"] = h;
      Json sd;
      sd["mean_us"] = r.shape_mean_us;
      sd["mean_cpu_us"] = r.shape_mean_cpu_us;
      p["shape_derivatives"] = sd;
    }
    pairs.push_back(p);
  }
  out["pairs"] = pairs;
  return out;
}

constexpr size_t kQpDerivChunk = 4096;   // stored ProximityResults (< 1 KB each)
constexpr size_t kDcolDerivChunk = 256;  // stored dcol::ContactResults (~20 KB each: KKT storage)

template <class S1, class S2>
LayerPairResult bench_qp_pair(const std::string& n1, const std::string& n2, const S1& s1, const S2& s2, size_t n,
                              std::vector<Pose>& poses, std::vector<double>& ns,
                              std::vector<qp::ProximityResult>& stored) {
  LayerPairResult res;
  res.name1 = n1;
  res.name2 = n2;
  idcol::ErgodicSweep e;
  e.rmin = 0.1 * std::min(qp_inner(s1), qp_inner(s2));
  e.rmax = 2.0 * std::max(qp_outer(s1), qp_outer(s2));
  res.rmin = e.rmin;
  res.rmax = e.rmax;
  for (size_t i = 0; i < n; ++i) poses[i] = e.pose(static_cast<long>(i));
  const Pose I = Pose::identity();
  const qp::ProximityOptions opt;
  const size_t warmup = std::min<size_t>(n, 1000);
  {
    qp::ProximityResult r;
    long ok = 0, it = 0;
    res.eval = time_loop(
        n, warmup, [] {},
        [&](size_t i) -> const qp::ProximityResult& {
          qp::proximity(s1, I, s2, poses[i], opt, r);
          return r;
        },
        [&](const qp::ProximityResult& x) {
          ok += x.ok();
          it += x.qp.iterations;
        },
        ns);
    res.eval_ok_pct = 100.0 * static_cast<double>(ok) / static_cast<double>(n);
    res.iterations_mean = static_cast<double>(it) / static_cast<double>(n);
  }
  {
    qp::ProximityDerivatives d;
    double wall = 0, cpu = 0;
    long ok = 0;
    for (size_t b = 0; b < n; b += stored.size()) {
      const size_t m = std::min(stored.size(), n - b);
      for (size_t k = 0; k < m; ++k) qp::proximity(s1, I, s2, poses[b + k], opt, stored[k]);
      if (b == 0)
        for (size_t k = 0; k < std::min(warmup, m); ++k) qp::proximity_derivatives(s1, I, s2, poses[k], stored[k], d);
      const double c0 = thread_cpu_seconds();
      const auto t0 = BenchClock::now();
      for (size_t k = 0; k < m; ++k) {
        qp::proximity_derivatives(s1, I, s2, poses[b + k], stored[k], d);
        ok += d.status == diffcol::DerivativeStatus::ok;
      }
      const auto t1 = BenchClock::now();
      cpu += thread_cpu_seconds() - c0;
      wall += std::chrono::duration<double>(t1 - t0).count();
    }
    res.deriv_mean_us = wall * 1e6 / static_cast<double>(n);
    res.deriv_mean_cpu_us = cpu * 1e6 / static_cast<double>(n);
    res.deriv_ok_pct = 100.0 * static_cast<double>(ok) / static_cast<double>(n);
  }
  // Second-order and shape-parameter derivatives, timed as the first derivatives (stored results).
  auto time_stored = [&](const auto& call, double& mean_us, double& mean_cpu_us) {
    double wall = 0, cpu = 0;
    for (size_t b = 0; b < n; b += stored.size()) {
      const size_t m = std::min(stored.size(), n - b);
      for (size_t k = 0; k < m; ++k) qp::proximity(s1, I, s2, poses[b + k], opt, stored[k]);
      if (b == 0)
        for (size_t k = 0; k < std::min(warmup, m); ++k) call(poses[k], stored[k]);
      const double c0 = thread_cpu_seconds();
      const auto t0 = BenchClock::now();
      for (size_t k = 0; k < m; ++k) call(poses[b + k], stored[k]);
      const auto t1 = BenchClock::now();
      cpu += thread_cpu_seconds() - c0;
      wall += std::chrono::duration<double>(t1 - t0).count();
    }
    mean_us = wall * 1e6 / static_cast<double>(n);
    mean_cpu_us = cpu * 1e6 / static_cast<double>(n);
  };
  {
    auto h = std::make_unique<qp::ProximityHessians>();
    time_stored([&](const Pose& X, const qp::ProximityResult& r) { qp::proximity_hessians(s1, I, s2, X, r, *h); },
                res.hess_mean_us, res.hess_mean_cpu_us);
    auto sd = std::make_unique<qp::ProximityShapeDerivatives>();
    time_stored(
        [&](const Pose& X, const qp::ProximityResult& r) { qp::proximity_shape_derivatives(s1, I, s2, X, r, *sd); },
        res.shape_mean_us, res.shape_mean_cpu_us);
  }
  return res;
}

LayerPairResult bench_dcol_pair(const std::string& n1, const std::string& n2, size_t n, std::vector<Pose>& poses,
                                std::vector<double>& ns, std::vector<dcol::ContactResult>& stored) {
  const dcol::Primitive s1 = dcol::benchmark_primitive(n1.c_str()), s2 = dcol::benchmark_primitive(n2.c_str());
  LayerPairResult res;
  res.name1 = n1;
  res.name2 = n2;
  idcol::ErgodicSweep e;
  e.rmin = 0.1 * std::min(dcol::inner_radius(s1), dcol::inner_radius(s2));
  e.rmax = 2.0 * std::max(dcol::outer_radius(s1), dcol::outer_radius(s2));
  res.rmin = e.rmin;
  res.rmax = e.rmax;
  for (size_t i = 0; i < n; ++i) poses[i] = e.pose(static_cast<long>(i));
  const Pose I = Pose::identity();
  const size_t warmup = std::min<size_t>(n, 200);
  {
    auto r = std::make_unique<dcol::ContactResult>();
    long ok = 0, it = 0;
    res.eval = time_loop(
        n, warmup, [] {},
        [&](size_t i) -> const dcol::ContactResult& {
          dcol::solve_contact(s1, I, s2, poses[i], *r);
          return *r;
        },
        [&](const dcol::ContactResult& x) {
          ok += x.ok();
          it += x.iterations;
        },
        ns);
    res.eval_ok_pct = 100.0 * static_cast<double>(ok) / static_cast<double>(n);
    res.iterations_mean = static_cast<double>(it) / static_cast<double>(n);
  }
  {
    dcol::ContactDerivatives d;
    double wall = 0, cpu = 0;
    long ok = 0;
    for (size_t b = 0; b < n; b += stored.size()) {
      const size_t m = std::min(stored.size(), n - b);
      for (size_t k = 0; k < m; ++k) dcol::solve_contact(s1, I, s2, poses[b + k], stored[k]);
      if (b == 0)
        for (size_t k = 0; k < m; ++k) dcol::contact_derivatives(stored[k], d);
      const double c0 = thread_cpu_seconds();
      const auto t0 = BenchClock::now();
      for (size_t k = 0; k < m; ++k) {
        dcol::contact_derivatives(stored[k], d);
        ok += d.ok();
      }
      const auto t1 = BenchClock::now();
      cpu += thread_cpu_seconds() - c0;
      wall += std::chrono::duration<double>(t1 - t0).count();
    }
    res.deriv_mean_us = wall * 1e6 / static_cast<double>(n);
    res.deriv_mean_cpu_us = cpu * 1e6 / static_cast<double>(n);
    res.deriv_ok_pct = 100.0 * static_cast<double>(ok) / static_cast<double>(n);
  }
  // Hessians and shape-parameter derivatives, timed as the first derivatives (stored results)
  auto time_stored = [&](const auto& call, double& mean_us, double& mean_cpu_us) {
    double wall = 0, cpu = 0;
    for (size_t b = 0; b < n; b += stored.size()) {
      const size_t m = std::min(stored.size(), n - b);
      for (size_t k = 0; k < m; ++k) dcol::solve_contact(s1, I, s2, poses[b + k], stored[k]);
      if (b == 0)
        for (size_t k = 0; k < m; ++k) call(stored[k]);
      const double c0 = thread_cpu_seconds();
      const auto t0 = BenchClock::now();
      for (size_t k = 0; k < m; ++k) call(stored[k]);
      const auto t1 = BenchClock::now();
      cpu += thread_cpu_seconds() - c0;
      wall += std::chrono::duration<double>(t1 - t0).count();
    }
    mean_us = wall * 1e6 / static_cast<double>(n);
    mean_cpu_us = cpu * 1e6 / static_cast<double>(n);
  };
  {
    auto h = std::make_unique<dcol::ContactHessians>();
    time_stored([&](const dcol::ContactResult& r) { dcol::contact_hessians(r, *h); }, res.hess_mean_us,
                res.hess_mean_cpu_us);  // every output
    auto sd = std::make_unique<dcol::ShapeDerivatives>();
    time_stored([&](const dcol::ContactResult& r) { dcol::shape_derivatives(s1, s2, r, *sd); }, res.shape_mean_us,
                res.shape_mean_cpu_us);
  }
  return res;
}

}  // namespace

int cmd_bench_qp(const std::vector<std::string>& args) {
  const LayerBenchArgs a = scan_bench(args, "qp", print_bench_qp_usage);
  if (a.help) return kExitOk;
  const size_t n = static_cast<size_t>(a.poses > 0 ? a.poses : a.quick ? 10000 : 100000);
  const double clock_ns = clock_overhead_ns();
  std::vector<Pose> poses(n);
  std::vector<double> ns(n);
  std::vector<qp::ProximityResult> stored(std::min(n, kQpDerivChunk));
  const qp::Capsule cap = qp_bench_capsule();
  const qp::PaddedPolygon poly = qp_bench_polygon();
  std::vector<LayerPairResult> results;
  size_t index = 0;
  auto run = [&](const char* n1, const char* n2, const auto& s1, const auto& s2) {
    if (a.progress) std::cerr << n1 << "-" << n2 << " ..." << std::flush;
    const LayerPairResult r = bench_qp_pair(n1, n2, s1, s2, n, poses, ns, stored);
    if (a.progress)
      std::cerr << " evaluate " << fixed(r.eval.mean_us, 3) << " us, derivatives " << fixed(r.deriv_mean_us, 3)
                << " us\n";
    if (index == results.size()) results.push_back(r);
    else keep_best(results[index], r);
    ++index;
  };
  for (long round = 0; round < a.repeat; ++round) {
    index = 0;
    run("capsule", "capsule", cap, cap);
    run("polygon", "polygon", poly, poly);
    run("capsule", "polygon", cap, poly);
  }
  if (a.json) {
    Json out = layer_results_json("qp", static_cast<long>(n), a.repeat, clock_ns, results, "ip_iterations_mean");
    Json shapes;
    shapes["capsule"] = describe(cap);
    shapes["polygon"] = describe(poly);
    out["shapes"] = shapes;
    write_json(std::cout, out);
    return kExitOk;
  }
  print_layer_results("diffcol DiffPills (qp) benchmark", static_cast<long>(n), a.repeat, results, "ip_it",
                      clock_ns);
  std::cout << "shapes: capsule = " << describe(cap) << ", polygon = " << describe(poly)
            << "\nip_it: mean interior-point iterations (0 for the capsule-capsule active-set solver)\n";
  return kExitOk;
}

int cmd_bench_dcol(const std::vector<std::string>& args) {
  LayerBenchArgs a = scan_bench(args, "dcol", print_bench_dcol_usage);
  if (a.help) return kExitOk;
  if (a.shapes.empty()) {
    const char* const* names = dcol::benchmark_primitive_names();
    for (int k = 0; k < dcol::kNumPrimitiveTypes; ++k) a.shapes.emplace_back(names[k]);
  }
  const size_t n = static_cast<size_t>(a.poses > 0 ? a.poses : a.quick ? 1000 : 10000);
  const double clock_ns = clock_overhead_ns();
  std::vector<Pose> poses(n);
  std::vector<double> ns(n);
  std::vector<dcol::ContactResult> stored(std::min(n, kDcolDerivChunk));
  std::vector<LayerPairResult> results;
  const size_t total = a.shapes.size() * a.shapes.size();
  for (long round = 0; round < a.repeat; ++round) {
    size_t index = 0;
    for (const std::string& n1 : a.shapes)
      for (const std::string& n2 : a.shapes) {
        if (a.progress) {
          std::cerr << "[" << index + 1 << "/" << total;
          if (a.repeat > 1) std::cerr << ", round " << round + 1 << "/" << a.repeat;
          std::cerr << "] " << n1 << "-" << n2 << " ..." << std::flush;
        }
        const LayerPairResult r = bench_dcol_pair(n1, n2, n, poses, ns, stored);
        if (a.progress)
          std::cerr << " evaluate " << fixed(r.eval.mean_us, 3) << " us, derivatives " << fixed(r.deriv_mean_us, 3)
                    << " us\n";
        if (round == 0) results.push_back(r);
        else keep_best(results[index], r);
        ++index;
      }
  }
  if (a.json) {
    Json out = layer_results_json("dcol", static_cast<long>(n), a.repeat, clock_ns, results, "iterations_mean");
    out["shapes"] = a.shapes;
    write_json(std::cout, out);
    return kExitOk;
  }
  print_layer_results("diffcol DCOL benchmark (cold solve_contact)", static_cast<long>(n), a.repeat, results, "iter",
                      clock_ns);
  std::cout << "iter: mean interior-point iterations per solve\n";
  return kExitOk;
}

}  // namespace diffcol::cli
