// The scene layer's Euclidean distances against FCL (fcl::distance, an independent GJK) on the
// same exact shapes: arm7 among box, cylinder, sphere and capsule obstacles at random
// configurations, every pair the robot query reports and every pair it may pair.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "diffcol/scene/robot.hpp"
#include "diffcol/scene/scene.hpp"

#ifdef DIFFCOL_HAVE_FCL
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>
#endif

namespace {

using namespace diffcol;
using namespace diffcol::scene;

#ifdef DIFFCOL_HAVE_FCL
const std::string kRobots = DIFFCOL_TEST_ROBOTS_DIR;

/// FCL's shape for a DCOL primitive and the pose of FCL's frame in the shape frame (FCL's
/// cylinders and capsules lie along z, DCOL's along x). Boxes are fcl::Box from the polytope's
/// half-extents (its vertices' bounding box), the other exact primitives their FCL types.
std::shared_ptr<fcl::CollisionGeometryd> fcl_shape(const dcol::Primitive& p, Mat3& align) {
  align.setIdentity();
  const Mat3 z_to_x = (Mat3() << 0, 0, 1, 1, 0, 0, 0, 1, 0).finished();
  if (const auto* b = std::get_if<dcol::Polytope>(&p)) {
    EXPECT_EQ(b->num_faces, 6);
    Vec3 hi = Vec3::Constant(-1e300);
    for (int i = 0; i < b->num_vertices; ++i) hi = hi.cwiseMax(b->vertex(i).cwiseAbs());
    return std::make_shared<fcl::Boxd>(2 * hi);
  }
  if (const auto* c = std::get_if<dcol::Capsule>(&p)) {
    align = z_to_x;
    return std::make_shared<fcl::Capsuled>(c->R, c->L);
  }
  if (const auto* c = std::get_if<dcol::Cylinder>(&p)) {
    align = z_to_x;
    return std::make_shared<fcl::Cylinderd>(c->R, c->L);
  }
  if (const auto* s = std::get_if<dcol::Sphere>(&p)) return std::make_shared<fcl::Sphered>(s->R);
  ADD_FAILURE() << "no FCL shape for " << dcol::primitive_type_name(dcol::primitive_type(p));
  return nullptr;
}

struct FclScene {
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;
  std::vector<Mat3> align;
};

FclScene fcl_scene(const Scene& scene) {
  FclScene f;
  for (int s = 0; s < scene.num_shapes(); ++s) {
    Mat3 a;
    auto g = fcl_shape(scene.shape(s).shape.dcol(), a);
    f.objects.push_back(std::make_unique<fcl::CollisionObjectd>(g, fcl::Transform3d::Identity()));
    f.align.push_back(a);
  }
  return f;
}

void place(const Scene& scene, FclScene& f) {
  for (int s = 0; s < scene.num_shapes(); ++s) {
    const Pose X = scene.shape_pose(s);
    fcl::Transform3d T = fcl::Transform3d::Identity();
    T.linear() = X.R * f.align[static_cast<size_t>(s)];
    T.translation() = X.p;
    f.objects[static_cast<size_t>(s)]->setTransform(T);
  }
}

/// FCL's GJK (its own implementation, GST_INDEP) with distance_tolerance 1e-12: its iterations
/// stop when the duality gap is below that; the 1e-6 below is the bound asked of the agreement.
double fcl_distance(FclScene& f, int a, int b) {
  fcl::DistanceRequestd req;
  req.gjk_solver_type = fcl::GST_INDEP;
  req.distance_tolerance = 1e-12;
  fcl::DistanceResultd res;
  return fcl::distance(f.objects[static_cast<size_t>(a)].get(), f.objects[static_cast<size_t>(b)].get(), req, res);
}

bool fcl_collide(FclScene& f, int a, int b) {
  fcl::CollisionRequestd req;
  fcl::CollisionResultd res;
  return fcl::collide(f.objects[static_cast<size_t>(a)].get(), f.objects[static_cast<size_t>(b)].get(), req, res) > 0;
}

/// arm7 with its SRDF among 16 static obstacles (boxes, cylinders, spheres, capsules) in its workspace.
struct Arm7Scene {
  Scene scene;
  std::unique_ptr<Robot> robot;
  Arm7Scene() {
    robot = std::make_unique<Robot>(scene, RobotModel::from_urdf_file(kRobots + "/arm7.urdf", kRobots + "/arm7.srdf"));
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> Ur(0.3, 0.8), Ut(0.0, 2 * M_PI), Uz(0.05, 1.1), S(0.03, 0.09);
    std::normal_distribution<double> N(0.0, 1.0);
    for (int k = 0; k < 16; ++k) {
      const double r = Ur(rng), t = Ut(rng);
      const Pose X = Pose::from_quaternion(Vec3(r * std::cos(t), r * std::sin(t), Uz(rng)), N(rng), N(rng), N(rng), N(rng));
      const int b = scene.add_body(X, true);
      switch (k % 4) {
        case 0: scene.add_shape(b, dcol::Polytope::box(S(rng), S(rng), S(rng))); break;
        case 1: scene.add_shape(b, dcol::Cylinder(S(rng), 2 * S(rng))); break;
        case 2: scene.add_shape(b, dcol::Sphere(S(rng))); break;
        default: scene.add_shape(b, dcol::Capsule(S(rng), 2 * S(rng))); break;
      }
    }
  }
};

std::vector<Eigen::VectorXd> random_configurations(const RobotModel& model, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const Eigen::VectorXd lo = model.lower_limits(), hi = model.upper_limits();
  std::vector<Eigen::VectorXd> qs;
  for (int c = 0; c < n; ++c) {
    Eigen::VectorXd q(model.num_positions());
    for (int i = 0; i < q.size(); ++i) q[i] = lo[i] + (hi[i] - lo[i]) * U(rng);
    qs.push_back(q);
  }
  return qs;
}

/// Every reported separated pair's Euclidean distance against fcl::distance (≤ 1e-6 absolute),
/// every reported overlapping pair colliding in FCL, and every pair the scene may pair that FCL
/// finds closer than the margin (by more than 1e-6) reported; 100 configurations.
TEST(SceneFcl, Arm7DistancesMatchFcl) {
  Arm7Scene a;
  FclScene f = fcl_scene(a.scene);
  const double margin = 0.3;
  QueryOptions qo;
  qo.margin = margin;
  int separated = 0, overlapping = 0, self_pairs = 0;
  double worst = 0.0;
  for (const Eigen::VectorXd& q : random_configurations(a.robot->model(), 100, 5)) {
    a.robot->set_configuration(q);
    const RobotQueryResult r = a.robot->query(qo, false);
    place(a.scene, f);
    std::set<std::pair<int, int>> reported;
    for (const PairResult& p : r.scene.pairs) {
      ASSERT_TRUE(p.ok()) << status_name(p.status) << " " << a.scene.shape(p.shape1).name << " " << a.scene.shape(p.shape2).name;
      reported.insert({p.shape1, p.shape2});
      self_pairs += a.robot->body_link(p.body1) >= 0 && a.robot->body_link(p.body2) >= 0;
      if (p.separated) {
        ASSERT_TRUE(p.has_distance);
        ASSERT_EQ(p.points, PointKind::closest);
        const double d = fcl_distance(f, p.shape1, p.shape2);
        worst = std::max(worst, std::abs(p.distance - d));
        EXPECT_NEAR(p.distance, d, 1e-6) << a.scene.shape(p.shape1).name << " " << a.scene.shape(p.shape2).name;
        EXPECT_NEAR((p.p2_W - p.p1_W).norm(), p.distance, 1e-12);
        ++separated;
      } else {
        EXPECT_TRUE(fcl_collide(f, p.shape1, p.shape2)) << a.scene.shape(p.shape1).name << " " << a.scene.shape(p.shape2).name;
        ++overlapping;
      }
    }
    for (int s1 = 0; s1 < a.scene.num_shapes(); ++s1)
      for (int s2 = s1 + 1; s2 < a.scene.num_shapes(); ++s2) {
        if (!a.scene.may_collide(s1, s2) || reported.count({s1, s2})) continue;
        EXPECT_GT(fcl_distance(f, s1, s2), margin - 1e-6)
            << "not reported: " << a.scene.shape(s1).name << " " << a.scene.shape(s2).name;
      }
  }
  EXPECT_GT(separated, 300);
  EXPECT_GT(self_pairs, 50);
  RecordProperty("separated_pairs", separated);
  RecordProperty("overlapping_pairs", overlapping);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", worst);
  RecordProperty("worst_abs_difference_to_fcl", buf);
}
#else
TEST(SceneFcl, Arm7DistancesMatchFcl) { GTEST_SKIP() << "built without FCL"; }
#endif

}  // namespace
