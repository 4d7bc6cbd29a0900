// Penalty-contact simulation (sim/penalty.hpp): the analytic Jacobian of the right-hand side
// against central differences, the contact law against idcol::hertz_wrenches, momentum
// conservation, rollout sensitivities against central differences of whole rollouts, bad input.
#include <cmath>
#include <random>
#include <stdexcept>

#include <gtest/gtest.h>

#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/sim/penalty.hpp"
#include "test_util.hpp"

namespace diffcol::sim {
namespace {

using test::random_rotation;
using test::random_unit;

MassProperties box_mass(double m, double a, double b, double c) {
  MassProperties mp;
  mp.mass = m;
  mp.inertia = Vec3(m * (b * b + c * c) / 3.0, m * (a * a + c * c) / 3.0, m * (a * a + b * b) / 3.0).asDiagonal();
  return mp;
}

Pose pose(const Mat3& R, const Vec3& p) {
  Pose X;
  X.R = R;
  X.p = p;
  return X;
}

// Four free bodies (ellipsoid, smooth box, cone, sphere) and, optionally, a static slab.
struct World {
  scene::Scene scene;
  std::vector<MassProperties> mass;
};

World make_world(bool ground) {
  World w;
  const Shape shapes[4] = {Superellipsoid::ellipsoid(0.6, 0.4, 0.5), SmoothPolytope::box(0.4, 0.5, 0.3, 20.0),
                           SmoothTruncatedCone(0.5, 0.1, 0.25, 0.75, 20.0), Sphere(0.45)};
  for (int i = 0; i < 4; ++i) {
    const int b = w.scene.add_body(Pose::identity(), false, "body" + std::to_string(i));
    w.scene.add_shape(b, shapes[i]);
    w.mass.push_back(box_mass(1.0 + 0.3 * i, 0.5, 0.45, 0.4));
  }
  if (ground) {
    const int g = w.scene.add_body(pose(Mat3::Identity(), Vec3(0, 0, -5.0)), true, "ground");
    w.scene.add_shape(g, SmoothPolytope::box(4.0, 4.0, 0.5, 10.0));
    w.mass.push_back(MassProperties{});
  }
  return w;
}

// States with the four bodies in a tight cluster (contacts likely), random spins and velocities.
std::vector<BodyState> cluster_states(std::mt19937& rng, int nbodies, double spread) {
  std::vector<BodyState> s(static_cast<size_t>(nbodies));
  const Vec3 centres[4] = {{-0.45, 0, 0}, {0.45, 0.05, 0}, {0, 0.75, 0.1}, {0.05, -0.1, -0.8}};
  for (int i = 0; i < 4; ++i) {
    s[static_cast<size_t>(i)].X_WB = pose(random_rotation(rng), centres[i] + spread * random_unit(rng));
    s[static_cast<size_t>(i)].v_W = 0.5 * random_unit(rng);
    s[static_cast<size_t>(i)].omega_B = 1.5 * random_unit(rng);
  }
  for (int i = 4; i < nbodies; ++i) s[static_cast<size_t>(i)].X_WB = pose(Mat3::Identity(), Vec3(0, 0, -5.0));
  return s;
}

// Central differences of the right-hand side against the analytic Jacobian at many states.
void check_jacobian(ContactModel model, bool ground, int states) {
  World w = make_world(ground);
  model.stiffness = 1e3;
  PenaltySystem sys(std::move(w.scene), w.mass, model, Vec3(0, 0, -9.81));
  std::mt19937 rng(7);
  int active = 0;
  for (int trial = 0; trial < states; ++trial) {
    auto s = cluster_states(rng, sys.num_bodies(), 0.05);
    if (ground) s[3].X_WB.p = Vec3(0.3, -0.2, -4.06);  // the sphere on the slab
    Eigen::VectorXd y = sys.pack(s);
    // unnormalized quaternions too: R depends on q/|q| only
    y.segment<4>(3) *= 1.3;
    if (sys.max_penetration(y) <= 0.0) continue;
    ++active;
    Eigen::MatrixXd J;
    sys.rhs_jacobian(y, J);
    const int n = sys.state_size();
    Eigen::MatrixXd Jfd(n, n);
    Eigen::VectorXd fp, fm;
    const double h = std::getenv("DEBUG_H") ? std::atof(std::getenv("DEBUG_H")) : 1e-6;
    for (int j = 0; j < n; ++j) {
      Eigen::VectorXd yp = y, ym = y;
      yp[j] += h;
      ym[j] -= h;
      sys.rhs(yp, fp);
      sys.rhs(ym, fm);
      Jfd.col(j) = (fp - fm) / (2 * h);
    }
    const double scale = std::max(1.0, Jfd.cwiseAbs().maxCoeff());
    Eigen::Index ei, ej;
    const double err = (J - Jfd).cwiseAbs().maxCoeff(&ei, &ej);
    if (std::getenv("DEBUG_J")) std::printf("err %g at (%ld, %ld): J %g fd %g\n", err, (long)ei, (long)ej, J(ei, ej), Jfd(ei, ej));
    EXPECT_LT(err, 2e-6 * scale) << "state " << trial << ": max |J - J_fd| = " << err << ", scale " << scale;
  }
  EXPECT_GE(active, states / 2) << "too few states with contacts";
}

TEST(SimPenalty, JacobianElastic) { check_jacobian(ContactModel{}, false, 12); }

TEST(SimPenalty, JacobianDampingFrictionGround) {
  ContactModel m;
  m.damping = 0.3;
  m.friction = 0.6;
  m.slip_velocity = 0.05;
  check_jacobian(m, true, 12);
}

// The elastic law is the seed's (31)–(32): the force and torque on body 1 are idcol::hertz_wrenches'.
TEST(SimPenalty, ForceIsHertzWrench) {
  scene::Scene sc;
  const Shape s1 = SmoothPolytope::box(0.4, 0.5, 0.3, 20.0), s2 = Superellipsoid::ellipsoid(0.6, 0.4, 0.5);
  sc.add_shape(sc.add_body(Pose::identity()), s1);
  sc.add_shape(sc.add_body(Pose::identity()), s2);
  ContactModel model;
  model.stiffness = 123.0;
  model.exponent = 1.7;
  PenaltySystem sys(std::move(sc), {box_mass(2.0, 1, 1, 1), box_mass(3.0, 1, 1, 1)}, model);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<BodyState> st(2);
    st[0].X_WB = pose(random_rotation(rng), Vec3(0.1, 0.2, 0.3));
    st[1].X_WB = pose(random_rotation(rng), Vec3(0.1, 0.2, 0.3) + 0.7 * random_unit(rng));
    const Eigen::VectorXd y = sys.pack(st);
    Eigen::VectorXd f;
    sys.rhs(y, f);
    const idcol::ContactSolution sol = idcol::solve_contact(s1, st[0].X_WB, s2, st[1].X_WB);
    ASSERT_TRUE(sol.ok());
    ASSERT_LT(sol.gap, 0.0);
    const idcol::ContactWrenches wr = idcol::hertz_wrenches(sol, idcol::HertzModel{model.stiffness, model.exponent});
    const Vec3 force = 2.0 * f.segment<3>(7);
    const Vec3 torque_W = st[0].X_WB.R * (box_mass(2.0, 1, 1, 1).inertia * f.segment<3>(10));
    EXPECT_LT((force - wr.F_c1_W.tail<3>()).norm(), 1e-9 * wr.f_n);
    // F_c1_W is about the world origin: τ_W = τ_com + p × f
    EXPECT_LT((torque_W + st[0].X_WB.p.cross(force) - wr.F_c1_W.head<3>()).norm(), 1e-9 * wr.f_n);
  }
}

// Bodies thrown at each other: elastic, frictionless, no gravity → momentum constant.
std::vector<BodyState> thrown_states(std::mt19937& rng, int n, double radius, double speed) {
  std::vector<BodyState> s(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const Vec3 dir = random_unit(rng);
    s[static_cast<size_t>(i)].X_WB = pose(random_rotation(rng), radius * dir);
    s[static_cast<size_t>(i)].v_W = -speed * dir + 0.2 * random_unit(rng);
    s[static_cast<size_t>(i)].omega_B = 2.0 * random_unit(rng);
  }
  return s;
}

TEST(SimPenalty, MomentumConserved) {
  World w = make_world(false);
  PenaltySystem sys(std::move(w.scene), w.mass, ContactModel{});
  std::mt19937 rng(11);
  const auto s0 = thrown_states(rng, 4, 2.0, 2.0);
  SimOptions o;
  o.rtol = 1e-10;
  o.atol = 1e-12;
  std::vector<double> times;
  for (int i = 0; i <= 20; ++i) times.push_back(0.1 * i);
  const SimResult r = sys.simulate(s0, times, o);
  ASSERT_TRUE(r.success) << r.message;
  EXPECT_GT(r.stats.max_penetration, 1e-3) << "no collision happened";
  const SystemInvariants i0 = sys.invariants(sys.pack(r.states.front()));
  double lin = 0, ang = 0, energy = 0;
  for (const auto& st : r.states) {
    const SystemInvariants i1 = sys.invariants(sys.pack(st));
    lin = std::max(lin, (i1.linear - i0.linear).norm() / i0.momentum_scale);
    ang = std::max(ang, (i1.angular - i0.angular).norm() / i0.momentum_scale);
    energy = std::max(energy, std::abs(i1.kinetic - i0.kinetic) / i0.kinetic);
  }
  EXPECT_LT(lin, 1e-9);
  EXPECT_LT(ang, 1e-9);
  std::printf("momentum drift: linear %.2e, angular %.2e (relative); kinetic energy drift at outputs %.2e; "
              "steps %ld, max penetration %.3g\n",
              lin, ang, energy, r.stats.steps, r.stats.max_penetration);
}

// Gradient of L = cᵀ y(T) with respect to y(0) and k: forward sensitivities against central
// differences of whole rollouts.
TEST(SimPenalty, RolloutGradient) {
  scene::Scene sc;
  sc.add_shape(sc.add_body(Pose::identity()), SmoothPolytope::box(0.4, 0.5, 0.3, 20.0));
  sc.add_shape(sc.add_body(Pose::identity()), Superellipsoid::ellipsoid(0.6, 0.4, 0.5));
  ContactModel model;
  model.stiffness = 500.0;
  model.damping = 0.2;
  model.friction = 0.3;
  model.slip_velocity = 0.1;
  PenaltySystem sys(std::move(sc), {box_mass(1.0, 0.4, 0.5, 0.3), box_mass(1.5, 0.6, 0.4, 0.5)}, model);
  std::mt19937 rng(5);
  std::vector<BodyState> s0(2);
  s0[0].X_WB = pose(random_rotation(rng), Vec3(-1.0, 0.05, 0));
  s0[1].X_WB = pose(random_rotation(rng), Vec3(1.0, -0.05, 0.1));
  s0[0].v_W = Vec3(1.5, 0, 0.1);
  s0[1].v_W = Vec3(-1.5, 0.1, 0);
  s0[0].omega_B = Vec3(0.5, -1, 0.3);
  s0[1].omega_B = Vec3(-0.2, 0.4, 1);
  SimOptions o;
  o.rtol = 1e-11;
  o.atol = 1e-12;
  const double T = 1.0;
  const SensitivityResult s = sys.simulate_sensitivities(s0, T, o);
  ASSERT_TRUE(s.success) << s.message;
  EXPECT_GT(s.stats.max_penetration, 1e-3) << "no collision happened";
  const int n = sys.state_size();
  std::normal_distribution<double> N(0, 1);
  Eigen::VectorXd c(n);
  for (int i = 0; i < n; ++i) c[i] = N(rng);
  const Eigen::VectorXd g0 = s.gradient_initial(c);
  const double gk = s.gradient_stiffness(c);
  auto final_state = [&](const Eigen::VectorXd& y) {
    const SimResult r = sys.simulate(y, {0.0, T}, o);
    EXPECT_TRUE(r.success) << r.message;
    return r.final_y;
  };
  const Eigen::VectorXd y0 = sys.pack(s0);
  auto loss = [&](const Eigen::VectorXd& yT) { return c.dot(yT); };
  Eigen::VectorXd dir(n);
  double max_rel = 0;
  for (int trial = 0; trial < 4; ++trial) {
    for (int i = 0; i < n; ++i) dir[i] = N(rng);
    const double h = 1e-5;
    const double fd = (loss(final_state(y0 + h * dir)) - loss(final_state(y0 - h * dir))) / (2 * h);
    const double an = g0.dot(dir);
    const double rel = std::abs(fd - an) / std::max(1.0, std::abs(fd));
    max_rel = std::max(max_rel, rel);
    EXPECT_LT(rel, 1e-5) << "direction " << trial << ": fd " << fd << ", sensitivity " << an;
  }
  // stiffness
  const double k0 = model.stiffness, hk = 1e-4 * k0;
  ContactModel mp = model, mm = model;
  mp.stiffness = k0 + hk;
  mm.stiffness = k0 - hk;
  sys.set_model(mp);
  const double Lp = loss(final_state(y0));
  sys.set_model(mm);
  const double Lm = loss(final_state(y0));
  sys.set_model(model);
  const double fdk = (Lp - Lm) / (2 * hk);
  EXPECT_LT(std::abs(fdk - gk), 1e-5 * std::max(1e-3, std::abs(fdk))) << "fd " << fdk << ", sensitivity " << gk;
  std::printf("rollout gradient: max relative error %.2e over 4 directions; dL/dk %.6e (fd %.6e); steps %ld\n",
              max_rel, gk, fdk, s.stats.steps);
}

TEST(SimPenalty, FiniteDifferenceJacobianModeAgrees) {
  World w = make_world(false);
  PenaltySystem sys(std::move(w.scene), w.mass, ContactModel{});
  std::mt19937 rng(11);
  const auto s0 = thrown_states(rng, 4, 2.0, 2.0);
  SimOptions o;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  const SimResult a = sys.simulate(s0, {0.0, 1.5}, o);
  o.jacobian = JacobianMode::finite_difference;
  const SimResult f = sys.simulate(s0, {0.0, 1.5}, o);
  ASSERT_TRUE(a.success && f.success) << a.message << f.message;
  EXPECT_GT(f.stats.fd_rhs_evaluations, 0);
  EXPECT_EQ(a.stats.fd_rhs_evaluations, 0);
  const Eigen::VectorXd ya = sys.pack(a.final_state), yf = sys.pack(f.final_state);
  EXPECT_LT((ya - yf).cwiseAbs().maxCoeff(), 1e-4);  // integration error (rtol 1e-8), not the Jacobian
}

TEST(SimPenalty, BadInput) {
  World w = make_world(false);
  auto mass = w.mass;
  // non-positive mass, com off the origin
  mass[1].mass = 0.0;
  EXPECT_THROW(PenaltySystem(w.scene, mass), std::invalid_argument);
  mass = w.mass;
  mass[2].com = Vec3(0.1, 0, 0);
  EXPECT_THROW(PenaltySystem(w.scene, mass), std::invalid_argument);
  EXPECT_THROW(PenaltySystem(w.scene, {w.mass[0]}), std::invalid_argument);
  ContactModel bad;
  bad.stiffness = -1.0;
  EXPECT_THROW(PenaltySystem(w.scene, w.mass, bad), std::invalid_argument);
  PenaltySystem sys(w.scene, w.mass);
  std::mt19937 rng(11);
  auto s0 = thrown_states(rng, 4, 2.0, 2.0);
  // NaN state
  auto nan = s0;
  nan[2].v_W.x() = test::kNaN;
  EXPECT_THROW(sys.simulate(nan, {0.0, 1.0}), std::invalid_argument);
  // options and times
  SimOptions o;
  o.max_step = -1.0;
  EXPECT_THROW(sys.simulate(s0, {0.0, 1.0}, o), std::invalid_argument);
  o = SimOptions{};
  o.rtol = 0.0;
  EXPECT_THROW(sys.simulate(s0, {0.0, 1.0}, o), std::invalid_argument);
  EXPECT_THROW(sys.simulate(s0, {0.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(sys.simulate(s0, {0.0}), std::invalid_argument);
  // interpenetration at t0: the message names both bodies
  auto deep = s0;
  deep[1].X_WB.p = deep[0].X_WB.p + Vec3(0.1, 0, 0);
  try {
    sys.simulate(deep, {0.0, 1.0});
    ADD_FAILURE() << "no error for interpenetrating bodies";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("interpenetrate"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("body0"), std::string::npos) << e.what();
  }
  o = SimOptions{};
  o.allow_initial_penetration = true;
  EXPECT_NO_THROW(sys.simulate(deep, {0.0, 0.01}, o));
  // a failing step: too few steps allowed; the last good state is kept
  o = SimOptions{};
  o.max_steps = 5;
  o.rtol = 1e-10;
  const SimResult r = sys.simulate(s0, {0.0, 0.5, 1.0}, o);
  EXPECT_FALSE(r.success);
  EXPECT_NE(r.message.find("CV_TOO_MUCH_WORK"), std::string::npos) << r.message;
  EXPECT_GT(r.final_time, 0.0);
  EXPECT_LT(r.final_time, 0.5);
  const Eigen::VectorXd yl = sys.pack(r.final_state);
  EXPECT_TRUE(yl.allFinite());
  EXPECT_EQ(r.times.size(), 1u);
}

}  // namespace
}  // namespace diffcol::sim
