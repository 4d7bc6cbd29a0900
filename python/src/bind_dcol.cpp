// Python bindings of include/diffcol/dcol/: DCOL's exact convex primitives, the cone-program
// contact solve, its derivatives and the DCOL.jl (r, q) layout, as the submodule diffcol.dcol.
#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "bindings.hpp"
#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/dcol/euclidean.hpp"
#include "diffcol/dcol/hessians.hpp"
#include "diffcol/dcol/primitives.hpp"

namespace diffcol::python {

namespace bind_dcol_local {

using dcol::ContactDerivatives;
using dcol::ContactResult;
using dcol::Primitive;
using dcol::SolveOptions;

// The DCOL conventions, appended to the docstrings of the entry points.
const char* const kDcolConventionsDoc = R"(
Conventions (diffcol.dcol, as the C++ include/diffcol/dcol)
-----------------------------------------------------------
Poses: X_WB1, X_WB2 are the world poses of body 1 and body 2 (world_from_body), given as a
  diffcol.Pose, a 7-vector [x, y, z, qw, qx, qy, qz] or a 4x4 matrix. Primitive i is mounted on
  its body at the constant offset X_BS (primitive.offset, default identity): it sits at
  X_WSi = X_WBi * offset_i and is scaled about its origin r_i (the translation of X_WSi).
Outputs (world frame): alpha > 1 separated, 1 touching, < 1 penetrating; x_W the intersection
  point of the scaled shapes; p1_W, p2_W the contact points on the unscaled shapes, eq. (29);
  gap = d_D = (1 - 1/alpha) |r_2 - r_1|, the signed form of eq. (30) (< 0 penetrating; not the
  Euclidean distance: euclidean_distance).
Twists are 6-vectors ordered [w; v] (angular first).
  X1 / X2 columns: world twist eta of body i, X_WBi <- exp(eta^) X_WBi (w in world axes, v the
  velocity of the point at the world origin); an offset shape moves with its body.
  X12 columns: body twist xi of X_12 = X_WB1^-1 X_WB2, X_12 <- X_12 exp(xi^).
Jacobians J_<output>_<input>: rows = the output's components, 6 columns = the twist [w; v].
  Scalar outputs give (6,) arrays, points (3, 6). Every block is zero unless status is ok.
DCOL.jl layout: to_position_quaternion(result, derivatives) gives the derivatives with respect
  to (r1, q1, r2, q2) in R^14, q_i = (w, x, y, z) with w >= 0.
)";

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

// SolveOptions checks: dcol::SolveOptions::validate.
void check_dcol_options(const SolveOptions& o) { o.validate(); }

// A dense (k, cols) matrix argument; a wrong number of columns is a ValueError naming `what`.
template <int Cols>
Eigen::Matrix<double, Eigen::Dynamic, Cols> columns(const Eigen::MatrixXd& M, const char* what) {
  if (M.cols() != Cols)
    throw std::invalid_argument(std::string(what) + " must be an (m, " + std::to_string(Cols) + ") array, got (" +
                                std::to_string(M.rows()) + ", " + std::to_string(M.cols()) + ")");
  return M;
}

// A primitive argument: any of the seven primitive classes (pybind11's std::variant caster
// needs default-constructible alternatives, which the primitives are not).
Primitive to_primitive(const py::handle& h, const char* what) {
  if (py::isinstance<dcol::Polytope>(h)) return h.cast<dcol::Polytope>();
  if (py::isinstance<dcol::Capsule>(h)) return h.cast<dcol::Capsule>();
  if (py::isinstance<dcol::Cylinder>(h)) return h.cast<dcol::Cylinder>();
  if (py::isinstance<dcol::Cone>(h)) return h.cast<dcol::Cone>();
  if (py::isinstance<dcol::Ellipsoid>(h)) return h.cast<dcol::Ellipsoid>();
  if (py::isinstance<dcol::PaddedPolygon>(h)) return h.cast<dcol::PaddedPolygon>();
  if (py::isinstance<dcol::Sphere>(h)) return h.cast<dcol::Sphere>();
  throw py::type_error(std::string(what) + ": expected a diffcol.dcol primitive (Polytope, Capsule, Cylinder, Cone, "
                       "Ellipsoid, PaddedPolygon or Sphere), got " + std::string(py::str(py::type::of(h).attr("__name__"))));
}

// A primitive as the Python object of its class.
py::object from_primitive(const Primitive& p) {
  return std::visit([](const auto& s) { return py::cast(s); }, p);
}

// "capsule(R=0.5, L=2)" etc.
template <class T>
std::string primitive_repr(const T& s) {
  std::ostringstream os;
  os << "dcol." << dcol::primitive_type_name(dcol::primitive_type(Primitive(s))) << "(";
  if constexpr (std::is_same_v<T, dcol::Polytope>) {
    os << "num_faces=" << s.num_faces;
  } else if constexpr (std::is_same_v<T, dcol::Capsule> || std::is_same_v<T, dcol::Cylinder>) {
    os << "R=" << fmt(s.R) << ", L=" << fmt(s.L);
  } else if constexpr (std::is_same_v<T, dcol::Cone>) {
    os << "H=" << fmt(s.H) << ", beta=" << fmt(s.beta);
  } else if constexpr (std::is_same_v<T, dcol::Ellipsoid>) {
    os << "inner_radius=" << fmt(s.inner_radius) << ", outer_radius=" << fmt(s.outer_radius);
  } else if constexpr (std::is_same_v<T, dcol::PaddedPolygon>) {
    os << "num_edges=" << s.num_edges << ", R=" << fmt(s.R);
  } else {
    os << "R=" << fmt(s.R);
  }
  os << ")";
  return os.str();
}

// Members of every primitive: offset (read-write, a PoseArg validated on assignment), support, repr.
template <class T>
void def_offset(py::class_<T>& c) {
  c.def_property(
      "offset", [](const T& s) { return s.offset; }, [](T& s, const PoseArg& X) { s.offset = X.value; },
      "X_BS: the constant pose of the shape frame S in its body's frame B (a Pose; assign a Pose, a "
      "7-vector or a 4x4 matrix). The solver places the shape at X_WS = X_WB * offset.");
  c.def(
      "support",
      [](const T& s, const Real<Eigen::Vector3d>& d) -> Eigen::Vector3d {
        if (!d.allFinite()) throw py::value_error("support: d must be finite");
        return s.support(d);
      },
      py::arg("d"),
      "A point of the primitive (shape frame, scale 1) maximizing d . y; on ties one of the maximizers, "
      "for d = 0 the shape origin. d: (3,), finite.");
  c.def("__repr__", &primitive_repr<T>, "Type and parameters.");
}

std::string result_repr(const ContactResult& r) {
  std::ostringstream os;
  os.precision(10);
  os << "dcol.ContactResult(status=" << diffcol::status_name(r.status) << ", alpha=" << r.alpha
     << ", gap=" << r.gap << ", iterations=" << r.iterations << ", polished=" << (r.kkt.polished ? "True" : "False")
     << ")";
  return os.str();
}

std::string certificate_repr(const dcol::Certificate& c) {
  std::ostringstream os;
  os.precision(10);
  os << "dcol.Certificate(ok=" << (c.ok() ? "True" : "False") << ", gap=" << c.gap() << ", bound_gap=" << c.bound_gap
     << ", witness_violation=" << c.witness_violation << ")";
  return os.str();
}

template <class D>
std::string derivative_repr(const char* name, const D& d) {
  return std::string("dcol.") + name + "(status=" + diffcol::status_name(d.status) + ")";
}

// Docstring of a DCOL output or Jacobian block.
std::string dcol_field_doc(const std::string& name, const std::string& shape) {
  static const std::pair<const char*, const char*> kFields[] = {
      {"alpha", "alpha*, the minimum scaling: > 1 separated, 1 touching, < 1 penetrating"},
      {"x_W", "x*, the intersection point of the scaled shapes, world frame"},
      {"p1_W", "contact point on shape 1, eq. (29), world frame"},
      {"p2_W", "contact point on shape 2, eq. (29), world frame"},
      {"gap", "d_D = (1 - 1/alpha*) |r_2 - r_1|, signed eq. (30): > 0 separated, < 0 penetrating (not Euclidean)"},
  };
  auto wrt = [](const std::string& in) -> std::string {
    return in == "X12"  ? "the body twist [w; v] of X_12 = X_WB1^-1 X_WB2 (X_12 <- X_12 exp(xi^))"
           : in == "X1" ? "the world twist [w; v] of body 1 (X_WB1 <- exp(eta^) X_WB1)"
                        : "the world twist [w; v] of body 2 (X_WB2 <- exp(eta^) X_WB2)";
  };
  return block_doc(name, shape, kFields, wrt, "; rows: components of the output, columns: the twist");
}

}  // namespace bind_dcol_local

void bind_dcol(py::module_& parent) {
  using namespace bind_dcol_local;
  py::module_ m = parent.def_submodule("dcol", R"(DCOL: exact convex primitives, minimum-scaling contact as a cone program.

The DCOL formulation (seed: dcol-differentiable-collision-convex-primitives, Sec. II-III): the
minimum uniform scaling alpha* of two convex primitives at which they intersect, problem (9),
solved as a small cone program by a primal-dual interior-point method (Nesterov-Todd scaling,
Mehrotra predictor-corrector, Newton polish), with derivatives by the implicit function theorem.
Statuses: diffcol.SolveStatus, diffcol.DerivativeStatus, diffcol.DistanceStatus,
diffcol.DistanceDerivativeStatus, diffcol.status_name (shared by every layer).

Primitives: Polytope, Capsule, Cylinder, Cone, Ellipsoid, PaddedPolygon, Sphere (each with an
  offset pose on its body), benchmark_primitive, make_primitive, PrimitiveType
Contact: solve_contact, SolveOptions, ContactResult, StartMethod, ConeKkt
Derivatives: contact_derivatives, ContactDerivatives, separating_normal, normal_derivatives,
  NormalDerivatives, to_position_quaternion, PositionQuaternionJacobians, world_twist_to_position_quaternion
Second order and shape parameters: contact_hessians, ContactHessians, HessianOutputs, shape_derivatives,
  ShapeDerivatives, sparse_shape_derivatives, SparseShapeDerivatives, shape_parameter_names
)" );

  m.attr("kMaxPolytopeFaces") = dcol::kMaxPolytopeFaces;
  m.attr("kMaxPolygonEdges") = dcol::kMaxPolygonEdges;
  m.attr("kMaxConeVars") = dcol::kMaxConeVars;
  m.attr("kMaxConeRows") = dcol::kMaxConeRows;

  // ------------------------------------------------------------------ primitives
  py::enum_<dcol::PrimitiveType>(m, "PrimitiveType", "The type of a DCOL primitive (the index order of Primitive).")
      .value("polytope", dcol::PrimitiveType::polytope)
      .value("capsule", dcol::PrimitiveType::capsule)
      .value("cylinder", dcol::PrimitiveType::cylinder)
      .value("cone", dcol::PrimitiveType::cone)
      .value("ellipsoid", dcol::PrimitiveType::ellipsoid)
      .value("padded_polygon", dcol::PrimitiveType::padded_polygon)
      .value("sphere", dcol::PrimitiveType::sphere);

  py::class_<dcol::Polytope> poly(m, "Polytope", R"(Convex polytope {y : A y <= b} in the shape frame, eq. (10)-(11).

Scaled set: A y <= alpha b. The rows are stored with unit normals (row i and b_i divided by |a_i|).)");
  poly.def(py::init([](const Real<Eigen::MatrixXd>& A, const Real<Eigen::VectorXd>& b, const PoseArg& offset) {
             return dcol::Polytope(columns<3>(A, "Polytope: A"), b, offset.value);
           }),
           py::arg("A"), py::arg("b"), py::arg("offset") = Pose::identity(),
           "A: (m, 3) face normals (rows need not be unit), 4 <= m <= kMaxPolytopeFaces; b: (m,) offsets > 0; "
           "offset: X_BS. Raises ValueError for wrong sizes, non-finite entries, b_i <= 0, a zero row or an "
           "unbounded set.")
      .def_static(
          "box", [](double hx, double hy, double hz, const PoseArg& o) { return dcol::Polytope::box(hx, hy, hz, o.value); },
          py::arg("hx"), py::arg("hy"), py::arg("hz"), py::arg("offset") = Pose::identity(),
          "The axis-aligned box with half-extents hx, hy, hz > 0 centred at the shape origin.")
      .def_static(
          "convex_hull",
          [](const Real<Eigen::MatrixXd>& points, const PoseArg& o) {
            if (points.cols() != 3) throw std::invalid_argument("Polytope.convex_hull: points must be an (n, 3) array");
            std::vector<Vec3> pts(static_cast<size_t>(points.rows()));
            for (Eigen::Index i = 0; i < points.rows(); ++i) pts[static_cast<size_t>(i)] = points.row(i).transpose();
            return dcol::Polytope::convex_hull(pts, o.value);
          },
          py::arg("points"), py::arg("offset") = Pose::identity(),
          "Convex hull of points (n, 3) by Qhull, coplanar facets merged (a cube's corners give 6 faces); the shape "
          "origin must lie strictly inside. Raises ValueError for fewer than 4 points, non-finite or coplanar "
          "points, or more than kMaxPolytopeFaces hull faces.")
      .def_readonly("num_faces", &dcol::Polytope::num_faces, "m, the number of faces.")
      .def_property_readonly(
          "A",
          [](const dcol::Polytope& s) {
            return s.large ? Eigen::MatrixX3d(s.large->A) : Eigen::MatrixX3d(s.A.topRows(s.num_faces));
          },
          "Unit face normals (m, 3).")
      .def_property_readonly(
          "b", [](const dcol::Polytope& s) { return s.large ? Eigen::VectorXd(s.large->b) : Eigen::VectorXd(s.b.head(s.num_faces)); },
          "Offsets (m,) of the unit-normal rows.")
      .def_readonly("inner_radius", &dcol::Polytope::inner_radius, "min_i b_i: radius of the largest origin-centred inscribed ball.")
      .def_readonly("outer_radius", &dcol::Polytope::outer_radius, "Largest vertex norm.")
      .def_property_readonly(
          "vertices",
          [](const dcol::Polytope& s) {
            return s.large ? Eigen::MatrixX3d(s.large->V) : Eigen::MatrixX3d(s.V.topRows(s.num_vertices));
          },
          "The vertices (k, 3), enumerated at construction (coincident ones merged).")
      .def(py::pickle(
          [](const dcol::Polytope& s) {  // the stored unit rows: a fixed point of the normalization
            const Eigen::MatrixX3d A = s.large ? Eigen::MatrixX3d(s.large->A) : Eigen::MatrixX3d(s.A.topRows(s.num_faces));
            const Eigen::VectorXd b = s.large ? Eigen::VectorXd(s.large->b) : Eigen::VectorXd(s.b.head(s.num_faces));
            return py::make_tuple(A, b, s.offset);
          },
          [](const py::tuple& state) {
            const py::tuple t = pickle_state(state, 3, "dcol.Polytope");
            return dcol::Polytope(t[0].cast<Eigen::MatrixX3d>(), t[1].cast<Eigen::VectorXd>(), t[2].cast<Pose>());
          }));
  def_offset(poly);

  py::class_<dcol::Capsule> cap(m, "Capsule", "Capsule: the points within R of the segment from -L/2 e_x to +L/2 e_x, eq. (12)-(15).");
  cap.def(py::init([](double R, double L, const PoseArg& o) { return dcol::Capsule(R, L, o.value); }), py::arg("R"),
          py::arg("L"), py::arg("offset") = Pose::identity(), "Raises ValueError unless R > 0 and L > 0 are finite.")
      .def_readonly("R", &dcol::Capsule::R, "Radius R.")
      .def_readonly("L", &dcol::Capsule::L, "Full length L of the core segment.")
      .def(py::pickle([](const dcol::Capsule& s) { return py::make_tuple(s.R, s.L, s.offset); },
                      [](const py::tuple& state) {
                        const py::tuple t = pickle_state(state, 3, "dcol.Capsule");
                        return dcol::Capsule(t[0].cast<double>(), t[1].cast<double>(), t[2].cast<Pose>());
                      }));
  def_offset(cap);

  py::class_<dcol::Cylinder> cyl(m, "Cylinder", "Cylinder of radius R and length L along the shape x axis, centred at the origin, eq. (16)-(18).");
  cyl.def(py::init([](double R, double L, const PoseArg& o) { return dcol::Cylinder(R, L, o.value); }), py::arg("R"),
          py::arg("L"), py::arg("offset") = Pose::identity(), "Raises ValueError unless R > 0 and L > 0 are finite.")
      .def_readonly("R", &dcol::Cylinder::R, "Radius R.")
      .def_readonly("L", &dcol::Cylinder::L, "Length L.")
      .def(py::pickle([](const dcol::Cylinder& s) { return py::make_tuple(s.R, s.L, s.offset); },
                      [](const py::tuple& state) {
                        const py::tuple t = pickle_state(state, 3, "dcol.Cylinder");
                        return dcol::Cylinder(t[0].cast<double>(), t[1].cast<double>(), t[2].cast<Pose>());
                      }));
  def_offset(cyl);

  py::class_<dcol::Cone> cone(m, "Cone", R"(Cone of height H and half-angle beta along +x, eq. (19)-(22):
apex at -3H/4 e_x, base (radius H tan beta) at +H/4 e_x: the origin is a quarter of the height from the base.)");
  cone.def(py::init([](double H, double beta, const PoseArg& o) { return dcol::Cone(H, beta, o.value); }),
           py::arg("H"), py::arg("beta"), py::arg("offset") = Pose::identity(),
           "beta in radians. Raises ValueError unless H > 0 is finite and 0 < beta < pi/2.")
      .def_readonly("H", &dcol::Cone::H, "Height H.")
      .def_readonly("beta", &dcol::Cone::beta, "Half-angle beta (radians).")
      .def_readonly("tan_beta", &dcol::Cone::tan_beta, "tan(beta).")
      .def(py::pickle([](const dcol::Cone& s) { return py::make_tuple(s.H, s.beta, s.offset); },
                      [](const py::tuple& state) {
                        const py::tuple t = pickle_state(state, 3, "dcol.Cone");
                        return dcol::Cone(t[0].cast<double>(), t[1].cast<double>(), t[2].cast<Pose>());
                      }));
  def_offset(cone);

  py::class_<dcol::Ellipsoid> ell(m, "Ellipsoid", "Ellipsoid {y : y^T P y <= 1}, eq. (23)-(24) (constraint |U y| <= alpha, P = U^T U).");
  ell.def(py::init([](const Real<Mat3>& P, const PoseArg& o) { return dcol::Ellipsoid(P, o.value); }), py::arg("P"),
          py::arg("offset") = Pose::identity(),
          "P: (3, 3) symmetric positive definite. Raises ValueError for a non-finite, non-symmetric or not "
          "positive definite P.")
      .def_static(
          "from_semi_axes",
          [](double a, double b, double c, const PoseArg& o) { return dcol::Ellipsoid::from_semi_axes(a, b, c, o.value); },
          py::arg("a"), py::arg("b"), py::arg("c"), py::arg("offset") = Pose::identity(),
          "The ellipsoid with semi-axes a, b, c > 0 along the shape x, y, z axes.")
      .def_readonly("P", &dcol::Ellipsoid::P, "P (3, 3).")
      .def_readonly("U", &dcol::Ellipsoid::U, "Upper-triangular Cholesky factor (3, 3), P = U^T U.")
      .def_readonly("inner_radius", &dcol::Ellipsoid::inner_radius, "1/sqrt(lambda_max(P)).")
      .def_readonly("outer_radius", &dcol::Ellipsoid::outer_radius, "1/sqrt(lambda_min(P)).")
      .def(py::pickle([](const dcol::Ellipsoid& s) { return py::make_tuple(s.P, s.offset); },
                      [](const py::tuple& state) {
                        const py::tuple t = pickle_state(state, 2, "dcol.Ellipsoid");
                        return dcol::Ellipsoid(t[0].cast<Mat3>(), t[1].cast<Pose>());
                      }));
  def_offset(ell);

  py::class_<dcol::PaddedPolygon> pp(m, "PaddedPolygon", R"(Padded polygon, eq. (25)-(28): the points within R of the polygon
{w in R^2 : C w <= d} in the shape x-y plane. Rows are stored with unit normals.)");
  pp.def(py::init([](const Real<Eigen::MatrixXd>& C, const Real<Eigen::VectorXd>& d, double R, const PoseArg& o) {
           return dcol::PaddedPolygon(columns<2>(C, "PaddedPolygon: C"), d, R, o.value);
         }),
         py::arg("C"), py::arg("d"), py::arg("R"), py::arg("offset") = Pose::identity(),
         "C: (m, 2) edge normals, 3 <= m <= kMaxPolygonEdges; d: (m,) offsets > 0; R: padding > 0. Raises "
         "ValueError for wrong sizes, non-finite entries, d_i <= 0, a zero row, an unbounded polygon or R <= 0.")
      .def_static(
          "rectangle",
          [](double hx, double hy, double R, const PoseArg& o) { return dcol::PaddedPolygon::rectangle(hx, hy, R, o.value); },
          py::arg("hx"), py::arg("hy"), py::arg("R"), py::arg("offset") = Pose::identity(),
          "The rectangle |w_1| <= hx, |w_2| <= hy padded by R.")
      .def_readonly("num_edges", &dcol::PaddedPolygon::num_edges, "m, the number of edges.")
      .def_property_readonly(
          "C", [](const dcol::PaddedPolygon& s) { return Eigen::MatrixX2d(s.C.topRows(s.num_edges)); },
          "Unit edge normals (m, 2) (the first num_edges rows of the C++ member).")
      .def_property_readonly(
          "d", [](const dcol::PaddedPolygon& s) { return Eigen::VectorXd(s.d.head(s.num_edges)); }, "Offsets (m,).")
      .def_readonly("R", &dcol::PaddedPolygon::R, "Padding radius R.")
      .def_property_readonly(
          "vertices", [](const dcol::PaddedPolygon& s) { return Eigen::MatrixX2d(s.V.topRows(s.num_vertices)); },
          "The polygon's vertices (k, 2), counter-clockwise, enumerated at construction.")
      .def_readonly("inner_radius", &dcol::PaddedPolygon::inner_radius, "R + min_i d_i.")
      .def_readonly("outer_radius", &dcol::PaddedPolygon::outer_radius, "R + largest polygon vertex norm.")
      .def(py::pickle(
          [](const dcol::PaddedPolygon& s) {  // the stored unit rows: a fixed point of the normalization
            return py::make_tuple(Eigen::MatrixX2d(s.C.topRows(s.num_edges)), Eigen::VectorXd(s.d.head(s.num_edges)), s.R,
                                  s.offset);
          },
          [](const py::tuple& state) {
            const py::tuple t = pickle_state(state, 4, "dcol.PaddedPolygon");
            return dcol::PaddedPolygon(t[0].cast<Eigen::MatrixX2d>(), t[1].cast<Eigen::VectorXd>(), t[2].cast<double>(),
                                       t[3].cast<Pose>());
          }));
  def_offset(pp);

  py::class_<dcol::Sphere> sph(m, "Sphere", "Sphere of radius R centred at the shape origin (the ellipsoid P = I/R^2).");
  sph.def(py::init([](double R, const PoseArg& o) { return dcol::Sphere(R, o.value); }), py::arg("R"),
          py::arg("offset") = Pose::identity(), "Raises ValueError unless R > 0 is finite.")
      .def_readonly("R", &dcol::Sphere::R, "Radius R.")
      .def(py::pickle([](const dcol::Sphere& s) { return py::make_tuple(s.R, s.offset); },
                      [](const py::tuple& state) {
                        const py::tuple t = pickle_state(state, 2, "dcol.Sphere");
                        return dcol::Sphere(t[0].cast<double>(), t[1].cast<Pose>());
                      }));
  def_offset(sph);

  m.def(
      "primitive_type_name", [](dcol::PrimitiveType t) { return dcol::primitive_type_name(t); }, py::arg("type"),
      "'polytope', 'capsule', 'cylinder', 'cone', 'ellipsoid', 'padded_polygon' or 'sphere'.");
  m.def(
      "primitive_type", [](const py::object& p) { return dcol::primitive_type(to_primitive(p, "primitive")); }, py::arg("primitive"),
      "The PrimitiveType of a primitive.");
  m.def(
      "primitive_offset", [](const py::object& p) { return dcol::primitive_offset(to_primitive(p, "primitive")); }, py::arg("primitive"),
      "The offset pose X_BS of any primitive (a copy).");
  m.def(
      "inner_radius", [](const py::object& p) { return dcol::inner_radius(to_primitive(p, "primitive")); }, py::arg("primitive"),
      "Radius of the largest ball about the shape origin inside the primitive (a lower bound for the cone).");
  m.def(
      "outer_radius", [](const py::object& p) { return dcol::outer_radius(to_primitive(p, "primitive")); }, py::arg("primitive"),
      "Radius of the smallest ball about the shape origin containing the primitive (an upper bound).");
  m.def(
      "benchmark_primitive",
      [](const std::string& name) { return from_primitive(dcol::benchmark_primitive(name.c_str())); },
      py::arg("name"), R"(A benchmark primitive by name (shape frame = body frame, no offset):
  'polytope'       the iDCOL benchmark polytope (rows (+-1, +-1, +-1), b = (1,1,1,1, 5/3,5/3,5/3,5/3))
  'capsule'        R = 0.5, L = 2          'cylinder'  R = 0.75, L = 2
  'cone'           H = 2, beta = 30 deg    'ellipsoid' semi-axes 0.5, 1, 1.5
  'padded_polygon' rectangle |w1| <= 1, |w2| <= 0.6, padding 0.2      'sphere' R = 1
Raises ValueError for another name.)");
  m.def(
      "benchmark_primitive_names",
      [] {
        std::vector<std::string> names;
        const char* const* n = dcol::benchmark_primitive_names();
        for (int i = 0; i < dcol::kNumPrimitiveTypes; ++i) names.emplace_back(n[i]);
        return names;
      },
      "The names accepted by benchmark_primitive, in PrimitiveType order.");
  m.def(
      "make_primitive",
      [](const std::string& type, const std::map<std::string, double>& params) {
        return from_primitive(dcol::make_primitive(type, params));
      },
      py::arg("type"), py::arg("params"), R"(A primitive from named parameters (no offset):
  'polytope' (a box): hx, hy, hz     'capsule': R, L      'cylinder': R, L
  'cone': H, beta (radians)          'ellipsoid': a, b, c (semi-axes)
  'padded_polygon' (a padded rectangle): hx, hy, R       'sphere': R
Raises ValueError for an unknown type, a missing or unknown parameter, or invalid values.)");

  // ------------------------------------------------------------------ options, status, result
  py::enum_<dcol::StartMethod>(m, "StartMethod", "Where a DCOL solve's Newton iterations started (a diagnostic).")
      .value("none", dcol::StartMethod::none, "no solve ran (invalid input, coincident origins)")
      .value("closed_form", dcol::StartMethod::closed_form, "two spheres / ellipsoids: a geometric guess")
      .value("exact", dcol::StartMethod::exact, "the exact touching point (ball-padded pairs, a solid against a capsule or padded polygon, an ellipsoid against a polytope)")
      .value("ray_cast", dcol::StartMethod::ray_cast, "a ray cast on the Minkowski difference (MPR)")
      .value("interior_point", dcol::StartMethod::interior_point, "the interior-point iterations");

  py::class_<SolveOptions> opts(m, "SolveOptions", "Interior-point settings of the DCOL solve; the defaults suit every pair of primitives.");
  opts.def(py::init([](double feasibility_tolerance, double gap_tolerance, double gap_relative_tolerance,
                       int max_iterations, double barrier_target, int final_centering_steps,
                       double final_centering_tolerance, bool polish, double polish_start, bool direct_newton) {
             SolveOptions o;
             o.feasibility_tolerance = feasibility_tolerance;
             o.gap_tolerance = gap_tolerance;
             o.gap_relative_tolerance = gap_relative_tolerance;
             o.max_iterations = max_iterations;
             o.barrier_target = barrier_target;
             o.final_centering_steps = final_centering_steps;
             o.final_centering_tolerance = final_centering_tolerance;
             o.polish = polish;
             o.polish_start = polish_start;
             o.direct_newton = direct_newton;
             check_dcol_options(o);
             return o;
           }),
           py::kw_only(), py::arg("feasibility_tolerance") = SolveOptions{}.feasibility_tolerance,
           py::arg("gap_tolerance") = SolveOptions{}.gap_tolerance,
           py::arg("gap_relative_tolerance") = SolveOptions{}.gap_relative_tolerance,
           py::arg("max_iterations") = SolveOptions{}.max_iterations,
           py::arg("barrier_target") = SolveOptions{}.barrier_target,
           py::arg("final_centering_steps") = SolveOptions{}.final_centering_steps,
           py::arg("final_centering_tolerance") = SolveOptions{}.final_centering_tolerance,
           py::arg("polish") = SolveOptions{}.polish, py::arg("polish_start") = SolveOptions{}.polish_start,
           py::arg("direct_newton") = SolveOptions{}.direct_newton,
           "Keyword arguments override the defaults. Raises ValueError for values out of range.");
  def_checked(opts, "feasibility_tolerance", &SolveOptions::feasibility_tolerance,
              "On |s + Gx - h|/max(1, |h|) and |G^T z + c|, in [1e-14, 1e-3].", check_dcol_options);
  def_checked(opts, "gap_tolerance", &SolveOptions::gap_tolerance, "Absolute, on the duality gap s^T z, in [1e-14, 1e-3].",
              check_dcol_options);
  def_checked(opts, "gap_relative_tolerance", &SolveOptions::gap_relative_tolerance, "Relative to alpha*, in [1e-14, 1e-3].",
              check_dcol_options);
  def_checked(opts, "max_iterations", &SolveOptions::max_iterations, "Interior-point iteration limit (1..100000).",
              check_dcol_options);
  def_checked(opts, "barrier_target", &SolveOptions::barrier_target,
              "Smoothing (Sec. II-B): > 0 stops on the central path at mu = barrier_target (alpha, x and their "
              "derivatives are those of the log-barrier-smoothed problem). 0: exact solve.",
              check_dcol_options);
  def_checked(opts, "final_centering_steps", &SolveOptions::final_centering_steps,
              "Newton steps towards the central point after an unpolished convergence (0 disables).",
              check_dcol_options);
  def_checked(opts, "final_centering_tolerance", &SolveOptions::final_centering_tolerance,
              "Centring target of those steps, relative to mu (> 0).", check_dcol_options);
  opts.def_readwrite("polish", &SolveOptions::polish,
                     "Newton polish on the identified active set (exact KKT solution, verified by a certificate).");
  def_checked(opts, "polish_start", &SolveOptions::polish_start,
              "Residuals and relative gap below which the polish is tried (> 0).", check_dcol_options);
  opts.def_readwrite("direct_newton", &SolveOptions::direct_newton,
                     "Newton on the exact KKT conditions from a geometric guess first (sphere/ellipsoid pairs: "
                     "a closed form; other pairs: a ray cast on the support functions); no interior-point "
                     "iterations when it passes the certificate.");
  opts.def("__repr__", [](const SolveOptions& o) {
    std::ostringstream os;
    os << "dcol.SolveOptions(feasibility_tolerance=" << o.feasibility_tolerance << ", gap_tolerance=" << o.gap_tolerance
       << ", gap_relative_tolerance=" << o.gap_relative_tolerance << ", max_iterations=" << o.max_iterations
       << ", barrier_target=" << o.barrier_target << ", final_centering_steps=" << o.final_centering_steps
       << ", final_centering_tolerance=" << o.final_centering_tolerance << ", polish=" << (o.polish ? "True" : "False")
       << ", polish_start=" << o.polish_start << ", direct_newton=" << (o.direct_newton ? "True" : "False") << ")";
    return os.str();
  });

  py::class_<dcol::ConeKkt>(m, "ConeKkt", R"(Final interior-point iterate of a DCOL solve (read-only summary).

The cone program is solved on a unit instance: p_W = origin + length_scale x[0:3] with
length_scale = |r_2 - r_1|, and alpha = alpha_scale x[3] (shape sizes in units of the larger outer
radius); x (n,), s (m,), z (m,) are the primal variables, slacks and multipliers of that instance.)")
      .def_readonly("n", &dcol::ConeKkt::n, "Unknowns: 3 (p) + 1 (alpha) + slacks.")
      .def_readonly("m", &dcol::ConeKkt::m, "Rows of G.")
      .def_readonly("soc_count", &dcol::ConeKkt::soc_count, "Second-order cones (0-2).")
      .def_readonly("origin", &dcol::ConeKkt::origin, "Shift of the coordinates (3,), world frame.")
      .def_readonly("length_scale", &dcol::ConeKkt::length_scale, "Scale of the coordinates: |r_2 - r_1|.")
      .def_readonly("alpha_scale", &dcol::ConeKkt::alpha_scale, "alpha = alpha_scale * x[3].")
      .def_readonly("factored", &dcol::ConeKkt::factored, "The Cholesky factor belongs to the returned iterate.")
      .def_readonly("polished", &dcol::ConeKkt::polished,
                    "The exact KKT conditions hold on the identified active set (verified).")
      .def_readonly("active_count", &dcol::ConeKkt::active_count, "Active orthant rows of the polished solution.")
      .def_readonly("kkt_dim", &dcol::ConeKkt::kkt_dim, "Dimension of the factored KKT matrix of the polish (after slack elimination).")
      .def_readonly("kkt_full_dim", &dcol::ConeKkt::kkt_full_dim,
                    "Dimension n + p of the polish's KKT matrix before slack elimination (kkt_dim + 2 elim_count).")
      .def_readonly("elim_count", &dcol::ConeKkt::elim_count,
                    "Slacks eliminated from the polish's KKT matrix (padded polygon and capsule rows; 0-4).")
      .def_property_readonly(
          "x", [](const dcol::ConeKkt& k) { return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(k.x, k.n)); },
          "Primal variables (n,) (scaled coordinates).")
      .def_property_readonly(
          "s", [](const dcol::ConeKkt& k) { return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(k.s, k.m)); },
          "Slacks s = h - G x (m,).")
      .def_property_readonly(
          "z", [](const dcol::ConeKkt& k) { return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(k.z, k.m)); },
          "Dual variables (m,).")
      .def("__repr__", [](const dcol::ConeKkt& k) {
        return ReprBuilder("dcol.ConeKkt")
            .field("n", k.n)
            .field("m", k.m)
            .field("soc_count", k.soc_count)
            .field("polished", k.polished)
            .str();
      });

  py::class_<ContactResult> res(m, "ContactResult", doc(std::string(R"(Result of one DCOL query (problem (9), eq. (29)-(30)).

Fields (read-only; vectors are numpy arrays, the C++ names):
  status             SolveStatus; ok (a bool) is status == ok
  iterations         interior-point iterations (predictor-corrector pairs)
  alpha              alpha*, the minimum scaling (> 1 separated, < 1 penetrating)
  x_W (3,)           intersection point of the scaled shapes (world)
  p1_W, p2_W (3,)    contact points on shape 1 and 2, eq. (29) (world)
  gap                d_D = (1 - 1/alpha*) |r_2 - r_1|, signed eq. (30)
  duality_measure, primal_residual, dual_residual   at the returned iterate
  start              StartMethod: the solver's path to this solution (diagnostic)
  X_WS1, X_WS2       world poses of the shapes (body pose * offset)
  X_WB1, X_WB2       the body poses passed in
  kkt                ConeKkt (final iterate; kkt.polished: exact KKT solution)
)") + kDcolConventionsDoc));
  res.def_readonly("status", &ContactResult::status, "SolveStatus of the solve.")
      .def_readonly("iterations", &ContactResult::iterations, "Interior-point iterations.")
      .def_readonly("alpha", &ContactResult::alpha, doc(dcol_field_doc("alpha", "()")))
      .def_readonly("x_W", &ContactResult::x_W, doc(dcol_field_doc("x_W", "(3,)")))
      .def_readonly("p1_W", &ContactResult::p1_W, doc(dcol_field_doc("p1_W", "(3,)")))
      .def_readonly("p2_W", &ContactResult::p2_W, doc(dcol_field_doc("p2_W", "(3,)")))
      .def_readonly("gap", &ContactResult::gap, doc(dcol_field_doc("gap", "()")))
      .def_readonly("duality_measure", &ContactResult::duality_measure, "mu = s^T z / deg(K) at the returned iterate.")
      .def_readonly("primal_residual", &ContactResult::primal_residual, "|s + Gx - h| / max(1, |h|).")
      .def_readonly("dual_residual", &ContactResult::dual_residual, "|G^T z + c|.")
      .def_readonly("certificate_gap", &ContactResult::certificate_gap,
                    "certify(shape1, shape2, result).gap(): the independent check of alpha and the witness points "
                    "(at most certificate_tolerance when converged).")
      .def_readonly("start", &ContactResult::start, "StartMethod: where the solver's Newton iterations started.")
      .def_readonly("X_WS1", &ContactResult::X_WS1, "World pose of shape 1 (X_WB1 * offset_1).")
      .def_readonly("X_WS2", &ContactResult::X_WS2, "World pose of shape 2 (X_WB2 * offset_2).")
      .def_readonly("X_WB1", &ContactResult::X_WB1, "The body-1 pose passed in.")
      .def_readonly("X_WB2", &ContactResult::X_WB2, "The body-2 pose passed in.")
      .def_readonly("kkt", &ContactResult::kkt, "ConeKkt: the final iterate (kkt.polished: exact KKT solution).")
      .def_property_readonly("ok", &ContactResult::ok, "status == SolveStatus.ok (a bool, not a method).")
      .def("__repr__", &result_repr);

  static const std::string solve_doc = std::string(R"(Solves DCOL problem (9) for two primitives (cold start).

Finds alpha* = the smallest uniform scaling of both primitives about their own origins at which
the scaled primitives intersect, and the intersection point x*, as a cone program (1)
  minimize alpha  subject to  h - G x in K  (K: nonnegative orthant x second-order cones),
then the contact points (29) and the signed gap d_D (30).

Args:
  shape1, shape2: primitives (Polytope, Capsule, Cylinder, Cone, Ellipsoid, PaddedPolygon, Sphere).
  X_WB1, X_WB2: world poses of body 1 and body 2 (Pose, [x, y, z, qw, qx, qy, qz] or 4x4).
  options: SolveOptions (default SolveOptions()).
Returns:
  ContactResult (alpha, x_W, p1_W, p2_W, gap, ...). A failed solve is reported by .status,
  never by an exception.
Raises:
  ValueError for an invalid pose (non-finite, zero quaternion, not a rotation) or options.

Derivatives: contact_derivatives(result).
)") + kDcolConventionsDoc;
  m.def(
      "solve_contact",
      [](const py::object& shape1, const PoseArg& X1, const py::object& shape2, const PoseArg& X2,
         const SolveOptions& o) {
        const Primitive s1 = to_primitive(shape1, "shape1"), s2 = to_primitive(shape2, "shape2");
        check_dcol_options(o);
        auto r = std::make_unique<ContactResult>();  // large (KKT storage)
        dcol::solve_contact(s1, X1.value, s2, X2.value, *r, o);
        return r;
      },
      py::arg("shape1"), py::arg("X_WB1"), py::arg("shape2"), py::arg("X_WB2"), py::arg("options") = SolveOptions{},
      solve_doc.c_str());

  m.attr("certificate_tolerance") = dcol::kCertificateTolerance;
  py::class_<dcol::Certificate>(m, "Certificate", R"(An a-posteriori check of a DCOL result from the primitives' own
definitions (support functions, membership), independent of the cone program:
  bound_gap          |1 - alpha_low/alpha*|, alpha_low = u.(r_2 - r_1)/(h_1(u) + h_2(-u)) a lower bound
                     on alpha* for the dual's separating normal u (h_i the support functions)
  witness_violation  how far p1_W, p2_W lie outside their shapes, in units of the outer radii
Both are relative (the same at every scale); inf where there is nothing to check.)")
      .def_readonly("bound_gap", &dcol::Certificate::bound_gap,
                    "|1 - alpha_low/alpha|: alpha_low the support-function lower bound on alpha*.")
      .def_readonly("bound_slack", &dcol::Certificate::bound_slack,
                    "10 x dual_residual for an unpolished solution (its normal is that accurate), else 0.")
      .def_readonly("witness_violation", &dcol::Certificate::witness_violation,
                    "How far p1_W, p2_W lie outside their shapes, in units of the outer radii (0 inside).")
      .def_property_readonly("gap", &dcol::Certificate::gap, "max(bound_gap - bound_slack, witness_violation), >= 0.")
      .def_property_readonly(
          "ok", [](const dcol::Certificate& c) { return c.ok(); },
          "gap <= certificate_tolerance (a bool, not a method; within(tolerance) for another tolerance).")
      .def("within", &dcol::Certificate::ok, py::arg("tolerance"), "gap <= tolerance.")
      .def("__repr__", &certificate_repr);
  m.def(
      "certify",
      [](const py::object& shape1, const py::object& shape2, const ContactResult& r) {
        return dcol::certify(to_primitive(shape1, "shape1"), to_primitive(shape2, "shape2"), r);
      },
      py::arg("shape1"), py::arg("shape2"), py::arg("result"),
      "The Certificate of `result`, a solve of shape1 against shape2 (the same shapes, in that order).");

  // ------------------------------------------------------------------ derivatives

  py::class_<ContactDerivatives> der(m, "ContactDerivatives", doc(std::string(R"(First-order derivatives of one DCOL result (Sec. II-B, III-C).

Blocks J_<output>_<input> (numpy arrays, read-only, the C++ names):
  J_alpha_X12 (6,)                         w.r.t. the body twist of X_12
  J_alpha_X1, J_alpha_X2 (6,)              w.r.t. the twists of body 1 / 2 in .frame (default world)
  J_gap_X1, J_gap_X2 (6,)
  J_x_W_X1, J_x_W_X2, J_p1_W_X1, J_p1_W_X2, J_p2_W_X1, J_p2_W_X2 (3, 6)
status: DerivativeStatus; when not ok every block is zero.
Polished solutions: derivatives of the exact solution (IFT on the active-set KKT system, the
solver's LU factors reused). Otherwise (smoothing, or x* not unique, e.g. face-face contact):
derivatives of the central-path solution at the final mu (finite; an element of the Clarke
subdifferential at a kink).
)") + kDcolConventionsDoc));
  der.def_readonly("status", &ContactDerivatives::status, "DerivativeStatus; every block is zero unless ok.")
      .def_property_readonly("ok", &ContactDerivatives::ok, "status == DerivativeStatus.ok (a bool, not a method).")
      .def_readonly("frame", &ContactDerivatives::frame, "ReferenceFrame of the X1 / X2 columns.")
      .def("__repr__", [](const ContactDerivatives& d) { return derivative_repr("ContactDerivatives", d); });
#define DIFFCOL_DCOL_BLOCK(name, shape) \
  der.def_readonly(#name, &ContactDerivatives::name, doc(dcol_field_doc(#name, shape)))
  DIFFCOL_DCOL_BLOCK(J_alpha_X12, "(6,)");
  DIFFCOL_DCOL_BLOCK(J_alpha_X1, "(6,)");
  DIFFCOL_DCOL_BLOCK(J_alpha_X2, "(6,)");
  DIFFCOL_DCOL_BLOCK(J_gap_X1, "(6,)");
  DIFFCOL_DCOL_BLOCK(J_gap_X2, "(6,)");
  DIFFCOL_DCOL_BLOCK(J_x_W_X1, "(3, 6)");
  DIFFCOL_DCOL_BLOCK(J_x_W_X2, "(3, 6)");
  DIFFCOL_DCOL_BLOCK(J_p1_W_X1, "(3, 6)");
  DIFFCOL_DCOL_BLOCK(J_p1_W_X2, "(3, 6)");
  DIFFCOL_DCOL_BLOCK(J_p2_W_X1, "(3, 6)");
  DIFFCOL_DCOL_BLOCK(J_p2_W_X2, "(3, 6)");
#undef DIFFCOL_DCOL_BLOCK

  m.def(
      "contact_derivatives",
      [](const ContactResult& r, ReferenceFrame f) { return dcol::contact_derivatives(r, f); }, py::arg("result"),
      py::arg("frame") = ReferenceFrame::world,
      doc(std::string(R"(Derivatives of a DCOL result (implicit function theorem on the KKT conditions (2)-(5)).

Args:
  result: a ContactResult from solve_contact (it holds the poses and the factorization).
  frame: ReferenceFrame of the X1 / X2 columns (world, local, local_world_aligned), about the
    body poses X_WB1, X_WB2 of the solve (docs/conventions.md).
Returns:
  ContactDerivatives with every block J_<out>_<X12|X1|X2> (see help(diffcol.dcol.ContactDerivatives)).
)") + kDcolConventionsDoc));

  m.def(
      "separating_normal", [](const ContactResult& r) -> Vec3 { return dcol::separating_normal(r); },
      py::arg("result"),
      R"(The unit normal (3,) from shape 1 towards shape 2 at the contact of the scaled shapes, read off
the dual multipliers of body 1's rows (u = sum z_i g_i); zeros where it is undefined (alpha* <= 0, a
failed solve). Its derivatives: normal_derivatives(result).)");
  py::class_<dcol::NormalDerivatives>(m, "NormalDerivatives", R"(Derivatives of separating_normal(result).

normal_W (3,): the normal (zeros unless ok); J_normal_W_X1, J_normal_W_X2 (3, 6): d normal_W / d
twist [w; v] of body 1 / body 2 in .frame (orthogonal to normal_W). From the derivatives of the
dual multipliers: the full KKT system of a polished solution, or dz = -W^-2 ds at the
interior-point iterate otherwise (the central point's normal at the final mu).
status: DerivativeStatus; when not ok every block is zero.)")
      .def_readonly("status", &dcol::NormalDerivatives::status, "DerivativeStatus; every block is zero unless ok.")
      .def_property_readonly("ok", &dcol::NormalDerivatives::ok, "status == DerivativeStatus.ok (a bool, not a method).")
      .def_readonly("frame", &dcol::NormalDerivatives::frame, "ReferenceFrame of the X1 / X2 columns.")
      .def_readonly("normal_W", &dcol::NormalDerivatives::normal_W, "separating_normal(result), (3,)")
      .def_readonly("J_normal_W_X1", &dcol::NormalDerivatives::J_normal_W_X1,
                    "d normal_W / d (twist [w; v] of body 1 in .frame), (3, 6)")
      .def_readonly("J_normal_W_X2", &dcol::NormalDerivatives::J_normal_W_X2,
                    "d normal_W / d (twist [w; v] of body 2 in .frame), (3, 6)")
      .def("__repr__", [](const dcol::NormalDerivatives& d) { return derivative_repr("NormalDerivatives", d); });
  m.def(
      "normal_derivatives",
      [](const ContactResult& r, ReferenceFrame f) { return dcol::normal_derivatives(r, f); }, py::arg("result"),
      py::arg("frame") = ReferenceFrame::world,
      R"(Derivatives of separating_normal(result) with respect to both bodies' twists.

Args:
  result: a ContactResult from solve_contact.
  frame: ReferenceFrame of the X1 / X2 columns (world, local, local_world_aligned).
Returns:
  NormalDerivatives (normal_W, J_normal_W_X1, J_normal_W_X2, status).)");

  // ------------------------------------------------------------------ second order, shape parameters
  py::class_<dcol::ContactHessians> hcls(m, "ContactHessians", R"(Second-order pose derivatives of one DCOL result.

H_alpha, H_gap: (12, 12); H_x_W, H_p1_W, H_p2_W, H_normal_W: (3, 12, 12), one matrix per world component
(zero with outputs=HessianOutputs.scalars). Columns [zeta1 | zeta2] in .frame: the Hessian of
f(exp((M1 zeta1)^) X_WB1, exp((M2 zeta2)^) X_WB2), M_i = world_twist_from_frame(frame, X_WBi)
(world: exp(eta^) X; local: X exp(zeta^)); symmetric. H_alpha_X12 (6, 6): w.r.t. the body twist of
X_12 = X_WB1^-1 X_WB2. Exact second derivatives on the active set of the polished solution
(one-sided at a feature switch); status singular (every block zero) for an unpolished solution
(smoothing, or x* not unique). docs/dcol.md, 'Second-order and shape derivatives'.)");
  hcls.def_readonly("status", &dcol::ContactHessians::status, "DerivativeStatus; every block is zero unless ok.")
      .def_property_readonly("ok", &dcol::ContactHessians::ok, "status == DerivativeStatus.ok (a bool, not a method).")
      .def_readonly("frame", &dcol::ContactHessians::frame, "ReferenceFrame of the 12 columns.")
      .def_readonly("H_alpha", &dcol::ContactHessians::H_alpha, "Hessian of alpha (12, 12)")
      .def_readonly("H_gap", &dcol::ContactHessians::H_gap, "Hessian of the gap d_D (12, 12)")
      .def_readonly("H_alpha_X12", &dcol::ContactHessians::H_alpha_X12,
                    "Hessian of alpha w.r.t. the body twist of X_12 (6, 6)")
      .def("__repr__", [](const dcol::ContactHessians& h) {
        return std::string("ContactHessians(status=") + diffcol::status_name(h.status) +
               ", frame=" + reference_frame_name(h.frame) + ")";
      });
  {
    const auto stack3 = [](const std::array<dcol::Mat12, 3>& arr) {
      py::array_t<double> out({3, 12, 12});
      auto v = out.mutable_unchecked<3>();
      for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 12; ++i)
          for (int j = 0; j < 12; ++j) v(k, i, j) = arr[k](i, j);
      return out;
    };
    hcls.def_property_readonly("H_x_W", [stack3](const dcol::ContactHessians& h) { return stack3(h.H_x_W); },
                               "(3, 12, 12): one symmetric matrix per world component of x_W");
    hcls.def_property_readonly("H_p1_W", [stack3](const dcol::ContactHessians& h) { return stack3(h.H_p1_W); },
                               "(3, 12, 12): one symmetric matrix per world component of p1_W");
    hcls.def_property_readonly("H_p2_W", [stack3](const dcol::ContactHessians& h) { return stack3(h.H_p2_W); },
                               "(3, 12, 12): one symmetric matrix per world component of p2_W");
    hcls.def_property_readonly(
        "H_normal_W", [stack3](const dcol::ContactHessians& h) { return stack3(h.H_normal_W); },
        "(3, 12, 12): one symmetric matrix per world component of separating_normal (zero where the dual normal "
        "vanishes)");
  }
  py::enum_<dcol::HessianOutputs>(m, "HessianOutputs", "Which blocks contact_hessians fills.")
      .value("all", dcol::HessianOutputs::all, "alpha, the gap, the points x_W, p1_W, p2_W and the normal")
      .value("scalars", dcol::HessianOutputs::scalars, "alpha and the gap only");
  m.def(
      "contact_hessians",
      [](const ContactResult& r, ReferenceFrame f, dcol::HessianOutputs o) {
        auto h = std::make_unique<dcol::ContactHessians>();
        dcol::contact_hessians(r, *h, f, o);
        return h;
      },
      py::arg("result"), py::arg("frame") = ReferenceFrame::world, py::arg("outputs") = dcol::HessianOutputs::all,
      "ContactHessians of a result of solve_contact: 12x12 Hessians of alpha, the gap and (outputs = all) each "
      "world component of x_W, p1_W, p2_W over [twist of X_WB1 | twist of X_WB2] in `frame`.");
  py::class_<dcol::ShapeDerivatives>(m, "ShapeDerivatives", R"(Derivatives with respect to the primitives' parameters.

Columns: shape 1's parameters (count1, shape_parameter_names(shape1)), then shape 2's (count2):
polytope b[i], A[i][j] (the stored unit rows); capsule, cylinder radius, length; cone height,
half_angle; ellipsoid P[0][0], P[1][1], P[2][2], P[0][1], P[0][2], P[1][2] (an off-diagonal one
moves both symmetric entries); padded polygon radius, d[i], C[i][j]; sphere radius.
d_alpha, d_gap: (count1 + count2,); d_x_W, d_p1_W, d_p2_W, d_normal_W (of separating_normal):
(3, count1 + count2).
status: DerivativeStatus (singular for an unpolished solution); zero blocks unless ok.)")
      .def_readonly("status", &dcol::ShapeDerivatives::status, "DerivativeStatus.")
      .def_property_readonly("ok", &dcol::ShapeDerivatives::ok, "status == DerivativeStatus.ok.")
      .def_readonly("count1", &dcol::ShapeDerivatives::count1, "number of parameters of shape 1")
      .def_readonly("count2", &dcol::ShapeDerivatives::count2, "number of parameters of shape 2")
      .def_property_readonly(
          "d_alpha", [](const dcol::ShapeDerivatives& d) { return Eigen::VectorXd(d.d_alpha.transpose()); },
          "d alpha / d (parameters), (count1 + count2,)")
      .def_property_readonly(
          "d_gap", [](const dcol::ShapeDerivatives& d) { return Eigen::VectorXd(d.d_gap.transpose()); },
          "d gap / d (parameters), (count1 + count2,)")
      .def_property_readonly(
          "d_x_W", [](const dcol::ShapeDerivatives& d) { return Eigen::MatrixXd(d.d_x_W); },
          "d x_W / d (parameters), (3, count1 + count2)")
      .def_property_readonly(
          "d_p1_W", [](const dcol::ShapeDerivatives& d) { return Eigen::MatrixXd(d.d_p1_W); },
          "d p1_W / d (parameters), (3, count1 + count2)")
      .def_property_readonly(
          "d_p2_W", [](const dcol::ShapeDerivatives& d) { return Eigen::MatrixXd(d.d_p2_W); },
          "d p2_W / d (parameters), (3, count1 + count2)")
      .def_property_readonly(
          "d_normal_W", [](const dcol::ShapeDerivatives& d) { return Eigen::MatrixXd(d.d_normal_W); },
          "d separating_normal / d (parameters), (3, count1 + count2)")
      .def("__repr__", [](const dcol::ShapeDerivatives& d) {
        return std::string("ShapeDerivatives(status=") + diffcol::status_name(d.status) +
               ", count1=" + std::to_string(d.count1) + ", count2=" + std::to_string(d.count2) + ")";
      });
  m.def(
      "shape_derivatives",
      [](const py::object& shape1, const py::object& shape2, const ContactResult& r) {
        const Primitive s1 = to_primitive(shape1, "shape1"), s2 = to_primitive(shape2, "shape2");
        auto d = std::make_unique<dcol::ShapeDerivatives>();
        dcol::shape_derivatives(s1, s2, r, *d);
        return d;
      },
      py::arg("shape1"), py::arg("shape2"), py::arg("result"),
      "ShapeDerivatives of `result`, a solve of shape1 against shape2 (the same shapes, in that order): columns "
      "shape_parameter_names(shape1) + shape_parameter_names(shape2). Raises ValueError for a polytope with more "
      "than 32 faces (sparse_shape_derivatives has them) or shapes that do not match the result.");
  py::class_<dcol::SparseShapeDerivatives>(m, "SparseShapeDerivatives",
                                           R"(Shape-parameter derivatives of the touched parameters only.

For polytopes of any size (a large polytope's active faces through its face window). Column j is
parameter `parameter[j]` (an index into shape_parameter_names(shape1) + shape_parameter_names(shape2));
every parameter not listed has zero derivatives. d_alpha, d_gap: (touched,); d_x_W, d_p1_W, d_p2_W,
d_normal_W: (3, touched). status: DerivativeStatus; no columns unless ok.)")
      .def_readonly("status", &dcol::SparseShapeDerivatives::status, "DerivativeStatus.")
      .def_property_readonly("ok", &dcol::SparseShapeDerivatives::ok, "status == DerivativeStatus.ok.")
      .def_readonly("count1", &dcol::SparseShapeDerivatives::count1, "number of parameters of shape 1")
      .def_readonly("count2", &dcol::SparseShapeDerivatives::count2, "number of parameters of shape 2")
      .def_property_readonly(
          "parameter",
          [](const dcol::SparseShapeDerivatives& d) {
            return std::vector<int>(d.parameter.begin(), d.parameter.begin() + d.touched);
          },
          "the parameter index of each column, (touched,)")
      .def_property_readonly(
          "d_alpha", [](const dcol::SparseShapeDerivatives& d) { return Eigen::VectorXd(d.d_alpha.transpose()); },
          "d alpha / d (touched parameters), (touched,)")
      .def_property_readonly(
          "d_gap", [](const dcol::SparseShapeDerivatives& d) { return Eigen::VectorXd(d.d_gap.transpose()); },
          "d gap / d (touched parameters), (touched,)")
      .def_property_readonly(
          "d_x_W", [](const dcol::SparseShapeDerivatives& d) { return Eigen::MatrixXd(d.d_x_W); },
          "d x_W / d (touched parameters), (3, touched)")
      .def_property_readonly(
          "d_p1_W", [](const dcol::SparseShapeDerivatives& d) { return Eigen::MatrixXd(d.d_p1_W); },
          "d p1_W / d (touched parameters), (3, touched)")
      .def_property_readonly(
          "d_p2_W", [](const dcol::SparseShapeDerivatives& d) { return Eigen::MatrixXd(d.d_p2_W); },
          "d p2_W / d (touched parameters), (3, touched)")
      .def_property_readonly(
          "d_normal_W", [](const dcol::SparseShapeDerivatives& d) { return Eigen::MatrixXd(d.d_normal_W); },
          "d separating_normal / d (touched parameters), (3, touched)")
      .def("__repr__", [](const dcol::SparseShapeDerivatives& d) {
        return std::string("SparseShapeDerivatives(status=") + diffcol::status_name(d.status) +
               ", touched=" + std::to_string(d.touched) + ", count1=" + std::to_string(d.count1) +
               ", count2=" + std::to_string(d.count2) + ")";
      });
  m.def(
      "sparse_shape_derivatives",
      [](const py::object& shape1, const py::object& shape2, const ContactResult& r) {
        const Primitive s1 = to_primitive(shape1, "shape1"), s2 = to_primitive(shape2, "shape2");
        auto d = std::make_unique<dcol::SparseShapeDerivatives>();
        dcol::sparse_shape_derivatives(s1, s2, r, *d);
        return d;
      },
      py::arg("shape1"), py::arg("shape2"), py::arg("result"),
      "SparseShapeDerivatives of `result`, a solve of shape1 against shape2 (the same shapes, in that order): the "
      "touched parameters only, for polytopes of any size. Raises ValueError for shapes that do not match the "
      "result.");
  m.def(
      "shape_parameter_names",
      [](const py::object& shape) {
        const Primitive s = to_primitive(shape, "shape");
        std::vector<std::string> out;
        for (int i = 0; i < dcol::shape_parameter_count(s); ++i) out.push_back(dcol::shape_parameter_name(s, i));
        return out;
      },
      py::arg("shape"), "The names of a primitive's parameters, in the column order of ShapeDerivatives.");

  py::class_<dcol::PositionQuaternionJacobians>(m, "PositionQuaternionJacobians", R"(DCOL derivatives in the layout of DCOL.jl.

Columns: the stacked body coordinates (r1, q1, r2, q2) in R^14: r_i the body position (world,
3 columns), q_i = (w, x, y, z) its attitude quaternion (4 columns, at the unit quaternion with
w >= 0 of X_WBi; orthogonal to q_i, since the normalization removes the radial direction; for
the opposite sign convention -q negate those four columns).
  J_alpha (14,), J_gap (14,), J_x_W, J_p1_W, J_p2_W (3, 14).)")
      .def_readonly("status", &dcol::PositionQuaternionJacobians::status, "DerivativeStatus of the derivatives mapped.")
      .def_property_readonly(
          "ok", [](const dcol::PositionQuaternionJacobians& j) { return j.status == diffcol::DerivativeStatus::ok; },
          "status == DerivativeStatus.ok (a bool, not a method).")
      .def("__repr__",
           [](const dcol::PositionQuaternionJacobians& j) { return derivative_repr("PositionQuaternionJacobians", j); })
      .def_readonly("J_alpha", &dcol::PositionQuaternionJacobians::J_alpha, "d alpha / d(r1, q1, r2, q2), (14,).")
      .def_readonly("J_x_W", &dcol::PositionQuaternionJacobians::J_x_W, "d x_W / d(r1, q1, r2, q2), (3, 14).")
      .def_readonly("J_p1_W", &dcol::PositionQuaternionJacobians::J_p1_W, "d p1_W / d(r1, q1, r2, q2), (3, 14).")
      .def_readonly("J_p2_W", &dcol::PositionQuaternionJacobians::J_p2_W, "d p2_W / d(r1, q1, r2, q2), (3, 14).")
      .def_readonly("J_gap", &dcol::PositionQuaternionJacobians::J_gap,
                    "d gap / d(r1, q1, r2, q2), (14,).");
  m.def("to_position_quaternion", &dcol::to_position_quaternion, py::arg("result"), py::arg("derivatives"),
        "The derivatives of `result` in the DCOL.jl layout (r1, q1, r2, q2); see PositionQuaternionJacobians.");
  m.def(
      "world_twist_to_position_quaternion",
      [](Real<Eigen::MatrixXd> J, const PoseArg& X) {
        if (J.rows() == 6 && J.cols() == 1) J.transposeInPlace();  // a (6,) gradient is a 1 x 6 row
        if (J.cols() != 6)
          throw std::invalid_argument("world_twist_to_position_quaternion: J_X must have 6 columns, got " +
                                      std::to_string(J.cols()));
        return Eigen::MatrixXd(dcol::world_twist_to_position_quaternion(J, X.value));
      },
      py::arg("J_X"), py::arg("X_WB"),
      "Maps a (k, 6) world-twist Jacobian of body B (pose X_WB) to the 7 columns (r, q) of DCOL.jl: returns "
      "(k, 7). A (6,) gradient is taken as 1 x 6. Raises ValueError unless J_X has 6 columns.");
  // ------------------------------------------------------------------ Euclidean distance
  py::enum_<dcol::FeatureKind>(m, "FeatureKind", "The local feature of a shape at its closest point.")
      .value("none", dcol::FeatureKind::none)
      .value("vertex", dcol::FeatureKind::vertex)
      .value("edge", dcol::FeatureKind::edge)
      .value("face", dcol::FeatureKind::face)
      .value("sphere", dcol::FeatureKind::sphere)
      .value("cylinder", dcol::FeatureKind::cylinder)
      .value("circle", dcol::FeatureKind::circle)
      .value("cone", dcol::FeatureKind::cone)
      .value("ellipsoid", dcol::FeatureKind::ellipsoid);
  py::class_<dcol::DistanceResult>(m, "DistanceResult", R"(Euclidean distance of two separated primitives.

distance = |p2_W - p1_W|, the closest points p1_W, p2_W (world) and normal_W = (p2 - p1)/distance
(unit, from shape 1 to shape 2); lower_bound is the certified support-function bound.
status separated: certified; touching_or_overlapping: the shapes meet (distance 0, not a
penetration depth).)")
      .def_readonly("status", &dcol::DistanceResult::status, "DistanceStatus of the query")
      .def_property_readonly("ok", &dcol::DistanceResult::ok, "status == DistanceStatus.separated (a bool).")
      .def_readonly("distance", &dcol::DistanceResult::distance, "|p2_W - p1_W|")
      .def_readonly("lower_bound", &dcol::DistanceResult::lower_bound, "certified lower bound of the distance")
      .def_readonly("p1_W", &dcol::DistanceResult::p1_W, "closest point on shape 1, world (3,)")
      .def_readonly("p2_W", &dcol::DistanceResult::p2_W, "closest point on shape 2, world (3,)")
      .def_readonly("normal_W", &dcol::DistanceResult::normal_W, "unit normal from shape 1 to shape 2, world (3,)")
      .def_readonly("iterations", &dcol::DistanceResult::iterations, "GJK iterations")
      .def_readonly("refine_iterations", &dcol::DistanceResult::refine_iterations, "Newton iterations of the refinement")
      .def_readonly("refined", &dcol::DistanceResult::refined, "the points come from the feature refinement")
      .def_readonly("unique", &dcol::DistanceResult::unique, "the closest points are unique")
      .def_property_readonly("feature1", [](const dcol::DistanceResult& r) { return r.feature1.kind; }, "FeatureKind at p1_W")
      .def_property_readonly("feature2", [](const dcol::DistanceResult& r) { return r.feature2.kind; }, "FeatureKind at p2_W")
      .def("__repr__", [](const dcol::DistanceResult& r) {
        std::ostringstream os;
        os.precision(17);
        os << "dcol.DistanceResult(status=" << diffcol::status_name(r.status) << ", distance=" << r.distance
           << ", lower_bound=" << r.lower_bound << ", features=" << dcol::feature_name(r.feature1.kind) << "/"
           << dcol::feature_name(r.feature2.kind) << ")";
        return os.str();
      });
  m.def(
      "euclidean_distance",
      [](const py::object& shape1, const PoseArg& X1, const py::object& shape2, const PoseArg& X2,
         const py::object& warm, double tolerance, int max_iterations) {
        const Primitive s1 = to_primitive(shape1, "shape1"), s2 = to_primitive(shape2, "shape2");
        dcol::DistanceOptions o;
        o.tolerance = tolerance;
        o.max_iterations = max_iterations;
        o.validate();
        if (!warm.is_none())
          return dcol::euclidean_distance(s1, X1.value, s2, X2.value, warm.cast<const ContactResult&>(), o);
        return dcol::euclidean_distance(s1, X1.value, s2, X2.value, o);
      },
      py::arg("shape1"), py::arg("X_WB1"), py::arg("shape2"), py::arg("X_WB2"), py::arg("warm") = py::none(),
      py::arg("tolerance") = dcol::DistanceOptions{}.tolerance,
      py::arg("max_iterations") = dcol::DistanceOptions{}.max_iterations,
      R"(The Euclidean distance and closest points of two primitives (GJK, refined and certified).

Args:
  shape1, shape2: primitives; X_WB1, X_WB2: world poses of their bodies.
  warm: optional ContactResult of solve_contact for the same pair (its witness points seed GJK).
  tolerance: relative certificate tolerance; max_iterations: GJK iterations.
Returns DistanceResult. Raises ValueError for an invalid pose or options.)");
  py::class_<dcol::DistanceDerivatives>(m, "DistanceDerivatives", R"(Derivatives of a DistanceResult with respect to
the twists [w; v] of body 1 (X1) and body 2 (X2) in .frame (default world: X_WBi <- exp(eta^) X_WBi).
J_distance_Xi (1, 6); J_p1_W_Xi, J_p2_W_Xi, J_normal_W_Xi (3, 6).)")
      .def_readonly("status", &dcol::DistanceDerivatives::status, "DistanceDerivativeStatus")
      .def_readonly("frame", &dcol::DistanceDerivatives::frame, "ReferenceFrame of the X1 / X2 columns")
      .def_property_readonly("ok", &dcol::DistanceDerivatives::ok, "status == DistanceDerivativeStatus.ok (a bool).")
      .def_readonly("J_distance_X1", &dcol::DistanceDerivatives::J_distance_X1, "d distance / d (twist [w; v] in frame of body 1), (1, 6)")
      .def_readonly("J_distance_X2", &dcol::DistanceDerivatives::J_distance_X2, "d distance / d (twist [w; v] in frame of body 2), (1, 6)")
      .def_readonly("J_p1_W_X1", &dcol::DistanceDerivatives::J_p1_W_X1, "d p1_W / d (twist [w; v] in frame of body 1), (3, 6)")
      .def_readonly("J_p1_W_X2", &dcol::DistanceDerivatives::J_p1_W_X2, "d p1_W / d (twist [w; v] in frame of body 2), (3, 6)")
      .def_readonly("J_p2_W_X1", &dcol::DistanceDerivatives::J_p2_W_X1, "d p2_W / d (twist [w; v] in frame of body 1), (3, 6)")
      .def_readonly("J_p2_W_X2", &dcol::DistanceDerivatives::J_p2_W_X2, "d p2_W / d (twist [w; v] in frame of body 2), (3, 6)")
      .def_readonly("J_normal_W_X1", &dcol::DistanceDerivatives::J_normal_W_X1, "d normal_W / d (twist [w; v] in frame of body 1), (3, 6)")
      .def_readonly("J_normal_W_X2", &dcol::DistanceDerivatives::J_normal_W_X2, "d normal_W / d (twist [w; v] in frame of body 2), (3, 6)")
      .def("__repr__", [](const dcol::DistanceDerivatives& d) {
        return std::string("dcol.DistanceDerivatives(status=") + diffcol::status_name(d.status) + ")";
      });
  m.def(
      "distance_derivatives",
      [](const dcol::DistanceResult& r, ReferenceFrame f) { return dcol::distance_derivatives(r, f); },
      py::arg("result"), py::arg("frame") = ReferenceFrame::world, "DistanceDerivatives of a DistanceResult (envelope theorem; IFT on the local features).");
}

bool is_dcol_primitive(const py::handle& h) {
  return py::isinstance<dcol::Polytope>(h) || py::isinstance<dcol::Capsule>(h) || py::isinstance<dcol::Cylinder>(h) ||
         py::isinstance<dcol::Cone>(h) || py::isinstance<dcol::Ellipsoid>(h) || py::isinstance<dcol::PaddedPolygon>(h) ||
         py::isinstance<dcol::Sphere>(h);
}

dcol::Primitive to_dcol_primitive(const py::handle& h, const char* what) { return bind_dcol_local::to_primitive(h, what); }

}  // namespace diffcol::python
