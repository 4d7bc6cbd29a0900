// Bounding-box tree over a point cloud for culling the SCM's softmax sums (point_tree.hpp).
#include "diffcol/ssdf/point_tree.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace diffcol::ssdf {

PointTree::PointTree(const OrientedPointCloud& cloud, int leaf_size) {
  if (leaf_size < 1) throw std::invalid_argument("PointTree: leaf_size must be at least 1");
  const int n = cloud.size();
  index_.resize(static_cast<size_t>(n));
  std::iota(index_.begin(), index_.end(), 0);
  points_ = cloud.points();
  bounds_ = cloud.bounds();
  nodes_.reserve(static_cast<size_t>(2 * n));
  nodes_.resize(1);
  build(0, 0, n, leaf_size);
  std::vector<Vec3> p(static_cast<size_t>(n)), nn(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    p[static_cast<size_t>(k)] = cloud.points()[static_cast<size_t>(index_[static_cast<size_t>(k)])];
    nn[static_cast<size_t>(k)] = cloud.normals()[static_cast<size_t>(index_[static_cast<size_t>(k)])];
  }
  points_ = std::move(p);
  normals_ = std::move(nn);
  xs_.resize(static_cast<size_t>(n));
  ys_.resize(static_cast<size_t>(n));
  zs_.resize(static_cast<size_t>(n));
  nxs_.resize(static_cast<size_t>(n));
  nys_.resize(static_cast<size_t>(n));
  nzs_.resize(static_cast<size_t>(n));
  for (size_t k = 0; k < static_cast<size_t>(n); ++k) {
    xs_[k] = points_[k].x();
    ys_[k] = points_[k].y();
    zs_[k] = points_[k].z();
    nxs_[k] = normals_[k].x();
    nys_[k] = normals_[k].y();
    nzs_[k] = normals_[k].z();
  }
  // the leaves in tree order (depth first, left child first: their ranges are consecutive)
  leaf_start_.clear();
  std::array<int, kMaxDepth> stack;
  int top = 1;
  stack[0] = 0;
  while (top > 0) {
    const Node& nd = nodes_[static_cast<size_t>(stack[static_cast<size_t>(--top)])];
    if (nd.left >= 0) {
      stack[static_cast<size_t>(top++)] = nd.left + 1;
      stack[static_cast<size_t>(top++)] = nd.left;
      continue;
    }
    leaf_start_.push_back(nd.begin);
    for (size_t a = 0; a < 3; ++a) {
      leaf_lo_[a].push_back(nd.lo[static_cast<Eigen::Index>(a)]);
      leaf_hi_[a].push_back(nd.hi[static_cast<Eigen::Index>(a)]);
    }
  }
  leaf_start_.push_back(n);
}

// Fills node `id` for index_[begin, end) (points_ still in cloud order) and builds its subtree.
void PointTree::build(int id, int begin, int end, int leaf_size) {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (int k = begin; k < end; ++k) {
    const Vec3& p = points_[static_cast<size_t>(index_[static_cast<size_t>(k)])];
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  int left = -1;
  if (end - begin > leaf_size) {
    int axis = 0;
    (hi - lo).maxCoeff(&axis);
    const int mid = begin + (end - begin) / 2;
    std::nth_element(index_.begin() + begin, index_.begin() + mid, index_.begin() + end, [&](int a, int b) {
      return points_[static_cast<size_t>(a)][axis] < points_[static_cast<size_t>(b)][axis];
    });
    left = static_cast<int>(nodes_.size());
    nodes_.resize(nodes_.size() + 2);  // the two children are adjacent: right = left + 1
    build(left, begin, mid, leaf_size);
    build(left + 1, mid, end, leaf_size);
  }
  Node& node = nodes_[static_cast<size_t>(id)];
  node.lo = lo;
  node.hi = hi;
  node.begin = begin;
  node.end = end;
  node.left = left;
}

double PointTree::min_squared_distance(const Vec3& q) const {
  double best = std::numeric_limits<double>::infinity();
  std::array<int, kMaxDepth> stack;
  int top = 0;
  stack[0] = 0;
  top = 1;
  while (top > 0) {
    const Node& n = nodes_[static_cast<size_t>(stack[static_cast<size_t>(--top)])];
    if (!(box_squared_distance(n, q) < best)) continue;
    if (n.left < 0) {
      for (int k = n.begin; k < n.end; ++k) best = std::min(best, (points_[static_cast<size_t>(k)] - q).squaredNorm());
      continue;
    }
    const Node& a = nodes_[static_cast<size_t>(n.left)];
    const Node& b = nodes_[static_cast<size_t>(n.left + 1)];
    const bool a_first = box_squared_distance(a, q) <= box_squared_distance(b, q);
    stack[static_cast<size_t>(top++)] = a_first ? n.left + 1 : n.left;  // nearer child popped first
    stack[static_cast<size_t>(top++)] = a_first ? n.left : n.left + 1;
  }
  return best;
}

double PointTree::min_projection(const Vec3& u) const {
  double best = std::numeric_limits<double>::infinity();
  std::array<int, kMaxDepth> stack;
  int top = 1;
  stack[0] = 0;
  while (top > 0) {
    const Node& n = nodes_[static_cast<size_t>(stack[static_cast<size_t>(--top)])];
    if (!(box_min_projection(n, u) < best)) continue;
    if (n.left < 0) {
      for (int k = n.begin; k < n.end; ++k) best = std::min(best, u.dot(points_[static_cast<size_t>(k)]));
      continue;
    }
    const bool a_first = box_min_projection(nodes_[static_cast<size_t>(n.left)], u) <=
                         box_min_projection(nodes_[static_cast<size_t>(n.left + 1)], u);
    stack[static_cast<size_t>(top++)] = a_first ? n.left + 1 : n.left;
    stack[static_cast<size_t>(top++)] = a_first ? n.left : n.left + 1;
  }
  return best;
}

}  // namespace diffcol::ssdf
