// The face window's selection of the faces of least slack (src/dcol/face_window.hpp) against a
// full sort: random slacks with ties, faces already picked (+∞) and NaN, 65 to 4096 faces.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "../src/dcol/face_window.hpp"

namespace {

using diffcol::dcol::kInlinePolytopeFaces;
using diffcol::dcol::kMaxPolytopeFaces;
using diffcol::dcol::detail::least_slacks_below_threshold;

TEST(DcolFaceWindow, LeastSlacksEqualAFullSort) {
  std::mt19937 rng(6101);
  const double inf = std::numeric_limits<double>::infinity();
  int taken = 0, runs = 0;
  for (int m : {65, 100, 300, 500, 1000, 1999, 4096}) {
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<double> slack(static_cast<size_t>(m));
      std::uniform_real_distribution<double> U(-0.2, 2.0);
      const int kind = trial % 4;
      for (double& s : slack) {
        s = U(rng);
        if (kind == 1) s = std::round(s * 20.0) / 20.0;  // many exact ties
        if (kind == 2) s = std::round(s * 2.0) / 2.0;    // few distinct values
      }
      if (kind == 3)  // a smooth field over the faces, as the slacks of a hull's faces are
        for (int i = 0; i < m; ++i) slack[static_cast<size_t>(i)] = 1.0 + std::sin(0.01 * i + trial);
      const int picked = static_cast<int>(rng() % 8);
      for (int j = 0; j < picked; ++j) slack[rng() % static_cast<unsigned>(m)] = inf;
      if (trial % 5 == 0) slack[rng() % static_cast<unsigned>(m)] = std::numeric_limits<double>::quiet_NaN();
      if (trial % 7 == 0) slack[0] = std::numeric_limits<double>::quiet_NaN();  // a sampled face
      const int want = kInlinePolytopeFaces - picked;
      int face[kInlinePolytopeFaces];
      double key[kInlinePolytopeFaces];
      ++runs;
      if (!least_slacks_below_threshold(slack.data(), m, want, face, key)) continue;
      ++taken;
      // the reference: every finite face ordered by (slack, index)
      std::vector<int> order;
      for (int i = 0; i < m; ++i)
        if (std::isfinite(slack[static_cast<size_t>(i)])) order.push_back(i);
      std::sort(order.begin(), order.end(), [&](int a, int b) {
        const double sa = slack[static_cast<size_t>(a)], sb = slack[static_cast<size_t>(b)];
        return sa < sb || (sa == sb && a < b);
      });
      std::vector<int> got(face, face + want), expected(order.begin(), order.begin() + want);
      std::sort(got.begin(), got.end());
      std::sort(expected.begin(), expected.end());
      ASSERT_EQ(got, expected) << "m " << m << " trial " << trial;
      for (int j = 0; j < want; ++j) ASSERT_EQ(key[j], slack[static_cast<size_t>(face[j])]);
    }
  }
  // the threshold route serves most windows of large hulls (the rest fall back to the full pass)
  EXPECT_GT(taken, runs / 2) << taken << " of " << runs;
  static_assert(kMaxPolytopeFaces >= 4096);
}

}  // namespace
