// White-box tests of the closest-point routines behind the exact start of ball-padded DCOL pairs
// (src/dcol/core_distance.hpp): distances against the DiffPills proximity QPs
// (include/diffcol/qp/proximity.hpp: the interior-point solver for the polygon pairs and, for two
// segments, for the capsule pair too), which solve the same core distances another way, and
// projections against their optimality conditions.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "../src/dcol/core_distance.hpp"
#include "../src/dcol/support_pair_search.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/shapes.hpp"

#include "test_util.hpp"

using namespace diffcol;

namespace {

struct PlacedPolygon {
  Eigen::MatrixX2d C;
  Eigen::VectorXd d;
  Mat3 Q;
  std::vector<std::array<double, 3>> V;  // placed vertices, counter-clockwise about Q.col(2)
  const double (*vertices() const)[3] { return reinterpret_cast<const double (*)[3]>(V.data()); }
  int count() const { return static_cast<int>(V.size()); }
};

using diffcol::test::random_rotation;

// A random bounded polygon of 3–8 half-planes, placed by a random rotation about the origin.
PlacedPolygon random_polygon(std::mt19937& g) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int m = 3 + static_cast<int>(u(g) * 6.0);
  PlacedPolygon P;
  P.C.resize(m, 2);
  P.d.resize(m);
  const double start = 2.0 * M_PI * u(g);
  for (int i = 0; i < m; ++i) {  // angles spread around the circle: the normals span the plane
    const double a = start + 2.0 * M_PI * (i + 0.3 * u(g)) / m;  // gaps < π
    P.C(i, 0) = std::cos(a);
    P.C(i, 1) = std::sin(a);
    P.d(i) = 0.2 + u(g);
  }
  const dcol::PaddedPolygon shape(P.C, P.d, 0.1);
  P.Q = random_rotation(g);
  for (int i = 0; i < shape.num_vertices; ++i) {
    const Vec3 v = P.Q * Vec3(shape.V(i, 0), shape.V(i, 1), 0.0);
    P.V.push_back({v.x(), v.y(), v.z()});
  }
  return P;
}

Vec3 random_point(std::mt19937& g, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return Vec3(u(g), u(g), u(g));
}

// The reference core distance and the check that p lies on the polygon (within the placed plane
// and inside every half-plane).
bool on_polygon(const PlacedPolygon& P, const Vec3& x, double tol) {
  const Vec3 y = P.Q.transpose() * x;
  if (std::abs(y.z()) > tol) return false;
  for (int i = 0; i < P.C.rows(); ++i)
    if (P.C(i, 0) * y.x() + P.C(i, 1) * y.y() > P.d(i) + tol) return false;
  return true;
}

bool on_segment(const Vec3& a, const Vec3& b, const Vec3& x, double tol) {
  const Vec3 d = b - a;
  const double s = (x - a).dot(d) / d.squaredNorm();
  return s >= -tol && s <= 1.0 + tol && (a + s * d - x).norm() <= tol;
}

qp::ProximityOptions interior_point_options() {
  qp::ProximityOptions o;
  o.capsule_solver = qp::CapsuleSolver::interior_point;
  return o;
}

qp::PaddedPolygon qp_polygon(const PlacedPolygon& P) { return qp::PaddedPolygon(P.C, P.d, 0.0); }

// The support function of the convex hull of the points V (the first maximizer).
auto vertex_support(const std::vector<Vec3>& V) {
  return [&V](const Vec3& d) {
    int best = 0;
    for (int i = 1; i < static_cast<int>(V.size()); ++i)
      if (V[i].dot(d) > V[best].dot(d)) best = i;
    return V[best];
  };
}

// A random cylinder (profile (−h, 0), (h, 0), (h, R), (−h, R)) or cone (apex at −3H/4, base radius
// rb at H/4) about a random axis a, with its rim circles (axial position, radius; the cone's apex
// is a circle of radius 0): the solid is their convex hull.
struct RevolvedSolid {
  Vec3 a;
  double P[4][2];
  int n;
  std::vector<std::pair<double, double>> rims;
};

RevolvedSolid random_revolved(std::mt19937& g, bool cone) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  RevolvedSolid S;
  S.a = random_rotation(g).col(0);
  if (!cone) {
    const double h = 0.2 + u(g), R = 0.2 + u(g);
    const double v[4][2] = {{-h, 0.0}, {h, 0.0}, {h, R}, {-h, R}};
    for (int i = 0; i < 4; ++i) S.P[i][0] = v[i][0], S.P[i][1] = v[i][1];
    S.n = 4;
    S.rims = {{-h, R}, {h, R}};
  } else {
    const double H = 0.5 + 2.0 * u(g), rb = H * (0.2 + 1.5 * u(g));
    const double v[3][2] = {{-0.75 * H, 0.0}, {0.25 * H, 0.0}, {0.25 * H, rb}};
    for (int i = 0; i < 3; ++i) S.P[i][0] = v[i][0], S.P[i][1] = v[i][1];
    S.n = 3;
    S.rims = {{-0.75 * H, 0.0}, {0.25 * H, rb}};
  }
  return S;
}

}  // namespace

TEST(DcolCoreDistance, SegmentPairsMatchTheProximityQp) {
  std::mt19937 g(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto opt = interior_point_options();
  int parallel = 0;
  for (int c = 0; c < 400; ++c) {
    const Vec3 a0 = random_point(g, 1.0), a1 = random_point(g, 1.0);
    Vec3 b0 = random_point(g, 1.5), b1 = random_point(g, 1.5);
    if (c % 4 == 0) {  // parallel and anti-parallel pairs
      b1 = b0 + (u(g) - 0.5) * 3.0 * (a1 - a0);
      ++parallel;
    }
    if (c % 25 == 1) b1 = b0;  // a point
    Vec3 p, q;
    dcol::detail::closest_segment_points(a0, a1, b0, b1, p, q);
    qp::ProximityResult ref;
    qp::proximity(qp::Capsule::from_end_points(a0, a1, 0.0), Pose::identity(),
                  qp::Capsule::from_end_points(b0, b1, 0.0), Pose::identity(), opt, ref);
    ASSERT_TRUE(ref.ok()) << c;
    EXPECT_NEAR((q - p).norm(), ref.core_distance, 1e-8) << c;
    EXPECT_TRUE(on_segment(a0, a1, p, 1e-12)) << c;
    if ((b1 - b0).norm() > 0.0) {
      EXPECT_TRUE(on_segment(b0, b1, q, 1e-12)) << c;
    }
    // a point against a segment: closest_on_segment
    const Vec3 x = random_point(g, 2.0);
    const Vec3 cx = dcol::detail::closest_on_segment(a0, a1, x);
    qp::proximity(qp::Capsule::from_end_points(a0, a1, 0.0), Pose::identity(),
                  qp::Capsule::from_end_points(x, x, 0.0), Pose::identity(), opt, ref);
    ASSERT_TRUE(ref.ok()) << c;
    EXPECT_NEAR((cx - x).norm(), ref.core_distance, 1e-8) << c;
  }
  EXPECT_EQ(parallel, 100);
}

TEST(DcolCoreDistance, PolygonQueriesMatchTheProximityQp) {
  std::mt19937 g(12);
  const qp::ProximityOptions opt;
  int inside = 0, segment_cases = 0, polygon_cases = 0;
  for (int c = 0; c < 300; ++c) {
    const PlacedPolygon P = random_polygon(g);
    const Vec3 m = P.Q.col(2);
    const Pose X(P.Q, Vec3::Zero());
    // a point: its projection when it lies over the polygon, else an edge point
    const Vec3 x = random_point(g, 1.5);
    const Vec3 cx = dcol::detail::closest_on_polygon(P.vertices(), P.count(), m, x);
    EXPECT_TRUE(on_polygon(P, cx, 1e-12)) << c;
    qp::ProximityResult ref;
    qp::proximity(qp::Capsule::from_end_points(x, x, 0.0), Pose::identity(), qp_polygon(P), X, opt, ref);
    ASSERT_TRUE(ref.ok()) << c;
    EXPECT_NEAR((cx - x).norm(), ref.core_distance, 1e-7) << c;
    inside += std::abs((cx - x).cross(m).norm()) < 1e-12;
    // a segment that does not cross the polygon, and a second polygon translated by o that does
    // not meet the first: GJK on their vertices
    std::vector<Vec3> PV;
    for (const auto& v : P.V) PV.push_back(Vec3(v[0], v[1], v[2]));
    const std::vector<Vec3> S = {random_point(g, 2.0), random_point(g, 2.0)};
    qp::proximity(qp::Capsule::from_end_points(S[0], S[1], 0.0), Pose::identity(), qp_polygon(P), X, opt, ref);
    ASSERT_TRUE(ref.ok()) << c;
    if (ref.core_distance > 1e-6) {
      ++segment_cases;
      dcol::detail::GjkSimplex simplex;
      Vec3 ps, pp;
      ASSERT_TRUE(dcol::detail::gjk_closest_points(vertex_support(S), vertex_support(PV), Vec3::Zero(), simplex, ps, pp));
      EXPECT_NEAR((ps - pp).norm(), ref.core_distance, 1e-7) << c;
      EXPECT_TRUE(on_segment(S[0], S[1], ps, 1e-12)) << c;
      EXPECT_TRUE(on_polygon(P, pp, 1e-12)) << c;
    }
    const PlacedPolygon P2 = random_polygon(g);
    std::vector<Vec3> PV2;
    for (const auto& v : P2.V) PV2.push_back(Vec3(v[0], v[1], v[2]));
    const Vec3 o = random_point(g, 2.5);
    qp::proximity(qp_polygon(P), X, qp_polygon(P2), Pose(P2.Q, o), opt, ref);
    ASSERT_TRUE(ref.ok()) << c;
    if (ref.core_distance > 1e-6) {
      ++polygon_cases;
      dcol::detail::GjkSimplex simplex;
      Vec3 p1, p2;
      ASSERT_TRUE(dcol::detail::gjk_closest_points(vertex_support(PV), vertex_support(PV2), o, simplex, p1, p2));
      EXPECT_NEAR((p2 + o - p1).norm(), ref.core_distance, 1e-7) << c;
      EXPECT_TRUE(on_polygon(P, p1, 1e-12)) << c;
      EXPECT_TRUE(on_polygon(P2, p2, 1e-12)) << c;
    }
  }
  // the cases are spread: points over the polygon and beside it, disjoint segments and polygons
  EXPECT_GT(inside, 20);
  EXPECT_LT(inside, 280);
  EXPECT_GT(segment_cases, 100);
  EXPECT_GT(polygon_cases, 100);
}

// The closest point of a cylinder or cone (a solid of revolution) lies on the solid, and the
// solid lies on the far side of the plane through it normal to x − c (the projection's
// characterization): the solid is the convex hull of its rim circles (and the apex), and over a
// circle (centre z, radius r, axis a) the largest value of gᵀy is gᵀz + r‖g − (gᵀa)a‖.
TEST(DcolCoreDistance, RevolvedSolidProjectionsAreExact) {
  std::mt19937 g(13);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int outside = 0;
  for (int c = 0; c < 400; ++c) {
    const bool cone = c % 2 == 1;
    const RevolvedSolid S = random_revolved(g, cone);
    const auto& [a, P, n, rims] = S;
    Vec3 x = random_point(g, 2.5);
    if (c % 40 == 3) x = (u(g) * 4.0 - 2.0) * a;  // on the axis
    const Vec3 cx = dcol::detail::closest_on_revolved(P, n, a, x);
    // on the solid: its axial coordinate within the profile, its radius below the profile's
    const double ca = cx.dot(a), cr = (cx - ca * a).norm();
    EXPECT_GE(ca, P[0][0] - 1e-12) << c;
    EXPECT_LE(ca, P[1][0] + 1e-12) << c;
    const double rmax = cone ? P[2][1] * (ca - P[0][0]) / (P[1][0] - P[0][0]) : P[2][1];
    EXPECT_LE(cr, rmax + 1e-12) << c;
    const Vec3 gdir = x - cx;
    if (gdir.norm() < 1e-12) continue;  // x inside the solid
    ++outside;
    for (const auto& [z, r] : rims) {
      const double reach = gdir.dot(z * a - cx) + r * (gdir - gdir.dot(a) * a).norm();
      EXPECT_LE(reach, 1e-12 * (1.0 + gdir.norm())) << c << (cone ? " cone" : " cylinder");
    }
  }
  EXPECT_GT(outside, 300);
}

// GJK on point sets (their convex hulls): y* = p − o − q is the point of Y = K1 − (o + K2) closest
// to the origin exactly when ⟨y*, y − y*⟩ ≥ 0 for every vertex y = a − o − b of Y (a, b vertices
// of K1, K2), checked exhaustively; warm starts (the previous simplex with a moved o) too.
TEST(DcolCoreDistance, GjkClosestPointsSatisfyTheProjectionCondition) {
  std::mt19937 g(14);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int checked = 0, warm = 0;
  for (int c = 0; c < 400; ++c) {
    const auto random_set = [&](int n, double scale) {
      std::vector<Vec3> V;
      for (int i = 0; i < n; ++i) V.push_back(random_point(g, scale));
      if (c % 5 == 0) {  // a box: coplanar faces, the degenerate simplices
        V.clear();
        for (int i = 0; i < 8; ++i) V.push_back(Vec3(i & 1 ? 0.5 : -0.5, i & 2 ? 0.3 : -0.3, i & 4 ? 0.8 : -0.8));
      }
      return V;
    };
    const std::vector<Vec3> A = random_set(4 + c % 12, 1.0);
    const std::vector<Vec3> B = random_set(1 + c % 3, 0.5);  // a point, a segment, a triangle
    double rA = 0.0, rB = 0.0;  // bounding radii: sets farther apart than rA + rB do not meet
    for (const Vec3& a : A) rA = std::max(rA, a.norm());
    for (const Vec3& b : B) rB = std::max(rB, b.norm());
    Vec3 o = random_point(g, 1.0).normalized() * (rA + rB) * (1.05 + 0.5 * u(g));
    dcol::detail::GjkSimplex simplex;
    for (int step = 0; step < 3; ++step, o *= 0.985) {  // then warm starts at nearby o
      Vec3 p, q;
      ASSERT_TRUE(dcol::detail::gjk_closest_points(vertex_support(A), vertex_support(B), o, simplex, p, q)) << c << " step " << step;
      const Vec3 y = p - o - q;
      double worst = 0.0, scale = 0.0;
      for (const Vec3& a : A)
        for (const Vec3& b : B) {
          const Vec3 yv = a - o - b;
          worst = std::min(worst, y.dot(yv - y));
          scale = std::max(scale, yv.norm());
        }
      ++checked;
      warm += step > 0;
      EXPECT_GE(worst, -1e-13 * scale * scale) << c << " step " << step;
    }
  }
  EXPECT_EQ(checked, 1200);
  EXPECT_EQ(warm, 800);
}

// Closest points of a segment and a cylinder or cone (Newton's method along the segment on the
// exact projection): p on the segment, q on the solid, and the pair is optimal — the solid lies on
// the far side of the plane through q normal to n̂ = (p − q)/‖p − q‖ (over its rim circles in
// closed form, as above) and the segment on the near side of the parallel plane through p; the
// distance is also no larger than at any of 2001 points along the segment.
TEST(DcolCoreDistance, SegmentRevolvedClosestPointsAreOptimal) {
  std::mt19937 g(15);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int solved = 0, parallel = 0, at_end = 0;
  for (int c = 0; c < 600; ++c) {
    const bool cone = c % 2 == 1;
    const RevolvedSolid S = random_revolved(g, cone);
    const auto& [a, P, n, rims] = S;
    Vec3 x0 = random_point(g, 3.0), x1 = random_point(g, 3.0);
    if (c % 6 == 2) {  // parallel to the axis (a side's generator): a whole interval is closest
      x1 = x0 + (u(g) * 4.0 - 2.0) * a;
      ++parallel;
    }
    if (c % 6 == 4) x1 = x0 + (u(g) - 0.5) * 3.0 * a.unitOrthogonal();  // normal to the axis
    double s = u(g);  // any start
    Vec3 p, q;
    const auto dist_to_solid = [&](const Vec3& x) { return (x - dcol::detail::closest_on_revolved(P, n, a, x)).norm(); };
    if (!dcol::detail::closest_segment_revolved(P, n, a, x0, x1, s, p, q)) {
      // only where the segment meets the solid
      double dmin = 1e300;
      for (int k = 0; k <= 2000; ++k) dmin = std::min(dmin, dist_to_solid(x0 + (k / 2000.0) * (x1 - x0)));
      EXPECT_LT(dmin, 1e-2) << c;
      continue;
    }
    ++solved;
    at_end += s == 0.0 || s == 1.0;
    EXPECT_TRUE(on_segment(x0, x1, p, 1e-12)) << c;
    EXPECT_NEAR((p - (x0 + s * (x1 - x0))).norm(), 0.0, 1e-14) << c;
    const double ca = q.dot(a), cr = (q - ca * a).norm();
    EXPECT_GE(ca, P[0][0] - 1e-12) << c;
    EXPECT_LE(ca, P[1][0] + 1e-12) << c;
    const double rmax = cone ? P[2][1] * (ca - P[0][0]) / (P[1][0] - P[0][0]) : P[2][1];
    EXPECT_LE(cr, rmax + 1e-12) << c;
    const double delta = (p - q).norm();
    ASSERT_GT(delta, 0.0) << c;
    const Vec3 nh = (p - q) / delta;
    for (const auto& [z, r] : rims) {
      const double reach = nh.dot(z * a - q) + r * (nh - nh.dot(a) * a).norm();
      EXPECT_LE(reach, 1e-10) << c << (cone ? " cone" : " cylinder");
    }
    EXPECT_GE(nh.dot(x0 - p), -1e-10) << c;
    EXPECT_GE(nh.dot(x1 - p), -1e-10) << c;
    for (int k = 0; k <= 2000; ++k) EXPECT_GE(dist_to_solid(x0 + (k / 2000.0) * (x1 - x0)), delta - 1e-12) << c << " " << k;
  }
  EXPECT_GT(solved, 450);
  EXPECT_GT(at_end, 20);
  EXPECT_EQ(parallel, 100);
}

// ------------------------------------------------------------------ support-function minimum
// src/dcol/support_search.hpp: t* = min h_D(d) over uᵀd = 1 for an ellipsoid E against a padded
// polygon, a capsule, a cylinder or a cone X (D = E ⊕ σX). Checked without the solver's own reasoning:
// F(w*) is at most F at 3000 sampled directions and at a pattern search from the best of them,
// and t*·u lies on D's boundary: with a = σ_E(d*) (E's support point, which the solver does not
// return), b = σ(t*u − a) must lie on the boundary of X.
namespace {

struct SupportCase {
  dcol::detail::SupportObjective P;
  Mat3 W;     // E = {y : yᵀW⁻¹y ≤ 1}, h_E(d) = √(dᵀWd)
  Vec3 u, e1, e2;
  double sigma = 1.0;
};

void chart(const Vec3& u, Vec3& e1, Vec3& e2) {
  e1 = u.unitOrthogonal();
  e2 = u.cross(e1);
}

void add_sqrt_term(SupportCase& c, double rho, const Mat3& S) {  // rho √(dᵀSd)
  auto& P = c.P;
  const int k = P.nq++;
  P.rho[k] = rho;
  P.c[k] = c.u.dot(S * c.u);
  P.g[k][0] = c.e1.dot(S * c.u);
  P.g[k][1] = c.e2.dot(S * c.u);
  P.M[k][0] = c.e1.dot(S * c.e1);
  P.M[k][1] = c.e1.dot(S * c.e2);
  P.M[k][2] = c.e2.dot(S * c.e2);
}

void add_piece(SupportCase& c, const Vec3& v) {  // σ vᵀd
  auto& P = c.P;
  const int i = P.na++;
  P.a[i] = c.sigma * v.dot(c.u);
  P.b[i][0] = c.sigma * v.dot(c.e1);
  P.b[i][1] = c.sigma * v.dot(c.e2);
}

// h_D(d) from the shapes themselves (closed-form support functions in d, not the chart's
// expanded quadratics): h_E(d) + h_X(σd).
struct SupportReference {
  const SupportCase* c;
  int kind;  // 0: padded polygon, 1: capsule, 2: cylinder
  double R = 0.0, half = 0.0;
  Vec3 axis = Vec3::Zero();
  const PlacedPolygon* poly = nullptr;
  double operator()(double w0, double w1) const {
    const Vec3 d = c->u + w0 * c->e1 + w1 * c->e2, y = c->sigma * d;
    double h = std::sqrt(d.dot(c->W * d));
    if (kind == 0) {
      double m = -1e300;
      for (const auto& v : poly->V) m = std::max(m, Vec3(v[0], v[1], v[2]).dot(y));
      h += R * y.norm() + m;
    } else if (kind == 1) {
      h += R * y.norm() + half * std::abs(axis.dot(y));
    } else if (kind == 2) {
      h += R * (y - axis.dot(y) * axis).norm() + half * std::abs(axis.dot(y));
    } else {  // cone: height H = half, base radius R; apex −(3H/4)a, base centre (H/4)a
      const double ay = axis.dot(y);
      h += std::max(-0.75 * half * ay, 0.25 * half * ay + R * (y - ay * axis).norm());
    }
    return h;
  }
};

// min of f(w) over 3000 random directions d = u + e₁w₁ + e₂w₂ (uᵀd > 0.05, normalized), then a
// compass search from the best.
template <class Fn>
double sampled_chart_minimum(const Fn& f, const Vec3& u, const Vec3& e1, const Vec3& e2, std::mt19937& g) {
  std::normal_distribution<double> n(0.0, 1.0);
  double best = 1e300, bw[2] = {0.0, 0.0};
  for (int k = 0; k < 3000; ++k) {
    Vec3 d(n(g), n(g), n(g));
    if (d.dot(u) < 0.0) d = -d;
    const double du = d.dot(u);
    if (du < 0.05) continue;
    const double w0 = d.dot(e1) / du, w1 = d.dot(e2) / du, v = f(w0, w1);
    if (v < best) best = v, bw[0] = w0, bw[1] = w1;
  }
  for (double h = 0.1; h > 1e-9;) {
    bool moved = false;
    const double steps[4][2] = {{h, 0.0}, {-h, 0.0}, {0.0, h}, {0.0, -h}};
    for (const auto& s : steps) {
      const double v = f(bw[0] + s[0], bw[1] + s[1]);
      if (v < best) best = v, bw[0] += s[0], bw[1] += s[1], moved = true;
    }
    if (!moved) h *= 0.5;
  }
  return best;
}

double sampled_minimum(const SupportReference& F, std::mt19937& g) {
  return sampled_chart_minimum(F, F.c->u, F.c->e1, F.c->e2, g);
}

}  // namespace

TEST(DcolSupportSearch, MinimumIsBelowSampledDirectionsAndItsHitLiesInD) {
  std::mt19937 g(77);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  int counts[4] = {0, 0, 0, 0}, kinks = 0, faces = 0, sides = 0, cone_bases = 0;
  for (int trial = 0; trial < 800; ++trial) {
    const int kind = trial % 4;  // 0: padded polygon, 1: capsule, 2: cylinder, 3: cone
    SupportCase c;
    c.sigma = U(g) < 0.5 ? 1.0 : -1.0;
    const Vec3 axis0 = random_rotation(g).col(0);
    Vec3 u = random_point(g, 1.0);
    // every other cylinder and cone case looks at a cap (u near σa): the kink branches run too
    if ((kind == 3 && trial % 8 == 3) || (kind == 2 && trial % 8 == 2)) u = c.sigma * axis0 + 0.4 * random_point(g, 1.0);
    c.u = u.normalized();
    chart(c.u, c.e1, c.e2);
    const Mat3 Q = random_rotation(g);
    const Vec3 ax(0.2 + 1.5 * U(g), 0.2 + 1.5 * U(g), 0.2 + 1.5 * U(g));
    c.W = Q * ax.cwiseAbs2().asDiagonal() * Q.transpose();
    add_sqrt_term(c, 1.0, c.W);
    double R = 0.0;
    PlacedPolygon poly;
    Vec3 axis = Vec3::Zero();
    double half = 0.0;
    if (kind == 0) {
      poly = random_polygon(g);
      R = 0.05 + 0.5 * U(g);
      add_sqrt_term(c, R, Mat3::Identity());
      for (const auto& v : poly.V) add_piece(c, Vec3(v[0], v[1], v[2]));
      c.P.polygon = true;
    } else {
      axis = axis0;
      half = 0.1 + U(g);
      R = 0.1 + 0.6 * U(g);
      if (kind == 1) {
        add_sqrt_term(c, R, Mat3::Identity());
      } else if (kind == 3) {
        // (built below: the cone's pieces go to SupportCone)
      } else {
        add_sqrt_term(c, R, Mat3(Mat3::Identity() - axis * axis.transpose()));
        const double au = axis.dot(c.u);
        c.P.kink = 1;
        c.P.kink_w[0] = axis.dot(c.e1) / au;
        c.P.kink_w[1] = axis.dot(c.e2) / au;
      }
      if (kind != 3) {
        add_piece(c, half * axis);
        add_piece(c, -half * axis);
      }
    }
    dcol::detail::SupportMinimum m;
    dcol::detail::SupportCone cone;
    if (kind == 3) {
      const double H = half, sg = c.sigma, au = axis.dot(c.u), a1 = axis.dot(c.e1), a2 = axis.dot(c.e2);
      cone.apex_a = -0.75 * H * sg * au, cone.apex_b[0] = -0.75 * H * sg * a1, cone.apex_b[1] = -0.75 * H * sg * a2;
      cone.rim_a = 0.25 * H * sg * au, cone.rim_b[0] = 0.25 * H * sg * a1, cone.rim_b[1] = 0.25 * H * sg * a2;
      SupportCase rc = c;
      rc.P.nq = 0;
      add_sqrt_term(rc, R, Mat3(Mat3::Identity() - axis * axis.transpose()));
      cone.rim = rc.P;
      cone.rim.na = 0;
      cone.rim.kink = 0;
      cone.rim.kink_w[0] = a1 / au;
      cone.rim.kink_w[1] = a2 / au;
      if (!dcol::detail::minimize_support_cone(c.P, cone, m)) continue;
      sides += m.na == 2;
      cone_bases += m.iterations == 0;
    } else if (!dcol::detail::minimize_support(c.P, m)) {
      continue;  // the solver falls back to the ray cast
    }
    ++counts[kind];
    kinks += kind == 2 && m.iterations == 0;
    faces += kind == 0 && m.na == 3;
    if (kind != 3 && m.iterations > 0) {
      // the returned weights certify the minimum: ∇(smooth part) + Σ λ_a b_a = 0, λ in the simplex
      double g[2], H[3], sum = 0.0;
      dcol::detail::support_smooth(c.P, m.w, g, H);
      for (int a = 0; a < m.na; ++a) {
        EXPECT_GE(m.lambda[a], -1e-9) << "trial " << trial;
        sum += m.lambda[a];
        g[0] += m.lambda[a] * c.P.b[m.active[a]][0];
        g[1] += m.lambda[a] * c.P.b[m.active[a]][1];
      }
      EXPECT_NEAR(sum, 1.0, 1e-9) << "trial " << trial;
      EXPECT_LE(std::hypot(g[0], g[1]), 1e-7) << "trial " << trial << " kind " << kind << " na " << m.na;
    }
    SupportReference F{&c, kind, R, half, axis, &poly};
    const double ref = sampled_minimum(F, g);
    EXPECT_NEAR(m.F, F(m.w[0], m.w[1]), 1e-12 * (1.0 + ref)) << "trial " << trial;
    EXPECT_LE(m.F, ref + 1e-12 * (1.0 + ref)) << "trial " << trial << " it " << m.iterations << " na " << m.na << " dF " << m.F - ref
        << " w " << m.w[0] << " " << m.w[1] << " kink " << c.P.kink_w[0] << " " << c.P.kink_w[1];
    // t*u = a − σb with a ∈ E, b ∈ X: b = σ(a − t*u) within 1e-8 of X
    const Vec3 d = c.u + m.w[0] * c.e1 + m.w[1] * c.e2;
    const Vec3 a = c.W * d / std::sqrt(d.dot(c.W * d));
    const Vec3 b = c.sigma * (m.F * c.u - a);
    double excess;
    if (kind == 0) {
      const Vec3 q = dcol::detail::closest_on_polygon(poly.vertices(), poly.count(), poly.Q.col(2), b);
      excess = (b - q).norm() - R;
    } else if (kind == 1) {
      excess = (b - dcol::detail::closest_on_segment(Vec3(-half * axis), Vec3(half * axis), b)).norm() - R;
    } else if (kind == 2) {
      const double along = axis.dot(b);
      excess = std::max(std::abs(along) - half, (b - along * axis).norm() - R);
    } else {  // inside the cone: below the base plane, within the lateral surface (radius R at the base)
      const double along = axis.dot(b);
      excess = std::max(along - 0.25 * half, (b - along * axis).norm() - R / half * (along + 0.75 * half));
    }
    EXPECT_LE(excess, 1e-9) << "trial " << trial << " kind " << kind;
    // and on its boundary: a point of D's boundary (the minimum is not an overestimate either)
    EXPECT_GE(excess, -1e-9) << "trial " << trial << " kind " << kind;
  }
  // nearly every case settles (the rest take the ray cast in the solver), and the special
  // branches ran: cylinder caps at the kink, polygon faces with three active vertices
  for (int k = 0; k < 4; ++k) EXPECT_GE(counts[k], 190) << "kind " << k;
  EXPECT_GT(kinks, 5);
  EXPECT_GT(faces, 5);
  EXPECT_GT(sides, 5);
  EXPECT_GT(cone_bases, 5);
  std::printf("settled %d/%d/%d/%d of 200 (polygon/capsule/cylinder/cone); cylinder cap kinks %d, polygon faces %d, "
              "cone sides %d, cone bases %d\n",
              counts[0], counts[1], counts[2], counts[3], kinks, faces, sides, cone_bases);
}

// --------------------------------------------------- support-function minimum, two max structures
// minimize_support_pair for a cylinder or cone against a cylinder, cone or padded polygon: F(w) =
// h₁(d) + h₂(−d) in the chart, each body's support function written as roots and one max
// structure. Checked as above: F(w*) against the closed-form support functions at w* and at 3000
// sampled directions plus a pattern search, and the weights certify the minimum (∇ of the roots
// and of the weighted active pieces is 0) away from a kink.
namespace {

struct PairBody {
  int kind = 0;  // 0: cylinder, 1: cone, 2: padded polygon, 3: polytope
  Vec3 axis = Vec3::UnitX();
  double R = 0.0, half = 0.0;  // cylinder radius and half length; cone base radius and height (half)
  PlacedPolygon poly;          // padded polygon (padding R)
  std::shared_ptr<dcol::Polytope> polytope;  // polytope, rotated by Q
  Mat3 Q = Mat3::Identity();
  double h(const Vec3& y) const {  // the support function, closed form (a polytope: its own support)
    const double ay = axis.dot(y), radial = (y - ay * axis).norm();
    if (kind == 0) return R * radial + half * std::abs(ay);
    if (kind == 1) return std::max(-0.75 * half * ay, 0.25 * half * ay + R * radial);
    if (kind == 3) return (Q * polytope->support(Q.transpose() * y)).dot(y);
    double m = -1e300;
    for (const auto& v : poly.V) m = std::max(m, Vec3(v[0], v[1], v[2]).dot(y));
    return R * y.norm() + m;
  }
};

struct PairCase {
  dcol::detail::SupportPair P;
  Vec3 u, e1, e2;
  PairBody body[2];
  double F(double w0, double w1) const {
    const Vec3 d = u + w0 * e1 + w1 * e2;
    return body[0].h(d) + body[1].h(-d);
  }
};

void set_root(const PairCase& c, dcol::detail::SupportRoot& r, double rho, const Mat3& S) {  // rho √(dᵀSd)
  r.rho = rho;
  r.c = c.u.dot(S * c.u);
  r.g[0] = c.e1.dot(S * c.u);
  r.g[1] = c.e2.dot(S * c.u);
  r.M[0] = c.e1.dot(S * c.e1);
  r.M[1] = c.e1.dot(S * c.e2);
  r.M[2] = c.e2.dot(S * c.e2);
}

void set_radial(const PairCase& c, dcol::detail::SupportRoot& r, double rho, const Vec3& a) {
  set_root(c, r, rho, Mat3(Mat3::Identity() - a * a.transpose()));
  const double au = a.dot(c.u);
  r.kink = std::abs(au) > 1e-6;
  r.kink_w[0] = a.dot(c.e1) / au;
  r.kink_w[1] = a.dot(c.e2) / au;
}

void add_pair_body(PairCase& c, int s, double& ball) {
  const PairBody& b = c.body[s];
  const double sigma = s == 0 ? 1.0 : -1.0;
  dcol::detail::SupportSet& S = c.P.set[s];
  const auto piece = [&](const Vec3& v) {
    S.a[S.n] = sigma * v.dot(c.u);
    S.b[S.n][0] = sigma * v.dot(c.e1);
    S.b[S.n][1] = sigma * v.dot(c.e2);
    ++S.n;
  };
  if (b.kind == 0) {
    set_radial(c, c.P.q[c.P.nq++], b.R, b.axis);
    piece(b.half * b.axis);
    piece(-b.half * b.axis);
  } else if (b.kind == 1) {
    S.cone = true;
    piece(-0.75 * b.half * b.axis);
    piece(0.25 * b.half * b.axis);
    set_radial(c, S.rim, b.R, b.axis);
  } else if (b.kind == 3) {
    const dcol::Polytope& T = *b.polytope;
    for (int i = 0; i < T.num_vertices; ++i) piece(b.Q * Vec3(T.V.row(i).transpose()));
    S.num_faces = T.num_faces;
    S.face_start = T.face_start.data();
    S.face_vertices = T.face_vertices.data();
  } else {
    S.polygon = true;
    for (const auto& v : b.poly.V) piece(Vec3(v[0], v[1], v[2]));
    ball += b.R;
  }
}

// A random bounded polytope of m faces (unit normals, offsets in [0.4, 1.2]).
std::shared_ptr<dcol::Polytope> random_pair_polytope(std::mt19937& g, int m) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (;;) {
    Eigen::MatrixX3d A(m, 3);
    Eigen::VectorXd b(m);
    for (int i = 0; i < m; ++i) {
      A.row(i) = random_point(g, 1.0).normalized().transpose();
      b[i] = 0.4 + 0.8 * U(g);
    }
    try {
      return std::make_shared<dcol::Polytope>(A, b);
    } catch (const std::invalid_argument&) {
      // unbounded: draw again
    }
  }
}

template <bool C0, bool C1, int NQ>
bool run_pair(const PairCase& c, dcol::detail::SupportPairMinimum& m) {
  return dcol::detail::minimize_support_pair<C0, C1, NQ>(c.P, m);
}
bool minimize_pair(const PairCase& c, dcol::detail::SupportPairMinimum& m) {
  const bool c0 = c.P.set[0].cone, c1 = c.P.set[1].cone;
  const int nq = c.P.nq;
  // (the solver's sizes are compile-time: every combination the solver instantiates)
  if (c0 && c1) return nq == 0 && run_pair<true, true, 0>(c, m);
  if (c0) return nq == 1 ? run_pair<true, false, 1>(c, m) : run_pair<true, false, 2>(c, m);
  if (c1) return nq == 1 ? run_pair<false, true, 1>(c, m) : run_pair<false, true, 2>(c, m);
  return nq == 1 ? run_pair<false, false, 1>(c, m) : nq == 2 && run_pair<false, false, 2>(c, m);
}

double sampled_pair_minimum(const PairCase& c, std::mt19937& g) {
  return sampled_chart_minimum([&](double w0, double w1) { return c.F(w0, w1); }, c.u, c.e1, c.e2, g);
}

}  // namespace

TEST(DcolSupportSearch, PairMinimumIsBelowSampledDirectionsAndCertified) {
  std::mt19937 g(78);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  // the ordered kind pairs the solver takes: cyl–cyl, cyl–cone, cyl–pp, cone–cyl, ..., cyl–polytope
  const int pairs[10][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {0, 3}, {3, 0}};
  int settled[10] = {}, tried[10] = {}, kinks = 0, faces = 0, sides = 0, edges = 0, polytope_faces = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int pk = trial % 10;
    PairCase c;
    for (int s = 0; s < 2; ++s) {
      PairBody& b = c.body[s];
      b.kind = pairs[pk][s];
      b.axis = random_rotation(g).col(0);
      if (b.kind == 0) {
        b.R = 0.1 + 0.8 * U(g);
        b.half = 0.1 + U(g);
      } else if (b.kind == 1) {
        b.half = 0.3 + 2.0 * U(g);
        b.R = b.half * std::tan(0.2 + 1.0 * U(g));
      } else if (b.kind == 2) {
        b.poly = random_polygon(g);
        b.R = 0.05 + 0.4 * U(g);
      } else {
        b.polytope = random_pair_polytope(g, 5 + trial % 7);
        b.Q = random_rotation(g);
      }
    }
    Vec3 u = random_point(g, 1.0);
    // a quarter of the cases look near a body's axis (its cap or base: the kinks) or, for a
    // polygon, its normal (its face)
    if (trial % 4 == 1) {
      const int s = U(g) < 0.5 ? 0 : 1;
      const PairBody& b = c.body[s];
      const Vec3 n = b.kind == 2   ? Vec3(b.poly.Q.col(2))
                     : b.kind == 3 ? Vec3(b.Q * b.polytope->A.row(0).transpose())
                                   : b.axis;
      u = (U(g) < 0.5 ? 1.0 : -1.0) * n + 0.3 * random_point(g, 1.0);
    }
    c.u = u.normalized();
    chart(c.u, c.e1, c.e2);
    double ball = 0.0;
    add_pair_body(c, 0, ball);
    add_pair_body(c, 1, ball);
    if (ball > 0.0) {
      auto& r = c.P.q[c.P.nq++];
      set_root(c, r, ball, Mat3::Identity());
      r.kink = false;
    }
    ++tried[pk];
    dcol::detail::SupportPairMinimum m;
    if (!minimize_pair(c, m)) continue;  // the solver falls back to the ray cast
    ++settled[pk];
    kinks += m.kink >= 0;
    faces += m.na[0] == 3 || m.na[1] == 3;
    polytope_faces += (pairs[pk][0] == 3 && m.na[0] == 3) || (pairs[pk][1] == 3 && m.na[1] == 3);
    for (int s = 0; s < 2; ++s) {
      sides += c.P.set[s].cone && m.na[s] == 2;
      edges += !c.P.set[s].cone && m.na[s] == 2;
    }
    const double ref = sampled_pair_minimum(c, g);
    EXPECT_NEAR(m.F, c.F(m.w[0], m.w[1]), 1e-12 * (1.0 + ref)) << "trial " << trial;
    EXPECT_LE(m.F, ref + 1e-12 * (1.0 + ref)) << "trial " << trial << " kinds " << pairs[pk][0] << pairs[pk][1]
                                              << " na " << m.na[0] << m.na[1] << " kink " << m.kink;
    if (m.kink >= 0) continue;
    // the weights certify the minimum: ∇ roots + Σ_s Σ_a λ_a ∇(piece a) = 0, λ convex per set
    double gr[2] = {0.0, 0.0}, H[3] = {0.0, 0.0, 0.0}, f = 0.0;
    for (int k = 0; k < c.P.nq; ++k) ASSERT_TRUE(dcol::detail::root_add(c.P.q[k], m.w, 1.0, gr, H, f));
    for (int s = 0; s < 2; ++s) {
      const auto& S = c.P.set[s];
      double sum = 0.0;
      for (int a = 0; a < m.na[s]; ++a) {
        const int i = m.active[s][a];
        const double l = m.lambda[s][a];
        EXPECT_GE(l, -1e-9) << "trial " << trial;
        sum += l;
        gr[0] += l * S.b[i][0];
        gr[1] += l * S.b[i][1];
        if (S.cone && i == 1) {
          ASSERT_TRUE(dcol::detail::root_add(S.rim, m.w, l, gr, H, f));
        }
      }
      EXPECT_NEAR(sum, 1.0, 1e-9) << "trial " << trial;
    }
    EXPECT_LE(std::hypot(gr[0], gr[1]), 1e-7) << "trial " << trial << " kinds " << pairs[pk][0] << pairs[pk][1]
                                              << " na " << m.na[0] << m.na[1];
  }
  for (int k = 0; k < 10; ++k) EXPECT_GE(settled[k], tried[k] * 9 / 10) << "pair " << pairs[k][0] << pairs[k][1];
  EXPECT_GT(kinks, 20);
  EXPECT_GT(faces, 5);
  EXPECT_GT(polytope_faces, 5);
  EXPECT_GT(sides, 20);
  EXPECT_GT(edges, 20);
  std::printf("settled");
  for (int k = 0; k < 10; ++k) std::printf(" %d/%d", settled[k], tried[k]);
  std::printf(" (cyl-cyl, cyl-cone, cyl-pp, cone-cyl, cone-cone, cone-pp, pp-cyl, pp-cone, cyl-polytope, polytope-cyl); "
              "kinks %d, faces %d (polytope %d), cone sides %d, edges %d\n",
              kinks, faces, polytope_faces, sides, edges);
}
