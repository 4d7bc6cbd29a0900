// RobotModel (scene/robot_model.hpp): URDF / SRDF parsing of the test robots (tests/data/robots,
// scripts/make_test_robots.py), forward kinematics against an independent modified-DH chain,
// link Jacobians in the three frames against central finite differences in q, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/scene/robot_model.hpp"

#include "malloc_counter.hpp"
#include "test_util.hpp"

namespace {

using namespace diffcol;
using namespace diffcol::scene;
using diffcol::test::kNaN;
using diffcol::test::kPi;

std::string robots_dir() {
#ifdef DIFFCOL_TEST_ROBOTS_DIR
  return DIFFCOL_TEST_ROBOTS_DIR;
#else
  std::string dir = __FILE__;
  dir = dir.substr(0, dir.find_last_of('/'));
  return dir + "/data/robots";
#endif
}

RobotModel load_arm7() { return RobotModel::from_urdf_file(robots_dir() + "/arm7.urdf", robots_dir() + "/arm7.srdf"); }

// The arm's modified (Craig) DH table, from the published Panda kinematics, written here apart
// from the generator: link i = link i−1 · Rx(α) · Tx(a) · Rz(q) · Tz(d); the flange Tz(0.107).
const double kA[7] = {0, 0, 0, 0.0825, -0.0825, 0, 0.088};
const double kD[7] = {0.333, 0, 0.316, 0, 0.384, 0, 0};
const double kAlpha[7] = {0, -kPi / 2, kPi / 2, kPi / 2, -kPi / 2, kPi / 2, kPi / 2};
const double kLower[7] = {-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973};
const double kUpper[7] = {2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973};

Eigen::Matrix4d dh_modified(double a, double alpha, double d, double theta) {
  const double ca = std::cos(alpha), sa = std::sin(alpha), ct = std::cos(theta), st = std::sin(theta);
  Eigen::Matrix4d T;
  T << ct, -st, 0, a,
       st * ca, ct * ca, -sa, -sa * d,
       st * sa, ct * sa, ca, ca * d,
       0, 0, 0, 1;
  return T;
}

Eigen::Matrix4d to_matrix(const Pose& X) {
  Eigen::Matrix4d T = Eigen::Matrix4d::Identity();
  T.topLeftCorner<3, 3>() = X.R;
  T.topRightCorner<3, 1>() = X.p;
  return T;
}

Eigen::VectorXd random_q(const RobotModel& m, std::mt19937& rng) {
  const Eigen::VectorXd lo = m.lower_limits(), hi = m.upper_limits();
  Eigen::VectorXd q(m.num_positions());
  for (int i = 0; i < q.size(); ++i) {
    const double a = std::isfinite(lo[i]) ? lo[i] : -kPi, b = std::isfinite(hi[i]) ? hi[i] : kPi;
    q[i] = std::uniform_real_distribution<double>(a, b)(rng);
  }
  return q;
}

Pose random_base(std::mt19937& rng) {
  return test::make_pose(test::random_rotation(rng), test::random_in_cube(rng, 2.0));
}

// The message of the std::invalid_argument `f` throws ("" and a failure when it throws nothing).
template <class F>
std::string invalid_argument_message(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    if (std::getenv("DIFFCOL_PRINT_MESSAGES")) std::printf("message: %s\n", e.what());
    return e.what();
  }
  ADD_FAILURE() << "no std::invalid_argument";
  return "";
}

#define EXPECT_MESSAGE_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << (msg)

// ---------------------------------------------------------------------------------------------
// Parsing

TEST(RobotModel, ParsesArm7) {
  const RobotModel m = load_arm7();
  EXPECT_EQ(m.name(), "arm7");
  ASSERT_EQ(m.num_links(), 9);
  ASSERT_EQ(m.num_joints(), 8);
  ASSERT_EQ(m.num_positions(), 7);
  const char* names[9] = {"base", "link1", "link2", "link3", "link4", "link5", "link6", "link7", "hand"};
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(m.links()[i].name, names[i]);
    EXPECT_EQ(m.link_index(names[i]), i);
    EXPECT_EQ(m.links()[i].parent_joint, i - 1);
  }
  for (int j = 0; j < 8; ++j) {
    const RobotJoint& J = m.joints()[j];
    EXPECT_EQ(J.parent_link, j);
    EXPECT_EQ(J.child_link, j + 1);
    if (j < 7) {
      EXPECT_EQ(J.name, "joint" + std::to_string(j + 1));
      EXPECT_EQ(J.type, JointType::revolute);
      EXPECT_EQ(J.q_index, j);
      EXPECT_EQ(J.axis, Vec3::UnitZ());
      EXPECT_EQ(J.lower, kLower[j]);
      EXPECT_EQ(J.upper, kUpper[j]);
      EXPECT_EQ(m.lower_limits()[j], kLower[j]);
      EXPECT_EQ(m.upper_limits()[j], kUpper[j]);
    } else {
      EXPECT_EQ(J.name, "flange");
      EXPECT_EQ(J.type, JointType::fixed);
      EXPECT_EQ(J.q_index, -1);
      EXPECT_LE((J.X_PJ.p - Vec3(0, 0, 0.107)).norm(), 1e-15);
    }
  }
  EXPECT_EQ(m.joint_index("joint4"), 3);

  // shapes: kinds per link in document order, the capsule extension's sizes
  ASSERT_EQ(m.collisions().size(), 13u);
  std::string kinds;
  for (const auto& c : m.collisions()) kinds += std::string(geometry_kind_name(c.geometry.kind)) + "@" + m.links()[c.link].name + " ";
  EXPECT_EQ(kinds,
            "cylinder@base box@base capsule@link1 capsule@link2 cylinder@link3 sphere@link3 sphere@link4 "
            "capsule@link4 capsule@link5 sphere@link5 box@link6 cylinder@link7 box@hand ");
  const RobotCollision& cap = m.collisions()[2];
  EXPECT_EQ(cap.name, "link1_capsule0");
  EXPECT_EQ(cap.geometry.radius, 0.075);
  EXPECT_EQ(cap.geometry.length, 0.16);
  EXPECT_LE((cap.X_LS.p - Vec3(0, 0, -0.13)).norm(), 1e-15);
  const RobotCollision& cyl = m.collisions()[0];
  EXPECT_EQ(cyl.geometry.radius, 0.11);
  EXPECT_EQ(cyl.geometry.length, 0.14);
  const RobotCollision& hand = m.collisions()[12];
  EXPECT_EQ(hand.geometry.box_size, Vec3(0.07, 0.21, 0.1));
  EXPECT_LE((hand.X_LS.R - Eigen::AngleAxisd(-kPi / 4, Vec3::UnitZ()).toRotationMatrix()).norm(), 1e-15);

  // SRDF pairs (a < b, sorted) and adjacency
  const std::vector<std::pair<int, int>> pairs{{0, 1}, {1, 3}, {2, 4}, {5, 7}, {6, 8}};
  EXPECT_EQ(m.disabled_link_pairs(), pairs);
  EXPECT_TRUE(m.adjacent(0, 1));
  EXPECT_TRUE(m.adjacent(8, 7));
  EXPECT_FALSE(m.adjacent(1, 3));
  EXPECT_FALSE(m.adjacent(2, 2));
}

TEST(RobotModel, SrdfPairsAreUnique) {
  RobotModel m = load_arm7();
  m.load_srdf_string(R"(<robot name="arm7"><disable_collisions link1="link3" link2="link1" reason="Always"/>
                        <disable_collisions link1="link4" link2="link2" reason="Never"/>
                        <disable_collisions link1="link2" link2="link5" reason="Never"/></robot>)");
  const std::vector<std::pair<int, int>> pairs{{0, 1}, {1, 3}, {2, 4}, {2, 5}, {5, 7}, {6, 8}};
  EXPECT_EQ(m.disabled_link_pairs(), pairs);
}

TEST(RobotModel, ResolvesMeshPaths) {
  const RobotModel m = RobotModel::from_urdf_file(robots_dir() + "/arm7_mesh.urdf");
  ASSERT_EQ(m.collisions().size(), 13u);
  const std::string meshes = std::filesystem::canonical(robots_dir() + "/meshes").string();
  for (const auto& c : m.collisions()) {
    ASSERT_EQ(c.geometry.kind, GeometryKind::mesh) << c.name;
    EXPECT_TRUE(std::filesystem::path(c.geometry.mesh_path).is_absolute()) << c.geometry.mesh_path;
    EXPECT_EQ(c.geometry.mesh_path.rfind(meshes + "/", 0), 0u) << c.geometry.mesh_path;
    // the generated files are closed, outward-oriented meshes
    EXPECT_NO_THROW(mesh::load_mesh(c.geometry.mesh_path)) << c.geometry.mesh_path;
  }
  // base: a relative filename; hand: package://robots/... through the folder named 'robots'
  EXPECT_EQ(m.collisions()[1].geometry.mesh_path, meshes + "/unit_box.obj");
  EXPECT_EQ(m.collisions()[12].geometry.mesh_path, meshes + "/unit_box.obj");
  EXPECT_EQ(m.collisions()[12].geometry.mesh_scale, Vec3(0.07, 0.21, 0.1));
  EXPECT_EQ(m.collisions()[0].geometry.mesh_path, meshes + "/base_0.obj");
  EXPECT_EQ(m.collisions()[0].geometry.mesh_scale, Vec3::Ones());

  // file:// with an absolute path; package:// through ROS_PACKAGE_PATH (its parent folder)
  const auto one_mesh = [&](const std::string& filename, const std::string& base_dir) {
    const RobotModel r = RobotModel::from_urdf_string(
        "<robot name=\"r\"><link name=\"a\"><collision><geometry><mesh filename=\"" + filename +
            "\"/></geometry></collision></link></robot>",
        base_dir);
    return r.collisions().at(0).geometry.mesh_path;
  };
  EXPECT_EQ(one_mesh("file://" + meshes + "/link7_0.obj", "/"), meshes + "/link7_0.obj");
  EXPECT_EQ(one_mesh("meshes/link7_0.obj", robots_dir()), meshes + "/link7_0.obj");
  const char* old = std::getenv("ROS_PACKAGE_PATH");
  const std::string saved = old ? old : "";
  setenv("ROS_PACKAGE_PATH", ("/nonexistent:" + robots_dir() + "/..").c_str(), 1);
  EXPECT_EQ(one_mesh("package://robots/meshes/link7_0.obj", "/"), meshes + "/link7_0.obj");
  if (old) setenv("ROS_PACKAGE_PATH", saved.c_str(), 1);
  else unsetenv("ROS_PACKAGE_PATH");
}

TEST(RobotModel, KeepsItsSourceText) {
  // the URDF text, its absolute base folder and the SRDF texts rebuild the same model
  RobotModel m = RobotModel::from_urdf_file(robots_dir() + "/arm7_mesh.urdf", robots_dir() + "/arm7.srdf");
  m.load_srdf_string(R"(<robot name="arm7"><disable_collisions link1="link2" link2="link4"/></robot>)");
  EXPECT_NE(m.urdf_xml().find("<robot"), std::string::npos);
  EXPECT_TRUE(std::filesystem::path(m.base_dir()).is_absolute());
  EXPECT_EQ(std::filesystem::canonical(m.base_dir()), std::filesystem::canonical(robots_dir()));
  ASSERT_EQ(m.srdf_xml().size(), 2u);

  RobotModel r = RobotModel::from_urdf_string(m.urdf_xml(), m.base_dir());
  for (const std::string& srdf : m.srdf_xml()) r.load_srdf_string(srdf);
  EXPECT_EQ(r.name(), m.name());
  EXPECT_EQ(r.num_links(), m.num_links());
  EXPECT_EQ(r.num_positions(), m.num_positions());
  EXPECT_EQ(r.disabled_link_pairs(), m.disabled_link_pairs());
  ASSERT_EQ(r.collisions().size(), m.collisions().size());
  for (size_t i = 0; i < m.collisions().size(); ++i)
    EXPECT_EQ(r.collisions()[i].geometry.mesh_path, m.collisions()[i].geometry.mesh_path);
  std::mt19937 rng(7);
  const Eigen::VectorXd q = random_q(m, rng);
  const Pose X_WB = random_base(rng);
  std::vector<Pose> Xm, Xr;
  m.forward_kinematics(q, X_WB, Xm);
  r.forward_kinematics(q, X_WB, Xr);
  ASSERT_EQ(Xm.size(), Xr.size());
  for (size_t i = 0; i < Xm.size(); ++i) {
    EXPECT_EQ(to_matrix(Xm[i]), to_matrix(Xr[i])) << i;
  }
  // a failed SRDF leaves the texts unchanged
  EXPECT_THROW(r.load_srdf_string("<robot><disable_collisions link1=\"nope\" link2=\"link1\"/></robot>"),
               std::invalid_argument);
  EXPECT_EQ(r.srdf_xml().size(), 2u);
}

// ---------------------------------------------------------------------------------------------
// Forward kinematics

TEST(RobotModel, ForwardKinematicsMatchesModifiedDh) {
  const RobotModel m = load_arm7();
  std::mt19937 rng(7);
  std::vector<Pose> X_WL;
  double worst = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::VectorXd q = random_q(m, rng);
    const Pose X_WB = trial == 0 ? Pose::identity() : random_base(rng);
    m.forward_kinematics(q, X_WB, X_WL);
    ASSERT_EQ(X_WL.size(), 9u);
    Eigen::Matrix4d T = to_matrix(X_WB);
    worst = std::max(worst, (to_matrix(X_WL[0]) - T).cwiseAbs().maxCoeff());
    for (int i = 0; i < 7; ++i) {
      T = T * dh_modified(kA[i], kAlpha[i], kD[i], q[i]);
      worst = std::max(worst, (to_matrix(X_WL[i + 1]) - T).cwiseAbs().maxCoeff());
    }
    T = T * dh_modified(0, 0, 0.107, 0);
    worst = std::max(worst, (to_matrix(X_WL[8]) - T).cwiseAbs().maxCoeff());
  }
  std::printf("arm7: worst FK entry error against modified DH %.2e (200 configurations)\n", worst);
  EXPECT_LE(worst, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Jacobians

// A branched tree with every joint type: base → (prismatic) slider → (continuous) wheel, and
// base → (fixed) mount → (revolute, tilted axis) arm → (prismatic) tip.
const char* kBranchedUrdf = R"(<robot name="tree">
  <link name="base"/><link name="slider"/><link name="wheel"/><link name="mount"/><link name="arm"/><link name="tip"/>
  <joint name="slide" type="prismatic"><parent link="base"/><child link="slider"/>
    <origin xyz="0.1 0.2 0.3" rpy="0.3 -0.2 0.5"/><axis xyz="1 2 -0.5"/>
    <limit lower="-0.5" upper="0.7" effort="1" velocity="1"/></joint>
  <joint name="mount_fix" type="fixed"><parent link="base"/><child link="mount"/>
    <origin xyz="-0.4 0 0.1" rpy="0 0.7 0"/></joint>
  <joint name="spin" type="continuous"><parent link="slider"/><child link="wheel"/>
    <origin xyz="0 0.25 0" rpy="1.1 0 0.2"/><axis xyz="0 1 0"/></joint>
  <joint name="swing" type="revolute"><parent link="mount"/><child link="arm"/>
    <origin xyz="0 0 0.5" rpy="0 0 0.4"/><axis xyz="0.3 -0.4 1"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="extend" type="prismatic"><parent link="arm"/><child link="tip"/>
    <origin xyz="0.6 0 0" rpy="0.2 0.1 0"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.4" effort="1" velocity="1"/></joint>
</robot>)";

TEST(RobotModel, BranchedTreeOrder) {
  const RobotModel m = RobotModel::from_urdf_string(kBranchedUrdf, "");
  ASSERT_EQ(m.num_links(), 6);
  ASSERT_EQ(m.num_positions(), 4);
  // depth first, children in joint document order: slide before mount_fix
  const char* names[6] = {"base", "slider", "wheel", "mount", "arm", "tip"};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(m.links()[i].name, names[i]);
  const char* joints[5] = {"slide", "spin", "mount_fix", "swing", "extend"};
  const int q_index[5] = {0, 1, -1, 2, 3};
  for (int j = 0; j < 5; ++j) {
    EXPECT_EQ(m.joints()[j].name, joints[j]);
    EXPECT_EQ(m.joints()[j].child_link, j + 1);
    EXPECT_EQ(m.joints()[j].q_index, q_index[j]);
  }
  EXPECT_EQ(m.joints()[1].type, JointType::continuous);
  EXPECT_TRUE(std::isinf(m.lower_limits()[1]) && m.lower_limits()[1] < 0);
  EXPECT_TRUE(std::isinf(m.upper_limits()[1]) && m.upper_limits()[1] > 0);
  EXPECT_LE((m.joints()[0].axis - Vec3(1, 2, -0.5).normalized()).norm(), 1e-15);
  EXPECT_TRUE(m.adjacent(0, 3));
  EXPECT_FALSE(m.adjacent(2, 3));
}

// The twist in `frame` (docs/conventions.md) taking X0 to X1, by the log map.
Vec6 twist_between(const Pose& X0, const Pose& X1, ReferenceFrame frame) {
  switch (frame) {
    case ReferenceFrame::world: return se3_log(X1 * X0.inverse());
    case ReferenceFrame::local: return se3_log(X0.inverse() * X1);
    case ReferenceFrame::local_world_aligned: {
      Vec6 t;
      t << so3_log(X1.R * X0.R.transpose()), X1.p - X0.p;
      return t;
    }
  }
  return Vec6::Zero();
}

// Every link's Jacobian in every frame against central differences of the link pose in q.
void check_jacobians(const RobotModel& m, int configurations, std::mt19937& rng) {
  const double h = 1e-6;
  std::vector<Pose> X, Xp, Xm;
  Eigen::Matrix<double, 6, Eigen::Dynamic> J;
  double worst = 0;
  for (int c = 0; c < configurations; ++c) {
    const Eigen::VectorXd q = random_q(m, rng);
    const Pose X_WB = random_base(rng);
    m.forward_kinematics(q, X_WB, X);
    for (const ReferenceFrame frame :
         {ReferenceFrame::world, ReferenceFrame::local, ReferenceFrame::local_world_aligned}) {
      for (int link = 0; link < m.num_links(); ++link) {
        m.link_jacobian(X, link, frame, J);
        ASSERT_EQ(J.cols(), m.num_positions());
        for (int k = 0; k < m.num_positions(); ++k) {
          Eigen::VectorXd qp = q, qm = q;
          qp[k] += h;
          qm[k] -= h;
          m.forward_kinematics(qp, X_WB, Xp);
          m.forward_kinematics(qm, X_WB, Xm);
          const Vec6 fd =
              (twist_between(X[link], Xp[link], frame) - twist_between(X[link], Xm[link], frame)) / (2 * h);
          const double err = (J.col(k) - fd).norm() / std::max(1.0, fd.norm());
          worst = std::max(worst, err);
          EXPECT_LE(err, 1e-7) << reference_frame_name(frame) << " link " << m.links()[link].name << " q" << k
                               << "\nJ  " << J.col(k).transpose() << "\nfd " << fd.transpose();
        }
      }
    }
  }
  std::printf("%s: worst relative Jacobian error %.2e\n", m.name().c_str(), worst);
}

TEST(RobotModel, JacobiansMatchFiniteDifferencesArm7) {
  std::mt19937 rng(11);
  check_jacobians(load_arm7(), 10, rng);
}

TEST(RobotModel, JacobiansMatchFiniteDifferencesBranchedTree) {
  std::mt19937 rng(12);
  check_jacobians(RobotModel::from_urdf_string(kBranchedUrdf, ""), 10, rng);
}

TEST(RobotModel, JacobianColumnsOffThePathAreZero) {
  const RobotModel m = load_arm7();
  std::mt19937 rng(3);
  std::vector<Pose> X;
  m.forward_kinematics(random_q(m, rng), random_base(rng), X);
  Eigen::Matrix<double, 6, Eigen::Dynamic> J;
  m.link_jacobian(X, 3, ReferenceFrame::local_world_aligned, J);
  EXPECT_TRUE((J.rightCols(4).array() == 0.0).all());
  EXPECT_GT(J.col(2).norm(), 0.5);
  m.link_jacobian(X, 0, ReferenceFrame::world, J);
  EXPECT_TRUE((J.array() == 0.0).all());
  // joint 1 turns about the base's z through its origin: the hand's ω there, world axes
  m.link_jacobian(X, 8, ReferenceFrame::local_world_aligned, J);
  EXPECT_LE((J.col(0).head<3>() - X[0].R.col(2)).norm(), 1e-14);
  EXPECT_LE((J.col(0).tail<3>() - X[0].R.col(2).cross(X[8].p - X[1].p)).norm(), 1e-14);
}

#if defined(DIFFCOL_TEST_COUNTS_MALLOC)
TEST(RobotModel, KinematicsAllocateNothing) {
  const RobotModel m = load_arm7();
  std::mt19937 rng(5);
  std::vector<Eigen::VectorXd> qs;
  for (int k = 0; k < 16; ++k) qs.push_back(random_q(m, rng));
  const Pose X_WB = random_base(rng);
  std::vector<Pose> X;
  Eigen::Matrix<double, 6, Eigen::Dynamic> J;
  m.forward_kinematics(qs[0], X_WB, X);  // sizes the outputs
  m.link_jacobian(X, 8, ReferenceFrame::world, J);
  const long before = g_allocations.load();
  for (const auto& q : qs) {
    m.forward_kinematics(q, X_WB, X);
    for (int link = 0; link < m.num_links(); ++link)
      for (const ReferenceFrame f : {ReferenceFrame::world, ReferenceFrame::local, ReferenceFrame::local_world_aligned})
        m.link_jacobian(X, link, f, J);
  }
  EXPECT_EQ(g_allocations.load(), before);
}
#endif

// ---------------------------------------------------------------------------------------------
// Bad input

TEST(RobotModel, RejectsMalformedUrdf) {
  std::string msg = invalid_argument_message([] { RobotModel::from_urdf_string("<robot name=\"r\"><link name=\"a\">", ""); });
  EXPECT_MESSAGE_HAS(msg, "malformed XML");
  // urdfdom's own message: a revolute joint without limits
  msg = invalid_argument_message([] {
    RobotModel::from_urdf_string(R"(<robot name="r"><link name="a"/><link name="b"/>
      <joint name="j_nolimit" type="revolute"><parent link="a"/><child link="b"/></joint></robot>)", "");
  });
  EXPECT_MESSAGE_HAS(msg, "j_nolimit");
  EXPECT_MESSAGE_HAS(msg, "limits");
  // two roots
  msg = invalid_argument_message([] { RobotModel::from_urdf_string(R"(<robot name="r"><link name="a"/><link name="b"/></robot>)", ""); });
  EXPECT_MESSAGE_HAS(msg, "root");
  // a capsule without its length
  msg = invalid_argument_message([] {
    RobotModel::from_urdf_string(R"(<robot name="r"><link name="a"><collision><geometry><capsule radius="1"/></geometry></collision></link></robot>)", "");
  });
  EXPECT_MESSAGE_HAS(msg, "length");
  msg = invalid_argument_message([] { RobotModel::from_urdf_file(robots_dir() + "/no_such_robot.urdf"); });
  EXPECT_MESSAGE_HAS(msg, "no_such_robot.urdf");
}

TEST(RobotModel, RejectsMissingMeshFile) {
  const std::string msg = invalid_argument_message([] {
    RobotModel::from_urdf_string(R"(<robot name="r"><link name="a"><collision><geometry>
      <mesh filename="meshes/missing_part.obj"/></geometry></collision></link></robot>)", robots_dir());
  });
  EXPECT_MESSAGE_HAS(msg, "missing_part.obj");
  EXPECT_MESSAGE_HAS(msg, "not found");
}

TEST(RobotModel, RejectsUnsupportedJoint) {
  const std::string msg = invalid_argument_message([] {
    RobotModel::from_urdf_string(R"(<robot name="r"><link name="a"/><link name="b"/>
      <joint name="free_base" type="floating"><parent link="a"/><child link="b"/></joint></robot>)", "");
  });
  EXPECT_MESSAGE_HAS(msg, "free_base");
  EXPECT_MESSAGE_HAS(msg, "floating");
}

TEST(RobotModel, RejectsBadQAndBase) {
  const RobotModel m = load_arm7();
  std::vector<Pose> X;
  Eigen::VectorXd q = Eigen::VectorXd::Zero(7);
  q[2] = kNaN;
  std::string msg = invalid_argument_message([&] { m.forward_kinematics(q, Pose::identity(), X); });
  EXPECT_MESSAGE_HAS(msg, "q[2] is not finite");
  msg = invalid_argument_message([&] { m.forward_kinematics(Eigen::VectorXd::Zero(6), Pose::identity(), X); });
  EXPECT_MESSAGE_HAS(msg, "q has 6 entries");
  Pose bad;
  bad.R(0, 0) = 2.0;
  msg = invalid_argument_message([&] { m.forward_kinematics(Eigen::VectorXd::Zero(7), bad, X); });
  EXPECT_MESSAGE_HAS(msg, "X_WB");
  m.forward_kinematics(Eigen::VectorXd::Zero(7), Pose::identity(), X);
  Eigen::Matrix<double, 6, Eigen::Dynamic> J;
  msg = invalid_argument_message([&] { m.link_jacobian(X, 9, ReferenceFrame::world, J); });
  EXPECT_MESSAGE_HAS(msg, "link 9");
  msg = invalid_argument_message([&] { m.link_index("gripper"); });
  EXPECT_MESSAGE_HAS(msg, "gripper");
}

TEST(RobotModel, RejectsBadSrdf) {
  RobotModel m = load_arm7();
  std::string msg = invalid_argument_message([&] {
    m.load_srdf_string(R"(<robot name="arm7"><disable_collisions link1="link1" link2="elbow_typo" reason="Never"/></robot>)");
  });
  EXPECT_MESSAGE_HAS(msg, "elbow_typo");
  msg = invalid_argument_message([&] { m.load_srdf_string("<robot name=\"arm7\"><disable_collisions"); });
  EXPECT_MESSAGE_HAS(msg, "malformed XML");
  msg = invalid_argument_message([&] { m.load_srdf_file(robots_dir() + "/no_such.srdf"); });
  EXPECT_MESSAGE_HAS(msg, "no_such.srdf");
  EXPECT_EQ(m.disabled_link_pairs().size(), 5u);  // unchanged by the failed loads
}

}  // namespace
