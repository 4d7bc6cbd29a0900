// Third derivatives ∇³φ of the shapes' implicit functions, and the derivatives of φ and ∇φ with
// respect to the shapes' parameters: what the second-order and shape-parameter derivatives of the
// contact (hessians.cpp) need of the shapes beyond the φ, ∇φ, ∇²φ of their eval(). Closed forms
// per shape (seed Appendix A differentiated once more). Internal header.
#pragma once

#include <algorithm>
#include <cmath>

#include "diffcol/shapes/shape.hpp"

namespace diffcol::idcol::detail {

/// ∇³φ as three symmetric slices: T[k](i, j) = ∂³φ/∂y_i∂y_j∂y_k.
struct Third {
  Mat3 T[3];
  void set_zero() {
    for (auto& t : T) t.setZero();
  }
  /// ∇³φ[u, v] (a 3-vector): Σ_jk T_ijk u_j v_k.
  Vec3 contract(const Vec3& u, const Vec3& v) const {
    return (T[0] * u) * v[0] + (T[1] * u) * v[1] + (T[2] * u) * v[2];
  }
};

/// The most parameters of one shape (the truncated cone's β, R_b, R_t, a, b).
inline constexpr int kMaxShapeParams = 5;

/// ∂φ/∂θ_p and ∂∇φ/∂θ_p at one point, p < count.
struct ParamDerivs {
  int count = 0;
  double dphi[kMaxShapeParams] = {};
  Vec3 dgrad[kMaxShapeParams];
};

// t += c·(H_ij g_k + H_ik g_j + H_jk g_i)
inline void add_sym3(double c, const Mat3& H, const Vec3& g, Third& t) {
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) t.T[k](i, j) += c * (H(i, j) * g[k] + H(i, k) * g[j] + H(j, k) * g[i]);
}
// t += c·a_i a_j a_k
inline void add_cube(double c, const Vec3& a, Third& t) {
  for (int k = 0; k < 3; ++k) t.T[k] += (c * a[k]) * (a * a.transpose());
}

// φ = S^(1/(2n)) − 1 composed with S (gradient gS, Hessian HS, third TS):
// ∇³φ = ψ''' gS⊗gS⊗gS + ψ''·sym3(HS ⊗ gS) + ψ' TS.
inline void compose_power(double S, int n, const Vec3& gS, const Mat3& HS, Third& t /* in: TS, out: ∇³φ */) {
  const double P = std::pow(S, 0.5 / n);
  const double d1 = P / (2.0 * n * S);
  const double d2 = d1 * (0.5 / n - 1.0) / S;
  const double d3 = d2 * (0.5 / n - 2.0) / S;
  for (auto& m : t.T) m *= d1;
  add_sym3(d2, HS, gS, t);
  add_cube(d3, gS, t);
}

inline double ipow0(double u, int k) { return k < 0 ? 0.0 : diffcol::detail::ipow(u, k); }

// ---------------------------------------------------------------- third derivatives

inline void third(const Sphere& s, const Vec3& y, Third& t) {
  // φ = ‖y‖/R − 1: T_ijk = (3 u_i u_j u_k − δ_ij u_k − δ_ik u_j − δ_jk u_i)/(‖y‖² R), u = y/‖y‖
  const double n = std::max(y.norm(), 1e-150);
  const Vec3 u = y / n;
  const double c = 1.0 / (n * n * s.radius());
  t.set_zero();
  add_cube(3.0 * c, u, t);
  add_sym3(-c, Mat3::Identity(), u, t);
}

inline void third(const Superellipsoid& s, const Vec3& y, Third& t) {
  const int n = s.exponent();
  const double eps = s.epsilon();
  const Vec3 ax = s.semi_axes();
  double S = 0.0;
  Vec3 gS;
  Mat3 HS = Mat3::Zero();
  t.set_zero();
  for (int i = 0; i < 3; ++i) {
    // s_i = u^n, u = ȳ² + ε, ȳ = y_i/a_i (A20)-(A24), and its third derivative
    const double ia = 1.0 / ax[i], yb = y[i] * ia, u = yb * yb + eps;
    const double p = ipow0(u, n - 1);
    S += p * u;
    gS[i] = 2.0 * n * p * yb * ia;
    const double q = n > 1 ? (n - 1) * ipow0(u, n - 2) * 4.0 * yb * yb : 0.0;
    HS(i, i) = n * (q + 2.0 * p) * ia * ia;
    const double r = n > 1 ? 2.0 * n * (n - 1) * ia * ia * ia *
                                 (6.0 * yb * ipow0(u, n - 2) + (n > 2 ? 4.0 * (n - 2) * yb * yb * yb * ipow0(u, n - 3) : 0.0))
                           : 0.0;
    t.T[i](i, i) = r;
  }
  compose_power(std::max(S, diffcol::detail::kTinyS), n, gS, HS, t);
}

inline void third(const SuperellipticCylinder& s, const Vec3& y, Third& t) {
  const int n = s.exponent();
  const double eps = s.epsilon();
  const double ih = 1.0 / s.half_height(), k = 1.0 / (s.radius() * s.radius());
  t.set_zero();
  // axial term as the superellipsoid's
  const double yb = y.x() * ih, u1 = yb * yb + eps;
  const double p1 = ipow0(u1, n - 1);
  Vec3 gS;
  Mat3 HS = Mat3::Zero();
  gS.x() = 2.0 * n * p1 * yb * ih;
  HS(0, 0) = n * ((n > 1 ? (n - 1) * ipow0(u1, n - 2) * 4.0 * yb * yb : 0.0) + 2.0 * p1) * ih * ih;
  t.T[0](0, 0) = n > 1 ? 2.0 * n * (n - 1) * ih * ih * ih *
                             (6.0 * yb * ipow0(u1, n - 2) + (n > 2 ? 4.0 * (n - 2) * yb * yb * yb * ipow0(u1, n - 3) : 0.0))
                       : 0.0;
  // radial term f(ρ) = (kρ + ε)^n, ρ = y2² + y3²: ∇ρ = q, ∇²ρ = D = 2·diag(0, 1, 1)
  const double ur = k * (y.y() * y.y() + y.z() * y.z()) + eps;
  const double f1 = n * k * ipow0(ur, n - 1);
  const double f2 = n * (n - 1) * k * k * ipow0(ur, n - 2);
  const double f3 = n * (n - 1) * (n - 2) * k * k * k * ipow0(ur, n - 3);
  const Vec3 q(0.0, 2.0 * y.y(), 2.0 * y.z());
  Mat3 D = Mat3::Zero();
  D(1, 1) = D(2, 2) = 2.0;
  gS.y() = f1 * q.y();
  gS.z() = f1 * q.z();
  HS += f2 * q * q.transpose() + f1 * D;
  add_cube(f3, q, t);
  add_sym3(f2, D, q, t);
  const double S = p1 * u1 + ipow0(ur, n - 1) * ur;
  compose_power(std::max(S, diffcol::detail::kTinyS), n, gS, HS, t);
}

// The lateral term of the truncated cone c = r²·R(y1)⁻² − 1 and its derivatives (A13)-(A16), with
// R(y1) continued below R_floor as in SmoothTruncatedCone::eval_at_beta.
struct ConeLateral {
  double c;
  Vec3 g;
  Mat3 H;
  Third T;
  double R, dR;  // R(y1), R'(y1)
};
inline void cone_profile(const SmoothTruncatedCone& s, double& kappa, double& R0, double& Rfloor) {
  const double a = s.bottom_extent(), b = s.top_extent();
  kappa = (s.top_radius() - s.bottom_radius()) / (a + b);
  R0 = s.bottom_radius() + kappa * a;
  Rfloor = 0.5 * std::min(s.bottom_radius(), s.top_radius());
}
inline void cone_lateral(const SmoothTruncatedCone& s, const Vec3& y, ConeLateral& L) {
  double kappa, R0, Rf;
  cone_profile(s, kappa, R0, Rf);
  double R = R0 + kappa * y.x(), d1 = kappa, d2 = 0.0, d3 = 0.0;
  if (R < Rf) {
    const double e = std::exp((R - Rf) / Rf);
    d1 = kappa * e;
    d2 = kappa * kappa * e / Rf;
    d3 = kappa * kappa * kappa * e / (Rf * Rf);
    R = Rf * e;
  }
  // q = R⁻²: q' = −2R⁻³R', q'' = 6R⁻⁴R'² − 2R⁻³R'', q''' = −24R⁻⁵R'³ + 18R⁻⁴R'R'' − 2R⁻³R'''
  const double iR = 1.0 / R, iR2 = iR * iR, iR3 = iR2 * iR, iR4 = iR2 * iR2;
  const double q = iR2, q1 = -2.0 * iR3 * d1, q2 = 6.0 * iR4 * d1 * d1 - 2.0 * iR3 * d2;
  const double q3 = -24.0 * iR4 * iR * d1 * d1 * d1 + 18.0 * iR4 * d1 * d2 - 2.0 * iR3 * d3;
  const double r2 = y.y() * y.y() + y.z() * y.z();
  L.R = R;
  L.dR = d1;
  L.c = r2 * q - 1.0;
  L.g = Vec3(r2 * q1, 2.0 * y.y() * q, 2.0 * y.z() * q);
  L.H << r2 * q2, 2.0 * y.y() * q1, 2.0 * y.z() * q1,  //
      2.0 * y.y() * q1, 2.0 * q, 0.0,                     //
      2.0 * y.z() * q1, 0.0, 2.0 * q;
  L.T.set_zero();
  L.T.T[0] << r2 * q3, 2.0 * y.y() * q2, 2.0 * y.z() * q2,  //
      2.0 * y.y() * q2, 2.0 * q1, 0.0,                          //
      2.0 * y.z() * q2, 0.0, 2.0 * q1;
  L.T.T[1] << 2.0 * y.y() * q2, 2.0 * q1, 0.0,  //
      2.0 * q1, 0.0, 0.0,                         //
      0.0, 0.0, 0.0;
  L.T.T[2] << 2.0 * y.z() * q2, 0.0, 2.0 * q1,  //
      0.0, 0.0, 0.0,                              //
      2.0 * q1, 0.0, 0.0;
}

// The smooth max φ = (1/β) log Σ exp(β c_i) of three terms: weights v_i, ∇φ, ∇²φ.
struct ConeTerms {
  ConeLateral lat;
  double c[3];
  Vec3 G[3];
  double v[3];
  double phi;
  Vec3 g;
  Mat3 H;
};
inline void cone_terms(const SmoothTruncatedCone& s, const Vec3& y, ConeTerms& C) {
  cone_lateral(s, y, C.lat);
  const double ia = 1.0 / s.bottom_extent(), ib = 1.0 / s.top_extent(), beta = s.beta();
  C.c[0] = C.lat.c;
  C.c[1] = -y.x() * ia - 1.0;
  C.c[2] = y.x() * ib - 1.0;
  C.G[0] = C.lat.g;
  C.G[1] = Vec3(-ia, 0.0, 0.0);
  C.G[2] = Vec3(ib, 0.0, 0.0);
  const double m = std::max(C.c[0], std::max(C.c[1], C.c[2]));
  double w[3], sw = 0.0;
  for (int i = 0; i < 3; ++i) sw += (w[i] = std::exp(beta * (C.c[i] - m)));
  for (int i = 0; i < 3; ++i) C.v[i] = w[i] / sw;
  C.phi = m + std::log(sw) / beta;
  C.g = C.v[0] * C.G[0] + C.v[1] * C.G[1] + C.v[2] * C.G[2];
  Mat3 M = Mat3::Zero();
  for (int i = 0; i < 3; ++i) M += C.v[i] * C.G[i] * C.G[i].transpose();
  C.H = C.v[0] * C.lat.H + beta * (M - C.g * C.g.transpose());
}

inline void third(const SmoothTruncatedCone& s, const Vec3& y, Third& t) {
  ConeTerms C;
  cone_terms(s, y, C);
  const double beta = s.beta();
  // ∂_k ∇²φ with ∂_k v_i = β v_i (G_ik − g_k) and ∇²φ = Σ v_i H_i + β(Σ v_i G_i G_iᵀ − g gᵀ)
  for (int k = 0; k < 3; ++k) {
    Mat3 Tk = C.v[0] * C.lat.T.T[k];
    const Vec3 He = C.H.col(k);
    Tk -= beta * (He * C.g.transpose() + C.g * He.transpose());
    for (int i = 0; i < 3; ++i) {
      const double dv = beta * C.v[i] * (C.G[i][k] - C.g[k]);
      Tk += beta * dv * C.G[i] * C.G[i].transpose();
      if (i == 0) {
        Tk += dv * C.lat.H;
        const Vec3 Hk = C.lat.H.col(k);
        Tk += (beta * C.v[0]) * (Hk * C.G[0].transpose() + C.G[0] * Hk.transpose());
      }
    }
    t.T[k] = Tk;
  }
}

// Moments of the polytope's face weights v_i ∝ exp(β c_i), c_i = ã_iᵀy − b̃_i (ã = a/L, b̃ = b/L),
// about the point g0: E[c], E[δ], E[δδᵀ], E[δ⊗δ⊗δ], E[c δ] with δ = ã − g0.
struct PlaneMoments {
  double phi = 0.0, ec = 0.0;
  Vec3 m1 = Vec3::Zero(), ecd = Vec3::Zero();
  Mat3 m2 = Mat3::Zero();
  Third m3;
};
inline void plane_moments(const SmoothPolytope& s, const Vec3& y, const Vec3& g0, PlaneMoments& M) {
  const auto f = s.face_data();
  const double beta = s.beta();
  double cmax = -1e300;
  for (int i = 0; i < f.m; ++i) cmax = std::max(cmax, f.ax[i] * y.x() + f.ay[i] * y.y() + f.az[i] * y.z() - f.b[i]);
  M.m3.set_zero();
  double sw = 0.0, sc = 0.0;
  Vec3 s1 = Vec3::Zero(), scd = Vec3::Zero();
  Mat3 s2 = Mat3::Zero();
  Third s3;
  s3.set_zero();
  const double cut = cmax - 40.0 / beta;
  for (int i = 0; i < f.m; ++i) {
    const double c = f.ax[i] * y.x() + f.ay[i] * y.y() + f.az[i] * y.z() - f.b[i];
    if (c < cut) continue;
    const double w = std::exp(beta * (c - cmax));
    const Vec3 d(f.ax[i] - g0.x(), f.ay[i] - g0.y(), f.az[i] - g0.z());
    sw += w;
    sc += w * c;
    s1 += w * d;
    scd += (w * c) * d;
    const Mat3 dd = d * d.transpose();
    s2 += w * dd;
    for (int k = 0; k < 3; ++k) s3.T[k] += (w * d[k]) * dd;
  }
  const double inv = 1.0 / sw;
  M.phi = cmax + std::log(sw) / beta;
  M.ec = sc * inv;
  M.m1 = s1 * inv;
  M.ecd = scd * inv;
  M.m2 = s2 * inv;
  for (int k = 0; k < 3; ++k) M.m3.T[k] = s3.T[k] * inv;
}

inline void third(const SmoothPolytope& s, const Vec3& y, Third& t) {
  // ∇³φ = β² × the third central moment of the face normals ã_i under the weights (cumulants of
  // the log-sum-exp of linear functions)
  Vec3 g0;
  Mat3 H0;
  s.eval(y, g0, H0);
  PlaneMoments M;
  plane_moments(s, y, g0, M);
  const double b2 = s.beta() * s.beta();
  t.set_zero();
  for (int k = 0; k < 3; ++k) t.T[k] = b2 * M.m3.T[k];
  add_sym3(-b2, M.m2, M.m1, t);
  add_cube(2.0 * b2, M.m1, t);
}

// A switch, not std::visit: no table of function pointers, so that callers can inline it (the
// AVX2 clones of hessians.cpp, src/util/target_clones.hpp).
inline void third(const Shape& shape, const Vec3& y, Third& t) {
  switch (shape.type()) {
    case ShapeType::sphere: return third(shape.as<Sphere>(), y, t);
    case ShapeType::superellipsoid: return third(shape.as<Superellipsoid>(), y, t);
    case ShapeType::superelliptic_cylinder: return third(shape.as<SuperellipticCylinder>(), y, t);
    case ShapeType::smooth_polytope: return third(shape.as<SmoothPolytope>(), y, t);
    case ShapeType::smooth_truncated_cone: return third(shape.as<SmoothTruncatedCone>(), y, t);
  }
}

// ---------------------------------------------------------------- parameter derivatives
// φ(y; θ) of the sphere, superellipsoid and cylinder is Φ(y_i/s_i) with s_i the length along y_i:
// ∂φ/∂s = −Σ_{i∈s} y_i g_i / s, ∂∇φ/∂s = −(Σ_{i∈s} (e_i g_i + y_i H_i·)) / s.

inline void params(const Sphere& s, const Vec3& y, const Vec3& g, const Mat3& H, ParamDerivs& p) {
  p.count = 1;
  p.dphi[0] = -y.dot(g) / s.radius();
  p.dgrad[0] = -(g + H * y) / s.radius();
}

inline void params(const Superellipsoid& s, const Vec3& y, const Vec3& g, const Mat3& H, ParamDerivs& p) {
  p.count = 3;
  const Vec3 ax = s.semi_axes();
  for (int i = 0; i < 3; ++i) {
    p.dphi[i] = -y[i] * g[i] / ax[i];
    Vec3 d = y[i] * H.row(i).transpose();
    d[i] += g[i];
    p.dgrad[i] = -d / ax[i];
  }
}

inline void params(const SuperellipticCylinder& s, const Vec3& y, const Vec3& g, const Mat3& H, ParamDerivs& p) {
  p.count = 2;  // radius, half-height
  const double R = s.radius(), h = s.half_height();
  p.dphi[0] = -(y.y() * g.y() + y.z() * g.z()) / R;
  Vec3 d = y.y() * H.row(1).transpose() + y.z() * H.row(2).transpose();
  d.y() += g.y();
  d.z() += g.z();
  p.dgrad[0] = -d / R;
  p.dphi[1] = -y.x() * g.x() / h;
  Vec3 e = y.x() * H.row(0).transpose();
  e.x() += g.x();
  p.dgrad[1] = -e / h;
}

inline void params(const SmoothTruncatedCone& s, const Vec3& y, const Vec3&, const Mat3&, ParamDerivs& p) {
  // θ = (β, R_b, R_t, a, b). Each term c_i depends on θ; with ∂v_i/∂θ = β v_i (∂c_i/∂θ − ∂φ/∂θ):
  // ∂φ/∂θ = Σ v_i ∂c_i/∂θ, ∂∇φ/∂θ = Σ v_i ∂∇c_i/∂θ + β Σ v_i (∂c_i/∂θ − ∂φ/∂θ) ∇c_i;
  // for β: ∂φ/∂β = (Σ v_i c_i − φ)/β, ∂∇φ/∂β = Σ v_i (c_i − Σ v_j c_j) ∇c_i.
  // The lateral term through R(y1) = R_b + (R_t − R_b)(y1 + a)/(a + b) on the linear profile
  // (the continuation below R_floor lies past the caps, away from the surface).
  ConeTerms C;
  cone_terms(s, y, C);
  const double beta = s.beta(), a = s.bottom_extent(), b = s.top_extent();
  const double kappa = (s.top_radius() - s.bottom_radius()) / (a + b);
  p.count = 5;
  const double cbar = C.v[0] * C.c[0] + C.v[1] * C.c[1] + C.v[2] * C.c[2];
  p.dphi[0] = (cbar - C.phi) / beta;
  p.dgrad[0] = Vec3::Zero();
  for (int i = 0; i < 3; ++i) p.dgrad[0] += C.v[i] * (C.c[i] - cbar) * C.G[i];
  // ∂R/∂θ and ∂R'/∂θ for θ = R_b, R_t, a, b
  const double ab = a + b;
  const double dR[4] = {(b - y.x()) / ab, (y.x() + a) / ab, kappa * (b - y.x()) / ab, -kappa * (y.x() + a) / ab};
  const double dk[4] = {-1.0 / ab, 1.0 / ab, -kappa / ab, -kappa / ab};
  const double R = C.lat.R, iR = 1.0 / R, iR2 = iR * iR, iR3 = iR2 * iR;
  const double r2 = y.y() * y.y() + y.z() * y.z();
  const double d1 = C.lat.dR;
  for (int t = 0; t < 4; ++t) {
    // c_s = r² q − 1, q = R⁻²; ∇c_s = (r² q', 2 y2 q, 2 y3 q), q' = −2 R⁻³ R'
    const double dq = -2.0 * iR3 * dR[t];
    const double dq1 = 6.0 * iR2 * iR2 * d1 * dR[t] - 2.0 * iR3 * dk[t];
    double dc[3] = {r2 * dq, 0.0, 0.0};
    Vec3 dG[3] = {Vec3(r2 * dq1, 2.0 * y.y() * dq, 2.0 * y.z() * dq), Vec3::Zero(), Vec3::Zero()};
    if (t == 2) {  // a: c_b = −y1/a − 1
      dc[1] = y.x() / (a * a);
      dG[1] = Vec3(1.0 / (a * a), 0.0, 0.0);
    } else if (t == 3) {  // b: c_t = y1/b − 1
      dc[2] = -y.x() / (b * b);
      dG[2] = Vec3(-1.0 / (b * b), 0.0, 0.0);
    }
    double dphi = 0.0;
    for (int i = 0; i < 3; ++i) dphi += C.v[i] * dc[i];
    Vec3 dg = Vec3::Zero();
    for (int i = 0; i < 3; ++i) dg += C.v[i] * dG[i] + (beta * C.v[i] * (dc[i] - dphi)) * C.G[i];
    p.dphi[1 + t] = dphi;
    p.dgrad[1 + t] = dg;
  }
}

inline void params(const SmoothPolytope& s, const Vec3& y, const Vec3& g, const Mat3&, ParamDerivs& p) {
  // θ = (β, L): c_i = (a_iᵀy − b_i)/L, ∂c_i/∂L = −c_i/L;
  // ∂φ/∂β = (E[c] − φ)/β, ∂∇φ/∂β = E[(c − E[c]) ã];
  // ∂φ/∂L = −E[c]/L,      ∂∇φ/∂L = −(β E[(c − E[c]) ã] + ∇φ)/L
  PlaneMoments M;
  plane_moments(s, y, g, M);
  const double beta = s.beta(), L = s.length();
  const Vec3 cov = M.ecd - M.ec * M.m1;  // E[(c − E[c]) δ] = E[(c − E[c]) ã]
  const Vec3 gg = g + M.m1;               // E[ã]
  p.count = 2;
  p.dphi[0] = (M.ec - M.phi) / beta;
  p.dgrad[0] = cov;
  p.dphi[1] = -M.ec / L;
  p.dgrad[1] = -(beta * cov + gg) / L;
}

inline void params(const Shape& shape, const Vec3& y, const Vec3& g, const Mat3& H, ParamDerivs& p) {
  switch (shape.type()) {
    case ShapeType::sphere: return params(shape.as<Sphere>(), y, g, H, p);
    case ShapeType::superellipsoid: return params(shape.as<Superellipsoid>(), y, g, H, p);
    case ShapeType::superelliptic_cylinder: return params(shape.as<SuperellipticCylinder>(), y, g, H, p);
    case ShapeType::smooth_polytope: return params(shape.as<SmoothPolytope>(), y, g, H, p);
    case ShapeType::smooth_truncated_cone: return params(shape.as<SmoothTruncatedCone>(), y, g, H, p);
  }
}

/// Number and names of the parameters params() differentiates, in its order.
inline int param_count(ShapeType t) {
  switch (t) {
    case ShapeType::sphere: return 1;
    case ShapeType::superellipsoid: return 3;
    case ShapeType::superelliptic_cylinder: return 2;
    case ShapeType::smooth_polytope: return 2;
    case ShapeType::smooth_truncated_cone: return 5;
  }
  return 0;
}

}  // namespace diffcol::idcol::detail
