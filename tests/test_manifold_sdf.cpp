// Tests of the SDF primitives (diffcol/manifold/sdf.hpp) against independent references.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>
#include <limits>
#include <stdexcept>

#include "diffcol/manifold/sdf.hpp"
#include "test_util.hpp"

using namespace diffcol;
using namespace diffcol::manifold;

namespace {

// Exact signed distance of an axis-aligned box with half extents h (independent closed form).
double box_sdf(const Eigen::Vector3d& x, const Eigen::Vector3d& h) {
  const Eigen::Vector3d q = x.cwiseAbs() - h;
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

Eigen::Vector3d fd_gradient(const SdfObject& s, const Eigen::Vector3d& x, double h = 1e-5) {
  Eigen::Vector3d g;
  for (int i = 0; i < 3; ++i) {
    Eigen::Vector3d xp = x, xm = x, xp2 = x, xm2 = x;
    xp[i] += h;
    xm[i] -= h;
    xp2[i] += 0.5 * h;
    xm2[i] -= 0.5 * h;
    const double d1 = (s.value(xp) - s.value(xm)) / (2.0 * h);
    const double d2 = (s.value(xp2) - s.value(xm2)) / h;
    g[i] = (4.0 * d2 - d1) / 3.0;  // Richardson
  }
  return g;
}

Pose random_pose(std::mt19937& rng, double spread) {
  std::uniform_real_distribution<double> U(-spread, spread);
  return test::make_pose(test::random_rotation(rng), Eigen::Vector3d(U(rng), U(rng), U(rng)));
}

SdfObject single(const SdfPrimitive& p, double t = 0.0) {
  SdfObject o(t);
  o.add(p);
  return o;
}

}  // namespace

TEST(ManifoldSdf, SuperquadricSphereIsExact) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> U(-3.0, 3.0);
  for (int trial = 0; trial < 200; ++trial) {
    const Pose X = random_pose(rng, 1.0);
    const double r = 0.3 + 0.01 * trial;
    const SdfObject s = single(Superquadric(Eigen::Vector3d::Constant(r), 1.0, 1.0, X));
    const Eigen::Vector3d x(U(rng), U(rng), U(rng));
    const double exact = (x - X.p).norm() - r;
    EXPECT_NEAR(s.value(x), exact, 1e-12 * std::max(1.0, std::abs(exact)));
    const Eigen::Vector3d n_exact = (x - X.p).normalized();
    EXPECT_LT((s.gradient(x) - n_exact).norm(), 1e-10);
    EXPECT_LT((s.normal(x) - n_exact).norm(), 1e-6);
  }
}

TEST(ManifoldSdf, SuperquadricBoxMatchesBoxDistanceNearFacesAndSigns) {
  // ε1 = ε2 = 0.1: a rounded box. Along the axes the radial distance is exact; the sign agrees
  // with the exact box SDF wherever the point is clearly inside or outside.
  const Eigen::Vector3d h(0.5, 0.3, 0.2);
  std::mt19937 rng(2);
  const Pose X = random_pose(rng, 0.5);
  const SdfObject s = single(Superquadric(h, 0.1, 0.1, X));
  for (int i = 0; i < 3; ++i)
    for (double d : {-0.05, 0.0, 0.03, 0.4}) {
      Eigen::Vector3d xl = Eigen::Vector3d::Zero();
      xl[i] = h[i] + d;
      EXPECT_NEAR(s.value(X * xl), d, 1e-12);
    }
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  int checked = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    const Eigen::Vector3d xl(U(rng), U(rng), U(rng));
    const double exact = box_sdf(xl, h);
    if (std::abs(exact) < 0.05) continue;  // the rounding of ε = 0.1 lives in this band
    ++checked;
    EXPECT_EQ(s.value(X * xl) > 0.0, exact > 0.0) << xl.transpose();
  }
  EXPECT_GT(checked, 1000);
  // Near face centers (within 1 mm, away from edges) the SQ distance is the box distance.
  for (int trial = 0; trial < 200; ++trial) {
    // The radial distance exceeds the perpendicular one by ‖x‖/z ≈ 1.04 here: ≤ 5e-5.
    Eigen::Vector3d xl(0.1 * h.x() * U(rng), 0.1 * h.y() * U(rng), h.z() + 1e-3 * U(rng));
    EXPECT_NEAR(s.value(X * xl), box_sdf(xl, h), 1e-4);
    // The normal there is the face normal.
    EXPECT_LT((s.normal(X * xl) - X.R.col(2)).norm(), 1e-3);
  }
}

TEST(ManifoldSdf, PolyhedronFromVerticesIsTheBox) {
  const Eigen::Vector3d h(0.4, 0.25, 0.6);
  Eigen::MatrixX3d V(8, 3);
  for (int i = 0; i < 8; ++i)
    V.row(i) << ((i & 1) ? h.x() : -h.x()), ((i & 2) ? h.y() : -h.y()), ((i & 4) ? h.z() : -h.z());
  std::mt19937 rng(3);
  const Pose X = random_pose(rng, 0.5);
  const ConvexPolyhedron P = ConvexPolyhedron::from_vertices(V, 0.0, X);
  EXPECT_EQ(P.num_planes(), 6);
  const SdfObject s = single(P);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int trial = 0; trial < 1000; ++trial) {
    const Eigen::Vector3d xl(U(rng), U(rng), U(rng));
    const double exact = box_sdf(xl, h);
    const double got = s.value(X * xl);
    // Eq. (4) equals the exact SDF inside and in the faces' slabs, and is a lower bound outside.
    const int out = (xl.cwiseAbs() - h).unaryExpr([](double q) { return q > 0 ? 1.0 : 0.0; }).sum();
    if (out <= 1) {
      EXPECT_NEAR(got, exact, 1e-12);
    } else {
      EXPECT_LE(got, exact + 1e-12);
    }
  }
  // Half-space constructor gives the same field; the smooth version (5) is ≥ the max and within
  // t·log N of it.
  Eigen::MatrixX3d N(6, 3);
  Eigen::VectorXd o(6);
  N << 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1;
  o << h.x(), h.x(), h.y(), h.y(), h.z(), h.z();
  const SdfObject s2 = single(ConvexPolyhedron::from_halfspaces(N, o, 0.0, X));
  const double t = 0.01;
  const SdfObject s3 = single(ConvexPolyhedron::from_halfspaces(2.0 * N, 2.0 * o, t, X));
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Vector3d x = X * Eigen::Vector3d(U(rng), U(rng), U(rng));
    EXPECT_NEAR(s2.value(x), s.value(x), 1e-12);
    EXPECT_GE(s3.value(x), s.value(x) - 1e-12);
    EXPECT_LE(s3.value(x), s.value(x) + t * std::log(6.0) + 1e-12);
  }
}

TEST(ManifoldSdf, PointCloudMatchesBruteForce) {
  // Points on a sphere of radius r with outward normals.
  std::mt19937 rng(4);
  const int n = 400;
  const double r = 0.7, sigma = 0.1;
  Eigen::MatrixX3d P(n, 3), N(n, 3);
  for (int i = 0; i < n; ++i) {
    const Eigen::Vector3d u = test::random_unit(rng);
    P.row(i) = r * u.transpose();
    N.row(i) = 3.0 * u.transpose();  // not unit: normalized by the constructor
  }
  const Pose X = random_pose(rng, 0.5);
  const SdfObject s = single(OrientedPointCloud(P, N, sigma, X));
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Vector3d xl = (0.5 + 0.4 * std::abs(U(rng))) * test::random_unit(rng);
    // Brute-force eq. (6) with plain exponentials (fine at these distances).
    double num = 0.0, den = 0.0;
    for (int i = 0; i < n; ++i) {
      const Eigen::Vector3d d = xl - P.row(i).transpose();
      const double B = std::exp(-d.squaredNorm() / (2.0 * sigma * sigma));
      num += B * N.row(i).normalized().dot(d);
      den += B;
    }
    EXPECT_NEAR(s.value(X * xl), num / den, 1e-10);
    // Close to the sphere the RBF SDF approximates ‖x‖ − r up to its curvature bias, which is of
    // order σ²/r (≈ 0.014 here): allow 3σ²/r.
    if (std::abs(xl.norm() - r) < 0.05) {
      EXPECT_NEAR(s.value(X * xl), xl.norm() - r, 3.0 * sigma * sigma / r);
    }
  }
  // Far away the shifted softmax stays finite (plain exponentials underflow to 0/0).
  EXPECT_TRUE(std::isfinite(s.value(X * Eigen::Vector3d(50.0, 0.0, 0.0))));
}

TEST(ManifoldSdf, GradientsMatchFiniteDifferencesAndDuals) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> U(-1.2, 1.2);
  Eigen::MatrixX3d V(6, 3);
  V << 0.5, 0, 0, -0.4, 0, 0, 0, 0.3, 0, 0, -0.5, 0, 0, 0, 0.6, 0, 0, -0.2;
  Eigen::MatrixX3d P(50, 3), N(50, 3);
  for (int i = 0; i < 50; ++i) {
    const Eigen::Vector3d u = test::random_unit(rng);
    P.row(i) = 0.5 * u.transpose();
    N.row(i) = u.transpose();
  }
  std::vector<SdfObject> objects;
  objects.push_back(single(Superquadric(Eigen::Vector3d(0.5, 0.3, 0.4), 0.3, 0.7, random_pose(rng, 0.3))));
  objects.push_back(single(Superquadric(Eigen::Vector3d(0.5, 0.5, 0.5), 0.1, 0.1, random_pose(rng, 0.3))));
  objects.push_back(single(ConvexPolyhedron::from_vertices(V, 0.05, random_pose(rng, 0.3))));
  objects.push_back(single(OrientedPointCloud(P, N, 0.15, random_pose(rng, 0.3))));
  SdfObject uni(0.05);
  uni.add(Superquadric(Eigen::Vector3d(0.5, 0.3, 0.4), 0.5, 0.5, random_pose(rng, 0.3)))
      .add(ConvexPolyhedron::from_vertices(V, 0.02, random_pose(rng, 0.3)))
      .subtract(Superquadric(Eigen::Vector3d(0.2, 0.2, 0.2), 1.0, 1.0, random_pose(rng, 0.3)));
  objects.push_back(uni);
  for (size_t o = 0; o < objects.size(); ++o) {
    const SdfObject& s = objects[o];
    double worst = 0.0;
    for (int trial = 0; trial < 300; ++trial) {
      const Eigen::Vector3d x(U(rng), U(rng), U(rng));
      const Eigen::Vector3d g = s.gradient(x);
      const Eigen::Vector3d gfd = fd_gradient(s, x);
      worst = std::max(worst, (g - gfd).norm() / std::max(1.0, g.norm()));
      // The dual-number path gives the same gradient.
      V3<Dual<3>> xd(Dual<3>::variable(x.x(), 0), Dual<3>::variable(x.y(), 1), Dual<3>::variable(x.z(), 2));
      const SdfPoint<Dual<3>> sd = s.evaluate(xd);
      EXPECT_LT((sd.value.d - g).norm(), 1e-9 * std::max(1.0, g.norm()));
      // Normal is unit (away from the superquadric centers).
      EXPECT_NEAR(s.normal(x).norm(), 1.0, 1e-5);
    }
    EXPECT_LT(worst, 1e-6) << "object " << o;
  }
}

TEST(ManifoldSdf, ExtremeExponentsStayFiniteAndSigned) {
  // ε2 = 0.01 makes |u|^(2/ε2) underflow near the z axis; with ε1 = 1.9 the log-domain
  // evaluation must still give finite values, gradients and normals with the sign of f − 1.
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (double e1 : {0.01, 0.1, 1.0, 1.9})
    for (double e2 : {0.01, 0.1, 1.0, 1.9}) {
      const Superquadric sq(Eigen::Vector3d(0.5, 0.4, 0.3), e1, e2);
      const SdfObject s = single(sq);
      for (int trial = 0; trial < 300; ++trial) {
        Eigen::Vector3d x(U(rng), U(rng), U(rng));
        if (trial % 3 == 0) x.head<2>() *= 1e-9;  // near the z axis
        const SdfPoint<double> p = s.evaluate(V3<double>::from(x));
        ASSERT_TRUE(std::isfinite(p.value));
        ASSERT_TRUE(values(p.gradient).allFinite());
        ASSERT_TRUE(values(p.normal).allFinite());
        const double f = sq.inside_outside(x);
        if (std::abs(f - 1.0) > 1e-6 && std::isfinite(f)) {
          EXPECT_EQ(p.value > 0.0, f > 1.0) << x.transpose();
        }
      }
    }
}

// The superquadric gradient forms A^(q−1)|u_x|^(p2−1) from the shares of A (divisions), and in
// the log domain where the smaller share underflows (sharp ε2, one coordinate much smaller than
// the other): both branches against finite differences of the value, which uses neither.
TEST(ManifoldSdf, SuperquadricGradientMatchesFiniteDifferencesAtSharpExponents) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> U(-1.0, 1.0), L(-4.0, -1.0);
  int small_share = 0;
  for (double e1 : {0.05, 0.3, 1.0, 1.9})
    for (double e2 : {0.02, 0.1, 1.0, 1.9}) {
      const Superquadric sq(Eigen::Vector3d(0.5, 0.4, 0.3), e1, e2);
      const SdfObject s = single(sq);
      double worst = 0.0;
      for (int trial = 0; trial < 200; ++trial) {
        Eigen::Vector3d x(U(rng), U(rng), U(rng));
        if (trial % 2 == 0) {  // |y/b| / |x/a| = 10^(−1..−4): (ratio)^(2/ε2) underflows for sharp ε2
          const double ratio = std::pow(10.0, L(rng));
          x.y() = std::copysign(0.4 * ratio * std::abs(x.x()) / 0.5, x.y());
          if (trial % 4 == 0) std::swap(x.x(), x.y());
          small_share += std::pow(ratio, 2.0 / e2) < 1e-280;
        }
        if (std::min(std::abs(x.x()), std::abs(x.y())) < 1e-3 || std::abs(x.z()) < 1e-3) continue;
        const Eigen::Vector3d g = s.gradient(x);
        ASSERT_TRUE(g.allFinite());
        const Eigen::Vector3d gfd = fd_gradient(s, x, 1e-4 * std::min(std::abs(x.x()), std::abs(x.y())));  // stencil off the planes
        worst = std::max(worst, (g - gfd).norm() / std::max(1.0, g.norm()));
      }
      EXPECT_LT(worst, 1e-6) << "eps1 " << e1 << ", eps2 " << e2;
    }
  EXPECT_GT(small_share, 50);  // the log-domain branch was exercised
}

TEST(ManifoldSdf, UnionAndSubtractionHardLimits) {
  const Superquadric a(Eigen::Vector3d::Constant(0.5), 1.0, 1.0, test::make_pose(Mat3::Identity(), Vec3(-0.3, 0, 0)));
  const Superquadric b(Eigen::Vector3d::Constant(0.4), 1.0, 1.0, test::make_pose(Mat3::Identity(), Vec3(0.4, 0, 0)));
  SdfObject u(0.0), d(0.0);
  u.add(a).add(b);
  d.add(a).subtract(b);
  const SdfObject sa = single(a), sb = single(b);
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int trial = 0; trial < 300; ++trial) {
    const Eigen::Vector3d x(U(rng), U(rng), U(rng));
    EXPECT_DOUBLE_EQ(u.value(x), std::min(sa.value(x), sb.value(x)));
    EXPECT_DOUBLE_EQ(d.value(x), std::max(sa.value(x), -sb.value(x)));
  }
  // Smooth union lies within t·log 2 below the min.
  SdfObject us(0.02);
  us.add(a).add(b);
  for (int trial = 0; trial < 300; ++trial) {
    const Eigen::Vector3d x(U(rng), U(rng), U(rng));
    const double m = std::min(sa.value(x), sb.value(x));
    EXPECT_LE(us.value(x), m + 1e-14);
    EXPECT_GE(us.value(x), m - 0.02 * std::log(2.0) - 1e-14);
  }
}

// Far primitives are skipped in the union (bounding-sphere culling): the value, gradient and
// normal equal a brute-force smooth union −t·log Σ exp(−φ_l/t) over every primitive.
TEST(ManifoldSdf, UnionCullingMatchesBruteForceUnion) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> U(-1.0, 1.0), S(0.05, 0.4), E(0.2, 1.5);
  for (const double t : {0.0, 0.005, 0.05}) {
    std::vector<Superquadric> prims;
    SdfObject obj(t);
    for (int l = 0; l < 18; ++l) {
      prims.emplace_back(Eigen::Vector3d(S(rng), S(rng), S(rng)), E(rng), E(rng), random_pose(rng, 1.5));
      obj.add(prims.back());
    }
    for (int trial = 0; trial < 400; ++trial) {
      const Eigen::Vector3d x = 2.5 * Eigen::Vector3d(U(rng), U(rng), U(rng));
      // brute force over all 18 primitives
      double m = std::numeric_limits<double>::infinity();
      std::vector<double> v(prims.size());
      std::vector<Eigen::Vector3d> g(prims.size());
      for (size_t l = 0; l < prims.size(); ++l) {
        const SdfObject one = single(prims[l]);
        v[l] = one.value(x);
        g[l] = one.gradient(x);
        m = std::min(m, v[l]);
      }
      double ref = m;
      Eigen::Vector3d gref = Eigen::Vector3d::Zero();
      if (t > 0.0) {
        double sw = 0.0;
        for (size_t l = 0; l < prims.size(); ++l) {
          const double w = std::exp(-(v[l] - m) / t);
          sw += w;
          gref += w * g[l];
        }
        ref = m - t * std::log(sw);
        gref /= sw;
      } else {
        for (size_t l = 0; l < prims.size(); ++l)
          if (v[l] == m) gref = g[l];
      }
      EXPECT_NEAR(obj.value(x), ref, 1e-12 * (1.0 + std::abs(ref))) << "t = " << t;
      EXPECT_LE((obj.gradient(x) - gref).norm(), 1e-10 * (1.0 + gref.norm())) << "t = " << t;
    }
  }
}

TEST(ManifoldSdf, InvalidInputIsRejected) {
  const double nan = test::kNaN;
  EXPECT_THROW(Superquadric(Eigen::Vector3d(0.0, 1.0, 1.0), 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(Superquadric(Eigen::Vector3d(-1.0, 1.0, 1.0), 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(Superquadric(Eigen::Vector3d(nan, 1.0, 1.0), 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(Superquadric(Eigen::Vector3d(1.0, 1.0, 1.0), 0.0, 1.0), std::invalid_argument);
  EXPECT_THROW(Superquadric(Eigen::Vector3d(1.0, 1.0, 1.0), 1.0, 2.5), std::invalid_argument);
  Pose bad;
  bad.R(0, 0) = 2.0;
  EXPECT_THROW(Superquadric(Eigen::Vector3d(1.0, 1.0, 1.0), 1.0, 1.0, bad), std::invalid_argument);
  Eigen::MatrixX3d N(4, 3);
  Eigen::VectorXd o(4);
  N << 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0;  // a prism, unbounded along z
  o << 1, 1, 1, 1;
  EXPECT_THROW(ConvexPolyhedron::from_halfspaces(N, o, 0.0), std::invalid_argument);
  N << 1, 0, 0, -1, 0, 0, 2, 0, 0, -3, 0, 0;  // every normal along ±x (rank 1)
  EXPECT_THROW(ConvexPolyhedron::from_halfspaces(N, o, 0.0), std::invalid_argument);
  N << 1, 1, 1, -1, 0, 0, 0, -1, 0, 0, 0, -1;  // a tetrahedron
  EXPECT_NO_THROW(ConvexPolyhedron::from_halfspaces(N, o, 0.0));
  o << 1, 1, 1, -0.5;  // origin outside a half-space: rejected (covers empty sets)
  EXPECT_THROW(ConvexPolyhedron::from_halfspaces(N, o, 0.0), std::invalid_argument);
  o << 1, 1, 1, 1;
  EXPECT_THROW(ConvexPolyhedron::from_halfspaces(N, o, -0.1), std::invalid_argument);
  EXPECT_THROW(ConvexPolyhedron::from_halfspaces(N.topRows(3), o.head(3), 0.0), std::invalid_argument);
  Eigen::MatrixX3d flat(4, 3);
  flat << 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0;
  EXPECT_THROW(ConvexPolyhedron::from_vertices(flat, 0.0), std::invalid_argument);
  EXPECT_THROW(ConvexPolyhedron::from_vertices(Eigen::MatrixX3d(0, 3), 0.0), std::invalid_argument);
  Eigen::MatrixX3d P = Eigen::MatrixX3d::Random(5, 3), Nn = Eigen::MatrixX3d::Random(5, 3);
  EXPECT_THROW(OrientedPointCloud(P, Nn, 0.0), std::invalid_argument);
  EXPECT_THROW(OrientedPointCloud(P, Nn.topRows(4), 0.1), std::invalid_argument);
  EXPECT_THROW(OrientedPointCloud(Eigen::MatrixX3d(0, 3), Eigen::MatrixX3d(0, 3), 0.1), std::invalid_argument);
  Nn.row(2).setZero();
  EXPECT_THROW(OrientedPointCloud(P, Nn, 0.1), std::invalid_argument);
  EXPECT_THROW(SdfObject(-1.0), std::invalid_argument);
}
