// Second-order pose derivatives and shape-parameter derivatives of the DCOL contact (seed
// Sec. II-B, the IFT on the exact KKT conditions (2)–(5) carried one order further), on the
// active set of the polished solution. See include/diffcol/dcol/hessians.hpp.
#include "diffcol/dcol/hessians.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "cone_ops.hpp"
#include "cone_program.hpp"

namespace diffcol::dcol {

namespace {

constexpr int kQ = detail::kMaxKktDim;  // unknowns + multipliers of the active set
constexpr int kR = kMaxConeVars + 8;    // rows in the active set: orthant rows + two 4-dim cones
/// Parameter columns one query can touch (active rows × parameters of a row).
constexpr int kMaxTouched = kMaxTouchedParameters;
using Vec12 = Eigen::Matrix<double, 12, 1>;

/// The active set of a polished solution in world units: rows s = S_x·x + (terms in θ), the
/// constraints φ_j (orthant rows, cones on their boundary or at their apex), the multipliers z,
/// the cones' curvature C = ν(I − ūūᵀ)/‖s̄‖ and the LU factors of
/// K = [[S_xᵀ C S_x, −S_xᵀΦ], [−ΦᵀS_x, 0]].
struct ActiveProblem {
  int n = 0, p = 0, q = 0, nr = 0;
  int row[kR] = {};
  int body[kR] = {};
  // (sx, Phi and K are set where read: rows < nr, columns < n, < p, < q; not zeroed whole)
  double sx[kR][kMaxConeVars];  // ∂s/∂x: p (world), α, slacks (world lengths)
  double z[kR] = {};
  double s[kR] = {};
  // C, block-diagonal: per cone on its boundary, rows r0 + 1 .. r0 + d − 1, C = f(I − ūūᵀ)
  int cones = 0;
  int cone_r0[2] = {}, cone_d[2] = {};
  double cone_f[2] = {}, cone_u[2][4] = {};
  double cone_nb[2] = {};  // ‖s̄‖
  int cone_j[2] = {};      // the index of the cone's multiplier ν in μ
  int single_row[kQ] = {};  // per multiplier: its row (φ = s_r), or −1 (a cone on its boundary)
  double Phi[kR][kQ];  // ∇_s φ_j (zeroed per row by add_row)
  double K[kQ][kQ];
  int perm[kQ] = {};
  Vec3 zeta[2] = {Vec3::Zero(), Vec3::Zero()};  // Σ z_r ∂s_r/∂p over each body's rows
  double w[kMaxConeVars] = {};                   // the slacks (world lengths), at their columns
};

DerivativeStatus status_of(const ContactResult& res) {
  switch (res.status) {
    case SolveStatus::ok: return DerivativeStatus::ok;
    case SolveStatus::coincident_origins: return DerivativeStatus::coincident_origins;
    case SolveStatus::invalid_input: return DerivativeStatus::invalid_input;
    default: return DerivativeStatus::solve_failed;
  }
}

/// out = C·v over the active rows, for `cols` columns (row r, column c at v[r][c], out[r][c]).
template <int P>
void apply_curvature(const ActiveProblem& A, const double (&v)[kR][P], int cols, double (&out)[kR][P]) {
  for (int r = 0; r < A.nr; ++r)
    for (int c = 0; c < cols; ++c) out[r][c] = 0.0;
  for (int k = 0; k < A.cones; ++k) {
    const int r0 = A.cone_r0[k], d = A.cone_d[k];
    const double f = A.cone_f[k];
    const double* u = A.cone_u[k];
    for (int c = 0; c < cols; ++c) {
      double uv = 0.0;
      for (int t = 1; t < d; ++t) uv += u[t] * v[r0 + t][c];
      for (int t = 1; t < d; ++t) out[r0 + t][c] = f * (v[r0 + t][c] - u[t] * uv);
    }
  }
}

/// Assembles and factors the active-set problem; false when the solution has none (unpolished)
/// or K is singular.
bool build_active_problem(const ContactResult& res, ActiveProblem& A) {
  const ConeKkt& k = res.kkt;
  if (!k.polished || k.n < 4 || k.n > kMaxConeVars) return false;
  const int n = k.n;
  A.n = n;
  const double ell = k.length_scale, as = k.alpha_scale, zs = as / ell;
  const int l1 = k.orthant_rows[0];
  auto add_row = [&](int i, int body) {
    const int r = A.nr++;
    A.row[r] = i;
    A.body[r] = body;
    for (int c = 0; c < kQ; ++c) A.Phi[r][c] = 0.0;
    for (int j = 0; j < n; ++j) A.sx[r][j] = -k.G[i][j];
    A.sx[r][3] *= ell / as;
    A.z[r] = zs * k.z[i];
    A.s[r] = ell * k.s[i];
    A.zeta[body] += A.z[r] * Vec3(A.sx[r][0], A.sx[r][1], A.sx[r][2]);
    return r;
  };
  if (k.active_count < 0 || k.active_count > kMaxConeVars) return false;
  for (int a = 0; a < k.active_count; ++a) {
    const int i = k.active_rows[a];
    if (i < 0 || i >= k.m) return false;
    const int r = add_row(i, i < l1 ? 0 : 1);
    A.single_row[A.p] = r;
    A.Phi[r][A.p++] = 1.0;
  }
  for (int c = 0; c < k.soc_count; ++c) {
    const int st = k.soc_state[c], s0 = k.soc_start[c], d = k.soc_dim[c];
    if (st == 0) continue;
    if (A.nr + d > kR || A.p + (st == 1 ? 1 : d) > kQ) return false;
    const int r0 = A.nr;
    for (int t = 0; t < d; ++t) add_row(s0 + t, k.soc_body[c]);
    if (st == 2) {
      for (int t = 0; t < d; ++t) {
        A.single_row[A.p] = r0 + t;
        A.Phi[r0 + t][A.p++] = 1.0;
      }
      continue;
    }
    double nb = 0.0;
    for (int t = 1; t < d; ++t) nb += A.s[r0 + t] * A.s[r0 + t];
    nb = std::sqrt(nb);
    if (!(nb > 0.0)) return false;
    const int cb = A.cones++;
    A.cone_r0[cb] = r0;
    A.cone_d[cb] = d;
    A.cone_f[cb] = A.z[r0] / nb;  // ν/‖s̄‖
    A.cone_nb[cb] = nb;
    A.cone_j[cb] = A.p;
    A.single_row[A.p] = -1;
    A.Phi[r0][A.p] = 1.0;
    for (int t = 1; t < d; ++t) {
      const double ut = A.s[r0 + t] / nb;
      A.Phi[r0 + t][A.p] = -ut;
      A.cone_u[cb][t] = ut;
    }
    ++A.p;
  }
  A.q = n + A.p;
  if (A.q != k.kkt_full_dim || A.q > kQ) return false;
  for (int j = 4; j < n; ++j) A.w[j] = ell * k.x[j];
  // K: M = S_xᵀ C S_x, off-diagonal −S_xᵀΦ
  double CS[kR][kMaxConeVars];
  apply_curvature(A, A.sx, n, CS);
  for (int i = 0; i < A.q; ++i)
    for (int j = 0; j < A.q; ++j) A.K[i][j] = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double v = 0.0;
      for (int r = 0; r < A.nr; ++r) v += A.sx[r][i] * CS[r][j];
      A.K[i][j] = v;
    }
  for (int c = 0; c < A.p; ++c)
    for (int i = 0; i < n; ++i) {
      double v = 0.0;
      for (int r = 0; r < A.nr; ++r) v -= A.sx[r][i] * A.Phi[r][c];
      A.K[i][n + c] = A.K[n + c][i] = v;
    }
  return detail::lu_factor(A.K, A.perm, A.q, 1e-12);
}

/// B = ∂²ℒ/∂w∂θ for P columns of ∂s/∂θ (sθ, nr × P; Cst = C·sθ) and T = Σ z_r ∂²s_r/∂x∂θ
/// (n × P): B_x = S_xᵀ C sθ − T, B_μ = −Φᵀ sθ. Column c of B is written to Bc[c][0..q).
template <int P>
void assemble_b(const ActiveProblem& A, const double (&st)[kR][P], const double (&Cst)[kR][P],
                const double (&T)[kMaxConeVars][P], int cols, double (&Bc)[P][kQ]) {
  for (int c = 0; c < cols; ++c) {
    for (int j = 0; j < A.n; ++j) {
      double v = -T[j][c];
      for (int r = 0; r < A.nr; ++r) v += A.sx[r][j] * Cst[r][c];
      Bc[c][j] = v;
    }
    for (int m = 0; m < A.p; ++m) {
      double v = 0.0;
      for (int r = 0; r < A.nr; ++r) v -= A.Phi[r][m] * st[r][c];
      Bc[c][A.n + m] = v;
    }
  }
}

/// ζ·D²q[e_a, e_b] for the second-order term ½ω×(ω×p + v) of a point moved by the twist [ω; v]
/// (the same for exp(η^)p and exp(−η^)p): [[½(pζᵀ + ζpᵀ) − (ζ·p)I, −½ζ^], [½ζ^, 0]].
Mat6 motion_curvature(const Vec3& zeta, const Vec3& p) {
  Mat6 N = Mat6::Zero();
  N.topLeftCorner<3, 3>() = 0.5 * (p * zeta.transpose() + zeta * p.transpose()) - zeta.dot(p) * Mat3::Identity();
  N.topRightCorner<3, 3>() = -0.5 * skew(zeta);
  N.bottomLeftCorner<3, 3>() = 0.5 * skew(zeta);
  return N;
}


/// ½[ω_a×(ω_b×p + v_b) + ω_b×(ω_a×p + v_a)] for the unit twists e_a, e_b (a, b in 0..5): the
/// second-order term of exp(±η^)·p.
Vec3 motion_second(int a, int b, const Vec3& p) {
  const auto part = [&p](int i, int j) {  // ω_i × (ω_j × p + v_j)
    if (i >= 3) return Vec3(Vec3::Zero());
    const Vec3 wi = Vec3::Unit(i);
    const Vec3 t = j < 3 ? Vec3(Vec3::Unit(j).cross(p)) : Vec3(Vec3::Unit(j - 3));
    return Vec3(wi.cross(t));
  };
  return 0.5 * (part(a, b) + part(b, a));
}

/// Hessians of x*, p1, p2 (world twists): the second-order IFT on F(w, θ) = 0, F = (∇_xℒ, −φ):
///   K·w_ab = −D²F[(w_a, e_a), (w_b, e_b)],
/// with F_x = c − S_xᵀλ(s, μ) (λ = Σ μ_j ∇φ_j(s), the multipliers z) and s(x, θ) affine in x:
///   D²F_x = −Σ_r [ ∂³_{xθθ}s_r λ_r + ∂²_{xθ}s_r,a Dλ_r,b + ∂²_{xθ}s_r,b Dλ_r,a + ∂_x s_r D²λ_r ],
///   D²F_μj = −(∇²φ_j[s_a, s_b] + ∇φ_jᵀ D²s),
/// s_a the total first derivative of s, Dλ_a = −C s_a + Φ μ_a, D²λ = ∇³Λ[s_a, s_b] − C D²s
/// + Σ_j (μ_a,j ∇²φ_j s_b + μ_b,j ∇²φ_j s_a), ∇²φ = −(I − ūūᵀ)/‖s̄‖ and
/// ∇³φ[a, b] = ((ū·b)Pa + (ū·a)Pb + (aᵀPb)ū)/‖s̄‖² (P = I − ūūᵀ) on a boundary cone's rows s̄.
/// Four solves give rows 0–3 of K⁻¹ (K symmetric): x_ab = −(K⁻¹)_{0:4,:}·D²F.
void vector_hessians(const ContactResult& res, const ActiveProblem& A, const double (&st)[kR][12],
                     const double (&Wf)[12][kQ], const Vec12& grad, ContactHessians& out) {
  const int n = A.n, q = A.q, nr = A.nr;
  const Vec3 p = res.x_W;
  double Y[4][kQ];
  for (int a = 0; a < 4; ++a) {
    for (int i = 0; i < q; ++i) Y[a][i] = i == a ? 1.0 : 0.0;
    detail::lu_solve(A.K, A.perm, q, Y[a]);
  }
  // The normal n = σ v/‖v‖, v = Σ_{r of body 1} λ_r g_r (g_r = ∂s_r/∂p, world; ζ of body 1):
  // D²v = Σ_r D²λ_r g_r + (terms of g_r turning with body 1). D²λ's part in w_ab is
  // Φμ_ab − C S_x x_ab = L_r·w_ab, so Σ_r g_r (L_r·w_ab) = −(K⁻¹ L_gᵀ)ᵀ D²F: three more solves (Yn).
  const Vec3 vn = A.zeta[0];  // v above
  double Yn[3][kQ];
  {
    double CS[kR][kMaxConeVars];
    apply_curvature(A, A.sx, n, CS);
    for (int k = 0; k < 3; ++k) {
      for (int i = 0; i < q; ++i) Yn[k][i] = 0.0;
      for (int r = 0; r < nr; ++r) {
        if (A.body[r] != 0) continue;
        const double g = A.sx[r][k];
        for (int i = 0; i < n; ++i) Yn[k][i] -= g * CS[r][i];
        for (int j = 0; j < A.p; ++j) Yn[k][n + j] += g * A.Phi[r][j];
      }
      detail::lu_solve(A.K, A.perm, q, Yn[k]);
    }
  }
  Vec3 d2v[12][12];
  // per direction: s_a, Dλ_a
  double sa[kR][12], dl[kR][12];
  for (int r = 0; r < nr; ++r)
    for (int a = 0; a < 12; ++a) {
      double v = st[r][a];
      for (int j = 0; j < n; ++j) v += A.sx[r][j] * Wf[a][j];
      sa[r][a] = v;
    }
  apply_curvature(A, sa, 12, dl);
  for (int r = 0; r < nr; ++r)
    for (int a = 0; a < 12; ++a) {
      double v = -dl[r][a];
      for (int j = 0; j < A.p; ++j) v += A.Phi[r][j] * Wf[a][n + j];
      dl[r][a] = v;
    }
  // Z[b][body] = Σ_{r in body} g_r Dλ_r,b: the terms ∂²_{pθ}s_r,a Dλ_r,b summed over the rows
  // (∂²s_r/∂p∂ω_k = −g_r × e_k for a rotation of the row's body)
  Vec3 Z[12][2];
  for (int b = 0; b < 12; ++b) {
    Z[b][0].setZero();
    Z[b][1].setZero();
    for (int r = 0; r < nr; ++r) Z[b][A.body[r]] += dl[r][b] * Vec3(A.sx[r][0], A.sx[r][1], A.sx[r][2]);
  }
  Eigen::Matrix<double, 4, 1> xab[12][12];
  for (int a = 0; a < 12; ++a)
    for (int b = a; b < 12; ++b) {
      const Vec3 pa(Wf[a][0], Wf[a][1], Wf[a][2]), pb(Wf[b][0], Wf[b][1], Wf[b][2]);
      const int ba = a / 6, bb = b / 6, ka = a % 6, kb = b % 6;
      // D²s_r = g_r·v[body of r]: −(e_kb × p_a) − (e_ka × p_b) for rotations, + D²q for one body
      Vec3 v[2] = {Vec3::Zero(), Vec3::Zero()};
      if (kb < 3) v[bb] -= Vec3::Unit(kb).cross(pa);
      if (ka < 3) v[ba] -= Vec3::Unit(ka).cross(pb);
      if (ba == bb) v[ba] += motion_second(ka, kb, p);
      double d2s[kR];
      for (int r = 0; r < nr; ++r) d2s[r] = A.sx[r][0] * v[A.body[r]].x() + A.sx[r][1] * v[A.body[r]].y() +
                                           A.sx[r][2] * v[A.body[r]].z();
      double F[kQ];
      for (int j = 0; j < A.p; ++j) F[n + j] = A.single_row[j] >= 0 ? -d2s[A.single_row[j]] : 0.0;
      for (int i = 0; i < n; ++i) F[i] = 0.0;
      // F_x = −Σ_r [∂³s_r λ_r + m_a Dλ_b + m_b Dλ_a + ∂_x s_r D²λ_r]; D²λ lives on the cones' rows
      if (ka < 3) {
        const Vec3 t = Z[b][ba].cross(Vec3::Unit(ka));  // −Σ_r m_{r,a} Dλ_r,b = Σ_r (g_r × e_ka) Dλ_r,b
        for (int c = 0; c < 3; ++c) F[c] += t[c];
      }
      if (kb < 3) {
        const Vec3 t = Z[a][bb].cross(Vec3::Unit(kb));
        for (int c = 0; c < 3; ++c) F[c] += t[c];
      }
      if (ba == bb && ka < 3 && kb < 3) {  // Σ_r z_r ∂³s_r/∂p∂ω_a∂ω_b = ½[(ζ·ω_b)ω_a + (ζ·ω_a)ω_b] − (ω_a·ω_b)ζ
        const Vec3& zeta = A.zeta[ba];
        Vec3 t = 0.5 * (zeta[kb] * Vec3::Unit(ka) + zeta[ka] * Vec3::Unit(kb));
        if (ka == kb) t -= zeta;
        for (int c = 0; c < 3; ++c) F[c] -= t[c];
      }
      // D²v outside w_ab: the turning of g_r with body 1 (first and second order), the cones' D²λ
      Vec3 kv = Vec3::Zero();
      if (bb == 0 && kb < 3) kv += Vec3::Unit(kb).cross(Z[a][0]);
      if (ba == 0 && ka < 3) kv += Vec3::Unit(ka).cross(Z[b][0]);
      if (ba == 0 && bb == 0 && ka < 3 && kb < 3)
        kv += 0.5 * (Vec3::Unit(ka).cross(Vec3::Unit(kb).cross(vn)) + Vec3::Unit(kb).cross(Vec3::Unit(ka).cross(vn)));
      for (int k = 0; k < A.cones; ++k) {  // −C D²s, the cones' ∇²φ and ∇³φ terms on their rows s̄
        const int r0 = A.cone_r0[k], d = A.cone_d[k], jc = A.cone_j[k];
        const double* u = A.cone_u[k];
        const double nb = A.cone_nb[k], nu = A.z[r0], f = A.cone_f[k];
        double ua = 0.0, ub = 0.0, us = 0.0;
        for (int t = 1; t < d; ++t) {
          ua += u[t] * sa[r0 + t][a];
          ub += u[t] * sa[r0 + t][b];
          us += u[t] * d2s[r0 + t];
        }
        double Pa[4] = {}, Pb[4] = {}, aPb = 0.0;
        for (int t = 1; t < d; ++t) {
          Pa[t] = sa[r0 + t][a] - u[t] * ua;
          Pb[t] = sa[r0 + t][b] - u[t] * ub;
          aPb += sa[r0 + t][a] * Pb[t];
        }
        const double mua = Wf[a][n + jc], mub = Wf[b][n + jc];
        for (int t = 1; t < d; ++t) {
          const double d2l = -f * (d2s[r0 + t] - u[t] * us) + nu / (nb * nb) * (ub * Pa[t] + ua * Pb[t] + aPb * u[t]) -
                             (mua * Pb[t] + mub * Pa[t]) / nb;
          for (int i = 0; i < n; ++i) F[i] -= A.sx[r0 + t][i] * d2l;
          if (A.body[r0] == 0) kv += d2l * Vec3(A.sx[r0 + t][0], A.sx[r0 + t][1], A.sx[r0 + t][2]);
        }
        F[n + jc] = -(d2s[r0] - us) + aPb / nb;  // −∇φᵀD²s − ∇²φ[s_a, s_b]
      }
      for (int c = 0; c < 4; ++c) {
        double val = 0.0;
        for (int i = 0; i < q; ++i) val -= Y[c][i] * F[i];
        xab[a][b][c] = val;
      }
      for (int c = 0; c < 3; ++c) {
        double val = 0.0;
        for (int i = 0; i < q; ++i) val -= Yn[c][i] * F[i];
        kv[c] += val;
      }
      d2v[a][b] = kv;
    }
  // n = σ v/‖v‖: D²n = σ[P D²v − ((v̂·Dv_b) P Dv_a + (v̂·Dv_a) P Dv_b + (Dv_aᵀ P Dv_b) v̂)/‖v‖]/‖v‖,
  // P = I − v̂v̂ᵀ, Dv_a = Σ_r Dλ_r,a g_r + ω_a × v (body 1's rotations); zero where v vanishes
  const double nv = vn.norm();
  if (nv > 0.0 && std::isfinite(nv)) {
    const Vec3 vh = vn / nv;
    const double sigma = separating_normal(res).dot(vh) < 0.0 ? -1.0 : 1.0;
    Vec3 dv[12], Pdv[12];
    double vdv[12];
    for (int a = 0; a < 12; ++a) {
      dv[a] = Z[a][0];
      if (a < 3) dv[a] += Vec3::Unit(a).cross(vn);
      vdv[a] = vh.dot(dv[a]);
      Pdv[a] = dv[a] - vdv[a] * vh;
    }
    for (int a = 0; a < 12; ++a)
      for (int b = a; b < 12; ++b) {
        const Vec3 P2 = d2v[a][b] - vh.dot(d2v[a][b]) * vh;
        const Vec3 h = sigma / nv * (P2 - (vdv[b] * Pdv[a] + vdv[a] * Pdv[b] + dv[a].dot(Pdv[b]) * vh) / nv);
        for (int c = 0; c < 3; ++c) out.H_normal_W[c](a, b) = out.H_normal_W[c](b, a) = h[c];
      }
  }
  // x*, and p_i = r_i + (x − r_i)/α with r_i = exp(η_i^)·r_i
  const double alpha = res.alpha, ia = 1.0 / alpha;
  const Vec3 r[2] = {res.X_WS1.p, res.X_WS2.p};
  for (int a = 0; a < 12; ++a)
    for (int b = a; b < 12; ++b) {
      const Vec3 xa(Wf[a][0], Wf[a][1], Wf[a][2]), xb(Wf[b][0], Wf[b][1], Wf[b][2]);
      const Vec3 x2 = xab[a][b].head<3>();
      const double aa = grad[a], ab = grad[b], a2 = xab[a][b][3];
      for (int c = 0; c < 3; ++c) out.H_x_W[c](a, b) = out.H_x_W[c](b, a) = x2[c];
      for (int body = 0; body < 2; ++body) {
        const Vec3& ri = r[body];
        // dr_i/dη_i = [−r_i^, I]; the second-order term of exp(η_i^)·r_i
        const auto dr = [&](int e) -> Vec3 {
          if (e / 6 != body) return Vec3::Zero();
          return e % 6 < 3 ? Vec3(Vec3::Unit(e % 6).cross(ri)) : Vec3(Vec3::Unit(e % 6 - 3));
        };
        const Vec3 ra = dr(a), rb = dr(b);
        const Vec3 r2 = (a / 6 == body && b / 6 == body) ? motion_second(a % 6, b % 6, ri) : Vec3(Vec3::Zero());
        const Vec3 h = (x2 - r2) * ia + r2 - ((xa - ra) * ab + (xb - rb) * aa) * (ia * ia) +
                       (p - ri) * (2.0 * aa * ab * ia * ia * ia - a2 * ia * ia);
        std::array<Mat12, 3>& Hp = body == 0 ? out.H_p1_W : out.H_p2_W;
        for (int c = 0; c < 3; ++c) Hp[c](a, b) = Hp[c](b, a) = h[c];
      }
    }
}

}  // namespace

void contact_hessians(const ContactResult& res, ContactHessians& out, ReferenceFrame frame, HessianOutputs outputs) {
  out.frame = frame;
  out.H_alpha_X12.setZero();
  out.H_alpha.setZero();
  out.H_gap.setZero();
  for (int k = 0; k < 3; ++k) {
    out.H_x_W[k].setZero();
    out.H_p1_W[k].setZero();
    out.H_p2_W[k].setZero();
    out.H_normal_W[k].setZero();
  }
  out.status = status_of(res);
  if (!out.ok()) return;
  ActiveProblem A;
  if (!build_active_problem(res, A)) {
    out.status = DerivativeStatus::singular;
    return;
  }
  const Vec3 p = res.x_W;
  // ∂s/∂η_b for row r of body b: [(∂s/∂p × p)ᵀ, −(∂s/∂p)ᵀ] (y = X_WS⁻¹·exp(−η^)·p)
  double st[kR][12] = {};
  double T[kMaxConeVars][12] = {};
  for (int r = 0; r < A.nr; ++r) {
    const Vec3 g(A.sx[r][0], A.sx[r][1], A.sx[r][2]);
    const Vec3 gp = g.cross(p);
    const int c0 = 6 * A.body[r];
    for (int a = 0; a < 3; ++a) {
      st[r][c0 + a] = gp[a];
      st[r][c0 + 3 + a] = -g[a];
    }
  }
  // T = Σ z_r ∂²s_r/∂x∂θ: on the p rows and ω columns, ∂²q/∂p∂ω gives −ζ^
  for (int b = 0; b < 2; ++b) {
    const Mat3 S = skew(A.zeta[b]);
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) T[a][6 * b + c] = -S(a, c);
  }
  double Cst[kR][12];
  apply_curvature(A, st, 12, Cst);
  double Bc[12][kQ];
  assemble_b<12>(A, st, Cst, T, 12, Bc);
  Mat12 H;
  Vec12 grad;
  for (int a = 0; a < 12; ++a) {
    double g = 0.0;
    for (int r = 0; r < A.nr; ++r) g -= A.z[r] * st[r][a];
    grad[a] = g;
  }
  // ∂²ℒ/∂θ² = sθᵀ C sθ − Σ_b ζ_b·D²q_b
  for (int a = 0; a < 12; ++a)
    for (int b = a; b < 12; ++b) {
      double v = 0.0;
      for (int r = 0; r < A.nr; ++r) v += st[r][a] * Cst[r][b];
      H(a, b) = v;
    }
  for (int b = 0; b < 2; ++b) {
    const Mat6 N = motion_curvature(A.zeta[b], p);
    for (int i = 0; i < 6; ++i)
      for (int j = i; j < 6; ++j) H(6 * b + i, 6 * b + j) -= N(i, j);
  }
  // − Bᵀ K⁻¹ B; the first-order solutions w_b = −K⁻¹B_b are kept for the vector outputs
  double Wf[12][kQ];
  for (int b = 0; b < 12; ++b) {
    double x[kQ];
    for (int i = 0; i < A.q; ++i) x[i] = Bc[b][i];
    detail::lu_solve(A.K, A.perm, A.q, x);
    for (int i = 0; i < A.q; ++i) Wf[b][i] = -x[i];
    for (int a = 0; a <= b; ++a) {
      double v = 0.0;
      for (int i = 0; i < A.q; ++i) v += Bc[a][i] * x[i];
      H(a, b) -= v;
    }
  }
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < a; ++b) H(a, b) = H(b, a);
  if (!H.allFinite() || !grad.allFinite()) {
    out.status = DerivativeStatus::singular;
    return;
  }
  // gap = (1 − 1/α)·D, D = ‖r_2 − r_1‖, r_i = exp(η_i^)·r_i
  const double alpha = res.alpha;
  const Vec3 r1 = res.X_WS1.p, r2 = res.X_WS2.p, r12 = r2 - r1;
  const double D = r12.norm();
  const Vec3 u = r12 / D;
  Eigen::Matrix<double, 3, 12> dr;  // d(r_2 − r_1)/dη
  dr.block<3, 3>(0, 0) = skew(r1);
  dr.block<3, 3>(0, 3) = -Mat3::Identity();
  dr.block<3, 3>(0, 6) = -skew(r2);
  dr.block<3, 3>(0, 9) = Mat3::Identity();
  const Vec12 dD = dr.transpose() * u;
  Mat12 HD = dr.transpose() * ((Mat3::Identity() - u * u.transpose()) / D) * dr;
  HD.topLeftCorner<6, 6>() -= motion_curvature(u, r1);
  HD.bottomRightCorner<6, 6>() += motion_curvature(u, r2);
  const double ia = 1.0 / alpha;
  const Vec12 df = ia * ia * grad;                                      // d(1 − 1/α)
  const Mat12 Hf = ia * ia * H - 2.0 * ia * ia * ia * grad * grad.transpose();  // d²(1 − 1/α)
  out.H_gap = D * Hf + (1.0 - ia) * HD + df * dD.transpose() + dD * df.transpose();
  out.H_alpha = H;
  if (outputs == HessianOutputs::all) vector_hessians(res, A, st, Wf, grad, out);
  {
    const Mat6 Ad = adjoint(res.X_WB2);
    const Mat6 HX = Ad.transpose() * H.bottomRightCorner<6, 6>() * Ad;
    out.H_alpha_X12 = 0.5 * (HX + HX.transpose());
  }
  if (frame != ReferenceFrame::world) {
    Mat12 M = Mat12::Zero();
    M.topLeftCorner<6, 6>() = world_twist_from_frame(frame, res.X_WB1);
    M.bottomRightCorner<6, 6>() = world_twist_from_frame(frame, res.X_WB2);
    out.H_alpha = M.transpose() * out.H_alpha * M;
    out.H_gap = M.transpose() * out.H_gap * M;
    if (outputs == HessianOutputs::all)
      for (int k = 0; k < 3; ++k)
        for (Mat12* Hk : {&out.H_x_W[k], &out.H_p1_W[k], &out.H_p2_W[k], &out.H_normal_W[k]})
          *Hk = M.transpose() * *Hk * M;
  }
  // exactly symmetric (the products above round each triangle differently)
  out.H_alpha = 0.5 * (out.H_alpha + out.H_alpha.transpose()).eval();
  out.H_gap = 0.5 * (out.H_gap + out.H_gap.transpose()).eval();
  bool finite = out.H_gap.allFinite() && out.H_alpha.allFinite();
  if (outputs == HessianOutputs::all)
    for (int k = 0; k < 3; ++k)
      for (Mat12* Hk : {&out.H_x_W[k], &out.H_p1_W[k], &out.H_p2_W[k], &out.H_normal_W[k]}) {
        *Hk = 0.5 * (*Hk + Hk->transpose()).eval();
        finite = finite && Hk->allFinite();
      }
  if (!finite) {
    out = ContactHessians{};
    out.frame = frame;
    out.status = DerivativeStatus::singular;
  }
}

ContactHessians contact_hessians(const ContactResult& result, ReferenceFrame frame, HessianOutputs outputs) {
  ContactHessians h;
  contact_hessians(result, h, frame, outputs);
  return h;
}

// ================================================================ shape parameters

namespace {

const Polytope* as_polytope(const Primitive& s) { return std::get_if<Polytope>(&s); }

void check_parameterizable(const Primitive& s, const char* who) {
  if (const Polytope* p = as_polytope(s); p && p->is_large())
    throw std::invalid_argument(std::string(who) + ": a polytope with more than kInlinePolytopeFaces = " +
                                std::to_string(kInlinePolytopeFaces) +
                                " faces has no dense parameter derivatives (dcol::sparse_shape_derivatives has them)");
}

/// Calls emit(parameter, ∂a, ∂b, ∂σ_0, ∂σ_1) for the parameters of one row of `shape`, the row
/// s = aᵀy + bα + σᵀw (y shape-frame point, w the primitive's slacks; primitives.hpp, the rows
/// of solve_contact.cpp). `cone_row`: a row of the primitive's second-order cone, `li` its index
/// there (else the index among the primitive's orthant rows; a large polytope's face).
template <class F>
void row_parameters(const Primitive& shape, bool cone_row, int li, F&& emit) {
  const Vec3 O = Vec3::Zero();
  std::visit(
      [&](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Polytope>) {
          if (cone_row) return;
          const int m = s.num_faces;  // s = −A_iᵀy + b_i α
          emit(li, O, 1.0, 0.0, 0.0);
          for (int j = 0; j < 3; ++j) emit(m + 3 * li + j, Vec3(-Vec3::Unit(j)), 0.0, 0.0, 0.0);
        } else if constexpr (std::is_same_v<T, Capsule> || std::is_same_v<T, Cylinder>) {
          if (!cone_row) emit(1, O, 0.5, 0.0, 0.0);  // αL/2 ∓ (γ or y_1)
          else if (li == 0) emit(0, O, 1.0, 0.0, 0.0);  // αR
        } else if constexpr (std::is_same_v<T, Cone>) {
          if (!cone_row) {
            emit(0, O, 0.25, 0.0, 0.0);  // αH/4 − y_1
          } else if (li == 0) {  // tan β (y_1 + α 3H/4)
            const double sec2 = 1.0 + s.tan_beta * s.tan_beta;
            emit(0, O, 0.75 * s.tan_beta, 0.0, 0.0);
            emit(1, Vec3(sec2, 0.0, 0.0), 0.75 * s.H * sec2, 0.0, 0.0);
          }
        } else if constexpr (std::is_same_v<T, Ellipsoid>) {
          if (!cone_row || li == 0) return;
          // rows ρ·U_i y (ρ = inner radius, held fixed: the cone is invariant under scaling);
          // P = UᵀU, dU = Ψ(U⁻ᵀ dP U⁻¹)·U, Ψ the upper triangle with the diagonal halved
          const Mat3 Ui = s.U.inverse();
          const double rho = s.inner_radius;
          static constexpr int pi[6] = {0, 1, 2, 0, 0, 1}, pj[6] = {0, 1, 2, 1, 2, 2};
          const int i = li - 1;  // row i of dU: Σ_{c ≥ i} Ψ_ic U_c, W = U⁻ᵀ dP U⁻¹
          for (int t = 0; t < 6; ++t) {
            const int a = pi[t], e = pj[t];
            const auto W = [&](int c) {
              const double w = Ui(a, i) * Ui(e, c) + Ui(e, i) * Ui(a, c);
              return a == e ? 0.5 * w : w;  // dP = e_a e_eᵀ + e_e e_aᵀ, or e_a e_aᵀ
            };
            Vec3 row = 0.5 * W(i) * s.U.row(i).transpose();
            for (int c = i + 1; c < 3; ++c) row += W(c) * s.U.row(c).transpose();
            emit(t, Vec3(rho * row), 0.0, 0.0, 0.0);
          }
        } else if constexpr (std::is_same_v<T, PaddedPolygon>) {
          if (cone_row) {
            if (li == 0) emit(0, O, 1.0, 0.0, 0.0);  // αR
            return;
          }
          const int m = s.num_edges;  // α d_i − C_i w
          emit(1 + li, O, 1.0, 0.0, 0.0);
          emit(1 + m + 2 * li, O, 0.0, -1.0, 0.0);
          emit(2 + m + 2 * li, O, 0.0, 0.0, -1.0);
        } else if constexpr (std::is_same_v<T, Sphere>) {
          if (cone_row && li == 0) emit(0, O, 1.0, 0.0, 0.0);
        }
      },
      shape);
}

int slack_count_of(const Primitive& s) {
  return std::visit([](const auto& p) { return detail::slack_count<std::decay_t<decltype(p)>>(); }, s);
}
int primitive_orthant_rows(const Primitive& s) {
  return std::visit([](const auto& p) { return detail::orthant_count_of(p); }, s);
}

}  // namespace

int shape_parameter_count(const Primitive& shape) {
  return std::visit(
      [](const auto& s) -> int {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Polytope>) return 4 * s.num_faces;
        else if constexpr (std::is_same_v<T, PaddedPolygon>) return 1 + 3 * s.num_edges;
        else if constexpr (std::is_same_v<T, Ellipsoid>) return 6;
        else if constexpr (std::is_same_v<T, Sphere>) return 1;
        else return 2;
      },
      shape);
}

std::string shape_parameter_name(const Primitive& shape, int i) {
  const int count = shape_parameter_count(shape);
  if (i < 0 || i >= count)
    throw std::out_of_range("dcol::shape_parameter_name: index " + std::to_string(i) + " outside [0, " +
                            std::to_string(count) + ")");
  const auto idx = [](const char* n, int a) { return std::string(n) + "[" + std::to_string(a) + "]"; };
  const auto idx2 = [](const char* n, int a, int b) {
    return std::string(n) + "[" + std::to_string(a) + "][" + std::to_string(b) + "]";
  };
  switch (primitive_type(shape)) {
    case PrimitiveType::polytope: {
      const int m = std::get<Polytope>(shape).num_faces;
      return i < m ? idx("b", i) : idx2("A", (i - m) / 3, (i - m) % 3);
    }
    case PrimitiveType::capsule:
    case PrimitiveType::cylinder: return i == 0 ? "radius" : "length";
    case PrimitiveType::cone: return i == 0 ? "height" : "half_angle";
    case PrimitiveType::ellipsoid: {
      static constexpr int pi[6] = {0, 1, 2, 0, 0, 1}, pj[6] = {0, 1, 2, 1, 2, 2};
      return idx2("P", pi[i], pj[i]);
    }
    case PrimitiveType::padded_polygon: {
      const int m = std::get<PaddedPolygon>(shape).num_edges;
      if (i == 0) return "radius";
      if (i <= m) return idx("d", i - 1);
      return idx2("C", (i - 1 - m) / 2, (i - 1 - m) % 2);
    }
    case PrimitiveType::sphere: return "radius";
  }
  return "";
}

void sparse_shape_derivatives(const Primitive& shape1, const Primitive& shape2, const ContactResult& res,
                              SparseShapeDerivatives& out) {
  const int c1 = shape_parameter_count(shape1), c2 = shape_parameter_count(shape2);
  out.count1 = c1;
  out.count2 = c2;
  out.touched = 0;
  out.d_alpha.resize(0);
  out.d_gap.resize(0);
  for (auto* M : {&out.d_x_W, &out.d_p1_W, &out.d_p2_W, &out.d_normal_W}) M->resize(3, 0);
  out.status = status_of(res);
  if (!out.ok()) return;
  const ConeKkt& k = res.kkt;
  const int ns1 = slack_count_of(shape1), ns2 = slack_count_of(shape2);
  // a large polytope's rows are its window (ConeKkt::window_face), of at most kInlinePolytopeFaces
  const Polytope* poly[2] = {as_polytope(shape1), as_polytope(shape2)};
  bool match = k.n == 4 + ns1 + ns2;
  for (int b = 0; b < 2; ++b) {
    const bool large = poly[b] && poly[b]->is_large();
    const int rows = large ? k.window_count[b] : primitive_orthant_rows(b == 0 ? shape1 : shape2);
    match = match && k.orthant_rows[b] == rows && (large ? rows > 0 : k.window_count[b] == 0);
    if (large)
      for (int j = 0; j < rows && match; ++j)
        match = k.window_face[b][j] >= 0 && k.window_face[b][j] < poly[b]->num_faces;
  }
  if (!match)
    throw std::invalid_argument("dcol::shape_derivatives: the shapes do not match the result's cone program");
  ActiveProblem A;
  if (!build_active_problem(res, A)) {
    out.status = DerivativeStatus::singular;
    return;
  }
  const Primitive* shapes[2] = {&shape1, &shape2};
  const Pose* X[2] = {&res.X_WS1, &res.X_WS2};
  const int slack0[2] = {4, 4 + ns1}, off[2] = {0, c1};
  const Vec3 y[2] = {X[0]->R.transpose() * (res.x_W - X[0]->p), X[1]->R.transpose() * (res.x_W - X[1]->p)};
  const double alpha = res.alpha;
  const int l1 = k.orthant_rows[0], l2 = k.orthant_rows[1];
  // compact columns: the parameters the active rows touch
  int* const param_of = out.parameter.data();
  int nc = 0;
  // columns zeroed as parameters are first touched (rows < A.nr of st, all of T)
  double st[kR][kMaxTouched];
  double T[kMaxConeVars][kMaxTouched];
  double Tn[3][kMaxTouched];  // Σ z_r ∂(∂s_r/∂p)/∂θ over body 1's rows (the normal's rows turning)
  bool overflow = false;
  for (int r = 0; r < A.nr; ++r) {
    const int i = A.row[r], b = A.body[r];
    bool cone_row = i >= l1 + l2;
    int li = b == 0 ? i : i - l1;
    if (cone_row)
      for (int c = 0; c < k.soc_count; ++c)
        if (i >= k.soc_start[c] && i < k.soc_start[c] + k.soc_dim[c]) li = i - k.soc_start[c];
    if (!cone_row && k.window_count[b] > 0) li = k.window_face[b][li];
    const Mat3& Q = X[b]->R;
    const double w0 = A.w[slack0[b]], w1 = slack0[b] + 1 < k.n ? A.w[slack0[b] + 1] : 0.0;
    row_parameters(*shapes[b], cone_row, li, [&](int param, const Vec3& da, double db, double ds0, double ds1) {
      const int g = off[b] + param;
      int c = 0;
      while (c < nc && param_of[c] != g) ++c;
      if (c == nc) {
        if (nc == kMaxTouched) {
          overflow = true;
          return;
        }
        for (int rr = 0; rr < A.nr; ++rr) st[rr][nc] = 0.0;
        for (int j = 0; j < kMaxConeVars; ++j) T[j][nc] = 0.0;
        for (int a = 0; a < 3; ++a) Tn[a][nc] = 0.0;
        param_of[nc++] = g;
      }
      st[r][c] += da.dot(y[b]) + db * alpha + ds0 * w0 + ds1 * w1;
      const Vec3 qa = Q * da;
      for (int a = 0; a < 3; ++a) T[a][c] += A.z[r] * qa[a];
      if (b == 0)
        for (int a = 0; a < 3; ++a) Tn[a][c] += A.z[r] * qa[a];
      T[3][c] += A.z[r] * db;
      if (ds0 != 0.0) T[slack0[b]][c] += A.z[r] * ds0;
      if (ds1 != 0.0) T[slack0[b] + 1][c] += A.z[r] * ds1;
    });
  }
  if (overflow) {
    out.status = DerivativeStatus::singular;
    return;
  }
  out.touched = nc;
  out.d_alpha.resize(nc);
  out.d_gap.resize(nc);
  for (auto* M : {&out.d_x_W, &out.d_p1_W, &out.d_p2_W, &out.d_normal_W}) M->resize(3, nc);
  double Cst[kR][kMaxTouched];
  apply_curvature(A, st, nc, Cst);
  double Bc[kMaxTouched][kQ];
  assemble_b<kMaxTouched>(A, st, Cst, T, nc, Bc);
  // rows 0–3 of K⁻¹ (K symmetric): dx_{0:4} = −(K⁻¹)_{0:4,:}·B
  double Y[4][kQ];
  for (int a = 0; a < 4; ++a) {
    for (int i = 0; i < A.q; ++i) Y[a][i] = i == a ? 1.0 : 0.0;
    detail::lu_solve(A.K, A.perm, A.q, Y[a]);
  }
  const Vec3 r1 = res.X_WS1.p, r2 = res.X_WS2.p;
  const double D = (r2 - r1).norm(), ia = 1.0 / alpha;
  // The separating normal n = σ u/‖u‖, u = Σ z_r ∂s_r/∂p over body 1's rows (separating_normal up
  // to a positive factor; σ orients it from shape 1 to shape 2). du/dθ = L dw + (terms at fixed w)
  // with dw = −K⁻¹B the unknowns' and multipliers' derivatives: L·dw = −(K⁻¹Lᵀ)ᵀB, three solves
  // (K symmetric) for all columns. L: ∂s_r/∂p on a single row's multiplier; per boundary cone of
  // body 1, z = ν(1, −ū): G_0 − Ḡᵀū on ν and −f Ḡᵀ(I − ūūᵀ)S̄_x on the unknowns (f = ν/‖s̄‖).
  Vec3 u = Vec3::Zero();
  for (int r = 0; r < A.nr; ++r)
    if (A.body[r] == 0) u += A.z[r] * Vec3(A.sx[r][0], A.sx[r][1], A.sx[r][2]);
  const double un = u.norm();
  const bool has_normal = un > 0.0 && std::isfinite(un);  // (else d_normal_W stays zero)
  const Vec3 u_hat = has_normal ? Vec3(u / un) : Vec3::Zero();
  const double sigma = u_hat.dot(r2 - r1) < 0.0 ? -1.0 : 1.0;
  const Mat3 normal_map = has_normal ? Mat3((sigma / un) * (Mat3::Identity() - u_hat * u_hat.transpose())) : Mat3::Zero();
  const auto gp = [&](int r) { return Vec3(A.sx[r][0], A.sx[r][1], A.sx[r][2]); };
  double L[3][kQ] = {};
  for (int j = 0; j < A.p; ++j) {
    const int r = A.single_row[j];
    if (r < 0 || A.body[r] != 0) continue;
    for (int a = 0; a < 3; ++a) L[a][A.n + j] += A.sx[r][a];
  }
  // per boundary cone of body 1: −f Ḡᵀ(I − ūūᵀ) (rows r0+1..r0+d−1), applied to S̄_x and to sθ
  Eigen::Matrix<double, 3, 4> cone_map[2];
  for (int k = 0; k < A.cones; ++k) {
    const int r0 = A.cone_r0[k], d = A.cone_d[k];
    cone_map[k].setZero();
    if (A.body[r0] != 0) continue;
    const double* ub = A.cone_u[k];
    Vec3 nu_col = gp(r0);
    for (int t = 1; t < d; ++t) nu_col -= ub[t] * gp(r0 + t);
    for (int a = 0; a < 3; ++a) L[a][A.n + A.cone_j[k]] += nu_col[a];
    for (int t = 1; t < d; ++t) {
      Vec3 col = gp(r0 + t);
      for (int t2 = 1; t2 < d; ++t2) col -= ub[t] * ub[t2] * gp(r0 + t2);
      cone_map[k].col(t) = -A.cone_f[k] * col;
    }
    for (int i = 0; i < A.n; ++i)
      for (int t = 1; t < d; ++t)
        for (int a = 0; a < 3; ++a) L[a][i] += cone_map[k](a, t) * A.sx[r0 + t][i];
  }
  for (int a = 0; a < 3; ++a) detail::lu_solve(A.K, A.perm, A.q, L[a]);  // L[a] ← K⁻¹ L_aᵀ
  for (int c = 0; c < nc; ++c) {
    double da = 0.0;  // envelope theorem: dα/dθ = −zᵀ ∂s/∂θ
    for (int r = 0; r < A.nr; ++r) da -= A.z[r] * st[r][c];
    Vec3 dx;
    for (int a = 0; a < 3; ++a) {
      double v = 0.0;
      for (int i = 0; i < A.q; ++i) v -= Y[a][i] * Bc[c][i];
      dx[a] = v;
    }
    out.d_alpha[c] = da;
    out.d_gap[c] = D * ia * ia * da;
    out.d_x_W.col(c) = dx;
    out.d_p1_W.col(c) = ia * dx - (ia * ia * da) * (res.x_W - r1);
    out.d_p2_W.col(c) = ia * dx - (ia * ia * da) * (res.x_W - r2);
    Vec3 du(Tn[0][c], Tn[1][c], Tn[2][c]);
    for (int i = 0; i < A.q; ++i)
      for (int a = 0; a < 3; ++a) du[a] -= L[a][i] * Bc[c][i];
    for (int k = 0; k < A.cones; ++k)
      for (int t = 1; t < A.cone_d[k]; ++t) du += cone_map[k].col(t) * st[A.cone_r0[k] + t][c];
    out.d_normal_W.col(c) = normal_map * du;
  }
  if (!out.d_alpha.allFinite() || !out.d_x_W.allFinite() || !out.d_normal_W.allFinite()) {
    out.touched = 0;
    out.d_alpha.resize(0);
    out.d_gap.resize(0);
    for (auto* M : {&out.d_x_W, &out.d_p1_W, &out.d_p2_W, &out.d_normal_W}) M->resize(3, 0);
    out.status = DerivativeStatus::singular;
  }
}

SparseShapeDerivatives sparse_shape_derivatives(const Primitive& shape1, const Primitive& shape2,
                                                const ContactResult& result) {
  SparseShapeDerivatives d;
  sparse_shape_derivatives(shape1, shape2, result, d);
  return d;
}

void shape_derivatives(const Primitive& shape1, const Primitive& shape2, const ContactResult& res,
                       ShapeDerivatives& out) {
  check_parameterizable(shape1, "dcol::shape_derivatives");
  check_parameterizable(shape2, "dcol::shape_derivatives");
  SparseShapeDerivatives sd;
  sparse_shape_derivatives(shape1, shape2, res, sd);
  const int P = sd.count1 + sd.count2;
  out.count1 = sd.count1;
  out.count2 = sd.count2;
  out.status = sd.status;
  out.d_alpha.setZero(P);
  out.d_gap.setZero(P);
  out.d_x_W.setZero(3, P);
  out.d_p1_W.setZero(3, P);
  out.d_p2_W.setZero(3, P);
  out.d_normal_W.setZero(3, P);
  for (int c = 0; c < sd.touched; ++c) {  // scattered to their parameters' columns
    const int g = sd.parameter[c];
    out.d_alpha[g] = sd.d_alpha[c];
    out.d_gap[g] = sd.d_gap[c];
    out.d_x_W.col(g) = sd.d_x_W.col(c);
    out.d_p1_W.col(g) = sd.d_p1_W.col(c);
    out.d_p2_W.col(g) = sd.d_p2_W.col(c);
    out.d_normal_W.col(g) = sd.d_normal_W.col(c);
  }
}

ShapeDerivatives shape_derivatives(const Primitive& shape1, const Primitive& shape2, const ContactResult& result) {
  ShapeDerivatives d;
  shape_derivatives(shape1, shape2, result, d);
  return d;
}

}  // namespace diffcol::dcol
