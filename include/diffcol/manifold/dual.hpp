#pragma once
/// @file dual.hpp
/// Forward-mode dual numbers and a tiny 3-vector for scalar-generic geometry code.
///
/// The contact routines (sdf.hpp, edge_edge.hpp, vertex_face.hpp) are templates over a scalar T:
/// T = double evaluates them; T = Dual<N> carries N directional derivatives alongside, which is
/// how their exact Jacobians are obtained (w.r.t. segment end points now, w.r.t. poses later).
/// Branch decisions use value_of(T). Everything is fixed-size: no allocation.

#include <cmath>

#include <Eigen/Core>

namespace diffcol::manifold {

/// The plain value of a scalar (identity for double).
inline double value_of(double x) { return x; }

/// A value with N partial derivatives: v + Σ d_k ε_k.
/// Forces inlining of the small Dual / V3 operators (GCC otherwise outlines the 6- and 12-wide
/// ones, which dominated the derivative pass).
#define DIFFCOL_DUAL_INLINE [[gnu::always_inline]] inline

template <int N>
struct Dual {
  using Grad = Eigen::Matrix<double, N, 1>;
  double v = 0.0;                ///< value
  Grad d = Grad::Zero();         ///< partial derivatives

  Dual() = default;
  Dual(double value) : v(value), d(Grad::Zero()) {}  // NOLINT: implicit from constants
  Dual(double value, const Grad& grad) : v(value), d(grad) {}
  /// Tag: leave the derivative uninitialized (the caller fills every entry).
  struct NoInit {};
  Dual(double value, NoInit) : v(value) {}

  /// The k-th independent variable with value `value`.
  static Dual variable(double value, int k) {
    Dual x(value);
    x.d[k] = 1.0;
    return x;
  }
};

template <int N> inline double value_of(const Dual<N>& x) { return x.v; }

namespace dual_detail {
/// r.d = α a.d (+ β b.d), written as plain loops over the fixed N (GCC inlines and vectorizes
/// these; Eigen's expression templates for 6- and 12-vectors were left as outlined calls).
template <int N>
DIFFCOL_DUAL_INLINE Dual<N> scaled(double v, double alpha, const Dual<N>& a) {
  Dual<N> r(v, typename Dual<N>::NoInit{});
  for (int i = 0; i < N; ++i) r.d[i] = alpha * a.d[i];
  return r;
}
template <int N>
DIFFCOL_DUAL_INLINE Dual<N> combined(double v, double alpha, const Dual<N>& a, double beta, const Dual<N>& b) {
  Dual<N> r(v, typename Dual<N>::NoInit{});
  for (int i = 0; i < N; ++i) r.d[i] = alpha * a.d[i] + beta * b.d[i];
  return r;
}
template <int N>
DIFFCOL_DUAL_INLINE Dual<N> copied(double v, const Dual<N>& a) {
  Dual<N> r(v, typename Dual<N>::NoInit{});
  for (int i = 0; i < N; ++i) r.d[i] = a.d[i];
  return r;
}
}  // namespace dual_detail

template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator-(const Dual<N>& a) { return dual_detail::scaled(-a.v, -1.0, a); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator+(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r(a.v + b.v, typename Dual<N>::NoInit{});
  for (int i = 0; i < N; ++i) r.d[i] = a.d[i] + b.d[i];
  return r;
}
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator-(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r(a.v - b.v, typename Dual<N>::NoInit{});
  for (int i = 0; i < N; ++i) r.d[i] = a.d[i] - b.d[i];
  return r;
}
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator*(const Dual<N>& a, const Dual<N>& b) {
  return dual_detail::combined(a.v * b.v, b.v, a, a.v, b);
}
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator/(const Dual<N>& a, const Dual<N>& b) {
  const double inv = 1.0 / b.v;
  const double q = a.v * inv;
  return dual_detail::combined(q, inv, a, -q * inv, b);
}
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator+(const Dual<N>& a, double b) { return dual_detail::copied(a.v + b, a); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator+(double a, const Dual<N>& b) { return dual_detail::copied(a + b.v, b); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator-(const Dual<N>& a, double b) { return dual_detail::copied(a.v - b, a); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator-(double a, const Dual<N>& b) { return dual_detail::scaled(a - b.v, -1.0, b); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator*(const Dual<N>& a, double b) { return dual_detail::scaled(a.v * b, b, a); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator*(double a, const Dual<N>& b) { return dual_detail::scaled(a * b.v, a, b); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator/(const Dual<N>& a, double b) {
  const double inv = 1.0 / b;
  return dual_detail::scaled(a.v * inv, inv, a);
}
template <int N> DIFFCOL_DUAL_INLINE Dual<N> operator/(double a, const Dual<N>& b) {
  const double inv = 1.0 / b.v;
  return dual_detail::scaled(a * inv, -a * inv * inv, b);
}
template <int N> DIFFCOL_DUAL_INLINE Dual<N>& operator+=(Dual<N>& a, const Dual<N>& b) { return a = a + b; }
template <int N> DIFFCOL_DUAL_INLINE Dual<N>& operator-=(Dual<N>& a, const Dual<N>& b) { return a = a - b; }
template <int N> DIFFCOL_DUAL_INLINE Dual<N>& operator*=(Dual<N>& a, const Dual<N>& b) { return a = a * b; }

template <int N> DIFFCOL_DUAL_INLINE Dual<N> exp(const Dual<N>& a) {
  const double e = std::exp(a.v);
  // 0·(finite) stays 0 where exp underflows; guard inf·0 when a.d has zeros.
  return e == 0.0 ? Dual<N>(0.0) : dual_detail::scaled(e, e, a);
}
template <int N> DIFFCOL_DUAL_INLINE Dual<N> log(const Dual<N>& a) { return dual_detail::scaled(std::log(a.v), 1.0 / a.v, a); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> log1p(const Dual<N>& a) {
  return dual_detail::scaled(std::log1p(a.v), 1.0 / (1.0 + a.v), a);
}
template <int N> DIFFCOL_DUAL_INLINE Dual<N> sqrt(const Dual<N>& a) {
  const double s = std::sqrt(a.v);
  return dual_detail::scaled(s, 1.0 / (2.0 * s), a);
}
template <int N> DIFFCOL_DUAL_INLINE Dual<N> sin(const Dual<N>& a) { return dual_detail::scaled(std::sin(a.v), std::cos(a.v), a); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> cos(const Dual<N>& a) { return dual_detail::scaled(std::cos(a.v), -std::sin(a.v), a); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> tanh(const Dual<N>& a) {
  const double th = std::tanh(a.v);
  return dual_detail::scaled(th, (1.0 - th) * (1.0 + th), a);
}

/// |x|^k for k > 0 with value and derivative 0 at x = 0 (k > 1 assumed there).
inline double abs_pow(double x, double k) { return x == 0.0 ? 0.0 : std::pow(std::abs(x), k); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> abs_pow(const Dual<N>& x, double k) {
  if (x.v == 0.0) return Dual<N>(0.0);
  const double a = std::abs(x.v);
  const double p = std::pow(a, k);
  const double dp = k * p / a * (x.v > 0.0 ? 1.0 : -1.0);
  return dual_detail::scaled(p, dp, x);
}
/// x^k for x > 0.
inline double pos_pow(double x, double k) { return std::pow(x, k); }
template <int N> DIFFCOL_DUAL_INLINE Dual<N> pos_pow(const Dual<N>& x, double k) {
  const double p = std::pow(x.v, k);
  return dual_detail::scaled(p, k * p / x.v, x);
}

/// A 3-vector of a generic scalar (Eigen fixed-size vectors need NumTraits for custom scalars;
/// this keeps the generic code small).
template <class T>
struct V3 {
  T x{}, y{}, z{};
  V3() = default;
  V3(const T& a, const T& b, const T& c) : x(a), y(b), z(c) {}
  /// From an Eigen vector (constants).
  static V3 from(const Eigen::Vector3d& v) { return V3(T(v.x()), T(v.y()), T(v.z())); }
  T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
  const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};

template <class T> DIFFCOL_DUAL_INLINE V3<T> operator+(const V3<T>& a, const V3<T>& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T> DIFFCOL_DUAL_INLINE V3<T> operator-(const V3<T>& a, const V3<T>& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T> DIFFCOL_DUAL_INLINE V3<T> operator-(const V3<T>& a) { return {-a.x, -a.y, -a.z}; }
template <class T, class S> DIFFCOL_DUAL_INLINE V3<T> operator*(const S& s, const V3<T>& a) { return {s * a.x, s * a.y, s * a.z}; }
template <class T> DIFFCOL_DUAL_INLINE T dot(const V3<T>& a, const V3<T>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> DIFFCOL_DUAL_INLINE V3<T> cross(const V3<T>& a, const V3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> DIFFCOL_DUAL_INLINE T squared_norm(const V3<T>& a) { return dot(a, a); }

/// Values of a generic vector as an Eigen vector.
template <class T> Eigen::Vector3d values(const V3<T>& a) {
  return {value_of(a.x), value_of(a.y), value_of(a.z)};
}
/// R·a + p for a constant rotation and translation.
template <class T> DIFFCOL_DUAL_INLINE V3<T> transform(const Eigen::Matrix3d& R, const Eigen::Vector3d& p, const V3<T>& a) {
  V3<T> out;
  for (int i = 0; i < 3; ++i) out[i] = R(i, 0) * a.x + R(i, 1) * a.y + R(i, 2) * a.z + p[i];
  return out;
}
/// R·a for a constant rotation.
template <class T> DIFFCOL_DUAL_INLINE V3<T> rotate(const Eigen::Matrix3d& R, const V3<T>& a) {
  V3<T> out;
  for (int i = 0; i < 3; ++i) out[i] = R(i, 0) * a.x + R(i, 1) * a.y + R(i, 2) * a.z;
  return out;
}
/// Rᵀ·(a − p): world → local for a pose with rotation R and translation p.
template <class T> DIFFCOL_DUAL_INLINE V3<T> inverse_transform(const Eigen::Matrix3d& R, const Eigen::Vector3d& p, const V3<T>& a) {
  const V3<T> d(a.x - p.x(), a.y - p.y(), a.z - p.z());
  V3<T> out;
  for (int i = 0; i < 3; ++i) out[i] = R(0, i) * d.x + R(1, i) * d.y + R(2, i) * d.z;
  return out;
}

}  // namespace diffcol::manifold
