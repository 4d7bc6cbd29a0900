// Soft-minimum contact model: eqs. (14)–(23) with analytic first derivatives.
#include "diffcol/ssdf/scm.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace diffcol::ssdf {

using Mat63 = Eigen::Matrix<double, 6, 3>;
using Mat66 = Eigen::Matrix<double, 6, 6>;

void ScmParameters::validate() const {
  auto positive = [](double x, const char* name) {
    if (!std::isfinite(x) || !(x > 0.0))
      throw std::invalid_argument(std::string("ScmParameters: ") + name + " must be positive and finite");
  };
  positive(stiffness, "stiffness");
  positive(dissipation_velocity, "dissipation_velocity");
  positive(stiction_velocity, "stiction_velocity");
  if (stiction_velocity < 1e-150)  // v_s² enters eq. (19): it must not underflow
    throw std::invalid_argument("ScmParameters: stiction_velocity must be at least 1e-150");
  if (!std::isfinite(friction) || friction < 0.0)
    throw std::invalid_argument("ScmParameters: friction must be >= 0 and finite");
  smooth::validate_temperature(eps1, "ScmParameters: eps1");
  smooth::validate_temperature(eps2, "ScmParameters: eps2");
  smooth::validate_temperature(eps3, "ScmParameters: eps3");
  // a truncation, not a model parameter: above 1e-3 it changes the forces, not just their cost
  if (!(weight_cutoff >= 0.0 && weight_cutoff <= 1e-3))
    throw std::invalid_argument("ScmParameters: weight_cutoff must be in [0, 1e-3]");
}

namespace {

/// point_plane_force without the input checks (the callers below validated everything once).
PointPlaneForce point_plane_force_unchecked(const Vec3& p, const Vec3& v, const Vec3& plane_point, const Vec3& n,
                                            const ScmParameters& prm) {
  PointPlaneForce out;
  out.phi = n.dot(p - plane_point);                                      // (14)
  const double c = prm.stiffness * smooth::kernel::softplus(-out.phi, prm.eps3);  // (15)
  const double dc_dphi = -prm.stiffness * smooth::kernel::sigmoid(-out.phi, prm.eps3);
  const double vn = n.dot(v), x = vn / prm.dissipation_velocity;
  double d, dd;  // (16)–(17) and d'(x)
  if (x <= 0.0) {
    d = 1.0 - x;
    dd = -1.0;
  } else if (x <= 2.0) {
    d = 0.25 * (x - 2.0) * (x - 2.0);
    dd = 0.5 * (x - 2.0);
  } else {
    d = 0.0;
    dd = 0.0;
  }
  const double ln = c * d;  // (18)
  const Vec3 vt = v - vn * n;
  const double h = std::sqrt(prm.stiction_velocity * prm.stiction_velocity + vt.squaredNorm());
  const Vec3 g = vt / h;
  const Vec3 dir = n - prm.friction * g;  // λ = λ_n (n − μ v_t/h), (19)–(20)
  out.normal_force = ln;
  out.force = ln * dir;
  out.J_force_p = (dc_dphi * d) * dir * n.transpose();
  const Mat3 Pt = Mat3::Identity() - n * n.transpose();
  const Mat3 dg = (Mat3::Identity() - g * g.transpose()) / h;  // ∂(v_t/h)/∂v_t
  out.J_force_v = (c * dd / prm.dissipation_velocity) * dir * n.transpose() - (prm.friction * ln) * dg * Pt;
  return out;
}

}  // namespace

PointPlaneForce point_plane_force(const Vec3& p, const Vec3& v, const Vec3& plane_point, const Vec3& n,
                                  const ScmParameters& prm) {
  prm.validate();
  if (!p.allFinite() || !v.allFinite() || !plane_point.allFinite() || !n.allFinite())
    throw std::invalid_argument("point_plane_force: non-finite point, velocity or plane");
  if (!(std::abs(n.norm() - 1.0) <= 1e-9)) throw std::invalid_argument("point_plane_force: plane_normal must be a unit vector");
  return point_plane_force_unchecked(p, v, plane_point, n, prm);
}

namespace {

/// Point–SSDF contact in the relative frame (see point_ssdf_contact); fills out (A = the point's
/// body, B = the cloud's body).
void point_ssdf_core(const Vec3& a, const Pose& X_WA, const Vec6& V_A, const OrientedPointCloud& cloud,
                     const Pose& X_WB, const Vec6& V_B, const ScmParameters& prm, SsdfWorkspace& ws, bool jac,
                     PointSsdfContact& out) {
  const Pose X_BA = X_WB.inverse() * X_WA;
  const Mat3& R = X_BA.R;
  const Vec3 q = X_BA * a;                                            // point in B's frame
  const Vec3 sA = V_A.head<3>().cross(a) + V_A.tail<3>();             // its velocity in A's frame
  const Vec3 us = R * sA;
  const Vec3 wB = V_B.head<3>(), vB = V_B.tail<3>();
  const int n = cloud.size();
  ws.reserve_inner(n);
  const auto& C = cloud.points();
  const auto& M = cloud.normals();
  double* x = ws.logits.data();
  double* w = ws.weights.data();
  const bool far = cloud.bounds().far(q);
  if (far) {  // the same softmax, shifted by ‖q − c‖² (aopc.hpp, kFarQueryRatio)
    cloud.bounds().far_logits(q, C, x);
  } else {
    for (int i = 0; i < n; ++i) x[i] = -(q - C[static_cast<size_t>(i)]).squaredNorm();  // −d_i, eq. (8)
  }
  smooth::kernel::logsumexp<double>(x, n, prm.eps1, w);                               // σ_eps1(−d), (22)
  double cutoff = 0.0;
  if (prm.weight_cutoff > 0.0) {
    for (int i = 0; i < n; ++i) cutoff = std::max(cutoff, w[i]);
    cutoff *= prm.weight_cutoff;
  }
  double phi = 0.0;
  Vec3 wn = Vec3::Zero(), rbar = Vec3::Zero(), SR = Vec3::Zero();
  Vec6 Y = Vec6::Zero();
  Mat63 YP = Mat63::Zero(), YU = Mat63::Zero();
  Mat66 YUE = Mat66::Zero();
  Mat63 YR = Mat63::Zero();
  for (int i = 0; i < n; ++i) {
    const double wi = w[i];
    if (wi == 0.0 || wi < cutoff) continue;
    const Vec3& c = C[static_cast<size_t>(i)];
    const Vec3& m = M[static_cast<size_t>(i)];
    const Vec3 r = q - c;
    const double si = m.dot(r);
    phi += wi * si;                                                   // (9)
    const Vec3 ui = us - (wB.cross(c) + vB);                          // v − v_i, (21)
    const PointPlaneForce pp = point_plane_force_unchecked(q, ui, c, m, prm);
    Vec6 y;
    y << c.cross(pp.force), pp.force;                                 // force at p_i, moment about B's origin
    Y += wi * y;
    if (!jac) continue;
    wn += wi * m;
    // Σ w_i (s_i − φ) r_i and Σ w_i (y_i − Y) r_iᵀ below are unchanged by a shift of every r_i
    // (Σ w_i (s_i − φ) = 0): far away, r_i − (q − center) avoids cancellation.
    const Vec3 rj = far ? Vec3(cloud.bounds().center - c) : r;
    rbar += wi * rj;
    SR += (wi * si) * rj;
    const Mat3 Sc = skew(c);
    Mat63 EP, EU;
    EP << Sc * pp.J_force_p, pp.J_force_p;
    EU << Sc * pp.J_force_v, pp.J_force_v;
    YP += wi * EP;
    YU += wi * EU;
    // E_i U_i E_iᵀ with E_iᵀ = [−skew(c) | I] = −(∂u_i/∂V_B).
    YUE.leftCols<3>() -= wi * EU * Sc;
    YUE.rightCols<3>() += wi * EU;
    YR += wi * y * rj.transpose();
  }
  out.phi = phi;
  const Vec3 G = Y.tail<3>();
  const Vec3 F_A = R.transpose() * G;
  out.wrench_A << a.cross(F_A), F_A;
  out.wrench_B = -Y;
  if (!jac) return;
  Vec3 grad = wn;
  Mat63 dY_dq = YP;
  if (prm.eps1 > 0.0) {
    grad -= (2.0 / prm.eps1) * (SR - phi * rbar);
    dY_dq -= (2.0 / prm.eps1) * (YR - Y * rbar.transpose());
  }
  Mat36 Q;  // ∂q/∂ξ (right perturbation of X_BA)
  Q << -R * skew(a), R;
  Mat36 Uxi = Mat36::Zero();  // ∂u_i/∂ξ (same for every i)
  Uxi.leftCols<3>() = -R * skew(sA);
  Mat36 UVA;  // ∂u_i/∂V_A
  UVA << -R * skew(a), R;
  const Mat66 dY_dxi = dY_dq * Q + YU * Uxi;
  const Mat66 dY_dVA = YU * UVA;
  const Mat66 dY_dVB = -YUE;
  // F_A = Rᵀ G: δF_A = skew(F_A) ω + Rᵀ δG.
  Mat36 dF_dxi = R.transpose() * dY_dxi.bottomRows<3>();
  dF_dxi.leftCols<3>() += skew(F_A);
  const Mat36 dF_dVA = R.transpose() * dY_dVA.bottomRows<3>();
  const Mat36 dF_dVB = R.transpose() * dY_dVB.bottomRows<3>();
  const Mat3 Sa = skew(a);
  Mat12 Jxi;  // rows [wrench_A; wrench_B], columns: ξ of X_BA in the first 6
  Jxi.setZero();
  Jxi.block<3, 6>(0, 0) = Sa * dF_dxi;
  Jxi.block<3, 6>(3, 0) = dF_dxi;
  Jxi.block<6, 6>(6, 0) = -dY_dxi;
  // X_BA ← exp(−ξB)·X_BA = X_BA·exp(−Ad(X_AB)·ξB).
  const Mat6 Ad_AB = adjoint(X_BA.inverse());
  out.J_wrench_X.leftCols<6>() = Jxi.leftCols<6>();
  out.J_wrench_X.rightCols<6>() = -Jxi.leftCols<6>() * Ad_AB;
  out.J_wrench_V.block<3, 6>(0, 0) = Sa * dF_dVA;
  out.J_wrench_V.block<3, 6>(3, 0) = dF_dVA;
  out.J_wrench_V.block<3, 6>(0, 6) = Sa * dF_dVB;
  out.J_wrench_V.block<3, 6>(3, 6) = dF_dVB;
  out.J_wrench_V.block<6, 6>(6, 0) = -dY_dVA;
  out.J_wrench_V.block<6, 6>(6, 6) = -dY_dVB;
  const Row6 dphi = grad.transpose() * Q;
  out.J_phi_X.head<6>() = dphi;
  out.J_phi_X.tail<6>() = -dphi * Ad_AB;
}

void check_inputs(const Pose& X1, const Vec6& V1, const Pose& X2, const Vec6& V2, const char* what) {
  for (const Pose* X : {&X1, &X2})
    if (const char* why = X->invalid_reason()) throw std::invalid_argument(std::string(what) + ": pose: " + why);
  if (!V1.allFinite() || !V2.allFinite()) throw std::invalid_argument(std::string(what) + ": non-finite velocity");
  const auto bounded = [](const auto& v) { return v.cwiseAbs().maxCoeff() <= kMaxLength; };
  if (!bounded(V1) || !bounded(V2))
    throw std::invalid_argument(std::string(what) + ": a velocity entry beyond 1e100 (kMaxLength)");
}

/// Swaps the body-1 and body-2 blocks of rows and columns.
Mat12 swap_bodies(const Mat12& J) {
  Mat12 S;
  S.block<6, 6>(0, 0) = J.block<6, 6>(6, 6);
  S.block<6, 6>(0, 6) = J.block<6, 6>(6, 0);
  S.block<6, 6>(6, 0) = J.block<6, 6>(0, 6);
  S.block<6, 6>(6, 6) = J.block<6, 6>(0, 0);
  return S;
}

}  // namespace

PointSsdfContact point_ssdf_contact(const Vec3& a, const Pose& X_WA, const Vec6& V_A, const OrientedPointCloud& cloud_B,
                                    const Pose& X_WB, const Vec6& V_B, const ScmParameters& params, SsdfWorkspace& ws,
                                    bool with_jacobians) {
  params.validate();
  check_inputs(X_WA, V_A, X_WB, V_B, "point_ssdf_contact");
  if (!a.allFinite()) throw std::invalid_argument("point_ssdf_contact: non-finite point");
  PointSsdfContact out;
  point_ssdf_core(a, X_WA, V_A, cloud_B, X_WB, V_B, params, ws, with_jacobians, out);
  return out;
}

PairContact pair_contact(const OrientedPointCloud& cloud1, const Pose& X_W1, const Vec6& V1,
                         const OrientedPointCloud& cloud2, const Pose& X_W2, const Vec6& V2,
                         const ScmParameters& params, SsdfWorkspace& ws, bool with_jacobians) {
  params.validate();
  check_inputs(X_W1, V1, X_W2, V2, "pair_contact");
  // Φ12, σ_eps2(−Φ12) and the rows ∂Φ_f/∂[ξ1|ξ2] (in ws.scratch).
  const Separation sep =
      smooth_separation_distance(cloud1, X_W1, cloud2, X_W2, params.eps1, params.eps2, ws, with_jacobians,
                                 ReferenceFrame::local);
  PairContact out;
  out.separation = sep.distance;
  const int n = sep.size1 + sep.size2;
  Vec12 L = Vec12::Zero();
  Mat12 M = Mat12::Zero();  // Σ_f W_f Λ_f dΦ_f
  Row12 Dbar = Row12::Zero();
  PointSsdfContact pc;
  double cutoff = 0.0;
  if (params.weight_cutoff > 0.0) {
    for (int f = 0; f < n; ++f) cutoff = std::max(cutoff, ws.distribution[static_cast<size_t>(f)]);
    cutoff *= params.weight_cutoff;
  }
  for (int f = 0; f < n; ++f) {
    const double W = ws.distribution[static_cast<size_t>(f)];
    if (W == 0.0 || W < cutoff) continue;
    Vec12 Lf;
    if (f < sep.size1) {  // point of body 1 in the SSDF of body 2
      point_ssdf_core(cloud1.points()[static_cast<size_t>(f)], X_W1, V1, cloud2, X_W2, V2, params, ws,
                      with_jacobians, pc);
      Lf << pc.wrench_A, pc.wrench_B;
      if (with_jacobians) {
        out.J_wrench_X += W * pc.J_wrench_X;
        out.J_wrench_V += W * pc.J_wrench_V;
      }
    } else {  // point of body 2 in the SSDF of body 1
      point_ssdf_core(cloud2.points()[static_cast<size_t>(f - sep.size1)], X_W2, V2, cloud1, X_W1, V1, params, ws,
                      with_jacobians, pc);
      Lf << pc.wrench_B, pc.wrench_A;
      if (with_jacobians) {
        out.J_wrench_X += W * swap_bodies(pc.J_wrench_X);
        out.J_wrench_V += W * swap_bodies(pc.J_wrench_V);
      }
    }
    L += W * Lf;  // (23)
    if (with_jacobians) {
      const Eigen::Map<const Row12> dPhi(ws.scratch.data() + 12 * f);
      M += W * Lf * dPhi;
      Dbar += W * dPhi;
    }
  }
  out.wrench_1 = L.head<6>();
  out.wrench_2 = L.tail<6>();
  // dW_f = −(W_f/eps2)(dΦ_f − Σ_g W_g dΦ_g).
  if (with_jacobians && params.eps2 > 0.0) out.J_wrench_X -= (M - L * Dbar) / params.eps2;
  return out;
}

}  // namespace diffcol::ssdf
