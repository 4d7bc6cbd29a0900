// Tests of the point tree (include/diffcol/ssdf/point_tree.hpp) against brute force: nearest
// squared distance, lowest projection, the leaves visited by the culling queries (a superset of
// the points within the bound, and a small one for a local query), and the tree order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/point_tree.hpp"

#include "ssdf_test_util.hpp"
#include "test_util.hpp"
// white-box: the flat leaf scans of the ground contact (src/ssdf/vector_kernels.hpp)
#include "../src/ssdf/vector_kernels.hpp"

namespace {

using diffcol::Vec3;
using diffcol::ssdf::OrientedPointCloud;
using diffcol::ssdf::PointTree;
using diffcol::test::aopc_of;
using diffcol::test::random_in_cube;

/// n random points: clustered blobs, a flat sheet and exact duplicates (degenerate splits).
OrientedPointCloud random_cloud(std::mt19937& rng, int n) {
  std::vector<Vec3> p, nn;
  for (int i = 0; i < n; ++i) {
    Vec3 x;
    switch (i % 4) {
      case 0: x = Vec3(0.3, 0.0, 0.0) + random_in_cube(rng, 0.02); break;
      case 1: x = random_in_cube(rng, 0.5); break;
      case 2: x = Vec3(random_in_cube(rng, 0.4).x(), random_in_cube(rng, 0.4).y(), -0.1); break;  // sheet
      default: x = p.empty() ? Vec3::Zero() : p[p.size() / 2]; break;                   // duplicate
    }
    p.push_back(x);
    nn.push_back(random_in_cube(rng, 1.0) + Vec3(0.0, 0.0, 2.0));
  }
  return OrientedPointCloud(std::move(p), std::move(nn));
}

TEST(PointTree, TreeOrderIsAPermutationOfTheCloud) {
  std::mt19937 rng(1);
  for (int n : {1, 5, 8, 9, 100, 777}) {
    const OrientedPointCloud c = random_cloud(rng, n);
    const PointTree t(c, 8);
    ASSERT_EQ(t.size(), n);
    std::vector<int> seen(static_cast<size_t>(n), 0);
    for (int k = 0; k < n; ++k) {
      const int i = t.original_index(k);
      ASSERT_GE(i, 0);
      ASSERT_LT(i, n);
      ++seen[static_cast<size_t>(i)];
      EXPECT_EQ(t.point(k), c.points()[static_cast<size_t>(i)]);
      EXPECT_EQ(t.normal(k), c.normals()[static_cast<size_t>(i)]);
    }
    for (int s : seen) EXPECT_EQ(s, 1);
  }
}

TEST(PointTree, QueriesMatchBruteForce) {
  std::mt19937 rng(2);
  for (int n : {1, 7, 8, 9, 64, 1000}) {
    for (int leaf : {1, 4, 8, 32}) {
      const OrientedPointCloud c = random_cloud(rng, n);
      const PointTree t(c, leaf);
      for (int trial = 0; trial < 40; ++trial) {
        const Vec3 q = random_in_cube(rng, 0.8);
        Vec3 u = random_in_cube(rng, 1.0);
        if (trial % 5 == 0) u = Vec3::UnitZ();  // axis-aligned: ties across a whole sheet
        double d2 = std::numeric_limits<double>::infinity(), low = d2;
        for (const Vec3& p : c.points()) {
          d2 = std::min(d2, (p - q).squaredNorm());
          low = std::min(low, u.dot(p));
        }
        EXPECT_EQ(t.min_squared_distance(q), d2) << "n " << n << " leaf " << leaf;
        EXPECT_EQ(t.min_projection(u), low) << "n " << n << " leaf " << leaf;

        // Every point within the bound lies in a visited leaf; leaves are disjoint.
        const double bound = d2 + 0.05 * (trial % 3);
        const double below = low + 0.05 * (trial % 3);
        std::vector<int> visited(static_cast<size_t>(n), 0), visited_below(static_cast<size_t>(n), 0);
        t.for_each_leaf_within(q, bound, [&](int b, int e) {
          for (int k = b; k < e; ++k) ++visited[static_cast<size_t>(t.original_index(k))];
        });
        t.for_each_leaf_below(u, below, [&](int b, int e) {
          for (int k = b; k < e; ++k) ++visited_below[static_cast<size_t>(t.original_index(k))];
        });
        for (int i = 0; i < n; ++i) {
          const Vec3& p = c.points()[static_cast<size_t>(i)];
          EXPECT_LE(visited[static_cast<size_t>(i)], 1);
          EXPECT_LE(visited_below[static_cast<size_t>(i)], 1);
          if ((p - q).squaredNorm() <= bound) {
            EXPECT_EQ(visited[static_cast<size_t>(i)], 1) << "point " << i;
          }
          if (u.dot(p) <= below) {
            EXPECT_EQ(visited_below[static_cast<size_t>(i)], 1) << "point " << i;
          }
        }
      }
    }
  }
}

// The leaves in tree order: consecutive ranges covering the cloud, at most leaf_size points each,
// boxes that hold their points; the leaves the descent visits are exactly those whose box's
// least projection is within the bound (what the flat scan of the ground contact selects).
TEST(PointTree, LeavesAreConsecutiveAndBoundTheirPoints) {
  std::mt19937 rng(4);
  for (int n : {1, 7, 8, 9, 64, 1000}) {
    for (int leaf : {1, 4, 8, 32}) {
      const OrientedPointCloud c = random_cloud(rng, n);
      const PointTree t(c, leaf);
      const int L = t.num_leaves();
      ASSERT_GE(L, 1);
      EXPECT_EQ(t.leaf_start(0), 0);
      EXPECT_EQ(t.leaf_start(L), n);
      for (int j = 0; j < L; ++j) {
        const int b = t.leaf_start(j), e = t.leaf_start(j + 1);
        EXPECT_GT(e, b) << "leaf " << j;
        EXPECT_LE(e - b, leaf) << "leaf " << j;
        for (int k = b; k < e; ++k)
          for (int a = 0; a < 3; ++a) {
            EXPECT_LE(t.leaf_lo(a)[j], t.point(k)[a]);
            EXPECT_GE(t.leaf_hi(a)[j], t.point(k)[a]);
          }
      }
      const Vec3 u = random_in_cube(rng, 1.0);
      const double bound = t.min_projection(u) + 0.1;
      std::vector<int> expected;
      for (int j = 0; j < L; ++j) {
        double least = 0.0;
        for (int a = 0; a < 3; ++a) least += std::min(u[a] * t.leaf_lo(a)[j], u[a] * t.leaf_hi(a)[j]);
        if (least <= bound) expected.push_back(t.leaf_start(j));
      }
      std::vector<int> got;
      t.for_each_leaf_below(u, bound, [&](int b, int) { got.push_back(b); });
      EXPECT_EQ(got, expected) << "n " << n << " leaf " << leaf;
    }
  }
}

// The flat scans (box_min_projections, min_projection; box_distance_bounds, min_squared_distance,
// max_far_logit; bits_at_most, first_below) at every kernel width against plain loops, for counts that are not multiples of the vector width.
TEST(PointTree, FlatScanKernelsMatchPlainLoops) {
  namespace detail = diffcol::ssdf::detail;
  if (!detail::vector_kernels_available()) GTEST_SKIP() << "no AVX2/FMA on this machine";
  std::vector<int> widths = {4};
  if (detail::vector_kernel_widest() == 8) widths.push_back(8);
  std::mt19937 rng(5);
  for (int w : widths) {
    detail::set_vector_kernel_width(w);
    ASSERT_EQ(detail::vector_kernel_width(), w);
    for (int n : {1, 3, 8, 13, 64, 1000}) {
      for (int leaf : {1, 8}) {
        const OrientedPointCloud c = random_cloud(rng, n);
        const PointTree t(c, leaf);
        const int L = t.num_leaves();
        const Vec3 u = random_in_cube(rng, 1.0);
        const double* lo[3] = {t.leaf_lo(0), t.leaf_lo(1), t.leaf_lo(2)};
        const double* hi[3] = {t.leaf_hi(0), t.leaf_hi(1), t.leaf_hi(2)};
        std::vector<double> lower(static_cast<size_t>(L) + 1, -7.0);  // one guard entry past the end
        const double upper = detail::box_min_projections(lo, hi, L, u, lower.data());
        double upper_ref = std::numeric_limits<double>::infinity();
        for (int j = 0; j < L; ++j) {
          double least = 0.0, largest = 0.0;
          for (int a = 0; a < 3; ++a) {
            least += std::min(u[a] * lo[a][j], u[a] * hi[a][j]);
            largest += std::max(u[a] * lo[a][j], u[a] * hi[a][j]);
          }
          EXPECT_NEAR(lower[static_cast<size_t>(j)], least, 1e-15) << "width " << w << " n " << n;
          upper_ref = std::min(upper_ref, largest);
        }
        EXPECT_EQ(lower[static_cast<size_t>(L)], -7.0) << "the scan wrote past its count";
        EXPECT_NEAR(upper, upper_ref, 1e-15);
        EXPECT_GE(upper, t.min_projection(u) - 1e-15);  // an upper bound of the lowest point
        for (int b : {0, n / 3}) {
          double ref = std::numeric_limits<double>::infinity();
          for (int k = b; k < n; ++k) ref = std::min(ref, u.dot(t.point(k)));
          EXPECT_NEAR(detail::min_projection(t.xs(), t.ys(), t.zs(), b, n, u), ref, 1e-15)
              << "width " << w << " n " << n << " from " << b;
        }
        EXPECT_EQ(detail::min_projection(t.xs(), t.ys(), t.zs(), n, n, u), std::numeric_limits<double>::infinity());
        // the bit mask of lower ≤ bound (NaN: 0), with ⌈L/64⌉ words and a guard word
        {
          std::vector<double> x(lower.begin(), lower.begin() + L);
          if (L > 2) x[static_cast<size_t>(L / 2)] = std::numeric_limits<double>::quiet_NaN();
          const double bound = x[0] + 0.1;
          std::vector<std::uint64_t> bits(static_cast<size_t>((L + 63) / 64) + 1, 0xabcdULL);
          detail::bits_at_most(x.data(), L, bound, bits.data());
          for (int j = 0; j < (L + 63) / 64 * 64; ++j) {
            const bool set = (bits[static_cast<size_t>(j / 64)] >> (j % 64)) & 1u;
            EXPECT_EQ(set, j < L && x[static_cast<size_t>(j)] <= bound) << "width " << w << " L " << L << " bit " << j;
          }
          EXPECT_EQ(bits.back(), 0xabcdULL) << "the mask wrote past its words";
          // first_below: the next entry strictly below a bound (NaN and ties never), from every start
          const double strict = x[static_cast<size_t>(L - 1)];
          for (int b = 0; b <= L; ++b) {
            int ref = b;
            while (ref < L && !(x[static_cast<size_t>(ref)] < strict)) ++ref;
            EXPECT_EQ(detail::first_below(x.data(), b, L, strict), ref) << "width " << w << " L " << L << " from " << b;
          }
        }
        // squared distances: queries inside the cloud's box and outside it
        for (double spread : {0.3, 3.0}) {
          const Vec3 q = random_in_cube(rng, spread);
          std::fill(lower.begin(), lower.end(), -7.0);
          const double dupper = detail::box_distance_bounds(lo, hi, L, q, lower.data());
          double dupper_ref = std::numeric_limits<double>::infinity();
          for (int j = 0; j < L; ++j) {
            double least = 0.0, largest = 0.0;
            for (int a = 0; a < 3; ++a) {
              const double near = std::clamp(q[a], lo[a][j], hi[a][j]) - q[a];
              const double far = std::max(std::abs(q[a] - lo[a][j]), std::abs(q[a] - hi[a][j]));
              least += near * near;
              largest += far * far;
            }
            EXPECT_NEAR(lower[static_cast<size_t>(j)], least, 1e-15 * (1.0 + least)) << "width " << w << " n " << n;
            dupper_ref = std::min(dupper_ref, largest);
          }
          EXPECT_EQ(lower[static_cast<size_t>(L)], -7.0) << "the scan wrote past its count";
          EXPECT_NEAR(dupper, dupper_ref, 1e-15 * (1.0 + dupper_ref));
          EXPECT_GE(dupper, t.min_squared_distance(q) * (1.0 - 1e-15));  // an upper bound of the nearest point
          for (int b : {0, n / 3}) {
            double ref = std::numeric_limits<double>::infinity();
            for (int k = b; k < n; ++k) ref = std::min(ref, (q - t.point(k)).squaredNorm());
            EXPECT_NEAR(detail::min_squared_distance(t.xs(), t.ys(), t.zs(), b, n, q), ref, 1e-15 * (1.0 + ref))
                << "width " << w << " n " << n << " from " << b;
          }
          EXPECT_EQ(detail::min_squared_distance(t.xs(), t.ys(), t.zs(), n, n, q),
                    std::numeric_limits<double>::infinity());
          // the largest far logit 2 qcᵀ(p − c) − ‖p − c‖² (far queries), here with c = q / 3
          const Vec3 c = q / 3.0, qc = q - c;
          double lmax = -std::numeric_limits<double>::infinity();
          for (int k = 0; k < n; ++k) lmax = std::max(lmax, (2.0 * qc - (t.point(k) - c)).dot(t.point(k) - c));
          EXPECT_NEAR(detail::max_far_logit(t.xs(), t.ys(), t.zs(), n, c, qc), lmax, 1e-14 * (1.0 + std::abs(lmax)))
              << "width " << w << " n " << n;
        }
      }
    }
  }
  detail::set_vector_kernel_width(0);
}

// The kernels' exp (inline with AVX-512, libmvec's with AVX2) against std::exp: ≤ 4 ulp where the
// result is normal, within one subnormal step below, 0 and +inf beyond double's range, NaN for NaN.
TEST(VectorKernels, ExpMatchesStdExp) {
  namespace detail = diffcol::ssdf::detail;
  if (!detail::vector_kernels_available()) GTEST_SKIP() << "no AVX2/FMA on this machine";
  std::vector<int> widths = {4};
  if (detail::vector_kernel_widest() == 8) widths.push_back(8);
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> U(-760.0, 720.0), S(-2.0, 2.0);
  std::vector<double> x;
  for (int i = 0; i < 20000; ++i) x.push_back(i % 2 ? U(rng) : S(rng));
  for (double v : {0.0, -0.0, 1e-300, -1e-300, 0.5 * std::log(2.0), -0.5 * std::log(2.0), std::log(2.0) / 32,
                   709.78, 709.79, 710.0, -708.4, -708.5, -744.0, -745.1, -745.2, -746.0, -1e4, 1e4, 1e300,
                   -1e300, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})
    x.push_back(v);
  while (x.size() % 8 != 0) x.push_back(1.0);
  for (int w : widths) {
    detail::set_vector_kernel_width(w);
    std::vector<double> y(x.size());
    detail::vector_exp(x.data(), y.data(), static_cast<int>(x.size()));
    double worst_ulp = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double ref = std::exp(x[i]);
      if (ref == 0.0 || std::isinf(ref)) {
        EXPECT_EQ(y[i], ref) << "width " << w << " x " << x[i];
      } else if (ref < std::numeric_limits<double>::min()) {
        EXPECT_LE(std::abs(y[i] - ref), std::numeric_limits<double>::denorm_min()) << "width " << w << " x " << x[i];
      } else {
        const double ulp = std::abs(y[i] - ref) / (std::nextafter(ref, 2.0 * ref + 1.0) - ref);
        worst_ulp = std::max(worst_ulp, ulp);
        EXPECT_LE(ulp, 4.0) << "width " << w << " x " << x[i];
      }
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> xn(8, nan), yn(8, 0.0);
    detail::vector_exp(xn.data(), yn.data(), 8);
    for (double v : yn) EXPECT_TRUE(std::isnan(v)) << "width " << w;
    std::printf("width %d: worst error %.2f ulp over %zu arguments\n", w, worst_ulp, x.size());
  }
  detail::set_vector_kernel_width(0);
}

// The kernels' log1p of the softplus (log1p_unit_or_inverse: 2 atanh of a ratio, a degree-6 fit in s²)
// against a long double reference: log(1 + E) for E ∈ [0, 1] and log(1 + 1/E) for E ∈ [1, 1e300],
// both sides of the split at √2 − 1 (and √2 + 1), in vectors of mixed signs and of one sign, within
// 3 ulp of the correctly rounded value.
TEST(VectorKernels, Log1pMatchesLongDouble) {
  namespace detail = diffcol::ssdf::detail;
  if (!detail::vector_kernels_available()) GTEST_SKIP() << "no AVX2/FMA on this machine";
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const int n = 4096;
  std::vector<double> E(n), phi(n), y(n);
  for (int i = 0; i < n; ++i) {
    const bool inverse = i < n / 2 ? i % 2 == 1 : (i / 8) % 2 == 1;  // mixed vectors, then one sign per vector
    const double e = i % 8 < 2 ? 0.41421356237309503 * (1.0 + 1e-6 * (U(rng) - 0.5))  // near the split
                               : (i % 8 < 4 ? std::pow(U(rng), 8.0) : U(rng));        // tiny and moderate
    E[static_cast<size_t>(i)] = inverse ? 1.0 / std::max(e, 1e-300) : e;
    phi[static_cast<size_t>(i)] = inverse ? -1.0 : 1.0;
  }
  E[0] = 0.0;
  E[1] = 1.0;
  for (int w : {4, 8}) {
    if (w == 8 && detail::vector_kernel_widest() != 8) continue;
    detail::set_vector_kernel_width(w);
    detail::vector_log1p(E.data(), phi.data(), y.data(), n);
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i);
      const long double arg = phi[k] < 0.0 ? 1.0L / E[k] : static_cast<long double>(E[k]);
      const long double ref = std::log1p(arg);
      const double ulp = std::nextafter(static_cast<double>(ref), INFINITY) - static_cast<double>(ref);
      const double err = ref == 0.0L ? std::abs(y[k]) : static_cast<double>(std::abs(y[k] - ref)) / ulp;
      worst = std::max(worst, err);
      EXPECT_LE(err, 3.0) << "width " << w << " E " << E[k] << " phi " << phi[k];
    }
    std::printf("kernel log1p (width %d): worst %.2f ulp\n", w, worst);
  }
  detail::set_vector_kernel_width(0);
}

TEST(PointTree, LocalQueriesVisitFewPoints) {
  // A 4000-point AOPC of the 25 × 20 cm T; a query 2 cm off the tip of the stem with the reach of
  // the pushing example (ε1 = 1e-5 m², G = −log 1e-12): only the points near the tip are visited.
  const OrientedPointCloud c = aopc_of(diffcol::mesh::make_t_shape(), 4000);
  const PointTree t(c);
  double ymin = 1e9;
  for (const Vec3& p : c.points()) ymin = std::min(ymin, p.y());
  const Vec3 q(0.0, ymin - 0.02, 0.0);
  const double d2 = t.min_squared_distance(q);
  const double reach = d2 + -std::log(1e-12) * 1e-5;
  int visited = 0, inside = 0;
  t.for_each_leaf_within(q, reach, [&](int b, int e) { visited += e - b; });
  for (const Vec3& p : c.points()) inside += (p - q).squaredNorm() <= reach;
  EXPECT_GE(visited, inside);
  EXPECT_LT(visited, c.size() / 10) << "the tree should prune most of the cloud";
  EXPECT_GT(inside, 0);
}

TEST(PointTree, RejectsInvalidLeafSize) {
  std::mt19937 rng(3);
  const OrientedPointCloud c = random_cloud(rng, 10);
  EXPECT_THROW(PointTree(c, 0), std::invalid_argument);
}

}  // namespace
