// Smoothness of the two-sphere SCM force profile (seed Fig. 1 / Fig. 5; the comparison with
// MuJoCo lives in examples/ssdf_sphere_profile.cpp): the finite-difference second derivative of
// the force along the sweep stays bounded as the step shrinks, and the same check rejects a
// non-smooth profile k·max(0, δ).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <vector>

#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/scm.hpp"

namespace {

using diffcol::Pose;
using diffcol::Vec3;
using diffcol::Vec6;
namespace ssdf = diffcol::ssdf;

constexpr double kBig = 0.1, kSmall = 0.05;  // radii (m)
constexpr double kBegin = 0.11, kEnd = 0.19; // centre distances of the sweep (m); contact onset 0.15

/// max_j |F(y_{j+1}) − 2F(y_j) + F(y_{j−1})| / h² on the grid y_j = kBegin + j·h over [kBegin, kEnd].
double max_second_difference(const std::function<double(double)>& F, double h) {
  const int n = static_cast<int>(std::lround((kEnd - kBegin) / h));
  std::vector<double> f(static_cast<size_t>(n + 1));
  for (int j = 0; j <= n; ++j) f[static_cast<size_t>(j)] = F(kBegin + j * h);
  double worst = 0.0;
  for (int j = 1; j < n; ++j)
    worst = std::max(worst, std::abs(f[static_cast<size_t>(j + 1)] - 2 * f[static_cast<size_t>(j)] +
                                     f[static_cast<size_t>(j - 1)]) / (h * h));
  return worst;
}

/// The bound: the second differences at h/4 and h/2 exceed the one at h by at most 25%. A C²
/// profile converges (ratio → 1); a kink of slope jump s gives between s/(2h) and s/h on a grid
/// of step h, so refining by 4 multiplies the maximum by at least 2.
struct Bounded {
  double d2_h = 0, d2_h2 = 0, d2_h4 = 0;
  bool ok() const { return d2_h2 <= 1.25 * d2_h && d2_h4 <= 1.25 * d2_h; }
};

Bounded check(const std::function<double(double)>& F, double h) {
  return {max_second_difference(F, h), max_second_difference(F, h / 2), max_second_difference(F, h / 4)};
}

/// SCM profile: y force on the small sphere (SSDF–SSDF contact, eq. (23)), big sphere fixed.
struct ScmSpheres {
  std::optional<ssdf::OrientedPointCloud> big, small;
  ssdf::ScmParameters params;
  ssdf::SsdfWorkspace ws;
  ScmSpheres() {
    ssdf::AopcOptions o;
    o.num_points = 200;
    big = ssdf::make_aopc(diffcol::mesh::make_icosphere(kBig, 3), o);
    o.num_points = 80;
    small = ssdf::make_aopc(diffcol::mesh::make_icosphere(kSmall, 3), o);
    params.stiffness = 2500.0;
    params.eps1 = 1e-4;
    params.eps2 = 5e-3;
    params.eps3 = 5e-3;
  }
  double force(double y) {
    Pose X2 = Pose::identity();
    X2.p = Vec3(0.0, y, 0.0);
    return ssdf::pair_contact(*big, Pose::identity(), Vec6::Zero(), *small, X2, Vec6::Zero(), params, ws, false)
        .wrench_2(4);
  }
};

TEST(SsdfProfile, ScmSecondDerivativeStaysBounded) {
  ScmSpheres s;
  const double h = 2e-3;  // 2, 1, 0.5 mm: below the smoothing length eps3 = 5 mm
  const Bounded b = check([&](double y) { return s.force(y); }, h);
  std::printf("  SCM: max |F''| = %.4g / %.4g / %.4g N/m^2 at h = %.1f / %.1f / %.2f mm\n", b.d2_h, b.d2_h2, b.d2_h4,
              h * 1e3, h * 5e2, h * 2.5e2);
  EXPECT_TRUE(b.ok());
  // The profile is a real contact force: repulsive in penetration, decaying when apart.
  EXPECT_GT(s.force(0.13), 10.0);
  EXPECT_LT(std::abs(s.force(0.19)), 1e-2 * s.force(0.13));
}

TEST(SsdfProfile, CheckRejectsAKinkedProfile) {
  // A penalty force k·max(0, δ)^1 (δ = penetration) with the same stiffness: continuous but with
  // a slope jump at contact onset, as MuJoCo's profile.
  const double k = 2500.0;
  const double h = 2e-3;
  auto kinked = [&](double y) { return k * std::max(0.0, kBig + kSmall - y); };
  const Bounded b = check(kinked, h);
  std::printf("  k*max(0,d): max |F''| = %.4g / %.4g / %.4g N/m^2\n", b.d2_h, b.d2_h2, b.d2_h4);
  EXPECT_FALSE(b.ok());
  // ... wherever the kink falls on the grid.
  for (double shift : {0.3e-3, 0.7e-3, 1.1e-3}) {
    auto moved = [&](double y) { return kinked(y + shift); };
    EXPECT_FALSE(check(moved, h).ok()) << "shift " << shift;
  }
  // A smooth profile of the same shape (softplus, temperature 5 mm) passes.
  auto smooth = [&](double y) {
    const double t = 5e-3, d = kBig + kSmall - y;
    return k * t * std::log1p(std::exp(d / t));
  };
  EXPECT_TRUE(check(smooth, h).ok());
}

}  // namespace
