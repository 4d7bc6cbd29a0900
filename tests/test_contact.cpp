// Tests of the iDCOL contact solver (include/diffcol/idcol/contact.hpp).
//
// The minimum scaling α* is checked against references that never call the solver:
//  - sphere–sphere: α* = ‖r‖/(R1 + R2);
//  - ellipsoid–ellipsoid: the Perram–Wertheim contact function, α*² = max_λ F(λ);
//  - any pair: α* = min_x max(g1(x), g2(x)) with g_i the gauge (Minkowski functional) of the
//    bodies, found from φ values alone (root finding along rays, golden section along a ray,
//    Nelder–Mead over ray directions);
//  - exact polytopes: the LP  min α s.t. A1 x ≤ α b1, A2 Rᵀ(x − r) ≤ α b2, by vertex enumeration.
// Every converged solution is checked against the KKT system (10) recomputed here, and the
// witness points / gap / normal against their definitions (29), (30), (3).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/ergodic.hpp"

#include "test_util.hpp"

namespace {

using namespace diffcol::test;

using diffcol::Mat3;
using diffcol::Mat6;
using diffcol::Pose;
using diffcol::Shape;
using diffcol::SmoothPolytope;
using diffcol::SmoothTruncatedCone;
using diffcol::Sphere;
using diffcol::Superellipsoid;
using diffcol::SuperellipticCylinder;
using diffcol::Vec3;
using diffcol::Vec6;
using diffcol::idcol::ContactPair;
using diffcol::idcol::ContactSolution;
using diffcol::SolveStatus;
using diffcol::idcol::solve_contact;





Pose random_pose(std::mt19937& rng, double dist) {
  std::normal_distribution<double> N(0.0, 1.0);
  return make_pose(random_rotation(rng), dist * Vec3(N(rng), N(rng), N(rng)) / std::sqrt(3.0));
}

Eigen::MatrixX3d poly_A() {
  Eigen::MatrixX3d A(8, 3);
  A << 1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1, -1, -1, -1, -1, 1, 1, 1, -1, 1, 1, 1, -1;
  return A;
}
Eigen::VectorXd poly_b() {
  Eigen::VectorXd b(8);
  b << 1, 1, 1, 1, 5.0 / 3, 5.0 / 3, 5.0 / 3, 5.0 / 3;
  return b;
}
Eigen::MatrixX3d box_A() {
  Eigen::MatrixX3d A(6, 3);
  A << 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1;
  return A;
}
Eigen::VectorXd box_b(double hx, double hy, double hz) {
  Eigen::VectorXd b(6);
  b << hx, hx, hy, hy, hz, hz;
  return b;
}

struct NamedShape {
  std::string name;
  Shape shape;
};

std::vector<NamedShape> test_shapes() {
  std::vector<NamedShape> out;
  for (const std::string& n : diffcol::idcol::benchmark_shape_names())
    out.push_back({n, diffcol::idcol::benchmark_shape(n)});
  out.push_back({"se(n=2)", Superellipsoid(0.8, 0.4, 1.1, 2)});
  out.push_back({"sec(n=1)", SuperellipticCylinder(0.6, 1.2, 1)});
  out.push_back({"box", SmoothPolytope::box(0.5, 1.0, 1.5, 20.0)});
  out.push_back({"cone", SmoothTruncatedCone(1.0, 0.05, 0.5, 1.5, 20.0)});
  return out;
}

// A copy of a shape scaled by k about its origin: φ_k(y) = φ(y/k).
Shape scaled(const Shape& s, double k) {
  switch (s.type()) {
    case diffcol::ShapeType::sphere: return Sphere(k * s.as<Sphere>().radius());
    case diffcol::ShapeType::superellipsoid: {
      const auto& e = s.as<Superellipsoid>();
      const Vec3 ax = k * e.semi_axes();
      return Superellipsoid(ax.x(), ax.y(), ax.z(), e.exponent(), e.epsilon());
    }
    case diffcol::ShapeType::superelliptic_cylinder: {
      const auto& c = s.as<SuperellipticCylinder>();
      return SuperellipticCylinder(k * c.radius(), k * c.half_height(), c.exponent(), c.epsilon());
    }
    case diffcol::ShapeType::smooth_polytope: {
      const auto& p = s.as<SmoothPolytope>();
      Eigen::MatrixX3d A(p.num_faces(), 3);
      Eigen::VectorXd b(p.num_faces());
      for (int i = 0; i < p.num_faces(); ++i) {
        A.row(i) = p.normal(i).transpose();
        b[i] = k * p.offset(i);
      }
      return SmoothPolytope(A, b, p.beta(), k * p.length());
    }
    case diffcol::ShapeType::smooth_truncated_cone: {
      const auto& c = s.as<SmoothTruncatedCone>();
      return SmoothTruncatedCone(k * c.bottom_radius(), k * c.top_radius(), k * c.bottom_extent(), k * c.top_extent(),
                                 c.beta());
    }
  }
  return s;
}

std::string describe_pose(const Pose& g) {
  std::ostringstream os;
  os.precision(17);
  const Eigen::Quaterniond q(g.R);
  os << "p = (" << g.p.transpose() << "), q(w,x,y,z) = (" << q.w() << " " << q.x() << " " << q.y() << " " << q.z()
     << ")";
  return os.str();
}

// =====================================================================================
// Independent references
// =====================================================================================

// Root of a continuous f on [lo, hi] with f(lo) < 0 < f(hi): Illinois regula falsi with
// bisection safeguard.
double bracketed_root(const std::function<double(double)>& f, double lo, double hi, double flo, double fhi) {
  int side = 0;
  double width_prev = hi - lo;
  for (int it = 0; it < 300; ++it) {
    double t = (lo * fhi - hi * flo) / (fhi - flo);
    if (!(t > lo && t < hi)) t = 0.5 * (lo + hi);
    if (it % 3 == 2) {  // every third step: ensure the bracket at least halves
      if (hi - lo > 0.5 * width_prev) t = 0.5 * (lo + hi);
      width_prev = hi - lo;
    }
    const double ft = f(t);
    if (ft == 0.0) return t;
    if (ft > 0.0) {
      hi = t;
      fhi = ft;
      if (side == 1) flo *= 0.5;
      side = 1;
    } else {
      lo = t;
      flo = ft;
      if (side == -1) fhi *= 0.5;
      side = -1;
    }
    if (hi - lo <= 1e-14 * hi) break;
  }
  return std::abs(flo) < std::abs(fhi) ? lo : hi;
}

// The gauge (Minkowski functional) of {φ ≤ 0}: the smallest α with φ(y/α) ≤ 0. Closed forms
// for spheres and ellipsoids; otherwise ‖y‖/ρ(ŷ) with ρ the boundary distance along ŷ.
double gauge(const Shape& s, const Vec3& y, bool allow_closed_form = true) {
  const double n = y.norm();
  if (n == 0.0) return 0.0;
  if (allow_closed_form && s.type() == diffcol::ShapeType::sphere) return n / s.as<Sphere>().radius();
  if (allow_closed_form && s.type() == diffcol::ShapeType::superellipsoid &&
      s.as<Superellipsoid>().exponent() == 1)
    return y.cwiseQuotient(s.as<Superellipsoid>().semi_axes()).norm();
  const Vec3 u = y / n;
  auto f = [&](double t) { return s.value(t * u); };
  double lo = 0.0, hi = 1.0;
  double flo = f(0.0), fhi = f(hi);
  while (fhi <= 0.0) {
    lo = hi;
    flo = fhi;
    hi *= 2.0;
    fhi = f(hi);
  }
  while (hi > 1e-3 && f(0.5 * hi) > 0.0) {  // tighten small shapes' brackets
    hi *= 0.5;
    fhi = f(hi);
  }
  return n / bracketed_root(f, lo, hi, flo, fhi);
}

// Minimum of a unimodal function on [a, b] by golden-section search.
double golden_min(const std::function<double(double)>& F, double a, double b, double* argmin = nullptr) {
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  double c = b - g * (b - a), d = a + g * (b - a);
  double fc = F(c), fd = F(d);
  for (int it = 0; it < 200 && (b - a) > 1e-11 * std::max(std::abs(a), std::abs(b)); ++it) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = F(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = F(d);
    }
  }
  if (argmin) *argmin = fc < fd ? c : d;
  return std::min(fc, fd);
}

// Nelder–Mead in 2-D.
double nelder_mead2(const std::function<double(const Eigen::Vector2d&)>& f, Eigen::Vector2d x0, double step,
                    Eigen::Vector2d* xbest) {
  std::array<Eigen::Vector2d, 3> P = {x0, x0 + Eigen::Vector2d(step, 0), x0 + Eigen::Vector2d(0, step)};
  std::array<double, 3> F = {f(P[0]), f(P[1]), f(P[2])};
  for (int it = 0; it < 2000; ++it) {
    // order
    for (int i = 0; i < 3; ++i)
      for (int j = i + 1; j < 3; ++j)
        if (F[j] < F[i]) {
          std::swap(F[i], F[j]);
          std::swap(P[i], P[j]);
        }
    const double size = std::max((P[1] - P[0]).norm(), (P[2] - P[0]).norm());
    if (size < 1e-6 && F[2] - F[0] <= 1e-13 * std::abs(F[0])) break;
    const Eigen::Vector2d c = 0.5 * (P[0] + P[1]);
    const Eigen::Vector2d xr = c + (c - P[2]);
    const double fr = f(xr);
    if (fr < F[0]) {
      const Eigen::Vector2d xe = c + 2.0 * (c - P[2]);
      const double fe = f(xe);
      if (fe < fr) {
        P[2] = xe;
        F[2] = fe;
      } else {
        P[2] = xr;
        F[2] = fr;
      }
    } else if (fr < F[1]) {
      P[2] = xr;
      F[2] = fr;
    } else {
      const bool outside = fr < F[2];
      const Eigen::Vector2d xc = outside ? Eigen::Vector2d(c + 0.5 * (xr - c)) : Eigen::Vector2d(c + 0.5 * (P[2] - c));
      const double fc = f(xc);
      if (fc < std::min(fr, F[2])) {
        P[2] = xc;
        F[2] = fc;
      } else {  // shrink
        for (int i = 1; i < 3; ++i) {
          P[i] = P[0] + 0.5 * (P[i] - P[0]);
          F[i] = f(P[i]);
        }
      }
    }
  }
  int b = 0;
  for (int i = 1; i < 3; ++i)
    if (F[i] < F[b]) b = i;
  if (xbest) *xbest = P[b];
  return F[b];
}

struct Reference {
  double alpha;
  Vec3 x;  // a minimizer in body 1
};

// α* = min_x max(g1(x), g2(x)), body 2 at (R, r) in body 1. For a ray direction u,
// F(u) = min_t max(g1(t u), g2(t u)) is a 1-D convex problem (golden section); α* = min_u F(u)
// (coarse sampling + restarted Nelder–Mead).
Reference reference_alpha(const Shape& s1, const Shape& s2, const Pose& X12, bool closed_forms = true) {
  const Mat3& R = X12.R;
  const Vec3& r = X12.p;
  auto g1 = [&](const Vec3& x) { return gauge(s1, x, closed_forms); };
  auto g2 = [&](const Vec3& x) { return gauge(s2, R.transpose() * (x - r), closed_forms); };
  // an upper bound: the best point on the segment between the origins
  const Vec3 rh = r.normalized();
  const double rho1 = 1.0 / g1(rh), rho2 = 1.0 / gauge(s2, -(R.transpose() * rh), closed_forms);
  const double alpha_ub = r.norm() / (rho1 + rho2) * (1.0 + 1e-9);
  int evals = 0;
  auto F = [&](const Vec3& u, double* tbest) {
    ++evals;
    // along x = t u with g1(x) = t g1(u): minimize max(t g1(u), g2(t u)) over t ≥ 0;
    // the minimizer has g1 ≤ α_ub, i.e. t ≤ α_ub / g1(u)
    const double gu = g1(u);
    auto h = [&](double t) { return std::max(t * gu, g2(t * u)); };
    return golden_min(h, 0.0, alpha_ub / gu, tbest);
  };
  // coarse sampling of ray directions (Fibonacci sphere) plus the direction of r
  Vec3 best_u = rh;
  double best = F(rh, nullptr);
  const int K = 48;
  for (int k = 0; k < K; ++k) {
    const double z = 1.0 - (2.0 * k + 1.0) / K;
    const double phi = k * 2.39996322972865332;
    const Vec3 u(std::sqrt(1.0 - z * z) * std::cos(phi), std::sqrt(1.0 - z * z) * std::sin(phi), z);
    const double v = F(u, nullptr);
    if (v < best) {
      best = v;
      best_u = u;
    }
  }
  Vec3 e0 = best_u;
  double step = 0.3;
  for (int restart = 0; restart < 2; ++restart) {
    const Vec3 e1 = e0.unitOrthogonal(), e2 = e0.cross(e1);
    auto obj = [&](const Eigen::Vector2d& ab) { return F((e0 + ab[0] * e1 + ab[1] * e2).normalized(), nullptr); };
    Eigen::Vector2d ab;
    const double v = nelder_mead2(obj, Eigen::Vector2d::Zero(), step, &ab);
    if (v <= best) best = v;
    e0 = (e0 + ab[0] * e1 + ab[1] * e2).normalized();
    step *= 0.1;
  }
  double t;
  const double val = F(e0, &t);
  if (std::getenv("DIFFCOL_TEST_VERBOSE")) std::printf("    reference: %d ray minimizations\n", evals);
  return {std::min(best, val), t * e0};
}

// Perram–Wertheim: for ellipsoids with shape matrices M_i = R_i diag(axes_i²) R_iᵀ,
// α*² = max_{λ∈[0,1]} λ(1−λ) rᵀ((1−λ) M1 + λ M2)⁻¹ r (F is concave in λ).
double perram_wertheim_alpha(const Vec3& ax1, const Mat3& R1, const Vec3& ax2, const Mat3& R2, const Vec3& r) {
  const Mat3 M1 = R1 * ax1.cwiseProduct(ax1).asDiagonal() * R1.transpose();
  const Mat3 M2 = R2 * ax2.cwiseProduct(ax2).asDiagonal() * R2.transpose();
  auto negF = [&](double l) {
    const Mat3 C = (1.0 - l) * M1 + l * M2;
    return -l * (1.0 - l) * r.dot(C.llt().solve(r));
  };
  return std::sqrt(-golden_min(negF, 0.0, 1.0));
}

// Exact polytope–polytope α by enumerating the vertices of the 4-variable LP
//   min α  s.t.  A1 x − α b1 ≤ 0,  A2 Rᵀ x − α b2 ≤ A2 Rᵀ r.
double lp_alpha(const Eigen::MatrixX3d& A1, const Eigen::VectorXd& b1, const Eigen::MatrixX3d& A2,
                const Eigen::VectorXd& b2, const Pose& X12) {
  const int m1 = static_cast<int>(A1.rows()), m = m1 + static_cast<int>(A2.rows());
  Eigen::Matrix<double, Eigen::Dynamic, 4> G(m, 4);
  Eigen::VectorXd h(m);
  G.topLeftCorner(m1, 3) = A1;
  G.topRightCorner(m1, 1) = -b1;
  h.head(m1).setZero();
  const Eigen::MatrixX3d A2R = A2 * X12.R.transpose();
  G.bottomLeftCorner(m - m1, 3) = A2R;
  G.bottomRightCorner(m - m1, 1) = -b2;
  h.tail(m - m1) = A2R * X12.p;
  return min_alpha_over_vertices(G, h);
}

// =====================================================================================
// Checks of a converged solution against (10), (29), (30), (3)
// =====================================================================================

// KKT residual (10) at (x, s = log α, λ1, λ2) for body 2 at X12 in body 1.
Vec6 kkt_residual(const Shape& s1, const Shape& s2, const Pose& X12, const Vec3& x, double s, double l1, double l2) {
  const double a = std::exp(s);
  Vec3 g1, g2;
  Mat3 H;
  const Vec3 y1 = x / a, y2 = X12.R.transpose() * (x - X12.p) / a;
  const double phi1 = s1.eval(y1, g1, H);
  const double phi2 = s2.eval(y2, g2, H);
  Vec6 f;
  f[0] = phi1;
  f[1] = phi2;
  f.segment<3>(2) = (l1 / a) * g1 + (l2 / a) * (X12.R * g2);  // λ1 φ1x + λ2 φ2x, (7a)
  f[5] = 1.0 - (l1 / a) * y1.dot(g1) - (l2 / a) * y2.dot(g2);  // 1 + λ1 φ1α + λ2 φ2α, (7b)
  return f;
}

struct CheckTolerances {
  double kkt = 1e-9;
};

// Checks every documented property of a converged solution (records gtest failures).
void check_converged(const ContactSolution& sol, const Shape& s1, const Pose& X_W1, const Shape& s2,
                     const Pose& X_W2, const std::string& ctx, CheckTolerances tol = {}) {
  SCOPED_TRACE(ctx);
  ASSERT_EQ(sol.status, SolveStatus::ok) << diffcol::status_name(sol.status);
  ASSERT_TRUE(sol.ok());
  const Pose X12 = X_W1.inverse() * X_W2;
  const Vec3& r = X12.p;
  const Mat3& R = X12.R;
  const double L = s1.outer_radius() + s2.outer_radius();  // length scale
  EXPECT_LT((sol.X_12.R - R).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((sol.X_12.p - r).norm(), 1e-14 * (r.norm() + X_W1.p.norm() + X_W2.p.norm() + L));
  const double a = sol.alpha;
  ASSERT_GT(a, 0.0);
  EXPECT_GT(sol.lambda1, 0.0);
  EXPECT_GT(sol.lambda2, 0.0);
  // (10) recomputed from the returned α, x, λ; for a pair smaller than one length unit the rows
  // (10c) (units 1/length) in units of its size σ, as the solver's stopping test
  // (SolveOptions::tolerance)
  const Vec6 f = kkt_residual(s1, s2, X12, sol.x_B1, std::log(a), sol.lambda1, sol.lambda2);
  const double sigma = std::min(1.0, L);
  Vec6 f_scaled = f;
  f_scaled.segment<3>(2) *= sigma;
  EXPECT_LT(f_scaled.norm(), tol.kkt) << "KKT residual (10) = " << f.transpose() << ", size " << L;
  EXPECT_LT(sigma * sol.residual_norm, tol.kkt);
  // witness points (29)
  const Vec3 p1 = sol.x_B1 / a;
  const Vec3 p2 = (1.0 - 1.0 / a) * r + sol.x_B1 / a;
  const double ps = std::max(L, r.norm());
  EXPECT_LT((sol.p1_B1 - p1).norm(), 1e-12 * ps);
  EXPECT_LT((sol.p2_B1 - p2).norm(), 1e-12 * ps);
  EXPECT_LT(std::abs(s1.value(sol.p1_B1)), 1e-9) << "p1 on body 1's surface";
  EXPECT_LT(std::abs(s2.value(R.transpose() * (sol.p2_B1 - r))), 1e-9) << "p2 on body 2's surface";
  // p2 − p1 = (1 − 1/α) r: parallel to r
  const Vec3 d = sol.p2_B1 - sol.p1_B1;
  EXPECT_LT((d - (1.0 - 1.0 / a) * r).norm(), 1e-12 * ps);
  EXPECT_LT(d.cross(r).norm(), 1e-10 * ps * r.norm());
  // gap (30)
  EXPECT_NEAR(sol.gap, (1.0 - 1.0 / a) * r.norm(), 1e-12 * ps);
  EXPECT_EQ(sol.gap > 0.0, a > 1.0);
  EXPECT_NEAR(std::abs(sol.gap), d.norm(), 1e-12 * ps);
  // normal (3): ∇φ1/‖∇φ1‖ at p1, opposite to body 2's outward normal at p2
  Vec3 g1, g2;
  Mat3 H;
  s1.eval(p1, g1, H);
  s2.eval(R.transpose() * (p2 - r), g2, H);
  EXPECT_NEAR(sol.normal_B1.norm(), 1.0, 1e-14);
  EXPECT_LT((sol.normal_B1 - g1.normalized()).norm(), 1e-9);
  EXPECT_LT((sol.normal_B1 + (R * g2).normalized()).norm(), 1e-7);
  // world fields = X_W1 applied to body-1 fields
  const double ws = ps + X_W1.p.norm();
  EXPECT_LT((sol.x_W - X_W1 * sol.x_B1).norm(), 1e-13 * ws * std::max(1.0, a));
  EXPECT_LT((sol.p1_W - X_W1 * sol.p1_B1).norm(), 1e-13 * ws);
  EXPECT_LT((sol.p2_W - X_W1 * sol.p2_B1).norm(), 1e-13 * ws);
  EXPECT_LT((sol.normal_W - X_W1.R * sol.normal_B1).norm(), 1e-14);
  // the touching point of the scaled bodies, seen from body 2, is α·p2 relative to its origin
  EXPECT_LT((X_W2.inverse() * sol.x_W - a * (X_W2.inverse() * sol.p2_W)).norm(), 1e-11 * ws * std::max(1.0, a));
  EXPECT_GE(sol.iterations, 0);
  EXPECT_GE(sol.attempts, 1);
  EXPECT_GE(sol.jacobian_evaluations, 1);
}

// =====================================================================================
// Tests
// =====================================================================================

TEST(ContactReference, GenericReferenceAgreesWithPerramWertheim) {
  // self-check of the test harness: the generic gauge reference (root finding only, no closed
  // forms) against the Perram–Wertheim closed form, on ellipsoid pairs
  std::mt19937 rng(201);
  std::uniform_real_distribution<double> U(0.3, 1.5);
  for (int k = 0; k < 4; ++k) {
    const Vec3 ax1(U(rng), U(rng), U(rng)), ax2(U(rng), U(rng), U(rng));
    const Shape e1 = Superellipsoid::ellipsoid(ax1.x(), ax1.y(), ax1.z());
    const Shape e2 = Superellipsoid::ellipsoid(ax2.x(), ax2.y(), ax2.z());
    const Pose X12 = random_pose(rng, 3.0);
    const double pw = perram_wertheim_alpha(ax1, Mat3::Identity(), ax2, X12.R, X12.p);
    const Reference ref = reference_alpha(e1, e2, X12, /*closed_forms=*/false);
    EXPECT_NEAR(ref.alpha, pw, 1e-9 * pw);
  }
}

TEST(Contact, SphereSphereMatchesClosedForm) {
  std::mt19937 rng(202);
  std::uniform_real_distribution<double> U(0.2, 2.0), D(0.05, 6.0);
  for (int k = 0; k < 200; ++k) {
    const double R1 = U(rng), R2 = U(rng);
    const Shape s1 = Sphere(R1), s2 = Sphere(R2);
    const Pose X1 = random_pose(rng, 5.0);
    const Vec3 dir = random_unit(rng);
    const Pose X2 = make_pose(random_rotation(rng), X1.p + D(rng) * (R1 + R2) * dir);
    const ContactSolution sol = solve_contact(s1, X1, s2, X2);
    const std::string ctx = "R1 = " + std::to_string(R1) + ", R2 = " + std::to_string(R2) + ", " + describe_pose(X2);
    check_converged(sol, s1, X1, s2, X2, ctx);
    const double dist = (X2.p - X1.p).norm();
    EXPECT_NEAR(sol.alpha, dist / (R1 + R2), 1e-12 * dist / (R1 + R2)) << ctx;
    // closed-form witness points, gap, normal in the world frame
    const Vec3 n = (X2.p - X1.p) / dist;
    EXPECT_LT((sol.p1_W - (X1.p + R1 * n)).norm(), 1e-12 * (1.0 + dist)) << ctx;
    EXPECT_LT((sol.p2_W - (X2.p - R2 * n)).norm(), 1e-12 * (1.0 + dist)) << ctx;
    EXPECT_NEAR(sol.gap, dist - R1 - R2, 1e-12 * (1.0 + dist)) << ctx;
    EXPECT_LT((sol.normal_W - n).norm(), 1e-12) << ctx;
    EXPECT_LT((sol.x_W - (X1.p + sol.alpha * R1 * n)).norm(), 1e-12 * (1.0 + dist)) << ctx;
  }
}

TEST(Contact, EllipsoidEllipsoidMatchesPerramWertheim) {
  std::mt19937 rng(203);
  std::uniform_real_distribution<double> U(0.2, 2.0), D(0.1, 2.5);
  for (int k = 0; k < 60; ++k) {
    const Vec3 ax1(U(rng), U(rng), U(rng)), ax2(U(rng), U(rng), U(rng));
    const Shape e1 = Superellipsoid::ellipsoid(ax1.x(), ax1.y(), ax1.z());
    const Shape e2 = Superellipsoid::ellipsoid(ax2.x(), ax2.y(), ax2.z());
    const Pose X1 = random_pose(rng, 2.0);
    const Pose X2 = make_pose(random_rotation(rng),
                              X1.p + D(rng) * (ax1.maxCoeff() + ax2.maxCoeff()) * random_unit(rng));
    const ContactSolution sol = solve_contact(e1, X1, e2, X2);
    const std::string ctx = "axes " + std::to_string(k) + ", " + describe_pose(X2);
    check_converged(sol, e1, X1, e2, X2, ctx);
    const double pw = perram_wertheim_alpha(ax1, X1.R, ax2, X2.R, X2.p - X1.p);
    EXPECT_NEAR(sol.alpha, pw, 1e-8 * pw) << ctx;
  }
}

// A flat disc (ellipsoid 30 × 30 × 0.3) against a much larger sphere (R = 100): the damped Newton
// iterations converge slowly here (hundreds of steps); SolveOptions::last_resort_iterations gives
// them the room. Before it, about a third of these poses ended not_converged.
TEST(Contact, FlatDiscAgainstALargeSphereConverges) {
  std::mt19937 rng(207);
  std::uniform_real_distribution<double> logd(-2.0, 0.5);
  const Vec3 disc(30.0, 30.0, 0.3), ball(100.0, 100.0, 100.0);
  const Shape e = Superellipsoid::ellipsoid(disc.x(), disc.y(), disc.z());
  const Shape s = Sphere(ball.x());
  int slow = 0;
  for (int k = 0; k < 40; ++k) {
    const Pose X1 = random_pose(rng, 1.0);
    const Pose X2 = make_pose(random_rotation(rng), X1.p + 100.0 * std::pow(10.0, logd(rng)) * random_unit(rng));
    for (int order = 0; order < 2; ++order) {
      const Shape& a = order == 0 ? s : e;
      const Shape& b = order == 0 ? e : s;
      const Vec3& ax1 = order == 0 ? ball : disc;
      const Vec3& ax2 = order == 0 ? disc : ball;
      const ContactSolution sol = solve_contact(a, X1, b, X2);
      const std::string ctx = std::string(order == 0 ? "sphere vs disc" : "disc vs sphere") + ", X_W1: " +
                              describe_pose(X1) + ", X_W2: " + describe_pose(X2);
      check_converged(sol, a, X1, b, X2, ctx);
      const double pw = perram_wertheim_alpha(ax1, X1.R, ax2, X2.R, X2.p - X1.p);
      EXPECT_NEAR(sol.alpha, pw, 1e-8 * pw) << ctx;
      slow += sol.iterations > diffcol::idcol::SolveOptions{}.max_iterations;
    }
  }
  std::printf("  %d of 80 solves needed more than max_iterations Newton steps\n", slow);
}

// Solves (s1, s2) and (s2, s1): both converged KKT points (check_converged) with the same α.
// Returns the first.
ContactSolution converged_in_both_orders(const Shape& s1, const Pose& X1, const Shape& s2, const Pose& X2,
                                         const diffcol::idcol::SolveOptions& opt, const std::string& ctx) {
  const ContactSolution a = solve_contact(s1, X1, s2, X2, opt), b = solve_contact(s2, X2, s1, X1, opt);
  check_converged(a, s1, X1, s2, X2, ctx);
  check_converged(b, s2, X2, s1, X1, ctx);
  EXPECT_NEAR(a.alpha, b.alpha, 1e-8 * a.alpha) << ctx;
  return a;
}

TEST(Contact, FlatDiscsConvergeWithoutTheLastResort) {
  // Flat discs (aspect 100) against a sphere 3x larger than the disc, with no last-resort attempt:
  // the ray-cast start (shapes with closed-form support points) must finish what the centre-line
  // start leaves to a long crawl. The ellipsoid is checked against Perram–Wertheim; every solve
  // must be a converged KKT point, and both orders must give the same α.
  std::mt19937 rng(208);
  std::uniform_real_distribution<double> logd(-2.0, 0.5);
  diffcol::idcol::SolveOptions opt;
  opt.last_resort_iterations = 0;
  const Vec3 disc(30.0, 30.0, 0.3);
  const Shape ball = Sphere(100.0);
  const std::vector<std::pair<std::string, Shape>> discs = {
      {"ellipsoid", Superellipsoid::ellipsoid(disc.x(), disc.y(), disc.z())},
      {"se8", Superellipsoid(disc.x(), disc.y(), disc.z(), 8)},
      {"sec2", SuperellipticCylinder(30.0, 0.3, 2)},
      {"sec8", SuperellipticCylinder(30.0, 0.3, 8)}};
  for (const auto& [name, d] : discs)
    for (int k = 0; k < 25; ++k) {
      const Pose X1 = random_pose(rng, 1.0);
      const Pose X2 = make_pose(random_rotation(rng), X1.p + 100.0 * std::pow(10.0, logd(rng)) * random_unit(rng));
      const std::string ctx = name + ", X_W1: " + describe_pose(X1) + ", X_W2: " + describe_pose(X2);
      const ContactSolution a = converged_in_both_orders(ball, X1, d, X2, opt, ctx);
      if (name == "ellipsoid") {
        EXPECT_NEAR(a.alpha, perram_wertheim_alpha(Vec3(100, 100, 100), X1.R, disc, X2.R, X2.p - X1.p), 1e-8 * a.alpha)
            << ctx;
      }
    }
}

TEST(Contact, ThinPlatesConvergeWithoutTheLastResort) {
  // Thin smooth-polytope plates (1 × 0.6 × 0.01, aspect 100, L = the half-thickness) against a
  // box, an se8 block, a truncated cone and a sphere of about a tenth of the plate's size, with no
  // last-resort attempt. The centre-line start often leaves Newton's method with multipliers that
  // cannot balance (10c) against (10d), and the 10% rule then drives one to 0; the ray cast on the
  // exact shapes' support points (the polytope's vertices, the cone's rims) must start those.
  // Every solve a converged KKT point, both orders the same α, the sphere also against the gauge
  // reference.
  std::mt19937 rng(209);
  std::uniform_real_distribution<double> logd(-1.5, 0.3), U(0.0, 1.0);
  diffcol::idcol::SolveOptions opt;
  opt.last_resort_iterations = 0;
  const double th = 0.01;
  const Shape plate = SmoothPolytope::box(1.0, 0.6, th, 20.0, th);
  const std::vector<std::pair<std::string, Shape>> others = {
      {"box", SmoothPolytope::box(0.12, 0.07, 0.05, 20.0, 0.05)},
      {"se8", Superellipsoid(0.12, 0.08, 0.05, 8)},
      {"tc", SmoothTruncatedCone(0.06, 0.02, 0.06, 0.06, 20.0)},
      {"sphere", Sphere(0.1)}};
  for (const auto& [name, o] : others)
    for (int k = 0; k < 40; ++k) {
      const Pose X1 = random_pose(rng, 1.0);
      // mostly over the flat faces: directions tilted towards the plate normal
      Vec3 u = random_unit(rng);
      u.z() = (U(rng) < 0.8 ? 4.0 : 1.0) * u.z();
      const Pose X2 = make_pose(random_rotation(rng), X1.p + X1.R * (std::pow(10.0, logd(rng)) * u.normalized()));
      const std::string ctx = name + ", X_W1: " + describe_pose(X1) + ", X_W2: " + describe_pose(X2);
      const ContactSolution a = converged_in_both_orders(plate, X1, o, X2, opt, ctx);
      if (name == "sphere") {
        const Reference ref = reference_alpha(plate, o, X1.inverse() * X2);
        EXPECT_NEAR(a.alpha, ref.alpha, 1e-6 * ref.alpha) << ctx;
      }
    }
}

TEST(Contact, NotConvergedReturnsTheBestIterate) {
  // When no attempt converges, the result holds the best iterate over all attempts (smallest
  // ‖f‖), not the last attempt's. With the tightest tolerance and one Newton iteration per
  // attempt, every attempt fails; the full sequence of attempts must do at least as well as its
  // first attempt alone.
  std::mt19937 rng(210);
  diffcol::idcol::SolveOptions all;
  all.tolerance = 1e-14;  // the smallest validate() accepts
  all.max_iterations = 1;
  all.last_resort_iterations = 0;  // the last attempt: a spread start, then its continuation
  diffcol::idcol::SolveOptions first = all;
  first.max_attempts = 1;
  first.continuation = false;
  first.last_resort_iterations = 0;
  const Shape s1 = diffcol::idcol::benchmark_shape("poly"), s2 = diffcol::idcol::benchmark_shape("se");
  int better = 0;
  for (int k = 0; k < 40; ++k) {
    const Pose X1 = random_pose(rng, 1.0);
    const Pose X2 = make_pose(random_rotation(rng), X1.p + 2.5 * random_unit(rng));
    const ContactSolution a = solve_contact(s1, X1, s2, X2, all), f = solve_contact(s1, X1, s2, X2, first);
    ASSERT_EQ(a.status, SolveStatus::not_converged);
    ASSERT_EQ(f.status, SolveStatus::not_converged);
    EXPECT_LE(a.residual_norm, f.residual_norm) << k;
    better += a.residual_norm < f.residual_norm;
    EXPECT_TRUE(std::isfinite(a.alpha) && a.x_B1.allFinite()) << k;
  }
  std::printf("  the later attempts did better than the first in %d of 40\n", better);
}

TEST(Contact, SphereVersusEveryShapeMatchesGaugeReference) {
  std::mt19937 rng(204);
  std::uniform_real_distribution<double> D(0.15, 2.0);
  const Shape ball = Sphere(0.6);
  double worst = 0.0;
  for (const NamedShape& ns : test_shapes()) {
    for (int k = 0; k < 3; ++k) {
      const Pose X1 = random_pose(rng, 1.0);
      const double sep = D(rng) * (ns.shape.outer_radius() + 0.6);
      const Pose X2 = make_pose(random_rotation(rng), X1.p + sep * random_unit(rng));
      // shape as body 1 and as body 2
      for (int order = 0; order < 2; ++order) {
        const Shape& a = order == 0 ? ns.shape : ball;
        const Shape& b = order == 0 ? ball : ns.shape;
        const ContactSolution sol = solve_contact(a, X1, b, X2);
        const std::string ctx = (order == 0 ? ns.name + " vs sphere" : "sphere vs " + ns.name) + ", X_W1: " +
                                describe_pose(X1) + ", X_W2: " + describe_pose(X2);
        check_converged(sol, a, X1, b, X2, ctx);
        const Reference ref = reference_alpha(a, b, X1.inverse() * X2);
        EXPECT_NEAR(sol.alpha, ref.alpha, 1e-6 * ref.alpha) << ctx;
        worst = std::max(worst, std::abs(sol.alpha - ref.alpha) / ref.alpha);
      }
    }
  }
  std::printf("  largest relative difference from the reference: %.2e\n", worst);
}

TEST(Contact, MixedPairsMatchGaugeReference) {
  std::mt19937 rng(205);
  std::uniform_real_distribution<double> D(0.15, 2.0);
  const std::vector<NamedShape> shapes = test_shapes();
  const std::vector<std::pair<int, int>> pairs = {{1, 1}, {4, 4}, {4, 2}, {3, 5}, {2, 3}, {9, 8}, {6, 7}, {5, 9}};
  double worst = 0.0;
  for (auto [i, j] : pairs) {
    const NamedShape &A = shapes[i], &B = shapes[j];
    for (int k = 0; k < 2; ++k) {
      const Pose X1 = random_pose(rng, 1.0);
      const double sep = D(rng) * (A.shape.outer_radius() + B.shape.outer_radius());
      const Pose X2 = make_pose(random_rotation(rng), X1.p + sep * random_unit(rng));
      const ContactSolution sol = solve_contact(A.shape, X1, B.shape, X2);
      const std::string ctx = A.name + " vs " + B.name + ", X_W1: " + describe_pose(X1) + ", X_W2: " + describe_pose(X2);
      check_converged(sol, A.shape, X1, B.shape, X2, ctx);
      const Reference ref = reference_alpha(A.shape, B.shape, X1.inverse() * X2);
      EXPECT_NEAR(sol.alpha, ref.alpha, 1e-6 * ref.alpha) << ctx;
      worst = std::max(worst, std::abs(sol.alpha - ref.alpha) / ref.alpha);
    }
  }
  std::printf("  largest relative difference from the reference: %.2e\n", worst);
}

TEST(Contact, SmoothPolytopesConvergeToTheExactPolytopeLp) {
  std::mt19937 rng(206);
  struct Poly {
    Eigen::MatrixX3d A;
    Eigen::VectorXd b;
  };
  const std::vector<Poly> polys = {{poly_A(), poly_b()}, {box_A(), box_b(0.5, 1.0, 1.5)}, {box_A(), box_b(0.7, 0.7, 0.3)}};
  const std::vector<std::pair<int, int>> pairs = {{0, 0}, {0, 1}, {1, 2}, {1, 1}};
  const double betas[4] = {10.0, 40.0, 160.0, 640.0};
  for (auto [i, j] : pairs) {
    for (int k = 0; k < 3; ++k) {
      const Pose X1 = random_pose(rng, 1.0);
      std::uniform_real_distribution<double> D(0.4, 1.6);
      const Pose X2 = make_pose(random_rotation(rng), X1.p + D(rng) * 2.0 * random_unit(rng));
      const Pose X12 = X1.inverse() * X2;
      const double exact = lp_alpha(polys[i].A, polys[i].b, polys[j].A, polys[j].b, X12);
      ASSERT_TRUE(std::isfinite(exact));
      double prev_err = std::numeric_limits<double>::infinity();
      for (double beta : betas) {
        const Shape P1 = SmoothPolytope(polys[i].A, polys[i].b, beta);
        const Shape P2 = SmoothPolytope(polys[j].A, polys[j].b, beta);
        const ContactSolution sol = solve_contact(P1, X1, P2, X2);
        const std::string ctx = "polytopes " + std::to_string(i) + "," + std::to_string(j) +
                                ", beta = " + std::to_string(beta) + ", X_W1: " + describe_pose(X1) +
                                ", X_W2: " + describe_pose(X2);
        check_converged(sol, P1, X1, P2, X2, ctx);
        if (!sol.ok()) continue;
        // the smooth polytopes lie inside the exact ones: α_smooth ≥ α_exact
        EXPECT_GE(sol.alpha, exact * (1.0 - 1e-9)) << ctx;
        const double err = std::abs(sol.alpha - exact) / exact;
        EXPECT_LT(err, prev_err) << ctx;
        prev_err = err;
        if (beta == 640.0) {
          EXPECT_LT(err, 0.02) << ctx;
        }
      }
    }
  }
}

TEST(Contact, SwappingTheBodiesGivesTheSameContact) {
  std::mt19937 rng(207);
  std::uniform_real_distribution<double> D(0.1, 2.5);
  const std::vector<NamedShape> shapes = test_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    for (size_t j = 0; j < shapes.size(); ++j) {
      const Shape &A = shapes[i].shape, &B = shapes[j].shape;
      const Pose X1 = random_pose(rng, 1.0);
      const Pose X2 = make_pose(random_rotation(rng),
                                X1.p + D(rng) * (A.outer_radius() + B.outer_radius()) * random_unit(rng));
      const std::string ctx = shapes[i].name + " vs " + shapes[j].name + ", X_W1: " + describe_pose(X1) +
                              ", X_W2: " + describe_pose(X2);
      const ContactSolution s12 = solve_contact(A, X1, B, X2);
      const ContactSolution s21 = solve_contact(B, X2, A, X1);
      check_converged(s12, A, X1, B, X2, ctx);
      check_converged(s21, B, X2, A, X1, ctx + " (swapped)");
      EXPECT_NEAR(s21.alpha, s12.alpha, 1e-8 * s12.alpha) << ctx;
      const double L = A.outer_radius() + B.outer_radius() + (X2.p - X1.p).norm();
      // the same touching point; witness points exchanged; normals opposite; same gap
      EXPECT_LT((s21.x_W - s12.x_W).norm(), 1e-7 * L * std::max(1.0, s12.alpha)) << ctx;
      EXPECT_LT((s21.p1_W - s12.p2_W).norm(), 1e-7 * L) << ctx;
      EXPECT_LT((s21.p2_W - s12.p1_W).norm(), 1e-7 * L) << ctx;
      EXPECT_LT((s21.normal_W + s12.normal_W).norm(), 1e-6) << ctx;
      EXPECT_NEAR(s21.gap, s12.gap, 1e-8 * L) << ctx;
    }
  }
}

TEST(Contact, ScalingShapesAndTranslationLeavesAlphaUnchanged) {
  std::mt19937 rng(208);
  std::uniform_real_distribution<double> D(0.1, 2.5);
  const std::vector<NamedShape> shapes = test_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const size_t j = (i * 5 + 3) % shapes.size();
    const Shape &A = shapes[i].shape, &B = shapes[j].shape;
    for (int rep = 0; rep < 2; ++rep) {
      const Pose X1 = random_pose(rng, 1.0);
      const Pose X2 = make_pose(random_rotation(rng),
                                X1.p + D(rng) * (A.outer_radius() + B.outer_radius()) * random_unit(rng));
      const ContactSolution base = solve_contact(A, X1, B, X2);
      const std::string ctx = shapes[i].name + " vs " + shapes[j].name + ", X_W1: " + describe_pose(X1) +
                              ", X_W2: " + describe_pose(X2);
      check_converged(base, A, X1, B, X2, ctx);
      for (double k : {0.01, 7.0, 1000.0}) {
        const Shape Ak = scaled(A, k), Bk = scaled(B, k);
        const Pose X1k = make_pose(X1.R, k * X1.p), X2k = make_pose(X2.R, k * X2.p);
        const ContactSolution sk = solve_contact(Ak, X1k, Bk, X2k);
        check_converged(sk, Ak, X1k, Bk, X2k, ctx + ", k = " + std::to_string(k));
        EXPECT_NEAR(sk.alpha, base.alpha, 1e-8 * base.alpha) << ctx << ", k = " << k;
        EXPECT_NEAR(sk.gap, k * base.gap, 1e-7 * k * (std::abs(base.gap) + 1.0)) << ctx << ", k = " << k;
        EXPECT_LT((sk.normal_W - base.normal_W).norm(), 1e-7) << ctx << ", k = " << k;
        // the iteration and the stopping test are scale invariant (‖W f‖, equilibrated Newton
        // system, docs/idcol.md); rounding may still end it one step apart
        EXPECT_EQ(sk.attempts, base.attempts) << ctx << ", k = " << k;
        EXPECT_LE(std::abs(sk.iterations - base.iterations), 1) << ctx << ", k = " << k;
      }
    }
  }
}

// The stopping test measures rows (10c) in units of the pair's size
// (SolveOptions::tolerance), so sharp pairs scaled far down converge as they do at unit size, to
// the same α. With the plain ‖f‖ as the test, the benchmark truncated cone against a box at
// β = 200 and k = 1e-5 stalled at ‖f‖ ≈ 1e-9 on 40% of sweep poses (docs/notes/idcol.md).
TEST(Contact, SmallSharpPairsConvergeAsAtUnitSize) {
  const double beta = 200.0;
  const Shape tc = SmoothTruncatedCone(1.0, 1.5, 1.5, 1.5, beta);
  const Shape box = SmoothPolytope::box(1.0, 0.5, 0.7, beta, 1.0);
  const Pose I = Pose::identity();
  for (int order = 0; order < 2; ++order) {
    const Shape& A = order == 0 ? tc : box;
    const Shape& B = order == 0 ? box : tc;
    const diffcol::idcol::ErgodicSweep sweep = diffcol::idcol::ErgodicSweep::for_pair(A, B);
    const double ks[2] = {1e-5, 1e-3};
    ContactPair unit(A, B), small[2] = {ContactPair(scaled(A, ks[0]), scaled(B, ks[0])),
                                        ContactPair(scaled(A, ks[1]), scaled(B, ks[1]))};
    for (int i = 0; i < 300; ++i) {
      const Pose X2 = sweep.pose(37L * i);
      const std::string ctx = std::string(order == 0 ? "tc-box" : "box-tc") + ", pose " + std::to_string(37 * i);
      const ContactSolution base = unit.solve_cold(I, X2);
      check_converged(base, A, I, B, X2, ctx + " (unit size)");
      for (int j = 0; j < 2; ++j) {
        const Pose X2k = make_pose(X2.R, ks[j] * X2.p);
        const ContactSolution s = small[j].solve_cold(I, X2k);
        check_converged(s, small[j].shape1(), I, small[j].shape2(), X2k, ctx + ", k = " + std::to_string(ks[j]));
        EXPECT_NEAR(s.alpha, base.alpha, 1e-8 * base.alpha) << ctx << ", k = " << ks[j];
      }
    }
  }
}

// Above unit size too the iteration (equilibrated Newton system) and the stopping test work in
// units of the pair's size. Before, pairs with a sharp box scaled by 1e5 failed at 77 of these
// 30 000 sweep solves (not_converged, or α off by more than 1e-8: the singularity test and
// pivoting of J in mixed units, the plain-‖f‖ test loose in rows (10c)) and the
// loose rows (10c) of the plain-‖f‖ test left dα/dξ off at 1e3 (next test; docs/idcol.md).
TEST(Contact, LargeSharpPairsConvergeAsAtUnitSize) {
  const Shape box = SmoothPolytope::box(1.0, 0.5, 0.7, 200.0, 1.0);
  const Shape sec = diffcol::idcol::benchmark_shape("sec"), tc = diffcol::idcol::benchmark_shape("tc");
  const double k = 1e5;
  const std::pair<const Shape*, const Shape*> pairs[3] = {{&sec, &box}, {&box, &sec}, {&tc, &box}};
  const char* names[3] = {"sec-box", "box-sec", "tc-box"};
  const Pose I = Pose::identity();
  for (int q = 0; q < 3; ++q) {
    const Shape &A = *pairs[q].first, &B = *pairs[q].second;
    const diffcol::idcol::ErgodicSweep sweep = diffcol::idcol::ErgodicSweep::for_pair(A, B);
    ContactPair unit(A, B), large(scaled(A, k), scaled(B, k));
    int failed = 0;
    for (int i = 0; i < 10000; ++i) {
      const Pose X2 = sweep.pose(i), X2k = make_pose(X2.R, k * X2.p);
      const ContactSolution base = unit.solve_cold(I, X2), s = large.solve_cold(I, X2k);
      if (!base.ok() || !s.ok() || !(std::abs(s.alpha - base.alpha) <= 1e-8 * base.alpha)) {
        if (++failed <= 3)
          ADD_FAILURE() << names[q] << ", pose " << i << ": " << diffcol::status_name(s.status) << ", alpha "
                        << s.alpha << " against " << base.alpha << " at unit size";
      }
    }
    EXPECT_EQ(failed, 0) << names[q];
  }
}

// dα/dξ of every benchmark pair scaled by 1e3 equals the unit-size one (its translation part
// scaled by 1/k) at 500 sweep poses each. With the plain-‖f‖ stopping test 31 of 97 510 sweep
// solves (64 pairs, 1990 poses) were off by more than 1e-3 relative at this scale.
TEST(Contact, AlphaDerivativesDoNotDependOnTheLengthUnit) {
  const double k = 1e3;
  const Pose I = Pose::identity();
  std::vector<std::pair<std::string, Shape>> shapes;
  for (const std::string& n : diffcol::idcol::benchmark_shape_names())
    shapes.push_back({n, diffcol::idcol::benchmark_shape(n)});
  shapes.push_back({"box(beta 200)", SmoothPolytope::box(1.0, 0.5, 0.7, 200.0, 1.0)});
  for (const auto& [na, A] : shapes)
    for (const auto& [nb, B] : shapes) {
      const diffcol::idcol::ErgodicSweep sweep = diffcol::idcol::ErgodicSweep::for_pair(A, B);
      ContactPair unit(A, B), large(scaled(A, k), scaled(B, k));
      int failed = 0;
      for (int i = 10; i < 510; ++i) {
        const Pose X2 = sweep.pose(i), X2k = make_pose(X2.R, k * X2.p);
        const ContactSolution base = unit.solve_cold(I, X2), s = large.solve_cold(I, X2k);
        ASSERT_TRUE(base.ok() && s.ok()) << na << "-" << nb << ", pose " << i;
        const diffcol::idcol::ContactDerivatives d0 = diffcol::idcol::contact_derivatives(base),
                                                 dk = diffcol::idcol::contact_derivatives(s);
        // the same status in either unit (ill_conditioned on nearly parallel flat faces: both)
        ASSERT_EQ(d0.status, dk.status) << na << "-" << nb << ", pose " << i << ", condition " << d0.kkt_condition
                                        << " at unit size, " << dk.kkt_condition << " at k = 1e3";
        if (!d0.ok()) continue;
        Eigen::Matrix<double, 1, 6> g = dk.J_alpha_X12;
        g.tail<3>() *= k;  // ξ = [ω; v]: dα/dv has units 1/length
        const double err = (g - d0.J_alpha_X12).norm(), scale = d0.J_alpha_X12.norm() + 1e-9;
        if (!(err <= 1e-6 * scale) && ++failed <= 3)
          ADD_FAILURE() << na << "-" << nb << ", pose " << i << ": dalpha/dxi " << g << " at k = 1e3 against "
                        << d0.J_alpha_X12 << " at unit size";
      }
      EXPECT_EQ(failed, 0) << na << "-" << nb;
    }
}

TEST(Contact, KktJacobianMatchesFiniteDifferences) {
  // kkt_jacobian: J_c at z* in the original variables (x, s = log α, λ1, λ2)
  std::mt19937 rng(209);
  std::uniform_real_distribution<double> D(0.2, 2.0);
  const std::vector<NamedShape> shapes = test_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const size_t j = (i * 7 + 2) % shapes.size();
    const Shape &A = shapes[i].shape, &B = shapes[j].shape;
    const Pose X1 = random_pose(rng, 1.0);
    const Pose X2 = make_pose(random_rotation(rng),
                              X1.p + D(rng) * (A.outer_radius() + B.outer_radius()) * random_unit(rng));
    const Pose X12 = X1.inverse() * X2;
    const ContactSolution sol = solve_contact(A, X1, B, X2);
    const std::string ctx = shapes[i].name + " vs " + shapes[j].name + ", " + describe_pose(X2);
    check_converged(sol, A, X1, B, X2, ctx);
    if (!sol.ok()) continue;
    Vec6 z;
    z << sol.x_B1, std::log(sol.alpha), sol.lambda1, sol.lambda2;
    auto res = [&](const Vec6& w) { return kkt_residual(A, B, X12, w.head<3>(), w[3], w[4], w[5]); };
    Mat6 Jfd;
    for (int c = 0; c < 6; ++c) {
      const double h = 1e-6 * std::max(std::abs(z[c]), c < 3 ? sol.alpha * A.outer_radius() : 1e-3);
      Vec6 e = Vec6::Zero();
      e[c] = h;
      Jfd.col(c) = (res(z + e) - res(z - e)) / (2.0 * h);
    }
    for (int c = 0; c < 6; ++c) {
      const double scale = std::max(Jfd.col(c).norm(), sol.kkt_jacobian.col(c).norm());
      EXPECT_LT((Jfd.col(c) - sol.kkt_jacobian.col(c)).norm(), 1e-5 * scale)
          << ctx << ", column " << c << "\nFD:\n" << Jfd << "\nreturned:\n" << sol.kkt_jacobian;
    }
    // kkt_lu factors kkt_jacobian
    Vec6 v;
    for (int c = 0; c < 6; ++c) v[c] = std::sin(1.0 + c);
    const Vec6 w = sol.kkt_lu.solve(Vec6(sol.kkt_jacobian * v));
    EXPECT_LT((w - v).norm(), 1e-8 * v.norm()) << ctx;
  }
}

TEST(Contact, ImplicitDerivativesOfAlphaMatchFiniteDifferences) {
  // dα/dq from the implicit function theorem with the returned kkt_lu, ∂f/∂q by central
  // differences of (10) at fixed z, against central differences of the solver's α(q).
  std::mt19937 rng(210);
  std::uniform_real_distribution<double> D(0.3, 2.0);
  const std::vector<NamedShape> shapes = test_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const size_t j = (i * 3 + 1) % shapes.size();
    const Shape &A = shapes[i].shape, &B = shapes[j].shape;
    const Pose X1 = random_pose(rng, 1.0);
    const Pose X2 = make_pose(random_rotation(rng),
                              X1.p + D(rng) * (A.outer_radius() + B.outer_radius()) * random_unit(rng));
    const ContactSolution sol = solve_contact(A, X1, B, X2);
    const std::string ctx = shapes[i].name + " vs " + shapes[j].name + ", " + describe_pose(X2);
    check_converged(sol, A, X1, B, X2, ctx);
    if (!sol.ok()) continue;
    Vec6 z;
    z << sol.x_B1, std::log(sol.alpha), sol.lambda1, sol.lambda2;
    const double hq = 1e-6;
    // perturbations of body 2's world pose: translation along a random direction, rotation
    // about a random axis (left-multiplied about body 2's origin)
    const Vec3 dir = random_unit(rng), axis = random_unit(rng);
    for (int kind = 0; kind < 2; ++kind) {
      auto pose2 = [&](double t) {
        Pose g = X2;
        if (kind == 0) g.p += t * dir;
        else g.R = diffcol::so3_exp(t * axis) * X2.R;
        return g;
      };
      const Vec6 fp = kkt_residual(A, B, X1.inverse() * pose2(hq), z.head<3>(), z[3], z[4], z[5]);
      const Vec6 fm = kkt_residual(A, B, X1.inverse() * pose2(-hq), z.head<3>(), z[3], z[4], z[5]);
      const Vec6 dfdq = (fp - fm) / (2.0 * hq);
      const Vec6 dz = -sol.kkt_lu.solve(dfdq);
      const double dalpha_ift = sol.alpha * dz[3];
      const ContactSolution sp = solve_contact(A, X1, B, pose2(hq));
      const ContactSolution sm = solve_contact(A, X1, B, pose2(-hq));
      ASSERT_TRUE(sp.ok() && sm.ok()) << ctx;
      const double dalpha_fd = (sp.alpha - sm.alpha) / (2.0 * hq);
      EXPECT_NEAR(dalpha_ift, dalpha_fd, 1e-5 * std::max(std::abs(dalpha_fd), sol.alpha))
          << ctx << (kind == 0 ? ", translation" : ", rotation");
      // and the touching point
      const Vec3 dx_fd = (sp.x_B1 - sm.x_B1) / (2.0 * hq);
      EXPECT_LT((dz.head<3>() - dx_fd).norm(), 1e-4 * std::max(dx_fd.norm(), sol.alpha)) << ctx;
    }
  }
}

TEST(Contact, CoincidentOrigins) {
  std::mt19937 rng(211);
  const std::vector<NamedShape> shapes = test_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const size_t j = (i + 4) % shapes.size();
    const Shape &A = shapes[i].shape, &B = shapes[j].shape;
    const Pose X1 = random_pose(rng, 1.0);
    const Pose X2 = make_pose(random_rotation(rng), X1.p);
    const std::string ctx = shapes[i].name + " vs " + shapes[j].name;
    const ContactSolution sol = solve_contact(A, X1, B, X2);
    EXPECT_EQ(sol.status, SolveStatus::coincident_origins) << ctx << ": " << diffcol::status_name(sol.status);
    EXPECT_TRUE(sol.ok()) << ctx;
    EXPECT_EQ(sol.alpha, 0.0) << ctx;
    EXPECT_EQ(sol.x_B1, Vec3::Zero()) << ctx;
    EXPECT_EQ(sol.lambda1, 0.0) << ctx;
    EXPECT_EQ(sol.lambda2, 0.0) << ctx;
    for (const Vec3* v : {&sol.x_B1, &sol.p1_B1, &sol.p2_B1, &sol.normal_B1, &sol.x_W, &sol.p1_W, &sol.p2_W,
                          &sol.normal_W})
      EXPECT_TRUE(v->allFinite()) << ctx;
    EXPECT_TRUE(std::isfinite(sol.gap) && std::isfinite(sol.residual_norm)) << ctx;
    EXPECT_TRUE(sol.kkt_jacobian.allFinite()) << ctx;
    EXPECT_NEAR(sol.normal_B1.norm(), 1.0, 1e-12) << ctx;

    // 1e-9 apart: a regular (tiny-α) contact
    const Pose X2b = make_pose(X2.R, X1.p + 1e-9 * random_unit(rng));
    const ContactSolution near = solve_contact(A, X1, B, X2b);
    EXPECT_TRUE(near.ok()) << ctx << ": " << diffcol::status_name(near.status);
    EXPECT_EQ(near.status, SolveStatus::ok) << ctx;
    EXPECT_GT(near.alpha, 0.0) << ctx;
    EXPECT_LT(near.alpha, 1e-8) << ctx;
    for (const Vec3* v : {&near.x_B1, &near.p1_B1, &near.p2_B1, &near.normal_B1, &near.x_W, &near.p1_W,
                          &near.p2_W, &near.normal_W})
      EXPECT_TRUE(v->allFinite()) << ctx;
    EXPECT_TRUE(std::isfinite(near.gap) && std::isfinite(near.lambda1) && std::isfinite(near.lambda2)) << ctx;
    if (near.ok()) check_converged(near, A, X1, B, X2b, ctx + " (1e-9 apart)", {1e-9});
  }
}

TEST(Contact, CoincidentOriginsReturnsTheLimitAlongTheBodyOneXAxis) {
  // contact.hpp: for coincident origins "p1, p2, normal and gap are the finite limits as r → 0
  // along r (body-1 x axis if r = 0)". Along r = δ e_x the problem is self-similar: p1, p2 − r,
  // the normal and gap + ... converge as δ → 0, so a solve at δ = 1e-7 approximates the limit.
  std::mt19937 rng(212);
  const std::vector<NamedShape> shapes = test_shapes();
  for (size_t i = 0; i < shapes.size(); i += 2) {
    const size_t j = (i + 3) % shapes.size();
    const Shape &A = shapes[i].shape, &B = shapes[j].shape;
    const Pose X1 = random_pose(rng, 1.0);
    const Pose X2 = make_pose(random_rotation(rng), X1.p);
    const std::string ctx = shapes[i].name + " vs " + shapes[j].name;
    const ContactSolution c0 = solve_contact(A, X1, B, X2);
    ASSERT_EQ(c0.status, SolveStatus::coincident_origins) << ctx;
    const double delta = 1e-7;
    const Pose X2d = make_pose(X2.R, X1.p + delta * X1.R.col(0));
    const ContactSolution cd = solve_contact(A, X1, B, X2d);
    ASSERT_EQ(cd.status, SolveStatus::ok) << ctx;
    const double L = A.outer_radius() + B.outer_radius();
    EXPECT_LT((c0.p1_B1 - cd.p1_B1).norm(), 1e-6 * L) << ctx << ": p1";
    EXPECT_LT((c0.p2_B1 - cd.p2_B1).norm(), 1e-6 * L) << ctx << ": p2 (limit " << cd.p2_B1.transpose()
                                                      << ", got " << c0.p2_B1.transpose() << ")";
    EXPECT_LT((c0.normal_B1 - cd.normal_B1).norm(), 1e-6) << ctx << ": normal";
    EXPECT_NEAR(c0.gap, cd.gap, 1e-6 * L) << ctx << ": gap";
  }
}

TEST(Contact, InvalidInputIsReportedWithoutExceptionsOrNaN) {
  const Shape A = diffcol::idcol::benchmark_shape("se"), B = diffcol::idcol::benchmark_shape("poly");
  const Pose good1 = make_pose(Mat3::Identity(), Vec3(0.1, 0.2, 0.3));
  const Pose good2 = make_pose(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()).toRotationMatrix(), Vec3(2, 0.5, 0));
  std::vector<std::pair<Pose, Pose>> bad;
  for (double v : {kNaN, kInf, -kInf}) {
    Pose a = good1;
    a.p.y() = v;
    bad.emplace_back(a, good2);
    Pose b = good2;
    b.R(1, 2) = v;
    bad.emplace_back(good1, b);
    Pose c = good2;
    c.p.x() = v;
    bad.emplace_back(good1, c);
    Pose d = good1;
    d.R(0, 0) = v;
    bad.emplace_back(d, good2);
  }
  auto all_finite = [](const ContactSolution& s) {
    return std::isfinite(s.alpha) && std::isfinite(s.gap) && std::isfinite(s.lambda1) && std::isfinite(s.lambda2) &&
           std::isfinite(s.residual_norm) && s.x_B1.allFinite() && s.p1_B1.allFinite() && s.p2_B1.allFinite() &&
           s.normal_B1.allFinite() && s.x_W.allFinite() && s.p1_W.allFinite() && s.p2_W.allFinite() &&
           s.normal_W.allFinite() && s.kkt_jacobian.allFinite();
  };
  ContactPair pair(A, B);
  for (size_t k = 0; k < bad.size(); ++k) {
    ContactSolution sol;
    EXPECT_NO_THROW(sol = solve_contact(A, bad[k].first, B, bad[k].second)) << k;
    EXPECT_EQ(sol.status, SolveStatus::invalid_input) << k;
    EXPECT_FALSE(sol.ok()) << k;
    EXPECT_TRUE(all_finite(sol)) << k;
    EXPECT_EQ(sol.alpha, 0.0) << k;  // "numeric fields are zero"
    EXPECT_EQ(sol.x_B1, Vec3::Zero()) << k;
    // through a ContactPair, after a successful solve: the warm start must not be poisoned
    EXPECT_TRUE(pair.solve(good1, good2).ok());
    ContactSolution ps;
    EXPECT_NO_THROW(ps = pair.solve(bad[k].first, bad[k].second)) << k;
    EXPECT_EQ(ps.status, SolveStatus::invalid_input) << k;
    EXPECT_TRUE(all_finite(ps)) << k;
    const ContactSolution after = pair.solve(good1, good2);
    EXPECT_EQ(after.status, SolveStatus::ok) << k;
    EXPECT_FALSE(after.warm_started) << k << ": warm start from an invalid solve";
  }
  EXPECT_STREQ(diffcol::status_name(SolveStatus::invalid_input), "invalid_input");
  EXPECT_STREQ(diffcol::status_name(SolveStatus::ok), "ok");
  EXPECT_STREQ(diffcol::status_name(SolveStatus::coincident_origins), "coincident_origins");
  EXPECT_STREQ(diffcol::status_name(SolveStatus::not_converged), "not_converged");
}

TEST(ContactPair, WarmStartAlongASlowTrajectoryMatchesColdSolves) {
  std::mt19937 rng(213);
  const std::vector<NamedShape> shapes = test_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const size_t j = (i * 5 + 1) % shapes.size();
    const Shape &A = shapes[i].shape, &B = shapes[j].shape;
    ContactPair pair(A, B);
    const double L = A.outer_radius() + B.outer_radius();
    const Vec3 c0 = 0.9 * L * random_unit(rng), c1 = 0.2 * L * random_unit(rng);
    const Vec3 w1 = random_unit(rng), w2 = random_unit(rng);
    const Mat3 R1 = random_rotation(rng), R2 = random_rotation(rng);
    const int steps = 150;
    int warm = 0, failures = 0;
    for (int t = 0; t < steps; ++t) {
      const double s = t / double(steps);
      const Pose X1 = make_pose(diffcol::so3_exp(0.8 * s * w1) * R1, 0.1 * s * c1);
      const Pose X2 = make_pose(diffcol::so3_exp(1.2 * s * w2) * R2, c0 * std::cos(1.5 * s) + c1 * std::sin(2.0 * s));
      const ContactSolution& ws = pair.solve(X1, X2);
      const ContactSolution cs = solve_contact(A, X1, B, X2);
      const std::string ctx = shapes[i].name + " vs " + shapes[j].name + ", step " + std::to_string(t);
      if (!ws.ok() || !cs.ok()) {
        ++failures;
        ADD_FAILURE() << ctx << ": warm " << diffcol::status_name(ws.status) << ", cold "
                      << diffcol::status_name(cs.status);
        continue;
      }
      EXPECT_NEAR(ws.alpha, cs.alpha, 1e-9 * cs.alpha) << ctx;
      EXPECT_LT((ws.x_W - cs.x_W).norm(), 1e-7 * L * std::max(1.0, cs.alpha)) << ctx;
      EXPECT_EQ(&pair.last(), &ws);
      if (t == 0) {
        EXPECT_FALSE(ws.warm_started) << ctx;
      }
      warm += ws.warm_started;
      EXPECT_FALSE(cs.warm_started);
      if (t % 10 == 0) check_converged(ws, A, X1, B, X2, ctx);
    }
    EXPECT_EQ(failures, 0);
    // two ellipsoids (spheres, superellipsoids of exponent 1) always start cold (ContactPair::solve)
    const auto ellipsoidal = [](const Shape& s) {
      return std::holds_alternative<Sphere>(s.variant()) ||
             (std::holds_alternative<Superellipsoid>(s.variant()) && std::get<Superellipsoid>(s.variant()).exponent() == 1);
    };
    if (ellipsoidal(A) && ellipsoidal(B))
      EXPECT_EQ(warm, 0) << shapes[i].name << " vs " << shapes[j].name;
    else
      EXPECT_GE(warm, (steps - 1) * 9 / 10) << shapes[i].name << " vs " << shapes[j].name;
  }
}

TEST(ContactPair, FirstOrderWarmStartSavesEvaluationsAndAgrees) {
  // SolveOptions::warm_predictor moves the previous solution along T_c·ξ: along the ergodic
  // sweep (small steps) it must reach the same solutions as the plain warm start with fewer
  // Jacobian evaluations; it falls back to the plain one where T_c is ill-conditioned.
  const char* names[] = {"ellipsoid", "poly", "tc", "se", "sec"};
  for (const char* n1 : names)
    for (const char* n2 : {"poly", "se"}) {
      const Shape A = diffcol::idcol::benchmark_shape(n1), B = diffcol::idcol::benchmark_shape(n2);
      const auto sweep = diffcol::idcol::ErgodicSweep::for_pair(A, B);
      diffcol::idcol::SolveOptions plain_opt;
      plain_opt.warm_predictor = false;
      ContactPair plain(A, B, plain_opt), predicted(A, B);
      long evals_plain = 0, evals_predicted = 0, warm = 0, warm_plain = 0;
      const int n = 1500;
      for (int i = 0; i < n; ++i) {
        const Pose X2 = sweep.pose(i);
        const ContactSolution& p = plain.solve(Pose::identity(), X2);
        const ContactSolution& q = predicted.solve(Pose::identity(), X2);
        ASSERT_TRUE(p.ok() && q.ok()) << n1 << "-" << n2 << " pose " << i;
        EXPECT_NEAR(q.alpha, p.alpha, 1e-9 * p.alpha) << n1 << "-" << n2 << " pose " << i;
        evals_plain += p.jacobian_evaluations;
        evals_predicted += q.jacobian_evaluations;
        warm += q.warm_started;
        warm_plain += p.warm_started;
      }
      EXPECT_GE(warm, warm_plain) << n1 << "-" << n2;
      EXPECT_LT(evals_predicted, evals_plain - n / 2) << n1 << "-" << n2 << ": the predictor should save evaluations";
    }
}

// z* in the predictor's coordinates (x, log α, λ1, λ2).
Vec6 predictor_coordinates(const ContactSolution& s) {
  Vec6 z;
  z << s.x_B1, std::log(s.alpha), s.lambda1, s.lambda2;
  return z;
}

TEST(ContactPair, WarmPredictionErrorIsTheSecondOrderTermOfTheMotion) {
  // Along a steady motion (body 2 turning at a constant rate about a fixed axis while its origin
  // moves on a straight line) with steps h, what a warm solve stores as its first-order
  // prediction's miss (warm_prediction_error, predicted from step i−1) is ½ z̈(t_{i−1}) h² to
  // leading order: checked against ½ (z_i − 2 z_{i−1} + z_{i−2}) from independent cold solves.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  int checked = 0;
  for (const char* n1 : {"ellipsoid", "poly", "se"})
    for (const char* n2 : {"ellipsoid", "tc", "sec"}) {
      const Shape A = diffcol::idcol::benchmark_shape(n1), B = diffcol::idcol::benchmark_shape(n2);
      for (int trial = 0; trial < 4; ++trial) {
        const Vec3 w(U(rng), U(rng), U(rng)), u(U(rng), U(rng), U(rng));
        const Mat3 R0 = diffcol::so3_exp(Vec3(U(rng), U(rng), U(rng)));
        const Vec3 p0 = (2.5 + U(rng)) * Vec3(U(rng), U(rng), U(rng)).normalized();
        const double h = 2e-3;
        const auto at = [&](int i) { return make_pose(R0 * diffcol::so3_exp((i * h) * w), p0 + (i * h) * u); };
        const auto cold = [&](int i) {
          return predictor_coordinates(diffcol::idcol::solve_contact(A, Pose::identity(), B, at(i)));
        };
        ContactPair pair(A, B);
        for (int i = 0; i < 8; ++i) {
          const ContactSolution& s = pair.solve(Pose::identity(), at(i));
          ASSERT_TRUE(s.ok()) << n1 << "-" << n2;
          if (i < 2 || s.warm_pose_step.isZero()) continue;
          const Vec6 reference = 0.5 * (cold(i) - 2.0 * cold(i - 1) + cold(i - 2));
          EXPECT_LE((s.warm_prediction_error - reference).norm(), 0.05 * reference.norm() + 1e-11)
              << n1 << "-" << n2 << " step " << i << ": stored " << s.warm_prediction_error.transpose()
              << " reference " << reference.transpose();
          ++checked;
        }
      }
    }
  EXPECT_GT(checked, 150);
}

TEST(ContactPair, SecondOrderWarmTermSavesIterationsAndAgrees) {
  // The same warm chain with and without the second-order term (solve_from a copy of the previous
  // solution whose warm_pose_step is zeroed gets only the first-order one): the same solutions,
  // fewer Newton iterations along the ergodic sweep.
  // (not ellipsoid–ellipsoid: two ellipsoids always start cold)
  for (const char* n1 : {"ellipsoid", "poly", "se"})
    for (const char* n2 : {"ellipsoid", "poly"}) {
      if (std::string(n1) == "ellipsoid" && std::string(n2) == "ellipsoid") continue;
      const Shape A = diffcol::idcol::benchmark_shape(n1), B = diffcol::idcol::benchmark_shape(n2);
      const auto sweep = diffcol::idcol::ErgodicSweep::for_pair(A, B);
      ContactPair second(A, B), first(A, B);
      ContactSolution prev_first;
      long it_second = 0, it_first = 0;
      const int n = 1500;
      for (int i = 0; i < n; ++i) {
        const Pose X2 = sweep.pose(i);
        const ContactSolution& p = second.solve(Pose::identity(), X2);
        ContactSolution guess = prev_first;
        guess.warm_pose_step.setZero();
        const ContactSolution& q = i == 0 ? first.solve_cold(Pose::identity(), X2)
                                          : first.solve_from(Pose::identity(), X2, guess);
        prev_first = q;
        ASSERT_TRUE(p.ok() && q.ok()) << n1 << "-" << n2 << " pose " << i;
        EXPECT_NEAR(p.alpha, q.alpha, 1e-9 * q.alpha) << n1 << "-" << n2 << " pose " << i;
        if (i > 0) {
          it_second += p.iterations;
          it_first += q.iterations;
        }
      }
      EXPECT_LT(it_second, it_first - n / 4) << n1 << "-" << n2 << ": " << it_second << " vs " << it_first;
    }
}

/// Cold solves of the pair n1–n2 on 2000 poses of its ergodic sweep (every 5th), each checked
/// against a warm solve of the same pose (α to 1e-9); the mean Jacobian evaluations and the
/// fraction converged at the first attempt.
struct SweepStarts {
  double evaluations = 0.0, first_attempt = 0.0;
};
SweepStarts cold_sweep_starts(const char* n1, const char* n2) {
  const Shape A = diffcol::idcol::benchmark_shape(n1), B = diffcol::idcol::benchmark_shape(n2);
  const auto sweep = diffcol::idcol::ErgodicSweep::for_pair(A, B);
  ContactPair cold(A, B), warm(A, B);
  const int n = 2000;
  long evaluations = 0, first_attempt = 0;
  for (int i = 0; i < n; ++i) {
    const Pose X2 = sweep.pose(5 * i);
    const ContactSolution& c = cold.solve_cold(Pose::identity(), X2);
    const ContactSolution& w = warm.solve(Pose::identity(), X2);
    EXPECT_TRUE(c.ok() && w.ok()) << n1 << "-" << n2 << " pose " << i;
    EXPECT_NEAR(c.alpha, w.alpha, 1e-9 * w.alpha) << n1 << "-" << n2 << " pose " << i;
    evaluations += c.jacobian_evaluations;
    first_attempt += c.attempts == 1;
  }
  std::printf("%s-%s: %.2f Jacobian evaluations per cold solve\n", n1, n2, double(evaluations) / n);
  return {double(evaluations) / n, double(first_attempt) / n};
}

TEST(ContactPair, FlatProxyPairsStartFromTheRayCast) {
  // Two shapes with flat proxies (smooth polytope, truncated cone: their exact shapes; se and sec
  // of exponent ≥ 4: their bounding box and circular cylinder) start from the ray cast of the
  // proxies (docs/idcol.md, "Starts"): on the ergodic sweep that start converges at the first
  // attempt and about halves the Jacobian evaluations of the centre-line start (poly–poly 10.8 →
  // 5.6, se–se 12.5 → 6.4 per cold solve). The bound 7 fails if the centre-line start comes first
  // again (9.3–12.5 for these pairs); the α agree with warm solves.
  for (const char* n1 : {"poly", "tc", "se", "sec"})
    for (const char* n2 : {"poly", "tc", "se", "sec"}) {
      const SweepStarts r = cold_sweep_starts(n1, n2);
      EXPECT_LT(r.evaluations, 7.0) << n1 << "-" << n2;
      EXPECT_GT(r.first_attempt, 0.99) << n1 << "-" << n2;
    }
}

// One cold solve of A, B at X2 checked against a solve of the same pose started from a far-off
// guess (α × 1.7, x × 0.6): both converge to the same α. Returns the cold solve's Jacobian
// evaluations (-1 if a solve failed).
int cold_solve_matches_far_guess(const Shape& A, const Shape& B, const Pose& X2, int t) {
  ContactPair cold(A, B), other(A, B);
  const ContactSolution& c = cold.solve_cold(Pose::identity(), X2);
  EXPECT_TRUE(c.ok()) << "case " << t;
  ContactSolution guess = c;
  guess.alpha *= 1.7;
  guess.x_B1 *= 0.6;
  const ContactSolution& o = other.solve_from(Pose::identity(), X2, guess);
  EXPECT_TRUE(o.ok()) << "case " << t;
  EXPECT_NEAR(c.alpha, o.alpha, 1e-9 * o.alpha) << "case " << t;
  return (c.ok() && o.ok()) ? c.jacobian_evaluations : -1;
}

TEST(ContactPair, EllipsoidPairsStartAtTheTouchingPoint) {
  // Two ellipsoids (or an ellipsoid and a sphere) start from the maximum of the Perram–Wertheim
  // function (solve_contact.cpp, ellipsoid_touch): on the ergodic sweep that start already meets
  // the tolerance (1 Jacobian evaluation; 5.2–6.0 from the centre line), and on random ellipsoids
  // of aspect up to 100 it leaves at most a step or two. The α agree with warm solves (which start
  // elsewhere) and the residual is checked by the solver. The bounds fail with the centre-line start.
  for (const auto& [n1, n2] : {std::pair{"ellipsoid", "ellipsoid"}, {"sphere", "ellipsoid"}, {"ellipsoid", "sphere"}})
    EXPECT_LT(cold_sweep_starts(n1, n2).evaluations, 1.5) << n1 << "-" << n2;
  std::mt19937 rng(2323);
  std::uniform_real_distribution<double> logU(std::log(0.05), std::log(5.0));
  long evaluations = 0, solves = 0;
  for (int t = 0; t < 300; ++t) {
    const Shape A = Superellipsoid::ellipsoid(std::exp(logU(rng)), std::exp(logU(rng)), std::exp(logU(rng)));
    // outer radius from the concrete shape (through the variant, GCC 12 at -O1 warns falsely)
    double outer_B = 0.0;
    const Shape B = [&]() -> Shape {
      if (t % 3 == 0) {
        const Sphere s(std::exp(logU(rng)));
        outer_B = s.outer_radius();
        return s;
      }
      const double a = std::exp(logU(rng)), b = std::exp(logU(rng)), c = std::exp(logU(rng));
      const Superellipsoid e = Superellipsoid::ellipsoid(a, b, c);
      outer_B = e.outer_radius();
      return e;
    }();
    const double reach = 2.0 * (A.outer_radius() + outer_B);
    for (const double scale : {1e-3, 0.3, 1.0}) {  // nearly coincident, penetrating, either
      const Pose X2 = make_pose(random_rotation(rng), scale * reach * std::uniform_real_distribution<double>(0.05, 1.0)(rng) * random_unit(rng));
      // a reference from elsewhere: a warm solve started from a far-off guess
      const int e = cold_solve_matches_far_guess(A, B, X2, t);
      ASSERT_GE(e, 0);
      evaluations += e;
      ++solves;
    }
  }
  std::printf("random ellipsoid pairs: %.2f Jacobian evaluations per cold solve\n", double(evaluations) / solves);
  EXPECT_LT(double(evaluations) / solves, 2.0);
}

TEST(ContactPair, SpherePairsStartFromTheClosestProxyPoint) {
  // A sphere against a shape whose flat proxy has a closed-form closest point (se, sec: box and
  // cylinder; tc: its frustum) starts where the scaled sphere touches the scaled proxy
  // (solve_contact.cpp, sphere_proxy_touch): on the ergodic sweep 2.6–4.4 Jacobian evaluations per
  // cold solve, 5.0–7.2 from the centre line (the bound fails with it); the α agree with warm solves.
  for (const auto& [n1, n2] : {std::pair{"sphere", "se"}, {"se", "sphere"}, {"sphere", "sec"}, {"sec", "sphere"},
                               {"sphere", "tc"}, {"tc", "sphere"}})
    EXPECT_LT(cold_sweep_starts(n1, n2).evaluations, 4.7) << n1 << "-" << n2;
}

TEST(ContactPair, EllipsoidPolytopePairsStartFromTheExactTouchingPoint) {
  // A sphere or ellipsoid against a smooth polytope, or against a superellipsoid of exponent ≥ 4
  // (its bounding box), starts where the exact shapes touch (solver_core.hpp,
  // ellipsoid_polytope_touch; the start itself is checked in test_idcol_touching_start.cpp): on
  // the ergodic sweep 4.2–4.8 Jacobian evaluations per cold solve, 7.5–8.5 from the centre line
  // (the bound fails with it). The α agree with warm solves; on random ellipsoids against random
  // hulls they agree with solves started from a far-off guess.
  for (const auto& [n1, n2] : {std::pair{"sphere", "poly"}, {"poly", "sphere"}, {"ellipsoid", "poly"},
                               {"poly", "ellipsoid"}, {"ellipsoid", "se"}, {"se", "ellipsoid"}})
    EXPECT_LT(cold_sweep_starts(n1, n2).evaluations, 5.5) << n1 << "-" << n2;
  std::mt19937 rng(991);
  std::uniform_real_distribution<double> U(-1.0, 1.0), logU(std::log(0.1), std::log(3.0));
  long evaluations = 0, solves = 0;
  for (int t = 0; t < 120; ++t) {
    const Shape E = Superellipsoid::ellipsoid(std::exp(logU(rng)), std::exp(logU(rng)), std::exp(logU(rng)));
    const double size = std::exp(logU(rng));
    std::vector<Vec3> pts;
    for (int i = 0; i < 16; ++i) pts.push_back(size * Vec3(U(rng), U(rng), U(rng)));
    for (const Vec3& d : {Vec3(1, 0, 0), Vec3(-1, 0, 0), Vec3(0, 1, 0), Vec3(0, -1, 0), Vec3(0, 0, 1), Vec3(0, 0, -1)})
      pts.push_back(0.5 * size * d);  // the origin well inside
    const Shape K = SmoothPolytope::convex_hull(pts, (t % 2) ? 20.0 : 60.0, size);
    const double reach = 2.0 * (E.outer_radius() + K.outer_radius());
    for (const double scale : {1e-3, 0.3, 1.0}) {
      const Pose X2 = make_pose(random_rotation(rng), scale * reach * std::uniform_real_distribution<double>(0.05, 1.0)(rng) * random_unit(rng));
      for (const bool swap : {false, true}) {
        const Shape& A = swap ? K : E;
        const Shape& B = swap ? E : K;
        const int e = cold_solve_matches_far_guess(A, B, X2, t);
        ASSERT_GE(e, 0);
        evaluations += e;
        ++solves;
      }
    }
  }
  std::printf("random ellipsoid-hull pairs: %.2f Jacobian evaluations per cold solve\n", double(evaluations) / solves);
  EXPECT_LT(double(evaluations) / solves, 7.0);  // 5.3; 10.5 from the centre line
}

TEST(ContactPair, InvalidOptionsAreRejected) {
  // validate() names the field and ContactPair's constructor throws; a stateless solve, or a
  // pair whose options() were changed afterwards, returns status invalid_input.
  using diffcol::idcol::SolveOptions;
  EXPECT_NO_THROW(SolveOptions{}.validate());
  const Shape A = diffcol::idcol::benchmark_shape("ellipsoid"), B = diffcol::idcol::benchmark_shape("poly");
  const Pose X2 = make_pose(Mat3::Identity(), Vec3(2.5, 0.3, 0.1));
  std::vector<std::pair<SolveOptions, const char*>> bad;
  auto add = [&](const char* field, auto&& set) {
    SolveOptions o;
    set(o);
    bad.emplace_back(o, field);
  };
  add("tolerance", [](SolveOptions& o) { o.tolerance = std::numeric_limits<double>::quiet_NaN(); });
  add("max_iterations", [](SolveOptions& o) { o.max_iterations = 0; });
  add("max_attempts", [](SolveOptions& o) { o.max_attempts = 0; });
  add("surrogate_factor", [](SolveOptions& o) { o.surrogate_factor = 0.5; });
  add("surrogate_factor", [](SolveOptions& o) { o.surrogate_factor = 1e200; });  // gave NaN
  add("coincident_tolerance", [](SolveOptions& o) { o.coincident_tolerance = -1.0; });
  add("polish_threshold", [](SolveOptions& o) { o.polish_threshold = -1.0; });
  // tolerances outside [1e-14, 1e-3] (1e300 was accepted and reported converged, α 3e-3 off)
  add("tolerance", [](SolveOptions& o) { o.tolerance = 1e300; });
  add("tolerance", [](SolveOptions& o) { o.tolerance = 2e-3; });
  add("tolerance", [](SolveOptions& o) { o.tolerance = 1e-300; });
  add("coincident_tolerance", [](SolveOptions& o) { o.coincident_tolerance = 1e-2; });
  for (const auto& [o, field] : bad) {
    expect_invalid_field(o, field);
    EXPECT_THROW(ContactPair(A, B, o), std::invalid_argument) << field;
    const ContactSolution s = solve_contact(A, Pose::identity(), B, X2, o);
    EXPECT_EQ(s.status, SolveStatus::invalid_input) << field;
    EXPECT_TRUE(std::isfinite(s.alpha) && s.x_W.allFinite()) << field;
    ContactPair pair(A, B);
    pair.options() = o;
    EXPECT_EQ(pair.solve(Pose::identity(), X2).status, SolveStatus::invalid_input) << field;
  }
  SolveOptions never;
  never.polish_threshold = std::numeric_limits<double>::infinity();  // documented: never polish
  EXPECT_NO_THROW(never.validate());
  SolveOptions edges;  // the ends of the ranges are accepted
  edges.tolerance = 1e-14;
  edges.coincident_tolerance = 1e-3;
  EXPECT_NO_THROW(edges.validate());
  edges.tolerance = 1e-3;
  edges.coincident_tolerance = 0.0;
  EXPECT_NO_THROW(edges.validate());
}

TEST(ContactPair, ColdSolveFromAndResetBehaveAsDocumented) {
  const Shape A = diffcol::idcol::benchmark_shape("tc"), B = diffcol::idcol::benchmark_shape("sec");
  const Pose X1 = Pose::identity();
  const Pose X2 = Pose::from_quaternion(Vec3(2.0, 1.0, -0.5), 0.9, 0.1, -0.3, 0.2);
  const Pose X2b = Pose::from_quaternion(Vec3(2.01, 1.0, -0.49), 0.9, 0.11, -0.3, 0.2);
  ContactPair pair(A, B);
  EXPECT_EQ(pair.shape1().type(), A.type());
  EXPECT_EQ(pair.shape2().type(), B.type());
  const ContactSolution first = pair.solve(X1, X2);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first.warm_started);
  EXPECT_TRUE(pair.solve(X1, X2b).warm_started);
  EXPECT_FALSE(pair.solve_cold(X1, X2b).warm_started);
  EXPECT_TRUE(pair.solve(X1, X2).warm_started) << "solve_cold's result becomes the next warm start";
  pair.reset_warm_start();
  EXPECT_FALSE(pair.solve(X1, X2b).warm_started);
  const ContactSolution fromFirst = pair.solve_from(X1, X2b, first);
  EXPECT_TRUE(fromFirst.warm_started);
  EXPECT_NEAR(fromFirst.alpha, solve_contact(A, X1, B, X2b).alpha, 1e-9 * fromFirst.alpha);
  // solve_from with the pair's own last() (aliasing)
  const ContactSolution again = pair.solve_from(X1, X2, pair.last());
  EXPECT_TRUE(again.ok());
  EXPECT_NEAR(again.alpha, first.alpha, 1e-9 * first.alpha);
  // warm starting disabled through the options
  pair.options().warm_start = false;
  EXPECT_FALSE(pair.solve(X1, X2b).warm_started);
  EXPECT_FALSE(pair.options().warm_start);
}

}  // namespace
