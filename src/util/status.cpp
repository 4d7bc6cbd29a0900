#include "diffcol/status.hpp"

namespace diffcol {

const char* status_name(SolveStatus s) {
  switch (s) {
    case SolveStatus::ok: return "ok";
    case SolveStatus::coincident_origins: return "coincident_origins";
    case SolveStatus::not_converged: return "not_converged";
    case SolveStatus::invalid_input: return "invalid_input";
    case SolveStatus::numerical_error: return "numerical_error";
    case SolveStatus::not_certified: return "not_certified";
  }
  return "unknown";
}

const char* status_name(DerivativeStatus s) {
  switch (s) {
    case DerivativeStatus::ok: return "ok";
    case DerivativeStatus::coincident_origins: return "coincident_origins";
    case DerivativeStatus::solve_failed: return "solve_failed";
    case DerivativeStatus::invalid_input: return "invalid_input";
    case DerivativeStatus::singular: return "singular";
    case DerivativeStatus::ill_conditioned: return "ill_conditioned";
    case DerivativeStatus::non_unique_minimizer: return "non_unique_minimizer";
    case DerivativeStatus::cores_touch: return "cores_touch";
  }
  return "unknown";
}

const char* status_name(DistanceStatus s) {
  switch (s) {
    case DistanceStatus::separated: return "separated";
    case DistanceStatus::touching_or_overlapping: return "touching_or_overlapping";
    case DistanceStatus::not_converged: return "not_converged";
    case DistanceStatus::invalid_input: return "invalid_input";
    case DistanceStatus::not_certified: return "not_certified";
  }
  return "unknown";
}

const char* status_name(DistanceDerivativeStatus s) {
  switch (s) {
    case DistanceDerivativeStatus::ok: return "ok";
    case DistanceDerivativeStatus::distance_only: return "distance_only";
    case DistanceDerivativeStatus::not_separated: return "not_separated";
  }
  return "unknown";
}

}  // namespace diffcol
