#pragma once
// The geometric starts of a DCOL solve: the exact start of two ball-padded primitives (and of a
// ball-padded primitive against a cylinder, cone or polytope), the support search and the
// Minkowski ray cast, each followed by the Newton polish on the active set it finds. Internal to
// src/dcol: included by solve_contact.cpp only.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core_distance.hpp"
#include "face_window.hpp"
#include "placed_primitive.hpp"
#include "support_pair_search.hpp"
#include "../geometry/minkowski_ray_cast.hpp"

namespace diffcol::dcol::detail {
// Internal linkage, as for code of solve_contact.cpp itself (the one unit that includes this):
// the inliner then treats each start as local to that unit.
namespace {

// ============================================================================ ball-padded pairs
// Sphere, capsule and padded polygon are a core K (a point, a segment, a convex polygon) padded by
// a ball of radius R. For two of them the ray t·u leaves D = A ⊕ (−B) where
//   g(t) = dist(K1, t·u + K2) − (R1 + R2) = 0.
// g is convex (the distance to a convex set along a line) with g(0) = −(R1 + R2) < 0, so Newton's
// method from an upper bound t0 ≥ t* decreases monotonically to t*, quadratically once the closest
// features settle; g'(t) = n̂ᵀu with n̂ the unit vector between the closest points. The hit is exact
// to rounding (a = p + R1 n̂, b = q − R2 n̂), so the polish needs one Newton step instead of the
// two or three that follow the MPR finish, and no portal refinements run.

/// A face outside a large polytope's window counts as violated by the polished point below
/// −kWindowTolerance·max(1, ‖h‖) (face_window.hpp; rounding of an exact point is ~1e-16).
constexpr double kWindowTolerance = 1e-12;

/// Active-set threshold after the exact start (relative, as the MPR start's 1e-5).
constexpr double kExactStartActiveTolerance = 1e-9;

template <class P> constexpr bool has_ball_core() {
  return std::is_same_v<P, Sphere> || std::is_same_v<P, Capsule> || std::is_same_v<P, PaddedPolygon>;
}
template <class P> constexpr bool is_revolved() { return std::is_same_v<P, Cylinder> || std::is_same_v<P, Cone>; }
/// The pairs that take the exact start: both ball-padded, not two spheres (direct_newton), or a
/// sphere, capsule or padded polygon and a cylinder or cone (R2 = 0: the whole solid is the core;
/// its closest point to a point is a 2-D one in the meridian plane, to a segment Newton's method
/// along it, to a polygon the simplex walk of closest_flat_curved). Two polygons cost m1·m2 edge
/// pairs per Newton step and still gain (measured: 2.70 → 2.42 µs). A polytope against a cylinder
/// or cone (ρ = 0: the distance itself goes to 0 at t*) by the same walk measured slower than the
/// ray cast (cone–polytope 1.56 → 2.61 µs, polytope–cylinder at par; docs/notes/dcol.md).
template <class P1, class P2> constexpr bool has_exact_ball_start() {
  return (has_ball_core<P1>() && has_ball_core<P2>() && !(std::is_same_v<P1, Sphere> && std::is_same_v<P2, Sphere>)) ||
         (has_ball_core<P1>() && is_revolved<P2>()) || (is_revolved<P1>() && has_ball_core<P2>()) ||
         (std::is_same_v<P1, Polytope> && has_ball_core<P2>()) || (has_ball_core<P1>() && std::is_same_v<P2, Polytope>);
}

/// A support point of the core of a placed primitive (a polytope is its own core).
template <class P> Vec3 core_support(const PlacedPrimitive<P>& b, const Vec3& d) {
  if constexpr (std::is_same_v<P, Polytope>) {
    return b.support(d);
  } else if constexpr (std::is_same_v<P, Sphere>) {
    return Vec3::Zero();
  } else if constexpr (std::is_same_v<P, Capsule>) {
    return b.axis.dot(d) >= 0.0 ? b.half : Vec3(-b.half);
  } else {
    static_assert(std::is_same_v<P, PaddedPolygon>);
    const int i = placed_vertex_argmax(b.V, b.shape.num_vertices, d);
    return Vec3(b.V[i][0], b.V[i][1], b.V[i][2]);
  }
}

/// The padding radius of a placed primitive in ray-cast coordinates (0 for a cylinder or cone).
template <class P> double padding(const PlacedPrimitive<P>& b) {
  if constexpr (has_ball_core<P>()) return b.R;
  else return 0.0;
}

/// The meridian profile (axial, radial; counter-clockwise) of a placed cylinder or cone, scaled,
/// axis Q.col(0). Returns the vertex count.
inline int revolved_profile(const PlacedPrimitive<Cylinder>& b, double (&P)[4][2]) {
  const double h = 0.5 * b.shape.L * b.w.inv_scale, R = b.shape.R * b.w.inv_scale;
  const double v[4][2] = {{-h, 0.0}, {h, 0.0}, {h, R}, {-h, R}};
  for (int i = 0; i < 4; ++i) P[i][0] = v[i][0], P[i][1] = v[i][1];
  return 4;
}
inline int revolved_profile(const PlacedPrimitive<Cone>& b, double (&P)[4][2]) {
  const double H = b.shape.H * b.w.inv_scale;
  const double v[3][2] = {{-0.75 * H, 0.0}, {0.25 * H, 0.0}, {0.25 * H, H * b.shape.tan_beta}};
  for (int i = 0; i < 3; ++i) P[i][0] = v[i][0], P[i][1] = v[i][1];
  return 3;
}

/// What closest_cores keeps between the Newton steps on t: GJK's simplex, the segment parameter,
/// the flat core's feature (its vertex indices: a vertex, an edge or a face).
struct CoreState {
  detail::GjkSimplex simplex;
  double s = 0.5;
  int feature[3] = {0, 0, 0};
  int feature_size = 0;
};

// ---------------------------------------------------------------------------- flat against curved
// A padded polygon's core F (vertices, edges, its face) against a solid of revolution C (a
// closed-form projection). The closest points come from a simplex walk over F's vertices, as
// GJK's but with exact sub-problems: for a simplex S of F's vertices (a point, a segment, a
// triangle) the closest points of conv(S) and C are exact (a vertex's projection,
// Newton's method along a segment, a triangle's interior by C's support point along its normal);
// S shrinks to the face that holds them. Optimality is the separating-plane condition on F's side
// (C's side holds by construction): every vertex y of F has n̂ᵀ(y − p) ≥ 0, n̂ = (p − q)/‖p − q‖.
// A violating vertex (the least n̂ᵀy) joins S. The simplex is kept for the next Newton step on t.

/// The closest point of a placed cylinder or cone (about its origin) to x; false where x lies in it.
template <class P> bool revolved_projection(const PlacedPrimitive<P>& c, const Vec3& x, Vec3& q) {
  double Pr[4][2], delta, f1, f2;
  const int n = revolved_profile(c, Pr);
  return detail::revolved_distance(Pr, n, c.Q.col(0), x, Vec3::Zero(), q, delta, f1, f2);
}
/// Closest points of the segment [x0, x1] and a placed cylinder or cone (detail::closest_segment_revolved).
template <class P>
bool revolved_segment(const PlacedPrimitive<P>& c, const Vec3& x0, const Vec3& x1, double& s, Vec3& p, Vec3& q) {
  double Pr[4][2];
  const int n = revolved_profile(c, Pr);
  return detail::closest_segment_revolved(Pr, n, c.Q.col(0), x0, x1, s, p, q);
}

/// A simplex of flat-core vertices and the closest points of its hull and the curved solid.
struct FlatSimplex {
  int idx[3];
  int n = 0;
  Vec3 p, q;     ///< closest points (C's frame): p ∈ conv(S), q ∈ C
  double d = 0;  ///< ‖p − q‖
};

/// Closest points of conv(S) and C for the simplex S of the vertices y (C's frame); S reduced to
/// the face holding p. s: the segment parameter (start and result). False where conv(S) and C
/// meet or a sub-problem fails.
template <class PC, class Vertex>
bool solve_flat_simplex(const PlacedPrimitive<PC>& c, const Vertex& y, FlatSimplex& S, double& s) {
  const auto segment = [&](int i0, int i1, FlatSimplex& out, double& sp) -> bool {
    if (!revolved_segment(c, y(i0), y(i1), sp, out.p, out.q)) return false;
    out.d = (out.p - out.q).norm();
    if (sp <= 0.0) {
      out.n = 1;
      out.idx[0] = i0;
    } else if (sp >= 1.0) {
      out.n = 1;
      out.idx[0] = i1;
    } else {
      out.n = 2;
      out.idx[0] = i0;
      out.idx[1] = i1;
    }
    return true;
  };
  // a triangle: its interior (C's support point along the normal facing C, projected), else the
  // best of its edges
  const auto triangle = [&](int i0, int i1, int i2, FlatSimplex& out, double& sp) -> bool {
    const Vec3 y0 = y(i0), y1 = y(i1), y2 = y(i2);
    const Vec3 m0 = (y1 - y0).cross(y2 - y0);
    const double mm = m0.squaredNorm();
    if (mm > 0.0) {
      // C's side of the plane: where its origin is (C's support beyond the plane otherwise fails)
      const Vec3 m = m0.dot(y0) > 0.0 ? Vec3(-m0) : m0;
      const Vec3 qc = c.support(Vec3(-m));
      const double h = (qc - y0).dot(m) / mm;  // the height over the plane, in units of ‖m‖
      if (h > 0.0) {
        const Vec3 pc = qc - h * m;
        // barycentric coordinates of pc: the sub-triangle areas along m
        const double w0 = (y1 - pc).cross(y2 - pc).dot(m0), w1 = (y2 - pc).cross(y0 - pc).dot(m0),
                     w2 = (y0 - pc).cross(y1 - pc).dot(m0);
        if (w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0) {
          out.n = 3;
          out.idx[0] = i0;
          out.idx[1] = i1;
          out.idx[2] = i2;
          out.p = pc;
          out.q = qc;
          out.d = (pc - qc).norm();
          return true;
        }
      }
    }
    FlatSimplex e{};
    double se = 0.5;
    out.d = std::numeric_limits<double>::infinity();
    const int pairs[3][2] = {{i0, i1}, {i1, i2}, {i2, i0}};
    for (const auto& pr : pairs) {
      se = 0.5;
      if (!segment(pr[0], pr[1], e, se)) return false;
      if (e.d < out.d) {
        out = e;
        sp = se;
      }
    }
    return true;
  };
  if (S.n == 1) {
    S.p = y(S.idx[0]);
    if (!revolved_projection(c, S.p, S.q)) return false;
    S.d = (S.p - S.q).norm();
    return true;
  }
  if (S.n == 2) return segment(S.idx[0], S.idx[1], S, s);
  return triangle(S.idx[0], S.idx[1], S.idx[2], S, s);
}

/// Closest points pF ∈ F + shift and qC ∈ C of the flat core F (placed vertices f.V, shifted into
/// C's frame) and the curved solid C at the origin, which do not meet: the simplex walk above,
/// from the previous call's simplex (st) or F's vertex farthest towards C. False where it does
/// not settle.
template <class PF, class PC>
bool closest_flat_curved(const PlacedPrimitive<PF>& f, const PlacedPrimitive<PC>& c, const Vec3& shift, CoreState& st,
                         Vec3& pF, Vec3& qC) {
  const int nv = f.shape.num_vertices;
  const auto vertex = [&](int i) { return Vec3(f.V[i][0] + shift.x(), f.V[i][1] + shift.y(), f.V[i][2] + shift.z()); };
  FlatSimplex S;
  S.n = st.feature_size;
  for (int i = 0; i < S.n; ++i) S.idx[i] = st.feature[i];
  if (S.n == 0) {
    S.n = 1;
    S.idx[0] = placed_vertex_argmax(f.V, nv, Vec3(-shift));
  }
  if (!solve_flat_simplex(c, vertex, S, st.s)) return false;
  for (int it = 0; it < 16; ++it) {
    if (!(S.d > 0.0) || !std::isfinite(S.d)) return false;
    const Vec3 nh = (S.p - S.q) / S.d;
    const int j = placed_vertex_argmax(f.V, nv, Vec3(-nh));
    if (nh.dot(vertex(j) - S.p) >= -1e-12) break;
    bool in = false;
    for (int i = 0; i < S.n; ++i) in = in || S.idx[i] == j;
    if (in || S.n == 3) break;  // a vertex already in S, or a polygon's face: the rounding floor
    FlatSimplex T = S;
    T.idx[T.n++] = j;
    double s = 0.5;
    if (!solve_flat_simplex(c, vertex, T, s)) return false;
    if (!(T.d < S.d)) break;  // no progress: the rounding floor
    S = T;
    st.s = s;
  }
  st.feature_size = S.n;
  for (int i = 0; i < S.n; ++i) st.feature[i] = S.idx[i];
  pF = S.p;
  qC = S.q;
  return true;
}

/// Pairs whose cores' closest points come from GJK: a polytope, or a polygon against a segment or
/// a polygon (measured: padded_polygon–padded_polygon 2.44 → 1.66 µs, capsule–padded_polygon
/// 1.49 → 1.35 µs against the closed forms over every vertex and edge pair; a point against a
/// polygon is faster in closed form).
template <class P1, class P2> constexpr bool uses_gjk() {
  return !is_revolved<P1>() && !is_revolved<P2>() &&
         (std::is_same_v<P1, Polytope> || std::is_same_v<P2, Polytope> ||
          (std::is_same_v<P1, PaddedPolygon> && !std::is_same_v<P2, Sphere>) ||
          (std::is_same_v<P2, PaddedPolygon> && !std::is_same_v<P1, Sphere>));
}

/// Closest points p ∈ K1 and q ∈ K2 (each about its own origin, ray-cast coordinates) of K1 and
/// the translate o + K2; the cores do not meet (o = t·u with t ≥ t*). GJK pairs start from the
/// simplex of the previous call, a segment against a solid of revolution from its parameter.
template <class P1, class P2>
bool closest_cores(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, const Vec3& o, Vec3& p, Vec3& q,
                   CoreState& state) {
  if constexpr (uses_gjk<P1, P2>()) {
    return detail::gjk_closest_points([&](const Vec3& d) { return core_support(b1, d); },
                                      [&](const Vec3& d) { return core_support(b2, d); }, o, state.simplex, p, q);
  } else if constexpr (std::is_same_v<P1, PaddedPolygon> && is_revolved<P2>()) {
    // F's vertices in C's frame: v − o
    if (!closest_flat_curved(b1, b2, Vec3(-o), state, p, q)) return false;
    p += o;
    return true;
  } else if constexpr (is_revolved<P1>() && std::is_same_v<P2, PaddedPolygon>) {
    if (!closest_flat_curved(b2, b1, o, state, q, p)) return false;
    q -= o;
    return true;
  } else if constexpr (std::is_same_v<P1, Capsule> && is_revolved<P2>()) {
    // the segment against the solid, both relative to the solid's origin o
    if (!revolved_segment(b2, Vec3(-b1.half - o), Vec3(b1.half - o), state.s, p, q)) return false;
    p += o;
    return true;
  } else if constexpr (is_revolved<P1>() && std::is_same_v<P2, Capsule>) {
    if (!revolved_segment(b1, Vec3(o - b2.half), Vec3(o + b2.half), state.s, q, p)) return false;
    q -= o;
    return true;
  } else if constexpr (std::is_same_v<P1, Sphere>) {
    p.setZero();
    if constexpr (std::is_same_v<P2, Capsule>) {
      q = detail::closest_on_segment(Vec3(o - b2.half), Vec3(o + b2.half), Vec3::Zero()) - o;
    } else if constexpr (is_revolved<P2>()) {
      double P[4][2];
      const int n = revolved_profile(b2, P);
      q = detail::closest_on_revolved(P, n, b2.Q.col(0), -o);
    } else {
      q = detail::closest_on_polygon(b2.V, b2.shape.num_vertices, b2.Q.col(2), -o);
    }
  } else if constexpr (std::is_same_v<P2, Sphere>) {
    q.setZero();
    if constexpr (std::is_same_v<P1, Capsule>) {
      p = detail::closest_on_segment(Vec3(-b1.half), b1.half, o);
    } else if constexpr (is_revolved<P1>()) {
      double P[4][2];
      const int n = revolved_profile(b1, P);
      p = detail::closest_on_revolved(P, n, b1.Q.col(0), o);
    } else {
      p = detail::closest_on_polygon(b1.V, b1.shape.num_vertices, b1.Q.col(2), o);
    }
  } else {
    static_assert(std::is_same_v<P1, Capsule> && std::is_same_v<P2, Capsule>);
    detail::closest_segment_points(-b1.half, b1.half, o - b2.half, o + b2.half, p, q);
    q -= o;
  }
  return true;
}

/// The exact exit point of the ray t·u from D for two ball-padded primitives (see above): Newton's
/// method on g from t0 = h_D(u) = uᵀ(s_A(u) − s_B(−u)) ≥ t*. False where it does not settle.
template <class P1, class P2>
bool ball_core_hit(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, const Vec3& u,
                   diffcol::detail::MinkowskiRayHit& hit) {
  const double rho = padding(b1) + padding(b2);
  double t = u.dot(b1.support(u) - b2.support(-u));
  if (!(t > 0.0) || !std::isfinite(t)) return false;
  Vec3 p, q, n;
  CoreState state;
  int it = 0;
  for (;; ++it) {
    if (it == 40) return false;
    if (!closest_cores(b1, b2, Vec3(t * u), p, q, state)) return false;
    const Vec3 e = t * u + q - p;
    const double d = e.norm();
    if (!(d > 0.0) || !std::isfinite(d)) return false;
    n = e / d;
    const double slope = n.dot(u);
    if (!(slope > 0.0)) return false;
    const double step = (d - rho) / slope;
    // from the right every step is positive; one at rounding level (or below 0, past the root by
    // rounding) ends the iteration with p, q, n̂ taken at t
    if (step <= 1e-15 * t) break;
    t -= step;
    if (!(t > 0.0)) return false;
  }
  hit.t = t;
  hit.a = p + padding(b1) * n;
  hit.b = q - padding(b2) * n;
  hit.normal = n;
  hit.iterations = it;
  return true;
}

/// The ellipsoid of an ellipsoid pair and the other primitive, in either body order.
template <class PX, class P1, class P2>
std::pair<const PlacedPrimitive<Ellipsoid>*, const PlacedPrimitive<PX>*> ellipsoid_and_other(const PlacedPrimitive<P1>& b1,
                                                                                            const PlacedPrimitive<P2>& b2) {
  if constexpr (std::is_same_v<P1, Ellipsoid>) return {&b1, &b2};
  else return {&b2, &b1};
}

/// An ellipsoid against a polytope: the map x ↦ L x, L = U Qᵀ/ℓ (P = UᵀU, Q the ellipsoid's
/// rotation, ℓ the ray cast's length unit), takes the placed ellipsoid to the unit ball and the
/// polytope to a polytope. Problem (9) is invariant under linear maps (both shapes scale about
/// their own origins, and so do their images), so the exact start of a sphere against a polytope
/// applies in the mapped coordinates: α = ‖L r₁₂‖/t′ and a = L⁻¹a′ for the hit t′, a′ there.
template <class P1, class P2>
bool ellipsoid_polytope_hit(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, const Vec3& r12,
                            diffcol::detail::MinkowskiRayHit& hit) {
  constexpr bool ellipsoid_first = std::is_same_v<P1, Ellipsoid>;
  const auto split = ellipsoid_and_other<Polytope>(b1, b2);
  const PlacedPrimitive<Ellipsoid>* e = split.first;
  const PlacedPrimitive<Polytope>* poly = split.second;
  static const Sphere unit(1.0);
  const Mat3 L = e->shape.U * e->Q.transpose() / e->w.inv_scale;
  PlacedPrimitive<Polytope> mapped(*poly);
  mapped.M = L * poly->M;  // (large polytopes: the support maps through M)
  for (int i = 0; i < (poly->big ? 0 : poly->shape.num_vertices); ++i) {
    const Vec3 v = L * Vec3(poly->V[i][0], poly->V[i][1], poly->V[i][2]);
    mapped.V[i][0] = v.x();
    mapped.V[i][1] = v.y();
    mapped.V[i][2] = v.z();
  }
  PlacedPrimitive<Sphere> ball(unit, e->Q, e->w);
  ball.R = 1.0;
  const Vec3 r = L * r12;
  const double Dm = r.norm();
  if (!(Dm > 0.0) || !std::isfinite(Dm)) return false;
  diffcol::detail::MinkowskiRayHit h;
  const bool ok = ellipsoid_first ? ball_core_hit(ball, mapped, Vec3(r / Dm), h) : ball_core_hit(mapped, ball, Vec3(r / Dm), h);
  if (!ok) return false;
  // back: t = ‖r₁₂‖/α, a = L⁻¹a′ = ℓ Q U⁻¹ a′
  hit.t = r12.norm() * h.t / Dm;
  const Vec3 ua = e->shape.U.triangularView<Eigen::Upper>().solve(h.a);
  hit.a = e->w.inv_scale * (e->Q * ua);
  hit.b = e->w.inv_scale * (e->Q * Vec3(e->shape.U.triangularView<Eigen::Upper>().solve(h.b)));
  hit.normal = h.normal;
  hit.iterations = h.iterations;
  return std::isfinite(hit.t) && hit.a.allFinite();
}

/// The primitives that an ellipsoid meets through ellipsoid_core_hit.
template <class P> constexpr bool has_support_search_partner() {
  return std::is_same_v<P, Capsule> || std::is_same_v<P, PaddedPolygon> || std::is_same_v<P, Cylinder> ||
         std::is_same_v<P, Cone>;
}

/// An ellipsoid against a capsule, padded polygon, cylinder or cone: the ray's exit as the minimum
/// of D's support function over the chart d = u + e₁w₁ + e₂w₂ (src/dcol/support_search.hpp). With
/// the ellipsoid E and the other primitive X, h_D(d) = ‖d‖_W + h_X(σd), σ = +1 where X is body 1
/// and −1 where it is body 2 (E is symmetric): R‖d‖ + max_i σV_iᵀd for a capsule or padded polygon
/// (padding R, core vertices V_i), R‖(I − aaᵀ)d‖ + max(±(L/2)aᵀd) for a cylinder, apex and base
/// circle for a cone. The hit is exact to rounding: a = σ_E(d*) (E first) or t·u − σ_E(d*) (X first).
template <class P1, class P2>
bool ellipsoid_core_hit(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, const Vec3& u,
                        diffcol::detail::MinkowskiRayHit& hit) {
  constexpr bool ellipsoid_first = std::is_same_v<P1, Ellipsoid>;
  using PX = std::conditional_t<ellipsoid_first, P2, P1>;
  const auto split = ellipsoid_and_other<PX>(b1, b2);
  const PlacedPrimitive<Ellipsoid>* e = split.first;
  const PlacedPrimitive<PX>* x = split.second;
  const double sigma = ellipsoid_first ? -1.0 : 1.0;
  // e₁, e₂ ⊥ u (Duff et al. 2017)
  const double sg = std::copysign(1.0, u.z()), aa = -1.0 / (sg + u.z()), bb = u.x() * u.y() * aa;
  const Vec3 e1(1.0 + sg * u.x() * u.x() * aa, sg * bb, -sg * u.x());
  const Vec3 e2(bb, sg + u.y() * u.y() * aa, -u.y());
  detail::SupportObjective P;
  const Vec3 Wu = e->W * u, We1 = e->W * e1, We2 = e->W * e2;
  P.nq = 2;
  P.rho[0] = e->w.inv_scale;
  P.c[0] = u.dot(Wu);
  P.g[0][0] = e1.dot(Wu);
  P.g[0][1] = e2.dot(Wu);
  P.M[0][0] = e1.dot(We1);
  P.M[0][1] = e1.dot(We2);
  P.M[0][2] = e2.dot(We2);
  [[maybe_unused]] detail::SupportCone C;
  if constexpr (std::is_same_v<PX, Cone>) P.nq = 1;
  if constexpr (!std::is_same_v<PX, Cylinder> && !std::is_same_v<PX, Cone>) {  // the padding ball: R‖d‖
    P.rho[1] = x->R;
    P.c[1] = 1.0;
    P.M[1][0] = P.M[1][2] = 1.0;
  }
  static_assert(detail::kMaxSupportPieces >= kMaxPolygonEdges);
  const auto add_piece = [&](const Vec3& v) {  // σ vᵀd for a core vertex v
    P.a[P.na] = sigma * v.dot(u);
    P.b[P.na][0] = sigma * v.dot(e1);
    P.b[P.na][1] = sigma * v.dot(e2);
    ++P.na;
  };
  if constexpr (std::is_same_v<PX, Capsule>) {
    add_piece(x->half);
    add_piece(-x->half);
  } else if constexpr (std::is_same_v<PX, Cylinder>) {
    // h(d) = R‖(I − aaᵀ)d‖ + (L/2)abs(aᵀd), a the placed axis (symmetric: σ drops out)
    const Vec3 ax = x->Q.col(0);
    const double R = x->shape.R * x->w.inv_scale, half = 0.5 * x->shape.L * x->w.inv_scale;
    const double au = ax.dot(u), a1 = ax.dot(e1), a2 = ax.dot(e2);
    detail::set_radial_term(P, 1, R, au, a1, a2);
    add_piece(half * ax);
    add_piece(-half * ax);
  } else if constexpr (std::is_same_v<PX, Cone>) {
    // h(y) = max(−(3H/4)aᵀy, (H/4)aᵀy + r‖(I − aaᵀ)y‖), y = σd: the apex and the base circle
    const Vec3 ax = x->Q.col(0);
    const double H = x->shape.H * x->w.inv_scale, r = H * x->shape.tan_beta;
    const double au = ax.dot(u), a1 = ax.dot(e1), a2 = ax.dot(e2);
    C.apex_a = -0.75 * H * sigma * au, C.apex_b[0] = -0.75 * H * sigma * a1, C.apex_b[1] = -0.75 * H * sigma * a2;
    C.rim_a = 0.25 * H * sigma * au, C.rim_b[0] = 0.25 * H * sigma * a1, C.rim_b[1] = 0.25 * H * sigma * a2;
    C.rim.nq = 1;
    detail::set_radial_term(C.rim, 0, r, au, a1, a2);
  } else {
    static_assert(std::is_same_v<PX, PaddedPolygon>);
    P.polygon = true;
    for (int i = 0; i < x->shape.num_vertices; ++i) add_piece(Vec3(x->V[i][0], x->V[i][1], x->V[i][2]));
  }
  detail::SupportMinimum m;
  if constexpr (std::is_same_v<PX, Cone>) {
    if (!detail::minimize_support_cone(P, C, m)) return false;
  } else {
    if (!detail::minimize_support(P, m)) return false;
  }
  const Vec3 d = u + m.w[0] * e1 + m.w[1] * e2;
  const Vec3 q = e->W * d;
  const double n = d.dot(q);
  if (!(n > 0.0) || !(m.F > 0.0)) return false;
  const Vec3 se = (e->w.inv_scale / std::sqrt(n)) * q;
  hit.t = m.F;
  hit.a = ellipsoid_first ? se : Vec3(m.F * u - se);
  hit.b = hit.a - m.F * u;
  hit.normal = d.normalized();
  hit.iterations = m.iterations;
  return std::isfinite(hit.t) && hit.a.allFinite();
}

/// The primitives written as square roots and max structures in the chart (minimize_support_pair):
/// cylinder, cone, padded polygon, polytope (its vertices; its faces as face states). (A capsule
/// against a cylinder or cone measured at par with ball_core_hit, which never falls back there: it
/// stays on that start.)
template <class P> constexpr bool is_support_pair_body() {
  return std::is_same_v<P, Cylinder> || std::is_same_v<P, Cone> || std::is_same_v<P, PaddedPolygon> ||
         std::is_same_v<P, Polytope>;
}
/// The pairs that take the support-function start of two max structures: a cylinder or a cone
/// against a cylinder, a cone or a padded polygon, and a cylinder against a polytope. (Two padded
/// polygons: ball_core_hit, faster. A polytope against a cone has no square-root term: F is
/// piecewise affine but for the base circle, the search walks the polytope's vertices one tie at
/// a time, and it measured slower than the ray cast: 1.30 → 1.48 µs.)
template <class P1, class P2> constexpr bool has_support_pair_start() {
  constexpr bool polytope_cone = (std::is_same_v<P1, Polytope> && std::is_same_v<P2, Cone>) ||
                                 (std::is_same_v<P1, Cone> && std::is_same_v<P2, Polytope>);
  return is_support_pair_body<P1>() && is_support_pair_body<P2>() && (is_revolved<P1>() || is_revolved<P2>()) &&
         !polytope_cone;
}

/// Writes body s's terms of h_D in the chart (σ = +1 for body 1, h₁(d); −1 for body 2, h₂(−d)):
/// its padding ball or cylinder radius as a root (a ball merged into `ball`), its core as set s.
template <class P>
void add_support_body(const PlacedPrimitive<P>& b, int s, const Vec3& u, const Vec3& e1, const Vec3& e2,
                      detail::SupportPair& F, int (&owner)[2], double& ball) {
  const double sigma = s == 0 ? 1.0 : -1.0;
  detail::SupportSet& S = F.set[s];
  const auto add_piece = [&](const Vec3& v) {
    S.a[S.n] = sigma * v.dot(u);
    S.b[S.n][0] = sigma * v.dot(e1);
    S.b[S.n][1] = sigma * v.dot(e2);
    ++S.n;
  };
  if constexpr (std::is_same_v<P, PaddedPolygon>) {
    ball += b.R;
    S.polygon = true;
    static_assert(detail::kMaxSetPieces >= kMaxPolygonEdges);
    for (int i = 0; i < b.shape.num_vertices; ++i) add_piece(Vec3(b.V[i][0], b.V[i][1], b.V[i][2]));
  } else if constexpr (std::is_same_v<P, Polytope>) {
    static_assert(detail::kMaxSetPieces >= kInlinePolytopeVertices);
    for (int i = 0; i < b.shape.num_vertices; ++i) add_piece(Vec3(b.V[i][0], b.V[i][1], b.V[i][2]));
    S.num_faces = b.shape.num_faces;
    S.face_start = b.shape.face_start.data();
    S.face_vertices = b.shape.face_vertices.data();
  } else {
    const Vec3 ax = b.Q.col(0);
    const double au = ax.dot(u), a1 = ax.dot(e1), a2 = ax.dot(e2);
    if constexpr (std::is_same_v<P, Cylinder>) {
      const double R = b.shape.R * b.w.inv_scale, half = 0.5 * b.shape.L * b.w.inv_scale;
      owner[F.nq] = s;
      detail::set_radial_root(F.q[F.nq++], R, au, a1, a2);
      add_piece(half * ax);
      add_piece(-half * ax);
    } else {
      static_assert(std::is_same_v<P, Cone>);
      const double H = b.shape.H * b.w.inv_scale, r = H * b.shape.tan_beta;
      S.cone = true;
      add_piece(-0.75 * H * ax);  // the apex
      add_piece(0.25 * H * ax);   // the base centre (+ the rim root)
      detail::set_radial_root(S.rim, r, au, a1, a2);
    }
  }
}

/// Body s's contact point (its support point in direction σd, σ = ±1 as above) from the weights
/// of the minimum: the core's active vertices, plus the padding ball or radius along d.
template <class P>
Vec3 support_pair_point(const PlacedPrimitive<P>& b, int s, const Vec3& d, const detail::SupportPairMinimum& m) {
  const Vec3 y = s == 0 ? d : Vec3(-d);
  Vec3 p = Vec3::Zero();
  const auto vertex = [&](int i) -> Vec3 {
    if constexpr (std::is_same_v<P, PaddedPolygon> || std::is_same_v<P, Polytope>)
      return Vec3(b.V[i][0], b.V[i][1], b.V[i][2]);
    else if constexpr (std::is_same_v<P, Cylinder>) return (i == 0 ? 0.5 : -0.5) * b.shape.L * b.w.inv_scale * b.Q.col(0);
    else return (i == 0 ? -0.75 : 0.25) * b.shape.H * b.w.inv_scale * b.Q.col(0);
  };
  for (int a = 0; a < m.na[s]; ++a) p += m.lambda[s][a] * vertex(m.active[s][a]);
  if constexpr (std::is_same_v<P, PaddedPolygon>) {
    p += (b.R / y.norm()) * y;
  } else if constexpr (is_revolved<P>()) {
    const Vec3 ax = b.Q.col(0);
    const Vec3 radial = y - ax.dot(y) * ax;
    const double n = radial.norm();
    if (!(n > 0.0)) return p;
    if constexpr (std::is_same_v<P, Cylinder>) {
      p += (b.shape.R * b.w.inv_scale / n) * radial;
    } else {  // the rim point, with the base circle's weight
      double lr = 0.0;
      for (int a = 0; a < m.na[s]; ++a) lr += m.active[s][a] == 1 ? m.lambda[s][a] : 0.0;
      p += (lr * b.shape.H * b.shape.tan_beta * b.w.inv_scale / n) * radial;
    }
  }
  return p;
}

/// The pairs of has_support_pair_start: the ray's exit as the minimum of h_D over the chart (detail::minimize_support_pair). The hit is exact to rounding:
/// a from body 1's active features, or from body 2's where body 1's kink holds the minimum.
template <class P1, class P2>
bool support_pair_hit(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, const Vec3& u,
                      diffcol::detail::MinkowskiRayHit& hit) {
  const double sg = std::copysign(1.0, u.z()), aa = -1.0 / (sg + u.z()), bb = u.x() * u.y() * aa;
  const Vec3 e1(1.0 + sg * u.x() * u.x() * aa, sg * bb, -sg * u.x());
  const Vec3 e2(bb, sg + u.y() * u.y() * aa, -u.y());
  if (is_large_placed(b1) || is_large_placed(b2)) return false;  // (its vertices exceed a SupportSet)
  detail::SupportPair F;
  int owner[2] = {0, 0};
  double ball = 0.0;
  add_support_body(b1, 0, u, e1, e2, F, owner, ball);
  add_support_body(b2, 1, u, e1, e2, F, owner, ball);
  if (ball > 0.0) {
    owner[F.nq] = -1;
    detail::set_ball_root(F.q[F.nq++], ball);
  }
  detail::SupportPairMinimum m;
  constexpr int nq = (std::is_same_v<P1, Cylinder> ? 1 : 0) + (std::is_same_v<P2, Cylinder> ? 1 : 0) +
                     (std::is_same_v<P1, PaddedPolygon> || std::is_same_v<P2, PaddedPolygon> ? 1 : 0);
  if (!detail::minimize_support_pair<std::is_same_v<P1, Cone>, std::is_same_v<P2, Cone>, nq>(F, m) || !(m.F > 0.0))
    return false;
  const Vec3 d = u + m.w[0] * e1 + m.w[1] * e2;
  const int kink_body = m.kink < 0 ? -1 : m.kink < 2 ? owner[m.kink] : m.kink - 2;
  if (kink_body == 0) {
    hit.b = support_pair_point(b2, 1, d, m);
    hit.a = hit.b + m.F * u;
  } else {
    hit.a = support_pair_point(b1, 0, d, m);
    hit.b = hit.a - m.F * u;
  }
  hit.t = m.F;
  hit.normal = d.normalized();
  hit.iterations = m.iterations;
  return std::isfinite(hit.t) && hit.a.allFinite();
}

/// The polish with large polytopes (face_window.hpp): the window is picked at the start point x0
/// (the faces of least slack there) before the active set is read (rows with slack ≤ tau·α);
/// after the polish every face is checked and, where one is violated, the window is picked again
/// at the polished point (its active faces kept) and the polish repeated from there. Out of line:
/// inlined into the starts, it pushed the ray cast out of line for small polytopes too.
template <int N>
[[gnu::noinline]] bool window_polish(FaceWindows& win, ConeKkt& k, const SolveOptions& opt, IpmOutcome& out,
                                     const double* x_start, double tau) {
  double x0[kMaxConeVars];
  for (int j = 0; j < kMaxConeVars; ++j) x0[j] = x_start[j];
  for (int round = 0; round < 4; ++round) {
    win.select(x0, round == 0 ? nullptr : &k);
    double hnorm = 0.0;
    for (int i = 0; i < k.m; ++i) hnorm += k.h[i] * k.h[i];
    hnorm = std::max(1.0, std::sqrt(hnorm));
    ActiveSet A;
    if (!start_active_set<N>(k, x0, tau * x0[3], A)) return false;
    out = {SolveStatus::ok, 0, 0.0, 0.0, 0.0};
    if (!polish_newton<N>(k, opt, hnorm, out, A, x0)) return false;
    if (win.min_slack(k.x) >= -kWindowTolerance * hnorm) return true;
    for (int j = 0; j < kMaxConeVars; ++j) x0[j] = k.x[j];
  }
  return false;
}

/// The geometric start for any pair (SolveOptions::direct_newton): a ray cast on the Minkowski
/// difference of the two shapes (support functions, MPR) gives α and p̂ to within a tolerance, the
/// slacks follow by projection, the active set and multipliers from the slacks at that point;
/// then the polish's Newton method and certificate. False (nothing changed but k's scratch) when
/// any step declines: the caller runs the interior-point method.
template <class P1, class P2>
bool ray_cast_newton(const PlacedPrimitive<P1>& b1, const PlacedPrimitive<P2>& b2, double shift, ConeKkt& k,
                     const SolveOptions& opt, IpmOutcome& out, [[maybe_unused]] FaceWindows* win = nullptr) {
  constexpr int N = 4 + slack_count<P1>() + slack_count<P2>();
  constexpr bool polytope_pair = std::is_same_v<P1, Polytope> || std::is_same_v<P2, Polytope>;
  const RowWriter& w1 = b1.w;
  const RowWriter& w2 = b2.w;
  const double inv = w1.inv_scale;
  const Vec3 r12 = w2.r_hat - w1.r_hat;
  const double D = r12.norm();
  if (!(D > 0.0) || !std::isfinite(D)) return false;
  const Vec3 u = r12 / D;
  auto sa = [&](const Vec3& d) -> Vec3 { return b1.support(d); };
  auto sb = [&](const Vec3& d) -> Vec3 { return b2.support(d); };
  double hnorm = 0.0;
  for (int i = 0; i < k.m; ++i) hnorm += k.h[i] * k.h[i];
  hnorm = std::max(1.0, std::sqrt(hnorm));
  // From a hit: the start x0, the active set (rows with slack ≤ tau·α) and the polish.
  const auto polish_from = [&](const diffcol::detail::MinkowskiRayHit& hit, double tau) -> bool {
    const double alpha = D / hit.t;
    if (!(alpha > 0.0) || !std::isfinite(alpha)) return false;
    double x0[kMaxConeVars] = {};
    const Vec3 p0 = w1.r_hat + alpha * hit.a;
    x0[0] = p0.x();
    x0[1] = p0.y();
    x0[2] = p0.z();
    x0[3] = alpha;
    b1.slacks(inv, alpha, x0);
    b2.slacks(inv, alpha, x0);
    if constexpr (polytope_pair) {
      if (win) {
        if (!window_polish<N>(*win, k, opt, out, x0, tau)) return false;
        k.factored = false;
        return true;
      }
    }
    ActiveSet A;
    if (!start_active_set<N>(k, x0, tau * alpha, A)) return false;
    out = {SolveStatus::ok, 0, 0.0, 0.0, 0.0};
    if (!polish_newton<N>(k, opt, hnorm, out, A, x0)) return false;
    k.factored = false;
    return true;
  };
  // Two ball-padded primitives: the exact hit (ball_core_hit), rows with slack ≤ 1e-9·α active;
  // where that fails, the ray cast below.
  if constexpr (has_support_pair_start<P1, P2>()) {
    diffcol::detail::MinkowskiRayHit hit;
    if (support_pair_hit(b1, b2, u, hit) && polish_from(hit, kExactStartActiveTolerance * shift * inv)) {
      out.start = StartMethod::exact;
      return true;
    }
    if constexpr (has_exact_ball_start<P1, P2>()) {  // (it settles some that the ray cast misses)
      if (ball_core_hit(b1, b2, u, hit) && polish_from(hit, kExactStartActiveTolerance * shift * inv)) {
        out.start = StartMethod::exact;
        return true;
      }
    }
  } else if constexpr (has_exact_ball_start<P1, P2>()) {
    diffcol::detail::MinkowskiRayHit hit;
    if (ball_core_hit(b1, b2, u, hit) && polish_from(hit, kExactStartActiveTolerance * shift * inv)) {
      out.start = StartMethod::exact;
      return true;
    }
  } else if constexpr ((std::is_same_v<P1, Ellipsoid> && has_support_search_partner<P2>()) ||
                       (std::is_same_v<P2, Ellipsoid> && has_support_search_partner<P1>())) {
    diffcol::detail::MinkowskiRayHit hit;
    if (ellipsoid_core_hit(b1, b2, u, hit) && polish_from(hit, kExactStartActiveTolerance * shift * inv)) {
      out.start = StartMethod::exact;
      return true;
    }
  } else if constexpr ((std::is_same_v<P1, Ellipsoid> && std::is_same_v<P2, Polytope>) ||
                       (std::is_same_v<P1, Polytope> && std::is_same_v<P2, Ellipsoid>)) {
    diffcol::detail::MinkowskiRayHit hit;
    if (ellipsoid_polytope_hit(b1, b2, r12, hit) && polish_from(hit, kExactStartActiveTolerance * shift * inv)) {
      out.start = StartMethod::exact;
      return true;
    }
  }
  // (The loop below repeats polish_from's body: through the lambda, capsule–cylinder and
  // capsule–cone measured 7–9% slower.)
  // The ray cast stops 1e-4 (relative to the inner radii) from D's boundary and Newton's method
  // finishes; rows with slack ≤ 30× that distance times α (same scale) are active. On a curved D
  // the hit point is much less accurate along the portal than across it, so the threshold grows
  // with the tolerance: with 1e-5·α at every tolerance, casts looser than 1e-6 misread the active
  // sets. Measured on the ergodic sweep against (1e-6, 1e-5): 28% fewer portal refinements, 10%
  // more Newton steps, the same fallbacks, curved pairs 6–15% faster (docs/notes/dcol.md). When the
  // active set is rejected — near-degenerate contacts, where D is nearly flat along the portal —
  // the ray is cast once more to 1e-11, rows with slack ≤ 1e-5·α active.
  for (const double rel : {1e-4, 1e-11}) {
    // (large polytopes: their faces are small, tau = 3e-3 spans several of them and the active set
    // read at the coarse cast failed about half the time: the fine cast only)
    if constexpr (polytope_pair)
      if (win && rel > 1e-6) continue;
    const double tol = rel * shift * inv;
    const double tau = std::max(1e-5, 30.0 * rel) * shift * inv;
    diffcol::detail::MinkowskiRayHit hit;
    if (!diffcol::detail::minkowski_ray_cast(sa, sb, u, shift * inv, tol, 64, hit)) return false;
    const double alpha = D / hit.t;
    if (!(alpha > 0.0) || !std::isfinite(alpha)) return false;
    double x0[kMaxConeVars] = {};
    const Vec3 p0 = w1.r_hat + alpha * hit.a;
    x0[0] = p0.x();
    x0[1] = p0.y();
    x0[2] = p0.z();
    x0[3] = alpha;
    b1.slacks(inv, alpha, x0);
    b2.slacks(inv, alpha, x0);
    if constexpr (polytope_pair) {
      if (win) {
        if (!window_polish<N>(*win, k, opt, out, x0, tau)) continue;
        k.factored = false;
        out.start = StartMethod::ray_cast;
        return true;
      }
    }
    ActiveSet A;
    if (!start_active_set<N>(k, x0, tau * alpha, A)) continue;
    out = {SolveStatus::ok, 0, 0.0, 0.0, 0.0};
    if (!polish_newton<N>(k, opt, hnorm, out, A, x0)) continue;
    k.factored = false;
    out.start = StartMethod::ray_cast;
    return true;
  }
  return false;
}

}  // namespace
}  // namespace diffcol::dcol::detail
