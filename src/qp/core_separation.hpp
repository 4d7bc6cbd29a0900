// Separation of two QP cores (segments / polygons) along an axis, and the separating axis
// theorem for them: internal to src/qp/ (the a posteriori certificate of proximity() and the
// penetration measure where the cores overlap, with its derivatives).
//
// For a unit n from core 1 to core 2, s(n) = min_{b ∈ core 2} n·b − max_{a ∈ core 1} n·a is a
// lower bound of the core distance (the support-function form of the QP's dual bound), and
// max over unit n of s(n) is the signed core distance: the distance when the cores are apart,
// minus the penetration depth of core 1 − core 2 when they overlap. For polytopes (segments,
// polygons) the maximum over an overlap is reached at a face normal of the Minkowski difference:
// a polygon's plane normal or the cross product of two edges (SAT axes).
#pragma once

#include <array>
#include <cstdint>

#include "diffcol/math/se3.hpp"
#include "diffcol/qp/shapes.hpp"

namespace diffcol::qp::detail {

/// A core's vertices in world axes, relative to a common origin and divided by a length unit.
struct CoreVertices {
  std::array<Vec3, kMaxPolygonEdges> v{};
  std::array<Vec3, kMaxPolygonEdges> v_B{};  ///< the same vertices in the body frame (caller's unit)
  int count = 0;
  bool polygon = false;             ///< edges wrap around (polygon); else one edge 0–1 (segment, count 2)
  Vec3 face_normal = Vec3::Zero();  ///< polygon: unit normal of its plane (body z, world axes)
  int edge_count() const { return polygon ? count : (count == 2 ? 1 : 0); }
  int edge_end(int i) const { return (i + 1) % count; }
};

CoreVertices core_vertices(const Capsule& c, const Pose& X, const Vec3& origin, double inv_unit);
CoreVertices core_vertices(const PaddedPolygon& p, const Pose& X, const Vec3& origin, double inv_unit);

/// s(n) (file comment); n unit.
double separation(const CoreVertices& c1, const CoreVertices& c2, const Vec3& n);
/// max over core 1 of n·(a − a0) ≥ 0 and max over core 2 of n·(b0 − b) ≥ 0: the support gaps of
/// the witness points a0, b0 along n (their sum is n·(b0 − a0) − s(n)).
double support_gap1(const CoreVertices& c1, const Vec3& n, const Vec3& a0);
double support_gap2(const CoreVertices& c2, const Vec3& n, const Vec3& b0);

enum class AxisKind : std::uint8_t { face1, face2, edges, none };

/// The best SAT axis and its witness points a ∈ core 1, b ∈ core 2 with b − a = s·n.
struct SeparatingAxis {
  double s = -1e300;  ///< max of s(n) over the SAT axes (in the vertices' unit)
  Vec3 n = Vec3::Zero();
  AxisKind kind = AxisKind::none;
  int i = -1;  ///< face1: vertex of core 2; face2: vertex of core 1; edges: edge of core 1
  int j = -1;  ///< edges: edge of core 2
  double sign = 1.0;  ///< face kinds: n = sign·face_normal; edges: n = sign·(e1 × e2)/‖e1 × e2‖
  Vec3 a = Vec3::Zero(), b = Vec3::Zero();
};
/// Max of s(n) over the plane normals of polygon cores (both signs) and the normalized cross
/// products of every edge pair, with the witness points of the best axis. No allocation.
/// hint1, hint2 (optional): a common point of both cores (the QP witnesses of touching cores),
/// the witness of a face axis when no support vertex projects into the face (coplanar cores).
SeparatingAxis best_separating_axis(const CoreVertices& c1, const CoreVertices& c2, const Vec3* hint1 = nullptr,
                                    const Vec3* hint2 = nullptr);

}  // namespace diffcol::qp::detail
