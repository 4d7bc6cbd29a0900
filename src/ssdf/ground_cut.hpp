#pragma once
// The force cut of the ground sum (dynamics.hpp, "Culling"): a point's term W λ decays with both
// the softmax weight W = exp(−(φ − φ_min)/ε2) and the softplus spring c = k·sp(φ), sp(φ) =
// ε3 log(1 + exp(−φ/ε3)) of eq. (15), so its force can be negligible where its weight still counts
// in the normalization Σ W. Internal to src/ssdf.
#include <algorithm>
#include <cmath>

namespace diffcol::ssdf::detail {

/// ln(sp(φ)/ε) and −d/dφ ln sp(φ) = σ(y)/(ε log1p(e^y)), y = −φ/ε, for every finite φ (ε > 0),
/// without overflow or underflow of the intermediate exp; the decay is in (0, 1/ε], decreasing in y.
inline void log_softplus_spring(double phi, double eps, double& log_sp, double& decay) {
  const double y = -phi / eps;  // sp = ε log1p(e^y)
  if (y > 0.0) {
    const double e = std::exp(-y), l = y + std::log1p(e);
    log_sp = std::log(l);
    decay = 1.0 / ((1.0 + e) * l * eps);
    return;
  }
  const double z = std::exp(y), r = z > 0.0 ? std::log1p(z) / z : 1.0;  // log1p(z) = z·r, r ∈ (ln 2, 1]
  log_sp = y + std::log(r);
  decay = 1.0 / ((1.0 + z) * r * eps);
}

/// A gap Δ ∈ [0, g·ε2] such that every φ ≥ φ_min + Δ has
///   f(φ) = (φ − φ_min)/ε2 + ln sp(φ_min) − ln sp(φ) ≥ g,
/// i.e. W(φ)·sp(φ) ≤ e^−g·sp(φ_min). sp is log-concave, so f is convex and increasing: a Newton
/// step from a point left of the root lands at or beyond it, and the following steps decrease
/// towards it from the right; Δ is taken once f ≥ g is within 1e-5 of g (the second step at the
/// usual temperatures; a Δ longer than the root by ~1e-5·ε2/2 only gives a few more points their
/// force). Where the root lies beyond ~11.6 ε3 above the ground, a closed-form bound is as tight
/// (below). ε2, ε3 > 0, g > 0; otherwise g·ε2.
inline double ground_force_gap(double phi_min, double eps2, double eps3, double g) {
  const double cap = g * eps2;  // f ≥ (φ − φ_min)/ε2
  if (!(std::isfinite(phi_min) && eps2 > 0.0 && eps3 > 0.0 && g > 0.0)) return cap;
  double l0, decay;
  log_softplus_spring(phi_min, eps3, l0, decay);
  // sp(φ)/ε3 = log1p(e^−φ/ε3) ≤ e^−φ/ε3, so f(d) ≥ d/ε2 + l0 + (φ_min + d)/ε3, whose root d0 is a
  // valid gap; f(d0) − g = −ln(log1p(y)/y) ≤ y/2 with y = e^−(φ_min + d0)/ε3, so d0 is taken as it is
  // where y < 1e-5 (a body resting on the ground: one logarithm pair instead of three), else Newton
  // from the left as below.
  const double d0 = (g - l0 - phi_min / eps3) / (1.0 / eps2 + 1.0 / eps3);
  if ((phi_min + d0) / eps3 > 11.6) return std::min(cap, d0 * (1.0 + 1e-12));
  double d = 0.0, f = 0.0;
  for (int it = 0; it < 8; ++it) {
    const double step = (g - f) / (1.0 / eps2 + decay);  // f' = 1/ε2 + decay
    d += step;
    double l;
    log_softplus_spring(phi_min + d, eps3, l, decay);
    f = d / eps2 + l0 - l;
    if (f >= g && f - g <= 1e-5) break;
  }
  if (f < g) d += (g - f) / (1.0 / eps2 + decay);  // short of the root by rounding: one step past it
  return std::min(cap, d * (1.0 + 1e-12));
}

}  // namespace diffcol::ssdf::detail
