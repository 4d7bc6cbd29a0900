// The body of the vector kernels of smooth_planes_vector.cpp, included once per instruction set
// inside its target region (namespace avx2 or avx512), with Simd its vector operations. Not a
// header of its own: no include guard.

// max c over the faces and the sums of (A1)–(A6) into out. Returns false if max c is not finite.
bool plane_sums(const double* ax, const double* ay, const double* az, const double* b, int m, double yx, double yy,
                double yz, double beta, double& cmax, PlaneSums& out) {
  using S = Simd;
  using V = S::V;
  const V vx = S::set1(yx), vy = S::set1(yy), vz = S::set1(yz);
  V vmax = S::set1(-__builtin_inf());
  for (int i = 0; i < m; i += S::kWidth) {
    const int r = m - i;
    const auto k = S::lanes(r);
    const V c = S::fmadd(S::load(ax + i, k, r), vx,
                         S::fmadd(S::load(ay + i, k, r), vy, S::fmsub(S::load(az + i, k, r), vz, S::load(b + i, k, r))));
    vmax = S::max_where(k, vmax, c);
  }
  cmax = S::hmax(vmax);
  if (!(cmax - cmax == 0.0)) return false;  // ±∞ or NaN
  const V vb = S::set1(beta), vm = S::set1(cmax), lo = S::set1(-40.0);
  V sw = S::zero(), gx = sw, gy = sw, gz = sw, mxx = sw, mxy = sw, mxz = sw, myy = sw, myz = sw, mzz = sw;
  for (int j = 0; j < m; j += S::kWidth) {
    const int r = m - j;
    const auto k = S::lanes(r);
    const V a0 = S::load(ax + j, k, r), a1 = S::load(ay + j, k, r), a2 = S::load(az + j, k, r);
    const V c = S::fmadd(a0, vx, S::fmadd(a1, vy, S::fmsub(a2, vz, S::load(b + j, k, r))));
    const V t = S::mul(vb, S::sub(c, vm));
    // faces with β(c − max c) < −40 (and the lanes past m) weigh nothing, as in the scalar code
    const V w = S::keep(S::ge_where(k, t, lo), S::exp_neg40(S::max(t, lo)));
    const V wx = S::mul(w, a0), wy = S::mul(w, a1), wz = S::mul(w, a2);
    sw = S::add(sw, w);
    gx = S::add(gx, wx);
    gy = S::add(gy, wy);
    gz = S::add(gz, wz);
    mxx = S::fmadd(wx, a0, mxx);
    mxy = S::fmadd(wx, a1, mxy);
    mxz = S::fmadd(wx, a2, mxz);
    myy = S::fmadd(wy, a1, myy);
    myz = S::fmadd(wy, a2, myz);
    mzz = S::fmadd(wz, a2, mzz);
  }
  const V sums[10] = {sw, gx, gy, gz, mxx, mxy, mxz, myy, myz, mzz};
  for (int i = 0; i < 10; ++i) out.s[i] = S::hsum(sums[i]);
  return true;
}
