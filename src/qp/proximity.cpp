#include "diffcol/qp/proximity.hpp"

#include "core_separation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace diffcol::qp {

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
  out.status = SolveStatus::invalid_input;
}

// φ (20), signed distance, normal and the padded closest points (21)–(22) from the witness points
// and d = p1 − p2 (computed by the caller from body-relative quantities where that is more exact).
void finish(const Vec3& p1, const Vec3& p2, const Vec3& core1_B1, const Vec3& core2_B2, const Vec3& d, double R1,
            double R2, double rho_sum, const ProximityOptions& opt, ProximityResult& out) {
  out.core1_W = p1;
  out.core2_W = p2;
  out.core1_B1 = core1_B1;
  out.core2_B2 = core2_B2;
  const double dist2 = d.squaredNorm();
  const double dist = std::sqrt(dist2);
  out.core_distance = dist;
  out.phi = dist2 - (R1 + R2) * (R1 + R2);
  out.signed_distance = dist - (R1 + R2);
  out.cores_touch = !(dist > opt.core_contact_tolerance * rho_sum);
  if (out.cores_touch) {
    out.normal_W.setZero();
    out.p1_W = p1;
    out.p2_W = p2;
  } else {
    out.normal_W = -d / dist;
    out.p1_W = p1 + R1 * out.normal_W;
    out.p2_W = p2 - R2 * out.normal_W;
  }
}

void finish(const Vec3& p1, const Vec3& p2, const Vec3& core1_B1, const Vec3& core2_B2, double R1, double R2,
            double rho_sum, const ProximityOptions& opt, ProximityResult& out) {
  finish(p1, p2, core1_B1, core2_B2, p1 - p2, R1, R2, rho_sum, opt, out);
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


// The pair's length unit: a power of two (exact rescaling) near the cores' size ρ1 + ρ2, and
// never below 2⁻⁴⁰⁰ of the bodies' separation (keeps the rescaled offsets finite).
template <class S1, class S2>
double pair_unit(const S1& s1, const S2& s2, const Vec3& r12) {
  const double size = std::max(core_radius(s1) + core_radius(s2), std::ldexp(r12.cwiseAbs().maxCoeff(), -400));
  return size > 0.0 ? std::ldexp(1.0, std::ilogb(size)) : 1.0;
}

// Violation of the core constraints by a body-frame witness point, in the pair unit (inv = 1/L).
double core_violation(const Capsule& c, const Vec3& q_B, double inv) {
  const Vec3 e = c.a_B() - c.b_B();
  const double ee = e.squaredNorm();
  if (!(ee > 0.0)) return (q_B - c.b_B()).norm() * inv;
  const double t = e.dot(q_B - c.b_B()) / ee;
  const double off = (q_B - c.core_point_B(std::clamp(t, 0.0, 1.0))).norm();
  return off * inv;
}
double core_violation(const PaddedPolygon& p, const Vec3& q_B, double inv) {
  double v = std::abs(q_B.z()) * inv;
  for (int i = 0; i < p.num_constraints(); ++i)
    v = std::max(v, (p.normal(i).dot(q_B.head<2>()) - p.offset(i)) * inv);
  return v;
}

// max of s(n) over a complete set of separating-axis candidates: the polygon cores' plane normals,
// the cross products of every edge pair, and the in-plane normals face normal × edge (which the
// others lack where the cores lie in one plane). s(n) is a lower bound of the core distance for any
// unit n, and the max is < 0 only if the cores overlap (separating axis theorem): unlike
// best_separating_axis (the penetration measure's, whose edge axes are filtered), a proof either way.
double complete_separation(const detail::CoreVertices& V1, const detail::CoreVertices& V2) {
  double best = -std::numeric_limits<double>::infinity();
  auto axis = [&](const Vec3& a) {
    const double len = a.norm();
    if (!(len > 0.0)) return;
    best = std::max({best, detail::separation(V1, V2, a / len), detail::separation(V1, V2, -a / len)});
  };
  for (const detail::CoreVertices* f : {&V1, &V2}) {
    if (!f->polygon) continue;
    axis(f->face_normal);
    for (const detail::CoreVertices* c : {&V1, &V2})
      for (int k = 0; k < c->edge_count(); ++k) axis(f->face_normal.cross(c->v[c->edge_end(k)] - c->v[k]));
  }
  for (int i = 0; i < V1.edge_count(); ++i)
    for (int k = 0; k < V2.edge_count(); ++k)
      axis((V1.v[V1.edge_end(i)] - V1.v[i]).cross(V2.v[V2.edge_end(k)] - V2.v[k]));
  return best;
}

// A posteriori certificate of a proximity answer (pair unit L, origin at body 2):
//  - the witness points lie in their cores (to certificate_tolerance);
//  - the core distance is within certificate_tolerance·(1 + dist) of a lower bound: s(n) of
//    core_separation.hpp along the witnesses' normal (the QP's dual bound at ν = p1 − p2), and
//    where that is not enough (nearly touching cores: n is only known to ε/dist) the separating axes:
//    the max over a complete set of axes, which must then agree with the answer (no certified
//    separation beyond it; no overlap of the cores under a distance beyond the tolerance).
// Returns whether it holds; sets out.core_distance_lower_bound and, where the separating axes were
// consulted, *overlap: whether they prove the cores overlapping.
template <class S1, class S2>
bool certify_in_unit(const S1& s1, const Pose& X1, const S2& s2, const Pose& X2, double L, const ProximityOptions& opt,
             ProximityResult& out, bool* overlap = nullptr) {
  const double inv = 1.0 / L;
  const double tol = opt.certificate_tolerance;
  const double viol = std::max(core_violation(s1, out.core1_B1, inv), core_violation(s2, out.core2_B2, inv));
  const Vec3 w1 = X1.R * (out.core1_B1 * inv) + (X1.p - X2.p) * inv;
  const Vec3 w2 = X2.R * (out.core2_B2 * inv);
  if (out.penetration) {  // overlapping cores: the reported axis must give the reported signed core distance
    const detail::CoreVertices V1 = detail::core_vertices(s1, X1, X2.p, inv);
    const detail::CoreVertices V2 = detail::core_vertices(s2, X2, X2.p, inv);
    const double s_rep = (out.signed_distance + s1.radius() + s2.radius()) * inv;
    out.core_distance_lower_bound = 0.0;
    return viol <= tol && std::abs(out.normal_W.norm() - 1.0) <= tol &&
           std::abs(detail::separation(V1, V2, out.normal_W) - s_rep) <= tol &&
           ((w2 - w1) - s_rep * out.normal_W).norm() <= tol;
  }
  const Vec3 d = w2 - w1;
  const double dist = d.norm();
  double lb = 0.0;
  // Rounding of n = d/dist tilts the bound by ~ε/dist per unit of core size.
  const double allowed = tol * (1.0 + dist) + 8.0 * std::numeric_limits<double>::epsilon() / std::max(dist, 1e-300);
  bool consistent = true;
  if (dist > 0.0) {
    const detail::CoreVertices V1 = detail::core_vertices(s1, X1, X2.p, inv);
    const detail::CoreVertices V2 = detail::core_vertices(s2, X2, X2.p, inv);
    const Vec3 n = d / dist;
    lb = dist - detail::support_gap1(V1, n, w1) - detail::support_gap2(V2, n, w2);
    if (!out.cores_touch && dist - lb > tol * (1.0 + dist)) {  // touching cores: the penetration measure checks
      // Only the rounding allowance (large where dist is tiny: n = d/dist is then ill-determined)
      // would accept the answer: the separating axes must agree with it. A certified separation
      // beyond dist, or overlapping cores (max s < 0) under a distance beyond the tolerance,
      // refutes it.
      const double sat = complete_separation(V1, V2);
      lb = std::max(lb, sat);
      const bool overlapping = sat < -tol;
      consistent = sat <= dist + tol * (1.0 + dist) && !(overlapping && dist > tol);
      if (overlap != nullptr) *overlap = overlapping;
    }
  }
  lb = std::clamp(lb, 0.0, dist);
  out.core_distance_lower_bound = std::min(lb * L, out.core_distance);
  return viol <= tol && consistent && dist - lb <= allowed;
}

// Solves a rescaled polygon-pair QP (x = D·x', lengths in the unit L), maps the solution back,
// certifies it (one refinement with a tighter tolerance if the certificate fails) and, where
// the cores overlap, replaces the flat QP distance by the signed core distance of the best SAT axis.
template <int N, int MaxM, class S1, class S2>
void solve_certified(const S1& s1, const Pose& X1, const S2& s2, const Pose& X2, const QpProblem<N, MaxM>& pb,
                     const Eigen::Matrix<double, 3, N>& F, int k1, const Eigen::Matrix<double, N, 1>& D, double L,
                     const ProximityOptions& opt, ProximityResult& out) {
  const int theta_rows = k1 == 1 ? 2 : 0;  // capsule bounds 0 ≤ θ1 ≤ 1 come first
  auto solve = [&](const QpOptions& qo, ProximityResult& r) {
    QpSolution<N, MaxM> sol;
    solve_qp(pb, qo, sol);
    r.unique_minimizer = record_qp(sol, F, k1, r.qp);
    r.status = sol.status;
    r.length_unit = L;
    r.penetration = false;
    r.axis = PenetrationAxis::none;
    r.axis_edge1 = r.axis_edge2 = -1;
    // Back to the caller's unit: x = D x', S = D S' D / L², λ_i = λ'_i·L²/(row unit).
    r.qp.x.template head<N>() = D.cwiseProduct(sol.x);
    for (int i = 0; i < r.qp.m; ++i) r.qp.lambda(i) *= i < theta_rows ? L * L : L;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) r.qp.S(i, j) *= D(i) * D(j) / (L * L);
    const Eigen::Matrix<double, N, 1> x = r.qp.x.template head<N>();
    Vec3 c1, c2;
    if constexpr (N == 3) {
      c1 = s1.core_point_B(x(0));
      c2 = Vec3(x(1), x(2), 0.0);
    } else {
      c1 = Vec3(x(0), x(1), 0.0);
      c2 = Vec3(x(2), x(3), 0.0);
    }
    const Vec3 d = X1.R * c1 - X2.R * c2 + (X1.p - X2.p);
    finish(X1 * c1, X2 * c2, c1, c2, d, s1.radius(), s2.radius(), core_radius(s1) + core_radius(s2), opt, r);
  };
  solve(opt.qp, out);
  bool overlap = false;  // cores within the tolerance of touching that the separating axes prove overlapping
  if (out.status == SolveStatus::ok && !certify_in_unit(s1, X1, s2, X2, L, opt, out, &overlap)) {
    QpOptions tight = opt.qp;
    tight.tolerance = std::max(1e-3 * tight.tolerance, 1e-15);
    tight.max_iterations = std::max(tight.max_iterations, 200);
    ProximityResult again;
    solve(tight, again);
    bool overlap_again = false;
    const bool ok =
        again.status == SolveStatus::ok && certify_in_unit(s1, X1, s2, X2, L, opt, again, &overlap_again);
    if (ok || (again.status == SolveStatus::ok &&
               again.core_distance - again.core_distance_lower_bound < out.core_distance - out.core_distance_lower_bound)) {
      out = again;
      overlap = overlap_again;
    }
    if (!ok) out.status = SolveStatus::not_certified;
  } else if (out.status != SolveStatus::ok) {
    out.core_distance_lower_bound = 0.0;
  }
  // Within the tolerance of touching but overlapping (the QP's distance is only accurate to its
  // tolerance, above core_contact_tolerance): the penetration measure, as for touching cores.
  if (overlap && out.status == SolveStatus::ok) out.cores_touch = true;
  if (out.cores_touch && (out.status == SolveStatus::ok || out.status == SolveStatus::not_certified)) {
    // Overlapping cores: the QP distance is 0 on a whole region; the signed core distance
    // max_n s(n) (≤ 0: minus the penetration depth of core 1 − core 2) keeps a gradient.
    const double inv = 1.0 / L;
    const Vec3 w1 = X1.R * (out.core1_B1 * inv) + (X1.p - X2.p) * inv, w2 = X2.R * (out.core2_B2 * inv);
    const detail::SeparatingAxis ax = detail::best_separating_axis(
        detail::core_vertices(s1, X1, X2.p, inv), detail::core_vertices(s2, X2, X2.p, inv), &w1, &w2);
    if (ax.kind != detail::AxisKind::none && ax.s > opt.certificate_tolerance) {
      // a separating axis proves the cores apart: the QP's touching answer is refuted
      out.status = SolveStatus::not_certified;
    } else if (ax.kind != detail::AxisKind::none) {
      const double s = std::min(ax.s, 0.0) * L;
      out.core1_W = X2.p + ax.a * L;
      out.core2_W = X2.p + ax.b * L;
      out.core1_B1 = X1.R.transpose() * (ax.a * L + (X2.p - X1.p));
      out.core2_B2 = X2.R.transpose() * (ax.b * L);
      out.normal_W = ax.n;
      out.signed_distance = s - (s1.radius() + s2.radius());
      out.p1_W = out.core1_W + s1.radius() * ax.n;
      out.p2_W = out.core2_W - s2.radius() * ax.n;
      out.unique_minimizer = ax.i >= 0;  // else a coplanar overlap: one common point of many
      out.penetration = true;
      out.axis = ax.kind == detail::AxisKind::face1   ? PenetrationAxis::face1
                 : ax.kind == detail::AxisKind::face2 ? PenetrationAxis::face2
                                                      : PenetrationAxis::edges;
      if (out.axis == PenetrationAxis::edges) {
        out.axis_edge1 = ax.i;
        out.axis_edge2 = ax.j;
      }
    }
  }
}
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
  std::swap(r.core1_W, r.core2_W);
  std::swap(r.core1_B1, r.core2_B2);
  std::swap(r.p1_W, r.p2_W);
  r.normal_W = -r.normal_W;
  if (r.axis == PenetrationAxis::face1)
    r.axis = PenetrationAxis::face2;
  else if (r.axis == PenetrationAxis::face2)
    r.axis = PenetrationAxis::face1;
  std::swap(r.axis_edge1, r.axis_edge2);
}

void ProximityOptions::validate() const {
  qp.validate();
  if (!(core_contact_tolerance >= 0.0 && core_contact_tolerance <= 1e-3))
    throw std::invalid_argument("qp::ProximityOptions: core_contact_tolerance must be in [0, 1e-3]");
  if (!(certificate_tolerance >= 1e-14 && certificate_tolerance <= 1e-3))
    throw std::invalid_argument("qp::ProximityOptions: certificate_tolerance must be in [1e-14, 1e-3]");
}

bool ProximityOptions::is_valid() const noexcept {
  return qp.is_valid() && core_contact_tolerance >= 0.0 && core_contact_tolerance <= 1e-3 &&
         certificate_tolerance >= 1e-14 && certificate_tolerance <= 1e-3;
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
    out.status = SolveStatus::ok;
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
    out.status = sol.status;
  }
  out.length_unit = 1.0;
  out.penetration = false;
  out.axis = PenetrationAxis::none;
  out.axis_edge1 = out.axis_edge2 = -1;
  const double t1 = info.x(0), t2 = info.x(1);
  finish(b1 + t1 * u1, b2 + t2 * u2, s1.core_point_B(t1), s2.core_point_B(t2), s1.radius(), s2.radius(),
         core_radius(s1) + core_radius(s2), opt, out);
  const Vec3 axes = u1.cross(u2);
  const double cn = axes.norm();
  if (out.cores_touch && cn > 1e-6 * u1.norm() * u2.norm()) {  // not (nearly) parallel
    // Crossing axes: the signed distance |n·(p2 − p1)| − (R1 + R2) has a kink; report the side
    // n = ±(u1 × u2)/‖u1 × u2‖ that points from core 1's midpoint towards core 2's, whose
    // one-sided gradient proximity_derivatives returns.
    const Vec3 mid = (b2 + 0.5 * u2) - (b1 + 0.5 * u1);
    out.normal_W = (axes.dot(mid) < 0.0 ? -1.0 : 1.0) * axes / cn;
    out.p1_W = out.core1_W + s1.radius() * out.normal_W;
    out.p2_W = out.core2_W - s2.radius() * out.normal_W;
  }
  out.core_distance_lower_bound = out.ok() ? out.core_distance : 0.0;
}

// ------------------------------------------------------------------- polygon – polygon

void proximity(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
               const ProximityOptions& opt, ProximityResult& out) {
  if (!usable(X_W1, X_W2, opt)) return set_invalid(out);
  // F = [Q̃1, −Q̃2], g = r1 − r2, eq. (31)–(32), in the pair's length unit L: y = L·y'.
  const double L = pair_unit(s1, s2, X_W1.p - X_W2.p), inv = 1.0 / L;
  Eigen::Matrix<double, 3, 4> F;
  F << plane_basis(X_W1), -plane_basis(X_W2);
  const Vec3 g = (X_W1.p - X_W2.p) * inv;
  QpProblem<4, 32> pb;
  pb.P.noalias() = F.transpose() * F;
  pb.c.noalias() = F.transpose() * g;
  const int m1 = s1.num_constraints(), m2 = s2.num_constraints();
  pb.G.setZero(m1 + m2, 4);
  pb.h.resize(m1 + m2);
  for (int i = 0; i < m1; ++i) {
    pb.G.row(i).head<2>() = s1.normal(i).transpose();
    pb.h(i) = s1.offset(i) * inv;
  }
  for (int i = 0; i < m2; ++i) {
    pb.G.row(m1 + i).tail<2>() = s2.normal(i).transpose();
    pb.h(m1 + i) = s2.offset(i) * inv;
  }
  const Eigen::Vector4d D(L, L, L, L);
  solve_certified<4, 32>(s1, X_W1, s2, X_W2, pb, F, 2, D, L, opt, out);
}

// ------------------------------------------------------------------- capsule – polygon

void proximity(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
               const ProximityOptions& opt, ProximityResult& out) {
  if (!usable(X_W1, X_W2, opt)) return set_invalid(out);
  // F = [u1, −Q̃2], g = b1 − r2, eq. (36)–(37), in the pair's length unit L: x = (θ1, L·y2').
  const double L = pair_unit(s1, s2, X_W1.p - X_W2.p), inv = 1.0 / L;
  const Vec3 u1 = X_W1.R * ((s1.a_B() - s1.b_B()) * inv);
  Eigen::Matrix<double, 3, 3> F;
  F << u1, -plane_basis(X_W2);
  const Vec3 g = X_W1.R * (s1.b_B() * inv) + (X_W1.p - X_W2.p) * inv;
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
    pb.h(2 + i) = s2.offset(i) * inv;
  }
  const Eigen::Vector3d D(1.0, L, L);
  solve_certified<3, 18>(s1, X_W1, s2, X_W2, pb, F, 1, D, L, opt, out);
}

void proximity(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2,
               const ProximityOptions& opt, ProximityResult& out) {
  proximity(s2, X_W2, s1, X_W1, opt, out);
  swap_shapes(out);
}

bool certify(const PaddedPolygon& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2,
             ProximityResult& r, const ProximityOptions& opt) {
  if (!usable(X_W1, X_W2, opt) || !r.core1_B1.allFinite() || !r.core2_B2.allFinite()) return false;
  return certify_in_unit(s1, X_W1, s2, X_W2, pair_unit(s1, s2, X_W1.p - X_W2.p), opt, r);
}
bool certify(const Capsule& s1, const Pose& X_W1, const PaddedPolygon& s2, const Pose& X_W2, ProximityResult& r,
             const ProximityOptions& opt) {
  if (!usable(X_W1, X_W2, opt) || !r.core1_B1.allFinite() || !r.core2_B2.allFinite()) return false;
  return certify_in_unit(s1, X_W1, s2, X_W2, pair_unit(s1, s2, X_W1.p - X_W2.p), opt, r);
}
bool certify(const PaddedPolygon& s1, const Pose& X_W1, const Capsule& s2, const Pose& X_W2, ProximityResult& r,
             const ProximityOptions& opt) {
  swap_shapes(r);
  const bool ok = certify(s2, X_W2, s1, X_W1, r, opt);
  swap_shapes(r);
  return ok;
}

}  // namespace diffcol::qp
