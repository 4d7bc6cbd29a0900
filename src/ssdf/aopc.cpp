// AOPC construction (SSDF seed Sec. III-B1): area-weighted candidates + farthest-point thinning.
#include "diffcol/ssdf/aopc.hpp"

#include "farthest_points.hpp"

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

/// The candidate with the largest value (the first one, by index, on ties), kept under updates:
/// a tournament tree whose leaves hold the candidates in a given order (spatial, so that one
/// pick's updates share their ancestors); changed leaves are marked and their ancestors
/// recomputed level by level, each once.
class ArgMax {
 public:
  ArgMax(const std::vector<double>& value, const std::vector<int>& order) : v_(value) {
    while (size_ < v_.size()) size_ *= 2;
    node_.assign(2 * size_, -1);
    stamp_.assign(size_, 0);
    leaf_of_.resize(v_.size());
    for (size_t t = 0; t < order.size(); ++t) {
      node_[size_ + t] = order[t];
      leaf_of_[static_cast<size_t>(order[t])] = size_ + t;
    }
    for (size_t i = size_ - 1; i >= 1; --i) node_[i] = better(node_[2 * i], node_[2 * i + 1]);
  }
  int top() const { return node_[1]; }
  /// Marks candidate c, whose value changed.
  void mark(size_t c) { dirty_.push_back(leaf_of_[c]); }
  /// Recomputes the ancestors of the marked leaves.
  void refresh() {
    while (!dirty_.empty() && dirty_.front() > 1) {
      ++round_;
      next_.clear();
      for (size_t x : dirty_) {
        const size_t parent = x / 2;
        if (stamp_[parent] == round_) continue;
        stamp_[parent] = round_;
        next_.push_back(parent);
      }
      for (size_t i : next_) node_[i] = better(node_[2 * i], node_[2 * i + 1]);
      dirty_.swap(next_);
    }
    dirty_.clear();
  }

 private:
  int better(int a, int b) const {
    if (a < 0) return b;
    if (b < 0) return a;
    const double va = v_[static_cast<size_t>(a)], vb = v_[static_cast<size_t>(b)];
    return (vb > va || (vb == va && b < a)) ? b : a;
  }
  const std::vector<double>& v_;
  size_t size_ = 1;
  std::vector<int> node_;
  std::vector<size_t> leaf_of_, dirty_, next_;
  std::vector<unsigned> stamp_;
  unsigned round_ = 0;
};

/// Points bucketed in a uniform grid (cells of side about h over their bounding box), for the
/// points within a radius of a query.
class CandidateGrid {
 public:
  CandidateGrid(const std::vector<Vec3>& pts, double h) {
    lo_ = hi_ = pts.front();
    for (const Vec3& p : pts) {
      lo_ = lo_.cwiseMin(p);
      hi_ = hi_.cwiseMax(p);
    }
    h_ = h > 0.0 ? h : 1.0;
    // at most ~4 cells per point (a tiny h would make the grid, not the points, the cost)
    const double limit = 4.0 * static_cast<double>(pts.size()) + 64.0;
    for (;;) {
      double cells = 1.0;
      for (int a = 0; a < 3; ++a) cells *= std::floor((hi_[a] - lo_[a]) / h_) + 1.0;
      if (cells <= limit) break;
      h_ *= 1.25;
    }
    for (int a = 0; a < 3; ++a) n_[a] = static_cast<int>((hi_[a] - lo_[a]) / h_) + 1;
    std::vector<int> count(static_cast<size_t>(n_[0]) * n_[1] * n_[2] + 1, 0);
    std::vector<size_t> cell(pts.size());
    for (size_t c = 0; c < pts.size(); ++c) ++count[(cell[c] = cell_of(pts[c])) + 1];
    for (size_t i = 1; i < count.size(); ++i) count[i] += count[i - 1];
    start_ = count;
    index_.resize(pts.size());
    for (size_t c = 0; c < pts.size(); ++c) index_[static_cast<size_t>(count[cell[c]]++)] = static_cast<int>(c);
  }
  /// The points' indices ordered by cell.
  const std::vector<int>& order() const { return index_; }
  /// Calls f(c) for every point within distance r of x (and possibly a few more).
  template <class F>
  void for_each_near(const Vec3& x, double r, const F& f) const {
    int a0[3], a1[3];
    for (int a = 0; a < 3; ++a) {
      const double l = (x[a] - r - lo_[a]) / h_, u = (x[a] + r - lo_[a]) / h_;
      a0[a] = l <= 0.0 ? 0 : static_cast<int>(std::min(l, static_cast<double>(n_[a] - 1)));
      a1[a] = !(u < n_[a] - 1) ? n_[a] - 1 : (u < 0.0 ? 0 : static_cast<int>(u));
    }
    for (int i = a0[0]; i <= a1[0]; ++i)
      for (int j = a0[1]; j <= a1[1]; ++j)
        for (int k = a0[2]; k <= a1[2]; ++k) {
          const size_t cell = (static_cast<size_t>(i) * n_[1] + j) * n_[2] + k;
          for (int t = start_[cell]; t < start_[cell + 1]; ++t) f(static_cast<size_t>(index_[static_cast<size_t>(t)]));
        }
  }

 private:
  size_t cell_of(const Vec3& p) const {
    int q[3];
    for (int a = 0; a < 3; ++a) q[a] = std::clamp(static_cast<int>((p[a] - lo_[a]) / h_), 0, n_[a] - 1);
    return (static_cast<size_t>(q[0]) * n_[1] + q[1]) * n_[2] + q[2];
  }
  Vec3 lo_, hi_;
  double h_ = 1.0;
  int n_[3] = {1, 1, 1};
  std::vector<int> start_, index_;
};

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
  // Mean nearest-neighbour spacing.
  if (points_.size() > 1) {
    double sum = 0.0;
    for (double d : detail::nearest_neighbour_distances(points_)) sum += d;
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
  // bounded so that a typo (10^7 points) is an error, not minutes of work and gigabytes
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
  for (size_t c = 0; c < m; ++c)
    for (const auto& e : sharp) {
      const Vec3 d = e[1] - e[0];
      const double s = std::clamp((cand[c] - e[0]).dot(d) / d.squaredNorm(), 0.0, 1.0);
      dist[c] = std::min(dist[c], 4.0 * (cand[c] - e[0] - s * d).squaredNorm());
    }
  std::vector<Vec3> pts, nrm;
  std::vector<std::array<int, 3>> pv;
  pts.reserve(n);
  nrm.reserve(n);
  pv.reserve(n);
  const double spacing = std::sqrt(total / static_cast<double>(std::max<size_t>(n, 1)));
  for (size_t pick : detail::farthest_points(cand, std::move(dist), n, 2.0 * spacing)) {
    const int f = cand_face[pick];
    pts.push_back(cand[pick]);
    nrm.push_back(mesh.face_normal(f));
    pv.push_back({F[static_cast<size_t>(f)][0], F[static_cast<size_t>(f)][1], F[static_cast<size_t>(f)][2]});
  }
  return OrientedPointCloud(std::move(pts), std::move(nrm), V, std::move(pv));
}

namespace detail {

std::vector<size_t> farthest_points(const std::vector<Vec3>& candidates, std::vector<double> dist, size_t n,
                                    double cell) {
  std::vector<size_t> picks;
  if (candidates.empty() || n == 0) return picks;
  picks.reserve(n);
  // Each pick lowers dist only within √(max dist) of it (every dist is at most the max), so only
  // those candidates are visited (grid) and the arg max is kept in a tournament tree.
  const CandidateGrid grid(candidates, cell);
  ArgMax best(dist, grid.order());
  for (size_t k = 0; k < n; ++k) {
    const size_t pick = static_cast<size_t>(best.top());
    picks.push_back(pick);
    const Vec3 x = candidates[pick];
    const double reach = std::sqrt(dist[pick]) * (1.0 + 1e-9) + 1e-300;  // dist[pick] = max dist
    grid.for_each_near(x, reach, [&](size_t c) {
      const double d = (candidates[c] - x).squaredNorm();
      if (d < dist[c]) {
        dist[c] = d;
        best.mark(c);
      }
    });
    best.refresh();
  }
  return picks;
}

std::vector<double> nearest_neighbour_distances(const std::vector<Vec3>& points) {
  std::vector<double> out(points.size(), std::numeric_limits<double>::infinity());
  if (points.size() < 2) return out;
  // each point's nearest other point from a grid, searched in growing radii until the nearest
  // found lies within the radius (the same minimum as brute force, exactly)
  Vec3 lo = points.front(), hi = lo;
  for (const Vec3& p : points) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  const double diag = (hi - lo).norm();
  const double h = diag / std::cbrt(static_cast<double>(points.size()));
  const CandidateGrid grid(points, h);
  for (size_t i = 0; i < points.size(); ++i) {
    double best = std::numeric_limits<double>::infinity();
    for (double r = h > 0.0 ? h : 1.0;; r *= 2.0) {
      grid.for_each_near(points[i], r, [&](size_t j) {
        if (j != i) best = std::min(best, (points[i] - points[j]).squaredNorm());
      });
      if (best <= r * r || !(r <= 4.0 * diag)) break;  // beyond the cloud: every point was seen
    }
    out[i] = std::sqrt(best);
  }
  return out;
}

}  // namespace detail

}  // namespace diffcol::ssdf
