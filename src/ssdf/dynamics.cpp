// Rigid-body dynamics under SCM, eqs. (14)–(25): scalar-generic force and step code, evaluated
// with T = double (plain), a forward-mode jet (Jacobians) and a jet of jets (Hessians).
#include "diffcol/ssdf/dynamics.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/Cholesky>

#include "ground_cut.hpp"
#include "vector_kernels.hpp"

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

// ----------------------------------------------------------------------------------------------
// Smooth scalar functions and the point–plane force, eqs. (14)–(20).
// ----------------------------------------------------------------------------------------------
/// t·log(1 + exp(x/t)); t = 0: max(x, 0).
template <class T> T softplus_t(const T& x, double t) {
  if (t == 0.0) return val(x) > 0.0 ? x : T(0.0);
  if (val(x) > 0.0) return x + t * log1p(exp(-x / t));
  return t * log1p(exp(x / t));
}

/// Component i of a constant or a jet vector.
inline double comp(const Vec3& a, int i) { return a[i]; }
template <class T> const T& comp(const V<T>& a, int i) { return a[i]; }

/// λ(p, v, p_i, n_i) from φ = n_iᵀ(p − p_i) (possibly shifted) and v (relative velocity); n unit,
/// a constant (Vec3) or, for the ground sum in a body's frame, a jet vector (V<T>).
template <class T, class N> V<T> point_plane(const T& phi, const V<T>& v, const N& n, const ScmParameters& prm) {
  const T c = prm.stiffness * softplus_t(-phi, prm.eps3);  // (15)
  const T vn = dot(n, v);
  const T x = vn / prm.dissipation_velocity;
  T d;  // (16)–(17)
  const double xv = val(x);
  if (xv <= 0.0)
    d = 1.0 - x;
  else if (xv <= 2.0)
    d = 0.25 * (x - 2.0) * (x - 2.0);
  else
    return V<T>();
  const T ln = c * d;  // (18)
  const V<T> vt{v.x - vn * comp(n, 0), v.y - vn * comp(n, 1), v.z - vn * comp(n, 2)};
  const T h = sqrt(prm.stiction_velocity * prm.stiction_velocity + dot(vt, vt));
  const T s = prm.friction * ln / h;  // λ = λ_n n − μ λ_n v_t / h, (19)–(20)
  return {ln * comp(n, 0) - s * vt.x, ln * comp(n, 1) - s * vt.y, ln * comp(n, 2) - s * vt.z};
}

/// Calls f(begin, end) once per maximal run of adjacent leaf ranges that visit(leaf) reports
/// (the trees visit leaves in order, so neighbours often continue each other): the vector kernels
/// then run over long contiguous stretches instead of leaf by leaf.
template <class Visit, class F>
void for_each_run(const Visit& visit, const F& f) {
  int run_begin = 0, run_end = 0;
  visit([&](int begin, int end) {
    if (begin != run_end) {
      if (run_end > run_begin) f(run_begin, run_end);
      run_begin = begin;
    }
    run_end = end;
  });
  if (run_end > run_begin) f(run_begin, run_end);
}

/// Leaves of a PointTree scanned flat (ground contact's vector path) per block (stack arrays of
/// their lower bounds and runs); larger trees take several blocks.
constexpr int kFlatBlock = 1024;

/// Calls f(jb, je) for every maximal run [jb, je) of consecutive leaves with lower[j] ≤ bound
/// (count ≤ kFlatBlock): a bit mask by vector compares, the runs by counting trailing zeros.
template <class F>
void for_each_leaf_run(const double* lower, int count, double bound, const F& f) {
  std::uint64_t bits[kFlatBlock / 64];
  detail::bits_at_most(lower, count, bound, bits);
  const int words = (count + 63) / 64;
  if (words == 0) return;
  int w = 0;
  std::uint64_t m = bits[0];  // the bits of word w not visited yet
  while (true) {
    while (m == 0) {
      if (++w >= words) return;
      m = bits[w];
    }
    const int jb = w * 64 + __builtin_ctzll(m);
    std::uint64_t c = ~bits[w] & (~std::uint64_t{0} << (jb & 63));  // the run's end: the next clear bit
    while (c == 0) {
      if (++w >= words) {
        f(jb, count);
        return;
      }
      c = ~bits[w];
    }
    const int je = std::min(count, w * 64 + __builtin_ctzll(c));
    f(jb, je);
    if (je >= count) return;
    m = bits[w] & (~std::uint64_t{0} << (je & 63));
  }
}

/// min over leaves of leaf_min(j), given lower[j] ≤ (every value in leaf j) + offset and `best`,
/// an upper bound of the result: only the leaves whose bound can still beat the best found so far
/// are read, in index order (a plain loop: faster than bit masks for the few leaves of a
/// point–SSDF query; the ground's hundreds take min_over_leaves_scanned below).
template <class F>
double min_over_leaves(const double* lower, int count, double offset, double best, const F& leaf_min) {
  for (int j = 0; j < count; ++j)
    if (lower[j] - offset < best) best = std::min(best, leaf_min(j));
  return best;
}

/// min_over_leaves with offset 0, the candidates found by vector compares (detail::first_below):
/// for the ground's hundreds of leaves, of which a body at rest reads few (ties with the best are
/// not read). Measured: 1-2% off a 4000-point step against the plain loop.
template <class F>
double min_over_leaves_scanned(const double* lower, int count, double best, const F& leaf_min) {
  for (int j = detail::first_below(lower, 0, count, best); j < count; j = detail::first_below(lower, j + 1, count, best))
    best = std::min(best, leaf_min(j));
  return best;
}

/// Point–SSDF sums of the forward dynamics: clouds of at most this many leaves are scanned flat
/// (point_ssdf); runs of leaves go to the kernel kRunBuffer at a time.
constexpr int kFlatSsdfLeaves = 256;
constexpr int kRunBuffer = 256;

/// min_i ‖q − c_i‖² by flat vector scans: the box bounds of every leaf (stored in lower[0, L)),
/// then the points of the leaves whose box can hold a nearer point than the best found so far.
double flat_nearest_squared_distance(const PointTree& t, const Vec3& q, double* lower) {
  const int L = t.num_leaves();
  const double* lo[3] = {t.leaf_lo(0), t.leaf_lo(1), t.leaf_lo(2)};
  const double* hi[3] = {t.leaf_hi(0), t.leaf_hi(1), t.leaf_hi(2)};
  return min_over_leaves(lower, L, 0.0, detail::box_distance_bounds(lo, hi, L, q, lower), [&](int j) {
    return detail::min_squared_distance(t.xs(), t.ys(), t.zs(), t.leaf_start(j), t.leaf_start(j + 1), q);
  });
}

/// Far queries (aopc.hpp's kFarQueryRatio) of a cloud of at most kFlatBlock leaves: the far logit
/// ℓ = 2 qcᵀ(p − c) − ‖p − c‖² satisfies −ℓ ≥ uᵀp + 2 qcᵀc with u = −2 qc, so lower[j] = min over
/// leaf j's box of uᵀp bounds −ℓ over the leaf. Returns the largest ℓ, read from the leaves that
/// can hold it (the first bound on −ℓ: the boxes' least upper bound of uᵀp, plus 2 qcᵀc and the
/// largest ‖p − c‖²).
double far_logit_bounds(const PointTree& t, const Vec3& c, const Vec3& qc, double* lower) {
  const int L = t.num_leaves();
  const double* lo[3] = {t.leaf_lo(0), t.leaf_lo(1), t.leaf_lo(2)};
  const double* hi[3] = {t.leaf_hi(0), t.leaf_hi(1), t.leaf_hi(2)};
  const double upper = detail::box_min_projections(lo, hi, L, -2.0 * qc, lower);
  const double shift = 2.0 * qc.dot(c), r2 = t.bounds().radius * t.bounds().radius;
  const double first = upper + shift + r2 + 1e-12 * (std::abs(upper) + std::abs(shift) + r2);  // with rounding slack
  return -min_over_leaves(lower, L, -shift, first, [&](int j) {
    const int b = t.leaf_start(j);
    return -detail::max_far_logit(t.xs() + b, t.ys() + b, t.zs() + b, t.leaf_start(j + 1) - b, c, qc);
  });
}

/// The bound on lower[j] (far_logit_bounds) of the leaves that can hold a logit within d2_cut (G·ε1)
/// of the largest, with a rounding slack relative to the logits' magnitude.
double far_reach(const detail::SsdfKernelInput& in, double radius) {
  const double shift = 2.0 * in.qc.dot(in.center);
  const double magnitude =
      std::abs(in.logit_max) + std::abs(shift) + 2.0 * in.qc.norm() * (in.center.norm() + radius);
  return -(in.logit_max - in.d2_cut) - shift + 1e-12 * (1.0 + magnitude);
}

/// The force law's constants for the vector kernels (vector_kernels.hpp).
detail::PointPlaneLaw point_plane_law(const ScmParameters& prm) {
  detail::PointPlaneLaw law;
  law.eps3 = prm.eps3;
  law.stiffness = prm.stiffness;
  law.inv_dissipation_velocity = 1.0 / prm.dissipation_velocity;
  law.stiction_velocity_sq = prm.stiction_velocity * prm.stiction_velocity;
  law.friction = prm.friction;
  return law;
}

/// exp(x) leaves the normal range of double below x ≈ −708 (and is 0 below −745): the terms
/// skipped by default weigh < 1e-307 relative to the largest, and no weight is subnormal (slow).
constexpr double kUnderflowLogit = 708.0;

/// G of point_tree.hpp: the log-weight gap beyond which softmax terms are skipped.
double cull_gap(const ScmParameters& prm) {
  return prm.weight_cutoff > 0.0 ? std::min(kUnderflowLogit, -std::log(prm.weight_cutoff)) : kUnderflowLogit;
}

/// The ground sum's force cut (ground_cut.hpp): points with φ − φ_min ≥ the returned gap add only
/// their weight to Σ W. Their force W λ is below weight_cutoff × k·sp(φ_min) (1 + μ) each: W·sp ≤
/// e^−G'·sp(φ_min) with G' = G + ln D, D ≥ the dissipation factor d(x) of eqs. (16)–(17) of every
/// point (x ≥ (nᵀv − ‖m‖ r_max)/v_d with m = Rᵀn × ω over the cloud's bounding sphere), ‖n −
/// μ v_t/h‖ ≤ 1 + μ. Without a cutoff (G = 708) the dropped forces are below 1e-307 relative, as
/// the dropped weights. ε2 = 0 or ε3 = 0, or clouds of fewer than kForceCutMinPoints points (where
/// finding the gap, ~0.2 µs, costs more than it saves): no separate cut (G·ε2).
constexpr int kForceCutMinPoints = 1024;
double ground_force_gap(const ScmParameters& prm, double phi_min, const Vec3& u, const Vec3& omega_body, double vn0,
                        const CloudBounds& cb, int num_points) {
  const double G = cull_gap(prm);
  if (!(prm.eps2 > 0.0 && prm.eps3 > 0.0) || num_points < kForceCutMinPoints) return G * prm.eps2;
  const Vec3 m = u.cross(omega_body);
  const double vn_min = vn0 + m.dot(cb.center) - m.norm() * cb.radius;
  const double D = 1.0 + std::max(0.0, -vn_min) / prm.dissipation_velocity;
  return std::isfinite(D) ? detail::ground_force_gap(phi_min, prm.eps2, prm.eps3, G + std::log(D)) : G * prm.eps2;
}

/// The point–SSDF sum's force cut: a term with φ_i ≥ ε3·(G + ln D) has sp(φ_i) ≤ ε3·e^−G/D, so
/// its force is below e^−G × k·ε3·(1 + μ) (the spring force scale of eq. (15)); it adds its
/// weight and W φ only. D = 1 + u_max/v_d bounds the dissipation factor (16)–(17) with u_max ≥
/// ‖u_i‖ over the cloud (‖u_query‖, or ‖s‖ + ‖ω‖(‖center‖ + radius)). +inf when ε3 = 0.
double ssdf_force_cut(const ScmParameters& prm, double u_max) {
  if (!(prm.eps3 > 0.0)) return std::numeric_limits<double>::infinity();
  const double D = 1.0 + u_max / prm.dissipation_velocity;
  return std::isfinite(D) ? prm.eps3 * (cull_gap(prm) + std::log(D)) : std::numeric_limits<double>::infinity();
}

/// Online softmax: running maximum of the logits' values; accumulators are rescaled by a constant
/// when it grows (exact in every derivative order since softmax is shift-invariant).
struct OnlineMax {
  double m = -std::numeric_limits<double>::infinity();
  double t = 0.0;
  double g = kUnderflowLogit;  ///< terms with (x − max)/t ≤ −g are skipped (point_tree.hpp)
  bool any = false;
  /// Returns false if the term with logit x (value xv) has zero weight; else sets `scale`
  /// (to apply to the accumulators first) and leaves the caller to compute exp((x − m)/t).
  bool admit(double xv, double& scale) {
    scale = 1.0;
    if (t == 0.0) {
      if (any && !(xv > m)) return false;
      scale = 0.0;
      m = xv;
      any = true;
      return true;
    }
    if (xv > m) {
      scale = any ? std::exp((m - xv) / t) : 0.0;
      m = xv;
      any = true;
    }
    return (xv - m) / t > -g;
  }
  template <class T> T weight(const T& x) const { return t == 0.0 ? T(1.0) : exp((x - m) / t); }
  /// Starts from the known maximum logit (t > 0): the cut is then relative to the true maximum
  /// from the first term on (as in the vector kernels) and nothing is rescaled, up to rounding.
  void start_at(double max_logit) {
    if (t > 0.0) {
      m = max_logit;
      any = true;
    }
  }
};

template <class T, int K>
struct Accum {
  std::array<T, K> a;
  T sum{0.0};
  Accum() { a.fill(T(0.0)); }
  void scale(double s) {
    if (s == 1.0) return;
    for (auto& e : a) e = e * s;
    sum = sum * s;
  }
};

// ----------------------------------------------------------------------------------------------
// Bodies in T and the contact forces.
// ----------------------------------------------------------------------------------------------
template <class T>
struct BodyT {
  M<T> R;
  V<T> p, w, v;  // pose, body angular velocity, world linear velocity
};

template <class T>
struct WrenchT {
  V<T> tau, f;  // body-frame torque about the COM, world force
};

/// Point a (body A) against the AOPC of body B (its point tree), eqs. (21)–(22); the plane
/// distances are shifted by `offset` (sphere radius). Returns φ_B(p) (shifted) and the wrenches on
/// A and B. Only the leaves within reach of the nearest point are summed (point_tree.hpp).
template <class T>
T point_ssdf(const Vec3& a, double offset, const BodyT<T>& A, const PointTree& cloud, const BodyT<T>& B,
             const ScmParameters& prm, bool at_query_point, WrenchT<T>& on_A, WrenchT<T>& on_B) {
  const V<T> pw = mul(A.R, a) + A.p;
  const V<T> q = mul_t(B.R, pw - B.p);                            // point in B's frame
  const V<T> s = mul_t(B.R, mul(A.R, cross(A.w, a)) + A.v - B.v);  // its velocity minus B's origin, B frame
  const V<T> u_query = s - cross(B.w, q);                          // v − (B's velocity at p), B frame
  OnlineMax om;
  om.t = prm.eps1;
  om.g = cull_gap(prm);
  Accum<T, 7> acc;  // φ, Σλ (3), Σ c×λ (3)
  const Vec3 qv = values(q);
  // Far from the cloud: logits shifted by ‖q − c‖² (aopc.hpp, kFarQueryRatio), every leaf, the
  // online maximum; the same softmax.
  const bool far = cloud.bounds().far(qv);
  // Forward dynamics take the vector kernels (below); on clouds of at most kFlatSsdfLeaves leaves
  // the nearest point and the leaves within reach come from flat vector scans of the leaf boxes,
  // which cost less than the tree's branching descent there (SSDF–SSDF pairs query every point).
  // Far queries: the largest far logit by a vector pass, then every point through the kernel.
  bool vector_path = false, flat = false;
  double lower[kFlatBlock];
  if constexpr (std::is_same_v<T, double>) {
    vector_path = prm.eps1 > 0.0 && prm.eps3 > 0.0 && detail::vector_kernels_enabled();
    flat = vector_path && !far && cloud.num_leaves() <= kFlatSsdfLeaves;
  }
  const double d2 = far ? 0.0 : flat ? flat_nearest_squared_distance(cloud, qv, lower) : cloud.min_squared_distance(qv);
  const double reach = far ? std::numeric_limits<double>::infinity()
                           : d2 + om.g * prm.eps1 + 1e-12 * (1.0 + d2);  // logit gap G·ε1, with rounding slack
  if (!far) om.start_at(-d2);
  const double u_max = at_query_point ? values(u_query).norm()
                                      : values(s).norm() + values(B.w).norm() * (cloud.bounds().center.norm() +
                                                                                  cloud.bounds().radius);
  const double force_cut = ssdf_force_cut(prm, u_max);
  bool summed = false;
  if constexpr (std::is_same_v<T, double>) {
    // Forward dynamics: the vector kernel (vector_kernels.hpp); the softmax shift is the exact
    // nearest distance, so no online rescaling is needed.
    if (vector_path) {
      detail::SsdfKernelInput in;
      in.q = qv;
      in.s = values(s);
      in.omega = values(B.w);
      in.u_query = values(u_query);
      in.at_query_point = at_query_point;
      in.offset = offset;
      in.d2_min = d2;
      in.d2_cut = om.g * prm.eps1;
      bool far_culled = false;  // far: the leaves that can hold a logit within G·ε1 of the largest
      if (far) {
        in.far = true;
        in.center = cloud.bounds().center;
        in.qc = qv - in.center;
        far_culled = cloud.num_leaves() <= kFlatBlock;
        if (far_culled) {
          in.logit_max = far_logit_bounds(cloud, in.center, in.qc, lower);
        } else {
          in.logit_max = detail::max_far_logit(cloud.xs(), cloud.ys(), cloud.zs(), cloud.size(), in.center, in.qc);
        }
      }
      in.phi_force_cut = force_cut;
      in.inv_eps1 = 1.0 / prm.eps1;
      in.law = point_plane_law(prm);
      detail::KernelSums sums;
      const double* const c[3] = {cloud.xs(), cloud.ys(), cloud.zs()};
      const double* const nrm[3] = {cloud.normal_xs(), cloud.normal_ys(), cloud.normal_zs()};
      int runs[kRunBuffer][2];
      int run_count = 0;
      const auto flush_runs = [&] {
        if (run_count > 0) detail::ssdf_kernel_accumulate(c, nrm, runs, run_count, in, sums);
        run_count = 0;
      };
      const auto add_run = [&](int begin, int end) {
        runs[run_count][0] = begin;
        runs[run_count][1] = end;
        if (++run_count == kRunBuffer) flush_runs();
      };
      if (far_culled)  // ℓ ≤ −lower_j − 2 qcᵀc over leaf j (far_logit_bounds)
        for_each_leaf_run(lower, cloud.num_leaves(), far_reach(in, cloud.bounds().radius), [&](int jb, int je) {
          add_run(cloud.leaf_start(jb), cloud.leaf_start(je));
        });
      else if (far)
        add_run(0, cloud.size());
      else if (flat)
        for_each_leaf_run(lower, cloud.num_leaves(), reach,
                          [&](int jb, int je) { add_run(cloud.leaf_start(jb), cloud.leaf_start(je)); });
      else
        for_each_run([&](const auto& leaf) { cloud.for_each_leaf_within(qv, reach, leaf); }, add_run);
      flush_runs();
      acc.sum = sums.weight;
      acc.a[0] = sums.phi;
      for (int k = 0; k < 3; ++k) {
        acc.a[static_cast<size_t>(1 + k)] = sums.force[k];
        acc.a[static_cast<size_t>(4 + k)] = sums.moment[k];
      }
      summed = true;
    }
  }
  if (far && !summed) {  // the largest far logit first: the cut is relative to it, as the kernels'
    double m = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < cloud.size(); ++i) {
      const Vec3 pc = cloud.point(i) - cloud.bounds().center;
      m = std::max(m, 2.0 * pc.dot(qv - cloud.bounds().center) - pc.squaredNorm());
    }
    om.start_at(m);
  }
  auto term = [&](int i) {
    const Vec3& c = cloud.point(i);
    const Vec3& nn = cloud.normal(i);
    const V<T> r = sub(q, c);
    const auto far_logit = [&] {  // CloudBounds::far_logit in T
      const Vec3 pc = c - cloud.bounds().center;
      return T(2.0 * dot(pc, sub(q, cloud.bounds().center)) - pc.squaredNorm());
    };
    const T logit = far ? far_logit() : T(-dot(r, r));  // −d_i, eq. (8)
    double sc;
    if (!om.admit(val(logit), sc)) return;
    acc.scale(sc);
    const T wi = om.weight(logit);
    const T phi = dot(nn, r) - offset;
    acc.a[0] += wi * phi;
    acc.sum += wi;
    if (!(val(phi) < force_cut)) return;  // beyond the force cut: weight and W φ only
    const V<T> u = at_query_point ? u_query : s - cross(B.w, c);  // v − v_i, (21)
    const V<T> lam = point_plane(phi, u, nn, prm);
    const V<T> mom = cross(c, lam);
    acc.a[1] += wi * lam.x;
    acc.a[2] += wi * lam.y;
    acc.a[3] += wi * lam.z;
    acc.a[4] += wi * mom.x;
    acc.a[5] += wi * mom.y;
    acc.a[6] += wi * mom.z;
  };
  if (!summed)
    cloud.for_each_leaf_within(qv, reach, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) term(i);
    });
  const T inv = 1.0 / acc.sum;
  const V<T> G{acc.a[1] * inv, acc.a[2] * inv, acc.a[3] * inv};  // B frame
  const V<T> F = mul(B.R, G);                                     // world force on A
  on_A.f = F;
  on_A.tau = cross(a, mul_t(A.R, F));
  on_B.f = -F;
  if (at_query_point)
    on_B.tau = -cross(q, G);
  else
    on_B.tau = V<T>{-acc.a[4] * inv, -acc.a[5] * inv, -acc.a[6] * inv};
  return acc.a[0] * inv;
}

/// SSDF–SSDF contact, eq. (23).
template <class T>
void pair_ssdf(const PointTree& c1, const BodyT<T>& B1, const PointTree& c2, const BodyT<T>& B2,
               const ScmParameters& prm, bool at_query_point, WrenchT<T>& on_1, WrenchT<T>& on_2) {
  OnlineMax om;
  om.t = prm.eps2;
  om.g = cull_gap(prm);
  Accum<T, 12> acc;
  auto term = [&](const T& phi, const WrenchT<T>& w1, const WrenchT<T>& w2) {
    double sc;
    if (!om.admit(-val(phi), sc)) return;
    acc.scale(sc);
    const T W = om.weight(T(-phi));
    const V<T>* parts[4] = {&w1.tau, &w1.f, &w2.tau, &w2.f};
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) acc.a[static_cast<size_t>(3 * j + k)] += W * (*parts[j])[k];
    acc.sum += W;
  };
  WrenchT<T> wa, wb;
  for (int f = 0; f < c1.size(); ++f) {
    const T phi = point_ssdf(c1.point(f), 0.0, B1, c2, B2, prm, at_query_point, wa, wb);
    term(phi, wa, wb);
  }
  for (int f = 0; f < c2.size(); ++f) {
    const T phi = point_ssdf(c2.point(f), 0.0, B2, c1, B1, prm, at_query_point, wa, wb);
    term(phi, wb, wa);
  }
  const T inv = 1.0 / acc.sum;
  V<T>* parts[4] = {&on_1.tau, &on_1.f, &on_2.tau, &on_2.f};
  for (int j = 0; j < 4; ++j)
    for (int k = 0; k < 3; ++k) (*parts[j])[k] = acc.a[static_cast<size_t>(3 * j + k)] * inv;
}

// ----------------------------------------------------------------------------------------------
// Local jets: a term that depends on one body only (the ground contact) is differentiated with
// respect to that body's 12 local coordinates — δθ (R = R0·exp(skew δθ)), p, ω, v — and the result
// is mapped to the dim(z) directions once, by the chain rule through the body's own jets, instead
// of carrying kMaxDerivativeDim partials through every point.
// ----------------------------------------------------------------------------------------------
template <int N>
using LocalJet = Jet<double, N>;
/// ∂(local coordinates)/∂z, rows: the local directions.
template <int N>
using LocalTangent = std::array<std::array<double, kMaxDerivativeDim>, N>;

/// The body (R0, p, ω, v) as jets in its local coordinates, directions k0 … k0 + 11:
/// ∂R/∂δθ_k = R0·skew(e_k).
template <int N>
BodyT<LocalJet<N>> local_body(const Mat3& R0, const Vec3& p, const Vec3& w, const Vec3& v, int k0) {
  BodyT<LocalJet<N>> L;
  const auto dir = [&](int k) { return static_cast<size_t>(k0 + k); };
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) L.R.m[i][j] = LocalJet<N>(R0(i, j));
    for (int k = 0; k < 3; ++k) {
      const Vec3 col = R0 * Vec3::Unit(k).cross(Vec3::Unit(j));  // column j of R0·skew(e_k)
      for (int i = 0; i < 3; ++i) L.R.m[i][j].d[dir(k)] = col[i];
    }
  }
  for (int i = 0; i < 3; ++i) {
    L.p[i] = LocalJet<N>(p[i]);
    L.p[i].d[dir(3 + i)] = 1.0;
    L.w[i] = LocalJet<N>(w[i]);
    L.w[i].d[dir(6 + i)] = 1.0;
    L.v[i] = LocalJet<N>(v[i]);
    L.v[i].d[dir(9 + i)] = 1.0;
  }
  return L;
}
template <int N>
BodyT<LocalJet<N>> local_body(const BodyT<JacT>& B, int k0) {
  return local_body<N>(values(B.R), values(B.p), values(B.w), values(B.v), k0);
}

/// vee of the skew part of A.
Vec3 vee_skew(const Mat3& A) {
  return {0.5 * (A(2, 1) - A(1, 2)), 0.5 * (A(0, 2) - A(2, 0)), 0.5 * (A(1, 0) - A(0, 1))};
}

/// Rows k0 … k0 + 11 of ∂(local coordinates)/∂z for a body given in JacT: the rotation part is
/// vee(R0ᵀ ∂R/∂z_k) (R0 its rotation's value), skew up to rounding since R(z) stays a rotation
/// to first order.
template <int N>
void local_tangent(const BodyT<JacT>& B, int k0, LocalTangent<N>& D) {
  const Mat3 R0 = values(B.R);
  const auto row = [&](int m) -> std::array<double, kMaxDerivativeDim>& { return D[static_cast<size_t>(k0 + m)]; };
  for (size_t k = 0; k < static_cast<size_t>(kMaxDerivativeDim); ++k) {
    Mat3 dR;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) dR(i, j) = B.R.m[i][j].d[k];
    const Vec3 t = vee_skew(R0.transpose() * dR);
    for (int i = 0; i < 3; ++i) {
      row(i)[k] = t[i];
      row(3 + i)[k] = B.p[i].d[k];
      row(6 + i)[k] = B.w[i].d[k];
      row(9 + i)[k] = B.v[i].d[k];
    }
  }
}

/// The JacT value of a local result: partials Σ_m ∂r/∂local_m · ∂local_m/∂z_k.
template <int N>
JacT lift(const LocalJet<N>& r, const LocalTangent<N>& D) {
  JacT out(r.v);
  for (size_t m = 0; m < static_cast<size_t>(N); ++m) {
    const double c = r.d[m];
    if (c == 0.0) continue;
    for (size_t k = 0; k < static_cast<size_t>(kMaxDerivativeDim); ++k) out.d[k] += c * D[m][k];
  }
  return out;
}
template <int N>
WrenchT<JacT> lift(const WrenchT<LocalJet<N>>& w, const LocalTangent<N>& D) {
  WrenchT<JacT> out;
  for (int i = 0; i < 3; ++i) {
    out.tau[i] = lift<N>(w.tau[i], D);
    out.f[i] = lift<N>(w.f[i], D);
  }
  return out;
}

// Second order (one Hessian pass, inner direction z_j): the local coordinates l(z) are seeded with
// their first derivative along z_j as the inner partial, and
//   ∂²f/∂z_k∂z_j = Σ_m F_m ∂²l_m/∂z_k∂z_j + Σ_m (Σ_n F_mn ∂l_n/∂z_j) ∂l_m/∂z_k,
// F the term as a function of l. With Q(z) = R0ᵀR(z) = exp(skew θ(z)), θ(z0) = 0:
// ∂²Q/∂z_k∂z_j = skew θ_kj + a symmetric matrix, so θ_kj = vee of the skew part of R0ᵀ∂²R/∂z_k∂z_j.
template <int N>
using LocalHes = Jet<J1, N>;

/// Rows k0 … k0 + 11 of ∂l/∂z (D) and ∂²l/∂z∂z_j (D2) for a body given in HesT, and the local
/// body: l as LocalHes jets (outer: the local directions; inner: ∂l/∂z_j), R = R0·exp(skew δθ).
template <int N>
BodyT<LocalHes<N>> local_body_hessian(const BodyT<HesT>& B, int k0, LocalTangent<N>& D, LocalTangent<N>& D2) {
  Mat3 R0, Rj;  // value, and ∂R/∂z_j
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      R0(i, j) = B.R.m[i][j].v.v;
      Rj(i, j) = B.R.m[i][j].v.d[0];
    }
  const auto row = [&](LocalTangent<N>& T, int m) -> std::array<double, kMaxDerivativeDim>& {
    return T[static_cast<size_t>(k0 + m)];
  };
  for (size_t k = 0; k < static_cast<size_t>(kMaxDerivativeDim); ++k) {
    Mat3 dR, d2R;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        dR(i, j) = B.R.m[i][j].d[k].v;
        d2R(i, j) = B.R.m[i][j].d[k].d[0];
      }
    const Vec3 t1 = vee_skew(R0.transpose() * dR), t2 = vee_skew(R0.transpose() * d2R);
    for (int i = 0; i < 3; ++i) {
      row(D, i)[k] = t1[i];
      row(D2, i)[k] = t2[i];
      row(D, 3 + i)[k] = B.p[i].d[k].v;
      row(D2, 3 + i)[k] = B.p[i].d[k].d[0];
      row(D, 6 + i)[k] = B.w[i].d[k].v;
      row(D2, 6 + i)[k] = B.w[i].d[k].d[0];
      row(D, 9 + i)[k] = B.v[i].d[k].v;
      row(D2, 9 + i)[k] = B.v[i].d[k].d[0];
    }
  }
  const auto seed = [&](double value, double inner, int m) {
    LocalHes<N> x;
    x.v = J1(value);
    x.v.d[0] = inner;
    x.d[static_cast<size_t>(k0 + m)] = J1(1.0);
    return x;
  };
  const Vec3 thj = vee_skew(R0.transpose() * Rj);
  V<LocalHes<N>> th;
  for (int i = 0; i < 3; ++i) th[i] = seed(0.0, thj[i], i);
  BodyT<LocalHes<N>> L;
  L.R = mul(R0, so3_exp_t(th));
  for (int i = 0; i < 3; ++i) {
    L.p[i] = seed(B.p[i].v.v, B.p[i].v.d[0], 3 + i);
    L.w[i] = seed(B.w[i].v.v, B.w[i].v.d[0], 6 + i);
    L.v[i] = seed(B.v[i].v.v, B.v[i].v.d[0], 9 + i);
  }
  return L;
}

/// The HesT value of a local result (second-order chain rule above).
template <int N>
HesT lift_hessian(const LocalHes<N>& r, const LocalTangent<N>& D, const LocalTangent<N>& D2) {
  HesT out;
  out.v = r.v;
  for (size_t m = 0; m < static_cast<size_t>(N); ++m) {
    const double f1 = r.d[m].v, f2 = r.d[m].d[0];
    if (f1 == 0.0 && f2 == 0.0) continue;
    for (size_t k = 0; k < static_cast<size_t>(kMaxDerivativeDim); ++k) {
      out.d[k].v += f1 * D[m][k];
      out.d[k].d[0] += f1 * D2[m][k] + f2 * D[m][k];
    }
  }
  return out;
}
template <int N>
WrenchT<HesT> lift_hessian(const WrenchT<LocalHes<N>>& w, const LocalTangent<N>& D, const LocalTangent<N>& D2) {
  WrenchT<HesT> out;
  for (int i = 0; i < 3; ++i) {
    out.tau[i] = lift_hessian<N>(w.tau[i], D, D2);
    out.f[i] = lift_hessian<N>(w.f[i], D, D2);
  }
  return out;
}

/// Ground contact of a free body (file comment of dynamics.hpp).
template <class T>
WrenchT<T> ground_contact(const Geometry& g, const PointTree* tree, const BodyT<T>& B, const GroundPlane& ground,
                          const ScmParameters& prm) {
  WrenchT<T> out;
  if constexpr (std::is_same_v<T, JacT>) {  // first derivatives: local jets (above)
    LocalTangent<12> D;
    local_tangent<12>(B, 0, D);
    return lift<12>(ground_contact(g, tree, local_body<12>(B, 0), ground, prm), D);
  }
  if constexpr (std::is_same_v<T, HesT>) {  // second derivatives: local jets of jets (above)
    LocalTangent<12> D, D2;
    const BodyT<LocalHes<12>> L = local_body_hessian<12>(B, 0, D, D2);
    return lift_hessian<12>(ground_contact(g, tree, L, ground, prm), D, D2);
  }
  const Vec3& n = ground.normal;
  if (g.is_sphere()) {
    const T phi = dot(n, sub(B.p, ground.point)) - g.radius;
    out.f = point_plane(phi, B.v, n, prm);
    return out;
  }
  Accum<T, 6> acc;  // Σ a×Rᵀλ (body), Σ λ (world)
  // Φ_f = uᵀa_f + const with u = Rᵀn: only leaves within G·ε2 of the lowest point are summed
  const Vec3 u = values(B.R).transpose() * n;
  const double c0 = n.dot(values(B.p) - ground.point);  // Φ_f = uᵀa_f + c0
  if constexpr (std::is_same_v<T, double>) {
    // Forward dynamics: the vector kernels (vector_kernels.hpp), four or eight points at a time.
    // The leaves are found by flat vector scans of their boxes (cheaper than the tree's
    // branching descent): the lowest point among the leaves that can hold it, then the runs of
    // leaves within reach. The softmax shift is the minimum Φ (below), so no online rescaling.
    if (prm.eps2 > 0.0 && prm.eps3 > 0.0 && detail::vector_kernels_enabled()) {
      // The leaves in blocks of kFlatBlock (stack arrays of their lower bounds and runs).
      const int L = tree->num_leaves();
      double lower[kFlatBlock];
      int runs[kFlatBlock][2];
      const auto block_bounds = [&](int j0, int count) {  // lower[0, count) for leaves j0 …; returns their upper
        const double* lo[3] = {tree->leaf_lo(0) + j0, tree->leaf_lo(1) + j0, tree->leaf_lo(2) + j0};
        const double* hi[3] = {tree->leaf_hi(0) + j0, tree->leaf_hi(1) + j0, tree->leaf_hi(2) + j0};
        return detail::box_min_projections(lo, hi, count, u, lower);
      };
      // The lowest point: only leaves whose box reaches below the lowest point or box top found
      // so far (a body resting on a face has hundreds of leaves at the same height: one is read).
      // low is then exact, or equals a box's top where that bound is attained (equal up to the
      // rounding of the box bounds).
      double low = std::numeric_limits<double>::infinity();
      for (int j0 = 0; j0 < L; j0 += kFlatBlock) {
        const int count = std::min(kFlatBlock, L - j0);
        low = min_over_leaves_scanned(lower, count, std::min(low, block_bounds(j0, count)), [&](int j) {
          return detail::min_projection(tree->xs(), tree->ys(), tree->zs(), tree->leaf_start(j0 + j),
                                        tree->leaf_start(j0 + j + 1), u);
        });
      }
      const double reach = low + cull_gap(prm) * prm.eps2 + 1e-12 * (1.0 + std::abs(low));
      detail::GroundKernelInput in;
      const Mat3 R = values(B.R);
      in.n_body = u;
      in.omega_body = values(B.w);
      in.v_body = R.transpose() * values(B.v);
      in.c0 = c0;
      in.phi_min = low + c0;
      in.phi_cut = cull_gap(prm) * prm.eps2;
      in.phi_force_cut = ground_force_gap(prm, in.phi_min, u, values(B.w), n.dot(values(B.v)), tree->bounds(),
                                            tree->size());
      in.inv_eps2 = 1.0 / prm.eps2;
      if (prm.eps2 == prm.eps3 && std::abs(in.phi_min) * in.inv_eps2 <= detail::kSharedExpLogit)
        in.shared_exp_scale = std::exp(in.phi_min * in.inv_eps2);
      in.law = point_plane_law(prm);
      // The runs of leaves within reach, block by block (one block: its bounds are still there).
      detail::KernelSums sums;
      for (int j0 = 0; j0 < L; j0 += kFlatBlock) {
        const int count = std::min(kFlatBlock, L - j0);
        if (L > kFlatBlock) block_bounds(j0, count);
        int run_count = 0;
        for_each_leaf_run(lower, count, reach, [&](int jb, int je) {
          runs[run_count][0] = tree->leaf_start(j0 + jb);
          runs[run_count][1] = tree->leaf_start(j0 + je);
          ++run_count;
        });
        if (run_count > 0)
          detail::ground_kernel_accumulate(tree->xs(), tree->ys(), tree->zs(), runs, run_count, in, sums);
      }
      const double inv = 1.0 / sums.weight;
      const Vec3 f = R * Vec3(sums.force[0], sums.force[1], sums.force[2]);  // world frame
      for (int k = 0; k < 3; ++k) {
        out.tau[k] = sums.moment[k] * inv;  // body frame
        out.f[k] = f[k] * inv;
      }
      return out;
    }
  }
  OnlineMax om;
  om.t = prm.eps2;
  om.g = cull_gap(prm);
  const double low = tree->min_projection(u);
  const double reach = low + om.g * prm.eps2 + 1e-12 * (1.0 + std::abs(low));
  om.start_at(-(low + c0));
  const double phi_min = low + c0;
  const double force_gap = ground_force_gap(prm, phi_min, u, values(B.w), n.dot(values(B.v)), tree->bounds(),
                                          tree->size());
  // In the body frame, as the kernels: Φ_f = (Rᵀn)ᵀa_f + nᵀ(p − ground point), the point's
  // velocity w × a_f + Rᵀv, λ in the body frame (point_plane is rotation-equivariant), the force
  // sum rotated to the world once: no jet rotation per point.
  const V<T> nb = mul_t(B.R, V<T>(n));
  const T cb = dot(n, sub(B.p, ground.point));
  const V<T> vb = mul_t(B.R, B.v);
  auto term = [&](int f) {
    const Vec3& a = tree->point(f);
    const T phi = dot(a, nb) + cb;
    double sc;
    if (!om.admit(-val(phi), sc)) return;
    acc.scale(sc);
    const T W = om.weight(T(-phi));
    if (!(val(phi) - phi_min < force_gap)) {  // beyond the force cut: the weight only
      acc.sum += W;
      return;
    }
    const V<T> lam = point_plane(phi, cross(B.w, a) + vb, nb, prm);  // body frame
    const V<T> tq = cross(a, lam);
    for (int k = 0; k < 3; ++k) {
      acc.a[static_cast<size_t>(k)] += W * tq[k];
      acc.a[static_cast<size_t>(3 + k)] += W * lam[k];
    }
    acc.sum += W;
  };
  tree->for_each_leaf_below(u, reach, [&](int begin, int end) {
    for (int f = begin; f < end; ++f) term(f);
  });
  const T inv = 1.0 / acc.sum;
  const V<T> f = mul(B.R, V<T>{acc.a[3], acc.a[4], acc.a[5]});  // world frame
  for (int k = 0; k < 3; ++k) {
    out.tau[k] = acc.a[static_cast<size_t>(k)] * inv;  // body frame
    out.f[k] = f[k] * inv;
  }
  return out;
}

template <class T>
struct SystemT {
  int nf = 0, nk = 0;
  std::array<BodyT<T>, kMaxFreeBodies> free;
  std::array<BodyT<T>, kMaxKinematicBodies> kin;
  std::array<WrenchT<T>, kMaxFreeBodies> applied;
};

/// Σ Λ over the collision pairs and the ground, per free body.
template <class T>
void contact_forces_t(const Scene& scene, const SystemT<T>& sys, std::array<WrenchT<T>, kMaxFreeBodies>& out) {
  for (int b = 0; b < sys.nf; ++b) out[static_cast<size_t>(b)] = WrenchT<T>();
  const ScmParameters& prm = scene.parameters();
  const bool at_query = scene.reaction_point() == ReactionPoint::query_point;
  auto body = [&](BodyId id) -> const BodyT<T>& {
    return id.kinematic ? sys.kin[static_cast<size_t>(id.index)] : sys.free[static_cast<size_t>(id.index)];
  };
  auto geom = [&](BodyId id) -> const Geometry& {
    return id.kinematic ? scene.kinematic_body(id.index).geometry : scene.free_body(id.index).geometry;
  };
  auto accumulate = [&](BodyId id, const WrenchT<T>& w) {
    if (id.kinematic) return;
    WrenchT<T>& o = out[static_cast<size_t>(id.index)];
    o.tau += w.tau;
    o.f += w.f;
  };
  // One pair's wrenches in the body types BA, BB (T, or local jets of the two bodies).
  const auto pair_wrenches = [&](BodyId a, BodyId b, const auto& A, const auto& B, auto& wa, auto& wb) {
    if (geom(a).is_sphere())  // a: the sphere (the point)
      point_ssdf(Vec3::Zero().eval(), geom(a).radius, A, *scene.point_tree(b), B, prm, at_query, wa, wb);
    else
      pair_ssdf(*scene.point_tree(a), A, *scene.point_tree(b), B, prm, at_query, wa, wb);
  };
  for (const auto& pr : scene.contact_pairs()) {
    BodyId a = pr[0], b = pr[1];
    if (!geom(a).is_sphere() && geom(b).is_sphere()) std::swap(a, b);
    if constexpr (std::is_same_v<T, JacT>) {  // first derivatives: local jets of the two bodies
      LocalTangent<24> D;
      local_tangent<24>(body(a), 0, D);
      local_tangent<24>(body(b), 12, D);
      WrenchT<LocalJet<24>> la, lb;
      pair_wrenches(a, b, local_body<24>(body(a), 0), local_body<24>(body(b), 12), la, lb);
      accumulate(a, lift<24>(la, D));
      accumulate(b, lift<24>(lb, D));
    } else if constexpr (std::is_same_v<T, HesT>) {  // second derivatives: local jets of jets
      LocalTangent<24> D, D2;
      const BodyT<LocalHes<24>> A = local_body_hessian<24>(body(a), 0, D, D2);
      const BodyT<LocalHes<24>> B = local_body_hessian<24>(body(b), 12, D, D2);
      WrenchT<LocalHes<24>> la, lb;
      pair_wrenches(a, b, A, B, la, lb);
      accumulate(a, lift_hessian<24>(la, D, D2));
      accumulate(b, lift_hessian<24>(lb, D, D2));
    } else {
      WrenchT<T> wa, wb;
      pair_wrenches(a, b, body(a), body(b), wa, wb);
      accumulate(a, wa);
      accumulate(b, wb);
    }
  }
  if (scene.has_ground()) {
    for (int i = 0; i < sys.nf; ++i) {
      if (!scene.free_body(i).ground_contact) continue;
      accumulate(BodyId::free(i), ground_contact(scene.free_body(i).geometry, scene.point_tree(BodyId::free(i)),
                                                 sys.free[static_cast<size_t>(i)], scene.ground(), prm));
    }
  }
}

/// Forward dynamics (25) per free body: [ω̇; v̇].
template <class T>
void forward_dynamics_t(const Scene& scene, const SystemT<T>& sys, std::array<WrenchT<T>, kMaxFreeBodies>& acc) {
  contact_forces_t(scene, sys, acc);
  for (int b = 0; b < sys.nf; ++b) {
    const FreeBodySpec& spec = scene.free_body(b);
    const BodyT<T>& B = sys.free[static_cast<size_t>(b)];
    WrenchT<T>& a = acc[static_cast<size_t>(b)];
    const WrenchT<T>& u = sys.applied[static_cast<size_t>(b)];
    const V<T> torque = a.tau + u.tau - cross(B.w, mul(spec.inertia, B.w));
    a.tau = mul(scene.inverse_inertia(b), torque);
    const V<T> force = a.f + u.f;
    const double im = 1.0 / spec.mass;
    a.f = V<T>{force.x * im + scene.gravity().x(), force.y * im + scene.gravity().y(),
               force.z * im + scene.gravity().z()};
  }
}

/// Kinematic bodies at time s into the step (constant control velocity).
template <class T>
void advance_kinematic(const SystemT<T>& base, double s, SystemT<T>& sys) {
  for (int k = 0; k < base.nk; ++k) {
    const BodyT<T>& K0 = base.kin[static_cast<size_t>(k)];
    BodyT<T>& K = sys.kin[static_cast<size_t>(k)];
    K = K0;
    if (s == 0.0) continue;
    K.R = mul(K0.R, so3_exp_t(s * K0.w));
    K.p = K0.p + s * K0.v;
  }
}

template <class T>
void step_euler_t(const Scene& scene, const SystemT<T>& sys, double h, SystemT<T>& next) {
  std::array<WrenchT<T>, kMaxFreeBodies> acc;
  forward_dynamics_t(scene, sys, acc);
  next = sys;
  for (int b = 0; b < sys.nf; ++b) {
    BodyT<T>& B = next.free[static_cast<size_t>(b)];
    B.w += h * acc[static_cast<size_t>(b)].tau;
    B.v += h * acc[static_cast<size_t>(b)].f;
    B.R = mul(B.R, so3_exp_t(h * B.w));
    B.p += h * B.v;
  }
}

template <class T>
void step_rk4_t(const Scene& scene, const SystemT<T>& sys, double h, SystemT<T>& next) {
  struct K {
    std::array<V<T>, kMaxFreeBodies> th, p, w, v;
  };
  std::array<K, 4> k;
  std::array<V<T>, kMaxFreeBodies> theta;  // stage rotation offsets θ_i
  SystemT<T> st = sys;
  std::array<WrenchT<T>, kMaxFreeBodies> acc;
  const double c[4] = {0.0, 0.5, 0.5, 1.0};
  for (int s = 0; s < 4; ++s) {
    advance_kinematic(sys, c[s] * h, st);
    for (int b = 0; b < sys.nf; ++b) {
      const size_t i = static_cast<size_t>(b);
      const BodyT<T>& B0 = sys.free[i];
      BodyT<T>& B = st.free[i];
      if (s == 0) {
        theta[i] = V<T>();
        B = B0;
      } else {
        const double a = c[s] * h;
        theta[i] = a * k[static_cast<size_t>(s - 1)].th[i];
        B.R = mul(B0.R, so3_exp_t(theta[i]));
        B.p = B0.p + a * k[static_cast<size_t>(s - 1)].p[i];
        B.w = B0.w + a * k[static_cast<size_t>(s - 1)].w[i];
        B.v = B0.v + a * k[static_cast<size_t>(s - 1)].v[i];
      }
    }
    forward_dynamics_t(scene, st, acc);
    for (int b = 0; b < sys.nf; ++b) {
      const size_t i = static_cast<size_t>(b);
      k[static_cast<size_t>(s)].th[i] = dexp_inv(theta[i], st.free[i].w);
      k[static_cast<size_t>(s)].p[i] = st.free[i].v;
      k[static_cast<size_t>(s)].w[i] = acc[i].tau;
      k[static_cast<size_t>(s)].v[i] = acc[i].f;
    }
  }
  next = sys;
  for (int b = 0; b < sys.nf; ++b) {
    const size_t i = static_cast<size_t>(b);
    auto comb = [&](const std::array<V<T>, kMaxFreeBodies> K::*field) {
      return (h / 6.0) * ((k[0].*field)[i] + 2.0 * (k[1].*field)[i] + 2.0 * (k[2].*field)[i] + (k[3].*field)[i]);
    };
    BodyT<T>& B = next.free[i];
    B.R = mul(B.R, so3_exp_t(comb(&K::th)));
    B.p += comb(&K::p);
    B.w += comb(&K::w);
    B.v += comb(&K::v);
  }
}

template <class T>
void step_t(const Scene& scene, const SystemT<T>& sys, double h, Integrator integ, SystemT<T>& next) {
  if (integ == Integrator::euler)
    step_euler_t(scene, sys, h, next);
  else
    step_rk4_t(scene, sys, h, next);
}

// ----------------------------------------------------------------------------------------------
// Loading a state/control into T (seeding the tangent variables) and reading results.
// ----------------------------------------------------------------------------------------------
/// Seeds: plain (T = double), Jacobian (z_k ↦ value + e_k), Hessian pass j (outer e_k, inner e_j).
struct PlainSeed {
  double operator()(double v, int) const { return v; }
};
struct JacSeed {
  JacT operator()(double v, int k) const {
    JacT x(v);
    x.d[static_cast<size_t>(k)] = 1.0;
    return x;
  }
};
struct HesSeed {
  int j = 0;
  HesT operator()(double v, int k) const {
    HesT x;
    x.v = J1(v);
    if (k == j) x.v.d[0] = 1.0;
    x.d[static_cast<size_t>(k)] = J1(1.0);
    return x;
  }
};

template <class T, class Seed>
V<T> seed3(const Vec3& v, int k0, const Seed& seed) {
  return {seed(v.x(), k0), seed(v.y(), k0 + 1), seed(v.z(), k0 + 2)};
}

/// Loads a body: R = R0·exp(δθ), p = p0 + δp, velocities; z indices pose_k (6), vel_k (6).
template <class T, class Seed>
BodyT<T> load_body(const Pose& X, const Vec6& V6, int pose_k, int vel_k, const Seed& seed) {
  BodyT<T> B;
  if constexpr (std::is_same_v<T, double>) {
    B.R = M<T>(X.R);
  } else {
    B.R = mul(X.R, so3_exp_t(seed3<T>(Vec3::Zero(), pose_k, seed)));
  }
  B.p = seed3<T>(X.p, pose_k + 3, seed);
  B.w = seed3<T>(V6.head<3>(), vel_k, seed);
  B.v = seed3<T>(V6.tail<3>(), vel_k + 3, seed);
  return B;
}

template <class T, class Seed>
SystemT<T> load(const Scene& scene, const State& x, const Control& u, const Seed& seed) {
  SystemT<T> s;
  const int nf = scene.num_free(), nk = scene.num_kinematic();
  s.nf = nf;
  s.nk = nk;
  const int nx = 12 * nf;
  for (int b = 0; b < nf; ++b) {
    const size_t i = static_cast<size_t>(b);
    s.free[i] = load_body<T>(x.pose[i], x.velocity[i], 6 * b, 6 * nf + 6 * b, seed);
    s.applied[i].tau = seed3<T>(u.wrench[i].head<3>(), nx + 12 * nk + 6 * b, seed);
    s.applied[i].f = seed3<T>(u.wrench[i].tail<3>(), nx + 12 * nk + 6 * b + 3, seed);
  }
  for (int k = 0; k < nk; ++k) {
    const size_t i = static_cast<size_t>(k);
    s.kin[i] = load_body<T>(u.pose[i], u.velocity[i], nx + 6 * k, nx + 6 * nk + 6 * k, seed);
  }
  return s;
}

template <class T> State to_state(const SystemT<T>& s) {
  State x;
  x.num_bodies = s.nf;
  for (int b = 0; b < s.nf; ++b) {
    const size_t i = static_cast<size_t>(b);
    x.pose[i].R = values(s.free[i].R);
    x.pose[i].p = values(s.free[i].p);
    x.velocity[i] << values(s.free[i].w), values(s.free[i].v);
  }
  return x;
}

/// The 12n chart coordinates of a state in T around its own value (layout of x): the rotation
/// part vee((Q − Qᵀ)/2), Q = R0ᵀR, equals log(Q) to second order at Q = I.
template <class T> void chart_outputs(const SystemT<T>& s, std::array<T, kMaxStateDim>& y) {
  const int nf = s.nf;
  for (int b = 0; b < nf; ++b) {
    const size_t i = static_cast<size_t>(b);
    const Mat3 R0 = values(s.free[i].R);
    M<T> Q = mul(Mat3(R0.transpose()), s.free[i].R);
    y[static_cast<size_t>(6 * b + 0)] = 0.5 * (Q.m[2][1] - Q.m[1][2]);
    y[static_cast<size_t>(6 * b + 1)] = 0.5 * (Q.m[0][2] - Q.m[2][0]);
    y[static_cast<size_t>(6 * b + 2)] = 0.5 * (Q.m[1][0] - Q.m[0][1]);
    for (int k = 0; k < 3; ++k) {
      y[static_cast<size_t>(6 * b + 3 + k)] = s.free[i].p[k];
      y[static_cast<size_t>(6 * nf + 6 * b + k)] = s.free[i].w[k];
      y[static_cast<size_t>(6 * nf + 6 * b + 3 + k)] = s.free[i].v[k];
    }
  }
}

template <class T> void wrench_outputs(int nf, const std::array<WrenchT<T>, kMaxFreeBodies>& w,
                                       std::array<T, kMaxGeneralizedDim>& y) {
  for (int b = 0; b < nf; ++b)
    for (int k = 0; k < 3; ++k) {
      y[static_cast<size_t>(6 * b + k)] = w[static_cast<size_t>(b)].tau[k];
      y[static_cast<size_t>(6 * b + 3 + k)] = w[static_cast<size_t>(b)].f[k];
    }
}

// ----------------------------------------------------------------------------------------------
// Validation.
// ----------------------------------------------------------------------------------------------
void validate_geometry(const Geometry& g, const char* what) {
  if (g.is_sphere()) {
    if (!std::isfinite(g.radius) || !(g.radius > 0.0) || g.radius > kMaxLength)
      throw std::invalid_argument(std::string(what) + ": sphere radius must be positive, finite and at most 1e100");
  } else if (g.cloud->size() < 1) {
    throw std::invalid_argument(std::string(what) + ": empty point cloud");
  }
}

template <class V>
bool bounded(const V& v) {
  return v.cwiseAbs().maxCoeff() <= kMaxLength;
}

void check(const Scene& scene, const State& x, const Control& u, const char* what) {
  const std::string w(what);
  if (x.num_bodies != scene.num_free()) throw std::invalid_argument(w + ": state size does not match the scene");
  if (u.num_free != scene.num_free() || u.num_kinematic != scene.num_kinematic())
    throw std::invalid_argument(w + ": control size does not match the scene");
  for (int b = 0; b < scene.num_free(); ++b) {
    const size_t i = static_cast<size_t>(b);
    if (const char* why = x.pose[i].invalid_reason()) throw std::invalid_argument(w + ": state pose: " + why);
    if (!x.velocity[i].allFinite() || !u.wrench[i].allFinite())
      throw std::invalid_argument(w + ": non-finite state or applied wrench");
    if (!bounded(x.velocity[i]) || !bounded(u.wrench[i]))
      throw std::invalid_argument(w + ": a velocity or wrench entry beyond 1e100 (kMaxLength)");
  }
  for (int k = 0; k < scene.num_kinematic(); ++k) {
    const size_t i = static_cast<size_t>(k);
    if (const char* why = u.pose[i].invalid_reason()) throw std::invalid_argument(w + ": kinematic pose: " + why);
    if (!u.velocity[i].allFinite()) throw std::invalid_argument(w + ": non-finite kinematic velocity");
    if (!bounded(u.velocity[i]))
      throw std::invalid_argument(w + ": a kinematic velocity entry beyond 1e100 (kMaxLength)");
  }
}

void check_h(double h, const char* what) {
  if (!(h > 0.0) || !(h <= kMaxStepSize))
    throw std::invalid_argument(std::string(what) + ": h must be in (0, 1000] s (kMaxStepSize)");
}

/// The culling tree of a body's AOPC (null for a sphere). Clouds of at most 32 points stay one
/// leaf in their own order: nothing to cull, and their sums keep the cloud's summation order.
std::shared_ptr<const PointTree> make_tree(const Geometry& g) {
  if (g.is_sphere()) return nullptr;
  return std::make_shared<const PointTree>(*g.cloud, g.cloud->size() <= 32 ? g.cloud->size() : 8);
}

int check_dim(const Scene& scene, const char* what) {
  const int nz = scene.state_dim() + scene.control_dim();
  if (nz > kMaxDerivativeDim)
    throw std::invalid_argument(std::string(what) + ": dim(x) + dim(u) exceeds kMaxDerivativeDim");
  return nz;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Scene.
// ------------------------------------------------------------------------------------------------
Scene::Scene(const ScmParameters& params, const Vec3& gravity) {
  set_parameters(params);
  set_gravity(gravity);
  free_.reserve(kMaxFreeBodies);
  inv_inertia_.reserve(kMaxFreeBodies);
  kinematic_.reserve(kMaxKinematicBodies);
  free_tree_.reserve(kMaxFreeBodies);
  kinematic_tree_.reserve(kMaxKinematicBodies);
  pairs_.reserve(kMaxContactPairs);
}

void Scene::set_parameters(const ScmParameters& params) {
  params.validate();
  params_ = params;
}

void Scene::set_gravity(const Vec3& g) {
  if (!g.allFinite()) throw std::invalid_argument("Scene: gravity must be finite");
  gravity_ = g;
}

int Scene::add_free_body(const FreeBodySpec& spec) {
  if (num_free() >= kMaxFreeBodies) throw std::invalid_argument("Scene::add_free_body: capacity exceeded");
  if (!std::isfinite(spec.mass) || !(spec.mass > 0.0) || spec.mass > 1e100)
    throw std::invalid_argument("Scene::add_free_body: mass must be positive, finite and at most 1e100");
  if (!spec.inertia.allFinite() || !(spec.inertia.cwiseAbs().maxCoeff() <= 1e100) || (spec.inertia - spec.inertia.transpose()).norm() > 1e-9 * spec.inertia.norm())
    throw std::invalid_argument("Scene::add_free_body: inertia must be finite (entries at most 1e100) and symmetric");
  Eigen::LLT<Mat3> llt(spec.inertia);
  if (llt.info() != Eigen::Success || !(spec.inertia.diagonal().minCoeff() > 0.0))
    throw std::invalid_argument("Scene::add_free_body: inertia must be positive definite");
  validate_geometry(spec.geometry, "Scene::add_free_body");
  free_.push_back(spec);
  inv_inertia_.push_back(spec.inertia.inverse());
  free_tree_.push_back(make_tree(spec.geometry));
  return num_free() - 1;
}

int Scene::add_kinematic_body(const KinematicBodySpec& spec) {
  if (num_kinematic() >= kMaxKinematicBodies)
    throw std::invalid_argument("Scene::add_kinematic_body: capacity exceeded");
  validate_geometry(spec.geometry, "Scene::add_kinematic_body");
  kinematic_.push_back(spec);
  kinematic_tree_.push_back(make_tree(spec.geometry));
  return num_kinematic() - 1;
}

void Scene::add_contact_pair(BodyId a, BodyId b) {
  auto valid = [&](BodyId id) {
    return id.index >= 0 && id.index < (id.kinematic ? num_kinematic() : num_free());
  };
  if (!valid(a) || !valid(b)) throw std::invalid_argument("Scene::add_contact_pair: unknown body");
  if (a.kinematic == b.kinematic && a.index == b.index)
    throw std::invalid_argument("Scene::add_contact_pair: a body cannot collide with itself");
  if (a.kinematic && b.kinematic)
    throw std::invalid_argument("Scene::add_contact_pair: two kinematic bodies exert no dynamics");
  const Geometry& ga = a.kinematic ? kinematic_body(a.index).geometry : free_body(a.index).geometry;
  const Geometry& gb = b.kinematic ? kinematic_body(b.index).geometry : free_body(b.index).geometry;
  if (ga.is_sphere() && gb.is_sphere())
    throw std::invalid_argument("Scene::add_contact_pair: sphere-sphere pairs are not supported");
  for (const auto& p : pairs_) {
    auto same = [](BodyId x, BodyId y) { return x.kinematic == y.kinematic && x.index == y.index; };
    if ((same(p[0], a) && same(p[1], b)) || (same(p[0], b) && same(p[1], a)))
      throw std::invalid_argument("Scene::add_contact_pair: repeated pair");
  }
  if (static_cast<int>(pairs_.size()) >= kMaxContactPairs)
    throw std::invalid_argument("Scene::add_contact_pair: capacity exceeded");
  pairs_.push_back({a, b});
}

void Scene::set_ground(const GroundPlane& ground) {
  if (!ground.point.allFinite() || !ground.normal.allFinite() || !(ground.normal.norm() > 1e-12))
    throw std::invalid_argument("Scene::set_ground: non-finite point or zero normal");
  ground_.point = ground.point;
  ground_.normal = ground.normal.normalized();
  has_ground_ = true;
}

State State::zeros(const Scene& scene) {
  State x;
  x.num_bodies = scene.num_free();
  for (auto& v : x.velocity) v.setZero();
  return x;
}

Control Control::zeros(const Scene& scene) {
  Control u;
  u.num_free = scene.num_free();
  u.num_kinematic = scene.num_kinematic();
  for (auto& v : u.velocity) v.setZero();
  for (auto& v : u.wrench) v.setZero();
  return u;
}

// ------------------------------------------------------------------------------------------------
// Plain evaluation.
// ------------------------------------------------------------------------------------------------
namespace {
/// The per-body [τ; f] (or [ω̇; v̇]) of a plain evaluation as one generalized vector.
GenVec generalized(const Scene& scene, const std::array<WrenchT<double>, kMaxFreeBodies>& w) {
  std::array<double, kMaxGeneralizedDim> y;
  wrench_outputs(scene.num_free(), w, y);
  GenVec g(scene.generalized_dim());
  for (int o = 0; o < g.size(); ++o) g[o] = y[static_cast<size_t>(o)];
  return g;
}
}  // namespace

GenVec contact_forces(const Scene& scene, const State& x, const Control& u) {
  check(scene, x, u, "contact_forces");
  const SystemT<double> s = load<double>(scene, x, u, PlainSeed{});
  std::array<WrenchT<double>, kMaxFreeBodies> w;
  contact_forces_t(scene, s, w);
  return generalized(scene, w);
}

GenVec forward_dynamics(const Scene& scene, const State& x, const Control& u) {
  check(scene, x, u, "forward_dynamics");
  const SystemT<double> s = load<double>(scene, x, u, PlainSeed{});
  std::array<WrenchT<double>, kMaxFreeBodies> a;
  forward_dynamics_t(scene, s, a);
  return generalized(scene, a);
}

GenVec inverse_dynamics(const Scene& scene, const State& x, const Control& u, const GenVec& acceleration) {
  check(scene, x, u, "inverse_dynamics");
  if (acceleration.size() != scene.generalized_dim() || !acceleration.allFinite())
    throw std::invalid_argument("inverse_dynamics: acceleration must have 6n finite entries");
  const GenVec lam = contact_forces(scene, x, u);
  GenVec tau(scene.generalized_dim());
  for (int b = 0; b < scene.num_free(); ++b) {
    const FreeBodySpec& spec = scene.free_body(b);
    const Vec3 w = x.velocity[static_cast<size_t>(b)].head<3>();
    // (24): τ = M v̇ + c − ΣΛ with c = [ω × Jω; −m g].
    tau.segment<3>(6 * b) =
        spec.inertia * acceleration.segment<3>(6 * b) + w.cross(spec.inertia * w) - lam.segment<3>(6 * b);
    tau.segment<3>(6 * b + 3) =
        spec.mass * (acceleration.segment<3>(6 * b + 3) - scene.gravity()) - lam.segment<3>(6 * b + 3);
  }
  return tau;
}

State step(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator) {
  check(scene, x, u, "step");
  check_h(h, "step");
  const SystemT<double> s = load<double>(scene, x, u, PlainSeed{});
  SystemT<double> next;
  step_t(scene, s, h, integrator, next);
  return to_state(next);
}

State step_euler(const Scene& scene, const State& x, const Control& u, double h) {
  return step(scene, x, u, h, Integrator::euler);
}

State step_rk4(const Scene& scene, const State& x, const Control& u, double h) {
  return step(scene, x, u, h, Integrator::rk4);
}

StateVec state_difference(const State& x1, const State& x0) {
  if (x1.num_bodies != x0.num_bodies) throw std::invalid_argument("state_difference: sizes differ");
  const int n = x0.num_bodies;
  StateVec d(12 * n);
  for (int b = 0; b < n; ++b) {
    const size_t i = static_cast<size_t>(b);
    if (!x0.pose[i].is_finite() || !x1.pose[i].is_finite() || !x0.velocity[i].allFinite() ||
        !x1.velocity[i].allFinite())
      throw std::invalid_argument("state_difference: a pose or velocity is not finite");
    d.segment<3>(6 * b) = so3_log(x0.pose[i].R.transpose() * x1.pose[i].R);
    d.segment<3>(6 * b + 3) = x1.pose[i].p - x0.pose[i].p;
    d.segment<6>(6 * n + 6 * b) = x1.velocity[i] - x0.velocity[i];
  }
  return d;
}

State state_retract(const State& x, const StateVec& dx) {
  const int n = x.num_bodies;
  if (dx.size() != 12 * n) throw std::invalid_argument("state_retract: dx must have 12n entries");
  if (!dx.allFinite()) throw std::invalid_argument("state_retract: dx is not finite");
  for (int b = 0; b < n; ++b)
    if (!x.pose[static_cast<size_t>(b)].is_finite() || !x.velocity[static_cast<size_t>(b)].allFinite())
      throw std::invalid_argument("state_retract: a pose or velocity is not finite");
  State y = x;
  for (int b = 0; b < n; ++b) {
    const size_t i = static_cast<size_t>(b);
    y.pose[i].R = x.pose[i].R * so3_exp(dx.segment<3>(6 * b));
    y.pose[i].p += dx.segment<3>(6 * b + 3);
    y.velocity[i] += dx.segment<6>(6 * n + 6 * b);
  }
  return y;
}

// ------------------------------------------------------------------------------------------------
// Derivatives.
// ------------------------------------------------------------------------------------------------
ContactForceJacobian contact_force_jacobian(const Scene& scene, const State& x, const Control& u) {
  check(scene, x, u, "contact_force_jacobian");
  const int nz = check_dim(scene, "contact_force_jacobian");
  const int ng = scene.generalized_dim();
  const SystemT<JacT> s = load<JacT>(scene, x, u, JacSeed{});
  std::array<WrenchT<JacT>, kMaxFreeBodies> w;
  contact_forces_t(scene, s, w);
  std::array<JacT, kMaxGeneralizedDim> y;
  wrench_outputs(s.nf, w, y);
  ContactForceJacobian out;
  out.forces.resize(ng);
  out.J_forces_z.resize(ng, nz);
  for (int o = 0; o < ng; ++o) {
    out.forces[o] = y[static_cast<size_t>(o)].v;
    for (int k = 0; k < nz; ++k) out.J_forces_z(o, k) = y[static_cast<size_t>(o)].d[static_cast<size_t>(k)];
  }
  return out;
}

ContactForceHessian contact_force_hessian(const Scene& scene, const State& x, const Control& u,
                                          const GenVec& weights) {
  check(scene, x, u, "contact_force_hessian");
  const int nz = check_dim(scene, "contact_force_hessian");
  const int ng = scene.generalized_dim();
  if (weights.size() != ng) throw std::invalid_argument("contact_force_hessian: weights must have 6n entries");
  ContactForceHessian out;
  out.forces.resize(ng);
  out.J_forces_z.resize(ng, nz);
  out.H_z.resize(nz, nz);
  for (int j = 0; j < nz; ++j) {
    const SystemT<HesT> s = load<HesT>(scene, x, u, HesSeed{j});
    std::array<WrenchT<HesT>, kMaxFreeBodies> w;
    contact_forces_t(scene, s, w);
    std::array<HesT, kMaxGeneralizedDim> y;
    wrench_outputs(s.nf, w, y);
    for (int k = 0; k < nz; ++k) {
      double hk = 0.0;
      for (int o = 0; o < ng; ++o) hk += weights[o] * y[static_cast<size_t>(o)].d[static_cast<size_t>(k)].d[0];
      out.H_z(k, j) = hk;
    }
    if (j == 0)
      for (int o = 0; o < ng; ++o) {
        out.forces[o] = y[static_cast<size_t>(o)].v.v;
        for (int k = 0; k < nz; ++k) out.J_forces_z(o, k) = y[static_cast<size_t>(o)].d[static_cast<size_t>(k)].v;
      }
  }
  return out;
}

StepJacobian step_jacobian(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator) {
  check(scene, x, u, "step_jacobian");
  check_h(h, "step_jacobian");
  const int nz = check_dim(scene, "step_jacobian");
  const int nx = scene.state_dim();
  const SystemT<JacT> s = load<JacT>(scene, x, u, JacSeed{});
  SystemT<JacT> next;
  step_t(scene, s, h, integrator, next);
  std::array<JacT, kMaxStateDim> y;
  chart_outputs(next, y);
  StepJacobian out;
  out.next = to_state(next);
  out.J_next_z.resize(nx, nz);
  for (int o = 0; o < nx; ++o)
    for (int k = 0; k < nz; ++k) out.J_next_z(o, k) = y[static_cast<size_t>(o)].d[static_cast<size_t>(k)];
  return out;
}

namespace {
/// Runs the dim(z) Hessian passes of the step; calls sink(j, outputs) after each.
template <class Sink>
void step_hessian_passes(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator,
                         int nz, Sink&& sink) {
  for (int j = 0; j < nz; ++j) {
    const SystemT<HesT> s = load<HesT>(scene, x, u, HesSeed{j});
    SystemT<HesT> next;
    step_t(scene, s, h, integrator, next);
    std::array<HesT, kMaxStateDim> y;
    chart_outputs(next, y);
    sink(j, next, y);
  }
}
}  // namespace

StepHessian step_hessian(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator,
                         const StateVec& weights) {
  check(scene, x, u, "step_hessian");
  check_h(h, "step_hessian");
  const int nz = check_dim(scene, "step_hessian");
  const int nx = scene.state_dim();
  if (weights.size() != nx) throw std::invalid_argument("step_hessian: weights must have 12n entries");
  if (!weights.allFinite()) throw std::invalid_argument("step_hessian: weights must be finite");
  StepHessian out;
  out.J_next_z.resize(nx, nz);
  out.H_z.resize(nz, nz);
  step_hessian_passes(scene, x, u, h, integrator, nz,
                      [&](int j, const SystemT<HesT>& next, const std::array<HesT, kMaxStateDim>& y) {
                        for (int k = 0; k < nz; ++k) {
                          double hk = 0.0;
                          for (int o = 0; o < nx; ++o)
                            hk += weights[o] * y[static_cast<size_t>(o)].d[static_cast<size_t>(k)].d[0];
                          out.H_z(k, j) = hk;
                        }
                        if (j != 0) return;
                        out.next = to_state(next);
                        for (int o = 0; o < nx; ++o)
                          for (int k = 0; k < nz; ++k)
                            out.J_next_z(o, k) = y[static_cast<size_t>(o)].d[static_cast<size_t>(k)].v;
                      });
  return out;
}

std::vector<Eigen::MatrixXd> step_hessian_tensor(const Scene& scene, const State& x, const Control& u, double h,
                                                 Integrator integrator) {
  check(scene, x, u, "step_hessian_tensor");
  check_h(h, "step_hessian_tensor");
  const int nz = check_dim(scene, "step_hessian_tensor");
  const int nx = scene.state_dim();
  std::vector<Eigen::MatrixXd> out(static_cast<size_t>(nx), Eigen::MatrixXd::Zero(nz, nz));
  step_hessian_passes(scene, x, u, h, integrator, nz,
                      [&](int j, const SystemT<HesT>&, const std::array<HesT, kMaxStateDim>& y) {
                        for (int o = 0; o < nx; ++o)
                          for (int k = 0; k < nz; ++k)
                            out[static_cast<size_t>(o)](k, j) =
                                y[static_cast<size_t>(o)].d[static_cast<size_t>(k)].d[0];
                      });
  return out;
}

}  // namespace diffcol::ssdf
