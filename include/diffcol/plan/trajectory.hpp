#pragma once
/// @file trajectory.hpp
/// Trajectory optimization over a scene by direct transcription (DCOL seed Sec. IV-A, eq. (31);
/// iDCOL seed Sec. VII-A), solved with Ipopt (docs/plan.md).
///
/// The trajectory has N knots. Knot k holds the variables z_k = [q_k; s_k; u_k]:
///  - q_k, the configuration: a Robot's joint positions (first) and then, per free body, its
///    coordinates in the body's Parametrization;
///  - s_k, extra state (velocities, ...), num_extra_states entries, used by a user's Dynamics;
///  - u_k, controls, num_controls entries (u_{N−1} is fixed to zero).
/// The decision vector is x = [z_0; z_1; ...; z_{N−1}]. q_0 is fixed to the start; q_{N−1} to the
/// goal when fix_goal, else a goal cost pulls it there.
///
/// Objective: smoothness_weight·Σ_k ‖W(q_{k+1} − q_k)‖² + goal_weight·‖W(q_{N−1} − goal)‖² (when
/// the goal is not fixed) + control_weight·Σ_k ‖u_k‖² + the user's costs, W = diag(coordinate_weights).
/// Constraints: the Dynamics residuals f(z_k, z_{k+1}) = 0 (k = 0..N−2), then one collision row
/// per (knot, pair) of a pair set fixed at construction (CollisionConstraints). Ipopt header
/// files stay in src/plan/.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"
#include "diffcol/scene/robot.hpp"
#include "diffcol/scene/scene.hpp"

namespace diffcol::plan {

/// The coordinates of a free body (docs/plan.md). Positions are the world position of the body
/// origin; rotations are relative to FreeBody::reference, applied on the world side.
enum class Parametrization : std::uint8_t {
  translation = 0,  ///< (x, y, z): R = R_ref
  planar = 1,       ///< (x, y, θ): p = (x, y, p_ref.z), R = R_z(θ)·R_ref
  pose6 = 2,        ///< (x, y, z, r1, r2, r3): R = exp(r^)·R_ref, r a rotation vector (|r| < π)
};
/// "translation", "planar", "pose6".
const char* parametrization_name(Parametrization p);
/// 3, 3, 6.
int num_coordinates(Parametrization p);

/// A moving body of the scene whose pose the problem optimizes.
struct FreeBody {
  int body = -1;
  Parametrization parametrization = Parametrization::translation;
  Pose reference = Pose::identity();  ///< R_ref (every parametrization) and the height p_ref.z (planar)
};

/// The pose of a free body at coordinates c (num_coordinates entries).
Pose free_body_pose(const FreeBody& b, const double* c);
/// The 6 × n Jacobian of that pose with respect to c, as a twist [ω; v] in
/// ReferenceFrame::local_world_aligned (ω world axes, v the velocity of the body origin).
/// pose6: ω = J_l(r)·ṙ with J_l the left Jacobian of SO(3).
void free_body_jacobian(const FreeBody& b, const double* c, Eigen::Matrix<double, 6, Eigen::Dynamic>& J);
/// The coordinates of a pose (the inverse of free_body_pose; planar: the rotation about z of
/// R·R_refᵀ, its other components dropped; pose6: so3_log(R·R_refᵀ)).
Eigen::VectorXd free_body_coordinates(const FreeBody& b, const Pose& X_WB);

/// What a collision row measures (docs/conventions.md, "Distances").
enum class CollisionMeasure : std::uint8_t {
  alpha = 0,     ///< α* ≥ 1 + bound (iDCOL, DCOL pairs; the seeds' constraint)
  gap = 1,       ///< d_D ≥ bound (iDCOL, DCOL pairs)
  distance = 2,  ///< the Euclidean distance ≥ bound (any pair; bound > 0)
};
/// "alpha", "gap", "distance".
const char* collision_measure_name(CollisionMeasure m);

/// Which shape pairs get a row at every knot (fixed for the problem's lifetime).
enum class PairSelection : std::uint8_t {
  /// Every pair the scene may pair (Scene::may_collide) with at least one moving body of the
  /// problem: no pair can appear later.
  all = 0,
  /// The broad phase (Scene::candidate_pairs(selection_margin)) at every knot of the initial
  /// path and of the straight line from start to goal: fewer rows; a pair outside the set is not
  /// constrained (check_trajectory sees it).
  initial_path = 1,
};

/// The collision rows. Each is c = min(m, cap) ≥ lower with m the measure of the pair at the
/// knot's configuration, evaluated by one Scene::query per knot with margin activation_margin;
/// a pair the query does not report (farther than the margin) has c = cap. The cap keeps c
/// continuous where a pair crosses the margin: cap = activation_margin for gap and distance,
/// 1 + activation_margin/(R1 + R2) for α (R_i the shapes' outer radii: α ≥ that cap for every
/// pair with d_D ≥ the margin, as ‖r‖ ≤ α·(R1 + R2)). The rows of knots whose configuration is
/// fixed (the start; the goal when fix_goal) are left out; a start or a fixed goal in collision is
/// an error.
struct CollisionConstraints {
  bool enabled = true;
  CollisionMeasure measure = CollisionMeasure::alpha;
  /// α ≥ 1 + bound; d_D or distance ≥ bound. Must stay below the cap (checked).
  double bound = 0.01;
  double activation_margin = 0.25;  ///< Euclidean (distance) or d_D (alpha, gap), > 0
  PairSelection selection = PairSelection::all;
  double selection_margin = 1.0;  ///< for PairSelection::initial_path
  int num_threads = 1;            ///< QueryOptions::num_threads of the knot queries
  /// Rows also at this many configurations inside every interval, (1 − t)·q_k + t·q_{k+1} at
  /// t = j/(interval_samples + 1): against passing an obstacle between two knots.
  int interval_samples = 0;
};

/// Discrete dynamics between consecutive knots, the extension point for models with state and
/// controls: f(z_k, z_{k+1}) = 0 for k = 0..N−2, num_residuals rows per interval.
struct Dynamics {
  int num_residuals = 0;
  /// The nonzeros (row, column) of ∂f/∂[z_k; z_{k+1}] (columns 0..2·knot_size−1), the same for
  /// every k; empty: dense.
  std::vector<std::pair<int, int>> sparsity;
  /// Fills r (num_residuals) and, when jacobian_values is not null, the Jacobian's values in the
  /// order of `sparsity` (row-major over the dense block when it is empty).
  std::function<void(int k, const Eigen::Ref<const Eigen::VectorXd>& z_k, const Eigen::Ref<const Eigen::VectorXd>& z_next,
                     Eigen::Ref<Eigen::VectorXd> r, double* jacobian_values)>
      residual;
  /// Optional, for HessianMode::exact: adds Σ_i μ_i ∇²f_i, the second derivatives of the residuals
  /// weighted by their multipliers μ (num_residuals), over [z_k; z_{k+1}] into H (2·knot_size
  /// square, zero on entry; symmetric: only its lower triangle is read). Empty: exact mode refuses
  /// the problem (linear dynamics: a function that adds nothing).
  std::function<void(int k, const Eigen::Ref<const Eigen::VectorXd>& z_k, const Eigen::Ref<const Eigen::VectorXd>& z_next,
                     const Eigen::Ref<const Eigen::VectorXd>& mu, Eigen::Ref<Eigen::MatrixXd> H)>
      hessian;
};

/// A user cost over the whole decision vector x: returns its value and, when grad is not null,
/// adds its gradient into grad (num_variables entries).
using CostFunction = std::function<double(const Eigen::Ref<const Eigen::VectorXd>& x, double* grad)>;

/// One entry of a symmetric matrix over x: value at (row, col) and, off the diagonal, at (col, row).
struct HessianEntry {
  int row = 0, col = 0;
  double value = 0.0;
};
/// The Hessian of a user cost, for HessianMode::exact: appends the entries of weight·∇²c(x) to
/// `out`, each unordered pair (row, col) at most once (a pair given twice adds up). Its entries
/// may couple the knots k and k − j for j ≤ TrajectorySpec::cost_hessian_bandwidth only.
using CostHessian = std::function<void(const Eigen::Ref<const Eigen::VectorXd>& x, double weight, std::vector<HessianEntry>& out)>;

/// What to optimize. Empty bound vectors mean unbounded (a robot's q: its joint limits).
struct TrajectorySpec {
  int num_knots = 20;
  scene::Robot* robot = nullptr;  ///< moves its links through q (its current base pose is kept); in the problem's scene
  std::vector<FreeBody> bodies;   ///< free bodies, after the robot's q in the configuration
  int num_extra_states = 0;
  int num_controls = 0;

  Eigen::VectorXd start, goal;  ///< configurations (num_configuration entries)
  bool fix_goal = true;
  double goal_weight = 100.0;   ///< when !fix_goal
  /// s_0 and s_{N−1} are fixed to these when not empty (num_extra_states entries).
  Eigen::VectorXd start_extra, goal_extra;

  double smoothness_weight = 1.0;
  Eigen::VectorXd coordinate_weights;  ///< W's diagonal (num_configuration entries; empty: ones)
  double control_weight = 0.0;
  std::vector<CostFunction> costs;
  /// For HessianMode::exact: one per cost (an empty function: that cost has none), or empty.
  std::vector<CostHessian> cost_hessians;
  /// The most knots apart that a cost Hessian couples (≥ 1; 2 for a second difference
  /// q_{k+1} − 2q_k + q_{k−1}): the exact Hessian's structure holds the blocks z_k × z_{k−j}, j ≤ it.
  int cost_hessian_bandwidth = 1;
  Dynamics dynamics;  ///< none when num_residuals == 0

  Eigen::VectorXd q_lower, q_upper;              ///< per configuration entry, every knot
  Eigen::VectorXd extra_lower, extra_upper;      ///< per extra state entry
  Eigen::VectorXd control_lower, control_upper;  ///< per control entry

  CollisionConstraints collision;
};

/// The NLP of a TrajectorySpec over a scene, with its fixed set of collision rows. Evaluations
/// move the scene's bodies (the problem keeps a reference: the scene, and the robot, must outlive
/// it). Not safe to use from two threads at once.
class TrajectoryProblem {
 public:
  /// Validates the spec (sizes; NaN anywhere; bounds with lower > upper; start or goal outside
  /// them; unknown, static, repeated free bodies; a collision bound at or above the cap; no
  /// pair to constrain while collision rows are enabled; a start or fixed goal in collision) and
  /// builds the pair set. @throws std::invalid_argument naming the problem.
  TrajectoryProblem(scene::Scene& scene, TrajectorySpec spec);
  ~TrajectoryProblem();
  TrajectoryProblem(TrajectoryProblem&&) noexcept;
  TrajectoryProblem& operator=(TrajectoryProblem&&) noexcept;

  const TrajectorySpec& spec() const;
  scene::Scene& scene();
  /// Sets CollisionConstraints::num_threads, the threads of the knot queries (0: all cores);
  /// the results do not depend on it. @throws std::invalid_argument outside [0, 1024].
  void set_num_threads(int num_threads);
  int num_knots() const;
  int num_configuration() const;  ///< nq: robot positions + free-body coordinates
  int knot_size() const;          ///< nq + num_extra_states + num_controls
  int num_variables() const;      ///< N·knot_size
  int num_dynamics_rows() const;  ///< (N − 1)·num_residuals
  int num_collision_rows() const;
  int num_constraints() const;
  /// The shape pairs (a < b) of the collision rows, the same at every constrained knot.
  const std::vector<std::pair<int, int>>& pairs() const;
  /// The knots with collision rows (those not fixed).
  const std::vector<int>& constrained_knots() const;
  /// The configurations with collision rows, (k, t) for (1 − t)·q_k + t·q_{k+1}, in row order:
  /// row num_dynamics_rows() + i·pairs().size() + p is sample i, pair p. Without
  /// interval_samples, the constrained knots with t = 0.
  const std::vector<std::pair<int, double>>& collision_samples() const;
  /// Index of q_k's first entry (s_k follows at + nq, u_k at + nq + ns).
  int q_index(int k) const { return k * knot_size(); }

  /// Variable bounds and constraint bounds (±inf where unbounded).
  void variable_bounds(Eigen::VectorXd& lower, Eigen::VectorXd& upper) const;
  void constraint_bounds(Eigen::VectorXd& lower, Eigen::VectorXd& upper) const;

  /// Every knot at the start (the seeds' static initial guess), the goal knot at the goal when
  /// fixed; extra states at start_extra (or 0), controls 0.
  Eigen::VectorXd static_guess() const;
  /// q interpolated linearly from start to goal; extra states and controls as static_guess.
  Eigen::VectorXd linear_guess() const;
  /// q resampled at N points equally spaced by length (‖W·Δq‖) along the polyline through the
  /// rows of `waypoints` (e.g. a sampling planner's path from start to goal); extra states and
  /// controls as static_guess; the first knot at the start and, when fixed, the last at the goal.
  /// @throws std::invalid_argument for a matrix without nq columns or rows, or not finite.
  Eigen::VectorXd path_guess(const Eigen::MatrixXd& waypoints) const;

  /// The NLP functions (what Ipopt evaluates), for tests and other solvers.
  double objective(const Eigen::VectorXd& x);
  void objective_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& grad);
  void constraints(const Eigen::VectorXd& x, Eigen::VectorXd& g);
  /// The Jacobian's structure (row, column per nonzero, fixed) and its values at x.
  void jacobian_structure(std::vector<int>& rows, std::vector<int>& cols) const;
  void jacobian_values(const Eigen::VectorXd& x, Eigen::VectorXd& values);
  /// The Jacobian as a dense matrix (tests; small problems).
  Eigen::MatrixXd jacobian_dense(const Eigen::VectorXd& x);
  /// The lower triangle of the Hessian of the built-in objective terms (user costs excluded):
  /// structure and values (constant).
  void objective_hessian_structure(std::vector<int>& rows, std::vector<int>& cols) const;
  void objective_hessian_values(Eigen::VectorXd& values) const;
  /// The exact Hessian of the Lagrangian σ·f + Σ_i λ_i·g_i (HessianMode::exact): built-in objective
  /// terms, the user costs' TrajectorySpec::cost_hessians, the dynamics' Dynamics::hessian and the
  /// collision rows' second derivatives (iDCOL pairs, alpha or gap measure:
  /// idcol::contact_hessians chained through the free bodies' parametrizations and the robot's
  /// forward kinematics; zero where a row is capped). exact_hessian_unsupported() names what the
  /// problem has that this does not cover ("" when everything is): user costs without a Hessian,
  /// dynamics without a Hessian, the distance measure, pairs served by DCOL or QP.
  std::string exact_hessian_unsupported() const;
  /// Lower triangle (row ≥ column), fixed: per knot k its z_k block, the block coupling z_k to
  /// z_{k−1}, then those coupling z_k to z_{k−j}, 2 ≤ j ≤ cost_hessian_bandwidth.
  /// @throws std::invalid_argument when exact_hessian_unsupported() is not empty.
  void lagrangian_hessian_structure(std::vector<int>& rows, std::vector<int>& cols) const;
  /// Values in that order at x with objective factor sigma and multipliers lambda (num_constraints).
  /// @throws std::invalid_argument for a cost Hessian entry out of range or outside the band.
  void lagrangian_hessian_values(const Eigen::VectorXd& x, double sigma, const Eigen::VectorXd& lambda,
                                 Eigen::VectorXd& values);
  /// The whole symmetric matrix (tests; small problems).
  Eigen::MatrixXd lagrangian_hessian_dense(const Eigen::VectorXd& x, double sigma, const Eigen::VectorXd& lambda);
  /// Collision Jacobians by central differences of the rows (step h per coordinate) instead of
  /// the scene's analytic ones (SolveOptions::fd_gradients).
  void set_fd_gradients(bool on, double step = 1e-6);

  /// The configurations of x, one row per knot (N × nq).
  Eigen::MatrixXd configurations(const Eigen::VectorXd& x) const;
  /// Moves the scene's bodies (and the robot) to configuration q.
  void apply_configuration(const Eigen::Ref<const Eigen::VectorXd>& q);
  /// Every scene body's pose at configuration q (the others at their current pose).
  std::vector<Pose> body_poses(const Eigen::Ref<const Eigen::VectorXd>& q);
  /// body_poses at the knots and `subdivisions` − 1 linear interpolations between each pair
  /// (the frames of an animation, write_demo_page).
  std::vector<std::vector<Pose>> animation(const Eigen::MatrixXd& configurations, int subdivisions = 1);

  /// Time and count of the scene queries (with their derivatives and the chain rule, or the
  /// finite differences; the time includes the collision rows' exact Hessians) since construction
  /// or the last reset.
  double collision_seconds() const;
  long collision_queries() const;
  void reset_counters();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

enum class HessianMode : std::uint8_t {
  limited_memory = 0,  ///< Ipopt's L-BFGS (hessian_approximation limited-memory)
  /// The exact Hessian of the Lagrangian, collision rows included
  /// (TrajectoryProblem::lagrangian_hessian_values); solve() throws std::invalid_argument naming
  /// what is not covered when TrajectoryProblem::exact_hessian_unsupported() is not empty.
  /// Sets Ipopt's adaptive barrier update (mu_strategy adaptive) unless string_options say otherwise.
  exact = 1,
  /// The objective's own Hessian (smoothness, goal and control terms; constant), the constraints'
  /// curvature left out: a Gauss–Newton-like model for Ipopt's exact mode. No user costs.
  objective = 2,
};

struct SolveOptions {
  double tolerance = 1e-6;               ///< Ipopt tol
  double acceptable_tolerance = 1e-4;    ///< acceptable_tol
  double constraint_tolerance = 1e-6;    ///< constr_viol_tol
  int max_iterations = 500;
  double max_seconds = 0.0;              ///< max_cpu_time when > 0
  int print_level = 0;
  HessianMode hessian = HessianMode::limited_memory;
  int limited_memory_size = 10;          ///< limited_memory_max_history
  bool fd_gradients = false;             ///< collision Jacobians by central differences
  double fd_step = 1e-6;
  /// Any other Ipopt option, by name.
  std::vector<std::pair<std::string, std::string>> string_options;
  std::vector<std::pair<std::string, double>> numeric_options;
  std::vector<std::pair<std::string, int>> integer_options;
};

struct SolveResult {
  bool success = false;          ///< Solve_Succeeded or Solved_To_Acceptable_Level
  std::string status;            ///< Ipopt's ApplicationReturnStatus name ("Solve_Succeeded", ...)
  std::string message;           ///< what the status means for the trajectory (failures)
  int iterations = 0;
  double objective = 0.0;
  double constraint_violation = 0.0;  ///< max over constraints and bounds (unscaled)
  double wall_s = 0.0;
  double collision_s = 0.0;      ///< in scene queries and their derivatives (or finite differences)
  long collision_queries = 0;
  Eigen::VectorXd x;             ///< the final iterate
  Eigen::MatrixXd configurations;  ///< N × nq
  /// Multipliers for a warm start: constraints, lower and upper bounds.
  Eigen::VectorXd lambda, z_lower, z_upper;
};

/// Solves from x0 (empty: static_guess()). @throws std::invalid_argument for invalid options or
/// an x0 of the wrong size or not finite.
SolveResult solve(TrajectoryProblem& problem, const SolveOptions& options = {}, const Eigen::VectorXd& x0 = {});
/// Warm start from a previous result of the same problem (its iterate and multipliers).
SolveResult solve_warm(TrajectoryProblem& problem, const SolveResult& previous, const SolveOptions& options = {});

/// An independent check of a trajectory: the configurations are interpolated linearly between
/// knots (`subdivisions` samples per interval) and every pair of the check scene is measured by
/// its exact Euclidean distance (Scene::query, euclidean on, margin `margin`), not by the
/// measure the problem constrained.
struct CheckOptions {
  int subdivisions = 10;
  double margin = 1.0;
  /// Another scene with the same bodies (ids) to check in, e.g. exact DCOL shapes where the
  /// problem used smooth iDCOL ones; null: a copy of the problem's scene.
  const scene::Scene* scene = nullptr;
};

struct CheckResult {
  /// The smallest Euclidean distance over samples and pairs (at most `margin` when no pair came
  /// closer); negative when shapes overlap (d_D or the QPs' signed distance).
  double min_distance = 0.0;
  double min_at = 0.0;          ///< where: knot index plus fraction of the interval
  int shape1 = -1, shape2 = -1; ///< the closest pair (-1 when none within the margin)
  int samples = 0;
  int failed_pairs = 0;         ///< pair solves that did not converge
  bool collision_free() const { return min_distance > 0.0 && failed_pairs == 0; }
};

/// @throws std::invalid_argument for configurations of the wrong shape or not finite.
CheckResult check_trajectory(TrajectoryProblem& problem, const Eigen::MatrixXd& configurations,
                             const CheckOptions& options = {});

}  // namespace diffcol::plan
