#pragma once
/// @file rigid_body.hpp
/// Rigid bodies of the simulation layer: mass properties of shapes of uniform density and the
/// state of a free body on SE(3).
///
/// Conventions (docs/sim.md): a simulated body's frame B has its origin at the centre of mass;
/// `inertia_B` is the rotational inertia about the centre of mass in B's axes. The state is the
/// pose X_WB, the linear velocity of the centre of mass in world axes v_W, and the angular
/// velocity in body axes omega_B. Newton–Euler: m·v̇_W = f_W, I_B·ω̇_B + ω_B × I_B·ω_B = τ_B,
/// Ṙ = R·[ω_B]×, ṗ = v_W.
#include <vector>

#include "diffcol/math/se3.hpp"
#include "diffcol/scene/collision_shape.hpp"

namespace diffcol::sim {

/// Mass, centre of mass and rotational inertia of a solid of uniform density.
struct MassProperties {
  double mass = 0.0;               ///< > 0 for a solid; 0 for a shape without volume
  Vec3 com = Vec3::Zero();         ///< centre of mass in the frame the properties are given in
  Mat3 inertia = Mat3::Zero();     ///< about the centre of mass, in that frame's axes (symmetric PSD)
};

/// How the smooth iDCOL shapes (no closed form) are integrated: radial quadrature in spherical
/// coordinates about the shape origin (inside every iDCOL shape): Gauss–Legendre in cos θ and the
/// trapezoidal rule in φ; along each ray the boundary is found to rounding by bisection on the
/// shape's implicit function (safeguarded Newton). The error falls exponentially with the orders
/// where the boundary is analytic (an ellipsoid: 1e-15 at the defaults; a superellipsoid with
/// n = 4: 1e-9) and algebraically where it has kinks or sharp rounding (padded polygons, smooth
/// polytopes with a large β: about 1e-5).
struct MassIntegrationOptions {
  int polar_points = 64;       ///< Gauss–Legendre nodes in cos θ, in [8, 1024]
  int azimuth_points = 128;    ///< trapezoidal nodes in φ, in [8, 4096]
};

/// Mass properties of a shape of uniform `density` (> 0, finite) in the frame the shape was
/// given in (a DCOL primitive's offset applied).
/// Closed forms: sphere, ellipsoid, box and general polytope (tetrahedra from the origin over
/// its faces), cylinder, capsule, cone (DCOL primitives) and the QP capsule. Padded polygons (a
/// convex polygon swept by a ball, DCOL and QP) use the radial quadrature below (their mass
/// agrees with Steiner's 2RA + πR²P/2 + 4πR³/3 to about 1e-5). The iDCOL shapes (superellipsoids, smooth polytopes, truncated cones, …): the
/// radial quadrature of MassIntegrationOptions; an iDCOL sphere uses its closed form.
/// @throws std::invalid_argument on a non-positive or non-finite density, or invalid options.
MassProperties mass_properties(const scene::CollisionShape& shape, double density,
                               const MassIntegrationOptions& options = {});

/// The radial quadrature itself, for any iDCOL shape (mass_properties uses the closed forms of
/// the sphere and the ellipsoid instead). @throws as mass_properties.
MassProperties radial_mass_properties(const Shape& shape, double density, const MassIntegrationOptions& options = {});

/// `props` (given in frame S) expressed in frame B, where X_BS places S in B.
MassProperties transform(const MassProperties& props, const Pose& X_BS);

/// The mass properties of several parts given in one frame (their sum, with the parallel-axis
/// theorem). @throws std::invalid_argument if the total mass is not positive.
MassProperties combine(const std::vector<MassProperties>& parts);

/// State of one free rigid body (frame B at the centre of mass).
struct BodyState {
  Pose X_WB;                       ///< pose of the body in the world
  Vec3 v_W = Vec3::Zero();         ///< velocity of the centre of mass, world axes
  Vec3 omega_B = Vec3::Zero();     ///< angular velocity, body axes
};

/// Kinetic energy ½ m vᵀv + ½ ωᵀ I ω of a body of mass `mass` and inertia `inertia_B` (about the
/// centre of mass, body axes).
double kinetic_energy(double mass, const Mat3& inertia_B, const BodyState& state);

}  // namespace diffcol::sim
