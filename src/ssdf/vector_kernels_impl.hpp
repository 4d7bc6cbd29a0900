// The SCM vector kernels (vector_kernels.hpp), written once over a SIMD wrapper `Simd` (the lane
// type V, the lane-mask type M and the operations below). vector_kernels.cpp includes this file
// once per instruction set, each time inside that set's target region and its own namespace, after
// defining Simd there; so this file includes nothing and has no include guard.
//
// Simd provides: kWidth; set1, add, sub, mul, quotient(a, b) = a/b, over_sqrt(a, h) = a/√h, max (x86 semantics: the second operand
// where either is NaN), fmadd(a, b, c) = ab + c, fmsub = ab − c, fnmadd = c − ab, abs,
// gt / lt / le (ordered, quiet) -> M, mand(M, M), keep(v, m) (v where m, else +0), add_where(m, a, b) /
// sub_where(m, a, b) (a ± b where m, else a),
// select(m, a, b) (a where m, else b), select_mask (the same for masks), sign_lanes(v) -> M (the
// lanes whose sign bit is set; only for select / select_mask), exp, hsum, all(),
// tail(r) (the first r lanes), load, load_masked, store, store_masked, min (x86 semantics, as max),
// hmin, compress(m, v) (the lanes of m moved to the front) and count(m) (the lanes in m); exp_bounded(x),
// exp for |x| ≤ 2000 (the AVX-512 exp without its clamp).

using V = Simd::V;
using M = Simd::M;

inline V bc(double x) { return Simd::set1(x); }

/// Per-lane partial sums. The moment Σ a × Wλ is kept as the six products Σ a_i (Wλ)_j, i ≠ j
/// (one FMA each per point instead of a cross product and an add per component), and formed
/// once at the end.
struct Acc {
  V xy, xz, yx, yz, zx, zy, fx, fy, fz, w, phi;
  void clear() { xy = xz = yx = yz = zx = zy = fx = fy = fz = w = phi = bc(0.0); }
  /// Adds a × λ (λ = Wλ of the lanes) and λ itself.
  void add_moment_and_force(V ax, V ay, V az, V lx, V ly, V lz) {
    xy = Simd::fmadd(ax, ly, xy);
    xz = Simd::fmadd(ax, lz, xz);
    yx = Simd::fmadd(ay, lx, yx);
    yz = Simd::fmadd(ay, lz, yz);
    zx = Simd::fmadd(az, lx, zx);
    zy = Simd::fmadd(az, ly, zy);
    fx = Simd::add(fx, lx);
    fy = Simd::add(fy, ly);
    fz = Simd::add(fz, lz);
  }
  void add_to(KernelSums& s) const {
    s.moment[0] += Simd::hsum(Simd::sub(yz, zy));
    s.moment[1] += Simd::hsum(Simd::sub(zx, xz));
    s.moment[2] += Simd::hsum(Simd::sub(xy, yx));
    s.force[0] += Simd::hsum(fx);
    s.force[1] += Simd::hsum(fy);
    s.force[2] += Simd::hsum(fz);
    s.weight += Simd::hsum(w);
    s.phi += Simd::hsum(phi);
  }
};

/// log(1 + e) for e ∈ [0, 1] (the softplus's e = exp(−|φ|/ε3)), to about 3 ulp, where no range
/// reduction is needed: with k = [e > √2 − 1], log(1 + e) = k·ln 2 + 2 atanh(s), s = (e − k)/(2 + e + k),
/// |s| ≤ 3 − 2√2 ≈ 0.1716, and 2 atanh(s) = 2s + 2s·t·q(t), t = s², q(t) = Σ_j t^j/(2j + 3) ≈ a
/// degree-6 Chebyshev fit on [0, 0.02944] (|error| < 1.6e-16, so < 5e-18 relative to the result;
/// the series itself needs nine terms; scripts/fit_kernel_polynomials.py). This takes s and the
/// lanes k where k = 1; log1p_unit(e) below forms them from e.
inline V log1p_from_ratio(V s, M k) {
  const V t = Simd::mul(s, s);
  V q = bc(0.07308292712444311);
  q = Simd::fmadd(q, t, bc(0.07665855309105386));
  q = Simd::fmadd(q, t, bc(0.09091444727837474));
  q = Simd::fmadd(q, t, bc(0.11111105565129939));
  q = Simd::fmadd(q, t, bc(0.14285714313001635));
  q = Simd::fmadd(q, t, bc(0.19999999999949722));
  q = Simd::fmadd(q, t, bc(0.3333333333333335));
  // 2s + 2s·t·q, then + ln 2 on the lanes of k (ln 2 in two parts)
  const V s2 = Simd::add(s, s);
  const V a = Simd::fmadd(Simd::mul(s2, t), q, s2);
  return Simd::add_where(k, Simd::add_where(k, a, bc(2.3190468138462996e-17)), bc(0.6931471805599453));
}

/// log(1 + e), e ∈ [0, 1] (log1p_from_ratio). Measured in the ground kernel: faster than libmvec's
/// log1p, which takes any argument. Non-finite e gives NaN (only in lanes the callers mask out).
inline V log1p_unit(V e) {
  const V one = bc(1.0);
  const M k = Simd::gt(e, bc(0.41421356237309503));
  return log1p_from_ratio(Simd::quotient(Simd::sub_where(k, e, one), Simd::add_where(k, Simd::add(bc(2.0), e), one)), k);
}

/// log(1 + e) with e = E where φ's sign bit is clear and e = 1/E where it is set (E > 0), without
/// forming 1/E: there s = (1 − kE)/((2 + k)E + 1) and k = [E < √2 + 1].
/// Vectors whose lanes share one sign (most: a resting face, a side wall) skip the selects.
inline V log1p_unit_or_inverse(V E, V phi) {
  const M neg = Simd::sign_lanes(phi);
  const V one = bc(1.0), two = bc(2.0);
  const int negative = Simd::count(neg);
  if (negative == 0) return log1p_unit(E);
  if (negative == Simd::kWidth) {
    const M k = Simd::lt(E, bc(2.4142135623730949));
    return log1p_from_ratio(Simd::quotient(Simd::sub_where(k, one, E), Simd::add_where(k, Simd::fmadd(two, E, one), E)), k);
  }
  const M k = Simd::select_mask(neg, Simd::lt(E, bc(2.4142135623730949)), Simd::gt(E, bc(0.41421356237309503)));
  const V num = Simd::select(neg, Simd::sub_where(k, one, E), Simd::sub_where(k, E, one));
  const V den = Simd::select(neg, Simd::add_where(k, Simd::fmadd(two, E, one), E), Simd::add_where(k, Simd::add(two, E), one));
  return log1p_from_ratio(Simd::quotient(num, den), k);
}

/// e = exp(−|φ|/ε3).
inline V softplus_exp(V phi, const PointPlaneLaw& law) { return Simd::exp(Simd::mul(Simd::abs(phi), bc(-1.0 / law.eps3))); }

/// W·λ with λ = point_plane(φ, u, n) of eqs. (15)–(20), given l = log(1 + exp(−|φ|/ε3)), on the
/// lanes in `keep` (zero elsewhere: a dropped lane's λ may be NaN or infinite, so it is masked,
/// not multiplied by W = 0).
inline void weighted_point_plane(V W, M keep, V phi, V l, V ux, V uy, V uz, V nx, V ny, V nz, const PointPlaneLaw& law,
                                 V& lx, V& ly, V& lz) {
  // c = k softplus(−φ, ε3) = k (max(−φ, 0) + ε3 l) = k (ε3 l − min(φ, 0)), eq. (15)
  const V sp = Simd::fmsub(bc(law.eps3), l, Simd::min(phi, bc(0.0)));
  // dissipation d(x), x = v_n/v_d, eqs. (16)–(17): 1 − x (x ≤ 0), (x − 2)²/4 (x ≤ 2), 0 beyond;
  // with y = x/2 − 1: −1 − 2y (y ≤ −1), y² (y ≤ 0), 0 beyond
  const V vn = Simd::fmadd(nx, ux, Simd::fmadd(ny, uy, Simd::mul(nz, uz)));
  const V y = Simd::fmsub(vn, bc(0.5 * law.inv_dissipation_velocity), bc(1.0));
  V d = Simd::select(Simd::le(y, bc(-1.0)), Simd::fmadd(y, bc(-2.0), bc(-1.0)), Simd::mul(y, y));
  d = Simd::keep(d, Simd::le(y, bc(0.0)));
  // W λ_n, eq. (18), on the kept lanes
  const V wln = Simd::keep(Simd::mul(Simd::mul(W, bc(law.stiffness)), Simd::mul(sp, d)), keep);
  // friction with stiction, (19)–(20): λ = λ_n (n − μ v_t / √(v_s² + ‖v_t‖²))
  const V vtx = Simd::fnmadd(vn, nx, ux), vty = Simd::fnmadd(vn, ny, uy), vtz = Simd::fnmadd(vn, nz, uz);
  const V h2 = Simd::fmadd(vtx, vtx, Simd::fmadd(vty, vty, Simd::fmadd(vtz, vtz, bc(law.stiction_velocity_sq))));
  const V s = Simd::over_sqrt(bc(law.friction), h2);  // μ/√h² apart from the chain through λ_n
  lx = Simd::mul(wln, Simd::fnmadd(s, vtx, nx));
  ly = Simd::mul(wln, Simd::fnmadd(s, vty, ny));
  lz = Simd::mul(wln, Simd::fnmadd(s, vtz, nz));
}

/// The ground terms of one vector of packed points a with their φ = nᵀa + c0 (eq. (14)), all
/// within the cut (ground_accumulate); lanes outside `keep` (a partial last vector) add nothing.
inline void ground_points(V phi, V ax, V ay, V az, M keep, const GroundKernelInput& in, Acc& acc) {
  // everything in the body frame: the points a need no rotation
  const V nx = bc(in.n_body.x()), ny = bc(in.n_body.y()), nz = bc(in.n_body.z());
  // softmax weight W = exp(−(φ − φ_min)/ε2)
  V Wk, l;  // l = log(1 + exp(−|φ|/ε3))
  if (in.shared_exp_scale > 0.0) {  // ε2 = ε3: E = exp(−φ/ε), W = E·exp(φ_min/ε), exp(−|φ|/ε) = E or 1/E
    const V E = Simd::exp_bounded(Simd::mul(phi, bc(-in.inv_eps2)));  // |φ|/ε ≤ kSharedExpLogit + G
    Wk = Simd::keep(Simd::mul(E, bc(in.shared_exp_scale)), keep);
    l = log1p_unit_or_inverse(E, phi);  // 1/E where φ's sign bit is set
  } else {
    Wk = Simd::keep(Simd::exp_bounded(Simd::mul(Simd::sub(phi, bc(in.phi_min)), bc(-in.inv_eps2))), keep);  // in [−G, 0]
    l = log1p_unit(softplus_exp(phi, in.law));
  }
  // point velocity w × a + Rᵀv
  const V ox = bc(in.omega_body.x()), oy = bc(in.omega_body.y()), oz = bc(in.omega_body.z());
  const V ux = Simd::fmadd(oy, az, Simd::fnmadd(oz, ay, bc(in.v_body.x())));
  const V uy = Simd::fmadd(oz, ax, Simd::fnmadd(ox, az, bc(in.v_body.y())));
  const V uz = Simd::fmadd(ox, ay, Simd::fnmadd(oy, ax, bc(in.v_body.z())));
  V lx, ly, lz;
  weighted_point_plane(Wk, keep, phi, l, ux, uy, uz, nx, ny, nz, in.law, lx, ly, lz);
  acc.add_moment_and_force(ax, ay, az, lx, ly, lz);  // Σ a × Wλ, Σ Wλ
  acc.w = Simd::add(acc.w, Wk);
}

/// The softmax gap of the point–SSDF weights, d_i − d_min with d_i = ‖q − c_i‖² (8), or for far
/// queries (SsdfKernelInput::far) ℓ_max − ℓ_i with ℓ_i = 2 qcᵀ(c_i − center) − ‖c_i − center‖² =
/// ‖q − center‖² − d_i, computed without ‖q‖² (aopc.hpp's kFarQueryRatio).
inline V query_gap(V cx, V cy, V cz, V rx, V ry, V rz, const SsdfKernelInput& in) {
  if (!in.far) return Simd::sub(Simd::fmadd(rx, rx, Simd::fmadd(ry, ry, Simd::mul(rz, rz))), bc(in.d2_min));
  const V px = Simd::sub(cx, bc(in.center.x())), py = Simd::sub(cy, bc(in.center.y())),
          pz = Simd::sub(cz, bc(in.center.z()));
  const V p2 = Simd::fmadd(px, px, Simd::fmadd(py, py, Simd::mul(pz, pz)));
  const V l = Simd::fmsub(bc(2.0), Simd::fmadd(bc(in.qc.x()), px, Simd::fmadd(bc(in.qc.y()), py, Simd::mul(bc(in.qc.z()), pz))), p2);
  return Simd::sub(bc(in.logit_max), l);
}

/// The point–SSDF terms of one vector of AOPC points (moment arm c).
inline void ssdf_points(V cx, V cy, V cz, V nx, V ny, V nz, M lanes, const SsdfKernelInput& in, Acc& acc) {
  const V rx = Simd::sub(bc(in.q.x()), cx), ry = Simd::sub(bc(in.q.y()), cy), rz = Simd::sub(bc(in.q.z()), cz);
  const V dd = query_gap(cx, cy, cz, rx, ry, rz, in);
  const M keep = Simd::mand(lanes, Simd::lt(dd, bc(in.d2_cut)));
  const V Wk = Simd::keep(Simd::exp(Simd::mul(dd, bc(-in.inv_eps1))), keep);  // eqs. (8)–(9)
  const V phi = Simd::sub(Simd::fmadd(nx, rx, Simd::fmadd(ny, ry, Simd::mul(nz, rz))), bc(in.offset));
  // W φ on the kept lanes (a dropped lane's φ may be infinite: masked)
  acc.phi = Simd::add(acc.phi, Simd::mul(Wk, Simd::keep(phi, keep)));
  acc.w = Simd::add(acc.w, Wk);
  const M force = Simd::mand(keep, Simd::lt(phi, bc(in.phi_force_cut)));
  if (Simd::count(force) == 0) return;  // no lane within the force cut: weights only
  V ux, uy, uz;  // relative velocity (21)
  if (in.at_query_point) {
    ux = bc(in.u_query.x());
    uy = bc(in.u_query.y());
    uz = bc(in.u_query.z());
  } else {
    const V ox = bc(in.omega.x()), oy = bc(in.omega.y()), oz = bc(in.omega.z());
    ux = Simd::fmadd(oz, cy, Simd::fnmadd(oy, cz, bc(in.s.x())));
    uy = Simd::fmadd(ox, cz, Simd::fnmadd(oz, cx, bc(in.s.y())));
    uz = Simd::fmadd(oy, cx, Simd::fnmadd(ox, cy, bc(in.s.z())));
  }
  V lx, ly, lz;
  weighted_point_plane(Wk, force, phi, log1p_unit(softplus_exp(phi, in.law)), ux, uy, uz, nx, ny, nz, in.law, lx,
                       ly, lz);
  acc.add_moment_and_force(cx, cy, cz, lx, ly, lz);  // Σ c × Wλ, Σ Wλ
}

[[gnu::noinline]] void ssdf_accumulate(const double* const (&c)[3], const double* const (&nrm)[3],
                                       const int (*runs)[2], int run_count, const SsdfKernelInput& in,
                                       KernelSums& sums) {
  constexpr int W = Simd::kWidth;
  Acc acc;
  acc.clear();
  // Two passes per chunk, as ground_accumulate: the points within the weight cut (‖r‖² − d²_min <
  // d2_cut, the test of ssdf_points) are packed into full vectors (coordinates and normals).
  constexpr int kChunk = 256;
  alignas(64) double buf[6][kChunk + W];
  const V qx = bc(in.q.x()), qy = bc(in.q.y()), qz = bc(in.q.z());
  int nb = 0;
  auto flush = [&](bool last) {
    int i = 0;
    for (; i + W <= nb; i += W)
      ssdf_points(Simd::load(buf[0] + i), Simd::load(buf[1] + i), Simd::load(buf[2] + i), Simd::load(buf[3] + i),
                  Simd::load(buf[4] + i), Simd::load(buf[5] + i), Simd::all(), in, acc);
    if (last) {
      if (i < nb) {
        const M m = Simd::tail(nb - i);
        ssdf_points(Simd::load_masked(buf[0] + i, m), Simd::load_masked(buf[1] + i, m),
                    Simd::load_masked(buf[2] + i, m), Simd::load_masked(buf[3] + i, m),
                    Simd::load_masked(buf[4] + i, m), Simd::load_masked(buf[5] + i, m), m, in, acc);
      }
      return;
    }
    for (int a = 0; a < 6; ++a)  // fewer than W left: to the front
      for (int k = i; k < nb; ++k) buf[a][k - i] = buf[a][k];
    nb -= i;
  };
  auto pack = [&](int i, M lanes, bool full) {
    V v[6];
    for (int a = 0; a < 3; ++a) {
      v[a] = full ? Simd::load(c[a] + i) : Simd::load_masked(c[a] + i, lanes);
      v[3 + a] = full ? Simd::load(nrm[a] + i) : Simd::load_masked(nrm[a] + i, lanes);
    }
    const V rx = Simd::sub(qx, v[0]), ry = Simd::sub(qy, v[1]), rz = Simd::sub(qz, v[2]);
    const M keep = Simd::mand(lanes, Simd::lt(query_gap(v[0], v[1], v[2], rx, ry, rz, in), bc(in.d2_cut)));
    for (int a = 0; a < 6; ++a) Simd::store(buf[a] + nb, Simd::compress(keep, v[a]));
    nb += Simd::count(keep);
    if (nb > kChunk - W) flush(false);
  };
  for (int r = 0; r < run_count; ++r) {
    const int begin = runs[r][0], end = runs[r][1];
    int i = begin;
    for (; i + W <= end; i += W) pack(i, Simd::all(), true);
    if (i < end) pack(i, Simd::tail(end - i), false);
  }
  flush(true);
  acc.add_to(sums);
}

[[gnu::noinline]] void ground_accumulate(const double* xs, const double* ys, const double* zs,
                                         const int (*runs)[2], int run_count, const GroundKernelInput& in,
                                         KernelSums& sums) {
  constexpr int W = Simd::kWidth;
  Acc acc;
  acc.clear();
  // Two passes per chunk: the points within the force cut (φ − φ_min < phi_force_cut) are packed
  // into full vectors, so the costly terms run only on them and without the partial vector at
  // the end of every run (whole vectors, e.g. of a face at rest, are stored without compressing);
  // those beyond it but within the weight cut (φ − φ_min < phi_cut) are packed apart (their
  // φ − φ_min) and add only their weight, an exp per full vector.
  // 128 points per chunk: 2-4% faster per 4000-point step than 256 (a smaller stack footprint
  // next to the streamed coordinates; measured), 64 no better than 256.
  constexpr int kChunk = 128;
  alignas(64) double bx[kChunk + W], by[kChunk + W], bz[kChunk + W], bphi[kChunk + W], bw[kChunk + W];
  const V nx = bc(in.n_body.x()), ny = bc(in.n_body.y()), nz = bc(in.n_body.z());
  int nb = 0, nw = 0;
  const auto flush_weights = [&](bool last) {  // the weight-only points: W = exp(−(φ − φ_min)/ε2)
    int i = 0;
    for (; i + W <= nw; i += W)
      acc.w = Simd::add(acc.w, Simd::exp_bounded(Simd::mul(Simd::load(bw + i), bc(-in.inv_eps2))));
    if (last && i < nw) {
      const M m = Simd::tail(nw - i);
      acc.w = Simd::add(acc.w, Simd::keep(Simd::exp_bounded(Simd::mul(Simd::load_masked(bw + i, m), bc(-in.inv_eps2))), m));
      return;
    }
    for (int k = i; k < nw; ++k) bw[k - i] = bw[k];
    nw -= i;
  };
  auto flush = [&](bool last) {
    int i = 0;
    for (; i + W <= nb; i += W)
      ground_points(Simd::load(bphi + i), Simd::load(bx + i), Simd::load(by + i), Simd::load(bz + i), Simd::all(),
                    in, acc);
    if (last) {
      if (i < nb) {
        const M m = Simd::tail(nb - i);
        ground_points(Simd::load_masked(bphi + i, m), Simd::load_masked(bx + i, m), Simd::load_masked(by + i, m),
                      Simd::load_masked(bz + i, m), m, in, acc);
      }
      return;
    }
    for (int k = i; k < nb; ++k) {  // fewer than W left: to the front
      bx[k - i] = bx[k];
      by[k - i] = by[k];
      bz[k - i] = bz[k];
      bphi[k - i] = bphi[k];
    }
    nb -= i;
  };
  auto pack = [&](V ax, V ay, V az, M lanes) {
    const V phi = Simd::fmadd(nx, ax, Simd::fmadd(ny, ay, Simd::fmadd(nz, az, bc(in.c0))));
    const V dphi = Simd::sub(phi, bc(in.phi_min));
    const M keep = Simd::mand(lanes, Simd::lt(dphi, bc(in.phi_force_cut)));
    // beyond the force cut but within the weight cut: the weight only
    const M weight_only = Simd::mand(Simd::mand(lanes, Simd::lt(dphi, bc(in.phi_cut))), Simd::le(bc(in.phi_force_cut), dphi));
    if (const int c = Simd::count(weight_only); c > 0) {
      Simd::store(bw + nw, Simd::compress(weight_only, dphi));
      nw += c;
      if (nw > kChunk - W) flush_weights(false);
    }
    if (const int c = Simd::count(keep); c == W) {  // a whole vector (a face at rest): no compress
      Simd::store(bx + nb, ax);
      Simd::store(by + nb, ay);
      Simd::store(bz + nb, az);
      Simd::store(bphi + nb, phi);
      nb += W;
    } else if (c > 0) {
      Simd::store(bx + nb, Simd::compress(keep, ax));
      Simd::store(by + nb, Simd::compress(keep, ay));
      Simd::store(bz + nb, Simd::compress(keep, az));
      Simd::store(bphi + nb, Simd::compress(keep, phi));
      nb += c;
    }
    if (nb > kChunk - W) flush(false);
  };
  for (int r = 0; r < run_count; ++r) {
    const int begin = runs[r][0], end = runs[r][1];
    int i = begin;
    for (; i + W <= end; i += W) pack(Simd::load(xs + i), Simd::load(ys + i), Simd::load(zs + i), Simd::all());
    if (i < end) {
      const M m = Simd::tail(end - i);
      pack(Simd::load_masked(xs + i, m), Simd::load_masked(ys + i, m), Simd::load_masked(zs + i, m), m);
    }
  }
  flush(true);
  flush_weights(true);
  acc.add_to(sums);
}

/// The flat scan of `count` boxes: lower[j] = least(box j), returns min_j largest(box j), with
/// box(lx, ly, lz, hx, hy, hz, least, largest) the per-box bounds (box_bounds, box_distance).
template <class Box>
double scan_boxes(const double* const (&lo)[3], const double* const (&hi)[3], int count, double* lower,
                  const Box& box) {
  constexpr int W = Simd::kWidth;
  const V inf = bc(__builtin_inf());
  V upper = inf;
  int j = 0;
  for (; j + W <= count; j += W) {
    V least, largest;
    box(Simd::load(lo[0] + j), Simd::load(lo[1] + j), Simd::load(lo[2] + j), Simd::load(hi[0] + j),
        Simd::load(hi[1] + j), Simd::load(hi[2] + j), least, largest);
    Simd::store(lower + j, least);
    upper = Simd::min(upper, largest);
  }
  if (j < count) {
    const M m = Simd::tail(count - j);
    V least, largest;
    box(Simd::load_masked(lo[0] + j, m), Simd::load_masked(lo[1] + j, m), Simd::load_masked(lo[2] + j, m),
        Simd::load_masked(hi[0] + j, m), Simd::load_masked(hi[1] + j, m), Simd::load_masked(hi[2] + j, m), least,
        largest);
    Simd::store_masked(lower + j, m, least);
    upper = Simd::min(upper, Simd::select(m, largest, inf));
  }
  return Simd::hmin(upper);
}

[[gnu::noinline]] double box_bounds(const double* const (&lo)[3], const double* const (&hi)[3], int count,
                                    const Vec3& u, double* lower) {
  // uᵀp over a box is least at the corner taking lo_a where u_a ≥ 0 and hi_a elsewhere, largest at
  // the opposite one: the corners' arrays are picked once, three FMAs per bound
  const double* near[3];
  const double* far[3];
  for (int a = 0; a < 3; ++a) {
    near[a] = u[a] >= 0.0 ? lo[a] : hi[a];
    far[a] = u[a] >= 0.0 ? hi[a] : lo[a];
  }
  const V ux = bc(u.x()), uy = bc(u.y()), uz = bc(u.z());
  return scan_boxes(near, far, count, lower, [&](V nx, V ny, V nz, V fx, V fy, V fz, V& least, V& largest) {
    least = Simd::fmadd(ux, nx, Simd::fmadd(uy, ny, Simd::mul(uz, nz)));
    largest = Simd::fmadd(ux, fx, Simd::fmadd(uy, fy, Simd::mul(uz, fz)));
  });
}

[[gnu::noinline]] double min_projection(const double* xs, const double* ys, const double* zs, int begin, int end,
                                        const Vec3& u) {
  constexpr int W = Simd::kWidth;
  const V ux = bc(u.x()), uy = bc(u.y()), uz = bc(u.z());
  const V inf = bc(__builtin_inf());
  V best = inf;
  int i = begin;
  for (; i + W <= end; i += W)
    best = Simd::min(best, Simd::fmadd(ux, Simd::load(xs + i), Simd::fmadd(uy, Simd::load(ys + i),
                                                                           Simd::mul(uz, Simd::load(zs + i)))));
  if (i < end) {
    const M m = Simd::tail(end - i);
    const V v = Simd::fmadd(ux, Simd::load_masked(xs + i, m),
                            Simd::fmadd(uy, Simd::load_masked(ys + i, m), Simd::mul(uz, Simd::load_masked(zs + i, m))));
    best = Simd::min(best, Simd::select(m, v, inf));
  }
  return Simd::hmin(best);
}

/// ‖q − p‖² over a box (lo, hi): its least value (0 inside) and its largest (farthest corner).
inline void box_distance(V qx, V qy, V qz, V lx, V ly, V lz, V hx, V hy, V hz, V& least, V& largest) {
  const V zero = bc(0.0);
  const V ax = Simd::sub(lx, qx), bx = Simd::sub(qx, hx);
  const V ay = Simd::sub(ly, qy), by = Simd::sub(qy, hy);
  const V az = Simd::sub(lz, qz), bz = Simd::sub(qz, hz);
  const V nx = Simd::max(Simd::max(ax, bx), zero), ny = Simd::max(Simd::max(ay, by), zero),
          nz = Simd::max(Simd::max(az, bz), zero);
  const V fx = Simd::max(Simd::abs(ax), Simd::abs(bx)), fy = Simd::max(Simd::abs(ay), Simd::abs(by)),
          fz = Simd::max(Simd::abs(az), Simd::abs(bz));
  least = Simd::fmadd(nx, nx, Simd::fmadd(ny, ny, Simd::mul(nz, nz)));
  largest = Simd::fmadd(fx, fx, Simd::fmadd(fy, fy, Simd::mul(fz, fz)));
}

[[gnu::noinline]] double box_distance_bounds(const double* const (&lo)[3], const double* const (&hi)[3], int count,
                                             const Vec3& q, double* lower) {
  const V qx = bc(q.x()), qy = bc(q.y()), qz = bc(q.z());
  return scan_boxes(lo, hi, count, lower, [&](V lx, V ly, V lz, V hx, V hy, V hz, V& least, V& largest) {
    box_distance(qx, qy, qz, lx, ly, lz, hx, hy, hz, least, largest);
  });
}

[[gnu::noinline]] double min_squared_distance(const double* xs, const double* ys, const double* zs, int begin,
                                              int end, const Vec3& q) {
  constexpr int W = Simd::kWidth;
  const V qx = bc(q.x()), qy = bc(q.y()), qz = bc(q.z());
  const V inf = bc(__builtin_inf());
  auto d2 = [&](V x, V y, V z) {
    const V rx = Simd::sub(qx, x), ry = Simd::sub(qy, y), rz = Simd::sub(qz, z);
    return Simd::fmadd(rx, rx, Simd::fmadd(ry, ry, Simd::mul(rz, rz)));
  };
  V best = inf;
  int i = begin;
  for (; i + W <= end; i += W) best = Simd::min(best, d2(Simd::load(xs + i), Simd::load(ys + i), Simd::load(zs + i)));
  if (i < end) {
    const M m = Simd::tail(end - i);
    const V v = d2(Simd::load_masked(xs + i, m), Simd::load_masked(ys + i, m), Simd::load_masked(zs + i, m));
    best = Simd::min(best, Simd::select(m, v, inf));
  }
  return Simd::hmin(best);
}

[[gnu::noinline]] void bits_at_most(const double* x, int count, double bound, std::uint64_t* bits) {
  constexpr int W = Simd::kWidth;  // divides 64: a vector's bits stay within one word
  for (int w = 0; w * 64 < count; ++w) bits[w] = 0;
  const V b = bc(bound);
  int j = 0;
  for (; j + W <= count; j += W)
    bits[j >> 6] |= std::uint64_t{Simd::bits(Simd::le(Simd::load(x + j), b))} << (j & 63);
  if (j < count) {
    const M m = Simd::tail(count - j);
    bits[j >> 6] |= std::uint64_t{Simd::bits(Simd::mand(m, Simd::le(Simd::load_masked(x + j, m), b)))} << (j & 63);
  }
}

[[gnu::noinline]] int first_below(const double* x, int begin, int count, double bound) {
  constexpr int W = Simd::kWidth;
  const V b = bc(bound);
  int j = begin;
  for (; j + W <= count; j += W)
    if (const unsigned m = Simd::bits(Simd::lt(Simd::load(x + j), b))) return j + __builtin_ctz(m);
  if (j < count) {
    const M t = Simd::tail(count - j);
    if (const unsigned m = Simd::bits(Simd::mand(t, Simd::lt(Simd::load_masked(x + j, t), b))))
      return j + __builtin_ctz(m);
  }
  return count;
}

[[gnu::noinline]] double max_far_logit(const double* xs, const double* ys, const double* zs, int count,
                                       const Vec3& center, const Vec3& qc) {
  constexpr int W = Simd::kWidth;
  SsdfKernelInput in;  // query_gap with logit_max = 0: −ℓ_i
  in.far = true;
  in.center = center;
  in.qc = qc;
  const V zero = bc(0.0);
  V best = bc(__builtin_inf());  // min of −ℓ_i
  int i = 0;
  for (; i + W <= count; i += W)
    best = Simd::min(best, query_gap(Simd::load(xs + i), Simd::load(ys + i), Simd::load(zs + i), zero, zero, zero, in));
  if (i < count) {
    const M m = Simd::tail(count - i);
    const V g = query_gap(Simd::load_masked(xs + i, m), Simd::load_masked(ys + i, m), Simd::load_masked(zs + i, m),
                          zero, zero, zero, in);
    best = Simd::min(best, Simd::select(m, g, bc(__builtin_inf())));
  }
  return -Simd::hmin(best);
}

/// y = log1p_unit_or_inverse(E, φ) for the whole vectors of [0, n) (vector_log1p); returns how many
/// entries it did.
[[gnu::noinline]] int log1p_array(const double* E, const double* phi, double* y, int n) {
  int i = 0;
  for (; i + Simd::kWidth <= n; i += Simd::kWidth)
    Simd::store(y + i, log1p_unit_or_inverse(Simd::load(E + i), Simd::load(phi + i)));
  return i;
}

/// y = exp(x) for the whole vectors of x[0, n) (vector_exp); returns how many entries it did.
[[gnu::noinline]] int exp_array(const double* x, double* y, int n) {
  int i = 0;
  for (; i + Simd::kWidth <= n; i += Simd::kWidth) Simd::store(y + i, Simd::exp(Simd::load(x + i)));
  return i;
}
