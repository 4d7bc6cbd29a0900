// Derivatives of the DCOL Euclidean distance (include/diffcol/dcol/euclidean.hpp): the envelope
// theorem for the distance, the implicit function theorem on the two local features for the
// closest points and the normal (src/geometry/closest_points_ift.hpp).
#include "diffcol/dcol/euclidean.hpp"

#include "../geometry/closest_points_ift.hpp"

namespace diffcol::dcol {

namespace {
void world_distance_derivatives(const DistanceResult& r, DistanceDerivatives& out) {
  out = DistanceDerivatives{};
  if (!r.ok()) return;
  detail::ClosestPointJacobians J;
  detail::FeatureFrame F1, F2;
  F1.dim = r.feature1.dim;
  F1.T = r.feature1.T;
  F1.Q = r.feature1.Q;
  F2.dim = r.feature2.dim;
  F2.T = r.feature2.T;
  F2.Q = r.feature2.Q;
  const bool identified = r.feature1.kind != FeatureKind::none && r.feature2.kind != FeatureKind::none;
  const bool full = identified && r.unique &&
                    detail::closest_point_jacobians(r.p1_W, r.p2_W, r.distance, r.normal_W, F1, F2, J);
  if (!full) detail::distance_jacobians(r.p1_W, r.p2_W, r.normal_W, J);
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
  detail::express_distance_jacobians(out, frame, r.X_WB1, r.X_WB2);
}

DistanceDerivatives distance_derivatives(const DistanceResult& result, ReferenceFrame frame) {
  DistanceDerivatives out;
  distance_derivatives(result, out, frame);
  return out;
}

}  // namespace diffcol::dcol
