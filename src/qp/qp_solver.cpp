#include "diffcol/qp/qp_solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "diffcol/qp/shapes.hpp"

namespace diffcol::qp {

const char* QpOptions::invalid_field() const noexcept {
  // below 1e-14 the test sits under the rounding floor, above 1e-3 "solved" is not
  if (!(tolerance >= 1e-14 && tolerance <= 1e-3)) return "tolerance must be in [1e-14, 1e-3]";
  if (max_iterations < 1 || max_iterations > 100000) return "max_iterations must be in [1, 100000]";
  if (!(step_fraction > 0.0 && step_fraction <= 1.0)) return "step_fraction must be in (0, 1]";
  if (!(centrality >= 0.0 && centrality < 1.0)) return "centrality must be in [0, 1)";
  if (!(singular_tolerance >= 0.0 && singular_tolerance <= 1e-3))
    return "singular_tolerance must be in [0, 1e-3]";
  return nullptr;
}

bool QpOptions::is_valid() const noexcept { return invalid_field() == nullptr; }

void QpOptions::validate() const {
  if (const char* why = invalid_field()) throw std::invalid_argument(std::string("qp::QpOptions: ") + why);
}

static_assert(2 + kMaxPolygonEdges == 18 && 2 * kMaxPolygonEdges == 32,
              "update the solve_qp instantiations when kMaxPolygonEdges changes");

// ============================================================== Algorithms 4–5: 2-D box QP

BoxQp2Solution solve_box_qp_2d(const Eigen::Matrix2d& P, const Eigen::Vector2d& c, double det,
                               double singular_tolerance) {
  if (det < 0.0) det = P(0, 0) * P(1, 1) - P(0, 1) * P(0, 1);
  return box_qp_2d_solution_at(P, c, solve_box_qp_2d_primal(P, c, det, singular_tolerance), det,
                               singular_tolerance);
}

BoxQp2Solution box_qp_2d_solution_at(const Eigen::Matrix2d& P, const Eigen::Vector2d& c, const Eigen::Vector2d& x,
                                     double det, double singular_tolerance) {
  BoxQp2Solution out;
  const double P11 = P(0, 0), P12 = P(0, 1), P22 = P(1, 1);
  if (det < 0.0) det = P11 * P22 - P12 * P12;
  out.x = x;
  out.interior = det > singular_tolerance * P11 * P22 && det > 0.0 && out.x(0) > 0.0 && out.x(0) < 1.0 &&
                 out.x(1) > 0.0 && out.x(1) < 1.0;
  // Algorithm 5: multipliers from the negative gradient y = −(Px + c).
  const Eigen::Vector2d y = -(P * out.x + c);
  const double eps = 1e-12 * (1.0 + c.cwiseAbs().maxCoeff() + P.cwiseAbs().maxCoeff());
  for (int i = 0; i < 2; ++i) {
    if (y(i) >= eps) out.lambda(i) = y(i);
    if (y(i) <= -eps) out.lambda(i + 2) = -y(i);
  }
  // Sensitivity on the free variables (strictly inside (0, 1) with positive curvature).
  const bool free0 = out.x(0) > 0.0 && out.x(0) < 1.0 && P11 > 0.0;
  const bool free1 = out.x(1) > 0.0 && out.x(1) < 1.0 && P22 > 0.0;
  out.free_count = int(free0) + int(free1);
  out.S.setZero();
  out.unique = true;
  if (free0 && free1) {
    if (det > singular_tolerance * P11 * P22 && det > 0.0) {
      out.S << P22 / det, -P12 / det, -P12 / det, P11 / det;
    } else {  // parallel: keep the edge's own 1-D sensitivity for the variable that moved last
      out.unique = false;
      out.S(1, 1) = 1.0 / P22;
    }
  } else if (free0) {
    out.S(0, 0) = 1.0 / P11;
  } else if (free1) {
    out.S(1, 1) = 1.0 / P22;
  }
  // Non-uniqueness: a null direction of P feasible from x in one sense or the other.
  if (!(det > singular_tolerance * P11 * P22 && det > 0.0)) {
    Eigen::Vector2d dir(P12, -P11);  // P·dir ≈ 0 when det ≈ 0
    if (P11 == 0.0) dir = Eigen::Vector2d(1.0, 0.0);
    auto feasible = [&](const Eigen::Vector2d& d) {
      for (int i = 0; i < 2; ++i) {
        if (d(i) > 0.0 && !(out.x(i) < 1.0)) return false;
        if (d(i) < 0.0 && !(out.x(i) > 0.0)) return false;
      }
      return d.squaredNorm() > 0.0;
    };
    if (feasible(dir) || feasible(-dir)) out.unique = false;
  }
  return out;
}

}  // namespace diffcol::qp
