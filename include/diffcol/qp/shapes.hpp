#pragma once
/// @file shapes.hpp
/// The two DiffPills primitives (seed: diffpills-capsule-padded-polygon-qp, Sec. III–IV):
/// capsules (a core segment padded by a radius, eq. (18), (23)–(24)) and padded polygons (a
/// convex polygon C y ≤ d in the body x–y plane padded by a radius, eq. (29)).
///
/// Shapes hold body-frame data only; the pose X_WB (diffcol::Pose, world_from_body) is given
/// at query time (diffcol/qp/proximity.hpp). Lengths are in the caller's length unit.
/// Both cores are written as affine maps of their QP variables in the body frame:
///   capsule:  c_B(θ) = b_B + θ·(a_B − b_B),  θ ∈ [0, 1]        (the seed's θa + (1 − θ)b)
///   polygon:  c_B(y) = (y_x, y_y, 0),        C·y ≤ d, y ∈ R²   (eq. (29) with Q̃ = first two columns of R)

#include <array>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"

namespace diffcol::qp {

using Vec2 = Eigen::Vector2d;

/// A capsule: all points within `radius` of the core segment [b_B, a_B] (eq. (18)).
/// A zero-length core (a_B = b_B) is allowed: the capsule is then a sphere. A zero radius is
/// allowed: the capsule is then the bare segment.
/// The largest magnitude a shape size or a body-frame coordinate may have (lengths, radii, end
/// points, polygon offsets): beyond it the QPs' squared distances would overflow. The same bound
/// as kMaxRelativeCoordinate on the distance between two bodies (proximity.hpp).
inline constexpr double kMaxShapeCoordinate = 1e150;

class Capsule {
 public:
  /// The seed's capsule (23)–(24): core along the body x axis, centred at the body origin,
  /// a_B = (+length/2, 0, 0), b_B = (−length/2, 0, 0).
  /// @param radius padding radius R ≥ 0 (radius first, as every capsule and cylinder in diffcol).
  /// @param length full length L ≥ 0 of the core segment (NOT the half-length).
  /// @throws std::invalid_argument if a value is negative, not finite or above kMaxShapeCoordinate.
  Capsule(double radius, double length);

  /// A capsule with arbitrary end points given in the body frame. With the identity pose these
  /// are world end points, e.g. `proximity(Capsule::from_end_points(a_W, b_W, R), Pose::identity(), ...)`.
  /// @throws std::invalid_argument if a value is not finite or above kMaxShapeCoordinate in
  /// magnitude, or the radius is negative.
  static Capsule from_end_points(const Vec3& a_B, const Vec3& b_B, double radius);

  const Vec3& a_B() const { return a_B_; }      ///< end point a (θ = 1), body frame
  const Vec3& b_B() const { return b_B_; }      ///< end point b (θ = 0), body frame
  double radius() const { return radius_; }     ///< padding radius R
  double length() const { return (a_B_ - b_B_).norm(); }  ///< full core length ‖a − b‖
  double half_length() const { return 0.5 * length(); }
  /// The core point at parameter θ (body frame): b_B + θ(a_B − b_B).
  Vec3 core_point_B(double theta) const { return b_B_ + theta * (a_B_ - b_B_); }

 private:
  Capsule() = default;
  Vec3 a_B_ = Vec3::Zero(), b_B_ = Vec3::Zero();
  double radius_ = 0.0;
};

/// Compile-time capacity of a padded polygon's constraint list (rows of C): the QPs use stack
/// storage of this size.
inline constexpr int kMaxPolygonEdges = 16;

/// A padded polygon: all points within `radius` of the convex polygon {(y, 0) : C·y ≤ d} in
/// the body x–y plane (eq. (29)).
///
/// Rows of C are stored normalized (‖C_i‖ = 1, d scaled alike): the polygon is the same, and
/// the QP multipliers refer to the normalized rows. Redundant rows are allowed.
class PaddedPolygon {
 public:
  /// @param C m×2 constraint normals (3 ≤ m ≤ kMaxPolygonEdges), @param d m offsets,
  /// @param radius padding radius R ≥ 0.
  /// @throws std::invalid_argument on a size mismatch, m outside [3, kMaxPolygonEdges], a
  /// non-finite entry, a zero row, a negative radius, a radius or offset (d_i/‖C_i‖) above
  /// kMaxShapeCoordinate, an unbounded polygon (the normals do not positively span the plane) or
  /// an empty / zero-area polygon.
  PaddedPolygon(const Eigen::MatrixX2d& C, const Eigen::VectorXd& d, double radius);

  /// From vertices (body x–y plane) in counter-clockwise order; they must form a strictly
  /// convex polygon (3 ≤ count ≤ kMaxPolygonEdges). @throws std::invalid_argument otherwise.
  static PaddedPolygon from_vertices(const std::vector<Vec2>& vertices_ccw, double radius);
  /// The rectangle |y_x| ≤ half_x, |y_y| ≤ half_y (both > 0). @throws std::invalid_argument otherwise.
  static PaddedPolygon rectangle(double half_x, double half_y, double radius);

  int num_constraints() const { return m_; }  ///< m, rows of C
  /// Row i of C (unit length). No range check beyond an assertion: 0 ≤ i < num_constraints().
  Vec2 normal(int i) const { return C_[static_cast<std::size_t>(i)]; }
  /// d_i for the normalized row i.
  double offset(int i) const { return d_[static_cast<std::size_t>(i)]; }
  double radius() const { return radius_; }
  /// Vertices of the polygon (counter-clockwise, redundant rows removed), computed at construction.
  const std::vector<Vec2>& vertices() const { return vertices_; }
  /// Largest distance of a vertex from the body origin (a bounding radius of the core).
  double core_radius() const { return core_radius_; }
  /// True if C·y ≤ d + tol (componentwise).
  bool contains(const Vec2& y, double tol = 0.0) const;

 private:
  PaddedPolygon() = default;
  void init(const Eigen::MatrixX2d& C, const Eigen::VectorXd& d, double radius);
  std::array<Vec2, kMaxPolygonEdges> C_{};
  std::array<double, kMaxPolygonEdges> d_{};
  int m_ = 0;
  double radius_ = 0.0;
  double core_radius_ = 0.0;
  std::vector<Vec2> vertices_;
};

}  // namespace diffcol::qp
