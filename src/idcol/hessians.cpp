// Second-order pose derivatives and shape-parameter derivatives of the iDCOL contact kinematics:
// the implicit-function theorem of seed Sec. VI, (27)–(30), one order further, and with respect to
// the shapes' parameters. Conventions and definitions: include/diffcol/idcol/hessians.hpp.
#include "diffcol/idcol/hessians.hpp"

#include "lu_solve.hpp"
#include "pose_algebra.hpp"
#include "shape_higher_derivatives.hpp"
#include "../util/target_clones.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

// Under the sanitizers (no clones there) flattening only slows the compile.
#if defined(__SANITIZE_ADDRESS__)
#define DIFFCOL_HESSIAN_FLATTEN
#else
#define DIFFCOL_HESSIAN_FLATTEN [[gnu::flatten]]
#endif

namespace diffcol::idcol {

namespace {

using detail::adjoint_inverse;
using detail::cross;

// e_a × X for a < 3
[[gnu::always_inline]] inline Vec3 rot_cross(int a, const Vec3& X) {
  return a == 0 ? Vec3(0.0, -X.z(), X.y()) : a == 1 ? Vec3(X.z(), 0.0, -X.x()) : Vec3(-X.y(), X.x(), 0.0);
}
// e_a × e_c
[[gnu::always_inline]] inline Vec3 unit_cross(int a, int c) { return rot_cross(a, Vec3::Unit(c)); }
// ½(e_a × (e_b × X) + e_b × (e_a × X)) = ½(e_b X_a + e_a X_b) − δ_ab X: the second-order term of
// exp(±ω^) along two rotations
[[gnu::always_inline]] inline Vec3 rot_rot(int a, int b, const Vec3& X) {
  Vec3 out = a == b ? Vec3(-X) : Vec3(Vec3::Zero());
  out[b] += 0.5 * X[a];
  out[a] += 0.5 * X[b];
  return out;
}

// First-order variations along the body twist e_a of X_12 (a < 6), and the quantities of the KKT
// residual F (10) they move: y1 = x/α, q = Rᵀ(x − r), k = exp(−ω^)(q − v − ½ω×v) (so that
// y2 = k/α), n1 = ∇φ1(y1), n2 = ∇φ2(y2), m2 = exp(ω^) n2, P = λ1 n1 + λ2 R m2 ((10c) = P/α),
// c_i = y_i·n_i, Q = λ1 c1 + λ2 c2 ((10d) = 1 − Q/α).
struct Dir {
  Vec3 dx;
  double ds, dl1, dl2;
  Vec3 dy1, du, dk, dy2, dn1, dn2, dm2, dP;
  double dc1, dc2, dQ;
};

// The pair's second-order data common to every output.
struct Second {
  double D2[6][21];  // ∂²z/∂ξ_a∂ξ_b, z = (x, s = log α, λ1, λ2), pairs a ≤ b in row-major order
};

inline int pair_index(int a, int b) { return a * 6 - a * (a - 1) / 2 + (b - a); }  // a ≤ b

// The outputs' X12 Hessians side by side, one lane per output, pairs a ≤ b in pair_index order:
// α, λ1, λ2, d_D, then the components of x, p1, p2 and n̂ (kLanes; the first 4 are the scalars).
constexpr int kLanes = 16;
struct Lanes {
  alignas(64) double h[21][kLanes];
};

// K = AᵀH_xA for the first NO lanes: T = H_x·A, then the upper triangle of AᵀT, each step across
// the lanes (the outputs share A, so the products vectorize over them). A = Ad(X_2)⁻¹ has a zero
// upper-right block, skipped.
template <int NO>
[[gnu::always_inline]] inline void congruence(const Lanes& H, const Mat6& A, Lanes& K) {
  double T[6][6][NO];
  for (int i = 0; i < 6; ++i)
    for (int b = 0; b < 6; ++b) {
      double acc[NO] = {};
      for (int j = b < 3 ? 0 : 3; j < 6; ++j) {
        const double ajb = A(j, b);
        const double* h = H.h[i <= j ? pair_index(i, j) : pair_index(j, i)];
        for (int o = 0; o < NO; ++o) acc[o] += h[o] * ajb;
      }
      for (int o = 0; o < NO; ++o) T[i][b][o] = acc[o];
    }
  for (int a = 0; a < 6; ++a)
    for (int b = a; b < 6; ++b) {
      double acc[NO] = {};
      for (int i = a < 3 ? 0 : 3; i < 6; ++i) {
        const double aia = A(i, a);
        for (int o = 0; o < NO; ++o) acc[o] += aia * T[i][b][o];
      }
      double* k = K.h[pair_index(a, b)];
      for (int o = 0; o < NO; ++o) k[o] = acc[o];
    }
}

// H ← the two-pose Hessian of a scalar from lane o of K = AᵀH_xA and its world gradient mu (η2
// columns): [[K, −K + C], [−K + Cᵀ, K]], C = ½[[μ̃ω, μ̃v], [μ̃v, 0]] (the bracket term of
// ξ = A(η2 − η1 − ½ ad_{η1}η2)), then diag(M1, M2)ᵀ·H·diag(M1, M2) for the frame.
void two_pose(const Lanes& KL, int o, const RowVec6& mu, const Mat6& M1, const Mat6& M2, bool world, Mat12& H) {
  double K[6][6];  // column-major: K[b][a] = K(a, b)
  for (int a = 0; a < 6; ++a)
    for (int b = a; b < 6; ++b) K[a][b] = K[b][a] = KL.h[pair_index(a, b)][o];
  const double w0 = 0.5 * mu[0], w1 = 0.5 * mu[1], w2 = 0.5 * mu[2];
  const double v0 = 0.5 * mu[3], v1 = 0.5 * mu[4], v2 = 0.5 * mu[5];
  const double C[6][6] = {{0.0, w2, -w1, 0.0, v2, -v1}, {-w2, 0.0, w0, -v2, 0.0, v0},  // column-major
                          {w1, -w0, 0.0, v1, -v0, 0.0}, {0.0, v2, -v1, 0.0, 0.0, 0.0},
                          {-v2, 0.0, v0, 0.0, 0.0, 0.0}, {v1, -v0, 0.0, 0.0, 0.0, 0.0}};
  if (world) {  // column b: [K; −K − C] (C antisymmetric: the lower-left block is Xᵀ), b + 6: [C − K; K]
    double* h = H.data();
    for (int b = 0; b < 6; ++b) {
      double* lo = h + 12 * b;
      double* hi = h + 12 * (b + 6);
      for (int a = 0; a < 6; ++a) {
        lo[a] = K[b][a];
        lo[a + 6] = -K[b][a] - C[b][a];
        hi[a] = C[b][a] - K[b][a];
        hi[a + 6] = K[b][a];
      }
    }
    return;
  }
  Mat6 Km, X;
  for (int b = 0; b < 6; ++b)
    for (int a = 0; a < 6; ++a) {
      Km(a, b) = K[b][a];
      X(a, b) = C[b][a] - K[b][a];
    }
  Mat6 t1, t2, K1, K2, Y;
  t1.noalias() = Km * M1;
  K1.noalias() = M1.transpose() * t1;
  t2.noalias() = Km * M2;
  K2.noalias() = M2.transpose() * t2;
  H.topLeftCorner<6, 6>() = 0.5 * (K1 + K1.transpose());
  H.bottomRightCorner<6, 6>() = 0.5 * (K2 + K2.transpose());
  t2.noalias() = X * M2;
  Y.noalias() = M1.transpose() * t2;
  H.topRightCorner<6, 6>() = Y;
  H.bottomLeftCorner<6, 6>() = Y.transpose();
}

void zero(ContactHessians& out, DerivativeStatus st, ReferenceFrame frame) {
  out = ContactHessians{};
  out.status = st;
  out.frame = frame;
}

}  // namespace

namespace {

// AVX2/FMA copy picked at load time (src/util/target_clones.hpp); flattened so that the clone calls
// no baseline function of this file.
DIFFCOL_TARGET_CLONES DIFFCOL_HESSIAN_FLATTEN void hessians(const Shape& shape1, const Shape& shape2,
                                                     const ContactSolution& sol, ContactHessians& out,
                                                     ReferenceFrame frame, HessianOutputs outputs) {
  ContactDerivatives d;
  contact_derivatives(sol, d, ReferenceFrame::world);
  if (!d.ok()) return zero(out, d.status, frame);

  const Mat3& R = sol.X_12.R;
  const Vec3& r = sol.X_12.p;
  const double alpha = sol.alpha, ia = 1.0 / alpha;
  const double l1 = sol.lambda1, l2 = sol.lambda2;
  const Vec3& x = sol.x_B1;
  const Vec3 y1 = ia * x;
  const Vec3 q = R.transpose() * (x - r);
  const Vec3 y2 = ia * q;
  const Vec3& g1 = sol.grad1;
  const Vec3& g2 = sol.grad2;
  const Mat3& H1 = sol.hess1;
  const Mat3& H2 = sol.hess2;
  detail::Third T1, T2;
  detail::third(shape1, y1, T1);
  detail::third(shape2, y2, T2);
  const double c1 = y1.dot(g1), c2 = y2.dot(g2);
  const Vec3 P = l1 * g1 + l2 * (R * g2);
  const double Q = l1 * c1 + l2 * c2;

  // ---- first order along each e_a (T_c from the first derivatives; s row = α row / α). The
  // twist e_a is a rotation (ω = e_a, a < 3) or a translation (v = e_{a−3}): the cross products
  // with ω and v below are index operations (rot_cross).
  Dir D[6];
  Mat3 T1a[6], T2a[6];  // ∇³φ_i contracted once: T1a[a]·u = ∇³φ1[dy1_a, u]
  for (int a = 0; a < 6; ++a) {
    Dir& e = D[a];
    e.dx = d.J_z_X12.block<3, 1>(0, a);
    e.ds = ia * d.J_z_X12(3, a);
    e.dl1 = d.J_z_X12(4, a);
    e.dl2 = d.J_z_X12(5, a);
    e.dy1 = ia * e.dx - e.ds * y1;
    e.du = R.transpose() * e.dx;
    if (a >= 3) e.du[a - 3] -= 1.0;
    e.dk = a < 3 ? Vec3(e.du - rot_cross(a, q)) : e.du;
    e.dy2 = ia * e.dk - e.ds * y2;
    e.dn1 = H1 * e.dy1;
    e.dn2 = H2 * e.dy2;
    e.dm2 = a < 3 ? Vec3(e.dn2 + rot_cross(a, g2)) : e.dn2;
    e.dP = e.dl1 * g1 + l1 * e.dn1 + R * (e.dl2 * g2 + l2 * e.dm2);
    e.dc1 = e.dy1.dot(g1) + y1.dot(e.dn1);
    e.dc2 = e.dy2.dot(g2) + y2.dot(e.dn2);
    e.dQ = e.dl1 * c1 + l1 * e.dc1 + e.dl2 * c2 + l2 * e.dc2;
    T1a[a] = e.dy1[0] * T1.T[0] + e.dy1[1] * T1.T[1] + e.dy1[2] * T1.T[2];
    T2a[a] = e.dy2[0] * T2.T[0] + e.dy2[1] * T2.T[1] + e.dy2[2] * T2.T[2];
  }

  // ---- D²F along (z_a, e_a), (z_b, e_b) for the 21 pairs a ≤ b (z linear along the path)
  double B[6][21];
  for (int a = 0; a < 6; ++a)
    for (int b = a; b < 6; ++b) {
      const Dir &A = D[a], &Bd = D[b];
      const int p = pair_index(a, b);
      const double sab = A.ds * Bd.ds;
      // k = exp(−ω^)(q − v − ½ω×v): second-order part along (a, b)
      Vec3 d2k = Vec3::Zero(), d2m2 = Vec3::Zero();
      if (a < 3) {
        d2k -= rot_cross(a, Bd.du);
        d2m2 += rot_cross(a, Bd.dn2);
        if (b < 3) {
          d2k -= rot_cross(b, A.du);
          d2m2 += rot_cross(b, A.dn2);
          d2k += rot_rot(a, b, q);
          d2m2 += rot_rot(a, b, g2);
        } else {
          d2k -= 0.5 * unit_cross(a, b - 3);
        }
      }
      const Vec3 d2y1 = ia * (sab * x - Bd.ds * A.dx - A.ds * Bd.dx);
      const Vec3 d2y2 = ia * (d2k - Bd.ds * A.dk - A.ds * Bd.dk + sab * q);
      const Vec3 d2n1 = H1 * d2y1 + T1a[a] * Bd.dy1;
      const Vec3 d2n2 = H2 * d2y2 + T2a[a] * Bd.dy2;
      d2m2 += d2n2;
      const Vec3 d2P = A.dl1 * Bd.dn1 + Bd.dl1 * A.dn1 + l1 * d2n1 +
                       R * (A.dl2 * Bd.dm2 + Bd.dl2 * A.dm2 + l2 * d2m2);
      const double d2c1 = d2y1.dot(g1) + A.dy1.dot(Bd.dn1) + Bd.dy1.dot(A.dn1) + y1.dot(d2n1);
      const double d2c2 = d2y2.dot(g2) + A.dy2.dot(Bd.dn2) + Bd.dy2.dot(A.dn2) + y2.dot(d2n2);
      const double d2Q = A.dl1 * Bd.dc1 + Bd.dl1 * A.dc1 + l1 * d2c1 + A.dl2 * Bd.dc2 + Bd.dl2 * A.dc2 + l2 * d2c2;
      B[0][p] = g1.dot(d2y1) + A.dy1.dot(Bd.dn1);  // (10a)
      B[1][p] = g2.dot(d2y2) + A.dy2.dot(Bd.dn2);  // (10b)
      const Vec3 f = ia * (d2P - Bd.ds * A.dP - A.ds * Bd.dP + sab * P);  // (10c)
      B[2][p] = f.x(), B[3][p] = f.y(), B[4][p] = f.z();
      B[5][p] = -ia * (d2Q - Bd.ds * A.dQ - A.ds * Bd.dQ + sab * Q);  // (10d)
    }
  Second S;
  lu_solve_neg(sol.kkt_lu, B, S.D2);
  double check = 0.0;
  for (int i = 0; i < 6; ++i)
    for (int p = 0; p < 21; ++p) check += S.D2[i][p];
  if (!std::isfinite(check)) return zero(out, DerivativeStatus::singular, frame);

  // ---- second derivatives of the outputs along (a, b)
  out.status = DerivativeStatus::ok;
  out.frame = frame;
  const Vec3 rb = R.transpose() * r;
  const double N = r.norm();
  const double gam = g1.norm();
  const Vec3 n = g1 / gam;
  Vec3 dp2k[6], dG[6], dnh[6];
  double dN[6], dgam[6];
  for (int a = 0; a < 6; ++a) {
    const Dir& e = D[a];
    dp2k[a] = e.dx;  // d(x − r_ξ), r_ξ = r + R(v + ½ω×v)
    if (a >= 3) dp2k[a] -= R.col(a - 3);
    dN[a] = a >= 3 ? rb[a - 3] / N : 0.0;
    dG[a] = e.dn1;  // H1·dp1, dp1 = dy1
    dgam[a] = n.dot(dG[a]);
    dnh[a] = (dG[a] - dgam[a] * n) / gam;
  }
  const Vec3 kk = x - r;
  Lanes HX;
  for (int a = 0; a < 6; ++a)
    for (int b = a; b < 6; ++b) {
      const Dir &A = D[a], &Bd = D[b];
      const int p = pair_index(a, b);
      const Vec3 xab(S.D2[0][p], S.D2[1][p], S.D2[2][p]);
      const double sab = S.D2[3][p], lab1 = S.D2[4][p], lab2 = S.D2[5][p];
      const double ss = A.ds * Bd.ds;
      const double aab = alpha * (sab + ss);
      // second-order part of v + ½ω×v: ½ e_a × e_{b−3} for a rotation a and a translation b
      Vec3 d2w = Vec3::Zero();
      double N2ab = 0.0;
      if (a < 3 && b >= 3) {
        d2w = 0.5 * unit_cross(a, b - 3);
        N2ab = 2.0 * rb.dot(d2w);
      } else if (a >= 3 && a == b) {
        N2ab = 2.0;
      }
      const Vec3 Rd2w = R * d2w;
      const Vec3 p1ab = ia * (xab - Bd.ds * A.dx - A.ds * Bd.dx + (ss - sab) * x);
      const Vec3 kab = xab - Rd2w;
      const Vec3 p2ab = Rd2w + ia * (kab - Bd.ds * dp2k[a] - A.ds * dp2k[b] + (ss - sab) * kk);
      // d_D = (1 − e) N, e = 1/α, N = ‖r_ξ‖
      const double Nab = (0.5 * N2ab - dN[a] * dN[b]) / N;
      const double ea = -ia * A.ds, eb = -ia * Bd.ds, eab = ia * (ss - sab);
      const double gab = -eab * N - ea * dN[b] - eb * dN[a] + (1.0 - ia) * Nab;
      // n̂ = G/‖G‖, G = ∇φ1(p1)
      const Vec3 Gab = H1 * p1ab + T1a[a] * Bd.dy1;
      const double gamab = dnh[b].dot(dG[a]) + n.dot(Gab);
      const Vec3 nab = (Gab - dnh[b] * dgam[a] - dnh[a] * dgam[b] - gamab * n) / gam;
      const auto put = [a, b](Mat6& H, double v) { H(a, b) = H(b, a) = v; };
      put(out.H_alpha_X12, aab);
      put(out.H_lambda1_X12, lab1);
      put(out.H_lambda2_X12, lab2);
      put(out.H_gap_X12, gab);
      double* lane = HX.h[p];
      lane[0] = aab, lane[1] = lab1, lane[2] = lab2, lane[3] = gab;
      for (int i = 0; i < 3; ++i) {
        put(out.H_x_B1_X12[i], xab[i]);
        put(out.H_p1_B1_X12[i], p1ab[i]);
        put(out.H_p2_B1_X12[i], p2ab[i]);
        put(out.H_normal_B1_X12[i], nab[i]);
        lane[4 + i] = xab[i], lane[7 + i] = p1ab[i], lane[10 + i] = p2ab[i], lane[13 + i] = nab[i];
      }
    }
  if (!std::isfinite(out.H_alpha_X12.sum() + out.H_gap_X12.sum() + out.H_normal_B1_X12[0].sum() +
                     out.H_normal_B1_X12[1].sum() + out.H_normal_B1_X12[2].sum()))
    return zero(out, DerivativeStatus::singular, frame);

  // ---- both poses
  const Pose& X1 = sol.X_W1;
  const Pose X2 = X1 * sol.X_12;
  const Mat6 A = adjoint_inverse(X2);
  const bool world = frame == ReferenceFrame::world;
  Mat6 M1 = Mat6::Identity(), M2 = Mat6::Identity();
  if (!world) {
    M1 = world_twist_from_frame(frame, X1);
    M2 = world_twist_from_frame(frame, X2);
  }
  Lanes K;
  if (outputs == HessianOutputs::all) congruence<kLanes>(HX, A, K);
  else congruence<4>(HX, A, K);
  two_pose(K, 0, d.J_alpha_X2, M1, M2, world, out.H_alpha);
  two_pose(K, 1, d.J_lambda1_X2, M1, M2, world, out.H_lambda1);
  two_pose(K, 2, d.J_lambda2_X2, M1, M2, world, out.H_lambda2);
  two_pose(K, 3, d.J_gap_X2, M1, M2, world, out.H_gap);
  if (outputs == HessianOutputs::all)
    for (int i = 0; i < 3; ++i) {
      two_pose(K, 4 + i, d.J_x_B1_X2.row(i), M1, M2, world, out.H_x_B1[i]);
      two_pose(K, 7 + i, d.J_p1_B1_X2.row(i), M1, M2, world, out.H_p1_B1[i]);
      two_pose(K, 10 + i, d.J_p2_B1_X2.row(i), M1, M2, world, out.H_p2_B1[i]);
      two_pose(K, 13 + i, d.J_normal_B1_X2.row(i), M1, M2, world, out.H_normal_B1[i]);
    }
}

}  // namespace

void contact_hessians(const Shape& shape1, const Shape& shape2, const ContactSolution& sol, ContactHessians& out,
                      ReferenceFrame frame, HessianOutputs outputs) {
  hessians(shape1, shape2, sol, out, frame, outputs);
}

ContactHessians contact_hessians(const Shape& shape1, const Shape& shape2, const ContactSolution& sol,
                                 ReferenceFrame frame, HessianOutputs outputs) {
  ContactHessians h;
  contact_hessians(shape1, shape2, sol, h, frame, outputs);
  return h;
}

ContactHessians contact_hessians(const ContactPair& pair, ReferenceFrame frame, HessianOutputs outputs) {
  return contact_hessians(pair.shape1(), pair.shape2(), pair.last(), frame, outputs);
}

// ============================================================================ shape parameters

int shape_parameter_count(const Shape& shape) { return detail::param_count(shape.type()); }

const char* shape_parameter_name(const Shape& shape, int i) {
  static const char* const kNames[kNumShapeTypes][kMaxShapeParameters] = {
      {"radius"},
      {"a", "b", "c"},
      {"radius", "half_height"},
      {"beta", "length"},
      {"beta", "bottom_radius", "top_radius", "bottom_extent", "top_extent"},
  };
  if (i < 0 || i >= shape_parameter_count(shape))
    throw std::out_of_range("shape_parameter_name: index " + std::to_string(i) + " out of range for a " +
                            shape_type_name(shape.type()) + " (" + std::to_string(shape_parameter_count(shape)) +
                            " parameters)");
  return kNames[static_cast<int>(shape.type())][i];
}

namespace {

// The status of contact_derivatives() without its Jacobians: converged, r ≠ 0, a usable
// factorization, and cond(Ĵ) ≤ kMaxKktCondition (Ĵ the equilibrated J_c, derivatives.cpp), from
// Ĵ⁻¹ = D_c⁻¹ J_c⁻¹ D_r⁻¹ whose columns come with the right-hand sides X[.][n0 ..].
DerivativeStatus first_status(const ContactSolution& sol) {
  switch (sol.status) {
    case SolveStatus::ok: break;
    case SolveStatus::coincident_origins: return DerivativeStatus::coincident_origins;
    case SolveStatus::invalid_input: return DerivativeStatus::invalid_input;
    default: return DerivativeStatus::solve_failed;
  }
  if (!(sol.alpha > 0.0) || !std::isfinite(sol.alpha) || !(sol.X_12.p.norm() > 0.0))
    return DerivativeStatus::coincident_origins;
  if (!sol.X_W1.is_valid()) return DerivativeStatus::invalid_input;
  return DerivativeStatus::ok;
}

}  // namespace

namespace {

DIFFCOL_TARGET_CLONES DIFFCOL_HESSIAN_FLATTEN void parameter_derivatives(const Shape& shape1, const Shape& shape2,
                                                                  const ContactSolution& sol, ShapeDerivatives& out) {
  out = ShapeDerivatives{};
  out.count1 = detail::param_count(shape1.type());
  out.count2 = detail::param_count(shape2.type());
  DerivativeStatus st = first_status(sol);
  const Vec3& r = sol.X_12.p;
  const double L = sol.p1_B1.norm() + (sol.p2_B1 - r).norm();
  if (st == DerivativeStatus::ok && !(L > 0.0 && std::isfinite(L) && sol.kkt_lu.min_pivot > 0.0))
    st = DerivativeStatus::singular;
  if (st != DerivativeStatus::ok) {
    out.status = st;
    return;
  }
  const Mat3& R = sol.X_12.R;
  const double alpha = sol.alpha, ia = 1.0 / alpha;
  const double l1 = sol.lambda1, l2 = sol.lambda2;
  const Vec3& x = sol.x_B1;
  const Vec3 y1 = ia * x;
  const Vec3 y2 = ia * (R.transpose() * (x - r));
  detail::ParamDerivs P1, P2;
  detail::params(shape1, y1, sol.grad1, sol.hess1, P1);
  detail::params(shape2, y2, sol.grad2, sol.hess2, P2);

  // −J_c⁻¹ [∂F/∂θ | D_r⁻¹]: the parameter derivatives and Ĵ⁻¹ for the condition number
  constexpr int K = kMaxPairParameters;
  double B[6][K + 6] = {};
  for (int j = 0; j < P1.count; ++j) {
    B[0][j] = P1.dphi[j];
    const Vec3 f = (l1 * ia) * P1.dgrad[j];
    B[2][j] = f.x(), B[3][j] = f.y(), B[4][j] = f.z();
    B[5][j] = -l1 * ia * y1.dot(P1.dgrad[j]);
  }
  for (int j = 0; j < P2.count; ++j) {
    const int c = out.count1 + j;
    B[1][c] = P2.dphi[j];
    const Vec3 f = (l2 * ia) * (R * P2.dgrad[j]);
    B[2][c] = f.x(), B[3][c] = f.y(), B[4][c] = f.z();
    B[5][c] = -l2 * ia * y2.dot(P2.dgrad[j]);
  }
  const double row[6] = {1.0, 1.0, L, L, L, 1.0};
  const double aL = alpha * L;
  const double col[6] = {aL, aL, aL, 1.0, alpha, alpha};
  for (int i = 0; i < 6; ++i) B[i][K + i] = 1.0 / row[i];
  double X[6][K + 6];
  lu_solve_neg(sol.kkt_lu, B, X);
  double norm_J = 0.0, norm_inv = 0.0, sum = 0.0;
  for (int c = 0; c < 6; ++c) {
    double sj = 0.0, si = 0.0;
    for (int i = 0; i < 6; ++i) {
      sj += std::abs(row[i] * sol.kkt_jacobian(i, c) * col[c]);
      si += std::abs(X[i][K + c]) / col[i];
    }
    norm_J = std::max(norm_J, sj);
    norm_inv = std::max(norm_inv, si);
  }
  for (int i = 0; i < 6; ++i)
    for (int c = 0; c < K; ++c) sum += X[i][c];
  const double cond = norm_J * norm_inv;
  if (!std::isfinite(cond) || !std::isfinite(sum) || !(cond > 0.0)) {
    out.status = DerivativeStatus::singular;
    return;
  }
  if (!(cond <= kMaxKktCondition)) {
    out.status = DerivativeStatus::ill_conditioned;
    return;
  }
  out.status = DerivativeStatus::ok;

  const double rn = r.norm();
  const Vec3& g1 = sol.grad1;
  const double gn = g1.norm();
  const Vec3 n = g1 / gn;
  const Mat3 Pn = Mat3::Identity() - n * n.transpose();
  const Mat3& R1 = sol.X_W1.R;
  for (int c = 0; c < out.count1 + out.count2; ++c) {
    const Vec3 dx(X[0][c], X[1][c], X[2][c]);
    const double da = alpha * X[3][c];
    const Vec3 dp1 = ia * (dx - y1 * da);
    const Vec3 dp2 = dp1 + (ia * ia * da) * r;  // (29) with r fixed
    Vec3 dG = sol.hess1 * dp1;
    if (c < out.count1) dG += P1.dgrad[c];  // ∇φ1 moves with shape 1's parameters
    const Vec3 dn = Pn * dG / gn;
    out.d_alpha[c] = da;
    out.d_lambda1[c] = X[4][c];
    out.d_lambda2[c] = X[5][c];
    out.d_gap[c] = rn * ia * ia * da;  // (30)
    out.d_x_B1.col(c) = dx;
    out.d_p1_B1.col(c) = dp1;
    out.d_p2_B1.col(c) = dp2;
    out.d_normal_B1.col(c) = dn;
    out.d_x_W.col(c) = R1 * dx;
    out.d_p1_W.col(c) = R1 * dp1;
    out.d_p2_W.col(c) = R1 * dp2;
    out.d_normal_W.col(c) = R1 * dn;
  }
}

}  // namespace

void shape_derivatives(const Shape& shape1, const Shape& shape2, const ContactSolution& sol, ShapeDerivatives& out) {
  parameter_derivatives(shape1, shape2, sol, out);
}

ShapeDerivatives shape_derivatives(const Shape& shape1, const Shape& shape2, const ContactSolution& sol) {
  ShapeDerivatives s;
  shape_derivatives(shape1, shape2, sol, s);
  return s;
}

ShapeDerivatives shape_derivatives(const ContactPair& pair) {
  return shape_derivatives(pair.shape1(), pair.shape2(), pair.last());
}

}  // namespace diffcol::idcol
