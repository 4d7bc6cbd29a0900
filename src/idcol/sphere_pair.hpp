#pragma once
// Two spheres in closed form (solve_contact.cpp, solve_sphere_pair): the condition number of the
// equilibrated KKT matrix that the general derivatives compute (derivatives.cpp), and a way to
// reach the general Newton solve for two spheres (the tests compare the two).
#include <algorithm>
#include <cmath>

#include "diffcol/idcol/contact.hpp"

namespace diffcol::idcol::detail {

// ‖Ĵ‖₁‖Ĵ⁻¹‖₁ for two spheres, a = (R1 + R2)/R1, b = (R1 + R2)/R2 (ab = a + b), r̂ in body 1:
//   Ĵ = [a r̂ᵀ, −1, 0, 0; −b r̂ᵀ, −1, 0, 0; ab P, 0, a r̂, −b r̂; 0, 2, −1, −1],  P = I − r̂r̂ᵀ,
// and Ĵ⁻¹ column by column (e0: r̂/(a+b), −b/(a+b), −2b²/(a+b)², −2ab/(a+b)²; e1 likewise;
// e_{2+k}: P e_k/(ab), 0, r̂_k/(a+b), −r̂_k/(a+b); e5: 0, 0, −b/(a+b), −a/(a+b)).
inline double sphere_pair_condition(const Vec3& rhat, double a, double b) {
  const double s1 = std::abs(rhat.x()) + std::abs(rhat.y()) + std::abs(rhat.z());
  const double ab = a * b, iab = 1.0 / (a + b);
  double colP[3];
  for (int k = 0; k < 3; ++k) {
    double c = 0.0;
    for (int i = 0; i < 3; ++i) c += std::abs((i == k ? 1.0 : 0.0) - rhat[i] * rhat[k]);
    colP[k] = c;
  }
  double norm_J = std::max({4.0, a * s1 + 1.0, b * s1 + 1.0});
  double norm_inv = std::max({(s1 + 3.0 * b) * iab, (s1 + 3.0 * a) * iab, 1.0});
  for (int k = 0; k < 3; ++k) {
    norm_J = std::max(norm_J, (a + b) * std::abs(rhat[k]) + ab * colP[k]);
    norm_inv = std::max(norm_inv, colP[k] / ab + 2.0 * std::abs(rhat[k]) * iab);
  }
  return norm_J * norm_inv;
}

// solve_contact without the closed form of two spheres (the general Newton solve for every pair).
ContactSolution solve_contact_general(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                                      const SolveOptions& options = {});

}  // namespace diffcol::idcol::detail
