#pragma once
/// @file contact.hpp
/// iDCOL contact solve between two strictly convex implicit shapes (seed Sec. III-B, IV).
///
/// Problem (8): the smallest uniform scaling α of both bodies about their own origins at
/// which the scaled bodies touch, and the touching point x. Unknowns z = (x, s = log α, λ1, λ2),
/// residual f_c = (10a)–(10d), Jacobian J_c = (11) with the α column multiplied by α.
///
/// Frames and conventions
///  - X_W1, X_W2: poses of body 1 and body 2 in the world W.
///  - X_12 = X_W1⁻¹·X_W2: pose of body 2 in body 1 (R, r in the seed's notation).
///  - x, p1, p2, normal are measured in body 1's frame ("_B1"); the *_W fields are the same
///    quantities in the world frame.
///  - normal = ∇φ1/‖∇φ1‖ at x/α: the unit normal out of body 1, pointing towards body 2 at the
///    contact (eq. (3)).
///  - α > 1 separated, α = 1 touching, α < 1 penetrating. gap d_D = (1 − 1/α)·‖r‖ (30),
///    p1 = x/α, p2 = (1 − 1/α) r + x/α (29): witness points on the surfaces of body 1 and 2.

#include <cstdint>

#include "diffcol/status.hpp"
#include "diffcol/math/lu6.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/shapes/shape.hpp"

namespace diffcol::idcol {

/// ContactSolution::status (diffcol::SolveStatus, status.hpp): ok (‖W f_c‖ < tolerance at a KKT point
/// with λ1, λ2 > 0, rows (10c) in units of the pair's size: SolveOptions::tolerance),
/// coincident_origins (‖r‖ ≤ coincident_tolerance: α = 0, x = 0, λ = 0; p1, p2, normal and gap are
/// the finite limits as r → 0 along r, body-1 x axis if r = 0), not_converged (no KKT point within
/// the iteration budget; fields hold the best iterate), invalid_input (a pose is not valid:
/// Pose::invalid_reason, or SolveOptions::validate fails; numeric fields are zero).

/// Solver settings; the defaults suit every pair of the built-in shapes.
struct SolveOptions {
  /// On ‖W f_c‖₂, W = diag(1, 1, σ, σ, σ, 1), σ = r1_out + r2_out the pair's size (the residual
  /// is invariant under the surrogate scaling). Rows (10c) have units of 1/length; multiplied by σ
  /// the test, like the iteration, does not depend on the unit of length: the same pair in metres
  /// or millimetres converges in the same iterations to the same α and derivatives.
  double tolerance = 1e-10;
  int max_iterations = 60;          ///< Newton iterations per attempt
  /// Cold-start attempts (different initial guesses, continuation). After the first one fails,
  /// the solver also tries the touching point of the exact shapes that the smooth ones
  /// approximate (a ray cast on their Minkowski difference; docs/idcol.md, "Starts"), counted in
  /// ContactSolution::attempts.
  int max_attempts = 6;
  double surrogate_factor = 1.0;    ///< f_S ∈ [1, 1e6] of eq. (21) (above ~1e10 solves stop converging)
  double coincident_tolerance = 1e-12;  ///< relative: ‖r‖ ≤ tol·(r1_out + r2_out) counts as coincident
  bool warm_start = true;           ///< ContactPair: start from the previous solution when there is one
  /// Warm start from the previous solution moved to first order along the pose change: z + T_c·ξ
  /// (T_c = −J_c⁻¹G_c of the derivatives, from the previous solve's factorization; ξ the body
  /// twist from the previous X_12 to the new one). Falls back to the previous solution itself when
  /// the step is large (‖ω‖ > 0.3 rad, |Δ log α| > 0.5) or leaves λ ≤ 0. Along a steady motion
  /// (this pose step within 10% of a multiple c of the previous one, c ≤ 2) the second-order term
  /// is added too, estimated as c² × the previous prediction's miss (warm_prediction_error).
  bool warm_predictor = true;
  bool continuation = true;         ///< ramp β or n from a smoother shape if direct attempts fail
  /// After convergence, one more Newton step is taken (reusing the final factorization to decide)
  /// when it would move x, log α or λ by more than this, relative: it sharpens ill-conditioned
  /// solutions (nearly parallel faces) for the derivatives. 0: always; +inf: never.
  double polish_threshold = 1e-9;
  /// When every attempt has failed: one more attempt from the first cold start with this many
  /// Newton iterations (0: none). The cases that need it are flat discs of aspect ratio above a few
  /// thousand against much larger shapes (README, "Robustness envelope"; an ellipsoid 30 × 30 × 0.3
  /// against a sphere of radius 100 converges without it, in at most 27 iterations on 500 random
  /// poses). Costs nothing on solves that converge.
  int last_resort_iterations = 2000;

  /// Upper limits that validate() enforces (the CLI checks its arguments against them too).
  static constexpr int kMaxIterationsLimit = 100000;
  static constexpr int kMaxAttemptsLimit = 1000;
  static constexpr int kLastResortIterationsLimit = 100000;
  static constexpr double kMaxSurrogateFactor = 1e6;

  /// @throws std::invalid_argument naming the first field out of range: tolerance in [1e-14, 1e-3],
  /// max_iterations in [1, 100000], max_attempts in [1, 1000], surrogate_factor in [1, 1e6],
  /// coincident_tolerance in [0, 1e-3], polish_threshold ≥ 0 (+inf: never polish),
  /// last_resort_iterations in [0, 100000].
  void validate() const;
  /// The same test without throwing (the solvers return status invalid_input when it fails).
  bool is_valid() const noexcept;

 private:
  const char* invalid_field() const noexcept;
};

/// Result of one contact solve. Every field is always set (never left for the caller to zero).
struct ContactSolution {
  SolveStatus status = SolveStatus::invalid_input;
  int iterations = 0;            ///< Newton steps over all attempts
  int jacobian_evaluations = 0;  ///< evaluations of (f_c, J_c), i.e. of φ, ∇φ, ∇²φ of both shapes
  int attempts = 0;              ///< 1 = first try succeeded; >1: restarts / continuation were used
  bool warm_started = false;     ///< the accepted attempt started from a previous solution
  double residual_norm = 0.0;    ///< ‖f_c‖₂ at the returned point (unweighted; see SolveOptions::tolerance)

  double alpha = 0.0;            ///< α*, the minimum scaling
  Vec3 x_B1 = Vec3::Zero();      ///< x*, the touching point of the scaled bodies, in body 1
  double lambda1 = 0.0, lambda2 = 0.0;  ///< multipliers of (10)
  Vec3 p1_B1 = Vec3::Zero();     ///< witness point on body 1's surface, eq. (29)
  Vec3 p2_B1 = Vec3::Zero();     ///< witness point on body 2's surface, eq. (29)
  double gap = 0.0;              ///< d_D, eq. (30): > 0 separated, < 0 penetrating
  Vec3 normal_B1 = Vec3::Zero(); ///< unit normal out of body 1 at x*, eq. (3)

  /// ∇φ1, ∇²φ1 at y1 = x*/α* (body 1's frame) and ∇φ2, ∇²φ2 at y2 = Rᵀ(x* − r)/α* (body 2's
  /// frame), from the last KKT evaluation: what the derivatives need of the shapes.
  Vec3 grad1 = Vec3::Zero(), grad2 = Vec3::Zero();
  Mat3 hess1 = Mat3::Zero(), hess2 = Mat3::Zero();

  Vec3 x_W = Vec3::Zero(), p1_W = Vec3::Zero(), p2_W = Vec3::Zero(), normal_W = Vec3::Zero();
  Pose X_12;                     ///< pose of body 2 in body 1 used by the solve
  Pose X_W1;                     ///< pose of body 1 used by the solve (identity on invalid input)

  /// J_c at z* = (x, s, λ1, λ2) in the original (unscaled) variables: rows (10a),(10b),(10c)×3,(10d);
  /// columns x (3), s = log α, λ1, λ2. The derivative with respect to α is column 3 divided by α.
  Mat6 kkt_jacobian = Mat6::Zero();
  /// LU factors of kkt_jacobian, for the implicit-function derivatives and the warm start. The rows
  /// are pivoted on the equilibrated matrix (J_c in units of the pair's size), and min_pivot,
  /// max_pivot (pivot_ratio()) are that matrix's: the same for the same pair in any unit.
  Lu6 kkt_lu;

  /// Warm-start bookkeeping (SolveOptions::warm_predictor), read by the next warm start: the body
  /// twist [ω; v] from the warm start's X_12 to this X_12, and z* minus its first-order prediction
  /// in (x, log α, λ1, λ2). Both zero unless the solve converged from a first-order prediction.
  Vec6 warm_pose_step = Vec6::Zero();
  Vec6 warm_prediction_error = Vec6::Zero();

  /// The solution came from the closed form of two spheres (non-coincident origins; docs/idcol.md):
  /// every field above holds what the Newton solve would, and contact_derivatives() uses closed
  /// forms too (shape_derivatives() and contact_hessians() the general path). False for every other solve.
  bool closed_form = false;

  bool ok() const {
    return status == SolveStatus::ok || status == SolveStatus::coincident_origins;
  }
};

/// Solves one pair at the given world poses (cold start). For repeated queries of the same
/// pair use ContactPair, which dispatches once and warm-starts.
ContactSolution solve_contact(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                              const SolveOptions& options = {});

/// A pair of shapes with per-pair precomputation (shape dispatch, bounding radii) and warm-start state.
class ContactPair {
 public:
  /// @throws std::invalid_argument if options.validate() does (options changed later through
  /// options() are checked at every solve: status invalid_input).
  ContactPair(Shape shape1, Shape shape2, SolveOptions options = {});

  /// Solves at the given world poses. If options().warm_start and the previous solve of this pair
  /// succeeded, starts from it (falling back to a cold start if that fails). Pairs whose cold start
  /// is exact or nearly so (two spheres; two ellipsoids, i.e. spheres and superellipsoids of
  /// exponent 1) always start cold: it is cheaper than the warm prediction (docs/idcol.md).
  const ContactSolution& solve(const Pose& X_W1, const Pose& X_W2);
  /// Solves from a cold start whatever the state; the result becomes the next warm start.
  const ContactSolution& solve_cold(const Pose& X_W1, const Pose& X_W2);
  /// Solves starting from a given solution (e.g. one stored by the caller).
  const ContactSolution& solve_from(const Pose& X_W1, const Pose& X_W2, const ContactSolution& guess);

  const ContactSolution& last() const { return last_; }
  void reset_warm_start() { has_warm_ = false; }

  const Shape& shape1() const { return s1_; }
  const Shape& shape2() const { return s2_; }
  const SolveOptions& options() const { return opt_; }
  SolveOptions& options() { return opt_; }

  using SolveFn = void (*)(const Shape&, const Shape&, const Pose&, const Pose&, const SolveOptions&,
                           const ContactSolution* warm, ContactSolution& out);

 private:
  Shape s1_, s2_;
  SolveOptions opt_;
  SolveFn fn_;
  ContactSolution last_;
  bool has_warm_ = false;
};

}  // namespace diffcol::idcol
