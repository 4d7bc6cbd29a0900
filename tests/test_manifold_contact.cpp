// Contax part 2: meshes of SDF objects, the contact manifold between two objects, its
// derivatives w.r.t. both poses, and the seed's box-on-box cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <algorithm>
#include <new>
#include <random>
#include <set>

#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
#include "diffcol/math/gradient_check.hpp"
#include "test_util.hpp"

// Allocation counter for the "no allocation after the first call" check (whole test binary).
#include "malloc_counter.hpp"

namespace diffcol::manifold {
namespace {

using test::env_count;
using test::make_pose;

// ------------------------------------------------------------------------------------------
// Meshes
// ------------------------------------------------------------------------------------------

TEST(ManifoldMesh, RefinedBoxCounts) {
  for (int n : {1, 2, 4}) {
    const mesh::TriangleMesh m = make_refined_box(Eigen::Vector3d(1.0, 2.0, 0.5), n);
    EXPECT_EQ(m.num_vertices(), 6 * n * n + 2);
    EXPECT_EQ(m.num_faces(), 12 * n * n);
    EXPECT_EQ(static_cast<int>(m.edges().size()), 3 * m.num_vertices() - 6);  // Euler, genus 0
    EXPECT_NEAR(m.volume(), 1.0, 1e-12);
    EXPECT_NEAR(m.area(), 2.0 * (2.0 + 0.5 + 1.0), 1e-12);
  }
  EXPECT_EQ(make_refined_box(Eigen::Vector3d::Ones(), 4).num_vertices(), 98);
  EXPECT_THROW(make_refined_box(Eigen::Vector3d(1.0, 0.0, 1.0), 2), std::invalid_argument);
  EXPECT_THROW(make_refined_box(Eigen::Vector3d::Ones(), 0), std::invalid_argument);
}

TEST(ManifoldMesh, SphereIsoSurface) {
  SdfObject sphere;
  const Eigen::Vector3d c(0.1, -0.05, 0.02);
  sphere.add(Superquadric(Eigen::Vector3d::Constant(0.5), 1.0, 1.0, make_pose(Mat3::Identity(), c)));
  IsoSurfaceOptions o;
  o.lower = Eigen::Vector3d::Constant(-0.8);
  o.upper = Eigen::Vector3d::Constant(0.8);
  o.cell_size = 0.1;
  const mesh::TriangleMesh m = mesh_from_sdf(sphere, o);  // validated: closed, oriented
  double worst = 0.0;
  for (const Vec3& v : m.vertices()) worst = std::max(worst, std::abs((v - c).norm() - 0.5));
  EXPECT_LT(worst, 1e-12);  // projected onto the exact sphere
  EXPECT_LT(max_vertex_sdf(sphere, m), 1e-12);
  const double exact = 4.0 / 3.0 * M_PI * 0.125;
  EXPECT_NEAR(m.volume(), exact, 0.03 * exact);  // inscribed polyhedron: slightly smaller
  EXPECT_LT(m.volume(), exact);
  for (int f = 0; f < m.num_faces(); f += 7) {  // outward orientation against the exact normal
    const auto& F = m.faces()[f];
    const Vec3 centroid = (m.vertices()[F[0]] + m.vertices()[F[1]] + m.vertices()[F[2]]) / 3.0;
    EXPECT_GT(m.face_normal(f).dot((centroid - c).normalized()), 0.9);
  }
}

TEST(ManifoldMesh, BoxSuperquadricIsoSurface) {
  const SdfObject box = make_box_sdf(Eigen::Vector3d(1.0, 0.6, 0.4), 0.1);
  IsoSurfaceOptions o;
  o.lower = Eigen::Vector3d(-0.7, -0.5, -0.4);
  o.upper = Eigen::Vector3d(0.7, 0.5, 0.4);
  o.cell_size = 0.05;
  o.projection_steps = 8;
  const mesh::TriangleMesh m = mesh_from_sdf(box, o);
  EXPECT_LT(max_vertex_sdf(box, m), 1e-8);
  // Every vertex on f = 1 (eq. (2)), an independent check of the zero level set.
  const Superquadric sq(Eigen::Vector3d(0.5, 0.3, 0.2), 0.1, 0.1);
  double worst = 0.0;
  for (const Vec3& v : m.vertices()) worst = std::max(worst, std::abs(sq.inside_outside(v) - 1.0));
  EXPECT_LT(worst, 1e-6);
  EXPECT_NEAR(m.volume(), 0.24, 0.03 * 0.24);  // the ε = 0.1 SQ is nearly the box
}

TEST(ManifoldMesh, RejectsBadGrids) {
  const SdfObject box = make_box_sdf(Eigen::Vector3d::Ones(), 0.1);
  IsoSurfaceOptions o;
  o.lower = Eigen::Vector3d::Constant(-0.3);  // cuts the solid
  o.upper = Eigen::Vector3d::Constant(0.3);
  EXPECT_THROW(mesh_from_sdf(box, o), std::invalid_argument);
  o.lower = Eigen::Vector3d::Constant(1.0);
  o.upper = Eigen::Vector3d::Constant(2.0);  // misses it
  EXPECT_THROW(mesh_from_sdf(box, o), std::invalid_argument);
  o.lower = Eigen::Vector3d::Constant(-1.0);
  o.cell_size = -1.0;
  EXPECT_THROW(mesh_from_sdf(box, o), std::invalid_argument);
  EXPECT_THROW(mesh_from_sdf(SdfObject(), IsoSurfaceOptions{}), std::invalid_argument);
}

// ------------------------------------------------------------------------------------------
// Box on box (the seed's cases)
// ------------------------------------------------------------------------------------------

constexpr double kBottomHalf = 0.5;  // body 2: unit cube at its pose
constexpr double kTopHalf = 0.35;    // body 1: 0.7 cube

ContactObject box_object(double half, int refinement) {
  return ContactObject(make_refined_box(Eigen::Vector3d::Constant(2.0 * half), refinement),
                       make_box_sdf(Eigen::Vector3d::Constant(2.0 * half), 0.1));
}

/// Exact signed distance of the box of half size h at pose X to the world point x, and the
/// outward normal of the face it is nearest to (for points inside: the least-penetrated face).
double exact_box(double h, const Pose& X, const Vec3& x_W, Vec3* normal) {
  const Vec3 x = X.R.transpose() * (x_W - X.p);
  const Vec3 q = x.cwiseAbs() - Vec3::Constant(h);
  int axis = 0;
  q.maxCoeff(&axis);
  Vec3 n_B = Vec3::Zero();
  n_B[axis] = x[axis] >= 0.0 ? 1.0 : -1.0;
  if (normal) *normal = X.R * n_B;
  const double outside = q.cwiseMax(0.0).norm();
  return outside > 0.0 ? outside : q.maxCoeff();
}

/// Exact closest points of segments a0–a1, b0–b1 (independent reference: nested ternary search
/// over the convex function s ↦ min_t ‖a(s) − b(t)‖, inner minimizer by clamped projection).
double segment_distance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1, Vec3* pa, Vec3* pb) {
  auto inner = [&](double s, Vec3* q) {
    const Vec3 a = a0 + s * (a1 - a0);
    const Vec3 d = b1 - b0;
    const double t = std::clamp((a - b0).dot(d) / d.squaredNorm(), 0.0, 1.0);
    *q = b0 + t * d;
    return (a - *q).norm();
  };
  double lo = 0.0, hi = 1.0;
  Vec3 q;
  for (int it = 0; it < 200; ++it) {
    const double m1 = lo + (hi - lo) / 3.0, m2 = hi - (hi - lo) / 3.0;
    if (inner(m1, &q) <= inner(m2, &q)) hi = m2;
    else lo = m1;
  }
  const double s = 0.5 * (lo + hi);
  const double d = inner(s, pb);
  *pa = a0 + s * (a1 - a0);
  return d;
}

/// Options for the acceptance scenes: smoothed, with temperatures well below the scene's scale
/// (1e-3 of the box size), so that the smooth indicators are decisive; E-E penetration margin
/// 5e-3 (half the 0.01 depths of the scenes) and clashing margin 0.1.
ManifoldOptions sharp_options(bool edge_edge) {
  ManifoldOptions o;
  o.edge_edge = edge_edge;
  o.witness.regularization = 1e-6;
  o.witness.t_clip = 1e-3;
  o.witness.t_comp = 1e-3;
  o.witness.t_min = 1e-6;
  o.contact.t_sign = 1e-3;
  o.contact.t_pen = 1e-3;
  o.contact.t_clash = 1e-2;
  o.contact.t_nn = 1e-3;
  o.contact.pen_margin = 5e-3;
  o.contact.clash_margin = 0.1;
  return o;
}

struct SceneCounts {
  int vs_active = 0, ee_active = 0;
  int ee_candidates[2] = {0, 0};
};

/// The geometric edges of a box mesh, found independently of ContactObject's dihedral angles:
/// the mesh edges whose two end points both lie on one edge line of the box (two coordinates at
/// ±h, the same two).
std::vector<int> box_feature_edges(const mesh::TriangleMesh& m, double h) {
  std::vector<int> out;
  auto on_edge_axes = [&](const Vec3& v) {
    int mask = 0;
    for (int i = 0; i < 3; ++i)
      if (std::abs(std::abs(v[i]) - h) < 1e-12) mask |= 1 << i;
    return mask;
  };
  for (int j = 0; j < static_cast<int>(m.edges().size()); ++j) {
    const Vec3& a = m.vertices()[m.edges()[j][0]];
    const Vec3& b = m.vertices()[m.edges()[j][1]];
    const int ma = on_edge_axes(a), mb = on_edge_axes(b), common = ma & mb;
    // Both on the same two faces (two shared axes at ±h with equal signs).
    int shared = 0;
    for (int i = 0; i < 3; ++i)
      if ((common >> i & 1) && a[i] * b[i] > 0.0) ++shared;
    if (shared >= 2) out.push_back(j);
  }
  return out;
}

/// Classifies every entry against exact box geometry (independent of the SDFs and witness code):
///  - V-S: expected active iff the vertex lies inside the other exact box; then the normal must
///    be that box's face normal (the vertices of these scenes are far from the boxes' edges).
///  - E-E over the boxes' geometric edges (box_feature_edges): a pair "crosses" when its exact
///    closest points (segment_distance) are interior to both edges (parameters in [0.02, 0.98]),
///    the edges are not parallel and each closest point lies inside the other exact box by more
///    than 1e-3; entry (k, l, body 1) is expected active iff (k, l) crosses and is the strict
///    nearest pair of row k (body 2: of column l), as (13)–(14) ask; the true normal is ±(t1 × t2),
///    oriented out of the other box.
/// Every entry must be decisive: expected active → activity > 0.9 and normal within 1e-2,
/// expected inactive → activity < 0.1. No exception.
SceneCounts check_scene(const ContactObject& top, double top_half, const ContactObject& bottom, double bottom_half,
                        const Pose& X1, const Pose& X2, bool edge_edge) {
  const ManifoldOptions opt = sharp_options(edge_edge);
  ManifoldWorkspace ws;
  ContactManifold m;
  compute_manifold(top, X1, bottom, X2, opt, ws, m);
  const auto& E1 = top.mesh().edges();
  const auto& E2 = bottom.mesh().edges();
  const std::vector<int> c1 = box_feature_edges(top.mesh(), top_half), c2 = box_feature_edges(bottom.mesh(), bottom_half);
  const int n1 = static_cast<int>(c1.size()), n2 = static_cast<int>(c2.size());
  SceneCounts counts;
  counts.ee_candidates[0] = n1;
  counts.ee_candidates[1] = n2;
  EXPECT_EQ(static_cast<int>(m.entries.size()),
            top.mesh().num_vertices() + bottom.mesh().num_vertices() + (edge_edge ? 2 * n1 * n2 : 0));
  std::vector<int> pos1(E1.size(), -1), pos2(E2.size(), -1);
  for (int k = 0; k < n1; ++k) pos1[c1[k]] = k;
  for (int l = 0; l < n2; ++l) pos2[c2[l]] = l;
  // Exact E-E reference.
  std::vector<double> D(static_cast<std::size_t>(n1) * n2);
  std::vector<char> crossing(D.size(), 0);
  std::vector<Vec3> normal1(D.size());
  if (edge_edge) {
    for (int k = 0; k < n1; ++k)
      for (int l = 0; l < n2; ++l) {
        const auto& ek = E1[c1[k]];
        const auto& el = E2[c2[l]];
        const Vec3 a0 = X1.R * top.mesh().vertices()[ek[0]] + X1.p, a1 = X1.R * top.mesh().vertices()[ek[1]] + X1.p;
        const Vec3 b0 = X2.R * bottom.mesh().vertices()[el[0]] + X2.p, b1 = X2.R * bottom.mesh().vertices()[el[1]] + X2.p;
        Vec3 pa, pb;
        const std::size_t i = static_cast<std::size_t>(k) * n2 + l;
        D[i] = segment_distance(a0, a1, b0, b1, &pa, &pb);
        const Vec3 t1 = a1 - a0, t2 = b1 - b0;
        const double sa = (pa - a0).dot(t1) / t1.squaredNorm(), sb = (pb - b0).dot(t2) / t2.squaredNorm();
        const bool interior = sa > 0.02 && sa < 0.98 && sb > 0.02 && sb < 0.98;
        const bool skew = t1.cross(t2).norm() > 0.05 * t1.norm() * t2.norm();
        crossing[i] = interior && skew && exact_box(bottom_half, X2, pa, nullptr) < -1e-3 &&
                      exact_box(top_half, X1, pb, nullptr) < -1e-3;
        Vec3 n = t1.cross(t2).normalized();
        if (exact_box(bottom_half, X2, pa + 1e-4 * n, nullptr) < exact_box(bottom_half, X2, pa, nullptr)) n = -n;
        normal1[i] = n;
      }
  }
  double worst_normal = 0.0;
  int wrong = 0;
  for (const ManifoldEntry& e : m.entries) {
    bool expect_active = false;
    Vec3 n_true = Vec3::Zero();
    if (e.kind == ContactKind::vertex_sdf) {
      const double h_other = e.body == 0 ? bottom_half : top_half;
      const Pose& X_other = e.body == 0 ? X2 : X1;
      const double d_true = exact_box(h_other, X_other, e.point, &n_true);
      expect_active = d_true < 0.0;
      if (expect_active) {
        EXPECT_NEAR(e.distance, d_true, 0.5 * std::abs(d_true));  // eq. (3) is approximate
      }
    } else {
      const int k = pos1[e.body == 0 ? e.source : e.other_source], l = pos2[e.body == 0 ? e.other_source : e.source];
      if (k < 0 || l < 0) {
        ADD_FAILURE() << "E-E entry on a non-feature edge " << e.source << "/" << e.other_source;
        continue;
      }
      const std::size_t i = static_cast<std::size_t>(k) * n2 + l;
      bool nearest = true;
      for (int j = 0; j < (e.body == 0 ? n2 : n1); ++j) {
        const std::size_t o = e.body == 0 ? static_cast<std::size_t>(k) * n2 + j : static_cast<std::size_t>(j) * n2 + l;
        if (o != i && D[o] <= D[i] + 1e-9) nearest = false;
      }
      expect_active = crossing[i] && nearest;
      n_true = e.body == 0 ? normal1[i] : Vec3(-normal1[i]);
    }
    const bool ok = expect_active ? e.activity > 0.9 : e.activity < 0.1;
    if (!ok) {
      ++wrong;
      ADD_FAILURE() << (e.kind == ContactKind::vertex_sdf ? "V-S" : "E-E") << " body " << e.body + 1 << " source "
                    << e.source << "/" << e.other_source << " expected " << (expect_active ? "active" : "inactive")
                    << ", activity " << e.activity << " d " << e.distance << " at " << e.point.transpose()
                    << " n " << e.normal.transpose();
    }
    if (expect_active) {
      worst_normal = std::max(worst_normal, (e.normal - n_true).norm());
      EXPECT_LT(e.distance, 0.0);
    }
    if (e.activity > 0.9) ++(e.kind == ContactKind::vertex_sdf ? counts.vs_active : counts.ee_active);
  }
  EXPECT_LT(worst_normal, 1e-2);
  double max_inactive = 0.0;
  for (const ManifoldEntry& e : m.entries)
    if (e.activity < 0.9) max_inactive = std::max(max_inactive, e.activity);
  std::printf("  V-S active %d, E-E active %d (of %zu entries, %d x %d candidate edges), misclassified %d, "
              "worst normal error %.2e, largest inactive activity %.2e\n",
              counts.vs_active, counts.ee_active, m.entries.size(), n1, n2, wrong, worst_normal, max_inactive);
  return counts;
}

Pose rot_x(double a, const Vec3& p) {
  return make_pose(Eigen::AngleAxisd(a, Vec3::UnitX()).toRotationMatrix(), p);
}
Pose rot_y(double a, const Vec3& p) {
  return make_pose(Eigen::AngleAxisd(a, Vec3::UnitY()).toRotationMatrix(), p);
}

// Both cubes (8 and 98 vertices) with V-S and E-E contacts in every scene. E-E runs over the
// geometric (feature) edges, as in the seed's polygonal cube (12 edges): the default
// ManifoldOptions::feature_angle drops the triangulation edges inside flat faces.

TEST(ManifoldBoxOnBox, FeatureEdgesAreTheBoxEdges) {
  for (int n : {1, 2, 4}) {
    const ContactObject box = box_object(0.5, n);
    int sharp = 0;
    for (double angle : box.edge_dihedral_angles()) {
      EXPECT_TRUE(std::abs(angle) < 1e-9 || std::abs(angle - M_PI / 2) < 1e-9) << angle;
      sharp += angle > 1e-3;
    }
    EXPECT_EQ(sharp, 12 * n);
    EXPECT_EQ(static_cast<int>(box_feature_edges(box.mesh(), 0.5).size()), 12 * n);
  }
}

TEST(ManifoldBoxOnBox, FaceOnFace) {
  const double delta = 0.01;
  const Pose X2 = Pose::identity();
  for (double yaw : {0.35, 0.0}) {
    // 8-vertex cubes: a 0.24 cube resting 0.01 deep on the unit cube, 0.13 from its edges: its 4
    // bottom vertices; no E-E (its vertical edges pierce the face: their witness points lie on
    // the face, φ = 0, and the pen margin keeps them off). yaw = 0: parallel edges (Fig. 3's
    // degenerate case) too.
    const Pose X1 = make_pose(Eigen::AngleAxisd(yaw, Vec3::UnitZ()).toRotationMatrix(), Vec3(0.2, -0.2, 0.5 + 0.12 - delta));
    const SceneCounts c = check_scene(box_object(0.12, 1), 0.12, box_object(kBottomHalf, 1), kBottomHalf, X1, X2, true);
    EXPECT_EQ(c.vs_active, 4);
    EXPECT_EQ(c.ee_active, 0);
  }
  for (double yaw : {0.0}) {
    // 98-vertex cubes, edges parallel: the 25 bottom-face vertices of the 0.7 cube and the 9
    // inner top-face vertices of the unit cube under it (|x|, |y| ≤ 0.25, 0.1 from the 0.7 cube's
    // sides; a yaw brings some within 0.08 of them, where the SQ's rounded edges tilt the normal
    // by more than 1e-2); no E-E.
    const Pose X1 = make_pose(Eigen::AngleAxisd(yaw, Vec3::UnitZ()).toRotationMatrix(),
                              Vec3(0.0, 0.0, kBottomHalf + kTopHalf - delta));
    const SceneCounts c =
        check_scene(box_object(kTopHalf, 4), kTopHalf, box_object(kBottomHalf, 4), kBottomHalf, X1, X2, true);
    EXPECT_EQ(c.vs_active, 25 + 9);
    EXPECT_EQ(c.ee_active, 0);
    EXPECT_EQ(c.ee_candidates[0], 48);
  }
}

TEST(ManifoldBoxOnBox, SeedIndicatorsWithoutMarginsAreHalfOnTheContactPlane) {
  // Why the E-E margins exist: with the seed's (12) and (15) as printed (margins 0), the
  // vertical edges of the resting 0.24 cube pierce the face they rest on, their witness points
  // lie on that face (φ = 0, penγ = σ(0) = ½) and their SDF normals are ⟂ the face's (clγ = ½),
  // so E-E entries with wrong normals reach activity ½ (or ¼): neither active nor inactive.
  const Pose X1 = make_pose(Eigen::AngleAxisd(0.35, Vec3::UnitZ()).toRotationMatrix(), Vec3(0.2, -0.2, 0.5 + 0.12 - 0.01));
  ManifoldOptions opt = sharp_options(true);
  opt.contact.pen_margin = 0.0;
  opt.contact.clash_margin = 0.0;
  ManifoldWorkspace ws;
  ContactManifold m;
  compute_manifold(box_object(0.12, 1), X1, box_object(kBottomHalf, 1), Pose::identity(), opt, ws, m);
  double worst = 0.0;
  for (const ManifoldEntry& e : m.entries)
    if (e.kind == ContactKind::edge_edge) worst = std::max(worst, e.activity);
  EXPECT_GT(worst, 0.2);
  EXPECT_LT(worst, 0.6);
  std::printf("  margins 0: largest E-E activity %.3f (the seed's σ(0) on the contact plane)\n", worst);
}

TEST(ManifoldBoxOnBox, EdgeAcrossFace) {
  const double delta = 0.01;
  const Pose X2 = Pose::identity();
  {
    // 8-vertex: a 0.24 cube turned 45° about x, its lowest edge (along x, y = −0.2, x ∈ [0.05,
    // 0.35]) 0.01 inside the top face: its two end vertices, no E-E (the edge crosses no edge).
    Pose X1 = rot_x(M_PI / 4, Vec3(0.2, -0.2, 0.5 + 0.12 * std::sqrt(2.0) - delta));
    X1.R = Eigen::AngleAxisd(0.35, Vec3::UnitZ()).toRotationMatrix() * X1.R;
    const SceneCounts c = check_scene(box_object(0.12, 1), 0.12, box_object(kBottomHalf, 1), kBottomHalf, X1, X2, true);
    EXPECT_EQ(c.vs_active, 2);
    EXPECT_EQ(c.ee_active, 0);
  }
  {
    // 98-vertex: the 5 vertices along the lowest edge (at y = 0.1, between the unit cube's grid
    // lines); no E-E.
    const Pose X1 = rot_x(M_PI / 4, Vec3(0.0, 0.1, kBottomHalf + kTopHalf * std::sqrt(2.0) - delta));
    const SceneCounts c =
        check_scene(box_object(kTopHalf, 4), kTopHalf, box_object(kBottomHalf, 4), kBottomHalf, X1, X2, true);
    EXPECT_EQ(c.vs_active, 5);
    EXPECT_EQ(c.ee_active, 0);
  }
}

TEST(ManifoldBoxOnBox, EdgeAcrossEdge) {
  // Body 2 turned 45° about y (top ridge along y), body 1 turned 45° about x (lowest edge along
  // x), yawed by 0.2 and shifted: the edges cross, overlapping by 0.06 (more than the ε = 0.1
  // rounding of the SQ edges): exactly that pair, both witness points, normals ±z; no V-S.
  const double overlap = 0.06, yaw = 0.2;
  const Pose X2 = rot_y(M_PI / 4, Vec3::Zero());
  for (int n : {1, 4}) {
    // 98-vertex: the crossing is placed mid-segment on both edges (top: 0.0875 along its lowest
    // edge, in [0, 0.175]; bottom: y = 0.125, in [0, 0.25]), away from the vertices on the edges.
    const double t = n == 1 ? 0.03 : 0.0875;
    const Vec3 c(-t * std::cos(yaw), n == 1 ? -0.02 : 0.125 - t * std::sin(yaw), (kBottomHalf + kTopHalf) * std::sqrt(2.0) - overlap);
    Pose X1 = rot_x(M_PI / 4, c);
    X1.R = Eigen::AngleAxisd(yaw, Vec3::UnitZ()).toRotationMatrix() * X1.R;
    const SceneCounts s =
        check_scene(box_object(kTopHalf, n), kTopHalf, box_object(kBottomHalf, n), kBottomHalf, X1, X2, true);
    EXPECT_EQ(s.vs_active, 0);
    EXPECT_EQ(s.ee_active, 2);
  }
}

TEST(ManifoldBoxOnBox, Separated) {
  const Pose X2 = Pose::identity();
  const Pose X1 = rot_x(0.3, Vec3(0.1, 0.0, kBottomHalf + kTopHalf * 1.5 + 0.05));
  for (int n : {1, 4}) {
    const SceneCounts c =
        check_scene(box_object(kTopHalf, n), kTopHalf, box_object(kBottomHalf, n), kBottomHalf, X1, X2, true);
    EXPECT_EQ(c.vs_active + c.ee_active, 0);
  }
}

// ------------------------------------------------------------------------------------------
// Soft top-K, sizes, errors, allocation
// ------------------------------------------------------------------------------------------

TEST(ManifoldSelection, GenericSoftSortMatchesSmooth) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 3 + trial % 20, k = 1 + trial % n;
    std::vector<double> x(n), P1(k * n), P2(k * n);
    std::vector<int> o1(k), o2(k), scratch(n);
    for (double& v : x) v = U(rng);
    const double t = trial % 5 == 0 ? 0.0 : 0.05;
    smooth::soft_top_k(x.data(), n, k, t, P1.data(), o1.data());
    soft_top_k_generic(x.data(), n, k, t, P2.data(), o2.data(), scratch.data());
    EXPECT_EQ(o1, o2);
    for (int i = 0; i < k * n; ++i) EXPECT_NEAR(P1[i], P2[i], 1e-14);
  }
}

TEST(ManifoldSelection, HardTopKSelectsDeepestVertices) {
  // Tilted box on box: with hard selection of K vertices the selected points are exactly the K
  // vertices deepest in the other SDF (brute force sort).
  const ContactObject top = box_object(kTopHalf, 4), bottom = box_object(kBottomHalf, 4);
  const Pose X2 = Pose::identity();
  const Pose X1 = make_pose(Eigen::AngleAxisd(0.2, Vec3(1.0, 0.5, 0.0).normalized()).toRotationMatrix(),
                            Vec3(0.05, -0.03, kBottomHalf + kTopHalf + 0.02));
  ManifoldOptions opt = ManifoldOptions::hard(0.01);
  opt.num_vertices[0] = 6;
  opt.num_vertices[1] = 3;
  opt.num_edges[0] = 5;
  opt.num_edges[1] = 4;
  ManifoldWorkspace ws;
  ContactManifold m;
  compute_manifold(top, X1, bottom, X2, opt, ws, m);
  ASSERT_EQ(static_cast<int>(m.entries.size()), 6 + 3 + 2 * 5 * 4);
  std::vector<std::pair<double, int>> depth;
  for (int i = 0; i < top.mesh().num_vertices(); ++i)
    depth.push_back({bottom.sdf().value(X2.R.transpose() * (X1.R * top.mesh().vertices()[i] + X1.p - X2.p)), i});
  std::sort(depth.begin(), depth.end());
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(m.entries[r].source, depth[r].second);
    EXPECT_NEAR(m.entries[r].distance, depth[r].first, 1e-12);
    EXPECT_LT((m.entries[r].point - (X1.R * top.mesh().vertices()[depth[r].second] + X1.p)).norm(), 1e-12);
  }
  // Smooth selection of the same sizes converges to it as t → 0.
  ManifoldOptions soft = opt;
  soft.t_topk = 1e-6;
  ContactManifold ms;
  compute_manifold(top, X1, bottom, X2, soft, ws, ms);
  for (int r = 0; r < 6; ++r) EXPECT_LT((ms.entries[r].point - m.entries[r].point).norm(), 1e-6);
}

TEST(ManifoldSelection, InvalidInput) {
  const ContactObject a = box_object(kTopHalf, 1), b = box_object(kBottomHalf, 1);
  ManifoldWorkspace ws;
  ContactManifold m;
  ManifoldOptions opt;
  opt.num_vertices[0] = 9;  // > 8 vertices
  EXPECT_THROW(compute_manifold(a, b, opt, ws, m), std::invalid_argument);
  opt = ManifoldOptions{};
  opt.num_edges[1] = 0;
  EXPECT_THROW(compute_manifold(a, b, opt, ws, m), std::invalid_argument);
  opt = ManifoldOptions{};
  opt.t_topk = -1.0;
  EXPECT_THROW(compute_manifold(a, b, opt, ws, m), std::invalid_argument);
  Pose bad = Pose::identity();
  bad.p.x() = test::kNaN;
  EXPECT_THROW(compute_manifold(a, bad, b, Pose::identity(), ManifoldOptions{}, ws, m), std::invalid_argument);
  bad.p.x() = 1e200;  // beyond kMaxLength: its SDF values overflowed (NaN activities)
  EXPECT_THROW(compute_manifold(a, Pose::identity(), b, bad, ManifoldOptions{}, ws, m), std::invalid_argument);
  EXPECT_THROW(ContactObject(make_refined_box(Vec3::Ones(), 1), SdfObject()), std::invalid_argument);
}

#ifdef DIFFCOL_TEST_COUNTS_MALLOC
TEST(ManifoldSelection, NoAllocationAfterFirstCall) {
  const ContactObject a = box_object(kTopHalf, 2), b = box_object(kBottomHalf, 2);
  ManifoldOptions opt;
  opt.num_vertices[0] = 10;
  opt.num_edges[1] = 7;
  ManifoldWorkspace ws;
  ContactManifold m;
  ManifoldDerivatives d;
  const Pose X1 = rot_x(0.2, Vec3(0.0, 0.0, 0.8));
  compute_manifold(a, X1, b, Pose::identity(), opt, ws, m);
  compute_manifold_derivatives(a, X1, b, Pose::identity(), opt, PoseCoordinates::local, ws, m, d);
  const long before = g_allocations.load();
  compute_manifold(a, rot_x(0.3, Vec3(0.0, 0.1, 0.8)), b, Pose::identity(), opt, ws, m);
  compute_manifold_derivatives(a, X1, b, rot_y(0.1, Vec3::Zero()), opt, PoseCoordinates::se3_log, ws, m, d);
  EXPECT_EQ(g_allocations.load(), before);
}
#endif

// ------------------------------------------------------------------------------------------
// Derivatives vs central finite differences (Ridders), body twists and se(3) log coordinates
// ------------------------------------------------------------------------------------------

Eigen::VectorXd stack(const ContactManifold& m) {
  Eigen::VectorXd y(8 * m.entries.size());
  for (std::size_t e = 0; e < m.entries.size(); ++e) {
    const ManifoldEntry& me = m.entries[e];
    y.segment<3>(8 * e) = me.point;
    y[8 * e + 3] = me.distance;
    y.segment<3>(8 * e + 4) = me.normal;
    y[8 * e + 7] = me.activity;
  }
  return y;
}

Eigen::MatrixXd stack(const ManifoldDerivatives& d) {
  Eigen::MatrixXd J(8 * d.J_point_X12.size(), 12);
  for (std::size_t e = 0; e < d.J_point_X12.size(); ++e) {
    J.middleRows<3>(8 * e) = d.J_point_X12[e];
    J.row(8 * e + 3) = d.J_distance_X12[e];
    J.middleRows<3>(8 * e + 4) = d.J_normal_X12[e];
    J.row(8 * e + 7) = d.J_activity_X12[e];
  }
  return J;
}

/// Smoothed options with temperatures on the scale of the box scenes.
ManifoldOptions smoothed_options() {
  ManifoldOptions opt;
  opt.t_topk = 0.05;
  opt.contact.t_pen = 0.02;
  opt.contact.t_nn = 0.05;
  opt.contact.t_sign = 0.2;
  opt.contact.t_clash = 0.2;
  opt.witness.regularization = 0.05;
  return opt;
}

TEST(ManifoldDerivatives, MatchFiniteDifferences) {
  // Smoothed options, selection on (K < n).
  ManifoldOptions opt = smoothed_options();
  opt.num_vertices[0] = 4;
  opt.num_vertices[1] = 5;
  opt.num_edges[0] = 3;
  opt.num_edges[1] = 4;
  const ContactObject top = box_object(kTopHalf, 1), bottom = box_object(kBottomHalf, 1);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const int count = static_cast<int>(std::min(40L, env_count("DIFFCOL_ERGODIC_POSES", 10000) / 250 + 4));
  double worst[2] = {0.0, 0.0}, worst_abs[2] = {0.0, 0.0};
  for (int trial = 0; trial < count; ++trial) {
    const Pose X1 = make_pose(test::random_rotation(rng), Vec3(0.2 * U(rng), 0.2 * U(rng), 0.75 + 0.1 * U(rng)));
    const Pose X2 = make_pose(test::random_rotation(rng), Vec3(0.1 * U(rng), 0.1 * U(rng), 0.1 * U(rng)));
    ManifoldWorkspace ws;
    ContactManifold m;
    ManifoldDerivatives d;
    for (const PoseCoordinates coords : {PoseCoordinates::local, PoseCoordinates::se3_log}) {
      compute_manifold_derivatives(top, X1, bottom, X2, opt, coords, ws, m, d);
      const Eigen::MatrixXd J = stack(d);
      GradientCheckOptions g;
      g.step = 1e-3;
      g.rel_tolerance = 1e-6;
      g.abs_tolerance = 1e-8;
      g.column_group = 3;
      GradientCheckResult res;
      if (coords == PoseCoordinates::local) {
        g.frame = ReferenceFrame::local;
        res = check_pose_gradient(
            [&](const Pose& A, const Pose& B) {
              ManifoldWorkspace w2;
              ContactManifold m2;
              compute_manifold(top, A, bottom, B, opt, w2, m2);
              return Eigen::VectorXd(stack(m2));
            },
            X1, X2, J, g);
      } else {
        Eigen::VectorXd s(12);
        s << se3_log(X1), se3_log(X2);
        res = check_gradient(
            [&](const Eigen::VectorXd& q) {
              ManifoldWorkspace w2;
              ContactManifold m2;
              compute_manifold(top, se3_exp(q.head<6>()), bottom, se3_exp(q.tail<6>()), opt, w2, m2);
              return Eigen::VectorXd(stack(m2));
            },
            s, J, g);
      }
      EXPECT_TRUE(res.passed()) << "trial " << trial << " coords " << static_cast<int>(coords) << "\n" << res.report();
      EXPECT_GT(J.cwiseAbs().maxCoeff(), 0.1);  // the check is not vacuous
      const int slot = coords == PoseCoordinates::local ? 0 : 1;
      worst[slot] = std::max(worst[slot], res.max_rel_error());
      worst_abs[slot] = std::max(worst_abs[slot], res.max_abs_error());
    }
  }
  std::printf("  %d pose pairs: worst relative error (entries above 1e-8 abs) twist %.2e, se3 log %.2e; "
              "worst absolute error twist %.2e, se3 log %.2e\n",
              count, worst[0], worst[1], worst_abs[0], worst_abs[1]);
}

TEST(ManifoldProjection, WitnessPointsLandOnTheirSurfacesAndDerivativesHold) {
  // Sphere tracing (ManifoldOptions::projection_iterations, supplementary II-C): the E-E points of
  // the 8-vertex cubes (whose edges stick out of the rounded superquadric SDF) move onto their own
  // SDF's zero level set; the derivatives, differentiated through the steps, match central
  // finite differences.
  ManifoldOptions opt = smoothed_options();
  opt.num_vertices[0] = opt.num_vertices[1] = 4;
  opt.num_edges[0] = opt.num_edges[1] = 3;
  const ContactObject top = box_object(kTopHalf, 1), bottom = box_object(kBottomHalf, 1);
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const int count = static_cast<int>(std::min(6L, env_count("DIFFCOL_ERGODIC_POSES", 10000) / 1000 + 2));
  for (int trial = 0; trial < count; ++trial) {
    const Pose X1 = make_pose(test::random_rotation(rng), Vec3(0.2 * U(rng), 0.2 * U(rng), 0.75 + 0.1 * U(rng)));
    const Pose X2 = make_pose(test::random_rotation(rng), Vec3(0.1 * U(rng), 0.1 * U(rng), 0.1 * U(rng)));
    ManifoldWorkspace ws;
    ContactManifold plain, projected;
    compute_manifold(top, X1, bottom, X2, opt, ws, plain);
    ManifoldOptions popt = opt;
    popt.projection_iterations = 6;
    compute_manifold(top, X1, bottom, X2, popt, ws, projected);
    ASSERT_EQ(plain.entries.size(), projected.entries.size());
    double before = 0.0, after = 0.0;
    for (std::size_t e = 0; e < projected.entries.size(); ++e) {
      const ManifoldEntry& a = plain.entries[e];
      const ManifoldEntry& b = projected.entries[e];
      if (b.kind != ContactKind::edge_edge) {
        EXPECT_EQ(a.point, b.point);  // V-S entries are untouched
        continue;
      }
      const ContactObject& own = b.body == 0 ? top : bottom;
      const Pose& X = b.body == 0 ? X1 : X2;
      before = std::max(before, std::abs(own.sdf().value(X.inverse() * a.point)));
      after = std::max(after, std::abs(own.sdf().value(X.inverse() * b.point)));
    }
    EXPECT_GT(before, 1e-3) << "trial " << trial << ": the unprojected points should be off the surface";
    EXPECT_LT(after, 1e-6) << "trial " << trial << " (before the projection: " << before << ")";
    ManifoldDerivatives d;
    compute_manifold_derivatives(top, X1, bottom, X2, popt, PoseCoordinates::local, ws, projected, d);
    GradientCheckOptions g;
    g.step = 1e-3;
    g.rel_tolerance = 1e-6;
    g.abs_tolerance = 1e-8;
    g.column_group = 3;
    g.frame = ReferenceFrame::local;
    const GradientCheckResult res = check_pose_gradient(
        [&](const Pose& A, const Pose& B) {
          ManifoldWorkspace w2;
          ContactManifold m2;
          compute_manifold(top, A, bottom, B, popt, w2, m2);
          return Eigen::VectorXd(stack(m2));
        },
        X1, X2, stack(d), g);
    EXPECT_TRUE(res.passed()) << "trial " << trial << "\n" << res.report();
  }
  ManifoldOptions bad;
  bad.projection_iterations = 21;
  EXPECT_THROW(bad.validate(), std::invalid_argument);
}

}  // namespace
}  // namespace diffcol::manifold
