#pragma once
// A DCOL primitive placed in the scaled coordinates of its pair's cone program, as the geometric
// starts see it: its support function and the slack unknowns at a start point. Internal to src/dcol.
#include <type_traits>

#include "cone_program.hpp"

namespace diffcol::dcol::detail {
// Internal linkage, as for code of solve_contact.cpp itself (the one unit that includes this):
// the inliner then treats each start as local to that unit.
namespace {

/// Slack unknowns at a start point p̂ (scaled coordinates) and scale α: the capsule's γ clamped
/// to the scaled segment, the padded polygon's w projected onto the scaled polygon (the optimal
/// slacks for that p̂, α). Other primitives have none.
template <class P>
void start_slacks([[maybe_unused]] const P& s, [[maybe_unused]] const Mat3& Q, [[maybe_unused]] const RowWriter& w,
                  [[maybe_unused]] double inv, [[maybe_unused]] double alpha, [[maybe_unused]] double* x) {
  if constexpr (std::is_same_v<P, Capsule>) {
    const Vec3 y = Q.transpose() * (Vec3(x[0], x[1], x[2]) - w.r_hat);
    const double half = 0.5 * alpha * s.L * inv;
    x[w.slack0] = std::clamp(y.x(), -half, half);
  } else if constexpr (std::is_same_v<P, PaddedPolygon>) {
    const Vec3 y = Q.transpose() * (Vec3(x[0], x[1], x[2]) - w.r_hat);
    const Eigen::Vector2d q(y.x(), y.y());
    const double a = alpha * inv;
    bool inside = true;
    for (int i = 0; i < s.num_edges && inside; ++i) inside = s.C(i, 0) * q.x() + s.C(i, 1) * q.y() <= a * s.d[i];
    Eigen::Vector2d best = q;
    if (!inside) {
      double bd = 1e300;
      for (int i = 0; i < s.num_vertices; ++i) {
        const int j = i + 1 == s.num_vertices ? 0 : i + 1;
        const Eigen::Vector2d v0 = a * s.V.row(i).transpose(), e = a * s.V.row(j).transpose() - v0;
        const double ee = e.squaredNorm();
        const double t = ee > 0.0 ? std::clamp((q - v0).dot(e) / ee, 0.0, 1.0) : 0.0;
        const Eigen::Vector2d c = v0 + t * e;
        const double dd = (c - q).squaredNorm();
        if (dd < bd) bd = dd, best = c;
      }
    }
    x[w.slack0] = best.x();
    x[w.slack0 + 1] = best.y();
  }
}

/// One primitive as the ray-cast start sees it: its support function in scaled world
/// coordinates and its slack projection (a template, so the supports inline into the ray cast).
template <class P>
struct PlacedPrimitive {
  const P& shape;
  const Mat3& Q;
  const RowWriter& w;

  /// Support point of the placed shape about its origin, scaled coordinates.
  Vec3 support(const Vec3& d) const {
    const Vec3 y = shape.support(Q.transpose() * d);
    const double inv = w.inv_scale;
    return Vec3(inv * (Q(0, 0) * y.x() + Q(0, 1) * y.y() + Q(0, 2) * y.z()),
                inv * (Q(1, 0) * y.x() + Q(1, 1) * y.y() + Q(1, 2) * y.z()),
                inv * (Q(2, 0) * y.x() + Q(2, 1) * y.y() + Q(2, 2) * y.z()));
  }
  void slacks(double inv, double alpha, double* x) const { start_slacks(shape, Q, w, inv, alpha, x); }
};

/// The first of the n placed vertices maximizing vᵀd (branch-free, as Polytope::support).
int placed_vertex_argmax(const double (*V)[3], int n, const Vec3& d) {
  int best = 0;
  double bv = -1e300;
  for (int i = 0; i < n; ++i) {
    const double v = V[i][0] * d.x() + V[i][1] * d.y() + V[i][2] * d.z();
    const bool gt = v > bv;
    bv = gt ? v : bv;
    best = gt ? i : best;
  }
  return best;
}

/// A polytope's vertices are placed once (rotated and scaled into the ray cast's coordinates), so
/// each support call is the arg max alone. A large polytope (Polytope::large) is not copied: its
/// support is M·y*, y* the shape-frame vertex maximizing yᵀ(Mᵀd) (M = Q/ℓ, or a linear map of it),
/// found by hill climbing on the vertex graph from the previous call's vertex or the best of the
/// polytope's support seeds (a vertex of a convex polytope with no better neighbour maximizes the
/// linear function; without seeds every vertex is visited).
template <>
struct PlacedPrimitive<Polytope> {
  const Polytope& shape;
  const Mat3& Q;
  const RowWriter& w;
  const LargePolytopeData* big = nullptr;
  Mat3 M;
  mutable int last = 0;  // the previous support vertex (large polytopes)
  double V[kInlinePolytopeVertices][3];

  PlacedPrimitive(const Polytope& s, const Mat3& Q_, const RowWriter& w_) : shape(s), Q(Q_), w(w_) {
    M = w.inv_scale * Q;
    if (s.large) {
      big = s.large.get();
      return;
    }
    for (int i = 0; i < s.num_vertices; ++i) {
      const Vec3 v = M * Vec3(s.V(i, 0), s.V(i, 1), s.V(i, 2));
      V[i][0] = v.x();
      V[i][1] = v.y();
      V[i][2] = v.z();
    }
  }
  Vec3 support(const Vec3& d) const {
    if (big) [[unlikely]] return large_support(d);
    const int best = placed_vertex_argmax(V, shape.num_vertices, d);
    return d.squaredNorm() > 0.0 ? Vec3(V[best][0], V[best][1], V[best][2]) : Vec3::Zero();
  }
  [[gnu::noinline]] Vec3 large_support(const Vec3& d) const {
    if (!(d.squaredNorm() > 0.0)) return Vec3::Zero();
    last = big->support_vertex(M.transpose() * d, last);  // from the previous vertex or a seed
    return M * Vec3(big->V.row(last).transpose());
  }
  void slacks(double inv, double alpha, double* x) const { start_slacks(shape, Q, w, inv, alpha, x); }
};

/// Whether a placed primitive is a polytope held in LargePolytopeData (its vertices are not in V).
template <class P> bool is_large_placed([[maybe_unused]] const PlacedPrimitive<P>& b) {
  if constexpr (std::is_same_v<P, Polytope>) return b.big != nullptr;
  else return false;
}

/// Ball-like primitives in ray-cast coordinates: R·d/‖d‖ does not depend on the frame, so the
/// sphere, the capsule's and the padded polygon's round parts need no rotation per call; the
/// capsule's segment end is picked by the sign of d along its placed axis, the ellipsoid uses
/// its placed matrix Q P⁻¹ Qᵀ (same supports as the shape-frame ones, up to rounding).
template <>
struct PlacedPrimitive<Sphere> {
  const Sphere& shape;
  const Mat3& Q;
  const RowWriter& w;
  double R;
  PlacedPrimitive(const Sphere& s, const Mat3& Q_, const RowWriter& w_) : shape(s), Q(Q_), w(w_), R(w_.inv_scale * s.R) {}
  Vec3 support(const Vec3& d) const {
    const double n = d.norm();
    return n > 0.0 ? Vec3((R / n) * d) : Vec3::Zero();
  }
  void slacks(double, double, double*) const {}
};

template <>
struct PlacedPrimitive<Capsule> {
  const Capsule& shape;
  const Mat3& Q;
  const RowWriter& w;
  double R;
  Vec3 axis, half;  // placed unit axis, and half the segment along it (scaled)
  PlacedPrimitive(const Capsule& s, const Mat3& Q_, const RowWriter& w_)
      : shape(s), Q(Q_), w(w_), R(w_.inv_scale * s.R), axis(Q_.col(0)), half((0.5 * s.L * w_.inv_scale) * Q_.col(0)) {}
  Vec3 support(const Vec3& d) const {
    const double n = d.norm();
    if (!(n > 0.0)) return Vec3::Zero();
    const double t = axis.dot(d);
    return (R / n) * d + (t > 0.0 ? half : (t < 0.0 ? Vec3(-half) : Vec3::Zero()));
  }
  void slacks(double inv, double alpha, double* x) const { start_slacks(shape, Q, w, inv, alpha, x); }
};

template <>
struct PlacedPrimitive<Ellipsoid> {
  const Ellipsoid& shape;
  const Mat3& Q;
  const RowWriter& w;
  Mat3 W;  // Q P⁻¹ Qᵀ
  PlacedPrimitive(const Ellipsoid& s, const Mat3& Q_, const RowWriter& w_)
      : shape(s), Q(Q_), w(w_), W(Q_ * s.P_inverse * Q_.transpose()) {}
  Vec3 support(const Vec3& d) const {
    const Vec3 q = W * d;
    const double n = d.dot(q);
    return n > 0.0 ? Vec3((w.inv_scale / std::sqrt(n)) * q) : Vec3::Zero();
  }
  void slacks(double, double, double*) const {}
};

template <>
struct PlacedPrimitive<PaddedPolygon> {
  const PaddedPolygon& shape;
  const Mat3& Q;
  const RowWriter& w;
  double R;
  double V[kMaxPolygonEdges][3];  // placed polygon vertices
  PlacedPrimitive(const PaddedPolygon& s, const Mat3& Q_, const RowWriter& w_)
      : shape(s), Q(Q_), w(w_), R(w_.inv_scale * s.R) {
    const double inv = w.inv_scale;
    for (int i = 0; i < s.num_vertices; ++i)
      for (int r = 0; r < 3; ++r) V[i][r] = inv * (Q(r, 0) * s.V(i, 0) + Q(r, 1) * s.V(i, 1));
  }
  Vec3 support(const Vec3& d) const {
    const double n = d.norm();
    if (!(n > 0.0)) return Vec3::Zero();
    const int best = placed_vertex_argmax(V, shape.num_vertices, d);
    return Vec3(V[best][0], V[best][1], V[best][2]) + (R / n) * d;
  }
  void slacks(double inv, double alpha, double* x) const { start_slacks(shape, Q, w, inv, alpha, x); }
};

}  // namespace
}  // namespace diffcol::dcol::detail
