// Tests of the second-order pose derivatives and the shape-parameter derivatives of the DCOL
// contact (include/diffcol/dcol/hessians.hpp):
//  - the Hessians of α, the gap, x*, p1, p2 and the separating normal against Ridders central
//    differences of the ANALYTIC first derivatives (contact_derivatives, normal_derivatives) on
//    SE(3), symmetrized (the antisymmetric part is the bracket term, checked too); world, local
//    and X12 twists. A configuration whose differences are not consistent themselves (the mixed
//    partials between the two poses differ: the step crossed a switch of the active set, near a
//    weakly active constraint) is skipped, at most 2% of them;
//  - every parameter derivative (α, gap, x*, p1, p2) against Ridders central differences of
//    re-solves with the parameter changed;
// over every ordered pair of the seven benchmark primitives (and mounted, rotated shapes),
// separated, touching (α* = 1 ± 5e-8) and penetrating, DIFFCOL_DCOL_HESS_POSES configurations per
// pair and category (default 2); DIFFCOL_DCOL_HESS_PAIR_STRIDE = k keeps every k-th pair (default 1; the sanitized
// run, whose purpose is memory and undefined behaviour, uses a few).
// Tolerance: |A − N| ≤ 1e-6 · (largest entry of the block) + 1e-8.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/dcol/hessians.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/math/gradient_check.hpp"

#include "malloc_counter.hpp"
#include "test_util.hpp"

namespace dcol_hessians_test {

using namespace diffcol;
using namespace diffcol::dcol;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;

constexpr double kRel = 1e-6;
constexpr double kAbs = 1e-8;

long poses_per_category() { return diffcol::test::env_count("DIFFCOL_DCOL_HESS_POSES", 2); }
long pair_stride() { return std::max(1L, diffcol::test::env_count("DIFFCOL_DCOL_HESS_PAIR_STRIDE", 1)); }

struct Named {
  std::string name;
  Primitive shape;
};
std::vector<std::pair<Named, Named>> all_shape_pairs() {
  std::vector<std::pair<Named, Named>> out;
  const char* const* names = benchmark_primitive_names();
  for (int i = 0; i < kNumPrimitiveTypes; ++i)
    for (int j = 0; j < kNumPrimitiveTypes; ++j)
      out.push_back({{names[i], benchmark_primitive(names[i])}, {names[j], benchmark_primitive(names[j])}});
  // mounted at offsets, a general ellipsoid matrix
  const Pose off1 = make_pose(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix(), Vec3(0.2, -0.1, 0.3));
  const Pose off2 = make_pose(Eigen::AngleAxisd(-1.1, Vec3(0, 1, 1).normalized()).toRotationMatrix(), Vec3(-0.3, 0.1, 0.0));
  Mat3 P;
  P << 2.0, 0.3, -0.2, 0.3, 1.2, 0.1, -0.2, 0.1, 0.8;
  out.push_back({{"capsule@", Capsule(0.4, 1.2, off1)}, {"polytope@", Polytope::box(0.5, 0.7, 0.4, off2)}});
  out.push_back({{"cone@", Cone(1.5, 0.5, off2)}, {"ellipsoidP@", Ellipsoid(P, off1)}});
  return out;
}
/// Every pair_stride()-th of them, the last (mounted) pair always.
std::vector<std::pair<Named, Named>> shape_pairs() {
  const std::vector<std::pair<Named, Named>> all = all_shape_pairs();
  std::vector<std::pair<Named, Named>> out;
  const size_t k = static_cast<size_t>(pair_stride());
  for (size_t i = 0; i < all.size(); ++i)
    if (i % k == 0 || i + 1 == all.size()) out.push_back(all[i]);
  return out;
}

enum class Category { separated, touching, penetrating };
const char* category_name(Category c) {
  return c == Category::separated ? " separated" : c == Category::touching ? " touching" : " penetrating";
}

/// Poses with α* in [1.1, 2.5] (separated), 1 ± 5e-8 (touching) or [0.4, 0.9] (penetrating): α* is
/// proportional to the distance of the origins along a ray.
void random_config(std::mt19937& rng, const Primitive& a, const Primitive& b, Category cat, Pose& X1, Pose& X2) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  X1 = make_pose(random_rotation(rng), random_unit(rng) * 0.5);
  X2 = make_pose(random_rotation(rng), Vec3::Zero());
  const Vec3 dir = random_unit(rng);
  X2.p = X1.p + dir;
  const ContactResult r = solve_contact(a, X1, b, X2);
  const double u = U(rng);
  const double target = cat == Category::separated ? 1.1 + 1.4 * u
                        : cat == Category::touching  ? 1.0 + (u - 0.5) * 1e-7
                                                     : 0.4 + 0.5 * u;
  X2.p = X1.p + dir * (target / r.alpha);
}

// Worst |A − N| / (kRel·scale + kAbs) over a block, scale = max |entry| of A and N.
struct Check {
  double worst = 0.0;
  std::string where;
  /// `at_least`: a lower bound of the scale (the block a difference of two entries came from).
  void add(const Eigen::MatrixXd& A, const Eigen::MatrixXd& N, const std::string& what, double at_least = 0.0) {
    const double scale = std::max({A.cwiseAbs().maxCoeff(), N.cwiseAbs().maxCoeff(), at_least});
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

/// The gradients of α, the gap and the components of x_W, p1_W, p2_W and the separating normal
/// as one 168-vector, each [X1 | X2] (12 entries).
Eigen::VectorXd first_derivatives(const ContactResult& r, ReferenceFrame frame) {
  const ContactDerivatives d = contact_derivatives(r, frame);
  const NormalDerivatives nd = normal_derivatives(r, frame);
  Eigen::VectorXd v(168);
  int k = 0;
  const auto put = [&](const auto& J1, const auto& J2) {
    for (int i = 0; i < J1.rows(); ++i) {
      for (int c = 0; c < 6; ++c) v[k++] = J1(i, c);
      for (int c = 0; c < 6; ++c) v[k++] = J2(i, c);
    }
  };
  put(d.J_alpha_X1, d.J_alpha_X2);
  put(d.J_gap_X1, d.J_gap_X2);
  put(d.J_x_W_X1, d.J_x_W_X2);
  put(d.J_p1_W_X1, d.J_p1_W_X2);
  put(d.J_p2_W_X1, d.J_p2_W_X2);
  put(nd.J_normal_W_X1, nd.J_normal_W_X2);
  return v;
}
std::vector<const Mat12*> hessian_blocks(const ContactHessians& h) {
  std::vector<const Mat12*> out = {&h.H_alpha, &h.H_gap};
  for (const auto* a : {&h.H_x_W, &h.H_p1_W, &h.H_p2_W, &h.H_normal_W})
    for (int i = 0; i < 3; ++i) out.push_back(&(*a)[i]);
  return out;
}
constexpr int kOutputs = 14;
const char* kOutputNames[kOutputs] = {"alpha", "gap",  "x0",   "x1",   "x2", "p1_0", "p1_1",
                                      "p1_2",  "p2_0", "p2_1", "p2_2", "n0", "n1",   "n2"};

GradientCheckOptions fd_options(ReferenceFrame frame) {
  GradientCheckOptions o;
  o.step = 1e-3;  // a contact feature must not switch within the step
  o.frame = frame;
  return o;
}

TEST(DcolHessians, AgainstFiniteDifferencesOfTheFirstDerivatives) {
  const long per = poses_per_category();
  std::mt19937 rng(20261207);
  Check world, local, rel, bracket, cross_sym;  // cross_sym: the differences' own consistency
  long configs = 0, unpolished = 0, apex = 0, boundary = 0, eliminated = 0, inconsistent = 0;
  for (const auto& [s1, s2] : shape_pairs())
    for (Category cat : {Category::separated, Category::touching, Category::penetrating})
      for (long q = 0; q < per; ++q) {
        Pose X1, X2;
        random_config(rng, s1.shape, s2.shape, cat, X1, X2);
        const ContactResult res = solve_contact(s1.shape, X1, s2.shape, X2);
        ASSERT_TRUE(res.ok());
        if (!res.kkt.polished) {
          ++unpolished;
          EXPECT_EQ(contact_hessians(res).status, DerivativeStatus::singular);
          continue;
        }
        ++configs;
        ASSERT_TRUE(normal_derivatives(res).ok()) << s1.name << "-" << s2.name;
        for (int c = 0; c < res.kkt.soc_count; ++c) {
          apex += res.kkt.soc_state[c] == 2;
          boundary += res.kkt.soc_state[c] == 1;
        }
        eliminated += res.kkt.elim_count > 0;
        const std::string where = s1.name + "-" + s2.name + category_name(cat);
        // the differences first: where they are not consistent themselves (the mixed partials
        // between the two poses disagree), the step crossed a switch of the active set
        Eigen::MatrixXd N[2];
        Check own;
        for (int fi = 0; fi < 2; ++fi) {
          const ReferenceFrame frame = fi == 0 ? ReferenceFrame::world : ReferenceFrame::local;
          const auto f = [&](const Pose& A, const Pose& B) {
            return first_derivatives(solve_contact(s1.shape, A, s2.shape, B), frame);
          };
          N[fi] = numeric_jacobian(PosePairFunction(f), X1, X2, fd_options(frame));
          for (int o = 0; o < kOutputs; ++o) {
            const Eigen::MatrixXd M = N[fi].middleRows(12 * o, 12);
            own.add(M.topRightCorner(6, 6), M.bottomLeftCorner(6, 6).transpose(), where + " " + kOutputNames[o]);
          }
        }
        if (own.worst > cross_sym.worst) cross_sym = own;
        if (own.worst > 1.0) {
          ++inconsistent;
          EXPECT_TRUE(contact_hessians(res).ok());
          continue;
        }
        for (int fi = 0; fi < 2; ++fi) {
          const ReferenceFrame frame = fi == 0 ? ReferenceFrame::world : ReferenceFrame::local;
          const ContactHessians h = contact_hessians(res, frame);
          ASSERT_TRUE(h.ok()) << where;
          const auto H = hessian_blocks(h);
          for (const Mat12* Hk : H) EXPECT_EQ((*Hk - Hk->transpose()).cwiseAbs().maxCoeff(), 0.0) << where;
          const Eigen::VectorXd grad = first_derivatives(res, frame);
          for (int o = 0; o < kOutputs; ++o) {
            const Eigen::MatrixXd M = N[fi].middleRows(12 * o, 12);  // M(i, j) = ∂_j (∂_i f)
            const std::string w = where + " " + kOutputNames[o] + " " + reference_frame_name(frame);
            (frame == ReferenceFrame::world ? world : local).add(*H[o], 0.5 * (M + M.transpose()), w);
            if (frame == ReferenceFrame::world)
              for (int b = 0; b < 2; ++b) {  // ½(M − Mᵀ) = ½ μᵀ ad_{e_i} e_j within one pose
                const Eigen::Matrix<double, 6, 1> mu = grad.segment<6>(12 * o + 6 * b);
                Mat6 Bm = Mat6::Zero();
                Bm.topLeftCorner<3, 3>() = -skew(mu.head<3>());
                Bm.topRightCorner<3, 3>() = -skew(mu.tail<3>());
                Bm.bottomLeftCorner<3, 3>() = -skew(mu.tail<3>());
                const Eigen::MatrixXd Mb = M.block(6 * b, 6 * b, 6, 6);
                bracket.add(0.5 * Bm, 0.5 * (Mb - Mb.transpose()), w + " bracket", Mb.cwiseAbs().maxCoeff());
              }
          }
        }
        {  // X12: right perturbation of the relative pose
          const ContactHessians h = contact_hessians(res);
          const Pose X12 = X1.inverse() * X2;
          const auto f = [&](const Pose& g) {
            const ContactDerivatives d = contact_derivatives(solve_contact(s1.shape, X1, s2.shape, X1 * g));
            return Eigen::VectorXd(d.J_alpha_X12.transpose());
          };
          const Eigen::MatrixXd M = numeric_jacobian(PoseFunction(f), X12, fd_options(ReferenceFrame::local));
          rel.add(h.H_alpha_X12, 0.5 * (M + M.transpose()), where + " alpha X12");
        }
      }
  std::printf("dcol hessians: %ld configurations checked (%ld unpolished, %ld whose differences are inconsistent "
              "near a switch; worst mixed-partial disagreement / tolerance %.3g: %s; cones at the apex %ld, on the "
              "boundary %ld; %ld with eliminated slacks); worst error / tolerance: world %.3g, local %.3g, X12 %.3g, "
              "bracket %.3g\n",
              configs - inconsistent, unpolished, inconsistent, cross_sym.worst, cross_sym.where.c_str(), apex,
              boundary, eliminated, world.worst, local.worst, rel.worst, bracket.worst);
  const long pairs = static_cast<long>(shape_pairs().size());
  EXPECT_GE(configs - inconsistent, (pairs - 4) * 3 * per);
  EXPECT_LE(inconsistent, configs / 50 + 1);
  EXPECT_LE(world.worst, 1.0) << world.where;
  EXPECT_LE(local.worst, 1.0) << local.where;
  EXPECT_LE(rel.worst, 1.0) << rel.where;
  EXPECT_LE(bracket.worst, 1.0) << bracket.where;
}

// ------------------------------------------------------------------ shape parameters

/// The parameters of a primitive in the order of shape_parameter_name(), and the primitive
/// rebuilt from them (same offset).
Eigen::VectorXd parameters_of(const Primitive& s) {
  return std::visit(
      [](const auto& p) -> Eigen::VectorXd {
        using T = std::decay_t<decltype(p)>;
        Eigen::VectorXd v;
        if constexpr (std::is_same_v<T, Polytope>) {
          const int m = p.num_faces;
          v.resize(4 * m);
          for (int i = 0; i < m; ++i) {
            v[i] = p.face_offset(i);
            for (int j = 0; j < 3; ++j) v[m + 3 * i + j] = p.normal(i)[j];
          }
        } else if constexpr (std::is_same_v<T, Capsule> || std::is_same_v<T, Cylinder>) {
          v = Eigen::Vector2d(p.R, p.L);
        } else if constexpr (std::is_same_v<T, Cone>) {
          v = Eigen::Vector2d(p.H, p.beta);
        } else if constexpr (std::is_same_v<T, Ellipsoid>) {
          v.resize(6);
          v << p.P(0, 0), p.P(1, 1), p.P(2, 2), p.P(0, 1), p.P(0, 2), p.P(1, 2);
        } else if constexpr (std::is_same_v<T, PaddedPolygon>) {
          const int m = p.num_edges;
          v.resize(1 + 3 * m);
          v[0] = p.R;
          for (int i = 0; i < m; ++i) {
            v[1 + i] = p.d[i];
            v[1 + m + 2 * i] = p.C(i, 0);
            v[2 + m + 2 * i] = p.C(i, 1);
          }
        } else {
          v = Eigen::VectorXd::Constant(1, p.R);
        }
        return v;
      },
      s);
}
Primitive with_parameters(const Primitive& s, const Eigen::VectorXd& v) {
  return std::visit(
      [&](const auto& p) -> Primitive {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, Polytope>) {
          const int m = p.num_faces;
          Eigen::MatrixX3d A(m, 3);
          Eigen::VectorXd b(m);
          for (int i = 0; i < m; ++i) {
            b[i] = v[i];
            for (int j = 0; j < 3; ++j) A(i, j) = v[m + 3 * i + j];
          }
          return Polytope(A, b, p.offset);
        } else if constexpr (std::is_same_v<T, Capsule> || std::is_same_v<T, Cylinder>) {
          return T(v[0], v[1], p.offset);
        } else if constexpr (std::is_same_v<T, Cone>) {
          return Cone(v[0], v[1], p.offset);
        } else if constexpr (std::is_same_v<T, Ellipsoid>) {
          Mat3 P;
          P << v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2];
          return Ellipsoid(P, p.offset);
        } else if constexpr (std::is_same_v<T, PaddedPolygon>) {
          const int m = p.num_edges;
          Eigen::MatrixX2d C(m, 2);
          Eigen::VectorXd d(m);
          for (int i = 0; i < m; ++i) {
            d[i] = v[1 + i];
            C(i, 0) = v[1 + m + 2 * i];
            C(i, 1) = v[2 + m + 2 * i];
          }
          return PaddedPolygon(C, d, v[0], p.offset);
        } else {
          return dcol::Sphere(v[0], p.offset);
        }
      },
      s);
}

Eigen::VectorXd outputs(const ContactResult& r) {
  Eigen::VectorXd v(14);
  v << r.alpha, r.gap, r.x_W, r.p1_W, r.p2_W, separating_normal(r);
  return v;
}

TEST(DcolShapeDerivatives, AgainstFiniteDifferencesOfTheSolve) {
  const long per = poses_per_category();
  std::mt19937 rng(99);
  Check worst;
  long configs = 0, unpolished = 0;
  const char* names[6] = {"alpha", "gap", "x_W", "p1_W", "p2_W", "normal_W"};
  const int offsets[7] = {0, 1, 2, 5, 8, 11, 14};
  for (const auto& [s1, s2] : shape_pairs())
    for (Category cat : {Category::separated, Category::touching, Category::penetrating})
      for (long q = 0; q < per; ++q) {
        Pose X1, X2;
        random_config(rng, s1.shape, s2.shape, cat, X1, X2);
        const ContactResult res = solve_contact(s1.shape, X1, s2.shape, X2);
        ASSERT_TRUE(res.ok());
        const ShapeDerivatives d = shape_derivatives(s1.shape, s2.shape, res);
        if (!res.kkt.polished) {
          ++unpolished;
          EXPECT_EQ(d.status, DerivativeStatus::singular);
          continue;
        }
        ASSERT_TRUE(d.ok());
        ++configs;
        const int n1 = shape_parameter_count(s1.shape), n2 = shape_parameter_count(s2.shape);
        ASSERT_EQ(d.count1, n1);
        ASSERT_EQ(d.count2, n2);
        Eigen::VectorXd theta(n1 + n2);
        theta << parameters_of(s1.shape), parameters_of(s2.shape);
        const auto f = [&](const Eigen::VectorXd& t) {
          const Primitive a = with_parameters(s1.shape, t.head(n1)), b = with_parameters(s2.shape, t.tail(n2));
          return outputs(solve_contact(a, X1, b, X2));
        };
        GradientCheckOptions o;
        o.step = 1e-3;
        const Eigen::MatrixXd N = numeric_jacobian(VectorFunction(f), theta, o);
        Eigen::MatrixXd A(14, n1 + n2);
        A << d.d_alpha, d.d_gap, d.d_x_W, d.d_p1_W, d.d_p2_W, d.d_normal_W;
        const std::string where = s1.name + "-" + s2.name + category_name(cat);
        for (int b = 0; b < 6; ++b)
          for (int c = 0; c < n1 + n2; ++c) {
            const std::string w = where + " d" + names[b] + "/d" +
                                  (c < n1 ? "1." + shape_parameter_name(s1.shape, c)
                                          : "2." + shape_parameter_name(s2.shape, c - n1));
            worst.add(A.block(offsets[b], c, offsets[b + 1] - offsets[b], 1),
                      N.block(offsets[b], c, offsets[b + 1] - offsets[b], 1), w);
          }
      }
  std::printf("dcol shape derivatives: %ld configurations (%ld unpolished); worst error / tolerance %.3g\n", configs,
              unpolished, worst.worst);
  EXPECT_GE(configs, (static_cast<long>(shape_pairs().size()) - 1) * 3 * per);
  EXPECT_LE(worst.worst, 1.0) << worst.where;
}

TEST(DcolShapeDerivatives, SparseEqualsDense) {
  // the dense columns are the sparse ones scattered; every other column is exactly zero
  std::mt19937 rng(31);
  long checked = 0;
  for (const auto& [s1, s2] : shape_pairs()) {
    Pose X1, X2;
    random_config(rng, s1.shape, s2.shape, Category::separated, X1, X2);
    const ContactResult res = solve_contact(s1.shape, X1, s2.shape, X2);
    const ShapeDerivatives d = shape_derivatives(s1.shape, s2.shape, res);
    const SparseShapeDerivatives sd = sparse_shape_derivatives(s1.shape, s2.shape, res);
    ASSERT_EQ(d.status, sd.status);
    ASSERT_EQ(d.count1, sd.count1);
    ASSERT_EQ(d.count2, sd.count2);
    if (!d.ok()) continue;
    ++checked;
    ASSERT_GT(sd.touched, 0);
    const int P = d.count1 + d.count2;
    std::vector<int> column(static_cast<size_t>(P), -1);
    for (int c = 0; c < sd.touched; ++c) {
      ASSERT_GE(sd.parameter[c], 0);
      ASSERT_LT(sd.parameter[c], P);
      ASSERT_EQ(column[static_cast<size_t>(sd.parameter[c])], -1) << "a parameter listed twice";
      column[static_cast<size_t>(sd.parameter[c])] = c;
    }
    for (int g = 0; g < P; ++g) {
      const int c = column[static_cast<size_t>(g)];
      const auto same = [&](const auto& dense, const auto& sparse) {
        return c < 0 ? dense.col(g).isZero(0.0) : dense.col(g) == sparse.col(c);
      };
      EXPECT_TRUE(same(d.d_alpha, sd.d_alpha) && same(d.d_gap, sd.d_gap) && same(d.d_x_W, sd.d_x_W) &&
                  same(d.d_p1_W, sd.d_p1_W) && same(d.d_p2_W, sd.d_p2_W) && same(d.d_normal_W, sd.d_normal_W))
          << s1.name << "-" << s2.name << " parameter " << g;
    }
  }
  EXPECT_GE(checked, static_cast<long>(shape_pairs().size()) - 2);
}

TEST(DcolShapeDerivatives, LargePolytopesAgainstFiniteDifferencesOfTheSolve) {
  // A polytope above kInlinePolytopeFaces faces enters the program as a window of its faces:
  // sparse_shape_derivatives maps the window's rows to the faces (ConeKkt::window_face). Every
  // touched parameter and four untouched faces' parameters against Ridders differences of
  // re-solves with the polytope rebuilt from the changed A, b. The polytopes are random tangent
  // planes of an ellipsoid: three faces at each vertex (at the vertices of a triangulated hull
  // more faces meet, and a face's offset has one-sided derivatives there, docs/dcol.md).
  std::mt19937 rng(4242);
  const auto tangent_planes = [&](int m, const Vec3& axes) {
    Eigen::MatrixX3d A(m, 3);
    Eigen::VectorXd b(m);
    for (int i = 0; i < m; ++i) {
      const Vec3 n = random_unit(rng);
      A.row(i) = n.transpose();
      b[i] = n.cwiseProduct(axes).norm();  // the ellipsoid's support function
    }
    return Primitive(Polytope(A, b));
  };
  const Primitive big = tangent_planes(60, Vec3(0.8, 0.6, 0.5)), big2 = tangent_planes(45, Vec3(0.5, 0.7, 0.6));
  ASSERT_TRUE(std::get<Polytope>(big).is_large() && std::get<Polytope>(big2).is_large());
  std::vector<std::pair<Named, Named>> pairs;
  for (const char* n : {"capsule", "cone", "ellipsoid", "polytope", "sphere", "cylinder"})
    pairs.push_back({{"hull", big}, {n, benchmark_primitive(n)}});
  pairs.push_back({{"capsule", benchmark_primitive("capsule")}, {"hull", big}});
  pairs.push_back({{"hull", big}, {"hull2", big2}});
  if (pair_stride() > 1) pairs.erase(pairs.begin() + 1, pairs.end() - 2);  // the sanitized run: three pairs
  Check worst;
  long configs = 0, unpolished = 0, untouched_checked = 0;
  const int offsets[7] = {0, 1, 2, 5, 8, 11, 14};
  for (const auto& [s1, s2] : pairs)
    for (Category cat : {Category::separated, Category::touching, Category::penetrating}) {
      Pose X1, X2;
      random_config(rng, s1.shape, s2.shape, cat, X1, X2);
      const ContactResult res = solve_contact(s1.shape, X1, s2.shape, X2);
      ASSERT_TRUE(res.ok());
      EXPECT_THROW(shape_derivatives(s1.shape, s2.shape, res), std::invalid_argument);
      const SparseShapeDerivatives sd = sparse_shape_derivatives(s1.shape, s2.shape, res);
      if (!res.kkt.polished) {
        ++unpolished;
        EXPECT_EQ(sd.status, DerivativeStatus::singular);
        continue;
      }
      ASSERT_TRUE(sd.ok());
      ++configs;
      const int n1 = shape_parameter_count(s1.shape), n2 = shape_parameter_count(s2.shape);
      ASSERT_EQ(sd.count1, n1);
      ASSERT_EQ(sd.count2, n2);
      Eigen::VectorXd theta(n1 + n2);
      theta << parameters_of(s1.shape), parameters_of(s2.shape);
      // the columns to check: the touched ones, then four faces of the hull that are not touched
      std::vector<int> cols(sd.parameter.begin(), sd.parameter.begin() + sd.touched);
      const bool hull_first = s1.name == "hull";
      const int m = std::get<Polytope>(hull_first ? s1.shape : s2.shape).num_faces, base = hull_first ? 0 : n1;
      for (int tries = 0; tries < 200 && static_cast<int>(cols.size()) < sd.touched + 4; ++tries) {
        const int face = static_cast<int>(rng() % static_cast<unsigned>(m));
        if (std::find(cols.begin(), cols.end(), base + face) == cols.end()) cols.push_back(base + face);
      }
      const auto f = [&](const Eigen::VectorXd& t) {
        Eigen::VectorXd full = theta;
        for (size_t j = 0; j < cols.size(); ++j) full[cols[j]] = t[static_cast<Eigen::Index>(j)];
        const Primitive a = with_parameters(s1.shape, full.head(n1)), b = with_parameters(s2.shape, full.tail(n2));
        return outputs(solve_contact(a, X1, b, X2));
      };
      Eigen::VectorXd t0(static_cast<Eigen::Index>(cols.size()));
      for (size_t j = 0; j < cols.size(); ++j) t0[static_cast<Eigen::Index>(j)] = theta[cols[j]];
      GradientCheckOptions o;
      o.step = 1e-4;
      const Eigen::MatrixXd N = numeric_jacobian(VectorFunction(f), t0, o);
      Eigen::MatrixXd A = Eigen::MatrixXd::Zero(14, static_cast<Eigen::Index>(cols.size()));
      A.leftCols(sd.touched) << sd.d_alpha, sd.d_gap, sd.d_x_W, sd.d_p1_W, sd.d_p2_W, sd.d_normal_W;
      untouched_checked += static_cast<long>(cols.size()) - sd.touched;

      const std::string where = s1.name + "-" + s2.name + category_name(cat);
      for (int b = 0; b < 6; ++b)
        for (Eigen::Index c = 0; c < A.cols(); ++c)
          worst.add(A.block(offsets[b], c, offsets[b + 1] - offsets[b], 1),
                    N.block(offsets[b], c, offsets[b + 1] - offsets[b], 1),
                    where + " column " + std::to_string(c) + " (parameter " +
                        std::to_string(cols[static_cast<size_t>(c)]) + ")",
                    A.block(offsets[b], 0, offsets[b + 1] - offsets[b], A.cols()).cwiseAbs().maxCoeff());
    }
  std::printf("dcol sparse shape derivatives of large polytopes: %ld configurations (%ld unpolished), %ld untouched "
              "parameters checked; worst error / tolerance %.3g\n",
              configs, unpolished, untouched_checked, worst.worst);
  EXPECT_GE(configs, static_cast<long>(pairs.size()));
  EXPECT_GE(untouched_checked, 3 * configs);
  EXPECT_LE(worst.worst, 1.0) << worst.where;
}

TEST(DcolShapeDerivatives, ClosedFormsAndNames) {
  // two spheres: α = D/(R1 + R2), x = r1 + α R1 u (independent references)
  const dcol::Sphere a(0.7), b(1.3);
  const Pose X1 = make_pose(Mat3::Identity(), Vec3(0.1, 0.2, 0.3)), X2 = make_pose(Mat3::Identity(), Vec3(2.1, 1.2, -0.7));
  const ContactResult res = solve_contact(a, X1, b, X2);
  ASSERT_TRUE(res.ok());
  const ShapeDerivatives d = shape_derivatives(a, b, res);
  ASSERT_TRUE(d.ok());
  const double D = (X2.p - X1.p).norm(), S = a.R + b.R;
  const Vec3 u = (X2.p - X1.p) / D;
  EXPECT_NEAR(d.d_alpha[0], -D / (S * S), 1e-12);
  EXPECT_NEAR(d.d_alpha[1], -D / (S * S), 1e-12);
  // x = r1 + D R1/S u: dx/dR1 = D R2/S² u, dx/dR2 = −D R1/S² u
  EXPECT_LE((d.d_x_W.col(0) - D * b.R / (S * S) * u).norm(), 1e-12);
  EXPECT_LE((d.d_x_W.col(1) + D * a.R / (S * S) * u).norm(), 1e-12);
  // p1 = r1 + R1 u: dp1/dR1 = u, dp1/dR2 = 0; the gap D − S: −1, −1
  EXPECT_LE((d.d_p1_W.col(0) - u).norm(), 1e-12);
  EXPECT_LE(d.d_p1_W.col(1).norm(), 1e-12);
  EXPECT_NEAR(d.d_gap[0], -1.0, 1e-12);
  EXPECT_NEAR(d.d_gap[1], -1.0, 1e-12);
  // a box's half-extent: the sum of the columns b of its two faces along that axis
  {
    const Primitive cap = Capsule(0.3, 1.0);
    const Pose Xc = make_pose(Eigen::AngleAxisd(0.5, Vec3(1, 1, 0).normalized()).toRotationMatrix(), Vec3(0.2, 0.1, 0.0));
    const Pose Xb = make_pose(Eigen::AngleAxisd(0.3, Vec3(0, 1, 1).normalized()).toRotationMatrix(), Vec3(1.6, 0.4, 0.3));
    const auto alpha_of = [&](double hx) { return solve_contact(cap, Xc, Polytope::box(hx, 0.6, 0.7), Xb).alpha; };
    const Primitive bx = Polytope::box(0.5, 0.6, 0.7);
    const ContactResult rb = solve_contact(cap, Xc, bx, Xb);
    const ShapeDerivatives db = shape_derivatives(cap, bx, rb);
    ASSERT_TRUE(db.ok());
    double sum = 0.0;
    for (int i = 0; i < std::get<Polytope>(bx).num_faces; ++i)
      if (std::abs(std::abs(std::get<Polytope>(bx).A(i, 0)) - 1.0) < 1e-12) sum += db.d_alpha[2 + i];
    const double fd = (alpha_of(0.5 + 1e-6) - alpha_of(0.5 - 1e-6)) / 2e-6;
    EXPECT_NEAR(sum, fd, 1e-7 * std::max(1.0, std::abs(fd)));
    EXPECT_GT(std::abs(fd), 1e-3);  // the x faces are in contact
  }
  // names and counts
  const Primitive box = Polytope::box(1, 2, 3), poly = benchmark_primitive("padded_polygon");
  EXPECT_EQ(shape_parameter_count(box), 24);
  EXPECT_EQ(shape_parameter_name(box, 5), "b[5]");
  EXPECT_EQ(shape_parameter_name(box, 6 + 3 * 2 + 1), "A[2][1]");
  EXPECT_EQ(shape_parameter_count(poly), 13);
  EXPECT_EQ(shape_parameter_name(poly, 0), "radius");
  EXPECT_EQ(shape_parameter_name(poly, 4), "d[3]");
  EXPECT_EQ(shape_parameter_name(poly, 5 + 2 * 3 + 1), "C[3][1]");
  EXPECT_EQ(shape_parameter_name(benchmark_primitive("ellipsoid"), 4), "P[0][2]");
  EXPECT_EQ(shape_parameter_name(benchmark_primitive("cone"), 1), "half_angle");
  EXPECT_THROW(shape_parameter_name(box, 24), std::out_of_range);
  EXPECT_THROW(shape_parameter_name(box, -1), std::out_of_range);
  // a large polytope has no dense parameter derivatives (sparse ones: below); shapes must match
  std::vector<Vec3> pts;
  for (int i = 0; i < 200; ++i) {
    const double t = 2.399963 * i, z = 1.0 - 2.0 * (i + 0.5) / 200.0, r = std::sqrt(1.0 - z * z);
    pts.push_back(Vec3(r * std::cos(t), r * std::sin(t), z));
  }
  const Primitive big = Polytope::convex_hull(pts);
  ASSERT_TRUE(std::get<Polytope>(big).is_large());
  EXPECT_EQ(shape_parameter_count(big), 4 * std::get<Polytope>(big).num_faces);
  const ContactResult rb = solve_contact(big, X1, b, X2);
  EXPECT_THROW(shape_derivatives(big, b, rb), std::invalid_argument);
  EXPECT_THROW(shape_derivatives(benchmark_primitive("capsule"), b, res), std::invalid_argument);
  // ... but has Hessians (its rows are read off the solve)
  ASSERT_TRUE(rb.ok());
  if (rb.kkt.polished) {
    EXPECT_TRUE(contact_hessians(rb).ok());
  }
}

TEST(DcolHessians, FramesStatusesAndNoAllocation) {
  std::mt19937 rng(7);
  const Primitive s1 = benchmark_primitive("cone"), s2 = benchmark_primitive("polytope");
  Pose X1, X2;
  random_config(rng, s1, s2, Category::separated, X1, X2);
  const ContactResult res = solve_contact(s1, X1, s2, X2);
  ASSERT_TRUE(res.ok() && res.kkt.polished);
  const ContactHessians w = contact_hessians(res);
  ASSERT_TRUE(w.ok());
  // every frame is the congruence diag(M1, M2)ᵀ H_W diag(M1, M2)
  for (ReferenceFrame f : {ReferenceFrame::local, ReferenceFrame::local_world_aligned}) {
    const ContactHessians h = contact_hessians(res, f);
    Mat12 M = Mat12::Zero();
    M.topLeftCorner<6, 6>() = world_twist_from_frame(f, X1);
    M.bottomRightCorner<6, 6>() = world_twist_from_frame(f, X2);
    const Mat12 expect = M.transpose() * w.H_gap * M;
    EXPECT_LE((h.H_gap - expect).cwiseAbs().maxCoeff(), 1e-12 * expect.cwiseAbs().maxCoeff());
  }
  // not converged, coincident, unpolished: zero blocks
  ContactResult bad = res;
  bad.status = SolveStatus::not_converged;
  EXPECT_EQ(contact_hessians(bad).status, DerivativeStatus::solve_failed);
  EXPECT_EQ(contact_hessians(bad).H_alpha, Mat12::Zero());
  EXPECT_EQ(shape_derivatives(s1, s2, bad).status, DerivativeStatus::solve_failed);
  const ContactResult same = solve_contact(s1, X1, s2, X1);
  EXPECT_EQ(contact_hessians(same).status, DerivativeStatus::coincident_origins);
  SolveOptions smooth;
  smooth.barrier_target = 1e-3;
  const ContactResult sm = solve_contact(s1, X1, s2, X2, smooth);
  ASSERT_TRUE(sm.ok());
  EXPECT_EQ(contact_hessians(sm).status, DerivativeStatus::singular);
  EXPECT_EQ(shape_derivatives(s1, s2, sm).status, DerivativeStatus::singular);
  EXPECT_EQ(shape_derivatives(s1, s2, sm).d_alpha.size(), shape_parameter_count(s1) + shape_parameter_count(s2));
#if defined(DIFFCOL_TEST_COUNTS_MALLOC)
  ContactHessians h;
  ShapeDerivatives sd;
  NormalDerivatives nd;
  ContactResult r;
  for (const auto& [a, b] : all_shape_pairs()) {
    Pose A, B;
    random_config(rng, a.shape, b.shape, Category::separated, A, B);
    solve_contact(a.shape, A, b.shape, B, r);
    ASSERT_TRUE(r.ok());
    const long before = g_allocations.load();
    contact_hessians(r, h, ReferenceFrame::local);
    shape_derivatives(a.shape, b.shape, r, sd);
    normal_derivatives(r, nd, ReferenceFrame::local);
    EXPECT_EQ(g_allocations.load(), before) << a.name << "-" << b.name;
    EXPECT_TRUE(nd.ok()) << a.name << "-" << b.name;
    EXPECT_EQ(h.ok(), r.kkt.polished) << a.name << "-" << b.name;
    EXPECT_EQ(sd.ok(), r.kkt.polished) << a.name << "-" << b.name;
  }
#endif
}

}  // namespace dcol_hessians_test
