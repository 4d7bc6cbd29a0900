#pragma once
// rows_span: whether the rows of an m×K matrix (K = 2 or 3, m small) span R^K, by a greedy
// pivoted choice of K rows: the longest row, then the one with the largest cross product with it,
// then (K = 3) the one with the largest triple product with both. The result is the volume
// spanned by the chosen rows, exactly 0 when rank < K; the callers compare it with a tolerance
// (for unit rows it is |det| of a K×K minor, ≤ 1). Used by the unboundedness checks of
// half-space shapes at construction; replaces an SVD (same decision, far less to compile).
// Internal to src/.
#include <cmath>

#include <Eigen/Core>

namespace diffcol::detail {

template <int K>
double rows_span_volume(const Eigen::Matrix<double, Eigen::Dynamic, K>& N) {
  static_assert(K == 2 || K == 3, "rows_span_volume: K must be 2 or 3");
  const int m = static_cast<int>(N.rows());
  if (m < K) return 0.0;
  int i0 = 0;
  for (int i = 1; i < m; ++i)
    if (N.row(i).squaredNorm() > N.row(i0).squaredNorm()) i0 = i;
  if constexpr (K == 2) {
    double best = 0.0;
    for (int j = 0; j < m; ++j) best = std::max(best, std::abs(N(i0, 0) * N(j, 1) - N(i0, 1) * N(j, 0)));
    return best;
  } else {
    const Eigen::Vector3d a = N.row(i0).transpose();
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    for (int j = 0; j < m; ++j) {
      const Eigen::Vector3d cj = a.cross(N.row(j).transpose());
      if (cj.squaredNorm() > c.squaredNorm()) c = cj;
    }
    double best = 0.0;
    for (int k = 0; k < m; ++k) best = std::max(best, std::abs(c.dot(N.row(k).transpose())));
    return best;
  }
}

}  // namespace diffcol::detail
