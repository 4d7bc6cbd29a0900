// Sweep and prune: the sort of the boxes along x (scene/broad_phase.hpp).
#include "diffcol/scene/broad_phase.hpp"

#include <numeric>

namespace diffcol::scene {

void SweepAndPrune::link_unfixed(const std::vector<char>& fixed) {
  const size_t n = order_.size();
  next_unfixed_.resize(n + 1);
  next_unfixed_[n] = static_cast<int>(n);
  for (size_t a = n; a-- > 0;)
    next_unfixed_[a] = fixed[static_cast<size_t>(order_[a])] ? next_unfixed_[a + 1] : static_cast<int>(a);
}

void SweepAndPrune::sort_order(const std::vector<Aabb>& boxes) {
  const auto key = [&](int i) { return boxes[static_cast<size_t>(i)].lower.x(); };
  if (order_.size() != boxes.size()) {
    order_.resize(boxes.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::sort(order_.begin(), order_.end(), [&](int a, int b) { return key(a) < key(b); });
    return;
  }
  // insertion sort from the previous order: linear when little moved; a full sort past n log n
  // exchanges' worth of work
  const size_t n = order_.size();
  size_t moves = 0, budget = 8 * n + 64;
  for (size_t a = 1; a < n; ++a) {
    const int v = order_[a];
    const double k = key(v);
    size_t b = a;
    while (b > 0 && key(order_[b - 1]) > k) {
      order_[b] = order_[b - 1];
      --b;
      if (++moves > budget) break;
    }
    order_[b] = v;
    if (moves > budget) {
      std::sort(order_.begin(), order_.end(), [&](int x, int y) { return key(x) < key(y); });
      return;
    }
  }
}

}  // namespace diffcol::scene
