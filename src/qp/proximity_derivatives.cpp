#include "diffcol/qp/proximity_derivatives.hpp"

#include "core_separation.hpp"
#include "core_sensitivity.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace diffcol::qp {

namespace {

using Mat312 = Eigen::Matrix<double, 3, 12>;
using RowVec12 = Eigen::Matrix<double, 1, 12>;

// Splits a 12-column world-twist derivative [η1 | η2] into its X1 and X2 blocks, in the frame asked.
template <class Src, class Block>
void store_split(const Src& J, Block& J_X1, Block& J_X2, const Pose& X1, const Pose& X2, ReferenceFrame frame) {
  J_X1 = J.template leftCols<6>();
  J_X2 = J.template rightCols<6>();
  express_in_frame(J_X1, frame, X1);
  express_in_frame(J_X2, frame, X2);
}

// Core of the derivatives for cores p_i = X_Wi·(E_i·x_i + o_i) with K1 + K2 QP variables.
// World twists [η1 | η2] (12 columns); see the header for the formulas.
template <int K1, int K2>
void derivatives_core(const Pose& X1, const Pose& X2, const Eigen::Matrix<double, 3, K1>& E1_B,
                      const Eigen::Matrix<double, 3, K2>& E2_B, double R1, double R2, const ProximityResult& res,
                      ReferenceFrame frame, ProximityDerivatives& out) {
  constexpr int N = K1 + K2;
  out.frame = frame;
  if (!res.ok() || !X1.is_valid() || !X2.is_valid()) {
    out = ProximityDerivatives{};
    out.frame = frame;
    out.status = res.ok() ? DerivativeStatus::invalid_input : DerivativeStatus::solve_failed;
    return;
  }
  const Eigen::Matrix<double, 3, K1> A1 = X1.R * E1_B;
  const Eigen::Matrix<double, 3, K2> A2 = X2.R * E2_B;
  const Vec3& p1 = res.core1_W;
  const Vec3& p2 = res.core2_W;
  const Vec3 d = p1 - p2;
  const Mat312 D = detail::core_offset_jacobian(p1, p2);
  // dx = −S·Q (core_sensitivity.hpp: the derivative system (17) on the active set)
  const Eigen::Matrix<double, N, 12> dx = detail::core_dx(A1, A2, D, d, res.qp.S.template topLeftCorner<N, N>());
  Mat312 dp1 = Mat312::Zero(), dp2 = Mat312::Zero();
  dp1.leftCols<3>() = -skew(p1);
  dp1.block<3, 3>(0, 3).setIdentity();
  dp2.block<3, 3>(0, 6) = -skew(p2);
  dp2.rightCols<3>().setIdentity();
  dp1.noalias() += A1 * dx.template topRows<K1>();
  dp2.noalias() += A2 * dx.template bottomRows<K2>();
  // φ and ‖d‖: envelope theorem, no dx needed.
  const RowVec12 dphi = 2.0 * d.transpose() * D;
  RowVec12 dsd = RowVec12::Zero();
  Mat312 dn = Mat312::Zero();
  if (!res.cores_touch) {
    const double dist = res.core_distance;
    dsd = d.transpose() * D / dist;
    const Vec3& n = res.normal_W;
    dn = -(Mat3::Identity() - n * n.transpose()) * (dp1 - dp2) / dist;
  }
  const Mat312 dc1 = dp1 + R1 * dn;
  const Mat312 dc2 = dp2 - R2 * dn;
  store_split(dphi, out.J_phi_X1, out.J_phi_X2, X1, X2, frame);
  store_split(dsd, out.J_signed_distance_X1, out.J_signed_distance_X2, X1, X2, frame);
  store_split(dp1, out.J_core1_W_X1, out.J_core1_W_X2, X1, X2, frame);
  store_split(dp2, out.J_core2_W_X1, out.J_core2_W_X2, X1, X2, frame);
  store_split(dc1, out.J_p1_W_X1, out.J_p1_W_X2, X1, X2, frame);
  store_split(dc2, out.J_p2_W_X1, out.J_p2_W_X2, X1, X2, frame);
  store_split(dn, out.J_normal_W_X1, out.J_normal_W_X2, X1, X2, frame);
  if (res.cores_touch)
    out.status = DerivativeStatus::cores_touch;
  else if (!res.unique_minimizer)
    out.status = DerivativeStatus::non_unique_minimizer;
  else
    out.status = res.unique_minimizer ? DerivativeStatus::ok : DerivativeStatus::non_unique_minimizer;
}


// Overlapping polygon-pair cores (ProximityResult::penetration): signed_distance = s − (R1 + R2)
// with s = n·(b − a) for the best separating axis n and its witness points a ∈ core 1, b ∈ core 2
// (core_separation.hpp), differentiated for that axis' combinatorics (12 world-twist columns):
//  - plane normal of polygon k (n rotates with body k): the other core's support vertex w is
//    rigid, its projection onto the plane moves with it;
//  - edge × edge: a, b are the closest points of the two edge lines (2×2 normal equations,
//    differentiated), n = ±(e1 × e2)/‖e1 × e2‖.
// ds = nᵀ(db − da) in every case (b − a ∥ n, dn ⊥ n). φ is constant (−(R1 + R2)²) there.
// The axis the result records (ProximityResult::axis) with its witnesses h1, h2 (relative, in the
// unit); the search of best_separating_axis only for a result that records none or an unusable one.
detail::SeparatingAxis recorded_axis(const detail::CoreVertices& V1, const detail::CoreVertices& V2,
                                     const ProximityResult& res, const Vec3& h1, const Vec3& h2) {
  detail::SeparatingAxis ax;
  ax.n = res.normal_W;
  ax.a = h1;
  ax.b = h2;
  switch (res.axis) {
    case PenetrationAxis::face1: ax.kind = detail::AxisKind::face1; return ax;
    case PenetrationAxis::face2: ax.kind = detail::AxisKind::face2; return ax;
    case PenetrationAxis::edges: {
      const int i = res.axis_edge1, j = res.axis_edge2;
      if (i < 0 || i >= V1.edge_count() || j < 0 || j >= V2.edge_count()) break;
      const Vec3 c = (V1.v[V1.edge_end(i)] - V1.v[i]).cross(V2.v[V2.edge_end(j)] - V2.v[j]);
      if (!(c.norm() > 0.0)) break;
      ax.kind = detail::AxisKind::edges;
      ax.i = i;
      ax.j = j;
      ax.sign = ax.n.dot(c) < 0.0 ? -1.0 : 1.0;
      return ax;
    }
    case PenetrationAxis::none: break;
  }
  return detail::best_separating_axis(V1, V2, &h1, &h2);
}

template <class S1, class S2>
void penetration_derivatives(const S1& s1, const Pose& X1, const S2& s2, const Pose& X2, const ProximityResult& res,
                             ProximityDerivatives& out) {
  const double L = res.length_unit, inv = 1.0 / L;
  const detail::CoreVertices V1 = detail::core_vertices(s1, X1, X2.p, inv);
  const detail::CoreVertices V2 = detail::core_vertices(s2, X2, X2.p, inv);
  const Vec3 h1 = (res.core1_W - X2.p) * inv, h2 = (res.core2_W - X2.p) * inv;  // the reported witnesses
  const detail::SeparatingAxis ax = recorded_axis(V1, V2, res, h1, h2);
  if (ax.kind == detail::AxisKind::none) return;
  auto world = [&](const Vec3& rel) -> Vec3 { return X2.p + rel * L; };
  auto rigid = [](int body, const Vec3& x) {  // δx = ω_k × x + v_k
    Mat312 J = Mat312::Zero();
    J.block<3, 3>(0, 6 * body) = -skew(x);
    J.block<3, 3>(0, 6 * body + 3).setIdentity();
    return J;
  };
  auto attached_dir = [](int body, const Vec3& e) {  // δe = ω_k × e
    Mat312 J = Mat312::Zero();
    J.block<3, 3>(0, 6 * body) = -skew(e);
    return J;
  };
  const Vec3 n = ax.n;
  Mat312 da, db, dn;
  if (ax.kind == detail::AxisKind::face1 || ax.kind == detail::AxisKind::face2) {
    const bool f1 = ax.kind == detail::AxisKind::face1;
    const Vec3 w = world(f1 ? ax.b : ax.a);  // the other core's support vertex (or the common point)
    const Vec3 o = world(f1 ? V1.v[0] : V2.v[0]);         // a point of the face's plane
    dn = attached_dir(f1 ? 0 : 1, n);
    const Mat312 dw = rigid(f1 ? 1 : 0, w), dO = rigid(f1 ? 0 : 1, o);
    const double h = n.dot(w - o);  // height of w above the plane along n
    const RowVec12 dh = n.transpose() * (dw - dO) + (w - o).transpose() * dn;
    const Mat312 dq = dw - n * dh - h * dn;  // q = w − h·n, the projection onto the plane
    da = f1 ? dq : dw;
    db = f1 ? dw : dq;
  } else {
    const Vec3 p = world(V1.v[ax.i]), q = world(V1.v[V1.edge_end(ax.i)]);
    const Vec3 r = world(V2.v[ax.j]), t = world(V2.v[V2.edge_end(ax.j)]);
    const Vec3 u = q - p, w = t - r, r0 = p - r;
    const Mat312 du = attached_dir(0, u), dw = attached_dir(1, w);
    const Mat312 dr0 = rigid(0, p) - rigid(1, r);
    // min ‖r0 + t1·u − t2·w‖²: [uu −uw; uw −ww]·(t1, t2) = (−u·r0, −w·r0).
    Eigen::Matrix2d M;
    M << u.squaredNorm(), -u.dot(w), u.dot(w), -w.squaredNorm();
    const Eigen::Vector2d T = M.inverse() * Eigen::Vector2d(-u.dot(r0), -w.dot(r0));
    const RowVec12 duu = 2.0 * u.transpose() * du, duw = w.transpose() * du + u.transpose() * dw,
                   dww = 2.0 * w.transpose() * dw;
    Eigen::Matrix<double, 2, 12> rhs;
    rhs.row(0) = -(r0.transpose() * du + u.transpose() * dr0) - (duu * T(0) - duw * T(1));
    rhs.row(1) = -(r0.transpose() * dw + w.transpose() * dr0) - (duw * T(0) - dww * T(1));
    const Eigen::Matrix<double, 2, 12> dT = M.inverse() * rhs;
    da = rigid(0, p) + u * dT.row(0) + T(0) * du;
    db = rigid(1, r) + w * dT.row(1) + T(1) * dw;
    const Vec3 c = u.cross(w);
    const Mat312 dc = -skew(w) * du + skew(u) * dw;
    dn = ax.sign * (Mat3::Identity() - n * n.transpose()) * dc / c.norm();
  }
  const RowVec12 ds = n.transpose() * (db - da);
  const double R1 = s1.radius(), R2 = s2.radius();
  const Mat312 dc1 = da + R1 * dn, dc2 = db - R2 * dn;
  out.J_phi_X1.setZero();
  out.J_phi_X2.setZero();
  store_split(ds, out.J_signed_distance_X1, out.J_signed_distance_X2, X1, X2, out.frame);
  store_split(da, out.J_core1_W_X1, out.J_core1_W_X2, X1, X2, out.frame);
  store_split(db, out.J_core2_W_X1, out.J_core2_W_X2, X1, X2, out.frame);
  store_split(dc1, out.J_p1_W_X1, out.J_p1_W_X2, X1, X2, out.frame);
  store_split(dc2, out.J_p2_W_X1, out.J_p2_W_X2, X1, X2, out.frame);
  store_split(dn, out.J_normal_W_X1, out.J_normal_W_X2, X1, X2, out.frame);
  out.status = res.unique_minimizer ? DerivativeStatus::ok : DerivativeStatus::non_unique_minimizer;
}

Eigen::Matrix<double, 3, 1> segment_E(const Capsule& c) { return c.a_B() - c.b_B(); }
Eigen::Matrix<double, 3, 2> plane_E() {
  Eigen::Matrix<double, 3, 2> E = Eigen::Matrix<double, 3, 2>::Zero();
  E(0, 0) = E(1, 1) = 1.0;
  return E;
}

}  // namespace

void proximity_derivatives(const Capsule& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                           const ProximityResult& r, ProximityDerivatives& out, ReferenceFrame frame) {
  derivatives_core<1, 1>(X_W1, X_W2, segment_E(s1), segment_E(s2), s1.radius(), s2.radius(), r, frame, out);
  if (out.status == DerivativeStatus::cores_touch && r.normal_W.squaredNorm() > 0.0) {
    // Crossing axes (proximity's one-sided normal n = σ(u1 × u2)/‖u1 × u2‖): on that side the
    // signed distance is n·(p2 − p1) − (R1 + R2), whose derivative is nᵀ(δp2 − δp1) at fixed
    // witnesses (n ⊥ both axes: sliding along them does not count).
    const Vec3& n = r.normal_W;
    const Vec3 u1 = X_W1.R * segment_E(s1), u2 = X_W2.R * segment_E(s2);
    const Vec3 c = u1.cross(u2);
    Mat312 D, du1 = Mat312::Zero(), du2 = Mat312::Zero();
    D << skew(r.core1_W), -Mat3::Identity(), -skew(r.core2_W), Mat3::Identity();  // δp2 − δp1 (rigid)
    du1.leftCols<3>() = -skew(u1);
    du2.block<3, 3>(0, 6) = -skew(u2);
    const Mat312 dc = -skew(u2) * du1 + skew(u1) * du2;
    const double sign = n.dot(c) < 0.0 ? -1.0 : 1.0;
    const Mat312 dn = sign * (Mat3::Identity() - n * n.transpose()) * dc / c.norm();
    const RowVec12 dsd = n.transpose() * D;
    Mat312 dp1, dp2;
    dp1 << out.J_core1_W_X1, out.J_core1_W_X2;
    dp2 << out.J_core2_W_X1, out.J_core2_W_X2;
    if (frame != ReferenceFrame::world) {  // the p blocks are already in another frame: redo them in world twists
      ProximityDerivatives w;
      derivatives_core<1, 1>(X_W1, X_W2, segment_E(s1), segment_E(s2), s1.radius(), s2.radius(), r,
                             ReferenceFrame::world, w);
      dp1 << w.J_core1_W_X1, w.J_core1_W_X2;
      dp2 << w.J_core2_W_X1, w.J_core2_W_X2;
    }
    const Mat312 dc1 = dp1 + s1.radius() * dn, dc2 = dp2 - s2.radius() * dn;
    store_split(dsd, out.J_signed_distance_X1, out.J_signed_distance_X2, X_W1, X_W2, frame);
    store_split(dn, out.J_normal_W_X1, out.J_normal_W_X2, X_W1, X_W2, frame);
    store_split(dc1, out.J_p1_W_X1, out.J_p1_W_X2, X_W1, X_W2, frame);
    store_split(dc2, out.J_p2_W_X1, out.J_p2_W_X2, X_W1, X_W2, frame);
  }
}

void proximity_derivatives(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
                           const ProximityResult& r, ProximityDerivatives& out, ReferenceFrame frame) {
  derivatives_core<2, 2>(X_W1, X_W2, plane_E(), plane_E(), s1.radius(), s2.radius(), r, frame, out);
  if (r.penetration && out.status == DerivativeStatus::cores_touch)
    penetration_derivatives(s1, X_W1, s2, X_W2, r, out);
}

void proximity_derivatives(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
                           const ProximityResult& r, ProximityDerivatives& out, ReferenceFrame frame) {
  derivatives_core<1, 2>(X_W1, X_W2, segment_E(s1), plane_E(), s1.radius(), s2.radius(), r, frame, out);
  if (r.penetration && out.status == DerivativeStatus::cores_touch)
    penetration_derivatives(s1, X_W1, s2, X_W2, r, out);
}

void proximity_derivatives(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                           const ProximityResult& r, ProximityDerivatives& out, ReferenceFrame frame) {
  ProximityResult swapped = r;
  swap_shapes(swapped);
  proximity_derivatives(s2, X_W2, s1, X_W1, swapped, out, frame);
  // Back to (polygon = 1, capsule = 2).
  std::swap(out.J_phi_X1, out.J_phi_X2);
  std::swap(out.J_signed_distance_X1, out.J_signed_distance_X2);
  std::swap(out.J_core1_W_X1, out.J_core2_W_X2);
  std::swap(out.J_core1_W_X2, out.J_core2_W_X1);
  std::swap(out.J_p1_W_X1, out.J_p2_W_X2);
  std::swap(out.J_p1_W_X2, out.J_p2_W_X1);
  std::swap(out.J_normal_W_X1, out.J_normal_W_X2);
  out.J_normal_W_X1 = -out.J_normal_W_X1;
  out.J_normal_W_X2 = -out.J_normal_W_X2;
}

// -------------------------------------------------------------------- fast φ gradient

void proximity_gradient(const Capsule& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                        ProximityGradient& out, ReferenceFrame frame) {
  out.frame = frame;
  // as proximity(): invalid poses or bodies more than kMaxRelativeCoordinate apart
  if (!X_W1.is_valid() || !X_W2.is_valid() ||
      !((X_W1.p - X_W2.p).cwiseAbs().maxCoeff() <= kMaxRelativeCoordinate)) {
    out.status = SolveStatus::invalid_input;
    out.phi = out.signed_distance = 0.0;
    out.J_phi_X1.setZero();
    out.J_phi_X2.setZero();
    return;
  }
  const Vec3 e1 = s1.a_B() - s1.b_B(), e2 = s2.a_B() - s2.b_B();
  const Vec3 u1 = X_W1.R * e1;
  const Vec3 u2 = X_W2.R * e2;
  const Vec3 b1 = X_W1 * s1.b_B();
  const Vec3 b2 = X_W2 * s2.b_B();
  const Vec3 g = b1 - b2;
  const Eigen::Vector2d th = segment_pair_parameters(u1, u2, g);
  const Vec3 d = g + th(0) * u1 - th(1) * u2;  // p1 − p2
  const double R = s1.radius() + s2.radius();
  const double dist2 = d.squaredNorm();
  out.phi = dist2 - R * R;
  out.signed_distance = std::sqrt(dist2) - R;
  out.status = SolveStatus::ok;
  if (frame != ReferenceFrame::local) {
    const Vec3 p1 = b1 + th(0) * u1, p2 = b2 + th(1) * u2;
    out.J_phi_X1 << 2.0 * p1.cross(d).transpose(), 2.0 * d.transpose();
    out.J_phi_X2 << -2.0 * p2.cross(d).transpose(), -2.0 * d.transpose();
    express_in_frame(out.J_phi_X1, frame, X_W1);
    express_in_frame(out.J_phi_X2, frame, X_W2);
  } else {
    const Vec3 c1 = s1.b_B() + th(0) * e1, c2 = s2.b_B() + th(1) * e2;
    const Vec3 d1 = X_W1.R.transpose() * d, d2 = X_W2.R.transpose() * d;
    out.J_phi_X1 << 2.0 * c1.cross(d1).transpose(), 2.0 * d1.transpose();
    out.J_phi_X2 << -2.0 * c2.cross(d2).transpose(), -2.0 * d2.transpose();
  }
}

// ------------------------------------------------------------ quaternion coordinates

Eigen::Matrix<double, 6, 7> twist_from_position_quaternion(const Vec3& r, const Eigen::Vector4d& q,
                                                           ReferenceFrame frame) {
  const double nq = q.norm();
  if (!(nq > 0.0) || !std::isfinite(nq) || !r.allFinite())
    throw std::invalid_argument("qp::twist_from_position_quaternion: quaternion must be finite and non-zero, "
                                "position finite");
  const Eigen::Vector4d qh = q / nq;
  const Vec3 v = qh.tail<3>();
  // Body angular velocity from dq: ω_b = (2/‖q‖)[−v̂, ŵI − [v̂]×]·dq (q̇ = ½ q ⊗ (0, ω_b)).
  Eigen::Matrix<double, 3, 4> Mq;
  Mq.col(0) = -v;
  Mq.rightCols<3>() = qh(0) * Mat3::Identity() - skew(v);
  Mq *= 2.0 / nq;
  const Mat3 R = Eigen::Quaterniond(qh(0), qh(1), qh(2), qh(3)).toRotationMatrix();
  Eigen::Matrix<double, 6, 7> M = Eigen::Matrix<double, 6, 7>::Zero();
  if (frame == ReferenceFrame::local) {
    M.block<3, 4>(0, 3) = Mq;
    M.block<3, 3>(3, 0) = R.transpose();
  } else if (frame == ReferenceFrame::local_world_aligned) {
    M.block<3, 4>(0, 3) = R * Mq;  // ω_w = R ω_b
    M.block<3, 3>(3, 0).setIdentity();  // v = ṙ
  } else {
    const Eigen::Matrix<double, 3, 4> Mw = R * Mq;  // ω_w = R ω_b
    M.block<3, 4>(0, 3) = Mw;
    M.block<3, 3>(3, 0).setIdentity();
    M.block<3, 4>(3, 3) = skew(r) * Mw;  // v_w = ṙ − ω_w × r
  }
  return M;
}

ProximityCoordinateJacobians to_position_quaternion(const ProximityDerivatives& d, const Vec3& r1,
                                                    const Eigen::Vector4d& q1, const Vec3& r2,
                                                    const Eigen::Vector4d& q2) {
  const Eigen::Matrix<double, 6, 7> M1 = twist_from_position_quaternion(r1, q1, d.frame);
  const Eigen::Matrix<double, 6, 7> M2 = twist_from_position_quaternion(r2, q2, d.frame);
  ProximityCoordinateJacobians o;
  o.J_phi_rq1 = d.J_phi_X1 * M1;
  o.J_phi_rq2 = d.J_phi_X2 * M2;
  o.J_signed_distance_rq1 = d.J_signed_distance_X1 * M1;
  o.J_signed_distance_rq2 = d.J_signed_distance_X2 * M2;
  o.J_core1_W_rq1 = d.J_core1_W_X1 * M1;
  o.J_core1_W_rq2 = d.J_core1_W_X2 * M2;
  o.J_core2_W_rq1 = d.J_core2_W_X1 * M1;
  o.J_core2_W_rq2 = d.J_core2_W_X2 * M2;
  o.J_p1_W_rq1 = d.J_p1_W_X1 * M1;
  o.J_p1_W_rq2 = d.J_p1_W_X2 * M2;
  o.J_p2_W_rq1 = d.J_p2_W_X1 * M1;
  o.J_p2_W_rq2 = d.J_p2_W_X2 * M2;
  o.J_normal_W_rq1 = d.J_normal_W_X1 * M1;
  o.J_normal_W_rq2 = d.J_normal_W_X2 * M2;
  return o;
}

}  // namespace diffcol::qp
