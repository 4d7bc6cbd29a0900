// A property-based sweep of the SSDF layer's queries (include/diffcol/ssdf/ssdf.hpp): random
// oriented point clouds (raw clouds on ellipsoids, with tilted normals, and clouds sampled from
// box and sphere meshes by make_aopc) of sizes 1e-6 … 1e6, at poses up to 1e3 sizes from the
// origin, overlapping or 10 … 1e6 sizes apart, with temperatures from the hard limit (0) to a few
// point spacings.
//
// SSDF queries (eq. (9)) at points 1e-3 … 1e8 sizes from a cloud: the value and gradient against a
// long-double brute-force evaluation of the softmax (logits as exact differences), the world-frame
// query against the body-frame one, every length × 1e-3 and × 1e3 (eps1 × 1e-6 and × 1e6), and
// the pose Jacobian J_phi_X against central differences. Smooth separation distances (eq. (11)):
// against a brute-force field and softmin, the same with the clouds swapped (Jacobian columns
// swapped), every length scaled, the whole scene moved by a rigid transform, and J_distance_X
// against central differences (body twists, X·exp(ξ)). Collision points (eqs. (12)–(13)): finite,
// inside the vertices' bounding box, unchanged (up to the motion) by a rigid transform of the
// scene, by the unit of length and by swapping the clouds, and J_points against central
// differences.
//
// Failures are counted by class (printed) and the first few described; what cannot be compared
// (kinks, ties of hard operators) is counted apart and printed. Environment:
// DIFFCOL_SSDF_FUZZ_SAMPLES (default 1000: a few seconds; 1e5 for the long run), _SEED (default
// 8101), _FIRST (start at that sample: _FIRST=k _SAMPLES=k+1 reruns sample k alone),
// DIFFCOL_FUZZ_VERBOSE (describe every failure).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "diffcol/math/se3.hpp"
#include "diffcol/math/smooth.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/ssdf.hpp"

#include "property_sweep.hpp"
#include "test_util.hpp"

namespace ssdf_properties_test {

namespace ssdf = diffcol::ssdf;
using diffcol::Mat3;
using diffcol::Pose;
using diffcol::Vec3;
using diffcol::Vec6;
using diffcol::ReferenceFrame;
using diffcol::test::FailureCounts;
using diffcol::test::make_pose;
using diffcol::test::SweepSettings;
using namespace diffcol::test::sweep;
using LD = long double;
using V3L = Eigen::Matrix<LD, 3, 1>;

constexpr double kEps = 2.220446049250313e-16;

/// A random cloud at unit size; build(f) is the same cloud with every length × f.
struct CloudSpec {
  int kind = 0;  // 0 ellipsoid, 1 ellipsoid with tilted normals, 2 make_aopc of a box, 3 make_aopc of a sphere
  std::vector<Vec3> points, normals, vertices;
  std::vector<std::array<int, 3>> point_vertices;
  double spacing = 0.0;  // mean nearest-neighbour distance at unit size

  ssdf::OrientedPointCloud build(double f) const {
    std::vector<Vec3> p = points, v = vertices;
    for (Vec3& x : p) x *= f;
    for (Vec3& x : v) x *= f;
    return ssdf::OrientedPointCloud(p, normals, v, point_vertices);
  }
  std::string describe() const {
    const char* names[] = {"ellipsoid cloud", "ellipsoid cloud with tilted normals", "make_aopc box", "make_aopc sphere"};
    std::ostringstream o;
    o.precision(17);
    o << names[kind] << " (" << points.size() << " points, " << vertices.size() << " vertices, spacing " << spacing << ")";
    return o.str();
  }
};

/// A random cloud; false where make_aopc refused it (a coarse cloud of a thin shape whose far sign
/// it cannot guarantee, aopc.hpp): then redrawn.
bool random_cloud(Rng& rng, CloudSpec& c) {
  c = CloudSpec{};
  c.kind = static_cast<int>(rng() % 4);
  Vec3 semi;
  for (int i = 0; i < 3; ++i) semi[i] = std::pow(10.0, uniform(rng, -0.5, 0.0));
  if (c.kind <= 1) {
    const int n = 4 + static_cast<int>(rng() % 57);
    for (int i = 0; i < n; ++i) {
      const Vec3 u = direction(rng);
      c.points.push_back(u.cwiseProduct(semi));
      Vec3 nrm = u.cwiseQuotient(semi).normalized();
      if (c.kind == 1) nrm = (nrm + 0.5 * direction(rng)).normalized();
      c.normals.push_back(nrm);
      c.vertices.push_back(c.points.back());
      c.point_vertices.push_back({i, -1, -1});
    }
  } else {
    ssdf::AopcOptions o;
    o.num_points = 20 + static_cast<int>(rng() % 41);
    o.seed = rng();
    const diffcol::mesh::TriangleMesh m =
        c.kind == 2 ? diffcol::mesh::make_box(2.0 * semi) : diffcol::mesh::make_icosphere(semi.maxCoeff(), 2);
    try {
      const ssdf::OrientedPointCloud a = ssdf::make_aopc(m, o);
      c.points = a.points();
      c.normals = a.normals();
      c.vertices = a.vertices();
      c.point_vertices = a.point_vertices();
    } catch (const std::invalid_argument&) {
      return false;
    }
  }
  c.spacing = c.build(1.0).mean_spacing();
  return true;
}

// ------------------------------------------------------------------ brute-force references

/// The SSDF (9) and its gradient in long double: weights softmax(−‖q − p_i‖²/eps1) with the
/// logits as exact differences to point 0's, −(p_0 − p_i)ᵀ(2q − p_i − p_0)/eps1; eps1 = 0: the
/// plane of the nearest point (the first of equal ones).
struct SsdfRef {
  LD value = 0;
  V3L gradient = V3L::Zero();
};
SsdfRef ssdf_reference(const std::vector<Vec3>& P, const std::vector<Vec3>& N, const Vec3& qd, LD eps1) {
  const size_t n = P.size();
  const V3L q = qd.cast<LD>(), p0 = P[0].cast<LD>();
  std::vector<LD> a(n);
  LD amax = -std::numeric_limits<LD>::infinity();
  size_t arg = 0;
  for (size_t i = 0; i < n; ++i) {
    const V3L p = P[i].cast<LD>();
    a[i] = -(p0 - p).dot(2 * q - p - p0);  // −(‖q − p_i‖² − ‖q − p_0‖²)
    if (a[i] > amax) amax = a[i], arg = i;
  }
  SsdfRef r;
  if (eps1 == 0) {
    const V3L nn = N[arg].cast<LD>().normalized();
    r.value = nn.dot(q - P[arg].cast<LD>());
    r.gradient = nn;
    return r;
  }
  LD sw = 0, sws = 0;
  V3L swn = V3L::Zero(), swp = V3L::Zero(), swsp = V3L::Zero();
  for (size_t i = 0; i < n; ++i) {
    const LD w = std::exp((a[i] - amax) / eps1);
    const V3L nn = N[i].cast<LD>().normalized(), pc = P[i].cast<LD>() - p0;
    const LD s = nn.dot(q - P[i].cast<LD>());
    sw += w;
    sws += w * s;
    swn += w * nn;
    swp += w * pc;
    swsp += w * s * pc;
  }
  r.value = sws / sw;
  // ∇φ = Σw n/Σw + Σw (s_i − φ)∇ℓ_i/Σw with ∇ℓ_i = 2(p_i − p_0)/eps1 (the common part cancels)
  r.gradient = swn / sw + (2 / eps1) * (swsp - r.value * swp) / sw;
  return r;
}

/// Brute-force separation: Φ (body-1 points in cloud 2, then body-2 points in cloud 1, with the
/// relative poses in long double), softmin weights and distance, and the sensitivity Σ|∂d/∂Φ_f|.
struct SeparationRef {
  LD distance = 0;
  LD sensitivity = 0;
  LD slope = 0;  // largest ‖∇φ‖ of a field entry
};
SeparationRef separation_reference(const CloudSpec& a, const CloudSpec& b, double f, const Pose& X1, const Pose& X2,
                                   LD eps1, LD eps2) {
  using M3L = Eigen::Matrix<LD, 3, 3>;
  const M3L R1 = X1.R.cast<LD>(), R2 = X2.R.cast<LD>();
  const V3L p1 = X1.p.cast<LD>(), p2 = X2.p.cast<LD>();
  std::vector<LD> phi;
  SeparationRef r;
  const auto field = [&](const CloudSpec& owner, const M3L& Ro, const V3L& po, const CloudSpec& other, const M3L& Rt,
                         const V3L& pt) {
    std::vector<Vec3> P = owner.points;
    for (Vec3& x : P) x *= f;
    for (const Vec3& x : other.points) {
      const V3L w = Rt * (f * x.cast<LD>()) + pt;
      const V3L q = Ro.transpose() * (w - po);
      const SsdfRef s = ssdf_reference(P, owner.normals, q.cast<double>(), eps1);
      // the reference at the double-rounded q: add the first-order correction
      const LD corr = s.gradient.dot(q - q.cast<double>().cast<LD>());
      phi.push_back(s.value + corr);
      r.slope = std::max(r.slope, s.gradient.norm());
    }
  };
  field(b, R2, p2, a, R1, p1);
  field(a, R1, p1, b, R2, p2);
  LD m = phi[0];
  for (LD v : phi) m = std::min(m, v);
  if (eps2 == 0) {
    r.distance = m;
    r.sensitivity = 1;
    return r;
  }
  LD sw = 0, swp = 0;
  std::vector<LD> w(phi.size());
  for (size_t i = 0; i < phi.size(); ++i) {
    w[i] = std::exp(-(phi[i] - m) / eps2);
    sw += w[i];
    swp += w[i] * phi[i];
  }
  r.distance = swp / sw;
  for (size_t i = 0; i < phi.size(); ++i) r.sensitivity += std::fabs(w[i] / sw * (1 - (phi[i] - r.distance) / eps2));
  return r;
}

bool finite(const ssdf::Separation& s) { return std::isfinite(s.distance) && s.J_distance_X.allFinite(); }

TEST(SsdfProperties, RandomCloudsQueriesSeparationAndCollisionPoints) {
  const SweepSettings set("DIFFCOL_SSDF_FUZZ", 1000, 8101);
  FailureCounts fails(set.verbose);
  ssdf::SsdfWorkspace ws;
  double worst[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  enum { kQuery, kQueryUnit, kQueryFrame, kSeparation, kSeparationInvariance, kPoints, kDerivative, kQueryGradient };
  for (long t = set.first; t < set.samples; ++t) {
    Rng rng = set.generator(t);
    CloudSpec A, B;
    while (!random_cloud(rng, A)) fails.note("clouds redrawn (make_aopc refused a coarse cloud)");
    while (!random_cloud(rng, B)) fails.note("clouds redrawn (make_aopc refused a coarse cloud)");
    const double f = log_uniform(rng, -6.0, 6.0);
    const double spacing = f * std::max(A.spacing, B.spacing);
    const double eps1 = rng() % 8 == 0 ? 0.0 : std::pow(spacing * log_uniform(rng, -1.0, 0.5), 2);
    const double eps2 = rng() % 8 == 0 ? 0.0 : f * log_uniform(rng, -3.0, -1.0);
    const double t_topk = rng() % 8 == 0 ? 0.0 : log_uniform(rng, -3.0, -1.0);
    const bool aligned = rng() % 4 == 0;
    const auto turn = [&] { return aligned ? axis_rotation(rng) : rotation(rng); };
    const auto away = [&] { return aligned ? axis_direction(rng) : direction(rng); };
    const Pose X1 = make_pose(turn(), f * log_uniform(rng, -2.0, 3.0) * away());
    const double gap = rng() % 4 == 0 ? log_uniform(rng, 1.0, 6.0) : uniform(rng, 0.0, 2.0);
    const Pose X2 = make_pose(turn(), X1.p + f * gap * away());
    const ssdf::OrientedPointCloud c1 = A.build(f), c2 = B.build(f);
    const auto at = [&] {
      std::ostringstream o;
      o.precision(17);
      o << "cloud 1 " << A.describe() << " at " << pose(X1) << "; cloud 2 " << B.describe() << " at " << pose(X2)
        << "; unit " << f << ", eps1 " << eps1 << ", eps2 " << eps2 << ", top-K temperature " << t_topk
        << (aligned ? ", axis-aligned" : "") << ", sample " << t;
      return o.str();
    };
    fails.note("samples");

    // ---------------------------------------------------------------- SSDF queries (cloud 1)
    const double radius = c1.bounds().radius;
    for (int k = 0; k < 4; ++k) {
      Vec3 q;
      if (k == 0) {  // near a point of the cloud
        const size_t i = rng() % A.points.size();
        q = c1.points()[i] + f * log_uniform(rng, -4.0, -0.5) * direction(rng);
      } else {
        q = c1.bounds().center + radius * log_uniform(rng, -3.0, 8.0) * direction(rng);
      }
      Vec3 g;
      const double phi = ssdf::soft_signed_distance(c1, q, eps1, ws, &g);
      fails.note("queries");
      const auto where = [&] {
        std::ostringstream o;
        o.precision(17);
        o << "query " << vec(q) << " (" << (q - c1.bounds().center).norm() / radius << " radii): phi " << phi
          << " gradient " << vec(g) << "; " << at();
        return o.str();
      };
      if (!std::isfinite(phi) || !g.allFinite()) {
        fails.report("non-finite query", where());
        continue;
      }
      const SsdfRef ref = ssdf_reference(c1.points(), c1.normals(), q, eps1);
      // conditioning: the query rounded by ρ moves the reference by up to ‖∇φ‖ρ (and its gradient
      // by how much it turns there: three random directions); the code's own rounding: each
      // logit carries ε·|logit| (plain: ‖q − p‖²/eps1 within 16 radii; beyond, relative to the
      // centre: ‖q − c‖·r/eps1), which moves φ by that times the spread of the plane distances
      const double dist = (q - c1.bounds().center).norm() + radius;
      const double rho = 16.0 * kEps * (q.norm() + dist);
      double dvalue = 0.0, dgrad = 0.0;
      for (int j = 0; j < 3; ++j) {
        const SsdfRef p = ssdf_reference(c1.points(), c1.normals(), q + rho * direction(rng), eps1);
        dvalue = std::max(dvalue, static_cast<double>(std::fabs(p.value - ref.value)));
        dgrad = std::max(dgrad, static_cast<double>((p.gradient - ref.gradient).norm()));
      }
      const bool far = c1.bounds().far(q);
      const double logit = eps1 > 0.0 ? 64.0 * kEps * (far ? dist * radius : dist * dist) / eps1 : 0.0;
      const double vtol = 4.0 * dvalue + 64.0 * kEps * (std::abs(phi) + dist) + logit * dist + 1e-300;
      const double gtol = 1e-12 + 4.0 * dgrad + (eps1 > 0.0 ? logit * (1.0 + dist * radius / eps1) : 0.0);
      const double verr = std::abs(phi - static_cast<double>(ref.value));
      const double gerr = (g - ref.gradient.cast<double>()).norm();
      worst[kQuery] = std::max(worst[kQuery], verr / vtol);
      worst[kQueryGradient] = std::max(worst[kQueryGradient], gerr / gtol);
      if (!(verr <= vtol) || !(gerr <= gtol)) {
        std::ostringstream o;
        o.precision(17);
        o << "reference value " << static_cast<double>(ref.value) << " (error " << verr << ", tolerance " << vtol
          << "), gradient " << vec(ref.gradient.cast<double>()) << " (error " << gerr << ", tolerance " << gtol << "): ";
        fails.report("query vs brute force", o.str() + where());
      }
      // every length × c (eps1 × c²)
      {
        const double c = (t + k) % 2 == 0 ? 1e-3 : 1e3;
        const ssdf::OrientedPointCloud cs = A.build(f * c);
        Vec3 gs;
        const double ps = ssdf::soft_signed_distance(cs, Vec3(c * q), eps1 * c * c, ws, &gs);
        const double e = std::max(std::abs(ps / c - phi) / vtol, (gs - g).norm() / gtol);
        worst[kQueryUnit] = std::max(worst[kQueryUnit], e);
        if (!(e <= 1.0)) {
          std::ostringstream o;
          o.precision(17);
          o << "lengths x " << c << ": phi/c " << ps / c << ", gradient " << vec(gs) << ": ";
          fails.report("query unit invariance", o.str() + where());
        }
      }
      // the world-frame query of the cloud posed at X1 at X1·q, and J_phi_X by central differences
      {
        const Vec3 qw = X1 * q;
        const ssdf::SsdfQuery w = ssdf::soft_signed_distance(c1, X1, qw, eps1, ws, ReferenceFrame::local);
        const double ftol = vtol + 64.0 * kEps * X1.p.norm() * (1.0 + g.norm());
        const double e = std::max(std::abs(w.phi - phi) / ftol,
                                  (X1.R.transpose() * w.J_phi_p - g).norm() / (gtol + 4.0 * dgrad * (1.0 + X1.p.norm() / dist)));
        worst[kQueryFrame] = std::max(worst[kQueryFrame], e);
        if (!std::isfinite(w.phi) || !w.J_phi_p.allFinite() || !w.J_phi_X.allFinite()) {
          fails.report("non-finite query", "world frame: " + where());
        } else if (!(e <= 1.0)) {
          std::ostringstream o;
          o.precision(17);
          o << "world-frame query at " << pose(X1) << ": phi " << w.phi << ", gradient (body frame) "
            << vec(X1.R.transpose() * w.J_phi_p) << ": ";
          fails.report("query frame invariance", o.str() + where());
        }
        if (k == 1 && t % 4 == 0 && std::isfinite(w.phi)) {
          // J_phi_X (body twist of the cloud) on a random direction, rotations scaled by the lever
          const double reach = 1.0 + dist / radius;
          Vec6 z;
          z << direction(rng) / reach, radius * direction(rng);
          const double analytic = w.J_phi_X.dot(z);
          const auto val = [&](double h) {
            return ssdf::soft_signed_distance(c1, X1 * diffcol::se3_exp(Vec6(h * z)), qw, eps1, ws).phi;
          };
          const double h = 1e-5;
          const double d1 = (val(h) - val(-h)) / (2 * h), d2 = (val(h / 2) - val(-h / 2)) / h;
          const double d3 = (val(h / 4) - val(-h / 4)) / (h / 2);
          const double r1 = (4 * d2 - d1) / 3, fd = (4 * d3 - d2) / 3;
          const double tol = 1e-5 * (std::abs(analytic) + radius) + 64.0 * kEps * (qw.norm() + X1.p.norm() + dist) / (h / 4);
          if (eps1 == 0.0 || !(std::abs(r1 - fd) <= 0.25 * tol)) {
            fails.note("query derivatives left out (hard, or steps disagree)");
          } else {
            fails.note("query derivatives checked");
            worst[kDerivative] = std::max(worst[kDerivative], std::abs(analytic - fd) / tol);
            if (!(std::abs(analytic - fd) <= tol)) {
              std::ostringstream o;
              o.precision(17);
              o << "J_phi_X on a random direction " << analytic << ", central differences " << fd << " (from h, h/2: "
                << r1 << "): ";
              fails.report("query derivative vs central differences", o.str() + where());
            }
          }
        }
      }
    }

    // ---------------------------------------------------------------- smooth separation distance
    const double D = (X2.p - X1.p).norm() / f;  // in units
    const ssdf::Separation sep = ssdf::smooth_separation_distance(c1, X1, c2, X2, eps1, eps2, ws, true, ReferenceFrame::local);
    fails.note("separations");
    if (!finite(sep)) {
      fails.report("non-finite separation", at());
      continue;
    }
    const SeparationRef sref = separation_reference(A, B, f, X1, X2, eps1, eps2);
    // conditioning: field entries carry the rounding of the transformed points, ~ε·(|p1| + |p2| +
    // D f)·‖∇φ‖, and each SSDF's logit rounding (as above, for a point at distance ~(D + 2) f);
    // the distance moves by Σ|∂d/∂Φ_f| times that
    const double reach = (D + 2.0) * f;
    const bool far_field = D > 14.0;
    const double logit = eps1 > 0.0 ? 64.0 * kEps * (far_field ? reach * f : reach * reach) / eps1 : 0.0;
    const double entry_tol = 64.0 * kEps * (X1.p.norm() + X2.p.norm() + reach) * (1.0 + static_cast<double>(sref.slope)) +
                             logit * reach;
    const double stol = entry_tol * static_cast<double>(sref.sensitivity) + 64.0 * kEps * std::abs(sep.distance) + 1e-300;
    {
      const double e = std::abs(sep.distance - static_cast<double>(sref.distance)) / stol;
      worst[kSeparation] = std::max(worst[kSeparation], e);
      if (!(e <= 1.0)) {
        std::ostringstream o;
        o.precision(17);
        o << "separation " << sep.distance << " against brute force " << static_cast<double>(sref.distance)
          << " (tolerance " << stol << "): ";
        fails.report("separation vs brute force", o.str() + at());
      }
    }
    // swapped clouds (Jacobian columns swapped), every length × c, the scene moved by T
    const double jscale = std::max(1.0, sep.J_distance_X.tail<3>().cwiseAbs().maxCoeff());
    const auto compare_separation = [&](const char* cls, const ssdf::Separation& o, double c, bool swapped) {
      if (!finite(o)) {
        fails.report("non-finite separation", std::string(cls) + ": " + at());
        return;
      }
      Eigen::Matrix<double, 1, 12> J = o.J_distance_X;
      if (swapped) J << o.J_distance_X.tail<6>(), o.J_distance_X.head<6>();
      // the ω columns are lengths (scale with c), the v columns unit-free. The Jacobian is a
      // softmin-weighted sum of the entries' gradients, whose weights move with the field's
      // rounding over eps2: tolerances 1e-9 plus that, times the columns' scales
      for (int i = 0; i < 12; ++i) J[i] /= c;
      const double wtol = 1e-9 + (eps2 > 0.0 ? 4.0 * entry_tol / eps2 : 0.0);
      double je = 0.0;
      for (int i = 0; i < 12; ++i) {
        const double scale = i % 6 < 3 ? f * (1.0 + D) : 1.0;  // ω: a lever of up to (D + 1) f
        je = std::max(je, std::abs(J[i] - sep.J_distance_X[i]) / (wtol * scale * jscale));
      }
      // hard softmin (eps2 = 0): the Jacobian is the gradient of the smallest field entry, and
      // where entries tie (symmetric, axis-aligned scenes) rounding picks which: distance only
      if (eps2 == 0.0 && je > 1.0) {
        fails.note("separation Jacobians not compared (hard softmin, tied entries)");
        je = 0.0;
      }
      const double e = std::max(std::abs(o.distance / c - sep.distance) / stol, je);
      worst[kSeparationInvariance] = std::max(worst[kSeparationInvariance], e);
      if (!(e <= 1.0)) {
        std::ostringstream m;
        m.precision(17);
        m << "distance " << o.distance / c << " against " << sep.distance << ", Jacobian [" << J << "] against ["
          << sep.J_distance_X << "]: ";
        fails.report(cls, m.str() + at());
      }
    };
    compare_separation("separation symmetry", ssdf::smooth_separation_distance(c2, X2, c1, X1, eps1, eps2, ws, true, ReferenceFrame::local), 1.0,
                       true);
    {
      const double c = t % 2 == 0 ? 1e-3 : 1e3;
      const ssdf::OrientedPointCloud s1 = A.build(f * c), s2 = B.build(f * c);
      ssdf::Separation o = ssdf::smooth_separation_distance(s1, scaled_pose(X1, c), s2, scaled_pose(X2, c), eps1 * c * c,
                                                            eps2 * c, ws, true, ReferenceFrame::local);
      // the ω columns of J are lengths, the v columns unit-free: bring v columns back to lengths
      for (int b = 0; b < 2; ++b) o.J_distance_X.segment<3>(6 * b + 3) *= c;
      compare_separation("separation unit invariance", o, c, false);
    }
    {
      const Pose T = make_pose(rotation(rng), f * log_uniform(rng, -2.0, 2.0) * direction(rng));
      compare_separation("separation frame invariance",
                         ssdf::smooth_separation_distance(c1, T * X1, c2, T * X2, eps1, eps2, ws, true, ReferenceFrame::local), 1.0, false);
    }
    // J_distance_X against central differences (every 4th sample; smooth only)
    if (t % 4 == 1 && eps1 > 0.0 && eps2 > 0.0) {
      const double lever = 1.0 + D;
      Eigen::Matrix<double, 12, 1> z;
      z << direction(rng) / lever, f * direction(rng), direction(rng) / lever, f * direction(rng);
      const double analytic = sep.J_distance_X.dot(z);
      const auto val = [&](double h) {
        return ssdf::smooth_separation_distance(c1, X1 * diffcol::se3_exp(Vec6(h * z.head<6>())), c2,
                                                X2 * diffcol::se3_exp(Vec6(h * z.tail<6>())), eps1, eps2, ws, false)
            .distance;
      };
      const double h = 1e-5;
      const double d1 = (val(h) - val(-h)) / (2 * h), d2 = (val(h / 2) - val(-h / 2)) / h;
      const double d3 = (val(h / 4) - val(-h / 4)) / (h / 2);
      const double r1 = (4 * d2 - d1) / 3, fd = (4 * d3 - d2) / 3;
      const double tol = 1e-5 * (std::abs(analytic) + f) + stol / (h / 4);
      if (!(std::abs(r1 - fd) <= 0.25 * tol)) {
        fails.note("separation derivatives left out (steps disagree)");
      } else {
        fails.note("separation derivatives checked");
        worst[kDerivative] = std::max(worst[kDerivative], std::abs(analytic - fd) / tol);
        if (!(std::abs(analytic - fd) <= tol)) {
          std::ostringstream o;
          o.precision(17);
          o << "J_distance_X on a random direction " << analytic << ", central differences " << fd << " (from h, h/2: "
            << r1 << "): ";
          fails.report("separation derivative vs central differences", o.str() + at());
        }
      }
    }

    // ---------------------------------------------------------------- collision points
    const int V = static_cast<int>(A.vertices.size() + B.vertices.size());
    const int K = 1 + static_cast<int>(rng() % std::min(8, V));
    std::vector<Vec3> pts(static_cast<size_t>(K));
    std::vector<double> mass(static_cast<size_t>(K));
    std::vector<Eigen::Matrix<double, 3, 12>> J(static_cast<size_t>(K));
    ssdf::collision_points(c1, X1, c2, X2, eps1, eps2, K, t_topk, ws, pts.data(), mass.data(), J.data(), ReferenceFrame::local);
    fails.note("collision point sets");
    {
      bool ok = true;
      Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
      for (const Vec3& v : c1.vertices()) lo = lo.cwiseMin(X1 * v), hi = hi.cwiseMax(X1 * v);
      for (const Vec3& v : c2.vertices()) lo = lo.cwiseMin(X2 * v), hi = hi.cwiseMax(X2 * v);
      const double slack = 1e-12 * ((hi - lo).norm() + X1.p.norm() + X2.p.norm());
      for (int k = 0; k < K; ++k) {
        ok = ok && pts[static_cast<size_t>(k)].allFinite() && std::isfinite(mass[static_cast<size_t>(k)]) &&
             J[static_cast<size_t>(k)].allFinite() && mass[static_cast<size_t>(k)] >= 0.0;
        ok = ok && (pts[static_cast<size_t>(k)].array() >= lo.array() - slack).all() &&
             (pts[static_cast<size_t>(k)].array() <= hi.array() + slack).all();
      }
      if (!ok) fails.report("collision points not finite or outside the vertices' box", at());
    }
    // the same points (up to the motion) with the scene moved, in another unit, and swapped
    // the masses σ_eps2(−Φ) move with the field's rounding over eps2, and the SoftSort weights
    // with the masses' over its temperature, which moves the points by that times the spread of
    // the vertices
    const double mtol = 1e-13 + (eps2 > 0.0 ? 4.0 * entry_tol / eps2 : 0.0);
    const double ptol = 1e-12 * reach + (t_topk > 0.0 ? 4.0 * mtol / t_topk * reach : 0.0);
    {
      const auto compare_points = [&](const char* cls, const std::vector<Vec3>& o, const std::vector<double>& om,
                                      const Pose& back, double c) {
        double e = 0.0, em = 0.0;
        for (int k = 0; k < K; ++k) {
          const Vec3 p = back * (o[static_cast<size_t>(k)] / c);
          e = std::max(e, (p - pts[static_cast<size_t>(k)]).norm() / (ptol + 64.0 * kEps * (X1.p.norm() + X2.p.norm())));
          em = std::max(em, std::abs(om[static_cast<size_t>(k)] - mass[static_cast<size_t>(k)]) / mtol);
        }
        // hard top-K (temperature 0) at tied masses (a face's vertices share its points' masses),
        // or a hard distribution (eps2 = 0: one-hot on the smallest field entry) at tied entries
        // (symmetric, axis-aligned scenes): the first index wins, and rounding or swapping the
        // clouds changes which is first: the masses agree, the points need not
        if ((t_topk == 0.0 || eps2 == 0.0) && em <= 1.0 && e > 1.0) {
          fails.note("collision points not compared (hard top-K or distribution, ties)");
          e = 0.0;
        }
        e = std::max(e, em);
        worst[kPoints] = std::max(worst[kPoints], e);
        if (!(e <= 1.0)) {
          std::ostringstream m;
          m.precision(17);
          m << "difference " << e << " tolerances; first point " << vec(back * (o[0] / c)) << " against " << vec(pts[0])
            << ", mass " << om[0] << " against " << mass[0] << ": ";
          fails.report(cls, m.str() + at());
        }
      };
      std::vector<Vec3> o(static_cast<size_t>(K));
      std::vector<double> om(static_cast<size_t>(K));
      const Pose T = make_pose(rotation(rng), f * log_uniform(rng, -2.0, 2.0) * direction(rng));
      ssdf::collision_points(c1, T * X1, c2, T * X2, eps1, eps2, K, t_topk, ws, o.data(), om.data());
      compare_points("collision points frame invariance", o, om, T.inverse(), 1.0);
      const double c = t % 2 == 0 ? 1e3 : 1e-3;
      const ssdf::OrientedPointCloud s1 = A.build(f * c), s2 = B.build(f * c);
      ssdf::collision_points(s1, scaled_pose(X1, c), s2, scaled_pose(X2, c), eps1 * c * c, eps2 * c, K, t_topk, ws,
                             o.data(), om.data());
      compare_points("collision points unit invariance", o, om, Pose::identity(), c);
      ssdf::collision_points(c2, X2, c1, X1, eps1, eps2, K, t_topk, ws, o.data(), om.data());
      compare_points("collision points symmetry", o, om, Pose::identity(), 1.0);
    }
    // J_points against central differences (every 4th sample; smooth only)
    if (t % 4 == 2 && eps1 > 0.0 && eps2 > 0.0 && t_topk > 0.0) {
      const double lever = 1.0 + D;
      Eigen::Matrix<double, 12, 1> z;
      z << direction(rng) / lever, f * direction(rng), direction(rng) / lever, f * direction(rng);
      const auto val = [&](double h) {
        std::vector<Vec3> o(static_cast<size_t>(K));
        ssdf::collision_points(c1, X1 * diffcol::se3_exp(Vec6(h * z.head<6>())), c2,
                               X2 * diffcol::se3_exp(Vec6(h * z.tail<6>())), eps1, eps2, K, t_topk, ws, o.data());
        Eigen::VectorXd v(3 * K);
        for (int k = 0; k < K; ++k) v.segment<3>(3 * k) = o[static_cast<size_t>(k)];
        return v;
      };
      const double h = 1e-5;
      const Eigen::VectorXd f0 = val(0.0), p4 = val(h / 4), m4 = val(-h / 4), p8 = val(h / 8), m8 = val(-h / 8);
      const Eigen::VectorXd d1 = (val(h) - val(-h)) / (2 * h), d2 = (val(h / 2) - val(-h / 2)) / h, d3 = (p4 - m4) / (h / 2);
      const Eigen::VectorXd r1 = (4 * d2 - d1) / 3, fd = (4 * d3 - d2) / 3;
      const Eigen::VectorXd jump4 = (p4 - 2 * f0 + m4) / (h / 4), jump8 = (p8 - 2 * f0 + m8) / (h / 8);
      // the points' rounding (ptol: the field's, amplified through the masses and SoftSort) over
      // the step: far apart bodies with small temperatures make them ill-conditioned
      const double noise = (ptol + 64.0 * kEps * (X1.p.norm() + X2.p.norm() + reach)) / (h / 8);
      long compared = 0;
      double worst_here = 0.0;
      int worst_row = -1;
      for (int i = 0; i < 3 * K; ++i) {
        const double analytic = J[static_cast<size_t>(i / 3)].row(i % 3).dot(z);
        const double tol = 1e-5 * (std::abs(analytic) + f) + noise;
        if (std::abs(jump8[i]) > tol && std::abs(jump8[i]) > 0.75 * std::abs(jump4[i])) {
          fails.note("collision point derivatives left out (kink at the pose)");
          continue;
        }
        if (!(std::abs(r1[i] - fd[i]) <= 0.25 * tol)) {
          fails.note("collision point derivatives left out (steps disagree)");
          continue;
        }
        ++compared;
        if (std::abs(analytic - fd[i]) / tol > worst_here) worst_here = std::abs(analytic - fd[i]) / tol, worst_row = i;
      }
      fails.note("collision point derivatives checked", compared);
      worst[kDerivative] = std::max(worst[kDerivative], worst_here);
      if (!(worst_here <= 1.0)) {
        std::ostringstream o;
        o.precision(17);
        o << "J_points row " << worst_row << " on a random direction " << J[static_cast<size_t>(worst_row / 3)].row(worst_row % 3).dot(z)
          << ", central differences " << fd[worst_row] << " (from h, h/2: " << r1[worst_row] << "; at h/16, h/128, h/1024:";
        for (const double s : {h / 16, h / 128, h / 1024}) o << " " << (val(s)[worst_row] - val(-s)[worst_row]) / (2 * s);
        o << "), K " << K << ": ";
        fails.report("collision point derivative vs central differences", o.str() + at());
      }
    }
  }
  fails.print("SSDF sweep");
  std::printf("SSDF sweep: %ld samples; worst error / tolerance: query %.3g (gradient %.3g), query unit %.3g, query frame "
              "%.3g, separation %.3g, separation invariance %.3g, collision points %.3g, derivatives %.3g\n",
              set.samples - set.first, worst[kQuery], worst[kQueryGradient], worst[kQueryUnit], worst[kQueryFrame],
              worst[kSeparation], worst[kSeparationInvariance], worst[kPoints], worst[kDerivative]);
  EXPECT_EQ(fails.total_failures(), 0);
}

TEST(SsdfProperties, SoftTopKDerivativesAtTiedEntries) {
  // collision_points differentiates its SoftSort top-K (eq. (13)) with smooth::soft_top_k_jvp, and
  // the masses of a face's vertices often tie (they share the face's points). At a tie the
  // logit −|x_c − x_j|/t took its sign from x_c − x_j = 0, so the row of the second tied entry held
  // the opposite order to the first's and the derivative matched neither side (0.66 off here).
  // Now the order of soft_top_k (ties by index) is held fixed for every row: the one-sided
  // derivative in a direction that keeps it.
  const int n = 5, k = 4;
  const double x[n] = {0.3, 0.7, 0.7, 0.1, 0.7};
  const double dx[n] = {0.2, 0.9, 0.5, -0.4, 0.1};  // keeps x1 ≥ x2 ≥ x4 for h > 0 (the index order)
  double P[k * n], dP[k * n];
  diffcol::smooth::soft_top_k(x, n, k, 0.2, P);
  diffcol::smooth::soft_top_k_jvp(x, n, k, 0.2, P, dx, dP);
  const auto at = [&](double h, double* Q) {
    double y[n];
    for (int j = 0; j < n; ++j) y[j] = x[j] + h * dx[j];
    diffcol::smooth::soft_top_k(y, n, k, 0.2, Q);
  };
  double Q0[k * n], Q1[k * n], Q2[k * n];
  const double h = 1e-6;
  at(0.0, Q0);
  at(h, Q1);
  at(2 * h, Q2);
  for (int i = 0; i < k * n; ++i)
    EXPECT_NEAR(dP[i], (-3.0 * Q0[i] + 4.0 * Q1[i] - Q2[i]) / (2 * h), 1e-6) << "row " << i / n << " column " << i % n;
  // the vector–Jacobian product is its transpose: ⟨G, J dx⟩ = ⟨Jᵀ G, dx⟩
  double G[k * n], g[n];
  for (int i = 0; i < k * n; ++i) G[i] = std::sin(1.0 + i);
  diffcol::smooth::soft_top_k_vjp(x, n, k, 0.2, P, G, g);
  double lhs = 0.0, rhs = 0.0;
  for (int i = 0; i < k * n; ++i) lhs += G[i] * dP[i];
  for (int j = 0; j < n; ++j) rhs += g[j] * dx[j];
  EXPECT_NEAR(lhs, rhs, 1e-12 * (1.0 + std::abs(lhs)));
}

}  // namespace ssdf_properties_test
