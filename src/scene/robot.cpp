// A URDF robot in a scene: links as bodies, collision elements as shapes of the chosen family,
// joint-space derivatives by the chain rule on the scene's world-twist blocks (scene/robot.hpp).
#include "diffcol/scene/robot.hpp"

#include <algorithm>
#include <stdexcept>

#include "diffcol/mesh/triangle_mesh.hpp"

namespace diffcol::scene {

namespace {

ShapeDescription describe(const CollisionGeometry& g, const std::string& where) {
  switch (g.kind) {
    case GeometryKind::box: return ShapeDescription::box(0.5 * g.box_size.x(), 0.5 * g.box_size.y(), 0.5 * g.box_size.z());
    case GeometryKind::cylinder: return ShapeDescription::cylinder(g.radius, g.length);
    case GeometryKind::sphere: return ShapeDescription::sphere(g.radius);
    case GeometryKind::capsule: return ShapeDescription::capsule(g.radius, g.length);
    case GeometryKind::mesh: {
      mesh::TriangleMesh m = [&] {
        try {
          return mesh::load_mesh(g.mesh_path);
        } catch (const std::exception& e) {
          throw std::invalid_argument(where + ": mesh " + g.mesh_path + " does not load: " + e.what());
        }
      }();
      std::vector<Vec3> points;
      points.reserve(m.vertices().size());
      for (const Vec3& v : m.vertices()) points.push_back(v.cwiseProduct(g.mesh_scale));
      return ShapeDescription::convex_hull(std::move(points));
    }
  }
  throw std::invalid_argument(where + ": unknown geometry kind");
}

void check_q(const RobotModel& model, const Eigen::VectorXd& q) {
  if (q.size() != model.num_positions())
    throw std::invalid_argument("robot '" + model.name() + "': q has " + std::to_string(q.size()) + " entries, expected " +
                                std::to_string(model.num_positions()));
  for (Eigen::Index i = 0; i < q.size(); ++i)
    if (!std::isfinite(q[i]))
      throw std::invalid_argument("robot '" + model.name() + "': q[" + std::to_string(i) + "] is not finite");
}

}  // namespace

Robot::Robot(Scene& scene, RobotModel model, const RobotOptions& options) : scene_(&scene), model_(std::move(model)) {
  const std::string prefix = options.name_prefix.empty() ? model_.name() + "/" : options.name_prefix;
  // the shapes first: nothing reaches the scene if one fails
  struct Mounted {
    int link;
    MadeShape made;
    Pose X_LS;
    std::string name;
  };
  std::vector<Mounted> mounted;
  for (const RobotCollision& c : model_.collisions()) {
    const std::string& link_name = model_.links()[static_cast<size_t>(c.link)].name;
    const std::string where = "robot '" + model_.name() + "', link '" + link_name + "'";
    const ShapeDescription d = describe(c.geometry, where);
    const Family family = (options.family == Family::idcol && d.kind == ShapeKind::capsule) ? Family::dcol : options.family;
    try {
      MadeShape made = make_shape(d, family, options.smoothing);
      mounted.push_back({c.link, std::move(made), c.X_LS, c.name.empty() ? link_name : c.name});
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + ": " + e.what());
    }
  }
  q_ = Eigen::VectorXd::Zero(model_.num_positions()).cwiseMax(model_.lower_limits()).cwiseMin(model_.upper_limits());
  model_.forward_kinematics(q_, X_WB_, X_WL_);

  Scene trial(scene);  // all or nothing: the scene changes only if every shape joins
  const int first = trial.num_bodies();
  for (int l = 0; l < model_.num_links(); ++l)
    trial.add_body(X_WL_[static_cast<size_t>(l)], false, prefix + model_.links()[static_cast<size_t>(l)].name);
  for (int a = 0; a < model_.num_links(); ++a)
    for (int b = a + 1; b < model_.num_links(); ++b)
      if (!options.self_collision || (options.exclude_adjacent && model_.adjacent(a, b))) trial.disable_body_pair(first + a, first + b);
  for (const auto& [a, b] : model_.disabled_link_pairs()) trial.disable_body_pair(first + a, first + b);
  for (const Mounted& m : mounted)
    trial.add_shape(first + m.link, m.made.shape, m.X_LS * m.made.X_GS, options.filter, m.name);
  scene = std::move(trial);

  link_body_.resize(static_cast<size_t>(model_.num_links()));
  for (int l = 0; l < model_.num_links(); ++l) link_body_[static_cast<size_t>(l)] = first + l;
  body_link_.assign(static_cast<size_t>(first + model_.num_links()), -1);
  for (int l = 0; l < model_.num_links(); ++l) body_link_[static_cast<size_t>(first + l)] = l;
  J_links_.resize(static_cast<size_t>(model_.num_links()));
}

int Robot::link_body(int link) const {
  if (link < 0 || link >= model_.num_links())
    throw std::invalid_argument("robot '" + model_.name() + "': unknown link " + std::to_string(link));
  return link_body_[static_cast<size_t>(link)];
}

int Robot::body_link(int body) const {
  return body >= 0 && body < static_cast<int>(body_link_.size()) ? body_link_[static_cast<size_t>(body)] : -1;
}

void Robot::set_configuration(const Eigen::VectorXd& q, const Pose& X_WB) {
  check_q(model_, q);
  if (const char* why = X_WB.invalid_reason())
    throw std::invalid_argument("robot '" + model_.name() + "': base pose is not valid: " + why);
  q_ = q;
  X_WB_ = X_WB;
  model_.forward_kinematics(q_, X_WB_, X_WL_);
  for (int l = 0; l < model_.num_links(); ++l) scene_->set_body_pose(link_body_[static_cast<size_t>(l)], X_WL_[static_cast<size_t>(l)]);
}

void Robot::query(const QueryOptions& options, RobotQueryResult& out, bool joint_derivatives) {
  QueryOptions o = options;
  if (joint_derivatives) {
    o.derivatives = true;
    o.frame = ReferenceFrame::world;
  }
  scene_->query(o, out.scene);
  const auto P = static_cast<Eigen::Index>(out.scene.pairs.size());
  const int nq = model_.num_positions();
  if (!joint_derivatives) {
    for (ReusableMatrix* M : {&out.J_alpha_q, &out.J_gap_q, &out.J_distance_q, &out.J_p1_W_q, &out.J_p2_W_q,
                               &out.J_normal_W_q, &out.J_alpha_base, &out.J_gap_base, &out.J_distance_base,
                               &out.J_p1_W_base, &out.J_p2_W_base, &out.J_normal_W_base})
      M->resize(0, 0);
    return;
  }
  for (ReusableMatrix* M : {&out.J_alpha_q, &out.J_gap_q, &out.J_distance_q}) M->setZero(P, nq);
  for (ReusableMatrix* M : {&out.J_p1_W_q, &out.J_p2_W_q, &out.J_normal_W_q}) M->setZero(3 * P, nq);
  for (ReusableMatrix* M : {&out.J_alpha_base, &out.J_gap_base, &out.J_distance_base}) M->setZero(P, 6);
  for (ReusableMatrix* M : {&out.J_p1_W_base, &out.J_p2_W_base, &out.J_normal_W_base}) M->setZero(3 * P, 6);
  std::vector<char>& have = have_jacobian_;
  have.assign(static_cast<size_t>(model_.num_links()), 0);
  for (Eigen::Index i = 0; i < P; ++i) {
    const PairResult& p = out.scene.pairs[static_cast<size_t>(i)];
    const PairDerivatives& d = out.scene.derivatives[static_cast<size_t>(i)];
    for (int side = 0; side < 2; ++side) {
      const int link = body_link(side == 0 ? p.body1 : p.body2);
      if (link < 0) continue;
      auto& J = J_links_[static_cast<size_t>(link)];
      if (!have[static_cast<size_t>(link)]) {
        model_.link_jacobian(X_WL_, link, ReferenceFrame::world, J);
        have[static_cast<size_t>(link)] = 1;
      }
      const int c = 6 * side;
      // (noalias: the products go straight into their rows, no temporary)
      out.J_alpha_q.row(i).noalias() += d.J_alpha.middleCols<6>(c) * J;
      out.J_gap_q.row(i).noalias() += d.J_gap.middleCols<6>(c) * J;
      out.J_distance_q.row(i).noalias() += d.J_distance.middleCols<6>(c) * J;
      out.J_p1_W_q.middleRows<3>(3 * i).noalias() += d.J_p1_W.middleCols<6>(c) * J;
      out.J_p2_W_q.middleRows<3>(3 * i).noalias() += d.J_p2_W.middleCols<6>(c) * J;
      out.J_normal_W_q.middleRows<3>(3 * i).noalias() += d.J_normal_W.middleCols<6>(c) * J;
      out.J_alpha_base.row(i) += d.J_alpha.middleCols<6>(c);
      out.J_gap_base.row(i) += d.J_gap.middleCols<6>(c);
      out.J_distance_base.row(i) += d.J_distance.middleCols<6>(c);
      out.J_p1_W_base.middleRows<3>(3 * i) += d.J_p1_W.middleCols<6>(c);
      out.J_p2_W_base.middleRows<3>(3 * i) += d.J_p2_W.middleCols<6>(c);
      out.J_normal_W_base.middleRows<3>(3 * i) += d.J_normal_W.middleCols<6>(c);
    }
  }
  // the base columns and the scene's blocks in the requested frame
  for (ReusableMatrix* M : {&out.J_alpha_base, &out.J_gap_base, &out.J_distance_base, &out.J_p1_W_base,
                             &out.J_p2_W_base, &out.J_normal_W_base})
    express_in_frame(*M, options.frame, X_WB_);
  if (options.frame != ReferenceFrame::world) {
    for (size_t i = 0; i < out.scene.pairs.size(); ++i)
      express_in_frame(out.scene.derivatives[i], options.frame, scene_->body(out.scene.pairs[i].body1).X_WB,
                       scene_->body(out.scene.pairs[i].body2).X_WB);
  }
  if (!options.derivatives) out.scene.derivatives.clear();
}

RobotQueryResult Robot::query(const QueryOptions& options, bool joint_derivatives) {
  RobotQueryResult r;
  query(options, r, joint_derivatives);
  return r;
}

}  // namespace diffcol::scene
