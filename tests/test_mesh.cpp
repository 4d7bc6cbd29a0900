// Tests of include/diffcol/mesh/triangle_mesh.hpp: validation, loaders, generators (against
// closed-form volumes, areas and bounding boxes) and the exact references (winding number and
// point–mesh distance against analytic inside tests and box distances, closest point on a
// triangle against dense sampling).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "diffcol/mesh/triangle_mesh.hpp"

#include "test_util.hpp"

namespace {

using diffcol::Vec3;
using diffcol::mesh::Face;
using diffcol::mesh::TriangleMesh;
namespace mesh = diffcol::mesh;

std::string data_path(const std::string& name) {
  std::string dir = __FILE__;
  dir = dir.substr(0, dir.find_last_of('/'));
  return dir + "/data/" + name;
}

std::vector<Vec3> tetra_vertices() { return {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}; }
std::vector<Face> tetra_faces() { return {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}; }

/// Signed distance to an axis-aligned box centred at 0 with half extents h (closed form).
double box_sdf(const Vec3& p, const Vec3& h) {
  const Vec3 d = p.cwiseAbs() - h;
  return d.cwiseMax(0.0).norm() + std::min(d.maxCoeff(), 0.0);
}

TEST(TriangleMesh, TetrahedronIsValid) {
  const TriangleMesh m(tetra_vertices(), tetra_faces());
  EXPECT_NEAR(m.volume(), 1.0 / 6.0, 1e-15);
  EXPECT_EQ(m.edges().size(), 6u);
  EXPECT_NEAR(m.area(), 1.5 + std::sqrt(3.0) / 2.0, 1e-14);
  for (int f = 0; f < 4; ++f) EXPECT_NEAR(m.face_normal(f).norm(), 1.0, 1e-15);
}

TEST(TriangleMesh, RejectsBadMeshes) {
  auto F = tetra_faces();
  auto V = tetra_vertices();
  // Open (a face removed).
  EXPECT_THROW(TriangleMesh(V, {F[0], F[1], F[2]}), std::invalid_argument);
  std::vector<Face> open = F;
  open.pop_back();
  open.push_back({0, 1, 2});  // duplicate of face 0 reversed → inconsistent / non-closed
  EXPECT_THROW(TriangleMesh(V, open), std::invalid_argument);
  // One face flipped.
  std::vector<Face> flipped = F;
  std::swap(flipped[3][1], flipped[3][2]);
  EXPECT_THROW(TriangleMesh(V, flipped), std::invalid_argument);
  // All faces flipped: closed and consistent but inward.
  std::vector<Face> inward = F;
  for (Face& f : inward) std::swap(f[1], f[2]);
  EXPECT_THROW(TriangleMesh(V, inward), std::invalid_argument);
  // Non-finite vertex, out-of-range index, repeated index, degenerate face.
  auto Vn = V;
  Vn[2].x() = diffcol::test::kNaN;
  EXPECT_THROW(TriangleMesh(Vn, F), std::invalid_argument);
  auto Fo = F;
  Fo[0][0] = 7;
  EXPECT_THROW(TriangleMesh(V, Fo), std::invalid_argument);
  auto Fr = F;
  Fr[0] = {0, 0, 1};
  EXPECT_THROW(TriangleMesh(V, Fr), std::invalid_argument);
  auto Vd = V;
  Vd[3] = Vec3(0.5, 0.5, 0.0);  // apex on the hypotenuse of the base: face (1, 2, 3) is degenerate
  EXPECT_THROW(TriangleMesh(Vd, F), std::invalid_argument);
  auto Vz = V;
  Vz[2] = Vz[1];  // coincident vertices → zero-area faces
  EXPECT_THROW(TriangleMesh(Vz, F), std::invalid_argument);
  // Two tetrahedra sharing one vertex: every edge fine, the shared vertex non-manifold.
  // (the mirror image −x of the tetrahedron, faces flipped to stay outward).
  std::vector<Vec3> V3 = {V[0], V[1], V[2], V[3], -V[1], -V[2], -V[3]};
  std::vector<Face> F3 = F;
  for (Face f : tetra_faces()) {
    for (int& k : f) k = (k == 0) ? 0 : k + 3;
    std::swap(f[1], f[2]);
    F3.push_back(f);
  }
  EXPECT_THROW(
      {
        try {
          TriangleMesh m(V3, F3);
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("non-manifold"), std::string::npos) << e.what();
          throw;
        }
      },
      std::invalid_argument);
  // Unused vertex.
  std::vector<Vec3> V2 = V;
  V2.push_back(Vec3(2, 2, 2));
  EXPECT_THROW(TriangleMesh(V2, F), std::invalid_argument);
}

TEST(TriangleMesh, BoxClosedForms) {
  const Vec3 size(0.3, 0.7, 1.1);
  const TriangleMesh b = mesh::make_box(size);
  EXPECT_NEAR(b.volume(), size.prod(), 1e-14);
  EXPECT_NEAR(b.area(), 2 * (size.x() * size.y() + size.y() * size.z() + size.x() * size.z()), 1e-14);
  EXPECT_LT(b.volume_centroid().norm(), 1e-14);
  EXPECT_THROW(mesh::make_box(Vec3(1, 0, 1)), std::invalid_argument);
  EXPECT_THROW(mesh::make_box(Vec3(1, diffcol::test::kInf, 1)), std::invalid_argument);
}

TEST(TriangleMesh, IcosphereConverges) {
  const double r = 0.4;
  double prev_err = 1.0;
  for (int s = 0; s <= 4; ++s) {
    const TriangleMesh m = mesh::make_icosphere(r, s);
    EXPECT_EQ(m.num_faces(), 20 * (1 << (2 * s)));
    for (const Vec3& v : m.vertices()) EXPECT_NEAR(v.norm(), r, 1e-14);
    const double err = std::abs(m.volume() - 4.0 / 3.0 * std::numbers::pi * r * r * r);
    EXPECT_LT(err, prev_err);
    prev_err = err;
  }
  EXPECT_LT(prev_err / (4.0 / 3.0 * std::numbers::pi * r * r * r), 0.01);
  EXPECT_THROW(mesh::make_icosphere(-1.0, 2), std::invalid_argument);
  EXPECT_THROW(mesh::make_icosphere(1.0, 9), std::invalid_argument);
}

TEST(TriangleMesh, TShape) {
  const mesh::TShapeDimensions d;
  const TriangleMesh t = mesh::make_t_shape(d);
  const double vol = (d.bar_length * d.bar_width + d.stem_width * d.stem_length) * d.thickness;
  EXPECT_NEAR(t.volume(), vol, 1e-15);
  const auto bb = t.bounding_box();
  EXPECT_NEAR(bb[1].x() - bb[0].x(), 0.25, 1e-15);
  EXPECT_NEAR(bb[1].y() - bb[0].y(), 0.20, 1e-15);
  EXPECT_NEAR(bb[1].z() - bb[0].z(), d.thickness, 1e-15);
  EXPECT_LT(t.volume_centroid().norm(), 1e-15);
  // Centroid of the plane figure by hand: bar at y = stem_length + bar_width/2, stem at stem_length/2.
  const double ab = d.bar_length * d.bar_width, as = d.stem_width * d.stem_length;
  const double yc = (ab * (d.stem_length + d.bar_width / 2) + as * d.stem_length / 2) / (ab + as);
  EXPECT_NEAR(bb[0].y(), -yc, 1e-15);
  mesh::TShapeDimensions bad = d;
  bad.stem_width = 0.3;
  EXPECT_THROW(mesh::make_t_shape(bad), std::invalid_argument);
}

TEST(TriangleMesh, Loaders) {
  const TriangleMesh cube = mesh::load_mesh(data_path("cube_quads.obj"));
  EXPECT_EQ(cube.num_vertices(), 8);
  EXPECT_EQ(cube.num_faces(), 12);
  EXPECT_NEAR(cube.volume(), 1.0, 1e-15);
  const TriangleMesh tet = mesh::load_mesh(data_path("tetra_ascii.stl"));
  EXPECT_EQ(tet.num_vertices(), 4);
  EXPECT_NEAR(tet.volume(), 1.0 / 6.0, 1e-15);
  const TriangleMesh box = mesh::load_mesh(data_path("box_binary.stl"));
  EXPECT_EQ(box.num_vertices(), 8);
  EXPECT_NEAR(box.volume(), 2.0 * 1.0 * 0.5, 1e-7);
  EXPECT_THROW(mesh::load_mesh(data_path("missing.stl")), std::invalid_argument);
  EXPECT_THROW(mesh::load_mesh(data_path("missing.obj")), std::invalid_argument);
  EXPECT_THROW(mesh::load_mesh(data_path("cube_quads.ply")), std::invalid_argument);
}

TEST(TriangleMesh, ClosestPointOnTriangleMatchesSampling) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 a(U(rng), U(rng), U(rng)), b(U(rng), U(rng), U(rng)), c(U(rng), U(rng), U(rng));
    const Vec3 p = 1.5 * Vec3(U(rng), U(rng), U(rng));
    const Vec3 x = mesh::closest_point_on_triangle(p, a, b, c);
    // Dense barycentric grid: no sample is closer (up to the grid resolution).
    double best = 1e300;
    const int n = 200;
    for (int i = 0; i <= n; ++i)
      for (int j = 0; i + j <= n; ++j) {
        const Vec3 y = a + (double(i) / n) * (b - a) + (double(j) / n) * (c - a);
        best = std::min(best, (y - p).norm());
      }
    EXPECT_LE((x - p).norm(), best + 1e-12);
    EXPECT_GE((x - p).norm(), best - 0.02 * ((b - a).norm() + (c - a).norm()));
  }
}

TEST(TriangleMesh, ClosestPointOnDegenerateTrianglesIsOnTheirEdges) {
  // Coincident or collinear corners (zero area): the closest point of the three edges, finite;
  // two equal corners used to give NaN. Reference: dense sampling of the edges.
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int trial = 0; trial < 500; ++trial) {
    const Vec3 a(U(rng), U(rng), U(rng)), e(U(rng), U(rng), U(rng));
    Vec3 b, c;
    switch (trial % 5) {
      case 0: b = c = a + e; break;                        // two equal corners (b = c)
      case 1: b = a, c = a + e; break;                     // a = b
      case 2: b = a + e, c = a; break;                     // a = c
      case 3: b = a + e, c = a + 0.3 * U(rng) * e; break;  // collinear
      default: b = c = a; break;                           // a point
    }
    const Vec3 p = 1.5 * Vec3(U(rng), U(rng), U(rng));
    const Vec3 x = mesh::closest_point_on_triangle(p, a, b, c);
    ASSERT_TRUE(x.allFinite()) << trial;
    double best = 1e300;
    const int n = 2000;
    for (const auto& [u, v] : {std::pair{a, b}, std::pair{b, c}, std::pair{c, a}})
      for (int i = 0; i <= n; ++i) best = std::min(best, (u + (double(i) / n) * (v - u) - p).norm());
    EXPECT_LE((x - p).norm(), best + 1e-12) << trial;
    EXPECT_GE((x - p).norm(), best - 1e-3 * (e.norm() + 1.0)) << trial;
  }
}

TEST(TriangleMesh, ExactReferencesOnBoxAndT) {
  std::mt19937 rng(5);
  const Vec3 size(0.3, 0.5, 0.2), h = size / 2;
  const TriangleMesh box = mesh::make_box(size);
  std::uniform_real_distribution<double> U(-0.4, 0.4);
  for (int k = 0; k < 2000; ++k) {
    const Vec3 p(U(rng), U(rng), U(rng));
    const double ref = box_sdf(p, h);
    if (std::abs(ref) < 1e-9) continue;
    EXPECT_EQ(mesh::contains(box, p), ref < 0.0);
    EXPECT_NEAR(mesh::signed_distance(box, p), ref, 1e-12);
    const double wn = mesh::winding_number(box, p);
    EXPECT_NEAR(wn, ref < 0.0 ? 1.0 : 0.0, 1e-9);
  }
  // T shape = union of two boxes; the signed distance of a union is exact outside as the min.
  const mesh::TShapeDimensions d;
  const TriangleMesh t = mesh::make_t_shape(d);
  const double yc = -t.bounding_box()[0].y();
  const Vec3 hb(d.bar_length / 2, d.bar_width / 2, d.thickness / 2), hs(d.stem_width / 2, d.stem_length / 2, d.thickness / 2);
  const Vec3 cb(0, d.stem_length + d.bar_width / 2 - yc, 0), cs(0, d.stem_length / 2 - yc, 0);
  std::uniform_real_distribution<double> Ux(-0.15, 0.15), Uy(-0.15, 0.12), Uz(-0.05, 0.05);
  int inside = 0;
  for (int k = 0; k < 3000; ++k) {
    const Vec3 p(Ux(rng), Uy(rng), Uz(rng));
    const double sb = box_sdf(p - cb, hb), ss = box_sdf(p - cs, hs);
    const double u = std::min(sb, ss);
    if (std::abs(u) < 1e-9) continue;
    EXPECT_EQ(mesh::contains(t, p), u < 0.0);
    inside += u < 0.0;
    if (u > 0.0) {
      EXPECT_NEAR(mesh::signed_distance(t, p), u, 1e-12);
    }
  }
  EXPECT_GT(inside, 100);
}

TEST(TriangleMesh, IcosphereDistance) {
  const double r = 0.5;
  const TriangleMesh s = mesh::make_icosphere(r, 3);
  std::mt19937 rng(9);
  for (int k = 0; k < 300; ++k) {
    const Vec3 p = diffcol::test::random_unit(rng) * std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    // The polytope lies between the sphere and the sphere shrunk by the sagitta (< 0.01·r at s = 3).
    EXPECT_NEAR(mesh::signed_distance(s, p), p.norm() - r, 0.01 * r);
  }
  const auto vn = s.vertex_normals();
  for (int v = 0; v < s.num_vertices(); ++v)
    EXPECT_NEAR(vn[static_cast<size_t>(v)].dot(s.vertices()[static_cast<size_t>(v)] / r), 1.0, 1e-3);
}

}  // namespace
