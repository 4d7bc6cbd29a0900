// The narrow phase of a scene: one pair solved in its family, its result in the scene's
// vocabulary, and its derivatives as blocks over the two bodies' twists (scene/scene.hpp).
#include <algorithm>
#include <variant>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/dcol/euclidean.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/euclidean.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"
#include "pair_cache.hpp"

namespace diffcol::scene {

namespace {

// Per-thread solver storage (the cone program's is large); pairs write only their own results.
struct Scratch {
  dcol::ContactResult dcol_contact;
  dcol::DistanceResult dcol_distance;
  dcol::ContactDerivatives dcol_derivatives;
  dcol::DistanceDerivatives dcol_distance_derivatives;
  idcol::DistanceResult idcol_distance;
  idcol::ContactDerivatives idcol_derivatives;
  idcol::DistanceDerivatives idcol_distance_derivatives;
  qp::ProximityResult qp_result;
  qp::ProximityDerivatives qp_derivatives;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

template <class A, class B>
void put(RowVec12& J, const A& J1, const B& J2) {
  J.leftCols<6>() = J1;
  J.rightCols<6>() = J2;
}
template <class A, class B>
void put(Mat3x12& J, const A& J1, const B& J2) {
  J.leftCols<6>() = J1;
  J.rightCols<6>() = J2;
}

void clear(PairDerivatives& d, ReferenceFrame frame) {
  d = PairDerivatives{};
  d.frame = frame;
}

void clear(PairResult& r, Family family) {
  const int s1 = r.shape1, s2 = r.shape2, b1 = r.body1, b2 = r.body2;
  r = PairResult{};
  r.shape1 = s1;
  r.shape2 = s2;
  r.body1 = b1;
  r.body2 = b2;
  r.family = family;
}

// Whether the Euclidean distance of a separated iDCOL / DCOL pair is wanted: not when a lower
// bound proves it beyond the margin. At the solution the scaled shapes touch with a separating
// plane of unit normal n (from 1 to 2), so α·(h1(n) + h2(−n)) = nᵀr (h_i the support functions
// about the shape origins, r = r2 − r1) and the plane's gap between the unscaled shapes,
// nᵀr − h1(n) − h2(−n) = (1 − 1/α)·nᵀr, bounds the distance from below. `slack` is the relative
// accuracy of α (the certificate's for DCOL).
bool wants_distance(const PairResult& r, const QueryOptions& o, const Vec3& r12, double slack) {
  if (!(r.ok() && r.separated && o.euclidean && o.margin > 0.0)) return false;
  const double lower = (1.0 - 1.0 / (r.alpha * (1.0 - slack))) * r.normal_W.dot(r12);
  return !(lower >= o.margin);
}

// A Euclidean distance result (iDCOL's or DCOL's) into the record; true where it gave the
// closest points.
template <class E>
bool take_distance(const E& e, PairResult& r) {
  using Status = decltype(e.status);
  if (e.status == Status::separated) {
    r.has_distance = true;
    r.distance = e.distance;
    r.points = PointKind::closest;
    r.p1_W = e.p1_W;
    r.p2_W = e.p2_W;
    r.normal_W = e.normal_W;
    return true;
  }
  if (e.status == Status::touching_or_overlapping) {
    r.has_distance = true;  // closer than the layer's floor: 0, the witness points kept
  } else {
    r.status = SolveStatus::not_converged;
    r.solver_status = status_name(e.status);
  }
  return false;
}

// The distance derivatives (iDCOL's or DCOL's): always the distance row; the points and the
// normal where the closest points are unique.
template <class D>
void take_distance_derivatives(const D& e, PairDerivatives& d) {
  put(d.J_distance, e.J_distance_X1, e.J_distance_X2);
  if (!e.ok()) return;
  put(d.J_p1_W, e.J_p1_W_X1, e.J_p1_W_X2);
  put(d.J_p2_W, e.J_p2_W_X1, e.J_p2_W_X2);
  put(d.J_normal_W, e.J_normal_W_X1, e.J_normal_W_X2);
  d.points = d.normal = true;
}

void solve_idcol(idcol::ContactPair& pair, const Pose& X1, const Pose& X2, const QueryOptions& o, PairResult& r,
                 PairDerivatives* d) {
  Scratch& s = scratch();
  const idcol::ContactSolution& sol = pair.solve(X1, X2);
  r.solver_status = diffcol::status_name(sol.status);
  switch (sol.status) {
    case diffcol::SolveStatus::ok: r.status = SolveStatus::ok; break;
    case diffcol::SolveStatus::coincident_origins: r.status = SolveStatus::coincident_origins; break;
    case diffcol::SolveStatus::invalid_input: r.status = SolveStatus::invalid_input; break;
    default: r.status = SolveStatus::not_converged; break;
  }
  r.has_alpha = r.has_gap = true;
  r.alpha = sol.alpha;
  r.gap = sol.gap;
  r.separated = r.ok() && sol.alpha > 1.0;
  r.p1_W = sol.p1_W;
  r.p2_W = sol.p2_W;
  r.normal_W = sol.normal_W;
  bool closest = false;
  if (wants_distance(r, o, X2.p - X1.p, 1e-8)) {
    idcol::euclidean_distance(pair.shape1(), X1, pair.shape2(), X2, sol, s.idcol_distance);
    closest = take_distance(s.idcol_distance, r);
  }
  if (!d || !r.ok() || !reported(r, o)) return;  // derivatives of the pairs the query returns only
  idcol::contact_derivatives(sol, s.idcol_derivatives);
  const idcol::ContactDerivatives& c = s.idcol_derivatives;
  if (!c.ok()) return;
  d->ok = true;
  put(d->J_alpha, c.J_alpha_X1, c.J_alpha_X2);
  put(d->J_gap, c.J_gap_X1, c.J_gap_X2);
  if (!closest) {
    put(d->J_p1_W, c.J_p1_W_X1, c.J_p1_W_X2);
    put(d->J_p2_W, c.J_p2_W_X1, c.J_p2_W_X2);
    put(d->J_normal_W, c.J_normal_W_X1, c.J_normal_W_X2);
    d->points = d->normal = true;
    return;
  }
  idcol::distance_derivatives(s.idcol_distance, s.idcol_distance_derivatives);
  take_distance_derivatives(s.idcol_distance_derivatives, *d);
}

// h(u) = max uᵀ(y − r) over a DCOL primitive on a body at X (r its shape origin), u world.
double support_value(const dcol::Primitive& p, const Pose& X, const Vec3& u) {
  const Pose X_WS = X * dcol::primitive_offset(p);
  const Vec3 d = X_WS.R.transpose() * u;
  return std::visit([&](const auto& s) { return d.dot(s.support(d)); }, p);
}

// Whether a DCOL pair is proven farther apart than the margin without a solve: along any unit u,
// uᵀ(r2 − r1) − h1(u) − h2(−u) is a lower bound of the distance (a separating plane's gap).
// Tried along the line of the shape origins and along the pair's previous normal.
bool dcol_beyond_margin(const dcol::Primitive& p1, const Pose& X1, const dcol::Primitive& p2, const Pose& X2,
                        const QueryOptions& o, Scene::PairCache& c) {
  const Vec3 r12 = (X2 * dcol::primitive_offset(p2)).p - (X1 * dcol::primitive_offset(p1)).p;
  const double D = r12.norm();
  if (!(D > 0.0) || !std::isfinite(D)) return false;
  const auto beyond = [&](const Vec3& u) {
    return u.dot(r12) - support_value(p1, X1, u) - support_value(p2, X2, Vec3(-u)) >= o.margin;
  };
  if (beyond(r12 / D)) return true;
  return c.has_last_normal && c.last_normal.dot(r12) > 0.0 && beyond(c.last_normal);
}

// Shape 1 and shape 2 exchanged in a record and its derivatives (α, d_D and the distance are
// symmetric; the points swap, the normal turns, the two bodies' columns swap).
void swap_sides(PairResult& r, PairDerivatives* d) {
  std::swap(r.p1_W, r.p2_W);
  r.normal_W = -r.normal_W;
  if (!d) return;
  const auto swap_columns = [](auto& J) {
    const auto left = J.template leftCols<6>().eval();
    J.template leftCols<6>() = J.template rightCols<6>();
    J.template rightCols<6>() = left;
  };
  for (RowVec12* J : {&d->J_alpha, &d->J_gap, &d->J_distance}) swap_columns(*J);
  for (Mat3x12* J : {&d->J_p1_W, &d->J_p2_W, &d->J_normal_W}) swap_columns(*J);
  std::swap(d->J_p1_W, d->J_p2_W);
  d->J_normal_W = -d->J_normal_W;
}

void solve_dcol_ordered(const dcol::Primitive& p1, const Pose& X1, const dcol::Primitive& p2, const Pose& X2,
                        const QueryOptions& o, PairResult& r, PairDerivatives* d);

// The DCOL pair; where the cone program does not converge (max_iterations, numerical_error,
// not_certified), the same pair with the shapes exchanged, which takes other starts and, for a
// large polytope, another face window (a safety net: the case that needed it, a cylinder against
// a 240-face hull whose windows cycled, converges both ways since the windows keep their cuts).
void solve_dcol(const dcol::Primitive& p1, const Pose& X1, const dcol::Primitive& p2, const Pose& X2,
                const QueryOptions& o, PairResult& r, PairDerivatives* d) {
  solve_dcol_ordered(p1, X1, p2, X2, o, r, d);
  const diffcol::SolveStatus first = scratch().dcol_contact.status;
  if (first == diffcol::SolveStatus::ok || first == diffcol::SolveStatus::coincident_origins ||
      first == diffcol::SolveStatus::invalid_input)
    return;
  PairResult other = r;
  PairDerivatives other_d;
  solve_dcol_ordered(p2, X2, p1, X1, o, other, d ? &other_d : nullptr);
  if (scratch().dcol_contact.status != diffcol::SolveStatus::ok) return;  // keep the first failure
  swap_sides(other, d ? &other_d : nullptr);
  r = other;
  if (d) *d = other_d;
}

void solve_dcol_ordered(const dcol::Primitive& p1, const Pose& X1, const dcol::Primitive& p2, const Pose& X2,
                        const QueryOptions& o, PairResult& r, PairDerivatives* d) {
  Scratch& s = scratch();
  dcol::ContactResult& res = s.dcol_contact;
  dcol::solve_contact(p1, X1, p2, X2, res);
  r.solver_status = diffcol::status_name(res.status);
  switch (res.status) {
    case diffcol::SolveStatus::ok: r.status = SolveStatus::ok; break;
    case diffcol::SolveStatus::coincident_origins: r.status = SolveStatus::coincident_origins; break;
    case diffcol::SolveStatus::invalid_input: r.status = SolveStatus::invalid_input; break;
    default: r.status = SolveStatus::not_converged; break;
  }
  r.has_alpha = r.has_gap = true;
  r.alpha = res.alpha;
  r.gap = res.gap;
  r.separated = r.ok() && res.alpha > 1.0;
  r.p1_W = res.p1_W;
  r.p2_W = res.p2_W;
  r.normal_W = dcol::separating_normal(res);
  bool closest = false;
  if (wants_distance(r, o, res.X_WS2.p - res.X_WS1.p, std::max(res.certificate_gap, 1e-12))) {
    s.dcol_distance = dcol::euclidean_distance(p1, X1, p2, X2, res);
    closest = take_distance(s.dcol_distance, r);
  }
  if (!d || !r.ok() || !reported(r, o)) return;
  dcol::contact_derivatives(res, s.dcol_derivatives);
  const dcol::ContactDerivatives& c = s.dcol_derivatives;
  if (!c.ok()) return;
  d->ok = true;
  put(d->J_alpha, c.J_alpha_X1, c.J_alpha_X2);
  put(d->J_gap, c.J_gap_X1, c.J_gap_X2);
  if (!closest) {
    put(d->J_p1_W, c.J_p1_W_X1, c.J_p1_W_X2);
    put(d->J_p2_W, c.J_p2_W_X1, c.J_p2_W_X2);
    d->points = true;
    const dcol::NormalDerivatives nd = dcol::normal_derivatives(res);  // the dual's separating normal
    if (nd.ok()) {
      put(d->J_normal_W, nd.J_normal_W_X1, nd.J_normal_W_X2);
      d->normal = true;
    }
    return;
  }
  dcol::distance_derivatives(s.dcol_distance, s.dcol_distance_derivatives);
  take_distance_derivatives(s.dcol_distance_derivatives, *d);
}

void solve_qp(const CollisionShape& a, const Pose& X1, const CollisionShape& b, const Pose& X2, const QueryOptions& o,
              PairResult& r, PairDerivatives* d) {
  Scratch& s = scratch();
  qp::ProximityResult& res = s.qp_result;
  const auto solve = [&](const auto& s1, const auto& s2) {
    using S1 = std::decay_t<decltype(s1)>;
    using S2 = std::decay_t<decltype(s2)>;
    if constexpr ((std::is_same_v<S1, qp::Capsule> || std::is_same_v<S1, qp::PaddedPolygon>) &&
                  (std::is_same_v<S2, qp::Capsule> || std::is_same_v<S2, qp::PaddedPolygon>)) {
      qp::proximity(s1, X1, s2, X2, qp::ProximityOptions{}, res);
      const bool returned = !(res.signed_distance > 0.0) || res.signed_distance < o.margin;  // as reported()
      if (d && res.ok() && returned) qp::proximity_derivatives(s1, X1, s2, X2, res, s.qp_derivatives);
    }
  };
  std::visit(solve, a.variant(), b.variant());
  r.solver_status = diffcol::status_name(res.status);
  switch (res.status) {
    case diffcol::SolveStatus::ok: r.status = SolveStatus::ok; break;
    case diffcol::SolveStatus::invalid_input: r.status = SolveStatus::invalid_input; break;
    default: r.status = SolveStatus::not_converged; break;
  }
  r.has_distance = true;
  r.distance = res.signed_distance;
  r.separated = r.ok() && res.signed_distance > 0.0;
  r.points = r.separated ? PointKind::closest : PointKind::witness;
  r.p1_W = res.p1_W;
  r.p2_W = res.p2_W;
  r.normal_W = res.normal_W;
  if (!d || !r.ok() || !reported(r, o)) return;
  const qp::ProximityDerivatives& q = s.qp_derivatives;
  using DS = diffcol::DerivativeStatus;
  if (q.status != DS::ok && q.status != DS::non_unique_minimizer) return;
  d->ok = true;
  put(d->J_distance, q.J_signed_distance_X1, q.J_signed_distance_X2);
  if (q.status == DS::ok) {
    put(d->J_p1_W, q.J_p1_W_X1, q.J_p1_W_X2);
    put(d->J_p2_W, q.J_p2_W_X1, q.J_p2_W_X2);
    put(d->J_normal_W, q.J_normal_W_X1, q.J_normal_W_X2);
    d->points = d->normal = true;
  }
}

}  // namespace

Scene::PairCache::PairCache(int a, int b, PairPlan p) : shape1(a), shape2(b), plan(std::move(p)) {
  if (plan.family == Family::idcol) idcol_pair.emplace(plan.shape1.idcol(), plan.shape2.idcol());
}

void Scene::PairCache::solve(const Pose& X_WB1, const Pose& X_BS1, const Pose& X_WB2, const Pose& X_BS2,
                             const QueryOptions& options, PairResult& r, PairDerivatives* d) {
  clear(r, plan.family);
  if (d) clear(*d, options.frame);
  // the poses of the shapes the family solves (a representation's frame R in its shape's S)
  const Pose X1 = X_WB1 * (X_BS1 * plan.X_S1R1);
  const Pose X2 = X_WB2 * (X_BS2 * plan.X_S2R2);
  switch (plan.family) {
    case Family::idcol: solve_idcol(*idcol_pair, X1, X2, options, r, d); break;
    case Family::dcol:
      if (dcol_beyond_margin(plan.shape1.dcol(), X1, plan.shape2.dcol(), X2, options, *this)) {
        // separated by more than the margin: nothing measured (no α, gap or distance), not reported
        r.status = SolveStatus::ok;
        r.solver_status = "ok";
        r.separated = true;
        if (d) clear(*d, options.frame);
        return;
      }
      solve_dcol(plan.shape1.dcol(), X1, plan.shape2.dcol(), X2, options, r, d);
      has_last_normal = r.ok() && r.separated && r.normal_W.allFinite() && r.normal_W.squaredNorm() > 0.5;
      if (has_last_normal) last_normal = r.normal_W.normalized();
      break;
    case Family::qp: solve_qp(plan.shape1, X1, plan.shape2, X2, options, r, d); break;
  }
  if (!d || !d->ok) {
    if (d) clear(*d, options.frame);
    return;
  }
  express_in_frame(*d, options.frame, X_WB1, X_WB2);
}

// The world-twist columns of a shape are those of its body (X_WS = X_WB·X_BS, rigidly attached):
// re-expressed in the requested frame about the body poses.
void express_in_frame(PairDerivatives& d, ReferenceFrame frame, const Pose& X_WB1, const Pose& X_WB2) {
  const auto convert = [&](auto& J) {
    auto left = J.template leftCols<6>();
    auto right = J.template rightCols<6>();
    diffcol::express_in_frame(left, frame, X_WB1);
    diffcol::express_in_frame(right, frame, X_WB2);
  };
  convert(d.J_alpha);
  convert(d.J_gap);
  convert(d.J_distance);
  convert(d.J_p1_W);
  convert(d.J_p2_W);
  convert(d.J_normal_W);
  d.frame = frame;
}

bool reported(const PairResult& r, const QueryOptions& options) {
  if (!r.ok()) return true;  // failures and coincident origins are never dropped
  if (!r.separated) return true;
  if (r.has_distance) return r.distance < options.margin;
  if (r.has_gap) return r.gap < options.margin;
  return false;
}

}  // namespace diffcol::scene
