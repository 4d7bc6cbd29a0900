// The twelve-primitive scene of the DCOL seed's Fig. 6 (time_stepping.hpp).
#include <cmath>
#include <random>
#include <variant>

#include "diffcol/scene/collision_shape.hpp"
#include "diffcol/sim/time_stepping.hpp"

namespace diffcol::sim {

namespace {

/// A centrally symmetric hull (its centroid is its origin): the points ±u_i.
dcol::Polytope symmetric_hull(std::mt19937& rng, int n, double radius) {
  std::normal_distribution<double> N(0.0, 1.0);
  std::vector<Vec3> pts;
  for (int i = 0; i < n; ++i) {
    Vec3 u(N(rng), N(rng), N(rng));
    u = radius * u.normalized();
    pts.push_back(u);
    pts.push_back(-u);
  }
  return dcol::Polytope::convex_hull(pts);
}

}  // namespace

TimeStepper twelve_primitives(std::vector<BodyState>& initial, unsigned seed, const TimeSteppingOptions& options) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::normal_distribution<double> N(0.0, 1.0);
  std::vector<std::pair<std::string, dcol::Primitive>> shapes = {
      {"box", dcol::Polytope::box(0.35, 0.25, 0.2)},
      {"plate", dcol::Polytope::box(0.45, 0.3, 0.08)},
      {"cylinder", dcol::Cylinder(0.25, 0.7)},
      {"capsule", dcol::Capsule(0.2, 0.6)},
      {"cone", dcol::Cone(0.8, 0.45)},
      {"narrow_cone", dcol::Cone(0.9, 0.3)},
      {"sphere", dcol::Sphere(0.3)},
      {"ellipsoid", dcol::Ellipsoid::from_semi_axes(0.45, 0.3, 0.2)},
      {"octahedron", symmetric_hull(rng, 3, 0.4)},
      {"hull", symmetric_hull(rng, 7, 0.38)},
  };
  {
    shapes.push_back({"padded_rectangle", dcol::PaddedPolygon::rectangle(0.3, 0.2, 0.08)});
    Eigen::MatrixX2d H(6, 2);
    Eigen::VectorXd e(6);
    for (int i = 0; i < 6; ++i) {
      const double a = M_PI / 3.0 * i;
      H.row(i) << std::cos(a), std::sin(a);
      e[i] = 0.25;
    }
    shapes.push_back({"padded_hexagon", dcol::PaddedPolygon(H, e, 0.06)});
  }
  const double density = 10.0;  // kg/m³, lengths in metres
  TimeStepper stepper(options);
  initial.clear();
  std::vector<Vec3> placed;
  for (auto& [name, shape] : shapes) {
    // every shape is symmetric about its origin but the cone, whose origin is its centroid: the
    // body frame at the centre of mass is the shape frame
    const MassProperties mp = mass_properties(scene::CollisionShape(shape), density);
    stepper.add_body(shape, mp.mass, mp.inertia, name);
    Vec3 p;
    for (;;) {  // random direction, distance 4 to 5, clear of the bodies placed so far
      Vec3 u(N(rng), N(rng), N(rng));
      p = (4.0 + 0.5 * (U(rng) + 1.0)) * u.normalized();
      bool clear = true;
      for (const Vec3& q : placed) clear = clear && (p - q).norm() > 1.6;
      if (clear) break;
    }
    placed.push_back(p);
    BodyState x;
    x.X_WB.R = Eigen::Quaterniond(N(rng), N(rng), N(rng), N(rng)).normalized().toRotationMatrix();
    x.X_WB.p = p;
    const Vec3 aim(0.3 * U(rng), 0.3 * U(rng), 0.3 * U(rng));
    const double travel = (aim - p).norm() - 0.6;  // to first touch, roughly
    x.v_W = (aim - p).normalized() * (travel / 2.0);
    x.omega_B = Vec3(U(rng), U(rng), U(rng));
    initial.push_back(x);
  }
  return stepper;
}

}  // namespace diffcol::sim
