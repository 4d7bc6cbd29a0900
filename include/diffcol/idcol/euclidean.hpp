#pragma once
/// @file euclidean.hpp
/// Euclidean distance and closest points of two separated iDCOL shapes, with derivatives.
///
/// iDCOL's contact solve (contact.hpp) returns the scaling α* and its gap d_D = (1 − 1/α*)·‖r‖,
/// measured along the segment of the two body origins: not the Euclidean distance. This query
/// returns d = min ‖p2 − p1‖ over p1 ∈ body 1, p2 ∈ body 2, the closest points p1_W, p2_W on the
/// surfaces and the unit normal n = (p2 − p1)/d from 1 to 2 (the quantities of FCL and coal).
///
/// Method: Newton's method on the KKT conditions of min ½‖p1 − p2‖² s.t. φ1(p1) ≤ 0, φ2(p2) ≤ 0
/// (world frame, φ_i(p) = φ_i^body(X_Wi⁻¹ p)), with both constraints active:
///   p1 − p2 + μ1 ∇φ1(p1) = 0,   p2 − p1 + μ2 ∇φ2(p2) = 0,   φ1(p1) = 0,   φ2(p2) = 0,
/// eight unknowns (p1, p2, μ1, μ2), started from iDCOL's witness points (29) and μ_i =
/// ‖p2 − p1‖/‖∇φ_i‖, with a backtracking line search on the residual. Where that fails (flat-faced
/// shapes far from the start), a descent on ½‖p1 − p2‖² over the two surfaces (tangent-plane Newton
/// steps with the curvature, projected back onto φ_i = 0) brings the points close and Newton runs
/// again. The shapes are convex, so a KKT point with μ1, μ2 > 0 is the global minimum: the
/// residual is the certificate.
///
/// Status
///  - separated: converged, ‖residual‖ ≤ tolerance·max(σ, ‖r‖) (σ = outer radii sum, ‖r‖ the
///    distance of the origins: far apart, the rows' rounding grows with ‖r‖; the φ rows divided
///    by ‖∇φ‖ so that every row is a length), μ1, μ2 > 0.
///  - touching_or_overlapping: iDCOL's α* ≤ 1 (the bodies touch or overlap) or the closest points
///    are closer than 1e-12·σ: the Euclidean distance of separated bodies is not defined; distance
///    = 0, the points are iDCOL's witness points, normal zero.
///  - not_converged: the contact solve or the Newton iterations failed; the fields hold the last
///    iterate (finite).
///  - invalid_input: a pose that is not valid (Pose::invalid_reason) or options out of range;
///    numeric fields zero.
/// Allocates nothing.

#include <cstdint>

#include <Eigen/Core>

#include "diffcol/status.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/shapes/shape.hpp"

namespace diffcol::idcol {

/// Statuses (diffcol::DistanceStatus, status.hpp): separated, touching_or_overlapping,
/// not_converged (the contact solve or the Newton iterations failed), invalid_input.

struct DistanceOptions {
  /// On the KKT residual relative to the larger of the pair's size and the distance of the
  /// origins, in [1e-14, 1e-3].
  double tolerance = 1e-12;
  /// Newton iterations, in [1, 10000].
  int max_iterations = 50;
  /// Settings of the contact solve that provides the start (when no solution is passed).
  SolveOptions contact;
  /// @throws std::invalid_argument naming the field out of range.
  void validate() const;
  bool is_valid() const noexcept;
};

struct DistanceResult {
  DistanceStatus status = DistanceStatus::invalid_input;
  bool ok() const { return status == DistanceStatus::separated; }
  double distance = 0.0;         ///< ‖p2_W − p1_W‖
  Vec3 p1_W = Vec3::Zero();      ///< closest point on body 1's surface (world)
  Vec3 p2_W = Vec3::Zero();      ///< closest point on body 2's surface (world)
  Vec3 normal_W = Vec3::Zero();  ///< (p2 − p1)/distance: unit, from body 1 to body 2
  double mu1 = 0.0, mu2 = 0.0;   ///< KKT multipliers
  int iterations = 0;            ///< Newton iterations
  double residual_norm = 0.0;    ///< the scaled KKT residual at the returned point
  double contact_gap = 0.0;      ///< iDCOL's d_D of the start (for comparison)
  /// ∇φ_i and ∇²φ_i at p_i, world frame: what the derivatives need of the shapes.
  Vec3 grad1 = Vec3::Zero(), grad2 = Vec3::Zero();
  Mat3 hess1 = Mat3::Zero(), hess2 = Mat3::Zero();
  Pose X_W1, X_W2;               ///< the poses of the query
};

/// The Euclidean distance of shape1 at X_W1 and shape2 at X_W2 (runs the contact solve first).
DistanceResult euclidean_distance(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                                  const DistanceOptions& options = {});
/// The same, started from a contact solution of the same pair at the same poses (no contact solve).
DistanceResult euclidean_distance(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                                  const ContactSolution& start, const DistanceOptions& options = {});
void euclidean_distance(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                        const ContactSolution& start, DistanceResult& out, const DistanceOptions& options = {});

/// Derivative statuses (diffcol::DistanceDerivativeStatus): ok; distance_only (only the distance
/// Jacobians are set: the closest points are ill-determined, the KKT Hessian on the tangent planes
/// is numerically singular, nearly flat patches parallel at the normal); not_separated (every
/// block zero).

/// Derivatives with respect to the world twists of both bodies, the convention of
/// derivatives.hpp ([ω; v], X_Wi ← exp(η_i^)·X_Wi). Distance: envelope theorem,
/// J_distance_X1 = −[(p1 × n)ᵀ, nᵀ], J_distance_X2 = [(p2 × n)ᵀ, nᵀ]. Points and normal: the
/// implicit function theorem on the KKT conditions, written on the tangent planes at p1, p2 with
/// the surfaces' second fundamental forms Tᵀ∇²φ T/‖∇φ‖ (src/geometry/closest_points_ift.hpp).
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

}  // namespace diffcol::idcol
