// Tests of the SE(3) helpers in include/diffcol/math/se3.hpp.
//
// References are independent of the code under test: Eigen's AngleAxis / Quaternion, and a
// 4×4 matrix exponential by scaling-and-squaring of the Taylor series.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "diffcol/math/lu6.hpp"
#include "diffcol/math/se3.hpp"

#include "test_util.hpp"

namespace {

using namespace diffcol::test;

using diffcol::Mat3;
using diffcol::Mat6;
using diffcol::Pose;
using diffcol::Vec3;
using diffcol::Vec6;
using Mat4 = Eigen::Matrix4d;

using diffcol::test::kPi;


Pose random_se3_pose(std::mt19937& rng, double pos_scale = 3.0) {
  const Mat3 R = random_rotation(rng);
  std::normal_distribution<double> N(0.0, 1.0);
  const double x = N(rng), y = N(rng), z = N(rng);  // in this order (Vec3's arguments are unsequenced)
  return make_pose(R, pos_scale * Vec3(x, y, z));
}

// The 4×4 twist matrix ξ^ for ξ = [ω; v].
Mat4 hat(const Vec6& xi) {
  Mat4 M = Mat4::Zero();
  const Vec3 w = xi.head<3>();
  M(0, 1) = -w.z();
  M(0, 2) = w.y();
  M(1, 0) = w.z();
  M(1, 2) = -w.x();
  M(2, 0) = -w.y();
  M(2, 1) = w.x();
  M.block<3, 1>(0, 3) = xi.tail<3>();
  return M;
}

// Independent matrix exponential: scaling and squaring of a 30-term Taylor series.
Mat4 expm(const Mat4& M) {
  const double nrm = M.cwiseAbs().rowwise().sum().maxCoeff();
  int s = 0;
  while (nrm / std::ldexp(1.0, s) > 0.25) ++s;
  const Mat4 A = M / std::ldexp(1.0, s);
  Mat4 E = Mat4::Identity(), term = Mat4::Identity();
  for (int k = 1; k <= 30; ++k) {
    term = term * A / double(k);
    E += term;
  }
  for (int i = 0; i < s; ++i) E = E * E;
  return E;
}

Mat4 to_matrix(const Pose& g) {
  Mat4 T = Mat4::Identity();
  T.topLeftCorner<3, 3>() = g.R;
  T.block<3, 1>(0, 3) = g.p;
  return T;
}

// Rotation angles exercising the small-angle branches and the neighbourhood of π.
const std::vector<double> kAngles = {0.0,  1e-14, 1e-10, 1e-7, 5e-5, 1e-4, 1e-3, 0.1,
                                     0.7,  1.5,   2.5,   3.0,  kPi - 1e-3, kPi - 1e-6, kPi - 1e-9};

// ------------------------------------------------------------------ so(3)

TEST(So3, ExpMatchesAngleAxisAndIsARotation) {
  std::mt19937 rng(11);
  for (double th : kAngles) {
    for (int rep = 0; rep < 20; ++rep) {
      const Vec3 axis = random_unit(rng);
      const Mat3 R = diffcol::so3_exp(th * axis);
      const Mat3 Rref = Eigen::AngleAxisd(th, axis).toRotationMatrix();
      EXPECT_LT((R - Rref).cwiseAbs().maxCoeff(), 1e-14) << "angle " << th;
      EXPECT_LT((R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff(), 1e-14);
      EXPECT_NEAR(R.determinant(), 1.0, 1e-14);
    }
  }
}

TEST(So3, LogExpRoundTrip) {
  std::mt19937 rng(12);
  for (double th : kAngles) {
    for (int rep = 0; rep < 20; ++rep) {
      const Vec3 w = th * random_unit(rng);
      const Vec3 w2 = diffcol::so3_log(diffcol::so3_exp(w));
      EXPECT_LT((w2 - w).norm(), 1e-12 * th + 1e-16) << "angle " << th;
      EXPECT_LE(w2.norm(), kPi + 1e-12);
    }
  }
}

TEST(So3, ExpLogRoundTripOnRandomRotations) {
  std::mt19937 rng(13);
  std::vector<Mat3> rotations;
  for (int i = 0; i < 200; ++i) rotations.push_back(random_se3_pose(rng).R);
  // rotations by exactly π about coordinate and random axes
  rotations.push_back(Eigen::Vector3d(1, -1, -1).asDiagonal());
  rotations.push_back(Eigen::Vector3d(-1, 1, -1).asDiagonal());
  rotations.push_back(Eigen::Vector3d(-1, -1, 1).asDiagonal());
  for (int i = 0; i < 10; ++i) rotations.push_back(Eigen::AngleAxisd(kPi, random_unit(rng)).toRotationMatrix());
  for (const Mat3& R : rotations) {
    const Vec3 w = diffcol::so3_log(R);
    EXPECT_LE(w.norm(), kPi + 1e-12);
    EXPECT_LT((diffcol::so3_exp(w) - R).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(So3, ExpDerivativeAlongARayMatchesFiniteDifferences) {
  // d/dt exp(t ω^) = ω^ exp(t ω^)
  std::mt19937 rng(14);
  const double h = 1e-6;
  for (int rep = 0; rep < 50; ++rep) {
    const Vec3 w = (0.3 + 2.5 * rep / 50.0) * random_unit(rng);
    for (double t : {1e-5, 0.3, 1.0}) {
      const Mat3 fd = (diffcol::so3_exp((t + h) * w) - diffcol::so3_exp((t - h) * w)) / (2.0 * h);
      const Mat3 an = diffcol::skew(w) * diffcol::so3_exp(t * w);
      EXPECT_LT((fd - an).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + w.norm())) << "t " << t;
    }
  }
}

TEST(So3, SkewIsTheCrossProduct) {
  std::mt19937 rng(15);
  std::normal_distribution<double> N(0.0, 1.0);
  for (int i = 0; i < 20; ++i) {
    const Vec3 a(N(rng), N(rng), N(rng)), b(N(rng), N(rng), N(rng));
    EXPECT_LT((diffcol::skew(a) * b - a.cross(b)).norm(), 1e-15 * (1.0 + a.norm() * b.norm()));
  }
}

// The smallest rotation taking a to b: a rotation, R a ∥ b, angle acos(â·b̂) (through so3_log) about
// a × b; opposite and nearly opposite directions included; bad input throws.
TEST(So3, RotationBetweenIsTheSmallestRotation) {
  std::mt19937 rng(16);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::vector<std::pair<Vec3, Vec3>> cases;
  for (int i = 0; i < 200; ++i) cases.push_back({random_unit(rng) * 3.0, random_unit(rng) * 0.2});
  for (double e : {1e-3, 1e-6, 1e-9}) {  // nearly parallel and nearly opposite
    const Vec3 a = random_unit(rng), t = a.unitOrthogonal();
    cases.push_back({a, a + e * t});
    cases.push_back({a, -a + e * t});
  }
  for (const auto& [a, b] : cases) {
    const Mat3 R = diffcol::rotation_between(a, b);
    const Vec3 u = a.normalized(), w = b.normalized();
    EXPECT_LT((R.transpose() * R - Mat3::Identity()).norm(), 1e-14);
    EXPECT_NEAR(R.determinant(), 1.0, 1e-14);
    EXPECT_LT((R * u - w).norm(), 1e-15);
    const Vec3 w_log = diffcol::so3_log(R);
    EXPECT_NEAR(w_log.norm(), std::acos(std::clamp(u.dot(w), -1.0, 1.0)), 1e-7);
    if (u.cross(w).norm() > 1e-6) {
      EXPECT_LT(w_log.normalized().cross(u.cross(w).normalized()).norm(), 1e-9);
    }
  }
  for (const Vec3& a : {Vec3(Vec3::UnitZ()), Vec3(0.3, -2.0, 0.7)}) {  // exactly opposite: a half-turn about a ⟂ axis
    const Mat3 R = diffcol::rotation_between(a, -a);
    EXPECT_LT((R * a + a).norm(), 1e-15 * a.norm());
    EXPECT_NEAR(diffcol::so3_log(R).norm(), M_PI, 1e-12);
    EXPECT_LT((R.transpose() * R - Mat3::Identity()).norm(), 1e-15);
  }
  EXPECT_LT((diffcol::rotation_between(Vec3(1, 2, 3), Vec3(2, 4, 6)) - Mat3::Identity()).norm(), 1e-15);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(diffcol::rotation_between(Vec3::Zero(), Vec3::UnitX()), std::invalid_argument);
  EXPECT_THROW(diffcol::rotation_between(Vec3::UnitX(), Vec3(nan, 0, 0)), std::invalid_argument);
  EXPECT_THROW(diffcol::rotation_between(Vec3(INFINITY, 0, 0), Vec3::UnitX()), std::invalid_argument);
  EXPECT_LT((diffcol::rotation_between(Vec3(1e300, 0, 0), Vec3(0, 1e-300, 0)) * Vec3::UnitX() - Vec3::UnitY()).norm(), 1e-15);
}

// ------------------------------------------------------------------ se(3)

Vec6 random_twist(std::mt19937& rng, double angle) {
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  Vec6 xi;
  xi.head<3>() = angle * random_unit(rng);
  const double vscale = std::pow(10.0, 2.0 * U(rng));  // 0.01 .. 100
  xi.tail<3>() = vscale * random_unit(rng);
  return xi;
}

TEST(Se3, ExpMatchesMatrixExponential) {
  std::mt19937 rng(21);
  for (double th : kAngles) {
    for (int rep = 0; rep < 10; ++rep) {
      const Vec6 xi = random_twist(rng, th);
      const Mat4 ref = expm(hat(xi));
      const Mat4 got = to_matrix(diffcol::se3_exp(xi));
      const double scale = 1.0 + xi.tail<3>().norm();
      EXPECT_LT((got - ref).cwiseAbs().maxCoeff(), 1e-12 * scale) << "angle " << th;
    }
  }
}

TEST(Se3, LogExpRoundTrip) {
  std::mt19937 rng(22);
  for (double th : kAngles) {
    for (int rep = 0; rep < 20; ++rep) {
      const Vec6 xi = random_twist(rng, th);
      const Vec6 xi2 = diffcol::se3_log(diffcol::se3_exp(xi));
      const double vn = xi.tail<3>().norm();
      EXPECT_LT((xi2.head<3>() - xi.head<3>()).norm(), 1e-12 * th + 1e-16) << "angle " << th;
      // an accurate V^{-1} keeps ~1e-15 relative accuracy at every angle (its coefficients
      // are smooth in θ on [0, π)); near π the condition of V^{-1} grows like 1/(π − θ)
      const double cond = th > 3.0 ? 1.0 / (kPi - th) : 1.0;
      EXPECT_LT((xi2.tail<3>() - xi.tail<3>()).norm(), 1e-11 * cond * (1.0 + vn)) << "angle " << th;
    }
  }
}

TEST(Se3, ExpLogRoundTripOnRandomPoses) {
  std::mt19937 rng(23);
  for (int i = 0; i < 300; ++i) {
    const Pose g = random_se3_pose(rng, std::pow(10.0, (i % 5) - 2.0));
    const Pose g2 = diffcol::se3_exp(diffcol::se3_log(g));
    EXPECT_LT((g2.R - g.R).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((g2.p - g.p).norm(), 1e-11 * (1.0 + g.p.norm()));
  }
}

TEST(Se3, ExpDerivativeAlongARayMatchesFiniteDifferences) {
  // d/dt exp(t ξ^) = exp(t ξ^) ξ^
  std::mt19937 rng(24);
  const double h = 1e-6;
  for (int rep = 0; rep < 50; ++rep) {
    const Vec6 xi = random_twist(rng, 0.2 + 2.8 * rep / 50.0);
    for (double t : {1e-5, 0.4, 1.0}) {
      const Mat4 fd = (to_matrix(diffcol::se3_exp((t + h) * xi)) - to_matrix(diffcol::se3_exp((t - h) * xi))) / (2.0 * h);
      const Mat4 an = to_matrix(diffcol::se3_exp(t * xi)) * hat(xi);
      const double scale = 1.0 + xi.norm() * xi.norm();
      EXPECT_LT((fd - an).cwiseAbs().maxCoeff(), 1e-7 * scale) << "t " << t;
    }
  }
}

TEST(Se3, AdjointConjugatesTheExponential) {
  // g·exp(ξ)·g⁻¹ = exp(Ad_g ξ)
  std::mt19937 rng(25);
  for (int rep = 0; rep < 100; ++rep) {
    const Pose g = random_se3_pose(rng);
    const Vec6 xi = random_twist(rng, 0.05 + 3.0 * rep / 100.0) / 10.0;
    const Mat6 Ad = diffcol::adjoint(g);
    const Mat4 lhs = to_matrix(g) * expm(hat(xi)) * to_matrix(g.inverse());
    const Mat4 rhs1 = expm(hat(Ad * xi));
    const Mat4 rhs2 = to_matrix(diffcol::se3_exp(Ad * xi));
    const Mat4 lhs2 = to_matrix(g * diffcol::se3_exp(xi) * g.inverse());
    const double scale = 1.0 + g.p.norm() * (1.0 + xi.norm());
    EXPECT_LT((lhs - rhs1).cwiseAbs().maxCoeff(), 1e-12 * scale);
    EXPECT_LT((lhs2 - rhs2).cwiseAbs().maxCoeff(), 1e-12 * scale);
  }
}

TEST(Se3, AdjointIsTheDerivativeOfConjugation) {
  // d/dt g·exp(tξ)·g⁻¹ at t = 0 is (Ad_g ξ)^, checked by central differences
  std::mt19937 rng(26);
  const double h = 1e-6;
  for (int rep = 0; rep < 30; ++rep) {
    const Pose g = random_se3_pose(rng);
    const Vec6 xi = random_twist(rng, 1.0) / 5.0;
    const Mat4 G = to_matrix(g), Gi = to_matrix(g.inverse());
    const Mat4 fd = (G * expm(hat(h * xi)) * Gi - G * expm(hat(-h * xi)) * Gi) / (2.0 * h);
    const Mat4 an = hat(diffcol::adjoint(g) * xi);
    EXPECT_LT((fd - an).cwiseAbs().maxCoeff(), 1e-7 * (1.0 + g.p.norm()) * (1.0 + xi.norm()));
  }
}

TEST(Se3, AdjointOfProductAndInverse) {
  std::mt19937 rng(27);
  for (int rep = 0; rep < 30; ++rep) {
    const Pose g = random_se3_pose(rng), h = random_se3_pose(rng);
    const Mat6 A = diffcol::adjoint(g * h), B = diffcol::adjoint(g) * diffcol::adjoint(h);
    EXPECT_LT((A - B).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + g.p.norm() + h.p.norm()));
    const Mat6 I = diffcol::adjoint(g) * diffcol::adjoint(g.inverse());
    EXPECT_LT((I - Mat6::Identity()).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + g.p.norm()));
  }
}

// ------------------------------------------------------------------ Pose

TEST(Pose, InverseAndComposition) {
  std::mt19937 rng(31);
  std::normal_distribution<double> N(0.0, 1.0);
  for (int rep = 0; rep < 50; ++rep) {
    const Pose g = random_se3_pose(rng), h = random_se3_pose(rng);
    const Vec3 x(N(rng), N(rng), N(rng));
    EXPECT_LT(((g * h) * x - g * (h * x)).norm(), 1e-12 * (1.0 + x.norm() + g.p.norm() + h.p.norm()));
    const Pose I = g * g.inverse();
    EXPECT_LT((I.R - Mat3::Identity()).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT(I.p.norm(), 1e-14 * (1.0 + g.p.norm()));
    EXPECT_LT((g.inverse() * (g * x) - x).norm(), 1e-12 * (1.0 + x.norm() + g.p.norm()));
    EXPECT_LT(((g * h).inverse().R - h.inverse().R * g.inverse().R).cwiseAbs().maxCoeff(), 1e-14);
  }
  EXPECT_TRUE(Pose::identity().is_finite());
  EXPECT_EQ(Pose::identity().R, Mat3::Identity());
  EXPECT_EQ(Pose::identity().p, Vec3::Zero());
}

TEST(Pose, FromQuaternionNormalizesAndMatchesEigen) {
  std::mt19937 rng(32);
  std::normal_distribution<double> N(0.0, 1.0);
  for (int rep = 0; rep < 100; ++rep) {
    const double s = std::pow(10.0, (rep % 7) - 3.0);  // quaternion norms from 1e-3 to 1e3
    const double w = s * N(rng), x = s * N(rng), y = s * N(rng), z = s * N(rng);
    const Vec3 p(N(rng), N(rng), N(rng));
    const Pose g = Pose::from_quaternion(p, w, x, y, z);
    const Mat3 ref = Eigen::Quaterniond(w, x, y, z).normalized().toRotationMatrix();
    EXPECT_LT((g.R - ref).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_EQ(g.p, p);
    EXPECT_LT((g.R.transpose() * g.R - Mat3::Identity()).cwiseAbs().maxCoeff(), 1e-14);
  }
  const Pose g = Pose::from_quaternion(Vec3(1, 2, 3), 2.0, 0.0, 0.0, 0.0);
  EXPECT_LT((g.R - Mat3::Identity()).cwiseAbs().maxCoeff(), 1e-15);
}

TEST(Pose, FromQuaternionRejectsInvalidInput) {
  const Vec3 p(0.1, 0.2, 0.3);
  EXPECT_THROW(Pose::from_quaternion(p, 0.0, 0.0, 0.0, 0.0), std::invalid_argument);
  EXPECT_THROW(Pose::from_quaternion(p, 1e-300, 0.0, 0.0, 0.0), std::invalid_argument);
  EXPECT_THROW(Pose::from_quaternion(p, -0.0, 0.0, -0.0, 0.0), std::invalid_argument);
  for (int i = 0; i < 4; ++i) {
    double q[4] = {1.0, 0.5, -0.5, 0.25};
    q[i] = kNaN;
    EXPECT_THROW(Pose::from_quaternion(p, q[0], q[1], q[2], q[3]), std::invalid_argument) << "NaN at " << i;
    q[i] = kInf;
    EXPECT_THROW(Pose::from_quaternion(p, q[0], q[1], q[2], q[3]), std::invalid_argument) << "inf at " << i;
    q[i] = -kInf;
    EXPECT_THROW(Pose::from_quaternion(p, q[0], q[1], q[2], q[3]), std::invalid_argument) << "-inf at " << i;
  }
  EXPECT_THROW(Pose::from_quaternion(Vec3(kNaN, 0, 0), 1, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(Pose::from_quaternion(Vec3(0, kInf, 0), 1, 0, 0, 0), std::invalid_argument);
  EXPECT_NO_THROW(Pose::from_quaternion(p, 1e-6, 0.0, 0.0, 0.0));
  // positions beyond kMaxLength are rejected; a huge quaternion is normalized without overflow
  EXPECT_THROW(Pose::from_quaternion(Vec3(0, 0, -1.01 * diffcol::kMaxLength), 1, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(Pose::from_rotation(Mat3::Identity(), Vec3(2e100, 0, 0)), std::invalid_argument);
  const Pose q = Pose::from_quaternion(p, 1e200, 1e200, 0.0, 0.0);  // 90° about x
  EXPECT_LE((q.R - Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()).toRotationMatrix()).norm(), 1e-15);
}

TEST(Pose, FromRotationValidates) {
  std::mt19937 rng(33);
  const Pose g = random_se3_pose(rng);
  EXPECT_NO_THROW(Pose::from_rotation(g.R, g.p));
  const Pose h = Pose::from_rotation(g.R, g.p);
  EXPECT_EQ(h.R, g.R);
  EXPECT_EQ(h.p, g.p);
  Mat3 reflection = g.R;
  reflection.col(0) *= -1.0;
  EXPECT_THROW(Pose::from_rotation(reflection, g.p), std::invalid_argument);
  EXPECT_THROW(Pose::from_rotation(2.0 * g.R, g.p), std::invalid_argument);
  Mat3 sheared = g.R;
  sheared(0, 1) += 1e-3;
  EXPECT_THROW(Pose::from_rotation(sheared, g.p), std::invalid_argument);
  Mat3 bad = g.R;
  bad(2, 2) = kNaN;
  EXPECT_THROW(Pose::from_rotation(bad, g.p), std::invalid_argument);
  EXPECT_THROW(Pose::from_rotation(g.R, Vec3(0, 0, kInf)), std::invalid_argument);
  EXPECT_THROW(Pose::from_rotation(Mat3::Zero(), g.p), std::invalid_argument);
}

TEST(Pose, QuaternionRoundTripHasNonNegativeW) {
  std::mt19937 rng(34);
  for (int rep = 0; rep < 200; ++rep) {
    const Pose g = random_se3_pose(rng);
    const Eigen::Quaterniond q = g.quaternion();
    EXPECT_NEAR(q.norm(), 1.0, 1e-14);
    EXPECT_GE(q.w(), 0.0) << "documented: the unit quaternion of R, with w >= 0";
    EXPECT_LT((q.toRotationMatrix() - g.R).cwiseAbs().maxCoeff(), 1e-14);
  }
}

TEST(Pose, IsFiniteDetectsNaNAndInf) {
  Pose g;
  EXPECT_TRUE(g.is_finite());
  g.p.y() = kNaN;
  EXPECT_FALSE(g.is_finite());
  g = Pose{};
  g.R(1, 2) = kInf;
  EXPECT_FALSE(g.is_finite());
}

// is_valid against a reference written from the documented rule (Eigen's RᵀR, determinant,
// finiteness), for every entry set to NaN / ±Inf / huge, and for perturbations around the
// rotation tolerance.
TEST(Pose, IsValidMatchesTheDocumentedRule) {
  const auto reference = [](const Pose& g) {
    if (!g.R.allFinite() || !g.p.allFinite()) return false;
    if (!(g.p.cwiseAbs().maxCoeff() <= diffcol::kMaxLength)) return false;
    return (g.R.transpose() * g.R - Mat3::Identity()).cwiseAbs().maxCoeff() <= Pose::kRotationTolerance &&
           g.R.determinant() > 0.0;
  };
  std::mt19937 rng(35);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int valid = 0, invalid = 0;
  for (int rep = 0; rep < 2000; ++rep) {
    Pose g = random_se3_pose(rng);
    const int kind = rep % 6;
    const int e = (rep / 6) % 12;
    const double bad[] = {kNaN, kInf, -kInf, 1e300};
    double& entry = e < 9 ? g.R(e / 3, e % 3) : g.p(e - 9);
    if (kind == 0) entry = bad[(rep / 72) % 4];
    if (kind == 1) g.R += (4e-6 * u(rng)) * Mat3::Random();  // straddles the 1e-6 tolerance
    if (kind == 2) g.R.col(e % 3) *= -1.0;                   // reflection
    if (kind == 3) g.p *= std::pow(10.0, 95.0 + 10.0 * std::abs(u(rng)));
    if (kind == 4) g.R *= 1.0 + 2e-6 * u(rng);
    const bool want = reference(g);
    (want ? valid : invalid)++;
    EXPECT_EQ(g.is_valid(), want) << "rep " << rep << "\nR =\n" << g.R << "\np = " << g.p.transpose();
    EXPECT_EQ(g.invalid_reason() == nullptr, want) << "rep " << rep;
  }
  EXPECT_GT(valid, 300);
  EXPECT_GT(invalid, 300);
}

// ------------------------------------------------------------------ Lu6

TEST(Lu6, SolvesRandomSystemsAndDetectsSingularity) {
  std::mt19937 rng(41);
  std::normal_distribution<double> N(0.0, 1.0);
  for (int rep = 0; rep < 50; ++rep) {
    Mat6 A;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) A(i, j) = N(rng);
    Vec6 x;
    for (int i = 0; i < 6; ++i) x[i] = N(rng);
    diffcol::Lu6 lu;
    ASSERT_TRUE(lu.factor(A));
    const Vec6 b = A * x;
    const Mat6 Ainv = A.partialPivLu().inverse();
    const Vec6 ref = Ainv * b;
    const double cond = A.norm() * Ainv.norm();  // Frobenius: an upper bound of the 2-norm condition
    EXPECT_LT((lu.solve(b) - ref).norm(), 1e-14 * cond * (1.0 + x.norm()));
    EXPECT_GT(lu.pivot_ratio(), 0.0);
    EXPECT_LE(lu.pivot_ratio(), 1.0);
    Eigen::Matrix<double, 6, 2> B;
    B.col(0) = b;
    B.col(1) = 2.0 * b;
    const Eigen::Matrix<double, 6, 2> X = lu.solve<2>(B);
    EXPECT_LT((X.col(1) - 2.0 * X.col(0)).norm(), 1e-14 * cond * (1.0 + x.norm()));
  }
  Mat6 S = Mat6::Identity();
  S.row(4) = S.row(2);  // rank deficient
  diffcol::Lu6 lu;
  EXPECT_FALSE(lu.factor(S));
  Mat6 Nn = Mat6::Identity();
  Nn(3, 3) = kNaN;
  EXPECT_FALSE(lu.factor(Nn));
}

}  // namespace
