#pragma once
/// @file view.hpp
/// The HTML viewer: a self-contained web page (three.js bundled in, opens offline from file://)
/// that shows two shapes, the contact between them — iDCOL (witness points p1, p2, the normal,
/// the touching point x and the shapes scaled by α* about their own origins, eq. (8)), and,
/// for a sequence of poses, an animation with a time slider. The same page shows DCOL primitives
/// (dcol/primitives.hpp: witness points, separating normal, the shapes scaled by α*) and
/// DiffPills capsules and padded polygons (qp/shapes.hpp: closest points, normal). Every page
/// has world axes, a ground grid and a scale bar; render_png draws a page to a PNG file with
/// headless Chromium.
///
/// Library target `diffcol_view` (CMake alias `diffcol::view`); it exists only when three.js
/// was fetched with `bash viewer/setup.sh`. See docs/viewer.md.
///
/// Frames and units: poses are world_from_body (X_W1, X_W2) as everywhere in diffcol; meshes are
/// in the body frame; the page draws everything in the world frame, in the shapes' length unit.
///
/// A second kind of page shows triangle meshes (diffcol::mesh::TriangleMesh) instead of iDCOL
/// shapes: any number of bodies with one pose per body and frame (an animated rollout, e.g. of
/// the SSDF dynamics), optionally with a contact manifold per frame (Contax, manifold.hpp): the
/// points, and the normals as arrows whose length is proportional to the activity, coloured by
/// activity (the Contax seed's Fig. 5). Format "diffcol-mesh-view/1" (docs/viewer.md).

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/manifold/manifold.hpp"
#include "diffcol/math/se3.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/shapes.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/shapes/shape.hpp"

namespace diffcol::view {

/// A triangle mesh of a shape's surface φ = 0, in the body frame.
struct SurfaceMesh {
  std::vector<Vec3> vertices;  ///< points with φ(v) = 0 (to bisection accuracy), body frame
  std::vector<Vec3> normals;   ///< unit outward normals ∇φ/‖∇φ‖ at the vertices
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< vertex indices, counter-clockwise
                                                        ///< seen from outside
};

/// Meshes the surface of a shape by radial ray casting: the directions are the vertices of an
/// icosphere (icosahedron subdivided `subdivisions` times: 10·4^k + 2 vertices, 20·4^k
/// triangles), and along each direction u the surface point t·u is found by bisection on
/// φ(t·u) over [0, outer_radius] (each shape is convex with its origin strictly inside, so every
/// ray leaves it exactly once). Not a hot path: allocates.
/// @throws std::invalid_argument unless 0 ≤ subdivisions ≤ 7.
SurfaceMesh mesh_surface(const Shape& shape, int subdivisions = 5);

/// Settings of the page.
struct ViewOptions {
  std::string title = "diffcol view";  ///< page title and heading (any text; escaped)
  int mesh_subdivisions = 5;           ///< icosphere level of mesh_surface, 0..7 (5: 10242 vertices)
  bool show_scaled_shapes = false;     ///< initial state of the "scaled shapes (α*)" checkbox
  double frame_duration = 1.0 / 30.0;  ///< seconds per frame when playing, > 0
  bool autoplay = false;               ///< start playing on load (multi-frame pages)
  idcol::SolveOptions solve_options;   ///< options of the contact solve at each frame (iDCOL pages)
  dcol::SolveOptions dcol_options;     ///< options of the DCOL solve at each frame (DCOL pages)
  qp::ProximityOptions qp_options;     ///< options of the proximity query at each frame (DiffPills pages)
  /// Mesh pages: arrow length of a normal with activity 1 (world length unit); 0 = automatic
  /// (15 % of the scene's bounding radius). ≥ 0, finite.
  double normal_length = 0.0;
  /// Mesh pages: entries with activity below this are hidden initially (a slider on the page
  /// changes it). In [0, 1].
  double min_activity = 0.05;
};

/// One frame of a view: the poses and the contact solved at them.
struct ViewFrame {
  Pose X_W1;                        ///< pose of body 1 in the world
  Pose X_W2;                        ///< pose of body 2 in the world
  idcol::ContactSolution solution;  ///< idcol solution at (X_W1, X_W2)
};

/// Solves the contact at every frame with one idcol::ContactPair (warm-started from the previous
/// frame when options.solve_options.warm_start). X_W1 and X_W2 each hold one pose (held fixed)
/// or one pose per frame; the frame count is the larger size.
/// @throws std::invalid_argument if a sequence is empty, the sizes differ and neither is 1, a
///         pose is not finite, or the options are invalid (see ViewOptions).
std::vector<ViewFrame> solve_frames(const Shape& shape1, const std::vector<Pose>& X_W1, const Shape& shape2,
                                    const std::vector<Pose>& X_W2, const ViewOptions& options = {});

/// The scene the page renders, as JSON text (format "diffcol-view/1", described in
/// docs/viewer.md): both meshes (base64 little-endian float32 / uint32 arrays), the frames
/// (poses as position + quaternion [w,x,y,z], status, α*, gap, x, p1, p2, normal, all in the
/// world frame) and the page settings.
/// @throws std::invalid_argument as solve_frames.
std::string scene_json(const Shape& shape1, const std::vector<Pose>& X_W1, const Shape& shape2,
                       const std::vector<Pose>& X_W2, const ViewOptions& options = {});

/// The self-contained HTML page (three.js, OrbitControls and the viewer script inlined; no
/// network access needed) for a pose sequence. See solve_frames for the sequences.
/// @throws std::invalid_argument as solve_frames.
std::string render_html(const Shape& shape1, const std::vector<Pose>& X_W1, const Shape& shape2,
                        const std::vector<Pose>& X_W2, const ViewOptions& options = {});
/// The page for one pair of poses (a single frame).
std::string render_html(const Shape& shape1, const Pose& X_W1, const Shape& shape2, const Pose& X_W2,
                        const ViewOptions& options = {});

/// Writes render_html(...) to `path`.
/// @throws std::invalid_argument as render_html; std::runtime_error if the file cannot be written.
void write_html(const std::string& path, const Shape& shape1, const std::vector<Pose>& X_W1, const Shape& shape2,
                const std::vector<Pose>& X_W2, const ViewOptions& options = {});
/// Writes the single-frame page to `path`.
void write_html(const std::string& path, const Shape& shape1, const Pose& X_W1, const Shape& shape2,
                const Pose& X_W2, const ViewOptions& options = {});

// ------------------------------------------------------------------ mesh pages (manifolds, rollouts)

/// The contact manifold of one frame as drawn (world frame, K entries each).
struct ManifoldMarkers {
  std::vector<Vec3> points;        ///< contact points
  std::vector<Vec3> normals;       ///< unit normals (drawn as arrows of length normal_length·activity)
  std::vector<double> distances;   ///< signed distances (< 0: penetration), shown in the panel
  std::vector<double> activities;  ///< activities in [0, 1] (arrow length and colour)
};

/// The markers of a computed manifold (same entry order).
ManifoldMarkers manifold_markers(const manifold::ContactManifold& manifold);

/// A page of triangle meshes: bodies with per-frame poses and optional per-frame manifolds.
struct MeshScene {
  std::vector<mesh::TriangleMesh> meshes;  ///< one body-frame mesh per body (≥ 1)
  std::vector<std::string> names;          ///< body labels; empty = "body 1", "body 2", …
  std::vector<std::vector<Pose>> poses;    ///< poses[frame][body], world_from_body (≥ 1 frame)
  std::vector<ManifoldMarkers> manifolds;  ///< empty, or one per frame
};

/// Checks a mesh scene and the options that apply to it.
/// @throws std::invalid_argument on no bodies, no frames, a frame without one pose per body, a
///         non-finite pose, names of the wrong count, manifolds not one per frame, markers of
///         mismatched sizes or non-finite values, or invalid options.
void validate_mesh_scene(const MeshScene& scene, const ViewOptions& options = {});

/// The scene JSON of a mesh page (format "diffcol-mesh-view/1", docs/viewer.md): meshes as
/// base64 arrays, per-frame poses (position + quaternion [w,x,y,z]) and manifolds (world frame).
/// @throws std::invalid_argument as validate_mesh_scene.
std::string mesh_scene_json(const MeshScene& scene, const ViewOptions& options = {});

/// The self-contained HTML page of a mesh scene. @throws std::invalid_argument as validate_mesh_scene.
std::string render_mesh_html(const MeshScene& scene, const ViewOptions& options = {});

/// Writes render_mesh_html(...) to `path`.
/// @throws std::invalid_argument as render_mesh_html; std::runtime_error if the file cannot be written.
void write_mesh_html(const std::string& path, const MeshScene& scene, const ViewOptions& options = {});

/// The mesh scene of a contact manifold between two objects: both meshes and, at every frame,
/// the manifold computed at the frame's poses (manifold::compute_manifold). X_W1 and X_W2 each
/// hold one pose (held fixed) or one per frame, as in solve_frames.
/// @throws std::invalid_argument on sequences as solve_frames, or invalid manifold options.
MeshScene manifold_scene(const manifold::ContactObject& body1, const std::vector<Pose>& X_W1,
                         const manifold::ContactObject& body2, const std::vector<Pose>& X_W2,
                         const manifold::ManifoldOptions& manifold_options = {});

// ------------------------------------------------------------------ DCOL and DiffPills pages

/// A triangle mesh of a DCOL primitive's surface in its shape frame S (the frame about whose
/// origin α scales; the solver places it at X_WB·offset). Exact for the polytope (its faces, flat
/// normals); cylinder and cone: n = max(8, 4·2^k) segments about the axis, flat caps; sphere and ellipsoid:
/// the icosphere of mesh_surface mapped onto the surface; capsule and padded polygon: the polygon
/// (a segment for the capsule) swept by a sphere of radius R, n segments per full turn.
/// Vertices lie on the surface, triangles are counter-clockwise seen from outside, normals are
/// the outward unit normals. @throws std::invalid_argument unless 0 ≤ subdivisions ≤ 7.
SurfaceMesh mesh_primitive(const dcol::Primitive& shape, int subdivisions = 5);
/// The DiffPills shapes in their body frames (capsule: sphere-swept segment b_B–a_B; padded
/// polygon: sphere-swept polygon in the body x–y plane), as mesh_primitive. A zero radius gives
/// a flat (polygon) or empty (segment) mesh. @throws std::invalid_argument as mesh_primitive.
SurfaceMesh mesh_qp_shape(const qp::Capsule& shape, int subdivisions = 5);
SurfaceMesh mesh_qp_shape(const qp::PaddedPolygon& shape, int subdivisions = 5);

/// A one-line description of a primitive / DiffPills shape (type and sizes), shown on the page.
std::string describe(const dcol::Primitive& shape);
std::string describe(const qp::Capsule& shape);
std::string describe(const qp::PaddedPolygon& shape);

/// The separating normal of a solved DCOL contact (world frame, unit, out of shape 1): the
/// multipliers of body 1's constraint rows, Σ z_i g_i (stationarity of problem (9): body 2's rows
/// give −n), oriented so that nᵀ(x* − r_1) > 0. Zero when no solve ran (α* = 0, invalid input).
Vec3 dcol_normal(const dcol::ContactResult& result);

/// One frame of a DCOL page.
struct DcolViewFrame {
  Pose X_WB1, X_WB2;    ///< body poses given
  Pose X_WS1, X_WS2;    ///< shape poses X_WB·offset (the meshes are drawn there, scaled about their origins)
  diffcol::SolveStatus status = diffcol::SolveStatus::invalid_input;
  int iterations = 0;
  double alpha = 0.0;   ///< α*
  double gap = 0.0;     ///< d_D, signed eq. (30)
  Vec3 x_W = Vec3::Zero(), p1_W = Vec3::Zero(), p2_W = Vec3::Zero();  ///< eq. (29), world
  Vec3 normal_W = Vec3::Zero();  ///< dcol_normal
  bool ok() const { return status == diffcol::SolveStatus::ok; }
};

/// dcol::solve_contact (cold) at every frame; sequences as in solve_frames.
/// @throws std::invalid_argument as solve_frames, or for invalid options.dcol_options.
std::vector<DcolViewFrame> solve_dcol_frames(const dcol::Primitive& shape1, const std::vector<Pose>& X_WB1,
                                             const dcol::Primitive& shape2, const std::vector<Pose>& X_WB2,
                                             const ViewOptions& options = {});
/// The scene JSON of a DCOL page (format "diffcol-view/1", "method": "dcol"; docs/viewer.md).
std::string dcol_scene_json(const dcol::Primitive& shape1, const std::vector<Pose>& X_WB1,
                            const dcol::Primitive& shape2, const std::vector<Pose>& X_WB2,
                            const ViewOptions& options = {});
/// The page of a DCOL contact (one pose each, or sequences as in solve_frames).
std::string render_dcol_html(const dcol::Primitive& shape1, const std::vector<Pose>& X_WB1,
                             const dcol::Primitive& shape2, const std::vector<Pose>& X_WB2,
                             const ViewOptions& options = {});
/// Writes render_dcol_html(...) to `path`. @throws std::runtime_error if it cannot be written.
void write_dcol_html(const std::string& path, const dcol::Primitive& shape1, const std::vector<Pose>& X_WB1,
                     const dcol::Primitive& shape2, const std::vector<Pose>& X_WB2, const ViewOptions& options = {});

/// A DiffPills shape.
using QpShape = std::variant<qp::Capsule, qp::PaddedPolygon>;

/// qp::proximity at every frame (any pair of capsules and padded polygons); sequences as in
/// solve_frames. @throws std::invalid_argument as solve_frames, or for invalid options.qp_options.
std::vector<qp::ProximityResult> solve_qp_frames(const QpShape& shape1, const std::vector<Pose>& X_W1,
                                                 const QpShape& shape2, const std::vector<Pose>& X_W2,
                                                 const ViewOptions& options = {});
/// The scene JSON of a DiffPills page (format "diffcol-view/1", "method": "qp"; docs/viewer.md).
std::string qp_scene_json(const QpShape& shape1, const std::vector<Pose>& X_W1, const QpShape& shape2,
                          const std::vector<Pose>& X_W2, const ViewOptions& options = {});
/// The page of a DiffPills proximity (closest points on the padded surfaces, the normal).
std::string render_qp_html(const QpShape& shape1, const std::vector<Pose>& X_W1, const QpShape& shape2,
                           const std::vector<Pose>& X_W2, const ViewOptions& options = {});
/// Writes render_qp_html(...) to `path`. @throws std::runtime_error if it cannot be written.
void write_qp_html(const std::string& path, const QpShape& shape1, const std::vector<Pose>& X_W1,
                   const QpShape& shape2, const std::vector<Pose>& X_W2, const ViewOptions& options = {});

// ------------------------------------------------------------------ PNG (headless Chromium)

/// Settings of render_png.
struct PngOptions {
  int width = 1200;             ///< picture size in pixels, 16..8192
  int height = 800;
  int virtual_time_ms = 20000;  ///< Chromium's --virtual-time-budget: page time given to load and draw
  double timeout_s = 120.0;     ///< wall-clock limit of the browser run
  std::string chromium;         ///< the browser; empty: find_chromium()
};

/// The Chromium (or Chrome) program: $DIFFCOL_CHROMIUM if set, else the first of chromium,
/// chromium-browser, google-chrome, google-chrome-stable on PATH; "" if none.
std::string find_chromium();

/// Draws the page `html_path` (written by write_*html) into the PNG file `png_path` with headless
/// Chromium: --headless, --no-sandbox when run as root, software WebGL (--use-angle=swiftshader
/// --enable-unsafe-swiftshader), --window-size, --virtual-time-budget (three.js draws before the
/// screenshot) and --screenshot. A fresh browser profile in a temporary directory, removed after.
/// The page reports on the browser console (read from the browser's log): an error while loading
/// or drawing, or "drawn" once the first frame is on the canvas.
/// @throws std::invalid_argument for a size outside 16..8192 or a non-positive time;
///         std::runtime_error if the page does not exist, the PNG's directory does not exist, no
///         browser is found (the message says how to install one), the browser fails or times out
///         (the end of its output is in the message), writes no PNG, the page reported an error
///         (the message has it), or the page had not drawn within the virtual time budget.
void render_png(const std::string& html_path, const std::string& png_path, const PngOptions& options = {});

/// A scene and the pairs of one query (scene/scene.hpp) as a mesh page: every shape meshed (its
/// family's surface at `subdivisions`) at its world pose, named "body/shape"; every pair's p1_W
/// with an arrow along normal_W (activity 1), its Euclidean distance (d_D where the pair has no
/// distance) in the panel. Write it with write_mesh_html.
/// @throws std::invalid_argument for an empty scene or pairs that are not of this scene.
MeshScene scene_mesh_view(const scene::Scene& scene, const scene::QueryResult& pairs, int subdivisions = 3);

/// An animation of a scene as a mesh page: every shape meshed as in scene_mesh_view, posed at
/// every frame from `body_poses[frame][body]` (world_from_body, one pose per body of the scene,
/// static bodies included) and the shape's mount. No markers. Write it with write_mesh_html.
/// @throws std::invalid_argument for an empty scene, no frames, or a frame without one finite
///         pose per body.
MeshScene scene_animation(const scene::Scene& scene, const std::vector<std::vector<Pose>>& body_poses,
                          int subdivisions = 3);

/// Version of the bundled three.js package (from its package.json, e.g. "0.187.0").
const char* three_version();

}  // namespace diffcol::view
