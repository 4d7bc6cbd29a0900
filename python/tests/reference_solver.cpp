// A tiny C++ program the pytest suite compares the Python module with (bit for bit).
//
// Reads queries from stdin, one per line:
//   MODE SHAPE1 SHAPE2 x1 y1 z1 qw1 qx1 qy1 qz1 x2 y2 z2 qw2 qx2 qy2 qz2
// MODE: "cold" = idcol::solve_contact; "warm" = ContactPair::solve on one pair per
// (SHAPE1, SHAPE2) kept across lines (warm-started in line order). SHAPEs are benchmark names.
// For every query it prints the ContactSolution and its ContactDerivatives, one field per line
// ("name v1 v2 ...", doubles with 17 significant digits: they read back exactly; matrices row by
// row), then "end".
//
// Other layers, same line format:
//   dcol SHAPE1 SHAPE2 ...   dcol::solve_contact, dcol::contact_derivatives and
//                            dcol::to_position_quaternion. SHAPE: a dcol::benchmark_primitive name,
//                            optionally with an offset: NAME@x,y,z,qw,qx,qy,qz.
//   qp SHAPE1 SHAPE2 ...     qp::proximity, qp::proximity_derivatives (world twists) and
//   qp_body SHAPE1 SHAPE2 ...  (body twists), then qp::to_position_quaternion at the line's
//                            (r, q). SHAPE: capsule:L:R (qp::Capsule(R, L)), rect:HX:HY:R
//                            (PaddedPolygon::rectangle), pentagon:R (from_vertices of the five
//                            vertices (1, 0), (0.3, 0.9), (-0.8, 0.6), (-0.7, -0.7), (0.4, -0.9)).
//   manifold N1 N2 ...       manifold::compute_manifold_derivatives (body twists, default options)
//                            between two unit cubes: make_refined_box((1,1,1), Ni) meshes and
//                            make_box_sdf((1,1,1), 0.1) SDFs. Prints points, distances, normals,
//                            activities (entry by entry) and the four J_*_X12 blocks.
//   ssdf I1 I2 ...           ssdf::pair_contact (default ScmParameters, velocities V1 = 0,
//                            V2 = (0, 0, 0, 0.1, 0, -0.2)) and ssdf::smooth_separation_distance
//                            (eps1, eps2 of the parameters) between AOPCs (make_aopc with
//                            num_points Ii, other options default) of a unit cube (body 1) and
//                            make_icosphere(0.5, 2) (body 2).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <variant>
#include <vector>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "diffcol/batch/result_fields.hpp"
#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/scm.hpp"
#include "diffcol/ssdf/ssdf.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"

namespace {

using namespace diffcol;

void print_values(const char* name, const double* v, long n) {
  std::printf("%s", name);
  for (long i = 0; i < n; ++i) std::printf(" %.17g", v[i]);
  std::printf("\n");
}

template <class M>
void print_field(const char* name, const M& m) {
  if constexpr (std::is_arithmetic_v<M>) {
    print_values(name, &m, 1);
  } else {
    std::printf("%s", name);  // row by row, whatever the storage order
    for (long i = 0; i < m.rows(); ++i)
      for (long j = 0; j < m.cols(); ++j) std::printf(" %.17g", static_cast<double>(m(i, j)));
    std::printf("\n");
  }
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

double number(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') throw std::invalid_argument("bad number '" + s + "'");
  return v;
}

dcol::Primitive dcol_shape(const std::string& spec) {
  const auto at = spec.find('@');
  dcol::Primitive p = dcol::benchmark_primitive(spec.substr(0, at).c_str());
  if (at != std::string::npos) {
    const auto v = split(spec.substr(at + 1), ',');
    if (v.size() != 7) throw std::invalid_argument("offset needs 7 numbers: " + spec);
    const Pose offset = Pose::from_quaternion(Vec3(number(v[0]), number(v[1]), number(v[2])), number(v[3]),
                                              number(v[4]), number(v[5]), number(v[6]));
    std::visit([&](auto& s) { s.offset = offset; }, p);
  }
  return p;
}

using QpShape = std::variant<qp::Capsule, qp::PaddedPolygon>;

QpShape qp_shape(const std::string& spec) {
  const auto f = split(spec, ':');
  if (f[0] == "capsule" && f.size() == 3) return qp::Capsule(number(f[2]), number(f[1]));
  if (f[0] == "rect" && f.size() == 4) return qp::PaddedPolygon::rectangle(number(f[1]), number(f[2]), number(f[3]));
  if (f[0] == "pentagon" && f.size() == 2)
    return qp::PaddedPolygon::from_vertices({{1.0, 0.0}, {0.3, 0.9}, {-0.8, 0.6}, {-0.7, -0.7}, {0.4, -0.9}},
                                            number(f[1]));
  throw std::invalid_argument("unknown qp shape '" + spec + "'");
}

void run_dcol(const std::string& n1, const std::string& n2, const Pose& X1, const Pose& X2) {
  const dcol::Primitive s1 = dcol_shape(n1), s2 = dcol_shape(n2);
  auto r = std::make_unique<dcol::ContactResult>();
  dcol::solve_contact(s1, X1, s2, X2, *r);
  const dcol::ContactDerivatives d = dcol::contact_derivatives(*r);
  const dcol::PositionQuaternionJacobians pq = dcol::to_position_quaternion(*r, d);
  std::printf("status %d\niterations %d\npolished %d\n", static_cast<int>(r->status), r->iterations,
              r->kkt.polished ? 1 : 0);
  print_field("alpha", r->alpha);
  print_field("x_W", r->x_W);
  print_field("p1_W", r->p1_W);
  print_field("p2_W", r->p2_W);
  print_field("gap", r->gap);
  print_field("duality_measure", r->duality_measure);
  print_field("primal_residual", r->primal_residual);
  print_field("dual_residual", r->dual_residual);
  print_field("certificate_gap", r->certificate_gap);
  std::printf("derivative_status %d\n", static_cast<int>(d.status));
#define DIFFCOL_REF(name) print_field(#name, d.name)
  DIFFCOL_REF(J_alpha_X12);
  DIFFCOL_REF(J_alpha_X1);
  DIFFCOL_REF(J_alpha_X2);
  DIFFCOL_REF(J_gap_X1);
  DIFFCOL_REF(J_gap_X2);
  DIFFCOL_REF(J_x_W_X1);
  DIFFCOL_REF(J_x_W_X2);
  DIFFCOL_REF(J_p1_W_X1);
  DIFFCOL_REF(J_p1_W_X2);
  DIFFCOL_REF(J_p2_W_X1);
  DIFFCOL_REF(J_p2_W_X2);
#undef DIFFCOL_REF
  print_field("pq_J_alpha", pq.J_alpha);
  print_field("pq_J_x_W", pq.J_x_W);
  print_field("pq_J_p1_W", pq.J_p1_W);
  print_field("pq_J_p2_W", pq.J_p2_W);
  print_field("pq_J_gap", pq.J_gap);
}

void run_qp(const std::string& n1, const std::string& n2, const double* v, bool body) {
  const Pose X1 = Pose::from_quaternion(Vec3(v[0], v[1], v[2]), v[3], v[4], v[5], v[6]);
  const Pose X2 = Pose::from_quaternion(Vec3(v[7], v[8], v[9]), v[10], v[11], v[12], v[13]);
  const QpShape s1 = qp_shape(n1), s2 = qp_shape(n2);
  qp::ProximityResult r;
  qp::ProximityDerivatives d;
  const auto convention = body ? qp::ReferenceFrame::local : qp::ReferenceFrame::world;
  std::visit(
      [&](const auto& a, const auto& b) {
        qp::proximity(a, X1, b, X2, qp::ProximityOptions{}, r);
        qp::proximity_derivatives(a, X1, b, X2, r, d, convention);
      },
      s1, s2);
  const qp::ProximityCoordinateJacobians c = qp::to_position_quaternion(
      d, Vec3(v[0], v[1], v[2]), Eigen::Vector4d(v[3], v[4], v[5], v[6]), Vec3(v[7], v[8], v[9]),
      Eigen::Vector4d(v[10], v[11], v[12], v[13]));
  std::printf("status %d\ncores_touch %d\nunique_minimizer %d\nqp_iterations %d\n", static_cast<int>(r.status),
              r.cores_touch ? 1 : 0, r.unique_minimizer ? 1 : 0, r.qp.iterations);
#define DIFFCOL_REF(obj, name) print_field(#name, obj.name)
  DIFFCOL_REF(r, phi);
  DIFFCOL_REF(r, signed_distance);
  DIFFCOL_REF(r, core_distance);
  DIFFCOL_REF(r, core1_W);
  DIFFCOL_REF(r, core2_W);
  DIFFCOL_REF(r, core1_B1);
  DIFFCOL_REF(r, core2_B2);
  DIFFCOL_REF(r, p1_W);
  DIFFCOL_REF(r, p2_W);
  DIFFCOL_REF(r, normal_W);
  print_field("qp_x", r.qp.x);
  print_field("qp_S", r.qp.S);
  std::printf("derivative_status %d\n", static_cast<int>(d.status));
  DIFFCOL_REF(d, J_phi_X1);
  DIFFCOL_REF(d, J_phi_X2);
  DIFFCOL_REF(d, J_signed_distance_X1);
  DIFFCOL_REF(d, J_signed_distance_X2);
  DIFFCOL_REF(d, J_core1_W_X1);
  DIFFCOL_REF(d, J_core1_W_X2);
  DIFFCOL_REF(d, J_core2_W_X1);
  DIFFCOL_REF(d, J_core2_W_X2);
  DIFFCOL_REF(d, J_p1_W_X1);
  DIFFCOL_REF(d, J_p1_W_X2);
  DIFFCOL_REF(d, J_p2_W_X1);
  DIFFCOL_REF(d, J_p2_W_X2);
  DIFFCOL_REF(d, J_normal_W_X1);
  DIFFCOL_REF(d, J_normal_W_X2);
  DIFFCOL_REF(c, J_phi_rq1);
  DIFFCOL_REF(c, J_phi_rq2);
  DIFFCOL_REF(c, J_signed_distance_rq1);
  DIFFCOL_REF(c, J_signed_distance_rq2);
  DIFFCOL_REF(c, J_core1_W_rq1);
  DIFFCOL_REF(c, J_core1_W_rq2);
  DIFFCOL_REF(c, J_core2_W_rq1);
  DIFFCOL_REF(c, J_core2_W_rq2);
  DIFFCOL_REF(c, J_p1_W_rq1);
  DIFFCOL_REF(c, J_p1_W_rq2);
  DIFFCOL_REF(c, J_p2_W_rq1);
  DIFFCOL_REF(c, J_p2_W_rq2);
  DIFFCOL_REF(c, J_normal_W_rq1);
  DIFFCOL_REF(c, J_normal_W_rq2);
#undef DIFFCOL_REF
}

void run_manifold(int n1, int n2, const Pose& X1, const Pose& X2) {
  const Eigen::Vector3d size(1.0, 1.0, 1.0);
  const manifold::ContactObject b1(manifold::make_refined_box(size, n1), manifold::make_box_sdf(size, 0.1));
  const manifold::ContactObject b2(manifold::make_refined_box(size, n2), manifold::make_box_sdf(size, 0.1));
  manifold::ManifoldWorkspace ws;
  manifold::ContactManifold mf;
  manifold::ManifoldDerivatives d;
  manifold::compute_manifold_derivatives(b1, X1, b2, X2, manifold::ManifoldOptions{}, manifold::PoseCoordinates::local,
                                         ws, mf, d);
  std::vector<double> points, distances, normals, activities, Jp, Jn, Jd, Ja;
  for (size_t i = 0; i < mf.entries.size(); ++i) {
    const manifold::ManifoldEntry& e = mf.entries[i];
    for (int k = 0; k < 3; ++k) points.push_back(e.point[k]), normals.push_back(e.normal[k]);
    distances.push_back(e.distance);
    activities.push_back(e.activity);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 12; ++c) Jp.push_back(d.J_point_X12[i](r, c)), Jn.push_back(d.J_normal_X12[i](r, c));
    for (int c = 0; c < 12; ++c) Jd.push_back(d.J_distance_X12[i](0, c)), Ja.push_back(d.J_activity_X12[i](0, c));
  }
  print_values("points", points.data(), static_cast<long>(points.size()));
  print_values("distances", distances.data(), static_cast<long>(distances.size()));
  print_values("normals", normals.data(), static_cast<long>(normals.size()));
  print_values("activities", activities.data(), static_cast<long>(activities.size()));
  print_values("J_point_X12", Jp.data(), static_cast<long>(Jp.size()));
  print_values("J_normal_X12", Jn.data(), static_cast<long>(Jn.size()));
  print_values("J_distance_X12", Jd.data(), static_cast<long>(Jd.size()));
  print_values("J_activity_X12", Ja.data(), static_cast<long>(Ja.size()));
}

void run_ssdf(int i1, int i2, const Pose& X1, const Pose& X2) {
  ssdf::AopcOptions o1, o2;
  o1.num_points = i1;
  o2.num_points = i2;
  const ssdf::OrientedPointCloud c1 = ssdf::make_aopc(mesh::make_box(Vec3(1.0, 1.0, 1.0)), o1);
  const ssdf::OrientedPointCloud c2 = ssdf::make_aopc(mesh::make_icosphere(0.5, 2), o2);
  const ssdf::ScmParameters params;
  ssdf::SsdfWorkspace ws;
  Vec6 V2;
  V2 << 0.0, 0.0, 0.0, 0.1, 0.0, -0.2;
  const ssdf::PairContact pc = ssdf::pair_contact(c1, X1, Vec6::Zero(), c2, X2, V2, params, ws, true);
  print_field("separation", pc.separation);
  print_field("wrench_1", pc.wrench_1);
  print_field("wrench_2", pc.wrench_2);
  print_field("J_wrench_X", pc.J_wrench_X);
  print_field("J_wrench_V", pc.J_wrench_V);
  const ssdf::Separation sep = ssdf::smooth_separation_distance(c1, X1, c2, X2, params.eps1, params.eps2, ws, true);
  print_field("distance", sep.distance);
  print_field("J_distance_X", sep.J_distance_X);
}

}  // namespace

int main() {
  std::map<std::pair<std::string, std::string>, idcol::ContactPair> pairs;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::istringstream in(line);
    std::string mode, n1, n2;
    double v[14];
    in >> mode >> n1 >> n2;
    for (double& x : v) in >> x;
    if (!in) {
      std::fprintf(stderr, "reference_solver: bad line '%s'\n", line.c_str());
      return 2;
    }
    const Pose X1 = Pose::from_quaternion(Vec3(v[0], v[1], v[2]), v[3], v[4], v[5], v[6]);
    const Pose X2 = Pose::from_quaternion(Vec3(v[7], v[8], v[9]), v[10], v[11], v[12], v[13]);
    if (mode == "dcol" || mode == "qp" || mode == "qp_body" || mode == "manifold" || mode == "ssdf") {
      try {
        if (mode == "dcol") run_dcol(n1, n2, X1, X2);
        else if (mode == "manifold") run_manifold(std::stoi(n1), std::stoi(n2), X1, X2);
        else if (mode == "ssdf") run_ssdf(std::stoi(n1), std::stoi(n2), X1, X2);
        else run_qp(n1, n2, v, mode == "qp_body");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "reference_solver: %s\n", e.what());
        return 2;
      }
      std::printf("end\n");
      continue;
    }
    const Shape s1 = idcol::benchmark_shape(n1);
    const Shape s2 = idcol::benchmark_shape(n2);
    idcol::ContactSolution sol;
    if (mode == "cold") {
      sol = idcol::solve_contact(s1, X1, s2, X2);
    } else if (mode == "warm") {
      auto it = pairs.find({n1, n2});
      if (it == pairs.end()) it = pairs.emplace(std::make_pair(n1, n2), idcol::ContactPair(s1, s2)).first;
      sol = it->second.solve(X1, X2);
    } else {
      std::fprintf(stderr, "reference_solver: unknown mode '%s'\n", mode.c_str());
      return 2;
    }
    const idcol::ContactDerivatives d = idcol::contact_derivatives(sol);
    std::printf("status %d\niterations %d\nattempts %d\nwarm_started %d\n", static_cast<int>(sol.status),
                sol.iterations, sol.attempts, sol.warm_started ? 1 : 0);
    batch::for_each_solution_field([&](const char* name, auto member) { print_field(name, sol.*member); });
    std::printf("derivative_status %d\n", static_cast<int>(d.status));
    batch::for_each_derivative_block([&](const char* name, auto member) { print_field(name, d.*member); });
    std::printf("end\n");
  }
  return 0;
}
