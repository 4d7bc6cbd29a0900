// Triangle meshes: validation, loading, generators and exact references.
#include "diffcol/mesh/triangle_mesh.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <Eigen/Geometry>

#include <tiny_obj_loader.h>

namespace diffcol::mesh {

namespace {

[[noreturn]] void fail(const std::string& msg) { throw std::invalid_argument("TriangleMesh: " + msg); }

std::uint64_t edge_key(int a, int b, int n) {
  return static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(b);
}

}  // namespace

TriangleMesh::TriangleMesh(std::vector<Vec3> vertices, std::vector<Face> faces)
    : vertices_(std::move(vertices)), faces_(std::move(faces)) {
  const int nv = num_vertices(), nf = num_faces();
  if (nv < 4 || nf < 4)
    fail("a closed mesh needs at least 4 vertices and 4 faces (got " + std::to_string(nv) + " and " +
         std::to_string(nf) + ")");
  for (int v = 0; v < nv; ++v)
    if (!vertices_[static_cast<size_t>(v)].allFinite()) fail("vertex " + std::to_string(v) + " is not finite");
  const auto bb = bounding_box();
  const double diag = (bb[1] - bb[0]).norm();
  if (!(diag > 0.0)) fail("all vertices coincide");
  std::vector<int> incident(static_cast<size_t>(nv), 0);
  for (int f = 0; f < nf; ++f) {
    const Face& F = faces_[static_cast<size_t>(f)];
    for (int k = 0; k < 3; ++k)
      if (F[k] < 0 || F[k] >= nv) fail("face " + std::to_string(f) + " has an out-of-range vertex index");
    if (F[0] == F[1] || F[1] == F[2] || F[0] == F[2]) fail("face " + std::to_string(f) + " repeats a vertex");
    if (face_area(f) <= 1e-12 * diag * diag) fail("face " + std::to_string(f) + " is degenerate (zero area)");
    for (int k = 0; k < 3; ++k) ++incident[static_cast<size_t>(F[k])];
  }
  for (int v = 0; v < nv; ++v)
    if (incident[static_cast<size_t>(v)] == 0) fail("vertex " + std::to_string(v) + " is not used by any face");

  // Directed edges: each exactly once, each with its reverse (closed, consistently oriented).
  std::unordered_map<std::uint64_t, int> directed;
  directed.reserve(static_cast<size_t>(3 * nf));
  for (int f = 0; f < nf; ++f) {
    const Face& F = faces_[static_cast<size_t>(f)];
    for (int k = 0; k < 3; ++k) {
      const int a = F[k], b = F[(k + 1) % 3];
      if (!directed.emplace(edge_key(a, b, nv), f).second)
        fail("directed edge " + std::to_string(a) + "->" + std::to_string(b) +
             " appears twice (non-manifold edge or inconsistent face orientation), face " + std::to_string(f));
    }
  }
  for (int f = 0; f < nf; ++f) {
    const Face& F = faces_[static_cast<size_t>(f)];
    for (int k = 0; k < 3; ++k) {
      const int a = F[k], b = F[(k + 1) % 3];
      if (!directed.count(edge_key(b, a, nv)))
        fail("edge " + std::to_string(a) + "-" + std::to_string(b) + " of face " + std::to_string(f) +
             " has no opposite face (the mesh is not closed or orientations disagree)");
      if (a < b) edges_.push_back({a, b});
    }
  }
  std::sort(edges_.begin(), edges_.end());

  // Single fan around every vertex: walk v's faces through the edges v->c.
  std::vector<int> first_face(static_cast<size_t>(nv), -1);
  for (int f = 0; f < nf; ++f)
    for (int k = 0; k < 3; ++k)
      if (first_face[static_cast<size_t>(faces_[static_cast<size_t>(f)][k])] < 0)
        first_face[static_cast<size_t>(faces_[static_cast<size_t>(f)][k])] = f;
  for (int v = 0; v < nv; ++v) {
    const int f0 = first_face[static_cast<size_t>(v)];
    int f = f0, steps = 0;
    do {
      const Face& F = faces_[static_cast<size_t>(f)];
      const int k = F[0] == v ? 0 : (F[1] == v ? 1 : 2);
      const int c = F[(k + 2) % 3];
      f = directed.at(edge_key(v, c, nv));
      ++steps;
    } while (f != f0 && steps <= nf);
    if (steps != incident[static_cast<size_t>(v)])
      fail("vertex " + std::to_string(v) + " is non-manifold (its faces form more than one fan)");
  }
  if (!(volume() > 0.0)) fail("faces are oriented inward (signed volume <= 0); reverse every face");
}

Vec3 TriangleMesh::face_normal(int f) const {
  const Face& F = faces_[static_cast<size_t>(f)];
  const Vec3& a = vertices_[static_cast<size_t>(F[0])];
  return (vertices_[static_cast<size_t>(F[1])] - a).cross(vertices_[static_cast<size_t>(F[2])] - a).normalized();
}

double TriangleMesh::face_area(int f) const {
  const Face& F = faces_[static_cast<size_t>(f)];
  const Vec3& a = vertices_[static_cast<size_t>(F[0])];
  return 0.5 * (vertices_[static_cast<size_t>(F[1])] - a).cross(vertices_[static_cast<size_t>(F[2])] - a).norm();
}

std::vector<Vec3> TriangleMesh::vertex_normals() const {
  std::vector<Vec3> n(vertices_.size(), Vec3::Zero());
  for (const Face& F : faces_) {
    const Vec3& a = vertices_[static_cast<size_t>(F[0])];
    const Vec3 w = (vertices_[static_cast<size_t>(F[1])] - a).cross(vertices_[static_cast<size_t>(F[2])] - a);
    for (int k = 0; k < 3; ++k) n[static_cast<size_t>(F[k])] += w;  // |w| = 2·area
  }
  for (Vec3& x : n) x.normalize();
  return n;
}

double TriangleMesh::area() const {
  double s = 0.0;
  for (int f = 0; f < num_faces(); ++f) s += face_area(f);
  return s;
}

double TriangleMesh::volume() const {
  double s = 0.0;
  for (const Face& F : faces_)
    s += vertices_[static_cast<size_t>(F[0])].dot(
        vertices_[static_cast<size_t>(F[1])].cross(vertices_[static_cast<size_t>(F[2])]));
  return s / 6.0;
}

Vec3 TriangleMesh::volume_centroid() const {
  Vec3 c = Vec3::Zero();
  double vol = 0.0;
  for (const Face& F : faces_) {
    const Vec3& a = vertices_[static_cast<size_t>(F[0])];
    const Vec3& b = vertices_[static_cast<size_t>(F[1])];
    const Vec3& d = vertices_[static_cast<size_t>(F[2])];
    const double v = a.dot(b.cross(d)) / 6.0;  // tetrahedron (0, a, b, d)
    vol += v;
    c += v * (a + b + d) / 4.0;
  }
  return c / vol;
}

std::array<Vec3, 2> TriangleMesh::bounding_box() const {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (const Vec3& v : vertices_) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  return {lo, hi};
}

// ------------------------------------------------------------------------------------ loading

TriangleMesh weld(const std::vector<Vec3>& corners, double tolerance) {
  if (!(tolerance >= 0.0) || !std::isfinite(tolerance))
    throw std::invalid_argument("weld: tolerance must be finite and >= 0");
  // identical positions, or positions in one cell of side `tolerance`, are one vertex
  std::map<std::array<double, 3>, int> index;
  std::vector<Vec3> verts;
  std::vector<Face> faces;
  for (size_t t = 0; t + 2 < corners.size(); t += 3) {
    Face F;
    for (int k = 0; k < 3; ++k) {
      const Vec3& x = corners[t + static_cast<size_t>(k)];
      const std::array<double, 3> key =
          tolerance > 0.0 ? std::array<double, 3>{std::round(x.x() / tolerance), std::round(x.y() / tolerance),
                                                  std::round(x.z() / tolerance)}
                          : std::array<double, 3>{x.x(), x.y(), x.z()};
      const auto [it, inserted] = index.emplace(key, static_cast<int>(verts.size()));
      if (inserted) verts.push_back(x);
      F[k] = it->second;
    }
    if (F[0] != F[1] && F[1] != F[2] && F[0] != F[2]) faces.push_back(F);
  }
  return TriangleMesh(std::move(verts), std::move(faces));
}

namespace {

TriangleMesh load_stl(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("load_mesh: cannot open '" + path + "'");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Vec3> corners;
  bool binary = false;
  if (data.size() >= 84) {
    std::uint32_t n = 0;
    std::memcpy(&n, data.data() + 80, 4);
    binary = (84 + 50 * static_cast<std::uint64_t>(n) == data.size());
    if (binary) {
      corners.reserve(3 * static_cast<size_t>(n));
      for (std::uint32_t t = 0; t < n; ++t) {
        const char* rec = data.data() + 84 + 50 * static_cast<size_t>(t) + 12;  // skip the normal
        for (int k = 0; k < 3; ++k) {
          float xyz[3];
          std::memcpy(xyz, rec + 12 * k, 12);
          corners.emplace_back(xyz[0], xyz[1], xyz[2]);
        }
      }
    }
  }
  if (!binary) {
    if (data.rfind("solid", 0) != 0)
      throw std::invalid_argument("load_mesh: '" + path + "' is neither binary STL (size mismatch) nor ASCII STL");
    std::istringstream s(data);
    std::string tok;
    while (s >> tok) {
      if (tok != "vertex") continue;
      double x, y, z;
      if (!(s >> x >> y >> z)) throw std::invalid_argument("load_mesh: bad 'vertex' line in '" + path + "'");
      corners.emplace_back(x, y, z);
    }
    if (corners.size() % 3 != 0)
      throw std::invalid_argument("load_mesh: vertex count of '" + path + "' is not a multiple of 3");
  }
  if (corners.empty()) throw std::invalid_argument("load_mesh: no triangles in '" + path + "'");
  return weld(corners);
}

TriangleMesh load_obj(const std::string& path) {
  tinyobj::ObjReaderConfig cfg;
  cfg.triangulate = true;
  cfg.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(path, cfg))
    throw std::invalid_argument("load_mesh: cannot parse '" + path + "': " + reader.Error());
  const auto& pos = reader.GetAttrib().vertices;
  std::vector<Vec3> corners;
  for (const auto& shape : reader.GetShapes()) {
    for (const auto& idx : shape.mesh.indices) {
      const size_t i = static_cast<size_t>(idx.vertex_index);
      if (idx.vertex_index < 0 || 3 * i + 2 >= pos.size())
        throw std::invalid_argument("load_mesh: bad vertex index in '" + path + "'");
      corners.emplace_back(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]);
    }
  }
  if (corners.empty()) throw std::invalid_argument("load_mesh: no faces in '" + path + "'");
  return weld(corners);
}

}  // namespace

TriangleMesh load_mesh(const std::string& path) {
  std::string ext = path.size() >= 4 ? path.substr(path.size() - 4) : std::string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext == ".stl") return load_stl(path);
  if (ext == ".obj") return load_obj(path);
  throw std::invalid_argument("load_mesh: unknown extension of '" + path + "' (expected .obj or .stl)");
}

// ---------------------------------------------------------------------------------- generators

namespace {

/// Orients each face of a mesh that is star-shaped about `center` outward.
void orient_outward(const std::vector<Vec3>& V, std::vector<Face>& F, const Vec3& center) {
  for (Face& f : F) {
    const Vec3 n = (V[static_cast<size_t>(f[1])] - V[static_cast<size_t>(f[0])])
                       .cross(V[static_cast<size_t>(f[2])] - V[static_cast<size_t>(f[0])]);
    const Vec3 c = (V[static_cast<size_t>(f[0])] + V[static_cast<size_t>(f[1])] + V[static_cast<size_t>(f[2])]) / 3.0;
    if (n.dot(c - center) < 0.0) std::swap(f[1], f[2]);
  }
}

}  // namespace

TriangleMesh make_box(const Vec3& size) {
  if (!size.allFinite() || !(size.minCoeff() > 0.0))
    throw std::invalid_argument("make_box: sizes must be positive and finite");
  const Vec3 h = 0.5 * size;
  std::vector<Vec3> V;
  for (int i = 0; i < 8; ++i) V.emplace_back((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z());
  std::vector<Face> F = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                         {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  orient_outward(V, F, Vec3::Zero());
  return TriangleMesh(std::move(V), std::move(F));
}

TriangleMesh make_icosphere(double radius, int subdivisions) {
  if (!std::isfinite(radius) || !(radius > 0.0)) throw std::invalid_argument("make_icosphere: radius must be positive");
  if (subdivisions < 0 || subdivisions > 7) throw std::invalid_argument("make_icosphere: subdivisions must be in [0, 7]");
  const double g = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<Vec3> V = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0}, {0, -1, g}, {0, 1, g},
                         {0, -1, -g}, {0, 1, -g}, {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
  for (Vec3& v : V) v.normalize();
  std::vector<Face> F = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                         {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                         {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int s = 0; s < subdivisions; ++s) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      const auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      V.push_back((V[static_cast<size_t>(a)] + V[static_cast<size_t>(b)]).normalized());
      const int id = static_cast<int>(V.size()) - 1;
      mid.emplace(key, id);
      return id;
    };
    std::vector<Face> G;
    G.reserve(4 * F.size());
    for (const Face& f : F) {
      const int ab = midpoint(f[0], f[1]), bc = midpoint(f[1], f[2]), ca = midpoint(f[2], f[0]);
      G.push_back({f[0], ab, ca});
      G.push_back({f[1], bc, ab});
      G.push_back({f[2], ca, bc});
      G.push_back({ab, bc, ca});
    }
    F.swap(G);
  }
  for (Vec3& v : V) v *= radius;
  orient_outward(V, F, Vec3::Zero());
  return TriangleMesh(std::move(V), std::move(F));
}

TriangleMesh make_t_shape(const TShapeDimensions& d) {
  for (double x : {d.bar_length, d.bar_width, d.stem_width, d.stem_length, d.thickness})
    if (!std::isfinite(x) || !(x > 0.0)) throw std::invalid_argument("make_t_shape: sizes must be positive and finite");
  if (!(d.stem_width < d.bar_length)) throw std::invalid_argument("make_t_shape: stem_width must be < bar_length");
  const double w = d.bar_length / 2, s = d.stem_width / 2, yb = d.stem_length, yt = d.stem_length + d.bar_width;
  // Counter-clockwise outline (seen from +z).
  const double outline[8][2] = {{-s, 0}, {s, 0}, {s, yb}, {w, yb}, {w, yt}, {-w, yt}, {-w, yb}, {-s, yb}};
  std::vector<Vec3> V;
  for (int layer = 0; layer < 2; ++layer)
    for (const auto& o : outline) V.emplace_back(o[0], o[1], layer ? d.thickness / 2 : -d.thickness / 2);
  const int cap[6][3] = {{0, 1, 2}, {0, 2, 7}, {6, 7, 5}, {7, 4, 5}, {7, 2, 4}, {2, 3, 4}};  // CCW in xy
  std::vector<Face> F;
  for (const auto& t : cap) {
    F.push_back({t[0] + 8, t[1] + 8, t[2] + 8});  // top, normal +z
    F.push_back({t[0], t[2], t[1]});              // bottom, normal −z
  }
  for (int i = 0; i < 8; ++i) {  // side walls, outward = right of the CCW outline
    const int j = (i + 1) % 8;
    F.push_back({i, j, j + 8});
    F.push_back({i, j + 8, i + 8});
  }
  const TriangleMesh raw(V, F);
  const Vec3 c = raw.volume_centroid();
  for (Vec3& v : V) v -= c;
  return TriangleMesh(std::move(V), std::move(F));
}

// --------------------------------------------------------------------------- exact references

double winding_number(const TriangleMesh& mesh, const Vec3& p) {
  const auto& V = mesh.vertices();
  double sum = 0.0;
  for (const Face& F : mesh.faces()) {
    const Vec3 a = V[static_cast<size_t>(F[0])] - p, b = V[static_cast<size_t>(F[1])] - p,
               c = V[static_cast<size_t>(F[2])] - p;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    const double num = a.dot(b.cross(c));
    const double den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    sum += 2.0 * std::atan2(num, den);  // solid angle of the triangle seen from p
  }
  return sum / (4.0 * std::numbers::pi);
}

bool contains(const TriangleMesh& mesh, const Vec3& p) { return winding_number(mesh, p) > 0.5; }

Vec3 closest_point_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  // Voronoi regions of the vertices, edges and face (barycentric tests).
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  if (!(ab.cross(ac).squaredNorm() > 0.0)) {  // collinear or coincident corners: the closest point of the edges
    const auto on_segment = [&p](const Vec3& u, const Vec3& v) -> Vec3 {
      const Vec3 e = v - u;
      const double ee = e.squaredNorm();
      return ee > 0.0 ? Vec3(u + std::clamp(e.dot(p - u) / ee, 0.0, 1.0) * e) : u;
    };
    const Vec3 q[3] = {on_segment(a, b), on_segment(b, c), on_segment(c, a)};
    int best = 0;
    for (int i = 1; i < 3; ++i)
      if ((q[i] - p).squaredNorm() < (q[best] - p).squaredNorm()) best = i;
    return q[best];
  }
  // with a non-zero area, |ab|², |ac|² and |bc|² (the denominators below) are positive
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0.0 && d2 <= 0.0) return a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0.0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return a + (d1 / (d1 - d3)) * ab;
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0.0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return a + (d2 / (d2 - d6)) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
    return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

double distance_to_surface(const TriangleMesh& mesh, const Vec3& p, Vec3* closest) {
  const auto& V = mesh.vertices();
  double best = std::numeric_limits<double>::infinity();
  Vec3 best_x = Vec3::Zero();
  for (const Face& F : mesh.faces()) {
    const Vec3 x = closest_point_on_triangle(p, V[static_cast<size_t>(F[0])], V[static_cast<size_t>(F[1])],
                                             V[static_cast<size_t>(F[2])]);
    const double d2 = (x - p).squaredNorm();
    if (d2 < best) {
      best = d2;
      best_x = x;
    }
  }
  if (closest) *closest = best_x;
  return std::sqrt(best);
}

double signed_distance(const TriangleMesh& mesh, const Vec3& p) {
  const double d = distance_to_surface(mesh, p);
  return contains(mesh, p) ? -d : d;
}

}  // namespace diffcol::mesh
