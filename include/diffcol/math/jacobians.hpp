#pragma once
/// @file jacobians.hpp
/// The chain rule from pose Jacobians (columns: a body's twist, ReferenceFrame in math/se3.hpp) to
/// generalized coordinates q, for any layer's output blocks (docs/conventions.md).

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"

namespace diffcol {

/// The geometric Jacobian of one rigid body with respect to generalized coordinates q:
/// J·q̇ is the body's twist in `frame` (e.g. local_world_aligned for MuJoCo's mj_jac stacked as
/// [jacr; jacp], local for a body Jacobian).
struct BodyJacobian {
  Eigen::MatrixXd J;  ///< 6×n, rows [ω; v]
  ReferenceFrame frame = ReferenceFrame::world;
  Pose X_WB;  ///< the body's pose (read by the local and local_world_aligned frames)
};

/// The body twist of a shape mounted at X_BS from the body twist of its body: Ad_{X_BS⁻¹}.
/// @throws std::invalid_argument on a non-finite X_BS.
Mat6 shape_body_twist_map(const Pose& X_BS);

/// Chain rule to q: J_out_q = J_out_X1·M1·J1 + J_out_X2·M2·J2 with M_i =
/// world_twist_from_frame(body_i.frame, body_i.X_WB), for output blocks whose columns are world
/// twists (the default of every layer's X1/X2 blocks), e.g.
///   to_coordinates(d.J_alpha_X1, d.J_alpha_X2, body1, body2)   // 1×n
/// Both Jacobians must have the same number of columns n; body2.J may be 6×n with zero columns
/// for coordinates that do not move body 2 (and likewise body 1).
/// @throws std::invalid_argument on mismatched sizes or a non-finite entry or pose.
Eigen::MatrixXd to_coordinates(const Eigen::Ref<const Eigen::MatrixXd>& J_out_X1,
                               const Eigen::Ref<const Eigen::MatrixXd>& J_out_X2, const BodyJacobian& body1,
                               const BodyJacobian& body2);

}  // namespace diffcol
