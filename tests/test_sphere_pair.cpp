// idcol::sphere_pair_contact: two spheres in closed form with derivatives with respect to the
// centres. References: the general iDCOL solve and its twist derivatives (a different code path),
// a long-double evaluation of the definitions, and central differences of the function itself.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/sphere_pair.hpp"
#include "diffcol/shapes/sphere.hpp"
#include "malloc_counter.hpp"
#include "test_util.hpp"

namespace {

using diffcol::Mat3;
using diffcol::Pose;
using diffcol::SolveStatus;
using diffcol::Vec3;
using diffcol::idcol::RowVec3;
using diffcol::idcol::SpherePairContact;
using diffcol::idcol::sphere_pair_contact;
using namespace diffcol::test;

// Max |a − b| relative to scale.
double rel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double scale) {
  return (a - b).cwiseAbs().maxCoeff() / scale;
}

double log_uniform(std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> U(std::log(lo), std::log(hi));
  return std::exp(U(rng));
}

// The centre's velocity under the body's world twist [ω; v] with the sphere at the body origin:
// ċ = ω × c + v = [−c^, I]·[ω; v].
Eigen::Matrix<double, 3, 6> centre_velocity_world(const Vec3& c) {
  Eigen::Matrix<double, 3, 6> M;
  M << -diffcol::skew(c), Mat3::Identity();
  return M;
}

TEST(SpherePair, MatchesTheGeneralSolveAndItsTwistDerivatives) {
  std::mt19937 rng(9101);
  int compared = 0;
  for (int k = 0; k < 400; ++k) {
    const double R1 = log_uniform(rng, 0.05, 5.0), R2 = log_uniform(rng, 0.05, 5.0);
    const double S = R1 + R2;
    const Vec3 c1 = random_in_cube(rng, 3.0);
    const Vec3 c2 = c1 + log_uniform(rng, 1e-3, 1e2) * S * random_unit(rng);
    const SpherePairContact lean = sphere_pair_contact(R1, c1, R2, c2);
    ASSERT_TRUE(lean.ok());
    const Pose X1 = make_pose(random_rotation(rng), c1), X2 = make_pose(random_rotation(rng), c2);
    const diffcol::Shape s1 = diffcol::Sphere(R1), s2 = diffcol::Sphere(R2);
    const auto sol = diffcol::idcol::solve_contact(s1, X1, s2, X2);
    ASSERT_TRUE(sol.ok());
    EXPECT_NEAR(lean.alpha, sol.alpha, 1e-12 * sol.alpha);
    EXPECT_NEAR(lean.gap, sol.gap, 1e-12 * (std::abs(sol.gap) + S));
    EXPECT_LT(rel(lean.normal_W, sol.normal_W, 1.0), 1e-12);
    EXPECT_LT(rel(lean.x_W, sol.x_W, S + c1.norm()), 1e-12);
    EXPECT_LT(rel(lean.p1_W, sol.p1_W, S + c1.norm()), 1e-12);
    EXPECT_LT(rel(lean.p2_W, sol.p2_W, S + c2.norm()), 1e-12);
    const auto d = diffcol::idcol::contact_derivatives(sol);
    if (!d.ok()) continue;
    ++compared;
    const auto M1 = centre_velocity_world(c1), M2 = centre_velocity_world(c2);
    const double g = 1.0 + c1.norm() + c2.norm();  // world-twist columns carry ‖c‖
    const double sa = g / S, sp = g * (1.0 + S / lean.distance);
    EXPECT_LT(rel(-lean.J_alpha_c2 * M1, d.J_alpha_X1, sa), 1e-9);
    EXPECT_LT(rel(lean.J_alpha_c2 * M2, d.J_alpha_X2, sa), 1e-9);
    EXPECT_LT(rel(-lean.J_gap_c2 * M1, d.J_gap_X1, g), 1e-9);
    EXPECT_LT(rel(lean.J_gap_c2 * M2, d.J_gap_X2, g), 1e-9);
    EXPECT_LT(rel(-lean.J_normal_c2 * M1, d.J_normal_W_X1, g / lean.distance), 1e-9);
    EXPECT_LT(rel(lean.J_normal_c2 * M2, d.J_normal_W_X2, g / lean.distance), 1e-9);
    EXPECT_LT(rel(lean.J_x_c1() * M1, d.J_x_W_X1, g), 1e-9);
    EXPECT_LT(rel(lean.J_x_c2() * M2, d.J_x_W_X2, g), 1e-9);
    EXPECT_LT(rel(lean.J_p1_c1() * M1, d.J_p1_W_X1, sp), 1e-9);
    EXPECT_LT(rel(lean.J_p1_c2() * M2, d.J_p1_W_X2, sp), 1e-9);
    EXPECT_LT(rel(lean.J_p2_c1() * M1, d.J_p2_W_X1, sp), 1e-9);
    EXPECT_LT(rel(lean.J_p2_c2() * M2, d.J_p2_W_X2, sp), 1e-9);
  }
  EXPECT_GT(compared, 350);
}

// Every field against the definitions evaluated in long double, at sizes 1e-9…1e9 and centre
// distances 1e-13…1e8 × (R1 + R2).
TEST(SpherePair, ExactAtEveryScaleAndDistance) {
  std::mt19937 rng(9102);
  for (int k = 0; k < 2000; ++k) {
    const double unit = log_uniform(rng, 1e-9, 1e9);
    const double R1 = unit * log_uniform(rng, 1e-3, 1e3), R2 = unit * log_uniform(rng, 1e-3, 1e3);
    const double S = R1 + R2;
    const Vec3 c1 = unit * random_in_cube(rng, 10.0);
    const Vec3 c2 = c1 + log_uniform(rng, 1e-13, 1e8) * S * random_unit(rng);
    const SpherePairContact out = sphere_pair_contact(R1, c1, R2, c2);
    ASSERT_TRUE(out.ok()) << k;
    using LVec = Eigen::Matrix<long double, 3, 1>;
    const LVec r = c2.cast<long double>() - c1.cast<long double>();
    const long double rho = std::sqrt(r.squaredNorm()), LS = (long double)R1 + R2;
    const LVec n = r / rho;
    const double rho_d = static_cast<double>(rho);
    EXPECT_NEAR(out.distance, rho_d, 2e-15 * rho_d);
    EXPECT_NEAR(out.alpha, static_cast<double>(rho / LS), 2e-15 * rho_d / S);
    EXPECT_NEAR(out.gap, static_cast<double>(rho - LS), 2e-15 * (rho_d + S));
    EXPECT_LT((out.normal_W - n.cast<double>()).norm(), 2e-15);
    const LVec p1 = c1.cast<long double>() + (long double)R1 * n;
    const LVec p2 = c2.cast<long double>() - (long double)R2 * n;
    const double pscale = c1.norm() + c2.norm() + S;
    EXPECT_LT((out.p1_W - p1.cast<double>()).norm(), 2e-15 * pscale);
    EXPECT_LT((out.p2_W - p2.cast<double>()).norm(), 2e-15 * pscale);
    // N = (I − nnᵀ)/ρ: N n = 0, N·u = u/ρ for u ⊥ n
    EXPECT_LT((out.J_normal_c2 * out.normal_W).norm() * rho_d, 2e-15);
    const Vec3 u = out.normal_W.unitOrthogonal();
    EXPECT_LT((out.J_normal_c2 * u * rho_d - u).norm(), 2e-15);
    EXPECT_LT((out.J_alpha_c2 * S - out.normal_W.transpose()).norm(), 2e-15);
  }
}

// Central differences of the function itself, in c1 and c2, with a step relative to ρ.
TEST(SpherePair, DerivativesMatchCentralDifferences) {
  std::mt19937 rng(9103);
  for (int k = 0; k < 500; ++k) {
    const double R1 = log_uniform(rng, 0.01, 10.0), R2 = log_uniform(rng, 0.01, 10.0);
    const Vec3 c1 = random_in_cube(rng, 2.0);
    const Vec3 c2 = c1 + log_uniform(rng, 1e-2, 1e2) * (R1 + R2) * random_unit(rng);
    const SpherePairContact out = sphere_pair_contact(R1, c1, R2, c2);
    const double h = 1e-6 * out.distance;
    for (int which = 0; which < 2; ++which) {
      Mat3 Ja, Jn, Jx, Jp1, Jp2;
      Eigen::Matrix<double, 1, 3> Jalpha, Jgap;
      for (int j = 0; j < 3; ++j) {
        Vec3 a1 = c1, a2 = c2, b1 = c1, b2 = c2;
        (which == 0 ? a1 : a2)[j] += h;
        (which == 0 ? b1 : b2)[j] -= h;
        const SpherePairContact P = sphere_pair_contact(R1, a1, R2, a2), M = sphere_pair_contact(R1, b1, R2, b2);
        Jalpha(j) = (P.alpha - M.alpha) / (2 * h);
        Jgap(j) = (P.gap - M.gap) / (2 * h);
        Jn.col(j) = (P.normal_W - M.normal_W) / (2 * h);
        Jx.col(j) = (P.x_W - M.x_W) / (2 * h);
        Jp1.col(j) = (P.p1_W - M.p1_W) / (2 * h);
        Jp2.col(j) = (P.p2_W - M.p2_W) / (2 * h);
      }
      const double sign = which == 0 ? -1.0 : 1.0;
      const double S = R1 + R2, rho = out.distance;
      EXPECT_LT(rel(sign * out.J_alpha_c2, Jalpha, 1.0 / S), 1e-6);
      EXPECT_LT(rel(sign * out.J_gap_c2, Jgap, 1.0), 1e-6);
      EXPECT_LT(rel(sign * out.J_normal_c2, Jn, 1.0 / rho), 1e-6);
      EXPECT_LT(rel(which == 0 ? out.J_x_c1() : out.J_x_c2(), Jx, 1.0), 1e-6);
      EXPECT_LT(rel(which == 0 ? out.J_p1_c1() : out.J_p1_c2(), Jp1, 1.0 + S / rho), 1e-6);
      EXPECT_LT(rel(which == 0 ? out.J_p2_c1() : out.J_p2_c2(), Jp2, 1.0 + S / rho), 1e-6);
    }
  }
}

TEST(SpherePair, CoincidentCentresAndBadInput) {
  const Vec3 c(0.3, -0.2, 0.1);
  const SpherePairContact same = sphere_pair_contact(1.0, c, 2.0, c);
  EXPECT_EQ(same.status, SolveStatus::coincident_origins);
  EXPECT_EQ(same.alpha, 0.0);
  EXPECT_EQ(same.gap, -3.0);
  EXPECT_EQ(same.normal_W, Vec3::UnitX());
  EXPECT_TRUE(same.p1_W.isApprox(c + Vec3::UnitX()));
  EXPECT_TRUE(same.p2_W.isApprox(c - 2.0 * Vec3::UnitX()));
  EXPECT_TRUE(same.J_normal_c2.isZero(0.0));
  EXPECT_TRUE(same.J_alpha_c2.isZero(0.0));
  // the smallest representable separation: still exact, N finite
  const SpherePairContact tiny = sphere_pair_contact(1.0, Vec3::Zero(), 1.0, Vec3(0.0, 0.0, 1e-300));
  EXPECT_TRUE(tiny.ok());
  EXPECT_EQ(tiny.normal_W, Vec3::UnitZ());
  EXPECT_TRUE(tiny.J_normal_c2.allFinite());
  EXPECT_EQ(tiny.alpha, 0.5e-300);
  const SpherePairContact sub = sphere_pair_contact(1.0, Vec3::Zero(), 1.0, Vec3(0.0, 4e-320, 0.0));
  EXPECT_EQ(sub.status, SolveStatus::coincident_origins);  // 1/ρ overflows
  EXPECT_EQ(sub.normal_W, Vec3::UnitY());
  EXPECT_TRUE(sub.J_normal_c2.allFinite());
  // centres at ±1e100 on both sides: the difference 2e100 does not overflow the norm
  const SpherePairContact far = sphere_pair_contact(1.0, Vec3(-1e100, 0, 0), 1.0, Vec3(1e100, 1e100, 0));
  ASSERT_TRUE(far.ok());
  EXPECT_NEAR(far.distance, std::sqrt(5.0) * 1e100, 1e85);
  for (const SpherePairContact& bad : {sphere_pair_contact(kNaN, c, 1.0, Vec3::Zero()), sphere_pair_contact(0.0, c, 1.0, Vec3::Zero()),
                          sphere_pair_contact(1.0, c, -1.0, Vec3::Zero()), sphere_pair_contact(1.0, c, 1e101, Vec3::Zero()),
                          sphere_pair_contact(1.0, Vec3(kNaN, 0, 0), 1.0, Vec3::Zero()),
                          sphere_pair_contact(1.0, c, 1.0, Vec3(0, kInf, 0)),
                          sphere_pair_contact(1.0, c, 1.0, Vec3(0, 0, 2e100))}) {
    EXPECT_EQ(bad.status, SolveStatus::invalid_input);
    EXPECT_EQ(bad.alpha, 0.0);
    EXPECT_TRUE(bad.normal_W.isZero(0.0) && bad.p1_W.isZero(0.0) && bad.J_normal_c2.isZero(0.0));
  }
}

TEST(SpherePair, AllocatesNothing) {
#if !defined(DIFFCOL_TEST_COUNTS_MALLOC)
  GTEST_SKIP() << "malloc counting unavailable in this build (neither glibc nor ASan)";
#endif
  SpherePairContact out;
  const long before = g_allocations.load();
  for (int k = 0; k < 100; ++k) sphere_pair_contact(0.5, Vec3(0, 0, 0), 0.25, Vec3(1.0, 0.01 * k, 0), out);
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_TRUE(out.ok());
}

}  // namespace
