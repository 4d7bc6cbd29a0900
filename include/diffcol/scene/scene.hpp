#pragma once
/// @file scene.hpp
/// Many rigid bodies with collision shapes: a broad phase, every close pair's contact quantities
/// and, on request, their derivatives with respect to both bodies' twists (docs/scene.md).
///
/// A body has a pose X_WB and is static or moving; a shape is mounted on one body at X_BS. The
/// pairs considered are those of shapes on different bodies, minus
///  - pairs of two static bodies,
///  - pairs whose collision filters exclude each other: shapes a and b are paired only when
///    (group_a & mask_b) != 0 and (group_b & mask_a) != 0,
///  - pairs of bodies disabled with disable_body_pair.
/// query() runs the broad phase (sweep and prune on the shapes' bounding boxes, which are the
/// boxes of their bounding balls, then the balls themselves) and the narrow phase over its
/// candidates, each pair in the
/// family dispatch.hpp picks, and returns one PairResult per pair that is in contact or closer
/// than the margin, and every pair whose solve failed (with its status): a failure is never
/// dropped silently.
///
/// Thread safety: a Scene is not safe to modify or query from two threads at once; query() itself
/// spreads the pairs over QueryOptions::num_threads threads. Pairs keep warm-start caches (iDCOL)
/// from one query to the next. A DCOL pair is first tested against the margin by support-function
/// bounds (along the line of its shape origins and its previous separating normal): one that
/// proves it farther apart than the margin skips the solve.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"
#include "diffcol/status.hpp"
#include "diffcol/scene/broad_phase.hpp"
#include "diffcol/scene/collision_shape.hpp"
#include "diffcol/scene/dispatch.hpp"

namespace diffcol::batch {
class ThreadPool;
}

namespace diffcol::scene {

/// Which shapes may touch: a and b are paired when (a.group & b.mask) and (b.group & a.mask).
struct CollisionFilter {
  std::uint32_t group = 1;
  std::uint32_t mask = 0xFFFFFFFFu;
};

struct Body {
  std::string name;
  Pose X_WB;
  bool is_static = false;
  std::vector<int> shapes;  ///< ids of its shapes
};

struct SceneShape {
  std::string name;
  int body = -1;
  CollisionShape shape;
  Pose X_BS;  ///< mount on the body (a DCOL primitive's own offset folded in)
  CollisionFilter filter;
};

/// Pair statuses (diffcol::SolveStatus, status.hpp), in one vocabulary for every family
/// (`solver_status` holds the layer's own): ok, coincident_origins (the shapes' origins coincide:
/// α = 0, the witness points are limits), not_converged (the solve, its certificate or the
/// Euclidean distance failed), invalid_input.

/// What p1_W, p2_W and normal_W of a PairResult are.
enum class PointKind : std::uint8_t {
  closest = 0,  ///< the closest points of the separated shapes (Euclidean), normal (p2 − p1)/distance
  witness = 1,  ///< the formulation's witness points: eq. (29) of the iDCOL / DCOL seeds on the
                ///< surfaces at the α-scaled contact; the QPs' closest points of the padded shapes
};

/// One pair's contact quantities, world frame, in the vocabulary of docs/conventions.md.
struct PairResult {
  int shape1 = -1, shape2 = -1;  ///< scene shape ids, shape1 < shape2
  int body1 = -1, body2 = -1;    ///< their bodies
  Family family = Family::dcol;  ///< the formulation that served the pair (dispatch.hpp)
  SolveStatus status = SolveStatus::invalid_input;
  const char* solver_status = "";  ///< the layer's status name ("ok", "not_converged", "not_certified", ...)
  bool ok() const { return status == SolveStatus::ok; }
  bool separated = false;  ///< α > 1 (iDCOL, DCOL) or distance > 0 (QP)
  /// α*, the scaling at which the shapes touch (iDCOL, DCOL); has_alpha false and 0 for QP pairs.
  bool has_alpha = false;
  double alpha = 0.0;
  /// d_D = (1 − 1/α)·‖r‖ (iDCOL, DCOL): signed, not Euclidean; has_gap false and 0 for QP pairs.
  bool has_gap = false;
  double gap = 0.0;
  /// The Euclidean distance: of separated iDCOL / DCOL pairs when QueryOptions::euclidean (the
  /// closest points are then p1_W, p2_W); of QP pairs always, signed (‖p1 − p2‖ − R1 − R2 of the
  /// cores, negative when they overlap). has_distance false and 0 otherwise.
  bool has_distance = false;
  double distance = 0.0;
  PointKind points = PointKind::witness;
  Vec3 p1_W = Vec3::Zero();      ///< on shape 1's surface
  Vec3 p2_W = Vec3::Zero();      ///< on shape 2's surface
  /// Unit, from shape 1 towards shape 2: of the closest points (PointKind::closest); iDCOL's eq. (3)
  /// normal, DCOL's separating normal of the cone program's dual or the QPs' core normal
  /// (witness). Zero where it is not defined (QP cores touching, DCOL at coincident origins).
  Vec3 normal_W = Vec3::Zero();
};

using RowVec12 = Eigen::Matrix<double, 1, 12>;
using Mat3x12 = Eigen::Matrix<double, 3, 12, Eigen::RowMajor>;

/// Derivatives of one PairResult with respect to the twists of body1 (columns 0–5) and body2
/// (columns 6–11) in `frame`, about their poses X_WB1, X_WB2: the sparse blocks of the scene
/// Jacobian (every other body's columns are zero). Blocks of quantities the result does not have
/// are zero; `points` / `normal` false where those Jacobians are not available (the closest
/// points are not unique, or the KKT system behind DCOL's separating normal is singular).
struct PairDerivatives {
  bool ok = false;  ///< the result is ok and its α, gap and distance Jacobians are set
  bool points = false;
  bool normal = false;
  ReferenceFrame frame = ReferenceFrame::world;
  RowVec12 J_alpha = RowVec12::Zero(), J_gap = RowVec12::Zero(), J_distance = RowVec12::Zero();
  Mat3x12 J_p1_W = Mat3x12::Zero(), J_p2_W = Mat3x12::Zero(), J_normal_W = Mat3x12::Zero();
};

/// Re-expresses world-twist blocks (body1's columns 0–5, body2's 6–11) in `frame` about the body
/// poses X_WB1, X_WB2, and records the frame. No allocation.
void express_in_frame(PairDerivatives& d, ReferenceFrame frame, const Pose& X_WB1, const Pose& X_WB2);

struct QueryOptions {
  /// Report separated pairs closer than this (Euclidean, ≥ 0; 0: contacts only).
  double margin = 0.0;
  /// Compute the Euclidean distance and closest points of separated iDCOL / DCOL pairs within the
  /// margin. Off, the margin test uses d_D (which is at least the Euclidean distance): a pair is
  /// reported when d_D < margin, and p1_W, p2_W are the witness points.
  bool euclidean = true;
  bool derivatives = false;  ///< fill QueryResult::derivatives
  ReferenceFrame frame = ReferenceFrame::world;  ///< of the derivatives' twists
  int num_threads = 1;       ///< threads for the narrow phase (the caller's included); 0: all cores
  /// @throws std::invalid_argument naming the field out of range.
  void validate() const;
};

struct QueryResult {
  std::vector<PairResult> pairs;             ///< sorted by (shape1, shape2)
  std::vector<PairDerivatives> derivatives;  ///< one per pair when QueryOptions::derivatives, else empty
  int candidates = 0;                        ///< pairs the broad phase passed to the narrow phase (boxes and balls within the margin)
};

class Scene {
 public:
  Scene();
  ~Scene();
  Scene(Scene&&) noexcept;
  Scene& operator=(Scene&&) noexcept;
  /// A copy has the same bodies, shapes and filters, and cold caches.
  Scene(const Scene& other);
  Scene& operator=(const Scene& other);

  /// Adds a body; returns its id (0, 1, ...).
  /// @throws std::invalid_argument for an invalid pose (Pose::invalid_reason).
  int add_body(const Pose& X_WB, bool is_static = false, std::string name = "");
  /// Mounts a shape on a body at X_BS; returns the shape id.
  /// @throws std::invalid_argument for an unknown body, an invalid X_BS, or a shape that no
  ///         formulation serves against a shape it may touch (dispatch.hpp; the message names both).
  int add_shape(int body, CollisionShape shape, const Pose& X_BS = Pose::identity(),
                CollisionFilter filter = {}, std::string name = "");
  /// @throws std::invalid_argument for an unknown body or an invalid pose; the scene is unchanged.
  void set_body_pose(int body, const Pose& X_WB);
  /// Sets every body's pose (one per body, in id order); checks all before changing any.
  void set_body_poses(const std::vector<Pose>& X_WB);
  /// Excludes every pair of shapes of bodies a and b.
  void disable_body_pair(int body_a, int body_b);

  int num_bodies() const { return static_cast<int>(bodies_.size()); }
  int num_shapes() const { return static_cast<int>(shapes_.size()); }
  const Body& body(int id) const;
  const SceneShape& shape(int id) const;
  /// The world pose of a shape, X_WB·X_BS.
  Pose shape_pose(int id) const;
  /// The disabled body pairs (a < b), sorted.
  std::vector<std::pair<int, int>> disabled_body_pairs() const;
  /// Whether shapes a and b are paired at all (different bodies, not both static, filters).
  bool may_collide(int shape_a, int shape_b) const;

  /// The broad phase alone: candidate pairs (a < b) of shapes whose bounding boxes are within
  /// `margin`, filters applied, sorted.
  const std::vector<std::pair<int, int>>& candidate_pairs(double margin = 0.0);
  /// Broad and narrow phase. @throws std::invalid_argument for invalid options.
  /// Reusing `out`, a query allocates only for pairs met for the first time (their caches) and
  /// when a result or scratch vector grows past its capacity.
  void query(const QueryOptions& options, QueryResult& out);
  QueryResult query(const QueryOptions& options = {});

  /// Forgets every pair's warm start.
  void reset_warm_starts();

  struct PairCache;  // per pair: the plan and the warm start (narrow_phase.cpp)

 private:
  void check_body(int body) const;
  void update_boxes();
  void find_candidates(double margin, batch::ThreadPool* pool);
  PairCache& cache_for(int a, int b);

  std::vector<Body> bodies_;
  std::vector<SceneShape> shapes_;
  std::vector<std::uint64_t> disabled_;  // sorted keys min·2³² + max of disabled body pairs
  std::vector<Aabb> boxes_;
  std::vector<double> radii_;   // bounding-ball radius per shape (about the shape origin)
  std::vector<Vec3> centres_;   // the shape origins, world (update_boxes)
  std::vector<char> fixed_;     // per shape: its body is static (update_boxes)
  SweepAndPrune sap_;
  std::vector<std::pair<int, int>> candidates_;
  std::unordered_map<std::uint64_t, std::unique_ptr<PairCache>> caches_;
  std::vector<PairCache*> work_;
  // work_'s pair keys (sorted), and the previous query's pairs and keys: a pair met in the
  // previous query finds its cache by a merge instead of a hash look-up
  std::vector<std::uint64_t> work_keys_, previous_keys_;
  std::vector<PairCache*> previous_work_;
  std::vector<PairResult> scratch_results_;
  std::vector<PairDerivatives> scratch_derivatives_;
  std::unique_ptr<batch::ThreadPool> pool_;
};

}  // namespace diffcol::scene
