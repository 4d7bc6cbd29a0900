// Batched Contax manifolds and witness routines over a thread pool (see batch.hpp).
#include "diffcol/manifold/batch.hpp"

#include <stdexcept>
#include <string>

namespace diffcol::manifold {

namespace {

[[noreturn]] void fail(const char* fn, const std::string& what) {
  throw std::invalid_argument(std::string("diffcol::manifold::") + fn + ": " + what);
}

void check_length(const char* fn, const char* name, std::size_t got, std::size_t want, bool optional) {
  if (optional && got == 0) return;
  if (got != want)
    fail(fn, std::string(name) + " has " + std::to_string(got) + " values, expected " + std::to_string(want));
}

V3<double> load(const double* p) { return V3<double>(p[0], p[1], p[2]); }

void store(const V3<double>& v, double* p) {
  p[0] = v.x;
  p[1] = v.y;
  p[2] = v.z;
}

}  // namespace

ManifoldBatch::ManifoldBatch(ContactObject body1, ContactObject body2, ManifoldBatchOptions options)
    : body1_(std::move(body1)), body2_(std::move(body2)), options_(options) {
  options_.manifold.validate();
  if (options_.grain < 1) fail("ManifoldBatch", "grain must be >= 1");
  pool_ = std::make_unique<batch::ThreadPool>(options_.num_threads);
  const int n = pool_->num_threads();
  workers_.resize(static_cast<std::size_t>(n));
  busy_ = std::make_unique<std::atomic<bool>[]>(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) busy_[i].store(false);
  // K from one manifold at the stored poses (also checks the sizes against the meshes).
  compute_manifold(body1_, body2_, options_.manifold, workers_[0].workspace, workers_[0].manifold);
  entries_ = static_cast<int>(workers_[0].manifold.entries.size());
}

int ManifoldBatch::acquire() {
  const int n = static_cast<int>(workers_.size());
  for (;;)
    for (int i = 0; i < n; ++i) {
      bool expected = false;
      if (!busy_[i].load(std::memory_order_relaxed) &&
          busy_[i].compare_exchange_strong(expected, true, std::memory_order_acquire))
        return i;
    }
}

void ManifoldBatch::warm_up(bool derivatives) {
  const Pose X1 = body1_.pose(), X2 = body2_.pose();
  for (Worker& w : workers_) {
    compute_manifold(body1_, X1, body2_, X2, options_.manifold, w.workspace, w.manifold);
    if (derivatives)
      compute_manifold_derivatives(body1_, X1, body2_, X2, options_.manifold, options_.coordinates, w.workspace,
                                   w.manifold, w.derivatives);
  }
}

void ManifoldBatch::compute(std::span<const Pose> X_W1, std::span<const Pose> X_W2, const ManifoldBatchOutput& out) {
  const char* fn = "ManifoldBatch::compute";
  if (X_W1.size() != X_W2.size())
    fail(fn, "X_W1 has " + std::to_string(X_W1.size()) + " poses, X_W2 " + std::to_string(X_W2.size()));
  const std::size_t N = X_W1.size(), K = static_cast<std::size_t>(entries_);
  check_length(fn, "point", out.point.size(), N * K * 3, false);
  check_length(fn, "normal", out.normal.size(), N * K * 3, false);
  check_length(fn, "distance", out.distance.size(), N * K, false);
  check_length(fn, "activity", out.activity.size(), N * K, false);
  const bool with_derivatives = !out.J_point.empty() || !out.J_normal.empty() || !out.J_distance.empty() ||
                                !out.J_activity.empty();
  if (with_derivatives) {
    check_length(fn, "J_point", out.J_point.size(), N * K * 36, false);
    check_length(fn, "J_normal", out.J_normal.size(), N * K * 36, false);
    check_length(fn, "J_distance", out.J_distance.size(), N * K * 12, false);
    check_length(fn, "J_activity", out.J_activity.size(), N * K * 12, false);
  }
  for (std::size_t q = 0; q < N; ++q)
    if (!X_W1[q].R.allFinite() || !X_W1[q].p.allFinite() || !X_W2[q].R.allFinite() || !X_W2[q].p.allFinite())
      fail(fn, "pose pair " + std::to_string(q) + " is not finite");
  if (N == 0) return;

  auto body = [&](long begin, long end) {
    const int slot = acquire();
    Worker& w = workers_[static_cast<std::size_t>(slot)];
    try {
      for (long q = begin; q < end; ++q) {
        if (with_derivatives)
          compute_manifold_derivatives(body1_, X_W1[q], body2_, X_W2[q], options_.manifold, options_.coordinates,
                                       w.workspace, w.manifold, w.derivatives);
        else
          compute_manifold(body1_, X_W1[q], body2_, X_W2[q], options_.manifold, w.workspace, w.manifold);
        const std::size_t base = static_cast<std::size_t>(q) * K;
        for (std::size_t e = 0; e < K; ++e) {
          const ManifoldEntry& me = w.manifold.entries[e];
          const std::size_t i = base + e;
          for (int c = 0; c < 3; ++c) {
            out.point[3 * i + c] = me.point[c];
            out.normal[3 * i + c] = me.normal[c];
          }
          out.distance[i] = me.distance;
          out.activity[i] = me.activity;
          if (!with_derivatives) continue;
          const ManifoldDerivatives& d = w.derivatives;
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 12; ++c) {
              out.J_point[36 * i + 12 * r + c] = d.J_point_X12[e](r, c);
              out.J_normal[36 * i + 12 * r + c] = d.J_normal_X12[e](r, c);
            }
          for (int c = 0; c < 12; ++c) {
            out.J_distance[12 * i + c] = d.J_distance_X12[e](0, c);
            out.J_activity[12 * i + c] = d.J_activity_X12[e](0, c);
          }
        }
      }
    } catch (...) {
      release(slot);
      throw;
    }
    release(slot);
  };
  pool_->parallel_for(static_cast<long>(N), options_.grain, body);
}

// ---------------------------------------------------------------------------------------------
// Witness routines over N queries (seed Fig. 6).
// ---------------------------------------------------------------------------------------------

namespace {

constexpr long kWitnessGrain = 4096;

template <class Body>
void run_range(long n, batch::ThreadPool* pool, Body& body) {
  if (pool == nullptr) {
    body(0, n);
    return;
  }
  pool->parallel_for(n, kWitnessGrain, body);
}

}  // namespace

void edge_edge_witness_batch(std::span<const double> ends, const WitnessOptions& options,
                             const EdgeEdgeBatchOutput& out, batch::ThreadPool* pool) {
  const char* fn = "edge_edge_witness_batch";
  options.validate();
  if (ends.size() % 12 != 0) fail(fn, "ends must hold 12 coordinates per query");
  const std::size_t N = ends.size() / 12;
  check_length(fn, "e1", out.e1.size(), 3 * N, true);
  check_length(fn, "e2", out.e2.size(), 3 * N, true);
  check_length(fn, "alpha", out.alpha.size(), 2 * N, true);
  check_length(fn, "distance", out.distance.size(), N, true);
  check_length(fn, "gamma_con", out.gamma_con.size(), N, true);
  const double* in = ends.data();
  auto body = [&](long begin, long end) {
    for (long q = begin; q < end; ++q) {
      const double* p = in + 12 * q;
      const EdgeEdgeWitness<double> w = edge_edge_witness(load(p), load(p + 3), load(p + 6), load(p + 9), options);
      if (!out.e1.empty()) store(w.e1, &out.e1[3 * q]);
      if (!out.e2.empty()) store(w.e2, &out.e2[3 * q]);
      if (!out.alpha.empty()) {
        out.alpha[2 * q] = w.alpha1;
        out.alpha[2 * q + 1] = w.alpha2;
      }
      if (!out.distance.empty()) out.distance[q] = w.distance;
      if (!out.gamma_con.empty()) out.gamma_con[q] = w.gamma_con;
    }
  };
  run_range(static_cast<long>(N), pool, body);
}

void vertex_face_witness_batch(std::span<const double> ends, const WitnessOptions& options,
                               const VertexFaceBatchOutput& out, batch::ThreadPool* pool) {
  const char* fn = "vertex_face_witness_batch";
  options.validate();
  if (ends.size() % 12 != 0) fail(fn, "ends must hold 12 coordinates per query");
  const std::size_t N = ends.size() / 12;
  check_length(fn, "point", out.point.size(), 3 * N, true);
  check_length(fn, "distance", out.distance.size(), N, true);
  check_length(fn, "gamma_inside", out.gamma_inside.size(), N, true);
  const double* in = ends.data();
  auto body = [&](long begin, long end) {
    for (long q = begin; q < end; ++q) {
      const double* p = in + 12 * q;
      const VertexFaceWitness<double> w = vertex_face_witness(load(p), load(p + 3), load(p + 6), load(p + 9), options);
      if (!out.point.empty()) store(w.point, &out.point[3 * q]);
      if (!out.distance.empty()) out.distance[q] = w.distance;
      if (!out.gamma_inside.empty()) out.gamma_inside[q] = w.gamma_inside;
    }
  };
  run_range(static_cast<long>(N), pool, body);
}

}  // namespace diffcol::manifold
