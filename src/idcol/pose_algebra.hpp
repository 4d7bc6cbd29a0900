#pragma once
// Small SE(3) helpers shared by the first- and second-order derivatives (derivatives.cpp,
// hessians.cpp). Always inlined: those files are compiled as target clones, whose AVX2 copies
// must not call baseline helpers (src/util/target_clones.hpp).
#include "diffcol/math/se3.hpp"

namespace diffcol::idcol::detail {

// a × b with scalar arithmetic (Eigen's generic cross product is not inlined well here).
[[gnu::always_inline]] inline Vec3 cross(const Vec3& a, const Vec3& b) {
  return Vec3(a.y() * b.z() - a.z() * b.y(), a.z() * b.x() - a.x() * b.z(), a.x() * b.y() - a.y() * b.x());
}

// Ad_{X⁻¹} for X = (Q, t): [[Qᵀ, 0], [−Qᵀ t̃, Qᵀ]].
[[gnu::always_inline]] inline Mat6 adjoint_inverse(const Pose& X) {
  Mat6 A;
  const Mat3 Qt = X.R.transpose();
  A.topLeftCorner<3, 3>() = Qt;
  A.topRightCorner<3, 3>().setZero();
  A.bottomLeftCorner<3, 3>() = -Qt * skew(X.p);
  A.bottomRightCorner<3, 3>() = Qt;
  return A;
}

}  // namespace diffcol::idcol::detail
