#pragma once
/// @file penalty.hpp
/// Rigid multibody simulation with penalty contact (iDCOL seed Sec. VII-B): free bodies carrying
/// iDCOL shapes, Newton–Euler dynamics, Hertz contact (31)–(32) between the scene's close pairs,
/// optional Hunt–Crossley damping and regularized Coulomb friction, integrated by SUNDIALS
/// CVODES (BDF, Newton iterations, dense linear solver) with the analytic Jacobian of the
/// right-hand side (wrench Jacobians (B40)–(B44) chained through the kinematics) or CVODES'
/// difference quotients; forward sensitivities for differentiable rollouts. docs/sim.md.
///
/// State of one free body (13 numbers, rigid_body.hpp): [p (3), q = (w, x, y, z) (4), v_W (3),
/// ω_B (3)]; the rotation is R(q/‖q‖), so the dynamics do not depend on ‖q‖ (which the exact
/// flow keeps constant; outputs are normalized). The state vector of a system stacks the free
/// (non-static) bodies in scene body order.
///
/// Contact of shapes S1 (body a) and S2 (body b), from the iDCOL solve of the pair: gap d_D (30),
/// point x* and normal n̂ (out of S1) in world axes, δ = −d_D. With u_i(x) = v_i + ω_i × (x − p_i)
/// the velocity of body i's point at x*, w = u_b − u_a, δ̇ = −n̂·w (approach speed):
///   f_n = k δ^p                                   (31), δ > 0, else 0
///   f_N = max(0, f_n (1 + d δ̇))                   Hunt–Crossley, d ≥ 0 (0: elastic)
///   w_t = (I − n̂n̂ᵀ) w,  f_t = μ f_N w_t / √(‖w_t‖² + ε²)   regularized Coulomb, μ ≥ 0
///   force on body a at x*: F = −f_N n̂ + f_t;  on body b at x*: −F   (32)
/// Action and reaction act at the same point: linear and angular momentum are conserved.
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "diffcol/scene/scene.hpp"
#include "diffcol/sim/rigid_body.hpp"

namespace diffcol::sim {

/// The contact law (file comment). Every field is checked by validate().
struct ContactModel {
  double stiffness = 1e4;       ///< k > 0 (force / length^p)
  double exponent = 1.5;        ///< p ≥ 1 (Hertz: 1.5); p > 1 makes f_n C¹ in δ
  double damping = 0.0;         ///< Hunt–Crossley d ≥ 0 (time / length)
  double friction = 0.0;        ///< Coulomb μ ≥ 0
  double slip_velocity = 1e-3;  ///< ε > 0 of the regularized friction (length / time)
  /// @throws std::invalid_argument naming the field out of range.
  void validate() const;
};

/// How the Jacobian of the right-hand side reaches CVODES' Newton iterations.
enum class JacobianMode { analytic = 0, finite_difference = 1 };

/// The direct solver of CVODES' Newton systems (I − γJ)x = b; both are exact.
enum class LinearSolverKind {
  /// One dense LU per group of bodies coupled by contacts (the connected components of the
  /// nonzero 13 × 13 blocks of J): free bodies cost 13³, a cluster of m bodies (13m)³.
  dense_blocks = 0,
  dense = 1,  ///< SUNDIALS' dense LU of the whole matrix (SUNLinSol_Dense)
  /// KLU's sparse LU (SUNLinSol_KLU) of the Jacobian's nonzero 13 × 13 blocks and the diagonal,
  /// re-analysed at every Jacobian evaluation (the contact graph changes); analytic Jacobian only.
  sparse = 2,
};

struct SimOptions {
  double rtol = 1e-6;     ///< relative tolerance (> 0)
  double atol = 1e-8;     ///< absolute tolerance (> 0)
  /// Largest step (≥ 0). 0: automatic, the time for two bodies to close the broad-phase margin
  /// (0.1 × the smallest shape radius if the margin is 0) at twice the largest body-point speed,
  /// re-estimated every 25 such steps: a free flight has no integration error, and without a
  /// bound BDF's steps grow until they jump over a collision.
  double max_step = 0.0;
  long max_steps = 50000; ///< internal steps per output interval (≥ 1)
  int max_order = 5;      ///< BDF order, 1..5
  JacobianMode jacobian = JacobianMode::analytic;
  LinearSolverKind linear_solver = LinearSolverKind::dense_blocks;
  /// Broad-phase margin (≥ 0): pairs whose bounding boxes are closer than this keep their
  /// warm starts. Any margin is exact: a pair outside the broad phase has zero force.
  double margin = 0.1;
  /// A pair penetrating at t = 0 (d_D < 0) is an error unless this is set.
  bool allow_initial_penetration = false;
  /// After each step's Newton solve, project the velocities onto the total linear and angular
  /// momentum of t0 (the smallest correction in the kinetic-energy metric, a common twist of all
  /// bodies; CVODES' projection, also applied to the error estimate). Applied only where momentum
  /// is an invariant: no static body and zero gravity. Not in simulate_sensitivities().
  bool project_momentum = true;
  /// Most steps between two setups of the Newton matrix and between two Jacobian evaluations
  /// (CVodeSetLSetupFrequency, CVodeSetJacEvalFrequency; ≥ 0, 0: CVODES' defaults 20 and 51).
  long jacobian_frequency = 0;
  /// @throws std::invalid_argument naming the field out of range.
  void validate() const;
};

/// Counters of one integration.
struct SimStats {
  long steps = 0;              ///< internal steps taken
  long rhs_evaluations = 0;    ///< right-hand side calls by the integrator (not for the Jacobian)
  long jacobian_evaluations = 0;
  long fd_rhs_evaluations = 0; ///< right-hand side calls spent on difference-quotient Jacobians
  long newton_iterations = 0;
  long error_test_failures = 0;
  long convergence_failures = 0;
  long contact_solves = 0;     ///< iDCOL pair solves
  /// Pair blocks of the analytic Jacobian taken by central differences of the pair's wrench
  /// because its contact derivatives were not available (ill-conditioned: flat faces nearly parallel)
  long fd_pair_jacobians = 0;
  double wall_s = 0.0;         ///< whole integration
  double cpu_s = 0.0;          ///< processor time of the process over the integration (std::clock)
  double collision_s = 0.0;    ///< in the broad and narrow phases (values and derivatives)
  double max_penetration = 0.0;  ///< largest δ over the integrator's right-hand side evaluations
};

struct SimResult {
  bool success = false;
  std::string message;                       ///< empty on success; the failure otherwise
  std::vector<double> times;                 ///< output times reached (t0 first)
  std::vector<std::vector<BodyState>> states;  ///< per output time, one state per scene body
  double final_time = 0.0;                   ///< last time with a good state (= times.back() on success)
  std::vector<BodyState> final_state;        ///< the state at final_time (the last good one on failure)
  Eigen::VectorXd final_y;                   ///< the same as a raw state vector (q not normalized)
  SimStats stats;
};

/// Sensitivities of the final state with respect to the initial state and the stiffness k.
struct SensitivityResult {
  bool success = false;
  std::string message;
  double final_time = 0.0;
  Eigen::VectorXd final_state;  ///< y(T), raw state vector (q not normalized)
  Eigen::MatrixXd d_initial;    ///< ∂y(T)/∂y(0), n × n
  Eigen::VectorXd d_stiffness;  ///< ∂y(T)/∂k
  SimStats stats;
  /// ∂L/∂y(0) and ∂L/∂k of a loss L(y(T)) from its gradient g = ∂L/∂y(T).
  Eigen::VectorXd gradient_initial(const Eigen::VectorXd& g) const { return d_initial.transpose() * g; }
  double gradient_stiffness(const Eigen::VectorXd& g) const { return d_stiffness.dot(g); }
};

/// Total linear momentum Σ m v, angular momentum about the world origin Σ (p × m v + R I ω_B),
/// kinetic energy and the gravity potential −Σ m gᵀp of the free bodies.
struct SystemInvariants {
  Vec3 linear = Vec3::Zero();
  Vec3 angular = Vec3::Zero();
  double kinetic = 0.0;
  double potential = 0.0;
  /// Σ ‖m p × v‖ + ‖R I ω‖ + ‖m v‖ over bodies: a scale for relative momentum errors.
  double momentum_scale = 0.0;
};

/// A scene of free and static bodies with shapes and the penalty contact between them.
class PenaltySystem {
 public:
  /// @param scene bodies (free or static) with iDCOL shapes (or shapes with an exact iDCOL
  ///        representation: spheres, ellipsoids); body frames at the centres of mass.
  /// @param mass one per scene body: mass > 0, com = 0 (the body frame is at the centre of mass),
  ///        inertia symmetric positive definite; ignored for static bodies.
  /// @throws std::invalid_argument on a size mismatch, bad mass properties, a shape without an
  ///         iDCOL form, or an invalid model.
  PenaltySystem(scene::Scene scene, std::vector<MassProperties> mass, ContactModel model = {},
                Vec3 gravity = Vec3::Zero());
  ~PenaltySystem();
  PenaltySystem(PenaltySystem&&) noexcept;
  PenaltySystem& operator=(PenaltySystem&&) noexcept;

  int num_bodies() const;       ///< scene bodies
  int num_free() const;         ///< free bodies
  int state_size() const { return 13 * num_free(); }
  const scene::Scene& scene() const;
  const ContactModel& model() const;
  /// @throws std::invalid_argument if the model is invalid.
  void set_model(const ContactModel& model);
  const Vec3& gravity() const;
  const MassProperties& mass(int body) const;

  /// One state per scene body (static entries ignored) → the state vector.
  /// @throws std::invalid_argument on a size mismatch or a non-finite / invalid state.
  Eigen::VectorXd pack(const std::vector<BodyState>& states) const;
  /// The state vector → one state per scene body (static bodies: their scene pose, at rest).
  std::vector<BodyState> unpack(const Eigen::VectorXd& y) const;
  SystemInvariants invariants(const Eigen::VectorXd& y) const;

  /// ẏ = f(y). @throws std::runtime_error if a pair solve fails, std::invalid_argument on a
  /// wrong size or a non-finite state.
  void rhs(const Eigen::VectorXd& y, Eigen::VectorXd& ydot);
  /// The contact part of f divided by k: ∂f/∂k (the law is linear in k).
  void rhs_stiffness_derivative(const Eigen::VectorXd& y, Eigen::VectorXd& dfdk);
  /// The analytic ∂f/∂y (n × n).
  void rhs_jacobian(const Eigen::VectorXd& y, Eigen::MatrixXd& J);
  /// Largest penetration δ over the pairs at y (0 when none).
  double max_penetration(const Eigen::VectorXd& y);

  /// Integrates from `initial` (one state per scene body) at t0 = output_times.front() through
  /// the output times (increasing). Never throws on a failing step: success = false, the
  /// message and the last good state are reported.
  /// @throws std::invalid_argument on bad input (sizes, NaN, non-increasing times, options,
  ///         bodies interpenetrating at t0 unless allowed).
  SimResult simulate(const std::vector<BodyState>& initial, const std::vector<double>& output_times,
                     const SimOptions& options = {});
  /// The same from a raw state vector (pack(); any ‖q‖ > 0).
  SimResult simulate(const Eigen::VectorXd& y0, const std::vector<double>& output_times,
                     const SimOptions& options = {});
  /// Integrates from `initial` over [0, duration] with CVODES forward sensitivities (the
  /// analytic sensitivity right-hand side J·s + ∂f/∂p, staggered corrector, sensitivities in the
  /// error test) with respect to every entry of y(0) and to k.
  SensitivityResult simulate_sensitivities(const std::vector<BodyState>& initial, double duration,
                                           const SimOptions& options = {});
  SensitivityResult simulate_sensitivities(const Eigen::VectorXd& y0, double duration,
                                           const SimOptions& options = {});

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace diffcol::sim
