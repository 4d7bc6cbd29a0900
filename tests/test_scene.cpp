// Scenes: dispatch of mixed pairs, filters, the broad phase against brute force, the narrow phase
// against the layers' own pair queries, derivatives against finite differences in every frame,
// threads, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/euclidean.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/euclidean.hpp"
#include "diffcol/math/gradient_check.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/scene/shape_description.hpp"
#include "diffcol/shapes/smoothness.hpp"
#include "test_util.hpp"

namespace diffcol::scene {
namespace {

using test::kNaN;

Pose random_pose(std::mt19937& rng, double a) { return test::make_pose(test::random_rotation(rng), test::random_in_cube(rng, a)); }

// A shape of one of the families, sizes in [0.5, 1.5]·s.
CollisionShape random_shape(std::mt19937& rng, double s) {
  std::uniform_real_distribution<double> u(0.5, 1.5);
  switch (std::uniform_int_distribution<int>(0, 7)(rng)) {
    case 0: return Sphere(s * u(rng));
    case 1: return Superellipsoid(s * u(rng), s * u(rng), s * u(rng), 4);
    case 2: return dcol::Polytope::box(s * u(rng), s * u(rng), s * u(rng));
    case 3: return dcol::Capsule(0.5 * s * u(rng), s * u(rng));
    case 4: return dcol::Cylinder(0.5 * s * u(rng), s * u(rng));
    case 5: return dcol::Ellipsoid::from_semi_axes(s * u(rng), s * u(rng), s * u(rng));
    case 6: return qp::Capsule(0.5 * s * u(rng), s * u(rng));
    default: return dcol::Sphere(s * u(rng));
  }
}

TEST(SceneDispatch, FamiliesAndMixedPairs) {
  const CollisionShape idcol_sphere = Sphere(0.5), smooth_box = Superellipsoid(0.3, 0.4, 0.5, 6),
                       ellipsoid = Superellipsoid::ellipsoid(0.3, 0.4, 0.5);
  const CollisionShape dcol_box = dcol::Polytope::box(0.2, 0.3, 0.4), cylinder = dcol::Cylinder(0.2, 0.5),
                       dcol_capsule = dcol::Capsule(0.1, 0.4);
  const CollisionShape qp_capsule = qp::Capsule(0.1, 0.4), polygon = qp::PaddedPolygon::rectangle(0.3, 0.2, 0.05);
  EXPECT_EQ(*pair_family(smooth_box, idcol_sphere), Family::idcol);
  EXPECT_EQ(*pair_family(dcol_box, cylinder), Family::dcol);
  EXPECT_EQ(*pair_family(qp_capsule, polygon), Family::qp);
  EXPECT_EQ(*pair_family(qp_capsule, dcol_box), Family::dcol);  // a QP capsule is a DCOL capsule
  EXPECT_EQ(*pair_family(idcol_sphere, polygon), Family::dcol);
  EXPECT_EQ(*pair_family(ellipsoid, cylinder), Family::dcol);   // n = 1 is a DCOL ellipsoid
  EXPECT_EQ(*pair_family(smooth_box, dcol::Primitive(dcol::Sphere(0.2))), Family::idcol);
  EXPECT_EQ(*pair_family(dcol_capsule, polygon), Family::dcol);
  // symmetric
  EXPECT_EQ(*pair_family(dcol_box, qp_capsule), Family::dcol);
  EXPECT_FALSE(pair_family(smooth_box, cylinder).has_value());
  EXPECT_FALSE(pair_family(smooth_box, qp_capsule).has_value());
  try {
    plan_pair(smooth_box, cylinder);
    FAIL() << "a superellipsoid (n = 6) against a DCOL cylinder must be refused";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("superellipsoid"), std::string::npos) << m;
    EXPECT_NE(m.find("cylinder"), std::string::npos) << m;
  }
}

// A representation is the same set: the contact of a mixed pair equals the direct query of the
// represented shapes at the represented poses.
TEST(SceneDispatch, RepresentationsAreExact) {
  std::mt19937 rng(7);
  const qp::Capsule end_points = qp::Capsule::from_end_points(Vec3(0.3, -0.1, 0.2), Vec3(-0.2, 0.25, -0.1), 0.15);
  const CollisionShape qp_cap = end_points;
  const auto rep = qp_cap.representation(Family::dcol);
  ASSERT_TRUE(rep.has_value());
  int checked = 0;
  for (int trial = 0; trial < 50; ++trial) {
    const Pose X1 = random_pose(rng, 1.0), X2 = random_pose(rng, 1.0);
    // QP: capsule against a capsule-shaped probe; DCOL: the representation against the same probe
    const qp::Capsule probe(0.1, 0.3);
    const auto q = qp::proximity(end_points, X1, probe, X2);
    const auto d = dcol::euclidean_distance(rep->shape.dcol(), X1 * rep->X_SR, dcol::Capsule(0.1, 0.3), X2);
    if (!q.ok() || q.signed_distance <= 1e-3 || !d.ok()) continue;
    EXPECT_NEAR(q.signed_distance, d.distance, 1e-9);
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

// The reference distance of two scene shapes, from the layers' own queries on the plan's shapes
// (no broad phase): Euclidean where separated, -1 where they touch or overlap. Where the
// Euclidean query fails (iDCOL's does on some pairs far apart, tens of sizes), the bounding
// balls' gap, a lower bound, which must then exceed `margin` for the pair to count as far.
double reference_distance(const Scene& scene, int a, int b, double margin) {
  const PairPlan plan = plan_pair(scene.shape(a).shape, scene.shape(b).shape);
  const Pose X1 = scene.shape_pose(a) * plan.X_S1R1, X2 = scene.shape_pose(b) * plan.X_S2R2;
  const double ball_gap = (X2.p - X1.p).norm() - plan.shape1.outer_radius() - plan.shape2.outer_radius();
  double d = kNaN;
  switch (plan.family) {
    case Family::idcol: {
      const auto c = idcol::solve_contact(plan.shape1.idcol(), X1, plan.shape2.idcol(), X2);
      if (c.status == diffcol::SolveStatus::ok && c.alpha <= 1.0) return -1.0;
      const auto e = idcol::euclidean_distance(plan.shape1.idcol(), X1, plan.shape2.idcol(), X2, c);
      if (e.status == diffcol::DistanceStatus::separated) d = e.distance;
      else if (e.status == diffcol::DistanceStatus::touching_or_overlapping) d = -1.0;
      break;
    }
    case Family::dcol: {
      const auto e = dcol::euclidean_distance(plan.shape1.dcol(), X1, plan.shape2.dcol(), X2);
      if (e.status == diffcol::DistanceStatus::separated) d = e.distance;
      else if (e.status == diffcol::DistanceStatus::touching_or_overlapping) d = -1.0;
      break;
    }
    case Family::qp: {
      const auto& c1 = std::get<qp::Capsule>(plan.shape1.variant());
      const auto& c2 = std::get<qp::Capsule>(plan.shape2.variant());
      const auto r = qp::proximity(c1, X1, c2, X2);
      if (r.ok()) d = r.signed_distance > 0.0 ? r.signed_distance : -1.0;
      break;
    }
  }
  if (std::isnan(d)) {
    EXPECT_GT(ball_gap, margin + 1e-9) << "the reference failed on pair " << a << "," << b << " near the margin";
    return ball_gap;
  }
  return d;
}

// n bodies with one random shape each in a cube of half-size `extent`, one in `static_every` of
// them static.
Scene random_scene(std::mt19937& rng, int n, double extent, double size, int static_every = 10) {
  Scene scene;
  std::uniform_real_distribution<double> scale(0.2, 1.0);
  for (int i = 0; i < n; ++i) {
    const int b = scene.add_body(random_pose(rng, extent), i % static_every == 0);
    CollisionShape shape = random_shape(rng, size * scale(rng));
    // superellipsoids (n > 1) pair with no exact shape: keep them among the iDCOL shapes
    CollisionFilter f;
    if (shape.family() == Family::idcol && !shape.has_representation(Family::dcol)) f = {2u, 2u};
    else if (shape.has_representation(Family::idcol)) f = {3u, 0xFFFFFFFFu};
    else f = {1u, 1u};
    scene.add_shape(b, std::move(shape), random_pose(rng, 0.2 * size), f);
  }
  return scene;
}

TEST(SceneBroadPhase, EqualsBruteForceOnBoxes) {
  std::mt19937 rng(11);
  // a tenth static, then half static (the sweep of a static body's box visits moving boxes only)
  Scene half_static = random_scene(rng, 600, 8.0, 0.6, 2);
  for (double margin : {0.0, 0.3}) {
    std::vector<std::pair<int, int>> brute;
    for (int a = 0; a < half_static.num_shapes(); ++a)
      for (int b = a + 1; b < half_static.num_shapes(); ++b) {
        const Aabb A = Aabb::ball(half_static.shape_pose(a).p, half_static.shape(a).shape.outer_radius());
        const Aabb B = Aabb::ball(half_static.shape_pose(b).p, half_static.shape(b).shape.outer_radius());
        if (half_static.may_collide(a, b) && A.overlaps(B, margin)) brute.emplace_back(a, b);
      }
    EXPECT_EQ(half_static.candidate_pairs(margin), brute) << "margin " << margin;
    EXPECT_GT(brute.size(), 50u);
  }
  Scene scene = random_scene(rng, 1000, 10.0, 0.6);
  for (double margin : {0.0, 0.3}) {
    const auto pairs = scene.candidate_pairs(margin);
    std::vector<std::pair<int, int>> brute;
    for (int a = 0; a < scene.num_shapes(); ++a)
      for (int b = a + 1; b < scene.num_shapes(); ++b) {
        if (!scene.may_collide(a, b)) continue;
        const Aabb A = Aabb::ball(scene.shape_pose(a).p, scene.shape(a).shape.outer_radius());
        const Aabb B = Aabb::ball(scene.shape_pose(b).p, scene.shape(b).shape.outer_radius());
        if (A.overlaps(B, margin)) brute.emplace_back(a, b);
      }
    EXPECT_EQ(pairs, brute) << "margin " << margin;
    EXPECT_GT(brute.size(), 100u);
  }
  // moving every body a little keeps the sweep's order nearly sorted: same answer as brute force
  for (int i = 0; i < scene.num_bodies(); ++i) {
    Pose X = scene.body(i).X_WB;
    X.p += test::random_in_cube(rng, 0.3);
    scene.set_body_pose(i, X);
  }
  const auto moved = scene.candidate_pairs(0.1);
  Scene fresh(scene);  // a copy sorts from scratch
  EXPECT_EQ(moved, fresh.candidate_pairs(0.1));
}

// The sweep itself against brute force (Aabb::overlaps) on boxes built to stress its single-
// precision filter: pairs touching exactly or 1e-15 apart at coordinates no float represents,
// coordinates beyond the float range, static boxes, a sweep axis other than x, and a split sweep.
TEST(SceneBroadPhase, SweepAndPruneEqualsBruteForce) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const auto brute_force = [](const std::vector<Aabb>& boxes, double margin, const std::vector<char>& fixed) {
    std::vector<std::pair<int, int>> out;
    for (size_t a = 0; a < boxes.size(); ++a)
      for (size_t b = a + 1; b < boxes.size(); ++b)
        if (!(fixed[a] && fixed[b]) && boxes[a].overlaps(boxes[b], margin)) out.emplace_back(int(a), int(b));
    return out;
  };
  const auto accept_all = [](int, int) { return true; };
  for (const double scale : {1.0, 1e-7, 1e40}) {
    // spread along z (the sweep axis), a few boxes per unit volume
    std::vector<Aabb> boxes;
    for (int i = 0; i < 1500; ++i) {
      const Vec3 c = scale * Vec3(3.0 * U(rng), 3.0 * U(rng), 40.0 * U(rng));
      const Vec3 h = scale * Vec3(0.05 + 0.3 * U(rng), 0.05 + 0.3 * U(rng), 0.05 + 0.3 * U(rng));
      boxes.push_back(Aabb{c - h, c + h});
      if (i % 5 == 0) {  // a neighbour along y touching exactly, or 1e-15 (relative) short of it
        Aabb t = boxes.back();
        const double gap = i % 10 == 0 ? 0.0 : 1e-15 * std::abs(t.upper.y());
        t.lower.y() = t.upper.y() + gap;
        t.upper.y() = t.lower.y() + h.y();
        boxes.push_back(t);
      }
    }
    std::vector<char> fixed(boxes.size());
    for (size_t i = 0; i < fixed.size(); ++i) fixed[i] = i % 3 == 0;
    for (const double margin : {0.0, 0.1 * scale}) {
      SweepAndPrune sap;
      std::vector<std::pair<int, int>> pairs;
      sap.find_pairs(boxes, margin, accept_all, pairs, nullptr, &fixed);
      EXPECT_EQ(sap.axis(), 2);
      const auto expected = brute_force(boxes, margin, fixed);
      EXPECT_EQ(pairs, expected) << "scale " << scale << ", margin " << margin;
      EXPECT_GT(expected.size(), 200u);
    }
  }
  // above kParallelBoxes: split over a pool, the same pairs as one thread
  std::vector<Aabb> many;
  for (int i = 0; i < SweepAndPrune::kParallelBoxes + 500; ++i) {
    const Vec3 c(20.0 * U(rng), 20.0 * U(rng), 20.0 * U(rng));
    many.push_back(Aabb::ball(c, 0.1 + 0.4 * U(rng)));
  }
  const std::vector<char> none(many.size(), 0);
  batch::ThreadPool pool(2);
  SweepAndPrune split, serial;
  std::vector<std::pair<int, int>> a, b;
  split.find_pairs(many, 0.05, accept_all, a, &pool, &none);
  serial.find_pairs(many, 0.05, accept_all, b, nullptr, &none);
  EXPECT_EQ(a, b);
  EXPECT_GT(a.size(), 1000u);
}

// The query reports exactly the pairs whose distance (from the layers, no broad phase) is below
// the margin, over every pair of a random scene of 1000 bodies (DIFFCOL_SCENE_BODIES): the broad
// phase misses none.
TEST(SceneBroadPhase, QueryMissesNoPair) {
  std::mt19937 rng(5);
  const int n = static_cast<int>(test::env_count("DIFFCOL_SCENE_BODIES", 1000));
  Scene scene = random_scene(rng, n, 2.2 * std::cbrt(n / 150.0) * 2.0, 0.5);
  for (double margin : {0.0, 0.25}) {
    QueryOptions o;
    o.margin = margin;
    const QueryResult r = scene.query(o);
    std::set<std::pair<int, int>> reported;
    for (const PairResult& p : r.pairs) {
      EXPECT_TRUE(p.ok()) << p.shape1 << "," << p.shape2 << " " << p.solver_status;
      reported.emplace(p.shape1, p.shape2);
    }
    int close = 0, borderline = 0;
    for (int a = 0; a < scene.num_shapes(); ++a)
      for (int b = a + 1; b < scene.num_shapes(); ++b) {
        if (!scene.may_collide(a, b)) continue;
        const double d = reference_distance(scene, a, b, margin);
        const bool near = margin > 0.0 ? d < margin : d < 0.0;
        if (std::abs(d - margin) < 1e-9 || (margin == 0.0 && std::abs(d) < 1e-9)) {
          ++borderline;
          continue;
        }
        close += near;
        EXPECT_EQ(near, reported.count({a, b}) == 1) << "pair " << a << "," << b << " distance " << d
                                                      << " margin " << margin;
      }
    EXPECT_GT(close, 10) << "margin " << margin;
    EXPECT_LT(borderline, 3);
  }
}

// Three bodies: a static DCOL box, an iDCOL sphere, a QP capsule and a smooth superellipsoid
// filtered to meet only the sphere; the scene's records equal the layers' own queries.
TEST(Scene, RecordsEqualTheLayerQueries) {
  Scene scene;
  const int table = scene.add_body(Pose::identity(), true, "table");
  const int ball = scene.add_body(test::make_pose(Mat3::Identity(), Vec3(0.0, 0.0, 0.5)), false, "ball");
  const int rod = scene.add_body(test::make_pose(Mat3::Identity(), Vec3(0.9, 0.0, 0.3)), false, "rod");
  const int blob = scene.add_body(test::make_pose(Mat3::Identity(), Vec3(-0.2, 0.1, 1.1)), false, "blob");
  const dcol::Primitive box = dcol::Polytope::box(0.5, 0.5, 0.1);
  const Pose mount = test::make_pose(Mat3::Identity(), Vec3(0.0, 0.0, 0.05));
  const int s_box = scene.add_shape(table, box, Pose::identity(), {1u, 0xFFFFFFFFu});
  const int s_ball = scene.add_shape(ball, Sphere(0.2), mount, {3u, 0xFFFFFFFFu});
  const int s_rod = scene.add_shape(rod, qp::Capsule(0.1, 0.6), Pose::identity(), {1u, 0xFFFFFFFFu});
  const Superellipsoid smooth(0.2, 0.3, 0.25, 4);
  const int s_blob = scene.add_shape(blob, smooth, Pose::identity(), {2u, 2u});
  QueryOptions o;
  o.margin = 5.0;
  const QueryResult r = scene.query(o);
  ASSERT_EQ(r.pairs.size(), 4u);
  for (const PairResult& p : r.pairs) {
    ASSERT_TRUE(p.ok()) << p.solver_status;
    EXPECT_EQ(p.body1, scene.shape(p.shape1).body);
    EXPECT_TRUE(p.separated);
    EXPECT_EQ(p.points, PointKind::closest);
    EXPECT_NEAR((p.p2_W - p.p1_W).norm(), p.distance, 1e-9);
    EXPECT_NEAR(((p.p2_W - p.p1_W) / p.distance - p.normal_W).norm(), 0.0, 1e-9);
  }
  const auto find = [&](int a, int b) {
    for (const PairResult& p : r.pairs)
      if (p.shape1 == a && p.shape2 == b) return p;
    ADD_FAILURE() << "pair " << a << "," << b << " missing";
    return PairResult{};
  };
  // box–ball: DCOL (the iDCOL sphere is a DCOL sphere)
  const PairResult bb = find(s_box, s_ball);
  EXPECT_EQ(bb.family, Family::dcol);
  const auto c_bb = dcol::solve_contact(box, Pose::identity(), dcol::Sphere(0.2), scene.shape_pose(s_ball));
  EXPECT_NEAR(bb.alpha, c_bb.alpha, 1e-10 * c_bb.alpha);
  EXPECT_NEAR(bb.gap, c_bb.gap, 1e-10);
  EXPECT_NEAR(bb.distance, 0.5 + 0.05 - 0.1 - 0.2, 1e-10);  // closed form: centre height − half-thickness − radius
  // box–rod: DCOL capsule
  const PairResult br = find(s_box, s_rod);
  EXPECT_EQ(br.family, Family::dcol);
  const auto e_br = dcol::euclidean_distance(box, Pose::identity(), dcol::Capsule(0.1, 0.6), scene.shape_pose(s_rod));
  EXPECT_NEAR(br.distance, e_br.distance, 1e-10);
  // ball–blob: iDCOL
  const PairResult bl = find(s_ball, s_blob);
  EXPECT_EQ(bl.family, Family::idcol);
  const auto c_bl = idcol::solve_contact(Sphere(0.2), scene.shape_pose(s_ball), smooth, scene.shape_pose(s_blob));
  EXPECT_NEAR(bl.alpha, c_bl.alpha, 1e-9 * c_bl.alpha);
  const auto e_bl = idcol::euclidean_distance(Sphere(0.2), scene.shape_pose(s_ball), smooth, scene.shape_pose(s_blob));
  EXPECT_NEAR(bl.distance, e_bl.distance, 1e-9);
  // ball–rod: a DCOL sphere–capsule pair; the closed form of a point and a segment
  const PairResult rb = find(s_ball, s_rod);
  EXPECT_EQ(rb.family, Family::dcol);
  const Vec3 c = scene.shape_pose(s_ball).p, a_end(0.6, 0.0, 0.3), b_end(1.2, 0.0, 0.3);
  const double t = std::clamp((c - a_end).dot(b_end - a_end) / (b_end - a_end).squaredNorm(), 0.0, 1.0);
  EXPECT_NEAR(rb.distance, (c - (a_end + t * (b_end - a_end))).norm() - 0.3, 1e-9);
  // the margin: ball–rod (distance 0.35) is the one pair beyond 0.3
  EXPECT_NEAR(rb.distance, 0.35, 2e-3);
  o.margin = 0.3;
  const QueryResult near = scene.query(o);
  std::set<std::pair<int, int>> found;
  for (const PairResult& p : near.pairs) found.emplace(p.shape1, p.shape2);
  const std::set<std::pair<int, int>> expected = {{s_box, s_ball}, {s_box, s_rod}, {s_ball, s_blob}};
  EXPECT_EQ(found, expected);
  // in contact: only pairs that touch
  scene.set_body_pose(ball, test::make_pose(Mat3::Identity(), Vec3(0.0, 0.0, 0.2)));
  const QueryResult contact = scene.query();
  ASSERT_EQ(contact.pairs.size(), 1u);
  EXPECT_FALSE(contact.pairs[0].separated);
  EXPECT_LT(contact.pairs[0].alpha, 1.0);
  EXPECT_LT(contact.pairs[0].gap, 0.0);
  EXPECT_NEAR(contact.pairs[0].normal_W.z(), 1.0, 1e-9);  // the dual normal: up, from the table to the ball
}

TEST(Scene, FiltersDisabledPairsAndStaticBodies) {
  Scene scene;
  const Pose X = Pose::identity();
  const int w1 = scene.add_body(X, true), w2 = scene.add_body(X, true), m1 = scene.add_body(X), m2 = scene.add_body(X),
            m3 = scene.add_body(X);
  scene.add_shape(w1, dcol::Sphere(1.0));
  scene.add_shape(w2, dcol::Sphere(1.0));
  scene.add_shape(m1, dcol::Sphere(1.0), X, {1u, 1u});
  scene.add_shape(m1, dcol::Sphere(0.5));  // same body: never paired with m1's other shape
  scene.add_shape(m2, dcol::Sphere(1.0), X, {2u, 0xFFFFFFFFu});
  scene.add_shape(m3, dcol::Sphere(1.0));
  scene.disable_body_pair(m3, w1);
  std::set<std::pair<int, int>> expected;
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b) expected.emplace(a, b);
  expected.erase({0, 1});  // both static
  expected.erase({2, 3});  // same body
  expected.erase({2, 4});  // group 2 against mask 1
  expected.erase({0, 5});  // disabled
  const auto pairs = scene.candidate_pairs();
  const std::set<std::pair<int, int>> found(pairs.begin(), pairs.end());
  EXPECT_EQ(found, expected);
  const QueryResult r = scene.query();  // every sphere overlaps every other: all reported
  EXPECT_EQ(r.pairs.size(), expected.size());
}

// Derivatives with respect to both bodies' twists, in each frame, against Ridders differences of
// the body poses moved along that frame's twists (shapes mounted off the body origins).
TEST(SceneDerivatives, AgainstFiniteDifferencesInEveryFrame) {
  struct Case {
    const char* name;
    CollisionShape a, b;
    double distance;  // between the shape centres
  };
  const std::vector<Case> cases = {
      {"dcol box-cylinder separated", dcol::Polytope::box(0.3, 0.2, 0.25), dcol::Cylinder(0.15, 0.5), 1.0},
      {"dcol box-cylinder overlapping", dcol::Polytope::box(0.3, 0.2, 0.25), dcol::Cylinder(0.15, 0.5), 0.35},
      {"idcol superellipsoid-sphere separated", Superellipsoid(0.3, 0.2, 0.25, 4), Sphere(0.2), 0.9},
      {"idcol superellipsoid-sphere overlapping", Superellipsoid(0.3, 0.2, 0.25, 4), Sphere(0.2), 0.35},
      {"qp capsules separated", qp::Capsule(0.1, 0.5), qp::Capsule(0.15, 0.4), 0.8},
      {"qp capsule-polygon overlapping", qp::Capsule(0.1, 0.5), qp::PaddedPolygon::rectangle(0.3, 0.2, 0.05), 0.1},
      {"mixed qp capsule-dcol ellipsoid", qp::Capsule(0.1, 0.5), dcol::Ellipsoid::from_semi_axes(0.2, 0.3, 0.25), 0.9},
      {"mixed off-centre qp capsule-dcol box", qp::Capsule::from_end_points(Vec3(0.1, 0.2, 0.0), Vec3(-0.2, 0.0, 0.3), 0.1),
       dcol::Polytope::box(0.3, 0.2, 0.25), 0.9},
  };
  std::mt19937 rng(3);
  const int trials = static_cast<int>(test::env_count("DIFFCOL_SCENE_DERIV_POSES", 6));
  for (const Case& c : cases) {
    for (ReferenceFrame frame : {ReferenceFrame::world, ReferenceFrame::local, ReferenceFrame::local_world_aligned}) {
      int checked = 0;
      for (int t = 0; t < trials; ++t) {
        Scene scene;
        const Pose mount1 = random_pose(rng, 0.3), mount2 = random_pose(rng, 0.3);
        const Pose X1 = random_pose(rng, 1.0);
        const Pose S1 = X1 * mount1;
        // place shape 2's centre at the case's distance from shape 1's centre
        const Vec3 centre2 = S1.p + c.distance * test::random_unit(rng);
        Pose S2 = test::make_pose(test::random_rotation(rng), centre2);
        const Pose X2 = S2 * mount2.inverse();
        const int b1 = scene.add_body(X1), b2 = scene.add_body(X2);
        scene.add_shape(b1, c.a, mount1);
        scene.add_shape(b2, c.b, mount2);
        QueryOptions o;
        o.margin = 10.0;
        o.derivatives = true;
        o.frame = frame;
        const QueryResult r = scene.query(o);
        ASSERT_EQ(r.pairs.size(), 1u) << c.name;
        const PairResult& p = r.pairs[0];
        const PairDerivatives& d = r.derivatives[0];
        if (!p.ok() || !d.ok) continue;
        EXPECT_EQ(d.frame, frame);
        // outputs: alpha, gap, distance, p1, p2, normal
        const auto f = [&](const Pose& Y1, const Pose& Y2) {
          scene.set_body_pose(b1, Y1);
          scene.set_body_pose(b2, Y2);
          QueryResult q = scene.query(o);
          Eigen::VectorXd v = Eigen::VectorXd::Zero(12);
          if (q.pairs.size() != 1) return v;
          const PairResult& s = q.pairs[0];
          v << s.alpha, s.gap, s.distance, s.p1_W, s.p2_W, s.normal_W;
          return v;
        };
        Eigen::MatrixXd J(12, 12);
        J << d.J_alpha, d.J_gap, d.J_distance, d.J_p1_W, d.J_p2_W, d.J_normal_W;
        GradientCheckOptions g;
        g.frame = frame;
        g.step = 1e-3;
        g.rel_tolerance = 1e-6;
        g.abs_tolerance = 1e-7;
        g.column_group = 6;
        if (p.has_alpha) g.blocks.push_back({"alpha", 0, 1}), g.blocks.push_back({"gap", 1, 1});
        if (p.has_distance && p.separated) g.blocks.push_back({"distance", 2, 1});
        if (d.points) g.blocks.push_back({"points", 3, 6});
        if (d.normal) g.blocks.push_back({"normal", 9, 3});
        // every family differentiates its normal in contact (DCOL's dual normal included)
        if (std::string(c.name).find("overlapping") != std::string::npos) EXPECT_TRUE(d.normal) << c.name;
        const auto res = check_pose_gradient(f, X1, X2, J, g);
        EXPECT_TRUE(res.passed()) << c.name << " frame " << static_cast<int>(frame) << "\n" << res.report();
        ++checked;
      }
      EXPECT_GE(checked, trials / 2) << c.name;
    }
  }
}

// Derivatives with respect to a mount X_BS (X_BS <- X_BS·exp(ξ)): the world-frame derivatives
// expressed in the local frame of the shapes' world poses X_WB·X_BS (docs/scene.md).
TEST(SceneDerivatives, WithRespectToTheMountsAgainstFiniteDifferences) {
  const std::vector<std::pair<CollisionShape, CollisionShape>> cases = {
      {dcol::Polytope::box(0.3, 0.2, 0.25), dcol::Cylinder(0.15, 0.5)},
      {Superellipsoid(0.3, 0.2, 0.25, 4), Sphere(0.2)},
      {qp::Capsule(0.1, 0.5), qp::Capsule(0.15, 0.4)},
  };
  std::mt19937 rng(11);
  int checked = 0;
  for (const auto& [a, b] : cases) {
    for (int t = 0; t < 4; ++t) {
      const Pose X1 = random_pose(rng, 1.0), mount1 = random_pose(rng, 0.3), mount2 = random_pose(rng, 0.3);
      const Pose S2 = test::make_pose(test::random_rotation(rng), (X1 * mount1).p + 0.9 * test::random_unit(rng));
      const Pose X2 = S2 * mount2.inverse();
      QueryOptions o;
      o.margin = 10.0;
      o.derivatives = true;
      const auto query = [&](const Pose& M1, const Pose& M2) {
        Scene scene;
        scene.add_shape(scene.add_body(X1), a, M1);
        scene.add_shape(scene.add_body(X2), b, M2);
        QueryResult r = scene.query(o);
        if (r.pairs.size() == 1) {
          EXPECT_EQ((scene.shape_pose(0).p - (X1 * M1).p).norm(), 0.0);
        }
        return r;
      };
      const QueryResult r = query(mount1, mount2);
      ASSERT_EQ(r.pairs.size(), 1u);
      if (!r.pairs[0].ok() || !r.derivatives[0].ok) continue;
      PairDerivatives d = r.derivatives[0];
      express_in_frame(d, ReferenceFrame::local, X1 * mount1, X2 * mount2);
      const auto f = [&](const Pose& M1, const Pose& M2) {
        const QueryResult q = query(M1, M2);
        Eigen::VectorXd v = Eigen::VectorXd::Zero(9);
        if (q.pairs.size() == 1) v << q.pairs[0].alpha, q.pairs[0].gap, q.pairs[0].distance, q.pairs[0].p1_W, q.pairs[0].p2_W;
        return v;
      };
      Eigen::MatrixXd J(9, 12);
      J << d.J_alpha, d.J_gap, d.J_distance, d.J_p1_W, d.J_p2_W;
      GradientCheckOptions g;
      g.frame = ReferenceFrame::local;
      g.step = 1e-3;
      g.rel_tolerance = 1e-6;
      g.abs_tolerance = 1e-7;
      g.column_group = 6;
      g.blocks.push_back({"alpha", 0, 1});
      g.blocks.push_back({"gap", 1, 1});
      if (r.pairs[0].has_distance && r.pairs[0].separated) g.blocks.push_back({"distance", 2, 1});
      if (d.points) g.blocks.push_back({"points", 3, 6});
      const auto res = check_pose_gradient(f, mount1, mount2, J, g);
      EXPECT_TRUE(res.passed()) << res.report();
      ++checked;
    }
  }
  EXPECT_GE(checked, 8);
}

TEST(Scene, TwoThreadsEqualOne) {
  std::mt19937 rng(9);
  Scene scene = random_scene(rng, 600, 4.5, 0.5);
  Scene copy(scene);
  QueryOptions o;
  o.margin = 0.2;
  o.derivatives = true;
  const QueryResult one = scene.query(o);
  o.num_threads = 2;
  const QueryResult two = copy.query(o);
  ASSERT_EQ(one.pairs.size(), two.pairs.size());
  ASSERT_GT(one.pairs.size(), 20u);
  for (size_t i = 0; i < one.pairs.size(); ++i) {
    EXPECT_EQ(one.pairs[i].shape1, two.pairs[i].shape1);
    EXPECT_EQ(one.pairs[i].alpha, two.pairs[i].alpha);
    EXPECT_EQ(one.pairs[i].distance, two.pairs[i].distance);
    EXPECT_EQ(one.derivatives[i].J_p1_W, two.derivatives[i].J_p1_W);
  }
}

TEST(Scene, BadInputIsRefusedAndChangesNothing) {
  Scene scene;
  const int b = scene.add_body(Pose::identity());
  const int c = scene.add_body(test::make_pose(Mat3::Identity(), Vec3(1.0, 0.0, 0.0)));
  scene.add_shape(b, dcol::Cylinder(0.2, 0.5), Pose::identity(), {}, "post");
  Pose bad = Pose::identity();
  bad.p.x() = kNaN;
  EXPECT_THROW(scene.add_body(bad), std::invalid_argument);
  EXPECT_THROW(scene.set_body_pose(7, Pose::identity()), std::invalid_argument);
  EXPECT_THROW(scene.set_body_pose(c, bad), std::invalid_argument);
  EXPECT_EQ(scene.body(c).X_WB.p.x(), 1.0);
  EXPECT_THROW(scene.set_body_poses({Pose::identity()}), std::invalid_argument);
  EXPECT_THROW(scene.set_body_poses({Pose::identity(), bad}), std::invalid_argument);
  EXPECT_EQ(scene.body(c).X_WB.p.x(), 1.0);  // checked all before changing any
  EXPECT_THROW(scene.add_shape(9, dcol::Sphere(1.0)), std::invalid_argument);
  EXPECT_THROW(scene.add_shape(c, dcol::Sphere(1.0), bad), std::invalid_argument);
  EXPECT_THROW(scene.body(-1), std::invalid_argument);
  EXPECT_THROW(scene.shape(3), std::invalid_argument);
  // a smooth superellipsoid cannot meet the exact cylinder: refused, naming both
  try {
    scene.add_shape(c, Superellipsoid(0.2, 0.2, 0.2, 4), Pose::identity(), {}, "blob");
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("blob"), std::string::npos) << m;
    EXPECT_NE(m.find("post"), std::string::npos) << m;
  }
  EXPECT_EQ(scene.num_shapes(), 1);
  EXPECT_TRUE(scene.body(c).shapes.empty());
  // with the body pair disabled it may join
  scene.disable_body_pair(b, c);
  EXPECT_NO_THROW(scene.add_shape(c, Superellipsoid(0.2, 0.2, 0.2, 4)));
  QueryOptions o;
  o.margin = -1.0;
  EXPECT_THROW(scene.query(o), std::invalid_argument);
  o.margin = kNaN;
  EXPECT_THROW(scene.query(o), std::invalid_argument);
  o.margin = 0.0;
  o.num_threads = -1;
  EXPECT_THROW(scene.query(o), std::invalid_argument);
  EXPECT_THROW(scene.candidate_pairs(-0.5), std::invalid_argument);
}

// A description made into each family has the extents of the description along z (the axis of
// cylinders, capsules, cones) and x: the distance to a small probe ball on each axis, from a
// scene query (so the made shape's X_GS is applied as a mount), against the closed form.
TEST(SceneShapes, DescriptionsKeepTheirExtentsInEveryFamily) {
  struct Case {
    ShapeDescription d;
    double extent_z, extent_x;  // < 0: not checked
  };
  std::vector<Vec3> cube;
  for (int i = 0; i < 8; ++i) cube.emplace_back(1.0 + 0.5 * (i & 1 ? 1 : -1), 1.0 + 0.5 * (i & 2 ? 1 : -1), 1.0 + 0.5 * (i & 4 ? 1 : -1));
  const std::vector<Case> cases = {
      {ShapeDescription::sphere(0.3), 0.3, 0.3},
      {ShapeDescription::box(0.2, 0.3, 0.4), 0.4, 0.2},
      {ShapeDescription::cylinder(0.2, 0.6), 0.3, 0.2},
      {ShapeDescription::capsule(0.1, 0.6), 0.4, 0.1},
      {ShapeDescription::ellipsoid(0.2, 0.3, 0.4), 0.4, 0.2},
      {ShapeDescription::cone(0.4, 30.0 * test::kPi / 180.0), 0.3, -1.0},  // apex 3H/4 above the origin
      {ShapeDescription::convex_hull(cube), -1.0, -1.0},
  };
  SmoothingOptions smooth;
  smooth.tolerance = 5e-3;  // the superelliptic cylinder's fit stops at about 3e-3 (n = 64) here
  int made = 0;
  for (const Case& c : cases) {
    for (Family f : {Family::dcol, Family::idcol, Family::qp}) {
      MadeShape m = [&]() -> MadeShape {
        try {
          return make_shape(c.d, f, smooth);
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find(shape_kind_name(c.d.kind)), std::string::npos) << e.what();
          return {dcol::Primitive(dcol::Sphere(1.0)), Pose{}};  // marker: skipped below
        }
      }();
      const bool supported = !(m.shape.family() == Family::dcol && f != Family::dcol);
      const bool expect_supported =
          f == Family::dcol ||
          (f == Family::idcol && c.d.kind != ShapeKind::capsule && c.d.kind != ShapeKind::cone) ||
          (f == Family::qp && (c.d.kind == ShapeKind::sphere || c.d.kind == ShapeKind::capsule));
      EXPECT_EQ(supported, expect_supported) << c.d.describe() << " in " << family_name(f);
      if (!supported) continue;
      ++made;
      const double tol = f == Family::idcol ? smooth.tolerance + 1e-9 : 1e-9;
      const double probe = 0.05, clearance = 0.3;
      std::vector<std::pair<Vec3, double>> probes;  // probe centre in G, expected distance
      if (c.extent_z > 0) probes.push_back({Vec3(0, 0, c.extent_z + clearance + probe), clearance});
      if (c.extent_x > 0) probes.push_back({Vec3(c.extent_x + clearance + probe, 0, 0), clearance});
      if (c.d.kind == ShapeKind::convex_hull) probes.push_back({Vec3(1.0, 1.0, 1.5 + clearance + probe), clearance});
      for (const auto& [centre, expected] : probes) {
        Scene scene;
        const Pose X_WG = test::make_pose(Mat3::Identity(), Vec3(0.3, -0.2, 0.1));
        const int a = scene.add_body(X_WG), b = scene.add_body(X_WG * test::make_pose(Mat3::Identity(), centre));
        scene.add_shape(a, m.shape, m.X_GS);
        scene.add_shape(b, dcol::Sphere(probe));
        QueryOptions o;
        o.margin = 1.0;
        const QueryResult r = scene.query(o);
        ASSERT_EQ(r.pairs.size(), 1u) << c.d.describe();
        EXPECT_NEAR(r.pairs[0].distance, expected, tol) << c.d.describe() << " in " << family_name(f) << " probe at "
                                                        << centre.transpose();
      }
    }
  }
  EXPECT_EQ(made, 7 + 5 + 2);
  // the default: within 2% of the smallest half-extent
  const MadeShape box = make_shape(ShapeDescription::box(0.1, 0.2, 0.3), Family::idcol);
  const double h = smooth_polytope_hausdorff_distance(box.shape.idcol().as<SmoothPolytope>());
  EXPECT_LE(h, 0.02 * 0.1 * (1 + 1e-6));
  EXPECT_GT(h, 0.5 * 0.02 * 0.1);  // and not much tighter (the smallest β that meets it)
  const MadeShape cyl = make_shape(ShapeDescription::cylinder(0.05, 0.4), Family::idcol);
  EXPECT_LE(superelliptic_cylinder_hausdorff_distance(cyl.shape.idcol().as<SuperellipticCylinder>()), 0.02 * 0.05 * (1 + 1e-6));
  EXPECT_THROW(make_shape(ShapeDescription::box(0.1, 0.1, 0.1), Family::qp), std::invalid_argument);
  EXPECT_THROW(make_shape(ShapeDescription::sphere(-1.0), Family::dcol), std::invalid_argument);
  EXPECT_THROW(parse_family("fcl"), std::invalid_argument);
}

}  // namespace
}  // namespace diffcol::scene
