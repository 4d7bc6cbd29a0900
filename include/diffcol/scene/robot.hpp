#pragma once
/// @file robot.hpp
/// A URDF robot in a scene: its links become moving bodies with their collision shapes; a query
/// returns every close pair (self-collision and against the rest of the scene) with the
/// derivatives of α, the gap, the distance, the witness or closest points and the normal with
/// respect to the joint positions q and the base pose (docs/scene.md, robots).
///
/// Joint-space derivatives are the chain rule on the scene's world-twist blocks: for a pair on
/// bodies 1 and 2, J_q = J_X1·J_1(q) + J_X2·J_2(q) with J_i the geometric Jacobian of link i in
/// world twists (RobotModel::link_jacobian); a body that is not a link of this robot contributes
/// nothing. The base twist η moves every link by the same world twist, so
/// J_base = (J_X1 + J_X2 over the robot's links)·world_twist_from_frame(frame, X_WB).
///
/// Self-collision: pairs of links that are adjacent (parent and child) are excluded by default,
/// and the SRDF's <disable_collisions> pairs always.
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "diffcol/scene/robot_model.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/scene/shape_description.hpp"

namespace diffcol::scene {

struct RobotOptions {
  /// The family of the URDF primitives (box, cylinder, sphere, capsule) and of mesh hulls: exact
  /// DCOL by default; iDCOL with `smoothing` (boxes become smooth polytopes, cylinders
  /// superelliptic cylinders; capsules have no iDCOL shape and stay DCOL).
  Family family = Family::dcol;
  SmoothingOptions smoothing;
  bool exclude_adjacent = true;  ///< no self-collision between a link and its parent
  bool self_collision = true;    ///< pairs of two links of this robot at all
  CollisionFilter filter;        ///< of every shape of the robot
  std::string name_prefix;       ///< of its bodies' names (default: the URDF robot name + "/"); shapes keep
                                 ///< their URDF collision names (the link's name where there is none)
};

/// A dense column-major matrix that reads as an Eigen matrix (it is an Eigen::Map over its own
/// storage) and whose storage only grows: resizing it to at most as many entries as it held
/// before allocates nothing. The joint-space blocks of RobotQueryResult, whose row count follows
/// the number of pairs of each query. Copies own their storage.
class ReusableMatrix : public Eigen::Map<Eigen::MatrixXd> {
 public:
  using Base = Eigen::Map<Eigen::MatrixXd>;
  ReusableMatrix() : Base(nullptr, 0, 0) {}
  ReusableMatrix(const ReusableMatrix& other) : Base(nullptr, 0, 0), storage_(other.storage_) {
    remap(other.rows(), other.cols());
  }
  ReusableMatrix(ReusableMatrix&& other) noexcept : Base(nullptr, 0, 0), storage_(std::move(other.storage_)) {
    remap(other.rows(), other.cols());
    other.remap(0, 0);
  }
  ReusableMatrix& operator=(const ReusableMatrix& other) {
    if (this != &other) {
      storage_.assign(other.storage_.begin(), other.storage_.end());
      remap(other.rows(), other.cols());
    }
    return *this;
  }
  ReusableMatrix& operator=(ReusableMatrix&& other) noexcept {
    if (this != &other) {
      storage_ = std::move(other.storage_);
      remap(other.rows(), other.cols());
      other.remap(0, 0);
    }
    return *this;
  }
  /// rows × cols, every entry zero.
  void setZero(Eigen::Index rows, Eigen::Index cols) {
    resize(rows, cols);
    Base::setZero();
  }
  /// rows × cols, entries unspecified; allocates only beyond the largest size held so far.
  void resize(Eigen::Index rows, Eigen::Index cols) {
    const auto n = static_cast<size_t>(rows * cols);
    if (n > storage_.size()) storage_.resize(n);
    remap(rows, cols);
  }
  using Base::operator=;

 private:
  void remap(Eigen::Index rows, Eigen::Index cols) {
    // Eigen's documented way to re-point a Map: construct it again in place
    new (static_cast<Base*>(this)) Base(storage_.empty() ? nullptr : storage_.data(), rows, cols);
  }
  std::vector<double> storage_;
};

/// A query's pairs with their joint-space derivatives. Row i (rows 3i..3i+2 for points and
/// normals) is pair i of `scene.pairs`; columns are q (J_*_q) or the base twist in the query's
/// frame about the base pose (J_*_base). Zero rows where the pair's derivatives are not available
/// (see `scene.derivatives[i]`: ok, points, normal).
struct RobotQueryResult {
  QueryResult scene;  ///< pairs and their body-twist blocks (world frame)
  ReusableMatrix J_alpha_q, J_gap_q, J_distance_q;     ///< P × nq
  ReusableMatrix J_p1_W_q, J_p2_W_q, J_normal_W_q;     ///< 3P × nq
  ReusableMatrix J_alpha_base, J_gap_base, J_distance_base;  ///< P × 6
  ReusableMatrix J_p1_W_base, J_p2_W_base, J_normal_W_base;  ///< 3P × 6
};

class Robot {
 public:
  /// Adds the model's links to `scene` as moving bodies (mesh collisions as convex hulls, loaded
  /// now) at q = 0 (clamped into the limits) and the identity base. The robot keeps a reference
  /// to the scene: the scene must outlive it.
  /// @throws std::invalid_argument for a collision the family cannot represent or a mesh that
  ///         does not load, naming the link; the scene is then unchanged.
  Robot(Scene& scene, RobotModel model, const RobotOptions& options = {});

  const RobotModel& model() const { return model_; }
  int num_positions() const { return model_.num_positions(); }
  /// The scene body of a link (every link has one, with or without shapes).
  int link_body(int link) const;
  /// The link of a scene body, or -1 when the body is not part of this robot.
  int body_link(int body) const;
  const Eigen::VectorXd& q() const { return q_; }
  const Pose& base_pose() const { return X_WB_; }
  const std::vector<Pose>& link_poses() const { return X_WL_; }

  /// Forward kinematics; moves the link bodies of the scene.
  /// @throws std::invalid_argument for a q of the wrong length or not finite, or an invalid pose;
  ///         nothing changes then.
  void set_configuration(const Eigen::VectorXd& q, const Pose& X_WB = Pose::identity());

  /// The scene's query at the current configuration (derivatives forced on in the world frame
  /// when `joint_derivatives`), with the joint-space and base derivatives of every pair.
  /// Reusing `out`, a query allocates nothing once every pair it meets has been met before and
  /// its number of pairs P is at most the largest an earlier query through `out` returned (the
  /// joint-space matrices keep their storage: ReusableMatrix).
  void query(const QueryOptions& options, RobotQueryResult& out, bool joint_derivatives = true);
  RobotQueryResult query(const QueryOptions& options = {}, bool joint_derivatives = true);

 private:
  Scene* scene_;
  RobotModel model_;
  std::vector<int> link_body_;
  std::vector<int> body_link_;  // indexed by scene body id, -1 for other bodies (grown as needed)
  Eigen::VectorXd q_;
  Pose X_WB_;
  std::vector<Pose> X_WL_;
  std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>> J_links_;  // world-twist Jacobians per link
  std::vector<char> have_jacobian_;                                // J_links_[l] is current (query)
};

}  // namespace diffcol::scene
