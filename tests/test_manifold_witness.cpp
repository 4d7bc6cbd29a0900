// Tests of the E-E / V-F witness routines and the signed contacts (diffcol/manifold/witness.hpp,
// contacts.hpp): hard QP vs an independent solve, derivatives vs central differences, the seed's
// Fig. 3 experiment, signs/penetration/clashing on boxes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdlib>
#include <random>

#include "diffcol/manifold/contacts.hpp"
#include "diffcol/manifold/witness.hpp"
#include "test_util.hpp"

using namespace diffcol;
using namespace diffcol::manifold;

namespace {

using E3 = Eigen::Vector3d;
using D12 = Dual<12>;

// Sweep sizes scale with DIFFCOL_ERGODIC_POSES (default 10000; the sanitizer CI run sets 1000).
int scaled(int base) {
  const char* env = std::getenv("DIFFCOL_ERGODIC_POSES");
  const double f = env ? std::clamp(std::atof(env) / 10000.0, 0.0, 1.0) : 1.0;
  return std::max(base / 10, static_cast<int>(base * f));
}

E3 rand3(std::mt19937& rng) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  return {U(rng), U(rng), U(rng)};
}

// Independent reference for min ‖e1(s) − e2(t)‖, s, t ∈ [0, 1]: the inner minimum over t is a
// clamp; the outer function of s is convex, minimized by ternary search.
double segment_distance_reference(const E3& a0, const E3& a1, const E3& b0, const E3& b1, double* s_out) {
  const E3 d2 = b1 - b0;
  auto inner = [&](double s) {
    const E3 p = a0 + s * (a1 - a0);
    const double t = d2.squaredNorm() > 0 ? std::clamp((p - b0).dot(d2) / d2.squaredNorm(), 0.0, 1.0) : 0.0;
    return (p - b0 - t * d2).norm();
  };
  double lo = 0.0, hi = 1.0;
  for (int it = 0; it < 200; ++it) {
    const double m1 = lo + (hi - lo) / 3.0, m2 = hi - (hi - lo) / 3.0;
    if (inner(m1) <= inner(m2)) hi = m2;
    else lo = m1;
  }
  if (s_out) *s_out = 0.5 * (lo + hi);
  return inner(0.5 * (lo + hi));
}

V3<D12> seed_point(const E3& p, int k0) {
  return {D12::variable(p.x(), k0), D12::variable(p.y(), k0 + 1), D12::variable(p.z(), k0 + 2)};
}

// Ridders-free Richardson central difference of a vector function of 12 inputs.
Eigen::MatrixXd fd_jacobian(const std::function<Eigen::VectorXd(const Eigen::Matrix<double, 12, 1>&)>& f,
                            const Eigen::Matrix<double, 12, 1>& x, double h) {
  const Eigen::VectorXd f0 = f(x);
  Eigen::MatrixXd J(f0.size(), 12);
  for (int k = 0; k < 12; ++k) {
    auto D = [&](double step) {
      Eigen::Matrix<double, 12, 1> xp = x, xm = x;
      xp[k] += step;
      xm[k] -= step;
      return Eigen::VectorXd((f(xp) - f(xm)) / (2.0 * step));
    };
    J.col(k) = (4.0 * D(0.5 * h) - D(h)) / 3.0;
  }
  return J;
}

SdfObject box_sdf_object(const E3& half, double eps = 0.1) {
  SdfObject o(0.0);
  o.add(Superquadric(half, eps, eps));
  return o;
}

}  // namespace

TEST(ManifoldWitness, HardEdgeEdgeMatchesIndependentSolve) {
  std::mt19937 rng(21);
  const WitnessOptions hard = WitnessOptions::hard(0.0);
  double worst = 0.0, worst_point = 0.0;
  const int trials = scaled(3000);
  for (int trial = 0; trial < trials; ++trial) {
    const E3 a0 = rand3(rng), a1 = rand3(rng), b0 = rand3(rng), b1 = rand3(rng);
    const auto w = edge_edge_witness(V3<double>::from(a0), V3<double>::from(a1), V3<double>::from(b0),
                                     V3<double>::from(b1), hard);
    double s_ref = 0.0;
    const double d_ref = segment_distance_reference(a0, a1, b0, b1, &s_ref);
    worst = std::max(worst, std::abs(w.distance - d_ref));
    EXPECT_GE(w.alpha1, 0.0);
    EXPECT_LE(w.alpha1, 1.0);
    EXPECT_GE(w.alpha2, 0.0);
    EXPECT_LE(w.alpha2, 1.0);
    // Witness points are consistent with α and, where unique (non-parallel), the reference's.
    EXPECT_LT((values(w.e1) - (a0 + w.alpha1 * (a1 - a0))).norm(), 1e-12);
    const double sin_angle = (a1 - a0).normalized().cross((b1 - b0).normalized()).norm();
    if (sin_angle > 0.1) worst_point = std::max(worst_point, std::abs(w.alpha1 - s_ref) * (a1 - a0).norm());
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(worst_point, 1e-6);
  // Exactly parallel, overlapping edges: finite result at the right distance.
  const auto w = edge_edge_witness(V3<double>(0, 0, 0), V3<double>(1, 0, 0), V3<double>(0.5, 1, 0),
                                   V3<double>(1.5, 1, 0), hard);
  EXPECT_NEAR(w.distance, 1.0, 1e-12);
  EXPECT_EQ(w.gamma_con, 0.0);
  // Degenerate (zero-length) edge: finite, point-to-segment distance.
  const auto w2 = edge_edge_witness(V3<double>(0.3, 1, 0), V3<double>(0.3, 1, 0), V3<double>(0, 0, 0),
                                    V3<double>(1, 0, 0), hard);
  EXPECT_NEAR(w2.distance, 1.0, 1e-12);
  EXPECT_NEAR(w2.e2.x, 0.3, 1e-12);
}

TEST(ManifoldWitness, SmoothedEdgeEdgeConvergesToHardAsTemperaturesVanish) {
  std::mt19937 rng(22);
  for (int trial = 0; trial < 300; ++trial) {
    const E3 a0 = rand3(rng), a1 = rand3(rng), b0 = rand3(rng), b1 = rand3(rng);
    double s_ref = 0.0;
    const double d_ref = segment_distance_reference(a0, a1, b0, b1, &s_ref);
    WitnessOptions o;
    o.regularization = 0.0;
    o.t_clip = o.t_min = o.t_comp = 1e-7;
    const auto w = edge_edge_witness(V3<double>::from(a0), V3<double>::from(a1), V3<double>::from(b0),
                                     V3<double>::from(b1), o);
    EXPECT_NEAR(w.distance, d_ref, 1e-4);
  }
}

TEST(ManifoldWitness, HardVertexFaceMatchesIndependentSolve) {
  std::mt19937 rng(23);
  const WitnessOptions hard = WitnessOptions::hard();
  const int trials = scaled(2000);
  for (int trial = 0; trial < trials; ++trial) {
    const E3 v = 2.0 * rand3(rng) - E3::Constant(0.5), p0 = rand3(rng), p1 = rand3(rng), p2 = rand3(rng);
    const auto w = vertex_face_witness(V3<double>::from(v), V3<double>::from(p0), V3<double>::from(p1),
                                       V3<double>::from(p2), hard);
    // Reference: dense barycentric sampling plus the three edge distances (closed form clamps).
    double best = 1e300;
    const int M = 200;
    for (int i = 0; i <= M; ++i)
      for (int j = 0; i + j <= M; ++j) {
        const E3 q = p0 + (double(i) / M) * (p1 - p0) + (double(j) / M) * (p2 - p0);
        best = std::min(best, (v - q).norm());
      }
    const E3 P[3] = {p0, p1, p2};
    for (int e = 0; e < 3; ++e) {
      const E3 d = P[(e + 1) % 3] - P[e];
      const double s = std::clamp((v - P[e]).dot(d) / d.squaredNorm(), 0.0, 1.0);
      best = std::min(best, (v - P[e] - s * d).norm());
    }
    // The hard routine is exact: never worse than any sample, and at most the grid spacing better.
    EXPECT_LE(w.distance, best + 1e-12);
    EXPECT_GE(w.distance, best - 2.0 * std::sqrt(2.0) / M);
  }
}

TEST(ManifoldWitness, EdgeEdgeDerivativesMatchCentralDifferences) {
  // Smoothing on (the defaults), Jacobians of e1, e2, α, conγ, d̄, n̄ and the penetration φ2(e1*)
  // w.r.t. the 12 end-point coordinates [a0 a1 b0 b1], forward-mode duals vs central differences.
  std::mt19937 rng(24);
  const WitnessOptions opt;
  SdfObject sdf2(0.0);
  sdf2.add(Superquadric(E3(0.4, 0.3, 0.5), 0.3, 0.3, test::make_pose(test::random_rotation(rng), E3(0.5, 0.5, 0.5))));
  double worst = 0.0;
  int worst_trial = -1;
  const int trials = scaled(400);
  for (int trial = 0; trial < trials; ++trial) {
    Eigen::Matrix<double, 12, 1> x;
    for (int k = 0; k < 12; ++k) x[k] = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    auto eval = [&](const Eigen::Matrix<double, 12, 1>& y) {
      const auto w = edge_edge_witness(V3<double>(y[0], y[1], y[2]), V3<double>(y[3], y[4], y[5]),
                                       V3<double>(y[6], y[7], y[8]), V3<double>(y[9], y[10], y[11]), opt);
      Eigen::VectorXd out(14);
      out << values(w.e1), values(w.e2), w.alpha1, w.alpha2, w.gamma_con, w.distance, values(w.normal),
          sdf2.value(values(w.e1));
      return out;
    };
    // Witness Jacobians through the double API; the penetration row through Dual<12> directly.
    const EdgeEdgeWitnessJacobians jw =
        edge_edge_witness_jacobians(x.segment<3>(0), x.segment<3>(3), x.segment<3>(6), x.segment<3>(9), opt);
    const auto wd = edge_edge_witness(seed_point(x.segment<3>(0), 0), seed_point(x.segment<3>(3), 3),
                                      seed_point(x.segment<3>(6), 6), seed_point(x.segment<3>(9), 9), opt);
    Eigen::Matrix<double, 14, 12> J;
    J.middleRows<3>(0) = jw.J_e1_ends;
    J.middleRows<3>(3) = jw.J_e2_ends;
    J.row(6) = jw.J_alpha1_ends;
    J.row(7) = jw.J_alpha2_ends;
    J.row(8) = jw.J_gamma_con_ends;
    J.row(9) = jw.J_distance_ends;
    J.middleRows<3>(10) = jw.J_normal_ends;
    J.row(13) = sdf2.evaluate(wd.e1).value.d.transpose();
    EXPECT_EQ(jw.witness.distance, wd.distance.v);
    const Eigen::MatrixXd Jfd = fd_jacobian(eval, x, 1e-4);
    // Relative to the row's scale (as the gradient checker's column groups).
    for (int r = 0; r < 14; ++r) {
      const double scale = std::max(1.0, std::max(J.row(r).cwiseAbs().maxCoeff(), Jfd.row(r).cwiseAbs().maxCoeff()));
      const double err = (J.row(r) - Jfd.row(r)).cwiseAbs().maxCoeff() / scale;
      if (err > worst) {
        worst = err;
        worst_trial = trial;
      }
    }
  }
  EXPECT_LT(worst, 1e-6) << "worst trial " << worst_trial;
  std::printf("E-E derivatives: worst relative error vs central FD over %d configurations: %.3g\n", trials, worst);
}

TEST(ManifoldWitness, VertexFaceDerivativesMatchCentralDifferences) {
  std::mt19937 rng(25);
  const WitnessOptions opt;
  double worst = 0.0;
  for (int trial = 0; trial < 300; ++trial) {
    Eigen::Matrix<double, 12, 1> x;
    for (int k = 0; k < 12; ++k) x[k] = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    auto eval = [&](const Eigen::Matrix<double, 12, 1>& y) {
      const auto w = vertex_face_witness(V3<double>(y[0], y[1], y[2]), V3<double>(y[3], y[4], y[5]),
                                         V3<double>(y[6], y[7], y[8]), V3<double>(y[9], y[10], y[11]), opt);
      Eigen::VectorXd out(5);
      out << values(w.point), w.gamma_inside, w.distance;
      return out;
    };
    const VertexFaceWitnessJacobians jw =
        vertex_face_witness_jacobians(x.segment<3>(0), x.segment<3>(3), x.segment<3>(6), x.segment<3>(9), opt);
    Eigen::Matrix<double, 5, 12> J;
    J.topRows<3>() = jw.J_point_ends;
    J.row(3) = jw.J_gamma_inside_ends;
    J.row(4) = jw.J_distance_ends;
    const Eigen::MatrixXd Jfd = fd_jacobian(eval, x, 1e-4);
    for (int r = 0; r < 5; ++r) {
      const double scale = std::max(1.0, std::max(J.row(r).cwiseAbs().maxCoeff(), Jfd.row(r).cwiseAbs().maxCoeff()));
      worst = std::max(worst, (J.row(r) - Jfd.row(r)).cwiseAbs().maxCoeff() / scale);
    }
  }
  EXPECT_LT(worst, 1e-6);
  std::printf("V-F derivatives: worst relative error vs central FD: %.3g\n", worst);
}

// The seed's Fig. 3: edge 2 fixed along x at y = −1.2, edge 1 (length 2, centered at the origin)
// rotating about z; e1*(θ) for θ ∈ [0, π]. The parallel configuration is θ = π/2.
namespace {
E3 fig3_witness(double theta, const WitnessOptions& o) {
  const V3<double> d(std::sin(theta), std::cos(theta), 0.0);
  const auto w = edge_edge_witness(-1.0 * d, d, V3<double>(-1.0, -1.2, 0.0), V3<double>(1.0, -1.2, 0.0), o);
  return values(w.e1);
}
}  // namespace

TEST(ManifoldWitness, Fig3ParallelEdgesJumpWithoutSmoothingAndAreContinuousWithIt) {
  const double pi = std::acos(-1.0);
  // Without smoothing: the witness jumps from one end of edge 1 to the other across θ = π/2.
  const WitnessOptions hard = WitnessOptions::hard(0.0);
  const double delta = 1e-6;
  const double jump = (fig3_witness(pi / 2 - delta, hard) - fig3_witness(pi / 2 + delta, hard)).norm();
  EXPECT_GT(jump, 1.5);
  // Its finite-difference gradient there is unbounded (∝ jump / step).
  const double h = 1e-6;
  const double fd_hard = (fig3_witness(pi / 2 + h, hard) - fig3_witness(pi / 2 - h, hard)).norm() / (2 * h);
  EXPECT_GT(fd_hard, 1e5);
  // Shrinking the step 100× multiplies it by ≈ 100: the hard gradient is unbounded.
  const double fd_hard_small = (fig3_witness(pi / 2 + 1e-8, hard) - fig3_witness(pi / 2 - 1e-8, hard)).norm() / 2e-8;
  EXPECT_GT(fd_hard_small, 50.0 * fd_hard);
  // With smoothing (λ = 0.01 and temperatures 0.1, the seed's defaults): e1*(θ) is continuous
  // (consecutive samples move by at most max|de1/dθ|·Δθ) and its FD gradient is bounded: it
  // converges as the FD step shrinks instead of growing like 1/h.
  const WitnessOptions smooth_opt;
  const int N = 20000;  // fixed: the Lipschitz check needs the fine sampling
  const double dtheta = pi / N;
  double max_step = 0.0, max_grad = 0.0, max_grad_fine = 0.0;
  for (int i = 0; i < N; ++i) {
    const double t0 = dtheta * i, t1 = dtheta * (i + 1);
    max_step = std::max(max_step, (fig3_witness(t1, smooth_opt) - fig3_witness(t0, smooth_opt)).norm());
    const double th = 0.5 * (t0 + t1);
    const double g = (fig3_witness(th + 1e-5, smooth_opt) - fig3_witness(th - 1e-5, smooth_opt)).norm() / 2e-5;
    const double g_fine = (fig3_witness(th + 1e-7, smooth_opt) - fig3_witness(th - 1e-7, smooth_opt)).norm() / 2e-7;
    max_grad = std::max(max_grad, g);
    max_grad_fine = std::max(max_grad_fine, g_fine);
  }
  EXPECT_TRUE(std::isfinite(max_grad));
  EXPECT_NEAR(max_grad_fine, max_grad, 0.02 * max_grad);  // bounded: independent of the FD step
  EXPECT_LT(max_grad, 1e3);
  EXPECT_LE(max_step, 1.05 * max_grad * dtheta);          // Lipschitz, hence continuous
  EXPECT_LT(max_step, 0.05);                              // vs the hard jump of 2
  // Stronger regularization smooths further (the seed's Fig. 3, middle): λ = 0.1 halves the peak.
  WitnessOptions stronger = smooth_opt;
  stronger.regularization = 0.1;
  double max_grad_strong = 0.0;
  for (int i = 0; i < N; ++i) {
    const double th = dtheta * (i + 0.5);
    max_grad_strong = std::max(max_grad_strong,
                               (fig3_witness(th + 1e-5, stronger) - fig3_witness(th - 1e-5, stronger)).norm() / 2e-5);
  }
  EXPECT_LT(max_grad_strong, 0.5 * max_grad);
  std::printf("Fig. 3: hard jump %.3f, hard FD gradient %.3g (h=1e-6) / %.3g (h=1e-8); smoothed "
              "max |de1/dθ| = %.1f (h=1e-5) / %.1f (h=1e-7), max step %.2e at Δθ=%.2e; λ=0.1: %.1f\n",
              jump, fd_hard, fd_hard_small, max_grad, max_grad_fine, max_step, dtheta, max_grad_strong);
}

TEST(ManifoldWitness, SignedEdgeEdgeContactsOnBoxes) {
  // Two unit cubes (SQ SDF, ε = 0.1) crossing edge over edge: box 1 rotated 45° about y (top
  // ridge along y at z = √2/2), box 2 rotated 45° about x (bottom ridge along x) above it at a
  // vertical gap. The ridges cross at their midpoints; the true contact normal is ±z.
  const double pi = std::acos(-1.0), reach = 0.5 * std::sqrt(2.0);
  const SdfObject sdf = box_sdf_object(E3(0.5, 0.5, 0.5), 0.1);
  const Pose X1 = test::make_pose(so3_exp(Vec3(0, pi / 4, 0)), Vec3::Zero());
  const WitnessOptions wopt;
  const ContactOptions copt;
  for (double gap : {0.05, 0.01, -0.01, -0.05}) {
    const Pose X2 = test::make_pose(so3_exp(Vec3(pi / 4, 0, 0)), Vec3(0, 0, 2.0 * reach + gap));
    const E3 a0 = X1 * E3(-0.5, -0.5, 0.5), a1 = X1 * E3(-0.5, 0.5, 0.5);
    const E3 b0 = X2 * E3(-0.5, -0.5, -0.5), b1 = X2 * E3(0.5, -0.5, -0.5);
    ASSERT_NEAR(a0.z(), reach, 1e-12);
    ASSERT_NEAR(b0.z(), reach + gap, 1e-12);
    const auto c = edge_edge_contact(V3<double>::from(a0), V3<double>::from(a1), V3<double>::from(b0),
                                     V3<double>::from(b1), sdf, X1, sdf, X2, wopt, copt);
    EXPECT_NEAR(c.witness.distance, std::abs(gap), 1e-9);
    EXPECT_NEAR(c.witness.alpha1, 0.5, 1e-9);
    EXPECT_NEAR(c.witness.alpha2, 0.5, 1e-9);
    EXPECT_GT(c.witness.gamma_con, 0.9);
    EXPECT_GT(c.gamma_clash[0], 0.9);
    // n_1 pushes box 1's witness out of box 2 (down), n_2 pushes box 2's up; eq. (11).
    EXPECT_LT((values(c.normal[0]) - E3(0, 0, -1)).norm(), 1e-2);
    EXPECT_LT((values(c.normal[1]) - E3(0, 0, 1)).norm(), 1e-2);
    const double sign = gap > 0 ? 1.0 : -1.0;
    EXPECT_NEAR(c.distance[0], gap, 1e-3 * std::abs(gap) + 1e-9);
    EXPECT_NEAR(c.distance[1], gap, 1e-3 * std::abs(gap) + 1e-9);
    if (std::abs(gap) > 0.04) {
      // Penetration (12): deep enough that the SQ rounding (≈ 0.024 along the ridge bisector)
      // does not matter.
      for (int b = 0; b < 2; ++b) {
        if (sign > 0) {
          EXPECT_LT(c.gamma_pen[b], 0.1);
          EXPECT_LT(c.partial_activity[b], 0.1);
        } else {
          EXPECT_GT(c.gamma_pen[b], 0.9);
          EXPECT_GT(c.partial_activity[b], 0.8);
        }
      }
    }
  }
}

TEST(ManifoldWitness, VertexSdfContactAndNearestNeighbours) {
  const SdfObject sdf = box_sdf_object(E3(0.5, 0.5, 0.5), 0.1);
  const Pose X = test::make_pose(so3_exp(Vec3(0.3, -0.2, 0.5)), Vec3(0.1, 0.2, 0.3));
  const ContactOptions copt;
  const auto c = vertex_sdf_contact(V3<double>::from(X * E3(0.0, 0.0, 0.49)), sdf, X, copt);
  EXPECT_NEAR(c.distance, -0.01, 1e-9);
  EXPECT_LT((values(c.normal) - X.R.col(2)).norm(), 1e-6);
  EXPECT_GT(c.gamma_pen, 0.99);
  // Nearest neighbours: with t = 0 each row / column is one-hot at its minimum.
  const double D[6] = {0.3, 0.1, 0.5, 0.2, 0.9, 0.05};  // 2 × 3
  double nn1[6], nn2[6];
  edge_nearest_neighbours(D, 2, 3, 0.0, nn1, nn2);
  const double e1[6] = {0, 1, 0, 0, 0, 1}, e2[6] = {0, 1, 0, 1, 0, 1};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(nn1[i], e1[i]);
    EXPECT_EQ(nn2[i], e2[i]);
  }
  edge_nearest_neighbours(D, 2, 3, 0.1, nn1, nn2);
  EXPECT_NEAR(nn1[0] + nn1[1] + nn1[2], 1.0, 1e-14);
  EXPECT_NEAR(nn2[0] + nn2[3], 1.0, 1e-14);
  EXPECT_GT(nn1[1], nn1[0]);
}

TEST(ManifoldWitness, InvalidOptionsAreRejected) {
  EXPECT_THROW(edge_edge_witness_jacobians(E3(test::kNaN, 0, 0), E3(1, 0, 0), E3(0, 1, 0), E3(1, 1, 0)),
               std::invalid_argument);
  WitnessOptions neg;
  neg.t_clip = -0.1;
  EXPECT_THROW(vertex_face_witness_jacobians(E3(0, 0, 1), E3(0, 0, 0), E3(1, 0, 0), E3(0, 1, 0), neg),
               std::invalid_argument);
  WitnessOptions o;
  o.t_min = -1.0;
  EXPECT_THROW(o.validate(), std::invalid_argument);
  o = WitnessOptions{};
  o.regularization = std::nan("");
  EXPECT_THROW(o.validate(), std::invalid_argument);
  ContactOptions c;
  c.t_pen = -1e-3;
  EXPECT_THROW(c.validate(), std::invalid_argument);
  EXPECT_NO_THROW(WitnessOptions::hard().validate());
  EXPECT_NO_THROW(ContactOptions::hard().validate());
}
