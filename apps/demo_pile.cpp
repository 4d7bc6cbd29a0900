// `diffcol demo pile`: mixed iDCOL bodies (the ten shapes of ten-bodies at half size, in turn, with
// rounder faces: --beta 10)
// dropped in layers into an open box onto the ground under gravity; Hertz contact with
// Hunt–Crossley damping and regularized Coulomb friction, CVODES with the analytic Jacobian.
// Checks: the run finishes, every body ends inside the box and above the floor, penetrations stay
// small, and the pile comes to rest.
#include <cmath>
#include <ostream>
#include <random>

#include "demo_penalty_common.hpp"

namespace diffcol::cli {

void demo_pile(const DemoOptions& options, Json& report) {
  double bodies = options.quick ? 12 : 100, duration = options.quick ? 1.5 : 5.0, stiffness = 2e6, exponent = 1.5,
         damping = 0.5, friction = 0.5, slip = 0.5, rtol = 1e-3, atol = 1e-5, fps = 30.0, jac_freq = 0.0, seed = 1.0, beta = 10.0, sparse = 1.0;
  penalty_demo::ExtraArgs args{{{"bodies", &bodies}, {"duration", &duration}, {"stiffness", &stiffness},
                                {"exponent", &exponent}, {"damping", &damping}, {"friction", &friction},
                                {"slip", &slip}, {"rtol", &rtol}, {"atol", &atol}, {"fps", &fps}, {"jacobian-frequency", &jac_freq}, {"seed", &seed}, {"beta", &beta}, {"sparse-lu", &sparse}}};
  args.parse(options, "pile");
  if (!(bodies >= 1 && bodies <= 1000) || !(duration > 0) || !(fps > 0) || !(beta >= 1.0 && beta <= 100.0))
    throw InputError("demo pile: --bodies must be in [1, 1000], --duration and --fps > 0, --beta in [1, 100]");
  const int n = static_cast<int>(bodies);
  const double scale = 0.5, spacing = 0.9;
  const int per_row = 5, per_layer = per_row * per_row;
  const double half = 0.5 * per_row * spacing + 0.15;  // the box's inner half-width

  scene::Scene scene;
  std::vector<sim::MassProperties> mass;
  // static: the floor (top at z = 0) and four walls 1.5 high
  auto add_static = [&](const Vec3& centre, const Vec3& h, const char* name) {
    Pose X;
    X.p = centre;
    const int b = scene.add_body(X, true, name);
    scene.add_shape(b, SmoothPolytope::box(h.x(), h.y(), h.z(), 20.0, 1.0), Pose::identity(), {}, name);
    mass.push_back(sim::MassProperties{});
  };
  const double wall = 0.2, height = 1.5;
  add_static(Vec3(0, 0, -0.5), Vec3(half + 2 * wall, half + 2 * wall, 0.5), "floor");
  add_static(Vec3(half + wall, 0, 0.5 * height), Vec3(wall, half + 2 * wall, 0.5 * height), "wall+x");
  add_static(Vec3(-half - wall, 0, 0.5 * height), Vec3(wall, half + 2 * wall, 0.5 * height), "wall-x");
  add_static(Vec3(0, half + wall, 0.5 * height), Vec3(half, wall, 0.5 * height), "wall+y");
  add_static(Vec3(0, -half - wall, 0.5 * height), Vec3(half, wall, 0.5 * height), "wall-y");
  const int first_free = scene.num_bodies();
  const auto shapes = penalty_demo::ten_shapes(scale, beta);
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::normal_distribution<double> N(0.0, 1.0);
  std::vector<sim::BodyState> initial(static_cast<size_t>(first_free));
  for (int i = 0; i < first_free; ++i) initial[static_cast<size_t>(i)].X_WB = scene.body(i).X_WB;
  for (int i = 0; i < n; ++i) {
    const auto& [name, shape] = shapes[static_cast<size_t>(i % 10)];
    penalty_demo::add_free_body(scene, mass, shape, 1000.0, name + std::to_string(i / 10));
    const int layer = i / per_layer, k = i % per_layer;
    sim::BodyState st;
    st.X_WB.R = Eigen::Quaterniond(N(rng), N(rng), N(rng), N(rng)).normalized().toRotationMatrix();
    st.X_WB.p = Vec3((k % per_row - 0.5 * (per_row - 1)) * spacing, (k / per_row - 0.5 * (per_row - 1)) * spacing,
                     0.5 + layer * spacing);
    st.omega_B = Vec3(N(rng), N(rng), N(rng));
    initial.push_back(st);
  }
  sim::ContactModel model;
  model.stiffness = stiffness;
  model.exponent = exponent;
  model.damping = damping;
  model.friction = friction;
  model.slip_velocity = slip;
  sim::PenaltySystem sys(scene, mass, model, Vec3(0, 0, -9.81));
  sim::SimOptions so;
  so.rtol = rtol;
  so.atol = atol;
  if (!(jac_freq >= 0.0 && jac_freq <= 1e6)) throw InputError("demo: --jacobian-frequency must be in [0, 1e6]");
  so.jacobian_frequency = static_cast<long>(jac_freq);
  // KLU needs the analytic Jacobian (CVODES' difference quotients fill a dense matrix)
  if (sparse != 0.0 && !options.fd_gradients) so.linear_solver = sim::LinearSolverKind::sparse;
  so.margin = 0.05;
  so.jacobian = options.fd_gradients ? sim::JacobianMode::finite_difference : sim::JacobianMode::analytic;
  std::vector<double> times;
  const int frames = std::max(1, static_cast<int>(std::ceil(duration * fps)));
  for (int i = 0; i <= frames; ++i) times.push_back(duration * i / frames);
  const sim::SimResult r = sys.simulate(initial, times, so);

  // checks on the final state
  bool inside = true;
  double max_speed = 0.0;
  for (int b = first_free; b < sys.num_bodies(); ++b) {
    const sim::BodyState& st = r.final_state[static_cast<size_t>(b)];
    inside = inside && std::abs(st.X_WB.p.x()) < half && std::abs(st.X_WB.p.y()) < half && st.X_WB.p.z() > 0.0;
    max_speed = std::max(max_speed, st.v_W.norm());
  }
  const char* jac = options.fd_gradients ? "finite-difference" : "analytic";
  report["jacobian"] = jac;
  report["bodies"] = n;
  report["duration"] = duration;
  penalty_demo::report_stats(r, report);
  report["real_time_factor"] = r.stats.wall_s > 0 ? (r.final_time - r.times.front()) / r.stats.wall_s : 0.0;
  report["final_max_speed"] = max_speed;
  const bool shallow = r.stats.max_penetration < 0.1;
  // at rest: only with the time to settle (the quick run stops mid-fall)
  const bool rest = options.quick || max_speed < 0.5;
  report["checks"] = {{"finished", r.success}, {"inside_box", inside}, {"penetration_below_0.1", shallow},
                      {"at_rest", rest}};
  report["success"] = r.success && inside && shallow && rest;
  if (options.text) {
    std::ostream& os = *options.text;
    os << "pile: " << n << " bodies (the ten shapes at half size, density 1000) dropped into a box, k = " << stiffness
       << ", p = " << exponent << ", Hunt-Crossley d = " << damping << ", mu = " << friction << "\n";
    penalty_demo::print_stats(os, r, jac);
    os << "real-time factor " << (r.final_time - r.times.front()) / r.stats.wall_s << " (wall), "
       << (r.final_time - r.times.front()) / r.stats.cpu_s << " (CPU); final max speed " << max_speed
       << (inside ? "; every body inside the box" : "; a body left the box") << "\n";
  }
  penalty_demo::mujoco_side_by_side(sys.scene(), mass, initial, duration, true, friction, options, report);
  write_demo_page(options, sys.scene(), penalty_demo::poses(r), report);
}

}  // namespace diffcol::cli
