// The smooth polytope's evaluation (A1)–(A6) with the faces in vector lanes: four at a time with
// AVX2/FMA, eight with AVX-512, the widest the CPU has picked at run time (the library itself is
// built for baseline x86-64). detail::smooth_planes_eval (smooth_polytope.hpp) stays the reference
// and the path for other CPUs; these kernels compute the same sums with a different rounding and
// an exp of their own (below), and skip the same faces (weights under e^-40).
#include <atomic>
#include <cmath>
#include <cstdlib>

#include "diffcol/shapes/smooth_polytope.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DIFFCOL_PLANES_VECTOR_KERNELS 1
#include <immintrin.h>
#endif

namespace diffcol::detail {

namespace {

// Sums of one evaluation in the order of smooth_planes_finish: Σw, Σw a (3), Σw a aᵀ (6: xx, xy,
// xz, yy, yz, zz), w = exp(β(c − max c)).
struct PlaneSums {
  double s[10];
};

}  // namespace

#ifdef DIFFCOL_PLANES_VECTOR_KERNELS

// Only intrinsics and plain arithmetic inside the target regions: an inline function of another
// header instantiated here could be emitted with AVX instructions and picked by the linker for
// baseline code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// exp(x) for x ∈ [−40, 0]: x = n ln2 + r, |r| ≤ ln2/2, exp(r) by its Taylor polynomial of degree
// 13 (truncation < 5e-18 relative) in Estrin's scheme (four FMAs deep instead of thirteen: the
// evaluation is on the solve's critical path), 2^n added to the exponent bits (n ≥ −58: no
// underflow). tests/test_shapes.cpp compares the whole evaluation with the scalar one.
#define DIFFCOL_EXP_TAYLOR13(FMA, MUL, SET1, r, out)                                                    \
  do {                                                                                                 \
    const auto r2_ = MUL(r, r);                                                                        \
    const auto r4_ = MUL(r2_, r2_);                                                                    \
    const auto r8_ = MUL(r4_, r4_);                                                                    \
    const auto q0_ = FMA(SET1(1.0), r, SET1(1.0));                                                     \
    const auto q1_ = FMA(SET1(0.16666666666666666), r, SET1(0.5));                                     \
    const auto q2_ = FMA(SET1(0.008333333333333333), r, SET1(0.041666666666666664));                   \
    const auto q3_ = FMA(SET1(0.0001984126984126984), r, SET1(0.001388888888888889));                  \
    const auto q4_ = FMA(SET1(2.7557319223985893e-06), r, SET1(2.48015873015873e-05));                 \
    const auto q5_ = FMA(SET1(2.505210838544172e-08), r, SET1(2.755731922398589e-07));                 \
    const auto q6_ = FMA(SET1(1.6059043836821613e-10), r, SET1(2.08767569878681e-09));                 \
    const auto s0_ = FMA(q1_, r2_, q0_);                                                               \
    const auto s1_ = FMA(q3_, r2_, q2_);                                                               \
    const auto s2_ = FMA(q5_, r2_, q4_);                                                               \
    const auto t0_ = FMA(s1_, r4_, s0_);                                                               \
    const auto t1_ = FMA(q6_, r4_, s2_);                                                               \
    out = FMA(t1_, r8_, t0_);                                                                          \
  } while (false)

constexpr double kLog2e = 1.4426950408889634;
constexpr double kLn2Hi = 0.6931471803691238;   // ln 2 to 32 bits: n·kLn2Hi is exact for |n| < 2^21
constexpr double kLn2Lo = 1.9082149292705877e-10;
constexpr double kShifter = 6755399441055744.0;  // 1.5·2^52: t = x·log2e + kShifter holds n in its low bits

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
namespace {

// Four lanes; masks are vectors whose lanes are all ones or zero.
struct Simd {
  using V = __m256d;
  using M = __m256d;
  static constexpr int kWidth = 4;
  static V set1(double x) { return _mm256_set1_pd(x); }
  static V zero() { return _mm256_setzero_pd(); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V sub(V a, V b) { return _mm256_sub_pd(a, b); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V max(V a, V b) { return _mm256_max_pd(a, b); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V fmsub(V a, V b, V c) { return _mm256_fmsub_pd(a, b, c); }
  // Lanes [0, r) set.
  static M lanes(int r) {
    return _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_set1_epi64x(r), _mm256_set_epi64x(3, 2, 1, 0)));
  }
  // The lanes k of p; r: the lanes left (a full vector is a plain load, vmaskmovpd is slower).
  static V load(const double* p, M k, int r) {
    return r >= 4 ? _mm256_loadu_pd(p) : _mm256_maskload_pd(p, _mm256_castpd_si256(k));
  }
  static V max_where(M k, V a, V b) { return _mm256_blendv_pd(a, _mm256_max_pd(a, b), k); }
  static M ge_where(M k, V a, V b) { return _mm256_and_pd(_mm256_cmp_pd(a, b, _CMP_GE_OQ), k); }
  static V keep(M k, V v) { return _mm256_and_pd(v, k); }
  static V exp_neg40(V x) {
    const V t = _mm256_fmadd_pd(x, set1(kLog2e), set1(kShifter));
    const V n = _mm256_sub_pd(t, set1(kShifter));
    V r = _mm256_fnmadd_pd(n, set1(kLn2Hi), x);
    r = _mm256_fnmadd_pd(n, set1(kLn2Lo), r);
    V p;
    DIFFCOL_EXP_TAYLOR13(_mm256_fmadd_pd, _mm256_mul_pd, set1, r, p);
    // t's mantissa holds 2^51 + n: shifted left by 52, n·2^52 (mod 2^64), added to p's exponent
    const __m256i e = _mm256_slli_epi64(_mm256_castpd_si256(t), 52);
    return _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(p), e));
  }
  static double hsum(V v) {
    const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
  }
  static double hmax(V v) {
    const __m128d s = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_max_sd(s, _mm_unpackhi_pd(s, s)));
  }
};
#include "smooth_planes_vector_impl.hpp"

}  // namespace
}  // namespace avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,fma")
namespace avx512 {
namespace {

// Eight lanes; masks are k-registers.
struct Simd {
  using V = __m512d;
  using M = __mmask8;
  static constexpr int kWidth = 8;
  static V set1(double x) { return _mm512_set1_pd(x); }
  static V zero() { return _mm512_setzero_pd(); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static V sub(V a, V b) { return _mm512_sub_pd(a, b); }
  static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V max(V a, V b) { return _mm512_max_pd(a, b); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V fmsub(V a, V b, V c) { return _mm512_fmsub_pd(a, b, c); }
  static M lanes(int r) { return static_cast<M>(r >= 8 ? 0xff : (1u << r) - 1u); }
  static V load(const double* p, M k, int) { return _mm512_maskz_loadu_pd(k, p); }
  static V max_where(M k, V a, V b) { return _mm512_mask_max_pd(a, k, a, b); }
  static M ge_where(M k, V a, V b) { return _mm512_mask_cmp_pd_mask(k, a, b, _CMP_GE_OQ); }
  static V keep(M k, V v) { return _mm512_maskz_mov_pd(k, v); }
  static V exp_neg40(V x) {
    const V t = _mm512_fmadd_pd(x, set1(kLog2e), set1(kShifter));
    const V n = _mm512_sub_pd(t, set1(kShifter));
    V r = _mm512_fnmadd_pd(n, set1(kLn2Hi), x);
    r = _mm512_fnmadd_pd(n, set1(kLn2Lo), r);
    V p;
    DIFFCOL_EXP_TAYLOR13(_mm512_fmadd_pd, _mm512_mul_pd, set1, r, p);
    const __m512i e = _mm512_slli_epi64(_mm512_castpd_si512(t), 52);
    return _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(p), e));
  }
  static double hsum(V v) { return _mm512_reduce_add_pd(v); }
  static double hmax(V v) { return _mm512_reduce_max_pd(v); }
};
#include "smooth_planes_vector_impl.hpp"

}  // namespace
}  // namespace avx512
#pragma GCC pop_options
#pragma GCC diagnostic pop
#undef DIFFCOL_EXP_TAYLOR13

namespace {

int widest_available() {
  __builtin_cpu_init();  // may run before main (a static initializer's first evaluation)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return 8;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 4;
  return 1;
}

// A requested width capped at what the CPU has: 8, 4 or 1.
int available_width(int want) {
  const int widest = widest_available();
  return want >= 8 ? widest : want >= 4 ? (widest >= 4 ? 4 : 1) : 1;
}

// The width in use: DIFFCOL_PLANES_WIDTH=1, 4 or 8 caps it (for comparisons), else the widest.
std::atomic<int>& width_in_use() {
  static std::atomic<int> w{[] {
    const char* e = std::getenv("DIFFCOL_PLANES_WIDTH");
    return available_width(e ? std::atoi(e) : 8);
  }()};
  return w;
}

}  // namespace

int smooth_planes_width() { return width_in_use().load(std::memory_order_relaxed); }

int set_smooth_planes_width(int width) {
  const int w = available_width(width);
  width_in_use().store(w, std::memory_order_relaxed);
  return w;
}

double smooth_planes_eval_vectorized(const double* ax, const double* ay, const double* az, const double* b, int m,
                                     const Vec3& y, Vec3& grad, Mat3& hess, double beta) {
  const int w = smooth_planes_width();
  if (w > 1 && std::isfinite(y.x() + y.y() + y.z())) {
    double cmax;
    PlaneSums s;
    const bool ok = w == 8 ? avx512::plane_sums(ax, ay, az, b, m, y.x(), y.y(), y.z(), beta, cmax, s)
                           : avx2::plane_sums(ax, ay, az, b, m, y.x(), y.y(), y.z(), beta, cmax, s);
    if (ok) return smooth_planes_finish(cmax, s.s, beta, grad, hess);
  }
  return smooth_planes_eval(ax, ay, az, b, m, y, grad, hess, beta);
}

#else

int smooth_planes_width() { return 1; }
int set_smooth_planes_width(int) { return 1; }
double smooth_planes_eval_vectorized(const double* ax, const double* ay, const double* az, const double* b, int m,
                                     const Vec3& y, Vec3& grad, Mat3& hess, double beta) {
  return smooth_planes_eval(ax, ay, az, b, m, y, grad, hess, beta);
}

#endif

}  // namespace diffcol::detail
