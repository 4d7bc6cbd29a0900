#pragma once
/// @file manifold.hpp
/// The Contax contact manifold g(pose1, pose2) between two objects (seed Sec. IV-A–IV-D):
/// vertex–SDF (V-S) contacts of each object's (selected) vertices against the other's SDF and
/// edge–edge (E-E) contacts between their (selected) edges, with candidate selection of fixed
/// sizes |V_b|, |E_b| by soft top-K (SoftSort) on penetration metrics, and exact derivatives of
/// every entry w.r.t. both poses (body twists or se(3) log coordinates).
///
/// Frames: the meshes and SDFs are in their body frames; poses are X_WB (world_from_body);
/// every manifold output (points, normals) is in the world frame. Twists are [ω; v].
///
/// Entry layout (always the same size for fixed options, K = |V_1| + |V_2| + 2·|E_1|·|E_2|):
///   [0, |V_1|)                 V-S: selected vertex r of body 1 against φ_2 (kind vertex_sdf, body 0)
///   [|V_1|, |V_1| + |V_2|)     V-S: selected vertex r of body 2 against φ_1 (body 1)
///   then for k < |E_1|, l < |E_2| (row-major), two entries: the E-E witness point on body 1's
///   selected edge k (body 0), then the one on body 2's selected edge l (body 1).
/// Each entry: point p, signed distance d (< 0: penetration), unit normal n pointing out of the
/// *other* body (the direction that pushes the point's own body out, contacts.hpp), activity
/// Γ ∈ [0, 1]: V-S σ(−d/t_pen) (12); E-E conγ·penγ·nnΓ·clγ (16), with the E-E margins of
/// ContactOptions (pen_margin, clash_margin).
///
/// E-E candidates: the mesh edges sharper than ManifoldOptions::feature_angle (the geometric
/// edges; triangulation edges inside flat faces are left out). |E_b| = −1 means all candidates.
///
/// Candidate selection (IV-A): vertex metric m_i = −φ_other(v_i); edge metric = mean of its two
/// vertices' metrics. With |V_b| < |V| the r-th selected vertex is Σ_j P_rj v_j, P the SoftSort
/// matrix of the metrics (smooth.hpp; one-hot at t = 0), likewise both end points of selected
/// edges. With |V_b| = |V| (or |E_b| = |E|) no selection is applied (identity, as the seed's
/// experiments do for V-S). Note: SoftSort blends entries with (nearly) equal metrics, so with
/// K < n tied vertices (e.g. a face resting flat) are averaged; use K = n or hard mode then.
///
/// Culling (ManifoldOptions::culling, on by default), exact to rounding: the layout and sizes stay
/// the same; only what cannot change the manifold in double precision is skipped.
///   - A V-S candidate whose lower bound L ≤ φ_other(v) (SdfObject::lower_bound: primitive boxes
///     and a bounding-volume hierarchy) exceeds 40·t_pen has activity σ(−φ/t_pen) < e^-40: it is
///     not evaluated. Its entry: the exact point (and its derivative), distance 40·t_pen (a
///     constant below the true φ_other(v)), normal 0, activity 0, `culled` set; distance, normal
///     and activity have derivative 0 (consistent with their values: they are constant).
///   - An E-E entry b whose nearest-neighbour factor nnΓ_b (13)–(14) is below e^-40, or whose
///     witness point has L + pen_margin > 40·t_pen at the other body (penγ_b < e^-40), has
///     activity (16) below e^-40: its penetration sample is skipped, and a pair with both entries
///     culled skips all four SDF samples (the witnesses and distances of all pairs are computed
///     first: (13)–(14) need them all). A culled E-E entry: the exact witness point, the unsigned
///     distance ‖e1 − e2‖ (≥ |d_b|) and normal ±n̄ of the witness (IV-D2, as if γ_b = 1), with
///     their derivatives; activity 0 (derivative 0), `culled` set.
///   - SoftSort top-K: candidates (vertices, edges) are evaluated in decreasing order of an upper
///     bound of their metric until the remaining bounds lie t·(40 + log n) below the K-th largest
///     exact metric; the others keep their bound as metric (derivative 0) and, like every entry
///     farther than that from a row's selected metric, get weight 0 (exactly: < e^-40/n dense).
///   - Inside each SDF evaluation, pieces of the union whose weight is below e^-40 of the best are
///     skipped (SdfObject::evaluate).
/// With culling off every candidate is evaluated densely (the reference of the culling test).
///
/// Allocation: compute_manifold / compute_manifold_derivatives size the workspace and the
/// outputs on the first call for a given pair of objects and options; later calls with the same
/// sizes allocate nothing (std::vector::resize within capacity).

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "diffcol/manifold/contacts.hpp"
#include "diffcol/manifold/dual.hpp"
#include "diffcol/manifold/sdf.hpp"
#include "diffcol/manifold/witness.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"

namespace diffcol::manifold {

/// An object of the manifold: a closed mesh and an SDF of the same surface, both in the body
/// frame, and its pose X_WB.
class ContactObject {
 public:
  /// @throws std::invalid_argument if the SDF has no primitive or the pose is not finite or beyond kMaxLength.
  ContactObject(mesh::TriangleMesh mesh, SdfObject sdf, const Pose& X_WB = Pose::identity());

  const mesh::TriangleMesh& mesh() const { return mesh_; }
  const SdfObject& sdf() const { return sdf_; }
  const Pose& pose() const { return pose_; }
  /// @throws std::invalid_argument if X_WB is not finite or beyond kMaxLength (1e100).
  void set_pose(const Pose& X_WB);
  /// Largest |φ(v)| over the mesh vertices (body frame): the mesh–SDF discrepancy (supp. II-C).
  double surface_discrepancy() const { return discrepancy_; }
  /// Dihedral angle of every mesh edge (same order as mesh().edges()): the angle between the
  /// outward normals of its two faces, radians in [0, π]; 0 for an edge inside a flat face (a
  /// triangulation edge, not a geometric edge of the surface).
  const std::vector<double>& edge_dihedral_angles() const { return dihedral_; }

 private:
  mesh::TriangleMesh mesh_;
  SdfObject sdf_;
  Pose pose_;
  double discrepancy_ = 0.0;
  std::vector<double> dihedral_;
};

/// Options of the manifold. Sizes −1 mean "all" (no selection).
struct ManifoldOptions {
  /// |V_1|, |V_2| selected vertices per body; 0: no V-S contacts of that body's vertices (one
  /// sided V-S, the seed's "Ours-NE-S" with edge_edge off).
  int num_vertices[2] = {-1, -1};
  int num_edges[2] = {-1, -1};     ///< |E_1|, |E_2| selected edges per body
  bool edge_edge = true;           ///< false: V-S contacts only (the seed's "Ours-NE")
  /// E-E candidates are the mesh edges whose dihedral angle (ContactObject::edge_dihedral_angles)
  /// exceeds this (radians): the geometric edges of the surface, as in the seed's polygonal cube
  /// (12 edges, 6 faces). Edges inside flat faces are triangulation artefacts whose E-E contacts
  /// duplicate V-S contacts and tie in (13)–(14). Negative: every mesh edge.
  double feature_angle = 1e-3;
  double t_topk = 1e-3;            ///< SoftSort temperature (a length, units of the metrics); 0 = hard
  WitnessOptions witness;          ///< E-E witness (IV-D2)
  ContactOptions contact;          ///< signs, penetration, clashing, nearest neighbours
  /// Sphere-tracing projection of the E-E witness points onto their own SDF's zero level set
  /// (supplementary II-C): this many steps e ← e − φ(e)∇φ(e)/‖∇φ(e)‖² on each of e1 (body 1's
  /// SDF) and e2 (body 2's) before the signs, penetrations, distance ‖e1 − e2‖ and normal of
  /// IV-D3 are computed from them; differentiated through. 0 (default): off. In [0, 20].
  int projection_iterations = 0;
  /// Skip the candidates that cannot change the manifold's activities in double precision (see
  /// the file comment; default). false: evaluate every candidate densely, so that every V-S
  /// distance is φ_other at its point (culled V-S entries carry the bound 40·t_pen instead).
  bool culling = true;

  /// Every temperature 0 ("Ours-NS"); the witness keeps the L2 regularization λ given.
  static ManifoldOptions hard(double regularization = 0.0);
  /// @throws std::invalid_argument on invalid temperatures, vertex sizes < −1 or edge sizes < −1
  /// or 0.
  void validate() const;
};

/// Which routine produced an entry.
enum class ContactKind : std::uint8_t { vertex_sdf = 0, edge_edge = 1 };

/// One manifold entry (world frame; see the file comment).
struct ManifoldEntry {
  ContactKind kind = ContactKind::vertex_sdf;
  int body = 0;              ///< 0: the point belongs to body 1, 1: to body 2
  int source = -1;           ///< V-S: the (hard top-K) vertex index; E-E: the edge index on `body`
  int other_source = -1;     ///< E-E: the edge index on the other body; V-S: −1
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
  double distance = 0.0;
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();
  double activity = 0.0;
  /// Not evaluated: activity provably < e^-40 (culling, file comment); V-S: distance is a lower
  /// bound then, normal 0.
  bool culled = false;
};

/// The manifold: a fixed number of entries for fixed options and meshes.
struct ContactManifold {
  std::vector<ManifoldEntry> entries;
  int num_vertex_sdf[2] = {0, 0};  ///< |V_1|, |V_2| actually used
  int num_edges[2] = {0, 0};       ///< |E_1|, |E_2| actually used (0 when edge_edge is off)
};

/// Derivatives of every entry w.r.t. the 12 pose coordinates [body 1 (6) | body 2 (6)], each
/// [ω; v] (PoseCoordinates): twists in a ReferenceFrame (math/se3.hpp) or se(3) log coordinates
/// (X_b = exp(s_b), s_b = se3_log(X_b)). One matrix per entry, same order as
/// ContactManifold::entries.
struct ManifoldDerivatives {
  std::vector<Eigen::Matrix<double, 3, 12>> J_point_X12, J_normal_X12;
  std::vector<Eigen::Matrix<double, 1, 12>> J_distance_X12, J_activity_X12;
};

/// Pose coordinates of ManifoldDerivatives: the twist of each body in the ReferenceFrame of the
/// same name (world: X_b ← exp(η^)·X_b; local: X_b ← X_b·exp(ξ^); local_world_aligned: ω and
/// the velocity of the body origin in world axes), or se(3) log coordinates.
enum class PoseCoordinates : int { world = 0, local = 1, local_world_aligned = 2, se3_log = 3 };
/// The PoseCoordinates of the twists in `frame`.
inline PoseCoordinates pose_coordinates(ReferenceFrame frame) { return static_cast<PoseCoordinates>(frame); }
/// "world", "local", "local_world_aligned", "se3_log".
inline const char* pose_coordinates_name(PoseCoordinates c) {
  return c == PoseCoordinates::se3_log ? "se3_log" : reference_frame_name(static_cast<ReferenceFrame>(c));
}

/// Scratch space of one scalar type (allocated once, reused).
template <class T>
struct ManifoldScratch {
  std::vector<V3<T>> world[2];              // world vertices of each body
  std::vector<SdfPoint<T>> sample[2];       // φ_other at each vertex (world frame)
  std::vector<T> metric[2];                 // vertex penetration metrics
  std::vector<T> edge_metric[2];
  std::vector<T> P;                         // SoftSort matrix (K × n)
  std::vector<int> order, sort_index;
  std::vector<V3<T>> edge_a[2], edge_b[2];  // selected edge end points
  std::vector<int> edge_source[2];
  std::vector<int> edge_candidates[2];      // mesh indices of the candidate (feature) edges
  std::vector<EdgeEdgeContact<T>> ee;
  std::vector<T> D, nn1, nn2;
  // Outputs in T.
  std::vector<V3<T>> point, normal;
  std::vector<T> distance, activity;
  // Culling state.
  std::vector<double> bound[2];              // lower bound of φ_other at each vertex
  std::vector<char> evaluated[2];            // sample / metric exact
  std::vector<double> upper;                 // metric upper bounds of the candidates
  std::vector<int> lazy_order;
  std::vector<double> heap;
  std::vector<char> processed;
  std::vector<char> pair_culled;             // bit b: E-E entry b of the pair culled
};

/// Reusable workspace of compute_manifold / compute_manifold_derivatives. The derivative pass
/// runs in body 2's frame with Dual<6> seeded by the twist of the relative pose X_W2⁻¹X_W1, then
/// maps the 6 columns to the 12 of both bodies (chain rule through the adjoint).
struct ManifoldWorkspace {
  ManifoldScratch<double> value;
  ManifoldScratch<Dual<6>> dual;
};

/// The manifold at the objects' own poses. @throws std::invalid_argument on invalid options.
void compute_manifold(const ContactObject& body1, const ContactObject& body2, const ManifoldOptions& options,
                      ManifoldWorkspace& workspace, ContactManifold& manifold);

/// The manifold at poses X_W1, X_W2 (the objects' stored poses are ignored).
/// @throws std::invalid_argument on invalid options, non-finite poses or translations beyond kMaxLength (1e100).
void compute_manifold(const ContactObject& body1, const Pose& X_W1, const ContactObject& body2, const Pose& X_W2,
                      const ManifoldOptions& options, ManifoldWorkspace& workspace, ContactManifold& manifold);

/// The manifold and its derivatives (forward mode: one Dual<6> pass over the relative pose,
/// mapped to both bodies' coordinates) at poses X_W1, X_W2.
/// @throws std::invalid_argument as compute_manifold.
void compute_manifold_derivatives(const ContactObject& body1, const Pose& X_W1, const ContactObject& body2,
                                  const Pose& X_W2, const ManifoldOptions& options, PoseCoordinates coordinates,
                                  ManifoldWorkspace& workspace, ContactManifold& manifold,
                                  ManifoldDerivatives& derivatives);

/// SoftSort top-K for a generic scalar (the same P as smooth::soft_top_k, with derivatives
/// carried by T): P (k × n row-major), order (k) = hard top-K indices; sort_index: n ints of
/// scratch. Preconditions: 1 ≤ k ≤ n, t ≥ 0.
template <class T>
void soft_top_k_generic(const T* x, int n, int k, double t, T* P, int* order, int* sort_index);

}  // namespace diffcol::manifold
