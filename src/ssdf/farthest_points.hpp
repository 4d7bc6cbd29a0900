#pragma once
// Farthest-point thinning and nearest-neighbour spacing for AOPC construction (aopc.cpp), with
// the results of the plain quadratic loops, exactly, in about O(m log m). Internal to src/ssdf
// (the tests include it).
#include <cstddef>
#include <vector>

#include "diffcol/math/se3.hpp"

namespace diffcol::ssdf::detail {

/// Farthest-point order: n picks among the candidates. dist holds each candidate's initial
/// squared distance (+inf for none); pick k is the first candidate (lowest index) of largest
/// dist, after which dist = min(dist, ‖c − pick‖²) for every candidate. `cell` is the grid
/// spacing (about twice the final sample spacing; any positive value gives the same picks).
/// `first` (optional) are the first picks, in order, whatever their dist.
std::vector<size_t> farthest_points(const std::vector<Vec3>& candidates, std::vector<double> dist, size_t n,
                                    double cell, const std::vector<size_t>& first = {});

/// For each point, the distance to its nearest other point (+inf for a single point).
std::vector<double> nearest_neighbour_distances(const std::vector<Vec3>& points);

}  // namespace diffcol::ssdf::detail
