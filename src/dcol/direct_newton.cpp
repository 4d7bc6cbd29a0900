// The closed-form start of two strictly convex DCOL primitives (sphere, ellipsoid), polished by
// Newton's method on the exact KKT conditions (see cone_program.hpp).
#include <cmath>

#include <Eigen/LU>

#include "cone_program.hpp"

namespace diffcol::dcol::detail {

bool direct_newton(ConeKkt& k, const SolveOptions& opt, const Vec3& c1, const Vec3& c2, bool two_spheres,
                   IpmOutcome& out) {
  if (k.soc_count != 2 || orthant_count(k) != 0 || k.n != 4 || k.soc_dim[0] != 4 || k.soc_dim[1] != 4) return false;
  const Vec3 r12 = c2 - c1;
  const double D = r12.norm();
  if (!(D > 0.0) || !std::isfinite(D)) return false;
  const Vec3 u = r12 / D;
  double nu[2], mnorm[2];
  double a0;
  Vec3 p0;
  if (two_spheres) {  // radii ρ_k/(ℓ‖Ḡ_k u‖)
    double e[2];
    for (int c = 0; c < 2; ++c) {
      const int s0 = k.soc_start[c];
      Vec3 gu;
      for (int r = 0; r < 3; ++r)
        gu[r] = k.G[s0 + 1 + r][0] * u.x() + k.G[s0 + 1 + r][1] * u.y() + k.G[s0 + 1 + r][2] * u.z();
      e[c] = -k.G[s0][3] / gu.norm();
    }
    if (!(e[0] > 0.0) || !(e[1] > 0.0) || !std::isfinite(e[0] + e[1])) return false;
    a0 = D / (e[0] + e[1]);
    p0 = c1 + (a0 * e[0]) * u;
  } else {
    Mat3 Q[2];
    for (int c = 0; c < 2; ++c) {
      const int s0 = k.soc_start[c];
      const double scale = 1.0 / -k.G[s0][3];  // ℓ/ρ_k
      Mat3 A;
      for (int r = 0; r < 3; ++r)
        for (int j = 0; j < 3; ++j) A(r, j) = -k.G[s0 + 1 + r][j] * scale;
      bool invertible = false;
      double det = 0.0;
      (A.transpose() * A).eval().computeInverseAndDetWithCheck(Q[c], det, invertible, 0.0);
      if (!invertible || !(det > 0.0) || !Q[c].allFinite()) return false;
    }
    const double t = std::sqrt(u.dot(Q[1] * u) / u.dot(Q[0] * u));
    const Vec3 dq = ((1.0 + 1.0 / t) * Q[0] + (1.0 + t) * Q[1]).inverse() * u;
    if (!dq.allFinite() || !(dq.norm() > 0.0)) return false;
    const Vec3 d = dq.normalized();
    const Vec3 q1 = Q[0] * d, q2 = Q[1] * d;
    const Vec3 y1 = q1 / std::sqrt(d.dot(q1)), y2 = -q2 / std::sqrt(d.dot(q2));  // σ₁(d), σ₂(−d)
    const double reach = u.dot(y1 - y2);
    if (!(reach > 0.0) || !std::isfinite(reach)) return false;
    a0 = D / reach;
    p0 = c1 + a0 * y1;
  }
  double x0[kMaxConeVars] = {};
  x0[0] = p0.x();
  x0[1] = p0.y();
  x0[2] = p0.z();
  x0[3] = a0;
  double denom = 0.0;
  for (int c = 0; c < 2; ++c) {
    const int s0 = k.soc_start[c];
    double sv[3];
    for (int r = 0; r < 3; ++r) {
      const double* g = k.G[s0 + 1 + r];
      sv[r] = k.h[s0 + 1 + r] - (g[0] * x0[0] + g[1] * x0[1] + g[2] * x0[2] + g[3] * x0[3]);
    }
    const double sn = std::sqrt(sv[0] * sv[0] + sv[1] * sv[1] + sv[2] * sv[2]);
    if (!(sn > 0.0)) return false;
    Vec3 m = Vec3::Zero();  // Ḡ_pᵀ ū
    for (int r = 0; r < 3; ++r)
      for (int j = 0; j < 3; ++j) m[j] += k.G[s0 + 1 + r][j] * sv[r] / sn;
    mnorm[c] = m.norm();
    if (!(mnorm[c] > 0.0)) return false;
    denom += -k.G[s0][3] / mnorm[c];
  }
  for (int c = 0; c < 2; ++c) nu[c] = 1.0 / (denom * mnorm[c]);
  double hnorm = 0.0;
  for (int i = 0; i < k.m; ++i) hnorm += k.h[i] * k.h[i];
  hnorm = std::max(1.0, std::sqrt(hnorm));
  ActiveSet A;
  A.na = 0;
  A.p = 2;
  A.state[0] = A.state[1] = 1;
  A.yoff[0] = 0;
  A.yoff[1] = 1;
  A.y[0] = nu[0];
  A.y[1] = nu[1];
  out = {SolveStatus::ok, 0, 0.0, 0.0, 0.0};
  if (!polish_newton<4>(k, opt, hnorm, out, A, x0)) return false;
  k.factored = false;
  return true;
}

}  // namespace diffcol::dcol::detail
