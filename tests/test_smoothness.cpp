// Tests of the smoothness fits (include/diffcol/shapes/smoothness.hpp).
//
// Independent reference: a brute-force distance from each exact vertex (or rim point) v to the
// smooth body K. Surface points p are found by bisection on φ along rays from the origin, first
// on a Fibonacci sphere of directions, then on grids of directions refined around the nearest
// sample; min ‖v − p‖ is an upper bound of dist(v, K), max n(p)ᵀ(v − p) (n the unit normal: K lies
// behind each tangent plane) a lower bound. Dense points of the exact surface and of the smooth
// one check that nothing is farther apart than the vertices, by the same bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "diffcol/shapes/shape.hpp"
#include "diffcol/shapes/smoothness.hpp"

#include "test_util.hpp"

namespace {

using namespace diffcol::test;

using diffcol::Mat3;
using diffcol::Shape;
using diffcol::SmoothPolytope;
using diffcol::Superellipsoid;
using diffcol::SuperellipticCylinder;
using diffcol::Vec3;

struct SurfaceSample {
  Vec3 p, n;  // point of the smooth surface, unit outward normal
};

// The surface point along the unit direction u: bisection on φ(t u) over [0, outer radius].
SurfaceSample ray_point(const Shape& K, const Vec3& u) {
  double lo = 0.0, hi = 1.001 * K.outer_radius();
  for (int k = 0; k < 64; ++k) {
    const double t = 0.5 * (lo + hi);
    (K.value(t * u) <= 0.0 ? lo : hi) = t;
  }
  SurfaceSample s;
  s.p = lo * u;
  Vec3 g;
  Mat3 H;
  K.eval(s.p, g, H);
  s.n = g.normalized();
  return s;
}

std::vector<Vec3> fibonacci_sphere(int n) {
  std::vector<Vec3> u;
  const double golden = kPi * (3.0 - std::sqrt(5.0));
  for (int i = 0; i < n; ++i) {
    const double z = 1.0 - (2.0 * i + 1.0) / n;
    const double r = std::sqrt(1.0 - z * z);
    u.emplace_back(r * std::cos(golden * i), r * std::sin(golden * i), z);
  }
  return u;
}

struct Bounds {
  double lower, upper;
};

// Bounds on dist(v, K) from surface samples (see the file comment).
Bounds brute_distance(const Shape& K, const Vec3& v, const std::vector<SurfaceSample>& coarse) {
  Bounds b{0.0, 1e300};
  Vec3 best_u = v.normalized();
  const auto consider = [&](const SurfaceSample& s) {
    const double d = (v - s.p).norm();
    if (d < b.upper) {
      b.upper = d;
      best_u = s.p.normalized();
    }
    b.lower = std::max(b.lower, s.n.dot(v - s.p));
  };
  for (const SurfaceSample& s : coarse) consider(s);
  // grids of 9 × 9 directions about the best one, shrinking around each new best
  double radius = 0.1;
  for (int level = 0; level < 10; ++level) {
    const Vec3 u0 = best_u;
    const Vec3 e1 = u0.unitOrthogonal(), e2 = u0.cross(e1);
    for (int i = -4; i <= 4; ++i)
      for (int j = -4; j <= 4; ++j) consider(ray_point(K, (u0 + radius * (i * e1 + j * e2) / 4.0).normalized()));
    radius *= 0.4;
  }
  return b;
}

std::vector<SurfaceSample> coarse_samples(const Shape& K, int n = 1500) {
  std::vector<SurfaceSample> s;
  for (const Vec3& u : fibonacci_sphere(n)) s.push_back(ray_point(K, u));
  return s;
}

// Brute-force Hausdorff bounds: over the given extreme points of the exact shape.
Bounds brute_hausdorff(const Shape& K, const std::vector<Vec3>& extreme) {
  const std::vector<SurfaceSample> coarse = coarse_samples(K);
  Bounds h{0.0, 0.0};
  for (const Vec3& v : extreme) {
    const Bounds b = brute_distance(K, v, coarse);
    h.lower = std::max(h.lower, b.lower);
    h.upper = std::max(h.upper, b.upper);
  }
  return h;
}

std::vector<Vec3> box_corners(double hx, double hy, double hz) {
  std::vector<Vec3> c;
  for (int s = 0; s < 8; ++s) c.emplace_back((s & 1 ? 1 : -1) * hx, (s & 2 ? 1 : -1) * hy, (s & 4 ? 1 : -1) * hz);
  return c;
}

std::vector<Vec3> rim_points(double R, double h) {
  std::vector<Vec3> c;
  for (int k = 0; k < 12; ++k) {
    const double t = 2.0 * kPi * k / 12.0 + 0.1;
    c.emplace_back(h, R * std::cos(t), R * std::sin(t));
    c.emplace_back(-h, R * std::cos(t), R * std::sin(t));
  }
  return c;
}

// The fitted distance lies in the brute-force bracket, which is tight, and meets the tolerance
// without being far below it.
void expect_fit(const Bounds& brute, double reported, double tolerance, double rel_slack) {
  EXPECT_LE(brute.lower, reported * (1.0 + 1e-9));
  EXPECT_GE(brute.upper, reported * (1.0 - 1e-9));
  EXPECT_LE(brute.upper - brute.lower, 1e-4 * tolerance);
  EXPECT_LE(brute.upper, tolerance * (1.0 + 1e-4));
  EXPECT_GE(brute.lower, tolerance * (1.0 - rel_slack));
}

// ------------------------------------------------------------------ smooth polytope

// The exact surface's points are nowhere farther from K than the vertices, and K's surface
// points nowhere farther from the exact surface (distance to the nearest face, closed form).
void expect_vertices_are_worst(const SmoothPolytope& P, double hausdorff) {
  const Shape K(P);
  const std::vector<SurfaceSample> coarse = coarse_samples(K, 4000);
  double worst_inner = 0.0;
  for (const SurfaceSample& s : coarse) {
    double d = 1e300;
    for (int i = 0; i < P.num_faces(); ++i) d = std::min(d, (P.offset(i) - P.normal(i).dot(s.p)) / P.normal(i).norm());
    EXPECT_GE(d, -1e-12);  // K inside the polytope
    worst_inner = std::max(worst_inner, d);
  }
  EXPECT_LE(worst_inner, hausdorff * (1.0 + 1e-9));
  // points of the exact surface: rays to the boundary of the exact polytope
  double worst_outer = 0.0;
  for (const Vec3& u : fibonacci_sphere(2000)) {
    const Vec3 x = P.ray_extent(u) * u;
    double lower = 0.0;
    for (const SurfaceSample& s : coarse) lower = std::max(lower, s.n.dot(x - s.p));
    worst_outer = std::max(worst_outer, lower);
  }
  EXPECT_LE(worst_outer, hausdorff * (1.0 + 1e-9));
}

void check_polytope_fit(const diffcol::SmoothPolytopeFit& fit, double tolerance) {
  SCOPED_TRACE("beta = " + std::to_string(fit.beta));
  EXPECT_EQ(fit.shape.beta(), fit.beta);
  EXPECT_NEAR(diffcol::smooth_polytope_hausdorff_distance(fit.shape), fit.hausdorff_distance, 1e-12 * tolerance);
  const Bounds b = brute_hausdorff(Shape(fit.shape), fit.shape.vertices());
  expect_fit(b, fit.hausdorff_distance, tolerance, 1e-5);
  expect_vertices_are_worst(fit.shape, fit.hausdorff_distance);
  // 0.1% softer misses the tolerance: β is the smallest to that precision
  const SmoothPolytope softer(
      [&] {
        Eigen::MatrixX3d A(fit.shape.num_faces(), 3);
        for (int i = 0; i < fit.shape.num_faces(); ++i) A.row(i) = fit.shape.normal(i).transpose();
        return A;
      }(),
      [&] {
        Eigen::VectorXd bb(fit.shape.num_faces());
        for (int i = 0; i < fit.shape.num_faces(); ++i) bb[i] = fit.shape.offset(i);
        return bb;
      }(),
      0.999 * fit.beta, fit.length);
  EXPECT_GT(brute_hausdorff(Shape(softer), softer.vertices()).lower, tolerance);
}

TEST(SmoothnessFit, CubeBetaMeetsTheToleranceAndIsTheSmallest) {
  for (double tol : {0.002, 0.01, 0.05}) {
    const auto fit = diffcol::fit_smooth_box(0.4, 0.4, 0.4, tol);
    check_polytope_fit(fit, tol);
    // the corner's cone x + y + z: dist = (L/β)·√3·log 3 up to terms in exp(−0.8 β/L)
    EXPECT_NEAR(fit.beta, std::sqrt(3.0) * std::log(3.0) / tol, 1e-3 * fit.beta);
  }
}

TEST(SmoothnessFit, RectangularBoxWithLength) {
  const double tol = 0.01;
  const auto fit = diffcol::fit_smooth_box(1.0, 0.3, 0.1, tol, 0.5);
  EXPECT_EQ(fit.length, 0.5);
  EXPECT_EQ(fit.shape.length(), 0.5);
  check_polytope_fit(fit, tol);
  // the shape depends on β/L only
  const auto fit1 = diffcol::fit_smooth_box(1.0, 0.3, 0.1, tol, 1.0);
  EXPECT_NEAR(fit1.beta, 2.0 * fit.beta, 1e-5 * fit1.beta);
}

TEST(SmoothnessFit, RandomConvexHull) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> radius(0.5, 1.0);
  std::vector<Vec3> pts;
  for (int i = 0; i < 30; ++i) pts.push_back(radius(rng) * random_unit(rng));
  for (double tol : {0.005, 0.03}) {
    const auto fit = diffcol::fit_smooth_convex_hull(pts, tol);
    EXPECT_GE(fit.shape.num_faces(), 10);
    check_polytope_fit(fit, tol);
  }
}

TEST(SmoothnessFit, PolytopeFromHalfSpacesWithUnnormalizedRows) {
  // a tetrahedron-like wedge, rows of different lengths
  Eigen::MatrixX3d A(5, 3);
  A << 2, 0, 0, -1, 1, 0, -1, -1, 0, 0, 0, 3, 0.5, 0, -1;
  Eigen::VectorXd b(5);
  b << 1.0, 0.6, 0.6, 0.9, 0.4;
  const double tol = 0.01;
  const auto fit = diffcol::fit_smooth_polytope(A, b, tol, 0.3);
  check_polytope_fit(fit, tol);
}

TEST(SmoothnessFit, ReportedDistanceOfAGivenBetaMatchesBruteForce) {
  // the quickstart's earlier box: β = 20 on half-extent 0.4
  const SmoothPolytope P = SmoothPolytope::box(0.4, 0.4, 0.4, 20.0);
  const double h = diffcol::smooth_polytope_hausdorff_distance(P);
  const Bounds b = brute_hausdorff(Shape(P), P.vertices());
  EXPECT_LE(b.lower, h * (1.0 + 1e-9));
  EXPECT_GE(b.upper, h * (1.0 - 1e-9));
  EXPECT_LE(b.upper - b.lower, 1e-5);
  EXPECT_GT(h, 0.09);  // 14% of the 0.69 corner distance
}

// ------------------------------------------------------------------ superellipsoid

TEST(SmoothnessFit, SuperellipsoidCornerClosedForm) {
  // cube, ε = 0: the nearest point to the corner is on the diagonal by symmetry
  for (int n : {1, 2, 3, 5, 8, 20, 64}) {
    const double a = 0.7;
    const double closed = a * std::sqrt(3.0) * (1.0 - std::pow(3.0, -0.5 / n));
    EXPECT_NEAR(diffcol::superellipsoid_box_hausdorff_distance(Superellipsoid(a, a, a, n, 0.0)), closed, 1e-12)
        << "n = " << n;
  }
}

void check_exponent_fit(const Shape& K, int n, double reported, double tolerance, const std::vector<Vec3>& extreme,
                        const Shape& softer) {
  SCOPED_TRACE("n = " + std::to_string(n));
  const Bounds b = brute_hausdorff(K, extreme);
  EXPECT_LE(b.lower, reported * (1.0 + 1e-9));
  EXPECT_GE(b.upper, reported * (1.0 - 1e-9));
  EXPECT_LE(b.upper - b.lower, 1e-4 * tolerance);
  EXPECT_LE(b.upper, tolerance * (1.0 + 1e-4));
  // n − 1 misses the tolerance: n is the smallest exponent
  if (n > 1) {
    EXPECT_GT(brute_hausdorff(softer, extreme).lower, tolerance);
  }
}

TEST(SmoothnessFit, SuperellipsoidForCubeAndBox) {
  struct Case {
    double hx, hy, hz, tol;
  };
  for (const Case& c : {Case{0.4, 0.4, 0.4, 0.02}, Case{0.4, 0.4, 0.4, 0.1}, Case{0.5, 1.0, 1.5, 0.05},
                        Case{1.0, 0.3, 0.1, 0.04}, Case{2.0, 2.0, 0.5, 0.3}}) {
    const auto fit = diffcol::fit_superellipsoid_to_box(c.hx, c.hy, c.hz, c.tol);
    EXPECT_EQ(fit.shape.exponent(), fit.exponent);
    const Vec3 ax = fit.shape.semi_axes();
    EXPECT_NEAR((ax - Vec3(c.hx, c.hy, c.hz)).norm(), 0.0, 1e-15);
    check_exponent_fit(Shape(fit.shape), fit.exponent, fit.hausdorff_distance, c.tol, box_corners(c.hx, c.hy, c.hz),
                       Shape(Superellipsoid(c.hx, c.hy, c.hz, std::max(fit.exponent - 1, 1))));
    // inside the box
    for (const SurfaceSample& s : coarse_samples(Shape(fit.shape), 500)) {
      EXPECT_LE(std::abs(s.p.x()), c.hx);
      EXPECT_LE(std::abs(s.p.y()), c.hy);
      EXPECT_LE(std::abs(s.p.z()), c.hz);
    }
  }
}

TEST(SmoothnessFit, SuperellipticCylinder) {
  struct Case {
    double R, h, tol;
  };
  for (const Case& c : {Case{0.3, 0.6, 0.02}, Case{1.0, 0.2, 0.01}, Case{0.5, 2.0, 0.1}}) {
    const auto fit = diffcol::fit_superelliptic_cylinder(c.R, c.h, c.tol);
    EXPECT_EQ(fit.shape.exponent(), fit.exponent);
    EXPECT_EQ(fit.shape.radius(), c.R);
    EXPECT_EQ(fit.shape.half_height(), c.h);
    check_exponent_fit(Shape(fit.shape), fit.exponent, fit.hausdorff_distance, c.tol, rim_points(c.R, c.h),
                       Shape(SuperellipticCylinder(c.R, c.h, std::max(fit.exponent - 1, 1))));
    // every surface point within the tolerance of the exact surface and inside the cylinder
    for (const SurfaceSample& s : coarse_samples(Shape(fit.shape), 2000)) {
      const double r = std::hypot(s.p.y(), s.p.z());
      const double inside = std::min(c.h - std::abs(s.p.x()), c.R - r);
      EXPECT_GE(inside, 0.0);
      EXPECT_LE(inside, fit.hausdorff_distance * (1.0 + 1e-9));
    }
  }
}

// ------------------------------------------------------------------ bad input

void expect_invalid(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(SmoothnessFit, RejectsBadTolerances) {
  for (double bad : {0.0, -0.01, kNaN, kInf, -kInf}) {
    expect_invalid([&] { diffcol::fit_smooth_box(0.4, 0.4, 0.4, bad); }, "tolerance must be finite and > 0");
    expect_invalid([&] { diffcol::fit_superellipsoid_to_box(0.4, 0.4, 0.4, bad); }, "tolerance must be finite");
    expect_invalid([&] { diffcol::fit_superelliptic_cylinder(0.3, 0.6, bad); }, "tolerance must be finite");
  }
  // as large as the shape
  expect_invalid([] { diffcol::fit_smooth_box(1.0, 0.3, 0.1, 0.1); }, "inradius");
  expect_invalid([] { diffcol::fit_superellipsoid_to_box(1.0, 0.3, 0.1, 0.5); }, "inradius");
  expect_invalid([] { diffcol::fit_superelliptic_cylinder(0.3, 0.6, 0.3); }, "inradius");
  // below what n ≤ 64 or double rounding reach
  expect_invalid([] { diffcol::fit_superellipsoid_to_box(0.4, 0.4, 0.4, 1e-3); }, "n = 64");
  expect_invalid([] { diffcol::fit_superelliptic_cylinder(0.3, 0.6, 1e-4); }, "n = 64");
  expect_invalid([] { diffcol::fit_smooth_box(0.4, 0.4, 0.4, 1e-10); }, "kMinFitRelativeTolerance");
  // invalid shapes: the constructors' messages
  expect_invalid([] { diffcol::fit_smooth_box(-0.4, 0.4, 0.4, 0.01); }, "half-extent");
  expect_invalid([] { diffcol::fit_smooth_box(0.4, 0.4, 0.4, 0.01, 0.0); }, "characteristic length");
  expect_invalid([] { diffcol::fit_superellipsoid_to_box(kNaN, 0.4, 0.4, 0.01); }, "superellipsoid");
  expect_invalid([] { diffcol::fit_superellipsoid_to_box(0.4, 0.4, 0.4, 0.1, 0.5); }, "superellipsoid");
  // an invalid ε is rejected even where n = 1 (which ignores ε) meets the tolerance
  expect_invalid([] { diffcol::fit_superellipsoid_to_box(0.4, 0.4, 0.4, 0.35, 0.5); }, "superellipsoid");
  expect_invalid([] { diffcol::fit_superelliptic_cylinder(0.3, 0.6, 0.29, kNaN); }, "superelliptic_cylinder");
  expect_invalid([] { diffcol::fit_superelliptic_cylinder(0.3, -1.0, 0.01); }, "superelliptic_cylinder");
  Eigen::MatrixX3d A(4, 3);
  A << 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, -1, -1;
  Eigen::VectorXd b(4);
  b << 1, 1, 1, -1;
  expect_invalid([&] { diffcol::fit_smooth_polytope(A, b, 0.01); }, "b_i must be > 0");
}

}  // namespace
