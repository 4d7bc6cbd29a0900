#pragma once
/// @file manifold_contact.hpp
/// Rigid bodies in contact through Contax manifolds (manifold/manifold.hpp; seed supplementary
/// I-B): free and static bodies each carry a ContactObject (mesh + SDF); every registered pair
/// computes its manifold at every step, and each manifold entry k acts as a penalty contact
/// weighted by its activity Γ_k. Semi-implicit Euler time stepping with an exact forward-mode
/// (tangent) derivative of the rollout through the manifold's pose derivatives. docs/sim.md.
///
/// Contact law of one entry (point x, distance d, normal n out of the other body, activity Γ;
/// the entry belongs to body "own" and pushes it along n):
///   ψ(d)  = s·log(1 + exp(−d/s))          smooth penetration depth (→ max(0, −d) as s → 0)
///   δ̇     = −nᵀ(u_own(x) − u_other(x))     approach speed, u_i(x) = v_i + ω_i × (x − p_i)
///   f_N   = k Γ ψ(d) · max(0, 1 + c δ̇)     Hunt–Crossley damping c ≥ 0
///   w_t   = (I − nnᵀ)(u_own − u_other),  f_t = −μ f_N w_t / √(‖w_t‖² + ε²)
///   force on own at x: f_N n + f_t; on other at x: the opposite.
/// Culled entries (ManifoldOptions::culling) have Γ = 0 exactly and apply nothing.
///
/// Time step h (per free body; ω in world axes, I_W = R I_B Rᵀ):
///   v⁺ = v + h (g + F/m),   ω⁺ = ω + h I_W⁻¹(τ − ω × I_W ω),
///   p⁺ = p + h v⁺,          R⁺ = exp(h ω⁺^) R.
/// (F, τ about the centre of mass) are the contact wrenches at the start of the step.
///
/// Bodies: the state is a BodyState (rigid_body.hpp) of the centre-of-mass frame B; the object is
/// mounted at X_BO (mass properties given in the object's frame O: X_BO = (I, −com)).
/// Tangent coordinates of a state (free bodies in id order, 12 each), all in world axes:
/// [δθ (R ← exp(δθ^)R), δp, δv, δω_W] with ω_W = R ω_B.
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "diffcol/manifold/manifold.hpp"
#include "diffcol/sim/rigid_body.hpp"

namespace diffcol::sim {

/// The penalty law of each manifold entry (file comment).
struct ManifoldContactLaw {
  double stiffness = 1e6;       ///< k > 0 (force / length), per entry at Γ = 1
  double softness = 1e-4;       ///< s > 0 of ψ (a length)
  double damping = 0.5;         ///< Hunt–Crossley c ≥ 0 (time / length)
  double friction = 0.5;        ///< Coulomb μ ≥ 0
  double slip_velocity = 1e-2;  ///< ε > 0 (length / time)
  /// @throws std::invalid_argument naming the field out of range.
  void validate() const;
};

struct ManifoldSimOptions {
  double dt = 5e-4;                  ///< step h (> 0)
  Vec3 gravity = Vec3(0, 0, -9.81);
  /// @throws std::invalid_argument naming the field out of range.
  void validate() const;
};

/// Mass properties of a closed, outward-oriented mesh of uniform `density` (> 0) in its frame
/// (divergence theorem over the tetrahedra from the origin to each face).
/// @throws std::invalid_argument on a non-positive density or volume.
MassProperties mesh_mass_properties(const mesh::TriangleMesh& mesh, double density);

/// What one step did.
struct ManifoldStepReport {
  int active_entries = 0;       ///< entries with Γ > 1e-6 over all pairs
  double max_penetration = 0.0; ///< max(−d) over entries with Γ > 1e-6 (0 when none)
  double max_edge_penetration = 0.0;  ///< the same over the E-E entries
  double manifold_seconds = 0.0;
};

class ManifoldContactSystem {
 public:
  explicit ManifoldContactSystem(const ManifoldContactLaw& law = {}, const ManifoldSimOptions& options = {});
  ~ManifoldContactSystem();
  ManifoldContactSystem(ManifoldContactSystem&&) noexcept;
  ManifoldContactSystem& operator=(ManifoldContactSystem&&) noexcept;

  /// A free body carrying `object`, with `mass` given in the object's frame (its com is the body
  /// frame's origin). Returns its id. @throws std::invalid_argument on bad mass properties.
  int add_body(manifold::ContactObject object, const MassProperties& mass, std::string name = "");
  /// A static body at the object's own pose. Returns its id.
  int add_static_body(manifold::ContactObject object, std::string name = "");
  /// Bodies a and b interact through a manifold with these options (a's object is body 1).
  /// @throws std::invalid_argument on bad ids, a == b, two static bodies or invalid options.
  void add_pair(int a, int b, const manifold::ManifoldOptions& options);

  int num_bodies() const;
  int num_free() const;
  int tangent_dimension() const { return 12 * num_free(); }
  bool is_static(int body) const;
  const manifold::ContactObject& object(int body) const;
  const std::string& name(int body) const;
  /// X_BO: the object's frame in the body (centre-of-mass) frame.
  const Pose& object_offset(int body) const;
  const ManifoldContactLaw& law() const;
  const ManifoldSimOptions& options() const;

  /// One BodyState per body at rest, the static bodies at their object poses, the free bodies
  /// with their objects at X_WO (each given as an object pose).
  std::vector<BodyState> state_from_object_poses(const std::vector<Pose>& X_WO) const;
  /// The object pose X_WO of a body in `state`.
  Pose object_pose(const std::vector<BodyState>& state, int body) const;

  /// Contact force and torque (about the centre of mass, world axes) on each body (6 per body,
  /// [F; τ]) at `state`. @throws std::invalid_argument on a bad state.
  Eigen::VectorXd wrenches(const std::vector<BodyState>& state, ManifoldStepReport* report = nullptr);
  /// The manifold of pair i at `state` (as computed by the step).
  const manifold::ContactManifold& pair_manifold(const std::vector<BodyState>& state, int pair);
  int num_pairs() const;

  /// One step in place; with `tangent` (size tangent_dimension()), the tangent is carried along
  /// (forward mode, exact for the discrete map). @throws std::invalid_argument on a bad state or
  /// tangent size, std::runtime_error on a non-finite result.
  ManifoldStepReport step(std::vector<BodyState>& state, Eigen::VectorXd* tangent = nullptr);

  /// state ⊕ delta in the tangent coordinates (file comment).
  void retract(std::vector<BodyState>& state, const Eigen::VectorXd& delta) const;
  /// Σ kinetic energy of the free bodies.
  double kinetic_energy(const std::vector<BodyState>& state) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// Settings of figures_drop().
struct FiguresDropOptions {
  bool ground = true;           ///< a static ground box (top at z = 0) under the lower figure
  /// Clearance of the upper figure over the lower one (≥ 0): the least SDF value of either
  /// figure's mesh vertices against the other's SDF (to 1e-4 figure heights).
  double drop_gap = 0.05;
  double density = 1000.0;      ///< of both figures (> 0)
  double figure_height = 1.0;   ///< FigureOptions::height
  int edges = 18;               ///< |E_1| = |E_2| of the figure pair (one edge per piece, seed V-3)
  /// E-E contacts of the figure pair. false (default): V-S only, the seed's "NE" simplification
  /// (supplementary I-A), which its simulation videos show on densely meshed surfaces: with E-E on,
  /// top-K edge pairs of these figures report entries up to 0.15 deep with activity > 1e-6 on impact
  /// (witnesses across a limb), whose penalty forces add energy (docs/sim.md).
  bool edge_edge = false;
  bool culling = true;          ///< ManifoldOptions::culling of every pair
  ManifoldContactLaw law;
  ManifoldSimOptions options;
  /// @throws std::invalid_argument naming the field out of range.
  void validate() const;
};

/// The scene of the seed's supplementary simulations (I-B) with the two 18-superquadric figures
/// (make_limbed_figure, seeds 1 and 2): the lower figure lies face down on the ground (or floats
/// without one), the upper one lies across it, turned by 80° about z and tilted by 0.1 rad,
/// `drop_gap` above it, both at rest. Pairs: figure–figure (all vertices, `edges` E-E edges per
/// body) and, with the ground, each figure–ground (one-sided V-S: the figure's vertices against
/// the ground's SDF).
struct FiguresDrop {
  ManifoldContactSystem system;
  std::vector<BodyState> initial;
  int ground = -1, lower = -1, upper = -1;  ///< body ids (ground −1 without one)
  int figure_pair = -1;                     ///< pair id of the two figures
};
/// @throws std::invalid_argument on invalid options.
FiguresDrop figures_drop(const FiguresDropOptions& options = {});

}  // namespace diffcol::sim
