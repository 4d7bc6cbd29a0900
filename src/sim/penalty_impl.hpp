#pragma once
// Internal state of PenaltySystem (penalty.hpp), shared by penalty.cpp (the right-hand side and
// its Jacobian) and penalty_cvodes.cpp (the integration).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/sim/penalty.hpp"

namespace diffcol::sim {

/// ∂δθ_W/∂q for R = R(q/‖q‖): 2 vec(δq ⊗ q̂*)/‖q‖ (3 × 4).
Eigen::Matrix<double, 3, 4> quaternion_to_rotation_map(const Eigen::Vector4d& q, double q_norm);

struct PenaltySystem::Impl {
  struct ShapeInfo {
    Shape shape;
    Pose X_BS;  // the iDCOL shape's frame in its body
    int body;
    double radius;
  };
  struct Kin {  // one scene body at the current state
    Mat3 R = Mat3::Identity();
    Vec3 p = Vec3::Zero(), v = Vec3::Zero(), w_B = Vec3::Zero(), w_W = Vec3::Zero();
    Eigen::Vector4d q = Eigen::Vector4d(1, 0, 0, 0);
    double q_norm = 1.0;
    Vec3 force = Vec3::Zero(), torque_W = Vec3::Zero();  // about the centre of mass, world axes
  };
  struct PairSlot {
    idcol::ContactPair pair;
    idcol::ContactDerivatives derivs{};
  };

  scene::Scene scene;
  ContactModel model;
  Vec3 gravity = Vec3::Zero();
  std::vector<MassProperties> mass;
  std::vector<int> free_bodies;  // scene body ids of the free bodies
  std::vector<int> free_index;   // per scene body: index among the free bodies, −1 if static
  std::vector<Mat3> inertia_inv;  // per free body
  std::vector<ShapeInfo> shapes;
  std::vector<double> body_extent;  // per scene body: the largest distance of its shapes' points from its origin
  double min_radius = 1.0;          // the smallest shape's bounding radius
  std::vector<Kin> kin;
  std::unordered_map<std::uint64_t, std::unique_ptr<PairSlot>> pairs;
  double margin = 0.1;
  idcol::SolveOptions solve_options = [] {
    idcol::SolveOptions o;
    o.tolerance = 1e-12;  // the right-hand side to ~rounding: CVODES' Newton iterations and tight tolerances
    return o;
  }();

  // diagnostics of the last assemble() and running counters
  double last_max_penetration = 0.0;
  std::pair<int, int> last_pair{-1, -1};       // the shapes of a failed solve
  std::pair<int, int> deepest_pair{-1, -1};    // the shapes of the deepest contact
  long contact_solves = 0;
  double collision_s = 0.0;

  void load(const double* y);
  PairSlot& slot(int a, int b);
  long fd_pair_jacobians = 0;  // pair blocks of the Jacobian by differences (no contact derivatives)
  void assemble(const double* y, double* ydot, double* dfdk, double* J);
  /// Whether momentum is an invariant (no static body, zero gravity).
  bool momentum_invariant() const;
  /// The velocity correction of y (13 per free body, positions and quaternions 0) that restores
  /// the total linear and angular momentum `target` = (P, L): corr = M⁻¹Cᵀ(CM⁻¹Cᵀ)⁻¹(target − C u),
  /// C the momentum map at y's positions (linear in the velocities u), M the kinetic metric. With
  /// `err`, its velocity part is projected onto ker C in place.
  void momentum_correction(const double* y, const Eigen::Matrix<double, 6, 1>& target, double* corr, double* err) const;
  bool pair_wrench(PairSlot& ps, const ShapeInfo& s1, const ShapeInfo& s2, const Kin& A, const Kin& B, Vec3& F,
                   Vec3& taB, Vec3& tbB);
  void fd_pair_jacobian(PairSlot& ps, const ShapeInfo& s1, const ShapeInfo& s2, const Kin& A, const Kin& B,
                        Eigen::Matrix<double, 3, 24>& JF, Eigen::Matrix<double, 3, 24>& JtaB,
                        Eigen::Matrix<double, 3, 24>& JtbB);
};

}  // namespace diffcol::sim
