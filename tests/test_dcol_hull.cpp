// Convex hulls (Polytope::convex_hull, Qhull) and polytopes above the inline capacity
// (kInlinePolytopeFaces < m ≤ kMaxPolytopeFaces): the hull against brute force over the input
// points, and α* of hulls of 100 to 2,000 points against every DCOL primitive, checked against
// references written in this file: for two polytopes an LP (a simplex method on the dual, below),
// for the other primitives a primal–dual sandwich α_low ≤ α* ≤ α_up from weak duality (support
// functions: the hull's by brute force over its input points, closed forms for the others) and
// from membership of the witness point in both scaled shapes.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"

#include "dcol_test_util.hpp"

namespace {

using namespace diffcol;
using namespace diffcol::dcol;
using diffcol::dcol_test::membership_violation;
using diffcol::dcol_test::polygon_vertices;
using diffcol::dcol_test::random_pose;
using diffcol::test::make_pose;
using diffcol::test::random_unit;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<Vec3> sphere_points(std::mt19937& rng, int n, double radius) {
  std::vector<Vec3> p;
  for (int i = 0; i < n; ++i) p.push_back(radius * random_unit(rng));
  return p;
}

std::vector<Vec3> box_points(std::mt19937& rng, int n, const Vec3& half) {
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::vector<Vec3> p;
  for (int i = 0; i < n; ++i) p.emplace_back(half.x() * U(rng), half.y() * U(rng), half.z() * U(rng));
  return p;
}

/// Hull against the points: every point inside every face (to tol), every face touched by a point,
/// every point that is a vertex of the brute-force hull (a point strictly outside the hull of the
/// others is on some face) on a face, and the faces distinct.
void expect_hull_of(const Polytope& P, const std::vector<Vec3>& pts, double tol) {
  ASSERT_GE(P.num_faces, 4);
  for (int i = 0; i < P.num_faces; ++i) {
    const Vec3 a = P.normal(i);
    const double b = P.face_offset(i);
    EXPECT_NEAR(a.norm(), 1.0, 1e-12);
    double hi = -1e300;
    for (const Vec3& p : pts) hi = std::max(hi, a.dot(p) - b);
    EXPECT_LE(hi, tol) << "face " << i << ": a point lies outside";
    EXPECT_GE(hi, -tol) << "face " << i << ": no point on it (not a supporting plane)";
  }
  for (int i = 0; i < P.num_faces; ++i)
    for (int j = i + 1; j < P.num_faces; ++j)
      EXPECT_FALSE((P.normal(i) - P.normal(j)).norm() < 1e-9 && std::abs(P.face_offset(i) - P.face_offset(j)) < tol)
          << "faces " << i << " and " << j << " are the same plane";
  // every direction's extreme point is on a face: the hull's support equals the points' support
  std::mt19937 rng(5);
  for (int t = 0; t < 200; ++t) {
    const Vec3 u = random_unit(rng);
    double hp = -1e300;
    for (const Vec3& p : pts) hp = std::max(hp, u.dot(p));
    EXPECT_NEAR(u.dot(P.support(u)), hp, tol);
  }
}

// ------------------------------------------------------------------ independent references

/// min α over (p, α) subject to G (p, α) ≤ h (rows (a, −b): aᵀp ≤ α b + h), by the simplex method
/// on the dual: max −hᵀz subject to Gᵀz = −e_α, z ≥ 0 (four equality rows; phase 1 with four
/// artificial columns, Bland's rule). Dense, O(m) per pivot.
double lp_min_alpha(const Eigen::Matrix<double, Eigen::Dynamic, 4>& G, const Eigen::VectorXd& h) {
  const int m = static_cast<int>(G.rows());
  // columns: z_0..z_{m−1}, then the artificials a_0..a_3; equality rows E z = r with r ≥ 0
  Eigen::Matrix<double, 4, Eigen::Dynamic> E(4, m + 4);
  E.leftCols(m) = G.transpose();
  E.row(3) *= -1.0;  // the α row: Σ b_i z_i = 1
  E.rightCols(4).setIdentity();
  const Eigen::Vector4d r(0.0, 0.0, 0.0, 1.0);
  int basis[4] = {m, m + 1, m + 2, m + 3};
  const auto solve_phase = [&](const Eigen::VectorXd& cost, int allowed) {
    for (int it = 0; it < 100000; ++it) {
      Eigen::Matrix4d B;
      Eigen::Vector4d cb;
      for (int j = 0; j < 4; ++j) B.col(j) = E.col(basis[j]), cb[j] = cost[basis[j]];
      const Eigen::PartialPivLU<Eigen::Matrix4d> lu(B);
      const Eigen::Vector4d xb = lu.solve(r);
      const Eigen::Vector4d y = lu.transpose().solve(cb);
      int enter = -1;
      for (int j = 0; j < allowed && enter < 0; ++j) {  // Bland: the lowest index with a negative reduced cost
        bool in = false;
        for (int q = 0; q < 4; ++q) in = in || basis[q] == j;
        if (!in && cost[j] - y.dot(E.col(j)) < -1e-13) enter = j;
      }
      if (enter < 0) return true;
      const Eigen::Vector4d d = lu.solve(E.col(enter));
      int leave = -1;
      double best = 1e300;
      for (int q = 0; q < 4; ++q)
        if (d[q] > 1e-13) {
          const double t = std::max(0.0, xb[q]) / d[q];
          if (t < best - 1e-15 || (std::abs(t - best) <= 1e-15 && basis[q] < basis[leave])) best = t, leave = q;
        }
      if (leave < 0) return false;  // unbounded
      basis[leave] = enter;
    }
    return false;
  };
  Eigen::VectorXd c1 = Eigen::VectorXd::Zero(m + 4);
  c1.tail(4).setOnes();
  if (!solve_phase(c1, m + 4)) return kNaN;
  for (int q = 0; q < 4; ++q)
    if (basis[q] >= m) return kNaN;  // (an artificial left in the basis: not expected here)
  Eigen::VectorXd c2 = Eigen::VectorXd::Zero(m + 4);
  c2.head(m) = h;
  if (!solve_phase(c2, m)) return kNaN;
  Eigen::Matrix4d B;
  for (int j = 0; j < 4; ++j) B.col(j) = E.col(basis[j]);
  const Eigen::Vector4d zb = B.partialPivLu().solve(r);
  double val = 0.0;
  for (int j = 0; j < 4; ++j) val += h[basis[j]] * zb[j];
  return -val;  // α* = max −hᵀz
}

/// The LP α* of two polytopes (rows from the polytopes' normals and offsets, positions relative to r_1).
double lp_alpha(const Polytope& P1, const Pose& X1, const Polytope& P2, const Pose& X2) {
  Eigen::Matrix<double, Eigen::Dynamic, 4> G(P1.num_faces + P2.num_faces, 4);
  Eigen::VectorXd h(G.rows());
  int row = 0;
  for (const auto& [P, X] : {std::pair<const Polytope*, Pose>{&P1, X1}, {&P2, X2}})
    for (int i = 0; i < P->num_faces; ++i, ++row) {
      const Vec3 a = X.R * P->normal(i);
      G.row(row) << a.x(), a.y(), a.z(), -P->face_offset(i);
      h[row] = a.dot(X.p - X1.p);
    }
  return lp_min_alpha(G, h);
}

/// Support function h(u) = max uᵀ(R y) over a primitive (world axes, about its origin), written
/// from the definitions: the hull's input points by brute force, closed forms for the others.
double support_ref(const Primitive& shape, const std::vector<Vec3>* hull_points, const Mat3& R, const Vec3& u_W) {
  const Vec3 u = R.transpose() * u_W;
  if (hull_points) {
    double h = -1e300;
    for (const Vec3& p : *hull_points) h = std::max(h, u.dot(p));
    return h;
  }
  const double radial = std::hypot(u.y(), u.z());
  return std::visit(
      [&](const auto& s) -> double {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, dcol::Sphere>) {
          return s.R * u.norm();
        } else if constexpr (std::is_same_v<T, Capsule>) {
          return s.R * u.norm() + 0.5 * s.L * std::abs(u.x());
        } else if constexpr (std::is_same_v<T, Cylinder>) {
          return s.R * radial + 0.5 * s.L * std::abs(u.x());
        } else if constexpr (std::is_same_v<T, Cone>) {
          return std::max(-0.75 * s.H * u.x(), 0.25 * s.H * u.x() + s.H * s.tan_beta * radial);
        } else if constexpr (std::is_same_v<T, Ellipsoid>) {
          return std::sqrt(u.dot(s.P.inverse() * u));
        } else if constexpr (std::is_same_v<T, PaddedPolygon>) {
          double h = -1e300;
          for (const auto& v : polygon_vertices(s)) h = std::max(h, u.x() * v.x() + u.y() * v.y());
          return h + s.R * u.norm();
        } else {
          ADD_FAILURE() << "polytopes take the LP";
          return kNaN;
        }
      },
      shape);
}

/// The other primitives, mid-sized against a hull of radius ~1.
std::vector<std::pair<std::string, Primitive>> partners() {
  Eigen::Matrix3d P = Eigen::Vector3d(1.0 / 0.36, 1.0 / 0.64, 1.0).asDiagonal();
  return {{"sphere", dcol::Sphere(0.7)},
          {"capsule", Capsule(0.3, 1.2)},
          {"cylinder", Cylinder(0.4, 1.0)},
          {"cone", Cone(1.2, 0.5)},
          {"ellipsoid", Ellipsoid(P)},
          {"padded_polygon", PaddedPolygon::rectangle(0.6, 0.4, 0.1)},
          {"box", Polytope::box(0.5, 0.3, 0.4)}};
}

struct HullCase {
  std::string name;
  std::vector<Vec3> points;
};

std::vector<HullCase> hull_cases() {
  std::mt19937 rng(2024);
  std::vector<HullCase> c;
  for (int n : {100, 1000, 2000}) c.push_back({"sphere" + std::to_string(n), sphere_points(rng, n, 1.0)});
  for (int n : {100, 1000, 4000}) c.push_back({"box" + std::to_string(n), box_points(rng, n, Vec3(1.0, 0.6, 0.8))});
  // degenerate vertices and large faces: a 40-gon prism (42 faces, a 40-gon on each cap) and a
  // 40-gon pyramid (40 faces meet at the apex)
  HullCase prism{"prism40", {}}, pyramid{"pyramid40", {{0.0, 0.0, 1.0}}};
  for (int i = 0; i < 40; ++i) {
    const double t = 2.0 * M_PI * i / 40.0;
    prism.points.emplace_back(std::cos(t), 0.8 * std::sin(t), 0.7);
    prism.points.emplace_back(std::cos(t), 0.8 * std::sin(t), -0.7);
    pyramid.points.emplace_back(0.9 * std::cos(t), 0.9 * std::sin(t), -0.5);
  }
  c.push_back(prism);
  c.push_back(pyramid);
  return c;
}

// ------------------------------------------------------------------ tests

TEST(DcolHull, CubeCornersGiveSixFaces) {
  std::vector<Vec3> c;
  for (int i = 0; i < 8; ++i) c.emplace_back(i & 1 ? 1.0 : -1.0, i & 2 ? 0.5 : -0.5, i & 4 ? 2.0 : -2.0);
  const Polytope P = Polytope::convex_hull(c);
  EXPECT_EQ(P.num_faces, 6);
  EXPECT_EQ(P.num_vertices, 8);
  EXPECT_FALSE(P.is_large());
  expect_hull_of(P, c, 1e-12);
  // a 7×7 grid on each face of the cube: 218 points, still six faces and eight vertices
  std::vector<Vec3> g;
  for (int a = 0; a < 7; ++a)
    for (int b = 0; b < 7; ++b)
      for (int d = 0; d < 7; ++d)
        if (a == 0 || a == 6 || b == 0 || b == 6 || d == 0 || d == 6) g.emplace_back(a / 3.0 - 1, b / 3.0 - 1, d / 3.0 - 1);
  const Polytope Q = Polytope::convex_hull(g);
  EXPECT_EQ(Q.num_faces, 6);
  EXPECT_EQ(Q.num_vertices, 8);
  expect_hull_of(Q, g, 1e-12);
  // the box against its own hull: the same α* for random poses
  const Polytope B = Polytope::box(1.0, 1.0, 1.0);
  std::mt19937 rng(3);
  for (int t = 0; t < 50; ++t) {
    const Pose X1 = random_pose(rng, 4.0), X2 = random_pose(rng, 4.0);
    const Polytope other = Polytope::box(0.3, 0.5, 0.2);
    const ContactResult a = solve_contact(B, X1, other, X2), b = solve_contact(Q, X1, other, X2);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NEAR(a.alpha, b.alpha, 1e-12 * a.alpha);
  }
}

TEST(DcolHull, HullsMatchBruteForceAndTheFaceData) {
  for (const HullCase& hc : hull_cases()) {
    SCOPED_TRACE(hc.name);
    const Polytope P = Polytope::convex_hull(hc.points);
    expect_hull_of(P, hc.points, 1e-10);
    EXPECT_EQ(P.is_large(), P.num_faces > kInlinePolytopeFaces);
    // the vertices: each is one of the input points (to rounding) and lies on ≥ 3 faces
    for (int v = 0; v < P.num_vertices; ++v) {
      double dmin = 1e300;
      for (const Vec3& p : hc.points) dmin = std::min(dmin, (p - P.vertex(v)).norm());
      EXPECT_LE(dmin, 1e-10) << "vertex " << v;
    }
    // face k's vertex list: the vertices on its plane, counter-clockwise about its normal
    for (int k = 0; k < P.num_faces; ++k) {
      const int f0 = P.face_begin(k), c = P.face_begin(k + 1) - f0;
      ASSERT_GE(c, 3) << "face " << k;
      int on = 0;
      for (int v = 0; v < P.num_vertices; ++v) on += std::abs(P.normal(k).dot(P.vertex(v)) - P.face_offset(k)) <= 1e-10;
      EXPECT_EQ(on, c) << "face " << k;
      Vec3 centre = Vec3::Zero();
      for (int a = 0; a < c; ++a) centre += P.vertex(P.face_vertex(f0 + a));
      centre /= c;
      for (int a = 0; a < c; ++a) {
        const Vec3 p = P.vertex(P.face_vertex(f0 + a)), q = P.vertex(P.face_vertex(f0 + (a + 1) % c));
        EXPECT_GT((p - centre).cross(q - centre).dot(P.normal(k)), 0.0) << "face " << k;
      }
    }
    // the (A, b) constructor rebuilds the same polytope
    if (P.is_large()) {
      const Polytope R(P.large->A, P.large->b);
      EXPECT_EQ(R.num_vertices, P.num_vertices);
      EXPECT_NEAR(R.outer_radius, P.outer_radius, 1e-12);
    }
  }
}

TEST(DcolHull, HullsFromMeshesAndBadInput) {
  const mesh::TriangleMesh box = mesh::make_box(Vec3(2.0, 1.0, 0.5));
  const Polytope P = Polytope::convex_hull(box);
  EXPECT_EQ(P.num_faces, 6);
  EXPECT_NEAR(P.outer_radius, Vec3(1.0, 0.5, 0.25).norm(), 1e-14);
  const auto throws_with = [](const std::vector<Vec3>& pts, const std::string& what) {
    try {
      Polytope::convex_hull(pts);
      ADD_FAILURE() << "no exception, expected: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  throws_with({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, "at least 4 points");
  throws_with({{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, 0, kNaN}}, "not finite");
  throws_with({{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0.5, 0.5, 0}}, "coplanar");
  throws_with({{-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, "coplanar or collinear");
  throws_with({{1, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1, 0, 1}}, "not strictly inside");
  std::mt19937 rng(8);
  throws_with(sphere_points(rng, 4000, 1.0), "at most 4096");  // ~7,996 faces
  // (A, b) above the limit: the error names it
  try {
    Polytope(Eigen::MatrixX3d::Random(kMaxPolytopeFaces + 1, 3), Eigen::VectorXd::Ones(kMaxPolytopeFaces + 1));
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("4096"), std::string::npos) << e.what();
  }
  // an unbounded large set: 40 normals in the upper half-space
  Eigen::MatrixX3d A(40, 3);
  for (int i = 0; i < 40; ++i) {
    Vec3 u = random_unit(rng);
    u.z() = std::abs(u.z()) + 0.1;
    A.row(i) = u.transpose();
  }
  EXPECT_THROW(Polytope(A, Eigen::VectorXd::Ones(40)), std::invalid_argument);
  // smoothing is refused for a large polytope (its rows are a window of its faces)
  const Polytope big = Polytope::convex_hull(sphere_points(rng, 200, 1.0));
  SolveOptions smooth;
  smooth.barrier_target = 1e-3;
  EXPECT_EQ(solve_contact(big, Pose::identity(), dcol::Sphere(0.5), make_pose(Mat3::Identity(), Vec3(3, 0, 0)), smooth).status,
            SolveStatus::invalid_input);
}

/// α* of hulls against boxes, random small polytopes and other hulls, by the LP; both the
/// geometric start and the interior-point route (direct_newton off, and polish off).
TEST(DcolHull, PolytopePairsMatchTheLp) {
  std::mt19937 rng(77);
  const std::vector<HullCase> cases = hull_cases();
  std::vector<Polytope> hulls;
  for (const HullCase& hc : cases) hulls.push_back(Polytope::convex_hull(hc.points));
  SolveOptions ipm;
  ipm.direct_newton = false;
  SolveOptions plain = ipm;
  plain.polish = false;
  int large_pairs = 0;
  for (size_t h = 0; h < hulls.size(); ++h) {
    SCOPED_TRACE(cases[h].name);
    std::vector<Polytope> others = {Polytope::box(0.5, 0.3, 0.4), dcol_test::random_polytope(rng, 12),
                                    hulls[(h + 1) % hulls.size()]};
    for (size_t o = 0; o < others.size(); ++o)
      for (int t = 0; t < 12; ++t) {
        const Pose X1 = random_pose(rng, 4.0), X2 = random_pose(rng, 4.0);
        const double ref = lp_alpha(hulls[h], X1, others[o], X2);
        ASSERT_TRUE(std::isfinite(ref));
        large_pairs += hulls[h].is_large();
        for (const SolveOptions& opt : {SolveOptions{}, ipm, plain}) {
          const ContactResult r = solve_contact(hulls[h], X1, others[o], X2, opt);
          ASSERT_TRUE(r.ok()) << status_name(r.status) << " other " << o << " try " << t << " direct "
                              << opt.direct_newton << " polish " << opt.polish << " iterations " << r.iterations;
          const double tol = opt.polish ? 1e-10 : 1e-8;  // (unpolished: the interior-point gap)
          EXPECT_NEAR(r.alpha, ref, tol * ref) << "other " << o << " try " << t << " start " << start_method_name(r.start);
          // swapped order: the same α*
          const ContactResult s = solve_contact(others[o], X2, hulls[h], X1, opt);
          ASSERT_TRUE(s.ok()) << status_name(s.status);
          EXPECT_NEAR(s.alpha, ref, tol * ref);
        }
      }
  }
  EXPECT_GT(large_pairs, 100);
}

/// α* of hulls against every other primitive: weak duality α* ≥ uᵀ(r_2 − r_1)/(h_1(u) + h_2(−u))
/// for the result's separating normal u, and α* ≤ α·(1 + 1e-10) for a witness point x that lies in
/// both shapes scaled by α·(1 + 1e-10) (membership from the shape definitions).
TEST(DcolHull, HullsAgainstEveryPrimitiveAreSandwiched) {
  std::mt19937 rng(91);
  const std::vector<HullCase> cases = hull_cases();
  SolveOptions ipm;
  ipm.direct_newton = false;
  int checked = 0;
  for (const HullCase& hc : cases) {
    const Polytope hull = Polytope::convex_hull(hc.points);
    for (const auto& [pname, other] : partners()) {
      if (std::holds_alternative<Polytope>(other)) continue;  // (PolytopePairsMatchTheLp)
      SCOPED_TRACE(hc.name + " vs " + pname);
      for (int t = 0; t < 10; ++t) {
        const Pose X1 = random_pose(rng, 4.0), X2 = random_pose(rng, 4.0);
        for (const SolveOptions& opt : {SolveOptions{}, ipm})
          for (int order = 0; order < 2; ++order) {
            const Primitive hp = hull;
            const Primitive& s1 = order == 0 ? hp : other;
            const Primitive& s2 = order == 0 ? other : hp;
            const Pose& Y1 = order == 0 ? X1 : X2;
            const Pose& Y2 = order == 0 ? X2 : X1;
            const ContactResult r = solve_contact(s1, Y1, s2, Y2, opt);
            ASSERT_TRUE(r.ok()) << status_name(r.status) << " try " << t << " order " << order << " direct "
                                << opt.direct_newton << " iterations " << r.iterations;
            // upper bound: the witness in both shapes scaled by α(1 + 1e-10)
            const double up = r.alpha * (1.0 + 1e-10);
            const double scale = std::max(outer_radius(s1), outer_radius(s2)) * r.alpha;
            EXPECT_LE(membership_violation(s1, r.X_WS1, r.x_W, up), 1e-12 * scale) << "try " << t;
            EXPECT_LE(membership_violation(s2, r.X_WS2, r.x_W, up), 1e-12 * scale) << "try " << t;
            // lower bound: u from body 1's rows and multipliers (any u gives a valid bound)
            const ConeKkt& k = r.kkt;
            Vec3 n = Vec3::Zero();
            for (int i = 0; i < k.orthant_rows[0]; ++i) n += k.z[i] * Vec3(k.G[i][0], k.G[i][1], k.G[i][2]);
            for (int c = 0; c < k.soc_count; ++c)
              if (k.soc_body[c] == 0)
                for (int q = 0; q < k.soc_dim[c]; ++q) {
                  const int i = k.soc_start[c] + q;
                  n += k.z[i] * Vec3(k.G[i][0], k.G[i][1], k.G[i][2]);
                }
            ASSERT_GT(n.norm(), 0.0);
            const Vec3 u = n.normalized();
            const std::vector<Vec3>* pts1 = order == 0 ? &hc.points : nullptr;
            const std::vector<Vec3>* pts2 = order == 0 ? nullptr : &hc.points;
            const double reach = support_ref(s1, pts1, r.X_WS1.R, u) + support_ref(s2, pts2, r.X_WS2.R, -u);
            const double low = u.dot(r.X_WS2.p - r.X_WS1.p) / reach;
            EXPECT_GE(low, r.alpha * (1.0 - 1e-10)) << "try " << t << " order " << order << " start "
                                                    << start_method_name(r.start);
            ++checked;
          }
      }
    }
  }
  EXPECT_EQ(checked, static_cast<int>(cases.size()) * 6 * 10 * 4);
}

/// Polytopes up to kInlinePolytopeFaces keep the inline storage: no `large` block, the face data
/// in A, b, V (the solver's fast path, unchanged).
TEST(DcolHull, SmallPolytopesStayInline) {
  std::mt19937 rng(4);
  for (int m : {4, 8, 20, kInlinePolytopeFaces}) {
    const Polytope P = dcol_test::random_polytope(rng, m);
    EXPECT_FALSE(P.is_large());
    for (int i = 0; i < m; ++i) EXPECT_EQ(P.normal(i), Vec3(P.A.row(i).transpose()));
  }
  const Polytope Q = Polytope::convex_hull(sphere_points(rng, 60, 1.0));
  EXPECT_TRUE(Q.is_large());
  EXPECT_EQ(Q.num_faces, 116);
  EXPECT_TRUE(Q.A.isZero(0.0));
}

}  // namespace
