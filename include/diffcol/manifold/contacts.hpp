#pragma once
/// @file contacts.hpp
/// Signed E-E and V-S contacts from witness points and SDFs (Contax seed, Sec. IV-C, IV-D3):
/// sign assignment (11), penetration indicator (12), nearest neighbours (13)–(14), clashing (15)
/// and the activity indicator (16).
///
/// Frames: everything here is in one common frame (world). SDF samples are passed in already
/// expressed in that frame (see sample_sdf()). Surface b ∈ {1, 2}; φ_b is the SDF of surface b.
///
/// Conventions: for the witness point e_b of surface b, the contact normal n_b points out of the
/// *other* surface (it pushes e_b out of it) and d_b < 0 means penetration, as for a V-S contact
/// (d = φ_other(v), n = ∇φ_other(v)). So d_1 = γ_1 d̄, n_1 = γ_1 (e1 − e2)/‖·‖ with
/// γ_1 = soft_sign(n_2ᵀ n̄_12), and d_2 = γ_2 d̄, n_2 = γ_2 (e2 − e1)/‖·‖ with
/// γ_2 = soft_sign(n_1ᵀ n̄_21). (The seed writes γ_2 = sign(n_1ᵀ n̄) with one n̄; using the
/// direction from the other edge for each witness makes both distances positive when separated.)

#include <stdexcept>

#include "diffcol/manifold/sdf.hpp"
#include "diffcol/manifold/witness.hpp"
#include "diffcol/math/smooth.hpp"

namespace diffcol::manifold {

/// Temperatures of the contact indicators (all ≥ 0; 0 = hard).
struct ContactOptions {
  double t_sign = 0.05;   ///< soft sign of n_otherᵀ n̄ in (11) (dimensionless)
  double t_pen = 1e-3;    ///< σ(−φ/t) of (12) (a length: set it to the scene's scale)
  double t_clash = 0.1;   ///< σ(−n_1ᵀn_2/t) of (15) (dimensionless)
  double t_nn = 1e-3;     ///< soft argmin over distances in (13)–(14) (a length)
  /// E-E penetration margin m_pen (a length ≥ 0): penγ_b = σ(−(φ_other(e_b) + m_pen)/t_pen), i.e.
  /// [φ_other(e_b) ≤ −m_pen]. With m_pen = 0 (the seed's (12)) a witness lying *on* the other
  /// surface gets penγ = ½; this happens whenever an edge pierces a face whose edges lie in that
  /// face (resting boxes), and such pairs carry a wrong distance and normal (docs/manifold.md).
  double pen_margin = 5e-3;
  /// Clashing margin m_cl (dimensionless, in [0, 1)): clγ = σ(−(n_1ᵀn_2 + m_cl)/t_clash), i.e.
  /// [n_1ᵀn_2 ≤ −m_cl]: the SDF normals must oppose, not merely be perpendicular (σ(0) = ½ with
  /// the seed's (15) for an edge lying in the other body's face).
  double clash_margin = 0.25;

  /// Every temperature 0; the margins keep their defaults (strict comparisons with margins).
  static ContactOptions hard() {
    ContactOptions o;
    o.t_sign = o.t_pen = o.t_clash = o.t_nn = 0.0;
    return o;
  }
  /// @throws std::invalid_argument if any field is negative or not finite.
  void validate() const {
    smooth::validate_temperature(t_sign, "ContactOptions::t_sign");
    smooth::validate_temperature(t_pen, "ContactOptions::t_pen");
    smooth::validate_temperature(t_clash, "ContactOptions::t_clash");
    smooth::validate_temperature(t_nn, "ContactOptions::t_nn");
    smooth::validate_temperature(pen_margin, "ContactOptions::pen_margin");
    if (!(clash_margin >= 0.0 && clash_margin < 1.0))
      throw std::invalid_argument("ContactOptions::clash_margin must be in [0, 1)");
  }
};

/// An SDF sample of one body, in the world frame.
template <class T>
using WorldSdfPoint = SdfPoint<T>;

/// Evaluates body b's SDF at a world point: x_B = X_WBᵀ(x_W), value, gradient and normal rotated
/// back to the world frame.
template <class T>
SdfPoint<T> sample_sdf(const SdfObject& sdf, const Pose& X_WB, const V3<T>& x_W) {
  const SdfPoint<T> local = sdf.evaluate(inverse_transform(X_WB.R, X_WB.p, x_W));
  SdfPoint<T> out;
  out.value = local.value;
  out.gradient = rotate(X_WB.R, local.gradient);
  out.normal = rotate(X_WB.R, local.normal);
  return out;
}

/// A vertex–SDF contact (IV-C).
template <class T>
struct VertexSdfContact {
  T distance{};       ///< d = φ_other(v)
  V3<T> normal;       ///< n = unit normal of the other surface at v (∇f direction for SQs)
  T gamma_pen{};      ///< penetration indicator σ(−d/t_pen)
};

/// V-S contact of vertex v_W (world) of one body against the other body's SDF.
template <class T>
VertexSdfContact<T> vertex_sdf_contact(const V3<T>& v_W, const SdfObject& other, const Pose& X_W_other,
                                       const ContactOptions& opt) {
  const SdfPoint<T> s = sample_sdf(other, X_W_other, v_W);
  VertexSdfContact<T> c;
  c.distance = s.value;
  c.normal = s.normal;
  c.gamma_pen = smooth::kernel::sigmoid<T>(-s.value, opt.t_pen);
  return c;
}

/// The signed quantities of one E-E pair; index 0 = witness point of surface 1, 1 = surface 2.
template <class T>
struct EdgeEdgeContact {
  EdgeEdgeWitness<T> witness;
  T distance[2]{};       ///< d_b = γ_b d̄, eq. (11)
  V3<T> normal[2];       ///< n_b = γ_b n̄_b, eq. (11)
  T gamma_sign[2]{};     ///< γ_b (soft sign)
  T gamma_pen[2]{};      ///< penγ_b = σ(−(φ_other(e_b) + m_pen)/t_pen), eq. (12) with a margin
  T gamma_clash[2]{};    ///< clγ = σ(−(n_1ᵀn_2 + m_cl)/t_clash), eq. (15) with a margin (both points)
  /// conγ·penγ_b·clγ: the activity (16) without the nearest-neighbour factor, which needs all
  /// pairs (see edge_nearest_neighbours()).
  T partial_activity[2]{};
};

/// Signs, penetration and clashing of an E-E pair (IV-D3) from its witness and the SDF samples
/// (world frame): s1_at_e1 = φ_1 at e1 (for n_1), s2_at_e2 = φ_2 at e2 (for n_2),
/// s2_at_e1 = φ_2 at e1 and s1_at_e2 = φ_1 at e2 (for penetration).
template <class T>
EdgeEdgeContact<T> edge_edge_contact(const EdgeEdgeWitness<T>& w, const SdfPoint<T>& s1_at_e1,
                                     const SdfPoint<T>& s2_at_e2, const SdfPoint<T>& s2_at_e1,
                                     const SdfPoint<T>& s1_at_e2, const ContactOptions& opt) {
  namespace k = smooth::kernel;
  EdgeEdgeContact<T> c;
  c.witness = w;
  const V3<T> n12 = w.normal;  // from e2 to e1
  const V3<T> n21 = -w.normal;
  c.gamma_sign[0] = k::soft_sign<T>(dot(s2_at_e2.normal, n12), opt.t_sign);
  c.gamma_sign[1] = k::soft_sign<T>(dot(s1_at_e1.normal, n21), opt.t_sign);
  c.distance[0] = c.gamma_sign[0] * w.distance;
  c.distance[1] = c.gamma_sign[1] * w.distance;
  c.normal[0] = c.gamma_sign[0] * n12;
  c.normal[1] = c.gamma_sign[1] * n21;
  c.gamma_pen[0] = k::sigmoid<T>(-(s2_at_e1.value + opt.pen_margin), opt.t_pen);  // (12)
  c.gamma_pen[1] = k::sigmoid<T>(-(s1_at_e2.value + opt.pen_margin), opt.t_pen);
  const T clash = k::sigmoid<T>(-(dot(s1_at_e1.normal, s2_at_e2.normal) + opt.clash_margin), opt.t_clash);  // (15)
  c.gamma_clash[0] = c.gamma_clash[1] = clash;
  for (int b = 0; b < 2; ++b) c.partial_activity[b] = w.gamma_con * c.gamma_pen[b] * clash;
  return c;
}

/// Sphere tracing of the witness points onto their own surfaces (supplementary II-C): `iterations`
/// steps e ← e − φ(e)∇φ(e)/‖∇φ(e)‖² of e1 on body 1's SDF (sdf1(x) → SdfPoint, x and gradient in
/// the witness frame) and of e2 on body 2's, then distance = ‖e1 − e2‖ and the unsigned normal
/// n̄ = (e1 − e2)/√(‖e1 − e2‖² + ε) from the projected points. A point where ∇φ = 0 stays.
template <class T, class Sdf1, class Sdf2>
void project_witness(EdgeEdgeWitness<T>& w, const Sdf1& sdf1, const Sdf2& sdf2, int iterations,
                     double normal_regularization) {
  auto trace = [&](V3<T>& e, const auto& sdf) {
    for (int k = 0; k < iterations; ++k) {
      const SdfPoint<T> p = sdf(e);
      const T g2 = dot(p.gradient, p.gradient);
      if (!(value_of(g2) > 0.0)) return;
      e = e - (p.value / g2) * p.gradient;
    }
  };
  trace(w.e1, sdf1);
  trace(w.e2, sdf2);
  using std::sqrt;
  const V3<T> de = w.e1 - w.e2;
  const T d2 = dot(de, de);
  w.distance = value_of(d2) > 0.0 ? sqrt(d2) : T(0.0);
  const T den2 = d2 + normal_regularization;
  w.normal = value_of(den2) > 0.0 ? (T(1.0) / sqrt(den2)) * de : V3<T>(T(0.0), T(0.0), T(0.0));
}

/// E-E contact of edges (a0, a1) of body 1 and (b0, b1) of body 2 (world frame), evaluating both
/// SDFs with their poses. Preconditions: both option structs validated.
template <class T>
EdgeEdgeContact<T> edge_edge_contact(const V3<T>& a0, const V3<T>& a1, const V3<T>& b0, const V3<T>& b1,
                                     const SdfObject& sdf1, const Pose& X_W1, const SdfObject& sdf2,
                                     const Pose& X_W2, const WitnessOptions& wopt,
                                     const ContactOptions& copt) {
  const EdgeEdgeWitness<T> w = edge_edge_witness(a0, a1, b0, b1, wopt);
  return edge_edge_contact(w, sample_sdf(sdf1, X_W1, w.e1), sample_sdf(sdf2, X_W2, w.e2),
                           sample_sdf(sdf2, X_W2, w.e1), sample_sdf(sdf1, X_W1, w.e2), copt);
}

/// Soft nearest-neighbour indicators (13)–(14) of an |E1| × |E2| distance matrix D (row-major):
/// nn1[k][l] = softmax(−D[k][·]/t)_l (row-wise), nn2[k][l] = softmax(−D[·][l]/t)_k (column-wise);
/// t = 0: one-hot of the first minimum. Outputs row-major, rows × cols each. No allocation.
/// Preconditions: rows, cols ≥ 1, t valid.
template <class T>
void edge_nearest_neighbours(const T* D, int rows, int cols, double t, T* nn1, T* nn2) {
  for (int r = 0; r < rows; ++r) smooth::kernel::softmin<T>(D + static_cast<long>(r) * cols, cols, t, nn1 + static_cast<long>(r) * cols);
  for (int c = 0; c < cols; ++c) {
    // Column-wise softmin written in place through strided access.
    int imin = 0;
    for (int r = 1; r < rows; ++r)
      if (value_of(D[static_cast<long>(r) * cols + c]) < value_of(D[static_cast<long>(imin) * cols + c])) imin = r;
    const T m = D[static_cast<long>(imin) * cols + c];
    if (t == 0.0) {
      for (int r = 0; r < rows; ++r) nn2[static_cast<long>(r) * cols + c] = T(r == imin ? 1.0 : 0.0);
      continue;
    }
    using std::exp;
    T sum(0.0);
    for (int r = 0; r < rows; ++r) {
      const T e = exp((m - D[static_cast<long>(r) * cols + c]) / t);
      nn2[static_cast<long>(r) * cols + c] = e;
      sum = sum + e;
    }
    for (int r = 0; r < rows; ++r) nn2[static_cast<long>(r) * cols + c] = nn2[static_cast<long>(r) * cols + c] / sum;
  }
}

/// The activity indicator (16): Γ_b = conγ·penγ_b·nnΓ_b·clγ_b.
template <class T>
T edge_edge_activity(const EdgeEdgeContact<T>& c, int b, const T& nn_b) {
  return c.partial_activity[b] * nn_b;
}

}  // namespace diffcol::manifold
