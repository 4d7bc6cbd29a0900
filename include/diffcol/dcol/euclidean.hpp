#pragma once
/// @file euclidean.hpp
/// Euclidean distance and closest points of two separated DCOL primitives, with derivatives.
///
/// DCOL's own query (contact.hpp) measures separation by the scaling α*: its `distance`
/// (1 − 1/α*)·‖r_2 − r_1‖ is the length of the gap along the segment of the two shape origins,
/// not the Euclidean distance. This query returns the Euclidean distance
///   d = min ‖p2 − p1‖ over p1 ∈ shape 1, p2 ∈ shape 2,
/// the closest points p1_W, p2_W (world) and the unit normal n = (p2 − p1)/d from 1 to 2, the
/// quantities that FCL and coal return.
///
/// Method (src/dcol/euclidean.cpp)
///  1. GJK on the primitives' support functions. Every iterate gives an upper bound ‖v‖ (v a
///     point of the Minkowski difference, a convex combination of support points) and a lower
///     bound from the support function along any unit u: d ≥ uᵀ(o2 − o1) − h1(u) − h2(−u) (h_i
///     about the shape origins o_i). On polytopes GJK ends after finitely many steps; on curved
///     shapes only asymptotically.
///  2. Refinement, once GJK's gap is below 1e-6 (relative; again at 1e-9 where it is not accepted):
///     the local feature of each shape at the GJK witness (vertex, edge, face, sphere,
///     cylinder, rim circle, cone side, ellipsoid) is identified and the closest points of the two
///     features are found by Newton's method on f(θ1, θ2) = ½‖x1(θ1) − x2(θ2)‖², θ_i coordinates
///     on feature i. The answer is accepted only if both points lie on their shapes and the
///     support-function bound along its normal certifies it (below).
///  3. Certificate: lower_bound is the largest support-function bound met (the refined normal's
///     included), distance = ‖p2 − p1‖ for points of the two shapes, and status separated requires
///     distance − lower_bound ≤ max(tolerance·max(distance, r1 + r2), 64ε·σ), r_i the outer radii,
///     σ = ‖o2 − o1‖ + r1 + r2 (+ ‖o1‖ for the rounding of world coordinates): relative to the
///     distance, or to the pair's size when the shapes are much closer than their size (there the
///     normal (p2 − p1)/d carries the rounding of the points divided by d).
///
/// Status
///  - separated: the distance is certified as above.
///  - touching_or_overlapping: the shapes meet, or are closer than 1e-12·σ: the Euclidean
///    distance of separated shapes is not defined here (the penetration depth is another
///    quantity: use contact.hpp's α* or the QP layer). distance = 0, lower_bound ≤ 0; p1_W = p2_W
///    is a common point when GJK found one, normal_W = 0.
///  - not_certified: the iteration budget ran out with distance − lower_bound above the
///    tolerance; the fields hold the best pair and the bound reached (both finite).
///  - invalid_input: a pose that is not valid (Pose::invalid_reason) or options out of range;
///    numeric fields are zero.
///
/// Frames: as contact.hpp (shape i at X_WSi = X_WBi·offset_i, all outputs in the world frame).
/// Allocates nothing.

#include <cstdint>

#include <Eigen/Core>

#include "diffcol/status.hpp"
#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol::dcol {

/// Statuses (diffcol::DistanceStatus, status.hpp): separated (certified), touching_or_overlapping,
/// not_certified (the iterations ended above the tolerance), invalid_input.

struct DistanceOptions {
  /// Certificate tolerance on distance − lower_bound, relative to max(distance, r1 + r2) (see the
  /// file comment), in [1e-14, 1e-2].
  double tolerance = 1e-10;
  /// GJK iterations (each one support call per shape), in [1, 100000].
  int max_iterations = 200;
  /// @throws std::invalid_argument naming the field out of range.
  void validate() const;
  bool is_valid() const noexcept;
};

/// The local feature of a shape at its closest point, as the derivatives see it: x(θ) with θ ∈ R^dim
/// arc-length-like coordinates, tangent columns T (world) and the curvature form
/// Q_ab = −m·∂²x/∂θa∂θb (m the shape's outward normal at the point: n for shape 1, −n for shape 2).
enum class FeatureKind : std::uint8_t {
  none = 0,      ///< not identified (no refinement): closest-point derivatives unavailable
  vertex = 1,    ///< polytope vertex, cone apex (dim 0)
  edge = 2,      ///< straight polytope edge (dim 1)
  face = 3,      ///< flat face: polytope face, cylinder or cone base, padded polygon side (dim 2)
  sphere = 4,    ///< sphere, capsule end, padded polygon corner (dim 2)
  cylinder = 5,  ///< cylinder side, capsule side, padded polygon edge (dim 2, one flat direction)
  circle = 6,    ///< rim of a cylinder or cone base (dim 1, curved)
  cone = 7,      ///< lateral surface of the cone (dim 2, one flat direction)
  ellipsoid = 8, ///< ellipsoid (dim 2)
};
const char* feature_name(FeatureKind k);

struct LocalFeature {
  FeatureKind kind = FeatureKind::none;
  int dim = 0;
  Eigen::Matrix<double, 3, 2> T = Eigen::Matrix<double, 3, 2>::Zero();  ///< tangent columns (first dim used)
  Eigen::Matrix2d Q = Eigen::Matrix2d::Zero();                          ///< curvature form (first dim × dim)
};

struct DistanceResult {
  DistanceStatus status = DistanceStatus::invalid_input;
  bool ok() const { return status == DistanceStatus::separated; }
  double distance = 0.0;      ///< ‖p2_W − p1_W‖ (an upper bound of the distance; equal to it within the certificate)
  double lower_bound = 0.0;   ///< certified lower bound of the distance (support functions)
  Vec3 p1_W = Vec3::Zero();   ///< closest point on shape 1 (world)
  Vec3 p2_W = Vec3::Zero();   ///< closest point on shape 2 (world)
  Vec3 normal_W = Vec3::Zero();  ///< (p2 − p1)/distance, unit, from shape 1 to shape 2
  int iterations = 0;         ///< GJK iterations
  int refine_iterations = 0;  ///< Newton iterations of the accepted refinement (0: none accepted)
  bool refined = false;       ///< the points come from the feature refinement (else from GJK)
  /// False when flat patches of the two shapes are parallel at the normal (face–face, edge–face,
  /// parallel edges, a cylinder's side along a face): the distance is unique, the points are one
  /// closest pair of many.
  bool unique = true;
  LocalFeature feature1, feature2;  ///< the features at p1, p2 (FeatureKind::none unless refined or polytope vertices)
  Pose X_WS1, X_WS2;          ///< world poses of the shapes
  Pose X_WB1, X_WB2;          ///< the body poses passed in
};

/// The Euclidean distance of two primitives on bodies at X_WB1, X_WB2 (see the file comment).
void euclidean_distance(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2, const Pose& X_WB2,
                        DistanceResult& out, const DistanceOptions& options = {});
DistanceResult euclidean_distance(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2,
                                  const Pose& X_WB2, const DistanceOptions& options = {});
/// The same, starting GJK along the witness points of a solve_contact result of the same pair
/// (p2_W − p1_W of α*'s solution is close to the closest points' direction). A result that did not
/// converge is ignored.
DistanceResult euclidean_distance(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2,
                                  const Pose& X_WB2, const ContactResult& warm, const DistanceOptions& options = {});

// ------------------------------------------------------------------------------------ derivatives

/// Derivative statuses (diffcol::DistanceDerivativeStatus): ok; distance_only (the distance
/// Jacobians are set, the envelope theorem holds whenever the distance is certified; the
/// closest-point and normal Jacobians are zero: the closest points are not unique (parallel faces,
/// an edge parallel to a face, parallel edges, a cylinder's side along a face: singular feature
/// Hessian) or their features were not identified); not_separated (every block zero).

/// Derivatives of a DistanceResult with respect to the world twists of both bodies, in the
/// convention of derivatives.hpp: [ω; v], X_WBi ← exp(η_i^)·X_WBi; J_<out>_X<i>: rows = output
/// components, 6 columns. Row-major blocks, always set (zero where not available).
///  - distance: envelope theorem, J_distance_X1 = −[(p1 × n)ᵀ, nᵀ], J_distance_X2 = [(p2 × n)ᵀ, nᵀ].
///  - p1_W, p2_W, normal_W: implicit function theorem on the stationarity of
///    ½‖x1(θ1) − x2(θ2)‖² on the two local features; exact where both features are smooth at the
///    points and the pair is non-degenerate. At a switch of features (a point reaching an edge of
///    its face, a capsule's side meeting its end) they are those of the identified features
///    (one-sided); where the closest points are not unique, status distance_only.
struct DistanceDerivatives {
  DistanceDerivativeStatus status = DistanceDerivativeStatus::not_separated;
  bool ok() const { return status == DistanceDerivativeStatus::ok; }
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twist of the X1 / X2 columns
  RowVec6 J_distance_X1 = RowVec6::Zero(), J_distance_X2 = RowVec6::Zero();
  Mat36 J_p1_W_X1 = Mat36::Zero(), J_p1_W_X2 = Mat36::Zero();
  Mat36 J_p2_W_X1 = Mat36::Zero(), J_p2_W_X2 = Mat36::Zero();
  Mat36 J_normal_W_X1 = Mat36::Zero(), J_normal_W_X2 = Mat36::Zero();
};
/// @param frame the twist of the X1 / X2 columns (ReferenceFrame, docs/conventions.md; default
///        world), about the poses of the query.
void distance_derivatives(const DistanceResult& result, DistanceDerivatives& out,
                          ReferenceFrame frame = ReferenceFrame::world);
DistanceDerivatives distance_derivatives(const DistanceResult& result, ReferenceFrame frame = ReferenceFrame::world);

}  // namespace diffcol::dcol
