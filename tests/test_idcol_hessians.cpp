// Tests of the second-order pose derivatives and the shape-parameter derivatives of the iDCOL
// contact (include/diffcol/idcol/hessians.hpp):
//  - every Hessian against central finite differences (Ridders) of the ANALYTIC first derivatives
//    (contact_derivatives) on SE(3), symmetrized (the antisymmetric part is the bracket term,
//    checked too); world, local and X12 twists;
//  - every shape-parameter derivative against finite differences of the solve over the parameter;
//  - the shapes' third derivatives against finite differences of their analytic Hessians.
// Over every ordered pair of the benchmark shapes and further exponents / profiles, separated,
// touching and penetrating, DIFFCOL_HESS_POSES configurations per pair and category (default 2).
// Tolerance: |A − N| ≤ 1e-6 · (largest entry of the block) + 1e-8.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/idcol/hessians.hpp"
#include "diffcol/math/gradient_check.hpp"

#include "../src/idcol/shape_higher_derivatives.hpp"
#include "malloc_counter.hpp"
#include "test_util.hpp"

namespace {

using namespace diffcol;
using namespace diffcol::idcol;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;

constexpr double kRel = 1e-6;
constexpr double kAbs = 1e-8;

SolveOptions tight_options() {
  SolveOptions o;
  o.tolerance = 1e-14;
  o.polish_threshold = 0.0;
  return o;
}

// The benchmark shapes and a few more exponents and profiles (n = 2, 3 superellipsoids, an n = 2
// cylinder, a cone narrowing along +x).
struct Named {
  std::string name;
  Shape shape;
};
std::vector<Named> extra_shapes() {
  return {{"se2", Superellipsoid(0.7, 1.0, 1.2, 2)},
          {"se3", Superellipsoid(1.1, 0.6, 0.9, 3)},
          {"sec2", SuperellipticCylinder(0.8, 1.1, 2)},
          {"cone", SmoothTruncatedCone(1.2, 0.4, 1.0, 1.3, 10.0)}};
}
std::vector<std::pair<Named, Named>> shape_pairs() {
  std::vector<std::pair<Named, Named>> out;
  for (const auto& a : benchmark_shape_names())
    for (const auto& b : benchmark_shape_names())
      out.push_back({{a, benchmark_shape(a)}, {b, benchmark_shape(b)}});
  for (const auto& e : extra_shapes())
    for (const char* o : {"sphere", "poly"}) {
      out.push_back({e, {o, benchmark_shape(o)}});
      out.push_back({{o, benchmark_shape(o)}, e});
    }
  return out;
}

enum class Category { separated, touching, penetrating };
const char* category_name(Category c) {
  return c == Category::separated ? "separated" : c == Category::touching ? "touching" : "penetrating";
}

// Poses with α* at the target (homogeneity α*(R, c·r) = c·α*(R, r)); false if a solve fails.
bool make_config(ContactPair& pair, Category cat, std::mt19937& rng, Pose& X1, Pose& X2) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::normal_distribution<double> N(0.0, 1.0);
  X1 = make_pose(random_rotation(rng), Vec3(N(rng), N(rng), N(rng)));
  Pose g = make_pose(random_rotation(rng), random_unit(rng));
  double target = cat == Category::separated ? 1.1 + 1.5 * U(rng)
                  : cat == Category::touching ? 1.0 + (U(rng) - 0.5) * 1e-7
                                              : 0.4 + 0.5 * U(rng);
  for (int it = 0; it < 4; ++it) {
    const ContactSolution& s = pair.solve_cold(X1, X1 * g);
    if (s.status != SolveStatus::ok) return false;
    g.p *= target / s.alpha;
  }
  X2 = X1 * g;
  return pair.solve_cold(X1, X2).status == SolveStatus::ok;
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

// The analytic gradients as one vector: α, λ1, λ2, d_D (12 each), then x, p1, p2, n̂ in body 1
// (3 × 12 each), each row [X1 | X2].
Eigen::VectorXd gradients_world(const ContactDerivatives& d) {
  Eigen::VectorXd v(192);
  int k = 0;
  const auto put = [&](const auto& J1, const auto& J2) {
    for (int i = 0; i < J1.rows(); ++i) {
      for (int c = 0; c < 6; ++c) v[k++] = J1(i, c);
      for (int c = 0; c < 6; ++c) v[k++] = J2(i, c);
    }
  };
  put(d.J_alpha_X1, d.J_alpha_X2);
  put(d.J_lambda1_X1, d.J_lambda1_X2);
  put(d.J_lambda2_X1, d.J_lambda2_X2);
  put(d.J_gap_X1, d.J_gap_X2);
  put(d.J_x_B1_X1, d.J_x_B1_X2);
  put(d.J_p1_B1_X1, d.J_p1_B1_X2);
  put(d.J_p2_B1_X1, d.J_p2_B1_X2);
  put(d.J_normal_B1_X1, d.J_normal_B1_X2);
  return v;
}
std::vector<const Mat12*> hessians_two_pose(const ContactHessians& h) {
  std::vector<const Mat12*> out = {&h.H_alpha, &h.H_lambda1, &h.H_lambda2, &h.H_gap};
  for (const auto* a : {&h.H_x_B1, &h.H_p1_B1, &h.H_p2_B1, &h.H_normal_B1})
    for (int i = 0; i < 3; ++i) out.push_back(&(*a)[i]);
  return out;
}
Eigen::VectorXd gradients_relative(const ContactDerivatives& d) {
  Eigen::VectorXd v(96);
  int k = 0;
  const auto put = [&](const auto& J) {
    for (int i = 0; i < J.rows(); ++i)
      for (int c = 0; c < 6; ++c) v[k++] = J(i, c);
  };
  put(d.J_alpha_X12);
  put(d.J_lambda1_X12);
  put(d.J_lambda2_X12);
  put(d.J_gap_X12);
  put(d.J_x_B1_X12);
  put(d.J_p1_B1_X12);
  put(d.J_p2_B1_X12);
  put(d.J_normal_B1_X12);
  return v;
}
std::vector<const Mat6*> hessians_relative(const ContactHessians& h) {
  std::vector<const Mat6*> out = {&h.H_alpha_X12, &h.H_lambda1_X12, &h.H_lambda2_X12, &h.H_gap_X12};
  for (const auto* a : {&h.H_x_B1_X12, &h.H_p1_B1_X12, &h.H_p2_B1_X12, &h.H_normal_B1_X12})
    for (int i = 0; i < 3; ++i) out.push_back(&(*a)[i]);
  return out;
}
const char* kOutputNames[16] = {"alpha", "lambda1", "lambda2", "gap", "x0", "x1", "x2", "p1_0", "p1_1", "p1_2",
                                "p2_0", "p2_1", "p2_2", "n0", "n1", "n2"};

GradientCheckOptions fd_options(ReferenceFrame frame) {
  GradientCheckOptions o;
  o.step = 1e-2;
  o.frame = frame;
  return o;
}

TEST(IdcolHessians, AgainstFiniteDifferencesOfTheFirstDerivatives) {
  const long per = diffcol::test::env_count("DIFFCOL_HESS_POSES", 2);
  std::mt19937 rng(20261207);
  Check two_world, two_local, rel, bracket, cross_sym;
  long configs = 0, skipped = 0;
  for (const auto& [s1, s2] : shape_pairs()) {
    ContactPair pair(s1.shape, s2.shape, tight_options());
    for (Category cat : {Category::separated, Category::touching, Category::penetrating})
      for (long k = 0; k < per; ++k) {
        Pose X1, X2;
        if (!make_config(pair, cat, rng, X1, X2)) {
          ++skipped;
          continue;
        }
        const std::string where = s1.name + "-" + s2.name + " " + category_name(cat);
        const ContactSolution sol = pair.solve_cold(X1, X2);
        const ContactDerivatives d = contact_derivatives(sol);
        if (!d.ok()) {
          ++skipped;
          continue;
        }
        ++configs;
        for (ReferenceFrame frame : {ReferenceFrame::world, ReferenceFrame::local}) {
          const ContactHessians h = contact_hessians(s1.shape, s2.shape, sol, frame);
          ASSERT_TRUE(h.ok()) << where;
          const auto f = [&](const Pose& A, const Pose& B) {
            return gradients_world(contact_derivatives(pair.solve_cold(A, B), frame));
          };
          const Eigen::MatrixXd N = numeric_jacobian(PosePairFunction(f), X1, X2, fd_options(frame));
          const auto H = hessians_two_pose(h);
          const ContactDerivatives dF = contact_derivatives(sol, frame);
          const Eigen::VectorXd grad = gradients_world(dF);
          for (int o = 0; o < 16; ++o) {
            const Eigen::MatrixXd M = N.middleRows(12 * o, 12);  // M(i, j) = ∂_j (∂_i f)
            const Eigen::MatrixXd Msym = 0.5 * (M + M.transpose());
            const std::string w = where + " " + kOutputNames[o] + " " + reference_frame_name(frame);
            (frame == ReferenceFrame::world ? two_world : two_local).add(*H[o], Msym, w);
            EXPECT_EQ((*H[o] - H[o]->transpose()).cwiseAbs().maxCoeff(), 0.0) << w;
            // between the two poses the orders agree
            cross_sym.add(M.topRightCorner(6, 6), M.bottomLeftCorner(6, 6).transpose(), w);
            if (frame == ReferenceFrame::world) {
              // within one pose: ½(M − Mᵀ) = ½ μᵀ ad_{e_i} e_j = ½·[[−μ̃ω, −μ̃v], [−μ̃v, 0]]
              for (int b = 0; b < 2; ++b) {
                const Eigen::Matrix<double, 6, 1> mu = grad.segment<6>(12 * o + 6 * b);
                Mat6 Bm = Mat6::Zero();
                Bm.topLeftCorner<3, 3>() = -skew(mu.head<3>());
                Bm.topRightCorner<3, 3>() = -skew(mu.tail<3>());
                Bm.bottomLeftCorner<3, 3>() = -skew(mu.tail<3>());
                const Eigen::MatrixXd Mb = M.block(6 * b, 6 * b, 6, 6);
                bracket.add(0.5 * Bm, 0.5 * (Mb - Mb.transpose()), w + " bracket");
              }
            }
          }
        }
        {  // X12: right perturbation of the relative pose
          const ContactHessians h = contact_hessians(s1.shape, s2.shape, sol);
          const auto f = [&](const Pose& g) { return gradients_relative(contact_derivatives(pair.solve_cold(X1, X1 * g))); };
          const Eigen::MatrixXd N = numeric_jacobian(PoseFunction(f), sol.X_12, fd_options(ReferenceFrame::local));
          const auto H = hessians_relative(h);
          for (int o = 0; o < 16; ++o) {
            const Eigen::MatrixXd M = N.middleRows(6 * o, 6);
            rel.add(*H[o], 0.5 * (M + M.transpose()), where + " " + kOutputNames[o] + " X12");
          }
        }
      }
  }
  std::printf("hessians: %ld configurations (%ld skipped); worst error / tolerance: world %.3g, local %.3g, "
              "X12 %.3g, bracket %.3g, cross symmetry %.3g\n",
              configs, skipped, two_world.worst, two_local.worst, rel.worst, bracket.worst, cross_sym.worst);
  EXPECT_GT(configs, 100);
  EXPECT_LE(skipped, configs / 20);
  EXPECT_LE(two_world.worst, 1.0) << two_world.where;
  EXPECT_LE(two_local.worst, 1.0) << two_local.where;
  EXPECT_LE(rel.worst, 1.0) << rel.where;
  EXPECT_LE(bracket.worst, 1.0) << bracket.where;
  EXPECT_LE(cross_sym.worst, 1.0) << cross_sym.where;
}

TEST(IdcolHessians, FramesAndScalarOutputs) {
  std::mt19937 rng(7);
  ContactPair pair(benchmark_shape("tc"), benchmark_shape("se"), tight_options());
  Pose X1, X2;
  ASSERT_TRUE(make_config(pair, Category::separated, rng, X1, X2));
  const ContactSolution& sol = pair.last();
  const ContactHessians w = contact_hessians(pair);
  // every frame is the congruence diag(M1, M2)ᵀ H_W diag(M1, M2)
  for (ReferenceFrame f : {ReferenceFrame::local, ReferenceFrame::local_world_aligned}) {
    const ContactHessians h = contact_hessians(pair, f);
    Mat12 M = Mat12::Zero();
    M.topLeftCorner<6, 6>() = world_twist_from_frame(f, sol.X_W1);
    M.bottomRightCorner<6, 6>() = world_twist_from_frame(f, sol.X_W1 * sol.X_12);
    const Mat12 expect = M.transpose() * w.H_gap * M;
    EXPECT_LE((h.H_gap - expect).cwiseAbs().maxCoeff(), 1e-12 * expect.cwiseAbs().maxCoeff());
  }
  const ContactHessians s = contact_hessians(pair.shape1(), pair.shape2(), sol, ReferenceFrame::world,
                                             HessianOutputs::scalars);
  EXPECT_EQ(s.H_alpha, w.H_alpha);
  EXPECT_EQ(s.H_gap, w.H_gap);
  EXPECT_EQ(s.H_p1_B1[0], Mat12::Zero());
  // not converged / coincident: zero blocks and the first derivatives' status
  ContactSolution bad = sol;
  bad.status = SolveStatus::not_converged;
  const ContactHessians b = contact_hessians(pair.shape1(), pair.shape2(), bad);
  EXPECT_EQ(b.status, DerivativeStatus::solve_failed);
  EXPECT_EQ(b.H_alpha, Mat12::Zero());
  const ShapeDerivatives sb = shape_derivatives(pair.shape1(), pair.shape2(), bad);
  EXPECT_EQ(sb.status, DerivativeStatus::solve_failed);
  EXPECT_EQ(sb.d_alpha, ShapeDerivatives::Row::Zero());
}

TEST(IdcolHessians, NoAllocation) {
#if !defined(DIFFCOL_TEST_COUNTS_MALLOC)
  GTEST_SKIP() << "malloc counting unavailable in this build (neither glibc nor ASan)";
#endif
  std::mt19937 rng(3);
  ContactHessians h;  // large: on the heap of the test, before counting
  ShapeDerivatives sd;
  for (const auto& [s1, s2] : shape_pairs()) {
    ContactPair pair(s1.shape, s2.shape);
    const Pose X1 = make_pose(random_rotation(rng), Vec3(0.5, 0.1, -0.3));
    const ContactSolution& sol = pair.solve(X1, X1 * make_pose(random_rotation(rng), 3.0 * random_unit(rng)));
    ASSERT_TRUE(sol.ok());
    const long before = g_allocations.load();
    contact_hessians(pair.shape1(), pair.shape2(), sol, h, ReferenceFrame::local);
    shape_derivatives(pair.shape1(), pair.shape2(), sol, sd);
    EXPECT_EQ(g_allocations.load(), before) << s1.name << "-" << s2.name;
    EXPECT_TRUE(h.ok() && sd.ok()) << s1.name << "-" << s2.name;
  }
}

// ------------------------------------------------------------------ shape parameters

// The shape with parameter i set to v (the order of shape_parameter_name()).
Shape with_parameter(const Shape& s, int i, double v) {
  switch (s.type()) {
    case ShapeType::sphere: return Sphere(v);
    case ShapeType::superellipsoid: {
      const auto& e = s.as<Superellipsoid>();
      Vec3 ax = e.semi_axes();
      ax[i] = v;
      return Superellipsoid(ax.x(), ax.y(), ax.z(), e.exponent(), e.epsilon());
    }
    case ShapeType::superelliptic_cylinder: {
      const auto& c = s.as<SuperellipticCylinder>();
      return SuperellipticCylinder(i == 0 ? v : c.radius(), i == 1 ? v : c.half_height(), c.exponent(), c.epsilon());
    }
    case ShapeType::smooth_polytope: {
      const auto& p = s.as<SmoothPolytope>();
      Eigen::MatrixX3d A(p.num_faces(), 3);
      Eigen::VectorXd b(p.num_faces());
      for (int k = 0; k < p.num_faces(); ++k) {
        A.row(k) = p.normal(k).transpose();
        b[k] = p.offset(k);
      }
      return SmoothPolytope(A, b, i == 0 ? v : p.beta(), i == 1 ? v : p.length());
    }
    case ShapeType::smooth_truncated_cone: {
      const auto& c = s.as<SmoothTruncatedCone>();
      double t[5] = {c.beta(), c.bottom_radius(), c.top_radius(), c.bottom_extent(), c.top_extent()};
      t[i] = v;
      return SmoothTruncatedCone(t[1], t[2], t[3], t[4], t[0]);
    }
  }
  throw std::logic_error("shape type");
}
double parameter(const Shape& s, int i) {
  switch (s.type()) {
    case ShapeType::sphere: return s.as<Sphere>().radius();
    case ShapeType::superellipsoid: return s.as<Superellipsoid>().semi_axes()[i];
    case ShapeType::superelliptic_cylinder: {
      const auto& c = s.as<SuperellipticCylinder>();
      return i == 0 ? c.radius() : c.half_height();
    }
    case ShapeType::smooth_polytope: {
      const auto& p = s.as<SmoothPolytope>();
      return i == 0 ? p.beta() : p.length();
    }
    case ShapeType::smooth_truncated_cone: {
      const auto& c = s.as<SmoothTruncatedCone>();
      const double t[5] = {c.beta(), c.bottom_radius(), c.top_radius(), c.bottom_extent(), c.top_extent()};
      return t[i];
    }
  }
  return 0.0;
}

Eigen::VectorXd outputs(const ContactSolution& s) {
  Eigen::VectorXd v(28);
  v << s.alpha, s.lambda1, s.lambda2, s.gap, s.x_B1, s.p1_B1, s.p2_B1, s.normal_B1, s.x_W, s.p1_W, s.p2_W,
      s.normal_W;
  return v;
}
Eigen::MatrixXd analytic_outputs(const ShapeDerivatives& d, int n) {
  Eigen::MatrixXd J(28, n);
  J << d.d_alpha.leftCols(n), d.d_lambda1.leftCols(n), d.d_lambda2.leftCols(n), d.d_gap.leftCols(n),
      d.d_x_B1.leftCols(n), d.d_p1_B1.leftCols(n), d.d_p2_B1.leftCols(n), d.d_normal_B1.leftCols(n),
      d.d_x_W.leftCols(n), d.d_p1_W.leftCols(n), d.d_p2_W.leftCols(n), d.d_normal_W.leftCols(n);
  return J;
}

TEST(IdcolShapeDerivatives, AgainstFiniteDifferencesOfTheSolve) {
  const long per = diffcol::test::env_count("DIFFCOL_HESS_POSES", 2);
  std::mt19937 rng(99);
  Check worst;
  long configs = 0, skipped = 0;
  const char* names[12] = {"alpha", "lambda1", "lambda2", "gap", "x_B1", "p1_B1", "p2_B1", "normal_B1",
                           "x_W", "p1_W", "p2_W", "normal_W"};
  const int offsets[13] = {0, 1, 2, 3, 4, 7, 10, 13, 16, 19, 22, 25, 28};
  for (const auto& [s1, s2] : shape_pairs()) {
    ContactPair pair(s1.shape, s2.shape, tight_options());
    const int n1 = shape_parameter_count(s1.shape), n2 = shape_parameter_count(s2.shape);
    for (Category cat : {Category::separated, Category::touching, Category::penetrating})
      for (long k = 0; k < per; ++k) {
        Pose X1, X2;
        if (!make_config(pair, cat, rng, X1, X2)) {
          ++skipped;
          continue;
        }
        const ContactSolution sol = pair.solve_cold(X1, X2);
        const ShapeDerivatives d = shape_derivatives(s1.shape, s2.shape, sol);
        if (!d.ok()) {
          ++skipped;
          continue;
        }
        ++configs;
        ASSERT_EQ(d.count1, n1);
        ASSERT_EQ(d.count2, n2);
        Eigen::VectorXd theta(n1 + n2), steps(n1 + n2);
        for (int i = 0; i < n1; ++i) theta[i] = parameter(s1.shape, i);
        for (int i = 0; i < n2; ++i) theta[n1 + i] = parameter(s2.shape, i);
        for (int i = 0; i < n1 + n2; ++i) steps[i] = 1e-2 * theta[i];
        const auto f = [&](const Eigen::VectorXd& t) {
          Shape a = s1.shape, b = s2.shape;
          for (int i = 0; i < n1; ++i) a = with_parameter(a, i, t[i]);
          for (int i = 0; i < n2; ++i) b = with_parameter(b, i, t[n1 + i]);
          return outputs(solve_contact(a, X1, b, X2, tight_options()));
        };
        GradientCheckOptions o;
        o.column_steps = steps;
        const Eigen::MatrixXd N = numeric_jacobian(VectorFunction(f), theta, o);
        const Eigen::MatrixXd A = analytic_outputs(d, n1 + n2);
        const std::string where = s1.name + "-" + s2.name + " " + category_name(cat);
        for (int b = 0; b < 12; ++b) {
          const int r0 = offsets[b], nr = offsets[b + 1] - offsets[b];
          for (int c = 0; c < n1 + n2; ++c) {
            const std::string w = where + " d" + names[b] + "/d" +
                                  (c < n1 ? std::string("1.") + shape_parameter_name(s1.shape, c)
                                          : std::string("2.") + shape_parameter_name(s2.shape, c - n1));
            worst.add(A.block(r0, c, nr, 1), N.block(r0, c, nr, 1), w);
          }
        }
      }
  }
  std::printf("shape derivatives: %ld configurations (%ld skipped); worst error / tolerance %.3g\n", configs, skipped,
              worst.worst);
  EXPECT_GT(configs, 100);
  EXPECT_LE(skipped, configs / 20);
  EXPECT_LE(worst.worst, 1.0) << worst.where;
}

TEST(IdcolShapeDerivatives, ParameterNames) {
  EXPECT_EQ(shape_parameter_count(benchmark_shape("tc")), 5);
  EXPECT_STREQ(shape_parameter_name(benchmark_shape("tc"), 4), "top_extent");
  EXPECT_STREQ(shape_parameter_name(benchmark_shape("se"), 1), "b");
  EXPECT_STREQ(shape_parameter_name(benchmark_shape("poly"), 0), "beta");
  EXPECT_THROW(shape_parameter_name(benchmark_shape("sphere"), 1), std::out_of_range);
  EXPECT_THROW(shape_parameter_name(benchmark_shape("sphere"), -1), std::out_of_range);
}

// ------------------------------------------------------------------ third derivatives of the shapes

TEST(IdcolHessians, ShapeThirdDerivativesAgainstFiniteDifferences) {
  std::mt19937 rng(5);
  std::vector<Named> shapes = extra_shapes();
  for (const auto& n : benchmark_shape_names()) shapes.push_back({n, benchmark_shape(n)});
  shapes.push_back({"sec1", SuperellipticCylinder(0.8, 1.3, 1)});
  for (const auto& s : shapes)
    for (int k = 0; k < 20; ++k) {
      // points near the surface (y scaled so that φ(y) ≈ 0), and inside / outside
      Vec3 y = random_unit(rng);
      Vec3 g;
      Mat3 H;
      double lo = 0.0, hi = 10.0;
      for (int it = 0; it < 100; ++it) {
        const double m = 0.5 * (lo + hi);
        (s.shape.eval(m * y, g, H) > 0.0 ? hi : lo) = m;
      }
      y *= lo * (0.7 + 0.6 * std::uniform_real_distribution<double>(0.0, 1.0)(rng));
      idcol::detail::Third T;
      idcol::detail::third(s.shape, y, T);
      const double h = 1e-5 * s.shape.outer_radius();
      double scale = 0.0, err = 0.0;
      for (int kk = 0; kk < 3; ++kk) {
        Mat3 Hp, Hm;
        Vec3 e = Vec3::Zero();
        e[kk] = h;
        s.shape.eval(y + e, g, Hp);
        s.shape.eval(y - e, g, Hm);
        const Mat3 fd = (Hp - Hm) / (2.0 * h);
        scale = std::max(scale, fd.cwiseAbs().maxCoeff());
        err = std::max(err, (fd - T.T[kk]).cwiseAbs().maxCoeff());
        // the slices are symmetric in all three indices
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) EXPECT_NEAR(T.T[kk](i, j), T.T[i](kk, j), 1e-9 * (1.0 + std::abs(T.T[kk](i, j))));
      }
      EXPECT_LE(err, 1e-5 * scale + 1e-7) << s.name << " at " << y.transpose();
    }
}

}  // namespace
