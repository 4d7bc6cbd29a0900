#pragma once
/// @file figures.hpp
/// Procedural non-convex test objects for the Contax scale experiments (seed Sec. V-3, Fig. 7):
/// a limbed figure made of 18 superquadrics (pelvis, abdomen, chest, neck, head, tail, and two
/// arms and two legs of three segments each), smooth-unioned into one SdfObject, meshed by
/// iso-surface extraction (surface_mesh.hpp) and decimation to about 300 vertices, plus each superquadric as its
/// own coarse convex mesh (the collision geometry a convex-only engine such as MuJoCo needs).
///
/// Frames and units: everything is in the figure's body frame B: z up, the figure stands on
/// z ≈ 0 and faces +y, lengths in units of `FigureOptions::height` (the figure is about that
/// tall). Deterministic: the same options (seed included) give bit-identical figures.

#include <array>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/sdf.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"

namespace diffcol::manifold {

/// Number of superquadric pieces of a limbed figure.
inline constexpr int kFigurePieces = 18;

/// Settings of make_limbed_figure().
struct FigureOptions {
  std::uint64_t seed = 0;        ///< varies proportions, joint angles and shape exponents
  double height = 1.0;           ///< approximate overall height (a length, > 0)
  /// Temperature of the smooth union (a length, ≥ 0), as a fraction of `height`.
  double blend_fraction = 0.01;
  int target_vertices = 305;     ///< vertices of the decimated mesh (the seed's armadillo: 305; 2 × 305 = 610 V-S)
  int projection_steps = 5;      ///< Newton steps of the mesh vertices onto φ = 0 (IsoSurfaceOptions)
  /// Convex piece meshes: `piece_rings` latitude rings of `piece_segments` vertices plus the two
  /// poles, rings·segments + 2 vertices (≤ 31 by default, below MuJoCo/MJX's 32-vertex guidance).
  int piece_rings = 3;
  int piece_segments = 8;
  /// Build the figure from its first `num_pieces` pieces only (piece order of figure_piece_name();
  /// the seed's Fig. 7 complexity sweep, 1 … 18), in [1, 18].
  int num_pieces = kFigurePieces;

  /// @throws std::invalid_argument on a non-finite or non-positive height, a negative or
  /// non-finite blend_fraction (or one ≥ 0.1), target_vertices ∉ [100, 20000],
  /// projection_steps ∉ [0, 100], piece_rings ∉ [1, 16], piece_segments ∉ [3, 32] or
  /// num_pieces ∉ [1, 18].
  void validate() const;
};

/// A limbed figure (see the file comment). Piece order (index → part) is piece_name(); with
/// FigureOptions::num_pieces < 18 only the first pieces.
struct LimbedFigure {
  std::vector<Superquadric> pieces;          ///< the 18 primitives, poses in the body frame
  SdfObject sdf;                             ///< their smooth union
  mesh::TriangleMesh mesh;                   ///< iso-surface of `sdf`, vertices projected onto φ = 0
  std::vector<mesh::TriangleMesh> convex_pieces;  ///< one coarse convex mesh per piece (body frame)
  double cell_size = 0.0;                    ///< grid spacing of the fine iso-surface before decimation (a length)

  /// A ContactObject of the mesh and the SDF at pose X_WB.
  ContactObject contact_object(const Pose& X_WB = Pose::identity()) const { return ContactObject(mesh, sdf, X_WB); }
};

/// The name of piece i ("pelvis", "left_forearm", …). @throws std::invalid_argument unless 0 ≤ i < 18.
const char* figure_piece_name(int i);

/// Builds a limbed figure. Meshing: a fine iso-surface (mesh_from_sdf at the coarsest cell size,
/// from a prediction of ≈ 8·target_vertices vertices downwards, whose mesh contains the centre of
/// every piece), then shortest-edge-collapse decimation to target_vertices (our stand-in for the
/// seed's retopology step): every collapse puts the merged vertex at the edge midpoint projected
/// onto φ = 0 and is refused if it would break the closed 2-manifold or flip a triangle.
/// So all mesh vertices lie on the SDF's zero level set. Allocates (not a hot path; ~0.3 s).
/// @throws std::invalid_argument on invalid options, or if no valid mesh keeps every piece (this
/// happens for small targets: with the default options, 100–150 vertices lose a limb).
LimbedFigure make_limbed_figure(const FigureOptions& options = {});

/// A closed mesh of points on the surface of `sq` (its parametric form, body frame through
/// sq.pose()): `rings` latitude rings of `segments` points each plus the two poles. Every vertex
/// lies on the superquadric (f = 1, eq. (2)), and the superquadric is convex for ε1, ε2 ≤ 2, so
/// the convex hull of the vertices is an inner approximation of the primitive.
/// @throws std::invalid_argument on rings ∉ [1, 16] or segments ∉ [3, 32].
mesh::TriangleMesh superquadric_surface_mesh(const Superquadric& sq, int rings, int segments);

}  // namespace diffcol::manifold
