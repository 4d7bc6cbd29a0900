#pragma once
/// @file sphere_pair.hpp
/// Two spheres in closed form, with their first derivatives, in a lean result: for robots and
/// scenes approximated by spheres, where a query must cost tens of nanoseconds.
///
/// Every quantity depends only on the two centres c1, c2 (world) and the radii R1, R2. With
/// r = c2 − c1, ρ = ‖r‖, n = r/ρ, S = R1 + R2 (the iDCOL problem (8) for two spheres; the same
/// values as idcol::solve_contact, docs/idcol.md "Two spheres"):
///   α = ρ/S,  gap d_D = ρ − S (30),  normal n (out of sphere 1, towards sphere 2, eq. (3)),
///   x = c1 + (R1/S) r (the touching point of the spheres scaled by α about their centres),
///   p1 = c1 + R1 n,  p2 = c2 − R2 n (29).
/// Derivatives with respect to the centres, N = ∂n/∂c2 = (I − n nᵀ)/ρ:
///   ∂α/∂c2 = nᵀ/S,  ∂d_D/∂c2 = nᵀ,  ∂n/∂c2 = N,  ∂x/∂c2 = (R1/S) I,
///   ∂p1/∂c2 = R1 N,  ∂p2/∂c2 = I − R2 N,
/// and ∂/∂c1 follows by translation invariance (every point moves with c1 + c2 together):
///   ∂α/∂c1 = −∂α/∂c2, ∂d_D/∂c1 = −∂d_D/∂c2, ∂n/∂c1 = −N, ∂x/∂c1 = (R2/S) I,
///   ∂p1/∂c1 = I − R1 N, ∂p2/∂c1 = R2 N.
/// A centre's velocity is its point Jacobian times the joint or twist rates: for a sphere
/// centred at c on a body with origin o, ċ = ω × c + v for the body's `world` twist [ω; v]
/// (docs/conventions.md) and ċ = ω × (c − o) + v for its `local_world_aligned` twist. The chain
/// rule with these gives every twist or joint-space derivative.
///
/// No allocation, no iteration, no shape evaluation: about 10–20 ns per pair
/// (`diffcol bench`'s closed-form row).
#include "diffcol/math/se3.hpp"
#include "diffcol/status.hpp"

namespace diffcol::idcol {

using RowVec3 = Eigen::Matrix<double, 1, 3>;

/// The result of sphere_pair_contact. Every field is finite whatever the status.
struct SpherePairContact {
  /// ok for every ρ > 0 (the closed forms are exact however close the centres; N grows as
  /// 1/ρ); coincident_origins when ρ = 0 or 1/ρ overflows (α, d_D and x are exact, n is the
  /// limit along r, the world x axis at r = 0, every derivative is zero: n is not
  /// differentiable there); invalid_input for a non-finite centre or one beyond kMaxLength, or
  /// a radius outside [kMinLength, kMaxLength] (every field zero).
  SolveStatus status = SolveStatus::invalid_input;
  bool ok() const { return status == SolveStatus::ok; }
  double alpha = 0.0;       ///< ρ/S
  double gap = 0.0;         ///< d_D = ρ − S: < 0 penetrating
  double distance = 0.0;    ///< ρ: the distance of the centres
  double radius1 = 0.0, radius2 = 0.0;
  Vec3 normal_W = Vec3::Zero();  ///< n
  Vec3 x_W = Vec3::Zero();       ///< c1 + (R1/S) r
  Vec3 p1_W = Vec3::Zero();      ///< c1 + R1 n, on sphere 1
  Vec3 p2_W = Vec3::Zero();      ///< c2 − R2 n, on sphere 2

  // --- derivatives with respect to the centre c2 (those with respect to c1: the file comment) --
  RowVec3 J_alpha_c2 = RowVec3::Zero();  ///< nᵀ/S
  RowVec3 J_gap_c2 = RowVec3::Zero();    ///< nᵀ
  Mat3 J_normal_c2 = Mat3::Zero();       ///< N = (I − n nᵀ)/ρ (symmetric)

  Mat3 J_x_c2() const { return (radius1 / (radius1 + radius2)) * Mat3::Identity(); }
  Mat3 J_x_c1() const { return (radius2 / (radius1 + radius2)) * Mat3::Identity(); }
  Mat3 J_p1_c2() const { return radius1 * J_normal_c2; }
  Mat3 J_p1_c1() const { return Mat3::Identity() - radius1 * J_normal_c2; }
  Mat3 J_p2_c2() const { return Mat3::Identity() - radius2 * J_normal_c2; }
  Mat3 J_p2_c1() const { return radius2 * J_normal_c2; }
};

/// Two spheres of radii R1, R2 centred at c1, c2 (world): α, the gap, the normal, the points and
/// their derivatives with respect to the centres, in closed form (file comment).
void sphere_pair_contact(double radius1, const Vec3& centre1_W, double radius2, const Vec3& centre2_W,
                         SpherePairContact& out);
SpherePairContact sphere_pair_contact(double radius1, const Vec3& centre1_W, double radius2,
                                      const Vec3& centre2_W);

}  // namespace diffcol::idcol
