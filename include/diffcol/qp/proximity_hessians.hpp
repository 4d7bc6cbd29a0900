#pragma once
/// @file proximity_hessians.hpp
/// Second-order pose derivatives and shape-parameter derivatives of the DiffPills proximity
/// outputs (diffcol/qp/proximity.hpp): the QP's implicit function on its active set carried one
/// order further, and applied to the shapes' parameters. Conventions as proximity_derivatives.hpp.
///
/// What second derivative is returned
/// ----------------------------------
///  - 12×12 blocks, columns [ζ1 | ζ2] in `frame`: the Hessian of
///    f(exp((M1ζ1)^)·X_W1, exp((M2ζ2)^)·X_W2) at ζ = 0, M_i = world_twist_from_frame(frame, X_Wi)
///    (frame = world: f(exp(η1^)X_W1, exp(η2^)X_W2); local: f(X_W1·exp(ζ1^), X_W2·exp(ζ2^))).
///    Symmetric; H_F = diag(M1, M2)ᵀ·H_W·diag(M1, M2).
///  - Differentiating the first derivatives of proximity_derivatives() along a twist of the same
///    pose adds the antisymmetric bracket term ½ μᵀ ad_{e_i} e_j (world twists; μ the gradient):
///    the blocks here are the symmetric part, as idcol/hessians.hpp.
///  - Outputs: φ, the signed distance (scalars) and, per world component k = 0, 1, 2, the core
///    witness points core1_W, core2_W, the padded closest points p1_W, p2_W and normal_W;
///    directional second derivatives: idcol::second_derivative() or uᵀ·H·v.
///
/// Method. On the active set A the QP min ½‖d(x, η)‖², G_A x = h_A (G, h body-frame constants,
/// d = p1 − p2 affine in x) has the stationarity condition Zᵀ J_xᵀ d = 0 (J_x = ∂d/∂x = F).
/// Along η = t_a e_a + t_b e_b it gives, with S = Z(ZᵀPZ)⁺Zᵀ (ProximityQpInfo::S) and the
/// first-order x_a = −S·Q e_a,
///   x_ab = −S·(J_xᵀ D²d[(x_a, e_a), (x_b, e_b)] + J_x,aᵀ d_b + J_x,bᵀ d_a + J_x,abᵀ d),
/// where D²d is the second-order term of exp(η_i^)·(q_i + A_i δx_i), d_a the total first
/// derivative of d and J_x,a, J_x,ab the derivatives of the rotated columns A_i. The outputs
/// follow by the chain rule (φ = ‖d‖² − R², ‖d‖, n = −d/‖d‖, p_i ± R_i n). No factorization.
///
/// Where the outputs are not twice differentiable (status as proximity_derivatives()):
///  - at an active-set change (a witness point reaching a vertex, an edge or an end point) the
///    Hessians are those of the active set the solver identified: one-sided;
///  - cores_touch (‖p1 − p2‖ ≈ 0): H_phi = 2 d_aᵀd_b is exact where the cores only touch (it is
///    0 where polygon cores overlap, ProximityResult::penetration: φ is flat); the signed
///    distance, normal and padded-point Hessians are left zero (the signed distance has a kink
///    or is the penetration measure, whose second derivatives are not provided); the core
///    witness Hessians are those of the returned pair;
///  - non_unique_minimizer: the returned pair with the non-unique directions held fixed;
///  - solve_failed / invalid_input: every block zero.
///
/// Shape parameters (proximity_shape_derivatives): on the active set
///   dx = (I − S·P)·dx_p − S·(∂J_xᵀ d + J_xᵀ ∂d|_x + ∂G_Aᵀ λ),   G_A·dx_p = ∂h_A − ∂G_A·x,
/// with λ the multipliers of the active rows (least squares of G_Aᵀλ = −J_xᵀd). Parameters, in
/// order (proximity_shape_parameter_name()):
///   capsule: radius, length (the core end points move apart symmetrically about their midpoint
///   along the core axis; body x for a zero-length core);
///   padded polygon: radius, d[0..m−1], then C[i][0], C[i][1] for i = 0..m−1 — the stored rows
///   (unit C_i, PaddedPolygon::normal / offset), each entry varied freely; for rows given to the
///   constructor with norm s_i, divide row i's columns by s_i (the polygon is invariant under
///   scaling a row, so its derivatives are homogeneous of degree −1).
/// Columns: shape 1's parameters, then shape 2's (count1 + count2 columns). The status is the
/// pose derivatives'; with cores_touch only the radius columns of φ (−2(R1 + R2)) and of the signed
/// distance (−1) are set, φ's other columns are 0 (exact: d = 0), every other block is 0.

#include <array>
#include <string>

#include <Eigen/Core>

#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"

namespace diffcol::qp {

using Mat12 = Eigen::Matrix<double, 12, 12>;

/// Second-order pose derivatives of one ProximityResult (see the file comment).
struct ProximityHessians {
  DerivativeStatus status = DerivativeStatus::solve_failed;
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twists ζ1, ζ2 of the columns
  bool ok() const { return status == DerivativeStatus::ok; }
  Mat12 H_phi = Mat12::Zero();
  Mat12 H_signed_distance = Mat12::Zero();
  std::array<Mat12, 3> H_core1_W{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
  std::array<Mat12, 3> H_core2_W{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
  std::array<Mat12, 3> H_p1_W{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
  std::array<Mat12, 3> H_p2_W{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
  std::array<Mat12, 3> H_normal_W{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
};

/// Hessians of `result`, which must come from proximity() with the same shapes and poses.
/// No allocation, no factorization (reuses result.qp.S).
void proximity_hessians(const Capsule& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                        const ProximityResult& result, ProximityHessians& out,
                        ReferenceFrame frame = ReferenceFrame::world);
void proximity_hessians(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
                        const ProximityResult& result, ProximityHessians& out,
                        ReferenceFrame frame = ReferenceFrame::world);
void proximity_hessians(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
                        const ProximityResult& result, ProximityHessians& out,
                        ReferenceFrame frame = ReferenceFrame::world);
void proximity_hessians(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                        const ProximityResult& result, ProximityHessians& out,
                        ReferenceFrame frame = ReferenceFrame::world);

/// Convenience returning by value.
template <class S1, class S2>
ProximityHessians proximity_hessians(const S1& s1, const Pose& X_W1, const S2& s2, const Pose& X_W2,
                                     const ProximityResult& result, ReferenceFrame frame = ReferenceFrame::world) {
  ProximityHessians h;
  proximity_hessians(s1, X_W1, s2, X_W2, result, h, frame);
  return h;
}

// ================================================================ shape parameters

/// The most parameters of one shape (a polygon with kMaxPolygonEdges rows) and of a pair.
inline constexpr int kMaxShapeParameters = 1 + 3 * kMaxPolygonEdges;
inline constexpr int kMaxPairParameters = 2 * kMaxShapeParameters;

/// Number of parameters: 2 for a capsule, 1 + 3m for a polygon with m rows.
int proximity_shape_parameter_count(const Capsule& shape);
int proximity_shape_parameter_count(const PaddedPolygon& shape);
/// "radius", "length"; "radius", "d[i]", "C[i][j]". @throws std::out_of_range for i outside the count.
std::string proximity_shape_parameter_name(const Capsule& shape, int i);
std::string proximity_shape_parameter_name(const PaddedPolygon& shape, int i);

/// Derivatives with respect to the shapes' parameters (count1 + count2 columns).
struct ProximityShapeDerivatives {
  DerivativeStatus status = DerivativeStatus::solve_failed;
  bool ok() const { return status == DerivativeStatus::ok; }
  int count1 = 0, count2 = 0;
  using Row = Eigen::Matrix<double, 1, Eigen::Dynamic, Eigen::RowMajor, 1, kMaxPairParameters>;
  using Rows3 = Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::ColMajor, 3, kMaxPairParameters>;
  Row d_phi, d_signed_distance;
  Rows3 d_core1_W, d_core2_W, d_p1_W, d_p2_W, d_normal_W;
};

/// Shape-parameter derivatives of `result` (from proximity() with the same shapes and poses).
/// No allocation.
void proximity_shape_derivatives(const Capsule& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                                 const ProximityResult& result, ProximityShapeDerivatives& out);
void proximity_shape_derivatives(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2,
                                 const Pose& X_W2, const ProximityResult& result, ProximityShapeDerivatives& out);
void proximity_shape_derivatives(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
                                 const ProximityResult& result, ProximityShapeDerivatives& out);
void proximity_shape_derivatives(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                                 const ProximityResult& result, ProximityShapeDerivatives& out);

template <class S1, class S2>
ProximityShapeDerivatives proximity_shape_derivatives(const S1& s1, const Pose& X_W1, const S2& s2,
                                                      const Pose& X_W2, const ProximityResult& result) {
  ProximityShapeDerivatives d;
  proximity_shape_derivatives(s1, X_W1, s2, X_W2, result, d);
  return d;
}

}  // namespace diffcol::qp
