// Sweep and prune: the sweep axis, the sort of the boxes along it (scene/broad_phase.hpp).
#include "diffcol/scene/broad_phase.hpp"

#include <algorithm>
#include <limits>

namespace diffcol::scene {

void SweepAndPrune::choose_axis(const std::vector<Aabb>& boxes) {
  if (boxes.size() < 2) return;
  // spread of the box centres (their variance along each axis, times n)
  Vec3 sum = Vec3::Zero(), sum_sq = Vec3::Zero();
  for (const Aabb& b : boxes) {
    const Vec3 c = 0.5 * (b.lower + b.upper);
    sum += c;
    sum_sq += c.cwiseProduct(c);
  }
  const double n = static_cast<double>(boxes.size());
  const Vec3 spread = sum_sq - sum.cwiseProduct(sum) / n;
  int best = 0;
  spread.maxCoeff(&best);
  // hysteresis: a new axis means a full sort
  if (best != axis_ && spread[best] > 1.5 * spread[axis_]) {
    axis_ = best;
    order_.clear();
  }
}

void SweepAndPrune::sort_order(const std::vector<Aabb>& boxes) {
  const int axis = axis_;
  const auto by_key = [](const Keyed& x, const Keyed& y) { return x.key < y.key; };
  const size_t n = boxes.size();
  if (order_.size() != n) {
    order_.resize(n);
    for (size_t i = 0; i < n; ++i) order_[i] = Keyed{boxes[i].lower[axis], static_cast<int>(i)};
    std::sort(order_.begin(), order_.end(), by_key);
    return;
  }
  for (Keyed& e : order_) e.key = boxes[static_cast<size_t>(e.id)].lower[axis];
  // insertion sort from the previous order: linear when little moved; a full sort past n log n
  // exchanges' worth of work
  // (a move is a contiguous copy, far cheaper than a comparison of std::sort's: the budget is a
  // few times n log2 n)
  size_t moves = 0, log2n = 1;
  while ((size_t{1} << log2n) < n) ++log2n;
  const size_t budget = 3 * n * log2n + 64;
  for (size_t a = 1; a < n; ++a) {
    const Keyed v = order_[a];
    size_t b = a;
    while (b > 0 && order_[b - 1].key > v.key) {
      order_[b] = order_[b - 1];
      --b;
      if (++moves > budget) break;
    }
    order_[b] = v;
    if (moves > budget) {
      std::sort(order_.begin(), order_.end(), by_key);
      return;
    }
  }
}

void SweepAndPrune::copy_sorted(const std::vector<Aabb>& boxes, double margin, const std::vector<char>* fixed) {
  const size_t n = order_.size();
  const int s = axis_, u = (axis_ + 1) % 3, v = (axis_ + 2) % 3;
  sorted_.resize(n);
  for (std::vector<float>* f : {&f_s_lo_, &f_s_hi_m_, &f_u_lo_, &f_u_hi_m_, &f_v_lo_, &f_v_hi_m_})
    f->assign(n + kPad, std::numeric_limits<float>::quiet_NaN());
  for (size_t a = 0; a < n; ++a) {
    const Aabb& b = boxes[static_cast<size_t>(order_[a].id)];
    const SweptBox w{b.lower[s], b.upper[s], b.lower[u], b.upper[u], b.lower[v], b.upper[v]};
    sorted_[a] = w;
    f_s_lo_[a] = to_float(w.s_lo);
    f_s_hi_m_[a] = to_float(w.s_hi + margin);
    f_u_lo_[a] = to_float(w.u_lo);
    f_u_hi_m_[a] = to_float(w.u_hi + margin);
    f_v_lo_[a] = to_float(w.v_lo);
    f_v_hi_m_[a] = to_float(w.v_hi + margin);
  }
  any_fixed_ = false;
  if (!fixed) return;
  sorted_fixed_.resize(n);
  next_unfixed_.resize(n + 1);
  next_unfixed_[n] = static_cast<int>(n);
  for (size_t a = n; a-- > 0;) {
    const char f = (*fixed)[static_cast<size_t>(order_[a].id)];
    sorted_fixed_[a] = f;
    any_fixed_ = any_fixed_ || f;
    next_unfixed_[a] = f ? next_unfixed_[a + 1] : static_cast<int>(a);
  }
}

void SweepAndPrune::sort_pairs(std::vector<std::pair<int, int>>& pairs, int n) {
  if (pairs.size() < 2) return;
  pair_start_.assign(static_cast<size_t>(n) + 1, 0);
  for (const auto& [i, j] : pairs) ++pair_start_[static_cast<size_t>(i) + 1];
  for (size_t i = 1; i < pair_start_.size(); ++i) pair_start_[i] += pair_start_[i - 1];
  pair_scratch_.resize(pairs.size());
  for (const auto& p : pairs) pair_scratch_[static_cast<size_t>(pair_start_[static_cast<size_t>(p.first)]++)] = p;
  // pair_start_[i] is now the end of i's run; each run is short: insertion sort on j
  size_t begin = 0;
  for (int i = 0; i < n; ++i) {
    const auto end = static_cast<size_t>(pair_start_[static_cast<size_t>(i)]);
    for (size_t a = begin + 1; a < end; ++a) {
      const auto v = pair_scratch_[a];
      size_t b = a;
      for (; b > begin && pair_scratch_[b - 1].second > v.second; --b) pair_scratch_[b] = pair_scratch_[b - 1];
      pair_scratch_[b] = v;
    }
    begin = end;
  }
  pairs.swap(pair_scratch_);
}

}  // namespace diffcol::scene
