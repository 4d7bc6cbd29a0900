// Tests of the soft-minimum contact model (include/diffcol/ssdf/scm.hpp): point–plane force
// against hand-computed spring–damper values (eqs. (14)–(20)), physical direction of the
// point–SSDF and SSDF–SSDF forces, action = reaction, and every analytic Jacobian (poses: body
// twists through the SE(3) exponential; velocities: plain vectors) against central finite
// differences (Ridders) at ≤ 1e-6 relative.
//
// DIFFCOL_SCM_TRIALS (default 12): random configurations per Jacobian test.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>

#include "diffcol/math/gradient_check.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/scm.hpp"

#include "ssdf_test_util.hpp"
#include "test_util.hpp"

// malloc is interposed (glibc, non-sanitized builds) to check that warm queries allocate nothing.
#include "malloc_counter.hpp"

namespace {

using diffcol::GradientCheckOptions;
using diffcol::Mat3;
using diffcol::ReferenceFrame;
using diffcol::Pose;
using diffcol::Vec3;
using diffcol::Vec6;
using diffcol::ssdf::Mat12;
using diffcol::ssdf::OrientedPointCloud;
using diffcol::ssdf::ScmParameters;
using diffcol::ssdf::SsdfWorkspace;
using diffcol::ssdf::Vec12;
namespace mesh = diffcol::mesh;
namespace ssdf = diffcol::ssdf;
using namespace diffcol::test;

constexpr long kDefaultScmTrials = 12;
int trials() { return static_cast<int>(env_count("DIFFCOL_SCM_TRIALS", kDefaultScmTrials)); }

Vec6 random_twist(std::mt19937& rng, double w, double v) {
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  Vec6 x;
  x << w * U(rng), w * U(rng), w * U(rng), v * U(rng), v * U(rng), v * U(rng);
  return x;
}

ScmParameters test_parameters() {
  ScmParameters p;
  p.stiffness = 2e3;
  p.dissipation_velocity = 0.1;
  p.stiction_velocity = 0.02;
  p.friction = 0.6;
  p.eps1 = 2e-5;
  p.eps2 = 2e-3;
  p.eps3 = 2e-3;
  return p;
}

/// World-frame force of a body wrench [τ; f] (body frame).
Vec3 world_force(const Pose& X, const Vec6& w) { return X.R * w.tail<3>(); }

// ------------------------------------------------------------------------------- point–plane

TEST(PointPlane, HardSpringDamperClosedForm) {
  ScmParameters p = test_parameters();
  p.eps3 = 0.0;  // hard softplus: c = k·max(−φ, 0)
  const Vec3 n = Vec3(1, 2, 2).normalized(), x0(0.1, -0.2, 0.3);
  const double depth = 0.004;
  // At rest: λ = k·depth·n.
  auto f = ssdf::point_plane_force(x0 - depth * n, Vec3::Zero(), x0, n, p);
  EXPECT_NEAR((f.force - p.stiffness * depth * n).norm(), 0.0, 1e-12);
  EXPECT_NEAR(f.phi, -depth, 1e-15);
  // Approaching at v_n = −v_d: d = 2.
  f = ssdf::point_plane_force(x0 - depth * n, -p.dissipation_velocity * n, x0, n, p);
  EXPECT_NEAR(f.normal_force, 2.0 * p.stiffness * depth, 1e-12);
  // Separating at v_n = v_d: d = (1 − 2)²/4 = 1/4; at v_n ≥ 2 v_d: 0.
  f = ssdf::point_plane_force(x0 - depth * n, p.dissipation_velocity * n, x0, n, p);
  EXPECT_NEAR(f.normal_force, 0.25 * p.stiffness * depth, 1e-12);
  f = ssdf::point_plane_force(x0 - depth * n, 2.5 * p.dissipation_velocity * n, x0, n, p);
  EXPECT_EQ(f.force.norm(), 0.0);
  // Outside: no force.
  f = ssdf::point_plane_force(x0 + depth * n, Vec3::Zero(), x0, n, p);
  EXPECT_EQ(f.force.norm(), 0.0);
  // Sliding: friction opposes the tangential velocity, |λ_t| = μ λ_n |v_t|/sqrt(v_s² + |v_t|²).
  const Vec3 t = n.unitOrthogonal();
  const double vt = 0.05;
  f = ssdf::point_plane_force(x0 - depth * n, vt * t, x0, n, p);
  const Vec3 ft = f.force - f.normal_force * n;
  EXPECT_NEAR(ft.dot(t), -p.friction * f.normal_force * vt / std::hypot(p.stiction_velocity, vt), 1e-12);
  EXPECT_NEAR((ft - ft.dot(t) * t).norm(), 0.0, 1e-12);
}

TEST(PointPlane, JacobiansMatchFiniteDifferences) {
  std::mt19937 rng(1);
  const ScmParameters p = test_parameters();
  for (int k = 0; k < 200; ++k) {
    const Vec3 n = random_unit(rng), x0 = Vec3::Random();
    const Vec3 x = x0 + 0.01 * Vec3::Random();
    const Vec3 v = 0.15 * Vec3::Random();
    const auto f = ssdf::point_plane_force(x, v, x0, n, p);
    Eigen::MatrixXd J(3, 6);
    J << f.J_force_p, f.J_force_v;
    Eigen::VectorXd z(6);
    z << x, v;
    GradientCheckOptions opt;
    opt.step = 1e-4;
    const auto r = diffcol::check_gradient(
        [&](const Eigen::VectorXd& y) {
          return Eigen::VectorXd(ssdf::point_plane_force(y.head<3>(), y.tail<3>(), x0, n, p).force);
        },
        z, J, opt);
    EXPECT_TRUE(r.passed()) << r.report();
  }
}

// -------------------------------------------------------------------------------- point–SSDF

struct Scene {
  OrientedPointCloud sphere, box;
  double r;
  Vec3 box_size;
};

const Scene& scene() {
  static const Scene s = [] {
    const double r = 0.03;
    const Vec3 size(0.12, 0.1, 0.06);
    return Scene{aopc_of(mesh::make_icosphere(r, 3), 80), aopc_of(mesh::make_box(size), 150), r, size};
  }();
  return s;
}

TEST(PointPlane, RejectsBadInput) {
  const ScmParameters p = test_parameters();
  const Vec3 x(0.0, 0.0, -0.001), n = Vec3::UnitZ(), O = Vec3::Zero(), V = Vec3::Zero();
  EXPECT_NO_THROW(ssdf::point_plane_force(x, V, O, n, p));
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_THROW(ssdf::point_plane_force(Vec3(nan, 0, 0), V, O, n, p), std::invalid_argument);
  EXPECT_THROW(ssdf::point_plane_force(x, Vec3(0, inf, 0), O, n, p), std::invalid_argument);
  EXPECT_THROW(ssdf::point_plane_force(x, V, Vec3(0, 0, nan), n, p), std::invalid_argument);
  EXPECT_THROW(ssdf::point_plane_force(x, V, O, Vec3(0, 0, 2), p), std::invalid_argument);  // not unit
  EXPECT_THROW(ssdf::point_plane_force(x, V, O, Vec3::Zero(), p), std::invalid_argument);
  ScmParameters bad = p;
  bad.stiffness = -1.0;
  EXPECT_THROW(ssdf::point_plane_force(x, V, O, n, bad), std::invalid_argument);
}

TEST(PointSsdf, PushesAPenetratingPointOut) {
  const Scene& s = scene();
  const ScmParameters p = test_parameters();
  SsdfWorkspace ws;
  // Body A: a point 3 mm below the top face of the box (body B, rotated and moved).
  std::mt19937 rng(4);
  const Pose X_B = make_pose(random_rotation(rng), Vec3(0.3, -0.1, 0.2));
  const Vec3 top_W = X_B.R.col(2);
  const Vec3 a(0.01, -0.02, 0.0);  // body-A coordinates of the point
  const Pose X_A = make_pose(Mat3::Identity(), X_B * Vec3(0.01, 0.0, 0.5 * s.box_size.z() - 0.003) - a);
  const auto c = ssdf::point_ssdf_contact(a, X_A, Vec6::Zero(), s.box, X_B, Vec6::Zero(), p, ws, false);
  const Vec3 fA = world_force(X_A, c.wrench_A), fB = world_force(X_B, c.wrench_B);
  EXPECT_LT(c.phi, 0.0);
  EXPECT_GT(fA.dot(top_W), 0.9 * fA.norm());       // along the outward normal
  EXPECT_NEAR((fA + fB).norm(), 0.0, 1e-12 * fA.norm());  // action = reaction
  // Roughly k·depth (the soft estimate of depth is close to 3 mm here).
  EXPECT_NEAR(fA.norm(), p.stiffness * 0.003, 0.3 * p.stiffness * 0.003);
}

/// point_ssdf_contact's pose and velocity Jacobians (wrenches and φ) against central differences.
void expect_point_ssdf_jacobians(const Vec3& a, const Pose& X_A, const Vec6& V_A, const OrientedPointCloud& cloud,
                                 const Pose& X_B, const Vec6& V_B, const ScmParameters& p, SsdfWorkspace& ws,
                                 int trial) {
  const auto c = ssdf::point_ssdf_contact(a, X_A, V_A, cloud, X_B, V_B, p, ws, true);
  auto outputs = [&](const Pose& A, const Vec6& VA, const Pose& B, const Vec6& VB) {
    const auto d = ssdf::point_ssdf_contact(a, A, VA, cloud, B, VB, p, ws, false);
    Eigen::VectorXd v(13);
    v << d.wrench_A, d.wrench_B, d.phi;
    return v;
  };
  Eigen::MatrixXd JX(13, 12);
  JX << c.J_wrench_X, c.J_phi_X;
  GradientCheckOptions opt;
  opt.frame = ReferenceFrame::local;
  opt.step = 1e-3;
  const auto rx = diffcol::check_pose_gradient(
      [&](const Pose& A, const Pose& B) { return outputs(A, V_A, B, V_B); }, X_A, X_B, JX, opt);
  EXPECT_TRUE(rx.passed()) << "trial " << trial << "\n" << rx.report();
  if (trial == 0)
    std::printf("  point-SSDF: max abs error poses %.1e (max |J| %.1e)\n", rx.max_abs_error(),
                c.J_wrench_X.cwiseAbs().maxCoeff());
  Eigen::VectorXd V(12);
  V << V_A, V_B;
  const auto rv = diffcol::check_gradient(
      [&](const Eigen::VectorXd& y) { return Eigen::VectorXd(outputs(X_A, y.head<6>(), X_B, y.tail<6>()).head<12>()); },
      V, Eigen::MatrixXd(c.J_wrench_V), opt);
  EXPECT_TRUE(rv.passed()) << "trial " << trial << "\n" << rv.report();
}

TEST(PointSsdf, JacobiansMatchFiniteDifferences) {
  const Scene& s = scene();
  const ScmParameters p = test_parameters();
  SsdfWorkspace ws;
  std::mt19937 rng(7);
  for (int trial = 0; trial < trials(); ++trial) {
    const Pose X_B = make_pose(random_rotation(rng), Vec3::Random() * 0.1);
    // A point within ±5 mm of a random surface point of the box.
    const int i = static_cast<int>(rng() % static_cast<unsigned>(s.box.size()));
    const Vec3 target = X_B * (s.box.points()[static_cast<size_t>(i)] +
                                0.005 * (2.0 * std::uniform_real_distribution<double>(0, 1)(rng) - 1.0) *
                                    s.box.normals()[static_cast<size_t>(i)]);
    const Vec3 a = 0.02 * Vec3::Random();
    const Mat3 RA = random_rotation(rng);
    const Pose X_A = make_pose(RA, target - RA * a);
    const Vec6 V_A = random_twist(rng, 0.5, 0.1), V_B = random_twist(rng, 0.5, 0.1);
    expect_point_ssdf_jacobians(a, X_A, V_A, s.box, X_B, V_B, p, ws, trial);
  }
}

// Far from the cloud (aopc.hpp, kFarQueryRatio; the logits are shifted by ‖q − c‖²): a point
// 20 radii to 1e90 radii away is outside (0 < φ ≤ distance + radius) and feels no force, and so
// do two clouds that far apart; at 20 radii with a large temperature (weights spread over many
// points) the φ and wrench Jacobians match central differences.
TEST(PointSsdf, FarPointsAreSeparated) {
  const Scene& s = scene();
  SsdfWorkspace ws;
  std::mt19937 rng(12);
  const ScmParameters p = test_parameters();
  const double R = s.box.bounds().radius;
  for (double ratio : {20.0, 1e4, 1e15, 1e20, 1e90}) {
    for (int k = 0; k < 10; ++k) {
      const Pose X_B = make_pose(random_rotation(rng), Vec3::Random() * 0.1);
      const double D = ratio * R;
      const Pose X_A = make_pose(random_rotation(rng), X_B * (s.box.bounds().center + D * random_unit(rng)));
      const Vec6 V_A = random_twist(rng, 0.5, 0.1), V_B = random_twist(rng, 0.5, 0.1);
      const auto c = ssdf::point_ssdf_contact(Vec3::Zero(), X_A, V_A, s.box, X_B, V_B, p, ws, true);
      EXPECT_GT(c.phi, 0.0) << "ratio " << ratio;
      EXPECT_LE(c.phi, D + 1.01 * R) << "ratio " << ratio;
      EXPECT_EQ(c.wrench_A.norm() + c.wrench_B.norm(), 0.0) << "ratio " << ratio;
      EXPECT_TRUE(c.J_phi_X.allFinite() && c.J_wrench_X.allFinite() && c.J_wrench_V.allFinite());
      const auto pc = ssdf::pair_contact(s.sphere, X_A, V_A, s.box, X_B, V_B, p, ws, true);
      EXPECT_GT(pc.separation, 0.0) << "ratio " << ratio;
      EXPECT_EQ(pc.wrench_1.norm() + pc.wrench_2.norm(), 0.0) << "ratio " << ratio;
      EXPECT_TRUE(pc.J_wrench_X.allFinite() && pc.J_wrench_V.allFinite());
    }
  }
  ScmParameters wide = p;
  wide.eps1 = 0.2 * R * R;
  wide.eps3 = 0.5 * R;  // the softplus reaches: the force is small but not zero
  for (int trial = 0; trial < 10; ++trial) {
    const Pose X_B = make_pose(random_rotation(rng), Vec3::Random() * 0.1);
    const Vec3 a = 0.02 * Vec3::Random();
    const Mat3 RA = random_rotation(rng);
    const Pose X_A = make_pose(RA, X_B * (s.box.bounds().center + 20.0 * R * random_unit(rng)) - RA * a);
    ASSERT_TRUE(s.box.bounds().far(X_B.inverse() * (X_A * a)));
    const Vec6 V_A = random_twist(rng, 0.5, 0.1), V_B = random_twist(rng, 0.5, 0.1);
    EXPECT_GT(ssdf::point_ssdf_contact(a, X_A, V_A, s.box, X_B, V_B, wide, ws, false).wrench_A.norm(), 0.0);
    expect_point_ssdf_jacobians(a, X_A, V_A, s.box, X_B, V_B, wide, ws, 1 + trial);
  }
}

// ------------------------------------------------------------------------------- SSDF–SSDF

TEST(PairContact, SphereOnBoxIsPushedOutAndActionEqualsReaction) {
  const Scene& s = scene();
  const ScmParameters p = test_parameters();
  SsdfWorkspace ws;
  std::mt19937 rng(5);
  for (int trial = 0; trial < 10; ++trial) {
    const Pose X_B = make_pose(random_rotation(rng), Vec3::Random() * 0.2);
    const Vec3 up = X_B.R.col(2);
    const double depth = 0.002 + 0.004 * trial / 10.0;
    const Pose X_S = make_pose(random_rotation(rng), X_B * Vec3(0.01, -0.01, 0.5 * s.box_size.z() + s.r - depth));
    const Vec6 V_S = random_twist(rng, 0.2, 0.02), V_B = random_twist(rng, 0.2, 0.02);
    const auto c = ssdf::pair_contact(s.sphere, X_S, V_S, s.box, X_B, V_B, p, ws, false);
    const Vec3 f1 = world_force(X_S, c.wrench_1), f2 = world_force(X_B, c.wrench_2);
    EXPECT_GT(f1.dot(up), 0.8 * f1.norm()) << "trial " << trial;
    EXPECT_NEAR((f1 + f2).norm(), 0.0, 1e-12 * f1.norm());
    EXPECT_LT(c.separation, 0.0);
    // Torques about the world origin: equal and opposite only up to Σ w (p − p_i) × λ_i (the two
    // forces of each pair act at p and p_i); report it.
    const Vec3 t1 = X_S.R * c.wrench_1.head<3>() + X_S.p.cross(f1), t2 = X_B.R * c.wrench_2.head<3>() + X_B.p.cross(f2);
    if (trial == 0)
      std::printf("  depth %.4f m: |f| = %.4f N, separation %.5f m, torque imbalance %.2e N m (|f|·r = %.2e)\n", depth,
                  f1.norm(), c.separation, (t1 + t2).norm(), f1.norm() * s.r);
  }
  // Far apart: forces decay to (nearly) zero.
  const Pose far = make_pose(Mat3::Identity(), Vec3(0, 0, 0.5));
  const auto c = ssdf::pair_contact(s.sphere, far, Vec6::Zero(), s.box, Pose::identity(), Vec6::Zero(), p, ws, false);
  EXPECT_LT(c.wrench_1.tail<3>().norm(), 1e-6);
}

TEST(PairContact, JacobiansMatchFiniteDifferences) {
  const Scene& s = scene();
  const ScmParameters p = test_parameters();
  SsdfWorkspace ws;
  std::mt19937 rng(9);
  for (int trial = 0; trial < std::max(1, trials() / 2); ++trial) {
    const Pose X_B = make_pose(random_rotation(rng), Vec3::Random() * 0.1);
    // Sphere centre near a random face of the box: separation in about [−8, +4] mm.
    const int i = static_cast<int>(rng() % static_cast<unsigned>(s.box.size()));
    const double off = s.r + std::uniform_real_distribution<double>(-0.008, 0.004)(rng);
    const Pose X_S = make_pose(random_rotation(rng),
                               X_B * (s.box.points()[static_cast<size_t>(i)] + off * s.box.normals()[static_cast<size_t>(i)]));
    const Vec6 V_S = random_twist(rng, 0.5, 0.1), V_B = random_twist(rng, 0.5, 0.1);
    const auto c = ssdf::pair_contact(s.sphere, X_S, V_S, s.box, X_B, V_B, p, ws, true);
    auto wrenches = [&](const Pose& A, const Vec6& VA, const Pose& B, const Vec6& VB) {
      const auto d = ssdf::pair_contact(s.sphere, A, VA, s.box, B, VB, p, ws, false);
      Eigen::VectorXd v(12);
      v << d.wrench_1, d.wrench_2;
      return v;
    };
    // Richardson (4 evaluations per column) keeps this test fast; h = 1e-5 is far below the
    // smoothing scales (sqrt(eps1) ≈ 4.5 mm, eps3 = 2 mm, v_s = 0.02 m/s), so its O(h⁴) error
    // is far below 1e-6 relative while the rounding error stays ~1e-10 absolute.
    GradientCheckOptions opt;
    opt.frame = ReferenceFrame::local;
    opt.method = diffcol::FdMethod::richardson;
    opt.step = 1e-5;
    const auto rx = diffcol::check_pose_gradient(
        [&](const Pose& A, const Pose& B) { return wrenches(A, V_S, B, V_B); }, X_S, X_B,
        Eigen::MatrixXd(c.J_wrench_X), opt);
    EXPECT_TRUE(rx.passed()) << "trial " << trial << " separation " << c.separation << "\n" << rx.report();
    Eigen::VectorXd V(12);
    V << V_S, V_B;
    const auto rv = diffcol::check_gradient(
        [&](const Eigen::VectorXd& y) { return wrenches(X_S, y.head<6>(), X_B, y.tail<6>()); }, V,
        Eigen::MatrixXd(c.J_wrench_V), opt);
    EXPECT_TRUE(rv.passed()) << "trial " << trial << "\n" << rv.report();
    std::printf("  pair trial %d: separation %+.5f m, |f| %.3f N; max abs error poses %.1e (max |J| %.1e), "
                "velocities %.1e (max |J| %.1e)\n",
                trial, c.separation, c.wrench_1.tail<3>().norm(), rx.max_abs_error(), c.J_wrench_X.cwiseAbs().maxCoeff(),
                rv.max_abs_error(), c.J_wrench_V.cwiseAbs().maxCoeff());
  }
}

TEST(PairContact, WarmQueriesDoNotAllocate) {
#ifndef DIFFCOL_TEST_COUNTS_MALLOC
  GTEST_SKIP() << "malloc counting unavailable in this build (neither glibc nor ASan)";
#else
  const Scene& s = scene();
  const ScmParameters p = test_parameters();
  SsdfWorkspace ws;
  const Pose X1 = make_pose(Mat3::Identity(), Vec3(0.0, 0.0, 0.5 * s.box_size.z() + s.r - 0.003));
  const Pose X2 = Pose::identity();
  Vec6 V = Vec6::Zero();
  V(3) = 0.05;
  auto c = ssdf::pair_contact(s.sphere, X1, V, s.box, X2, Vec6::Zero(), p, ws, true);  // warm-up
  const long before = g_allocations.load();
  for (int k = 0; k < 3; ++k) {
    c = ssdf::pair_contact(s.sphere, X1, V, s.box, X2, Vec6::Zero(), p, ws, k % 2 == 0);
    const auto d = ssdf::point_ssdf_contact(Vec3::Zero(), X1, V, s.box, X2, Vec6::Zero(), p, ws, true);
    const auto q = ssdf::soft_signed_distance(s.box, X2, X1.p, p.eps1, ws);
    EXPECT_TRUE(std::isfinite(d.phi + q.phi));
  }
  EXPECT_EQ(g_allocations.load(), before);
  // The counter does count: a std::vector allocates.
  const long b0 = g_allocations.load();
  std::vector<double> probe(100);
  EXPECT_GT(g_allocations.load(), b0);
  EXPECT_TRUE(c.wrench_1.allFinite());
#endif
}

TEST(PairContact, TwoSphereForceProfileIsSmooth) {
  // Seed Fig. 1: a small sphere (r = 0.05) moves along y through a fixed sphere (r = 0.1). The
  // SCM force must be smooth: second differences of the force at steps h and h/2 agree
  // everywhere on the path (a kink or jump would make them differ by O(jump/h)), and the
  // analytic derivative dF/dy matches a central difference.
  const OrientedPointCloud big = aopc_of(mesh::make_icosphere(0.1, 3), 200);
  const OrientedPointCloud small = aopc_of(mesh::make_icosphere(0.05, 3), 80);
  ScmParameters p = test_parameters();
  p.eps1 = 1e-4;
  p.eps2 = 5e-3;
  p.eps3 = 5e-3;
  SsdfWorkspace ws;
  auto fy = [&](double y) {
    const Pose X2 = make_pose(Mat3::Identity(), Vec3(0.0, y, 0.0));
    const auto c = ssdf::pair_contact(big, Pose::identity(), Vec6::Zero(), small, X2, Vec6::Zero(), p, ws, false);
    return c.wrench_2(4);  // y force on the small sphere (body frame = world frame here)
  };
  const double h = 5e-4;  // a tenth of the smallest smoothing length (eps3 = 5 mm)
  double worst = 0.0, scale = 0.0, worst_slope = 0.0;
  // Every 1 cm along the path; every 4 cm where DIFFCOL_SCM_TRIALS is below its default (the
  // sanitizer step of scripts/test.sh, which looks for memory errors, not kinks).
  const double dy = trials() < kDefaultScmTrials ? 0.04 : 0.01;
  for (double y = 0.015; y <= 0.2; y += dy) {
    const double d2h = (fy(y + h) - 2 * fy(y) + fy(y - h)) / (h * h);
    const double d2h2 = (fy(y + h / 2) - 2 * fy(y) + fy(y - h / 2)) / (h * h / 4);
    worst = std::max(worst, std::abs(d2h - d2h2));
    scale = std::max(scale, std::abs(d2h2));
    const Pose X2 = make_pose(Mat3::Identity(), Vec3(0.0, y, 0.0));
    const auto c = ssdf::pair_contact(big, Pose::identity(), Vec6::Zero(), small, X2, Vec6::Zero(), p, ws, true);
    const double slope = c.J_wrench_X(10, 10);  // ∂F_y/∂(body-twist v_y of body 2), R = I
    const double fd = (fy(y + 1e-6) - fy(y - 1e-6)) / 2e-6;
    worst_slope = std::max(worst_slope, std::abs(slope - fd) / std::max(1.0, std::abs(fd)));
  }
  std::printf("  two spheres: max |F''| %.3e N/m^2, max |F''(h) - F''(h/2)| %.3e, max slope error %.1e\n", scale,
              worst, worst_slope);
  // Smooth: ~0.1% here; with a hard softplus (eps3 = 0) the same check measures ~2%.
  EXPECT_LT(worst, 0.005 * scale);
  EXPECT_LT(worst_slope, 1e-5);
}

TEST(PairContact, WeightCutoffChangesAlmostNothing) {
  const Scene& s = scene();
  ScmParameters p = test_parameters();
  SsdfWorkspace ws;
  std::mt19937 rng(13);
  for (int trial = 0; trial < 5; ++trial) {
    const Pose X_B = make_pose(random_rotation(rng), Vec3::Zero());
    const Pose X_S = make_pose(random_rotation(rng), X_B * Vec3(0.0, 0.01, 0.5 * s.box_size.z() + s.r - 0.002));
    const Vec6 V_S = random_twist(rng, 0.3, 0.05), V_B = Vec6::Zero();
    p.weight_cutoff = 0.0;
    const auto exact = ssdf::pair_contact(s.sphere, X_S, V_S, s.box, X_B, V_B, p, ws, true);
    p.weight_cutoff = 1e-12;
    const auto cut = ssdf::pair_contact(s.sphere, X_S, V_S, s.box, X_B, V_B, p, ws, true);
    Vec12 a, b;
    a << exact.wrench_1, exact.wrench_2;
    b << cut.wrench_1, cut.wrench_2;
    EXPECT_LT((a - b).norm(), 1e-9 * a.norm());
    EXPECT_LT((exact.J_wrench_X - cut.J_wrench_X).norm(), 1e-8 * exact.J_wrench_X.norm());
    EXPECT_LT((exact.J_wrench_V - cut.J_wrench_V).norm(), 1e-8 * exact.J_wrench_V.norm());
  }
  p.weight_cutoff = 1.0;
  EXPECT_THROW(p.validate(), std::invalid_argument);
  p.weight_cutoff = 1e-2;  // a truncation that changes the forces
  EXPECT_THROW(p.validate(), std::invalid_argument);
  p.weight_cutoff = 1e-3;
  EXPECT_NO_THROW(p.validate());
}

TEST(PairContact, RejectsBadInput) {
  const Scene& s = scene();
  SsdfWorkspace ws;
  ScmParameters p = test_parameters();
  const Pose I = Pose::identity();
  p.stiffness = -1.0;
  EXPECT_THROW(ssdf::pair_contact(s.sphere, I, Vec6::Zero(), s.box, I, Vec6::Zero(), p, ws), std::invalid_argument);
  p = test_parameters();
  p.eps2 = kNaN;
  EXPECT_THROW(ssdf::pair_contact(s.sphere, I, Vec6::Zero(), s.box, I, Vec6::Zero(), p, ws), std::invalid_argument);
  p = test_parameters();
  p.friction = -0.1;
  EXPECT_THROW(ssdf::pair_contact(s.sphere, I, Vec6::Zero(), s.box, I, Vec6::Zero(), p, ws), std::invalid_argument);
  p = test_parameters();
  Vec6 bad = Vec6::Zero();
  bad(2) = kInf;
  EXPECT_THROW(ssdf::pair_contact(s.sphere, I, bad, s.box, I, Vec6::Zero(), p, ws), std::invalid_argument);
  EXPECT_THROW(ssdf::point_ssdf_contact(Vec3(kNaN, 0, 0), I, Vec6::Zero(), s.box, I, Vec6::Zero(), p, ws),
               std::invalid_argument);
}

}  // namespace
