// Tests of the smooth operators (diffcol/math/smooth.hpp): derivatives vs central finite
// differences, hard limits, numerical stability and the soft top-K.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "diffcol/math/smooth.hpp"

namespace sm = diffcol::smooth;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Central difference of a scalar function, step scaled to x.
double central_fd(const std::function<double(double)>& f, double x, double h) {
  return (f(x + h) - f(x - h)) / (2.0 * h);
}

// |a − b| ≤ tol·max(1, |a|, |b|).
::testing::AssertionResult near_rel(double a, double b, double tol) {
  const double scale = std::max({1.0, std::abs(a), std::abs(b)});
  if (std::abs(a - b) <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << a << " vs " << b << " (diff " << std::abs(a - b)
                                       << ", tol " << tol * scale << ")";
}

}  // namespace

TEST(Smooth, ScalarDerivativesMatchCentralDifferences) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-3.0, 3.0);
  std::uniform_real_distribution<double> T(0.05, 2.0);
  for (int trial = 0; trial < 500; ++trial) {
    const double x = U(rng), t = T(rng);
    const double h = 1e-5 * t;
    // Relative tolerance scaled by the curvature: derivatives are O(1/t), FD error O(h²/t³).
    const double tol = 1e-7;
    EXPECT_TRUE(near_rel(sm::sigmoid_derivative(x, t) * t,
                         central_fd([&](double y) { return sm::sigmoid(y, t); }, x, h) * t, tol));
    double dsp = 0.0;
    sm::softplus(x, t, &dsp);
    EXPECT_TRUE(near_rel(dsp, central_fd([&](double y) { return sm::softplus(y, t); }, x, h), tol));
    EXPECT_TRUE(near_rel(sm::soft_sign_derivative(x, t) * t,
                         central_fd([&](double y) { return sm::soft_sign(y, t); }, x, h) * t, tol));
    const double lo = -0.5 + 0.3 * U(rng) / 3.0, hi = lo + 0.2 + std::abs(U(rng));
    double d_lo = 0.0, d_hi = 0.0;
    const double d_x = sm::soft_clip_derivative(x, lo, hi, t, &d_lo, &d_hi);
    EXPECT_TRUE(near_rel(d_x, central_fd([&](double y) { return sm::soft_clip(y, lo, hi, t); }, x, h), tol));
    // Bounds are perturbed inside their valid range (lo ≤ hi keeps holding for small h).
    EXPECT_TRUE(near_rel(d_lo, central_fd([&](double l) { return sm::soft_clip(x, l, hi, t); }, lo, h), tol));
    EXPECT_TRUE(near_rel(d_hi, central_fd([&](double u) { return sm::soft_clip(x, lo, u, t); }, hi, h), tol));
  }
}

TEST(Smooth, KernelsAgreeWithCheckedOperators) {
  // The generic kernels (used by the manifold routines) and the checked API are the same maths.
  for (double x : {-2.0, -0.1, 0.0, 0.3, 5.0})
    for (double t : {0.0, 0.01, 1.0}) {
      EXPECT_EQ(sm::kernel::sigmoid(x, t), sm::sigmoid(x, t));
      EXPECT_EQ(sm::kernel::softplus(x, t), sm::softplus(x, t));
      EXPECT_EQ(sm::kernel::soft_clip(x, -1.0, 1.0, t), sm::soft_clip(x, -1.0, 1.0, t));
      EXPECT_EQ(sm::kernel::soft_within(x, -1.0, 1.0, t), sm::soft_within(x, -1.0, 1.0, t));
    }
}

TEST(Smooth, LogsumexpAndSoftminWeightsAreTheirGradients) {
  std::mt19937 rng(11);
  std::normal_distribution<double> N(0.0, 2.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + trial % 9;
    const double t = 0.05 + 0.01 * (trial % 50);
    std::vector<double> x(n), w(n), wm(n), xp(n);
    for (double& v : x) v = N(rng);
    sm::logsumexp(x.data(), n, t, w.data());
    sm::softmin(x.data(), n, t, wm.data());
    EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1.0, 1e-14);
    EXPECT_NEAR(std::accumulate(wm.begin(), wm.end(), 0.0), 1.0, 1e-14);
    for (int i = 0; i < n; ++i) {
      const double h = 1e-6;
      auto lse_i = [&](double v) {
        xp = x;
        xp[i] = v;
        return sm::logsumexp(xp.data(), n, t);
      };
      auto smin_i = [&](double v) {
        xp = x;
        xp[i] = v;
        return sm::softmin(xp.data(), n, t);
      };
      EXPECT_TRUE(near_rel(w[i], central_fd(lse_i, x[i], h), 1e-7));
      EXPECT_TRUE(near_rel(wm[i], central_fd(smin_i, x[i], h), 1e-7));
    }
    // Soft argmax/argmin are the same weights.
    std::vector<double> a(n), b(n);
    sm::soft_argmax(x.data(), n, t, a.data());
    sm::soft_argmin(x.data(), n, t, b.data());
    for (int i = 0; i < n; ++i) {
      EXPECT_DOUBLE_EQ(a[i], w[i]);
      EXPECT_DOUBLE_EQ(b[i], wm[i]);
    }
  }
}

TEST(Smooth, HardLimitsAreApproachedAsTemperatureVanishes) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> U(-2.0, 2.0);
  for (int trial = 0; trial < 200; ++trial) {
    const double x = U(rng);
    double prev_err_sp = kInf;
    for (double t : {1.0, 0.1, 1e-2, 1e-3, 1e-4, 1e-6}) {
      // softplus − relu ∈ (0, t·log 2]: a bound derived independently of the code.
      const double err_sp = sm::softplus(x, t) - std::max(x, 0.0);
      EXPECT_GT(err_sp, -1e-15);
      EXPECT_LE(err_sp, t * std::log(2.0) + 1e-15);
      EXPECT_LE(err_sp, prev_err_sp + 1e-15);
      prev_err_sp = err_sp;
      // Clip error ≤ 2·t·log 2 (two softplus terms).
      EXPECT_LE(std::abs(sm::soft_clip(x, -0.5, 0.7, t) - std::clamp(x, -0.5, 0.7)),
                2.0 * t * std::log(2.0) + 1e-15);
    }
    if (std::abs(x) > 1e-3) {
      EXPECT_NEAR(sm::sigmoid(x, 1e-5), x > 0 ? 1.0 : 0.0, 1e-12);
      EXPECT_NEAR(sm::soft_sign(x, 1e-5), x > 0 ? 1.0 : -1.0, 1e-12);
      EXPECT_NEAR(sm::soft_greater(x, 0.0, 1e-5), x > 0 ? 1.0 : 0.0, 1e-12);
    }
  }
  // Hard operators at t = 0.
  EXPECT_EQ(sm::sigmoid(0.0, 0.0), 0.5);
  EXPECT_EQ(sm::sigmoid(1e-300, 0.0), 1.0);
  EXPECT_EQ(sm::sigmoid(-1e-300, 0.0), 0.0);
  EXPECT_EQ(sm::soft_sign(0.0, 0.0), 0.0);
  EXPECT_EQ(sm::softplus(-3.0, 0.0), 0.0);
  EXPECT_EQ(sm::softplus(3.0, 0.0), 3.0);
  EXPECT_EQ(sm::soft_clip(3.0, 0.0, 1.0, 0.0), 1.0);
  EXPECT_EQ(sm::soft_clip(0.25, 0.0, 1.0, 0.0), 0.25);
  EXPECT_EQ(sm::sigmoid_derivative(0.3, 0.0), 0.0);
  // logsumexp ∈ [max, max + t·log n]; softmin ∈ [min − t·log n, min].
  const double x[5] = {0.3, -1.0, 2.5, 2.4, 0.0};
  for (double t : {1.0, 0.1, 1e-3, 1e-8}) {
    const double lse = sm::logsumexp(x, 5, t);
    EXPECT_GE(lse, 2.5 - 1e-15);
    EXPECT_LE(lse, 2.5 + t * std::log(5.0) + 1e-15);
    const double smin = sm::softmin(x, 5, t);
    EXPECT_LE(smin, -1.0 + 1e-15);
    EXPECT_GE(smin, -1.0 - t * std::log(5.0) - 1e-15);
  }
  double w[5];
  EXPECT_EQ(sm::logsumexp(x, 5, 0.0, w), 2.5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(w[i], i == 2 ? 1.0 : 0.0);
  EXPECT_EQ(sm::softmin(x, 5, 0.0, w), -1.0);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(w[i], i == 1 ? 1.0 : 0.0);
  sm::soft_argmax(x, 5, 1e-4, w);
  EXPECT_NEAR(w[2], 1.0, 1e-12);  // gap 0.1 ≫ t
}

TEST(Smooth, HugeInputsStayFinite) {
  for (double x : {1e300, -1e300, 1e-300, -1e-300, kInf, -kInf})
    for (double t : {1e-300, 1e-8, 1.0, 1e300}) {
      const double s = sm::sigmoid(x, t);
      EXPECT_TRUE(std::isfinite(s));
      EXPECT_GE(s, 0.0);
      EXPECT_LE(s, 1.0);
      EXPECT_TRUE(std::isfinite(sm::sigmoid_derivative(x, t)));
      EXPECT_TRUE(std::isfinite(sm::soft_sign(x, t)));
      EXPECT_TRUE(std::isfinite(sm::soft_sign_derivative(x, t)));
      EXPECT_TRUE(std::isfinite(sm::soft_clip(x, -1.0, 1.0, t)));
      EXPECT_TRUE(std::isfinite(sm::soft_clip_derivative(x, -1.0, 1.0, t)));
      double d = kNaN;
      const double sp = sm::softplus(x, t, &d);
      EXPECT_TRUE(std::isfinite(d));
      if (std::isfinite(x)) {
        EXPECT_TRUE(std::isfinite(sp));
        EXPECT_GE(sp, std::max(x, 0.0));
      }
    }
  // Exact limits where |x|/t overflows.
  EXPECT_EQ(sm::softplus(1e300, 1e-300), 1e300);
  EXPECT_EQ(sm::softplus(-1e300, 1e-300), 0.0);
  EXPECT_EQ(sm::sigmoid(1e300, 1e-300), 1.0);
  EXPECT_EQ(sm::soft_clip(1e300, 0.0, 1.0, 1.0), 1.0);
  EXPECT_EQ(sm::soft_clip(-1e300, 0.0, 1.0, 1.0), 0.0);
  // Huge spreads in vector operators.
  const double x[4] = {1e300, -1e300, 0.0, 1e299};
  double w[4];
  EXPECT_EQ(sm::logsumexp(x, 4, 1.0, w), 1e300);
  EXPECT_EQ(w[0], 1.0);
  EXPECT_EQ(sm::softmin(x, 4, 1.0, w), -1e300);
  EXPECT_EQ(w[1], 1.0);
  const double big[3] = {1e300, 1e300, 1e300};
  EXPECT_NEAR(sm::logsumexp(big, 3, 1e280, w) / 1e300, 1.0 + 1e-20 * std::log(3.0), 1e-15);
  EXPECT_NEAR(w[0], 1.0 / 3.0, 1e-15);
  double P[8];
  sm::soft_top_k(x, 4, 2, 1e-300, P);
  for (double p : P) EXPECT_TRUE(std::isfinite(p));
  // NaN propagates instead of crashing.
  const double with_nan[3] = {1.0, kNaN, 0.0};
  EXPECT_TRUE(std::isnan(sm::logsumexp(with_nan, 3, 1.0, w)));
  EXPECT_TRUE(std::isnan(sm::softplus(kNaN, 1.0)));
}

TEST(Smooth, InvalidArgumentsThrow) {
  const double x[3] = {1.0, 2.0, 3.0};
  double w[9];
  EXPECT_THROW(sm::sigmoid(0.0, -1.0), std::invalid_argument);
  EXPECT_THROW(sm::softplus(0.0, kNaN), std::invalid_argument);
  EXPECT_THROW(sm::soft_sign(0.0, kInf), std::invalid_argument);
  EXPECT_THROW(sm::soft_clip(0.0, 1.0, 0.0, 0.1), std::invalid_argument);
  EXPECT_THROW(sm::soft_clip(0.0, kNaN, 1.0, 0.1), std::invalid_argument);
  EXPECT_THROW(sm::soft_within(0.0, 1.0, 0.0, 0.1), std::invalid_argument);
  EXPECT_THROW(sm::logsumexp(x, 0, 0.1), std::invalid_argument);
  EXPECT_THROW(sm::logsumexp(nullptr, 3, 0.1), std::invalid_argument);
  EXPECT_THROW(sm::softmin(x, 3, -0.1), std::invalid_argument);
  EXPECT_THROW(sm::soft_argmax(x, 3, 0.1, nullptr), std::invalid_argument);
  EXPECT_THROW(sm::soft_top_k(x, 3, 0, 0.1, w), std::invalid_argument);
  EXPECT_THROW(sm::soft_top_k(x, 3, 4, 0.1, w), std::invalid_argument);
  EXPECT_THROW(sm::soft_top_k(x, 3, 2, 0.1, nullptr), std::invalid_argument);
  try {
    sm::sigmoid(0.0, -2.0);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("finite and >= 0"), std::string::npos);
  }
}

TEST(Smooth, SoftTopKRowsAreDistributionsThatPickTheSortedEntries) {
  std::mt19937 rng(5);
  std::normal_distribution<double> N(0.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const int n = 2 + trial % 30;
    const int k = 1 + trial % n;
    std::vector<double> x(n);
    for (double& v : x) v = N(rng);
    // Reference order by std::sort (independent of the code under test).
    std::vector<int> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return x[a] > x[b]; });
    double min_gap = kInf;
    for (int i = 0; i + 1 < n; ++i) min_gap = std::min(min_gap, x[idx[i]] - x[idx[i + 1]]);
    std::vector<double> P(k * n);
    std::vector<int> order(k);
    for (double t : {1.0, 0.1, 0.01}) {
      sm::soft_top_k(x.data(), n, k, t, P.data(), order.data());
      for (int r = 0; r < k; ++r) {
        EXPECT_EQ(order[r], idx[r]);
        double sum = 0.0;
        for (int j = 0; j < n; ++j) {
          EXPECT_GE(P[r * n + j], 0.0);
          sum += P[r * n + j];
        }
        EXPECT_NEAR(sum, 1.0, 1e-14);
        // The center has the largest weight of its row.
        for (int j = 0; j < n; ++j) EXPECT_LE(P[r * n + j], P[r * n + idx[r]]);
      }
    }
    // As t → 0 (t ≪ the smallest gap) each row becomes the exact one-hot of the r-th largest.
    const double t_small = min_gap / 50.0;
    sm::soft_top_k(x.data(), n, k, t_small, P.data());
    for (int r = 0; r < k; ++r)
      for (int j = 0; j < n; ++j)
        EXPECT_NEAR(P[r * n + j], j == idx[r] ? 1.0 : 0.0, 2.0 * n * std::exp(-50.0));
    sm::soft_top_k(x.data(), n, k, 0.0, P.data());
    for (int r = 0; r < k; ++r) {
      for (int j = 0; j < n; ++j) EXPECT_EQ(P[r * n + j], j == idx[r] ? 1.0 : 0.0);
      // Selected value P·x is the r-th largest.
      double sel = 0.0;
      for (int j = 0; j < n; ++j) sel += P[r * n + j] * x[j];
      EXPECT_EQ(sel, x[idx[r]]);
    }
  }
  // Ties are broken by index, the rows stay one-hot in hard mode.
  const double tied[4] = {1.0, 2.0, 2.0, 0.0};
  double P[8];
  int order[2];
  sm::soft_top_k(tied, 4, 2, 0.0, P, order);
  EXPECT_EQ(order[0], 1);
  EXPECT_EQ(order[1], 2);
}

TEST(Smooth, SoftTopKJacobianProductsMatchCentralDifferences) {
  std::mt19937 rng(9);
  std::normal_distribution<double> N(0.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const int n = 2 + trial % 12;
    const int k = 1 + trial % n;
    const double t = 0.1 + 0.02 * (trial % 20);
    std::vector<double> x(n), dx(n), G(k * n), P(k * n), dP(k * n), vjp(n), xp(n), Pp(k * n), Pm(k * n);
    for (double& v : x) v = N(rng);
    for (double& v : dx) v = N(rng);
    for (double& v : G) v = N(rng);
    // The step must not reorder x (the relaxation is continuous there but the centers switch).
    double min_gap = kInf;
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) min_gap = std::min(min_gap, std::abs(x[a] - x[b]));
    const double h = std::min(1e-6, 0.1 * min_gap / 10.0);
    sm::soft_top_k(x.data(), n, k, t, P.data());
    sm::soft_top_k_jvp(x.data(), n, k, t, P.data(), dx.data(), dP.data());
    sm::soft_top_k_vjp(x.data(), n, k, t, P.data(), G.data(), vjp.data());
    for (int i = 0; i < n; ++i) xp[i] = x[i] + h * dx[i];
    sm::soft_top_k(xp.data(), n, k, t, Pp.data());
    for (int i = 0; i < n; ++i) xp[i] = x[i] - h * dx[i];
    sm::soft_top_k(xp.data(), n, k, t, Pm.data());
    double scale = 0.0;
    for (int e = 0; e < k * n; ++e) scale = std::max(scale, std::abs(dP[e]));
    for (int e = 0; e < k * n; ++e) {
      const double fd = (Pp[e] - Pm[e]) / (2.0 * h);
      EXPECT_NEAR(dP[e], fd, 1e-6 * std::max(1.0, scale)) << "trial " << trial << " entry " << e;
    }
    // VJP consistency: <G, J dx> = <Jᵀ G, dx>.
    double lhs = 0.0, rhs = 0.0;
    for (int e = 0; e < k * n; ++e) lhs += G[e] * dP[e];
    for (int i = 0; i < n; ++i) rhs += vjp[i] * dx[i];
    EXPECT_TRUE(near_rel(lhs, rhs, 1e-12));
  }
}
