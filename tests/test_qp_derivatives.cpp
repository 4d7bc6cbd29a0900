// Tests of the DiffPills proximity derivatives (include/diffcol/qp/proximity_derivatives.hpp)
// against central finite differences on SE(3) (include/diffcol/math/gradient_check.hpp, Ridders).
//
// For each pair (capsule–capsule, polygon–polygon, capsule–polygon, polygon–capsule),
// DIFFCOL_QP_DERIV_POSES (default 150) random non-degenerate configurations — unique minimizer,
// cores apart (‖p1 − p2‖ ≥ 1e-2), strict complementarity (every constraint has slack ≥ 1e-3
// or multiplier ≥ 1e-6) — are checked in both twist conventions and in position–quaternion
// coordinates: every output (φ, signed distance, p1, p2, closest1, closest2, normal) to
// ≤ 1e-6 relative or ≤ 1e-8 absolute. Degenerate configurations (parallel, zero-length,
// crossing, coplanar, invalid poses) must give finite Jacobians and the documented status.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "diffcol/math/gradient_check.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"
#include "diffcol/qp/proximity_hessians.hpp"

#include "test_util.hpp"

// ------------------------------------------------------------ allocation counter (whole binary)
#include "malloc_counter.hpp"

namespace {

using namespace diffcol::qp;
using diffcol::DerivativeStatus;
using diffcol::SolveStatus;
using diffcol::GradientCheckOptions;
using diffcol::Mat3;
using diffcol::OutputBlock;
using diffcol::ReferenceFrame;
using diffcol::Pose;
using diffcol::Vec3;
using diffcol::test::kNaN;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;

long deriv_pose_count() { return diffcol::test::env_count("DIFFCOL_QP_DERIV_POSES", 150); }

constexpr int kRows = 17;
const std::vector<OutputBlock>& blocks() {
  static const std::vector<OutputBlock> b = {{"phi", 0, 1},       {"signed_distance", 1, 1}, {"core1_W", 2, 3},
                                             {"core2_W", 5, 3},      {"p1_W", 8, 3},      {"p2_W", 11, 3},
                                             {"normal_W", 14, 3}};
  return b;
}
Eigen::VectorXd values(const ProximityResult& r) {
  Eigen::VectorXd v(kRows);
  v << r.phi, r.signed_distance, r.core1_W, r.core2_W, r.p1_W, r.p2_W, r.normal_W;
  return v;
}
Eigen::MatrixXd jacobian(const ProximityDerivatives& d) {
  Eigen::MatrixXd J(kRows, 12);
  J << d.J_phi_X1, d.J_phi_X2, d.J_signed_distance_X1, d.J_signed_distance_X2, d.J_core1_W_X1, d.J_core1_W_X2,
      d.J_core2_W_X1, d.J_core2_W_X2, d.J_p1_W_X1, d.J_p1_W_X2, d.J_p2_W_X1, d.J_p2_W_X2,
      d.J_normal_W_X1, d.J_normal_W_X2;
  return J;
}
Eigen::MatrixXd jacobian(const ProximityCoordinateJacobians& d) {
  Eigen::MatrixXd J(kRows, 14);
  J << d.J_phi_rq1, d.J_phi_rq2, d.J_signed_distance_rq1, d.J_signed_distance_rq2, d.J_core1_W_rq1, d.J_core1_W_rq2,
      d.J_core2_W_rq1, d.J_core2_W_rq2, d.J_p1_W_rq1, d.J_p1_W_rq2, d.J_p2_W_rq1, d.J_p2_W_rq2,
      d.J_normal_W_rq1, d.J_normal_W_rq2;
  return J;
}

// ------------------------------------------------------------------------- shapes, margins

Capsule random_capsule(std::mt19937& rng) {
  std::uniform_real_distribution<double> L(0.3, 2.0), R(0.0, 0.5), U(-1.0, 1.0);
  if (rng() % 4 == 0) return Capsule::from_end_points(Vec3(U(rng), U(rng), U(rng)), Vec3(U(rng), U(rng), U(rng)), R(rng));
  return Capsule(R(rng), L(rng));
}
PaddedPolygon random_polygon(std::mt19937& rng) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const int k = 3 + int(rng() % 6);
  std::vector<double> ang;
  while (int(ang.size()) < k) {
    const double a = 2 * M_PI * U(rng);
    bool ok = true;
    for (double b : ang) ok = ok && std::abs(std::remainder(a - b, 2 * M_PI)) > 0.2;
    if (ok) ang.push_back(a);
  }
  std::sort(ang.begin(), ang.end());
  const double sx = 0.4 + U(rng), sy = 0.4 + U(rng);
  std::vector<Vec2> V;
  for (double a : ang) V.emplace_back(sx * std::cos(a), sy * std::sin(a));
  return PaddedPolygon::from_vertices(V, 0.4 * U(rng));
}

// Smallest max(slack, multiplier-scaled) over the constraints: > 0 ⇔ strictly complementary.
// Slack of each QP constraint at the returned x (θ ≤ 1, −θ ≤ 0, C y ≤ d).
void append_slacks(const Capsule&, double theta, std::vector<double>& s) {
  s.push_back(1.0 - theta);
  s.push_back(theta);
}
void append_slacks(const PaddedPolygon& p, const Vec2& y, std::vector<double>& s) {
  for (int i = 0; i < p.num_constraints(); ++i) s.push_back(p.offset(i) - p.normal(i).dot(y));
}
bool strictly_complementary(const ProximityResult& r, const std::vector<double>& slack) {
  for (size_t i = 0; i < slack.size(); ++i)
    if (!(slack[i] >= 1e-3 || r.qp.lambda(static_cast<long>(i)) >= 1e-6)) return false;
  return true;
}
std::vector<double> slacks(const Capsule& a, const Capsule& b, const ProximityResult& r) {
  std::vector<double> s;
  append_slacks(a, r.qp.x(0), s);
  append_slacks(b, r.qp.x(1), s);
  return s;
}
std::vector<double> slacks(const PaddedPolygon& a, const PaddedPolygon& b, const ProximityResult& r) {
  std::vector<double> s;
  append_slacks(a, Vec2(r.qp.x(0), r.qp.x(1)), s);
  append_slacks(b, Vec2(r.qp.x(2), r.qp.x(3)), s);
  return s;
}
std::vector<double> slacks(const Capsule& a, const PaddedPolygon& b, const ProximityResult& r) {
  std::vector<double> s;
  append_slacks(a, r.qp.x(0), s);
  append_slacks(b, Vec2(r.qp.x(1), r.qp.x(2)), s);
  return s;
}
std::vector<double> slacks(const PaddedPolygon& a, const Capsule& b, const ProximityResult& r) {
  return slacks(b, a, r);  // qp holds the capsule–polygon QP
}

// ------------------------------------------------------------------------------ the check

/// The derivatives in `conv` against central differences of the proximity outputs (step h).
template <class F>
diffcol::GradientCheckResult check_against_differences(const F& f, const Pose& X1, const Pose& X2,
                                                       const ProximityDerivatives& d, ReferenceFrame conv, double h) {
  GradientCheckOptions opt;
  opt.step = h;
  opt.column_group = 3;
  opt.blocks = blocks();
  opt.frame = conv == ReferenceFrame::world ? ReferenceFrame::world : ReferenceFrame::local;
  return diffcol::check_pose_gradient(f, X1, X2, jacobian(d), opt);
}

struct DerivStats {
  int checked = 0;
  double worst_ratio = 0;
  void print(const char* name) const {
    std::printf("%s: %d configurations checked (world, body, quaternion); worst error/tolerance %.3f\n", name, checked,
                worst_ratio);
  }
};

template <class S1, class S2>
void check_pair(const char* name, unsigned seed, S1 (*make1)(std::mt19937&), S2 (*make2)(std::mt19937&)) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const long n = deriv_pose_count();
  DerivStats st;
  long attempts = 0;
  while (st.checked < n && attempts < 50 * n) {
    ++attempts;
    const S1 s1 = make1(rng);
    const S2 s2 = make2(rng);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    const Pose X2 = make_pose(random_rotation(rng), 2.0 * Vec3(U(rng), U(rng), U(rng)));
    const ProximityResult r = proximity(s1, X1, s2, X2);
    ASSERT_TRUE(r.ok());
    if (!r.unique_minimizer || r.core_distance < 1e-2 || !strictly_complementary(r, slacks(s1, s2, r))) continue;
    const std::string what = std::string(name) + " attempt " + std::to_string(attempts);
    auto f = [&](const Pose& A, const Pose& B) { return values(proximity(s1, A, s2, B)); };
    for (const ReferenceFrame conv : {ReferenceFrame::world, ReferenceFrame::local}) {
      const ProximityDerivatives d = proximity_derivatives(s1, X1, s2, X2, r, conv);
      ASSERT_EQ(d.status, DerivativeStatus::ok) << what;
      const auto res = check_against_differences(f, X1, X2, d, conv, 1e-4);
      EXPECT_TRUE(res.passed()) << what << (conv == ReferenceFrame::world ? " world\n" : " body\n") << res.report();
      for (const auto& b : res.blocks) st.worst_ratio = std::max(st.worst_ratio, b.worst_ratio);
      // The fast φ-gradient path gives the same row.
      if constexpr (std::is_same_v<S1, Capsule> && std::is_same_v<S2, Capsule>) {
        ProximityGradient g;
        proximity_gradient(s1, X1, s2, X2, g, conv);
        EXPECT_NEAR(g.phi, r.phi, 1e-14) << what;
        EXPECT_LE((g.J_phi_X1 - d.J_phi_X1).norm() + (g.J_phi_X2 - d.J_phi_X2).norm(), 1e-12) << what;
      }
      if (conv == ReferenceFrame::world) {
        // Position–quaternion coordinates, raw (unnormalized) quaternions.
        const Eigen::Vector4d q1 = 1.3 * Eigen::Vector4d(X1.quaternion().w(), X1.quaternion().x(),
                                                         X1.quaternion().y(), X1.quaternion().z());
        const Eigen::Vector4d q2 = 0.7 * Eigen::Vector4d(X2.quaternion().w(), X2.quaternion().x(),
                                                         X2.quaternion().y(), X2.quaternion().z());
        Eigen::VectorXd z(14);
        z << X1.p, q1, X2.p, q2;
        auto fq = [&](const Eigen::VectorXd& v) {
          const Pose A = Pose::from_quaternion(v.segment<3>(0), v(3), v(4), v(5), v(6));
          const Pose B = Pose::from_quaternion(v.segment<3>(7), v(10), v(11), v(12), v(13));
          return values(proximity(s1, A, s2, B));
        };
        const ProximityCoordinateJacobians Jq = to_position_quaternion(d, X1.p, q1, X2.p, q2);
        GradientCheckOptions qopt;
        qopt.step = 1e-4;
        qopt.blocks = blocks();
        const auto qres = diffcol::check_gradient(fq, z, jacobian(Jq), qopt);
        EXPECT_TRUE(qres.passed()) << what << " quaternion\n" << qres.report();
        // The same through the body convention's map.
        const ProximityDerivatives db = proximity_derivatives(s1, X1, s2, X2, r, ReferenceFrame::local);
        EXPECT_LE((jacobian(to_position_quaternion(db, X1.p, q1, X2.p, q2)) - jacobian(Jq)).cwiseAbs().maxCoeff(),
                  1e-9 * (1.0 + jacobian(Jq).cwiseAbs().maxCoeff()))
            << what;
      }
    }
    ++st.checked;
    if (::testing::Test::HasFailure()) break;
  }
  st.print(name);
  EXPECT_EQ(st.checked, n) << "too few non-degenerate configurations found";
}

TEST(QpDerivatives, CapsuleCapsule) { check_pair<Capsule, Capsule>("capsule-capsule", 1, random_capsule, random_capsule); }
TEST(QpDerivatives, PolygonPolygon) {
  check_pair<PaddedPolygon, PaddedPolygon>("polygon-polygon", 2, random_polygon, random_polygon);
}
TEST(QpDerivatives, CapsulePolygon) {
  check_pair<Capsule, PaddedPolygon>("capsule-polygon", 3, random_capsule, random_polygon);
}
TEST(QpDerivatives, PolygonCapsule) {
  check_pair<PaddedPolygon, Capsule>("polygon-capsule", 4, random_polygon, random_capsule);
}

// ------------------------------------------------- overlapping cores (penetration measure)

// Body 2 placed so that a core point of 2 lies on a core point of 1 (the cores cross).
template <class S1, class S2>
Pose crossing_pose(const S1& s1, const Pose& X1, const S2& s2, std::mt19937& rng) {
  std::uniform_real_distribution<double> T(0.0, 1.0), U(-1.0, 1.0);
  Pose X2 = make_pose(random_rotation(rng), Vec3::Zero());
  Vec3 q1, q2_B;
  if constexpr (std::is_same_v<S1, Capsule>)
    q1 = X1 * s1.core_point_B(0.2 + 0.6 * T(rng));
  else
    q1 = X1 * Vec3(0.4 * U(rng), 0.4 * U(rng), 0.0);
  if constexpr (std::is_same_v<S2, Capsule>)
    q2_B = s2.core_point_B(0.2 + 0.6 * T(rng));
  else
    q2_B = Vec3(0.4 * U(rng), 0.4 * U(rng), 0.0);
  X2.p = q1 - X2.R * q2_B + 0.05 * Vec3(U(rng), U(rng), U(rng));
  return X2;
}

// Where the cores overlap, signed_distance = s − (R1 + R2) with s < 0 the signed core distance
// (best separating axis) has a non-zero gradient; it, the normal, the witness and closest points
// are checked against central differences (world and body twists). Configurations within 1e-3 of
// a change of axis or witness vertex (a kink) are skipped.
template <class S1, class S2>
void check_penetration(const char* name, unsigned seed, S1 (*make1)(std::mt19937&), S2 (*make2)(std::mt19937&)) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const long n = std::max(20L, deriv_pose_count() / 3);
  DerivStats st;
  long attempts = 0;
  while (st.checked < n && attempts < 50 * n) {
    ++attempts;
    const S1 s1 = make1(rng);
    const S2 s2 = make2(rng);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    const Pose X2 = crossing_pose(s1, X1, s2, rng);
    const ProximityResult r = proximity(s1, X1, s2, X2);
    ASSERT_TRUE(r.ok());
    if (!r.penetration || !r.unique_minimizer) continue;
    bool smooth = true;
    for (int k = 0; k < 12 && smooth; ++k) {
      Eigen::Matrix<double, 6, 1> xi;
      for (int i = 0; i < 6; ++i) xi(i) = 1e-3 * U(rng);
      const ProximityResult q = proximity(s1, X1, s2, diffcol::se3_exp(xi) * X2);
      smooth = q.penetration && (q.normal_W - r.normal_W).norm() < 1e-2 && (q.core1_W - r.core1_W).norm() < 1e-2 &&
               (q.core2_W - r.core2_W).norm() < 1e-2;
    }
    if (!smooth) continue;
    const std::string what = std::string(name) + " attempt " + std::to_string(attempts);
    auto f = [&](const Pose& A, const Pose& B) { return values(proximity(s1, A, s2, B)); };
    for (const ReferenceFrame conv : {ReferenceFrame::world, ReferenceFrame::local}) {
      const ProximityDerivatives d = proximity_derivatives(s1, X1, s2, X2, r, conv);
      ASSERT_EQ(d.status, DerivativeStatus::ok) << what;
      EXPECT_GT(d.J_signed_distance_X1.norm() + d.J_signed_distance_X2.norm(), 0.5) << what;
      // The axis the result records and a search for it give the same derivatives.
      ASSERT_NE(r.axis, PenetrationAxis::none) << what;
      ProximityResult unrecorded = r;
      unrecorded.axis = PenetrationAxis::none;
      const ProximityDerivatives e = proximity_derivatives(s1, X1, s2, X2, unrecorded, conv);
      for (const auto& [dj, ej] : {std::pair{&d.J_signed_distance_X1, &e.J_signed_distance_X1},
                                   std::pair{&d.J_signed_distance_X2, &e.J_signed_distance_X2}})
        EXPECT_LE((*dj - *ej).norm(), 1e-9 * (1.0 + dj->norm())) << what;
      EXPECT_LE((d.J_normal_W_X2 - e.J_normal_W_X2).norm(), 1e-9 * (1.0 + d.J_normal_W_X2.norm())) << what;
      EXPECT_LE((d.J_core1_W_X1 - e.J_core1_W_X1).norm(), 1e-9 * (1.0 + d.J_core1_W_X1.norm())) << what;
      const auto res = check_against_differences(f, X1, X2, d, conv, 1e-5);
      EXPECT_TRUE(res.passed()) << what << (conv == ReferenceFrame::world ? " world\n" : " body\n") << res.report();
      for (const auto& b : res.blocks) st.worst_ratio = std::max(st.worst_ratio, b.worst_ratio);
    }
    ++st.checked;
    if (::testing::Test::HasFailure()) break;
  }
  st.print(name);
  EXPECT_EQ(st.checked, n) << "too few smooth overlapping configurations found";
}

TEST(QpDerivatives, OverlappingCapsulePolygon) {
  check_penetration<Capsule, PaddedPolygon>("capsule-polygon (cores overlap)", 13, random_capsule, random_polygon);
}
TEST(QpDerivatives, OverlappingPolygonCapsule) {
  check_penetration<PaddedPolygon, Capsule>("polygon-capsule (cores overlap)", 14, random_polygon, random_capsule);
}
TEST(QpDerivatives, OverlappingPolygonPolygon) {
  check_penetration<PaddedPolygon, PaddedPolygon>("polygon-polygon (cores overlap)", 15, random_polygon,
                                                  random_polygon);
}

TEST(QpDerivatives, CrossingCapsulesHaveAOneSidedGradient) {
  // Capsules whose axes cross: signed_distance = |n·(p2 − p1)| − (R1 + R2) has a kink. The
  // reported gradient is that of the side n; along any twist ξ the finite difference
  // (sd(h·ξ) − sd(0))/h is |J·ξ| (both sides move away from the kink), and a step along the
  // gradient separates the capsules.
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> U(-1.0, 1.0), T(0.2, 0.8);
  int checked = 0;
  for (int k = 0; k < 40; ++k) {
    const Capsule a = random_capsule(rng), b = random_capsule(rng);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    Pose X2 = make_pose(random_rotation(rng), Vec3::Zero());
    X2.p = X1 * a.core_point_B(T(rng)) - X2.R * b.core_point_B(T(rng));
    const ProximityResult r = proximity(a, X1, b, X2);
    ASSERT_TRUE(r.ok());
    if (!r.cores_touch || r.normal_W.norm() == 0.0) continue;
    ++checked;
    const ProximityDerivatives d = proximity_derivatives(a, X1, b, X2, r);
    EXPECT_EQ(d.status, DerivativeStatus::cores_touch);
    EXPECT_NEAR(d.J_signed_distance_X2.tail<3>().norm(), 1.0, 1e-9);  // ∂sd/∂v2 = nᵀ
    const double h = 1e-7;
    for (int j = 0; j < 6; ++j) {
      Eigen::Matrix<double, 6, 1> x1, x2;
      for (int i = 0; i < 6; ++i) x1(i) = U(rng), x2(i) = U(rng);
      const double slope = d.J_signed_distance_X1.dot(x1) + d.J_signed_distance_X2.dot(x2);
      const ProximityResult q = proximity(a, diffcol::se3_exp(h * x1) * X1, b, diffcol::se3_exp(h * x2) * X2);
      EXPECT_NEAR((q.signed_distance - r.signed_distance) / h, std::abs(slope), 1e-5) << k;
    }
    const ProximityResult q = proximity(a, X1, b, diffcol::se3_exp(1e-3 * d.J_signed_distance_X2.transpose()) * X2);
    EXPECT_GT(q.signed_distance, r.signed_distance + 1e-4) << k;
  }
  EXPECT_GE(checked, 30);
}

// ------------------------------------------------------------------------ degenerate cases

bool all_finite(const ProximityDerivatives& d) { return jacobian(d).allFinite(); }

TEST(QpDerivatives, DegenerateConfigurationsStayFinite) {
  const Capsule c(0.2, 2.0), dot(0.3, 0.0);
  const PaddedPolygon sq = PaddedPolygon::rectangle(1.0, 0.5, 0.1);
  Pose I, X;
  // Parallel overlapping capsules: non-unique minimizer.
  X.p = Vec3(0.5, 1.0, 0.0);
  auto r = proximity(c, I, c, X);
  auto d = proximity_derivatives(c, I, c, X, r);
  EXPECT_FALSE(r.unique_minimizer);
  EXPECT_EQ(d.status, DerivativeStatus::non_unique_minimizer);
  EXPECT_TRUE(all_finite(d));
  // φ's one-sided derivative still equals the closed form d/dy of (y² − R²) = 2y along y.
  EXPECT_NEAR(d.J_phi_X2(4), 2.0, 1e-12);
  // Crossing capsules: cores touch.
  X.R = Eigen::AngleAxisd(0.7, Vec3::UnitZ()).toRotationMatrix();
  X.p = Vec3(0.1, 0.0, 0.0);
  r = proximity(c, I, c, X);
  d = proximity_derivatives(c, I, c, X, r);
  EXPECT_TRUE(r.cores_touch);
  EXPECT_EQ(d.status, DerivativeStatus::cores_touch);
  EXPECT_TRUE(all_finite(d));
  EXPECT_LE(d.J_phi_X1.norm(), 1e-12);
  // Zero-length capsules (spheres).
  X.p = Vec3(1.0, 2.0, 3.0);
  r = proximity(dot, I, dot, X);
  d = proximity_derivatives(dot, I, dot, X, r);
  EXPECT_TRUE(r.unique_minimizer);
  EXPECT_EQ(d.status, DerivativeStatus::ok);
  EXPECT_TRUE(all_finite(d));
  r = proximity(dot, I, sq, X);
  EXPECT_TRUE(all_finite(proximity_derivatives(dot, I, sq, X, r)));
  // Coplanar overlapping polygons; parallel planes; a capsule lying in a polygon's plane.
  X = Pose();
  X.R = Eigen::AngleAxisd(0.3, Vec3::UnitZ()).toRotationMatrix();
  X.p = Vec3(0.4, 0.2, 0.0);
  r = proximity(sq, I, sq, X);
  EXPECT_TRUE(r.cores_touch);
  EXPECT_TRUE(all_finite(proximity_derivatives(sq, I, sq, X, r)));
  X.p.z() = 0.5;
  r = proximity(sq, I, sq, X);
  d = proximity_derivatives(sq, I, sq, X, r);
  EXPECT_FALSE(r.unique_minimizer);
  EXPECT_TRUE(all_finite(d));
  r = proximity(c, X, sq, I);
  EXPECT_TRUE(all_finite(proximity_derivatives(c, X, sq, I, r)));
  // Invalid pose: zero Jacobians, status solve_failed.
  Pose bad;
  bad.R(0, 0) = kNaN;
  r = proximity(c, bad, sq, I);
  d = proximity_derivatives(c, bad, sq, I, r);
  EXPECT_EQ(d.status, DerivativeStatus::solve_failed);
  EXPECT_TRUE(all_finite(d));
  EXPECT_EQ(jacobian(d).norm(), 0.0);
  ProximityGradient g;
  proximity_gradient(c, bad, c, I, g);
  EXPECT_EQ(g.status, SolveStatus::invalid_input);
  EXPECT_TRUE(std::isfinite(g.phi) && g.J_phi_X1.allFinite());
  EXPECT_THROW(twist_from_position_quaternion(Vec3::Zero(), Eigen::Vector4d::Zero(), ReferenceFrame::world),
               std::invalid_argument);
}

// Random degenerate families: every Jacobian finite.
TEST(QpDerivatives, RandomDegenerateFamiliesFinite) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int k = 0; k < 2000; ++k) {
    const Capsule c1(0.1, k % 3 == 0 ? 0.0 : 1.0), c2(0.2, 1.5);
    const PaddedPolygon p = random_polygon(rng);
    const Mat3 R = random_rotation(rng);
    const Pose X1 = make_pose(R, Vec3(U(rng), U(rng), U(rng)));
    // Same rotation (parallel segments / coplanar or parallel polygons), small offsets.
    const Pose X2 = make_pose(k % 2 ? R : Mat3(R * Eigen::Vector3d(-1, -1, 1).asDiagonal()),
                              X1.p + R * Vec3(U(rng), U(rng), k % 4 == 0 ? 0.0 : 0.3 * U(rng)));
    const auto r1 = proximity(c1, X1, c2, X2);
    const auto r2 = proximity(p, X1, p, X2);
    const auto r3 = proximity(c2, X1, p, X2);
    ASSERT_TRUE(r1.ok() && r2.ok() && r3.ok()) << k << " " << status_name(r1.status) << " " << status_name(r2.status) << " " << status_name(r3.status) << " it " << r2.qp.iterations << " " << r3.qp.iterations;
    EXPECT_TRUE(all_finite(proximity_derivatives(c1, X1, c2, X2, r1, ReferenceFrame::local)));
    EXPECT_TRUE(all_finite(proximity_derivatives(p, X1, p, X2, r2)));
    EXPECT_TRUE(all_finite(proximity_derivatives(c2, X1, p, X2, r3)));
    EXPECT_TRUE(values(r1).allFinite() && values(r2).allFinite() && values(r3).allFinite());
  }
}

#if defined(DIFFCOL_TEST_COUNTS_MALLOC)
TEST(QpDerivatives, HotPathAllocatesNothing) {
  std::mt19937 rng(3);
  const Capsule c = random_capsule(rng);
  const PaddedPolygon p = random_polygon(rng);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::vector<Pose> poses;
  for (int k = 0; k < 64; ++k) poses.push_back(make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng))));
  ProximityResult r;
  ProximityDerivatives d;
  ProximityGradient g;
  auto h = std::make_unique<ProximityHessians>();  // large: allocated before counting
  auto sd = std::make_unique<ProximityShapeDerivatives>();
  const ProximityOptions opt;
  const long before = g_allocations.load();
  for (int k = 0; k + 1 < 64; ++k) {
    proximity(c, poses[k], c, poses[k + 1], opt, r);
    proximity_derivatives(c, poses[k], c, poses[k + 1], r, d);
    proximity_gradient(c, poses[k], c, poses[k + 1], g);
    proximity(p, poses[k], p, poses[k + 1], opt, r);
    proximity_derivatives(p, poses[k], p, poses[k + 1], r, d, ReferenceFrame::local);
    proximity(c, poses[k], p, poses[k + 1], opt, r);
    proximity_derivatives(c, poses[k], p, poses[k + 1], r, d);
    proximity(p, poses[k], c, poses[k + 1], opt, r);
    proximity_derivatives(p, poses[k], c, poses[k + 1], r, d);
    proximity_hessians(p, poses[k], c, poses[k + 1], r, *h, ReferenceFrame::local);
    proximity_shape_derivatives(p, poses[k], c, poses[k + 1], r, *sd);
    proximity(p, poses[k], p, poses[k + 1], opt, r);
    proximity_hessians(p, poses[k], p, poses[k + 1], r, *h);
    proximity_shape_derivatives(p, poses[k], p, poses[k + 1], r, *sd);
  }
  EXPECT_EQ(g_allocations.load(), before);
  // The counter works.
  const long b0 = g_allocations.load();
  std::vector<double>* v = new std::vector<double>(100);
  delete v;
  EXPECT_GT(g_allocations.load(), b0);
}
#endif

}  // namespace
