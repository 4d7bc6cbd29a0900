#pragma once
// Shared by the penalty-contact demos (demo_ten_bodies.cpp, demo_pile.cpp): bodies of uniform
// density with their frames at the centres of mass, the run's figures and the report.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "demo.hpp"
#include "mujoco_sim.hpp"
#include "diffcol/sim/penalty.hpp"

namespace diffcol::cli::penalty_demo {

/// A free body of `shape` (uniform `density`) with its frame at the centre of mass: the shape is
/// mounted at −com. Returns the body id; appends its mass properties.
inline int add_free_body(scene::Scene& scene, std::vector<sim::MassProperties>& mass, const Shape& shape,
                         double density, const std::string& name) {
  sim::MassProperties mp = sim::mass_properties(scene::CollisionShape(shape), density);
  Pose X_BS;
  X_BS.p = -mp.com;
  mp.com.setZero();
  const int body = scene.add_body(Pose::identity(), false, name);
  scene.add_shape(body, shape, X_BS, {}, name);
  mass.push_back(mp);
  return body;
}

/// The ten shapes of the seed's Sec. VII-B1 as iDCOL shapes, sizes about `scale` (1: about 1).
inline std::vector<std::pair<std::string, Shape>> ten_shapes(double c) {
  const double beta = 20.0;
  std::vector<std::pair<std::string, Shape>> s;
  s.emplace_back("cone", SmoothTruncatedCone(0.5 * c, 0.02 * c, 0.3 * c, 0.9 * c, beta));
  s.emplace_back("cube", SmoothPolytope::box(0.4 * c, 0.4 * c, 0.4 * c, beta, c));
  s.emplace_back("cuboid", SmoothPolytope::box(0.6 * c, 0.35 * c, 0.2 * c, beta, c));
  s.emplace_back("cylinder", SuperellipticCylinder(0.35 * c, 0.5 * c, 4));
  s.emplace_back("ellipsoid", Superellipsoid::ellipsoid(0.6 * c, 0.4 * c, 0.3 * c));
  s.emplace_back("frustum", SmoothTruncatedCone(0.5 * c, 0.25 * c, 0.3 * c, 0.5 * c, beta));
  std::vector<Vec3> pts;  // a cube's corners cut by an octahedron's: 14 vertices
  for (int i = 0; i < 8; ++i) pts.push_back(c * Vec3(i & 1 ? 0.35 : -0.35, i & 2 ? 0.3 : -0.3, i & 4 ? 0.25 : -0.25));
  for (int i = 0; i < 3; ++i)
    for (double sgn : {-1.0, 1.0}) pts.push_back(sgn * c * Vec3(i == 0 ? 0.6 : 0, i == 1 ? 0.5 : 0, i == 2 ? 0.42 : 0));
  s.emplace_back("polytope", SmoothPolytope::convex_hull(pts, beta, c));
  s.emplace_back("pyramid", SmoothPolytope::convex_hull({c * Vec3(0.45, 0.45, -0.25), c * Vec3(-0.45, 0.45, -0.25),
                                                         c * Vec3(0.45, -0.45, -0.25), c * Vec3(-0.45, -0.45, -0.25),
                                                         c * Vec3(0, 0, 0.7)}, beta, c));
  s.emplace_back("sphere", Sphere(0.45 * c));
  s.emplace_back("tetrahedron", SmoothPolytope::convex_hull({c * Vec3(0.4, 0.4, 0.4), c * Vec3(0.4, -0.4, -0.4),
                                                             c * Vec3(-0.4, 0.4, -0.4), c * Vec3(-0.4, -0.4, 0.4)}, beta, c));
  return s;
}

/// MuJoCo on the same scene (every body's shapes at their mounts, the same masses, inertias and
/// initial states; static bodies fixed), in the same run: its figures as report["mujoco"] and one
/// text line.
inline void mujoco_side_by_side(const scene::Scene& scene, const std::vector<sim::MassProperties>& mass,
                                const std::vector<sim::BodyState>& initial, double duration, bool gravity,
                                double friction, const DemoOptions& options, Json& report) {
  std::vector<MujocoBody> bodies(static_cast<std::size_t>(scene.num_bodies()));
  for (int b = 0; b < scene.num_bodies(); ++b) {
    MujocoBody& mb = bodies[static_cast<std::size_t>(b)];
    mb.is_static = scene.body(b).is_static;
    mb.mass = mass[static_cast<std::size_t>(b)].mass;
    mb.inertia_B = mass[static_cast<std::size_t>(b)].inertia;
    mb.initial = initial[static_cast<std::size_t>(b)];
  }
  for (int s = 0; s < scene.num_shapes(); ++s) {
    const scene::SceneShape& sh = scene.shape(s);
    bodies[static_cast<std::size_t>(sh.body)].shapes.push_back({sh.shape, sh.X_BS});
  }
  MujocoSimOptions mo;
  mo.duration = duration;
  mo.time_step = 1e-3;
  mo.gravity = gravity;
  mo.friction = friction;
  const MujocoSimResult mj = run_mujoco_sim(bodies, mo);
  Json j;
  j["available"] = mj.available;
  if (mj.available && mj.error.empty()) {
    j["version"] = mujoco_version();
    j["time_step"] = mo.time_step;
    j["wall_s"] = mj.wall_s;
    j["wall_per_simulated_s"] = mj.wall_s / duration;
    j["max_penetration"] = mj.max_penetration;
    if (!gravity) j["linear_momentum_drift_relative"] = mj.linear_momentum_drift;
    j["energy_drift_relative"] = mj.energy_drift;
    if (options.text)
      *options.text << "MuJoCo " << mujoco_version() << " (same bodies, nearest geometry, step " << mo.time_step
                    << " s): " << mj.wall_s << " s wall for " << duration << " s, max penetration "
                    << mj.max_penetration << ", energy drift " << mj.energy_drift << "\n";
  } else {
    j["error"] = mj.error;
    if (options.text) *options.text << "MuJoCo: " << mj.error << "\n";
  }
  report["mujoco"] = j;
}

/// Reads "--key value" demo options: a number for each known key. @throws InputError otherwise.
struct ExtraArgs {
  std::vector<std::pair<std::string, double*>> keys;
  void parse(const DemoOptions& o, const std::string& demo) const {
    for (size_t i = 0; i < o.extra.size(); ++i) {
      const std::string& a = o.extra[i];
      auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return "--" + k.first == a; });
      if (it == keys.end()) {
        std::string known;
        for (const auto& k : keys) known += " --" + k.first;
        throw InputError("demo " + demo + ": unknown option '" + a + "' (known:" + known + ")");
      }
      if (i + 1 >= o.extra.size()) throw InputError("demo " + demo + ": " + a + " needs a value");
      *it->second = parse_double(o.extra[++i], a);
    }
  }
};

/// Figures of one run: drifts relative to the initial invariants.
struct RunFigures {
  double linear_drift = 0.0, angular_drift = 0.0, energy_drift = 0.0;
};

inline RunFigures figures(const sim::PenaltySystem& sys, const sim::SimResult& r) {
  RunFigures f;
  const sim::SystemInvariants i0 = sys.invariants(sys.pack(r.states.front()));
  const double e0 = i0.kinetic + i0.potential;
  for (const auto& st : r.states) {
    const sim::SystemInvariants i1 = sys.invariants(sys.pack(st));
    f.linear_drift = std::max(f.linear_drift, (i1.linear - i0.linear).norm() / i0.momentum_scale);
    f.angular_drift = std::max(f.angular_drift, (i1.angular - i0.angular).norm() / i0.momentum_scale);
  }
  const sim::SystemInvariants ie = sys.invariants(sys.pack(r.final_state));
  f.energy_drift = (ie.kinetic + ie.potential - e0) / std::max(std::abs(e0), i0.kinetic);
  return f;
}

inline void report_stats(const sim::SimResult& r, Json& report) {
  report["simulated_s"] = r.final_time - r.times.front();
  report["sim_wall_s"] = r.stats.wall_s;
  report["sim_cpu_s"] = r.stats.cpu_s;
  report["steps"] = r.stats.steps;
  report["rhs_evaluations"] = r.stats.rhs_evaluations;
  report["jacobian_evaluations"] = r.stats.jacobian_evaluations;
  report["fd_rhs_evaluations"] = r.stats.fd_rhs_evaluations;
  report["newton_iterations"] = r.stats.newton_iterations;
  report["error_test_failures"] = r.stats.error_test_failures;
  report["convergence_failures"] = r.stats.convergence_failures;
  report["contact_solves"] = r.stats.contact_solves;
  report["fd_pair_jacobians"] = r.stats.fd_pair_jacobians;
  report["collision_s"] = r.stats.collision_s;
  report["collision_share"] = r.stats.wall_s > 0 ? r.stats.collision_s / r.stats.wall_s : 0.0;
  report["max_penetration"] = r.stats.max_penetration;
  if (!r.success) report["error"] = r.message;
}

inline void print_stats(std::ostream& os, const sim::SimResult& r, const char* jacobian) {
  os << "simulated " << (r.final_time - r.times.front()) << " s in " << r.stats.wall_s << " s wall, " << r.stats.cpu_s
     << " s CPU (" << jacobian
     << " Jacobian): " << r.stats.steps << " steps, " << r.stats.rhs_evaluations << " RHS + "
     << r.stats.fd_rhs_evaluations << " for FD Jacobians, " << r.stats.jacobian_evaluations << " Jacobians, "
     << r.stats.contact_solves << " contact solves, " << r.stats.fd_pair_jacobians
     << " pair Jacobian blocks by differences (ill-conditioned contacts)\n"
     << "collision queries: " << r.stats.collision_s << " s (" << 100.0 * r.stats.collision_s / std::max(1e-300, r.stats.wall_s)
     << "% of the run); max penetration " << r.stats.max_penetration << "\n";
  if (!r.success) os << "integration failed: " << r.message << "\n";
}

/// Body poses at `frames` evenly spaced output times (the states of the run).
inline std::vector<std::vector<Pose>> poses(const sim::SimResult& r) {
  std::vector<std::vector<Pose>> out;
  for (const auto& st : r.states) {
    std::vector<Pose> f;
    for (const auto& b : st) f.push_back(b.X_WB);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace diffcol::cli::penalty_demo
