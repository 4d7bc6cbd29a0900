// Batched manifolds and witness routines (batch.hpp): bit-for-bit equal to one-by-one calls for
// 1 and 2 threads, values and derivatives, and bad input rejected with std::invalid_argument.
#include <array>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "diffcol/manifold/batch.hpp"
#include "diffcol/manifold/figures.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
#include "test_util.hpp"

namespace mf = diffcol::manifold;
using diffcol::Pose;
using diffcol::Vec3;

namespace {

mf::ContactObject box(double size, int n) {
  return mf::ContactObject(mf::make_refined_box(Vec3::Constant(size), n), mf::make_box_sdf(Vec3::Constant(size), 0.1));
}

/// Body 1 near body 2 (overlapping or a little apart), random orientations.
void random_poses(int n, double spread, unsigned seed, std::vector<Pose>& X1, std::vector<Pose>& X2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  X1.clear();
  X2.clear();
  for (int i = 0; i < n; ++i) {
    X1.push_back(diffcol::test::make_pose(diffcol::test::random_rotation(rng), spread * Vec3(U(rng), U(rng), U(rng))));
    X2.push_back(diffcol::test::make_pose(diffcol::test::random_rotation(rng), spread * Vec3(U(rng), U(rng), U(rng))));
  }
}

/// Flat output arrays for N queries of K entries.
struct Arrays {
  std::vector<double> point, distance, normal, activity, J_point, J_distance, J_normal, J_activity;
  Arrays(std::size_t N, std::size_t K, bool derivatives)
      : point(N * K * 3), distance(N * K), normal(N * K * 3), activity(N * K) {
    if (!derivatives) return;
    J_point.resize(N * K * 36);
    J_normal.resize(N * K * 36);
    J_distance.resize(N * K * 12);
    J_activity.resize(N * K * 12);
  }
  mf::ManifoldBatchOutput view() {
    return {point, distance, normal, activity, J_point, J_distance, J_normal, J_activity};
  }
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

/// Every output of query q equals the one-by-one call, bit for bit.
/// The K entries of the manifold of (A at XA, B at XB) equal a's entries [base, base + K), bit for bit.
void expect_entries_match(const mf::ManifoldBatch& batch, const mf::ContactObject& A, const Pose& XA,
                          const mf::ContactObject& B, const Pose& XB, const Arrays& a, std::size_t base,
                          std::size_t K, bool derivatives, const char* what, std::size_t q) {
  mf::ManifoldWorkspace ws;
  mf::ContactManifold m;
  mf::ManifoldDerivatives d;
  const mf::ManifoldOptions& opt = batch.options().manifold;
  if (derivatives)
    mf::compute_manifold_derivatives(A, XA, B, XB, opt, batch.options().coordinates, ws, m, d);
  else
    mf::compute_manifold(A, XA, B, XB, opt, ws, m);
  ASSERT_EQ(m.entries.size(), K);
  int mismatches = 0;
  for (std::size_t e = 0; e < K; ++e) {
    const std::size_t i = base + e;
    const mf::ManifoldEntry& me = m.entries[e];
    for (int c = 0; c < 3; ++c) {
      mismatches += !same_bits(a.point[3 * i + c], me.point[c]);
      mismatches += !same_bits(a.normal[3 * i + c], me.normal[c]);
    }
    mismatches += !same_bits(a.distance[i], me.distance);
    mismatches += !same_bits(a.activity[i], me.activity);
    if (!derivatives) continue;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 12; ++c) {
        mismatches += !same_bits(a.J_point[36 * i + 12 * r + c], d.J_point_X12[e](r, c));
        mismatches += !same_bits(a.J_normal[36 * i + 12 * r + c], d.J_normal_X12[e](r, c));
      }
    for (int c = 0; c < 12; ++c) {
      mismatches += !same_bits(a.J_distance[12 * i + c], d.J_distance_X12[e](0, c));
      mismatches += !same_bits(a.J_activity[12 * i + c], d.J_activity_X12[e](0, c));
    }
  }
  EXPECT_EQ(mismatches, 0) << what << " " << q;
}

/// Every output of query q of a one-pair batch equals the one-by-one call, bit for bit.
void expect_matches_single(const mf::ManifoldBatch& batch, const Pose& X1, const Pose& X2, const Arrays& a,
                           std::size_t q, bool derivatives) {
  const std::size_t K = static_cast<std::size_t>(batch.entries_per_manifold());
  expect_entries_match(batch, batch.body(0), X1, batch.body(1), X2, a, q * K, K, derivatives, "query", q);
}

mf::ManifoldOptions selecting_options() {
  mf::ManifoldOptions o;
  o.num_vertices[0] = 6;
  o.num_vertices[1] = 10;
  o.num_edges[0] = 5;
  o.num_edges[1] = 7;
  return o;
}

}  // namespace

TEST(ManifoldBatch, MatchesSingleQueriesBitForBit) {
  std::vector<Pose> X1, X2;
  random_poses(37, 0.4, 1, X1, X2);
  for (int threads : {1, 2})
    for (bool derivatives : {false, true})
      for (auto coords : {mf::PoseCoordinates::local, mf::PoseCoordinates::se3_log}) {
        if (!derivatives && coords == mf::PoseCoordinates::se3_log) continue;
        mf::ManifoldBatchOptions o;
        o.num_threads = threads;
        o.grain = 3;
        o.manifold = selecting_options();
        o.coordinates = coords;
        mf::ManifoldBatch batch(box(0.7, 2), box(1.0, 2), o);
        EXPECT_EQ(batch.num_threads(), threads);
        const std::size_t K = static_cast<std::size_t>(batch.entries_per_manifold());
        EXPECT_EQ(K, 6u + 10u + 2u * 5u * 7u);
        Arrays a(X1.size(), K, derivatives);
        batch.compute(X1, X2, a.view());
        for (std::size_t q = 0; q < X1.size(); ++q) expect_matches_single(batch, X1[q], X2[q], a, q, derivatives);
        // A second call (warm workspaces) gives the same bits.
        Arrays b(X1.size(), K, derivatives);
        batch.compute(X1, X2, b.view());
        EXPECT_EQ(0, std::memcmp(a.point.data(), b.point.data(), a.point.size() * sizeof(double)));
        EXPECT_EQ(0, std::memcmp(a.activity.data(), b.activity.data(), a.activity.size() * sizeof(double)));
        if (derivatives) {
          EXPECT_EQ(0, std::memcmp(a.J_distance.data(), b.J_distance.data(), a.J_distance.size() * sizeof(double)));
        }
      }
}

TEST(ManifoldBatch, ScenesOfSeveralPairsMatchSingleQueries) {
  // Three boxes of different meshes (different K per pair), three pairs, five configurations.
  std::vector<mf::ContactObject> objects{box(0.7, 1), box(1.0, 2), box(0.5, 1)};
  const std::vector<std::array<int, 2>> pairs{{0, 1}, {1, 2}, {2, 0}};
  std::vector<Pose> X1, X2, poses;
  random_poses(8, 0.4, 7, X1, X2);
  for (std::size_t i = 0; i < 15; ++i) poses.push_back(i % 2 ? X2[i / 2] : X1[i / 2]);  // S = 5 configurations, M = 3
  for (int threads : {1, 2})
    for (bool derivatives : {false, true}) {
      mf::ManifoldBatchOptions o;
      o.num_threads = threads;
      o.grain = 2;
      mf::ManifoldBatch batch(objects, pairs, o);
      ASSERT_EQ(batch.num_pairs(), 3);
      ASSERT_EQ(batch.num_objects(), 3);
      int total = 0;
      for (int p = 0; p < 3; ++p) {
        EXPECT_EQ(batch.pair_offset(p), total);
        total += batch.pair_entries(p);
      }
      EXPECT_EQ(batch.entries_per_configuration(), total);
      EXPECT_NE(batch.pair_entries(0), batch.pair_entries(2));  // (the test needs unequal K_p)
      const std::size_t S = poses.size() / 3, Kt = static_cast<std::size_t>(total);
      Arrays a(S, Kt, derivatives);
      batch.compute_scenes(poses, a.view());
      for (std::size_t s = 0; s < S; ++s)
        for (int p = 0; p < 3; ++p) {
          const auto& pr = batch.pair(p);
          expect_entries_match(batch, objects[static_cast<std::size_t>(pr[0])], poses[3 * s + static_cast<std::size_t>(pr[0])],
                               objects[static_cast<std::size_t>(pr[1])], poses[3 * s + static_cast<std::size_t>(pr[1])], a,
                               s * Kt + static_cast<std::size_t>(batch.pair_offset(p)),
                               static_cast<std::size_t>(batch.pair_entries(p)), derivatives, "configuration", s);
        }
      // compute() is for one pair only; bad pose counts, sizes and pairs are rejected
      Arrays one(1, static_cast<std::size_t>(batch.entries_per_manifold()), false);
      EXPECT_THROW(batch.compute(std::span<const Pose>(X1.data(), 1), std::span<const Pose>(X2.data(), 1), one.view()),
                   std::invalid_argument);
      EXPECT_THROW(batch.compute_scenes(std::span<const Pose>(poses.data(), 14), a.view()), std::invalid_argument);
      Arrays wrong(S - 1, Kt, derivatives);
      EXPECT_THROW(batch.compute_scenes(poses, wrong.view()), std::invalid_argument);
    }
  EXPECT_THROW(mf::ManifoldBatch(objects, {}), std::invalid_argument);
  EXPECT_THROW(mf::ManifoldBatch(objects, {{0, 3}}), std::invalid_argument);
  EXPECT_THROW(mf::ManifoldBatch(objects, {{1, 1}}), std::invalid_argument);
  std::vector<Pose> bad = poses;
  bad[4].p.x() = std::numeric_limits<double>::quiet_NaN();
  mf::ManifoldBatch batch(objects, pairs);
  Arrays a(5, static_cast<std::size_t>(batch.entries_per_configuration()), false);
  EXPECT_THROW(batch.compute_scenes(bad, a.view()), std::invalid_argument);
}

TEST(ManifoldBatch, FiguresWithTheSeedsCandidateSizes) {
  // Two 18-superquadric figures, all vertices (V-S) and K = 18 edges per body (E-E).
  const mf::LimbedFigure f = mf::make_limbed_figure({});
  mf::FigureOptions o2;
  o2.seed = 5;
  const mf::LimbedFigure g = mf::make_limbed_figure(o2);
  mf::ManifoldBatchOptions o;
  o.num_threads = 2;
  o.manifold.num_edges[0] = o.manifold.num_edges[1] = 18;
  mf::ManifoldBatch batch(f.contact_object(), g.contact_object(), o);
  EXPECT_EQ(batch.entries_per_manifold(), f.mesh.num_vertices() + g.mesh.num_vertices() + 2 * 18 * 18);
  std::vector<Pose> X1, X2;
  random_poses(4, 0.2, 2, X1, X2);
  for (bool derivatives : {false, true}) {
    Arrays a(X1.size(), static_cast<std::size_t>(batch.entries_per_manifold()), derivatives);
    batch.compute(X1, X2, a.view());
    for (std::size_t q = 0; q < X1.size(); ++q) expect_matches_single(batch, X1[q], X2[q], a, q, derivatives);
  }
}

TEST(ManifoldBatch, EmptyBatchAndWarmUp) {
  mf::ManifoldBatchOptions o;
  o.num_threads = 2;
  mf::ManifoldBatch batch(box(0.7, 1), box(1.0, 1), o);
  batch.warm_up(true);
  Arrays a(0, static_cast<std::size_t>(batch.entries_per_manifold()), true);
  EXPECT_NO_THROW(batch.compute({}, {}, a.view()));
}

TEST(ManifoldBatch, RejectsBadInput) {
  mf::ManifoldBatchOptions o;
  o.num_threads = 2;
  mf::ManifoldBatch batch(box(0.7, 1), box(1.0, 1), o);
  const std::size_t K = static_cast<std::size_t>(batch.entries_per_manifold());
  std::vector<Pose> X1, X2;
  random_poses(3, 0.4, 3, X1, X2);
  {  // mismatched pose counts
    Arrays a(3, K, false);
    EXPECT_THROW(batch.compute(X1, std::span<const Pose>(X2.data(), 2), a.view()), std::invalid_argument);
  }
  {  // wrong output sizes
    Arrays a(2, K, false);
    EXPECT_THROW(batch.compute(X1, X2, a.view()), std::invalid_argument);
    Arrays b(3, K, false);
    b.normal.pop_back();
    EXPECT_THROW(batch.compute(X1, X2, b.view()), std::invalid_argument);
  }
  {  // only some Jacobians
    Arrays a(3, K, true);
    a.J_activity.clear();
    EXPECT_THROW(batch.compute(X1, X2, a.view()), std::invalid_argument);
  }
  {  // a non-finite pose
    Arrays a(3, K, false);
    X2[1].p.x() = diffcol::test::kNaN;
    EXPECT_THROW(batch.compute(X1, X2, a.view()), std::invalid_argument);
  }
  o.grain = 0;
  EXPECT_THROW(mf::ManifoldBatch(box(0.7, 1), box(1.0, 1), o), std::invalid_argument);
  o.grain = 1;
  o.num_threads = -1;
  EXPECT_THROW(mf::ManifoldBatch(box(0.7, 1), box(1.0, 1), o), std::invalid_argument);
  o.num_threads = 1;
  o.manifold.num_edges[0] = 0;
  EXPECT_THROW(mf::ManifoldBatch(box(0.7, 1), box(1.0, 1), o), std::invalid_argument);
  o.manifold.num_edges[0] = 1000;  // more than the cube's 18 edges
  EXPECT_THROW(mf::ManifoldBatch(box(0.7, 1), box(1.0, 1), o), std::invalid_argument);
}

TEST(WitnessBatch, MatchesSingleQueriesBitForBit) {
  const long N = 10007;  // not a multiple of the chunk size
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::vector<double> ends(static_cast<std::size_t>(12 * N));
  for (double& x : ends) x = U(rng);
  diffcol::batch::ThreadPool pool(2);
  for (bool smooth : {true, false})
    for (diffcol::batch::ThreadPool* p : {static_cast<diffcol::batch::ThreadPool*>(nullptr), &pool}) {
      const mf::WitnessOptions opt = smooth ? mf::WitnessOptions{} : mf::WitnessOptions::hard();
      std::vector<double> e1(3 * N), e2(3 * N), alpha(2 * N), dist(N), gcon(N);
      mf::edge_edge_witness_batch(ends, opt, {e1, e2, alpha, dist, gcon}, p);
      std::vector<double> vp(3 * N), vd(N), vg(N);
      mf::vertex_face_witness_batch(ends, opt, {vp, vd, vg}, p);
      int mismatches = 0;
      for (long q = 0; q < N; ++q) {
        const double* x = &ends[static_cast<std::size_t>(12 * q)];
        auto P = [&](int k) { return mf::V3<double>(x[3 * k], x[3 * k + 1], x[3 * k + 2]); };
        const auto w = mf::edge_edge_witness(P(0), P(1), P(2), P(3), opt);
        const auto v = mf::vertex_face_witness(P(0), P(1), P(2), P(3), opt);
        for (int c = 0; c < 3; ++c) {
          mismatches += !same_bits(e1[3 * q + c], w.e1[c]) + !same_bits(e2[3 * q + c], w.e2[c]);
          mismatches += !same_bits(vp[3 * q + c], v.point[c]);
        }
        mismatches += !same_bits(alpha[2 * q], w.alpha1) + !same_bits(alpha[2 * q + 1], w.alpha2);
        mismatches += !same_bits(dist[q], w.distance) + !same_bits(gcon[q], w.gamma_con);
        mismatches += !same_bits(vd[q], v.distance) + !same_bits(vg[q], v.gamma_inside);
      }
      EXPECT_EQ(mismatches, 0) << (smooth ? "smooth" : "hard") << (p ? " pool" : " inline");
    }
}

TEST(WitnessBatch, RejectsBadInput) {
  std::vector<double> ends(24, 0.5), out3(6), out1(2), wrong(5);
  const mf::WitnessOptions opt;
  EXPECT_THROW(mf::edge_edge_witness_batch(std::span<const double>(ends.data(), 23), opt, {out3, {}, {}, {}, {}}),
               std::invalid_argument);
  EXPECT_THROW(mf::edge_edge_witness_batch(ends, opt, {wrong, {}, {}, {}, {}}), std::invalid_argument);
  EXPECT_THROW(mf::edge_edge_witness_batch(ends, opt, {out3, out3, out1, {}, {}}), std::invalid_argument);  // alpha: 4
  EXPECT_THROW(mf::vertex_face_witness_batch(ends, opt, {out3, wrong, {}}), std::invalid_argument);
  mf::WitnessOptions bad;
  bad.t_min = -1.0;
  EXPECT_THROW(mf::vertex_face_witness_batch(ends, bad, {out3, {}, {}}), std::invalid_argument);
  // Empty outputs are allowed (nothing written); N = 0 is fine.
  EXPECT_NO_THROW(mf::edge_edge_witness_batch(ends, opt, {}));
  EXPECT_NO_THROW(mf::vertex_face_witness_batch({}, opt, {}));
}
