// Vector kernels of the SCM ground-contact and point–SSDF sums (vector_kernels.hpp).
#include "vector_kernels.hpp"

#include <atomic>
#include <cstdlib>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(DIFFCOL_NO_LIBMVEC)
#define DIFFCOL_SCM_VECTOR_KERNELS 1
#include <immintrin.h>
#endif

namespace diffcol::ssdf::detail {

#ifdef DIFFCOL_SCM_VECTOR_KERNELS

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // the vector ABI is what these functions are for

// glibc's libmvec (the AVX2 variant of exp, ≤ 4 ulp), linked with -lmvec.
extern "C" __m256d _ZGVdN4v_exp(__m256d);

namespace {

inline double hsum(__m256d v) {
  const __m128d lo = _mm256_castpd256_pd128(v), hi = _mm256_extractf128_pd(v, 1);
  const __m128d s = _mm_add_pd(lo, hi);
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

struct Acc {
  __m256d tx, ty, tz, fx, fy, fz, w, phi;
  void clear() { tx = ty = tz = fx = fy = fz = w = phi = _mm256_setzero_pd(); }
  void add_to(KernelSums& s) const {
    s.moment[0] += hsum(tx);
    s.moment[1] += hsum(ty);
    s.moment[2] += hsum(tz);
    s.force[0] += hsum(fx);
    s.force[1] += hsum(fy);
    s.force[2] += hsum(fz);
    s.weight += hsum(w);
    s.phi += hsum(phi);
  }
};

inline __m256d bc(double x) { return _mm256_set1_pd(x); }

/// log(1 + e) for e ∈ [0, 1] (the softplus's e = exp(−|φ|/ε3)), to about 3 ulp, where no range
/// reduction is needed: with k = [e > √2 − 1], log(1 + e) = k·ln 2 + 2 atanh(s), s = (e − k)/(2 + e + k),
/// |s| ≤ 3 − 2√2 ≈ 0.1716, and 2 atanh(s) = 2s Σ_{j≤10} s^(2j)/(2j + 1) (the next term is below 2⁻⁵⁴
/// relative). This takes s and k (0 or 1); log1p_unit(e) below forms them from e.
inline __m256d log1p_from_ratio(__m256d s, __m256d k) {
  const __m256d t = _mm256_mul_pd(s, s);
  __m256d q = bc(1.0 / 21.0);
  q = _mm256_fmadd_pd(q, t, bc(1.0 / 19.0));
  q = _mm256_fmadd_pd(q, t, bc(1.0 / 17.0));
  q = _mm256_fmadd_pd(q, t, bc(1.0 / 15.0));
  q = _mm256_fmadd_pd(q, t, bc(1.0 / 13.0));
  q = _mm256_fmadd_pd(q, t, bc(1.0 / 11.0));
  q = _mm256_fmadd_pd(q, t, bc(1.0 / 9.0));
  q = _mm256_fmadd_pd(q, t, bc(1.0 / 7.0));
  q = _mm256_fmadd_pd(q, t, bc(1.0 / 5.0));
  q = _mm256_fmadd_pd(q, t, bc(1.0 / 3.0));
  // 2s + 2s·t·q, then + k ln 2 (ln 2 in two parts)
  const __m256d s2 = _mm256_add_pd(s, s);
  const __m256d a = _mm256_fmadd_pd(_mm256_mul_pd(s2, t), q, s2);
  return _mm256_fmadd_pd(k, bc(0.6931471805599453), _mm256_fmadd_pd(k, bc(2.3190468138462996e-17), a));
}

/// log(1 + e), e ∈ [0, 1] (log1p_from_ratio). Measured in the ground kernel: faster than libmvec's
/// log1p, which takes any argument. Non-finite e gives NaN (only in lanes the callers mask out).
inline __m256d log1p_unit(__m256d e) {
  const __m256d k = _mm256_and_pd(_mm256_cmp_pd(e, bc(0.41421356237309503), _CMP_GT_OQ), bc(1.0));
  return log1p_from_ratio(_mm256_div_pd(_mm256_sub_pd(e, k), _mm256_add_pd(_mm256_add_pd(bc(2.0), e), k)), k);
}

/// log(1 + e) with e = E where `neg` is clear and e = 1/E where it is set (E > 0), without forming
/// 1/E: there s = (1 − kE)/((2 + k)E + 1) and k = [E < √2 + 1].
inline __m256d log1p_unit_or_inverse(__m256d E, __m256d neg) {
  const __m256d one = bc(1.0);
  const __m256d k = _mm256_and_pd(
      _mm256_blendv_pd(_mm256_cmp_pd(E, bc(0.41421356237309503), _CMP_GT_OQ),
                       _mm256_cmp_pd(E, bc(2.4142135623730949), _CMP_LT_OQ), neg),
      one);
  const __m256d num = _mm256_blendv_pd(_mm256_sub_pd(E, k), _mm256_fnmadd_pd(k, E, one), neg);
  const __m256d den = _mm256_blendv_pd(_mm256_add_pd(_mm256_add_pd(bc(2.0), E), k),
                                       _mm256_fmadd_pd(_mm256_add_pd(bc(2.0), k), E, one), neg);
  return log1p_from_ratio(_mm256_div_pd(num, den), k);
}

/// e = exp(−|φ|/ε3) on four lanes.
inline __m256d softplus_exp(__m256d phi, const PointPlaneLaw& law) {
  return _ZGVdN4v_exp(_mm256_mul_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), phi), bc(-1.0 / law.eps3)));
}

/// λ = point_plane(φ, u, n) of eqs. (15)–(20) on four lanes, given l = log(1 + exp(−|φ|/ε3)).
inline void point_plane4(__m256d phi, __m256d l, __m256d ux, __m256d uy, __m256d uz, __m256d nx, __m256d ny,
                         __m256d nz, const PointPlaneLaw& law, __m256d& lx, __m256d& ly, __m256d& lz) {
  // c = k softplus(−φ, ε3) = k (max(−φ, 0) + ε3 l), eq. (15)
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d sp =
      _mm256_fmadd_pd(bc(law.eps3), l, _mm256_max_pd(_mm256_xor_pd(phi, sign), _mm256_setzero_pd()));
  // dissipation d(x), x = v_n/v_d, eqs. (16)–(17): 1 − x (x ≤ 0), (x − 2)²/4 (x ≤ 2), 0 beyond
  const __m256d vn = _mm256_fmadd_pd(nx, ux, _mm256_fmadd_pd(ny, uy, _mm256_mul_pd(nz, uz)));
  const __m256d x = _mm256_mul_pd(vn, bc(law.inv_dissipation_velocity));
  const __m256d xm2 = _mm256_sub_pd(x, bc(2.0));
  __m256d d = _mm256_mul_pd(bc(0.25), _mm256_mul_pd(xm2, xm2));
  d = _mm256_blendv_pd(d, _mm256_sub_pd(bc(1.0), x), _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_LE_OQ));
  d = _mm256_and_pd(d, _mm256_cmp_pd(x, bc(2.0), _CMP_LE_OQ));
  const __m256d ln = _mm256_mul_pd(_mm256_mul_pd(bc(law.stiffness), sp), d);  // (18)
  // friction with stiction, (19)–(20): λ = λ_n n − μ λ_n v_t / √(v_s² + ‖v_t‖²)
  const __m256d vtx = _mm256_fnmadd_pd(vn, nx, ux), vty = _mm256_fnmadd_pd(vn, ny, uy),
                vtz = _mm256_fnmadd_pd(vn, nz, uz);
  const __m256d h2 =
      _mm256_fmadd_pd(vtx, vtx, _mm256_fmadd_pd(vty, vty, _mm256_fmadd_pd(vtz, vtz, bc(law.stiction_velocity_sq))));
  const __m256d s = _mm256_div_pd(_mm256_mul_pd(bc(law.friction), ln), _mm256_sqrt_pd(h2));
  lx = _mm256_fmsub_pd(ln, nx, _mm256_mul_pd(s, vtx));
  ly = _mm256_fmsub_pd(ln, ny, _mm256_mul_pd(s, vty));
  lz = _mm256_fmsub_pd(ln, nz, _mm256_mul_pd(s, vtz));
}

/// The ground terms of four points (lanes where `lanes` is all ones; the others add nothing).
inline void four_points(__m256d ax, __m256d ay, __m256d az, __m256d lanes, const GroundKernelInput& in, Acc& acc) {
  // everything in the body frame: the points a need no rotation
  const __m256d nx = bc(in.n_body.x()), ny = bc(in.n_body.y()), nz = bc(in.n_body.z());
  // φ = nᵀa + c0, eq. (14); softmax weight W = exp(−(φ − φ_min)/ε2), culled beyond phi_cut
  const __m256d phi = _mm256_fmadd_pd(nx, ax, _mm256_fmadd_pd(ny, ay, _mm256_fmadd_pd(nz, az, bc(in.c0))));
  const __m256d dphi = _mm256_sub_pd(phi, bc(in.phi_min));
  const __m256d keep = _mm256_and_pd(lanes, _mm256_cmp_pd(dphi, bc(in.phi_cut), _CMP_LT_OQ));
  __m256d Wk, l;  // l = log(1 + exp(−|φ|/ε3))
  if (in.shared_exp_scale > 0.0) {  // ε2 = ε3: E = exp(−φ/ε), W = E·exp(φ_min/ε), exp(−|φ|/ε) = E or 1/E
    const __m256d E = _ZGVdN4v_exp(_mm256_mul_pd(phi, bc(-in.inv_eps2)));
    Wk = _mm256_and_pd(_mm256_mul_pd(E, bc(in.shared_exp_scale)), keep);
    l = log1p_unit_or_inverse(E, phi);  // 1/E where φ's sign bit is set
  } else {
    Wk = _mm256_and_pd(_ZGVdN4v_exp(_mm256_mul_pd(dphi, bc(-in.inv_eps2))), keep);
    l = log1p_unit(softplus_exp(phi, in.law));
  }
  // point velocity w × a + Rᵀv
  const __m256d ox = bc(in.omega_body.x()), oy = bc(in.omega_body.y()), oz = bc(in.omega_body.z());
  const __m256d ux = _mm256_add_pd(_mm256_fmsub_pd(oy, az, _mm256_mul_pd(oz, ay)), bc(in.v_body.x()));
  const __m256d uy = _mm256_add_pd(_mm256_fmsub_pd(oz, ax, _mm256_mul_pd(ox, az)), bc(in.v_body.y()));
  const __m256d uz = _mm256_add_pd(_mm256_fmsub_pd(ox, ay, _mm256_mul_pd(oy, ax)), bc(in.v_body.z()));
  __m256d lx, ly, lz;
  point_plane4(phi, l, ux, uy, uz, nx, ny, nz, in.law, lx, ly, lz);
  // W λ on the kept lanes (a dropped lane's λ may be NaN or infinite: masked, not multiplied by 0)
  lx = _mm256_mul_pd(Wk, _mm256_and_pd(lx, keep));
  ly = _mm256_mul_pd(Wk, _mm256_and_pd(ly, keep));
  lz = _mm256_mul_pd(Wk, _mm256_and_pd(lz, keep));
  acc.tx = _mm256_add_pd(acc.tx, _mm256_fmsub_pd(ay, lz, _mm256_mul_pd(az, ly)));  // a × Wλ
  acc.ty = _mm256_add_pd(acc.ty, _mm256_fmsub_pd(az, lx, _mm256_mul_pd(ax, lz)));
  acc.tz = _mm256_add_pd(acc.tz, _mm256_fmsub_pd(ax, ly, _mm256_mul_pd(ay, lx)));
  acc.fx = _mm256_add_pd(acc.fx, lx);
  acc.fy = _mm256_add_pd(acc.fy, ly);
  acc.fz = _mm256_add_pd(acc.fz, lz);
  acc.w = _mm256_add_pd(acc.w, Wk);
}

/// The point–SSDF terms of four AOPC points (moment arm c).
inline void four_ssdf_points(__m256d cx, __m256d cy, __m256d cz, __m256d nx, __m256d ny, __m256d nz,
                             __m256d lanes, const SsdfKernelInput& in, Acc& acc) {
  const __m256d rx = _mm256_sub_pd(bc(in.q.x()), cx), ry = _mm256_sub_pd(bc(in.q.y()), cy),
                rz = _mm256_sub_pd(bc(in.q.z()), cz);
  const __m256d d2 = _mm256_fmadd_pd(rx, rx, _mm256_fmadd_pd(ry, ry, _mm256_mul_pd(rz, rz)));
  const __m256d dd = _mm256_sub_pd(d2, bc(in.d2_min));
  const __m256d keep = _mm256_and_pd(lanes, _mm256_cmp_pd(dd, bc(in.d2_cut), _CMP_LT_OQ));
  const __m256d Wk = _mm256_and_pd(_ZGVdN4v_exp(_mm256_mul_pd(dd, bc(-in.inv_eps1))), keep);  // eqs. (8)–(9)
  const __m256d phi = _mm256_sub_pd(_mm256_fmadd_pd(nx, rx, _mm256_fmadd_pd(ny, ry, _mm256_mul_pd(nz, rz))),
                                    bc(in.offset));
  __m256d ux, uy, uz;  // relative velocity (21)
  if (in.at_query_point) {
    ux = bc(in.u_query.x());
    uy = bc(in.u_query.y());
    uz = bc(in.u_query.z());
  } else {
    const __m256d ox = bc(in.omega.x()), oy = bc(in.omega.y()), oz = bc(in.omega.z());
    ux = _mm256_sub_pd(bc(in.s.x()), _mm256_fmsub_pd(oy, cz, _mm256_mul_pd(oz, cy)));
    uy = _mm256_sub_pd(bc(in.s.y()), _mm256_fmsub_pd(oz, cx, _mm256_mul_pd(ox, cz)));
    uz = _mm256_sub_pd(bc(in.s.z()), _mm256_fmsub_pd(ox, cy, _mm256_mul_pd(oy, cx)));
  }
  __m256d lx, ly, lz;
  point_plane4(phi, log1p_unit(softplus_exp(phi, in.law)), ux, uy, uz, nx, ny, nz, in.law, lx, ly, lz);
  // W φ and W λ on the kept lanes (a dropped lane's terms may be NaN or infinite: masked)
  lx = _mm256_mul_pd(Wk, _mm256_and_pd(lx, keep));
  ly = _mm256_mul_pd(Wk, _mm256_and_pd(ly, keep));
  lz = _mm256_mul_pd(Wk, _mm256_and_pd(lz, keep));
  acc.phi = _mm256_add_pd(acc.phi, _mm256_mul_pd(Wk, _mm256_and_pd(phi, keep)));
  acc.fx = _mm256_add_pd(acc.fx, lx);
  acc.fy = _mm256_add_pd(acc.fy, ly);
  acc.fz = _mm256_add_pd(acc.fz, lz);
  acc.tx = _mm256_add_pd(acc.tx, _mm256_fmsub_pd(cy, lz, _mm256_mul_pd(cz, ly)));  // c × Wλ
  acc.ty = _mm256_add_pd(acc.ty, _mm256_fmsub_pd(cz, lx, _mm256_mul_pd(cx, lz)));
  acc.tz = _mm256_add_pd(acc.tz, _mm256_fmsub_pd(cx, ly, _mm256_mul_pd(cy, lx)));
  acc.w = _mm256_add_pd(acc.w, Wk);
}

__m256i tail_mask(int r) { return _mm256_set_epi64x(r > 3 ? -1 : 0, r > 2 ? -1 : 0, r > 1 ? -1 : 0, -1); }

__attribute__((noinline)) void ssdf_accumulate_avx2(const double* const (&c)[3], const double* const (&nrm)[3],
                                                    int begin, int end, const SsdfKernelInput& in,
                                                    KernelSums& sums) {
  Acc acc;
  acc.clear();
  const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  int i = begin;
  for (; i + 4 <= end; i += 4)
    four_ssdf_points(_mm256_loadu_pd(c[0] + i), _mm256_loadu_pd(c[1] + i), _mm256_loadu_pd(c[2] + i),
                     _mm256_loadu_pd(nrm[0] + i), _mm256_loadu_pd(nrm[1] + i), _mm256_loadu_pd(nrm[2] + i), all, in,
                     acc);
  if (i < end) {
    const __m256i m = tail_mask(end - i);
    four_ssdf_points(_mm256_maskload_pd(c[0] + i, m), _mm256_maskload_pd(c[1] + i, m),
                     _mm256_maskload_pd(c[2] + i, m), _mm256_maskload_pd(nrm[0] + i, m),
                     _mm256_maskload_pd(nrm[1] + i, m), _mm256_maskload_pd(nrm[2] + i, m), _mm256_castsi256_pd(m),
                     in, acc);
  }
  acc.add_to(sums);
}

__attribute__((noinline)) void accumulate_avx2(const double* xs, const double* ys, const double* zs, int begin,
                                               int end, const GroundKernelInput& in, KernelSums& sums) {
  Acc acc;
  acc.clear();
  const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  int i = begin;
  for (; i + 4 <= end; i += 4)
    four_points(_mm256_loadu_pd(xs + i), _mm256_loadu_pd(ys + i), _mm256_loadu_pd(zs + i), all, in, acc);
  if (i < end) {
    const __m256i m = tail_mask(end - i);
    four_points(_mm256_maskload_pd(xs + i, m), _mm256_maskload_pd(ys + i, m), _mm256_maskload_pd(zs + i, m),
                _mm256_castsi256_pd(m), in, acc);
  }
  acc.add_to(sums);
}

}  // namespace

#pragma GCC diagnostic pop
#pragma GCC pop_options

bool vector_kernels_available() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

void ground_kernel_accumulate(const double* xs, const double* ys, const double* zs, int begin, int end,
                              const GroundKernelInput& in, KernelSums& sums) {
  accumulate_avx2(xs, ys, zs, begin, end, in, sums);
}

void ssdf_kernel_accumulate(const double* const (&c)[3], const double* const (&nrm)[3], int begin, int end,
                            const SsdfKernelInput& in, KernelSums& sums) {
  ssdf_accumulate_avx2(c, nrm, begin, end, in, sums);
}

#else

bool vector_kernels_available() { return false; }
void ground_kernel_accumulate(const double*, const double*, const double*, int, int, const GroundKernelInput&,
                              KernelSums&) {}
void ssdf_kernel_accumulate(const double* const (&)[3], const double* const (&)[3], int, int, const SsdfKernelInput&,
                            KernelSums&) {}

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
