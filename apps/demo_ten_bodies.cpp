// `diffcol demo ten-bodies`: the iDCOL seed's Sec. VII-B1. Ten convex bodies (cone, cube, cuboid,
// cylinder, ellipsoid, frustum, polytope, pyramid, sphere, tetrahedron as iDCOL shapes) at random
// orientations on a sphere of radius 6, thrown at equal speeds toward the origin; penalty contact
// (Hertz), no gravity, integrated by CVODES with the analytic Jacobian (--fd-gradients: CVODES'
// difference quotients). Checks: the run finishes, linear and angular momentum are conserved.
#include <chrono>
#include <cmath>
#include <numbers>
#include <ostream>
#include <random>

#include "demo_penalty_common.hpp"

namespace diffcol::cli {

namespace {

void run_ten_bodies(const DemoOptions& options, Json& report) {
  double duration = options.quick ? 3.0 : 5.0, radius = 6.0, speed = 2.0, stiffness = 1e4, exponent = 1.5,
         damping = 0.0, friction = 0.0, seed = 1.0, rtol = 1e-4, atol = 1e-6, fps = 30.0, jac_freq = 0.0, dense_lu = 0.0;
  penalty_demo::ExtraArgs args{{{"duration", &duration}, {"radius", &radius}, {"speed", &speed},
                                {"stiffness", &stiffness}, {"exponent", &exponent}, {"damping", &damping},
                                {"friction", &friction}, {"seed", &seed}, {"rtol", &rtol}, {"atol", &atol},
                                {"fps", &fps}, {"jacobian-frequency", &jac_freq}, {"dense-lu", &dense_lu}}};
  args.parse(options, "ten-bodies");
  if (!(duration > 0) || !(radius > 2) || !(speed >= 0) || !(fps > 0))
    throw InputError("demo ten-bodies: --duration, --fps must be > 0, --radius > 2, --speed >= 0");

  scene::Scene scene;
  std::vector<sim::MassProperties> mass;
  const auto shapes = penalty_demo::ten_shapes(1.0);
  for (const auto& [name, shape] : shapes) penalty_demo::add_free_body(scene, mass, shape, 1.0, name);
  // initial states: directions of a Fibonacci sphere turned by a random rotation (well apart),
  // random orientations, velocity −speed · direction
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::normal_distribution<double> N(0.0, 1.0);
  auto random_rotation = [&] { return Eigen::Quaterniond(N(rng), N(rng), N(rng), N(rng)).normalized().toRotationMatrix(); };
  const Mat3 turn = random_rotation();
  std::vector<sim::BodyState> initial(shapes.size());
  const int n = static_cast<int>(shapes.size());
  for (int i = 0; i < n; ++i) {
    const double z = 1.0 - (2.0 * i + 1.0) / n, r = std::sqrt(1.0 - z * z);
    const double phi = i * std::numbers::pi * (3.0 - std::sqrt(5.0));
    const Vec3 dir = turn * Vec3(r * std::cos(phi), r * std::sin(phi), z);
    initial[static_cast<size_t>(i)].X_WB.R = random_rotation();
    initial[static_cast<size_t>(i)].X_WB.p = radius * dir;
    initial[static_cast<size_t>(i)].v_W = -speed * dir;
  }
  sim::ContactModel model;
  model.stiffness = stiffness;
  model.exponent = exponent;
  model.damping = damping;
  model.friction = friction;
  sim::PenaltySystem sys(scene, mass, model);
  sim::SimOptions so;
  so.rtol = rtol;
  so.atol = atol;
  if (!(jac_freq >= 0.0 && jac_freq <= 1e6)) throw InputError("demo: --jacobian-frequency must be in [0, 1e6]");
  so.jacobian_frequency = static_cast<long>(jac_freq);
  so.linear_solver = dense_lu != 0.0 ? sim::LinearSolverKind::dense : sim::LinearSolverKind::dense_blocks;
  so.jacobian = options.fd_gradients ? sim::JacobianMode::finite_difference : sim::JacobianMode::analytic;
  std::vector<double> times;
  const int frames = std::max(1, static_cast<int>(std::ceil(duration * fps)));
  for (int i = 0; i <= frames; ++i) times.push_back(duration * i / frames);
  const sim::SimResult r = sys.simulate(initial, times, so);
  const penalty_demo::RunFigures f = penalty_demo::figures(sys, r);

  // the cost of one Jacobian at the output state with the deepest contact: analytic against
  // forward differences of the right-hand side (what CVODES' difference quotients cost)
  double jac_analytic_s = 0.0, jac_fd_s = 0.0;
  {
    Eigen::VectorXd y = sys.pack(r.states.front());
    double deepest = -1.0;
    for (const auto& st : r.states) {
      const Eigen::VectorXd yi = sys.pack(st);
      const double d = sys.max_penetration(yi);
      if (d > deepest) deepest = d, y = yi;
    }
    Eigen::MatrixXd J, Jfd(y.size(), y.size());
    Eigen::VectorXd f0, f1;
    const int reps = 20;
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < reps; ++k) sys.rhs_jacobian(y, J);
    jac_analytic_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
    t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < reps; ++k) {
      sys.rhs(y, f0);
      for (Eigen::Index j = 0; j < y.size(); ++j) {
        Eigen::VectorXd yp = y;
        const double h = 1e-8 * std::max(1.0, std::abs(y[j]));
        yp[j] += h;
        sys.rhs(yp, f1);
        Jfd.col(j) = (f1 - f0) / h;
      }
    }
    jac_fd_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
  }
  const char* jac = options.fd_gradients ? "finite-difference" : "analytic";
  report["jacobian"] = jac;
  report["linear_solver"] = dense_lu != 0.0 ? "dense" : "dense_blocks";
  report["bodies"] = n;
  report["pairs"] = n * (n - 1) / 2;
  report["duration"] = duration;
  report["stiffness"] = stiffness;
  report["exponent"] = exponent;
  penalty_demo::report_stats(r, report);
  report["jacobian_analytic_s"] = jac_analytic_s;
  report["jacobian_fd_s"] = jac_fd_s;
  report["linear_momentum_drift"] = f.linear_drift;
  report["angular_momentum_drift"] = f.angular_drift;
  report["energy_drift"] = f.energy_drift;
  const bool collided = r.stats.max_penetration > 0.0;
  // the contact forces are internal (action and reaction at one point) and each step is
  // projected onto the momentum of t0 (SimOptions::project_momentum): constant to rounding
  const bool conserved = f.linear_drift < 1e-9 && f.angular_drift < 1e-9;
  const bool shallow = r.stats.max_penetration < 0.25;
  report["checks"] = {{"finished", r.success}, {"collided", collided}, {"momentum_conserved", conserved},
                      {"penetration_below_0.25", shallow}};
  report["success"] = r.success && collided && conserved && shallow;
  if (options.text) {
    std::ostream& os = *options.text;
    os << "ten-bodies: " << n << " bodies (";
    for (int i = 0; i < n; ++i) os << (i ? ", " : "") << shapes[static_cast<size_t>(i)].first;
    os << "), radius " << radius << ", speed " << speed << ", k = " << stiffness << ", p = " << exponent << "\n";
    penalty_demo::print_stats(os, r, jac);
    os << "one Jacobian at the deepest output state: analytic " << jac_analytic_s * 1e6 << " us, forward differences "
       << jac_fd_s * 1e6 << " us (" << jac_fd_s / jac_analytic_s << "x)\n";
    os << "momentum drift (relative): linear " << f.linear_drift << ", angular " << f.angular_drift
       << "; energy drift " << f.energy_drift << "\n";
  }
  penalty_demo::mujoco_side_by_side(sys.scene(), mass, initial, duration, false, friction, options, report);
  write_demo_page(options, sys.scene(), penalty_demo::poses(r), report);
}

}  // namespace

void demo_ten_bodies(const DemoOptions& options, Json& report) { run_ten_bodies(options, report); }

}  // namespace diffcol::cli
