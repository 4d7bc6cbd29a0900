// G_c = ∂f_c/∂ξ (26) at a converged solution: the derivative of the KKT residual (10) with
// respect to the body twist ξ = [ω; v] of X_12 (X_12 ← X_12·exp(ξ^)), from (25a)–(25c) for body 2.
// Rows (10a), (10b), (10c) ×3, (10d); z = (x, s = log α, λ1, λ2) in original variables.
// Shared by the derivatives (T_c = −J_c⁻¹ G_c, derivatives.cpp) and the first-order warm start
// of the solver (solve_contact.cpp). Internal header. Always inlined: the derivatives call it from
// their AVX2 clone (see src/util/target_clones.hpp).
#pragma once

#include "diffcol/idcol/contact.hpp"

namespace diffcol::idcol::detail {

[[gnu::always_inline]] inline void kkt_pose_jacobian(const ContactSolution& sol, double (&G)[6][6]) {
  const Mat3& R = sol.X_12.R;
  const Vec3& r = sol.X_12.p;
  const double ia = 1.0 / sol.alpha;
  const double l2 = sol.lambda2;
  const Vec3 y2 = ia * (R.transpose() * (sol.x_B1 - r));
  const Vec3& g2 = sol.grad2;
  const Mat3& H2 = sol.hess2;
  for (int c = 0; c < 6; ++c) G[0][c] = 0.0;
  const Vec3 gy(g2.y() * y2.z() - g2.z() * y2.y(), g2.z() * y2.x() - g2.x() * y2.z(),
                g2.x() * y2.y() - g2.y() * y2.x());  // (∇φᵀ ỹ)ᵀ = g × y
  G[1][0] = gy.x(), G[1][1] = gy.y(), G[1][2] = gy.z();
  G[1][3] = -ia * g2.x(), G[1][4] = -ia * g2.y(), G[1][5] = -ia * g2.z();
  // λ2 φ_xξ = (λ2/α) R [H ỹ − g̃, −H/α] (25b), row by row
  const Mat3 RH = R * H2;
  const double s1 = l2 * ia, s2 = -l2 * ia * ia;
  for (int i = 0; i < 3; ++i) {
    const double h0 = RH(i, 0), h1 = RH(i, 1), h2 = RH(i, 2);
    const double hy0 = h1 * y2.z() - h2 * y2.y();  // (RH ỹ)(i, ·)
    const double hy1 = h2 * y2.x() - h0 * y2.z();
    const double hy2 = h0 * y2.y() - h1 * y2.x();
    const double q0 = R(i, 0), q1 = R(i, 1), q2 = R(i, 2);  // (R g̃)(i, ·)
    const double gg0 = q1 * g2.z() - q2 * g2.y();
    const double gg1 = q2 * g2.x() - q0 * g2.z();
    const double gg2 = q0 * g2.y() - q1 * g2.x();
    G[2 + i][0] = s1 * (hy0 - gg0);
    G[2 + i][1] = s1 * (hy1 - gg1);
    G[2 + i][2] = s1 * (hy2 - gg2);
    G[2 + i][3] = s2 * h0;
    G[2 + i][4] = s2 * h1;
    G[2 + i][5] = s2 * h2;
  }
  // λ2 φ_αξ = −(λ2/α) (g + H y)ᵀ [ỹ, −I/α] (25c)
  const Vec3 w = g2 + H2 * y2;
  const double k = -l2 * ia;
  const Vec3 wy(w.y() * y2.z() - w.z() * y2.y(), w.z() * y2.x() - w.x() * y2.z(), w.x() * y2.y() - w.y() * y2.x());
  const double cw = l2 * ia * ia;
  G[5][0] = k * wy.x(), G[5][1] = k * wy.y(), G[5][2] = k * wy.z();
  G[5][3] = cw * w.x(), G[5][4] = cw * w.y(), G[5][5] = cw * w.z();
}

}  // namespace diffcol::idcol::detail
