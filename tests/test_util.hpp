#pragma once
// Helpers shared by the GoogleTest files: random directions, rotations and poses.
#include <limits>
#include <random>

#include <Eigen/Geometry>

#include "diffcol/math/se3.hpp"

namespace diffcol::test {

inline const double kNaN = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();

/// A uniformly distributed unit vector.
inline Vec3 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> N(0.0, 1.0);
  Vec3 v;
  do {
    v = Vec3(N(rng), N(rng), N(rng));
  } while (v.norm() < 1e-6);
  return v.normalized();
}

/// A uniformly distributed rotation.
inline Mat3 random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> N(0.0, 1.0);
  return Eigen::Quaterniond(N(rng), N(rng), N(rng), N(rng)).normalized().toRotationMatrix();
}

/// A pose from its parts, unchecked.
inline Pose make_pose(const Mat3& R, const Vec3& p) {
  Pose g;
  g.R = R;
  g.p = p;
  return g;
}

}  // namespace diffcol::test
