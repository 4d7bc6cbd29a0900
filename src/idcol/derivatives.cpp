// Analytic derivatives of the iDCOL contact kinematics (seed Sec. VI, (24)–(30), (B38)–(B39)) and of
// the Hertz contact wrenches (Sec. VII-B, (31)–(32), (B40)–(B44)). Conventions: derivatives.hpp.
#include "diffcol/idcol/derivatives.hpp"

#include "envelope_gradient.hpp"
#include "kkt_pose_jacobian.hpp"
#include "lu_solve.hpp"
#include "pose_algebra.hpp"
#include "sphere_pair.hpp"
#include "../util/target_clones.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <variant>

namespace diffcol::idcol {

namespace {

using detail::adjoint_inverse;
using detail::cross;

// [[ã, b̃], [b̃, 0]] for a wrench W = (a, b): ad_ηᵀ W = this · η (the seed's −ad̄*_W, (B44)).
Mat6 coadjoint_bar(const Vec6& W) {
  Mat6 M;
  const Mat3 A = skew(W.head<3>()), B = skew(W.tail<3>());
  M.topLeftCorner<3, 3>() = A;
  M.topRightCorner<3, 3>() = B;
  M.bottomLeftCorner<3, 3>() = B;
  M.bottomRightCorner<3, 3>().setZero();
  return M;
}

// Ad_Xᵀ⁻¹ W = [Q τ + t × Q f; Q f]: a body-frame wrench in the frame of X's parent.
Vec6 wrench_to_parent(const Pose& X, const Vec6& W) {
  Vec6 out;
  const Vec3 f = X.R * W.tail<3>();
  out.head<3>() = X.R * W.head<3>() + cross(X.p, f);
  out.tail<3>() = f;
  return out;
}

DerivativeStatus status_of(const ContactSolution& sol) {
  switch (sol.status) {
    case SolveStatus::ok: break;
    case SolveStatus::coincident_origins: return DerivativeStatus::coincident_origins;
    case SolveStatus::invalid_input: return DerivativeStatus::invalid_input;
    default: return DerivativeStatus::solve_failed;
  }
  if (!(sol.alpha > 0.0) || !std::isfinite(sol.alpha) || !(sol.X_12.p.norm() > 0.0))
    return DerivativeStatus::coincident_origins;
  return DerivativeStatus::ok;
}

// Row layout of the stacked body-1 outputs: α, λ1, λ2, d_D, x (3), p1 (3), p2 (3), n̂ (3).
enum : int { kA = 0, kL1 = 1, kL2 = 2, kGap = 3, kX = 4, kP1 = 7, kP2 = 10, kN = 13 };

// Right-multiplies every row [a, b] (a: ω part, b: v part) by Ad_{X⁻¹}, X = (Q, t):
// [a, b]·Ad_{X⁻¹} = [Q a + t × Q b, Q b] (gradients transform like wrenches).
template <class In, class Out>
[[gnu::always_inline]] inline void rows_times_adjoint_inverse(const In& K, const Mat3& Q, const Vec3& t, Out& out) {
  for (int i = 0; i < int(In::RowsAtCompileTime); ++i) {
    const double a0 = K(i, 0), a1 = K(i, 1), a2 = K(i, 2), b0 = K(i, 3), b1 = K(i, 4), b2 = K(i, 5);
    const double u0 = Q(0, 0) * b0 + Q(0, 1) * b1 + Q(0, 2) * b2;
    const double u1 = Q(1, 0) * b0 + Q(1, 1) * b1 + Q(1, 2) * b2;
    const double u2 = Q(2, 0) * b0 + Q(2, 1) * b1 + Q(2, 2) * b2;
    out(i, 0) = Q(0, 0) * a0 + Q(0, 1) * a1 + Q(0, 2) * a2 + (t.y() * u2 - t.z() * u1);
    out(i, 1) = Q(1, 0) * a0 + Q(1, 1) * a1 + Q(1, 2) * a2 + (t.z() * u0 - t.x() * u2);
    out(i, 2) = Q(2, 0) * a0 + Q(2, 1) * a1 + Q(2, 2) * a2 + (t.x() * u1 - t.y() * u0);
    out(i, 3) = u0;
    out(i, 4) = u1;
    out(i, 5) = u2;
  }
}

// Copies n rows of the 16×6 stack into a row-major block (sign = ±1).
template <class Block>
[[gnu::always_inline]] inline void put_rows(const double (&K)[16][6], int r0, double sign, Block& dst) {
  double* d = dst.data();
  for (int i = 0; i < int(Block::RowsAtCompileTime); ++i)
    for (int c = 0; c < 6; ++c) d[6 * i + c] = sign * K[r0 + i][c];
}

// World-frame rows of a quantity q_W = R1 q_B1 (+ t1 for a point) from its world-twist rows K2:
// X2 block R1·K2, X1 block [−q̃_W, I or 0] − R1·K2 (a world twist of body 1 carries q_W rigidly
// and ξ = −Ad η1).
[[gnu::always_inline]] inline void put_world(const Mat3& R1, const double (&K2)[16][6], int r0, const Vec3& qW,
                                            bool point, Mat36& J_X1, Mat36& J_X2) {
  double* a = J_X2.data();
  double* b = J_X1.data();
  for (int j = 0; j < 3; ++j)
    for (int c = 0; c < 6; ++c) {
      const double v = R1(j, 0) * K2[r0][c] + R1(j, 1) * K2[r0 + 1][c] + R1(j, 2) * K2[r0 + 2][c];
      a[6 * j + c] = v;
      b[6 * j + c] = -v;
    }
  b[1] += qW.z();
  b[2] -= qW.y();
  b[6] -= qW.z();
  b[8] += qW.x();
  b[12] += qW.y();
  b[13] -= qW.x();
  if (point) {
    b[3] += 1.0;
    b[10] += 1.0;
    b[17] += 1.0;
  }
}

}  // namespace

// AVX2/FMA copy picked at load time (-17% measured with -march=native), see src/util/target_clones.hpp.
namespace {
DIFFCOL_TARGET_CLONES
void world_derivatives(const Pose& X_W1, const ContactSolution& sol, ContactDerivatives& out) {
  DerivativeStatus st = status_of(sol);
  if (st == DerivativeStatus::ok && !X_W1.is_valid()) st = DerivativeStatus::invalid_input;
  const Mat3& R = sol.X_12.R;
  const Vec3& r = sol.X_12.p;
  const double alpha = sol.alpha, ia = 1.0 / alpha;
  // J_c equilibrated (derivatives.hpp, ContactDerivatives::kkt_condition): Ĵ = D_r J_c D_c with
  // D_r = diag(1, 1, L, L, L, 1), D_c = diag(αL, αL, αL, 1, α, α). Every entry of Ĵ is free of the
  // unit of length and of ‖r‖, so are its pivoting, singularity test and condition number.
  const double L = sol.p1_B1.norm() + (sol.p2_B1 - r).norm();
  // a zero pivot (a failed factorization sets min_pivot = 0) or no length scale: singular
  if (st == DerivativeStatus::ok && !(L > 0.0 && std::isfinite(L) && sol.kkt_lu.min_pivot > 0.0))
    st = DerivativeStatus::singular;
  if (st != DerivativeStatus::ok) {
    out = ContactDerivatives{};
    out.status = st;
    return;
  }
  const auto fail = [&out](DerivativeStatus why, double cond) {
    out = ContactDerivatives{};
    out.status = why;
    out.kkt_condition = why == DerivativeStatus::ill_conditioned ? cond : 0.0;  // finite, always
  };
  const double gn = sol.grad1.norm();
  const Vec3 n = sol.grad1 / gn;  // n̂ (3)
  // ---- stacked body-1 outputs with respect to ξ (body twist of X_12)
  double K[16][6];
  if (sol.closed_form) {
    // two spheres (solve_contact.cpp): α = ‖r‖/S, x = (R1/S) r, λ_i = (R_i/S) α, d_D = ‖r‖ − S,
    // p1 = R1 r̂, p2 = r − R2 r̂, n̂ = r̂, and dr/dξ = [0, R]: no ω columns. R_i/S = λ_i/α and
    // 1/S = α/‖r‖ (not from p2 − r, which loses digits when ‖r‖ ≫ R2)
    const double rn = r.norm(), irn = 1.0 / rn, iS = alpha * irn;
    const double k1 = sol.lambda1 * ia, k2 = sol.lambda2 * ia, kp1 = k1 * ia, kp2 = k2 * ia;
    const Vec3 rhat = irn * r;
    const double cond = detail::sphere_pair_condition(rhat, 1.0 / k1, 1.0 / k2);
    if (!std::isfinite(cond) || !(cond > 0.0)) return fail(DerivativeStatus::singular, cond);
    if (!(cond <= kMaxKktCondition)) return fail(DerivativeStatus::ill_conditioned, cond);
    out.status = DerivativeStatus::ok;
    out.kkt_condition = cond;
    const Eigen::Matrix<double, 1, 3> w = rhat.transpose() * R;  // r̂ᵀR
    const Mat3 PR = R - rhat * w;                                // (I − r̂r̂ᵀ)R
    for (int i = 0; i < 16; ++i)
      for (int c = 0; c < 3; ++c) K[i][c] = 0.0;
    for (int j = 0; j < 3; ++j) {
      const double da = iS * w(j);
      K[kA][3 + j] = da;
      K[kL1][3 + j] = k1 * da;
      K[kL2][3 + j] = k2 * da;
      K[kGap][3 + j] = w(j);
      for (int i = 0; i < 3; ++i) {
        K[kX + i][3 + j] = k1 * R(i, j);
        K[kP1 + i][3 + j] = kp1 * PR(i, j);
        K[kP2 + i][3 + j] = R(i, j) - kp2 * PR(i, j);
        K[kN + i][3 + j] = irn * PR(i, j);
      }
    }
  } else {
    const double aL = alpha * L;
    const double row[6] = {1.0, 1.0, L, L, L, 1.0};
    const double col[6] = {aL, aL, aL, 1.0, alpha, alpha};

    const Vec3& x = sol.x_B1;
    const Vec3 y1 = ia * x;
    const Mat3& H1 = sol.hess1;

    // G_c (26) from (25a)-(25c) for body 2; rows (10a),(10b),(10c)x3,(10d); columns ξ = [ω; v]
    double Gc[6][6];
    detail::kkt_pose_jacobian(sol, Gc);
    // −J_c⁻¹ [G_c | D_r⁻¹] = [T_c | −J_c⁻¹ D_r⁻¹]: T_c of (27)-(28), z = (x, s, λ1, λ2), and
    // Ĵ⁻¹ = D_c⁻¹ J_c⁻¹ D_r⁻¹ for the condition number, in one pass over the solve's factors, whose
    // pivoting was chosen on the equilibrated matrix (solver_core.hpp, factor_equilibrated)
    double G[6][12];
    for (int i = 0; i < 6; ++i)
      for (int c = 0; c < 6; ++c) {
        G[i][c] = Gc[i][c];
        G[i][6 + c] = i == c ? 1.0 / row[i] : 0.0;
      }
    double TX[6][12];
    lu_solve_neg(sol.kkt_lu, G, TX);
    double norm_J = 0.0, norm_inv = 0.0, tsum = 0.0;
    for (int c = 0; c < 6; ++c) {
      double sj = 0.0, si = 0.0;
      for (int i = 0; i < 6; ++i) {
        sj += std::abs(row[i] * sol.kkt_jacobian(i, c) * col[c]);
        si += std::abs(TX[i][6 + c]) / col[i];
        tsum += TX[i][c];
      }
      norm_J = std::max(norm_J, sj);
      norm_inv = std::max(norm_inv, si);
    }
    const double cond = norm_J * norm_inv;
    if (!std::isfinite(cond) || !std::isfinite(tsum) || !(cond > 0.0)) return fail(DerivativeStatus::singular, cond);
    if (!(cond <= kMaxKktCondition)) return fail(DerivativeStatus::ill_conditioned, cond);
    double T[6][6];
    for (int i = 0; i < 6; ++i)
      for (int c = 0; c < 6; ++c) T[i][c] = TX[i][c];
    out.status = DerivativeStatus::ok;
    out.kkt_condition = cond;

    const Vec3& p1 = y1;  // (29)
    const double rn = r.norm();
    const double k1 = 1.0 - ia;
    const double ia2 = ia * ia;
    // dn̂ = (I − n̂n̂ᵀ) ∇²φ1 dp1 / ‖∇φ1‖ (B39 with dy1 = dp1)
    const Mat3 Pn = ((Mat3::Identity() - n * n.transpose()) * H1) * (1.0 / gn);
    const Eigen::Matrix<double, 1, 3> rR = (k1 / rn) * (r.transpose() * R);  // (1 − 1/α) r̂ᵀ R
    for (int c = 0; c < 6; ++c) {
      const double da = alpha * T[3][c];
      K[kA][c] = da;
      K[kL1][c] = T[4][c];
      K[kL2][c] = T[5][c];
      K[kGap][c] = rn * ia2 * da + (c >= 3 ? rR(c - 3) : 0.0);  // (B38), dr/dξ = [0, R]
      double dp1[3];
      for (int i = 0; i < 3; ++i) {
        K[kX + i][c] = T[i][c];
        dp1[i] = ia * (T[i][c] - p1[i] * da);
        K[kP1 + i][c] = dp1[i];
        K[kP2 + i][c] = dp1[i] + ia2 * r[i] * da + (c >= 3 ? k1 * R(i, c - 3) : 0.0);  // (29)
      }
      for (int i = 0; i < 3; ++i) K[kN + i][c] = Pn(i, 0) * dp1[0] + Pn(i, 1) * dp1[1] + Pn(i, 2) * dp1[2];
    }
  }
  {
    double* z = out.J_z_X12.data();
    for (int c = 0; c < 6; ++c) {
      z[c] = K[kX][c];
      z[6 + c] = K[kX + 1][c];
      z[12 + c] = K[kX + 2][c];
      z[18 + c] = K[kA][c];
      z[24 + c] = K[kL1][c];
      z[30 + c] = K[kL2][c];
    }
  }
  put_rows(K, kA, 1.0, out.J_alpha_X12);
  put_rows(K, kL1, 1.0, out.J_lambda1_X12);
  put_rows(K, kL2, 1.0, out.J_lambda2_X12);
  put_rows(K, kGap, 1.0, out.J_gap_X12);
  put_rows(K, kX, 1.0, out.J_x_B1_X12);
  put_rows(K, kP1, 1.0, out.J_p1_B1_X12);
  put_rows(K, kP2, 1.0, out.J_p2_B1_X12);
  put_rows(K, kN, 1.0, out.J_normal_B1_X12);

  // ---- world twists: ξ = Ad_{X_W2⁻¹}(η2 − η1); a row [a, b] times Ad_{X⁻¹}, X = (Q, t), is
  // [Q a + t × Q b, Q b] (gradients transform like wrenches)
  const Mat3& R1 = X_W1.R;
  const Mat3 Q = R1 * R;  // X_W2 = X_W1·X_12
  const Vec3 t = R1 * r + X_W1.p;
  double K2[16][6];
  for (int i = 0; i < 16; ++i) {
    const double a0 = K[i][0], a1 = K[i][1], a2 = K[i][2], b0 = K[i][3], b1 = K[i][4], b2 = K[i][5];
    const double u0 = Q(0, 0) * b0 + Q(0, 1) * b1 + Q(0, 2) * b2;
    const double u1 = Q(1, 0) * b0 + Q(1, 1) * b1 + Q(1, 2) * b2;
    const double u2 = Q(2, 0) * b0 + Q(2, 1) * b1 + Q(2, 2) * b2;
    K2[i][0] = Q(0, 0) * a0 + Q(0, 1) * a1 + Q(0, 2) * a2 + (t.y() * u2 - t.z() * u1);
    K2[i][1] = Q(1, 0) * a0 + Q(1, 1) * a1 + Q(1, 2) * a2 + (t.z() * u0 - t.x() * u2);
    K2[i][2] = Q(2, 0) * a0 + Q(2, 1) * a1 + Q(2, 2) * a2 + (t.x() * u1 - t.y() * u0);
    K2[i][3] = u0;
    K2[i][4] = u1;
    K2[i][5] = u2;
  }
  put_rows(K2, kA, 1.0, out.J_alpha_X2);
  put_rows(K2, kL1, 1.0, out.J_lambda1_X2);
  put_rows(K2, kL2, 1.0, out.J_lambda2_X2);
  put_rows(K2, kGap, 1.0, out.J_gap_X2);
  put_rows(K2, kX, 1.0, out.J_x_B1_X2);
  put_rows(K2, kP1, 1.0, out.J_p1_B1_X2);
  put_rows(K2, kP2, 1.0, out.J_p2_B1_X2);
  put_rows(K2, kN, 1.0, out.J_normal_B1_X2);
  put_rows(K2, kA, -1.0, out.J_alpha_X1);
  put_rows(K2, kL1, -1.0, out.J_lambda1_X1);
  put_rows(K2, kL2, -1.0, out.J_lambda2_X1);
  put_rows(K2, kGap, -1.0, out.J_gap_X1);
  put_rows(K2, kX, -1.0, out.J_x_B1_X1);
  put_rows(K2, kP1, -1.0, out.J_p1_B1_X1);
  put_rows(K2, kP2, -1.0, out.J_p2_B1_X1);
  put_rows(K2, kN, -1.0, out.J_normal_B1_X1);

  // world-frame outputs: q_W = R1 q_B1 + t1 (points), n_W = R1 n_B1
  put_world(R1, K2, kX, sol.x_W, true, out.J_x_W_X1, out.J_x_W_X2);
  put_world(R1, K2, kP1, sol.p1_W, true, out.J_p1_W_X1, out.J_p1_W_X2);
  put_world(R1, K2, kP2, sol.p2_W, true, out.J_p2_W_X1, out.J_p2_W_X2);
  put_world(R1, K2, kN, R1 * n, false, out.J_normal_W_X1, out.J_normal_W_X2);
}

}  // namespace

void contact_derivatives(const ContactSolution& sol, ContactDerivatives& out, ReferenceFrame frame) {
  world_derivatives(sol.X_W1, sol, out);
  out.frame = frame;
  if (frame == ReferenceFrame::world || out.status != DerivativeStatus::ok) return;  // other blocks are zero
  const Pose& X1 = sol.X_W1;
  const Pose X2 = sol.X_W1 * sol.X_12;
  for (auto* J : {&out.J_alpha_X1, &out.J_lambda1_X1, &out.J_lambda2_X1, &out.J_gap_X1}) express_in_frame(*J, frame, X1);
  for (auto* J : {&out.J_x_B1_X1, &out.J_x_W_X1, &out.J_p1_B1_X1, &out.J_p1_W_X1, &out.J_p2_B1_X1, &out.J_p2_W_X1,
                  &out.J_normal_B1_X1, &out.J_normal_W_X1})
    express_in_frame(*J, frame, X1);
  for (auto* J : {&out.J_alpha_X2, &out.J_lambda1_X2, &out.J_lambda2_X2, &out.J_gap_X2}) express_in_frame(*J, frame, X2);
  for (auto* J : {&out.J_x_B1_X2, &out.J_x_W_X2, &out.J_p1_B1_X2, &out.J_p1_W_X2, &out.J_p2_B1_X2, &out.J_p2_W_X2,
                  &out.J_normal_B1_X2, &out.J_normal_W_X2})
    express_in_frame(*J, frame, X2);
}

ContactDerivatives contact_derivatives(const ContactSolution& sol, ReferenceFrame frame) {
  ContactDerivatives d;
  contact_derivatives(sol, d, frame);
  return d;
}

ContactDerivatives contact_derivatives(const ContactPair& pair, ReferenceFrame frame) {
  return contact_derivatives(pair.last(), frame);
}

RowVec6 alpha_gradient_envelope(const ContactSolution& sol) {
  if (status_of(sol) != DerivativeStatus::ok) return RowVec6::Zero();
  const Mat3& R = sol.X_12.R;
  const double alpha = sol.alpha, ia = 1.0 / alpha;
  // ∇φ2(y2) from row (10b) of J_c: φ2_x = R ∇φ2 / α (7a)
  const Vec3 g2 = alpha * (R.transpose() * sol.kkt_jacobian.block<1, 3>(1, 0).transpose());
  const Vec3 y2 = ia * (R.transpose() * (sol.x_B1 - sol.X_12.p));
  RowVec6 out;
  detail::alpha_gradient_envelope(alpha, sol.lambda2, g2, y2, out.data());
  if (!std::isfinite(out.sum())) return RowVec6::Zero();
  return out;
}

Eigen::Matrix<double, 1, 12> alpha_gradient_envelope_world(const ContactSolution& sol, ReferenceFrame frame) {
  Eigen::Matrix<double, 1, 12> out = Eigen::Matrix<double, 1, 12>::Zero();
  const Pose& X_W1 = sol.X_W1;
  if (!X_W1.is_valid()) return out;
  const Pose X_W2 = X_W1 * sol.X_12;
  const RowVec6 a = alpha_gradient_envelope(sol);
  RowVec6 a1 = -a * adjoint_inverse(X_W2), a2 = -a1;
  express_in_frame(a1, frame, X_W1);
  express_in_frame(a2, frame, X_W2);
  out.head<6>() = a1;
  out.tail<6>() = a2;
  return out;
}

// ------------------------------------------------------------------------- wrenches

namespace {

// No usable values: zero wrenches with the given status; returns false.
bool no_wrench_values(DerivativeStatus status, ContactWrenches& out) {
  out.status = status;
  out.in_contact = false;
  out.penetration = out.f_n = 0.0;
  out.F_c1_B1.setZero();
  out.F_c2_B2.setZero();
  out.F_c1_W.setZero();
  out.F_c2_W.setZero();
  return false;
}

// Values of (31)-(32) (Jacobian blocks untouched); returns false if the solution has no usable values.
bool wrench_values(const ContactSolution& sol, const Pose& X_W1, const HertzModel& model, ContactWrenches& out) {
  if (sol.status != SolveStatus::ok && sol.status != SolveStatus::coincident_origins)
    return no_wrench_values(sol.status == SolveStatus::invalid_input ? DerivativeStatus::invalid_input
                                                                       : DerivativeStatus::solve_failed,
                            out);
  out.status = status_of(sol);
  const double delta = -sol.gap;
  out.penetration = delta;
  out.in_contact = delta > 0.0;
  out.f_n = out.in_contact ? model.stiffness * std::pow(delta, model.exponent) : 0.0;
  const Vec3 f = -out.f_n * sol.normal_B1;
  out.F_c1_B1.head<3>() = cross(sol.x_B1, f);
  out.F_c1_B1.tail<3>() = f;
  // F_c2 = −Ad_gᵀ F_c1: torque Rᵀ(τ − r × f), force Rᵀ f, negated
  const Mat3& R = sol.X_12.R;
  out.F_c2_B2.head<3>() = -(R.transpose() * (out.F_c1_B1.head<3>() - cross(sol.X_12.p, f)));
  out.F_c2_B2.tail<3>() = -(R.transpose() * f);
  out.F_c1_W = wrench_to_parent(X_W1, out.F_c1_B1);
  out.F_c2_W = -out.F_c1_W;
  // X_W1 not a valid pose (Pose::invalid_reason), or so far out that τ_W overflows
  if (!X_W1.is_valid() || !out.F_c1_W.allFinite()) return no_wrench_values(DerivativeStatus::invalid_input, out);
  return true;
}

void zero_wrench_jacobians(ContactWrenches& w) {
  w.J_fn_X12.setZero();
  w.J_fn_X1.setZero();
  w.J_fn_X2.setZero();
  w.J_Fc1_B1_X12.setZero();
  w.J_Fc1_B1_X1.setZero();
  w.J_Fc1_B1_X2.setZero();
  w.J_Fc2_B2_X12.setZero();
  w.J_Fc2_B2_X1.setZero();
  w.J_Fc2_B2_X2.setZero();
  w.J_Fc1_W_X1.setZero();
  w.J_Fc1_W_X2.setZero();
  w.J_Fc2_W_X1.setZero();
  w.J_Fc2_W_X2.setZero();
}

using Rows13 = Eigen::Matrix<double, 13, 6, Eigen::RowMajor>;  // f_n, F_c1 (6), F_c2 (6) gradients

}  // namespace

ContactWrenches hertz_wrenches(const ContactSolution& sol, const HertzModel& model) {
  ContactWrenches w;
  wrench_values(sol, sol.X_W1, model, w);
  return w;
}

[[gnu::flatten]] void hertz_wrenches(const ContactSolution& sol, const ContactDerivatives& d, const HertzModel& model,
                                     ContactWrenches& out) {
  const Pose& X_W1 = sol.X_W1;
  out.frame = d.frame;
  const bool have_values = wrench_values(sol, X_W1, model, out);
  if (have_values && !d.ok()) out.status = d.status;
  if (!have_values || !d.ok() || !out.in_contact) {  // no derivatives, or the zero-force branch
    if (have_values && d.ok()) out.status = DerivativeStatus::ok;
    zero_wrench_jacobians(out);
    return;
  }
  out.status = DerivativeStatus::ok;

  // (B40): df_n = k p δ^(p−1) dδ = (p f_n/δ) dδ, dδ = −d(d_D)
  const double dfn = model.exponent * out.f_n / out.penetration;
  Rows13 W;  // rows: f_n, F_c1 (torque 3, force 3), F_c2 (torque 3, force 3); columns ξ
  W.row(0) = -dfn * d.J_gap_X12;
  // (B41)-(B42): f = −f_n n̂; dτ1 = dx × f + x × df
  const Vec3& n = sol.normal_B1;
  const Vec3& x = sol.x_B1;
  const Vec3 f = out.F_c1_B1.tail<3>();
  const Mat3& R = sol.X_12.R;
  const Vec3& r = sol.X_12.p;
  const Vec6& F2 = out.F_c2_B2;
  for (int c = 0; c < 6; ++c) {
    const Vec3 df = -n * W(0, c) - out.f_n * d.J_normal_B1_X12.col(c);
    const Vec3 dx = d.J_x_B1_X12.col(c);
    const Vec3 dtau = cross(dx, f) + cross(x, df);
    W(1, c) = dtau.x(), W(2, c) = dtau.y(), W(3, c) = dtau.z();
    W(4, c) = df.x(), W(5, c) = df.y(), W(6, c) = df.z();
    // (B43): dF_c2 = −Ad_gᵀ dF_c1 + ad_ξᵀ F_c2, Ad_gᵀ [τ; f] = [Rᵀ(τ − r × f); Rᵀ f]
    const Vec3 t2 = -(R.transpose() * (dtau - cross(r, df)));
    const Vec3 f2 = -(R.transpose() * df);
    W(7, c) = t2.x(), W(8, c) = t2.y(), W(9, c) = t2.z();
    W(10, c) = f2.x(), W(11, c) = f2.y(), W(12, c) = f2.z();
  }
  // ad_ξᵀ F_c2 = [[τ̃2, f̃2], [f̃2, 0]] ξ
  W.block<3, 6>(7, 0) += coadjoint_bar(F2).topRows<3>();
  W.block<3, 3>(10, 0) += skew(F2.tail<3>());
  out.J_fn_X12 = W.row(0);
  out.J_Fc1_B1_X12 = W.middleRows<6>(1);
  out.J_Fc2_B2_X12 = W.middleRows<6>(7);

  // world twists: ξ = Ad_{X_W2⁻¹}(η2 − η1)
  const Mat3 Q = X_W1.R * R;
  const Vec3 t = X_W1.R * r + X_W1.p;
  Rows13 W2;
  rows_times_adjoint_inverse(W, Q, t, W2);
  out.J_fn_X2 = W2.row(0);
  out.J_fn_X1 = -W2.row(0);
  out.J_Fc1_B1_X2 = W2.middleRows<6>(1);
  out.J_Fc1_B1_X1 = -W2.middleRows<6>(1);
  out.J_Fc2_B2_X2 = W2.middleRows<6>(7);
  out.J_Fc2_B2_X1 = -W2.middleRows<6>(7);
  // F_c1_W = Ad_{X_W1}^{-T} F_c1: η2 acts only through F_c1; η1 also moves the frame: −ad_η1ᵀ F_W
  const Mat3& R1 = X_W1.R;
  for (int c = 0; c < 6; ++c) {
    const Vec3 fw = R1 * W2.block<3, 1>(4, c);
    const Vec3 tw = R1 * W2.block<3, 1>(1, c) + cross(X_W1.p, fw);
    out.J_Fc1_W_X2(0, c) = tw.x(), out.J_Fc1_W_X2(1, c) = tw.y(), out.J_Fc1_W_X2(2, c) = tw.z();
    out.J_Fc1_W_X2(3, c) = fw.x(), out.J_Fc1_W_X2(4, c) = fw.y(), out.J_Fc1_W_X2(5, c) = fw.z();
  }
  out.J_Fc1_W_X1 = -out.J_Fc1_W_X2 - coadjoint_bar(out.F_c1_W);
  out.J_Fc2_W_X1 = -out.J_Fc1_W_X1;
  out.J_Fc2_W_X2 = -out.J_Fc1_W_X2;
  if (!std::isfinite(W2.sum()) || !out.J_Fc1_W_X1.allFinite() || !out.J_Fc1_W_X2.allFinite()) {
    zero_wrench_jacobians(out);
    out.status = DerivativeStatus::singular;
    return;
  }
  if (d.frame == ReferenceFrame::world) return;
  const Pose X_W2 = X_W1 * sol.X_12;
  express_in_frame(out.J_fn_X1, d.frame, X_W1);
  express_in_frame(out.J_fn_X2, d.frame, X_W2);
  for (Mat66* J : {&out.J_Fc1_B1_X1, &out.J_Fc2_B2_X1, &out.J_Fc1_W_X1, &out.J_Fc2_W_X1}) express_in_frame(*J, d.frame, X_W1);
  for (Mat66* J : {&out.J_Fc1_B1_X2, &out.J_Fc2_B2_X2, &out.J_Fc1_W_X2, &out.J_Fc2_W_X2}) express_in_frame(*J, d.frame, X_W2);
}

ContactWrenches hertz_wrenches(const ContactSolution& sol, const ContactDerivatives& d, const HertzModel& model) {
  ContactWrenches w;
  hertz_wrenches(sol, d, model, w);
  return w;
}

}  // namespace diffcol::idcol
