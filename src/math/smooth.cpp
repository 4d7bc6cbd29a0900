// Checked smooth operators (Contax seed, Sec. III); the kernels live in the header.
#include "diffcol/math/smooth.hpp"

#include <stdexcept>
#include <string>

namespace diffcol::smooth {

void validate_temperature(double t, const char* what) {
  if (!is_valid_temperature(t))
    throw std::invalid_argument(std::string("diffcol::smooth: ") + what +
                                " must be finite and >= 0 (0 = hard operator), got " +
                                std::to_string(t));
}

namespace {

void validate_bounds(double lo, double hi, const char* what) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi)
    throw std::invalid_argument(std::string("diffcol::smooth::") + what +
                                ": bounds must be finite with lo <= hi, got lo = " +
                                std::to_string(lo) + ", hi = " + std::to_string(hi));
}

void validate_array(const double* x, int n, const char* what) {
  if (x == nullptr || n < 1)
    throw std::invalid_argument(std::string("diffcol::smooth::") + what +
                                ": needs a non-null array with n >= 1, got n = " +
                                std::to_string(n));
}

void validate_top_k(const double* x, int n, int k, double t, const double* P, const char* what) {
  validate_temperature(t, what);
  validate_array(x, n, what);
  if (P == nullptr) throw std::invalid_argument(std::string("diffcol::smooth::") + what + ": P is null");
  if (k < 1 || k > n)
    throw std::invalid_argument(std::string("diffcol::smooth::") + what + ": k must be in [1, n], got k = " +
                                std::to_string(k) + ", n = " + std::to_string(n));
}

// Strict total order "a before b": larger value first, ties (and NaN) by index.
bool ranks_before(const double* x, int a, int b) {
  const double xa = x[a], xb = x[b];
  if (xa > xb) return true;
  if (xa < xb) return false;
  if (std::isnan(xa) != std::isnan(xb)) return !std::isnan(xa);  // NaN ranks last
  return a < b;
}

// sign(x_c − x_j) for the SoftSort logit −|x_c − x_j|/t, with ties decided by the order: −1 where
// x_j ranks before x_c, +1 after, 0 at j = c. The derivative is then that of the sort order held
// fixed, for every row alike (the sign of 0 gave the row of the second tied entry the opposite
// branch to the first's, and a derivative that matched neither side of the tie).
double order_sign(const double* x, int c, int j) {
  if (j == c) return 0.0;
  return ranks_before(x, j, c) ? -1.0 : 1.0;
}

// The entry ranked right after `prev` (prev = −1: the largest): the r-th pick of the top-K in
// O(n) without memory.
int next_in_order(const double* x, int n, int prev) {
  int best = -1;
  for (int j = 0; j < n; ++j) {
    if (prev >= 0 && !ranks_before(x, prev, j)) continue;
    if (best < 0 || ranks_before(x, j, best)) best = j;
  }
  return best;
}

// Fills one SoftSort row centered on value s (the row sums to 1).
void softsort_row(const double* x, int n, double s, double t, double* row) {
  // Logits −|s − x_j|/t are ≤ 0 with max 0 at the center: exp cannot overflow.
  double sum = 0.0;
  for (int j = 0; j < n; ++j) {
    row[j] = std::exp(-std::abs(s - x[j]) / t);
    sum += row[j];
  }
  for (int j = 0; j < n; ++j) row[j] /= sum;
}

}  // namespace

double sigmoid(double x, double t) {
  validate_temperature(t, "sigmoid temperature");
  return kernel::sigmoid(x, t);
}

double sigmoid_derivative(double x, double t) {
  validate_temperature(t, "sigmoid_derivative temperature");
  return kernel::sigmoid_derivative(x, t);
}

double softplus(double x, double t, double* dx) {
  validate_temperature(t, "softplus temperature");
  if (dx) *dx = kernel::sigmoid(x, t);
  return kernel::softplus(x, t);
}

double soft_sign(double x, double t) {
  validate_temperature(t, "soft_sign temperature");
  return kernel::soft_sign(x, t);
}

double soft_sign_derivative(double x, double t) {
  validate_temperature(t, "soft_sign_derivative temperature");
  if (t == 0.0) return 0.0;
  const double th = std::tanh(x / t);
  return (1.0 - th) * (1.0 + th) / t;
}

double soft_clip(double x, double lo, double hi, double t) {
  validate_temperature(t, "soft_clip temperature");
  validate_bounds(lo, hi, "soft_clip");
  return kernel::soft_clip(x, lo, hi, t);
}

double soft_clip_derivative(double x, double lo, double hi, double t, double* d_lo, double* d_hi) {
  validate_temperature(t, "soft_clip_derivative temperature");
  validate_bounds(lo, hi, "soft_clip_derivative");
  // d/dx = σ(x−lo) − σ(x−hi); d/dlo = 1 − σ(x−lo); d/dhi = σ(x−hi).
  const double s_lo = kernel::sigmoid(x - lo, t);
  const double s_hi = kernel::sigmoid(x - hi, t);
  if (d_lo) *d_lo = 1.0 - s_lo;
  if (d_hi) *d_hi = s_hi;
  return s_lo - s_hi;
}

double soft_greater(double a, double b, double t) {
  validate_temperature(t, "soft_greater temperature");
  return kernel::sigmoid(a - b, t);
}

double soft_within(double x, double lo, double hi, double t) {
  validate_temperature(t, "soft_within temperature");
  validate_bounds(lo, hi, "soft_within");
  return kernel::soft_within(x, lo, hi, t);
}

double logsumexp(const double* x, int n, double t, double* weights) {
  validate_temperature(t, "logsumexp temperature");
  validate_array(x, n, "logsumexp");
  return kernel::logsumexp(x, n, t, weights);
}

double softmin(const double* x, int n, double t, double* weights) {
  validate_temperature(t, "softmin temperature");
  validate_array(x, n, "softmin");
  return kernel::softmin(x, n, t, weights);
}

void soft_argmax(const double* x, int n, double t, double* weights) {
  validate_temperature(t, "soft_argmax temperature");
  validate_array(x, n, "soft_argmax");
  if (weights == nullptr) throw std::invalid_argument("diffcol::smooth::soft_argmax: weights is null");
  kernel::logsumexp(x, n, t, weights);
}

void soft_argmin(const double* x, int n, double t, double* weights) {
  validate_temperature(t, "soft_argmin temperature");
  validate_array(x, n, "soft_argmin");
  if (weights == nullptr) throw std::invalid_argument("diffcol::smooth::soft_argmin: weights is null");
  kernel::softmin(x, n, t, weights);
}

void soft_top_k(const double* x, int n, int k, double t, double* P, int* order) {
  validate_top_k(x, n, k, t, P, "soft_top_k");
  int center = -1;
  for (int r = 0; r < k; ++r) {
    center = next_in_order(x, n, center);
    if (order) order[r] = center;
    double* Pr = P + static_cast<long>(r) * n;
    if (t == 0.0) {
      for (int j = 0; j < n; ++j) Pr[j] = (j == center) ? 1.0 : 0.0;
    } else {
      softsort_row(x, n, x[center], t, Pr);
    }
  }
}

void soft_top_k_vjp(const double* x, int n, int k, double t, const double* P, const double* G,
                    double* dL_dx) {
  validate_top_k(x, n, k, t, P, "soft_top_k_vjp");
  if (G == nullptr || dL_dx == nullptr)
    throw std::invalid_argument("diffcol::smooth::soft_top_k_vjp: G or dL_dx is null");
  for (int j = 0; j < n; ++j) dL_dx[j] = 0.0;
  if (t == 0.0) return;
  int c = -1;
  for (int r = 0; r < k; ++r) {
    c = next_in_order(x, n, c);
    const double* Pr = P + static_cast<long>(r) * n;
    const double* Gr = G + static_cast<long>(r) * n;
    // ∂L/∂a_j for the logits a_j = −|x_c − x_j|/t (softmax backward).
    double dot = 0.0;
    for (int j = 0; j < n; ++j) dot += Pr[j] * Gr[j];
    double to_center = 0.0;
    for (int j = 0; j < n; ++j) {
      const double abar = Pr[j] * (Gr[j] - dot);
      const double sg = order_sign(x, c, j);
      // ∂a_j/∂x_c = −sg/t, ∂a_j/∂x_j = +sg/t.
      to_center -= abar * sg / t;
      dL_dx[j] += abar * sg / t;
    }
    dL_dx[c] += to_center;
  }
}

void soft_top_k_jvp(const double* x, int n, int k, double t, const double* P, const double* dx,
                    double* dP) {
  validate_top_k(x, n, k, t, P, "soft_top_k_jvp");
  if (dx == nullptr || dP == nullptr)
    throw std::invalid_argument("diffcol::smooth::soft_top_k_jvp: dx or dP is null");
  int c = -1;
  for (int r = 0; r < k; ++r) {
    c = next_in_order(x, n, c);
    const double* Pr = P + static_cast<long>(r) * n;
    double* dPr = dP + static_cast<long>(r) * n;
    if (t == 0.0) {
      for (int j = 0; j < n; ++j) dPr[j] = 0.0;
      continue;
    }
    // da_j = −sg_j (dx_c − dx_j)/t; dP_j = P_j (da_j − Σ_l P_l da_l).
    double mean = 0.0;
    for (int j = 0; j < n; ++j) {
      const double sg = order_sign(x, c, j);
      dPr[j] = -sg * (dx[c] - dx[j]) / t;
      mean += Pr[j] * dPr[j];
    }
    for (int j = 0; j < n; ++j) dPr[j] = Pr[j] * (dPr[j] - mean);
  }
}

}  // namespace diffcol::smooth
