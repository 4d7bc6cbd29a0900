// Two spheres in closed form with their derivatives (include/diffcol/idcol/sphere_pair.hpp).
#include <cmath>

#include "diffcol/idcol/sphere_pair.hpp"

namespace diffcol::idcol {

void sphere_pair_contact(double radius1, const Vec3& centre1_W, double radius2, const Vec3& centre2_W,
                         SpherePairContact& out) {
  // every comparison is false for NaN: the negated forms reject it
  const bool radii_ok = radius1 >= kMinLength && radius1 <= kMaxLength && radius2 >= kMinLength &&
                        radius2 <= kMaxLength;
  const bool centres_ok = centre1_W.cwiseAbs().maxCoeff() <= kMaxLength && centre2_W.cwiseAbs().maxCoeff() <= kMaxLength;
  if (!(radii_ok && centres_ok)) {
    out = SpherePairContact{};
    return;
  }
  const double S = radius1 + radius2;
  const Vec3 r = centre2_W - centre1_W;
  // ‖r‖ without overflow or underflow of the squares: |r_i| ≤ 2e100, so scale by the largest entry
  const double m = r.cwiseAbs().maxCoeff();
  const double rho = m > 0.0 ? m * (r / m).norm() : 0.0;
  out.radius1 = radius1;
  out.radius2 = radius2;
  out.distance = rho;
  out.alpha = rho / S;  // (8) for two spheres
  out.gap = rho - S;    // (30)
  out.x_W = centre1_W + (radius1 / S) * r;
  const double irho = 1.0 / rho;
  if (std::isfinite(irho)) {
    const Vec3 n = (r / m) / (rho / m);
    out.status = SolveStatus::ok;
    out.normal_W = n;
    out.J_alpha_c2 = n.transpose() / S;
    out.J_gap_c2 = n.transpose();
    out.J_normal_c2 = irho * (Mat3::Identity() - n * n.transpose());
  } else {
    // ρ = 0 (or 1/ρ overflows): n is the limit along r, the x axis at r = 0; not differentiable
    out.status = SolveStatus::coincident_origins;
    out.normal_W = m > 0.0 ? Vec3((r / m).normalized()) : Vec3::UnitX();
    out.J_alpha_c2.setZero();
    out.J_gap_c2.setZero();
    out.J_normal_c2.setZero();
  }
  out.p1_W = centre1_W + radius1 * out.normal_W;  // (29)
  out.p2_W = centre2_W - radius2 * out.normal_W;
}

SpherePairContact sphere_pair_contact(double radius1, const Vec3& centre1_W, double radius2, const Vec3& centre2_W) {
  SpherePairContact out;
  sphere_pair_contact(radius1, centre1_W, radius2, centre2_W, out);
  return out;
}

}  // namespace diffcol::idcol
