// Python bindings of include/diffcol/mesh/triangle_mesh.hpp as the submodule diffcol.mesh: closed
// triangle meshes (validated), OBJ/STL loading, generators and the exact point-in-mesh / distance
// references.
#include <stdexcept>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "diffcol/mesh/triangle_mesh.hpp"

namespace diffcol::python {

namespace bind_mesh_local {

using mesh::TriangleMesh;

std::vector<mesh::Face> faces_from(const py::handle& obj) {
  reject_complex(obj, "faces");
  py::array_t<long long, py::array::c_style | py::array::forcecast> a;
  try {
    a = py::array_t<long long, py::array::c_style | py::array::forcecast>::ensure(obj);
  } catch (const py::error_already_set&) {
  }
  if (!a) throw std::invalid_argument("faces: expected an (m, 3) array of vertex indices");
  if (a.ndim() != 2 || a.shape(1) != 3) throw std::invalid_argument("faces: expected shape (m, 3)");
  std::vector<mesh::Face> faces(static_cast<size_t>(a.shape(0)));
  for (size_t f = 0; f < faces.size(); ++f)
    for (int k = 0; k < 3; ++k) {
      const long long i = a.data()[3 * f + k];
      if (i < -2147483647LL || i > 2147483647LL)
        throw std::invalid_argument("faces: face " + std::to_string(f) + " has an out-of-range index");
      faces[f][k] = static_cast<int>(i);
    }
  return faces;
}

void check_face(const TriangleMesh& m, int f) {
  if (f < 0 || f >= m.num_faces())
    throw std::invalid_argument("face index " + std::to_string(f) + " out of range [0, " +
                                std::to_string(m.num_faces()) + ")");
}

// f(mesh, p) over one point (3,) -> scalar or many (n, 3) -> (n,).
template <class R, class F>
py::object map_points(const TriangleMesh& m, const py::handle& points, F&& f) {
  bool single = false;
  const std::vector<Vec3> p = points_from(points, "p", true, &single);
  if (single) return py::cast(f(m, p[0]));
  py::array_t<R> out(static_cast<py::ssize_t>(p.size()));
  R* d = out.mutable_data();
  {
    py::gil_scoped_release release;
    for (size_t i = 0; i < p.size(); ++i) d[i] = f(m, p[i]);
  }
  return out;
}

}  // namespace bind_mesh_local

void bind_mesh(py::module_& parent) {
  using namespace bind_mesh_local;
  py::module_ m = parent.def_submodule("mesh", R"(Closed triangle meshes (C++ include/diffcol/mesh/triangle_mesh.hpp).

TriangleMesh (validated closed, consistently outward-oriented 2-manifold), load_mesh (OBJ / STL),
generators make_box, make_icosphere, make_t_shape, and the exact references winding_number,
contains, distance_to_surface, signed_distance.

Frame: every coordinate is in the mesh's own (body) frame, in the file's unit (metres for the
generators). Faces (a, b, c) are counter-clockwise seen from outside: (b - a) x (c - a) points
outward. Invalid meshes raise ValueError with the C++ message naming the face / edge / vertex.)");

  py::class_<TriangleMesh>(m, "TriangleMesh", R"(A validated closed triangle mesh (body frame).

TriangleMesh(vertices, faces): vertices (n, 3) floats, faces (m, 3) ints, counter-clockwise seen
from outside. Raises ValueError unless the mesh has >= 4 vertices and faces, finite vertices, valid
indices, no degenerate face, is a closed 2-manifold with consistent orientation (every directed
edge once, its reverse once, one fan per vertex, no unused vertex) and a positive signed volume.)")
      .def(py::init([](const py::object& vertices, const py::object& faces) {
             return TriangleMesh(points_from(vertices, "vertices"), faces_from(faces));
           }),
           py::arg("vertices"), py::arg("faces"))
      .def_property_readonly("vertices", [](const TriangleMesh& t) { return points_to_array(t.vertices()); },
                             "(n, 3) vertex positions, body frame (a copy).")
      .def_property_readonly("faces", [](const TriangleMesh& t) { return index_rows_to_array(t.faces()); },
                             "(m, 3) int32 vertex indices, counter-clockwise seen from outside (a copy).")
      .def_property_readonly("edges", [](const TriangleMesh& t) { return index_rows_to_array(t.edges()); },
                             "(e, 2) int32 undirected edges (first < second), sorted; each has two faces.")
      .def_property_readonly("num_vertices", &TriangleMesh::num_vertices, "Number of vertices.")
      .def_property_readonly("num_faces", &TriangleMesh::num_faces, "Number of faces.")
      .def(
          "face_normal",
          [](const TriangleMesh& t, int f) {
            check_face(t, f);
            return Vec3(t.face_normal(f));
          },
          py::arg("f"), "Unit outward normal (3,) of face f (body frame).")
      .def(
          "face_area",
          [](const TriangleMesh& t, int f) {
            check_face(t, f);
            return t.face_area(f);
          },
          py::arg("f"), "Area of face f.")
      .def(
          "vertex_normals", [](const TriangleMesh& t) { return points_to_array(t.vertex_normals()); },
          "(n, 3) area-weighted averages of the incident face normals, normalized.")
      .def("area", &TriangleMesh::area, "Total surface area.")
      .def("volume", &TriangleMesh::volume, "Enclosed volume (positive).")
      .def("volume_centroid", &TriangleMesh::volume_centroid, "Centroid (3,) of the solid (uniform density).")
      .def(
          "bounding_box",
          [](const TriangleMesh& t) {
            const auto bb = t.bounding_box();
            return points_to_array({bb[0], bb[1]});
          },
          "(2, 3): the axis-aligned bounding box's [min, max] corners.")
      .def("__repr__", [](const TriangleMesh& t) {
        return "<diffcol.mesh.TriangleMesh " + std::to_string(t.num_vertices()) + " vertices, " +
               std::to_string(t.num_faces()) + " faces>";
      });

  m.def(
      "load_mesh", [](const py::object& path) { return mesh::load_mesh(py::str(py::module_::import("os").attr("fspath")(path))); },
      py::arg("path"), R"(Loads a mesh by extension (case-insensitive): '.obj' (tinyobjloader; polygons triangulated as
fans, identical positions welded) or '.stl' (binary or ASCII; file normals ignored; identical
vertices welded). Faces with a repeated index after welding are dropped.
Raises ValueError if the file cannot be read or parsed, has an unknown extension, or is not a
valid closed mesh.)");
  m.def(
      "make_box", [](const py::object& size) { return mesh::make_box(vec3_from(size, "size", false)); },
      py::arg("size"), "A box centred at the origin with edge lengths size = (x, y, z); 8 vertices, 12 faces. ValueError on non-positive sizes.");
  m.def("make_icosphere", &mesh::make_icosphere, py::arg("radius"), py::arg("subdivisions"),
        "A sphere of the radius centred at the origin: an icosahedron subdivided `subdivisions` times (20*4^s faces,\n"
        "vertices on the sphere). ValueError on radius <= 0 or subdivisions outside [0, 7].");

  py::class_<mesh::TShapeDimensions>(m, "TShapeDimensions", "Dimensions (metres) of the planar-pushing T shape (SSDF seed Sec. IV-C).")
      .def(py::init([](double bar_length, double bar_width, double stem_width, double stem_length, double thickness) {
             return mesh::TShapeDimensions{bar_length, bar_width, stem_width, stem_length, thickness};
           }),
           py::arg("bar_length") = 0.25, py::arg("bar_width") = 0.05, py::arg("stem_width") = 0.05,
           py::arg("stem_length") = 0.15, py::arg("thickness") = 0.05)
      .def_readwrite("bar_length", &mesh::TShapeDimensions::bar_length, "x extent of the top bar (= bounding-box width)")
      .def_readwrite("bar_width", &mesh::TShapeDimensions::bar_width, "y extent of the top bar")
      .def_readwrite("stem_width", &mesh::TShapeDimensions::stem_width, "x extent of the stem")
      .def_readwrite("stem_length", &mesh::TShapeDimensions::stem_length, "y extent of the stem")
      .def_readwrite("thickness", &mesh::TShapeDimensions::thickness, "z extent (extrusion)");
  m.def("make_t_shape", &mesh::make_t_shape, py::arg("dims") = mesh::TShapeDimensions{},
        "The T shape (bar on top of a stem, extruded along z), origin at the solid's centroid; default bounding box\n"
        "0.25 x 0.20 x 0.05 m. ValueError on non-positive sizes or stem_width >= bar_length.");

  m.def(
      "winding_number",
      [](const TriangleMesh& t, const py::object& p) {
        return map_points<double>(t, p, [](const TriangleMesh& mm, const Vec3& q) { return mesh::winding_number(mm, q); });
      },
      py::arg("mesh"), py::arg("p"),
      "Generalized winding number of the closed mesh around p: ~1 inside, ~0 outside. p (3,) -> float, (n, 3) -> (n,).");
  m.def(
      "contains",
      [](const TriangleMesh& t, const py::object& p) {
        return map_points<bool>(t, p, [](const TriangleMesh& mm, const Vec3& q) { return mesh::contains(mm, q); });
      },
      py::arg("mesh"), py::arg("p"),
      "Exact point-in-mesh test (winding number > 0.5). p (3,) -> bool, (n, 3) -> (n,) bool. Body frame.");
  m.def(
      "signed_distance",
      [](const TriangleMesh& t, const py::object& p) {
        return map_points<double>(t, p, [](const TriangleMesh& mm, const Vec3& q) { return mesh::signed_distance(mm, q); });
      },
      py::arg("mesh"), py::arg("p"),
      "Exact signed distance (brute force over the faces): -distance inside, +distance outside.\n"
      "p (3,) -> float, (n, 3) -> (n,). Body frame.");
  m.def(
      "distance_to_surface",
      [](const TriangleMesh& t, const py::object& p) {
        const Vec3 q = vec3_from(p, "p");
        Vec3 closest;
        const double d = mesh::distance_to_surface(t, q, &closest);
        return py::make_tuple(d, closest);
      },
      py::arg("mesh"), py::arg("p"),
      "Unsigned distance from p (3,) to the surface and the closest surface point: (distance, closest (3,)).");
  m.def(
      "closest_point_on_triangle",
      [](const py::object& p, const py::object& a, const py::object& b, const py::object& c) {
        return Vec3(mesh::closest_point_on_triangle(vec3_from(p, "p"), vec3_from(a, "a"), vec3_from(b, "b"),
                                                    vec3_from(c, "c")));
      },
      py::arg("p"), py::arg("a"), py::arg("b"), py::arg("c"), "The closest point (3,) of triangle (a, b, c) to p (exact).");
}

}  // namespace diffcol::python
