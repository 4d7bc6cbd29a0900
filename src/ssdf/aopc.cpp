// AOPC construction (SSDF seed Sec. III-B1): area-weighted candidates + farthest-point thinning.
#include "diffcol/ssdf/aopc.hpp"

#include "farthest_points.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <sstream>
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

void AopcOptions::validate() const {
  if (num_points < 4) throw std::invalid_argument("make_aopc: num_points must be >= 4");
  if (candidates_per_point < 1) throw std::invalid_argument("make_aopc: candidates_per_point must be >= 1");
  // bounded so that a typo (10^7 points) is an error, not minutes of work and gigabytes
  if (num_points > kMaxAopcPoints)
    throw std::invalid_argument("make_aopc: num_points must be <= " + std::to_string(kMaxAopcPoints) +
                                " (kMaxAopcPoints)");
  if (candidates_per_point > 64) throw std::invalid_argument("make_aopc: candidates_per_point must be <= 64");
  if (!(feature_angle >= 0.0))  // NaN would silently mean "no sharp edge"
    throw std::invalid_argument("make_aopc: feature_angle must be >= 0 (radians; >= pi: no sharp edge), got " +
                                std::to_string(feature_angle));
}

OrientedPointCloud make_aopc(const mesh::TriangleMesh& mesh, const AopcOptions& options) {
  options.validate();
  const auto& V = mesh.vertices();
  const auto& F = mesh.faces();
  const int num_faces = mesh.num_faces();
  // Area CDF over faces.
  std::vector<double> cdf(F.size());
  double total = 0.0;
  for (int f = 0; f < num_faces; ++f) cdf[static_cast<size_t>(f)] = (total += mesh.face_area(f));
  const auto point_in = [&](int f, double a, double b) {
    if (a + b > 1.0) {
      a = 1.0 - a;
      b = 1.0 - b;
    }
    const Vec3& x0 = V[static_cast<size_t>(F[static_cast<size_t>(f)][0])];
    return Vec3(x0 + a * (V[static_cast<size_t>(F[static_cast<size_t>(f)][1])] - x0) +
                b * (V[static_cast<size_t>(F[static_cast<size_t>(f)][2])] - x0));
  };
  // Candidates: uniform on the surface.
  const size_t m0 = static_cast<size_t>(options.num_points) * static_cast<size_t>(options.candidates_per_point);
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::vector<Vec3> cand(m0);
  std::vector<int> cand_face(m0);
  for (size_t c = 0; c < m0; ++c) {
    const double r = U(rng) * total;
    const size_t f = std::min(static_cast<size_t>(std::lower_bound(cdf.begin(), cdf.end(), r) - cdf.begin()), F.size() - 1);
    const double a = U(rng), b = U(rng);
    cand[c] = point_in(static_cast<int>(f), a, b);
    cand_face[c] = static_cast<int>(f);
  }
  // Sharp edges: dihedral angle between the two faces above feature_angle. The faces joined
  // across the other edges form the flat faces of the shape (union-find).
  std::vector<int> parent(F.size());
  for (size_t f = 0; f < parent.size(); ++f) parent[f] = static_cast<int>(f);
  const auto root = [&](int f) {
    while (parent[static_cast<size_t>(f)] != f) f = parent[static_cast<size_t>(f)] = parent[static_cast<size_t>(parent[static_cast<size_t>(f)])];
    return f;
  };
  std::map<std::pair<int, int>, int> edge_face;
  std::vector<std::array<Vec3, 2>> sharp;
  for (int f = 0; f < num_faces; ++f)
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
      else
        parent[static_cast<size_t>(root(f))] = root(it->second);
    }
  std::vector<int> flat(F.size());  // flat face of each mesh face (its root)
  std::vector<double> flat_area(F.size(), 0.0);
  std::vector<int> flat_candidates(F.size(), 0);
  for (int f = 0; f < num_faces; ++f) {
    flat[static_cast<size_t>(f)] = root(f);
    flat_area[static_cast<size_t>(flat[static_cast<size_t>(f)])] += mesh.face_area(f);
  }
  for (size_t c = 0; c < m0; ++c) ++flat_candidates[static_cast<size_t>(flat[static_cast<size_t>(cand_face[c])])];
  // A flat face that drew no candidate (far smaller than the spacing) gets candidates of its own
  // (a separate random stream, so that the other candidates do not change).
  std::mt19937_64 rng_small(options.seed ^ 0x9e3779b97f4a7c15ULL);
  for (int f = 0; f < num_faces; ++f) {
    if (flat_candidates[static_cast<size_t>(flat[static_cast<size_t>(f)])] > 0) continue;
    // every triangle of such a flat face: candidates_per_point candidates
    for (int k = 0; k < options.candidates_per_point; ++k) {
      const double a = U(rng_small), b = U(rng_small);
      cand.push_back(point_in(f, a, b));
      cand_face.push_back(f);
    }
  }
  const size_t m = cand.size();
  // Farthest-point thinning; sharp edges act as mirrors (squared distance (2e)²).
  const size_t n = std::min(m, static_cast<size_t>(options.num_points));
  const double spacing = std::sqrt(total / static_cast<double>(std::max<size_t>(n, 1)));
  std::vector<double> dist(m, std::numeric_limits<double>::infinity());
  for (size_t c = 0; c < m; ++c)
    for (const auto& e : sharp) {
      const Vec3 d = e[1] - e[0];
      const double s = std::clamp((cand[c] - e[0]).dot(d) / d.squaredNorm(), 0.0, 1.0);
      dist[c] = std::min(dist[c], 4.0 * (cand[c] - e[0] - s * d).squaredNorm());
    }
  // A flat face narrower than the spacing (its most interior candidate less than half a spacing
  // from a sharp edge) has its mirror distances stretched so that its mid-line counts as a
  // spacing away from the edges: it gets points along its length, not none.
  std::vector<double> flat_reach(F.size(), 0.0);  // max mirror distance on each flat face
  for (size_t c = 0; c < m; ++c) {
    double& r = flat_reach[static_cast<size_t>(flat[static_cast<size_t>(cand_face[c])])];
    r = std::max(r, dist[c]);
  }
  const double spacing2 = spacing * spacing;
  for (size_t c = 0; c < m; ++c) {
    const double r = flat_reach[static_cast<size_t>(flat[static_cast<size_t>(cand_face[c])])];
    if (r > 0.0 && r < spacing2) dist[c] *= spacing2 / r;
  }
  const auto thin = [&](const std::vector<size_t>& first) {
    return detail::farthest_points(cand, dist, n, 2.0 * spacing, first);
  };
  std::vector<size_t> picks = thin({});
  // Every flat face gets a point: those left without one seed the thinning with their most
  // interior candidate (largest faces first, while points remain).
  {
    std::vector<char> covered(F.size(), 0);
    for (size_t pick : picks) covered[static_cast<size_t>(flat[static_cast<size_t>(cand_face[pick])])] = 1;
    std::vector<long> seed_of(F.size(), -1);
    for (size_t c = 0; c < m; ++c) {
      const size_t g = static_cast<size_t>(flat[static_cast<size_t>(cand_face[c])]);
      if (covered[g]) continue;
      if (seed_of[g] < 0 || dist[c] > dist[static_cast<size_t>(seed_of[g])]) seed_of[g] = static_cast<long>(c);
    }
    std::vector<size_t> uncovered;
    for (size_t g = 0; g < F.size(); ++g)
      if (seed_of[g] >= 0) uncovered.push_back(g);
    if (!uncovered.empty()) {
      std::stable_sort(uncovered.begin(), uncovered.end(),
                       [&](size_t a, size_t b) { return flat_area[a] > flat_area[b]; });
      std::vector<size_t> first;
      for (size_t g : uncovered)
        if (first.size() < n) first.push_back(static_cast<size_t>(seed_of[g]));
      picks = thin(first);
    }
  }
  std::vector<Vec3> pts, nrm;
  std::vector<std::array<int, 3>> pv;
  pts.reserve(n);
  nrm.reserve(n);
  pv.reserve(n);
  for (size_t pick : picks) {
    const int f = cand_face[pick];
    pts.push_back(cand[pick]);
    nrm.push_back(mesh.face_normal(f));
    pv.push_back({F[static_cast<size_t>(f)][0], F[static_cast<size_t>(f)][1], F[static_cast<size_t>(f)][2]});
  }
  // The sign far away (see far_sign_margin). Where a direction u would read inside (its extreme
  // point's normal faces away), the candidate farthest along u on a face that faces u is added
  // (it is extreme there instead); at most num_points / 2 + 8 such points, then refused.
  Vec3 bad_direction;
  int bad_point = -1;
  double margin = far_sign_margin(pts, nrm, &bad_direction, &bad_point);
  const int max_added = options.num_points / 2 + 8;
  for (int added = 0; margin < kMinFarSignMargin && added < max_added; ++added) {
    const Vec3 u = bad_direction;
    // the mesh's farthest point along u on a face that faces u, pulled 1% into that face
    int best_face = -1;
    Vec3 best_x = Vec3::Zero();
    for (int f = 0; f < num_faces; ++f) {
      if (!(mesh.face_normal(f).dot(u) >= 0.1)) continue;
      int top = 0;
      for (int k = 1; k < 3; ++k)
        if (u.dot(V[static_cast<size_t>(F[static_cast<size_t>(f)][k])]) > u.dot(V[static_cast<size_t>(F[static_cast<size_t>(f)][top])])) top = k;
      Vec3 x = Vec3::Zero();
      for (int k = 0; k < 3; ++k) x += (k == top ? 0.98 : 0.01) * V[static_cast<size_t>(F[static_cast<size_t>(f)][k])];
      if (best_face < 0 || u.dot(x) > u.dot(best_x)) best_face = f, best_x = x;
    }
    if (best_face < 0 || !(u.dot(best_x) > u.dot(pts[static_cast<size_t>(bad_point)]))) break;
    const int f = best_face;
    pts.push_back(best_x);
    nrm.push_back(mesh.face_normal(f));
    pv.push_back({F[static_cast<size_t>(f)][0], F[static_cast<size_t>(f)][1], F[static_cast<size_t>(f)][2]});
    margin = far_sign_margin(pts, nrm, &bad_direction, &bad_point);
  }
  if (!(margin >= kMinFarSignMargin)) {
    // the mesh face that faces that direction and reaches farthest along it
    int face = -1;
    for (int f = 0; f < num_faces; ++f) {
      if (!(mesh.face_normal(f).dot(bad_direction) > 0.0)) continue;
      const Vec3 c = point_in(f, 1.0 / 3.0, 1.0 / 3.0);
      if (face < 0 || c.dot(bad_direction) > point_in(face, 1.0 / 3.0, 1.0 / 3.0).dot(bad_direction)) face = f;
    }
    std::ostringstream os;
    os.precision(3);
    os << "make_aopc: far queries toward direction (" << bad_direction.transpose()
       << ") may read inside: the far-sign margin is " << margin << " < " << kMinFarSignMargin
       << " (kMinFarSignMargin) with num_points = " << options.num_points << "; mesh face " << face;
    if (face >= 0)
      os << " (normal (" << mesh.face_normal(face).transpose() << "), on a flat face of area "
         << flat_area[static_cast<size_t>(flat[static_cast<size_t>(face)])] << ")";
    os << " lacks points near its edges: raise num_points";
    throw std::invalid_argument(os.str());
  }
  return OrientedPointCloud(std::move(pts), std::move(nrm), V, std::move(pv));
}

namespace detail {

std::vector<size_t> farthest_points(const std::vector<Vec3>& candidates, std::vector<double> dist, size_t n,
                                    double cell, const std::vector<size_t>& first) {
  std::vector<size_t> picks;
  if (candidates.empty() || n == 0) return picks;
  picks.reserve(n);
  // Each pick lowers dist only within √(max dist) of it (every dist is at most the max), so only
  // those candidates are visited (grid) and the arg max is kept in a tournament tree.
  const CandidateGrid grid(candidates, cell);
  ArgMax best(dist, grid.order());
  for (size_t k = 0; k < n; ++k) {
    const size_t top = static_cast<size_t>(best.top());
    const size_t pick = k < first.size() ? first[k] : top;
    picks.push_back(pick);
    const Vec3 x = candidates[pick];
    const double reach = std::sqrt(dist[top]) * (1.0 + 1e-9) + 1e-300;  // dist[top] = max dist
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

}  // namespace detail

// Far sign (aopc.hpp, far_sign_margin). Far along u the softmax picks the point i that is
// extreme along u, and φ → D·n_iᵀu; i is extreme for u in its normal cone N_i = {u : uᵀd_j ≤ 0},
// d_j = p_j − p_i. With u = a·n_i + w (w ⟂ n_i) the constraints read wᵀd̄_j ≤ a·z_j (d̄_j the part
// of d_j in the tangent plane, z_j = −n_iᵀd_j). On the slice a = 1 they cut a convex polygon Q
// (clipped from the square |w|∞ ≤ kFarBox); if Q is bounded, N_i lies in a > 0 and the least
// n_iᵀu over it is 1/√(1 + max_Q ‖w‖²); if Q is empty the slices a = 0 and a = −1 tell whether N_i
// holds a direction with n_iᵀu ≤ 0 or is {0} (p_i is extreme nowhere). Leaving points out only
// enlarges N_i: a bound from some of the points is a lower bound.
namespace {

constexpr double kFarBox = 1e6;  // |w| this large means a margin below 1e-6: a failure either way

using Poly = std::vector<Eigen::Vector2d>;

// Clips the convex polygon P by gᵀw ≤ c (into Q).
void clip(const Poly& P, const Eigen::Vector2d& g, double c, Poly& Q) {
  Q.clear();
  const size_t k = P.size();
  for (size_t t = 0; t < k; ++t) {
    const Eigen::Vector2d &A = P[t], &B = P[(t + 1) % k];
    const double fa = g.dot(A) - c, fb = g.dot(B) - c;
    if (fa <= 0.0) Q.push_back(A);
    if ((fa < 0.0 && fb > 0.0) || (fa > 0.0 && fb < 0.0)) Q.push_back(A + (fa / (fa - fb)) * (B - A));
  }
}

// The slice a of N_i: the polygon {w : wᵀd̄_j ≤ a·z_j} within the box.
void slice(const std::vector<Eigen::Vector3d>& h, size_t count, double a, Poly& P, Poly& tmp) {
  P = {{-kFarBox, -kFarBox}, {kFarBox, -kFarBox}, {kFarBox, kFarBox}, {-kFarBox, kFarBox}};
  for (size_t k = 0; k < count && !P.empty(); ++k) {
    clip(P, h[k].head<2>(), a * h[k].z(), tmp);
    P.swap(tmp);
  }
}

double max_norm(const Poly& P, Eigen::Vector2d* arg) {
  double r = -1.0;
  for (const auto& w : P)
    if (w.norm() > r) r = w.norm(), *arg = w;
  return r;
}

// Lower bound of min_{u ∈ N_i, ‖u‖ = 1} n_iᵀu from the points `near` (indices), and a direction
// where it is attained (about); +1 where p_i is extreme in no direction. After the first `early`
// points, a bound already at least `target` is returned (the rest can only raise it).
double point_far_margin(const std::vector<Vec3>& points, const Vec3& n, size_t i, const std::vector<size_t>& near,
                        size_t early, double target, std::vector<Eigen::Vector3d>& h, Poly& P, Poly& tmp,
                        Vec3* direction) {
  const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
  h.clear();
  const auto add = [&](size_t from, size_t to) {
    for (size_t k = from; k < to; ++k) {
      const Vec3 d = points[near[k]] - points[i];
      const double len = d.norm();
      if (len > 0.0) h.emplace_back(t1.dot(d) / len, t2.dot(d) / len, -n.dot(d) / len);  // (d̄, z) / ‖d‖
    }
  };
  const auto dir = [&](double a, const Eigen::Vector2d& w) { return Vec3(a * n + w.x() * t1 + w.y() * t2).normalized(); };
  Eigen::Vector2d w(0.0, 0.0);
  early = std::min(early, near.size());
  if (early < near.size() && target > 0.0 && target < 1.0) {  // the nearby points first
    add(0, early);
    const double R_target = std::sqrt(1.0 / (target * target) - 1.0);
    slice(h, h.size(), 1.0, P, tmp);
    if (!P.empty()) {
      const double R = max_norm(P, &w);
      if (R <= R_target) {
        *direction = dir(1.0, w);
        return 1.0 / std::sqrt(1.0 + R * R);
      }
    }
    add(early, near.size());
  } else {
    add(0, near.size());
  }
  slice(h, h.size(), 1.0, P, tmp);
  double R = -1.0;
  if (!P.empty()) {
    R = max_norm(P, &w);
    *direction = dir(1.0, w);
    if (R < 0.999 * kFarBox) return 1.0 / std::sqrt(1.0 + R * R);  // bounded: N_i within a > 0
  }
  const Eigen::Vector2d w_up = w;
  slice(h, h.size(), -1.0, P, tmp);
  if (!P.empty()) {  // the worst direction: the point of the slice nearest −n
    double best = std::numeric_limits<double>::infinity();
    bool inside = true;
    for (size_t t = 0; t < P.size(); ++t) {
      const Eigen::Vector2d A = P[t], B = P[(t + 1) % P.size()], e = B - A;
      if (e.x() * (-A.y()) - e.y() * (-A.x()) < 0.0) inside = false;
      const double s = e.squaredNorm() > 0.0 ? std::clamp(-A.dot(e) / e.squaredNorm(), 0.0, 1.0) : 0.0;
      const Eigen::Vector2d c = A + s * e;
      if (c.norm() < best) best = c.norm(), w = c;
    }
    if (inside) w.setZero();
    *direction = dir(-1.0, w);
    return -1.0 / std::sqrt(1.0 + w.squaredNorm());
  }
  if (R >= 0.0) {  // unbounded towards a = 0
    *direction = dir(0.0, w_up);
    return 0.0;
  }
  slice(h, h.size(), 0.0, P, tmp);
  if (max_norm(P, &w) > 1e-9 * kFarBox) {
    *direction = dir(0.0, w);
    return 0.0;
  }
  *direction = n;
  return 1.0;
}

}  // namespace

double far_sign_margin(const std::vector<Vec3>& points, const std::vector<Vec3>& normals, Vec3* worst_direction,
                       int* worst_point) {
  const size_t I = points.size();
  if (worst_direction) worst_direction->setZero();
  if (worst_point) *worst_point = -1;
  if (I < 4) return -1.0;
  // first pass: the points within about three spacings (those bound N_i near the tangent plane;
  // usually enough), then the extreme points of the cloud along 128 spread directions; all points
  // where the bound stays below kMinFarSignMargin
  std::vector<size_t> extreme;
  for (int k = 0; k < 128; ++k) {
    const double zk = 1.0 - (2.0 * k + 1.0) / 128.0, rk = std::sqrt(std::max(0.0, 1.0 - zk * zk));
    const double phi = 2.39996322972865332 * k;  // golden angle
    const Vec3 u(rk * std::cos(phi), rk * std::sin(phi), zk);
    size_t best = 0;
    for (size_t j = 1; j < I; ++j)
      if (u.dot(points[j]) > u.dot(points[best])) best = j;
    extreme.push_back(best);
  }
  Vec3 lo = points.front(), hi = lo;
  for (const Vec3& p : points) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  const double h = 2.0 * (hi - lo).norm() / std::sqrt(static_cast<double>(I));  // ~2 spacings of a surface cloud
  const CandidateGrid grid(points, h);
  std::vector<size_t> near, all(I);
  for (size_t j = 0; j < I; ++j) all[j] = j;
  std::vector<Eigen::Vector3d> hs;
  Poly P, tmp;
  double worst = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < I; ++i) {
    near.clear();
    grid.for_each_near(points[i], h, [&](size_t j) {
      if ((points[j] - points[i]).squaredNorm() <= h * h) near.push_back(j);
    });
    const size_t local = near.size();
    near.insert(near.end(), extreme.begin(), extreme.end());
    Vec3 dir;
    double mi = point_far_margin(points, normals[i], i, near, local, kMinFarSignMargin, hs, P, tmp, &dir);
    if (mi < kMinFarSignMargin) mi = point_far_margin(points, normals[i], i, all, 0, 1.0, hs, P, tmp, &dir);
    if (mi < worst) {
      worst = mi;
      if (worst_direction) *worst_direction = dir;
      if (worst_point) *worst_point = static_cast<int>(i);
    }
  }
  return worst;
}

double far_sign_margin(const OrientedPointCloud& cloud, Vec3* worst_direction) {
  return far_sign_margin(cloud.points(), cloud.normals(), worst_direction);
}

namespace detail {

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
