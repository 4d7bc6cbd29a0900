#pragma once
/// @file se3.hpp
/// Rigid-body poses, the skew operator and the SE(3) exponential / logarithm.
///
/// Twists (used everywhere in diffcol) are 6-vectors ordered [ω; v] (angular first, as in the
/// iDCOL seed's eq. (24)), in one of the three frames of ReferenceFrame (docs/conventions.md).

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

/// The frame of a twist, and so of the 6 columns of a pose Jacobian (the names are Pinocchio's;
/// ordering [ω; v] throughout). For a body with pose X_WB = (R, p):
///  - world: the spatial twist η, X_WB ← exp(η^)·X_WB; ω in world axes, v the velocity of the
///    point of the body at the world origin.
///  - local: the body twist ζ, X_WB ← X_WB·exp(ζ^); ω and v in the body's axes, v the velocity of
///    the body origin.
///  - local_world_aligned: [ω; ṗ] with ω in world axes and ṗ the velocity of the body origin in
///    world axes (MuJoCo's mj_jac, Pinocchio's LOCAL_WORLD_ALIGNED up to the order of ω and v).
/// η = M·τ for a twist τ in `frame`, with M = I (world), Ad_{X_WB} (local) and
/// [[I, 0], [p^, I]] (local_world_aligned): world_twist_from_frame().
enum class ReferenceFrame : std::uint8_t {
  world = 0,
  local = 1,
  local_world_aligned = 2,
};
/// "world", "local", "local_world_aligned".
const char* reference_frame_name(ReferenceFrame frame);

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

/// M with η = M·τ: the world twist of a body at X_WB from its twist τ in `frame` (see
/// ReferenceFrame). A Jacobian J with world-twist columns has columns in `frame` J·M.
/// @throws std::invalid_argument on a non-finite X_WB (any frame but world).
Mat6 world_twist_from_frame(ReferenceFrame frame, const Pose& X_WB);

/// Re-expresses the 6 columns of J (rows: any outputs; columns: the world twist of a body at X_WB)
/// in `frame`, in place: J ← J·world_twist_from_frame(frame, X_WB). No allocation for fixed-size J.
template <class Derived>
void express_in_frame(Eigen::MatrixBase<Derived>& J, ReferenceFrame frame, const Pose& X_WB) {
  static_assert(Derived::ColsAtCompileTime == 6 || Derived::ColsAtCompileTime == Eigen::Dynamic);
  if (frame == ReferenceFrame::world) return;
  const Mat3 P = skew(X_WB.p);
  for (Eigen::Index i = 0; i < J.rows(); ++i) {
    const Eigen::Matrix<double, 1, 3> jw = J.row(i).template head<3>(), jv = J.row(i).template tail<3>();
    if (frame == ReferenceFrame::local) {  // J·Ad: [jw·R + jv·p^·R, jv·R]
      J.row(i).template head<3>() = (jw + jv * P) * X_WB.R;
      J.row(i).template tail<3>() = jv * X_WB.R;
    } else {  // J·[[I, 0], [p^, I]]
      J.row(i).template head<3>() = jw + jv * P;
    }
  }
}

/// The same for a J whose columns are the body's local twist (body twist): J ← J·M_local⁻¹·M with
/// M = world_twist_from_frame(frame, X_WB). No allocation for fixed-size J.
template <class Derived>
void express_local_in_frame(Eigen::MatrixBase<Derived>& J, ReferenceFrame frame, const Pose& X_WB) {
  static_assert(Derived::ColsAtCompileTime == 6 || Derived::ColsAtCompileTime == Eigen::Dynamic);
  if (frame == ReferenceFrame::local) return;
  const Mat3 Rt = X_WB.R.transpose();
  const Mat3 P = skew(X_WB.p);
  for (Eigen::Index i = 0; i < J.rows(); ++i) {
    const Eigen::Matrix<double, 1, 3> jw = J.row(i).template head<3>() * Rt, jv = J.row(i).template tail<3>() * Rt;
    // world: J·Ad⁻¹ = [jw·Rᵀ − jv·Rᵀ·p^, jv·Rᵀ]; local_world_aligned: [jw·Rᵀ, jv·Rᵀ]
    J.row(i).template head<3>() = frame == ReferenceFrame::world ? Eigen::Matrix<double, 1, 3>(jw - jv * P) : jw;
    J.row(i).template tail<3>() = jv;
  }
}

}  // namespace diffcol
