// Tests of the DCOL contact query (include/diffcol/dcol/contact.hpp): geometry against
// independent references (closed forms, a 1-D root solve, LP vertex enumeration, the iDCOL
// solver), invariances, and the ergodic sweep over every ordered pair of the seven primitives.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/shapes/superellipsoid.hpp"

#include "dcol_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace diffcol;
using namespace diffcol::dcol;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;
using namespace diffcol::dcol_test;

long ergodic_poses() { return diffcol::test::env_count("DIFFCOL_ERGODIC_POSES", 10000); }

/// Padded polygons that are not symmetric about their origin (all lengths times `size`): the
/// triangle (−0.3, −0.3), (1, −0.3), (−0.3, 1) and an irregular pentagon.
PaddedPolygon asymmetric_triangle(double size, double pad) {
  Eigen::MatrixX2d C(3, 2);
  C << 0, -1, -1, 0, 1, 1;
  return PaddedPolygon(C, size * Eigen::Vector3d(0.3, 0.3, 0.7), pad);
}
PaddedPolygon asymmetric_pentagon(double size, double pad) {
  Eigen::MatrixX2d C(5, 2);
  Eigen::VectorXd d(5);
  for (int i = 0; i < 5; ++i) {
    const double a = 2.0 * M_PI * i / 5.0 + 0.3 * i * i;
    C.row(i) << std::cos(a), std::sin(a);
    d[i] = size * (0.4 + 0.15 * i);
  }
  return PaddedPolygon(C, d, pad);
}

/// The geometric start (d) and the interior-point route (r) reached the same KKT point: α to
/// tol_alpha, x* to tol_x, dα/dη2 and dx/dη1 to tol_d (relative).
void expect_same_solution(const ContactResult& d, const ContactResult& r, double tol_alpha, double tol_x, double tol_d,
                          const std::string& at) {
  EXPECT_NEAR(d.alpha, r.alpha, tol_alpha * std::max(1.0, r.alpha)) << at;
  EXPECT_LE((d.x_W - r.x_W).norm(), tol_x * std::max(1.0, r.x_W.norm())) << at;
  const dcol::ContactDerivatives dd = dcol::contact_derivatives(d), dr = dcol::contact_derivatives(r);
  ASSERT_TRUE(dd.ok() && dr.ok()) << at;
  EXPECT_LE((dd.J_alpha_X2 - dr.J_alpha_X2).norm(), tol_d * std::max(1.0, dr.J_alpha_X2.norm())) << at;
  EXPECT_LE((dd.J_x_W_X1 - dr.J_x_W_X1).norm(), tol_d * std::max(1.0, dr.J_x_W_X1.norm())) << at;
}

// ------------------------------------------------------------------------------ closed forms

TEST(DcolOptions, InvalidOptionsAreRejected) {
  // validate() names the field; solve_contact returns status invalid_input (finite fields) instead.
  EXPECT_NO_THROW(SolveOptions{}.validate());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::pair<SolveOptions, const char*>> bad;
  auto add = [&](const char* field, auto&& set) {
    SolveOptions o;
    set(o);
    bad.emplace_back(o, field);
  };
  add("feasibility_tolerance", [&](SolveOptions& o) { o.feasibility_tolerance = 0.0; });
  add("gap_tolerance", [&](SolveOptions& o) { o.gap_tolerance = nan; });
  add("gap_relative_tolerance", [&](SolveOptions& o) { o.gap_relative_tolerance = -1.0; });
  add("max_iterations", [&](SolveOptions& o) { o.max_iterations = 0; });
  add("barrier_target", [&](SolveOptions& o) { o.barrier_target = -1e-3; });
  add("final_centering_steps", [&](SolveOptions& o) { o.final_centering_steps = -1; });
  add("final_centering_tolerance", [&](SolveOptions& o) { o.final_centering_tolerance = 0.0; });
  add("polish_start", [&](SolveOptions& o) { o.polish_start = std::numeric_limits<double>::infinity(); });
  // stopping tolerances outside [1e-14, 1e-3]
  add("feasibility_tolerance", [&](SolveOptions& o) { o.feasibility_tolerance = 1e300; });
  add("gap_tolerance", [&](SolveOptions& o) { o.gap_tolerance = 1e-2; });
  add("gap_relative_tolerance", [&](SolveOptions& o) { o.gap_relative_tolerance = 1e-15; });
  Pose X2 = Pose::identity();
  X2.p = Vec3(1.0, 2.0, 0.5);
  for (const auto& [o, field] : bad) {
    diffcol::test::expect_invalid_field(o, field);
    const ContactResult r = solve_contact(dcol::Sphere(0.5), Pose::identity(), dcol::Sphere(0.7), X2, o);
    EXPECT_EQ(r.status, SolveStatus::invalid_input) << field;
    EXPECT_TRUE(std::isfinite(r.alpha) && r.x_W.allFinite()) << field;
  }
  SolveOptions edges;  // the ends of the range are accepted
  edges.feasibility_tolerance = 1e-3;
  edges.gap_tolerance = 1e-14;
  edges.gap_relative_tolerance = 1e-3;
  EXPECT_NO_THROW(edges.validate());
}

TEST(DcolClosedForm, SphereSphere) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> U(0.2, 2.0);
  for (int trial = 0; trial < 500; ++trial) {
    const double R1 = U(rng), R2 = U(rng);
    const Pose X1 = random_pose(rng, 5.0), X2 = random_pose(rng, 5.0);
    const ContactResult res = solve_contact(dcol::Sphere(R1), X1, dcol::Sphere(R2), X2);
    ASSERT_EQ(res.status, SolveStatus::ok);
    const Vec3 d = X2.p - X1.p;
    const double alpha = d.norm() / (R1 + R2);
    EXPECT_NEAR(res.alpha, alpha, 1e-9 * std::max(1.0, alpha));
    const Vec3 x = X1.p + alpha * R1 * d.normalized();
    EXPECT_LT((res.x_W - x).norm(), 1e-8 * std::max(1.0, d.norm()));
    EXPECT_LT((res.p1_W - (X1.p + R1 * d.normalized())).norm(), 1e-8 * std::max(1.0, d.norm()));
    EXPECT_LT((res.p2_W - (X2.p - R2 * d.normalized())).norm(), 1e-8 * std::max(1.0, d.norm()));
    EXPECT_NEAR(res.gap, d.norm() - R1 - R2, 1e-8 * std::max(1.0, d.norm()));
  }
}

/// Distance from u to the unit-level ellipsoid {y : yᵀPy ≤ 1} (P diagonal with entries p),
/// by bisection on the multiplier of the projection y = (I + νP)⁻¹u.
double point_ellipsoid_distance(const Vec3& u, const Vec3& p) {
  auto g = [&](double nu) {
    double v = 0.0;
    for (int i = 0; i < 3; ++i) {
      const double yi = u[i] / (1.0 + nu * p[i]);
      v += p[i] * yi * yi;
    }
    return v - 1.0;
  };
  if (g(0.0) <= 0.0) return 0.0;
  double lo = 0.0, hi = 1.0;
  while (g(hi) > 0.0) hi *= 2.0;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (g(mid) > 0.0 ? lo : hi) = mid;
  }
  const double nu = 0.5 * (lo + hi);
  Vec3 y;
  for (int i = 0; i < 3; ++i) y[i] = u[i] / (1.0 + nu * p[i]);
  return (u - y).norm();
}

TEST(DcolClosedForm, SphereEllipsoid) {
  // α* = 1/t where dist(t·d, E) = R, d = the sphere centre in the ellipsoid frame: the scaled
  // shapes touch when the sphere of radius αR about d touches αE, i.e. (divide by α) when the
  // sphere of radius R about d/α touches E. dist(t d, E) increases with t, so bisect on t.
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> U(0.3, 2.0);
  for (int trial = 0; trial < 200; ++trial) {
    const double R = U(rng);
    const Vec3 axes(U(rng), U(rng), U(rng));
    const Vec3 p = axes.cwiseInverse().cwiseAbs2();
    const Pose Xe = random_pose(rng, 3.0), Xs = random_pose(rng, 6.0);
    const ContactResult res =
        solve_contact(Ellipsoid::from_semi_axes(axes.x(), axes.y(), axes.z()), Xe, dcol::Sphere(R), Xs);
    ASSERT_EQ(res.status, SolveStatus::ok);
    const Vec3 d = Xe.R.transpose() * (Xs.p - Xe.p);
    double lo = 0.0, hi = 1.0;
    while (point_ellipsoid_distance(hi * d, p) < R) hi *= 2.0;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (point_ellipsoid_distance(mid * d, p) < R ? lo : hi) = mid;
    }
    const double alpha = 2.0 / (lo + hi);
    EXPECT_NEAR(res.alpha, alpha, 1e-8 * std::max(1.0, alpha)) << "trial " << trial;
  }
}

TEST(DcolClosedForm, AsymmetricPaddedPolygonAgainstSphere) {
  // Polygons that are not symmetric about their origin (a triangle, a pentagon): the scaled
  // shapes touch when dist(c, αP) = α(R + ρ), c the sphere centre in the polygon frame and αP the
  // scaled polygon in the plane z = 0; the left side decreases and the right side increases with
  // α, so bisect on α with the brute-force distance above.
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> U(0.5, 1.5);
  for (int trial = 0; trial < 200; ++trial) {
    const double size = U(rng), pad = 0.1 * U(rng);
    const PaddedPolygon P = trial % 2 ? asymmetric_triangle(size, pad) : asymmetric_pentagon(size, pad);
    const double rho = 0.2 * U(rng);
    const Pose Xp = random_pose(rng, 2.0), Xs = random_pose(rng, 5.0);
    const ContactResult res = trial % 4 < 2 ? solve_contact(P, Xp, dcol::Sphere(rho), Xs)
                                            : solve_contact(dcol::Sphere(rho), Xs, P, Xp);
    ASSERT_EQ(res.status, SolveStatus::ok) << "trial " << trial;
    const Vec3 c = Xp.R.transpose() * (Xs.p - Xp.p);
    auto gap = [&](double a) {
      const Eigen::Vector2d w = closest_in_scaled_polygon(P, a, Eigen::Vector2d(c.x(), c.y()));
      return (c - Vec3(w.x(), w.y(), 0.0)).norm() - a * (P.R + rho);
    };
    double lo = 0.0, hi = 1.0;
    while (gap(hi) > 0.0) hi *= 2.0;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (gap(mid) > 0.0 ? lo : hi) = mid;
    }
    EXPECT_NEAR(res.alpha, hi, 1e-8 * std::max(1.0, hi)) << "trial " << trial;
    EXPECT_LT(membership_violation(P, Xp, res.x_W, res.alpha), 1e-8) << "trial " << trial;
  }
}

// ------------------------------------------------------------------------------ LP reference

TEST(DcolLp, PolytopePolytopeMatchesVertexEnumeration) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 150; ++trial) {
    const Polytope P1 = random_polytope(rng, 6 + trial % 5), P2 = random_polytope(rng, 6 + (trial / 5) % 5);
    const Pose X1 = random_pose(rng, 3.0), X2 = random_pose(rng, 3.0);
    const ContactResult res = solve_contact(P1, X1, P2, X2);
    ASSERT_EQ(res.status, SolveStatus::ok) << "trial " << trial;
    const double ref = polytope_lp_bruteforce(P1, X1, P2, X2);
    EXPECT_NEAR(res.alpha, ref, 1e-9 * std::max(1.0, ref)) << "trial " << trial;
    EXPECT_LT(membership_violation(P1, X1, res.x_W, res.alpha), 1e-8);
    EXPECT_LT(membership_violation(P2, X2, res.x_W, res.alpha), 1e-8);
  }
}

TEST(DcolPolytope, FaceVertexListsAreTheFacesInOrder) {
  // Polytope::face_vertices: every vertex on face k's plane is listed (and only those), in
  // counter-clockwise order about the face normal (consecutive triangles with the centroid
  // turn positively); each vertex lies on at least three faces.
  std::mt19937 rng(41);
  std::vector<Polytope> shapes = {Polytope::box(0.3, 1.0, 2.0), std::get<Polytope>(benchmark_primitive("polytope"))};
  for (int t = 0; t < 30; ++t) shapes.push_back(random_polytope(rng, 5 + t % 12));
  for (const Polytope& P : shapes) {
    std::vector<int> seen(P.num_vertices, 0);
    for (int k = 0; k < P.num_faces; ++k) {
      const Vec3 n = P.A.row(k).transpose();
      const int f0 = P.face_start[k], c = P.face_start[k + 1] - f0;
      int on = 0;
      for (int i = 0; i < P.num_vertices; ++i) on += std::abs(n.dot(P.V.row(i).transpose()) - P.b[k]) <= 1e-9;
      if (on < 3) {  // a redundant half-space touching at a vertex or an edge
        EXPECT_EQ(c, on);
        continue;
      }
      ASSERT_EQ(c, on) << "face " << k;
      Vec3 centre = Vec3::Zero();
      for (int a = 0; a < c; ++a) centre += P.V.row(P.face_vertices[f0 + a]).transpose();
      centre /= c;
      for (int a = 0; a < c; ++a) {
        const int i = P.face_vertices[f0 + a], j = P.face_vertices[f0 + (a + 1) % c];
        EXPECT_LE(std::abs(n.dot(P.V.row(i).transpose()) - P.b[k]), 1e-9);
        const Vec3 vi = P.V.row(i).transpose() - centre, vj = P.V.row(j).transpose() - centre;
        EXPECT_GT(n.dot(vi.cross(vj)), 0.0) << "face " << k << " vertices " << i << " " << j;
        ++seen[i];
      }
    }
    for (int i = 0; i < P.num_vertices; ++i) EXPECT_GE(seen[i], 3) << "vertex " << i;
  }
}

TEST(DcolLp, DegenerateVerticesArePolishedFromTheGeometricStart) {
  // An octahedron: four faces meet at every vertex, so a vertex–face contact has five tight rows
  // for four unknowns. The geometric start picks a basis among them (multipliers ≥ 0) and
  // polishes; α must equal the LP reference, and nearly every solve needs no interior-point
  // iteration (the interior-point route leaves most of these unpolished).
  std::mt19937 rng(24);
  Eigen::MatrixX3d A(8, 3);
  for (int i = 0; i < 8; ++i) A.row(i) << (i & 1 ? 1 : -1), (i & 2 ? 1 : -1), (i & 4 ? 1 : -1);
  const Polytope oct(A, Eigen::VectorXd::Ones(8));
  ASSERT_EQ(oct.num_vertices, 6);
  int direct = 0, polished = 0, total = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Pose X1 = random_pose(rng, 1.0), X2 = random_pose(rng, 3.0);
    const ContactResult res = solve_contact(oct, X1, oct, X2);
    ASSERT_EQ(res.status, SolveStatus::ok) << trial;
    const double ref = polytope_lp_bruteforce(oct, X1, oct, X2);
    EXPECT_NEAR(res.alpha, ref, 1e-9 * std::max(1.0, ref)) << trial;
    EXPECT_LT(membership_violation(oct, X1, res.x_W, res.alpha), 1e-8) << trial;
    EXPECT_LT(membership_violation(oct, X2, res.x_W, res.alpha), 1e-8) << trial;
    ++total;
    direct += res.iterations == 0;
    polished += res.kkt.polished;
  }
  std::printf("octahedron pairs: %d of %d without interior-point iterations, %d polished\n", direct, total, polished);
  EXPECT_GE(direct, total * 95 / 100);
  EXPECT_GE(polished, total * 95 / 100);
}

TEST(DcolLp, CapsuleSideOnDegenerateVertexIsPolished) {
  // A capsule's side on an octahedron's vertex (four faces meet there): the face rows through the
  // vertex have rank three while the unknowns (p, α, γ) leave room for four besides the capsule's
  // cone, so the start's active set is a smaller subset. Octahedron frame: vertex (0, 0, 1), the
  // capsule's axis horizontal at height h through a point above the vertex; at α = h/(1 + R) its
  // side touches the vertex (the contact point lies inside the segment: |t| < αL/2).
  std::mt19937 rng(57);
  std::uniform_real_distribution<double> U(-1.0, 1.0), Th(0.0, 2.0 * M_PI);
  Eigen::MatrixX3d A(8, 3);
  for (int i = 0; i < 8; ++i) A.row(i) << (i & 1 ? 1 : -1), (i & 2 ? 1 : -1), (i & 4 ? 1 : -1);
  const Polytope oct(A, Eigen::VectorXd::Ones(8));
  const double R = 0.3, L = 1.0, h = 2.6, alpha = h / (1.0 + R);
  for (int trial = 0; trial < 50; ++trial) {
    const double th = Th(rng), t = 0.8 * U(rng);
    const Mat3 Rz = Eigen::AngleAxisd(th, Vec3::UnitZ()).toRotationMatrix();
    const Pose G = random_pose(rng, 2.0);
    const Pose X2 = G * Pose::from_rotation(Rz, t * Rz.col(0) + Vec3(0, 0, h));
    for (const bool capsule_first : {false, true}) {
      const ContactResult res =
          capsule_first ? solve_contact(Capsule(R, L), X2, oct, G) : solve_contact(oct, G, Capsule(R, L), X2);
      ASSERT_EQ(res.status, SolveStatus::ok) << trial;
      EXPECT_NEAR(res.alpha, alpha, 1e-12) << trial;
      EXPECT_LT((res.x_W - G * Vec3(0, 0, alpha)).norm(), 1e-12) << trial;
      EXPECT_TRUE(res.kkt.polished) << trial;
      EXPECT_NE(res.start, StartMethod::interior_point) << trial;
    }
  }
}

// ------------------------------------------------------------------------------ vs iDCOL

TEST(DcolIdcol, EllipsoidEllipsoidMatchesIdcol) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> U(0.3, 2.0);
  double worst = 0.0, worst_x = 0.0;
  for (int trial = 0; trial < 300; ++trial) {
    const Vec3 a1(U(rng), U(rng), U(rng)), a2(U(rng), U(rng), U(rng));
    const Pose X1 = random_pose(rng, 3.0), X2 = random_pose(rng, 5.0);
    const ContactResult res = solve_contact(Ellipsoid::from_semi_axes(a1.x(), a1.y(), a1.z()), X1,
                                            Ellipsoid::from_semi_axes(a2.x(), a2.y(), a2.z()), X2);
    ASSERT_EQ(res.status, SolveStatus::ok);
    const idcol::ContactSolution ref = idcol::solve_contact(Superellipsoid::ellipsoid(a1.x(), a1.y(), a1.z()), X1,
                                                            Superellipsoid::ellipsoid(a2.x(), a2.y(), a2.z()), X2);
    ASSERT_EQ(ref.status, diffcol::SolveStatus::ok);
    worst = std::max(worst, std::abs(res.alpha - ref.alpha));
    worst_x = std::max(worst_x, (res.x_W - ref.x_W).norm());
    EXPECT_NEAR(res.alpha, ref.alpha, 1e-8) << "trial " << trial;
    EXPECT_TRUE(res.kkt.polished) << "trial " << trial;
    EXPECT_LT((res.x_W - ref.x_W).norm(), 1e-8) << "trial " << trial;
  }
  std::printf("ellipsoid-ellipsoid: max |alpha_dcol - alpha_idcol| = %.3g, max |x_dcol - x_idcol| = %.3g\n", worst,
              worst_x);
}

// ------------------------------------------------------------------------------ invariances

TEST(DcolInvariance, SwapSymmetry) {
  std::mt19937 rng(5);
  const char* const* names = benchmark_primitive_names();
  for (int i = 0; i < kNumPrimitiveTypes; ++i)
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      for (int q = 0; q < 20; ++q) {
        const Pose X1 = random_pose(rng, 2.0), X2 = random_pose(rng, 4.0);
        const ContactResult ab = solve_contact(a, X1, b, X2), ba = solve_contact(b, X2, a, X1);
        ASSERT_TRUE(ab.ok() && ba.ok());
        EXPECT_NEAR(ab.alpha, ba.alpha, 1e-9 * std::max(1.0, ab.alpha)) << names[i] << "-" << names[j];
        EXPECT_NEAR(ab.gap, ba.gap, 1e-8 * std::max(1.0, std::abs(ab.gap)));
        EXPECT_LT((ab.p1_W - ba.p2_W).norm(), 1e-8) << names[i] << "-" << names[j];
        EXPECT_LT((ab.x_W - ba.x_W).norm(), 1e-8) << names[i] << "-" << names[j];
      }
    }
}

TEST(DcolInvariance, ScalingShapesAndPositionsLeavesAlphaUnchanged) {
  std::mt19937 rng(6);
  const char* const* names = benchmark_primitive_names();
  for (int i = 0; i < kNumPrimitiveTypes; ++i)
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      for (int q = 0; q < 10; ++q) {
        const Pose X1 = random_pose(rng, 2.0), X2 = random_pose(rng, 4.0);
        const ContactResult ref = solve_contact(a, X1, b, X2);
        ASSERT_TRUE(ref.ok());
        for (double s : {1e-3, 0.1, 7.0, 1e3}) {
          Pose Y1 = X1, Y2 = X2;
          Y1.p *= s;
          Y2.p *= s;
          const ContactResult r = solve_contact(scaled(a, s), Y1, scaled(b, s), Y2);
          ASSERT_TRUE(r.ok()) << names[i] << "-" << names[j] << " s = " << s;
          EXPECT_NEAR(r.alpha, ref.alpha, 1e-9 * std::max(1.0, ref.alpha)) << names[i] << "-" << names[j] << " s " << s;
          EXPECT_LT((r.x_W / s - ref.x_W).norm(), 1e-8 * std::max(1.0, ref.x_W.norm()))
              << names[i] << "-" << names[j] << " s " << s;
        }
      }
    }
}

TEST(DcolInvariance, BodyOffsetEqualsComposedPose) {
  std::mt19937 rng(7);
  const Pose offset = make_pose(random_rotation(rng), Vec3(0.1, -0.2, 0.3));
  const Primitive mounted = Cone(2.0, 0.4, offset), plain = Cone(2.0, 0.4);
  const Primitive other = Ellipsoid::from_semi_axes(0.5, 1.0, 1.5);
  for (int q = 0; q < 20; ++q) {
    const Pose XB = random_pose(rng, 2.0), X2 = random_pose(rng, 4.0);
    const ContactResult a = solve_contact(mounted, XB, other, X2), b = solve_contact(plain, XB * offset, other, X2);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NEAR(a.alpha, b.alpha, 1e-12 * std::max(1.0, a.alpha));
    EXPECT_LT((a.x_W - b.x_W).norm(), 1e-9);
  }
}

TEST(DcolPolish, PlainInteriorPointAgreesWithPolished) {
  // The polish (exact KKT Newton on the active set) and the plain interior-point solve are two
  // routes to the same optimum: α must agree to the interior-point tolerance; and a polished
  // solution must satisfy the membership of x* to rounding.
  std::mt19937 rng(8);
  const char* const* names = benchmark_primitive_names();
  SolveOptions plain;
  plain.polish = false;
  for (int i = 0; i < kNumPrimitiveTypes; ++i)
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      for (int q = 0; q < 10; ++q) {
        const Pose X1 = random_pose(rng, 2.0), X2 = random_pose(rng, 4.0);
        const ContactResult pol = solve_contact(a, X1, b, X2), ipm = solve_contact(a, X1, b, X2, plain);
        ASSERT_TRUE(pol.ok() && ipm.ok()) << names[i] << "-" << names[j];
        EXPECT_FALSE(ipm.kkt.polished);
        EXPECT_NEAR(pol.alpha, ipm.alpha, 1e-9 * std::max(1.0, pol.alpha)) << names[i] << "-" << names[j];
        if (pol.kkt.polished) {
          EXPECT_LT(std::abs(membership_violation(a, X1, pol.x_W, pol.alpha)), 1e-12 * std::max(1.0, pol.alpha));
          EXPECT_LT(std::abs(membership_violation(b, X2, pol.x_W, pol.alpha)), 1e-12 * std::max(1.0, pol.alpha));
        }
      }
    }
}

TEST(DcolDirectNewton, SmoothPairsMatchTheInteriorPointRoute) {
  // Sphere/ellipsoid pairs start Newton's method on the exact KKT conditions from a geometric guess
  // (SolveOptions::direct_newton); with it off they reach the same KKT point through the
  // interior-point iterations and the polish. Same α, x*, derivatives; most solves need no IPM
  // iteration. Includes elongated, rotated ellipsoids and near-touching / deeply penetrating poses.
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> U(0.2, 3.0);
  SolveOptions via_ipm;
  via_ipm.direct_newton = false;
  int direct = 0, total = 0;
  for (int q = 0; q < 300; ++q) {
    const Primitive a = q % 3 == 0 ? Primitive(dcol::Sphere(U(rng))) : Primitive(Ellipsoid::from_semi_axes(U(rng), U(rng), U(rng)));
    const Primitive b = q % 5 == 0 ? Primitive(dcol::Sphere(U(rng))) : Primitive(Ellipsoid::from_semi_axes(U(rng), U(rng), U(rng)));
    const Pose X1 = random_pose(rng, 2.0), X2 = random_pose(rng, 0.05 + 6.0 * (q % 7) / 6.0);
    const ContactResult d = solve_contact(a, X1, b, X2), r = solve_contact(a, X1, b, X2, via_ipm);
    if (r.status == diffcol::SolveStatus::coincident_origins) continue;
    ASSERT_TRUE(d.ok() && r.ok()) << q;
    ASSERT_TRUE(d.kkt.polished) << q;
    ++total;
    direct += d.iterations == 0;
    expect_same_solution(d, r, 1e-11, 1e-9, 1e-7, std::to_string(q));
  }
  std::printf("direct Newton: %d of %d smooth-pair solves without interior-point iterations\n", direct, total);
  EXPECT_GE(direct, total * 8 / 10);
}

TEST(DcolRayCastStart, EveryPairMatchesTheInteriorPointRoute) {
  // Pairs with a polytope, capsule, cylinder, cone or padded polygon start Newton's method from a
  // ray cast on the shapes' support functions (SolveOptions::direct_newton); with it off the
  // interior-point iterations and the polish reach the same KKT point. Same α, x*, derivatives;
  // the benchmark primitives, random polytopes and an asymmetric padded pentagon, at random
  // poses from deep penetration to far apart.
  std::mt19937 rng(22);
  SolveOptions via_ipm;
  via_ipm.direct_newton = false;
  std::vector<Primitive> shapes;
  const char* const* names = benchmark_primitive_names();
  for (int i = 0; i < kNumPrimitiveTypes; ++i) shapes.push_back(benchmark_primitive(names[i]));
  shapes.push_back(random_polytope(rng, 7));
  shapes.push_back(random_polytope(rng, 12));
  shapes.push_back(asymmetric_pentagon(1.0, 0.15));
  // a general ellipsoid (non-diagonal P, so a full Cholesky factor: the ellipsoid–polytope start
  // maps through it) mounted with an offset
  shapes.push_back(Ellipsoid(Eigen::Matrix3d{{2.0, 0.3, 0.1}, {0.3, 1.0, -0.2}, {0.1, -0.2, 4.0}},
                             Pose::from_rotation(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix(),
                                                 Vec3(0.1, -0.2, 0.05))));
  int direct = 0, total = 0;
  for (size_t i = 0; i < shapes.size(); ++i)
    for (size_t j = 0; j < shapes.size(); ++j)
      for (int q = 0; q < 25; ++q) {
        const Pose X1 = random_pose(rng, 2.0), X2 = random_pose(rng, 0.05 + 6.0 * (q % 7) / 6.0);
        const ContactResult dr = solve_contact(shapes[i], X1, shapes[j], X2);
        const ContactResult ir = solve_contact(shapes[i], X1, shapes[j], X2, via_ipm);
        if (ir.status == diffcol::SolveStatus::coincident_origins) continue;
        ASSERT_TRUE(dr.ok() && ir.ok()) << i << "-" << j << " " << q;
        ++total;
        direct += dr.iterations == 0;
        const std::string at = std::to_string(i) + "-" + std::to_string(j) + " pose " + std::to_string(q);
        EXPECT_NEAR(dr.alpha, ir.alpha, 1e-9 * std::max(1.0, ir.alpha)) << at;  // also when x* is not unique
        EXPECT_LT(membership_violation(shapes[i], X1 * primitive_offset(shapes[i]), dr.x_W, dr.alpha), 1e-8) << at;
        EXPECT_LT(membership_violation(shapes[j], X2 * primitive_offset(shapes[j]), dr.x_W, dr.alpha), 1e-8) << at;
        if (!dr.kkt.polished || !ir.kkt.polished) continue;  // x* not unique (e.g. face against face)
        expect_same_solution(dr, ir, 1e-9, 1e-7, 1e-6, at);
      }
  std::printf("ray-cast start: %d of %d solves without interior-point iterations\n", direct, total);
  EXPECT_GE(direct, total * 9 / 10);
}

TEST(DcolExactStart, EllipsoidAgainstAPolygonOfMaximalSize) {
  // The support-function start writes one piece per polygon vertex into fixed storage: a polygon
  // with kMaxPolygonEdges edges (the largest accepted) against an ellipsoid, both body orders,
  // must solve (under ASan in the sanitized build: no write past the storage) and agree with the
  // interior-point route.
  Eigen::MatrixX2d C(kMaxPolygonEdges, 2);
  Eigen::VectorXd d(kMaxPolygonEdges);
  for (int i = 0; i < kMaxPolygonEdges; ++i) {
    const double a = 2.0 * M_PI * i / kMaxPolygonEdges + 0.1;
    C.row(i) << std::cos(a), std::sin(a);
    d[i] = 0.5;  // a regular polygon: every edge is on the boundary
  }
  const PaddedPolygon poly(C, d, 0.05);
  ASSERT_EQ(poly.num_vertices, kMaxPolygonEdges);
  const Ellipsoid ell(Eigen::Matrix3d{{2.0, 0.3, 0.1}, {0.3, 1.0, -0.2}, {0.1, -0.2, 4.0}});
  SolveOptions via_ipm;
  via_ipm.direct_newton = false;
  std::mt19937 rng(5);
  int exact = 0;
  for (int q = 0; q < 200; ++q) {
    const Pose X1 = random_pose(rng, 2.0), X2 = random_pose(rng, 2.0);
    for (int order = 0; order < 2; ++order) {
      const Primitive a = order ? Primitive(poly) : Primitive(ell), b = order ? Primitive(ell) : Primitive(poly);
      const ContactResult r = solve_contact(a, X1, b, X2), ref = solve_contact(a, X1, b, X2, via_ipm);
      ASSERT_TRUE(r.ok() && ref.ok());
      EXPECT_NEAR(r.alpha, ref.alpha, 1e-8 * ref.alpha);
      exact += r.start == StartMethod::exact;
    }
  }
  EXPECT_GE(exact, 390);
}

TEST(DcolExactStart, TakenByTheDocumentedPairs) {
  // SolveOptions::direct_newton starts some pairs at their exact touching point
  // (ContactResult::start == exact, docs/dcol.md): a sphere, capsule or padded polygon against
  // each other (not two spheres: a closed form), against a polytope, a cylinder or a cone; an
  // ellipsoid against a polytope (through the map that makes it a ball), a capsule, a padded
  // polygon, a cylinder or a cone (a minimum of the support function over directions); a cylinder
  // or cone against a cylinder, cone or padded polygon, a cylinder against a polytope (the same
  // minimum, two max structures). A start
  // that fails falls back to the ray cast with the same result, so this checks that the exact start is taken:
  // at ≥ 97% of random poses for those pairs, never for the others.
  std::mt19937 rng(31);
  std::vector<Primitive> shapes;
  const char* const* names = benchmark_primitive_names();
  for (int i = 0; i < kNumPrimitiveTypes; ++i) shapes.push_back(benchmark_primitive(names[i]));
  shapes.push_back(Ellipsoid(Eigen::Matrix3d{{2.0, 0.3, 0.1}, {0.3, 1.0, -0.2}, {0.1, -0.2, 4.0}}));
  shapes.push_back(random_polytope(rng, 10));
  const auto kind = [](const Primitive& p) { return primitive_type_name(primitive_type(p)); };
  const auto is = [&](const Primitive& p, std::initializer_list<const char*> types) {
    for (const char* t : types)
      if (std::string(kind(p)) == t) return true;
    return false;
  };
  for (const Primitive& a : shapes)
    for (const Primitive& b : shapes) {
      const bool ball_a = is(a, {"sphere", "capsule", "padded_polygon"}), ball_b = is(b, {"sphere", "capsule", "padded_polygon"});
      const bool exact = (ball_a && ball_b && !(is(a, {"sphere"}) && is(b, {"sphere"}))) ||
                         (ball_a && is(b, {"polytope", "cylinder", "cone"})) || (ball_b && is(a, {"polytope", "cylinder", "cone"})) ||
                         (is(a, {"ellipsoid"}) && is(b, {"polytope", "capsule", "padded_polygon", "cylinder", "cone"})) ||
                         (is(a, {"polytope", "capsule", "padded_polygon", "cylinder", "cone"}) && is(b, {"ellipsoid"})) ||
                         (is(a, {"cylinder", "cone"}) && is(b, {"cylinder", "cone"})) ||
                         (is(a, {"cylinder"}) && is(b, {"polytope"})) || (is(a, {"polytope"}) && is(b, {"cylinder"}));
      int taken = 0, total = 0;
      for (int q = 0; q < 200; ++q) {
        const Pose X1 = random_pose(rng, 2.0), X2 = random_pose(rng, 0.05 + 6.0 * (q % 7) / 6.0);
        const ContactResult r = solve_contact(a, X1, b, X2);
        if (r.status == SolveStatus::coincident_origins) continue;
        ASSERT_TRUE(r.ok());
        ++total;
        taken += r.start == StartMethod::exact;
      }
      const std::string at = std::string(kind(a)) + "-" + kind(b);
      if (exact) {
        EXPECT_GE(taken, total * 97 / 100) << at;
      } else {
        EXPECT_EQ(taken, 0) << at;
      }
    }
}

TEST(DcolSupport, SupportPointsAreInsideAndMaximal) {
  // support(d) must lie in the primitive and reach at least as far along d as any point of it:
  // checked against 4000 points sampled in each primitive (rejection sampling in the bounding
  // ball with the membership test above).
  std::mt19937 rng(23);
  std::vector<Primitive> shapes;
  const char* const* names = benchmark_primitive_names();
  for (int i = 0; i < kNumPrimitiveTypes; ++i) shapes.push_back(benchmark_primitive(names[i]));
  shapes.push_back(random_polytope(rng, 9));
  shapes.push_back(asymmetric_triangle(1.0, 0.1));
  shapes.push_back(Ellipsoid(Eigen::Matrix3d{{2.0, 0.3, 0.1}, {0.3, 1.0, -0.2}, {0.1, -0.2, 4.0}}));
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (const Primitive& p : shapes) {
    const double R = outer_radius(p);
    std::vector<Vec3> inside;
    while (inside.size() < 4000) {
      const Vec3 y(R * U(rng), R * U(rng), R * U(rng));
      if (membership_violation(p, Pose::identity(), y, 1.0) <= 0.0) inside.push_back(y);
    }
    for (int q = 0; q < 300; ++q) {
      const Vec3 dir = random_unit(rng) * (0.1 + 3.0 * (U(rng) + 1.0));
      const Vec3 s = std::visit([&](const auto& v) { return v.support(dir); }, p);
      EXPECT_LE(membership_violation(p, Pose::identity(), s, 1.0), 1e-12 * R) << primitive_type_name(primitive_type(p));
      double best = -1e300;
      for (const Vec3& y : inside) best = std::max(best, dir.dot(y));
      EXPECT_GE(dir.dot(s), best - 1e-12 * R * dir.norm()) << primitive_type_name(primitive_type(p));
    }
    const Vec3 zero = std::visit([&](const auto& v) { return v.support(Vec3::Zero()); }, p);
    EXPECT_EQ(zero, Vec3::Zero());
  }
}

// ------------------------------------------------------------------------------ bad input

TEST(DcolInput, ConstructorsRejectBadInput) {
  const double nan = diffcol::test::kNaN, inf = diffcol::test::kInf;
  EXPECT_THROW(dcol::Sphere(0.0), std::invalid_argument);
  EXPECT_THROW(dcol::Sphere{nan}, std::invalid_argument);
  EXPECT_THROW(Capsule(-1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(Capsule(1.0, inf), std::invalid_argument);
  EXPECT_THROW(Cylinder(1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(Cone(1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(Cone(1.0, M_PI / 2), std::invalid_argument);
  // sizes and vertices beyond kMaxLength (1e100): their radii were inf
  EXPECT_THROW(Capsule(1.0, 2e100), std::invalid_argument);
  EXPECT_THROW(dcol::Polytope::box(2e100, 0.5, 0.5), std::invalid_argument);
  EXPECT_THROW(dcol::Polytope::box(9e99, 9e99, 0.5), std::invalid_argument);  // corner at 1.3e100
  EXPECT_THROW(dcol::PaddedPolygon::rectangle(9e99, 9e99, 0.2), std::invalid_argument);
  EXPECT_NO_THROW(dcol::Polytope::box(5e99, 0.5, 0.5));
  EXPECT_THROW(Ellipsoid(-Mat3::Identity()), std::invalid_argument);
  EXPECT_THROW(Ellipsoid::from_semi_axes(1.0, 0.0, 1.0), std::invalid_argument);
  Mat3 P = Mat3::Identity();
  P(0, 1) = 0.5;  // not symmetric
  EXPECT_THROW(Ellipsoid{P}, std::invalid_argument);
  EXPECT_THROW(Polytope::box(1.0, -1.0, 1.0), std::invalid_argument);
  // unbounded: a half-space slab missing the -z face
  Eigen::MatrixX3d A(5, 3);
  A << 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1;
  EXPECT_THROW(Polytope(A, Eigen::VectorXd::Ones(5)), std::invalid_argument);
  // unbounded: every normal along ±x (rank 1, no extreme ray of the form a_i × a_j)
  Eigen::MatrixX3d A1(4, 3);
  A1 << 1, 0, 0, -1, 0, 0, 2, 0, 0, -3, 0, 0;
  EXPECT_THROW(Polytope(A1, Eigen::VectorXd::Ones(4)), std::invalid_argument);
  Eigen::MatrixX2d C1(3, 2);
  C1 << 1, 0, -1, 0, 2, 0;
  EXPECT_THROW(PaddedPolygon(C1, Eigen::VectorXd::Ones(3), 0.1), std::invalid_argument);
  // unbounded although the normals span R³: a pyramid open downwards
  Eigen::MatrixX3d B(4, 3);
  B << 1, 0, 1, -1, 0, 1, 0, 1, 1, 0, -1, 1;
  EXPECT_THROW(Polytope(B, Eigen::VectorXd::Ones(4)), std::invalid_argument);
  Eigen::MatrixX3d C6(6, 3);
  C6 << 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1;
  Eigen::VectorXd b6 = Eigen::VectorXd::Ones(6);
  b6[2] = 0.0;  // origin on the boundary
  EXPECT_THROW(Polytope(C6, b6), std::invalid_argument);
  EXPECT_THROW(Polytope(C6, Eigen::VectorXd::Ones(5)), std::invalid_argument);
  Eigen::MatrixX3d big = Eigen::MatrixX3d::Random(kMaxPolytopeFaces + 1, 3);
  EXPECT_THROW(Polytope(big, Eigen::VectorXd::Ones(kMaxPolytopeFaces + 1)), std::invalid_argument);
  C6(0, 0) = nan;
  EXPECT_THROW(Polytope(C6, Eigen::VectorXd::Ones(6)), std::invalid_argument);
  Eigen::MatrixX2d C2(3, 2);
  C2 << 1, 0, -1, 0, 0, 1;  // open in -y
  EXPECT_THROW(PaddedPolygon(C2, Eigen::VectorXd::Ones(3), 0.1), std::invalid_argument);
  EXPECT_THROW(PaddedPolygon::rectangle(1.0, 1.0, 0.0), std::invalid_argument);
  Pose bad = Pose::identity();
  bad.R(0, 0) = 2.0;
  EXPECT_THROW(dcol::Sphere(1.0, bad), std::invalid_argument);
  EXPECT_THROW(make_primitive("sphere", {{"radius", 1.0}}), std::invalid_argument);
  EXPECT_THROW(make_primitive("torus", {{"R", 1.0}}), std::invalid_argument);
  EXPECT_THROW(benchmark_primitive("torus"), std::invalid_argument);
  EXPECT_NO_THROW(make_primitive("cone", {{"H", 2.0}, {"beta", 0.5}}));
}

TEST(DcolInput, NonFinitePosesGiveAStatus) {
  const Primitive a = benchmark_primitive("capsule");
  Pose bad = Pose::identity();
  bad.p.y() = diffcol::test::kInf;
  const ContactResult r = solve_contact(a, Pose::identity(), a, bad);
  EXPECT_EQ(r.status, SolveStatus::invalid_input);
  EXPECT_EQ(r.alpha, 0.0);
  EXPECT_TRUE(r.x_W.allFinite() && r.p1_W.allFinite());
  const ContactResult far = solve_contact(a, Pose::identity(), a, make_pose(Mat3::Identity(), Vec3(1e200, 0, 0)));
  EXPECT_EQ(far.status, SolveStatus::invalid_input);
}

// ------------------------------------------------------------------------------ symmetric poses

// Axis-aligned poses (identity or quarter-turn rotations, offsets along the axes) make the
// search direction of the interior point exactly symmetric: a step can head straight for a cone
// apex, where the step-length quadratic has a double root that rounding may hide. Each such
// solve must converge, and α must be continuous: equal to the α of a slightly perturbed pose.
TEST(DcolDegenerate, AxisAlignedPosesSolveAndAreContinuous) {
  const char* const* names = benchmark_primitive_names();
  const Mat3 quarter[4] = {Mat3::Identity(), so3_exp(Vec3(M_PI / 2, 0, 0)), so3_exp(Vec3(0, M_PI / 2, 0)),
                           so3_exp(Vec3(0, 0, M_PI / 2))};
  const Vec3 axes[6] = {Vec3::UnitX(), -Vec3::UnitX(), Vec3::UnitY(), -Vec3::UnitY(), Vec3::UnitZ(), -Vec3::UnitZ()};
  const Vec3 wobble(1e-7, -2e-7, 1.5e-7);
  ContactResult res, near;
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      const double reach = outer_radius(a) + outer_radius(b);
      int failures = 0;
      for (const Mat3& R : quarter) {
        for (const Vec3& e : axes) {
          for (double f : {0.3, 1.0, 2.5}) {
            const Pose X2 = make_pose(R, f * reach * e);
            solve_contact(a, Pose::identity(), b, X2, res);
            solve_contact(a, Pose::identity(), b, make_pose(so3_exp(wobble) * R, X2.p + wobble), near);
            const bool ok = res.status == SolveStatus::ok && near.status == SolveStatus::ok &&
                            std::abs(res.alpha - near.alpha) <= 1e-5 * std::max(1.0, near.alpha);
            if (!ok && ++failures <= 2)
              ADD_FAILURE() << names[i] << "-" << names[j] << " offset " << (f * reach * e).transpose()
                            << ": status " << status_name(res.status) << ", alpha " << res.alpha
                            << " vs perturbed " << near.alpha << " (" << status_name(near.status) << ")";
          }
        }
      }
      EXPECT_EQ(failures, 0) << names[i] << "-" << names[j];
    }
  }
}

// ------------------------------------------------------------------------------ ergodic sweep

idcol::ErgodicSweep sweep_for(const Primitive& a, const Primitive& b) {
  idcol::ErgodicSweep e;
  e.rmin = 0.1 * std::min(inner_radius(a), inner_radius(b));
  e.rmax = 2.0 * std::max(outer_radius(a), outer_radius(b));
  return e;
}

TEST(DcolErgodic, EveryOrderedPairSolves) {
  const long n = ergodic_poses();
  const char* const* names = benchmark_primitive_names();
  ContactResult res;
  long total_iterations = 0, total = 0, total_polished = 0;
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      const auto sweep = sweep_for(a, b);
      long failures = 0, max_it = 0, sum_it = 0, polished = 0;
      double worst_violation = 0.0;
      for (long q = 0; q < n; ++q) {
        const Pose X2 = sweep.pose(q);
        solve_contact(a, Pose::identity(), b, X2, res);
        if (res.status != SolveStatus::ok) {
          if (failures < 3)
            ADD_FAILURE() << names[i] << "-" << names[j] << " pose " << q << ": " << status_name(res.status)
                          << " after " << res.iterations << " iterations (pres " << res.primal_residual
                          << ", dres " << res.dual_residual << ", mu " << res.duality_measure << ")";
          ++failures;
          continue;
        }
        polished += res.kkt.polished;
        max_it = std::max<long>(max_it, res.iterations);
        sum_it += res.iterations;
        const double scale = std::max(1.0, res.alpha);
        worst_violation = std::max({worst_violation,
                                    membership_violation(a, Pose::identity(), res.x_W, res.alpha) / scale,
                                    membership_violation(b, X2, res.x_W, res.alpha) / scale});
      }
      EXPECT_EQ(failures, 0) << names[i] << "-" << names[j];
      if (!(worst_violation < 1e-8))
        ADD_FAILURE() << names[i] << "-" << names[j] << ": x* outside the scaled shapes by " << worst_violation;
      total_iterations += sum_it;
      total += n;
      total_polished += polished;
      std::printf("%-15s %-15s  mean it %.2f  max it %ld  worst violation %.2g  polished %.4f\n", names[i], names[j],
                  static_cast<double>(sum_it) / static_cast<double>(n), max_it, worst_violation,
                  static_cast<double>(polished) / static_cast<double>(n));
    }
  }
  std::printf("all pairs: %ld solves, mean iterations %.2f, polished %ld\n", total,
              static_cast<double>(total_iterations) / static_cast<double>(total), total_polished);
}

}  // namespace
