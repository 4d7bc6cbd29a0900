#pragma once
/// @file aopc.hpp
/// Articulated oriented point clouds (AOPC, SSDF seed Sec. III-B1): well-spread surface points
/// p_i with unit outward normals n_i, stored in the body frame, and their world-frame values and
/// Jacobians w.r.t. the body twist.
///
/// Frames: points(), normals() and vertices() are body-frame coordinates (the frame of the mesh
/// they were sampled from). A body pose X_WB (diffcol::Pose, world_from_body) maps them to the
/// world: p_W = R·p + t, n_W = R·n.
///
/// Jacobians use the *body* twist ξ = [ω; v] of X_WB (X_WB ← X_WB·exp(ξ^)); for a free body whose
/// generalized velocity is its body twist, J_p is exactly the seed's translational Jacobian J_i
/// (v_i = J_i·V): J_p = [−R·skew(p) | R], J_n = [−R·skew(n) | 0].
///
/// Sampling (our substitute for the seed's quad remeshing): area-weighted
/// random candidates on the mesh faces (candidates_per_point × num_points of them, seeded
/// std::mt19937_64), thinned by farthest-point sampling to num_points well-spread points; each
/// point takes the normal of the face it lies on. Sharp mesh edges (dihedral angle above
/// feature_angle) act as mirrors in the thinning: a candidate at distance e from such an edge
/// counts as if a point lay at distance 2e, so points keep about half a spacing from both sides
/// of every sharp edge and the planes of neighbouring points intersect near the edge (the
/// placement the seed asks for; without it the nearest-plane SSDF flips sign behind points that
/// hug an edge). A flat face (mesh faces joined across edges that are not sharp) narrower than
/// the spacing has its mirror distances stretched so that its mid-line counts as a spacing away:
/// it gets points along its length. A flat face left without a point seeds the thinning with its
/// most interior candidate. Then the far sign (far_sign_margin): where a direction's extreme point
/// faces away from it, the mesh's farthest point along it on a face facing it is added (so the
/// cloud may hold up to num_points / 2 + 8 more points than asked), and a cloud whose margin stays
/// below kMinFarSignMargin is refused. Deterministic given the options.

#include <array>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "diffcol/math/se3.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"

namespace diffcol::ssdf {

using Mat36 = Eigen::Matrix<double, 3, 6>;

/// The most points make_aopc samples (its farthest-point thinning takes about 20 ms for 4000
/// points and 1.2 s for 100000 with the default 8 candidates per point, on the stop-29 machine).
inline constexpr int kMaxAopcPoints = 100000;

/// Far queries. The kernel logit of point p_i at a query q is −‖q − p_i‖² (eq. (8)); beyond about
/// 1e15 × a cloud's size, q − p_i rounds to the same vector for every i and the SSDF loses its
/// sign. The softmax is unchanged by adding ‖q − c‖² (one value for every i), so beyond
/// kFarQueryRatio × radius of the center c the logit is computed as 2(q − c)ᵀ(p_i − c) − ‖p_i − c‖²,
/// exact to rounding at any distance (anisotropic kernels likewise, ssdf.hpp). Nearer, the plain
/// form is kept (identical results).
inline constexpr double kFarQueryRatio = 16.0;

/// A bounding sphere of a cloud's points (center of their bounding box), and the far logits.
struct CloudBounds {
  Vec3 center = Vec3::Zero();
  double radius = 0.0;  ///< max_i ‖p_i − center‖
  /// Whether q (body frame) is beyond kFarQueryRatio × radius of the center (and not at it).
  bool far(const Vec3& q) const {
    const double d2 = (q - center).squaredNorm();
    return d2 > 0.0 && d2 > (kFarQueryRatio * kFarQueryRatio) * (radius * radius);
  }
  /// The far logit 2(q − c)ᵀ(p − c) − ‖p − c‖² = ‖q − c‖² − ‖q − p‖², from qc = q − c, pc = p − c.
  static double far_logit(const Vec3& qc, const Vec3& pc) { return (2.0 * qc - pc).dot(pc); }
  /// far_logit of every point at q.
  void far_logits(const Vec3& q, const std::vector<Vec3>& points, double* x) const {
    const Vec3 qc = q - center;
    for (size_t i = 0; i < points.size(); ++i) x[i] = far_logit(qc, points[i] - center);
  }
  static CloudBounds of(const std::vector<Vec3>& points);
};

/// Options of make_aopc.
struct AopcOptions {
  int num_points = 500;             ///< I, the number of AOPC points (the resolution parameter), 4 … kMaxAopcPoints
  int candidates_per_point = 8;     ///< oversampling of the random candidates before thinning, 1 … 64
  std::uint64_t seed = 1;           ///< random seed (the result is deterministic given the options)
  double feature_angle = 0.5;       ///< dihedral angle (rad) above which an edge is sharp, ≥ 0; ≥ π: none
  /// @throws std::invalid_argument naming the field: num_points ∉ [4, kMaxAopcPoints],
  ///         candidates_per_point ∉ [1, 64], feature_angle NaN or negative.
  void validate() const;
};

/// An AOPC in its body frame (see the file comment).
///
/// For the reduction to collision points (seed eqs. (12)–(13)) every point f also carries the
/// indices of up to three "vertices" y_v (the indicator 1_fv of eq. (12)): for a cloud sampled
/// from a mesh, the vertices of the mesh face that contains the point; for a cloud built from raw
/// points, the point itself (one vertex per point).
class OrientedPointCloud {
 public:
  /// A cloud from raw points and normals (normals are normalized); every point is its own vertex.
  /// @throws std::invalid_argument on empty or mismatched inputs, non-finite entries or a normal
  ///         shorter than 1e-12.
  OrientedPointCloud(std::vector<Vec3> points, std::vector<Vec3> normals);

  /// A cloud with explicit vertices and point→vertex incidences (−1 marks an unused slot).
  /// @throws std::invalid_argument as above, or on an out-of-range vertex index.
  OrientedPointCloud(std::vector<Vec3> points, std::vector<Vec3> normals, std::vector<Vec3> vertices,
                     std::vector<std::array<int, 3>> point_vertices);

  int size() const { return static_cast<int>(points_.size()); }
  const std::vector<Vec3>& points() const { return points_; }
  const std::vector<Vec3>& normals() const { return normals_; }
  const std::vector<Vec3>& vertices() const { return vertices_; }
  /// Vertex indices of point f (eq. (12)'s 1_fv), unused slots −1.
  const std::vector<std::array<int, 3>>& point_vertices() const { return point_vertices_; }
  /// Mean distance from a point to its nearest neighbour (computed at construction, O(I²)).
  double mean_spacing() const { return mean_spacing_; }
  /// Bounding sphere of the points (far queries, see kFarQueryRatio).
  const CloudBounds& bounds() const { return bounds_; }

  /// World position of point i under X_WB; J (if not null) = ∂p_W/∂ξ (body twist) = [−R·skew(p) | R].
  /// @throws std::invalid_argument on a non-finite X_WB (as world_normal).
  Vec3 world_point(int i, const Pose& X_WB, Mat36* J = nullptr) const;
  /// World normal of point i under X_WB; J (if not null) = ∂n_W/∂ξ = [−R·skew(n) | 0].
  Vec3 world_normal(int i, const Pose& X_WB, Mat36* J = nullptr) const;

 private:
  std::vector<Vec3> points_, normals_, vertices_;
  std::vector<std::array<int, 3>> point_vertices_;
  double mean_spacing_ = 0.0;
  CloudBounds bounds_;
};

/// The smallest far-sign margin make_aopc accepts (see far_sign_margin).
inline constexpr double kMinFarSignMargin = 0.005;

/// Far sign. Along a direction u, far from the cloud, the SSDF weights concentrate on the point i
/// that is extreme along u, and φ → D·n_iᵀu + n_iᵀ(c − p_i) at distance D from the centre c. The
/// margin is a lower bound of n_iᵀu over every unit u and the point i extreme along it (from the
/// normal cones of the points: each point's neighbours first, all points where the bound stays
/// below kMinFarSignMargin, so it is tight there; O(I²) at worst): where it is positive, far
/// queries read outside in every direction, at least beyond radius / margin from c (radius of
/// bounds()), with weights concentrated. worst_direction and worst_point (if not null) get a
/// direction where the bound is attained (about) and the point extreme there. A cloud of fewer
/// than 4 points gets −1.
double far_sign_margin(const std::vector<Vec3>& points, const std::vector<Vec3>& normals,
                       Vec3* worst_direction = nullptr, int* worst_point = nullptr);
double far_sign_margin(const OrientedPointCloud& cloud, Vec3* worst_direction = nullptr);

/// Samples an AOPC from a closed mesh (see the file comment).
/// @throws std::invalid_argument on num_points ∉ [4, kMaxAopcPoints], candidates_per_point ∉
///         [1, 64], a NaN or negative feature_angle, or when the sampled cloud's far_sign_margin is
///         below kMinFarSignMargin (the message names the direction and the mesh face that lacks
///         points: raise num_points).
OrientedPointCloud make_aopc(const mesh::TriangleMesh& mesh, const AopcOptions& options = {});

}  // namespace diffcol::ssdf
