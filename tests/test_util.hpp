#pragma once
// Helpers shared by the GoogleTest files: random directions, rotations and poses; test sizes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <random>

#include <Eigen/Geometry>
#include <gtest/gtest.h>

#include "diffcol/math/se3.hpp"

namespace diffcol::test {

inline constexpr double kPi = 3.14159265358979323846;

inline const double kNaN = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();

/// A test size from the environment variable `name` (e.g. DIFFCOL_ERGODIC_POSES, lowered by the
/// sanitizer run of scripts/test.sh): `fallback` when it is unset or empty, and, with a warning on
/// stderr, when it is not a positive integer.
inline long env_count(const char* name, long fallback) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  char* end = nullptr;
  const long n = std::strtol(env, &end, 10);
  if (end == env || *end != '\0' || n <= 0) {
    std::fprintf(stderr, "%s='%s' is not a positive integer; using %ld\n", name, env, fallback);
    return fallback;
  }
  return n;
}

/// A uniformly distributed unit vector.
inline Vec3 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> N(0.0, 1.0);
  Vec3 v;
  do {
    v = Vec3(N(rng), N(rng), N(rng));
  } while (v.norm() < 1e-6);
  return v.normalized();
}

/// A point uniformly distributed in the cube [−a, a]³.
inline Vec3 random_in_cube(std::mt19937& rng, double a) {
  std::uniform_real_distribution<double> U(-a, a);
  return {U(rng), U(rng), U(rng)};
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

/// min z₃ over {z ∈ R⁴ : G z ≤ h} (z₃ > 0) by enumerating the vertices of the feasible set (every
/// choice of 4 independent constraints): the exact α of two polytopes, z = (x, α), for the tests'
/// references. Infinity if no vertex is feasible.
inline double min_alpha_over_vertices(const Eigen::Matrix<double, Eigen::Dynamic, 4>& G, const Eigen::VectorXd& h) {
  const int m = static_cast<int>(G.rows());
  double best = kInf;
  int idx[4];
  for (idx[0] = 0; idx[0] < m; ++idx[0])
    for (idx[1] = idx[0] + 1; idx[1] < m; ++idx[1])
      for (idx[2] = idx[1] + 1; idx[2] < m; ++idx[2])
        for (idx[3] = idx[2] + 1; idx[3] < m; ++idx[3]) {
          Eigen::Matrix4d M;
          Eigen::Vector4d rhs;
          for (int k = 0; k < 4; ++k) {
            M.row(k) = G.row(idx[k]);
            rhs[k] = h[idx[k]];
          }
          // independent rows: |det| not negligible against the product of the row norms (Hadamard)
          if (!(std::abs(M.determinant()) > 1e-12 * M.rowwise().norm().prod())) continue;
          const Eigen::Vector4d z = M.inverse() * rhs;
          if (!(z[3] > 0.0)) continue;
          if (((G * z - h).array() > 1e-9 * (1.0 + h.array().abs() + z.norm())).any()) continue;
          best = std::min(best, z[3]);
        }
  return best;
}

/// Options `o` out of range in `field`: is_valid() is false and validate() throws
/// std::invalid_argument whose message names the field.
template <class Options>
void expect_invalid_field(const Options& o, const char* field) {
  EXPECT_FALSE(o.is_valid()) << field;
  try {
    o.validate();
    ADD_FAILURE() << field << ": no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

}  // namespace diffcol::test
