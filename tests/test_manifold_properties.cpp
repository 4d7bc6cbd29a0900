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
// Failures are counted by class (printed) and the first few described. DIFFCOL_MANIFOLD_FUZZ_SAMPLES
// (default 2000 manifolds; the primitive sweep draws 8 queries per sample), _SEED (default 7101),
// _FIRST (start at that sample: _FIRST=k _SAMPLES=k+1 reruns sample k alone), DIFFCOL_FUZZ_VERBOSE.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
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
using diffcol::test::random_rotation;
using diffcol::test::random_unit;
using diffcol::test::SweepSettings;
using Rng = std::mt19937_64;
using LD = long double;

double uniform(Rng& rng, double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
/// 10^U(a, b).
double log_uniform(Rng& rng, double a, double b) { return std::pow(10.0, uniform(rng, a, b)); }
Mat3 rotation(Rng& rng) {
  std::mt19937 r(static_cast<unsigned>(rng()));
  return random_rotation(r);
}
Vec3 direction(Rng& rng) {
  std::mt19937 r(static_cast<unsigned>(rng()));
  return random_unit(r);
}
Pose scaled_pose(const Pose& X, double f) { return make_pose(X.R, f * X.p); }

std::string vec(const Vec3& v) {
  std::ostringstream o;
  o.precision(17);
  o << "(" << v.x() << ", " << v.y() << ", " << v.z() << ")";
  return o.str();
}
std::string pose(const Pose& X) {
  std::ostringstream o;
  o.precision(17);
  o << "R [" << X.R.reshaped().transpose() << "] p " << vec(X.p);
  return o.str();
}

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
  const SweepSettings set("DIFFCOL_MANIFOLD_FUZZ", 2000, 7101);
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
      if (rng() % 4 == 0) u[static_cast<int>(rng() % 3)] *= log_uniform(rng, -300.0, -20.0);  // tiny coordinate
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
      for (int j = 0; j < 3; ++j) {
        const Reference q = reference(x_P + rho * direction(rng));
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
        const double derr = std::abs(w.value / c - v.value);
        const double nerr = (mf::values(w.normal) - normal).norm();
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

}  // namespace manifold_properties_test
