#pragma once
// The working set of a large polytope (Polytope::large, more than kInlinePolytopeFaces faces) in
// the cone program of a pair: the program holds at most kInlinePolytopeFaces of its faces as
// orthant rows. The optimum over a subset of the faces (a larger set) is the optimum over all of
// them when its point satisfies every face, so the solver picks the faces of least slack at its
// start point, solves, checks all m faces at the solution (O(m)) and, where one is violated, picks
// again there (docs/dcol.md, "Large polytopes"). The window always holds the polytope's bounding
// faces (LargePolytopeData::bounding_faces): the relaxed set stays bounded, so α̂ stays positive.
// Internal to src/dcol.
#include <algorithm>
#include <limits>

#include "cone_program.hpp"

namespace diffcol::dcol::detail {

/// The `want` faces of least slack[0..m) (ties: the lower index; NaN and +∞ never: the window's
/// faces already picked hold +∞) into face[0..want) with their slacks in key[0..want), by a
/// threshold: the k-th least slack of a strided sample of 128 faces, k chosen so that about
/// 2.5·want faces lie at or below it. One pass collects those faces; when there are at least
/// `want` of them they hold the `want` least of all faces, which a selection among these few
/// finds (in no particular order). False (nothing written) when fewer than `want` or more than
/// 256 faces fall below the threshold, or for fewer than a few hundred faces: the caller then
/// selects over all faces. (FaceWindow's single pass with a replace-the-largest window took about
/// 3 µs of a 1,000-face hull's 8 µs query, docs/notes/scene.md.)
inline bool least_slacks_below_threshold(const double* slack, int m, int want, int* face, double* key) {
  constexpr int kSample = 128, kBuffer = 256;
  if (want <= 0 || m <= 2 * kInlinePolytopeFaces) return false;
  const int n_sample = std::min(m, kSample), stride = m / n_sample;
  const int k = std::min(n_sample - 1, (5 * want * n_sample) / (2 * m) + 1);
  if (k > kInlinePolytopeFaces) return false;  // a few hundred faces: most would pass
  // the k + 1 least sampled slacks, ascending, by insertion (NaN never enters)
  double least[kInlinePolytopeFaces + 1];
  int nl = 0;
  for (int j = 0; j < n_sample; ++j) {
    const double v = slack[j * stride];
    if (v != v || (nl > k && !(v < least[k]))) continue;
    int q = nl <= k ? nl++ : k;
    for (; q > 0 && least[q - 1] > v; --q) least[q] = least[q - 1];
    least[q] = v;
  }
  if (nl <= k) return false;
  const double bar = least[k];
  if (!(bar < std::numeric_limits<double>::infinity())) return false;
  // the faces at or below bar, without branches (mispredicted ones cost more than the pass)
  int candidate[kBuffer], nc = 0, i = 0;
  for (; i + 8 <= m; i += 8) {
    if (nc > kBuffer - 8) return false;
    for (int q = 0; q < 8; ++q) {
      candidate[nc] = i + q;
      nc += slack[i + q] <= bar;
    }
  }
  for (; i < m; ++i) {
    if (nc == kBuffer) return false;
    candidate[nc] = i;
    nc += slack[i] <= bar;
  }
  if (nc < want) return false;
  struct Pick {
    double slack;
    int face;
  };
  Pick pick[kBuffer];
  for (int j = 0; j < nc; ++j) pick[j] = {slack[candidate[j]], candidate[j]};
  std::nth_element(pick, pick + (want - 1), pick + nc, [](const Pick& a, const Pick& b) {
    return a.slack < b.slack || (a.slack == b.slack && a.face < b.face);
  });
  for (int j = 0; j < want; ++j) {
    face[j] = pick[j].face;
    key[j] = pick[j].slack;
  }
  return true;
}

struct FaceWindow {
  const Polytope* poly = nullptr;  // null: the body is not a large polytope
  Mat3 Q;
  const RowWriter* w = nullptr;
  int row0 = 0;                    // its first orthant row
  int count = 0;                   // 0: not picked yet (rows zero)
  int face[kInlinePolytopeFaces];
  Vec3 target;                     // the other body's origin (select_towards)
  // faces that entered the window violated (negative slack) in an earlier round of this solve:
  // they stay while there is room (cuts kept, so the windows do not cycle)
  int sticky[kInlinePolytopeFaces];
  int sticky_count = 0;

  bool active() const { return poly != nullptr; }

  /// Row j of the window: face face[j], as write_orthant writes a face.
  void write() const {
    const LargePolytopeData& L = *poly->large;
    for (int j = 0; j < count; ++j) {
      const int i = face[j];
      w->row(row0 + j, -(Q * Vec3(L.A(i, 0), L.A(i, 1), L.A(i, 2))), L.b[i]);
    }
  }

  /// Shape-frame point ŷ = Qᵀ(p̂ − r̂) and α̂/ℓ_b of the unknowns x (p̂, α̂): face i's slack in the
  /// program is α̂/ℓ_b·b_i − a_iᵀŷ.
  void frame_point(const double* x, Vec3& y, double& ab) const {
    y = Q.transpose() * (Vec3(x[0], x[1], x[2]) - w->r_hat);
    ab = x[3] * w->inv_scale;
  }

  /// The bounding faces, then the faces of least slack at x (ties: the lower index). With k (the
  /// solution x of this window), the window's active faces (multiplier above slack) stay in it:
  /// only inactive faces make room for violated ones (otherwise the windows can cycle).
  void select(const double* x, const ConeKkt* k = nullptr) {
    Vec3 y;
    double ab;
    frame_point(x, y, ab);
    int keep[kInlinePolytopeFaces], nk = 0;
    if (k) {
      for (int j = 0; j < count; ++j)
        if (!poly->large->is_bounding[static_cast<size_t>(face[j])] && k->z[row0 + j] > k->s[row0 + j])
          keep[nk++] = face[j];
      for (int j = 0; j < count; ++j) {  // then the earlier rounds' cuts
        const int f = face[j];
        if (poly->large->is_bounding[static_cast<size_t>(f)] || k->z[row0 + j] > k->s[row0 + j]) continue;
        if (std::find(sticky, sticky + sticky_count, f) != sticky + sticky_count) keep[nk++] = f;
      }
    }
    select_at(y, ab, keep, nk);
  }

  /// select() for the point where the ray from the polytope's origin towards `target` (scaled
  /// coordinates) leaves the polytope at the scale that puts `target` on its boundary (the start
  /// before any iterate exists).
  void select_towards(const Vec3& target) {
    const LargePolytopeData& L = *poly->large;
    const Vec3 y = Q.transpose() * (target - w->r_hat);
    double gauge = 0.0;  // max_i a_iᵀy/b_i
    for (int i = 0; i < poly->num_faces; ++i)
      gauge = std::max(gauge, (L.A(i, 0) * y.x() + L.A(i, 1) * y.y() + L.A(i, 2) * y.z()) / L.b[i]);
    select_at(y, gauge, nullptr, 0);
  }

  /// min_i (α̂/ℓ_b·b_i − a_iᵀŷ) over all m faces at x (≥ 0: x satisfies every face).
  double min_slack(const double* x) const {
    const LargePolytopeData& L = *poly->large;
    Vec3 y;
    double ab;
    frame_point(x, y, ab);
    // (an Eigen expression: a vectorized minimum, no temporary)
    return (ab * L.b.array() - (L.A.col(0).array() * y.x() + L.A.col(1).array() * y.y() + L.A.col(2).array() * y.z()))
        .minCoeff();
  }

 private:
  void select_at(const Vec3& y, double ab, const int* keep, int nk) {
    const LargePolytopeData& L = *poly->large;
    const int m = poly->num_faces;
    count = 0;
    for (int i : L.bounding_faces) face[count++] = i;
    nk = std::min(nk, kInlinePolytopeFaces - count - 1);
    for (int j = 0; j < nk; ++j) face[count++] = keep[j];
    const int nb = count;
    // every slack (a vectorized pass), the faces already picked excluded, then the least ones
    double slack[kMaxPolytopeFaces];
    Eigen::Map<Eigen::ArrayXd>(slack, m) =
        ab * L.b.array() - (L.A.col(0).array() * y.x() + L.A.col(1).array() * y.y() + L.A.col(2).array() * y.z());
    for (int j = 0; j < nb; ++j) slack[face[j]] = std::numeric_limits<double>::infinity();
    double key[kInlinePolytopeFaces];
    if (least_slacks_below_threshold(slack, m, kInlinePolytopeFaces - nb, face + nb, key + nb)) {
      count = kInlinePolytopeFaces;
      keep_violated(nb, key);
      return;
    }
    int worst = -1;  // the pick of largest slack, once the window is full
    const auto find_worst = [&] {
      worst = nb;
      for (int j = nb + 1; j < count; ++j)
        if (key[j] > key[worst]) worst = j;
    };
    int i = 0;
    for (; i < m && count < kInlinePolytopeFaces; ++i) {
      if (slack[i] == std::numeric_limits<double>::infinity()) continue;
      face[count] = i;
      key[count++] = slack[i];
    }
    if (count == kInlinePolytopeFaces) {
      find_worst();
      double bar = key[worst];
      for (; i < m; ++i)
        if (slack[i] < bar) {
          face[worst] = i;
          key[worst] = slack[i];
          find_worst();
          bar = key[worst];
        }
    }
    keep_violated(nb, key);
  }

  /// The picks (from nb on) that violate their face stay in later windows (`sticky`).
  void keep_violated(int nb, const double* key) {
    for (int j = nb; j < count && sticky_count < kInlinePolytopeFaces; ++j)
      if (key[j] < 0.0 && std::find(sticky, sticky + sticky_count, face[j]) == sticky + sticky_count)
        sticky[sticky_count++] = face[j];
  }

};

/// The windows of both bodies (either may be unused).
struct FaceWindows {
  FaceWindow body[2];
  bool any() const { return body[0].active() || body[1].active(); }
  void select(const double* x, const ConeKkt* k = nullptr) {
    for (FaceWindow& f : body)
      if (f.active()) f.select(x, k), f.write();
  }
  /// The least slack over all faces of both large polytopes at x (+∞ without one).
  double min_slack(const double* x) const {
    double lo = 1e300;
    for (const FaceWindow& f : body)
      if (f.active()) lo = std::min(lo, f.min_slack(x));
    return lo;
  }
};

}  // namespace diffcol::dcol::detail
