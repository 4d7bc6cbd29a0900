#include "diffcol/qp/proximity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace diffcol::qp {

const char* status_name(ProximityStatus s) {
  switch (s) {
    case ProximityStatus::ok: return "ok";
    case ProximityStatus::not_converged: return "not_converged";
    case ProximityStatus::solver_failure: return "solver_failure";
    case ProximityStatus::invalid_input: return "invalid_input";
  }
  return "unknown";
}

namespace {

using Mat32 = Eigen::Matrix<double, 3, 2>;

double core_radius(const Capsule& c) { return std::max(c.a_B().norm(), c.b_B().norm()); }
double core_radius(const PaddedPolygon& p) { return p.core_radius(); }

bool usable(const Pose& X_W1, const Pose& X_W2, const ProximityOptions& opt) {
  return X_W1.is_valid() && X_W2.is_valid() && opt.is_valid() &&
         (X_W1.p - X_W2.p).cwiseAbs().maxCoeff() <= kMaxRelativeCoordinate;
}

void set_invalid(ProximityResult& out) {
  out = ProximityResult{};
  out.status = ProximityStatus::invalid_input;
}

// φ (20), signed distance, normal and the padded closest points (21)–(22) from the witness points.
void finish(const Vec3& p1, const Vec3& p2, const Vec3& p1_B1, const Vec3& p2_B2, double R1, double R2,
            double rho_sum, const ProximityOptions& opt, ProximityResult& out) {
  out.p1_W = p1;
  out.p2_W = p2;
  out.p1_B1 = p1_B1;
  out.p2_B2 = p2_B2;
  const Vec3 d = p1 - p2;
  const double dist2 = d.squaredNorm();
  const double dist = std::sqrt(dist2);
  out.core_distance = dist;
  out.phi = dist2 - (R1 + R2) * (R1 + R2);
  out.signed_distance = dist - (R1 + R2);
  out.cores_touch = !(dist > opt.core_contact_tolerance * (1.0 + rho_sum));
  if (out.cores_touch) {
    out.normal_W.setZero();
    out.closest1_W = p1;
    out.closest2_W = p2;
  } else {
    out.normal_W = -d / dist;
    out.closest1_W = p1 + R1 * out.normal_W;
    out.closest2_W = p2 - R2 * out.normal_W;
  }
}

ProximityStatus from_qp(QpStatus s) {
  switch (s) {
    case QpStatus::solved: return ProximityStatus::ok;
    case QpStatus::max_iterations: return ProximityStatus::not_converged;
    case QpStatus::numerical_failure: return ProximityStatus::solver_failure;
    case QpStatus::invalid_input: return ProximityStatus::invalid_input;
  }
  return ProximityStatus::solver_failure;
}

// Copies an interior-point solution into the result's QP record; returns whether the witness
// points are unique (every null direction of the QP leaves both cores' points in place).
template <int N, int MaxM>
bool record_qp(const QpSolution<N, MaxM>& sol, const Eigen::Matrix<double, 3, N>& F, int k1, ProximityQpInfo& info) {
  info.n = N;
  info.m = static_cast<int>(sol.lambda.size());
  info.x.setZero();
  info.x.template head<N>() = sol.x;
  info.lambda.setZero();
  info.lambda.head(info.m) = sol.lambda;
  info.active = sol.active;
  info.iterations = sol.iterations;
  info.interior_point = true;
  info.polished = sol.polished;
  info.S.setZero();
  info.S.template topLeftCorner<N, N>() = sol.S;
  const double Fscale = 1.0 + F.cwiseAbs().maxCoeff();
  for (int j = 0; j < sol.null_count; ++j) {
    const auto z = sol.null_directions.col(j);
    const Vec3 m1 = F.leftCols(k1) * z.head(k1);
    const Vec3 m2 = F.rightCols(N - k1) * z.tail(N - k1);
    if (m1.norm() > 1e-8 * Fscale || m2.norm() > 1e-8 * Fscale) return false;
  }
  return true;
}

// Q̃ = first two columns of R (eq. (29)).
inline Mat32 plane_basis(const Pose& X) { return X.R.leftCols<2>(); }

}  // namespace

Eigen::Vector2d segment_pair_parameters(const Vec3& u1, const Vec3& u2, const Vec3& g) {
  const double a = u1.squaredNorm(), b = u1.dot(u2), e = u2.squaredNorm();
  const double c1 = u1.dot(g), c2 = u2.dot(g);
  auto clamped = [](double num, double den) {  // argmin over [0, 1] of ½·den·t² − num·t
    if (den > 0.0) return std::min(std::max(num / den, 0.0), 1.0);
    return num > 0.0 ? 1.0 : (num < 0.0 ? 0.0 : 0.5);
  };
  auto dist2 = [&](double t1, double t2) { return (g + t1 * u1 - t2 * u2).squaredNorm(); };
  Eigen::Vector2d best(0.0, 0.0);
  double best_d = std::numeric_limits<double>::infinity();
  auto consider = [&](double t1, double t2) {
    const double d = dist2(t1, t2);
    if (d < best_d) best_d = d, best = Eigen::Vector2d(t1, t2);
  };
  // Interior: p2 − p1 ∥ n = u1 × u2, θ1 = ((b2 − b1) × u2)·n/‖n‖², θ2 = ((b2 − b1) × u1)·n/‖n‖².
  const Vec3 n = u1.cross(u2);
  const double nn = n.squaredNorm();
  if (nn > 0.0) {
    const double t1 = (-g).cross(u2).dot(n) / nn, t2 = (-g).cross(u1).dot(n) / nn;
    if (t1 >= 0.0 && t1 <= 1.0 && t2 >= 0.0 && t2 <= 1.0) {
      consider(t1, t2);
      // Nearly parallel lines: θ is only accurate to ε/sin² along the lines; re-solving one
      // parameter for the other (an exact 1-D projection) restores the distance to ε.
      consider(t1, clamped(c2 + t1 * b, e));
      consider(clamped(t2 * b - c1, a), t2);
    }
  }
  // Edges: θ1 fixed (θ2 minimizes ‖g + θ1u1 − θ2u2‖²), then θ2 fixed.
  consider(0.0, clamped(c2, e));
  consider(1.0, clamped(c2 + b, e));
  consider(clamped(-c1, a), 0.0);
  consider(clamped(b - c1, a), 1.0);
  return best;
}

void swap_shapes(ProximityResult& r) {
  std::swap(r.p1_W, r.p2_W);
  std::swap(r.p1_B1, r.p2_B2);
  std::swap(r.closest1_W, r.closest2_W);
  r.normal_W = -r.normal_W;
}

void ProximityOptions::validate() const {
  qp.validate();
  if (!(core_contact_tolerance >= 0.0 && core_contact_tolerance <= 1e-3))
    throw std::invalid_argument("qp::ProximityOptions: core_contact_tolerance must be in [0, 1e-3]");
}

bool ProximityOptions::is_valid() const noexcept {
  return qp.is_valid() && core_contact_tolerance >= 0.0 && core_contact_tolerance <= 1e-3;
}

// ------------------------------------------------------------------- capsule – capsule

void proximity(const Capsule& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
               const ProximityOptions& opt, ProximityResult& out) {
  if (!usable(X_W1, X_W2, opt)) return set_invalid(out);
  // F = [u1, −u2], g = b1 − b2 in world coordinates, eq. (25)–(26).
  const Vec3 u1 = X_W1.R * (s1.a_B() - s1.b_B());
  const Vec3 u2 = X_W2.R * (s2.a_B() - s2.b_B());
  const Vec3 b1 = X_W1 * s1.b_B();
  const Vec3 b2 = X_W2 * s2.b_B();
  const Vec3 g = b1 - b2;
  Eigen::Matrix2d P;
  P << u1.squaredNorm(), -u1.dot(u2), -u1.dot(u2), u2.squaredNorm();
  const Eigen::Vector2d c(u1.dot(g), -u2.dot(g));
  ProximityQpInfo& info = out.qp;
  info.n = 2;
  info.m = 4;
  if (opt.capsule_solver == CapsuleSolver::active_set) {
    // det P = ‖u1 × u2‖² computed without cancellation.
    const Eigen::Vector2d th = segment_pair_parameters(u1, u2, g);
    const BoxQp2Solution box = box_qp_2d_solution_at(P, c, th, u1.cross(u2).squaredNorm());
    info.x << box.x, 0.0, 0.0;
    info.lambda.setZero();
    info.lambda.head<4>() = box.lambda;
    info.active = 0;
    for (int i = 0; i < 2; ++i) {
      if (box.x(i) == 1.0) info.active |= 1u << i;
      if (box.x(i) == 0.0) info.active |= 4u << i;
    }
    info.iterations = 0;
    info.interior_point = false;
    info.polished = false;
    info.S.setZero();
    info.S.topLeftCorner<2, 2>() = box.S;
    out.status = ProximityStatus::ok;
    out.unique_minimizer = box.unique || P(0, 0) == 0.0 || P(1, 1) == 0.0;
  } else {
    QpProblem<2, 4> pb;
    pb.P = P;
    pb.c = c;
    pb.G.resize(4, 2);
    pb.G << 1, 0, 0, 1, -1, 0, 0, -1;
    pb.h.resize(4);
    pb.h << 1, 1, 0, 0;
    QpSolution<2, 4> sol;
    solve_qp(pb, opt.qp, sol);
    Eigen::Matrix<double, 3, 2> F;
    F << u1, -u2;
    out.unique_minimizer = record_qp(sol, F, 1, info);
    out.status = from_qp(sol.status);
  }
  const double t1 = info.x(0), t2 = info.x(1);
  finish(b1 + t1 * u1, b2 + t2 * u2, s1.core_point_B(t1), s2.core_point_B(t2), s1.radius(), s2.radius(),
         core_radius(s1) + core_radius(s2), opt, out);
}

// ------------------------------------------------------------------- polygon – polygon

void proximity(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
               const ProximityOptions& opt, ProximityResult& out) {
  if (!usable(X_W1, X_W2, opt)) return set_invalid(out);
  // F = [Q̃1, −Q̃2], g = r1 − r2, eq. (31)–(32).
  Eigen::Matrix<double, 3, 4> F;
  F << plane_basis(X_W1), -plane_basis(X_W2);
  const Vec3 g = X_W1.p - X_W2.p;
  QpProblem<4, 32> pb;
  pb.P.noalias() = F.transpose() * F;
  pb.c.noalias() = F.transpose() * g;
  const int m1 = s1.num_constraints(), m2 = s2.num_constraints();
  pb.G.setZero(m1 + m2, 4);
  pb.h.resize(m1 + m2);
  for (int i = 0; i < m1; ++i) {
    pb.G.row(i).head<2>() = s1.normal(i).transpose();
    pb.h(i) = s1.offset(i);
  }
  for (int i = 0; i < m2; ++i) {
    pb.G.row(m1 + i).tail<2>() = s2.normal(i).transpose();
    pb.h(m1 + i) = s2.offset(i);
  }
  QpSolution<4, 32> sol;
  solve_qp(pb, opt.qp, sol);
  out.unique_minimizer = record_qp(sol, F, 2, out.qp);
  out.status = from_qp(sol.status);
  const Vec3 c1(sol.x(0), sol.x(1), 0.0), c2(sol.x(2), sol.x(3), 0.0);
  finish(X_W1 * c1, X_W2 * c2, c1, c2, s1.radius(), s2.radius(), core_radius(s1) + core_radius(s2), opt, out);
}

// ------------------------------------------------------------------- capsule – polygon

void proximity(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
               const ProximityOptions& opt, ProximityResult& out) {
  if (!usable(X_W1, X_W2, opt)) return set_invalid(out);
  // F = [u1, −Q̃2], g = b1 − r2, eq. (36)–(37).
  const Vec3 u1 = X_W1.R * (s1.a_B() - s1.b_B());
  const Vec3 b1 = X_W1 * s1.b_B();
  Eigen::Matrix<double, 3, 3> F;
  F << u1, -plane_basis(X_W2);
  const Vec3 g = b1 - X_W2.p;
  QpProblem<3, 18> pb;
  pb.P.noalias() = F.transpose() * F;
  pb.c.noalias() = F.transpose() * g;
  const int m2 = s2.num_constraints();
  pb.G.setZero(2 + m2, 3);
  pb.h.resize(2 + m2);
  pb.G(0, 0) = 1.0;
  pb.G(1, 0) = -1.0;
  pb.h(0) = 1.0;
  pb.h(1) = 0.0;
  for (int i = 0; i < m2; ++i) {
    pb.G.row(2 + i).tail<2>() = s2.normal(i).transpose();
    pb.h(2 + i) = s2.offset(i);
  }
  QpSolution<3, 18> sol;
  solve_qp(pb, opt.qp, sol);
  out.unique_minimizer = record_qp(sol, F, 1, out.qp);
  out.status = from_qp(sol.status);
  const double t1 = sol.x(0);
  const Vec3 c2(sol.x(1), sol.x(2), 0.0);
  finish(b1 + t1 * u1, X_W2 * c2, s1.core_point_B(t1), c2, s1.radius(), s2.radius(),
         core_radius(s1) + core_radius(s2), opt, out);
}

void proximity(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
               const ProximityOptions& opt, ProximityResult& out) {
  proximity(s2, X_W2, s1, X_W1, opt, out);
  swap_shapes(out);
}

}  // namespace diffcol::qp
