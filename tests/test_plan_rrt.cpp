// RRT and RRT-Connect through a scene (plan/rrt.hpp): paths found, every knot and every segment,
// finely sampled, clear by closed-form distances (boxes, spheres, capsules) or DCOL's Euclidean
// distance (robot links), reproducibility under a seed, statuses and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "diffcol/dcol/euclidean.hpp"
#include "diffcol/plan/rrt.hpp"
#include "diffcol/plan/trajectory.hpp"
#include "diffcol/scene/robot.hpp"
#include "diffcol/scene/scene.hpp"
#include "test_util.hpp"

namespace diffcol::plan {
namespace {

using scene::Scene;

Pose at(double x, double y, double z) { return test::make_pose(Mat3::Identity(), Vec3(x, y, z)); }

struct Box {
  Vec3 centre, half;
};
struct Ball {
  Vec3 centre;
  double radius;
};

// Signed distance from a point to an axis-aligned box.
double box_distance(const Box& b, const Vec3& x) {
  const Vec3 q = (x - b.centre).cwiseAbs() - b.half;
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

// A wall across x = 0 with one window at (y, z) = (0.6, 0.6), a ball in front of it, and a sphere
// of radius 0.15 that moves. The straight line from (−1, −0.6, −0.6) to (1, −0.6, −0.6) is blocked.
struct WallScene {
  Scene scene;
  std::vector<Box> boxes;
  std::vector<Ball> balls;
  double radius = 0.15;
  int body = -1;
  WallScene() {
    const double t = 0.05;  // the wall's half thickness
    // the window is |y − 0.6| < 0.25, |z − 0.6| < 0.25 in the square |y|, |z| < 1
    boxes = {{Vec3(0, -0.325, 0), Vec3(t, 0.675, 1.0)},
             {Vec3(0, 0.925, 0), Vec3(t, 0.075, 1.0)},
             {Vec3(0, 0.6, -0.325), Vec3(t, 0.25, 0.675)},
             {Vec3(0, 0.6, 0.925), Vec3(t, 0.25, 0.075)}};
    balls = {{Vec3(-0.5, -0.6, -0.6), 0.2}};
    for (const Box& b : boxes) {
      const int id = scene.add_body(at(b.centre.x(), b.centre.y(), b.centre.z()), true);
      scene.add_shape(id, dcol::Polytope::box(b.half.x(), b.half.y(), b.half.z()));
    }
    for (const Ball& b : balls) {
      const int id = scene.add_body(at(b.centre.x(), b.centre.y(), b.centre.z()), true);
      scene.add_shape(id, dcol::Sphere(b.radius));
    }
    body = scene.add_body(at(-1, -0.6, -0.6), false, "mover");
    scene.add_shape(body, dcol::Sphere(radius));
  }
  // The closest distance of the moving sphere at x to any obstacle, in closed form.
  double distance(const Vec3& x) const {
    double d = std::numeric_limits<double>::infinity();
    for (const Box& b : boxes) d = std::min(d, box_distance(b, x) - radius);
    for (const Ball& b : balls) d = std::min(d, (x - b.centre).norm() - b.radius - radius);
    return d;
  }
  RrtProblem problem() const {
    return RrtProblem::translation(body, Vec3(-1, -0.6, -0.6), Vec3(1, -0.6, -0.6), Vec3(-1.2, -1, -1), Vec3(1.2, 1, 1));
  }
  // The least distance over the knots and 200 points per segment.
  double path_distance(const std::vector<Eigen::VectorXd>& w) const {
    double d = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k + 1 < w.size(); ++k)
      for (int j = 0; j <= 200; ++j) d = std::min(d, distance(w[k] + (w[k + 1] - w[k]) * (j / 200.0)));
    return d;
  }
};

TEST(PlanRrt, ConnectFindsAClearTranslationPath) {
  WallScene w;
  ASSERT_LT(w.distance(Vec3(0, -0.6, -0.6)), 0.0);  // the straight line is blocked
  const Pose before = w.scene.body(w.body).X_WB;
  RrtOptions o;
  o.knots = 15;
  const RrtResult r = plan_rrt(w.scene, w.problem(), o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.waypoints.size(), 15u);
  EXPECT_TRUE(r.waypoints.front().isApprox(w.problem().start));
  EXPECT_TRUE(r.waypoints.back().isApprox(w.problem().goal));
  EXPECT_GT(w.path_distance(r.waypoints), 0.0);
  EXPECT_GT(r.validity_checks, 0);
  EXPECT_GT(r.tree_states, 1);
  EXPECT_GE(r.path_length, 2.0);
  EXPECT_TRUE(w.scene.body(w.body).X_WB.p.isApprox(before.p));  // the pose is restored
  // the knots lie on the path: consecutive spacing sums to its length
  double length = 0.0;
  for (std::size_t k = 0; k + 1 < r.waypoints.size(); ++k) length += (r.waypoints[k + 1] - r.waypoints[k]).norm();
  EXPECT_NEAR(length, r.path_length, 1e-9);
}

TEST(PlanRrt, RrtWithClearanceKeepsHalfOfIt) {
  WallScene w;
  RrtOptions o;
  o.algorithm = RrtAlgorithm::rrt;
  o.clearance = 0.04;  // the step is then 0.04: every point within 0.02 of a checked state
  o.knots = 12;
  o.seed = 7;
  o.time_limit = 5.0;
  const RrtResult r = plan_rrt(w.scene, w.problem(), o);
  ASSERT_TRUE(r.ok()) << r.message;
  for (const Eigen::VectorXd& x : r.waypoints) EXPECT_GE(w.distance(x), 0.04 - 1e-9);
  EXPECT_GE(w.path_distance(r.waypoints), 0.02 - 1e-9);
}

TEST(PlanRrt, SameSeedSamePath) {
  WallScene w;
  RrtOptions o;
  o.seed = 3;
  o.simplify = false;
  const RrtResult a = plan_rrt(w.scene, w.problem(), o);
  const RrtResult b = plan_rrt(w.scene, w.problem(), o);
  o.seed = 4;
  const RrtResult c = plan_rrt(w.scene, w.problem(), o);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a.tree_states, b.tree_states);
  bool same = true, other = false;
  for (std::size_t k = 0; k < a.waypoints.size(); ++k) {
    same = same && a.waypoints[k] == b.waypoints[k];
    other = other || !a.waypoints[k].isApprox(c.waypoints[k], 1e-6);
  }
  EXPECT_TRUE(same);
  EXPECT_TRUE(other);
}

// A capsule of half-length 0.4 turning in the plane through a slot between two rows of posts.
TEST(PlanRrt, PlanarCapsuleAmongPosts) {
  Scene scene;
  std::vector<Ball> posts;
  for (int i = -3; i <= 3; ++i) {
    if (i == 0) continue;  // the slot at y = 0
    posts.push_back({Vec3(0.0, 0.25 * i, 0.0), 0.1});
  }
  for (const Ball& b : posts) scene.add_shape(scene.add_body(at(b.centre.x(), b.centre.y(), 0), true), dcol::Sphere(b.radius));
  const double R = 0.05, L = 0.8;
  const int body = scene.add_body(at(-1, 0, 0));
  scene.add_shape(body, dcol::Capsule(R, L));
  // across the row of posts (no way around it within |y| ≤ 0.95, the gaps between posts 0.05):
  // the capsule must turn along x to pass the slot (0.3 wide)
  const RrtProblem p = RrtProblem::planar(body, Vec3(-1, 0.3, std::numbers::pi / 2), Vec3(1, -0.3, std::numbers::pi / 2),
                                          Eigen::Vector2d(-1.5, -0.95), Eigen::Vector2d(1.5, 0.95));
  RrtOptions o;
  o.knots = 25;
  o.time_limit = 5.0;
  o.step = 0.005;
  const RrtResult r = plan_rrt(scene, p, o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.waypoints.size(), 25u);
  auto distance = [&](const Eigen::VectorXd& x) {
    const Pose X = body_pose_at(p, x);
    const Vec3 a = X * Vec3(-L / 2, 0, 0), b = X * Vec3(L / 2, 0, 0);
    double d = std::numeric_limits<double>::infinity();
    for (const Ball& ball : posts) {
      const double t = std::clamp((ball.centre - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
      d = std::min(d, (a + t * (b - a) - ball.centre).norm() - R - ball.radius);
    }
    return d;
  };
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k + 1 < r.waypoints.size(); ++k) {
    EXPECT_LE(std::abs(r.waypoints[k + 1][2] - r.waypoints[k][2]), std::numbers::pi + 1e-12);  // unwrapped
    for (int j = 0; j <= 200; ++j) least = std::min(least, distance(r.waypoints[k] + (r.waypoints[k + 1] - r.waypoints[k]) * (j / 200.0)));
  }
  EXPECT_GT(least, 0.0);
  EXPECT_NEAR(std::remainder(r.waypoints.back()[2] - p.goal[2], 2 * std::numbers::pi), 0.0, 1e-12);
}

// The 7-joint arm around a ball placed where the straight joint-space line passes.
TEST(PlanRrt, ArmJointsAroundABall) {
  Scene scene;
  scene::Robot robot(scene, scene::RobotModel::from_urdf_file(std::string(DIFFCOL_TEST_ROBOTS_DIR) + "/arm7.urdf",
                                                               std::string(DIFFCOL_TEST_ROBOTS_DIR) + "/arm7.srdf"));
  const int n = robot.num_positions();
  // (link2's capsule and link4's sphere overlap at every configuration: the SRDF disables the pair)
  ASSERT_EQ(n, 7);
  Eigen::VectorXd qa(7), qb(7);
  qa << -1.2, 0.3, 0.0, -1.5, 0.0, 1.6, 0.785;  // swinging the arm about joint 1
  qb = qa;
  qb[0] = 1.2;
  robot.set_configuration(0.5 * (qa + qb));
  const int tip = robot.link_body(robot.model().num_links() - 1);
  const Vec3 centre = scene.body(tip).X_WB.p;
  const int ball = scene.add_body(at(centre.x(), centre.y(), centre.z()), true, "ball");
  const int ball_shape = scene.add_shape(ball, dcol::Sphere(0.12));
  RrtProblem p = RrtProblem::joints(robot, qa, qb);
  ASSERT_FALSE(state_is_free(scene, p, 0.5 * (qa + qb)));
  RrtOptions o;
  o.knots = 10;
  o.time_limit = 5.0;
  const RrtResult r = plan_rrt(scene, p, o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(robot.q().isApprox(0.5 * (qa + qb)));  // restored
  // every link shape against the ball by DCOL's Euclidean distance, 50 points per segment
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k + 1 < r.waypoints.size(); ++k)
    for (int j = 0; j <= 50; ++j) {
      robot.set_configuration(r.waypoints[k] + (r.waypoints[k + 1] - r.waypoints[k]) * (j / 50.0));
      for (int s = 0; s < scene.num_shapes(); ++s) {
        if (s == ball_shape || robot.body_link(scene.shape(s).body) < 0) continue;
        const dcol::DistanceResult d = dcol::euclidean_distance(scene.shape(s).shape.dcol(), scene.shape_pose(s),
                                                                scene.shape(ball_shape).shape.dcol(), scene.shape_pose(ball_shape));
        ASSERT_TRUE(d.ok()) << "shape " << s << " touches the ball at knot " << k << ", point " << j;
        least = std::min(least, d.distance);
      }
    }
  EXPECT_GT(least, 0.0);
  EXPECT_LT(least, 0.2);  // the path passes near the ball (it is in the way)
}

TEST(PlanRrt, Statuses) {
  WallScene w;
  RrtOptions o;
  o.time_limit = 0.2;
  RrtProblem p = w.problem();
  p.start = Vec3(0, 0, 0);  // inside the wall
  EXPECT_EQ(plan_rrt(w.scene, p, o).status, RrtStatus::start_invalid);
  p = w.problem();
  p.goal = Vec3(-0.5, -0.6, -0.45);  // inside the ball's reach
  const RrtResult g = plan_rrt(w.scene, p, o);
  EXPECT_EQ(g.status, RrtStatus::goal_invalid);
  EXPECT_FALSE(g.message.empty());
  {
    // a closed box of walls around the goal
    Scene s;
    const int b = s.add_body(at(0, 0, 0));
    s.add_shape(b, dcol::Sphere(0.1));
    for (int axis = 0; axis < 3; ++axis)
      for (int sign : {-1, 1}) {
        Vec3 c = Vec3::Zero(), h = Vec3::Constant(0.5);
        c[axis] = 0.5 * sign;
        h[axis] = 0.02;
        const int wall = s.add_body(at(c.x() + 1, c.y(), c.z()), true);
        s.add_shape(wall, dcol::Polytope::box(h.x(), h.y(), h.z()));
      }
    const RrtResult r = plan_rrt(s, RrtProblem::translation(b, Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(-2, -2, -2), Vec3(2, 2, 2)), o);
    EXPECT_EQ(r.status, RrtStatus::no_path);
    EXPECT_NE(r.message.find("time limit"), std::string::npos);
    EXPECT_TRUE(r.waypoints.empty());
  }
  // two knots cannot follow a path around the wall: the chord collides
  o.knots = 2;
  o.time_limit = 1.0;
  const RrtResult k = plan_rrt(w.scene, w.problem(), o);
  EXPECT_EQ(k.status, RrtStatus::too_few_knots);
}

// An RRT state is the trajectory layer's configuration of the same body (plan::free_body_pose).
TEST(PlanRrt, BodyPoseIsTheTrajectoryParametrization) {
  const Pose ref = Pose::from_quaternion(Vec3(0.3, -0.2, 0.7), 0.9, 0.1, 0.3, 0.2);
  const Eigen::Vector3d x(0.4, -1.1, 2.5);
  for (const auto& [kind, param] : {std::pair{RrtSpaceKind::translation, Parametrization::translation},
                                    std::pair{RrtSpaceKind::planar, Parametrization::planar}}) {
    RrtProblem p;
    p.kind = kind;
    p.reference = ref;
    const Pose a = body_pose_at(p, x), b = free_body_pose(FreeBody{0, param, ref}, x.data());
    EXPECT_TRUE(a.R.isApprox(b.R, 1e-14) && a.p.isApprox(b.p, 1e-14)) << space_kind_name(kind);
  }
}

TEST(PlanRrt, RejectsBadInput) {
  WallScene w;
  auto rejects = [&](RrtProblem p, RrtOptions o, const std::string& what) {
    try {
      plan_rrt(w.scene, p, o);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const RrtOptions o;
  RrtProblem p = w.problem();
  p.start[1] = std::nan("");
  rejects(p, o, "start has a NaN");
  p = w.problem();
  p.lower[2] = p.upper[2];
  rejects(p, o, "empty bounds");
  p = w.problem();
  p.upper[0] = std::numeric_limits<double>::infinity();
  rejects(p, o, "upper bound has a NaN or infinite");
  p = w.problem();
  p.goal = Vec3(5, 0, 0);
  rejects(p, o, "goal[0] is outside");
  p = w.problem();
  p.start = Eigen::Vector2d(0, 0);
  rejects(p, o, "start has 2 entries");
  p = w.problem();
  p.body = 0;  // a wall
  rejects(p, o, "static");
  p.body = 99;
  rejects(p, o, "not a body");
  p = w.problem();
  p.kind = RrtSpaceKind::joints;
  rejects(p, o, "needs a robot");
  RrtOptions bad;
  bad.time_limit = 0.0;
  rejects(w.problem(), bad, "time_limit");
  bad = {};
  bad.knots = 1;
  rejects(w.problem(), bad, "knots");
  bad = {};
  bad.seed = 0;
  rejects(w.problem(), bad, "seed");
  bad = {};
  bad.clearance = std::nan("");
  rejects(w.problem(), bad, "clearance");
}

}  // namespace
}  // namespace diffcol::plan
