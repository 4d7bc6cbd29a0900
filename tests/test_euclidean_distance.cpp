// Euclidean distance of DCOL primitives and iDCOL shapes (dcol/euclidean.hpp, idcol/euclidean.hpp):
// closed forms (sphere–sphere, sphere–box, axis-aligned boxes, sphere–capsule, capsule–capsule),
// FCL on random separated pairs, DCOL against iDCOL on ellipsoids, derivatives against central
// finite differences of the poses through the exponential map, bad input and overlapping pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "diffcol/dcol/euclidean.hpp"
#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/idcol/euclidean.hpp"
#include "diffcol/math/se3.hpp"
#include "dcol_test_util.hpp"
#include "malloc_counter.hpp"
#include "test_util.hpp"

#ifdef DIFFCOL_HAVE_FCL
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/ellipsoid.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/distance.h>
#endif

namespace {

using namespace diffcol;
using diffcol::test::env_count;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;
namespace dc = diffcol::dcol;
namespace ic = diffcol::idcol;

std::mt19937 rng_for(unsigned seed) { return std::mt19937(seed); }

/// Distance of point x to the segment [a, b].
double point_segment(const Vec3& x, const Vec3& a, const Vec3& b) {
  const Vec3 e = b - a;
  const double t = std::clamp((x - a).dot(e) / e.squaredNorm(), 0.0, 1.0);
  return (x - a - t * e).norm();
}

/// Distance of two segments: golden-section search over the first segment's parameter of the
/// convex function s ↦ dist(a1 + s(b1 − a1), [a2, b2]) (independent of the library's methods).
double segment_segment(const Vec3& a1, const Vec3& b1, const Vec3& a2, const Vec3& b2) {
  const auto g = [&](double s) { return point_segment(a1 + s * (b1 - a1), a2, b2); };
  double lo = 0.0, hi = 1.0;
  const double r = 0.5 * (std::sqrt(5.0) - 1.0);
  double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo), f1 = g(x1), f2 = g(x2);
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    if (f1 < f2) {
      hi = x2, x2 = x1, f2 = f1, x1 = hi - r * (hi - lo), f1 = g(x1);
    } else {
      lo = x1, x1 = x2, f1 = f2, x2 = lo + r * (hi - lo), f2 = g(x2);
    }
  }
  return std::min({g(lo), g(hi), g(0.0), g(1.0), f1, f2});
}

/// Distance of two convex polytopes by enumeration (independent of GJK): the minimum over every
/// vertex of one against every face polygon of the other, and every edge pair.
double polytope_distance_bruteforce(const dc::Polytope& A, const Pose& XA, const dc::Polytope& B, const Pose& XB) {
  const auto verts = [](const dc::Polytope& P, const Pose& X) {
    std::vector<Vec3> v;
    for (int i = 0; i < P.num_vertices; ++i) v.push_back(X * Vec3(P.V(i, 0), P.V(i, 1), P.V(i, 2)));
    return v;
  };
  const auto faces = [](const dc::Polytope& P) {
    std::vector<std::vector<int>> f;
    for (int k = 0; k < P.num_faces; ++k) {
      std::vector<int> idx;
      for (int j = P.face_start[k]; j < P.face_start[k + 1]; ++j) idx.push_back(P.face_vertices[j]);
      if (idx.size() >= 3) f.push_back(idx);
    }
    return f;
  };
  const std::vector<Vec3> va = verts(A, XA), vb = verts(B, XB);
  const auto fa = faces(A), fb = faces(B);
  // point to a convex planar polygon (vertices in order)
  const auto point_polygon = [](const Vec3& x, const std::vector<Vec3>& v, const std::vector<int>& f) {
    const Vec3 n = (v[f[1]] - v[f[0]]).cross(v[f[2]] - v[f[0]]).normalized();
    const Vec3 y = x - n.dot(x - v[f[0]]) * n;
    bool inside = true;
    const double sgn = n.dot((v[f[1]] - v[f[0]]).cross(v[f[2]] - v[f[1]])) > 0 ? 1.0 : -1.0;
    for (size_t i = 0; i < f.size() && inside; ++i) {
      const Vec3 &a = v[f[i]], &b = v[f[(i + 1) % f.size()]];
      inside = sgn * n.dot((b - a).cross(y - a)) >= 0.0;
    }
    if (inside) return std::abs(n.dot(x - v[f[0]]));
    double d = 1e300;
    for (size_t i = 0; i < f.size(); ++i) d = std::min(d, point_segment(x, v[f[i]], v[f[(i + 1) % f.size()]]));
    return d;
  };
  double best = 1e300;
  for (const Vec3& x : va)
    for (const auto& f : fb) best = std::min(best, point_polygon(x, vb, f));
  for (const Vec3& x : vb)
    for (const auto& f : fa) best = std::min(best, point_polygon(x, va, f));
  for (const auto& f : fa)
    for (size_t i = 0; i < f.size(); ++i)
      for (const auto& g : fb)
        for (size_t j = 0; j < g.size(); ++j)
          best = std::min(best, segment_segment(va[f[i]], va[f[(i + 1) % f.size()]], vb[g[j]], vb[g[(j + 1) % g.size()]]));
  return best;
}

Pose random_pose_at(std::mt19937& rng, double radius) { return make_pose(random_rotation(rng), radius * random_unit(rng)); }

/// A segment end of a capsule (±L/2 along its shape x axis), world.
Vec3 capsule_end(const Pose& X, double L, double sign) { return X * Vec3(sign * 0.5 * L, 0.0, 0.0); }

void expect_result_consistent(const dc::DistanceResult& r) {
  ASSERT_TRUE(r.ok()) << diffcol::status_name(r.status);
  EXPECT_NEAR((r.p2_W - r.p1_W).norm(), r.distance, 1e-12 * (1.0 + r.distance));
  EXPECT_NEAR(r.normal_W.norm(), 1.0, 1e-12);
  EXPECT_LE(r.lower_bound, r.distance + 1e-15);
  EXPECT_GE(r.lower_bound, r.distance - 1e-9 * r.distance - 1e-13);
}

// ------------------------------------------------------------------------------ closed forms

// A polytope with more faces than the inline storage (a 40-gon prism, 42 faces: kept in
// Polytope::large) against a sphere: the distance to the top face, to a vertex and to a side face
// in closed form. The feature search and the membership test must read the large storage.
TEST(EuclideanDcol, LargePolytopeClosedForm) {
  const int n = 40;
  const double r = 1.0, h = 0.5, R = 0.2;
  Eigen::MatrixX3d A(n + 2, 3);
  Eigen::VectorXd b(n + 2);
  const double apothem = r * std::cos(test::kPi / n);
  for (int k = 0; k < n; ++k) {  // side faces between the vertices at angles 2πk/n and 2π(k+1)/n
    const double t = (2.0 * k + 1.0) * test::kPi / n;
    A.row(k) << std::cos(t), std::sin(t), 0.0;
    b[k] = apothem;
  }
  A.row(n) << 0.0, 0.0, 1.0;
  A.row(n + 1) << 0.0, 0.0, -1.0;
  b[n] = b[n + 1] = h;
  const dcol::Polytope prism(A, b);
  ASSERT_TRUE(prism.is_large());
  const dcol::Primitive P = prism, ball = dcol::Sphere(R);
  const double gap = 0.7;
  const double t0 = test::kPi / n;  // the middle of side face 0
  const Vec3 centres[] = {Vec3(0.1, -0.2, h + R + gap), Vec3(r + R + gap, 0.0, 0.0),
                          Vec3((apothem + R + gap) * std::cos(t0), (apothem + R + gap) * std::sin(t0), 0.1)};
  for (const Vec3& c : centres) {
    const dcol::DistanceResult e = dcol::euclidean_distance(P, Pose::identity(), ball, make_pose(Mat3::Identity(), c));
    ASSERT_TRUE(e.ok()) << c.transpose();
    EXPECT_NEAR(e.distance, gap, 1e-10) << c.transpose();
    EXPECT_LE(prism.normal(0).dot(e.p1_W) - prism.face_offset(0), 1e-10);
    const dcol::DistanceDerivatives d = dcol::distance_derivatives(e);
    EXPECT_TRUE(d.ok() || d.status == diffcol::DistanceDerivativeStatus::distance_only) << c.transpose();
  }
}

TEST(EuclideanDcol, SphereSphereClosedForm) {
  auto rng = rng_for(1);
  std::uniform_real_distribution<double> U(0.2, 2.0);
  for (int i = 0; i < 200; ++i) {
    const double R1 = U(rng), R2 = U(rng);
    const Pose X1 = random_pose_at(rng, 3.0);
    const Pose X2 = make_pose(random_rotation(rng), X1.p + (R1 + R2 + U(rng)) * random_unit(rng));
    const auto r = dc::euclidean_distance(dc::Sphere(R1), X1, dc::Sphere(R2), X2);
    expect_result_consistent(r);
    const Vec3 n = (X2.p - X1.p).normalized();
    EXPECT_NEAR(r.distance, (X2.p - X1.p).norm() - R1 - R2, 1e-12);
    EXPECT_LT((r.p1_W - (X1.p + R1 * n)).norm(), 1e-10);
    EXPECT_LT((r.p2_W - (X2.p - R2 * n)).norm(), 1e-10);
    EXPECT_LT((r.normal_W - n).norm(), 1e-10);
  }
}

TEST(EuclideanDcol, SphereBoxClosedForm) {
  auto rng = rng_for(2);
  std::uniform_real_distribution<double> U(0.2, 1.5);
  int tested = 0;
  for (int i = 0; i < 400; ++i) {
    const Vec3 h(U(rng), U(rng), U(rng));
    const double R = U(rng);
    const Pose Xb = random_pose_at(rng, 2.0);
    const Vec3 c_b = 4.0 * Vec3(U(rng) - 0.85, U(rng) - 0.85, U(rng) - 0.85).cwiseProduct(Vec3(2.0, 2.0, 2.0));
    const Vec3 q_b = c_b.cwiseMax(-h).cwiseMin(h);
    const double d = (c_b - q_b).norm() - R;
    if (d < 1e-3) continue;
    ++tested;
    const Pose Xs = make_pose(random_rotation(rng), Xb * c_b);
    const auto r = dc::euclidean_distance(dc::Polytope::box(h.x(), h.y(), h.z()), Xb, dc::Sphere(R), Xs);
    expect_result_consistent(r);
    EXPECT_NEAR(r.distance, d, 1e-10 * (1.0 + d));
    EXPECT_LT((r.p1_W - Xb * q_b).norm(), 1e-8);
  }
  EXPECT_GT(tested, 100);
}

TEST(EuclideanDcol, AxisAlignedBoxesClosedForm) {
  auto rng = rng_for(3);
  std::uniform_real_distribution<double> U(0.2, 1.5), V(-4.0, 4.0);
  int tested = 0;
  for (int i = 0; i < 400; ++i) {
    const Vec3 h1(U(rng), U(rng), U(rng)), h2(U(rng), U(rng), U(rng));
    const Vec3 t(V(rng), V(rng), V(rng));
    const Vec3 gap = (t.cwiseAbs() - h1 - h2).cwiseMax(0.0);
    if (gap.norm() < 1e-3) continue;
    ++tested;
    const Mat3 R = random_rotation(rng);  // a common rotation keeps the boxes aligned
    const Vec3 o = 3.0 * random_unit(rng);
    const auto r = dc::euclidean_distance(dc::Polytope::box(h1.x(), h1.y(), h1.z()), make_pose(R, o),
                                          dc::Polytope::box(h2.x(), h2.y(), h2.z()), make_pose(R, o + R * t));
    expect_result_consistent(r);
    EXPECT_NEAR(r.distance, gap.norm(), 1e-11 * (1.0 + gap.norm()));
  }
  EXPECT_GT(tested, 100);
}

TEST(EuclideanDcol, SphereCapsuleAndCapsuleCapsuleClosedForm) {
  auto rng = rng_for(4);
  std::uniform_real_distribution<double> U(0.1, 1.0), L(0.2, 3.0);
  int tested = 0;
  for (int i = 0; i < 400; ++i) {
    const double R1 = U(rng), L1 = L(rng), R2 = U(rng), L2 = L(rng);
    const Pose X1 = random_pose_at(rng, 1.0), X2 = random_pose_at(rng, 4.0);
    const Vec3 a1 = capsule_end(X1, L1, -1), b1 = capsule_end(X1, L1, 1);
    const Vec3 a2 = capsule_end(X2, L2, -1), b2 = capsule_end(X2, L2, 1);
    // capsule–capsule
    const double dcc = segment_segment(a1, b1, a2, b2) - R1 - R2;
    if (dcc > 1e-3) {
      ++tested;
      const auto r = dc::euclidean_distance(dc::Capsule(R1, L1), X1, dc::Capsule(R2, L2), X2);
      expect_result_consistent(r);
      EXPECT_NEAR(r.distance, dcc, 1e-9 * (1.0 + dcc));
    }
    // sphere–capsule
    const double dsc = point_segment(X2.p, a1, b1) - R1 - R2;
    if (dsc > 1e-3) {
      const auto r = dc::euclidean_distance(dc::Capsule(R1, L1), X1, dc::Sphere(R2), X2);
      expect_result_consistent(r);
      EXPECT_NEAR(r.distance, dsc, 1e-10 * (1.0 + dsc));
    }
  }
  EXPECT_GT(tested, 100);
}

TEST(EuclideanDcol, BoxSphereAgainstContactDistance) {
  // the docs' example: DCOL's α-distance along the centre line is longer than the Euclidean one
  const dc::Primitive box = dc::Polytope::box(1.0, 0.5, 0.5), ball = dc::Sphere(0.5);
  const Pose X1 = Pose::identity(), X2 = make_pose(Mat3::Identity(), Vec3(2.5, 1.5, 0.0));
  const auto c = dc::solve_contact(box, X1, ball, X2);
  const auto r = dc::euclidean_distance(box, X1, ball, X2, c);
  expect_result_consistent(r);
  EXPECT_NEAR(r.distance, std::hypot(1.5, 1.0) - 0.5, 1e-12);
  // the α-distance is ‖p2 − p1‖ for two surface points on the centre line: never shorter
  EXPECT_GT(c.gap, r.distance + 1e-3);
}

// ------------------------------------------------------------------------- bad input, overlap

TEST(EuclideanDcol, BadInputAndOverlap) {
  const dc::Primitive a = dc::Sphere(1.0), b = dc::Polytope::box(1, 1, 1);
  Pose bad = Pose::identity();
  bad.p.x() = std::numeric_limits<double>::quiet_NaN();
  const auto r = dc::euclidean_distance(a, bad, b, Pose::identity());
  EXPECT_EQ(r.status, diffcol::DistanceStatus::invalid_input);
  EXPECT_EQ(r.distance, 0.0);
  EXPECT_TRUE(r.p1_W.allFinite());
  dc::DistanceOptions o;
  o.tolerance = -1.0;
  EXPECT_THROW(o.validate(), std::invalid_argument);
  EXPECT_EQ(dc::euclidean_distance(a, Pose::identity(), b, make_pose(Mat3::Identity(), Vec3(5, 0, 0)), o).status,
            diffcol::DistanceStatus::invalid_input);
  auto rng = rng_for(5);
  for (int i = 0; i < 100; ++i) {
    const auto o2 = dc::euclidean_distance(a, random_pose_at(rng, 0.5), b, random_pose_at(rng, 0.5));
    EXPECT_EQ(o2.status, diffcol::DistanceStatus::touching_or_overlapping);
    EXPECT_EQ(o2.distance, 0.0);
    EXPECT_FALSE(o2.ok());
    EXPECT_EQ(dc::distance_derivatives(o2).status, diffcol::DistanceDerivativeStatus::not_separated);
  }
  // iDCOL
  const Shape s1 = diffcol::Sphere(1.0), s2 = diffcol::Superellipsoid::ellipsoid(0.5, 1.0, 1.5);
  EXPECT_EQ(ic::euclidean_distance(s1, bad, s2, Pose::identity()).status, diffcol::DistanceStatus::invalid_input);
  EXPECT_EQ(ic::euclidean_distance(s1, Pose::identity(), s2, make_pose(Mat3::Identity(), Vec3(0.5, 0, 0))).status,
            diffcol::DistanceStatus::touching_or_overlapping);
}

// ------------------------------------------------------------------------- random primitives

dc::Primitive random_primitive(std::mt19937& rng, int type) {
  std::uniform_real_distribution<double> U(0.3, 1.2);
  switch (type) {
    case 0: return dc::Polytope::box(U(rng), U(rng), U(rng));
    case 1: return dc::Capsule(U(rng), 2.0 * U(rng));
    case 2: return dc::Cylinder(U(rng), 2.0 * U(rng));
    case 3: return dc::Sphere(U(rng));
    case 4: return dc::Ellipsoid::from_semi_axes(U(rng), U(rng), U(rng));
    case 5: return dc::benchmark_primitive("polytope");
    case 6: return dc::Cone(2.0 * U(rng), 0.2 + 0.8 * U(rng));
    default: return dc::PaddedPolygon::rectangle(U(rng), U(rng), 0.3 * U(rng));
  }
}

#ifdef DIFFCOL_HAVE_FCL
/// The FCL geometry of a primitive and the FCL frame in the shape frame (FCL's cylinders and
/// capsules lie along z, DCOL's along x). Types 0–5 only (FCL has exact counterparts).
std::shared_ptr<fcl::CollisionGeometryd> fcl_geometry(const dc::Primitive& p, Mat3& align) {
  align.setIdentity();
  const Mat3 z_to_x = (Mat3() << 0, 0, 1, 1, 0, 0, 0, 1, 0).finished();  // columns: e_y, e_z, e_x
  if (const auto* b = std::get_if<dc::Polytope>(&p)) {
    auto v = std::make_shared<std::vector<fcl::Vector3d>>();
    for (int i = 0; i < b->num_vertices; ++i) v->emplace_back(b->V(i, 0), b->V(i, 1), b->V(i, 2));
    auto f = std::make_shared<std::vector<int>>();
    for (int k = 0; k < b->num_faces; ++k) {
      f->push_back(b->face_start[k + 1] - b->face_start[k]);
      for (int j = b->face_start[k]; j < b->face_start[k + 1]; ++j) f->push_back(b->face_vertices[j]);
    }
    return std::make_shared<fcl::Convexd>(v, b->num_faces, f);
  }
  if (const auto* c = std::get_if<dc::Capsule>(&p)) {
    align = z_to_x;
    return std::make_shared<fcl::Capsuled>(c->R, c->L);
  }
  if (const auto* c = std::get_if<dc::Cylinder>(&p)) {
    align = z_to_x;
    return std::make_shared<fcl::Cylinderd>(c->R, c->L);
  }
  if (const auto* s = std::get_if<dc::Sphere>(&p)) return std::make_shared<fcl::Sphered>(s->R);
  const auto& e = std::get<dc::Ellipsoid>(p);
  return std::make_shared<fcl::Ellipsoidd>(1.0 / std::sqrt(e.P(0, 0)), 1.0 / std::sqrt(e.P(1, 1)),
                                           1.0 / std::sqrt(e.P(2, 2)));
}

double fcl_distance(const dc::Primitive& p1, const Pose& X1, const dc::Primitive& p2, const Pose& X2) {
  Mat3 A1, A2;
  auto g1 = fcl_geometry(p1, A1);
  auto g2 = fcl_geometry(p2, A2);
  fcl::Transform3d T1 = fcl::Transform3d::Identity(), T2 = fcl::Transform3d::Identity();
  T1.linear() = X1.R * A1;
  T1.translation() = X1.p;
  T2.linear() = X2.R * A2;
  T2.translation() = X2.p;
  fcl::CollisionObjectd o1(g1, T1), o2(g2, T2);
  fcl::DistanceRequestd req;
  req.enable_nearest_points = true;
  req.gjk_solver_type = fcl::GST_INDEP;
  req.distance_tolerance = 1e-10;
  fcl::DistanceResultd res;
  fcl::distance(&o1, &o2, req, res);
  return res.min_distance;
}

TEST(EuclideanDcol, AgainstFcl) {
  auto rng = rng_for(6);
  const int n = static_cast<int>(env_count("DIFFCOL_EUCLIDEAN_SAMPLES", 300));
  int tested = 0, fcl_misses = 0;
  double worst = 0.0;
  for (int t1 = 0; t1 < 6; ++t1)
    for (int t2 = 0; t2 < 6; ++t2)
      for (int i = 0; i < n / 6; ++i) {
        const dc::Primitive p1 = random_primitive(rng, t1), p2 = random_primitive(rng, t2);
        const Pose X1 = random_pose_at(rng, 1.0), X2 = random_pose_at(rng, 3.5);
        const auto r = dc::euclidean_distance(p1, X1, p2, X2);
        if (r.status == diffcol::DistanceStatus::touching_or_overlapping) continue;
        if (r.distance < 1e-2) continue;
        ASSERT_TRUE(r.ok()) << t1 << " " << t2 << " " << diffcol::status_name(r.status);
        const double f = fcl_distance(p1, X1, p2, X2);
        ++tested;
        const double err = std::abs(r.distance - f);
        if (t1 == 0 || t1 == 5) {
          if (t2 == 0 || t2 == 5) {
            // two polytopes: FCL's GJK on its Convex type sometimes stops early (differences up to 1e-2
            // seen); enumeration is the exact reference
            const double b = polytope_distance_bruteforce(std::get<dc::Polytope>(p1), X1, std::get<dc::Polytope>(p2), X2);
            EXPECT_NEAR(r.distance, b, 1e-9 * (1.0 + b)) << "types " << t1 << " " << t2;
            if (err > 2e-6 * (1.0 + f)) {
              ++fcl_misses;
              EXPECT_LT(r.distance, f) << "FCL below the certified distance";
            }
            continue;
          }
        }
        worst = std::max(worst, err);
        // FCL's GJK stops at ~1e-6
        EXPECT_LT(err, 2e-6 * (1.0 + f)) << "types " << t1 << " " << t2 << " ours " << r.distance << " fcl " << f;
      }
  EXPECT_GT(tested, n);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", worst);
  RecordProperty("worst_abs_difference_to_fcl", buf);
  RecordProperty("fcl_polytope_misses", fcl_misses);
}
#endif

// ------------------------------------------------------------------------- derivatives vs FD

/// Central differences of f(X1, X2) (a vector) along the world twists of body 1 and body 2.
template <class F>
Eigen::MatrixXd fd_world(const F& f, const Pose& X1, const Pose& X2, int rows, double h) {
  Eigen::MatrixXd J(rows, 12);
  for (int k = 0; k < 12; ++k) {
    Vec6 e = Vec6::Zero();
    e[k % 6] = h;
    const Pose p1 = k < 6 ? se3_exp(e) * X1 : X1, m1 = k < 6 ? se3_exp(-e) * X1 : X1;
    const Pose p2 = k >= 6 ? se3_exp(e) * X2 : X2, m2 = k >= 6 ? se3_exp(-e) * X2 : X2;
    J.col(k) = (f(p1, p2) - f(m1, m2)) / (2.0 * h);
  }
  return J;
}

Eigen::VectorXd dcol_outputs(const dc::DistanceResult& r) {
  Eigen::VectorXd v(10);
  v << r.distance, r.p1_W, r.p2_W, r.normal_W;
  return v;
}

Eigen::MatrixXd analytic(const dc::DistanceDerivatives& d) {
  Eigen::MatrixXd J(10, 12);
  J << d.J_distance_X1, d.J_distance_X2, d.J_p1_W_X1, d.J_p1_W_X2, d.J_p2_W_X1, d.J_p2_W_X2, d.J_normal_W_X1,
      d.J_normal_W_X2;
  return J;
}

TEST(EuclideanDcol, DerivativesAgainstFiniteDifferences) {
  auto rng = rng_for(7);
  const int n = static_cast<int>(env_count("DIFFCOL_EUCLIDEAN_SAMPLES", 300));
  int full = 0, dist_only = 0;
  for (int t1 = 0; t1 < 8; ++t1)
    for (int t2 = 0; t2 < 8; ++t2)
      for (int i = 0; i < std::max(2, n / 16); ++i) {
        const dc::Primitive p1 = random_primitive(rng, t1), p2 = random_primitive(rng, t2);
        const Pose X1 = random_pose_at(rng, 1.0), X2 = random_pose_at(rng, 3.5);
        const auto r = dc::euclidean_distance(p1, X1, p2, X2);
        if (!r.ok() || r.distance < 0.05) continue;
        const auto d = dc::distance_derivatives(r);
        ASSERT_NE(d.status, diffcol::DistanceDerivativeStatus::not_separated);
        bool same_features = true;
        const auto f = [&](const Pose& a, const Pose& b) {
          const auto q = dc::euclidean_distance(p1, a, p2, b);
          if (q.feature1.kind != r.feature1.kind || q.feature2.kind != r.feature2.kind || !q.ok()) same_features = false;
          return dcol_outputs(q);
        };
        const Eigen::MatrixXd Jfd = fd_world(f, X1, X2, 10, 1e-6);
        if (!same_features) continue;  // a feature switch within the step: one-sided derivatives
        const Eigen::MatrixXd Ja = analytic(d);
        // the distance: always (envelope theorem)
        EXPECT_LT((Ja.row(0) - Jfd.row(0)).norm(), 1e-6 * (1.0 + Jfd.row(0).norm()))
            << "types " << t1 << " " << t2 << "\n" << Ja.row(0) << "\n" << Jfd.row(0);
        if (d.ok()) {
          ++full;
          EXPECT_LT((Ja - Jfd).cwiseAbs().maxCoeff(), 2e-5 * (1.0 + Jfd.cwiseAbs().maxCoeff()))
              << "types " << t1 << " " << t2 << " features " << dc::feature_name(r.feature1.kind) << " "
              << dc::feature_name(r.feature2.kind) << "\nanalytic\n" << Ja << "\nfd\n" << Jfd;
        } else {
          ++dist_only;
        }
      }
  EXPECT_GT(full, 64 * std::max(2, n / 16) / 2);  // most random configurations
  RecordProperty("full", full);
  RecordProperty("distance_only", dist_only);
}

TEST(EuclideanDcol, NearlyTouchingPairs) {
  // translating body 2 along the closest points' normal by t changes the distance by exactly t:
  // the exact distance after the move is the gap it was moved to
  auto rng = rng_for(11);
  int tested = 0;
  for (double gap : {1e-3, 1e-6}) {
    for (int t1 = 0; t1 < 8; ++t1)
      for (int t2 = 0; t2 < 8; ++t2)
        for (int i = 0; i < 6; ++i) {
          const dc::Primitive p1 = random_primitive(rng, t1), p2 = random_primitive(rng, t2);
          const Pose X1 = random_pose_at(rng, 0.5);
          Pose X2 = random_pose_at(rng, 4.0);
          const auto r = dc::euclidean_distance(p1, X1, p2, X2);
          if (!r.ok()) continue;
          X2.p += (gap - r.distance) * r.normal_W;
          const auto q = dc::euclidean_distance(p1, X1, p2, X2);
          ASSERT_TRUE(q.ok()) << "types " << t1 << " " << t2 << " gap " << gap << " " << diffcol::status_name(q.status);
          const double size = dc::outer_radius(p1) + dc::outer_radius(p2);
          EXPECT_NEAR(q.distance, gap, 1e-10 * size) << "types " << t1 << " " << t2;
          EXPECT_LE(q.lower_bound, gap + 1e-14 * size);  // the move itself rounds
          if (r.unique) {
            EXPECT_LT((q.p1_W - r.p1_W).norm(), 1e-6) << "types " << t1 << " " << t2;
          }
          ++tested;
        }
  }
  EXPECT_GT(tested, 600);
}

TEST(EuclideanDcol, ParallelFacesAreNotUnique) {
  const dc::Primitive b = dc::Polytope::box(0.5, 0.5, 0.5);
  const auto r = dc::euclidean_distance(b, Pose::identity(), b, make_pose(Mat3::Identity(), Vec3(2.0, 0.2, 0.1)));
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r.distance, 1.0, 1e-12);
  EXPECT_FALSE(r.unique);
  const auto d = dc::distance_derivatives(r);
  EXPECT_EQ(d.status, diffcol::DistanceDerivativeStatus::distance_only);
  EXPECT_NEAR(d.J_distance_X2(3), 1.0, 1e-12);
  // a vertex against a face: unique
  const auto r2 = dc::euclidean_distance(b, Pose::identity(), b,
                                         make_pose(so3_exp(Vec3(0.3, 0.4, 0.2)), Vec3(2.5, 0.1, 0.05)));
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(r2.unique);
}

// ------------------------------------------------------------------------------------- iDCOL

TEST(EuclideanIdcol, SpheresAndEllipsoidsAgainstDcol) {
  auto rng = rng_for(8);
  std::uniform_real_distribution<double> U(0.3, 1.2);
  int tested = 0;
  for (int i = 0; i < 300; ++i) {
    const double a1 = U(rng), b1 = U(rng), c1 = U(rng), a2 = U(rng), b2 = U(rng), c2 = U(rng);
    const Pose X1 = random_pose_at(rng, 1.0), X2 = random_pose_at(rng, 3.5);
    const auto r = ic::euclidean_distance(diffcol::Superellipsoid::ellipsoid(a1, b1, c1), X1,
                                          diffcol::Superellipsoid::ellipsoid(a2, b2, c2), X2);
    const auto q = dc::euclidean_distance(dc::Ellipsoid::from_semi_axes(a1, b1, c1), X1,
                                          dc::Ellipsoid::from_semi_axes(a2, b2, c2), X2);
    if (q.status == diffcol::DistanceStatus::touching_or_overlapping) {
      EXPECT_NE(r.status, diffcol::DistanceStatus::separated);
      continue;
    }
    ASSERT_TRUE(q.ok());
    ASSERT_TRUE(r.ok()) << diffcol::status_name(r.status) << " " << r.residual_norm;
    ++tested;
    EXPECT_NEAR(r.distance, q.distance, 1e-9 * (1.0 + q.distance));
    EXPECT_LT((r.p1_W - q.p1_W).norm(), 1e-6);
    EXPECT_LT((r.p2_W - q.p2_W).norm(), 1e-6);
    EXPECT_LT(r.distance, r.contact_gap + 1e-12);  // d_D measures along the centre line: never shorter
  }
  EXPECT_GT(tested, 150);
  // spheres: closed form
  const auto s = ic::euclidean_distance(diffcol::Sphere(1.0), Pose::identity(), diffcol::Sphere(0.5),
                                        make_pose(Mat3::Identity(), Vec3(1.0, 2.0, 2.0)));
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s.distance, 1.5, 1e-12);
}

TEST(EuclideanIdcol, BenchmarkShapesAndNearlyTouching) {
  // every ordered pair of the benchmark shapes (flat-faced superellipsoids and smooth polytopes
  // included, where Newton from iDCOL's witnesses needs the surface descent), then moved along the
  // normal to gaps 1e-3 and 1e-6: the exact distance is the gap
  auto rng = rng_for(12);
  const char* names[] = {"sphere", "ellipsoid", "poly", "tc", "se", "sec"};
  int tested = 0;
  for (const char* a : names)
    for (const char* b : names) {
      const Shape s1 = ic::benchmark_shape(a), s2 = ic::benchmark_shape(b);
      for (int i = 0; i < 15; ++i) {
        const Pose X1 = random_pose_at(rng, 0.3);
        Pose X2 = random_pose_at(rng, 6.0);
        const auto r = ic::euclidean_distance(s1, X1, s2, X2);
        ASSERT_TRUE(r.ok()) << a << " " << b << " " << diffcol::status_name(r.status);
        EXPECT_LE(r.distance, r.contact_gap + 1e-12);
        const double size = s1.outer_radius() + s2.outer_radius();
        for (double gap : {1e-3, 1e-6}) {
          Pose Y2 = X2;
          Y2.p += (gap - r.distance) * r.normal_W;
          const auto q = ic::euclidean_distance(s1, X1, s2, Y2);
          ASSERT_TRUE(q.ok()) << a << " " << b << " gap " << gap << " " << diffcol::status_name(q.status);
          EXPECT_NEAR(q.distance, gap, 1e-10 * size) << a << " " << b;
          ++tested;
        }
      }
    }
  EXPECT_EQ(tested, 36 * 15 * 2);
}

Eigen::VectorXd idcol_outputs(const ic::DistanceResult& r) {
  Eigen::VectorXd v(10);
  v << r.distance, r.p1_W, r.p2_W, r.normal_W;
  return v;
}

// Far apart (tens of the shapes' sizes) the KKT rows' rounding grows with the distance: the
// tolerance follows it, and the distance stays between the bounding-ball gap and d_D.
TEST(EuclideanIdcol, FarApartPairsConverge) {
  std::mt19937 rng = rng_for(17);
  const Sphere sphere(0.3);
  const Superellipsoid thin(0.066, 0.157, 0.09, 4);
  for (int trial = 0; trial < 100; ++trial) {
    const double far = std::uniform_real_distribution<double>(5.0, 60.0)(rng);
    const Pose X1 = make_pose(random_rotation(rng), Vec3::Zero());
    const Pose X2 = make_pose(random_rotation(rng), far * diffcol::test::random_unit(rng));
    const idcol::DistanceResult e = idcol::euclidean_distance(sphere, X1, thin, X2);
    ASSERT_EQ(e.status, diffcol::DistanceStatus::separated) << "trial " << trial << " at " << far;
    EXPECT_GE(e.distance, far - 0.3 - thin.outer_radius() - 1e-12);
    EXPECT_LE(e.distance, e.contact_gap + 1e-12 * far);
  }
}

TEST(EuclideanIdcol, DerivativesAgainstFiniteDifferences) {
  auto rng = rng_for(9);
  std::uniform_real_distribution<double> U(0.4, 1.2);
  const int n = static_cast<int>(env_count("DIFFCOL_EUCLIDEAN_SAMPLES", 300));
  const auto shape = [&](int t) -> Shape {
    switch (t) {
      case 0: return diffcol::Sphere(U(rng));
      case 1: return diffcol::Superellipsoid(U(rng), U(rng), U(rng), 2);
      case 2: return diffcol::SuperellipticCylinder(U(rng), U(rng), 2);
      case 3: return diffcol::SmoothPolytope::box(U(rng), U(rng), U(rng), 8.0);
      default: return diffcol::Superellipsoid::ellipsoid(U(rng), U(rng), U(rng));
    }
  };
  int full = 0;
  for (int i = 0; i < n; ++i) {
    const Shape s1 = shape(i % 5), s2 = shape((i / 5) % 5);
    const Pose X1 = random_pose_at(rng, 1.0), X2 = random_pose_at(rng, 4.0);
    const auto r = ic::euclidean_distance(s1, X1, s2, X2);
    if (!r.ok() || r.distance < 0.05) continue;
    const auto d = ic::distance_derivatives(r);
    const auto f = [&](const Pose& a, const Pose& b) { return idcol_outputs(ic::euclidean_distance(s1, a, s2, b)); };
    const Eigen::MatrixXd Jfd = fd_world(f, X1, X2, 10, 1e-6);
    Eigen::MatrixXd Ja(10, 12);
    Ja << d.J_distance_X1, d.J_distance_X2, d.J_p1_W_X1, d.J_p1_W_X2, d.J_p2_W_X1, d.J_p2_W_X2, d.J_normal_W_X1,
        d.J_normal_W_X2;
    EXPECT_LT((Ja.row(0) - Jfd.row(0)).norm(), 1e-6 * (1.0 + Jfd.row(0).norm()));
    if (d.ok()) {
      ++full;
      EXPECT_LT((Ja - Jfd).cwiseAbs().maxCoeff(), 1e-5 * (1.0 + Jfd.cwiseAbs().maxCoeff()))
          << s1.describe() << " " << s2.describe() << "\nanalytic\n" << Ja << "\nfd\n" << Jfd;
    }
  }
  EXPECT_GT(full, n / 3);
}

#ifdef DIFFCOL_TEST_COUNTS_MALLOC
TEST(EuclideanDistance, HotPathAllocatesNothing) {
  auto rng = rng_for(10);
  std::vector<dc::Primitive> prims;
  for (int t = 0; t < 8; ++t) prims.push_back(random_primitive(rng, t));
  std::vector<Pose> poses;
  for (int k = 0; k < 64; ++k) poses.push_back(random_pose_at(rng, k % 2 ? 3.5 : 0.5));
  const Shape s1 = diffcol::Superellipsoid(0.5, 0.8, 1.1, 2), s2 = diffcol::Sphere(0.6);
  dc::DistanceResult r;
  dc::DistanceDerivatives d;
  ic::DistanceResult q;
  ic::DistanceDerivatives e;
  const long before = g_allocations.load();
  for (int k = 0; k + 1 < 64; ++k) {
    dc::euclidean_distance(prims[k % 8], poses[k], prims[(k / 8) % 8], poses[k + 1], r);
    dc::distance_derivatives(r, d);
    q = ic::euclidean_distance(s1, poses[k], s2, poses[k + 1]);
    ic::distance_derivatives(q, e);
  }
  EXPECT_EQ(g_allocations.load(), before);
}
#endif

}  // namespace
