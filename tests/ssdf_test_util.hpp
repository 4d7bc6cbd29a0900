#pragma once
// Helpers shared by the SSDF GoogleTest files.
#include <cstdint>

#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/ssdf/aopc.hpp"

namespace diffcol::test {

/// The AOPC of `m` with `n` points (default options otherwise; `seed` picks the samples).
inline ssdf::OrientedPointCloud aopc_of(const mesh::TriangleMesh& m, int n, std::uint64_t seed = 1) {
  ssdf::AopcOptions o;
  o.num_points = n;
  o.seed = seed;
  return ssdf::make_aopc(m, o);
}

}  // namespace diffcol::test
