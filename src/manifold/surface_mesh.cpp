// Iso-surface meshes of SDF objects (marching tetrahedra + Newton projection) and refined boxes.
#include "diffcol/manifold/surface_mesh.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "fail.hpp"

namespace diffcol::manifold {

namespace {

[[noreturn]] void fail_mesh_from_sdf(const std::string& what) { detail::fail("mesh_from_sdf", what); }

}  // namespace

mesh::TriangleMesh mesh_from_sdf(const SdfObject& sdf, const IsoSurfaceOptions& o) {
  if (sdf.num_added() < 1) fail_mesh_from_sdf("the SdfObject has no primitive");
  if (!o.lower.allFinite() || !o.upper.allFinite() || !((o.upper - o.lower).minCoeff() > 0.0))
    fail_mesh_from_sdf("the grid box needs finite corners with lower < upper");
  if (!std::isfinite(o.cell_size) || !(o.cell_size > 0.0)) fail_mesh_from_sdf("cell_size must be positive and finite");
  if (o.projection_steps < 0 || o.projection_steps > 100) fail_mesh_from_sdf("projection_steps must be in [0, 100]");
  if (!(o.snap > 0.0 && o.snap <= 0.1)) fail_mesh_from_sdf("snap must be in (0, 0.1]");
  const double h = o.cell_size;
  std::array<int, 3> n{};
  double cells = 1.0;
  for (int a = 0; a < 3; ++a) {
    n[a] = static_cast<int>(std::ceil((o.upper[a] - o.lower[a]) / h - 1e-9));
    if (n[a] < 2) n[a] = 2;
    cells *= n[a];
  }
  if (cells > o.max_cells) fail_mesh_from_sdf("the grid has " + std::to_string(cells) + " cells, more than max_cells");
  const int nx = n[0] + 1, ny = n[1] + 1, nz = n[2] + 1;
  auto node_id = [&](int i, int j, int k) { return (static_cast<std::int64_t>(k) * ny + j) * nx + i; };
  auto node_pos = [&](std::int64_t id) {
    const int i = static_cast<int>(id % nx), j = static_cast<int>((id / nx) % ny), k = static_cast<int>(id / (static_cast<std::int64_t>(nx) * ny));
    return Eigen::Vector3d(o.lower.x() + i * h, o.lower.y() + j * h, o.lower.z() + k * h);
  };
  std::vector<double> f(static_cast<std::size_t>(nx) * ny * nz);
  bool any_inside = false;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const std::int64_t id = node_id(i, j, k);
        double v = sdf.value(node_pos(id));
        if (!std::isfinite(v)) fail_mesh_from_sdf("the SDF is not finite at a grid node");
        if (std::abs(v) < o.snap * h) v = o.snap * h;  // no node on the surface
        const bool boundary = i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1;
        if (boundary && v < 0.0) fail_mesh_from_sdf("the solid reaches the grid boundary: enlarge [lower, upper]");
        any_inside = any_inside || v < 0.0;
        f[static_cast<std::size_t>(id)] = v;
      }
  if (!any_inside) fail_mesh_from_sdf("no grid node is inside the solid: refine cell_size or move the grid");

  std::vector<Vec3> vertices;
  std::vector<mesh::Face> faces;
  std::unordered_map<std::uint64_t, int> edge_vertex;  // grid edge (a < b) → vertex index
  auto crossing = [&](std::int64_t a, std::int64_t b) {
    if (a > b) std::swap(a, b);
    const std::uint64_t key = static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(nx * ny * nz) + static_cast<std::uint64_t>(b);
    const auto it = edge_vertex.find(key);
    if (it != edge_vertex.end()) return it->second;
    const double fa = f[static_cast<std::size_t>(a)], fb = f[static_cast<std::size_t>(b)];
    const double s = fa / (fa - fb);  // linear interpolation of the zero crossing
    vertices.push_back((1.0 - s) * node_pos(a) + s * node_pos(b));
    const int idx = static_cast<int>(vertices.size()) - 1;
    edge_vertex.emplace(key, idx);
    return idx;
  };
  // Adds triangle (p, q, r) with its normal along `out_dir` (inside corners → outside corners).
  auto emit = [&](int p, int q, int r, const Eigen::Vector3d& out_dir) {
    const Eigen::Vector3d nrm = (vertices[q] - vertices[p]).cross(vertices[r] - vertices[p]);
    if (nrm.dot(out_dir) < 0.0) std::swap(q, r);
    faces.push_back({p, q, r});
  };
  // Freudenthal triangulation: tetrahedra 0 → e_a → e_a + e_b → 7 over the 6 axis orders.
  static constexpr int kOrders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = 0; k + 1 < nz; ++k)
    for (int j = 0; j + 1 < ny; ++j)
      for (int i = 0; i + 1 < nx; ++i)
        for (const auto& ord : kOrders) {
          std::array<int, 3> c{i, j, k};
          std::array<std::int64_t, 4> t{};
          t[0] = node_id(c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[ord[s]];
            t[s + 1] = node_id(c[0], c[1], c[2]);
          }
          std::array<std::int64_t, 4> in{}, out{};
          int n_in = 0, n_out = 0;
          for (const std::int64_t v : t) {
            if (f[static_cast<std::size_t>(v)] < 0.0) in[n_in++] = v;
            else out[n_out++] = v;
          }
          if (n_in == 0 || n_out == 0) continue;
          Eigen::Vector3d ci = Eigen::Vector3d::Zero(), co = Eigen::Vector3d::Zero();
          for (int s = 0; s < n_in; ++s) ci += node_pos(in[s]);
          for (int s = 0; s < n_out; ++s) co += node_pos(out[s]);
          const Eigen::Vector3d dir = co / n_out - ci / n_in;
          if (n_in == 1) {
            emit(crossing(in[0], out[0]), crossing(in[0], out[1]), crossing(in[0], out[2]), dir);
          } else if (n_out == 1) {
            emit(crossing(in[0], out[0]), crossing(in[1], out[0]), crossing(in[2], out[0]), dir);
          } else {  // quad ac, ad, bd, bc (a, b inside; c, d outside)
            const int ac = crossing(in[0], out[0]), ad = crossing(in[0], out[1]);
            const int bd = crossing(in[1], out[1]), bc = crossing(in[1], out[0]);
            emit(ac, ad, bd, dir);
            emit(ac, bd, bc, dir);
          }
        }
  // Newton projection onto φ = 0 along ∇φ (supplementary II-C).
  for (Vec3& v : vertices) {
    for (int s = 0; s < o.projection_steps; ++s) {
      const SdfPoint<double> p = sdf.evaluate(V3<double>::from(v));
      const Eigen::Vector3d g = values(p.gradient);
      const double g2 = g.squaredNorm();
      if (!(g2 > 1e-24) || !std::isfinite(p.value)) break;
      Eigen::Vector3d step = (p.value / g2) * g;
      if (step.norm() > h) step *= h / step.norm();  // a Newton step never leaves its cell's scale
      v -= step;
    }
  }
  try {
    return mesh::TriangleMesh(std::move(vertices), std::move(faces));
  } catch (const std::invalid_argument& e) {
    fail_mesh_from_sdf(std::string("the extracted surface is not a valid mesh (") + e.what() + "); try another cell_size");
  }
}

double max_vertex_sdf(const SdfObject& sdf, const mesh::TriangleMesh& m) {
  double worst = 0.0;
  for (const Vec3& v : m.vertices()) worst = std::max(worst, std::abs(sdf.value(v)));
  return worst;
}

mesh::TriangleMesh make_refined_box(const Eigen::Vector3d& size, int n) {
  if (!size.allFinite() || !(size.minCoeff() > 0.0))
    throw std::invalid_argument("diffcol::manifold::make_refined_box: sizes must be positive and finite");
  if (n < 1 || n > 64) throw std::invalid_argument("diffcol::manifold::make_refined_box: n must be in [1, 64]");
  // Surface nodes of the (n+1)³ lattice, welded by lattice index.
  std::vector<int> index(static_cast<std::size_t>((n + 1) * (n + 1) * (n + 1)), -1);
  std::vector<Vec3> vertices;
  auto vertex = [&](int i, int j, int k) {
    int& id = index[static_cast<std::size_t>((k * (n + 1) + j) * (n + 1) + i)];
    if (id < 0) {
      vertices.emplace_back(size.x() * (static_cast<double>(i) / n - 0.5), size.y() * (static_cast<double>(j) / n - 0.5),
                            size.z() * (static_cast<double>(k) / n - 0.5));
      id = static_cast<int>(vertices.size()) - 1;
    }
    return id;
  };
  std::vector<mesh::Face> faces;
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int u = (axis + 1) % 3, w = (axis + 2) % 3;  // (u, w, axis) is right-handed
      for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
          int q[4];
          const int corners[4][2] = {{a, b}, {a + 1, b}, {a + 1, b + 1}, {a, b + 1}};
          for (int c = 0; c < 4; ++c) {
            std::array<int, 3> ijk{};
            ijk[axis] = side * n;
            ijk[u] = corners[c][0];
            ijk[w] = corners[c][1];
            q[c] = vertex(ijk[0], ijk[1], ijk[2]);
          }
          // Counter-clockwise in (u, w) faces +axis; reverse on the − side.
          if (side == 1) {
            faces.push_back({q[0], q[1], q[2]});
            faces.push_back({q[0], q[2], q[3]});
          } else {
            faces.push_back({q[0], q[2], q[1]});
            faces.push_back({q[0], q[3], q[2]});
          }
        }
    }
  return mesh::TriangleMesh(std::move(vertices), std::move(faces));
}

SdfObject make_box_sdf(const Eigen::Vector3d& size, double eps) {
  SdfObject obj;
  obj.add(Superquadric(0.5 * size, eps, eps));
  return obj;
}

}  // namespace diffcol::manifold
