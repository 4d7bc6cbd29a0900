#pragma once
/// @file broad_phase.hpp
/// Axis-aligned bounding boxes and a sweep-and-prune broad phase.
///
/// find_pairs returns every pair (i, j), i < j, whose boxes, each grown by margin/2 on every
/// side, overlap: a superset of the pairs whose shapes are closer than `margin` (the distance of
/// two shapes is at least the largest per-axis gap of their boxes). Boxes are sorted along x by
/// their lower corner and swept; the order of the previous call is kept and repaired by insertion
/// sort, so a scene whose bodies move a little between calls sorts in about linear time. The
/// result is sorted by (i, j). After the first call with a given number of boxes it allocates
/// nothing unless the number of pairs grows.
#include <algorithm>
#include <utility>
#include <vector>

#include "diffcol/math/se3.hpp"

namespace diffcol::scene {

struct Aabb {
  Vec3 lower = Vec3::Zero(), upper = Vec3::Zero();
  /// The box of a ball of radius r about c.
  static Aabb ball(const Vec3& c, double r) { return Aabb{c.array() - r, c.array() + r}; }
  /// Whether the boxes overlap when each is grown by margin/2 (touching counts).
  bool overlaps(const Aabb& o, double margin) const {
    return (lower.array() <= o.upper.array() + margin).all() && (o.lower.array() <= upper.array() + margin).all();
  }
};

class SweepAndPrune {
 public:
  /// Every pair of boxes within `margin` (≥ 0) for which accept(i, j) is true, i < j, sorted.
  template <class Accept>
  void find_pairs(const std::vector<Aabb>& boxes, double margin, Accept&& accept,
                  std::vector<std::pair<int, int>>& pairs);

 private:
  void sort_order(const std::vector<Aabb>& boxes);
  std::vector<int> order_;
};

template <class Accept>
void SweepAndPrune::find_pairs(const std::vector<Aabb>& boxes, double margin, Accept&& accept,
                               std::vector<std::pair<int, int>>& pairs) {
  pairs.clear();
  sort_order(boxes);
  const int n = static_cast<int>(order_.size());
  for (int a = 0; a < n; ++a) {
    const int i = order_[static_cast<size_t>(a)];
    const Aabb& bi = boxes[static_cast<size_t>(i)];
    const double reach = bi.upper.x() + margin;
    for (int b = a + 1; b < n; ++b) {
      const int j = order_[static_cast<size_t>(b)];
      const Aabb& bj = boxes[static_cast<size_t>(j)];
      if (bj.lower.x() > reach) break;  // sorted by lower x: no later box reaches i
      if (!bi.overlaps(bj, margin)) continue;
      const int lo = std::min(i, j), hi = std::max(i, j);
      if (accept(lo, hi)) pairs.emplace_back(lo, hi);
    }
  }
  std::sort(pairs.begin(), pairs.end());
}

}  // namespace diffcol::scene
