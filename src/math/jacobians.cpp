#include "diffcol/math/jacobians.hpp"

#include <stdexcept>

namespace diffcol {

Mat6 shape_body_twist_map(const Pose& X_BS) {
  if (!X_BS.is_finite()) throw std::invalid_argument("shape_body_twist_map: X_BS is not finite");
  return adjoint(X_BS.inverse());
}

Eigen::MatrixXd to_coordinates(const Eigen::Ref<const Eigen::MatrixXd>& J_out_X1,
                               const Eigen::Ref<const Eigen::MatrixXd>& J_out_X2, const BodyJacobian& body1,
                               const BodyJacobian& body2) {
  if (J_out_X1.cols() != 6 || J_out_X2.cols() != 6 || J_out_X1.rows() != J_out_X2.rows())
    throw std::invalid_argument("to_coordinates: output Jacobians must be k×6 with the same k");
  if (body1.J.rows() != 6 || body2.J.rows() != 6 || body1.J.cols() != body2.J.cols())
    throw std::invalid_argument("to_coordinates: body Jacobians must be 6×n with the same n");
  if (!J_out_X1.allFinite() || !J_out_X2.allFinite() || !body1.J.allFinite() || !body2.J.allFinite() ||
      !body1.X_WB.is_valid() || !body2.X_WB.is_valid())
    throw std::invalid_argument("to_coordinates: Jacobians must be finite and body poses valid (Pose::invalid_reason)");
  const Eigen::MatrixXd M1 = J_out_X1 * world_twist_from_frame(body1.frame, body1.X_WB);
  const Eigen::MatrixXd M2 = J_out_X2 * world_twist_from_frame(body2.frame, body2.X_WB);
  return M1 * body1.J + M2 * body2.J;
}

}  // namespace diffcol
