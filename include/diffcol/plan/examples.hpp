#pragma once
/// @file examples.hpp
/// The trajectory problems of the seeds' examples, built in one place for `diffcol demo` and the
/// tests (docs/plan.md): each returns the scene, the robot (if any) and the problem over them
/// with its initial guess.
#include <memory>
#include <string>

#include "diffcol/plan/trajectory.hpp"

namespace diffcol::plan::examples {

struct Example {
  std::unique_ptr<scene::Scene> scene;
  std::unique_ptr<scene::Robot> robot;          ///< null without a robot
  std::unique_ptr<TrajectoryProblem> problem;   ///< over *scene (declared last: destroyed first)
  Eigen::VectorXd x0;                           ///< the initial guess
  std::string description;                      ///< one line
  /// null, or a scene with the same bodies in exact DCOL shapes that contain the smooth ones, to
  /// check the result in (CheckOptions::scene)
  std::unique_ptr<scene::Scene> check_scene;
};

/// DCOL seed Sec. IV-A-1: a 2.6 m rod (DCOL capsule, radius 3 cm) moves in the plane (x, y, θ)
/// around a 90° turn of a hallway 1 m wide whose walls are box polytopes; α ≥ 1.002 at the
/// knots; the static initial guess. smooth: the same scene in iDCOL shapes (smooth boxes and a
/// superelliptic cylinder within 2 mm of the exact ones), whose collision rows have exact
/// Hessians (HessianMode::exact), and a path drawn around the corner as the initial guess (from
/// the static one the limited-memory solve of the smooth scene fails, restoration).
Example piano_mover(int knots = 40, bool smooth = false);

/// DCOL seed Sec. IV-A-3: a cone (height 1.5, half-angle 20°) taller than a 1.3 m square opening
/// in a wall of four box prisms passes it; pose6 coordinates driven by a double integrator on
/// them (extra state: their rates; controls: their accelerations; 5 s); α ≥ 1.01 at the knots
/// and the interval midpoints; the static initial guess. smooth: in iDCOL shapes (smooth boxes, a
/// smooth truncated cone with a 1 cm tip), whose rows have exact Hessians.
Example cone_opening(int knots = 40, bool smooth = false);

/// The 7-DoF test arm (urdf, srdf) in joint space from one side of a pillar to the other above a
/// table; every pair that may touch, self-collision included; Euclidean distance ≥ 2 cm at the
/// knots and the interval midpoints; the straight line in joint space as the initial guess (it
/// passes through the pillar). near_pairs: PairSelection::initial_path. smooth: iDCOL shapes (the
/// URDF's capsules as the cylinders that contain them, then smoothed; smooth boxes for the table
/// and pillar) and the gap d_D ≥ 2 cm, whose rows have exact Hessians (HessianMode::exact); its
/// check_scene holds the same shapes exact (DCOL boxes and cylinders).
Example arm_reach(const std::string& urdf, const std::string& srdf, int knots = 20, bool near_pairs = false,
                  bool smooth = false);

}  // namespace diffcol::plan::examples
