// Tests of the analytic contact derivatives (include/diffcol/idcol/derivatives.hpp) against central
// finite differences on SE(3) (include/diffcol/math/gradient_check.hpp).
//
// The sweep covers every ordered pair of the benchmark shapes {sphere, ellipsoid, poly, tc, se,
// sec} on DIFFCOL_DERIV_POSES poses per pair (default 100), spread over four categories:
// separated (α ∈ [1.05, 3]), touching (|d_D| < 1e-6), penetrating (α ∈ [0.3, 0.97]) and
// near-degenerate (nearly parallel flat faces, tilt 1e-3…1e-1 rad, or nearly coincident origins,
// α ∈ [1e-3, 1e-2]; closer origins, down to α = 1e-8, in NearlyCoincidentOrigins). Configurations are built with the homogeneity α*(R, c·r) = c·α*(R, r).
// Every derivative must agree with the finite differences to ≤ 1e-6 relative or ≤ 1e-8 absolute.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/idcol/hessians.hpp"
#include "diffcol/math/gradient_check.hpp"

#include "test_util.hpp"
#include "../src/idcol/sphere_pair.hpp"

// ------------------------------------------------------------ allocation counter (whole test binary)
// malloc is interposed (glibc) so that Eigen's heap allocations are counted as well as operator new.
#include "malloc_counter.hpp"
namespace {
using namespace diffcol::test;
}  // namespace

namespace {

using diffcol::GradientCheckOptions;
using diffcol::GradientCheckResult;
using diffcol::Mat3;
using diffcol::Mat6;
using diffcol::OutputBlock;
using diffcol::ReferenceFrame;
using diffcol::Pose;
using diffcol::rotation_between;
using diffcol::Shape;
using diffcol::skew;
using diffcol::Vec3;
using diffcol::Vec6;
using diffcol::idcol::benchmark_shape;
using diffcol::idcol::benchmark_shape_names;
using diffcol::BodyJacobian;
using diffcol::idcol::ContactDerivatives;
using diffcol::idcol::ContactPair;
using diffcol::idcol::ContactSolution;
using diffcol::SolveStatus;
using diffcol::idcol::ContactWrenches;
using diffcol::DerivativeStatus;
using diffcol::idcol::HertzModel;
using diffcol::idcol::SolveOptions;

constexpr double kRelTol = 1e-6;
constexpr double kAbsTol = 1e-8;

long deriv_pose_count() { return diffcol::test::env_count("DIFFCOL_DERIV_POSES", 100); }

// FD reference solves: residual below 1e-14 (reachable: the residual floor is ~1e-16), so that
// the ill-conditioned directions of near-degenerate configurations are resolved too.
SolveOptions tight_options() {
  SolveOptions o;
  o.tolerance = 1e-14;
  o.polish_threshold = 0.0;  // always one more Newton step: the difference quotients see every move
  return o;
}

double log_uniform(std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> U(std::log(lo), std::log(hi));
  return std::exp(U(rng));
}

// --------------------------------------------------------------------- stacked outputs
// Rows: α, λ1, λ2, d_D, x_B1, p1_B1, p2_B1, n_B1 (16 body-1 rows), then x_W, p1_W, p2_W, n_W.
const std::vector<OutputBlock>& kinematic_blocks() {
  static const std::vector<OutputBlock> b = {
      {"alpha", 0, 1},    {"lambda1", 1, 1},  {"lambda2", 2, 1},   {"gap", 3, 1},
      {"x_B1", 4, 3},     {"p1_B1", 7, 3},    {"p2_B1", 10, 3},    {"normal_B1", 13, 3},
      {"x_W", 16, 3},     {"p1_W", 19, 3},    {"p2_W", 22, 3},     {"normal_W", 25, 3}};
  return b;
}
constexpr int kBodyRows = 16, kAllRows = 28;

Eigen::VectorXd kinematic_values(const ContactSolution& s) {
  Eigen::VectorXd v(kAllRows);
  v << s.alpha, s.lambda1, s.lambda2, s.gap, s.x_B1, s.p1_B1, s.p2_B1, s.normal_B1, s.x_W, s.p1_W, s.p2_W,
      s.normal_W;
  return v;
}

// [J_X1 | J_X2] (28×12) and J_X12 (16×6) from the named blocks.
Eigen::MatrixXd kinematic_jacobian_world(const ContactDerivatives& d) {
  Eigen::MatrixXd J(kAllRows, 12);
  J << d.J_alpha_X1, d.J_alpha_X2, d.J_lambda1_X1, d.J_lambda1_X2, d.J_lambda2_X1, d.J_lambda2_X2, d.J_gap_X1,
      d.J_gap_X2, d.J_x_B1_X1, d.J_x_B1_X2, d.J_p1_B1_X1, d.J_p1_B1_X2, d.J_p2_B1_X1, d.J_p2_B1_X2,
      d.J_normal_B1_X1, d.J_normal_B1_X2, d.J_x_W_X1, d.J_x_W_X2, d.J_p1_W_X1, d.J_p1_W_X2, d.J_p2_W_X1,
      d.J_p2_W_X2, d.J_normal_W_X1, d.J_normal_W_X2;
  return J;
}
Eigen::MatrixXd kinematic_jacobian_relative(const ContactDerivatives& d) {
  Eigen::MatrixXd J(kBodyRows, 6);
  J << d.J_alpha_X12, d.J_lambda1_X12, d.J_lambda2_X12, d.J_gap_X12, d.J_x_B1_X12, d.J_p1_B1_X12, d.J_p2_B1_X12,
      d.J_normal_B1_X12;
  return J;
}

// Wrenches: f_n, F_c1_B1, F_c2_B2, F_c1_W, F_c2_W (25 rows).
const std::vector<OutputBlock>& wrench_blocks() {
  static const std::vector<OutputBlock> b = {
      {"f_n", 0, 1}, {"F_c1_B1", 1, 6}, {"F_c2_B2", 7, 6}, {"F_c1_W", 13, 6}, {"F_c2_W", 19, 6}};
  return b;
}
Eigen::VectorXd wrench_values(const ContactWrenches& w) {
  Eigen::VectorXd v(25);
  v << w.f_n, w.F_c1_B1, w.F_c2_B2, w.F_c1_W, w.F_c2_W;
  return v;
}
Eigen::MatrixXd wrench_jacobian_world(const ContactWrenches& w) {
  Eigen::MatrixXd J(25, 12);
  J << w.J_fn_X1, w.J_fn_X2, w.J_Fc1_B1_X1, w.J_Fc1_B1_X2, w.J_Fc2_B2_X1, w.J_Fc2_B2_X2, w.J_Fc1_W_X1,
      w.J_Fc1_W_X2, w.J_Fc2_W_X1, w.J_Fc2_W_X2;
  return J;
}
Eigen::MatrixXd wrench_jacobian_relative(const ContactWrenches& w) {
  Eigen::MatrixXd J(13, 6);
  J << w.J_fn_X12, w.J_Fc1_B1_X12, w.J_Fc2_B2_X12;
  return J;
}

// --------------------------------------------------------------------- configurations

enum class Category { separated, touching, penetrating, parallel_faces, near_coincident };
const char* category_name(Category c) {
  switch (c) {
    case Category::separated: return "separated";
    case Category::touching: return "touching";
    case Category::penetrating: return "penetrating";
    case Category::parallel_faces: return "parallel_faces";
    case Category::near_coincident: return "near_coincident";
  }
  return "?";
}

// Outward normals of (nearly) flat faces in the body frame; empty for shapes without flat faces.
std::vector<Vec3> flat_faces(const std::string& name) {
  if (name == "poly") {
    std::vector<Vec3> f;
    const double A[8][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1},
                            {-1, -1, -1}, {1, 1, -1}, {1, -1, 1}, {-1, 1, 1}};
    for (const auto& a : A) f.push_back(Vec3(a[0], a[1], a[2]).normalized());
    return f;
  }
  if (name == "tc" || name == "sec") return {Vec3::UnitX(), -Vec3::UnitX()};  // caps, axis x
  if (name == "se") return {Vec3::UnitX(), -Vec3::UnitX(), Vec3::UnitY(), -Vec3::UnitY(), Vec3::UnitZ(), -Vec3::UnitZ()};
  return {};
}

struct Config {
  Category category;
  Pose X_W1, X_W2;
  double scale = 1.0;  // length/angle scale of the configuration (sets the FD step)
  int variant = 0;     // selects the Hertz exponent p of the wrench check
};

// Solves at (X_W1, X_W1·g) and rescales r so that α* = target; false if a solve fails.
bool rescale_to_alpha(ContactPair& pair, const Pose& X_W1, Pose& g, double target) {
  for (int it = 0; it < 3; ++it) {
    const ContactSolution& s = pair.solve_cold(X_W1, X_W1 * g);
    if (s.status != SolveStatus::ok) return false;
    if (std::abs(s.alpha / target - 1.0) < 1e-13) return true;
    g.p *= target / s.alpha;
  }
  return pair.solve_cold(X_W1, X_W1 * g).status == SolveStatus::ok;
}

bool make_config(ContactPair& pair, const std::string& n1, const std::string& n2, Category cat, std::mt19937& rng,
                 Config& c) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::normal_distribution<double> N(0.0, 1.0);
  c.category = cat;
  c.X_W1 = make_pose(random_rotation(rng), Vec3(N(rng), N(rng), N(rng)));
  Pose g = make_pose(random_rotation(rng), random_unit(rng));
  double target = 1.0;
  c.scale = 1.0;
  switch (cat) {
    case Category::separated: target = 1.05 + 1.95 * U(rng); break;
    case Category::touching: target = 1.0; break;
    case Category::penetrating: target = 0.3 + 0.67 * U(rng); break;
    case Category::near_coincident:
      target = log_uniform(rng, 1e-3, 1e-2);  // ‖r‖ ≤ 1% of r1 + r2; closer: NearlyCoincidentOrigins
      c.scale = target;
      break;
    case Category::parallel_faces: {
      std::vector<Vec3> f1 = flat_faces(n1), f2 = flat_faces(n2);
      const Vec3 a = f1.empty() ? random_unit(rng) : f1[rng() % f1.size()];
      const Vec3 b = f2.empty() ? random_unit(rng) : f2[rng() % f2.size()];
      const double tilt = log_uniform(rng, 1e-3, 1e-1);
      const Mat3 R_tilt = Eigen::AngleAxisd(tilt, random_unit(rng)).toRotationMatrix();
      // body 2's face b anti-parallel to body 1's face a (up to the tilt), spun about a
      const Mat3 spin = Eigen::AngleAxisd(2.0 * M_PI * U(rng), a).toRotationMatrix();
      g.R = R_tilt * spin * rotation_between(b, -a);
      Vec3 lateral = random_unit(rng);
      lateral -= lateral.dot(a) * a;
      g.p = a + 0.1 * U(rng) * lateral;
      target = 0.9 + 0.2 * U(rng);
      c.scale = tilt;
      break;
    }
  }
  if (!rescale_to_alpha(pair, c.X_W1, g, target)) return false;
  if (cat == Category::touching) {
    // |d_D| < 1e-6: α = 1 + d/‖r‖ with d uniform in ±5e-7
    const double d = (U(rng) - 0.5) * 1e-6;
    if (!rescale_to_alpha(pair, c.X_W1, g, 1.0 / (1.0 - d / g.p.norm()))) return false;
  }
  c.X_W2 = c.X_W1 * g;
  return true;
}

// --------------------------------------------------------------------- statistics

struct Stat {
  double max_abs = 0.0, max_rel = 0.0, worst_ratio = 0.0;
  long failures = 0, checks = 0;
  std::string worst_where;
};

struct Sweep {
  std::map<std::string, Stat> by_block;  // "<block>" over everything
  std::map<std::string, long> configs_by_category;
  std::map<std::string, long> failures_by_category;
  long configs = 0, failed_configs = 0, skipped = 0;
  long solver_normal_inconsistent = 0;  // configurations skipped: ContactSolution::normal_B1 is stale
  std::vector<std::string> messages;

  void add(const GradientCheckResult& r, const std::string& prefix, const std::string& where) {
    for (const auto& b : r.blocks) {
      Stat& s = by_block[prefix + b.name];
      ++s.checks;
      s.max_abs = std::max(s.max_abs, b.max_abs_error);
      s.max_rel = std::max(s.max_rel, b.max_rel_error);
      if (b.worst_ratio > s.worst_ratio || !(b.worst_ratio == b.worst_ratio)) {
        s.worst_ratio = b.worst_ratio;
        s.worst_where = where;
      }
      if (!b.passed) ++s.failures;
    }
  }
  void print() const {
    std::printf("%-22s %8s %12s %12s %10s %6s  worst at\n", "block", "checks", "max_abs", "max_rel*", "ratio", "fail");
    for (const auto& [name, s] : by_block)
      std::printf("%-22s %8ld %12.3e %12.3e %10.3g %6ld  %s\n", name.c_str(), s.checks, s.max_abs, s.max_rel,
                  s.worst_ratio, s.failures, s.worst_where.c_str());
    std::printf("(*max_rel over entries whose absolute error exceeds %.0e; ratio = min(abs/%.0e, rel/%.0e), <= 1 passes)\n",
                kAbsTol, kAbsTol, kRelTol);
    for (const auto& [cat, n] : configs_by_category) {
      const auto it = failures_by_category.find(cat);
      std::printf("category %-16s configurations %6ld  failed %ld\n", cat.c_str(), n,
                  it == failures_by_category.end() ? 0L : it->second);
    }
    std::printf("configurations %ld, failed %ld, skipped (construction failed) %ld, skipped (solver normal_B1 "
                "inconsistent) %ld\n",
                configs, failed_configs, skipped, solver_normal_inconsistent);
  }
};

// Checks one configuration: kinematics (X12 and X1/X2), envelope, wrenches. Returns false on a failure.
bool check_config(ContactPair& pair, const Config& c, const std::string& where, Sweep& sw) {
  const ContactSolution sol = pair.solve_cold(c.X_W1, c.X_W2);
  if (sol.status != SolveStatus::ok) {
    sw.messages.push_back(where + ": solve status " + diffcol::status_name(sol.status));
    return false;
  }
  const ContactDerivatives d = contact_derivatives(sol);
  if (!d.ok()) {
    sw.messages.push_back(where + ": derivative status " + status_name(d.status));
    return false;
  }
  bool ok = true;
  const double nan = std::numeric_limits<double>::quiet_NaN();

  // FD: warm started from the unperturbed solution, tolerance 1e-12
  ContactPair fd(pair.shape1(), pair.shape2(), tight_options());
  const auto solve_at = [&](const Pose& A, const Pose& B) -> const ContactSolution* {
    const ContactSolution& s = fd.solve_from(A, B, sol);
    return s.status == SolveStatus::ok ? &s : nullptr;
  };
  GradientCheckOptions opt;
  opt.rel_tolerance = kRelTol;
  opt.abs_tolerance = kAbsTol;
  // Ridders from h0 down to h0/155: 1e-3 suits every category but nearly coincident origins, where
  // translations act on the scale ‖r‖ ~ α (a too small step is no better: a warm-started solve
  // whose residual stays below the tolerance does not move, and the difference is 0)
  opt.step = c.category == Category::near_coincident ? 0.1 * c.scale : 1e-3;
  opt.column_group = 3;

  // the solver's normal must be the one the derivatives describe, ∇φ1(x*/α*)/‖∇φ1‖ (3)
  {
    Vec3 g1;
    Mat3 H1;
    pair.shape1().eval(sol.x_B1 / sol.alpha, g1, H1);
    ++sw.by_block["solver:normal_B1_consistent"].checks;
    if (!((g1.normalized() - sol.normal_B1).norm() <= 1e-9)) {
      // a solver defect, not a derivative error: reported separately, configuration skipped
      sw.messages.push_back(where + ": ContactSolution::normal_B1 is not grad(phi1)(x*/alpha*)/|.| (solver bug; off by " +
                            std::to_string((g1.normalized() - sol.normal_B1).norm()) + ", iterations " +
                            std::to_string(sol.iterations) + ", attempts " + std::to_string(sol.attempts) + ")");
      ++sw.by_block["solver:normal_B1_consistent"].failures;
      ++sw.solver_normal_inconsistent;
      return true;
    }
  }
  // 1) body twist of X_12, body-1 outputs. With nearly coincident origins the v columns vary on
  // the scale ‖r‖ but the ω columns (rotation of body 2 about its own origin) on the scale 1.
  {
    opt.frame = ReferenceFrame::local;
    if (c.category == Category::near_coincident) {
      opt.column_steps.resize(6);
      opt.column_steps << 1e-3, 1e-3, 1e-3, opt.step, opt.step, opt.step;
    }
    opt.blocks.assign(kinematic_blocks().begin(), kinematic_blocks().begin() + 8);
    const auto f = [&](const Pose& g) {
      const ContactSolution* s = solve_at(c.X_W1, c.X_W1 * g);
      return s ? Eigen::VectorXd(kinematic_values(*s).head(kBodyRows)) : Eigen::VectorXd::Constant(kBodyRows, nan);
    };
    const GradientCheckResult r = check_pose_gradient(f, sol.X_12, kinematic_jacobian_relative(d), opt);
    sw.add(r, "X12:", where);
    if (!r.passed()) {
      ok = false;
      sw.messages.push_back(where + " X12\n" + r.report());
    }
    // z block layout
    EXPECT_EQ(Mat3(d.J_z_X12.topLeftCorner<3, 3>()), Mat3(d.J_x_B1_X12.leftCols<3>()));
    EXPECT_EQ(d.J_z_X12.row(3), d.J_alpha_X12);
    EXPECT_EQ(d.J_z_X12.row(4), d.J_lambda1_X12);
    EXPECT_EQ(d.J_z_X12.row(5), d.J_lambda2_X12);
  }
  // 2) world twists of body 1 and body 2, all outputs
  {
    opt.frame = ReferenceFrame::world;
    opt.column_steps.resize(0);
    opt.blocks = kinematic_blocks();
    const auto f = [&](const Pose& A, const Pose& B) {
      const ContactSolution* s = solve_at(A, B);
      return s ? kinematic_values(*s) : Eigen::VectorXd::Constant(kAllRows, nan);
    };
    const GradientCheckResult r = check_pose_gradient(f, c.X_W1, c.X_W2, kinematic_jacobian_world(d), opt);
    sw.add(r, "X1X2:", where);
    if (!r.passed()) {
      ok = false;
      sw.messages.push_back(where + " X1X2\n" + r.report());
    }
  }
  // 3) envelope theorem gradient of α equals the IFT one
  {
    const diffcol::idcol::RowVec6 env = diffcol::idcol::alpha_gradient_envelope(sol);
    const double err = (env - d.J_alpha_X12).norm();
    const double tol = 1e-8 * std::max(1.0, d.J_alpha_X12.norm());
    Stat& s = sw.by_block["envelope_vs_IFT(alpha)"];
    ++s.checks;
    s.max_abs = std::max(s.max_abs, err);
    s.max_rel = std::max(s.max_rel, err / std::max(1e-300, d.J_alpha_X12.norm()));
    if (!(err <= tol)) {
      ++s.failures;
      ok = false;
      sw.messages.push_back(where + ": envelope gradient differs from the IFT one by " + std::to_string(err));
    }
    const auto envw = diffcol::idcol::alpha_gradient_envelope_world(sol);
    const double errw = (envw.head<6>() - d.J_alpha_X1).norm() + (envw.tail<6>() - d.J_alpha_X2).norm();
    if (!(errw <= 1e-8 * std::max(1.0, d.J_alpha_X2.norm()))) {
      ok = false;
      sw.messages.push_back(where + ": world envelope gradient differs from the IFT one");
    }
  }
  // 4) wrenches (away from the kink at δ = 0; the touching configurations straddle it)
  if (c.category != Category::touching) {
    {
      const double p = c.variant % 3 == 0 ? 1.0 : c.variant % 3 == 1 ? 1.5 : 2.0;
      const HertzModel model{1000.0, p};
      const ContactWrenches w = hertz_wrenches(sol, d, model);
      EXPECT_TRUE(w.ok());
      // action–reaction (32): F_c2 expressed in body 1 (Ad_g^{-T}) plus F_c1 is zero; same in the world
      const Pose& g = sol.X_12;
      Vec6 F2_in_1;
      F2_in_1.tail<3>() = g.R * w.F_c2_B2.tail<3>();
      F2_in_1.head<3>() = g.R * w.F_c2_B2.head<3>() + g.p.cross(F2_in_1.tail<3>());
      const double scale = 1.0 + w.F_c1_B1.norm();
      if (!((F2_in_1 + w.F_c1_B1).norm() <= 1e-12 * scale)) {
        ok = false;
        sw.messages.push_back(where + ": action-reaction wrench sum is not zero");
      }
      Vec6 F2W, F1W;
      F2W.tail<3>() = c.X_W2.R * w.F_c2_B2.tail<3>();
      F2W.head<3>() = c.X_W2.R * w.F_c2_B2.head<3>() + c.X_W2.p.cross(F2W.tail<3>());
      F1W.tail<3>() = c.X_W1.R * w.F_c1_B1.tail<3>();
      F1W.head<3>() = c.X_W1.R * w.F_c1_B1.head<3>() + c.X_W1.p.cross(F1W.tail<3>());
      if (!((F1W + F2W).norm() <= 1e-12 * scale * (1.0 + c.X_W1.p.norm() + c.X_W2.p.norm())) ||
          !((F1W - w.F_c1_W).norm() <= 1e-12 * scale * (1.0 + c.X_W1.p.norm()))) {
        ok = false;
        sw.messages.push_back(where + ": world wrenches are inconsistent");
      }
      // FD of the wrenches. Their Jacobians carry the units of k (force/length^p) and reach 1e7
      // at deep penetrations, so "near zero" is taken relative to the largest entry.
      GradientCheckOptions wopt = opt;
      const Eigen::MatrixXd JW = wrench_jacobian_world(w);
      wopt.abs_tolerance = kAbsTol * std::max(1.0, JW.cwiseAbs().maxCoeff());
      wopt.blocks = wrench_blocks();
      wopt.frame = ReferenceFrame::world;
      const auto fw = [&](const Pose& A, const Pose& B) {
        const ContactSolution* s = solve_at(A, B);
        return s ? wrench_values(hertz_wrenches(*s, model)) : Eigen::VectorXd::Constant(25, nan);
      };
      const GradientCheckResult r = check_pose_gradient(fw, c.X_W1, c.X_W2, JW, wopt);
      const std::string tag = "wrench(p=" + std::to_string(p).substr(0, 3) + "):";
      sw.add(r, tag, where);
      if (!r.passed()) {
        ok = false;
        sw.messages.push_back(where + " " + tag + "\n" + r.report());
      }
      wopt.frame = ReferenceFrame::local;
      if (c.category == Category::near_coincident) {
        wopt.column_steps.resize(6);
        wopt.column_steps << 1e-3, 1e-3, 1e-3, opt.step, opt.step, opt.step;
      }
      wopt.blocks = {{"f_n", 0, 1}, {"F_c1_B1", 1, 6}, {"F_c2_B2", 7, 6}};
      const auto fr = [&](const Pose& gg) {
        const ContactSolution* s = solve_at(c.X_W1, c.X_W1 * gg);
        return s ? Eigen::VectorXd(wrench_values(hertz_wrenches(*s, model)).head(13))
                 : Eigen::VectorXd::Constant(13, nan);
      };
      const GradientCheckResult rr = check_pose_gradient(fr, sol.X_12, wrench_jacobian_relative(w), wopt);
      sw.add(rr, tag + "X12:", where);
      if (!rr.passed()) {
        ok = false;
        sw.messages.push_back(where + " " + tag + "X12\n" + rr.report());
      }
    }
  }
  return ok;
}

// Prints a failing configuration at full precision (DIFFCOL_DERIV_DUMP set), for reproduction.
void dump_config(const std::string& where, const Config& c) {
  std::printf("DUMP %s", where.c_str());
  for (const Pose* X : {&c.X_W1, &c.X_W2}) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) std::printf(" %.17g", X->R(i, j));
    for (int i = 0; i < 3; ++i) std::printf(" %.17g", X->p[i]);
  }
  std::printf(" %.17g\n", c.scale);
}

Sweep run_sweep(long poses_per_pair, unsigned seed) {
  Sweep sw;
  const Category cats[] = {Category::separated, Category::touching, Category::penetrating, Category::parallel_faces,
                           Category::near_coincident};
  const auto& names = benchmark_shape_names();
  for (const auto& n1 : names) {
    for (const auto& n2 : names) {
      ContactPair pair(benchmark_shape(n1), benchmark_shape(n2), tight_options());
      std::mt19937 rng(seed + 7919u * static_cast<unsigned>(&n1 - &names[0]) + 104729u * static_cast<unsigned>(&n2 - &names[0]));
      for (long i = 0; i < poses_per_pair; ++i) {
        // 1/4 each separated, touching, penetrating; 1/8 each parallel faces, near-coincident
        const long k = i % 8;
        const Category cat = k < 2 ? cats[0] : k < 4 ? cats[1] : k < 6 ? cats[2] : k == 6 ? cats[3] : cats[4];
        Config c;
        bool built = false;
        for (int attempt = 0; attempt < 5 && !built; ++attempt) built = make_config(pair, n1, n2, cat, rng, c);
        if (!built) {
          ++sw.skipped;
          continue;
        }
        c.variant = static_cast<int>(i / 8);
        ++sw.configs;
        ++sw.configs_by_category[category_name(cat)];
        const std::string where = n1 + "-" + n2 + " #" + std::to_string(i) + " " + category_name(cat);
        if (!check_config(pair, c, where, sw)) {
          if (std::getenv("DIFFCOL_DERIV_DUMP") != nullptr) dump_config(where, c);
          ++sw.failed_configs;
          ++sw.failures_by_category[category_name(cat)];
        }
      }
    }
  }
  return sw;
}

// ===================================================================== tests

TEST(ContactDerivatives, AgreeWithFiniteDifferencesOnEveryPair) {
  const long n = deriv_pose_count();
  const auto t0 = std::chrono::steady_clock::now();
  const Sweep sw = run_sweep(n, 12345u);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("derivative sweep: %ld poses per ordered pair, %.1f s\n", n, secs);
  sw.print();
  const size_t shown = std::getenv("DIFFCOL_DERIV_DUMP") != nullptr ? sw.messages.size() : 20;
  for (size_t i = 0; i < sw.messages.size() && i < shown; ++i) std::printf("%s\n", sw.messages[i].c_str());
  EXPECT_EQ(sw.failed_configs, 0);
  EXPECT_LE(sw.skipped, sw.configs / 100);
  // The derivatives describe n̂ = ∇φ1(x*/α*)/‖∇φ1‖; the solver must return that normal.
  EXPECT_EQ(sw.solver_normal_inconsistent, 0)
      << "ContactSolution::normal_B1 differs from grad(phi1)(x*/alpha*)/|.| (solve_contact, after continuation)";
}

// Origins closer than in the sweep (α* down to 1e-8): the derivatives stay defined, finite and
// consistent (envelope = IFT). Against finite differences the noise floor of the reference grows
// like ε·size/‖r‖: at α* = 1e-4 and 1e-6 the check uses 1e-6 relative and 1e-6 absolute; at
// α* = 1e-8 the finite differences' own error estimates reach ~1e-5 of an entry, so there only
// definedness, finiteness and envelope = IFT are checked.
TEST(ContactDerivatives, NearlyCoincidentOrigins) {
  std::mt19937 rng(2024);
  std::map<double, double> worst_rel, worst_abs;
  int checked = 0;
  for (const auto& n1 : benchmark_shape_names())
    for (const auto& n2 : benchmark_shape_names())
      for (const double target : {1e-8, 1e-6, 1e-4}) {
        ContactPair pair(benchmark_shape(n1), benchmark_shape(n2), tight_options());
        const Pose X_W1 = make_pose(random_rotation(rng), Vec3(0.3, -0.2, 0.5));
        Pose g = make_pose(random_rotation(rng), random_unit(rng));
        ASSERT_TRUE(rescale_to_alpha(pair, X_W1, g, target)) << n1 << "-" << n2;
        const ContactSolution sol = pair.solve_cold(X_W1, X_W1 * g);
        ASSERT_EQ(sol.status, SolveStatus::ok) << n1 << "-" << n2 << " alpha " << target;
        const ContactDerivatives d = contact_derivatives(pair);
        ASSERT_TRUE(d.ok()) << n1 << "-" << n2 << " alpha " << target;
        EXPECT_TRUE(kinematic_jacobian_world(d).allFinite());
        const diffcol::idcol::RowVec6 env = diffcol::idcol::alpha_gradient_envelope(sol);
        EXPECT_LT((env - d.J_alpha_X12).norm(), 1e-8 * std::max(1.0, d.J_alpha_X12.norm()));
        ++checked;
        if (target < 1e-7) continue;
        ContactPair fd(pair.shape1(), pair.shape2(), tight_options());
        GradientCheckOptions opt;
        opt.frame = ReferenceFrame::local;
        opt.column_group = 3;
        opt.abs_tolerance = 1e-6;
        opt.column_steps.resize(6);
        opt.column_steps << 1e-3, 1e-3, 1e-3, 0.1 * target, 0.1 * target, 0.1 * target;
        opt.blocks.assign(kinematic_blocks().begin(), kinematic_blocks().begin() + 8);
        const auto f = [&](const Pose& gg) {
          const ContactSolution& s = fd.solve_from(X_W1, X_W1 * gg, sol);
          return s.status == SolveStatus::ok
                     ? Eigen::VectorXd(kinematic_values(s).head(kBodyRows))
                     : Eigen::VectorXd::Constant(kBodyRows, std::numeric_limits<double>::quiet_NaN());
        };
        const GradientCheckResult r = check_pose_gradient(f, sol.X_12, kinematic_jacobian_relative(d), opt);
        EXPECT_TRUE(r.passed()) << n1 << "-" << n2 << " alpha " << target << "\n" << r.report();
        worst_rel[target] = std::max(worst_rel[target], r.max_rel_error());
        worst_abs[target] = std::max(worst_abs[target], r.max_abs_error());
      }
  std::printf("nearly coincident origins: %d configurations\n", checked);
  for (const auto& [a, rel] : worst_rel)
    std::printf("  alpha %.0e: worst rel %.3e (entries above 1e-6 abs, relative to the row's omega/v group), worst abs %.3e\n",
                a, rel, worst_abs[a]);
}

TEST(ContactDerivatives, UndefinedDerivativesSaySoAndAreNeverNaN) {
  const Shape s1 = benchmark_shape("poly"), s2 = benchmark_shape("se");
  std::mt19937 rng(3);
  const Pose X_W1 = make_pose(random_rotation(rng), Vec3(1, 2, 3));
  // coincident origins
  const ContactSolution sc = diffcol::idcol::solve_contact(s1, X_W1, s2, X_W1);
  ASSERT_EQ(sc.status, SolveStatus::coincident_origins);
  const ContactDerivatives dc = contact_derivatives(sc);
  EXPECT_EQ(dc.status, DerivativeStatus::coincident_origins);
  EXPECT_FALSE(dc.ok());
  EXPECT_TRUE(kinematic_jacobian_world(dc).allFinite());
  EXPECT_EQ(kinematic_jacobian_world(dc).norm(), 0.0);
  EXPECT_EQ(diffcol::idcol::alpha_gradient_envelope(sc).norm(), 0.0);
  const ContactWrenches wc = hertz_wrenches(sc, dc, HertzModel{});
  EXPECT_EQ(wc.status, DerivativeStatus::coincident_origins);
  EXPECT_TRUE(wrench_jacobian_world(wc).allFinite());
  EXPECT_EQ(wrench_jacobian_world(wc).norm(), 0.0);
  EXPECT_TRUE(wrench_values(wc).allFinite());
  // invalid input
  Pose bad = X_W1;
  bad.p.x() = std::numeric_limits<double>::quiet_NaN();
  const ContactSolution si = diffcol::idcol::solve_contact(s1, X_W1, s2, bad);
  const ContactDerivatives di = contact_derivatives(si);
  EXPECT_EQ(di.status, DerivativeStatus::invalid_input);
  EXPECT_TRUE(kinematic_jacobian_world(di).allFinite());
  // not converged (one iteration allowed)
  SolveOptions o;
  o.max_iterations = 1;
  o.max_attempts = 1;
  o.continuation = false;
  o.last_resort_iterations = 0;
  o.tolerance = 1e-14;
  const ContactSolution sn = diffcol::idcol::solve_contact(s1, X_W1, s2, X_W1 * make_pose(Mat3::Identity(), Vec3(2, 1, 0)), o);
  ASSERT_EQ(sn.status, SolveStatus::not_converged);
  const ContactDerivatives dn = contact_derivatives(sn);
  EXPECT_EQ(dn.status, DerivativeStatus::solve_failed);
  EXPECT_EQ(kinematic_jacobian_relative(dn).norm(), 0.0);
  // a singular KKT Jacobian is reported as such
  ContactSolution ss = diffcol::idcol::solve_contact(s1, X_W1, s2, X_W1 * make_pose(Mat3::Identity(), Vec3(2, 1, 0)));
  ASSERT_EQ(ss.status, SolveStatus::ok);
  ss.kkt_jacobian.row(5).setZero();
  ss.kkt_lu.factor(ss.kkt_jacobian);
  const ContactDerivatives ds = contact_derivatives(ss);
  EXPECT_EQ(ds.status, DerivativeStatus::singular);
  EXPECT_TRUE(kinematic_jacobian_world(ds).allFinite());
  EXPECT_STREQ(status_name(DerivativeStatus::singular), "singular");
}

TEST(ContactWrenches, FarOutBodyFrameStaysFinite) {
  // The world wrenches and their Jacobians use the body-1 pose of the solve (τ_W = p × f, terms
  // p × (p × ·) in the Jacobian): finite and ok for bodies far from the world origin (as far as
  // their relative pose survives rounding); a solve with an invalid pose carries no wrench.
  const Shape s1 = benchmark_shape("poly"), s2 = benchmark_shape("se");
  std::mt19937 rng(4);
  const Pose X_12 = make_pose(random_rotation(rng), Vec3(1.2, 0.4, 0.2));  // penetrating: f_n > 0
  const Mat3 R1 = random_rotation(rng);
  for (const double far : {0.3, 1e4, 1e8}) {
    const Pose X_W1 = make_pose(R1, Vec3(far, -far, far));
    const ContactSolution sol = diffcol::idcol::solve_contact(s1, X_W1, s2, X_W1 * X_12);
    ASSERT_EQ(sol.status, SolveStatus::ok) << far;
    ASSERT_LT(sol.gap, 0.0);
    const ContactDerivatives d = contact_derivatives(sol);
    ASSERT_TRUE(d.ok()) << far;
    const ContactWrenches v = hertz_wrenches(sol, HertzModel{});
    EXPECT_EQ(v.status, DerivativeStatus::ok) << far;
    EXPECT_TRUE(wrench_values(v).allFinite()) << far;
    const ContactWrenches w = hertz_wrenches(sol, d, HertzModel{});
    EXPECT_EQ(w.status, DerivativeStatus::ok) << far;
    EXPECT_TRUE(wrench_values(w).allFinite()) << far;
    EXPECT_TRUE(wrench_jacobian_world(w).allFinite()) << far;
  }
  Pose X_nan = make_pose(R1, Vec3(0.3, 0.2, 0.1));
  X_nan.p.y() = kNaN;
  const ContactSolution bad = diffcol::idcol::solve_contact(s1, X_nan, s2, X_12);
  EXPECT_EQ(hertz_wrenches(bad, contact_derivatives(bad), HertzModel{}).status, DerivativeStatus::invalid_input);
  EXPECT_TRUE(wrench_values(hertz_wrenches(bad, HertzModel{})).allFinite());
}

TEST(ContactDerivatives, SphereSphereClosedForm) {
  // α = ‖r‖/(R1 + R2): dα/dv (body twist) = r̂ᵀR/(R1+R2), dα/dω = 0; x = α R1 r̂... p1 = R1 r̂
  const Shape s1 = diffcol::Sphere(1.0), s2 = diffcol::Sphere(0.5);
  std::mt19937 rng(9);
  for (int t = 0; t < 20; ++t) {
    const Pose X_W1 = make_pose(random_rotation(rng), Vec3(0.1, -0.2, 0.3));
    const Pose g = make_pose(random_rotation(rng), 2.0 * random_unit(rng));
    const ContactSolution sol = diffcol::idcol::solve_contact(s1, X_W1, s2, X_W1 * g, tight_options());
    ASSERT_EQ(sol.status, SolveStatus::ok);
    const ContactDerivatives d = contact_derivatives(sol);
    ASSERT_TRUE(d.ok());
    const Vec3 rhat = g.p.normalized();
    diffcol::idcol::RowVec6 expect = diffcol::idcol::RowVec6::Zero();
    expect.tail<3>() = rhat.transpose() * g.R / 1.5;
    EXPECT_LT((d.J_alpha_X12 - expect).norm(), 1e-10);
    // p1 = R1 r̂: dp1 = (I − r̂r̂ᵀ)/‖r‖ · R dv
    const Mat3 P = (Mat3::Identity() - rhat * rhat.transpose()) / g.p.norm();
    EXPECT_LT((d.J_p1_B1_X12.rightCols<3>() - P * g.R).norm(), 1e-9);
    EXPECT_LT(d.J_p1_B1_X12.leftCols<3>().norm(), 1e-9);
    // normal = r̂
    EXPECT_LT((d.J_normal_B1_X12.rightCols<3>() - P * g.R).norm(), 1e-9);
  }
}

// Two spheres are solved and differentiated in closed form (solve_contact.cpp, derivatives.cpp);
// here against the general Newton solve and the general derivatives
// (detail::solve_contact_general; closed_form cleared) over sizes 1e-9…1e9, radius ratios to 1e7
// (ill-conditioned past ~1e5), ‖r‖ from 1e-13 (coincident) to 1e8 times R1 + R2, and against
// central finite differences of the closed-form solve.
TEST(ContactDerivatives, ClosedFormSpheresMatchTheGeneralSolveAndFiniteDifferences) {
  std::mt19937 rng(5701);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const long n = std::max(20L, deriv_pose_count() * 4);
  long ok = 0, ill = 0, coincident = 0, fd_checked = 0;
  double worst_x12 = 0.0, worst_world = 0.0, worst_fd = 0.0;

  for (long k = 0; k < n; ++k) {
    const double scale = log_uniform(rng, 1e-9, 1e9);
    const double ratio = k % 10 == 9 ? log_uniform(rng, 1e4, 1e7) : log_uniform(rng, 1e-3, 1e3);
    const double R1 = scale, R2 = scale * ratio, S = R1 + R2;
    const double dist = k % 25 == 24 ? 1e-13 * S : S * log_uniform(rng, 1e-10, 1e8);
    const Pose X_W1 = make_pose(random_rotation(rng), S * Vec3(U(rng) - 0.5, U(rng) - 0.5, U(rng) - 0.5));
    const Pose X_W2 = X_W1 * make_pose(random_rotation(rng), dist * random_unit(rng));
    const Shape s1 = diffcol::Sphere(R1), s2 = diffcol::Sphere(R2);
    SolveOptions opt;
    if (k % 7 == 3) opt.surrogate_factor = 30.0;  // the stored factors are the surrogate's (21)
    const ContactSolution a = diffcol::idcol::solve_contact(s1, X_W1, s2, X_W2, opt);
    const ContactSolution b = diffcol::idcol::detail::solve_contact_general(s1, X_W1, s2, X_W2, opt);
    const std::string ctx = "k = " + std::to_string(k) + ", R1 = " + std::to_string(R1) + ", R2/R1 = " +
                            std::to_string(ratio) + ", |r|/S = " + std::to_string(dist / S);
    ASSERT_EQ(a.status, b.status) << ctx;
    ASSERT_FALSE(b.closed_form) << ctx;
    if (a.status == SolveStatus::coincident_origins) {
      ++coincident;
      EXPECT_FALSE(a.closed_form) << ctx;
      continue;
    }
    ASSERT_EQ(a.status, SolveStatus::ok) << ctx;
    ASSERT_TRUE(a.closed_form) << ctx;
    const double len = std::max(S, dist);
    EXPECT_NEAR(a.alpha, b.alpha, 1e-13 * b.alpha) << ctx;
    EXPECT_NEAR(a.lambda1, b.lambda1, 1e-12 * b.alpha) << ctx;
    EXPECT_NEAR(a.lambda2, b.lambda2, 1e-12 * b.alpha) << ctx;
    EXPECT_NEAR(a.gap, b.gap, 1e-13 * len) << ctx;
    for (const auto& [u, v] : {std::pair{&a.x_B1, &b.x_B1}, {&a.p1_B1, &b.p1_B1}, {&a.p2_B1, &b.p2_B1},
                               {&a.x_W, &b.x_W}, {&a.p1_W, &b.p1_W}, {&a.p2_W, &b.p2_W}})
      EXPECT_LT((*u - *v).norm(), 1e-13 * (len + X_W1.p.norm())) << ctx;
    EXPECT_LT((a.normal_B1 - b.normal_B1).norm(), 1e-13) << ctx;
    EXPECT_LT((a.normal_W - b.normal_W).norm(), 1e-13) << ctx;
    EXPECT_LT((a.grad1 - b.grad1).norm(), 1e-12 * b.grad1.norm()) << ctx;
    EXPECT_LT((a.grad2 - b.grad2).norm(), 1e-12 * b.grad2.norm()) << ctx;
    EXPECT_LT((a.hess1 - b.hess1).norm(), 1e-10 * b.hess1.norm()) << ctx;
    EXPECT_LT((a.hess2 - b.hess2).norm(), 1e-10 * b.hess2.norm()) << ctx;
    EXPECT_LE(a.residual_norm, 1e-13 * (1.0 + 1.0 / S)) << ctx;  // rows (10c) in 1/length
    {  // J_c equilibrated as in derivatives.cpp (D_r = diag(1, 1, L, L, L, 1), D_c = diag(αL, αL, αL, 1, α, α))
      const double row[6] = {1, 1, S, S, S, 1}, col[6] = {a.alpha * S, a.alpha * S, a.alpha * S, 1, a.alpha, a.alpha};
      double worst = 0.0;
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
          worst = std::max(worst, std::abs(row[i] * col[j] * (a.kkt_jacobian(i, j) - b.kkt_jacobian(i, j))) /
                                      (1.0 + std::abs(row[i] * col[j] * b.kkt_jacobian(i, j))));
      EXPECT_LT(worst, 1e-9) << ctx;
    }
    EXPECT_NEAR(a.kkt_lu.pivot_ratio(), b.kkt_lu.pivot_ratio(), 1e-8 * b.kkt_lu.pivot_ratio()) << ctx;
    {  // the same factors: Ĵ⁻¹ = D_c⁻¹ J_c⁻¹ D_r⁻¹ column by column (equilibrated as above)
      const double row[6] = {1, 1, S, S, S, 1}, col[6] = {a.alpha * S, a.alpha * S, a.alpha * S, 1, a.alpha, a.alpha};
      for (int i = 0; i < 6; ++i) {
        Vec6 ya = a.kkt_lu.solve(Vec6::Unit(i) / row[i]), yb = b.kkt_lu.solve(Vec6::Unit(i) / row[i]);
        for (int j = 0; j < 6; ++j) ya[j] /= col[j], yb[j] /= col[j];
        EXPECT_LT((ya - yb).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + yb.cwiseAbs().maxCoeff())) << ctx << ", column " << i;
      }
    }
    EXPECT_EQ(a.X_W1.p, b.X_W1.p) << ctx;

    ContactSolution a_general = a;  // the closed-form solution through the general derivatives
    a_general.closed_form = false;
    const ContactDerivatives da = contact_derivatives(a), db = contact_derivatives(b),
                             da_gen = contact_derivatives(a_general);
    ASSERT_EQ(da.status, db.status) << ctx << ", cond " << db.kkt_condition;
    ASSERT_EQ(da.status, da_gen.status) << ctx;
    // the general derivatives read R2 through ‖p2 − r‖ (L), which loses digits as ‖r‖/R2 grows
    EXPECT_NEAR(da.kkt_condition, da_gen.kkt_condition, (1e-9 + 1e-14 * dist / std::min(R1, R2)) * da_gen.kkt_condition)
        << ctx;
    EXPECT_NEAR(da.kkt_condition, db.kkt_condition, 1e-5 * db.kkt_condition) << ctx;  // b: a Newton iterate
    if (da.status == DerivativeStatus::ill_conditioned) {
      ++ill;
      EXPECT_TRUE(kinematic_jacobian_world(da).isZero(0.0)) << ctx;
      continue;
    }
    ASSERT_EQ(da.status, DerivativeStatus::ok) << ctx;
    ++ok;
    // unit-free comparison block by block (α, λ1, λ2, d_D, x, p1, p2, n̂, then the world points):
    // v columns times ‖r‖ (every output varies on that scale), then relative to the block's largest entry
    // (the general derivatives form the 1/‖r‖ rows by cancellation: ~1e-6 at ‖r‖/S ≤ 1e-6 or ≥ 1e7)
    const bool extreme = dist < 1e-3 * S || dist > 1e3 * S;
    const double tol = 1e-7 * std::max(1.0, db.kkt_condition / 1e3) * (extreme ? 100.0 : 1.0);
    // (normal blocks: at least 1, the size of dn̂/dv × ‖r‖, where a block is zero in closed form)
    const auto block_error = [&](const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, double normal_floor = 1.0) {
      static const int starts[] = {0, 1, 2, 3, 4, 7, 10, 13, 16, 19, 22, 25, 28};
      double worst = 0.0;
      for (int k = 0; k + 1 < 13 && starts[k] < A.rows(); ++k) {
        Eigen::MatrixXd a_ = A.middleRows(starts[k], starts[k + 1] - starts[k]);
        Eigen::MatrixXd b_ = B.middleRows(starts[k], starts[k + 1] - starts[k]);
        for (int c = 0; c < A.cols(); ++c)
          if (c % 6 >= 3) a_.col(c) *= dist, b_.col(c) *= dist;
        const double big = std::max(b_.cwiseAbs().maxCoeff(), (k == 7 || k == 11) ? normal_floor : 0.0);
        if (big > 0.0) worst = std::max(worst, (a_ - b_).cwiseAbs().maxCoeff() / big);
      }
      return worst;
    };
    const Eigen::MatrixXd JA = kinematic_jacobian_relative(da);
    const double e12 = block_error(JA, kinematic_jacobian_relative(da_gen));
    const double ew = block_error(kinematic_jacobian_world(da), kinematic_jacobian_world(da_gen));
    EXPECT_LT(e12, tol) << ctx << "\n" << JA << "\n\n" << kinematic_jacobian_relative(da_gen);
    if (dist > 1e-3 * S) {  // nearer, the general path's 1/‖r‖ rows lose digits
      EXPECT_LT(ew, tol) << ctx;
    }
    worst_x12 = std::max(worst_x12, e12);
    if (dist > 1e-3 * S) worst_world = std::max(worst_world, ew);
    const auto sa = diffcol::idcol::shape_derivatives(s1, s2, a), sb = diffcol::idcol::shape_derivatives(s1, s2, a_general);
    ASSERT_EQ(sa.status, sb.status) << ctx;
    Eigen::MatrixXd PA(28, 2), PB(28, 2);
    PA << sa.d_alpha.head<2>(), sa.d_lambda1.head<2>(), sa.d_lambda2.head<2>(), sa.d_gap.head<2>(),
        sa.d_x_B1.leftCols<2>(), sa.d_p1_B1.leftCols<2>(), sa.d_p2_B1.leftCols<2>(), sa.d_normal_B1.leftCols<2>(),
        sa.d_x_W.leftCols<2>(), sa.d_p1_W.leftCols<2>(), sa.d_p2_W.leftCols<2>(), sa.d_normal_W.leftCols<2>();
    PB << sb.d_alpha.head<2>(), sb.d_lambda1.head<2>(), sb.d_lambda2.head<2>(), sb.d_gap.head<2>(),
        sb.d_x_B1.leftCols<2>(), sb.d_p1_B1.leftCols<2>(), sb.d_p2_B1.leftCols<2>(), sb.d_normal_B1.leftCols<2>(),
        sb.d_x_W.leftCols<2>(), sb.d_p1_W.leftCols<2>(), sb.d_p2_W.leftCols<2>(), sb.d_normal_W.leftCols<2>();
    EXPECT_LT(block_error(PA, PB, 1.0 / dist), tol) << ctx << "\n" << PA << "\n\n" << PB;

    // central differences of the closed-form solve along the relative body twist (well-scaled poses)
    if (!(dist > 1e-3 * S && dist < 1e3 * S && ratio < 1e3) || fd_checked >= 40) continue;
    ++fd_checked;
    const Pose g = X_W1.inverse() * X_W2;
    for (int c = 0; c < 6; ++c) {
      const double h = 1e-5 * (c < 3 ? 1.0 : dist);  // p1, n̂ curve on the scale ‖r‖
      Vec6 e = Vec6::Zero();
      e[c] = h;
      const ContactSolution sp = diffcol::idcol::solve_contact(s1, X_W1, s2, X_W1 * (g * diffcol::se3_exp(e)));
      const ContactSolution sm = diffcol::idcol::solve_contact(s1, X_W1, s2, X_W1 * (g * diffcol::se3_exp(-e)));
      const Eigen::VectorXd fd =
          (kinematic_values(sp).head(kBodyRows) - kinematic_values(sm).head(kBodyRows)) / (2.0 * h);
      const double err = block_error(JA.col(c), fd);
      worst_fd = std::max(worst_fd, err);
      EXPECT_LT(err, 1e-6) << ctx << ", FD column " << c << "\n" << JA.col(c).transpose() << "\n" << fd.transpose();
    }
  }
  EXPECT_GT(ok, n / 2);
  EXPECT_GT(ill, 0);
  EXPECT_GT(coincident, 0);
  EXPECT_GT(fd_checked, 5);
  std::printf("closed-form spheres: %ld ok, %ld ill_conditioned, %ld coincident; worst unit-free difference to the "
              "general derivatives %.2e (X12), %.2e (world), to central differences %.2e\n",
              ok, ill, coincident, worst_x12, worst_world, worst_fd);
}

TEST(ContactDerivatives, ContactPairOverloadAndNoHeapAllocation) {
  const auto& names = benchmark_shape_names();
  std::mt19937 rng(21);
  for (const auto& n1 : names)
    for (const auto& n2 : names) {
      ContactPair pair(benchmark_shape(n1), benchmark_shape(n2));
      const Pose X_W1 = make_pose(random_rotation(rng), Vec3(0.5, 0.1, -0.3));
      const Pose X_W2 = X_W1 * make_pose(random_rotation(rng), 3.0 * random_unit(rng));
      const ContactSolution& sol = pair.solve(X_W1, X_W2);
      ASSERT_TRUE(sol.ok());
#if !defined(DIFFCOL_TEST_COUNTS_MALLOC)
      GTEST_SKIP() << "malloc counting unavailable in this build (neither glibc nor ASan)";
#endif
      ContactDerivatives d;
      ContactWrenches w;
      const long before = g_allocations.load();
      diffcol::idcol::contact_derivatives(sol, d);
      diffcol::idcol::hertz_wrenches(sol, d, HertzModel{}, w);
      const diffcol::idcol::RowVec6 env = diffcol::idcol::alpha_gradient_envelope(sol);
      const long after = g_allocations.load();
      EXPECT_EQ(after, before) << n1 << "-" << n2;
      {  // the counter does see heap allocations
        const long b0 = g_allocations.load();
        Eigen::MatrixXd m = Eigen::MatrixXd::Random(7, 7);
        EXPECT_GT(g_allocations.load(), b0);
        EXPECT_TRUE(m.allFinite());
      }
      EXPECT_TRUE(d.ok());
      EXPECT_LT((env - d.J_alpha_X12).norm(), 1e-8 * (1.0 + env.norm()));
      const ContactDerivatives d2 = contact_derivatives(pair);
      EXPECT_EQ(kinematic_jacobian_world(d2), kinematic_jacobian_world(d));
    }
}

// ------------------------------------------------------------ generalized coordinates and offsets

// Product of exponentials X(q) = exp(S_0 q_0)···exp(S_k q_k)·M over the coordinates idx, with
// its space (world-twist) Jacobian; columns of other coordinates are zero.
struct Chain {
  std::vector<int> idx;
  std::vector<Vec6> S;
  Pose M;
  Pose pose(const Eigen::VectorXd& q) const {
    Pose X;
    for (size_t i = 0; i < idx.size(); ++i) X = X * diffcol::se3_exp(S[i] * q[idx[i]]);
    return X * M;
  }
  Eigen::MatrixXd space_jacobian(const Eigen::VectorXd& q) const {
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(6, q.size());
    Pose X;
    for (size_t i = 0; i < idx.size(); ++i) {
      J.col(idx[i]) += diffcol::adjoint(X) * S[i];
      X = X * diffcol::se3_exp(S[i] * q[idx[i]]);
    }
    return J;
  }
};

Vec6 random_screw(std::mt19937& rng) {
  std::normal_distribution<double> N(0.0, 1.0);
  Vec6 s;
  s << random_unit(rng), Vec3(N(rng), N(rng), N(rng));
  return s;
}

TEST(ContactDerivatives, GeneralizedCoordinatesWithMountedShapes) {
  std::mt19937 rng(77);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"poly", "se"}, {"tc", "ellipsoid"}, {"sec", "poly"}, {"sphere", "tc"}};
  int checked = 0;
  for (const auto& [n1, n2] : pairs) {
    for (int t = 0; t < 6; ++t) {
      const int n = 5;
      Chain c1, c2;
      c1.idx = {0, 1};
      c1.S = {random_screw(rng), random_screw(rng)};
      c1.M = make_pose(random_rotation(rng), Vec3(0.2, 0.1, 0.0));
      c2.idx = {1, 2, 3, 4};  // coordinate 1 moves both bodies
      c2.S = {random_screw(rng), random_screw(rng), random_screw(rng), random_screw(rng)};
      Eigen::VectorXd q = 0.3 * Eigen::VectorXd::Random(n);
      const Pose X_B1S1 = make_pose(random_rotation(rng), Vec3(0.3, -0.2, 0.1));
      const Pose X_B2S2 = make_pose(random_rotation(rng), Vec3(-0.1, 0.4, 0.2));
      // place body 2 so that the shapes are at α = 0.8 … 1.5 along a random direction
      std::uniform_real_distribution<double> U(0.8, 1.5);
      const Pose XS1 = c1.pose(q) * X_B1S1;
      c2.M = Pose{};
      const Pose X2_noM = c2.pose(q);
      ContactPair probe(benchmark_shape(n1), benchmark_shape(n2), tight_options());
      Pose g = make_pose(random_rotation(rng), 3.0 * random_unit(rng));
      if (!rescale_to_alpha(probe, XS1, g, U(rng))) continue;
      // XS1·g = X2_noM·M·X_B2S2  ⇒  M = X2_noM⁻¹·XS1·g·X_B2S2⁻¹
      c2.M = X2_noM.inverse() * XS1 * g * X_B2S2.inverse();

      const auto shape_poses = [&](const Eigen::VectorXd& qq, Pose& A, Pose& B) {
        A = c1.pose(qq) * X_B1S1;
        B = c2.pose(qq) * X_B2S2;
      };
      Pose A, B;
      shape_poses(q, A, B);
      ContactPair pair(benchmark_shape(n1), benchmark_shape(n2), tight_options());
      const ContactSolution sol = pair.solve_cold(A, B);
      ASSERT_EQ(sol.status, SolveStatus::ok);
      const ContactDerivatives d = contact_derivatives(pair);
      ASSERT_TRUE(d.ok());
      const ContactWrenches w = hertz_wrenches(sol, d, HertzModel{50.0, 2.0});

      ContactPair fd(benchmark_shape(n1), benchmark_shape(n2), tight_options());
      const auto f = [&](const Eigen::VectorXd& qq) {
        Pose a, b;
        shape_poses(qq, a, b);
        const ContactSolution& s = fd.solve_from(a, b, sol);
        Eigen::VectorXd v(kAllRows + 25);
        v << kinematic_values(s), wrench_values(hertz_wrenches(s, HertzModel{50.0, 2.0}));
        if (s.status != SolveStatus::ok) v.setConstant(std::numeric_limits<double>::quiet_NaN());
        return v;
      };
      for (const ReferenceFrame conv : {ReferenceFrame::world, ReferenceFrame::local}) {
        // the geometric Jacobians of the *bodies* (not the shapes), in the chosen convention
        BodyJacobian b1, b2;
        const Pose XB1 = c1.pose(q), XB2 = c2.pose(q);
        b1.X_WB = XB1;
        b2.X_WB = XB2;
        b1.frame = b2.frame = conv;
        b1.J = c1.space_jacobian(q);
        b2.J = c2.space_jacobian(q);
        if (conv == ReferenceFrame::local) {
          b1.J = diffcol::adjoint(XB1.inverse()) * b1.J;
          b2.J = diffcol::adjoint(XB2.inverse()) * b2.J;
        }
        const Eigen::MatrixXd JK = kinematic_jacobian_world(d);
        const Eigen::MatrixXd JW = wrench_jacobian_world(w);
        Eigen::MatrixXd Jq(kAllRows + 25, n);
        Jq.topRows(kAllRows) = diffcol::to_coordinates(JK.leftCols<6>(), JK.rightCols<6>(), b1, b2);
        Jq.bottomRows(25) = diffcol::to_coordinates(JW.leftCols<6>(), JW.rightCols<6>(), b1, b2);
        // a named block
        EXPECT_LT((diffcol::to_coordinates(d.J_alpha_X1, d.J_alpha_X2, b1, b2) - Jq.row(0)).norm(), 1e-12);
        GradientCheckOptions opt;
        opt.step = 1e-4;
        opt.blocks = kinematic_blocks();
        for (const auto& b : wrench_blocks()) opt.blocks.push_back({b.name, b.offset + kAllRows, b.size});
        opt.abs_tolerance = 1e-8 * 50.0;
        const GradientCheckResult r = diffcol::check_gradient(f, q, Jq, opt);
        EXPECT_TRUE(r.passed()) << n1 << "-" << n2 << " convention " << int(conv) << "\n" << r.report();
        ++checked;
      }
      // body twist of a mounted shape from the body twist of its body
      const Mat6 Ms = diffcol::shape_body_twist_map(X_B1S1);
      const Vec6 zeta = random_screw(rng);
      const Pose lhs = c1.pose(q) * diffcol::se3_exp(1e-7 * zeta) * X_B1S1;
      const Pose rhs = c1.pose(q) * X_B1S1 * diffcol::se3_exp(1e-7 * (Ms * zeta));
      EXPECT_LT((lhs.p - rhs.p).norm() + (lhs.R - rhs.R).norm(), 1e-12);
    }
  }
  EXPECT_GE(checked, 30);
  BodyJacobian b1, b2;
  b1.J = Eigen::MatrixXd::Zero(6, 2);
  b2.J = Eigen::MatrixXd::Zero(6, 3);
  EXPECT_THROW(diffcol::to_coordinates(Eigen::MatrixXd::Zero(1, 6), Eigen::MatrixXd::Zero(1, 6), b1, b2),
               std::invalid_argument);
  // non-finite entries (passed through as NaN before)
  b2.J = Eigen::MatrixXd::Zero(6, 2);
  EXPECT_NO_THROW(diffcol::to_coordinates(Eigen::MatrixXd::Zero(1, 6), Eigen::MatrixXd::Zero(1, 6), b1, b2));
  b2.J(3, 1) = kNaN;
  EXPECT_THROW(diffcol::to_coordinates(Eigen::MatrixXd::Zero(1, 6), Eigen::MatrixXd::Zero(1, 6), b1, b2),
               std::invalid_argument);
  b2.J(3, 1) = 0.0;
  Eigen::MatrixXd Jo = Eigen::MatrixXd::Zero(1, 6);
  Jo(0, 2) = kInf;
  EXPECT_THROW(diffcol::to_coordinates(Jo, Eigen::MatrixXd::Zero(1, 6), b1, b2), std::invalid_argument);
  b1.frame = diffcol::ReferenceFrame::local;
  b1.X_WB.p.x() = kNaN;
  EXPECT_THROW(diffcol::to_coordinates(Eigen::MatrixXd::Zero(1, 6), Eigen::MatrixXd::Zero(1, 6), b1, b2),
               std::invalid_argument);
}

TEST(ContactWrenches, HertzLawBranchesAndValues) {
  const Shape s1 = diffcol::Sphere(1.0), s2 = diffcol::Sphere(1.0);
  // penetration δ = 0.2 along x: α = 1.8/2 = 0.9, d_D = (1 − 1/0.9)·1.8 = −0.2
  const Pose X_W1;
  const Pose X_W2 = make_pose(Mat3::Identity(), Vec3(1.8, 0, 0));
  const ContactSolution sol = diffcol::idcol::solve_contact(s1, X_W1, s2, X_W2, tight_options());
  ASSERT_EQ(sol.status, SolveStatus::ok);
  const ContactDerivatives d = contact_derivatives(sol);
  const ContactWrenches w = hertz_wrenches(sol, d, HertzModel{100.0, 1.5});
  EXPECT_TRUE(w.in_contact);
  EXPECT_NEAR(w.penetration, 0.2, 1e-12);
  EXPECT_NEAR(w.f_n, 100.0 * std::pow(0.2, 1.5), 1e-10);
  // body 1 is pushed along −x; body 2 along +x; no torque (central contact)
  EXPECT_NEAR(w.F_c1_B1[3], -w.f_n, 1e-10);
  EXPECT_NEAR(w.F_c2_B2[3], w.f_n, 1e-10);
  EXPECT_LT(w.F_c1_B1.head<3>().norm(), 1e-10);
  // moving body 2 away (+x) reduces δ: df_n/dv_x = −k p δ^(p−1)·dδ... dδ/dv_x = −1
  EXPECT_NEAR(w.J_fn_X2(3), -100.0 * 1.5 * std::sqrt(0.2), 1e-8);
  // separated: zero force, zero Jacobians
  const Pose far = make_pose(Mat3::Identity(), Vec3(2.5, 0, 0));
  const ContactSolution s2sol = diffcol::idcol::solve_contact(s1, X_W1, s2, far, tight_options());
  const ContactWrenches w2 = hertz_wrenches(s2sol, contact_derivatives(s2sol), HertzModel{});
  EXPECT_TRUE(w2.ok());
  EXPECT_FALSE(w2.in_contact);
  EXPECT_EQ(w2.f_n, 0.0);
  EXPECT_EQ(wrench_jacobian_world(w2).norm(), 0.0);
  // values-only overload agrees
  const ContactWrenches wv = hertz_wrenches(sol, HertzModel{100.0, 1.5});
  EXPECT_EQ(wrench_values(wv), wrench_values(w));
  EXPECT_EQ(wrench_jacobian_world(wv).norm(), 0.0);
}

}  // namespace
