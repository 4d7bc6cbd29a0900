// Python binding of include/diffcol/view/view.hpp: diffcol.view(...) writes the self-contained
// HTML viewer page. The viewer library (CMake target diffcol_view) exists only when three.js was
// fetched (bash viewer/setup.sh); without it DIFFCOL_PY_HAVE_VIEWER is not defined, this file
// binds a diffcol.view that raises RuntimeError saying so, and diffcol.has_viewer is False.
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "diffcol/scene/scene.hpp"
#include "diffcol/dcol/contact.hpp"
#include "diffcol/dcol/primitives.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/qp/proximity.hpp"
#include "diffcol/qp/shapes.hpp"

#include "arrays.hpp"
#include "diffcol/manifold/manifold.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"

#ifdef DIFFCOL_PY_HAVE_VIEWER
#include "diffcol/view/view.hpp"
#endif

namespace diffcol::python {

namespace bind_view_local {

const char* const kViewDoc = R"doc(Writes the self-contained HTML viewer page of a contact (three.js inlined; opens offline).

The page shows the two shapes, the contact between them (witness points p1, p2, the normal,
the touching point x and, behind a checkbox, the shapes scaled by alpha* about their own
origins), world axes, a ground grid and a scale bar, and, for a sequence of poses, an animation
with a time slider. Three kinds of shapes (both of the same kind):
  * iDCOL shapes (diffcol.Shape or any iDCOL primitive): solved with diffcol.ContactPair
    (warm-started from the previous frame when options.warm_start), eq. (8), (29);
  * DCOL primitives (diffcol.dcol.Polytope, Capsule, Cylinder, Cone, Ellipsoid, PaddedPolygon,
    Sphere): diffcol.dcol.solve_contact at every frame; the poses are body poses (the primitive
    sits at X_WB * offset); the normal is the separating normal of the solve;
  * DiffPills shapes (diffcol.qp.Capsule, diffcol.qp.PaddedPolygon): diffcol.qp.proximity at
    every frame; the markers are the closest points on the padded surfaces (eq. (21)-(22)), the
    arrow the normal; nothing is scaled.

Args:
  path: the HTML file to write (str or os.PathLike).
  shape1, shape2: the shapes (see above).
  X_W1, X_W2: world poses of body 1 and 2: one pose (Pose, [x, y, z, qw, qx, qy, qz] or 4x4),
    held fixed, or a sequence of poses (a list of poses, an (n, 7) or (n, 4, 4) array), one per
    frame. The frame count is the longer sequence; a sequence of length > 1 must match the other
    unless that one is a single pose.
  title: page title and heading (escaped).
  subdivisions: mesh resolution 0..7 (10*4^k + 2 vertices per shape; default 5).
  show_scaled_shapes: initial state of the "scaled shapes (alpha*)" checkbox (default off).
  frame_duration: seconds per frame when playing (> 0).
  autoplay: start playing on load.
  options: settings of the solve at each frame: diffcol.SolveOptions (iDCOL),
    diffcol.dcol.SolveOptions (DCOL) or diffcol.qp.ProximityOptions (DiffPills); None: defaults.
  png: if given, also draw the page (first frame) into this PNG file with headless Chromium
    (see diffcol.render_png).
  width, height: the PNG's size in pixels.
Returns:
  The path written (str).
Raises:
  ValueError for invalid poses, mismatched sequence lengths, shapes of different kinds or
  invalid options; OSError if the file cannot be written; RuntimeError if this diffcol was
  built without the viewer (diffcol.has_viewer is False: run 'bash viewer/setup.sh', reconfigure
  and rebuild), or if png is given and no Chromium is found or it fails.
Frames: poses are world_from_body, meshes in the body frames; the page draws the world frame in
the shapes' length unit.)doc";

const char* const kRenderPngDoc = R"doc(Draws a viewer page into a PNG file with headless Chromium.

Runs the browser with --headless, --no-sandbox (as root), software WebGL (SwiftShader),
--window-size, a virtual time budget (three.js draws before the screenshot) and --screenshot;
the first frame of an animated page is drawn.

Args:
  page: the HTML page (written by diffcol.view, view_manifold or view_rollout).
  png: the PNG file to write.
  width, height: picture size in pixels (16..8192).
  chromium: the browser; None: $DIFFCOL_CHROMIUM, else chromium, chromium-browser,
    google-chrome or google-chrome-stable on PATH.
  timeout: wall-clock limit in seconds.
Returns:
  The PNG path (str).
Raises:
  ValueError for a bad size; RuntimeError if no browser is found (the message says how to
  install one), or it fails, times out or writes no picture.)doc";

const char* const kViewManifoldDoc = R"doc(Writes the HTML viewer page of a Contax contact manifold between two objects (three.js inlined).

The page shows both meshes and the manifold computed at the given poses
(diffcol.manifold.compute_manifold): the K points, and the normals as arrows whose length is
proportional to the activity, points and arrows coloured by activity (blue 0, yellow 0.5, red 1),
as in the Contax seed's Fig. 5. Entries below a minimum activity are hidden (a slider on the page).

Args:
  path: the HTML file to write (str or os.PathLike).
  body1, body2: diffcol.manifold.ContactObject.
  X_W1, X_W2: world poses: one pose each (Pose, 7-vector or 4x4), or sequences ((n, 7),
    (n, 4, 4) or a list of Poses) for an animation (the manifold is computed at every frame).
  options: diffcol.manifold.ManifoldOptions.
  title, frame_duration, autoplay: as in diffcol.view.
  normal_length: arrow length at activity 1 (world units); 0 = 15% of the scene radius.
  min_activity: initial display threshold in [0, 1].
Returns:
  The path written (str).
Raises:
  ValueError for invalid poses, options or lengths; OSError if the file cannot be written;
  RuntimeError without the viewer (diffcol.has_viewer False).)doc";

const char* const kViewRolloutDoc = R"doc(Writes the HTML viewer page of an animated rollout of triangle meshes (three.js inlined).

Args:
  path: the HTML file to write (str or os.PathLike).
  meshes: a list of B diffcol.mesh.TriangleMesh (body frames).
  poses: per-frame world poses, shape (T, B, 7) ([x, y, z, qw, qx, qy, qz]) or (T, B, 4, 4); for a
    single body also (T, 7) or (T, 4, 4). E.g. the state trajectory of a simulation.
  names: optional list of B labels.
  manifolds: optional list of T manifolds (diffcol.manifold.ContactManifold, or any object with
    points (K, 3), normals (K, 3), distances (K,), activities (K,)), drawn as in view_manifold.
  title, frame_duration, autoplay, normal_length, min_activity: as in view_manifold.
Returns:
  The path written (str).
Raises:
  ValueError for bad shapes, non-finite poses or mismatched counts; OSError if the file cannot be
  written; RuntimeError without the viewer.)doc";

// One pose or a sequence of poses (see kViewDoc).
std::vector<Pose> pose_sequence(const py::object& obj, const std::string& what) {
  if (py::isinstance<Pose>(obj)) return {obj.cast<Pose>()};
  if ((py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) && py::len(obj) > 0) {
    bool all_poses = true;
    for (const auto& item : obj) all_poses = all_poses && py::isinstance<Pose>(item);
    if (all_poses) {
      std::vector<Pose> out;
      for (const auto& item : obj) out.push_back(item.cast<Pose>());
      return out;
    }
  }
  reject_complex(obj, what);
  py::array_t<double, py::array::c_style | py::array::forcecast> a;
  try {
    a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(obj);
  } catch (const py::error_already_set&) {
  }
  if (!a) throw std::invalid_argument(what + ": expected a pose or a sequence of poses");
  if ((a.ndim() == 1 && a.shape(0) == 7) || (a.ndim() == 2 && a.shape(0) == 4 && a.shape(1) == 4))
    return {pose_from_object(obj, what)};
  long count = 0;
  int layout = 0;
  if (a.ndim() == 2 && a.shape(1) == 7) {
    count = static_cast<long>(a.shape(0));
    layout = 7;
  } else if (a.ndim() == 3 && a.shape(1) == 4 && a.shape(2) == 4) {
    count = static_cast<long>(a.shape(0));
    layout = 16;
  } else {
    throw std::invalid_argument(what + ": expected a pose ((7,) or (4, 4)) or a sequence of poses ((n, 7) or (n, 4, 4))");
  }
  if (count == 0) throw std::invalid_argument(what + ": the pose sequence is empty");
  std::vector<Pose> out(static_cast<size_t>(count));
  poses_from_buffer(a.data(), count, layout, what, out.data());
  return out;
}

#ifdef DIFFCOL_PY_HAVE_VIEWER
// A DCOL primitive, if obj is one.
std::optional<dcol::Primitive> dcol_primitive(const py::handle& obj) {
  if (py::isinstance<dcol::Polytope>(obj)) return obj.cast<dcol::Polytope>();
  if (py::isinstance<dcol::Capsule>(obj)) return obj.cast<dcol::Capsule>();
  if (py::isinstance<dcol::Cylinder>(obj)) return obj.cast<dcol::Cylinder>();
  if (py::isinstance<dcol::Cone>(obj)) return obj.cast<dcol::Cone>();
  if (py::isinstance<dcol::Ellipsoid>(obj)) return obj.cast<dcol::Ellipsoid>();
  if (py::isinstance<dcol::PaddedPolygon>(obj)) return obj.cast<dcol::PaddedPolygon>();
  if (py::isinstance<dcol::Sphere>(obj)) return obj.cast<dcol::Sphere>();
  return std::nullopt;
}

// A DiffPills shape, if obj is one.
std::optional<view::QpShape> qp_shape(const py::handle& obj) {
  if (py::isinstance<qp::Capsule>(obj)) return obj.cast<qp::Capsule>();
  if (py::isinstance<qp::PaddedPolygon>(obj)) return obj.cast<qp::PaddedPolygon>();
  return std::nullopt;
}

// The options object of the kind's solve (None: the defaults).
template <class T>
T options_of(const py::object& options, const char* expected) {
  if (options.is_none()) return T{};
  if (!py::isinstance<T>(options))
    throw std::invalid_argument(std::string("options: expected ") + expected + " or None for these shapes");
  return options.cast<T>();
}

std::string write_page(const std::string& file, const std::function<void()>& write) {
  try {
    py::gil_scoped_release release;
    write();
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::runtime_error& e) {  // the file could not be written
    PyErr_SetString(PyExc_OSError, e.what());
    throw py::error_already_set();
  }
  return file;
}

std::string draw_png(const py::object& page, const py::object& png, int width, int height,
                     const std::optional<std::string>& chromium, double timeout) {
  const py::object fspath = py::module_::import("os").attr("fspath");
  const std::string page_file = py::str(fspath(page)), png_file = py::str(fspath(png));
  view::PngOptions po;
  po.width = width;
  po.height = height;
  po.timeout_s = timeout;
  if (chromium) po.chromium = *chromium;
  {
    py::gil_scoped_release release;
    view::render_png(page_file, png_file, po);
  }
  return png_file;
}

// The markers of one frame from an object with points, normals, distances, activities.
view::ManifoldMarkers markers_from(const py::handle& obj, size_t frame) {
  const std::string what = "manifolds[" + std::to_string(frame) + "]";
  view::ManifoldMarkers m;
  for (const char* attr : {"points", "normals", "distances", "activities"})
    if (!py::hasattr(obj, attr)) throw std::invalid_argument(what + ": has no attribute '" + attr + "'");
  m.points = points_from(obj.attr("points"), what + ".points");
  m.normals = points_from(obj.attr("normals"), what + ".normals");
  m.distances = vector_from(obj.attr("distances"), what + ".distances", false, true);
  m.activities = vector_from(obj.attr("activities"), what + ".activities", false, true);
  return m;
}

// poses (T, B, 7) / (T, B, 4, 4) / (T, 7) / (T, 4, 4) / one pose -> poses[frame][body].
std::vector<std::vector<Pose>> rollout_poses(const py::object& obj, size_t bodies) {
  const DoubleArray a = as_double_array(obj, "poses");
  long T = 0, B = 0;
  int layout = 0;
  if (a.ndim() == 3 && a.shape(2) == 7) {
    T = a.shape(0), B = a.shape(1), layout = 7;
  } else if (a.ndim() == 4 && a.shape(2) == 4 && a.shape(3) == 4) {
    T = a.shape(0), B = a.shape(1), layout = 16;
  } else if (bodies == 1 && a.ndim() == 2 && a.shape(1) == 7) {
    T = a.shape(0), B = 1, layout = 7;
  } else if (bodies == 1 && a.ndim() == 3 && a.shape(1) == 4 && a.shape(2) == 4) {
    T = a.shape(0), B = 1, layout = 16;
  } else {
    throw std::invalid_argument("poses: expected shape (T, B, 7) or (T, B, 4, 4) (one body: also (T, 7) or (T, 4, 4))");
  }
  if (T < 1) throw std::invalid_argument("poses: no frames");
  if (static_cast<size_t>(B) != bodies)
    throw std::invalid_argument("poses: " + std::to_string(B) + " poses per frame for " + std::to_string(bodies) + " meshes");
  std::vector<Pose> flat(static_cast<size_t>(T * B));
  poses_from_buffer(a.data(), T * B, layout, "poses", flat.data());
  std::vector<std::vector<Pose>> out(static_cast<size_t>(T));
  for (long t = 0; t < T; ++t) out[static_cast<size_t>(t)].assign(flat.begin() + t * B, flat.begin() + (t + 1) * B);
  return out;
}

std::string write_mesh_page(const py::object& path, const view::MeshScene& scene, const view::ViewOptions& vo) {
  const std::string file = py::str(py::module_::import("os").attr("fspath")(path));
  try {
    py::gil_scoped_release release;
    view::write_mesh_html(file, scene, vo);
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::runtime_error& e) {
    PyErr_SetString(PyExc_OSError, e.what());
    throw py::error_already_set();
  }
  return file;
}

view::ViewOptions mesh_view_options(const std::string& title, double frame_duration, bool autoplay, double normal_length,
                                    double min_activity) {
  view::ViewOptions vo;
  vo.title = title;
  vo.frame_duration = frame_duration;
  vo.autoplay = autoplay;
  vo.normal_length = normal_length;
  vo.min_activity = min_activity;
  return vo;
}
#endif

}  // namespace bind_view_local

void bind_view(py::module_& m) {
  using namespace bind_view_local;
#ifdef DIFFCOL_PY_HAVE_VIEWER
  m.attr("has_viewer") = true;
  m.def(
      "view",
      [](const py::object& path, const py::object& s1, const py::object& X1, const py::object& s2, const py::object& X2,
         const std::string& title, int subdivisions, bool show_scaled_shapes, double frame_duration, bool autoplay,
         const py::object& options, const py::object& png, int width, int height) {
        const std::string file = py::str(py::module_::import("os").attr("fspath")(path));
        const std::vector<Pose> poses1 = pose_sequence(X1, "X_W1"), poses2 = pose_sequence(X2, "X_W2");
        view::ViewOptions vo;
        vo.title = title;
        vo.mesh_subdivisions = subdivisions;
        vo.show_scaled_shapes = show_scaled_shapes;
        vo.frame_duration = frame_duration;
        vo.autoplay = autoplay;
        const auto d1 = dcol_primitive(s1), d2 = dcol_primitive(s2);
        const auto q1 = qp_shape(s1), q2 = qp_shape(s2);
        if (d1 || d2 || q1 || q2) {
          if (!((d1 && d2) || (q1 && q2)))
            throw std::invalid_argument(
                "view: shape1 and shape2 must be of the same kind (both iDCOL shapes, both diffcol.dcol primitives "
                "or both diffcol.qp shapes)");
        }
        if (d1) {
          vo.dcol_options = options_of<dcol::SolveOptions>(options, "diffcol.dcol.SolveOptions");
          write_page(file, [&] { view::write_dcol_html(file, *d1, poses1, *d2, poses2, vo); });
        } else if (q1) {
          vo.qp_options = options_of<qp::ProximityOptions>(options, "diffcol.qp.ProximityOptions");
          write_page(file, [&] { view::write_qp_html(file, *q1, poses1, *q2, poses2, vo); });
        } else {
          std::optional<Shape> a, b;
          try {
            a.emplace(s1.cast<Shape>());
            b.emplace(s2.cast<Shape>());
          } catch (const py::cast_error&) {
            throw std::invalid_argument(
                "view: shape1 and shape2 must be iDCOL shapes (diffcol.Shape or a primitive), diffcol.dcol "
                "primitives or diffcol.qp shapes");
          }
          vo.solve_options = options_of<idcol::SolveOptions>(options, "diffcol.SolveOptions");
          check_solve_options(vo.solve_options);
          write_page(file, [&] { view::write_html(file, *a, poses1, *b, poses2, vo); });
        }
        if (!png.is_none()) draw_png(py::str(file), png, width, height, std::nullopt, 120.0);
        return file;
      },
      py::arg("path"), py::arg("shape1"), py::arg("X_W1"), py::arg("shape2"), py::arg("X_W2"), py::kw_only(),
      py::arg("title") = view::ViewOptions{}.title, py::arg("subdivisions") = view::ViewOptions{}.mesh_subdivisions,
      py::arg("show_scaled_shapes") = view::ViewOptions{}.show_scaled_shapes,
      py::arg("frame_duration") = view::ViewOptions{}.frame_duration,
      py::arg("autoplay") = view::ViewOptions{}.autoplay, py::arg("options") = py::none(),
      py::arg("png") = py::none(), py::arg("width") = view::PngOptions{}.width,
      py::arg("height") = view::PngOptions{}.height, kViewDoc);
  m.def("render_png", &draw_png, py::arg("page"), py::arg("png"), py::kw_only(),
        py::arg("width") = view::PngOptions{}.width, py::arg("height") = view::PngOptions{}.height,
        py::arg("chromium") = py::none(), py::arg("timeout") = view::PngOptions{}.timeout_s, kRenderPngDoc);
  m.def("find_chromium", &view::find_chromium,
        "The browser diffcol.render_png uses: $DIFFCOL_CHROMIUM, else chromium, chromium-browser, google-chrome or "
        "google-chrome-stable on PATH; '' if none.");
  // A constant of the build: an attribute (a str), like has_viewer.
  m.attr("three_version") = view::three_version();
  m.def(
      "view_manifold",
      [](const py::object& path, const manifold::ContactObject& b1, const py::object& X1, const manifold::ContactObject& b2,
         const py::object& X2, const manifold::ManifoldOptions& options, const std::string& title, double frame_duration,
         bool autoplay, double normal_length, double min_activity) {
        const std::vector<Pose> poses1 = pose_sequence(X1, "X_W1"), poses2 = pose_sequence(X2, "X_W2");
        const view::ViewOptions vo = mesh_view_options(title, frame_duration, autoplay, normal_length, min_activity);
        view::MeshScene scene;
        {
          py::gil_scoped_release release;
          scene = view::manifold_scene(b1, poses1, b2, poses2, options);
        }
        return write_mesh_page(path, scene, vo);
      },
      py::arg("path"), py::arg("body1"), py::arg("X_W1"), py::arg("body2"), py::arg("X_W2"),
      py::arg("options") = manifold::ManifoldOptions{}, py::kw_only(), py::arg("title") = "diffcol manifold",
      py::arg("frame_duration") = view::ViewOptions{}.frame_duration, py::arg("autoplay") = false,
      py::arg("normal_length") = 0.0, py::arg("min_activity") = view::ViewOptions{}.min_activity, kViewManifoldDoc);
  m.def(
      "view_rollout",
      [](const py::object& path, const std::vector<mesh::TriangleMesh>& meshes, const py::object& poses,
         const std::optional<std::vector<std::string>>& names, const py::object& manifolds, const std::string& title,
         double frame_duration, bool autoplay, double normal_length, double min_activity) {
        view::MeshScene scene;
        scene.meshes = meshes;
        if (meshes.empty()) throw std::invalid_argument("meshes: at least one mesh is needed");
        scene.poses = rollout_poses(poses, meshes.size());
        if (names) scene.names = *names;
        if (!manifolds.is_none()) {
          size_t f = 0;
          for (const auto& item : manifolds) scene.manifolds.push_back(markers_from(item, f++));
        }
        return write_mesh_page(path, scene, mesh_view_options(title, frame_duration, autoplay, normal_length, min_activity));
      },
      py::arg("path"), py::arg("meshes"), py::arg("poses"), py::kw_only(), py::arg("names") = py::none(),
      py::arg("manifolds") = py::none(), py::arg("title") = "diffcol rollout",
      py::arg("frame_duration") = view::ViewOptions{}.frame_duration, py::arg("autoplay") = false,
      py::arg("normal_length") = 0.0, py::arg("min_activity") = view::ViewOptions{}.min_activity, kViewRolloutDoc);
  m.def(
      "view_scene",
      [](const py::object& path, scene::Scene& s, const py::object& result, double margin, int subdivisions,
         const std::string& title) {
        scene::QueryResult r;
        if (result.is_none()) {
          scene::QueryOptions o;
          o.margin = margin;
          s.query(o, r);
        } else {
          r = result.cast<scene::QueryResult>();
        }
        view::MeshScene page = view::scene_mesh_view(s, r, subdivisions);
        return write_mesh_page(path, page, mesh_view_options(title, view::ViewOptions{}.frame_duration, false, 0.0, 0.0));
      },
      py::arg("path"), py::arg("scene"), py::arg("pairs") = py::none(), py::kw_only(), py::arg("margin") = 0.0,
      py::arg("subdivisions") = 3, py::arg("title") = "diffcol scene",
      "Writes a page of a Scene: every shape at its pose, every pair's point p1_W and normal (the pairs of "
      "`pairs`, a SceneQueryResult, or of scene.query(margin=margin)). Returns the path.");
#else
  m.attr("has_viewer") = false;
  m.def(
      "view",
      [](const py::args&, const py::kwargs&) -> std::string {
        throw std::runtime_error(
            "diffcol.view: this diffcol was built without the HTML viewer (three.js not found in "
            "viewer/node_modules); run 'bash viewer/setup.sh', reconfigure and rebuild");
      },
      kViewDoc);
  m.attr("three_version") = "";  // the bundled three.js version (a str); '' without the viewer
  for (const char* name : {"view_manifold", "view_rollout", "view_scene", "render_png", "find_chromium"}) {
    m.def(
        name,
        [name](const py::args&, const py::kwargs&) -> std::string {
          throw std::runtime_error(std::string("diffcol.") + name +
                                   ": this diffcol was built without the HTML viewer (three.js not found in "
                                   "viewer/node_modules); run 'bash viewer/setup.sh', reconfigure and rebuild");
        },
        std::string(name) == "view_manifold" ? kViewManifoldDoc
        : std::string(name) == "view_rollout" ? kViewRolloutDoc
        : std::string(name) == "render_png"   ? kRenderPngDoc
                                              : "The browser diffcol.render_png uses (needs the viewer).");
  }
  (void)&pose_sequence;
#endif
}

}  // namespace diffcol::python
