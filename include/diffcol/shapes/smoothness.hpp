#pragma once
/// @file smoothness.hpp
/// The smoothness parameter that keeps a smooth shape within a distance tolerance of the exact
/// shape it approximates:
///   - smooth polytope (β at a given L) ↔ the polytope {A y ≤ b}, a box, a convex hull;
///   - superellipsoid (integer n) ↔ the box [−a, a] × [−b, b] × [−c, c];
///   - superelliptic cylinder (integer n) ↔ the cylinder of radius R and half-height h (axis x).
///
/// Every one of these smooth shapes lies inside its exact shape: smax_β(c) ≥ max c (seed eq. (13)),
/// and Σ (ȳ_i² + ε)^n = 1 implies |ȳ_i| < 1. For convex bodies K ⊂ P the Hausdorff distance of the
/// two surfaces equals that of the bodies, max over P of dist(·, K) = max_u h_P(u) − h_K(u) (h: the
/// support function); dist(·, K) is convex, so its maximum over P is attained at a vertex of the
/// polytope or box, or on a rim circle of the cylinder. The distances below are these maxima,
/// each dist(v, K) by an exact Euclidean projection onto the smooth surface (its own implicit
/// function, including the regularization ε), not a bound.

#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"
#include "diffcol/shapes/smooth_polytope.hpp"
#include "diffcol/shapes/superellipsoid.hpp"
#include "diffcol/shapes/superelliptic_cylinder.hpp"

namespace diffcol {

/// A smooth polytope fitted to an exact one.
struct SmoothPolytopeFit {
  double beta;                ///< the smallest sharpness β (to a relative 1e-6) that meets the tolerance
  double length;              ///< the characteristic length L that β goes with (the shape depends on β/L only)
  double hausdorff_distance;  ///< between the smooth surface at β and the exact polytope's surface
  SmoothPolytope shape;       ///< the smooth polytope at β and L
};

/// A superellipsoid fitted to a box.
struct SuperellipsoidFit {
  int exponent;               ///< the smallest n (1 ≤ n ≤ 64) that meets the tolerance
  double hausdorff_distance;  ///< between the superellipsoid's surface and the box's
  Superellipsoid shape;       ///< Superellipsoid(hx, hy, hz, n, ε)
};

/// A superelliptic cylinder fitted to a circular cylinder.
struct SuperellipticCylinderFit {
  int exponent;               ///< the smallest n (1 ≤ n ≤ 64) that meets the tolerance
  double hausdorff_distance;  ///< between the superelliptic cylinder's surface and the cylinder's
  SuperellipticCylinder shape;
};

/// The smallest tolerance the smooth polytope fits accept, relative to the polytope's outer
/// radius: below it double rounding in φ is comparable to the distance measured.
constexpr double kMinFitRelativeTolerance = 1e-8;

/// Hausdorff distance between a smooth polytope's surface (at its own β) and that of its exact
/// polytope {A y ≤ b}: the largest distance from a vertex to the smooth shape. Each vertex sums
/// only the faces that weigh near it (e⁻⁴⁰ cut, checked against the full sum at the result).
double smooth_polytope_hausdorff_distance(const SmoothPolytope& shape);
/// Hausdorff distance between a superellipsoid's surface and that of the box
/// [−a, a] × [−b, b] × [−c, c] of its semi-axes: the distance from the corner (a, b, c).
double superellipsoid_box_hausdorff_distance(const Superellipsoid& shape);
/// Hausdorff distance between a superelliptic cylinder's surface and that of the circular
/// cylinder of its radius R and half-height h: the distance from a rim point (h, R, 0).
double superelliptic_cylinder_hausdorff_distance(const SuperellipticCylinder& shape);

/// The smooth polytope of {A y ≤ b} (as SmoothPolytope's constructor takes it) whose surface lies
/// within `tolerance` (a length, in the units of b) of the exact polytope's surface, at the
/// smallest such β for the characteristic length L = `length`. The Hausdorff distance at the
/// returned β equals the tolerance to about 1e-6 relative (less when β hits the smallest value
/// that keeps the origin safely inside, L·log(m)/min b_i). Measured: microseconds for a box, 50 ms
/// for an 800-face hull, 2 s for a 4000-face hull of points on a sphere.
/// @throws std::invalid_argument for invalid A, b or L (as SmoothPolytope's constructor), or a
///         tolerance that is not finite, not > 0, not below the polytope's inradius about the
///         origin (min_i b_i/‖a_i‖), or below kMinFitRelativeTolerance × the outer radius;
///         std::runtime_error if the search for β does not converge (not seen in the tests).
SmoothPolytopeFit fit_smooth_polytope(const Eigen::MatrixX3d& A, const Eigen::VectorXd& b, double tolerance,
                                      double length = 1.0);
/// fit_smooth_polytope for the box with half-extents hx, hy, hz (SmoothPolytope::box).
SmoothPolytopeFit fit_smooth_box(double hx, double hy, double hz, double tolerance, double length = 1.0);
/// fit_smooth_polytope for the convex hull of points (SmoothPolytope::convex_hull).
SmoothPolytopeFit fit_smooth_convex_hull(const std::vector<Vec3>& points, double tolerance, double length = 1.0);

/// The superellipsoid with semi-axes hx, hy, hz and the smallest exponent n whose surface lies
/// within `tolerance` of the box with half-extents hx, hy, hz. For a cube of half-extent a the
/// distance is a√3(1 − 3^(−1/(2n))) (ε = 0), about a·0.95/n.
/// @throws std::invalid_argument for invalid half-extents or ε (as Superellipsoid's constructor),
///         a tolerance that is not finite, not > 0 or not below min(hx, hy, hz), or one below the
///         distance at n = 64, the largest exponent (the message gives it; use fit_smooth_box).
SuperellipsoidFit fit_superellipsoid_to_box(double hx, double hy, double hz, double tolerance,
                                            double epsilon = Superellipsoid::kDefaultEpsilon);
/// The superelliptic cylinder with radius R, half-height h and the smallest exponent n whose
/// surface lies within `tolerance` of the circular cylinder of radius R and half-height h.
/// @throws std::invalid_argument as fit_superellipsoid_to_box (the tolerance below min(R, h)).
SuperellipticCylinderFit fit_superelliptic_cylinder(double radius, double half_height, double tolerance,
                                                    double epsilon = SuperellipticCylinder::kDefaultEpsilon);

}  // namespace diffcol
