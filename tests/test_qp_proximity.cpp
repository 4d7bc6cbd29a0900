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

#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"

#include "test_util.hpp"

namespace {

using namespace diffcol::qp;
using diffcol::DerivativeStatus;
using diffcol::SolveStatus;
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
  return Capsule(R(rng), zero_length ? 0.0 : L(rng));
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

// s(n) = min over core 2 of n·b − max over core 1 of n·a from the world vertices (independent of
// the solver): a lower bound of the core distance for every unit n.
std::vector<Vec3> core_points(const Capsule& c, const Pose& X) { return {X * c.a_B(), X * c.b_B()}; }
std::vector<Vec3> core_points(const PaddedPolygon& p, const Pose& X) { return world_polygon(p, X).V; }
template <class S1, class S2>
double axis_separation(const S1& s1, const Pose& X1, const S2& s2, const Pose& X2, const Vec3& n) {
  double lo = kInf, hi = -kInf;
  for (const Vec3& b : core_points(s2, X2)) lo = std::min(lo, n.dot(b));
  for (const Vec3& a : core_points(s1, X1)) hi = std::max(hi, n.dot(a));
  return lo - hi;
}

template <class S1, class S2>
void compare(const S1& s1, const Pose& X1, const S2& s2, const Pose& X2, const PointPair& ref, const Samples& b1,
             const Samples& b2, const std::string& what, Stats& st) {
  const ProximityResult r = proximity(s1, X1, s2, X2);
  ++st.n;
  ASSERT_EQ(r.status, SolveStatus::ok) << what << " (" << r.qp.iterations << " iterations)";
  const double R = s1.radius() + s2.radius();
  const double phi_ref = ref.dist * ref.dist - R * R;
  st.phi = std::max(st.phi, std::abs(r.phi - phi_ref));
  st.dist = std::max(st.dist, std::abs(r.core_distance - ref.dist));
  EXPECT_NEAR(r.phi, phi_ref, kTol) << what;
  EXPECT_NEAR(r.core_distance, ref.dist, kTol) << what;
  EXPECT_LE(r.core_distance_lower_bound, r.core_distance) << what;
  EXPECT_GE(r.core_distance_lower_bound, ref.dist - kTol * (1.0 + ref.dist)) << what;
  if constexpr (!(std::is_same_v<S1, Capsule> && std::is_same_v<S2, Capsule>)) {
    ProximityResult q = r;  // every ok answer passes the certificate as returned
    EXPECT_TRUE(certify(s1, X1, s2, X2, q)) << what;
  }
  if (r.penetration) {  // overlapping cores: the signed core distance of the best separating axis
    ++st.touching;
    EXPECT_TRUE(r.cores_touch) << what;
    const double s = r.signed_distance + R;
    EXPECT_LE(s, 0.0) << what;
    EXPECT_LE(std::max(off_core(s1, X1, r.core1_W), off_core(s2, X2, r.core2_W)), kTol) << what;
    EXPECT_NEAR(r.normal_W.norm(), 1.0, 1e-12) << what;
    EXPECT_LE((r.core2_W - r.core1_W - s * r.normal_W).norm(), kTol) << what;
    EXPECT_LE(axis_separation(s1, X1, s2, X2, r.normal_W), s + kTol) << what;
    EXPECT_GE(axis_separation(s1, X1, s2, X2, r.normal_W), s - kTol) << what;
    // No sampled direction separates the cores better (s is the max over unit n of s(n)).
    std::mt19937 rng(7);
    for (int k = 0; k < 300; ++k)
      EXPECT_LE(axis_separation(s1, X1, s2, X2, diffcol::test::random_unit(rng)), s + 1e-12) << what;
    return;
  }
  EXPECT_NEAR(r.signed_distance, ref.dist - R, kTol) << what;
  // The witness points lie on the cores and realize the distance.
  const double feas = std::max(off_core(s1, X1, r.core1_W), off_core(s2, X2, r.core2_W));
  st.feas = std::max(st.feas, feas);
  EXPECT_LE(feas, kTol) << what;
  EXPECT_NEAR((r.core1_W - r.core2_W).norm(), r.core_distance, 1e-12) << what;
  EXPECT_LE((X1 * r.core1_B1 - r.core1_W).norm(), 1e-12) << what;
  EXPECT_LE((X2 * r.core2_B2 - r.core2_W).norm(), 1e-12) << what;
  // Closest points on the padded surfaces: closest2 − closest1 = signed distance · normal.
  if (!r.cores_touch) {
    EXPECT_NEAR(r.normal_W.norm(), 1.0, 1e-12) << what;
    EXPECT_LE((r.p2_W - r.p1_W - r.signed_distance * r.normal_W).norm(), 1e-12) << what;
  } else {
    ++st.touching;
    // Capsules with crossing axes report the one-sided normal ±(u1 × u2)/‖u1 × u2‖; others none.
    if (r.normal_W.norm() > 0.0) {
      EXPECT_NEAR(r.normal_W.norm(), 1.0, 1e-12) << what;
      if constexpr (std::is_same_v<S1, Capsule> && std::is_same_v<S2, Capsule>) {
        EXPECT_LE(std::abs(r.normal_W.dot(X1.R * (s1.a_B() - s1.b_B()))), 1e-9 * (1.0 + s1.length())) << what;
        EXPECT_LE(std::abs(r.normal_W.dot(X2.R * (s2.a_B() - s2.b_B()))), 1e-9 * (1.0 + s2.length())) << what;
      }
    }
  }
  if (r.unique_minimizer) {
    ++st.unique;
    const double e = std::max((r.core1_W - ref.a).norm(), (r.core2_W - ref.b).norm());
    st.points = std::max(st.points, e);
    EXPECT_LE(e, kTol) << what << " p1 " << r.core1_W.transpose() << " ref " << ref.a.transpose() << " p2 "
                       << r.core2_W.transpose() << " ref " << ref.b.transpose();
    if (ref.dist > 1e-6 && !r.cores_touch) {
      const Vec3 n = (ref.b - ref.a) / ref.dist;
      const double ec = std::max((r.p1_W - (ref.a + s1.radius() * n)).norm(),
                                 (r.p2_W - (ref.b - s2.radius() * n)).norm());
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
      const Capsule a(0.2, 1.0 + T(rng)), b(0.3, T(rng) < 0.5 ? 1.0 : 0.5 + T(rng));
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
      const Capsule a(0.2, 0.5 + T(rng));
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
      EXPECT_LE((a.core1_W - b.core1_W).norm() + (a.core2_W - b.core2_W).norm(), 1e-9);
    }
  }
}

TEST(QpProximity, InvalidPoseGivesStatusNotNaN) {
  const Capsule c(0.1, 1.0);
  const PaddedPolygon p = PaddedPolygon::rectangle(1.0, 0.5, 0.1);
  Pose bad;
  bad.p.x() = kNaN;
  for (const ProximityResult& r : {proximity(c, bad, c, Pose()), proximity(p, Pose(), p, bad),
                                   proximity(c, Pose(), p, bad), proximity(p, bad, c, Pose())}) {
    EXPECT_EQ(r.status, SolveStatus::invalid_input);
    EXPECT_TRUE(std::isfinite(r.phi) && r.core1_W.allFinite() && r.p2_W.allFinite() && r.normal_W.allFinite());
  }
  EXPECT_STREQ(status_name(SolveStatus::invalid_input), "invalid_input");
}

TEST(QpProximity, FarApartPosesGiveStatusNotOverflow) {
  // Positions beyond kMaxLength (1e100) are rejected like a non-finite pose (Pose::invalid_reason,
  // as in every layer), while two bodies both far from the world origin within it are fine.
  const Capsule c(0.1, 1.0);
  const PaddedPolygon p = PaddedPolygon::rectangle(1.0, 0.5, 0.1);
  Pose far;
  far.p.z() = 1e300;
  for (const ProximityResult& r : {proximity(c, far, c, Pose()), proximity(p, Pose(), p, far),
                                   proximity(c, Pose(), p, far), proximity(p, far, c, Pose())}) {
    EXPECT_EQ(r.status, SolveStatus::invalid_input);
    EXPECT_TRUE(std::isfinite(r.phi) && r.core1_W.allFinite() && r.p2_W.allFinite() && r.normal_W.allFinite());
  }
  Pose far1, far2;
  far1.p.z() = far2.p.z() = 9e99;
  far2.p.x() = 3.0;
  const ProximityResult both = proximity(c, far1, c, far2);
  EXPECT_TRUE(both.ok());
  EXPECT_TRUE(std::isfinite(both.signed_distance));
  ProximityGradient g;
  proximity_gradient(c, far, c, Pose(), g);
  EXPECT_EQ(g.status, SolveStatus::invalid_input);
  EXPECT_TRUE(std::isfinite(g.phi) && g.J_phi_X1.allFinite());
}

TEST(QpProximity, InvalidOptionsAreRejected) {
  // validate() names the field; the queries return status invalid_input (finite fields) instead.
  const Capsule c(0.1, 1.0);
  const PaddedPolygon p = PaddedPolygon::rectangle(1.0, 0.5, 0.1);
  EXPECT_NO_THROW(ProximityOptions{}.validate());
  auto expect_rejected = [&](const ProximityOptions& o, const char* field) {
    diffcol::test::expect_invalid_field(o, field);
    Pose X2;
    X2.p = Vec3(0.2, 0.1, 1.5);
    for (const ProximityResult& r : {proximity(c, Pose(), c, X2, o), proximity(p, Pose(), p, X2, o),
                                     proximity(c, Pose(), p, X2, o), proximity(p, Pose(), c, X2, o)}) {
      EXPECT_EQ(r.status, SolveStatus::invalid_input) << field;
      EXPECT_TRUE(std::isfinite(r.phi) && r.core1_W.allFinite()) << field;
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
  o = {};
  o.certificate_tolerance = 1e-2;
  expect_rejected(o, "certificate_tolerance");
  o.certificate_tolerance = kNaN;
  expect_rejected(o, "certificate_tolerance");
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
  EXPECT_NEAR(r.p1_W.z(), 0.25, 1e-12);
  EXPECT_NEAR(r.p2_W.z(), 1.75, 1e-12);
  // Crossed capsules (x axis and y axis, 1 apart in z): witness points at the crossing.
  const Capsule c(0.1, 2.0);
  Pose Y;
  Y.R = Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()).toRotationMatrix();
  Y.p = Vec3(0.25, 0.5, 1.0);
  const auto s = proximity(c, Pose(), c, Y);
  EXPECT_NEAR(s.core_distance, 1.0, 1e-14);
  EXPECT_LE((s.core1_W - Vec3(0.25, 0, 0)).norm(), 1e-14);
  EXPECT_LE((s.core2_W - Vec3(0.25, 0, 1)).norm(), 1e-14);
  EXPECT_TRUE(s.unique_minimizer);
}

TEST(QpShapes, ValidationThrowsClearErrors) {
  EXPECT_THROW(Capsule(0.1, -1.0), std::invalid_argument);
  EXPECT_THROW(Capsule(-0.1, 1.0), std::invalid_argument);
  EXPECT_THROW(Capsule(0.1, kNaN), std::invalid_argument);
  EXPECT_THROW(Capsule::from_end_points(Vec3(kInf, 0, 0), Vec3::Zero(), 0.1), std::invalid_argument);
  EXPECT_NO_THROW(Capsule(0.0, 0.0));
  // sizes whose squares would overflow in the QPs (a 1e155 capsule used to report ok with φ = inf)
  EXPECT_THROW(Capsule(0.2, 1e155), std::invalid_argument);
  EXPECT_THROW(Capsule(1e151, 1.0), std::invalid_argument);
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

// ===================================================== unit-free, certified polygon-pair answers

Capsule scaled(const Capsule& c, double f) { return Capsule::from_end_points(f * c.a_B(), f * c.b_B(), f * c.radius()); }
PaddedPolygon scaled(const PaddedPolygon& p, double f) {
  Eigen::MatrixX2d C(p.num_constraints(), 2);
  Eigen::VectorXd d(p.num_constraints());
  for (int i = 0; i < p.num_constraints(); ++i) {
    C.row(i) = p.normal(i).transpose();
    d(i) = f * p.offset(i);
  }
  return PaddedPolygon(C, d, f * p.radius());
}
Pose scaled(const Pose& X, double f) { return make_pose(X.R, f * X.p); }
double size_of(const Capsule& c) { return std::max(c.a_B().norm(), c.b_B().norm()); }
double size_of(const PaddedPolygon& p) { return p.core_radius(); }

struct ScaleStats {
  long scenes = 0, penetrating = 0;
  double scale = 0, ref = 0, feas = 0;
};

// The scene at unit scale against the reference, then at scales 1e-6 … 1e6: every answer ok,
// certified, the same as at unit scale scaled (≤ 1e-10 relative to the pair's size + distance),
// witness points in their cores, distance within 1e-9 of the reference scaled.
template <class S1, class S2>
void check_scales(const S1& s1, const Pose& X1, const S2& s2, const Pose& X2, double ref_dist, const std::string& what,
                  ScaleStats& st) {
  const ProximityResult r1 = proximity(s1, X1, s2, X2);
  ASSERT_EQ(r1.status, SolveStatus::ok) << what << ": distance " << r1.core_distance << ", certified lower bound "
                                            << r1.core_distance_lower_bound << ", unit " << r1.length_unit;
  ++st.scenes;
  st.penetrating += r1.penetration;
  const double size = size_of(s1) + size_of(s2);
  const double unit = size + r1.core_distance;
  st.ref = std::max(st.ref, std::abs(r1.core_distance - ref_dist) / unit);
  EXPECT_LE(std::abs(r1.core_distance - ref_dist), 1e-9 * unit) << what;
  // Symmetry (shapes swapped) and world-frame invariance (both poses moved by one rigid motion).
  const ProximityResult rs = proximity(s2, X2, s1, X1);
  ASSERT_EQ(rs.status, SolveStatus::ok) << what << " (swapped)";
  EXPECT_LE(std::abs(rs.core_distance - r1.core_distance), 1e-10 * unit) << what << " (swapped)";
  EXPECT_LE(std::abs(rs.signed_distance - r1.signed_distance), 1e-10 * unit) << what << " (swapped)";
  std::mt19937 wrng(static_cast<unsigned>(st.scenes));
  const Pose W = make_pose(random_rotation(wrng), 5.0 * random_unit(wrng));
  const ProximityResult rw = proximity(s1, W * X1, s2, W * X2);
  ASSERT_EQ(rw.status, SolveStatus::ok) << what << " (world frame)";
  EXPECT_LE(std::abs(rw.core_distance - r1.core_distance), 1e-10 * unit) << what << " (world frame)";
  EXPECT_LE(std::abs(rw.signed_distance - r1.signed_distance), 1e-10 * unit) << what << " (world frame)";
  if (r1.unique_minimizer && rw.unique_minimizer && (rw.normal_W - W.R * r1.normal_W).norm() < 1e-6) {
    EXPECT_LE((rw.core1_W - W * r1.core1_W).norm() + (rw.core2_W - W * r1.core2_W).norm(), 1e-9 * unit) << what << " (world frame)";
  }
  for (const double f : {1e-6, 3.7e-5, 1e-4, 1e-2, 1e2, 1e4, 1e6}) {
    const S1 a = scaled(s1, f);
    const S2 b = scaled(s2, f);
    const Pose Y1 = scaled(X1, f), Y2 = scaled(X2, f);
    const ProximityResult r = proximity(a, Y1, b, Y2);
    ASSERT_EQ(r.status, SolveStatus::ok) << what << " at scale " << f;
    // Overlapping cores with two axes of equal depth (a kink of the signed distance): either
    // is right; both must realize the signed core distance.
    const double s1d = r1.signed_distance + s1.radius() + s2.radius();
    if (r1.penetration && (r.normal_W - r1.normal_W).norm() > 1e-6 &&
        std::abs(axis_separation(s1, X1, s2, X2, r.normal_W) - s1d) <= 1e-10 * unit) {
      EXPECT_LE(std::abs(r.signed_distance / f - r1.signed_distance), 1e-10 * unit) << what << " at scale " << f;
      continue;
    }
    const double e = std::max({std::abs(r.core_distance / f - r1.core_distance),
                               std::abs(r.signed_distance / f - r1.signed_distance), (r.core1_W / f - r1.core1_W).norm(),
                               (r.core2_W / f - r1.core2_W).norm()}) /
                     unit;
    st.scale = std::max(st.scale, e);
    EXPECT_LE(e, 1e-10) << what << " at scale " << f;
    // The normal of nearly touching cores is only defined to ~ε·size/distance (rounding of the
    // scaled inputs alone moves it that much); the closest points carry R·(its error).
    const double gap = r1.penetration ? size : std::max(r1.core_distance, 1e-300);
    const double n_tol = 1e-10 + 1e-13 * size / gap;
    EXPECT_LE((r.normal_W - r1.normal_W).norm(), n_tol)
        << what << " at scale " << f << ": " << r.normal_W.transpose() << " / " << r1.normal_W.transpose() << ", s "
        << r.signed_distance / f << " / " << r1.signed_distance;
    const double R = s1.radius() + s2.radius();
    EXPECT_LE(std::max((r.p1_W / f - r1.p1_W).norm(), (r.p2_W / f - r1.p2_W).norm()),
              1e-10 * unit + R * n_tol)
        << what << " at scale " << f;
    EXPECT_EQ(r.penetration, r1.penetration) << what << " at scale " << f;
    EXPECT_LE(std::abs(r.core_distance - f * ref_dist), 1e-9 * f * unit) << what << " at scale " << f;
    // Derivatives scale by homogeneity: ∂/∂v unchanged, ∂/∂ω × f (signed distance, p1).
    const ProximityDerivatives d1 = proximity_derivatives(s1, X1, s2, X2, r1);
    if (d1.status == DerivativeStatus::ok && (r1.penetration || r1.core_distance > 1e-4 * size)) {
      const ProximityDerivatives d = proximity_derivatives(a, Y1, b, Y2, r);
      ASSERT_EQ(d.status, DerivativeStatus::ok) << what << " at scale " << f;
      Eigen::Matrix<double, 4, 12> J, Jf;
      J << d1.J_signed_distance_X1, d1.J_signed_distance_X2, d1.J_core1_W_X1, d1.J_core1_W_X2;
      Jf << d.J_signed_distance_X1, d.J_signed_distance_X2, d.J_core1_W_X1, d.J_core1_W_X2;
      for (const int c : {0, 1, 2, 6, 7, 8}) Jf.col(c) /= f;
      EXPECT_LE((Jf - J).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + J.cwiseAbs().maxCoeff())) << what << " at scale " << f;
    }
    // In the body frames: world coordinates 10⁷ sizes away carry ε·10⁷ of rounding themselves.
    const double feas = std::max(off_core(a, Pose(), r.core1_B1), off_core(b, Pose(), r.core2_B2)) / (f * size);
    EXPECT_LE((Y1 * r.core1_B1 - r.core1_W).norm() + (Y2 * r.core2_B2 - r.core2_W).norm(),
              1e-15 * (f * size + Y1.p.norm() + Y2.p.norm()) * 8)
        << what << " at scale " << f;
    st.feas = std::max(st.feas, feas);
    EXPECT_LE(feas, 1e-9) << what << " at scale " << f;
  }
}

// Body 2's pose for a category: 0 general, 1 crossing cores, 2 nearly touching (10⁻⁹ … 10⁻⁵ of
// the size apart along the closest pair's normal), 3 far (10³ … 10⁷ sizes away).
template <class S1, class S2>
Pose scene_pose(int cat, const S1& s1, const Pose& X1, const S2& s2, std::mt19937& rng) {
  std::uniform_real_distribution<double> U(-1.0, 1.0), T(0.0, 1.0);
  Pose X2 = make_pose(random_rotation(rng), 2.0 * Vec3(U(rng), U(rng), U(rng)));
  if (cat == 1) {  // a core point of 2 placed on a core point of 1
    const auto& W = s2.vertices();
    const Vec2 z2 = (W[0] + W[1] + W[2]) / 3.0;
    Vec3 q1;
    if constexpr (std::is_same_v<S1, Capsule>)
      q1 = X1 * s1.core_point_B(0.2 + 0.6 * T(rng));
    else
      q1 = X1 * Vec3(0.3 * (s1.vertices()[0] + s1.vertices()[1] + s1.vertices()[2]).x(),
                     0.3 * (s1.vertices()[0] + s1.vertices()[1] + s1.vertices()[2]).y(), 0.0);
    X2.p = q1 - X2.R * Vec3(z2.x(), z2.y(), 0.0);
  } else if (cat == 2) {
    const ProximityResult r = proximity(s1, X1, s2, X2);
    if (!r.cores_touch && r.unique_minimizer) {
      const double gap = std::pow(10.0, -9.0 + 4.0 * T(rng)) * (size_of(s1) + size_of(s2));
      X2.p += (gap - r.core_distance) * r.normal_W;
    }
  } else if (cat == 3) {
    X2.p = std::pow(10.0, 3.0 + 4.0 * T(rng)) * random_unit(rng);
  }
  return X2;
}

TEST(QpCertified, CapsulePolygonUnitFreeAndCertified) {
  std::mt19937 rng(811);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const long n = std::max(40L, pose_count() / 20);
  ScaleStats st;
  for (long k = 0; k < n; ++k) {
    const Capsule c1 = random_capsule(rng, k % 9 == 8);
    const PaddedPolygon s2 = random_polygon(rng);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    const Pose X2 = scene_pose(int(k % 4), c1, X1, s2, rng);
    const double ref = segment_polygon(X1 * c1.a_B(), X1 * c1.b_B(), world_polygon(s2, X2)).dist;
    check_scales(c1, X1, s2, X2, ref, "capsule-polygon #" + std::to_string(k), st);
    if (k % 4 == 0) check_scales(s2, X2, c1, X1, ref, "polygon-capsule #" + std::to_string(k), st);
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("capsule-polygon: %ld scenes x 8 scales (%ld penetrating); worst scaled mismatch %.2e, |dist-ref| %.2e, "
              "core feasibility %.2e (relative to size + distance)\n",
              st.scenes, st.penetrating, st.scale, st.ref, st.feas);
}

TEST(QpCertified, PolygonPolygonUnitFreeAndCertified) {
  std::mt19937 rng(812);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const long n = std::max(40L, pose_count() / 20);
  ScaleStats st;
  for (long k = 0; k < n; ++k) {
    const PaddedPolygon s1 = random_polygon(rng), s2 = random_polygon(rng);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    const Pose X2 = scene_pose(int(k % 4), s1, X1, s2, rng);
    const double ref = polygon_polygon(world_polygon(s1, X1), world_polygon(s2, X2)).dist;
    check_scales(s1, X1, s2, X2, ref, "polygon-polygon #" + std::to_string(k), st);
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("polygon-polygon: %ld scenes x 8 scales (%ld penetrating); worst scaled mismatch %.2e, |dist-ref| %.2e, "
              "core feasibility %.2e (relative to size + distance)\n",
              st.scenes, st.penetrating, st.scale, st.ref, st.feas);
}

TEST(QpCertified, MicrometrePolygonsThatCrossOverlap) {
  // Two hexagons of circumradius 1 µm whose planes cut each other through both interiors: the
  // cores overlap at every scale (no "apart" answer), with a negative signed core distance.
  std::vector<Vec2> hex;
  for (int i = 0; i < 6; ++i) hex.emplace_back(std::cos(i * M_PI / 3), std::sin(i * M_PI / 3));
  const PaddedPolygon unit_hex = PaddedPolygon::from_vertices(hex, 0.0);
  Pose X2;
  X2.R = Eigen::AngleAxisd(1.1, Vec3(1, 0.3, 0).normalized()).toRotationMatrix();
  X2.p = Vec3(0.2, -0.1, 0.05);
  const ProximityResult r1 = proximity(unit_hex, Pose(), unit_hex, X2);
  ASSERT_TRUE(r1.ok());
  ASSERT_TRUE(r1.penetration);
  for (const double f : {1e-6, 1e-3, 1.0, 1e6}) {
    const ProximityResult r = proximity(scaled(unit_hex, f), Pose(), scaled(unit_hex, f), scaled(X2, f));
    ASSERT_TRUE(r.ok()) << f;
    EXPECT_TRUE(r.cores_touch && r.penetration) << f;
    EXPECT_LE(r.core_distance, 1e-12 * f) << f;
    EXPECT_LT(r.signed_distance, -1e-3 * f) << f;
    EXPECT_NEAR(r.signed_distance / f, r1.signed_distance, 1e-12) << f;
  }
}

TEST(QpCertified, PerturbedAnswersAreRefused) {
  std::mt19937 rng(813);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  int checked = 0;
  for (int k = 0; k < 200 && checked < 60; ++k) {
    const Capsule c1 = random_capsule(rng);
    const PaddedPolygon s2 = random_polygon(rng);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    const Pose X2 = make_pose(random_rotation(rng), 2.0 * Vec3(U(rng), U(rng), U(rng)));
    const ProximityResult r = proximity(c1, X1, s2, X2);
    ASSERT_TRUE(r.ok());
    if (r.cores_touch || r.core_distance < 0.05) continue;
    ++checked;
    const double L = r.length_unit;
    ProximityResult q = r;
    EXPECT_TRUE(certify(c1, X1, s2, X2, q)) << k;
    EXPECT_NEAR(q.core_distance_lower_bound, r.core_distance, 1e-9 * (L + r.core_distance)) << k;
    // The polygon witness moved off the plane (outside the core) by 1e-8 of the unit.
    q = r;
    q.core2_B2.z() += 1e-8 * L;
    EXPECT_FALSE(certify(c1, X1, s2, X2, q)) << k;
    // The polygon witness moved to a vertex that is farther: the dual bound refuses the distance.
    for (const Vec2& v : s2.vertices()) {
      q = r;
      q.core2_B2 = Vec3(v.x(), v.y(), 0.0);
      const double far = (X1 * q.core1_B1 - X2 * q.core2_B2).norm();
      if (far > r.core_distance * (1.0 + 1e-7) + 1e-7 * L) {
        EXPECT_FALSE(certify(c1, X1, s2, X2, q)) << k;
      }
    }
    // The capsule witness moved along its axis by 1e-6 where that lengthens the distance.
    q = r;
    const double t = (q.core1_B1 - c1.b_B()).dot(c1.a_B() - c1.b_B()) / (c1.a_B() - c1.b_B()).squaredNorm();
    const double t2 = t > 0.5 ? t - 1e-6 : t + 1e-6;
    q.core1_B1 = c1.core_point_B(t2);
    if ((X1 * q.core1_B1 - X2 * q.core2_B2).norm() > r.core_distance + 1e-8 * (L + r.core_distance)) {
      EXPECT_FALSE(certify(c1, X1, s2, X2, q)) << k;
    }
  }
  EXPECT_GE(checked, 30);
}

TEST(QpCertified, BenchmarkSweepIsCertified) {
  // The `diffcol bench --method qp` scene (capsule L = 2, R = 0.5 at the identity; hexagon of
  // circumradius 1 padded 0.2 on the ergodic sweep): every answer ok, and it passes certify() as
  // returned, penetration answers included (witnesses on the cores with p2 − p1 = s·normal, a
  // capsule parallel to the polygon's plane among them).
  std::vector<Vec2> hex;
  for (int k = 0; k < 6; ++k) hex.emplace_back(std::cos(k * M_PI / 3), std::sin(k * M_PI / 3));
  const PaddedPolygon poly = PaddedPolygon::from_vertices(hex, 0.2);
  const Capsule cap(0.5, 2.0);
  diffcol::idcol::ErgodicSweep e;
  e.rmin = 0.02;
  e.rmax = 3.0;
  const long n = std::max(6000L, 2 * pose_count());  // the first parallel-capsule overlaps come after 5500
  long penetrating = 0;
  for (long i = 0; i < n; ++i) {
    const Pose X = e.pose(i);
    ProximityResult a = proximity(cap, Pose(), poly, X), b = proximity(poly, Pose(), poly, X);
    ASSERT_TRUE(a.ok() && b.ok()) << i;
    penetrating += a.penetration + b.penetration;
    for (const ProximityResult* r : {&a, &b}) {
      if (!r->penetration) continue;
      const double s = r->signed_distance + (r == &a ? cap.radius() : poly.radius()) + poly.radius();
      EXPECT_LE((r->core2_W - r->core1_W - s * r->normal_W).norm(), 1e-9) << i;
    }
    EXPECT_TRUE(certify(cap, Pose(), poly, X, a)) << i;
    EXPECT_TRUE(certify(poly, Pose(), poly, X, b)) << i;
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(penetrating, n / 50);
}
