// Shape descriptions made into shapes of a family (scene/shape_description.hpp).
#include "diffcol/scene/shape_description.hpp"

#include <sstream>
#include <stdexcept>

#include "diffcol/shapes/smoothness.hpp"

namespace diffcol::scene {

namespace {

// R·e_x = e_z: the family shapes' x axis onto the description's z axis (a rotation about y by −90°).
Pose x_axis_to_z() {
  Pose X;
  X.R << 0.0, 0.0, -1.0,  //
      0.0, 1.0, 0.0,      //
      1.0, 0.0, 0.0;
  return X;
}

std::string num(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

[[noreturn]] void no_shape(const ShapeDescription& d, Family f) {
  throw std::invalid_argument(std::string("no ") + family_name(f) + " shape for " + d.describe() +
                              " (docs/scene.md, shape descriptions): pick another family");
}

}  // namespace

const char* shape_kind_name(ShapeKind k) {
  switch (k) {
    case ShapeKind::sphere: return "sphere";
    case ShapeKind::box: return "box";
    case ShapeKind::cylinder: return "cylinder";
    case ShapeKind::capsule: return "capsule";
    case ShapeKind::ellipsoid: return "ellipsoid";
    case ShapeKind::cone: return "cone";
    case ShapeKind::convex_hull: return "convex_hull";
  }
  return "unknown";
}

ShapeDescription ShapeDescription::sphere(double radius) {
  ShapeDescription d;
  d.kind = ShapeKind::sphere;
  d.radius = radius;
  return d;
}
ShapeDescription ShapeDescription::box(double half_x, double half_y, double half_z) {
  ShapeDescription d;
  d.kind = ShapeKind::box;
  d.half_extents = Vec3(half_x, half_y, half_z);
  return d;
}
ShapeDescription ShapeDescription::cylinder(double radius, double length) {
  ShapeDescription d;
  d.kind = ShapeKind::cylinder;
  d.radius = radius;
  d.length = length;
  return d;
}
ShapeDescription ShapeDescription::capsule(double radius, double length) {
  ShapeDescription d = cylinder(radius, length);
  d.kind = ShapeKind::capsule;
  return d;
}
ShapeDescription ShapeDescription::ellipsoid(double a, double b, double c) {
  ShapeDescription d;
  d.kind = ShapeKind::ellipsoid;
  d.semi_axes = Vec3(a, b, c);
  return d;
}
ShapeDescription ShapeDescription::cone(double height, double half_angle) {
  ShapeDescription d;
  d.kind = ShapeKind::cone;
  d.height = height;
  d.half_angle = half_angle;
  return d;
}
ShapeDescription ShapeDescription::convex_hull(std::vector<Vec3> points) {
  ShapeDescription d;
  d.kind = ShapeKind::convex_hull;
  d.points = std::move(points);
  return d;
}

std::string ShapeDescription::describe() const {
  switch (kind) {
    case ShapeKind::sphere: return "sphere(radius=" + num(radius) + ")";
    case ShapeKind::box:
      return "box(half_extents=" + num(half_extents.x()) + ", " + num(half_extents.y()) + ", " + num(half_extents.z()) + ")";
    case ShapeKind::cylinder: return "cylinder(radius=" + num(radius) + ", length=" + num(length) + ")";
    case ShapeKind::capsule: return "capsule(radius=" + num(radius) + ", length=" + num(length) + ")";
    case ShapeKind::ellipsoid:
      return "ellipsoid(semi_axes=" + num(semi_axes.x()) + ", " + num(semi_axes.y()) + ", " + num(semi_axes.z()) + ")";
    case ShapeKind::cone: return "cone(height=" + num(height) + ", half_angle=" + num(half_angle) + ")";
    case ShapeKind::convex_hull: return "convex_hull(" + std::to_string(points.size()) + " points)";
  }
  return "unknown";
}

Family parse_family(const std::string& name) {
  if (name == "idcol") return Family::idcol;
  if (name == "dcol") return Family::dcol;
  if (name == "qp") return Family::qp;
  throw std::invalid_argument("unknown family '" + name + "' (expected idcol, dcol or qp)");
}

MadeShape make_shape(const ShapeDescription& d, Family family, const SmoothingOptions& smoothing) {
  if (!(smoothing.tolerance >= 0.0) || !std::isfinite(smoothing.tolerance) || !(smoothing.relative_tolerance >= 0.0) ||
      !(smoothing.relative_tolerance < 1.0))
    throw std::invalid_argument("SmoothingOptions: tolerance must be finite and >= 0, relative_tolerance in [0, 1)");
  const Pose along_z = x_axis_to_z();
  // the smallest half-extent, for the relative tolerance
  double half = 0.0;
  switch (d.kind) {
    case ShapeKind::box: half = d.half_extents.minCoeff(); break;
    case ShapeKind::cylinder: half = std::min(d.radius, 0.5 * d.length); break;
    case ShapeKind::convex_hull: {
      Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
      for (const Vec3& p : d.points) {
        lo = lo.cwiseMin(p);
        hi = hi.cwiseMax(p);
      }
      half = d.points.empty() ? 0.0 : 0.5 * (hi - lo).minCoeff();
      break;
    }
    default: break;
  }
  const double tol = smoothing.tolerance > 0.0 ? smoothing.tolerance : smoothing.relative_tolerance * half;
  // a convex hull about the centroid of its points (strictly inside a full-dimensional hull)
  Vec3 centroid = Vec3::Zero();
  std::vector<Vec3> centred;
  if (d.kind == ShapeKind::convex_hull) {
    if (d.points.empty()) throw std::invalid_argument("convex_hull: no points");
    for (const Vec3& p : d.points) centroid += p;
    centroid /= static_cast<double>(d.points.size());
    centred.reserve(d.points.size());
    for (const Vec3& p : d.points) centred.push_back(p - centroid);
  }
  Pose at_centroid;
  at_centroid.p = centroid;
  switch (family) {
    case Family::dcol:
      switch (d.kind) {
        case ShapeKind::sphere: return {dcol::Primitive(dcol::Sphere(d.radius)), Pose::identity()};
        case ShapeKind::box:
          return {dcol::Primitive(dcol::Polytope::box(d.half_extents.x(), d.half_extents.y(), d.half_extents.z())),
                  Pose::identity()};
        case ShapeKind::cylinder: return {dcol::Primitive(dcol::Cylinder(d.radius, d.length)), along_z};
        case ShapeKind::capsule: return {dcol::Primitive(dcol::Capsule(d.radius, d.length)), along_z};
        case ShapeKind::ellipsoid:
          return {dcol::Primitive(dcol::Ellipsoid::from_semi_axes(d.semi_axes.x(), d.semi_axes.y(), d.semi_axes.z())),
                  Pose::identity()};
        case ShapeKind::cone: {
          // DCOL's apex is at −3H/4·e_x: −x onto +z puts it 3H/4 above G, the base H/4 below
          Pose apex_up;
          apex_up.R << 0.0, 0.0, 1.0,  //
              0.0, 1.0, 0.0,           //
              -1.0, 0.0, 0.0;
          return {dcol::Primitive(dcol::Cone(d.height, d.half_angle)), apex_up};
        }
        case ShapeKind::convex_hull: return {dcol::Primitive(dcol::Polytope::convex_hull(centred)), at_centroid};
      }
      break;
    case Family::idcol:
      switch (d.kind) {
        case ShapeKind::sphere: return {Shape(Sphere(d.radius)), Pose::identity()};
        case ShapeKind::box: {
          const Vec3& h = d.half_extents;
          if (tol > 0.0) return {Shape(fit_smooth_box(h.x(), h.y(), h.z(), tol).shape), Pose::identity()};
          return {Shape(SmoothPolytope::box(h.x(), h.y(), h.z(), smoothing.beta)), Pose::identity()};
        }
        case ShapeKind::cylinder:
          if (tol > 0.0) return {Shape(fit_superelliptic_cylinder(d.radius, 0.5 * d.length, tol).shape), along_z};
          return {Shape(SuperellipticCylinder(d.radius, 0.5 * d.length, smoothing.exponent)), along_z};
        case ShapeKind::ellipsoid:
          return {Shape(Superellipsoid::ellipsoid(d.semi_axes.x(), d.semi_axes.y(), d.semi_axes.z())), Pose::identity()};
        case ShapeKind::convex_hull:
          if (tol > 0.0) return {Shape(fit_smooth_convex_hull(centred, tol).shape), at_centroid};
          return {Shape(SmoothPolytope::convex_hull(centred, smoothing.beta)), at_centroid};
        case ShapeKind::capsule:
        case ShapeKind::cone: no_shape(d, family);
      }
      break;
    case Family::qp:
      switch (d.kind) {
        case ShapeKind::sphere: return {qp::Capsule(d.radius, 0.0), Pose::identity()};
        case ShapeKind::capsule: return {qp::Capsule(d.radius, d.length), along_z};
        default: no_shape(d, family);
      }
  }
  no_shape(d, family);
}

}  // namespace diffcol::scene
