// White-box tests of the iDCOL touching starts (src/idcol/solver_core.hpp): two ellipsoids
// (ellipsoid_touch), and a sphere or ellipsoid against a shape whose flat proxy is a polytope
// (ellipsoid_polytope_touch). The scaling α and the point they return are those of the exact
// shapes (two ellipsoids; an ellipsoid against the polytope {A y ≤ b} or a superellipsoid's
// bounding box). The reference is the DCOL solver (its own conic formulation and interior-point or
// polish route) on the same exact shapes; the point is checked against both shapes' closed-form
// membership.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "../src/idcol/solver_core.hpp"
#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/shapes/smooth_polytope.hpp"
#include "diffcol/shapes/sphere.hpp"
#include "diffcol/shapes/superellipsoid.hpp"
#include "test_util.hpp"

using namespace diffcol;
using namespace diffcol::test;

namespace {

// The exact polytope {A y ≤ b} of a smooth polytope, as a DCOL primitive.
dcol::Polytope exact_polytope(const SmoothPolytope& s) {
  Eigen::MatrixX3d A(s.num_faces(), 3);
  Eigen::VectorXd b(s.num_faces());
  for (int i = 0; i < s.num_faces(); ++i) {
    A.row(i) = s.normal(i).transpose();
    b[i] = s.offset(i);
  }
  return dcol::Polytope(A, b);
}

// max_i (a_iᵀx − α b_i) / α: 0 on the boundary of αK, negative inside.
double polytope_excess(const SmoothPolytope& s, const Vec3& x, double alpha) {
  double m = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < s.num_faces(); ++i) m = std::max(m, (s.normal(i).dot(x) - alpha * s.offset(i)) / s.normal(i).norm());
  return m / alpha;
}
double box_excess(const Vec3& h, const Vec3& x, double alpha) {
  return (x.cwiseAbs() - alpha * h).maxCoeff() / alpha;
}

struct Case {
  Vec3 axes;  // the ellipsoid's semi-axes (all equal: a sphere)
  bool sphere;
};

}  // namespace

TEST(IdcolTouchingStart, EllipsoidAgainstAPolytopeMatchesTheExactShapes) {
  // Random ellipsoids (aspect up to 10) and spheres against random convex hulls and boxes
  // (superellipsoids of exponent 8: their bounding box), both orders, random poses from nearly
  // touching to far apart. α of the start ≤ α* of the exact shapes (the Newton iteration on t
  // comes down from an upper bound) and within 1e-4 of it (it stops at a step of 1e-3·t; measured: 1.2e-6);
  // the point lies on both scaled shapes.
  std::mt19937 rng(4711);
  std::uniform_real_distribution<double> U(-1.0, 1.0), logU(std::log(0.2), std::log(2.0));
  int checked = 0;
  double worst_alpha = 0.0, worst_point = 0.0;
  for (int t = 0; t < 240; ++t) {
    const bool sphere = t % 4 == 0;
    const Vec3 axes = sphere ? Vec3::Constant(std::exp(logU(rng)))
                             : Vec3(std::exp(logU(rng)), std::exp(logU(rng)), std::exp(logU(rng)));
    const bool box = t % 3 == 0;
    std::vector<Vec3> pts;
    for (int i = 0; i < 12; ++i) pts.push_back(Vec3(U(rng), U(rng), U(rng)) * std::exp(logU(rng)) + Vec3(0.05, 0.0, 0.0));
    pts.push_back(Vec3(0.6, 0.6, 0.6));  // keep the origin inside: a regular octahedron's vertices
    for (const Vec3& d : {Vec3(1, 0, 0), Vec3(-1, 0, 0), Vec3(0, 1, 0), Vec3(0, -1, 0), Vec3(0, 0, 1), Vec3(0, 0, -1)})
      pts.push_back(0.3 * d);
    const SmoothPolytope hull = SmoothPolytope::convex_hull(pts, 20.0);
    const Vec3 h(std::exp(logU(rng)), std::exp(logU(rng)), std::exp(logU(rng)));
    const Superellipsoid se(h.x(), h.y(), h.z(), 8);
    const Mat3 RE = random_rotation(rng);
    const Vec3 dir = random_unit(rng);
    const double reach = axes.maxCoeff() + (box ? h.norm() : 2.0);
    const double dist = reach * std::uniform_real_distribution<double>(0.05, 3.0)(rng);
    // body 1 at the identity; body 2 at (R12, p12)
    for (const bool ellipsoid_first : {true, false}) {
      const Mat3 R12 = ellipsoid_first ? Mat3(RE.transpose()) : RE;
      const Vec3 p12 = dist * dir;
      double alpha = 0.0;
      Vec3 x;
      bool ok = false;
      const Superellipsoid ell(axes.x(), axes.y(), axes.z(), 1);
      const Sphere ball(axes.x());
      if (ellipsoid_first) {
        ok = box ? (sphere ? idcol::touching_start(ball, se, R12, p12, alpha, x)
                           : idcol::touching_start(ell, se, R12, p12, alpha, x))
                 : (sphere ? idcol::touching_start(ball, hull, R12, p12, alpha, x)
                           : idcol::touching_start(ell, hull, R12, p12, alpha, x));
      } else {
        ok = box ? (sphere ? idcol::touching_start(se, ball, R12, p12, alpha, x)
                           : idcol::touching_start(se, ell, R12, p12, alpha, x))
                 : (sphere ? idcol::touching_start(hull, ball, R12, p12, alpha, x)
                           : idcol::touching_start(hull, ell, R12, p12, alpha, x));
      }
      ASSERT_TRUE(ok) << "case " << t;
      // the reference: DCOL on the exact shapes
      const dcol::Primitive E = sphere ? dcol::Primitive(dcol::Sphere(axes.x()))
                                       : dcol::Primitive(dcol::Ellipsoid::from_semi_axes(axes.x(), axes.y(), axes.z()));
      const dcol::Primitive K = box ? dcol::Primitive(dcol::Polytope::box(h.x(), h.y(), h.z()))
                                    : dcol::Primitive(exact_polytope(hull));
      const Pose X2 = make_pose(R12, p12);
      const dcol::ContactResult ref = ellipsoid_first ? dcol::solve_contact(E, Pose::identity(), K, X2)
                                                      : dcol::solve_contact(K, Pose::identity(), E, X2);
      ASSERT_TRUE(ref.ok()) << "case " << t;
      EXPECT_LE(alpha, ref.alpha * (1.0 + 1e-12)) << "case " << t;
      EXPECT_GE(alpha, ref.alpha * (1.0 - 1e-4)) << "case " << t;
      worst_alpha = std::max(worst_alpha, std::abs(alpha / ref.alpha - 1.0));
      // the point in each shape's frame: on the scaled polytope's boundary (exactly: a point of
      // the proxy scaled by α) and on the scaled ellipsoid's (to the accuracy of α)
      const Vec3 xE = ellipsoid_first ? x : Vec3(R12.transpose() * (x - p12));
      const Vec3 xK = ellipsoid_first ? Vec3(R12.transpose() * (x - p12)) : x;
      const double on_K = box ? box_excess(h, xK, alpha) : polytope_excess(hull, xK, alpha);
      EXPECT_LE(on_K, 1e-9) << "case " << t;
      EXPECT_GE(on_K, -1e-9) << "case " << t;
      const double on_E = xE.cwiseQuotient(axes).norm() / alpha - 1.0;
      EXPECT_NEAR(on_E, 0.0, 1e-4) << "case " << t;
      worst_point = std::max(worst_point, std::abs(on_E));
      ++checked;
    }
  }
  std::printf("touching start on %d cases: worst relative α error %.2e, worst ellipsoid excess %.2e\n", checked,
              worst_alpha, worst_point);
}

TEST(IdcolTouchingStart, TwoEllipsoidsFromAnyMultiplierGuess) {
  // The Perram–Wertheim start of two ellipsoids (ellipsoid_touch), from its own first λ and from
  // guesses anywhere in (0, 1) (a warm solve passes the previous solution's λ2/(λ1 + λ2)): the same
  // α as DCOL's on the same ellipsoids (aspect up to 15), the point on both scaled surfaces; and
  // the multipliers of a converged iDCOL solve give back the λ the iteration ends at.
  std::mt19937 rng(815);
  std::uniform_real_distribution<double> logU(std::log(0.1), std::log(1.5));
  double worst_alpha = 0.0, worst_point = 0.0, worst_lambda = 0.0;
  for (int t = 0; t < 120; ++t) {
    const Vec3 a1(std::exp(logU(rng)), std::exp(logU(rng)), std::exp(logU(rng)));
    const Vec3 a2(std::exp(logU(rng)), std::exp(logU(rng)), std::exp(logU(rng)));
    const Mat3 R12 = random_rotation(rng);
    const double reach = a1.maxCoeff() + a2.maxCoeff();
    const Vec3 p12 = reach * std::uniform_real_distribution<double>(0.05, 3.0)(rng) * random_unit(rng);
    const dcol::ContactResult ref =
        dcol::solve_contact(dcol::Ellipsoid::from_semi_axes(a1.x(), a1.y(), a1.z()), Pose::identity(),
                            dcol::Ellipsoid::from_semi_axes(a2.x(), a2.y(), a2.z()), make_pose(R12, p12));
    ASSERT_TRUE(ref.ok()) << "case " << t;
    for (const double guess : {-1.0, 1e-9, 0.02, 0.5, 0.97, 1.0 - 1e-9}) {
      double alpha = 0.0;
      Vec3 x;
      ASSERT_TRUE(idcol::ellipsoid_touch(a1, a2, R12, p12, alpha, x, guess)) << "case " << t << ", guess " << guess;
      worst_alpha = std::max(worst_alpha, std::abs(alpha / ref.alpha - 1.0));
      EXPECT_NEAR(alpha / ref.alpha, 1.0, 1e-8) << "case " << t << ", guess " << guess;
      const double on1 = x.cwiseQuotient(a1).norm() / alpha - 1.0;
      const double on2 = (R12.transpose() * (x - p12)).cwiseQuotient(a2).norm() / alpha - 1.0;
      worst_point = std::max({worst_point, std::abs(on1), std::abs(on2)});
      EXPECT_NEAR(on1, 0.0, 1e-9) << "case " << t << ", guess " << guess;
      EXPECT_NEAR(on2, 0.0, 1e-9) << "case " << t << ", guess " << guess;
    }
    // λ* against the multipliers of the KKT solution (10): x = λ* A S(λ*)⁻¹ r is the touching point
    const Superellipsoid e1(a1.x(), a1.y(), a1.z(), 1), e2(a2.x(), a2.y(), a2.z(), 1);
    const idcol::ContactSolution sol = idcol::solve_contact(e1, Pose::identity(), e2, make_pose(R12, p12));
    ASSERT_TRUE(sol.ok()) << "case " << t;
    const double lam = sol.lambda2 / (sol.lambda1 + sol.lambda2);
    const Vec3 A = a1.cwiseProduct(a1);
    const Mat3 S = lam * Mat3(A.asDiagonal()) + (1.0 - lam) * R12 * a2.cwiseProduct(a2).asDiagonal() * R12.transpose();
    const Vec3 x_lam = lam * A.cwiseProduct(S.ldlt().solve(p12));
    worst_lambda = std::max(worst_lambda, (x_lam - sol.x_B1).norm() / p12.norm());
    EXPECT_LE((x_lam - sol.x_B1).norm(), 1e-9 * p12.norm()) << "case " << t;
  }
  std::printf("two ellipsoids: worst relative alpha error %.2e, worst surface excess %.2e, λ from multipliers: "
              "worst x error %.2e (relative to |r|)\n",
              worst_alpha, worst_point, worst_lambda);
}
