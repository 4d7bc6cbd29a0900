#pragma once
/// @file proximity.hpp
/// DiffPills proximity between capsules and padded polygons (seed Sec. III–IV): the closest
/// points of the two cores (segment / polygon) from a QP with the equality constraints
/// eliminated, the proximity value φ (20), the signed distance and the closest points on the
/// padded surfaces (21)–(22).
///
/// The three QPs, in the variables of diffcol/qp/shapes.hpp (θ for a capsule, y ∈ R² for a
/// polygon), all of the form  minimize ½‖F·x + g‖²  subject to  G·x ≤ h, i.e. P = FᵀF, c = Fᵀg:
///   capsule–capsule (25)–(26):  x = (θ1, θ2),  F = [a1 − b1, −(a2 − b2)],  g = b1 − b2,  0 ≤ θ ≤ 1;
///   polygon–polygon (31)–(32):  x = (y1, y2),  F = [Q̃1, −Q̃2],  g = r1 − r2,  C1y1 ≤ d1, C2y2 ≤ d2;
///   capsule–polygon (36)–(37):  x = (θ1, y2),  F = [a1 − b1, −Q̃2],  g = b1 − r2, 0 ≤ θ1 ≤ 1, C2y2 ≤ d2;
/// (a_i, b_i the world end points, Q̃_i the first two columns of R_i, r_i the body origin).
/// The seed minimizes ‖p1 − p2‖² = ‖Fx + g‖², twice our cost: the minimizer is the same.
/// Capsule–capsule is solved by the box active-set method (Algorithms 4–5) by default, the
/// polygon pairs by the interior-point method of diffcol/qp/qp_solver.hpp, followed by an exact
/// active-set polish.
///
/// Frames and conventions
///  - X_W1, X_W2: world poses of shape 1 and 2 (world_from_body). "_W": world frame;
///    "_B1"/"_B2": body frame of shape 1/2.
///  - p1, p2: witness points on the cores (the QP minimizer). d = p1 − p2.
///  - φ = ‖p1 − p2‖² − (R1 + R2)² (20): > 0 separated, ≤ 0 in contact.
///  - signed distance = ‖p1 − p2‖ − (R1 + R2) (distance of the padded shapes when > 0,
///    minus the penetration depth along the core normal when < 0).
///  - normal_W = (p2 − p1)/‖p2 − p1‖: unit, from shape 1 towards shape 2.
///  - closest points (21)–(22): p1_W = p1 + R1·normal_W, p2_W = p2 − R2·normal_W
///    (on the padded surfaces; when penetrating they are the deepest points along the normal).
///  - Cores touching (‖p1 − p2‖ ≤ core_contact_tolerance·(ρ1 + ρ2)): cores_touch = true; φ keeps
///    its formula (flat there). Polygon pairs report the penetration measure of
///    ProximityResult::penetration (signed distance < −(R1 + R2) with a gradient); capsules with
///    crossing axes the one-sided normal ±(u1 × u2)/‖u1 × u2‖; otherwise (parallel or
///    zero-length capsule cores) normal_W = 0, closest_i = p_i.
///  - Units: polygon-pair QPs are solved in the pair's length unit (ProximityResult::length_unit),
///    and every ok polygon-pair answer is certified a posteriori (ProximityOptions::
///    certificate_tolerance, certify()); else status not_certified.
///  - Non-unique minimizer (parallel segments / edges / faces overlapping, or cores crossing
///    along a segment): unique_minimizer = false; the returned p1, p2 are one valid pair
///    (active set: an end-point-based pair; interior point: the point the polish reached from
///    the analytic-centre iterate). φ, the signed distance and the normal are the same for
///    every minimizing pair.

#include <cstdint>

#include <Eigen/Core>

#include "diffcol/status.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/qp/qp_solver.hpp"
#include "diffcol/qp/shapes.hpp"

namespace diffcol::qp {

/// Bodies farther apart than this in a world coordinate are invalid input (their squared distance
/// would overflow). Valid poses (Pose::invalid_reason: positions within kMaxLength = 1e100) are
/// always closer.
inline constexpr double kMaxRelativeCoordinate = 1e150;

/// Statuses (diffcol::SolveStatus, status.hpp): ok (solved: active set, or interior point
/// converged), not_converged (interior point hit its iteration limit: fields from the last iterate,
/// finite), numerical_error (interior-point numerical failure: fields from the last finite iterate),
/// invalid_input (a pose is not valid, Pose::invalid_reason, or ProximityOptions out of range:
/// numeric fields are zero), not_certified (polygon pairs: the QP solve ended, but its answer failed
/// the a posteriori certificate, witness points in their cores and core distance within
/// certificate_tolerance of a lower bound, even after a re-solve with a 1000× tighter tolerance:
/// fields hold the better answer, finite, and core_distance_lower_bound what is certified).

/// Which solver serves the capsule–capsule QP.
enum class CapsuleSolver : std::uint8_t {
  active_set = 0,      ///< Algorithms 4–5 (default; closed form, no iteration)
  interior_point = 1,  ///< solve_qp (for comparison)
};

/// Settings; the defaults suit all three pairs.
struct ProximityOptions {
  CapsuleSolver capsule_solver = CapsuleSolver::active_set;
  QpOptions qp;  ///< interior-point settings (polygon pairs; capsule–capsule with interior_point)
  /// ‖p1 − p2‖ ≤ core_contact_tolerance·(ρ1 + ρ2) counts as touching cores (ρ_i: bounding
  /// radius of core i about its body origin; unit-free).
  double core_contact_tolerance = 1e-12;
  /// Polygon pairs: an `ok` answer is certified a posteriori, relative to the pair's length unit
  /// L (ProximityResult::length_unit): witness points within certificate_tolerance·L of their
  /// cores, and core distance − certified lower bound ≤ certificate_tolerance·(L + distance)
  /// (+ a rounding allowance 8ε·L²/distance for nearly touching cores). In [1e-14, 1e-3].
  double certificate_tolerance = 1e-9;

  /// @throws std::invalid_argument if qp.validate() does, core_contact_tolerance ∉ [0, 1e-3] or
  /// certificate_tolerance ∉ [1e-14, 1e-3].
  void validate() const;
  /// The same test without throwing (proximity returns status invalid_input when it fails).
  bool is_valid() const noexcept;
};

/// The QP behind a result (for inspection and for the derivatives).
struct ProximityQpInfo {
  int n = 0;                  ///< number of QP variables (2, 3 or 4)
  int m = 0;                  ///< number of inequality constraints
  Eigen::Vector4d x = Eigen::Vector4d::Zero();  ///< x = (θ1 | y1, θ2 | y2); entries ≥ n are 0
  Eigen::Matrix<double, 34, 1> lambda = Eigen::Matrix<double, 34, 1>::Zero();  ///< multipliers, rows of G
  std::uint64_t active = 0;   ///< active constraints (bit i = row i of G)
  int iterations = 0;         ///< interior-point iterations (0 for the active-set solver)
  bool interior_point = false;///< solved by solve_qp (else Algorithm 4)
  bool polished = false;      ///< interior point: active-set polish accepted
  Eigen::Matrix4d S = Eigen::Matrix4d::Zero();  ///< sensitivity dx = −S(dP·x + dc), top-left n×n
};

/// The kind of separating axis behind a penetration measure (ProximityResult::axis).
enum class PenetrationAxis : std::uint8_t { none, face1, face2, edges };

/// Result of one proximity query. Every field is always set.
struct ProximityResult {
  SolveStatus status = SolveStatus::invalid_input;
  bool ok() const { return status == SolveStatus::ok; }
  double phi = 0.0;               ///< φ (20)
  double signed_distance = 0.0;   ///< ‖p1 − p2‖ − (R1 + R2)
  double core_distance = 0.0;     ///< ‖p1 − p2‖
  Vec3 core1_W = Vec3::Zero();       ///< witness point on core 1 (segment / polygon), world
  Vec3 core2_W = Vec3::Zero();       ///< witness point on core 2, world
  Vec3 core1_B1 = Vec3::Zero();      ///< p1 in shape 1's frame
  Vec3 core2_B2 = Vec3::Zero();      ///< p2 in shape 2's frame
  Vec3 p1_W = Vec3::Zero(); ///< p̃1 (21): closest point on padded shape 1, world
  Vec3 p2_W = Vec3::Zero(); ///< p̃2 (22): closest point on padded shape 2, world
  Vec3 normal_W = Vec3::Zero();   ///< (p2 − p1)/‖p2 − p1‖, zero when cores_touch
  bool cores_touch = false;       ///< ‖p1 − p2‖ ≈ 0 (see ProximityOptions::core_contact_tolerance)
  bool unique_minimizer = true;   ///< the witness points p1, p2 are unique
  /// Polygon pairs: a certified lower bound of the core distance (≤ core_distance; 0 when the
  /// status is not ok or not_certified). Capsule–capsule (closed form): core_distance.
  double core_distance_lower_bound = 0.0;
  /// The length unit the QP was solved in (a power of two near ρ1 + ρ2); 1 for capsule–capsule.
  double length_unit = 1.0;
  /// Polygon pairs with overlapping cores (cores_touch): signed_distance = s − (R1 + R2) with
  /// s ≤ 0 the signed core distance (minus the penetration depth of the cores, best separating
  /// axis), normal_W that axis, core1_W / core2_W its witness points on the cores (p2 − p1 = s·normal),
  /// closest_i = p_i ± R_i·normal. φ and core_distance stay the QP's (flat there).
  bool penetration = false;
  /// With penetration: which separating axis it is, so that proximity_derivatives differentiates
  /// that axis without searching again. face1 / face2: the plane normal of polygon core 1 / 2;
  /// edges: the cross product of edge axis_edge1 of core 1 (vertices i, i + 1) and edge
  /// axis_edge2 of core 2 (−1 otherwise). none without penetration.
  PenetrationAxis axis = PenetrationAxis::none;
  int axis_edge1 = -1;
  int axis_edge2 = -1;
  ProximityQpInfo qp;
};

/// Capsule–capsule, QP (25)–(26). No allocation.
/// A pose that is not valid (Pose::invalid_reason: not finite, R not a rotation to 1e-6, or a
/// position beyond 1e100) gives status invalid_input.
void proximity(const Capsule& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
               const ProximityOptions& options, ProximityResult& out);
/// Polygon–polygon, QP (31)–(32). No allocation.
void proximity(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
               const ProximityOptions& options, ProximityResult& out);
/// Capsule–polygon, QP (36)–(37). No allocation.
void proximity(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
               const ProximityOptions& options, ProximityResult& out);
/// Polygon–capsule: solves capsule–polygon with the shapes swapped and swaps the result back
/// (qp describes the capsule–polygon QP as solved). No allocation.
void proximity(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
               const ProximityOptions& options, ProximityResult& out);

/// Algorithm 4 specialized to segments p1 = b1 + θ1·u1, p2 = b2 + θ2·u2 with g = b1 − b2:
/// the candidates are the interior line–line solution (θ from cross products) when it lies in
/// the box, together with its two 1-D re-projections (θ2 re-solved for θ1 and vice versa, which
/// keep the distance accurate for nearly parallel lines), and the four clamped edges; the one with the
/// smallest ‖g + θ1u1 − θ2u2‖² (evaluated directly, not through the quadratic form, which
/// loses the distance to cancellation when the segments nearly touch) is returned, the first in
/// the order interior, θ1 = 0, θ1 = 1, θ2 = 0, θ2 = 1 on ties. Always finite (parallel and
/// zero-length segments included). No allocation.
Eigen::Vector2d segment_pair_parameters(const Vec3& u1, const Vec3& u2, const Vec3& g);

/// Convenience overloads returning by value with default options.
template <class S1, class S2>
ProximityResult proximity(const S1& s1, const Pose& X_W1, const S2& s2, const Pose& X_W2,
                          const ProximityOptions& options = {}) {
  ProximityResult r;
  proximity(s1, X_W1, s2, X_W2, options, r);
  return r;
}

/// The a posteriori certificate proximity() applies to polygon pairs (ProximityOptions::
/// certificate_tolerance), recomputed for the witness points r.core1_B1, r.core2_B2 (body frames) as
/// they stand: true if both lie in their cores and the core distance ‖p1 − p2‖ is within the
/// tolerance of a certified lower bound (support functions along p2 − p1, then the separating-axis
/// candidates). Sets r.core_distance_lower_bound. False for invalid poses or options.
bool certify(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
             ProximityResult& r, const ProximityOptions& options = {});
bool certify(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2, ProximityResult& r,
             const ProximityOptions& options = {});
bool certify(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2, ProximityResult& r,
             const ProximityOptions& options = {});

/// Swaps the roles of shape 1 and 2 in a result (p1 ↔ p2, closest1 ↔ closest2, normal → −normal).
/// The qp field is left unchanged.
void swap_shapes(ProximityResult& r);

}  // namespace diffcol::qp
