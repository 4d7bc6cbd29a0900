// dα*/dξ for the body twist ξ = [ω; v] of X_12 by the envelope theorem (no linear solve):
// at the optimum dα*/dξ = ∂L/∂ξ = λ2·∂φ2(y2)/∂ξ = λ2·∇φ2(y2)ᵀ[ỹ2, −I/α] (9), (25a). Shared by
// idcol::alpha_gradient_envelope (derivatives.cpp) and the CUDA batch solver (cuda/). Internal.
#pragma once

#include "diffcol/math/hd.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol::idcol::detail {

/// g2 = ∇φ2 at y2 = Rᵀ(x − r)/α (body 2's frame); writes the six entries [ω; v] to out.
DIFFCOL_HD inline void alpha_gradient_envelope(double alpha, double lambda2, const Vec3& g2, const Vec3& y2,
                                               double* out) {
  const Vec3 w = lambda2 * g2.cross(y2);
  const Vec3 v = (-lambda2 / alpha) * g2;
  for (int i = 0; i < 3; ++i) {
    out[i] = w[i];
    out[3 + i] = v[i];
  }
}

}  // namespace diffcol::idcol::detail
