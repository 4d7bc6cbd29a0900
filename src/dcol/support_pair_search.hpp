#pragma once
// The support search (support_search.hpp) for a pair of primitives with two max structures
// (capsule, cylinder, cone, padded polygon). Internal to src/dcol (and its white-box test).
#include <algorithm>
#include <cmath>
#include <limits>

#include "support_search.hpp"

namespace diffcol::dcol::detail {

// For a pair of the primitives capsule, cylinder, cone and padded polygon, h_D(d) = h₁(d) + h₂(−d)
// is, in the chart, F(w) = Σ_k ρ_k √q_k(w) + max_{i∈S₁} φ_i(w) + max_{j∈S₂} φ_j(w): the padding
// balls and the cylinders' radii as square-root terms, and one max structure per body: its core
// vertices (affine pieces; a polygon's in order), or a cone's apex (affine) and base circle (affine
// + a radial root). The active set holds, per structure, one piece, two tied pieces (an edge or a
// segment, or the cone's lateral side) or a polygon's face (all pieces tie: a point). Newton's method
// runs on the KKT system of the ties (at most two constraints: 2 + 2 unknowns); where F is flat
// along a direction of the active pieces (an apex, a segment end: affine), a small regularization
// turns the step into a long one that the ratio test cuts at the next tie. Kinks (a cylinder's cap
// face, a cone's base: a radial root vanishes) are tested first, as above.

/// A square-root term ρ √(c + 2gᵀw + wᵀMw); `kink`: it vanishes at kink_w (a radial term).
struct SupportRoot {
  double rho = 0.0, c = 0.0, g[2] = {}, M[3] = {};
  bool kink = false;
  double kink_w[2] = {};
};

/// Sets r to rho‖(I − aaᵀ)d‖ in the chart (as set_radial_term).
inline void set_radial_root(SupportRoot& r, double rho, double au, double a1, double a2) {
  r.rho = rho;
  radial_quadratic(au, a1, a2, r.c, r.g, r.M);
  r.kink = std::abs(au) > 1e-6;
  if (r.kink) {
    r.kink_w[0] = a1 / au;
    r.kink_w[1] = a2 / au;
  }
}
/// Sets r to rho‖d‖ (a padding ball).
inline void set_ball_root(SupportRoot& r, double rho) {
  r.rho = rho;
  r.c = 1.0;
  r.g[0] = r.g[1] = 0.0;
  r.M[0] = r.M[2] = 1.0;
  r.M[1] = 0.0;
  r.kink = false;
}

[[gnu::always_inline]] inline double root_value(const SupportRoot& r, const double* w) {
  return sqrt_term_value(r.rho, r.c, r.g, r.M, w);
}

/// Adds the root's gradient and Hessian (scaled by `weight`) at w; its value. False at its kink.
[[gnu::always_inline]] inline bool root_add(const SupportRoot& r, const double* w, double weight, double* grad,
                                            double* H, double& f) {
  return sqrt_term_add(r.rho, r.c, r.g, r.M, w, weight, grad, H, f);
}

/// One body's max structure: affine pieces a_i + b_iᵀw, or a cone (piece 0 the apex, piece 1 the
/// base circle: affine + rim).
struct SupportSet {
  int n = 0;
  bool polygon = false, cone = false;
  double a[kMaxSetPieces], b[kMaxSetPieces][2];  // (the first n are written)
  SupportRoot rim;
  /// A polytope's faces (polytope = num_faces > 0): face k holds the pieces face_vertices[j],
  /// face_start[k] ≤ j < face_start[k + 1], in order around it.
  int num_faces = 0;
  const unsigned short* face_start = nullptr;
  const unsigned char* face_vertices = nullptr;
};

template <bool C>
[[gnu::always_inline]] inline double set_piece_c(const SupportSet& S, int i, const double* w) {
  const double v = S.a[i] + S.b[i][0] * w[0] + S.b[i][1] * w[1];
  if constexpr (C) return i == 1 ? v + root_value(S.rim, w) : v;
  else return v;
}
template <bool C>
[[gnu::always_inline]] inline double set_max_c(const SupportSet& S, const double* w) {
  double m = set_piece_c<C>(S, 0, w);
  for (int i = 1; i < S.n; ++i) m = std::max(m, set_piece_c<C>(S, i, w));
  return m;
}

/// F = Σ roots + max(set 0) + max(set 1).
struct SupportPair {
  int nq = 0;
  SupportRoot q[2];
  SupportSet set[2];
};

/// The minimizer: w, F, per set the active pieces and weights (convex), and the kink that holds
/// the minimum (−1: none; k < 2: root q[k]; 2 + s: set s's rim).
struct SupportPairMinimum {
  double w[2] = {0.0, 0.0};
  double F = 0.0;
  int na[2] = {0, 0};
  int active[2][3] = {};
  double lambda[2][3] = {};
  int kink = -1;
  int iterations = 0;
};

/// Minimizes F from w = 0. False where it does not settle (40 iterations, 8 mode changes without
/// a step) or the geometry degenerates; the caller then takes the ray cast.
template <bool Cone0, bool Cone1, int NQ>
inline bool minimize_support_pair(const SupportPair& P, SupportPairMinimum& out) {
  const auto cone_of = [](int s) { return s == 0 ? Cone0 : Cone1; };
  const auto piece = [&](int s, int i, const double* w) {
    return s == 0 ? set_piece_c<Cone0>(P.set[0], i, w) : set_piece_c<Cone1>(P.set[1], i, w);
  };
  const auto smax = [&](int s, const double* w) {
    return s == 0 ? set_max_c<Cone0>(P.set[0], w) : set_max_c<Cone1>(P.set[1], w);
  };
  const auto value = [&](const double* w) {
    double f = set_max_c<Cone0>(P.set[0], w) + set_max_c<Cone1>(P.set[1], w);
    for (int k = 0; k < NQ; ++k) f += root_value(P.q[k], w);
    return f;
  };
  if (P.nq != NQ || P.set[0].cone != Cone0 || P.set[1].cone != Cone1) return false;
#pragma GCC unroll 2
  for (int s = 0; s < 2; ++s)
    if (P.set[s].n < 1 || P.set[s].n > kMaxSetPieces || (cone_of(s) && P.set[s].n != 2)) return false;
  // kinks first: the point where a root vanishes is the minimum iff the other terms' gradient
  // there lies in its subdifferential (kink_is_minimum); every other piece must be smooth there
  // where a kink is not the minimum but every other piece is smooth there, the minimum of the
  // local model (the root as a cone ρ‖v‖_M plus the others' gradient and curvature) along the
  // steepest descent in the M-norm is a start: Newton's method from w = 0 that passes close to a
  // kink creeps past it (the root's curvature there is all tangential)
  double w_start[2] = {0.0, 0.0}, f_start = std::numeric_limits<double>::infinity();
  for (int K = 0; K < 4; ++K) {
    const SupportRoot* kr = K < 2 ? (K < NQ ? &P.q[K] : nullptr) : (P.set[K - 2].cone ? &P.set[K - 2].rim : nullptr);
    if (kr == nullptr || !kr->kink) continue;
    const double* wk = kr->kink_w;
    double G[2] = {0.0, 0.0}, H[3] = {0.0, 0.0, 0.0}, f = 0.0;
    bool ok = true;
    for (int k = 0; k < NQ && ok; ++k)
      if (k != K) ok = root_add(P.q[k], wk, 1.0, G, H, f);
    int best[2] = {0, 0};
    #pragma GCC unroll 2
    for (int s = 0; s < 2 && ok; ++s) {
      const SupportSet& S = P.set[s];
      if (K == 2 + s) {  // this cone's base: the rim piece (its root is 0 here) above the apex
        const double rim0 = S.a[1] + S.b[1][0] * wk[0] + S.b[1][1] * wk[1];
        ok = rim0 > piece(s, 0, wk);
        f += rim0;
        G[0] += S.b[1][0];
        G[1] += S.b[1][1];
        best[s] = 1;
        continue;
      }
      double bv = piece(s, 0, wk);
      for (int i = 1; i < S.n; ++i) {
        const double v = piece(s, i, wk);
        if (v > bv) bv = v, best[s] = i;
      }
      int ties = 0;
      for (int i = 0; i < S.n; ++i) ties += piece(s, i, wk) >= bv - 1e-12 * (1.0 + std::abs(bv));
      ok = ties == 1;
      const int i = best[s];
      f += S.a[i] + S.b[i][0] * wk[0] + S.b[i][1] * wk[1];
      G[0] += S.b[i][0];
      G[1] += S.b[i][1];
      if (ok && cone_of(s) && i == 1) ok = root_add(S.rim, wk, 1.0, G, H, f);
    }
    if (ok && kink_is_minimum(kr->M, kr->rho, G[0], G[1])) {
      out.w[0] = wk[0];
      out.w[1] = wk[1];
      out.F = f;
      #pragma GCC unroll 2
      for (int s = 0; s < 2; ++s) {
        out.na[s] = 1;
        out.active[s][0] = best[s];
        out.lambda[s][0] = 1.0;
      }
      out.kink = K;
      out.iterations = 0;
      return std::isfinite(out.F);
    }
    const double* M = kr->M;
    const double det = M[0] * M[2] - M[1] * M[1];
    if (ok && det > 0.0) {
      const double v0 = -(M[2] * G[0] - M[1] * G[1]) / det, v1 = -(M[0] * G[1] - M[1] * G[0]) / det;  // −M⁻¹G
      const double gn = std::sqrt(-(G[0] * v0 + G[1] * v1));
      const double kappa = (H[0] * v0 * v0 + 2.0 * H[1] * v0 * v1 + H[2] * v1 * v1) / (gn * gn);
      if (gn > kr->rho && kappa > 0.0) {
        const double t = (gn - kr->rho) / (kappa * gn);  // along v̂ = −M⁻¹G / gn
        const double wc[2] = {wk[0] + t * v0, wk[1] + t * v1};
        const double fc = value(wc);
        if (fc < f_start) f_start = fc, w_start[0] = wc[0], w_start[1] = wc[1];
      }
    }
  }
  // per set: na = 1 (idx[0]), 2 (idx[0] weight 1 − μ, idx[1] weight μ) or 3 (a polygon's face)
  int na[2] = {1, 1}, idx[2][2] = {{0, 0}, {0, 0}};
  double mu[2] = {0.0, 0.0};
  double w[2] = {0.0, 0.0};
  if (f_start < value(w)) w[0] = w_start[0], w[1] = w_start[1];
#pragma GCC unroll 2
  for (int s = 0; s < 2; ++s) {
    const SupportSet& S = P.set[s];
    double bv = piece(s, 0, w);
    for (int i = 1; i < S.n; ++i) {
      const double v = piece(s, i, w);
      if (v > bv) bv = v, idx[s][0] = i;
    }
  }
  double F = value(w);
  int switches = 0;
  double face_l[2][3] = {};
  int face_tri[2] = {0, 0};
  // a face state's pieces: a polygon's all, in order; a polytope's face `face_id`
  int face_id[2] = {-1, -1};
  const auto face_size = [&](int s) {
    const SupportSet& S = P.set[s];
    return S.num_faces > 0 ? S.face_start[face_id[s] + 1] - S.face_start[face_id[s]] : S.n;
  };
  const auto face_piece = [&](int s, int j) {
    const SupportSet& S = P.set[s];
    return S.num_faces > 0 ? static_cast<int>(S.face_vertices[S.face_start[face_id[s]] + j]) : j;
  };
  for (int it = 0; it < 40; ++it) {
    if (switches > 8) return false;
    double gE[2] = {0.0, 0.0}, HE[3] = {0.0, 0.0, 0.0}, fE = 0.0;
    for (int k = 0; k < NQ; ++k)
      if (!root_add(P.q[k], w, 1.0, gE, HE, fE)) return false;
    double dw[2] = {0.0, 0.0};
    bool curved_tie = false;
    int guard = 0;
    for (;; ++guard) {
      if (guard > 8) return false;
      // gradients of the base pieces (weight 1) and of the tie functions, curvature with weights
      double g0[2] = {gE[0], gE[1]}, H[3] = {HE[0], HE[1], HE[2]};
      double nv[2][2], cv[2];
      int cs[2], nc = 0, face = -1;
      bool ok = true;
      curved_tie = false;
      #pragma GCC unroll 2
      for (int s = 0; s < 2 && ok; ++s) {
        const SupportSet& S = P.set[s];
        if (na[s] == 3) {
          face = s;
          continue;
        }
        const int i0 = idx[s][0];
        double gb[2] = {S.b[i0][0], S.b[i0][1]}, hb[3] = {0.0, 0.0, 0.0}, fb = 0.0;
        if (cone_of(s) && i0 == 1) ok = root_add(S.rim, w, 1.0, gb, hb, fb);
        if (na[s] == 1) {
          g0[0] += gb[0], g0[1] += gb[1];
          for (int r = 0; r < 3; ++r) H[r] += hb[r];
          continue;
        }
        const int i1 = idx[s][1];
        double go[2] = {S.b[i1][0], S.b[i1][1]}, ho[3] = {0.0, 0.0, 0.0}, fo = 0.0;
        if (cone_of(s) && i1 == 1) {
          ok = ok && root_add(S.rim, w, 1.0, go, ho, fo);
          curved_tie = true;
        }
        g0[0] += gb[0], g0[1] += gb[1];
        for (int r = 0; r < 3; ++r) H[r] += (1.0 - mu[s]) * hb[r] + mu[s] * ho[r];
        nv[nc][0] = go[0] - gb[0];
        nv[nc][1] = go[1] - gb[1];
        cv[nc] = piece(s, i1, w) - piece(s, i0, w);
        cs[nc++] = s;
      }
      if (!ok) return false;
      if (face >= 0) {
        if (nc > 0) return false;  // a face and a tie: over-determined (degenerate)
        const SupportSet& S = P.set[face];
        // the face point: its first three pieces tie (all of them do)
        const int nf = face_size(face), f0 = face_piece(face, 0), f1 = face_piece(face, 1), f2 = face_piece(face, 2);
        const double p0 = S.b[f0][0] - S.b[f1][0], p1 = S.b[f0][1] - S.b[f1][1];
        const double q0 = S.b[f0][0] - S.b[f2][0], q1 = S.b[f0][1] - S.b[f2][1];
        const double det = p0 * q1 - p1 * q0;
        if (!(std::abs(det) > 1e-14 * (std::abs(p0 * q1) + std::abs(p1 * q0)))) return false;
        const double l0 = piece(face, f0, w);
        const double e0 = -(l0 - piece(face, f1, w)), e1 = -(l0 - piece(face, f2, w));
        dw[0] = (q1 * e0 - p1 * e1) / det;
        dw[1] = (p0 * e1 - q0 * e0) / det;
        const double G0 = g0[0] + H[0] * dw[0] + H[1] * dw[1], G1 = g0[1] + H[1] * dw[0] + H[2] * dw[1];
        int edge, tri = 0;
        double Bf[kMaxSetPieces][2];
        for (int j = 0; j < nf; ++j) {
          const int i = face_piece(face, j);
          Bf[j][0] = S.b[i][0];
          Bf[j][1] = S.b[i][1];
        }
        face_weights(Bf, nf, -G0, -G1, edge, tri, face_l[face]);
        if (edge >= 0) {  // −G outside the face: that edge
          na[face] = 2;
          idx[face][0] = face_piece(face, edge);
          idx[face][1] = face_piece(face, edge + 1 == nf ? 0 : edge + 1);
          mu[face] = 0.5;
          continue;
        }
        face_tri[face] = tri;
        break;
      }
      // [H N; Nᵀ 0][Δw; μ] = −[g0; c], by the structure of N (closed forms)
      double rc[4];
      if (nc == 0) {  // H Δw = −g0; F flat along a direction (an apex, a segment end): regularize
        // (a long step, which the ratio test or the mode check below cuts at the next tie)
        double h0 = H[0], h1 = H[1], h2 = H[2];
        double det = h0 * h2 - h1 * h1;
        const double tr = std::abs(h0) + std::abs(h2);
        if (!(det > 1e-12 * tr * tr)) {
          const double reg = 1e-8 * (tr + std::abs(g0[0]) + std::abs(g0[1]) + 1e-300);
          h0 += reg, h2 += reg;
          det = h0 * h2 - h1 * h1;
          if (!(det > 0.0)) return false;
        }
        rc[0] = -(h2 * g0[0] - h1 * g0[1]) / det;
        rc[1] = -(h0 * g0[1] - h1 * g0[0]) / det;
      } else if (nc == 1) {  // Δw = normal part (the tie's linearization) + tangent part (Newton on it)
        const double n0 = nv[0][0], n1 = nv[0][1], nn = n0 * n0 + n1 * n1;
        if (!(nn > 0.0)) return false;
        const double dn0 = -cv[0] * n0 / nn, dn1 = -cv[0] * n1 / nn;
        const double t0 = -n1, t1 = n0;  // (unnormalized tangent)
        double tHt = H[0] * t0 * t0 + 2.0 * H[1] * t0 * t1 + H[2] * t1 * t1;
        const double G0 = g0[0] + H[0] * dn0 + H[1] * dn1, G1 = g0[1] + H[1] * dn0 + H[2] * dn1;
        const double tr = std::abs(H[0]) + std::abs(H[2]);
        if (!(tHt > 1e-12 * tr * nn)) {  // F affine along the tie (an edge against an apex): regularize, as above
          tHt = std::max(tHt, 0.0) + 1e-8 * (tr + std::abs(G0) + std::abs(G1) + 1e-300) * nn;
          if (!(tHt > 0.0)) return false;
        }
        const double at = -(t0 * G0 + t1 * G1) / tHt;
        rc[0] = dn0 + at * t0;
        rc[1] = dn1 + at * t1;
        const double R0 = g0[0] + H[0] * rc[0] + H[1] * rc[1], R1 = g0[1] + H[1] * rc[0] + H[2] * rc[1];
        rc[2] = -(n0 * R0 + n1 * R1) / nn;
      } else {  // two ties fix the point: Nᵀ Δw = −c, then N μ = −(g0 + H Δw)
        const double a00 = nv[0][0], a01 = nv[0][1], a10 = nv[1][0], a11 = nv[1][1];  // rows n_cᵀ
        const double det = a00 * a11 - a01 * a10;
        if (!(std::abs(det) > 1e-14 * (std::abs(a00 * a11) + std::abs(a01 * a10)))) return false;
        rc[0] = (-cv[0] * a11 + cv[1] * a01) / det;
        rc[1] = (-cv[1] * a00 + cv[0] * a10) / det;
        const double R0 = -(g0[0] + H[0] * rc[0] + H[1] * rc[1]), R1 = -(g0[1] + H[1] * rc[0] + H[2] * rc[1]);
        // [n₀ n₁] μ = R: columns n_c, i.e. the transpose of the rows above
        rc[2] = (R0 * a11 - R1 * a10) / det;
        rc[3] = (a00 * R1 - a01 * R0) / det;
      }
      // a tie's weight outside [0, 1]: drop the piece it moves away from (the worst one)
      int drop = -1;
      double dv = 1e-9;
      for (int c = 0; c < nc; ++c) {
        const double v = std::max(-rc[2 + c], rc[2 + c] - 1.0);
        if (v > dv) dv = v, drop = c;
      }
      if (drop >= 0) {
        const int s = cs[drop];
        if (rc[2 + drop] > 1.0) idx[s][0] = idx[s][1];
        na[s] = 1;
        ++switches;
        if (switches > 8) return false;
        continue;
      }
      for (int c = 0; c < nc; ++c) mu[cs[c]] = std::clamp(rc[2 + c], 0.0, 1.0);
      dw[0] = rc[0];
      dw[1] = rc[1];
      break;
    }
    int nc = 0;
    #pragma GCC unroll 2
    for (int s = 0; s < 2; ++s) nc += na[s] - 1;
    // ratio test: the first inactive affine piece that reaches its set's maximum along Δw
    double step = 1.0;
    int block_set = -1, block = -1;
    if (nc < 2) {
      #pragma GCC unroll 2
      for (int s = 0; s < 2; ++s) {
        const SupportSet& S = P.set[s];
        if (na[s] == 3) continue;
        const int i0 = idx[s][0];
        if (cone_of(s)) {
          // alone on one piece, the other above it at the Newton point: the step ends where they
          // tie (secant on the segment; exact for the affine part), then the side
          if (na[s] != 1) continue;
          const double wn[2] = {w[0] + dw[0], w[1] + dw[1]};
          const double c1 = piece(s, 1 - i0, wn) - piece(s, i0, wn);
          if (!(c1 > 0.0)) continue;
          const double c0 = std::min(0.0, piece(s, 1 - i0, w) - piece(s, i0, w));
          const double t = -c0 / (c1 - c0);
          if (t < step) step = t, block_set = s, block = 1 - i0;
          continue;
        }
        const double li0 = piece(s, i0, w);
        const double ri0 = S.b[i0][0] * dw[0] + S.b[i0][1] * dw[1];
        for (int j = 0; j < S.n; ++j) {
          if (j == i0 || (na[s] == 2 && j == idx[s][1])) continue;
          const double rate = S.b[j][0] * dw[0] + S.b[j][1] * dw[1] - ri0;
          if (!(rate > 1e-12 * (std::abs(S.b[j][0]) + std::abs(S.b[j][1]) + std::abs(S.b[i0][0]) + std::abs(S.b[i0][1])) *
                           (std::abs(dw[0]) + std::abs(dw[1]))))
            continue;
          const double gap = std::max(0.0, li0 - piece(s, j, w));
          if (gap < step * rate) step = gap / rate, block_set = s, block = j;
        }
      }
    }
    const double step2 = dw[0] * dw[0] + dw[1] * dw[1];
    const double scale2 = 1.0 + w[0] * w[0] + w[1] * w[1];
    double wn[2] = {w[0] + step * dw[0], w[1] + step * dw[1]};
    double Fn = value(wn);
    if (!curved_tie && step2 > 1e-12 * scale2) {  // backtracking on F (slope over the active pieces)
      double slope = gE[0] * dw[0] + gE[1] * dw[1];
      #pragma GCC unroll 2
      for (int s = 0; s < 2; ++s) {
        const SupportSet& S = P.set[s];
        double best = -1e300;
        const int cnt = na[s] == 3 ? face_size(s) : na[s];
        for (int a = 0; a < cnt; ++a) {
          const int i = na[s] == 3 ? face_piece(s, a) : idx[s][a];
          double gi[2] = {S.b[i][0], S.b[i][1]}, hi[3] = {0.0, 0.0, 0.0}, fi = 0.0;
          if (cone_of(s) && i == 1 && !root_add(S.rim, w, 1.0, gi, hi, fi)) return false;
          best = std::max(best, gi[0] * dw[0] + gi[1] * dw[1]);
        }
        slope += best;
      }
      // (a rounding allowance: a step cut by the ratio test at a tie may not move F at all)
      const int halvings = backtrack(value, w, dw, F, slope, 1e-15 * std::abs(F), step, wn, Fn);
      if (halvings < 0) return false;
      if (halvings > 0) block = -1;
    }
    w[0] = wn[0];
    w[1] = wn[1];
    F = Fn;
    // a cone alone on its base circle whose apex rose above it within the step (apex − rim is
    // concave along the step: the check at the Newton point above can miss it): its side next
    if (block < 0) {
      bool crossed = false;
#pragma GCC unroll 2
      for (int s = 0; s < 2; ++s) {
        if (!cone_of(s) || na[s] != 1) continue;
        const int i = idx[s][0];
        if (!(piece(s, 1 - i, w) > piece(s, i, w))) continue;
        crossed = true;
        if (nc < 2) {
          na[s] = 2;
          idx[s][0] = 0;
          idx[s][1] = 1;
          mu[s] = 0.5;
        } else {
          idx[s][0] = 1 - i;
        }
      }
      if (crossed) continue;
    }
    if (block >= 0) {
      const int s = block_set;
      if (cone_of(s)) {
        mu[s] = 0.5;  // (the curvature weight of the rim: 0 or 1 would drop or overweight it)
        na[s] = 2;
        idx[s][0] = 0;
        idx[s][1] = 1;
      } else if (na[s] == 1) {
        na[s] = 2;
        idx[s][1] = block;
        mu[s] = 0.0;
      } else if (P.set[s].polygon) {
        na[s] = 3;
      } else if (P.set[s].num_faces > 0) {  // the polytope face through the edge and the new vertex
        const SupportSet& S = P.set[s];
        int found = -1;
        for (int k = 0; k < S.num_faces && found < 0; ++k) {
          int hits = 0;
          for (int j = S.face_start[k]; j < S.face_start[k + 1]; ++j) {
            const int v = S.face_vertices[j];
            hits += v == idx[s][0] || v == idx[s][1] || v == block;
          }
          if (hits == 3) found = k;
        }
        if (found < 0) return false;
        face_id[s] = found;
        na[s] = 3;
      } else {
        return false;
      }
      continue;
    }
    if (step == 1.0 && step2 <= 1e-24 * scale2) {
      // every active piece at its set's maximum (the model held)
      #pragma GCC unroll 2
      for (int s = 0; s < 2; ++s) {
        const double mx = smax(s, w), tol = 1e-9 * (1.0 + std::abs(mx));
        if (na[s] < 3)
          for (int a = 0; a < na[s]; ++a)
            if (piece(s, idx[s][a], w) < mx - tol) return false;
        if (na[s] == 3) {
          out.na[s] = 3;
          const int t = face_tri[s];
          out.active[s][0] = face_piece(s, 0), out.active[s][1] = face_piece(s, t), out.active[s][2] = face_piece(s, t + 1);
          for (int a = 0; a < 3; ++a) out.lambda[s][a] = face_l[s][a];
        } else if (na[s] == 2) {
          out.na[s] = 2;
          out.active[s][0] = idx[s][0], out.active[s][1] = idx[s][1];
          out.lambda[s][0] = 1.0 - mu[s], out.lambda[s][1] = mu[s];
        } else {
          out.na[s] = 1;
          out.active[s][0] = idx[s][0];
          out.lambda[s][0] = 1.0;
        }
      }
      out.w[0] = w[0];
      out.w[1] = w[1];
      out.F = F;
      out.kink = -1;
      out.iterations = it + 1;
     
      return std::isfinite(F);
    }
  }
  return false;
}

}  // namespace diffcol::dcol::detail
