// Tests of the DCOL derivatives (include/diffcol/dcol/derivatives.hpp) against central finite
// differences on SE(3) (Ridders, include/diffcol/math/gradient_check.hpp), on every ordered pair of
// the seven primitives at random poses (DIFFCOL_DCOL_DERIV_POSES per pair, default 20), plus the
// (r, q) layout, the smoothed (barrier_target) derivatives, a face–face parallel contact, and the
// separating normal's derivatives (normal_derivatives).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/math/gradient_check.hpp"
#include "diffcol/shapes/superellipsoid.hpp"

#include "test_util.hpp"

namespace {

using namespace diffcol;
using namespace diffcol::dcol;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;

int deriv_poses() { return static_cast<int>(diffcol::test::env_count("DIFFCOL_DCOL_DERIV_POSES", 20)); }

/// Stacked outputs [α, x_W, p1_W, p2_W, distance] (11 rows) of a solve.
Eigen::VectorXd outputs(const ContactResult& r) {
  Eigen::VectorXd v(11);
  v << r.alpha, r.x_W, r.p1_W, r.p2_W, r.gap;
  return v;
}

Eigen::MatrixXd analytic_world(const ContactDerivatives& d) {
  Eigen::MatrixXd J(11, 12);
  J.row(0) << d.J_alpha_X1, d.J_alpha_X2;
  J.middleRows(1, 3) << d.J_x_W_X1, d.J_x_W_X2;
  J.middleRows(4, 3) << d.J_p1_W_X1, d.J_p1_W_X2;
  J.middleRows(7, 3) << d.J_p2_W_X1, d.J_p2_W_X2;
  J.row(10) << d.J_gap_X1, d.J_gap_X2;
  return J;
}

/// Every output block [α, x_W, p1_W, p2_W, distance]; relative and absolute tolerances.
GradientCheckOptions check_options(double rel = 1e-6, double abs = 1e-8) {
  GradientCheckOptions opt;
  opt.frame = ReferenceFrame::world;
  opt.step = 1e-3;
  opt.rel_tolerance = rel;
  opt.abs_tolerance = abs;
  opt.column_group = 3;
  opt.blocks = {{"alpha", 0, 1}, {"x_W", 1, 3}, {"p1_W", 4, 3}, {"p2_W", 7, 3}, {"distance", 10, 1}};
  return opt;
}

/// Poses with body 2 placed so that α* lies in [0.4, 2.5] (generic contacts).
void random_config(std::mt19937& rng, const Primitive& a, const Primitive& b, Pose& X1, Pose& X2) {
  std::uniform_real_distribution<double> U(0.4, 2.5);
  X1 = make_pose(random_rotation(rng), random_unit(rng) * 0.5);
  X2 = make_pose(random_rotation(rng), Vec3::Zero());
  const Vec3 dir = random_unit(rng);
  // α* is proportional to the distance along a ray: solve at unit distance, then rescale.
  X2.p = X1.p + dir;
  const ContactResult r = solve_contact(a, X1, b, X2);
  X2.p = X1.p + dir * (U(rng) / r.alpha);
}

TEST(DcolDerivatives, EveryOrderedPairMatchesFiniteDifferences) {
  // Every output (α, x*, p1, p2, distance) at the default (unsmoothed, polished) solution against
  // Ridders central differences of the solve on SE(3): ≤ 1e-6 relative, 1e-8 absolute. Where the
  // step of 1e-3 crosses a feature switch (at most one configuration in a thousand) the
  // differences are taken again with a step of 1e-4.
  const int n = deriv_poses();
  const char* const* names = benchmark_primitive_names();
  std::mt19937 rng(11);
  int checked = 0, rechecked = 0;
  double worst_all = 0.0;
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      double worst = 0.0, worst_rel = 0.0;
      for (int q = 0; q < n; ++q) {
        Pose X1, X2;
        random_config(rng, a, b, X1, X2);
        const ContactResult res = solve_contact(a, X1, b, X2);
        ASSERT_EQ(res.status, SolveStatus::ok);
        EXPECT_TRUE(res.kkt.polished) << names[i] << "-" << names[j] << " pose " << q;
        const ContactDerivatives d = contact_derivatives(res);
        ASSERT_EQ(d.status, DerivativeStatus::ok);
        auto f = [&](const Pose& A, const Pose& B) { return outputs(solve_contact(a, A, b, B)); };
        GradientCheckResult chk = check_pose_gradient(f, X1, X2, analytic_world(d), check_options());
        if (!chk.passed()) {  // a feature switch within the step: the differences again at a tenth of it
          GradientCheckOptions fine = check_options();
          fine.step = 1e-4;
          chk = check_pose_gradient(f, X1, X2, analytic_world(d), fine);
          ++rechecked;
        }
        ++checked;
        for (const auto& blk : chk.blocks) {
          worst = std::max(worst, blk.worst_ratio);
          worst_rel = std::max(worst_rel, blk.max_rel_error);
        }
        EXPECT_TRUE(chk.passed()) << names[i] << "-" << names[j] << " pose " << q << " alpha " << res.alpha << "\n"
                                  << chk.report();
      }
      worst_all = std::max(worst_all, worst);
      std::printf("%-15s %-15s worst error / tolerance = %.3g, worst relative error %.3g\n", names[i], names[j],
                  worst, worst_rel);
    }
  }
  std::printf("%d configurations checked (all outputs), %d of them again at a tenth of the step, worst error / "
              "tolerance %.3g\n",
              checked, rechecked, worst_all);
  EXPECT_LE(rechecked, checked / 1000 + 1);
}

TEST(DcolDerivatives, SlackEliminationMatchesTheUnpolishedSolveAndFiniteDifferences) {
  // The padded-polygon pairs polish with slacks eliminated (ConeKkt::elim_*) when K is large: at
  // such solutions α agrees with the interior-point method run to its own tolerance without the
  // polish (an independent solve), the stored dimensions are consistent, and every derivative
  // matches finite differences. Fails if no pose exercises the elimination.
  // the benchmark's rectangle (axis-aligned edges: one slack per active edge) and a pentagon
  // (oblique edges: an active edge ties w_1 to w_2)
  Eigen::MatrixX2d C(5, 2);
  Eigen::VectorXd dd(5);
  for (int i = 0; i < 5; ++i) {
    const double t = 2.0 * M_PI * (i + 0.3) / 5.0;
    C.row(i) << std::cos(t), std::sin(t);
    dd[i] = 0.8;
  }
  const Primitive pentagon = PaddedPolygon(C, dd, 0.15);
  const Primitive rect = benchmark_primitive("padded_polygon");
  const Primitive capsule = benchmark_primitive("capsule"), cone = benchmark_primitive("cone");
  const std::pair<const Primitive*, const Primitive*> pairs[] = {
      {&rect, &rect}, {&rect, &capsule}, {&capsule, &rect}, {&cone, &rect}, {&pentagon, &pentagon}, {&pentagon, &capsule},
      {&rect, &pentagon}};
  const char* names[] = {"rect-rect", "rect-capsule", "capsule-rect", "cone-rect", "pentagon-pentagon",
                         "pentagon-capsule", "rect-pentagon"};
  std::mt19937 rng(23);
  int eliminated = 0, vertex = 0, edge = 0;
  SolveOptions ipm;
  ipm.polish = false;
  ipm.direct_newton = false;
  for (int ip = 0; ip < 7; ++ip) {
    const Primitive &a = *pairs[ip].first, &b = *pairs[ip].second;
    for (int q = 0; q < 25; ++q) {
      Pose X1, X2;
      random_config(rng, a, b, X1, X2);
      const ContactResult res = solve_contact(a, X1, b, X2);
      ASSERT_EQ(res.status, SolveStatus::ok);
      ASSERT_TRUE(res.kkt.polished);
      const ConeKkt& k = res.kkt;
      if (k.elim_count == 0) continue;
      ++eliminated;
      for (int e = 0; e < k.elim_count; ++e) (k.elim_src[e][1] >= 0 ? edge : vertex) += 1;
      EXPECT_EQ(k.kkt_dim, k.kkt_full_dim - 2 * k.elim_count);
      const ContactResult ref = solve_contact(a, X1, b, X2, ipm);
      ASSERT_EQ(ref.status, SolveStatus::ok);
      EXPECT_NEAR(res.alpha, ref.alpha, 1e-6 * ref.alpha) << names[ip] << " pose " << q;
      const ContactDerivatives d = contact_derivatives(res);
      ASSERT_EQ(d.status, DerivativeStatus::ok);
      auto f = [&](const Pose& A, const Pose& B) { return outputs(solve_contact(a, A, b, B)); };
      const GradientCheckResult chk = check_pose_gradient(f, X1, X2, analytic_world(d), check_options());
      EXPECT_TRUE(chk.passed()) << names[ip] << " pose " << q << "\n" << chk.report();
    }
  }
  std::printf("%d of 175 solutions with eliminated slacks: %d slacks at polygon vertices, %d on edges\n",
              eliminated, vertex, edge);
  EXPECT_GE(eliminated, 20);
  EXPECT_GE(vertex, 5);
  EXPECT_GE(edge, 5);
}

TEST(DcolDerivatives, EllipsoidDerivativesMatchIdcol) {
  // An independent analytic reference: iDCOL's derivatives (same world-twist convention) for two
  // ellipsoids (superellipsoids with n = 1), whose x* iDCOL solves by Newton to 1e-10.
  std::mt19937 rng(16);
  std::uniform_real_distribution<double> U(0.4, 1.6);
  double worst_alpha = 0.0, worst_x = 0.0;
  for (int q = 0; q < 20; ++q) {
    const Vec3 a1(U(rng), U(rng), U(rng)), a2(U(rng), U(rng), U(rng));
    const Primitive e1 = Ellipsoid::from_semi_axes(a1.x(), a1.y(), a1.z());
    const Primitive e2 = Ellipsoid::from_semi_axes(a2.x(), a2.y(), a2.z());
    Pose X1, X2;
    random_config(rng, e1, e2, X1, X2);
    const ContactResult res = solve_contact(e1, X1, e2, X2);
    const ContactDerivatives d = contact_derivatives(res);
    ASSERT_TRUE(d.ok());
    const Shape s1 = Superellipsoid::ellipsoid(a1.x(), a1.y(), a1.z());
    const Shape s2 = Superellipsoid::ellipsoid(a2.x(), a2.y(), a2.z());
    const idcol::ContactSolution ref = idcol::solve_contact(s1, X1, s2, X2);
    ASSERT_TRUE(ref.ok());
    const idcol::ContactDerivatives rd = idcol::contact_derivatives(ref);
    ASSERT_TRUE(rd.ok());
    const double sa = std::max(1.0, rd.J_alpha_X2.cwiseAbs().maxCoeff());
    const double sx = std::max(1.0, rd.J_x_W_X2.cwiseAbs().maxCoeff());
    worst_alpha = std::max({worst_alpha, (d.J_alpha_X1 - rd.J_alpha_X1).cwiseAbs().maxCoeff() / sa,
                            (d.J_alpha_X2 - rd.J_alpha_X2).cwiseAbs().maxCoeff() / sa});
    worst_x = std::max({worst_x, (d.J_x_W_X1 - rd.J_x_W_X1).cwiseAbs().maxCoeff() / sx,
                        (d.J_x_W_X2 - rd.J_x_W_X2).cwiseAbs().maxCoeff() / sx});
  }
  std::printf("ellipsoid-ellipsoid vs iDCOL: dalpha %.3g, dx %.3g (relative to the largest entry)\n", worst_alpha,
              worst_x);
  EXPECT_LT(worst_alpha, 1e-8);
  EXPECT_LT(worst_x, 1e-8);
}

TEST(DcolDerivatives, RelativeBodyTwistOfAlpha) {
  std::mt19937 rng(12);
  const Primitive a = benchmark_primitive("cone"), b = benchmark_primitive("capsule");
  for (int q = 0; q < 5; ++q) {
    Pose X1, X2;
    random_config(rng, a, b, X1, X2);
    const ContactResult res = solve_contact(a, X1, b, X2);
    const ContactDerivatives d = contact_derivatives(res);
    ASSERT_TRUE(d.ok());
    GradientCheckOptions opt;
    opt.frame = ReferenceFrame::local;
    opt.column_group = 3;
    auto f = [&](const Pose& X12) {
      Eigen::VectorXd v(1);
      v << solve_contact(a, X1, b, X1 * X12).alpha;
      return v;
    };
    const GradientCheckResult chk = check_pose_gradient(f, X1.inverse() * X2, d.J_alpha_X12, opt);
    EXPECT_TRUE(chk.passed()) << chk.report();
  }
}

TEST(DcolDerivatives, PositionQuaternionLayout) {
  std::mt19937 rng(13);
  const Primitive a = benchmark_primitive("polytope"), b = benchmark_primitive("ellipsoid");
  for (int q = 0; q < 5; ++q) {
    Pose X1, X2;
    random_config(rng, a, b, X1, X2);
    const ContactResult res = solve_contact(a, X1, b, X2);
    const PositionQuaternionJacobians J = to_position_quaternion(res, contact_derivatives(res));
    ASSERT_EQ(J.status, DerivativeStatus::ok);
    const Eigen::Quaterniond q1 = X1.quaternion(), q2 = X2.quaternion();
    Eigen::VectorXd theta(14);
    theta << X1.p, q1.w(), q1.x(), q1.y(), q1.z(), X2.p, q2.w(), q2.x(), q2.y(), q2.z();
    auto f = [&](const Eigen::VectorXd& t) {
      const Pose A = Pose::from_quaternion(t.segment<3>(0), t[3], t[4], t[5], t[6]);
      const Pose B = Pose::from_quaternion(t.segment<3>(7), t[10], t[11], t[12], t[13]);
      const ContactResult r = solve_contact(a, A, b, B);
      Eigen::VectorXd v(4);
      v << r.alpha, r.x_W;
      return v;
    };
    Eigen::MatrixXd analytic(4, 14);
    analytic << J.J_alpha, J.J_x_W;
    GradientCheckOptions opt;
    opt.step = 1e-3;
    opt.abs_tolerance = 1e-8;
    opt.rel_tolerance = 1e-6;
    opt.blocks = {{"alpha", 0, 1}, {"x_W", 1, 3}};
    const GradientCheckResult chk = check_gradient(f, theta, analytic, opt);
    EXPECT_TRUE(chk.passed()) << chk.report();
  }
}

TEST(DcolDerivatives, SmoothedDerivativesAreExactForTheSmoothedProblem) {
  // With barrier_target μ > 0 the solve returns the central point at μ, and the IFT derivatives
  // are those of that smoothed map: check them against finite differences of the smoothed solve.
  std::mt19937 rng(14);
  for (const char* pair : {"polytope", "cylinder", "ellipsoid"}) {
    const Primitive a = benchmark_primitive(pair), b = benchmark_primitive("polytope");
    for (int q = 0; q < 3; ++q) {
      Pose X1, X2;
      random_config(rng, a, b, X1, X2);
      SolveOptions smooth;
      smooth.barrier_target = 1e-3;
      const ContactResult res = solve_contact(a, X1, b, X2, smooth);
      ASSERT_EQ(res.status, SolveStatus::ok) << status_name(res.status);
      EXPECT_NEAR(res.duality_measure, 1e-3, 1e-9);
      const ContactDerivatives d = contact_derivatives(res);
      ASSERT_TRUE(d.ok());
      auto f = [&](const Pose& A, const Pose& B) { return outputs(solve_contact(a, A, b, B, smooth)); };
      EXPECT_FALSE(res.kkt.polished);
      const GradientCheckResult chk = check_pose_gradient(f, X1, X2, analytic_world(d), check_options());
      EXPECT_TRUE(chk.passed()) << pair << "\n" << chk.report();
    }
  }
}

TEST(DcolDerivatives, FaceFaceParallelContactIsFinite) {
  // Two boxes with parallel faces in contact over a patch: α* has a kink in the rotation (the
  // contact switches between the patch's corners) and x* is not unique. The solver returns the
  // analytic centre; derivatives must be finite, and dα/dθ must lie between the one-sided
  // derivatives (a convex combination of them, docs/dcol.md).
  const Primitive box1 = Polytope::box(1.0, 1.0, 1.0), box2 = Polytope::box(0.5, 0.5, 0.5);
  const Pose X1 = Pose::identity();
  const Pose X2 = make_pose(Mat3::Identity(), Vec3(2.0, 0.2, -0.1));
  const ContactResult res = solve_contact(box1, X1, box2, X2);
  ASSERT_EQ(res.status, SolveStatus::ok);
  // α* = 2/1.5 (faces x = α and x = 2 − α/2 meet), x on the face x = α*.
  EXPECT_NEAR(res.alpha, 2.0 / 1.5, 1e-9);
  // x* is not unique: the reduced KKT matrix is singular, the polish declines, and the
  // interior-point (analytic-centre) solution and its derivative are returned.
  EXPECT_FALSE(res.kkt.polished);
  const ContactDerivatives d = contact_derivatives(res);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d.J_alpha_X1.allFinite() && d.J_alpha_X2.allFinite() && d.J_x_W_X2.allFinite() &&
              d.J_p1_W_X2.allFinite() && d.J_p2_W_X2.allFinite());
  // Smooth directions: translation along x (dα/dv_x = 1/1.5 for body 2).
  EXPECT_NEAR(d.J_alpha_X2[3], 1.0 / 1.5, 1e-6);
  // Rotation of body 2 about z (world): one-sided derivatives by finite differences.
  auto alpha_at = [&](double t) {
    const Pose Xt = se3_exp((Vec6() << 0, 0, t, 0, 0, 0).finished()) * X2;
    return solve_contact(box1, X1, box2, Xt).alpha;
  };
  const double h = 1e-6;
  const double right = (alpha_at(h) - res.alpha) / h, left = (res.alpha - alpha_at(-h)) / h;
  const double lo = std::min(left, right), hi = std::max(left, right);
  EXPECT_GT(hi - lo, 1e-3);  // a genuine kink
  EXPECT_GE(d.J_alpha_X2[2], lo - 1e-6);
  EXPECT_LE(d.J_alpha_X2[2], hi + 1e-6);
  std::printf("face-face: one-sided dalpha/dwz = [%.6f, %.6f], returned %.6f\n", lo, hi, d.J_alpha_X2[2]);
}

/// separating_normal and its analytic Jacobian (3×12, columns [X1 | X2]) against Ridders central
/// differences of the solve on SE(3) in `frame`; also n·J = 0 (a unit vector's derivative).
GradientCheckResult check_normal(const Primitive& a, const Pose& X1, const Primitive& b, const Pose& X2,
                                 const SolveOptions& opt, ReferenceFrame frame, const char* what) {
  const ContactResult res = solve_contact(a, X1, b, X2, opt);
  EXPECT_EQ(res.status, SolveStatus::ok) << what;
  const NormalDerivatives d = normal_derivatives(res, frame);
  EXPECT_EQ(d.status, DerivativeStatus::ok) << what;
  EXPECT_EQ(d.frame, frame);
  EXPECT_LE((d.normal_W - separating_normal(res)).norm(), 1e-15) << what;
  Eigen::MatrixXd J(3, 12);
  J << d.J_normal_W_X1, d.J_normal_W_X2;
  EXPECT_LE((d.normal_W.transpose() * J).cwiseAbs().maxCoeff(), 1e-10 * (1.0 + J.cwiseAbs().maxCoeff())) << what;
  auto f = [&](const Pose& A, const Pose& B) -> Eigen::VectorXd {
    return separating_normal(solve_contact(a, A, b, B, opt));
  };
  GradientCheckOptions o;
  o.frame = frame;
  o.step = 1e-3;
  o.rel_tolerance = 1e-6;
  o.abs_tolerance = 1e-8;
  o.column_group = 3;
  o.blocks = {{"normal_W", 0, 3}};
  return check_pose_gradient(f, X1, X2, J, o);
}

TEST(DcolDerivatives, SeparatingNormalMatchesFiniteDifferences) {
  // normal_derivatives on every ordered pair of the seven primitives at polished solutions (the
  // multipliers' derivatives from the full KKT system, slack eliminations included), in the world
  // frame and, on every third pose, in the two body-attached frames: ≤ 1e-6 relative, 1e-8 absolute.
  const int n = deriv_poses();
  const char* const* names = benchmark_primitive_names();
  std::mt19937 rng(31);
  int checked = 0, eliminated = 0;
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      double worst = 0.0;
      for (int q = 0; q < n; ++q) {
        Pose X1, X2;
        random_config(rng, a, b, X1, X2);
        const ReferenceFrame frame = q % 3 == 1   ? ReferenceFrame::local
                                     : q % 3 == 2 ? ReferenceFrame::local_world_aligned
                                                  : ReferenceFrame::world;
        const std::string what = std::string(names[i]) + "-" + names[j] + " pose " + std::to_string(q);
        const GradientCheckResult chk = check_normal(a, X1, b, X2, SolveOptions{}, frame, what.c_str());
        eliminated += solve_contact(a, X1, b, X2).kkt.elim_count > 0 ? 1 : 0;  // K assembled again
        for (const auto& blk : chk.blocks) worst = std::max(worst, blk.worst_ratio);
        EXPECT_TRUE(chk.passed()) << what << "\n" << chk.report();
        ++checked;
      }
      std::printf("%-15s %-15s normal: worst error / tolerance = %.3g\n", names[i], names[j], worst);
    }
  }
  std::printf("%d configurations checked (separating normal), %d with eliminated slacks\n", checked, eliminated);
  EXPECT_GE(eliminated, 1);
}

TEST(DcolDerivatives, SeparatingNormalOfTheSmoothedProblem) {
  // barrier_target μ > 0: the normal of the central point at μ, dz = −W⁻² ds at the iterate.
  std::mt19937 rng(32);
  SolveOptions smooth;
  smooth.barrier_target = 1e-3;
  for (const char* pair : {"polytope", "cylinder", "ellipsoid", "capsule", "padded_polygon"}) {
    const Primitive a = benchmark_primitive(pair), b = benchmark_primitive("polytope");
    for (int q = 0; q < 3; ++q) {
      Pose X1, X2;
      random_config(rng, a, b, X1, X2);
      const GradientCheckResult chk = check_normal(a, X1, b, X2, smooth, ReferenceFrame::world, pair);
      EXPECT_TRUE(chk.passed()) << pair << "\n" << chk.report();
    }
  }
}

TEST(DcolDerivatives, SeparatingNormalStatuses) {
  const Primitive s = dcol::Sphere(1.0);
  const ContactResult coincident = solve_contact(s, Pose::identity(), s, Pose::identity());
  const NormalDerivatives c = normal_derivatives(coincident);
  EXPECT_EQ(c.status, DerivativeStatus::coincident_origins);
  EXPECT_TRUE(c.normal_W.isZero() && c.J_normal_W_X1.isZero() && c.J_normal_W_X2.isZero());
  Pose bad = Pose::identity();
  bad.p.x() = std::nan("");
  EXPECT_EQ(normal_derivatives(solve_contact(s, Pose::identity(), s, bad)).status, DerivativeStatus::invalid_input);
  // two spheres: n = r/‖r‖, dn/dv_2 = (I − n nᵀ)/‖r‖ (closed form)
  const Pose X2 = make_pose(Mat3::Identity(), Vec3(1.0, 2.0, -2.0));
  const NormalDerivatives d = normal_derivatives(solve_contact(s, Pose::identity(), s, X2));
  ASSERT_TRUE(d.ok());
  const Vec3 nr = X2.p / 3.0;
  EXPECT_LE((d.normal_W - nr).norm(), 1e-12);
  const Mat3 expected = (Mat3::Identity() - nr * nr.transpose()) / 3.0;
  EXPECT_LE((d.J_normal_W_X2.rightCols<3>() - expected).norm(), 1e-10);
  EXPECT_LE((d.J_normal_W_X1.rightCols<3>() + expected).norm(), 1e-10);
}

TEST(DcolDerivatives, StatusesWhenNotDifferentiable) {
  const Primitive s = dcol::Sphere(1.0);
  const ContactResult coincident = solve_contact(s, Pose::identity(), s, Pose::identity());
  EXPECT_EQ(coincident.status, SolveStatus::coincident_origins);
  const ContactDerivatives d = contact_derivatives(coincident);
  EXPECT_EQ(d.status, DerivativeStatus::coincident_origins);
  EXPECT_TRUE(d.J_alpha_X1.isZero() && d.J_x_W_X2.isZero());
  Pose bad = Pose::identity();
  bad.p.x() = std::nan("");
  const ContactResult invalid = solve_contact(s, Pose::identity(), s, bad);
  EXPECT_EQ(invalid.status, SolveStatus::invalid_input);
  EXPECT_EQ(contact_derivatives(invalid).status, DerivativeStatus::invalid_input);
}

}  // namespace
