// The GPU batch solver against the CPU solver (idcol::solve_contact) on the same pose pairs:
// ergodic-sweep and random poses for every ordered pair of the shape types the GPU runs, invalid
// poses, coincident origins, mismatched sizes; a batch object reused across calls of different sizes. Skipped where no CUDA device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "diffcol/batch/contact_batch_cuda.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/ergodic.hpp"

namespace {

using namespace diffcol;
using namespace diffcol::idcol;
namespace bc = diffcol::batch::cuda;

#define SKIP_WITHOUT_DEVICE() \
  if (!bc::cuda_available()) GTEST_SKIP() << "no CUDA device"

std::vector<Shape> gpu_shapes() {
  return {benchmark_shape("sphere"), benchmark_shape("ellipsoid"), benchmark_shape("poly"), benchmark_shape("tc"),
          benchmark_shape("se"),     benchmark_shape("sec"),       Superellipsoid(0.3, 0.9, 0.6, 2),
          SuperellipticCylinder(0.4, 1.2, 4), SmoothPolytope::box(0.2, 0.6, 0.4, 40.0)};
}

Pose random_pose(std::mt19937& rng, double spread) {
  std::normal_distribution<double> g(0.0, 1.0);
  const Vec3 p(spread * g(rng), spread * g(rng), spread * g(rng));
  return Pose::from_quaternion(p, g(rng), g(rng), g(rng), g(rng));
}

TEST(ContactBatchCuda, MatchesTheCpuSolverOnEveryPair) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937 rng(7);
  long fallbacks = 0, total = 0, ill_conditioned = 0;
  for (const Shape& s1 : gpu_shapes())
    for (const Shape& s2 : gpu_shapes()) {
      const ErgodicSweep sweep = ErgodicSweep::for_pair(s1, s2);
      std::vector<Pose> X1, X2;
      for (int i = 0; i < 3000; ++i) {  // the sweep, body 1 at the identity, then random pairs
        X1.push_back(Pose::identity());
        X2.push_back(sweep.pose(37 * i));
      }
      for (int i = 0; i < 1000; ++i) {
        X1.push_back(random_pose(rng, 1.0));
        X2.push_back(random_pose(rng, 1.5));
      }
      std::vector<bc::CudaContactSolution> gpu;
      bc::CudaBatchOptions options;
      options.gradients = true;
      const bc::CudaBatchStats st = bc::solve_contacts(s1, s2, X1, X2, gpu, options);
      ASSERT_EQ(gpu.size(), X2.size());
      fallbacks += st.cpu_fallbacks;
      total += static_cast<long>(X2.size());
      for (size_t i = 0; i < X2.size(); ++i) {
        const ContactSolution c = solve_contact(s1, X1[i], s2, X2[i]);
        const bc::CudaContactSolution& g = gpu[i];
        SCOPED_TRACE(::testing::Message() << shape_type_name(s1.type()) << "-" << shape_type_name(s2.type())
                                          << " pose " << i);
        ASSERT_EQ(g.status, c.status);
        ASSERT_TRUE(c.ok());
        EXPECT_LT(g.residual_norm, 1e-10);
        // both meet ‖f‖ < 1e-10 (GPU and CPU round differently: FMA contraction, libm); α, the gap and
        // the normal then agree closely, x* to the conditioning of the KKT system: where it is nearly
        // singular (parallel faces, e.g. the sweep's axis-aligned first pose: pivot ratio ~5e-10)
        // x* slides along the faces, and it and the gradients are not compared
        EXPECT_NEAR(g.alpha, c.alpha, 1e-8 * c.alpha);
        EXPECT_NEAR(g.gap, c.gap, 1e-8 * (1.0 + std::abs(c.gap)));
        EXPECT_LT((g.normal_B1 - c.normal_B1).norm(), 1e-6);
        if (c.kkt_lu.pivot_ratio() > 1e-6) {
          const ContactDerivatives d = contact_derivatives(c);
          ASSERT_TRUE(d.ok());
          EXPECT_LT((g.x_B1 - c.x_B1).norm(), 1e-6 * (1.0 + c.x_B1.norm()));
          // gradients (envelope theorem on the GPU) against the CPU's implicit-function-theorem
          // ones; at parallel faces they depend on where x* sits on the faces, as x* does
          const auto close = [](const RowVec6& a, const RowVec6& b) {
            return (a - b).norm() <= 1e-6 * (1.0 + b.norm());
          };
          EXPECT_TRUE(close(g.J_alpha_X12, d.J_alpha_X12)) << g.J_alpha_X12 << " vs " << d.J_alpha_X12;
          EXPECT_TRUE(close(g.J_gap_X12, d.J_gap_X12)) << g.J_gap_X12 << " vs " << d.J_gap_X12;
          EXPECT_TRUE(close(g.J_alpha_X1, d.J_alpha_X1)) << g.J_alpha_X1 << " vs " << d.J_alpha_X1;
          EXPECT_TRUE(close(g.J_alpha_X2, d.J_alpha_X2)) << g.J_alpha_X2 << " vs " << d.J_alpha_X2;
          EXPECT_TRUE(close(g.J_gap_X1, d.J_gap_X1)) << g.J_gap_X1 << " vs " << d.J_gap_X1;
          EXPECT_TRUE(close(g.J_gap_X2, d.J_gap_X2)) << g.J_gap_X2 << " vs " << d.J_gap_X2;
        } else {
          ++ill_conditioned;
        }
        EXPECT_TRUE(g.J_alpha_X1.allFinite() && g.J_gap_X2.allFinite());
        EXPECT_GT(g.lambda1, 0.0);
        EXPECT_GT(g.lambda2, 0.0);
      }
    }
  RecordProperty("cpu_fallbacks", static_cast<int>(fallbacks));
  EXPECT_LT(fallbacks, total / 1000);  // the GPU solves almost everything itself
  EXPECT_LT(ill_conditioned, total / 1000);
}

// The gradients against central differences of α* and the gap, both from GPU solves at the poses
// moved by ±h and ±h/2 along each world twist of each body (X ← exp(±h e_k)·X), at tolerance
// 1e-12, with one Richardson step (4D(h/2) − D(h))/3: plain central differences at h = 1e-4 miss
// by up to 1.5e-5 in the rotations of the sharp polytopes (truncation: h² times α's third derivative).
TEST(ContactBatchCuda, GradientsMatchCentralDifferences) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937 rng(11);
  bc::CudaBatchOptions options;
  options.gradients = true;
  options.solve.tolerance = 1e-12;
  constexpr double h = 1e-4;
  for (const Shape& s1 : gpu_shapes())
    for (const Shape& s2 : gpu_shapes()) {
      std::vector<Pose> X1, X2;  // base poses, then 48 moved copies per base pose
      while (X1.size() < 20) {
        const Pose a = random_pose(rng, 1.0), b = random_pose(rng, 1.5);
        if (solve_contact(s1, a, s2, b).kkt_lu.pivot_ratio() > 1e-6) {  // away from parallel faces
          X1.push_back(a);
          X2.push_back(b);
        }
      }
      const size_t m = X1.size();
      for (size_t i = 0; i < m; ++i)
        for (int body = 0; body < 2; ++body)
          for (int k = 0; k < 6; ++k)
            for (const double step : {h, -h, 0.5 * h, -0.5 * h}) {
              Vec6 eta = Vec6::Zero();
              eta[k] = step;
              const Pose move = se3_exp(eta);
              X1.push_back(body == 0 ? move * X1[i] : X1[i]);
              X2.push_back(body == 1 ? move * X2[i] : X2[i]);
            }
      bc::CudaContactBatch batch(s1, s2, options);
      batch.solve(X1, X2);
      const auto sol = batch.solutions();
      for (size_t i = 0; i < m; ++i) {
        SCOPED_TRACE(::testing::Message() << shape_type_name(s1.type()) << "-" << shape_type_name(s2.type())
                                          << " pose " << i);
        ASSERT_EQ(sol[i].status, SolveStatus::ok);
        for (int body = 0; body < 2; ++body) {
          const RowVec6& Ja = body == 0 ? sol[i].J_alpha_X1 : sol[i].J_alpha_X2;
          const RowVec6& Jd = body == 0 ? sol[i].J_gap_X1 : sol[i].J_gap_X2;
          RowVec6 fa, fd;
          for (int k = 0; k < 6; ++k) {
            const size_t q = m + i * 48 + body * 24 + k * 4;  // +h, −h, +h/2, −h/2
            const auto richardson = [&](auto value) {
              const double d1 = (value(sol[q]) - value(sol[q + 1])) / (2.0 * h);
              const double d2 = (value(sol[q + 2]) - value(sol[q + 3])) / h;
              return (4.0 * d2 - d1) / 3.0;
            };
            fa[k] = richardson([](const bc::CudaContactSolution& c) { return c.alpha; });
            fd[k] = richardson([](const bc::CudaContactSolution& c) { return c.gap; });
          }
          EXPECT_LT((Ja - fa).norm(), 1e-6 * (1.0 + fa.norm())) << Ja << " vs " << fa;
          EXPECT_LT((Jd - fd).norm(), 1e-6 * (1.0 + fd.norm())) << Jd << " vs " << fd;
        }
      }
    }
}

TEST(ContactBatchCuda, InvalidPosesGetInvalidInput) {
  SKIP_WITHOUT_DEVICE();
  const Shape s = benchmark_shape("ellipsoid");
  Pose bad = Pose::identity();
  bad.p.x() = std::nan("");
  Pose skew = Pose::identity();
  skew.R(0, 1) = 0.5;  // not a rotation
  const std::vector<Pose> X1 = {Pose::identity()};
  const std::vector<Pose> X2 = {bad, skew, Pose::from_quaternion(Vec3(3, 0, 0), 1, 0, 0, 0)};
  std::vector<bc::CudaContactSolution> out;
  bc::solve_contacts(s, s, X1, X2, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].status, SolveStatus::invalid_input);
  EXPECT_EQ(out[1].status, SolveStatus::invalid_input);
  EXPECT_EQ(out[2].status, SolveStatus::ok);
  EXPECT_TRUE(std::isfinite(out[0].alpha));
}

TEST(ContactBatchCuda, CoincidentOriginsMatchTheCpuSolver) {
  SKIP_WITHOUT_DEVICE();
  const Shape a = benchmark_shape("se"), b = benchmark_shape("sec");
  const std::vector<Pose> X1 = {Pose::identity()};
  const std::vector<Pose> X2 = {Pose::from_quaternion(Vec3::Zero(), 0.9, 0.1, 0.3, 0.2)};
  std::vector<bc::CudaContactSolution> out;
  bc::CudaBatchOptions options;
  options.gradients = true;
  bc::solve_contacts(a, b, X1, X2, out, options);
  const ContactSolution c = solve_contact(a, X1[0], b, X2[0]);
  EXPECT_EQ(out[0].status, c.status);
  EXPECT_EQ(out[0].status, SolveStatus::coincident_origins);
  EXPECT_NEAR(out[0].gap, c.gap, 1e-8);
  EXPECT_EQ(out[0].J_alpha_X1.norm(), 0.0);  // not differentiable there: zero, never NaN
}

TEST(ContactBatchCuda, RejectsMismatchedSizesAndBadOptions) {
  const Shape s = benchmark_shape("sphere");
  const std::vector<Pose> one = {Pose::identity()}, two = {Pose::identity(), Pose::identity()},
                          three(3, Pose::identity());
  std::vector<bc::CudaContactSolution> out;
  EXPECT_THROW(bc::solve_contacts(s, s, two, three, out), std::invalid_argument);
  bc::CudaBatchOptions bad;
  bad.solve.tolerance = -1.0;
  EXPECT_THROW(bc::solve_contacts(s, s, one, one, out, bad), std::invalid_argument);
  bad = {};
  bad.num_threads = -1;
  EXPECT_THROW(bc::solve_contacts(s, s, one, one, out, bad), std::invalid_argument);
  // an empty batch needs no device
  bc::solve_contacts(s, s, one, {}, out);
  EXPECT_TRUE(out.empty());
}

TEST(ContactBatchCuda, ReusedBatchGrowsAndShrinks) {
  SKIP_WITHOUT_DEVICE();
  const Shape a = benchmark_shape("poly"), b = benchmark_shape("tc");
  const ErgodicSweep sweep = ErgodicSweep::for_pair(a, b);
  bc::CudaContactBatch batch(a, b);
  const Pose I = Pose::identity();
  for (const int n : {10, 5000, 3, 2000}) {
    std::vector<Pose> X2;
    for (int i = 0; i < n; ++i) X2.push_back(sweep.pose(101 * i + n));
    batch.solve({&I, 1}, X2);
    ASSERT_EQ(batch.solutions().size(), size_t(n));
    for (int i = 0; i < n; i += 7) {
      const ContactSolution c = solve_contact(a, I, b, X2[i]);
      EXPECT_EQ(batch.solutions()[i].status, c.status);
      EXPECT_NEAR(batch.solutions()[i].alpha, c.alpha, 1e-8 * c.alpha);
    }
  }
}

}  // namespace
