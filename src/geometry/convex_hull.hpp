#pragma once
// Convex hulls of 3-D point sets by Qhull (Debian libqhull-dev, the reentrant C library
// libqhull_r), with coplanar facets merged: one facet per face of the hull (a cube's eight corners
// give six facets). Internal to the library.
#include <string>
#include <vector>

#include "diffcol/math/se3.hpp"

namespace diffcol::detail {

/// The facets of a convex hull: facet f is {p : normals[f]ᵀp = offsets[f]} with a unit outward
/// normal (every input point has normals[f]ᵀp ≤ offsets[f] up to Qhull's roundoff), and the input
/// points that are its vertices (indices into the input, no order).
struct HullFacets {
  std::vector<Vec3> normals;
  std::vector<double> offsets;
  std::vector<std::vector<int>> vertices;
};

/// Runs Qhull (default options: coplanar and concave facets merged, option C-0) on n points.
/// Returns false with `why` set when the points span less than three dimensions (fewer than four
/// points, all collinear or coplanar to Qhull's roundoff); throws std::runtime_error naming `what`
/// on any other Qhull failure. The points must be finite (the callers check).
bool qhull_facets(const std::vector<Vec3>& points, HullFacets& out, std::string& why, const char* what);

}  // namespace diffcol::detail
