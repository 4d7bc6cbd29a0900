#pragma once
/// @file primitives.hpp
/// DCOL's exact convex primitives (DCOL seed Sec. III-B) as plain value types.
///
/// Every primitive is described in its own *shape frame* S by a set S(α) that grows uniformly
/// about the shape origin with the scaling α ≥ 0 (S(1) is the primitive itself, S(0) its origin).
/// The shape origin lies strictly inside the primitive. Each primitive may be mounted on a rigid
/// body B at a constant offset pose X_BS (`offset`, default identity); the solver places it at
/// X_WS = X_WB·X_BS and scales it about the origin of S.
///
/// Set membership of a point with shape-frame coordinates y (the constraints the solver builds,
/// written in the shape frame; the seed writes some of them in the world frame, which is the same
/// set rotated):
///  - Polytope      A y ≤ α b                                                     (10)–(11)
///  - Capsule       ‖y − γ e_x‖ ≤ α R, |γ| ≤ α L/2, slack γ                       (12)–(15)
///  - Cylinder      ‖(y_2, y_3)‖ ≤ α R, |y_1| ≤ α L/2                              (16)–(18)
///                  (the seed adds these two half-spaces to the capsule's constraints; with
///                  |y_1| ≤ αL/2 the slack γ = y_1 is always optimal, so diffcol drops γ and
///                  uses a 3-dimensional second-order cone: the same set, one variable fewer)
///  - Cone          ‖(y_2, y_3)‖ ≤ tan β (y_1 + α 3H/4), y_1 ≤ α H/4               (19)–(22)
///                  (axis along +x, apex at y_1 = −3H/4, base of radius H tan β at y_1 = +H/4:
///                  the origin is one quarter of the height from the base)
///  - Ellipsoid     ‖U y‖ ≤ α, P = UᵀU (upper Cholesky factor)                      (23)–(24)
///  - PaddedPolygon ‖y − (w_1, w_2, 0)‖ ≤ α R, C w ≤ α d, slack w ∈ R²              (25)–(28)
///                  (polygon in the shape x–y plane, padded by R)
///  - Sphere        ‖y‖ ≤ α R (the ellipsoid with P = I/R²)
///
/// Units: lengths in any consistent unit; angles in radians.

#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"

namespace diffcol::mesh {
class TriangleMesh;
}

namespace diffcol::dcol {

/// Polytopes with at most this many faces keep them in fixed-size members (no allocation, the
/// solver's fast path); larger ones in one heap block built at construction (Polytope::large).
inline constexpr int kInlinePolytopeFaces = 32;
/// The most faces of a Polytope (rows of A).
inline constexpr int kMaxPolytopeFaces = 4096;
/// Compile-time capacity: the most edges of a PaddedPolygon (rows of C).
inline constexpr int kMaxPolygonEdges = 32;
/// The most vertices of a polytope with kInlinePolytopeFaces faces (2F − 4, Euler's formula).
inline constexpr int kInlinePolytopeVertices = 2 * kInlinePolytopeFaces - 4;
/// The most (vertex, face) incidences of such a polytope: two per edge (at most 3V − 6 edges),
/// plus two for each face that only touches at a vertex or an edge.
inline constexpr int kInlinePolytopeFaceIncidences = 2 * (3 * kInlinePolytopeVertices - 6) + 2 * kInlinePolytopeFaces;
/// The most faces of LargePolytopeData::bounding_faces.
inline constexpr int kMaxBoundingFaces = 16;

// Support points. Every primitive has `Vec3 support(const Vec3& d) const`: a point of the
// primitive (α = 1, shape frame) that maximizes dᵀy over it. Ties (d along a face or an edge
// normal) return one of the maximizers; d = 0 returns the shape origin. Closed forms, no
// allocation: the solver's geometric start (docs/dcol.md, "Solver") calls them in its hot path,
// so d is not checked: it must be finite (the Python binding raises ValueError otherwise).

/// The faces, vertices and face lists of a polytope with more than kInlinePolytopeFaces faces
/// (Polytope::large), the same data as Polytope's fixed-size members, plus what the solver uses
/// on large polytopes: the vertex adjacency (edges, for a hill-climbing support search) and a
/// few faces whose half-spaces alone bound a set (the working set of the cone program always
/// holds them, docs/dcol.md "Large polytopes").
struct LargePolytopeData {
  Eigen::Matrix<double, Eigen::Dynamic, 3> A;   ///< m×3 unit normals
  Eigen::VectorXd b;                            ///< m offsets
  Eigen::Matrix<double, Eigen::Dynamic, 3> V;   ///< vertices
  std::vector<int> face_start, face_vertices;   ///< as Polytope's (m + 1 starts)
  std::vector<int> neighbour_start, neighbours; ///< vertex i's neighbours: neighbours[neighbour_start[i] …]
  /// The extreme vertices along the 6 axes, 12 edge and 8 corner directions (distinct): where the
  /// support function's climb on the vertex graph starts. Empty (support() visits every vertex)
  /// unless the graph is connected and every vertex has at least three neighbours.
  std::vector<int> support_seeds;

  /// The index of a vertex maximizing dᵀv (d ≠ 0): the climb on the vertex graph from the best of
  /// `support_seeds` and of `hint` (a vertex index, or −1), each step to the neighbour of largest
  /// value while one is larger (a linear function's local maximum on a convex polytope's vertex
  /// graph is a global one; which maximizer on ties is unspecified); every vertex when there are
  /// no seeds (the first maximizer then).
  int support_vertex(const Vec3& d, int hint = -1) const;
  std::vector<int> bounding_faces;              ///< {y : a_iᵀy ≤ b_i, i in these} is bounded
  std::vector<unsigned char> is_bounding;       ///< per face: listed in bounding_faces
};

/// Convex polytope {y : A y ≤ b} in the shape frame, eq. (10).
struct Polytope {
  /// @param A face normals (m×3, rows need not be unit), 4 ≤ m ≤ kMaxPolytopeFaces.
  /// @param b offsets (m), all > 0 (the origin is strictly inside).
  /// @throws std::invalid_argument for wrong sizes (naming the limit kMaxPolytopeFaces),
  ///         non-finite entries, b_i ≤ 0, a zero row, a face closer than kMinLength = 1e-100 to
  ///         the origin, or an unbounded set (checked through the recession cone {d : A d ≤ 0};
  ///         above kInlinePolytopeFaces through the polar hull of the points a_i/b_i, Qhull).
  Polytope(const Eigen::MatrixX3d& A, const Eigen::VectorXd& b, const Pose& offset = Pose::identity());
  /// The axis-aligned box with half-extents (hx, hy, hz) > 0, centred at the shape origin.
  static Polytope box(double hx, double hy, double hz, const Pose& offset = Pose::identity());
  /// The convex hull of a point set (shape frame) by Qhull, coplanar facets merged into one face
  /// (a cube's eight corners give six faces). The shape origin must lie strictly inside the hull.
  /// @throws std::invalid_argument for fewer than 4 points, a non-finite point, points that span
  ///         no volume (collinear or coplanar), an origin not strictly inside, or a hull of more
  ///         than kMaxPolytopeFaces faces.
  static Polytope convex_hull(const std::vector<Vec3>& points, const Pose& offset = Pose::identity());
  /// The convex hull of a triangle mesh's vertices (convex_hull above).
  static Polytope convex_hull(const mesh::TriangleMesh& mesh, const Pose& offset = Pose::identity());

  int num_faces = 0;                                          ///< m
  /// The half-spaces with unit normals (row i of the input divided by its norm, b_i alike).
  /// Up to kInlinePolytopeFaces faces; a larger polytope leaves A, b, V, face_start and
  /// face_vertices zero and keeps its data in `large` (the accessors below read either).
  Eigen::Matrix<double, kInlinePolytopeFaces, 3> A = Eigen::Matrix<double, kInlinePolytopeFaces, 3>::Zero();  ///< rows ≥ m are zero
  Eigen::Matrix<double, kInlinePolytopeFaces, 1> b = Eigen::Matrix<double, kInlinePolytopeFaces, 1>::Zero();
  Pose offset;                                                ///< X_BS
  double inner_radius = 0.0;  ///< min_i b_i/‖a_i‖: radius of the largest origin-centred inscribed ball
  double outer_radius = 0.0;  ///< largest vertex norm
  /// The vertices (enumerated at construction, coincident ones merged): rows < num_vertices.
  int num_vertices = 0;
  Eigen::Matrix<double, kInlinePolytopeVertices, 3> V = Eigen::Matrix<double, kInlinePolytopeVertices, 3>::Zero();
  /// The faces as vertex lists (construction time; the support-function start's face states): face
  /// k's vertices are the rows face_vertices[face_start[k]], …, face_vertices[face_start[k + 1] − 1]
  /// of V, counter-clockwise about its normal.
  std::array<unsigned short, kInlinePolytopeFaces + 1> face_start{};
  std::array<unsigned char, kInlinePolytopeFaceIncidences> face_vertices{};
  /// The data of a polytope with more than kInlinePolytopeFaces faces (null otherwise): built
  /// once at construction, immutable, shared by copies.
  std::shared_ptr<const LargePolytopeData> large;

  bool is_large() const { return large != nullptr; }
  /// Unit normal a_i, offset b_i, vertex i, and face k's vertex list (face_begin(k) ≤ j <
  /// face_begin(k + 1), vertex face_vertex(j)), for any size.
  Vec3 normal(int i) const { return large ? Vec3(large->A.row(i).transpose()) : Vec3(A.row(i).transpose()); }
  double face_offset(int i) const { return large ? large->b[i] : b[i]; }
  Vec3 vertex(int i) const { return large ? Vec3(large->V.row(i).transpose()) : Vec3(V.row(i).transpose()); }
  int face_begin(int k) const { return large ? large->face_start[static_cast<size_t>(k)] : face_start[static_cast<size_t>(k)]; }
  int face_vertex(int j) const { return large ? large->face_vertices[static_cast<size_t>(j)] : face_vertices[static_cast<size_t>(j)]; }

  /// The vertex maximizing dᵀy: the first one on ties up to kInlinePolytopeFaces faces; above,
  /// the end of a climb on the vertex graph from the best of `large->support_seeds` (on a convex
  /// polytope a vertex no neighbour improves on is a maximizer; which one on ties is unspecified;
  /// every vertex is visited when there are no seeds).
  Vec3 support(const Vec3& d) const {
    if (large) return large_support(d);
    int best = 0;
    double bv = -1e300;
    for (int i = 0; i < num_vertices; ++i) {  // branch-free arg max (conditional moves)
      const double v = V(i, 0) * d.x() + V(i, 1) * d.y() + V(i, 2) * d.z();
      const bool gt = v > bv;
      bv = gt ? v : bv;
      best = gt ? i : best;
    }
    return d.squaredNorm() > 0.0 ? Vec3(V(best, 0), V(best, 1), V(best, 2)) : Vec3::Zero();
  }

 private:
  Vec3 large_support(const Vec3& d) const;  // the climb on `large`'s vertex graph
  void build_large(const Eigen::MatrixX3d& A, const Eigen::VectorXd& b);
};

/// Capsule: the points within R of the segment from −L/2·e_x to +L/2·e_x, eq. (12)–(13).
struct Capsule {
  /// @throws std::invalid_argument unless R and L lie in [kMinLength, kMaxLength] = [1e-100, 1e100].
  Capsule(double R, double L, const Pose& offset = Pose::identity());
  double R = 0.0, L = 0.0;
  Pose offset;

  /// sign(d_x)·L/2·e_x + R·d/‖d‖.
  Vec3 support(const Vec3& d) const {
    const double n = d.norm();
    if (!(n > 0.0)) return Vec3::Zero();
    Vec3 y = (R / n) * d;
    y.x() += d.x() > 0.0 ? 0.5 * L : (d.x() < 0.0 ? -0.5 * L : 0.0);
    return y;
  }
};

/// Cylinder of radius R and length L along the shape x axis, centred at the origin, eq. (16)–(17).
struct Cylinder {
  /// @throws std::invalid_argument unless R and L lie in [kMinLength, kMaxLength] = [1e-100, 1e100].
  Cylinder(double R, double L, const Pose& offset = Pose::identity());
  double R = 0.0, L = 0.0;
  Pose offset;

  /// sign(d_x)·L/2·e_x + R·(0, d_y, d_z)/‖(d_y, d_z)‖ (the cap centre when d is along the axis).
  Vec3 support(const Vec3& d) const {
    const double n = std::sqrt(d.y() * d.y() + d.z() * d.z());
    Vec3 y = n > 0.0 ? Vec3(0.0, R * d.y() / n, R * d.z() / n) : Vec3::Zero();
    y.x() = d.x() > 0.0 ? 0.5 * L : (d.x() < 0.0 ? -0.5 * L : 0.0);
    return y;
  }
};

/// Cone of height H and half-angle β along +x: apex at −3H/4·e_x, base at +H/4·e_x, eq. (19)–(20).
struct Cone {
  /// @throws std::invalid_argument unless H lies in [1e-100, 1e100] and 0 < β < π/2.
  Cone(double H, double beta, const Pose& offset = Pose::identity());
  double H = 0.0, beta = 0.0;
  double tan_beta = 0.0;  ///< tan β
  Pose offset;

  /// The apex or the point of the base rim farthest along d, whichever reaches farther.
  Vec3 support(const Vec3& d) const {
    const double n = std::sqrt(d.y() * d.y() + d.z() * d.z());
    if (!(n > 0.0) && d.x() == 0.0) return Vec3::Zero();
    const double rb = H * tan_beta;  // base radius
    const double base = 0.25 * H * d.x() + rb * n, apex = -0.75 * H * d.x();
    if (apex >= base) return Vec3(-0.75 * H, 0.0, 0.0);
    return n > 0.0 ? Vec3(0.25 * H, rb * d.y() / n, rb * d.z() / n) : Vec3(0.25 * H, 0.0, 0.0);
  }
};

/// Ellipsoid {y : yᵀ P y ≤ 1}, eq. (23).
struct Ellipsoid {
  /// @param P symmetric positive definite (symmetric to 1e-12 relative).
  /// @throws std::invalid_argument for a non-finite, non-symmetric or not positive definite P, or
  ///         semi-axes outside [1e-100, 1e100].
  explicit Ellipsoid(const Mat3& P, const Pose& offset = Pose::identity());
  /// The ellipsoid with semi-axes a, b, c > 0 along the shape x, y, z axes (P = diag(1/a², 1/b², 1/c²)).
  static Ellipsoid from_semi_axes(double a, double b, double c, const Pose& offset = Pose::identity());
  Mat3 P = Mat3::Identity();
  Mat3 U = Mat3::Identity();  ///< upper-triangular Cholesky factor, P = UᵀU
  Mat3 P_inverse = Mat3::Identity();  ///< P⁻¹
  Pose offset;
  double inner_radius = 0.0, outer_radius = 0.0;  ///< 1/√λ_max(P), 1/√λ_min(P)

  /// P⁻¹d/√(dᵀP⁻¹d).
  Vec3 support(const Vec3& d) const {
    const Vec3 q = P_inverse * d;
    const double n = d.dot(q);
    return n > 0.0 ? Vec3(q / std::sqrt(n)) : Vec3::Zero();
  }
};

/// Padded polygon: points within R of the polygon {w ∈ R² : C w ≤ d} in the shape x–y plane, eq. (25)–(26).
struct PaddedPolygon {
  /// @param C edge normals (m×2), 3 ≤ m ≤ kMaxPolygonEdges. @param d offsets, all > 0. @param R padding > 0.
  /// @throws std::invalid_argument for wrong sizes, non-finite entries, d_i ≤ 0, a zero row,
  ///         an unbounded polygon, or R outside [kMinLength, kMaxLength] = [1e-100, 1e100].
  PaddedPolygon(const Eigen::MatrixX2d& C, const Eigen::VectorXd& d, double R, const Pose& offset = Pose::identity());
  /// The rectangle |w_1| ≤ hx, |w_2| ≤ hy padded by R.
  static PaddedPolygon rectangle(double hx, double hy, double R, const Pose& offset = Pose::identity());
  int num_edges = 0;
  /// The half-planes with unit normals (row i of the input divided by its norm, d_i alike).
  Eigen::Matrix<double, kMaxPolygonEdges, 2> C = Eigen::Matrix<double, kMaxPolygonEdges, 2>::Zero();
  Eigen::Matrix<double, kMaxPolygonEdges, 1> d = Eigen::Matrix<double, kMaxPolygonEdges, 1>::Zero();
  double R = 0.0;
  Pose offset;
  double inner_radius = 0.0;  ///< R + min_i d_i/‖c_i‖
  double outer_radius = 0.0;  ///< R + largest polygon vertex norm
  /// The polygon's vertices, counter-clockwise (enumerated at construction, coincident ones
  /// merged): rows < num_vertices.
  int num_vertices = 0;
  Eigen::Matrix<double, kMaxPolygonEdges, 2> V = Eigen::Matrix<double, kMaxPolygonEdges, 2>::Zero();

  /// The polygon vertex maximizing (d_x, d_y)ᵀw (the first one on ties), plus R·d/‖d‖.
  Vec3 support(const Vec3& d) const {
    const double n = d.norm();
    if (!(n > 0.0)) return Vec3::Zero();
    int best = 0;
    double bv = -1e300;
    for (int i = 0; i < num_vertices; ++i) {
      const double v = V(i, 0) * d.x() + V(i, 1) * d.y();
      const bool gt = v > bv;
      bv = gt ? v : bv;
      best = gt ? i : best;
    }
    return Vec3(V(best, 0), V(best, 1), 0.0) + (R / n) * d;
  }
};

/// Sphere of radius R centred at the shape origin.
struct Sphere {
  /// @throws std::invalid_argument unless R lies in [kMinLength, kMaxLength] = [1e-100, 1e100].
  explicit Sphere(double R, const Pose& offset = Pose::identity());
  double R = 0.0;
  Pose offset;

  /// R·d/‖d‖.
  Vec3 support(const Vec3& d) const {
    const double n = d.norm();
    return n > 0.0 ? Vec3((R / n) * d) : Vec3::Zero();
  }
};

/// Any DCOL primitive. The index order is the order of PrimitiveType.
using Primitive = std::variant<Polytope, Capsule, Cylinder, Cone, Ellipsoid, PaddedPolygon, Sphere>;

enum class PrimitiveType : int {
  polytope = 0, capsule = 1, cylinder = 2, cone = 3, ellipsoid = 4, padded_polygon = 5, sphere = 6,
};
inline constexpr int kNumPrimitiveTypes = 7;

/// "polytope", "capsule", "cylinder", "cone", "ellipsoid", "padded_polygon", "sphere".
const char* primitive_type_name(PrimitiveType t);
inline PrimitiveType primitive_type(const Primitive& p) { return static_cast<PrimitiveType>(p.index()); }
/// The offset pose X_BS of any primitive.
const Pose& primitive_offset(const Primitive& p);
/// Radius of the largest ball about the shape origin inside the primitive (a lower bound for the cone).
double inner_radius(const Primitive& p);
/// Radius of the smallest ball about the shape origin containing the primitive (an upper bound).
double outer_radius(const Primitive& p);

/// The seven benchmark primitives by name (shape frame = body frame):
///  "polytope"       the iDCOL benchmark polytope: rows (±1, ±1, ±1) of A, b = (1,1,1,1, 5/3,5/3,5/3,5/3)
///  "capsule"        R = 0.5, L = 2
///  "cylinder"       R = 0.75, L = 2
///  "cone"           H = 2, β = 30°
///  "ellipsoid"      semi-axes 0.5, 1, 1.5
///  "padded_polygon" the rectangle |w_1| ≤ 1, |w_2| ≤ 0.6, padding R = 0.2
///  "sphere"         R = 1
/// @throws std::invalid_argument for another name.
Primitive benchmark_primitive(const char* name);
/// The names accepted by benchmark_primitive, in PrimitiveType order (kNumPrimitiveTypes entries).
const char* const* benchmark_primitive_names();

/// Builds a primitive from named parameters (for command lines and files), no offset:
///  "polytope" (a box):  hx, hy, hz          "capsule": R, L          "cylinder": R, L
///  "cone":              H, beta (radians)   "ellipsoid": a, b, c (semi-axes)
///  "padded_polygon" (a padded rectangle): hx, hy, R                   "sphere": R
/// @throws std::invalid_argument for an unknown type, a missing or unknown parameter, or
///         parameters the constructor rejects.
Primitive make_primitive(const std::string& type, const std::map<std::string, double>& params);

}  // namespace diffcol::dcol
