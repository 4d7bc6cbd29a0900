#pragma once
// The exit of the ray t·u from D = A ⊕ (−B) as a minimum over directions: t* = min h_D(d) over
// uᵀd = 1, h_D the support function of D (problem (9) in the DCOL seed, dual form; h_D(d)/uᵀd ≥ t*
// for every d with uᵀd > 0, with equality at D's normal where the ray leaves it). In the chart
// d = u + e₁w₁ + e₂w₂ (e₁, e₂ ⊥ u) the objective is convex in w ∈ R²; for an ellipsoid against a
// ball-padded core (capsule, padded polygon) it is
//   F(w) = Σ_k ρ_k √q_k(w) + max_i (a_i + b_iᵀw),
// q_k positive definite quadratics (the ellipsoid's dᵀWd, the padding ball's dᵀd) and one affine
// piece per core vertex. It is minimized by Newton's method with an active set of pieces (one: a
// smooth region, a core vertex touches; two: their tie line, an edge; three: a point, a face) and
// a backtracking line search. Internal to src/dcol (and its white-box test).
#include <algorithm>
#include <cmath>
#include <limits>

namespace diffcol::dcol::detail {

constexpr int kMaxSupportPieces = 32;  // ≥ dcol::kMaxPolygonEdges (asserted where the pieces are written)
constexpr int kMaxSetPieces = 64;      // ≥ dcol::kInlinePolytopeVertices (a SupportSet; asserted alike)

// A square-root term ρ √q(w), q = c + 2gᵀw + wᵀMw, M = [[m0, m1], [m1, m2]]: the pieces every
// objective below is made of.

/// ‖(I − aaᵀ)d‖² in the chart d = u + e₁w₁ + e₂w₂ (unit axis a; au = aᵀu, a1 = aᵀe₁, a2 = aᵀe₂).
inline void radial_quadratic(double au, double a1, double a2, double& c, double* g, double* M) {
  c = 1.0 - au * au;
  g[0] = -au * a1;
  g[1] = -au * a2;
  M[0] = 1.0 - a1 * a1;
  M[1] = -a1 * a2;
  M[2] = 1.0 - a2 * a2;
}

/// ρ √q(w), with q clamped at 0 (a semidefinite term rounds below 0 at its kink).
[[gnu::always_inline]] inline double sqrt_term_value(double rho, double c, const double* g, const double* M,
                                                     const double* w) {
  const double q = c + 2.0 * (g[0] * w[0] + g[1] * w[1]) + M[0] * w[0] * w[0] + 2.0 * M[1] * w[0] * w[1] +
                   M[2] * w[1] * w[1];
  return rho * std::sqrt(std::max(q, 0.0));
}

/// Adds weight·ρ√q's value, gradient and Hessian (h0, h1, h2) at w; false where q ≤ 0 (its kink).
/// Unchecked (Checked = false): no test, and q ≤ 0 propagates as NaN or ∞ (for the callers' checks).
template <bool Checked = true>
[[gnu::always_inline]] inline bool sqrt_term_add(double rho, double c, const double* g, const double* M,
                                                 const double* w, double weight, double* grad, double* H, double& f) {
  const double m0 = g[0] + M[0] * w[0] + M[1] * w[1];
  const double m1 = g[1] + M[1] * w[0] + M[2] * w[1];
  const double q = c + g[0] * w[0] + g[1] * w[1] + m0 * w[0] + m1 * w[1];
  if constexpr (Checked)
    if (!(q > 0.0)) return false;
  const double s = std::sqrt(q), is = 1.0 / s, k = weight * rho;
  const double v0 = m0 * is, v1 = m1 * is;
  f += k * s;
  grad[0] += k * v0;
  grad[1] += k * v1;
  H[0] += k * is * (M[0] - v0 * v0);
  H[1] += k * is * (M[1] - v0 * v1);
  H[2] += k * is * (M[2] - v1 * v1);
  return true;
}

/// F(w) = Σ_k rho_k √(c_k + 2 g_kᵀw + wᵀM_k w) + max_i (a_i + b_iᵀw); M_k = [[m0, m1], [m1, m2]].
struct SupportObjective {
  int nq = 0;
  double rho[2] = {}, c[2] = {}, g[2][2] = {}, M[2][3] = {};
  int na = 0;
  double a[kMaxSupportPieces] = {}, b[kMaxSupportPieces][2] = {};
  /// The pieces are the vertices of a convex polygon, in order (all tie at one point: its face).
  bool polygon = false;
  /// Sqrt term `kink` (≥ 0) is only positive semidefinite: it vanishes at w = kink_w (a cylinder's
  /// radial term at its cap normal), where F has a kink; that point is tested first.
  int kink = -1;
  double kink_w[2] = {0.0, 0.0};
};

/// Sets sqrt term k to rho‖(I − aaᵀ)d‖ (a solid of revolution's radius, unit axis a) with
/// au = aᵀu, a1 = aᵀe₁, a2 = aᵀe₂ in the chart d = u + e₁w₁ + e₂w₂. It vanishes at d ∥ a, i.e. at
/// w = (a1, a2)/au, which becomes P's kink (none where a is nearly perpendicular to u: the point
/// lies far out in the chart).
inline void set_radial_term(SupportObjective& P, int k, double rho, double au, double a1, double a2) {
  P.rho[k] = rho;
  radial_quadratic(au, a1, a2, P.c[k], P.g[k], P.M[k]);
  if (std::abs(au) > 1e-6) {
    P.kink = k;
    P.kink_w[0] = a1 / au;
    P.kink_w[1] = a2 / au;
  }
}

/// At a kink of the term rho √q (q = (w − w_k)ᵀM(w − w_k)), whether −G (the other terms' gradient)
/// lies in its subdifferential {rho Cᵀy : ‖y‖ ≤ 1}, CᵀC = M: Gᵀ M⁻¹ G ≤ rho². Then the kink is the minimum.
inline bool kink_is_minimum(const double* M, double rho, double G0, double G1) {
  const double det = M[0] * M[2] - M[1] * M[1];
  return det > 0.0 && (M[2] * G0 * G0 - 2.0 * M[1] * G0 * G1 + M[0] * G1 * G1) / det <= rho * rho;
}

/// The minimizer: w, F(w) = t*, the active pieces and their weights λ (convex: Σλ = 1, λ ≥ 0,
/// ∇(smooth part) + Σ λ_i b_i = 0).
struct SupportMinimum {
  double w[2] = {0.0, 0.0};
  double F = 0.0;
  int na = 0;
  int active[3] = {0, 0, 0};
  double lambda[3] = {0.0, 0.0, 0.0};
  int iterations = 0;
};

/// The smooth part Σ rho √q and its gradient and Hessian (H as h0, h1, h2) at w, without term
/// `skip` (a kink term, at its kink).
inline double support_smooth(const SupportObjective& P, const double* w, double* grad, double* H, int skip = -1) {
  double f = 0.0;
  grad[0] = grad[1] = 0.0;
  H[0] = H[1] = H[2] = 0.0;
  for (int k = 0; k < P.nq; ++k) {
    if (k == skip) continue;
    sqrt_term_add<false>(P.rho[k], P.c[k], P.g[k], P.M[k], w, 1.0, grad, H, f);  // (a kink: NaN, caught by the callers)
  }
  return f;
}

inline double support_smooth_value(const SupportObjective& P, const double* w) {
  double f = 0.0;
  for (int k = 0; k < P.nq; ++k) f += sqrt_term_value(P.rho[k], P.c[k], P.g[k], P.M[k], w);
  return f;
}

inline double support_piece(const SupportObjective& P, int i, const double* w) {
  return P.a[i] + P.b[i][0] * w[0] + P.b[i][1] * w[1];
}

inline double support_value(const SupportObjective& P, const double* w) {
  double m = support_piece(P, 0, w);
  for (int i = 1; i < P.na; ++i) m = std::max(m, support_piece(P, i, w));
  return support_smooth_value(P, w) + m;
}

/// Backtracking (Armijo) along Δw from w, the trial point wn = w + s·Δw already evaluated (Fn):
/// halves s until F decreases by 1e-4·s·slope (allowance: a rounding margin). The number of
/// halvings, or −1 after 30.
template <class Value>
int backtrack(const Value& value, const double* w, const double* dw, double F, double slope, double allowance,
              double& s, double* wn, double& Fn) {
  int halvings = 0;
  while (!(Fn <= F + 1e-4 * s * std::min(slope, 0.0) + allowance)) {
    if (halvings == 30) return -1;
    s *= 0.5;
    wn[0] = w[0] + s * dw[0];
    wn[1] = w[1] + s * dw[1];
    Fn = value(wn);
    ++halvings;
  }
  return halvings;
}

/// Weights of −G = y in the polygon of the b's (a face): the fan triangle (0, t, t + 1) that holds
/// y and its barycentric weights; or, where y lies outside, the most violated edge (edge ≥ 0).
inline void face_weights(const double (*B)[2], int n, double y0, double y1, int& edge, int& tri, double* l) {
  const auto cross = [&](int a, int b, double x0, double x1) {
    return (B[b][0] - B[a][0]) * (x1 - B[a][1]) - (B[b][1] - B[a][1]) * (x0 - B[a][0]);
  };
  const double orient = cross(0, 1, B[2][0], B[2][1]) >= 0.0 ? 1.0 : -1.0;
  edge = -1;
  double worst = 0.0;
  for (int a = 0; a < n; ++a) {
    const int b = a + 1 == n ? 0 : a + 1;
    const double ex = B[b][0] - B[a][0], ey = B[b][1] - B[a][1];
    const double v = orient * cross(a, b, y0, y1) / std::sqrt(ex * ex + ey * ey);
    if (v < worst) worst = v, edge = a;
  }
  if (edge >= 0) return;
  tri = n - 2;
  for (int a = 1; a + 1 < n; ++a) {
    const double area = cross(0, a, B[a + 1][0], B[a + 1][1]);
    const double la = cross(a + 1, 0, y0, y1) / area, lb = cross(0, a, y0, y1) / area;
    l[0] = 1.0 - la - lb;
    l[1] = la;
    l[2] = lb;
    if (la >= -1e-12 && lb >= -1e-12 && l[0] >= -1e-12) {
      tri = a;
      break;
    }
  }
  for (int a = 0; a < 3; ++a) l[a] = std::max(0.0, l[a]);
}

/// Minimizes F from w = 0. False where it does not settle within 40 iterations or the geometry
/// degenerates (the caller falls back to the ray cast).
inline bool minimize_support(const SupportObjective& P, SupportMinimum& out) {
  if (P.na < 1 || P.na > kMaxSupportPieces) return false;
  if (P.kink >= 0) {
    // the kink point is the minimum iff −(the other terms' gradient) lies in the kink term's
    // subdifferential there, {ρ Cᵀy : ‖y‖ ≤ 1} with CᵀC = M_kink: Gᵀ M⁻¹ G ≤ ρ²
    const double* wk = P.kink_w;
    int best = 0, ties = 0;
    double bv = support_piece(P, 0, wk);
    for (int i = 1; i < P.na; ++i) {
      const double v = support_piece(P, i, wk);
      if (v > bv) bv = v, best = i;
    }
    for (int i = 0; i < P.na; ++i) ties += support_piece(P, i, wk) >= bv - 1e-12 * (1.0 + std::abs(bv));
    const int k = P.kink;
    double g[2], H[3];
    const double f = support_smooth(P, wk, g, H, k);
    if (ties == 1 && kink_is_minimum(P.M[k], P.rho[k], g[0] + P.b[best][0], g[1] + P.b[best][1])) {
      out.w[0] = wk[0];
      out.w[1] = wk[1];
      out.F = f + bv;  // the kink term is 0 there (expanded, it rounds to ~√ε)
      out.na = 1;
      out.active[0] = best;
      out.lambda[0] = 1.0;
      out.iterations = 0;
      return std::isfinite(out.F);
    }
  }
  double w[2] = {0.0, 0.0};
  int A[3], nA = 1;
  {
    int best = 0;
    for (int i = 1; i < P.na; ++i)
      if (P.a[i] > P.a[best]) best = i;
    A[0] = best;
  }
  double F = support_value(P, w);
  for (int it = 0; it < 40; ++it) {
    double g[2], H[3];
    support_smooth(P, w, g, H);
    double dw[2], lam[3];
    // Newton direction on the active set; a piece whose weight comes out negative is dropped
    for (;;) {
      if (nA == 1) {
        const int i = A[0];
        const double r0 = -(g[0] + P.b[i][0]), r1 = -(g[1] + P.b[i][1]);
        const double det = H[0] * H[2] - H[1] * H[1];
        if (!(det > 0.0)) return false;
        dw[0] = (H[2] * r0 - H[1] * r1) / det;
        dw[1] = (H[0] * r1 - H[1] * r0) / det;
        lam[0] = 1.0;
        break;
      }
      if (nA == 2) {
        // [H n; nᵀ 0][Δ; μ] = [−(g + b_j); −(ℓ_i − ℓ_j)], n = b_i − b_j; λ_i = μ, λ_j = 1 − μ
        const int i = A[0], j = A[1];
        const double n0 = P.b[i][0] - P.b[j][0], n1 = P.b[i][1] - P.b[j][1];
        const double r0 = -(g[0] + P.b[j][0]), r1 = -(g[1] + P.b[j][1]);
        const double r2 = -(support_piece(P, i, w) - support_piece(P, j, w));
        // eliminate Δ = H⁻¹(r − μ n)
        const double det = H[0] * H[2] - H[1] * H[1];
        if (!(det > 0.0)) return false;
        const double hr0 = (H[2] * r0 - H[1] * r1) / det, hr1 = (H[0] * r1 - H[1] * r0) / det;
        const double hn0 = (H[2] * n0 - H[1] * n1) / det, hn1 = (H[0] * n1 - H[1] * n0) / det;
        const double s = n0 * hn0 + n1 * hn1;
        if (!(s > 0.0)) return false;
        // a weight within 1e-9 of 0 or 1 is kept (clamped): a contact at the junction of two
        // pieces (a capsule's segment end) would otherwise drop and re-add a piece without moving
        double mu = (n0 * hr0 + n1 * hr1 - r2) / s;
        if (mu < 0.0 && mu > -1e-9) mu = 0.0;
        if (mu > 1.0 && mu < 1.0 + 1e-9) mu = 1.0;
        if (mu < 0.0) {
          A[0] = j;
          nA = 1;
          continue;
        }
        if (mu > 1.0) {
          nA = 1;
          continue;
        }
        dw[0] = hr0 - mu * hn0;
        dw[1] = hr1 - mu * hn1;
        lam[0] = mu;
        lam[1] = 1.0 - mu;
        break;
      }
      // three pieces: their tie point, weights from g + HΔ + Σ λ b = 0, Σ λ = 1
      const int i = A[0], j = A[1], k = A[2];
      const double p0 = P.b[i][0] - P.b[j][0], p1 = P.b[i][1] - P.b[j][1];
      const double q0 = P.b[i][0] - P.b[k][0], q1 = P.b[i][1] - P.b[k][1];
      const double det = p0 * q1 - p1 * q0;
      if (!(std::abs(det) > 1e-14 * (std::abs(p0 * q1) + std::abs(p1 * q0)))) return false;
      const double li = support_piece(P, i, w);
      const double e0 = -(li - support_piece(P, j, w)), e1 = -(li - support_piece(P, k, w));
      dw[0] = (q1 * e0 - p1 * e1) / det;
      dw[1] = (p0 * e1 - q0 * e0) / det;
      const double G0 = g[0] + H[0] * dw[0] + H[1] * dw[1], G1 = g[1] + H[1] * dw[0] + H[2] * dw[1];
      // λ_j (b_j − b_i) + λ_k (b_k − b_i) = −(G + b_i)
      const double s0 = -(G0 + P.b[i][0]), s1 = -(G1 + P.b[i][1]);
      const double lj = (-q1 * s0 + q0 * s1) / det;  // columns −p, −q
      const double lk = (p1 * s0 - p0 * s1) / det;
      const double l3[3] = {1.0 - lj - lk, lj, lk};
      if (P.polygon && P.na > 3) {
        // all pieces tie at this point (a face): −G must lie in the polygon of the b's; the fan
        // triangle that holds it gives the weights, else the most violated edge stays active
        int edge = -1, tri = P.na - 2;
        double l[3] = {0.0, 0.0, 0.0};
        face_weights(P.b, P.na, -G0, -G1, edge, tri, l);
        if (edge >= 0) {
          A[0] = edge;
          A[1] = edge + 1 == P.na ? 0 : edge + 1;
          nA = 2;
          continue;
        }
        A[0] = 0;
        A[1] = tri;
        A[2] = tri + 1;
        lam[0] = std::max(0.0, l[0]);
        lam[1] = std::max(0.0, l[1]);
        lam[2] = std::max(0.0, l[2]);
        break;
      }
      int worst = -1;
      double wv = 0.0;
      for (int a = 0; a < 3; ++a)
        if (l3[a] < wv && l3[a] < -1e-9) wv = l3[a], worst = a;
      if (worst < 0) {
        lam[0] = l3[0];
        lam[1] = l3[1];
        lam[2] = l3[2];
        break;
      }
      for (int a = worst; a < 2; ++a) A[a] = A[a + 1];
      nA = 2;
    }
    // ratio test: the first inactive piece that reaches the active maximum along Δ
    const int i0 = A[0];
    const double li0 = support_piece(P, i0, w);
    const double ri0 = P.b[i0][0] * dw[0] + P.b[i0][1] * dw[1];
    double s = 1.0;
    int block = -1;
    for (int j = 0; j < P.na && nA < 3; ++j) {  // (three active: a point, no freedom left)
      bool act = false;
      for (int a = 0; a < nA; ++a) act = act || A[a] == j;
      if (act) continue;
      const double rate = P.b[j][0] * dw[0] + P.b[j][1] * dw[1] - ri0;
      // (rounding-level rates ignored: at a face every piece ties, and they would block at s = 0)
      if (!(rate > 1e-12 * (std::abs(P.b[j][0]) + std::abs(P.b[j][1]) + std::abs(P.b[i0][0]) + std::abs(P.b[i0][1])) *
                       (std::abs(dw[0]) + std::abs(dw[1]))))
        continue;
      const double gap = std::max(0.0, li0 - support_piece(P, j, w));
      if (gap < s * rate) s = gap / rate, block = j;
    }
    // backtracking on F along Δ (slope: the directional derivative on the active pieces)
    double slope = g[0] * dw[0] + g[1] * dw[1] + ri0;
    for (int a = 1; a < nA; ++a) slope = std::max(slope, g[0] * dw[0] + g[1] * dw[1] + P.b[A[a]][0] * dw[0] + P.b[A[a]][1] * dw[1]);
    const double step2 = dw[0] * dw[0] + dw[1] * dw[1];
    const double scale2 = 1.0 + w[0] * w[0] + w[1] * w[1];
    double wn[2] = {w[0] + s * dw[0], w[1] + s * dw[1]};
    double Fn = support_value(P, wn);
    if (step2 > 1e-12 * scale2) {  // (closer, Newton's full step; F no longer resolves the decrease)
      const int halvings =
          backtrack([&](const double* x) { return support_value(P, x); }, w, dw, F, slope, 0.0, s, wn, Fn);
      if (halvings < 0) return false;
      if (halvings > 0) block = -1;
    }
    w[0] = wn[0];
    w[1] = wn[1];
    F = Fn;
    if (block >= 0) {
      if (nA < 3) A[nA++] = block;
      continue;
    }
    if (s == 1.0 && step2 <= 1e-24 * scale2) {
      out.w[0] = w[0];
      out.w[1] = w[1];
      out.F = F;
      out.na = nA;
      for (int a = 0; a < nA; ++a) out.active[a] = A[a], out.lambda[a] = lam[a];
      out.iterations = it + 1;
      return std::isfinite(F);
    }
  }
  return false;
}

/// A cone against the smooth terms E: h_cone(y) = max(apex piece, rim piece), the apex piece
/// affine, the rim piece affine + rho √q (the base circle; q vanishes at the base normal, rim.kink_w).
struct SupportCone {
  double apex_a = 0.0, apex_b[2] = {};
  double rim_a = 0.0, rim_b[2] = {};
  SupportObjective rim;  // one square-root term (nq = 1, na = 0; its kink: the base normal)
};

/// Minimizes F = E + max(apex, rim) from w = 0: Newton's method on the apex piece alone (a vertex
/// contact: the apex), the rim piece alone (the base circle), or on their tie curve (the lateral
/// side, a ruled surface: the rim piece's weight μ and the curve's constraint in a 3×3 KKT system,
/// since the tie is not a line here); the base face (the kink) is tested first, as for the
/// cylinder. out.na: 1 (apex or rim, active[0] = 0 / 1) or 2 (side, lambda = weights).
inline bool minimize_support_cone(const SupportObjective& E, const SupportCone& C, SupportMinimum& out) {
  const auto apex = [&](const double* w) { return C.apex_a + C.apex_b[0] * w[0] + C.apex_b[1] * w[1]; };
  const auto rim_value = [&](const double* w) {
    return C.rim_a + C.rim_b[0] * w[0] + C.rim_b[1] * w[1] + support_smooth_value(C.rim, w);
  };
  const auto value = [&](const double* w) { return support_smooth_value(E, w) + std::max(apex(w), rim_value(w)); };
  if (C.rim.kink == 0) {
    const double* wk = C.rim.kink_w;
    const double rim0 = C.rim_a + C.rim_b[0] * wk[0] + C.rim_b[1] * wk[1];  // the square root is 0 there
    if (rim0 > apex(wk)) {
      double g[2], H[3];
      const double f = support_smooth(E, wk, g, H);
      if (kink_is_minimum(C.rim.M[0], C.rim.rho[0], g[0] + C.rim_b[0], g[1] + C.rim_b[1])) {
        out.w[0] = wk[0];
        out.w[1] = wk[1];
        out.F = f + rim0;
        out.na = 1;
        out.active[0] = 1;
        out.lambda[0] = 1.0;
        out.iterations = 0;
        return std::isfinite(out.F);
      }
    }
  }
  double w[2] = {0.0, 0.0};
  int mode = apex(w) >= rim_value(w) ? 0 : 1;  // 0 apex, 1 rim, 2 side
  double F = value(w), mu = 0.5;
  int switches = 0;  // mode changes without a step (bounded: they could alternate)
  for (int it = 0; it < 40; ++it) {
    if (switches > 8) return false;
    double g[2], H[3], gr[2] = {0.0, 0.0}, Hr[3] = {0.0, 0.0, 0.0};
    support_smooth(E, w, g, H);
    double dw[2];
    double lam = mode == 1 ? 1.0 : 0.0;
    if (mode >= 1) {
      support_smooth(C.rim, w, gr, Hr);
      if (!std::isfinite(gr[0] + gr[1] + Hr[0] + Hr[1] + Hr[2])) return false;
    }
    if (mode < 2) {
      const double* b = mode == 0 ? C.apex_b : C.rim_b;
      const double h0 = H[0] + Hr[0], h1 = H[1] + Hr[1], h2 = H[2] + Hr[2];
      const double r0 = -(g[0] + gr[0] + b[0]), r1 = -(g[1] + gr[1] + b[1]);
      const double det = h0 * h2 - h1 * h1;
      if (!(det > 0.0)) return false;
      dw[0] = (h2 * r0 - h1 * r1) / det;
      dw[1] = (h0 * r1 - h1 * r0) / det;
      // the other piece above the active one at the Newton point: the contact is on the side
      const double wn[2] = {w[0] + dw[0], w[1] + dw[1]};
      if ((mode == 0 ? rim_value(wn) > apex(wn) : apex(wn) > rim_value(wn))) {
        mode = 2;
        mu = 0.5;
        --it;
        ++switches;
        continue;
      }
    } else {
      // L = E + apex + μ c, c = rim − apex: [H + μ∇²c, ∇c; ∇cᵀ, 0][Δ; Δμ] = −[∇E + b_apex + μ∇c; c]
      const double n0 = C.rim_b[0] - C.apex_b[0] + gr[0], n1 = C.rim_b[1] - C.apex_b[1] + gr[1];
      const double c = rim_value(w) - apex(w);
      const double h0 = H[0] + mu * Hr[0], h1 = H[1] + mu * Hr[1], h2 = H[2] + mu * Hr[2];
      const double r0 = -(g[0] + C.apex_b[0] + mu * n0), r1 = -(g[1] + C.apex_b[1] + mu * n1);
      const double det = h0 * h2 - h1 * h1;
      if (!(det > 0.0)) return false;
      const double hr0 = (h2 * r0 - h1 * r1) / det, hr1 = (h0 * r1 - h1 * r0) / det;
      const double hn0 = (h2 * n0 - h1 * n1) / det, hn1 = (h0 * n1 - h1 * n0) / det;
      const double sn = n0 * hn0 + n1 * hn1;
      if (!(sn > 0.0)) return false;
      const double dmu = (n0 * hr0 + n1 * hr1 + c) / sn;
      const double mu_new = mu + dmu;
      if (mu_new < -1e-9 || mu_new > 1.0 + 1e-9) {  // the side does not hold: the apex or the rim alone
        mode = mu_new < 0.0 ? 0 : 1;
        --it;
        ++switches;
        continue;
      }
      dw[0] = hr0 - dmu * hn0;
      dw[1] = hr1 - dmu * hn1;
      mu = std::clamp(mu_new, 0.0, 1.0);
      lam = mu;
    }
    const double step2 = dw[0] * dw[0] + dw[1] * dw[1];
    const double scale2 = 1.0 + w[0] * w[0] + w[1] * w[1];
    double s = 1.0;
    double wn[2] = {w[0] + dw[0], w[1] + dw[1]};
    double Fn = value(wn);
    if (mode < 2 && step2 > 1e-12 * scale2) {  // backtracking on F (on the side: full Newton steps)
      const double* b = mode == 0 ? C.apex_b : C.rim_b;
      const double slope = (g[0] + gr[0] + b[0]) * dw[0] + (g[1] + gr[1] + b[1]) * dw[1];
      if (backtrack(value, w, dw, F, slope, 0.0, s, wn, Fn) < 0) return false;
    }
    w[0] = wn[0];
    w[1] = wn[1];
    F = Fn;
    if (s == 1.0 && step2 <= 1e-24 * scale2) {
      out.w[0] = w[0];
      out.w[1] = w[1];
      out.F = F;
      out.na = mode == 2 ? 2 : 1;
      out.active[0] = mode == 1 ? 1 : 0;
      out.active[1] = 1;
      out.lambda[0] = mode == 2 ? 1.0 - lam : 1.0;
      out.lambda[1] = lam;
      out.iterations = it + 1;
      return std::isfinite(F);
    }
  }
  return false;
}

}  // namespace diffcol::dcol::detail
