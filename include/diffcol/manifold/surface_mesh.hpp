#pragma once
/// @file surface_mesh.hpp
/// Meshes for Contax objects (seed supplementary II-C): iso-surface extraction of an
/// SdfObject's zero level set by marching tetrahedra with the vertices projected onto the level
/// set by Newton steps, and the cube meshes of the seed's Fig. 5 (8 and 98 vertices).
///
/// Frames: every mesh is in the object (body) frame of its SdfObject, in the SDF's length unit.
/// Orientation: faces are counter-clockwise seen from outside (diffcol::mesh::TriangleMesh).

#include <Eigen/Core>

#include "diffcol/manifold/sdf.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"

namespace diffcol::manifold {

/// Settings of mesh_from_sdf().
struct IsoSurfaceOptions {
  Eigen::Vector3d lower{-1.0, -1.0, -1.0};  ///< grid box corner (object frame); must enclose the solid
  Eigen::Vector3d upper{1.0, 1.0, 1.0};     ///< opposite corner
  double cell_size = 0.1;                   ///< grid spacing h (a length), cells are cubes
  int projection_steps = 5;  ///< Newton steps x ← x − φ∇φ/‖∇φ‖² per vertex (supplementary II-C), ≥ 0
  /// Grid values with |φ| < snap·h are moved to +snap·h, so no vertex of the grid lies on the
  /// surface (keeps the triangulation manifold and its triangles non-degenerate). In (0, 0.1].
  double snap = 1e-3;
  int max_cells = 8'000'000;  ///< guard against accidental huge grids
};

/// The zero level set of `sdf` as a closed, consistently outward-oriented triangle mesh.
///
/// Marching tetrahedra on a regular grid, each cube split into the 6 tetrahedra of the
/// Freudenthal (Kuhn) triangulation (consistent across neighbouring cubes, so the result is a
/// closed 2-manifold); each surface vertex lies on a grid edge, shared by all tetrahedra of that
/// edge; each triangle is oriented so its normal points from the tetrahedron's inside corners to
/// its outside ones. Then every vertex takes `projection_steps` Newton steps onto φ = 0.
/// Cost: one SDF evaluation per grid node plus (steps) per vertex. Allocates (not a hot path).
/// @throws std::invalid_argument on invalid options, a grid whose boundary nodes are not all
/// outside the solid (φ > 0), a solid that the grid misses, or a result that fails
/// TriangleMesh validation.
mesh::TriangleMesh mesh_from_sdf(const SdfObject& sdf, const IsoSurfaceOptions& options);

/// Largest |φ(v)| over the mesh vertices (object frame): how far the mesh is from the SDF's zero
/// level set (supplementary II-C asks for ≈ 0).
double max_vertex_sdf(const SdfObject& sdf, const mesh::TriangleMesh& mesh);

/// A box centred at the origin with edge lengths `size`, each face split into n × n squares
/// (two triangles each): 6n² + 2 vertices, 12n² faces. n = 1 is the 8-vertex cube, n = 4 the
/// 98-vertex cube of the seed's Fig. 5.
/// @throws std::invalid_argument on a non-positive / non-finite size or n ∉ [1, 64].
mesh::TriangleMesh make_refined_box(const Eigen::Vector3d& size, int n);

/// The superquadric SDF object of a box with edge lengths `size` (semi-axes size/2) and shape
/// exponents ε1 = ε2 = eps (the seed's box experiments use 0.1).
/// @throws std::invalid_argument as Superquadric.
SdfObject make_box_sdf(const Eigen::Vector3d& size, double eps = 0.1);

}  // namespace diffcol::manifold
