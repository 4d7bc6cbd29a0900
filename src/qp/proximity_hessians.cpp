#include "diffcol/qp/proximity_hessians.hpp"

#include "core_sensitivity.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace diffcol::qp {

namespace {

using Mat312 = Eigen::Matrix<double, 3, 12>;

void zero_hessians(ProximityHessians& h) {
  h.H_phi.setZero();
  h.H_signed_distance.setZero();
  for (int k = 0; k < 3; ++k) {
    h.H_core1_W[k].setZero();
    h.H_core2_W[k].setZero();
    h.H_p1_W[k].setZero();
    h.H_p2_W[k].setZero();
    h.H_normal_W[k].setZero();
  }
}

// Mᵀ·H·M, symmetric to the last bit.
void hessian_to_frame(Mat12& H, const Eigen::Matrix<double, 12, 12>& M) {
  const Mat12 T = M.transpose() * H * M;
  H = 0.5 * (T + T.transpose());
}

// Second derivatives in world twists for cores p_i = X_Wi·(E_i·x_i + o_i) (K1 + K2 QP variables);
// see the header for the formulas.
template <int K1, int K2>
void hessian_core(const Pose& X1, const Pose& X2, const Eigen::Matrix<double, 3, K1>& E1_B,
                  const Eigen::Matrix<double, 3, K2>& E2_B, double R1, double R2, const ProximityResult& res,
                  ReferenceFrame frame, ProximityHessians& out) {
  constexpr int N = K1 + K2;
  zero_hessians(out);
  out.frame = frame;
  if (!res.ok() || !X1.is_valid() || !X2.is_valid()) {
    out.status = res.ok() ? DerivativeStatus::invalid_input : DerivativeStatus::solve_failed;
    return;
  }
  out.status = res.cores_touch          ? DerivativeStatus::cores_touch
               : !res.unique_minimizer ? DerivativeStatus::non_unique_minimizer
                                       : DerivativeStatus::ok;
  if (res.penetration) return;  // overlapping cores: φ is flat, the rest not provided
  const Eigen::Matrix<double, 3, K1> A1 = X1.R * E1_B;
  const Eigen::Matrix<double, 3, K2> A2 = X2.R * E2_B;
  const Vec3& q1 = res.core1_W;
  const Vec3& q2 = res.core2_W;
  const Vec3 d = q1 - q2;
  const Eigen::Matrix<double, N, N> S = res.qp.S.template topLeftCorner<N, N>();
  // First order (core_sensitivity.hpp): dx = −S·Q, δp_i = ω_i × p_i + v_i + A_i δx_i.
  const Eigen::Matrix<double, N, 12> dx = detail::core_dx(A1, A2, detail::core_offset_jacobian(q1, q2), d, S);
  const Mat312 Ax1 = A1 * dx.template topRows<K1>();     // A1 δx1 per direction
  const Mat312 Ax2 = A2 * dx.template bottomRows<K2>();  // A2 δx2
  Mat312 dp1 = Ax1, dp2 = Ax2;
  dp1.leftCols<3>() -= skew(q1);
  dp1.block<3, 3>(0, 3) += Mat3::Identity();
  dp2.block<3, 3>(0, 6) -= skew(q2);
  dp2.rightCols<3>() += Mat3::Identity();
  const Mat312 dd = dp1 - dp2;

  const bool smooth = !res.cores_touch;
  const double rho = res.core_distance;
  const Vec3 m = smooth ? Vec3(d / rho) : Vec3::Zero();  // = −normal
  Eigen::Matrix<double, 1, 12> drho = Eigen::Matrix<double, 1, 12>::Zero();
  Mat312 dm = Mat312::Zero();
  if (smooth) {
    drho = m.transpose() * dd;
    dm = (dd - m * drho) / rho;
  }
  // e_i × y for the unit vector e_i (the twists' ω are unit vectors: cross products are permutations).
  const auto ex = [](int i, const Vec3& y) -> Vec3 {
    return i == 0 ? Vec3(0.0, -y(2), y(1)) : i == 1 ? Vec3(y(2), 0.0, -y(0)) : Vec3(-y(1), y(0), 0.0);
  };
  for (int a = 0; a < 12; ++a) {
    const int ka = a / 6, ia = a % 6;  // body, component
    for (int b = a; b < 12; ++b) {
      const int kb = b / 6, ib = b % 6;
      Vec3 p1ab = Vec3::Zero(), p2ab = Vec3::Zero();
      const Vec3 db = dd.col(b), da = dd.col(a);
      // Two translations: exp(η^) moves the cores rigidly, A_i does not change: x_ab = 0, p_ab = 0.
      if (ia < 3 || ib < 3) {
        // D²p_k, the second-order term of exp(η^)·(q + A δx), grouped per rotation ω of body k:
        //   ω_a×(A δx_b + ½(ω_b×q + v_b)) + ω_b×(A δx_a + ½(ω_a×q + v_a)).
        // t_k = D²d + d_b×ω_a + d_a×ω_b + ½((d×ω_a)×ω_b + (d×ω_b)×ω_a) (rhs = J_xᵀD²d + J_x,aᵀd_b + J_x,bᵀd_a
        // + J_x,abᵀd with (ω×A_k)·y = A_k·(y×ω)); v_a = e_{ia−3} on body ka.
        Vec3 D2p[2] = {Vec3::Zero(), Vec3::Zero()}, t[2] = {Vec3::Zero(), Vec3::Zero()};
        const Vec3* q[2] = {&q1, &q2};
        const Mat312* Ax[2] = {&Ax1, &Ax2};
        const auto half_motion = [&](int k, int i) {  // ½(ω×q + v) of the direction with component i on body k
          return i < 3 ? Vec3(0.5 * ex(i, *q[k])) : Vec3(0.5 * Vec3::Unit(i - 3));
        };
        if (ia < 3) {
          D2p[ka] += ex(ia, Ax[ka]->col(b) + (kb == ka ? half_motion(ka, ib) : Vec3::Zero()));
          t[ka] -= ex(ia, db);
        }
        if (ib < 3) {
          D2p[kb] += ex(ib, Ax[kb]->col(a) + (ka == kb ? half_motion(kb, ia) : Vec3::Zero()));
          t[kb] -= ex(ib, da);
        }
        if (ia < 3 && ib < 3 && ka == kb) t[ka] += 0.5 * (ex(ib, ex(ia, d)) + ex(ia, ex(ib, d)));
        const Vec3 D2d = D2p[0] - D2p[1];
        Eigen::Matrix<double, N, 1> rhs;
        rhs.template head<K1>() = A1.transpose() * (D2d + t[0]);
        rhs.template tail<K2>() = -A2.transpose() * (D2d + t[1]);
        const Eigen::Matrix<double, N, 1> xab = -S * rhs;
        p1ab = D2p[0] + A1 * xab.template head<K1>();
        p2ab = D2p[1] + A2 * xab.template tail<K2>();
      }
      const Vec3 dab = p1ab - p2ab;
      const double hphi = 2.0 * (da.dot(db) + d.dot(dab));
      out.H_phi(a, b) = out.H_phi(b, a) = hphi;
      for (int k = 0; k < 3; ++k) {
        out.H_core1_W[k](a, b) = out.H_core1_W[k](b, a) = p1ab(k);
        out.H_core2_W[k](a, b) = out.H_core2_W[k](b, a) = p2ab(k);
      }
      if (!smooth) continue;
      // ρ = ‖d‖, m = d/ρ: ρ_ab = m_b·d_a + m·d_ab, m_ab = (d_ab − m_b ρ_a − m_a ρ_b − m ρ_ab)/ρ.
      const double rab = dm.col(b).dot(da) + m.dot(dab);
      const Vec3 mab = (dab - dm.col(b) * drho(a) - dm.col(a) * drho(b) - m * rab) / rho;
      out.H_signed_distance(a, b) = out.H_signed_distance(b, a) = rab;
      for (int k = 0; k < 3; ++k) {
        out.H_normal_W[k](a, b) = out.H_normal_W[k](b, a) = -mab(k);
        out.H_p1_W[k](a, b) = out.H_p1_W[k](b, a) = p1ab(k) - R1 * mab(k);
        out.H_p2_W[k](a, b) = out.H_p2_W[k](b, a) = p2ab(k) + R2 * mab(k);
      }
    }
  }
  if (frame != ReferenceFrame::world) {
    Eigen::Matrix<double, 12, 12> M = Eigen::Matrix<double, 12, 12>::Zero();
    M.topLeftCorner<6, 6>() = world_twist_from_frame(frame, X1);
    M.bottomRightCorner<6, 6>() = world_twist_from_frame(frame, X2);
    hessian_to_frame(out.H_phi, M);
    hessian_to_frame(out.H_signed_distance, M);
    for (int k = 0; k < 3; ++k)
      for (Mat12* H : {&out.H_core1_W[k], &out.H_core2_W[k], &out.H_p1_W[k], &out.H_p2_W[k], &out.H_normal_W[k]})
        hessian_to_frame(*H, M);
  }
}

Eigen::Matrix<double, 3, 1> axis_E_B(const Capsule& c) { return c.a_B() - c.b_B(); }
Eigen::Matrix<double, 3, 2> plane_E_B() {
  Eigen::Matrix<double, 3, 2> E = Eigen::Matrix<double, 3, 2>::Zero();
  E(0, 0) = E(1, 1) = 1.0;
  return E;
}

Eigen::Matrix<double, 3, 1> core_E(const Capsule& c) { return axis_E_B(c); }
Eigen::Matrix<double, 3, 2> core_E(const PaddedPolygon&) { return plane_E_B(); }

// [η1 | η2] → [η2 | η1] on both sides.
void swap_poses(Mat12& H) {
  Mat12 T;
  T.topLeftCorner<6, 6>() = H.bottomRightCorner<6, 6>();
  T.bottomRightCorner<6, 6>() = H.topLeftCorner<6, 6>();
  T.topRightCorner<6, 6>() = H.bottomLeftCorner<6, 6>();
  T.bottomLeftCorner<6, 6>() = H.topRightCorner<6, 6>();
  H = T;
}

// ------------------------------------------------------------------ shape parameters

// One parameter's effect on the QP of body `body` (0 or 1), at fixed QP variables:
// the core point moves by dq_B (body frame), the columns E_B by dE_B, the radius by dR, and the
// QP row `row` (global index, −1 none) of G and h by dG (the block of this body) and dh.
template <int K>
struct ParamEffect {
  double dR = 0.0;
  Vec3 dq_B = Vec3::Zero();
  Eigen::Matrix<double, 3, K> dE_B = Eigen::Matrix<double, 3, K>::Zero();
  int row = -1;
  Eigen::Matrix<double, K, 1> dG = Eigen::Matrix<double, K, 1>::Zero();
  double dh = 0.0;
};

// The capsule's (radius, length) at QP parameter θ.
ParamEffect<1> capsule_effect(const Capsule& c, double theta, int j) {
  ParamEffect<1> e;
  if (j == 0) {
    e.dR = 1.0;
  } else {
    const double L = c.length();
    const Vec3 u = L > 0.0 ? Vec3((c.a_B() - c.b_B()) / L) : Vec3::UnitX();
    e.dq_B = (theta - 0.5) * u;  // c(θ) = mid + (θ − ½)·L·u
    e.dE_B = u;
  }
  return e;
}
// The polygon's (radius, d[i], C[i][j]); `row0` its first row in G.
ParamEffect<2> polygon_effect(const PaddedPolygon& p, int j, int row0) {
  ParamEffect<2> e;
  const int m = p.num_constraints();
  if (j == 0) {
    e.dR = 1.0;
  } else if (j <= m) {
    e.row = row0 + j - 1;
    e.dh = 1.0;
  } else {
    const int k = j - 1 - m;
    e.row = row0 + k / 2;
    e.dG(k % 2) = 1.0;
  }
  return e;
}

// The active rows of G (bit i of qp.active) as N-vectors, for the layouts of proximity.cpp:
// capsule–capsule θ1 ≤ 1, θ2 ≤ 1, −θ1 ≤ 0, −θ2 ≤ 0; capsule–polygon θ1 ≤ 1, −θ1 ≤ 0, C2·y2 ≤ d2;
// polygon–polygon C1·y1 ≤ d1, C2·y2 ≤ d2.
template <int N>
Eigen::Matrix<double, N, 1> active_row(int kind, const PaddedPolygon* p1, const PaddedPolygon* p2, int i) {
  Eigen::Matrix<double, N, 1> g = Eigen::Matrix<double, N, 1>::Zero();
  if (kind == 0) {
    g(i % 2) = i < 2 ? 1.0 : -1.0;
  } else if (kind == 1) {
    if (i < 2) g(0) = i == 0 ? 1.0 : -1.0;
    else g.template tail<2>() = p2->normal(i - 2);
  } else {
    const int m1 = p1->num_constraints();
    if (i < m1) g.template head<2>() = p1->normal(i);
    else g.template tail<2>() = p2->normal(i - m1);
  }
  return g;
}

template <int K1, int K2, class S1, class S2, class Effect1, class Effect2>
void shape_core(const S1& s1, const Pose& X1, const S2& s2, const Pose& X2, const ProximityResult& res, int kind,
                const PaddedPolygon* pg1, const PaddedPolygon* pg2, const Effect1& effect1, const Effect2& effect2,
                ProximityShapeDerivatives& out) {
  constexpr int N = K1 + K2;
  const int c1 = proximity_shape_parameter_count(s1), c2 = proximity_shape_parameter_count(s2);
  const int nc = c1 + c2;
  out.count1 = c1;
  out.count2 = c2;
  out.d_phi.setZero(nc);
  out.d_signed_distance.setZero(nc);
  out.d_core1_W.setZero(3, nc);
  out.d_core2_W.setZero(3, nc);
  out.d_p1_W.setZero(3, nc);
  out.d_p2_W.setZero(3, nc);
  out.d_normal_W.setZero(3, nc);
  if (!res.ok() || !X1.is_valid() || !X2.is_valid()) {
    out.status = res.ok() ? DerivativeStatus::invalid_input : DerivativeStatus::solve_failed;
    return;
  }
  out.status = res.cores_touch          ? DerivativeStatus::cores_touch
               : !res.unique_minimizer ? DerivativeStatus::non_unique_minimizer
                                       : DerivativeStatus::ok;
  const double Rsum = s1.radius() + s2.radius();
  if (res.cores_touch) {  // φ = ‖d‖² − R² with d = 0 to first order; the signed distance's R part
    for (int j : {0, c1}) {
      out.d_phi(j) = -2.0 * Rsum;
      out.d_signed_distance(j) = -1.0;
    }
    return;
  }
  const Eigen::Matrix<double, 3, K1> E1 = core_E(s1);
  const Eigen::Matrix<double, 3, K2> E2 = core_E(s2);
  const Eigen::Matrix<double, 3, K1> A1 = X1.R * E1;
  const Eigen::Matrix<double, 3, K2> A2 = X2.R * E2;
  Eigen::Matrix<double, 3, N> Jx;
  Jx << A1, -A2;
  const Eigen::Matrix<double, N, N> P = Jx.transpose() * Jx;
  const Eigen::Matrix<double, N, N> S = res.qp.S.template topLeftCorner<N, N>();
  const Eigen::Matrix<double, N, 1> x = res.qp.x.template head<N>();
  const Vec3 d = res.core1_W - res.core2_W;
  const double rho = res.core_distance;
  const Vec3 m = d / rho, n = res.normal_W;
  // Active rows: M = G_AᵀG_A and its pseudo-inverse (for dx_p and λ).
  Eigen::Matrix<double, N, N> M = Eigen::Matrix<double, N, N>::Zero();
  for (int i = 0; i < res.qp.m; ++i)
    if (res.qp.active >> i & 1u) {
      const Eigen::Matrix<double, N, 1> g = active_row<N>(kind, pg1, pg2, i);
      M += g * g.transpose();
    }
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, N, N>> es(M);
  const auto& ev = es.eigenvalues();
  Eigen::Matrix<double, N, 1> inv_ev;
  for (int i = 0; i < N; ++i) inv_ev(i) = ev(i) > 1e-12 * std::max(1.0, ev(N - 1)) ? 1.0 / ev(i) : 0.0;
  const Eigen::Matrix<double, N, N> Mp = es.eigenvectors() * inv_ev.asDiagonal() * es.eigenvectors().transpose();
  const Eigen::Matrix<double, N, 1> r = Jx.transpose() * d;
  const Eigen::Matrix<double, N, 1> lam_w = Mp * (-r);  // λ_i = g_iᵀ·lam_w (least squares of G_Aᵀλ = −r)
  const Eigen::Matrix<double, N, N> IminusSP = Eigen::Matrix<double, N, N>::Identity() - S * P;
  for (int j = 0; j < nc; ++j) {
    const bool first = j < c1;
    double dR;
    Vec3 dq;                             // ∂d|_x (world)
    Eigen::Matrix<double, 3, N> dJ = Eigen::Matrix<double, 3, N>::Zero();  // ∂J_x
    Eigen::Matrix<double, N, 1> dg = Eigen::Matrix<double, N, 1>::Zero();  // ∂active_row
    int row;
    double dh;
    if (first) {
      const auto e = effect1(j);
      dR = e.dR;
      dq = X1.R * e.dq_B;
      dJ.template leftCols<K1>() = X1.R * e.dE_B;
      dg.template head<K1>() = e.dG;
      row = e.row;
      dh = e.dh;
    } else {
      const auto e = effect2(j - c1);
      dR = e.dR;
      dq = -(X2.R * e.dq_B);
      dJ.template rightCols<K2>() = -(X2.R * e.dE_B);
      dg.template tail<K2>() = e.dG;
      row = e.row;
      dh = e.dh;
    }
    Eigen::Matrix<double, N, 1> dxv = Eigen::Matrix<double, N, 1>::Zero();
    if (dR == 0.0) {
      Eigen::Matrix<double, N, 1> rhs = dJ.transpose() * d + Jx.transpose() * dq;
      if (row >= 0 && (res.qp.active >> row & 1u)) {
        const Eigen::Matrix<double, N, 1> g = active_row<N>(kind, pg1, pg2, row);
        rhs += dg * g.dot(lam_w);                                   // ∂G_Aᵀλ
        const Eigen::Matrix<double, N, 1> dxp = Mp * g * (dh - dg.dot(x));  // G_A dx_p = ∂h − ∂G x
        dxv = IminusSP * dxp;
      }
      dxv -= S * rhs;
    }
    // Core points: δp1 = ∂p1|_x + A1 δx1 (first shape's parameters move p1 at fixed x, and so on).
    Vec3 dp1 = A1 * dxv.template head<K1>(), dp2 = A2 * dxv.template tail<K2>();
    if (first) dp1 += dq; else dp2 -= dq;
    const Vec3 ddv = dp1 - dp2;
    const double drho = m.dot(ddv);
    const Vec3 dmv = (ddv - m * drho) / rho;
    out.d_phi(j) = 2.0 * d.dot(ddv) - 2.0 * Rsum * dR;
    out.d_signed_distance(j) = drho - dR;
    out.d_core1_W.col(j) = dp1;
    out.d_core2_W.col(j) = dp2;
    out.d_normal_W.col(j) = -dmv;
    out.d_p1_W.col(j) = dp1 - s1.radius() * dmv + (first ? dR : 0.0) * n;
    out.d_p2_W.col(j) = dp2 + s2.radius() * dmv - (first ? 0.0 : dR) * n;
  }
}

void swap_parameter_columns(ProximityShapeDerivatives& o) {
  // [capsule | polygon] columns → [polygon | capsule]; outputs of shape 1 ↔ shape 2.
  const int a = o.count1, b = o.count2;
  auto rot = [&](auto& X) {
    auto Y = X;
    Y.leftCols(b) = X.rightCols(b);
    Y.rightCols(a) = X.leftCols(a);
    X = Y;
  };
  rot(o.d_phi);
  rot(o.d_signed_distance);
  rot(o.d_core1_W);
  rot(o.d_core2_W);
  rot(o.d_p1_W);
  rot(o.d_p2_W);
  rot(o.d_normal_W);
  std::swap(o.d_core1_W, o.d_core2_W);
  std::swap(o.d_p1_W, o.d_p2_W);
  o.d_normal_W = -o.d_normal_W;
  std::swap(o.count1, o.count2);
}

}  // namespace

void proximity_hessians(const Capsule& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                        const ProximityResult& r, ProximityHessians& out, ReferenceFrame frame) {
  hessian_core<1, 1>(X_W1, X_W2, axis_E_B(s1), axis_E_B(s2), s1.radius(), s2.radius(), r, frame, out);
}
void proximity_hessians(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
                        const ProximityResult& r, ProximityHessians& out, ReferenceFrame frame) {
  hessian_core<2, 2>(X_W1, X_W2, plane_E_B(), plane_E_B(), s1.radius(), s2.radius(), r, frame, out);
}
void proximity_hessians(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
                        const ProximityResult& r, ProximityHessians& out, ReferenceFrame frame) {
  hessian_core<1, 2>(X_W1, X_W2, axis_E_B(s1), plane_E_B(), s1.radius(), s2.radius(), r, frame, out);
}
void proximity_hessians(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                        const ProximityResult& r, ProximityHessians& out, ReferenceFrame frame) {
  ProximityResult swapped = r;
  swap_shapes(swapped);
  proximity_hessians(s2, X_W2, s1, X_W1, swapped, out, frame);
  swap_poses(out.H_phi);
  swap_poses(out.H_signed_distance);
  for (int k = 0; k < 3; ++k) {
    for (Mat12* H : {&out.H_core1_W[k], &out.H_core2_W[k], &out.H_p1_W[k], &out.H_p2_W[k], &out.H_normal_W[k]})
      swap_poses(*H);
    std::swap(out.H_core1_W[k], out.H_core2_W[k]);
    std::swap(out.H_p1_W[k], out.H_p2_W[k]);
    out.H_normal_W[k] = -out.H_normal_W[k];
  }
}

// ------------------------------------------------------------------ shape parameters

int proximity_shape_parameter_count(const Capsule&) { return 2; }
int proximity_shape_parameter_count(const PaddedPolygon& p) { return 1 + 3 * p.num_constraints(); }

std::string proximity_shape_parameter_name(const Capsule&, int i) {
  if (i == 0) return "radius";
  if (i == 1) return "length";
  throw std::out_of_range("qp::proximity_shape_parameter_name: a capsule has 2 parameters");
}
std::string proximity_shape_parameter_name(const PaddedPolygon& p, int i) {
  const int m = p.num_constraints();
  if (i < 0 || i > 3 * m)
    throw std::out_of_range("qp::proximity_shape_parameter_name: this polygon has " + std::to_string(1 + 3 * m) +
                            " parameters");
  if (i == 0) return "radius";
  if (i <= m) return "d[" + std::to_string(i - 1) + "]";
  const int k = i - 1 - m;
  return "C[" + std::to_string(k / 2) + "][" + std::to_string(k % 2) + "]";
}

void proximity_shape_derivatives(const Capsule& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                                 const ProximityResult& r, ProximityShapeDerivatives& out) {
  shape_core<1, 1>(
      s1, X_W1, s2, X_W2, r, 0, nullptr, nullptr, [&](int j) { return capsule_effect(s1, r.qp.x(0), j); },
      [&](int j) { return capsule_effect(s2, r.qp.x(1), j); }, out);
}
void proximity_shape_derivatives(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2,
                                 const Pose& X_W2, const ProximityResult& r, ProximityShapeDerivatives& out) {
  shape_core<2, 2>(
      s1, X_W1, s2, X_W2, r, 2, &s1, &s2, [&](int j) { return polygon_effect(s1, j, 0); },
      [&](int j) { return polygon_effect(s2, j, s1.num_constraints()); }, out);
}
void proximity_shape_derivatives(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
                                 const ProximityResult& r, ProximityShapeDerivatives& out) {
  shape_core<1, 2>(
      s1, X_W1, s2, X_W2, r, 1, nullptr, &s2, [&](int j) { return capsule_effect(s1, r.qp.x(0), j); },
      [&](int j) { return polygon_effect(s2, j, 2); }, out);
}
void proximity_shape_derivatives(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
                                 const ProximityResult& r, ProximityShapeDerivatives& out) {
  ProximityResult swapped = r;
  swap_shapes(swapped);
  proximity_shape_derivatives(s2, X_W2, s1, X_W1, swapped, out);
  swap_parameter_columns(out);
}

}  // namespace diffcol::qp
