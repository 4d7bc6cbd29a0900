// `diffcol demo quadrotor-hallway`: DCOL seed Sec. IV-A-2. A 6-DOF quadrotor (the model of the
// seed's refs. [27], [33]: four rotor thrusts, rigid-body dynamics) flies through a hallway with
// 12 exact DCOL obstacles, its collision geometry a sphere that contains it (the seed's outer
// approximation), from an initial guess that hovers at the start. The dynamics are discrete
// constraints between knots (semi-implicit Euler; plan::Dynamics), their Jacobians by forward-mode
// automatic differentiation; the collision rows are α* ≥ 1 + ε with the scene's analytic
// derivatives. The result is re-checked at ten samples per interval by the Euclidean distance.
// --smooth: the obstacles and the sphere in iDCOL shapes inside the exact ones (the capsules as
// the cylinders that contain them), checked in the exact shapes; with --hessian exact, the
// dynamics' second derivatives by nested forward-mode automatic differentiation and the cost's
// constant Hessian complete the exact Hessian of the Lagrangian.
// Options: those of every plan demo (demo_plan.hpp: --knots N, default 40, ...).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <ostream>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <unsupported/Eigen/AutoDiff>

#include "demo_plan.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/plan/trajectory.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/shapes/smooth_truncated_cone.hpp"
#include "diffcol/shapes/smoothness.hpp"
#include "diffcol/shapes/sphere.hpp"
#include "diffcol/shapes/superellipsoid.hpp"

namespace diffcol::cli {

namespace {

// The quadrotor (Mellinger and Kumar's model, the parameters of the DCOL seed's example).
struct Quadrotor {
  double mass = 0.5, arm = 0.1750, kf = 1.0, km = 0.0245, g = 9.81;
  Eigen::Vector3d inertia = Eigen::Vector3d(0.0023, 0.0023, 0.004);
  double hover() const { return mass * g / (4.0 * kf); }  // each rotor's thrust at hover
};

// exp of a rotation vector for any scalar (a series near zero, where the closed form's
// derivatives divide by |r|).
template <class T>
Eigen::Matrix<T, 3, 3> so3_exp_t(const Eigen::Matrix<T, 3, 1>& r) {
  using std::cos;
  using std::sin;
  using std::sqrt;
  const T t2 = r.squaredNorm();
  Eigen::Matrix<T, 3, 3> K;
  K << T(0), -r.z(), r.y(), r.z(), T(0), -r.x(), -r.y(), r.x(), T(0);
  T a, b;  // sin t / t, (1 − cos t) / t²
  if (t2 < T(1e-8)) {
    a = T(1) - t2 / T(6);
    b = T(0.5) - t2 / T(24);
  } else {
    const T t = sqrt(t2);
    a = sin(t) / t;
    b = (T(1) - cos(t)) / t2;
  }
  return Eigen::Matrix<T, 3, 3>::Identity() + a * K + b * K * K;
}

// The residual of one interval, f(z_k, z_{k+1}) = 0 (12 rows). z = [p; r; v; ω; u]: position,
// rotation vector (R = exp(r)), world velocity, body angular velocity, rotor thrusts.
//   v' = v + h (−g e_z + R e_z kf Σu / m)      p' = p + h v'
//   ω' = ω + h J⁻¹(τ(u) − ω × Jω)              R' = R exp(h ω')
// The rotation rows are the vee of the skew part of (R exp(hω'))ᵀ R', zero when R' is the
// prediction (for relative rotations below π/2).
template <class T>
void residual_t(const Quadrotor& m, double h, const Eigen::Matrix<T, 16, 1>& z0, const Eigen::Matrix<T, 16, 1>& z1,
                Eigen::Matrix<T, 12, 1>& f) {
  using V3 = Eigen::Matrix<T, 3, 1>;
  const V3 p0 = z0.template segment<3>(0), r0 = z0.template segment<3>(3), v0 = z0.template segment<3>(6),
           w0 = z0.template segment<3>(9);
  const V3 p1 = z1.template segment<3>(0), r1 = z1.template segment<3>(3), v1 = z1.template segment<3>(6),
           w1 = z1.template segment<3>(9);
  const Eigen::Matrix<T, 4, 1> u = z0.template segment<4>(12);
  const Eigen::Matrix<T, 3, 3> R0 = so3_exp_t<T>(r0), R1 = so3_exp_t<T>(r1);
  const T thrust = T(m.kf) * u.sum();
  V3 accel = R0.col(2) * (thrust / T(m.mass));
  accel.z() -= T(m.g);
  f.template segment<3>(0) = v1 - v0 - T(h) * accel;
  f.template segment<3>(3) = p1 - p0 - T(h) * v1;
  V3 tau;
  tau << T(m.arm * m.kf) * (u[1] - u[3]), T(m.arm * m.kf) * (u[2] - u[0]), T(m.km) * (u[0] - u[1] + u[2] - u[3]);
  V3 Jw;
  Jw << T(m.inertia.x()) * w0.x(), T(m.inertia.y()) * w0.y(), T(m.inertia.z()) * w0.z();
  const V3 rhs = tau - w0.cross(Jw);
  V3 wdot;
  wdot << rhs.x() / T(m.inertia.x()), rhs.y() / T(m.inertia.y()), rhs.z() / T(m.inertia.z());
  f.template segment<3>(6) = w1 - w0 - T(h) * wdot;
  const V3 hw = T(h) * w1;
  const Eigen::Matrix<T, 3, 3> E = (R0 * so3_exp_t<T>(hw)).transpose() * R1;
  f.template segment<3>(9) << T(0.5) * (E(2, 1) - E(1, 2)), T(0.5) * (E(0, 2) - E(2, 0)), T(0.5) * (E(1, 0) - E(0, 1));
}

Pose at(double x, double y, double z, const Mat3& R = Mat3::Identity()) { return Pose::from_rotation(R, Vec3(x, y, z)); }

}  // namespace

void demo_quadrotor_hallway(const DemoOptions& options, Json& report) {
  const PlanDemoArguments args = plan_demo_arguments(options, "quadrotor-hallway");
  const int N = args.knots ? args.knots : 40;  // --quick: the same (fewer knots take more iterations)
  if (N < 3) throw InputError("demo quadrotor-hallway: --knots must be at least 3");
  const double duration = 4.0, h = duration / (N - 1), epsilon = 0.1, drone_radius = 0.25;
  const Quadrotor quad;
  std::ostream* text = options.text;

  // the hallway x ∈ [0, 8], |y| ≤ 1.5, z ∈ [0, 3] (the workspace bounds) and its 12 obstacles;
  // --smooth: `scene` in iDCOL shapes inside the exact ones of `exact` (the check's)
  scene::Scene scene, exact;
  const bool smooth = args.smooth;
  const double tol = 0.02;  // the smooth fits' Hausdorff distance to the exact shapes
  const Mat3 vertical = Eigen::AngleAxisd(-std::numbers::pi / 2, Vec3::UnitY()).toRotationMatrix();  // x axis to +z
  const Mat3 across = Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitZ()).toRotationMatrix();     // x axis to +y
  auto obstacle = [&](const Pose& X, const scene::CollisionShape& s, const char* name,
                      const scene::CollisionShape* smooth_shape = nullptr) {
    scene.add_shape(scene.add_body(X, true, name), smooth && smooth_shape ? *smooth_shape : s, Pose::identity(), {}, name);
    if (smooth) exact.add_shape(exact.add_body(X, true, name), s, Pose::identity(), {}, name);
  };
  auto box = [&](double hx, double hy, double hz) { return scene::CollisionShape(fit_smooth_box(hx, hy, hz, tol).shape); };
  auto cylinder = [&](double r, double l) { return scene::CollisionShape(fit_superelliptic_cylinder(r, 0.5 * l, tol).shape); };
  const std::vector<Vec3> wedge = {Vec3(-0.4, -0.4, -0.5), Vec3(0.4, -0.4, -0.5), Vec3(-0.4, 0.4, -0.5),
                                   Vec3(0.4, 0.4, -0.5),   Vec3(-0.4, 0.0, 0.5),  Vec3(0.4, 0.0, 0.5)};
  std::vector<scene::CollisionShape> fits;  // --smooth (the capsules: the cylinders of length L + 2R)
  if (smooth)
    fits = {box(0.3, 0.3, 1.5), cylinder(0.25, 3.0), Sphere(0.4), cylinder(0.15, 2.3), Superellipsoid(0.4, 0.5, 0.6, 1),
            SmoothTruncatedCone(0.01, 1.2 * std::tan(0.4), 0.9, 0.3, 40.0),  // the DCOL cone's frame (cone-opening)
            box(0.2, 1.0, 0.2), fit_smooth_convex_hull(wedge, tol).shape, cylinder(0.3, 3.0), Sphere(0.35), box(0.4, 0.4, 0.4),
            cylinder(0.15, 1.3)};
  auto fit = [&](size_t i) { return smooth ? &fits[i] : nullptr; };
  obstacle(at(1.5, 0.4, 1.5), dcol::Polytope::box(0.3, 0.3, 1.5), "pillar", fit(0));
  obstacle(at(2.2, -0.8, 1.5, vertical), dcol::Cylinder(0.25, 3.0), "column", fit(1));
  obstacle(at(2.8, 0.3, 1.0), dcol::Sphere(0.4), "ball", fit(2));
  obstacle(at(3.4, 0.0, 2.1, across), dcol::Capsule(0.15, 2.0), "bar", fit(3));
  obstacle(at(3.9, -0.6, 1.3), dcol::Ellipsoid::from_semi_axes(0.4, 0.5, 0.6), "egg", fit(4));
  obstacle(at(4.4, 0.7, 0.8, Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitY()).toRotationMatrix()), dcol::Cone(1.2, 0.4),
           "cone", fit(5));  // apex up
  obstacle(at(5.0, -0.3, 1.7), dcol::Polytope::box(0.2, 1.0, 0.2), "beam", fit(6));
  obstacle(at(5.5, 0.7, 0.9), dcol::Polytope::convex_hull(wedge), "wedge", fit(7));
  obstacle(at(6.0, -0.5, 1.5, vertical), dcol::Cylinder(0.3, 3.0), "post", fit(8));
  obstacle(at(6.5, 0.5, 2.1), dcol::Sphere(0.35), "lamp", fit(9));
  obstacle(at(4.6, -0.9, 2.5), dcol::Polytope::box(0.4, 0.4, 0.4), "crate", fit(10));
  obstacle(at(6.8, -0.7, 0.7, vertical), dcol::Capsule(0.15, 1.0), "stub", fit(11));
  const int drone = scene.add_body(at(0.5, 0.0, 1.5), false, "quadrotor");
  if (smooth) {
    scene.add_shape(drone, Sphere(drone_radius), Pose::identity(), {}, "quadrotor");
    exact.add_shape(exact.add_body(at(0.5, 0.0, 1.5), false, "quadrotor"), dcol::Sphere(drone_radius), Pose::identity(), {},
                    "quadrotor");
  } else {
    scene.add_shape(drone, dcol::Sphere(drone_radius), Pose::identity(), {}, "quadrotor");
  }

  // knots z_k = [p, r (pose6) | v, ω | u]: 6 + 6 + 4
  plan::TrajectorySpec spec;
  spec.num_knots = N;
  spec.bodies = {plan::FreeBody{drone, plan::Parametrization::pose6, Pose::identity()}};
  spec.num_extra_states = 6;
  spec.num_controls = 4;
  spec.start = (Eigen::VectorXd(6) << 0.5, 0.0, 1.5, 0.0, 0.0, 0.0).finished();
  spec.goal = (Eigen::VectorXd(6) << 7.5, 0.0, 1.5, 0.0, 0.0, 0.0).finished();
  spec.start_extra = Eigen::VectorXd::Zero(6);
  spec.goal_extra = Eigen::VectorXd::Zero(6);
  const double half_turn = std::numbers::pi / 2;
  spec.q_lower = (Eigen::VectorXd(6) << 0.0, -1.5, 0.0, -half_turn, -half_turn, -half_turn).finished();
  spec.q_upper = (Eigen::VectorXd(6) << 8.0, 1.5, 3.0, half_turn, half_turn, half_turn).finished();
  spec.extra_lower = Eigen::VectorXd::Constant(6, -10.0);
  spec.extra_upper = Eigen::VectorXd::Constant(6, 10.0);
  spec.control_lower = Eigen::VectorXd::Zero(4);
  spec.control_upper = Eigen::VectorXd::Constant(4, 3.0 * quad.hover());
  spec.smoothness_weight = 0.0;
  // Σ_k ‖u_k − u_hover‖² + 0.1·‖ω_k‖²
  const int nz = 16;
  const double w_omega = 0.1, u_hover = quad.hover();
  spec.costs.push_back([=](const Eigen::Ref<const Eigen::VectorXd>& x, double* grad) {
    double f = 0.0;
    for (int k = 0; k + 1 < N; ++k) {
      const auto w = x.segment<3>(k * nz + 9);
      const Eigen::Vector4d du = x.segment<4>(k * nz + 12).array() - u_hover;
      f += du.squaredNorm() + w_omega * w.squaredNorm();
      if (grad) {
        Eigen::Map<Eigen::Vector4d>(grad + k * nz + 12) += 2.0 * du;
        Eigen::Map<Eigen::Vector3d>(grad + k * nz + 9) += 2.0 * w_omega * w;
      }
    }
    return f;
  });
  spec.cost_hessians.push_back([=](const Eigen::Ref<const Eigen::VectorXd>&, double w, std::vector<plan::HessianEntry>& out) {
    for (int k = 0; k + 1 < N; ++k) {
      for (int i = 0; i < 4; ++i) out.push_back({k * nz + 12 + i, k * nz + 12 + i, 2.0 * w});
      for (int i = 0; i < 3; ++i) out.push_back({k * nz + 9 + i, k * nz + 9 + i, 2.0 * w * w_omega});
    }
  });
  // the dynamics, Jacobians by forward-mode AD over [z_k; z_{k+1}] (32 directions)
  using AD = Eigen::AutoDiffScalar<Eigen::Matrix<double, 32, 1>>;
  spec.dynamics.num_residuals = 12;
  // the structure of ∂f/∂[z_k; z_{k+1}]: columns p 0–2, r 3–5, v 6–8, ω 9–11, u 12–15 of z_k and
  // the same + 16 of z_{k+1}; per group of three rows, the blocks it depends on
  const std::vector<std::vector<int>> depends = {
      {6, 7, 8, 3, 4, 5, 12, 13, 14, 15, 22, 23, 24},  // v' − v − h·a(R, u)
      {0, 1, 2, 16, 17, 18, 22, 23, 24},               // p' − p − h·v'
      {9, 10, 11, 12, 13, 14, 15, 25, 26, 27},         // ω' − ω − h·ω̇(ω, u)
      {3, 4, 5, 19, 20, 21, 25, 26, 27}};              // the rotation
  for (int row = 0; row < 12; ++row)
    for (int c : depends[static_cast<size_t>(row / 3)]) spec.dynamics.sparsity.emplace_back(row, c);
  const auto sparsity = spec.dynamics.sparsity;
  spec.dynamics.residual = [quad, h, sparsity](int, const Eigen::Ref<const Eigen::VectorXd>& z0,
                                               const Eigen::Ref<const Eigen::VectorXd>& z1, Eigen::Ref<Eigen::VectorXd> r,
                                               double* jac) {
    if (!jac) {
      Eigen::Matrix<double, 12, 1> f;
      residual_t<double>(quad, h, z0, z1, f);
      r = f;
      return;
    }
    Eigen::Matrix<AD, 16, 1> a0, a1;
    for (int i = 0; i < 16; ++i) {
      a0[i] = AD(z0[i], 32, i);
      a1[i] = AD(z1[i], 32, 16 + i);
    }
    Eigen::Matrix<AD, 12, 1> f;
    residual_t<AD>(quad, h, a0, a1, f);
    for (int i = 0; i < 12; ++i) r[i] = f[i].value();
    for (const auto& [row, col] : sparsity) *jac++ = f[row].derivatives()[col];
  };
  // Σ_i μ_i ∇²f_i by forward over forward mode, over the 16 entries f is nonlinear in: r, ω and u of
  // z_k, r and ω of z_{k+1} (f is linear in p and v)
  spec.dynamics.hessian = [quad, h](int, const Eigen::Ref<const Eigen::VectorXd>& z0, const Eigen::Ref<const Eigen::VectorXd>& z1,
                                    const Eigen::Ref<const Eigen::VectorXd>& mu, Eigen::Ref<Eigen::MatrixXd> H) {
    using Inner = Eigen::AutoDiffScalar<Eigen::Matrix<double, 16, 1>>;
    using Outer = Eigen::AutoDiffScalar<Eigen::Matrix<Inner, 16, 1>>;
    static constexpr int vars[16] = {3, 4, 5, 9, 10, 11, 12, 13, 14, 15, 19, 20, 21, 25, 26, 27};
    Eigen::Matrix<Outer, 16, 1> a0, a1;
    for (int i = 0; i < 16; ++i) {
      a0[i] = Outer(Inner(z0[i]));
      a1[i] = Outer(Inner(z1[i]));
    }
    for (int j = 0; j < 16; ++j) {
      Outer& v = vars[j] < 16 ? a0[vars[j]] : a1[vars[j] - 16];
      v = Outer(Inner(v.value().value(), 16, j), 16, j);
    }
    Eigen::Matrix<Outer, 12, 1> f;
    residual_t<Outer>(quad, h, a0, a1, f);
    Outer L(Inner(0.0));
    for (int i = 0; i < 12; ++i) L += mu[i] * f[i];
    for (int a = 0; a < 16; ++a)
      for (int b = 0; b < 16; ++b) H(vars[a], vars[b]) += L.derivatives()[a].derivatives()[b];
  };
  spec.collision.measure = plan::CollisionMeasure::alpha;
  spec.collision.bound = epsilon;
  spec.collision.activation_margin = 0.5;
  spec.collision.num_threads = options.threads;
  if (args.near_pairs) spec.collision.selection = plan::PairSelection::initial_path;
  plan::TrajectoryProblem problem(scene, spec);

  // the seed's naive guess: hover at the start (controls at the hover thrust)
  Eigen::VectorXd x0 = problem.static_guess();
  for (int k = 0; k + 1 < N; ++k) x0.segment<4>(k * nz + 12).setConstant(u_hover);
  plan::SolveOptions so = args.solve;
  so.tolerance = 1e-4;
  // the check: the Euclidean distance (not α*) at ten samples per interval
  report["smooth"] = smooth;
  report["hessian"] = so.hessian == plan::HessianMode::exact       ? "exact"
                      : so.hessian == plan::HessianMode::objective ? "objective"
                                                                   : "limited-memory";
  const PlanDemoOutcome out = run_plan_demo(options, problem, x0, so, report, smooth ? &exact : nullptr, 10, args.print_knots);
  const plan::SolveResult& r = out.result;
  // the dynamics residual of the result, largest entry, and the largest tilt
  double dyn = 0.0;
  for (int k = 0; k + 1 < N; ++k) {
    Eigen::Matrix<double, 12, 1> f;
    residual_t<double>(quad, h, r.x.segment<16>(k * nz), r.x.segment<16>((k + 1) * nz), f);
    dyn = std::max(dyn, f.cwiseAbs().maxCoeff());
  }
  double tilt = 0.0;
  for (int k = 0; k < N; ++k) tilt = std::max(tilt, r.configurations.row(k).tail<3>().norm());
  report["success"] = out.success && dyn < 1e-5;
  report["max_dynamics_residual"] = dyn;
  report["time_step"] = h;
  report["max_rotation_rad"] = tilt;
  report["obstacles"] = 12;
  if (text) *text << "largest dynamics residual " << dyn << ", largest rotation " << tilt << " rad\n";
}

}  // namespace diffcol::cli
