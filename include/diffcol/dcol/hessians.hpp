#pragma once
/// @file hessians.hpp
/// Second-order pose derivatives and shape-parameter derivatives of the DCOL contact query (the
/// implicit function theorem of seed Sec. II-B carried one order further, and applied to the
/// primitives' parameters). Conventions as derivatives.hpp (world points, twists [ω; v]).
///
/// What second derivative is returned
/// ----------------------------------
///  - 12×12 blocks, columns [ζ1 | ζ2] in `frame`: the Hessian of
///    f(exp((M1ζ1)^)·X_WB1, exp((M2ζ2)^)·X_WB2) at ζ = 0, M_i = world_twist_from_frame(frame, X_WBi)
///    (world: f(exp(η1^)X_WB1, exp(η2^)X_WB2); local: f(X_WB1·exp(ζ1^), X_WB2·exp(ζ2^))).
///    Symmetric; H_F = diag(M1, M2)ᵀ·H_W·diag(M1, M2). A shape mounted at an offset moves with
///    its body.
///  - H_alpha_X12 (6×6): ∂²α(X_12·exp(ξ^))/∂ξ_a∂ξ_b, ξ the body twist of X_12 = X_WB1⁻¹·X_WB2.
///  - Differentiating the first derivatives of contact_derivatives() along a twist of the same
///    pose adds the antisymmetric bracket term ½ μᵀ ad_{e_i} e_j (world twists, μ the gradient):
///    the blocks here are the symmetric part, as idcol/hessians.hpp.
///  - Outputs: α, the gap d_D = (1 − 1/α)‖r_2 − r_1‖ and, one matrix per world component, x_W,
///    p1_W and p2_W (eq. (29)) and separating_normal() (contact.hpp: n = σ v/‖v‖, v the sum of
///    body 1's multipliers times their rows' point coefficients, differentiated twice through the
///    multipliers' second derivatives); directional second derivatives: uᵀ·H·v.
///
/// Method. On the active set of the polished solution (ConeKkt::polished) the program is
///   min α  s.t.  φ_j(s(x, θ)) = 0,  φ = s_i (orthant rows), s_k0 − ‖s̄_k‖ (cones on their
///   boundary), s_k (cones at their apex),
/// with s the rows of the cone program in world units, affine in x = (p, α, slacks). A pose
/// enters only through the point seen by the shape, y = X_WS⁻¹·exp(−η^)·p. With the Lagrangian
/// ℒ = α − Σ μ_j φ_j, w = (x, μ), the KKT matrix K = ∂²ℒ/∂w² and B = ∂²ℒ/∂w∂θ:
///   dα/dθ = ∂ℒ/∂θ = −zᵀ ∂s/∂θ  (envelope theorem),   dw/dθ = −K⁻¹B,
///   d²α/dθ² = ∂²ℒ/∂θ² − Bᵀ K⁻¹ B.
/// ∂²ℒ/∂θ² holds the cones' curvature and the second-order term ½ω×(ω×p + v) of the motion.
/// The points: the second-order IFT K·w_ab = −D²F[(w_a, e_a), (w_b, e_b)] on the KKT residual F,
/// with the third derivatives of the cones' constraints and of the motion (hessians.cpp).
/// K (dimension ConeKkt::kkt_full_dim) is assembled and factored once per call, in world units
/// and without the polish's slack elimination (whose eliminated rows carry shape parameters).
///
/// Where α is not twice differentiable: at a change of the active set (a contact point reaching
/// an edge, a vertex, a cap rim or a cone's apex; two features becoming parallel) the Hessian
/// and the parameter derivatives returned are those of the active set the polish identified,
/// i.e. one-sided. An unpolished solution (a non-unique x*, e.g. parallel faces in contact, or a
/// smoothed solve with SolveOptions::barrier_target > 0) has no active set: status `singular`,
/// every block zero (its first derivatives are those of contact_derivatives()).
///
/// Shape parameters, in order (shape_parameter_name()), the primitives' stored values:
///   polytope: b[0..m−1], then A[i][0..2] for i = 0..m−1 (the stored unit rows, each entry
///     varied freely; a box's half-extent hx moves b of its ±x faces: d/dhx = d/db[+x] + d/db[−x]);
///   capsule, cylinder: radius, length;   cone: height, half_angle;
///   ellipsoid: P[0][0], P[1][1], P[2][2], P[0][1], P[0][2], P[1][2] (an off-diagonal parameter
///     moves both symmetric entries; semi-axes a_i of a diagonal P: dP_ii/da_i = −2/a_i³);
///   padded polygon: radius, d[0..m−1], then C[i][0], C[i][1] for i = 0..m−1;
///   sphere: radius.
/// Outputs: α, the gap, x_W, p1_W, p2_W (eq. (29)) and the separating normal. ShapeDerivatives
/// holds a column per parameter (up to kInlinePolytopeFaces faces per polytope);
/// SparseShapeDerivatives only the parameters the contact touches (its active rows: a polytope's
/// active faces, found through its face window above kInlinePolytopeFaces faces), for polytopes
/// of any size: every other parameter's derivatives are zero.
///
/// Both are computed from a solve_contact result without allocation; status as for
/// contact_derivatives() (zero blocks unless ok).

#include <array>
#include <cstdint>
#include <string>

#include <Eigen/Core>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/status.hpp"

namespace diffcol::dcol {

using Mat12 = Eigen::Matrix<double, 12, 12>;

/// Second-order pose derivatives of one ContactResult (see the file comment).
struct ContactHessians {
  DerivativeStatus status = DerivativeStatus::invalid_input;
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twists ζ1, ζ2 of the 12×12 blocks
  bool ok() const { return status == DerivativeStatus::ok; }
  Mat6 H_alpha_X12 = Mat6::Zero();  ///< body twist of X_12 (frame-free)
  Mat12 H_alpha = Mat12::Zero();    ///< [ζ1 | ζ2]
  Mat12 H_gap = Mat12::Zero();      ///< [ζ1 | ζ2]
  /// One matrix per world component k = 0, 1, 2, [ζ1 | ζ2]; set only with HessianOutputs::all.
  std::array<Mat12, 3> H_x_W{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
  std::array<Mat12, 3> H_p1_W{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
  std::array<Mat12, 3> H_p2_W{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
  /// Of separating_normal() (contact.hpp), from the multipliers' second derivatives; zero where
  /// the dual normal vanishes.
  std::array<Mat12, 3> H_normal_W{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
};

/// Which blocks contact_hessians() fills (H_alpha_X12, H_alpha and H_gap always).
enum class HessianOutputs : std::uint8_t {
  all = 0,      ///< also the points x_W, p1_W, p2_W and the normal
  scalars = 1,  ///< α and the gap only (the point blocks stay zero)
};

/// Hessians of `result` (a solve_contact result). No allocation.
void contact_hessians(const ContactResult& result, ContactHessians& out, ReferenceFrame frame = ReferenceFrame::world,
                      HessianOutputs outputs = HessianOutputs::all);
ContactHessians contact_hessians(const ContactResult& result, ReferenceFrame frame = ReferenceFrame::world,
                                 HessianOutputs outputs = HessianOutputs::all);

// ================================================================ shape parameters

/// The most parameters of one primitive (a polytope with kInlinePolytopeFaces faces) and of a pair.
inline constexpr int kMaxShapeParameters = 4 * kInlinePolytopeFaces;
inline constexpr int kMaxPairParameters = 2 * kMaxShapeParameters;

/// Number of parameters of a primitive (see the file comment): 4m for a polytope with m faces,
/// 1 + 3m for a padded polygon with m edges, 6 for an ellipsoid, 2 or 1 otherwise.
int shape_parameter_count(const Primitive& shape);
/// "radius", "length", "height", "half_angle", "b[i]", "A[i][j]", "P[i][j]", "d[i]", "C[i][j]".
/// @throws std::out_of_range for i outside the count.
std::string shape_parameter_name(const Primitive& shape, int i);

/// Derivatives with respect to the primitives' parameters: column j < count1 is parameter j of
/// shape 1, column count1 + j parameter j of shape 2 (count1 + count2 columns).
struct ShapeDerivatives {
  DerivativeStatus status = DerivativeStatus::invalid_input;
  bool ok() const { return status == DerivativeStatus::ok; }
  int count1 = 0, count2 = 0;
  using Row = Eigen::Matrix<double, 1, Eigen::Dynamic, Eigen::RowMajor, 1, kMaxPairParameters>;
  using Rows3 = Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::ColMajor, 3, kMaxPairParameters>;
  Row d_alpha, d_gap;
  Rows3 d_x_W, d_p1_W, d_p2_W;
  Rows3 d_normal_W;  ///< of separating_normal (contact.hpp), from the multipliers' derivatives (zero if u = 0)
};

/// Shape-parameter derivatives of `result`, a solve_contact result of shape1 against shape2 (the
/// same shapes, in that order). No allocation.
/// @throws std::invalid_argument for a polytope with more than kInlinePolytopeFaces faces (use
///         sparse_shape_derivatives), or shapes whose types do not match the result's cone program.
void shape_derivatives(const Primitive& shape1, const Primitive& shape2, const ContactResult& result,
                       ShapeDerivatives& out);
ShapeDerivatives shape_derivatives(const Primitive& shape1, const Primitive& shape2, const ContactResult& result);

/// The most parameters one contact can touch (its active rows times the parameters of a row).
inline constexpr int kMaxTouchedParameters = 48;

/// The same derivatives for the touched parameters only: column j is parameter `parameter[j]`
/// (columns in the order the active rows first touch them; index < count1: shape 1's, else
/// count1 + shape 2's). Every parameter not listed has zero derivatives.
struct SparseShapeDerivatives {
  DerivativeStatus status = DerivativeStatus::invalid_input;
  bool ok() const { return status == DerivativeStatus::ok; }
  int count1 = 0, count2 = 0;  ///< shape_parameter_count of each shape
  int touched = 0;             ///< the number of columns
  std::array<int, kMaxTouchedParameters> parameter{};
  using Row = Eigen::Matrix<double, 1, Eigen::Dynamic, Eigen::RowMajor, 1, kMaxTouchedParameters>;
  using Rows3 = Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::ColMajor, 3, kMaxTouchedParameters>;
  Row d_alpha, d_gap;
  Rows3 d_x_W, d_p1_W, d_p2_W, d_normal_W;
};

/// Sparse shape-parameter derivatives of `result` (as shape_derivatives), for polytopes of any
/// size. No allocation.
/// @throws std::invalid_argument for shapes whose types do not match the result's cone program.
void sparse_shape_derivatives(const Primitive& shape1, const Primitive& shape2, const ContactResult& result,
                              SparseShapeDerivatives& out);
SparseShapeDerivatives sparse_shape_derivatives(const Primitive& shape1, const Primitive& shape2,
                                                const ContactResult& result);

}  // namespace diffcol::dcol
