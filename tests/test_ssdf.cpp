// Tests of the AOPC (include/diffcol/ssdf/aopc.hpp) and the SSDF layer (ssdf.hpp): sign of the
// SSDF against the exact point-in-mesh test, isosurface error against the exact mesh distance as
// eps1 → 0 and as the AOPC resolution grows (printed table), hard limit against a brute-force
// nearest-point evaluation of eqs. (6)–(7), derivatives against central finite differences on
// SE(3), separation distance of two spheres against the closed form, collision points.
//
// DIFFCOL_SSDF_POINTS (default 10000): number of random query points of the sign test (and / 50
// the far directions per cloud of FarSignOfThinShapes).
// DIFFCOL_SCM_TRIALS (default 20, at most 8 for the collision points): random poses of the
// separation Jacobian tests (the sanitizer step uses fewer).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>
#include <random>
#include <string>

#include "diffcol/math/gradient_check.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/ssdf.hpp"

#include "ssdf_test_util.hpp"
#include "test_util.hpp"
// white-box: the accelerated farthest-point thinning and nearest-neighbour search
#include "../src/ssdf/farthest_points.hpp"

namespace {

using diffcol::GradientCheckOptions;
using diffcol::Mat3;
using diffcol::ReferenceFrame;
using diffcol::Pose;
using diffcol::Vec3;
using diffcol::Vec6;
using diffcol::mesh::TriangleMesh;
using diffcol::ssdf::OrientedPointCloud;
using diffcol::ssdf::SsdfWorkspace;
namespace mesh = diffcol::mesh;
namespace ssdf = diffcol::ssdf;
using namespace diffcol::test;

Pose random_pose(std::mt19937& rng, double spread) {
  std::uniform_real_distribution<double> U(-spread, spread);
  return make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
}

// ----------------------------------------------------------------------------------------- AOPC

TEST(Aopc, PointsOnSurfaceWithFaceNormals) {
  const TriangleMesh t = mesh::make_t_shape();
  const OrientedPointCloud c = aopc_of(t, 400);
  ASSERT_EQ(c.size(), 400);
  for (int i = 0; i < c.size(); ++i) {
    Vec3 x;
    EXPECT_LT(mesh::distance_to_surface(t, c.points()[static_cast<size_t>(i)], &x), 1e-12);
    // The normal is the outward normal of a face containing the point: stepping along it leaves the solid.
    const Vec3 p = c.points()[static_cast<size_t>(i)], n = c.normals()[static_cast<size_t>(i)];
    EXPECT_NEAR(n.norm(), 1.0, 1e-14);
    // (Points within 1e-3 of an edge may see the neighbouring face's half-space; skip those.)
    if (mesh::distance_to_surface(t, p + 1e-3 * n) > 0.9e-3) {
      EXPECT_FALSE(mesh::contains(t, p + 1e-4 * n));
      EXPECT_TRUE(mesh::contains(t, p - 1e-4 * n));
    }
  }
  // Deterministic given the seed, different for another seed.
  const OrientedPointCloud c2 = aopc_of(t, 400);
  const OrientedPointCloud c3 = aopc_of(t, 400, 2);
  EXPECT_EQ((c.points()[57] - c2.points()[57]).norm(), 0.0);
  EXPECT_GT((c.points()[57] - c3.points()[57]).norm(), 0.0);
}

TEST(Aopc, SpreadImprovesWithResolution) {
  const TriangleMesh t = mesh::make_t_shape();
  const double area = t.area();
  double prev = 1e9;
  for (int n : {100, 400, 1600}) {
    const OrientedPointCloud c = aopc_of(t, n);
    // Farthest-point sampling: spacing close to the hexagonal-packing value sqrt(2A/(√3 n)).
    const double ideal = std::sqrt(2.0 * area / (std::sqrt(3.0) * n));
    std::printf("  AOPC n=%5d  mean spacing %.5f m  (hexagonal packing %.5f m)\n", n, c.mean_spacing(), ideal);
    EXPECT_GT(c.mean_spacing(), 0.6 * ideal);
    EXPECT_LT(c.mean_spacing(), 1.3 * ideal);
    EXPECT_LT(c.mean_spacing(), prev);
    prev = c.mean_spacing();
  }
  EXPECT_THROW(aopc_of(t, 3), std::invalid_argument);
}

// Candidates for the thinning tests: random points, exact duplicates and a lattice (ties in
// distance), in a box and on a plane.
std::vector<Vec3> thinning_candidates(std::mt19937& rng, bool flat) {
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::vector<Vec3> c;
  for (int i = 0; i < 1200; ++i) c.emplace_back(U(rng), U(rng), flat ? 0.0 : 0.3 * U(rng));
  for (int i = 0; i < 200; ++i) c.push_back(c[static_cast<size_t>(i * 5)]);  // duplicates
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j) c.emplace_back(0.2 * i - 0.9, 0.2 * j - 0.9, 0.0);  // lattice
  std::shuffle(c.begin(), c.end(), rng);
  return c;
}

// The accelerated farthest-point thinning (grid + tournament tree) against the plain O(n·m)
// loop it replaces: the same picks, in order, for any grid spacing, with and without initial
// distances (sharp-edge mirrors; ties included), and past the point where every candidate has
// been picked.
TEST(Aopc, FarthestPointsMatchTheQuadraticLoop) {
  std::mt19937 rng(8);
  for (bool flat : {false, true}) {
    const std::vector<Vec3> cand = thinning_candidates(rng, flat);
    const size_t m = cand.size();
    for (int init = 0; init < 3; ++init) {
      std::vector<double> dist(m, std::numeric_limits<double>::infinity());
      std::uniform_int_distribution<int> level(0, 4);
      if (init == 1)
        for (auto& d : dist) d = 0.01 * level(rng);  // many ties
      if (init == 2)
        for (size_t c = 0; c < m; c += 3) dist[c] = 0.05 * level(rng);  // some finite, some infinite
      for (size_t n : {size_t{1}, size_t{50}, size_t{400}, m + 5}) {
        // reference: the plain loop (first candidate of largest dist, then update every dist)
        std::vector<size_t> ref;
        std::vector<double> d = dist;
        for (size_t k = 0; k < n; ++k) {
          size_t pick = 0;
          double far = -1.0;
          for (size_t c = 0; c < m; ++c)
            if (d[c] > far) {
              far = d[c];
              pick = c;
            }
          ref.push_back(pick);
          for (size_t c = 0; c < m; ++c) d[c] = std::min(d[c], (cand[c] - cand[pick]).squaredNorm());
        }
        for (double cell : {0.003, 0.1, 5.0}) {
          const std::vector<size_t> got = diffcol::ssdf::detail::farthest_points(cand, dist, n, cell);
          EXPECT_EQ(got, ref) << "flat " << flat << " init " << init << " n " << n << " cell " << cell;
        }
      }
    }
  }
}

// The grid nearest-neighbour distances against brute force: random, duplicated, planar and
// collinear clouds, one and two points.
TEST(Aopc, NearestNeighbourDistancesMatchBruteForce) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::vector<std::vector<Vec3>> clouds;
  clouds.push_back(thinning_candidates(rng, false));
  clouds.push_back(thinning_candidates(rng, true));
  std::vector<Vec3> line, clustered;
  for (int i = 0; i < 300; ++i) line.emplace_back(U(rng), 2.0 * U(rng), -U(rng));
  for (auto& p : line) p = Vec3(p.x(), p.x(), p.x());  // collinear
  for (int i = 0; i < 300; ++i) clustered.push_back(i < 290 ? Vec3(1e-3 * U(rng), 1e-3 * U(rng), 0.0) : Vec3(50.0 * U(rng), 0.0, 0.0));
  clouds.push_back(line);
  clouds.push_back(clustered);
  clouds.push_back({Vec3(1, 2, 3)});
  clouds.push_back({Vec3(1, 2, 3), Vec3(1, 2, 3.5)});
  for (const auto& pts : clouds) {
    const std::vector<double> got = diffcol::ssdf::detail::nearest_neighbour_distances(pts);
    ASSERT_EQ(got.size(), pts.size());
    for (size_t i = 0; i < pts.size(); ++i) {
      double best = std::numeric_limits<double>::infinity();
      for (size_t j = 0; j < pts.size(); ++j)
        if (j != i) best = std::min(best, (pts[i] - pts[j]).squaredNorm());
      EXPECT_EQ(got[i], std::sqrt(best)) << "cloud of " << pts.size() << ", point " << i;
    }
  }
}

TEST(Aopc, RejectsBadClouds) {
  EXPECT_THROW(OrientedPointCloud({}, {}), std::invalid_argument);
  EXPECT_THROW(OrientedPointCloud({Vec3::Zero()}, {Vec3::Zero()}), std::invalid_argument);
  EXPECT_THROW(OrientedPointCloud({Vec3(kNaN, 0, 0)}, {Vec3::UnitX()}), std::invalid_argument);
  EXPECT_THROW(OrientedPointCloud({Vec3::Zero(), Vec3::Ones()}, {Vec3::UnitX()}), std::invalid_argument);
  EXPECT_THROW(OrientedPointCloud({Vec3::Zero()}, {Vec3::UnitX()}, {Vec3::Zero()}, {{{0, 3, -1}}}),
               std::invalid_argument);
}

// Far sign of coarse clouds of thin shapes: every cloud make_aopc builds reads outside far away
// in every direction (sampled on a sphere at 1e2 … 1e6 × the size, three temperatures); a cloud it
// refuses says which face lacks points. Small point counts on thin boxes leave the narrow faces
// unsampled by the mirror rule alone, and then some far directions read inside.
TEST(Aopc, FarSignOfThinShapes) {
  std::mt19937 rng(54);
  struct Thin {
    const char* name;
    TriangleMesh mesh;
  };
  mesh::TShapeDimensions thin_t;
  thin_t.thickness = 0.01;
  const std::vector<Thin> shapes = {{"box 1x0.05x0.25", mesh::make_box(Vec3(1.0, 0.05, 0.25))},
                                    {"box 1x0.02x0.3", mesh::make_box(Vec3(1.0, 0.02, 0.3))},
                                    {"plate 0.5x0.5x0.01", mesh::make_box(Vec3(0.5, 0.5, 0.01))},
                                    {"rod 1x0.1x0.1", mesh::make_box(Vec3(1.0, 0.1, 0.1))},
                                    {"T 1 cm thick", mesh::make_t_shape(thin_t)}};
  int clouds = 0, refused = 0, queries = 0, inside = 0;
  // 200 directions per cloud (20 in the sanitized run, DIFFCOL_SSDF_POINTS = 1000)
  const int directions = static_cast<int>(std::max<long>(20, env_count("DIFFCOL_SSDF_POINTS", 10000) / 50));
  SsdfWorkspace ws;
  for (const Thin& shape : shapes)
    for (int num_points : {20, 30, 40, 60})
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        ssdf::AopcOptions o;
        o.num_points = num_points;
        o.seed = seed;
        OrientedPointCloud c({Vec3::Zero()}, {Vec3::UnitX()});
        try {
          c = ssdf::make_aopc(shape.mesh, o);
        } catch (const std::invalid_argument& e) {
          ++refused;
          EXPECT_NE(std::string(e.what()).find("raise num_points"), std::string::npos) << e.what();
          continue;
        }
        ++clouds;
        EXPECT_GE(ssdf::far_sign_margin(c), ssdf::kMinFarSignMargin) << shape.name;
        const double size = 2.0 * c.bounds().radius, h = c.mean_spacing();
        int bad = 0;
        for (int k = 0; k < directions; ++k) {
          const Vec3 u = random_unit(rng);
          for (double ratio : {1e2, 1e3, 1e4, 1e6})
            for (double eps1 : {0.0, 0.3 * h * h, 3.0 * h * h}) {
              const double phi = ssdf::soft_signed_distance(c, c.bounds().center + ratio * size * u, eps1, ws);
              ++queries;
              if (!(phi > 0.0)) ++bad;
            }
        }
        inside += bad;
        EXPECT_EQ(bad, 0) << shape.name << ", " << num_points << " points, seed " << seed;
      }
  std::printf("far sign of thin shapes: %d clouds built, %d refused; %d of %d far queries inside\n", clouds,
              refused, inside, queries);
  EXPECT_GE(clouds, 10 * refused);  // refusing is the exception (2 of 60 when written)
}

// far_sign_margin against its definition: for a box's face-centre cloud (6 points) the extreme
// point along u is the face centre most aligned with u, and the minimum of n·u over its normal cone
// (cone of the octahedron's facet normals around it) is attained on those facet normals.
TEST(Aopc, FarSignMarginOfFaceCentres) {
  const Vec3 e(0.5, 0.1, 0.2);  // half extents
  std::vector<Vec3> p, n;
  for (int a = 0; a < 3; ++a)
    for (double s : {-1.0, 1.0}) {
      Vec3 x = Vec3::Zero();
      x[a] = s * e[a];
      p.push_back(x);
      n.push_back(s * Vec3::Unit(a));
    }
  // facet normals of the octahedron conv{±e_a}: (±1/ex, ±1/ey, ±1/ez) normalized; at the vertex
  // +x e_x the smallest n·g is min over facets of g_x = (1/ex)/‖g‖, the same for every facet
  const Vec3 g = e.cwiseInverse();
  const double expected = std::min({g.x(), g.y(), g.z()}) / g.norm();
  EXPECT_NEAR(ssdf::far_sign_margin(p, n), expected, 1e-10);
  // a flipped normal: that point is extreme along its own face direction and reads inside there
  n[5] = -n[5];
  Vec3 dir;
  EXPECT_LT(ssdf::far_sign_margin(p, n, &dir), 0.0);
  EXPECT_GT(dir.z(), 0.5);
}

// far_sign_margin against brute force: random points on a thin box's faces (raw clouds, some with
// negative margins): the least n·u of the extreme point over 40000 spread directions is at least
// the bound, and close to it where the bound is below kMinFarSignMargin (there every point's
// constraints enter; above, a point's neighbours may settle it with a looser bound).
TEST(Aopc, FarSignMarginMatchesSampledDirections) {
  std::mt19937 rng(55);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const Vec3 e(0.5, 0.025, 0.125);
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<Vec3> p, n;
    for (int k = 0; k < 12 + 8 * trial; ++k) {
      const int a = k % 3;
      const double s = (k / 3) % 2 ? 1.0 : -1.0;
      Vec3 x(U(rng) * e.x(), U(rng) * e.y(), U(rng) * e.z());
      x[a] = s * e[a];
      p.push_back(x);
      n.push_back(s * Vec3::Unit(a));
    }
    const double bound = ssdf::far_sign_margin(p, n);
    double sampled = 2.0;
    const int K = 40000;
    for (int k = 0; k < K; ++k) {
      const double z = 1.0 - (2.0 * k + 1.0) / K, r = std::sqrt(std::max(0.0, 1.0 - z * z));
      const Vec3 u(r * std::cos(2.39996322972865332 * k), r * std::sin(2.39996322972865332 * k), z);
      size_t b = 0;
      for (size_t j = 1; j < p.size(); ++j)
        if (u.dot(p[j]) > u.dot(p[b])) b = j;
      sampled = std::min(sampled, n[b].dot(u));
    }
    EXPECT_GE(sampled, bound - 1e-12) << trial;
    if (bound < ssdf::kMinFarSignMargin) {
      EXPECT_LE(sampled, bound + 0.03) << trial;
    }
    std::printf("  trial %d: bound %.4f, sampled %.4f\n", trial, bound, sampled);
  }
}

TEST(Aopc, OptionsAreValidated) {
  // validate() names the field; make_aopc calls it (a NaN feature_angle used to mean "no sharp edge")
  const TriangleMesh box = mesh::make_box(Vec3(0.2, 0.1, 0.3));
  auto expect_rejected = [&](const ssdf::AopcOptions& o, const char* field) {
    try {
      o.validate();
      ADD_FAILURE() << field << ": no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
    EXPECT_THROW(ssdf::make_aopc(box, o), std::invalid_argument) << field;
  };
  ssdf::AopcOptions o;
  EXPECT_NO_THROW(o.validate());
  o.feature_angle = kNaN;
  expect_rejected(o, "feature_angle");
  o.feature_angle = -0.1;
  expect_rejected(o, "feature_angle");
  o = {};
  o.num_points = 3;
  expect_rejected(o, "num_points");
  o = {};
  o.candidates_per_point = 65;
  expect_rejected(o, "candidates_per_point");
  o = {};
  o.feature_angle = 4.0;  // >= pi: no sharp edge (documented)
  o.num_points = 200;
  const int size = ssdf::make_aopc(box, o).size();  // (without mirrors a few points may be added
  EXPECT_GE(size, 200);                              // for the far sign: 203 when written)
  EXPECT_LE(size, 200 + 200 / 2 + 8);
}

TEST(Aopc, WorldJacobiansMatchFiniteDifferences) {
  std::mt19937 rng(11);
  const OrientedPointCloud c = aopc_of(mesh::make_box(Vec3(0.1, 0.2, 0.3)), 50);
  for (int trial = 0; trial < 20; ++trial) {
    const Pose X = random_pose(rng, 1.0);
    const int i = trial % c.size();
    ssdf::Mat36 Jp, Jn;
    c.world_point(i, X, &Jp);
    c.world_normal(i, X, &Jn);
    Eigen::MatrixXd J(6, 6);
    J << Jp, Jn;
    GradientCheckOptions opt;
    opt.frame = ReferenceFrame::local;
    const auto res = diffcol::check_pose_gradient(
        [&](const Pose& Y) {
          Eigen::VectorXd v(6);
          v << c.world_point(i, Y), c.world_normal(i, Y);
          return v;
        },
        X, J, opt);
    EXPECT_TRUE(res.passed()) << res.report();
  }
}

// ----------------------------------------------------------------------------------------- SSDF

TEST(Ssdf, HardLimitIsNearestPlane) {
  // eps1 = 0 is eqs. (6)–(7): the signed plane distance of the nearest AOPC point (brute force).
  std::mt19937 rng(2);
  const OrientedPointCloud c = aopc_of(mesh::make_icosphere(0.1, 2), 200);
  SsdfWorkspace ws;
  std::uniform_real_distribution<double> U(-0.2, 0.2);
  for (int k = 0; k < 500; ++k) {
    const Vec3 q(U(rng), U(rng), U(rng));
    int best = 0;
    for (int i = 1; i < c.size(); ++i)
      if ((q - c.points()[static_cast<size_t>(i)]).squaredNorm() < (q - c.points()[static_cast<size_t>(best)]).squaredNorm())
        best = i;
    const double ref = c.normals()[static_cast<size_t>(best)].dot(q - c.points()[static_cast<size_t>(best)]);
    EXPECT_NEAR(ssdf::soft_signed_distance(c, q, 0.0, ws), ref, 1e-15);
  }
  EXPECT_THROW(ssdf::soft_signed_distance(c, Vec3::Zero(), -1.0, ws), std::invalid_argument);
  EXPECT_THROW(ssdf::soft_signed_distance(c, Vec3::Zero(), kNaN, ws), std::invalid_argument);
  EXPECT_THROW(ssdf::soft_signed_distance(c, Vec3(kNaN, 0, 0), 1e-4, ws), std::invalid_argument);
  // Coordinates beyond kMaxLength (1e100), in the body frame, the world frame or the pose.
  EXPECT_THROW(ssdf::soft_signed_distance(c, Vec3(0, 2e100, 0), 1e-4, ws), std::invalid_argument);
  EXPECT_THROW(ssdf::soft_signed_distance(c, Pose::identity(), Vec3(0, 0, -2e100), 1e-4, ws), std::invalid_argument);
  EXPECT_THROW(ssdf::soft_signed_distance(c, make_pose(Mat3::Identity(), Vec3(2e100, 0, 0)), Vec3::Zero(), 1e-4, ws),
               std::invalid_argument);
  EXPECT_THROW(ssdf::smooth_separation_distance(c, make_pose(Mat3::Identity(), Vec3(2e100, 0, 0)), c,
                                                Pose::identity(), 1e-4, 1e-3, ws),
               std::invalid_argument);
  // Within it, a world query whose body-frame image exceeds 1e100 is still answered.
  const Pose far_pose = make_pose(Mat3::Identity(), Vec3(-9e99, 0, 0));
  EXPECT_GT(ssdf::soft_signed_distance(c, far_pose, Vec3(9e99, 0, 0), 1e-4, ws).phi, 1e100);
}

/// The world SSDF query's gradients (w.r.t. the point, and w.r.t. the body twist of the cloud's
/// pose) against central differences with the given step.
void expect_ssdf_gradients(const OrientedPointCloud& c, const Pose& X, const Vec3& p_W, double eps1, double step,
                           SsdfWorkspace& ws) {
  const ssdf::SsdfQuery qy = ssdf::soft_signed_distance(c, X, p_W, eps1, ws, ReferenceFrame::local);
  auto phi_at = [&](const Pose& Y, const Vec3& p) {
    Eigen::VectorXd v(1);
    v(0) = ssdf::soft_signed_distance(c, Y, p, eps1, ws).phi;
    return v;
  };
  GradientCheckOptions opt;
  opt.step = step;
  auto rp = diffcol::check_gradient([&](const Eigen::VectorXd& x) { return phi_at(X, Vec3(x)); },
                                    Eigen::VectorXd(p_W), Eigen::MatrixXd(qy.J_phi_p.transpose()), opt);
  EXPECT_TRUE(rp.passed()) << rp.report();
  opt.frame = ReferenceFrame::local;
  auto rx = diffcol::check_pose_gradient([&](const Pose& Y) { return phi_at(Y, p_W); }, X,
                                         Eigen::MatrixXd(qy.J_phi_X), opt);
  EXPECT_TRUE(rx.passed()) << rx.report();
}

// Far queries (aopc.hpp, kFarQueryRatio): beyond 16 radii the logits are shifted by ‖q − c‖².
// Independent checks: for a ball's cloud (200 points, outward face normals) the points near the
// direction u of the query carry normals within ~15° of u, so the plane distance at distance D
// from the centre is at least 0.9·D − r; for any cloud it is positive and at most D + radius. Across the switch
// the value and the gradient are continuous to rounding.
TEST(Ssdf, FarQueriesKeepTheirSign) {
  std::mt19937 rng(31);
  const double r = 0.1;
  const OrientedPointCloud ball = aopc_of(mesh::make_icosphere(r, 2), 200);
  const OrientedPointCloud tee = aopc_of(mesh::make_t_shape(), 300);
  SsdfWorkspace ws;
  for (const OrientedPointCloud* c : {&ball, &tee}) {
    const Vec3 center = c->bounds().center;
    const double R = c->bounds().radius;
    const double h = c->mean_spacing();
    for (double ratio : {20.0, 1e3, 1e8, 1e15, 1e20, 1e40, 1e90}) {
      for (int k = 0; k < 20; ++k) {
        const Vec3 u = random_unit(rng);
        const double D = ratio * R;
        const Vec3 q = center + D * u;
        for (double eps1 : {0.0, 0.3 * h * h, 3.0 * h * h}) {
          Vec3 g;
          const double phi = ssdf::soft_signed_distance(*c, q, eps1, ws, &g);
          ASSERT_TRUE(std::isfinite(phi) && g.allFinite()) << ratio;
          EXPECT_GT(phi, 0.0) << "ratio " << ratio << " eps1 " << eps1;
          EXPECT_LE(phi, D + 1.01 * R) << "ratio " << ratio;
          if (c == &ball) {
            EXPECT_GE(phi, 0.9 * D - r) << "ratio " << ratio << " eps1 " << eps1;
            EXPECT_GT(g.dot(u), 0.9) << "ratio " << ratio;  // the gradient points away
          }
        }
      }
    }
    // Continuity across the switch at 16 radii: the two forms agree to rounding.
    for (int k = 0; k < 20; ++k) {
      const Vec3 u = random_unit(rng);
      const double D = ssdf::kFarQueryRatio * R;
      const Vec3 q_near = center + D * (1.0 - 1e-12) * u, q_far = center + D * (1.0 + 1e-12) * u;
      ASSERT_FALSE(c->bounds().far(q_near));
      ASSERT_TRUE(c->bounds().far(q_far));
      for (double eps1 : {0.3 * h * h, 3.0 * h * h, 0.1 * R * R}) {
        Vec3 gn, gf;
        const double pn = ssdf::soft_signed_distance(*c, q_near, eps1, ws, &gn);
        const double pf = ssdf::soft_signed_distance(*c, q_far, eps1, ws, &gf);
        EXPECT_NEAR(pn, pf, 1e-9 * D) << "eps1 " << eps1;
        EXPECT_LE((gn - gf).norm(), 1e-6 * std::max(1.0, gn.norm())) << "eps1 " << eps1;
      }
    }
  }
}

// The far form's gradient against central differences (soft weights spread over many points at
// 20 radii with a large temperature, so the shifted kernel gradient is exercised).
TEST(Ssdf, FarGradientsMatchFiniteDifferences) {
  std::mt19937 rng(32);
  const OrientedPointCloud c = aopc_of(mesh::make_t_shape(), 300);
  SsdfWorkspace ws;
  const double R = c.bounds().radius;
  for (double eps1 : {0.05 * R * R, 0.5 * R * R}) {
    for (int trial = 0; trial < 20; ++trial) {
      const Pose X = random_pose(rng, 0.5);
      const Vec3 p_W = X * (c.bounds().center + 20.0 * R * random_unit(rng));
      ASSERT_TRUE(c.bounds().far(X.R.transpose() * (p_W - X.p)));
      expect_ssdf_gradients(c, X, p_W, eps1, 1e-4, ws);
    }
  }
}

TEST(Ssdf, LargeTemperatureIsTheAverageOfThePlanes) {
  // eps1 → ∞: uniform weights, φ → mean of n_iᵀ(q − p_i) (independent closed form).
  const OrientedPointCloud c = aopc_of(mesh::make_box(Vec3(0.2, 0.1, 0.3)), 100);
  SsdfWorkspace ws;
  const Vec3 q(0.03, -0.02, 0.05);
  double mean = 0.0;
  for (int i = 0; i < c.size(); ++i) mean += c.normals()[static_cast<size_t>(i)].dot(q - c.points()[static_cast<size_t>(i)]);
  mean /= c.size();
  EXPECT_NEAR(ssdf::soft_signed_distance(c, q, 1e12, ws), mean, 1e-9);
}

struct SignStats {
  int tested = 0, wrong = 0;
};

SignStats sign_test(const TriangleMesh& m, const OrientedPointCloud& c, double eps1, double margin, int count,
                    std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto bb = m.bounding_box();
  const Vec3 pad = Vec3::Constant(0.25 * (bb[1] - bb[0]).maxCoeff());
  std::uniform_real_distribution<double> U(0.0, 1.0);
  SsdfWorkspace ws;
  SignStats s;
  while (s.tested < count) {
    const Vec3 lo = bb[0] - pad, hi = bb[1] + pad;
    const Vec3 p(lo.x() + U(rng) * (hi.x() - lo.x()), lo.y() + U(rng) * (hi.y() - lo.y()),
                 lo.z() + U(rng) * (hi.z() - lo.z()));
    const double ref = mesh::signed_distance(m, p);
    if (std::abs(ref) <= margin) continue;
    ++s.tested;
    const double phi = ssdf::soft_signed_distance(c, p, eps1, ws);
    if ((phi < 0.0) != (ref < 0.0)) ++s.wrong;
  }
  return s;
}

TEST(Ssdf, SignCorrectAwayFromTheSurface) {
  const int count = static_cast<int>(env_count("DIFFCOL_SSDF_POINTS", 10000));
  struct Case {
    const char* name;
    TriangleMesh mesh;
    int points;
  };
  const Case cases[] = {{"T shape", mesh::make_t_shape(), 2000},
                        {"box", mesh::make_box(Vec3(0.1, 0.2, 0.05)), 1000},
                        {"icosphere", mesh::make_icosphere(0.1, 3), 1000}};
  for (const Case& cs : cases) {
    const OrientedPointCloud c = aopc_of(cs.mesh, cs.points);
    const double h = c.mean_spacing();
    const double eps1 = 0.1 * h * h, margin = h;
    const SignStats s = sign_test(cs.mesh, c, eps1, margin, count, 77);
    std::printf("  sign test %-10s I=%5d spacing h=%.4f m  eps1=0.1h^2  margin=h: %d points, %d wrong\n", cs.name,
                cs.points, h, s.tested, s.wrong);
    EXPECT_EQ(s.wrong, 0) << cs.name;
    // For information: smaller margins (no assertion).
    for (double f : {0.5, 0.1}) {
      const SignStats t = sign_test(cs.mesh, c, eps1, f * h, count / 4, 78);
      std::printf("      (margin=%.1fh: %d points, %d wrong)\n", f, t.tested, t.wrong);
    }
  }
}

/// Isosurface error: mean and max |φ̂| at random points of the true surface (the distance of the
/// zero isosurface to the surface to first order, |∇φ̂| ≈ 1), and the mean |φ̂ − sd| in a band
/// |sd| < band around it.
struct IsoError {
  double surface_mean = 0, surface_max = 0, band_mean = 0;
};

IsoError iso_error(const TriangleMesh& m, const OrientedPointCloud& c, double eps1, double band) {
  const OrientedPointCloud probe = aopc_of(m, 600, 1234);  // independent surface samples
  SsdfWorkspace ws;
  IsoError e;
  for (int i = 0; i < probe.size(); ++i) {
    const double v = std::abs(ssdf::soft_signed_distance(c, probe.points()[static_cast<size_t>(i)], eps1, ws));
    e.surface_mean += v / probe.size();
    e.surface_max = std::max(e.surface_max, v);
  }
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> U(-band, band);
  for (int i = 0; i < probe.size(); ++i) {
    const Vec3 p = probe.points()[static_cast<size_t>(i)] + U(rng) * probe.normals()[static_cast<size_t>(i)] +
                   0.3 * band * random_unit(rng);
    e.band_mean += std::abs(ssdf::soft_signed_distance(c, p, eps1, ws) - mesh::signed_distance(m, p)) / probe.size();
  }
  return e;
}

TEST(Ssdf, IsosurfaceErrorShrinksWithTemperatureAndResolution) {
  const TriangleMesh t = mesh::make_t_shape();
  const int sizes[] = {100, 400, 1600};
  const double eps[] = {1e-3, 1e-4, 1e-5, 1e-6};  // m²
  const double band = 0.01;
  IsoError table[3][4];
  std::printf("  T shape (0.25 x 0.20 x 0.05 m): isosurface error (m) on the true surface, mean / max |phi|,\n"
              "  and mean |phi - sd| in a 1 cm band\n");
  std::printf("  %6s", "I \\ eps1");
  for (double e : eps) std::printf("  %27.0e", e);
  std::printf("\n");
  for (int a = 0; a < 3; ++a) {
    const OrientedPointCloud c = aopc_of(t, sizes[a]);
    std::printf("  %6d  ", sizes[a]);
    for (int b = 0; b < 4; ++b) {
      table[a][b] = iso_error(t, c, eps[b], band);
      std::printf("  %.5f/%.5f/%.5f  ", table[a][b].surface_mean, table[a][b].surface_max, table[a][b].band_mean);
    }
    std::printf("\n");
  }
  // As eps1 → 0 (fixed I) the error shrinks. As I grows (fixed eps1) the oscillations between
  // points shrink (max error); the mean error also shrinks once eps1 is small next to the
  // spacing², while at high temperature it is the smoothing bias itself (the isosurface rounds
  // towards an ellipsoid, Sec. IV-A), which no resolution removes.
  for (int a = 0; a < 3; ++a) {
    EXPECT_LT(table[a][3].surface_mean, table[a][0].surface_mean) << "I = " << sizes[a];
    EXPECT_LT(table[a][3].band_mean, table[a][0].band_mean) << "I = " << sizes[a];
  }
  for (int b = 0; b < 4; ++b) EXPECT_LT(table[2][b].surface_max, table[0][b].surface_max) << "eps1 = " << eps[b];
  for (int b = 2; b < 4; ++b) {
    EXPECT_LT(table[2][b].surface_mean, table[1][b].surface_mean) << "eps1 = " << eps[b];
    EXPECT_LT(table[1][b].surface_mean, table[0][b].surface_mean) << "eps1 = " << eps[b];
    EXPECT_LT(table[2][b].band_mean, table[0][b].band_mean) << "eps1 = " << eps[b];
  }
  // The best setting is close to exact (a few percent of the 5 cm thickness).
  EXPECT_LT(table[2][3].surface_mean, 1e-3);
}

TEST(Ssdf, TwoDimensionalBoxAsInFig4) {
  // Seed Fig. 4: a 2-D square [−1, 1]² sampled by m segment midpoints per side with outward
  // normals (queries in the plane z = 0). Reference: the exact 2-D box distance. The grid error
  // shrinks as eps1 → 0; flipping one normal (an inconsistent orientation) breaks the sign.
  const int m = 8;
  std::vector<Vec3> P, N;
  for (int side = 0; side < 4; ++side)
    for (int k = 0; k < m; ++k) {
      const double s = -1.0 + (2.0 * k + 1.0) / m;
      const Vec3 n = side == 0 ? Vec3(1, 0, 0) : side == 1 ? Vec3(-1, 0, 0) : side == 2 ? Vec3(0, 1, 0) : Vec3(0, -1, 0);
      const Vec3 t(-n.y(), n.x(), 0.0);
      P.push_back(n + s * t);
      N.push_back(n);
    }
  const OrientedPointCloud square(P, N);
  auto box2 = [](const Vec3& q) {
    const double dx = std::abs(q.x()) - 1.0, dy = std::abs(q.y()) - 1.0;
    return std::hypot(std::max(dx, 0.0), std::max(dy, 0.0)) + std::min(std::max(dx, dy), 0.0);
  };
  SsdfWorkspace ws;
  std::printf("  2-D box, %d points: mean |phi - sd| on a grid over [-2, 2]^2, sign errors beyond 0.25\n", 4 * m);
  double prev = 1e9;
  for (double eps1 : {1.0, 0.1, 0.01, 0.001}) {
    double err = 0.0;
    int wrong = 0, count = 0;
    for (int i = 0; i <= 40; ++i)
      for (int j = 0; j <= 40; ++j) {
        const Vec3 q(-2.0 + 0.1 * i, -2.0 + 0.1 * j, 0.0);
        const double phi = ssdf::soft_signed_distance(square, q, eps1, ws), ref = box2(q);
        err += std::abs(phi - ref);
        ++count;
        if (std::abs(ref) > 0.25 && (phi < 0) != (ref < 0)) ++wrong;
      }
    err /= count;
    std::printf("    eps1 = %-6g mean error %.4f, %d sign errors\n", eps1, err, wrong);
    EXPECT_LT(err, prev);
    prev = err;
    if (eps1 <= 0.01) {
      EXPECT_EQ(wrong, 0);
    }
  }
  // One flipped normal: sign errors appear near that point even at low temperature.
  std::vector<Vec3> Nbad = N;
  Nbad[3] = -Nbad[3];
  const OrientedPointCloud bad(P, Nbad);
  EXPECT_LT(ssdf::soft_signed_distance(bad, P[3] + 0.1 * N[3], 0.001, ws), 0.0);  // outside, but negative
}

TEST(Ssdf, GradientsMatchFiniteDifferences) {
  std::mt19937 rng(21);
  const OrientedPointCloud c = aopc_of(mesh::make_t_shape(), 300);
  SsdfWorkspace ws;
  const double h = c.mean_spacing();
  for (double eps1 : {0.3 * h * h, 3.0 * h * h}) {
    for (int trial = 0; trial < 30; ++trial) {
      const Pose X = random_pose(rng, 0.5);
      const Vec3 p_W = X * (Vec3(0.15, 0.12, 0.05).cwiseProduct(Vec3::Random()));
      expect_ssdf_gradients(c, X, p_W, eps1, 1e-3, ws);
    }
  }
}

/// The kernel SSDF's gradient at q against central differences with the given step.
void expect_kernel_gradient(const OrientedPointCloud& c, const ssdf::AnisotropicGaussianKernel& K, const Vec3& q,
                            double step, SsdfWorkspace& ws) {
  Vec3 g;
  ssdf::kernel_signed_distance(c, q, K, ws, &g);
  GradientCheckOptions opt;
  opt.step = step;
  auto r = diffcol::check_gradient(
      [&](const Eigen::VectorXd& x) {
        Eigen::VectorXd v(1);
        v(0) = ssdf::kernel_signed_distance(c, Vec3(x), K, ws);
        return v;
      },
      Eigen::VectorXd(q), Eigen::MatrixXd(g.transpose()), opt);
  EXPECT_TRUE(r.passed()) << r.report();
}

TEST(Ssdf, AnisotropicKernelGradient) {
  // Eq. (10) with per-point anisotropic Gaussians; isotropic A_i = I reproduces eq. (9).
  std::mt19937 rng(8);
  const OrientedPointCloud c = aopc_of(mesh::make_icosphere(0.1, 2), 150);
  std::vector<Mat3> A(static_cast<size_t>(c.size()));
  SsdfWorkspace ws;
  const double eps1 = 4e-4;
  std::vector<Mat3> I3(A.size(), Mat3::Identity());
  const ssdf::AnisotropicGaussianKernel iso{&I3, eps1};
  for (int k = 0; k < 20; ++k) {
    const Vec3 q = 0.15 * Vec3::Random();
    EXPECT_NEAR(ssdf::kernel_signed_distance(c, q, iso, ws), ssdf::soft_signed_distance(c, q, eps1, ws), 1e-15);
  }
  for (Mat3& a : A) {
    const Mat3 B = Mat3::Random();
    a = B * B.transpose() + 0.3 * Mat3::Identity();
  }
  const ssdf::AnisotropicGaussianKernel K{&A, eps1};
  for (int trial = 0; trial < 20; ++trial) {
    expect_kernel_gradient(c, K, 0.15 * Vec3::Random(), 1e-3, ws);
  }
  (void)rng;
}

// Far queries with anisotropic kernels (shifted_logit): equal A_i = s·I answer like the
// isotropic SSDF at eps1/s at any distance (positive, the same value, before the fix "inside" at
// 1e20); random A_i are continuous across the switch at 16 radii and their far gradient matches
// central differences.
TEST(Ssdf, AnisotropicFarQueries) {
  std::mt19937 rng(9);
  const OrientedPointCloud c = aopc_of(mesh::make_icosphere(0.1, 2), 150);
  SsdfWorkspace ws;
  const double eps1 = 4e-4, s = 2.5, R = c.bounds().radius;
  const std::vector<Mat3> S(static_cast<size_t>(c.size()), s * Mat3::Identity());
  const ssdf::AnisotropicGaussianKernel scaled{&S, eps1};
  for (double ratio : {20.0, 1e4, 1e15, 1e20, 1e90}) {
    for (int k = 0; k < 10; ++k) {
      const Vec3 q = c.bounds().center + ratio * R * random_unit(rng);
      Vec3 ga, gi;
      const double pa = ssdf::kernel_signed_distance(c, q, scaled, ws, &ga);
      const double pi = ssdf::soft_signed_distance(c, q, eps1 / s, ws, &gi);
      EXPECT_GT(pa, 0.0) << "ratio " << ratio;
      EXPECT_NEAR(pa, pi, 1e-12 * std::abs(pi)) << "ratio " << ratio;
      EXPECT_LE((ga - gi).norm(), 1e-9 * std::max(1.0, gi.norm())) << "ratio " << ratio;
    }
  }
  std::vector<Mat3> A(static_cast<size_t>(c.size()));
  for (Mat3& a : A) {
    const Mat3 B = Mat3::Random();
    a = B * B.transpose() + 0.3 * Mat3::Identity();
  }
  const double wide = 0.3 * R * R;  // weights spread over many points at 20 radii
  const ssdf::AnisotropicGaussianKernel K{&A, wide};
  for (int k = 0; k < 20; ++k) {
    const Vec3 u = random_unit(rng);
    const double D = ssdf::kFarQueryRatio * R;
    const Vec3 q_near = c.bounds().center + D * (1.0 - 1e-12) * u, q_far = c.bounds().center + D * (1.0 + 1e-12) * u;
    ASSERT_TRUE(c.bounds().far(q_far) && !c.bounds().far(q_near));
    Vec3 gn, gf;
    const double pn = ssdf::kernel_signed_distance(c, q_near, K, ws, &gn);
    const double pf = ssdf::kernel_signed_distance(c, q_far, K, ws, &gf);
    EXPECT_NEAR(pn, pf, 1e-9 * D);
    EXPECT_LE((gn - gf).norm(), 1e-6 * std::max(1.0, gn.norm()));
    expect_kernel_gradient(c, K, c.bounds().center + 20.0 * R * u, 1e-4, ws);
  }
}

// ----------------------------------------------------------------------------------- separation

TEST(Separation, TwoSpheresMatchClosedForm) {
  // Sphere radii r1, r2 at centre distance D: separation D − r1 − r2 (Sec. III-B3); the smooth
  // estimate converges to it as the temperatures shrink and the resolution grows.
  const double r1 = 0.1, r2 = 0.05;
  const OrientedPointCloud c1 = aopc_of(mesh::make_icosphere(r1, 4), 1500);
  const OrientedPointCloud c2 = aopc_of(mesh::make_icosphere(r2, 4), 800);
  SsdfWorkspace ws;
  std::mt19937 rng(12);
  for (double D : {0.2, 0.16, 0.15, 0.14, 0.12}) {
    const Pose X1 = make_pose(random_rotation(rng), Vec3(0.01, 0.02, 0.03));
    const Pose X2 = make_pose(random_rotation(rng), X1.p + D * random_unit(rng));
    const ssdf::Separation s = ssdf::smooth_separation_distance(c1, X1, c2, X2, 1e-6, 1e-4, ws, false);
    std::printf("  spheres: D = %.3f  exact %.5f  smooth %.5f\n", D, D - r1 - r2, s.distance);
    EXPECT_NEAR(s.distance, D - r1 - r2, 2.5e-3);
  }
}

TEST(Separation, JacobianMatchesFiniteDifferences) {
  std::mt19937 rng(31);
  const OrientedPointCloud c1 = aopc_of(mesh::make_box(Vec3(0.1, 0.06, 0.08)), 120);
  const OrientedPointCloud c2 = aopc_of(mesh::make_t_shape(), 150);
  SsdfWorkspace ws;
  for (long trial = 0; trial < env_count("DIFFCOL_SCM_TRIALS", 20); ++trial) {
    const Pose X1 = random_pose(rng, 0.02), X2 = random_pose(rng, 0.1);
    const ssdf::Separation s = ssdf::smooth_separation_distance(c1, X1, c2, X2, 2e-4, 5e-3, ws, true);
    GradientCheckOptions opt;
    opt.frame = ReferenceFrame::world;  // the default frame of the queries
    auto r = diffcol::check_pose_gradient(
        [&](const Pose& A, const Pose& B) {
          Eigen::VectorXd v(1);
          v(0) = ssdf::smooth_separation_distance(c1, A, c2, B, 2e-4, 5e-3, ws, false).distance;
          return v;
        },
        X1, X2, Eigen::MatrixXd(s.J_distance_X), opt);
    EXPECT_TRUE(r.passed()) << r.report();
  }
}

TEST(Separation, CollisionPointsLieAtTheInterface) {
  // Box 2 sits on box 1 with a 5 mm overlap, shifted sideways: the K = 4 hard collision points
  // (eqs. (12)–(13), topk temperature 0) are vertices within the overlap slab.
  const Vec3 s1(0.2, 0.2, 0.1), s2(0.1, 0.1, 0.1);
  const TriangleMesh b1 = mesh::make_box(s1), b2 = mesh::make_box(s2);
  const OrientedPointCloud c1 = aopc_of(b1, 600), c2 = aopc_of(b2, 300);
  const Pose X1 = Pose::identity();
  const Pose X2 = make_pose(Mat3::Identity(), Vec3(0.03, -0.02, 0.5 * (s1.z() + s2.z()) - 0.005));
  SsdfWorkspace ws;
  Vec3 pts[8];
  double mass[8];
  ssdf::collision_points(c1, X1, c2, X2, 1e-6, 1e-3, 4, 0.0, ws, pts, mass);
  for (int k = 0; k < 4; ++k) {
    std::printf("  collision point %d: (%.4f, %.4f, %.4f) mass %.3f\n", k, pts[k].x(), pts[k].y(), pts[k].z(), mass[k]);
    // A vertex of box 2's bottom face (z = 0.045) or of box 1's top face (z = 0.05).
    EXPECT_TRUE(std::abs(pts[k].z() - 0.045) < 1e-12 || std::abs(pts[k].z() - 0.05) < 1e-12) << pts[k].transpose();
    EXPECT_GT(mass[k], 0.0);
  }
  EXPECT_GE(mass[0], mass[3]);
  // Smooth top-K: convex combinations of vertices, finite.
  ssdf::collision_points(c1, X1, c2, X2, 1e-6, 1e-3, 8, 0.05, ws, pts, mass);
  for (int k = 0; k < 8; ++k) EXPECT_TRUE(pts[k].allFinite());
  EXPECT_THROW(ssdf::collision_points(c1, X1, c2, X2, 1e-6, 1e-3, 0, 0.0, ws, pts), std::invalid_argument);
}

TEST(Separation, CollisionPointJacobiansMatchFiniteDifferences) {
  // Smooth top-K over the vertices of a box and a T shape (point clouds with their own points as
  // vertices for the T, so V is large) in near contact.
  std::mt19937 rng(41);
  const OrientedPointCloud c1 = aopc_of(mesh::make_box(Vec3(0.1, 0.06, 0.08)), 100);
  const OrientedPointCloud t = aopc_of(mesh::make_t_shape(), 120);
  const OrientedPointCloud c2(t.points(), t.normals());  // every point its own vertex
  SsdfWorkspace ws;
  const int K = 4;
  for (long trial = 0; trial < std::min(8L, env_count("DIFFCOL_SCM_TRIALS", 8)); ++trial) {
    const Pose X1 = random_pose(rng, 0.02), X2 = random_pose(rng, 0.05);
    Vec3 pts[K];
    Eigen::Matrix<double, 3, 12> J[K];
    ssdf::collision_points(c1, X1, c2, X2, 2e-4, 5e-3, K, 0.02, ws, pts, nullptr, J);
    Eigen::MatrixXd JA(3 * K, 12);
    for (int k = 0; k < K; ++k) JA.middleRows(3 * k, 3) = J[k];
    GradientCheckOptions opt;
    opt.frame = ReferenceFrame::world;  // the default frame of the queries
    const auto r = diffcol::check_pose_gradient(
        [&](const Pose& A, const Pose& B) {
          Vec3 p[K];
          ssdf::collision_points(c1, A, c2, B, 2e-4, 5e-3, K, 0.02, ws, p);
          Eigen::VectorXd v(3 * K);
          for (int k = 0; k < K; ++k) v.segment<3>(3 * k) = p[k];
          return v;
        },
        X1, X2, JA, opt);
    EXPECT_TRUE(r.passed()) << "trial " << trial << "\n" << r.report();
  }
}

}  // namespace
