#pragma once
/// @file point_tree.hpp
/// A bounding-box tree over the points of an oriented point cloud (body frame), for culling the
/// soft-minimum sums of the SCM (eqs. (9), (21)–(23)) to the points whose softmax weight can be
/// non-negligible.
///
/// A softmax term with logit ℓ_i and temperature t has weight exp((ℓ_i − max ℓ)/t). The sums of
/// dynamics.hpp skip every term with (ℓ_i − max ℓ)/t ≤ −G: G = 708 by default (such weights
/// are below 1e-307 of the largest, subnormal or zero in double, so the skip changes nothing), or −log(weight_cutoff) when the
/// scene's ScmParameters::weight_cutoff is set. The tree finds the maximum logit first (nearest
/// point, or lowest point along a direction) and then visits only the leaves whose box can hold a
/// point within G·t of it; the terms of all other points are provably skipped anyway.
///
/// Built once (O(I log I)); the queries allocate nothing (fixed traversal stack).

#include <array>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"
#include "diffcol/ssdf/aopc.hpp"

namespace diffcol::ssdf {

class PointTree {
 public:
  /// Builds the tree over cloud.points() (median splits along the longest box axis, leaves of at
  /// most leaf_size points). @throws std::invalid_argument if leaf_size < 1.
  explicit PointTree(const OrientedPointCloud& cloud, int leaf_size = 8);

  int size() const { return static_cast<int>(points_.size()); }
  /// Points, normals and original indices in tree order (the leaves' ranges index these).
  const Vec3& point(int k) const { return points_[static_cast<size_t>(k)]; }
  const Vec3& normal(int k) const { return normals_[static_cast<size_t>(k)]; }
  int original_index(int k) const { return index_[static_cast<size_t>(k)]; }
  /// The points' coordinates as three arrays (tree order), for vector kernels.
  const double* xs() const { return xs_.data(); }
  const double* ys() const { return ys_.data(); }
  const double* zs() const { return zs_.data(); }
  const double* normal_xs() const { return nxs_.data(); }
  const double* normal_ys() const { return nys_.data(); }
  const double* normal_zs() const { return nzs_.data(); }

  /// The leaves in tree order, for flat vector scans: leaf j holds the points
  /// [leaf_start(j), leaf_start(j + 1)) (consecutive ranges covering [0, size())), and its box is
  /// leaf_lo(a)[j] ≤ p_a ≤ leaf_hi(a)[j] for axis a = 0, 1, 2.
  int num_leaves() const { return static_cast<int>(leaf_start_.size()) - 1; }
  int leaf_start(int j) const { return leaf_start_[static_cast<size_t>(j)]; }
  const double* leaf_lo(int axis) const { return leaf_lo_[static_cast<size_t>(axis)].data(); }
  const double* leaf_hi(int axis) const { return leaf_hi_[static_cast<size_t>(axis)].data(); }

  /// The cloud's bounding sphere (far queries, aopc.hpp's kFarQueryRatio).
  const CloudBounds& bounds() const { return bounds_; }

  /// min_i ‖q − p_i‖².
  double min_squared_distance(const Vec3& q) const;
  /// min_i uᵀp_i.
  double min_projection(const Vec3& u) const;

  /// Calls f(begin, end) for the tree-order ranges of every leaf whose box lies within squared
  /// distance `bound` of q (a superset of the points with ‖q − p_i‖² ≤ bound).
  template <class F>
  void for_each_leaf_within(const Vec3& q, double bound, F&& f) const {
    visit([&](const Node& n) { return box_squared_distance(n, q) <= bound; }, f);
  }
  /// Calls f(begin, end) for every leaf whose box has min uᵀp ≤ bound (a superset of the points
  /// with uᵀp_i ≤ bound).
  template <class F>
  void for_each_leaf_below(const Vec3& u, double bound, F&& f) const {
    visit([&](const Node& n) { return box_min_projection(n, u) <= bound; }, f);
  }

 private:
  struct Node {
    Vec3 lo, hi;
    int begin = 0, end = 0;
    int left = -1;  ///< first child (the second is left + 1); −1 for a leaf
  };
  static constexpr int kMaxDepth = 64;

  void build(int id, int begin, int end, int leaf_size);
  static double box_squared_distance(const Node& n, const Vec3& q) {
    const Vec3 d = (n.lo - q).cwiseMax(q - n.hi).cwiseMax(0.0);
    return d.squaredNorm();
  }
  static double box_min_projection(const Node& n, const Vec3& u) {
    return u.cwiseProduct(n.lo).cwiseMin(u.cwiseProduct(n.hi)).sum();
  }
  template <class Keep, class F>
  void visit(const Keep& keep, F& f) const {
    std::array<int, kMaxDepth> stack;
    int top = 0;
    stack[static_cast<size_t>(top++)] = 0;
    while (top > 0) {
      const Node& n = nodes_[static_cast<size_t>(stack[static_cast<size_t>(--top)])];
      if (!keep(n)) continue;
      if (n.left < 0) {
        f(n.begin, n.end);
      } else {
        stack[static_cast<size_t>(top++)] = n.left + 1;
        stack[static_cast<size_t>(top++)] = n.left;
      }
    }
  }

  std::vector<Vec3> points_, normals_;
  std::vector<double> xs_, ys_, zs_, nxs_, nys_, nzs_;
  std::vector<int> index_;
  std::vector<Node> nodes_;
  std::vector<int> leaf_start_;                   // num_leaves() + 1 entries
  std::array<std::vector<double>, 3> leaf_lo_, leaf_hi_;
  CloudBounds bounds_;
};

}  // namespace diffcol::ssdf
