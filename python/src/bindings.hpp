#pragma once
// Shared declarations of the diffcol Python module (_diffcol). One bind_<layer>.cpp per library
// layer registers its types and functions; module.cpp calls them in dependency order.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <type_traits>
#include <vector>

#include "diffcol/dcol/primitives.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/math/se3.hpp"

namespace diffcol::python {

namespace py = pybind11;

void bind_math(py::module_& m);            // bind_math.cpp: Pose, SE(3) exp/log, adjoint
void bind_status(py::module_& m);          // bind_status.cpp: SolveStatus, DerivativeStatus, ... (status.hpp)
void bind_shapes(py::module_& m);          // bind_shapes.cpp: the primitives and Shape
void bind_idcol(py::module_& m);           // bind_idcol.cpp: solver, derivatives, wrenches, sweep
void bind_gradient_check(py::module_& m);  // bind_gradient_check.cpp: finite-difference checker
void bind_batch(py::module_& m);           // bind_batch.cpp: ContactBatch, thread pool
void bind_dcol(py::module_& m);            // bind_dcol.cpp: submodule dcol (DCOL primitives, solve, derivatives)
void bind_qp(py::module_& m);              // bind_qp.cpp: submodule qp (DiffPills proximity QPs, derivatives)
void bind_view(py::module_& m);            // bind_view.cpp: view(...) (HTML viewer), has_viewer
void bind_mesh(py::module_& m);            // bind_mesh.cpp: submodule mesh (closed triangle meshes)
void bind_smooth(py::module_& m);          // bind_smooth.cpp: submodule smooth (soft operators)
void bind_manifold(py::module_& m);        // bind_manifold.cpp: submodule manifold (Contax SDFs, manifold)
void bind_ssdf(py::module_& m);            // bind_ssdf.cpp: submodule ssdf (AOPC, SSDF, SCM forces)
void bind_sim(py::module_& m);            // bind_sim.cpp: submodule diffcol.sim (after scene)
void bind_scene(py::module_& m);          // bind_scene.cpp: Scene, SceneQueryResult (after dcol, qp)
void bind_dynamics(py::module_& m);        // bind_dynamics.cpp: ssdf.Scene, step, rollout (after bind_ssdf)
void bind_plan(py::module_& m);            // bind_plan.cpp: submodule plan (trajectory optimization; after bind_scene)

/// Shared text of the docstrings: frames, twists and Jacobian layout.
extern const char* const kConventionsDoc;

/// Rejects complex numbers (a complex numpy array or scalar, or a sequence holding one): the
/// conversion to double would drop the imaginary part silently. @throws py::type_error naming `what`.
void reject_complex(const py::handle& obj, const std::string& what);

/// An Eigen argument (Vec3, Mat3, Eigen::MatrixXd, ...) that refuses complex input: a parameter
/// `const Real<Vec3>& y` converts like `const Vec3& y` and is one, but a complex array raises
/// TypeError (reject_complex) instead of losing its imaginary part.
template <class M>
struct Real : M {
  Real() = default;
  Real(M m) : M(std::move(m)) {}
};

/// refuse_complex(&f): f with every Eigen (plain matrix) parameter taken as Real<M>, so that a
/// complex array raises TypeError (for bindings of function pointers).
template <class A, class = void>
struct real_arg {
  using type = A;
};
template <class A>
struct real_arg<A, std::enable_if_t<std::is_base_of_v<Eigen::PlainObjectBase<std::decay_t<A>>, std::decay_t<A>>>> {
  using type = const Real<std::decay_t<A>>&;
};
template <class R, class... A>
auto refuse_complex(R (*f)(A...)) {
  return [f](typename real_arg<A>::type... a) -> R { return f(a...); };
}
template <class R, class... A>
auto refuse_complex(R (*f)(A...) noexcept) {
  return [f](typename real_arg<A>::type... a) -> R { return f(a...); };
}
template <class R, class C, class... A>
auto refuse_complex(R (C::*f)(A...) const) {
  return [f](const C& c, typename real_arg<A>::type... a) -> R { return (c.*f)(a...); };
}
template <class R, class C, class... A>
auto refuse_complex(R (C::*f)(A...) const noexcept) {
  return [f](const C& c, typename real_arg<A>::type... a) -> R { return (c.*f)(a...); };
}

/// A fixed-size Eigen argument (Vec3, Mat3, ...) from an array-like, complex rejected
/// (reject_complex); TypeError naming `what` when it does not convert.
template <class M>
M eigen_arg(const py::handle& obj, const std::string& what) {
  reject_complex(obj, what);
  try {
    return obj.cast<M>();
  } catch (const py::cast_error&) {
    throw py::type_error(what + ": expected an array of real numbers of shape " +
                         (M::ColsAtCompileTime == 1 ? "(" + std::to_string(M::RowsAtCompileTime) + ",)"
                                                    : "(" + std::to_string(M::RowsAtCompileTime) + ", " +
                                                          std::to_string(M::ColsAtCompileTime) + ")"));
  }
}

/// Converts one pose given as a Pose, a 7-vector [x, y, z, qw, qx, qy, qz] or a 4×4 homogeneous
/// matrix. @throws std::invalid_argument (→ ValueError) naming `what` on anything else.
Pose pose_from_object(const py::handle& obj, const std::string& what);

/// Converts an array of 7-vectors / 4×4 matrices (rows of `data`, already C-contiguous doubles)
/// into poses; `what` names the argument in error messages.
/// layout 7: rows of 7 numbers; layout 16: row-major 4×4 matrices.
void poses_from_buffer(const double* data, long count, int layout, const std::string& what, Pose* out);

/// A pose as [x, y, z, qw, qx, qy, qz] (qw ≥ 0) and as a 4×4 matrix.
Eigen::Matrix<double, 7, 1> pose_to_vector(const Pose& g);
Eigen::Matrix4d pose_to_matrix(const Pose& g);

/// A pose argument: accepts a Pose, or any array-like of shape (7,) or (4, 4). Unlike the implicit
/// conversion of Pose (which gives TypeError), an array-like with a bad shape or bad values
/// (non-finite, zero quaternion, not a rotation) raises ValueError with the reason.
struct PoseArg {
  Pose value;
};

/// The state of an object being unpickled: a tuple of `size` entries.
/// @throws std::invalid_argument (→ ValueError) naming `what` otherwise.
inline py::tuple pickle_state(const py::handle& state, size_t size, const std::string& what) {
  if (!py::isinstance<py::tuple>(state) || py::len(state) != size)
    throw std::invalid_argument(what + ": the pickled state must be a tuple of " + std::to_string(size) + " entries");
  return py::reinterpret_borrow<py::tuple>(state);
}

/// Whether h is one of the seven diffcol.dcol primitive classes.
bool is_dcol_primitive(const py::handle& h);
/// h as a DCOL primitive. @throws py::type_error naming `what` if it is not one.
dcol::Primitive to_dcol_primitive(const py::handle& h, const char* what);

/// Checks SolveOptions' ranges (those of the CLI). @throws std::invalid_argument (→ ValueError).
void check_solve_options(const idcol::SolveOptions& options);

/// Docstring of a result field of ContactSolution ("alpha", "x_B1", ...) or of a Jacobian block
/// J_<out>_<in> (of ContactDerivatives / ContactWrenches); `shape` is its numpy shape, e.g. "(3, 6)".
std::string field_doc(const std::string& name, const std::string& shape);

/// numpy shape text of a field type: "()" for double, "(3,)" for Vec3, "(3, 6)" for Mat36, ...
template <class M>
std::string shape_text() {
  if constexpr (std::is_arithmetic_v<M>) {
    return "()";
  } else {
    // appended piece by piece: "(" + std::string&& trips g++ 12's -Wrestrict false positive
    std::string s = "(";
    if constexpr (M::RowsAtCompileTime == 1 || M::ColsAtCompileTime == 1) {
      s += std::to_string(M::SizeAtCompileTime);
      s += ",)";
    } else {
      s += std::to_string(M::RowsAtCompileTime);
      s += ", ";
      s += std::to_string(M::ColsAtCompileTime);
      s += ")";
    }
    return s;
  }
}

/// Docstring storage: concatenations that must outlive the module definition.
const char* doc(std::string text);

/// Docstring of a result field or of a Jacobian block "J_<out>_<in>": `fields` describes the
/// outputs by name, `wrt(in)` the input of a block; `suffix` ends a Jacobian's text.
inline std::string block_doc(const std::string& name, const std::string& shape,
                             std::span<const std::pair<const char*, const char*>> fields,
                             const std::function<std::string(const std::string&)>& wrt, const char* suffix = "") {
  auto describe = [&](const std::string& n) -> std::string {
    for (const auto& [k, v] : fields)
      if (n == k) return v;
    return n;
  };
  if (name.rfind("J_", 0) != 0) return describe(name) + "; shape " + shape + ".";
  const size_t cut = name.rfind('_');
  const std::string out = name.substr(2, cut - 2), in = name.substr(cut + 1);
  return "Jacobian of " + out + " (" + describe(out) + ") with respect to " + wrt(in) + suffix + "; shape " + shape +
         ".";
}

/// A read-write property for an options field whose setter validates a copy first (check throws
/// std::invalid_argument, i.e. ValueError), so a bad value never lands in the object.
template <class T, class M>
void def_checked(py::class_<T>& c, const char* name, M T::*member, const char* text, void (*check)(const T&)) {
  c.def_property(
      name, [member](const T& o) { return o.*member; },
      [member, check](T& o, M v) {
        T copy = o;
        copy.*member = v;
        check(copy);
        o = copy;
      },
      text);
}

/// __repr__ text of a result: "<name>(key=value, ...)", numbers with 10 significant digits.
class ReprBuilder {
 public:
  explicit ReprBuilder(const std::string& name) { os_.precision(10); os_ << name << "("; }
  ReprBuilder& field(const char* key, double v) { return put(key), os_ << v, *this; }
  ReprBuilder& field(const char* key, long v) { return put(key), os_ << v, *this; }
  ReprBuilder& field(const char* key, int v) { return field(key, static_cast<long>(v)); }
  ReprBuilder& field(const char* key, bool v) { return put(key), os_ << (v ? "True" : "False"), *this; }
  ReprBuilder& field(const char* key, const char* text) { return put(key), os_ << text, *this; }
  ReprBuilder& field(const char* key, const std::string& text) { return field(key, text.c_str()); }
  std::string str() const { return os_.str() + ")"; }

 private:
  void put(const char* key) { os_ << (first_ ? "" : ", ") << key << "=", first_ = false; }
  std::ostringstream os_;
  bool first_ = true;
};

/// The smallest entry of a numpy array as repr text ("None" for an empty array).
inline std::string array_min_text(const py::object& a) {
  if (a.attr("size").cast<long>() == 0) return "None";
  std::ostringstream os;
  os.precision(10);
  os << a.attr("min")().cast<double>();
  return os.str();
}

}  // namespace diffcol::python

namespace pybind11::detail {

template <>
struct type_caster<diffcol::python::PoseArg> {
  PYBIND11_TYPE_CASTER(diffcol::python::PoseArg, const_name("Pose"));

  bool load(handle src, bool /*convert*/) {
    if (isinstance<diffcol::Pose>(src)) {
      value.value = src.cast<diffcol::Pose>();
      return true;
    }
    // array-likes only (not strings, not arbitrary objects: those give TypeError)
    if (isinstance<str>(src) || isinstance<bytes>(src)) return false;
    if (!isinstance<array>(src) && !PySequence_Check(src.ptr())) return false;
    value.value = diffcol::python::pose_from_object(src, "");
    return true;
  }
  static handle cast(const diffcol::python::PoseArg& src, return_value_policy policy, handle parent) {
    return type_caster_base<diffcol::Pose>::cast(src.value, policy, parent);
  }
};

// (the second argument makes this more specialized than pybind11's caster of Eigen types, which
// Real<M> also is)
template <class M>
struct type_caster<diffcol::python::Real<M>, enable_if_t<is_eigen_dense_plain<diffcol::python::Real<M>>::value>> {
  PYBIND11_TYPE_CASTER(diffcol::python::Real<M>, make_caster<M>::name);

  bool load(handle src, bool convert) {
    diffcol::python::reject_complex(src, "");
    make_caster<M> inner;
    if (!inner.load(src, convert)) return false;
    value = diffcol::python::Real<M>(cast_op<M&&>(std::move(inner)));
    return true;
  }
  static handle cast(const diffcol::python::Real<M>& src, return_value_policy policy, handle parent) {
    return make_caster<M>::cast(static_cast<const M&>(src), policy, parent);
  }
};

}  // namespace pybind11::detail
