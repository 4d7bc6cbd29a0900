#pragma once
/// @file batch.hpp
/// Batched Contax queries over a persistent thread pool (batch/thread_pool.hpp):
///  - ManifoldBatch: the contact manifold (and optionally its pose derivatives) of one object pair
///    at N pose pairs per call, written into caller-provided flat arrays;
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
/// Results are bit-for-bit those of compute_manifold / compute_manifold_derivatives called one
/// query at a time, for any number of threads: each query writes only its own slice of the
/// outputs, and the per-worker workspaces are scratch only.
///
/// Allocation: each worker owns a ManifoldWorkspace (and a ContactManifold / ManifoldDerivatives);
/// they are sized by the first query a worker runs (or by warm_up()), after which compute()
/// allocates nothing.
///
/// Thread safety: one ManifoldBatch must not be used from two threads at once.

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
  PoseCoordinates coordinates = PoseCoordinates::body_twist;  ///< Jacobian columns (if requested)
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
  /// Copies both objects. @throws std::invalid_argument on invalid options (manifold options,
  /// grain < 1, num_threads < 0 or > 1024) or sizes the meshes cannot provide.
  ManifoldBatch(ContactObject body1, ContactObject body2, ManifoldBatchOptions options = {});

  /// Entries per manifold K (fixed by the meshes and options).
  int entries_per_manifold() const { return entries_; }
  int num_threads() const { return pool_->num_threads(); }
  const ManifoldBatchOptions& options() const { return options_; }
  const ContactObject& body(int b) const { return b == 0 ? body1_ : body2_; }

  /// Sizes every worker's workspace (values, and derivatives if `derivatives`), so that later
  /// compute() calls allocate nothing. Optional: compute() warms up lazily otherwise.
  void warm_up(bool derivatives);

  /// Manifolds at the N = X_W1.size() pose pairs (X_W1[q], X_W2[q]), into `out`; derivatives too
  /// if out's Jacobian arrays are given.
  /// @throws std::invalid_argument if X_W1 and X_W2 differ in length, an output array has the
  /// wrong length, only some Jacobian arrays are given, or a pose is not finite (checked
  /// before any work).
  void compute(std::span<const Pose> X_W1, std::span<const Pose> X_W2, const ManifoldBatchOutput& out);

 private:
  struct Worker {
    ManifoldWorkspace workspace;
    ContactManifold manifold;
    ManifoldDerivatives derivatives;
  };
  /// A free worker slot (at most num_threads() chunks run at once, so one is always free).
  int acquire();
  void release(int slot) { busy_[slot].store(false, std::memory_order_release); }

  ContactObject body1_, body2_;
  ManifoldBatchOptions options_;
  std::unique_ptr<batch::ThreadPool> pool_;
  std::vector<Worker> workers_;
  std::unique_ptr<std::atomic<bool>[]> busy_;
  int entries_ = 0;
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
/// finiteness (a hot loop): NaN in, NaN out for that query only.
void edge_edge_witness_batch(std::span<const double> ends, const WitnessOptions& options,
                             const EdgeEdgeBatchOutput& out, batch::ThreadPool* pool = nullptr);

/// vertex_face_witness over N queries. `ends` holds N·12 coordinates, per query [v p0 p1 p2].
/// @throws std::invalid_argument as edge_edge_witness_batch.
void vertex_face_witness_batch(std::span<const double> ends, const WitnessOptions& options,
                               const VertexFaceBatchOutput& out, batch::ThreadPool* pool = nullptr);

}  // namespace diffcol::manifold
