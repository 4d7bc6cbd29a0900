// The Contax contact manifold (seed Sec. IV-A–IV-D): one scalar-generic core, instantiated with
// double (values) and Dual<12> (values + derivatives w.r.t. both poses).
#include "diffcol/manifold/manifold.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "fail.hpp"

namespace diffcol::manifold {

namespace {

using D12 = Dual<12>;
using D6 = Dual<6>;

using detail::fail;

/// A pose with generic entries: x_W = R x_B + p.
template <class T>
struct PoseT {
  T R[3][3];
  V3<T> p;
};

template <class T>
PoseT<T> constant_pose(const Pose& X) {
  PoseT<T> out;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) out.R[i][j] = T(X.R(i, j));
    out.p[i] = T(X.p[i]);
  }
  return out;
}

/// X·exp(ξ) to first order in ξ = [ω; v] (exact for the derivative at ξ = 0): R(I + [ω]×), p + Rv;
/// ξ is seeded as the dual variables k0 … k0 + 5.
template <int N>
PoseT<Dual<N>> twist_pose(const Pose& X, int k0) {
  using D = Dual<N>;
  PoseT<D> out;
  for (int i = 0; i < 3; ++i) {
    // (R[ω]×)_ij = R_i·(ω × e_j) = ω·(e_j × R_iᵀ): the ω-derivative is −(R_iᵀ × e_j).
    for (int j = 0; j < 3; ++j) {
      D r(X.R(i, j));
      const Vec3 c = X.R.row(i).transpose().cross(Vec3::Unit(j));
      for (int m = 0; m < 3; ++m) r.d[k0 + m] = -c[m];
      out.R[i][j] = r;
    }
    D pi(X.p[i]);
    for (int m = 0; m < 3; ++m) pi.d[k0 + 3 + m] = X.R(i, m);
    out.p[i] = pi;
  }
  return out;
}

/// exp of s = [ω; v] (SE(3), p = V v), generic scalar; series for small ‖ω‖.
template <class T>
PoseT<T> se3_exp_generic(const T s[6]) {
  using std::cos;
  using std::sin;
  using std::sqrt;
  const V3<T> w(s[0], s[1], s[2]), v(s[3], s[4], s[5]);
  const T th2 = squared_norm(w);
  T A, B, C;
  if (value_of(th2) < 1e-8) {
    A = 1.0 - th2 / 6.0 + th2 * th2 / 120.0;
    B = 0.5 - th2 / 24.0 + th2 * th2 / 720.0;
    C = 1.0 / 6.0 - th2 / 120.0 + th2 * th2 / 5040.0;
  } else {
    const T th = sqrt(th2);
    A = sin(th) / th;
    B = (1.0 - cos(th)) / th2;
    C = (th - sin(th)) / (th2 * th);
  }
  T W[3][3] = {{T(0.0), -w.z, w.y}, {w.z, T(0.0), -w.x}, {-w.y, w.x, T(0.0)}};
  T W2[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) W2[i][j] = W[i][0] * W[0][j] + W[i][1] * W[1][j] + W[i][2] * W[2][j];
  PoseT<T> out;
  for (int i = 0; i < 3; ++i) {
    T pi(0.0);
    for (int j = 0; j < 3; ++j) {
      const T id(i == j ? 1.0 : 0.0);
      out.R[i][j] = id + A * W[i][j] + B * W2[i][j];
      pi = pi + (id + B * W[i][j] + C * W2[i][j]) * v[j];
    }
    out.p[i] = pi;
  }
  return out;
}

template <class T>
V3<T> apply(const PoseT<T>& X, const Eigen::Vector3d& b) {
  V3<T> out;
  for (int i = 0; i < 3; ++i) out[i] = X.R[i][0] * b.x() + X.R[i][1] * b.y() + X.R[i][2] * b.z() + X.p[i];
  return out;
}

template <class T>
V3<T> rotate_by(const PoseT<T>& X, const V3<T>& a) {
  V3<T> out;
  for (int i = 0; i < 3; ++i) out[i] = X.R[i][0] * a.x + X.R[i][1] * a.y + X.R[i][2] * a.z;
  return out;
}

template <class T>
V3<T> inverse_apply(const PoseT<T>& X, const V3<T>& a) {
  const V3<T> d = a - X.p;
  V3<T> out;
  for (int i = 0; i < 3; ++i) out[i] = X.R[0][i] * d.x + X.R[1][i] * d.y + X.R[2][i] * d.z;
  return out;
}

/// Body SDF at a point of the core's frame: value and normal in that frame. The gradient is not
/// used by the manifold and is left zero (saves a rotation per sample).
template <class T>
SdfPoint<T> sample_world(const SdfObject& sdf, const PoseT<T>& X, const V3<T>& x_W) {
  const SdfPoint<T> local = sdf.evaluate(inverse_apply(X, x_W));
  SdfPoint<T> out;
  out.value = local.value;
  out.gradient = V3<T>(T(0.0), T(0.0), T(0.0));
  out.normal = rotate_by(X, local.normal);
  return out;
}

/// Σ_j P_rj x_j.
template <class T>
V3<T> blend(const T* P_row, const std::vector<V3<T>>& x, const std::vector<int>* idx, int n) {
  V3<T> out(T(0.0), T(0.0), T(0.0));
  for (int j = 0; j < n; ++j) {
    if (value_of(P_row[j]) == 0.0 && P_row[j].d.isZero()) continue;
    out = out + P_row[j] * x[idx ? (*idx)[j] : j];
  }
  return out;
}

V3<double> blend(const double* P_row, const std::vector<V3<double>>& x, const std::vector<int>* idx, int n) {
  V3<double> out(0.0, 0.0, 0.0);
  for (int j = 0; j < n; ++j) {
    if (P_row[j] == 0.0) continue;
    out = out + P_row[j] * x[idx ? (*idx)[j] : j];
  }
  return out;
}

struct Sizes {
  int nv[2], ne[2], kv[2], ke[2];
};

Sizes check_sizes(const char* fn, const ContactObject& a, const ContactObject& b, const ManifoldOptions& opt) {
  opt.validate();
  Sizes s{};
  const ContactObject* obj[2] = {&a, &b};
  for (int i = 0; i < 2; ++i) {
    s.nv[i] = obj[i]->mesh().num_vertices();
    s.ne[i] = 0;  // E-E candidates: edges sharper than feature_angle
    for (double angle : obj[i]->edge_dihedral_angles())
      if (opt.feature_angle < 0.0 || angle > opt.feature_angle) ++s.ne[i];
    s.kv[i] = opt.num_vertices[i] < 0 ? s.nv[i] : opt.num_vertices[i];
    s.ke[i] = !opt.edge_edge ? 0 : (opt.num_edges[i] < 0 ? s.ne[i] : opt.num_edges[i]);
    if (s.kv[i] > s.nv[i]) fail(fn, "num_vertices exceeds the mesh's vertex count");
    if (opt.edge_edge && s.ke[i] > s.ne[i])
      fail(fn, "num_edges exceeds the number of candidate edges (mesh edges sharper than feature_angle)");
  }
  return s;
}

/// SDF of body 1 (pose X21 in body 2's frame) at a point w of body 2's frame; value, gradient
/// and normal in body 2's frame.
template <class T>
SdfPoint<T> sample_body1(const SdfObject& sdf, const PoseT<T>& X21, const V3<T>& w) {
  return sample_world(sdf, X21, w);
}

/// φ only at a point x (object frame). double: the value-only evaluation. Dual: the double
/// evaluation and its analytic gradient, dφ = ∇φ·dx (cheaper than carrying the duals through).
inline double sdf_value(const SdfObject& sdf, const V3<double>& x) { return sdf.evaluate_value(x); }
template <int N>
Dual<N> sdf_value(const SdfObject& sdf, const V3<Dual<N>>& x) {
  const SdfPoint<double> p = sdf.evaluate(V3<double>(x.x.v, x.y.v, x.z.v));
  Dual<N> r(p.value, typename Dual<N>::NoInit{});
  for (int i = 0; i < N; ++i) r.d[i] = p.gradient.x * x.x.d[i] + p.gradient.y * x.y.d[i] + p.gradient.z * x.z.d[i];
  return r;
}

/// The mesh edges that are E-E candidates: dihedral angle > feature_angle (all when < 0).
void collect_candidates(const ContactObject& o, double feature_angle, std::vector<int>& out) {
  const std::vector<double>& angle = o.edge_dihedral_angles();
  out.clear();
  for (int j = 0; j < static_cast<int>(angle.size()); ++j)
    if (feature_angle < 0.0 || angle[j] > feature_angle) out.push_back(j);
}

/// exp(−40) ≈ 4e-18: below this (relative) weight or activity a term cannot change a double.
constexpr double kCullExponent = 40.0;

/// SoftSort top-K (soft_top_k_generic) where every row entry with |x_c − x_j| > cut gets weight 0
/// without an exp (cut = inf: every entry; cut ≥ t·(40 + log n): the dense P to rounding).
template <class T>
void soft_top_k_cut(const T* x, int n, int k, double t, double cut, T* P, int* order, int* sort_index);

/// Evaluates (exact(j) → the exact metric) the candidates that can reach the top K or a SoftSort
/// weight above e^-40/n: upper[j] bounds candidate j's metric from above; a candidate is skipped
/// once its bound lies more than `margin` below the K-th largest exact metric found (strictly
/// below for margin 0). First the K largest bounds, then the rest in any order (the threshold only
/// rises). processed[j] = 1 for the evaluated ones.
template <class Exact>
void lazy_top_k(const double* upper, int n, int K, double margin, std::vector<int>& order, std::vector<double>& heap,
                std::vector<char>& processed, Exact exact) {
  order.resize(n);
  processed.assign(n, 0);
  for (int j = 0; j < n; ++j) order[j] = j;
  std::nth_element(order.begin(), order.begin() + (K - 1), order.end(),
                   [&](int a, int b) { return upper[a] > upper[b] || (upper[a] == upper[b] && a < b); });
  heap.clear();
  auto visit = [&](int j) {
    if (static_cast<int>(heap.size()) == K && upper[j] < heap.front() - margin) return;
    const double v = exact(j);
    processed[j] = 1;
    if (static_cast<int>(heap.size()) < K) {
      heap.push_back(v);
      std::push_heap(heap.begin(), heap.end(), std::greater<double>());
    } else if (v > heap.front()) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<double>());
      heap.back() = v;
      std::push_heap(heap.begin(), heap.end(), std::greater<double>());
    }
  };
  for (int r = 0; r < K; ++r) visit(order[r]);
  for (int r = K; r < n; ++r) visit(order[r]);
}

/// value 0 and (Dual) derivative 0.
inline bool exact_zero(double x) { return x == 0.0; }
template <int N>
bool exact_zero(const Dual<N>& x) {
  return x.v == 0.0 && x.d.isZero();
}

/// The manifold core (see manifold.hpp for the layout), evaluated in body 2's frame: body 1 at
/// the relative pose X21 = X_W2⁻¹X_W1, body 2 at the identity (every quantity is invariant or
/// equivariant under a common rigid motion). Values in s.point … s.activity (body-2 frame),
/// metadata in m.entries.
template <class T>
void run_core(const ContactObject& o1, const PoseT<T>& X21, const ContactObject& o2, const ManifoldOptions& opt,
              const Sizes& sz, ManifoldScratch<T>& s, ContactManifold& m) {
  namespace k = smooth::kernel;
  constexpr double inf = std::numeric_limits<double>::infinity();
  const ContactObject* obj[2] = {&o1, &o2};
  const SdfObject& sdf1 = o1.sdf();
  const SdfObject& sdf2 = o2.sdf();
  auto sample_other = [&](int b, const V3<T>& x) { return b == 0 ? sdf2.evaluate(x) : sample_body1(sdf1, X21, x); };
  const bool cull = opt.culling;
  Mat3 R21;
  Vec3 p21;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) R21(i, j) = value_of(X21.R[i][j]);
    p21[i] = value_of(X21.p[i]);
  }
  // Activities below e^-40: V-S σ(−φ/t_pen) (12) for φ > 40 t_pen; E-E penγ for φ + m_pen > 40 t_pen.
  const double cut_vs = kCullExponent * opt.contact.t_pen;
  const double cut_ee = kCullExponent * opt.contact.t_pen - opt.contact.pen_margin;
  // Lower bound of φ_other at a point of body 2's frame (SdfObject::lower_bound: tight up to
  // `above`, which is all a test "φ > above" needs).
  auto other_bound = [&](int b, const Eigen::Vector3d& x, double above) -> double {
    return b == 0 ? sdf2.lower_bound(x, above) : sdf1.lower_bound(R21.transpose() * (x - p21), above);
  };
  auto ensure = [&](int b, int i) {
    if (s.evaluated[b][i]) return;
    s.sample[b][i] = sample_other(b, s.world[b][i]);
    s.metric[b][i] = -s.sample[b][i].value;
    s.evaluated[b][i] = 1;
  };
  // Vertices in body 2's frame and their penetration metrics −φ_other(v) (IV-A): exact where
  // needed (dense: all of them), else bounded from above by −L.
  for (int b = 0; b < 2; ++b) {
    const auto& verts = obj[b]->mesh().vertices();
    const int nv = sz.nv[b];
    s.world[b].resize(nv);
    s.sample[b].resize(nv);
    s.metric[b].resize(nv);
    s.evaluated[b].assign(nv, 0);
    s.bound[b].resize(nv);
    const bool need_metric = sz.kv[b] > 0 || (sz.ke[b] > 0 && sz.ke[b] < sz.ne[b]);
    for (int i = 0; i < nv; ++i) {
      s.world[b][i] = b == 0 ? apply(X21, verts[i]) : V3<T>(T(verts[i].x()), T(verts[i].y()), T(verts[i].z()));
      if (!cull) {
        if (need_metric) ensure(b, i);
        continue;
      }
      if (!need_metric) continue;
      const bool vs_all = sz.kv[b] == nv;  // culled by the V-S cut; else the bound feeds SoftSort
      const double L = other_bound(b, values(s.world[b][i]), vs_all ? cut_vs : -inf);
      s.bound[b][i] = L;
      s.metric[b][i] = T(-L);
      if (vs_all && L <= cut_vs) ensure(b, i);
    }
  }
  const int total = sz.kv[0] + sz.kv[1] + 2 * sz.ke[0] * sz.ke[1];
  s.point.resize(total);
  s.normal.resize(total);
  s.distance.resize(total);
  s.activity.resize(total);
  m.entries.resize(total);
  for (int b = 0; b < 2; ++b) {
    m.num_vertex_sdf[b] = sz.kv[b];
    m.num_edges[b] = sz.ke[b];
  }
  auto metric_upper = [&](int b, int i) { return s.evaluated[b][i] ? value_of(s.metric[b][i]) : -s.bound[b][i]; };
  // A culled V-S entry (manifold.hpp): distance 40·t_pen (< φ), normal 0, activity 0.
  auto culled_vertex_entry = [&](int e) {
    s.distance[e] = T(cut_vs);
    s.normal[e] = V3<T>(T(0.0), T(0.0), T(0.0));
    s.activity[e] = T(0.0);
    m.entries[e].culled = true;
  };
  // V-S contacts (IV-C) of the selected vertices.
  int e = 0;
  for (int b = 0; b < 2; ++b) {
    const int n = sz.nv[b], K = sz.kv[b];
    if (K == 0) continue;
    const bool select = K < n;
    if (select) {
      s.P.resize(static_cast<std::size_t>(K) * n);
      s.order.resize(K);
      s.sort_index.resize(n);
      double cut = inf;
      if (cull) {
        cut = opt.t_topk * (kCullExponent + std::log(static_cast<double>(n)));
        s.upper.resize(n);
        for (int j = 0; j < n; ++j) s.upper[j] = metric_upper(b, j);
        lazy_top_k(s.upper.data(), n, K, cut, s.lazy_order, s.heap, s.processed, [&](int j) {
          ensure(b, j);
          return value_of(s.metric[b][j]);
        });
      }
      soft_top_k_cut(s.metric[b].data(), n, K, opt.t_topk, cut, s.P.data(), s.order.data(), s.sort_index.data());
    }
    for (int r = 0; r < K; ++r, ++e) {
      ManifoldEntry& me = m.entries[e];
      me.kind = ContactKind::vertex_sdf;
      me.body = b;
      me.source = select ? s.order[r] : r;
      me.other_source = -1;
      me.culled = false;
      SdfPoint<T> sp;
      if (select) {
        s.point[e] = blend(s.P.data() + static_cast<std::size_t>(r) * n, s.world[b], nullptr, n);
        if (cull && other_bound(b, values(s.point[e]), cut_vs) > cut_vs) {
          culled_vertex_entry(e);
          continue;
        }
        sp = sample_other(b, s.point[e]);
      } else {
        s.point[e] = s.world[b][r];
        if (!s.evaluated[b][r]) {
          culled_vertex_entry(e);
          continue;
        }
        sp = s.sample[b][r];
      }
      s.distance[e] = sp.value;
      s.normal[e] = sp.normal;
      s.activity[e] = k::sigmoid<T>(-sp.value, opt.contact.t_pen);  // (12)
    }
  }
  if (!opt.edge_edge || sz.ke[0] == 0 || sz.ke[1] == 0) return;
  // Edge selection among the candidate (feature) edges by the mean metric of the end points (IV-A).
  for (int b = 0; b < 2; ++b) {
    const auto& edges = obj[b]->mesh().edges();
    collect_candidates(*obj[b], opt.feature_angle, s.edge_candidates[b]);
    const std::vector<int>& cand = s.edge_candidates[b];
    const int n = sz.ne[b], K = sz.ke[b];
    s.edge_a[b].resize(K);
    s.edge_b[b].resize(K);
    s.edge_source[b].resize(K);
    if (K == n) {
      for (int j = 0; j < n; ++j) {
        s.edge_a[b][j] = s.world[b][edges[cand[j]][0]];
        s.edge_b[b][j] = s.world[b][edges[cand[j]][1]];
        s.edge_source[b][j] = cand[j];
      }
      continue;
    }
    s.edge_metric[b].resize(n);
    double cut = inf;
    if (cull) {
      cut = opt.t_topk * (kCullExponent + std::log(static_cast<double>(n)));
      s.upper.resize(n);
      for (int j = 0; j < n; ++j)
        s.upper[j] = 0.5 * (metric_upper(b, edges[cand[j]][0]) + metric_upper(b, edges[cand[j]][1]));
      lazy_top_k(s.upper.data(), n, K, cut, s.lazy_order, s.heap, s.processed, [&](int j) {
        ensure(b, edges[cand[j]][0]);
        ensure(b, edges[cand[j]][1]);
        return value_of(0.5 * (s.metric[b][edges[cand[j]][0]] + s.metric[b][edges[cand[j]][1]]));
      });
      for (int j = 0; j < n; ++j)
        s.edge_metric[b][j] = s.processed[j] ? T(0.5 * (s.metric[b][edges[cand[j]][0]] + s.metric[b][edges[cand[j]][1]]))
                                             : T(s.upper[j]);
    } else {
      for (int j = 0; j < n; ++j)
        s.edge_metric[b][j] = 0.5 * (s.metric[b][edges[cand[j]][0]] + s.metric[b][edges[cand[j]][1]]);
    }
    s.P.resize(static_cast<std::size_t>(K) * n);
    s.order.resize(K);
    s.sort_index.resize(n);
    soft_top_k_cut(s.edge_metric[b].data(), n, K, opt.t_topk, cut, s.P.data(), s.order.data(), s.sort_index.data());
    for (int r = 0; r < K; ++r) {
      V3<T> a(T(0.0), T(0.0), T(0.0)), c(T(0.0), T(0.0), T(0.0));
      const T* row = s.P.data() + static_cast<std::size_t>(r) * n;
      for (int j = 0; j < n; ++j) {
        if (exact_zero(row[j])) continue;
        a = a + row[j] * s.world[b][edges[cand[j]][0]];
        c = c + row[j] * s.world[b][edges[cand[j]][1]];
      }
      s.edge_a[b][r] = a;
      s.edge_b[b][r] = c;
      s.edge_source[b][r] = cand[s.order[r]];
    }
  }
  // E-E contacts (IV-D) of all selected pairs.
  const int E1 = sz.ke[0], E2 = sz.ke[1];
  s.ee.resize(static_cast<std::size_t>(E1) * E2);
  s.D.resize(s.ee.size());
  s.nn1.resize(s.ee.size());
  s.nn2.resize(s.ee.size());
  s.pair_culled.resize(s.ee.size());
  // Witnesses and distances of every pair first: the nearest-neighbour factors (13)–(14) need all.
  for (int kk = 0; kk < E1; ++kk)
    for (int l = 0; l < E2; ++l) {
      EdgeEdgeWitness<T> w =
          edge_edge_witness(s.edge_a[0][kk], s.edge_b[0][kk], s.edge_a[1][l], s.edge_b[1][l], opt.witness);
      if (opt.projection_iterations > 0)
        project_witness(
            w,
            [&](const V3<T>& x) {  // body 1's SDF, gradient in body 2's frame
              SdfPoint<T> p = sdf1.evaluate(inverse_apply(X21, x));
              p.gradient = rotate_by(X21, p.gradient);
              return p;
            },
            [&](const V3<T>& x) { return sdf2.evaluate(x); },
            opt.projection_iterations, opt.witness.normal_regularization);
      const std::size_t idx = static_cast<std::size_t>(kk) * E2 + l;
      s.D[idx] = w.distance;
      s.ee[idx].witness = w;
    }
  edge_nearest_neighbours(s.D.data(), E1, E2, opt.contact.t_nn, s.nn1.data(), s.nn2.data());  // (13)–(14)
  // Signs, penetration and clashing (IV-D3) of the pairs whose activity (16) can exceed e^-40:
  // Γ_b ≤ nnΓ_b and Γ_b ≤ penγ_b.
  const double nn_cut = std::exp(-kCullExponent);
  for (std::size_t idx = 0; idx < s.ee.size(); ++idx) {
    const EdgeEdgeWitness<T>& w = s.ee[idx].witness;
    // bit b: entry b culled
    s.pair_culled[idx] = !cull ? 0
                               : ((value_of(s.nn1[idx]) < nn_cut || other_bound(0, values(w.e1), cut_ee) > cut_ee) ? 1 : 0) |
                                     ((value_of(s.nn2[idx]) < nn_cut || other_bound(1, values(w.e2), cut_ee) > cut_ee) ? 2 : 0);
    if (s.pair_culled[idx] == 3) continue;
    SdfPoint<T> s2_at_e1, s1_at_e2;  // penetration (12) needs the values only (not those of a culled entry)
    if (!(s.pair_culled[idx] & 1)) s2_at_e1.value = sdf_value(sdf2, w.e1);
    if (!(s.pair_culled[idx] & 2)) s1_at_e2.value = sdf_value(sdf1, inverse_apply(X21, w.e2));
    s.ee[idx] = edge_edge_contact(w, sample_body1(sdf1, X21, w.e1), sdf2.evaluate(w.e2), s2_at_e1, s1_at_e2,
                                  opt.contact);
  }
  for (int kk = 0; kk < E1; ++kk)
    for (int l = 0; l < E2; ++l) {
      const std::size_t idx = static_cast<std::size_t>(kk) * E2 + l;
      const EdgeEdgeContact<T>& c = s.ee[idx];
      for (int b = 0; b < 2; ++b, ++e) {
        ManifoldEntry& me = m.entries[e];
        me.kind = ContactKind::edge_edge;
        me.body = b;
        me.source = s.edge_source[b][b == 0 ? kk : l];
        me.other_source = s.edge_source[1 - b][b == 0 ? l : kk];
        me.culled = (s.pair_culled[idx] >> b) & 1;
        s.point[e] = b == 0 ? c.witness.e1 : c.witness.e2;
        if (me.culled) {  // manifold.hpp: ‖e1 − e2‖ and ±n̄
          s.distance[e] = c.witness.distance;
          s.normal[e] = b == 0 ? c.witness.normal : V3<T>(-c.witness.normal);
          s.activity[e] = T(0.0);
          continue;
        }
        s.distance[e] = c.distance[b];
        s.normal[e] = c.normal[b];
        s.activity[e] = edge_edge_activity(c, b, b == 0 ? s.nn1[idx] : s.nn2[idx]);  // (16)
      }
    }
}

/// Values of the core (body-2 frame) into the manifold, mapped to the world by X_W2.
template <class T>
void copy_values(const ManifoldScratch<T>& s, const Pose& X2, ContactManifold& m) {
  for (std::size_t e = 0; e < m.entries.size(); ++e) {
    ManifoldEntry& me = m.entries[e];
    me.point = X2.R * values(s.point[e]) + X2.p;
    me.normal = X2.R * values(s.normal[e]);
    me.distance = value_of(s.distance[e]);
    me.activity = value_of(s.activity[e]);
  }
}

void check_pose(const char* fn, const Pose& X) {
  if (const char* why = X.invalid_reason()) fail(fn, std::string("pose: ") + why);
}

Pose relative_pose(const Pose& X_W1, const Pose& X_W2) {
  Pose X21;
  X21.R = X_W2.R.transpose() * X_W1.R;
  X21.p = X_W2.R.transpose() * (X_W1.p - X_W2.p);
  return X21;
}

/// J_r(s): the body twist of exp(s + δ) relative to exp(s) is J_r(s)δ + O(δ²) (columns: δ).
Mat6 right_jacobian_se3(const Vec6& s) {
  D6 sd[6];
  for (int i = 0; i < 6; ++i) sd[i] = D6::variable(s[i], i);
  const PoseT<D6> X = se3_exp_generic(sd);
  Mat3 R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R(i, j) = X.R[i][j].v;
  Mat6 J;
  for (int k = 0; k < 6; ++k) {
    Mat3 dR;
    Vec3 dp;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) dR(i, j) = X.R[i][j].d[k];
      dp[i] = X.p[i].d[k];
    }
    const Mat3 W = R.transpose() * dR;  // [ω]×
    J.col(k) << W(2, 1), W(0, 2), W(1, 0), R.transpose() * dp;
  }
  return J;
}

}  // namespace

template <class T>
void soft_top_k_generic(const T* x, int n, int k, double t, T* P, int* order, int* sort_index) {
  soft_top_k_cut(x, n, k, t, std::numeric_limits<double>::infinity(), P, order, sort_index);
}

namespace {

template <class T>
void soft_top_k_cut(const T* x, int n, int k, double t, double cut, T* P, int* order, int* sort_index) {
  using std::exp;
  for (int j = 0; j < n; ++j) sort_index[j] = j;
  std::partial_sort(sort_index, sort_index + k, sort_index + n, [&](int a, int b) {
    const double va = value_of(x[a]), vb = value_of(x[b]);
    return va > vb || (va == vb && a < b);
  });
  for (int r = 0; r < k; ++r) {
    const int c = sort_index[r];
    order[r] = c;
    T* row = P + static_cast<std::size_t>(r) * n;
    if (t == 0.0) {
      for (int j = 0; j < n; ++j) row[j] = T(j == c ? 1.0 : 0.0);
      continue;
    }
    // P_rj = softmax_j(−|s_r − x_j|/t); the largest logit is 0 at j = c. The sign of s_r − x_j
    // follows the sort order, also at ties (x_j = x_c, j ≠ c): the derivative is that of the order
    // held fixed, for every row alike. (Deciding a tie by the sign of 0 gave the row of the
    // second tied entry the opposite branch, and a wrong derivative where metrics tie, e.g. the
    // mirror-image vertices of axis-aligned scenes.)
    T sum(0.0);
    const double vc = value_of(x[c]);
    for (int j = 0; j < n; ++j) {
      const T d = x[c] - x[j];
      const double vj = value_of(x[j]);
      if (std::abs(vc - vj) > cut) {  // weight < e^-40/n of the selected entry's
        row[j] = T(0.0);
        continue;
      }
      const bool before_c = vj > vc || (vj == vc && j < c);  // x_j sorts before x_c: s_r − x_j ≤ 0
      const T ad = before_c ? T(-d) : d;
      row[j] = exp(-ad / t);
      sum = sum + row[j];
    }
    for (int j = 0; j < n; ++j)
      if (!exact_zero(row[j])) row[j] = row[j] / sum;
  }
}

}  // namespace

template void soft_top_k_generic<double>(const double*, int, int, double, double*, int*, int*);
template void soft_top_k_generic<D12>(const D12*, int, int, double, D12*, int*, int*);
template void soft_top_k_generic<D6>(const D6*, int, int, double, D6*, int*, int*);

ContactObject::ContactObject(mesh::TriangleMesh mesh, SdfObject sdf, const Pose& X_WB)
    : mesh_(std::move(mesh)), sdf_(std::move(sdf)) {
  if (sdf_.num_added() < 1) fail("ContactObject", "the SdfObject has no primitive");
  set_pose(X_WB);
  for (const Vec3& v : mesh_.vertices()) discrepancy_ = std::max(discrepancy_, std::abs(sdf_.value(v)));
  // Dihedral angles: the two faces of every (sorted, undirected) edge.
  const auto& edges = mesh_.edges();
  std::vector<Vec3> first(edges.size(), Vec3::Zero());
  dihedral_.assign(edges.size(), 0.0);
  std::vector<char> seen(edges.size(), 0);
  for (int f = 0; f < mesh_.num_faces(); ++f) {
    const auto& F = mesh_.faces()[f];
    const Vec3 n = mesh_.face_normal(f);
    for (int c = 0; c < 3; ++c) {
      const int a = std::min(F[c], F[(c + 1) % 3]), b = std::max(F[c], F[(c + 1) % 3]);
      const auto it = std::lower_bound(edges.begin(), edges.end(), a, [](const auto& E, int v) { return E[0] < v; });
      auto jt = it;
      while (jt != edges.end() && (*jt)[0] == a && (*jt)[1] != b) ++jt;
      const std::size_t j = static_cast<std::size_t>(jt - edges.begin());
      if (!seen[j]) {
        first[j] = n;
        seen[j] = 1;
      } else {
        dihedral_[j] = std::acos(std::clamp(first[j].dot(n), -1.0, 1.0));
      }
    }
  }
}

void ContactObject::set_pose(const Pose& X_WB) {
  check_pose("ContactObject::set_pose", X_WB);
  pose_ = X_WB;
}

ManifoldOptions ManifoldOptions::hard(double regularization) {
  ManifoldOptions o;
  o.t_topk = 0.0;
  o.witness = WitnessOptions::hard(regularization);
  o.contact = ContactOptions::hard();
  return o;
}

void ManifoldOptions::validate() const {
  for (int b = 0; b < 2; ++b) {
    if (num_vertices[b] < -1) fail("ManifoldOptions", "num_vertices must be −1 (all), 0 (none) or positive");
    if (num_edges[b] < -1 || num_edges[b] == 0) fail("ManifoldOptions", "num_edges must be −1 (all) or positive");
  }
  smooth::validate_temperature(t_topk, "ManifoldOptions::t_topk");
  if (!std::isfinite(feature_angle)) fail("ManifoldOptions", "feature_angle must be finite");
  witness.validate();
  contact.validate();
  if (projection_iterations < 0 || projection_iterations > 20)
    fail("ManifoldOptions", "projection_iterations must be in [0, 20]");
}

void compute_manifold(const ContactObject& body1, const ContactObject& body2, const ManifoldOptions& options,
                      ManifoldWorkspace& ws, ContactManifold& manifold) {
  compute_manifold(body1, body1.pose(), body2, body2.pose(), options, ws, manifold);
}

void compute_manifold(const ContactObject& body1, const Pose& X_W1, const ContactObject& body2, const Pose& X_W2,
                      const ManifoldOptions& options, ManifoldWorkspace& ws, ContactManifold& manifold) {
  const char* fn = "compute_manifold";
  check_pose(fn, X_W1);
  check_pose(fn, X_W2);
  const Sizes sz = check_sizes(fn, body1, body2, options);
  run_core(body1, constant_pose<double>(relative_pose(X_W1, X_W2)), body2, options, sz, ws.value, manifold);
  copy_values(ws.value, X_W2, manifold);
}

void compute_manifold_derivatives(const ContactObject& body1, const Pose& X_W1, const ContactObject& body2,
                                  const Pose& X_W2, const ManifoldOptions& options, PoseCoordinates coordinates,
                                  ManifoldWorkspace& ws, ContactManifold& manifold, ManifoldDerivatives& der) {
  const char* fn = "compute_manifold_derivatives";
  check_pose(fn, X_W1);
  check_pose(fn, X_W2);
  const Sizes sz = check_sizes(fn, body1, body2, options);
  // One Dual<6> pass in body 2's frame, seeded with the body twist ζ of X21 = X_W2⁻¹X_W1.
  const Pose X21 = relative_pose(X_W1, X_W2);
  ManifoldScratch<D6>& s = ws.dual;
  run_core(body1, twist_pose<6>(X21, 0), body2, options, sz, s, manifold);
  copy_values(s, X_W2, manifold);
  // Chain rule to the 12 pose coordinates. X_W1·exp(ξ1): ζ = ξ1. X_W2·exp(ξ2): ζ = −Ad(X21⁻¹)ξ2,
  // and every body-2-frame point q / normal n is carried by X_W2: δq_W = R2(ω2 × q + v2).
  // With J = [J_ω | J_v] (columns of ζ) and Ad(X21⁻¹) = [[Rᵀ, 0], [−Rᵀp̂, Rᵀ]] (R, p of X21):
  // J·(−Ad(X21⁻¹)) = [−J_ωRᵀ + M p̂ | −M], M = J_v Rᵀ.
  const Mat3 Rt = X21.R.transpose();
  const Mat3 P = skew(X21.p);
  const Mat3& R2 = X_W2.R;
  // Jr[b]: the body twist of body b from its coordinates (ReferenceFrame twists, or se(3) log).
  Mat6 Jr[2] = {Mat6::Identity(), Mat6::Identity()};
  const Pose* X_Wb[2] = {&X_W1, &X_W2};
  for (int b = 0; b < 2; ++b) {
    switch (coordinates) {
      case PoseCoordinates::local: break;
      case PoseCoordinates::se3_log: Jr[b] = right_jacobian_se3(se3_log(*X_Wb[b])); break;
      case PoseCoordinates::world: Jr[b] = adjoint(X_Wb[b]->inverse()); break;
      case PoseCoordinates::local_world_aligned:  // Ad⁻¹·[[I, 0], [p^, I]] = diag(Rᵀ, Rᵀ)
        Jr[b].topLeftCorner<3, 3>() = Jr[b].bottomRightCorner<3, 3>() = X_Wb[b]->R.transpose();
        break;
    }
  }
  const bool log_coordinates = coordinates != PoseCoordinates::local;
  const std::size_t K = manifold.entries.size();
  der.J_point_X12.resize(K);
  der.J_normal_X12.resize(K);
  der.J_distance_X12.resize(K);
  der.J_activity_X12.resize(K);
  // Rows (frame 2) → [body 1 | body 2] blocks; `carried` is −[x]× for points/normals, 0 for scalars.
  auto chain3 = [&](const V3<D6>& y, bool is_point, Eigen::Matrix<double, 3, 12>& out) {
    Mat3 Jw, Jv;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        Jw(i, j) = y[i].d[j];
        Jv(i, j) = y[i].d[3 + j];
      }
    const Mat3 M = Jv * Rt;
    const Mat3 K1 = M * P - Jw * Rt - skew(values(y));
    Mat3 K2 = -M;
    if (is_point) K2 += Mat3::Identity();
    out.block<3, 3>(0, 0).noalias() = R2 * Jw;
    out.block<3, 3>(0, 3).noalias() = R2 * Jv;
    out.block<3, 3>(0, 6).noalias() = R2 * K1;
    out.block<3, 3>(0, 9).noalias() = R2 * K2;
  };
  auto chain1 = [&](const D6& y, Eigen::Matrix<double, 1, 12>& out) {
    const Eigen::Matrix<double, 1, 3> Jw = y.d.head<3>().transpose(), Jv = y.d.tail<3>().transpose();
    const Eigen::Matrix<double, 1, 3> M = Jv * Rt;
    out << Jw, Jv, M * P - Jw * Rt, -M;
  };
  for (std::size_t e = 0; e < K; ++e) {
    chain3(s.point[e], true, der.J_point_X12[e]);
    chain3(s.normal[e], false, der.J_normal_X12[e]);
    chain1(s.distance[e], der.J_distance_X12[e]);
    chain1(s.activity[e], der.J_activity_X12[e]);
    if (log_coordinates) {
      der.J_point_X12[e].leftCols<6>() = der.J_point_X12[e].leftCols<6>() * Jr[0];
      der.J_point_X12[e].rightCols<6>() = der.J_point_X12[e].rightCols<6>() * Jr[1];
      der.J_normal_X12[e].leftCols<6>() = der.J_normal_X12[e].leftCols<6>() * Jr[0];
      der.J_normal_X12[e].rightCols<6>() = der.J_normal_X12[e].rightCols<6>() * Jr[1];
      der.J_distance_X12[e].leftCols<6>() = der.J_distance_X12[e].leftCols<6>() * Jr[0];
      der.J_distance_X12[e].rightCols<6>() = der.J_distance_X12[e].rightCols<6>() * Jr[1];
      der.J_activity_X12[e].leftCols<6>() = der.J_activity_X12[e].leftCols<6>() * Jr[0];
      der.J_activity_X12[e].rightCols<6>() = der.J_activity_X12[e].rightCols<6>() * Jr[1];
    }
  }
}

}  // namespace diffcol::manifold
