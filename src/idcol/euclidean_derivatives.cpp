// Derivatives of the iDCOL Euclidean distance (include/diffcol/idcol/euclidean.hpp): envelope
// theorem for the distance; for the points and the normal the implicit function theorem on the
// KKT conditions, reduced to the tangent planes (src/geometry/closest_points_ift.hpp) with the
// surfaces' second fundamental forms Q_i = T_iᵀ∇²φ_i T_i/‖∇φ_i‖.
#include "diffcol/idcol/euclidean.hpp"

#include "../geometry/closest_points_ift.hpp"

namespace diffcol::idcol {

namespace {
void world_distance_derivatives(const DistanceResult& r, DistanceDerivatives& out) {
  out = DistanceDerivatives{};
  if (!r.ok()) return;
  const Vec3& n = r.normal_W;
  detail::FeatureFrame F1, F2;
  Vec3 t1, t2;
  detail::tangent_basis(n, t1, t2);
  F1.dim = F2.dim = 2;
  F1.T.col(0) = F2.T.col(0) = t1;
  F1.T.col(1) = F2.T.col(1) = t2;
  F1.Q = F1.T.transpose() * r.hess1 * F1.T / r.grad1.norm();
  F2.Q = F2.T.transpose() * r.hess2 * F2.T / r.grad2.norm();
  detail::ClosestPointJacobians J;
  const bool full = detail::closest_point_jacobians(r.p1_W, r.p2_W, r.distance, n, F1, F2, J);
  out.status = full ? DistanceDerivativeStatus::ok : DistanceDerivativeStatus::distance_only;
  detail::store_distance_jacobians(J, full, out);
}
}  // namespace

void distance_derivatives(const DistanceResult& r, DistanceDerivatives& out, ReferenceFrame frame) {
  world_distance_derivatives(r, out);
  if (out.status == DistanceDerivativeStatus::not_separated) {
    out.frame = frame;
    return;
  }
  detail::express_distance_jacobians(out, frame, r.X_W1, r.X_W2);
}

DistanceDerivatives distance_derivatives(const DistanceResult& result, ReferenceFrame frame) {
  DistanceDerivatives out;
  distance_derivatives(result, out, frame);
  return out;
}

}  // namespace diffcol::idcol
