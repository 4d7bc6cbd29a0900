#include "diffcol/math/gradient_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace diffcol {

Pose perturb(const Pose& X, const Vec6& xi, ReferenceFrame frame) {
  if (!X.is_finite()) throw std::invalid_argument("perturb: X is not finite");
  Pose Y;
  if (frame == ReferenceFrame::local_world_aligned) {
    if (!xi.allFinite()) throw std::invalid_argument("perturb: xi is not finite");
    Y.R = so3_exp(xi.head<3>()) * X.R;
    Y.p = X.p + xi.tail<3>();
  } else {
    const Pose E = se3_exp(xi);
    Y = frame == ReferenceFrame::world ? E * X : X * E;
  }
  if (!Y.is_finite()) throw std::invalid_argument("perturb: the result overflows");
  return Y;
}

namespace {

// Ridders' extrapolation of one column, per entry (Numerical Recipes, dfridr).
template <class Eval>
void ridders_column(const Eval& eval, double h0, int levels, Eigen::VectorXd& best, Eigen::VectorXd& err) {
  const int kTab = std::clamp(levels, 2, 64);
  constexpr double kCon = 1.4, kCon2 = kCon * kCon, kSafe = 2.0;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<Eigen::VectorXd>> a(kTab);  // a[i][j]: row i (step), extrapolation order j
  double h = h0;
  int m = -1;
  std::vector<char> done;
  for (int i = 0; i < kTab; ++i, h /= kCon) {
    const Eigen::VectorXd fp = eval(h), fm = eval(-h);
    if (m < 0) {
      m = static_cast<int>(fp.size());
      best = Eigen::VectorXd::Constant(m, std::numeric_limits<double>::quiet_NaN());
      err = Eigen::VectorXd::Constant(m, inf);
      done.assign(m, 0);
    }
    a[i].assign(i + 1, Eigen::VectorXd::Constant(m, std::numeric_limits<double>::quiet_NaN()));
    if (fp.size() == m && fm.size() == m) a[i][0] = (fp - fm) / (2.0 * h);
    double fac = kCon2;
    for (int j = 1; j <= i; ++j, fac *= kCon2) {
      a[i][j] = (a[i][j - 1] * fac - a[i - 1][j - 1]) / (fac - 1.0);
      for (int r = 0; r < m; ++r) {
        if (done[r]) continue;
        const double e = std::max(std::abs(a[i][j][r] - a[i][j - 1][r]), std::abs(a[i][j][r] - a[i - 1][j - 1][r]));
        if (e <= err[r]) {
          err[r] = e;
          best[r] = a[i][j][r];
        }
      }
    }
    bool all_done = true;
    for (int r = 0; r < m; ++r) {
      // higher order is worse by a significant factor: stop refining this entry
      if (!done[r] && i > 0 && std::abs(a[i][i][r] - a[i - 1][i - 1][r]) >= kSafe * err[r]) done[r] = 1;
      all_done = all_done && done[r];
    }
    if (all_done) break;
  }
  // entries for which no extrapolation was finite: fall back to the finest finite central difference
  for (int r = 0; r < m; ++r) {
    if (std::isfinite(best[r])) continue;
    for (int i = kTab - 1; i >= 0; --i)
      if (!a[i].empty() && std::isfinite(a[i][0][r])) {
        best[r] = a[i][0][r];
        break;
      }
  }
}

// The Jacobian column by column; eval(k, t) = f at the input moved by t along coordinate k.
template <class Eval>
Eigen::MatrixXd fd_columns(int ncols, const Eval& eval, const GradientCheckOptions& opt, Eigen::MatrixXd* error) {
  if (opt.column_steps.size() != 0 && opt.column_steps.size() != ncols)
    throw std::invalid_argument("gradient check: column_steps must have one entry per column");
  if (!(std::isfinite(opt.step) && opt.step > 0.0) ||
      !(opt.column_steps.allFinite() && (opt.column_steps.array() > 0.0).all()))
    throw std::invalid_argument("gradient check: step and column_steps must be finite and > 0");
  Eigen::MatrixXd J, E;
  for (int k = 0; k < ncols; ++k) {
    const double h = opt.column_steps.size() == ncols ? opt.column_steps[k] : opt.step;
    Eigen::VectorXd d, e;
    if (opt.method == FdMethod::ridders) {
      // Ridders' extrapolation from h, h/10, h/100, ...: an entry is accepted once two successive
      // starts agree (to 0.1·max(abs_tolerance, rel_tolerance·|value|)); entries that never do
      // take the pair that agreed best. The error estimate is the larger of that disagreement
      // and Ridders' own estimate.
      Eigen::VectorXd prev, prev_e;
      ridders_column([&](double t) { return eval(k, t); }, h, opt.ridders_levels, prev, prev_e);
      const long m = prev.size();
      d = prev;
      e = Eigen::VectorXd::Constant(m, std::numeric_limits<double>::infinity());
      std::vector<char> accepted(m, 0);
      double hr = h;
      for (int restart = 0; restart < std::max(1, opt.ridders_restarts); ++restart) {
        hr *= 0.1;
        Eigen::VectorXd cur, cur_e;
        ridders_column([&](double t) { return eval(k, t); }, hr, opt.ridders_levels, cur, cur_e);
        if (cur.size() != m) break;
        bool all = true;
        for (long r = 0; r < m; ++r) {
          if (accepted[r]) continue;
          const double gap = std::abs(cur[r] - prev[r]);
          const double est = std::max(gap, std::max(cur_e[r], prev_e[r]));
          if (std::isfinite(cur[r]) && (!(est >= e[r]) || !std::isfinite(d[r]))) {
            d[r] = cur[r];
            e[r] = est;
          }
          if (est <= 0.1 * std::max(opt.abs_tolerance, opt.rel_tolerance * std::abs(cur[r]))) accepted[r] = 1;
          all = all && accepted[r];
        }
        if (all) break;
        prev = cur;
        prev_e = cur_e;
      }
    } else {
      const Eigen::VectorXd fp = eval(k, h), fm = eval(k, -h);
      d = (fp - fm) / (2.0 * h);
      if (opt.method == FdMethod::richardson) {
        const Eigen::VectorXd fp2 = eval(k, 0.5 * h), fm2 = eval(k, -0.5 * h);
        const Eigen::VectorXd d2 = (fp2 - fm2) / h;
        d = (4.0 * d2 - d) / 3.0;
      }
      e = Eigen::VectorXd::Zero(d.size());
    }
    if (k == 0) {
      J.resize(d.size(), ncols);
      E.resize(d.size(), ncols);
    }
    if (d.size() != J.rows()) {
      J.setConstant(std::numeric_limits<double>::quiet_NaN());
      E.setConstant(std::numeric_limits<double>::infinity());
      break;
    }
    J.col(k) = d;
    E.col(k) = e;
  }
  if (error != nullptr) *error = E;
  return J;
}

}  // namespace

Eigen::MatrixXd numeric_jacobian(const PoseFunction& f, const Pose& X, const GradientCheckOptions& opt,
                                 Eigen::MatrixXd* error) {
  return fd_columns(
      6, [&](int k, double t) { return f(perturb(X, t * Vec6::Unit(k), opt.frame)); }, opt, error);
}

Eigen::MatrixXd numeric_jacobian(const PosePairFunction& f, const Pose& X1, const Pose& X2,
                                 const GradientCheckOptions& opt, Eigen::MatrixXd* error) {
  return fd_columns(
      12,
      [&](int k, double t) {
        if (k < 6) return f(perturb(X1, t * Vec6::Unit(k), opt.frame), X2);
        return f(X1, perturb(X2, t * Vec6::Unit(k - 6), opt.frame));
      },
      opt, error);
}

Eigen::MatrixXd numeric_jacobian(const VectorFunction& f, const Eigen::VectorXd& q, const GradientCheckOptions& opt,
                                 Eigen::MatrixXd* error) {
  const int n = static_cast<int>(q.size());
  return fd_columns(
      n,
      [&](int k, double t) {
        Eigen::VectorXd qt = q;
        qt[k] += t;
        return f(qt);
      },
      opt, error);
}

GradientCheckResult compare_jacobians(const Eigen::MatrixXd& A, const Eigen::MatrixXd& N,
                                      const GradientCheckOptions& opt, const Eigen::MatrixXd& fd_error) {
  GradientCheckResult res;
  res.numeric = N;
  res.fd_error = (fd_error.rows() == N.rows() && fd_error.cols() == N.cols())
                     ? fd_error
                     : Eigen::MatrixXd(Eigen::MatrixXd::Zero(N.rows(), N.cols()));
  res.shape_ok = A.rows() == N.rows() && A.cols() == N.cols();
  std::vector<OutputBlock> blocks = opt.blocks;
  if (blocks.empty()) blocks.push_back({"output", 0, static_cast<int>(A.rows())});
  const double inf = std::numeric_limits<double>::infinity();
  for (const OutputBlock& b : blocks) {
    BlockError e;
    e.name = b.name;
    e.offset = b.offset;
    e.size = b.size;
    if (!res.shape_ok || b.offset < 0 || b.size < 0 || b.offset + b.size > A.rows()) {
      e.passed = false;
      e.max_abs_error = e.max_rel_error = e.worst_ratio = inf;
      res.blocks.push_back(e);
      continue;
    }
    for (int i = b.offset; i < b.offset + b.size; ++i) {
      for (int j = 0; j < A.cols(); ++j) {
        const double a = A(i, j), n = N(i, j);
        double abs_err, rel_err;
        if (!std::isfinite(a) || !std::isfinite(n)) {
          abs_err = rel_err = inf;
        } else {
          abs_err = std::abs(a - n);
          double mag = std::max(std::abs(a), std::abs(n));
          if (opt.column_group > 1) {
            const int g0 = (j / opt.column_group) * opt.column_group;
            const int g1 = std::min<int>(g0 + opt.column_group, static_cast<int>(A.cols()));
            for (int k = g0; k < g1; ++k)
              if (std::isfinite(A(i, k)) && std::isfinite(N(i, k)))
                mag = std::max(mag, std::max(std::abs(A(i, k)), std::abs(N(i, k))));
          }
          rel_err = mag > 0.0 ? abs_err / mag : 0.0;
        }
        const double ratio = std::min(abs_err / opt.abs_tolerance, rel_err / opt.rel_tolerance);
        e.max_abs_error = std::max(e.max_abs_error, abs_err);
        if (abs_err > opt.abs_tolerance) e.max_rel_error = std::max(e.max_rel_error, rel_err);
        if (e.worst_row < 0 || ratio > e.worst_ratio || !(ratio == ratio)) {
          e.worst_ratio = ratio;
          e.worst_row = i;
          e.worst_col = j;
          e.worst_analytic = a;
          e.worst_numeric = n;
          e.worst_fd_error = res.shape_ok ? res.fd_error(i, j) : 0.0;
        }
      }
    }
    e.passed = e.worst_ratio <= 1.0;
    res.blocks.push_back(e);
  }
  return res;
}

bool GradientCheckResult::passed() const {
  if (!shape_ok) return false;
  for (const BlockError& b : blocks)
    if (!b.passed) return false;
  return true;
}

double GradientCheckResult::max_abs_error() const {
  double m = 0.0;
  for (const BlockError& b : blocks) m = std::max(m, b.max_abs_error);
  return m;
}

double GradientCheckResult::max_rel_error() const {
  double m = 0.0;
  for (const BlockError& b : blocks) m = std::max(m, b.max_rel_error);
  return m;
}

std::string GradientCheckResult::report() const {
  std::ostringstream os;
  if (!shape_ok) os << "analytic and numeric Jacobians differ in size\n";
  char line[256];
  for (const BlockError& b : blocks) {
    std::snprintf(line, sizeof line,
                  "%-4s %-16s rows %3d..%-3d max_abs %.3e max_rel %.3e worst (%d,%d) analytic %.12g numeric %.12g "
                  "(fd error est. %.1e)\n",
                  b.passed ? "ok" : "FAIL", b.name.c_str(), b.offset, b.offset + b.size - 1, b.max_abs_error,
                  b.max_rel_error, b.worst_row, b.worst_col, b.worst_analytic, b.worst_numeric, b.worst_fd_error);
    os << line;
  }
  return os.str();
}

GradientCheckResult check_pose_gradient(const PoseFunction& f, const Pose& X, const Eigen::MatrixXd& analytic,
                                        const GradientCheckOptions& options) {
  Eigen::MatrixXd E;
  const Eigen::MatrixXd N = numeric_jacobian(f, X, options, &E);
  return compare_jacobians(analytic, N, options, E);
}

GradientCheckResult check_pose_gradient(const PosePairFunction& f, const Pose& X1, const Pose& X2,
                                        const Eigen::MatrixXd& analytic, const GradientCheckOptions& options) {
  Eigen::MatrixXd E;
  const Eigen::MatrixXd N = numeric_jacobian(f, X1, X2, options, &E);
  return compare_jacobians(analytic, N, options, E);
}

GradientCheckResult check_gradient(const VectorFunction& f, const Eigen::VectorXd& q, const Eigen::MatrixXd& analytic,
                                   const GradientCheckOptions& options) {
  Eigen::MatrixXd E;
  const Eigen::MatrixXd N = numeric_jacobian(f, q, options, &E);
  return compare_jacobians(analytic, N, options, E);
}

}  // namespace diffcol
