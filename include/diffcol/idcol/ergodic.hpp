#pragma once
/// @file ergodic.hpp
/// The seed's ergodic pose sweep (Sec. V, Table I) and its benchmark shapes.
///
/// For t = i·dt: u = ½(1 + sin 2πf1t); r = cbrt(rmin³ + (rmax³ − rmin³)u); θ = (π/2) sin 2πf2t;
/// ϕ = 2πf3t; position = r (cos θ cos ϕ, cos θ sin ϕ, sin θ); quaternion (w, x, y, z) =
/// (sin 2πf4t, cos 2πf5t, sin 2πf6t, cos 2πf7t) normalized; f1..f7 = √2, √3, √5, √7, √11, √13, √17.

#include <string>
#include <vector>

#include "diffcol/math/se3.hpp"
#include "diffcol/shapes/shape.hpp"

namespace diffcol::idcol {

struct ErgodicSweep {
  double rmin = 0.1;
  double rmax = 4.0;
  double dt = 1e-4;

  /// The sweep for a pair: rmin = 0.1·min(inner radii), rmax = 2·max(outer radii).
  static ErgodicSweep for_pair(const Shape& s1, const Shape& s2);
  /// Pose of body 2 (body 1 at the identity) at sample i.
  Pose pose(long i) const;
};

/// The benchmark shapes of the seed, by name: "sphere" (R = 1), "ellipsoid" (se n = 1, axes
/// 0.5, 1, 1.5), "poly" (β = 20, A = the rows (±1, ±1, ±1), b = (1,1,1,1,5/3,5/3,5/3,5/3)),
/// "tc" (β = 20, R_b = 1, R_t = 1.5, a = b = 1.5), "se" (n = 8, axes 0.5, 1, 1.5),
/// "sec" (n = 8, R = 1, h = 2). @throws std::invalid_argument for another name.
Shape benchmark_shape(const std::string& name);
/// {"sphere", "ellipsoid", "poly", "tc", "se", "sec"}.
const std::vector<std::string>& benchmark_shape_names();

}  // namespace diffcol::idcol
