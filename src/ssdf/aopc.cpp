// AOPC construction (SSDF seed Sec. III-B1): area-weighted candidates + farthest-point thinning.
#include "diffcol/ssdf/aopc.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>

namespace diffcol::ssdf {

namespace {

[[noreturn]] void fail(const std::string& msg) { throw std::invalid_argument("OrientedPointCloud: " + msg); }

}  // namespace

OrientedPointCloud::OrientedPointCloud(std::vector<Vec3> points, std::vector<Vec3> normals)
    : OrientedPointCloud(points, std::move(normals), points, [&] {
        std::vector<std::array<int, 3>> pv(points.size());
        for (size_t i = 0; i < pv.size(); ++i) pv[i] = {static_cast<int>(i), -1, -1};
        return pv;
      }()) {}

OrientedPointCloud::OrientedPointCloud(std::vector<Vec3> points, std::vector<Vec3> normals,
                                       std::vector<Vec3> vertices,
                                       std::vector<std::array<int, 3>> point_vertices)
    : points_(std::move(points)),
      normals_(std::move(normals)),
      vertices_(std::move(vertices)),
      point_vertices_(std::move(point_vertices)) {
  if (points_.empty()) fail("no points");
  if (normals_.size() != points_.size() || point_vertices_.size() != points_.size())
    fail("points, normals and point_vertices must have the same length");
  const int nv = static_cast<int>(vertices_.size());
  for (size_t i = 0; i < points_.size(); ++i) {
    if (!points_[i].allFinite() || !normals_[i].allFinite())
      fail("point or normal " + std::to_string(i) + " is not finite");
    if (!(points_[i].cwiseAbs().maxCoeff() <= kMaxLength))
      fail("point " + std::to_string(i) + " is beyond 1e100 (kMaxLength)");
    const double len = normals_[i].norm();
    if (!(len > 1e-12)) fail("normal " + std::to_string(i) + " has zero length");
    normals_[i] /= len;
    for (int k : point_vertices_[i])
      if (k < -1 || k >= nv) fail("point " + std::to_string(i) + " has an out-of-range vertex index");
  }
  for (size_t v = 0; v < vertices_.size(); ++v)
    if (!vertices_[v].allFinite()) fail("vertex " + std::to_string(v) + " is not finite");
  // Mean nearest-neighbour spacing (brute force).
  if (points_.size() > 1) {
    double sum = 0.0;
    for (size_t i = 0; i < points_.size(); ++i) {
      double best = std::numeric_limits<double>::infinity();
      for (size_t j = 0; j < points_.size(); ++j)
        if (j != i) best = std::min(best, (points_[i] - points_[j]).squaredNorm());
      sum += std::sqrt(best);
    }
    mean_spacing_ = sum / static_cast<double>(points_.size());
  }
  bounds_ = CloudBounds::of(points_);
}

CloudBounds CloudBounds::of(const std::vector<Vec3>& points) {
  CloudBounds b;
  if (points.empty()) return b;
  Vec3 lo = points.front(), hi = points.front();
  for (const Vec3& p : points) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  b.center = 0.5 * lo + 0.5 * hi;  // no overflow at kMaxLength
  for (const Vec3& p : points) b.radius = std::max(b.radius, (p - b.center).norm());
  return b;
}

Vec3 OrientedPointCloud::world_point(int i, const Pose& X_WB, Mat36* J) const {
  if (!X_WB.is_finite()) throw std::invalid_argument("OrientedPointCloud::world_point: pose is not finite");
  const Vec3& p = points_[static_cast<size_t>(i)];
  if (J) {
    J->leftCols<3>() = -X_WB.R * skew(p);
    J->rightCols<3>() = X_WB.R;
  }
  return X_WB * p;
}

Vec3 OrientedPointCloud::world_normal(int i, const Pose& X_WB, Mat36* J) const {
  if (!X_WB.is_finite()) throw std::invalid_argument("OrientedPointCloud::world_normal: pose is not finite");
  const Vec3& n = normals_[static_cast<size_t>(i)];
  if (J) {
    J->leftCols<3>() = -X_WB.R * skew(n);
    J->rightCols<3>().setZero();
  }
  return X_WB.R * n;
}

OrientedPointCloud make_aopc(const mesh::TriangleMesh& mesh, const AopcOptions& options) {
  if (options.num_points < 4) throw std::invalid_argument("make_aopc: num_points must be >= 4");
  if (options.candidates_per_point < 1) throw std::invalid_argument("make_aopc: candidates_per_point must be >= 1");
  // farthest-point thinning costs num_points² · candidates_per_point: bounded so that a typo
  // (10^7 points) is an error, not hours of work
  if (options.num_points > kMaxAopcPoints)
    throw std::invalid_argument("make_aopc: num_points must be <= " + std::to_string(kMaxAopcPoints) +
                                " (kMaxAopcPoints)");
  if (options.candidates_per_point > 64) throw std::invalid_argument("make_aopc: candidates_per_point must be <= 64");
  const auto& V = mesh.vertices();
  const auto& F = mesh.faces();
  // Area CDF over faces.
  std::vector<double> cdf(F.size());
  double total = 0.0;
  for (int f = 0; f < mesh.num_faces(); ++f) cdf[static_cast<size_t>(f)] = (total += mesh.face_area(f));
  // Candidates: uniform on the surface.
  const size_t m = static_cast<size_t>(options.num_points) * static_cast<size_t>(options.candidates_per_point);
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::vector<Vec3> cand(m);
  std::vector<int> cand_face(m);
  for (size_t c = 0; c < m; ++c) {
    const double r = U(rng) * total;
    const size_t f = std::min(static_cast<size_t>(std::lower_bound(cdf.begin(), cdf.end(), r) - cdf.begin()), F.size() - 1);
    double a = U(rng), b = U(rng);
    if (a + b > 1.0) {
      a = 1.0 - a;
      b = 1.0 - b;
    }
    const Vec3& x0 = V[static_cast<size_t>(F[f][0])];
    cand[c] = x0 + a * (V[static_cast<size_t>(F[f][1])] - x0) + b * (V[static_cast<size_t>(F[f][2])] - x0);
    cand_face[c] = static_cast<int>(f);
  }
  // Sharp edges: dihedral angle between the two faces above feature_angle.
  std::map<std::pair<int, int>, int> edge_face;
  std::vector<std::array<Vec3, 2>> sharp;
  for (int f = 0; f < mesh.num_faces(); ++f)
    for (int k = 0; k < 3; ++k) {
      const int a = F[static_cast<size_t>(f)][k], b = F[static_cast<size_t>(f)][(k + 1) % 3];
      const auto it = edge_face.find({b, a});
      if (it == edge_face.end()) {
        edge_face.emplace(std::make_pair(a, b), f);
        continue;
      }
      const double cosang = std::clamp(mesh.face_normal(f).dot(mesh.face_normal(it->second)), -1.0, 1.0);
      if (std::acos(cosang) > options.feature_angle)
        sharp.push_back({V[static_cast<size_t>(a)], V[static_cast<size_t>(b)]});
    }
  // Farthest-point thinning; sharp edges act as mirrors (squared distance (2e)²).
  const size_t n = std::min(m, static_cast<size_t>(options.num_points));
  std::vector<double> dist(m, std::numeric_limits<double>::infinity());
  size_t pick = 0;
  if (!sharp.empty()) {
    double far = -1.0;
    for (size_t c = 0; c < m; ++c) {
      for (const auto& e : sharp) {
        const Vec3 d = e[1] - e[0];
        const double s = std::clamp((cand[c] - e[0]).dot(d) / d.squaredNorm(), 0.0, 1.0);
        dist[c] = std::min(dist[c], 4.0 * (cand[c] - e[0] - s * d).squaredNorm());
      }
      if (dist[c] > far) {
        far = dist[c];
        pick = c;
      }
    }
  }
  std::vector<Vec3> pts, nrm;
  std::vector<std::array<int, 3>> pv;
  pts.reserve(n);
  nrm.reserve(n);
  pv.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    const int f = cand_face[pick];
    pts.push_back(cand[pick]);
    nrm.push_back(mesh.face_normal(f));
    pv.push_back({F[static_cast<size_t>(f)][0], F[static_cast<size_t>(f)][1], F[static_cast<size_t>(f)][2]});
    const Vec3 x = cand[pick];
    size_t next = 0;
    double far = -1.0;
    for (size_t c = 0; c < m; ++c) {
      dist[c] = std::min(dist[c], (cand[c] - x).squaredNorm());
      if (dist[c] > far) {
        far = dist[c];
        next = c;
      }
    }
    pick = next;
  }
  return OrientedPointCloud(std::move(pts), std::move(nrm), V, std::move(pv));
}

}  // namespace diffcol::ssdf
