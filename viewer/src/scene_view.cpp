// A scene and its close pairs as a mesh page (view.hpp, scene_mesh_view).
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>

#include "diffcol/view/view.hpp"

namespace diffcol::view {

namespace {

// The surface of a scene shape in its own frame.
SurfaceMesh surface_of(const scene::CollisionShape& shape, int subdivisions) {
  struct Visitor {
    int k;
    SurfaceMesh operator()(const Shape& s) const { return mesh_surface(s, k); }
    SurfaceMesh operator()(const dcol::Primitive& p) const { return mesh_primitive(p, k); }
    SurfaceMesh operator()(const qp::Capsule& c) const { return mesh_qp_shape(c, k); }
    SurfaceMesh operator()(const qp::PaddedPolygon& p) const { return mesh_qp_shape(p, k); }
  };
  return std::visit(Visitor{subdivisions}, shape.variant());
}

// A closed triangle mesh of the surface: vertices repeated along the surface meshes' seams (the
// same point, to rounding) are merged and the triangles they collapse dropped.
mesh::TriangleMesh triangle_mesh(const SurfaceMesh& s) {
  double size = 0.0;
  for (const Vec3& v : s.vertices) size = std::max(size, v.cwiseAbs().maxCoeff());
  const double cell = 1e-9 * (size > 0.0 ? size : 1.0);
  std::map<std::array<long long, 3>, int> index;
  std::vector<Vec3> vertices;
  std::vector<int> merged(s.vertices.size());
  for (size_t i = 0; i < s.vertices.size(); ++i) {
    const Vec3& v = s.vertices[i];
    const std::array<long long, 3> key = {std::llround(v.x() / cell), std::llround(v.y() / cell), std::llround(v.z() / cell)};
    const auto [it, added] = index.emplace(key, static_cast<int>(vertices.size()));
    if (added) vertices.push_back(v);
    merged[i] = it->second;
  }
  std::vector<mesh::Face> faces;
  faces.reserve(s.triangles.size());
  for (const auto& t : s.triangles) {
    const int a = merged[t[0]], b = merged[t[1]], c = merged[t[2]];
    if (a != b && b != c && a != c) faces.push_back({a, b, c});
  }
  return mesh::TriangleMesh(std::move(vertices), std::move(faces));
}

}  // namespace

MeshScene scene_mesh_view(const scene::Scene& s, const scene::QueryResult& pairs, int subdivisions) {
  if (s.num_shapes() == 0) throw std::invalid_argument("scene_mesh_view: the scene has no shapes");
  MeshScene out;
  std::vector<Pose> poses;
  for (int i = 0; i < s.num_shapes(); ++i) {
    const scene::SceneShape& shape = s.shape(i);
    out.meshes.push_back(triangle_mesh(surface_of(shape.shape, subdivisions)));
    out.names.push_back(s.body(shape.body).name + "/" + shape.name);
    poses.push_back(s.shape_pose(i));
  }
  out.poses.push_back(std::move(poses));
  ManifoldMarkers markers;
  for (const scene::PairResult& p : pairs.pairs) {
    if (p.shape1 < 0 || p.shape1 >= s.num_shapes() || p.shape2 < 0 || p.shape2 >= s.num_shapes())
      throw std::invalid_argument("scene_mesh_view: a pair names shape " + std::to_string(p.shape1) + " or " +
                                  std::to_string(p.shape2) + ", not in this scene");
    markers.points.push_back(p.p1_W);
    markers.normals.push_back(p.normal_W);
    markers.distances.push_back(p.has_distance ? p.distance : p.gap);
    markers.activities.push_back(1.0);
  }
  out.manifolds.push_back(std::move(markers));
  return out;
}

}  // namespace diffcol::view
