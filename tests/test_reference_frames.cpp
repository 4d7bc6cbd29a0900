// Pose Jacobians in the three ReferenceFrames (world, local, local_world_aligned; math/se3.hpp,
// docs/conventions.md) in every layer: each layer's analytic columns in a frame against central
// finite differences (Ridders) of the pose moved along that frame's twists (gradient_check's
// perturb), at random configurations; the frame maps themselves; and a joint-space chain rule
// through a MuJoCo-style (local_world_aligned) arm Jacobian against finite differences in q.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <string>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/derivatives.hpp"
#include "diffcol/dcol/euclidean.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/euclidean.hpp"
#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/surface_mesh.hpp"
#include "diffcol/math/gradient_check.hpp"
#include "diffcol/math/jacobians.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/proximity_derivatives.hpp"
#include "diffcol/shapes/shape.hpp"
#include "diffcol/shapes/sphere.hpp"
#include "diffcol/shapes/superellipsoid.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/ssdf.hpp"

#include "test_util.hpp"

namespace {

using namespace diffcol;
using diffcol::test::make_pose;
using diffcol::test::random_rotation;
using diffcol::test::random_unit;

constexpr ReferenceFrame kFrames[] = {ReferenceFrame::world, ReferenceFrame::local,
                                      ReferenceFrame::local_world_aligned};

GradientCheckOptions fd_options(ReferenceFrame frame, double rel = 1e-6, double abs = 1e-8) {
  GradientCheckOptions opt;
  opt.frame = frame;
  opt.step = 1e-3;
  opt.rel_tolerance = rel;
  opt.abs_tolerance = abs;
  opt.column_group = 3;
  return opt;
}

Pose random_pose(std::mt19937& rng, double radius) {
  return make_pose(random_rotation(rng), radius * random_unit(rng));
}

// ---------------------------------------------------------------------------- the maps

TEST(ReferenceFrames, MapsAgreeWithThePerturbations) {
  // d/dt f(perturb(X, t τ, frame)) = J_world · M(frame) · τ for f = a point carried by the pose.
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const Pose X = random_pose(rng, 3.0);
    const Vec3 q_B = 2.0 * random_unit(rng);
    // world-twist Jacobian of x_W = X·q_B: [−(x_W)^, I]
    const Vec3 x = X * q_B;
    Eigen::Matrix<double, 3, 6> J_world;
    J_world << -skew(x), Mat3::Identity();
    for (const ReferenceFrame f : kFrames) {
      Eigen::Matrix<double, 3, 6> J = J_world;
      express_in_frame(J, f, X);
      EXPECT_LT((J - J_world * world_twist_from_frame(f, X)).norm(), 1e-12);
      // back from local columns
      Eigen::Matrix<double, 3, 6> J_local = J_world;
      express_in_frame(J_local, ReferenceFrame::local, X);
      express_local_in_frame(J_local, f, X);
      EXPECT_LT((J_local - J).norm(), 1e-12) << reference_frame_name(f);
      const auto res = check_pose_gradient([&](const Pose& Y) { return Eigen::VectorXd(Y * q_B); }, X,
                                           Eigen::MatrixXd(J), fd_options(f));
      EXPECT_TRUE(res.passed()) << reference_frame_name(f) << "\n" << res.report();
    }
  }
  EXPECT_STREQ(reference_frame_name(ReferenceFrame::local_world_aligned), "local_world_aligned");
  Pose bad;
  bad.p.x() = test::kNaN;
  EXPECT_THROW(world_twist_from_frame(ReferenceFrame::local, bad), std::invalid_argument);
  EXPECT_NO_THROW(world_twist_from_frame(ReferenceFrame::world, bad));
}

// ---------------------------------------------------------------------------- iDCOL

TEST(ReferenceFrames, IdcolDerivativesInEveryFrame) {
  const Shape s1{Superellipsoid(0.5, 0.3, 0.4, 4)}, s2{Sphere(0.35)};
  std::mt19937 rng(5);
  int checked = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const Pose X1 = random_pose(rng, 1.0);
    Pose X2 = random_pose(rng, 1.0);
    X2.p = X1.p + (0.6 + 0.8 * (trial % 4) / 3.0) * random_unit(rng);
    const auto f = [&](const Pose& A, const Pose& B) {
      const idcol::ContactSolution s = idcol::solve_contact(s1, A, s2, B);
      Eigen::VectorXd v(8);
      v << s.alpha, s.gap, s.p1_W, s.normal_W;
      return v;
    };
    const idcol::ContactSolution sol = idcol::solve_contact(s1, X1, s2, X2);
    ASSERT_TRUE(sol.ok());
    for (const ReferenceFrame frame : kFrames) {
      const idcol::ContactDerivatives d = idcol::contact_derivatives(sol, frame);
      ASSERT_TRUE(d.ok());
      EXPECT_EQ(d.frame, frame);
      Eigen::MatrixXd J(8, 12);
      J.row(0) << d.J_alpha_X1, d.J_alpha_X2;
      J.row(1) << d.J_gap_X1, d.J_gap_X2;
      J.middleRows(2, 3) << d.J_p1_W_X1, d.J_p1_W_X2;
      J.middleRows(5, 3) << d.J_normal_W_X1, d.J_normal_W_X2;
      const auto res = check_pose_gradient(f, X1, X2, J, fd_options(frame));
      EXPECT_TRUE(res.passed()) << reference_frame_name(frame) << "\n" << res.report();
      // the envelope gradient and the wrench Jacobians follow the frame too
      const Eigen::Matrix<double, 1, 12> env = idcol::alpha_gradient_envelope_world(sol, frame);
      EXPECT_LT((env - J.row(0)).norm(), 1e-8 * (1.0 + J.row(0).norm()));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 36);
}

TEST(ReferenceFrames, IdcolWrenchJacobiansInEveryFrame) {
  const Shape s1{Superellipsoid(0.5, 0.3, 0.4, 4)}, s2{Sphere(0.35)};
  std::mt19937 rng(7);
  const idcol::HertzModel model{100.0, 2.5};
  for (int trial = 0; trial < 6; ++trial) {
    const Pose X1 = random_pose(rng, 1.0);
    Pose X2 = random_pose(rng, 1.0);
    X2.p = X1.p + 0.5 * random_unit(rng);  // penetrating
    const idcol::ContactSolution sol = idcol::solve_contact(s1, X1, s2, X2);
    ASSERT_TRUE(sol.ok());
    const auto f = [&](const Pose& A, const Pose& B) {
      const idcol::ContactWrenches w = idcol::hertz_wrenches(idcol::solve_contact(s1, A, s2, B), model);
      return Eigen::VectorXd(w.F_c1_W);
    };
    for (const ReferenceFrame frame : kFrames) {
      const idcol::ContactWrenches w = idcol::hertz_wrenches(sol, idcol::contact_derivatives(sol, frame), model);
      ASSERT_TRUE(w.ok() && w.in_contact);
      EXPECT_EQ(w.frame, frame);
      Eigen::MatrixXd J(6, 12);
      J << w.J_Fc1_W_X1, w.J_Fc1_W_X2;
      const auto res = check_pose_gradient(f, X1, X2, J, fd_options(frame, 1e-6, 1e-6));
      EXPECT_TRUE(res.passed()) << reference_frame_name(frame) << "\n" << res.report();
    }
  }
}

// ---------------------------------------------------------------------------- DCOL

TEST(ReferenceFrames, DcolDerivativesInEveryFrame) {
  // a box mounted at an offset on body 1: the frames are about the body poses
  const dcol::Primitive a = dcol::Polytope::box(0.4, 0.3, 0.2, make_pose(Mat3::Identity(), Vec3(0.1, 0.0, 0.05)));
  const dcol::Primitive b = dcol::Ellipsoid::from_semi_axes(0.3, 0.2, 0.25);
  std::mt19937 rng(9);
  for (int trial = 0; trial < 10; ++trial) {
    const Pose X1 = random_pose(rng, 1.0);
    Pose X2 = random_pose(rng, 1.0);
    X2.p = X1.p + (0.5 + 0.15 * trial) * random_unit(rng);
    const auto f = [&](const Pose& A, const Pose& B) {
      const dcol::ContactResult r = dcol::solve_contact(a, A, b, B);
      Eigen::VectorXd v(5);
      v << r.alpha, r.gap, r.p1_W;
      return v;
    };
    const dcol::ContactResult r = dcol::solve_contact(a, X1, b, X2);
    ASSERT_EQ(r.status, diffcol::SolveStatus::ok);
    for (const ReferenceFrame frame : kFrames) {
      const dcol::ContactDerivatives d = dcol::contact_derivatives(r, frame);
      if (!d.ok()) continue;  // a vertex–face switch (not differentiable): rare, skipped
      EXPECT_EQ(d.frame, frame);
      Eigen::MatrixXd J(5, 12);
      J.row(0) << d.J_alpha_X1, d.J_alpha_X2;
      J.row(1) << d.J_gap_X1, d.J_gap_X2;
      J.middleRows(2, 3) << d.J_p1_W_X1, d.J_p1_W_X2;
      const auto res = check_pose_gradient(f, X1, X2, J, fd_options(frame, 1e-5, 1e-7));
      EXPECT_TRUE(res.passed()) << reference_frame_name(frame) << "\n" << res.report();
    }
    if (trial == 0) {
      EXPECT_THROW(dcol::to_position_quaternion(r, dcol::contact_derivatives(r, ReferenceFrame::local)),
                   std::invalid_argument);
    }
  }
}

// ---------------------------------------------------------------------------- Euclidean distances

TEST(ReferenceFrames, EuclideanDistanceDerivativesInEveryFrame) {
  const dcol::Primitive a = dcol::Cylinder(0.2, 0.6), b = dcol::Ellipsoid::from_semi_axes(0.3, 0.2, 0.25);
  const Shape c{Superellipsoid(0.5, 0.3, 0.4, 4)}, e{Sphere(0.35)};
  std::mt19937 rng(29);
  int checked = 0;
  for (int trial = 0; trial < 8; ++trial) {
    const Pose X1 = random_pose(rng, 1.0);
    Pose X2 = random_pose(rng, 1.0);
    X2.p = X1.p + (1.2 + 0.1 * trial) * random_unit(rng);
    const dcol::DistanceResult rd = dcol::euclidean_distance(a, X1, b, X2);
    const idcol::DistanceResult ri = idcol::euclidean_distance(c, X1, e, X2);
    ASSERT_TRUE(rd.ok() && ri.ok());
    for (const ReferenceFrame frame : kFrames) {
      const dcol::DistanceDerivatives dd = dcol::distance_derivatives(rd, frame);
      const idcol::DistanceDerivatives di = idcol::distance_derivatives(ri, frame);
      EXPECT_EQ(dd.frame, frame);
      EXPECT_EQ(di.frame, frame);
      if (dd.ok()) {
        Eigen::MatrixXd J(4, 12);
        J.row(0) << dd.J_distance_X1, dd.J_distance_X2;
        J.middleRows(1, 3) << dd.J_p1_W_X1, dd.J_p1_W_X2;
        const auto res = check_pose_gradient(
            [&](const Pose& A, const Pose& B) {
              const dcol::DistanceResult r = dcol::euclidean_distance(a, A, b, B);
              Eigen::VectorXd v(4);
              v << r.distance, r.p1_W;
              return v;
            },
            X1, X2, J, fd_options(frame, 2e-5, 1e-7));
        EXPECT_TRUE(res.passed()) << "dcol " << reference_frame_name(frame) << "\n" << res.report();
        ++checked;
      }
      if (di.ok()) {
        Eigen::MatrixXd J(4, 12);
        J.row(0) << di.J_distance_X1, di.J_distance_X2;
        J.middleRows(1, 3) << di.J_p1_W_X1, di.J_p1_W_X2;
        const auto res = check_pose_gradient(
            [&](const Pose& A, const Pose& B) {
              const idcol::DistanceResult r = idcol::euclidean_distance(c, A, e, B);
              Eigen::VectorXd v(4);
              v << r.distance, r.p1_W;
              return v;
            },
            X1, X2, J, fd_options(frame, 2e-5, 1e-7));
        EXPECT_TRUE(res.passed()) << "idcol " << reference_frame_name(frame) << "\n" << res.report();
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 40);
}

// ---------------------------------------------------------------------------- QP

TEST(ReferenceFrames, QpDerivativesInEveryFrame) {
  const qp::Capsule c1(0.2, 0.8);
  const qp::PaddedPolygon p2 = qp::PaddedPolygon::rectangle(0.4, 0.3, 0.05);
  std::mt19937 rng(13);
  for (int trial = 0; trial < 10; ++trial) {
    const Pose X1 = random_pose(rng, 1.0);
    Pose X2 = random_pose(rng, 1.0);
    X2.p = X1.p + (1.0 + 0.1 * trial) * random_unit(rng);
    const auto f = [&](const Pose& A, const Pose& B) {
      const qp::ProximityResult r = qp::proximity(c1, A, p2, B);
      Eigen::VectorXd v(7);
      v << r.signed_distance, r.p1_W, r.normal_W;
      return v;
    };
    const qp::ProximityResult r = qp::proximity(c1, X1, p2, X2);
    ASSERT_TRUE(r.ok());
    for (const ReferenceFrame frame : kFrames) {
      const qp::ProximityDerivatives d = qp::proximity_derivatives(c1, X1, p2, X2, r, frame);
      if (d.status != diffcol::DerivativeStatus::ok) continue;
      EXPECT_EQ(d.frame, frame);
      Eigen::MatrixXd J(7, 12);
      J.row(0) << d.J_signed_distance_X1, d.J_signed_distance_X2;
      J.middleRows(1, 3) << d.J_p1_W_X1, d.J_p1_W_X2;
      J.middleRows(4, 3) << d.J_normal_W_X1, d.J_normal_W_X2;
      const auto res = check_pose_gradient(f, X1, X2, J, fd_options(frame));
      EXPECT_TRUE(res.passed()) << reference_frame_name(frame) << "\n" << res.report();
    }
  }
  // the capsule-pair gradient and the position-quaternion map
  const qp::Capsule c2(0.1, 0.6);
  for (int trial = 0; trial < 5; ++trial) {
    const Pose X1 = random_pose(rng, 1.0), X2 = random_pose(rng, 1.0);
    for (const ReferenceFrame frame : kFrames) {
      qp::ProximityGradient g;
      qp::proximity_gradient(c1, X1, c2, X2, g, frame);
      Eigen::MatrixXd J(1, 12);
      J << g.J_phi_X1, g.J_phi_X2;
      const auto res = check_pose_gradient(
          [&](const Pose& A, const Pose& B) {
            qp::ProximityGradient h;
            qp::proximity_gradient(c1, A, c2, B, h, frame);
            return Eigen::VectorXd::Constant(1, h.phi);
          },
          X1, X2, J, fd_options(frame));
      EXPECT_TRUE(res.passed()) << reference_frame_name(frame) << "\n" << res.report();
    }
  }
}

// ---------------------------------------------------------------------------- manifold

TEST(ReferenceFrames, ManifoldDerivativesInEveryFrame) {
  using namespace diffcol::manifold;
  ManifoldOptions opt;
  opt.t_topk = 0.05;
  opt.contact.t_pen = 0.02;
  opt.contact.t_nn = 0.05;
  opt.contact.t_sign = 0.2;
  opt.contact.t_clash = 0.2;
  opt.witness.regularization = 0.05;
  opt.num_vertices[0] = 4;
  opt.num_vertices[1] = 5;
  opt.num_edges[0] = 3;
  opt.num_edges[1] = 4;
  const auto box = [](double half) {
    return ContactObject(make_refined_box(Eigen::Vector3d::Constant(2.0 * half), 1),
                         make_box_sdf(Eigen::Vector3d::Constant(2.0 * half), 0.1));
  };
  const ContactObject top = box(0.35), bottom = box(0.5);
  const auto stack = [](const ContactManifold& m) {
    Eigen::VectorXd y(4 * m.entries.size());
    for (std::size_t e = 0; e < m.entries.size(); ++e) {
      y.segment<3>(4 * e) = m.entries[e].point;
      y[4 * e + 3] = m.entries[e].distance;
    }
    return y;
  };
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int trial = 0; trial < 3; ++trial) {
    const Pose X1 = make_pose(random_rotation(rng), Vec3(0.2 * U(rng), 0.2 * U(rng), 0.75 + 0.1 * U(rng)));
    const Pose X2 = make_pose(random_rotation(rng), Vec3(0.1 * U(rng), 0.1 * U(rng), 0.1 * U(rng)));
    for (const ReferenceFrame frame : kFrames) {
      ManifoldWorkspace ws;
      ContactManifold m;
      ManifoldDerivatives d;
      compute_manifold_derivatives(top, X1, bottom, X2, opt, pose_coordinates(frame), ws, m, d);
      Eigen::MatrixXd J(4 * d.J_point_X12.size(), 12);
      for (std::size_t e = 0; e < d.J_point_X12.size(); ++e) {
        J.middleRows<3>(4 * e) = d.J_point_X12[e];
        J.row(4 * e + 3) = d.J_distance_X12[e];
      }
      const auto res = check_pose_gradient(
          [&](const Pose& A, const Pose& B) {
            ManifoldWorkspace w2;
            ContactManifold m2;
            compute_manifold(top, A, bottom, B, opt, w2, m2);
            return Eigen::VectorXd(stack(m2));
          },
          X1, X2, J, fd_options(frame));
      EXPECT_TRUE(res.passed()) << reference_frame_name(frame) << "\n" << res.report();
    }
  }
  EXPECT_STREQ(pose_coordinates_name(PoseCoordinates::se3_log), "se3_log");
  EXPECT_STREQ(pose_coordinates_name(pose_coordinates(ReferenceFrame::local)), "local");
}

// ---------------------------------------------------------------------------- SSDF

TEST(ReferenceFrames, SsdfDerivativesInEveryFrame) {
  ssdf::AopcOptions ao;
  ao.num_points = 120;
  const ssdf::OrientedPointCloud c1 = ssdf::make_aopc(mesh::make_box(Vec3(0.1, 0.06, 0.08)), ao);
  ao.num_points = 150;
  const ssdf::OrientedPointCloud c2 = ssdf::make_aopc(mesh::make_t_shape(), ao);
  ssdf::SsdfWorkspace ws;
  std::mt19937 rng(19);
  for (int trial = 0; trial < 4; ++trial) {
    const Pose X1 = random_pose(rng, 0.02), X2 = random_pose(rng, 0.1);
    for (const ReferenceFrame frame : kFrames) {
      const ssdf::Separation s = ssdf::smooth_separation_distance(c1, X1, c2, X2, 2e-4, 5e-3, ws, true, frame);
      EXPECT_EQ(s.frame, frame);
      const auto res = check_pose_gradient(
          [&](const Pose& A, const Pose& B) {
            ssdf::SsdfWorkspace w2;
            return Eigen::VectorXd::Constant(1, ssdf::smooth_separation_distance(c1, A, c2, B, 2e-4, 5e-3, w2, false).distance);
          },
          X1, X2, Eigen::MatrixXd(s.J_distance_X), fd_options(frame));
      EXPECT_TRUE(res.passed()) << reference_frame_name(frame) << "\n" << res.report();
      const Vec3 p_W = X1.p + Vec3(0.05, 0.02, -0.01);
      const ssdf::SsdfQuery q = ssdf::soft_signed_distance(c2, X2, p_W, 2e-4, ws, frame);
      const auto rq = check_pose_gradient(
          [&](const Pose& B) {
            ssdf::SsdfWorkspace w2;
            return Eigen::VectorXd::Constant(1, ssdf::soft_signed_distance(c2, B, p_W, 2e-4, w2).phi);
          },
          X2, Eigen::MatrixXd(q.J_phi_X), fd_options(frame));
      EXPECT_TRUE(rq.passed()) << reference_frame_name(frame) << "\n" << rq.report();
    }
  }
}

// ---------------------------------------------------------------------------- joint space

/// A 3-joint spatial arm: joint 1 about world z at the origin, joint 2 about the y axis of link 1
/// at (0, 0, 0.4), joint 3 about the y axis of link 2 at (0.5, 0, 0) of link 2. The end link
/// carries the shape at its origin.
struct Arm {
  static Mat3 rot(const Vec3& axis, double t) { return Eigen::AngleAxisd(t, axis).toRotationMatrix(); }
  static Pose end_pose(const Eigen::Vector3d& q, Vec3* joint_pos = nullptr, Vec3* joint_axis = nullptr) {
    Pose X = make_pose(rot(Vec3::UnitZ(), q[0]), Vec3::Zero());
    if (joint_pos) joint_pos[0] = X.p, joint_axis[0] = X.R * Vec3::UnitZ();
    X = X * make_pose(rot(Vec3::UnitY(), q[1]), Vec3(0.0, 0.0, 0.4));
    if (joint_pos) joint_pos[1] = X.p, joint_axis[1] = X.R * Vec3::UnitY();
    X = X * make_pose(rot(Vec3::UnitY(), q[2]), Vec3(0.5, 0.0, 0.0));
    if (joint_pos) joint_pos[2] = X.p, joint_axis[2] = X.R * Vec3::UnitY();
    return X;
  }
  /// MuJoCo-style Jacobian of the end link: rows [ω; ṗ_origin], world axes.
  static Eigen::Matrix<double, 6, 3> jacobian_lwa(const Eigen::Vector3d& q) {
    Vec3 pos[3], axis[3];
    const Pose X = end_pose(q, pos, axis);
    Eigen::Matrix<double, 6, 3> J;
    for (int i = 0; i < 3; ++i) {
      J.block<3, 1>(0, i) = axis[i];
      J.block<3, 1>(3, i) = axis[i].cross(X.p - pos[i]);
    }
    return J;
  }
};

TEST(ReferenceFrames, JointSpaceChainRuleWithAMujocoStyleJacobian) {
  const dcol::Primitive obstacle = dcol::Polytope::box(0.15, 0.2, 0.1);
  const dcol::Primitive tool = dcol::Capsule(0.05, 0.2);
  const Pose X_obs = make_pose(Mat3::Identity(), Vec3(0.55, 0.25, 0.35));
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> U(-0.6, 0.6);
  int checked = 0;
  double worst_wrong = 0.0;
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::Vector3d q(U(rng), 0.3 + 0.3 * U(rng), 0.4 * U(rng));
    const dcol::ContactResult r = dcol::solve_contact(obstacle, X_obs, tool, Arm::end_pose(q));
    ASSERT_EQ(r.status, diffcol::SolveStatus::ok);
    const dcol::ContactDerivatives d = dcol::contact_derivatives(r, ReferenceFrame::local_world_aligned);
    if (!d.ok()) continue;
    const Eigen::Matrix<double, 6, 3> Jq = Arm::jacobian_lwa(q);
    Eigen::MatrixXd analytic(2, 3);
    analytic.row(0) = d.J_alpha_X2 * Jq;
    analytic.row(1) = d.J_gap_X2 * Jq;
    // the same through to_coordinates from world columns
    const dcol::ContactDerivatives dw = dcol::contact_derivatives(r);
    const BodyJacobian still{Eigen::MatrixXd::Zero(6, 3), ReferenceFrame::world, X_obs};
    const BodyJacobian arm{Jq, ReferenceFrame::local_world_aligned, Arm::end_pose(q)};
    EXPECT_LT((to_coordinates(dw.J_alpha_X1, dw.J_alpha_X2, still, arm) - analytic.row(0)).norm(),
              1e-10 * (1.0 + analytic.norm()));
    worst_wrong = std::max(worst_wrong, (dw.J_alpha_X2 * Jq - analytic.row(0)).norm());
    const auto res = check_gradient(
        [&](const Eigen::VectorXd& qq) {
          const dcol::ContactResult s = dcol::solve_contact(obstacle, X_obs, tool, Arm::end_pose(Eigen::Vector3d(qq)));
          return Eigen::VectorXd(Eigen::Vector2d(s.alpha, s.gap));
        },
        Eigen::VectorXd(q), analytic, fd_options(ReferenceFrame::world, 1e-6, 1e-8));
    EXPECT_TRUE(res.passed()) << res.report();
    ++checked;
  }
  EXPECT_GE(checked, 8);
  // world columns times the MuJoCo-style Jacobian differ: the mistake the frames prevent
  EXPECT_GT(worst_wrong, 1e-3);
}

}  // namespace
