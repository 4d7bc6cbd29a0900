// Culling of the contact manifold (manifold.hpp, ManifoldOptions::culling) against the dense
// evaluation: every entry that can matter (activity > 1e-12 either way) equal to 1e-12 relative,
// with its 12-column pose derivatives; every culled entry's dense activity below 1e-16 and its
// distance a bound of the dense one. Scenes: the two 18-superquadric figures (seed Fig. 7) and
// box on box, at random poses from deep overlap to separation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/Geometry>

#include "diffcol/manifold/figures.hpp"
#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
#include "test_util.hpp"

namespace manifold_culling_test {

namespace mf = diffcol::manifold;
using diffcol::Pose;
using diffcol::Vec3;

const mf::LimbedFigure& culling_figure(int which) {
  static const mf::LimbedFigure f0 = mf::make_limbed_figure(mf::FigureOptions{});
  static const mf::LimbedFigure f5 = [] {
    mf::FigureOptions o;
    o.seed = 5;
    return mf::make_limbed_figure(o);
  }();
  return which == 0 ? f0 : f5;
}

Pose random_pose(std::mt19937_64& rng, const Vec3& centre, double spread) {
  std::normal_distribution<double> N(0.0, 1.0);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  Pose X;
  X.R = Eigen::Quaterniond(N(rng), N(rng), N(rng), N(rng)).normalized().toRotationMatrix();
  X.p = centre - X.R * centre + spread * Vec3(U(rng), U(rng), U(rng));
  return X;
}

double scale(double a) { return std::max(1.0, std::abs(a)); }

struct Counts {
  long entries = 0, culled = 0, compared = 0;
};

/// Culled vs dense at one pose: values and derivatives (local body twists).
void compare(const mf::ContactObject& a, const Pose& X1, const mf::ContactObject& b, const Pose& X2,
             mf::ManifoldOptions opt, const std::string& what, Counts& counts) {
  constexpr double kTol = 1e-12;
  mf::ManifoldWorkspace ws_cull, ws_dense;
  mf::ContactManifold mc, md, mc_fwd;
  mf::ManifoldDerivatives dc, dd;
  opt.culling = true;
  mf::compute_manifold_derivatives(a, X1, b, X2, opt, mf::PoseCoordinates::local, ws_cull, mc, dc);
  mf::compute_manifold(a, X1, b, X2, opt, ws_cull, mc_fwd);
  opt.culling = false;
  mf::compute_manifold_derivatives(a, X1, b, X2, opt, mf::PoseCoordinates::local, ws_dense, md, dd);
  ASSERT_EQ(mc.entries.size(), md.entries.size()) << what;
  ASSERT_EQ(mc_fwd.entries.size(), md.entries.size()) << what;
  int failures = 0;
  for (std::size_t e = 0; e < md.entries.size() && failures < 5; ++e) {
    const mf::ManifoldEntry &c = mc.entries[e], &d = md.entries[e], &f = mc_fwd.entries[e];
    const std::string at = what + ", entry " + std::to_string(e) + (d.kind == mf::ContactKind::vertex_sdf ? " (V-S)" : " (E-E)");
    ++counts.entries;
    EXPECT_FALSE(d.culled) << at;
    EXPECT_EQ(c.kind, d.kind) << at;
    EXPECT_EQ(c.body, d.body) << at;
    EXPECT_EQ(f.culled, c.culled) << at << ": the forward and derivative passes cull alike";
    if (c.culled) {
      ++counts.culled;
      const bool vs = d.kind == mf::ContactKind::vertex_sdf;
      const bool ok = d.activity <= 1e-16 && c.activity == 0.0 && dc.J_activity_X12[e].isZero() &&
                      (c.point - d.point).norm() <= kTol * scale(d.point.norm()) &&
                      (dc.J_point_X12[e] - dd.J_point_X12[e]).cwiseAbs().maxCoeff() <= kTol * scale(dd.J_point_X12[e].cwiseAbs().maxCoeff()) &&
                      (vs ? c.distance < d.distance && dc.J_distance_X12[e].isZero() && c.normal.isZero()
                          : c.distance >= std::abs(d.distance) - 1e-15 && std::abs(c.normal.norm() - 1.0) < 1e-6);
      EXPECT_TRUE(ok) << at << ": culled, dense activity " << d.activity << ", distance bound " << c.distance
                      << " vs dense " << d.distance << ", |n| " << c.normal.norm();
      failures += !ok;
      continue;
    }
    if (d.activity <= 1e-12 && c.activity <= 1e-12) continue;
    ++counts.compared;
    EXPECT_EQ(c.source, d.source) << at;
    EXPECT_EQ(c.other_source, d.other_source) << at;
    double err = 0.0;
    err = std::max(err, (c.point - d.point).norm() / scale(d.point.norm()));
    err = std::max(err, std::abs(c.distance - d.distance) / scale(d.distance));
    err = std::max(err, (c.normal - d.normal).norm());
    err = std::max(err, std::abs(c.activity - d.activity));
    err = std::max(err, std::max((f.point - d.point).norm() / scale(d.point.norm()), std::abs(f.activity - d.activity)));
    auto rel = [](const auto& x, const auto& y) { return (x - y).cwiseAbs().maxCoeff() / scale(y.cwiseAbs().maxCoeff()); };
    err = std::max(err, rel(dc.J_point_X12[e], dd.J_point_X12[e]));
    err = std::max(err, rel(dc.J_normal_X12[e], dd.J_normal_X12[e]));
    err = std::max(err, rel(dc.J_distance_X12[e], dd.J_distance_X12[e]));
    err = std::max(err, rel(dc.J_activity_X12[e], dd.J_activity_X12[e]));
    EXPECT_LE(err, kTol) << at << ": activity " << d.activity;
    failures += !(err <= kTol);
  }
}

mf::ManifoldOptions seed_options() {
  mf::ManifoldOptions o;
  o.num_edges[0] = o.num_edges[1] = 18;
  return o;
}

TEST(ManifoldCulling, LowerBoundBoundsTheFigureSdf) {
  // φ ≥ lower_bound at points from inside the figure to far outside, tight or tested against a
  // threshold (then above it whenever the tight bound is more than t·log n above it).
  const mf::SdfObject& sdf = culling_figure(0).sdf;
  const double tlogn = sdf.blend_temperature() * std::log(18.0);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  int positive = 0;
  for (int i = 0; i < 3000; ++i) {
    const double r = i < 1500 ? 0.6 : 3.0;
    const Vec3 x(r * U(rng), r * U(rng), 0.5 + r * U(rng));
    const double L = sdf.lower_bound(x);
    const double phi = sdf.value(x);
    ASSERT_LE(L, phi + 1e-14) << "point " << x.transpose();
    positive += L > 0.0;
    for (double above : {-0.1, 0.0, 0.04, 0.3}) {
      const double La = sdf.lower_bound(x, above);
      ASSERT_LE(La, phi + 1e-14) << "point " << x.transpose() << ", above " << above;
      if (L > above + tlogn) {
        ASSERT_GT(La, above) << "point " << x.transpose() << ", above " << above;
      }
    }
  }
  EXPECT_GT(positive, 1000);
  // A polyhedron has no bound: −inf.
  mf::SdfObject poly;
  Eigen::MatrixX3d V(8, 3);
  for (int k = 0; k < 8; ++k) V.row(k) << (k & 1 ? 1.0 : -1.0), (k & 2 ? 1.0 : -1.0), (k & 4 ? 1.0 : -1.0);
  poly.add(mf::ConvexPolyhedron::from_vertices(V, 0.01));
  EXPECT_EQ(poly.lower_bound(Vec3(5.0, 0.0, 0.0)), -std::numeric_limits<double>::infinity());
}

TEST(ManifoldCulling, FiguresMatchDense) {
  const mf::ContactObject a = culling_figure(0).contact_object(), b = culling_figure(1).contact_object();
  std::mt19937_64 rng(7);
  const long poses = diffcol::test::env_count("DIFFCOL_MANIFOLD_CULLING_POSES", 12);
  Counts n;
  const Vec3 mid(0.0, 0.0, 0.55);
  for (long i = 0; i < poses; ++i) {
    // Deep overlap (the benchmark's poses), then shallower, then apart.
    const double spread = i % 3 == 0 ? 0.25 : (i % 3 == 1 ? 0.6 : 1.2);
    const Pose X1 = random_pose(rng, mid, 0.1), X2 = random_pose(rng, mid, spread);
    mf::ManifoldOptions opt = seed_options();
    if (i % 4 == 1) opt.num_vertices[0] = opt.num_vertices[1] = 40;  // lazy SoftSort of vertices
    if (i % 4 == 2) opt = mf::ManifoldOptions::hard(mf::WitnessOptions{}.regularization), opt.num_edges[0] = 18,
                    opt.num_edges[1] = 12;
    compare(a, X1, b, X2, opt, "figures pose " + std::to_string(i), n);
  }
  // One-sided V-S ("Ours-NE-S").
  mf::ManifoldOptions ne_s;
  ne_s.edge_edge = false;
  ne_s.num_vertices[1] = 0;
  compare(a, random_pose(rng, mid, 0.1), b, random_pose(rng, mid, 0.25), ne_s, "figures NE-S", n);
  EXPECT_GT(n.culled, n.entries / 3) << "culling should skip most candidates of overlapping figures";
  EXPECT_GT(n.compared, 50);
}

TEST(ManifoldCulling, BoxOnBoxMatchesDense) {
  const mf::ContactObject top(mf::make_refined_box(Vec3::Constant(0.7), 4), mf::make_box_sdf(Vec3::Constant(0.7), 0.1));
  const mf::ContactObject bottom(mf::make_refined_box(Vec3::Constant(1.0), 4), mf::make_box_sdf(Vec3::Constant(1.0), 0.1));
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const long poses = diffcol::test::env_count("DIFFCOL_MANIFOLD_CULLING_POSES", 12) * 3;
  Counts n;
  for (long i = 0; i < poses; ++i) {
    // The top box from resting (0.85 above the centre) to 0.15 deep and up to 0.3 apart.
    const Pose X2 = random_pose(rng, Vec3::Zero(), 0.0);
    Pose X1 = random_pose(rng, Vec3::Zero(), 0.0);
    const double lift = 0.7 + 0.45 * (0.5 + 0.5 * U(rng));
    X1.p = X2.p + X2.R * Vec3(0.5 * U(rng), 0.5 * U(rng), lift);
    if (i % 5 == 0) X1.R = X2.R;  // face on face
    mf::ManifoldOptions opt;
    if (i % 3 == 1) opt.num_edges[0] = opt.num_edges[1] = 4, opt.num_vertices[0] = 20;
    if (i % 3 == 2) opt = mf::ManifoldOptions::hard(mf::WitnessOptions{}.regularization), opt.num_edges[1] = 6;
    compare(top, X1, bottom, X2, opt, "box on box pose " + std::to_string(i), n);
  }
  EXPECT_GT(n.culled, n.entries / 10);
  EXPECT_GT(n.compared, 100);
}

TEST(ManifoldCulling, FiguresFromTheirFirstPieces) {
  // FigureOptions::num_pieces (the seed's Fig. 7 complexity sweep): the first k pieces only.
  mf::FigureOptions o;
  o.num_pieces = 5;
  o.target_vertices = 120;
  const mf::LimbedFigure f = mf::make_limbed_figure(o);
  ASSERT_EQ(static_cast<int>(f.pieces.size()), 5);
  EXPECT_EQ(f.sdf.num_added(), 5);
  EXPECT_EQ(static_cast<int>(f.convex_pieces.size()), 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(f.pieces[i].pose().p, culling_figure(0).pieces[i].pose().p);
  for (int bad : {0, 19}) {
    o.num_pieces = bad;
    EXPECT_THROW(o.validate(), std::invalid_argument);
  }
  std::mt19937_64 rng(9);
  Counts n;
  const Vec3 mid(0.0, 0.0, 0.75);
  mf::ManifoldOptions opt;
  opt.num_edges[0] = opt.num_edges[1] = 5;
  compare(f.contact_object(), random_pose(rng, mid, 0.0), f.contact_object(), random_pose(rng, mid, 0.15), opt,
          "5-piece figures", n);
  EXPECT_GT(n.compared, 5);
}

TEST(ManifoldCulling, OneSidedVertexContacts) {
  // num_vertices = 0: no V-S entries of that body (the seed's "Ours-NE-S"); the others unchanged.
  const mf::ContactObject a = culling_figure(0).contact_object(), b = culling_figure(1).contact_object();
  std::mt19937_64 rng(5);
  const Vec3 mid(0.0, 0.0, 0.55);
  const Pose X1 = random_pose(rng, mid, 0.0), X2 = random_pose(rng, mid, 0.2);
  mf::ManifoldOptions both, one;
  both.edge_edge = one.edge_edge = false;
  one.num_vertices[1] = 0;
  mf::ManifoldWorkspace ws;
  mf::ContactManifold mb, mo;
  mf::compute_manifold(a, X1, b, X2, both, ws, mb);
  mf::compute_manifold(a, X1, b, X2, one, ws, mo);
  ASSERT_EQ(mo.num_vertex_sdf[1], 0);
  ASSERT_EQ(static_cast<int>(mo.entries.size()), a.mesh().num_vertices());
  for (std::size_t e = 0; e < mo.entries.size(); ++e) {
    EXPECT_EQ(mo.entries[e].body, 0);
    EXPECT_EQ(mo.entries[e].distance, mb.entries[e].distance);
    EXPECT_EQ(mo.entries[e].activity, mb.entries[e].activity);
  }
  mf::ManifoldOptions bad;
  bad.num_vertices[0] = -2;
  EXPECT_THROW(bad.validate(), std::invalid_argument);
}

}  // namespace manifold_culling_test
