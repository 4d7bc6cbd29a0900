#pragma once
/// @file batch.hpp
/// Batched Contax queries over a persistent thread pool (batch/thread_pool.hpp):
///  - ManifoldBatch: the contact manifold (and optionally its pose derivatives) of one object pair
///    at N pose pairs per call, or of several object pairs of a scene of objects at S scene
///    configurations per call, written into caller-provided flat arrays;
///  - edge_edge_witness_batch / vertex_face_witness_batch: the E-E and V-F witness routines of
///    witness.hpp over N independent queries (the seed's Fig. 6 experiment).
///
/// Layouts (row-major, query-major; K = entries_per_manifold()):
///   point, normal      N·K·3   [query q][entry e][x, y, z]          world frame
///   distance, activity N·K     [query q][entry e]
///   J_point, J_normal  N·K·36  [query q][entry e][row i < 3][col c < 12]
///   J_distance, J_activity N·K·12 [query q][entry e][col c < 12]
/// Entry order and meaning as manifold.hpp (ContactManifold::entries); Jacobian columns are the 12
/// pose coordinates [body 1 | body 2], each [ω; v], in ManifoldBatchOptions::coordinates.
///
/// Scenes (several object pairs): M objects, P pairs (a_p, b_p), S configurations given as S·M
/// object poses [configuration s][object m]. "Query" above becomes (s, p): the manifold of pair p
/// in configuration s has K_p entries and starts at entry offset s·K_total + pair_offset(p),
/// K_total = Σ_p K_p, in the same per-entry layouts (N·K replaced by S·K_total). Jacobian columns
/// are [pose of a_p | pose of b_p] of that entry's pair.
///
/// Results are bit-for-bit those of compute_manifold / compute_manifold_derivatives called one
/// query at a time, for any number of threads: each query writes only its own slice of the
/// outputs, and the per-worker workspaces are scratch only.
///
/// Allocation: each worker owns a ManifoldWorkspace (and a ContactManifold / ManifoldDerivatives);
/// they are sized by the first query a worker runs (or by warm_up()), after which compute()
/// allocates nothing.
///
/// Thread safety: one ManifoldBatch must not be used from two threads at once.

#include <array>
#include <atomic>
#include <memory>
#include <span>
#include <vector>

#include "diffcol/batch/thread_pool.hpp"
#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/witness.hpp"

namespace diffcol::manifold {

/// Settings of a ManifoldBatch.
struct ManifoldBatchOptions {
  int num_threads = 0;         ///< threads per call, the caller included; 0 = available cores
  long grain = 1;              ///< queries per scheduling chunk (≥ 1)
  ManifoldOptions manifold;    ///< options of every manifold
  PoseCoordinates coordinates = PoseCoordinates::world;  ///< Jacobian columns (if requested)
};

/// Caller-provided outputs of ManifoldBatch::compute (layouts: see the file comment). The four
/// value arrays are required; the four Jacobian arrays are all empty (values only) or all sized.
struct ManifoldBatchOutput {
  std::span<double> point, distance, normal, activity;
  std::span<double> J_point, J_distance, J_normal, J_activity;
};

/// The manifold of one object pair at many pose pairs per call (see the file comment).
class ManifoldBatch {
 public:
  /// One object pair. Copies both objects. @throws std::invalid_argument on invalid options
  /// (manifold options, grain < 1, num_threads < 0 or > 1024) or sizes the meshes cannot provide.
  ManifoldBatch(ContactObject body1, ContactObject body2, ManifoldBatchOptions options = {});
  /// A scene: objects[pairs[p][0]] against objects[pairs[p][1]] for every p (file comment).
  /// @throws std::invalid_argument as above, on no pairs, an index out of range or a pair of an
  /// object with itself.
  ManifoldBatch(std::vector<ContactObject> objects, std::vector<std::array<int, 2>> pairs,
                ManifoldBatchOptions options = {});

  /// Entries per manifold K of the first pair (fixed by the meshes and options); with one pair,
  /// the K of every query.
  int entries_per_manifold() const { return entries_[0]; }
  int num_objects() const { return static_cast<int>(objects_.size()); }
  int num_pairs() const { return static_cast<int>(pairs_.size()); }
  const std::array<int, 2>& pair(int p) const { return pairs_[static_cast<std::size_t>(p)]; }
  /// K_p, and the offset of pair p's entries within one configuration's K_total entries.
  int pair_entries(int p) const { return entries_[static_cast<std::size_t>(p)]; }
  int pair_offset(int p) const { return offsets_[static_cast<std::size_t>(p)]; }
  /// K_total = Σ_p K_p: the entries of one scene configuration.
  int entries_per_configuration() const { return offsets_.back(); }
  int num_threads() const { return pool_->num_threads(); }
  const ManifoldBatchOptions& options() const { return options_; }
  /// The two objects of the first pair (b = 0, 1).
  const ContactObject& body(int b) const { return objects_[static_cast<std::size_t>(pairs_[0][b])]; }
  const ContactObject& object(int m) const { return objects_[static_cast<std::size_t>(m)]; }

  /// Sizes every worker's workspace (values, and derivatives if `derivatives`), so that later
  /// compute() calls allocate nothing. Optional: compute() warms up lazily otherwise.
  void warm_up(bool derivatives);

  /// Manifolds at the N = X_W1.size() pose pairs (X_W1[q], X_W2[q]), into `out`; derivatives too
  /// if out's Jacobian arrays are given.
  /// @throws std::invalid_argument if X_W1 and X_W2 differ in length, an output array has the
  /// wrong length, only some Jacobian arrays are given, or a pose is not finite (checked
  /// before any work).
  /// Requires a single pair (else std::invalid_argument; use compute_scenes).
  void compute(std::span<const Pose> X_W1, std::span<const Pose> X_W2, const ManifoldBatchOutput& out);

  /// The manifolds of every pair at the S = object_poses.size() / num_objects() configurations
  /// (object poses [configuration s][object m]), into `out` (layouts: file comment, N·K replaced
  /// by S·K_total); derivatives too if out's Jacobian arrays are given.
  /// @throws std::invalid_argument if object_poses is not a multiple of num_objects(), an output
  /// array has the wrong length, only some Jacobian arrays are given, or a pose is not finite.
  void compute_scenes(std::span<const Pose> object_poses, const ManifoldBatchOutput& out);

 private:
  struct Worker {
    ManifoldWorkspace workspace;
    ContactManifold manifold;
    ManifoldDerivatives derivatives;
  };
  /// A free worker slot (at most num_threads() chunks run at once, so one is always free).
  int acquire();
  void release(int slot) { busy_[slot].store(false, std::memory_order_release); }

  void init();
  /// Checks the output lengths for `entries` entries in all; returns whether derivatives are asked.
  static bool check_output(const char* fn, const ManifoldBatchOutput& out, std::size_t entries);
  /// Manifold of objects (a, b) at (Xa, Xb) into w, copied to entries [base, base + K) of out.
  void run_one(Worker& w, int a, const Pose& Xa, int b, const Pose& Xb, std::size_t base, bool derivatives,
               const ManifoldBatchOutput& out) const;

  std::vector<ContactObject> objects_;
  std::vector<std::array<int, 2>> pairs_;
  ManifoldBatchOptions options_;
  std::unique_ptr<batch::ThreadPool> pool_;
  std::vector<Worker> workers_;
  std::unique_ptr<std::atomic<bool>[]> busy_;
  std::vector<int> entries_, offsets_;  ///< K_p; prefix sums (offsets_.back() = K_total)
};

/// Outputs of edge_edge_witness_batch (N queries; empty spans are skipped).
struct EdgeEdgeBatchOutput {
  std::span<double> e1, e2;          ///< N·3 witness points on edge 1 and edge 2
  std::span<double> alpha;           ///< N·2 (α1, α2)
  std::span<double> distance;        ///< N, ‖e1 − e2‖
  std::span<double> gamma_con;       ///< N, conγ
};

/// Outputs of vertex_face_witness_batch (N queries; empty spans are skipped).
struct VertexFaceBatchOutput {
  std::span<double> point;           ///< N·3 witness points on the triangles
  std::span<double> distance;        ///< N
  std::span<double> gamma_inside;    ///< N
};

/// edge_edge_witness over N queries. `ends` holds N·12 coordinates, per query [a0 a1 b0 b1]
/// (x, y, z each, one common frame). pool = nullptr runs on the calling thread only.
/// @throws std::invalid_argument on invalid options, ends.size() not a multiple of 12, or an
/// output span that is neither empty nor of its documented length. Inputs are not checked for
/// finiteness (a hot loop): a query with a non-finite coordinate gets unspecified values (NaN, or
/// a finite but meaningless distance), that query only. The Python binding rejects them.
void edge_edge_witness_batch(std::span<const double> ends, const WitnessOptions& options,
                             const EdgeEdgeBatchOutput& out, batch::ThreadPool* pool = nullptr);

/// vertex_face_witness over N queries. `ends` holds N·12 coordinates, per query [v p0 p1 p2].
/// @throws std::invalid_argument as edge_edge_witness_batch.
void vertex_face_witness_batch(std::span<const double> ends, const WitnessOptions& options,
                               const VertexFaceBatchOutput& out, batch::ThreadPool* pool = nullptr);

}  // namespace diffcol::manifold
