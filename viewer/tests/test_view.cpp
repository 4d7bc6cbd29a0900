// Tests of the viewer library: surface meshes against closed-form volumes and normals, mesh
// topology, per-frame solves against cold solves, the scene JSON and the page text.
// (The page itself is tested in a browser by viewer/tests/browser_test.py.)
#include <cmath>
#include <cstring>
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
  const Shape shape = Superellipsoid(2, 0.5, 1.0, 1.5);
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
    expect_volume_converges(Superellipsoid(n, 0.5, 1.0, 1.5), V, 3e-3, "superellipsoid");
  }
  // |y1/h|^p + (r/R)^p ≤ 1: V = 2h·πR²·∫_0^1 (1 − s^p)^(2/p) ds
  for (int n : {1, 2, 4}) {
    const double p = 2.0 * n, R = 0.6, h = 0.9;
    const double V = 2.0 * h * M_PI * R * R * beta_integral(p, 2.0 / p);
    expect_volume_converges(SuperellipticCylinder(n, R, h), V, 2e-3, "superelliptic cylinder");
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

  const SmoothTruncatedCone cone(20.0, 1.0, 0.5, 1.0, 1.2);
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
    EXPECT_EQ(f["status"], idcol::status_name(s.status));
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
