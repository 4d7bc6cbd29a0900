#pragma once
/// @file scm.hpp
/// Soft-minimum contact model (SCM, SSDF seed Sec. III-C): the point–plane spring–damper with
/// dissipation and friction with stiction (eqs. (14)–(20)), point–SSDF contact (21)–(22) and
/// SSDF–SSDF contact (23), with analytic first derivatives.
///
/// Bodies and frames: a body has a pose X_WB (world_from_body) and a body twist V = [ω; v]
/// (angular and linear velocity in the body frame; the velocity of body point a is R·(ω×a + v)).
/// For a free body with generalized velocity V, the generalized force of a world force f applied at
/// body point a is the body wrench [a × Rᵀf; Rᵀf] (torque about the body origin, then force,
/// both in the body frame). All wrenches below are such body wrenches.
///
/// Derivatives (analytic, not AD): J_<out>_X columns are the body twists [ξ1 | ξ2] of the two
/// poses (X ← X·exp(ξ^)), J_<out>_V columns the body velocities [V1 | V2]. First order only; the
/// later step/Hessian work can differentiate these expressions once more.
///
/// Sign of eq. (21): the seed prints λ̄_i = (J_i − J)ᵀλ; with λ of eqs. (14)–(20) the force that
/// pushes the moving point p out of the plane (λ_n ≥ 0 along n_i), the generalized force on the
/// system is (J − J_i)ᵀλ: the point receives +λ at p, the plane's body −λ at p_i. We use the
/// physical sign (a penetrating body is pushed out); tests check it. Action equals reaction for
/// forces exactly; torques about a common point differ by Σ w_i (p − p_i) × λ_i, since the two
/// forces act at p and p_i (seed's construction).
///
/// Smoothness: d(·) of eqs. (16)–(17) is C¹ but not C² (its second derivative jumps at
/// v_n/v_d = 0 and 2), so the SCM forces are C² everywhere except on those velocity sets.

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/ssdf.hpp"

namespace diffcol::ssdf {

using Mat12 = Eigen::Matrix<double, 12, 12>;
using Vec12 = Eigen::Matrix<double, 12, 1>;

/// Contact parameters of eqs. (14)–(20) and the temperatures of (9), (23).
struct ScmParameters {
  double stiffness = 1e3;              ///< k of eq. (15), N/m
  double dissipation_velocity = 0.1;   ///< v_d of eqs. (16)–(17), m/s, > 0
  double stiction_velocity = 0.01;     ///< v_s of eq. (19), m/s, ≥ 1e-150 (v_s² must not underflow)
  double friction = 0.5;               ///< μ of eq. (19), ≥ 0
  double eps1 = 1e-4;                  ///< SSDF temperature (9), (22), length²
  double eps2 = 1e-3;                  ///< separation-distribution temperature (23), length
  double eps3 = 1e-3;                  ///< softplus temperature of eq. (15), length
  /// Opt-in truncation (default 0 = exact): in (22) and (23), terms whose softmax weight is below
  /// weight_cutoff × (the largest weight) are skipped. The dropped mass is at most
  /// (number of terms) × weight_cutoff of the total; with 1e-12 the result changes by far less
  /// than the smoothing itself while pair_contact skips most far-away points. The returned
  /// Jacobians are those of the kept terms. In [0, 1e-3] (larger values change the forces).
  double weight_cutoff = 0.0;
  /// @throws std::invalid_argument on a non-finite or out-of-range field (k, v_d, v_s > 0;
  ///         μ ≥ 0; temperatures ≥ 0; weight_cutoff ∈ [0, 1e-3]).
  void validate() const;
};

/// Point–plane contact force, eqs. (14)–(20).
struct PointPlaneForce {
  double phi = 0.0;                       ///< signed distance to the plane, eq. (14)
  double normal_force = 0.0;              ///< λ_n, eq. (18)
  Vec3 force = Vec3::Zero();              ///< λ, eq. (20): the force on the moving point
  Mat3 J_force_p = Mat3::Zero();          ///< ∂λ/∂p (= −∂λ/∂p_i)
  Mat3 J_force_v = Mat3::Zero();          ///< ∂λ/∂v
};

/// The contact force on a point at p moving with velocity v relative to the plane (p_i, n_i)
/// (all in one frame; n_i unit).
/// @throws std::invalid_argument on invalid parameters, a non-finite input or a non-unit normal
/// (|‖n‖ − 1| > 1e-9).
PointPlaneForce point_plane_force(const Vec3& p, const Vec3& v, const Vec3& plane_point, const Vec3& plane_normal,
                                  const ScmParameters& params);

/// Point–SSDF contact, eqs. (21)–(22): a point of body A against the AOPC of body B.
struct PointSsdfContact {
  double phi = 0.0;                  ///< SSDF of body B at the point, eq. (9)
  Vec6 wrench_A = Vec6::Zero();      ///< body wrench on body A (the point's body)
  Vec6 wrench_B = Vec6::Zero();      ///< body wrench on body B (the cloud's body)
  Row12 J_phi_X = Row12::Zero();     ///< ∂φ/∂[ξA | ξB]
  Mat12 J_wrench_X = Mat12::Zero();  ///< ∂[wrench_A; wrench_B]/∂[ξA | ξB]
  Mat12 J_wrench_V = Mat12::Zero();  ///< ∂[wrench_A; wrench_B]/∂[VA | VB]
};

/// Point a (body-A coordinates) of body A (X_WA, V_A) against cloud B (X_WB, V_B): eq. (22)
/// Λ = Σ_i σ_eps1(−d(p))_i λ̄_i, returned as the wrenches on both bodies.
/// @throws std::invalid_argument on invalid parameters, non-finite inputs or positions / velocities
/// beyond kMaxLength (1e100).
PointSsdfContact point_ssdf_contact(const Vec3& a, const Pose& X_WA, const Vec6& V_A, const OrientedPointCloud& cloud_B,
                                    const Pose& X_WB, const Vec6& V_B, const ScmParameters& params, SsdfWorkspace& ws,
                                    bool with_jacobians = true);

/// SSDF–SSDF contact, eq. (23).
struct PairContact {
  double separation = 0.0;           ///< σ_eps2(−Φ12)ᵀΦ12 (Sec. III-B3)
  Vec6 wrench_1 = Vec6::Zero();      ///< body wrench on body 1
  Vec6 wrench_2 = Vec6::Zero();      ///< body wrench on body 2
  Mat12 J_wrench_X = Mat12::Zero();  ///< ∂[wrench_1; wrench_2]/∂[ξ1 | ξ2]
  Mat12 J_wrench_V = Mat12::Zero();  ///< ∂[wrench_1; wrench_2]/∂[V1 | V2]
};

/// Total SCM contact between two bodies: Λ12 = Σ_f σ_eps2(−Φ12)_f Λ_f over all points of both
/// clouds (eq. (23)). Cost O(I1·I2) (twice, with Jacobians), independent of the number of contacts.
/// ws.field / ws.distribution hold Φ12 and its distribution afterwards.
/// @throws std::invalid_argument on invalid parameters, non-finite inputs or positions / velocities
/// beyond kMaxLength (1e100).
PairContact pair_contact(const OrientedPointCloud& cloud1, const Pose& X_W1, const Vec6& V1,
                         const OrientedPointCloud& cloud2, const Pose& X_W2, const Vec6& V2,
                         const ScmParameters& params, SsdfWorkspace& ws, bool with_jacobians = true);

}  // namespace diffcol::ssdf
