#pragma once
/// @file contact_batch_cuda.hpp
/// Optional GPU batch solver for the iDCOL contact problem: library diffcol_cuda, built with the
/// CMake option DIFFCOL_CUDA=ON where a CUDA compiler is found; nothing else in diffcol depends on
/// it (docs/cuda.md).
///
/// One GPU thread solves one pose pair with the same code as the CPU solver: the KKT residual (10)
/// and Jacobian (11), the safeguarded Newton method, the polish step and the cold starts of
/// src/idcol/solver_core.hpp, compiled for both. The GPU runs the direct attempts only (no
/// continuation, no last-resort attempt); a pose it does not converge on is solved again on the
/// CPU (idcol::solve_contact), so every returned solution carries the CPU solver's guarantees.
/// Every shape type runs on the GPU (a smooth polytope from a device copy of its faces and vertices).
/// With CudaBatchOptions::gradients the solutions also carry the gradients of α and the gap with
/// respect to the poses, by the envelope theorem (idcol::alpha_gradient_envelope: no linear solve).

#include <memory>
#include <span>
#include <vector>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"

namespace diffcol::batch::cuda {

/// The solution for one pose pair, in body 1's frame (the fields of idcol::ContactSolution with
/// the same names; no Hessians or factorization).
struct CudaContactSolution {
  diffcol::SolveStatus status = diffcol::SolveStatus::invalid_input;
  double alpha = 0.0;              ///< minimum scaling α* (> 1: separated)
  double gap = 0.0;                ///< d_D = (1 − 1/α)‖r‖, eq. (30)
  Vec3 x_B1 = Vec3::Zero();        ///< intersection point x* of the scaled shapes
  Vec3 normal_B1 = Vec3::UnitX();  ///< unit normal at x*, out of body 1
  double lambda1 = 0.0, lambda2 = 0.0;
  double residual_norm = 0.0;      ///< ‖f_c‖ at the returned point
  int jacobian_evaluations = 0;
  bool solved_on_gpu = false;      ///< false: the GPU did not converge and the CPU solved this pair
  /// With CudaBatchOptions::gradients: the derivatives of α* and of the gap d_D with respect to the
  /// body twist of X_12 and to the world twists of body 1 and body 2 (the conventions and names of
  /// idcol::ContactDerivatives); zero without them, and where α* is not differentiable (status
  /// other than converged).
  idcol::RowVec6 J_alpha_X12 = idcol::RowVec6::Zero(), J_gap_X12 = idcol::RowVec6::Zero();
  idcol::RowVec6 J_alpha_X1 = idcol::RowVec6::Zero(), J_gap_X1 = idcol::RowVec6::Zero();
  idcol::RowVec6 J_alpha_X2 = idcol::RowVec6::Zero(), J_gap_X2 = idcol::RowVec6::Zero();
};

/// Settings of a CudaContactBatch.
struct CudaBatchOptions {
  idcol::SolveOptions solve;  ///< the solver's settings (GPU and CPU fallback)
  int num_threads = 0;        ///< host threads that pack, unpack and run fallbacks (0: every core)
  bool gradients = false;     ///< also return J_alpha_* and J_gap_* (48 more bytes per pose from the GPU)
};

/// Timings of one solve call.
struct CudaBatchStats {
  double kernel_ms = 0.0;  ///< the GPU kernel alone (CUDA events)
  double total_ms = 0.0;   ///< the whole call: packing, transfers, kernel, unpacking, CPU fallback
  long cpu_fallbacks = 0;  ///< pose pairs solved again on the CPU
};

/// True if a CUDA device can be used.
bool cuda_available();

/// One shape pair solved at many pose pairs per call, keeping its pinned host and device buffers
/// (grown as needed) and a thread pool for the host-side work between calls: what a loop that
/// calls again and again (sampling-based planning, learning) should hold.
class CudaContactBatch {
 public:
  /// @throws std::invalid_argument for invalid options.
  CudaContactBatch(Shape shape1, Shape shape2, CudaBatchOptions options = {});
  ~CudaContactBatch();
  CudaContactBatch(const CudaContactBatch&) = delete;
  CudaContactBatch& operator=(const CudaContactBatch&) = delete;

  /// Solves shape1 at X_W1[i] against shape2 at X_W2[i] for every i (X_W1 may also hold one pose,
  /// used for all i). Invalid poses get status invalid_input, as from idcol::solve_contact.
  /// @throws std::invalid_argument if the sizes do not match; std::runtime_error if CUDA fails.
  const CudaBatchStats& solve(std::span<const Pose> X_W1, std::span<const Pose> X_W2);
  /// The solutions of the last solve, one per pose pair (valid until the next solve).
  std::span<const CudaContactSolution> solutions() const;
  const CudaBatchStats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One call of a CudaContactBatch made for it (buffers and threads set up and released each
/// time); out is resized to X_W2.size().
/// @throws std::invalid_argument for sizes that do not match or invalid options; std::runtime_error if CUDA fails (no device, out of memory).
CudaBatchStats solve_contacts(const Shape& shape1, const Shape& shape2, std::span<const Pose> X_W1,
                              std::span<const Pose> X_W2, std::vector<CudaContactSolution>& out,
                              const CudaBatchOptions& options = {});

}  // namespace diffcol::batch::cuda
