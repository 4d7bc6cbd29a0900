#pragma once
// The SCM contact terms in a generic scalar: the smooth functions and the point–plane force,
// eqs. (14)–(20), the bounds that cull far points, and the contact forces between bodies.
// Internal to src/ssdf.
#include <cmath>
#include <limits>

#include "ground_cut.hpp"
#include "jet.hpp"
#include "vector_kernels.hpp"

namespace diffcol::ssdf {
namespace {

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

}  // namespace
}  // namespace diffcol::ssdf
