// Bad poses at every layer's entry points (Pose::invalid_reason, math/se3.hpp): a C++ caller may
// fill the Pose aggregate with anything, so each entry point must answer a non-finite entry, a
// matrix that is not a rotation (zero, 1e200·I, 2·I, a reflection, a slightly sheared rotation)
// or a translation beyond kMaxLength with its documented status (every numeric field finite) or
// std::invalid_argument, never with NaN or with a "converged" answer for a non-rigid transform.
// Before the check, 1e200·I gave NaN derivatives, wrenches, manifolds and dynamics steps, and
// 2·I or 0 gave converged nonsense (an exploratory probe of 807 cases found 85 silent NaN / inf).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/manifold/batch.hpp"
#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
#include "diffcol/math/gradient_check.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"
#include "diffcol/ssdf/dynamics.hpp"
#include "diffcol/ssdf/scm.hpp"
#include "diffcol/ssdf/ssdf.hpp"

#include "test_util.hpp"

namespace {

using diffcol::Mat3;
using diffcol::Pose;
using diffcol::Vec3;
using diffcol::Vec6;
using diffcol::ReferenceFrame;
namespace idcol = diffcol::idcol;
namespace dcol = diffcol::dcol;
namespace qp = diffcol::qp;
namespace manifold = diffcol::manifold;
namespace ssdf = diffcol::ssdf;

struct BadPose {
  std::string name;
  Pose X;
};

Pose at(double x, double y = 0.0, double z = 0.0) {
  Pose X;
  X.p = Vec3(x, y, z);
  return X;
}

std::vector<BadPose> bad_poses() {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<BadPose> v;
  Pose X = at(0.1);
  X.p.y() = nan;
  v.push_back({"p NaN", X});
  X = at(0.1);
  X.p.x() = inf;
  v.push_back({"p inf", X});
  v.push_back({"p 1.1e100", at(1.1e100)});
  v.push_back({"p 1e200", at(1e200)});
  X = at(0.1);
  X.R(0, 1) = nan;
  v.push_back({"R NaN", X});
  X = at(0.1);
  X.R.setZero();
  v.push_back({"R 0", X});
  X = at(0.1);
  X.R = 1e200 * Mat3::Identity();
  v.push_back({"R 1e200 I", X});
  X = at(0.1);
  X.R = 2.0 * Mat3::Identity();
  v.push_back({"R 2 I", X});
  X = at(0.1);
  X.R = Vec3(1.0, 1.0, -1.0).asDiagonal();
  v.push_back({"R reflection", X});
  X = at(0.1);
  X.R(0, 1) = 1e-4;  // sheared beyond kRotationTolerance
  v.push_back({"R sheared 1e-4", X});
  return v;
}

template <class D>
bool finite(const Eigen::DenseBase<D>& m) {
  return m.derived().allFinite();
}

TEST(BadPoses, InvalidReasonNamesEachDefect) {
  EXPECT_EQ(Pose::identity().invalid_reason(), nullptr);
  std::mt19937 rng(1);
  for (int k = 0; k < 100; ++k) {  // random rotations, perturbed within the tolerance, are valid
    Pose X = diffcol::test::make_pose(diffcol::test::random_rotation(rng), Vec3::Random() * 1e99);
    X.R += 1e-9 * Mat3::Random();
    EXPECT_TRUE(X.is_valid()) << k;
  }
  EXPECT_TRUE(at(1e100).is_valid());
  for (const BadPose& b : bad_poses()) {
    const char* why = b.X.invalid_reason();
    ASSERT_NE(why, nullptr) << b.name;
    EXPECT_THROW(Pose::from_rotation(b.X.R, b.X.p), std::invalid_argument) << b.name;
  }
  EXPECT_NE(std::string(bad_poses()[6].X.invalid_reason()).find("not a rotation"), std::string::npos);
}

TEST(BadPoses, IdcolGivesInvalidInputWithFiniteFields) {
  const diffcol::Shape sphere = diffcol::Sphere(1.0);
  const diffcol::Shape box = diffcol::SmoothPolytope::box(0.5, 0.5, 0.5, 20.0);
  const Pose X1 = at(0.0), X2 = at(1.5, 0.2, 0.1);
  const idcol::ContactSolution good = idcol::solve_contact(sphere, X1, box, X2);
  ASSERT_TRUE(good.ok());
  for (const BadPose& b : bad_poses()) {
    for (int side = 0; side < 2; ++side) {
      const idcol::ContactSolution s =
          side == 0 ? idcol::solve_contact(sphere, b.X, box, X2) : idcol::solve_contact(sphere, X1, box, b.X);
      EXPECT_EQ(s.status, diffcol::SolveStatus::invalid_input) << b.name;
      EXPECT_TRUE(std::isfinite(s.alpha) && std::isfinite(s.gap) && finite(s.x_W) && finite(s.normal_W) &&
                  finite(s.kkt_jacobian) && std::isfinite(s.residual_norm))
          << b.name;
      idcol::ContactPair pair(sphere, box);
      pair.solve(X1, X2);  // a warm start, then the bad pose
      EXPECT_EQ(pair.solve(side == 0 ? b.X : X1, side == 0 ? X2 : b.X).status, diffcol::SolveStatus::invalid_input)
          << b.name;
    }
    // the derivatives read the poses from the solution: a solve with a bad pose gives none
    const idcol::ContactSolution bad = idcol::solve_contact(sphere, b.X, box, X2);
    for (const ReferenceFrame frame : {ReferenceFrame::world, ReferenceFrame::local, ReferenceFrame::local_world_aligned}) {
      const idcol::ContactDerivatives d = idcol::contact_derivatives(bad, frame);
      EXPECT_EQ(d.status, diffcol::DerivativeStatus::invalid_input) << b.name;
      EXPECT_TRUE(finite(d.J_alpha_X1) && finite(d.J_x_W_X1) && finite(d.J_normal_W_X2)) << b.name;
      EXPECT_TRUE(idcol::alpha_gradient_envelope_world(bad, frame).isZero(0.0)) << b.name;
    }
    EXPECT_TRUE(bad.X_W1.is_valid()) << b.name;  // identity, never the bad pose
  }
}

TEST(BadPoses, DcolGivesInvalidInput) {
  const dcol::Primitive sphere = dcol::Sphere(1.0), box = dcol::Polytope::box(0.5, 0.5, 0.5);
  for (const BadPose& b : bad_poses()) {
    const dcol::ContactResult r = dcol::solve_contact(sphere, b.X, box, at(1.5, 0.2, 0.1));
    EXPECT_EQ(r.status, diffcol::SolveStatus::invalid_input) << b.name;
    EXPECT_TRUE(std::isfinite(r.alpha) && finite(r.x_W) && r.X_WB1.is_finite() && r.X_WS1.is_finite()) << b.name;
    EXPECT_THROW(dcol::Sphere(1.0, b.X), std::invalid_argument) << b.name;  // a bad offset pose
  }
}

TEST(BadPoses, QpGivesInvalidInput) {
  const qp::Capsule c1(0.3, 1.0), c2(0.2, 0.8);
  const qp::PaddedPolygon g = qp::PaddedPolygon::rectangle(0.5, 0.3, 0.05);
  const Pose X1 = at(0.0), X2 = at(0.5, 1.0, 0.2);
  const qp::ProximityResult good = qp::proximity(c1, X1, c2, X2);
  ASSERT_TRUE(good.ok());
  qp::ProximityOptions ipm;
  ipm.capsule_solver = qp::CapsuleSolver::interior_point;
  for (const BadPose& b : bad_poses()) {
    for (const qp::ProximityResult& r : {qp::proximity(c1, b.X, c2, X2), qp::proximity(c1, X1, c2, b.X, ipm),
                                         qp::proximity(g, b.X, g, X2), qp::proximity(c1, X1, g, b.X)}) {
      EXPECT_EQ(r.status, diffcol::SolveStatus::invalid_input) << b.name;
      EXPECT_TRUE(std::isfinite(r.phi) && std::isfinite(r.signed_distance) && finite(r.core1_W)) << b.name;
    }
    qp::ProximityGradient pg;
    qp::proximity_gradient(c1, b.X, c2, X2, pg, diffcol::ReferenceFrame::local);
    EXPECT_EQ(pg.status, diffcol::SolveStatus::invalid_input) << b.name;
    const qp::ProximityDerivatives d = qp::proximity_derivatives(c1, b.X, c2, X2, good);
    EXPECT_EQ(d.status, diffcol::DerivativeStatus::invalid_input) << b.name;
    EXPECT_TRUE(finite(d.J_phi_X1) && finite(d.J_core1_W_X1) && finite(d.J_normal_W_X2)) << b.name;
  }
}

TEST(BadPoses, ManifoldThrows) {
  const auto box = [](double half, const Pose& X) {
    return manifold::ContactObject(manifold::make_refined_box(Eigen::Vector3d::Constant(2.0 * half), 1),
                                   manifold::make_box_sdf(Eigen::Vector3d::Constant(2.0 * half), 0.1), X);
  };
  const manifold::ContactObject A = box(0.35, at(0.0)), B = box(0.5, at(0.0));
  manifold::ManifoldWorkspace ws;
  manifold::ContactManifold m;
  for (const BadPose& b : bad_poses()) {
    EXPECT_THROW(manifold::compute_manifold(A, b.X, B, at(0.0, 0.0, 0.8), manifold::ManifoldOptions{}, ws, m),
                 std::invalid_argument)
        << b.name;
    manifold::ContactObject o = A;
    EXPECT_THROW(o.set_pose(b.X), std::invalid_argument) << b.name;
    EXPECT_THROW(manifold::Superquadric(Eigen::Vector3d::Constant(0.3), 0.1, 0.1, b.X), std::invalid_argument)
        << b.name;
    manifold::ManifoldBatchOptions opt;
    opt.num_threads = 1;
    manifold::ManifoldBatch batch(A, B, opt);
    const std::vector<Pose> X_W1{b.X}, X_W2{at(0.0, 0.0, 0.8)};
    const size_t K = static_cast<size_t>(batch.entries_per_manifold());
    std::vector<double> point(3 * K), distance(K), normal(3 * K), activity(K);
    manifold::ManifoldBatchOutput out;
    out.point = point;
    out.distance = distance;
    out.normal = normal;
    out.activity = activity;
    EXPECT_THROW(batch.compute(X_W1, X_W2, out), std::invalid_argument) << b.name;
  }
}

TEST(BadPoses, SsdfThrows) {
  ssdf::AopcOptions ao;
  ao.num_points = 40;
  auto cloud = std::make_shared<const ssdf::OrientedPointCloud>(ssdf::make_aopc(diffcol::mesh::make_box(Vec3(0.2, 0.15, 0.05)), ao));
  const ssdf::ScmParameters prm;
  ssdf::SsdfWorkspace ws;
  ssdf::Scene scene(prm);
  ssdf::FreeBodySpec body;
  body.mass = 0.8;
  body.inertia = 0.01 * Mat3::Identity();
  body.geometry = ssdf::Geometry::point_cloud(cloud);
  scene.add_free_body(body);
  scene.add_kinematic_body({ssdf::Geometry::sphere(0.02)});
  scene.add_contact_pair(ssdf::BodyId::free(0), ssdf::BodyId::driven(0));
  for (const BadPose& b : bad_poses()) {
    EXPECT_THROW(ssdf::soft_signed_distance(*cloud, b.X, Vec3(0.2, 0.0, 0.0), 1e-4, ws), std::invalid_argument)
        << b.name;
    EXPECT_THROW(ssdf::point_ssdf_contact(Vec3::Zero(), at(0.12), Vec6::Zero(), *cloud, b.X, Vec6::Zero(), prm, ws),
                 std::invalid_argument)
        << b.name;
    EXPECT_THROW(ssdf::pair_contact(*cloud, b.X, Vec6::Zero(), *cloud, at(0.3), Vec6::Zero(), prm, ws),
                 std::invalid_argument)
        << b.name;
    ssdf::State x = ssdf::State::zeros(scene);
    ssdf::Control u = ssdf::Control::zeros(scene);
    x.pose[0] = b.X;
    EXPECT_THROW(ssdf::step_euler(scene, x, u, 1e-3), std::invalid_argument) << b.name;
    x = ssdf::State::zeros(scene);
    u.pose[0] = b.X;
    EXPECT_THROW(ssdf::contact_force_jacobian(scene, x, u), std::invalid_argument) << b.name;
  }
}

// The SE(3) maps and pose helpers throw on non-finite input and on overflow instead of
// returning NaN (se3_exp of a finite twist with |ω| = 1e200 gave a NaN pose).
TEST(BadPoses, MathMapsThrow) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(diffcol::so3_exp(Vec3(1e200, 0.0, 0.0)), std::invalid_argument);
  EXPECT_THROW(diffcol::so3_exp(Vec3(nan, 0.0, 0.0)), std::invalid_argument);
  Vec6 xi = Vec6::Zero();
  xi(0) = 1e200;
  EXPECT_THROW(diffcol::se3_exp(xi), std::invalid_argument);
  xi.setZero();
  xi(5) = nan;
  EXPECT_THROW(diffcol::se3_exp(xi), std::invalid_argument);
  xi.setZero();
  xi(0) = 0.1;
  xi(3) = 1e100;  // large but representable: finite
  EXPECT_TRUE(diffcol::se3_exp(xi).is_finite());
  for (const BadPose& b : bad_poses()) {
    if (b.X.is_finite()) continue;  // the maps accept any finite pose (they are used on non-rigid data too)
    EXPECT_THROW(diffcol::se3_log(b.X), std::invalid_argument) << b.name;
    EXPECT_THROW(diffcol::adjoint(b.X), std::invalid_argument) << b.name;
    EXPECT_THROW(diffcol::perturb(b.X, Vec6::Zero(), diffcol::ReferenceFrame::world), std::invalid_argument)
        << b.name;
    EXPECT_THROW(diffcol::shape_body_twist_map(b.X), std::invalid_argument) << b.name;
  }
}

}  // namespace
