// Links against an installed diffcol; exits 0 iff one contact solve succeeds.
#include <iostream>

#include "diffcol/idcol/contact.hpp"

int main() {
  const diffcol::Shape sphere = diffcol::Sphere(1.0);
  const diffcol::Shape ellipsoid = diffcol::Superellipsoid::ellipsoid(0.5, 1.0, 1.5);
  const diffcol::Pose X_W1 = diffcol::Pose::identity();
  const diffcol::Pose X_W2 = diffcol::Pose::from_quaternion(diffcol::Vec3(3.0, 0.0, 0.0), 1.0, 0.0, 0.0, 0.0);
  const auto c = diffcol::idcol::solve_contact(sphere, X_W1, ellipsoid, X_W2);
  std::cout << "consumer: status " << diffcol::status_name(c.status) << ", alpha " << c.alpha
            << ", gap " << c.gap << "\n";
  return c.ok() ? 0 : 1;
}
