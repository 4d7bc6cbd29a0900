// Convex hulls (Polytope::convex_hull, Qhull) and polytopes above the inline capacity
// (kInlinePolytopeFaces < m ≤ kMaxPolytopeFaces): the hull against brute force over the input
// points, and α* of hulls of 100 to 2,000 points against every DCOL primitive, checked against
// references written in this file: for two polytopes an LP (a simplex method on the dual, below),
// for the other primitives a primal–dual sandwich α_low ≤ α* ≤ α_up from weak duality (support
// functions: the hull's by brute force over its input points, closed forms for the others) and
// from membership of the witness point in both scaled shapes, and α* by cutting planes (the same
// LP with supporting half-spaces of the round shape added until its bounds meet).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
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
/// `primal` (when not null) receives the minimizer (p, α): the vertex where the four basic rows hold
/// with equality.
double lp_min_alpha(const Eigen::Matrix<double, Eigen::Dynamic, 4>& G, const Eigen::VectorXd& h,
                    Eigen::Vector4d* primal = nullptr) {
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
  if (primal) {
    Eigen::Matrix4d GB;
    Eigen::Vector4d hB;
    for (int j = 0; j < 4; ++j) GB.row(j) = G.row(basis[j]), hB[j] = h[basis[j]];
    *primal = GB.fullPivLu().solve(hB);
  }
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

/// The gauge γ(y) = min{s ≥ 0 : y ∈ s·S} of a primitive other than a polytope (shape frame) and
/// the outward unit normal n of a plane through y supporting γ(y)·S, from the shape definitions:
/// closed forms for the sphere, ellipsoid, cylinder and cone; for the capsule and the padded
/// polygon the root of the convex, decreasing dist(y, s·core) − s·R by bisection.
std::pair<double, Vec3> gauge_and_normal(const Primitive& shape, const Vec3& y) {
  const double rho = std::hypot(y.y(), y.z());
  const auto radial = [&](double nx) {  // (nx, y_y/ρ, y_z/ρ), any unit radial direction at ρ = 0
    return rho > 0.0 ? Vec3(nx, y.y() / rho, y.z() / rho) : Vec3(nx, 1.0, 0.0);
  };
  // bisection on s of dist(y, s·core) − s·R, which is > 0 at 0 and ≤ 0 at ‖y‖/R
  const auto padded = [&](double R, const auto& closest_in_core) -> std::pair<double, Vec3> {
    double lo = 0.0, hi = y.norm() / R;
    for (int it = 0; it < 200 && hi - lo > 1e-17 * hi; ++it) {
      const double mid = 0.5 * (lo + hi);
      ((y - closest_in_core(mid)).norm() > mid * R ? lo : hi) = mid;
    }
    const Vec3 d = y - closest_in_core(hi);
    return {hi, d.norm() > 0.0 ? Vec3(d.normalized()) : Vec3(y.normalized())};
  };
  return std::visit(
      [&](const auto& s) -> std::pair<double, Vec3> {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, dcol::Sphere>) {
          return {y.norm() / s.R, y.normalized()};
        } else if constexpr (std::is_same_v<T, Ellipsoid>) {
          return {std::sqrt(y.dot(s.P * y)), (s.P * y).normalized()};
        } else if constexpr (std::is_same_v<T, Cylinder>) {
          const double ax = std::abs(y.x()) / (0.5 * s.L), rad = rho / s.R;
          if (ax >= rad) return {ax, Vec3(y.x() >= 0.0 ? 1.0 : -1.0, 0.0, 0.0)};
          return {rad, radial(0.0).normalized()};
        } else if constexpr (std::is_same_v<T, Cone>) {
          // {−3H/4 ≤ y_x ≤ H/4, ρ ≤ tan β·(y_x + 3H/4)}: apex at −3H/4 e_x
          const double cap = y.x() / (0.25 * s.H), side = (rho - s.tan_beta * y.x()) / (0.75 * s.H * s.tan_beta);
          if (cap >= side) return {cap, Vec3::UnitX()};
          return {side, radial(-s.tan_beta).normalized()};
        } else if constexpr (std::is_same_v<T, Capsule>) {
          return padded(s.R, [&](double a) { return Vec3(std::clamp(y.x(), -0.5 * s.L * a, 0.5 * s.L * a), 0.0, 0.0); });
        } else if constexpr (std::is_same_v<T, PaddedPolygon>) {
          return padded(s.R, [&](double a) {
            const Eigen::Vector2d c = dcol_test::closest_in_scaled_polygon(s, a, Eigen::Vector2d(y.x(), y.y()));
            return Vec3(c.x(), c.y(), 0.0);
          });
        } else {
          ADD_FAILURE() << "polytopes take the LP";
          return {kNaN, Vec3::Zero()};
        }
      },
      shape);
}

struct AlphaBounds {
  double low = kNaN, up = kNaN;
  int cuts = 0;
};

/// α* of a polytope and another primitive by cutting planes (Kelley): the LP above over the
/// polytope's rows and supporting half-spaces n·y ≤ α·h(n) of the other shape (h its support
/// function, support_ref), starting from 14 directions; each round adds the half-space through the
/// LP point's image y along the gauge's normal. The LP optimum is a lower bound (a relaxation); the
/// LP point lies in the polytope scaled by it and in the other shape scaled by γ(y), so the larger
/// of the two is an upper bound. Stops when they agree to 1e-12 (relative).
AlphaBounds cutting_plane_alpha(const Polytope& P1, const Pose& X1, const Primitive& S2, const Pose& X2) {
  std::vector<Eigen::Vector4d> rows;
  std::vector<double> hs;
  for (int i = 0; i < P1.num_faces; ++i) {
    const Vec3 a = X1.R * P1.normal(i);
    rows.emplace_back(a.x(), a.y(), a.z(), -P1.face_offset(i));
    hs.push_back(0.0);
  }
  const auto cut = [&](const Vec3& n_S) {
    const Vec3 n = n_S.normalized(), a = X2.R * n;
    rows.emplace_back(a.x(), a.y(), a.z(), -support_ref(S2, nullptr, Mat3::Identity(), n));
    hs.push_back(a.dot(X2.p - X1.p));
  };
  for (int i = 0; i < 3; ++i) cut(Vec3::Unit(i)), cut(-Vec3::Unit(i));
  for (int k = 0; k < 8; ++k) cut(Vec3(k & 1 ? 1.0 : -1.0, k & 2 ? 1.0 : -1.0, k & 4 ? 1.0 : -1.0));
  AlphaBounds out;
  for (int round = 0; round < 2000; ++round) {
    Eigen::Matrix<double, Eigen::Dynamic, 4> G(rows.size(), 4);
    Eigen::VectorXd h(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) G.row(static_cast<Eigen::Index>(i)) = rows[i].transpose(), h[static_cast<Eigen::Index>(i)] = hs[i];
    Eigen::Vector4d sol;
    const double s = lp_min_alpha(G, h, &sol);
    if (!std::isfinite(s)) return out;
    const Vec3 y = X2.R.transpose() * (X1.p + sol.head<3>() - X2.p);
    const auto [g, n] = gauge_and_normal(S2, y);
    out.low = s;
    out.up = std::max(s, g);
    out.cuts = round;
    if (out.up - out.low <= 1e-12 * out.low) return out;
    cut(n);
  }
  out.cuts = -1;  // no convergence
  return out;
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
      // the support function climbs the vertex graph (seeds set), and lands on a maximizer
      // along many directions, near-axis ones included (a face's normal: ties)
      ASSERT_FALSE(P.large->support_seeds.empty());
      std::mt19937 rng(11);
      for (int t = 0; t < 2000; ++t) {
        Vec3 u = random_unit(rng);
        if (t % 4 == 0) u = (Vec3::Unit(t % 3) + 1e-9 * u).normalized();
        if (t % 4 == 1) u = P.normal(t % P.num_faces);
        double best = -1e300;
        for (int v = 0; v < P.num_vertices; ++v) best = std::max(best, u.dot(P.vertex(v)));
        ASSERT_GE(u.dot(P.support(u)), best - 1e-14 * P.outer_radius) << "direction " << t;
      }
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

/// α* of hulls of 100, 1,000 (random points on a sphere) and 4,000 points (in a box) against every
/// other primitive, against the cutting-plane LP above (round shapes) or the LP (the box), both
/// orders of the pair, the geometric start and the interior-point route: ≤ 1e-10 relative.
TEST(DcolHull, HullsAgainstEveryPrimitiveMatchCuttingPlanes) {
  std::mt19937 rng(303);
  SolveOptions ipm;
  ipm.direct_newton = false;
  int checked = 0, most_cuts = 0;
  double worst = 0.0;
  for (const HullCase& hc : hull_cases()) {
    if (hc.name != "sphere100" && hc.name != "sphere1000" && hc.name != "box4000") continue;
    const Polytope hull = Polytope::convex_hull(hc.points);
    for (const auto& [pname, other] : partners()) {
      SCOPED_TRACE(hc.name + " vs " + pname);
      for (int t = 0; t < 8; ++t) {
        const Pose X1 = random_pose(rng, 4.0), X2 = random_pose(rng, 4.0);
        double ref;
        if (const auto* box = std::get_if<Polytope>(&other)) {
          ref = lp_alpha(hull, X1, *box, X2);
        } else {
          const AlphaBounds b = cutting_plane_alpha(hull, X1, other, X2);
          ASSERT_GE(b.cuts, 0) << "the cutting planes did not converge: " << b.low << " " << b.up;
          most_cuts = std::max(most_cuts, b.cuts);
          ref = 0.5 * (b.low + b.up);
        }
        ASSERT_TRUE(std::isfinite(ref) && ref > 0.0);
        const Primitive hp = hull;
        for (const SolveOptions& opt : {SolveOptions{}, ipm}) {
          const ContactResult r = solve_contact(hp, X1, other, X2, opt), q = solve_contact(other, X2, hp, X1, opt);
          ASSERT_TRUE(r.ok() && q.ok()) << status_name(r.status) << " " << status_name(q.status) << " try " << t;
          EXPECT_NEAR(r.alpha, ref, 1e-10 * ref) << "try " << t << " direct " << opt.direct_newton;
          EXPECT_NEAR(q.alpha, ref, 1e-10 * ref) << "try " << t << " direct " << opt.direct_newton << " (swapped)";
          worst = std::max({worst, std::abs(r.alpha - ref) / ref, std::abs(q.alpha - ref) / ref});
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 3 * 7 * 8 * 2);
  RecordProperty("most_cutting_plane_rounds", most_cuts);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", worst);
  RecordProperty("worst_relative_difference", buf);
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
