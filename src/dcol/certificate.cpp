// The a-posteriori certificate of a DCOL result (contact.hpp, `certify`): from the primitives'
// definitions (support functions, membership), independent of the cone program's rows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <variant>

#include "diffcol/dcol/contact.hpp"
#include "outside_measure.hpp"

namespace diffcol::dcol {

namespace {


/// outside_measure of the world point p_W in units of the shape's outer radius, less the rounding of
/// world coordinates (4ε·‖p_W‖): a point stored at 1e8 shape sizes from the world origin cannot sit
/// on the surface more closely than that.
double outside_measure(const Primitive& shape, double outer, const Pose& X_WS, const Vec3& p_W) {
  const Vec3 y = X_WS.R.transpose() * (p_W - X_WS.p);
  const double floor = 4.0 * std::numeric_limits<double>::epsilon() * std::max(p_W.norm(), X_WS.p.norm());
  return (std::visit([&](const auto& s) { return diffcol::detail::outside_measure(s, y); }, shape) - floor) / outer;
}

/// h(u) = max uᵀ(R y) over the shape (about its origin, world axes).
double support_value(const Primitive& shape, const Mat3& R, const Vec3& u) {
  return std::visit([&](const auto& s) { return u.dot(R * s.support(R.transpose() * u)); }, shape);
}

/// Calls f(n) for the outward unit normal n (world axes) of each flat face of a primitive: the
/// separating direction of a face contact, where the dual's normal is least accurate. Of a large
/// polytope (Polytope::large) only the faces within 1e-4 outer radii of the witness point p_W:
/// a face contact's normal is that of a face through the contact point.
template <class F>
void for_each_face_normal(const Primitive& shape, const Pose& X_WS, const Vec3& p_W, F&& f) {
  const Mat3& R = X_WS.R;
  std::visit(
      [&](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Polytope>) {
          if (s.large) {
            const Vec3 y = R.transpose() * (p_W - X_WS.p);
            for (int i = 0; i < s.num_faces; ++i)
              if (s.large->b[i] - s.normal(i).dot(y) <= 1e-4 * s.outer_radius) f(Vec3(R * s.normal(i)));
            return;
          }
          for (int i = 0; i < s.num_faces; ++i) f(Vec3(R * s.normal(i)));
        } else if constexpr (std::is_same_v<T, Cylinder>) {
          f(Vec3(R.col(0)));
          f(Vec3(-R.col(0)));
        } else if constexpr (std::is_same_v<T, Cone>) {
          f(Vec3(R.col(0)));
        } else if constexpr (std::is_same_v<T, PaddedPolygon>) {
          f(Vec3(R.col(2)));
          f(Vec3(-R.col(2)));
        }
      },
      shape);
}


// The dual's separating normal, unnormalized: u ∝ Σ_{rows of body 1} z_i g_i, g_i the rows'
// p-coefficients (stationarity: the same sum over body 2's rows is −u).
Vec3 dual_normal(const ConeKkt& k) {
  Vec3 n = Vec3::Zero();
  const auto add = [&](int i) { n += k.z[i] * Vec3(k.G[i][0], k.G[i][1], k.G[i][2]); };
  for (int i = 0; i < k.orthant_rows[0]; ++i) add(i);
  for (int s = 0; s < k.soc_count; ++s)
    if (k.soc_body[s] == 0)
      for (int r = 0; r < k.soc_dim[s]; ++r) add(k.soc_start[s] + r);
  return n;
}

}  // namespace

Vec3 separating_normal(const ContactResult& result) {
  const ConeKkt& k = result.kkt;
  if (!(result.alpha > 0.0) || k.n < 4 || k.m <= 0) return Vec3::Zero();
  Vec3 n = dual_normal(k);
  const double nn = n.norm();
  if (!(nn > 0.0) || !std::isfinite(nn)) return Vec3::Zero();
  n /= nn;
  // the rows' coefficients are written in the cone program's frame: orient from shape 1 to 2
  if (n.dot(result.X_WS2.p - result.X_WS1.p) < 0.0) n = -n;
  return n;
}

Certificate certify(const Primitive& shape1, const Primitive& shape2, const ContactResult& result) {
  Certificate c;
  const ConeKkt& k = result.kkt;
  const Vec3 r12 = result.X_WS2.p - result.X_WS1.p;
  const double dist = r12.norm();
  if (!(result.alpha > 0.0) || !(dist > 0.0) || k.n < 4 || k.m <= 0) return c;  // nothing to certify
  const Vec3 n = dual_normal(k);
  // α* ≥ uᵀ(r_2 − r_1)/(h_1(u) + h_2(−u)) for every unit u: the ratio of that bound to α, formed in
  // units of the larger outer radius (α̂ = α·ℓ_b/‖r_2 − r_1‖, neither tiny nor huge)
  const double outer1 = outer_radius(shape1), outer2 = outer_radius(shape2);
  const double size = std::max(outer1, outer2);
  const Vec3 r_hat = r12 / dist;
  const double alpha_hat = result.alpha * size / dist;
  double best = -std::numeric_limits<double>::infinity();
  const auto try_direction = [&](const Vec3& u) {
    const double reach =
        (support_value(shape1, result.X_WS1.R, u) + support_value(shape2, result.X_WS2.R, -u)) / size;
    const double ratio = u.dot(r_hat) / (reach * alpha_hat);
    if (reach > 0.0 && std::isfinite(ratio)) best = std::max(best, ratio);
  };
  const double nn = n.norm();
  if (nn > 0.0 && std::isfinite(nn)) try_direction(n / nn);
  const double slack = k.polished ? 0.0 : 10.0 * result.dual_residual;
  if (!(std::abs(1.0 - best) <= kCertificateTolerance + slack)) {
    // a face contact left unpolished: the dual's normal is only as good as the dual residual, the
    // face normals of both shapes are exact there
    Vec3 u_best = nn > 0.0 && std::isfinite(nn) ? Vec3(n / nn) : r_hat;
    double at_best = best;
    const auto keep = [&](const Vec3& u) {
      try_direction(u);
      if (best > at_best) {
        at_best = best;
        u_best = u;
      }
    };
    for_each_face_normal(shape1, result.X_WS1, result.p1_W, keep);
    for_each_face_normal(shape2, result.X_WS2, result.p2_W, [&](const Vec3& m) { keep(-m); });
    // then a compass search on the sphere from the best direction (an edge or rim contact left
    // unpolished has no face normal): steps from 1e-4 rad down to 1e-13
    const Vec3 t1 = u_best.unitOrthogonal(), t2 = u_best.cross(t1);
    for (double step = 1e-4; step > 1e-13 && !(std::abs(1.0 - best) <= kCertificateTolerance + slack);) {
      const Vec3 u0 = u_best;
      for (const Vec3& d : {t1, Vec3(-t1), t2, Vec3(-t2)}) keep((u0 + step * d).normalized());
      if (u_best == u0) step *= 0.25;
    }
  }
  if (std::isfinite(best)) c.bound_gap = std::abs(1.0 - best);
  if (!k.polished && std::isfinite(result.dual_residual)) c.bound_slack = 10.0 * result.dual_residual;
  c.witness_violation = std::max({0.0, outside_measure(shape1, outer1, result.X_WS1, result.p1_W),
                                  outside_measure(shape2, outer2, result.X_WS2, result.p2_W)});
  if (!std::isfinite(c.witness_violation)) c.witness_violation = std::numeric_limits<double>::infinity();
  return c;
}

}  // namespace diffcol::dcol
