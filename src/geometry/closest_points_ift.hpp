#pragma once
// Derivatives of the closest points of two separated convex bodies with respect to the world
// twists of both bodies, by the implicit function theorem on the stationarity of
//   f(θ1, θ2) = ½‖x1(θ1) − x2(θ2)‖²,
// x_i(θ_i) a local parametrization of body i's boundary feature at its closest point p_i
// (dim 0: a vertex, 1: an edge or rim, 2: a surface patch) with tangent columns T_i = ∂x_i/∂θ_i
// (orthonormal) and curvature form Q_i,ab = −m_i·∂²x_i/∂θa∂θb (m_1 = n, m_2 = −n the outward
// normals, n = (p2 − p1)/d). At the optimum e = p1 − p2 = −d·n and
//   H = [[T1ᵀT1 + d Q1, −T1ᵀT2], [−T2ᵀT1, T2ᵀT2 + d Q2]],
//   ∂g/∂η: row c of T1: ±[(p2 × c)ᵀ, cᵀ] (η1: +, η2: −); row c of T2: ±[(p1 × c)ᵀ, cᵀ] (η2: +, η1: −),
// dθ = −H⁻¹ ∂g/∂η, dp_i = [−p̃_i, I]·η_i + T_i dθ_i, dn = (I − nnᵀ)(dp2 − dp1)/d, and the
// distance by the envelope theorem dd = nᵀ(dp2 − dp1) with θ fixed. Shared by the DCOL and iDCOL
// Euclidean distance derivatives. Internal to src/.
#include <algorithm>
#include <cmath>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include "diffcol/math/se3.hpp"

namespace diffcol::detail {

struct FeatureFrame {
  int dim = 0;
  Eigen::Matrix<double, 3, 2> T = Eigen::Matrix<double, 3, 2>::Zero();
  Eigen::Matrix2d Q = Eigen::Matrix2d::Zero();
};

struct ClosestPointJacobians {
  Eigen::Matrix<double, 1, 6, Eigen::RowMajor> Jd1, Jd2;
  Eigen::Matrix<double, 3, 6, Eigen::RowMajor> Jp1_1, Jp1_2, Jp2_1, Jp2_2, Jn_1, Jn_2;
};

/// The distance Jacobians alone (envelope theorem).
inline void distance_jacobians(const Vec3& p1, const Vec3& p2, const Vec3& n, ClosestPointJacobians& J) {
  J.Jd1.head<3>() = -p1.cross(n).transpose();
  J.Jd1.tail<3>() = -n.transpose();
  J.Jd2.head<3>() = p2.cross(n).transpose();
  J.Jd2.tail<3>() = n.transpose();
}

/// All Jacobians; false (only Jd set, the others zero) when H is singular to `singular_tolerance`
/// (smallest over largest eigenvalue, eigenvalues in units where the tangents are unit vectors),
/// i.e. the closest points are not unique to first order.
inline bool closest_point_jacobians(const Vec3& p1, const Vec3& p2, double d, const Vec3& n, const FeatureFrame& F1,
                                    const FeatureFrame& F2, ClosestPointJacobians& J,
                                    double singular_tolerance = 1e-9) {
  using Mat36 = Eigen::Matrix<double, 3, 6, Eigen::RowMajor>;
  distance_jacobians(p1, p2, n, J);
  J.Jp1_1.setZero();
  J.Jp1_2.setZero();
  J.Jp2_1.setZero();
  J.Jp2_2.setZero();
  J.Jn_1.setZero();
  J.Jn_2.setZero();
  const int k1 = F1.dim, k2 = F2.dim;
  Eigen::Matrix4d H = Eigen::Matrix4d::Identity();
  Eigen::Matrix<double, 4, 12> B = Eigen::Matrix<double, 4, 12>::Zero();
  for (int a = 0; a < k1; ++a) {
    const Vec3 c = F1.T.col(a);
    for (int b = 0; b < k1; ++b) H(a, b) = c.dot(F1.T.col(b)) + d * F1.Q(a, b);
    for (int b = 0; b < k2; ++b) H(a, k1 + b) = H(k1 + b, a) = -c.dot(F2.T.col(b));
    const Vec3 w = p2.cross(c);
    B.block<1, 3>(a, 0) = w.transpose();
    B.block<1, 3>(a, 3) = c.transpose();
    B.block<1, 3>(a, 6) = -w.transpose();
    B.block<1, 3>(a, 9) = -c.transpose();
  }
  for (int a = 0; a < k2; ++a) {
    const Vec3 c = F2.T.col(a);
    for (int b = 0; b < k2; ++b) H(k1 + a, k1 + b) = c.dot(F2.T.col(b)) + d * F2.Q(a, b);
    const Vec3 w = p1.cross(c);
    B.block<1, 3>(k1 + a, 0) = -w.transpose();
    B.block<1, 3>(k1 + a, 3) = -c.transpose();
    B.block<1, 3>(k1 + a, 6) = w.transpose();
    B.block<1, 3>(k1 + a, 9) = c.transpose();
  }
  Eigen::Matrix<double, 4, 12> dtheta = Eigen::Matrix<double, 4, 12>::Zero();
  if (k1 + k2 > 0) {
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix4d> es(H);
    if (es.info() != Eigen::Success) return false;
    const Eigen::Vector4d ev = es.eigenvalues();
    const double lmax = std::max(1.0, ev.cwiseAbs().maxCoeff());
    if (!(ev.minCoeff() > singular_tolerance * lmax)) return false;
    dtheta = -(es.eigenvectors() * ev.cwiseInverse().asDiagonal() * es.eigenvectors().transpose()) * B;
  }
  Eigen::Matrix<double, 3, 12> dp1 = Eigen::Matrix<double, 3, 12>::Zero(), dp2 = Eigen::Matrix<double, 3, 12>::Zero();
  dp1.block<3, 3>(0, 0) = -skew(p1);
  dp1.block<3, 3>(0, 3).setIdentity();
  dp2.block<3, 3>(0, 6) = -skew(p2);
  dp2.block<3, 3>(0, 9).setIdentity();
  for (int a = 0; a < k1; ++a) dp1 += F1.T.col(a) * dtheta.row(a);
  for (int a = 0; a < k2; ++a) dp2 += F2.T.col(a) * dtheta.row(k1 + a);
  const Eigen::Matrix<double, 3, 12> dn = ((Mat3::Identity() - n * n.transpose()) / d) * (dp2 - dp1);
  if (!dp1.allFinite() || !dp2.allFinite() || !dn.allFinite()) return false;
  J.Jp1_1 = Mat36(dp1.leftCols<6>());
  J.Jp1_2 = Mat36(dp1.rightCols<6>());
  J.Jp2_1 = Mat36(dp2.leftCols<6>());
  J.Jp2_2 = Mat36(dp2.rightCols<6>());
  J.Jn_1 = Mat36(dn.leftCols<6>());
  J.Jn_2 = Mat36(dn.rightCols<6>());
  return true;
}

/// An orthonormal pair spanning the plane ⊥ unit ν.
inline void tangent_basis(const Vec3& nu, Vec3& t1, Vec3& t2) {
  t1 = nu.unitOrthogonal();
  t2 = nu.cross(t1);
}

/// Writes J into a DistanceDerivatives-like `out` (dcol:: or idcol::): the distance blocks always,
/// the point and normal blocks when `full`.
template <class Derivatives>
void store_distance_jacobians(const ClosestPointJacobians& J, bool full, Derivatives& out) {
  out.J_distance_X1 = J.Jd1;
  out.J_distance_X2 = J.Jd2;
  if (!full) return;
  out.J_p1_W_X1 = J.Jp1_1;
  out.J_p1_W_X2 = J.Jp1_2;
  out.J_p2_W_X1 = J.Jp2_1;
  out.J_p2_W_X2 = J.Jp2_2;
  out.J_normal_W_X1 = J.Jn_1;
  out.J_normal_W_X2 = J.Jn_2;
}

/// Re-expresses the world-twist blocks of `out` in `frame` about the poses X1, X2 of the bodies.
template <class Derivatives>
void express_distance_jacobians(Derivatives& out, ReferenceFrame frame, const Pose& X1, const Pose& X2) {
  out.frame = frame;
  express_in_frame(out.J_distance_X1, frame, X1);
  express_in_frame(out.J_distance_X2, frame, X2);
  express_in_frame(out.J_p1_W_X1, frame, X1);
  express_in_frame(out.J_p2_W_X1, frame, X1);
  express_in_frame(out.J_normal_W_X1, frame, X1);
  express_in_frame(out.J_p1_W_X2, frame, X2);
  express_in_frame(out.J_p2_W_X2, frame, X2);
  express_in_frame(out.J_normal_W_X2, frame, X2);
}

}  // namespace diffcol::detail
