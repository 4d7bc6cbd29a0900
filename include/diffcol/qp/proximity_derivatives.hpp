#pragma once
/// @file proximity_derivatives.hpp
/// First derivatives of the DiffPills proximity outputs (diffcol/qp/proximity.hpp) with respect
/// to both poses, by differentiating the QP solution (seed Sec. II-C, eq. (13)–(17), (27)–(28),
/// (33)–(34)).
///
/// Conventions
/// -----------
///  - Twists are ordered [ω; v]. J_<out>_X1 / J_<out>_X2: rows = components of <out>, 6 columns
///    = the twist of pose X_W1 / X_W2 in the frame chosen by the caller (ReferenceFrame,
///    math/se3.hpp) and recorded in ProximityDerivatives::frame: world (default, as every
///    layer's X1/X2 blocks): X_Wi ← exp(η^)·X_Wi; local: X_Wi ← X_Wi·exp(ζ^);
///    local_world_aligned: ω and the velocity of body i's origin, in world axes.
///  - Outputs: φ (1), signed distance (1), core1_W, core2_W (core witness points), p1_W,
///    p2_W (padded closest points), normal_W (3 each), all world-frame.
///  - Units: per radian (ω columns) and per length unit (v columns).
///
/// Method. With x* the QP solution and the poses entering only through P = FᵀF and c = Fᵀg
/// (G, h are body-frame constants), dx* = −S·(dP·x* + dc) = −S·d(Fᵀ(Fx + g))|_{x fixed}, where
/// S = Z(ZᵀPZ)⁺Zᵀ is the null-space form of the derivative system (17) on the active set,
/// stored with the solution (ProximityQpInfo::S): no new factorization. φ and the signed
/// distance need no solve at all: at the optimum Fᵀd ⊥ dx (envelope theorem, G_A dx = 0), so
/// dφ = 2dᵀ(∂d/∂pose)|_{x fixed} and d(‖d‖) = dᵀ(∂d/∂pose)|_{x fixed}/‖d‖.
///
/// Where the outputs are not differentiable the Jacobians stay finite and the status says so:
///  - non_unique_minimizer (parallel overlapping segments / edges / faces, crossing cores):
///    the p, closest-point and normal Jacobians are those of the returned witness pair with the
///    non-unique directions held fixed (S uses the pseudo-inverse); the φ row is a valid
///    one-sided derivative (φ has a kink there when the cores are separated).
///  - polygon pairs with overlapping cores (ProximityResult::penetration): status ok; the
///    signed distance, normal, witness and closest points of the best separating axis are
///    differentiated for that axis (plane normal: the other core's support vertex and its
///    projection; edge × edge: the closest points of the two edge lines); J_φ = 0 (φ is flat).
///  - cores_touch (capsule–capsule, ‖p1 − p2‖ ≈ 0): with crossing axes, the one-sided gradient
///    nᵀ(δp2 − δp1) of the side n = normal_W (the signed distance |n·(p2 − p1)| − R has a kink);
///    with parallel / zero-length cores J_signed_distance = 0, J_normal = 0, J_closest_i = J_p_i.
///    φ's gradient (= 0 there) is exact.
///  - solve_failed: the proximity result was not ok (not_certified included); every block is zero.
/// At an active-set change (a witness point reaching a vertex / an end point) the Jacobians are
/// those of the active set the solver identified (one-sided).

#include <cstdint>

#include <Eigen/Core>

#include "diffcol/status.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/qp/proximity.hpp"

namespace diffcol::qp {

using ReferenceFrame = diffcol::ReferenceFrame;
using RowVec6 = Eigen::Matrix<double, 1, 6>;
using Mat36 = Eigen::Matrix<double, 3, 6, Eigen::RowMajor>;
using RowVec7 = Eigen::Matrix<double, 1, 7>;
using Mat37 = Eigen::Matrix<double, 3, 7, Eigen::RowMajor>;

/// Derivative statuses (diffcol::DerivativeStatus, status.hpp): ok, non_unique_minimizer,
/// cores_touch, solve_failed (see the file comment), invalid_input (X_W1 or X_W2 is not a valid pose,
/// Pose::invalid_reason: every block zero).

/// Derivatives of one ProximityResult (every block always set; zero when solve_failed).
struct ProximityDerivatives {
  DerivativeStatus status = DerivativeStatus::solve_failed;
  ReferenceFrame frame = ReferenceFrame::world;
  RowVec6 J_phi_X1 = RowVec6::Zero(), J_phi_X2 = RowVec6::Zero();
  RowVec6 J_signed_distance_X1 = RowVec6::Zero(), J_signed_distance_X2 = RowVec6::Zero();
  Mat36 J_core1_W_X1 = Mat36::Zero(), J_core1_W_X2 = Mat36::Zero();
  Mat36 J_core2_W_X1 = Mat36::Zero(), J_core2_W_X2 = Mat36::Zero();
  Mat36 J_p1_W_X1 = Mat36::Zero(), J_p1_W_X2 = Mat36::Zero();
  Mat36 J_p2_W_X1 = Mat36::Zero(), J_p2_W_X2 = Mat36::Zero();
  Mat36 J_normal_W_X1 = Mat36::Zero(), J_normal_W_X2 = Mat36::Zero();
};

/// Derivatives of `result`, which must come from proximity() with the same shapes and poses.
/// No allocation, no factorization (reuses result.qp.S).
void proximity_derivatives(const Capsule& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                           const ProximityResult& result, ProximityDerivatives& out,
                           ReferenceFrame frame = ReferenceFrame::world);
void proximity_derivatives(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
                           const ProximityResult& result, ProximityDerivatives& out,
                           ReferenceFrame frame = ReferenceFrame::world);
void proximity_derivatives(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
                           const ProximityResult& result, ProximityDerivatives& out,
                           ReferenceFrame frame = ReferenceFrame::world);
void proximity_derivatives(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                           const ProximityResult& result, ProximityDerivatives& out,
                           ReferenceFrame frame = ReferenceFrame::world);

/// Convenience returning by value.
template <class S1, class S2>
ProximityDerivatives proximity_derivatives(const S1& s1, const Pose& X_W1, const S2& s2, const Pose& X_W2,
                                           const ProximityResult& result,
                                           ReferenceFrame frame = ReferenceFrame::world) {
  ProximityDerivatives d;
  proximity_derivatives(s1, X_W1, s2, X_W2, result, d, frame);
  return d;
}

/// φ and its gradient only (the fast path, e.g. for collision-avoidance constraints).
struct ProximityGradient {
  SolveStatus status = SolveStatus::invalid_input;
  ReferenceFrame frame = ReferenceFrame::world;
  double phi = 0.0;                  ///< φ (20)
  double signed_distance = 0.0;      ///< ‖p1 − p2‖ − (R1 + R2)
  RowVec6 J_phi_X1 = RowVec6::Zero(), J_phi_X2 = RowVec6::Zero();
};
/// Capsule–capsule φ and dφ/d(twists) with the box active-set solver, without building a
/// ProximityResult: the same quantities as proximity() + proximity_derivatives(), equal to them up
/// to rounding (the arithmetic is ordered differently; φ can differ in the last bit). No allocation.
void proximity_gradient(const Capsule& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                        ProximityGradient& out, ReferenceFrame frame = ReferenceFrame::world);

// ------------------------------------------------------------ quaternion coordinates

/// The 6×7 map M with twist = M·[dr; dq] for a pose built as Pose::from_quaternion(r, q) from
/// raw (not necessarily unit) quaternion coordinates q = (w, x, y, z): it includes the
/// normalization, so M·[0; q] = 0. Multiply a twist Jacobian by it: J_out_rq = J_out_X·M.
/// @param frame the ReferenceFrame of the Jacobian it will multiply.
/// @throws std::invalid_argument if q is zero or not finite, or r is not finite.
Eigen::Matrix<double, 6, 7> twist_from_position_quaternion(const Vec3& r, const Eigen::Vector4d& q_wxyz,
                                                           ReferenceFrame frame);

/// Jacobians with respect to the position r_i (world) and quaternion q_i = (w, x, y, z) of
/// each pose: 7 columns [r_i (3) | q_i (4)] per pose.
struct ProximityCoordinateJacobians {
  RowVec7 J_phi_rq1 = RowVec7::Zero(), J_phi_rq2 = RowVec7::Zero();
  RowVec7 J_signed_distance_rq1 = RowVec7::Zero(), J_signed_distance_rq2 = RowVec7::Zero();
  Mat37 J_core1_W_rq1 = Mat37::Zero(), J_core1_W_rq2 = Mat37::Zero();
  Mat37 J_core2_W_rq1 = Mat37::Zero(), J_core2_W_rq2 = Mat37::Zero();
  Mat37 J_p1_W_rq1 = Mat37::Zero(), J_p1_W_rq2 = Mat37::Zero();
  Mat37 J_p2_W_rq1 = Mat37::Zero(), J_p2_W_rq2 = Mat37::Zero();
  Mat37 J_normal_W_rq1 = Mat37::Zero(), J_normal_W_rq2 = Mat37::Zero();
};
/// The chain rule of twist_from_position_quaternion applied to every block of d, for poses
/// X_Wi = Pose::from_quaternion(r_i, q_i).
ProximityCoordinateJacobians to_position_quaternion(const ProximityDerivatives& d, const Vec3& r1,
                                                    const Eigen::Vector4d& q1_wxyz, const Vec3& r2,
                                                    const Eigen::Vector4d& q2_wxyz);

}  // namespace diffcol::qp
