#pragma once
/// @file robot_model.hpp
/// A kinematic tree of rigid links loaded from URDF (and SRDF collision filters): forward
/// kinematics and the geometric Jacobians of the links in the three ReferenceFrames.
///
/// Indices. Links are numbered depth first from the root (link 0), each after its parent; the
/// children of a link follow the document order of their joints. Joint i is the parent joint of
/// link i + 1. q holds one position per non-fixed joint, in joint order (RobotJoint::q_index).
///
/// Frames. X_WL is the pose of a link frame in the world; the child link's frame of a joint is the
/// joint frame after the joint's motion (URDF): X_WC = X_WP · X_PJ · M(q), with M(q) the rotation
/// by q about `axis` (revolute, continuous) or the translation q·axis (prismatic).
///
/// URDF support (urdfdom parses the file; any error it reports fails the load):
///  - joints: revolute, continuous, prismatic, fixed. floating and planar joints and <mimic>
///    are rejected. Revolute and prismatic joints need <limit lower upper>; continuous joints
///    have limits ±inf.
///  - collision geometry: <box size>, <cylinder radius length>, <sphere radius>,
///    <mesh filename scale>, several <collision> per link.
///  - capsules (an extension; Drake's URDF parser and later urdfdom releases read the same
///    element): `<geometry><capsule radius="r" length="l"/></geometry>` inside a <collision>;
///    `length` is the length of the cylindrical core (the segment between the two hemisphere
///    centres), along the z axis of the collision frame like a URDF cylinder. urdfdom 3 does not
///    know the element: the loader reads it from the XML (tinyxml2) and hands urdfdom a cylinder
///    in its place (also in <visual>, which is otherwise ignored).
///  - mesh filenames: an absolute path; a path relative to the URDF's folder (`base_dir` for
///    strings); `file://` followed by either; `package://name/rest`, looked up as `D/name/rest`
///    for each folder D of the colon-separated ROS_PACKAGE_PATH, then for D the URDF's folder and
///    each of its parents in turn (so a URDF anywhere inside a folder `name` finds its package).
///    The first file that exists wins; its absolute, canonical path is stored. Other URI schemes
///    and missing files are errors.
///
/// SRDF support: `<disable_collisions link1="a" link2="b" reason="..."/>` elements of <robot>;
/// every other element is ignored.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"

namespace diffcol::scene {

enum class JointType : std::uint8_t { revolute, continuous, prismatic, fixed };
/// "revolute", "continuous", "prismatic", "fixed".
const char* joint_type_name(JointType type);

struct RobotJoint {
  std::string name;
  JointType type = JointType::fixed;
  int parent_link = -1;
  int child_link = -1;
  Pose X_PJ;                    ///< joint frame in the parent link's frame (URDF <origin>)
  Vec3 axis = Vec3::UnitX();    ///< unit axis in the joint frame (URDF <axis>, normalized)
  double lower = -std::numeric_limits<double>::infinity();  ///< position limits (continuous,
  double upper = std::numeric_limits<double>::infinity();   ///< fixed: ±inf)
  int q_index = -1;             ///< index in q; -1 for fixed joints
};

struct RobotLink {
  std::string name;
  int parent_joint = -1;  ///< -1: the root
};

enum class GeometryKind : std::uint8_t { box, cylinder, sphere, capsule, mesh };
/// "box", "cylinder", "sphere", "capsule", "mesh".
const char* geometry_kind_name(GeometryKind kind);

/// A collision shape in its own frame S (URDF conventions: centred at the origin; cylinders and
/// capsules along z).
struct CollisionGeometry {
  GeometryKind kind = GeometryKind::box;
  Vec3 box_size = Vec3::Zero();  ///< box: full extents (URDF <box size>)
  double radius = 0;             ///< cylinder, capsule, sphere
  double length = 0;             ///< cylinder: full length; capsule: core length (≥ 0)
  std::string mesh_path;         ///< mesh: resolved absolute path of an existing file
  Vec3 mesh_scale = Vec3::Ones();
};

struct RobotCollision {
  std::string name;  ///< the <collision name>, or "<link name>#<k>" for the k-th unnamed one
  int link = -1;
  Pose X_LS;         ///< shape frame in the link frame (the <collision> <origin>)
  CollisionGeometry geometry;
};

/// A kinematic tree loaded from URDF (see the file comment for indices, frames and the supported
/// subset). Loading throws std::invalid_argument naming the problem (the parser's message for
/// malformed XML or URDF). Loading is serialized by a lock (urdfdom reports through a global
/// console handler); the loaded model is immutable and its const methods are thread-safe.
class RobotModel {
 public:
  /// Loads `urdf_path`, and `srdf_path` when it is not empty (load_srdf_file).
  /// @throws std::invalid_argument on an unreadable or malformed file, an unsupported joint, a
  /// missing mesh file or a bad geometry size.
  static RobotModel from_urdf_file(const std::string& urdf_path, const std::string& srdf_path = "");
  /// Loads URDF text; relative mesh filenames resolve against `base_dir` (the current folder when
  /// empty). @throws std::invalid_argument as from_urdf_file.
  static RobotModel from_urdf_string(const std::string& urdf_xml, const std::string& base_dir);

  /// Adds the <disable_collisions> pairs of an SRDF file to disabled_link_pairs().
  /// @throws std::invalid_argument on an unreadable or malformed file, a missing link1/link2, a
  /// link name the model does not have, or a pair of a link with itself.
  void load_srdf_file(const std::string& srdf_path);
  /// The same for SRDF text.
  void load_srdf_string(const std::string& srdf_xml);

  const std::string& name() const { return name_; }
  /// The URDF text the model was loaded from, and the absolute folder its relative mesh filenames
  /// resolved against: from_urdf_string(urdf_xml(), base_dir()) rebuilds the links, joints and
  /// shapes (on a machine where the meshes lie at the same paths).
  const std::string& urdf_xml() const { return urdf_xml_; }
  const std::string& base_dir() const { return base_dir_; }
  /// The SRDF texts loaded so far, in order: loading them again restores disabled_link_pairs().
  const std::vector<std::string>& srdf_xml() const { return srdf_xml_; }
  int num_links() const { return static_cast<int>(links_.size()); }
  int num_joints() const { return static_cast<int>(joints_.size()); }
  /// nq: the number of non-fixed joints.
  int num_positions() const { return nq_; }

  const std::vector<RobotLink>& links() const { return links_; }
  const std::vector<RobotJoint>& joints() const { return joints_; }
  /// Every link's collision shapes, by link index, each link's in document order.
  const std::vector<RobotCollision>& collisions() const { return collisions_; }
  /// Link pairs (a, b) with a < b, sorted, each once: the SRDF <disable_collisions> pairs.
  const std::vector<std::pair<int, int>>& disabled_link_pairs() const { return disabled_; }

  /// True when one link is the other's parent (through one joint, fixed joints included).
  /// @throws std::invalid_argument on an index out of range.
  bool adjacent(int link_a, int link_b) const;
  /// @throws std::invalid_argument naming `name` when there is no such link.
  int link_index(const std::string& name) const;
  /// @throws std::invalid_argument naming `name` when there is no such joint.
  int joint_index(const std::string& name) const;

  /// Position limits per q entry (continuous joints: ±inf).
  Eigen::VectorXd lower_limits() const;
  Eigen::VectorXd upper_limits() const;

  /// X_WL of every link (resized to num_links()), the root link at X_WB. q need not be within
  /// the limits. Allocates only when X_WL has the wrong size.
  /// @throws std::invalid_argument on a q of the wrong size or with a non-finite entry, or an
  /// invalid X_WB (Pose::invalid_reason).
  void forward_kinematics(const Eigen::VectorXd& q, const Pose& X_WB, std::vector<Pose>& X_WL) const;

  /// The geometric Jacobian of link `link` at the poses X_WL from forward_kinematics: J (resized
  /// to 6 × nq) maps q̇ to the link's twist [ω; v] in `frame` (docs/conventions.md): world — the
  /// spatial twist (v: the velocity of the body point at the world origin); local — the body
  /// twist; local_world_aligned — ω and the link origin's velocity in world axes (MuJoCo's
  /// mj_jac). Columns of joints not on the path from the root to the link are zero. Allocates
  /// only when J has the wrong size.
  /// @throws std::invalid_argument on a link out of range or X_WL of the wrong size.
  void link_jacobian(const std::vector<Pose>& X_WL, int link, ReferenceFrame frame,
                     Eigen::Matrix<double, 6, Eigen::Dynamic>& J) const;

 private:
  std::string name_;
  std::vector<RobotLink> links_;
  std::vector<RobotJoint> joints_;
  std::vector<RobotCollision> collisions_;
  std::vector<std::pair<int, int>> disabled_;
  int nq_ = 0;
  std::string urdf_xml_, base_dir_;
  std::vector<std::string> srdf_xml_;
};

}  // namespace diffcol::scene
