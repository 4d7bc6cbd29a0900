#pragma once
/// @file smooth.hpp
/// Smooth approximations of non-smooth operators (Contax seed, Sec. III and supplementary III-A):
/// soft comparison, soft sign, softplus, soft clip, logsumexp / softmin, soft argmax / argmin and
/// a soft top-K (SoftSort, the seed's ref. [39]).
///
/// Temperature: every operator takes a temperature `t` in the units of its input. `t == 0` selects
/// the hard (non-smoothed, the seeds' "NS") operator; as t → 0 every smooth operator converges to
/// it. The functions in namespace `diffcol::smooth` validate `t` (and other arguments) and throw
/// std::invalid_argument for t < 0 or a non-finite t: they are meant for the API boundary. Inner
/// loops that have validated their temperatures once (e.g. in an options struct) call the
/// unchecked templates in `diffcol::smooth::kernel` instead, which are identical except that they
/// do not check.
///
/// Numerics: all operators are evaluated in overflow-free forms (max-shifted exponentials,
/// log1p(exp(−|z|))), so |x|/t up to 1e300 (and beyond, including x/t = ±inf) gives correct
/// results, finite except where the operator itself is infinite (softplus(+inf) = +inf, the
/// logsumexp of an entry +inf). NaN inputs give NaN outputs (never a crash).
///
/// Hard-mode conventions: step(0) = 0.5 (sigmoid), sign(0) = 0, the hard argmax / argmin / top-K
/// are one-hot at the first maximal (minimal) index; derivatives of the hard operators are their
/// almost-everywhere derivatives (0 for steps, 1/0 for relu and clamp, with 0.5 at the kinks).
///
/// No function here allocates: arrays are raw pointers with an explicit length.
///
/// The `kernel` templates are written for a generic scalar T (double, or a forward-mode dual
/// number such as diffcol::manifold::Dual): they use unqualified exp/log1p/tanh and
/// `value_of(T)` (found by argument-dependent lookup) for branch decisions.

#include <algorithm>
#include <cmath>
#include <limits>

namespace diffcol::smooth {

/// The plain value of a scalar (identity for double; duals provide their own overload).
inline double value_of(double x) { return x; }

/// @throws std::invalid_argument if t < 0 or t is not finite; `what` names the caller.
void validate_temperature(double t, const char* what = "temperature");

/// True when t is a valid temperature (finite and ≥ 0).
inline bool is_valid_temperature(double t) { return std::isfinite(t) && t >= 0.0; }

// ---------------------------------------------------------------------------------------------
// Unchecked kernels (scalar-generic). Preconditions: t ≥ 0 finite; lo ≤ hi; n ≥ 1.
// ---------------------------------------------------------------------------------------------
namespace kernel {

/// σ(x/t) = 1/(1+exp(−x/t)); t = 0: step with step(0) = 0.5.
template <class T>
T sigmoid(const T& x, double t) {
  using std::exp;
  const double xv = value_of(x);
  if (t == 0.0) return T(xv > 0.0 ? 1.0 : (xv < 0.0 ? 0.0 : 0.5));
  const T z = x / t;
  if (value_of(z) >= 0.0) {
    const T e = exp(-z);
    return 1.0 / (1.0 + e);
  }
  const T e = exp(z);
  return e / (1.0 + e);
}

/// dσ(x/t)/dx = σ(1−σ)/t computed as e/(1+e)²/t with e = exp(−|x|/t); t = 0: 0.
inline double sigmoid_derivative(double x, double t) {
  if (t == 0.0) return 0.0;
  const double e = std::exp(-std::abs(x / t));
  const double q = 1.0 + e;
  return e / (q * q) / t;
}

/// t·log(1+exp(x/t)) = max(x,0) + t·log1p(exp(−|x|/t)); t = 0: max(x, 0).
template <class T>
T softplus(const T& x, double t) {
  using std::exp;
  using std::log1p;
  const double xv = value_of(x);
  if (t == 0.0) return xv > 0.0 ? x : T(0.0);
  const T z = x / t;
  const T relu = xv > 0.0 ? x : T(0.0);
  const T az = value_of(z) >= 0.0 ? z : T(-z);
  return relu + t * log1p(exp(-az));
}

/// tanh(x/t); t = 0: sign(x) with sign(0) = 0.
template <class T>
T soft_sign(const T& x, double t) {
  using std::tanh;
  const double xv = value_of(x);
  if (t == 0.0) return T(xv > 0.0 ? 1.0 : (xv < 0.0 ? -1.0 : 0.0));
  return tanh(x / t);
}

/// lo + s₊(x − lo) − s₊(x − hi) (seed Sec. III); t = 0: clamp(x, lo, hi).
template <class T>
T soft_clip(const T& x, double lo, double hi, double t) {
  if (t == 0.0) {
    const double xv = value_of(x);
    if (xv < lo) return T(lo);
    if (xv > hi) return T(hi);
    return x;
  }
  // Above the midpoint use the equal form hi + s₊(lo − x) − s₊(hi − x) (s₊(z) = z + s₊(−z)),
  // so neither branch subtracts two huge softplus values.
  if (value_of(x) > 0.5 * (lo + hi)) return hi + softplus<T>(lo - x, t) - softplus<T>(hi - x, t);
  return lo + softplus<T>(x - lo, t) - softplus<T>(x - hi, t);
}

/// Soft indicator [lo ≤ x ≤ hi] = σ((x−lo)/t)·σ((hi−x)/t) (supplementary III-A "within_s").
template <class T>
T soft_within(const T& x, double lo, double hi, double t) {
  return sigmoid<T>(x - lo, t) * sigmoid<T>(hi - x, t);
}

/// Softmax weights w_i = exp(x_i/t)/Σ exp(x_j/t) written to w (length n); returns the
/// logsumexp t·log Σ exp(x_i/t) (w may be null). t = 0 (or an infinite maximum): max and one-hot
/// at the first argmax. A NaN entry makes the result and the weights NaN.
template <class T>
T logsumexp(const T* x, int n, double t, T* w) {
  using std::exp;
  using std::log;
  int imax = 0;
  for (int i = 1; i < n; ++i)
    if (value_of(x[i]) > value_of(x[imax]) || std::isnan(value_of(x[imax]))) imax = i;
  const T m = x[imax];
  if (t == 0.0 || !std::isfinite(value_of(m))) {
    const bool nan = std::isnan(value_of(m));
    if (w)
      for (int i = 0; i < n; ++i)
        w[i] = T(nan ? std::numeric_limits<double>::quiet_NaN() : (i == imax ? 1.0 : 0.0));
    return m;
  }
  T sum(0.0);
  for (int i = 0; i < n; ++i) {
    const T e = exp((x[i] - m) / t);
    if (w) w[i] = e;
    sum = sum + e;
  }
  if (w)
    for (int i = 0; i < n; ++i) w[i] = w[i] / sum;
  return m + t * log(sum);
}

/// Softmin −t·log Σ exp(−x_i/t); w (if not null) receives softmax(−x/t), the gradient of softmin
/// w.r.t. x. t = 0: min and one-hot at the first argmin.
template <class T>
T softmin(const T* x, int n, double t, T* w) {
  using std::exp;
  using std::log;
  int imin = 0;
  for (int i = 1; i < n; ++i)
    if (value_of(x[i]) < value_of(x[imin]) || std::isnan(value_of(x[imin]))) imin = i;
  const T m = x[imin];
  if (t == 0.0 || !std::isfinite(value_of(m))) {
    const bool nan = std::isnan(value_of(m));
    if (w)
      for (int i = 0; i < n; ++i)
        w[i] = T(nan ? std::numeric_limits<double>::quiet_NaN() : (i == imin ? 1.0 : 0.0));
    return m;
  }
  T sum(0.0);
  for (int i = 0; i < n; ++i) {
    const T e = exp((m - x[i]) / t);
    if (w) w[i] = e;
    sum = sum + e;
  }
  if (w)
    for (int i = 0; i < n; ++i) w[i] = w[i] / sum;
  return m - t * log(sum);
}

}  // namespace kernel

// ---------------------------------------------------------------------------------------------
// Checked scalar operators (double).
// ---------------------------------------------------------------------------------------------

/// Soft step σ(x/t) = 1/(1+exp(−x/t)), the soft comparison [x > 0]; t = 0: step, 0.5 at 0.
/// @throws std::invalid_argument on an invalid temperature.
double sigmoid(double x, double t);

/// d sigmoid(x, t)/dx = σ(1−σ)/t; t = 0: 0. @throws std::invalid_argument on an invalid t.
double sigmoid_derivative(double x, double t);

/// Softplus t·log(1+exp(x/t)), the smooth relu; t = 0: max(x, 0).
/// @param dx  if not null, receives d/dx = σ(x/t) (hard: 1 for x>0, 0 for x<0, 0.5 at 0).
/// @throws std::invalid_argument on an invalid temperature.
double softplus(double x, double t, double* dx = nullptr);

/// Soft sign tanh(x/t); t = 0: sign(x), 0 at 0. @throws std::invalid_argument on an invalid t.
double soft_sign(double x, double t);

/// d soft_sign(x, t)/dx = (1 − tanh²(x/t))/t; t = 0: 0.
double soft_sign_derivative(double x, double t);

/// Soft clip lo + s₊(x−lo) − s₊(x−hi) (seed Sec. III); t = 0: clamp(x, lo, hi). For t > 0 the
/// result lies in (lo, hi) (it approaches the bounds only as x → ±∞).
/// @throws std::invalid_argument on an invalid t, non-finite bounds or lo > hi.
double soft_clip(double x, double lo, double hi, double t);

/// Derivatives of soft_clip w.r.t. x, lo and hi (any out-pointer may be null); returns d/dx.
/// Hard mode: 1 strictly inside, 0 outside, 0.5 at a bound (and d/dlo, d/dhi likewise).
double soft_clip_derivative(double x, double lo, double hi, double t, double* d_lo = nullptr,
                            double* d_hi = nullptr);

/// Soft comparison [a > b] = σ((a − b)/t); t = 0: step (0.5 when a == b).
double soft_greater(double a, double b, double t);

/// Soft indicator [lo ≤ x ≤ hi] = σ((x−lo)/t)·σ((hi−x)/t) (supplementary III-A, within_s).
/// @throws std::invalid_argument on an invalid t or lo > hi.
double soft_within(double x, double lo, double hi, double t);

// ---------------------------------------------------------------------------------------------
// Checked vector operators (double arrays).
// ---------------------------------------------------------------------------------------------

/// Logsumexp LSE(x) = t·log Σ exp(x_i/t) (the smooth max); t = 0: max(x).
/// @param x       n values.
/// @param weights if not null, n entries receiving the gradient ∂LSE/∂x = softmax(x/t)
///                (t = 0: one-hot at the first argmax).
/// @throws std::invalid_argument on an invalid t, x == nullptr or n < 1.
double logsumexp(const double* x, int n, double t, double* weights = nullptr);

/// Softmin −LSE(−x) (the smooth min); t = 0: min(x). `weights` receives its gradient
/// softmax(−x/t) (t = 0: one-hot at the first argmin). Same errors as logsumexp.
double softmin(const double* x, int n, double t, double* weights = nullptr);

/// Soft argmax: weights_i = softmax(x/t)_i (n entries, summing to 1); t = 0: one-hot at the
/// first argmax. Same errors as logsumexp.
void soft_argmax(const double* x, int n, double t, double* weights);

/// Soft argmin: weights_i = softmax(−x/t)_i; t = 0: one-hot at the first argmin.
void soft_argmin(const double* x, int n, double t, double* weights);

/// Soft top-K by SoftSort (Prillo & Eisenschlos, the seed's ref. [39]): with s the entries of x
/// sorted in decreasing order (ties by increasing index),
///   P[r][j] = exp(−|s_r − x_j|/t) / Σ_l exp(−|s_r − x_l|/t),   r = 0..k−1, j = 0..n−1,
/// so row r is a soft one-hot of the r-th largest entry and every row sums to 1. t = 0: the
/// exact one-hot of the r-th largest entry. Selected values are P·x (k), selected features
/// P·F (k × dim for an n × dim feature matrix F).
/// @param P     k × n output, row-major (P[r*n + j]).
/// @param order if not null, k entries receiving the index of the r-th largest entry (the hard
///              top-K, the index on which row r is centered).
/// Cost O(n·k), no allocation.
/// @throws std::invalid_argument on an invalid t, null pointers, n < 1 or k ∉ [1, n].
void soft_top_k(const double* x, int n, int k, double t, double* P, int* order = nullptr);

/// Vector–Jacobian product of soft_top_k: given the upstream gradient G = ∂L/∂P (k × n,
/// row-major, same layout as P) writes ∂L/∂x (n entries, overwritten). P must be the output of
/// soft_top_k(x, n, k, t) for the same arguments. The sort permutation is treated as locally
/// constant (it is piecewise constant; the SoftSort relaxation is continuous across its
/// switches); at tied entries it is the order of soft_top_k (ties by index), held fixed for every
/// row: the one-sided derivative in directions that keep that order. t = 0: zero.
/// @throws std::invalid_argument as soft_top_k.
void soft_top_k_vjp(const double* x, int n, int k, double t, const double* P, const double* G,
                    double* dL_dx);

/// Jacobian-vector product of soft_top_k: given a direction dx (n) writes dP = (∂P/∂x)·dx
/// (k × n, row-major). P as in soft_top_k_vjp. t = 0: zero.
/// @throws std::invalid_argument as soft_top_k.
void soft_top_k_jvp(const double* x, int n, int k, double t, const double* P, const double* dx,
                    double* dP);

}  // namespace diffcol::smooth
