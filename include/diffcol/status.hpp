#pragma once
/// @file status.hpp
/// The statuses of every contact layer (iDCOL, DCOL, QP, the scene): one enum per kind of
/// query, the same name for the same meaning everywhere (docs/conventions.md, "Statuses").
/// Each layer documents the subset it returns.

#include <cstdint>

namespace diffcol {

/// How a solve ended: idcol::solve_contact, dcol::solve_contact, qp::proximity, qp::solve_qp
/// and scene pairs (PairResult::status).
enum class SolveStatus : std::uint8_t {
  ok = 0,                  ///< converged (within the layer's tolerance, certified where the layer certifies)
  coincident_origins = 1,  ///< the shapes' origins coincide: α = 0, the witness points are the finite limits
  not_converged = 2,       ///< iteration limit reached: the fields hold the last (best) finite iterate
  invalid_input = 3,       ///< a pose or an option is not valid: numeric fields are zero
  numerical_error = 4,     ///< a factorization failed or an iterate was not finite: the last finite iterate
  not_certified = 5,       ///< the solver's own tests passed, its independent certificate did not
};

/// Why (some) derivatives of a solve are not available (idcol, dcol and qp derivatives).
enum class DerivativeStatus : std::uint8_t {
  ok = 0,
  coincident_origins = 1,    ///< α* = 0: not differentiable there (α* ∝ ‖r‖ along rays)
  solve_failed = 2,          ///< the solve's status is not ok: every block zero
  invalid_input = 3,         ///< a pose is not valid (Pose::invalid_reason): every block zero
  singular = 4,              ///< the KKT system is singular (or a derivative came out non-finite)
  ill_conditioned = 5,       ///< the KKT system's condition number exceeds the layer's limit
  non_unique_minimizer = 6,  ///< the minimizer is not unique: the non-unique directions are held fixed
  cores_touch = 7,           ///< the QP cores touch: one-sided derivatives (qp)
};

/// How a Euclidean distance query ended (idcol::euclidean_distance, dcol::euclidean_distance).
enum class DistanceStatus : std::uint8_t {
  separated = 0,
  touching_or_overlapping = 1,  ///< the shapes meet: distance = 0 (not a penetration depth)
  not_converged = 2,            ///< the contact solve or the distance iterations did not converge
  invalid_input = 3,            ///< options out of range
  not_certified = 4,            ///< the distance is not certified within the tolerance
};

/// Why (some) Euclidean distance derivatives are not available.
enum class DistanceDerivativeStatus : std::uint8_t {
  ok = 0,
  /// Only the distance Jacobians are set: the closest points are not unique or ill-determined.
  distance_only = 1,
  not_separated = 2,  ///< the result is not `separated`: every block zero
};

/// The enumerator's name ("ok", "not_converged", ...); "unknown" for a value out of range.
const char* status_name(SolveStatus s);
const char* status_name(DerivativeStatus s);
const char* status_name(DistanceStatus s);
const char* status_name(DistanceDerivativeStatus s);

}  // namespace diffcol
