// Euclidean distance of two iDCOL shapes (include/diffcol/idcol/euclidean.hpp): Newton's method on
// the closest-point KKT conditions from iDCOL's witness points.
#include "diffcol/idcol/euclidean.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/LU>

namespace diffcol::idcol {

bool DistanceOptions::is_valid() const noexcept {
  return tolerance >= 1e-14 && tolerance <= 1e-3 && max_iterations >= 1 && max_iterations <= 10000 &&
         contact.is_valid();
}

void DistanceOptions::validate() const {
  if (!(tolerance >= 1e-14 && tolerance <= 1e-3))
    throw std::invalid_argument("DistanceOptions.tolerance must lie in [1e-14, 1e-3], got " + std::to_string(tolerance));
  if (!(max_iterations >= 1 && max_iterations <= 10000))
    throw std::invalid_argument("DistanceOptions.max_iterations must lie in [1, 10000], got " +
                                std::to_string(max_iterations));
  contact.validate();
}

namespace {

using Vec8 = Eigen::Matrix<double, 8, 1>;
using Mat8 = Eigen::Matrix<double, 8, 8>;

/// φ, ∇φ, ∇²φ of a shape placed at (R, t), at the point p (world axes, any origin shared with t).
double eval_placed(const Shape& s, const Mat3& R, const Vec3& t, const Vec3& p, Vec3& g, Mat3& H) {
  Vec3 gb;
  Mat3 Hb;
  const double phi = s.eval(R.transpose() * (p - t), gb, Hb);
  g = R * gb;
  H = R * Hb * R.transpose();
  return phi;
}

struct Kkt {
  Vec8 F;
  double merit = 0.0;  // ‖F‖ with the φ rows divided by ‖∇φ‖
  Vec3 g1, g2;
  Mat3 H1, H2;
};

bool evaluate(const Shape& s1, const Shape& s2, const Mat3& R1, const Mat3& R2, const Vec3& t2, const Vec8& z, Kkt& k) {
  const Vec3 p1 = z.segment<3>(0), p2 = z.segment<3>(3);
  const double phi1 = eval_placed(s1, R1, Vec3::Zero(), p1, k.g1, k.H1);
  const double phi2 = eval_placed(s2, R2, t2, p2, k.g2, k.H2);
  k.F.segment<3>(0) = p1 - p2 + z[6] * k.g1;
  k.F.segment<3>(3) = p2 - p1 + z[7] * k.g2;
  k.F[6] = phi1;
  k.F[7] = phi2;
  const double n1 = k.g1.norm(), n2 = k.g2.norm();
  if (!(n1 > 0.0) || !(n2 > 0.0) || !k.F.allFinite()) return false;
  k.merit = std::sqrt(k.F.head<6>().squaredNorm() + (phi1 / n1) * (phi1 / n1) + (phi2 / n2) * (phi2 / n2));
  return std::isfinite(k.merit);
}

/// Newton projection of p onto the surface φ = 0 along ∇φ.
bool to_surface(const Shape& s, const Mat3& R, const Vec3& t, Vec3& p, double tol) {
  for (int i = 0; i < 30; ++i) {
    Vec3 g;
    Mat3 H;
    const double phi = eval_placed(s, R, t, p, g, H);
    const double gg = g.squaredNorm();
    if (!(gg > 0.0) || !std::isfinite(phi)) return false;
    const Vec3 dp = (phi / gg) * g;
    p -= dp;
    if (dp.norm() <= tol) return true;
  }
  return false;
}

/// Descent on ½‖p1 − p2‖² over the two surfaces (steps in the tangent planes, Newton with the
/// curvature where the Hessian is positive definite, projected back onto the surfaces, backtracking
/// on the distance): the globalization when Newton on the KKT conditions fails from iDCOL's witnesses.
void surface_descent(const Shape& s1, const Shape& s2, const Mat3& R1, const Mat3& R2, const Vec3& t2, Vec3& p1,
                     Vec3& p2, double sigma) {
  const double tol = 1e-15 * sigma;
  if (!to_surface(s1, R1, Vec3::Zero(), p1, tol) || !to_surface(s2, R2, t2, p2, tol)) return;
  double f = 0.5 * (p1 - p2).squaredNorm();
  for (int it = 0; it < 200; ++it) {
    Vec3 g1, g2;
    Mat3 H1, H2;
    eval_placed(s1, R1, Vec3::Zero(), p1, g1, H1);
    eval_placed(s2, R2, t2, p2, g2, H2);
    const Vec3 nu1 = g1.normalized(), nu2 = g2.normalized();
    Eigen::Matrix<double, 3, 2> T1, T2;
    T1.col(0) = nu1.unitOrthogonal();
    T1.col(1) = nu1.cross(T1.col(0));
    T2.col(0) = nu2.unitOrthogonal();
    T2.col(1) = nu2.cross(T2.col(0));
    const Vec3 e = p1 - p2;
    Eigen::Vector4d grad;
    grad.head<2>() = T1.transpose() * e;
    grad.tail<2>() = -(T2.transpose() * e);
    Eigen::Matrix4d H;
    H.topLeftCorner<2, 2>() = Eigen::Matrix2d::Identity() - e.dot(nu1) * (T1.transpose() * H1 * T1) / g1.norm();
    H.bottomRightCorner<2, 2>() = Eigen::Matrix2d::Identity() + e.dot(nu2) * (T2.transpose() * H2 * T2) / g2.norm();
    H.topRightCorner<2, 2>() = -(T1.transpose() * T2);
    H.bottomLeftCorner<2, 2>() = H.topRightCorner<2, 2>().transpose();
    // Levenberg shift until positive definite (far from the optimum the curvature term can be negative)
    Eigen::LDLT<Eigen::Matrix4d> ldlt;
    const double scale = std::max(1.0, H.diagonal().cwiseAbs().maxCoeff());
    for (double lambda = 0.0; lambda < 1e6 * scale; lambda = lambda > 0.0 ? 10.0 * lambda : 1e-6 * scale) {
      ldlt.compute(H + lambda * Eigen::Matrix4d::Identity());
      if (ldlt.info() == Eigen::Success && ldlt.vectorD().minCoeff() > 1e-12 * scale) break;
    }
    const Eigen::Vector4d step = -ldlt.solve(grad);
    if (!step.allFinite()) return;
    double t = 1.0;
    bool moved = false;
    for (int ls = 0; ls < 40 && !moved; ++ls, t *= 0.5) {
      Vec3 q1 = p1 + t * (T1 * step.head<2>()), q2 = p2 + t * (T2 * step.tail<2>());
      if (!to_surface(s1, R1, Vec3::Zero(), q1, tol) || !to_surface(s2, R2, t2, q2, tol)) continue;
      const double fn = 0.5 * (q1 - q2).squaredNorm();
      if (fn < f) {
        p1 = q1;
        p2 = q2;
        f = fn;
        moved = true;
      }
    }
    if (!moved || t * step.norm() <= 1e-9 * sigma) return;  // KKT Newton finishes from here
  }
}

void set_status_only(DistanceResult& out, DistanceStatus st) {
  const Pose X1 = out.X_W1, X2 = out.X_W2;
  out = DistanceResult{};
  out.status = st;
  out.X_W1 = X1;
  out.X_W2 = X2;
}

}  // namespace

void euclidean_distance(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                        const ContactSolution& start, DistanceResult& out, const DistanceOptions& options) {
  out = DistanceResult{};
  if (!options.is_valid() || !X_W1.is_valid() || !X_W2.is_valid()) {
    out.status = DistanceStatus::invalid_input;
    return;
  }
  out.X_W1 = X_W1;
  out.X_W2 = X_W2;
  out.contact_gap = start.gap;
  if (start.status == SolveStatus::coincident_origins ||
      (start.status == SolveStatus::ok && !(start.alpha > 1.0))) {
    out.status = DistanceStatus::touching_or_overlapping;
    out.p1_W = start.p1_W;
    out.p2_W = start.p2_W;
    return;
  }
  if (start.status != SolveStatus::ok) return set_status_only(out, DistanceStatus::not_converged);

  // coordinates about body 1's origin (world axes)
  const Vec3 base = X_W1.p, t2 = X_W2.p - X_W1.p;
  const Mat3 &R1 = X_W1.R, &R2 = X_W2.R;
  const double sigma = shape1.outer_radius() + shape2.outer_radius();
  const double eps = std::numeric_limits<double>::epsilon();
  const double tol = options.tolerance * std::max(sigma, t2.norm()) + 64.0 * eps * (t2.norm() + sigma);
  Vec8 z;
  Kkt k;
  int it = 0;
  // Newton on the KKT conditions from the surface points p1, p2 (μ_i = ‖p2 − p1‖/‖∇φ_i‖)
  const auto newton = [&](const Vec3& q1, const Vec3& q2) {
    z.segment<3>(0) = q1;
    z.segment<3>(3) = q2;
    z[6] = z[7] = 0.0;
    if (!evaluate(shape1, shape2, R1, R2, t2, z, k)) return false;
    const double d0 = (q2 - q1).norm();
    z[6] = d0 / k.g1.norm();
    z[7] = d0 / k.g2.norm();
    if (!evaluate(shape1, shape2, R1, R2, t2, z, k)) return false;
    for (int i = 0; i < options.max_iterations; ++i, ++it) {
      if (k.merit <= tol) break;
      Mat8 K = Mat8::Zero();
      K.block<3, 3>(0, 0) = Mat3::Identity() + z[6] * k.H1;
      K.block<3, 3>(0, 3) = -Mat3::Identity();
      K.block<3, 1>(0, 6) = k.g1;
      K.block<3, 3>(3, 0) = -Mat3::Identity();
      K.block<3, 3>(3, 3) = Mat3::Identity() + z[7] * k.H2;
      K.block<3, 1>(3, 7) = k.g2;
      K.block<1, 3>(6, 0) = k.g1.transpose();
      K.block<1, 3>(7, 3) = k.g2.transpose();
      const Eigen::PartialPivLU<Mat8> lu(K);
      const Vec8 step = -lu.solve(k.F);
      if (!step.allFinite()) break;
      double t = 1.0;
      bool moved = false;
      for (int ls = 0; ls < 40; ++ls, t *= 0.5) {
        const Vec8 zn = z + t * step;
        if (!(zn[6] > 0.0) || !(zn[7] > 0.0)) continue;
        Kkt kn;
        if (!evaluate(shape1, shape2, R1, R2, t2, zn, kn)) continue;
        if (kn.merit < (1.0 - 1e-4 * t) * k.merit || kn.merit <= tol) {
          z = zn;
          k = kn;
          moved = true;
          break;
        }
      }
      if (!moved) break;
    }
    const Vec3 e = z.segment<3>(3) - z.segment<3>(0);
    return k.merit <= tol && z[6] > 0.0 && z[7] > 0.0 && e.dot(k.g1) > 0.0 && e.dot(k.g2) < 0.0 &&
           e.norm() > 1e-12 * sigma;
  };
  const Vec3 s1 = start.p1_W - base, s2 = start.p2_W - base;
  bool converged = newton(s1, s2);
  if (!converged) {  // globalize: descend on the surfaces, then Newton again
    Vec3 q1 = s1, q2 = s2;
    surface_descent(shape1, shape2, R1, R2, t2, q1, q2, sigma);
    converged = newton(q1, q2);
  }
  const Vec3 p1 = z.segment<3>(0), p2 = z.segment<3>(3);
  const double d = (p2 - p1).norm();
  out.iterations = it;
  out.residual_norm = k.merit;
  out.mu1 = z[6];
  out.mu2 = z[7];
  out.p1_W = p1 + base;
  out.p2_W = p2 + base;
  out.distance = d;
  out.grad1 = k.g1;
  out.grad2 = k.g2;
  out.hess1 = k.H1;
  out.hess2 = k.H2;
  // a KKT point of the convex problem with positive multipliers, the normal along ∇φ1 and −∇φ2
  // (checked by newton): the global minimum. α* > 1, so the bodies are apart.
  if (d > 0.0) out.normal_W = (p2 - p1) / d;
  out.status = converged ? DistanceStatus::separated : DistanceStatus::not_converged;
}

DistanceResult euclidean_distance(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                                  const ContactSolution& start, const DistanceOptions& options) {
  DistanceResult out;
  euclidean_distance(shape1, X_W1, shape2, X_W2, start, out, options);
  return out;
}

DistanceResult euclidean_distance(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                                  const DistanceOptions& options) {
  DistanceResult out;
  if (!options.is_valid() || !X_W1.is_valid() || !X_W2.is_valid()) {
    out.status = DistanceStatus::invalid_input;
    return out;
  }
  const ContactSolution start = solve_contact(shape1, X_W1, shape2, X_W2, options.contact);
  euclidean_distance(shape1, X_W1, shape2, X_W2, start, out, options);
  return out;
}

}  // namespace diffcol::idcol
