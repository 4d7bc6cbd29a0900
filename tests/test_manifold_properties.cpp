// A property-based sweep of the Contax layer (include/diffcol/manifold/): random SDF primitives and
// random object pairs over extreme scales, checked against invariants that do not trust the code
// under test.
//
// Primitives (superquadrics, convex polyhedra, oriented point clouds) of sizes 1e-9 … 1e9 at query
// points 1e-6 … 1e8 sizes from them, some with a coordinate 1e-300 … 1e-20 of the others: finite
// value, gradient and normal (double and Dual<3>); the value against a long-double evaluation of
// the defining formula (eqs. (2)–(3), (4)–(5), (6)); the gradient against the Dual<3> derivative of
// the value; a unit normal along the reference direction (∇f for superquadrics, ∇φ otherwise); the
// same answer with every length × 1e-3 and × 1e3 (value scaled, normal unchanged) and in another
// object frame.
//
// Manifolds between random objects (box superquadrics on refined-box meshes; superquadrics, convex
// polyhedra, unions of two superquadrics and point clouds on iso-surface meshes) of sizes 1e-6 …
// 1e6, overlapping or 10 … 1e6 sizes apart, smoothed or hard options (temperatures in the scene's
// unit), with and without candidate selection and witness projection: finite fields; activities in
// [0, 1] and normals of length ≤ 1; V-S distances equal to the other body's SDF at the point; V-S
// points on their mesh vertices and E-E points on their edges (no selection, no projection); E-E
// distances within the witness distance; the same manifold with the bodies swapped (entries
// mapped), every length × 1e-3 and × 1e3, and the whole scene moved by a random rigid transform;
// and, on a subsample, the pose derivatives (body twists, X·exp(ξ), and se(3) log coordinates)
// against central differences through the exponential map, with finite Jacobians everywhere.
//
// Failures are counted by class (printed) and the first few described; what cannot be checked
// (kinks, SoftSort ties, unbounded derivatives) is counted apart and printed. Environment:
// DIFFCOL_MANIFOLD_FUZZ_SAMPLES (default 500 primitives with 8 queries each, and 300 object
// pairs: a few seconds each; 1e5 for the long run), _SEED (default 7101), _FIRST (start at that sample:
// _FIRST=k _SAMPLES=k+1 reruns sample k alone), DIFFCOL_FUZZ_VERBOSE (describe every failure).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/math/se3.hpp"

#include "property_sweep.hpp"
#include "test_util.hpp"

namespace manifold_properties_test {

namespace mf = diffcol::manifold;
using diffcol::Mat3;
using diffcol::Pose;
using diffcol::Vec3;
using diffcol::Vec6;
using diffcol::test::FailureCounts;
using diffcol::test::make_pose;
using diffcol::test::SweepSettings;
using LD = long double;
using namespace diffcol::test::sweep;

// =============================================================================================
// Primitives
// =============================================================================================

/// One random primitive at unit size; build(f) is the same primitive with every length × f and
/// pose P (the primitive's pose in the object frame, its translation × f).
struct PrimitiveSpec {
  int type = 0;  // 0 superquadric, 1 convex polyhedron, 2 oriented point cloud
  Vec3 semi = Vec3::Ones();
  double eps1 = 1.0, eps2 = 1.0;
  std::vector<Vec3> points, normals;  // polyhedron vertices / cloud points and normals
  double length = 0.0;                // polyhedron temperature / cloud bandwidth (a length)

  mf::SdfPrimitive build(double f, const Pose& P) const {
    const Pose Pf = scaled_pose(P, f);
    if (type == 0) return mf::Superquadric(f * semi, eps1, eps2, Pf);
    Eigen::MatrixX3d V(static_cast<long>(points.size()), 3), N(static_cast<long>(points.size()), 3);
    for (size_t i = 0; i < points.size(); ++i) {
      V.row(static_cast<long>(i)) = f * points[i].transpose();
      N.row(static_cast<long>(i)) = (normals.empty() ? Vec3::UnitZ() : normals[i]).transpose();
    }
    if (type == 1) return mf::ConvexPolyhedron::from_vertices(V, f * length, Pf);
    return mf::OrientedPointCloud(V, N, f * length, Pf);
  }
  std::string describe() const {
    std::ostringstream o;
    o.precision(17);
    const char* names[] = {"superquadric", "convex polyhedron", "point cloud"};
    o << names[type] << " semi " << vec(semi) << " eps " << eps1 << " " << eps2 << " length " << length << " ("
      << points.size() << " points)";
    return o.str();
  }
};

/// Points on the ellipsoid of semi-axes `semi` (uniform directions) and its outward normals.
void ellipsoid_points(Rng& rng, const Vec3& semi, int n, std::vector<Vec3>& p, std::vector<Vec3>& nrm) {
  p.clear();
  nrm.clear();
  for (int i = 0; i < n; ++i) {
    const Vec3 u = direction(rng);
    p.push_back(u.cwiseProduct(semi));
    nrm.push_back(u.cwiseQuotient(semi).normalized());
  }
}

PrimitiveSpec random_primitive(Rng& rng, int type, double aspect) {
  PrimitiveSpec s;
  s.type = type;
  for (int i = 0; i < 3; ++i) s.semi[i] = std::pow(aspect, uniform(rng, -1.0, 0.0));
  if (type == 0) {
    // shape exponents over the constructor's range [0.01, 2), log-uniform
    s.eps1 = std::min(1.99, log_uniform(rng, -2.0, std::log10(1.99)));
    s.eps2 = std::min(1.99, log_uniform(rng, -2.0, std::log10(1.99)));
  } else if (type == 1) {
    ellipsoid_points(rng, s.semi, 6 + static_cast<int>(rng() % 10), s.points, s.normals);
    s.normals.clear();
    s.length = rng() % 3 == 0 ? 0.0 : log_uniform(rng, -4.0, -1.0);
  } else {
    ellipsoid_points(rng, s.semi, 10 + static_cast<int>(rng() % 60), s.points, s.normals);
    s.length = log_uniform(rng, -1.5, -0.3);
  }
  return s;
}

/// Long-double references of the primitives' defining formulas at a point x of the primitive
/// frame: value and the reference normal direction (∇f for the superquadric, ∇φ otherwise).
struct Reference {
  LD value = 0;
  Eigen::Matrix<LD, 3, 1> direction = Eigen::Matrix<LD, 3, 1>::Zero();
  Eigen::Matrix<LD, 3, 1> gradient = Eigen::Matrix<LD, 3, 1>::Zero();  ///< ∇φ
  bool defined = true;  // false at a superquadric's centre
};

Reference superquadric_reference(const PrimitiveSpec& s, double f, const Vec3& x) {
  // eq. (2) on x̃ = x/(f·semi), homogeneous form: f = s^(2/ε1) f(u) with u = x̃/s, s = max |x̃_i|;
  // h = f^(ε1/2) = s·f(u)^(ε1/2); φ = ‖x‖(1 − 1/h), eq. (3); ∇f ∝ ∇h.
  Reference r;
  LD xs[3], s_max = 0;
  for (int i = 0; i < 3; ++i) {
    xs[i] = static_cast<LD>(x[i]) / (static_cast<LD>(f) * static_cast<LD>(s.semi[i]));
    s_max = std::max(s_max, std::fabs(xs[i]));
  }
  const LD norm = std::sqrt(static_cast<LD>(x[0]) * x[0] + static_cast<LD>(x[1]) * x[1] + static_cast<LD>(x[2]) * x[2]);
  if (s_max == 0) {
    r.value = -static_cast<LD>(f) * static_cast<LD>(s.semi.minCoeff());
    r.defined = false;
    return r;
  }
  LD u[3];
  for (int i = 0; i < 3; ++i) u[i] = xs[i] / s_max;
  const LD p2 = 2.0L / s.eps2, p1 = 2.0L / s.eps1, q = static_cast<LD>(s.eps2) / s.eps1;
  const LD ax = std::pow(std::fabs(u[0]), p2), ay = std::pow(std::fabs(u[1]), p2);
  const LD A = ax + ay;
  const LD Aq = A > 0 ? std::pow(A, q) : 0.0L;
  const LD zp = std::pow(std::fabs(u[2]), p1);
  const LD g = Aq + zp;
  const LD h = s_max * std::pow(g, static_cast<LD>(s.eps1) / 2);
  r.value = norm * (1 - 1 / h);
  // ∇_u g: q A^(q−1) p2 |u_x|^(p2−1) sgn, …, p1 |u_z|^(p1−1) sgn; ∇_x ∝ that / semi
  auto dpow = [](LD a, LD p) { return a == 0 ? 0.0L : p * std::pow(std::fabs(a), p - 1) * (a > 0 ? 1 : -1); };
  const LD Aq1 = A > 0 ? q * std::pow(A, q - 1) : 0.0L;
  LD d[3] = {Aq1 * dpow(u[0], p2), Aq1 * dpow(u[1], p2), dpow(u[2], p1)};
  for (int i = 0; i < 3; ++i) r.direction[i] = d[i] / s.semi[i];
  // ∇φ = (x/‖x‖)(1 − 1/h) + ‖x‖∇h/h², ∇_x h = (ε1/2) g^(ε1/2 − 1) ∇_u g / (f·semi) (h has degree 1)
  const LD c = static_cast<LD>(s.eps1) / 2 * std::pow(g, static_cast<LD>(s.eps1) / 2 - 1);
  for (int i = 0; i < 3; ++i)
    r.gradient[i] = static_cast<LD>(x[i]) / norm * (1 - 1 / h) + norm * c * d[i] / (static_cast<LD>(f) * s.semi[i]) / (h * h);
  return r;
}

Reference polyhedron_reference(const mf::ConvexPolyhedron& P, const Vec3& x) {
  // eq. (5): t·log Σ exp((n_iᵀx − h_i)/t) (t = 0: the maximum), gradient Σ softmax_i n_i
  Reference r;
  const LD t = P.temperature();
  std::vector<LD> v(static_cast<size_t>(P.num_planes()));
  LD vmax = -std::numeric_limits<LD>::infinity();
  int arg = 0;
  for (int i = 0; i < P.num_planes(); ++i) {
    LD d = -static_cast<LD>(P.offsets()[i]);
    for (int k = 0; k < 3; ++k) d += static_cast<LD>(P.normals()(i, k)) * x[k];
    v[static_cast<size_t>(i)] = d;
    if (d > vmax) vmax = d, arg = i;
  }
  if (t == 0) {
    r.value = vmax;
    for (int k = 0; k < 3; ++k) r.direction[k] = P.normals()(arg, k);
    r.gradient = r.direction;
    return r;
  }
  LD sum = 0;
  for (int i = 0; i < P.num_planes(); ++i) {
    const LD w = std::exp((v[static_cast<size_t>(i)] - vmax) / t);
    sum += w;
    for (int k = 0; k < 3; ++k) r.direction[k] += w * P.normals()(i, k);
  }
  r.value = vmax + t * std::log(sum);
  r.direction /= sum;
  r.gradient = r.direction;
  return r;
}

Reference cloud_reference(const PrimitiveSpec& s, double f, const Vec3& x) {
  // eq. (6) with the logits as exact differences to point 0's:
  // −(‖x − p_i‖² − ‖x − p_0‖²)/(2σ²) = −(p_0 − p_i)ᵀ(2x − p_i − p_0)/(2σ²)
  Reference r;
  const LD sigma = static_cast<LD>(f) * s.length;
  const size_t n = s.points.size();
  std::vector<LD> a(n);
  LD amax = -std::numeric_limits<LD>::infinity();
  Eigen::Matrix<LD, 3, 1> X, P0;
  for (int k = 0; k < 3; ++k) X[k] = x[k], P0[k] = static_cast<LD>(f) * s.points[0][k];
  for (size_t i = 0; i < n; ++i) {
    Eigen::Matrix<LD, 3, 1> P;
    for (int k = 0; k < 3; ++k) P[k] = static_cast<LD>(f) * s.points[i][k];
    a[i] = -(P0 - P).dot(2 * X - P - P0) / (2 * sigma * sigma);
    amax = std::max(amax, a[i]);
  }
  LD sw = 0, swd = 0;
  Eigen::Matrix<LD, 3, 1> swn = Eigen::Matrix<LD, 3, 1>::Zero(), swr = swn, swdr = swn;
  for (size_t i = 0; i < n; ++i) {
    Eigen::Matrix<LD, 3, 1> P, N;
    for (int k = 0; k < 3; ++k) P[k] = static_cast<LD>(f) * s.points[i][k], N[k] = s.normals[i][k];
    N /= N.norm();
    const LD w = std::exp(a[i] - amax);
    const Eigen::Matrix<LD, 3, 1> rr = X - P;
    const LD d = N.dot(rr);
    sw += w;
    swd += w * d;
    swn += w * N;
    swr += w * rr;
    swdr += w * d * rr;
  }
  r.value = swd / sw;
  r.direction = swn / sw + (r.value * swr - swdr) / (sw * sigma * sigma);
  r.gradient = r.direction;
  return r;
}

/// The value's own scale for the reference comparison: how much rounding of the inputs moves it.
struct Query {
  Vec3 x_O;     // object-frame point
  double dist;  // its distance from the primitive frame's origin
};

TEST(ManifoldProperties, PrimitivesMatchReferencesAtExtremeScales) {
  const SweepSettings set("DIFFCOL_MANIFOLD_FUZZ", 500, 7101);
  FailureCounts fails(set.verbose);
  constexpr int kQueries = 8;
  double worst_value[3] = {0, 0, 0}, worst_normal[3] = {0, 0, 0}, worst_scale[3] = {0, 0, 0};
  for (long t = set.first; t < set.samples; ++t) {
    Rng rng = set.generator(t);
    const int type = static_cast<int>(t % 3);
    const double size = log_uniform(rng, -9.0, 9.0);
    const PrimitiveSpec spec = random_primitive(rng, type, type == 0 ? 1e3 : 10.0);
    const Pose P = make_pose(rotation(rng), size * uniform(rng, 0.0, 3.0) * direction(rng));
    const double tau = rng() % 4 == 0 ? 0.0 : 1e-12;
    auto object = [&](double f, const Pose& Pf) {
      mf::SdfObject o(0.0, tau);
      o.add(spec.build(f, Pf));
      return o;
    };
    const Pose unit_pose = make_pose(P.R, P.p / size);
    const mf::SdfObject obj = object(size, unit_pose);
    const mf::SdfObject small = object(size * 1e-3, unit_pose), large = object(size * 1e3, unit_pose);
    // the same primitive in another object frame: X_NO maps object to new-object coordinates
    const Pose X_NO = make_pose(rotation(rng), size * uniform(rng, 0.0, 10.0) * direction(rng));
    const Pose P_moved = X_NO * P;
    const mf::SdfObject moved = object(size, make_pose(P_moved.R, P_moved.p / size));
    // the polyhedron's normalized planes, for its reference
    const mf::SdfPrimitive prim = spec.build(size, unit_pose);
    for (int k = 0; k < kQueries; ++k) {
      // primitive-frame query: radially at 10^[−6, 8] sizes (1 in 4 near the surface, ±1e-3 size)
      Vec3 u = direction(rng);
      const bool tiny = rng() % 4 == 0;
      if (tiny) u[static_cast<int>(rng() % 3)] *= log_uniform(rng, -300.0, -20.0);  // tiny coordinate
      u.normalize();
      double r = size * log_uniform(rng, -6.0, 8.0);
      if (k % 4 == 0) {
        // near the surface: scale u to the unit ellipsoid of the semi-axes, then perturb
        const double e = 1.0 / u.cwiseQuotient(size * spec.semi).norm();
        r = e * (1.0 + uniform(rng, -1e-3, 1e-3));
      }
      const Vec3 x_P = r * u;
      const Vec3 x_O = P * x_P;
      std::ostringstream where;
      where.precision(17);
      where << spec.describe() << " size " << size << " tau " << tau << " at primitive pose " << pose(P)
            << ", query x_P " << vec(x_P) << " (|x|/size " << r / size << "), sample " << t << " query " << k;
      const mf::SdfPoint<double> v = obj.evaluate(mf::V3<double>::from(x_O));
      const mf::V3<mf::Dual<3>> xd(mf::Dual<3>::variable(x_O.x(), 0), mf::Dual<3>::variable(x_O.y(), 1),
                                   mf::Dual<3>::variable(x_O.z(), 2));
      const mf::SdfPoint<mf::Dual<3>> vd = obj.evaluate(xd);
      const Vec3 grad = mf::values(v.gradient), normal = mf::values(v.normal);
      bool finite = std::isfinite(v.value) && grad.allFinite() && normal.allFinite() && std::isfinite(vd.value.v) &&
                    vd.value.d.allFinite();
      for (int i = 0; i < 3; ++i)
        finite = finite && vd.gradient[i].d.allFinite() && vd.normal[i].d.allFinite() && std::isfinite(vd.normal[i].v);
      if (!finite) {
        std::ostringstream o;
        o.precision(17);
        o << "value " << v.value << " gradient " << vec(grad) << " normal " << vec(normal) << " Dual<3> dvalue "
          << vd.value.d.transpose() << " dnormal " << vd.normal[0].d.transpose() << " | "
          << vd.normal[1].d.transpose() << " | " << vd.normal[2].d.transpose() << ": " << where.str();
        fails.report("non-finite", o.str());
        continue;
      }
      // reference value and normal direction (primitive frame)
      const auto reference = [&](const Vec3& x) {
        if (type == 0) return superquadric_reference(spec, size, x);
        if (type == 1) return polyhedron_reference(std::get<mf::ConvexPolyhedron>(prim), x);
        return cloud_reference(spec, size, x);
      };
      const auto unit_direction = [](const Reference& q) {
        Vec3 d;
        for (int i = 0; i < 3; ++i) d[i] = static_cast<double>(q.direction[i] / q.direction.norm());
        return d;
      };
      const Reference ref = reference(x_P);
      const Vec3 ref_normal = ref.defined && ref.direction.norm() > 0 ? Vec3(P.R * unit_direction(ref)) : Vec3::Zero();
      // conditioning: the query's coordinates are rounded by the poses (a few ε·(|x_O| + |P.p|), and
      // ε·|X_NO.p| in the moved frame); how far that moves the reference value and normal (three
      // random directions)
      const double rho = 16.0 * 2.2e-16 * (r + x_O.norm() + P.p.norm() + X_NO.p.norm());
      double dvalue = 0.0, dnormal = 0.0;
      // (three random directions and the six axis ones: a coordinate that rounding can flip in sign
      // flips a superquadric's normal component where ε > 1, |u_i|^(p−1) with p − 1 → 0)
      for (int j = 0; j < (tiny && type == 0 ? 9 : 3); ++j) {
        const Vec3 dir = j < 3 ? direction(rng) : Vec3((j - 3 == 0) - (j - 3 == 1), (j - 3 == 2) - (j - 3 == 3), (j - 3 == 4) - (j - 3 == 5));
        const Reference q = reference(x_P + rho * dir);
        dvalue = std::max(dvalue, std::abs(static_cast<double>(q.value - ref.value)));
        if (ref_normal != Vec3::Zero() && q.direction.norm() > 0)
          dnormal = std::max(dnormal, (P.R * unit_direction(q) - ref_normal).norm());
      }
      // the evaluation's own rounding: a few ε·(|φ| + ‖x‖) (the superquadric's 1 − 1/h, the planes'
      // n·x − h); for the cloud, its logits carry ε·|logit| each (after the shift by the cloud's
      // centre, ε·(r + size)·size/σ²), which moves φ by that times the spread of the points' plane
      // distances (~ r + size)
      double logit_error = 0.0;
      if (type == 2) logit_error = 64.0 * 2.2e-16 * (r + size) * size / std::pow(size * spec.length, 2);
      const double value_tol = 4.0 * dvalue + 64.0 * 2.2e-16 * (std::abs(v.value) + r) + logit_error * (r + size) + 1e-300;
      const double normal_tol = 1e-10 + 4.0 * dnormal + logit_error;
      const char* kind = type == 0 ? "superquadric" : type == 1 ? "polyhedron" : "cloud";
      const double verr = std::abs(static_cast<double>(ref.value) - v.value);
      worst_value[type] = std::max(worst_value[type], verr / value_tol);
      if (!(verr <= value_tol)) {
        std::ostringstream o;
        o.precision(17);
        o << "value " << v.value << " against reference " << static_cast<double>(ref.value) << " (error " << verr
          << ", tolerance " << value_tol << "): " << where.str();
        fails.report(std::string("value vs reference (") + kind + ")", o.str());
      }
      // gradient = the Dual<3> derivative of the value (both from the code under test, but by
      // different routes: the analytic gradient and forward mode through the value's operations)
      {
        const Vec3 dval(vd.value.d[0], vd.value.d[1], vd.value.d[2]);
        const double gerr = (dval - grad).norm();
        if (!(gerr <= 1e-8 * (1.0 + grad.norm()))) {
          std::ostringstream o;
          o.precision(17);
          o << "gradient " << vec(grad) << " but d value/dx (Dual<3>) " << vec(dval) << ": " << where.str();
          fails.report(std::string("gradient vs Dual<3> derivative (") + kind + ")", o.str());
        }
      }
      // a unit normal along the reference direction (τ = 1e-12 shortens it by ~τ/(2‖g‖²); g is
      // unit-free: ‖g‖ ≥ 1 on a superquadric's surface, ‖∇φ‖ ~ 1 for the others)
      if (ref_normal != Vec3::Zero()) {
        const double nerr = (normal - ref_normal).norm();
        worst_normal[type] = std::max(worst_normal[type], nerr / normal_tol);
        if (!(nerr <= normal_tol)) {
          std::ostringstream o;
          o.precision(17);
          o << "normal " << vec(normal) << " against the reference direction " << vec(ref_normal) << " (|difference| "
            << nerr << ", tolerance " << normal_tol << "): " << where.str();
          fails.report(std::string("normal vs reference (") + kind + ")", o.str());
        }
      }
      // unit invariance: every length × 1e-3 and × 1e3
      for (const double c : {1e-3, 1e3}) {
        const mf::SdfObject& o = c < 1.0 ? small : large;
        const mf::SdfPoint<double> w = o.evaluate(mf::V3<double>::from(Vec3(c * x_O)));
        // a polyhedron built from its vertices × c has its planes recomputed (cross products of
        // edges: a sliver facet's normal rounds with ε·extent/edge): the references of both
        // constructions tell how much that moves the answer
        double build_value = 0.0, build_normal = 0.0;
        if (type == 1) {
          const mf::SdfPrimitive pc = spec.build(size * c, unit_pose);
          const Reference rc = polyhedron_reference(std::get<mf::ConvexPolyhedron>(pc), c * x_P);
          build_value = std::abs(static_cast<double>(rc.value / c - ref.value));
          if (ref_normal != Vec3::Zero() && rc.direction.norm() > 0)
            build_normal = (P.R * unit_direction(rc) - ref_normal).norm();
        }
        const double derr = std::abs(w.value / c - v.value) - 4.0 * build_value;
        const double nerr = (mf::values(w.normal) - normal).norm() - 4.0 * build_normal;
        worst_scale[type] = std::max({worst_scale[type], derr / value_tol, nerr / normal_tol});
        if (!(derr <= value_tol) || !(nerr <= normal_tol)) {
          std::ostringstream m;
          m.precision(17);
          m << "lengths x " << c << ": value/" << c << " " << w.value / c << " against " << v.value << ", normal "
            << vec(mf::values(w.normal)) << " against " << vec(normal) << " (tolerances " << value_tol << ", "
            << normal_tol << "): " << where.str();
          fails.report(std::string("unit invariance (") + kind + ")", m.str());
        }
      }
      // frame invariance: the object frame moved by X_NO, the query with it
      {
        const mf::SdfPoint<double> w = moved.evaluate(mf::V3<double>::from(Vec3(X_NO * x_O)));
        const double derr = std::abs(w.value - v.value);
        const double nerr = (X_NO.R.transpose() * mf::values(w.normal) - normal).norm();
        if (!(derr <= value_tol) || !(nerr <= normal_tol)) {
          std::ostringstream m;
          m.precision(17);
          m << "object frame moved (" << pose(X_NO) << "): value " << w.value << " against " << v.value
            << ", normal " << vec(X_NO.R.transpose() * mf::values(w.normal)) << " against " << vec(normal)
            << " (tolerances " << value_tol << ", " << normal_tol << "): " << where.str();
          fails.report(std::string("frame invariance (") + kind + ")", m.str());
        }
      }
    }
  }
  fails.print("manifold primitive sweep");
  std::printf("manifold primitive sweep: %ld samples x %d queries; worst error / tolerance (superquadric, "
              "polyhedron, cloud): value %.3g, %.3g, %.3g; normal %.3g, %.3g, %.3g; unit change %.3g, %.3g, %.3g\n",
              set.samples - set.first, kQueries, worst_value[0], worst_value[1], worst_value[2], worst_normal[0],
              worst_normal[1], worst_normal[2], worst_scale[0], worst_scale[1], worst_scale[2]);
  EXPECT_EQ(fails.total_failures(), 0);
}


// =============================================================================================
// Manifolds
// =============================================================================================

/// One random object at unit size: its SDF primitives (posed in the object frame) and a closed
/// mesh of its surface; build(f) is the same object with every length × f.
struct ObjectSpec {
  int type = 0;  // 0 box superquadric, 1 superquadric, 2 convex polyhedron, 3 union of two superquadrics, 4 point cloud
  std::vector<PrimitiveSpec> prims;
  std::vector<Pose> poses;  // of the primitives in the object frame (unit size)
  double blend = 0.0;       // union temperature (a length)
  std::vector<Vec3> vertices;
  std::vector<diffcol::mesh::Face> faces;

  mf::SdfObject sdf(double f) const {
    mf::SdfObject o(f * blend, 1e-12);
    for (size_t i = 0; i < prims.size(); ++i) o.add(prims[i].build(f, poses[i]));
    return o;
  }
  mf::ContactObject build(double f) const {
    std::vector<Vec3> v = vertices;
    for (Vec3& x : v) x *= f;
    return mf::ContactObject(diffcol::mesh::TriangleMesh(std::move(v), faces), sdf(f));
  }
  std::string describe() const {
    std::ostringstream o;
    o.precision(17);
    const char* names[] = {"box superquadric", "superquadric", "convex polyhedron", "union of two superquadrics",
                           "point cloud"};
    o << names[type] << " (" << vertices.size() << " mesh vertices, blend " << blend << "):";
    for (size_t i = 0; i < prims.size(); ++i) o << " [" << prims[i].describe() << " at " << pose(poses[i]) << "]";
    return o.str();
  }
};

bool mesh_object(ObjectSpec& o);

/// A random object; false when its iso-surface mesh could not be built (then redrawn).
bool random_object(Rng& rng, ObjectSpec& o) {
  o = ObjectSpec{};
  o.type = static_cast<int>(rng() % 5);
  const Pose I = Pose::identity();
  if (o.type == 0) {
    PrimitiveSpec s;
    for (int i = 0; i < 3; ++i) s.semi[i] = std::pow(10.0, uniform(rng, -1.0, 0.0));
    s.eps1 = s.eps2 = uniform(rng, 0.05, 0.3);
    o.prims = {s};
    o.poses = {I};
    const diffcol::mesh::TriangleMesh m = mf::make_refined_box(2.0 * s.semi, 1 + static_cast<int>(rng() % 2));
    o.vertices = m.vertices();
    o.faces = m.faces();
    return true;
  }
  if (o.type == 1 || o.type == 3) {
    const int n = o.type == 1 ? 1 : 2;
    for (int k = 0; k < n; ++k) {
      PrimitiveSpec s = random_primitive(rng, 0, 3.0);
      s.eps1 = uniform(rng, 0.2, 1.5);  // rounded enough for a coarse iso-surface; 1 in 3 an ellipsoid
      s.eps2 = uniform(rng, 0.2, 1.5);
      if (rng() % 3 == 0) s.eps1 = s.eps2 = 1.0;
      o.prims.push_back(s);
      o.poses.push_back(k == 0 ? I : make_pose(rotation(rng), 0.6 * direction(rng)));
    }
    o.blend = o.type == 3 ? uniform(rng, 0.02, 0.1) : 0.0;
  } else if (o.type == 2) {
    o.prims = {random_primitive(rng, 1, 3.0)};
    o.poses = {I};
  } else {
    o.prims = {random_primitive(rng, 2, 3.0)};
    o.prims[0].length = uniform(rng, 0.3, 0.5);
    o.poses = {I};
  }
  return mesh_object(o);
}

/// The iso-surface mesh of an object of types 1 … 4 (unit size); false where it cannot be built.
bool mesh_object(ObjectSpec& o) {
  // a grid around the primitives' boxes, cells half the smallest semi-axis, at most ~8 across
  double reach = 0.0, smallest = 1.0;
  for (size_t i = 0; i < o.prims.size(); ++i) {
    reach = std::max(reach, o.poses[i].p.norm() + o.prims[i].semi.norm());
    smallest = std::min(smallest, o.prims[i].semi.minCoeff());
  }
  mf::IsoSurfaceOptions iso;
  iso.lower = Vec3::Constant(-1.3 * reach);
  iso.upper = Vec3::Constant(1.3 * reach);
  iso.cell_size = std::max(smallest / 2.0, 2.6 * reach / 8.0);
  try {
    const diffcol::mesh::TriangleMesh m = mf::mesh_from_sdf(o.sdf(1.0), iso);
    // a flat solid (random hull points nearly coplanar) meshes into a sliver whose signed volume
    // is ~0 against its rounding: redrawn
    if (!(m.volume() > 1e-3 * reach * reach * reach)) return false;
    o.vertices = m.vertices();
    o.faces = m.faces();
  } catch (const std::invalid_argument&) {
    return false;
  }
  return true;
}

/// Options with every temperature, margin and regularization in the unit `L` (the smoothed
/// options of the box scenes, or hard ones).
mf::ManifoldOptions options_in_unit(bool hard, double L) {
  mf::ManifoldOptions o = hard ? mf::ManifoldOptions::hard(0.05) : mf::ManifoldOptions{};
  if (!hard) {
    o.t_topk = 0.05;
    o.contact.t_pen = 0.02;
    o.contact.t_nn = 0.05;
    o.contact.t_sign = 0.2;
    o.contact.t_clash = 0.2;
    o.witness.regularization = 0.05;
  }
  o.t_topk *= L;
  o.contact.t_pen *= L;
  o.contact.t_nn *= L;
  o.contact.pen_margin *= L;
  o.witness.regularization *= L * L;
  o.witness.t_min *= L * L;
  o.witness.normal_regularization *= L * L;
  return o;
}

/// One manifold sample: the two objects at unit size, the scene's unit, poses, options.
struct Scene {
  ObjectSpec a, b;
  double L = 1.0;
  Pose X1, X2;
  bool hard = false;
  int num_vertices[2] = {-1, -1}, num_edges[2] = {-1, -1};
  int projection = 0;
  bool aligned = false;  // axis-aligned poses

  mf::ManifoldOptions options(double unit) const {
    mf::ManifoldOptions o = options_in_unit(hard, unit);
    o.edge_edge = num_edges[0] != -2 && num_edges[1] != -2;
    for (int i = 0; i < 2; ++i) {
      o.num_vertices[i] = num_vertices[i];
      o.num_edges[i] = o.edge_edge ? num_edges[i] : -1;
    }
    o.projection_iterations = projection;
    return o;
  }
  /// Draws the objects, the unit, the options and the poses.
  void draw(Rng& rng, FailureCounts& fails) {
    while (!random_object(rng, a)) fails.note("objects redrawn (iso-surface refused or flat)");
    while (!random_object(rng, b)) fails.note("objects redrawn (iso-surface refused or flat)");
    L = log_uniform(rng, -6.0, 6.0);
    hard = rng() % 8 == 0;
    projection = !hard && rng() % 8 == 0 ? 3 : 0;
    // candidate selection: all on box meshes (half the time), a few by soft top-K otherwise;
    // hard options: all vertices, and all edges on small meshes (V-S only on larger ones)
    for (int k = 0; k < 2; ++k) {
      const ObjectSpec& spec = k == 0 ? a : b;
      const int nv = static_cast<int>(spec.vertices.size());
      const mf::ContactObject o = spec.build(1.0);
      int candidates = 0;
      for (double angle : o.edge_dihedral_angles()) candidates += angle > 1e-3 ? 1 : 0;
      const bool all = hard || (spec.type == 0 && rng() % 2 == 0);
      num_vertices[k] = all ? -1 : std::min(nv, 4 + static_cast<int>(rng() % 12));
      num_edges[k] = all ? -1 : std::min(candidates, 2 + static_cast<int>(rng() % 5));
      if (hard && nv > 40) num_edges[k] = -2;  // too many pairs: V-S only
    }
    // poses: body 1 somewhere (up to 1e3 units from the origin), body 2 overlapping it (3 in 4)
    // or 10 … 1e6 units away; 1 in 4 scenes axis-aligned (rotations that permute the axes, body 2
    // along an axis: exact zeros in the coordinates)
    aligned = rng() % 4 == 0;
    const auto turn = [&] { return aligned ? axis_rotation(rng) : rotation(rng); };
    const auto away = [&] { return aligned ? axis_direction(rng) : direction(rng); };
    X1 = make_pose(turn(), L * log_uniform(rng, -2.0, 3.0) * away());
    const double gap = rng() % 4 == 0 ? log_uniform(rng, 1.0, 6.0) : uniform(rng, 0.0, 1.6);
    X2 = make_pose(turn(), X1.p + L * gap * away());
  }
  std::string describe() const {
    std::ostringstream o;
    o.precision(17);
    o << "body 1 " << a.describe() << " at " << pose(X1) << "; body 2 " << b.describe() << " at " << pose(X2)
      << "; unit " << L << (hard ? ", hard" : ", smoothed") << ", |V| " << num_vertices[0] << " " << num_vertices[1]
      << ", |E| " << num_edges[0] << " " << num_edges[1] << ", projection " << projection
      << (aligned ? ", axis-aligned" : "");
    return o.str();
  }
};

bool all_finite(const mf::ContactManifold& m) {
  for (const mf::ManifoldEntry& e : m.entries)
    if (!(e.point.allFinite() && e.normal.allFinite() && std::isfinite(e.distance) && std::isfinite(e.activity)))
      return false;
  return true;
}
bool all_finite(const mf::ManifoldDerivatives& d) {
  for (size_t e = 0; e < d.J_point_X12.size(); ++e)
    if (!(d.J_point_X12[e].allFinite() && d.J_normal_X12[e].allFinite() && d.J_distance_X12[e].allFinite() &&
          d.J_activity_X12[e].allFinite()))
      return false;
  return true;
}
/// The first entry with a non-finite Jacobian, described.
std::string first_non_finite(const mf::ContactManifold& m, const mf::ManifoldDerivatives& d) {
  for (size_t e = 0; e < d.J_point_X12.size(); ++e)
    if (!(d.J_point_X12[e].allFinite() && d.J_normal_X12[e].allFinite() && d.J_distance_X12[e].allFinite() &&
          d.J_activity_X12[e].allFinite())) {
      std::ostringstream o;
      o.precision(17);
      const mf::ManifoldEntry& me = m.entries[e];
      o << "entry " << e << " (" << (me.kind == mf::ContactKind::vertex_sdf ? "V-S" : "E-E") << ", body "
        << me.body << ", source " << me.source << ") point " << vec(me.point) << " distance " << me.distance
        << " normal " << vec(me.normal) << ": J_distance " << d.J_distance_X12[e] << ", J_normal row 0 "
        << d.J_normal_X12[e].row(0);
      return o.str();
    }
  return "";
}

/// Index of entry e of the manifold of (body 1, body 2) in the manifold of (body 2, body 1).
int swapped_index(const mf::ContactManifold& m, int e) {
  const int v0 = m.num_vertex_sdf[0], v1 = m.num_vertex_sdf[1], E1 = m.num_edges[0], E2 = m.num_edges[1];
  if (e < v0) return v1 + e;
  if (e < v0 + v1) return e - v0;
  const int i = e - v0 - v1, pair = i / 2, b = i % 2, k = pair / E2, l = pair % E2;
  return v0 + v1 + 2 * (l * E1 + k) + (1 - b);
}

std::string entry_kind(const mf::ContactManifold& m, long e) {
  const mf::ManifoldEntry& x = m.entries[static_cast<size_t>(e)];
  return std::string(x.kind == mf::ContactKind::vertex_sdf ? "V-S" : "E-E") + ", body " + std::to_string(x.body);
}

/// The 8 numbers of every entry: point, distance, normal, activity.
Eigen::VectorXd stack(const mf::ContactManifold& m) {
  Eigen::VectorXd v(8 * static_cast<long>(m.entries.size()));
  for (size_t e = 0; e < m.entries.size(); ++e) {
    const mf::ManifoldEntry& me = m.entries[e];
    v.segment<3>(8 * static_cast<long>(e)) = me.point;
    v[8 * static_cast<long>(e) + 3] = me.distance;
    v.segment<3>(8 * static_cast<long>(e) + 4) = me.normal;
    v[8 * static_cast<long>(e) + 7] = me.activity;
  }
  return v;
}
Eigen::VectorXd directional(const mf::ManifoldDerivatives& d, const Eigen::Matrix<double, 12, 1>& z) {
  Eigen::VectorXd v(8 * static_cast<long>(d.J_point_X12.size()));
  for (size_t e = 0; e < d.J_point_X12.size(); ++e) {
    v.segment<3>(8 * static_cast<long>(e)) = d.J_point_X12[e] * z;
    v[8 * static_cast<long>(e) + 3] = d.J_distance_X12[e] * z;
    v.segment<3>(8 * static_cast<long>(e) + 4) = d.J_normal_X12[e] * z;
    v[8 * static_cast<long>(e) + 7] = d.J_activity_X12[e] * z;
  }
  return v;
}

/// Distance from q to the segment [a, b].
double point_segment(const Vec3& q, const Vec3& a, const Vec3& b) {
  const Vec3 e = b - a;
  const double ee = e.squaredNorm();
  const double t = ee > 0.0 ? std::clamp((q - a).dot(e) / ee, 0.0, 1.0) : 0.0;
  return (q - a - t * e).norm();
}

/// Largest difference of two manifolds, each entry's against its tolerance: `map` maps entries of
/// `m` to those of `o`; R, p, c map o's values back (point = Rᵀ(o.point − p)/c, distance / c,
/// normal Rᵀ·o.normal). tol(e) is entry e's tolerance for lengths (normals: 100×, activities:
/// 20× that over L: the temperatures are ≥ 0.02 L, so an activity moves by at most 12.5/L per unit
/// of distance).
struct Difference {
  double ratio = 0.0;  // largest difference / tolerance
  double length = 0.0, normal = 0.0, activity = 0.0;  // at that entry (lengths in L)
  int worst = -1;
};
template <class Map, class Tol, class Skip>
Difference compare(const mf::ContactManifold& m, const mf::ContactManifold& o, Map map, const Mat3& R, const Vec3& p,
                   double c, double L, Tol tol, Skip skip) {
  Difference d;
  if (o.entries.size() != m.entries.size()) {
    d.ratio = std::numeric_limits<double>::infinity();
    return d;
  }
  for (int e = 0; e < static_cast<int>(m.entries.size()); ++e) {
    if (skip(e)) continue;
    const mf::ManifoldEntry& x = m.entries[static_cast<size_t>(e)];
    const mf::ManifoldEntry& y = o.entries[static_cast<size_t>(map(e))];
    // an entry culled in either manifold (ManifoldOptions::culling; the decisions are bounds
    // taken in each variant's own frame and unit) carries a bound for its distance and normal
    // 0 (V-S): only its activity (below e^-40) is compared
    const bool culled = x.culled || y.culled;
    const double dl = culled ? 0.0
                             : std::max((R.transpose() * (y.point - p) / c - x.point).norm(),
                                        std::abs(y.distance / c - x.distance)) / L;
    const double dn = culled ? 0.0 : (R.transpose() * y.normal - x.normal).norm();
    const double da = std::abs(y.activity - x.activity);
    const double t = tol(e);
    const double ratio = std::max({dl / t, dn / (100.0 * t), da / (20.0 * t)});
    if (ratio > d.ratio || !(ratio == ratio)) {
      d.ratio = ratio == ratio ? ratio : std::numeric_limits<double>::infinity();
      d.length = dl, d.normal = dn, d.activity = da, d.worst = e;
    }
  }
  return d;
}
std::string entry_pair(const mf::ContactManifold& m, const mf::ContactManifold& o, int e, int oe) {
  if (e < 0) return "";
  std::ostringstream s;
  s.precision(17);
  const mf::ManifoldEntry& x = m.entries[static_cast<size_t>(e)];
  const mf::ManifoldEntry& y = o.entries[static_cast<size_t>(oe)];
  s << "entry " << e << " (" << (x.kind == mf::ContactKind::vertex_sdf ? "V-S" : "E-E") << ", body " << x.body
    << ", source " << x.source << "/" << x.other_source << "): point " << vec(x.point) << " distance " << x.distance
    << " normal " << vec(x.normal) << " activity " << x.activity << "; other: entry " << oe << " point "
    << vec(y.point) << " distance " << y.distance << " normal " << vec(y.normal) << " activity " << y.activity;
  return s.str();
}

TEST(ManifoldProperties, RandomManifoldsAreFiniteSymmetricInvariantAndDifferentiable) {
  const SweepSettings set("DIFFCOL_MANIFOLD_FUZZ", 300, 7101);
  FailureCounts fails(set.verbose);
  double worst_sym = 0.0, worst_unit = 0.0, worst_frame = 0.0, worst_ref = 0.0, worst_derivative = 0.0;
  for (long t = set.first; t < set.samples; ++t) {
    Rng rng = set.generator(t);
    Scene sc;
    sc.draw(rng, fails);
    // the objects in the scene's unit and in the unit × c of the unit-invariance check. A mesh
    // whose signed volume is ~0 against its rounding (a point cloud's zero level set with a
    // cavity) can fail TriangleMesh's orientation check at one scale: skipped (counted)
    const double c_unit = t % 2 == 0 ? 1e-3 : 1e3;  // every length × 1e-3 or × 1e3 (alternately)
    std::unique_ptr<mf::ContactObject> built[4];
    try {
      built[0] = std::make_unique<mf::ContactObject>(sc.a.build(sc.L));
      built[1] = std::make_unique<mf::ContactObject>(sc.b.build(sc.L));
      built[2] = std::make_unique<mf::ContactObject>(sc.a.build(sc.L * c_unit));
      built[3] = std::make_unique<mf::ContactObject>(sc.b.build(sc.L * c_unit));
    } catch (const std::invalid_argument& e) {
      fails.note(std::string("samples skipped: a mesh refused at the scale (") + e.what() + ")");
      continue;
    }
    const mf::ContactObject& o1 = *built[0];
    const mf::ContactObject& o2 = *built[1];
    const mf::ManifoldOptions opt = sc.options(sc.L);
    const auto at = [&] { return sc.describe() + ", sample " + std::to_string(t); };
    mf::ManifoldWorkspace ws;
    mf::ContactManifold m;
    try {
      mf::compute_manifold(o1, sc.X1, o2, sc.X2, opt, ws, m);
    } catch (const std::invalid_argument& e) {
      fails.report("refused", std::string(e.what()) + ": " + at());
      continue;
    }
    fails.note("manifolds");
    fails.note("entries", static_cast<long>(m.entries.size()));
    if (!all_finite(m)) {
      fails.report("non-finite field", at());
      continue;
    }
    // ranges and references: activities in [0, 1], normals at most unit; V-S distance = φ_other
    // at the point; points on their vertices / edges without selection and projection; E-E
    // distances within the witness distance
    {
      const double len_tol = 1e-12 * (sc.L + sc.X1.p.norm() + sc.X2.p.norm());
      for (int e = 0; e < static_cast<int>(m.entries.size()); ++e) {
        const mf::ManifoldEntry& me = m.entries[static_cast<size_t>(e)];
        const mf::ContactObject& own = me.body == 0 ? o1 : o2;
        const mf::ContactObject& other = me.body == 0 ? o2 : o1;
        const Pose& Xown = me.body == 0 ? sc.X1 : sc.X2;
        const Pose& Xother = me.body == 0 ? sc.X2 : sc.X1;
        const auto what = [&] {
          std::ostringstream o;
          o.precision(17);
          o << "entry " << e << " (" << (me.kind == mf::ContactKind::vertex_sdf ? "V-S" : "E-E") << ", body "
            << me.body << ", source " << me.source << "/" << me.other_source << ") point " << vec(me.point)
            << " distance " << me.distance << " normal " << vec(me.normal) << " activity " << me.activity << ": ";
          return o.str();
        };
        if (!(me.activity >= 0.0 && me.activity <= 1.0) || !(me.normal.norm() <= 1.0 + 1e-12)) {
          fails.report("activity or normal out of range", what() + at());
          continue;
        }
        if (me.kind == mf::ContactKind::vertex_sdf && me.culled) {
          // culled (manifold.hpp): distance 40·t_pen, a lower bound of φ_other at the point, and
          // activity 0
          const double phi = other.sdf().value(Xother.inverse() * me.point);
          fails.note("culled V-S entries");
          if (!(me.distance <= phi + 16.0 * len_tol + 1e-12 * std::abs(phi)) || me.activity != 0.0 ||
              me.normal.norm() != 0.0 ||
              !(std::abs(me.distance - 40.0 * opt.contact.t_pen) <= 1e-14 * opt.contact.t_pen)) {
            std::ostringstream o;
            o.precision(17);
            o << "culled V-S entry against its bound, the other body's SDF at the point " << phi << ": ";
            fails.report("culled V-S entry beyond its bound", o.str() + what() + at());
          }
        } else if (me.kind == mf::ContactKind::vertex_sdf) {
          const double phi = other.sdf().value(Xother.inverse() * me.point);
          const double err = std::abs(phi - me.distance);
          // the point is rounded by both poses: ε·(|p1| + |p2|) times ‖∇φ‖ (~1)
          const double tol = 16.0 * len_tol + 1e-12 * std::abs(phi);
          worst_ref = std::max(worst_ref, err / tol);
          if (!(err <= tol)) {
            std::ostringstream o;
            o.precision(17);
            o << "V-S distance against the other body's SDF at the point " << phi << ": ";
            fails.report("V-S distance vs the other SDF", o.str() + what() + at());
          }
          if (opt.num_vertices[me.body] < 0) {
            const Vec3 v = Xown * own.mesh().vertices()[static_cast<size_t>(me.source)];
            if (!((v - me.point).norm() <= len_tol))
              fails.report("V-S point off its vertex", "vertex " + vec(v) + ": " + what() + at());
          }
        } else if (opt.num_edges[me.body] < 0 && opt.projection_iterations == 0) {
          // on its edge's line, at α ∈ [−δ, 1 + δ]: the candidates are soft-clipped into (0, 1), the
          // unconstrained minimizer α^u enters with weight conγ ≤ σ((1 − α^u)/t_comp) beyond 1, so
          // α overshoots by at most max_y y·σ(−y/t) = 0.2785·t_comp
          const auto& E = own.mesh().edges()[static_cast<size_t>(me.source)];
          const Vec3 a = Xown * own.mesh().vertices()[static_cast<size_t>(E[0])];
          const Vec3 b = Xown * own.mesh().vertices()[static_cast<size_t>(E[1])];
          const double len = (b - a).norm();
          const double alpha = (me.point - a).dot(b - a) / (len * len);
          const double off_line = (me.point - a - alpha * (b - a)).norm();
          const double delta = 0.2785 * opt.witness.t_comp + 16.0 * len_tol / len;
          if (!(off_line <= 16.0 * len_tol) || !(alpha >= -delta && alpha <= 1.0 + delta)) {
            std::ostringstream o;
            o.precision(17);
            o << "edge " << vec(a) << " - " << vec(b) << ", alpha " << alpha << ", off its line by " << off_line << ": ";
            fails.report("E-E point off its edge", o.str() + what() + at());
          }
        }
        if (me.kind == mf::ContactKind::edge_edge) {
          const int partner = (e - m.num_vertex_sdf[0] - m.num_vertex_sdf[1]) % 2 == 0 ? e + 1 : e - 1;
          const double dbar = (m.entries[static_cast<size_t>(partner)].point - me.point).norm();
          if (!(std::abs(me.distance) <= dbar * (1.0 + 1e-12) + len_tol))
            fails.report("E-E distance beyond the witness distance", "witness distance " + std::to_string(dbar) + ": " + what() + at());
        }
      }
    }
    // SoftSort at tied metrics (mirror-image vertices and edges of symmetric, axis-aligned
    // scenes) blends the tied candidates (docs/manifold.md: use K = n or t_topk = 0 there): two
    // opposite edges of a box average into a segment through its centre, where the SDF's normal
    // depends on the direction of a rounding-sized offset. And P_rj depends on |s_r − x_j| and the
    // order of the tied entries, so the selected points have no derivative there (the analytic
    // one holds the order fixed: ties by index). Entries that use a selection with (nearly) tied
    // metrics are left out of the invariance and derivative checks (counted).
    bool tie_vertex[2] = {false, false}, tie_edge[2] = {false, false};
    for (int b = 0; b < 2; ++b) {
      const mf::ContactObject& own = b == 0 ? o1 : o2;
      const mf::ContactObject& other = b == 0 ? o2 : o1;
      const Pose X = (b == 0 ? sc.X2 : sc.X1).inverse() * (b == 0 ? sc.X1 : sc.X2);
      std::vector<double> metric;
      for (const Vec3& v : own.mesh().vertices()) metric.push_back(-other.sdf().value(X * v));
      const auto tied = [&](std::vector<double> x) {
        std::sort(x.begin(), x.end());
        for (size_t i = 1; i < x.size(); ++i)
          if (x[i] - x[i - 1] <= 1e-9 * sc.L) return true;
        return false;
      };
      if (opt.num_vertices[b] >= 0) tie_vertex[b] = tied(metric);
      if (opt.edge_edge && opt.num_edges[b] >= 0) {
        std::vector<double> edge_metric;
        const std::vector<double>& angle = own.edge_dihedral_angles();
        for (size_t j = 0; j < angle.size(); ++j)
          if (angle[j] > opt.feature_angle) {
            const auto& E = own.mesh().edges()[j];
            edge_metric.push_back(0.5 * (metric[static_cast<size_t>(E[0])] + metric[static_cast<size_t>(E[1])]));
          }
        tie_edge[b] = tied(edge_metric);
      }
    }
    const auto tied_entry = [&](int e) {
      const mf::ManifoldEntry& me = m.entries[static_cast<size_t>(e)];
      return me.kind == mf::ContactKind::vertex_sdf ? tie_vertex[me.body] : (tie_edge[0] || tie_edge[1]);
    };
    for (int e = 0; e < static_cast<int>(m.entries.size()); ++e)
      if (tied_entry(e)) fails.note("entries left out of the invariance checks (SoftSort tie)");
    // the same scene posed otherwise. Tolerances in L: the poses round every point by
    // ε·(|p1| + |p2|). The core works in one body's frame, where the other's vertices carry ε·D
    // (D the distance of the bodies): a far body's edge directions are off by ε·D/L, and so are its
    // SDF normals at its own witness points (by up to 2/ε1 times that near a boxy superquadric's
    // corner). An E-E entry's sign γ (soft sign of such a normal against the witness direction,
    // t_sign = 0.2) and its witness (costs ~ D·L compared at temperatures ~ L²) follow, and its
    // distance γ·‖e1 − e2‖ ~ D moves by ~ε·(D/L)² L times up to ~3e3 (measured; tolerance 1e4):
    // 2e-6 L at D = 1e3 L, 2 L at 1e6 L (E-E entries of bodies that far apart are inactive).
    const double pose_round = 2.2e-16 * (sc.X1.p.norm() + sc.X2.p.norm()) / sc.L;
    const double D = (sc.X2.p - sc.X1.p).norm() / sc.L;
    // A superquadric with ε > 1 has a normal that is only Hölder continuous on its coordinate
    // planes, |u_i|^(p−1) with p = 2/ε < 2, and axis-aligned scenes put points there: a rounding
    // ρ of the position moves the normal by ~ρ^(p−1) (and an E-E distance γ·‖e1 − e2‖ by that
    // times the distance).
    double holder = 0.0;
    if (sc.aligned)
      for (const ObjectSpec* o : {&sc.a, &sc.b})
        for (const PrimitiveSpec& pr : o->prims)
          if (pr.type == 0 && std::max(pr.eps1, pr.eps2) > 1.0)
            holder = std::max(holder, 0.1 * std::pow(1e-15 + 1e3 * pose_round, 2.0 / std::max(pr.eps1, pr.eps2) - 1.0));
    // A V-S entry's distance is the other body's SDF at the point, which moves by ‖∇φ‖ times the
    // point's rounding; a selected point (soft top-K, |V_b| < n) moves with its candidates'
    // metrics over t_topk (0.05 L) times their spread (~2 L). ‖∇φ‖ ≫ 1 far from a point cloud,
    // whose RBF weights switch between points over small angles (|d_i − φ| ~ D).
    std::vector<double> gain(m.entries.size(), 1.0);
    for (size_t e = 0; e < m.entries.size(); ++e) {
      const mf::ManifoldEntry& me = m.entries[e];
      // sphere tracing divides by ‖∇φ‖² at each step, which amplifies the rounding of the E-E
      // points where the gradient is small (sample 86572: 3e-9 L after 3 steps)
      if (me.kind == mf::ContactKind::edge_edge && opt.projection_iterations > 0) gain[e] = 100.0;
      if (me.kind != mf::ContactKind::vertex_sdf) continue;
      const mf::ContactObject& other = me.body == 0 ? o2 : o1;
      const Pose& Xo = me.body == 0 ? sc.X2 : sc.X1;
      const double g = other.sdf().gradient(Xo.inverse() * me.point).norm();
      // (the base tolerance's factor 1e3 on the rounding covers ‖∇φ‖ ~ 1 and the selection's
      // amplification of ordinary scenes: only larger gradients widen it)
      gain[e] = std::max(1.0, g) * (opt.num_vertices[me.body] >= 0 && !sc.hard ? std::max(1.0, 0.04 * g) : 1.0);
    }
    const auto entry_tol = [&](int e) {
      const bool ee = m.entries[static_cast<size_t>(e)].kind == mf::ContactKind::edge_edge;
      return (1e-10 + 1e3 * pose_round) * gain[static_cast<size_t>(e)] + (ee ? 1e4 * 2.2e-16 * D * D : 0.0) +
             holder * (ee ? 1.0 + D : 1.0);
    };
    const auto check_variant = [&](const char* cls, const mf::ContactManifold& o, auto map, const Mat3& R,
                                   const Vec3& p, double c, double* worst) {
      if (!all_finite(o)) {
        fails.report("non-finite field", std::string(cls) + ": " + at());
        return;
      }
      const Difference d = compare(m, o, map, R, p, c, sc.L, entry_tol, tied_entry);
      if (!sc.hard) *worst = std::max(*worst, d.ratio);
      if (!(d.ratio <= 1.0)) {
        std::ostringstream s;
        s.precision(3);
        s << "difference " << d.ratio << " tolerances at entry " << d.worst << " (lengths " << d.length
          << " L, normal " << d.normal << ", activity " << d.activity << ", length tolerance " << entry_tol(d.worst)
          << " L); " << entry_pair(m, o, d.worst, d.worst < 0 ? 0 : map(d.worst)) << ": ";
        if (sc.hard) fails.tolerate(std::string(cls) + ", hard options", s.str() + at());
        else fails.report(cls, s.str() + at());
      }
    };
    {
      mf::ManifoldOptions so = opt;
      std::swap(so.num_vertices[0], so.num_vertices[1]);
      std::swap(so.num_edges[0], so.num_edges[1]);
      mf::ContactManifold o;
      mf::compute_manifold(o2, sc.X2, o1, sc.X1, so, ws, o);
      check_variant("symmetry (bodies swapped)", o, [&](int e) { return swapped_index(m, e); }, Mat3::Identity(),
                    Vec3::Zero(), 1.0, &worst_sym);
    }
    {
      const double c = c_unit;
      const mf::ContactObject& s1 = *built[2];
      const mf::ContactObject& s2 = *built[3];
      const mf::ManifoldOptions so = sc.options(sc.L * c);
      mf::ContactManifold o;
      mf::compute_manifold(s1, scaled_pose(sc.X1, c), s2, scaled_pose(sc.X2, c), so, ws, o);
      check_variant(c < 1.0 ? "unit invariance (x 1e-3)" : "unit invariance (x 1e3)", o, [](int e) { return e; },
                    Mat3::Identity(), Vec3::Zero(), c, &worst_unit);
    }
    {
      const Pose T = make_pose(rotation(rng), sc.L * log_uniform(rng, -2.0, 2.0) * direction(rng));
      mf::ContactManifold o;
      mf::compute_manifold(o1, T * sc.X1, o2, T * sc.X2, opt, ws, o);
      check_variant("world frame", o, [](int e) { return e; }, T.R, T.p, 1.0, &worst_frame);
    }
    // derivatives (every 8th sample; all Jacobians must be finite on those)
    if (t % 8 != 0) continue;
    const bool log_coordinates = (t / 8) % 4 == 3;
    mf::ContactManifold md;
    mf::ManifoldDerivatives d;
    mf::compute_manifold_derivatives(o1, sc.X1, o2, sc.X2, opt,
                                     log_coordinates ? mf::PoseCoordinates::se3_log : mf::PoseCoordinates::local,
                                     ws, md, d);
    fails.note("derivative passes");
    if (!all_finite(d)) {
      fails.report("non-finite Jacobian", first_non_finite(md, d) + ": " + at());
      continue;
    }
    {
      const Difference dv = all_finite(md) ? compare(m, md, [](int e) { return e; }, Mat3::Identity(), Vec3::Zero(), 1.0,
                                                     sc.L, entry_tol, tied_entry)
                                           : Difference{std::numeric_limits<double>::infinity()};
      if (!(dv.ratio <= 1.0)) {
        std::ostringstream o;
        o.precision(3);
        o << "difference " << dv.ratio << " tolerances; " << entry_pair(m, md, dv.worst, std::max(dv.worst, 0)) << ": ";
        fails.report("derivative pass values differ from the value pass", o.str() + at());
        continue;
      }
    }
    if (sc.hard) continue;  // piecewise constant selections and argmins: no finite differences
    // a random direction: rotations scaled so that the farthest point of the other body moves
    // about as far as the translations (L per unit step); in se(3) log coordinates a rotation
    // also moves the body's origin by up to its distance from the world origin
    const double reach = 1.0 + (sc.X2.p - sc.X1.p).norm() / sc.L +
                         (log_coordinates ? (sc.X1.p.norm() + sc.X2.p.norm()) / sc.L : 0.0);
    Eigen::Matrix<double, 12, 1> z;
    z << direction(rng) / reach, sc.L * direction(rng), direction(rng) / reach, sc.L * direction(rng);
    const Eigen::VectorXd analytic = directional(d, z);
    Pose P1 = sc.X1, P2 = sc.X2;
    Vec6 s1 = diffcol::se3_log(sc.X1), s2 = diffcol::se3_log(sc.X2);
    const auto at_step = [&](double h) {
      Pose A, B;
      if (log_coordinates) {
        A = diffcol::se3_exp(Vec6(s1 + h * z.head<6>()));
        B = diffcol::se3_exp(Vec6(s2 + h * z.tail<6>()));
      } else {
        A = P1 * diffcol::se3_exp(Vec6(h * z.head<6>()));
        B = P2 * diffcol::se3_exp(Vec6(h * z.tail<6>()));
      }
      mf::ContactManifold q;
      mf::compute_manifold(o1, A, o2, B, opt, ws, q);
      return stack(q);
    };
    // central differences at h, h/2, h/4 and two Richardson extrapolations; an output where they
    // disagree beyond the tolerance (a sort order, a union culling decision or another branch
    // changes within the step, or the step is too coarse for the curvature) is left out, and so
    // is one with a kink at the pose itself (ties of SoftSort metrics or of candidate costs in
    // symmetric, axis-aligned scenes, where central differences average two one-sided
    // derivatives): the jump between its one-sided differences does not shrink with the step.
    const double h = 1e-5;
    const Eigen::VectorXd f0 = at_step(0.0), fp4 = at_step(h / 4), fm4 = at_step(-h / 4);
    const Eigen::VectorXd fp8 = at_step(h / 8), fm8 = at_step(-h / 8);
    const Eigen::VectorXd D1 = (at_step(h) - at_step(-h)) / (2.0 * h);
    const Eigen::VectorXd D2 = (at_step(h / 2) - at_step(-h / 2)) / h;
    const Eigen::VectorXd D3 = (fp4 - fm4) / (h / 2);
    const Eigen::VectorXd R1 = (4.0 * D2 - D1) / 3.0, fd = (4.0 * D3 - D2) / 3.0;
    const Eigen::VectorXd jump4 = (fp4 - 2.0 * f0 + fm4) / (h / 4), jump8 = (fp8 - 2.0 * f0 + fm8) / (h / 8);
    // per output: lengths in L, normals and activities as they are; rounding of the values
    // ~ε·(reach)/h. Outputs with a kink or unsettled differences are left out (counted).
    const double noise = 64.0 * 2.2e-16 * (reach + (sc.X1.p.norm() + sc.X2.p.norm()) / sc.L) / (h / 8);
    // Axis-aligned scenes put points on the superquadrics' coordinate planes. With ε > 1 the
    // derivative of the normal is unbounded there (the terms |u_i|^(p−2), p = 2/ε < 2; the code
    // takes them as 0 on the plane itself); with 2/3 < ε < 1 it is finite but its own derivative
    // is not (|u_i|^(p−3)), so central differences converge only like h^(p−2). Such scenes' outputs
    // are left out (an ellipsoid's terms are polynomial: kept).
    bool rough = false;
    for (const ObjectSpec* o : {&sc.a, &sc.b})
      for (const PrimitiveSpec& pr : o->prims)
        rough = rough || (pr.type == 0 && std::max(pr.eps1, pr.eps2) > 2.0 / 3.0 && !(pr.eps1 == 1.0 && pr.eps2 == 1.0));
    if (sc.aligned && rough) {
      fails.note("derivative outputs left out (axis-aligned, superquadric with eps > 2/3)", analytic.size());
      continue;
    }
    double worst = 0.0;
    long compared = 0, kinks = 0, unsettled = 0, ties = 0;
    int worst_entry = -1, worst_output = -1;
    for (long i = 0; i < analytic.size(); ++i) {
      const int k = static_cast<int>(i % 8);
      const double unit = (k < 4) ? sc.L : 1.0;
      const double err = std::abs(analytic[i] - fd[i]) / unit;
      const mf::ManifoldEntry& me = m.entries[static_cast<size_t>(i / 8)];
      // an E-E entry's values carry up to ~1e4·ε·(D/L)² L (see the invariance tolerances above)
      const double ee_noise = me.kind == mf::ContactKind::edge_edge ? 1e4 * 2.2e-16 * D * D / (h / 8) : 0.0;
      // 1e-5 relative: selections by soft top-K over hundreds of candidates are piecewise smooth
      // with kinks wherever two metrics cross, and central differences across them converge
      // only like O(h)
      const double tol = 1e-5 * (std::abs(analytic[i]) / unit + 1.0) + noise + ee_noise;
      if (tied_entry(static_cast<int>(i / 8))) {
        ++ties;
        continue;
      }
      if (std::abs(jump8[i]) / unit > tol && std::abs(jump8[i]) > 0.75 * std::abs(jump4[i])) {
        ++kinks;
        continue;
      }
      if (!(std::abs(R1[i] - fd[i]) / unit <= 0.1 * tol)) {
        ++unsettled;
        continue;
      }
      ++compared;
      if (err / tol > worst) worst = err / tol, worst_entry = static_cast<int>(i / 8), worst_output = k;
    }
    fails.note("derivative outputs compared", compared);
    fails.note("derivative outputs left out (kink at the pose)", kinks);
    fails.note("derivative outputs left out (steps disagree)", unsettled);
    fails.note("derivative outputs left out (SoftSort tie)", ties);
    if (compared == 0) continue;
    fails.note("derivative checks");  // passes with at least one output compared
    worst_derivative = std::max(worst_derivative, worst);
    if (!(worst <= 1.0)) {
      std::ostringstream o;
      o.precision(17);
      const long e = worst_entry;
      const char* names[8] = {"point x", "point y", "point z", "distance", "normal x", "normal y", "normal z", "activity"};
      o << (log_coordinates ? "se(3) log" : "body twist") << " directional derivative off by " << worst
        << " tolerances at entry " << e << " (" << entry_kind(m, e) << "), " << names[worst_output] << ": analytic [" << analytic.segment<8>(8 * e).transpose()
        << "] central differences [" << fd.segment<8>(8 * e).transpose() << "] (from h, h/2: " << R1.segment<8>(8 * e).transpose()
        << "): " << at();
      fails.report("derivative vs central differences", o.str());
    }
  }
  fails.print("manifold sweep");
  std::printf("manifold sweep: %ld samples; worst difference / tolerance (smoothed options): symmetry %.3g, unit %.3g, "
              "world frame %.3g; V-S distance vs the other SDF %.3g; derivatives %.3g\n",
              set.samples - set.first, worst_sym, worst_unit, worst_frame, worst_ref, worst_derivative);
  // Hard options ("Ours-NS") take one-hot argmins: where two E-E distances tie exactly (the
  // nearest neighbours (13)–(14)) the first index wins, and rounding decides which is first in
  // another pose, unit or argument order. Counted, not failed, up to a small bound.
  long tolerated = 0;
  for (const char* c : {"symmetry (bodies swapped)", "unit invariance (x 1e-3)", "unit invariance (x 1e3)", "world frame"})
    tolerated += fails.failures(std::string(c) + ", hard options");
  EXPECT_LE(tolerated, 2 + (set.samples - set.first) / 2000);
  EXPECT_EQ(fails.total_failures() - tolerated, 0);
}

}  // namespace manifold_properties_test

namespace manifold_properties_test {

// ---------------------------------------------------------------------------------------------
// Regression tests of what the sweeps found
// ---------------------------------------------------------------------------------------------

/// Two boxes and an ellipsoid on refined-box / iso-surface meshes, every length × f.
struct SmallScene {
  ObjectSpec box, ellipsoid, blob;
  SmallScene() {
    box.type = 0;
    PrimitiveSpec b;
    b.semi = Vec3(0.5, 0.3, 0.2);
    b.eps1 = b.eps2 = 0.1;
    box.prims = {b};
    box.poses = {Pose::identity()};
    const diffcol::mesh::TriangleMesh m = mf::make_refined_box(2.0 * b.semi, 2);
    box.vertices = m.vertices();
    box.faces = m.faces();
    ellipsoid.type = 1;
    PrimitiveSpec e;
    e.semi = Vec3(0.4, 0.3, 0.25);
    ellipsoid.prims = {e};
    ellipsoid.poses = {Pose::identity()};
    // the same ellipsoid with a small rounded box blended onto it (a union of superquadrics of
    // different sizes: their normals combine with the union's weights)
    blob = ellipsoid;
    blob.type = 3;
    PrimitiveSpec k;
    k.semi = Vec3(0.05, 0.06, 0.04);
    k.eps1 = k.eps2 = 0.3;
    blob.prims.push_back(k);
    blob.poses.push_back(make_pose(Mat3::Identity(), Vec3(0.0, 0.0, 0.26)));
    blob.blend = 0.05;
    mf::IsoSurfaceOptions iso;
    iso.lower = Vec3::Constant(-0.6);
    iso.upper = Vec3::Constant(0.6);
    iso.cell_size = 0.1;
    const diffcol::mesh::TriangleMesh me = mf::mesh_from_sdf(ellipsoid.sdf(1.0), iso);
    ellipsoid.vertices = me.vertices();
    ellipsoid.faces = me.faces();
    iso.cell_size = 0.05;
    const diffcol::mesh::TriangleMesh mb = mf::mesh_from_sdf(blob.sdf(1.0), iso);
    blob.vertices = mb.vertices();
    blob.faces = mb.faces();
  }
};

TEST(ManifoldProperties, SuperquadricNormalsDoNotDependOnTheUnitOfLength) {
  // The superquadric's normal was g/√(τ + ‖g‖²) with g = ∇h, which scales like 1/length: with the
  // default τ = 1e-12, in units where a primitive is ~1e6 long ‖g‖² ~ τ and its normal shrinks.
  // A single primitive's normal is renormalized by SdfObject, but a union combines its primitives'
  // shrunken normals with the union's weights, so the direction changed with the unit (by ~1e-2
  // here). g = √3·max(a, b, c)·∇h is unit-free (‖g‖ ≥ 1).
  const SmallScene s;
  const Pose X1 = make_pose(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()).toRotationMatrix(), Vec3(0.1, -0.05, 0.3));
  const Pose X2 = make_pose(Eigen::AngleAxisd(-0.7, Vec3(3, -1, 1).normalized()).toRotationMatrix(), Vec3(0.0, 0.1, 0.0));
  const auto options = [](double f) {
    mf::ManifoldOptions o = options_in_unit(false, f);
    o.num_vertices[1] = 24;
    o.num_edges[1] = 6;
    return o;
  };
  mf::ManifoldWorkspace ws;
  mf::ContactManifold ref;
  mf::compute_manifold(s.box.build(1.0), X1, s.blob.build(1.0), X2, options(1.0), ws, ref);
  ASSERT_GT(ref.entries.size(), 0u);
  double active = 0.0;
  for (const mf::ManifoldEntry& e : ref.entries) active = std::max(active, e.activity);
  EXPECT_GT(active, 0.5);  // the bodies overlap
  for (const double f : {1e-6, 1e-3, 1e3, 1e5, 1e6, 1e7}) {
    mf::ContactManifold m;
    mf::compute_manifold(s.box.build(f), scaled_pose(X1, f), s.blob.build(f), scaled_pose(X2, f), options(f), ws,
                         m);
    ASSERT_EQ(m.entries.size(), ref.entries.size());
    double worst_normal = 0.0, worst_length = 0.0, worst_activity = 0.0;
    for (size_t e = 0; e < m.entries.size(); ++e) {
      worst_normal = std::max(worst_normal, (m.entries[e].normal - ref.entries[e].normal).norm());
      worst_length = std::max({worst_length, (m.entries[e].point / f - ref.entries[e].point).norm(),
                               std::abs(m.entries[e].distance / f - ref.entries[e].distance)});
      worst_activity = std::max(worst_activity, std::abs(m.entries[e].activity - ref.entries[e].activity));
    }
    EXPECT_LT(worst_normal, 1e-12) << "lengths x " << f;
    EXPECT_LT(worst_length, 1e-12) << "lengths x " << f;
    EXPECT_LT(worst_activity, 1e-10) << "lengths x " << f;
  }
}

TEST(ManifoldProperties, PointCloudFarQueriesKeepTheirDigits) {
  // The RBF SDF (6) of an oriented point cloud weighs the points by exp(−‖x − p_i‖²/(2σ²)). With
  // the logits taken as they are, far queries lost their digits: ‖x − p_i‖²/σ² rounds with
  // ε·‖x‖²/σ², 0.02 at 1e6 sizes with σ = 0.1 size. It shows where the nearest points tie along
  // the query direction (equal heights: their weights stay comparable at any distance). Relative
  // to the cloud's centre the logits round with ε·‖x‖·size/σ².
  std::vector<Vec3> p = {{0.5, 0.0, -0.1}, {-0.5, 0.0, -0.1}, {0.0, 0.3, 0.1}, {0.2, -0.25, 0.1}, {0.1, 0.1, -0.2}};
  std::vector<Vec3> n = {{1, 0, 0}, {-1, 0, 0}, {0.2, 1, 0.5}, {-0.3, -1, 0.6}, {0, 0, -1}};
  PrimitiveSpec spec;
  spec.type = 2;
  spec.points = p;
  spec.normals = n;
  spec.length = 0.1;
  const mf::SdfPrimitive prim = spec.build(1.0, Pose::identity());
  const mf::OrientedPointCloud& cloud = std::get<mf::OrientedPointCloud>(prim);
  double worst_value = 0.0, worst_normal = 0.0;
  for (const double r : {1e2, 1e4, 1e5, 1e6, 1e7}) {
    // along +z the points 2 and 3 are the nearest, their logits 0.625 apart at any distance
    const Vec3 x(0.0, 0.0, r);
    const Reference ref = cloud_reference(spec, 1.0, x);
    const mf::SdfPoint<double> v = cloud.evaluate(mf::V3<double>::from(x), 0.0);
    Vec3 n_ref;
    for (int i = 0; i < 3; ++i) n_ref[i] = static_cast<double>(ref.direction[i] / ref.direction.norm());
    worst_value = std::max(worst_value, std::abs(v.value - static_cast<double>(ref.value)) / r);
    worst_normal = std::max(worst_normal, (mf::values(v.normal) - n_ref).norm());
  }
  EXPECT_LT(worst_value, 1e-9);  // relative to the distance
  EXPECT_LT(worst_normal, 1e-9);
  std::printf("point cloud, tied queries 1e2 … 1e7 sizes away: worst value error %.2e of the distance, normal %.2e\n",
              worst_value, worst_normal);
}

TEST(ManifoldProperties, SuperquadricDualDerivativesNearItsCoordinatePlanes) {
  // Dual evaluation of a superquadric at a point with a zero or tiny coordinate: the fast form
  // divided by |u_i| (1/|u_i| overflows for a subnormal u_i: NaN derivatives, 0·∞) and dropped
  // the derivative of |u_i|^(p−1) at u_i = 0 (which is 1 for an ellipsoid). The sweep met both:
  // an E-E witness at α = 2e-313 on a box edge through a coordinate plane (NaN Jacobians of a
  // far-apart pair), and wrong derivatives in axis-aligned scenes. Now: finite, and equal to
  // central differences of the double evaluation where they exist (ε ≤ 1).
  for (const double eps : {0.1, 0.5, 1.0}) {
    const mf::Superquadric sq(Vec3(0.5, 0.3, 0.2), eps, eps);
    for (const double tiny : {0.0, 1e-310, 1e-200, 1e-120, 1e-90}) {
      for (int axis = 0; axis < 3; ++axis) {
        Vec3 x(0.31, -0.27, 0.13);
        x[axis] = tiny;
        const mf::V3<mf::Dual<3>> xd(mf::Dual<3>::variable(x.x(), 0), mf::Dual<3>::variable(x.y(), 1),
                                     mf::Dual<3>::variable(x.z(), 2));
        const mf::SdfPoint<mf::Dual<3>> p = sq.evaluate(xd, 1e-12);
        Eigen::Matrix3d Jg, Jn;
        bool finite = p.value.d.allFinite();
        for (int i = 0; i < 3; ++i) {
          finite = finite && p.gradient[i].d.allFinite() && p.normal[i].d.allFinite();
          Jg.row(i) = p.gradient[i].d.transpose();
          Jn.row(i) = p.normal[i].d.transpose();
        }
        EXPECT_TRUE(finite) << "eps " << eps << " tiny " << tiny << " axis " << axis;
        if (!finite) continue;
        // central differences (the function is smooth across the plane for ε ≤ 1)
        const double h = 1e-6;
        for (int j = 0; j < 3; ++j) {
          Vec3 a = x, b = x;
          a[j] += h;
          b[j] -= h;
          const mf::SdfPoint<double> pa = sq.evaluate(mf::V3<double>::from(a), 1e-12);
          const mf::SdfPoint<double> pb = sq.evaluate(mf::V3<double>::from(b), 1e-12);
          const Vec3 dg = (mf::values(pa.gradient) - mf::values(pb.gradient)) / (2 * h);
          const Vec3 dn = (mf::values(pa.normal) - mf::values(pb.normal)) / (2 * h);
          EXPECT_LT((Jg.col(j) - dg).norm(), 1e-5 * (1.0 + dg.norm()))
              << "eps " << eps << " tiny " << tiny << " axis " << axis << " column " << j;
          EXPECT_LT((Jn.col(j) - dn).norm(), 1e-5 * (1.0 + dn.norm()))
              << "eps " << eps << " tiny " << tiny << " axis " << axis << " column " << j;
        }
      }
    }
  }
  // ε > 1: unbounded on the plane; finite (0 there, clamped next to it)
  const mf::Superquadric pinched(Vec3(0.5, 0.3, 0.2), 1.5, 1.7);
  for (const double tiny : {0.0, 1e-310, 1e-200}) {
    const mf::V3<mf::Dual<3>> xd(mf::Dual<3>::variable(tiny, 0), mf::Dual<3>::variable(0.2, 1),
                                 mf::Dual<3>::variable(-0.1, 2));
    const mf::SdfPoint<mf::Dual<3>> p = pinched.evaluate(xd, 1e-12);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(p.normal[i].d.allFinite() && p.gradient[i].d.allFinite()) << tiny;
  }
}

TEST(ManifoldProperties, FarApartPairOfTheSweepHasFiniteJacobians) {
  // The sweep met NaN Jacobians in compute_manifold_derivatives: with the box (body 2) 180 units
  // from a convex polyhedron, unit L = 0.13, an E-E witness was soft-clipped to α = 2e-313 on a box
  // edge that starts on the box's coordinate plane z = 0 (its mesh has 2 × 2 squares per face), and
  // the superquadric's Dual evaluation at that subnormal coordinate divided by it. Every entry must
  // be finite.
  const SmallScene s;
  mf::ManifoldWorkspace ws;
  mf::ContactManifold m;
  mf::ManifoldDerivatives d;
  // seed 7101, sample 2751 (before the sweep's draw changed)
  ObjectSpec poly;
  poly.type = 2;
  PrimitiveSpec ps;
  ps.type = 1;
  ps.semi = Vec3(0.89953528646395176, 0.40438432479029685, 0.68813672307207663);
  ps.points = {{-0.33605817562098173, -0.28924592164377949, 0.40641555362568349},
               {0.24148204130523546, -0.37156200615516, -0.19905820141085026},
               {0.82689436023978291, 0.15163202248386701, -0.082530322659795763},
               {-0.83086610280714657, -0.14778721827071792, 0.079320324900979747},
               {-0.27886503383291872, 0.36840630276064185, 0.18708947904597611},
               {0.49445108842172575, 0.0026341211891367394, 0.57483769981456312}};
  ps.length = 0.00016793697825201226;
  poly.prims = {ps};
  poly.poses = {Pose::identity()};
  ASSERT_TRUE(mesh_object(poly));
  ObjectSpec box2 = s.box;
  box2.prims[0].semi = Vec3(0.37872531102254675, 0.52519342619298715, 0.51667613190047623);
  box2.prims[0].eps1 = box2.prims[0].eps2 = 0.26068971369478694;
  const diffcol::mesh::TriangleMesh bm = mf::make_refined_box(2.0 * box2.prims[0].semi, 2);
  box2.vertices = bm.vertices();
  box2.faces = bm.faces();
  Mat3 R1, R2;
  R1 << -0.12260416938191976, -0.57616751026690971, -0.80808367002619208, 0.082122905247125011, -0.81732388763500152,
      0.57029596801571225, -0.98905209472703748, 0.0035584847951145027, 0.14752386621161273;
  R2 << 0.49398244271035396, 0.85930416948752586, -0.13258088321951067, -0.86938172920642254, 0.49035087425083723,
      -0.061085424149220933, 0.01252019232929568, 0.14543852454832315, 0.98928806743094011;
  const double L = 0.13245513619698623;
  mf::ManifoldOptions o = options_in_unit(false, L);
  o.num_vertices[0] = 9;
  o.num_edges[0] = 3;
  mf::compute_manifold_derivatives(poly.build(L), make_pose(R1, Vec3(0.007432137597849651, 0.0029157457268456808, -0.0032343175444988835)),
                                   box2.build(L), make_pose(R2, Vec3(-14.14339849163075, 12.51172186475539, 17.490234029597822)),
                                   o, mf::PoseCoordinates::local, ws, m, d);
  EXPECT_TRUE(all_finite(m));
  EXPECT_TRUE(all_finite(d)) << first_non_finite(m, d);
}

TEST(ManifoldProperties, SoftSortDerivativeAtTiedMetrics) {
  // soft_top_k_generic at tied metrics (mirror-image vertices of axis-aligned scenes): each row's
  // |s_r − x_j| took its branch from the sign of s_r − x_j, which is 0 at a tie, so the row of the
  // second tied entry held the opposite order to the first's and its derivative matched neither
  // side. The derivative is now that of the sort order held fixed (ties by index): the one-sided
  // derivative in a direction that keeps that order.
  const int n = 5, k = 4;
  const double x[n] = {0.3, 0.7, 0.7, 0.1, 0.7};
  const double dx[n] = {0.2, 0.9, 0.5, -0.4, 0.1};  // keeps x1 ≥ x2 ≥ x4 for h > 0 (the index order)
  mf::Dual<6> xd[n], P[k * n];
  int order[k], scratch[n];
  for (int j = 0; j < n; ++j) {
    xd[j] = mf::Dual<6>(x[j]);
    xd[j].d[0] = dx[j];
  }
  mf::soft_top_k_generic(xd, n, k, 0.2, P, order, scratch);
  EXPECT_EQ(order[0], 1);
  EXPECT_EQ(order[1], 2);
  EXPECT_EQ(order[2], 4);
  const auto at = [&](double h, double* Q) {
    double y[n];
    int o[k], sc[n];
    for (int j = 0; j < n; ++j) y[j] = x[j] + h * dx[j];
    mf::soft_top_k_generic(y, n, k, 0.2, Q, o, sc);
  };
  double Q0[k * n], Q1[k * n], Q2[k * n];
  const double h = 1e-6;
  at(0.0, Q0);
  at(h, Q1);
  at(2 * h, Q2);
  for (int i = 0; i < k * n; ++i) {
    const double forward = (-3.0 * Q0[i] + 4.0 * Q1[i] - Q2[i]) / (2 * h);  // second-order one-sided
    EXPECT_NEAR(P[i].d[0], forward, 1e-6) << "row " << i / n << " column " << i % n;
  }
}

}  // namespace manifold_properties_test
