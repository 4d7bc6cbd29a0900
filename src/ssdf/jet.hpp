#pragma once
// Scalar-generic arithmetic of the SCM dynamics (dynamics.cpp, dynamics_derivatives.cpp): forward-mode
// jets (T = double, a jet for Jacobians, a jet of jets for Hessians) and small 3-vectors and 3×3
// matrices over them. Internal to src/ssdf; its contents have internal linkage in each unit.
#include <cmath>

#include "diffcol/ssdf/dynamics.hpp"

namespace diffcol::ssdf {
namespace {

// ----------------------------------------------------------------------------------------------
// Forward-mode jets: value v and N partials d (T may itself be a jet: second order).
// ----------------------------------------------------------------------------------------------
inline double val(double x) { return x; }

/// Tag for a jet whose partials the caller writes next (no zero fill first).
struct NoInit {};

template <class T, int N>
struct Jet {
  T v;
  std::array<T, N> d;
  Jet() : v(0.0) { d.fill(T(0.0)); }
  Jet(double x) : v(x) { d.fill(T(0.0)); }  // NOLINT: constants convert implicitly
  explicit Jet(NoInit) : v(0.0) {}
};

template <class T, int N> double val(const Jet<T, N>& a) { return val(a.v); }

template <class T, int N> Jet<T, N> operator+(const Jet<T, N>& a, const Jet<T, N>& b) {
  Jet<T, N> r{NoInit{}};
  r.v = a.v + b.v;
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] + b.d[k];
  return r;
}
template <class T, int N> Jet<T, N> operator-(const Jet<T, N>& a, const Jet<T, N>& b) {
  Jet<T, N> r{NoInit{}};
  r.v = a.v - b.v;
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] - b.d[k];
  return r;
}
template <class T, int N> Jet<T, N> operator-(const Jet<T, N>& a) {
  Jet<T, N> r{NoInit{}};
  r.v = -a.v;
  for (int k = 0; k < N; ++k) r.d[k] = -a.d[k];
  return r;
}
template <class T, int N> Jet<T, N> operator*(const Jet<T, N>& a, const Jet<T, N>& b) {
  Jet<T, N> r{NoInit{}};
  r.v = a.v * b.v;
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] * b.v + a.v * b.d[k];
  return r;
}
template <class T, int N> Jet<T, N> operator/(const Jet<T, N>& a, const Jet<T, N>& b) {
  const T inv = 1.0 / b.v;
  Jet<T, N> r{NoInit{}};
  r.v = a.v * inv;
  for (int k = 0; k < N; ++k) r.d[k] = (a.d[k] - r.v * b.d[k]) * inv;
  return r;
}
template <class T, int N> Jet<T, N> operator+(const Jet<T, N>& a, double b) {
  Jet<T, N> r = a;
  r.v = r.v + b;
  return r;
}
template <class T, int N> Jet<T, N> operator+(double a, const Jet<T, N>& b) { return b + a; }
template <class T, int N> Jet<T, N> operator-(const Jet<T, N>& a, double b) { return a + (-b); }
template <class T, int N> Jet<T, N> operator-(double a, const Jet<T, N>& b) { return (-b) + a; }
template <class T, int N> Jet<T, N> operator*(const Jet<T, N>& a, double b) {
  Jet<T, N> r{NoInit{}};
  r.v = a.v * b;
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] * b;
  return r;
}
template <class T, int N> Jet<T, N> operator*(double a, const Jet<T, N>& b) { return b * a; }
template <class T, int N> Jet<T, N> operator/(const Jet<T, N>& a, double b) { return a * (1.0 / b); }
template <class T, int N> Jet<T, N> operator/(double a, const Jet<T, N>& b) { return Jet<T, N>(a) / b; }
template <class T, int N> Jet<T, N>& operator+=(Jet<T, N>& a, const Jet<T, N>& b) {
  a.v = a.v + b.v;
  for (int k = 0; k < N; ++k) a.d[k] = a.d[k] + b.d[k];
  return a;
}
template <class T, int N> Jet<T, N>& operator-=(Jet<T, N>& a, const Jet<T, N>& b) {
  a.v = a.v - b.v;
  for (int k = 0; k < N; ++k) a.d[k] = a.d[k] - b.d[k];
  return a;
}

/// f(a) from f(a.v), f'(a.v) (chain rule, generic in the inner type).
template <class T, int N> Jet<T, N> chain(const Jet<T, N>& a, const T& f, const T& df) {
  Jet<T, N> r{NoInit{}};
  r.v = f;
  for (int k = 0; k < N; ++k) r.d[k] = df * a.d[k];
  return r;
}
using std::cos;
using std::exp;
using std::log1p;
using std::sin;
using std::sqrt;
template <class T, int N> Jet<T, N> exp(const Jet<T, N>& a) {
  const T e = exp(a.v);
  return chain(a, e, e);
}
template <class T, int N> Jet<T, N> log1p(const Jet<T, N>& a) { return chain(a, log1p(a.v), 1.0 / (1.0 + a.v)); }
template <class T, int N> Jet<T, N> sqrt(const Jet<T, N>& a) {
  const T s = sqrt(a.v);
  return chain(a, s, 0.5 / s);
}
template <class T, int N> Jet<T, N> sin(const Jet<T, N>& a) { return chain(a, sin(a.v), cos(a.v)); }
template <class T, int N> Jet<T, N> cos(const Jet<T, N>& a) { return chain(a, cos(a.v), -sin(a.v)); }

using J1 = Jet<double, 1>;
using JacT = Jet<double, kMaxDerivativeDim>;
using HesT = Jet<J1, kMaxDerivativeDim>;

// ----------------------------------------------------------------------------------------------
// Small generic vectors and matrices.
// ----------------------------------------------------------------------------------------------
template <class T>
struct V {
  T x, y, z;
  V() : x(0.0), y(0.0), z(0.0) {}
  V(const T& a, const T& b, const T& c) : x(a), y(b), z(c) {}
  explicit V(const Vec3& a) : x(a.x()), y(a.y()), z(a.z()) {}
  T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
  const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};
template <class T> V<T> operator+(const V<T>& a, const V<T>& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T> V<T> operator-(const V<T>& a, const V<T>& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T> V<T> operator-(const V<T>& a) { return {-a.x, -a.y, -a.z}; }
template <class S, class T> V<T> operator*(const S& s, const V<T>& a) { return {s * a.x, s * a.y, s * a.z}; }
template <class T> V<T>& operator+=(V<T>& a, const V<T>& b) { return a = a + b; }
template <class T> T dot(const V<T>& a, const V<T>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> T dot(const Vec3& a, const V<T>& b) { return a.x() * b.x + a.y() * b.y + a.z() * b.z; }
template <class T> V<T> cross(const V<T>& a, const V<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> V<T> cross(const Vec3& a, const V<T>& b) {
  return {a.y() * b.z - a.z() * b.y, a.z() * b.x - a.x() * b.z, a.x() * b.y - a.y() * b.x};
}
template <class T> V<T> cross(const V<T>& a, const Vec3& b) { return -cross(b, a); }
template <class T> V<T> add(const V<T>& a, const Vec3& b) { return {a.x + b.x(), a.y + b.y(), a.z + b.z()}; }
template <class T> V<T> sub(const V<T>& a, const Vec3& b) { return {a.x - b.x(), a.y - b.y(), a.z - b.z()}; }

template <class T>
struct M {
  T m[3][3];
  M() {
    for (auto& r : m)
      for (auto& e : r) e = T(0.0);
  }
  explicit M(const Mat3& A) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] = T(A(i, j));
  }
};
template <class T> V<T> mul(const M<T>& A, const V<T>& a) {
  V<T> r;
  for (int i = 0; i < 3; ++i) r[i] = A.m[i][0] * a.x + A.m[i][1] * a.y + A.m[i][2] * a.z;
  return r;
}
template <class T> V<T> mul(const M<T>& A, const Vec3& a) {
  V<T> r;
  for (int i = 0; i < 3; ++i) r[i] = A.m[i][0] * a.x() + A.m[i][1] * a.y() + A.m[i][2] * a.z();
  return r;
}
template <class T> V<T> mul_t(const M<T>& A, const V<T>& a) {  // Aᵀa
  V<T> r;
  for (int i = 0; i < 3; ++i) r[i] = A.m[0][i] * a.x + A.m[1][i] * a.y + A.m[2][i] * a.z;
  return r;
}
template <class T> V<T> mul(const Mat3& A, const V<T>& a) {
  V<T> r;
  for (int i = 0; i < 3; ++i) r[i] = A(i, 0) * a.x + A(i, 1) * a.y + A(i, 2) * a.z;
  return r;
}
template <class T> M<T> mul(const M<T>& A, const M<T>& B) {
  M<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = A.m[i][0] * B.m[0][j] + A.m[i][1] * B.m[1][j] + A.m[i][2] * B.m[2][j];
  return r;
}
template <class T> M<T> mul(const Mat3& A, const M<T>& B) {
  M<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = A(i, 0) * B.m[0][j] + A(i, 1) * B.m[1][j] + A(i, 2) * B.m[2][j];
  return r;
}

/// exp(skew(w)) = I + A·W + B·W², A = sinθ/θ, B = (1 − cosθ)/θ² (series near 0: smooth in θ²).
template <class T> M<T> so3_exp_t(const V<T>& w) {
  const T th2 = dot(w, w);
  T A, B;
  if (val(th2) < 1e-8) {
    A = 1.0 - th2 * (1.0 / 6.0) + th2 * th2 * (1.0 / 120.0);
    B = 0.5 - th2 * (1.0 / 24.0) + th2 * th2 * (1.0 / 720.0);
  } else {
    const T th = sqrt(th2);
    A = sin(th) / th;
    B = (1.0 - cos(th)) / th2;
  }
  M<T> R;
  const T d = 1.0 - B * th2;
  R.m[0][0] = d + B * w.x * w.x;
  R.m[1][1] = d + B * w.y * w.y;
  R.m[2][2] = d + B * w.z * w.z;
  R.m[0][1] = B * w.x * w.y - A * w.z;
  R.m[1][0] = B * w.x * w.y + A * w.z;
  R.m[0][2] = B * w.x * w.z + A * w.y;
  R.m[2][0] = B * w.x * w.z - A * w.y;
  R.m[1][2] = B * w.y * w.z - A * w.x;
  R.m[2][1] = B * w.y * w.z + A * w.x;
  return R;
}

/// θ̇ for R = R0·exp(θ), Ṙ = R·skew(ω): dexp⁻¹_{−θ}(ω) = ω + ½θ×ω + (1/12)θ×(θ×ω) + O(θ³)
/// (truncation that keeps RKMK at order 4).
template <class T> V<T> dexp_inv(const V<T>& th, const V<T>& w) {
  const V<T> c = cross(th, w);
  return w + 0.5 * c + (1.0 / 12.0) * cross(th, c);
}

template <class T> Mat3 values(const M<T>& R) {
  Mat3 A;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A(i, j) = val(R.m[i][j]);
  return A;
}
template <class T> Vec3 values(const V<T>& a) { return {val(a.x), val(a.y), val(a.z)}; }

}  // namespace
}  // namespace diffcol::ssdf
