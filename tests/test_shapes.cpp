// Tests of the implicit shapes (include/diffcol/shapes/*.hpp).
//
// Independent references: central finite differences for ∇φ and ∇²φ, the documented closed
// forms of φ evaluated here with std::pow / long double, boundary distances found by bisection
// on φ along rays, and a brute-force vertex enumeration of the exact polytopes.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/shapes/shape.hpp"

#include "test_util.hpp"

namespace {

using namespace diffcol::test;

using diffcol::Mat3;
using diffcol::Shape;
using diffcol::ShapeType;
using diffcol::SmoothPolytope;
using diffcol::SmoothTruncatedCone;
using diffcol::Sphere;
using diffcol::Superellipsoid;
using diffcol::SuperellipticCylinder;
using diffcol::Vec3;



Eigen::MatrixX3d poly_A() {
  Eigen::MatrixX3d A(8, 3);
  A << 1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1, -1, -1, -1, -1, 1, 1, 1, -1, 1, 1, 1, -1;
  return A;
}
Eigen::VectorXd poly_b() {
  Eigen::VectorXd b(8);
  b << 1, 1, 1, 1, 5.0 / 3, 5.0 / 3, 5.0 / 3, 5.0 / 3;
  return b;
}

struct NamedShape {
  std::string name;
  Shape shape;
};

// The shapes of the brief: every family, several exponents / aspect ratios.
std::vector<NamedShape> all_shapes() {
  return {
      {"sphere(R=1.3)", Sphere(1.3)},
      {"superellipsoid(n=1)", Superellipsoid(0.5, 1.0, 1.5, 1)},
      {"superellipsoid(n=2)", Superellipsoid(0.5, 1.0, 1.5, 2)},
      {"superellipsoid(n=8)", Superellipsoid(0.5, 1.0, 1.5, 8)},
      {"superelliptic_cylinder(n=1)", SuperellipticCylinder(1.0, 2.0, 1)},
      {"superelliptic_cylinder(n=8)", SuperellipticCylinder(1.0, 2.0, 8)},
      {"poly(benchmark)", diffcol::idcol::benchmark_shape("poly")},
      {"poly(L=2,beta=15)", SmoothPolytope(poly_A(), poly_b(), 15.0, 2.0)},
      {"box(0.5,1,1.5)", SmoothPolytope::box(0.5, 1.0, 1.5, 20.0)},
      {"tc(benchmark)", diffcol::idcol::benchmark_shape("tc")},
      {"cone(Rt=0.05)", SmoothTruncatedCone(1.0, 0.05, 0.5, 1.5, 20.0)},
  };
}

template <class Derived>
double max_abs(const Eigen::MatrixBase<Derived>& m) {
  return m.cwiseAbs().maxCoeff();
}

// ------------------------------------------------------------------ derivatives

TEST(ShapeDerivatives, GradientAndHessianMatchCentralDifferences) {
  std::mt19937 rng(101);
  std::uniform_real_distribution<double> U(0.3, 3.0);
  for (const NamedShape& ns : all_shapes()) {
    const Shape& s = ns.shape;
    const double scale = s.outer_radius();
    const double h = 3e-6 * scale;
    double worst_g = 0.0, worst_H = 0.0;
    int tested = 0;
    for (int k = 0; k < 200; ++k) {
      const Vec3 y = U(rng) * scale * random_unit(rng);
      if (y.norm() < 1e-3) continue;
      ++tested;
      Vec3 g;
      Mat3 H;
      const double phi = s.eval(y, g, H);
      ASSERT_TRUE(std::isfinite(phi) && g.allFinite() && H.allFinite()) << ns.name;
      Vec3 gfd;
      Mat3 Hfd;
      for (int i = 0; i < 3; ++i) {
        Vec3 e = Vec3::Zero();
        e[i] = h;
        Vec3 gp, gm;
        Mat3 Hp, Hm;
        const double fp = s.eval(y + e, gp, Hp);
        const double fm = s.eval(y - e, gm, Hm);
        gfd[i] = (fp - fm) / (2.0 * h);
        Hfd.col(i) = (gp - gm) / (2.0 * h);
      }
      const double eg = max_abs(gfd - g) / std::max(max_abs(g), 1.0 / scale);
      const double eH = max_abs(Hfd - H) / std::max(max_abs(H), 1.0 / (scale * scale));
      worst_g = std::max(worst_g, eg);
      worst_H = std::max(worst_H, eH);
      EXPECT_LT(eg, 1e-6) << ns.name << " gradient at y = " << y.transpose() << " phi = " << phi;
      EXPECT_LT(eH, 1e-6) << ns.name << " Hessian at y = " << y.transpose() << " phi = " << phi;
      EXPECT_LT(max_abs(H - H.transpose()), 1e-12 * std::max(max_abs(H), 1.0)) << ns.name;
      // value() is the φ of eval()
      EXPECT_NEAR(s.value(y), phi, 1e-14 * std::max(1.0, std::abs(phi))) << ns.name;
    }
    EXPECT_GT(tested, 190);
    std::printf("  %-30s max rel. FD error: gradient %.2e, Hessian %.2e\n", ns.name.c_str(), worst_g, worst_H);
  }
}

TEST(ShapeDerivatives, ConvexityHessianIsPositiveSemidefiniteOnTheSurfaceTangent) {
  // strictly convex sublevel sets: uᵀ∇²φ u ≥ 0 for u ⟂ ∇φ at boundary points
  std::mt19937 rng(102);
  for (const NamedShape& ns : all_shapes()) {
    const Shape& s = ns.shape;
    for (int k = 0; k < 200; ++k) {
      const Vec3 u = random_unit(rng);
      double lo = 0.0, hi = s.outer_radius();
      while (s.value(hi * u) <= 0.0) hi *= 2.0;
      for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
        const double mid = 0.5 * (lo + hi);
        (s.value(mid * u) > 0.0 ? hi : lo) = mid;
      }
      Vec3 g;
      Mat3 H;
      s.eval(lo * u, g, H);
      const Vec3 t1 = g.unitOrthogonal(), t2 = g.normalized().cross(t1);
      // eigenvalues of the tangential Hessian block [p q; q r]: (p + r)/2 ± √(((p − r)/2)² + q²)
      const double p = t1.dot(H * t1), q = t1.dot(H * t2), r = t2.dot(H * t2);
      const double mid = 0.5 * (p + r), rad = std::hypot(0.5 * (p - r), q);
      const double ev_min = mid - rad, ev_max_abs = std::abs(mid) + rad;
      EXPECT_GE(ev_min, -1e-9 * std::max(1.0, ev_max_abs)) << ns.name;
      EXPECT_GT(g.dot(u), 0.0) << ns.name << ": φ increases outward along rays";
    }
  }
}

// ------------------------------------------------------------------ closed forms of φ

TEST(ShapeValues, MatchDocumentedFormulas) {
  std::mt19937 rng(103);
  std::uniform_real_distribution<double> U(0.05, 4.0);
  // superellipsoid / superelliptic cylinder with ε, evaluated with std::pow
  auto se_ref = [](int n, Vec3 ax, double eps, const Vec3& y) {
    long double S = 0.0L;
    for (int i = 0; i < 3; ++i) {
      const long double yb = y[i] / ax[i];
      S += std::pow(yb * yb + eps, (long double)n);
    }
    return (double)(std::pow(S, 1.0L / (2.0L * n)) - 1.0L);
  };
  auto sec_ref = [](int n, double R, double h, double eps, const Vec3& y) {
    const long double a = (long double)y.x() / h;
    const long double r = ((long double)y.y() * y.y() + (long double)y.z() * y.z()) / ((long double)R * R);
    const long double S = std::pow(a * a + eps, (long double)n) + std::pow(r + eps, (long double)n);
    return (double)(std::pow(S, 1.0L / (2.0L * n)) - 1.0L);
  };
  auto lse_ref = [](const Eigen::MatrixX3d& A, const Eigen::VectorXd& b, double beta, double L, const Vec3& y) {
    long double mx = -1e300L;
    std::vector<long double> c(A.rows());
    for (int i = 0; i < A.rows(); ++i) {
      c[i] = ((long double)A.row(i).dot(y) - b[i]) / L;
      mx = std::max(mx, c[i]);
    }
    long double s = 0.0L;
    for (long double ci : c) s += std::exp(beta * (ci - mx));
    return (double)(mx + std::log(s) / beta);
  };
  // truncated cone of the header, including the continuation of R below R_floor
  auto tc_ref = [](double beta, double Rb, double Rt, double a, double b, const Vec3& y) {
    const long double kappa = (Rt - Rb) / (long double)(a + b);
    long double R = Rb + kappa * (y.x() + a);
    const long double Rf = 0.5L * std::min(Rb, Rt);
    if (R < Rf) R = Rf * std::exp((R - Rf) / Rf);
    const long double r2 = (long double)y.y() * y.y() + (long double)y.z() * y.z();
    const long double c[3] = {r2 / (R * R) - 1.0L, -(long double)y.x() / a - 1.0L, (long double)y.x() / b - 1.0L};
    const long double mx = std::max(c[0], std::max(c[1], c[2]));
    long double s = 0.0L;
    for (long double ci : c) s += std::exp(beta * (ci - mx));
    return (double)(mx + std::log(s) / beta);
  };

  const Sphere sph(1.3);
  const Superellipsoid se1(0.5, 1.0, 1.5, 1), se3(0.5, 1.0, 1.5, 3, 1e-4), se8(0.5, 1.0, 1.5, 8);
  const SuperellipticCylinder sc1(1.0, 2.0, 1), sc8(1.0, 2.0, 8), sc3(0.7, 0.4, 3, 2e-3);
  const SmoothPolytope poly(poly_A(), poly_b(), 20.0), polyL(poly_A(), poly_b(), 15.0, 2.0);
  const SmoothTruncatedCone tc(1.0, 1.5, 1.5, 1.5, 20.0), cone(1.0, 0.05, 0.5, 1.5, 20.0);
  for (int k = 0; k < 500; ++k) {
    const Vec3 y = U(rng) * random_unit(rng);
    auto rel = [](double v) { return 1e-13 * std::max(1.0, std::abs(v)); };
    double r;
    r = y.norm() / 1.3 - 1.0;
    EXPECT_NEAR(sph.value(y), r, rel(r));
    r = se_ref(1, Vec3(0.5, 1.0, 1.5), 0.0, y);
    EXPECT_NEAR(se1.value(y), r, rel(r)) << "ellipsoid is unregularized";
    r = se_ref(3, Vec3(0.5, 1.0, 1.5), 1e-4, y);
    EXPECT_NEAR(se3.value(y), r, rel(r));
    r = se_ref(8, Vec3(0.5, 1.0, 1.5), Superellipsoid::kDefaultEpsilon, y);
    EXPECT_NEAR(se8.value(y), r, rel(r));
    r = sec_ref(1, 1.0, 2.0, 0.0, y);
    EXPECT_NEAR(sc1.value(y), r, rel(r));
    r = sec_ref(8, 1.0, 2.0, SuperellipticCylinder::kDefaultEpsilon, y);
    EXPECT_NEAR(sc8.value(y), r, rel(r));
    r = sec_ref(3, 0.7, 0.4, 2e-3, y);
    EXPECT_NEAR(sc3.value(y), r, rel(r));
    r = lse_ref(poly_A(), poly_b(), 20.0, 1.0, y);
    EXPECT_NEAR(poly.value(y), r, rel(r));
    r = lse_ref(poly_A(), poly_b(), 15.0, 2.0, y);
    EXPECT_NEAR(polyL.value(y), r, rel(r));
    r = tc_ref(20.0, 1.0, 1.5, 1.5, 1.5, y);
    EXPECT_NEAR(tc.value(y), r, 1e-12 * std::max(1.0, std::abs(r)));
    r = tc_ref(20.0, 1.0, 0.05, 0.5, 1.5, y);
    EXPECT_NEAR(cone.value(y), r, 1e-12 * std::max(1.0, std::abs(r)));
  }
}

TEST(ShapeValues, EvaluationAtTheBodyOriginIsFinite) {
  // detail.hpp: kTinyS exists "so that an evaluation at the shape's origin stays finite";
  // sphere.hpp documents finiteness at y = 0 explicitly.
  std::vector<NamedShape> shapes = all_shapes();
  shapes.push_back({"superellipsoid(n=2, eps=0)", Superellipsoid(0.5, 1.0, 1.5, 2, 0.0)});
  for (const NamedShape& ns : shapes) {
    for (const Vec3& y : {Vec3(0, 0, 0), Vec3(1e-200, 0, 0), Vec3(0, -1e-160, 1e-170)}) {
      Vec3 g;
      Mat3 H;
      const double phi0 = ns.shape.eval(y, g, H);
      EXPECT_TRUE(std::isfinite(phi0)) << ns.name << " at " << y.transpose();
      EXPECT_TRUE(g.allFinite()) << ns.name << " at " << y.transpose() << ": grad " << g.transpose();
      EXPECT_TRUE(H.allFinite()) << ns.name << " at " << y.transpose() << ": Hessian\n" << H;
      EXPECT_LT(phi0, 0.0) << ns.name;
      EXPECT_TRUE(std::isfinite(ns.shape.value(y))) << ns.name;
    }
  }
}

// ------------------------------------------------------------------ bounding radii

// Distance from the origin to {φ = 0} along u, by bisection on φ(t u) (φ is convex along the ray
// and negative at t = 0, so the crossing is unique).
double boundary_distance(const std::function<double(const Vec3&)>& phi, const Vec3& u, double t0,
                         double rel_tol = 4e-16) {
  double lo = 0.0, hi = t0;
  while (phi(hi * u) <= 0.0) {
    lo = hi;
    hi *= 2.0;
  }
  for (int it = 0; it < 200 && hi - lo > rel_tol * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (phi(mid * u) > 0.0 ? hi : lo) = mid;
  }
  return 0.5 * (lo + hi);
}

// Local refinement of an extremum of ρ(u) over the unit sphere by a shrinking random search.
double refine_extremum(const std::function<double(const Vec3&)>& rho, Vec3 u, double best, bool maximize,
                       std::mt19937& rng) {
  std::normal_distribution<double> N(0.0, 1.0);
  double sigma = 0.05;
  for (int it = 0; it < 1500 && sigma > 1e-7; ++it) {
    const Vec3 v = (u + sigma * Vec3(N(rng), N(rng), N(rng))).normalized();
    const double r = rho(v);
    if (maximize ? r > best : r < best) {
      best = r;
      u = v;
    } else {
      sigma *= 0.99;
    }
  }
  return best;
}

TEST(ShapeRadii, InnerAndOuterRadiiAreTrueBounds) {
  std::mt19937 rng(104);
  const int kDirections = 20000;
  for (const NamedShape& ns : all_shapes()) {
    const Shape& s = ns.shape;
    auto phi = [&](const Vec3& y) { return s.value(y); };
    auto rho = [&](const Vec3& u) { return boundary_distance(phi, u, 0.25, 1e-11); };
    const double rin = s.inner_radius(), rout = s.outer_radius();
    ASSERT_GT(rin, 0.0) << ns.name;
    ASSERT_GE(rout, rin) << ns.name;
    double tmin = 1e300, tmax = 0.0;
    Vec3 umin, umax;
    int below = 0, above = 0;
    for (int k = 0; k < kDirections; ++k) {
      const Vec3 u = random_unit(rng);
      const double t = rho(u);
      if (t < tmin) {
        tmin = t;
        umin = u;
      }
      if (t > tmax) {
        tmax = t;
        umax = u;
      }
      below += t < rin - 1e-9;
      above += t > rout + 1e-9;
    }
    // the coordinate axes and diagonals as well (extremes of the superquadrics)
    for (int sx = -1; sx <= 1; ++sx)
      for (int sy = -1; sy <= 1; ++sy)
        for (int sz = -1; sz <= 1; ++sz) {
          if (sx == 0 && sy == 0 && sz == 0) continue;
          const Vec3 u = Vec3(sx, sy, sz).normalized();
          const double t = rho(u);
          below += t < rin - 1e-9;
          above += t > rout + 1e-9;
          if (t < tmin) { tmin = t; umin = u; }
          if (t > tmax) { tmax = t; umax = u; }
        }
    tmin = refine_extremum(rho, umin, tmin, false, rng);
    tmax = refine_extremum(rho, umax, tmax, true, rng);
    EXPECT_EQ(below, 0) << ns.name << ": inner radius " << rin << " exceeds a boundary distance";
    EXPECT_EQ(above, 0) << ns.name << ": outer radius " << rout << " is below a boundary distance";
    EXPECT_LE(rin, tmin + 1e-9) << ns.name;
    EXPECT_GE(rout, tmax - 1e-9) << ns.name;
    std::printf("  %-30s inner %.6f <= min %.6f   max %.6f <= outer %.6f\n", ns.name.c_str(), rin, tmin, tmax, rout);
  }
}

TEST(ShapeRadii, TightWhereClosedFormsExist) {
  std::mt19937 rng(105);
  auto extremes = [&](const Shape& s, double& tmin, double& tmax) {
    auto phi = [&](const Vec3& y) { return s.value(y); };
    auto rho = [&](const Vec3& u) { return boundary_distance(phi, u, 0.25, 1e-11); };
    tmin = 1e300;
    tmax = 0.0;
    Vec3 umin, umax;
    for (int k = 0; k < 4000; ++k) {
      const Vec3 u = random_unit(rng);
      const double t = rho(u);
      if (t < tmin) { tmin = t; umin = u; }
      if (t > tmax) { tmax = t; umax = u; }
    }
    tmin = refine_extremum(rho, umin, tmin, false, rng);
    tmax = refine_extremum(rho, umax, tmax, true, rng);
  };
  double tmin, tmax;
  {  // sphere: exact
    const Shape s = Sphere(1.3);
    EXPECT_DOUBLE_EQ(s.inner_radius(), 1.3);
    EXPECT_DOUBLE_EQ(s.outer_radius(), 1.3);
    extremes(s, tmin, tmax);
    EXPECT_NEAR(tmin, 1.3, 1e-12);
    EXPECT_NEAR(tmax, 1.3, 1e-12);
  }
  {  // ellipsoid: min and max semi-axis
    const Shape s = Superellipsoid::ellipsoid(0.5, 1.0, 1.5);
    EXPECT_NEAR(s.inner_radius(), 0.5, 1e-15);
    EXPECT_NEAR(s.outer_radius(), 1.5, 1e-15);
    extremes(s, tmin, tmax);
    EXPECT_NEAR(tmin, 0.5, 1e-6);
    EXPECT_NEAR(tmax, 1.5, 1e-6);
  }
  {  // rotated axis order
    const Shape s = Superellipsoid::ellipsoid(2.0, 0.3, 0.9);
    EXPECT_NEAR(s.inner_radius(), 0.3, 1e-15);
    EXPECT_NEAR(s.outer_radius(), 2.0, 1e-15);
  }
  // superquadrics: within 1% of the sampled extremes
  for (const NamedShape& ns : {NamedShape{"superellipsoid(n=8)", Superellipsoid(0.5, 1.0, 1.5, 8)},
                               NamedShape{"superellipsoid(n=2)", Superellipsoid(0.5, 1.0, 1.5, 2)},
                               NamedShape{"superelliptic_cylinder(n=8)", SuperellipticCylinder(1.0, 2.0, 8)},
                               NamedShape{"superelliptic_cylinder(n=1)", SuperellipticCylinder(1.0, 2.0, 1)}}) {
    extremes(ns.shape, tmin, tmax);
    EXPECT_LE(ns.shape.outer_radius(), 1.01 * tmax) << ns.name;
    EXPECT_GE(ns.shape.inner_radius(), 0.99 * tmin) << ns.name;
  }
  {  // truncated cones: outer = farthest rim point of the exact shape; the smooth shape comes close
    for (const NamedShape& ns : {NamedShape{"tc", SmoothTruncatedCone(1.0, 1.5, 1.5, 1.5, 20.0)},
                                 NamedShape{"cone", SmoothTruncatedCone(1.0, 0.05, 0.5, 1.5, 20.0)},
                                 NamedShape{"tc sharp", SmoothTruncatedCone(1.0, 1.5, 1.5, 1.5, 400.0)}}) {
      const auto& c = ns.shape.as<SmoothTruncatedCone>();
      const double exact = std::max(std::hypot(c.bottom_extent(), c.bottom_radius()),
                                    std::hypot(c.top_extent(), c.top_radius()));
      EXPECT_NEAR(ns.shape.outer_radius(), exact, 1e-12 * exact) << ns.name;
      extremes(ns.shape, tmin, tmax);
      EXPECT_GE(ns.shape.outer_radius(), tmax) << ns.name;
      EXPECT_GT(tmax, 0.85 * ns.shape.outer_radius()) << ns.name;
    }
    // at large β the smooth shape converges to the exact one: the bound becomes tight
    const Shape sharp = SmoothTruncatedCone(1.0, 1.5, 1.5, 1.5, 2000.0);
    extremes(sharp, tmin, tmax);
    EXPECT_GT(tmax, 0.99 * sharp.outer_radius());
  }
}

// Brute-force vertex enumeration of {A y ≤ b}.
std::vector<Vec3> brute_vertices(const Eigen::MatrixX3d& A, const Eigen::VectorXd& b) {
  std::vector<Vec3> out;
  const int m = static_cast<int>(A.rows());
  for (int i = 0; i < m; ++i)
    for (int j = i + 1; j < m; ++j)
      for (int k = j + 1; k < m; ++k) {
        Mat3 M;
        M << A.row(i), A.row(j), A.row(k);
        // three planes meet in one point iff their normals are independent (rows of A are O(1))
        if (!(std::abs(M.determinant()) > 1e-10)) continue;
        const Vec3 v = M.inverse() * Vec3(b[i], b[j], b[k]);
        if (((A * v - b).array() > 1e-9).any()) continue;
        bool dup = false;
        for (const Vec3& w : out) dup = dup || (w - v).norm() < 1e-9;
        if (!dup) out.push_back(v);
      }
  return out;
}

TEST(ShapeRadii, PolytopeOuterRadiusIsTheFarthestVertex) {
  struct Case {
    Eigen::MatrixX3d A;
    Eigen::VectorXd b;
    double beta, L;
  };
  std::vector<Case> cases;
  cases.push_back({poly_A(), poly_b(), 20.0, 1.0});
  cases.push_back({poly_A(), poly_b(), 15.0, 2.0});
  {  // octahedron: four faces meet at every vertex (degenerate vertices), and a redundant face
    Eigen::MatrixX3d A(9, 3);
    A << 1, 1, 1, 1, 1, -1, 1, -1, 1, 1, -1, -1, -1, 1, 1, -1, 1, -1, -1, -1, 1, -1, -1, -1, 1, 0, 0;
    Eigen::VectorXd b(9);
    b << 1, 1, 1, 1, 1, 1, 1, 1, 3;  // the last one, x ≤ 3, touches nothing
    cases.push_back({A, b, 30.0, 1.0});
  }
  {  // random polytopes, some faces redundant
    std::mt19937 r(108);
    std::uniform_real_distribution<double> U(0.5, 1.5);
    // 6 to 39 faces (the brute-force route), then 70 and 110 (the polar hull, above 64 faces)
    for (int t = 0; t < 14; ++t) {
      const int m = t < 12 ? 6 + 3 * t : (t == 12 ? 70 : 110);
      Eigen::MatrixX3d A(m, 3);
      Eigen::VectorXd b(m);
      for (int i = 0; i < m; ++i) {
        A.row(i) = random_unit(r).transpose() * U(r);
        b[i] = U(r) * (i % 5 == 4 ? 2.0 : 1.0);
      }
      // bounded iff no d ≠ 0 has A d ≤ 0; the extreme rays of that cone are ±(a_i × a_j)
      bool bounded = Eigen::FullPivLU<Eigen::MatrixX3d>(A).rank() == 3;
      for (int i = 0; i < m && bounded; ++i)
        for (int j = i + 1; j < m && bounded; ++j) {
          const Vec3 d = A.row(i).transpose().cross(A.row(j).transpose()).normalized();
          bounded = (A * d).maxCoeff() > 1e-9 && (A * -d).maxCoeff() > 1e-9;
        }
      if (bounded) {
        cases.push_back({A, b, 30.0, 1.0});
      } else {
        EXPECT_THROW(SmoothPolytope(A, b, 30.0), std::invalid_argument) << "unbounded case " << t;
      }
    }
  }
  {
    Eigen::MatrixX3d A(6, 3);
    A << 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1;
    Eigen::VectorXd b(6);
    b << 0.5, 0.7, 1.0, 0.2, 1.5, 0.4;  // off-centre box
    cases.push_back({A, b, 40.0, 1.0});
  }
  {  // random polytope: many random unit normals, random offsets
    std::mt19937 rng(106);
    std::uniform_real_distribution<double> U(0.5, 1.5);
    Eigen::MatrixX3d A(14, 3);
    Eigen::VectorXd b(14);
    for (int i = 0; i < 14; ++i) {
      A.row(i) = random_unit(rng).transpose() * U(rng);
      b[i] = U(rng);
    }
    cases.push_back({A, b, 30.0, 1.0});
  }
  int polar = 0;  // cases above 64 faces (the polar-hull route); both random ones are bounded
  for (const Case& c : cases) polar += c.A.rows() > 64;
  EXPECT_EQ(polar, 2);
  std::mt19937 rng(107);
  for (const Case& c : cases) {
    const SmoothPolytope P(c.A, c.b, c.beta, c.L);
    const std::vector<Vec3> V = brute_vertices(c.A, c.b);
    ASSERT_GE(V.size(), 4u);
    double far = 0.0;
    for (const Vec3& v : V) far = std::max(far, v.norm());
    EXPECT_NEAR(P.outer_radius(), far, 1e-12 * far);
    // vertices() is the vertex set of the exact polytope
    ASSERT_EQ(P.vertices().size(), V.size());
    for (const Vec3& v : V) {
      double d = 1e300;
      for (const Vec3& w : P.vertices()) d = std::min(d, (w - v).norm());
      EXPECT_LT(d, 1e-9);
    }
    EXPECT_EQ(P.num_faces(), c.A.rows());
    for (int i = 0; i < c.A.rows(); ++i) {
      EXPECT_LT((P.normal(i) - c.A.row(i).transpose()).norm(), 1e-14);
      EXPECT_NEAR(P.offset(i), c.b[i], 1e-14);
    }
    // the inner radius is below the exact polytope's inradius (the smooth shape lies inside)
    double inrad = 1e300;
    for (int i = 0; i < c.A.rows(); ++i) inrad = std::min(inrad, c.b[i] / c.A.row(i).norm());
    EXPECT_LT(P.inner_radius(), inrad);
    EXPECT_GT(P.inner_radius(), 0.0);
    // and a true bound of the smooth shape
    const Shape s = P;
    auto phi = [&](const Vec3& y) { return s.value(y); };
    for (int k = 0; k < 2000; ++k) {
      const Vec3 u = random_unit(rng);
      const double t = boundary_distance(phi, u, 0.25);
      EXPECT_GE(t, P.inner_radius() - 1e-9);
      EXPECT_LE(t, P.outer_radius() + 1e-9);
    }
  }
}

// ------------------------------------------------------------------ ray extents of the exact shapes

TEST(ShapeRayExtent, MatchesTheExactShapes) {
  std::mt19937 rng(108);
  const Sphere sph(1.3);
  const Superellipsoid se1(0.5, 1.0, 1.5, 1), se8(0.5, 1.0, 1.5, 8), se3(0.5, 1.0, 1.5, 3);
  const SuperellipticCylinder sc1(1.0, 2.0, 1), sc8(1.0, 2.0, 8), sc5(0.6, 1.7, 5);
  const SmoothPolytope poly(poly_A(), poly_b(), 20.0), polyL(poly_A(), poly_b(), 15.0, 2.0);
  const SmoothTruncatedCone tc(1.0, 1.5, 1.5, 1.5, 20.0), cone(1.0, 0.05, 0.5, 1.5, 20.0);
  auto se_exact = [](int n, Vec3 ax, const Vec3& u) {
    double s = 0.0;
    for (int i = 0; i < 3; ++i) s += std::pow(std::abs(u[i] / ax[i]), 2.0 * n);
    return std::pow(s, -0.5 / n);
  };
  auto sec_exact = [](int n, double R, double h, const Vec3& u) {
    const double s = std::pow(std::abs(u.x() / h), 2.0 * n) + std::pow(std::hypot(u.y(), u.z()) / R, 2.0 * n);
    return std::pow(s, -0.5 / n);
  };
  auto poly_exact = [](const Eigen::MatrixX3d& A, const Eigen::VectorXd& b, const Vec3& u) {
    auto f = [&](const Vec3& y) { return (A * y - b).maxCoeff(); };
    return boundary_distance(f, u, 0.25);
  };
  auto tc_exact = [](double Rb, double Rt, double a, double b, const Vec3& u) {
    auto f = [&](const Vec3& y) {
      const double R = Rb + (Rt - Rb) * (y.x() + a) / (a + b);
      return std::max({std::hypot(y.y(), y.z()) - R, -y.x() - a, y.x() - b});
    };
    return boundary_distance(f, u, 0.25);
  };
  for (int k = 0; k < 2000; ++k) {
    const Vec3 u = random_unit(rng);
    EXPECT_DOUBLE_EQ(sph.ray_extent(u), 1.3);
    EXPECT_NEAR(se1.ray_extent(u), se_exact(1, Vec3(0.5, 1.0, 1.5), u), 1e-13);
    EXPECT_NEAR(se3.ray_extent(u), se_exact(3, Vec3(0.5, 1.0, 1.5), u), 1e-13);
    EXPECT_NEAR(se8.ray_extent(u), se_exact(8, Vec3(0.5, 1.0, 1.5), u), 1e-13);
    EXPECT_NEAR(sc1.ray_extent(u), sec_exact(1, 1.0, 2.0, u), 1e-13);
    EXPECT_NEAR(sc8.ray_extent(u), sec_exact(8, 1.0, 2.0, u), 1e-13);
    EXPECT_NEAR(sc5.ray_extent(u), sec_exact(5, 0.6, 1.7, u), 1e-13);
    EXPECT_NEAR(poly.ray_extent(u), poly_exact(poly_A(), poly_b(), u), 1e-12);
    EXPECT_NEAR(polyL.ray_extent(u), poly_exact(poly_A(), poly_b(), u), 1e-12);
    EXPECT_NEAR(tc.ray_extent(u), tc_exact(1.0, 1.5, 1.5, 1.5, u), 1e-12);
    EXPECT_NEAR(cone.ray_extent(u), tc_exact(1.0, 0.05, 0.5, 1.5, u), 1e-12);
  }
}

TEST(ShapeSupport, SupportPointsLieOnTheUnregularizedSurfaceAndAreMaximal) {
  // support(d) of the sphere, superellipsoids and superelliptic cylinders: on the surface of the
  // unregularized shape (gauge 1, written from the documented formulas) and at least as far
  // along d as 4000 surface points sampled along random rays (exact ray extents).
  std::mt19937 rng(109);
  const Vec3 ax(0.5, 1.0, 1.5);
  auto se_gauge = [&](int n, const Vec3& y) {
    double s = 0.0;
    for (int i = 0; i < 3; ++i) s += std::pow(std::abs(y[i] / ax[i]), 2.0 * n);
    return std::pow(s, 0.5 / n);
  };
  auto sec_gauge = [](int n, double R, double h, const Vec3& y) {
    const double s = std::pow(std::abs(y.x() / h), 2.0 * n) + std::pow(std::hypot(y.y(), y.z()) / R, 2.0 * n);
    return std::pow(s, 0.5 / n);
  };
  struct Case {
    std::string name;
    std::function<Vec3(const Vec3&)> support;
    std::function<double(const Vec3&)> gauge;
  };
  std::vector<Case> cases;
  const Sphere sph(1.3);
  cases.push_back({"sphere", [&](const Vec3& d) { return sph.support(d); }, [](const Vec3& y) { return y.norm() / 1.3; }});
  for (int n : {1, 3, 8}) {
    const Superellipsoid se(ax.x(), ax.y(), ax.z(), n);
    cases.push_back({"se" + std::to_string(n), [se](const Vec3& d) { return se.support(d); },
                     [&, n](const Vec3& y) { return se_gauge(n, y); }});
    const SuperellipticCylinder sc(0.6, 1.7, n);
    cases.push_back({"sec" + std::to_string(n), [sc](const Vec3& d) { return sc.support(d); },
                     [&, n](const Vec3& y) { return sec_gauge(n, 0.6, 1.7, y); }});
  }
  for (const Case& c : cases) {
    std::vector<Vec3> surface;
    for (int k = 0; k < 4000; ++k) {
      const Vec3 u = random_unit(rng);
      surface.push_back(u / c.gauge(u));
    }
    for (int k = 0; k < 200; ++k) {
      const Vec3 d = random_unit(rng) * std::pow(10.0, 4.0 * (k % 5) / 4.0 - 2.0);
      const Vec3 y = c.support(d);
      EXPECT_NEAR(c.gauge(y), 1.0, 1e-12) << c.name;
      double best = -1e300;
      for (const Vec3& p : surface) best = std::max(best, d.dot(p));
      EXPECT_GE(d.dot(y), best - 1e-12 * d.norm()) << c.name;
    }
    EXPECT_EQ(c.support(Vec3::Zero()), Vec3::Zero()) << c.name;
  }
}

// ------------------------------------------------------------------ polytopes

TEST(SmoothPolytope, LiesInsideTheExactPolytopeAndWithinTheSmoothMaxSlack) {
  // max c ≤ φ = smax_β(c) ≤ max c + log(m)/β, c_i = (a_i·y − b_i)/L
  std::mt19937 rng(109);
  std::uniform_real_distribution<double> U(0.0, 4.0);
  for (double L : {1.0, 2.0, 0.5}) {
    for (double beta : {10.0, 20.0, 200.0}) {
      const SmoothPolytope P(poly_A(), poly_b(), beta, L);
      for (int k = 0; k < 500; ++k) {
        const Vec3 y = U(rng) * random_unit(rng);
        const double cmax = (poly_A() * y - poly_b()).maxCoeff() / L;
        const double phi = P.value(y);
        EXPECT_GE(phi, cmax - 1e-14 * std::max(1.0, std::abs(cmax)));
        EXPECT_LE(phi, cmax + std::log(8.0) / beta + 1e-14 * std::max(1.0, std::abs(cmax)));
      }
    }
  }
}

TEST(SmoothPolytope, BoxAndConvexHullEqualTheHalfSpacePolytope) {
  std::mt19937 rng(110);
  std::uniform_real_distribution<double> U(-2.5, 2.5);
  const double hx = 0.5, hy = 1.0, hz = 1.5;
  for (double L : {1.0, 1.7}) {
    const double beta = 20.0;
    // the same half-spaces in a different order
    Eigen::MatrixX3d A(6, 3);
    A << 0, 0, -1, 0, 1, 0, 1, 0, 0, 0, 0, 1, -1, 0, 0, 0, -1, 0;
    Eigen::VectorXd b(6);
    b << hz, hy, hx, hz, hx, hy;
    const SmoothPolytope ref(A, b, beta, L);
    const SmoothPolytope box = SmoothPolytope::box(hx, hy, hz, beta, L);
    std::vector<Vec3> corners;
    for (int sx = -1; sx <= 1; sx += 2)
      for (int sy = -1; sy <= 1; sy += 2)
        for (int sz = -1; sz <= 1; sz += 2) corners.emplace_back(sx * hx, sy * hy, sz * hz);
    const SmoothPolytope hull = SmoothPolytope::convex_hull(corners, beta, L);
    EXPECT_EQ(box.num_faces(), 6);
    EXPECT_EQ(hull.num_faces(), 6);
    EXPECT_EQ(box.vertices().size(), 8u);
    EXPECT_EQ(hull.vertices().size(), 8u);
    EXPECT_NEAR(box.outer_radius(), std::sqrt(hx * hx + hy * hy + hz * hz), 1e-14);
    EXPECT_NEAR(hull.outer_radius(), std::sqrt(hx * hx + hy * hy + hz * hz), 1e-14);
    for (int k = 0; k < 500; ++k) {
      const Vec3 y(U(rng), U(rng), U(rng));
      Vec3 g0, g1, g2;
      Mat3 H0, H1, H2;
      const double f0 = ref.eval(y, g0, H0);
      const double f1 = box.eval(y, g1, H1);
      const double f2 = hull.eval(y, g2, H2);
      const double tol = 1e-12 * std::max(1.0, std::abs(f0));
      EXPECT_NEAR(f1, f0, tol);
      EXPECT_NEAR(f2, f0, tol);
      EXPECT_LT((g1 - g0).norm(), 1e-12 * std::max(1.0, g0.norm()));
      EXPECT_LT((g2 - g0).norm(), 1e-12 * std::max(1.0, g0.norm()));
      EXPECT_LT((H1 - H0).norm(), 1e-10 * std::max(1.0, H0.norm()));
      EXPECT_LT((H2 - H0).norm(), 1e-10 * std::max(1.0, H0.norm()));
    }
  }
}

TEST(SmoothPolytope, VectorizedEvaluationMatchesTheScalarReference) {
  // SmoothPolytope::eval runs detail::smooth_planes_eval_vectorized (faces in AVX2 or AVX-512
  // lanes, its own exp); detail::smooth_planes_eval is the scalar reference. Every width the CPU
  // has, face counts that leave tails (4..~100), β from 1 to 400, points inside, on and far
  // outside the shape (where most faces fall under the e^-40 cut).
  std::mt19937 rng(131);
  std::normal_distribution<double> N;
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::vector<SmoothPolytope> shapes;
  shapes.push_back(SmoothPolytope(poly_A(), poly_b(), 20.0));
  shapes.push_back(SmoothPolytope::box(0.5, 1.0, 1.5, 20.0, 0.7));
  for (int n : {4, 5, 6, 7, 9, 12, 17, 30, 55}) {
    std::vector<Vec3> pts;
    for (int i = 0; i < n; ++i) pts.push_back((0.8 + U(rng)) * random_unit(rng));
    // a small tetrahedron about the origin keeps the origin inside
    for (const Vec3& t : {Vec3(1, 1, 1), Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)}) pts.push_back(0.7 * t);
    shapes.push_back(SmoothPolytope::convex_hull(pts, 20.0));
  }
  ASSERT_EQ(shapes.size(), 11u);
  int faces_max = 0;
  for (const auto& P : shapes) faces_max = std::max(faces_max, P.num_faces());
  EXPECT_GE(faces_max, 40);
  const int widest = diffcol::detail::set_smooth_planes_width(8);
  std::vector<int> widths{1};
  if (widest >= 4) widths.push_back(4);
  if (widest >= 8) widths.push_back(8);
  for (int w : widths) {
    ASSERT_EQ(diffcol::detail::set_smooth_planes_width(w), w);
    ASSERT_EQ(diffcol::detail::smooth_planes_width(), w);
    for (const auto& P : shapes) {
      const auto F = P.face_data();
      double amax = 0.0;
      for (int i = 0; i < F.m; ++i) amax = std::max(amax, std::sqrt(F.ax[i] * F.ax[i] + F.ay[i] * F.ay[i] + F.az[i] * F.az[i]));
      for (double beta : {1.0, 20.0, 400.0}) {
        for (int k = 0; k < 300; ++k) {
          const double r = k < 100 ? 3.0 * U(rng) : k < 200 ? P.ray_extent(random_unit(rng)) : 1e3 * U(rng);
          const Vec3 y = r * Vec3(N(rng), N(rng), N(rng)).normalized();
          Vec3 g0, g1;
          Mat3 H0, H1;
          const double f0 = diffcol::detail::smooth_planes_eval(F.ax, F.ay, F.az, F.b, F.m, y, g0, H0, beta);
          const double f1 = P.eval_at_beta(y, g1, H1, beta);
          // c_i is rounded differently (FMAs) by ~ε·‖a‖‖y‖, and the weights exp(β(c_i − max c)) with
          // it by ~β·ε·‖a‖‖y‖ relative: that sets the tolerances far out at large β
          const double kw = 1.0 + beta * amax * y.norm();
          EXPECT_NEAR(f1, f0, 1e-13 * std::max(1.0, std::abs(f0))) << "width " << w << " faces " << F.m;
          EXPECT_LT((g1 - g0).norm(), 1e-14 * kw * amax) << "width " << w << " faces " << F.m << " |y| " << y.norm();
          // H = β(Σ w a aᵀ/Σw − ∇φ∇φᵀ): the cancellation adds ~β·‖a‖²·ε
          EXPECT_LT((H1 - H0).norm(), 1e-14 * kw * beta * amax * amax) << "width " << w << " faces " << F.m;
        }
      }
      // non-finite points: the same non-finite value as the reference
      for (const Vec3& y : {Vec3(std::nan(""), 0.0, 0.0), Vec3(1e300, 1e300, 0.0), Vec3(-INFINITY, 0.0, 1.0)}) {
        Vec3 g0, g1;
        Mat3 H0, H1;
        const double f0 = diffcol::detail::smooth_planes_eval(F.ax, F.ay, F.az, F.b, F.m, y, g0, H0, 20.0);
        const double f1 = P.eval(y, g1, H1);
        EXPECT_EQ(std::isfinite(f1), std::isfinite(f0));
        if (std::isfinite(f0)) {
          EXPECT_NEAR(f1, f0, 1e-13 * std::abs(f0));
        }
      }
    }
  }
  diffcol::detail::set_smooth_planes_width(8);  // back to the widest
}

// Every point satisfies every half-space of H, and every half-space is tight at ≥ 3 points.
void expect_supporting_half_spaces(const SmoothPolytope& H, const std::vector<Vec3>& pts) {
  for (int i = 0; i < H.num_faces(); ++i) {
    int tight = 0;
    for (const Vec3& p : pts) {
      const double c = H.normal(i).dot(p) - H.offset(i);
      EXPECT_LE(c, 1e-9);
      tight += std::abs(c) < 1e-9;
    }
    EXPECT_GE(tight, 3);
  }
}

TEST(SmoothPolytope, ConvexHullOfRandomPointsContainsThemAndMatchesBruteForceFacets) {
  // Hull of the vertices of the benchmark polytope plus interior points: same exact polytope.
  std::mt19937 rng(111);
  const SmoothPolytope P(poly_A(), poly_b(), 20.0);
  std::vector<Vec3> pts = P.vertices();
  std::uniform_real_distribution<double> W(0.0, 1.0);
  for (int k = 0; k < 20; ++k) {  // convex combinations: interior points
    Vec3 p = Vec3::Zero();
    double sw = 0.0;
    for (const Vec3& v : P.vertices()) {
      const double w = W(rng);
      p += w * v;
      sw += w;
    }
    pts.push_back(p / sw);
  }
  const SmoothPolytope H = SmoothPolytope::convex_hull(pts, 20.0);
  expect_supporting_half_spaces(H, pts);
  // same exact polytope: ray extents agree
  for (int k = 0; k < 500; ++k) {
    const Vec3 u = random_unit(rng);
    EXPECT_NEAR(H.ray_extent(u), P.ray_extent(u), 1e-12);
  }
}

TEST(SmoothPolytope, ConvexHullMatchesBruteForcePlanesAndScales) {
  // The hull (Qhull) against an independent O(n⁴) enumeration of supporting planes (every
  // triple whose plane has all points on one side), on point sets with coplanar faces (a grid on
  // a cube's surface), random points in a ball and on a sphere; then 3000 points on a sphere,
  // and a 3000-point box: contains every point, every face tight at ≥ 3; a hull with more faces
  // than SmoothPolytope::kMaxFaces is a clear error.
  std::mt19937 rng(112);
  std::normal_distribution<double> N(0.0, 1.0);
  std::uniform_real_distribution<double> W(0.0, 1.0);
  const auto brute_planes = [](const std::vector<Vec3>& P) {
    std::vector<std::pair<Vec3, double>> out;
    const int n = static_cast<int>(P.size());
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        for (int k = j + 1; k < n; ++k) {
          Vec3 m = (P[j] - P[i]).cross(P[k] - P[i]);
          if (m.norm() < 1e-9) continue;
          m.normalize();
          double d = m.dot(P[i]);
          int above = 0, below = 0;
          for (const Vec3& q : P) {
            above += m.dot(q) - d > 1e-9;
            below += m.dot(q) - d < -1e-9;
          }
          if (above && below) continue;
          if (above) m = -m, d = -d;
          bool dup = false;
          for (const auto& [m2, d2] : out) dup = dup || ((m2 - m).norm() < 1e-7 && std::abs(d2 - d) < 1e-7);
          if (!dup) out.push_back({m, d});
        }
    return out;
  };
  std::vector<std::vector<Vec3>> sets;
  {  // 5×5 grid on each face of a cube: 98 points, 6 planes with many coplanar points
    std::vector<Vec3> g;
    for (int a = 0; a < 5; ++a)
      for (int b = 0; b < 5; ++b)
        for (int c = 0; c < 5; ++c)
          if (a == 0 || a == 4 || b == 0 || b == 4 || c == 0 || c == 4) g.emplace_back(0.5 * a - 1, 0.5 * b - 1, 0.5 * c - 1);
    sets.push_back(g);
  }
  for (int t = 0; t < 4; ++t) {
    std::vector<Vec3> q;
    for (int k = 0; k < 40; ++k) {
      Vec3 v(N(rng), N(rng), N(rng));
      v.normalize();
      q.push_back((t % 2 ? 1.0 : std::cbrt(W(rng))) * v);
    }
    sets.push_back(q);
  }
  for (size_t s = 0; s < sets.size(); ++s) {
    const SmoothPolytope H = SmoothPolytope::convex_hull(sets[s], 20.0);
    const auto ref = brute_planes(sets[s]);
    EXPECT_EQ(H.num_faces(), static_cast<int>(ref.size())) << s;
    for (const auto& [m, d] : ref) {
      bool found = false;
      for (int i = 0; i < H.num_faces(); ++i)
        found = found || ((H.normal(i) - m).norm() < 1e-7 && std::abs(H.offset(i) - d) < 1e-7);
      EXPECT_TRUE(found) << "set " << s << ": plane " << m.transpose() << " / " << d << " missing";
    }
  }
  // 3000 points: a 20×20 grid on each face of a box plus points inside (the brute force over point
  // triples was O(n⁴), hours at this size)
  std::vector<Vec3> big;
  for (int f = 0; f < 6; ++f)
    for (int a = 0; a < 20; ++a)
      for (int b = 0; b < 20; ++b) {
        const double u = -1.0 + 2.0 * a / 19.0, v = -1.0 + 2.0 * b / 19.0, w = (f % 2) ? 1.0 : -1.0;
        // the box [−1, 1] × [−0.5, 0.5] × [−1, 1]
        big.push_back(f < 2 ? Vec3(w, 0.5 * u, v) : (f < 4 ? Vec3(u, 0.5 * w, v) : Vec3(u, 0.5 * v, w)));
      }
  while (big.size() < 3000) big.emplace_back(0.9 * (2 * W(rng) - 1), 0.4 * (2 * W(rng) - 1), 0.9 * (2 * W(rng) - 1));
  const SmoothPolytope H = SmoothPolytope::convex_hull(big, 20.0, 0.2);
  EXPECT_EQ(H.num_faces(), 6);
  expect_supporting_half_spaces(H, big);
  std::vector<Vec3> sphere;
  for (int k = 0; k < 3000; ++k) {
    const Vec3 v(N(rng), N(rng), N(rng));
    sphere.push_back(v.normalized());
  }
  EXPECT_THROW(SmoothPolytope::convex_hull(sphere, 20.0), std::invalid_argument);
}

// ------------------------------------------------------------------ invalid shapes

TEST(ShapeValidation, InvalidParametersThrow) {
  for (double bad : {0.0, -1.0, kNaN, kInf, -kInf}) {
    EXPECT_THROW(Sphere{bad}, std::invalid_argument) << bad;
    EXPECT_THROW(Superellipsoid(bad, 1.0, 1.0, 2), std::invalid_argument) << bad;
    EXPECT_THROW(Superellipsoid(1.0, bad, 1.0, 2), std::invalid_argument) << bad;
    EXPECT_THROW(Superellipsoid(1.0, 1.0, bad, 2), std::invalid_argument) << bad;
    EXPECT_THROW(Superellipsoid::ellipsoid(1.0, bad, 1.0), std::invalid_argument) << bad;
    EXPECT_THROW(SuperellipticCylinder(bad, 1.0, 2), std::invalid_argument) << bad;
    EXPECT_THROW(SuperellipticCylinder(1.0, bad, 2), std::invalid_argument) << bad;
    EXPECT_THROW(SmoothTruncatedCone(1.0, 1.5, 1.5, 1.5, bad), std::invalid_argument) << bad;
    EXPECT_THROW(SmoothTruncatedCone(bad, 1.5, 1.5, 1.5, 20.0), std::invalid_argument) << bad;
    EXPECT_THROW(SmoothTruncatedCone(1.0, bad, 1.5, 1.5, 20.0), std::invalid_argument) << bad;
    EXPECT_THROW(SmoothTruncatedCone(1.0, 1.5, bad, 1.5, 20.0), std::invalid_argument) << bad;
    EXPECT_THROW(SmoothTruncatedCone(1.0, 1.5, 1.5, bad, 20.0), std::invalid_argument) << bad;
    EXPECT_THROW(SmoothPolytope(poly_A(), poly_b(), bad), std::invalid_argument) << "beta " << bad;
    EXPECT_THROW(SmoothPolytope(poly_A(), poly_b(), 20.0, bad), std::invalid_argument) << "L " << bad;
    EXPECT_THROW(SmoothPolytope::box(bad, 1.0, 1.0, 20.0), std::invalid_argument) << bad;
    EXPECT_THROW(SmoothPolytope::box(1.0, 1.0, bad, 20.0), std::invalid_argument) << bad;
  }
  // sizes beyond kMaxLength (1e100): larger shapes overflowed their radii or the solve (NaN)
  const double huge = 1.01 * diffcol::kMaxLength;
  EXPECT_THROW(Sphere{huge}, std::invalid_argument);
  EXPECT_THROW(Superellipsoid(1.0, huge, 1.0, 2), std::invalid_argument);
  EXPECT_THROW(SuperellipticCylinder(huge, 1.0, 2), std::invalid_argument);
  EXPECT_THROW(SmoothTruncatedCone(1.0, 1.5, huge, 1.5, 20.0), std::invalid_argument);
  EXPECT_THROW(SmoothPolytope::box(huge, 1.0, 1.0, 20.0), std::invalid_argument);
  EXPECT_THROW(SmoothPolytope::box(0.8 * diffcol::kMaxLength, 0.8 * diffcol::kMaxLength, 1.0, 20.0),
               std::invalid_argument);  // each size below the limit, the corner beyond it
  EXPECT_NO_THROW(Sphere{diffcol::kMaxLength});
  EXPECT_NO_THROW(SmoothPolytope::box(0.5 * diffcol::kMaxLength, 1.0, 1.0, 20.0));
  // exponents n < 1
  for (int n : {0, -1, -8}) {
    EXPECT_THROW(Superellipsoid(1.0, 1.0, 1.0, n), std::invalid_argument) << n;
    EXPECT_THROW(SuperellipticCylinder(1.0, 1.0, n), std::invalid_argument) << n;
  }
  // regularization ε outside [0, 0.1)
  for (double eps : {-1e-9, 0.1, 0.5, kNaN}) {
    EXPECT_THROW(Superellipsoid(1.0, 1.0, 1.0, 2, eps), std::invalid_argument) << eps;
    EXPECT_THROW(SuperellipticCylinder(1.0, 1.0, 2, eps), std::invalid_argument) << eps;
  }
  EXPECT_NO_THROW(Superellipsoid(1.0, 1.0, 1.0, 2, 0.0));
  EXPECT_NO_THROW(SuperellipticCylinder(1.0, 1.0, 3, 0.099));
  // truncated cone: β so small that the origin is not safely inside
  EXPECT_THROW(SmoothTruncatedCone(1.0, 1.5, 1.5, 1.5, 0.5), std::invalid_argument);
  EXPECT_NO_THROW(SmoothTruncatedCone(1.0, 0.05, 0.5, 1.5, 20.0));
}

TEST(ShapeValidation, InvalidPolytopesThrow) {
  // b_i ≤ 0: origin not strictly inside
  for (double bad : {0.0, -0.3, kNaN, kInf}) {
    Eigen::VectorXd b = poly_b();
    b[3] = bad;
    EXPECT_THROW(SmoothPolytope(poly_A(), b, 20.0), std::invalid_argument) << bad;
  }
  {  // non-finite A, zero row
    Eigen::MatrixX3d A = poly_A();
    A(2, 1) = kNaN;
    EXPECT_THROW(SmoothPolytope(A, poly_b(), 20.0), std::invalid_argument);
    A = poly_A();
    A.row(5).setZero();
    EXPECT_THROW(SmoothPolytope(A, poly_b(), 20.0), std::invalid_argument);
  }
  {  // mismatched sizes
    Eigen::VectorXd b(7);
    b.setOnes();
    EXPECT_THROW(SmoothPolytope(poly_A(), b, 20.0), std::invalid_argument);
    Eigen::VectorXd b9(9);
    b9.setOnes();
    EXPECT_THROW(SmoothPolytope(poly_A(), b9, 20.0), std::invalid_argument);
  }
  auto rows = [](std::initializer_list<Vec3> r) {
    Eigen::MatrixX3d A(r.size(), 3);
    int i = 0;
    for (const Vec3& v : r) A.row(i++) = v.transpose();
    return A;
  };
  auto ones = [](int m) { return Eigen::VectorXd::Ones(m).eval(); };
  // unbounded: +x, +y, +z, -x (open towards -y, -z)
  EXPECT_THROW(SmoothPolytope(rows({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}}), ones(4), 20.0),
               std::invalid_argument);
  // unbounded: a slab pair in x and y only (rank 2)
  EXPECT_THROW(SmoothPolytope(rows({{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}}), ones(4), 20.0),
               std::invalid_argument);
  // unbounded: a pyramid open towards -z, whose recession cone is a single ray
  EXPECT_THROW(SmoothPolytope(rows({{1, 0, 1}, {-1, 0, 1}, {0, 1, 1}, {0, -1, 1}}), ones(4), 20.0),
               std::invalid_argument);
  // unbounded: three faces of a tetrahedron plus a face parallel to one of them
  EXPECT_THROW(SmoothPolytope(rows({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, -1, 0}, {-2, -2, 0}}), ones(5), 20.0),
               std::invalid_argument);
  // fewer than 4 half-spaces
  EXPECT_THROW(SmoothPolytope(rows({{1, 0, 0}, {0, 1, 0}, {-1, -1, -1}}), ones(3), 20.0), std::invalid_argument);
  // the same pyramid closed by a base, and the tetrahedron closed by a 4th face: bounded
  EXPECT_NO_THROW(SmoothPolytope(rows({{1, 0, 1}, {-1, 0, 1}, {0, 1, 1}, {0, -1, 1}, {0, 0, -1}}), ones(5), 20.0));
  EXPECT_NO_THROW(SmoothPolytope(rows({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, -1, -1}}), ones(4), 20.0));
  // β too small for L: the smooth shape does not contain the origin
  EXPECT_THROW(SmoothPolytope::box(0.1, 0.1, 0.1, 1.0), std::invalid_argument);
}

TEST(ShapeValidation, InvalidConvexHullsThrow) {
  std::mt19937 rng(112);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::vector<Vec3> planar;
  for (int k = 0; k < 12; ++k) planar.emplace_back(U(rng), U(rng), 0.0);
  EXPECT_THROW(SmoothPolytope::convex_hull(planar, 20.0), std::invalid_argument);
  // coplanar in a tilted plane through the origin
  std::vector<Vec3> tilted;
  for (int k = 0; k < 12; ++k) {
    const double s = U(rng), t = U(rng);
    tilted.push_back(s * Vec3(1, 2, 3).normalized() + t * Vec3(3, 0, -1).normalized());
  }
  EXPECT_THROW(SmoothPolytope::convex_hull(tilted, 20.0), std::invalid_argument);
  // collinear and too few points
  EXPECT_THROW(SmoothPolytope::convex_hull({{-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, 20.0),
               std::invalid_argument);
  EXPECT_THROW(SmoothPolytope::convex_hull({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 20.0), std::invalid_argument);
  // origin outside the hull
  EXPECT_THROW(SmoothPolytope::convex_hull({{1, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1, 0, 1}}, 20.0),
               std::invalid_argument);
  // non-finite point
  EXPECT_THROW(SmoothPolytope::convex_hull({{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, 0, kNaN}}, 20.0),
               std::invalid_argument);
}

// ------------------------------------------------------------------ Shape wrapper

TEST(ShapeWrapper, DispatchesToTheConcreteShape) {
  std::mt19937 rng(113);
  const Superellipsoid se(0.5, 1.0, 1.5, 8);
  const Shape s = se;
  EXPECT_EQ(s.type(), ShapeType::superellipsoid);
  EXPECT_STREQ(diffcol::shape_type_name(s.type()), "superellipsoid");
  EXPECT_NE(s.describe().find("superellipsoid"), std::string::npos);
  EXPECT_EQ(s.as<Superellipsoid>().exponent(), 8);
  EXPECT_THROW((void)s.as<Sphere>(), std::bad_variant_access);
  for (int k = 0; k < 50; ++k) {
    const Vec3 y = 2.0 * random_unit(rng);
    Vec3 g1, g2;
    Mat3 H1, H2;
    EXPECT_EQ(s.eval(y, g1, H1), se.eval(y, g2, H2));
    EXPECT_EQ(g1, g2);
    EXPECT_EQ(H1, H2);
  }
  EXPECT_EQ(s.inner_radius(), se.inner_radius());
  EXPECT_EQ(s.outer_radius(), se.outer_radius());
  EXPECT_EQ(Shape(Sphere(1.0)).type(), ShapeType::sphere);
  EXPECT_EQ(Shape(SuperellipticCylinder(1.0, 1.0, 2)).type(), ShapeType::superelliptic_cylinder);
  EXPECT_EQ(Shape(SmoothPolytope::box(1, 1, 1, 20)).type(), ShapeType::smooth_polytope);
  EXPECT_EQ(Shape(SmoothTruncatedCone(1, 1, 1, 1, 20)).type(), ShapeType::smooth_truncated_cone);
  for (int t = 0; t < diffcol::kNumShapeTypes; ++t)
    EXPECT_STRNE(diffcol::shape_type_name(static_cast<ShapeType>(t)), "unknown");
  for (const NamedShape& ns : all_shapes())
    EXPECT_NE(ns.shape.describe().find(diffcol::shape_type_name(ns.shape.type())), std::string::npos);
}

TEST(ShapeWrapper, AccessorsReturnTheConstructionParameters) {
  const Superellipsoid se(0.5, 1.0, 1.5, 3, 1e-4);
  EXPECT_EQ(se.exponent(), 3);
  EXPECT_LT((se.semi_axes() - Vec3(0.5, 1.0, 1.5)).norm(), 1e-15);
  EXPECT_EQ(se.epsilon(), 1e-4);
  EXPECT_EQ(Superellipsoid(1.0, 1.0, 1.0, 1, 1e-3).epsilon(), 0.0) << "ε is used only for n > 1";
  const SuperellipticCylinder sc(0.7, 1.9, 4);
  EXPECT_NEAR(sc.radius(), 0.7, 1e-15);
  EXPECT_NEAR(sc.half_height(), 1.9, 1e-15);
  const SmoothTruncatedCone tc(1.0, 0.3, 0.6, 1.2, 25.0);
  EXPECT_EQ(tc.beta(), 25.0);
  EXPECT_EQ(tc.bottom_radius(), 1.0);
  EXPECT_EQ(tc.top_radius(), 0.3);
  EXPECT_EQ(tc.bottom_extent(), 0.6);
  EXPECT_EQ(tc.top_extent(), 1.2);
  const SmoothPolytope box = SmoothPolytope::box(1, 2, 3, 30.0, 1.5);
  EXPECT_EQ(box.beta(), 30.0);
  EXPECT_EQ(box.length(), 1.5);
  EXPECT_EQ(Sphere(2.5).radius(), 2.5);
}

}  // namespace
