// Python binding of include/diffcol/view/view.hpp: diffcol.view(...) writes the self-contained
// HTML viewer page. The viewer library (CMake target diffcol_view) exists only when three.js was
// fetched (bash viewer/setup.sh); without it DIFFCOL_PY_HAVE_VIEWER is not defined, this file
// binds a diffcol.view that raises RuntimeError saying so, and diffcol.has_viewer is False.
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "diffcol/idcol/contact.hpp"

#ifdef DIFFCOL_PY_HAVE_VIEWER
#include "diffcol/view/view.hpp"
#endif

namespace diffcol::python {

namespace {

const char* const kViewDoc = R"doc(Writes the self-contained HTML viewer page of a contact (three.js inlined; opens offline).

The page shows the two shapes, the iDCOL contact between them (witness points p1, p2, the
normal, the touching point x and the shapes scaled by alpha* about their own origins, eq. (8))
and, for a sequence of poses, an animation with a time slider. The contact is solved at every
frame (diffcol.ContactPair: warm-started from the previous frame when options.warm_start).

Args:
  path: the HTML file to write (str or os.PathLike).
  shape1, shape2: the shapes (any iDCOL primitive or Shape).
  X_W1, X_W2: world poses of body 1 and 2: one pose (Pose, [x, y, z, qw, qx, qy, qz] or 4x4),
    held fixed, or a sequence of poses (a list of poses, an (n, 7) or (n, 4, 4) array), one per
    frame. The frame count is the longer sequence; a sequence of length > 1 must match the other
    unless that one is a single pose.
  title: page title and heading (escaped).
  subdivisions: mesh resolution 0..7 (10*4^k + 2 vertices per shape; default 5).
  show_scaled_shapes: initial state of the "scaled shapes (alpha*)" checkbox.
  frame_duration: seconds per frame when playing (> 0).
  autoplay: start playing on load.
  options: diffcol.SolveOptions of the solve at each frame.
Returns:
  The path written (str).
Raises:
  ValueError for invalid poses, mismatched sequence lengths or invalid options;
  OSError if the file cannot be written; RuntimeError if this diffcol was built without the
  viewer (diffcol.has_viewer is False: run 'bash viewer/setup.sh', reconfigure and rebuild).
Frames: poses are world_from_body, meshes in the body frames; the page draws the world frame in
the shapes' length unit.)doc";

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

}  // namespace

void bind_view(py::module_& m) {
#ifdef DIFFCOL_PY_HAVE_VIEWER
  m.attr("has_viewer") = true;
  m.def(
      "view",
      [](const py::object& path, const Shape& s1, const py::object& X1, const Shape& s2, const py::object& X2,
         const std::string& title, int subdivisions, bool show_scaled_shapes, double frame_duration, bool autoplay,
         const idcol::SolveOptions& options) {
        const std::string file = py::str(py::module_::import("os").attr("fspath")(path));
        const std::vector<Pose> poses1 = pose_sequence(X1, "X_W1"), poses2 = pose_sequence(X2, "X_W2");
        check_solve_options(options);
        view::ViewOptions vo;
        vo.title = title;
        vo.mesh_subdivisions = subdivisions;
        vo.show_scaled_shapes = show_scaled_shapes;
        vo.frame_duration = frame_duration;
        vo.autoplay = autoplay;
        vo.solve_options = options;
        try {
          py::gil_scoped_release release;
          view::write_html(file, s1, poses1, s2, poses2, vo);
        } catch (const std::invalid_argument&) {
          throw;
        } catch (const std::runtime_error& e) {  // the file could not be written
          PyErr_SetString(PyExc_OSError, e.what());
          throw py::error_already_set();
        }
        return file;
      },
      py::arg("path"), py::arg("shape1"), py::arg("X_W1"), py::arg("shape2"), py::arg("X_W2"), py::kw_only(),
      py::arg("title") = view::ViewOptions{}.title, py::arg("subdivisions") = view::ViewOptions{}.mesh_subdivisions,
      py::arg("show_scaled_shapes") = view::ViewOptions{}.show_scaled_shapes,
      py::arg("frame_duration") = view::ViewOptions{}.frame_duration,
      py::arg("autoplay") = view::ViewOptions{}.autoplay, py::arg("options") = idcol::SolveOptions{}, kViewDoc);
  m.def("three_version", &view::three_version, "Version of the bundled three.js package (e.g. '0.187.0').");
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
  m.def(
      "three_version", []() -> std::string { return ""; },
      "Version of the bundled three.js package; '' when this diffcol was built without the viewer.");
  (void)&pose_sequence;
#endif
}

}  // namespace diffcol::python
