// Mass properties (sim/rigid_body.hpp) against independent references: textbook closed forms,
// Dirichlet integrals of superellipsoids, prisms and pyramids of many sides extrapolated in the
// number of sides, Steiner's formula, and the parallel-axis theorem.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "diffcol/sim/rigid_body.hpp"

namespace diffcol::sim {
namespace {

constexpr double kPi = std::numbers::pi;

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }
double rel(const Mat3& a, const Mat3& b) { return (a - b).norm() / b.norm(); }

Mat3 diag(double a, double b, double c) { return Vec3(a, b, c).asDiagonal(); }

TEST(MassProperties, BoxPolytopeMatchesClosedForm) {
  const double hx = 0.3, hy = 0.7, hz = 1.1, rho = 2.5;
  const MassProperties m = mass_properties(dcol::Polytope::box(hx, hy, hz), rho);
  const double M = rho * 8 * hx * hy * hz;
  EXPECT_LT(rel(m.mass, M), 1e-13);
  EXPECT_LT(m.com.norm(), 1e-14);
  EXPECT_LT(rel(m.inertia, diag(M / 3 * (hy * hy + hz * hz), M / 3 * (hx * hx + hz * hz), M / 3 * (hx * hx + hy * hy))),
            1e-13);
}

TEST(MassProperties, OffsetPolytopeMovesTheCentreOfMass) {
  const Pose X = Pose::from_quaternion(Vec3(0.1, -0.2, 0.3), 0.9, 0.1, -0.3, 0.2);
  const MassProperties a = mass_properties(dcol::Polytope::box(0.3, 0.5, 0.2), 1.0);
  const MassProperties b = mass_properties(dcol::Polytope::box(0.3, 0.5, 0.2, X), 1.0);
  EXPECT_LT(rel(b.mass, a.mass), 1e-13);
  EXPECT_LT((b.com - X.p).norm(), 1e-13);
  EXPECT_LT(rel(b.inertia, Mat3(X.R * a.inertia * X.R.transpose())), 1e-13);
}

TEST(MassProperties, SphereAndEllipsoidClosedFormsAndQuadrature) {
  const double R = 0.8, rho = 3.0;
  const double M = rho * 4.0 / 3.0 * kPi * R * R * R;
  for (const MassProperties& m : {mass_properties(dcol::Sphere(R), rho), mass_properties(diffcol::Sphere(R), rho),
                                  radial_mass_properties(diffcol::Sphere(R), rho)}) {
    EXPECT_LT(rel(m.mass, M), 1e-12);
    EXPECT_LT(rel(m.inertia, diag(0.4 * M * R * R, 0.4 * M * R * R, 0.4 * M * R * R)), 1e-12);
  }
  const double a = 0.4, b = 0.9, c = 1.3;
  const double Me = rho * 4.0 / 3.0 * kPi * a * b * c;
  const Mat3 Ie = diag(Me / 5 * (b * b + c * c), Me / 5 * (a * a + c * c), Me / 5 * (a * a + b * b));
  for (const MassProperties& m :
       {mass_properties(dcol::Ellipsoid::from_semi_axes(a, b, c), rho), mass_properties(Superellipsoid(a, b, c, 1), rho),
        radial_mass_properties(Superellipsoid(a, b, c, 1), rho)}) {
    EXPECT_LT(rel(m.mass, Me), 1e-12);
    EXPECT_LT(m.com.norm(), 1e-12);
    EXPECT_LT(rel(m.inertia, Ie), 1e-12);
  }
}

// |x/a|^p + |y/b|^p + |z/c|^p ≤ 1 (ε = 0): Dirichlet's integrals, p = 2n.
TEST(MassProperties, SuperellipsoidQuadratureMatchesDirichletIntegrals) {
  for (int n : {2, 4}) {
    const double p = 2.0 * n, a = 0.5, b = 0.8, c = 1.2;
    const double g1 = std::tgamma(1.0 / p), g3 = std::tgamma(3.0 / p);
    const double unit_volume = 8 * g1 * g1 * g1 / (p * p * p * std::tgamma(1 + 3 / p));
    const double unit_x2 = 8 * g3 * g1 * g1 / (p * p * p * std::tgamma(1 + 5 / p));
    const double M = unit_volume * a * b * c;
    const double Sx = unit_x2 * a * a * a * b * c, Sy = unit_x2 * a * b * b * b * c, Sz = unit_x2 * a * b * c * c * c;
    MassIntegrationOptions fine;
    fine.polar_points = 128;
    fine.azimuth_points = 256;
    const MassProperties m = mass_properties(Superellipsoid(a, b, c, n, 0.0), 1.0, fine);
    EXPECT_LT(rel(m.mass, M), 1e-6) << n;
    EXPECT_LT(m.com.norm(), 1e-12) << n;
    EXPECT_LT(rel(m.inertia, diag(Sy + Sz, Sx + Sz, Sx + Sy)), 1e-6) << n;
  }
}

// A prism (cylinder) or pyramid (cone) of k sides converges as c/k² to the round solid: the
// Richardson combination (4·P(2k) − P(k))/3 of two polytopes removes that term.
template <class Make>
MassProperties extrapolated(const Make& make, int k) {
  const MassProperties a = mass_properties(make(k), 1.0), b = mass_properties(make(2 * k), 1.0);
  MassProperties out;
  out.mass = (4 * b.mass - a.mass) / 3;
  out.inertia = (4 * b.inertia - a.inertia) / 3;
  return out;
}

TEST(MassProperties, CylinderAndConeAgainstPolytopesOfManySides) {
  const double R = 0.4, L = 1.5;
  const auto prism = [&](int k) {
    std::vector<Vec3> pts;
    for (int i = 0; i < k; ++i) {
      const double t = 2 * kPi * (i + 0.5) / k;
      for (double x : {-L / 2, L / 2}) pts.emplace_back(x, R * std::cos(t), R * std::sin(t));
    }
    return dcol::Polytope::convex_hull(pts);
  };
  const MassProperties cyl = mass_properties(dcol::Cylinder(R, L), 1.0);
  const MassProperties poly = extrapolated(prism, 400);
  EXPECT_LT(rel(cyl.mass, kPi * R * R * L), 1e-14);
  EXPECT_LT(rel(poly.mass, cyl.mass), 1e-8);
  EXPECT_LT(rel(poly.inertia, cyl.inertia), 1e-8);

  const double H = 1.2, beta = 0.4, rb = H * std::tan(beta);
  const auto pyramid = [&](int k) {
    std::vector<Vec3> pts{Vec3(-0.75 * H, 0, 0)};
    for (int i = 0; i < k; ++i) {
      const double t = 2 * kPi * (i + 0.5) / k;
      pts.emplace_back(0.25 * H, rb * std::cos(t), rb * std::sin(t));
    }
    return dcol::Polytope::convex_hull(pts);
  };
  const MassProperties cone = mass_properties(dcol::Cone(H, beta), 1.0);
  const MassProperties pyr = extrapolated(pyramid, 400);
  EXPECT_LT(rel(pyr.mass, cone.mass), 1e-8);
  EXPECT_LT(rel(pyr.inertia, cone.inertia), 1e-8);
  EXPECT_LT(cone.com.norm(), 1e-14);
}

TEST(MassProperties, CapsuleAndPaddedPolygonsAgainstTheirBoundaries) {
  // The capsule's closed form against the radial quadrature of its distance function.
  const double R = 0.3, L = 1.0;
  const MassProperties cap = mass_properties(dcol::Capsule(R, L), 1.0);
  EXPECT_LT(rel(cap.mass, kPi * R * R * L + 4.0 / 3.0 * kPi * R * R * R), 1e-14);
  // a QP capsule along an arbitrary axis: the same solid rotated
  const Vec3 axis = Vec3(0.3, -0.5, 0.8).normalized();
  const Vec3 mid(0.1, 0.2, -0.1);
  const MassProperties qcap =
      mass_properties(qp::Capsule::from_end_points(mid + 0.5 * L * axis, mid - 0.5 * L * axis, R), 1.0);
  const Mat3 Rot = Eigen::Quaterniond::FromTwoVectors(Vec3::UnitX(), axis).toRotationMatrix();
  EXPECT_LT(rel(qcap.mass, cap.mass), 1e-14);
  EXPECT_LT((qcap.com - mid).norm(), 1e-14);
  EXPECT_LT(rel(qcap.inertia, Mat3(Rot * cap.inertia * Rot.transpose())), 1e-13);
  // a degenerate padded polygon, a thin rectangle's limit, approaches the capsule: its
  // quadrature against the closed form of the capsule it almost is
  const MassProperties thin = mass_properties(dcol::PaddedPolygon::rectangle(0.5 * L, 1e-6, R), 1.0);
  EXPECT_LT(rel(thin.mass, cap.mass), 1e-4);
  EXPECT_LT(rel(thin.inertia, cap.inertia), 1e-4);
  // Steiner's formula for a padded rectangle
  const double hx = 0.4, hy = 0.25, r = 0.1;
  const double steiner = 2 * r * (4 * hx * hy) + kPi * r * r / 2 * (4 * (hx + hy)) + 4.0 / 3.0 * kPi * r * r * r;
  EXPECT_LT(rel(mass_properties(dcol::PaddedPolygon::rectangle(hx, hy, r), 1.0).mass, steiner), 1e-4);
  EXPECT_LT(rel(mass_properties(qp::PaddedPolygon::rectangle(hx, hy, r), 1.0).mass, steiner), 1e-4);
}

TEST(MassProperties, CombineAndTransformFollowTheParallelAxisTheorem) {
  // two halves of a box, each placed by transform(), combine to the whole box
  const double hx = 0.5, hy = 0.3, hz = 0.2;
  const MassProperties half = mass_properties(dcol::Polytope::box(hx / 2, hy, hz), 1.0);
  Pose left, right;
  left.p = Vec3(-hx / 2, 0, 0);
  right.p = Vec3(hx / 2, 0, 0);
  const MassProperties whole = combine({transform(half, left), transform(half, right)});
  const MassProperties ref = mass_properties(dcol::Polytope::box(hx, hy, hz), 1.0);
  EXPECT_LT(rel(whole.mass, ref.mass), 1e-13);
  EXPECT_LT(whole.com.norm(), 1e-14);
  EXPECT_LT(rel(whole.inertia, ref.inertia), 1e-13);
  EXPECT_THROW(combine({}), std::invalid_argument);
}

TEST(MassProperties, BadInputIsRefused) {
  EXPECT_THROW(mass_properties(dcol::Sphere(1.0), 0.0), std::invalid_argument);
  EXPECT_THROW(mass_properties(dcol::Sphere(1.0), -1.0), std::invalid_argument);
  EXPECT_THROW(mass_properties(dcol::Sphere(1.0), std::nan("")), std::invalid_argument);
  EXPECT_THROW(mass_properties(diffcol::Sphere(1.0), INFINITY), std::invalid_argument);
  MassIntegrationOptions bad;
  bad.polar_points = 2;
  EXPECT_THROW(mass_properties(Superellipsoid(1.0, 1.0, 1.0, 2), 1.0, bad), std::invalid_argument);
}

TEST(MassProperties, KineticEnergy) {
  BodyState s;
  s.v_W = Vec3(1, 2, 3);
  s.omega_B = Vec3(0.5, 0, -1);
  EXPECT_DOUBLE_EQ(kinetic_energy(2.0, diag(1, 2, 3), s), 0.5 * 2 * 14 + 0.5 * (0.25 + 3));
}

}  // namespace
}  // namespace diffcol::sim
