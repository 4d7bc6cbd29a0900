#pragma once
/// @file dynamics.hpp
/// Rigid-body dynamics under the soft-minimum contact model (SCM, SSDF seed Sec. III-C4):
/// free bodies and kinematically driven bodies, forward dynamics (25), inverse dynamics (24),
/// semi-implicit Euler and RK4 steps, and first and second derivatives of the contact forces
/// and of one step w.r.t. state and control (forward-mode AD over the scalar-generic force and
/// step code).
///
/// Bodies. The body frame of a free body has its origin at the centre of mass; `inertia` is the
/// body-frame rotational inertia about it (symmetric positive definite, kg·m²), `mass` in kg.
/// A body's geometry is an AOPC (oriented point cloud, aopc.hpp, body-frame points) or a sphere of
/// radius r centred at the body origin. Kinematic bodies (e.g. a position-controlled finger) have
/// a pose and velocity that are control inputs; they exert forces but feel none.
///
/// Velocities ("mixed" twists, ordered [ω; v] like diffcol's twists): ω = body-frame angular
/// velocity (rad/s), v = world-frame velocity of the body origin (m/s). Hence Ṙ = R·skew(ω) and
/// ṗ = v, torque-free flight of a body spinning about a principal axis is a constant velocity,
/// and the step reproduces it exactly. (scm.hpp uses body twists; the conversion is internal.)
/// Generalized forces and accelerations of a free body use the same layout: [τ; f] with τ the
/// body-frame torque about the centre of mass (N·m) and f the world-frame force (N); accelerations
/// [ω̇; v̇]. Generalized inertia M = diag(J, m·I), bias c = [ω × Jω; −m·g] (g = scene gravity).
///
/// Contacts (the collision pairs G of eq. (24), declared explicitly):
///  - AOPC–AOPC: SSDF–SSDF contact, eq. (23) (cost O(I1·I2) per evaluation);
///  - sphere–AOPC: point–SSDF contact (21)–(22) of the sphere centre, the plane distances shifted
///    by the radius (φ_i = n_iᵀ(p − p_i) − r), the force on the AOPC body applied at p_i;
///  - ground plane (optional, per free body): for an AOPC body the plane is a one-point AOPC and
///    eq. (23) is applied with the separation field of the body's points only,
///    Λ = Σ_f σ_eps2(−Φ)_f J_fᵀ λ(p_f, v_f, p0, n0), Φ_f = n0ᵀ(p_f − p0); a sphere is one point
///    with the distance shifted by r. Cost O(I).
///  Where the reaction acts (ReactionPoint): the seed's eq. (21) applies −λ to body B at the
///  plane point p_i and uses B's velocity at p_i (ReactionPoint::plane_point, the default, as
///  scm.hpp). Then total linear momentum is conserved exactly but angular momentum only up to
///  Σ w_i (p − p_i) × λ_i (lever ≈ penetration depth). ReactionPoint::query_point applies −λ at p
///  and uses B's velocity at p (both bodies see one contact point): both momenta are conserved.
///  Sphere–sphere and kinematic–kinematic pairs are rejected. All SCM parameters (k, v_d, v_s, μ,
///  ε1, ε2, ε3, weight_cutoff) come from the scene's ScmParameters.
///
/// Culling (point_tree.hpp): the SSDF sums (22) and the ground sum visit only the points whose
/// softmax weight relative to the largest can exceed e^−G, through a bounding-box tree per AOPC
/// built at add_*_body (the forward dynamics scan the leaf boxes flat instead: always for the
/// ground sum, for the point–SSDF sums on clouds of at most 256 leaves, and for queries beyond
/// kFarQueryRatio radii, whose far logits each box bounds by a projection).
/// With weight_cutoff = 0 (default) G = 708: the skipped weights are below
/// 1e-307 of the largest (subnormal or zero in double), so the sums are exact (up to rounding). With weight_cutoff = c > 0,
/// G = −log c: terms below c × (largest weight) are dropped, with their derivatives (the returned
/// derivatives are those of the kept terms, as in scm.hpp). c = 1e-12 leaves the forces of the
/// tests unchanged to ~1e-12 relative while the finger–T contact of planar pushing sums over a few
/// dozen of ~4000 points (docs/ssdf.md has the step times).
/// Ground sum's force cut (clouds of ≥ 1024 points): a term's force W_f λ_f falls with both the
/// weight and the spring softplus k·sp(Φ_f) of eq. (15), so points beyond a gap Δ ≤ G·ε2 above the
/// lowest one add only their weight to Σ W. Δ is the least with W·sp·D ≤ e^−G·sp(Φ_min) beyond
/// it, D a bound of the dissipation factor (16)–(17) over the body: each dropped force is below
/// e^−G × k·sp(Φ_min)·(1 + μ), the spring force of the lowest point (1e-307 of it by default, so
/// the default sums stay exact). A body resting on a face computes about 30% fewer forces.
/// Point–SSDF sums (22): terms with φ_i ≥ ε3·(G + ln D) (D a bound of the dissipation factor
/// from the largest relative speed) add their weight and W φ only; each dropped force is below
/// e^−G × k·ε3·(1 + μ), the force scale of eq. (15). A finger a few centimetres from an object
/// then costs one exp per point within reach instead of the point–plane forces.
///
/// Tangent coordinates (the layout of every Jacobian / Hessian): a free-body pose is perturbed as
/// R ← R·exp(skew(δθ)), p ← p + δp (SO(3) body rotation vector, world translation), written
/// [δθ; δp]. With n free and m kinematic bodies:
///  - state x (dim 12n): [δθ_0; δp_0; …; δθ_{n−1}; δp_{n−1}; ω_0; v_0; …; ω_{n−1}; v_{n−1}];
///  - control u (dim 12m + 6n): [δθ_k; δp_k for each kinematic k; ω_k; v_k for each k; τ_b; f_b
///    for each free b] (kinematic pose tangents, kinematic velocities, applied generalized forces);
///  - z = [x; u]. An output pose is reported in the same chart around its nominal value
///    (δθ = log(R0ᵀR), δp = p − p0).
///  Jacobians are those of y(δz) = x⁺(z0 ⊕ δz) ⊖ x⁺(z0) at δz = 0; Hessians are the second
///  derivatives of the same map (both charts fixed at the nominal point, exponential coordinates).
///  Differentiating the Jacobian returned at a perturbed point z0 ⊕ δz therefore needs the SO(3)
///  right-Jacobian factors of both charts (tests/test_ssdf_dynamics.cpp shows the conversion).
///
/// Integrators (seed Sec. IV-B compares "Euler" and "RK4"): step_euler is semi-implicit
/// (symplectic) Euler, the choice of MuJoCo/MJX whose Euler the seed compares against:
/// v⁺ = v + h·v̇(q, v, u), R⁺ = R·exp(h·ω⁺), p⁺ = p + h·v⁺. step_rk4 is the classical RK4 tableau
/// in Runge–Kutta–Munthe-Kaas form on SO(3) × R³ (stage rotations R·exp(θ_i), dexp⁻¹ truncated
/// after the second commutator: 4th order). During a step a kinematic body moves with its
/// control velocity held constant: R_k(s) = R_k·exp(s·ω_k), p_k(s) = p_k + s·v_k.
///
/// Allocation: the force, dynamics and step functions allocate nothing (fixed capacities below;
/// the point sums are streamed with an online softmax). Derivative functions allocate nothing
/// either, except step_hessian_tensor.
///
/// Derivatives: Jacobians by one forward-mode pass with kMaxDerivativeDim directions, in which the
/// per-point sums are differentiated in local coordinates (δθ, p, ω, v of the bodies they depend
/// on: 12 for the ground term, 24 for a pair) and mapped to the dim(z) directions once per term
/// by the chain rule; Hessians by dim(z) forward-over-forward passes (each gives one row of the
/// Hessian of every output). Their cost is ~12–24 (Jacobian) and ~2·dim(z)·kMaxDerivativeDim
/// (Hessian) times a plain evaluation. The SCM forces are C² except where v_n/v_d ∈ {0, 2} (scm.hpp).

#include <array>
#include <memory>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/point_tree.hpp"
#include "diffcol/ssdf/scm.hpp"

namespace diffcol::ssdf {

inline constexpr int kMaxFreeBodies = 4;        ///< capacity of free bodies per scene
inline constexpr int kMaxKinematicBodies = 4;   ///< capacity of kinematic bodies per scene
inline constexpr int kMaxContactPairs = 16;     ///< capacity of declared collision pairs
inline constexpr int kMaxDerivativeDim = 36;    ///< largest dim(z) = dim(x) + dim(u) for derivatives
/// The largest time step the step functions accept (s). State entries (positions, velocities,
/// applied wrenches), masses, inertia entries and radii must be at most kMaxLength = 1e100 in
/// magnitude; every function that takes a state checks this and throws std::invalid_argument.
inline constexpr double kMaxStepSize = 1e3;

inline constexpr int kMaxStateDim = 12 * kMaxFreeBodies;
inline constexpr int kMaxControlDim = 12 * kMaxKinematicBodies + 6 * kMaxFreeBodies;
inline constexpr int kMaxGeneralizedDim = 6 * kMaxFreeBodies;

/// Dynamic-size vectors / matrices with compile-time capacity (no heap allocation).
using GenVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxGeneralizedDim, 1>;
using StateVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxStateDim, 1>;
using ZVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxDerivativeDim, 1>;
using GenByZ = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxGeneralizedDim, kMaxDerivativeDim>;
using StateByZ = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxStateDim, kMaxDerivativeDim>;
using ZByZ = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxDerivativeDim, kMaxDerivativeDim>;

/// Collision geometry of a body (body frame).
struct Geometry {
  std::shared_ptr<const OrientedPointCloud> cloud;  ///< AOPC, or null for a sphere
  double radius = 0.0;                              ///< sphere radius (m), used when cloud is null
  static Geometry point_cloud(std::shared_ptr<const OrientedPointCloud> c) { return {std::move(c), 0.0}; }
  static Geometry sphere(double r) { return {nullptr, r}; }
  bool is_sphere() const { return cloud == nullptr; }
};

/// A free rigid body (origin at its centre of mass).
struct FreeBodySpec {
  double mass = 1.0;                 ///< kg, > 0
  Mat3 inertia = Mat3::Identity();   ///< body-frame inertia about the COM, SPD, kg·m²
  Geometry geometry;                 ///< collision geometry
  bool ground_contact = true;        ///< collides with the ground plane (if the scene has one)
};

/// A kinematically driven body (its pose and velocity are control inputs).
struct KinematicBodySpec {
  Geometry geometry;
};

/// A body handle: free body `index` or kinematic body `index`.
struct BodyId {
  bool kinematic = false;
  int index = 0;
  static BodyId free(int i) { return {false, i}; }
  static BodyId driven(int i) { return {true, i}; }
};

/// The ground plane {x : nᵀ(x − point) = 0}, free space on the side of n.
struct GroundPlane {
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();  ///< normalized at set_ground
};

/// Where the reaction force on the AOPC body of a point–SSDF contact acts (file comment).
enum class ReactionPoint { plane_point, query_point };

/// A scene: bodies, collision pairs, optional ground, gravity and SCM parameters.
/// Build it once (the add_* / set_* calls validate and throw std::invalid_argument), then query.
class Scene {
 public:
  /// @throws std::invalid_argument on invalid parameters or non-finite gravity.
  explicit Scene(const ScmParameters& params = {}, const Vec3& gravity = Vec3(0.0, 0.0, -9.81));

  /// Adds a free body; returns its index. @throws std::invalid_argument on mass ≤ 0 or non-finite,
  /// inertia not symmetric positive definite, a null/empty cloud and radius ≤ 0, or capacity.
  int add_free_body(const FreeBodySpec& spec);
  /// Adds a kinematic body; returns its index. @throws as above (geometry) or on capacity.
  int add_kinematic_body(const KinematicBodySpec& spec);
  /// Declares the collision pair (a, b) (eq. (24)'s G). @throws std::invalid_argument on unknown
  /// ids, a == b, two kinematic bodies, two spheres, a repeated pair, or capacity.
  void add_contact_pair(BodyId a, BodyId b);
  /// Enables the ground plane. @throws std::invalid_argument on a non-finite point or a normal
  /// shorter than 1e-12.
  void set_ground(const GroundPlane& ground);
  void clear_ground() { has_ground_ = false; }
  /// @throws std::invalid_argument on invalid parameters.
  void set_parameters(const ScmParameters& params);
  void set_gravity(const Vec3& g);
  void set_reaction_point(ReactionPoint r) { reaction_ = r; }
  ReactionPoint reaction_point() const { return reaction_; }

  int num_free() const { return static_cast<int>(free_.size()); }
  int num_kinematic() const { return static_cast<int>(kinematic_.size()); }
  int state_dim() const { return 12 * num_free(); }
  int control_dim() const { return 12 * num_kinematic() + 6 * num_free(); }
  int generalized_dim() const { return 6 * num_free(); }
  const FreeBodySpec& free_body(int i) const { return free_[static_cast<size_t>(i)]; }
  const KinematicBodySpec& kinematic_body(int i) const { return kinematic_[static_cast<size_t>(i)]; }
  const std::vector<std::array<BodyId, 2>>& contact_pairs() const { return pairs_; }
  bool has_ground() const { return has_ground_; }
  const GroundPlane& ground() const { return ground_; }
  const ScmParameters& parameters() const { return params_; }
  const Vec3& gravity() const { return gravity_; }
  /// Inverse inertias (cached at add_free_body).
  const Mat3& inverse_inertia(int i) const { return inv_inertia_[static_cast<size_t>(i)]; }
  /// The point tree of a body's AOPC (built at add_*_body), null for a sphere.
  const PointTree* point_tree(BodyId id) const {
    return (id.kinematic ? kinematic_tree_ : free_tree_)[static_cast<size_t>(id.index)].get();
  }

 private:
  std::vector<FreeBodySpec> free_;
  std::vector<Mat3> inv_inertia_;
  std::vector<KinematicBodySpec> kinematic_;
  std::vector<std::shared_ptr<const PointTree>> free_tree_, kinematic_tree_;
  std::vector<std::array<BodyId, 2>> pairs_;
  GroundPlane ground_;
  bool has_ground_ = false;
  ScmParameters params_;
  Vec3 gravity_;
  ReactionPoint reaction_ = ReactionPoint::plane_point;
};

/// Pose and mixed twist [ω; v] (see the file comment) of each free body.
struct State {
  int num_bodies = 0;
  std::array<Pose, kMaxFreeBodies> pose{};
  std::array<Vec6, kMaxFreeBodies> velocity{};
  /// A state for `scene` with identity poses and zero velocities.
  static State zeros(const Scene& scene);
};

/// Pose and mixed twist of each kinematic body, and an applied generalized force [τ; f] (file
/// comment) on each free body.
struct Control {
  int num_kinematic = 0, num_free = 0;
  std::array<Pose, kMaxKinematicBodies> pose{};
  std::array<Vec6, kMaxKinematicBodies> velocity{};
  std::array<Vec6, kMaxFreeBodies> wrench{};
  /// Identity poses, zero velocities and wrenches, sized for `scene`.
  static Control zeros(const Scene& scene);
};

/// Total generalized SCM contact force Σ_(a,b)∈G Λ_ab (eq. (24)) on the free bodies, 6n entries
/// [τ_0; f_0; …]. @throws std::invalid_argument on a state/control not sized for the scene or
/// non-finite entries.
GenVec contact_forces(const Scene& scene, const State& x, const Control& u);

/// Forward dynamics, eq. (25): v̇ = M⁻¹(τ − c + ΣΛ), τ = u.wrench. 6n entries [ω̇_0; v̇_0; …].
GenVec forward_dynamics(const Scene& scene, const State& x, const Control& u);

/// Inverse dynamics, eq. (24): the generalized force τ = M·v̇ + c − ΣΛ that produces the
/// accelerations `acceleration` (6n entries); u.wrench is ignored.
GenVec inverse_dynamics(const Scene& scene, const State& x, const Control& u, const GenVec& acceleration);

/// One semi-implicit Euler step of length h (s, > 0). @throws std::invalid_argument as above or on h.
State step_euler(const Scene& scene, const State& x, const Control& u, double h);
/// One RK4 (Munthe-Kaas) step of length h.
State step_rk4(const Scene& scene, const State& x, const Control& u, double h);

enum class Integrator { euler, rk4 };

/// Steps with the chosen integrator.
State step(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator);

/// The tangent difference x1 ⊖ x0 (layout of x, see the file comment).
/// @throws std::invalid_argument on different sizes or a non-finite pose or velocity.
StateVec state_difference(const State& x1, const State& x0);
/// x ⊕ dx (inverse of state_difference).
/// @throws std::invalid_argument on a wrong size of dx or a non-finite entry.
State state_retract(const State& x, const StateVec& dx);

/// Contact forces and their Jacobian w.r.t. z = [x; u].
struct ContactForceJacobian {
  GenVec forces;      ///< ΣΛ (6n)
  GenByZ J_forces_z;  ///< ∂ΣΛ/∂z (6n × dim z)
};
/// @throws std::invalid_argument as contact_forces, or if dim z > kMaxDerivativeDim.
ContactForceJacobian contact_force_jacobian(const Scene& scene, const State& x, const Control& u);

/// Second derivatives of the contraction wᵀΣΛ of the contact forces.
struct ContactForceHessian {
  GenVec forces;      ///< ΣΛ
  GenByZ J_forces_z;  ///< ∂ΣΛ/∂z
  ZByZ H_z;           ///< ∂²(wᵀΣΛ)/∂z² (symmetric up to rounding)
};
/// @param weights 6n weights w. @throws std::invalid_argument on wrong sizes or dim z too large.
ContactForceHessian contact_force_hessian(const Scene& scene, const State& x, const Control& u,
                                          const GenVec& weights);

/// One step and its Jacobian: x⁺ and ∂x⁺/∂z, x⁺ in the chart around its value.
struct StepJacobian {
  State next;
  StateByZ J_next_z;  ///< ∂x⁺/∂z (12n × dim z); columns [0, 12n) are ∂x⁺/∂x, the rest ∂x⁺/∂u
};
StepJacobian step_jacobian(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator);

/// One step, its Jacobian and the Hessian of a scalar loss ℓ = wᵀ(x⁺ ⊖ x⁺_0) (x⁺_0 = the
/// nominal next state): what DDP / second-order trajectory optimization needs (the dynamics
/// Hessian contracted with the value-function gradient).
struct StepHessian {
  State next;
  StateByZ J_next_z;  ///< ∂x⁺/∂z
  ZByZ H_z;           ///< ∂²ℓ/∂z²
};
/// @param weights 12n weights w on the tangent of x⁺.
StepHessian step_hessian(const Scene& scene, const State& x, const Control& u, double h, Integrator integrator,
                         const StateVec& weights);

/// Full second-derivative tensor of the step: entry o is ∂²x⁺_o/∂z² (12n matrices dim z × dim z).
/// Allocates the returned vector.
std::vector<Eigen::MatrixXd> step_hessian_tensor(const Scene& scene, const State& x, const Control& u, double h,
                                                 Integrator integrator);

}  // namespace diffcol::ssdf
