#pragma once
/// @file result_fields.hpp
/// Tables of the numeric fields of idcol::ContactSolution and idcol::ContactDerivatives as
/// (name, member pointer) pairs, for code that handles every field alike: the Python binding
/// (one numpy array per field, same names), batch result copies, serializers and bitwise tests.
///
/// Usage: for_each_solution_field([&](const char* name, auto member) { use(sol.*member); });
/// The member types are double, Vec3 (solution) and RowVec6, Mat36, Mat66 (derivatives);
/// status, counters and the KKT factors are not in the tables.

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"

namespace diffcol::batch {

/// Calls f(name, &ContactSolution::member) for the double and Vec3 fields, in declaration order:
/// residual_norm, alpha, x_B1, lambda1, lambda2, p1_B1, p2_B1, gap, normal_B1, x_W, p1_W, p2_W,
/// normal_W.
template <class F>
void for_each_solution_field(F&& f) {
  using S = idcol::ContactSolution;
  f("residual_norm", &S::residual_norm);
  f("alpha", &S::alpha);
  f("x_B1", &S::x_B1);
  f("lambda1", &S::lambda1);
  f("lambda2", &S::lambda2);
  f("p1_B1", &S::p1_B1);
  f("p2_B1", &S::p2_B1);
  f("gap", &S::gap);
  f("normal_B1", &S::normal_B1);
  f("x_W", &S::x_W);
  f("p1_W", &S::p1_W);
  f("p2_W", &S::p2_W);
  f("normal_W", &S::normal_W);
}

/// Calls f(name, &ContactDerivatives::J_...) for every Jacobian block, in declaration order.
template <class F>
void for_each_derivative_block(F&& f) {
  using D = idcol::ContactDerivatives;
  // with respect to the body twist of X_12
  f("J_z_X12", &D::J_z_X12);
  f("J_alpha_X12", &D::J_alpha_X12);
  f("J_lambda1_X12", &D::J_lambda1_X12);
  f("J_lambda2_X12", &D::J_lambda2_X12);
  f("J_gap_X12", &D::J_gap_X12);
  f("J_x_B1_X12", &D::J_x_B1_X12);
  f("J_p1_B1_X12", &D::J_p1_B1_X12);
  f("J_p2_B1_X12", &D::J_p2_B1_X12);
  f("J_normal_B1_X12", &D::J_normal_B1_X12);
  // with respect to the world twist of body 1
  f("J_alpha_X1", &D::J_alpha_X1);
  f("J_lambda1_X1", &D::J_lambda1_X1);
  f("J_lambda2_X1", &D::J_lambda2_X1);
  f("J_gap_X1", &D::J_gap_X1);
  f("J_x_B1_X1", &D::J_x_B1_X1);
  f("J_x_W_X1", &D::J_x_W_X1);
  f("J_p1_B1_X1", &D::J_p1_B1_X1);
  f("J_p1_W_X1", &D::J_p1_W_X1);
  f("J_p2_B1_X1", &D::J_p2_B1_X1);
  f("J_p2_W_X1", &D::J_p2_W_X1);
  f("J_normal_B1_X1", &D::J_normal_B1_X1);
  f("J_normal_W_X1", &D::J_normal_W_X1);
  // with respect to the world twist of body 2
  f("J_alpha_X2", &D::J_alpha_X2);
  f("J_lambda1_X2", &D::J_lambda1_X2);
  f("J_lambda2_X2", &D::J_lambda2_X2);
  f("J_gap_X2", &D::J_gap_X2);
  f("J_x_B1_X2", &D::J_x_B1_X2);
  f("J_x_W_X2", &D::J_x_W_X2);
  f("J_p1_B1_X2", &D::J_p1_B1_X2);
  f("J_p1_W_X2", &D::J_p1_W_X2);
  f("J_p2_B1_X2", &D::J_p2_B1_X2);
  f("J_p2_W_X2", &D::J_p2_W_X2);
  f("J_normal_B1_X2", &D::J_normal_B1_X2);
  f("J_normal_W_X2", &D::J_normal_W_X2);
}

/// Number of blocks visited by for_each_derivative_block (33).
inline constexpr int kNumDerivativeBlocks = 33;

}  // namespace diffcol::batch
