#pragma once
/// @file smooth_polytope.hpp
/// Smooth polytope, seed eq. (13)–(14) and (A1)–(A6):
///   φ(y) = smax_β{(a_iᵀy − b_i)/L},  smax_β(c) = (1/β) log Σ exp(β c_i).
/// The exact polytope {A y ≤ b} must be bounded and contain the origin strictly (b > 0).
/// The smooth shape lies inside the exact polytope and converges to it as β → ∞.

#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/hd.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol {

namespace detail {

/// φ, ∇φ, ∇²φ (A1)–(A6) from the sums of one evaluation, s = (Σw, Σw a (x, y, z), Σw a aᵀ (xx, xy,
/// xz, yy, yz, zz)) with w = exp(β(c − max c)) and cmax = max c: the last step of
/// smooth_planes_eval and of its vectorized form.
DIFFCOL_HD inline double smooth_planes_finish(double cmax, const double* s, double beta, Vec3& grad, Mat3& hess) {
  const double inv = 1.0 / s[0];
  grad = Vec3(s[1], s[2], s[3]) * inv;
  const double k = beta * inv;
  hess(0, 0) = k * s[4] - beta * grad.x() * grad.x();
  hess(1, 1) = k * s[7] - beta * grad.y() * grad.y();
  hess(2, 2) = k * s[9] - beta * grad.z() * grad.z();
  hess(0, 1) = hess(1, 0) = k * s[5] - beta * grad.x() * grad.y();
  hess(0, 2) = hess(2, 0) = k * s[6] - beta * grad.x() * grad.z();
  hess(1, 2) = hess(2, 1) = k * s[8] - beta * grad.y() * grad.z();
  return cmax + std::log(s[0]) / beta;
}

/// φ, ∇φ, ∇²φ of the smooth polytope (A1)–(A6) at sharpness β, from its face data a_i/L by
/// component (ax, ay, az) and b_i/L (b), m faces: SmoothPolytope::eval_at_beta, and the GPU's copy
/// of a polytope (cuda/).
DIFFCOL_HD inline double smooth_planes_eval(const double* ax, const double* ay, const double* az, const double* b,
                                            int m, const Vec3& y, Vec3& grad, Mat3& hess, double beta) {
  // c_i = (a_iᵀy − b_i)/L (A5), kept on the stack for up to kStack faces
  constexpr int kStack = 64;
  double cbuf[kStack];
  double cmax = -1e300;
  for (int i = 0; i < m; ++i) {
    const double c = ax[i] * y.x() + ay[i] * y.y() + az[i] * y.z() - b[i];
    if (i < kStack) cbuf[i] = c;
    cmax = c > cmax ? c : cmax;
  }
  // (A1)-(A4); faces with β(c_i − max c) < −40 weigh < 5e-18 and are skipped
  const double cut = cmax - 40.0 / beta;
  double sw = 0.0, gx = 0.0, gy = 0.0, gz = 0.0;
  double mxx = 0.0, mxy = 0.0, mxz = 0.0, myy = 0.0, myz = 0.0, mzz = 0.0;
  for (int i = 0; i < m; ++i) {
    const double c = i < kStack ? cbuf[i] : ax[i] * y.x() + ay[i] * y.y() + az[i] * y.z() - b[i];
    if (c < cut) continue;
    const double w = std::exp(beta * (c - cmax));
    const double wx = w * ax[i], wy = w * ay[i], wz = w * az[i];
    sw += w;
    gx += wx;
    gy += wy;
    gz += wz;
    mxx += wx * ax[i];
    mxy += wx * ay[i];
    mxz += wx * az[i];
    myy += wy * ay[i];
    myz += wy * az[i];
    mzz += wz * az[i];
  }
  const double sums[10] = {sw, gx, gy, gz, mxx, mxy, mxz, myy, myz, mzz};
  return smooth_planes_finish(cmax, sums, beta, grad, hess);
}

/// The same evaluation with the faces in vector lanes (4 with AVX2/FMA, 8 with AVX-512, picked at
/// run time; src/shapes/smooth_planes_vector.cpp): equal to smooth_planes_eval up to rounding.
/// Falls back to smooth_planes_eval on other CPUs and for non-finite y. SmoothPolytope::eval uses it.
double smooth_planes_eval_vectorized(const double* ax, const double* ay, const double* az, const double* b, int m,
                                     const Vec3& y, Vec3& grad, Mat3& hess, double beta);
/// Lanes per vector that smooth_planes_eval_vectorized uses: 8, 4, or 1 (the scalar code). The
/// environment variable DIFFCOL_PLANES_WIDTH = 1 or 4 caps it at start-up.
int smooth_planes_width();
/// Caps the width at 1, 4 or 8 (the widest the CPU has, at most); returns the width now in use.
/// For comparisons and tests; not synchronized with evaluations running in other threads.
int set_smooth_planes_width(int width);

/// Distance from the origin to the exact polytope's boundary along the unit direction u (face data
/// as smooth_planes_eval).
DIFFCOL_HD inline double planes_ray_extent(const double* ax, const double* ay, const double* az, const double* b,
                                           int m, const Vec3& u) {
  double t = 1e300;
  for (int i = 0; i < m; ++i) {
    const double au = ax[i] * u.x() + ay[i] * u.y() + az[i] * u.z();
    if (au > 0.0) t = std::min(t, b[i] / au);
  }
  return t;
}

}  // namespace detail

class SmoothPolytope {
 public:
  /// The most half-spaces a smooth polytope may have. Every evaluation sums over all of them
  /// (measured per face: 1.3 ns with AVX-512, 2.5 ns with AVX2, 9 ns in the scalar code), so a
  /// cold contact solve of a 4096-face hull against an ellipsoid takes 36 µs (AVX-512; 218 µs
  /// scalar). The construction finds the exact polytope's vertices by brute force up to 64 faces
  /// and from the hull of the polar points a_i/b_i above (Qhull, milliseconds; there a polytope
  /// more elongated than about 1e9 : 1 is rejected as unbounded).
  static constexpr int kMaxFaces = 4096;

  /// @param A m×3 matrix of outward half-space normals (rows need not be unit), 4 ≤ m ≤ kMaxFaces.
  /// @param b m offsets; every b_i > 0 (origin strictly inside).
  /// @param beta sharpness β > 0.  @param length characteristic length L > 0.
  /// @throws std::invalid_argument for m < 4 or m > kMaxFaces, non-finite data, b_i ≤ 0, a zero
  ///         row, an unbounded polytope, a vertex beyond kMaxLength, an inner radius below
  ///         kMinLength (1e-100), β ≤ 0, L outside [kMinLength, kMaxLength], or an origin
  ///         outside the smooth shape; std::runtime_error if the vertex enumeration (above 64
  ///         faces) fails on near-degenerate half-spaces.
  SmoothPolytope(const Eigen::MatrixX3d& A, const Eigen::VectorXd& b, double beta, double length = 1.0);

  /// Axis-aligned box with half-extents hx, hy, hz about the origin.
  static SmoothPolytope box(double hx, double hy, double hz, double beta, double length = 1.0);
  /// Convex hull of a point set by Qhull (O(n log n); coplanar facets are merged into one
  /// half-space: a cube's corners give 6 faces). The origin must lie strictly inside the hull.
  /// @throws std::invalid_argument for fewer than 4 points, a non-finite point, collinear or
  /// coplanar points or a hull of more than kMaxFaces faces; std::runtime_error if Qhull fails
  /// otherwise.
  static SmoothPolytope convex_hull(const std::vector<Vec3>& points, double beta, double length = 1.0);

  int num_faces() const { return static_cast<int>(offsets_.size()); }
  double beta() const { return beta_; }
  double length() const { return L_; }
  /// Row i of A and b_i, exactly as given (a copy built from them is bit for bit the same).
  Vec3 normal(int i) const { return A_.row(i).transpose(); }
  double offset(int i) const { return b_[i]; }
  /// The face data as the evaluation reads it: a_i/L by component and b_i/L, m faces (for copies
  /// of the shape, e.g. on a GPU: detail::smooth_planes_eval).
  struct FaceData {
    const double *ax, *ay, *az, *b;
    int m;
  };
  FaceData face_data() const { return {ax_.data(), ay_.data(), az_.data(), offsets_.data(), num_faces()}; }
  /// Vertices of the exact polytope {A y ≤ b}.
  const std::vector<Vec3>& vertices() const { return vertices_; }

  double eval(const Vec3& y, Vec3& grad, Mat3& hess) const { return eval_at_beta(y, grad, hess, beta_); }
  /// The same shape family at another sharpness β (used by the solver's continuation).
  double eval_at_beta(const Vec3& y, Vec3& grad, Mat3& hess, double beta) const {
    return detail::smooth_planes_eval_vectorized(ax_.data(), ay_.data(), az_.data(), offsets_.data(), num_faces(), y,
                                                 grad, hess, beta);
  }
  double value(const Vec3& y) const;

  /// Distance from the origin to the exact polytope's boundary along the unit direction u.
  double ray_extent(const Vec3& u) const {
    return detail::planes_ray_extent(ax_.data(), ay_.data(), az_.data(), offsets_.data(), num_faces(), u);
  }
  /// min_i (b_i − L log(m)/β)/‖a_i‖: a true inner bound of the smooth shape.
  double inner_radius() const { return inner_; }
  /// Largest vertex norm of the exact polytope: a true outer bound of the smooth shape.
  double outer_radius() const { return outer_; }

 private:
  std::vector<double> ax_, ay_, az_;  // a_i / L, by component
  std::vector<double> offsets_;       // b_i / L
  Eigen::MatrixX3d A_;                // as given
  Eigen::VectorXd b_;
  std::vector<Vec3> vertices_;
  double beta_, L_;
  double inner_, outer_;
};

}  // namespace diffcol
