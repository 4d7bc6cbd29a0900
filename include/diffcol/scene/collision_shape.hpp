#pragma once
/// @file collision_shape.hpp
/// A collision shape of a scene: one shape of any of diffcol's three pair formulations.
///
///  - Family::idcol  a smooth implicit shape (diffcol::Shape: sphere, superellipsoid,
///                   superelliptic cylinder, smooth polytope, smooth truncated cone), iDCOL seed;
///  - Family::dcol   an exact primitive (dcol::Primitive: polytope, capsule, cylinder, cone,
///                   ellipsoid, padded polygon, sphere), DCOL seed;
///  - Family::qp     a capsule or padded polygon of the DiffPills QPs (qp::Capsule,
///                   qp::PaddedPolygon).
///
/// A shape is stored as given, in its own frame S; the scene mounts it on a body at X_BS. A DCOL
/// primitive's own `offset` is folded into that mount (X_BS·offset) and reset to the identity, so
/// every stored shape is centred on its frame's origin.
///
/// Representations. Some shapes are exactly a shape of another family: a sphere in every family
/// but QP, an iDCOL superellipsoid with n = 1 is a DCOL ellipsoid (and a DCOL ellipsoid with a
/// diagonal P an iDCOL one), a QP capsule or padded polygon is a DCOL capsule (a sphere for a
/// zero-length core) or padded polygon and back. `representation(family)` returns that shape and
/// the pose of its frame in S; scene/dispatch.hpp uses them to serve a pair of shapes of two
/// families in one.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "diffcol/dcol/primitives.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/qp/shapes.hpp"
#include "diffcol/shapes/shape.hpp"

namespace diffcol::scene {

/// The pair formulation a shape belongs to.
enum class Family : std::uint8_t { idcol = 0, dcol = 1, qp = 2 };
inline constexpr int kNumFamilies = 3;
/// "idcol", "dcol", "qp".
const char* family_name(Family f);

class CollisionShape;

/// A shape of another family that is exactly this one, and the pose of its frame in this shape's.
struct Representation;

class CollisionShape {
 public:
  using Variant = std::variant<Shape, dcol::Primitive, qp::Capsule, qp::PaddedPolygon>;

  CollisionShape(Shape s);                          // NOLINT(implicit)
  CollisionShape(dcol::Primitive p);                // NOLINT(implicit)
  CollisionShape(qp::Capsule c);                    // NOLINT(implicit)
  CollisionShape(qp::PaddedPolygon p);              // NOLINT(implicit)
  /// Any concrete iDCOL shape (diffcol::Sphere, Superellipsoid, ...) or DCOL primitive.
  template <class T>
    requires(std::is_constructible_v<Shape, T> && !std::is_same_v<std::decay_t<T>, Shape>)
  CollisionShape(T s) : CollisionShape(Shape(std::move(s))) {}  // NOLINT(implicit)
  template <class T>
    requires(std::is_constructible_v<dcol::Primitive, T> && !std::is_same_v<std::decay_t<T>, dcol::Primitive> &&
             !std::is_constructible_v<Shape, T>)
  CollisionShape(T p) : CollisionShape(dcol::Primitive(std::move(p))) {}  // NOLINT(implicit)

  Family family() const { return v_.index() >= 2 ? Family::qp : static_cast<Family>(v_.index()); }
  const Variant& variant() const { return v_; }
  const Shape& idcol() const { return std::get<Shape>(v_); }
  const dcol::Primitive& dcol() const { return std::get<dcol::Primitive>(v_); }

  /// Radius of a ball about the shape origin that contains the shape.
  double outer_radius() const;
  /// The pose of the shape in the frame it was given in: a DCOL primitive's original offset,
  /// the identity otherwise (folded into the mount by the scene).
  const Pose& folded_offset() const { return folded_offset_; }
  /// "idcol sphere(r=0.5)", "dcol capsule(R=0.1, L=0.4)", "qp padded_polygon(...)": names the
  /// family, the type and the sizes, for messages.
  std::string describe() const;
  /// The exact representation in `family`, if there is one (itself for its own family).
  std::optional<Representation> representation(Family family) const;
  /// Whether representation(family) has a value (computed once, at construction).
  bool has_representation(Family family) const { return (families_ >> static_cast<int>(family)) & 1u; }

 private:
  explicit CollisionShape(Variant v);
  void find_representations();
  /// The shape of representation(family) for another family, as a variant, and X_SR.
  std::optional<std::pair<Variant, Pose>> build_representation(Family family) const;
  Variant v_;
  Pose folded_offset_;
  std::uint8_t families_ = 0;
};

struct Representation {
  CollisionShape shape;  ///< in `family`, centred on its own frame R
  Pose X_SR;             ///< the pose of R in the represented shape's frame S
};

}  // namespace diffcol::scene
