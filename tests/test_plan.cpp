// Trajectory optimization (include/diffcol/plan): the NLP's derivatives against central
// differences, the seeds' problems solved and re-checked independently, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include "diffcol/plan/examples.hpp"
#include "diffcol/plan/trajectory.hpp"
#include "diffcol/shapes/smooth_polytope.hpp"
#include "diffcol/shapes/superellipsoid.hpp"
#include "diffcol/shapes/superelliptic_cylinder.hpp"
#include "test_util.hpp"

namespace {

using namespace diffcol;
using plan::examples::Example;

const std::string kRobots = DIFFCOL_TEST_ROBOTS_DIR;

// Max over entries of |analytic − central difference| / (1 + |analytic|) for the objective's
// gradient and the constraint Jacobian at x (step h on every variable).
struct FdErrors {
  double gradient = 0.0, jacobian = 0.0;
  double jacobian_scale = 0.0;  // max |J|, to see the rows are not all zero
};

FdErrors fd_errors(plan::TrajectoryProblem& p, const Eigen::VectorXd& x, double h) {
  FdErrors e;
  Eigen::VectorXd g;
  p.objective_gradient(x, g);
  const Eigen::MatrixXd J = p.jacobian_dense(x);
  e.jacobian_scale = J.cwiseAbs().maxCoeff();
  Eigen::VectorXd xp = x, xm = x, cp, cm;
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    xp[j] = x[j] + h;
    xm[j] = x[j] - h;
    const double fd = (p.objective(xp) - p.objective(xm)) / (2.0 * h);
    e.gradient = std::max(e.gradient, std::abs(fd - g[j]) / (1.0 + std::abs(g[j])));
    p.constraints(xp, cp);
    p.constraints(xm, cm);
    const Eigen::VectorXd col = (cp - cm) / (2.0 * h);
    e.jacobian = std::max(e.jacobian, ((col - J.col(j)).array().abs() / (1.0 + J.col(j).array().abs())).maxCoeff());
    xp[j] = xm[j] = x[j];
  }
  return e;
}

// x0 moved a little off its symmetric start (a rod exactly parallel to a wall has one-sided α
// derivatives), within the variable bounds.
Eigen::VectorXd perturbed(plan::TrajectoryProblem& p, const Eigen::VectorXd& x0, double size) {
  Eigen::VectorXd lo, hi;
  p.variable_bounds(lo, hi);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-size, size);
  Eigen::VectorXd x = x0;
  for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = std::clamp(x[i] + (lo[i] < hi[i] ? u(rng) : 0.0), lo[i], hi[i]);
  return x;
}

// Derivatives at a perturbed initial point and at the solution; the solve converges; the
// independent check finds the trajectory collision-free.
void solve_and_check(Example& e, double fd_tolerance) {
  plan::TrajectoryProblem& p = *e.problem;
  const FdErrors e0 = fd_errors(p, perturbed(p, e.x0, 0.02), 1e-6);
  EXPECT_LT(e0.gradient, 1e-6);
  EXPECT_LT(e0.jacobian, fd_tolerance);
  // the straight line from start to goal: collision rows active (through the obstacles)
  const FdErrors el = fd_errors(p, perturbed(p, p.linear_guess(), 0.02), 1e-6);
  EXPECT_LT(el.gradient, 1e-6);
  EXPECT_LT(el.jacobian, fd_tolerance);
  EXPECT_GT(el.jacobian_scale, 0.1);
  plan::SolveOptions o;
  o.max_iterations = 1000;
  const plan::SolveResult r = plan::solve(p, o, e.x0);
  ASSERT_TRUE(r.success) << r.status << ": " << r.message;
  EXPECT_LT(r.constraint_violation, 1e-6);
  EXPECT_GT(r.iterations, 0);
  EXPECT_GT(r.collision_queries, 0);
  EXPECT_GT(r.collision_s, 0.0);
  EXPECT_LE(r.collision_s, r.wall_s);
  EXPECT_EQ(r.configurations.rows(), p.num_knots());
  const plan::CheckResult c = plan::check_trajectory(p, r.configurations);
  EXPECT_TRUE(c.collision_free()) << "min distance " << c.min_distance << " at " << c.min_at;
  EXPECT_EQ(c.samples, 10 * (p.num_knots() - 1) + 1);
  // the initial guess passes through an obstacle: the check sees it
  EXPECT_LT(plan::check_trajectory(p, p.configurations(e.x0)).min_distance, 0.0);
  const FdErrors e1 = fd_errors(p, r.x, 1e-6);
  EXPECT_LT(e1.gradient, 1e-6);
  EXPECT_LT(e1.jacobian, fd_tolerance);
  EXPECT_GT(e1.jacobian_scale, 0.0);
}

TEST(Plan, FreeBodyJacobianMatchesCentralDifferences) {
  for (plan::Parametrization par : {plan::Parametrization::translation, plan::Parametrization::planar,
                                    plan::Parametrization::pose6}) {
    plan::FreeBody b{0, par, Pose::from_quaternion(Vec3(0.1, 0.2, 0.3), 0.9, 0.2, -0.3, 0.1)};
    const int n = plan::num_coordinates(par);
    Eigen::VectorXd c(n);
    for (int i = 0; i < n; ++i) c[i] = 0.3 + 0.1 * i;
    Eigen::Matrix<double, 6, Eigen::Dynamic> J;
    plan::free_body_jacobian(b, c.data(), J);
    ASSERT_EQ(J.cols(), n);
    const double h = 1e-6;
    for (int j = 0; j < n; ++j) {
      Eigen::VectorXd cp = c, cm = c;
      cp[j] += h;
      cm[j] -= h;
      const Pose Xp = plan::free_body_pose(b, cp.data()), Xm = plan::free_body_pose(b, cm.data());
      const Vec3 w = so3_log(Xp.R * Xm.R.transpose()) / (2.0 * h);  // world-side rotation rate
      const Vec3 v = (Xp.p - Xm.p) / (2.0 * h);
      EXPECT_LT((w - J.col(j).head<3>()).norm(), 1e-8) << plan::parametrization_name(par) << " column " << j;
      EXPECT_LT((v - J.col(j).tail<3>()).norm(), 1e-8) << plan::parametrization_name(par) << " column " << j;
    }
    // coordinates of the pose give the pose back
    const Eigen::VectorXd back = plan::free_body_coordinates(b, plan::free_body_pose(b, c.data()));
    EXPECT_LT((back - c).norm(), 1e-12) << plan::parametrization_name(par);
  }
}

// Three iDCOL free bodies (pose6 with a mounted shape, translation, planar) among two static
// iDCOL obstacles, a nonlinear dynamics row with its Hessian, a user cost with its Hessian,
// interval samples: every term of the exact Lagrangian Hessian.
struct HessianScene {
  scene::Scene s;
  std::unique_ptr<plan::TrajectoryProblem> p;
  HessianScene(plan::CollisionMeasure measure, int interval_samples) {
    const int obstacles = s.add_body(Pose::identity(), true, "obstacles");
    s.add_shape(obstacles, SmoothPolytope::box(0.3, 0.25, 0.35, 12.0), Pose::identity(), {}, "box");
    s.add_shape(obstacles, Superellipsoid(0.3, 0.2, 0.25, 2), Pose::from_rotation(so3_exp(Vec3(0.3, -0.2, 0.5)), Vec3(1.2, 0.6, 0.1)),
                {}, "se");
    const int a = s.add_body(Pose::identity(), false, "a");
    s.add_shape(a, SuperellipticCylinder(0.12, 0.3, 2), Pose::from_rotation(so3_exp(Vec3(0.1, 0.4, -0.2)), Vec3(0.1, 0.05, -0.1)),
                {}, "cyl");
    const int b = s.add_body(Pose::identity(), false, "b");
    s.add_shape(b, Superellipsoid(0.2, 0.15, 0.1, 1), Pose::identity(), {}, "ellipsoid");
    const int c = s.add_body(Pose::identity(), false, "c");
    s.add_shape(c, Superellipsoid(0.15, 0.1, 0.12, 2), Pose::from_rotation(so3_exp(Vec3(0.0, 0.3, 0.0)), Vec3(0.05, 0.0, 0.0)),
                {}, "se_c");
    plan::TrajectorySpec spec;
    spec.num_knots = 4;
    spec.bodies = {plan::FreeBody{a, plan::Parametrization::pose6, Pose::from_rotation(so3_exp(Vec3(0.4, 0.2, -0.3)), Vec3::Zero())},
                   plan::FreeBody{b, plan::Parametrization::translation, Pose::from_rotation(so3_exp(Vec3(-0.2, 0.5, 0.1)), Vec3::Zero())},
                   plan::FreeBody{c, plan::Parametrization::planar, Pose::from_rotation(so3_exp(Vec3(0.2, 0.1, 0.3)), Vec3(0, 0, 0.2))}};
    spec.num_controls = 1;
    spec.start = (Eigen::VectorXd(12) << -1.5, 0.0, 0.0, 0.1, 0.2, 0.3, -1.5, 1.0, 0.0, -1.4, -1.0, 0.2).finished();
    spec.goal = (Eigen::VectorXd(12) << 2.5, 0.0, 0.0, 0.5, -0.2, 1.0, 2.5, 1.0, 0.3, 2.5, -1.0, 1.0).finished();
    spec.fix_goal = false;
    spec.goal_weight = 3.0;
    spec.smoothness_weight = 1.5;
    spec.control_weight = 0.7;
    spec.coordinate_weights = Eigen::VectorXd::LinSpaced(12, 0.5, 1.6);
    // one row per interval: ½‖q_{k+1} − q_k‖² − 1 (Hessian [[I, −I], [−I, I]] on q)
    const int nz = 13;
    spec.dynamics.num_residuals = 1;
    spec.dynamics.residual = [](int, const Eigen::Ref<const Eigen::VectorXd>& z0, const Eigen::Ref<const Eigen::VectorXd>& z1,
                                Eigen::Ref<Eigen::VectorXd> r, double* J) {
      const Eigen::VectorXd d = z1.head(12) - z0.head(12);
      r[0] = 0.5 * d.squaredNorm() - 1.0;
      if (!J) return;
      for (int i = 0; i < 2 * nz; ++i) J[i] = 0.0;
      for (int i = 0; i < 12; ++i) {
        J[i] = -d[i];
        J[nz + i] = d[i];
      }
    };
    spec.dynamics.hessian = [](int, const Eigen::Ref<const Eigen::VectorXd>&, const Eigen::Ref<const Eigen::VectorXd>&,
                               const Eigen::Ref<const Eigen::VectorXd>& mu, Eigen::Ref<Eigen::MatrixXd> H) {
      for (int i = 0; i < 12; ++i) {
        H(i, i) += mu[0];
        H(nz + i, nz + i) += mu[0];
        H(nz + i, i) -= mu[0];
        H(i, nz + i) -= mu[0];
      }
    };
    // a user cost with its Hessian, coupling knots two apart: Σ_k 0.3·‖q_{k+1} − 2q_k + q_{k−1}‖²
    // + Σ_k 0.2·cos(u_k)·q_{k,0}²
    spec.costs.push_back([](const Eigen::Ref<const Eigen::VectorXd>& x, double* grad) {
      const int N = static_cast<int>(x.size()) / nz;
      double f = 0.0;
      for (int k = 1; k + 1 < N; ++k)
        for (int i = 0; i < 12; ++i) {
          const double d = x[(k + 1) * nz + i] - 2.0 * x[k * nz + i] + x[(k - 1) * nz + i];
          f += 0.3 * d * d;
          if (grad) {
            grad[(k + 1) * nz + i] += 0.6 * d;
            grad[k * nz + i] -= 1.2 * d;
            grad[(k - 1) * nz + i] += 0.6 * d;
          }
        }
      for (int k = 0; k < N; ++k) {
        const double q = x[k * nz], u = x[k * nz + 12];
        f += 0.2 * std::cos(u) * q * q;
        if (grad) {
          grad[k * nz] += 0.4 * std::cos(u) * q;
          grad[k * nz + 12] -= 0.2 * std::sin(u) * q * q;
        }
      }
      return f;
    });
    spec.cost_hessians.push_back([](const Eigen::Ref<const Eigen::VectorXd>& x, double w, std::vector<plan::HessianEntry>& out) {
      const int N = static_cast<int>(x.size()) / nz;
      const double c[3] = {1.0, -2.0, 1.0};
      for (int k = 1; k + 1 < N; ++k)
        for (int i = 0; i < 12; ++i)
          for (int a = 0; a < 3; ++a)
            for (int b = a; b < 3; ++b) out.push_back({(k - 1 + a) * nz + i, (k - 1 + b) * nz + i, w * 0.6 * c[a] * c[b]});
      for (int k = 0; k < N; ++k) {
        const double q = x[k * nz], u = x[k * nz + 12];
        out.push_back({k * nz, k * nz, w * 0.4 * std::cos(u)});
        out.push_back({k * nz + 12, k * nz + 12, -w * 0.2 * std::cos(u) * q * q});
        out.push_back({k * nz + 12, k * nz, -w * 0.4 * std::sin(u) * q});
      }
    });
    spec.cost_hessian_bandwidth = 2;
    spec.collision.measure = measure;
    spec.collision.bound = measure == plan::CollisionMeasure::alpha ? 0.01 : 0.0;
    spec.collision.activation_margin = 3.0;  // every pair below its cap: rows with curvature
    spec.collision.interval_samples = interval_samples;
    p = std::make_unique<plan::TrajectoryProblem>(s, spec);
  }
};

// The exact Lagrangian Hessian against central differences of σ∇f + Jᵀλ (the analytic gradient
// and Jacobian) at random trajectories and multipliers.
TEST(Plan, ExactLagrangianHessianAgainstDifferences) {
  const int points = static_cast<int>(test::env_count("DIFFCOL_PLAN_HESSIAN_POINTS", 6));  // per problem
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int compared = 0;
  double worst = 0.0;
  for (const auto measure : {plan::CollisionMeasure::alpha, plan::CollisionMeasure::gap})
    for (int interval_samples : {0, 1}) {
      HessianScene hs(measure, interval_samples);
      plan::TrajectoryProblem& p = *hs.p;
      ASSERT_EQ(p.exact_hessian_unsupported(), "");
      const int n = p.num_variables();
      for (int trial = 0; trial < points; ++trial) {
        Eigen::VectorXd x = p.linear_guess();
        for (int k = 1; k < p.num_knots(); ++k)  // near the obstacles, rotations up to ~2 rad
          for (int i = 0; i < 13; ++i) x[k * 13 + i] += (i < 12 ? 0.6 : 1.0) * u(rng);
        Eigen::VectorXd lambda(p.num_constraints());
        for (Eigen::Index i = 0; i < lambda.size(); ++i) lambda[i] = u(rng);
        const double sigma = 0.5 + 0.5 * u(rng);
        Eigen::VectorXd g0;
        p.constraints(x, g0);
        const Eigen::MatrixXd H = p.lagrangian_hessian_dense(x, sigma, lambda);
        ASSERT_LT((H - H.transpose()).cwiseAbs().maxCoeff(), 1e-12);
        auto grad = [&](const Eigen::VectorXd& xx) {
          Eigen::VectorXd g;
          p.objective_gradient(xx, g);
          return Eigen::VectorXd(sigma * g + p.jacobian_dense(xx).transpose() * lambda);
        };
        const double h = 1e-5;
        Eigen::MatrixXd N(n, n);
        Eigen::VectorXd xp = x, xm = x;
        for (int j = 0; j < n; ++j) {
          xp[j] = x[j] + h;
          xm[j] = x[j] - h;
          N.col(j) = (grad(xp) - grad(xm)) / (2.0 * h);
          xp[j] = xm[j] = x[j];
        }
        const double scale = H.cwiseAbs().maxCoeff();
        EXPECT_GT(scale, 0.1);
        const double err = (H - N).cwiseAbs().maxCoeff();
        EXPECT_LT(err, 1e-5 * scale) << plan::collision_measure_name(measure) << ", interval samples " << interval_samples
                                     << ", trial " << trial << ", largest entry " << scale;
        worst = std::max(worst, err / scale);
        ++compared;
      }
    }
  EXPECT_EQ(compared, 4 * points);
  std::printf("exact Lagrangian Hessian: %d points, worst |H - FD| / max|H| = %.2e\n", compared, worst);
}

// The same for a robot: the 7-DoF arm in iDCOL shapes, joint-space rows (self-collision and the
// obstacles) chained through the forward kinematics' first and second derivatives.
TEST(Plan, ExactLagrangianHessianOfARobotAgainstDifferences) {
  const int points = static_cast<int>(test::env_count("DIFFCOL_PLAN_HESSIAN_POINTS", 6)) / 2 + 1;  // per measure
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int compared = 0;
  double worst = 0.0;
  for (const auto measure : {plan::CollisionMeasure::alpha, plan::CollisionMeasure::gap}) {
    Example e = plan::examples::arm_reach(kRobots + "/arm7.urdf", kRobots + "/arm7.srdf", 3, false, true);
    plan::TrajectorySpec spec = e.problem->spec();
    spec.collision.measure = measure;
    spec.collision.activation_margin = 0.6;  // most pairs below their cap: rows with curvature
    spec.fix_goal = false;
    spec.smoothness_weight = 0.8;
    plan::TrajectoryProblem p(*e.scene, spec);
    ASSERT_EQ(p.exact_hessian_unsupported(), "");
    const int n = p.num_variables();
    for (int trial = 0; trial < points; ++trial) {
      Eigen::VectorXd x = p.linear_guess();
      for (int i = 7; i < n; ++i) x[i] += 0.4 * u(rng);
      Eigen::VectorXd lambda(p.num_constraints());
      for (Eigen::Index i = 0; i < lambda.size(); ++i) lambda[i] = u(rng);
      const double sigma = 0.5 + 0.5 * u(rng);
      const Eigen::MatrixXd H = p.lagrangian_hessian_dense(x, sigma, lambda);
      ASSERT_LT((H - H.transpose()).cwiseAbs().maxCoeff(), 1e-12);
      auto grad = [&](const Eigen::VectorXd& xx) {
        Eigen::VectorXd g;
        p.objective_gradient(xx, g);
        return Eigen::VectorXd(sigma * g + p.jacobian_dense(xx).transpose() * lambda);
      };
      const double h = 1e-5;
      Eigen::MatrixXd N(n, n);
      Eigen::VectorXd xp = x, xm = x;
      for (int j = 0; j < n; ++j) {
        xp[j] = x[j] + h;
        xm[j] = x[j] - h;
        N.col(j) = (grad(xp) - grad(xm)) / (2.0 * h);
        xp[j] = xm[j] = x[j];
      }
      // the collision part alone must be large: the objective's curvature is 2·σ·smoothness
      Eigen::MatrixXd Hc = H;
      const Eigen::MatrixXd Hf = p.lagrangian_hessian_dense(x, sigma, Eigen::VectorXd::Zero(p.num_constraints()));
      Hc -= Hf;
      const double scale = H.cwiseAbs().maxCoeff();
      EXPECT_GT(Hc.cwiseAbs().maxCoeff(), 1.0);
      const double err = (H - N).cwiseAbs().maxCoeff();
      EXPECT_LT(err, 1e-5 * scale) << plan::collision_measure_name(measure) << ", trial " << trial << ", largest entry "
                                   << scale;
      worst = std::max(worst, err / scale);
      ++compared;
    }
  }
  std::printf("exact Lagrangian Hessian, robot: %d points, worst |H - FD| / max|H| = %.2e\n", compared, worst);
}

// Exact mode: the iDCOL piano mover to the optimum the limited-memory solve finds; problems it
// does not cover are refused by name.
TEST(Plan, ExactHessianSolvesPianoMover) {
  Example e = plan::examples::piano_mover(25, true);
  plan::TrajectoryProblem& p = *e.problem;
  ASSERT_EQ(p.exact_hessian_unsupported(), "");
  plan::SolveOptions o;
  o.max_iterations = 1000;
  const plan::SolveResult lm = plan::solve(p, o, e.x0);
  o.hessian = plan::HessianMode::exact;
  const plan::SolveResult ex = plan::solve(p, o, e.x0);
  ASSERT_TRUE(lm.success) << lm.status << ": " << lm.message;
  ASSERT_TRUE(ex.success) << ex.status << ": " << ex.message;
  EXPECT_LT(ex.constraint_violation, 1e-6);
  EXPECT_NEAR(ex.objective, lm.objective, 1e-4 * lm.objective);
  EXPECT_LT((ex.configurations - lm.configurations).cwiseAbs().maxCoeff(), 1e-2);
  EXPECT_TRUE(plan::check_trajectory(p, ex.configurations).collision_free());

  Example dcol = plan::examples::piano_mover(5);  // DCOL pairs
  EXPECT_NE(dcol.problem->exact_hessian_unsupported().find("dcol"), std::string::npos)
      << dcol.problem->exact_hessian_unsupported();
  try {
    plan::solve(*dcol.problem, o);
    ADD_FAILURE() << "exact mode accepted DCOL pairs";
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("iDCOL pairs only"), std::string::npos) << err.what();
  }
  Example arm = plan::examples::arm_reach(kRobots + "/arm7.urdf", kRobots + "/arm7.srdf", 3);
  EXPECT_NE(arm.problem->exact_hessian_unsupported().find("distance"), std::string::npos);
}

TEST(Plan, PianoMover) {
  Example e = plan::examples::piano_mover(25);
  solve_and_check(e, 1e-4);
}

TEST(Plan, ConeOpening) {
  Example e = plan::examples::cone_opening(25);
  EXPECT_GT(e.problem->num_dynamics_rows(), 0);
  solve_and_check(e, 1e-4);
}

TEST(Plan, ArmReach) {
  Example e = plan::examples::arm_reach(kRobots + "/arm7.urdf", kRobots + "/arm7.srdf", 12);
  // self-collision pairs are rows too
  int self = 0;
  for (const auto& [a, b] : e.problem->pairs())
    self += e.robot->body_link(e.scene->shape(a).body) >= 0 && e.robot->body_link(e.scene->shape(b).body) >= 0;
  EXPECT_GT(self, 10);
  solve_and_check(e, 1e-4);
}

TEST(Plan, FiniteDifferenceJacobiansAgreeAndWarmStartConverges) {
  Example e = plan::examples::piano_mover(12);
  plan::TrajectoryProblem& p = *e.problem;
  const Eigen::VectorXd x = perturbed(p, p.linear_guess(), 0.05);
  Eigen::VectorXd analytic, fd;
  p.jacobian_values(x, analytic);
  p.set_fd_gradients(true, 1e-6);
  p.jacobian_values(x, fd);
  p.set_fd_gradients(false);
  EXPECT_LT((analytic - fd).cwiseAbs().maxCoeff(), 1e-5);
  EXPECT_GT(analytic.cwiseAbs().maxCoeff(), 0.1);

  plan::SolveOptions o;
  o.fd_gradients = true;
  const plan::SolveResult r = plan::solve(p, o, p.linear_guess());
  ASSERT_TRUE(r.success) << r.status;
  const plan::SolveResult w = plan::solve_warm(p, r);
  ASSERT_TRUE(w.success) << w.status;
  EXPECT_LE(w.iterations, r.iterations / 2 + 1);
  EXPECT_NEAR(w.objective, r.objective, 1e-4 * (1.0 + std::abs(r.objective)));
  // the objective-only Hessian reaches the same trajectory
  o = {};
  o.hessian = plan::HessianMode::objective;
  const plan::SolveResult h = plan::solve(p, o, p.linear_guess());
  ASSERT_TRUE(h.success) << h.status;
  EXPECT_NEAR(h.objective, r.objective, 1e-3 * (1.0 + std::abs(r.objective)));
}

// The pose6 Jacobian's rotation block J_l(r) = Σ_k (r^)^k/(k+1)! against that power series summed
// in long double, at rotation vectors from 1e-9 to 1 rad: the off-diagonal entries to 1e-12
// relative (the closed form's (1 − cos t)/t² alone loses four digits at t = 1e-6).
TEST(Plan, Pose6JacobianAtSmallRotations) {
  std::mt19937 rng(21);
  plan::FreeBody b{0, plan::Parametrization::pose6, Pose::identity()};
  for (const double t : {1e-9, 1e-7, 1.3e-6, 1e-5, 1e-4, 1e-3, 0.0999, 0.1001, 0.5, 1.0}) {
    const Vec3 r = t * test::random_unit(rng);
    const double c[6] = {0.0, 0.0, 0.0, r.x(), r.y(), r.z()};
    Eigen::Matrix<double, 6, Eigen::Dynamic> J;
    plan::free_body_jacobian(b, c, J);
    using Mat3L = Eigen::Matrix<long double, 3, 3>;
    const Mat3L S = skew(r).cast<long double>();
    Mat3L term = Mat3L::Identity(), series = Mat3L::Zero();  // Σ_{k≥1} S^k/(k+1)!
    for (int k = 1; k < 30; ++k) {
      term = (term * S / static_cast<long double>(k + 1)).eval();
      series += term;
    }
    // the off-diagonal entries (a·S + b·S²; the diagonal's b·(S²)_ii vanishes beside the 1)
    Mat3 off = J.block<3, 3>(0, 3), ref = series.cast<double>();
    off.diagonal().setZero();
    ref.diagonal().setZero();
    EXPECT_LT((off - ref).norm(), 1e-12 * ref.norm()) << "|r| = " << t;
  }
}

TEST(Plan, ThreadsOfTheKnotQueriesChangeNoValue) {
  Example e = plan::examples::piano_mover(12);
  plan::TrajectoryProblem& p = *e.problem;
  const Eigen::VectorXd x = perturbed(p, p.linear_guess(), 0.05);
  Eigen::VectorXd g1, j1, g2, j2;
  p.constraints(x, g1);
  p.jacobian_values(x, j1);
  p.set_num_threads(2);
  EXPECT_EQ(p.spec().collision.num_threads, 2);
  p.constraints(x, g2);
  p.jacobian_values(x, j2);
  EXPECT_EQ(g1, g2);
  EXPECT_EQ(j1, j2);
  EXPECT_THROW(p.set_num_threads(-1), std::invalid_argument);
  EXPECT_THROW(p.set_num_threads(1025), std::invalid_argument);
  EXPECT_EQ(p.spec().collision.num_threads, 2);
}

TEST(Plan, SoftGoalWeightsAndUserCostGradients) {
  Example e = plan::examples::piano_mover(8);
  plan::TrajectorySpec spec = e.problem->spec();
  spec.fix_goal = false;
  spec.coordinate_weights = Eigen::Vector3d(1.0, 2.0, 0.5);
  // a user cost: Σ_k y_k³ over the knots (y: the second coordinate)
  spec.costs.push_back([](const Eigen::Ref<const Eigen::VectorXd>& x, double* grad) {
    double f = 0.0;
    for (Eigen::Index i = 1; i < x.size(); i += 3) {
      f += x[i] * x[i] * x[i];
      if (grad) grad[i] += 3.0 * x[i] * x[i];
    }
    return f;
  });
  plan::TrajectoryProblem p(*e.scene, spec);
  EXPECT_EQ(p.constrained_knots().back(), 7);  // the free goal knot has rows
  const FdErrors fd = fd_errors(p, perturbed(p, p.linear_guess(), 0.05), 1e-6);
  EXPECT_LT(fd.gradient, 1e-6);
  EXPECT_LT(fd.jacobian, 1e-4);
}

TEST(Plan, ObjectiveHessianMatchesCentralDifferencesOfTheGradient) {
  Example e = plan::examples::cone_opening(5);  // smoothness 0, control terms
  plan::TrajectorySpec spec = e.problem->spec();
  spec.fix_goal = false;
  spec.smoothness_weight = 0.7;
  spec.coordinate_weights = Eigen::VectorXd::LinSpaced(6, 0.5, 1.5);
  plan::TrajectoryProblem p(*e.scene, spec);
  std::vector<int> rows, cols;
  p.objective_hessian_structure(rows, cols);
  Eigen::VectorXd v;
  p.objective_hessian_values(v);
  ASSERT_EQ(v.size(), static_cast<Eigen::Index>(rows.size()));
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(p.num_variables(), p.num_variables());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_GE(rows[i], cols[i]);  // lower triangle
    H(rows[i], cols[i]) += v[static_cast<Eigen::Index>(i)];
    if (rows[i] != cols[i]) H(cols[i], rows[i]) += v[static_cast<Eigen::Index>(i)];
  }
  const Eigen::VectorXd x = perturbed(p, p.linear_guess(), 0.1);
  Eigen::VectorXd xp = x, xm = x, gp, gm;
  double err = 0.0;
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    xp[j] += 1e-5;
    xm[j] -= 1e-5;
    p.objective_gradient(xp, gp);
    p.objective_gradient(xm, gm);
    err = std::max(err, ((gp - gm) / 2e-5 - H.col(j)).cwiseAbs().maxCoeff());
    xp[j] = xm[j] = x[j];
  }
  EXPECT_LT(err, 1e-6);
  EXPECT_GT(H.cwiseAbs().maxCoeff(), 0.5);
}

TEST(Plan, PathGuessResamplesByLength) {
  Example e = plan::examples::piano_mover(5);
  plan::TrajectoryProblem& p = *e.problem;
  // an L-shaped path: 3 long in x, then 1 in y (θ fixed): knots every (3 + 1)/4 = 1
  Eigen::MatrixXd P(3, 3);
  P << -2.5, 0.5, 0.0, 0.5, 0.5, 0.0, 0.5, 1.5, 0.0;
  const Eigen::MatrixXd Q = p.configurations(p.path_guess(P));
  EXPECT_LT((Q.row(0) - p.spec().start.transpose()).norm(), 1e-12);  // the start, fixed
  EXPECT_LT((Q.row(1) - Eigen::RowVector3d(-1.5, 0.5, 0.0)).norm(), 1e-12);
  EXPECT_LT((Q.row(3) - Eigen::RowVector3d(0.5, 0.5, 0.0)).norm(), 1e-12);
  EXPECT_LT((Q.row(4) - p.spec().goal.transpose()).norm(), 1e-12);   // the goal, fixed
  EXPECT_THROW(p.path_guess(Eigen::MatrixXd::Zero(2, 2)), std::invalid_argument);
}

TEST(Plan, GoalInsideAnObstacleIsAClearError) {
  Example e = plan::examples::piano_mover(10);
  plan::TrajectorySpec spec = e.problem->spec();
  spec.goal = Eigen::Vector3d(-1.5, 2.5, 0.0);  // inside the inner corner block
  spec.q_upper[1] = 4.0;
  try {
    plan::TrajectoryProblem bad(*e.scene, spec);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("goal configuration is in collision"), std::string::npos) << ex.what();
    EXPECT_NE(std::string(ex.what()).find("inner_corner"), std::string::npos) << ex.what();
  }
  // Not fixed, the goal is a cost: Ipopt stops short of it, outside the obstacle.
  spec.fix_goal = false;
  plan::TrajectoryProblem soft(*e.scene, spec);
  plan::SolveOptions o;
  o.max_iterations = 100;
  const plan::SolveResult r = plan::solve(soft, o);
  if (r.success) {
    EXPECT_GT(plan::check_trajectory(soft, r.configurations.bottomRows(1), {1, 1.0, nullptr}).min_distance, 0.0);
  } else {
    EXPECT_FALSE(r.message.empty());
  }
}

TEST(Plan, BadInputThrows) {
  Example e = plan::examples::piano_mover(10);
  const plan::TrajectorySpec good = e.problem->spec();
  auto expect_throw = [&](plan::TrajectorySpec s, scene::Scene& scene, const char* needle) {
    try {
      plan::TrajectoryProblem p(scene, std::move(s));
      ADD_FAILURE() << "no exception for " << needle;
    } catch (const std::invalid_argument& ex) {
      EXPECT_NE(std::string(ex.what()).find(needle), std::string::npos) << ex.what();
    }
  };
  plan::TrajectorySpec s = good;
  s.q_lower[1] = std::numeric_limits<double>::quiet_NaN();
  expect_throw(s, *e.scene, "NaN");
  s = good;
  s.q_lower[0] = 2.0;  // above the upper bound
  expect_throw(s, *e.scene, "lower");
  s = good;
  s.start[2] = std::numeric_limits<double>::infinity();
  expect_throw(s, *e.scene, "start[2] is not finite");
  s = good;
  s.goal = Eigen::Vector2d(0.0, 0.0);
  expect_throw(s, *e.scene, "goal has 2 entries");
  s = good;
  s.num_knots = 1;
  expect_throw(s, *e.scene, "num_knots");
  s = good;
  s.collision.bound = 0.5;  // α ≥ 1.5 is above the cap
  expect_throw(s, *e.scene, "cap");
  s = good;
  s.bodies[0].body = 7;
  expect_throw(s, *e.scene, "unknown scene body");
  s = good;
  s.bodies[0].body = 0;  // the static hallway
  expect_throw(s, *e.scene, "static");

  // A scene without collision shapes: nothing to constrain.
  scene::Scene empty;
  const int body = empty.add_body(Pose::identity(), false, "free");
  s = good;
  s.bodies[0].body = body;
  expect_throw(s, empty, "no pair of collision shapes");
  s.collision.enabled = false;  // without collision rows it is a plain smoothing problem
  plan::TrajectoryProblem free_problem(empty, s);
  const plan::SolveResult r = plan::solve(free_problem);
  EXPECT_TRUE(r.success) << r.status;
  EXPECT_EQ(free_problem.num_collision_rows(), 0);

  // Solve options and initial guesses
  plan::SolveOptions o;
  o.tolerance = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(plan::solve(*e.problem, o), std::invalid_argument);
  o = {};
  o.hessian = plan::HessianMode::exact;
  EXPECT_THROW(plan::solve(*e.problem, o), std::invalid_argument);
  Eigen::VectorXd x0 = e.x0;
  x0[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(plan::solve(*e.problem, {}, x0), std::invalid_argument);
  EXPECT_THROW(plan::solve(*e.problem, {}, Eigen::VectorXd::Zero(5)), std::invalid_argument);
  EXPECT_THROW(plan::check_trajectory(*e.problem, Eigen::MatrixXd::Zero(3, 2)), std::invalid_argument);
}

}  // namespace
