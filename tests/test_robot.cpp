// A URDF robot in a scene: joint-space and base derivatives of every close pair against finite
// differences in q and the base pose, self-collision exclusions, mesh links, bad input.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <random>
#include <set>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/math/gradient_check.hpp"
#include "diffcol/scene/robot.hpp"
#include "test_util.hpp"

#include "malloc_counter.hpp"  // every malloc of this program: a warm scene query allocates nothing

namespace diffcol::scene {
namespace {

const std::string kRobots = DIFFCOL_TEST_ROBOTS_DIR;

Pose at(double x, double y, double z) { return test::make_pose(Mat3::Identity(), Vec3(x, y, z)); }

// The arm among a box, a cylinder, a sphere and a QP capsule around its workspace.
void add_obstacles(Scene& scene) {
  const int table = scene.add_body(at(0.45, 0.0, 0.2), true, "table");
  scene.add_shape(table, dcol::Polytope::box(0.15, 0.3, 0.2));
  const int post = scene.add_body(at(0.0, 0.45, 0.5), true, "post");
  scene.add_shape(post, dcol::Cylinder(0.06, 0.8), test::make_pose(Eigen::AngleAxisd(test::kPi / 2, Vec3::UnitY()).toRotationMatrix(), Vec3::Zero()));
  const int ball = scene.add_body(at(0.3, -0.3, 0.7), true, "ball");
  scene.add_shape(ball, dcol::Sphere(0.1));
  const int bar = scene.add_body(at(-0.3, 0.0, 0.9), true, "bar");
  scene.add_shape(bar, qp::Capsule(0.04, 0.5));
}

Eigen::VectorXd random_q(const RobotModel& m, std::mt19937& rng) {
  Eigen::VectorXd q(m.num_positions());
  const Eigen::VectorXd lo = m.lower_limits(), hi = m.upper_limits();
  for (int i = 0; i < q.size(); ++i) q[i] = std::uniform_real_distribution<double>(lo[i] + 0.1, hi[i] - 0.1)(rng);
  return q;
}

using Key = std::pair<int, int>;

// The 12 quantities of every pair in `keys` (alpha, gap, distance, p1, p2, normal), stacked.
Eigen::VectorXd quantities(const RobotQueryResult& r, const std::vector<Key>& keys) {
  Eigen::VectorXd v = Eigen::VectorXd::Zero(12 * static_cast<Eigen::Index>(keys.size()));
  std::map<Key, const PairResult*> by_key;
  for (const PairResult& p : r.scene.pairs) by_key[{p.shape1, p.shape2}] = &p;
  for (size_t k = 0; k < keys.size(); ++k) {
    const auto it = by_key.find(keys[k]);
    if (it == by_key.end()) continue;  // left the margin: the check then fails loudly
    const PairResult& p = *it->second;
    v.segment<12>(12 * static_cast<Eigen::Index>(k)) << p.alpha, p.gap, p.distance, p.p1_W, p.p2_W, p.normal_W;
  }
  return v;
}

// The analytic Jacobian of quantities() in q (or the base twist), and the row blocks to check.
Eigen::MatrixXd stacked(const RobotQueryResult& r, bool base, std::vector<OutputBlock>& blocks) {
  const auto P = static_cast<Eigen::Index>(r.scene.pairs.size());
  const Eigen::Index n = base ? 6 : r.J_gap_q.cols();
  Eigen::MatrixXd J(12 * P, n);
  for (Eigen::Index i = 0; i < P; ++i) {
    const PairResult& p = r.scene.pairs[static_cast<size_t>(i)];
    const PairDerivatives& d = r.scene.derivatives[static_cast<size_t>(i)];
    const auto pick = [&](const Eigen::MatrixXd& Jq, const Eigen::MatrixXd& Jb, Eigen::Index row, int rows) {
      J.middleRows(12 * i + row, rows) = base ? Jb.middleRows(rows == 1 ? i : 3 * i, rows) : Jq.middleRows(rows == 1 ? i : 3 * i, rows);
    };
    pick(r.J_alpha_q, r.J_alpha_base, 0, 1);
    pick(r.J_gap_q, r.J_gap_base, 1, 1);
    pick(r.J_distance_q, r.J_distance_base, 2, 1);
    pick(r.J_p1_W_q, r.J_p1_W_base, 3, 3);
    pick(r.J_p2_W_q, r.J_p2_W_base, 6, 3);
    pick(r.J_normal_W_q, r.J_normal_W_base, 9, 3);
    if (!p.ok() || !d.ok) continue;
    const std::string name = std::to_string(p.shape1) + "-" + std::to_string(p.shape2);
    const int o = static_cast<int>(12 * i);
    if (p.has_alpha) blocks.push_back({name + " alpha,gap", o, 2});
    if (p.has_distance && p.separated) blocks.push_back({name + " distance", o + 2, 1});
    if (d.points) blocks.push_back({name + " points", o + 3, 6});
    if (d.normal) blocks.push_back({name + " normal", o + 9, 3});
  }
  return J;
}

TEST(Robot, JointSpaceDerivativesAgainstFiniteDifferences) {
  std::mt19937 rng(21);
  const int configurations = static_cast<int>(test::env_count("DIFFCOL_ROBOT_CONFIGURATIONS", 4));
  int pairs_checked = 0;
  for (int c = 0; c < configurations; ++c) {
    Scene scene;
    add_obstacles(scene);
    Robot robot(scene, RobotModel::from_urdf_file(kRobots + "/arm7.urdf", kRobots + "/arm7.srdf"));
    const Eigen::VectorXd q = random_q(robot.model(), rng);
    const Pose X_WB = test::make_pose(Eigen::AngleAxisd(0.3 * c, Vec3::UnitZ()).toRotationMatrix(), Vec3(0.02 * c, 0.0, 0.0));
    robot.set_configuration(q, X_WB);
    QueryOptions o;
    o.margin = 0.15;
    o.frame = c % 2 == 0 ? ReferenceFrame::world : ReferenceFrame::local_world_aligned;
    const RobotQueryResult r = robot.query(o);
    ASSERT_FALSE(r.scene.pairs.empty());
    std::vector<Key> keys;
    for (const PairResult& p : r.scene.pairs) keys.emplace_back(p.shape1, p.shape2);
    // in q
    std::vector<OutputBlock> blocks;
    const Eigen::MatrixXd Jq = stacked(r, false, blocks);
    GradientCheckOptions g;
    g.step = 1e-3;
    g.rel_tolerance = 1e-6;
    g.abs_tolerance = 1e-7;
    g.blocks = blocks;
    QueryOptions plain = o;
    plain.margin = 0.5;  // perturbed pairs stay reported
    const auto f_q = [&](const Eigen::VectorXd& qq) {
      robot.set_configuration(qq, X_WB);
      return quantities(robot.query(plain, false), keys);
    };
    const auto res = check_gradient(f_q, q, Jq, g);
    EXPECT_TRUE(res.passed()) << "configuration " << c << "\n" << res.report();
    pairs_checked += static_cast<int>(blocks.size());
    // in the base twist, in the query's frame
    std::vector<OutputBlock> base_blocks;
    const Eigen::MatrixXd Jb = stacked(r, true, base_blocks);
    g.blocks = base_blocks;
    g.frame = o.frame;
    const auto f_base = [&](const Pose& X) {
      robot.set_configuration(q, X);
      return quantities(robot.query(plain, false), keys);
    };
    const auto res_base = check_pose_gradient(f_base, X_WB, Jb, g);
    EXPECT_TRUE(res_base.passed()) << "configuration " << c << " (base)\n" << res_base.report();
  }
  EXPECT_GT(pairs_checked, 4 * configurations);
}

TEST(Robot, SelfCollisionExclusions) {
  const RobotModel model = RobotModel::from_urdf_file(kRobots + "/arm7.urdf", kRobots + "/arm7.srdf");
  Scene scene;
  Robot robot(scene, model);
  QueryOptions o;
  o.margin = 0.05;
  std::set<std::pair<int, int>> srdf(model.disabled_link_pairs().begin(), model.disabled_link_pairs().end());
  std::mt19937 rng(2);
  for (int c = 0; c < 20; ++c) {
    robot.set_configuration(random_q(model, rng));
    for (const PairResult& p : robot.query(o, false).scene.pairs) {
      const int a = robot.body_link(p.body1), b = robot.body_link(p.body2);
      ASSERT_GE(a, 0);
      ASSERT_GE(b, 0);
      EXPECT_FALSE(model.adjacent(a, b)) << a << "," << b;
      EXPECT_EQ(srdf.count({std::min(a, b), std::max(a, b)}), 0u) << a << "," << b;
    }
  }
  // with the adjacent links included, neighbours touch at q = 0 (the capsules cover the joints)
  Scene all;
  RobotOptions with_adjacent;
  with_adjacent.exclude_adjacent = false;
  Robot robot2(all, model, with_adjacent);
  int adjacent_pairs = 0;
  for (const PairResult& p : robot2.query({}, false).scene.pairs)
    adjacent_pairs += model.adjacent(robot2.body_link(p.body1), robot2.body_link(p.body2));
  EXPECT_GT(adjacent_pairs, 0);
}

// The shipped SRDF leaves no pair of links in contact at every configuration (such a pair makes
// every query report a collision; arm7's link2 and link4 overlap everywhere and are disabled),
// and the pairs it disables as never touching ("Never") do not touch.
TEST(Robot, Arm7SrdfLeavesNoPairInContactEverywhere) {
  const RobotModel model = RobotModel::from_urdf_file(kRobots + "/arm7.urdf", kRobots + "/arm7.srdf");
  const RobotModel bare = RobotModel::from_urdf_file(kRobots + "/arm7.urdf");
  Scene scene, bare_scene;
  Robot robot(scene, model), unfiltered(bare_scene, bare);
  const std::set<std::pair<int, int>> never{{model.link_index("link1"), model.link_index("link3")},
                                            {model.link_index("link6"), model.link_index("hand")}};
  std::map<std::pair<int, int>, int> contacts;
  std::mt19937 rng(12);
  const int samples = 200;
  for (int c = 0; c < samples; ++c) {
    const Eigen::VectorXd q = random_q(model, rng);
    robot.set_configuration(q);
    std::set<std::pair<int, int>> seen;
    for (const PairResult& p : robot.query({}, false).scene.pairs) {
      const int a = robot.body_link(p.body1), b = robot.body_link(p.body2);
      seen.insert({std::min(a, b), std::max(a, b)});
    }
    for (const auto& k : seen) ++contacts[k];
    unfiltered.set_configuration(q);
    for (const PairResult& p : unfiltered.query({}, false).scene.pairs) {
      const int a = unfiltered.body_link(p.body1), b = unfiltered.body_link(p.body2);
      EXPECT_EQ(never.count({std::min(a, b), std::max(a, b)}), 0u) << "links " << a << ", " << b << " touch";
    }
  }
  for (const auto& [k, n] : contacts)
    EXPECT_LT(n, samples) << "links " << k.first << ", " << k.second << " in contact at every configuration";
}

TEST(Robot, MeshLinksBecomeHulls) {
  Scene scene;
  add_obstacles(scene);
  Robot robot(scene, RobotModel::from_urdf_file(kRobots + "/arm7_mesh.urdf"));
  int hulls = 0;
  for (int s = 0; s < scene.num_shapes(); ++s)
    if (robot.body_link(scene.shape(s).body) >= 0) {
      const CollisionShape& shape = scene.shape(s).shape;
      EXPECT_EQ(shape.family(), Family::dcol);
      hulls += dcol::primitive_type(shape.dcol()) == dcol::PrimitiveType::polytope;
    }
  EXPECT_GE(hulls, 8);
  std::mt19937 rng(8);
  robot.set_configuration(random_q(robot.model(), rng));
  QueryOptions o;
  o.margin = 0.1;
  const RobotQueryResult r = robot.query(o);
  for (const PairResult& p : r.scene.pairs) EXPECT_TRUE(p.ok()) << p.solver_status;
  // The post (a DCOL cylinder) against the hulls, farther out: at this configuration the cone
  // program fails on one of these pairs with the cylinder first and converges with the hull
  // first; the scene solves it the other way round (narrow_phase.cpp, solve_dcol).
  o.margin = 1.0;
  int post_pairs = 0;
  for (const PairResult& p : scene.query(o).pairs) {
    EXPECT_TRUE(p.ok()) << p.shape1 << "," << p.shape2 << " " << p.solver_status;
    post_pairs += p.shape1 == 1;
  }
  EXPECT_GE(post_pairs, 3);
  // The cone program itself, in both orders: with the cylinder first, the face windows of one
  // 240-face hull once alternated between two sets (face_window.hpp keeps the earlier cuts now).
  const dcol::Primitive& post = scene.shape(1).shape.dcol();
  for (int s = 0; s < scene.num_shapes(); ++s) {
    if (robot.body_link(scene.shape(s).body) < 0) continue;
    const dcol::Primitive& link = scene.shape(s).shape.dcol();
    const dcol::ContactResult a = dcol::solve_contact(post, scene.shape_pose(1), link, scene.shape_pose(s));
    const dcol::ContactResult b = dcol::solve_contact(link, scene.shape_pose(s), post, scene.shape_pose(1));
    EXPECT_TRUE(a.ok()) << scene.shape(s).name << " " << diffcol::status_name(a.status);
    EXPECT_TRUE(b.ok()) << scene.shape(s).name << " " << diffcol::status_name(b.status);
    EXPECT_NEAR(a.alpha, b.alpha, 1e-9 * b.alpha) << scene.shape(s).name;
  }
}

TEST(Robot, WarmQueriesAllocateNothing) {
#ifndef DIFFCOL_TEST_COUNTS_MALLOC
  GTEST_SKIP() << "malloc counting unavailable in this build (neither glibc nor ASan)";
#else
  Scene scene;
  add_obstacles(scene);
  Robot robot(scene, RobotModel::from_urdf_file(kRobots + "/arm7.urdf", kRobots + "/arm7.srdf"));
  std::mt19937 rng(57);
  std::vector<Eigen::VectorXd> qs;
  for (int c = 0; c < 20; ++c) qs.push_back(random_q(robot.model(), rng));
  QueryOptions o;
  o.margin = 0.3;
  RobotQueryResult res;
  QueryResult scene_res;
  std::set<size_t> pair_counts;
  const auto run = [&](bool count) {
    long scene_allocs = 0, robot_allocs = 0, pairs = 0;
    for (const Eigen::VectorXd& q : qs) {
      robot.set_configuration(q);
      const long a0 = g_allocations.load();
      scene.query(o, scene_res);
      const long a1 = g_allocations.load();
      robot.query(o, res, false);  // pairs, distances and points
      robot.query(o, res, false);  // the same configuration again
      robot.query(o, res, true);   // P differs from the previous configuration's
      robot.query(o, res, true);
      const long a2 = g_allocations.load();
      scene_allocs += a1 - a0;
      robot_allocs += a2 - a1;
      pairs += static_cast<long>(res.scene.pairs.size());
      pair_counts.insert(res.scene.pairs.size());
    }
    if (count) {
      EXPECT_EQ(scene_allocs, 0);
      EXPECT_EQ(robot_allocs, 0);
      EXPECT_GT(pairs, 20);
      EXPECT_GT(pair_counts.size(), 3u);  // the pair count changes between configurations
    }
  };
  run(false);  // the first visit of every pair creates its cache and sizes the buffers
  run(true);
#endif
}

TEST(Robot, ReusableMatrixCopiesOwnTheirStorage) {
  diffcol::scene::ReusableMatrix a;
  EXPECT_EQ(a.rows(), 0);
  a.setZero(4, 3);
  a(2, 1) = 5.0;
  const double* storage = a.data();
  diffcol::scene::ReusableMatrix b = a;  // copy: its own storage
  EXPECT_NE(b.data(), a.data());
  EXPECT_EQ(b(2, 1), 5.0);
  a(2, 1) = 7.0;
  EXPECT_EQ(b(2, 1), 5.0);
  a.setZero(2, 2);  // shrinking keeps the storage
  EXPECT_EQ(a.data(), storage);
  EXPECT_EQ(a.rows(), 2);
  EXPECT_EQ(a.sum(), 0.0);
  a.resize(3, 4);  // as many entries as before: the same storage
  EXPECT_EQ(a.data(), storage);
  diffcol::scene::ReusableMatrix c = std::move(b);  // move: the storage moves, the source is empty
  EXPECT_EQ(c.rows(), 4);
  EXPECT_EQ(c(2, 1), 5.0);
  EXPECT_EQ(b.rows(), 0);
  c = a;
  EXPECT_EQ(c.rows(), 3);
  EXPECT_EQ(c.cols(), 4);
  EXPECT_NE(c.data(), a.data());
  const Eigen::MatrixXd m = c * Eigen::MatrixXd::Identity(4, 4);  // reads as an Eigen matrix
  EXPECT_EQ(m.rows(), 3);
}

TEST(Robot, BadInputChangesNothing) {
  Scene scene;
  add_obstacles(scene);
  Robot robot(scene, RobotModel::from_urdf_file(kRobots + "/arm7.urdf"));
  const Pose before = scene.body(robot.link_body(3)).X_WB;
  Eigen::VectorXd q = Eigen::VectorXd::Zero(7);
  q[2] = test::kNaN;
  EXPECT_THROW(robot.set_configuration(q), std::invalid_argument);
  EXPECT_THROW(robot.set_configuration(Eigen::VectorXd::Zero(6)), std::invalid_argument);
  Pose bad;
  bad.p.x() = test::kInf;
  EXPECT_THROW(robot.set_configuration(Eigen::VectorXd::Zero(7), bad), std::invalid_argument);
  EXPECT_EQ(scene.body(robot.link_body(3)).X_WB.p, before.p);
  EXPECT_THROW(robot.link_body(42), std::invalid_argument);
  // smooth links against the exact obstacle cylinder: refused, naming both; the scene is unchanged
  const int bodies = scene.num_bodies(), shapes = scene.num_shapes();
  RobotOptions smooth;
  smooth.family = Family::idcol;
  try {
    Robot r2(scene, RobotModel::from_urdf_file(kRobots + "/arm7.urdf"), smooth);
    FAIL() << "a smooth link against a DCOL cylinder must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cylinder"), std::string::npos) << e.what();
  }
  EXPECT_EQ(scene.num_bodies(), bodies);
  EXPECT_EQ(scene.num_shapes(), shapes);
}

}  // namespace
}  // namespace diffcol::scene
