// The HTML viewer: surface meshes, per-frame contact solves, the scene JSON and the page.
#include "diffcol/view/view.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <type_traits>
#include <stdexcept>
#include <utility>

#include <Eigen/Eigenvalues>

#include "assets.hpp"

namespace diffcol::view {
namespace {

static_assert(std::endian::native == std::endian::little, "the scene's binary arrays are little-endian");

// ------------------------------------------------------------------ icosphere

// Unit directions and triangles of an icosahedron subdivided k times (each triangle into 4).
void icosphere(int k, std::vector<Vec3>& dirs, std::vector<std::array<std::uint32_t, 3>>& tris) {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  dirs = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
          {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  for (Vec3& d : dirs) d.normalize();
  tris = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
          {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
          {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
  for (int level = 0; level < k; ++level) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> midpoint;
    auto mid = [&](std::uint32_t a, std::uint32_t b) {
      const auto key = std::minmax(a, b);
      const auto it = midpoint.find(key);
      if (it != midpoint.end()) return it->second;
      dirs.push_back((dirs[a] + dirs[b]).normalized());
      const auto i = static_cast<std::uint32_t>(dirs.size() - 1);
      midpoint.emplace(key, i);
      return i;
    };
    std::vector<std::array<std::uint32_t, 3>> next;
    next.reserve(4 * tris.size());
    for (const auto& f : tris) {
      const std::uint32_t ab = mid(f[0], f[1]), bc = mid(f[1], f[2]), ca = mid(f[2], f[0]);
      next.push_back({f[0], ab, ca});
      next.push_back({f[1], bc, ab});
      next.push_back({f[2], ca, bc});
      next.push_back({ab, bc, ca});
    }
    tris = std::move(next);
  }
}

// ------------------------------------------------------------------ JSON / HTML text

void append_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out += buf;
}

void append_vec(std::string& out, const Vec3& v) {
  out += '[';
  for (int i = 0; i < 3; ++i) {
    if (i) out += ',';
    append_number(out, v[i]);
  }
  out += ']';
}

// A JSON string; '<', '>' and '&' as \u escapes so the text can sit inside a <script> element.
void append_string(std::string& out, const std::string& s) {
  out += '"';
  for (const unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == '<' || c == '>' || c == '&') {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

void append_base64(std::string& out, const unsigned char* data, size_t n) {
  static const char* kDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const unsigned v = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += kDigits[(v >> 6) & 63];
    out += kDigits[v & 63];
  }
  if (i < n) {
    const unsigned v = (data[i] << 16) | (i + 1 < n ? data[i + 1] << 8 : 0);
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < n ? kDigits[(v >> 6) & 63] : '=';
    out += '=';
  }
}

template <class T>
void append_base64_array(std::string& out, const std::vector<T>& values) {
  out += '"';
  append_base64(out, reinterpret_cast<const unsigned char*>(values.data()), values.size() * sizeof(T));
  out += '"';
}

void append_pose(std::string& out, const Pose& X) {
  const Eigen::Quaterniond q = X.quaternion();
  out += "{\"position\":";
  append_vec(out, X.p);
  out += ",\"quaternion\":[";
  append_number(out, q.w());
  out += ',';
  append_number(out, q.x());
  out += ',';
  append_number(out, q.y());
  out += ',';
  append_number(out, q.z());
  out += "]}";
}

void append_mesh(std::string& out, const SurfaceMesh& mesh) {
  std::vector<float> positions, normals;
  positions.reserve(3 * mesh.vertices.size());
  normals.reserve(3 * mesh.normals.size());
  for (size_t i = 0; i < mesh.vertices.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      positions.push_back(static_cast<float>(mesh.vertices[i][k]));
      normals.push_back(static_cast<float>(mesh.normals[i][k]));
    }
  // 16-bit indices when they fit (halves the largest array)
  const bool small = mesh.vertices.size() <= 65536;
  std::vector<std::uint32_t> indices32;
  std::vector<std::uint16_t> indices16;
  for (const auto& t : mesh.triangles)
    for (const std::uint32_t i : t) {
      if (small) indices16.push_back(static_cast<std::uint16_t>(i));
      else indices32.push_back(i);
    }
  out += "{\"vertex_count\":" + std::to_string(mesh.vertices.size());
  out += ",\"triangle_count\":" + std::to_string(mesh.triangles.size());
  out += ",\"positions\":";
  append_base64_array(out, positions);
  out += ",\"normals\":";
  append_base64_array(out, normals);
  out += small ? ",\"index_type\":\"uint16\",\"indices\":" : ",\"index_type\":\"uint32\",\"indices\":";
  if (small) append_base64_array(out, indices16);
  else append_base64_array(out, indices32);
  out += '}';
}

void validate(const ViewOptions& options) {
  if (options.mesh_subdivisions < 0 || options.mesh_subdivisions > 7)
    throw std::invalid_argument("view: mesh_subdivisions must be in [0, 7], got " +
                                std::to_string(options.mesh_subdivisions));
  if (!std::isfinite(options.frame_duration) || options.frame_duration <= 0.0)
    throw std::invalid_argument("view: frame_duration must be finite and > 0");
}

}  // namespace

// ------------------------------------------------------------------ meshing

SurfaceMesh mesh_surface(const Shape& shape, int subdivisions) {
  if (subdivisions < 0 || subdivisions > 7)
    throw std::invalid_argument("mesh_surface: subdivisions must be in [0, 7], got " + std::to_string(subdivisions));
  SurfaceMesh mesh;
  icosphere(subdivisions, mesh.vertices, mesh.triangles);
  const double r_out = shape.outer_radius();
  mesh.normals.resize(mesh.vertices.size());
  for (size_t i = 0; i < mesh.vertices.size(); ++i) {
    const Vec3 u = mesh.vertices[i];
    // bracket: φ(0) < 0 (origin strictly inside), φ(hi·u) ≥ 0 (outer_radius bounds the shape)
    double lo = 0.0, hi = r_out;
    for (int grow = 0; grow < 60 && shape.value(hi * u) < 0.0; ++grow) {
      lo = hi;
      hi *= 2.0;
    }
    for (int it = 0; it < 200 && hi - lo > 1e-13 * r_out; ++it) {
      const double t = 0.5 * (lo + hi);
      (shape.value(t * u) < 0.0 ? lo : hi) = t;
    }
    const Vec3 v = 0.5 * (lo + hi) * u;
    Vec3 grad;
    Mat3 hess;
    shape.eval(v, grad, hess);
    const double g = grad.norm();
    mesh.vertices[i] = v;
    mesh.normals[i] = g > 0.0 && std::isfinite(g) ? Vec3(grad / g) : u;
  }
  return mesh;
}

// ------------------------------------------------------------------ frames, scene, page

std::vector<ViewFrame> solve_frames(const Shape& shape1, const std::vector<Pose>& X_W1, const Shape& shape2,
                                    const std::vector<Pose>& X_W2, const ViewOptions& options) {
  validate(options);
  if (X_W1.empty() || X_W2.empty()) throw std::invalid_argument("view: the pose sequences must not be empty");
  if (X_W1.size() != X_W2.size() && X_W1.size() != 1 && X_W2.size() != 1)
    throw std::invalid_argument("view: pose sequences of different lengths (" + std::to_string(X_W1.size()) +
                                " and " + std::to_string(X_W2.size()) + "); give one pose or one per frame");
  const size_t n = std::max(X_W1.size(), X_W2.size());
  std::vector<ViewFrame> frames(n);
  idcol::ContactPair pair(shape1, shape2, options.solve_options);
  for (size_t i = 0; i < n; ++i) {
    ViewFrame& f = frames[i];
    f.X_W1 = X_W1[X_W1.size() == 1 ? 0 : i];
    f.X_W2 = X_W2[X_W2.size() == 1 ? 0 : i];
    for (const Pose* X : {&f.X_W1, &f.X_W2})
      if (const char* why = X->invalid_reason())
        throw std::invalid_argument("view: frame " + std::to_string(i) + ": pose: " + why);
    f.solution = pair.solve(f.X_W1, f.X_W2);
  }
  return frames;
}

namespace {

// A body as the page draws it: its mesh in the frame that the frames' poses place.
struct SceneBody {
  std::string type, description;
  double outer_radius = 0.0;  // about the mesh frame's origin
  SurfaceMesh mesh;
};

// The scene up to the opening of "frames":[ (each method appends its frames and "]}").
std::string scene_head(const char* method, const ViewOptions& options, const SceneBody (&bodies)[2],
                       const std::vector<std::pair<Pose, Pose>>& poses) {
  const double r1 = bodies[0].outer_radius, r2 = bodies[1].outer_radius;
  // bounding sphere of both bodies over all frames (for the camera and the grid)
  Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
  for (const auto& [X1, X2] : poses) {
    lo = lo.cwiseMin(X1.p - Vec3::Constant(r1)).cwiseMin(X2.p - Vec3::Constant(r2));
    hi = hi.cwiseMax(X1.p + Vec3::Constant(r1)).cwiseMax(X2.p + Vec3::Constant(r2));
  }
  const Vec3 center = 0.5 * (lo + hi);
  double radius = 0.0;
  for (const auto& [X1, X2] : poses)
    radius = std::max({radius, (X1.p - center).norm() + r1, (X2.p - center).norm() + r2});

  std::string out;
  out += "{\"format\":\"diffcol-view/1\",\"method\":\"";
  out += method;
  out += "\",\"title\":";
  append_string(out, options.title);
  out += ",\"three_version\":";
  append_string(out, std::string(assets::three_version));
  out += ",\"settings\":{\"show_scaled_shapes\":";
  out += options.show_scaled_shapes ? "true" : "false";
  out += ",\"frame_duration\":";
  append_number(out, options.frame_duration);
  out += ",\"autoplay\":";
  out += options.autoplay ? "true" : "false";
  out += "},\"scale\":";
  append_number(out, std::sqrt(r1 * r2));  // marker sizes
  out += ",\"bounds\":{\"center\":";
  append_vec(out, center);
  out += ",\"radius\":";
  append_number(out, radius);
  out += "},\"shapes\":[";
  for (int i = 0; i < 2; ++i) {
    if (i) out += ',';
    out += "{\"type\":";
    append_string(out, bodies[i].type);
    out += ",\"description\":";
    append_string(out, bodies[i].description);
    out += ",\"outer_radius\":";
    append_number(out, bodies[i].outer_radius);
    out += ",\"mesh\":";
    append_mesh(out, bodies[i].mesh);
    out += '}';
  }
  out += "],\"frames\":[";
  return out;
}

void append_field(std::string& out, const char* name, double v) {
  out += ",\"";
  out += name;
  out += "\":";
  append_number(out, v);
}
void append_field(std::string& out, const char* name, const Vec3& v) {
  out += ",\"";
  out += name;
  out += "\":";
  append_vec(out, v);
}
void append_field(std::string& out, const char* name, bool v) {
  out += ",\"";
  out += name;
  out += "\":";
  out += v ? "true" : "false";
}

// {"pose1":..,"pose2":..,"status":"..","ok":..  (the caller adds the method's fields and '}')
void append_frame_head(std::string& out, size_t i, const Pose& X1, const Pose& X2, const char* status, bool ok) {
  if (i) out += ',';
  out += "\n{\"pose1\":";
  append_pose(out, X1);
  out += ",\"pose2\":";
  append_pose(out, X2);
  out += ",\"status\":";
  append_string(out, status);
  append_field(out, "ok", ok);
}

}  // namespace

std::string scene_json(const Shape& shape1, const std::vector<Pose>& X_W1, const Shape& shape2,
                       const std::vector<Pose>& X_W2, const ViewOptions& options) {
  const std::vector<ViewFrame> frames = solve_frames(shape1, X_W1, shape2, X_W2, options);
  const Shape* shapes[2] = {&shape1, &shape2};
  SceneBody bodies[2];
  for (int i = 0; i < 2; ++i) {
    bodies[i].type = shape_type_name(shapes[i]->type());
    bodies[i].description = shapes[i]->describe();
    bodies[i].outer_radius = shapes[i]->outer_radius();
    bodies[i].mesh = mesh_surface(*shapes[i], options.mesh_subdivisions);
  }
  std::vector<std::pair<Pose, Pose>> poses;
  for (const ViewFrame& f : frames) poses.emplace_back(f.X_W1, f.X_W2);
  std::string out = scene_head("idcol", options, bodies, poses);
  for (size_t i = 0; i < frames.size(); ++i) {
    const ViewFrame& f = frames[i];
    const idcol::ContactSolution& s = f.solution;
    append_frame_head(out, i, f.X_W1, f.X_W2, diffcol::status_name(s.status), s.ok());
    out += ",\"iterations\":" + std::to_string(s.iterations);
    append_field(out, "alpha", s.alpha);
    append_field(out, "gap", s.gap);
    append_field(out, "x_W", s.x_W);
    append_field(out, "p1_W", s.p1_W);
    append_field(out, "p2_W", s.p2_W);
    append_field(out, "normal_W", s.normal_W);
    out += '}';
  }
  out += "]}";
  return out;
}

namespace {

// The page: the template with @NAME@ replaced (one pass; inserted text is not scanned again).
std::string fill_template(const std::string& title_text, const std::string& scene) {
  const std::string title = html_escape(title_text);
  const std::string_view tpl = assets::page_template;
  std::string out;
  out.reserve(tpl.size() + scene.size() + assets::three_core.size() + assets::three_module.size() +
              assets::orbit_controls.size() + assets::viewer_script.size() + assets::three_license.size() + 256);
  size_t pos = 0;
  while (pos < tpl.size()) {
    const size_t at = tpl.find('@', pos);
    if (at == std::string_view::npos) break;
    const size_t end = tpl.find('@', at + 1);
    if (end == std::string_view::npos) break;
    const std::string_view name = tpl.substr(at + 1, end - at - 1);
    std::string_view value;
    bool known = true;
    if (name == "TITLE") value = title;
    else if (name == "SCENE_JSON") value = scene;
    else if (name == "THREE_VERSION") value = assets::three_version;
    else if (name == "THREE_LICENSE") value = assets::three_license;
    else if (name == "THREE_CORE") value = assets::three_core;
    else if (name == "THREE_MODULE") value = assets::three_module;
    else if (name == "ORBIT_CONTROLS") value = assets::orbit_controls;
    else if (name == "VIEWER_JS") value = assets::viewer_script;
    else known = false;
    if (known) {
      out.append(tpl.substr(pos, at - pos));
      out.append(value);
      pos = end + 1;
    } else {  // a lone '@': copy it and go on
      out.append(tpl.substr(pos, at + 1 - pos));
      pos = at + 1;
    }
  }
  out.append(tpl.substr(pos));
  return out;
}

void write_file(const std::string& path, const std::string& page) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error("view: cannot open '" + path + "' for writing");
  f.write(page.data(), static_cast<std::streamsize>(page.size()));
  f.close();
  if (!f) throw std::runtime_error("view: failed to write '" + path + "'");
}

}  // namespace

std::string render_html(const Shape& shape1, const std::vector<Pose>& X_W1, const Shape& shape2,
                        const std::vector<Pose>& X_W2, const ViewOptions& options) {
  return fill_template(options.title, scene_json(shape1, X_W1, shape2, X_W2, options));
}

std::string render_html(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                        const ViewOptions& options) {
  return render_html(shape1, std::vector<Pose>{X_W1}, shape2, std::vector<Pose>{X_W2}, options);
}

void write_html(const std::string& path, const Shape& shape1, const std::vector<Pose>& X_W1, const Shape& shape2,
                const std::vector<Pose>& X_W2, const ViewOptions& options) {
  write_file(path, render_html(shape1, X_W1, shape2, X_W2, options));
}

void write_html(const std::string& path, const Shape& shape1, const Pose& X_W1, const Shape& shape2,
                const Pose& X_W2, const ViewOptions& options) {
  write_html(path, shape1, std::vector<Pose>{X_W1}, shape2, std::vector<Pose>{X_W2}, options);
}

// ------------------------------------------------------------------ mesh pages

ManifoldMarkers manifold_markers(const manifold::ContactManifold& mf) {
  ManifoldMarkers m;
  for (const manifold::ManifoldEntry& e : mf.entries) {
    m.points.push_back(e.point);
    m.normals.push_back(e.normal);
    m.distances.push_back(e.distance);
    m.activities.push_back(e.activity);
  }
  return m;
}

void validate_mesh_scene(const MeshScene& scene, const ViewOptions& options) {
  validate(options);
  if (!std::isfinite(options.normal_length) || options.normal_length < 0.0)
    throw std::invalid_argument("view: normal_length must be finite and >= 0");
  if (!(options.min_activity >= 0.0 && options.min_activity <= 1.0))
    throw std::invalid_argument("view: min_activity must be in [0, 1]");
  const size_t nb = scene.meshes.size();
  if (nb == 0) throw std::invalid_argument("view: a mesh scene needs at least one mesh");
  if (!scene.names.empty() && scene.names.size() != nb)
    throw std::invalid_argument("view: " + std::to_string(scene.names.size()) + " names for " + std::to_string(nb) +
                                " meshes (give one per mesh, or none)");
  if (scene.poses.empty()) throw std::invalid_argument("view: a mesh scene needs at least one frame of poses");
  for (size_t f = 0; f < scene.poses.size(); ++f) {
    if (scene.poses[f].size() != nb)
      throw std::invalid_argument("view: frame " + std::to_string(f) + " has " + std::to_string(scene.poses[f].size()) +
                                  " poses for " + std::to_string(nb) + " meshes");
    for (const Pose& X : scene.poses[f])
      if (const char* why = X.invalid_reason())
        throw std::invalid_argument("view: frame " + std::to_string(f) + ": pose: " + why);
  }
  if (!scene.manifolds.empty() && scene.manifolds.size() != scene.poses.size())
    throw std::invalid_argument("view: " + std::to_string(scene.manifolds.size()) + " manifolds for " +
                                std::to_string(scene.poses.size()) + " frames (give one per frame, or none)");
  for (size_t f = 0; f < scene.manifolds.size(); ++f) {
    const ManifoldMarkers& m = scene.manifolds[f];
    const size_t k = m.points.size();
    if (m.normals.size() != k || m.distances.size() != k || m.activities.size() != k)
      throw std::invalid_argument("view: frame " + std::to_string(f) +
                                  ": manifold points, normals, distances and activities differ in size");
    for (size_t i = 0; i < k; ++i)
      if (!m.points[i].allFinite() || !m.normals[i].allFinite() || !std::isfinite(m.distances[i]) ||
          !std::isfinite(m.activities[i]))
        throw std::invalid_argument("view: frame " + std::to_string(f) + ": manifold entry " + std::to_string(i) +
                                    " is not finite");
  }
}

std::string mesh_scene_json(const MeshScene& scene, const ViewOptions& options) {
  validate_mesh_scene(scene, options);
  const size_t nb = scene.meshes.size();
  // body radii about their origins, then the bounding sphere over all frames
  std::vector<double> radius_of(nb, 0.0);
  for (size_t b = 0; b < nb; ++b)
    for (const Vec3& v : scene.meshes[b].vertices()) radius_of[b] = std::max(radius_of[b], v.norm());
  Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
  for (const auto& frame : scene.poses)
    for (size_t b = 0; b < nb; ++b) {
      lo = lo.cwiseMin(frame[b].p - Vec3::Constant(radius_of[b]));
      hi = hi.cwiseMax(frame[b].p + Vec3::Constant(radius_of[b]));
    }
  const Vec3 center = 0.5 * (lo + hi);
  double radius = 0.0;
  for (const auto& frame : scene.poses)
    for (size_t b = 0; b < nb; ++b) radius = std::max(radius, (frame[b].p - center).norm() + radius_of[b]);
  double scale = 0.0;  // geometric mean of the body radii (marker sizes)
  for (double r : radius_of) scale += std::log(std::max(r, 1e-300));
  scale = std::exp(scale / static_cast<double>(nb));

  std::string out;
  out += "{\"format\":\"diffcol-mesh-view/1\",\"title\":";
  append_string(out, options.title);
  out += ",\"three_version\":";
  append_string(out, std::string(assets::three_version));
  out += ",\"settings\":{\"frame_duration\":";
  append_number(out, options.frame_duration);
  out += ",\"autoplay\":";
  out += options.autoplay ? "true" : "false";
  out += ",\"min_activity\":";
  append_number(out, options.min_activity);
  out += ",\"normal_length\":";
  append_number(out, options.normal_length > 0.0 ? options.normal_length : 0.15 * radius);
  out += "},\"scale\":";
  append_number(out, scale);
  out += ",\"bounds\":{\"center\":";
  append_vec(out, center);
  out += ",\"radius\":";
  append_number(out, radius);
  out += "},\"bodies\":[";
  for (size_t b = 0; b < nb; ++b) {
    const mesh::TriangleMesh& tm = scene.meshes[b];
    SurfaceMesh sm;
    sm.vertices = tm.vertices();
    sm.normals = tm.vertex_normals();
    for (const mesh::Face& f : tm.faces())
      sm.triangles.push_back({static_cast<std::uint32_t>(f[0]), static_cast<std::uint32_t>(f[1]),
                              static_cast<std::uint32_t>(f[2])});
    if (b) out += ',';
    out += "{\"name\":";
    append_string(out, scene.names.empty() ? "body " + std::to_string(b + 1) : scene.names[b]);
    out += ",\"mesh\":";
    append_mesh(out, sm);
    out += '}';
  }
  out += "],\"frames\":[";
  for (size_t f = 0; f < scene.poses.size(); ++f) {
    if (f) out += ',';
    out += "\n{\"poses\":[";
    for (size_t b = 0; b < nb; ++b) {
      if (b) out += ',';
      append_pose(out, scene.poses[f][b]);
    }
    out += ']';
    if (!scene.manifolds.empty()) {
      const ManifoldMarkers& m = scene.manifolds[f];
      out += ",\"manifold\":{\"count\":" + std::to_string(m.points.size()) + ",\"points\":[";
      for (size_t i = 0; i < m.points.size(); ++i) {
        if (i) out += ',';
        append_vec(out, m.points[i]);
      }
      out += "],\"normals\":[";
      for (size_t i = 0; i < m.normals.size(); ++i) {
        if (i) out += ',';
        append_vec(out, m.normals[i]);
      }
      out += "],\"distances\":[";
      for (size_t i = 0; i < m.distances.size(); ++i) {
        if (i) out += ',';
        append_number(out, m.distances[i]);
      }
      out += "],\"activities\":[";
      for (size_t i = 0; i < m.activities.size(); ++i) {
        if (i) out += ',';
        append_number(out, m.activities[i]);
      }
      out += "]}";
    }
    out += '}';
  }
  out += "]}";
  return out;
}

std::string render_mesh_html(const MeshScene& scene, const ViewOptions& options) {
  return fill_template(options.title, mesh_scene_json(scene, options));
}

void write_mesh_html(const std::string& path, const MeshScene& scene, const ViewOptions& options) {
  write_file(path, render_mesh_html(scene, options));
}

MeshScene manifold_scene(const manifold::ContactObject& body1, const std::vector<Pose>& X_W1,
                         const manifold::ContactObject& body2, const std::vector<Pose>& X_W2,
                         const manifold::ManifoldOptions& manifold_options) {
  manifold_options.validate();
  if (X_W1.empty() || X_W2.empty()) throw std::invalid_argument("view: the pose sequences must not be empty");
  if (X_W1.size() != X_W2.size() && X_W1.size() != 1 && X_W2.size() != 1)
    throw std::invalid_argument("view: pose sequences of different lengths (" + std::to_string(X_W1.size()) + " and " +
                                std::to_string(X_W2.size()) + "); give one pose or one per frame");
  const size_t n = std::max(X_W1.size(), X_W2.size());
  MeshScene scene;
  scene.meshes = {body1.mesh(), body2.mesh()};
  scene.names = {"body 1", "body 2"};
  manifold::ManifoldWorkspace ws;
  manifold::ContactManifold mf;
  for (size_t i = 0; i < n; ++i) {
    const Pose& A = X_W1[X_W1.size() == 1 ? 0 : i];
    const Pose& B = X_W2[X_W2.size() == 1 ? 0 : i];
    for (const Pose* X : {&A, &B})
      if (const char* why = X->invalid_reason())
        throw std::invalid_argument("view: frame " + std::to_string(i) + ": pose: " + why);
    manifold::compute_manifold(body1, A, body2, B, manifold_options, ws, mf);
    scene.poses.push_back({A, B});
    scene.manifolds.push_back(manifold_markers(mf));
  }
  return scene;
}

// ------------------------------------------------------------------ DCOL and DiffPills meshes

namespace {

void check_subdivisions(int subdivisions, const char* where) {
  if (subdivisions < 0 || subdivisions > 7)
    throw std::invalid_argument(std::string(where) + ": subdivisions must be in [0, 7], got " +
                                std::to_string(subdivisions));
}

// Segments per full turn about an axis at resolution k.
int turn_segments(int k) { return std::max(8, 4 << k); }

std::uint32_t add_vertex(SurfaceMesh& m, const Vec3& v, const Vec3& n) {
  m.vertices.push_back(v);
  m.normals.push_back(n);
  return static_cast<std::uint32_t>(m.vertices.size() - 1);
}

// Makes every triangle counter-clockwise seen from outside: the body is convex with `inside`
// strictly inside it, so the outward side of a face is the one away from `inside`.
void orient_outward(SurfaceMesh& m, const Vec3& inside) {
  for (auto& t : m.triangles) {
    const Vec3 &a = m.vertices[t[0]], &b = m.vertices[t[1]], &c = m.vertices[t[2]];
    if ((b - a).cross(c - a).dot((a + b + c) / 3.0 - inside) < 0.0) std::swap(t[1], t[2]);
  }
}

// The polygon `poly` (counter-clockwise, ≥ 1 vertex; 2 = a segment) in the plane of the frame
// (origin o, axes ex, ey, normal ez) swept by a sphere of radius R: rings of constant elevation φ,
// each going round the polygon (at vertex k through the in-plane directions between the normals
// of its two edges), and the two flat faces at ±R.
SurfaceMesh swept_polygon(const std::vector<Eigen::Vector2d>& poly, double R, const Vec3& o, const Vec3& ex,
                          const Vec3& ey, const Vec3& ez, int k) {
  const int n = static_cast<int>(poly.size());
  const int N = turn_segments(k);
  const double two_pi = 2.0 * M_PI;
  // in-plane outward normal angle of edge j (from vertex j to j + 1)
  std::vector<double> edge_angle(static_cast<size_t>(std::max(n, 1)), 0.0);
  if (n >= 2)
    for (int j = 0; j < n; ++j) {
      const Eigen::Vector2d d = poly[static_cast<size_t>((j + 1) % n)] - poly[static_cast<size_t>(j)];
      edge_angle[static_cast<size_t>(j)] = std::atan2(-d.x(), d.y());
    }
  struct RingPoint {
    Eigen::Vector2d v;
    double psi;
  };
  std::vector<RingPoint> ring;
  for (int j = 0; j < n; ++j) {
    double a0 = 0.0, span = two_pi;
    if (n >= 2) {
      a0 = edge_angle[static_cast<size_t>((j + n - 1) % n)];
      span = std::remainder(edge_angle[static_cast<size_t>(j)] - a0, two_pi);
      if (span < 0.0) span += two_pi;
    }
    const int segs = std::max(1, static_cast<int>(std::ceil(span / (two_pi / N) - 1e-9)));
    for (int s = 0; s <= segs; ++s) ring.push_back({poly[static_cast<size_t>(j)], a0 + span * s / segs});
  }
  const int P = static_cast<int>(ring.size());
  const int M = std::max(2, N / 2);  // elevation steps from −π/2 to π/2
  SurfaceMesh m;
  const auto point = [&](const RingPoint& r, double phi, Vec3& normal) {
    normal = std::cos(phi) * (std::cos(r.psi) * ex + std::sin(r.psi) * ey) + std::sin(phi) * ez;
    return Vec3(o + r.v.x() * ex + r.v.y() * ey + R * normal);
  };
  for (int e = 0; e <= M; ++e) {
    const double phi = -0.5 * M_PI + M_PI * e / M;
    for (const RingPoint& r : ring) {
      Vec3 nrm;
      const Vec3 p = point(r, phi, nrm);
      add_vertex(m, p, nrm);
    }
  }
  for (int e = 0; e < M; ++e)
    for (int i = 0; i < P; ++i) {
      const auto a = static_cast<std::uint32_t>(e * P + i), b = static_cast<std::uint32_t>(e * P + (i + 1) % P);
      const auto c = static_cast<std::uint32_t>(a + P), d = static_cast<std::uint32_t>(b + P);
      m.triangles.push_back({a, b, d});
      m.triangles.push_back({a, d, c});
    }
  if (n >= 3)
    for (const double side : {-1.0, 1.0}) {  // the flat faces
      const std::uint32_t first = static_cast<std::uint32_t>(m.vertices.size());
      for (const Eigen::Vector2d& v : poly) add_vertex(m, o + v.x() * ex + v.y() * ey + side * R * ez, side * ez);
      for (int j = 1; j + 1 < n; ++j)
        m.triangles.push_back({first, first + static_cast<std::uint32_t>(j), first + static_cast<std::uint32_t>(j + 1)});
    }
  Eigen::Vector2d centroid = Eigen::Vector2d::Zero();
  for (const auto& v : poly) centroid += v;
  centroid /= std::max(n, 1);
  orient_outward(m, o + centroid.x() * ex + centroid.y() * ey);
  return m;
}

// A solid of revolution about the shape x axis from the profile (x_i, r_i) (r ≥ 0), with its
// outward normals in the (axial, radial) plane: one ring per profile point, flat-shaded where the
// caller repeats a point with another normal.
SurfaceMesh revolve(const std::vector<std::array<double, 4>>& profile, int k) {  // x, r, n_axial, n_radial
  const int N = turn_segments(k);
  SurfaceMesh m;
  for (const auto& pr : profile)
    for (int i = 0; i < N; ++i) {
      const double t = 2.0 * M_PI * i / N, c = std::cos(t), s = std::sin(t);
      add_vertex(m, Vec3(pr[0], pr[1] * c, pr[1] * s), Vec3(pr[2], pr[3] * c, pr[3] * s).normalized());
    }
  for (size_t j = 0; j + 1 < profile.size(); ++j)
    for (int i = 0; i < N; ++i) {
      const auto a = static_cast<std::uint32_t>(j * N + i), b = static_cast<std::uint32_t>(j * N + (i + 1) % N);
      m.triangles.push_back({a, b, b + static_cast<std::uint32_t>(N)});
      m.triangles.push_back({a, b + static_cast<std::uint32_t>(N), a + static_cast<std::uint32_t>(N)});
    }
  orient_outward(m, Vec3::Zero());
  return m;
}

// The icosphere directions u mapped to the surface points f(u) with normals g(u).
template <class F, class G>
SurfaceMesh mapped_icosphere(int k, F&& f, G&& g) {
  SurfaceMesh m;
  std::vector<Vec3> dirs;
  icosphere(k, dirs, m.triangles);
  for (const Vec3& u : dirs) add_vertex(m, f(u), g(u));
  return m;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v + 0.0);
  return buf;
}

std::string offset_text(const Pose& X) {
  if (X.p.norm() == 0.0 && (X.R - Mat3::Identity()).norm() == 0.0) return "";
  const Eigen::Quaterniond q = X.quaternion();
  return ", offset p=" + num(X.p.x()) + "/" + num(X.p.y()) + "/" + num(X.p.z()) + " q=" + num(q.w()) + "/" +
         num(q.x()) + "/" + num(q.y()) + "/" + num(q.z());
}

double qp_outer_radius(const qp::Capsule& c) { return std::max(c.a_B().norm(), c.b_B().norm()) + c.radius(); }
double qp_outer_radius(const qp::PaddedPolygon& p) { return p.core_radius() + p.radius(); }

}  // namespace

SurfaceMesh mesh_primitive(const dcol::Primitive& shape, int subdivisions) {
  check_subdivisions(subdivisions, "mesh_primitive");
  const int k = subdivisions;
  return std::visit(
      [k](const auto& s) -> SurfaceMesh {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, dcol::Polytope>) {
          SurfaceMesh m;
          for (int f = 0; f < s.num_faces; ++f) {
            const int begin = s.face_start[static_cast<size_t>(f)], end = s.face_start[static_cast<size_t>(f) + 1];
            if (end - begin < 3) continue;  // a face that only touches at a vertex or an edge
            const Vec3 nrm = s.A.row(f).transpose();
            const std::uint32_t first = static_cast<std::uint32_t>(m.vertices.size());
            for (int j = begin; j < end; ++j) {
              const int v = s.face_vertices[static_cast<size_t>(j)];
              add_vertex(m, Vec3(s.V(v, 0), s.V(v, 1), s.V(v, 2)), nrm);
            }
            for (int j = 1; j + 1 < end - begin; ++j)
              m.triangles.push_back({first, first + static_cast<std::uint32_t>(j), first + static_cast<std::uint32_t>(j + 1)});
          }
          orient_outward(m, Vec3::Zero());
          return m;
        } else if constexpr (std::is_same_v<T, dcol::Capsule>) {
          return swept_polygon({Eigen::Vector2d(-0.5 * s.L, 0.0), Eigen::Vector2d(0.5 * s.L, 0.0)}, s.R, Vec3::Zero(),
                               Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ(), k);
        } else if constexpr (std::is_same_v<T, dcol::Cylinder>) {
          const double h = 0.5 * s.L;
          return revolve({{-h, 0, -1, 0}, {-h, s.R, -1, 0}, {-h, s.R, 0, 1}, {h, s.R, 0, 1}, {h, s.R, 1, 0}, {h, 0, 1, 0}},
                         k);
        } else if constexpr (std::is_same_v<T, dcol::Cone>) {
          // apex at −3H/4, base of radius H tan β at +H/4; side normal ∝ (−tan β, 1) in (axial, radial)
          const double xa = -0.75 * s.H, xb = 0.25 * s.H, rb = s.H * s.tan_beta;
          return revolve({{xa, 0, -s.tan_beta, 1}, {xb, rb, -s.tan_beta, 1}, {xb, rb, 1, 0}, {xb, 0, 1, 0}}, k);
        } else if constexpr (std::is_same_v<T, dcol::Ellipsoid>) {
          // yᵀPy = ‖Uy‖² = 1: y = U⁻¹u for unit u; outward normal ∝ P y
          const Mat3 Uinv = s.U.inverse();
          return mapped_icosphere(
              k, [&](const Vec3& u) { return Vec3(Uinv * u); }, [&](const Vec3& u) { return Vec3((s.P * (Uinv * u)).normalized()); });
        } else if constexpr (std::is_same_v<T, dcol::PaddedPolygon>) {
          std::vector<Eigen::Vector2d> poly;
          for (int i = 0; i < s.num_vertices; ++i) poly.emplace_back(s.V(i, 0), s.V(i, 1));
          return swept_polygon(poly, s.R, Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ(), k);
        } else {
          return mapped_icosphere(
              k, [&](const Vec3& u) { return Vec3(s.R * u); }, [](const Vec3& u) { return u; });
        }
      },
      shape);
}

SurfaceMesh mesh_qp_shape(const qp::Capsule& shape, int subdivisions) {
  check_subdivisions(subdivisions, "mesh_qp_shape");
  const Vec3 a = shape.a_B(), b = shape.b_B();
  const double L = (a - b).norm();
  Vec3 ex = Vec3::UnitX();
  if (L > 0.0) ex = (a - b) / L;
  const Vec3 helper = std::abs(ex.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  const Vec3 ey = ex.cross(helper).normalized(), ez = ex.cross(ey);
  std::vector<Eigen::Vector2d> poly{Eigen::Vector2d(-0.5 * L, 0.0)};
  if (L > 0.0) poly.emplace_back(0.5 * L, 0.0);
  return swept_polygon(poly, shape.radius(), 0.5 * (a + b), ex, ey, ez, subdivisions);
}

SurfaceMesh mesh_qp_shape(const qp::PaddedPolygon& shape, int subdivisions) {
  check_subdivisions(subdivisions, "mesh_qp_shape");
  return swept_polygon(shape.vertices(), shape.radius(), Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ(),
                       subdivisions);
}

std::string describe(const dcol::Primitive& shape) {
  const std::string body = std::visit(
      [](const auto& s) -> std::string {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, dcol::Polytope>)
          return "polytope(" + std::to_string(s.num_faces) + " faces, " + std::to_string(s.num_vertices) + " vertices)";
        else if constexpr (std::is_same_v<T, dcol::Capsule>) return "capsule(R=" + num(s.R) + ", L=" + num(s.L);
        else if constexpr (std::is_same_v<T, dcol::Cylinder>) return "cylinder(R=" + num(s.R) + ", L=" + num(s.L);
        else if constexpr (std::is_same_v<T, dcol::Cone>) return "cone(H=" + num(s.H) + ", beta=" + num(s.beta);
        else if constexpr (std::is_same_v<T, dcol::Ellipsoid>) {
          const Eigen::SelfAdjointEigenSolver<Mat3> es(s.P);
          const Vec3 ax = es.eigenvalues().cwiseSqrt().cwiseInverse();
          return "ellipsoid(semi-axes " + num(ax[2]) + ", " + num(ax[1]) + ", " + num(ax[0]);
        } else if constexpr (std::is_same_v<T, dcol::PaddedPolygon>)
          return "padded_polygon(" + std::to_string(s.num_vertices) + " vertices, R=" + num(s.R);
        else return "sphere(R=" + num(s.R);
      },
      shape);
  std::string out = body + offset_text(dcol::primitive_offset(shape));
  if (out.find('(') != std::string::npos && out.back() != ')') out += ')';
  return out;
}

std::string describe(const qp::Capsule& c) {
  const Vec3 a = c.a_B(), b = c.b_B();
  return "capsule(a=" + num(a.x()) + "/" + num(a.y()) + "/" + num(a.z()) + ", b=" + num(b.x()) + "/" + num(b.y()) +
         "/" + num(b.z()) + ", radius=" + num(c.radius()) + ")";
}

std::string describe(const qp::PaddedPolygon& p) {
  std::string s = "padded_polygon(vertices=";
  for (size_t i = 0; i < p.vertices().size(); ++i) {
    if (i) s += ';';
    s += num(p.vertices()[i].x()) + "/" + num(p.vertices()[i].y());
  }
  return s + ", radius=" + num(p.radius()) + ")";
}

// ------------------------------------------------------------------ DCOL pages

Vec3 dcol_normal(const dcol::ContactResult& r) { return dcol::separating_normal(r); }

namespace {

// One pose or one per frame for both bodies: the frame count, or throws.
size_t frame_count(const std::vector<Pose>& X_W1, const std::vector<Pose>& X_W2) {
  if (X_W1.empty() || X_W2.empty()) throw std::invalid_argument("view: the pose sequences must not be empty");
  if (X_W1.size() != X_W2.size() && X_W1.size() != 1 && X_W2.size() != 1)
    throw std::invalid_argument("view: pose sequences of different lengths (" + std::to_string(X_W1.size()) + " and " +
                                std::to_string(X_W2.size()) + "); give one pose or one per frame");
  const size_t n = std::max(X_W1.size(), X_W2.size());
  for (size_t i = 0; i < n; ++i)
    for (const Pose* X : {&X_W1[X_W1.size() == 1 ? 0 : i], &X_W2[X_W2.size() == 1 ? 0 : i]})
      if (const char* why = X->invalid_reason())
        throw std::invalid_argument("view: frame " + std::to_string(i) + ": pose: " + why);
  return n;
}

}  // namespace

std::vector<DcolViewFrame> solve_dcol_frames(const dcol::Primitive& shape1, const std::vector<Pose>& X_WB1,
                                             const dcol::Primitive& shape2, const std::vector<Pose>& X_WB2,
                                             const ViewOptions& options) {
  validate(options);
  options.dcol_options.validate();
  const size_t n = frame_count(X_WB1, X_WB2);
  std::vector<DcolViewFrame> frames(n);
  auto r = std::make_unique<dcol::ContactResult>();  // large (KKT storage)
  for (size_t i = 0; i < n; ++i) {
    DcolViewFrame& f = frames[i];
    f.X_WB1 = X_WB1[X_WB1.size() == 1 ? 0 : i];
    f.X_WB2 = X_WB2[X_WB2.size() == 1 ? 0 : i];
    dcol::solve_contact(shape1, f.X_WB1, shape2, f.X_WB2, *r, options.dcol_options);
    f.X_WS1 = f.X_WB1 * dcol::primitive_offset(shape1);
    f.X_WS2 = f.X_WB2 * dcol::primitive_offset(shape2);
    f.status = r->status;
    f.iterations = r->iterations;
    f.alpha = r->alpha;
    f.gap = r->gap;
    f.x_W = r->x_W;
    f.p1_W = r->p1_W;
    f.p2_W = r->p2_W;
    f.normal_W = dcol_normal(*r);
  }
  return frames;
}

std::string dcol_scene_json(const dcol::Primitive& shape1, const std::vector<Pose>& X_WB1,
                            const dcol::Primitive& shape2, const std::vector<Pose>& X_WB2,
                            const ViewOptions& options) {
  const std::vector<DcolViewFrame> frames = solve_dcol_frames(shape1, X_WB1, shape2, X_WB2, options);
  const dcol::Primitive* shapes[2] = {&shape1, &shape2};
  SceneBody bodies[2];
  for (int i = 0; i < 2; ++i) {
    bodies[i].type = dcol::primitive_type_name(dcol::primitive_type(*shapes[i]));
    bodies[i].description = describe(*shapes[i]);
    bodies[i].outer_radius = dcol::outer_radius(*shapes[i]);
    bodies[i].mesh = mesh_primitive(*shapes[i], options.mesh_subdivisions);
  }
  std::vector<std::pair<Pose, Pose>> poses;
  for (const DcolViewFrame& f : frames) poses.emplace_back(f.X_WS1, f.X_WS2);
  std::string out = scene_head("dcol", options, bodies, poses);
  for (size_t i = 0; i < frames.size(); ++i) {
    const DcolViewFrame& f = frames[i];
    append_frame_head(out, i, f.X_WS1, f.X_WS2, diffcol::status_name(f.status), f.ok());
    out += ",\"iterations\":" + std::to_string(f.iterations);
    append_field(out, "alpha", f.alpha);
    append_field(out, "gap", f.gap);
    append_field(out, "x_W", f.x_W);
    append_field(out, "p1_W", f.p1_W);
    append_field(out, "p2_W", f.p2_W);
    append_field(out, "normal_W", f.normal_W);
    out += '}';
  }
  out += "]}";
  return out;
}

std::string render_dcol_html(const dcol::Primitive& shape1, const std::vector<Pose>& X_WB1,
                             const dcol::Primitive& shape2, const std::vector<Pose>& X_WB2,
                             const ViewOptions& options) {
  return fill_template(options.title, dcol_scene_json(shape1, X_WB1, shape2, X_WB2, options));
}

void write_dcol_html(const std::string& path, const dcol::Primitive& shape1, const std::vector<Pose>& X_WB1,
                     const dcol::Primitive& shape2, const std::vector<Pose>& X_WB2, const ViewOptions& options) {
  write_file(path, render_dcol_html(shape1, X_WB1, shape2, X_WB2, options));
}

// ------------------------------------------------------------------ DiffPills pages

std::vector<qp::ProximityResult> solve_qp_frames(const QpShape& shape1, const std::vector<Pose>& X_W1,
                                                 const QpShape& shape2, const std::vector<Pose>& X_W2,
                                                 const ViewOptions& options) {
  validate(options);
  options.qp_options.validate();
  const size_t n = frame_count(X_W1, X_W2);
  std::vector<qp::ProximityResult> out(n);
  for (size_t i = 0; i < n; ++i)
    std::visit(
        [&](const auto& a, const auto& b) {
          qp::proximity(a, X_W1[X_W1.size() == 1 ? 0 : i], b, X_W2[X_W2.size() == 1 ? 0 : i], options.qp_options,
                        out[i]);
        },
        shape1, shape2);
  return out;
}

std::string qp_scene_json(const QpShape& shape1, const std::vector<Pose>& X_W1, const QpShape& shape2,
                          const std::vector<Pose>& X_W2, const ViewOptions& options) {
  const std::vector<qp::ProximityResult> results = solve_qp_frames(shape1, X_W1, shape2, X_W2, options);
  const QpShape* shapes[2] = {&shape1, &shape2};
  SceneBody bodies[2];
  for (int i = 0; i < 2; ++i)
    std::visit(
        [&](const auto& s) {
          using T = std::decay_t<decltype(s)>;
          bodies[i].type = std::is_same_v<T, qp::Capsule> ? "capsule" : "padded_polygon";
          bodies[i].description = describe(s);
          bodies[i].outer_radius = qp_outer_radius(s);
          bodies[i].mesh = mesh_qp_shape(s, options.mesh_subdivisions);
        },
        *shapes[i]);
  std::vector<std::pair<Pose, Pose>> poses;
  for (size_t i = 0; i < results.size(); ++i)
    poses.emplace_back(X_W1[X_W1.size() == 1 ? 0 : i], X_W2[X_W2.size() == 1 ? 0 : i]);
  std::string out = scene_head("qp", options, bodies, poses);
  for (size_t i = 0; i < results.size(); ++i) {
    const qp::ProximityResult& r = results[i];
    append_frame_head(out, i, poses[i].first, poses[i].second, diffcol::status_name(r.status), r.ok());
    append_field(out, "phi", r.phi);
    append_field(out, "signed_distance", r.signed_distance);
    append_field(out, "core_distance", r.core_distance);
    append_field(out, "p1_W", r.p1_W);
    append_field(out, "p2_W", r.p2_W);
    append_field(out, "core1_W", r.core1_W);
    append_field(out, "core2_W", r.core2_W);
    append_field(out, "normal_W", r.normal_W);
    append_field(out, "cores_touch", r.cores_touch);
    append_field(out, "penetration", r.penetration);
    out += '}';
  }
  out += "]}";
  return out;
}

std::string render_qp_html(const QpShape& shape1, const std::vector<Pose>& X_W1, const QpShape& shape2,
                           const std::vector<Pose>& X_W2, const ViewOptions& options) {
  return fill_template(options.title, qp_scene_json(shape1, X_W1, shape2, X_W2, options));
}

void write_qp_html(const std::string& path, const QpShape& shape1, const std::vector<Pose>& X_W1,
                   const QpShape& shape2, const std::vector<Pose>& X_W2, const ViewOptions& options) {
  write_file(path, render_qp_html(shape1, X_W1, shape2, X_W2, options));
}


const char* three_version() {
  static const std::string version(assets::three_version);
  return version.c_str();
}

}  // namespace diffcol::view
