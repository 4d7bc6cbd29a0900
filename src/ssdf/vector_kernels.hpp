#pragma once
// The SCM's per-point sums in plain doubles, four points at a time with AVX2/FMA or eight with
// AVX-512 (picked at run time), glibc's vector exp (libmvec) and a log1p for arguments in [0, 1],
// for the forward dynamics: the ground contact
// (point–plane forces (14)–(20) weighted by the soft minimum of the plane distances) and the
// point–SSDF contact (21)–(22). The templated code in dynamics.cpp stays the reference (and does
// every derivative order); these kernels compute the same sums with a different rounding.
// Internal to src/ssdf.
#include <cstdint>

#include "diffcol/math/se3.hpp"

namespace diffcol::ssdf::detail {

/// The point–plane force law, eqs. (15)–(20).
struct PointPlaneLaw {
  double eps3 = 0.0;  ///< softplus temperature (> 0)
  double stiffness = 0.0, inv_dissipation_velocity = 0.0, stiction_velocity_sq = 0.0, friction = 0.0;
};

/// Everything the per-point ground term needs, in the body frame (the frame of the points a_f).
struct GroundKernelInput {
  Vec3 n_body;        ///< unit ground normal Rᵀn
  Vec3 omega_body;    ///< body angular velocity w
  Vec3 v_body;        ///< Rᵀv, v the world velocity of the body origin
  double c0 = 0.0;    ///< nᵀ(p − ground point): φ_f = n_bodyᵀa_f + c0
  double phi_min = 0.0;  ///< min_f φ_f (the softmax shift; exact, so no rescaling)
  double phi_cut = 0.0;  ///< points with φ_f − φ_min ≥ phi_cut get zero weight (point_tree.hpp)
  /// points with φ_f − φ_min ≥ phi_force_cut (≤ phi_cut) add their weight only (ground_cut.hpp)
  double phi_force_cut = 0.0;
  double inv_eps2 = 0.0;    ///< 1/ε2 (> 0)
  /// exp(φ_min/ε2) when ε2 = ε3 (the default) and |φ_min|/ε2 ≤ kSharedExpLogit, else 0. Then one
  /// exp per point serves both the weight W = exp(−φ/ε2)·exp(φ_min/ε2) and the softplus's
  /// exp(−|φ|/ε3) (its reciprocal where φ < 0), and neither leaves double's range for the points
  /// the cutoff keeps.
  double shared_exp_scale = 0.0;
  PointPlaneLaw law;
};
/// See GroundKernelInput::shared_exp_scale.
constexpr double kSharedExpLogit = 300.0;

/// The sums both kernels accumulate: Σ W (moment arm × λ), Σ W λ, Σ W and (point–SSDF only) Σ W φ.
/// Ground: arm a_f, λ in the body frame; point–SSDF: arm c_i, the AOPC's body frame.
struct KernelSums {
  double moment[3] = {0, 0, 0};
  double force[3] = {0, 0, 0};
  double weight = 0.0;
  double phi = 0.0;
};

/// True when the vector kernels can run here (x86-64 with AVX2 and FMA, built with GCC/Clang).
bool vector_kernels_available();
/// vector_kernels_available() unless switched off by set_vector_kernels_enabled(false) (tests
/// compare both paths) or by the environment variable DIFFCOL_NO_VECTOR_KERNELS=1.
bool vector_kernels_enabled();
void set_vector_kernels_enabled(bool on);
/// Points per vector of the widest kernel this CPU runs: 8 (AVX-512F/DQ), 4 (AVX2/FMA) or 0.
int vector_kernel_widest();
/// The kernel width in use: vector_kernel_widest(), or 4 when the environment variable
/// DIFFCOL_VECTOR_KERNEL_WIDTH=4 or set_vector_kernel_width(4) asks for the AVX2 kernels (tests
/// run both; the two round differently).
int vector_kernel_width();
/// 4: the AVX2 kernels (where available); anything else: the widest.
void set_vector_kernel_width(int width);

/// Adds the terms of the points xs/ys/zs[runs[r][0], runs[r][1]) for r < run_count (body frame,
/// structure of arrays) to `sums`. Call only when vector_kernels_available().
void ground_kernel_accumulate(const double* xs, const double* ys, const double* zs, const int (*runs)[2],
                              int run_count, const GroundKernelInput& in, KernelSums& sums);

/// Flat scan of `count` boxes (lo[a][j] ≤ p_a ≤ hi[a][j]): lower[j] = min over box j of uᵀp.
/// Returns min_j (max over box j of uᵀp), an upper bound of min uᵀp over points in the boxes.
/// Call only when vector_kernels_available().
double box_min_projections(const double* const (&lo)[3], const double* const (&hi)[3], int count, const Vec3& u,
                           double* lower);
/// bits[j / 64] bit j % 64 = [x[j] ≤ bound] for j < count (NaN: 0), the bits past count 0;
/// bits has ⌈count/64⌉ words. Call only when vector_kernels_available().
void bits_at_most(const double* x, int count, double bound, std::uint64_t* bits);
/// The least j in [begin, count) with x[j] < bound (NaN: never), or count. Call only when
/// vector_kernels_available().
int first_below(const double* x, int begin, int count, double bound);
/// min uᵀp over the points [begin, end) (structure of arrays; +inf when empty). Call only when
/// vector_kernels_available().
double min_projection(const double* xs, const double* ys, const double* zs, int begin, int end, const Vec3& u);

/// y[i] = exp(x[i]) by the exp of the kernels in use (for tests): AVX-512, inline (≤ 2 ulp above
/// the subnormal range); AVX2, libmvec's (≤ 4 ulp); the last n mod width entries, std::exp.
void vector_exp(const double* x, double* y, int n);

/// max_i 2 qcᵀ(p_i − center) − ‖p_i − center‖² over the points [0, count) (the largest far logit).
/// Call only when vector_kernels_available().
double max_far_logit(const double* xs, const double* ys, const double* zs, int count, const Vec3& center,
                     const Vec3& qc);

/// y[i] = log(1 + E[i]) where phi[i]'s sign bit is clear (E ∈ [0, 1]) and log(1 + 1/E[i]) where it
/// is set (E ≥ 1): the kernels' log1p of the softplus (for tests; the last n mod width entries by
/// std::log1p).
void vector_log1p(const double* E, const double* phi, double* y, int n);

/// The point–SSDF term of a query point q against an AOPC (frame of the AOPC's body B):
/// r_i = q − c_i, W_i = exp(−(‖r_i‖² − d²_min)/ε1) (culled beyond d2_cut), φ_i = n_iᵀr_i − offset,
/// relative velocity u_i = s − ω × c_i (or u_query for every point), λ_i the point–plane force.
struct SsdfKernelInput {
  Vec3 q, s, omega, u_query;
  bool at_query_point = false;
  double offset = 0.0;
  double d2_min = 0.0;   ///< min_i ‖r_i‖² (the softmax shift)
  double d2_cut = 0.0;   ///< points whose gap ‖r_i‖² − d2_min (far: logit_max − ℓ_i) ≥ d2_cut get zero weight
  /// Far queries (aopc.hpp's kFarQueryRatio): the gap is logit_max − ℓ_i with the far logits
  /// ℓ_i = 2 qcᵀ(c_i − center) − ‖c_i − center‖², qc = q − center (d2_min unused).
  bool far = false;
  Vec3 center = Vec3::Zero(), qc = Vec3::Zero();
  double logit_max = 0.0;
  double phi_force_cut = 0.0;  ///< points with φ_i ≥ phi_force_cut add W and W φ only (their force is negligible)
  double inv_eps1 = 0.0;  ///< 1/ε1 (> 0)
  PointPlaneLaw law;
};

/// Adds the terms of the points c/nrm[runs[r][0], runs[r][1]) for r < run_count (coordinates
/// c[0..2], unit normals nrm[0..2]; the AOPC's body frame, structure of arrays). Call only when
/// vector_kernels_available().
void ssdf_kernel_accumulate(const double* const (&c)[3], const double* const (&nrm)[3], const int (*runs)[2],
                            int run_count, const SsdfKernelInput& in, KernelSums& sums);

/// Flat scan of `count` boxes (lo[a][j] ≤ p_a ≤ hi[a][j]): lower[j] = min over box j of ‖q − p‖²
/// (0 inside). Returns min_j (max over box j of ‖q − p‖²), an upper bound of the nearest point's
/// squared distance when every box holds a point. Call only when vector_kernels_available().
double box_distance_bounds(const double* const (&lo)[3], const double* const (&hi)[3], int count, const Vec3& q,
                           double* lower);
/// min ‖q − p‖² over the points [begin, end) (structure of arrays; +inf when empty). Call only
/// when vector_kernels_available().
double min_squared_distance(const double* xs, const double* ys, const double* zs, int begin, int end, const Vec3& q);

}  // namespace diffcol::ssdf::detail
