// A scene and its close pairs as a mesh page (view.hpp, scene_mesh_view).
#include <algorithm>
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

// A closed triangle mesh of the surface: the surface meshes repeat vertices along their seams
// (the same point, to rounding), welded here.
mesh::TriangleMesh triangle_mesh(const SurfaceMesh& s) {
  double size = 0.0;
  for (const Vec3& v : s.vertices) size = std::max(size, v.cwiseAbs().maxCoeff());
  std::vector<Vec3> corners;
  corners.reserve(3 * s.triangles.size());
  for (const auto& t : s.triangles)
    for (const std::uint32_t k : t) corners.push_back(s.vertices[k]);
  return mesh::weld(corners, 1e-9 * (size > 0.0 ? size : 1.0));
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

MeshScene scene_animation(const scene::Scene& s, const std::vector<std::vector<Pose>>& body_poses,
                          int subdivisions) {
  if (s.num_shapes() == 0) throw std::invalid_argument("scene_animation: the scene has no shapes");
  if (body_poses.empty()) throw std::invalid_argument("scene_animation: no frames");
  MeshScene out;
  for (int i = 0; i < s.num_shapes(); ++i) {
    const scene::SceneShape& shape = s.shape(i);
    out.meshes.push_back(triangle_mesh(surface_of(shape.shape, subdivisions)));
    out.names.push_back(s.body(shape.body).name + "/" + shape.name);
  }
  out.poses.reserve(body_poses.size());
  for (std::size_t f = 0; f < body_poses.size(); ++f) {
    const std::vector<Pose>& frame = body_poses[f];
    if (static_cast<int>(frame.size()) != s.num_bodies())
      throw std::invalid_argument("scene_animation: frame " + std::to_string(f) + " has " +
                                  std::to_string(frame.size()) + " poses for " + std::to_string(s.num_bodies()) +
                                  " bodies");
    std::vector<Pose> poses;
    poses.reserve(s.num_shapes());
    for (int i = 0; i < s.num_shapes(); ++i) {
      const scene::SceneShape& shape = s.shape(i);
      const Pose& X_WB = frame[shape.body];
      if (!X_WB.is_finite())
        throw std::invalid_argument("scene_animation: frame " + std::to_string(f) + ", body " +
                                    std::to_string(shape.body) + ": the pose is not finite");
      poses.push_back(X_WB * shape.X_BS);
    }
    out.poses.push_back(std::move(poses));
  }
  return out;
}

}  // namespace diffcol::view
