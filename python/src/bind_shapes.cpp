// Python bindings of include/diffcol/shapes/: the strictly convex implicit primitives and Shape.
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "diffcol/shapes/shape.hpp"
#include "diffcol/shapes/smoothness.hpp"

namespace diffcol::python {

namespace bind_shapes_local {

// Points and directions must be finite; a result that overflows (|y| ~ 1e300) is an error too,
// not a silent NaN.
void require_finite_point(const Vec3& y, const char* what) {
  if (!y.allFinite()) throw py::value_error(std::string(what) + " must be finite");
}

template <class T>
std::tuple<double, Vec3, Mat3> checked_eval(const T& s, const Vec3& y) {
  require_finite_point(y, "eval: y");
  Vec3 g;
  Mat3 H;
  const double phi = s.eval(y, g, H);
  if (!std::isfinite(phi) || !g.allFinite() || !H.allFinite())
    throw py::value_error("eval: phi or its derivatives overflow at this y (too far from the shape)");
  return std::make_tuple(phi, g, H);
}

template <class T>
double checked_value(const T& s, const Vec3& y) {
  require_coordinates(y.data(), 3, "value: y");  // φ of a point beyond 1e100 overflows
  const double phi = s.value(y);
  if (!std::isfinite(phi)) throw py::value_error("value: phi overflows at this y (too far from the shape)");
  return phi;
}

// The members every primitive shares: φ with derivatives, radii, ray extent.
template <class T>
void def_common(py::class_<T>& c) {
  c.def(
       "eval", [](const T& s, const py::object& y) { return checked_eval(s, eigen_arg<Vec3>(y, "eval: y")); },
       py::arg("y"),
       "(phi, grad, hess) of the implicit function at the point y (3,) of the body frame: phi < 0 inside, "
       "0 on the surface, > 0 outside; grad (3,), hess (3, 3).")
      .def(
          "value", [](const T& s, const py::object& y) { return checked_value(s, eigen_arg<Vec3>(y, "value: y")); },
          py::arg("y"),
          "phi(y) at the point y (3,) of the body frame. ValueError for a y that is not finite, beyond 1e100, or "
          "so far out that phi overflows (steep shapes: large n or beta).")
      .def(
          "ray_extent",
          [](const T& s, const py::object& u_obj) {
            const Vec3 u = eigen_arg<Vec3>(u_obj, "ray_extent: u");
            require_finite_point(u, "ray_extent: u");
            if (!(u.norm() > 0.0)) throw py::value_error("ray_extent: u must be non-zero");
            return s.ray_extent(u);
          },
          py::arg("u"), "Distance from the body origin to the surface along the unit direction u.")
      .def_property_readonly("inner_radius", &T::inner_radius,
                             "Radius of an origin-centred sphere inside the shape (a lower bound).")
      .def_property_readonly("outer_radius", &T::outer_radius,
                             "Radius of an origin-centred sphere containing the shape (an upper bound).")
      .def("__repr__", [](const T& s) { return Shape(s).describe(); });
}

// support(d) of the shapes that have a closed form (sphere, superellipsoid, superelliptic cylinder).
template <class T>
void def_support(py::class_<T>& c) {
  c.def(
      "support",
      [](const T& s, const py::object& d_obj) -> Vec3 {
        const Vec3 d = eigen_arg<Vec3>(d_obj, "support: d");
        if (!d.allFinite()) throw py::value_error("support: d must be finite");
        return s.support(d);
      },
      py::arg("d"),
      "The point of the unregularized shape (eps = 0) farthest along d (3,), body frame; the origin for "
      "d = 0. (Smooth polytopes and truncated cones have no closed form and no support().)");
}

}  // namespace bind_shapes_local

void bind_shapes(py::module_& m) {
  using namespace bind_shapes_local;
  py::enum_<ShapeType>(m, "ShapeType", "The type of a primitive shape.")
      .value("sphere", ShapeType::sphere)
      .value("superellipsoid", ShapeType::superellipsoid)
      .value("superelliptic_cylinder", ShapeType::superelliptic_cylinder)
      .value("smooth_polytope", ShapeType::smooth_polytope)
      .value("smooth_truncated_cone", ShapeType::smooth_truncated_cone);

  py::class_<Sphere> sphere(m, "Sphere", "Sphere of radius R centred at the body origin: phi(y) = |y|/R - 1.");
  sphere.def(py::init<double>(), py::arg("radius"), "Raises ValueError unless radius is in [1e-100, 1e100].")
      .def_property_readonly("radius", &Sphere::radius, "R.")
      .def(py::pickle([](const Sphere& s) { return py::make_tuple(s.radius()); },
                      [](const py::tuple& t) {
                        return Sphere(pickle_state(t, 1, "Sphere")[0].cast<double>());
                      }));
  def_common(sphere);
  def_support(sphere);

  py::class_<Superellipsoid> se(m, "Superellipsoid", R"(Superellipsoid, seed eq. (18):
phi(y) = (sum_i ((y_i/a_i)^2 + eps)^n)^(1/(2n)) - 1, semi-axes a, b, c along the body x, y, z
axes, integer exponent n >= 1 (n = 1: ellipsoid, eps unused).)");
  se.def(py::init<double, double, double, int, double>(), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("n"),
         py::arg("epsilon") = Superellipsoid::kDefaultEpsilon,
         "Sizes first, then the exponent. Raises ValueError unless 1 <= n <= 64, a, b, c are in [1e-100, 1e100] and, for n > 1, "
         "0 <= epsilon < 0.1 (n = 1 ignores epsilon).")
      .def_static("ellipsoid", &Superellipsoid::ellipsoid, py::arg("a"), py::arg("b"), py::arg("c"),
                  "The ellipsoid with semi-axes a, b, c (n = 1).")
      .def_property_readonly("exponent", &Superellipsoid::exponent, "n.")
      .def_property_readonly("semi_axes", &Superellipsoid::semi_axes, "(a, b, c).")
      .def_property_readonly("epsilon", &Superellipsoid::epsilon, "Regularization eps of (A27).")
      .def(py::pickle(
          [](const Superellipsoid& s) {
            const Vec3 a = s.semi_axes();
            return py::make_tuple(s.exponent(), a.x(), a.y(), a.z(), s.epsilon());
          },
          [](const py::tuple& state) {
            const py::tuple t = pickle_state(state, 5, "Superellipsoid");
            return Superellipsoid(t[1].cast<double>(), t[2].cast<double>(), t[3].cast<double>(), t[0].cast<int>(),
                                  t[4].cast<double>());
          }));
  def_common(se);
  def_support(se);

  py::class_<SuperellipticCylinder> sec(m, "SuperellipticCylinder", R"(Superelliptic cylinder, seed eq. (19):
axis = body x axis, radius R, half-height h, integer exponent n >= 1.)");
  sec.def(py::init<double, double, int, double>(), py::arg("radius"), py::arg("half_height"), py::arg("n"),
          py::arg("epsilon") = SuperellipticCylinder::kDefaultEpsilon,
          "Raises ValueError unless 1 <= n <= 64, radius and half_height are in [1e-100, 1e100] and, for "
          "n > 1, 0 <= epsilon < 0.1 (n = 1 ignores epsilon).")
      .def_property_readonly("exponent", &SuperellipticCylinder::exponent, "n.")
      .def_property_readonly("radius", &SuperellipticCylinder::radius, "R.")
      .def_property_readonly("half_height", &SuperellipticCylinder::half_height, "h.")
      .def_property_readonly("epsilon", &SuperellipticCylinder::epsilon, "Regularization eps of (A37).")
      .def(py::pickle(
          [](const SuperellipticCylinder& s) {
            return py::make_tuple(s.exponent(), s.radius(), s.half_height(), s.epsilon());
          },
          [](const py::tuple& state) {
            const py::tuple t = pickle_state(state, 4, "SuperellipticCylinder");
            return SuperellipticCylinder(t[1].cast<double>(), t[2].cast<double>(), t[0].cast<int>(), t[3].cast<double>());
          }));
  def_common(sec);
  def_support(sec);

  py::class_<SmoothPolytope> poly(m, "SmoothPolytope", R"(Smooth polytope, seed eq. (13)-(14):
phi(y) = smax_beta((A y - b)/L) (LogSumExp). The exact polytope {A y <= b} must be bounded and
contain the origin strictly (b > 0); the smooth shape lies inside it.)");
  poly.def(py::init([](const Real<Eigen::MatrixX3d>& A, const Real<Eigen::VectorXd>& b, double beta, double length) {
             return SmoothPolytope(A, b, beta, length);
           }),
           py::arg("A"), py::arg("b"),
           py::arg("beta"), py::arg("length") = 1.0,
           "A: (m, 3) outward face normals, b: (m,) offsets > 0, beta > 0 sharpness, length L > 0. Raises "
           "ValueError for m < 4, non-finite data, b_i <= 0, a zero row, an unbounded polytope, an inner "
           "radius below 1e-100, beta <= 0, L outside [1e-100, 1e100] or an origin outside the smooth shape.")
      .def_static("box", &SmoothPolytope::box, py::arg("hx"), py::arg("hy"), py::arg("hz"), py::arg("beta"),
                  py::arg("length") = 1.0, "Axis-aligned box with half-extents hx, hy, hz about the origin.")
      .def_static(
          "convex_hull",
          [](const Real<Eigen::MatrixXd>& points, double beta, double length) {
            if (points.cols() != 3)
              throw std::invalid_argument("SmoothPolytope.convex_hull: points must be an (n, 3) array");
            std::vector<Vec3> pts(static_cast<size_t>(points.rows()));
            for (Eigen::Index i = 0; i < points.rows(); ++i) pts[static_cast<size_t>(i)] = points.row(i).transpose();
            return SmoothPolytope::convex_hull(pts, beta, length);
          },
          py::arg("points"), py::arg("beta"), py::arg("length") = 1.0,
          "Convex hull of points (n, 3) (any n; at most 4096 hull faces, C++ SmoothPolytope::kMaxFaces); the origin must lie strictly inside.")
      .def_property_readonly("num_faces", &SmoothPolytope::num_faces, "m.")
      .def_property_readonly("beta", &SmoothPolytope::beta, "beta.")
      .def_property_readonly("length", &SmoothPolytope::length, "L.")
      .def_property_readonly(
          "A",
          [](const SmoothPolytope& s) {
            Eigen::MatrixX3d A(s.num_faces(), 3);
            for (int i = 0; i < s.num_faces(); ++i) A.row(i) = s.normal(i).transpose();
            return A;
          },
          "Face normals (m, 3) as given.")
      .def_property_readonly(
          "b",
          [](const SmoothPolytope& s) {
            Eigen::VectorXd b(s.num_faces());
            for (int i = 0; i < s.num_faces(); ++i) b[i] = s.offset(i);
            return b;
          },
          "Offsets (m,).")
      .def_property_readonly(
          "vertices",
          [](const SmoothPolytope& s) {
            Eigen::MatrixX3d V(static_cast<Eigen::Index>(s.vertices().size()), 3);
            for (size_t i = 0; i < s.vertices().size(); ++i) V.row(static_cast<Eigen::Index>(i)) = s.vertices()[i].transpose();
            return V;
          },
          "Vertices (k, 3) of the exact polytope {A y <= b}.")
      .def(py::pickle(
          [](const SmoothPolytope& s) {  // A and b exactly as given (normal(i), offset(i)), beta, L
            Eigen::MatrixX3d A(s.num_faces(), 3);
            Eigen::VectorXd b(s.num_faces());
            for (int i = 0; i < s.num_faces(); ++i) {
              A.row(i) = s.normal(i).transpose();
              b[i] = s.offset(i);
            }
            return py::make_tuple(A, b, s.beta(), s.length());
          },
          [](const py::tuple& state) {
            const py::tuple t = pickle_state(state, 4, "SmoothPolytope");
            return SmoothPolytope(t[0].cast<Eigen::MatrixX3d>(), t[1].cast<Eigen::VectorXd>(), t[2].cast<double>(),
                                  t[3].cast<double>());
          }));
  def_common(poly);

  py::class_<SmoothTruncatedCone> tc(m, "SmoothTruncatedCone", R"(Smooth truncated cone, seed eq. (15)-(17):
axis = body x axis, bottom cap at x = -a (radius R_b), top cap at x = b (radius R_t),
LogSumExp sharpness beta.)");
  tc.def(py::init<double, double, double, double, double>(), py::arg("bottom_radius"), py::arg("top_radius"),
         py::arg("a"), py::arg("b"), py::arg("beta"),
         "Raises ValueError unless beta is finite and > 0 and the radii and a, b are in [1e-100, 1e100].")
      .def_property_readonly("beta", &SmoothTruncatedCone::beta, "beta.")
      .def_property_readonly("bottom_radius", &SmoothTruncatedCone::bottom_radius, "R_b.")
      .def_property_readonly("top_radius", &SmoothTruncatedCone::top_radius, "R_t.")
      .def_property_readonly("bottom_extent", &SmoothTruncatedCone::bottom_extent, "a.")
      .def_property_readonly("top_extent", &SmoothTruncatedCone::top_extent, "b.")
      .def(py::pickle(
          [](const SmoothTruncatedCone& s) {
            return py::make_tuple(s.beta(), s.bottom_radius(), s.top_radius(), s.bottom_extent(), s.top_extent());
          },
          [](const py::tuple& state) {
            const py::tuple t = pickle_state(state, 5, "SmoothTruncatedCone");
            return SmoothTruncatedCone(t[1].cast<double>(), t[2].cast<double>(), t[3].cast<double>(),
                                       t[4].cast<double>(), t[0].cast<double>());
          }));
  def_common(tc);

  py::class_<Shape> shape(m, "Shape", R"(Any primitive shape, as a value: what the solver functions take.

Every primitive (Sphere, Superellipsoid, ...) converts to a Shape implicitly, so they can be
passed wherever a Shape is expected. The primitive itself is Shape.primitive.)");
  shape.def(py::init<Sphere>(), py::arg("shape"))
      .def(py::init<Superellipsoid>(), py::arg("shape"))
      .def(py::init<SuperellipticCylinder>(), py::arg("shape"))
      .def(py::init<SmoothPolytope>(), py::arg("shape"))
      .def(py::init<SmoothTruncatedCone>(), py::arg("shape"))
      .def_property_readonly("type", &Shape::type, "The ShapeType.")
      .def_property_readonly(
          "primitive", [](const Shape& s) { return s.variant(); }, "The primitive (a Sphere, Superellipsoid, ...).")
      .def(
          "eval", [](const Shape& s, const py::object& y) { return checked_eval(s, eigen_arg<Vec3>(y, "eval: y")); },
          py::arg("y"),
          "(phi, grad, hess) at the point y (3,) of the body frame.")
      .def(
          "value", [](const Shape& s, const py::object& y) { return checked_value(s, eigen_arg<Vec3>(y, "value: y")); },
          py::arg("y"), "phi(y).")
      .def_property_readonly("inner_radius", &Shape::inner_radius, "Inscribed origin-centred sphere radius (bound).")
      .def_property_readonly("outer_radius", &Shape::outer_radius, "Circumscribed origin-centred sphere radius (bound).")
      .def("describe", &Shape::describe, "One-line description, e.g. 'superellipsoid(n=8, a=0.5, b=1, c=1.5)'.")
      .def(py::pickle([](const Shape& s) { return py::make_tuple(py::cast(s.variant())); },
                      [](const py::tuple& state) {
                        const py::object p = pickle_state(state, 1, "Shape")[0];
                        try {
                          return p.cast<Shape>();
                        } catch (const py::cast_error&) {
                          throw std::invalid_argument("Shape: the pickled state does not hold an iDCOL primitive");
                        }
                      }))
      .def("__repr__", &Shape::describe);
  py::implicitly_convertible<Sphere, Shape>();
  py::implicitly_convertible<Superellipsoid, Shape>();
  py::implicitly_convertible<SuperellipticCylinder, Shape>();
  py::implicitly_convertible<SmoothPolytope, Shape>();
  py::implicitly_convertible<SmoothTruncatedCone, Shape>();

  // smoothness.hpp: the smoothness parameter from a distance tolerance
  py::class_<SmoothPolytopeFit>(m, "SmoothPolytopeFit",
                                "A smooth polytope fitted to an exact one (fit_smooth_box, fit_smooth_polytope, "
                                "fit_smooth_convex_hull).")
      .def_readonly("beta", &SmoothPolytopeFit::beta,
                    "The smallest sharpness beta (to 1e-6 relative) that meets the tolerance.")
      .def_readonly("length", &SmoothPolytopeFit::length, "The characteristic length L that beta goes with.")
      .def_readonly("hausdorff_distance", &SmoothPolytopeFit::hausdorff_distance,
                    "Hausdorff distance between the smooth surface and the exact polytope's surface.")
      .def_readonly("shape", &SmoothPolytopeFit::shape, "The SmoothPolytope at beta and L.")
      .def("__repr__", [](const SmoothPolytopeFit& f) {
        std::ostringstream os;
        os << "SmoothPolytopeFit(beta=" << f.beta << ", length=" << f.length
           << ", hausdorff_distance=" << f.hausdorff_distance << ")";
        return os.str();
      });
  py::class_<SuperellipsoidFit>(m, "SuperellipsoidFit", "A superellipsoid fitted to a box (fit_superellipsoid_to_box).")
      .def_readonly("exponent", &SuperellipsoidFit::exponent, "The smallest n (1 <= n <= 64) that meets the tolerance.")
      .def_readonly("hausdorff_distance", &SuperellipsoidFit::hausdorff_distance,
                    "Hausdorff distance between the superellipsoid's surface and the box's.")
      .def_readonly("shape", &SuperellipsoidFit::shape, "The Superellipsoid.")
      .def("__repr__", [](const SuperellipsoidFit& f) {
        std::ostringstream os;
        os << "SuperellipsoidFit(exponent=" << f.exponent << ", hausdorff_distance=" << f.hausdorff_distance << ")";
        return os.str();
      });
  py::class_<SuperellipticCylinderFit>(m, "SuperellipticCylinderFit",
                                       "A superelliptic cylinder fitted to a circular one (fit_superelliptic_cylinder).")
      .def_readonly("exponent", &SuperellipticCylinderFit::exponent,
                    "The smallest n (1 <= n <= 64) that meets the tolerance.")
      .def_readonly("hausdorff_distance", &SuperellipticCylinderFit::hausdorff_distance,
                    "Hausdorff distance between the superelliptic cylinder's surface and the cylinder's.")
      .def_readonly("shape", &SuperellipticCylinderFit::shape, "The SuperellipticCylinder.")
      .def("__repr__", [](const SuperellipticCylinderFit& f) {
        std::ostringstream os;
        os << "SuperellipticCylinderFit(exponent=" << f.exponent << ", hausdorff_distance=" << f.hausdorff_distance
           << ")";
        return os.str();
      });

  m.def("fit_smooth_box", &fit_smooth_box, py::arg("hx"), py::arg("hy"), py::arg("hz"), py::arg("tolerance"),
        py::arg("length") = 1.0,
        "The smooth box (SmoothPolytope.box) with half-extents hx, hy, hz whose surface lies within tolerance (a "
        "length) of the exact box's, at the smallest sharpness beta for the characteristic length L = length. "
        "The smooth shape lies inside the box. Returns a SmoothPolytopeFit (beta, length, hausdorff_distance, shape). "
        "Raises ValueError for invalid sizes or a tolerance that is not finite and > 0, not below min(hx, hy, hz), "
        "or below 1e-8 x the outer radius.");
  m.def(
      "fit_smooth_polytope",
      [](const Real<Eigen::MatrixX3d>& A, const Real<Eigen::VectorXd>& b, double tolerance, double length) {
        return fit_smooth_polytope(A, b, tolerance, length);
      },
      py::arg("A"), py::arg("b"), py::arg("tolerance"), py::arg("length") = 1.0,
      "fit_smooth_box for the polytope {A y <= b} (A (m, 3), b (m,), as SmoothPolytope takes them); the tolerance "
      "must lie below the inradius about the origin, min_i b_i/|a_i|.");
  m.def(
      "fit_smooth_convex_hull",
      [](const Real<Eigen::MatrixXd>& points, double tolerance, double length) {
        if (points.cols() != 3) throw std::invalid_argument("fit_smooth_convex_hull: points must be an (n, 3) array");
        std::vector<Vec3> pts(static_cast<size_t>(points.rows()));
        for (Eigen::Index i = 0; i < points.rows(); ++i) pts[static_cast<size_t>(i)] = points.row(i).transpose();
        return fit_smooth_convex_hull(pts, tolerance, length);
      },
      py::arg("points"), py::arg("tolerance"), py::arg("length") = 1.0,
      "fit_smooth_box for the convex hull of points (n, 3) (SmoothPolytope.convex_hull).");
  m.def("fit_superellipsoid_to_box", &fit_superellipsoid_to_box, py::arg("hx"), py::arg("hy"), py::arg("hz"),
        py::arg("tolerance"), py::arg("epsilon") = Superellipsoid::kDefaultEpsilon,
        "The superellipsoid with semi-axes hx, hy, hz and the smallest exponent n whose surface lies within "
        "tolerance of the box with half-extents hx, hy, hz (it lies inside the box). Returns a SuperellipsoidFit "
        "(exponent, hausdorff_distance, shape). Raises ValueError for a tolerance that is not finite and > 0, not "
        "below min(hx, hy, hz), or below the distance at n = 64 (use fit_smooth_box).");
  m.def("fit_superelliptic_cylinder", &fit_superelliptic_cylinder, py::arg("radius"), py::arg("half_height"),
        py::arg("tolerance"), py::arg("epsilon") = SuperellipticCylinder::kDefaultEpsilon,
        "The superelliptic cylinder (axis = body x) with the smallest exponent n whose surface lies within tolerance "
        "of the circular cylinder of this radius and half-height (it lies inside). Returns a "
        "SuperellipticCylinderFit (exponent, hausdorff_distance, shape). Raises ValueError as "
        "fit_superellipsoid_to_box (the tolerance below min(radius, half_height)).");
  m.def("smooth_polytope_hausdorff_distance", &smooth_polytope_hausdorff_distance, py::arg("shape"),
        "Hausdorff distance between a SmoothPolytope's surface (at its beta) and its exact polytope's surface.");
  m.def("superellipsoid_box_hausdorff_distance", &superellipsoid_box_hausdorff_distance, py::arg("shape"),
        "Hausdorff distance between a Superellipsoid's surface and that of the box of its semi-axes.");
  m.def("superelliptic_cylinder_hausdorff_distance", &superelliptic_cylinder_hausdorff_distance, py::arg("shape"),
        "Hausdorff distance between a SuperellipticCylinder's surface and that of the circular cylinder of its "
        "radius and half-height.");
}

}  // namespace diffcol::python
