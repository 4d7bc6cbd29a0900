#pragma once
/// @file time_stepping.hpp
/// Complementarity-based time stepping for free DCOL bodies (DCOL seed Sec. IV-B, Fig. 6):
/// every step solves for the velocities of the step and one contact impulse per close pair with
/// the constraint α_ij(q_{k+1}) ≥ 1 at the end of the step (docs/sim-time-stepping.md).
///
/// Bodies: a DCOL primitive on a frame B at the centre of mass (the primitive's own offset is
/// X_BS), with mass m and inertia I_B about the centre of mass, or static. State per body: a
/// BodyState (rigid_body.hpp); static bodies keep their pose.
///
/// Discretization (per dynamic body, step h): the step velocities ν = (ω̂_B, v̂_W) define
///   R_{k+1} = R_k·F,  F = exp(h ω̂^),        p_{k+1} = p_k + h v̂,
/// the Lie-group variational integrator of the rotation (the discrete Euler–Lagrange equations
/// of a free rigid body) and symplectic Euler for the translation:
///   φ(ω̂) = I ω_k + τ,   φ(ω̂) = vee(F J_d − J_d Fᵀ)/h,  J_d = ½ tr(I)·1 − I,
///   m (v̂ − v_k) = m g h + f,
///   v_{k+1} = v̂,  ω_{k+1} = I⁻¹ Fᵀ φ(ω̂),
/// where (τ, f) = Σ_c λ_c ∇_ν c_c are the contact impulses of the constraints
/// c_c(ν) = (α_c(q_{k+1}(ν)) − 1)/h ≥ 0 (one per pair the broad phase passes), with
///   λ ≥ 0,  c(ν) ≥ 0,  λ_c c_c = 0  (perfectly inelastic; Coulomb friction optional, below).
/// ∇_ν α comes from dcol::contact_derivatives. The problem is solved by a primal–dual
/// interior-point method (Mehrotra predictor–corrector) on the slack form c(ν) − s = 0,
/// s∘λ = σμ, with Newton matrices blockdiag(dφ, m·1) + Gᵀ S⁻¹Λ G (the O(h²) curvature term
/// Σ λ ∇²α is left out of the iteration, not out of the residual: the solution is exact).
///
/// Tangent coordinates of a state (derivatives; dynamic bodies in id order, 12 each):
/// [δθ (body axes, R ← R·exp(δθ^)), δp (world), δv (world), δω (body axes)] (retract()).
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "diffcol/dcol/primitives.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/sim/rigid_body.hpp"

namespace diffcol::scene {
class Scene;
}

namespace diffcol::sim {

struct TimeSteppingOptions {
  double dt = 0.01;                  ///< step h (> 0, finite); 100 Hz by default
  Vec3 gravity = Vec3::Zero();       ///< e.g. (0, 0, −9.81)
  /// Broad phase: pairs whose bounding boxes come within this distance (plus the distance the
  /// bodies can cover in one step at their start velocities) get a constraint (≥ 0).
  double margin = 0.05;
  int max_iterations = 200;          ///< interior-point iterations per step (≥ 1)
  /// Convergence: ‖dynamics residual‖_∞ ≤ tolerance·(1 + ‖momentum‖_∞), |α − 1 − h s| ≤
  /// tolerance·… per constraint (in α), and the complementarity μ ≤ tolerance·(1 + ‖λ‖_∞)/h.
  double tolerance = 1e-12;
  /// A step that does not converge is retried as 2, 4, … substeps of dt/2, dt/4, … up to this
  /// many (a power of two ≥ 1; 1: no retry). StepReport::substeps says what a step took.
  int max_substeps = 32;
  /// A state whose pairs have α < 1 − penetration_tolerance is refused (bodies interpenetrate).
  double penetration_tolerance = 1e-6;
  /// Coulomb friction μ ≥ 0 (0: frictionless, the default). Each contact of a step gets the
  /// tangential impulse of the smoothed cone −μ P_n w_t / √(‖w_t‖² + ε²) (w_t: the tangential
  /// velocity of the contact point of body b relative to body a over the step, implicit in ν;
  /// P_n: the pair's normal impulse), with P_n and the contact frame fixed in each solve and
  /// updated over passes until P_n settles (docs/sim-time-stepping.md). Rollout Jacobians with
  /// friction differentiate the fixed point of those passes (the contact data as functions of the
  /// step's solution): exact to the degree the passes settled (friction_tolerance).
  double friction = 0.0;
  double friction_slip_velocity = 1e-2;  ///< ε (> 0, length / time): the sticking creep speed scale
  int friction_passes = 30;              ///< at most this many solves per step with friction (≥ 1)
  /// The normal impulses have settled when no μP_n changes by more than this fraction of the
  /// largest (rollout Jacobians with friction: 1e-12 makes them those of the settled step).
  double friction_tolerance = 1e-3;
  /// @throws std::invalid_argument naming the field out of range.
  void validate() const;
};

/// One step's outcome.
struct StepReport {
  bool converged = false;
  int iterations = 0;           ///< interior-point iterations (all passes of the broad-phase check)
  int substeps = 1;             ///< 1, or the substeps of a retried step
  double residual = 0.0;        ///< the largest scaled residual at the returned iterate
  double min_alpha = 0.0;       ///< min α over the step's pairs at q_{k+1} (+∞ when none)
  int pairs = 0;                ///< constraints of the step
  int active = 0;               ///< constraints with λ > s (in contact)
  double max_impulse = 0.0;     ///< max λ
  double collision_seconds = 0.0;  ///< wall time in DCOL solves and derivatives
  std::string message;          ///< why it failed ("" when converged)
};

/// A rollout: states[0] the initial state, states[k] after k steps.
struct Rollout {
  std::vector<std::vector<BodyState>> states;
  std::vector<StepReport> reports;
  bool converged = false;       ///< every step converged (a failed step ends the rollout)
  /// d x_N / d x_0 in tangent coordinates (when requested): the implicit function theorem on each
  /// step's converged KKT system, chained over the steps.
  Eigen::MatrixXd jacobian;
};

class TimeStepper {
 public:
  explicit TimeStepper(const TimeSteppingOptions& options = {});
  ~TimeStepper();
  TimeStepper(TimeStepper&&) noexcept;
  TimeStepper& operator=(TimeStepper&&) noexcept;
  TimeStepper(const TimeStepper&) = delete;
  TimeStepper& operator=(const TimeStepper&) = delete;

  /// A free body (frame at its centre of mass) carrying `shape` (mounted at the shape's offset).
  /// Returns its id. @throws std::invalid_argument for mass ≤ 0 or not finite, or an inertia that
  /// is not symmetric positive definite.
  int add_body(const dcol::Primitive& shape, double mass, const Mat3& inertia_B, std::string name = "");
  /// A static body (its pose comes with the state). Returns its id.
  int add_static_body(const dcol::Primitive& shape, std::string name = "");
  /// Pairs of bodies a and b get no constraint.
  void disable_pair(int a, int b);

  int num_bodies() const;
  int num_dynamic() const;
  /// 12·num_dynamic(): the tangent dimension of a state.
  int tangent_dimension() const { return 12 * num_dynamic(); }
  bool is_static(int body) const;
  double mass(int body) const;
  const Mat3& inertia(int body) const;
  const dcol::Primitive& shape(int body) const;
  const std::string& name(int body) const;
  const TimeSteppingOptions& options() const;
  void set_options(const TimeSteppingOptions& options);
  /// A scene of the bodies (one DCOL shape per body, body ids alike) for the broad phase and pages.
  const scene::Scene& scene() const;

  /// @throws std::invalid_argument for a state of the wrong size, a non-finite or invalid entry,
  /// or a pair of bodies interpenetrating (α < 1 − penetration_tolerance; names both bodies).
  void check_state(const std::vector<BodyState>& state);
  /// One step in place. On failure `state` is left unchanged and the report says why.
  /// With `jacobian`, also d x_{k+1} / d x_k (tangent coordinates) on success.
  /// @throws std::invalid_argument as check_state.
  StepReport step(std::vector<BodyState>& state, Eigen::MatrixXd* jacobian = nullptr);
  /// `steps` steps from `initial` (checked as check_state); stops at the first failed step.
  Rollout rollout(const std::vector<BodyState>& initial, int steps, bool jacobian = false);

  /// state ⊕ delta in the tangent coordinates above (delta of size tangent_dimension()).
  void retract(std::vector<BodyState>& state, const Eigen::VectorXd& delta) const;
  /// α of every pair of bodies that may touch (not both static, not disabled), with a < b.
  struct PairAlpha {
    int a = -1, b = -1;
    double alpha = 0.0;
    bool ok = false;
  };
  std::vector<PairAlpha> all_pair_alphas(const std::vector<BodyState>& state) const;
  /// Σ m v (dynamic bodies) and Σ (p × m v + R I ω) about the world origin, and Σ kinetic energy.
  Vec3 linear_momentum(const std::vector<BodyState>& state) const;
  Vec3 angular_momentum(const std::vector<BodyState>& state) const;
  double kinetic_energy(const std::vector<BodyState>& state) const;

  struct Impl;

 private:
  Impl* impl_;
  StepReport step_once(std::vector<BodyState>& state, Eigen::MatrixXd* jacobian);
};

/// The scene of the DCOL seed's Fig. 6: twelve primitives (two boxes, a cylinder, a capsule, two
/// cones, a sphere, an ellipsoid, two polytope hulls, two padded polygons) of uniform density
/// 10 kg/m³ (mass_properties(); sizes 0.3 to 1 m, masses 0.37 to 1.4 kg), at random positions 4 to 5 m from
/// the origin, moving towards points near the origin so that they meet at about t = 2, with small
/// random spins. No gravity. `initial` receives the initial state.
TimeStepper twelve_primitives(std::vector<BodyState>& initial, unsigned seed = 1,
                              const TimeSteppingOptions& options = {});

}  // namespace diffcol::sim
