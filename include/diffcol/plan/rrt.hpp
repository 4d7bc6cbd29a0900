#pragma once
/// @file rrt.hpp
/// Sampling-based paths through a scene: RRT and RRT-Connect (OMPL) for a free body's
/// translation, a planar body's (x, y, θ) or a robot's joint vector, every state checked by the
/// scene with the body placed at it. The path is a collision-free initial guess for trajectory
/// optimization (iDCOL seed, Sec. VII-A: an RRT path refined under α*(p) ≥ 1 + ε).
///
/// A state is valid when every pair of the planned body (or of the robot's links, self-collision
/// included) that the scene pairs is solved, separated, and at least `clearance` apart
/// (Euclidean); a pair whose solve fails counts as a collision. A segment between two states is
/// checked at states at most `step` apart (the state-space distance: metres for translations,
/// √(Δx² + Δy²) + |Δθ| for planar states, the Euclidean norm of Δq for joints).
///
/// With a clearance c > 0 and a translation, the default step is c: every point of every segment
/// then lies within c/2 of a checked state, so the body along the whole path stays at least c/2
/// from every obstacle.
///
/// A failure to find a path is a status (RrtStatus), invalid input an exception.
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"

namespace diffcol::scene {
class Scene;
class Robot;
}  // namespace diffcol::scene

namespace diffcol::plan {

/// What a state is.
enum class RrtSpaceKind : std::uint8_t {
  /// (x, y, z) of a body whose orientation stays that of `reference` (plan::Parametrization's).
  translation = 0,
  /// (x, y, θ): R = R_z(θ)·R_ref, p = (x, y, p_ref.z), as plan::Parametrization::planar (θ wraps,
  /// no bounds).
  planar = 1,
  joints = 2,       ///< a robot's joint vector q (its base pose fixed)
};
/// "translation", "planar", "joints".
const char* space_kind_name(RrtSpaceKind k);

/// The configuration space and the query: start, goal and the box bounds of the state.
struct RrtProblem {
  RrtSpaceKind kind = RrtSpaceKind::translation;
  Eigen::VectorXd start, goal;  ///< 3 entries (translation, planar) or the robot's nq
  /// Box bounds, same size as the state. Planar: lower(2), upper(2) are not used (θ is SO(2)).
  Eigen::VectorXd lower, upper;
  int body = -1;                    ///< the scene body that moves (translation, planar)
  Pose reference = Pose::identity();  ///< translation: its orientation; planar: R_ref and the height
  scene::Robot* robot = nullptr;    ///< joints: the robot (its scene is the one given to plan_rrt)
  Pose base = Pose::identity();     ///< joints: the robot's base pose

  /// A body's position in the box [lower, upper], at the orientation `orientation.R`.
  static RrtProblem translation(int body, const Vec3& start, const Vec3& goal, const Vec3& lower,
                                const Vec3& upper, const Pose& orientation = Pose::identity());
  /// A body moving in the horizontal plane at height reference.p.z with heading θ about the world
  /// z axis: (x, y) in [lower, upper].
  static RrtProblem planar(int body, const Vec3& start, const Vec3& goal, const Eigen::Vector2d& lower,
                           const Eigen::Vector2d& upper, const Pose& reference = Pose::identity());
  /// A robot's joints between its limits (or `lower`, `upper` where given: a joint without finite
  /// limits, e.g. continuous, needs them).
  static RrtProblem joints(scene::Robot& robot, const Eigen::VectorXd& start, const Eigen::VectorXd& goal,
                           const Pose& base = Pose::identity(), const Eigen::VectorXd& lower = {},
                           const Eigen::VectorXd& upper = {});
};

enum class RrtAlgorithm : std::uint8_t { rrt = 0, rrt_connect = 1 };
/// "rrt", "rrt_connect".
const char* algorithm_name(RrtAlgorithm a);

struct RrtOptions {
  RrtAlgorithm algorithm = RrtAlgorithm::rrt_connect;
  double time_limit = 1.0;   ///< seconds of planning (> 0); the path search stops there
  std::uint32_t seed = 1;    ///< OMPL's random seed (> 0): the same seed, the same path
  double clearance = 0.0;    ///< Euclidean distance every valid state keeps from obstacles (≥ 0)
  /// Longest distance between checked states along a segment (> 0); 0: the clearance for a
  /// translation with clearance > 0, else 1% of the state space's extent.
  double step = 0.0;
  double range = 0.0;        ///< the planner's longest tree edge; 0: OMPL's default (20% of the extent)
  double goal_bias = 0.05;   ///< RRT's probability of sampling the goal, in [0, 1]
  bool simplify = true;      ///< shortcut and reduce the path's vertices (fixed rounds, seeded)
  int knots = 20;            ///< waypoints returned (≥ 2)
};

enum class RrtStatus : std::uint8_t {
  ok = 0,
  start_invalid = 1,      ///< the start is in collision (or closer than the clearance)
  goal_invalid = 2,       ///< the goal is
  no_path = 3,            ///< no path within the time limit
  too_few_knots = 4,      ///< the path has more vertices than `knots` and its chords collide
};
/// "ok", "start_invalid", "goal_invalid", "no_path", "too_few_knots".
const char* status_name(RrtStatus s);

struct RrtResult {
  RrtStatus status = RrtStatus::no_path;
  bool ok() const { return status == RrtStatus::ok; }
  std::string message;  ///< what failed, in words ("" when ok)
  /// `knots` states from start to goal (planar θ unwrapped: consecutive headings differ by ≤ π,
  /// the last is the goal's up to a multiple of 2π):
  /// the path's vertices kept, the other knots spread over its segments by length. Empty unless ok.
  std::vector<Eigen::VectorXd> waypoints;
  int path_vertices = 0;       ///< vertices of the (simplified) path
  double path_length = 0.0;    ///< in the state-space metric
  int tree_states = 0;         ///< states in the planner's trees
  long validity_checks = 0;    ///< states checked by the scene
  double plan_s = 0.0;         ///< seconds in the planner
  double simplify_s = 0.0;     ///< seconds simplifying
  double check_s = 0.0;        ///< of both, seconds in the scene's checks
};

/// Whether the state is valid (see the file comment): the body or robot placed at `state`, the
/// scene queried with margin = clearance. Moves the body or robot there (not restored).
/// @throws std::invalid_argument for a problem or state that is not valid input.
bool state_is_free(scene::Scene& scene, const RrtProblem& problem, const Eigen::VectorXd& state,
                   double clearance = 0.0);

/// The pose of the planned body at a translation or planar state.
Pose body_pose_at(const RrtProblem& problem, const Eigen::VectorXd& state);

/// Plans a path from problem.start to problem.goal. The body's pose (the robot's configuration)
/// is restored before returning. Runs OMPL with its global seed set to options.seed: calls from
/// two threads at once are not reproducible.
/// @throws std::invalid_argument for an unknown body, a missing robot, sizes that do not match,
///         a NaN or infinite entry, empty bounds (lower ≥ upper), a start or goal outside the
///         bounds, or options out of range; each message names the field.
RrtResult plan_rrt(scene::Scene& scene, const RrtProblem& problem, const RrtOptions& options = {});

}  // namespace diffcol::plan
