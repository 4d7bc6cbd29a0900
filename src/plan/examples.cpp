// The seeds' trajectory problems (include/diffcol/plan/examples.hpp).
#include "diffcol/plan/examples.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "diffcol/scene/robot_model.hpp"
#include "diffcol/shapes/smooth_truncated_cone.hpp"
#include "diffcol/shapes/smoothness.hpp"

namespace diffcol::plan::examples {

namespace {

Pose at(double x, double y, double z = 0.0) { return Pose::from_quaternion(Vec3(x, y, z), 1.0, 0.0, 0.0, 0.0); }

// z = [q (6); v (6); u (6)]: q_{k+1} − q_k − dt·(v_k + v_{k+1})/2 = 0, v_{k+1} − v_k − dt·u_k = 0.
Dynamics double_integrator6(double dt) {
  Dynamics d;
  d.num_residuals = 12;
  constexpr int nz = 18;
  for (int i = 0; i < 6; ++i) {
    for (int c : {i, nz + i, 6 + i, nz + 6 + i}) d.sparsity.emplace_back(i, c);
    for (int c : {6 + i, nz + 6 + i, 12 + i}) d.sparsity.emplace_back(6 + i, c);
  }
  d.residual = [dt](int, const Eigen::Ref<const Eigen::VectorXd>& z, const Eigen::Ref<const Eigen::VectorXd>& zn,
                    Eigen::Ref<Eigen::VectorXd> r, double* J) {
    for (int i = 0; i < 6; ++i) {
      r[i] = zn[i] - z[i] - 0.5 * dt * (z[6 + i] + zn[6 + i]);
      r[6 + i] = zn[6 + i] - z[6 + i] - dt * z[12 + i];
    }
    if (!J) return;
    for (int i = 0; i < 6; ++i) {  // the order of `sparsity`
      *J++ = -1.0;
      *J++ = 1.0;
      *J++ = -0.5 * dt;
      *J++ = -0.5 * dt;
      *J++ = -1.0;
      *J++ = 1.0;
      *J++ = -dt;
    }
  };
  d.hessian = [](int, const Eigen::Ref<const Eigen::VectorXd>&, const Eigen::Ref<const Eigen::VectorXd>&,
                 const Eigen::Ref<const Eigen::VectorXd>&, Eigen::Ref<Eigen::MatrixXd>) {};  // linear
  return d;
}

// A box obstacle: the DCOL polytope, or (smooth) the iDCOL smooth polytope within 2 mm of it.
scene::CollisionShape wall_box(double hx, double hy, double hz, bool smooth) {
  if (smooth) return fit_smooth_box(hx, hy, hz, 0.002).shape;
  return dcol::Polytope::box(hx, hy, hz);
}

// The URDF text of `path` with every <capsule radius="r" length="l"/> replaced by the cylinder
// of radius r and length l + 2r that contains it (iDCOL has no capsule).
std::string urdf_capsules_as_cylinders(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("arm_reach: cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string xml = ss.str();
  auto attribute = [](const std::string& element, const char* name) {
    const std::string key = std::string(name) + "=\"";
    const size_t a = element.find(key);
    if (a == std::string::npos) throw std::invalid_argument("arm_reach: a capsule without " + std::string(name));
    return std::stod(element.substr(a + key.size()));
  };
  for (size_t at = xml.find("<capsule"); at != std::string::npos; at = xml.find("<capsule", at)) {
    const size_t end = xml.find("/>", at);
    if (end == std::string::npos) throw std::invalid_argument("arm_reach: an unclosed <capsule> element");
    const std::string element = xml.substr(at, end + 2 - at);
    const double r = attribute(element, "radius"), l = attribute(element, "length");
    std::ostringstream cyl;
    cyl.precision(17);
    cyl << "<cylinder radius=\"" << r << "\" length=\"" << l + 2.0 * r << "\"/>";
    xml.replace(at, element.size(), cyl.str());
    at += cyl.str().size();
  }
  return xml;
}

}  // namespace

Example piano_mover(int knots, bool smooth) {
  Example e;
  e.scene = std::make_unique<scene::Scene>();
  scene::Scene& s = *e.scene;
  // The hallway: along x for y in [0, 1] (x ≤ 1), then along y for x in [0, 1] (y ≥ 0).
  const int walls = s.add_body(Pose::identity(), true, "hallway");
  s.add_shape(walls, wall_box(3.0, 0.25, 0.5, smooth), at(-1.5, -0.25), {}, "outer_wall_x");
  s.add_shape(walls, wall_box(0.25, 2.75, 0.5, smooth), at(1.25, 2.0), {}, "outer_wall_y");
  s.add_shape(walls, wall_box(2.25, 1.75, 0.5, smooth), at(-2.25, 2.75), {}, "inner_corner");
  const double length = 2.6, radius = 0.03;
  const int rod = s.add_body(at(-2.5, 0.5), false, "piano");
  if (smooth)  // axis x, within 2 mm of the cylinder of the capsule's length
    s.add_shape(rod, fit_superelliptic_cylinder(radius, 0.5 * length, 0.002).shape, Pose::identity(), {}, "piano");
  else
    s.add_shape(rod, dcol::Capsule(radius, length - 2.0 * radius), Pose::identity(), {}, "piano");

  TrajectorySpec spec;
  spec.num_knots = knots;
  spec.bodies = {FreeBody{rod, Parametrization::planar, Pose::identity()}};
  spec.start = Eigen::Vector3d(-2.5, 0.5, 0.0);
  spec.goal = Eigen::Vector3d(0.5, 3.0, std::numbers::pi / 2);
  // The hallway's ends are open: the rod's centre stays within them (no way around the walls).
  spec.q_lower = Eigen::Vector3d(-3.0, 0.0, -std::numbers::pi);
  spec.q_upper = Eigen::Vector3d(1.0, 3.5, std::numbers::pi);
  spec.collision.measure = CollisionMeasure::alpha;
  spec.collision.bound = 0.002;
  spec.collision.activation_margin = 0.3;
  e.problem = std::make_unique<TrajectoryProblem>(s, spec);
  if (smooth) {  // a path drawn around the corner (from the static guess limited-memory Ipopt fails here)
    Eigen::MatrixXd path(6, 3);
    path << -2.5, 0.5, 0.0, -0.7, 0.65, 0.45, -0.15, 0.85, 0.7, 0.2, 1.25, 1.0, 0.35, 1.8, 1.2, 0.5, 3.0, std::numbers::pi / 2;
    e.x0 = e.problem->path_guess(path);
  } else {
    e.x0 = e.problem->static_guess();
  }
  std::ostringstream os;
  os << "piano mover: rod " << length << " m (" << (smooth ? "iDCOL superelliptic cylinder" : "capsule") << " R " << radius
     << "), hallway 1 m wide" << (smooth ? " (iDCOL smooth boxes)" : "") << ", planar (x, y, theta), "
     << "alpha >= 1 + " << spec.collision.bound << (smooth ? ", a path around the corner as initial guess" : ", static initial guess");
  e.description = os.str();
  return e;
}

Example cone_opening(int knots, bool smooth) {
  Example e;
  e.scene = std::make_unique<scene::Scene>();
  scene::Scene& s = *e.scene;
  // The wall x ∈ [−0.15, 0.15] with a square opening |y|, |z| < 0.65 (four prisms).
  const double half_open = 0.65, half_outer = 2.0, half_thick = 0.15;
  const double bar = 0.5 * (half_outer - half_open), mid = 0.5 * (half_outer + half_open);
  const int wall = s.add_body(Pose::identity(), true, "wall");
  s.add_shape(wall, wall_box(half_thick, half_outer, bar, smooth), at(0, 0, mid), {}, "top");
  s.add_shape(wall, wall_box(half_thick, half_outer, bar, smooth), at(0, 0, -mid), {}, "bottom");
  s.add_shape(wall, wall_box(half_thick, bar, half_open, smooth), at(0, mid, 0), {}, "left");
  s.add_shape(wall, wall_box(half_thick, bar, half_open, smooth), at(0, -mid, 0), {}, "right");
  // The cone's axis (shape x) upright: taller than the opening, it must slew to pass.
  const double height = 1.5, half_angle = 20.0 * std::numbers::pi / 180.0;
  const Pose upright = Pose::from_rotation(so3_exp(Vec3(0.0, -0.5 * std::numbers::pi, 0.0)), Vec3(-2.5, 0.0, 0.0));
  const int cone = s.add_body(upright, false, "cone");
  if (smooth)  // the DCOL cone's frame: apex at −3H/4 on x (a 1 cm tip), base at +H/4
    s.add_shape(cone, SmoothTruncatedCone(0.01, height * std::tan(half_angle), 0.75 * height, 0.25 * height, 40.0),
                Pose::identity(), {}, "cone");
  else
    s.add_shape(cone, dcol::Cone(height, half_angle), Pose::identity(), {}, "cone");

  TrajectorySpec spec;
  spec.num_knots = knots;
  const double duration = 5.0, dt = duration / (knots - 1);
  spec.bodies = {FreeBody{cone, Parametrization::pose6, upright}};
  spec.num_extra_states = 6;
  spec.num_controls = 6;
  spec.start = Eigen::VectorXd::Zero(6);
  spec.start[0] = -2.5;
  spec.goal = Eigen::VectorXd::Zero(6);
  spec.goal[0] = 2.5;
  spec.start_extra = spec.goal_extra = Eigen::VectorXd::Zero(6);  // at rest at both ends
  spec.dynamics = double_integrator6(dt);
  spec.smoothness_weight = 0.0;
  spec.control_weight = dt;  // ≈ ∫ ‖u‖² dt
  // The cone's centre stays within the wall's extent (no way around it); rotations below π.
  spec.q_lower = (Eigen::VectorXd(6) << -3.0, -1.2, -1.2, -3.0, -3.0, -3.0).finished();
  spec.q_upper = (Eigen::VectorXd(6) << 3.0, 1.2, 1.2, 3.0, 3.0, 3.0).finished();
  // Speed limits keep the steps between knots short.
  spec.extra_lower = (Eigen::VectorXd(6) << -1.6, -1.6, -1.6, -2.0, -2.0, -2.0).finished();
  spec.extra_upper = -spec.extra_lower;
  spec.collision.measure = CollisionMeasure::alpha;
  spec.collision.bound = 0.01;
  spec.collision.interval_samples = 1;
  spec.collision.activation_margin = 0.3;
  e.problem = std::make_unique<TrajectoryProblem>(s, spec);
  e.x0 = e.problem->static_guess();
  std::ostringstream os;
  os << "cone through an opening: " << (smooth ? "iDCOL smooth truncated cone" : "cone") << " H " << height
     << " (base radius " << height * std::tan(half_angle) << "), opening " << 2 * half_open << " x " << 2 * half_open << ", pose (x, y, z, rotation vector), "
     << "double integrator, " << duration << " s, alpha >= 1 + " << spec.collision.bound << ", static initial guess";
  e.description = os.str();
  return e;
}

Example arm_reach(const std::string& urdf, const std::string& srdf, int knots, bool near_pairs, bool smooth) {
  Example e;
  e.scene = std::make_unique<scene::Scene>();
  scene::Scene& s = *e.scene;
  const int obstacles = s.add_body(Pose::identity(), true, "obstacles");
  s.add_shape(obstacles, wall_box(0.3, 0.6, 0.05, smooth), at(0.55, 0.0, -0.05), {}, "table");
  s.add_shape(obstacles, wall_box(0.08, 0.08, 0.25, smooth), at(0.5, 0.0, 0.25), {}, "pillar");
  if (smooth) {
    scene::RobotModel model = scene::RobotModel::from_urdf_string(urdf_capsules_as_cylinders(urdf),
                                                                  std::filesystem::path(urdf).parent_path().string());
    if (!srdf.empty()) model.load_srdf_file(srdf);
    // the check scene: the same bodies (ids) with the exact shapes
    e.check_scene = std::make_unique<scene::Scene>();
    scene::Scene& c = *e.check_scene;
    const int exact_obstacles = c.add_body(Pose::identity(), true, "obstacles");
    c.add_shape(exact_obstacles, wall_box(0.3, 0.6, 0.05, false), at(0.55, 0.0, -0.05), {}, "table");
    c.add_shape(exact_obstacles, wall_box(0.08, 0.08, 0.25, false), at(0.5, 0.0, 0.25), {}, "pillar");
    const scene::Robot exact_arm(c, model);
    const int m2 = model.link_index("link2"), m4 = model.link_index("link4");
    if (srdf.empty() && m2 >= 0 && m4 >= 0) c.disable_body_pair(exact_arm.link_body(m2), exact_arm.link_body(m4));
    scene::RobotOptions ro;
    ro.family = scene::Family::idcol;
    e.robot = std::make_unique<scene::Robot>(s, std::move(model), ro);
  } else {
    e.robot = std::make_unique<scene::Robot>(s, scene::RobotModel::from_urdf_file(urdf, srdf));
  }
  scene::Robot& arm = *e.robot;
  // link2's capsule and link4's sphere of arm7 overlap at every configuration: arm7.srdf disables
  // the pair; without an SRDF it is disabled here.
  const int l2 = arm.model().link_index("link2"), l4 = arm.model().link_index("link4");
  if (srdf.empty() && l2 >= 0 && l4 >= 0) s.disable_body_pair(arm.link_body(l2), arm.link_body(l4));

  TrajectorySpec spec;
  spec.num_knots = knots;
  spec.robot = &arm;
  spec.start = (Eigen::VectorXd(7) << -1.0, 0.6, 0.0, -1.9, 0.0, 2.5, 0.8).finished();
  spec.goal = (Eigen::VectorXd(7) << 1.0, 0.6, 0.0, -1.9, 0.0, 2.5, 0.8).finished();
  spec.collision.measure = smooth ? CollisionMeasure::gap : CollisionMeasure::distance;
  spec.collision.bound = 0.02;
  spec.collision.activation_margin = 0.15;
  spec.collision.interval_samples = 1;
  if (near_pairs) {
    spec.collision.selection = PairSelection::initial_path;
    spec.collision.selection_margin = 0.3;
  }
  e.problem = std::make_unique<TrajectoryProblem>(s, spec);
  e.x0 = e.problem->linear_guess();
  std::ostringstream os;
  os << "arm reach: " << arm.num_positions() << " joints, " << arm.model().num_links()
     << " links" << (smooth ? " (iDCOL shapes, capsules as cylinders)" : "")
     << ", around a pillar from the straight line in q, " << (smooth ? "gap d_D" : "distance") << " >= " << spec.collision.bound
     << " m";
  e.description = os.str();
  return e;
}

}  // namespace diffcol::plan::examples
