#pragma once
/// @file shape_description.hpp
/// Geometric shapes described once (as URDF, SDF and MuJoCo describe them) and made into a shape
/// of the family the user picks: the one vocabulary of scene files, robots and the command line.
///
/// A description is centred on its own frame G. Cylinders, capsules and cones have their axis
/// along z (URDF's convention; DCOL's and iDCOL's shapes have it along x: the made shape carries
/// the rotation in X_GS). Sizes (docs/conventions.md): radius before length, lengths full unless
/// the name says half_.
///
/// | kind        | sizes                          | dcol                 | idcol                                           | qp                    |
/// |-------------|--------------------------------|----------------------|-------------------------------------------------|-----------------------|
/// | sphere      | radius                         | Sphere               | Sphere                                          | Capsule (length 0)    |
/// | box         | half_extents                   | Polytope::box        | SmoothPolytope (β from the tolerance, or β)     | —                     |
/// | cylinder    | radius, length                 | Cylinder             | SuperellipticCylinder (n from the tolerance, n) | —                     |
/// | capsule     | radius, length (of the core)   | Capsule              | —                                               | Capsule               |
/// | ellipsoid   | semi_axes                      | Ellipsoid            | Superellipsoid, n = 1                           | —                     |
/// | cone        | height, half_angle             | Cone: apex on +z, 3H/4 above G; base H/4 below | —                     | —                     |
/// | convex_hull | points (e.g. a mesh's vertices)| Polytope::convex_hull| SmoothPolytope::convex_hull                     | —                     |
/// A convex hull is made about the centroid of its vertices (strictly inside), recorded in X_GS.
#include <string>
#include <vector>

#include "diffcol/math/se3.hpp"
#include "diffcol/scene/collision_shape.hpp"

namespace diffcol::scene {

enum class ShapeKind : std::uint8_t { sphere, box, cylinder, capsule, ellipsoid, cone, convex_hull };
/// "sphere", "box", "cylinder", "capsule", "ellipsoid", "cone", "convex_hull".
const char* shape_kind_name(ShapeKind k);

struct ShapeDescription {
  ShapeKind kind = ShapeKind::sphere;
  double radius = 0.0;                 ///< sphere, cylinder, capsule
  double length = 0.0;                 ///< cylinder, capsule (the core): full length along z
  Vec3 half_extents = Vec3::Zero();    ///< box
  Vec3 semi_axes = Vec3::Zero();       ///< ellipsoid
  double height = 0.0, half_angle = 0.0;  ///< cone (radians), along +z
  std::vector<Vec3> points;            ///< convex_hull

  static ShapeDescription sphere(double radius);
  static ShapeDescription box(double half_x, double half_y, double half_z);
  static ShapeDescription cylinder(double radius, double length);
  static ShapeDescription capsule(double radius, double length);
  static ShapeDescription ellipsoid(double a, double b, double c);
  static ShapeDescription cone(double height, double half_angle);
  static ShapeDescription convex_hull(std::vector<Vec3> points);
  /// "box(half_extents=0.1, 0.2, 0.3)" and so on, for messages.
  std::string describe() const;
};

/// How exact descriptions become smooth iDCOL shapes (shapes/smoothness.hpp): the smallest
/// sharpness β (boxes, hulls) or exponent n (cylinders) whose surface lies within a tolerance of
/// the exact one. The tolerance is `tolerance` (length units) when > 0, else `relative_tolerance`
/// times the shape's smallest half-extent (box: min half-extent; cylinder: min(radius, length/2);
/// hull: the smallest half-extent of its points' bounding box). Both 0: the fixed `beta` and
/// `exponent`. A superelliptic cylinder's exponent stops at 64, so its fit has a floor of about
/// 0.015·min(radius, length/2): a tighter tolerance is refused with the floor in the message.
struct SmoothingOptions {
  double tolerance = 0.0;
  double relative_tolerance = 0.02;
  double beta = 20.0;
  int exponent = 8;
};

struct MadeShape {
  CollisionShape shape;
  Pose X_GS;  ///< the made shape's frame S in the description's frame G
};

/// The description as a shape of `family`.
/// @throws std::invalid_argument for sizes the family's constructor rejects, or a kind the family
///         has no shape for (a box in QP, a capsule in iDCOL, ...), naming both.
MadeShape make_shape(const ShapeDescription& description, Family family, const SmoothingOptions& smoothing = {});

/// "idcol", "dcol", "qp" → Family. @throws std::invalid_argument for another name.
Family parse_family(const std::string& name);

}  // namespace diffcol::scene
