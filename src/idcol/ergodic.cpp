#include "diffcol/idcol/ergodic.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace diffcol::idcol {

ErgodicSweep ErgodicSweep::for_pair(const Shape& s1, const Shape& s2) {
  ErgodicSweep e;
  e.rmin = 0.1 * std::min(s1.inner_radius(), s2.inner_radius());
  e.rmax = 2.0 * std::max(s1.outer_radius(), s2.outer_radius());
  return e;
}

Pose ErgodicSweep::pose(long i) const {
  static const double f[7] = {std::sqrt(2.0), std::sqrt(3.0), std::sqrt(5.0), std::sqrt(7.0),
                              std::sqrt(11.0), std::sqrt(13.0), std::sqrt(17.0)};
  const double t = static_cast<double>(i) * dt;
  const double w = 2.0 * M_PI * t;
  const double u = 0.5 * (1.0 + std::sin(w * f[0]));
  const double r = std::cbrt(rmin * rmin * rmin + (rmax * rmax * rmax - rmin * rmin * rmin) * u);
  const double th = 0.5 * M_PI * std::sin(w * f[1]);
  const double ph = w * f[2];
  const Vec3 p = r * Vec3(std::cos(th) * std::cos(ph), std::cos(th) * std::sin(ph), std::sin(th));
  return Pose::from_quaternion(p, std::sin(w * f[3]), std::cos(w * f[4]), std::sin(w * f[5]),
                               std::cos(w * f[6]));
}

Shape benchmark_shape(const std::string& name) {
  if (name == "sphere") return Sphere(1.0);
  if (name == "ellipsoid") return Superellipsoid(0.5, 1.0, 1.5, 1);
  if (name == "se") return Superellipsoid(0.5, 1.0, 1.5, 8);
  if (name == "sec") return SuperellipticCylinder(1.0, 2.0, 8);
  if (name == "tc") return SmoothTruncatedCone(1.0, 1.5, 1.5, 1.5, 20.0);
  if (name == "poly") {
    Eigen::MatrixX3d A(8, 3);
    A << 1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1, -1, -1, -1, -1, 1, 1, 1, -1, 1, 1, 1, -1;
    Eigen::VectorXd b(8);
    b << 1, 1, 1, 1, 5.0 / 3, 5.0 / 3, 5.0 / 3, 5.0 / 3;
    return SmoothPolytope(A, b, 20.0);
  }
  throw std::invalid_argument("unknown benchmark shape '" + name +
                              "' (expected sphere, ellipsoid, poly, tc, se or sec)");
}

const std::vector<std::string>& benchmark_shape_names() {
  static const std::vector<std::string> names = {"sphere", "ellipsoid", "poly", "tc", "se", "sec"};
  return names;
}

}  // namespace diffcol::idcol
