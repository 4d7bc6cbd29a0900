// `diffcol demo twelve-primitives`: the DCOL seed's Fig. 6, twelve primitives under
// complementarity time stepping at 100 Hz (sim/time_stepping.hpp, docs/sim-time-stepping.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <ostream>

#include "demo.hpp"
#include "mujoco_sim.hpp"
#include "diffcol/sim/time_stepping.hpp"

namespace diffcol::cli {

namespace {

/// Root-mean-square distance of the bodies from their centroid.
double spread(const std::vector<sim::BodyState>& x) {
  Vec3 c = Vec3::Zero();
  for (const auto& s : x) c += s.X_WB.p;
  c /= static_cast<double>(x.size());
  double r = 0.0;
  for (const auto& s : x) r += (s.X_WB.p - c).squaredNorm();
  return std::sqrt(r / static_cast<double>(x.size()));
}

}  // namespace

void demo_twelve_primitives(const DemoOptions& options, Json& report) {
  unsigned seed = 1;
  double duration = options.quick ? 2.3 : 3.5;
  for (std::size_t i = 0; i < options.extra.size(); ++i) {
    const std::string& a = options.extra[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= options.extra.size()) throw InputError("demo twelve-primitives: " + a + " needs a value");
      return options.extra[++i];
    };
    if (a == "--seed") seed = static_cast<unsigned>(parse_long(value(), "--seed", 0, 1000000000));
    else if (a == "--duration") {
      const std::string& v = value();
      char* end = nullptr;
      duration = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(duration > 0.0) || !(duration <= 60.0))
        throw InputError("demo twelve-primitives: --duration must be a number of seconds in (0, 60] (got '" + v + "')");
    } else {
      throw InputError("demo twelve-primitives: unknown option '" + a + "' (known: --seed N, --duration SECONDS)");
    }
  }
  std::vector<sim::BodyState> x;
  sim::TimeStepper ts = sim::twelve_primitives(x, seed);
  const double h = ts.options().dt;
  const int steps = static_cast<int>(std::lround(duration / h));
  const Vec3 P0 = ts.linear_momentum(x), L0 = ts.angular_momentum(x);
  const double E0 = ts.kinetic_energy(x);
  double p_scale = 0.0;
  for (int i = 0; i < ts.num_bodies(); ++i) p_scale += ts.mass(i) * x[static_cast<std::size_t>(i)].v_W.norm();
  const double spread0 = spread(x);
  const std::vector<sim::BodyState> x0 = x;

  std::vector<std::vector<Pose>> frames;
  auto record = [&]() {
    std::vector<Pose> f;
    for (const auto& s : x) f.push_back(s.X_WB);
    frames.push_back(std::move(f));
  };
  record();
  double step_wall = 0.0, collision_wall = 0.0, max_residual = 0.0, min_alpha = 1e300, min_step_alpha = 1e300;
  double max_p_drift = 0.0, spread_impact = spread0, min_spread = spread0;
  int contact_steps = 0, substepped = 0, max_iterations = 0, total_iterations = 0, max_active = 0, done = 0;
  double first_contact = -1.0;
  std::string failure;
  for (int k = 0; k < steps; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    const sim::StepReport r = ts.step(x);
    step_wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    collision_wall += r.collision_seconds;
    if (!r.converged) {
      failure = "step " + std::to_string(k) + ": " + r.message;
      break;
    }
    ++done;
    max_residual = std::max(max_residual, r.residual);
    max_iterations = std::max(max_iterations, r.iterations);
    total_iterations += r.iterations;
    max_active = std::max(max_active, r.active);
    substepped += r.substeps > 1;
    if (r.active > 0) {
      ++contact_steps;
      if (first_contact < 0.0) first_contact = (k + 1) * h;
    }
    min_step_alpha = std::min(min_step_alpha, r.min_alpha);
    // the independent check: every pair of the scene, not only the step's constraints
    for (const auto& p : ts.all_pair_alphas(x)) min_alpha = std::min(min_alpha, p.ok ? p.alpha : -1.0);
    max_p_drift = std::max(max_p_drift, (ts.linear_momentum(x) - P0).norm());
    const double sp = spread(x);
    if (sp < min_spread) {
      min_spread = sp;
      spread_impact = sp;
    }
    if (k % 2 == 1) record();
  }
  const double sim_s = done * h;
  const double E1 = ts.kinetic_energy(x);
  const double p_rel = max_p_drift / p_scale;
  const double L_drift = (ts.angular_momentum(x) - L0).norm();
  const double spread_end = spread(x);
  const bool success = failure.empty() && done == steps && min_alpha >= 1.0 - 1e-9 && p_rel <= 1e-9;

  report["success"] = success;
  report["bodies"] = ts.num_bodies();
  double m_min = 1e300, m_max = 0.0;
  for (int i = 0; i < ts.num_bodies(); ++i) {
    m_min = std::min(m_min, ts.mass(i));
    m_max = std::max(m_max, ts.mass(i));
  }
  report["mass_min"] = m_min;
  report["mass_max"] = m_max;
  report["seed"] = seed;
  report["dt"] = h;
  report["steps"] = done;
  report["simulated_s"] = sim_s;
  report["step_wall_s"] = step_wall;
  report["wall_per_simulated_s"] = sim_s > 0.0 ? step_wall / sim_s : 0.0;
  report["collision_share"] = step_wall > 0.0 ? collision_wall / step_wall : 0.0;
  report["min_alpha_all_pairs"] = min_alpha;
  report["min_alpha_constraints"] = min_step_alpha;
  report["max_residual"] = max_residual;
  report["iterations_mean"] = done ? double(total_iterations) / done : 0.0;
  report["iterations_max"] = max_iterations;
  report["substepped_steps"] = substepped;
  report["contact_steps"] = contact_steps;
  report["max_active_contacts"] = max_active;
  report["first_contact_s"] = first_contact;
  report["linear_momentum_drift_relative"] = p_rel;
  report["angular_momentum_drift"] = L_drift;
  report["angular_momentum_initial"] = L0.norm();
  report["kinetic_energy_initial"] = E0;
  report["kinetic_energy_final"] = E1;
  report["spread_initial"] = spread0;
  report["spread_min"] = spread_impact;
  report["spread_final"] = spread_end;
  if (!failure.empty()) report["failure"] = failure;

  // MuJoCo side by side: the same primitives (its nearest geometry), masses and initial states,
  // the same step, in the same run
  std::vector<MujocoBody> mj_bodies;
  for (int i = 0; i < ts.num_bodies(); ++i) {
    MujocoBody b;
    b.shapes.push_back({scene::CollisionShape(ts.shape(i)), Pose::identity()});
    b.is_static = ts.is_static(i);
    if (!b.is_static) {
      b.mass = ts.mass(i);
      b.inertia_B = ts.inertia(i);
    }
    b.initial = x0[static_cast<std::size_t>(i)];
    mj_bodies.push_back(std::move(b));
  }
  MujocoSimOptions mj_options;
  mj_options.duration = duration;
  mj_options.time_step = h;
  mj_options.gravity = ts.options().gravity.norm() > 0.0;
  const MujocoSimResult mj = run_mujoco_sim(mj_bodies, mj_options);
  Json mjj;
  mjj["available"] = mj.available;
  if (mj.available && mj.error.empty()) {
    mjj["time_step"] = h;
    mjj["wall_s"] = mj.wall_s;
    mjj["wall_per_simulated_s"] = mj.wall_s / duration;
    mjj["max_penetration"] = mj.max_penetration;
    mjj["linear_momentum_drift_relative"] = mj.linear_momentum_drift;
    mjj["energy_drift_relative"] = mj.energy_drift;
  } else {
    mjj["error"] = mj.error;
  }
  report["mujoco"] = mjj;

  if (std::ostream* os = options.text) {
    *os << std::setprecision(4);
    *os << "twelve primitives, seed " << seed << ", " << done << " steps of " << h << " s (" << sim_s << " s simulated)\n";
    *os << "wall: " << step_wall << " s stepping, " << (sim_s > 0 ? step_wall / sim_s : 0.0)
        << " s per simulated second; collision share " << 100.0 * (step_wall > 0 ? collision_wall / step_wall : 0.0)
        << " %\n";
    *os << "iterations per step: mean " << (done ? double(total_iterations) / done : 0.0) << ", max " << max_iterations
        << "; max residual " << max_residual << "; steps retried as substeps: " << substepped << "\n";
    *os << std::setprecision(16) << "min alpha over all pairs and steps: " << min_alpha << std::setprecision(4)
        << " (contact from t = " << first_contact << " s, " << contact_steps << " contact steps, up to " << max_active
        << " contacts at once)\n";
    *os << "linear momentum drift " << p_rel << " (relative), angular momentum " << L0.norm() << " -> "
        << ts.angular_momentum(x).norm() << ", kinetic energy " << E0 << " -> " << E1 << "\n";
    *os << "spread (rms distance from the centroid): " << spread0 << " -> " << spread_impact << " (closest) -> "
        << spread_end << "\n";
    if (!failure.empty()) *os << "failed: " << failure << "\n";
    if (mj.available && mj.error.empty())
      *os << "MuJoCo " << mujoco_version() << " (same bodies, step " << h << " s, nearest geometry): " << mj.wall_s / duration
          << " s per simulated second, max penetration " << mj.max_penetration << " m, linear momentum drift "
          << mj.linear_momentum_drift << " (relative)\n";
    else
      *os << "MuJoCo: " << mj.error << "\n";
  }
  write_demo_page(options, ts.scene(), frames, report);
}

}  // namespace diffcol::cli
