// diffcol quickstart: contact between a superellipsoid and a smooth box.
#include <iostream>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/shapes/smoothness.hpp"

int main() {
  using namespace diffcol;

  // Body 1: superellipsoid with exponent n = 4 and semi-axes 0.5, 1.0, 1.5 along body x, y, z.
  const Shape body1 = Superellipsoid(0.5, 1.0, 1.5, 4);
  // Body 2: box with half-extents 0.4, 0.4, 0.4, smoothed with the smallest sharpness beta that
  // keeps its surface within 5 cm of the exact box's (beta = 38; the smooth box lies inside).
  const SmoothPolytopeFit box = fit_smooth_box(0.4, 0.4, 0.4, /*tolerance=*/0.05);
  const Shape body2 = box.shape;

  // World poses: position, then a unit quaternion (w, x, y, z).
  const Pose X_W1 = Pose::from_quaternion(Vec3(0.0, 0.0, 0.0), 1.0, 0.0, 0.0, 0.0);
  const Pose X_W2 = Pose::from_quaternion(Vec3(1.5, 0.2, 0.3), 0.9239, 0.0, 0.0, 0.3827);  // 45° about z

  const idcol::ContactSolution c = idcol::solve_contact(body1, X_W1, body2, X_W2);
  if (!c.ok()) {
    std::cerr << "solve failed: " << diffcol::status_name(c.status) << "\n";
    return 1;
  }

  // alpha > 1: separated, alpha = 1: touching, alpha < 1: penetrating.
  std::cout << "status     " << diffcol::status_name(c.status) << " (" << c.iterations << " Newton steps)\n"
            << "alpha      " << c.alpha << "\n"
            << "gap        " << c.gap << "\n"
            << "p1 (world) " << c.p1_W.transpose() << "\n"   // witness point on body 1
            << "p2 (world) " << c.p2_W.transpose() << "\n"   // witness point on body 2
            << "normal (W) " << c.normal_W.transpose() << "\n"   // out of body 1, towards body 2
            << "box beta   " << box.beta << " (surface within " << box.hausdorff_distance << " of the box)\n";
  return 0;
}
