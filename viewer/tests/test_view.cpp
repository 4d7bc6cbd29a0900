// Tests of the viewer library: surface meshes against closed-form volumes and normals, mesh
// topology, per-frame solves against cold solves, the scene JSON and the page text.
// (The page itself is tested in a browser by viewer/tests/browser_test.py.)
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <map>
#include <random>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "../../tests/test_util.hpp"
#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
#include "diffcol/view/view.hpp"

#ifdef DIFFCOL_TEST_HAVE_JSON
#include <nlohmann/json.hpp>
#endif

namespace diffcol::view {
namespace {

using test::kNaN;

// Signed volume enclosed by a triangle mesh (divergence theorem); > 0 for outward orientation.
double mesh_volume(const SurfaceMesh& m) {
  double v = 0.0;
  for (const auto& t : m.triangles) v += m.vertices[t[0]].dot(m.vertices[t[1]].cross(m.vertices[t[2]]));
  return v / 6.0;
}

// ∫_0^1 (1 − s^p)^q ds = Γ(1+1/p) Γ(1+q) / Γ(1+1/p+q).
double beta_integral(double p, double q) {
  return std::tgamma(1.0 + 1.0 / p) * std::tgamma(1.0 + q) / std::tgamma(1.0 + 1.0 / p + q);
}

TEST(MeshSurface, ClosedOrientedManifoldWithEulerCharacteristicTwo) {
  const Shape shape = Superellipsoid(0.5, 1.0, 1.5, 2);
  for (int k = 0; k <= 4; ++k) {
    const SurfaceMesh m = mesh_surface(shape, k);
    const size_t V = m.vertices.size(), F = m.triangles.size();
    EXPECT_EQ(V, 10u * (1u << (2 * k)) + 2u);
    EXPECT_EQ(F, 20u * (1u << (2 * k)));
    ASSERT_EQ(m.normals.size(), V);
    // every directed edge once, and its reverse once: closed and consistently oriented
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
    for (const auto& t : m.triangles) {
      for (int e = 0; e < 3; ++e) {
        ASSERT_LT(t[e], V);
        ++directed[{t[e], t[(e + 1) % 3]}];
      }
    }
    for (const auto& [edge, count] : directed) {
      EXPECT_EQ(count, 1);
      const auto it = directed.find({edge.second, edge.first});
      ASSERT_NE(it, directed.end()) << "edge without its twin";
    }
    const long E = static_cast<long>(directed.size()) / 2;
    EXPECT_EQ(static_cast<long>(V) - E + static_cast<long>(F), 2);
    EXPECT_GT(mesh_volume(m), 0.0) << "triangles must be counter-clockwise seen from outside";
  }
}

TEST(MeshSurface, VerticesLieOnTheSurfaceWithUnitNormalsForEveryShape) {
  for (const std::string& name : idcol::benchmark_shape_names()) {
    const Shape shape = idcol::benchmark_shape(name);
    const SurfaceMesh m = mesh_surface(shape, 4);
    for (size_t i = 0; i < m.vertices.size(); ++i) {
      const Vec3& v = m.vertices[i];
      // on the surface: φ changes sign across v ± 1e-9·r along the ray
      const Vec3 u = v.normalized();
      const double r = shape.outer_radius();
      EXPECT_LT(shape.value(v - 1e-9 * r * u), 0.0) << name << " vertex " << i;
      EXPECT_GT(shape.value(v + 1e-9 * r * u), 0.0) << name << " vertex " << i;
      EXPECT_NEAR(m.normals[i].norm(), 1.0, 1e-12);
      EXPECT_GT(m.normals[i].dot(u), 0.0) << "normal must point outwards";
    }
  }
}

TEST(MeshSurface, NormalsMatchClosedForms) {
  const double R = 0.7;
  const SurfaceMesh ms = mesh_surface(Sphere(R), 3);
  for (size_t i = 0; i < ms.vertices.size(); ++i) {
    EXPECT_NEAR(ms.vertices[i].norm(), R, 1e-12);
    EXPECT_LT((ms.normals[i] - ms.vertices[i] / R).norm(), 1e-9);
  }
  const double a = 0.5, b = 1.0, c = 1.5;
  const SurfaceMesh me = mesh_surface(Superellipsoid::ellipsoid(a, b, c), 3);
  for (size_t i = 0; i < me.vertices.size(); ++i) {
    const Vec3& v = me.vertices[i];
    EXPECT_NEAR(std::pow(v.x() / a, 2) + std::pow(v.y() / b, 2) + std::pow(v.z() / c, 2), 1.0, 1e-11);
    const Vec3 n = Vec3(v.x() / (a * a), v.y() / (b * b), v.z() / (c * c)).normalized();
    EXPECT_LT((me.normals[i] - n).norm(), 1e-9);
  }
}

// The inscribed mesh's volume converges to the closed-form volume from below.
void expect_volume_converges(const Shape& shape, double exact, double tol_level5, const char* what) {
  const double v3 = mesh_volume(mesh_surface(shape, 3));
  const double v5 = mesh_volume(mesh_surface(shape, 5));
  EXPECT_LT(v5, exact * (1.0 + 1e-9)) << what;
  EXPECT_LT(std::abs(v5 - exact), std::abs(v3 - exact)) << what;
  EXPECT_LT(std::abs(v5 - exact) / exact, tol_level5) << what << ": mesh " << v5 << " exact " << exact;
}

TEST(MeshSurface, VolumesMatchClosedForms) {
  expect_volume_converges(Sphere(0.8), 4.0 / 3.0 * M_PI * std::pow(0.8, 3), 1e-3, "sphere");
  expect_volume_converges(Superellipsoid::ellipsoid(0.5, 1.0, 1.5), 4.0 / 3.0 * M_PI * 0.75, 2e-3, "ellipsoid");
  // Σ|y_i/a_i|^p ≤ 1, p = 2n: V = 8abc Γ(1+1/p)³ / Γ(1+3/p)
  for (int n : {2, 4}) {
    const double p = 2.0 * n;
    const double V = 8.0 * 0.5 * 1.0 * 1.5 * std::pow(std::tgamma(1.0 + 1.0 / p), 3) / std::tgamma(1.0 + 3.0 / p);
    expect_volume_converges(Superellipsoid(0.5, 1.0, 1.5, n), V, 3e-3, "superellipsoid");
  }
  // |y1/h|^p + (r/R)^p ≤ 1: V = 2h·πR²·∫_0^1 (1 − s^p)^(2/p) ds
  for (int n : {1, 2, 4}) {
    const double p = 2.0 * n, R = 0.6, h = 0.9;
    const double V = 2.0 * h * M_PI * R * R * beta_integral(p, 2.0 / p);
    expect_volume_converges(SuperellipticCylinder(R, h, n), V, 2e-3, "superelliptic cylinder");
  }
}

TEST(MeshSurface, SmoothPolytopeAndConeLieInsideTheirExactShapes) {
  const SmoothPolytope box = SmoothPolytope::box(0.5, 1.0, 1.5, 20.0);
  const SurfaceMesh mb = mesh_surface(box, 5);
  for (const Vec3& v : mb.vertices)
    for (int i = 0; i < box.num_faces(); ++i) EXPECT_LE(box.normal(i).dot(v), box.offset(i) + 1e-12);
  const double Vb = mesh_volume(mb);
  EXPECT_LT(Vb, 6.0);
  EXPECT_GT(Vb, 0.95 * 6.0);  // β = 20 rounds the edges by about L/β (measured: 0.982)
  // larger β: closer to the exact box
  EXPECT_GT(mesh_volume(mesh_surface(SmoothPolytope::box(0.5, 1.0, 1.5, 80.0), 5)), Vb);

  const SmoothTruncatedCone cone(1.0, 0.5, 1.0, 1.2, 20.0);
  for (const Vec3& v : mesh_surface(cone, 4).vertices) EXPECT_LE(v.norm(), cone.ray_extent(v.normalized()) + 1e-12);
}

TEST(MeshSurface, RejectsSubdivisionsOutOfRange) {
  EXPECT_THROW(mesh_surface(Sphere(1.0), -1), std::invalid_argument);
  EXPECT_THROW(mesh_surface(Sphere(1.0), 8), std::invalid_argument);
}

std::vector<Pose> random_path(std::mt19937& rng, int n, const Vec3& start, const Vec3& step) {
  std::vector<Pose> out;
  for (int i = 0; i < n; ++i) out.push_back(test::make_pose(test::random_rotation(rng), start + i * step));
  return out;
}

TEST(SolveFrames, WarmStartedFramesMatchColdSolvesAndBroadcastSinglePoses) {
  std::mt19937 rng(7);
  const Shape s1 = idcol::benchmark_shape("poly"), s2 = idcol::benchmark_shape("se");
  const std::vector<Pose> X2 = random_path(rng, 40, Vec3(3.0, -1.0, 0.5), Vec3(-0.08, 0.05, 0.0));
  const std::vector<Pose> X1 = {test::make_pose(test::random_rotation(rng), Vec3(0.1, 0.2, -0.1))};
  const std::vector<ViewFrame> frames = solve_frames(s1, X1, s2, X2);
  ASSERT_EQ(frames.size(), X2.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    const idcol::ContactSolution cold = idcol::solve_contact(s1, X1[0], s2, X2[i]);
    ASSERT_TRUE(cold.ok());
    const idcol::ContactSolution& s = frames[i].solution;
    ASSERT_TRUE(s.ok()) << "frame " << i;
    EXPECT_EQ(frames[i].X_W1.p, X1[0].p);
    EXPECT_EQ(frames[i].X_W2.p, X2[i].p);
    EXPECT_NEAR(s.alpha, cold.alpha, 1e-8 * cold.alpha);
    EXPECT_LT((s.p1_W - cold.p1_W).norm(), 1e-7);
    EXPECT_LT((s.p2_W - cold.p2_W).norm(), 1e-7);
    EXPECT_LT((s.normal_W - cold.normal_W).norm(), 1e-7);
  }
  // broadcasting the other way round
  EXPECT_EQ(solve_frames(s1, X2, s2, X1).size(), X2.size());
}

TEST(SolveFrames, RejectsBadInput) {
  const Shape s = Sphere(1.0);
  const Pose far = test::make_pose(Mat3::Identity(), Vec3(3, 0, 0));
  std::vector<Pose> two(2, far), three(3, far);
  EXPECT_THROW(solve_frames(s, {}, s, {far}), std::invalid_argument);
  EXPECT_THROW(solve_frames(s, two, s, three), std::invalid_argument);
  std::vector<Pose> bad = {far, test::make_pose(Mat3::Identity(), Vec3(kNaN, 0, 0))};
  EXPECT_THROW(solve_frames(s, {Pose{}}, s, bad), std::invalid_argument);
  ViewOptions o;
  o.frame_duration = 0.0;
  EXPECT_THROW(solve_frames(s, {Pose{}}, s, {far}, o), std::invalid_argument);
  o = ViewOptions{};
  o.mesh_subdivisions = 9;
  EXPECT_THROW(render_html(s, Pose{}, s, far, o), std::invalid_argument);
  EXPECT_THROW(write_html("/nonexistent-dir/x/page.html", s, Pose{}, s, far), std::runtime_error);
}

// Independent base64 decoder for the scene's binary arrays.
std::vector<unsigned char> base64_decode(const std::string& s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::vector<unsigned char> out;
  unsigned buf = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    const int v = val(c);
    EXPECT_GE(v, 0) << "bad base64 character";
    buf = (buf << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<unsigned char>((buf >> bits) & 0xff));
    }
  }
  return out;
}

TEST(RenderHtml, PageIsSelfContainedAndKeepsTheLicense) {
  const Shape s1 = Sphere(1.0), s2 = idcol::benchmark_shape("poly");
  ViewOptions o;
  o.title = "a </script> & \"title\"";
  o.mesh_subdivisions = 2;
  const std::string page = render_html(s1, Pose{}, s2, test::make_pose(Mat3::Identity(), Vec3(2.5, 0.3, 0)), o);
  EXPECT_NE(page.find("SPDX-License-Identifier: MIT"), std::string::npos);
  EXPECT_NE(page.find("Permission is hereby granted, free of charge"), std::string::npos);
  EXPECT_NE(page.find(std::string("REVISION = '") + std::string(three_version()).substr(2, 3)), std::string::npos);
  EXPECT_NE(page.find("OrbitControls"), std::string::npos);
  for (const char* placeholder : {"@TITLE@", "@SCENE_JSON@", "@THREE_CORE@", "@THREE_MODULE@", "@ORBIT_CONTROLS@",
                                  "@VIEWER_JS@", "@THREE_LICENSE@", "@THREE_VERSION@"})
    EXPECT_EQ(page.find(placeholder), std::string::npos) << placeholder;
  // nothing fetched from the network
  for (const char* remote : {"src=\"http", "src='http", "href=\"http", "from 'http", "from \"http", "import(\"http"})
    EXPECT_EQ(page.find(remote), std::string::npos) << remote;
  // the title is escaped: exactly the template's own </script> closings remain
  size_t closings = 0;
  for (size_t at = page.find("</script>"); at != std::string::npos; at = page.find("</script>", at + 1)) ++closings;
  EXPECT_EQ(closings, 7u);  // scene, license, three core, three module, controls, viewer, loader
  EXPECT_NE(page.find("<title>a &lt;/script&gt; &amp; &quot;title&quot;</title>"), std::string::npos);
}

#ifdef DIFFCOL_TEST_HAVE_JSON
TEST(SceneJson, HoldsTheMeshesAndTheSolvedFrames) {
  std::mt19937 rng(11);
  const Shape s1 = idcol::benchmark_shape("tc"), s2 = idcol::benchmark_shape("sec");
  const std::vector<Pose> X1 = random_path(rng, 5, Vec3(0, 0, 0), Vec3(0.01, 0, 0));
  const std::vector<Pose> X2 = random_path(rng, 5, Vec3(2.5, 0.5, 0), Vec3(-0.2, 0, 0.05));
  ViewOptions o;
  o.mesh_subdivisions = 3;
  o.title = "t</script>";
  const std::string text = scene_json(s1, X1, s2, X2, o);
  EXPECT_EQ(text.find('<'), std::string::npos) << "'<' must be escaped inside the <script> element";
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["format"], "diffcol-view/1");
  EXPECT_EQ(j["title"], "t</script>");
  EXPECT_EQ(j["three_version"], three_version());
  ASSERT_EQ(j["shapes"].size(), 2u);
  const Shape* shapes[2] = {&s1, &s2};
  for (int i = 0; i < 2; ++i) {
    const auto& js = j["shapes"][i];
    EXPECT_EQ(js["type"], shape_type_name(shapes[i]->type()));
    const SurfaceMesh m = mesh_surface(*shapes[i], 3);
    const auto pos = base64_decode(js["mesh"]["positions"]);
    const auto nrm = base64_decode(js["mesh"]["normals"]);
    const auto idx = base64_decode(js["mesh"]["indices"]);
    ASSERT_EQ(js["mesh"]["vertex_count"].get<size_t>(), m.vertices.size());
    ASSERT_EQ(pos.size(), m.vertices.size() * 3 * sizeof(float));
    ASSERT_EQ(nrm.size(), pos.size());
    EXPECT_EQ(js["mesh"]["index_type"], "uint16");  // 642 vertices
    ASSERT_EQ(idx.size(), m.triangles.size() * 3 * sizeof(std::uint16_t));
    for (size_t v = 0; v < m.vertices.size(); ++v)
      for (int k = 0; k < 3; ++k) {
        float p, n;
        std::memcpy(&p, &pos[(3 * v + k) * 4], 4);
        std::memcpy(&n, &nrm[(3 * v + k) * 4], 4);
        EXPECT_EQ(p, static_cast<float>(m.vertices[v][k]));
        EXPECT_EQ(n, static_cast<float>(m.normals[v][k]));
      }
    for (size_t t = 0; t < m.triangles.size(); ++t)
      for (int k = 0; k < 3; ++k) {
        std::uint16_t value;
        std::memcpy(&value, &idx[(3 * t + k) * 2], 2);
        EXPECT_EQ(value, m.triangles[t][k]);
      }
  }
  const std::vector<ViewFrame> frames = solve_frames(s1, X1, s2, X2, o);
  ASSERT_EQ(j["frames"].size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    const auto& f = j["frames"][i];
    const auto& s = frames[i].solution;
    EXPECT_EQ(f["status"], diffcol::status_name(s.status));
    EXPECT_EQ(f["alpha"].get<double>(), s.alpha);  // %.17g round-trips
    EXPECT_EQ(f["gap"].get<double>(), s.gap);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(f["p1_W"][k].get<double>(), s.p1_W[k]);
      EXPECT_EQ(f["p2_W"][k].get<double>(), s.p2_W[k]);
      EXPECT_EQ(f["normal_W"][k].get<double>(), s.normal_W[k]);
      EXPECT_EQ(f["pose2"]["position"][k].get<double>(), X2[i].p[k]);
    }
    // quaternion [w,x,y,z] reproduces the rotation
    const auto& q = f["pose1"]["quaternion"];
    const Eigen::Quaterniond qq(q[0].get<double>(), q[1].get<double>(), q[2].get<double>(), q[3].get<double>());
    EXPECT_LT((qq.toRotationMatrix() - X1[i].R).norm(), 1e-12);
  }
  // the camera's bounding sphere holds both bodies in every frame
  const Vec3 c(j["bounds"]["center"][0].get<double>(), j["bounds"]["center"][1].get<double>(),
               j["bounds"]["center"][2].get<double>());
  const double r = j["bounds"]["radius"].get<double>();
  for (const auto& f : frames) {
    EXPECT_LE((f.X_W1.p - c).norm() + s1.outer_radius(), r * (1 + 1e-12));
    EXPECT_LE((f.X_W2.p - c).norm() + s2.outer_radius(), r * (1 + 1e-12));
  }
}
#endif

// ------------------------------------------------------------------ DCOL and DiffPills pages

// Signed "distance-like" functions of the shapes (< 0 inside, 0 on the surface, > 0 outside), in
// the shape frame, from the primitives' definitions (primitives.hpp, qp/shapes.hpp).
double segment_distance(const Vec3& y, const Vec3& a, const Vec3& b) {
  const Vec3 d = a - b;
  const double t = d.squaredNorm() > 0.0 ? std::clamp((y - b).dot(d) / d.squaredNorm(), 0.0, 1.0) : 0.0;
  return (y - (b + t * d)).norm();
}

// Distance from (x, y) to the convex polygon with vertices v (counter-clockwise), 0 inside.
double polygon_distance(const Eigen::Vector2d& p, const std::vector<Eigen::Vector2d>& v) {
  bool inside = true;
  double best = 1e300;
  for (size_t i = 0; i < v.size(); ++i) {
    const Eigen::Vector2d a = v[i], b = v[(i + 1) % v.size()], d = b - a;
    if (d.x() * (p - a).y() - d.y() * (p - a).x() < 0.0) inside = false;
    const double t = std::clamp((p - a).dot(d) / d.squaredNorm(), 0.0, 1.0);
    best = std::min(best, (p - (a + t * d)).norm());
  }
  return inside ? 0.0 : best;
}

double padded_polygon_value(const Vec3& y, const std::vector<Eigen::Vector2d>& v, double R) {
  const double dp = polygon_distance(Eigen::Vector2d(y.x(), y.y()), v);
  return std::hypot(dp, y.z()) - R;
}

double primitive_value(const dcol::Primitive& p, const Vec3& y) {
  return std::visit(
      [&](const auto& s) -> double {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, dcol::Polytope>) {
          double m = -1e300;
          for (int i = 0; i < s.num_faces; ++i) m = std::max(m, s.A.row(i).dot(y) - s.b[i]);
          return m;
        } else if constexpr (std::is_same_v<T, dcol::Capsule>) {
          return segment_distance(y, Vec3(0.5 * s.L, 0, 0), Vec3(-0.5 * s.L, 0, 0)) - s.R;
        } else if constexpr (std::is_same_v<T, dcol::Cylinder>) {
          return std::max(std::hypot(y.y(), y.z()) - s.R, std::abs(y.x()) - 0.5 * s.L);
        } else if constexpr (std::is_same_v<T, dcol::Cone>) {
          return std::max((std::hypot(y.y(), y.z()) - s.tan_beta * (y.x() + 0.75 * s.H)) * std::cos(s.beta),
                          y.x() - 0.25 * s.H);
        } else if constexpr (std::is_same_v<T, dcol::Ellipsoid>) {
          return std::sqrt(y.dot(s.P * y)) - 1.0;  // the gauge − 1
        } else if constexpr (std::is_same_v<T, dcol::PaddedPolygon>) {
          std::vector<Eigen::Vector2d> v;
          for (int i = 0; i < s.num_vertices; ++i) v.emplace_back(s.V(i, 0), s.V(i, 1));
          return padded_polygon_value(y, v, s.R);
        } else {
          return y.norm() - s.R;
        }
      },
      p);
}

// Closed, consistently oriented pieces are not required (flat faces and rings meet at shared
// positions, not shared indices): the checks are geometric.
void expect_surface_mesh(const SurfaceMesh& m, const std::function<double(const Vec3&)>& value, double size,
                         const std::string& what) {
  ASSERT_EQ(m.normals.size(), m.vertices.size()) << what;
  ASSERT_GT(m.triangles.size(), 0u) << what;
  int bad_vertex = 0, bad_normal = 0, bad_face = 0;
  for (size_t i = 0; i < m.vertices.size(); ++i) {
    const Vec3& v = m.vertices[i];
    const Vec3& n = m.normals[i];
    if (!(std::abs(value(v)) <= 1e-12 * size)) ++bad_vertex;
    // outward unit normal: a step along it leaves the body, and it is a supporting plane's normal
    // (no vertex, all of which lie on the surface, beyond the plane through v; at an edge or a
    // corner any normal of its normal cone is one)
    double beyond = -1e300;
    for (const Vec3& w : m.vertices) beyond = std::max(beyond, n.dot(w - v));
    if (!(std::abs(n.norm() - 1.0) < 1e-12 && value(v + 1e-6 * size * n) > 0.0 && beyond <= 1e-12 * size))
      ++bad_normal;
  }
  for (const auto& t : m.triangles) {
    for (const std::uint32_t i : t) ASSERT_LT(i, m.vertices.size()) << what;
    const Vec3 f = (m.vertices[t[1]] - m.vertices[t[0]]).cross(m.vertices[t[2]] - m.vertices[t[0]]);
    if (f.norm() < 1e-9 * size * size) continue;  // degenerate (a pole of a ring)
    for (const std::uint32_t i : t)
      if (!(f.dot(m.normals[i]) > 0.0)) ++bad_face;  // counter-clockwise seen from outside
  }
  EXPECT_EQ(bad_vertex, 0) << what << ": vertices off the surface";
  EXPECT_EQ(bad_normal, 0) << what << ": normals not outward unit normals";
  EXPECT_EQ(bad_face, 0) << what << ": triangles not counter-clockwise from outside";
}

std::vector<std::pair<std::string, dcol::Primitive>> sample_primitives() {
  Eigen::MatrixX3d A(8, 3);
  Eigen::VectorXd b(8);
  int r = 0;
  for (int sx : {-1, 1})
    for (int sy : {-1, 1})
      for (int sz : {-1, 1}) {
        A.row(r) << sx, sy, 1.5 * sz;
        b[r++] = sz > 0 ? 1.0 : 1.3;
      }
  return {{"box", dcol::Polytope::box(0.3, 0.5, 0.7)},
          {"octahedron", dcol::Polytope(A, b)},
          {"capsule", dcol::Capsule(0.4, 1.3)},
          {"cylinder", dcol::Cylinder(0.6, 1.5)},
          {"cone", dcol::Cone(2.0, 0.5)},
          {"ellipsoid", dcol::Ellipsoid::from_semi_axes(0.5, 1.0, 1.5)},
          {"padded_polygon", dcol::PaddedPolygon::rectangle(1.0, 0.6, 0.2)},
          {"sphere", dcol::Sphere(0.7)}};
}

TEST(PrimitiveMesh, VerticesOnTheSurfaceOutwardNormalsAndFaces) {
  for (const auto& [name, p] : sample_primitives())
    for (int k : {0, 3}) {
      const SurfaceMesh m = mesh_primitive(p, k);
      expect_surface_mesh(
          m, [&](const Vec3& y) { return primitive_value(p, y); }, dcol::outer_radius(p),
          name + " k=" + std::to_string(k));
    }
  const qp::Capsule cap = qp::Capsule::from_end_points(Vec3(0.3, -0.2, 0.9), Vec3(-0.5, 0.4, 0.1), 0.25);
  expect_surface_mesh(
      mesh_qp_shape(cap, 3), [&](const Vec3& y) { return segment_distance(y, cap.a_B(), cap.b_B()) - 0.25; }, 1.5,
      "qp capsule");
  const qp::Capsule ball = qp::Capsule::from_end_points(Vec3(0.1, 0.2, 0.3), Vec3(0.1, 0.2, 0.3), 0.5);
  expect_surface_mesh(
      mesh_qp_shape(ball, 2), [&](const Vec3& y) { return (y - Vec3(0.1, 0.2, 0.3)).norm() - 0.5; }, 1.0,
      "qp zero-length capsule");
  const std::vector<qp::Vec2> tri = {{0, 0}, {1, 0}, {0.2, 0.8}};
  const qp::PaddedPolygon poly = qp::PaddedPolygon::from_vertices(tri, 0.1);
  expect_surface_mesh(
      mesh_qp_shape(poly, 3),
      [&](const Vec3& y) { return padded_polygon_value(y, std::vector<Eigen::Vector2d>(tri.begin(), tri.end()), 0.1); },
      1.0, "qp triangle");
}

TEST(PrimitiveMesh, VolumesConvergeToClosedFormsFromBelow) {
  const double pi = M_PI;
  const auto padded_rect = [pi](double hx, double hy, double R) {
    return 8 * hx * hy * R + 4 * (hx + hy) * pi * R * R / 2 + 4.0 / 3.0 * pi * R * R * R;
  };
  const std::vector<std::pair<dcol::Primitive, double>> cases = {
      {dcol::Polytope::box(0.3, 0.5, 0.7), 8 * 0.3 * 0.5 * 0.7},
      {dcol::Capsule(0.4, 1.3), pi * 0.16 * 1.3 + 4.0 / 3.0 * pi * 0.064},
      {dcol::Cylinder(0.6, 1.5), pi * 0.36 * 1.5},
      {dcol::Cone(2.0, 0.5), pi * std::pow(2.0 * std::tan(0.5), 2) * 2.0 / 3.0},
      {dcol::Ellipsoid::from_semi_axes(0.5, 1.0, 1.5), 4.0 / 3.0 * pi * 0.75},
      {dcol::PaddedPolygon::rectangle(1.0, 0.6, 0.2), padded_rect(1.0, 0.6, 0.2)},
      {dcol::Sphere(0.7), 4.0 / 3.0 * pi * 0.343}};
  for (const auto& [p, exact] : cases) {
    const std::string name = dcol::primitive_type_name(dcol::primitive_type(p));
    double previous = 0.0;
    for (int k = 1; k <= 5; ++k) {
      const double v = mesh_volume(mesh_primitive(p, k));
      EXPECT_LE(v, exact * (1 + 1e-12)) << name << " k=" << k;  // inscribed
      EXPECT_GE(v, previous * (1 - 1e-12)) << name << " k=" << k;  // refines monotonically
      previous = v;
    }
    EXPECT_NEAR(previous / exact, 1.0, 1e-3) << name;
  }
  // DiffPills shapes: a capsule of length 1.7, radius 0.3 (any axis), the hexagon of circumradius 1 padded by 0.2
  const qp::Capsule cap = qp::Capsule::from_end_points(Vec3(0.3, -0.2, 0.9), Vec3(-0.5, 0.4, 0.9 - 1.4), 0.3);
  const double L = cap.length();
  EXPECT_NEAR(mesh_volume(mesh_qp_shape(cap, 5)) / (pi * 0.09 * L + 4.0 / 3.0 * pi * 0.027), 1.0, 1e-3);
  std::vector<qp::Vec2> hex;
  for (int i = 0; i < 6; ++i) hex.emplace_back(std::cos(i * pi / 3), std::sin(i * pi / 3));
  const double R = 0.2, area = 1.5 * std::sqrt(3.0), perimeter = 6.0;
  const double hex_volume = area * 2 * R + perimeter * pi * R * R / 2 + 4.0 / 3.0 * pi * R * R * R;
  EXPECT_NEAR(mesh_volume(mesh_qp_shape(qp::PaddedPolygon::from_vertices(hex, R), 5)) / hex_volume, 1.0, 1e-3);
  EXPECT_THROW(mesh_primitive(dcol::Sphere(1.0), 8), std::invalid_argument);
  EXPECT_THROW(mesh_qp_shape(cap, -1), std::invalid_argument);
}

TEST(DcolNormal, IsTheSeparatingNormalOfTheUnscaledShapes) {
  // Closed forms: two spheres (the centre line), a sphere over a box face (the face normal).
  const dcol::ContactResult spheres = dcol::solve_contact(dcol::Sphere(1.0), Pose::identity(), dcol::Sphere(0.5),
                                                          Pose::from_quaternion(Vec3(1.0, 2.0, -0.5), 1, 0, 0, 0));
  ASSERT_TRUE(spheres.ok());
  EXPECT_LT((dcol_normal(spheres) - Vec3(1.0, 2.0, -0.5).normalized()).norm(), 1e-9);
  const dcol::ContactResult face = dcol::solve_contact(dcol::Polytope::box(1.0, 1.0, 1.0), Pose::identity(),
                                                       dcol::Sphere(0.5), Pose::from_quaternion(Vec3(0.3, 0.2, 2.5), 1, 0, 0, 0));
  ASSERT_TRUE(face.ok());
  EXPECT_LT((dcol_normal(face) - Vec3::UnitZ()).norm(), 1e-8);
  // Every pair of sample primitives at random poses: p1 maximizes nᵀy over body 1 and p2 minimizes
  // it over body 2 (the plane through x* with normal n separates the scaled shapes, eq. (29) maps
  // it to the unscaled ones), checked on fine meshes of both bodies.
  std::mt19937 rng(5);
  std::normal_distribution<double> g;
  const auto prims = sample_primitives();
  int checked = 0;
  for (const auto& [n1, s1] : prims)
    for (const auto& [n2, s2] : prims) {
      const Eigen::Quaterniond q1 = Eigen::Quaterniond(g(rng), g(rng), g(rng), g(rng)).normalized();
      const Eigen::Quaterniond q2 = Eigen::Quaterniond(g(rng), g(rng), g(rng), g(rng)).normalized();
      const Pose X1 = Pose::from_quaternion(Vec3(g(rng), g(rng), g(rng)) * 0.2, q1.w(), q1.x(), q1.y(), q1.z());
      const Vec3 dir = Vec3(g(rng), g(rng), g(rng)).normalized();
      const double sep = (dcol::outer_radius(s1) + dcol::outer_radius(s2)) * (checked % 2 ? 1.2 : 0.6);
      const Pose X2 = Pose::from_quaternion(X1.p + sep * dir, q2.w(), q2.x(), q2.y(), q2.z());
      auto r = std::make_unique<dcol::ContactResult>();
      dcol::solve_contact(s1, X1, s2, X2, *r);
      ASSERT_TRUE(r->ok()) << n1 << "-" << n2;
      const Vec3 n = dcol_normal(*r);
      EXPECT_NEAR(n.norm(), 1.0, 1e-12);
      const double size = std::max(dcol::outer_radius(s1), dcol::outer_radius(s2));
      double over1 = -1e300, under2 = 1e300;
      for (const Vec3& v : mesh_primitive(s1, 4).vertices) over1 = std::max(over1, n.dot(r->X_WS1 * v - r->p1_W));
      for (const Vec3& v : mesh_primitive(s2, 4).vertices) under2 = std::min(under2, n.dot(r->X_WS2 * v - r->p2_W));
      EXPECT_LE(over1, 1e-7 * size) << n1 << "-" << n2 << ": body 1 reaches past p1 along n";
      EXPECT_GE(under2, -1e-7 * size) << n1 << "-" << n2 << ": body 2 reaches before p2 along n";
      ++checked;
    }
  EXPECT_EQ(checked, 64);
}

#ifdef DIFFCOL_TEST_HAVE_JSON
// The decoded float32 positions of a scene mesh.
std::vector<Vec3> scene_positions(const nlohmann::json& mesh) {
  const auto pos = base64_decode(mesh["positions"]);
  std::vector<Vec3> out(mesh["vertex_count"].get<size_t>());
  EXPECT_EQ(pos.size(), out.size() * 12);
  for (size_t v = 0; v < out.size(); ++v)
    for (int k = 0; k < 3; ++k) {
      float f;
      std::memcpy(&f, &pos[(3 * v + k) * 4], 4);
      out[v][k] = f;
    }
  return out;
}

Vec3 json_vec(const nlohmann::json& j) { return Vec3(j[0].get<double>(), j[1].get<double>(), j[2].get<double>()); }

TEST(DcolScene, HoldsThePrimitivesTheSolvedFramesAndTheNormals) {
  // a cone on a body with an offset, against a box sliding past it
  const Pose offset = Pose::from_quaternion(Vec3(0.2, 0.0, 0.1), std::cos(0.3), 0.0, std::sin(0.3), 0.0);
  const dcol::Primitive s1 = dcol::Cone(1.5, 0.4, offset);
  const dcol::Primitive s2 = dcol::Polytope::box(0.4, 0.3, 0.5);
  std::vector<Pose> X2;
  for (int i = 0; i < 4; ++i) X2.push_back(Pose::from_quaternion(Vec3(2.2 - 0.5 * i, 0.3, 0.2), 1, 0, 0, 0));
  ViewOptions o;
  o.mesh_subdivisions = 2;
  const auto j = nlohmann::json::parse(dcol_scene_json(s1, {Pose::identity()}, s2, X2, o));
  EXPECT_EQ(j["format"], "diffcol-view/1");
  EXPECT_EQ(j["method"], "dcol");
  EXPECT_EQ(j["settings"]["show_scaled_shapes"], false);  // off by default
  EXPECT_EQ(j["shapes"][0]["type"], "cone");
  EXPECT_EQ(j["shapes"][1]["type"], "polytope");
  EXPECT_EQ(j["shapes"][1]["description"], "polytope(6 faces, 8 vertices)");
  // the meshes are those of mesh_primitive (shape frame), to float precision
  const dcol::Primitive* shapes[2] = {&s1, &s2};
  for (int i = 0; i < 2; ++i) {
    const SurfaceMesh m = mesh_primitive(*shapes[i], 2);
    const std::vector<Vec3> pos = scene_positions(j["shapes"][i]["mesh"]);
    ASSERT_EQ(pos.size(), m.vertices.size());
    for (size_t v = 0; v < pos.size(); ++v) EXPECT_LT((pos[v] - m.vertices[v]).norm(), 1e-6);
  }
  ASSERT_EQ(j["frames"].size(), 4u);
  int touching = 0;
  for (size_t i = 0; i < 4; ++i) {
    const auto& f = j["frames"][i];
    const dcol::ContactResult r = dcol::solve_contact(s1, Pose::identity(), s2, X2[i]);
    EXPECT_EQ(f["status"], diffcol::status_name(r.status));
    EXPECT_EQ(f["alpha"].get<double>(), r.alpha);
    EXPECT_EQ(f["gap"].get<double>(), r.gap);
    EXPECT_LT((json_vec(f["p1_W"]) - r.p1_W).norm(), 1e-15 + 1e-15 * r.p1_W.norm());
    EXPECT_LT((json_vec(f["p2_W"]) - r.p2_W).norm(), 1e-15 + 1e-15 * r.p2_W.norm());
    EXPECT_LT((json_vec(f["x_W"]) - r.x_W).norm(), 1e-15 + 1e-15 * r.x_W.norm());
    EXPECT_LT((json_vec(f["normal_W"]) - dcol_normal(r)).norm(), 1e-15);
    // pose1 is the cone's shape pose X_WB·offset (the mesh frame, scaled about its origin)
    EXPECT_LT((json_vec(f["pose1"]["position"]) - offset.p).norm(), 1e-15);
    // the witness points lie on the surfaces: p1 on the cone, p2 on the box
    EXPECT_NEAR(primitive_value(s1, r.X_WS1.inverse() * r.p1_W), 0.0, 1e-9);
    EXPECT_NEAR(primitive_value(s2, r.X_WS2.inverse() * r.p2_W), 0.0, 1e-9);
    touching += r.alpha < 1.0;
  }
  EXPECT_GT(touching, 0);   // the box passes into the cone
  EXPECT_LT(touching, 4);   // and starts apart
  EXPECT_NE(render_dcol_html(s1, {Pose::identity()}, s2, X2, o).find("\"method\":\"dcol\""), std::string::npos);
  EXPECT_THROW(dcol_scene_json(s1, {}, s2, X2, o), std::invalid_argument);
  EXPECT_THROW(dcol_scene_json(s1, {Pose::identity(), Pose::identity()}, s2, X2, o), std::invalid_argument);
  ViewOptions bad = o;
  bad.dcol_options.max_iterations = -1;
  EXPECT_THROW(dcol_scene_json(s1, {Pose::identity()}, s2, X2, bad), std::invalid_argument);
}

TEST(QpScene, HoldsTheShapesTheClosestPointsAndTheNormals) {
  const QpShape s1 = qp::Capsule(0.5, 2.0);
  const QpShape s2 = qp::PaddedPolygon::rectangle(1.0, 0.5, 0.1);
  const std::vector<Pose> X2 = {Pose::from_quaternion(Vec3(0.5, 1.6, 0.3), 0.9, 0.1, 0.3, 0.2),
                                Pose::from_quaternion(Vec3(0.5, 0.9, 0.2), 0.9, 0.1, 0.3, 0.2)};
  ViewOptions o;
  o.mesh_subdivisions = 2;
  const auto j = nlohmann::json::parse(qp_scene_json(s1, {Pose::identity()}, s2, X2, o));
  EXPECT_EQ(j["method"], "qp");
  EXPECT_EQ(j["shapes"][0]["type"], "capsule");
  EXPECT_EQ(j["shapes"][1]["type"], "padded_polygon");
  EXPECT_EQ(j["shapes"][0]["description"], "capsule(a=1/0/0, b=-1/0/0, radius=0.5)");
  const SurfaceMesh m2 = mesh_qp_shape(std::get<qp::PaddedPolygon>(s2), 2);
  const std::vector<Vec3> pos2 = scene_positions(j["shapes"][1]["mesh"]);
  ASSERT_EQ(pos2.size(), m2.vertices.size());
  for (size_t v = 0; v < pos2.size(); ++v) EXPECT_LT((pos2[v] - m2.vertices[v]).norm(), 1e-6);
  ASSERT_EQ(j["frames"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& f = j["frames"][i];
    const qp::ProximityResult r =
        qp::proximity(std::get<qp::Capsule>(s1), Pose::identity(), std::get<qp::PaddedPolygon>(s2), X2[i]);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(f["status"], "ok");
    EXPECT_EQ(f["signed_distance"].get<double>(), r.signed_distance);
    EXPECT_EQ(f["phi"].get<double>(), r.phi);
    const Vec3 c1 = json_vec(f["p1_W"]), c2 = json_vec(f["p2_W"]), n = json_vec(f["normal_W"]);
    EXPECT_LT((c1 - r.p1_W).norm(), 1e-15);
    EXPECT_LT((c2 - r.p2_W).norm(), 1e-15);
    EXPECT_LT((json_vec(f["core1_W"]) - r.core1_W).norm(), 1e-15);
    // independently: closest1 on the capsule's surface, closest2 on the padded rectangle's, the
    // normal along closest2 − closest1 and as long apart as the signed distance
    EXPECT_NEAR(segment_distance(c1, Vec3(1, 0, 0), Vec3(-1, 0, 0)), 0.5, 1e-12);
    const std::vector<Eigen::Vector2d> rect = {{-1, -0.5}, {1, -0.5}, {1, 0.5}, {-1, 0.5}};
    EXPECT_NEAR(padded_polygon_value(X2[i].inverse() * c2, rect, 0.1), 0.0, 1e-12);
    EXPECT_NEAR(n.norm(), 1.0, 1e-12);
    EXPECT_NEAR((c2 - c1).dot(n), r.signed_distance, 1e-12);
    EXPECT_LT((c2 - c1 - (c2 - c1).dot(n) * n).norm(), 1e-12);
  }
  EXPECT_GT(j["frames"][0]["signed_distance"].get<double>(), 0.0);
  EXPECT_LT(j["frames"][1]["signed_distance"].get<double>(), 0.0);
  ViewOptions bad = o;
  bad.qp_options.certificate_tolerance = 1.0;
  EXPECT_THROW(qp_scene_json(s1, {Pose::identity()}, s2, X2, bad), std::invalid_argument);
}
#endif

// ------------------------------------------------------------------ mesh pages (manifolds, rollouts)

manifold::ContactObject unit_cube(int n) {
  const Eigen::Vector3d size(1.0, 1.0, 1.0);
  return manifold::ContactObject(manifold::make_refined_box(size, n), manifold::make_box_sdf(size, 0.1));
}

TEST(MeshPage, ManifoldSceneHoldsTheManifoldOfEveryFrame) {
  const manifold::ContactObject b1 = unit_cube(2), b2 = unit_cube(2);
  const std::vector<Pose> X2 = {Pose::from_quaternion(Vec3(0.0, 0.0, 1.4), 1, 0, 0, 0),
                                Pose::from_quaternion(Vec3(0.1, 0.0, 0.99), 1, 0, 0, 0)};
  const MeshScene scene = manifold_scene(b1, {Pose::identity()}, b2, X2);
  ASSERT_EQ(scene.poses.size(), 2u);
  ASSERT_EQ(scene.manifolds.size(), 2u);
  manifold::ManifoldWorkspace ws;
  manifold::ContactManifold ref;
  for (size_t f = 0; f < 2; ++f) {
    manifold::compute_manifold(b1, Pose::identity(), b2, X2[f], manifold::ManifoldOptions{}, ws, ref);
    ASSERT_EQ(scene.manifolds[f].points.size(), ref.entries.size());
    for (size_t i = 0; i < ref.entries.size(); ++i) {
      EXPECT_EQ(scene.manifolds[f].activities[i], ref.entries[i].activity);
      EXPECT_EQ(scene.manifolds[f].points[i], ref.entries[i].point);
    }
  }
  double max0 = 0.0, max1 = 0.0;
  for (double a : scene.manifolds[0].activities) max0 = std::max(max0, a);
  for (double a : scene.manifolds[1].activities) max1 = std::max(max1, a);
  EXPECT_LT(max0, 0.1);  // apart
  EXPECT_GT(max1, 0.9);  // in contact
  const std::string json = mesh_scene_json(scene);
  EXPECT_NE(json.find("\"format\":\"diffcol-mesh-view/1\""), std::string::npos);
  EXPECT_NE(json.find("\"count\":" + std::to_string(ref.entries.size())), std::string::npos);
  const std::string page = render_mesh_html(scene);
  EXPECT_NE(page.find("diffcol-mesh-view/1"), std::string::npos);
  EXPECT_EQ(page.find("@SCENE_JSON@"), std::string::npos);
}

TEST(MeshPage, RejectsInvalidScenes) {
  MeshScene scene;
  EXPECT_THROW(mesh_scene_json(scene), std::invalid_argument);  // no mesh
  scene.meshes = {mesh::make_box(Vec3(1, 1, 1))};
  EXPECT_THROW(mesh_scene_json(scene), std::invalid_argument);  // no frame
  scene.poses = {{Pose::identity(), Pose::identity()}};
  EXPECT_THROW(mesh_scene_json(scene), std::invalid_argument);  // two poses for one mesh
  scene.poses = {{Pose::identity()}};
  EXPECT_NO_THROW(mesh_scene_json(scene));
  scene.names = {"a", "b"};
  EXPECT_THROW(mesh_scene_json(scene), std::invalid_argument);
  scene.names.clear();
  scene.manifolds.resize(1);
  scene.manifolds[0].points = {Vec3::Zero()};
  EXPECT_THROW(mesh_scene_json(scene), std::invalid_argument);  // sizes differ
  scene.manifolds[0].normals = {Vec3::UnitZ()};
  scene.manifolds[0].distances = {0.0};
  scene.manifolds[0].activities = {std::nan("")};
  EXPECT_THROW(mesh_scene_json(scene), std::invalid_argument);  // not finite
  scene.manifolds[0].activities = {0.5};
  EXPECT_NO_THROW(mesh_scene_json(scene));
  ViewOptions o;
  o.min_activity = 1.5;
  EXPECT_THROW(mesh_scene_json(scene, o), std::invalid_argument);
  o.min_activity = 0.1;
  o.normal_length = -1.0;
  EXPECT_THROW(mesh_scene_json(scene, o), std::invalid_argument);
  Pose bad = Pose::identity();
  bad.p.x() = std::nan("");
  scene.poses = {{bad}};
  EXPECT_THROW(mesh_scene_json(scene), std::invalid_argument);
  EXPECT_THROW(manifold_scene(unit_cube(1), {}, unit_cube(1), {Pose::identity()}), std::invalid_argument);
}

}  // namespace
}  // namespace diffcol::view
