// Double API of the witness routines with Jacobians (forward-mode Dual<12>).
#include "diffcol/manifold/witness.hpp"

#include <stdexcept>
#include <string>

namespace diffcol::manifold {

namespace {

using D12 = Dual<12>;

V3<D12> seed(const Eigen::Vector3d& p, int k0, const char* what) {
  if (!p.allFinite()) throw std::invalid_argument(std::string("diffcol::manifold::") + what + ": non-finite point");
  return {D12::variable(p.x(), k0), D12::variable(p.y(), k0 + 1), D12::variable(p.z(), k0 + 2)};
}

V3<double> value(const V3<D12>& a) { return {a.x.v, a.y.v, a.z.v}; }

Eigen::Matrix<double, 3, 12> jacobian(const V3<D12>& a) {
  Eigen::Matrix<double, 3, 12> J;
  J.row(0) = a.x.d.transpose();
  J.row(1) = a.y.d.transpose();
  J.row(2) = a.z.d.transpose();
  return J;
}

}  // namespace

EdgeEdgeWitnessJacobians edge_edge_witness_jacobians(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1,
                                                     const Eigen::Vector3d& b0, const Eigen::Vector3d& b1,
                                                     const WitnessOptions& opt) {
  opt.validate();
  const char* what = "edge_edge_witness_jacobians";
  const EdgeEdgeWitness<D12> w =
      edge_edge_witness(seed(a0, 0, what), seed(a1, 3, what), seed(b0, 6, what), seed(b1, 9, what), opt);
  EdgeEdgeWitnessJacobians out;
  out.witness.alpha1 = w.alpha1.v;
  out.witness.alpha2 = w.alpha2.v;
  out.witness.e1 = value(w.e1);
  out.witness.e2 = value(w.e2);
  out.witness.gamma_con = w.gamma_con.v;
  out.witness.distance = w.distance.v;
  out.witness.normal = value(w.normal);
  out.J_e1_ends = jacobian(w.e1);
  out.J_e2_ends = jacobian(w.e2);
  out.J_normal_ends = jacobian(w.normal);
  out.J_alpha1_ends = w.alpha1.d.transpose();
  out.J_alpha2_ends = w.alpha2.d.transpose();
  out.J_gamma_con_ends = w.gamma_con.d.transpose();
  out.J_distance_ends = w.distance.d.transpose();
  return out;
}

VertexFaceWitnessJacobians vertex_face_witness_jacobians(const Eigen::Vector3d& v, const Eigen::Vector3d& p0,
                                                         const Eigen::Vector3d& p1, const Eigen::Vector3d& p2,
                                                         const WitnessOptions& opt) {
  opt.validate();
  const char* what = "vertex_face_witness_jacobians";
  const VertexFaceWitness<D12> w =
      vertex_face_witness(seed(v, 0, what), seed(p0, 3, what), seed(p1, 6, what), seed(p2, 9, what), opt);
  VertexFaceWitnessJacobians out;
  out.witness.point = value(w.point);
  out.witness.gamma_inside = w.gamma_inside.v;
  out.witness.distance = w.distance.v;
  out.J_point_ends = jacobian(w.point);
  out.J_gamma_inside_ends = w.gamma_inside.d.transpose();
  out.J_distance_ends = w.distance.d.transpose();
  return out;
}

}  // namespace diffcol::manifold
