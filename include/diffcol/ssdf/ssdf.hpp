#pragma once
/// @file ssdf.hpp
/// The soft signed distance function (SSDF, seed eq. (9)), its kernel generalization (10), the
/// separation field Φ12 with the separation distribution and the smooth separation distance
/// (Sec. III-B3, eq. (11)), and the reduction to K collision points (12)–(13).
///
/// Temperatures (all ≥ 0; 0 selects the hard, non-smoothed operator, e.g. eq. (6)–(7)):
///  - eps1: SSDF softmax temperature, in length² (it divides the squared distances d_i of eq. (8));
///  - eps2: separation-distribution temperature, in length (it divides SSDF values).
/// Invalid temperatures (negative, NaN, inf) throw std::invalid_argument at the API entry.
///
/// Frames and derivatives: body-frame functions take the query q in the cloud's body frame.
/// Pose derivatives of the world-frame queries are w.r.t. the twists [ω; v] of the poses in the
/// ReferenceFrame passed (math/se3.hpp; default world, as every layer), columns named `J_<out>_X`
/// ([body 1 | body 2] where two poses enter).
///
/// Allocation: the per-query functions take an SsdfWorkspace whose buffers grow to the largest
/// cloud seen and are then reused; after the first call with a given size nothing is allocated.

#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"
#include "diffcol/math/smooth.hpp"
#include "diffcol/ssdf/aopc.hpp"

namespace diffcol::ssdf {

using Row6 = Eigen::Matrix<double, 1, 6>;
using Row12 = Eigen::Matrix<double, 1, 12>;

/// Scratch buffers for SSDF queries (reuse one per thread).
///
/// After smooth_separation_distance / pair queries, `field` holds Φ12 (I1 + I2 entries: first the
/// SSDF of body 2 at the points of body 1, then the SSDF of body 1 at the points of body 2) and
/// `distribution` the separation distribution σ_eps2(−Φ12).
struct SsdfWorkspace {
  std::vector<double> logits;        ///< per-point kernel logits (inner SSDF)
  std::vector<double> weights;       ///< per-point kernel weights (inner SSDF)
  std::vector<double> field;         ///< Φ12
  std::vector<double> distribution;  ///< σ_eps2(−Φ12)
  std::vector<double> scratch;       ///< rows ∂Φ_f/∂[ξ1|ξ2] (12 per entry of Φ12)
  std::vector<double> reduction;     ///< buffers of the reduction, eqs. (12)–(13)
  /// Grows the inner buffers to n entries (allocates only when n exceeds the current size).
  void reserve_inner(int n) {
    if (static_cast<int>(logits.size()) < n) {
      logits.resize(static_cast<size_t>(n));
      weights.resize(static_cast<size_t>(n));
    }
  }
};

/// Isotropic Gaussian kernel B_i(r) = exp(−‖r‖²/eps1): eq. (10) with it is eq. (9).
/// A kernel for eq. (10) provides `logit(i, r, grad)` = x_i with B_i ∝ exp(x_i / temperature()),
/// and (if grad is not null) ∂x_i/∂r; r = q − p_i in the body frame. It may also provide
/// `shifted_logit(i, qc, pc, grad)` = x_i + s(q), with s the same for every i, from qc = q − c and
/// pc = p_i − c (c: the cloud's bounds().center), and its gradient in q: used for queries farther
/// than aopc.hpp's kFarQueryRatio, where x_i itself rounds to the same value for every point.
struct GaussianKernel {
  double eps1 = 0.0;  ///< temperature, length²
  double temperature() const { return eps1; }
  double logit(int /*i*/, const Vec3& r, Vec3* grad) const {
    if (grad) *grad = -2.0 * r;
    return -r.squaredNorm();
  }
  /// x_i + ‖q − c‖² = 2 qcᵀpc − ‖pc‖².
  double shifted_logit(int /*i*/, const Vec3& qc, const Vec3& pc, Vec3* grad) const {
    if (grad) *grad = 2.0 * pc;
    return CloudBounds::far_logit(qc, pc);
  }
};

/// Anisotropic Gaussian kernels B_i(r) = exp(−rᵀA_i r / eps1) (one symmetric positive-definite
/// A_i per point, e.g. a splat). The caller keeps `A` alive and sized to the cloud.
struct AnisotropicGaussianKernel {
  const std::vector<Mat3>* A = nullptr;
  double eps1 = 0.0;
  double temperature() const { return eps1; }
  double logit(int i, const Vec3& r, Vec3* grad) const {
    const Mat3& Ai = (*A)[static_cast<size_t>(i)];
    const Vec3 Ar = Ai * r;
    if (grad) *grad = -(Ar + Ai.transpose() * r);
    return -r.dot(Ar);
  }
  /// x_i + qcᵀS_0 qc = −qcᵀ(S_i − S_0)qc + (2qc − pc)ᵀS_i pc with S_i = (A_i + A_iᵀ)/2: exact when
  /// the A_i are equal, and their genuine O(‖qc‖²) differences otherwise.
  double shifted_logit(int i, const Vec3& qc, const Vec3& pc, Vec3* grad) const {
    const Mat3& Ai = (*A)[static_cast<size_t>(i)];
    const Mat3& A0 = A->front();
    const Mat3 D = 0.5 * ((Ai - A0) + (Ai - A0).transpose());
    const Vec3 Spc = 0.5 * (Ai * pc + Ai.transpose() * pc);
    const Vec3 Dqc = D * qc;
    if (grad) *grad = 2.0 * (Spc - Dqc);
    return -qc.dot(Dqc) + (2.0 * qc - pc).dot(Spc);
  }
};

/// The kernel SSDF, eq. (10): φ(q) = Σ_i B_i s_i / Σ_i B_i with s_i = n_iᵀ(q − p_i), evaluated as a
/// softmax of the kernel logits (overflow-free). Body frame. Unchecked (no temperature
/// validation; a kernel temperature of 0 gives the hard nearest-point SSDF (7)).
/// @param grad if not null, receives ∇_q φ = Σ w_i n_i + Σ w_i (s_i − φ) ∇_q ℓ_i, ℓ_i = x_i/t.
template <class Kernel>
double kernel_signed_distance(const OrientedPointCloud& cloud, const Vec3& q, const Kernel& kernel,
                              SsdfWorkspace& ws, Vec3* grad = nullptr) {
  const int n = cloud.size();
  ws.reserve_inner(n);
  const auto& P = cloud.points();
  const auto& N = cloud.normals();
  double* x = ws.logits.data();
  double* w = ws.weights.data();
  // Far from the cloud: the shifted logits (aopc.hpp's kFarQueryRatio), if the kernel has them.
  constexpr bool kShifts = requires(const Kernel& k, Vec3* g) { k.shifted_logit(0, Vec3(), Vec3(), g); };
  const Vec3& c = cloud.bounds().center;
  const bool far = kShifts && cloud.bounds().far(q);
  const auto logit = [&](int i, Vec3* g) -> double {
    const Vec3& p = P[static_cast<size_t>(i)];
    if constexpr (kShifts)
      if (far) return kernel.shifted_logit(i, q - c, p - c, g);  // x_i + s(q), s the same for all i
    return kernel.logit(i, q - p, g);
  };
  for (int i = 0; i < n; ++i) x[i] = logit(i, nullptr);
  const double t = kernel.temperature();
  smooth::kernel::logsumexp<double>(x, n, t, w);
  double phi = 0.0;
  Vec3 wn = Vec3::Zero();
  for (int i = 0; i < n; ++i) {
    if (w[i] == 0.0) continue;
    phi += w[i] * N[static_cast<size_t>(i)].dot(q - P[static_cast<size_t>(i)]);
    wn += w[i] * N[static_cast<size_t>(i)];
  }
  if (grad) {
    *grad = wn;
    if (t > 0.0) {
      for (int i = 0; i < n; ++i) {
        if (w[i] == 0.0) continue;
        const Vec3 r = q - P[static_cast<size_t>(i)];
        Vec3 dx;  // far: ∇x_i + ∇s, the shift cancels (Σ w_i (s_i − φ) = 0)
        logit(i, &dx);
        *grad += (w[i] * (N[static_cast<size_t>(i)].dot(r) - phi) / t) * dx;
      }
    }
  }
  return phi;
}

/// The SSDF of eq. (9) at a body-frame point q (Gaussian kernel, temperature eps1 in length²).
/// @param grad if not null, receives ∇_q φ (body frame).
/// @throws std::invalid_argument on an invalid eps1 or a query point that is not finite or is
///         beyond kMaxLength (1e100).
double soft_signed_distance(const OrientedPointCloud& cloud, const Vec3& q, double eps1, SsdfWorkspace& ws,
                            Vec3* grad = nullptr);

/// World-frame SSDF query and its derivatives.
struct SsdfQuery {
  double phi = 0.0;                        ///< φ̂_S(p), eq. (9)
  Vec3 J_phi_p = Vec3::Zero();             ///< ∇_p φ, world frame
  Row6 J_phi_X = Row6::Zero();             ///< ∂φ/∂ξ, twist of the cloud's pose X_WB in `frame`
  ReferenceFrame frame = ReferenceFrame::world;
};

/// SSDF (9) of the cloud posed at X_WB, at the world point p_W.
/// @throws std::invalid_argument on an invalid eps1, or a pose / point that is not finite or whose
///         coordinates exceed kMaxLength (1e100).
SsdfQuery soft_signed_distance(const OrientedPointCloud& cloud, const Pose& X_WB, const Vec3& p_W, double eps1,
                               SsdfWorkspace& ws, ReferenceFrame frame = ReferenceFrame::world);

/// Smooth separation between two posed clouds, Sec. III-B3.
struct Separation {
  /// σ_eps2(−Φ12)ᵀΦ12, the smooth approximation of the separation distance ‖d_Φ‖ of eq. (11)
  /// (negative: penetration depth).
  double distance = 0.0;
  Row12 J_distance_X = Row12::Zero();  ///< ∂distance/∂[ξ1 | ξ2] (twists in `frame`)
  ReferenceFrame frame = ReferenceFrame::world;
  int size1 = 0, size2 = 0;            ///< I1, I2 (layout of ws.field / ws.distribution)
};

/// Separation field Φ12 (in ws.field), separation distribution (in ws.distribution) and the
/// smooth separation distance with its pose Jacobian (if with_jacobian).
/// @throws std::invalid_argument on an invalid temperature, or a pose that is not finite or whose
///         translation exceeds kMaxLength (1e100).
Separation smooth_separation_distance(const OrientedPointCloud& cloud1, const Pose& X_W1,
                                      const OrientedPointCloud& cloud2, const Pose& X_W2, double eps1,
                                      double eps2, SsdfWorkspace& ws, bool with_jacobian = true,
                                      ReferenceFrame frame = ReferenceFrame::world);

/// Reduction of the separation distribution to K collision points, eqs. (12)–(13): the masses
/// σ_eps2(−Φ12)_f are transferred to the vertices of each point (z_v = Σ_f 1_fv σ_f, vertices of
/// both clouds jointly indexed, cloud 1 first), and c_k = Σ_v Γ^K(z)_kv y_v with the SoftSort
/// top-K Γ^K (smooth::soft_top_k, temperature topk_temperature in units of z).
/// @param points   K world-frame points, written.
/// @param masses   if not null, K entries receiving the selected masses Γ^K(z)·z.
/// @param J_points if not null, K Jacobians ∂c_k/∂[ξ1 | ξ2] (twists in `frame`). The SoftSort order is
///                 treated as locally constant (smooth::soft_top_k_jvp).
/// Allocates nothing beyond ws.
/// @throws std::invalid_argument on invalid temperatures, K < 1 or K > V1 + V2.
void collision_points(const OrientedPointCloud& cloud1, const Pose& X_W1, const OrientedPointCloud& cloud2,
                      const Pose& X_W2, double eps1, double eps2, int K, double topk_temperature,
                      SsdfWorkspace& ws, Vec3* points, double* masses = nullptr,
                      Eigen::Matrix<double, 3, 12>* J_points = nullptr,
                      ReferenceFrame frame = ReferenceFrame::world);

}  // namespace diffcol::ssdf
