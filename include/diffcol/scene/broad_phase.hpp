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

#include "diffcol/batch/thread_pool.hpp"
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
  /// With a pool of more than one thread the sweep is split over its threads (accept must then
  /// be safe to call concurrently); the result is the same. `fixed` (one flag per box, or null):
  /// pairs of two flagged boxes are never tested nor returned (static bodies' shapes: a flagged
  /// box's sweep visits only the unflagged boxes after it).
  template <class Accept>
  void find_pairs(const std::vector<Aabb>& boxes, double margin, Accept&& accept,
                  std::vector<std::pair<int, int>>& pairs, batch::ThreadPool* pool = nullptr,
                  const std::vector<char>* fixed = nullptr);

 private:
  void sort_order(const std::vector<Aabb>& boxes);
  void link_unfixed(const std::vector<char>& fixed);
  // the pairs of the boxes at sorted positions [begin, end) with any later box
  template <class Accept>
  void sweep(const std::vector<Aabb>& boxes, double margin, Accept& accept, int begin, int end,
             std::vector<std::pair<int, int>>& out) const;
  std::vector<int> order_;
  std::vector<int> next_unfixed_;  // per sorted position: the first position ≥ it of an unflagged box (n: none)
  const std::vector<char>* fixed_ = nullptr;  // during find_pairs
  std::vector<std::vector<std::pair<int, int>>> chunk_pairs_;
};

template <class Accept>
void SweepAndPrune::sweep(const std::vector<Aabb>& boxes, double margin, Accept& accept, int begin, int end,
                          std::vector<std::pair<int, int>>& out) const {
  const int n = static_cast<int>(order_.size());
  for (int a = begin; a < end; ++a) {
    const int i = order_[static_cast<size_t>(a)];
    const Aabb& bi = boxes[static_cast<size_t>(i)];
    const double reach = bi.upper.x() + margin;
    const bool skip_fixed = fixed_ && (*fixed_)[static_cast<size_t>(i)];
    for (int b = skip_fixed ? next_unfixed_[static_cast<size_t>(a) + 1] : a + 1; b < n;
         b = skip_fixed ? next_unfixed_[static_cast<size_t>(b) + 1] : b + 1) {
      const int j = order_[static_cast<size_t>(b)];
      const Aabb& bj = boxes[static_cast<size_t>(j)];
      if (bj.lower.x() > reach) break;  // sorted by lower x: no later box reaches i
      if (!bi.overlaps(bj, margin)) continue;
      const int lo = std::min(i, j), hi = std::max(i, j);
      if (accept(lo, hi)) out.emplace_back(lo, hi);
    }
  }
}

template <class Accept>
void SweepAndPrune::find_pairs(const std::vector<Aabb>& boxes, double margin, Accept&& accept,
                               std::vector<std::pair<int, int>>& pairs, batch::ThreadPool* pool,
                               const std::vector<char>* fixed) {
  pairs.clear();
  sort_order(boxes);
  const int n = static_cast<int>(order_.size());
  fixed_ = fixed && fixed->size() == boxes.size() ? fixed : nullptr;
  if (fixed_) link_unfixed(*fixed_);
  if (!pool || pool->num_threads() < 2 || n < 256) {
    sweep(boxes, margin, accept, 0, n, pairs);
  } else {
    // chunks of sorted positions (the early ones scan no more than the late ones: equal sizes)
    const int chunks = 8 * pool->num_threads();
    chunk_pairs_.resize(static_cast<size_t>(chunks));
    auto body = [&](long c0, long c1) {
      for (long c = c0; c < c1; ++c) {
        auto& out = chunk_pairs_[static_cast<size_t>(c)];
        out.clear();
        sweep(boxes, margin, accept, static_cast<int>(c * n / chunks), static_cast<int>((c + 1) * n / chunks), out);
      }
    };
    pool->parallel_for(chunks, 1, body);
    for (const auto& part : chunk_pairs_) pairs.insert(pairs.end(), part.begin(), part.end());
  }
  fixed_ = nullptr;
  std::sort(pairs.begin(), pairs.end());
}

}  // namespace diffcol::scene
