// Batched Contax manifolds and witness routines over a thread pool (see batch.hpp).
#include "diffcol/manifold/batch.hpp"

#include <stdexcept>
#include <string>

#include "fail.hpp"

namespace diffcol::manifold {

namespace {

using detail::fail;

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
    : options_(options) {
  objects_.push_back(std::move(body1));
  objects_.push_back(std::move(body2));
  pairs_.push_back({0, 1});
  init();
}

ManifoldBatch::ManifoldBatch(std::vector<ContactObject> objects, std::vector<std::array<int, 2>> pairs,
                             ManifoldBatchOptions options)
    : objects_(std::move(objects)), pairs_(std::move(pairs)), options_(options) {
  if (pairs_.empty()) fail("ManifoldBatch", "no object pairs");
  const int m = static_cast<int>(objects_.size());
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    const auto& pr = pairs_[p];
    if (pr[0] < 0 || pr[0] >= m || pr[1] < 0 || pr[1] >= m)
      fail("ManifoldBatch", "pair " + std::to_string(p) + " names an object outside [0, " + std::to_string(m) + ")");
    if (pr[0] == pr[1]) fail("ManifoldBatch", "pair " + std::to_string(p) + " is an object with itself");
  }
  init();
}

void ManifoldBatch::init() {
  options_.manifold.validate();
  if (options_.grain < 1) fail("ManifoldBatch", "grain must be >= 1");
  pool_ = std::make_unique<batch::ThreadPool>(options_.num_threads);
  const int n = pool_->num_threads();
  workers_.resize(static_cast<std::size_t>(n));
  busy_ = std::make_unique<std::atomic<bool>[]>(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) busy_[i].store(false);
  // K_p from one manifold per pair at the stored poses (also checks the sizes against the meshes).
  offsets_.assign(1, 0);
  for (const auto& pr : pairs_) {
    compute_manifold(objects_[static_cast<std::size_t>(pr[0])], objects_[static_cast<std::size_t>(pr[1])],
                     options_.manifold, workers_[0].workspace, workers_[0].manifold);
    entries_.push_back(static_cast<int>(workers_[0].manifold.entries.size()));
    offsets_.push_back(offsets_.back() + entries_.back());
  }
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
  for (Worker& w : workers_)
    for (const auto& pr : pairs_) {
      const ContactObject& a = objects_[static_cast<std::size_t>(pr[0])];
      const ContactObject& b = objects_[static_cast<std::size_t>(pr[1])];
      compute_manifold(a, a.pose(), b, b.pose(), options_.manifold, w.workspace, w.manifold);
      if (derivatives)
        compute_manifold_derivatives(a, a.pose(), b, b.pose(), options_.manifold, options_.coordinates, w.workspace,
                                     w.manifold, w.derivatives);
    }
}

bool ManifoldBatch::check_output(const char* fn, const ManifoldBatchOutput& out, std::size_t entries) {
  check_length(fn, "point", out.point.size(), entries * 3, false);
  check_length(fn, "normal", out.normal.size(), entries * 3, false);
  check_length(fn, "distance", out.distance.size(), entries, false);
  check_length(fn, "activity", out.activity.size(), entries, false);
  const bool with_derivatives = !out.J_point.empty() || !out.J_normal.empty() || !out.J_distance.empty() ||
                                !out.J_activity.empty();
  if (with_derivatives) {
    check_length(fn, "J_point", out.J_point.size(), entries * 36, false);
    check_length(fn, "J_normal", out.J_normal.size(), entries * 36, false);
    check_length(fn, "J_distance", out.J_distance.size(), entries * 12, false);
    check_length(fn, "J_activity", out.J_activity.size(), entries * 12, false);
  }
  return with_derivatives;
}

void ManifoldBatch::run_one(Worker& w, int a, const Pose& Xa, int b, const Pose& Xb, std::size_t base,
                            bool derivatives, const ManifoldBatchOutput& out) const {
  const ContactObject& A = objects_[static_cast<std::size_t>(a)];
  const ContactObject& B = objects_[static_cast<std::size_t>(b)];
  if (derivatives)
    compute_manifold_derivatives(A, Xa, B, Xb, options_.manifold, options_.coordinates, w.workspace, w.manifold,
                                 w.derivatives);
  else
    compute_manifold(A, Xa, B, Xb, options_.manifold, w.workspace, w.manifold);
  const std::size_t K = w.manifold.entries.size();
  for (std::size_t e = 0; e < K; ++e) {
    const ManifoldEntry& me = w.manifold.entries[e];
    const std::size_t i = base + e;
    for (int c = 0; c < 3; ++c) {
      out.point[3 * i + c] = me.point[c];
      out.normal[3 * i + c] = me.normal[c];
    }
    out.distance[i] = me.distance;
    out.activity[i] = me.activity;
    if (!derivatives) continue;
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

void ManifoldBatch::compute(std::span<const Pose> X_W1, std::span<const Pose> X_W2, const ManifoldBatchOutput& out) {
  const char* fn = "ManifoldBatch::compute";
  if (pairs_.size() != 1) fail(fn, "this batch has several object pairs; use compute_scenes");
  if (X_W1.size() != X_W2.size())
    fail(fn, "X_W1 has " + std::to_string(X_W1.size()) + " poses, X_W2 " + std::to_string(X_W2.size()));
  const std::size_t N = X_W1.size(), K = static_cast<std::size_t>(entries_[0]);
  const bool with_derivatives = check_output(fn, out, N * K);
  for (std::size_t q = 0; q < N; ++q)
    for (const Pose* X : {&X_W1[q], &X_W2[q]})
      if (const char* why = X->invalid_reason()) fail(fn, "pose pair " + std::to_string(q) + ": " + why);
  if (N == 0) return;
  const int a = pairs_[0][0], b = pairs_[0][1];
  auto body = [&](long begin, long end) {
    const int slot = acquire();
    Worker& w = workers_[static_cast<std::size_t>(slot)];
    try {
      for (long q = begin; q < end; ++q)
        run_one(w, a, X_W1[q], b, X_W2[q], static_cast<std::size_t>(q) * K, with_derivatives, out);
    } catch (...) {
      release(slot);
      throw;
    }
    release(slot);
  };
  pool_->parallel_for(static_cast<long>(N), options_.grain, body);
}

void ManifoldBatch::compute_scenes(std::span<const Pose> object_poses, const ManifoldBatchOutput& out) {
  const char* fn = "ManifoldBatch::compute_scenes";
  const std::size_t M = objects_.size(), P = pairs_.size();
  if (object_poses.size() % M != 0)
    fail(fn, std::to_string(object_poses.size()) + " poses are not a multiple of the " + std::to_string(M) +
                 " objects");
  const std::size_t S = object_poses.size() / M, Ktot = static_cast<std::size_t>(offsets_.back());
  const bool with_derivatives = check_output(fn, out, S * Ktot);
  for (std::size_t i = 0; i < object_poses.size(); ++i)
    if (const char* why = object_poses[i].invalid_reason())
      fail(fn, "pose of object " + std::to_string(i % M) + " in configuration " + std::to_string(i / M) + ": " +
                   why);
  if (S == 0) return;
  auto body = [&](long begin, long end) {  // task t = s·P + p
    const int slot = acquire();
    Worker& w = workers_[static_cast<std::size_t>(slot)];
    try {
      for (long t = begin; t < end; ++t) {
        const std::size_t s = static_cast<std::size_t>(t) / P, p = static_cast<std::size_t>(t) % P;
        const int a = pairs_[p][0], b = pairs_[p][1];
        run_one(w, a, object_poses[s * M + static_cast<std::size_t>(a)], b,
                object_poses[s * M + static_cast<std::size_t>(b)],
                s * Ktot + static_cast<std::size_t>(offsets_[p]), with_derivatives, out);
      }
    } catch (...) {
      release(slot);
      throw;
    }
    release(slot);
  };
  pool_->parallel_for(static_cast<long>(S * P), options_.grain, body);
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
