#pragma once
/// @file mujoco_sim.hpp
/// The MuJoCo side of the simulation demos (`diffcol demo ten-bodies`, ...): the same bodies, masses
/// and initial states simulated by MuJoCo 2.2.2 (Debian libmujoco-dev) with its nearest geometry,
/// in the same run. A baseline for comparison only: the library never links MuJoCo.
///
/// Geometry: sphere, ellipsoid (axis-aligned), box (a DCOL box polytope), capsule and cylinder map
/// to MuJoCo's own geoms; every other shape becomes a convex mesh (MuJoCo takes the convex hull of
/// points on its surface: the polytope's vertices, 642 surface points of a smooth shape).
#include <string>
#include <vector>

#include "diffcol/math/se3.hpp"
#include "diffcol/scene/collision_shape.hpp"
#include "diffcol/sim/rigid_body.hpp"

namespace diffcol::cli {

struct MujocoShape {
  scene::CollisionShape shape;
  Pose X_BS;  ///< the shape in its body's frame (the centre-of-mass frame for a free body)
};

struct MujocoBody {
  std::vector<MujocoShape> shapes;
  bool is_static = false;
  double mass = 1.0;                 ///< free bodies
  Mat3 inertia_B = Mat3::Identity(); ///< about the centre of mass, body axes
  sim::BodyState initial;            ///< pose (static bodies: their fixed pose) and velocities
};

struct MujocoSimOptions {
  double duration = 5.0;
  double time_step = 1e-3;
  bool gravity = true;
  double friction = 0.0;        ///< sliding friction coefficient (0: frictionless)
  double frame_interval = 1.0 / 30.0;  ///< poses recorded every this many seconds
  bool ground_plane = false;    ///< a plane z = 0 in addition to the bodies
};

struct MujocoSimResult {
  bool available = false;      ///< false when diffcol was built without MuJoCo
  std::string error;           ///< why MuJoCo could not load the model (empty otherwise)
  double wall_s = 0.0;         ///< wall time of the steps alone (not the model's compilation)
  int steps = 0;
  double max_penetration = 0.0;  ///< max over steps and contacts of −dist
  double linear_momentum_drift = 0.0;   ///< |Δ(Σ m v)| / max(|Σ m v|₀, Σ m |v|₀); absolute when all start at rest
  double energy_drift = 0.0;            ///< (E_end − E_0) / E_0, kinetic + gravitational
  std::vector<std::vector<Pose>> frames;  ///< frames[k][body]
};

/// Simulates the bodies with MuJoCo. @throws std::invalid_argument on an empty body list.
MujocoSimResult run_mujoco_sim(const std::vector<MujocoBody>& bodies, const MujocoSimOptions& options);

/// "2.2.2" (the linked MuJoCo's mj_versionString), or "not built".
std::string mujoco_version();

/// The MJCF text of the bodies (for inspection and tests).
std::string mujoco_mjcf(const std::vector<MujocoBody>& bodies, const MujocoSimOptions& options);

}  // namespace diffcol::cli
