// Tests of the second-order pose derivatives and the shape-parameter derivatives of the DiffPills
// proximity (include/diffcol/qp/proximity_hessians.hpp):
//  - every Hessian against central finite differences (Ridders, gradient_check.hpp) of the ANALYTIC
//    first derivatives (proximity_derivatives) on SE(3), symmetrized (within one pose the
//    derivative of the gradient carries the antisymmetric bracket term, checked too); world and
//    local twists, local_world_aligned as the congruence of the world blocks;
//  - every shape-parameter derivative (capsule radius and length, the polygon's radius, d and C)
//    against finite differences of the solve over the parameter.
// For capsule–capsule, polygon–polygon, capsule–polygon and polygon–capsule, padded shapes
// separated, touching (|signed distance| ≤ 1e-9) and penetrating, with cores apart, a unique
// minimizer and strict complementarity; DIFFCOL_QP_HESS_POSES configurations per pair and
// category (default 6). Tolerance: |A − N| ≤ 1e-6 · (largest entry of the block) + 1e-8.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "diffcol/math/gradient_check.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"
#include "diffcol/qp/proximity_hessians.hpp"

#include "test_util.hpp"

namespace qp_hessians_test {

using namespace diffcol::qp;
using diffcol::GradientCheckOptions;
using diffcol::Pose;
using diffcol::ReferenceFrame;
using diffcol::Vec3;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;

constexpr double kRel = 1e-6;
constexpr double kAbs = 1e-8;

long pose_count() { return diffcol::test::env_count("DIFFCOL_QP_HESS_POSES", 6); }

// ------------------------------------------------------------------ shapes as parameter vectors

// A capsule by its core midpoint and axis (body frame) and its parameters (radius, length).
struct CapsuleSpec {
  Vec3 mid = Vec3::Zero(), u = Vec3::UnitX();
  Eigen::VectorXd params = Eigen::Vector2d(0.0, 1.0);
  Capsule make(const Eigen::VectorXd& q) const {
    return Capsule::from_end_points(mid + 0.5 * q(1) * u, mid - 0.5 * q(1) * u, q(0));
  }
};
// A polygon by its parameters (radius, d[0..m−1], C row by row).
struct PolygonSpec {
  int m = 0;
  Eigen::VectorXd params;
  PaddedPolygon make(const Eigen::VectorXd& q) const {
    Eigen::MatrixX2d C(m, 2);
    for (int i = 0; i < m; ++i) C.row(i) << q(1 + m + 2 * i), q(2 + m + 2 * i);
    return PaddedPolygon(C, q.segment(1, m), q(0));
  }
};

CapsuleSpec random_capsule_spec(std::mt19937& rng) {
  std::uniform_real_distribution<double> U(-0.5, 0.5), L(0.3, 2.0);
  CapsuleSpec s;
  if (rng() % 2 == 0) {
    s.mid = Vec3(U(rng), U(rng), U(rng));
    s.u = random_unit(rng);
  }
  s.params = Eigen::Vector2d(0.0, L(rng));
  return s;
}
PolygonSpec random_polygon_spec(std::mt19937& rng) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const int k = 3 + int(rng() % 5);
  std::vector<double> ang;
  while (int(ang.size()) < k) {
    const double a = 2 * M_PI * U(rng);
    bool ok = true;
    for (double b : ang) ok = ok && std::abs(std::remainder(a - b, 2 * M_PI)) > 0.3;
    if (ok) ang.push_back(a);
  }
  std::sort(ang.begin(), ang.end());
  const double sx = 0.4 + U(rng), sy = 0.4 + U(rng);
  std::vector<Vec2> V;
  for (double a : ang) V.emplace_back(sx * std::cos(a), sy * std::sin(a));
  const PaddedPolygon p = PaddedPolygon::from_vertices(V, 0.0);
  PolygonSpec s;
  s.m = p.num_constraints();
  s.params.setZero(1 + 3 * s.m);
  for (int i = 0; i < s.m; ++i) {
    s.params(1 + i) = p.offset(i);
    s.params(1 + s.m + 2 * i) = p.normal(i)(0);
    s.params(2 + s.m + 2 * i) = p.normal(i)(1);
  }
  return s;
}
CapsuleSpec random_spec(std::mt19937& rng, const CapsuleSpec*) { return random_capsule_spec(rng); }
PolygonSpec random_spec(std::mt19937& rng, const PolygonSpec*) { return random_polygon_spec(rng); }

// Slacks of the QP rows in the layouts of proximity.cpp (capsule bounds θ ≤ 1, then −θ ≤ 0).
std::vector<double> row_slacks(const Capsule&, const Capsule&, const ProximityResult& r) {
  return {1.0 - r.qp.x(0), 1.0 - r.qp.x(1), r.qp.x(0), r.qp.x(1)};
}
void polygon_slacks(const PaddedPolygon& p, const Vec2& y, std::vector<double>& s) {
  for (int i = 0; i < p.num_constraints(); ++i) s.push_back(p.offset(i) - p.normal(i).dot(y));
}
std::vector<double> row_slacks(const PaddedPolygon& a, const PaddedPolygon& b, const ProximityResult& r) {
  std::vector<double> s;
  polygon_slacks(a, Vec2(r.qp.x(0), r.qp.x(1)), s);
  polygon_slacks(b, Vec2(r.qp.x(2), r.qp.x(3)), s);
  return s;
}
std::vector<double> row_slacks(const Capsule&, const PaddedPolygon& b, const ProximityResult& r) {
  std::vector<double> s = {1.0 - r.qp.x(0), r.qp.x(0)};
  polygon_slacks(b, Vec2(r.qp.x(1), r.qp.x(2)), s);
  return s;
}
std::vector<double> row_slacks(const PaddedPolygon& a, const Capsule& b, const ProximityResult& r) {
  return row_slacks(b, a, r);  // qp holds the capsule–polygon QP
}
// Away from an active-set change: every row has slack or a positive multiplier.
bool strictly_complementary(const std::vector<double>& slack, const ProximityResult& r) {
  for (size_t i = 0; i < slack.size(); ++i)
    if (!(slack[i] >= 1e-3 || r.qp.lambda(static_cast<long>(i)) >= 1e-6)) return false;
  return true;
}

// ------------------------------------------------------------------ output layout

constexpr int kOutputs = 17;  // φ, signed distance, core1, core2, p1, p2, normal (world)
const char* output_name(int k) {
  static const char* names[kOutputs] = {"phi",       "signed_distance", "core1_W.x", "core1_W.y", "core1_W.z",
                                        "core2_W.x", "core2_W.y",       "core2_W.z", "p1_W.x",    "p1_W.y",
                                        "p1_W.z",    "p2_W.x",          "p2_W.y",    "p2_W.z",    "normal_W.x",
                                        "normal_W.y", "normal_W.z"};
  return names[k];
}
// The first derivatives as 17 rows of 12 columns [X1 | X2].
Eigen::Matrix<double, kOutputs, 12> gradient_rows(const ProximityDerivatives& d) {
  Eigen::Matrix<double, kOutputs, 12> J;
  J << d.J_phi_X1, d.J_phi_X2, d.J_signed_distance_X1, d.J_signed_distance_X2, d.J_core1_W_X1, d.J_core1_W_X2,
      d.J_core2_W_X1, d.J_core2_W_X2, d.J_p1_W_X1, d.J_p1_W_X2, d.J_p2_W_X1, d.J_p2_W_X2, d.J_normal_W_X1,
      d.J_normal_W_X2;
  return J;
}
const Mat12& hessian(const ProximityHessians& h, int k) {
  if (k == 0) return h.H_phi;
  if (k == 1) return h.H_signed_distance;
  const std::array<Mat12, 3>* v[5] = {&h.H_core1_W, &h.H_core2_W, &h.H_p1_W, &h.H_p2_W, &h.H_normal_W};
  return (*v[(k - 2) / 3])[(k - 2) % 3];
}
Eigen::VectorXd value_vector(const ProximityResult& r) {
  Eigen::VectorXd v(kOutputs);
  v << r.phi, r.signed_distance, r.core1_W, r.core2_W, r.p1_W, r.p2_W, r.normal_W;
  return v;
}

// Worst |A − N| / (kRel·scale + kAbs) over a block, scale = max |entry| of A and N.
struct Check {
  double worst = 0.0;
  std::string where;
  void add(const Eigen::MatrixXd& A, const Eigen::MatrixXd& N, const std::string& what) {
    const double scale = std::max(A.cwiseAbs().maxCoeff(), N.cwiseAbs().maxCoeff());
    const double err = (A - N).cwiseAbs().maxCoeff();
    const double ratio = err / (kRel * scale + kAbs);
    if (!(ratio <= worst)) {
      worst = ratio;
      char buf[160];
      std::snprintf(buf, sizeof buf, " (error %.3g, scale %.3g)", err, scale);
      where = what + buf;
    }
  }
};

enum class Category { separated, touching, penetrating };
const char* category_name(Category c) {
  return c == Category::separated ? "separated" : c == Category::touching ? "touching" : "penetrating";
}

// A configuration of the category: random cores and poses with the cores apart, then radii with
// R1 + R2 = f·‖p1 − p2‖ (f = 0.5, 1 ± 1e-10, 1.5; the cores, hence the QP, do not change).
template <class Spec1, class Spec2>
bool make_config(std::mt19937& rng, Category cat, Spec1& a, Spec2& b, Pose& X1, Pose& X2) {
  std::uniform_real_distribution<double> U(-1.0, 1.0), F(0.2, 0.8);
  a = random_spec(rng, &a);
  b = random_spec(rng, &b);
  X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
  X2 = make_pose(random_rotation(rng), 2.0 * Vec3(U(rng), U(rng), U(rng)));
  const auto s1 = a.make(a.params);
  const auto s2 = b.make(b.params);
  const ProximityResult r = proximity(s1, X1, s2, X2);
  if (!r.ok() || !r.unique_minimizer || r.core_distance < 5e-2) return false;
  if (!strictly_complementary(row_slacks(s1, s2, r), r)) return false;
  const double f = cat == Category::separated ? 0.5 : cat == Category::touching ? 1.0 + 1e-10 * U(rng) : 1.5;
  const double R = f * r.core_distance, w = F(rng);
  a.params(0) = w * R;
  b.params(0) = (1.0 - w) * R;
  return true;
}

// ------------------------------------------------------------------ Hessians

template <class Spec1, class Spec2>
void check_hessians(const char* name, unsigned seed) {
  std::mt19937 rng(seed);
  const long n = pose_count();
  Check world, local, lwa, bracket;
  int checked = 0, with_active = 0;
  for (const Category cat : {Category::separated, Category::touching, Category::penetrating}) {
    int found = 0, attempts = 0;
    while (found < n && attempts < 200 * n) {
      ++attempts;
      Spec1 a;
      Spec2 b;
      Pose X1, X2;
      if (!make_config(rng, cat, a, b, X1, X2)) continue;
      ++found;
      const auto s1 = a.make(a.params);
      const auto s2 = b.make(b.params);
      const ProximityResult r = proximity(s1, X1, s2, X2);
      ASSERT_TRUE(r.ok());
      if (cat == Category::touching) {
        EXPECT_LE(std::abs(r.signed_distance), 1e-9);
      }
      if (r.qp.active != 0) ++with_active;
      const std::string what = std::string(name) + " " + category_name(cat) + " #" + std::to_string(found);
      {
        // local_world_aligned (and every frame): the congruence diag(M1, M2)ᵀ H_W diag(M1, M2) — the
        // Hessian along exp((M ζ)^)·X, not along gradient_check's R ← exp(ω^)R, p ← p + v (which
        // differs at second order by the ½ ω × v of the exponential's translation).
        const ProximityHessians hw = proximity_hessians(s1, X1, s2, X2, r);
        const ProximityHessians ha = proximity_hessians(s1, X1, s2, X2, r, ReferenceFrame::local_world_aligned);
        EXPECT_EQ(ha.frame, ReferenceFrame::local_world_aligned);
        Mat12 M = Mat12::Zero();
        M.topLeftCorner<6, 6>() = diffcol::world_twist_from_frame(ReferenceFrame::local_world_aligned, X1);
        M.bottomRightCorner<6, 6>() = diffcol::world_twist_from_frame(ReferenceFrame::local_world_aligned, X2);
        for (int k = 0; k < kOutputs; ++k)
          lwa.add(hessian(ha, k), M.transpose() * hessian(hw, k) * M, what + " local_world_aligned " + output_name(k));
      }
      for (const ReferenceFrame frame : {ReferenceFrame::world, ReferenceFrame::local}) {
        const ProximityHessians H = proximity_hessians(s1, X1, s2, X2, r, frame);
        ASSERT_EQ(H.status, DerivativeStatus::ok) << what;
        auto f = [&](const Pose& A, const Pose& B) {
          const ProximityResult q = proximity(s1, A, s2, B);
          const Eigen::Matrix<double, kOutputs, 12> J = gradient_rows(proximity_derivatives(s1, A, s2, B, q, frame));
          Eigen::VectorXd v(kOutputs * 12);
          for (int k = 0; k < kOutputs; ++k)
            for (int c = 0; c < 12; ++c) v(12 * k + c) = J(k, c);
          return v;
        };
        GradientCheckOptions opt;
        opt.step = 1e-4;
        opt.frame = frame;
        const Eigen::MatrixXd N = diffcol::numeric_jacobian(f, X1, X2, opt);  // (17·12) × 12
        const Eigen::Matrix<double, kOutputs, 12> mu =
            gradient_rows(proximity_derivatives(s1, X1, s2, X2, r, frame));
        Check& c = frame == ReferenceFrame::world ? world : frame == ReferenceFrame::local ? local : lwa;
        for (int k = 0; k < kOutputs; ++k) {
          Eigen::MatrixXd Nk(12, 12);
          for (int i = 0; i < 12; ++i) Nk.row(i) = N.row(12 * k + i);  // Nk(i, j) = ∂μ_i/∂ζ_j
          const Mat12& Hk = hessian(H, k);
          EXPECT_EQ((Hk - Hk.transpose()).cwiseAbs().maxCoeff(), 0.0) << what << " " << output_name(k);
          c.add(Hk, 0.5 * (Nk + Nk.transpose()), what + " " + diffcol::reference_frame_name(frame) + " " +
                                                     output_name(k));
          if (frame == ReferenceFrame::world) {
            // Within one pose: ∂μ_i/∂η_j = H_ij + ½ μᵀ ad_{e_i} e_j (world twists),
            // ad_{(ω,v)}(ω', v') = (ω × ω', ω × v' + v × ω'). Cross blocks: H_ij.
            Eigen::MatrixXd B = Eigen::MatrixXd::Zero(12, 12);
            for (int body = 0; body < 2; ++body)
              for (int i = 0; i < 6; ++i)
                for (int j = 0; j < 6; ++j) {
                  diffcol::Vec6 ei = diffcol::Vec6::Zero(), ej = diffcol::Vec6::Zero();
                  ei(i) = ej(j) = 1.0;
                  diffcol::Vec6 ad;
                  ad << ei.head<3>().cross(ej.head<3>()),
                      ei.head<3>().cross(ej.tail<3>()) + ei.tail<3>().cross(ej.head<3>());
                  B(6 * body + i, 6 * body + j) = 0.5 * mu.row(k).segment<6>(6 * body).dot(ad);
                }
            bracket.add(Hk + B, Nk, what + " bracket " + output_name(k));
          }
        }
      }
      ++checked;
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_EQ(found, n) << name << " " << category_name(cat) << ": too few configurations";
  }
  std::printf("%s: %d configurations (%d with active constraints); worst error/tolerance: world %.3g, local %.3g, "
              "local_world_aligned %.3g, with the bracket term %.3g\n",
              name, checked, with_active, world.worst, local.worst, lwa.worst, bracket.worst);
  EXPECT_LE(world.worst, 1.0) << world.where;
  EXPECT_LE(local.worst, 1.0) << local.where;
  EXPECT_LE(lwa.worst, 1.0) << lwa.where;
  EXPECT_LE(bracket.worst, 1.0) << bracket.where;
}

// ------------------------------------------------------------------ shape parameters

template <class Spec1, class Spec2>
void check_shape_derivatives(const char* name, unsigned seed) {
  std::mt19937 rng(seed);
  const long n = pose_count();
  Check all;
  int checked = 0;
  for (const Category cat : {Category::separated, Category::touching, Category::penetrating}) {
    int found = 0, attempts = 0;
    while (found < n && attempts < 200 * n) {
      ++attempts;
      Spec1 a;
      Spec2 b;
      Pose X1, X2;
      if (!make_config(rng, cat, a, b, X1, X2)) continue;
      ++found;
      const int n1 = int(a.params.size()), n2 = int(b.params.size());
      Eigen::VectorXd q0(n1 + n2);
      q0 << a.params, b.params;
      const auto s1 = a.make(a.params);
      const auto s2 = b.make(b.params);
      const ProximityResult r = proximity(s1, X1, s2, X2);
      ASSERT_TRUE(r.ok());
      const ProximityShapeDerivatives D = proximity_shape_derivatives(s1, X1, s2, X2, r);
      const std::string what = std::string(name) + " " + category_name(cat) + " #" + std::to_string(found);
      ASSERT_EQ(D.status, DerivativeStatus::ok) << what;
      ASSERT_EQ(D.count1, n1);
      ASSERT_EQ(D.count2, n2);
      EXPECT_EQ(proximity_shape_parameter_count(s1), n1);
      auto f = [&](const Eigen::VectorXd& q) {
        return value_vector(proximity(a.make(q.head(n1)), X1, b.make(q.tail(n2)), X2));
      };
      GradientCheckOptions opt;
      opt.step = 1e-4;
      const Eigen::MatrixXd N = diffcol::numeric_jacobian(f, q0, opt);
      Eigen::MatrixXd A(kOutputs, n1 + n2);
      A << D.d_phi, D.d_signed_distance, D.d_core1_W, D.d_core2_W, D.d_p1_W, D.d_p2_W, D.d_normal_W;
      // Per output row, relative to the row's largest entry (as the Hessian blocks).
      for (int k = 0; k < kOutputs; ++k) {
        Eigen::Index j = 0;
        (A.row(k) - N.row(k)).cwiseAbs().maxCoeff(&j);
        const std::string pname = j < n1 ? "1." + proximity_shape_parameter_name(s1, int(j))
                                         : "2." + proximity_shape_parameter_name(s2, int(j - n1));
        all.add(A.row(k), N.row(k), what + " d " + output_name(k) + " / d " + pname);
      }
      ++checked;
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_EQ(found, n) << name << " " << category_name(cat) << ": too few configurations";
  }
  std::printf("%s: %d configurations; worst error/tolerance %.3g\n", name, checked, all.worst);
  EXPECT_LE(all.worst, 1.0) << all.where;
}


bool all_zero(const ProximityHessians& h, bool phi_too) {
  for (int k = phi_too ? 0 : 1; k < kOutputs; ++k)
    if (hessian(h, k) != Mat12::Zero()) return false;
  return true;
}

}  // namespace qp_hessians_test

TEST(QpHessians, CapsuleCapsule) {
  qp_hessians_test::check_hessians<qp_hessians_test::CapsuleSpec, qp_hessians_test::CapsuleSpec>("capsule-capsule",
                                                                                                 101);
}
TEST(QpHessians, PolygonPolygon) {
  qp_hessians_test::check_hessians<qp_hessians_test::PolygonSpec, qp_hessians_test::PolygonSpec>("polygon-polygon",
                                                                                                 102);
}
TEST(QpHessians, CapsulePolygon) {
  qp_hessians_test::check_hessians<qp_hessians_test::CapsuleSpec, qp_hessians_test::PolygonSpec>("capsule-polygon",
                                                                                                 103);
}
TEST(QpHessians, PolygonCapsule) {
  qp_hessians_test::check_hessians<qp_hessians_test::PolygonSpec, qp_hessians_test::CapsuleSpec>("polygon-capsule",
                                                                                                 104);
}
TEST(QpShapeDerivatives, CapsuleCapsule) {
  qp_hessians_test::check_shape_derivatives<qp_hessians_test::CapsuleSpec, qp_hessians_test::CapsuleSpec>(
      "capsule-capsule", 201);
}
TEST(QpShapeDerivatives, PolygonPolygon) {
  qp_hessians_test::check_shape_derivatives<qp_hessians_test::PolygonSpec, qp_hessians_test::PolygonSpec>(
      "polygon-polygon", 202);
}
TEST(QpShapeDerivatives, CapsulePolygon) {
  qp_hessians_test::check_shape_derivatives<qp_hessians_test::CapsuleSpec, qp_hessians_test::PolygonSpec>(
      "capsule-polygon", 203);
}
TEST(QpShapeDerivatives, PolygonCapsule) {
  qp_hessians_test::check_shape_derivatives<qp_hessians_test::PolygonSpec, qp_hessians_test::CapsuleSpec>(
      "polygon-capsule", 204);
}

TEST(QpHessians, TouchingCoresAndUnsolvedResults) {
  using namespace qp_hessians_test;
  // Crossing capsule cores: φ = ‖d‖² stays smooth (its Hessian 2 d_aᵀd_b against differences of
  // J_φ); the signed distance, normal and padded points (a kink) are left zero.
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> U(-1.0, 1.0), T(0.2, 0.8);
  int crossing = 0;
  for (int k = 0; k < 20; ++k) {
    const Capsule a(0.1, 1.5), b(0.2, 1.0);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(U(rng), U(rng), U(rng)));
    Pose X2 = make_pose(random_rotation(rng), Vec3::Zero());
    X2.p = X1 * a.core_point_B(T(rng)) - X2.R * b.core_point_B(T(rng));
    const ProximityResult r = proximity(a, X1, b, X2);
    ASSERT_TRUE(r.ok());
    if (!r.cores_touch) continue;
    ++crossing;
    const ProximityHessians H = proximity_hessians(a, X1, b, X2, r);
    EXPECT_EQ(H.status, DerivativeStatus::cores_touch);
    EXPECT_TRUE(H.H_signed_distance == Mat12::Zero() && H.H_normal_W[0] == Mat12::Zero() &&
                H.H_p1_W[2] == Mat12::Zero());
    auto f = [&](const Pose& A, const Pose& B) {
      const ProximityDerivatives d = proximity_derivatives(a, A, b, B, proximity(a, A, b, B));
      Eigen::VectorXd v(12);
      v << d.J_phi_X1.transpose(), d.J_phi_X2.transpose();
      return v;
    };
    GradientCheckOptions opt;
    opt.step = 1e-4;
    const Eigen::MatrixXd N = diffcol::numeric_jacobian(f, X1, X2, opt);
    const double scale = std::max(H.H_phi.cwiseAbs().maxCoeff(), N.cwiseAbs().maxCoeff());
    EXPECT_LE((H.H_phi - 0.5 * (N + N.transpose())).cwiseAbs().maxCoeff(), kRel * scale + kAbs) << k;
    EXPECT_GT(scale, 0.1);
    const ProximityShapeDerivatives D = proximity_shape_derivatives(a, X1, b, X2, r);
    EXPECT_EQ(D.status, DerivativeStatus::cores_touch);
    EXPECT_DOUBLE_EQ(D.d_phi(0), -2.0 * (0.1 + 0.2));
    EXPECT_EQ(D.d_signed_distance(2), -1.0);
    EXPECT_EQ(D.d_phi(1), 0.0);
  }
  EXPECT_GE(crossing, 15);
  // Overlapping polygon cores: φ is flat, the penetration measure's second derivatives are not
  // provided: every block zero.
  const PaddedPolygon sq = PaddedPolygon::rectangle(1.0, 0.5, 0.1);
  const Pose I = Pose::identity();
  const Pose Y = make_pose(diffcol::so3_exp(Vec3(0.3, 0.2, 0.1)), Vec3(0.1, 0.05, 0.02));
  const ProximityResult r = proximity(sq, I, sq, Y);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r.penetration);
  const ProximityHessians H = proximity_hessians(sq, I, sq, Y, r);
  EXPECT_EQ(H.status, DerivativeStatus::cores_touch);
  EXPECT_TRUE(all_zero(H, true));
  // Not solved, invalid poses: zero blocks and the status.
  ProximityResult bad = r;
  bad.status = SolveStatus::not_converged;
  const ProximityHessians hb = proximity_hessians(sq, I, sq, Y, bad);
  EXPECT_EQ(hb.status, DerivativeStatus::solve_failed);
  EXPECT_TRUE(all_zero(hb, true));
  const ProximityShapeDerivatives sb = proximity_shape_derivatives(sq, I, sq, Y, bad);
  EXPECT_EQ(sb.status, DerivativeStatus::solve_failed);
  EXPECT_EQ(sb.count1, 13);
  EXPECT_TRUE(sb.d_phi.isZero() && sb.d_p1_W.isZero());
  Pose nan_pose = Y;
  nan_pose.p.x() = diffcol::test::kNaN;
  const ProximityResult sep = proximity(sq, I, sq, make_pose(Y.R, Vec3(0.0, 0.0, 2.0)));
  const ProximityHessians hi = proximity_hessians(sq, I, sq, nan_pose, sep);
  EXPECT_EQ(hi.status, DerivativeStatus::invalid_input);
  EXPECT_TRUE(all_zero(hi, true));
}

TEST(QpShapeDerivatives, ParameterNames) {
  using namespace diffcol::qp;
  const Capsule c(0.2, 1.0);
  const PaddedPolygon p = PaddedPolygon::rectangle(1.0, 0.5, 0.1);
  EXPECT_EQ(proximity_shape_parameter_count(c), 2);
  EXPECT_EQ(proximity_shape_parameter_count(p), 13);
  EXPECT_EQ(proximity_shape_parameter_name(c, 1), "length");
  EXPECT_EQ(proximity_shape_parameter_name(p, 0), "radius");
  EXPECT_EQ(proximity_shape_parameter_name(p, 4), "d[3]");
  EXPECT_EQ(proximity_shape_parameter_name(p, 12), "C[3][1]");
  EXPECT_THROW(proximity_shape_parameter_name(c, 2), std::out_of_range);
  EXPECT_THROW(proximity_shape_parameter_name(p, 13), std::out_of_range);
  EXPECT_THROW(proximity_shape_parameter_name(p, -1), std::out_of_range);
}
