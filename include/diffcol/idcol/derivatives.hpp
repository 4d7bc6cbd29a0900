#pragma once
/// @file derivatives.hpp
/// Analytic first-order derivatives of the iDCOL contact kinematics (seed Sec. VI, eq. (24)–(30),
/// Appendix B (B38)–(B39)), of the Hertz penalty contact wrenches (Sec. VII-B, eq. (31)–(32),
/// (B40)–(B44)), and their maps to generalized coordinates.
///
/// Conventions
/// -----------
///  - Twists are 6-vectors ordered [ω; v] (angular first), wrenches [torque; force], as in the
///    seed's (24) and (32). Units: ω in rad, v in the length unit of the shapes; a Jacobian
///    column is the derivative per radian (columns 0–2) or per length unit (columns 3–5).
///  - The relative pose g = X_12 = X_W1⁻¹·X_W2 = (R, r) (ContactSolution::X_12).
///  - "X12" columns: the *body twist* ξ of body 2 relative to body 1, g ← g·exp(ξ^)
///    (right perturbation; the seed's (g⁻¹δg)^∨ = J δq in (24)). Quantities in body 1's frame
///    depend on the poses only through g.
///  - "X1", "X2" columns: the twist of body i in the frame chosen at contact_derivatives()
///    (ReferenceFrame, math/se3.hpp; ContactDerivatives::frame). The default, world, is the
///    world twist η_i, X_Wi ← exp(η_i^)·X_Wi (ω in world axes, v the velocity of the point at the
///    world origin), with ξ = Ad_{X_W2⁻¹}(η2 − η1); local and local_world_aligned are about the
///    pose X_Wi of the solve. World-frame outputs also depend on X_W1 directly
///    (x_W = R1·x_B1 + p1), which is included.
///  - J_<out>_<in> is the derivative of output <out> with respect to input twist <in>:
///    rows = components of <out>, 6 columns = [ω; v] of <in>. Every block is always set;
///    when status != ok every block is zero and status says why (never NaN).
///  - z = (x_B1, α, λ1, λ2): the solution of (8) in original (unscaled) variables.
///  - Frames of outputs: "_B1" body 1's frame (x, p1, p2, normal), "_W" world frame; α, λ1, λ2
///    and the gap d_D are frame-free scalars.
///
/// The normal n̂ = ∇φ1(y1)/‖∇φ1(y1)‖ is evaluated at y1 = x*/α* (the field
/// ContactSolution::normal_B1), so it depends on x* *and* α*:
///   dn̂ = (I − n̂n̂ᵀ)·∇²φ1(y1)·dy1/‖∇φ1(y1)‖,  dy1 = dx/α − x dα/α² = dp1.
/// (B39) keeps only the x* term; the α* term vanishes when φ1 is positively homogeneous of
/// degree 1 (sphere, superellipsoid: ∇²φ1·y1 = 0) but not for the LogSumExp shapes or the
/// ε-regularized cylinder, so diffcol uses the complete form.
///
/// Accuracy: the derivatives are exact for the KKT point in the solution; their error is that of
/// the solve (residual ‖f_c‖ ≤ SolveOptions::tolerance) amplified by the conditioning of J_c.
/// tests/test_derivatives.cpp checks them against central finite differences (Ridders) on every
/// ordered pair of the benchmark shapes to 1e-6 relative / 1e-8 absolute.
///
/// Jacobian blocks are Eigen row-major matrices (each row is the gradient of one output
/// component); Eigen converts them on assignment to any other layout.
///
/// Shapes mounted on a rigid body
/// ------------------------------
/// A shape fixed to body B at the constant pose X_BS (the shape's pose in B) has the world pose
/// X_WS = X_WB·X_BS (pass it to the solver). A world twist of B is the same world twist of every
/// shape on B, so world-frame "X1"/"X2" Jacobians hold for the bodies unchanged (the local frames
/// are about the shape's pose: for the body's, take world columns and express_in_frame() them with
/// X_WB); a body twist ζ_B of B is the body twist Ad_{X_BS⁻¹}ζ_B of the shape
/// (shape_body_twist_map). "_B1" outputs are in shape 1's frame; multiply points by X_B1S1
/// (vectors and Jacobian rows by its rotation) for body 1's frame. to_coordinates()
/// (math/jacobians.hpp) does the chain rule to generalized coordinates in any frame.

#include <cstdint>

#include <Eigen/Core>

#include "diffcol/status.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/math/jacobians.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/shapes/shape.hpp"

namespace diffcol::idcol {

using RowVec6 = Eigen::Matrix<double, 1, 6>;
// Jacobian blocks are stored row-major: each row is the gradient of one output component.
using Mat36 = Eigen::Matrix<double, 3, 6, Eigen::RowMajor>;
using Mat66 = Eigen::Matrix<double, 6, 6, Eigen::RowMajor>;

/// Derivative statuses (diffcol::DerivativeStatus, status.hpp): ok, coincident_origins (‖r‖ ≈ 0:
/// α* is not differentiable there, α* ∝ ‖r‖ along rays), solve_failed (the solve did not reach a
/// KKT point), invalid_input (the solve had an invalid pose, or X_W1 is not valid), singular (J_c
/// is singular or a derivative came out non-finite), ill_conditioned (the condition number of J_c's
/// equilibrated form, ContactDerivatives::kkt_condition, exceeds kMaxKktCondition = 1e6: not
/// trustworthy, nearly parallel flat faces; blocks are zero, alpha_gradient_envelope() stays
/// defined, or solve the smoother problem: lower n or β, docs/idcol.md, "Derivatives").

/// The largest condition number (1-norm, equilibrated J_c; ContactDerivatives::kkt_condition) at
/// which contact_derivatives() reports ok. Measured on nearly parallel flat faces against the
/// envelope gradient and finite differences (docs/notes/idcol.md): the error of dα/dξ grows about
/// as 1e-13 × the condition number, at most 7e-8 below 1e6, 2e-6 up to 1e7, 0.3 at 1e9.
inline constexpr double kMaxKktCondition = 1e6;

/// All first-order derivatives of one contact solution (see the file comment for conventions).
struct ContactDerivatives {
  DerivativeStatus status = DerivativeStatus::invalid_input;
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twist of the "X1" / "X2" columns
  bool ok() const { return status == DerivativeStatus::ok; }
  /// ‖Ĵ‖₁‖Ĵ⁻¹‖₁ of the equilibrated KKT Jacobian Ĵ = D_r J_c D_c: J_c in the dimensionless
  /// unknowns x/(α L), log α, λ/α with rows (10c) times L, L = ‖p1‖ + ‖p2 − r‖ the pair's length
  /// at the contact. Free of the unit of length and of ‖r‖ (homogeneity). Set when status is ok
  /// or ill_conditioned; 0 otherwise (singular included: every field stays finite).
  double kkt_condition = 0.0;

  // --- with respect to the body twist ξ of X_12 (body 2 relative to body 1) --------------
  /// dz*/dξ, z = (x_B1, α, λ1, λ2): T_c of (27)–(28) with the s = log α row multiplied by α.
  Mat66 J_z_X12 = Mat66::Zero();
  RowVec6 J_alpha_X12 = RowVec6::Zero();
  RowVec6 J_lambda1_X12 = RowVec6::Zero();
  RowVec6 J_lambda2_X12 = RowVec6::Zero();
  RowVec6 J_gap_X12 = RowVec6::Zero();       ///< d_D, (B38)
  Mat36 J_x_B1_X12 = Mat36::Zero();
  Mat36 J_p1_B1_X12 = Mat36::Zero();         ///< witness point on body 1, (29)
  Mat36 J_p2_B1_X12 = Mat36::Zero();         ///< witness point on body 2, (29)
  Mat36 J_normal_B1_X12 = Mat36::Zero();     ///< unit normal, (3) / (B39)

  // --- with respect to the world twist η1 of body 1 ---------------------------------------
  RowVec6 J_alpha_X1 = RowVec6::Zero();
  RowVec6 J_lambda1_X1 = RowVec6::Zero();
  RowVec6 J_lambda2_X1 = RowVec6::Zero();
  RowVec6 J_gap_X1 = RowVec6::Zero();
  Mat36 J_x_B1_X1 = Mat36::Zero(), J_x_W_X1 = Mat36::Zero();
  Mat36 J_p1_B1_X1 = Mat36::Zero(), J_p1_W_X1 = Mat36::Zero();
  Mat36 J_p2_B1_X1 = Mat36::Zero(), J_p2_W_X1 = Mat36::Zero();
  Mat36 J_normal_B1_X1 = Mat36::Zero(), J_normal_W_X1 = Mat36::Zero();

  // --- with respect to the world twist η2 of body 2 ---------------------------------------
  RowVec6 J_alpha_X2 = RowVec6::Zero();
  RowVec6 J_lambda1_X2 = RowVec6::Zero();
  RowVec6 J_lambda2_X2 = RowVec6::Zero();
  RowVec6 J_gap_X2 = RowVec6::Zero();
  Mat36 J_x_B1_X2 = Mat36::Zero(), J_x_W_X2 = Mat36::Zero();
  Mat36 J_p1_B1_X2 = Mat36::Zero(), J_p1_W_X2 = Mat36::Zero();
  Mat36 J_p2_B1_X2 = Mat36::Zero(), J_p2_W_X2 = Mat36::Zero();
  Mat36 J_normal_B1_X2 = Mat36::Zero(), J_normal_W_X2 = Mat36::Zero();
};

/// Derivatives of a solution returned by solve_contact / ContactPair: the solution carries what
/// they need (the poses of the solve, the shapes' derivatives grad1/hess1/grad2/hess2 and
/// kkt_jacobian, factored in its equilibrated form (kkt_condition) so that the pivoting, the
/// singularity test and the condition estimate do not depend on the unit of length); no shape
/// evaluation, no allocation: meant for the hot path.
/// @param frame the twist of the "X1" / "X2" columns (ReferenceFrame, math/se3.hpp): world
///        (default), local, or local_world_aligned, each about its own body's pose (X_W1, and
///        X_W2 = X_W1·X_12). The "X12" columns are always the relative body twist.
void contact_derivatives(const ContactSolution& sol, ContactDerivatives& out,
                         ReferenceFrame frame = ReferenceFrame::world);
ContactDerivatives contact_derivatives(const ContactSolution& sol, ReferenceFrame frame = ReferenceFrame::world);
/// Derivatives of pair.last().
ContactDerivatives contact_derivatives(const ContactPair& pair, ReferenceFrame frame = ReferenceFrame::world);

/// dα*/dξ (body twist of X_12) through the envelope theorem: at the optimum
/// dα*/dξ = ∂L/∂ξ = λ2·∂φ2(y2)/∂ξ = λ2·∇φ2(y2)ᵀ[ỹ2, −I/α] (9), (25a), with ∇φ2 read from the
/// KKT Jacobian (row (10b) is φ2_x = R∇φ2/α): no linear solve, no shape evaluation.
/// Zero when the solution is not a converged KKT point with r ≠ 0 (see sol.status).
RowVec6 alpha_gradient_envelope(const ContactSolution& sol);
/// The same with respect to the twists of body 1 and body 2 in `frame` ([η1 | η2], 12 columns;
/// about the poses of the solve); zero also for an invalid solve.
Eigen::Matrix<double, 1, 12> alpha_gradient_envelope_world(const ContactSolution& sol,
                                                           ReferenceFrame frame = ReferenceFrame::world);

// ============================================================================ penalty contact

/// Hertz normal force f_n = k·δ^p, δ = −d_D (31); f_n = 0 and df_n = 0 for δ ≤ 0.
/// df_n/dδ = k·p·δ^(p−1): for p = 1 it jumps from 0 to k at δ = 0 (f_n is only C⁰); for
/// 1 < p < 2 it is continuous (→ 0) but its own derivative is unbounded as δ → 0+ (f_n is C¹,
/// not C²); for p = 2 the second derivative jumps (C¹); for p > 2 f_n is C². The Jacobians
/// below are those of the branch δ > 0 (or of the zero branch for δ ≤ 0; at δ = 0 exactly the
/// zero branch is used).
struct HertzModel {
  double stiffness = 1.0;  ///< k > 0, force / length^p
  double exponent = 1.5;   ///< p ≥ 1
};

/// Contact wrenches (32) and their Jacobians (B40)–(B44), built from ContactSolution's x_B1,
/// normal_B1 and gap. Wrench Jacobian blocks have 6 rows [torque; force] and 6 twist columns.
///  - F_c1_B1: wrench on body 1 in body 1's frame, about body 1's origin:
///    force f = −f_n·n̂ applied at x*, F_c1 = −[x̃* n̂; n̂] f_n = [x* × f; f].
///  - F_c2_B2: the reaction on body 2 in body 2's frame, about body 2's origin:
///    F_c2 = −Ad_gᵀ F_c1 (the seed's −Ad_g^{−*}F_c1 with our [ω; v] ordering: torque_2 =
///    Rᵀ(τ_1 − r × f_1), force_2 = Rᵀ f_1, negated).
///  - F_c1_W, F_c2_W: the same wrenches in world coordinates about the world origin
///    (F_W = Ad_{X_Wi}^{−T} F_i, the dual of the world twists); F_c1_W + F_c2_W = 0.
struct ContactWrenches {
  DerivativeStatus status = DerivativeStatus::invalid_input;
  bool ok() const { return status == DerivativeStatus::ok; }
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twist of the "X1" / "X2" columns
  bool in_contact = false;   ///< δ > 0
  double penetration = 0.0;  ///< δ = −d_D
  double f_n = 0.0;          ///< normal force magnitude (31)
  Vec6 F_c1_B1 = Vec6::Zero(), F_c2_B2 = Vec6::Zero();
  Vec6 F_c1_W = Vec6::Zero(), F_c2_W = Vec6::Zero();

  RowVec6 J_fn_X12 = RowVec6::Zero(), J_fn_X1 = RowVec6::Zero(), J_fn_X2 = RowVec6::Zero();  ///< (B40)
  Mat66 J_Fc1_B1_X12 = Mat66::Zero(), J_Fc1_B1_X1 = Mat66::Zero(), J_Fc1_B1_X2 = Mat66::Zero();  ///< (B42)
  Mat66 J_Fc2_B2_X12 = Mat66::Zero(), J_Fc2_B2_X1 = Mat66::Zero(), J_Fc2_B2_X2 = Mat66::Zero();  ///< (B43)
  Mat66 J_Fc1_W_X1 = Mat66::Zero(), J_Fc1_W_X2 = Mat66::Zero();
  Mat66 J_Fc2_W_X1 = Mat66::Zero(), J_Fc2_W_X2 = Mat66::Zero();
};

/// Wrench values only (all Jacobian blocks zero). status reflects the solution (ok when it is
/// converged with r ≠ 0); values are set whenever the solution is converged. A body-1 pose of the
/// solve so far out that the world torque overflows (‖p‖ ≳ 1e150) gives invalid_input and zero
/// values.
ContactWrenches hertz_wrenches(const ContactSolution& sol, const HertzModel& model);
/// Wrenches and their Jacobians; d must be contact_derivatives() of the same solution, and the
/// "X1" / "X2" wrench Jacobians are in its frame (d.frame).
/// When d.status != ok, the values are still set (if the solution converged) and the Jacobians
/// are zero, with status = d.status. World-frame Jacobian blocks that overflow (X_W1 far out)
/// give zero Jacobians and status singular.
void hertz_wrenches(const ContactSolution& sol, const ContactDerivatives& d, const HertzModel& model,
                    ContactWrenches& out);
ContactWrenches hertz_wrenches(const ContactSolution& sol, const ContactDerivatives& d, const HertzModel& model);

// Generalized coordinates: diffcol::to_coordinates and BodyJacobian (math/jacobians.hpp).

}  // namespace diffcol::idcol
