// `diffcol demo figures-drop`: the two 18-superquadric figures of the Contax scale experiments
// (seed V-3) dropped onto each other, the lower one lying on the ground; every contact force comes
// from the Contax manifolds' entries (penalty on each entry's distance, weighted by its activity;
// sim/manifold_contact.hpp), as in the seed's supplementary simulations (I-B). Checks: no NaN over
// the run, the upper figure ends on the lower one at rest, and the rollout derivative through the
// manifolds (the upper figure's final height w.r.t. its initial height) matches central finite
// differences.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>

#include <Eigen/Eigenvalues>

#include "demo_penalty_common.hpp"
#include "diffcol/sim/manifold_contact.hpp"

namespace diffcol::cli {

namespace {

double max_speed(const std::vector<sim::BodyState>& s, const sim::ManifoldContactSystem& sys, bool angular) {
  double m = 0.0;
  for (int i = 0; i < sys.num_bodies(); ++i)
    if (!sys.is_static(i))
      m = std::max(m, angular ? s[static_cast<size_t>(i)].omega_B.norm() : s[static_cast<size_t>(i)].v_W.norm());
  return m;
}

}  // namespace

void demo_figures_drop(const DemoOptions& options, Json& report) {
  const sim::FiguresDropOptions defaults;
  double duration = options.quick ? 0.05 : 3.0, gap = options.quick ? 0.0 : defaults.drop_gap,
         dt = defaults.options.dt, stiffness = defaults.law.stiffness, damping = defaults.law.damping,
         friction = defaults.law.friction, fps = 30.0, gradient_steps = options.quick ? 40 : 100,
         edges = defaults.edges, edge_edge = defaults.edge_edge ? 1 : 0;
  penalty_demo::ExtraArgs args{{{"duration", &duration}, {"gap", &gap}, {"dt", &dt}, {"stiffness", &stiffness},
                                {"damping", &damping}, {"friction", &friction}, {"fps", &fps},
                                {"gradient-steps", &gradient_steps}, {"edges", &edges},
                                {"edge-edge", &edge_edge}}};
  args.parse(options, "figures-drop");
  if (!(duration > 0) || !(fps > 0) || !(gradient_steps >= 1 && gradient_steps <= 100000) || !(edges >= 1))
    throw InputError("demo figures-drop: --duration and --fps must be > 0, --gradient-steps in [1, 100000], "
                     "--edges >= 1");
  sim::FiguresDropOptions fo;
  fo.drop_gap = gap;
  fo.edges = static_cast<int>(edges);
  fo.edge_edge = edge_edge != 0;
  fo.law.stiffness = stiffness;
  fo.law.damping = damping;
  fo.law.friction = friction;
  fo.options.dt = dt;
  try {
    fo.validate();
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("demo figures-drop: ") + e.what());
  }
  const auto t_build = std::chrono::steady_clock::now();
  sim::FiguresDrop scene = sim::figures_drop(fo);
  sim::ManifoldContactSystem& sys = scene.system;
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_build).count();

  // The rollout: frames for the page, the first step with an active figure–figure entry.
  const int steps = static_cast<int>(std::ceil(duration / dt - 1e-9));
  const int every = std::max(1, static_cast<int>(std::lround(1.0 / (fps * dt))));
  std::vector<sim::BodyState> state = scene.initial;
  std::vector<std::vector<Pose>> frames;
  std::vector<std::vector<manifold::ContactManifold>> frame_manifolds;
  std::vector<sim::BodyState> before_contact = state;
  int first_contact = -1, max_active = 0;
  double max_penetration = 0.0, max_edge_penetration = 0.0, manifold_s = 0.0;
  bool finite = true;
  std::string failure;
  const bool page = !options.page.empty();
  auto record = [&]() {
    std::vector<Pose> poses;
    for (int i = 0; i < sys.num_bodies(); ++i) poses.push_back(sys.object_pose(state, i));
    frames.push_back(poses);
    if (page) {
      std::vector<manifold::ContactManifold> ms;
      for (int p = 0; p < sys.num_pairs(); ++p) ms.push_back(sys.pair_manifold(state, p));
      frame_manifolds.push_back(std::move(ms));
    }
  };
  std::vector<std::vector<sim::BodyState>> history;  // the last states before the first contact
  const auto t_run = std::chrono::steady_clock::now();
  record();
  for (int k = 0; k < steps; ++k) {
    if (first_contact < 0) {
      history.push_back(state);
      if (history.size() > 10) history.erase(history.begin());
    }
    try {
      const sim::ManifoldStepReport r = sys.step(state);
      manifold_s += r.manifold_seconds;
      max_active = std::max(max_active, r.active_entries);
      max_penetration = std::max(max_penetration, r.max_penetration);
      max_edge_penetration = std::max(max_edge_penetration, r.max_edge_penetration);
    } catch (const std::runtime_error& e) {
      finite = false;
      failure = e.what();
      break;
    }
    if (first_contact < 0) {
      const manifold::ContactManifold& m = sys.pair_manifold(state, scene.figure_pair);
      for (const auto& e : m.entries)
        if (e.activity > 1e-3) first_contact = k + 1;
      if (first_contact >= 0) before_contact = history.front();
    }
    if ((k + 1) % every == 0 || k + 1 == steps) record();
    if (options.text && (k + 1) % 100 == 0)
      *options.text << "t = " << (k + 1) * dt << ": kinetic energy " << sys.kinetic_energy(state) << ", max speed "
                    << max_speed(state, sys, false) << ", max angular speed " << max_speed(state, sys, true) << "\n";
  }
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_run).count();

  // Final state: speeds, the upper figure above the lower one and touching it.
  const double v_max = max_speed(state, sys, false), w_max = max_speed(state, sys, true);
  const manifold::ContactManifold& final_m = sys.pair_manifold(state, scene.figure_pair);
  int touching = 0;
  for (const auto& e : final_m.entries) touching += e.activity > 1e-3 ? 1 : 0;
  const bool on_top = state[static_cast<size_t>(scene.upper)].X_WB.p.z() >
                      state[static_cast<size_t>(scene.lower)].X_WB.p.z() && touching > 0;
  const double rest_speed = 0.05;  // m/s (the figures are 1 m tall)
  const bool rest = options.quick || (v_max < rest_speed && w_max < 10 * rest_speed);

  // Rollout derivative through the manifolds: d z_upper(N) / d z_upper(0) over gradient_steps
  // steps from 10 steps before the first figure–figure contact, against central differences.
  const int ng = static_cast<int>(gradient_steps);
  Json grad;
  bool grad_ok = false;
  double rel = 0.0;
  try {
    const int n = sys.tangent_dimension();
    const int iu = 12 * (scene.upper - (scene.ground >= 0 ? 1 : 0));  // free index of the upper figure
    auto final_height = [&](const std::vector<sim::BodyState>& s0, Eigen::VectorXd* tangent) {
      std::vector<sim::BodyState> s = s0;
      for (int k = 0; k < ng; ++k) sys.step(s, tangent);
      return s[static_cast<size_t>(scene.upper)].X_WB.p.z();
    };
    const auto t_g = std::chrono::steady_clock::now();
    Eigen::VectorXd tangent = Eigen::VectorXd::Zero(n);
    tangent[iu + 5] = 1.0;  // δp_z of the upper figure
    const std::vector<sim::BodyState> s0 = first_contact >= 0 ? before_contact : scene.initial;
    final_height(s0, &tangent);
    const double analytic = tangent[iu + 5];
    const double grad_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_g).count();
    const double h = 1e-6;
    Eigen::VectorXd delta = Eigen::VectorXd::Zero(n);
    delta[iu + 5] = h;
    std::vector<sim::BodyState> sp = s0, sm = s0;
    sys.retract(sp, delta);
    sys.retract(sm, -delta);
    const double fd = (final_height(sp, nullptr) - final_height(sm, nullptr)) / (2 * h);
    rel = std::abs(analytic - fd) / std::max(std::abs(fd), 1e-8);
    grad_ok = std::isfinite(analytic) && rel <= 1e-5;
    grad = {{"quantity", "d z_upper(T) / d z_upper(0)"}, {"steps", ng}, {"from_step", std::max(0, first_contact - 10)},
            {"analytic", analytic}, {"central_difference", fd}, {"step", h}, {"relative_error", rel},
            {"tangent_rollout_s", grad_s}};
  } catch (const std::exception& e) {
    grad = {{"error", e.what()}};
  }

  report["figures"] = {{"vertices", sys.object(scene.lower).mesh().num_vertices()}, {"pieces", 18},
                       {"edge_edge", fo.edge_edge}, {"edges_per_body", static_cast<int>(edges)}};
  report["duration"] = duration;
  report["dt"] = dt;
  report["steps"] = steps;
  report["first_contact_step"] = first_contact;
  report["max_active_entries"] = max_active;
  report["max_penetration"] = max_penetration;
  report["max_edge_edge_penetration"] = max_edge_penetration;
  report["final_max_speed"] = v_max;
  report["final_max_angular_speed"] = w_max;
  Json finals = Json::array();
  for (int i = 0; i < sys.num_bodies(); ++i) {
    if (sys.is_static(i)) continue;
    const sim::BodyState& s = state[static_cast<size_t>(i)];
    finals.push_back({{"body", sys.name(i)}, {"position", {s.X_WB.p.x(), s.X_WB.p.y(), s.X_WB.p.z()}},
                      {"velocity", {s.v_W.x(), s.v_W.y(), s.v_W.z()}},
                      {"angular_velocity", {s.omega_B.x(), s.omega_B.y(), s.omega_B.z()}}});
  }
  report["final_states"] = finals;
  report["final_touching_entries"] = touching;
  report["build_s"] = build_s;
  report["run_s"] = run_s;
  report["manifold_s"] = manifold_s;
  report["rollout_gradient"] = grad;
  report["checks"] = {{"finite", finite}, {"upper_on_lower", on_top || options.quick}, {"at_rest", rest},
                      {"gradient_matches_fd", grad_ok}};
  report["success"] = finite && (on_top || options.quick) && rest && grad_ok;
  if (!failure.empty()) report["failure"] = failure;
  if (options.text) {
    std::ostream& os = *options.text;
    const sim::MassProperties mp = sim::mesh_mass_properties(sys.object(scene.lower).mesh(), fo.density);
    os << "lower figure: mass " << mp.mass << ", principal inertia "
       << Eigen::SelfAdjointEigenSolver<Mat3>(mp.inertia).eigenvalues().transpose() << "\n";
    os << "figures-drop: two 18-superquadric figures (" << sys.object(scene.lower).mesh().num_vertices()
       << " vertices each), the upper dropped " << gap << " onto the lower on the ground; " << steps << " steps of "
       << dt << " s, k = " << stiffness << " per entry, c = " << damping << ", mu = " << friction << "\n";
    os << "run " << run_s << " s (manifolds " << manifold_s << " s), max " << max_active << " active entries, max "
       << "penetration " << max_penetration << " (E-E entries " << max_edge_penetration << ")\n";
    os << "final max speed " << v_max << " m/s, angular " << w_max << " rad/s; upper figure "
       << (on_top ? "rests on the lower one" : "is not on the lower one") << " (" << touching << " touching entries)\n";
    if (grad.contains("analytic"))
      os << "d z_upper(T)/d z_upper(0) over " << ng << " steps: " << grad["analytic"].get<double>()
         << " (tangent), " << grad["central_difference"].get<double>() << " (central differences), relative error "
         << rel << "\n";
    else
      os << "rollout derivative failed: " << grad.value("error", std::string()) << "\n";
  }
  if (page) {
    std::vector<mesh::TriangleMesh> meshes;
    std::vector<std::string> names;
    for (int i = 0; i < sys.num_bodies(); ++i) {
      meshes.push_back(sys.object(i).mesh());
      names.push_back(sys.name(i));
    }
    write_demo_mesh_page(options, meshes, names, frames, frame_manifolds, report);
  }
}

}  // namespace diffcol::cli
