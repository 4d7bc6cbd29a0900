#pragma once
/// @file broad_phase.hpp
/// Axis-aligned bounding boxes and a sweep-and-prune broad phase.
///
/// find_pairs returns every pair (i, j), i < j, whose boxes, each grown by margin/2 on every
/// side, overlap: a superset of the pairs whose shapes are closer than `margin` (the distance of
/// two shapes is at least the largest per-axis gap of their boxes). Boxes are sorted by their
/// lower corner along the sweep axis (the axis along which the box centres spread most, kept
/// until another spreads 1.5× as much) and swept over a sorted copy, so the inner loop reads
/// memory in order, four boxes at a time through a single-precision copy whose comparisons
/// pass every pair the exact (double) test passes; the exact test then decides. The order of the previous call is kept and repaired by insertion sort, so a
/// scene whose bodies move a little between calls sorts in about linear time. The result is
/// sorted by (i, j). After the first call with a given number of boxes it allocates nothing
/// unless the number of pairs grows.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
  /// With a pool of more than one thread and at least kParallelBoxes boxes the sweep is split
  /// over its threads (accept must then be safe to call concurrently); the result is the same.
  /// Below that the hand-off costs more than it saves (1000 boxes: 91 µs on one thread, 115 µs
  /// split over two, docs/notes/scene.md). `fixed` (one flag per box, or null):
  /// pairs of two flagged boxes are never tested nor returned (static bodies' shapes: a flagged
  /// box's sweep visits only the unflagged boxes after it).
  template <class Accept>
  void find_pairs(const std::vector<Aabb>& boxes, double margin, Accept&& accept,
                  std::vector<std::pair<int, int>>& pairs, batch::ThreadPool* pool = nullptr,
                  const std::vector<char>* fixed = nullptr);

  static constexpr int kParallelBoxes = 8192;

  /// The sweep axis of the last call (0, 1, 2 for x, y, z).
  int axis() const { return axis_; }

 private:
  // a box in sweep coordinates: s along the sweep axis, u and v the other two
  struct SweptBox {
    double s_lo, s_hi, u_lo, u_hi, v_lo, v_hi;
  };
  void choose_axis(const std::vector<Aabb>& boxes);
  void sort_order(const std::vector<Aabb>& boxes);
  void copy_sorted(const std::vector<Aabb>& boxes, double margin, const std::vector<char>* fixed);
  // sorts pairs (i < j < n) by (i, j): a counting sort on i, then j within each i
  void sort_pairs(std::vector<std::pair<int, int>>& pairs, int n);
  std::vector<int> pair_start_;
  std::vector<std::pair<int, int>> pair_scratch_;
  // the pairs of the boxes at sorted positions [begin, end) with any later box
  template <class Accept>
  void sweep(double margin, Accept& accept, int begin, int end, std::vector<std::pair<int, int>>& out) const;
  struct Keyed {
    double key;  // the lower corner along axis_
    int id;
  };
  int axis_ = 0;
  std::vector<Keyed> order_;       // box ids by lower corner along axis_
  std::vector<SweptBox> sorted_;   // the boxes in that order
  std::vector<char> sorted_fixed_;
  std::vector<int> next_unfixed_;  // per sorted position: the first position ≥ it of an unflagged box (n: none)
  bool any_fixed_ = false;
  // The sorted boxes in single precision, as a filter tested four at a time: each entry is the
  // double value (the upper corners with the margin added, as the exact test adds it) rounded
  // to nearest. Rounding is monotone, so every comparison the exact test passes, the filter
  // passes too. kPad NaN entries at the end (no comparison holds) stop the sweep.
  static constexpr int kPad = 4;
  std::vector<float> f_s_lo_, f_s_hi_m_, f_u_lo_, f_u_hi_m_, f_v_lo_, f_v_hi_m_;
  static float to_float(double x) {
    return static_cast<float>(std::clamp(x, -static_cast<double>(FLT_MAX), static_cast<double>(FLT_MAX)));
  }
  std::vector<std::vector<std::pair<int, int>>> chunk_pairs_;
};

template <class Accept>
void SweepAndPrune::sweep(double margin, Accept& accept, int begin, int end,
                          std::vector<std::pair<int, int>>& out) const {
  const int n = static_cast<int>(order_.size());
  const SweptBox* box = sorted_.data();
  const auto report = [&](int a, int b) {
    const int i = order_[static_cast<size_t>(a)].id, j = order_[static_cast<size_t>(b)].id;
    const int lo = std::min(i, j), hi = std::max(i, j);
    if (accept(lo, hi)) out.emplace_back(lo, hi);
  };
  for (int a = begin; a < end; ++a) {
    const SweptBox bi = box[a];
    // sorted by s_lo: a later box overlaps i along s iff its s_lo is within reach (its s_hi ≥
    // its s_lo ≥ i's s_lo already)
    const double reach = bi.s_hi + margin;
    const double u_hi = bi.u_hi + margin, v_hi = bi.v_hi + margin;
    // the same comparisons as Aabb::overlaps (bit for bit)
    const auto overlap = [&](const SweptBox& bj) {
      return (bj.u_lo <= u_hi) & (bi.u_lo <= bj.u_hi + margin) & (bj.v_lo <= v_hi) & (bi.v_lo <= bj.v_hi + margin);
    };
    if (any_fixed_ && sorted_fixed_[static_cast<size_t>(a)]) {
      for (int b = next_unfixed_[static_cast<size_t>(a) + 1]; b < n; b = next_unfixed_[static_cast<size_t>(b) + 1]) {
        if (box[b].s_lo > reach) break;
        if (overlap(box[b])) report(a, b);
      }
      continue;
    }
#if defined(__SSE2__)
    const size_t ua = static_cast<size_t>(a);
    const __m128 t_s = _mm_set1_ps(f_s_hi_m_[ua]);
    const __m128 t_u_hi = _mm_set1_ps(f_u_hi_m_[ua]), t_u_lo = _mm_set1_ps(f_u_lo_[ua]);
    const __m128 t_v_hi = _mm_set1_ps(f_v_hi_m_[ua]), t_v_lo = _mm_set1_ps(f_v_lo_[ua]);
    for (int b = a + 1;; b += 4) {
      const size_t ub = static_cast<size_t>(b);
      const __m128 in_s = _mm_cmple_ps(_mm_loadu_ps(&f_s_lo_[ub]), t_s);
      __m128 hit = _mm_and_ps(in_s, _mm_cmple_ps(_mm_loadu_ps(&f_u_lo_[ub]), t_u_hi));
      hit = _mm_and_ps(hit, _mm_cmpge_ps(_mm_loadu_ps(&f_u_hi_m_[ub]), t_u_lo));
      hit = _mm_and_ps(hit, _mm_cmple_ps(_mm_loadu_ps(&f_v_lo_[ub]), t_v_hi));
      hit = _mm_and_ps(hit, _mm_cmpge_ps(_mm_loadu_ps(&f_v_hi_m_[ub]), t_v_lo));
      for (unsigned m = static_cast<unsigned>(_mm_movemask_ps(hit)); m != 0; m &= m - 1) {
        const int c = b + __builtin_ctz(m);
        if (box[c].s_lo <= reach && overlap(box[c])) report(a, c);
      }
      if (_mm_movemask_ps(in_s) != 0xF) break;  // sorted: every later box is beyond reach too
    }
#else
    for (int b = a + 1; b < n; ++b) {
      if (box[b].s_lo > reach) break;
      if (overlap(box[b])) report(a, b);
    }
#endif
  }
}

template <class Accept>
void SweepAndPrune::find_pairs(const std::vector<Aabb>& boxes, double margin, Accept&& accept,
                               std::vector<std::pair<int, int>>& pairs, batch::ThreadPool* pool,
                               const std::vector<char>* fixed) {
  pairs.clear();
  choose_axis(boxes);
  sort_order(boxes);
  copy_sorted(boxes, margin, fixed && fixed->size() == boxes.size() ? fixed : nullptr);
  const int n = static_cast<int>(order_.size());
  if (!pool || pool->num_threads() < 2 || n < kParallelBoxes) {
    sweep(margin, accept, 0, n, pairs);
  } else {
    // chunks of sorted positions (the early ones scan no more than the late ones: equal sizes)
    const int chunks = 8 * pool->num_threads();
    chunk_pairs_.resize(static_cast<size_t>(chunks));
    auto body = [&](long c0, long c1) {
      for (long c = c0; c < c1; ++c) {
        auto& out = chunk_pairs_[static_cast<size_t>(c)];
        out.clear();
        sweep(margin, accept, static_cast<int>(c * n / chunks), static_cast<int>((c + 1) * n / chunks), out);
      }
    };
    pool->parallel_for(chunks, 1, body);
    for (const auto& part : chunk_pairs_) pairs.insert(pairs.end(), part.begin(), part.end());
  }
  sort_pairs(pairs, n);
}

}  // namespace diffcol::scene
