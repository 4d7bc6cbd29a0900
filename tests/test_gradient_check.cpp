// Tests of the finite-difference gradient checker (include/diffcol/math/gradient_check.hpp):
// it must accept exact Jacobians of known functions of poses and vectors, and reject wrong ones,
// naming the block and entry that is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "diffcol/math/gradient_check.hpp"

namespace {

using diffcol::check_gradient;
using diffcol::check_pose_gradient;
using diffcol::compare_jacobians;
using diffcol::GradientCheckOptions;
using diffcol::GradientCheckResult;
using diffcol::Mat3;
using diffcol::ReferenceFrame;
using diffcol::Pose;
using diffcol::skew;
using diffcol::Vec3;
using diffcol::Vec6;

Pose random_pose(std::mt19937& rng) {
  std::normal_distribution<double> N(0.0, 1.0);
  Pose X;
  X.R = Eigen::Quaterniond(N(rng), N(rng), N(rng), N(rng)).normalized().toRotationMatrix();
  X.p = Vec3(N(rng), N(rng), N(rng));
  return X;
}

// f(X) = [p; R u]: world twist Jacobian [[−p̃, I], [−(Ru)~, 0]].
Eigen::MatrixXd point_and_vector_world(const Pose& X, const Vec3& u) {
  Eigen::MatrixXd J(6, 6);
  J.setZero();
  J.block<3, 3>(0, 0) = -skew(X.p);
  J.block<3, 3>(0, 3).setIdentity();
  J.block<3, 3>(3, 0) = -skew(X.R * u);
  return J;
}

Eigen::VectorXd point_and_vector(const Pose& X, const Vec3& u) {
  Eigen::VectorXd f(6);
  f << X.p, X.R * u;
  return f;
}

TEST(GradientCheck, AcceptsExactWorldTwistJacobian) {
  std::mt19937 rng(1);
  const Vec3 u(0.3, -1.2, 0.7);
  for (int t = 0; t < 20; ++t) {
    const Pose X = random_pose(rng);
    GradientCheckOptions opt;
    opt.blocks = {{"p", 0, 3}, {"Ru", 3, 3}};
    const GradientCheckResult res =
        check_pose_gradient([&](const Pose& Y) { return point_and_vector(Y, u); }, X, point_and_vector_world(X, u), opt);
    EXPECT_TRUE(res.passed()) << res.report();
    ASSERT_EQ(res.blocks.size(), 2u);
    EXPECT_EQ(res.blocks[0].name, "p");
    EXPECT_LT(res.max_abs_error(), 1e-9);
  }
}

TEST(GradientCheck, AcceptsExactBodyTwistJacobian) {
  // body side: X ← X exp(ξ): δp = R v, δ(R u) = −R ũ ω
  std::mt19937 rng(2);
  const Vec3 u(-0.5, 0.25, 2.0);
  for (int t = 0; t < 20; ++t) {
    const Pose X = random_pose(rng);
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(6, 6);
    J.block<3, 3>(0, 3) = X.R;
    J.block<3, 3>(3, 0) = -X.R * skew(u);
    GradientCheckOptions opt;
    opt.frame = ReferenceFrame::local;
    const GradientCheckResult res =
        check_pose_gradient([&](const Pose& Y) { return point_and_vector(Y, u); }, X, J, opt);
    EXPECT_TRUE(res.passed()) << res.report();
    // the world-twist Jacobian is wrong for body perturbations (unless X is special)
    EXPECT_FALSE(check_pose_gradient([&](const Pose& Y) { return point_and_vector(Y, u); }, X,
                                     point_and_vector_world(X, u), opt)
                     .passed());
  }
}

TEST(GradientCheck, TwoPosesRelativeTranslation) {
  // f(X1, X2) = R1ᵀ(p2 − p1): J = [R1ᵀ p̃2, −R1ᵀ | −R1ᵀ p̃2, R1ᵀ] for world twists
  std::mt19937 rng(3);
  for (int t = 0; t < 20; ++t) {
    const Pose X1 = random_pose(rng), X2 = random_pose(rng);
    Eigen::MatrixXd J(3, 12);
    const Mat3 R1t = X1.R.transpose();
    J << R1t * skew(X2.p), -R1t, -R1t * skew(X2.p), R1t;
    const auto f = [](const Pose& A, const Pose& B) { return Eigen::VectorXd(A.R.transpose() * (B.p - A.p)); };
    const GradientCheckResult res = check_pose_gradient(f, X1, X2, J);
    EXPECT_TRUE(res.passed()) << res.report();
    // a deliberately wrong Jacobian: the X1 columns with the wrong sign
    Eigen::MatrixXd Jw = J;
    Jw.leftCols<6>() *= -1.0;
    const GradientCheckResult bad = check_pose_gradient(f, X1, X2, Jw);
    EXPECT_FALSE(bad.passed());
    EXPECT_LT(bad.blocks[0].worst_col, 6);
  }
}

TEST(GradientCheck, DetectsSmallErrorInOneEntryAndNamesTheBlock) {
  std::mt19937 rng(4);
  const Vec3 u(1.0, 2.0, 3.0);
  const Pose X = random_pose(rng);
  Eigen::MatrixXd J = point_and_vector_world(X, u);
  J(4, 1) *= 1.0 + 1e-4;  // relative error 1e-4 in block "Ru", row 4, column 1
  if (std::abs(J(4, 1)) < 1e-3) J(4, 1) += 1e-4;
  GradientCheckOptions opt;
  opt.blocks = {{"p", 0, 3}, {"Ru", 3, 3}};
  const GradientCheckResult res =
      check_pose_gradient([&](const Pose& Y) { return point_and_vector(Y, u); }, X, J, opt);
  EXPECT_FALSE(res.passed());
  EXPECT_TRUE(res.blocks[0].passed);
  EXPECT_FALSE(res.blocks[1].passed);
  EXPECT_EQ(res.blocks[1].worst_row, 4);
  EXPECT_EQ(res.blocks[1].worst_col, 1);
  EXPECT_GT(res.blocks[1].max_rel_error, 1e-5);
  EXPECT_NE(res.report().find("FAIL"), std::string::npos);
}

TEST(GradientCheck, NearZeroEntriesUseTheAbsoluteTolerance) {
  Eigen::MatrixXd A(1, 2), N(1, 2);
  A << 1e-12, 1.0;
  N << 3e-12, 1.0 + 5e-7;  // relative error 0.67 but absolute 2e-12; second entry rel 5e-7
  EXPECT_TRUE(compare_jacobians(A, N).passed());
  N(0, 0) = 1e-7;  // absolute 1e-7 > 1e-8 and relative ~1
  EXPECT_FALSE(compare_jacobians(A, N).passed());
}

TEST(GradientCheck, NonFiniteValuesAndWrongSizesFail) {
  const auto f = [](const Pose& X) {
    Eigen::VectorXd v(1);
    v[0] = X.p.x() > 0.0 ? std::numeric_limits<double>::quiet_NaN() : X.p.x();
    return v;
  };
  Pose X;
  X.p = Vec3(-1e-5, 0, 0);
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(1, 6);
  J(0, 3) = 1.0;
  GradientCheckOptions central;
  central.method = diffcol::FdMethod::central;
  const GradientCheckResult res = check_pose_gradient(f, X, J, central);
  EXPECT_FALSE(res.passed());
  EXPECT_TRUE(std::isinf(res.blocks[0].max_abs_error));
  const GradientCheckResult res2 = check_pose_gradient(f, Pose{}, Eigen::MatrixXd::Zero(2, 6));
  GradientCheckOptions bad_steps;
  bad_steps.column_steps = Eigen::VectorXd::Constant(5, 1e-3);
  EXPECT_THROW(check_pose_gradient(f, X, J, bad_steps), std::invalid_argument);
  EXPECT_FALSE(res2.shape_ok);
  EXPECT_FALSE(res2.passed());
}

TEST(GradientCheck, VectorFunctionAndRichardson) {
  const auto f = [](const Eigen::VectorXd& q) {
    Eigen::VectorXd v(2);
    v << std::sin(q[0] * q[1]), std::exp(q[0]) * q[1] * q[1];
    return v;
  };
  Eigen::VectorXd q(2);
  q << 0.7, -1.3;
  Eigen::MatrixXd J(2, 2);
  J << std::cos(q[0] * q[1]) * q[1], std::cos(q[0] * q[1]) * q[0], std::exp(q[0]) * q[1] * q[1],
      2.0 * std::exp(q[0]) * q[1];
  GradientCheckOptions opt;
  opt.step = 1e-3;
  opt.method = diffcol::FdMethod::richardson;
  const GradientCheckResult with = check_gradient(f, q, J, opt);
  EXPECT_TRUE(with.passed()) << with.report();
  opt.method = diffcol::FdMethod::central;
  const GradientCheckResult without = check_gradient(f, q, J, opt);
  // O(h²) = 1e-6-ish truncation error without extrapolation, O(h⁴) with it
  EXPECT_GT(without.max_abs_error(), 10.0 * with.max_abs_error());
  // Ridders from a large step: accurate, with an error estimate that bounds the actual error
  opt.method = diffcol::FdMethod::ridders;
  opt.step = 0.1;
  const GradientCheckResult rid = check_gradient(f, q, J, opt);
  EXPECT_TRUE(rid.passed()) << rid.report();
  EXPECT_LT(rid.max_abs_error(), 1e-10);
  ASSERT_EQ(rid.fd_error.rows(), 2);
  EXPECT_LT(rid.fd_error.maxCoeff(), 1e-8);
}

TEST(GradientCheck, RiddersSkipsFailedEvaluationsAtLargeSteps) {
  // f is undefined (NaN) for |q − q0| > 0.02: the first steps fail, smaller ones succeed
  const double q0 = 0.4;
  const auto f = [&](const Eigen::VectorXd& q) {
    Eigen::VectorXd v(1);
    v[0] = std::abs(q[0] - q0) > 0.02 ? std::numeric_limits<double>::quiet_NaN() : std::sin(3.0 * q[0]);
    return v;
  };
  Eigen::VectorXd q(1);
  q << q0;
  Eigen::MatrixXd J(1, 1);
  J << 3.0 * std::cos(3.0 * q0);
  GradientCheckOptions opt;
  opt.step = 0.05;
  const GradientCheckResult res = check_gradient(f, q, J, opt);
  EXPECT_TRUE(res.passed()) << res.report();
}

TEST(GradientCheck, PerturbIsTheExponentialOnTheChosenSide) {
  std::mt19937 rng(5);
  const Pose X = random_pose(rng);
  Vec6 xi;
  xi << 0.1, -0.2, 0.3, 1.0, 2.0, -0.5;
  const Pose Lw = diffcol::perturb(X, xi, ReferenceFrame::world);
  const Pose Lb = diffcol::perturb(X, xi, ReferenceFrame::local);
  const Pose E = diffcol::se3_exp(xi);
  EXPECT_LT(((E * X).R - Lw.R).norm() + ((E * X).p - Lw.p).norm(), 1e-14);
  EXPECT_LT(((X * E).R - Lb.R).norm() + ((X * E).p - Lb.p).norm(), 1e-14);
}

}  // namespace
