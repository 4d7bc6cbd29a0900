// Vector kernels of the SCM ground-contact and point–SSDF sums (vector_kernels.hpp): the code in
// vector_kernels_impl.hpp, compiled for AVX2/FMA (four points per vector) and for AVX-512 (eight),
// the widest the CPU has picked at run time.
#include "vector_kernels.hpp"

#include <atomic>
#include <cmath>
#include <cstdlib>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(DIFFCOL_NO_LIBMVEC)
#define DIFFCOL_SCM_VECTOR_KERNELS 1
#include <immintrin.h>
#endif

namespace diffcol::ssdf::detail {

#ifdef DIFFCOL_SCM_VECTOR_KERNELS

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // the vector ABI is what these functions are for
// GCC 12's avx512fintrin.h seeds its "undefined" vectors by self-initialization (a false positive)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
// glibc's libmvec (the AVX2 variant of exp, ≤ 4 ulp), linked with -lmvec.
extern "C" __m256d _ZGVdN4v_exp(__m256d);

/// 2^(j/16), j = 0..15 (correctly rounded), for the AVX-512 exp below.
alignas(64) constexpr double kExp2Sixteenths[16] = {
    1.0, 1.0442737824274138, 1.0905077326652577, 1.1387886347566916, 1.189207115002721, 1.241857812073484,
    1.2968395546510096, 1.3542555469368927, 1.4142135623730951, 1.4768261459394993, 1.5422108254079407,
    1.6104903319492543, 1.681792830507429, 1.7562521603732995, 1.8340080864093424, 1.9152065613971474};

namespace avx2 {
namespace {
/// Four lanes; masks are vectors whose lanes are all ones or zero (sign_lanes: only the sign bit
/// counts, as in blendv).
struct Simd {
  using V = __m256d;
  using M = __m256d;
  static constexpr int kWidth = 4;
  static V set1(double x) { return _mm256_set1_pd(x); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V sub(V a, V b) { return _mm256_sub_pd(a, b); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V quotient(V a, V b) { return _mm256_div_pd(a, b); }
  static V over_sqrt(V a, V h) { return _mm256_div_pd(a, _mm256_sqrt_pd(h)); }
  static V max(V a, V b) { return _mm256_max_pd(a, b); }
  static V min(V a, V b) { return _mm256_min_pd(a, b); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V fmsub(V a, V b, V c) { return _mm256_fmsub_pd(a, b, c); }
  static V fnmadd(V a, V b, V c) { return _mm256_fnmadd_pd(a, b, c); }
  static V abs(V a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
  static M gt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
  static M lt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
  static M le(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
  static M mand(M a, M b) { return _mm256_and_pd(a, b); }
  static V keep(V v, M m) { return _mm256_and_pd(v, m); }
  static V add_where(M m, V a, V b) { return _mm256_add_pd(a, _mm256_and_pd(b, m)); }
  static V sub_where(M m, V a, V b) { return _mm256_sub_pd(a, _mm256_and_pd(b, m)); }
  static V select(M m, V a, V b) { return _mm256_blendv_pd(b, a, m); }
  static M select_mask(M m, M a, M b) { return _mm256_blendv_pd(b, a, m); }
  static M sign_lanes(V v) { return v; }
  /// libmvec's exp (≤ 4 ulp). Measured and kept: an inline exp like the AVX-512 one (a gather
  /// from kExp2Sixteenths) was 15% slower here, though the call spills the live vectors.
  static V exp(V a) { return _ZGVdN4v_exp(a); }
  static V exp_bounded(V a) { return _ZGVdN4v_exp(a); }
  static double hsum(V v) {
    const __m128d lo = _mm256_castpd256_pd128(v), hi = _mm256_extractf128_pd(v, 1);
    const __m128d s = _mm_add_pd(lo, hi);
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
  }
  static M all() { return _mm256_castsi256_pd(_mm256_set1_epi64x(-1)); }
  static M tail(int r) {
    return _mm256_castsi256_pd(_mm256_set_epi64x(r > 3 ? -1 : 0, r > 2 ? -1 : 0, r > 1 ? -1 : 0, -1));
  }
  static V load(const double* p) { return _mm256_loadu_pd(p); }
  static V load_masked(const double* p, M m) { return _mm256_maskload_pd(p, _mm256_castpd_si256(m)); }
  static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
  static void store_masked(double* p, M m, V v) { _mm256_maskstore_pd(p, _mm256_castpd_si256(m), v); }
  /// The lanes of m moved to the front (no compress instruction in AVX2: a permutation of the
  /// 32-bit halves from a 16-entry table indexed by the lane mask).
  static V compress(M m, V v) {
    static constexpr int kPerm[16][8] = {
        {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}, {2, 3, 0, 1, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7},
        {4, 5, 0, 1, 2, 3, 6, 7}, {0, 1, 4, 5, 2, 3, 6, 7}, {2, 3, 4, 5, 0, 1, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7},
        {6, 7, 0, 1, 2, 3, 4, 5}, {0, 1, 6, 7, 2, 3, 4, 5}, {2, 3, 6, 7, 0, 1, 4, 5}, {0, 1, 2, 3, 6, 7, 4, 5},
        {4, 5, 6, 7, 0, 1, 2, 3}, {0, 1, 4, 5, 6, 7, 2, 3}, {2, 3, 4, 5, 6, 7, 0, 1}, {0, 1, 2, 3, 4, 5, 6, 7}};
    const int bits = _mm256_movemask_pd(m);
    const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kPerm[bits]));
    return _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), idx));
  }
  static int count(M m) { return __builtin_popcount(static_cast<unsigned>(_mm256_movemask_pd(m))); }
  /// The lanes of m as the low kWidth bits of an integer (lane i: bit i).
  static unsigned bits(M m) { return static_cast<unsigned>(_mm256_movemask_pd(m)); }
  static double hmin(V v) {
    const __m128d s = _mm_min_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_min_sd(s, _mm_unpackhi_pd(s, s)));
  }
};
#include "vector_kernels_impl.hpp"
}  // namespace
}  // namespace avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,fma")

namespace avx512 {
namespace {
/// Eight lanes; masks are k-registers.
struct Simd {
  using V = __m512d;
  using M = __mmask8;
  static constexpr int kWidth = 8;
  static V set1(double x) { return _mm512_set1_pd(x); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static V sub(V a, V b) { return _mm512_sub_pd(a, b); }
  static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V quotient(V a, V b) { return _mm512_div_pd(a, b); }
  static V over_sqrt(V a, V h) { return _mm512_div_pd(a, _mm512_sqrt_pd(h)); }
  static V max(V a, V b) { return _mm512_max_pd(a, b); }
  static V min(V a, V b) { return _mm512_min_pd(a, b); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V fmsub(V a, V b, V c) { return _mm512_fmsub_pd(a, b, c); }
  static V fnmadd(V a, V b, V c) { return _mm512_fnmadd_pd(a, b, c); }
  static V abs(V a) { return _mm512_andnot_pd(_mm512_set1_pd(-0.0), a); }
  static M gt(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }
  static M lt(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
  static M le(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
  static M mand(M a, M b) { return static_cast<M>(a & b); }
  static V keep(V v, M m) { return _mm512_maskz_mov_pd(m, v); }
  static V add_where(M m, V a, V b) { return _mm512_mask_add_pd(a, m, a, b); }
  static V sub_where(M m, V a, V b) { return _mm512_mask_sub_pd(a, m, a, b); }
  static V select(M m, V a, V b) { return _mm512_mask_blend_pd(m, b, a); }
  static M select_mask(M m, M a, M b) { return static_cast<M>((m & a) | (~m & b)); }
  static M sign_lanes(V v) { return _mm512_movepi64_mask(_mm512_castpd_si512(v)); }
  /// exp(x) inline: a call (libmvec's vector exp) clobbers every vector register, and the
  /// kernels' two dozen live vectors were spilled and reloaded around it (measured: ~60 moves per
  /// vector of points). x = (16e + j) ln2/16 + r, |r| ≤ ln2/32: 2^(j/16) from a 16-entry table in
  /// two registers (vpermt2pd), exp(r) by a degree-6 Chebyshev fit (relative error < 7e-18;
  /// scripts/fit_kernel_polynomials.py), 2^e by vscalefpd (gradual underflow, overflow to +∞). ≤ 2 ulp
  /// above the subnormal range; NaN stays NaN.
  static V exp(V x) {
    return exp_bounded(_mm512_min_pd(_mm512_set1_pd(2000.0), _mm512_max_pd(_mm512_set1_pd(-2000.0), x)));  // NaN stays NaN
  }
  /// exp for |x| ≤ 2000 (no clamp: the ground kernel's arguments are bounded by construction).
  static V exp_bounded(V x) {
    // t = 1.5·2⁵² + n, n = round(16x/ln2): n's low bits are t's, and n = t − 1.5·2⁵² exactly
    const V shifter = _mm512_set1_pd(6755399441055744.0);
    const V t = _mm512_fmadd_pd(x, _mm512_set1_pd(23.083120654223414), shifter);
    const V n = _mm512_sub_pd(t, shifter);
    V r = _mm512_fnmadd_pd(n, _mm512_set1_pd(0.04332169877307024), x);  // ln2/16 in two parts (32 bits, exact ·n)
    r = _mm512_fnmadd_pd(n, _mm512_set1_pd(1.1926343307941173e-11), r);
    const V lo = _mm512_load_pd(kExp2Sixteenths), hi = _mm512_load_pd(kExp2Sixteenths + 8);
    const V table = _mm512_permutex2var_pd(lo, _mm512_castpd_si512(t), hi);  // 2^(j/16), j = n mod 16
    const V e = _mm512_mul_pd(n, _mm512_set1_pd(0.0625));  // vscalefpd takes 2^floor(e)
    // exp(r), |r| ≤ ln2/32 (Taylor would need degree 7)
    V p = _mm512_set1_pd(0.001388909257348018);
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.008333496281271884));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.04166666666188734));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.16666666662843196));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.5000000000000003));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0000000000000022));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
    return _mm512_scalef_pd(_mm512_mul_pd(table, p), e);
  }
  static double hsum(V v) { return _mm512_reduce_add_pd(v); }
  static M all() { return static_cast<M>(0xff); }
  static M tail(int r) { return static_cast<M>((1u << r) - 1u); }
  static V load(const double* p) { return _mm512_loadu_pd(p); }
  static V load_masked(const double* p, M m) { return _mm512_maskz_loadu_pd(m, p); }
  static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
  static void store_masked(double* p, M m, V v) { _mm512_mask_storeu_pd(p, m, v); }
  static double hmin(V v) { return _mm512_reduce_min_pd(v); }
  /// The lanes of m moved to the front (vcompresspd, register form: the memory form is slow).
  static V compress(M m, V v) { return _mm512_maskz_compress_pd(m, v); }
  static int count(M m) { return __builtin_popcount(static_cast<unsigned>(m)); }
  static unsigned bits(M m) { return static_cast<unsigned>(m); }
};
#include "vector_kernels_impl.hpp"
}  // namespace
}  // namespace avx512
#pragma GCC pop_options

#pragma GCC diagnostic pop

namespace {
bool cpu_has_avx512() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  return ok;
}
}  // namespace

bool vector_kernels_available() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

int vector_kernel_widest() { return !vector_kernels_available() ? 0 : cpu_has_avx512() ? 8 : 4; }

namespace {
std::atomic<int>& width_switch() {
  static std::atomic<int> w{[] {
    const char* e = std::getenv("DIFFCOL_VECTOR_KERNEL_WIDTH");
    return (e && std::atoi(e) == 4) ? 4 : vector_kernel_widest();
  }()};
  return w;
}
}  // namespace

int vector_kernel_width() { return width_switch().load(std::memory_order_relaxed); }
void set_vector_kernel_width(int width) {
  width_switch().store(width == 4 && vector_kernels_available() ? 4 : vector_kernel_widest(), std::memory_order_relaxed);
}

void ground_kernel_accumulate(const double* xs, const double* ys, const double* zs, const int (*runs)[2],
                              int run_count, const GroundKernelInput& in, KernelSums& sums) {
  if (vector_kernel_width() == 8)
    avx512::ground_accumulate(xs, ys, zs, runs, run_count, in, sums);
  else
    avx2::ground_accumulate(xs, ys, zs, runs, run_count, in, sums);
}

void ssdf_kernel_accumulate(const double* const (&c)[3], const double* const (&nrm)[3], const int (*runs)[2],
                            int run_count, const SsdfKernelInput& in, KernelSums& sums) {
  if (vector_kernel_width() == 8)
    avx512::ssdf_accumulate(c, nrm, runs, run_count, in, sums);
  else
    avx2::ssdf_accumulate(c, nrm, runs, run_count, in, sums);
}

double box_distance_bounds(const double* const (&lo)[3], const double* const (&hi)[3], int count, const Vec3& q,
                           double* lower) {
  return vector_kernel_width() == 8 ? avx512::box_distance_bounds(lo, hi, count, q, lower)
                                    : avx2::box_distance_bounds(lo, hi, count, q, lower);
}

double min_squared_distance(const double* xs, const double* ys, const double* zs, int begin, int end, const Vec3& q) {
  return vector_kernel_width() == 8 ? avx512::min_squared_distance(xs, ys, zs, begin, end, q)
                                    : avx2::min_squared_distance(xs, ys, zs, begin, end, q);
}

void vector_exp(const double* x, double* y, int n) {
  const int i = vector_kernel_width() == 8 ? avx512::exp_array(x, y, n) : avx2::exp_array(x, y, n);
  for (int k = i; k < n; ++k) y[k] = std::exp(x[k]);  // the tail, in scalar code
}

double max_far_logit(const double* xs, const double* ys, const double* zs, int count, const Vec3& center,
                     const Vec3& qc) {
  return vector_kernel_width() == 8 ? avx512::max_far_logit(xs, ys, zs, count, center, qc)
                                    : avx2::max_far_logit(xs, ys, zs, count, center, qc);
}

void vector_log1p(const double* E, const double* phi, double* y, int n) {
  const int i = vector_kernel_width() == 8 ? avx512::log1p_array(E, phi, y, n) : avx2::log1p_array(E, phi, y, n);
  for (int k = i; k < n; ++k) y[k] = std::log1p(std::signbit(phi[k]) ? 1.0 / E[k] : E[k]);  // the tail
}

void bits_at_most(const double* x, int count, double bound, std::uint64_t* bits) {
  if (vector_kernel_width() == 8)
    avx512::bits_at_most(x, count, bound, bits);
  else
    avx2::bits_at_most(x, count, bound, bits);
}

double box_min_projections(const double* const (&lo)[3], const double* const (&hi)[3], int count, const Vec3& u,
                           double* lower) {
  return vector_kernel_width() == 8 ? avx512::box_bounds(lo, hi, count, u, lower)
                                    : avx2::box_bounds(lo, hi, count, u, lower);
}

int first_below(const double* x, int begin, int count, double bound) {
  return vector_kernel_width() == 8 ? avx512::first_below(x, begin, count, bound)
                                    : avx2::first_below(x, begin, count, bound);
}

double min_projection(const double* xs, const double* ys, const double* zs, int begin, int end, const Vec3& u) {
  return vector_kernel_width() == 8 ? avx512::min_projection(xs, ys, zs, begin, end, u)
                                    : avx2::min_projection(xs, ys, zs, begin, end, u);
}

#else

bool vector_kernels_available() { return false; }
double box_min_projections(const double* const (&)[3], const double* const (&)[3], int, const Vec3&, double*) {
  return 0.0;
}
double min_projection(const double*, const double*, const double*, int, int, const Vec3&) { return 0.0; }
double box_distance_bounds(const double* const (&)[3], const double* const (&)[3], int, const Vec3&, double*) {
  return 0.0;
}
void bits_at_most(const double* x, int count, double bound, std::uint64_t* bits) {
  for (int w = 0; w * 64 < count; ++w) bits[w] = 0;
  for (int j = 0; j < count; ++j)
    if (x[j] <= bound) bits[j >> 6] |= std::uint64_t{1} << (j & 63);
}
double min_squared_distance(const double*, const double*, const double*, int, int, const Vec3&) { return 0.0; }
int first_below(const double* x, int begin, int count, double bound) {
  while (begin < count && !(x[begin] < bound)) ++begin;
  return begin;
}
double max_far_logit(const double*, const double*, const double*, int, const Vec3&, const Vec3&) { return 0.0; }
void vector_exp(const double* x, double* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}
void vector_log1p(const double* E, const double* phi, double* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = std::log1p(std::signbit(phi[i]) ? 1.0 / E[i] : E[i]);
}
int vector_kernel_widest() { return 0; }
int vector_kernel_width() { return 0; }
void set_vector_kernel_width(int) {}
void ground_kernel_accumulate(const double*, const double*, const double*, const int (*)[2], int,
                              const GroundKernelInput&, KernelSums&) {}
void ssdf_kernel_accumulate(const double* const (&)[3], const double* const (&)[3], const int (*)[2], int,
                            const SsdfKernelInput&, KernelSums&) {}

#endif

namespace {
std::atomic<bool>& kernel_switch() {
  static std::atomic<bool> on{[] {
    const char* e = std::getenv("DIFFCOL_NO_VECTOR_KERNELS");
    return !(e && *e && *e != '0');
  }()};
  return on;
}
}  // namespace

bool vector_kernels_enabled() { return vector_kernels_available() && kernel_switch().load(std::memory_order_relaxed); }
void set_vector_kernels_enabled(bool on) { kernel_switch().store(on, std::memory_order_relaxed); }

}  // namespace diffcol::ssdf::detail
