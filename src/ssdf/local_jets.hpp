#pragma once
// Local jets for the one-body terms of the SCM dynamics (the ground contact), lifted to the
// system's directions by the chain rule. Internal to src/ssdf.
#include "contact_terms.hpp"

namespace diffcol::ssdf {
namespace {

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

}  // namespace
}  // namespace diffcol::ssdf
