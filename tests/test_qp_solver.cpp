// Tests of the small dense QP solvers (include/diffcol/qp/qp_solver.hpp):
//  - the 2-D box active-set method (Algorithms 4–5) against the interior-point method on
//    DIFFCOL_ERGODIC_POSES (default 10000) random capsule–capsule QPs (25)–(26), including
//    parallel, zero-length and intersecting segments;
//  - the interior-point method against an independent reference (enumeration of all active
//    sets of size ≤ n, each KKT system solved by a dense LU, the feasible KKT point with the
//    lowest cost kept) on random strictly convex QPs;
//  - statuses (invalid input, iteration limit) and the sensitivity S against finite differences.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>

#include "diffcol/qp/qp_solver.hpp"

#include "test_util.hpp"

namespace {

using namespace diffcol::qp;
using diffcol::DerivativeStatus;
using diffcol::SolveStatus;
using diffcol::Vec3;
using diffcol::test::kNaN;
using diffcol::test::random_unit;

long pose_count() { return diffcol::test::env_count("DIFFCOL_ERGODIC_POSES", 10000); }

// A random capsule–capsule QP (25)–(26) in the seed's form: F = [u1, −u2], g = b1 − b2.
struct SegmentQp {
  Eigen::Matrix2d P;
  Eigen::Vector2d c;
  double det;  // ‖u1 × u2‖²
  Vec3 u1, u2, g;
};

SegmentQp segment_qp(std::mt19937& rng, int category) {
  std::uniform_real_distribution<double> U(-1.0, 1.0), L(0.1, 2.0);
  SegmentQp q;
  const Vec3 b1(U(rng), U(rng), U(rng));
  q.u1 = L(rng) * random_unit(rng);
  Vec3 b2(U(rng), U(rng), U(rng));
  switch (category) {
    case 0: q.u2 = L(rng) * random_unit(rng); break;                    // general
    case 1: {                                                           // exactly parallel
      const double k[6] = {0.5, 1.0, 2.0, -0.5, -1.0, -2.0};
      q.u2 = k[rng() % 6] * q.u1;
      break;
    }
    case 2: {                                                           // intersecting
      q.u2 = L(rng) * random_unit(rng);
      std::uniform_real_distribution<double> T(0.0, 1.0);
      b2 = b1 + T(rng) * q.u1 - T(rng) * q.u2;
      break;
    }
    case 3: q.u2 = Vec3::Zero(); break;                                 // zero-length segment 2
    default: q.u1 = Vec3::Zero(); q.u2 = Vec3::Zero(); break;           // two points
  }
  q.g = b1 - b2;
  const double u12 = q.u1.dot(q.u2);
  q.P << q.u1.squaredNorm(), -u12, -u12, q.u2.squaredNorm();
  q.c << q.u1.dot(q.g), -q.u2.dot(q.g);
  q.det = q.u1.cross(q.u2).squaredNorm();
  return q;
}

double distance_at(const SegmentQp& q, const Eigen::Vector2d& x) { return (q.g + x(0) * q.u1 - x(1) * q.u2).norm(); }

TEST(QpSolver, BoxActiveSetAgreesWithInteriorPoint) {
  std::mt19937 rng(7);
  const long n = pose_count();
  QpOptions raw;
  raw.polish = false;
  double worst_dist = 0, worst_x = 0, worst_dist_raw = 0, worst_lambda = 0;
  long compared_x = 0, compared_lambda = 0;
  for (long k = 0; k < n; ++k) {
    const int category = static_cast<int>(k % 5);
    const SegmentQp q = segment_qp(rng, category);
    const BoxQp2Solution as = solve_box_qp_2d(q.P, q.c, q.det);
    QpProblem<2, 4> pb;
    pb.P = q.P;
    pb.c = q.c;
    pb.G.resize(4, 2);
    pb.G << 1, 0, 0, 1, -1, 0, 0, -1;
    pb.h.resize(4);
    pb.h << 1, 1, 0, 0;
    const auto ip = solve_qp(pb);
    const auto ipr = solve_qp(pb, raw);
    ASSERT_EQ(ip.status, SolveStatus::ok) << "case " << k << " category " << category << " P\n" << q.P << "\nc " << q.c.transpose() << " gap " << ip.gap << " res " << ip.dual_residual << " x " << ip.x.transpose() << " lam " << ip.lambda.transpose() << " s " << ip.slack.transpose();
    ASSERT_EQ(ipr.status, SolveStatus::ok) << "case " << k;
    ASSERT_TRUE(as.x.allFinite() && as.lambda.allFinite() && as.S.allFinite()) << "case " << k;
    ASSERT_TRUE((as.x.array() >= 0).all() && (as.x.array() <= 1).all());
    // The optimal distance ‖p1 − p2‖ is unique even where the minimizer is not.
    const double e = std::abs(distance_at(q, as.x) - distance_at(q, ip.x));
    worst_dist = std::max(worst_dist, e);
    EXPECT_LE(e, 1e-9) << "case " << k << " category " << category;
    // Unpolished: the cost (squared distance) is accurate to O(μ); the distance only to O(√μ) at contact.
    worst_dist_raw = std::max(worst_dist_raw, std::abs(std::pow(distance_at(q, as.x), 2) - std::pow(distance_at(q, ipr.x), 2)));
    // The minimizer itself where it is unique (and both segments have positive length).
    if (as.unique && ip.unique && category <= 2) {
      const double ex = (as.x - ip.x).cwiseAbs().maxCoeff();
      worst_x = std::max(worst_x, ex);
      EXPECT_LE(ex, 1e-9) << "case " << k << " category " << category << " x_as " << as.x.transpose()
                          << " x_ip " << ip.x.transpose();
      ++compared_x;
      // Multipliers of the same (polished) active set: our cost is ½‖Fx + g‖² for both solvers.
      const double el = (as.lambda - ip.lambda).cwiseAbs().maxCoeff();
      worst_lambda = std::max(worst_lambda, el);
      EXPECT_LE(el, 1e-8 * (1.0 + q.P.norm() + q.c.norm())) << "case " << k;
      ++compared_lambda;
    }
  }
  std::printf("box AS vs IP on %ld capsule QPs: max |dist diff| %.2e (polished), max |dist^2 diff| %.2e (raw IP), max |x diff| "
              "%.2e over %ld unique, max |lambda diff| %.2e\n",
              n, worst_dist, worst_dist_raw, worst_x, compared_x, worst_lambda);
  EXPECT_LE(worst_dist_raw, 1e-8);
  EXPECT_GT(compared_x, n / 3);
  (void)compared_lambda;
}

// ------------------------------------------------------------------ independent reference

// Every active set of size ≤ n: solve [P G_Aᵀ; G_A 0][x; λ] = [−c; h_A], keep primal and dual
// feasible points, return the cheapest.
template <int N, int MaxM>
Eigen::VectorXd enumerate_active_sets(const QpProblem<N, MaxM>& pb, double* best_obj) {
  const int m = pb.m();
  Eigen::VectorXd best;
  double best_f = std::numeric_limits<double>::infinity();
  for (unsigned mask = 0; mask < (1u << m); ++mask) {
    const int k = __builtin_popcount(mask);
    if (k > N) continue;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(N + k, N + k);
    Eigen::VectorXd r(N + k);
    K.topLeftCorner(N, N) = pb.P;
    r.head(N) = -pb.c;
    int j = 0;
    for (int i = 0; i < m; ++i) {
      if (!(mask >> i & 1u)) continue;
      K.block(N + j, 0, 1, N) = pb.G.row(i);
      K.block(0, N + j, N, 1) = pb.G.row(i).transpose();
      r(N + j) = pb.h(i);
      ++j;
    }
    Eigen::FullPivLU<Eigen::MatrixXd> lu(K);
    if (lu.rank() < N + k) continue;
    const Eigen::VectorXd z = lu.solve(r);
    const Eigen::VectorXd x = z.head(N);
    if ((z.tail(k).array() < -1e-12).any()) continue;
    if (((pb.G * x - pb.h).array() > 1e-12).any()) continue;
    const double f = 0.5 * x.dot(pb.P * x) + pb.c.dot(x);
    if (f < best_f) best_f = f, best = x;
  }
  *best_obj = best_f;
  return best;
}

template <int N, int MaxM>
void random_qp_vs_reference(int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0), H(0.05, 1.0);
  double worst = 0.0;
  int iters = 0;
  for (int t = 0; t < count; ++t) {
    QpProblem<N, MaxM> pb;
    const Eigen::Matrix<double, N + 1, N> F = Eigen::Matrix<double, N + 1, N>::NullaryExpr([&] { return U(rng); });
    pb.P = F.transpose() * F;
    pb.c = Eigen::Matrix<double, N, 1>::NullaryExpr([&] { return 2.0 * U(rng); });
    const int m = std::min(MaxM, 2 * N + 2);
    pb.G.resize(m, N);
    pb.h.resize(m);
    // A box (bounded) plus random rows, all through a random interior point.
    const Eigen::Matrix<double, N, 1> x0 = Eigen::Matrix<double, N, 1>::NullaryExpr([&] { return 0.3 * U(rng); });
    for (int i = 0; i < m; ++i) {
      Eigen::Matrix<double, 1, N> row = Eigen::Matrix<double, 1, N>::Zero();
      if (i < 2 * N)
        row(i % N) = i < N ? 1.0 : -1.0;
      else
        row = Eigen::Matrix<double, 1, N>::NullaryExpr([&] { return U(rng); }).normalized();
      pb.G.row(i) = row;
      pb.h(i) = row.dot(x0.transpose()) + H(rng);
    }
    const auto sol = solve_qp(pb);
    ASSERT_EQ(sol.status, SolveStatus::ok) << "problem " << t;
    EXPECT_TRUE(sol.polished) << "problem " << t;
    EXPECT_TRUE(sol.unique) << "problem " << t;
    double f_ref = 0;
    const Eigen::VectorXd x_ref = enumerate_active_sets(pb, &f_ref);
    ASSERT_EQ(x_ref.size(), N) << "reference found no KKT point, problem " << t;
    const double e = (sol.x - x_ref).cwiseAbs().maxCoeff();
    worst = std::max(worst, e);
    EXPECT_LE(e, 1e-9) << "problem " << t;
    EXPECT_NEAR(sol.objective, f_ref, 1e-10 * (1.0 + std::abs(f_ref)));
    EXPECT_LE(sol.primal_residual, 1e-12);
    EXPECT_LE(sol.dual_residual, 1e-9);
    iters += sol.iterations;
  }
  std::printf("IP vs active-set enumeration, N = %d: %d problems, max |x - x_ref| = %.2e, mean iterations %.1f\n",
              N, count, worst, double(iters) / count);
}

TEST(QpSolver, InteriorPointAgreesWithActiveSetEnumeration) {
  random_qp_vs_reference<2, 4>(500, 1);
  random_qp_vs_reference<3, 18>(500, 2);
  random_qp_vs_reference<4, 32>(500, 3);
}

// dx = −S·(dP x + dc): perturb c (and P) and compare with finite differences of the solution.
TEST(QpSolver, SensitivityMatchesFiniteDifferences) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1.0, 1.0), H(0.05, 1.0);
  int checked = 0;
  for (int t = 0; t < 300; ++t) {
    QpProblem<3, 18> pb;
    const Eigen::Matrix<double, 4, 3> F = Eigen::Matrix<double, 4, 3>::NullaryExpr([&] { return U(rng); });
    pb.P = F.transpose() * F;
    pb.c = Eigen::Vector3d(2 * U(rng), 2 * U(rng), 2 * U(rng));
    pb.G.resize(8, 3);
    pb.h.resize(8);
    for (int i = 0; i < 8; ++i) {
      Eigen::RowVector3d row = Eigen::RowVector3d::Zero();
      if (i < 6)
        row(i % 3) = i < 3 ? 1.0 : -1.0;
      else
        row = Eigen::RowVector3d(U(rng), U(rng), U(rng)).normalized();
      pb.G.row(i) = row;
      pb.h(i) = H(rng);
    }
    const auto sol = solve_qp(pb);
    ASSERT_EQ(sol.status, SolveStatus::ok);
    // Only strictly complementary solutions are differentiable.
    bool strict = true;
    for (int i = 0; i < 8; ++i) strict = strict && (sol.lambda(i) > 1e-4 || sol.slack(i) > 1e-4);
    if (!strict) continue;
    const Eigen::Vector3d dc(U(rng), U(rng), U(rng));
    Eigen::Matrix3d dP = Eigen::Matrix3d::NullaryExpr([&] { return U(rng); });
    dP = (dP + dP.transpose()).eval();
    const Eigen::Vector3d dx = -sol.S * (dP * sol.x + dc);
    const double h = 1e-6;
    auto pp = pb, pm = pb;
    pp.c += h * dc, pp.P += h * dP;
    pm.c -= h * dc, pm.P -= h * dP;
    const Eigen::Vector3d fd = (solve_qp(pp).x - solve_qp(pm).x) / (2 * h);
    EXPECT_LE((fd - dx).cwiseAbs().maxCoeff(), 1e-6 * (1.0 + dx.cwiseAbs().maxCoeff())) << "problem " << t;
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

TEST(QpSolver, StatusesInsteadOfExceptions) {
  QpProblem<2, 4> pb;
  pb.P.setIdentity();
  pb.c << 3, -2;
  pb.G.resize(4, 2);
  pb.G << 1, 0, 0, 1, -1, 0, 0, -1;
  pb.h.resize(4);
  pb.h << 1, 1, 0, 0;
  QpOptions one;
  one.max_iterations = 1;
  const auto s1 = solve_qp(pb, one);
  EXPECT_EQ(s1.status, SolveStatus::not_converged);
  EXPECT_TRUE(s1.x.allFinite() && s1.lambda.allFinite());
  auto bad = pb;
  bad.c(0) = kNaN;
  const auto s2 = solve_qp(bad);
  EXPECT_EQ(s2.status, SolveStatus::invalid_input);
  EXPECT_TRUE(s2.x.allFinite());
  auto mismatch = pb;
  mismatch.h.resize(3);
  EXPECT_EQ(solve_qp(mismatch).status, SolveStatus::invalid_input);
  // Solved: x = (0, 1) (the box corner nearest to −c), λ from the active bounds.
  const auto s3 = solve_qp(pb);
  ASSERT_EQ(s3.status, SolveStatus::ok);
  EXPECT_NEAR(s3.x(0), 0.0, 1e-14);
  EXPECT_NEAR(s3.x(1), 1.0, 1e-14);
  EXPECT_STREQ(status_name(SolveStatus::not_converged), "not_converged");
}

}  // namespace
