// Complementarity time stepping of DCOL bodies (sim/time_stepping.hpp).
#include <cmath>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "diffcol/sim/time_stepping.hpp"
#include "test_util.hpp"

namespace diffcol::sim {
namespace {

// The twelve-primitive scene through the first impacts (t = 0 … 2.3 s).
constexpr int kTwelveSteps = 230;

TEST(TimeStepping, TwelvePrimitivesKeepAlphaAboveOneAndConserveMomentum) {
  std::vector<BodyState> x;
  TimeStepper ts = twelve_primitives(x, 1);
  const Vec3 P0 = ts.linear_momentum(x);
  double p_scale = 0.0;
  for (int i = 0; i < ts.num_bodies(); ++i) p_scale += ts.mass(i) * x[static_cast<size_t>(i)].v_W.norm();
  double min_alpha = test::kInf;
  int contact_steps = 0;
  for (int k = 0; k < kTwelveSteps; ++k) {
    const StepReport r = ts.step(x);
    ASSERT_TRUE(r.converged) << "step " << k << ": " << r.message;
    EXPECT_LE(r.residual, 1e-10) << "step " << k;
    EXPECT_GE(r.iterations, 0);
    contact_steps += r.active > 0;
    // every pair of the scene, not only the step's constraints
    for (const auto& p : ts.all_pair_alphas(x)) {
      ASSERT_TRUE(p.ok) << "pair " << p.a << "-" << p.b << " at step " << k;
      min_alpha = std::min(min_alpha, p.alpha);
      EXPECT_GE(p.alpha, 1.0 - 1e-9) << "pair " << ts.name(p.a) << "-" << ts.name(p.b) << " at step " << k;
    }
    // frictionless contact impulses are equal and opposite: Σ m v is conserved without gravity
    EXPECT_LE((ts.linear_momentum(x) - P0).norm(), 1e-9 * p_scale) << "step " << k;
  }
  EXPECT_GT(contact_steps, 10);  // the run reaches the impacts
  EXPECT_LT(min_alpha, 1.0 + 1e-9);  // and some pair touches
}

// A loss on the final state that uses every coordinate: c_pᵀp + c_vᵀv + c_ωᵀω + tr(C_Rᵀ R) per body,
// and its gradient in the tangent coordinates of time_stepping.hpp.
struct LinearLoss {
  std::vector<Eigen::Matrix<double, 12, 1>> c;
  std::vector<Mat3> CR;
  double value(const TimeStepper& ts, const std::vector<BodyState>& x) const {
    double L = 0.0;
    int d = 0;
    for (int i = 0; i < ts.num_bodies(); ++i) {
      if (ts.is_static(i)) continue;
      const BodyState& s = x[static_cast<size_t>(i)];
      L += c[static_cast<size_t>(d)].segment<3>(3).dot(s.X_WB.p) + c[static_cast<size_t>(d)].segment<3>(6).dot(s.v_W) +
           c[static_cast<size_t>(d)].segment<3>(9).dot(s.omega_B) + (CR[static_cast<size_t>(d)].transpose() * s.X_WB.R).trace();
      ++d;
    }
    return L;
  }
  Eigen::VectorXd gradient(const TimeStepper& ts, const std::vector<BodyState>& x) const {
    Eigen::VectorXd g = Eigen::VectorXd::Zero(ts.tangent_dimension());
    int d = 0;
    for (int i = 0; i < ts.num_bodies(); ++i) {
      if (ts.is_static(i)) continue;
      const BodyState& s = x[static_cast<size_t>(i)];
      for (int j = 0; j < 3; ++j) g[12 * d + j] = (CR[static_cast<size_t>(d)].transpose() * s.X_WB.R * skew(Vec3::Unit(j))).trace();
      g.segment<9>(12 * d + 3) = c[static_cast<size_t>(d)].tail<9>();
      ++d;
    }
    return g;
  }
};

void expect_rollout_gradient(TimeStepper& ts, const std::vector<BodyState>& x0, int steps, int min_contact_steps) {
  std::mt19937 rng(7);
  std::normal_distribution<double> N(0.0, 1.0);
  LinearLoss loss;
  for (int d = 0; d < ts.num_dynamic(); ++d) {
    Eigen::Matrix<double, 12, 1> c;
    for (int j = 0; j < 12; ++j) c[j] = N(rng);
    Mat3 C;
    for (int j = 0; j < 9; ++j) C(j / 3, j % 3) = N(rng);
    loss.c.push_back(c);
    loss.CR.push_back(C);
  }
  const Rollout r = ts.rollout(x0, steps, true);
  ASSERT_TRUE(r.converged);
  int contact_steps = 0;
  std::string actives;
  for (const StepReport& s : r.reports) {
    contact_steps += s.active > 0;
    actives += std::to_string(s.active);
  }
  SCOPED_TRACE("active per step " + actives);
  EXPECT_GE(contact_steps, min_contact_steps);
  const Eigen::VectorXd grad = r.jacobian.transpose() * loss.gradient(ts, r.states.back());
  const int nx = ts.tangent_dimension();
  Eigen::VectorXd fd(nx);
  const double eps = 1e-5;
  for (int i = 0; i < nx; ++i) {
    double Lpm[2];
    for (int sgn = 0; sgn < 2; ++sgn) {
      std::vector<BodyState> x = x0;
      ts.retract(x, (sgn == 0 ? eps : -eps) * Eigen::VectorXd::Unit(nx, i));
      const Rollout ri = ts.rollout(x, steps);
      ASSERT_TRUE(ri.converged);
      // the active set does not switch under the step
      for (int k = 0; k < steps; ++k) ASSERT_EQ(ri.reports[static_cast<size_t>(k)].active, r.reports[static_cast<size_t>(k)].active);
      Lpm[sgn] = loss.value(ts, ri.states.back());
    }
    fd[i] = (Lpm[0] - Lpm[1]) / (2.0 * eps);
  }
  std::printf("rollout gradient (%d steps, %d in contact): relative error %.2e\n", steps, contact_steps,
              (grad - fd).norm() / fd.norm());
  EXPECT_LE((grad - fd).norm(), 1e-5 * fd.norm()) << "IFT " << grad.transpose() << "\nFD  " << fd.transpose();
}

TEST(TimeStepping, RolloutGradientMatchesFiniteDifferencesOnAStaticSupport) {
  // An ellipsoid falls under gravity onto a static sphere, spinning, and slides on it.
  TimeSteppingOptions opt;
  opt.gravity = Vec3(0.0, 0.0, -9.81);
  TimeStepper ts(opt);
  ts.add_static_body(dcol::Sphere(1.0), "support");
  const double m = 1.3;
  ts.add_body(dcol::Ellipsoid::from_semi_axes(0.4, 0.3, 0.2), m, Vec3(0.2 * m * 0.13, 0.2 * m * 0.2, 0.2 * m * 0.25).asDiagonal(), "ellipsoid");
  std::vector<BodyState> x(2);
  x[1].X_WB = Pose::from_quaternion(Vec3(0.25, 0.1, 1.42), 0.9, 0.2, -0.3, 0.1);
  x[1].v_W = Vec3(0.3, -0.1, -0.8);
  x[1].omega_B = Vec3(0.5, -1.0, 2.0);
  expect_rollout_gradient(ts, x, 30, 10);
}

/// A capsule and a sphere (no gravity) meeting off-centre; the sphere's sideways speed vy.
std::vector<BodyState> capsule_meets_sphere(TimeStepper& ts, double vy) {
  ts.add_body(dcol::Capsule(0.2, 0.8), 1.0, Vec3(0.02, 0.07, 0.07).asDiagonal(), "capsule");
  ts.add_body(dcol::Sphere(0.3), 2.0, Mat3::Identity() * 0.072, "sphere");
  std::vector<BodyState> x(2);
  x[0].X_WB = Pose::from_quaternion(Vec3(0.0, 0.0, 0.0), 0.95, 0.1, 0.2, 0.2);
  x[0].v_W = Vec3(0.6, 0.05, 0.0);
  x[0].omega_B = Vec3(0.3, 0.2, -0.5);
  x[1].X_WB = Pose::from_quaternion(Vec3(1.0, 0.15, 0.05), 1.0, 0.0, 0.0, 0.0);
  x[1].v_W = Vec3(-0.6, vy, 0.02);
  x[1].omega_B = Vec3(0.0, 1.0, 0.0);
  return x;
}

TEST(TimeStepping, RolloutGradientMatchesFiniteDifferencesForTwoFreeBodies) {
  // A capsule and a sphere collide off-centre (no gravity) and stay in contact for a while.
  TimeStepper ts;
  const std::vector<BodyState> x = capsule_meets_sphere(ts, 0.0);
  expect_rollout_gradient(ts, x, 30, 2);
}

// With friction the step's contact data (μP_n, n̂, the lever of x*) are functions of its solution:
// the Jacobian differentiates the fixed point of the friction passes, which the passes reach here
// (friction_tolerance 1e-12). A ball on a slope rolling (μ = 0.5) and slipping (μ = 0.05), and two
// free bodies meeting off-centre with friction.
TEST(TimeStepping, RolloutGradientWithFrictionMatchesFiniteDifferences) {
  for (const double mu : {0.5, 0.05}) {
    SCOPED_TRACE("ball on a slope, mu " + std::to_string(mu));
    TimeSteppingOptions opt;
    opt.gravity = Vec3(0.0, 0.0, -9.81);
    opt.friction = mu;
    opt.friction_tolerance = 1e-12;
    opt.friction_passes = 100;
    TimeStepper ts(opt);
    const Mat3 R = Eigen::AngleAxisd(0.35, Vec3::UnitY()).toRotationMatrix();
    ts.add_static_body(dcol::Polytope::box(5.0, 5.0, 0.5), "slab");
    const double m = 1.5, r = 0.2;
    ts.add_body(dcol::Sphere(r), m, Mat3::Identity() * (0.4 * m * r * r), "ball");
    std::vector<BodyState> x(2);
    x[0].X_WB = Pose::from_rotation(R, R * Vec3(0.0, 0.0, -0.5));
    x[1].X_WB = Pose::from_quaternion(R * Vec3(0.0, 0.0, r + 0.004), 0.9, 0.2, -0.3, 0.1);
    x[1].v_W = R * Vec3(0.3, 0.1, -0.2);
    x[1].omega_B = Vec3(0.5, -1.0, 2.0);
    expect_rollout_gradient(ts, x, 20, 10);
  }
  {
    // two contacts of one body with two static bodies (the floor and a wall): the passes match
    // each contact with its own pair
    SCOPED_TRACE("ball in a corner");
    TimeSteppingOptions opt;
    opt.gravity = Vec3(-3.0, 0.0, -9.81);  // presses the ball into the corner
    opt.friction = 0.4;
    opt.friction_tolerance = 1e-12;
    opt.friction_passes = 100;
    TimeStepper ts(opt);
    ts.add_static_body(dcol::Polytope::box(2.0, 2.0, 0.5), "floor");
    ts.add_static_body(dcol::Polytope::box(0.5, 2.0, 2.0), "wall");
    const double m = 1.0, r = 0.2;
    ts.add_body(dcol::Sphere(r), m, Mat3::Identity() * (0.4 * m * r * r), "ball");
    std::vector<BodyState> x(3);
    x[0].X_WB.p = Vec3(0.0, 0.0, -0.5);
    x[1].X_WB.p = Vec3(-0.5 - r - 1e-3, 0.0, 1.5);
    x[2].X_WB = Pose::from_quaternion(Vec3(0.0, 0.0, r + 1e-3), 0.9, 0.2, -0.3, 0.1);
    x[2].v_W = Vec3(0.0, 0.8, 0.0);
    x[2].omega_B = Vec3(1.0, 0.0, 3.0);
    const Rollout ro = ts.rollout(x, 20);
    ASSERT_TRUE(ro.converged) << ro.reports.back().message;
    int both = 0;
    for (const StepReport& rep : ro.reports) both += rep.active == 2;
    EXPECT_GE(both, 10);
    expect_rollout_gradient(ts, x, 20, 10);
  }
  {
    SCOPED_TRACE("two free bodies");
    TimeSteppingOptions opt;
    opt.friction = 0.3;
    opt.friction_tolerance = 1e-12;
    opt.friction_passes = 100;
    TimeStepper ts(opt);
    const std::vector<BodyState> x = capsule_meets_sphere(ts, 0.3);
    expect_rollout_gradient(ts, x, 30, 2);
  }
}

// A box on a static slab (inclined by `incline` about y), with Coulomb friction μ; returns the
// stepper and the state with the box at rest on the slab (or sliding at v0 along the slope).
TimeStepper box_on_slab(double mu, double incline, double v0, std::vector<BodyState>& x) {
  TimeSteppingOptions opt;
  opt.gravity = Vec3(0.0, 0.0, -9.81);
  opt.friction = mu;
  TimeStepper ts(opt);
  const Mat3 R = Eigen::AngleAxisd(incline, Vec3::UnitY()).toRotationMatrix();
  ts.add_static_body(dcol::Polytope::box(5.0, 5.0, 0.5), "slab");
  const double m = 2.0, a = 0.2, c = 0.1;  // half extents 0.2 × 0.2 × 0.1
  ts.add_body(dcol::Polytope::box(a, a, c), m, Mat3(Vec3(m * (a * a + c * c), m * (a * a + c * c), 2 * m * a * a).asDiagonal()) / 3.0, "box");
  x.assign(2, BodyState{});
  x[0].X_WB = Pose::from_rotation(R, R * Vec3(0.0, 0.0, -0.5));
  x[1].X_WB = Pose::from_rotation(R, R * Vec3(0.0, 0.0, c + 1e-9));
  x[1].v_W = R * Vec3(v0, 0.0, 0.0);
  return ts;
}

TEST(TimeStepping, FrictionBringsASlidingBoxToRestAtTheClosedFormDistance) {
  const double mu = 0.5, g = 9.81, v0 = 1.0;
  std::vector<BodyState> x;
  TimeStepper ts = box_on_slab(mu, 0.0, v0, x);
  const double h = ts.options().dt;
  for (int k = 0; k < 40; ++k) {
    const StepReport r = ts.step(x);
    ASSERT_TRUE(r.converged) << "step " << k << ": " << r.message;
    EXPECT_GE(r.min_alpha, 1.0 - 1e-9);
  }
  const double d = x[1].X_WB.p.x(), d_closed = v0 * v0 / (2.0 * mu * g);
  std::printf("sliding box: at rest after %.5f m (v0²/(2μg) = %.5f), speed %.2e\n", d, d_closed, x[1].v_W.norm());
  EXPECT_NEAR(d, d_closed, h * v0);  // symplectic Euler: −h v0/2 + O(h²)
  EXPECT_LT(x[1].v_W.norm(), 1e-3);
  EXPECT_NEAR(x[1].X_WB.p.z(), 0.1, 1e-3);
}

// A ball released on a slope of angle θ: it rolls without slipping at a = 5/7 g sin θ while
// tan θ ≤ 7/2 μ (static friction), and slips at a = g (sin θ − μ cos θ) above.
TEST(TimeStepping, FrictionRollsOrSlipsABallOnASlopeAsTheClosedFormsSay) {
  const double g = 9.81, theta = 0.35, r = 0.2, m = 1.5;
  for (const double mu : {0.5, 0.05}) {  // 7/2 μ = 1.75, 0.175 against tan θ = 0.365
    TimeSteppingOptions opt;
    opt.gravity = Vec3(0.0, 0.0, -g);
    opt.friction = mu;
    TimeStepper ts(opt);
    const Mat3 R = Eigen::AngleAxisd(theta, Vec3::UnitY()).toRotationMatrix();
    ts.add_static_body(dcol::Polytope::box(5.0, 5.0, 0.5), "slab");
    ts.add_body(dcol::Sphere(r), m, Mat3::Identity() * (0.4 * m * r * r), "ball");
    std::vector<BodyState> x(2);
    x[0].X_WB = Pose::from_rotation(R, R * Vec3(0.0, 0.0, -0.5));
    x[1].X_WB = Pose::from_rotation(Mat3::Identity(), R * Vec3(0.0, 0.0, r + 1e-9));
    const Vec3 p0 = x[1].X_WB.p;
    const int steps = 40;
    for (int k = 0; k < steps; ++k) {
      const StepReport rep = ts.step(x);
      ASSERT_TRUE(rep.converged) << "mu " << mu << ", step " << k << ": " << rep.message;
    }
    const double t = steps * ts.options().dt;
    const Vec3 down = R * Vec3(1.0, 0.0, 0.0);  // the slope's downhill direction (x up the z axis tilt)
    const double s = (x[1].X_WB.p - p0).dot(down);
    const bool rolls = std::tan(theta) <= 3.5 * mu;
    const double a = rolls ? 5.0 / 7.0 * g * std::sin(theta) : g * (std::sin(theta) - mu * std::cos(theta));
    // symplectic Euler: s = ½ a t² (1 + h/t)
    const double s_closed = 0.5 * a * t * t * (1.0 + ts.options().dt / t);
    // slip speed of the contact point: v + ω × (−r n̂)
    const Vec3 n = R.col(2);
    const double slip = (x[1].v_W + (x[1].X_WB.R * x[1].omega_B).cross(-r * n)).norm();
    std::printf("ball, mu %.2f: %.5f m down the slope (closed form %.5f, %s), slip speed %.2e\n", mu, s, s_closed,
                rolls ? "rolling" : "slipping", slip);
    EXPECT_NEAR(s, s_closed, 0.01 * s_closed);
    if (rolls) EXPECT_LT(slip, 0.02 * x[1].v_W.norm());
    else EXPECT_GT(slip, 0.5 * x[1].v_W.norm());
  }
}

TEST(TimeStepping, AFailedStepKeepsTheState) {
  TimeSteppingOptions opt;
  TimeStepper ts(opt);
  ts.add_body(dcol::Sphere(0.5), 1.0, Mat3::Identity() * 0.1, "a");
  ts.add_body(dcol::Sphere(0.5), 1.0, Mat3::Identity() * 0.1, "b");
  std::vector<BodyState> x(2);
  x[0].X_WB.p = Vec3(-0.51, 0.0, 0.0);
  x[1].X_WB.p = Vec3(0.51, 0.0, 0.0);
  x[0].v_W = Vec3(3.0, 0.0, 0.0);
  x[1].v_W = Vec3(-3.0, 0.0, 0.0);
  opt.max_iterations = 1;
  ts.set_options(opt);
  const std::vector<BodyState> before = x;
  const StepReport r = ts.step(x);
  EXPECT_FALSE(r.converged);
  EXPECT_NE(r.message.find("no convergence"), std::string::npos) << r.message;
  EXPECT_EQ(x[0].X_WB.p, before[0].X_WB.p);
  EXPECT_EQ(x[1].v_W, before[1].v_W);
  // With the default iterations the same step converges: head-on, equal masses, inelastic. The
  // step closes the gap of 0.02 exactly (v = ±0.01/h) and the next one stops both bodies.
  opt.max_iterations = 60;
  ts.set_options(opt);
  const StepReport r2 = ts.step(x);
  ASSERT_TRUE(r2.converged) << r2.message;
  EXPECT_EQ(r2.active, 1);
  EXPECT_NEAR(x[0].v_W.x(), 1.0, 1e-9);
  EXPECT_NEAR(x[1].v_W.x(), -1.0, 1e-9);
  EXPECT_NEAR(x[1].X_WB.p.x() - x[0].X_WB.p.x(), 1.0, 1e-12);
  EXPECT_GE(r2.min_alpha, 1.0 - 1e-12);
  const StepReport r3 = ts.step(x);
  ASSERT_TRUE(r3.converged) << r3.message;
  EXPECT_NEAR(x[0].v_W.x(), 0.0, 1e-9);
  EXPECT_NEAR(x[1].v_W.x(), 0.0, 1e-9);
}

TEST(TimeStepping, BadInputIsRefused) {
  auto expect_throw = [](auto&& f, const std::string& what) {
    try {
      f();
      ADD_FAILURE() << "no exception, expected one mentioning '" << what << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  TimeSteppingOptions bad;
  bad.dt = 0.0;
  expect_throw([&] { TimeStepper t(bad); }, "dt");
  bad.dt = test::kNaN;
  expect_throw([&] { TimeStepper t(bad); }, "dt");
  bad = TimeSteppingOptions{};
  bad.friction = -0.1;
  expect_throw([&] { TimeStepper t(bad); }, "friction");
  bad.friction = 0.5;
  bad.friction_slip_velocity = 0.0;
  expect_throw([&] { TimeStepper t(bad); }, "friction_slip_velocity");
  bad.friction_slip_velocity = 1e-2;
  TimeStepper ts;
  expect_throw([&] { ts.add_body(dcol::Sphere(0.5), 0.0, Mat3::Identity(), "z"); }, "mass");
  expect_throw([&] { ts.add_body(dcol::Sphere(0.5), -1.0, Mat3::Identity(), "z"); }, "mass");
  expect_throw([&] { ts.add_body(dcol::Sphere(0.5), 1.0, -Mat3::Identity(), "z"); }, "positive definite");
  ts.add_body(dcol::Sphere(0.5), 1.0, Mat3::Identity() * 0.1, "left");
  ts.add_body(dcol::Polytope::box(0.5, 0.5, 0.5), 1.0, Mat3::Identity() * 0.1, "right");
  std::vector<BodyState> x(2);
  x[0].X_WB.p = Vec3(-1.0, 0.0, 0.0);
  x[1].X_WB.p = Vec3(1.0, 0.0, 0.0);
  std::vector<BodyState> y = x;
  y[1].v_W.x() = test::kNaN;
  expect_throw([&] { ts.step(y); }, "velocity not finite");
  y = x;
  y[0].X_WB.p.z() = test::kInf;
  expect_throw([&] { ts.step(y); }, "pose");
  expect_throw([&] { ts.rollout(std::vector<BodyState>(1), 3); }, "state has 1 bodies");
  y = x;
  y[1].X_WB.p.x() = -0.2;  // the box overlaps the sphere
  expect_throw([&] { ts.rollout(y, 3); }, "'left' (0) and body 'right' (1) interpenetrate");
  expect_throw([&] { ts.retract(y, Eigen::VectorXd::Zero(5)); }, "delta has 5 entries");
}

}  // namespace
}  // namespace diffcol::sim
