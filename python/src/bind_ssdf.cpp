// Python bindings of include/diffcol/ssdf/{aopc,ssdf,scm}.hpp as the submodule diffcol.ssdf:
// articulated oriented point clouds, the soft signed distance (9), smooth separation (11),
// collision points (12)-(13) and the soft-minimum contact model forces (14)-(23).
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "diffcol/ssdf/aopc.hpp"
#include "diffcol/ssdf/scm.hpp"
#include "diffcol/ssdf/ssdf.hpp"

namespace diffcol::python {

namespace bind_ssdf_local {

using namespace diffcol::ssdf;

/// smooth_separation_distance's result plus the field and distribution left in the workspace.
struct SeparationResult {
  Separation separation;
  py::array_t<double> field, distribution;
};

/// collision_points' outputs.
struct CollisionPoints {
  py::array_t<double> points, masses, J_points;
};

const char* const kSsdfConventionsDoc = R"(
Poses X_W1, X_W2, X_WB: world_from_body (a Pose, [x, y, z, qw, qx, qy, qz] or 4x4). Pose
derivatives J_<out>_X of the queries are w.r.t. the twists [w; v] in `frame` (ReferenceFrame,
default world as in every layer), [xi1 | xi2] for two bodies. The soft contact model
(pair_contact, point_ssdf_contact) uses body twists (ReferenceFrame.local) and body-twist velocities V.
Temperatures: eps1 in length^2 (SSDF), eps2 in length (separation distribution); 0 = hard.)";

void check_pose_finite(const Pose& X, const char* what) {
  if (!X.is_finite()) throw std::invalid_argument(std::string(what) + ": pose is not finite");
}

}  // namespace bind_ssdf_local

void bind_ssdf(py::module_& parent) {
  using namespace bind_ssdf_local;
  py::module_ m = parent.def_submodule("ssdf", R"(SSDF and the soft-minimum contact model (C++ include/diffcol/ssdf).

AOPC sampling (make_aopc, AopcOptions, OrientedPointCloud), the soft signed distance (9)
(soft_signed_distance, body or world frame, with gradients), the smooth separation distance (11),
collision points (12)-(13), and the SCM forces: point_plane_force (14)-(20), point_ssdf_contact
(21)-(22), pair_contact (23), with analytic first derivatives.)");

  py::class_<AopcOptions> aopc_options(m, "AopcOptions", "Options of make_aopc: num_points I (>= 4), candidates_per_point, seed, feature_angle (rad).");
  aopc_options.def(py::init([](int num_points, int candidates_per_point, std::uint64_t seed, double feature_angle) {
             const AopcOptions o{num_points, candidates_per_point, seed, feature_angle};
             o.validate();
             return o;
           }),
           py::arg("num_points") = 500, py::arg("candidates_per_point") = 8, py::arg("seed") = 1, py::arg("feature_angle") = 0.5);
  const auto check_aopc = [](const AopcOptions& o) { o.validate(); };
  def_checked(aopc_options, "num_points", &AopcOptions::num_points, "I, the number of AOPC points (the resolution), >= 4", +check_aopc);
  def_checked(aopc_options, "candidates_per_point", &AopcOptions::candidates_per_point, "oversampling before farthest-point thinning, 1 ... 64", +check_aopc);
  def_checked(aopc_options, "seed", &AopcOptions::seed, "random seed (deterministic given the options)", +check_aopc);
  def_checked(aopc_options, "feature_angle", &AopcOptions::feature_angle, "dihedral angle (rad) above which an edge is sharp, >= 0 (ValueError for NaN)", +check_aopc);

  py::class_<OrientedPointCloud, std::shared_ptr<OrientedPointCloud>>(m, "OrientedPointCloud", R"(An AOPC in its body frame: points p_i (I, 3) with unit outward normals n_i (I, 3), and for the
reduction (12) the vertices y_v and each point's up to 3 vertex indices (-1 unused).
OrientedPointCloud(points, normals): every point is its own vertex.
OrientedPointCloud(points, normals, vertices, point_vertices): explicit incidences (I, 3) ints.
ValueError on empty / mismatched / non-finite input or a zero normal.)")
      .def(py::init([](const py::object& points, const py::object& normals) {
             return std::make_shared<OrientedPointCloud>(points_from(points, "points"), points_from(normals, "normals"));
           }),
           py::arg("points"), py::arg("normals"))
      .def(py::init([](const py::object& points, const py::object& normals, const py::object& vertices,
                       const std::vector<std::array<int, 3>>& point_vertices) {
             return std::make_shared<OrientedPointCloud>(points_from(points, "points"), points_from(normals, "normals"),
                                                         points_from(vertices, "vertices"), point_vertices);
           }),
           py::arg("points"), py::arg("normals"), py::arg("vertices"), py::arg("point_vertices"))
      .def_property_readonly("size", &OrientedPointCloud::size, "I, the number of points")
      .def_property_readonly("points", [](const OrientedPointCloud& c) { return points_to_array(c.points()); }, "(I, 3) body frame")
      .def_property_readonly("normals", [](const OrientedPointCloud& c) { return points_to_array(c.normals()); }, "(I, 3) unit, body frame")
      .def_property_readonly("vertices", [](const OrientedPointCloud& c) { return points_to_array(c.vertices()); }, "(V, 3) body frame")
      .def_property_readonly("point_vertices", [](const OrientedPointCloud& c) { return index_rows_to_array(c.point_vertices()); },
                             "(I, 3) int32 vertex indices of each point (eq. (12)'s 1_fv), -1 unused")
      .def_property_readonly("mean_spacing", &OrientedPointCloud::mean_spacing, "mean nearest-neighbour distance")
      .def(
          "world_point",
          [](const OrientedPointCloud& c, int i, const PoseArg& X) {
            if (i < 0 || i >= c.size()) throw std::invalid_argument("world_point: index out of range");
            Mat36 J;
            const Vec3 p = c.world_point(i, X.value, &J);
            return py::make_tuple(p, J);
          },
          py::arg("i"), py::arg("X_WB"), "(p_W (3,), J (3, 6) = d p_W / d body twist = [-R skew(p) | R]) of point i.")
      .def(
          "world_normal",
          [](const OrientedPointCloud& c, int i, const PoseArg& X) {
            if (i < 0 || i >= c.size()) throw std::invalid_argument("world_normal: index out of range");
            Mat36 J;
            const Vec3 n = c.world_normal(i, X.value, &J);
            return py::make_tuple(n, J);
          },
          py::arg("i"), py::arg("X_WB"), "(n_W (3,), J (3, 6) = [-R skew(n) | 0]) of point i.");

  m.def("make_aopc", &make_aopc, py::arg("mesh"), py::arg("options") = AopcOptions{},
        "Samples an AOPC from a closed diffcol.mesh.TriangleMesh: area-weighted random candidates thinned by farthest-point\n"
        "sampling (sharp edges act as mirrors), each point with its face's normal; narrow faces sampled along their\n"
        "mid-line, and points added where a far direction would read inside (docs/ssdf.md). Deterministic. ValueError\n"
        "on bad options, or when the cloud's far-sign margin stays below 0.005 (raise num_points).");
  m.def(
      "far_sign_margin",
      [](const OrientedPointCloud& cloud) {
        Vec3 direction;
        int point = -1;
        const double margin = ssdf::far_sign_margin(cloud, &direction);
        ssdf::far_sign_margin(cloud.points(), cloud.normals(), nullptr, &point);
        return py::make_tuple(margin, direction, point);
      },
      py::arg("cloud"),
      "(margin, direction (3,), point): a lower bound of n_i . u over every far direction u and the point i extreme\n"
      "along it (positive: far queries read outside, at least beyond radius / margin), a direction where it is\n"
      "attained (about) and that point's index (docs/ssdf.md, \"Far queries\").");

  m.def(
      "soft_signed_distance",
      [](const OrientedPointCloud& cloud, const py::object& q, double eps1) {
        bool single = false;
        const std::vector<Vec3> p = points_from(q, "q", true, &single);
        SsdfWorkspace ws;
        std::vector<double> phi(p.size());
        std::vector<Vec3> grad(p.size());
        for (size_t i = 0; i < p.size(); ++i) phi[i] = soft_signed_distance(cloud, p[i], eps1, ws, &grad[i]);
        if (single) return py::make_tuple(phi[0], grad[0]);
        return py::make_tuple(vector_to_array(phi), points_to_array(grad));
      },
      py::arg("cloud"), py::arg("q"), py::arg("eps1"),
      "SSDF (9) at body-frame points q: (3,) -> (phi, grad (3,)); (n, 3) -> (phi (n,), grad (n, 3)). eps1 in length^2.\n"
      "ValueError on an invalid eps1 or non-finite q.");

  py::class_<SsdfQuery>(m, "SsdfQuery", "World-frame SSDF query: phi, J_phi_p (3,) = grad_p phi (world), J_phi_X (6,) = d phi / d twist of X_WB in frame.")
      .def_readonly("frame", &SsdfQuery::frame, "ReferenceFrame of J_phi_X")
      .def_readonly("phi", &SsdfQuery::phi, "phi(p), eq. (9)")
      .def_property_readonly("J_phi_p", [](const SsdfQuery& s) { return Vec3(s.J_phi_p); }, "(3,) grad_p phi, world frame")
      .def_property_readonly("J_phi_X", [](const SsdfQuery& s) { return Vec6(s.J_phi_X.transpose()); }, "(6,) d phi / d twist of X_WB (in frame)")
      .def("__repr__", [](const SsdfQuery& s) { return ReprBuilder("ssdf.SsdfQuery").field("phi", s.phi).str(); });
  m.def(
      "soft_signed_distance_world",
      [](const OrientedPointCloud& cloud, const PoseArg& X, const py::object& p, double eps1, ReferenceFrame f) {
        SsdfWorkspace ws;
        return soft_signed_distance(cloud, X.value, vec3_from(p, "p_W", false), eps1, ws, f);
      },
      py::arg("cloud"), py::arg("X_WB"), py::arg("p_W"), py::arg("eps1"), py::arg("frame") = ReferenceFrame::world,
      doc(std::string("SSDF (9) of the cloud posed at X_WB at the world point p_W, with derivatives: an SsdfQuery.\n"
                      "(The C++ overload soft_signed_distance(cloud, X_WB, p_W, eps1, ws).)") + kSsdfConventionsDoc));

  py::class_<SeparationResult>(m, "Separation", R"(Smooth separation between two posed clouds (Sec. III-B3): distance = sigma_eps2(-Phi12)^T Phi12
(< 0 penetration), J_distance_X (12,) = d distance / d [xi1 | xi2] (twists in frame), size1, size2 (I1,
I2), field = Phi12 (I1 + I2: SSDF of body 2 at body 1's points, then of body 1 at body 2's) and
distribution = sigma_eps2(-Phi12).)")
      .def_property_readonly("distance", [](const SeparationResult& s) { return s.separation.distance; }, "smooth separation distance")
      .def_property_readonly("J_distance_X", [](const SeparationResult& s) { return Eigen::Matrix<double, 12, 1>(s.separation.J_distance_X.transpose()); },
                             "(12,) d distance / d [xi1 | xi2]")
      .def_property_readonly("frame", [](const SeparationResult& s) { return s.separation.frame; }, "ReferenceFrame of J_distance_X")
      .def_property_readonly("size1", [](const SeparationResult& s) { return s.separation.size1; }, "I1")
      .def_property_readonly("size2", [](const SeparationResult& s) { return s.separation.size2; }, "I2")
      .def_readonly("field", &SeparationResult::field, "(I1 + I2,) Phi12")
      .def_readonly("distribution", &SeparationResult::distribution, "(I1 + I2,) sigma_eps2(-Phi12)")
      .def("__repr__", [](const SeparationResult& s) {
        return ReprBuilder("ssdf.Separation")
            .field("distance", s.separation.distance)
            .field("size1", static_cast<long>(s.separation.size1))
            .field("size2", static_cast<long>(s.separation.size2))
            .str();
      });
  m.def(
      "smooth_separation_distance",
      [](const OrientedPointCloud& c1, const PoseArg& X1, const OrientedPointCloud& c2, const PoseArg& X2, double eps1, double eps2,
         bool with_jacobian, ReferenceFrame f) {
        SsdfWorkspace ws;
        SeparationResult out;
        {
          py::gil_scoped_release release;
          out.separation = smooth_separation_distance(c1, X1.value, c2, X2.value, eps1, eps2, ws, with_jacobian, f);
        }
        out.field = vector_to_array(ws.field);
        out.distribution = vector_to_array(ws.distribution);
        return out;
      },
      py::arg("cloud1"), py::arg("X_W1"), py::arg("cloud2"), py::arg("X_W2"), py::arg("eps1"), py::arg("eps2"),
      py::arg("with_jacobian") = true, py::arg("frame") = ReferenceFrame::world,
      doc(std::string("Separation field, distribution and smooth separation distance (11) with its pose Jacobian: a Separation.\n"
                      "ValueError on invalid temperatures or non-finite poses.") + kSsdfConventionsDoc));

  py::class_<CollisionPoints>(m, "CollisionPoints", "collision_points' result: points (K, 3) world frame, masses (K,), J_points (K, 3, 12) = d c_k / d [xi1 | xi2] (twists in the frame passed).")
      .def_readonly("points", &CollisionPoints::points, "(K, 3) world-frame collision points c_k, eq. (13)")
      .def_readonly("masses", &CollisionPoints::masses, "(K,) selected masses Gamma^K(z) z")
      .def_readonly("J_points", &CollisionPoints::J_points, "(K, 3, 12) d c_k / d [xi1 | xi2] (twists in the frame passed)")
      .def("__repr__", [](const CollisionPoints& c) {
        return ReprBuilder("ssdf.CollisionPoints").field("points", static_cast<long>(c.masses.size())).str();
      });
  m.def(
      "collision_points",
      [](const OrientedPointCloud& c1, const PoseArg& X1, const OrientedPointCloud& c2, const PoseArg& X2, double eps1, double eps2, int K,
         double topk_temperature, ReferenceFrame f) {
        if (K < 1 || K > static_cast<int>(c1.vertices().size() + c2.vertices().size()))
          throw std::invalid_argument("collision_points: K must be in [1, V1 + V2]");
        SsdfWorkspace ws;
        std::vector<Vec3> pts(static_cast<size_t>(K));
        std::vector<double> masses(static_cast<size_t>(K));
        std::vector<Eigen::Matrix<double, 3, 12>> J(static_cast<size_t>(K));
        {
          py::gil_scoped_release release;
          collision_points(c1, X1.value, c2, X2.value, eps1, eps2, K, topk_temperature, ws, pts.data(), masses.data(), J.data(), f);
        }
        CollisionPoints out;
        out.points = points_to_array(pts);
        out.masses = vector_to_array(masses);
        out.J_points = py::array_t<double>({static_cast<py::ssize_t>(K), py::ssize_t(3), py::ssize_t(12)});
        double* d = out.J_points.mutable_data();
        for (int k = 0; k < K; ++k)
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 12; ++c) d[(k * 3 + r) * 12 + c] = J[static_cast<size_t>(k)](r, c);
        return out;
      },
      py::arg("cloud1"), py::arg("X_W1"), py::arg("cloud2"), py::arg("X_W2"), py::arg("eps1"), py::arg("eps2"), py::arg("K"),
      py::arg("topk_temperature"), py::arg("frame") = ReferenceFrame::world,
      doc(std::string("Reduction of the separation distribution to K collision points, eqs. (12)-(13) (SoftSort top-K of the\n"
                      "vertex masses): a CollisionPoints. ValueError on invalid temperatures or K outside [1, V1 + V2].") +
          kSsdfConventionsDoc));

  py::class_<ScmParameters>(m, "ScmParameters", "Contact parameters of eqs. (14)-(20) and the temperatures of (9), (23). validate() raises ValueError.")
      .def(py::init([](double k, double vd, double vs, double mu, double e1, double e2, double e3, double cutoff) {
             return ScmParameters{k, vd, vs, mu, e1, e2, e3, cutoff};
           }),
           py::arg("stiffness") = 1e3, py::arg("dissipation_velocity") = 0.1, py::arg("stiction_velocity") = 0.01,
           py::arg("friction") = 0.5, py::arg("eps1") = 1e-4, py::arg("eps2") = 1e-3, py::arg("eps3") = 1e-3,
           py::arg("weight_cutoff") = 0.0)
      .def("validate", &ScmParameters::validate, "ValueError on a non-finite or out-of-range field.")
      .def_readwrite("stiffness", &ScmParameters::stiffness, "k of eq. (15), N/m")
      .def_readwrite("dissipation_velocity", &ScmParameters::dissipation_velocity, "v_d of eqs. (16)-(17), m/s, > 0")
      .def_readwrite("stiction_velocity", &ScmParameters::stiction_velocity, "v_s of eq. (19), m/s, > 0")
      .def_readwrite("friction", &ScmParameters::friction, "mu of eq. (19), >= 0")
      .def_readwrite("eps1", &ScmParameters::eps1, "SSDF temperature (9), (22), length^2")
      .def_readwrite("eps2", &ScmParameters::eps2, "separation-distribution temperature (23), length")
      .def_readwrite("eps3", &ScmParameters::eps3, "softplus temperature of eq. (15), length")
      .def_readwrite("weight_cutoff", &ScmParameters::weight_cutoff, "opt-in truncation of tiny softmax weights, in [0, 1)");

  py::class_<PointPlaneForce>(m, "PointPlaneForce", "Point-plane force, eqs. (14)-(20): phi, normal_force, force (3,), J_force_p (3, 3), J_force_v (3, 3).")
      .def_readonly("phi", &PointPlaneForce::phi, "signed distance to the plane, eq. (14)")
      .def_readonly("normal_force", &PointPlaneForce::normal_force, "lambda_n, eq. (18)")
      .def_property_readonly("force", [](const PointPlaneForce& f) { return Vec3(f.force); }, "(3,) lambda, eq. (20): force on the moving point")
      .def_property_readonly("J_force_p", [](const PointPlaneForce& f) { return Mat3(f.J_force_p); }, "(3, 3) d lambda / d p (= -d lambda / d p_i)")
      .def_property_readonly("J_force_v", [](const PointPlaneForce& f) { return Mat3(f.J_force_v); }, "(3, 3) d lambda / d v")
      .def("__repr__", [](const PointPlaneForce& f) {
        return ReprBuilder("ssdf.PointPlaneForce").field("phi", f.phi).field("normal_force", f.normal_force).str();
      });
  m.def(
      "point_plane_force",
      [](const py::object& p, const py::object& v, const py::object& pp, const py::object& pn, const ScmParameters& params) {
        return point_plane_force(vec3_from(p, "p"), vec3_from(v, "v"), vec3_from(pp, "plane_point"),
                                 vec3_from(pn, "plane_normal"), params);
      },
      py::arg("p"), py::arg("v"), py::arg("plane_point"), py::arg("plane_normal"), py::arg("params") = ScmParameters{},
      "Contact force on a point at p moving with velocity v relative to the plane (plane_point, unit plane_normal), all in one\n"
      "frame: a PointPlaneForce. ValueError on invalid parameters, non-finite input or a non-unit normal.");

  py::class_<PointSsdfContact>(m, "PointSsdfContact", "Point-SSDF contact, eqs. (21)-(22): phi, wrench_A, wrench_B (6,) body wrenches [torque; force], J_phi_X (12,), J_wrench_X, J_wrench_V (12, 12).")
      .def_readonly("phi", &PointSsdfContact::phi, "SSDF of body B at the point")
      .def_property_readonly("wrench_A", [](const PointSsdfContact& c) { return Vec6(c.wrench_A); }, "(6,) body wrench on body A (the point's)")
      .def_property_readonly("wrench_B", [](const PointSsdfContact& c) { return Vec6(c.wrench_B); }, "(6,) body wrench on body B (the cloud's)")
      .def_property_readonly("J_phi_X", [](const PointSsdfContact& c) { return Eigen::Matrix<double, 12, 1>(c.J_phi_X.transpose()); }, "(12,) d phi / d [xiA | xiB]")
      .def_property_readonly("J_wrench_X", [](const PointSsdfContact& c) { return Mat12(c.J_wrench_X); }, "(12, 12) d [wrench_A; wrench_B] / d [xiA | xiB]")
      .def_property_readonly("J_wrench_V", [](const PointSsdfContact& c) { return Mat12(c.J_wrench_V); }, "(12, 12) d [wrench_A; wrench_B] / d [VA | VB]")
      .def("__repr__", [](const PointSsdfContact& c) { return ReprBuilder("ssdf.PointSsdfContact").field("phi", c.phi).str(); });
  m.def(
      "point_ssdf_contact",
      [](const py::object& a, const PoseArg& XA, const py::object& VA, const OrientedPointCloud& cloud, const PoseArg& XB, const py::object& VB,
         const ScmParameters& params, bool with_jacobians) {
        SsdfWorkspace ws;
        return point_ssdf_contact(vec3_from(a, "a"), XA.value, vec6_from(VA, "V_A"), cloud, XB.value, vec6_from(VB, "V_B"), params, ws,
                                  with_jacobians);
      },
      py::arg("a"), py::arg("X_WA"), py::arg("V_A"), py::arg("cloud_B"), py::arg("X_WB"), py::arg("V_B"), py::arg("params") = ScmParameters{},
      py::arg("with_jacobians") = true,
      doc(std::string("Point a (body-A coordinates) of body A (pose X_WA, body twist V_A) against cloud B (X_WB, V_B), eq. (22):\n"
                      "a PointSsdfContact. ValueError on invalid parameters or non-finite inputs.") + kSsdfConventionsDoc));

  py::class_<PairContact>(m, "PairContact", "SSDF-SSDF contact, eq. (23): separation, wrench_1, wrench_2 (6,), J_wrench_X, J_wrench_V (12, 12).")
      .def_readonly("separation", &PairContact::separation, "sigma_eps2(-Phi12)^T Phi12")
      .def_property_readonly("wrench_1", [](const PairContact& c) { return Vec6(c.wrench_1); }, "(6,) body wrench on body 1")
      .def_property_readonly("wrench_2", [](const PairContact& c) { return Vec6(c.wrench_2); }, "(6,) body wrench on body 2")
      .def_property_readonly("J_wrench_X", [](const PairContact& c) { return Mat12(c.J_wrench_X); }, "(12, 12) d [wrench_1; wrench_2] / d [xi1 | xi2]")
      .def_property_readonly("J_wrench_V", [](const PairContact& c) { return Mat12(c.J_wrench_V); }, "(12, 12) d [wrench_1; wrench_2] / d [V1 | V2]")
      .def("__repr__", [](const PairContact& c) { return ReprBuilder("ssdf.PairContact").field("separation", c.separation).str(); });
  m.def(
      "pair_contact",
      [](const OrientedPointCloud& c1, const PoseArg& X1, const py::object& V1, const OrientedPointCloud& c2, const PoseArg& X2,
         const py::object& V2, const ScmParameters& params, bool with_jacobians) {
        SsdfWorkspace ws;
        const Vec6 v1 = vec6_from(V1, "V1"), v2 = vec6_from(V2, "V2");
        py::gil_scoped_release release;
        return pair_contact(c1, X1.value, v1, c2, X2.value, v2, params, ws, with_jacobians);
      },
      py::arg("cloud1"), py::arg("X_W1"), py::arg("V1"), py::arg("cloud2"), py::arg("X_W2"), py::arg("V2"), py::arg("params") = ScmParameters{},
      py::arg("with_jacobians") = true,
      doc(std::string("Total SCM contact between two bodies (eq. (23)), cost O(I1 I2): a PairContact.\n"
                      "ValueError on invalid parameters or non-finite inputs.") + kSsdfConventionsDoc));
  (void)&check_pose_finite;
}

}  // namespace diffcol::python
