// `diffcol demo cone-opening`: DCOL seed Sec. IV-A-3. A cone (DCOL) with translation and attitude
// control passes a square opening in a wall of four box prisms. Its pose is six coordinates
// (position, rotation vector relative to the start attitude) driven by a double integrator on
// those coordinates (control: their accelerations), the dynamics residuals of the trajectory
// problem; the constraint is α ≥ 1 + ε and the optimizer starts from the static initial guess.
#include <cmath>
#include <numbers>
#include <ostream>

#include "demo_plan.hpp"

namespace diffcol::cli {

namespace cone_opening {

Pose at(double x, double y, double z) { return Pose::from_quaternion(Vec3(x, y, z), 1.0, 0.0, 0.0, 0.0); }

// z = [q (6); v (6); u (6)]: q_{k+1} − q_k − dt·(v_k + v_{k+1})/2 = 0, v_{k+1} − v_k − dt·u_k = 0.
plan::Dynamics double_integrator(double dt) {
  plan::Dynamics d;
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
  return d;
}

}  // namespace cone_opening

void demo_cone_opening(const DemoOptions& options, Json& report) {
  const PlanDemoArguments args = plan_demo_arguments(options, "cone-opening");
  scene::Scene s;
  // The wall x ∈ [−0.15, 0.15] with a square opening |y|, |z| < 0.65 (four prisms).
  const double half_open = 0.65, half_outer = 2.0, half_thick = 0.15;
  const double bar = 0.5 * (half_outer - half_open), mid = 0.5 * (half_outer + half_open);
  const int wall = s.add_body(Pose::identity(), true, "wall");
  s.add_shape(wall, dcol::Polytope::box(half_thick, half_outer, bar), cone_opening::at(0, 0, mid), {}, "top");
  s.add_shape(wall, dcol::Polytope::box(half_thick, half_outer, bar), cone_opening::at(0, 0, -mid), {}, "bottom");
  s.add_shape(wall, dcol::Polytope::box(half_thick, bar, half_open), cone_opening::at(0, mid, 0), {}, "left");
  s.add_shape(wall, dcol::Polytope::box(half_thick, bar, half_open), cone_opening::at(0, -mid, 0), {}, "right");
  // The cone: height 1.5, half-angle 20° (base radius 0.55), its axis (shape x) upright: it is
  // taller than the opening and must slew to pass.
  const double height = 1.5, half_angle = 20.0 * std::numbers::pi / 180.0;
  const Pose upright = Pose::from_rotation(so3_exp(Vec3(0.0, -0.5 * std::numbers::pi, 0.0)), Vec3(-2.5, 0.0, 0.0));
  const int cone = s.add_body(upright, false, "cone");
  s.add_shape(cone, dcol::Cone(height, half_angle), Pose::identity(), {}, "cone");

  plan::TrajectorySpec spec;
  spec.num_knots = args.knots ? args.knots : options.quick ? 25 : 40;
  const double duration = 5.0, dt = duration / (spec.num_knots - 1);
  spec.bodies = {plan::FreeBody{cone, plan::Parametrization::pose6, upright}};
  spec.num_extra_states = 6;
  spec.num_controls = 6;
  spec.start = Eigen::VectorXd::Zero(6);
  spec.start[0] = -2.5;
  spec.goal = Eigen::VectorXd::Zero(6);
  spec.goal[0] = 2.5;
  spec.start_extra = spec.goal_extra = Eigen::VectorXd::Zero(6);  // at rest at both ends
  spec.dynamics = cone_opening::double_integrator(dt);
  spec.smoothness_weight = 0.0;
  spec.control_weight = dt;  // ≈ ∫ ‖u‖² dt
  // The cone's centre stays within the wall's extent (no way around it); rotations below π.
  spec.q_lower = (Eigen::VectorXd(6) << -3.0, -1.2, -1.2, -3.0, -3.0, -3.0).finished();
  spec.q_upper = (Eigen::VectorXd(6) << 3.0, 1.2, 1.2, 3.0, 3.0, 3.0).finished();
  // Speed limits keep the steps between knots short (no passing a bar between two knots).
  spec.extra_lower = (Eigen::VectorXd(6) << -1.6, -1.6, -1.6, -2.0, -2.0, -2.0).finished();
  spec.extra_upper = -spec.extra_lower;
  spec.collision.measure = plan::CollisionMeasure::alpha;
  spec.collision.bound = 0.01;
  spec.collision.interval_samples = 1;
  spec.collision.activation_margin = 0.3;
  spec.collision.num_threads = options.threads;
  plan::TrajectoryProblem problem(s, spec);

  if (options.text)
    *options.text << "cone through an opening: cone H " << height << " (base radius " << height * std::tan(half_angle)
                  << "), opening " << 2 * half_open << " x " << 2 * half_open << ", pose (x, y, z, rotation vector), "
                  << "double integrator, " << duration << " s, alpha >= 1 + " << spec.collision.bound
                  << ", static initial guess\n";
  const PlanDemoOutcome out =
      run_plan_demo(options, problem, problem.static_guess(), args.solve, report, nullptr, 10, args.print_knots);
  double max_tilt = 0.0;  // the attitude's largest angle from the start attitude
  for (Eigen::Index k = 0; k < out.result.configurations.rows(); ++k)
    max_tilt = std::max(max_tilt, out.result.configurations.row(k).tail<3>().norm());
  report["max_rotation_deg"] = max_tilt * 180.0 / std::numbers::pi;
  if (options.text) *options.text << "largest rotation from the start attitude: " << max_tilt * 180.0 / std::numbers::pi << " deg\n";
}

}  // namespace diffcol::cli
