// The core of the iDCOL contact solve, shared by the CPU solver (solve_contact.cpp) and the
// optional CUDA batch solver (cuda/): the KKT residual (10) and Jacobian (11), the safeguarded
// Newton method (Algorithm 1), the polish step and the starts (touching points, flat proxies,
// closed-form support points). Functions marked DIFFCOL_HD compile for the GPU under nvcc.
// Internal to src/ (and cuda/); included by one translation unit each, hence the anonymous namespace.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/math/hd.hpp"

#include "../geometry/minkowski_ray_cast.hpp"
#ifndef __CUDA_ARCH__
#include "../geometry/gjk_distance.hpp"
#endif

namespace diffcol::idcol {
namespace {

// Inline the whole Newton loop (shape evaluations, KKT assembly, LU) into one function per pair.
// Not under sanitizers, where it makes compilation very slow.
#if defined(__SANITIZE_ADDRESS__)
#define DIFFCOL_FLATTEN
#else
#define DIFFCOL_FLATTEN [[gnu::flatten]]
#endif
// Out of line on the CPU: shape-independent code off the common path that flattening would copy
// into every shape pair's Newton loop (compile time, docs/idcol.md).
#if defined(__CUDACC__)
#define DIFFCOL_NOINLINE
#else
#define DIFFCOL_NOINLINE [[gnu::noinline]]
#endif

// Eigen's allFinite() for the GPU too.
DIFFCOL_HD inline bool all_finite(const Vec3& v) {
  return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z());
}

// A⁻¹b for a symmetric positive definite 6×6 A by Cholesky (A = LLᵀ, lower triangle read); NaN
// where A is not positive definite (Eigen's LLT does not run on the GPU).
DIFFCOL_HD inline Vec6 spd_solve6(const Mat6& A, const Vec6& b) {
  double L[6][6];
  for (int j = 0; j < 6; ++j) {
    double d = A(j, j);
    for (int k = 0; k < j; ++k) d -= L[j][k] * L[j][k];
    if (!(d > 0.0)) return Vec6::Constant(std::numeric_limits<double>::quiet_NaN());
    L[j][j] = std::sqrt(d);
    const double inv = 1.0 / L[j][j];
    for (int i = j + 1; i < 6; ++i) {
      double v = A(i, j);
      for (int k = 0; k < j; ++k) v -= L[i][k] * L[j][k];
      L[i][j] = v * inv;
    }
  }
  double y[6];
  for (int i = 0; i < 6; ++i) {
    double v = b[i];
    for (int k = 0; k < i; ++k) v -= L[i][k] * y[k];
    y[i] = v / L[i][i];
  }
  Vec6 x;
  for (int i = 5; i >= 0; --i) {
    double v = y[i];
    for (int k = i + 1; k < 6; ++k) v -= L[k][i] * x[k];
    x[i] = v / L[i][i];
  }
  return x;
}

// Positions beyond this magnitude are rejected (their squares would overflow).
constexpr double kMaxCoordinate = 1e150;

// Unknowns of the (surrogate) KKT system.
struct Iterate {
  Vec3 x = Vec3::Zero();
  double s = 0.0, l1 = 0.0, l2 = 0.0;
};

// ∇φ, ∇²φ of both shapes at the iterate's y1 = x/α, y2 = Rᵀ(x − r)/α (kept for the normal and
// the derivatives; y is invariant under the surrogate scaling).
struct ShapeData {
  Vec3 g1 = Vec3::UnitX(), g2 = Vec3::UnitX();
  Mat3 H1 = Mat3::Zero(), H2 = Mat3::Zero();
};

// Problem data in the surrogate frame: body 2 at (R, r_S) in body 1.
struct Problem {
  Mat3 R;
  Vec3 r;
  double s_lo, s_hi;   // trust region on s from the bounds (22)
  double size;         // r1_out + r2_out, a length scale for step limits
};

// Residual (10) and Jacobian (11) (α column times α) at z.
template <class S1, class S2>
struct Kkt {
  const S1& a;
  const S2& b;
  const Problem& P;

  // Returns false if the evaluation is not finite. sd: the shape data at z.
  DIFFCOL_HD bool operator()(const Iterate& z, Vec6& f, Mat6RowMajor& J, ShapeData& sd) const {
    return evaluate<false>(z, f, J, sd);
  }

  // The same at (x, s) of z, with the multipliers first set to those that best satisfy (10c)-(10d)
  // there (set_multipliers; one evaluation of each shape serves both): a cold start.
  DIFFCOL_HD bool start(Iterate& z, Vec6& f, Mat6RowMajor& J, ShapeData& sd) const { return evaluate<true>(z, f, J, sd); }

  // The same at z with α = exp(z.s) given (a closed-form solution: no exp).
  DIFFCOL_HD bool at_alpha(const Iterate& z, double alpha, Vec6& f, Mat6RowMajor& J, ShapeData& sd) const {
    const double ia = 1.0 / alpha;
    const Vec3 y1 = ia * z.x;
    const Vec3 y2 = ia * (P.R.transpose() * (z.x - P.r));
    const double phi1 = a.eval(y1, sd.g1, sd.H1);
    const double phi2 = b.eval(y2, sd.g2, sd.H2);
    return assemble(z, alpha, ia, y1, y2, phi1, phi2, sd, f, J);
  }

 private:
  template <bool kSetMultipliers>
  DIFFCOL_HD bool evaluate(std::conditional_t<kSetMultipliers, Iterate&, const Iterate&> z, Vec6& f, Mat6RowMajor& J,
                ShapeData& sd) const {
    const double alpha = std::exp(z.s);
    const double ia = 1.0 / alpha;
    const Vec3 y1 = ia * z.x;
    const Vec3 y2 = ia * (P.R.transpose() * (z.x - P.r));
    const double phi1 = a.eval(y1, sd.g1, sd.H1);
    const double phi2 = b.eval(y2, sd.g2, sd.H2);
    if constexpr (kSetMultipliers) set_multipliers(z, alpha, ia, y1, y2, sd.g1, sd.g2);
    return assemble(z, alpha, ia, y1, y2, phi1, phi2, sd, f, J);
  }

  // (10) and (11) at z from the shape values and data at y1 = x/α, y2 = Rᵀ(x − r)/α.
  DIFFCOL_HD bool assemble(const Iterate& z, double alpha, double ia, const Vec3& y1, const Vec3& y2, double phi1,
                double phi2, const ShapeData& sd, Vec6& f, Mat6RowMajor& J) const {
    const Vec3& g1 = sd.g1;
    const Vec3& g2 = sd.g2;
    const Mat3& H1 = sd.H1;
    const Mat3& H2 = sd.H2;
    // (7a)-(7e) for both bodies, in body 1's frame
    const Vec3 G2 = P.R * g2;
    const Vec3 p1x = ia * g1, p2x = ia * G2;
    const double yg1 = y1.dot(g1), yg2 = y2.dot(g2);
    const double p1a = -ia * yg1, p2a = -ia * yg2;
    const Vec3 Hy1 = H1 * y1, Hy2 = H2 * y2;
    const double ia2 = ia * ia;
    const Vec3 p1xa = -ia2 * (g1 + Hy1);
    const Vec3 p2xa = -ia2 * (P.R * (g2 + Hy2));
    const double p1aa = ia2 * (2.0 * yg1 + y1.dot(Hy1));
    const double p2aa = ia2 * (2.0 * yg2 + y2.dot(Hy2));
    const Mat3 Lxx = (z.l1 * ia2) * H1 + (z.l2 * ia2) * (P.R * H2 * P.R.transpose());
    const Vec3 Lxa = z.l1 * p1xa + z.l2 * p2xa;

    f[0] = phi1;                                  // (10a)
    f[1] = phi2;                                  // (10b)
    f.segment<3>(2) = z.l1 * p1x + z.l2 * p2x;    // (10c)
    f[5] = 1.0 + z.l1 * p1a + z.l2 * p2a;         // (10d)

    J.row(0) << p1x.transpose(), alpha * p1a, 0.0, 0.0;
    J.row(1) << p2x.transpose(), alpha * p2a, 0.0, 0.0;
    J.block<3, 3>(2, 0) = Lxx;
    J.block<3, 1>(2, 3) = alpha * Lxa;
    J.block<3, 1>(2, 4) = p1x;
    J.block<3, 1>(2, 5) = p2x;
    J.block<1, 3>(5, 0) = Lxa.transpose();
    J(5, 3) = alpha * (z.l1 * p1aa + z.l2 * p2aa);
    J(5, 4) = p1a;
    J(5, 5) = p2a;
    return std::isfinite(f.sum());
  }

  // Multipliers that best satisfy (10c)-(10d) given the shape gradients g1, g2 at y1, y2: (10d)
  // exactly, (10c) in least squares; both 1/(−∂φ1/∂α − ∂φ2/∂α) where that is not positive.
  DIFFCOL_HD void set_multipliers(Iterate& z, double alpha, double ia, const Vec3& y1, const Vec3& y2, const Vec3& g1,
                       const Vec3& g2) const {
    const Vec3 u = ia * g1, v = ia * (P.R * g2);
    const double p = -ia * y1.dot(g1), q = -ia * y2.dot(g2);
    const double pq = p * p + q * q;
    double l1 = -1.0, l2 = -1.0;
    if (pq > 0.0 && std::isfinite(pq)) {
      const Vec3 c = (-p / pq) * u + (-q / pq) * v;
      const Vec3 e = q * u - p * v;
      const double ee = e.squaredNorm();
      const double t = ee > 0.0 ? -c.dot(e) / ee : 0.0;
      l1 = -p / pq + t * q;
      l2 = -q / pq - t * p;
    }
    if (!(l1 > 0.0) || !(l2 > 0.0) || !std::isfinite(l1) || !std::isfinite(l2)) {
      const double sum = -(p + q);
      l1 = l2 = (sum > 0.0 && std::isfinite(sum)) ? 1.0 / sum : 0.5 * alpha;
    }
    z.l1 = l1;
    z.l2 = l2;
  }
};

// ‖diag(1, 1, w, w, w, 1) f‖² for w² = w2: rows (10c) weighted (the merit and the stopping test).
DIFFCOL_HD inline double weighted_squared_norm(const Vec6& f, double w2) {
  return f[0] * f[0] + f[1] * f[1] + f[5] * f[5] + w2 * f.segment<3>(2).squaredNorm();
}
// The norm of the stopping test: ‖W f‖₂, W = diag(1, 1, σ, σ, σ, 1), σ = size (the pair's
// r1_out + r2_out). Rows (10c) carry units of 1/length; measured in units of the pair's size the
// test, like the iteration (merit ½‖W f‖², equilibrated Newton system, newton()), is invariant
// under scaling both shapes and r. With the plain ‖f‖ the test had a rounding floor that grows as
// 1/size for small pairs (tc–box at 1e-5 of the benchmark size, β = 200: 40% of sweep solves
// stalled at ‖f‖ ≈ 1e-9) and was loose in rows (10c) for large ones (pairs scaled by 1e3: 31 of
// 97 510 sweep solves with dα/dξ off by more than 1e-3 relative; docs/idcol.md).
DIFFCOL_HD inline double stopping_norm(const Vec6& f, double size) {
  return std::sqrt(weighted_squared_norm(f, size * size));
}

// The rounding floor of the residual at z, in the norm of the stopping test: each row of (10)
// moves by about u·Σ_j |J_ij||z_j| when every unknown moves by its own rounding (δx = u|x|,
// δs = u, δλ = u|λ|; u the unit roundoff), plus u·1 for the constant of (10d). For sharp shapes
// far larger than their smoothing length (a polytope of size 1e7 with L = 1, β = 200: a
// cancellation in βAy/L − βb/L inside φ) this floor exceeds the tolerance, and a KKT point exact
// to rounding read not_converged.
DIFFCOL_HD inline double residual_floor(const Mat6RowMajor& J, const Vec3& x, double l1, double l2, double size) {
  const double az[6] = {std::abs(x[0]), std::abs(x[1]), std::abs(x[2]), 1.0, std::abs(l1), std::abs(l2)};
  Vec6 fl;
  for (int i = 0; i < 6; ++i) {
    double v = 0.0;
    for (int j = 0; j < 6; ++j) v += std::abs(J(i, j)) * az[j];
    fl[i] = v;
  }
  fl[5] += 1.0;
  return std::numeric_limits<double>::epsilon() * stopping_norm(fl, size);
}
// A residual within kFloorFactor × residual_floor counts as converged, whatever the tolerance
// (docs/idcol.md, "Stopping test"); the floor is computed only for residuals below kFloorGate ×
// the tolerance (near a solution: the iterations before cost nothing more).
constexpr double kFloorFactor = 16.0;
constexpr double kFloorGate = 1e4;
DIFFCOL_HD inline bool residual_converged(const Vec6& f, const Mat6RowMajor& J, const Vec3& x, double l1, double l2,
                                          double size, double tolerance) {
  const double n = stopping_norm(f, size);
  if (n < tolerance) return true;
  return n < kFloorGate * tolerance && n < kFloorFactor * residual_floor(J, x, l1, l2, size);
}

// The regularized Newton direction (see newton()): used when the Newton step has |Δs| above
// kLongStepS or leaves the other step limits; δ_x = kRegularizeX·‖W f‖/size², δ_s = kRegularizeS·‖W f‖
// (W and size: newton()).
// Chosen on the ergodic sweep (Jacobian evaluations per cold solve change by a few % for values 2x
// larger or smaller; docs/idcol.md).
constexpr double kLongStepS = 0.3;
constexpr double kRegularizeX = 4.0;
constexpr double kRegularizeS = 0.5;

constexpr int kNonmonotoneMemory = 4;  // newton(): iterates whose largest merit a step must decrease

struct NewtonStats {
  int iterations = 0;
  int evaluations = 0;
};

// The Newton system of newton() in units of the pair's size σ (equilibrated): E = D_r J D_c,
// e = D_r f, D_r = diag(1, 1, σ, σ, σ, 1), D_c = diag(σ, σ, σ, 1, 1, 1). Every entry of E and e is
// then free of the length unit (rows (10c) carry 1/length, the x columns length), so partial
// pivoting, the singularity test on E's pivots and the regularized and Levenberg–Marquardt steps
// below do not depend on it; a step d̃ of E maps back as d = D_c d̃. On J itself the entries span
// 1/σ² to 1, and for σ ≫ 1 pivoting and the test acted on mixed units: the benchmark shapes with a
// box and a truncated cone at β = 200 (64 pairs), scaled by 1e5, ended not_converged on 55 of
// 640 000 sweep solves, none at unit size (docs/idcol.md).
struct Equilibration {
  double row[6], col[6];
  double size;
  DIFFCOL_HD explicit Equilibration(double sigma)
      : row{1.0, 1.0, sigma, sigma, sigma, 1.0}, col{sigma, sigma, sigma, 1.0, 1.0, 1.0}, size(sigma) {}
  DIFFCOL_HD Vec6 rows(const Vec6& f) const {  // D_r f
    Vec6 e = f;
    e.segment<3>(2) *= size;
    return e;
  }
  DIFFCOL_HD Mat6RowMajor matrix(const Mat6RowMajor& J) const {  // D_r J D_c
    Mat6RowMajor E = J;
    E.block<3, 6>(2, 0) *= size;
    E.block<6, 3>(0, 0) *= size;
    return E;
  }
};

// Factors of J with the row pivoting chosen on its equilibrated form E = D_r J D_c (Equilibration):
// from P E = L U, P J = (Dp⁻¹ L Dp)(Dp⁻¹ U D_c⁻¹) with Dp = P D_r Pᵀ, so the same row order and
// rescaled factors. Solves with them are the equilibrated solves mapped back; the pivot order
// (and min_pivot / max_pivot, kept from E) do not depend on the unit of length. False if a pivot
// of E is zero or not a number.
DIFFCOL_HD inline bool factor_equilibrated(Lu6& lu, const Mat6RowMajor& J, const Equilibration& D) {
  if (!lu.factor_scaled(J, D.row, D.col)) return false;
  // D_r and D_c hold 1 or σ (Equilibration): one division
  const double is = 1.0 / D.size;
  double dp[6], idp[6], ic[6];
  for (int i = 0; i < 6; ++i) {
    const bool scaled = D.row[lu.perm[i]] != 1.0;
    dp[i] = scaled ? D.size : 1.0;
    idp[i] = scaled ? is : 1.0;
    ic[i] = D.col[i] != 1.0 ? is : 1.0;
  }
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < i; ++j) lu.lu[i][j] *= dp[j] * idp[i];
    for (int j = i; j < 6; ++j) lu.lu[i][j] *= idp[i] * ic[j];
    lu.inv_diag[i] *= dp[i] * D.col[i];
  }
  return true;
}

// The regularized Newton step of newton() (δ_x·I added to the ∇²ₓₓL block of E, δ_s to its s–s
// entry; E, e: Equilibration): the step d̃ in E's units and the slope of m = ½‖W f‖² = ½‖e‖² along
// it when it is a descent direction. Shape-independent and off the common path, so one
// out-of-line copy serves every shape pair.
DIFFCOL_NOINLINE DIFFCOL_HD inline bool regularized_step(const Mat6RowMajor& J, const Vec6& f, const Equilibration& D,
                                                        double m, Vec6& d, double& slope) {
  const double fn = std::sqrt(2.0 * m);  // ‖W f‖: δ scales with the problem
  const double dx = kRegularizeX * fn;
  const Mat6RowMajor E = D.matrix(J);
  const Vec6 e = D.rows(f);
  Mat6RowMajor Er = E;
  Er(2, 0) += dx;
  Er(3, 1) += dx;
  Er(4, 2) += dx;
  Er(5, 3) += kRegularizeS * fn;
  Lu6 lur;
  if (!(lur.factor(Er) && lur.pivot_ratio() > 1e-14)) return false;
  const Vec6 dr = -lur.solve(e);
  const double sr = (E.transpose() * e).dot(dr);  // ∇m in E's units: Eᵀe = D_c Jᵀ W² f
  if (!(std::isfinite(dr.sum()) && sr < 0.0)) return false;
  d = dr;
  slope = sr;
  return true;
}

// Levenberg-Marquardt step of newton() with μ = ‖W f‖ (converges where J is singular at or near
// the solution), in E's units; false if it is not finite.
DIFFCOL_NOINLINE DIFFCOL_HD inline bool levenberg_marquardt_step(const Mat6RowMajor& J, const Vec6& f,
                                                                const Equilibration& D, double m, Vec6& d,
                                                                double& slope) {
  const Mat6RowMajor E = D.matrix(J);
  const Vec6 grad_m = E.transpose() * D.rows(f);  // ∇m
  Mat6 A = E.transpose() * E;
  A.diagonal().array() += std::sqrt(2.0 * m) + 1e-14 * A.diagonal().maxCoeff();
  d = -spd_solve6(A, grad_m);
  if (!std::isfinite(d.sum())) return false;
  slope = std::min(grad_m.dot(d), -1e-300);
  return true;
}

// Safeguarded Newton method (Algorithm 1) from z. On success z, f, J hold the solution.
// fresh: z's multipliers are set from its (x, s) first (Kkt::start; a cold start).
// nonmonotone: the line search accepts a step against the largest merit of the last
// kNonmonotoneMemory iterates instead of the current one (Grippo–Lampariello–Lucidi). Used for the
// cold starts of two shapes with flat proxies: across the nearly flat faces of sharp shapes, where
// ∇²ₓₓL is nearly singular, the monotone search cuts every Newton step short and the solve crawls;
// on 200 000 ergodic sweep poses the most evaluations of a cold se–se solve fall from 622 to 27
// (docs/idcol.md).
// max_evaluations: the attempt gives up (returns false) once it has used this many evaluations.
template <class S1, class S2>
DIFFCOL_HD inline bool newton_plain(const Kkt<S1, S2>& kkt, const SolveOptions& opt, Iterate& z, Vec6& f, Mat6RowMajor& J,
                            ShapeData& sd, NewtonStats& st, bool fresh = false, bool nonmonotone = false,
                            int max_evaluations = 1 << 30) {
  const Problem& P = kkt.P;
  const int evaluations0 = st.evaluations;
  ++st.evaluations;
  if (!(fresh ? kkt.start(z, f, J, sd) : kkt(z, f, J, sd))) return false;
  // merit m = ½‖W f‖², W = diag(1, 1, size, size, size, 1): (10c) in the units of the other rows,
  // which makes the iteration invariant under scaling both shapes and r (the stopping test:
  // stopping_norm)
  const double w2 = P.size * P.size;
  const auto merit = [w2](const Vec6& r) { return 0.5 * weighted_squared_norm(r, w2); };
  double m = merit(f);
  double recent[kNonmonotoneMemory];  // merits of the last iterates (nonmonotone)
  for (double& v : recent) v = m;
  const Equilibration D(P.size);
  Lu6 lu;
  int stalls = 0, tiny_steps = 0;
  Iterate zt;
  Vec6 ft;
  Mat6RowMajor Jt;
  ShapeData sdt;
  for (int k = 0; k < opt.max_iterations; ++k) {
    if (residual_converged(f, J, z.x, z.l1, z.l2, P.size, opt.tolerance)) return z.l1 > 0.0 && z.l2 > 0.0;
    if (st.evaluations - evaluations0 >= max_evaluations) return false;
    ++st.iterations;
    // Newton direction in units of the pair's size (Equilibration), or a Levenberg-Marquardt step
    // if that system is (nearly) singular; d is in its units until mapped back below
    Vec6 d = Vec6::Zero();
    bool newton_dir = lu.factor_scaled(J, D.row, D.col) && lu.pivot_ratio() > 1e-14;
    if (newton_dir) {
      d = -lu.solve(D.rows(f));
      newton_dir = std::isfinite(d.sum());
    }
    double slope = -2.0 * m;  // directional derivative of m along a Newton direction
    const double xmax = P.size * std::exp(z.s);
    // A long step (typical of cold starts on the flat faces of sharp shapes, where ∇²ₓₓL is nearly
    // singular: steps of |Δs| ~ 10^5 were seen) is replaced by the step of E with δ_x·I added to
    // its ∇²ₓₓL block and δ_s to its s–s entry, δ ∝ ‖f‖ (a proximal regularization that vanishes
    // at the solution), if that is a descent direction of m. On the ergodic sweep this halves the
    // rejected line-search trials of the sharp pairs and cuts se–se's restarts from 6% of poses to
    // 0.5%.
    const bool singular = !newton_dir;
    const bool long_step = singular || std::abs(d[3]) > kLongStepS || d.head<3>().norm() * P.size > xmax ||
                           z.l1 + d[4] < 0.1 * z.l1 || z.l2 + d[5] < 0.1 * z.l2;
    if (long_step && regularized_step(J, f, D, m, d, slope)) newton_dir = true;
    if (!newton_dir && !levenberg_marquardt_step(J, f, D, m, d, slope)) return false;
    d.head<3>() *= P.size;
    // step limits: |Δs| ≤ 1, ‖Δx‖ ≤ size·α, multipliers keep ≥ 10% of their value
    double t = 1.0;
    if (std::abs(d[3]) > 1.0) t = 1.0 / std::abs(d[3]);
    const double dxn = d.head<3>().norm();
    if (dxn * t > xmax) t = xmax / dxn;
    if (z.l1 + t * d[4] < 0.1 * z.l1) t = 0.9 * z.l1 / -d[4];
    if (z.l2 + t * d[5] < 0.1 * z.l2) t = 0.9 * z.l2 / -d[5];
    // backtracking Armijo line search on m = ½‖f‖²
    bool accepted = false;
    for (int ls = 0; ls < 40; ++ls) {
      zt.x = z.x + t * d.head<3>();
      zt.s = std::clamp(z.s + t * d[3], P.s_lo, P.s_hi);
      zt.l1 = z.l1 + t * d[4];
      zt.l2 = z.l2 + t * d[5];
      ++st.evaluations;
      if (kkt(zt, ft, Jt, sdt)) {
        const double mt = merit(ft);
        double mref = m;
        if (nonmonotone)
          for (const double v : recent) mref = std::max(mref, v);
        if (mt <= mref + 1e-4 * t * slope) {
          accepted = true;
          break;
        }
      }
      t *= 0.5;
    }
    if (!accepted) return false;
    // a singular J with little progress is a non-zero local minimum of m: give up early; so is a
    // run of vanishing steps (a multiplier driven to 0 by the 10% rule, the line search with it)
    const double m_new = merit(ft);
    if (singular && m_new > 0.9 * m && ++stalls >= 3) return false;
    if (t < 1e-10 && ++tiny_steps >= 3) return false;
    z = zt;
    f = ft;
    J = Jt;
    sd = sdt;
    m = m_new;
    recent[k % kNonmonotoneMemory] = m;
  }
  return residual_converged(f, J, z.x, z.l1, z.l2, P.size, opt.tolerance) && z.l1 > 0.0 && z.l2 > 0.0;
}

// newton_plain with the whole loop inlined (shape evaluations, KKT assembly, LU): the solver's hot
// path. newton_plain itself serves the smoothed shapes of the continuation ladder
// (solve_contact.cpp), which run only after a cold start has failed: flattening those 16 extra
// instantiations took over a quarter of the compile time of solve_contact.cpp (docs/idcol.md).
template <class S1, class S2>
DIFFCOL_FLATTEN DIFFCOL_HD bool newton(const Kkt<S1, S2>& kkt, const SolveOptions& opt, Iterate& z, Vec6& f, Mat6RowMajor& J,
                            ShapeData& sd, NewtonStats& st, bool fresh = false, bool nonmonotone = false,
                            int max_evaluations = 1 << 30) {
  return newton_plain(kkt, opt, z, f, J, sd, st, fresh, nonmonotone, max_evaluations);
}

// One more Newton step at a converged point when it would still move z by more than
// opt.polish_threshold (relative): where J_c is ill-conditioned (nearly parallel faces) a residual
// below the tolerance can leave z, and the derivatives built from J_c at z, less accurate than the
// residual suggests. Accepted if the residual (stopping_norm) stays below max(its value at z,
// tolerance). lu: factors of J at z on entry, of J at the returned z on exit.
template <class S1, class S2>
DIFFCOL_HD void polish(const Kkt<S1, S2>& kkt, const SolveOptions& opt, Iterate& z, Vec6& f, Mat6RowMajor& J, ShapeData& sd, Lu6& lu, NewtonStats& st) {
  const Vec6 d = -lu.solve(f);
  if (!std::isfinite(d.sum())) return;
  const double xs = kkt.P.size * std::exp(z.s);
  const double move = std::max({d.head<3>().cwiseAbs().maxCoeff() / xs, std::abs(d[3]), std::abs(d[4]) / z.l1,
                                std::abs(d[5]) / z.l2});
  if (!(move > opt.polish_threshold)) return;
  Iterate zt;
  zt.x = z.x + d.head<3>();
  zt.s = std::clamp(z.s + d[3], kkt.P.s_lo, kkt.P.s_hi);
  zt.l1 = z.l1 + d[4];
  zt.l2 = z.l2 + d[5];
  if (!(zt.l1 > 0.0 && zt.l2 > 0.0)) return;
  Vec6 ft;
  Mat6RowMajor Jt;
  ShapeData sdt;
  ++st.evaluations;
  const double size = kkt.P.size;
  if (!kkt(zt, ft, Jt, sdt) || !(stopping_norm(ft, size) <= std::max(stopping_norm(f, size), opt.tolerance))) return;
  Lu6 lut;
  if (!factor_equilibrated(lut, Jt, Equilibration(size))) return;
  ++st.iterations;
  z = zt;
  f = ft;
  J = Jt;
  sd = sdt;
  lu = lut;
}

// Support points of the exact shape that each smooth shape approximates (and that contains it),
// for the ray-cast start: the closed forms of the sphere, superellipsoid and superelliptic
// cylinder at ε = 0; the vertices of the polytope {A y ≤ b}; the rims of the truncated cone.
DIFFCOL_HD inline Vec3 exact_support(const Sphere& s, const Vec3& d) { return s.support(d); }
DIFFCOL_HD inline Vec3 exact_support(const Superellipsoid& s, const Vec3& d) { return s.support(d); }
DIFFCOL_HD inline Vec3 exact_support(const SuperellipticCylinder& s, const Vec3& d) { return s.support(d); }
// The vertex of V[0..n) farthest along d (V[0] if none beats −∞, e.g. d not finite).
DIFFCOL_HD inline Vec3 vertex_support(const Vec3* V, int n, const Vec3& d) {
  int best = 0;
  double bv = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    const double v = V[i].dot(d);
    if (v > bv) {
      bv = v;
      best = i;
    }
  }
  return V[best];
}
inline Vec3 exact_support(const SmoothPolytope& s, const Vec3& d) {
  return vertex_support(s.vertices().data(), static_cast<int>(s.vertices().size()), d);
}
DIFFCOL_HD inline Vec3 exact_support(const SmoothTruncatedCone& s, const Vec3& d) {
  const double n = std::sqrt(d.y() * d.y() + d.z() * d.z());
  const bool bottom =
      -s.bottom_extent() * d.x() + s.bottom_radius() * n > s.top_extent() * d.x() + s.top_radius() * n;
  const double x = bottom ? -s.bottom_extent() : s.top_extent();
  const double R = bottom ? s.bottom_radius() : s.top_radius();
  return n > 0.0 ? Vec3(x, R * d.y() / n, R * d.z() / n) : Vec3(x, 0.0, 0.0);
}

// Flat proxies for the first ray cast: a convex shape with flat faces or straight rims that
// contains the smooth shape and is close to it, with a cheap support function. The exact shapes of
// the smooth-max shapes (polytope, truncated cone); for a superellipsoid of exponent n ≥
// kFlatProxyExponent its bounding box, for a superelliptic cylinder its circular cylinder (within
// 1 − 3^(−1/(2n)) and 1 − 2^(−1/(2n)) of the size at the corners: 7% and 4% at n = 8). Curved
// shapes (sphere, ellipsoid, low exponents) have none: there the ray cast converges only linearly
// and costs more than it saves (measured; docs/idcol.md, "Starts").
constexpr int kFlatProxyExponent = 4;
DIFFCOL_HD inline bool has_flat_proxy(const Sphere&) { return false; }
DIFFCOL_HD inline bool has_flat_proxy(const SmoothPolytope&) { return true; }
DIFFCOL_HD inline bool has_flat_proxy(const SmoothTruncatedCone&) { return true; }
DIFFCOL_HD inline bool has_flat_proxy(const Superellipsoid& s) { return s.exponent() >= kFlatProxyExponent; }
DIFFCOL_HD inline bool has_flat_proxy(const SuperellipticCylinder& s) { return s.exponent() >= kFlatProxyExponent; }
template <class S>
struct FlatProxy {  // polytope: its exact shape (a sphere has none: has_flat_proxy is false)
  const S& s;
  DIFFCOL_HD Vec3 support(const Vec3& d) const { return exact_support(s, d); }
  // kIsPolytope: support() returns vertices (ellipsoid_polytope_touch); kHasClosest: closest()
  // is a closed form (sphere_proxy_touch)
  static constexpr bool kIsPolytope = std::is_same_v<S, SmoothPolytope>;
  static constexpr bool kHasClosest = false;
  DIFFCOL_HD Vec3 closest(const Vec3& p) const { return p; }
  DIFFCOL_HD double outer() const { return 0.0; }
};
template <>
struct FlatProxy<SmoothTruncatedCone> {  // the exact frustum, axis x, from −a (radius Rb) to b (radius Rt)
  const SmoothTruncatedCone& s;
  double a, b, Rb, Rt;
  DIFFCOL_HD explicit FlatProxy(const SmoothTruncatedCone& c)
      : s(c), a(c.bottom_extent()), b(c.top_extent()), Rb(c.bottom_radius()), Rt(c.top_radius()) {}
  DIFFCOL_HD Vec3 support(const Vec3& d) const { return exact_support(s, d); }
  static constexpr bool kIsPolytope = false;
  static constexpr bool kHasClosest = true;
  // the closest point of the trapezoid (−a, 0), (−a, Rb), (b, Rt), (b, 0) in the (axial, radial)
  // half-plane, turned back about the axis
  DIFFCOL_HD Vec3 closest(const Vec3& p) const {
    const double v = std::sqrt(p.y() * p.y() + p.z() * p.z());
    const double u = p.x();
    const double side = Rb + (Rt - Rb) * (u + a) / (a + b);
    if (u >= -a && u <= b && v <= side) return p;
    const auto on_segment = [&](double u0, double v0, double u1, double v1, double& cu, double& cv) {
      const double du = u1 - u0, dv = v1 - v0;
      const double t = std::clamp(((u - u0) * du + (v - v0) * dv) / (du * du + dv * dv), 0.0, 1.0);
      cu = u0 + t * du;
      cv = v0 + t * dv;
      return (u - cu) * (u - cu) + (v - cv) * (v - cv);
    };
    double bu, bv, cu, cv;
    double best = on_segment(-a, 0.0, -a, Rb, bu, bv);
    if (const double d = on_segment(-a, Rb, b, Rt, cu, cv); d < best) {
      best = d;
      bu = cu;
      bv = cv;
    }
    if (const double d = on_segment(b, Rt, b, 0.0, cu, cv); d < best) {
      bu = cu;
      bv = cv;
    }
    return v > 0.0 ? Vec3(bu, bv * p.y() / v, bv * p.z() / v) : Vec3(bu, 0.0, 0.0);
  }
  DIFFCOL_HD double outer() const { return std::sqrt(std::max(a * a + Rb * Rb, b * b + Rt * Rt)); }
};
template <>
struct FlatProxy<Superellipsoid> {  // the bounding box
  Vec3 h;
  DIFFCOL_HD explicit FlatProxy(const Superellipsoid& s) : h(s.semi_axes()) {}
  DIFFCOL_HD Vec3 support(const Vec3& d) const {
    return Vec3(d.x() < 0.0 ? -h.x() : h.x(), d.y() < 0.0 ? -h.y() : h.y(), d.z() < 0.0 ? -h.z() : h.z());
  }
  static constexpr bool kIsPolytope = true;
  static constexpr bool kHasClosest = true;
  DIFFCOL_HD Vec3 closest(const Vec3& p) const { return p.cwiseMax(-h).cwiseMin(h); }
  DIFFCOL_HD double outer() const { return h.norm(); }
};
template <>
struct FlatProxy<SuperellipticCylinder> {  // the circular cylinder (axis x)
  double h, R;
  DIFFCOL_HD explicit FlatProxy(const SuperellipticCylinder& s) : h(s.half_height()), R(s.radius()) {}
  DIFFCOL_HD Vec3 support(const Vec3& d) const {
    const double n = std::sqrt(d.y() * d.y() + d.z() * d.z());
    const double x = d.x() < 0.0 ? -h : h;
    return n > 0.0 ? Vec3(x, R * d.y() / n, R * d.z() / n) : Vec3(x, 0.0, 0.0);
  }
  static constexpr bool kIsPolytope = false;
  static constexpr bool kHasClosest = true;
  DIFFCOL_HD Vec3 closest(const Vec3& p) const {
    const double n = std::sqrt(p.y() * p.y() + p.z() * p.z());
    const double k = n > R ? R / n : 1.0;
    return Vec3(std::clamp(p.x(), -h, h), k * p.y(), k * p.z());
  }
  DIFFCOL_HD double outer() const { return std::sqrt(h * h + R * R); }
};

// A sphere (radius Rs, centre c in the frame of a shape with a flat proxy K that has a closed-form
// closest point) scaled about its centre touches the shape scaled about its origin by α = 1/t*,
// where t* solves dist(t·c, K) = Rs: dist(t·c, K) is convex in t and 0 at t = 0, so Newton's method
// from an upper bound converges monotonically. Returns α and the touching point α·q* in the
// shape's frame (q* the closest point of K to t*·c).
template <class P>
DIFFCOL_HD bool sphere_proxy_touch(const P& K, double Rs, const Vec3& c, double& alpha, Vec3& x,
                                   double rel_tolerance = 1e-12) {
  const double cn = c.norm();
  if (!(cn > 0.0) || !std::isfinite(cn)) return false;
  double t = (K.outer() + Rs) / cn;  // dist(t·c, K) ≥ Rs here
  Vec3 q;
  for (int it = 0; it < 30; ++it) {
    const Vec3 p = t * c;
    q = K.closest(p);
    const Vec3 e = p - q;
    const double d = e.norm();
    if (!(d > 0.0)) return false;
    const double slope = e.dot(c) / d;  // d/dt dist(t·c, K) > 0 beyond t*
    if (!(slope > 0.0)) return false;
    const double step = (d - Rs) / slope;
    t -= step;
    if (std::abs(step) <= rel_tolerance * t) break;  // q: the closest point one (tiny) step before
  }
  if (!(t > 0.0) || !std::isfinite(t) || !all_finite(q)) return false;
  alpha = 1.0 / t;
  x = alpha * q;
  return true;
}

// Two ellipsoids (spheres, superellipsoids of exponent 1) have a near-exact start: scaled about
// their centres by α they touch where α² = max over λ ∈ [0, 1] of
//   g(λ) = λ(1 − λ) rᵀ S(λ)⁻¹ r,  S(λ) = λA + (1 − λ)B,
// A = R1 diag(a1²) R1ᵀ and B = R2 diag(a2²) R2ᵀ the inverse shape matrices (the Perram–Wertheim
// contact function; g is concave), at x = λ A S⁻¹ r from body 1's centre. A safeguarded Newton
// iteration on g'(λ) = 0 (3×3 solves) finds λ*; the smooth shapes' ε moves the solution by
// O(ε), which the KKT Newton method then removes. At the solution λ* = λ2/(λ1 + λ2) in the
// multipliers of (10) (∇φ = A⁻¹y on an ellipsoid's surface), so a previous solution gives a start.
DIFFCOL_HD inline bool ellipsoid_axes(const Sphere& s, Vec3& ax) {
  ax.setConstant(s.radius());
  return true;
}
DIFFCOL_HD inline bool ellipsoid_axes(const Superellipsoid& s, Vec3& ax) {
  if (s.exponent() != 1) return false;
  ax = s.semi_axes();
  return true;
}
template <class S>
DIFFCOL_HD bool ellipsoid_axes(const S&, Vec3&) { return false; }

// The inverse of a symmetric positive definite 3×3 matrix by its adjugate. False if not finite.
DIFFCOL_HD inline bool spd_inverse3(const Mat3& S, Mat3& inv) {
  const double c00 = S(1, 1) * S(2, 2) - S(1, 2) * S(1, 2), c01 = S(0, 2) * S(1, 2) - S(0, 1) * S(2, 2),
               c02 = S(0, 1) * S(1, 2) - S(0, 2) * S(1, 1), c11 = S(0, 0) * S(2, 2) - S(0, 2) * S(0, 2),
               c12 = S(0, 1) * S(0, 2) - S(0, 0) * S(1, 2), c22 = S(0, 0) * S(1, 1) - S(0, 1) * S(0, 1);
  const double det = S(0, 0) * c00 + S(0, 1) * c01 + S(0, 2) * c02;
  if (!(det > 0.0) || !std::isfinite(det)) return false;
  const double id = 1.0 / det;
  inv << c00 * id, c01 * id, c02 * id, c01 * id, c11 * id, c12 * id, c02 * id, c12 * id, c22 * id;
  return true;
}

// Newton steps on g' below this end the iteration: the step's own error is O(step²) (~1e-12 of
// the distance in x on the ergodic sweep), and the KKT Newton method checks the start anyway.
// Ending at the step of 1e-12 instead costs one more 3×3 inverse (4.13 against 3.11 iterations
// per cold start of ellipsoid–ellipsoid; docs/idcol.md).
constexpr double kEllipsoidTouchStep = 1e-6;

// α and x (body 1's frame) of two touching ellipsoids with semi-axes a1 (body 1, at the origin)
// and a2 (body 2 at r with rotation R), from λ = lambda_guess where that lies in (0, 1) (a previous
// solution's), else from the sphere estimate below. False if the iteration does not settle.
DIFFCOL_HD inline bool ellipsoid_touch(const Vec3& a1, const Vec3& a2, const Mat3& R, const Vec3& r, double& alpha, Vec3& x,
                                       double lambda_guess = -1.0) {
  const Vec3 A = a1.cwiseProduct(a1);  // A = diag(a1²) in body 1's frame
  const Mat3 B = R * a2.cwiseProduct(a2).asDiagonal() * R.transpose();
  Mat3 D = -B;
  D.diagonal() += A;
  // initial λ: exact for two spheres (λ* = R2/(R1 + R2)), with the radii along r
  const double rr = r.squaredNorm();
  if (!(rr > 0.0) || !std::isfinite(rr)) return false;
  const double rho1 = 1.0 / r.cwiseQuotient(a1).norm();
  const double rho2 = 1.0 / (R.transpose() * r).cwiseQuotient(a2).norm();  // ray extents per unit ‖r‖
  double lam = (lambda_guess > 0.0 && lambda_guess < 1.0) ? lambda_guess : rho2 / (rho1 + rho2), lo = 0.0, hi = 1.0;
  Mat3 Si;
  const auto inverse_at = [&](double l) {
    Mat3 S = (1.0 - l) * B;
    S.diagonal() += l * A;
    return spd_inverse3(S, Si);
  };
  for (int it = 0; it < 30; ++it) {
    if (!inverse_at(lam)) return false;
    const Vec3 w = Si * r;
    const Vec3 Dw = D * w;
    const double h = r.dot(w), h1 = -w.dot(Dw), h2 = 2.0 * Dw.dot(Si * Dw);
    const double g1 = (1.0 - 2.0 * lam) * h + lam * (1.0 - lam) * h1;  // g'(λ)
    const double g2 = -2.0 * h + 2.0 * (1.0 - 2.0 * lam) * h1 + lam * (1.0 - lam) * h2;  // g''(λ)
    double next = (g2 < 0.0) ? lam - g1 / g2 : lo - 1.0;  // Newton on g' = 0 (g is concave)
    if (g1 > 0.0) lo = lam; else hi = lam;
    if (std::abs(next - lam) < kEllipsoidTouchStep && next > 0.0 && next < 1.0) {
      lam = next;
      break;
    }
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);  // else bisect the bracket
    lam = next;
  }
  if (!inverse_at(lam)) return false;
  const Vec3 w = Si * r;
  const double g = lam * (1.0 - lam) * r.dot(w);
  if (!(g > 0.0) || !std::isfinite(g)) return false;
  alpha = std::sqrt(g);
  x = lam * A.cwiseProduct(w);
  return all_finite(x);
}

#ifndef __CUDA_ARCH__
// Shapes whose flat proxy is a polytope (FlatProxy::kIsPolytope): the smooth polytope and, for
// exponents ≥ kFlatProxyExponent, the bounding box of a superellipsoid. Host only (GJK).
template <class S>
bool has_polytope_proxy(const S& s) {
  return FlatProxy<S>::kIsPolytope && has_flat_proxy(s);
}

// Relative accuracy of t* in the touching start below: it is a start (the smooth shape lies a few
// percent inside its proxy), and 1e-3 leaves Newton's method as many iterations on the ergodic sweep
// as 1e-12 does, with one GJK call less.
constexpr double kPolytopeTouchTolerance = 1e-3;

// An ellipsoid (semi-axes ax, rotation RE and centre cE in the frame of a shape whose flat proxy K
// is a polytope) scaled about its centre touches K scaled about its origin where, after the linear
// map M = diag(1/ax)·REᵀ (the ellipsoid to a unit ball, K to the polytope MK, both still scaled
// about their own origins), the unit ball about M·cE touches MK: sphere_proxy_touch, with MK's
// closest point by GJK (src/geometry/gjk_distance.hpp), each call started from the previous call's simplex.
// α and the touching point M⁻¹(α·q*) in K's frame; false where a step fails (the start is skipped).
template <class Proxy>
bool ellipsoid_polytope_touch(const Vec3& ax, const Mat3& RE, const Vec3& cE, const Proxy& K, double& alpha, Vec3& x) {
  const Mat3 M = ax.cwiseInverse().asDiagonal() * RE.transpose();
  const auto support = [&](const Vec3& d) -> Vec3 { return M * K.support(M.transpose() * d); };
  struct MappedProxy {
    const decltype(support)& mapped_support;
    double h;  // MK's support value along ĉ: t0 = (h + 1)/‖c‖ has dist(t0·c, MK) ≥ 1
    mutable diffcol::detail::GjkSimplex simplex;
    Vec3 closest(const Vec3& p) const {
      Vec3 q, origin;
      const auto point = [](const Vec3&) -> Vec3 { return Vec3::Zero(); };
      // p inside MK: returning p ends sphere_proxy_touch with false
      return diffcol::detail::gjk_closest_points(mapped_support, point, p, simplex, q, origin) ? q : p;
    }
    double outer() const { return h; }
  };
  const Vec3 c = M * cE;
  const double cn = c.norm();
  if (!(cn > 0.0) || !std::isfinite(cn)) return false;
  const Vec3 u = c / cn;
  const MappedProxy mk{support, u.dot(support(u)), {}};
  Vec3 xm;
  if (!sphere_proxy_touch(mk, 1.0, c, alpha, xm, kPolytopeTouchTolerance)) return false;
  x = RE * ax.cwiseProduct(xm);
  return all_finite(x);
}
#endif

// The touching-point starts (docs/idcol.md, "Starts"): two ellipsoids (ellipsoid_touch), a sphere
// and a shape whose flat proxy has a closed-form closest point (sphere_proxy_touch), or (on the
// host) a sphere or ellipsoid and a shape whose flat proxy is a polytope (ellipsoid_polytope_touch).
// α and x in body 1's frame (body 2 at (R12, p12)), or false where the pair has none or it fails.
template <class S1, class S2>
DIFFCOL_HD bool touching_start(const S1& a, const S2& b, const Mat3& R12, const Vec3& p12, double& alpha, Vec3& x,
                               double ellipsoid_lambda_guess = -1.0) {
  Vec3 a1 = Vec3::Zero(), a2 = Vec3::Zero();  // set by ellipsoid_axes (zeroed: GCC -Og warns)
  if (ellipsoid_axes(a, a1) && ellipsoid_axes(b, a2))
    return ellipsoid_touch(a1, a2, R12, p12, alpha, x, ellipsoid_lambda_guess);
  if constexpr (std::is_same_v<S1, Sphere> && FlatProxy<S2>::kHasClosest) {
    Vec3 q;  // the touching point in body 2's frame
    if (!has_flat_proxy(b) ||
        !sphere_proxy_touch(FlatProxy<S2>(b), a.radius(), Vec3(-(R12.transpose() * p12)), alpha, q))
      return false;
    x = p12 + R12 * q;
    return true;
  } else if constexpr (std::is_same_v<S2, Sphere> && FlatProxy<S1>::kHasClosest) {
    // one rule for both orders: the polytope start below would run the same iteration on the same
    // box (a sphere maps to itself), so where this one fails (coincident origins, the sphere's
    // centre inside the box) it fails too
    return has_flat_proxy(a) && sphere_proxy_touch(FlatProxy<S1>(a), b.radius(), p12, alpha, x);
  }
#ifndef __CUDA_ARCH__
  if constexpr (FlatProxy<S2>::kIsPolytope) {
    if (ellipsoid_axes(a, a1) && has_polytope_proxy(b)) {
      Vec3 q;  // in body 2's frame: body 1 at rotation R12ᵀ, centre −R12ᵀp12
      const Mat3 R21 = R12.transpose();
      if (!ellipsoid_polytope_touch(a1, R21, Vec3(-(R21 * p12)), FlatProxy<S2>(b), alpha, q)) return false;
      x = p12 + R12 * q;
      return true;
    }
  }
  if constexpr (FlatProxy<S1>::kIsPolytope) {
    if (ellipsoid_axes(b, a2) && has_polytope_proxy(a))
      return ellipsoid_polytope_touch(a2, R12, p12, FlatProxy<S1>(a), alpha, x);
  }
#endif
  return false;
}

// The surrogate problem (21)-(22) of one relative pose, body 2 at (R12, p12) in body 1.
struct Surrogate {
  Problem P;
  Vec3 p12;         // body 2's origin in body 1
  Vec3 rhat;        // p12/‖p12‖ (x̂ at coincident origins)
  double rn;        // ‖p12‖
  double c;         // α = c·α_S, x = c·x_S, λ = c·λ_S (0 at coincident origins)
  double dS;        // ‖r_S‖ = f_S (r1_out + r2_out)
  double sum_in, r1out;
  bool coincident;
};

template <class S1, class S2>
DIFFCOL_HD Surrogate make_surrogate(const S1& a, const S2& b, const Mat3& R12, const Vec3& p12, const SolveOptions& opt) {
  Surrogate sg;
  const double r1in = a.inner_radius(), r1out = a.outer_radius();
  const double r2in = b.inner_radius(), r2out = b.outer_radius();
  const double sum_out = r1out + r2out, sum_in = r1in + r2in;
  // surrogate (21): r_S = f_S (r1_out + r2_out) r̂, and c = α_min / f_S maps back
  sg.p12 = p12;
  sg.rn = p12.norm();
  sg.coincident = !(sg.rn > opt.coincident_tolerance * sum_out);
  sg.rhat = (sg.rn > 0.0) ? Vec3(p12 / sg.rn) : Vec3::UnitX();
  const double fS = opt.surrogate_factor > 1.0 ? opt.surrogate_factor : 1.0;
  sg.dS = fS * sum_out;
  sg.c = sg.coincident ? 0.0 : sg.rn / sg.dS;
  sg.sum_in = sum_in;
  sg.r1out = r1out;
  sg.P.R = R12;
  sg.P.r = sg.dS * sg.rhat;
  sg.P.size = sum_out;
  // bounds (22), widened slightly so exact bounds (sphere–sphere) stay feasible
  sg.P.s_lo = std::log(fS) - 1e-9;
  sg.P.s_hi = std::log(fS * sum_out / sum_in) + 1e-9;
  return sg;
}

// The best iterate of the failed attempts (by ‖f‖ of the problem itself: continuation stages end
// on relaxed shapes), returned if no attempt converges.
struct BestIterate {
  Iterate z;
  double f = std::numeric_limits<double>::infinity();
  template <class S1, class S2>
  DIFFCOL_HD void keep(const Kkt<S1, S2>& kkt, bool ok, const Iterate& zk, NewtonStats& st) {
    if (ok) return;
    Vec6 fb;
    Mat6RowMajor Jb;
    ShapeData sdb;
    ++st.evaluations;
    if (kkt(zk, fb, Jb, sdb) && fb.norm() < f) {
      f = fb.norm();
      z = zk;
    }
  }
};

// Relative accuracy of the ray-cast start when it comes first (a start, refined by Newton).
constexpr double kRayCastStartTolerance = 1e-2;

// The cold starts in order, each followed by Newton's method until one converges (z, f, J, sd then
// hold the solution): the touching point (two ellipsoids; a sphere and a shape whose flat proxy
// has a closed-form closest point), the ray cast on two flat proxies, then spheres fitted along r̂
// (ray extents), the seed's (23) and spread scalings, with continuation (cont, where can_continue)
// after each failure and the ray cast on the exact shapes after the first. Then the slow damped
// Newton of SolveOptions::last_resort_iterations. ellipsoid_lambda_guess: ellipsoid_touch's start
// (a previous solution's λ2/(λ1 + λ2)), or −1.
template <class S1, class S2, class Continuation>
DIFFCOL_HD bool solve_from_cold_starts(const Kkt<S1, S2>& kkt, const Surrogate& sg, const SolveOptions& opt,
                                       bool can_continue, const Continuation& cont, Iterate& z, Vec6& f,
                                       Mat6RowMajor& J, ShapeData& sd, NewtonStats& st, int& attempts,
                                       BestIterate& best, double ellipsoid_lambda_guess = -1.0) {
  const S1& a = kkt.a;
  const S2& b = kkt.b;
  const Problem& P = kkt.P;
  const Mat3& R12 = P.R;
  const double c = sg.c;
  constexpr bool exact_cold = std::is_same_v<S1, Sphere> && std::is_same_v<S2, Sphere>;
  bool ok = false;
  const double rho1 = a.ray_extent(sg.rhat);
  const double rho2 = b.ray_extent(-(R12.transpose() * sg.rhat));
  const auto cold_start = [&](int k) {
    if (k == 0) {
      z.s = std::clamp(std::log(sg.dS / (rho1 + rho2)), P.s_lo, P.s_hi);
      z.x = P.r * (rho1 / (rho1 + rho2));
    } else if (k == 1) {
      z.s = 0.5 * (P.s_lo + P.s_hi);  // (23)
      z.x = sg.r1out * sg.rhat;
    } else {
      const double frac = (k - 1) / double(opt.max_attempts);
      z.s = P.s_lo + ((k % 2) ? frac : 1.0 - frac) * (P.s_hi - P.s_lo);
      z.x = std::exp(z.s) * rho1 * sg.rhat;
    }
  };
  // A start from the touching point of the exact shapes the smooth ones approximate
  // (exact_support), by a ray cast on their Minkowski difference (src/geometry/minkowski_ray_cast.hpp):
  // α* = ‖r‖/t*, x* = α*·a. Tried after the first cold start fails (to 1e-9 of the size): flat
  // discs and thin plates, where the centre-line start leaves Newton's method a long crawl along
  // the flat face or multipliers (10c) cannot balance with (10d) (docs/idcol.md, "Starts"). On the
  // flat proxies of two shapes that have them it is also the first start (to 1%, below).
  const auto ray_cast_start = [&](double rel_tolerance, const auto& sa, const auto& sb) -> bool {
    if (!(c > 0.0)) return false;
    diffcol::detail::MinkowskiRayHit hit;
    if (!diffcol::detail::minkowski_ray_cast(sa, sb, sg.rhat, 0.5 * sg.sum_in, rel_tolerance * sg.sum_in, 200, hit))
      return false;
    const double a0 = sg.rn / hit.t;
    if (!(a0 > 0.0) || !std::isfinite(a0) || !all_finite(hit.a)) return false;
    z.x = (a0 / c) * hit.a;
    z.s = std::clamp(std::log(a0 / c), P.s_lo, P.s_hi);
    return true;
  };
  const auto exact_a = [&](const Vec3& d) -> Vec3 { return exact_support(a, d); };
  const auto exact_b = [&](const Vec3& d) -> Vec3 { return R12 * exact_support(b, R12.transpose() * d); };
  // Two ellipsoids, or a sphere and a shape whose flat proxy has a closed-form closest point: the
  // touching point first (touching_start).
  {
    double a0;
    Vec3 x0;
    if (!exact_cold && c > 0.0 && touching_start(a, b, R12, sg.p12, a0, x0, ellipsoid_lambda_guess)) {
      z.x = x0 / c;
      z.s = std::clamp(std::log(a0 / c), P.s_lo, P.s_hi);
      ++attempts;
      ok = newton(kkt, opt, z, f, J, sd, st, true);
      best.keep(kkt, ok, z, st);
    }
  }
  // Two shapes with flat proxies (FlatProxy): the ray cast on the proxies first. Flat faces and
  // straight rims end the ray cast after a few portals, and its start (to 1% of the size) leaves
  // Newton fewer iterations than the centre line does: on the ergodic sweep the Jacobian
  // evaluations per cold solve of poly–poly, poly–tc, tc–poly and tc–tc fall from 9.3–10.8 to
  // 5.0–5.6, those of the se/sec pairs from 7.3–12.5 to 4.7–6.4 (docs/idcol.md, "Starts").
  // Two shapes with flat proxies also take the non-monotone line search (newton()).
  const bool flat_pair = has_flat_proxy(a) && has_flat_proxy(b);
  if constexpr (!exact_cold) {
    if (!ok && flat_pair &&
        ray_cast_start(
            kRayCastStartTolerance, [pa = FlatProxy<S1>(a)](const Vec3& d) -> Vec3 { return pa.support(d); },
            [pb = FlatProxy<S2>(b), &R12](const Vec3& d) -> Vec3 { return R12 * pb.support(R12.transpose() * d); })) {
      ++attempts;
      ok = newton(kkt, opt, z, f, J, sd, st, true, flat_pair);
      best.keep(kkt, ok, z, st);
    }
  }
  for (int k = 0; !ok && k < opt.max_attempts; ++k) {
    ++attempts;
    cold_start(k);
    ok = newton(kkt, opt, z, f, J, sd, st, true, flat_pair);
    best.keep(kkt, ok, z, st);
    if (!ok && can_continue) {
      ++attempts;
      cold_start(k);
      ok = cont(z, f, J, sd, st);
      best.keep(kkt, ok, z, st);
    }
    if (!ok && k == 0 && ray_cast_start(1e-9, exact_a, exact_b)) {
      ++attempts;
      ok = newton(kkt, opt, z, f, J, sd, st, true, flat_pair);
      best.keep(kkt, ok, z, st);
    }
  }
  if (!ok && opt.last_resort_iterations > 0) {  // slow but convergent damped Newton (contact.hpp)
    ++attempts;
    SolveOptions patient = opt;
    patient.max_iterations = opt.last_resort_iterations;
    cold_start(0);
    ok = newton(kkt, patient, z, f, J, sd, st, true);
    best.keep(kkt, ok, z, st);
  }
  return ok;
}

}  // namespace
}  // namespace diffcol::idcol
