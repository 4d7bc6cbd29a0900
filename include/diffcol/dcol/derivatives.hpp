#pragma once
/// @file derivatives.hpp
/// Derivatives of the DCOL contact query (DCOL seed Sec. II-B, III-C) by the implicit function
/// theorem on the KKT conditions (2)–(5) of the cone program, reusing the solver's final
/// factorization (no new factorization).
///
/// Polished solutions (ConeKkt::polished, the normal case): the exact KKT conditions on the
/// active set, F(x, y; θ) = 0 with the complementarity s∘z = 0 written as g_iᵀx = h_i for active
/// orthant rows, ‖s̄_k‖ = s_k0 with z_k = ν_k(1, −s̄_k/‖s̄_k‖) for cones active on their boundary
/// (this carries the cone's curvature M = ν Ḡᵀ(I − ūūᵀ)Ḡ/‖s̄‖), and s_k = 0 for a cone active at
/// its apex. dx = −K⁻¹ ∂F/∂θ with K = [[M, Aᵀ], [A, 0]] the matrix the solver's last Newton step
/// factored (LU, stored in ContactResult::kkt): four solves give the rows of K⁻¹ for (p, α).
/// These are the derivatives of the exact (unsmoothed) solution.
///
/// Other solutions (smoothing with barrier_target > 0, or no polish because x* is not unique):
/// the NT-linearized KKT conditions at the interior-point iterate, reusing the Cholesky factor of
/// H = Gᵀ W⁻² G:  H dx = Gᵀ W⁻² ∂s/∂θ − ∂(Gᵀz)/∂θ. This is the exact derivative of the
/// barrier-smoothed (central-path) solution at the final duality measure μ.
///
/// Conventions (as diffcol::idcol::ContactDerivatives)
///  - Twists are ordered [ω; v]. "X1", "X2" columns: the twist of body i in the frame chosen
///    at contact_derivatives() (ReferenceFrame, math/se3.hpp; ContactDerivatives::frame),
///    about the body pose X_WBi. The default, world: the world twist η_i,
///    X_WBi ← exp(η_i^)·X_WBi (ω in world axes, v the velocity of the point at the world
///    origin); a shape mounted at an offset moves with its body, so the same columns hold.
///  - "X12" columns: the *body twist* ξ of X_12 = X_WB1⁻¹·X_WB2 (body 2 relative to body 1),
///    X_12 ← X_12·exp(ξ^); α depends on the poses only through X_12.
///  - J_<out>_<in>: rows = components of <out>, 6 columns = [ω; v] of <in>. Row-major Eigen
///    blocks. Every block is always set; when status != ok every block is zero.
///  - Outputs: α (frame-free), x_W, p1_W, p2_W (world points, eq. (29)), gap (d_D, signed (30)).
///
/// Non-smooth configurations: where α* is not differentiable (e.g. two polytope faces parallel
/// and in contact: the contact point may slide over a patch and α* has a kink in the rotation),
/// the polish declines (singular reduced KKT matrix), the interior-point iterate sits at the
/// analytic centre of the optimal set, and the returned derivative is the one of that smoothed
/// solution: finite, with dα/dθ = zᵀ ∂s/∂θ for the multiplier z at the centre of the optimal dual
/// face, i.e. a convex combination of the one-sided derivatives (an element of the Clarke
/// subdifferential). See docs/dcol.md.

#include <cstdint>

#include <Eigen/Core>

#include "diffcol/status.hpp"
#include "diffcol/dcol/contact.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol::dcol {

using RowVec6 = Eigen::Matrix<double, 1, 6>;
using Mat36 = Eigen::Matrix<double, 3, 6, Eigen::RowMajor>;

/// Derivative statuses (diffcol::DerivativeStatus, status.hpp): ok, coincident_origins (α* = 0: not
/// differentiable, α* ∝ ‖r_2 − r_1‖ along rays), solve_failed (the solve's status is not ok),
/// invalid_input, singular (no factorization at the final iterate, or a non-finite derivative).

/// First-order derivatives of one ContactResult (see the file comment for conventions).
struct ContactDerivatives {
  DerivativeStatus status = DerivativeStatus::invalid_input;
  bool ok() const { return status == DerivativeStatus::ok; }
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twist of the "X1" / "X2" columns

  RowVec6 J_alpha_X12 = RowVec6::Zero();
  RowVec6 J_alpha_X1 = RowVec6::Zero(), J_alpha_X2 = RowVec6::Zero();
  RowVec6 J_gap_X1 = RowVec6::Zero(), J_gap_X2 = RowVec6::Zero();
  Mat36 J_x_W_X1 = Mat36::Zero(), J_x_W_X2 = Mat36::Zero();
  Mat36 J_p1_W_X1 = Mat36::Zero(), J_p1_W_X2 = Mat36::Zero();
  Mat36 J_p2_W_X1 = Mat36::Zero(), J_p2_W_X2 = Mat36::Zero();
};

/// Derivatives of `result` (a solve_contact result; it holds the poses and the factorization).
/// Allocates nothing.
/// @param frame the twist of the "X1" / "X2" columns: world (default), local or
///        local_world_aligned, about the body poses X_WB1, X_WB2 of the solve.
void contact_derivatives(const ContactResult& result, ContactDerivatives& out,
                         ReferenceFrame frame = ReferenceFrame::world);
ContactDerivatives contact_derivatives(const ContactResult& result, ReferenceFrame frame = ReferenceFrame::world);

/// Derivatives of the separating normal n = separating_normal(result) (contact.hpp): the unit
/// vector from shape 1 to shape 2 along u = Σ z_i g_i, the dual multipliers z_i of body 1's rows
/// times the rows' p-coefficients (the normal of the scaled shapes at x*). Kept apart from
/// contact_derivatives because it needs the multipliers' derivatives as well: a second solve of
/// the full KKT system (polished solutions), or dz = −W⁻² ds at the interior-point iterate (the
/// smoothed or unpolished ones, the central point's normal at the final μ, as contact_derivatives).
/// J_normal_W_Xi = dn/dη_i (3×6, [ω; v] in `frame`), orthogonal to n. Where the normal is not
/// unique (a face–face or edge–face contact left unpolished, docs/dcol.md), this is the
/// derivative of the analytic centre's normal, as for α. Allocates nothing.
/// Statuses as ContactDerivatives; singular also when u = 0 or the full KKT matrix is singular.
struct NormalDerivatives {
  DerivativeStatus status = DerivativeStatus::invalid_input;
  bool ok() const { return status == DerivativeStatus::ok; }
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twist of the "X1" / "X2" columns
  Vec3 normal_W = Vec3::Zero();                 ///< separating_normal(result) when ok, else 0
  Mat36 J_normal_W_X1 = Mat36::Zero(), J_normal_W_X2 = Mat36::Zero();
};
void normal_derivatives(const ContactResult& result, NormalDerivatives& out,
                        ReferenceFrame frame = ReferenceFrame::world);
NormalDerivatives normal_derivatives(const ContactResult& result, ReferenceFrame frame = ReferenceFrame::world);

/// The same derivatives in the layout of DCOL.jl: with respect to the stacked body coordinates
/// (r1, q1, r2, q2) ∈ R¹⁴, r_i the body position (world) and q_i = (w, x, y, z) its attitude
/// quaternion, X_WBi = (R(q_i/‖q_i‖), r_i). The quaternion columns are the derivative of the
/// function q ↦ output(R(q/‖q‖)) at the unit quaternion of X_WBi with w ≥ 0 (Pose::quaternion());
/// they are orthogonal to q (the normalization removes the radial direction). For the opposite
/// sign convention (−q) negate those four columns.
struct PositionQuaternionJacobians {
  DerivativeStatus status = DerivativeStatus::invalid_input;
  Eigen::Matrix<double, 1, 14> J_alpha = Eigen::Matrix<double, 1, 14>::Zero();
  Eigen::Matrix<double, 3, 14> J_x_W = Eigen::Matrix<double, 3, 14>::Zero();
  Eigen::Matrix<double, 3, 14> J_p1_W = Eigen::Matrix<double, 3, 14>::Zero();
  Eigen::Matrix<double, 3, 14> J_p2_W = Eigen::Matrix<double, 3, 14>::Zero();
  Eigen::Matrix<double, 1, 14> J_gap = Eigen::Matrix<double, 1, 14>::Zero();
};
/// @throws std::invalid_argument unless d is in ReferenceFrame::world.
PositionQuaternionJacobians to_position_quaternion(const ContactResult& result, const ContactDerivatives& d);

/// Maps a k×6 world-twist Jacobian of body B (pose X_WB) to the 7 columns (r, q) described above.
/// @throws std::invalid_argument unless J_X has 6 columns and J_X and X_WB are finite.
Eigen::Matrix<double, Eigen::Dynamic, 7> world_twist_to_position_quaternion(
    const Eigen::Ref<const Eigen::MatrixXd>& J_X, const Pose& X_WB);

}  // namespace diffcol::dcol
