// The HTML viewer: surface meshes, per-frame contact solves, the scene JSON and the page.
#include "diffcol/view/view.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <utility>

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

std::string scene_json(const Shape& shape1, const std::vector<Pose>& X_W1, const Shape& shape2,
                       const std::vector<Pose>& X_W2, const ViewOptions& options) {
  const std::vector<ViewFrame> frames = solve_frames(shape1, X_W1, shape2, X_W2, options);
  const double r1 = shape1.outer_radius(), r2 = shape2.outer_radius();

  // bounding sphere of both bodies over all frames (for the camera)
  Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
  for (const ViewFrame& f : frames) {
    lo = lo.cwiseMin(f.X_W1.p - Vec3::Constant(r1)).cwiseMin(f.X_W2.p - Vec3::Constant(r2));
    hi = hi.cwiseMax(f.X_W1.p + Vec3::Constant(r1)).cwiseMax(f.X_W2.p + Vec3::Constant(r2));
  }
  const Vec3 center = 0.5 * (lo + hi);
  double radius = 0.0;
  for (const ViewFrame& f : frames)
    radius = std::max({radius, (f.X_W1.p - center).norm() + r1, (f.X_W2.p - center).norm() + r2});

  std::string out;
  out += "{\"format\":\"diffcol-view/1\",\"title\":";
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
  const Shape* shapes[2] = {&shape1, &shape2};
  for (int i = 0; i < 2; ++i) {
    if (i) out += ',';
    out += "{\"type\":";
    append_string(out, shape_type_name(shapes[i]->type()));
    out += ",\"description\":";
    append_string(out, shapes[i]->describe());
    out += ",\"outer_radius\":";
    append_number(out, shapes[i]->outer_radius());
    out += ",\"mesh\":";
    append_mesh(out, mesh_surface(*shapes[i], options.mesh_subdivisions));
    out += '}';
  }
  out += "],\"frames\":[";
  for (size_t i = 0; i < frames.size(); ++i) {
    const ViewFrame& f = frames[i];
    const idcol::ContactSolution& s = f.solution;
    if (i) out += ',';
    out += "\n{\"pose1\":";
    append_pose(out, f.X_W1);
    out += ",\"pose2\":";
    append_pose(out, f.X_W2);
    out += ",\"status\":";
    append_string(out, idcol::status_name(s.status));
    out += ",\"ok\":";
    out += s.ok() ? "true" : "false";
    out += ",\"iterations\":" + std::to_string(s.iterations);
    out += ",\"alpha\":";
    append_number(out, s.alpha);
    out += ",\"gap\":";
    append_number(out, s.gap);
    out += ",\"x_W\":";
    append_vec(out, s.x_W);
    out += ",\"p1_W\":";
    append_vec(out, s.p1_W);
    out += ",\"p2_W\":";
    append_vec(out, s.p2_W);
    out += ",\"normal_W\":";
    append_vec(out, s.normal_W);
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

const char* three_version() {
  static const std::string version(assets::three_version);
  return version.c_str();
}

}  // namespace diffcol::view
