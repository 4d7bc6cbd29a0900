// Tests of the DCOL results at every scale (include/diffcol/dcol/contact.hpp): the certificate
// (certify) accepts exact solutions and refuses perturbed ones; origins from 1e-11 to 1e8 shape
// sizes apart and shapes from 1e-9 to 1e9 in size give the unit-size answer, scaled; independent
// references at near-coincident origins (closed forms, a bisection on the segment distance, LP
// vertex enumeration, iDCOL); and a property-based sweep over random primitives and extreme poses
// (DIFFCOL_DCOL_FUZZ_SAMPLES, default 3000; 1e6 for the long run).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/shapes/superellipsoid.hpp"

#include "dcol_test_util.hpp"
#include "test_util.hpp"

namespace dcol_certified_test {

using namespace diffcol;
using namespace diffcol::dcol;
using namespace diffcol::dcol_test;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;

/// Every numeric field of a result is finite.
bool all_finite(const ContactResult& r) {
  return std::isfinite(r.alpha) && std::isfinite(r.gap) && std::isfinite(r.duality_measure) &&
         std::isfinite(r.primal_residual) && std::isfinite(r.dual_residual) && std::isfinite(r.certificate_gap) &&
         r.x_W.allFinite() && r.p1_W.allFinite() && r.p2_W.allFinite();
}

/// Body 2 placed so that its shape origin sits at r_1 + f·size·u (body 1's shape origin r_1).
Pose placed_at(const Primitive& s1, const Pose& X1, const Primitive& s2, const Mat3& R2, const Vec3& u, double f,
               double size) {
  const Pose X_WS1 = X1 * primitive_offset(s1);
  const Pose& off2 = primitive_offset(s2);
  // X_WB2·off2 has translation R2·off2.p + p2 = r1 + f·size·u
  return make_pose(R2, X_WS1.p + (f * size) * u - R2 * off2.p);
}

double pair_size(const Primitive& a, const Primitive& b) { return std::max(outer_radius(a), outer_radius(b)); }

/// The segment–segment distance in closed form (clamped parameters, both orders): the reference
/// for capsule pairs, written without the solver's code.
double segment_distance(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  const double b = d1.dot(d2), c = d1.dot(r);
  const double den = a * e - b * b;
  double s = den > 1e-300 * a * e ? std::clamp((b * f - c * e) / den, 0.0, 1.0) : 0.0;
  double t = (b * s + f) / e;
  if (t < 0.0) {
    t = 0.0;
    s = std::clamp(-c / a, 0.0, 1.0);
  } else if (t > 1.0) {
    t = 1.0;
    s = std::clamp((b - c) / a, 0.0, 1.0);
  }
  return (p0 + s * d1 - (q0 + t * d2)).norm();
}

/// α of two capsules by bisection on g(α) = dist(segments scaled by α) − α(R1 + R2): convex in α,
/// positive at 0 and negative beyond the root, so one sign change.
double capsule_alpha_bisection(const Capsule& c1, const Pose& X1, const Capsule& c2, const Pose& X2) {
  const auto g = [&](double a) {
    const Vec3 e1 = (0.5 * a * c1.L) * X1.R.col(0), e2 = (0.5 * a * c2.L) * X2.R.col(0);
    return segment_distance(X1.p - e1, X1.p + e1, X2.p - e2, X2.p + e2) - a * (c1.R + c2.R);
  };
  double lo = 0.0, hi = 1.0;
  while (g(hi) > 0.0) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-16 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (g(mid) > 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

/// The status, α and certificate of a result, for failure messages.
std::string summary(const ContactResult& r) {
  std::ostringstream os;
  os.precision(17);
  os << status_name(r.status) << " via " << start_method_name(r.start) << ", alpha " << r.alpha
     << ", certificate gap " << r.certificate_gap;
  return os.str();
}

std::string describe(const Primitive& a, const Primitive& b, double f) {
  std::ostringstream os;
  os << primitive_type_name(primitive_type(a)) << "-" << primitive_type_name(primitive_type(b)) << " f=" << f;
  return os.str();
}

}  // namespace dcol_certified_test

using namespace dcol_certified_test;

// ------------------------------------------------------------------------------ the certificate

TEST(DcolCertificate, AcceptsSolutionsAndRefusesPerturbedOnes) {
  std::mt19937 rng(541);
  const char* const* names = benchmark_primitive_names();
  int checked = 0;
  for (int i = 0; i < kNumPrimitiveTypes; ++i)
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      for (int q = 0; q < 8; ++q) {
        const Pose X1 = random_pose(rng, 2.0), X2 = random_pose(rng, 4.0);
        const ContactResult r = solve_contact(a, X1, b, X2);
        ASSERT_EQ(r.status, SolveStatus::ok) << names[i] << "-" << names[j];
        const Certificate c = certify(a, b, r);
        EXPECT_TRUE(c.ok()) << names[i] << "-" << names[j] << " gap " << c.bound_gap << " " << c.witness_violation;
        EXPECT_EQ(c.gap(), r.certificate_gap);
        // α shrunk or grown by 1e-8 (relative): below the lower bound, or not minimal
        for (const double f : {1.0 - 1e-8, 1.0 + 1e-8}) {
          ContactResult bad = r;
          bad.alpha *= f;
          EXPECT_FALSE(certify(a, b, bad).ok()) << names[i] << "-" << names[j] << " alpha x " << f;
        }
        // a witness point moved outside its shape by 1e-7 of its size
        ContactResult bad = r;
        const Vec3 out = (r.p1_W - r.X_WS1.p).normalized();
        bad.p1_W += 1e-7 * outer_radius(a) * out;
        EXPECT_FALSE(certify(a, b, bad).ok()) << names[i] << "-" << names[j] << " moved p1";
        ++checked;
      }
    }
  EXPECT_EQ(checked, 49 * 8);
}

// ------------------------------------------------------------------------------ every scale

TEST(DcolScale, OriginsFromCoincidentToFarGiveTheUnitAnswerScaled) {
  // α is 1-homogeneous in r_2 − r_1 (rotations fixed): α(f·r) = f·α(r), the witness points
  // p_i − r_i do not change, and the translation part of ∂α/∂η is homogeneous of degree 0.
  std::mt19937 rng(542);
  const char* const* names = benchmark_primitive_names();
  for (int i = 0; i < kNumPrimitiveTypes; ++i)
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      const double size = pair_size(a, b);
      for (int q = 0; q < 4; ++q) {
        // body 1 at the origin: r_2 − r_1 is then exactly the input f·size·u (a position p would
        // round it by ~1e-16·p, too much at f = 1e-11)
        const Pose X1 = make_pose(random_rotation(rng), Vec3::Zero());
        const Mat3 R2 = random_rotation(rng);
        const Vec3 u = random_unit(rng);
        const ContactResult ref = solve_contact(a, X1, b, placed_at(a, X1, b, R2, u, 1.0, size));
        ASSERT_EQ(ref.status, SolveStatus::ok);
        const ContactDerivatives dref = contact_derivatives(ref);
        ASSERT_TRUE(dref.ok());
        for (const double f : {1e-11, 1e-9, 1e-7, 1e-5, 1e-3, 0.1, 10.0, 1e4, 1e8}) {
          const ContactResult r = solve_contact(a, X1, b, placed_at(a, X1, b, R2, u, f, size));
          const std::string at = describe(a, b, f);
          ASSERT_EQ(r.status, SolveStatus::ok) << at << ": " << summary(r);
          EXPECT_LE(r.certificate_gap, kCertificateTolerance) << at;
          EXPECT_NEAR(r.alpha / f, ref.alpha, 1e-10 * ref.alpha) << at;
          // (p_2 is formed in world coordinates: rounded by 1e-16·‖r_2‖ at f = 1e8)
          EXPECT_LE(((r.p1_W - r.X_WS1.p) - (ref.p1_W - ref.X_WS1.p)).norm(), 1e-10 * size) << at;
          EXPECT_LE(((r.p2_W - r.X_WS2.p) - (ref.p2_W - ref.X_WS2.p)).norm(), 1e-10 * size + 1e-15 * f * size)
              << at;
          const ContactDerivatives d = contact_derivatives(r);
          ASSERT_TRUE(d.ok()) << at;
          EXPECT_LE((d.J_alpha_X2.rightCols<3>() - dref.J_alpha_X2.rightCols<3>()).norm(),
                    1e-7 * dref.J_alpha_X2.rightCols<3>().norm())
              << at;
        }
      }
    }
}

TEST(DcolScale, ShapesFromNanometresToGigametresGiveTheSameAlpha) {
  std::mt19937 rng(543);
  const char* const* names = benchmark_primitive_names();
  for (int i = 0; i < kNumPrimitiveTypes; ++i)
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      for (int q = 0; q < 3; ++q) {
        const Pose X1 = random_pose(rng, 2.0), X2 = random_pose(rng, 4.0);
        const ContactResult ref = solve_contact(a, X1, b, X2);
        ASSERT_TRUE(ref.ok());
        for (const double s : {1e-9, 1e-6, 1e6, 1e9}) {
          Pose Y1 = X1, Y2 = X2;
          Y1.p *= s;
          Y2.p *= s;
          const ContactResult r = solve_contact(scaled(a, s), Y1, scaled(b, s), Y2);
          ASSERT_TRUE(r.ok()) << names[i] << "-" << names[j] << " s " << s << ": " << summary(r);
          EXPECT_NEAR(r.alpha, ref.alpha, 1e-10 * ref.alpha) << names[i] << "-" << names[j] << " s " << s;
          EXPECT_LE((r.p1_W / s - ref.p1_W).norm(), 1e-10 * std::max(1.0, ref.p1_W.norm()));
          const ContactDerivatives d = contact_derivatives(r), dr = contact_derivatives(ref);
          ASSERT_TRUE(d.ok() && dr.ok());
          // ∂α/∂ω is dimensionless, ∂α/∂v is per length
          EXPECT_LE((d.J_alpha_X2.rightCols<3>() * s - dr.J_alpha_X2.rightCols<3>()).norm(),
                    1e-7 * std::max(1.0, dr.J_alpha_X2.norm()));
        }
      }
    }
}

// ------------------------------------------------------------------------------ references near r = 0

TEST(DcolNearCoincident, TwoSpheresMatchTheClosedForm) {
  const dcol::Sphere s(1.0);
  for (const double d : {1e-11, 1e-8, 1e-5}) {
    const ContactResult r = solve_contact(s, Pose::identity(), s, make_pose(Mat3::Identity(), Vec3(d, 0, 0)));
    ASSERT_EQ(r.status, SolveStatus::ok) << d;
    EXPECT_NEAR(r.alpha, 0.5 * d, 1e-13 * d) << d;  // was 8.49e-12 for d = 1e-11
    EXPECT_NEAR(r.gap, d - 2.0, 1e-13) << d;
  }
}

TEST(DcolNearCoincident, CapsulePairsMatchTheSegmentDistanceBisection) {
  std::mt19937 rng(544);
  std::uniform_real_distribution<double> U(0.3, 2.0);
  for (int t = 0; t < 60; ++t) {
    const Capsule c1(U(rng), U(rng)), c2(U(rng), U(rng));
    const double size = pair_size(c1, c2);
    const double f = std::pow(10.0, -3.0 - 8.0 * (t % 5) / 4.0);  // 1e-3 … 1e-11 sizes apart
    const Pose X1 = make_pose(random_rotation(rng), Vec3::Zero());
    const Pose X2 = make_pose(random_rotation(rng), f * size * random_unit(rng));
    const ContactResult r = solve_contact(c1, X1, c2, X2);
    ASSERT_EQ(r.status, SolveStatus::ok) << t;
    const double ref = capsule_alpha_bisection(c1, X1, c2, X2);
    EXPECT_NEAR(r.alpha, ref, 1e-10 * ref) << "trial " << t << " f " << f;
  }
}

TEST(DcolNearCoincident, EllipsoidPairsMatchIdcol) {
  // iDCOL's superellipsoid with n = 1 is the ellipsoid; a sphere is one with equal semi-axes
  std::mt19937 rng(545);
  std::uniform_real_distribution<double> U(0.3, 2.0);
  for (int t = 0; t < 40; ++t) {
    const double a1 = U(rng), b1 = U(rng), c1 = U(rng);
    const double a2 = U(rng), b2 = t % 2 == 0 ? a2 : U(rng), c2 = t % 2 == 0 ? a2 : U(rng);
    const Ellipsoid e1 = Ellipsoid::from_semi_axes(a1, b1, c1), e2 = Ellipsoid::from_semi_axes(a2, b2, c2);
    const double size = pair_size(e1, e2);
    const double f = std::pow(10.0, -4.0 - (t % 4));  // 1e-4 … 1e-7
    const Pose X1 = make_pose(random_rotation(rng), Vec3::Zero());
    const Pose X2 = make_pose(random_rotation(rng), f * size * random_unit(rng));
    const ContactResult r = solve_contact(e1, X1, e2, X2);
    ASSERT_EQ(r.status, SolveStatus::ok) << t;
    const idcol::ContactSolution ref = idcol::solve_contact(Superellipsoid::ellipsoid(a1, b1, c1), X1,
                                                            Superellipsoid::ellipsoid(a2, b2, c2), X2);
    ASSERT_TRUE(ref.ok()) << t;
    EXPECT_NEAR(r.alpha, ref.alpha, 1e-9 * ref.alpha) << "trial " << t << " f " << f;
  }
}

TEST(DcolNearCoincident, PolytopePairsMatchVertexEnumeration) {
  // the LP's vertices enumerated on the unit instance (r_2 − r_1 of length one; α scales with it)
  std::mt19937 rng(546);
  for (int t = 0; t < 40; ++t) {
    const Polytope P1 = random_polytope(rng, 6 + t % 3), P2 = random_polytope(rng, 6 + (t / 3) % 3);
    const double size = pair_size(P1, P2);
    const double f = std::pow(10.0, -6.0 - (t % 6));  // 1e-6 … 1e-11
    const Vec3 u = random_unit(rng);
    const Pose X1 = make_pose(random_rotation(rng), Vec3::Zero());
    const Mat3 R2 = random_rotation(rng);
    const ContactResult r = solve_contact(P1, X1, P2, make_pose(R2, f * size * u));
    ASSERT_EQ(r.status, SolveStatus::ok) << t;
    const double ref = f * size * polytope_lp_bruteforce(P1, X1, P2, make_pose(R2, u));
    EXPECT_NEAR(r.alpha, ref, 1e-9 * ref) << "trial " << t << " f " << f;
    // the witness points lie in the unscaled shapes (relative to their size)
    EXPECT_LE(membership_violation(P1, r.X_WS1, r.p1_W, 1.0), 1e-12 * size) << t;
    EXPECT_LE(membership_violation(P2, r.X_WS2, r.p2_W, 1.0), 1e-12 * size) << t;
  }
}

TEST(DcolNearCoincident, BoxEllipsoidAtTinySeparations) {
  // was 2e-4 off at 1e-8 and 1.8x off at 1e-11 (sizes apart)
  const Polytope box = Polytope::box(0.5, 0.7, 0.9);
  const Ellipsoid e = Ellipsoid::from_semi_axes(0.4, 0.8, 1.1);
  std::mt19937 rng(547);
  for (int t = 0; t < 20; ++t) {
    const Pose X1 = make_pose(random_rotation(rng), Vec3(1, 2, 3));
    const Mat3 R2 = random_rotation(rng);
    const Vec3 u = random_unit(rng);
    const double size = pair_size(box, e);
    const ContactResult ref = solve_contact(box, X1, e, placed_at(box, X1, e, R2, u, 1.0, size));
    ASSERT_TRUE(ref.ok());
    for (const double f : {1e-8, 1e-11}) {
      const ContactResult r = solve_contact(box, X1, e, placed_at(box, X1, e, R2, u, f, size));
      ASSERT_EQ(r.status, SolveStatus::ok);
      // α(f) = f·α(1) up to the rounding of r_2 − r_1 = (r_1 + f·size·u) − r_1 at |r_1| ≈ 3.7
      EXPECT_NEAR(r.alpha, f * ref.alpha, 1e-15 * 4.0 / (f * size) * f * ref.alpha + 1e-10 * f * ref.alpha) << f;
      EXPECT_LE(r.certificate_gap, kCertificateTolerance);
    }
  }
}

// ------------------------------------------------------------------------------ bad ends

TEST(DcolFinite, FailedSolvesHoldFiniteFields) {
  // one interior-point iteration, no geometric start: max_iterations with the last iterate
  SolveOptions o;
  o.max_iterations = 1;
  o.direct_newton = false;
  std::mt19937 rng(548);
  const char* const* names = benchmark_primitive_names();
  for (int i = 0; i < kNumPrimitiveTypes; ++i)
    for (int j = 0; j < kNumPrimitiveTypes; ++j) {
      const Primitive a = benchmark_primitive(names[i]), b = benchmark_primitive(names[j]);
      const ContactResult r = solve_contact(a, random_pose(rng, 2.0), b, random_pose(rng, 4.0), o);
      EXPECT_NE(r.status, SolveStatus::ok) << names[i] << "-" << names[j];
      EXPECT_TRUE(all_finite(r)) << names[i] << "-" << names[j];
    }
  // coincident origins (below 1e-100 of the sizes) and an exactly zero offset
  const dcol::Sphere s(1.0);
  for (const double d : {0.0, 1e-120}) {
    const ContactResult r = solve_contact(s, Pose::identity(), s, make_pose(Mat3::Identity(), Vec3(d, 0, 0)));
    EXPECT_EQ(r.status, SolveStatus::coincident_origins) << d;
    EXPECT_TRUE(all_finite(r));
  }
}

TEST(DcolInput, SizesOutsideTheDocumentedRangeAreRejected) {
  // [kMinLength, kMaxLength] = [1e-100, 1e100]: below, products of lengths underflow
  EXPECT_THROW(dcol::Sphere(1e-101), std::invalid_argument);
  EXPECT_THROW(Capsule(1e-101, 1.0), std::invalid_argument);
  EXPECT_THROW(Polytope::box(1.0, 1e-120, 1.0), std::invalid_argument);
  EXPECT_THROW(Ellipsoid::from_semi_axes(1.0, 1.0, 1e-101), std::invalid_argument);
  EXPECT_THROW(Ellipsoid(1e210 * Mat3::Identity()), std::invalid_argument);
  EXPECT_THROW(PaddedPolygon::rectangle(1.0, 1.0, 1e-200), std::invalid_argument);
  // at the bounds: finite, certified answers
  const dcol::Sphere tiny(1e-100);
  const ContactResult r = solve_contact(tiny, Pose::identity(), tiny, make_pose(Mat3::Identity(), Vec3(3e-100, 0, 0)));
  ASSERT_EQ(r.status, SolveStatus::ok) << summary(r);
  EXPECT_NEAR(r.alpha, 1.5, 1e-14);
  EXPECT_TRUE(all_finite(r));
}

// ------------------------------------------------------------------------------ property-based sweep

/// A random primitive of size ~`size` with aspect ratios up to `aspect`.
Primitive random_primitive(std::mt19937& rng, double size, double aspect) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const auto len = [&] { return size * std::pow(aspect, U(rng) - 0.5); };
  switch (static_cast<int>(U(rng) * 7.0) % 7) {
    case 0: return Polytope::box(len(), len(), len());
    case 1: return Capsule(len(), len());
    case 2: return Cylinder(len(), len());
    case 3: return Cone(len(), 0.2 + 1.1 * U(rng));
    case 4: return Ellipsoid::from_semi_axes(len(), len(), len());
    case 5: return PaddedPolygon::rectangle(len(), len(), len());
    default: return dcol::Sphere(len());
  }
}

TEST(DcolProperties, RandomPairsAtExtremeScalesAreCertifiedAndInvariant) {
  // sizes 1e-9…1e9, aspect ratios to 1e3, |r_2 − r_1| from 1e-10 to 1e8 times the size: every
  // converged result is certified and finite, and the same problem posed otherwise (arguments
  // swapped, every length times 1e3, the world rotated) converges to the same α. Failures are
  // counted by class (printed; DIFFCOL_DCOL_FUZZ_SAMPLES=1000000 for the long run) and the first
  // few are described.
  const long samples = diffcol::test::env_count("DIFFCOL_DCOL_FUZZ_SAMPLES", 3000);
  std::mt19937 rng(549);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  long converged = 0, not_converged = 0, non_finite = 0, uncertified = 0, wrong = 0, variant_status = 0;
  int described = 0;
  const auto report = [&](const std::string& what) {
    if (described++ < 10) ADD_FAILURE() << what;
  };
  for (long t = 0; t < samples; ++t) {
    const double size = std::pow(10.0, -9.0 + 18.0 * U(rng));
    const Primitive a = random_primitive(rng, size, 1e3), b = random_primitive(rng, size, 1e3);
    const double f = std::pow(10.0, -10.0 + 18.0 * U(rng));
    const Pose X1 = make_pose(random_rotation(rng), Vec3::Zero());  // r_2 − r_1 exact in the input
    const Pose X2 = placed_at(a, X1, b, random_rotation(rng), random_unit(rng), f, pair_size(a, b));
    const Mat3 T = random_rotation(rng);
    const ContactResult r = solve_contact(a, X1, b, X2);
    std::ostringstream where;
    where << describe(a, b, f) << " size " << size << " sample " << t;
    const std::string at = where.str();
    if (!all_finite(r)) {
      ++non_finite;
      report("non-finite field: " + at + ": " + summary(r));
      continue;
    }
    if (r.status != SolveStatus::ok) {
      (r.status == SolveStatus::not_certified ? uncertified : not_converged) += 1;
      continue;
    }
    ++converged;
    if (!(r.certificate_gap <= kCertificateTolerance)) {
      ++wrong;
      report("converged but not certified: " + at + ": " + summary(r));
    }
    // the same problem: arguments swapped; every length times 1e3; the world rotated about body
    // 1's origin (a translation would round r_2 − r_1 at |r| ≪ size: the input itself would change)
    Pose Y1 = X1, Y2 = X2;
    Y1.p *= 1e3;
    Y2.p *= 1e3;
    const Pose Z1 = make_pose(T * X1.R, X1.p), Z2 = make_pose(T * X2.R, X1.p + T * (X2.p - X1.p));
    const std::pair<const char*, ContactResult> same[] = {
        {"swapped", solve_contact(b, X2, a, X1)},
        {"unit x 1e3", solve_contact(scaled(a, 1e3), Y1, scaled(b, 1e3), Y2)},
        {"world rotated", solve_contact(a, Z1, b, Z2)}};
    for (const auto& [how, o] : same) {
      if (o.status != SolveStatus::ok) {
        ++variant_status;
        report(std::string(how) + " did not converge: " + at + ": " + summary(o) + "; as posed: " + summary(r));
      } else if (!(std::abs(o.alpha - r.alpha) <= 1e-10 * r.alpha)) {
        ++wrong;
        report(std::string(how) + " changed alpha: " + at + ": " + summary(o) + "; as posed: " + summary(r));
      }
    }
  }
  std::printf("DCOL property sweep: %ld samples: %ld converged (certified, invariant), %ld not converged, "
              "%ld not certified, %ld non-finite, %ld wrong answers reported as converged, %ld variant statuses\n",
              samples, converged, not_converged, uncertified, non_finite, wrong, variant_status);
  EXPECT_EQ(non_finite, 0);
  EXPECT_EQ(wrong, 0);
  EXPECT_LE(not_converged + uncertified + variant_status, samples / 200);
}
