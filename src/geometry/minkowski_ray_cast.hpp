// Ray cast from the origin of a Minkowski difference D = A ⊕ (−B) to its boundary, by Minkowski
// portal refinement (MPR, G. Snethen, "XenoCollide", Game Programming Gems 7, 2008) on the two
// sets' support functions.
//
// For two shapes scaled about their origins c1, c2, α* = ‖c2 − c1‖ / t* where t*·u (u the unit
// vector from c1 to c2) is where the ray from the origin leaves D = (S1 − c1) ⊕ (−(S2 − c2)): at
// that point t*u = a − b with a ∈ S1 − c1, b ∈ S2 − c2, and x* = c1 + α*·a (DCOL seed, problem (9)).
// Used by the DCOL geometric starts (src/dcol/geometric_starts.hpp) and by an iDCOL cold start for
// shapes with closed-form support points (src/idcol/solver_core.hpp). Internal to src/ (and cuda/).
#pragma once

#include <cmath>
#include <utility>

#include "diffcol/math/hd.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol::detail {

struct MinkowskiRayHit {
  double t = 0.0;      ///< the ray t·u leaves D at t (within the tolerance)
  Vec3 a, b;           ///< points of A and B with a − b ≈ t·u (convex combinations of support points)
  Vec3 normal;         ///< outward normal of the last portal (approximately D's normal at t·u)
  int iterations = 0;  ///< portal refinements
};

/// MPR ray cast. support_a(d) / support_b(d) return a point of A / B maximizing dᵀy; both sets
/// contain the origin, and D contains the ball of radius `shift` > 0 about it (e.g. half the sum of
/// the inner radii). u: unit direction. Stops when the support point along the portal's normal is
/// within `tol` of the portal plane. Returns false on degenerate geometry (flat portal, parallel
/// ray) or after max_iterations refinements without reaching tol.
template <class SupportA, class SupportB>
DIFFCOL_HD bool minkowski_ray_cast(const SupportA& support_a, const SupportB& support_b, const Vec3& u, double shift,
                        double tol, int max_iterations, MinkowskiRayHit& hit) {
  // Points are kept relative to v0 = −shift·u, the interior point of MPR; the ray from v0 through
  // the origin is the ray t·u of D (shifted by shift·u).
  struct Vertex {
    Vec3 v, a, b;
  };
  const Vec3 v0 = -shift * u;
  auto support = [&](const Vec3& d, Vertex& out) {
    out.a = support_a(d);
    out.b = support_b(-d);
    out.v = out.a - out.b - shift * u;
  };
  Vertex p1, p2, p3, p4;
  hit.iterations = 0;

  // --- portal discovery: a triangle (p1, p2, p3) of support points that the ray passes through
  support(u, p1);
  Vec3 n = p1.v.cross(v0);
  const double scale = p1.v.norm() + shift;
  if (!(n.norm() > 1e-12 * scale * shift)) {  // the ray passes through p1 itself
    hit.t = (p1.v + shift * u).dot(u);
    hit.a = p1.a;
    hit.b = p1.b;
    hit.normal = u;
    return hit.t > 0.0 && std::isfinite(hit.t);
  }
  support(n, p2);  // support points do not depend on |d|: no normalization on the critical path
  n = (p1.v - v0).cross(p2.v - v0);
  if (n.dot(v0) > 0.0) {
    const Vertex tmp = p1;  // swap (std::swap does not run on the GPU)
    p1 = p2;
    p2 = tmp;
    n = -n;
  }
  for (int it = 0;; ++it) {
    if (!(n.squaredNorm() > 1e-28 * (scale * scale) * (scale * scale)) || it > max_iterations) return false;
    support(n, p3);
    if (p1.v.cross(p3.v).dot(v0) < 0.0) {
      p2 = p3;
      n = (p1.v - v0).cross(p2.v - v0);
      continue;
    }
    if (p3.v.cross(p2.v).dot(v0) < 0.0) {
      p1 = p3;
      n = (p1.v - v0).cross(p2.v - v0);
      continue;
    }
    break;
  }

  // --- refinement: replace one portal vertex by the support point along the portal normal
  double nn = 1.0;
  for (;;) {
    n = (p2.v - p1.v).cross(p3.v - p1.v);
    const double nn2 = n.squaredNorm();
    if (!(nn2 > 1e-28 * (scale * scale) * (scale * scale))) return false;
    if (n.dot(p1.v - v0) < 0.0) n = -n;
    support(n, p4);            // unnormalized n: |n| is computed beside the support call
    nn = std::sqrt(nn2);
    const double d4 = p4.v.dot(n);
    const double reach = d4 - std::max(p1.v.dot(n), std::max(p2.v.dot(n), p3.v.dot(n)));
    if (reach <= tol * nn) break;
    if (++hit.iterations > max_iterations) return false;
    const Vec3 c = p4.v.cross(v0);
    if (p1.v.dot(c) > 0.0) {
      if (p2.v.dot(c) > 0.0) p1 = p4;
      else p3 = p4;
    } else {
      if (p3.v.dot(c) > 0.0) p2 = p4;
      else p1 = p4;
    }
  }

  // --- the ray's intersection with the portal (D coordinates): u = Σ β_i w_i by Cramer's rule
  const Vec3 w1 = p1.v + shift * u, w2 = p2.v + shift * u, w3 = p3.v + shift * u;
  const Vec3 c23 = w2.cross(w3);
  const double det = w1.dot(c23);
  if (!(std::abs(det) > 0.0)) return false;
  const double b1 = u.dot(c23) / det, b2 = w1.dot(u.cross(w3)) / det, b3 = w1.dot(w2.cross(u)) / det;
  const double sum = b1 + b2 + b3;
  if (!(sum > 0.0) || !std::isfinite(sum)) return false;
  hit.t = 1.0 / sum;
  const double l1 = b1 * hit.t, l2 = b2 * hit.t, l3 = b3 * hit.t;
  hit.a = l1 * p1.a + l2 * p2.a + l3 * p3.a;
  hit.b = l1 * p1.b + l2 * p2.b + l3 * p3.b;
  hit.normal = n / nn;
  return true;
}

}  // namespace diffcol::detail
