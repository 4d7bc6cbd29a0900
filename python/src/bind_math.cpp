// Python bindings of include/diffcol/math/se3.hpp: Pose and the SE(3) maps.
#include <charconv>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "bindings.hpp"

namespace diffcol::python {

const char* const kConventionsDoc = R"(
Conventions (the same as the C++ library)
-----------------------------------------
Poses: X_W1, X_W2 are the poses of body 1 and body 2 in the world frame W (world_from_body:
  p_W = R p_B + p). A pose can be given as a diffcol.Pose, a 7-vector
  [x, y, z, qw, qx, qy, qz] (quaternion w first, normalized for you) or a 4x4 matrix.
  X_12 = X_W1^-1 X_W2 is the pose of body 2 in body 1.
Frames of outputs: names ending in _B1 are in body 1's frame, _W in the world frame; alpha,
  lambda1, lambda2 and gap are frame-free scalars. normal points out of body 1 towards body 2.
Twists are 6-vectors ordered [w; v] (angular first).
  X12 columns: body twist xi of body 2 relative to body 1, X_12 <- X_12 exp(xi^).
  X1 / X2 columns: world twist eta of body 1 / 2, X_Wi <- exp(eta^) X_Wi (w: angular velocity
  in world axes, v: velocity of the point at the world origin).
Jacobians are named J_<output>_<input> (e.g. J_alpha_X2 = d alpha / d twist of body 2): rows
  are the output's components, the 6 columns the twist [w; v]. Scalar outputs give arrays of
  shape (6,), 3-vectors (3, 6), z = (x_B1, alpha, lambda1, lambda2) (6, 6).
)";

namespace bind_math_local {

// "what: " or nothing (the library's messages already start with "pose:").
std::string prefix(const std::string& what) { return what.empty() ? std::string() : what + ": "; }

// Shortest decimal that reads back to the same double.
std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

void check_rotation_row(const Eigen::Matrix4d& T, const std::string& what) {
  if (!T.allFinite()) throw std::invalid_argument(prefix(what) + "pose: matrix is not finite");
  if (std::abs(T(3, 0)) > 1e-12 || std::abs(T(3, 1)) > 1e-12 || std::abs(T(3, 2)) > 1e-12 ||
      std::abs(T(3, 3) - 1.0) > 1e-12)
    throw std::invalid_argument(prefix(what) + "pose: the last row of a 4x4 pose must be [0, 0, 0, 1]");
}

Pose from_matrix(const Eigen::Matrix4d& T, const std::string& what) {
  check_rotation_row(T, what);
  try {
    return Pose::from_rotation(T.topLeftCorner<3, 3>(), T.topRightCorner<3, 1>());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(prefix(what) + e.what());
  }
}

Pose from_vector7(const double* v, const std::string& what) {
  try {
    return Pose::from_quaternion(Vec3(v[0], v[1], v[2]), v[3], v[4], v[5], v[6]);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(prefix(what) + e.what());
  }
}

}  // namespace bind_math_local

void poses_from_buffer(const double* data, long count, int layout, const std::string& what, Pose* out) {
  for (long i = 0; i < count; ++i) {
    const double* row = data + i * layout;
    if (layout == 7) {
      // the message names the pose only when there is an error (no string work otherwise)
      try {
        out[i] = Pose::from_quaternion(Vec3(row[0], row[1], row[2]), row[3], row[4], row[5], row[6]);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(what + " (pose " + std::to_string(i) + "): " + e.what());
      }
    } else {
      const Eigen::Map<const Eigen::Matrix<double, 4, 4, Eigen::RowMajor>> T(row);
      out[i] = bind_math_local::from_matrix(T, what + " (pose " + std::to_string(i) + ")");
    }
  }
}

void reject_complex(const py::handle& obj, const std::string& what) {
  bool complex = PyComplex_Check(obj.ptr());
  if (!complex && !py::isinstance<py::str>(obj) && !py::isinstance<py::bytes>(obj)) {
    const py::array a = py::array::ensure(obj);  // its own dtype; empty (error cleared) if not array-like
    complex = a && a.dtype().kind() == 'c';
  }
  if (complex)
    throw py::type_error((what.empty() ? std::string("argument") : what) +
                         ": complex numbers are not accepted (the imaginary part would be dropped)");
}

Pose pose_from_object(const py::handle& obj, const std::string& what) {
  if (py::isinstance<Pose>(obj)) return obj.cast<Pose>();
  reject_complex(obj, what.empty() ? "pose" : what);
  py::array_t<double, py::array::c_style | py::array::forcecast> a;
  try {
    a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(obj);
  } catch (const py::error_already_set&) {
  }
  if (!a) throw std::invalid_argument(bind_math_local::prefix(what) + "pose: expected a Pose, a 7-vector [x, y, z, qw, qx, qy, qz] or a 4x4 matrix");
  if (a.ndim() == 1 && a.shape(0) == 7) return bind_math_local::from_vector7(a.data(), what);
  if (a.ndim() == 2 && a.shape(0) == 4 && a.shape(1) == 4) {
    const Eigen::Map<const Eigen::Matrix<double, 4, 4, Eigen::RowMajor>> T(a.data());
    return bind_math_local::from_matrix(T, what);
  }
  std::ostringstream shape;
  for (py::ssize_t k = 0; k < a.ndim(); ++k) shape << (k ? ", " : "") << a.shape(k);
  throw std::invalid_argument(bind_math_local::prefix(what) + "pose: expected a Pose, a 7-vector [x, y, z, qw, qx, qy, qz] or a 4x4 matrix, got an array of shape (" +
                              shape.str() + ")");
}

const char* doc(std::string text) {
  static std::vector<std::unique_ptr<std::string>> store;
  store.push_back(std::make_unique<std::string>(std::move(text)));
  return store.back()->c_str();
}

Eigen::Matrix<double, 7, 1> pose_to_vector(const Pose& g) {
  const Eigen::Quaterniond q = g.quaternion();
  Eigen::Matrix<double, 7, 1> v;
  v << g.p, q.w(), q.x(), q.y(), q.z();
  return v;
}

Eigen::Matrix4d pose_to_matrix(const Pose& g) {
  Eigen::Matrix4d T = Eigen::Matrix4d::Identity();
  T.topLeftCorner<3, 3>() = g.R;
  T.topRightCorner<3, 1>() = g.p;
  return T;
}

void bind_math(py::module_& m) {
  using namespace bind_math_local;
  py::class_<Pose> pose(m, "Pose", R"(A rigid transform X_AB (frame B in frame A): p_A = R p_B + p.

Construct with
  Pose()                                   the identity
  Pose([x, y, z, qw, qx, qy, qz])          position and quaternion (w first; normalized)
  Pose(T)                                  a 4x4 homogeneous matrix (last row [0, 0, 0, 1])
  Pose.from_quaternion(position, [qw, qx, qy, qz])
  Pose.from_rotation(R, p)                 R a 3x3 rotation (checked to 1e-6), p a 3-vector
Wherever diffcol takes a pose, a 7-vector or a 4x4 array is accepted as well.
Invalid input (non-finite, zero quaternion, not a rotation) raises ValueError.)");
  pose.def(py::init<>(), "The identity pose.")
      .def(py::init([](const py::object& obj) { return pose_from_object(obj, ""); }), py::arg("pose"),
           "A pose from a 7-vector [x, y, z, qw, qx, qy, qz] or a 4x4 matrix (or a copy of a Pose).")
      .def_static(
          "from_quaternion",
          [](const Real<Vec3>& position, const Real<Eigen::Vector4d>& q) {
            return Pose::from_quaternion(position, q[0], q[1], q[2], q[3]);
          },
          py::arg("position"), py::arg("quaternion"),
          "Pose from a position (3,) and a quaternion (4,) ordered (w, x, y, z); the quaternion is "
          "normalized. Raises ValueError for a zero or non-finite quaternion or a non-finite position.")
      .def_static("from_rotation", refuse_complex(&Pose::from_rotation), py::arg("R"), py::arg("p"),
                  "Pose from a 3x3 rotation matrix and a position. Raises ValueError if R is not a "
                  "rotation (to 1e-6) or an entry is not finite.")
      .def_static(
          "from_matrix", [](const Real<Eigen::Matrix4d>& T) { return from_matrix(T, ""); }, py::arg("T"),
          "Pose from a 4x4 homogeneous matrix [[R, p], [0, 0, 0, 1]].")
      .def_static("identity", &Pose::identity, "The identity pose.")
      .def_property_readonly("R", [](const Pose& g) { return Mat3(g.R); }, "Rotation matrix (3, 3) (a copy).")
      .def_property_readonly("p", [](const Pose& g) { return Vec3(g.p); }, "Translation (3,) (a copy).")
      .def(
          "quaternion",
          [](const Pose& g) {
            const Eigen::Quaterniond q = g.quaternion();
            return Eigen::Vector4d(q.w(), q.x(), q.y(), q.z());
          },
          "The unit quaternion (w, x, y, z) of R, with w >= 0.")
      .def("matrix", &pose_to_matrix, "The 4x4 homogeneous matrix.")
      .def("to_vector", &pose_to_vector, "[x, y, z, qw, qx, qy, qz] (qw >= 0).")
      .def("inverse", &Pose::inverse, "The inverse transform X_BA.")
      .def("is_finite", &Pose::is_finite, "True when every entry is finite.")
      .def(
          "__mul__", [](const Pose& a, const Pose& b) { return a * b; }, py::is_operator(),
          "Composition X_AC = X_AB * X_BC.")
      .def(
          "__mul__",
          [](const Pose& a, const Real<Vec3>& x) {
            const Vec3 y = a * x;
            if (!y.allFinite()) throw std::invalid_argument("Pose * x: x must be finite and the result must not overflow");
            return y;
          },
          py::is_operator(), "Transforms a point: R x + p. ValueError for a non-finite x or result.")
      .def("__repr__",
           [](const Pose& g) {
             const Eigen::Matrix<double, 7, 1> v = pose_to_vector(g);
             return "Pose(p=[" + shortest(v[0]) + ", " + shortest(v[1]) + ", " + shortest(v[2]) + "], q_wxyz=[" +
                    shortest(v[3]) + ", " + shortest(v[4]) + ", " + shortest(v[5]) + ", " + shortest(v[6]) + "])";
           })
      .def(py::pickle([](const Pose& g) { return pose_to_matrix(g); },
                      [](const Eigen::Matrix4d& T) { return from_matrix(T, "Pose"); }));
  py::implicitly_convertible<py::array, Pose>();
  py::implicitly_convertible<py::list, Pose>();
  py::implicitly_convertible<py::tuple, Pose>();

  // NaN/inf in, or an overflowing result out: ValueError, not a silent NaN (the SE(3) maps check
  // in C++, math/se3.hpp; skew does not)
  const auto finite = [](const auto& v, const char* what) {
    if (!v.allFinite()) throw std::invalid_argument(std::string(what) + ": entries must be finite");
  };
  m.def(
      "skew", [finite](const Real<Vec3>& v) { finite(v, "skew: v"); return skew(v); }, py::arg("v"),
      "The skew-symmetric matrix of v: skew(v) @ u = cross(v, u). ValueError for a non-finite v.");
  m.def("so3_exp", refuse_complex(&so3_exp), py::arg("w"),
        "Rodrigues' formula, exp: so(3) -> SO(3). ValueError for a non-finite w or result.");
  m.def("so3_log", refuse_complex(&so3_log), py::arg("R"), "Inverse of so3_exp, with |result| <= pi. ValueError for a non-finite R.");
  m.def("rotation_between", refuse_complex(&rotation_between), py::arg("a"), py::arg("b"),
        "The rotation (3, 3) by the smallest angle taking the direction of a to that of b (about a x b; for "
        "opposite directions a half-turn). a, b need not be unit vectors. ValueError if either is zero or not finite.");
  m.def("se3_exp", refuse_complex(&se3_exp), py::arg("xi"),
        "exp: se(3) -> SE(3) for a twist xi = [w; v] (6,). ValueError for a non-finite xi or result.");
  m.def("se3_log", &se3_log, py::arg("g"), "Inverse of se3_exp: the twist [w; v] (6,).");
  m.def("adjoint", &adjoint, py::arg("g"),
        "The 6x6 adjoint Ad_g for twists ordered [w; v]: a body twist xi of g is the world twist Ad_g xi.");
  py::enum_<ReferenceFrame>(m, "ReferenceFrame", R"(The frame of a twist and of the 6 columns [w; v] of a pose Jacobian.

world: X <- exp(eta^) X (w in world axes, v the velocity of the point at the world origin);
local: X <- X exp(zeta^) (body twist, body axes); local_world_aligned: [w; v] in world axes with v
the velocity of the body origin (MuJoCo's mj_jac). See docs/conventions.md.)")
      .value("world", ReferenceFrame::world)
      .value("local", ReferenceFrame::local)
      .value("local_world_aligned", ReferenceFrame::local_world_aligned);
  m.def(
      "world_twist_from_frame",
      [](ReferenceFrame f, const Pose& X) { return world_twist_from_frame(f, X); }, py::arg("frame"), py::arg("X_WB"),
      "M (6, 6) with eta = M tau: the world twist of a body at X_WB from its twist tau in frame.");
  m.def(
      "express_in_frame",
      [](const Eigen::MatrixXd& J, ReferenceFrame f, const Pose& X) {
        if (J.cols() != 6 || !J.allFinite()) throw std::invalid_argument("express_in_frame: J must be a finite (k, 6) array");
        Eigen::MatrixXd out = J;
        express_in_frame(out, f, X);
        return out;
      },
      py::arg("J"), py::arg("frame"), py::arg("X_WB"),
      "J (k, 6) with world-twist columns re-expressed in frame: J @ world_twist_from_frame(frame, X_WB).");

}

}  // namespace diffcol::python
