// Forward kinematics and link Jacobians of a RobotModel; lookups and limits.
#include <cmath>
#include <stdexcept>
#include <string>

#include "diffcol/scene/robot_model.hpp"

namespace diffcol::scene {

const char* joint_type_name(JointType type) {
  switch (type) {
    case JointType::revolute: return "revolute";
    case JointType::continuous: return "continuous";
    case JointType::prismatic: return "prismatic";
    case JointType::fixed: return "fixed";
  }
  return "unknown";
}

const char* geometry_kind_name(GeometryKind kind) {
  switch (kind) {
    case GeometryKind::box: return "box";
    case GeometryKind::cylinder: return "cylinder";
    case GeometryKind::sphere: return "sphere";
    case GeometryKind::capsule: return "capsule";
    case GeometryKind::mesh: return "mesh";
  }
  return "unknown";
}

bool RobotModel::adjacent(int link_a, int link_b) const {
  const int n = num_links();
  if (link_a < 0 || link_a >= n || link_b < 0 || link_b >= n)
    throw std::invalid_argument("RobotModel::adjacent: link index out of range [0, " + std::to_string(n) + ")");
  const auto parent = [&](int l) {
    const int j = links_[l].parent_joint;
    return j < 0 ? -1 : joints_[j].parent_link;
  };
  return parent(link_a) == link_b || parent(link_b) == link_a;
}

int RobotModel::link_index(const std::string& name) const {
  for (int i = 0; i < num_links(); ++i)
    if (links_[i].name == name) return i;
  throw std::invalid_argument("unknown link '" + name + "' in robot '" + name_ + "'");
}

int RobotModel::joint_index(const std::string& name) const {
  for (int i = 0; i < num_joints(); ++i)
    if (joints_[i].name == name) return i;
  throw std::invalid_argument("unknown joint '" + name + "' in robot '" + name_ + "'");
}

Eigen::VectorXd RobotModel::lower_limits() const {
  Eigen::VectorXd out(nq_);
  for (const auto& j : joints_)
    if (j.q_index >= 0) out[j.q_index] = j.lower;
  return out;
}

Eigen::VectorXd RobotModel::upper_limits() const {
  Eigen::VectorXd out(nq_);
  for (const auto& j : joints_)
    if (j.q_index >= 0) out[j.q_index] = j.upper;
  return out;
}

void RobotModel::forward_kinematics(const Eigen::VectorXd& q, const Pose& X_WB, std::vector<Pose>& X_WL) const {
  if (q.size() != nq_)
    throw std::invalid_argument("forward_kinematics: q has " + std::to_string(q.size()) + " entries, the robot '" +
                                name_ + "' has " + std::to_string(nq_) + " positions");
  for (Eigen::Index i = 0; i < q.size(); ++i)
    if (!std::isfinite(q[i]))
      throw std::invalid_argument("forward_kinematics: q[" + std::to_string(i) + "] is not finite");
  if (const char* why = X_WB.invalid_reason())
    throw std::invalid_argument(std::string("forward_kinematics: invalid base pose X_WB: ") + why);
  if (links_.empty()) throw std::invalid_argument("forward_kinematics: the model has no links (not loaded)");
  X_WL.resize(links_.size());
  X_WL[0] = X_WB;
  // joint i moves link i + 1, whose parent comes earlier (depth-first order)
  for (std::size_t i = 0; i < joints_.size(); ++i) {
    const RobotJoint& j = joints_[i];
    Pose X_PC = j.X_PJ;
    switch (j.type) {
      case JointType::revolute:
      case JointType::continuous:
        X_PC.R = j.X_PJ.R * so3_exp(j.axis * q[j.q_index]);
        break;
      case JointType::prismatic:
        X_PC.p = j.X_PJ.p + j.X_PJ.R * (j.axis * q[j.q_index]);
        break;
      case JointType::fixed:
        break;
    }
    X_WL[j.child_link] = X_WL[j.parent_link] * X_PC;
  }
}

void RobotModel::link_jacobian(const std::vector<Pose>& X_WL, int link, ReferenceFrame frame,
                               Eigen::Matrix<double, 6, Eigen::Dynamic>& J) const {
  if (link < 0 || link >= num_links())
    throw std::invalid_argument("link_jacobian: link " + std::to_string(link) + " out of range [0, " +
                                std::to_string(num_links()) + ")");
  if (X_WL.size() != links_.size())
    throw std::invalid_argument("link_jacobian: X_WL has " + std::to_string(X_WL.size()) + " poses, the robot has " +
                                std::to_string(links_.size()) + " links");
  J.resize(6, nq_);
  J.setZero();
  const Pose& X = X_WL[link];
  // Column of joint j on the path (child link C at (R_C, p_C), axis a = R_C·axis in world axes),
  // as the world twist [ω; v] (v: the velocity of the point at the world origin):
  // revolute [a; p_C × a], prismatic [0; a].
  for (int l = link; links_[l].parent_joint >= 0;) {
    const RobotJoint& j = joints_[links_[l].parent_joint];
    if (j.q_index >= 0) {
      const Pose& X_WC = X_WL[j.child_link];
      const Vec3 a = X_WC.R * j.axis;
      Vec3 w = Vec3::Zero(), v;
      if (j.type == JointType::prismatic) {
        v = a;
      } else {
        w = a;
        v = X_WC.p.cross(a);
      }
      // to `frame` (η = M·τ, se3.hpp): the link origin moves with v + ω × p
      if (frame != ReferenceFrame::world) v += w.cross(X.p);
      if (frame == ReferenceFrame::local) {
        w = X.R.transpose() * w;
        v = X.R.transpose() * v;
      }
      J.col(j.q_index) << w, v;
    }
    l = j.parent_link;
  }
}

}  // namespace diffcol::scene
