#pragma once
/// @file triangle_mesh.hpp
/// Closed, consistently oriented triangle meshes: validation, loading (OBJ, STL), generators
/// (box, icosphere, the planar-pushing T shape), normals, area, volume, and the exact references
/// used by the SSDF tests (point-in-mesh by winding number, point–mesh distance by brute force).
///
/// Frame: all coordinates are in the mesh's own (body) frame, in the file's length unit (metres
/// for the generators). Orientation: every face (a, b, c) is counter-clockwise when seen from
/// outside, so the face normal (b − a) × (c − a) points outward and the signed volume is positive.

#include <array>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"

namespace diffcol::mesh {

/// A face: three vertex indices, counter-clockwise seen from outside.
using Face = std::array<int, 3>;
/// An undirected edge, stored with first < second.
using Edge = std::array<int, 2>;

/// A validated closed triangle mesh (see the file comment for frames and orientation).
///
/// Invariants checked at construction (each failure is a std::invalid_argument naming the
/// offending face / edge / vertex):
///  - at least 4 vertices and 4 faces; every vertex finite; every index in range;
///  - no degenerate face (area ≤ 1e-12 · (bounding-box diagonal)²) and no repeated index;
///  - closed 2-manifold: every directed edge appears exactly once and its reverse exactly once
///    (so every undirected edge has exactly two faces, oriented consistently), and the faces
///    around every vertex form a single fan; every vertex is used by some face;
///  - outward orientation: the signed volume is positive.
class TriangleMesh {
 public:
  /// Validates and stores the mesh. @throws std::invalid_argument (see the class comment).
  TriangleMesh(std::vector<Vec3> vertices, std::vector<Face> faces);

  const std::vector<Vec3>& vertices() const { return vertices_; }
  const std::vector<Face>& faces() const { return faces_; }
  /// Undirected edges (first < second), sorted; each belongs to exactly two faces.
  const std::vector<Edge>& edges() const { return edges_; }
  int num_vertices() const { return static_cast<int>(vertices_.size()); }
  int num_faces() const { return static_cast<int>(faces_.size()); }

  /// Unit outward normal of face f.
  Vec3 face_normal(int f) const;
  /// Area of face f.
  double face_area(int f) const;
  /// Area-weighted average of the incident face normals at every vertex, normalized.
  std::vector<Vec3> vertex_normals() const;
  /// Total surface area.
  double area() const;
  /// Enclosed volume (divergence theorem; positive by the orientation invariant).
  double volume() const;
  /// Centroid of the enclosed solid (uniform density).
  Vec3 volume_centroid() const;
  /// Axis-aligned bounding box (min, max).
  std::array<Vec3, 2> bounding_box() const;

 private:
  std::vector<Vec3> vertices_;
  std::vector<Face> faces_;
  std::vector<Edge> edges_;
};

/// Loads a mesh by file extension (case-insensitive): ".obj" (tinyobjloader; polygons are
/// triangulated as fans; identical positions are welded) or ".stl" (binary or ASCII, detected
/// from the file size; the per-facet normals in the file are ignored; vertices with identical
/// coordinates are welded). Faces with a repeated index after welding are dropped.
/// @throws std::invalid_argument if the file cannot be read or parsed, has an unknown extension,
///         or the result is not a valid TriangleMesh.
TriangleMesh load_mesh(const std::string& path);

/// A mesh from a triangle soup (three corners per triangle): corners at identical positions, or
/// with tolerance > 0 in one cell of a grid of that spacing, become one vertex; triangles that
/// collapse are dropped. @throws std::invalid_argument as TriangleMesh's constructor, or for a
/// negative or non-finite tolerance.
TriangleMesh weld(const std::vector<Vec3>& corners, double tolerance = 0.0);

/// A box centred at the origin with the given edge lengths (x, y, z), 12 faces.
/// @throws std::invalid_argument on a non-positive or non-finite size.
TriangleMesh make_box(const Vec3& size);

/// A sphere of the given radius centred at the origin: an icosahedron subdivided `subdivisions`
/// times (20·4^s faces), vertices projected onto the sphere. @throws std::invalid_argument on a
/// non-positive radius or subdivisions ∉ [0, 7].
TriangleMesh make_icosphere(double radius, int subdivisions);

/// Dimensions of the planar-pushing T shape (seed Sec. IV-C), metres.
struct TShapeDimensions {
  double bar_length = 0.25;     ///< x extent of the top bar (= bounding-box width)
  double bar_width = 0.05;      ///< y extent of the top bar
  double stem_width = 0.05;     ///< x extent of the stem
  double stem_length = 0.15;    ///< y extent of the stem (bounding-box height = bar_width + stem_length)
  double thickness = 0.05;      ///< z extent (extrusion)
};

/// The T shape: the bar spans y ∈ [top − bar_width, top] and x ∈ ±bar_length/2, the stem spans
/// x ∈ ±stem_width/2 below it; extruded over z ∈ ±thickness/2. The body origin is the centroid
/// of the solid (uniform density), so the default bounding box is 0.25 × 0.20 × 0.05 m.
/// @throws std::invalid_argument on non-positive sizes or stem_width ≥ bar_length.
TriangleMesh make_t_shape(const TShapeDimensions& dims = {});

/// Generalized winding number of the closed mesh around p (solid angles, Van Oosterom–Strackee):
/// ≈ 1 inside, ≈ 0 outside (exactly an integer up to rounding for a closed mesh, undefined on the
/// surface).
double winding_number(const TriangleMesh& mesh, const Vec3& p);

/// Exact point-in-mesh test: winding_number(p) > 0.5. Points on the surface may go either way.
bool contains(const TriangleMesh& mesh, const Vec3& p);

/// The closest point of triangle (a, b, c) to p (exact, region-based). A degenerate triangle
/// (collinear or coincident corners) gives the closest point of its three edges.
Vec3 closest_point_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

/// Unsigned distance from p to the surface (brute force over all faces, exact).
/// @param closest if not null, receives the closest surface point.
double distance_to_surface(const TriangleMesh& mesh, const Vec3& p, Vec3* closest = nullptr);

/// Exact signed distance: −distance inside, +distance outside (the references of the SSDF tests).
double signed_distance(const TriangleMesh& mesh, const Vec3& p);

}  // namespace diffcol::mesh
