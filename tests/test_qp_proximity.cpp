// Tests of the DiffPills proximity queries (include/diffcol/qp/proximity.hpp) and shapes
// (include/diffcol/qp/shapes.hpp).
//
// Each pair (capsule–capsule, polygon–polygon, capsule–polygon) is run on DIFFCOL_ERGODIC_POSES
// (default 10000) random configurations spread over categories: general position, parallel
// segments / planes, intersecting cores, coplanar polygons, zero-length capsules. Every result is
// compared with
//  - an independent exact reference: closest pairs enumerated from point–segment,
//    segment–segment (line–line interior solve in long double) and segment–polygon
//    (end points, edges, plane crossing) candidates; φ and the core distance to 1e-9, the witness
//    and padded closest points to 1e-9 where the minimizer is unique;
//  - brute force: both cores densely sampled; the distance must lie in
//    [brute − resolution, brute] (the samples' covering radii add up to the resolution).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"

#include "test_util.hpp"

namespace {

using namespace diffcol::qp;
using diffcol::Mat3;
using diffcol::Pose;
using diffcol::Vec3;
using diffcol::test::kInf;
using diffcol::test::kNaN;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;

constexpr double kTol = 1e-9;

long pose_count() { return diffcol::test::env_count("DIFFCOL_ERGODIC_POSES", 10000); }

// ============================================================ independent reference geometry

struct PointPair {
  double dist = kInf;
  Vec3 a = Vec3::Zero(), b = Vec3::Zero();  // a on the first object, b on the second
};
inline void keep_min(PointPair& best, const PointPair& c) {
  if (c.dist < best.dist) best = c;
}
PointPair swapped(PointPair p) {
  std::swap(p.a, p.b);
  return p;
}

// Closest point of segment [s0, s1] to the point q.
PointPair point_segment(const Vec3& q, const Vec3& s0, const Vec3& s1) {
  const Vec3 e = s1 - s0;
  const double ee = e.squaredNorm();
  double t = ee > 0 ? (q - s0).dot(e) / ee : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  const Vec3 p = s0 + t * e;
  return {(q - p).norm(), q, p};
}

// Segment–segment: the four end point–segment pairs and, for non-parallel lines, the
// line–line closest pair (2×2 normal equations in long double) when interior to both.
PointPair segment_segment(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1, bool golden = false) {
  PointPair best = point_segment(a0, b0, b1);
  keep_min(best, point_segment(a1, b0, b1));
  keep_min(best, swapped(point_segment(b0, a0, a1)));
  keep_min(best, swapped(point_segment(b1, a0, a1)));
  using LD = long double;
  const Vec3 u = a1 - a0, v = b1 - b0, w = a0 - b0;
  const LD uu = u.squaredNorm(), vv = v.squaredNorm(), uv = u.dot(v), uw = u.dot(w), vw = v.dot(w);
  const LD det = uu * vv - uv * uv;
  if (det > 1e-24L * uu * vv && uu > 0 && vv > 0) {
    const LD s = (uv * vw - vv * uw) / det, t = (uu * vw - uv * uw) / det;
    if (s > 0 && s < 1 && t > 0 && t < 1) {
      const Vec3 p = a0 + double(s) * u, q = b0 + double(t) * v;
      keep_min(best, {(p - q).norm(), p, q});
    }
  }
  if (!golden) return best;
  // Golden-section search of the convex θ1 ↦ dist(p1(θ1), segment 2) in long double: robust
  // for (nearly) parallel segments, where the normal equations are ill-conditioned.
  auto f = [&](long double t) -> long double {
    const Eigen::Matrix<long double, 3, 1> p = a0.cast<long double>() + t * u.cast<long double>();
    const Eigen::Matrix<long double, 3, 1> b = b0.cast<long double>(), e = v.cast<long double>();
    const long double ee = e.squaredNorm();
    long double s = ee > 0 ? (p - b).dot(e) / ee : 0.0L;
    s = std::clamp(s, 0.0L, 1.0L);
    return (p - b - s * e).norm();
  };
  long double lo = 0, hi = 1;
  const long double r = (std::sqrt(5.0L) - 1) / 2;
  for (int it = 0; it < 120; ++it) {
    const long double m1 = hi - r * (hi - lo), m2 = lo + r * (hi - lo);
    if (f(m1) < f(m2)) hi = m2; else lo = m1;
  }
  // Its arg-min is only √ε-accurate (the minimum is flat): it replaces the exact candidates
  // only where it is clearly better (nearly parallel segments).
  const PointPair g = point_segment(a0 + double(0.5L * (lo + hi)) * u, b0, b1);
  if (g.dist < best.dist - 1e-12) best = g;
  return best;
}

struct WorldPolygon {
  const PaddedPolygon* shape;
  Pose X;
  std::vector<Vec3> V;  // world vertices, counter-clockwise
};
WorldPolygon world_polygon(const PaddedPolygon& s, const Pose& X) {
  WorldPolygon w{&s, X, {}};
  for (const auto& v : s.vertices()) w.V.push_back(X * Vec3(v.x(), v.y(), 0.0));
  return w;
}
bool inside(const WorldPolygon& P, const Vec3& q) {
  const Vec3 y = P.X.R.transpose() * (q - P.X.p);
  return P.shape->contains(y.head<2>(), 1e-13);
}

// Point to (filled) polygon.
PointPair point_polygon(const Vec3& q, const WorldPolygon& P) {
  const Vec3 n = P.X.R.col(2);
  const Vec3 proj = q - n.dot(q - P.X.p) * n;
  if (inside(P, proj)) return {(q - proj).norm(), q, proj};
  PointPair best;
  const size_t k = P.V.size();
  for (size_t i = 0; i < k; ++i) keep_min(best, point_segment(q, P.V[i], P.V[(i + 1) % k]));
  return best;
}

// Segment to polygon: end points, the polygon's edges, and a crossing of the plane inside it.
PointPair segment_polygon(const Vec3& s0, const Vec3& s1, const WorldPolygon& P) {
  PointPair best = point_polygon(s0, P);
  keep_min(best, point_polygon(s1, P));
  const size_t k = P.V.size();
  for (size_t i = 0; i < k; ++i) keep_min(best, segment_segment(s0, s1, P.V[i], P.V[(i + 1) % k]));
  const Vec3 n = P.X.R.col(2);
  const double h0 = n.dot(s0 - P.X.p), h1 = n.dot(s1 - P.X.p);
  if ((h0 < 0) != (h1 < 0) && h0 != h1) {
    const Vec3 q = s0 + h0 / (h0 - h1) * (s1 - s0);
    if (inside(P, q)) keep_min(best, {0.0, q, q});
  }
  return best;
}

PointPair polygon_polygon(const WorldPolygon& A, const WorldPolygon& B) {
  PointPair best;
  for (size_t i = 0; i < A.V.size(); ++i) keep_min(best, segment_polygon(A.V[i], A.V[(i + 1) % A.V.size()], B));
  for (size_t i = 0; i < B.V.size(); ++i)
    keep_min(best, swapped(segment_polygon(B.V[i], B.V[(i + 1) % B.V.size()], A)));
  return best;
}

// ------------------------------------------------------------------- brute-force samples

struct Samples {
  std::vector<Vec3> pts;
  double resolution = 0;  // every core point is within this distance of a sample
};
Samples sample_capsule(const Capsule& c, const Pose& X, int n = 64) {
  Samples s;
  for (int i = 0; i < n; ++i) s.pts.push_back(X * c.core_point_B(double(i) / (n - 1)));
  s.resolution = 0.5 * c.length() / (n - 1);
  return s;
}
Samples sample_polygon(const PaddedPolygon& p, const Pose& X, int cells = 10) {
  Samples s;
  double lo_x = kInf, hi_x = -kInf, lo_y = kInf, hi_y = -kInf;
  for (const auto& v : p.vertices())
    lo_x = std::min(lo_x, v.x()), hi_x = std::max(hi_x, v.x()), lo_y = std::min(lo_y, v.y()), hi_y = std::max(hi_y, v.y());
  const double delta = std::max(hi_x - lo_x, hi_y - lo_y) / cells;
  for (double x = lo_x; x <= hi_x + 1e-12; x += delta)
    for (double y = lo_y; y <= hi_y + 1e-12; y += delta)
      if (p.contains(Vec2(x, y))) s.pts.push_back(X * Vec3(x, y, 0));
  const auto& V = p.vertices();
  for (size_t i = 0; i < V.size(); ++i) {
    const Vec2 a = V[i], b = V[(i + 1) % V.size()];
    const int m = std::max(1, int(std::ceil((b - a).norm() / delta)));
    for (int j = 0; j < m; ++j) {
      const Vec2 q = a + (b - a) * (double(j) / m);
      s.pts.push_back(X * Vec3(q.x(), q.y(), 0));
    }
  }
  // A point in a grid cell cut by the boundary is within √2·δ of a boundary point, itself
  // within δ/2 of an edge sample.
  s.resolution = (std::sqrt(2.0) + 0.5) * delta;
  return s;
}
double brute_distance(const Samples& a, const Samples& b) {
  double best = kInf;
  for (const Vec3& p : a.pts)
    for (const Vec3& q : b.pts) best = std::min(best, (p - q).squaredNorm());
  return std::sqrt(best);
}

// ------------------------------------------------------------------------- random shapes

Capsule random_capsule(std::mt19937& rng, bool zero_length = false) {
  std::uniform_real_distribution<double> L(0.2, 2.0), R(0.0, 0.5);
  if (rng() % 4 == 0) {  // arbitrary body-frame end points
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    const Vec3 a(U(rng), U(rng), U(rng));
    return Capsule::from_end_points(a, zero_length ? a : Vec3(U(rng), U(rng), U(rng)), R(rng));
  }
  return Capsule(zero_length ? 0.0 : L(rng), R(rng));
}

PaddedPolygon random_polygon(std::mt19937& rng) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const int k = rng() % 10 == 0 ? kMaxPolygonEdges : 3 + int(rng() % 6);
  std::vector<double> ang;
  while (int(ang.size()) < k) {
    const double a = 2 * M_PI * U(rng);
    bool ok = true;
    for (double b : ang) ok = ok && std::abs(std::remainder(a - b, 2 * M_PI)) > 0.05;
    if (ok) ang.push_back(a);
  }
  std::sort(ang.begin(), ang.end());
  const double sx = 0.3 + U(rng), sy = 0.3 + U(rng), cx = 0.3 * (U(rng) - 0.5), cy = 0.3 * (U(rng) - 0.5);
  std::vector<Vec2> V;
  for (double a : ang) V.emplace_back(cx + sx * std::cos(a), cy + sy * std::sin(a));
  const double pad = 0.4 * U(rng);
  if (k < kMaxPolygonEdges && rng() % 5 == 0) {  // with a redundant constraint
    Eigen::MatrixX2d C(k + 1, 2);
    Eigen::VectorXd d(k + 1);
    for (int i = 0; i < k; ++i) {
      const Vec2 e = V[(i + 1) % k] - V[i];
      C.row(i) << e.y(), -e.x();
      d(i) = C.row(i).dot(V[i]);
    }
    C.row(k) << 0.3, 0.7;
    d(k) = 10.0;
    return PaddedPolygon(C, d, pad);
  }
  return PaddedPolygon::from_vertices(V, pad);
}

Mat3 rot_z(double a) { return Eigen::AngleAxisd(a, Vec3::UnitZ()).toRotationMatrix(); }

// --------------------------------------------------------------------------- comparison

struct Stats {
  long n = 0, unique = 0, touching = 0, non_unique = 0;
  double phi = 0, dist = 0, points = 0, closest = 0, feas = 0, brute_gap = 0;
  void print(const char* name) const {
    std::printf("%s: %ld configurations (%ld unique minimizer, %ld non-unique, %ld cores touching): max |phi-ref| "
                "%.2e, |dist-ref| %.2e, |p-ref| %.2e (unique), |closest-ref| %.2e, core feasibility %.2e, "
                "max (brute - dist)/resolution %.3f\n",
                name, n, unique, non_unique, touching, phi, dist, points, closest, feas, brute_gap);
  }
};

// Distance of a point from capsule / polygon core (independent of the solver).
double off_core(const Capsule& c, const Pose& X, const Vec3& p) {
  return point_segment(p, X * c.a_B(), X * c.b_B()).dist;
}
double off_core(const PaddedPolygon& s, const Pose& X, const Vec3& p) {
  return point_polygon(p, world_polygon(s, X)).dist;
}

template <class S1, class S2>
void compare(const S1& s1, const Pose& X1, const S2& s2, const Pose& X2, const PointPair& ref, const Samples& b1,
             const Samples& b2, const std::string& what, Stats& st) {
  const ProximityResult r = proximity(s1, X1, s2, X2);
  ++st.n;
  ASSERT_EQ(r.status, ProximityStatus::ok) << what << " (" << r.qp.iterations << " iterations)";
  const double R = s1.radius() + s2.radius();
  const double phi_ref = ref.dist * ref.dist - R * R;
  st.phi = std::max(st.phi, std::abs(r.phi - phi_ref));
  st.dist = std::max(st.dist, std::abs(r.core_distance - ref.dist));
  EXPECT_NEAR(r.phi, phi_ref, kTol) << what;
  EXPECT_NEAR(r.core_distance, ref.dist, kTol) << what;
  EXPECT_NEAR(r.signed_distance, ref.dist - R, kTol) << what;
  // The witness points lie on the cores and realize the distance.
  const double feas = std::max(off_core(s1, X1, r.p1_W), off_core(s2, X2, r.p2_W));
  st.feas = std::max(st.feas, feas);
  EXPECT_LE(feas, kTol) << what;
  EXPECT_NEAR((r.p1_W - r.p2_W).norm(), r.core_distance, 1e-12) << what;
  EXPECT_LE((X1 * r.p1_B1 - r.p1_W).norm(), 1e-12) << what;
  EXPECT_LE((X2 * r.p2_B2 - r.p2_W).norm(), 1e-12) << what;
  // Closest points on the padded surfaces: closest2 − closest1 = signed distance · normal.
  if (!r.cores_touch) {
    EXPECT_NEAR(r.normal_W.norm(), 1.0, 1e-12) << what;
    EXPECT_LE((r.closest2_W - r.closest1_W - r.signed_distance * r.normal_W).norm(), 1e-12) << what;
  } else {
    ++st.touching;
    EXPECT_EQ(r.normal_W.norm(), 0.0) << what;
  }
  if (r.unique_minimizer) {
    ++st.unique;
    const double e = std::max((r.p1_W - ref.a).norm(), (r.p2_W - ref.b).norm());
    st.points = std::max(st.points, e);
    EXPECT_LE(e, kTol) << what << " p1 " << r.p1_W.transpose() << " ref " << ref.a.transpose() << " p2 "
                       << r.p2_W.transpose() << " ref " << ref.b.transpose();
    if (ref.dist > 1e-6 && !r.cores_touch) {
      const Vec3 n = (ref.b - ref.a) / ref.dist;
      const double ec = std::max((r.closest1_W - (ref.a + s1.radius() * n)).norm(),
                                 (r.closest2_W - (ref.b - s2.radius() * n)).norm());
      st.closest = std::max(st.closest, ec);
      EXPECT_LE(ec, kTol) << what;
    }
  } else {
    ++st.non_unique;
  }
  // Brute force.
  const double bf = brute_distance(b1, b2);
  EXPECT_GE(bf, r.core_distance - 1e-12) << what;
  EXPECT_LE(bf - r.core_distance, b1.resolution + b2.resolution + 1e-12) << what;
  if (b1.resolution + b2.resolution > 0)
    st.brute_gap = std::max(st.brute_gap, (bf - r.core_distance) / (b1.resolution + b2.resolution));
}

// =========================================================================== the tests

TEST(QpProximity, CapsuleCapsuleAgainstReferenceAndBruteForce) {
  std::mt19937 rng(101);
  std::uniform_real_distribution<double> U(-1.0, 1.0), T(0.0, 1.0);
  const long n = pose_count();
  Stats st;
  const char* names[] = {"general", "parallel", "intersecting", "zero_length", "near_parallel"};
  for (long k = 0; k < n; ++k) {
    const int cat = int(k % 5);
    const Capsule c1 = random_capsule(rng, cat == 3 && k % 2 == 0);
    const Capsule c2 = random_capsule(rng, cat == 3);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    Pose X2 = make_pose(random_rotation(rng), 2.0 * Vec3(U(rng), U(rng), U(rng)));
    if (cat == 1 || cat == 4) {
      // Same core direction: same rotation (or flipped about body z, exactly), same end-point form.
      const Capsule a(1.0 + T(rng), 0.2), b(T(rng) < 0.5 ? 1.0 : 0.5 + T(rng), 0.3);
      Mat3 R2 = X1.R;
      if (rng() % 2) R2 = X1.R * Eigen::Vector3d(-1, -1, 1).asDiagonal();
      if (cat == 4) R2 = R2 * Eigen::AngleAxisd(1e-7 * (1 + T(rng)), random_unit(rng)).toRotationMatrix();
      // Offsets: mostly overlapping side by side, sometimes collinear or end to end.
      const Vec3 off = X1.R * Vec3(2.0 * U(rng), rng() % 4 == 0 ? 0.0 : U(rng), rng() % 4 == 0 ? 0.0 : U(rng));
      X2 = make_pose(R2, X1.p + off);
      const std::string what = std::string(names[cat]) + " #" + std::to_string(k);
      compare(a, X1, b, X2, segment_segment(X1 * a.a_B(), X1 * a.b_B(), X2 * b.a_B(), X2 * b.b_B(), true),
              sample_capsule(a, X1), sample_capsule(b, X2), what, st);
      continue;
    }
    if (cat == 2) {  // segment 2 through a point of segment 1
      const Vec3 q = X1 * c1.core_point_B(T(rng));
      X2.p = q - X2.R * c2.core_point_B(T(rng));
    }
    const std::string what = std::string(names[cat]) + " #" + std::to_string(k);
    compare(c1, X1, c2, X2, segment_segment(X1 * c1.a_B(), X1 * c1.b_B(), X2 * c2.a_B(), X2 * c2.b_B(), true),
            sample_capsule(c1, X1), sample_capsule(c2, X2), what, st);
    if (::testing::Test::HasFailure()) break;
  }
  st.print("capsule-capsule");
  EXPECT_GT(st.unique, n / 2);
  EXPECT_GT(st.non_unique, n / 50);  // the parallel category produces overlapping pairs
  EXPECT_GT(st.touching, n / 10);    // the intersecting category
}

TEST(QpProximity, PolygonPolygonAgainstReferenceAndBruteForce) {
  std::mt19937 rng(202);
  std::uniform_real_distribution<double> U(-1.0, 1.0), T(0.0, 1.0);
  const long n = pose_count();
  Stats st;
  const char* names[] = {"general", "coplanar", "parallel_planes", "intersecting"};
  for (long k = 0; k < n; ++k) {
    const int cat = int(k % 4);
    const PaddedPolygon s1 = random_polygon(rng), s2 = random_polygon(rng);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    Pose X2 = make_pose(random_rotation(rng), 2.5 * Vec3(U(rng), U(rng), U(rng)));
    if (cat == 1 || cat == 2) {
      const double dz = cat == 1 ? 0.0 : 0.5 * U(rng);
      X2 = make_pose(X1.R * rot_z(M_PI * U(rng)), X1 * Vec3(2.5 * U(rng), 2.5 * U(rng), dz));
    } else if (cat == 3) {
      const auto& V = s1.vertices();
      const Vec2 y = (V[0] + V[1] + V[2]) / 3.0;  // inside polygon 1
      const auto& W = s2.vertices();
      const Vec2 z = (W[0] + W[1] + W[2]) / 3.0;  // inside polygon 2
      X2.p = X1 * Vec3(y.x(), y.y(), 0.0) - X2.R * Vec3(z.x(), z.y(), 0.0);
    }
    const std::string what = std::string(names[cat]) + " #" + std::to_string(k);
    compare(s1, X1, s2, X2, polygon_polygon(world_polygon(s1, X1), world_polygon(s2, X2)), sample_polygon(s1, X1),
            sample_polygon(s2, X2), what, st);
    if (::testing::Test::HasFailure()) break;
  }
  st.print("polygon-polygon");
  EXPECT_GT(st.unique, n / 2);
  EXPECT_GT(st.touching, n / 10);
}

TEST(QpProximity, CapsulePolygonAgainstReferenceAndBruteForce) {
  std::mt19937 rng(303);
  std::uniform_real_distribution<double> U(-1.0, 1.0), T(0.0, 1.0);
  const long n = pose_count();
  Stats st, st_swapped;
  const char* names[] = {"general", "segment_parallel_to_plane", "segment_in_plane", "crossing", "zero_length"};
  for (long k = 0; k < n; ++k) {
    const int cat = int(k % 5);
    const Capsule c1 = random_capsule(rng, cat == 4);
    const PaddedPolygon s2 = random_polygon(rng);
    Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    const Pose X2 = make_pose(random_rotation(rng), 2.0 * Vec3(U(rng), U(rng), U(rng)));
    if (cat == 1 || cat == 2) {
      // Core direction in the polygon's plane: body x of the capsule → a direction in plane 2.
      const Capsule a(0.5 + T(rng), 0.2);
      const Mat3 R1 = X2.R * rot_z(M_PI * U(rng));
      const double dz = cat == 2 ? 0.0 : U(rng);
      X1 = make_pose(R1, X2 * Vec3(1.5 * U(rng), 1.5 * U(rng), dz));
      const std::string what = std::string(names[cat]) + " #" + std::to_string(k);
      const WorldPolygon P = world_polygon(s2, X2);
      compare(a, X1, s2, X2, segment_polygon(X1 * a.a_B(), X1 * a.b_B(), P), sample_capsule(a, X1),
              sample_polygon(s2, X2), what, st);
      continue;
    }
    if (cat == 3) {  // the core passes through an interior point of the polygon
      const auto& W = s2.vertices();
      const Vec2 z = (W[0] + W[1] + W[2]) / 3.0;
      X1.p = X2 * Vec3(z.x(), z.y(), 0.0) - X1.R * c1.core_point_B(T(rng));
    }
    const std::string what = std::string(names[cat]) + " #" + std::to_string(k);
    const WorldPolygon P = world_polygon(s2, X2);
    const PointPair ref = segment_polygon(X1 * c1.a_B(), X1 * c1.b_B(), P);
    const Samples sc = sample_capsule(c1, X1), sp = sample_polygon(s2, X2);
    compare(c1, X1, s2, X2, ref, sc, sp, what, st);
    // Polygon–capsule: the same pair with the roles swapped.
    if (k % 10 == 0) compare(s2, X2, c1, X1, swapped(ref), sp, sc, what + " (swapped)", st_swapped);
    if (::testing::Test::HasFailure()) break;
  }
  st.print("capsule-polygon");
  st_swapped.print("polygon-capsule");
  EXPECT_GT(st.unique, n / 2);
  EXPECT_GT(st.touching, n / 10);
}

TEST(QpProximity, SolverChoiceForCapsules) {
  // The interior-point path gives the same proximity as the active set.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  ProximityOptions ip;
  ip.capsule_solver = CapsuleSolver::interior_point;
  for (int k = 0; k < 500; ++k) {
    const Capsule c1 = random_capsule(rng), c2 = random_capsule(rng);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    const Pose X2 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    const auto a = proximity(c1, X1, c2, X2);
    const auto b = proximity(c1, X1, c2, X2, ip);
    ASSERT_TRUE(b.ok());
    EXPECT_TRUE(b.qp.interior_point && !a.qp.interior_point);
    EXPECT_NEAR(a.phi, b.phi, 1e-12);
    if (a.unique_minimizer) {
      EXPECT_LE((a.p1_W - b.p1_W).norm() + (a.p2_W - b.p2_W).norm(), 1e-9);
    }
  }
}

TEST(QpProximity, InvalidPoseGivesStatusNotNaN) {
  const Capsule c(1.0, 0.1);
  const PaddedPolygon p = PaddedPolygon::rectangle(1.0, 0.5, 0.1);
  Pose bad;
  bad.p.x() = kNaN;
  for (const ProximityResult& r : {proximity(c, bad, c, Pose()), proximity(p, Pose(), p, bad),
                                   proximity(c, Pose(), p, bad), proximity(p, bad, c, Pose())}) {
    EXPECT_EQ(r.status, ProximityStatus::invalid_input);
    EXPECT_TRUE(std::isfinite(r.phi) && r.p1_W.allFinite() && r.closest2_W.allFinite() && r.normal_W.allFinite());
  }
  EXPECT_STREQ(status_name(ProximityStatus::invalid_input), "invalid_input");
}

TEST(QpProximity, FarApartPosesGiveStatusNotOverflow) {
  // Positions beyond kMaxLength (1e100) are rejected like a non-finite pose (Pose::invalid_reason,
  // as in every layer), while two bodies both far from the world origin within it are fine.
  const Capsule c(1.0, 0.1);
  const PaddedPolygon p = PaddedPolygon::rectangle(1.0, 0.5, 0.1);
  Pose far;
  far.p.z() = 1e300;
  for (const ProximityResult& r : {proximity(c, far, c, Pose()), proximity(p, Pose(), p, far),
                                   proximity(c, Pose(), p, far), proximity(p, far, c, Pose())}) {
    EXPECT_EQ(r.status, ProximityStatus::invalid_input);
    EXPECT_TRUE(std::isfinite(r.phi) && r.p1_W.allFinite() && r.closest2_W.allFinite() && r.normal_W.allFinite());
  }
  Pose far1, far2;
  far1.p.z() = far2.p.z() = 9e99;
  far2.p.x() = 3.0;
  const ProximityResult both = proximity(c, far1, c, far2);
  EXPECT_TRUE(both.ok());
  EXPECT_TRUE(std::isfinite(both.signed_distance));
  ProximityGradient g;
  proximity_gradient(c, far, c, Pose(), g);
  EXPECT_EQ(g.status, ProximityStatus::invalid_input);
  EXPECT_TRUE(std::isfinite(g.phi) && g.J_phi_X1.allFinite());
}

TEST(QpProximity, InvalidOptionsAreRejected) {
  // validate() names the field; the queries return status invalid_input (finite fields) instead.
  const Capsule c(1.0, 0.1);
  const PaddedPolygon p = PaddedPolygon::rectangle(1.0, 0.5, 0.1);
  EXPECT_NO_THROW(ProximityOptions{}.validate());
  auto expect_rejected = [&](const ProximityOptions& o, const char* field) {
    diffcol::test::expect_invalid_field(o, field);
    Pose X2;
    X2.p = Vec3(0.2, 0.1, 1.5);
    for (const ProximityResult& r : {proximity(c, Pose(), c, X2, o), proximity(p, Pose(), p, X2, o),
                                     proximity(c, Pose(), p, X2, o), proximity(p, Pose(), c, X2, o)}) {
      EXPECT_EQ(r.status, ProximityStatus::invalid_input) << field;
      EXPECT_TRUE(std::isfinite(r.phi) && r.p1_W.allFinite()) << field;
    }
  };
  ProximityOptions o;
  o.qp.tolerance = kNaN;
  expect_rejected(o, "tolerance");
  o = {};
  o.qp.max_iterations = 0;
  expect_rejected(o, "max_iterations");
  o = {};
  o.qp.step_fraction = 1.5;
  expect_rejected(o, "step_fraction");
  o = {};
  o.qp.centrality = 1.0;
  expect_rejected(o, "centrality");
  o = {};
  o.qp.singular_tolerance = -1.0;
  expect_rejected(o, "singular_tolerance");
  o = {};
  o.core_contact_tolerance = kInf;
  expect_rejected(o, "core_contact_tolerance");
  // tolerances outside their ranges ([1e-14, 1e-3]; [0, 1e-3] for the thresholds)
  for (double bad_tolerance : {1e300, 1e-2, 1e-15}) {
    o = {};
    o.qp.tolerance = bad_tolerance;
    expect_rejected(o, "tolerance");
  }
  o = {};
  o.qp.singular_tolerance = 0.5;
  expect_rejected(o, "singular_tolerance");
  o = {};
  o.core_contact_tolerance = 0.1;
  expect_rejected(o, "core_contact_tolerance");
  o = {};
  o.qp.tolerance = 1e-3;
  o.qp.singular_tolerance = 1e-3;
  o.core_contact_tolerance = 1e-3;
  EXPECT_NO_THROW(o.validate());
  o.qp.tolerance = 1e-14;
  EXPECT_NO_THROW(o.validate());
}

TEST(QpProximity, SimpleClosedForms) {
  // Two parallel unit rectangles 2 apart along z: φ = 4 − (R1 + R2)², normal +z.
  const PaddedPolygon sq = PaddedPolygon::rectangle(0.5, 0.5, 0.25);
  Pose X2;
  X2.p = Vec3(0.3, -0.2, 2.0);
  const auto r = proximity(sq, Pose(), sq, X2);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r.phi, 4.0 - 0.25, 1e-12);
  EXPECT_NEAR(r.signed_distance, 1.5, 1e-12);
  EXPECT_LE((r.normal_W - Vec3::UnitZ()).norm(), 1e-12);
  EXPECT_FALSE(r.unique_minimizer);  // overlapping parallel faces
  EXPECT_NEAR(r.closest1_W.z(), 0.25, 1e-12);
  EXPECT_NEAR(r.closest2_W.z(), 1.75, 1e-12);
  // Crossed capsules (x axis and y axis, 1 apart in z): witness points at the crossing.
  const Capsule c(2.0, 0.1);
  Pose Y;
  Y.R = Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()).toRotationMatrix();
  Y.p = Vec3(0.25, 0.5, 1.0);
  const auto s = proximity(c, Pose(), c, Y);
  EXPECT_NEAR(s.core_distance, 1.0, 1e-14);
  EXPECT_LE((s.p1_W - Vec3(0.25, 0, 0)).norm(), 1e-14);
  EXPECT_LE((s.p2_W - Vec3(0.25, 0, 1)).norm(), 1e-14);
  EXPECT_TRUE(s.unique_minimizer);
}

TEST(QpShapes, ValidationThrowsClearErrors) {
  EXPECT_THROW(Capsule(-1.0, 0.1), std::invalid_argument);
  EXPECT_THROW(Capsule(1.0, -0.1), std::invalid_argument);
  EXPECT_THROW(Capsule(kNaN, 0.1), std::invalid_argument);
  EXPECT_THROW(Capsule::from_end_points(Vec3(kInf, 0, 0), Vec3::Zero(), 0.1), std::invalid_argument);
  EXPECT_NO_THROW(Capsule(0.0, 0.0));
  // sizes whose squares would overflow in the QPs (a 1e155 capsule used to report ok with φ = inf)
  EXPECT_THROW(Capsule(1e155, 0.2), std::invalid_argument);
  EXPECT_THROW(Capsule(1.0, 1e151), std::invalid_argument);
  EXPECT_THROW(Capsule::from_end_points(Vec3(0, 2e150, 0), Vec3::Zero(), 0.1), std::invalid_argument);
  EXPECT_NO_THROW(Capsule(kMaxShapeCoordinate, kMaxShapeCoordinate));
  Eigen::MatrixX2d C(3, 2);
  C << 1, 0, 0, 1, -1, -1;
  Eigen::VectorXd d(3);
  d << 1, 1, 1;
  EXPECT_NO_THROW(PaddedPolygon(C, d, 0.1));
  EXPECT_THROW(PaddedPolygon(C, Eigen::VectorXd::Ones(2), 0.1), std::invalid_argument);  // size mismatch
  Eigen::MatrixX2d Cu(3, 2);
  Cu << 1, 0, 0, 1, 1, 1;  // unbounded
  EXPECT_THROW(PaddedPolygon(Cu, d, 0.1), std::invalid_argument);
  Eigen::VectorXd de(3);
  de << -1, -1, -1;  // empty
  EXPECT_THROW(PaddedPolygon(C, de, 0.1), std::invalid_argument);
  Eigen::VectorXd dz(3);
  dz << 0, 0, 0;  // a single point: zero area
  EXPECT_THROW(PaddedPolygon(C, dz, 0.1), std::invalid_argument);
  EXPECT_THROW(PaddedPolygon(C, d, -0.1), std::invalid_argument);
  EXPECT_THROW(PaddedPolygon(C, d, 1e151), std::invalid_argument);
  EXPECT_THROW(PaddedPolygon(C, 1e155 * d, 0.1), std::invalid_argument);
  Eigen::MatrixX2d Cz = C;
  Cz.row(1).setZero();
  EXPECT_THROW(PaddedPolygon(Cz, d, 0.1), std::invalid_argument);
  Eigen::MatrixX2d Cn = C;
  Cn(0, 0) = kNaN;
  EXPECT_THROW(PaddedPolygon(Cn, d, 0.1), std::invalid_argument);
  EXPECT_THROW(PaddedPolygon(Eigen::MatrixX2d::Ones(kMaxPolygonEdges + 1, 2), Eigen::VectorXd::Ones(kMaxPolygonEdges + 1), 0.1),
               std::invalid_argument);
  EXPECT_THROW(PaddedPolygon::from_vertices({Vec2(0, 0), Vec2(0, 1), Vec2(1, 0)}, 0.1), std::invalid_argument);  // clockwise
  EXPECT_THROW(PaddedPolygon::rectangle(0.0, 1.0, 0.1), std::invalid_argument);
  try {
    PaddedPolygon(Cu, d, 0.1);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unbounded"), std::string::npos);
  }
  // Vertices of the triangle x ≤ 1, y ≤ 1, x + y ≥ −1: (1, 1), (−2, 1), (1, −2).
  const PaddedPolygon t(C, d, 0.1);
  ASSERT_EQ(t.vertices().size(), 3u);
  double sx = 0, sy = 0;
  for (const auto& v : t.vertices()) sx += v.x(), sy += v.y();
  EXPECT_NEAR(sx, 0.0, 1e-12);
  EXPECT_NEAR(sy, 0.0, 1e-12);
}

}  // namespace
