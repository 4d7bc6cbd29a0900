// SSDF (eq. (9)), separation field and smooth separation distance (Sec. III-B3, eq. (11)),
// reduction to collision points (eqs. (12)–(13)).
#include "diffcol/ssdf/ssdf.hpp"

#include <stdexcept>
#include <string>

namespace diffcol::ssdf {

namespace {

void check_pose(const Pose& X, const char* what) {
  if (const char* why = X.invalid_reason()) throw std::invalid_argument(std::string(what) + ": pose: " + why);
}

void check_point(const Vec3& q, const char* what) {
  if (!q.allFinite()) throw std::invalid_argument(std::string(what) + ": query point is not finite");
  if (!(q.cwiseAbs().maxCoeff() <= kMaxLength))
    throw std::invalid_argument(std::string(what) + ": query point beyond 1e100 (kMaxLength)");
}

/// Field entry f and, if J is not null, its pose Jacobian [ξ1 | ξ2]: the SSDF of `owner` (posed
/// X_W_owner) at body point a of `other` (posed X_W_other). other_is_1 selects the column order.
double field_entry(const OrientedPointCloud& owner, const Pose& X_owner_other, const Vec3& a, double eps1,
                   SsdfWorkspace& ws, bool other_is_1, double* J) {
  const Vec3 q = X_owner_other * a;
  Vec3 g;
  const double phi = kernel_signed_distance(owner, q, GaussianKernel{eps1}, ws, J ? &g : nullptr);
  if (J) {
    const Vec3 h = X_owner_other.R.transpose() * g;  // gradient in the other body's frame
    // Moving the other body: q = X·a, δq = R(ω × a + v).
    const Vec3 wo = a.cross(h);
    // Moving the owner: q ← exp(−ξ)·q, δq = −(ω × q + v).
    const Vec3 wb = g.cross(q);
    double* Jo = other_is_1 ? J : J + 6;
    double* Jb = other_is_1 ? J + 6 : J;
    for (int k = 0; k < 3; ++k) {
      Jo[k] = wo[k];
      Jo[3 + k] = h[k];
      Jb[k] = wb[k];
      Jb[3 + k] = -g[k];
    }
  }
  return phi;
}

}  // namespace

double soft_signed_distance(const OrientedPointCloud& cloud, const Vec3& q, double eps1, SsdfWorkspace& ws,
                            Vec3* grad) {
  smooth::validate_temperature(eps1, "soft_signed_distance: eps1");
  check_point(q, "soft_signed_distance");
  return kernel_signed_distance(cloud, q, GaussianKernel{eps1}, ws, grad);
}

SsdfQuery soft_signed_distance(const OrientedPointCloud& cloud, const Pose& X_WB, const Vec3& p_W, double eps1,
                               SsdfWorkspace& ws, ReferenceFrame frame) {
  check_pose(X_WB, "soft_signed_distance");
  check_point(p_W, "soft_signed_distance");
  const Vec3 q = X_WB.R.transpose() * (p_W - X_WB.p);
  SsdfQuery out;
  Vec3 g;
  smooth::validate_temperature(eps1, "soft_signed_distance: eps1");
  out.phi = kernel_signed_distance(cloud, q, GaussianKernel{eps1}, ws, &g);
  out.J_phi_p = X_WB.R * g;
  out.J_phi_X.head<3>() = g.cross(q).transpose();  // q ← exp(−ξ)·q
  out.J_phi_X.tail<3>() = -g.transpose();
  out.frame = frame;
  express_local_in_frame(out.J_phi_X, frame, X_WB);
  return out;
}

Separation smooth_separation_distance(const OrientedPointCloud& cloud1, const Pose& X_W1,
                                      const OrientedPointCloud& cloud2, const Pose& X_W2, double eps1,
                                      double eps2, SsdfWorkspace& ws, bool with_jacobian, ReferenceFrame frame) {
  smooth::validate_temperature(eps1, "smooth_separation_distance: eps1");
  smooth::validate_temperature(eps2, "smooth_separation_distance: eps2");
  check_pose(X_W1, "smooth_separation_distance");
  check_pose(X_W2, "smooth_separation_distance");
  const int n1 = cloud1.size(), n2 = cloud2.size(), n = n1 + n2;
  if (static_cast<int>(ws.field.size()) < n) {
    ws.field.resize(static_cast<size_t>(n));
    ws.distribution.resize(static_cast<size_t>(n));
  }
  if (with_jacobian && static_cast<int>(ws.scratch.size()) < 12 * n) ws.scratch.resize(static_cast<size_t>(12 * n));
  const Pose X_21 = X_W2.inverse() * X_W1, X_12 = X_21.inverse();
  // Φ12: body-1 points in the SSDF of body 2, then body-2 points in the SSDF of body 1.
  for (int i = 0; i < n1; ++i)
    ws.field[static_cast<size_t>(i)] =
        field_entry(cloud2, X_21, cloud1.points()[static_cast<size_t>(i)], eps1, ws, true,
                    with_jacobian ? ws.scratch.data() + 12 * i : nullptr);
  for (int j = 0; j < n2; ++j)
    ws.field[static_cast<size_t>(n1 + j)] =
        field_entry(cloud1, X_12, cloud2.points()[static_cast<size_t>(j)], eps1, ws, false,
                    with_jacobian ? ws.scratch.data() + 12 * (n1 + j) : nullptr);
  double* W = ws.distribution.data();
  smooth::kernel::softmin<double>(ws.field.data(), n, eps2, W);
  Separation out;
  out.size1 = n1;
  out.size2 = n2;
  for (int f = 0; f < n; ++f) out.distance += W[f] * ws.field[static_cast<size_t>(f)];
  if (with_jacobian) {
    // d(distance) = Σ_f W_f (1 − (Φ_f − distance)/eps2) dΦ_f.
    for (int f = 0; f < n; ++f) {
      if (W[f] == 0.0) continue;
      const double c = W[f] * (eps2 > 0.0 ? 1.0 - (ws.field[static_cast<size_t>(f)] - out.distance) / eps2 : 1.0);
      out.J_distance_X += c * Eigen::Map<const Row12>(ws.scratch.data() + 12 * f);
    }
    auto J1 = out.J_distance_X.leftCols<6>();
    auto J2 = out.J_distance_X.rightCols<6>();
    express_local_in_frame(J1, frame, X_W1);
    express_local_in_frame(J2, frame, X_W2);
  }
  out.frame = frame;
  return out;
}

void collision_points(const OrientedPointCloud& cloud1, const Pose& X_W1, const OrientedPointCloud& cloud2,
                      const Pose& X_W2, double eps1, double eps2, int K, double topk_temperature,
                      SsdfWorkspace& ws, Vec3* points, double* masses, Eigen::Matrix<double, 3, 12>* J_points,
                      ReferenceFrame frame) {
  smooth::validate_temperature(topk_temperature, "collision_points: topk_temperature");
  const int v1 = static_cast<int>(cloud1.vertices().size()), v2 = static_cast<int>(cloud2.vertices().size());
  const int nv = v1 + v2;
  if (K < 1 || K > nv) throw std::invalid_argument("collision_points: K must be in [1, number of vertices]");
  const bool jac = J_points != nullptr;
  const Separation sep = smooth_separation_distance(cloud1, X_W1, cloud2, X_W2, eps1, eps2, ws, jac, ReferenceFrame::local);
  const int n = sep.size1 + sep.size2;
  const size_t need = static_cast<size_t>(nv) * static_cast<size_t>(jac ? 2 * K + 14 : K + 1);
  if (ws.reduction.size() < need) ws.reduction.resize(need);
  double* z = ws.reduction.data();        // nv
  double* G = z + nv;                     // K × nv
  double* dz = G + K * nv;                // nv × 12 (jac)
  double* dzk = dz + 12 * nv;             // nv (jac)
  double* dG = dzk + nv;                  // K × nv (jac)
  const double* W = ws.distribution.data();
  auto vertex_of = [&](int f, int slot) {
    const bool first = f < sep.size1;
    const int k = first ? cloud1.point_vertices()[static_cast<size_t>(f)][static_cast<size_t>(slot)]
                        : cloud2.point_vertices()[static_cast<size_t>(f - sep.size1)][static_cast<size_t>(slot)];
    return k < 0 ? -1 : (first ? k : v1 + k);
  };
  auto vertex_W = [&](int v) {
    return v < v1 ? Vec3(X_W1 * cloud1.vertices()[static_cast<size_t>(v)])
                  : Vec3(X_W2 * cloud2.vertices()[static_cast<size_t>(v - v1)]);
  };
  // Eq. (12): z_v = Σ_f 1_fv σ_f (and its differential through dσ_f).
  for (int v = 0; v < nv; ++v) z[v] = 0.0;
  if (jac)
    for (int k = 0; k < 12 * nv; ++k) dz[k] = 0.0;
  Row12 Dbar = Row12::Zero();
  if (jac)
    for (int f = 0; f < n; ++f) Dbar += W[f] * Eigen::Map<const Row12>(ws.scratch.data() + 12 * f);
  for (int f = 0; f < n; ++f) {
    Row12 dW = Row12::Zero();
    if (jac && eps2 > 0.0 && W[f] != 0.0)  // dσ_f = −(σ_f/eps2)(dΦ_f − Σ_g σ_g dΦ_g)
      dW = -(W[f] / eps2) * (Eigen::Map<const Row12>(ws.scratch.data() + 12 * f) - Dbar);
    for (int slot = 0; slot < 3; ++slot) {
      const int v = vertex_of(f, slot);
      if (v < 0) continue;
      z[v] += W[f];
      if (jac) Eigen::Map<Row12>(dz + 12 * v) += dW;
    }
  }
  // Eq. (13): c_k = Σ_v Γ^K(z)_kv y_v.
  smooth::soft_top_k(z, nv, K, topk_temperature, G);
  for (int k = 0; k < K; ++k) {
    Vec3 c = Vec3::Zero();
    double m = 0.0;
    if (jac) J_points[k].setZero();
    for (int v = 0; v < nv; ++v) {
      const double g = G[static_cast<size_t>(k) * static_cast<size_t>(nv) + static_cast<size_t>(v)];
      if (g == 0.0) continue;
      c += g * vertex_W(v);
      m += g * z[v];
      if (jac) {  // Γ_kv ∂y_v/∂ξ, y_v = X·y: [−R skew(y) | R]
        const bool first = v < v1;
        const Pose& X = first ? X_W1 : X_W2;
        const Vec3& y = first ? cloud1.vertices()[static_cast<size_t>(v)] : cloud2.vertices()[static_cast<size_t>(v - v1)];
        const int col = first ? 0 : 6;
        J_points[k].block<3, 3>(0, col) -= g * X.R * skew(y);
        J_points[k].block<3, 3>(0, col + 3) += g * X.R;
      }
    }
    points[k] = c;
    if (masses) masses[k] = m;
  }
  if (!jac) return;
  // Σ_v dΓ_kv y_v, one direction at a time.
  for (int d = 0; d < 12; ++d) {
    for (int v = 0; v < nv; ++v) dzk[v] = dz[12 * v + d];
    smooth::soft_top_k_jvp(z, nv, K, topk_temperature, G, dzk, dG);
    for (int k = 0; k < K; ++k) {
      Vec3 acc = Vec3::Zero();
      for (int v = 0; v < nv; ++v) {
        const double g = dG[static_cast<size_t>(k) * static_cast<size_t>(nv) + static_cast<size_t>(v)];
        if (g != 0.0) acc += g * vertex_W(v);
      }
      J_points[k].col(d) += acc;
    }
  }
  for (int k = 0; k < K; ++k) {
    auto J1 = J_points[k].leftCols<6>();
    auto J2 = J_points[k].rightCols<6>();
    express_local_in_frame(J1, frame, X_W1);
    express_local_in_frame(J2, frame, X_W2);
  }
}

}  // namespace diffcol::ssdf
