#pragma once
/// @file witness.hpp
/// Smoothed analytical active-set witness points for edge–edge (E-E) and vertex–face (V-F)
/// pairs (Contax seed, Sec. IV-D1/2 and supplementary III-B/C).
///
/// All points are in one common frame (the caller's, typically world). Templates over the
/// scalar (double or Dual<N>); fixed-size, allocation-free. Every temperature 0 gives the hard
/// ("NS") routine: exact clamp, argmin and comparisons.
///
/// E-E QP (10) with the L2 regularization R = λ[(α1 − ½)² + (α2 − ½)²]:
///   e1(α1) = a0 + α1 (a1 − a0), e2(α2) = b0 + α2 (b1 − b0), A = [a1 − a0, b0 − b1],
///   b = a0 − b0, min ½ αᵀQα + cᵀα s.t. 0 ≤ α ≤ 1 with Q = AᵀA + λI, c = Aᵀb − ½λ·1
///   (½‖e1 − e2‖² + ½R). Active set (IV-D2 (i)–(iv)): unconstrained α^u = −Q⁻¹c; the four
///   box-edge minimizers with soft-clipped free coordinate; soft argmin of their costs;
///   conγ = soft[0 ≤ α^u_1 ≤ 1]·soft[0 ≤ α^u_2 ≤ 1]; α* = conγ α^u + (1 − conγ) α^c.
///
/// Deviations from the printed pseudo-code (typos there, the maths here): the box-edge costs are
/// the full objective at each candidate (the printed cost of the α2 = 0 edge uses the wrong
/// coordinate); the V-F edge projections clip the edge parameter s = (v − p0)ᵀδ/‖δ‖² to [0, 1]
/// (the printed code clips a length against [0, 1]).

#include <cmath>

#include <Eigen/Core>

#include "diffcol/manifold/dual.hpp"
#include "diffcol/math/smooth.hpp"

namespace diffcol::manifold {

/// Temperatures and regularization of the witness routines (all ≥ 0; 0 = hard).
struct WitnessOptions {
  double regularization = 0.01;  ///< λ of R(α1, α2) (units of the QP cost: length²)
  double t_clip = 0.1;           ///< soft clip of the box-edge coordinates (dimensionless α)
  double t_min = 0.1;            ///< soft argmin over the candidate costs (E-E: length², V-F: length)
  double t_comp = 0.1;           ///< soft [0 ≤ α ≤ 1] of the unconstrained minimizer (dimensionless)
  double normal_regularization = 1e-12;  ///< ε of n̄ = Δe/√(‖Δe‖² + ε) (length²)

  /// The non-smoothed routine ("Ours-NS"): all temperatures 0, with the given λ.
  static WitnessOptions hard(double regularization = 0.0) {
    WitnessOptions o;
    o.regularization = regularization;
    o.t_clip = o.t_min = o.t_comp = 0.0;
    return o;
  }
  /// @throws std::invalid_argument if any field is negative or not finite.
  void validate() const {
    smooth::validate_temperature(regularization, "WitnessOptions::regularization");
    smooth::validate_temperature(t_clip, "WitnessOptions::t_clip");
    smooth::validate_temperature(t_min, "WitnessOptions::t_min");
    smooth::validate_temperature(t_comp, "WitnessOptions::t_comp");
    smooth::validate_temperature(normal_regularization, "WitnessOptions::normal_regularization");
  }
};

/// The witness points of an edge pair.
template <class T>
struct EdgeEdgeWitness {
  T alpha1{}, alpha2{};  ///< α* ∈ [0, 1]² (the edge parameters)
  V3<T> e1, e2;          ///< witness points e1(α1*), e2(α2*)
  T gamma_con{};         ///< conγ: soft indicator that the pair is "colliding" (α^u inside the box)
  T distance{};          ///< unsigned distance d̄ = ‖e1 − e2‖
  V3<T> normal;          ///< unsigned normal n̄ = (e1 − e2)/√(‖e1 − e2‖² + ε), from edge 2 to edge 1
};

/// The witness point of a vertex against a triangle.
template <class T>
struct VertexFaceWitness {
  V3<T> point;         ///< witness point on the triangle
  T gamma_inside{};    ///< soft indicator that the plane projection lies inside the triangle
  T distance{};        ///< ‖v − point‖
};

namespace detail {

/// ½ αᵀQα + cᵀα.
template <class T>
T qp_cost(const T& Q1, const T& Q2, const T& Q3, const T& c1, const T& c2, const T& x1, const T& x2) {
  return 0.5 * (Q1 * x1 * x1 + 2.0 * Q2 * x1 * x2 + Q3 * x2 * x2) + c1 * x1 + c2 * x2;
}

/// max(x, floor) on the value (guards divisions by the diagonal of a degenerate QP).
template <class T>
T floor_value(const T& x, double floor) {
  return value_of(x) < floor ? T(floor) : x;
}

}  // namespace detail

/// Smoothed analytical active-set solve of the 2×2 box QP min ½xᵀQx + cᵀx, 0 ≤ x ≤ 1
/// (supplementary III-B, solve_2by2_bqp). Q = [[Q1, Q2], [Q2, Q3]] positive semi-definite.
/// Where Q is (numerically) singular the unconstrained minimizer does not exist: conγ = 0 and
/// the box-edge solution is returned (its limit). Zero diagonal entries are floored at 1e-300.
/// @param gamma_con receives conγ. Preconditions: options validated.
template <class T>
void solve_box_qp_2x2(const T& Q1_in, const T& Q2, const T& Q3_in, const T& c1, const T& c2,
                      const WitnessOptions& opt, T& x1, T& x2, T& gamma_con) {
  namespace k = smooth::kernel;
  const T Q1 = detail::floor_value(Q1_in, 1e-300);
  const T Q3 = detail::floor_value(Q3_in, 1e-300);
  // (i) unconstrained minimizer −Q⁻¹c.
  const T det = Q1 * Q3 - Q2 * Q2;
  const bool singular = !(value_of(det) > 1e-12 * value_of(Q1) * value_of(Q3));
  T xu1(0.0), xu2(0.0);
  if (!singular) {
    xu1 = (Q2 * c2 - Q3 * c1) / det;
    xu2 = (Q2 * c1 - Q1 * c2) / det;
  }
  // (ii) minimizers along the four box edges, free coordinate soft-clipped.
  T cand1[4], cand2[4];
  cand1[0] = T(1.0);
  cand2[0] = k::soft_clip<T>(-(Q2 + c2) / Q3, 0.0, 1.0, opt.t_clip);  // x1 = 1
  cand1[1] = T(0.0);
  cand2[1] = k::soft_clip<T>(-c2 / Q3, 0.0, 1.0, opt.t_clip);         // x1 = 0
  cand1[2] = k::soft_clip<T>(-(Q2 + c1) / Q1, 0.0, 1.0, opt.t_clip);  // x2 = 1
  cand2[2] = T(1.0);
  cand1[3] = k::soft_clip<T>(-c1 / Q1, 0.0, 1.0, opt.t_clip);         // x2 = 0
  cand2[3] = T(0.0);
  T cost[4], w[4];
  for (int i = 0; i < 4; ++i) cost[i] = detail::qp_cost(Q1, Q2, Q3, c1, c2, cand1[i], cand2[i]);
  k::softmin<T>(cost, 4, opt.t_min, w);
  T xc1(0.0), xc2(0.0);
  for (int i = 0; i < 4; ++i) {
    xc1 = xc1 + w[i] * cand1[i];
    xc2 = xc2 + w[i] * cand2[i];
  }
  // (iii) conγ = soft[0 ≤ x^u ≤ 1] for both coordinates; (iv) blend.
  const T inside = singular ? T(0.0)
                            : k::soft_within<T>(xu1, 0.0, 1.0, opt.t_comp) *
                                  k::soft_within<T>(xu2, 0.0, 1.0, opt.t_comp);
  gamma_con = inside;
  x1 = inside * xu1 + (1.0 - inside) * xc1;
  x2 = inside * xu2 + (1.0 - inside) * xc2;
}

/// E-E witness points (IV-D2, eq. (10) with L2 regularization) of edges a0–a1 and b0–b1.
/// Preconditions: options validated (WitnessOptions::validate), finite inputs.
template <class T>
EdgeEdgeWitness<T> edge_edge_witness(const V3<T>& a0, const V3<T>& a1, const V3<T>& b0, const V3<T>& b1,
                                     const WitnessOptions& opt) {
  using std::sqrt;
  const V3<T> A1 = a1 - a0;  // columns of A
  const V3<T> A2 = b0 - b1;
  const V3<T> bb = a0 - b0;
  const double lam = opt.regularization;
  const T Q1 = dot(A1, A1) + lam, Q2 = dot(A1, A2), Q3 = dot(A2, A2) + lam;
  const T c1 = dot(A1, bb) - 0.5 * lam, c2 = dot(A2, bb) - 0.5 * lam;
  EdgeEdgeWitness<T> out;
  solve_box_qp_2x2(Q1, Q2, Q3, c1, c2, opt, out.alpha1, out.alpha2, out.gamma_con);
  out.e1 = a0 + out.alpha1 * A1;
  out.e2 = b0 + out.alpha2 * (b1 - b0);
  const V3<T> de = out.e1 - out.e2;
  const T d2 = squared_norm(de);
  out.distance = value_of(d2) > 0.0 ? sqrt(d2) : T(0.0);
  const T den2 = d2 + opt.normal_regularization;
  out.normal = value_of(den2) > 0.0 ? (T(1.0) / sqrt(den2)) * de : V3<T>(T(0.0), T(0.0), T(0.0));
  return out;
}

/// V-F witness point of vertex v on triangle (p0, p1, p2) (supplementary III-C, V_T_proj_s):
/// soft argmin (t_min, a length) over the three soft-clipped edge projections, blended with the
/// plane projection by the soft inside test of its barycentric coordinates (t_comp).
/// `regularization` is unused. A degenerate (zero-area) triangle uses the edge candidates only.
/// Preconditions: options validated, finite inputs.
template <class T>
VertexFaceWitness<T> vertex_face_witness(const V3<T>& v, const V3<T>& p0, const V3<T>& p1, const V3<T>& p2,
                                         const WitnessOptions& opt) {
  namespace k = smooth::kernel;
  using std::sqrt;
  const V3<T> corners[3] = {p0, p1, p2};
  T dist[3], w[3];
  V3<T> proj[3];
  for (int i = 0; i < 3; ++i) {
    const V3<T>& s = corners[i];
    const V3<T> delta = corners[(i + 1) % 3] - s;
    const T len2 = detail::floor_value(squared_norm(delta), 1e-300);
    const T param = k::soft_clip<T>(dot(v - s, delta) / len2, 0.0, 1.0, opt.t_clip);
    proj[i] = s + param * delta;
    const T d2 = squared_norm(v - proj[i]);
    dist[i] = value_of(d2) > 0.0 ? sqrt(d2) : T(0.0);
  }
  k::softmin<T>(dist, 3, opt.t_min, w);
  V3<T> pc = (w[0]) * proj[0] + (w[1]) * proj[1] + (w[2]) * proj[2];
  // Plane projection and its barycentric coordinates.
  const V3<T> d10 = p1 - p0, d20 = p2 - p0;
  const V3<T> nb = cross(d10, d20);
  const T nb2 = squared_norm(nb);
  VertexFaceWitness<T> out;
  T inside(0.0);
  V3<T> pu = pc;
  if (value_of(nb2) > 1e-24 * value_of(squared_norm(d10)) * value_of(squared_norm(d20))) {
    const V3<T> dv = v - p0;
    const V3<T> dp = dv - (dot(dv, nb) / nb2) * nb;
    pu = p0 + dp;
    const T beta1 = dot(cross(dp, d20), nb) / nb2;
    const T beta2 = dot(cross(d10, dp), nb) / nb2;
    const T beta0 = 1.0 - beta1 - beta2;
    inside = k::soft_within<T>(beta0, 0.0, 1.0, opt.t_comp) * k::soft_within<T>(beta1, 0.0, 1.0, opt.t_comp) *
             k::soft_within<T>(beta2, 0.0, 1.0, opt.t_comp);
  }
  out.gamma_inside = inside;
  out.point = inside * pu + (1.0 - inside) * pc;
  const T d2 = squared_norm(v - out.point);
  out.distance = value_of(d2) > 0.0 ? sqrt(d2) : T(0.0);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Double API with Jacobians (validates the options; computed with Dual<12>).
// Column layout of every Jacobian: the 12 end-point coordinates [p0 p1 p2 p3] (x, y, z each),
// i.e. E-E: [a0 a1 b0 b1], V-F: [v p0 p1 p2].
// ---------------------------------------------------------------------------------------------

/// The E-E witness and its derivatives w.r.t. the end points.
struct EdgeEdgeWitnessJacobians {
  EdgeEdgeWitness<double> witness;
  Eigen::Matrix<double, 3, 12> J_e1_ends, J_e2_ends, J_normal_ends;
  Eigen::Matrix<double, 1, 12> J_alpha1_ends, J_alpha2_ends, J_gamma_con_ends, J_distance_ends;
};

/// edge_edge_witness with Jacobians. @throws std::invalid_argument on invalid options or
/// non-finite points.
EdgeEdgeWitnessJacobians edge_edge_witness_jacobians(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1,
                                                     const Eigen::Vector3d& b0, const Eigen::Vector3d& b1,
                                                     const WitnessOptions& opt = WitnessOptions{});

/// The V-F witness and its derivatives w.r.t. the vertex and the triangle corners.
struct VertexFaceWitnessJacobians {
  VertexFaceWitness<double> witness;
  Eigen::Matrix<double, 3, 12> J_point_ends;
  Eigen::Matrix<double, 1, 12> J_gamma_inside_ends, J_distance_ends;
};

/// vertex_face_witness with Jacobians. @throws std::invalid_argument on invalid options or
/// non-finite points.
VertexFaceWitnessJacobians vertex_face_witness_jacobians(const Eigen::Vector3d& v, const Eigen::Vector3d& p0,
                                                         const Eigen::Vector3d& p1, const Eigen::Vector3d& p2,
                                                         const WitnessOptions& opt = WitnessOptions{});

}  // namespace diffcol::manifold
