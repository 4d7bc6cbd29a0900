// Python bindings of include/diffcol/qp/: DiffPills capsules and padded polygons, the three
// proximity QPs, their derivatives and the quaternion-coordinate chain rule, as the submodule
// diffcol.qp.
#include <array>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"
#include "diffcol/qp/proximity_hessians.hpp"
#include "diffcol/qp/shapes.hpp"

namespace diffcol::python {

namespace bind_qp_local {

using qp::Capsule;
using qp::PaddedPolygon;
using qp::ProximityDerivatives;
using qp::ProximityOptions;
using qp::ProximityResult;
using qp::ReferenceFrame;

const char* const kQpConventionsDoc = R"(
Conventions (diffcol.qp, as the C++ include/diffcol/qp)
-------------------------------------------------------
Poses: X_W1, X_W2 are the world poses of shape 1 and shape 2 (world_from_body), given as a
  diffcol.Pose, a 7-vector [x, y, z, qw, qx, qy, qz] or a 4x4 matrix. Shapes hold body-frame data.
Outputs (world frame unless _B1/_B2): core1_W, core2_W the witness points on the cores (segment /
  polygon); phi = |p1 - p2|^2 - (R1 + R2)^2, eq. (20) (> 0 separated); signed_distance =
  |p1 - p2| - (R1 + R2); normal_W = (p2 - p1)/|p2 - p1| from shape 1 towards shape 2 (zero when
  the cores touch); p1_W = p1 + R1 normal_W, p2_W = p2 - R2 normal_W, eq. (21)-(22).
Twists are 6-vectors ordered [w; v] (angular first). J_<output>_X1 / J_<output>_X2: rows = the
  output's components, 6 columns = the twist of X_W1 / X_W2 in the chosen ReferenceFrame `frame`:
  ReferenceFrame.world (default): X_Wi <- exp(eta^) X_Wi (w in world axes, v the velocity of
  the point at the world origin); .local: X_Wi <- X_Wi exp(zeta^); .local_world_aligned: w and
  the velocity of body i's origin in world axes (docs/conventions.md).
  Scalar outputs give (6,) arrays, 3-vectors (3, 6). Every block is zero when solve_failed.
Quaternion coordinates: to_position_quaternion(d, r1, q1, r2, q2) gives 7 columns [r_i | q_i]
  per pose, q = (w, x, y, z) raw (normalization included).
)";

void check_qp_options(const qp::QpOptions& o) { o.validate(); }

void check_proximity_options(const ProximityOptions& o) { o.validate(); }

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

std::string qp_field_doc(const std::string& name, const std::string& shape) {
  static const std::pair<const char*, const char*> kFields[] = {
      {"phi", "phi = |p1 - p2|^2 - (R1 + R2)^2, eq. (20)"},
      {"signed_distance", "|p1 - p2| - (R1 + R2)"},
      {"core_distance", "|p1 - p2|"},
      {"core1_W", "witness point on core 1 (segment / polygon), world frame"},
      {"core2_W", "witness point on core 2, world frame"},
      {"core1_B1", "p1 in shape 1's frame"},
      {"core2_B2", "p2 in shape 2's frame"},
      {"p1_W", "closest point on padded shape 1, eq. (21), world frame"},
      {"p2_W", "closest point on padded shape 2, eq. (22), world frame"},
      {"normal_W", "(p2 - p1)/|p2 - p1|, world frame; zero when the cores touch"},
  };
  auto wrt = [](const std::string& in) -> std::string {
    if (in == "X1" || in == "X2")
      return std::string("the twist [w; v] of X_W") + in[1] + " (in the ReferenceFrame of the `frame` field)";
    return std::string("the coordinates [r") + in[2] + " (3) | q" + in[2] + " = (w, x, y, z) (4)] of pose " + in[2];
  };
  return block_doc(name, shape, kFields, wrt);
}

std::string result_repr(const ProximityResult& r) {
  std::ostringstream os;
  os.precision(10);
  os << "qp.ProximityResult(status=" << diffcol::status_name(r.status) << ", phi=" << r.phi
     << ", signed_distance=" << r.signed_distance << ", unique_minimizer=" << (r.unique_minimizer ? "True" : "False")
     << ")";
  return os.str();
}



std::string derivatives_repr(const ProximityDerivatives& d) {
  return std::string("qp.ProximityDerivatives(status=") + diffcol::status_name(d.status) +
         ", frame=" + reference_frame_name(d.frame) + ")";
}

std::string gradient_repr(const qp::ProximityGradient& g) {
  std::ostringstream os;
  os.precision(10);
  os << "qp.ProximityGradient(status=" << diffcol::status_name(g.status) << ", phi=" << g.phi
     << ", signed_distance=" << g.signed_distance << ", frame=" << reference_frame_name(g.frame) << ")";
  return os.str();
}

}  // namespace bind_qp_local

void bind_qp(py::module_& parent) {
  using namespace bind_qp_local;
  py::module_ m = parent.def_submodule("qp", R"(DiffPills: capsule and padded-polygon proximity as differentiable QPs.

Seed: diffpills-capsule-padded-polygon-qp, Sec. II-IV. The closest points of two cores
(segments / convex polygons) from a QP with the equality constraints eliminated: capsule-capsule
(25)-(26) by the two-variable box active-set method (Algorithms 4-5), polygon-polygon (31)-(32)
and capsule-polygon (36)-(37) by a primal-dual interior-point QP (Mehrotra) with an exact
active-set polish; derivatives by differentiating the QP solution (13)-(17).
Statuses: diffcol.SolveStatus, diffcol.DerivativeStatus, diffcol.status_name (shared by every layer).

Shapes: Capsule, PaddedPolygon
Proximity: proximity, certify, ProximityOptions, QpOptions, ProximityResult, ProximityQpInfo,
  CapsuleSolver, swap_shapes, segment_pair_parameters
Derivatives: proximity_derivatives, ProximityDerivatives,
  proximity_gradient, ProximityGradient, ReferenceFrame (= diffcol.ReferenceFrame)
Second order and shape parameters: proximity_hessians, ProximityHessians,
  proximity_shape_derivatives, ProximityShapeDerivatives, shape_parameter_names
Quaternion coordinates: twist_from_position_quaternion, to_position_quaternion,
  ProximityCoordinateJacobians
)");
  m.attr("kMaxPolygonEdges") = qp::kMaxPolygonEdges;
  m.attr("ReferenceFrame") = parent.attr("ReferenceFrame");

  // ------------------------------------------------------------------ shapes
  py::class_<Capsule>(m, "Capsule", R"(A capsule: all points within `radius` of the core segment [b_B, a_B], eq. (18), (23)-(24).

Capsule(radius, length): the seed's capsule, core along the body x axis centred at the origin,
a_B = (+length/2, 0, 0), b_B = (-length/2, 0, 0) (length is the FULL length). A zero length (a
sphere) and a zero radius (a bare segment) are allowed.)")
      .def(py::init<double, double>(), py::arg("radius"), py::arg("length"),
           "Raises ValueError if a value is negative or not finite.")
      .def_static("from_end_points", refuse_complex(&Capsule::from_end_points), py::arg("a_B"), py::arg("b_B"), py::arg("radius"),
                  "A capsule with end points a_B (theta = 1) and b_B (theta = 0) in the body frame. Raises "
                  "ValueError if a value is not finite or the radius is negative.")
      .def_property_readonly("a_B", [](const Capsule& c) { return Vec3(c.a_B()); }, "End point a (theta = 1), body frame (3,).")
      .def_property_readonly("b_B", [](const Capsule& c) { return Vec3(c.b_B()); }, "End point b (theta = 0), body frame (3,).")
      .def_property_readonly("radius", &Capsule::radius, "Padding radius R.")
      .def_property_readonly("length", &Capsule::length, "Full core length |a - b|.")
      .def_property_readonly("half_length", &Capsule::half_length, "Half the core length.")
      .def(
          "core_point_B",
          [](const Capsule& c, double theta) {
            if (!std::isfinite(theta)) throw std::invalid_argument("core_point_B: theta must be finite");
            return c.core_point_B(theta);
          },
          py::arg("theta"), "The core point b_B + theta (a_B - b_B), body frame. ValueError for a non-finite theta.")
      .def(py::pickle([](const Capsule& c) { return py::make_tuple(Vec3(c.a_B()), Vec3(c.b_B()), c.radius()); },
                      [](const py::tuple& state) {
                        const py::tuple t = pickle_state(state, 3, "qp.Capsule");
                        return Capsule::from_end_points(t[0].cast<Vec3>(), t[1].cast<Vec3>(), t[2].cast<double>());
                      }))
      .def("__repr__", [](const Capsule& c) {
        const Vec3 a = c.a_B(), b = c.b_B();
        return "qp.Capsule(a_B=[" + fmt(a.x()) + ", " + fmt(a.y()) + ", " + fmt(a.z()) + "], b_B=[" + fmt(b.x()) + ", " +
               fmt(b.y()) + ", " + fmt(b.z()) + "], radius=" + fmt(c.radius()) + ")";
      });

  py::class_<PaddedPolygon>(m, "PaddedPolygon", R"(A padded polygon: all points within `radius` of the convex polygon
{(y, 0) : C y <= d} in the body x-y plane, eq. (29). Rows of C are stored normalized.)")
      .def(py::init([](const Real<Eigen::MatrixXd>& C, const Real<Eigen::VectorXd>& d, double radius) {
             if (C.cols() != 2)
               throw std::invalid_argument("qp.PaddedPolygon: C must be an (m, 2) array, got (" + std::to_string(C.rows()) +
                                           ", " + std::to_string(C.cols()) + ")");
             return PaddedPolygon(Eigen::MatrixX2d(C), d, radius);
           }),
           py::arg("C"), py::arg("d"), py::arg("radius"),
           "C: (m, 2) constraint normals (3 <= m <= kMaxPolygonEdges), d: (m,) offsets, radius >= 0. Raises "
           "ValueError on a size mismatch, a non-finite entry, a zero row, a negative radius, an unbounded or an "
           "empty / zero-area polygon.")
      .def_static(
          "from_vertices",
          [](const Real<Eigen::MatrixXd>& V, double radius) {
            if (V.cols() != 2)
              throw std::invalid_argument("qp.PaddedPolygon.from_vertices: vertices must be a (k, 2) array, got (" +
                                          std::to_string(V.rows()) + ", " + std::to_string(V.cols()) + ")");
            std::vector<qp::Vec2> v;
            for (Eigen::Index i = 0; i < V.rows(); ++i) v.emplace_back(V(i, 0), V(i, 1));
            return PaddedPolygon::from_vertices(v, radius);
          },
          py::arg("vertices"), py::arg("radius"),
          "From vertices (k, 2) in the body x-y plane, counter-clockwise, strictly convex (3 <= k <= "
          "kMaxPolygonEdges). Raises ValueError otherwise.")
      .def_static("rectangle", &PaddedPolygon::rectangle, py::arg("half_x"), py::arg("half_y"), py::arg("radius"),
                  "The rectangle |y_x| <= half_x, |y_y| <= half_y (both > 0) padded by radius.")
      .def_property_readonly("num_constraints", &PaddedPolygon::num_constraints, "m, the rows of C.")
      .def(
          "normal",
          [](const PaddedPolygon& p, int i) {
            if (i < 0 || i >= p.num_constraints())
              throw std::invalid_argument("qp.PaddedPolygon.normal: index " + std::to_string(i) + " out of range [0, " +
                                          std::to_string(p.num_constraints()) + ")");
            return qp::Vec2(p.normal(i));
          },
          py::arg("i"), "Row i of C (unit length) (2,). Raises ValueError for i outside [0, m).")
      .def(
          "offset",
          [](const PaddedPolygon& p, int i) {
            if (i < 0 || i >= p.num_constraints())
              throw std::invalid_argument("qp.PaddedPolygon.offset: index " + std::to_string(i) + " out of range [0, " +
                                          std::to_string(p.num_constraints()) + ")");
            return p.offset(i);
          },
          py::arg("i"), "d_i of the normalized row i. Raises ValueError for i outside [0, m).")
      .def_property_readonly(
          "C",
          [](const PaddedPolygon& p) {
            Eigen::MatrixX2d C(p.num_constraints(), 2);
            for (int i = 0; i < p.num_constraints(); ++i) C.row(i) = p.normal(i).transpose();
            return C;
          },
          "All rows of C (m, 2), unit length.")
      .def_property_readonly(
          "d",
          [](const PaddedPolygon& p) {
            Eigen::VectorXd d(p.num_constraints());
            for (int i = 0; i < p.num_constraints(); ++i) d[i] = p.offset(i);
            return d;
          },
          "All offsets d (m,) of the normalized rows.")
      .def_property_readonly("radius", &PaddedPolygon::radius, "Padding radius R.")
      .def_property_readonly(
          "vertices",
          [](const PaddedPolygon& p) {
            Eigen::MatrixX2d V(static_cast<Eigen::Index>(p.vertices().size()), 2);
            for (size_t i = 0; i < p.vertices().size(); ++i) V.row(static_cast<Eigen::Index>(i)) = p.vertices()[i].transpose();
            return V;
          },
          "Vertices (k, 2) of the polygon, counter-clockwise, redundant rows removed.")
      .def_property_readonly("core_radius", &PaddedPolygon::core_radius, "Largest distance of a vertex from the body origin.")
      .def("contains", refuse_complex(&PaddedPolygon::contains), py::arg("y"), py::arg("tol") = 0.0,
           "True if C y <= d + tol componentwise, y (2,).")
      .def(py::pickle(
          [](const PaddedPolygon& p) {  // the stored unit rows: a fixed point of the normalization
            Eigen::MatrixX2d C(p.num_constraints(), 2);
            Eigen::VectorXd d(p.num_constraints());
            for (int i = 0; i < p.num_constraints(); ++i) {
              C.row(i) = p.normal(i).transpose();
              d[i] = p.offset(i);
            }
            return py::make_tuple(C, d, p.radius());
          },
          [](const py::tuple& state) {
            const py::tuple t = pickle_state(state, 3, "qp.PaddedPolygon");
            return PaddedPolygon(t[0].cast<Eigen::MatrixX2d>(), t[1].cast<Eigen::VectorXd>(), t[2].cast<double>());
          }))
      .def("__repr__", [](const PaddedPolygon& p) {
        return "qp.PaddedPolygon(num_constraints=" + std::to_string(p.num_constraints()) + ", radius=" + fmt(p.radius()) + ")";
      });

  // ------------------------------------------------------------------ options, status, results
  py::enum_<qp::PenetrationAxis>(m, "PenetrationAxis", "The separating axis behind a penetration measure.")
      .value("none", qp::PenetrationAxis::none, "no penetration measure")
      .value("face1", qp::PenetrationAxis::face1, "the plane normal of polygon core 1")
      .value("face2", qp::PenetrationAxis::face2, "the plane normal of polygon core 2")
      .value("edges", qp::PenetrationAxis::edges, "edge axis_edge1 of core 1 crossed with edge axis_edge2 of core 2");
  py::enum_<qp::CapsuleSolver>(m, "CapsuleSolver", "Which solver serves the capsule-capsule QP.")
      .value("active_set", qp::CapsuleSolver::active_set, "Algorithms 4-5 (default; closed form)")
      .value("interior_point", qp::CapsuleSolver::interior_point, "the interior-point QP (for comparison)");

  py::class_<qp::QpOptions> qpo(m, "QpOptions", "Interior-point QP settings (polygon pairs; capsule-capsule with CapsuleSolver.interior_point).");
  qpo.def(py::init([](double tolerance, int max_iterations, double step_fraction, double centrality, bool polish,
                      double singular_tolerance) {
            qp::QpOptions o;
            o.tolerance = tolerance;
            o.max_iterations = max_iterations;
            o.step_fraction = step_fraction;
            o.centrality = centrality;
            o.polish = polish;
            o.singular_tolerance = singular_tolerance;
            check_qp_options(o);
            return o;
          }),
          py::kw_only(), py::arg("tolerance") = qp::QpOptions{}.tolerance,
          py::arg("max_iterations") = qp::QpOptions{}.max_iterations,
          py::arg("step_fraction") = qp::QpOptions{}.step_fraction, py::arg("centrality") = qp::QpOptions{}.centrality,
          py::arg("polish") = qp::QpOptions{}.polish, py::arg("singular_tolerance") = qp::QpOptions{}.singular_tolerance,
          "Keyword arguments override the defaults. Raises ValueError for values out of range.");
  def_checked(qpo, "tolerance", &qp::QpOptions::tolerance, "KKT residual and complementarity tolerance, in [1e-14, 1e-3].", check_qp_options);
  def_checked(qpo, "max_iterations", &qp::QpOptions::max_iterations, "Iteration limit (1..100000).", check_qp_options);
  def_checked(qpo, "step_fraction", &qp::QpOptions::step_fraction, "Fraction of the step to the boundary, (0, 1].", check_qp_options);
  def_checked(qpo, "centrality", &qp::QpOptions::centrality, "Central-path neighbourhood gamma, [0, 1).", check_qp_options);
  qpo.def_readwrite("polish", &qp::QpOptions::polish, "Solve the identified active set's KKT system exactly after convergence.");
  def_checked(qpo, "singular_tolerance", &qp::QpOptions::singular_tolerance,
              "Relative eigenvalue threshold of Z^T P Z below which the minimizer counts as not unique (>= 0).",
              check_qp_options);

  py::class_<ProximityOptions> po(m, "ProximityOptions", "Settings of a proximity query; the defaults suit all three pairs.");
  po.def(py::init([](qp::CapsuleSolver capsule_solver, const qp::QpOptions& qpopt, double core_contact_tolerance,
                     double certificate_tolerance) {
           ProximityOptions o;
           o.capsule_solver = capsule_solver;
           o.qp = qpopt;
           o.core_contact_tolerance = core_contact_tolerance;
           o.certificate_tolerance = certificate_tolerance;
           check_proximity_options(o);
           return o;
         }),
         py::kw_only(), py::arg("capsule_solver") = ProximityOptions{}.capsule_solver, py::arg("qp") = qp::QpOptions{},
         py::arg("core_contact_tolerance") = ProximityOptions{}.core_contact_tolerance,
         py::arg("certificate_tolerance") = ProximityOptions{}.certificate_tolerance,
         "Keyword arguments override the defaults. Raises ValueError for values out of range.");
  po.def_readwrite("capsule_solver", &ProximityOptions::capsule_solver, "CapsuleSolver of the capsule-capsule QP.");
  po.def_property(
      "qp", [](const ProximityOptions& o) { return o.qp; },
      [](ProximityOptions& o, const qp::QpOptions& q) {
        check_qp_options(q);
        o.qp = q;
      },
      "QpOptions (a copy; assign a whole QpOptions to change it).");
  def_checked(po, "core_contact_tolerance", &ProximityOptions::core_contact_tolerance,
              "|p1 - p2| <= tol (rho1 + rho2) counts as touching cores (>= 0).", check_proximity_options);
  def_checked(po, "certificate_tolerance", &ProximityOptions::certificate_tolerance,
              "Polygon pairs: relative tolerance of the a posteriori certificate of an ok answer, in units of the "
              "pair's length unit (in [1e-14, 1e-3]).",
              check_proximity_options);

  py::class_<qp::ProximityQpInfo>(m, "ProximityQpInfo", "The QP behind a proximity result (for inspection and the derivatives).")
      .def_readonly("n", &qp::ProximityQpInfo::n, "Number of QP variables (2, 3 or 4).")
      .def_readonly("m", &qp::ProximityQpInfo::m, "Number of inequality constraints.")
      .def_readonly("x", &qp::ProximityQpInfo::x, "x = (theta1 | y1, theta2 | y2) (4,); entries >= n are 0.")
      .def_readonly("lambda_", &qp::ProximityQpInfo::lambda,
                    "Multipliers of the rows of G (34,), entries >= m are 0 (the C++ member lambda; also "
                    "readable as getattr(info, 'lambda')).")
      .def_readonly("lambda", &qp::ProximityQpInfo::lambda, "The C++ name of lambda_ (a Python keyword: use getattr).")
      .def_readonly("active", &qp::ProximityQpInfo::active, "Active constraints as a bit mask (bit i = row i of G).")
      .def_readonly("iterations", &qp::ProximityQpInfo::iterations, "Interior-point iterations (0 for the active set).")
      .def_readonly("interior_point", &qp::ProximityQpInfo::interior_point, "Solved by the interior-point QP.")
      .def_readonly("polished", &qp::ProximityQpInfo::polished, "Interior point: active-set polish accepted.")
      .def_readonly("S", &qp::ProximityQpInfo::S, "Sensitivity dx = -S (dP x + dc) (4, 4), top-left n x n.")
      .def("__repr__", [](const qp::ProximityQpInfo& q) {
        return ReprBuilder("qp.ProximityQpInfo")
            .field("n", q.n)
            .field("m", q.m)
            .field("iterations", q.iterations)
            .field("interior_point", q.interior_point)
            .field("polished", q.polished)
            .str();
      });

  py::class_<ProximityResult> res(m, "ProximityResult", doc(std::string(R"(Result of one proximity query.

Fields (read-only; vectors are numpy arrays, the C++ names):
  status              SolveStatus; ok (a bool) is status == ok
  phi                 |p1 - p2|^2 - (R1 + R2)^2, eq. (20)
  signed_distance     |p1 - p2| - (R1 + R2)
  core_distance       |p1 - p2|
  core1_W, core2_W (3,)     witness points on the cores (world); core1_B1, core2_B2 in the shapes' frames
  p1_W, p2_W (3,)  closest points on the padded surfaces, eq. (21)-(22)
  normal_W (3,)       (p2 - p1)/|p2 - p1| (zero when cores_touch)
  cores_touch         |p1 - p2| ~ 0;  unique_minimizer: the witness points are unique
  qp                  ProximityQpInfo
)") + kQpConventionsDoc));
  res.def_readonly("status", &ProximityResult::status, "SolveStatus.")
      .def_property_readonly("ok", &ProximityResult::ok, "status == SolveStatus.ok (a bool, not a method).")
      .def_readonly("phi", &ProximityResult::phi, doc(qp_field_doc("phi", "()")))
      .def_readonly("signed_distance", &ProximityResult::signed_distance, doc(qp_field_doc("signed_distance", "()")))
      .def_readonly("core_distance", &ProximityResult::core_distance, doc(qp_field_doc("core_distance", "()")))
      .def_readonly("core1_W", &ProximityResult::core1_W, doc(qp_field_doc("core1_W", "(3,)")))
      .def_readonly("core2_W", &ProximityResult::core2_W, doc(qp_field_doc("core2_W", "(3,)")))
      .def_readonly("core1_B1", &ProximityResult::core1_B1, doc(qp_field_doc("core1_B1", "(3,)")))
      .def_readonly("core2_B2", &ProximityResult::core2_B2, doc(qp_field_doc("core2_B2", "(3,)")))
      .def_readonly("p1_W", &ProximityResult::p1_W, doc(qp_field_doc("p1_W", "(3,)")))
      .def_readonly("p2_W", &ProximityResult::p2_W, doc(qp_field_doc("p2_W", "(3,)")))
      .def_readonly("normal_W", &ProximityResult::normal_W, doc(qp_field_doc("normal_W", "(3,)")))
      .def_readonly("cores_touch", &ProximityResult::cores_touch, "|p1 - p2| ~ 0 (see ProximityOptions.core_contact_tolerance).")
      .def_readonly("unique_minimizer", &ProximityResult::unique_minimizer, "The witness points p1, p2 are unique.")
      .def_readonly("core_distance_lower_bound", &ProximityResult::core_distance_lower_bound,
                    "Polygon pairs: a certified lower bound of core_distance (0 unless ok / not_certified).")
      .def_readonly("length_unit", &ProximityResult::length_unit,
                    "The length unit the QP was solved in (a power of two near rho1 + rho2; 1 for capsule-capsule).")
      .def_readonly("penetration", &ProximityResult::penetration,
                    "Polygon pairs with overlapping cores: signed_distance, normal_W, p_i and closest_i come from the "
                    "best separating axis (signed core distance < 0), with a non-zero gradient.")
      .def_readonly("axis", &ProximityResult::axis,
                    "PenetrationAxis: which separating axis the penetration measure is (none without one).")
      .def_readonly("axis_edge1", &ProximityResult::axis_edge1, "axis == edges: the edge of core 1 (else -1).")
      .def_readonly("axis_edge2", &ProximityResult::axis_edge2, "axis == edges: the edge of core 2 (else -1).")
      .def_readonly("qp", &ProximityResult::qp, "ProximityQpInfo: the QP behind the result.")
      .def("__repr__", &result_repr);

  static const std::string prox_doc = std::string(R"(Proximity of two DiffPills shapes (capsules / padded polygons).

Solves the QP of the two cores with the equality constraints eliminated: capsule-capsule
(25)-(26) (box active set, Algorithms 4-5, by default), polygon-polygon (31)-(32) and
capsule-polygon (36)-(37) (interior point + polish); polygon-capsule solves capsule-polygon
with the shapes swapped and swaps the result back.

Args:
  shape1, shape2: Capsule or PaddedPolygon (any combination).
  X_W1, X_W2: world poses of shape 1 and 2 (Pose, [x, y, z, qw, qx, qy, qz] or 4x4).
  options: ProximityOptions (default ProximityOptions()).
Returns:
  ProximityResult (phi, signed_distance, core1_W, core2_W, p1_W, p2_W, normal_W, ...).
  Failures are reported by .status, never by an exception.
Raises:
  ValueError for an invalid pose or options.

Where the minimizer is not unique (parallel segments / edges / faces) unique_minimizer is False
and p1, p2 are one valid pair; phi, the signed distance and the normal are the same for every
minimizing pair.
)") + kQpConventionsDoc;

  static const std::string deriv_doc = std::string(R"(Derivatives of a proximity result with respect to both poses.

Differentiates the QP solution (seed (13)-(17)), reusing the stored sensitivity (no new
factorization); phi and the signed distance by the envelope theorem.

Args:
  shape1, X_W1, shape2, X_W2: the shapes and poses of the proximity() call.
  result: its ProximityResult.
  frame: ReferenceFrame.world (default), .local or .local_world_aligned for the 6 columns.
Returns:
  ProximityDerivatives with blocks J_<out>_X1, J_<out>_X2 (see help(diffcol.qp.ProximityDerivatives)).
Raises:
  ValueError for an invalid pose.
)") + kQpConventionsDoc;

  auto def_pair = [&](auto tag1, auto tag2) {
    using S1 = typename decltype(tag1)::type;
    using S2 = typename decltype(tag2)::type;
    m.def(
        "proximity",
        [](const S1& s1, const PoseArg& X1, const S2& s2, const PoseArg& X2, const ProximityOptions& o) {
          check_proximity_options(o);
          ProximityResult r;
          qp::proximity(s1, X1.value, s2, X2.value, o, r);
          return r;
        },
        py::arg("shape1"), py::arg("X_W1"), py::arg("shape2"), py::arg("X_W2"), py::arg("options") = ProximityOptions{},
        prox_doc.c_str());
    if constexpr (!(std::is_same_v<S1, qp::Capsule> && std::is_same_v<S2, qp::Capsule>)) {
      m.def(
          "certify",
          [](const S1& s1, const PoseArg& X1, const S2& s2, const PoseArg& X2, const ProximityResult& r,
             const ProximityOptions& o) {
            check_proximity_options(o);
            ProximityResult copy = r;
            const bool ok = qp::certify(s1, X1.value, s2, X2.value, copy, o);
            return py::make_tuple(ok, copy.core_distance_lower_bound);
          },
          py::arg("shape1"), py::arg("X_W1"), py::arg("shape2"), py::arg("X_W2"), py::arg("result"),
          py::arg("options") = ProximityOptions{},
          "The a posteriori certificate of a polygon-pair result (its witness points core1_B1, core2_B2 in their cores, "
          "core distance within options.certificate_tolerance of a certified lower bound): "
          "(certified: bool, core_distance_lower_bound: float).");
    }
    m.def(
        "proximity_derivatives",
        [](const S1& s1, const PoseArg& X1, const S2& s2, const PoseArg& X2, const ProximityResult& r,
           ReferenceFrame c) {
          ProximityDerivatives d;
          qp::proximity_derivatives(s1, X1.value, s2, X2.value, r, d, c);
          return d;
        },
        py::arg("shape1"), py::arg("X_W1"), py::arg("shape2"), py::arg("X_W2"), py::arg("result"),
        py::arg("frame") = ReferenceFrame::world, deriv_doc.c_str());
    m.def(
        "proximity_hessians",
        [](const S1& s1, const PoseArg& X1, const S2& s2, const PoseArg& X2, const ProximityResult& r,
           ReferenceFrame c) {
          auto h = std::make_unique<qp::ProximityHessians>();
          qp::proximity_hessians(s1, X1.value, s2, X2.value, r, *h, c);
          return h;
        },
        py::arg("shape1"), py::arg("X_W1"), py::arg("shape2"), py::arg("X_W2"), py::arg("result"),
        py::arg("frame") = ReferenceFrame::world,
        "ProximityHessians of a result of proximity() with the same shapes and poses: 12x12 Hessians over "
        "[twist of X_W1 | twist of X_W2] in `frame` (docs/qp.md, 'Second-order and shape derivatives').");
    m.def(
        "proximity_shape_derivatives",
        [](const S1& s1, const PoseArg& X1, const S2& s2, const PoseArg& X2, const ProximityResult& r) {
          auto d = std::make_unique<qp::ProximityShapeDerivatives>();
          qp::proximity_shape_derivatives(s1, X1.value, s2, X2.value, r, *d);
          return d;
        },
        py::arg("shape1"), py::arg("X_W1"), py::arg("shape2"), py::arg("X_W2"), py::arg("result"),
        "ProximityShapeDerivatives of a result of proximity(): columns shape_parameter_names(shape1) + "
        "shape_parameter_names(shape2).");
  };
  struct CapsuleTag {
    using type = Capsule;
  };
  struct PolygonTag {
    using type = PaddedPolygon;
  };
  def_pair(CapsuleTag{}, CapsuleTag{});
  def_pair(PolygonTag{}, PolygonTag{});
  def_pair(CapsuleTag{}, PolygonTag{});
  def_pair(PolygonTag{}, CapsuleTag{});

  m.def("swap_shapes", &qp::swap_shapes, py::arg("result"),
        "Swaps the roles of shape 1 and 2 in a result, in place (p1 <-> p2, closest1 <-> closest2, normal -> "
        "-normal; core1_B1 <-> core2_B2). The qp field is left unchanged.");
  m.def("segment_pair_parameters", refuse_complex(&qp::segment_pair_parameters), py::arg("u1"), py::arg("u2"), py::arg("g"),
        "Algorithm 4 for segments p1 = b1 + theta1 u1, p2 = b2 + theta2 u2, g = b1 - b2: the minimizing "
        "(theta1, theta2) in [0, 1]^2 (2,). Always finite (parallel and zero-length segments included).");

  // ------------------------------------------------------------------ derivatives
  py::class_<ProximityDerivatives> der(m, "ProximityDerivatives", doc(std::string(R"(Derivatives of one proximity result.

Blocks J_<output>_<X1|X2> (numpy arrays, read-only, the C++ names), 6 columns = the twist of
X_W1 / X_W2 in `frame`:
  J_phi_X1, J_phi_X2, J_signed_distance_X1, J_signed_distance_X2 (6,)
  J_core1_W_*, J_core2_W_*, J_p1_W_*, J_p2_W_*, J_normal_W_* (3, 6)
status: DerivativeStatus (ok, non_unique_minimizer, cores_touch, solve_failed); the
blocks are finite in every case and zero when solve_failed.
)") + kQpConventionsDoc));
  der.def_readonly("status", &ProximityDerivatives::status, "DerivativeStatus.")
      .def_property_readonly(
          "ok", [](const ProximityDerivatives& d) { return d.status == diffcol::DerivativeStatus::ok; },
          "status == DerivativeStatus.ok (a bool, not a method): a unique minimizer, cores apart.")
      .def_readonly("frame", &ProximityDerivatives::frame, "ReferenceFrame of the columns.")
      .def("__repr__", &derivatives_repr);
#define DIFFCOL_QP_BLOCK(name, shape) der.def_readonly(#name, &ProximityDerivatives::name, doc(qp_field_doc(#name, shape)))
  DIFFCOL_QP_BLOCK(J_phi_X1, "(6,)");
  DIFFCOL_QP_BLOCK(J_phi_X2, "(6,)");
  DIFFCOL_QP_BLOCK(J_signed_distance_X1, "(6,)");
  DIFFCOL_QP_BLOCK(J_signed_distance_X2, "(6,)");
  DIFFCOL_QP_BLOCK(J_core1_W_X1, "(3, 6)");
  DIFFCOL_QP_BLOCK(J_core1_W_X2, "(3, 6)");
  DIFFCOL_QP_BLOCK(J_core2_W_X1, "(3, 6)");
  DIFFCOL_QP_BLOCK(J_core2_W_X2, "(3, 6)");
  DIFFCOL_QP_BLOCK(J_p1_W_X1, "(3, 6)");
  DIFFCOL_QP_BLOCK(J_p1_W_X2, "(3, 6)");
  DIFFCOL_QP_BLOCK(J_p2_W_X1, "(3, 6)");
  DIFFCOL_QP_BLOCK(J_p2_W_X2, "(3, 6)");
  DIFFCOL_QP_BLOCK(J_normal_W_X1, "(3, 6)");
  DIFFCOL_QP_BLOCK(J_normal_W_X2, "(3, 6)");
#undef DIFFCOL_QP_BLOCK

  // ------------------------------------------------------------------ second order, shape parameters
  py::class_<qp::ProximityHessians> hes(m, "ProximityHessians", R"(Second-order pose derivatives of one proximity result.

H_phi, H_signed_distance: (12, 12); H_core1_W, H_core2_W, H_p1_W, H_p2_W, H_normal_W: (3, 12, 12),
one matrix per world component. Columns [zeta1 | zeta2] in .frame: the Hessian of
f(exp((M1 zeta1)^) X_W1, exp((M2 zeta2)^) X_W2), M_i = world_twist_from_frame(frame, X_Wi) (world:
exp(eta^) X; local: X exp(zeta^)); symmetric. status: DerivativeStatus; with cores_touch
only H_phi and the core witness blocks are set; zero when solve_failed / invalid_input.)");
  hes.def_readonly("status", &qp::ProximityHessians::status, "DerivativeStatus.")
      .def_readonly("frame", &qp::ProximityHessians::frame, "ReferenceFrame of the columns.")
      .def_property_readonly("ok", &qp::ProximityHessians::ok, "status == DerivativeStatus.ok (a bool).")
      .def_readonly("H_phi", &qp::ProximityHessians::H_phi, "Hessian of phi (12, 12)")
      .def_readonly("H_signed_distance", &qp::ProximityHessians::H_signed_distance,
                    "Hessian of the signed distance (12, 12)")
      .def("__repr__", [](const qp::ProximityHessians& h) {
        return std::string("ProximityHessians(status=") + diffcol::status_name(h.status) +
               ", frame=" + reference_frame_name(h.frame) + ")";
      });
  const auto stack3 = [](const std::array<qp::Mat12, 3>& arr) {
    py::array_t<double> out({3, 12, 12});
    auto v = out.mutable_unchecked<3>();
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) v(k, i, j) = arr[k](i, j);
    return out;
  };
#define DIFFCOL_QP_HESSIAN_VECTOR(name)                                                                   \
  hes.def_property_readonly(#name, [stack3](const qp::ProximityHessians& h) { return stack3(h.name); }, \
                            "(3, 12, 12): one symmetric matrix per world component")
  DIFFCOL_QP_HESSIAN_VECTOR(H_core1_W);
  DIFFCOL_QP_HESSIAN_VECTOR(H_core2_W);
  DIFFCOL_QP_HESSIAN_VECTOR(H_p1_W);
  DIFFCOL_QP_HESSIAN_VECTOR(H_p2_W);
  DIFFCOL_QP_HESSIAN_VECTOR(H_normal_W);
#undef DIFFCOL_QP_HESSIAN_VECTOR
  py::class_<qp::ProximityShapeDerivatives> psd(m, "ProximityShapeDerivatives",
                                                R"(Derivatives with respect to the shapes' parameters.

Columns: shape 1's parameters (count1, shape_parameter_names(shape1)), then shape 2's (count2):
capsule radius, length; padded polygon radius, d[i], C[i][j] (the stored unit-row constraints).
d_phi, d_signed_distance: (count1 + count2,); d_core1_W, d_core2_W, d_p1_W, d_p2_W, d_normal_W:
(3, count1 + count2). status: DerivativeStatus (with cores_touch only the radius columns of
d_phi and d_signed_distance are set).)");
  psd.def_readonly("status", &qp::ProximityShapeDerivatives::status, "DerivativeStatus.")
      .def_property_readonly("ok", &qp::ProximityShapeDerivatives::ok, "status == DerivativeStatus.ok.")
      .def_readonly("count1", &qp::ProximityShapeDerivatives::count1, "number of parameters of shape 1")
      .def_readonly("count2", &qp::ProximityShapeDerivatives::count2, "number of parameters of shape 2")
      .def_property_readonly("d_phi", [](const qp::ProximityShapeDerivatives& d) { return Eigen::VectorXd(d.d_phi.transpose()); },
                             "d phi / d (parameters), (count1 + count2,)")
      .def_property_readonly(
          "d_signed_distance",
          [](const qp::ProximityShapeDerivatives& d) { return Eigen::VectorXd(d.d_signed_distance.transpose()); },
          "d signed_distance / d (parameters), (count1 + count2,)")
      .def("__repr__", [](const qp::ProximityShapeDerivatives& d) {
        return std::string("ProximityShapeDerivatives(status=") + diffcol::status_name(d.status) +
               ", count1=" + std::to_string(d.count1) + ", count2=" + std::to_string(d.count2) + ")";
      });
#define DIFFCOL_QP_SHAPE_ROWS3(name)                                                                       \
  psd.def_property_readonly(#name, [](const qp::ProximityShapeDerivatives& d) { return Eigen::MatrixXd(d.name); }, \
                            "d " #name " / d (parameters of shape 1, then shape 2), (3, count1 + count2)")
  DIFFCOL_QP_SHAPE_ROWS3(d_core1_W);
  DIFFCOL_QP_SHAPE_ROWS3(d_core2_W);
  DIFFCOL_QP_SHAPE_ROWS3(d_p1_W);
  DIFFCOL_QP_SHAPE_ROWS3(d_p2_W);
  DIFFCOL_QP_SHAPE_ROWS3(d_normal_W);
#undef DIFFCOL_QP_SHAPE_ROWS3
  m.def(
      "shape_parameter_names",
      [](const Capsule& c) {
        return std::vector<std::string>{qp::proximity_shape_parameter_name(c, 0), qp::proximity_shape_parameter_name(c, 1)};
      },
      py::arg("shape"), "Parameter names of a capsule: ['radius', 'length'].");
  m.def(
      "shape_parameter_names",
      [](const PaddedPolygon& p) {
        std::vector<std::string> out;
        for (int i = 0; i < qp::proximity_shape_parameter_count(p); ++i)
          out.push_back(qp::proximity_shape_parameter_name(p, i));
        return out;
      },
      py::arg("shape"), "Parameter names of a padded polygon: radius, d[0..m-1], C[0][0], C[0][1], ...");

  py::class_<qp::ProximityGradient>(m, "ProximityGradient", "phi and its gradient only (capsule-capsule fast path).")
      .def_readonly("status", &qp::ProximityGradient::status, "SolveStatus.")
      .def_property_readonly(
          "ok", [](const qp::ProximityGradient& g) { return g.status == diffcol::SolveStatus::ok; },
          "status == SolveStatus.ok (a bool, not a method).")
      .def_readonly("frame", &qp::ProximityGradient::frame, "ReferenceFrame of the columns.")
      .def_readonly("phi", &qp::ProximityGradient::phi, doc(qp_field_doc("phi", "()")))
      .def_readonly("signed_distance", &qp::ProximityGradient::signed_distance, doc(qp_field_doc("signed_distance", "()")))
      .def_readonly("J_phi_X1", &qp::ProximityGradient::J_phi_X1, doc(qp_field_doc("J_phi_X1", "(6,)")))
      .def_readonly("J_phi_X2", &qp::ProximityGradient::J_phi_X2, doc(qp_field_doc("J_phi_X2", "(6,)")))
      .def("__repr__", &gradient_repr);
  m.def(
      "proximity_gradient",
      [](const Capsule& s1, const PoseArg& X1, const Capsule& s2, const PoseArg& X2, ReferenceFrame c) {
        qp::ProximityGradient g;
        qp::proximity_gradient(s1, X1.value, s2, X2.value, g, c);
        return g;
      },
      py::arg("shape1"), py::arg("X_W1"), py::arg("shape2"), py::arg("X_W2"), py::arg("frame") = ReferenceFrame::world,
      "Capsule-capsule phi and d phi / d(twists) with the box active-set solver, without a full result (the same "
      "numbers as proximity() + proximity_derivatives()). Returns a ProximityGradient.");

  // ------------------------------------------------------------------ quaternion coordinates
  m.def(
      "twist_from_position_quaternion",
      [](const Real<Vec3>& r, const Real<Eigen::Vector4d>& q, ReferenceFrame c) { return qp::twist_from_position_quaternion(r, q, c); },
      py::arg("r"), py::arg("q_wxyz"), py::arg("frame"),
      "The (6, 7) map M with twist = M [dr; dq] for a pose Pose.from_quaternion(r, q) built from raw (not "
      "necessarily unit) q = (w, x, y, z); M [0; q] = 0. J_out_rq = J_out_X @ M. Raises ValueError if q is zero "
      "or not finite, or r is not finite.");

  py::class_<qp::ProximityCoordinateJacobians> cj(m, "ProximityCoordinateJacobians", R"(Jacobians with respect to positions and quaternions.

7 columns [r_i (3) | q_i = (w, x, y, z) (4)] per pose: J_phi_rq1, J_phi_rq2,
J_signed_distance_rq1/2 (7,), J_core1_W_rq1/2, J_core2_W_rq1/2, J_p1_W_rq1/2,
J_p2_W_rq1/2, J_normal_W_rq1/2 (3, 7).)");
#define DIFFCOL_QP_CBLOCK(name, shape) \
  cj.def_readonly(#name, &qp::ProximityCoordinateJacobians::name, doc(qp_field_doc(#name, shape)))
  DIFFCOL_QP_CBLOCK(J_phi_rq1, "(7,)");
  DIFFCOL_QP_CBLOCK(J_phi_rq2, "(7,)");
  DIFFCOL_QP_CBLOCK(J_signed_distance_rq1, "(7,)");
  DIFFCOL_QP_CBLOCK(J_signed_distance_rq2, "(7,)");
  DIFFCOL_QP_CBLOCK(J_core1_W_rq1, "(3, 7)");
  DIFFCOL_QP_CBLOCK(J_core1_W_rq2, "(3, 7)");
  DIFFCOL_QP_CBLOCK(J_core2_W_rq1, "(3, 7)");
  DIFFCOL_QP_CBLOCK(J_core2_W_rq2, "(3, 7)");
  DIFFCOL_QP_CBLOCK(J_p1_W_rq1, "(3, 7)");
  DIFFCOL_QP_CBLOCK(J_p1_W_rq2, "(3, 7)");
  DIFFCOL_QP_CBLOCK(J_p2_W_rq1, "(3, 7)");
  DIFFCOL_QP_CBLOCK(J_p2_W_rq2, "(3, 7)");
  DIFFCOL_QP_CBLOCK(J_normal_W_rq1, "(3, 7)");
  DIFFCOL_QP_CBLOCK(J_normal_W_rq2, "(3, 7)");
#undef DIFFCOL_QP_CBLOCK
  cj.def("__repr__", [](const qp::ProximityCoordinateJacobians& j) {
    std::ostringstream os;
    os.precision(10);
    os << "qp.ProximityCoordinateJacobians(|J_phi_rq1|=" << j.J_phi_rq1.norm() << ", |J_phi_rq2|=" << j.J_phi_rq2.norm()
       << ")";
    return os.str();
  });
  m.def("to_position_quaternion", &qp::to_position_quaternion, py::arg("derivatives"), py::arg("r1"), py::arg("q1_wxyz"),
        py::arg("r2"), py::arg("q2_wxyz"),
        "The chain rule of twist_from_position_quaternion applied to every block of `derivatives`, for poses "
        "X_Wi = Pose.from_quaternion(r_i, q_i). Returns ProximityCoordinateJacobians. Raises ValueError for a "
        "zero or non-finite quaternion.");
}

}  // namespace diffcol::python
