#pragma once
/// @file fcl_baseline.hpp
/// FCL baseline of `diffcol bench --baseline fcl`: FCL's GJK distance query on the exact shapes
/// nearest to the diffcol shapes. Compiled against FCL only when it was found (DIFFCOL_HAVE_FCL);
/// otherwise available() is false and run() throws.
///
/// Shape mapping (the exact geometry each smooth diffcol shape approximates):
///  - Sphere(R)                       -> fcl::Sphere(R)
///  - Superellipsoid n = 1 (ellipsoid) -> fcl::Ellipsoid(a, b, c)
///  - Superellipsoid n > 1            -> fcl::Box(2a, 2b, 2c) (the n -> inf limit)
///  - SuperellipticCylinder(R, h, n)  -> fcl::Cylinder(R, 2h), FCL's z axis turned onto body x
///                                       (n = 1 is a spindle, not a cylinder; still mapped to the cylinder)
///  - SmoothPolytope                  -> fcl::Convex of the exact polytope {A y <= b}: vertices()
///                                       and one polygon face per non-redundant half-space
///  - SmoothTruncatedCone             -> fcl::Convex frustum: two 32-gons inscribed in the cap
///                                       circles (fcl::Cone is an untruncated cone, so it does not fit)
///
/// Robustness: FCL 0.7's signed-distance EPA (libccd) can fail an assert() (abort), throw
/// std::logic_error or loop forever on some configurations (FCL issues #322, #390, #578). So run()
/// times each pair in a forked child process: inside it an abort or exception of one query is caught
/// (SIGABRT handler + siglongjmp, try/catch) and counted, a query stuck for more than 2 s is
/// interrupted by a watchdog thread, and if the child dies anyway the pair is reported as failed
/// instead of taking the benchmark down.

#include <cstddef>
#include <string>
#include <vector>

#include "diffcol/math/se3.hpp"
#include "diffcol/shapes/shape.hpp"
#include "timing.hpp"

namespace diffcol::cli::fcl_baseline {

struct Options {
  std::string solver = "libccd";  ///< "libccd" (fcl::GST_LIBCCD, FCL's default) or "indep" (GST_INDEP)
  double tolerance = 1e-6;        ///< DistanceRequest::distance_tolerance (FCL's default)
  bool signed_distance = true;    ///< DistanceRequest::enable_signed_distance
  bool nearest_points = true;     ///< DistanceRequest::enable_nearest_points (diffcol returns witnesses)
};

struct Result {
  Timing timing;
  double penetrating_pct = 0;  ///< queries with a negative distance
  double failed_pct = 0;       ///< queries that failed (non-finite distance, abort, exception or hang)
  long aborts = 0, exceptions = 0, hangs = 0;  ///< failures by kind (batch pass)
  std::string error;           ///< non-empty when the whole pair failed (child crashed or timed out)
  /// Queries where FCL's and diffcol's verdicts (penetrating or not) agree, when the diffcol verdicts
  /// were passed to run() (else -1). A check of the shape mapping and the frames; ~100% for pairs of
  /// spheres and ellipsoids (same geometry), lower where the exact shape differs (se -> box, ...).
  double agreement_pct = -1;
  std::string shape1, shape2;  ///< descriptions of the FCL geometries used
};

/// True when the program was built with FCL.
bool available();
/// The FCL version the program was built with ("" if none).
std::string version();
/// Description of the FCL geometry used for a diffcol shape.
std::string describe(const Shape& s);
/// Times fcl::distance for body 1 at the identity and body 2 at poses[i] (both the batch and the
/// per-call pass of time_loop). `ns` is reused storage of size poses.size(). `diffcol_penetrating`
/// (empty or of size poses.size()): diffcol's gap < 0 at each pose, for agreement_pct.
Result run(const Shape& s1, const Shape& s2, const std::vector<Pose>& poses, const Options& opt, size_t warmup,
           std::vector<double>& ns, const std::vector<char>& diffcol_penetrating);

}  // namespace diffcol::cli::fcl_baseline
