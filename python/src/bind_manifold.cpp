// Python bindings of include/diffcol/manifold/{sdf,surface_mesh,manifold}.hpp as the submodule
// diffcol.manifold: smooth SDF primitives and objects, iso-surface meshes, contact objects and the
// Contax contact manifold with its pose derivatives (numpy arrays, names as in C++).
#include <cmath>
#include <array>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "diffcol/manifold/batch.hpp"
#include "diffcol/manifold/figures.hpp"
#include "diffcol/manifold/manifold.hpp"
#include "diffcol/manifold/sdf.hpp"
#include "diffcol/manifold/surface_mesh.hpp"

namespace diffcol::python {

namespace bind_manifold_local {

using namespace diffcol::manifold;

/// The normal regularization τ of a primitive's evaluate: finite and ≥ 0.
double checked_tau(double tau) {
  if (!(tau >= 0.0) || !std::isfinite(tau)) throw std::invalid_argument("tau must be finite and >= 0");
  return tau;
}

/// An object with at least one added primitive (the SDF of an empty union is +inf in C++).
const SdfObject& nonempty(const SdfObject& s) {
  if (s.num_added() == 0) throw std::invalid_argument("SdfObject: no added primitive (add one first)");
  return s;
}

/// The manifold as arrays (K entries, same order as the C++ ContactManifold::entries).
struct ManifoldArrays {
  py::array_t<double> points, distances, normals, activities;
  py::array_t<std::uint8_t> kinds;
  py::array_t<int> bodies, sources, other_sources;
  std::array<int, 2> num_vertex_sdf{0, 0}, num_edges{0, 0};
};

/// The derivative blocks as arrays (K leading axis).
struct DerivativeArrays {
  py::array_t<double> J_point_X12, J_normal_X12, J_distance_X12, J_activity_X12;
  PoseCoordinates coordinates = PoseCoordinates::world;
};

ManifoldArrays to_arrays(const ContactManifold& mf) {
  const auto K = static_cast<py::ssize_t>(mf.entries.size());
  ManifoldArrays out;
  out.points = py::array_t<double>({K, py::ssize_t(3)});
  out.normals = py::array_t<double>({K, py::ssize_t(3)});
  out.distances = py::array_t<double>(K);
  out.activities = py::array_t<double>(K);
  out.kinds = py::array_t<std::uint8_t>(K);
  out.bodies = py::array_t<int>(K);
  out.sources = py::array_t<int>(K);
  out.other_sources = py::array_t<int>(K);
  double *p = out.points.mutable_data(), *n = out.normals.mutable_data();
  for (py::ssize_t i = 0; i < K; ++i) {
    const ManifoldEntry& e = mf.entries[static_cast<size_t>(i)];
    for (int k = 0; k < 3; ++k) {
      p[3 * i + k] = e.point[k];
      n[3 * i + k] = e.normal[k];
    }
    out.distances.mutable_data()[i] = e.distance;
    out.activities.mutable_data()[i] = e.activity;
    out.kinds.mutable_data()[i] = static_cast<std::uint8_t>(e.kind);
    out.bodies.mutable_data()[i] = e.body;
    out.sources.mutable_data()[i] = e.source;
    out.other_sources.mutable_data()[i] = e.other_source;
  }
  out.num_vertex_sdf = {mf.num_vertex_sdf[0], mf.num_vertex_sdf[1]};
  out.num_edges = {mf.num_edges[0], mf.num_edges[1]};
  return out;
}

template <int R>
py::array_t<double> stack(const std::vector<Eigen::Matrix<double, R, 12>>& blocks) {
  const auto K = static_cast<py::ssize_t>(blocks.size());
  py::array_t<double> a = R == 1 ? py::array_t<double>({K, py::ssize_t(12)}) : py::array_t<double>({K, py::ssize_t(R), py::ssize_t(12)});
  double* d = a.mutable_data();
  for (py::ssize_t i = 0; i < K; ++i)
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < 12; ++c) d[(i * R + r) * 12 + c] = blocks[static_cast<size_t>(i)](r, c);
  return a;
}

const char* const kManifoldConventionsDoc = R"(
Frames: meshes and SDFs are in their body frames; poses X_W1, X_W2 are world_from_body (a Pose,
[x, y, z, qw, qx, qy, qz] or 4x4); points and normals are in the world frame.
Entry layout (K = |V_1| + |V_2| + 2 |E_1| |E_2|): first the V-S contacts of body 1's selected
vertices against body 2's SDF, then body 2's against body 1's, then for each pair of selected
edges (k, l) (row-major) the E-E witness on body 1's edge, then the one on body 2's edge.
Each entry: point, distance (< 0 penetration), unit normal out of the *other* body, activity in
[0, 1] (V-S eq. (12), E-E eq. (16)); kinds 0 = vertex_sdf, 1 = edge_edge; bodies 0/1 = the body
the point belongs to; sources the vertex / edge index, other_sources the other edge (E-E).)";

/// ManifoldBatch::compute's outputs with the leading (N,) axis.
struct BatchArrays {
  py::array_t<double> points, distances, normals, activities;
  py::object J_point_X12, J_normal_X12, J_distance_X12, J_activity_X12;
};

// Poses (N, 7) / (N, 4, 4) / one pose.
std::vector<Pose> batch_poses(const py::object& obj, const std::string& what) {
  if (py::isinstance<Pose>(obj)) return {obj.cast<Pose>()};
  const DoubleArray a = as_double_array(obj, what);
  if ((a.ndim() == 1 && a.shape(0) == 7) || (a.ndim() == 2 && a.shape(0) == 4 && a.shape(1) == 4))
    return {pose_from_object(obj, what)};
  long n = 0;
  int layout = 0;
  if (a.ndim() == 2 && a.shape(1) == 7) n = a.shape(0), layout = 7;
  else if (a.ndim() == 3 && a.shape(1) == 4 && a.shape(2) == 4) n = a.shape(0), layout = 16;
  else throw std::invalid_argument(what + ": expected a pose, (N, 7) or (N, 4, 4)");
  std::vector<Pose> out(static_cast<size_t>(n));
  poses_from_buffer(a.data(), n, layout, what, out.data());
  return out;
}

/// Object poses of S scene configurations: (S, M, 7) / (S, M, 4, 4), or one configuration (M, 7) /
/// (M, 4, 4); returns S·M poses [s][m].
std::vector<Pose> scene_poses(const py::object& obj, int M, const std::string& what) {
  const DoubleArray a = as_double_array(obj, what);
  long S = 0;
  int layout = 0;
  if (a.ndim() == 2 && a.shape(0) == M && a.shape(1) == 7) S = 1, layout = 7;
  else if (a.ndim() == 3 && a.shape(0) == M && a.shape(1) == 4 && a.shape(2) == 4) S = 1, layout = 16;
  else if (a.ndim() == 3 && a.shape(1) == M && a.shape(2) == 7) S = a.shape(0), layout = 7;
  else if (a.ndim() == 4 && a.shape(1) == M && a.shape(2) == 4 && a.shape(3) == 4) S = a.shape(0), layout = 16;
  else
    throw std::invalid_argument(what + ": expected (S, " + std::to_string(M) + ", 7), (S, " + std::to_string(M) +
                                ", 4, 4) or one configuration (" + std::to_string(M) + ", 7)");
  std::vector<Pose> out(static_cast<size_t>(S * M));
  poses_from_buffer(a.data(), S * M, layout, what, out.data());
  return out;
}

ManifoldBatchOptions batch_options(const ManifoldOptions& options, int num_threads, long grain,
                                   PoseCoordinates coordinates) {
  ManifoldBatchOptions o;
  o.num_threads = num_threads;
  o.grain = grain;
  o.manifold = options;
  o.coordinates = coordinates;
  return o;
}

std::span<double> span_of(py::array_t<double>& a) { return {a.mutable_data(), static_cast<size_t>(a.size())}; }

/// Runs f(pool) without the GIL, over a pool of num_threads (0 = all cores; 1: pool = nullptr,
/// the calling thread only).
template <class F>
void with_pool(int num_threads, F&& f) {
  py::gil_scoped_release release;
  std::unique_ptr<batch::ThreadPool> pool;
  if (num_threads != 1) pool = std::make_unique<batch::ThreadPool>(num_threads);
  f(pool.get());
}

/// Result arrays of N manifolds of K entries and the output spans over them.
struct BatchBuffers {
  BatchArrays r;
  py::array_t<double> jp, jn, jd, ja;
  ManifoldBatchOutput out;
  bool derivatives = false;

  BatchBuffers(py::ssize_t N, py::ssize_t K, bool with_derivatives) : derivatives(with_derivatives) {
    r.points = py::array_t<double>({N, K, py::ssize_t(3)});
    r.normals = py::array_t<double>({N, K, py::ssize_t(3)});
    r.distances = py::array_t<double>({N, K});
    r.activities = py::array_t<double>({N, K});
    out = ManifoldBatchOutput{span_of(r.points), span_of(r.distances), span_of(r.normals), span_of(r.activities), {}, {}, {}, {}};
    if (!derivatives) return;
    jp = py::array_t<double>({N, K, py::ssize_t(3), py::ssize_t(12)});
    jn = py::array_t<double>({N, K, py::ssize_t(3), py::ssize_t(12)});
    jd = py::array_t<double>({N, K, py::ssize_t(12)});
    ja = py::array_t<double>({N, K, py::ssize_t(12)});
    out.J_point = span_of(jp);
    out.J_normal = span_of(jn);
    out.J_distance = span_of(jd);
    out.J_activity = span_of(ja);
  }
  BatchArrays result() {
    r.J_point_X12 = derivatives ? py::object(jp) : py::none();
    r.J_normal_X12 = derivatives ? py::object(jn) : py::none();
    r.J_distance_X12 = derivatives ? py::object(jd) : py::none();
    r.J_activity_X12 = derivatives ? py::object(ja) : py::none();
    return r;
  }
};

/// ends (N, 4, 3) or (N, 12) as N·12 doubles.
std::vector<double> witness_ends(const py::object& obj, const std::string& what) {
  const DoubleArray a = as_double_array(obj, what);
  const bool ok = (a.ndim() == 3 && a.shape(1) == 4 && a.shape(2) == 3) || (a.ndim() == 2 && a.shape(1) == 12);
  if (!ok) throw std::invalid_argument(what + ": expected (N, 4, 3) or (N, 12)");
  // the C++ batch does not check (a hot loop) and a non-finite row gives unspecified values
  require_coordinates(a.data(), a.size(), what);
  return std::vector<double>(a.data(), a.data() + a.size());
}

ManifoldArrays run_manifold(const ContactObject& b1, const py::object& X1, const ContactObject& b2, const py::object& X2,
                            const ManifoldOptions& options) {
  const Pose P1 = X1.is_none() ? b1.pose() : pose_from_object(X1, "X_W1");
  const Pose P2 = X2.is_none() ? b2.pose() : pose_from_object(X2, "X_W2");
  ManifoldWorkspace ws;
  ContactManifold mf;
  {
    py::gil_scoped_release release;
    compute_manifold(b1, P1, b2, P2, options, ws, mf);
  }
  return to_arrays(mf);
}

}  // namespace bind_manifold_local

void bind_manifold(py::module_& parent) {
  using namespace bind_manifold_local;
  py::module_ m = parent.def_submodule("manifold", R"(Contax contact manifolds between meshes (C++ include/diffcol/manifold).

SDF primitives (Superquadric eq. (1)-(3), ConvexPolyhedron (4)-(5), OrientedPointCloud (6)) and
objects (SdfObject: smooth union / subtraction), iso-surface meshes (mesh_from_sdf,
make_refined_box, make_box_sdf), ContactObject (mesh + SDF + pose), ManifoldOptions and
compute_manifold / compute_manifold_derivatives (K entries as numpy arrays, derivatives w.r.t.
both poses as body twists or se(3) log coordinates).)");

  py::class_<SdfPoint<double>>(m, "SdfPoint", "One SDF evaluation: value (signed distance), gradient (3,) and unit outward normal (3,).")
      .def_property_readonly("value", [](const SdfPoint<double>& s) { return s.value; }, "Signed distance phi (< 0 inside).")
      .def_property_readonly("gradient", [](const SdfPoint<double>& s) { return Vec3(values(s.gradient)); }, "grad phi (3,), frame of the query.")
      .def_property_readonly("normal", [](const SdfPoint<double>& s) { return Vec3(values(s.normal)); }, "Unit outward normal (3,), 0 where undefined.")
      .def("__repr__", [](const SdfPoint<double>& s) { return ReprBuilder("manifold.SdfPoint").field("value", s.value).str(); });

  py::class_<Superquadric>(m, "Superquadric", R"(Superquadric SDF primitive, eq. (1)-(3): semi-axes (a, b, c) > 0, exponents eps1, eps2 in
[0.01, 2) (1 round, -> 0 boxy), pose X_OP in its object. phi = |x| (1 - f(x~)^(-eps1/2)); normals
from grad f (footnote 2). ValueError on invalid sizes / exponents.)")
      .def(py::init([](const py::object& semi_axes, double eps1, double eps2, const PoseArg& X_OP) {
             return Superquadric(vec3_from(semi_axes, "semi_axes", false), eps1, eps2, X_OP.value);
           }),
           py::arg("semi_axes"), py::arg("eps1"), py::arg("eps2"), py::arg("X_OP") = Pose::identity())
      .def_property_readonly("semi_axes", [](const Superquadric& s) { return Vec3(s.semi_axes()); }, "(a, b, c)")
      .def_property_readonly("eps1", &Superquadric::eps1, "vertical shape exponent")
      .def_property_readonly("eps2", &Superquadric::eps2, "horizontal shape exponent")
      .def_property_readonly("pose", &Superquadric::pose, "X_OP: pose of the primitive in the object frame")
      .def(
          "evaluate", [](const Superquadric& s, const py::object& x, double tau) { return s.evaluate(V3<double>::from(vec3_from(x, "x_O")), checked_tau(tau)); },
          py::arg("x_O"), py::arg("tau") = 0.0, "phi, grad phi and the normal at x_O (object frame) as an SdfPoint; tau regularizes the normal.")
      .def(
          "inside_outside", [](const Superquadric& s, const py::object& x) { return s.inside_outside(vec3_from(x, "x_O")); },
          py::arg("x_O"), "The inside-outside function f of eq. (2) at x_O (f = 1 on the surface).");

  py::class_<ConvexPolyhedron>(m, "ConvexPolyhedron", R"(Convex polyhedron SDF primitive {x : n_i^T x <= h_i}, eq. (4)-(5): phi = LSE_t(n_i^T x - h_i)
(t = 0: the max of eq. (4)). Build with from_halfspaces or from_vertices.)")
      .def_static(
          "from_halfspaces",
          [](const Real<Eigen::MatrixX3d>& normals, const Real<Eigen::VectorXd>& offsets, double temperature, const PoseArg& X_OP) {
            return ConvexPolyhedron::from_halfspaces(normals, offsets, temperature, X_OP.value);
          },
          py::arg("normals"), py::arg("offsets"), py::arg("temperature"), py::arg("X_OP") = Pose::identity(),
          "From half-spaces n_i^T x <= h_i (normals (N, 3), offsets (N,)) in the primitive frame; the origin must be strictly\n"
          "inside and the set bounded. temperature t >= 0 of eq. (5) (a length). ValueError otherwise.")
      .def_static(
          "from_vertices",
          [](const Real<Eigen::MatrixX3d>& vertices, double temperature, const PoseArg& X_OP) {
            return ConvexPolyhedron::from_vertices(vertices, temperature, X_OP.value);
          },
          py::arg("vertices"), py::arg("temperature"), py::arg("X_OP") = Pose::identity(),
          "The convex hull of vertices (N, 3), 4 <= N <= 64, primitive frame. ValueError on flat or invalid input.")
      .def_property_readonly("num_planes", &ConvexPolyhedron::num_planes, "number of half-spaces")
      .def_property_readonly("normals", [](const ConvexPolyhedron& c) { return Eigen::MatrixX3d(c.normals()); }, "(N, 3) unit normals")
      .def_property_readonly("offsets", [](const ConvexPolyhedron& c) { return Eigen::VectorXd(c.offsets()); }, "(N,) offsets h_i")
      .def_property_readonly("temperature", &ConvexPolyhedron::temperature, "t of eq. (5)")
      .def_property_readonly("pose", &ConvexPolyhedron::pose, "X_OP")
      .def(
          "evaluate", [](const ConvexPolyhedron& s, const py::object& x, double tau) { return s.evaluate(V3<double>::from(vec3_from(x, "x_O")), checked_tau(tau)); },
          py::arg("x_O"), py::arg("tau") = 0.0, "phi, grad phi and the normal at x_O (object frame) as an SdfPoint.");

  py::class_<OrientedPointCloud>(m, "OrientedPointCloud", R"(Oriented point cloud SDF primitive, eq. (6): phi(x) = sum B_i n_i^T (x - p_i) / sum B_i with
Gaussian kernels B_i = exp(-|x - p_i|^2 / (2 sigma^2)). points, normals (N, 3) (normalized), bandwidth
sigma > 0. ValueError on invalid input.)")
      .def(py::init([](const Real<Eigen::MatrixX3d>& points, const Real<Eigen::MatrixX3d>& normals, double bandwidth, const PoseArg& X_OP) {
             require_coordinates(points.data(), points.size(), "points");
             return OrientedPointCloud(points, normals, bandwidth, X_OP.value);
           }),
           py::arg("points"), py::arg("normals"), py::arg("bandwidth"), py::arg("X_OP") = Pose::identity())
      .def_property_readonly("size", &OrientedPointCloud::size, "number of points")
      .def_property_readonly("bandwidth", &OrientedPointCloud::bandwidth, "sigma")
      .def_property_readonly("pose", &OrientedPointCloud::pose, "X_OP")
      .def(
          "evaluate", [](const OrientedPointCloud& s, const py::object& x, double tau) { return s.evaluate(V3<double>::from(vec3_from(x, "x_O")), checked_tau(tau)); },
          py::arg("x_O"), py::arg("tau") = 0.0, "phi, grad phi and the normal at x_O (object frame) as an SdfPoint.");

  py::class_<SdfObject>(m, "SdfObject", R"(An object's SDF: smooth union of added primitives minus subtracted ones (Sec. IV-B),
phi = LSE_t(-LSE_t(-phi_1, ..., -phi_L), -psi_1, ..., -psi_M), t = blend_temperature (0: min / max).
SdfObject(blend_temperature=0, normal_regularization=1e-12); add(p) / subtract(p) return the object.
value / gradient / normal take x_O (3,) or (n, 3) in the object (body) frame.)")
      .def(py::init<double, double>(), py::arg("blend_temperature") = 0.0, py::arg("normal_regularization") = 1e-12)
      .def(
          "add", [](SdfObject& o, const Superquadric& p) -> SdfObject& { return o.add(SdfPrimitive(p)); }, py::arg("primitive"),
          py::return_value_policy::reference_internal, "Adds a primitive (Superquadric, ConvexPolyhedron or OrientedPointCloud) to the union; returns self.")
      .def(
          "subtract", [](SdfObject& o, const Superquadric& p) -> SdfObject& { return o.subtract(SdfPrimitive(p)); }, py::arg("primitive"),
          py::return_value_policy::reference_internal, "Adds a primitive to subtract; returns self.")
      .def(
          "add", [](SdfObject& o, const ConvexPolyhedron& p) -> SdfObject& { return o.add(SdfPrimitive(p)); }, py::arg("primitive"),
          py::return_value_policy::reference_internal, "Adds a primitive (Superquadric, ConvexPolyhedron or OrientedPointCloud) to the union; returns self.")
      .def(
          "subtract", [](SdfObject& o, const ConvexPolyhedron& p) -> SdfObject& { return o.subtract(SdfPrimitive(p)); }, py::arg("primitive"),
          py::return_value_policy::reference_internal, "Adds a primitive to subtract; returns self.")
      .def(
          "add", [](SdfObject& o, const OrientedPointCloud& p) -> SdfObject& { return o.add(SdfPrimitive(p)); }, py::arg("primitive"),
          py::return_value_policy::reference_internal, "Adds a primitive (Superquadric, ConvexPolyhedron or OrientedPointCloud) to the union; returns self.")
      .def(
          "subtract", [](SdfObject& o, const OrientedPointCloud& p) -> SdfObject& { return o.subtract(SdfPrimitive(p)); }, py::arg("primitive"),
          py::return_value_policy::reference_internal, "Adds a primitive to subtract; returns self.")
      .def_property_readonly("num_added", &SdfObject::num_added, "number of added primitives")
      .def_property_readonly("num_subtracted", &SdfObject::num_subtracted, "number of subtracted primitives")
      .def_property_readonly("blend_temperature", &SdfObject::blend_temperature, "t of the union / subtraction")
      .def_property_readonly("normal_regularization", &SdfObject::normal_regularization, "tau of the normal normalization")
      .def(
          "evaluate", [](const SdfObject& s, const py::object& x) { return nonempty(s).evaluate(V3<double>::from(vec3_from(x, "x_O"))); },
          py::arg("x_O"), "phi, grad phi and the normal at x_O (3,) as an SdfPoint (object frame).")
      .def(
          "value",
          [](const SdfObject& s, const py::object& x) -> py::object {
            bool single = false;
            const std::vector<Vec3> p = points_from(x, "x_O", true, &single);
            nonempty(s);
            if (single) return py::float_(s.value(p[0]));
            py::array_t<double> out(static_cast<py::ssize_t>(p.size()));
            for (size_t i = 0; i < p.size(); ++i) out.mutable_data()[i] = s.value(p[i]);
            return out;
          },
          py::arg("x_O"), "phi at x_O: (3,) -> float, (n, 3) -> (n,).")
      .def(
          "gradient",
          [](const SdfObject& s, const py::object& x) -> py::object {
            bool single = false;
            std::vector<Vec3> p = points_from(x, "x_O", true, &single);
            nonempty(s);
            for (Vec3& q : p) q = s.gradient(q);
            if (single) return py::cast(p[0]);
            return points_to_array(p);
          },
          py::arg("x_O"), "grad phi at x_O: (3,) -> (3,), (n, 3) -> (n, 3).")
      .def(
          "normal",
          [](const SdfObject& s, const py::object& x) -> py::object {
            bool single = false;
            std::vector<Vec3> p = points_from(x, "x_O", true, &single);
            nonempty(s);
            for (Vec3& q : p) q = s.normal(q);
            if (single) return py::cast(p[0]);
            return points_to_array(p);
          },
          py::arg("x_O"), "Unit outward normal at x_O: (3,) -> (3,), (n, 3) -> (n, 3).");

  py::class_<IsoSurfaceOptions>(m, "IsoSurfaceOptions", "Settings of mesh_from_sdf (grid box in the object frame, cell size, Newton projection steps).")
      .def(py::init([](const py::object& lower, const py::object& upper, double cell_size, int projection_steps, double snap, int max_cells) {
             IsoSurfaceOptions o;
             o.lower = vec3_from(lower, "lower", false);
             o.upper = vec3_from(upper, "upper", false);
             o.cell_size = cell_size;
             o.projection_steps = projection_steps;
             o.snap = snap;
             o.max_cells = max_cells;
             return o;
           }),
           py::arg("lower") = Vec3(-1, -1, -1), py::arg("upper") = Vec3(1, 1, 1), py::arg("cell_size") = 0.1,
           py::arg("projection_steps") = 5, py::arg("snap") = 1e-3, py::arg("max_cells") = 8'000'000)
      .def_property("lower", [](const IsoSurfaceOptions& o) { return Vec3(o.lower); }, [](IsoSurfaceOptions& o, const py::object& v) { o.lower = vec3_from(v, "lower", false); },
                    "grid box corner (object frame); must enclose the solid")
      .def_property("upper", [](const IsoSurfaceOptions& o) { return Vec3(o.upper); }, [](IsoSurfaceOptions& o, const py::object& v) { o.upper = vec3_from(v, "upper", false); },
                    "opposite corner")
      .def_readwrite("cell_size", &IsoSurfaceOptions::cell_size, "grid spacing h (a length)")
      .def_readwrite("projection_steps", &IsoSurfaceOptions::projection_steps, "Newton steps onto phi = 0 per vertex, >= 0")
      .def_readwrite("snap", &IsoSurfaceOptions::snap, "grid values with |phi| < snap*h move to +snap*h, in (0, 0.1]")
      .def_readwrite("max_cells", &IsoSurfaceOptions::max_cells, "guard against huge grids");
  m.def(
      "mesh_from_sdf",
      [](const SdfObject& sdf, const IsoSurfaceOptions& o) {
        py::gil_scoped_release release;
        return mesh_from_sdf(sdf, o);
      },
      py::arg("sdf"), py::arg("options") = IsoSurfaceOptions{},
      "The zero level set of sdf as a closed, outward-oriented diffcol.mesh.TriangleMesh (object frame): marching\n"
      "tetrahedra (Freudenthal split) + Newton projection of the vertices (supplementary II-C).\n"
      "ValueError on invalid options, a grid boundary not outside the solid, or an invalid result.");
  m.def(
      "max_vertex_sdf", [](const SdfObject& sdf, const mesh::TriangleMesh& mesh) { return max_vertex_sdf(nonempty(sdf), mesh); },
      py::arg("sdf"), py::arg("mesh"), "Largest |phi(v)| over the mesh vertices (object frame). ValueError for an empty object.");
  m.def(
      "make_refined_box", [](const py::object& size, int n) { return make_refined_box(vec3_from(size, "size", false), n); },
      py::arg("size"), py::arg("n"), "A box mesh with edge lengths size, each face split into n x n squares: 6n^2 + 2 vertices\n"
                                     "(n = 1: the 8-vertex cube, n = 4: the 98-vertex cube of Fig. 5). ValueError on n outside [1, 64].");
  m.def(
      "make_box_sdf", [](const py::object& size, double eps) { return make_box_sdf(vec3_from(size, "size", false), eps); },
      py::arg("size"), py::arg("eps") = 0.1, "The superquadric SdfObject of a box with edge lengths size, eps1 = eps2 = eps.");

  py::class_<ContactObject>(m, "ContactObject", R"(An object of the manifold: a closed mesh (diffcol.mesh.TriangleMesh) and an SdfObject of the
same surface, both in the body frame, and its pose X_WB. ValueError if the SDF has no primitive or
the pose is not finite.)")
      .def(py::init([](const mesh::TriangleMesh& mesh, const SdfObject& sdf, const PoseArg& X_WB) {
             return ContactObject(mesh, sdf, X_WB.value);
           }),
           py::arg("mesh"), py::arg("sdf"), py::arg("X_WB") = Pose::identity())
      .def_property_readonly("mesh", &ContactObject::mesh, "the mesh (body frame)")
      .def_property_readonly("sdf", &ContactObject::sdf, "the SDF (body frame)")
      .def_property(
          "pose", &ContactObject::pose, [](ContactObject& c, const PoseArg& X) { c.set_pose(X.value); }, "X_WB (read-write)")
      .def(
          "set_pose", [](ContactObject& c, const PoseArg& X) { c.set_pose(X.value); }, py::arg("X_WB"), "Sets X_WB.")
      .def("surface_discrepancy", &ContactObject::surface_discrepancy, "Largest |phi(v)| over the mesh vertices: the mesh-SDF discrepancy.");

  py::class_<WitnessOptions>(m, "WitnessOptions", "E-E witness settings (Sec. IV-D2): L2 regularization and temperatures (0 = hard).")
      .def(py::init([](double regularization, double t_clip, double t_min, double t_comp, double normal_regularization) {
             WitnessOptions o;
             o.regularization = regularization;
             o.t_clip = t_clip;
             o.t_min = t_min;
             o.t_comp = t_comp;
             o.normal_regularization = normal_regularization;
             return o;
           }),
           py::arg("regularization") = 0.01, py::arg("t_clip") = 0.1, py::arg("t_min") = 0.1, py::arg("t_comp") = 0.1,
           py::arg("normal_regularization") = 1e-12)
      .def_static("hard", &WitnessOptions::hard, py::arg("regularization") = 0.0, "All temperatures 0 (\"Ours-NS\") with the given lambda.")
      .def("validate", &WitnessOptions::validate, "ValueError if any field is negative or not finite.")
      .def_readwrite("regularization", &WitnessOptions::regularization, "lambda of R(alpha1, alpha2) (length^2)")
      .def_readwrite("t_clip", &WitnessOptions::t_clip, "soft clip of the edge coordinates (dimensionless)")
      .def_readwrite("t_min", &WitnessOptions::t_min, "soft argmin over the candidate costs")
      .def_readwrite("t_comp", &WitnessOptions::t_comp, "soft [0 <= alpha <= 1] of the unconstrained minimizer")
      .def_readwrite("normal_regularization", &WitnessOptions::normal_regularization, "epsilon of the E-E normal (length^2)");

  py::class_<ContactOptions>(m, "ContactOptions", "Temperatures of the contact indicators (11)-(16); 0 = hard.")
      .def(py::init([](double t_sign, double t_pen, double t_clash, double t_nn) { return ContactOptions{t_sign, t_pen, t_clash, t_nn}; }),
           py::arg("t_sign") = 0.05, py::arg("t_pen") = 1e-3, py::arg("t_clash") = 0.1, py::arg("t_nn") = 1e-3)
      .def_static("hard", &ContactOptions::hard, "All temperatures 0.")
      .def("validate", &ContactOptions::validate, "ValueError if any field is negative or not finite.")
      .def_readwrite("t_sign", &ContactOptions::t_sign, "soft sign in (11) (dimensionless)")
      .def_readwrite("t_pen", &ContactOptions::t_pen, "sigma(-phi/t) of (12) (a length)")
      .def_readwrite("t_clash", &ContactOptions::t_clash, "sigma(-n1^T n2/t) of (15) (dimensionless)")
      .def_readwrite("t_nn", &ContactOptions::t_nn, "soft argmin in (13)-(14) (a length)");

  py::class_<ManifoldOptions>(m, "ManifoldOptions", R"(Options of the manifold. num_vertices / num_edges: (|V_1|, |V_2|) and (|E_1|, |E_2|), -1 = all
(no selection); edge_edge=False gives V-S contacts only ("Ours-NE"); t_topk the SoftSort temperature
(a length; 0 = hard); witness, contact the sub-options. ManifoldOptions.hard() = "Ours-NS".)")
      .def(py::init([](std::array<int, 2> nv, std::array<int, 2> ne, bool edge_edge, double t_topk, const WitnessOptions& w,
                       const ContactOptions& c, int projection_iterations) {
             ManifoldOptions o;
             o.num_vertices[0] = nv[0];
             o.num_vertices[1] = nv[1];
             o.num_edges[0] = ne[0];
             o.num_edges[1] = ne[1];
             o.edge_edge = edge_edge;
             o.t_topk = t_topk;
             o.witness = w;
             o.contact = c;
             o.projection_iterations = projection_iterations;
             return o;
           }),
           py::arg("num_vertices") = std::array<int, 2>{-1, -1}, py::arg("num_edges") = std::array<int, 2>{-1, -1},
           py::arg("edge_edge") = true, py::arg("t_topk") = 1e-3, py::arg("witness") = WitnessOptions{},
           py::arg("contact") = ContactOptions{}, py::arg("projection_iterations") = 0)
      .def_static("hard", &ManifoldOptions::hard, py::arg("regularization") = 0.0, "Every temperature 0 (\"Ours-NS\"), witness lambda given.")
      .def("validate", &ManifoldOptions::validate, "ValueError on invalid temperatures or sizes.")
      .def_property(
          "num_vertices", [](const ManifoldOptions& o) { return std::array<int, 2>{o.num_vertices[0], o.num_vertices[1]}; },
          [](ManifoldOptions& o, std::array<int, 2> v) { o.num_vertices[0] = v[0]; o.num_vertices[1] = v[1]; }, "(|V_1|, |V_2|), -1 = all")
      .def_property(
          "num_edges", [](const ManifoldOptions& o) { return std::array<int, 2>{o.num_edges[0], o.num_edges[1]}; },
          [](ManifoldOptions& o, std::array<int, 2> v) { o.num_edges[0] = v[0]; o.num_edges[1] = v[1]; }, "(|E_1|, |E_2|), -1 = all")
      .def_readwrite("edge_edge", &ManifoldOptions::edge_edge, "False: V-S contacts only")
      .def_readwrite("t_topk", &ManifoldOptions::t_topk, "SoftSort temperature (a length); 0 = hard")
      .def_readwrite("witness", &ManifoldOptions::witness, "WitnessOptions (E-E witness)")
      .def_readwrite("contact", &ManifoldOptions::contact, "ContactOptions (signs, penetration, clashing, nearest neighbours)")
      .def_readwrite("projection_iterations", &ManifoldOptions::projection_iterations,
                     "sphere-tracing steps projecting the E-E witness points onto their own SDF surfaces (0 = off, <= 20)")
      .def_readwrite("culling", &ManifoldOptions::culling,
                     "True (default): skip candidates whose activity is provably below e^-40 (exact to rounding; "
                     "culled V-S entries carry distance 40*t_pen and normal 0); False: dense");

  py::enum_<ContactKind>(m, "ContactKind", "Which routine produced a manifold entry.")
      .value("vertex_sdf", ContactKind::vertex_sdf)
      .value("edge_edge", ContactKind::edge_edge);
  py::enum_<PoseCoordinates>(m, "PoseCoordinates", R"(Pose coordinates of the derivative blocks, 6 per body, [w; v]: the twist in
the ReferenceFrame of the same name (world: X_b <- exp(eta^) X_b; local: X_b <- X_b exp(xi^);
local_world_aligned: w and the velocity of the body origin in world axes), or se3_log
(X_b = exp(s_b), s_b = se3_log(X_b)).)")
      .value("world", PoseCoordinates::world)
      .value("local", PoseCoordinates::local)
      .value("local_world_aligned", PoseCoordinates::local_world_aligned)
      .value("se3_log", PoseCoordinates::se3_log);

  py::class_<ManifoldArrays>(m, "ContactManifold", doc(std::string(R"(The contact manifold as numpy arrays (K entries, the order of the C++ ContactManifold::entries).

points (K, 3), distances (K,), normals (K, 3), activities (K,) (world frame), kinds (K,) uint8
(ContactKind values), bodies, sources, other_sources (K,) int32; num_vertex_sdf = (|V_1|, |V_2|)
and num_edges = (|E_1|, |E_2|) actually used.)") + kManifoldConventionsDoc))
      .def_readonly("points", &ManifoldArrays::points, "(K, 3) contact points, world frame")
      .def_readonly("distances", &ManifoldArrays::distances, "(K,) signed distances (< 0 penetration)")
      .def_readonly("normals", &ManifoldArrays::normals, "(K, 3) unit normals out of the other body, world frame")
      .def_readonly("activities", &ManifoldArrays::activities, "(K,) activities in [0, 1]")
      .def_readonly("kinds", &ManifoldArrays::kinds, "(K,) uint8: 0 vertex_sdf, 1 edge_edge")
      .def_readonly("bodies", &ManifoldArrays::bodies, "(K,) int32: 0 the point is on body 1, 1 on body 2")
      .def_readonly("sources", &ManifoldArrays::sources, "(K,) int32: V-S vertex index (hard top-K) / E-E edge index")
      .def_readonly("other_sources", &ManifoldArrays::other_sources, "(K,) int32: E-E edge on the other body, -1 for V-S")
      .def_readonly("num_vertex_sdf", &ManifoldArrays::num_vertex_sdf, "(|V_1|, |V_2|) used")
      .def_readonly("num_edges", &ManifoldArrays::num_edges, "(|E_1|, |E_2|) used (0 without E-E)")
      .def("__len__", [](const ManifoldArrays& a) { return a.distances.size(); })
      .def("__repr__", [](const ManifoldArrays& a) {
        return ReprBuilder("manifold.ContactManifold")
            .field("entries", static_cast<long>(a.distances.size()))
            .field("min_distance", array_min_text(a.distances))
            .str();
      });

  py::class_<DerivativeArrays>(m, "ManifoldDerivatives", R"(Derivatives of every manifold entry w.r.t. the 12 pose coordinates [body 1 (6) | body 2 (6)], each
[w; v] (twists in a ReferenceFrame or se(3) log coordinates, see `coordinates`): J_point_X12 (K, 3, 12),
J_normal_X12 (K, 3, 12), J_distance_X12 (K, 12), J_activity_X12 (K, 12).)")
      .def_readonly("J_point_X12", &DerivativeArrays::J_point_X12, "(K, 3, 12) d point / d [pose 1 | pose 2]")
      .def_readonly("J_normal_X12", &DerivativeArrays::J_normal_X12, "(K, 3, 12) d normal / d [pose 1 | pose 2]")
      .def_readonly("J_distance_X12", &DerivativeArrays::J_distance_X12, "(K, 12) d distance / d [pose 1 | pose 2]")
      .def_readonly("J_activity_X12", &DerivativeArrays::J_activity_X12, "(K, 12) d activity / d [pose 1 | pose 2]")
      .def_readonly("coordinates", &DerivativeArrays::coordinates, "PoseCoordinates of the columns")
      .def("__repr__", [](const DerivativeArrays& d) {
        return ReprBuilder("manifold.ManifoldDerivatives")
            .field("entries", static_cast<long>(d.J_distance_X12.shape(0)))
            .field("coordinates", pose_coordinates_name(d.coordinates))
            .str();
      });

  m.def("compute_manifold", &run_manifold, py::arg("body1"), py::arg("X_W1").none(true), py::arg("body2"), py::arg("X_W2").none(true),
        py::arg("options") = ManifoldOptions{},
        doc(std::string("The manifold between body1 and body2 (ContactObjects) at poses X_W1, X_W2 (None: the objects' own poses);\n"
                        "returns a ContactManifold of arrays. ValueError on invalid options or non-finite poses.\n"
                        "Example: compute_manifold(body1, None, body2, [0, 0, 0.9, 1, 0, 0, 0]).") +
            kManifoldConventionsDoc));
  m.def(
      "compute_manifold_derivatives",
      [](const ContactObject& b1, const py::object& X1, const ContactObject& b2, const py::object& X2, const ManifoldOptions& options,
         PoseCoordinates coordinates) {
        const Pose P1 = pose_from_object(X1, "X_W1"), P2 = pose_from_object(X2, "X_W2");
        ManifoldWorkspace ws;
        ContactManifold mf;
        ManifoldDerivatives d;
        {
          py::gil_scoped_release release;
          compute_manifold_derivatives(b1, P1, b2, P2, options, coordinates, ws, mf, d);
        }
        DerivativeArrays out;
        out.J_point_X12 = stack<3>(d.J_point_X12);
        out.J_normal_X12 = stack<3>(d.J_normal_X12);
        out.J_distance_X12 = stack<1>(d.J_distance_X12);
        out.J_activity_X12 = stack<1>(d.J_activity_X12);
        out.coordinates = coordinates;
        return py::make_tuple(to_arrays(mf), out);
      },
      py::arg("body1"), py::arg("X_W1"), py::arg("body2"), py::arg("X_W2"), py::arg("options") = ManifoldOptions{},
      py::arg("coordinates") = PoseCoordinates::world,
      doc(std::string("The manifold and its derivatives (forward mode) at X_W1, X_W2: returns (ContactManifold, ManifoldDerivatives).\n"
                      "coordinates: PoseCoordinates (default world; local, local_world_aligned or se3_log). ValueError as compute_manifold.") +
          kManifoldConventionsDoc));
  // figures.hpp: the 18-superquadric limbed figures of the scale experiments.
  m.attr("kFigurePieces") = kFigurePieces;
  py::class_<FigureOptions>(m, "FigureOptions", "Settings of make_limbed_figure (seed, height, blend_fraction, target_vertices, projection_steps, piece_rings, piece_segments).")
      .def(py::init([](std::uint64_t seed, double height, double blend_fraction, int target_vertices, int projection_steps, int piece_rings,
                       int piece_segments) {
             return FigureOptions{seed, height, blend_fraction, target_vertices, projection_steps, piece_rings, piece_segments};
           }),
           py::arg("seed") = 0, py::arg("height") = 1.0, py::arg("blend_fraction") = 0.01, py::arg("target_vertices") = 300,
           py::arg("projection_steps") = 5, py::arg("piece_rings") = 3, py::arg("piece_segments") = 8)
      .def("validate", &FigureOptions::validate, "ValueError on out-of-range fields.")
      .def_readwrite("seed", &FigureOptions::seed, "varies proportions, joint angles and shape exponents")
      .def_readwrite("height", &FigureOptions::height, "approximate overall height (a length, > 0)")
      .def_readwrite("blend_fraction", &FigureOptions::blend_fraction, "smooth-union temperature as a fraction of height, [0, 0.1)")
      .def_readwrite("target_vertices", &FigureOptions::target_vertices, "about this many mesh vertices, [100, 20000]")
      .def_readwrite("projection_steps", &FigureOptions::projection_steps, "Newton steps of the mesh vertices onto phi = 0")
      .def_readwrite("piece_rings", &FigureOptions::piece_rings, "latitude rings of the convex piece meshes, [1, 16]")
      .def_readwrite("piece_segments", &FigureOptions::piece_segments, "vertices per ring of the convex piece meshes, [3, 32]");
  py::class_<LimbedFigure>(m, "LimbedFigure", R"(A procedural non-convex figure of 18 superquadrics (figures.hpp): pieces (list of Superquadric),
sdf (their smooth union), mesh (its iso-surface, ~300 vertices), convex_pieces (one coarse convex
mesh per piece), cell_size. Body frame: z up, standing on z ~ 0, facing +y.)")
      .def_readonly("pieces", &LimbedFigure::pieces, "the 18 Superquadric primitives (body frame)")
      .def_readonly("sdf", &LimbedFigure::sdf, "SdfObject: their smooth union")
      .def_readonly("mesh", &LimbedFigure::mesh, "diffcol.mesh.TriangleMesh: iso-surface of sdf")
      .def_readonly("convex_pieces", &LimbedFigure::convex_pieces, "one convex TriangleMesh per piece")
      .def_readonly("cell_size", &LimbedFigure::cell_size, "iso-surface grid spacing used")
      .def(
          "contact_object", [](const LimbedFigure& f, const PoseArg& X) { return f.contact_object(X.value); },
          py::arg("X_WB") = Pose::identity(), "A ContactObject of the mesh and the SDF at pose X_WB.");
  m.def(
      "make_limbed_figure",
      [](const FigureOptions& o) {
        py::gil_scoped_release release;
        return make_limbed_figure(o);
      },
      py::arg("options") = FigureOptions{}, "Builds a limbed figure (deterministic). ValueError on invalid options.");
  m.def(
      "figure_piece_name",
      [](int i) { return std::string(figure_piece_name(i)); },
      py::arg("i"), "Name of piece i ('pelvis', 'left_forearm', ...).");
  m.def("superquadric_surface_mesh", &superquadric_surface_mesh, py::arg("sq"), py::arg("rings"), py::arg("segments"),
        "A closed mesh of points on the superquadric's surface (rings x segments + 2 poles), body frame through sq.pose.");
  // batch.hpp: many pose pairs per call over a thread pool.
  py::class_<BatchArrays>(m, "ManifoldBatchResult", R"(ManifoldBatch.compute's result: points (N, K, 3), distances (N, K), normals (N, K, 3), activities
(N, K) and, with derivatives=True, J_point_X12 / J_normal_X12 (N, K, 3, 12), J_distance_X12 /
J_activity_X12 (N, K, 12) (else None). Entry order as ContactManifold.)")
      .def_readonly("points", &BatchArrays::points, "(N, K, 3) world frame")
      .def_readonly("distances", &BatchArrays::distances, "(N, K)")
      .def_readonly("normals", &BatchArrays::normals, "(N, K, 3) world frame")
      .def_readonly("activities", &BatchArrays::activities, "(N, K)")
      .def_readonly("J_point_X12", &BatchArrays::J_point_X12, "(N, K, 3, 12) or None")
      .def_readonly("J_normal_X12", &BatchArrays::J_normal_X12, "(N, K, 3, 12) or None")
      .def_readonly("J_distance_X12", &BatchArrays::J_distance_X12, "(N, K, 12) or None")
      .def_readonly("J_activity_X12", &BatchArrays::J_activity_X12, "(N, K, 12) or None")
      .def("__repr__", [](const BatchArrays& b) {
        return ReprBuilder("manifold.ManifoldBatchResult")
            .field("poses", static_cast<long>(b.distances.shape(0)))
            .field("entries", static_cast<long>(b.distances.ndim() > 1 ? b.distances.shape(1) : 0))
            .field("min_distance", array_min_text(b.distances))
            .field("derivatives", !b.J_distance_X12.is_none())
            .str();
      });
  py::class_<ManifoldBatch>(m, "ManifoldBatch", R"(The manifold of one object pair at N pose pairs per call over a persistent thread pool (batch.hpp);
results are bit for bit those of compute_manifold(_derivatives), whatever the number of threads.
ManifoldBatch(body1, body2, options=ManifoldOptions(), num_threads=0 (all cores), grain=1,
coordinates=PoseCoordinates.world), or ManifoldBatch(objects, pairs, ...) for the manifolds of
several object pairs of a scene at S configurations per call (compute_scenes). Not for use from two
Python threads at once.)")
      .def(py::init([](const ContactObject& b1, const ContactObject& b2, const ManifoldOptions& options, int num_threads, long grain,
                       PoseCoordinates coordinates) {
             return std::make_unique<ManifoldBatch>(b1, b2, batch_options(options, num_threads, grain, coordinates));
           }),
           py::arg("body1"), py::arg("body2"), py::arg("options") = ManifoldOptions{}, py::kw_only(), py::arg("num_threads") = 0,
           py::arg("grain") = 1, py::arg("coordinates") = PoseCoordinates::world)
      .def(py::init([](const std::vector<ContactObject>& objects, const std::vector<std::array<int, 2>>& pairs,
                       const ManifoldOptions& options, int num_threads, long grain, PoseCoordinates coordinates) {
             return std::make_unique<ManifoldBatch>(objects, pairs, batch_options(options, num_threads, grain, coordinates));
           }),
           py::arg("objects"), py::arg("pairs"), py::arg("options") = ManifoldOptions{}, py::kw_only(), py::arg("num_threads") = 0,
           py::arg("grain") = 1, py::arg("coordinates") = PoseCoordinates::world,
           "A scene: objects (list of ContactObject) and pairs [(a, b), ...] of object indices; use compute_scenes.")
      .def_property_readonly("entries_per_manifold", &ManifoldBatch::entries_per_manifold, "K")
      .def_property_readonly("num_threads", &ManifoldBatch::num_threads, "threads per call")
      .def(
          "compute",
          [](ManifoldBatch& b, const py::object& X1, const py::object& X2, bool derivatives) {
            std::vector<Pose> p1 = batch_poses(X1, "X_W1"), p2 = batch_poses(X2, "X_W2");
            if (p1.size() == 1 && p2.size() > 1) p1.assign(p2.size(), p1[0]);
            if (p2.size() == 1 && p1.size() > 1) p2.assign(p1.size(), p2[0]);
            if (p1.size() != p2.size()) throw std::invalid_argument("X_W1 and X_W2: different numbers of poses");
            BatchBuffers buf(static_cast<py::ssize_t>(p1.size()), b.entries_per_manifold(), derivatives);
            {
              py::gil_scoped_release release;
              b.compute(p1, p2, buf.out);
            }
            return buf.result();
          },
          py::arg("X_W1"), py::arg("X_W2"), py::arg("derivatives") = false,
          "Manifolds at the pose pairs (X_W1[q], X_W2[q]): each (N, 7), (N, 4, 4) or one pose (used for every q).\n"
          "Returns a ManifoldBatchResult. The GIL is released. ValueError on mismatched counts or non-finite poses, "
          "or if the batch has several object pairs (use compute_scenes).")
      .def(
          "compute_scenes",
          [](ManifoldBatch& b, const py::object& poses, bool derivatives) {
            const std::vector<Pose> P = scene_poses(poses, b.num_objects(), "object_poses");
            BatchBuffers buf(static_cast<py::ssize_t>(P.size()) / b.num_objects(), b.entries_per_configuration(), derivatives);
            {
              py::gil_scoped_release release;
              b.compute_scenes(P, buf.out);
            }
            return buf.result();
          },
          py::arg("object_poses"), py::arg("derivatives") = false,
          "Manifolds of every pair at S configurations of the objects: object_poses (S, M, 7) or (S, M, 4, 4) (or one "
          "configuration (M, 7)). Returns a ManifoldBatchResult with N = S and K = entries_per_configuration; pair p's "
          "entries are [pair_offset(p), pair_offset(p) + pair_entries(p)), Jacobian columns [pose of pair(p)[0] | "
          "pose of pair(p)[1]]. The GIL is released.")
      .def_property_readonly("num_objects", &ManifoldBatch::num_objects, "M")
      .def_property_readonly("num_pairs", &ManifoldBatch::num_pairs, "P")
      .def_property_readonly("entries_per_configuration", &ManifoldBatch::entries_per_configuration, "K_total = sum of K_p")
      .def("pair", [](const ManifoldBatch& b, int p) {
             if (p < 0 || p >= b.num_pairs()) throw py::index_error("pair index out of range");
             return py::make_tuple(b.pair(p)[0], b.pair(p)[1]);
           }, py::arg("p"), "(a, b): the objects of pair p")
      .def("pair_entries", [](const ManifoldBatch& b, int p) {
             if (p < 0 || p >= b.num_pairs()) throw py::index_error("pair index out of range");
             return b.pair_entries(p);
           }, py::arg("p"), "K_p")
      .def("pair_offset", [](const ManifoldBatch& b, int p) {
             if (p < 0 || p >= b.num_pairs()) throw py::index_error("pair index out of range");
             return b.pair_offset(p);
           }, py::arg("p"), "offset of pair p's entries in one configuration");
  // Witness routines over N queries (the seed's Fig. 6 experiment).
  m.def(
      "edge_edge_witness_batch",
      [](const py::object& ends, const WitnessOptions& options, int num_threads) {
        const std::vector<double> e = witness_ends(ends, "ends");
        const auto N = static_cast<py::ssize_t>(e.size() / 12);
        py::array_t<double> e1({N, py::ssize_t(3)}), e2({N, py::ssize_t(3)}), alpha({N, py::ssize_t(2)}), distance(N),
            gamma(N);
        const EdgeEdgeBatchOutput out{span_of(e1), span_of(e2), span_of(alpha), span_of(distance), span_of(gamma)};
        with_pool(num_threads, [&](batch::ThreadPool* pool) { edge_edge_witness_batch(e, options, out, pool); });
        py::dict d;
        d["e1"] = e1;
        d["e2"] = e2;
        d["alpha"] = alpha;
        d["distance"] = distance;
        d["gamma_con"] = gamma;
        return d;
      },
      py::arg("ends"), py::arg("options") = WitnessOptions{}, py::kw_only(), py::arg("num_threads") = 0,
      "The E-E witness routine (Sec. IV-D2) on N edge pairs: ends (N, 4, 3) [a0, a1, b0, b1] (or (N, 12)). Returns a dict: "
      "e1, e2 (N, 3) witness points, alpha (N, 2), distance (N,), gamma_con (N,). num_threads 0 = all cores, 1 = "
      "the calling thread. NaN in a query gives NaN for that query only.");
  m.def(
      "vertex_face_witness_batch",
      [](const py::object& ends, const WitnessOptions& options, int num_threads) {
        const std::vector<double> e = witness_ends(ends, "ends");
        const auto N = static_cast<py::ssize_t>(e.size() / 12);
        py::array_t<double> point({N, py::ssize_t(3)}), distance(N), gamma(N);
        const VertexFaceBatchOutput out{span_of(point), span_of(distance), span_of(gamma)};
        with_pool(num_threads, [&](batch::ThreadPool* pool) { vertex_face_witness_batch(e, options, out, pool); });
        py::dict d;
        d["point"] = point;
        d["distance"] = distance;
        d["gamma_inside"] = gamma;
        return d;
      },
      py::arg("ends"), py::arg("options") = WitnessOptions{}, py::kw_only(), py::arg("num_threads") = 0,
      "The V-F witness routine on N (vertex, triangle) queries: ends (N, 4, 3) [v, p0, p1, p2] (or (N, 12)). Returns a "
      "dict: point (N, 3) on the triangle, distance (N,), gamma_inside (N,).");
}

}  // namespace diffcol::python
