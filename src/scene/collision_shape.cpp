// Scene collision shapes: sizes for messages, bounding radii, exact representations in the other
// families (scene/collision_shape.hpp).
#include "diffcol/scene/collision_shape.hpp"
#include "format_number.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace diffcol::scene {

const char* family_name(Family f) {
  switch (f) {
    case Family::idcol: return "idcol";
    case Family::dcol: return "dcol";
    case Family::qp: return "qp";
  }
  return "unknown";
}

CollisionShape::CollisionShape(Shape s) : v_(std::move(s)) { find_representations(); }

CollisionShape::CollisionShape(dcol::Primitive p) : v_(std::move(p)) {
  // fold the primitive's offset into the mount: the stored primitive is centred on its frame
  std::visit(
      [&](auto& prim) {
        folded_offset_ = prim.offset;
        prim.offset = Pose::identity();
      },
      std::get<dcol::Primitive>(v_));
  find_representations();
}

CollisionShape::CollisionShape(Variant v) : v_(std::move(v)) { find_representations(); }

CollisionShape::CollisionShape(qp::Capsule c) : v_(std::move(c)) { find_representations(); }

CollisionShape::CollisionShape(qp::PaddedPolygon p) : v_(std::move(p)) { find_representations(); }

void CollisionShape::find_representations() {
  // the other families' forms are small shapes (spheres, ellipsoids, capsules, polygons)
  families_ = static_cast<std::uint8_t>(1u << static_cast<int>(family()));
  for (int f = 0; f < kNumFamilies; ++f)
    if (f != static_cast<int>(family()) && build_representation(static_cast<Family>(f)))
      families_ |= static_cast<std::uint8_t>(1u << f);
}

double CollisionShape::outer_radius() const {
  struct Visitor {
    double operator()(const Shape& s) const { return s.outer_radius(); }
    double operator()(const dcol::Primitive& p) const { return dcol::outer_radius(p); }
    double operator()(const qp::Capsule& c) const { return std::max(c.a_B().norm(), c.b_B().norm()) + c.radius(); }
    double operator()(const qp::PaddedPolygon& p) const { return p.core_radius() + p.radius(); }
  };
  return std::visit(Visitor{}, v_);
}

namespace {

using detail::format_number;

std::string describe_primitive(const dcol::Primitive& p) {
  const std::string type = dcol::primitive_type_name(dcol::primitive_type(p));
  struct Visitor {
    std::string operator()(const dcol::Polytope& s) const { return "faces=" + std::to_string(s.num_faces); }
    std::string operator()(const dcol::Capsule& s) const { return "R=" + format_number(s.R) + ", L=" + format_number(s.L); }
    std::string operator()(const dcol::Cylinder& s) const { return "R=" + format_number(s.R) + ", L=" + format_number(s.L); }
    std::string operator()(const dcol::Cone& s) const { return "H=" + format_number(s.H) + ", beta=" + format_number(s.beta); }
    std::string operator()(const dcol::Ellipsoid& s) const {
      return "outer_radius=" + format_number(s.outer_radius) + ", inner_radius=" + format_number(s.inner_radius);
    }
    std::string operator()(const dcol::PaddedPolygon& s) const {
      return "edges=" + std::to_string(s.num_edges) + ", R=" + format_number(s.R);
    }
    std::string operator()(const dcol::Sphere& s) const { return "R=" + format_number(s.R); }
  };
  return type + "(" + std::visit(Visitor{}, p) + ")";
}

// A unit rotation taking e_x to the unit vector u.
Mat3 rotation_from_x(const Vec3& u) {
  const Vec3 helper = std::abs(u.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  const Vec3 y = u.cross(helper).normalized();
  const Vec3 z = u.cross(y);
  Mat3 R;
  R.col(0) = u;
  R.col(1) = y;
  R.col(2) = z;
  return R;
}

// The diagonal of P when P is diagonal to 1e-12 relative, else nothing.
std::optional<Vec3> diagonal_of(const Mat3& P) {
  const double scale = P.cwiseAbs().maxCoeff();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (i != j && std::abs(P(i, j)) > 1e-12 * scale) return std::nullopt;
  return P.diagonal();
}

// Builds a representation, or nothing when the target type rejects the sizes.
template <class Make>
std::optional<std::pair<CollisionShape::Variant, Pose>> try_make(Make&& make, const Pose& X_SR = Pose::identity()) {
  try {
    return std::pair<CollisionShape::Variant, Pose>{CollisionShape::Variant(make()), X_SR};
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace

std::string CollisionShape::describe() const {
  struct Visitor {
    std::string operator()(const Shape& s) const { return "idcol " + s.describe(); }
    std::string operator()(const dcol::Primitive& p) const { return "dcol " + describe_primitive(p); }
    std::string operator()(const qp::Capsule& c) const {
      return "qp capsule(radius=" + format_number(c.radius()) + ", length=" + format_number(c.length()) + ")";
    }
    std::string operator()(const qp::PaddedPolygon& p) const {
      return "qp padded_polygon(edges=" + std::to_string(p.num_constraints()) + ", radius=" + format_number(p.radius()) + ")";
    }
  };
  return std::visit(Visitor{}, v_);
}

std::optional<Representation> CollisionShape::representation(Family family) const {
  if (family == this->family()) return Representation{*this, Pose::identity()};
  auto built = build_representation(family);
  if (!built) return std::nullopt;
  return Representation{CollisionShape(std::move(built->first)), built->second};
}

std::optional<std::pair<CollisionShape::Variant, Pose>> CollisionShape::build_representation(Family family) const {
  if (family == this->family()) return std::nullopt;
  switch (this->family()) {
    case Family::idcol: {
      const Shape& s = idcol();
      if (s.type() == ShapeType::sphere) {
        const double r = s.as<Sphere>().radius();
        if (family == Family::dcol) return try_make([&] { return dcol::Primitive(dcol::Sphere(r)); });
        return try_make([&] { return qp::Capsule(r, 0.0); });
      }
      if (s.type() == ShapeType::superellipsoid && s.as<Superellipsoid>().exponent() == 1 && family == Family::dcol) {
        const Vec3 a = s.as<Superellipsoid>().semi_axes();
        return try_make([&] { return dcol::Primitive(dcol::Ellipsoid::from_semi_axes(a.x(), a.y(), a.z())); });
      }
      return std::nullopt;
    }
    case Family::dcol: {
      const dcol::Primitive& p = dcol();
      if (const auto* sphere = std::get_if<dcol::Sphere>(&p)) {
        if (family == Family::idcol) return try_make([&] { return Shape(Sphere(sphere->R)); });
        return try_make([&] { return qp::Capsule(sphere->R, 0.0); });
      }
      if (const auto* ell = std::get_if<dcol::Ellipsoid>(&p); ell && family == Family::idcol) {
        const auto d = diagonal_of(ell->P);
        if (!d || !(d->minCoeff() > 0.0)) return std::nullopt;
        return try_make([&] {
          return Shape(Superellipsoid::ellipsoid(1.0 / std::sqrt((*d)[0]), 1.0 / std::sqrt((*d)[1]),
                                                 1.0 / std::sqrt((*d)[2])));
        });
      }
      if (const auto* cap = std::get_if<dcol::Capsule>(&p); cap && family == Family::qp)
        return try_make([&] { return qp::Capsule(cap->R, cap->L); });
      if (const auto* poly = std::get_if<dcol::PaddedPolygon>(&p); poly && family == Family::qp) {
        return try_make([&] {
          return qp::PaddedPolygon(Eigen::MatrixX2d(poly->C.topRows(poly->num_edges)),
                                   Eigen::VectorXd(poly->d.head(poly->num_edges)), poly->R);
        });
      }
      return std::nullopt;
    }
    case Family::qp: {
      if (family != Family::dcol) {
        // a zero-length capsule is a sphere in iDCOL too
        const auto* cap = std::get_if<qp::Capsule>(&v_);
        if (cap && cap->length() == 0.0 && cap->a_B().norm() == 0.0)
          return try_make([&] { return Shape(Sphere(cap->radius())); });
        return std::nullopt;
      }
      if (const auto* cap = std::get_if<qp::Capsule>(&v_)) {
        const Vec3 centre = 0.5 * (cap->a_B() + cap->b_B());
        const Vec3 axis = cap->a_B() - cap->b_B();
        const double length = axis.norm();
        Pose X_SR;
        X_SR.p = centre;
        if (length == 0.0) return try_make([&] { return dcol::Primitive(dcol::Sphere(cap->radius())); }, X_SR);
        X_SR.R = rotation_from_x(axis / length);
        return try_make([&] { return dcol::Primitive(dcol::Capsule(cap->radius(), length)); }, X_SR);
      }
      const auto& poly = std::get<qp::PaddedPolygon>(v_);
      const int m = poly.num_constraints();
      Eigen::MatrixX2d C(m, 2);
      Eigen::VectorXd d(m);
      for (int i = 0; i < m; ++i) {
        C.row(i) = poly.normal(i).transpose();
        d[i] = poly.offset(i);
      }
      return try_make([&] { return dcol::Primitive(dcol::PaddedPolygon(C, d, poly.radius())); });
    }
  }
  return std::nullopt;
}

}  // namespace diffcol::scene
