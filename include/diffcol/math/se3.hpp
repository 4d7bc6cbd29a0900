#pragma once
/// @file se3.hpp
/// Rigid-body poses, the skew operator and the SE(3) exponential / logarithm.
///
/// Twist convention (used everywhere in diffcol): a twist is a 6-vector ordered
/// [ω; v] (angular first, as in the iDCOL seed's eq. (24)). A *body* twist ξ
/// perturbs a pose on the right, g ← g·exp(ξ^); a *world* (spatial) twist
/// perturbs it on the left, g ← exp(ξ^)·g.

#include <cstdint>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace diffcol {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

/// The largest length diffcol accepts (shape sizes, polytope extents; in any unit): 1e100.
/// Products of two lengths stay below 1e200, so squared distances and the like cannot overflow
/// on accepted input. Constructors reject larger sizes; larger coordinates get a status or an
/// error where a function documents it.
inline constexpr double kMaxLength = 1e100;
/// The smallest shape size diffcol accepts (semi-axes, radii, extents, a polytope's inner radius;
/// in any unit): 1e-100. Products of three lengths stay above 1e-300, clear of underflow, so the
/// shapes' gradients and the contact solve stay finite; constructors reject smaller sizes.
inline constexpr double kMinLength = 1e-100;

/// Which twist a velocity or a Jacobian column refers to (see the file comment).
enum class TwistConvention : std::uint8_t {
  world = 0,  ///< world (spatial) twist η: X_WB ← exp(η^)·X_WB (e.g. a "space Jacobian")
  body = 1,   ///< body twist ζ: X_WB ← X_WB·exp(ζ^) (e.g. a "body Jacobian")
};

/// A rigid transform X_AB mapping coordinates in frame B to frame A:
/// p_A = R · p_B + p.
struct Pose {
  Mat3 R = Mat3::Identity();  ///< rotation, orthonormal with det +1
  Vec3 p = Vec3::Zero();      ///< translation (origin of B measured in A)

  static Pose identity() { return Pose{}; }

  /// Builds a pose from a position and a quaternion (w, x, y, z). The quaternion
  /// is normalized. @throws std::invalid_argument on a zero or non-finite quaternion
  /// or a non-finite position, or one beyond kMaxLength.
  static Pose from_quaternion(const Vec3& position, double qw, double qx, double qy,
                              double qz);

  /// Builds a pose from a rotation matrix and a position.
  /// @throws std::invalid_argument if R is not a rotation (to 1e-6), any entry is not finite or
  /// the position is beyond kMaxLength.
  static Pose from_rotation(const Mat3& R, const Vec3& position);

  /// The unit quaternion of R, with w ≥ 0 (R must be finite: not checked, NaN otherwise).
  Eigen::Quaterniond quaternion() const {
    Eigen::Quaterniond q = Eigen::Quaterniond(R).normalized();
    if (q.w() < 0.0) q.coeffs() = -q.coeffs();
    return q;
  }

  Pose inverse() const {
    Pose out;
    out.R = R.transpose();
    out.p = -(out.R * p);
    return out;
  }
  Pose operator*(const Pose& o) const {
    Pose out;
    out.R = R * o.R;
    out.p = R * o.p + p;
    return out;
  }
  /// Transforms a point.
  Vec3 operator*(const Vec3& x) const { return R * x + p; }

  /// True when every entry is finite.
  bool is_finite() const { return R.allFinite() && p.allFinite(); }

  /// Tolerance of the rotation test of invalid_reason: max |RᵀR − I| (entrywise).
  static constexpr double kRotationTolerance = 1e-6;
  /// Why this is not a valid pose, or nullptr if it is: an entry not finite, R not a rotation
  /// (max |RᵀR − I| > kRotationTolerance or det R < 0), or a translation entry beyond kMaxLength.
  /// diffcol's entry points check every pose they are given with it (a C++ caller may fill the
  /// aggregate with anything; from_quaternion and from_rotation only build valid poses).
  const char* invalid_reason() const noexcept;
  bool is_valid() const noexcept { return invalid_reason() == nullptr; }
};

/// The skew-symmetric matrix of v: skew(v)·u = v × u.
inline Mat3 skew(const Vec3& v) {
  Mat3 S;
  S << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
  return S;
}

// The maps below throw std::invalid_argument on a non-finite input and on a result that would
// overflow (e.g. ‖ω‖ beyond ~1e154, whose square is not finite), instead of returning NaN.

/// The rotation by the smallest angle taking the direction of a to the direction of b (about
/// a × b); for opposite directions, a half-turn about a.unitOrthogonal(). a and b need not be
/// unit vectors. Throws std::invalid_argument if either is zero or not finite.
Mat3 rotation_between(const Vec3& a, const Vec3& b);
/// Rodrigues' formula, exp: so(3) → SO(3).
Mat3 so3_exp(const Vec3& w);
/// Inverse of so3_exp, with ‖result‖ ≤ π.
Vec3 so3_log(const Mat3& R);
/// exp: se(3) → SE(3) for a twist ξ = [ω; v].
Pose se3_exp(const Vec6& xi);
/// Inverse of se3_exp.
Vec6 se3_log(const Pose& g);
/// The adjoint Ad_g for twists ordered [ω; v]: a body twist ξ of g is the world twist Ad_g ξ.
Mat6 adjoint(const Pose& g);

}  // namespace diffcol
