#pragma once
// First-order sensitivity of the core QP on its active set, shared by proximity_derivatives.cpp and
// proximity_hessians.cpp. Cores p_i = X_Wi·(A_i x_i + o_i) (A_i = R_i E_i), d = p1 − p2, F = [A1, −A2]:
// Q = d(Fᵀd)/d[η1 | η2] at fixed x = dFᵀd + FᵀD with δp_i = ω_i × p_i + v_i and dA_i = [ω_i]×A_i,
// and dx = −S·Q (the derivative system (17), S from the solve's factorization).

#include "diffcol/math/se3.hpp"

#include <Eigen/Core>

namespace diffcol::qp::detail {

/// ∂d/∂[η1 | η2] at fixed x: [−[p1]×, I, [p2]×, −I].
inline Eigen::Matrix<double, 3, 12> core_offset_jacobian(const Vec3& p1, const Vec3& p2) {
  Eigen::Matrix<double, 3, 12> D;
  D << -skew(p1), Mat3::Identity(), skew(p2), -Mat3::Identity();
  return D;
}

/// dx = −S·Q with D = core_offset_jacobian(p1, p2) and d = p1 − p2.
template <int K1, int K2, class SMatrix>
inline Eigen::Matrix<double, K1 + K2, 12> core_dx(const Eigen::Matrix<double, 3, K1>& A1,
                                                  const Eigen::Matrix<double, 3, K2>& A2,
                                                  const Eigen::Matrix<double, 3, 12>& D, const Vec3& d,
                                                  const SMatrix& S) {
  Eigen::Matrix<double, K1 + K2, 12> Q;
  Q.template topRows<K1>() = A1.transpose() * D;
  Q.template bottomRows<K2>() = -A2.transpose() * D;
  const Mat3 Sd = skew(d);
  Q.template block<K1, 3>(0, 0) += A1.transpose() * Sd;
  Q.template block<K2, 3>(K1, 6) -= A2.transpose() * Sd;
  return -S * Q;
}

}  // namespace diffcol::qp::detail
