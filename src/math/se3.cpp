#include "diffcol/math/se3.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace diffcol {

Pose Pose::from_quaternion(const Vec3& position, double qw, double qx, double qy, double qz) {
  if (!position.allFinite()) throw std::invalid_argument("pose: position is not finite");
  if (!(position.cwiseAbs().maxCoeff() <= kMaxLength))
    throw std::invalid_argument("pose: position beyond 1e100 (kMaxLength)");
  if (!std::isfinite(qw) || !std::isfinite(qx) || !std::isfinite(qy) || !std::isfinite(qz))
    throw std::invalid_argument("pose: quaternion is not finite");
  // huge components are scaled down first (their squares would overflow); others are used as
  // given, so that ordinary quaternions give bit-identical rotations
  const double s = std::max({std::abs(qw), std::abs(qx), std::abs(qy), std::abs(qz)});
  if (s > 1e100) qw /= s, qx /= s, qy /= s, qz /= s;
  const double n = std::sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
  if (!(n > 1e-12)) throw std::invalid_argument("pose: quaternion has zero norm");
  Pose g;
  g.R = Eigen::Quaterniond(qw / n, qx / n, qy / n, qz / n).toRotationMatrix();
  g.p = position;
  return g;
}

Mat3 rotation_between(const Vec3& a, const Vec3& b) {
  const double na = a.stableNorm(), nb = b.stableNorm();  // no overflow for huge finite entries
  if (!std::isfinite(na) || !std::isfinite(nb) || !(na > 0.0) || !(nb > 0.0))
    throw std::invalid_argument("rotation_between: the vectors must be finite and nonzero");
  const Vec3 u = a / na, w = b / nb;
  const Vec3 v = u.cross(w);
  const double sv = v.norm();
  // axis v/‖v‖, angle atan2(‖v‖, u·w): R u = w to rounding even for nearly opposite directions
  // (where 1 + u·w, and with it the half-angle quaternion, loses its digits)
  Vec3 k = sv > 0.0 ? Vec3(v / sv) : u.unitOrthogonal();
  k = (k - k.dot(u) * u).normalized();  // exactly ⟂ u: R u has no (1 − cos θ)(k·u)k error term
  return so3_exp(std::atan2(sv, u.dot(w)) * k);
}

namespace {

// The test of invalid_reason in one branch-light pass: a NaN or an infinity anywhere fails one
// of the comparisons (RᵀR's entries, |p_i| <= kMaxLength), so no separate finiteness test.
bool pose_entries_valid(const Mat3& R, const Vec3& p) {
  const double tol = Pose::kRotationTolerance;
  const auto dot = [&](int i, int j) { return R(0, i) * R(0, j) + R(1, i) * R(1, j) + R(2, i) * R(2, j); };
  const double e0 = std::abs(dot(0, 0) - 1.0), e1 = std::abs(dot(1, 1) - 1.0), e2 = std::abs(dot(2, 2) - 1.0);
  const double e3 = std::abs(dot(0, 1)), e4 = std::abs(dot(0, 2)), e5 = std::abs(dot(1, 2));
  const double det = R(0, 0) * (R(1, 1) * R(2, 2) - R(2, 1) * R(1, 2)) -
                     R(1, 0) * (R(0, 1) * R(2, 2) - R(2, 1) * R(0, 2)) +
                     R(2, 0) * (R(0, 1) * R(1, 2) - R(1, 1) * R(0, 2));
  const double L = kMaxLength;
  return (e0 <= tol) & (e1 <= tol) & (e2 <= tol) & (e3 <= tol) & (e4 <= tol) & (e5 <= tol) & (det > 0.0) &
         (std::abs(p.x()) <= L) & (std::abs(p.y()) <= L) & (std::abs(p.z()) <= L);
}

}  // namespace

const char* Pose::invalid_reason() const noexcept {
  if (pose_entries_valid(R, p)) return nullptr;
  if (!R.allFinite() || !p.allFinite()) return "rotation or position is not finite";
  if (!(p.cwiseAbs().maxCoeff() <= kMaxLength)) return "position beyond 1e100 (kMaxLength)";
  return "matrix is not a rotation (R^T R != I or det R < 0)";  // what remains once both pass
}

Pose Pose::from_rotation(const Mat3& R, const Vec3& position) {
  Pose g;
  g.R = R;
  g.p = position;
  if (const char* why = g.invalid_reason()) throw std::invalid_argument(std::string("pose: ") + why);
  return g;
}

Mat3 so3_exp(const Vec3& w) {
  const double th2 = w.squaredNorm();
  if (!std::isfinite(th2)) throw std::invalid_argument("so3_exp: w is not finite or |w|^2 overflows");
  const Mat3 W = skew(w);
  double A, B;  // sin(th)/th, (1 - cos th)/th^2
  if (th2 < 1e-8) {
    A = 1.0 - th2 / 6.0;
    B = 0.5 - th2 / 24.0;
  } else {
    const double th = std::sqrt(th2);
    A = std::sin(th) / th;
    B = (1.0 - std::cos(th)) / th2;
  }
  return Mat3::Identity() + A * W + B * W * W;
}

Vec3 so3_log(const Mat3& R) {
  if (!R.allFinite()) throw std::invalid_argument("so3_log: R is not finite");
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

Pose se3_exp(const Vec6& xi) {
  if (!xi.allFinite()) throw std::invalid_argument("se3_exp: xi is not finite");
  const Vec3 w = xi.head<3>();
  const Vec3 v = xi.tail<3>();
  const double th2 = w.squaredNorm();
  const Mat3 W = skew(w);
  double B, C;  // (1 - cos th)/th^2, (th - sin th)/th^3
  if (th2 < 1e-8) {
    B = 0.5 - th2 / 24.0;
    C = 1.0 / 6.0 - th2 / 120.0;
  } else {
    const double th = std::sqrt(th2);
    B = (1.0 - std::cos(th)) / th2;
    C = (th - std::sin(th)) / (th2 * th);
  }
  Pose g;
  g.R = so3_exp(w);
  g.p = (Mat3::Identity() + B * W + C * W * W) * v;
  if (!g.p.allFinite()) throw std::invalid_argument("se3_exp: the result overflows (|xi| too large)");
  return g;
}

Vec6 se3_log(const Pose& g) {
  if (!g.is_finite()) throw std::invalid_argument("se3_log: pose is not finite");
  const Vec3 w = so3_log(g.R);
  const double th2 = w.squaredNorm();
  const Mat3 W = skew(w);
  double D;  // coefficient of W^2 in V^{-1}
  if (th2 < 1e-3) {  // series: the closed form cancels badly for small angles
    D = 1.0 / 12.0 + th2 / 720.0 + th2 * th2 / 30240.0;
  } else {
    const double th = std::sqrt(th2);
    D = (1.0 - th * std::sin(th) / (2.0 * (1.0 - std::cos(th)))) / th2;
  }
  Vec6 xi;
  xi.head<3>() = w;
  xi.tail<3>() = (Mat3::Identity() - 0.5 * W + D * W * W) * g.p;
  if (!xi.allFinite()) throw std::invalid_argument("se3_log: the result overflows (|p| too large)");
  return xi;
}

Mat6 adjoint(const Pose& g) {
  Mat6 A = Mat6::Zero();
  A.topLeftCorner<3, 3>() = g.R;
  A.bottomRightCorner<3, 3>() = g.R;
  A.bottomLeftCorner<3, 3>() = skew(g.p) * g.R;
  if (!A.allFinite()) throw std::invalid_argument("adjoint: pose is not finite or p x R overflows");
  return A;
}

const char* reference_frame_name(ReferenceFrame frame) {
  switch (frame) {
    case ReferenceFrame::world: return "world";
    case ReferenceFrame::local: return "local";
    case ReferenceFrame::local_world_aligned: return "local_world_aligned";
  }
  return "unknown";
}

Mat6 world_twist_from_frame(ReferenceFrame frame, const Pose& X_WB) {
  Mat6 M = Mat6::Identity();
  if (frame == ReferenceFrame::world) return M;
  if (!X_WB.is_finite()) throw std::invalid_argument("world_twist_from_frame: X_WB is not finite");
  if (frame == ReferenceFrame::local) return adjoint(X_WB);
  if (frame != ReferenceFrame::local_world_aligned)
    throw std::invalid_argument("world_twist_from_frame: unknown ReferenceFrame");
  M.bottomLeftCorner<3, 3>() = skew(X_WB.p);
  return M;
}

}  // namespace diffcol
