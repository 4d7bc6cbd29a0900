#pragma once
/// @file hessians.hpp
/// Second-order pose derivatives and shape-parameter derivatives of the iDCOL contact kinematics
/// (the implicit-function theorem of seed Sec. VI / Appendix B carried one order further, and
/// applied to the shapes' parameters). Conventions as derivatives.hpp.
///
/// What second derivative is returned
/// ----------------------------------
///  - "X12" blocks (6×6): H_ab = ∂²f(X_12·exp(ξ^))/∂ξ_a∂ξ_b at ξ = 0, ξ = [ω; v] the body twist
///    of body 2 relative to body 1. Symmetric.
///  - "two-pose" blocks (12×12, columns [ζ1 | ζ2]): the Hessian of
///    f(exp((M1ζ1)^)·X_W1, exp((M2ζ2)^)·X_W2) at ζ = 0, M_i = world_twist_from_frame(frame, X_Wi).
///    For frame = world (M = I) this is f(exp(η1^)X_W1, exp(η2^)X_W2); for local it is
///    f(X_W1·exp(ζ1^), X_W2·exp(ζ2^)); for local_world_aligned the exponential of the twist about
///    the body's origin with world axes. Symmetric; in every frame H_F = diag(M1, M2)ᵀ·H_W·diag(M1, M2).
///  - On SE(3) the derivative of the first derivative is not symmetric: differentiating the
///    gradient μ(X) (components: twists e_i at X) along a twist e_j of the same pose gives
///    H_ij + ½ μᵀ ad_{e_i} e_j for world twists (exp(τe_i)·exp(te_j)·X) and H_ij + ½ μᵀ ad_{e_j} e_i
///    for body twists (X·exp(te_j)·exp(τe_i)); the bracket part is antisymmetric. The blocks here
///    are the symmetric part H: the Hessian in exponential coordinates, as above. Between the two
///    poses (cross blocks) the orders agree.
///  - Vector outputs (x, p1, p2, n̂ in body 1's frame) have one such matrix per component
///    (index 0, 1, 2); directional second derivatives: second_derivative().
///
/// Method: z = (x, log α, λ1, λ2) solves F(z, ξ) = 0 (10). Along ξ(t) = t_a e_a + t_b e_b,
///   J_c·∂²z/∂ξ_a∂ξ_b = −D²F[(z_a, e_a), (z_b, e_b)]
/// with z_a = T_c e_a the first-order solution (27)–(28). D²F needs ∇³φ of both shapes at the
/// contact, from closed forms per shape (the seed's Appendix A differentiated once more); the 21
/// right-hand sides share the solve's LU factors. World twists enter through
/// ξ = Ad_{X_W2⁻¹}·BCH(−η1, η2) = Ad_{X_W2⁻¹}(η2 − η1 − ½ ad_{η1}η2) + O(3).
///
/// Shape parameters: J_c·∂z/∂θ = −∂F/∂θ, with ∂φ/∂θ and ∂∇φ/∂θ of the shape in closed form.
/// Parameters, in order (shape_parameter_name()):
///   sphere: radius; superellipsoid: a, b, c; superelliptic cylinder: radius, half_height;
///   smooth polytope: beta, length (L); smooth truncated cone: beta, bottom_radius, top_radius,
///   bottom_extent (a), top_extent (b).
/// Columns of ShapeDerivatives: shape 1's parameters, then shape 2's.
///
/// Both are computed from a converged solution without allocation; status as for
/// contact_derivatives() (zero blocks unless ok).

#include <array>

#include <Eigen/Core>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/shapes/shape.hpp"

namespace diffcol::idcol {

using Mat12 = Eigen::Matrix<double, 12, 12>;
using Vec12 = Eigen::Matrix<double, 12, 1>;

/// Second-order derivatives of one contact solution (see the file comment).
struct ContactHessians {
  DerivativeStatus status = DerivativeStatus::invalid_input;
  ReferenceFrame frame = ReferenceFrame::world;  ///< the twists ζ1, ζ2 of the two-pose blocks
  bool ok() const { return status == DerivativeStatus::ok; }

  // --- relative body twist ξ of X_12 (6×6, symmetric)
  Mat6 H_alpha_X12 = Mat6::Zero();
  Mat6 H_lambda1_X12 = Mat6::Zero();
  Mat6 H_lambda2_X12 = Mat6::Zero();
  Mat6 H_gap_X12 = Mat6::Zero();
  std::array<Mat6, 3> H_x_B1_X12{Mat6::Zero(), Mat6::Zero(), Mat6::Zero()};
  std::array<Mat6, 3> H_p1_B1_X12{Mat6::Zero(), Mat6::Zero(), Mat6::Zero()};
  std::array<Mat6, 3> H_p2_B1_X12{Mat6::Zero(), Mat6::Zero(), Mat6::Zero()};
  std::array<Mat6, 3> H_normal_B1_X12{Mat6::Zero(), Mat6::Zero(), Mat6::Zero()};

  // --- both poses, [ζ1 | ζ2] in `frame` (12×12, symmetric)
  Mat12 H_alpha = Mat12::Zero();
  Mat12 H_lambda1 = Mat12::Zero();
  Mat12 H_lambda2 = Mat12::Zero();
  Mat12 H_gap = Mat12::Zero();
  /// Set only when contact_hessians() was asked for them (HessianOutputs::all).
  std::array<Mat12, 3> H_x_B1{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
  std::array<Mat12, 3> H_p1_B1{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
  std::array<Mat12, 3> H_p2_B1{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
  std::array<Mat12, 3> H_normal_B1{Mat12::Zero(), Mat12::Zero(), Mat12::Zero()};
};

/// Which two-pose blocks contact_hessians() fills (the X12 blocks are always filled).
enum class HessianOutputs : std::uint8_t {
  all = 0,      ///< scalars and the vector outputs
  scalars = 1,  ///< α, λ1, λ2, d_D only (the vector 12×12 blocks stay zero)
};

/// Hessians of a solution returned by solve_contact / ContactPair for these shapes (the shapes of
/// the solve: their third derivatives are evaluated at the contact). No allocation.
void contact_hessians(const Shape& shape1, const Shape& shape2, const ContactSolution& sol, ContactHessians& out,
                      ReferenceFrame frame = ReferenceFrame::world, HessianOutputs outputs = HessianOutputs::all);
ContactHessians contact_hessians(const Shape& shape1, const Shape& shape2, const ContactSolution& sol,
                                 ReferenceFrame frame = ReferenceFrame::world,
                                 HessianOutputs outputs = HessianOutputs::all);
/// Hessians of pair.last().
ContactHessians contact_hessians(const ContactPair& pair, ReferenceFrame frame = ReferenceFrame::world,
                                 HessianOutputs outputs = HessianOutputs::all);

/// uᵀ H v: the second derivative along twists u, v (6 or 12 entries, as H).
template <int N>
double second_derivative(const Eigen::Matrix<double, N, N>& H, const Eigen::Matrix<double, N, 1>& u,
                         const Eigen::Matrix<double, N, 1>& v) {
  return u.dot(H * v);
}
/// (uᵀ H_k v)_k for a vector output.
template <int N>
Vec3 second_derivative(const std::array<Eigen::Matrix<double, N, N>, 3>& H, const Eigen::Matrix<double, N, 1>& u,
                       const Eigen::Matrix<double, N, 1>& v) {
  return Vec3(u.dot(H[0] * v), u.dot(H[1] * v), u.dot(H[2] * v));
}

// ================================================================ shape parameters

/// The most parameters of one shape, and of a pair.
inline constexpr int kMaxShapeParameters = 5;
inline constexpr int kMaxPairParameters = 2 * kMaxShapeParameters;

/// Number of parameters of a shape differentiated by shape_derivatives() (see the file comment).
int shape_parameter_count(const Shape& shape);
/// Name of parameter i (0 ≤ i < shape_parameter_count). @throws std::out_of_range otherwise.
const char* shape_parameter_name(const Shape& shape, int i);

/// Derivatives with respect to the shapes' parameters: column j < count1 is parameter j of shape 1,
/// column count1 + j parameter j of shape 2; columns from count1 + count2 on are zero.
struct ShapeDerivatives {
  DerivativeStatus status = DerivativeStatus::invalid_input;
  bool ok() const { return status == DerivativeStatus::ok; }
  int count1 = 0, count2 = 0;
  using Row = Eigen::Matrix<double, 1, kMaxPairParameters>;
  using Rows3 = Eigen::Matrix<double, 3, kMaxPairParameters>;
  Row d_alpha = Row::Zero();
  Row d_lambda1 = Row::Zero();
  Row d_lambda2 = Row::Zero();
  Row d_gap = Row::Zero();
  Rows3 d_x_B1 = Rows3::Zero(), d_p1_B1 = Rows3::Zero(), d_p2_B1 = Rows3::Zero(), d_normal_B1 = Rows3::Zero();
  Rows3 d_x_W = Rows3::Zero(), d_p1_W = Rows3::Zero(), d_p2_W = Rows3::Zero(), d_normal_W = Rows3::Zero();
};

/// Shape-parameter derivatives of a solution for these shapes. No allocation.
void shape_derivatives(const Shape& shape1, const Shape& shape2, const ContactSolution& sol, ShapeDerivatives& out);
ShapeDerivatives shape_derivatives(const Shape& shape1, const Shape& shape2, const ContactSolution& sol);
ShapeDerivatives shape_derivatives(const ContactPair& pair);

}  // namespace diffcol::idcol
