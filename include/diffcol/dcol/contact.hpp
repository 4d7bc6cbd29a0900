#pragma once
/// @file contact.hpp
/// DCOL contact query (DCOL seed Sec. II-A, III): the minimum uniform scaling α of two convex
/// primitives at which they intersect, problem (9), solved as a small cone program (1)
///   minimize cᵀx  subject to  h − G x ∈ K,  K = R₊^l × Q_a × Q_b,
/// with x = (p, α, slacks): p the intersection point (world coordinates), c = e_α, and the rows
/// of G, h stacked from the two primitives' constraints (primitives.hpp): the orthant rows of
/// body 1, the orthant rows of body 2, then the second-order cone of body 1 and of body 2 (when
/// they have one). At most 8 unknowns (polygon slacks) and kMaxConeRows rows.
///
/// The solver is a primal–dual interior-point method (Vandenberghe's coneqp/conelp, the seed's
/// reference [12]) with Nesterov–Todd scaling and Mehrotra's predictor–corrector. The Newton
/// systems are reduced to the normal equations Hx = r, H = Gᵀ W⁻² G (at most 8×8), factored by
/// Cholesky. Once the relative gap is below SolveOptions::polish_start the active set is read
/// off the iterate and Newton's method on the exact KKT conditions (Jordan-product
/// complementarity, seed Sec. II-B) finishes the solve (see SolveOptions::polish).
/// Everything lives on the stack in fixed-capacity arrays: no heap allocation per solve.
///
/// Frames and conventions
///  - X_WB1, X_WB2: world poses of the bodies; shape i sits at X_WSi = X_WBi·offset_i and is
///    scaled about its origin r_i (the translation of X_WSi).
///  - x_W: the intersection point x* of the scaled shapes, world frame.
///  - α > 1 separated, α = 1 touching, α < 1 penetrating.
///  - p1_W, p2_W: contact points on the unscaled shapes, p_i = r_i + (x* − r_i)/α*, eq. (29).
///  - gap = d_D = (1 − 1/α*)·‖r_2 − r_1‖: the signed form of eq. (30), not the Euclidean distance
///    (euclidean.hpp; docs/conventions.md); ‖p1 − p2‖ = |gap|;
///    > 0 separated, < 0 penetrating.
///
/// Accuracy: on return with status converged the solution is normally *polished*
/// (ConeKkt::polished, > 99.9% of the ergodic sweep): the exact KKT conditions hold on the
/// identified active set to rounding, verified by a certificate (s = h − Gx ∈ K, z ∈ K,
/// ‖Gᵀz + c‖ and sᵀz within the tolerances), so α* *and* x* are exact to rounding (measured
/// against iDCOL for ellipsoids: ≤ 5e-11 in x, the accuracy of iDCOL itself). Otherwise
/// (degenerate configurations where x* is not unique, e.g. face–face contact) the
/// interior-point iterate is returned: primal and dual residuals at most `feasibility_tolerance`
/// (relative to max(1, ‖h‖) and ‖c‖ = 1), gap sᵀz at most max(gap_tolerance,
/// gap_relative_tolerance·α*) — or, when the gap has closed to ≤ 1e-13 while a residual stalls,
/// residuals at most 1000·feasibility_tolerance; x* is then the analytic centre of the optimal
/// face, up to O(√gap) on curved boundaries.

#include <cstdint>
#include <limits>

#include "diffcol/status.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol::dcol {

/// Compile-time capacity: the most unknowns x = (p, α, slacks) (4 + 2 + 2 for two padded polygons).
inline constexpr int kMaxConeVars = 8;
/// Compile-time capacity: the most rows of G (two polytopes/polygons at inline capacity — a larger
/// polytope contributes a window of kInlinePolytopeFaces faces — + two 4-dim cones).
inline constexpr int kMaxConeRows = kInlinePolytopeFaces + kMaxPolygonEdges + 8;

/// Statuses (diffcol::SolveStatus, status.hpp): ok (residuals and gap within tolerance, or centred
/// at the requested barrier level), not_converged (not within max_iterations; fields hold the last
/// iterate), numerical_error (the normal matrix lost positive definiteness or an iterate was not
/// finite; fields hold the last finite iterate), invalid_input (a pose that is not valid:
/// Pose::invalid_reason, or SolveOptions::validate fails; numeric fields are zero),
/// coincident_origins (‖r_2 − r_1‖ ≤ 1e-100·(outer radii): α* = 0, x* = p1 = p2 = r_1, gap = 0),
/// not_certified (the solver's own tests passed but the independent certificate (certify) did not,
/// also after a second solve by the interior-point route: the fields hold that solve's result, not
/// to be trusted).

/// Where the returned solution's Newton iterations (the polish, docs/dcol.md) started: a
/// diagnostic of the solver's path, the result is the same KKT point either way.
enum class StartMethod : std::uint8_t {
  none = 0,            ///< no solve ran (invalid_input, coincident_origins)
  closed_form = 1,     ///< two spheres / ellipsoids: a geometric guess of the touching point
  exact = 2,           ///< the exact touching point (ball-padded pairs, a solid against a capsule or
                       ///< padded polygon, an ellipsoid against a polytope, capsule, padded
                       ///< polygon, cylinder or cone)
  ray_cast = 3,        ///< a ray cast on the Minkowski difference (MPR) to a tolerance
  interior_point = 4,  ///< the interior-point iterations (the fallback, or SolveOptions::direct_newton off)
};
const char* start_method_name(StartMethod s);

/// Solver settings (plain struct; the defaults suit every pair of primitives).
struct SolveOptions {
  double feasibility_tolerance = 1e-10;  ///< on ‖s + Gx − h‖/max(1,‖h‖) and ‖Gᵀz + c‖
  double gap_tolerance = 1e-11;          ///< absolute, on the duality gap sᵀz
  double gap_relative_tolerance = 1e-10; ///< relative to α*
  int max_iterations = 40;
  /// Smoothing (Sec. II-B): when > 0 the solver stops on the central path at the barrier level
  /// μ = sᵀz/deg(K) = barrier_target instead of driving μ to zero (centred to
  /// ‖λ∘λ − μe‖ ≤ 1e-8·μ, λ the NT-scaled point). α, x and their derivatives are then those of
  /// the log-barrier-smoothed problem: smooth across contact switches, biased by O(μ).
  double barrier_target = 0.0;
  /// After convergence without a polished solution (barrier_target = 0, the polish declined or
  /// is off): at most this many Newton steps towards the central
  /// point at the final μ (stopping once centred to final_centering_tolerance). On curved boundaries an
  /// uncentred point with gap δ can be O(√δ) away from x*, the central one O(δ); the derivatives
  /// are exact for the central point. 0 disables.
  int final_centering_steps = 2;
  /// Centring target of the steps above: ‖λ∘λ − μe‖_∞ ≤ final_centering_tolerance·μ.
  double final_centering_tolerance = 1e-3;
  /// Newton polish (barrier_target = 0 only): once the residuals and the relative gap are below
  /// polish_start, the active set is read off the iterate and the exact KKT conditions are solved
  /// by Newton's method on it; the result is accepted only if it passes the optimality
  /// certificate (primal and dual feasibility, zero gap, within the tolerances above), else the
  /// interior-point iterations go on (retrying at a 100× smaller gap and at convergence).
  /// A polished solution is exact to rounding in α and x (not only in α), and its derivatives
  /// are those of the exact solution. false: plain interior-point solution.
  bool polish = true;
  double polish_start = 1e-2;
  /// Geometric start (barrier_target = 0, polish on): the polish's Newton method first runs from
  /// a geometric guess, without interior-point iterations (iterations = 0 in the result).
  /// Pairs of strictly convex primitives (sphere, ellipsoid): both cones are on their boundary at
  /// the optimum and the guess is a closed form along the centre line. Every other pair: a ray
  /// cast on the two shapes' support functions (Minkowski portal refinement) gives α and x to
  /// ~1e-6, the slacks follow by projection, and the active set and multipliers are read off
  /// that point (docs/dcol.md, "Geometric start"). If Newton's method does not pass the same
  /// optimality certificate the interior-point method runs as usual. The result is the same
  /// exact KKT point either way.
  bool direct_newton = true;

  /// @throws std::invalid_argument naming the first field out of range: the three tolerances in
  /// [1e-14, 1e-3], final_centering_tolerance, polish_start finite > 0, max_iterations ≤ 100000,
  /// barrier_target finite ≥ 0, final_centering_steps in [0, 1000].
  void validate() const;
  /// The same test without throwing (solve_contact returns status invalid_input when it fails).
  bool is_valid() const noexcept;

 private:
  const char* invalid_field() const noexcept;
};

/// Internal state of the final interior-point iterate, kept for contact_derivatives (the IFT on
/// the KKT conditions reuses its factorization). Problem (9) is 1-homogeneous in r_2 − r_1, and
/// it is solved on a unit instance: positions in units of ℓ_p = length_scale = ‖r_2 − r_1‖
/// about origin = r_1 (p_W = origin + ℓ_p·x[0:3]; slacks and h in the same unit), shape sizes in
/// units of ℓ_b = max(outer radii) (the α column), so that x[3] = α̂ = α/alpha_scale with
/// alpha_scale = ℓ_p/ℓ_b. The instance, its iterations and its tolerances are then the same
/// whether the origins are 1e-10 or 1e8 shape sizes apart, in any unit of length.
/// Only the first n columns / m rows are meaningful.
struct ConeKkt {
  int n = 0;                 ///< unknowns: 3 (p) + 1 (α) + slacks of body 1 + slacks of body 2
  int m = 0;                 ///< rows
  int orthant_rows[2] = {0, 0};  ///< orthant rows of body 1 then body 2 (rows [0, l1), [l1, l1 + l2))
  int soc_count = 0;         ///< second-order cones (0–2)
  int soc_start[2] = {0, 0}, soc_dim[2] = {0, 0}, soc_body[2] = {0, 0};
  Vec3 origin = Vec3::Zero();
  double length_scale = 1.0;  ///< ℓ_p = ‖r_2 − r_1‖
  double alpha_scale = 1.0;   ///< α = alpha_scale·x[3]
  double G[kMaxConeRows][kMaxConeVars] = {};
  double h[kMaxConeRows] = {};
  double x[kMaxConeVars] = {};
  double s[kMaxConeRows] = {};
  double z[kMaxConeRows] = {};
  /// NT scaling W at (s, z): orthant rows: W_ii = w[i] = √(s_i/z_i); cone k: W = β_k·W̄(w̄_k),
  /// W̄ = [[w̄0, w̄1ᵀ], [w̄1, I + w̄1w̄1ᵀ/(1 + w̄0)]].
  double w[kMaxConeRows] = {};
  double soc_beta[2] = {0, 0};
  double soc_wbar[2][4] = {};
  /// Lower Cholesky factor of H = Gᵀ W⁻² G at (s, z) (row-major, n×n; the diagonal holds the
  /// reciprocals 1/L_ii).
  double L[kMaxConeVars][kMaxConeVars] = {};
  bool factored = false;     ///< L and the scaling belong to the returned iterate

  // --- exact KKT solution (the Newton polish, see docs/dcol.md "Solver") ---
  /// True when (x, s, z) satisfy the exact KKT conditions (2)–(5) with exact complementarity on
  /// the identified active set, verified (primal and dual feasibility, zero gap to rounding),
  /// and kkt_lu holds the LU factors of the reduced KKT matrix at that point.
  bool polished = false;
  /// Active set: orthant rows with s_i = 0 (multiplier z_i); per cone: 0 inactive (z = 0),
  /// 1 boundary (s, z on ∂Q, z = ν(1, −s̄/‖s̄‖)), 2 apex (s = 0, z in Q).
  int active_rows[kMaxConeVars] = {};
  int active_count = 0;
  int soc_state[2] = {0, 0};
  double soc_nu[2] = {0, 0};
  /// Reduced KKT matrix [[M, Aᵀ], [A, 0]] (M the cones' curvature, A the active constraint
  /// gradients), dimension n + p ≤ 2·kMaxConeVars, LU with partial pivoting (row-major, the
  /// unit lower factor below the diagonal, row permutation in kkt_perm). With eliminated slacks
  /// (below) kkt_lu factors Tᵀ K T and kkt_dim = n + p − 2·elim_count.
  int kkt_dim = 0;
  double kkt_lu[2 * kMaxConeVars][2 * kMaxConeVars] = {};
  int kkt_perm[2 * kMaxConeVars] = {};
  /// Slack elimination (docs/dcol.md "Solver"): an active row of a primitive's own slack
  /// constraints (the capsule's segment ends, the padded polygon's edges: no p-coefficients, h = 0)
  /// fixes one slack as a linear function of α and the primitive's other slack, so the polish
  /// solves for the remaining unknowns and kkt_lu factors the smaller matrix Tᵀ K T. Slack
  /// elim_col[e] = Σ_j elim_coef[e][j]·x[elim_src[e][j]] (j < 2, src = −1 unused), its row is
  /// active_rows[elim_slot[e]]. kkt_full_dim = n + p is the dimension of K before it.
  int elim_count = 0;
  int elim_col[4] = {};
  int elim_slot[4] = {};
  int elim_src[4][2] = {};
  double elim_coef[4][2] = {};
  int kkt_full_dim = 0;
  /// A polytope above kInlinePolytopeFaces faces enters the program as a window of its faces
  /// (docs/dcol.md): window_count[b] > 0 for body b, whose orthant row j is face
  /// window_face[b][j] (j < window_count[b]); 0 otherwise.
  int window_count[2] = {0, 0};
  int window_face[2][kInlinePolytopeFaces] = {};
};

/// Result of one DCOL query. Every field is always set.
struct ContactResult {
  SolveStatus status = SolveStatus::invalid_input;
  /// The solver's path to this solution (diagnostic). Kept beside `status` (one byte of its
  /// padding): the offsets of the fields below, the KKT storage's among them, stay as they were.
  StartMethod start = StartMethod::none;
  int iterations = 0;             ///< interior-point iterations (predictor–corrector pairs)
  double alpha = 0.0;             ///< α*, the minimum scaling
  Vec3 x_W = Vec3::Zero();        ///< x*, intersection point of the scaled shapes (world)
  Vec3 p1_W = Vec3::Zero();       ///< contact point on shape 1, eq. (29) (world)
  Vec3 p2_W = Vec3::Zero();       ///< contact point on shape 2, eq. (29) (world)
  double gap = 0.0;               ///< d_D = (1 − 1/α*)·‖r_2 − r_1‖, signed eq. (30) (not Euclidean)
  double duality_measure = 0.0;   ///< μ = sᵀz/deg(K) at the returned iterate
  double primal_residual = 0.0;   ///< ‖s + Gx − h‖/max(1, ‖h‖)
  double dual_residual = 0.0;     ///< ‖Gᵀz + c‖
  /// certify(...).gap() of this result (the independent check of α* and the witness points):
  /// at most kCertificateTolerance when converged; 0 where no solve ran.
  double certificate_gap = 0.0;
  Pose X_WS1, X_WS2;              ///< world poses of the two shapes (body pose · offset) used by the solve
  Pose X_WB1, X_WB2;              ///< the body poses passed in (identity on invalid_input)
  ConeKkt kkt;                    ///< final iterate and factorization (for contact_derivatives)

  bool ok() const { return status == SolveStatus::ok; }
};

/// Relative tolerance of the certificate below (ContactResult::certificate_gap).
inline constexpr double kCertificateTolerance = 1e-9;

/// An a-posteriori check of a result from the primitives' own definitions (support functions and
/// membership), independent of the cone program's rows and of the solver's path:
///  - bound_gap = |1 − α_low/α*|: any unit u gives the lower bound
///    α* ≥ α_low = uᵀ(r_2 − r_1)/(h_1(u) + h_2(−u)) (h_i the support functions about the shape
///    origins); u is the separating normal read off the multipliers of body 1's rows (Σ z_i g_i)
///    and, where that bound is not tight (an unpolished face contact), the best of the shapes'
///    flat-face normals. A reported α* below α_low is impossible, one above it is not minimal;
///  - witness_violation: how far p1_W and p2_W lie outside their unscaled shapes (0 inside), in
///    units of the shapes' outer radii (for the ellipsoid: to first order in its gauge), beyond the
///    rounding of their world coordinates (4ε·‖p_i‖).
/// Both are relative, so the check means the same at every scale. +∞ where there is nothing to
/// check (no solve ran, α* = 0).
/// An unpolished solution (a degenerate contact where the interior-point method ends with its
/// dual residual stalled, docs/dcol.md) has a separating normal only as accurate as that residual:
/// bound_slack = 10·dual_residual is then allowed on bound_gap (0 for a polished solution).
struct Certificate {
  double bound_gap = std::numeric_limits<double>::infinity();
  double bound_slack = 0.0;
  double witness_violation = std::numeric_limits<double>::infinity();
  double gap() const {
    const double b = bound_gap > bound_slack ? bound_gap - bound_slack : 0.0;
    return b > witness_violation ? b : witness_violation;
  }
  bool ok(double tolerance = kCertificateTolerance) const { return gap() <= tolerance; }
};
/// The certificate of `result`, a solve of shape1 against shape2 (the same shapes, in that order).
Certificate certify(const Primitive& shape1, const Primitive& shape2, const ContactResult& result);

/// The unit normal from shape 1 towards shape 2 at the contact of the scaled shapes, read off the
/// dual: u ∝ Σ z_i g_i over body 1's rows (g_i their coefficients of the point), the normal of a
/// plane separating the two shapes scaled by α*. Zero where no solve ran or α* = 0.
Vec3 separating_normal(const ContactResult& result);

/// Solves problem (9) for two primitives on bodies at X_WB1, X_WB2 (cold start). Allocates nothing.
/// Result written into `out` (reuse it across calls to avoid re-initialising its storage).
void solve_contact(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2, const Pose& X_WB2,
                   ContactResult& out, const SolveOptions& options = {});
/// As above, returning the result by value.
ContactResult solve_contact(const Primitive& shape1, const Pose& X_WB1, const Primitive& shape2, const Pose& X_WB2,
                            const SolveOptions& options = {});

}  // namespace diffcol::dcol
