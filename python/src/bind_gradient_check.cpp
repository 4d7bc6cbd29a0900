// Python bindings of include/diffcol/math/gradient_check.hpp: finite-difference checks of
// Jacobians of Python callables of one pose, two poses or a vector.
#include <sstream>
#include <string>

#include "bindings.hpp"
#include "diffcol/math/gradient_check.hpp"

namespace diffcol::python {

namespace bind_gradient_check_local {

// The callable's result as a flat vector (a float, a list or an array of any shape).
Eigen::VectorXd as_vector(const py::object& r) {
  reject_complex(r, "gradient check: the function's result");
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(r);
  if (!a) throw py::type_error("gradient check: the function must return a number or an array of numbers");
  return Eigen::Map<const Eigen::VectorXd>(a.data(), a.size());
}

PoseFunction wrap1(const py::function& f) {
  return [f](const Pose& X) { return as_vector(f(X)); };
}
PosePairFunction wrap2(const py::function& f) {
  return [f](const Pose& X1, const Pose& X2) { return as_vector(f(X1, X2)); };
}
VectorFunction wrapv(const py::function& f) {
  return [f](const Eigen::VectorXd& q) { return as_vector(f(q)); };
}

// A (6,) / (12,) gradient arrives as a column: the analytic Jacobian of a scalar is one row.
Eigen::MatrixXd rows_of(Eigen::MatrixXd A) {
  if (A.cols() == 1) A.transposeInPlace();
  return A;
}

}  // namespace bind_gradient_check_local

void bind_gradient_check(py::module_& m) {
  using namespace bind_gradient_check_local;
  py::enum_<FdMethod>(m, "FdMethod", "Finite-difference scheme.")
      .value("central", FdMethod::central, "(f(+h) - f(-h)) / 2h")
      .value("richardson", FdMethod::richardson, "(4 D(h/2) - D(h)) / 3")
      .value("ridders", FdMethod::ridders, "Ridders' extrapolation with restarts (default)");

  py::class_<OutputBlock>(m, "OutputBlock", "A named range of output rows [offset, offset + size).")
      .def(py::init([](std::string name, int offset, int size) { return OutputBlock{std::move(name), offset, size}; }),
           py::arg("name"), py::arg("offset"), py::arg("size"))
      .def_readwrite("name", &OutputBlock::name, "Block name (in reports).")
      .def_readwrite("offset", &OutputBlock::offset, "First output row.")
      .def_readwrite("size", &OutputBlock::size, "Number of rows.");

  py::class_<GradientCheckOptions>(m, "GradientCheckOptions", R"(Settings of the finite-difference check.

An entry passes if |A - N| <= abs_tolerance or |A - N| / max(|A|, |N|) <= rel_tolerance
(scale taken over column_group consecutive columns of the row if column_group > 1).
blocks: list of OutputBlock (assign a whole list; appending to the returned copy has no effect).)")
      .def(py::init<>())
      .def_readwrite("step", &GradientCheckOptions::step, "Initial h (rad for w, length for v).")
      .def_readwrite("column_steps", &GradientCheckOptions::column_steps, "Per-column initial steps (empty: step).")
      .def_readwrite("method", &GradientCheckOptions::method, "FdMethod (default ridders).")
      .def_readwrite("ridders_levels", &GradientCheckOptions::ridders_levels, "Steps h/1.4^k, k < ridders_levels.")
      .def_readwrite("ridders_restarts", &GradientCheckOptions::ridders_restarts, "Further runs from 10x smaller steps while entries disagree.")
      .def_readwrite("frame", &GradientCheckOptions::frame, "ReferenceFrame of the twist columns (default world).")
      .def_readwrite("rel_tolerance", &GradientCheckOptions::rel_tolerance, "Relative tolerance (1e-6).")
      .def_readwrite("abs_tolerance", &GradientCheckOptions::abs_tolerance, "Absolute tolerance (1e-8).")
      .def_readwrite("column_group", &GradientCheckOptions::column_group, "Columns sharing a relative scale (1 = entrywise).")
      .def_readwrite("blocks", &GradientCheckOptions::blocks, "list of OutputBlock (empty: one block with every row).");

  py::class_<BlockError>(m, "BlockError", "Errors of one output block.")
      .def_readonly("name", &BlockError::name, "Block name.")
      .def_readonly("offset", &BlockError::offset, "First row.")
      .def_readonly("size", &BlockError::size, "Rows.")
      .def_readonly("max_abs_error", &BlockError::max_abs_error, "max |A - N| over the block.")
      .def_readonly("max_rel_error", &BlockError::max_rel_error, "max relative error over entries above abs_tolerance.")
      .def_readonly("worst_row", &BlockError::worst_row, "Row of the worst entry.")
      .def_readonly("worst_col", &BlockError::worst_col, "Column of the worst entry.")
      .def_readonly("worst_analytic", &BlockError::worst_analytic, "Analytic value there.")
      .def_readonly("worst_numeric", &BlockError::worst_numeric, "Finite-difference value there.")
      .def_readonly("worst_ratio", &BlockError::worst_ratio, "min(abs/abs_tol, rel/rel_tol) there; <= 1 passes.")
      .def_readonly("worst_fd_error", &BlockError::worst_fd_error, "Finite-difference error estimate there.")
      .def_readonly("passed", &BlockError::passed, "Every entry passed.")
      .def("__repr__", [](const BlockError& b) {
        return ReprBuilder("BlockError")
            .field("name", py::repr(py::str(b.name)).cast<std::string>())
            .field("passed", b.passed)
            .field("max_abs_error", b.max_abs_error)
            .field("max_rel_error", b.max_rel_error)
            .str();
      });

  py::class_<GradientCheckResult>(m, "GradientCheckResult", "Result of a gradient check.")
      .def_readonly("blocks", &GradientCheckResult::blocks, "list of BlockError")
      .def_readonly("numeric", &GradientCheckResult::numeric, "The finite-difference Jacobian.")
      .def_readonly("fd_error", &GradientCheckResult::fd_error, "Its estimated error per entry (Ridders).")
      .def_readonly("shape_ok", &GradientCheckResult::shape_ok, "Analytic and numeric Jacobians have the same shape.")
      .def_property_readonly("passed", &GradientCheckResult::passed, "Every block passed (a bool, not a method).")
      .def_property_readonly("max_abs_error", &GradientCheckResult::max_abs_error, "Largest absolute error.")
      .def_property_readonly("max_rel_error", &GradientCheckResult::max_rel_error, "Largest relative error.")
      .def("report", &GradientCheckResult::report, "One line per block.")
      .def("__bool__", &GradientCheckResult::passed, "passed.")
      .def("__repr__", [](const GradientCheckResult& r) {
        std::ostringstream os;
        os.precision(10);
        os << "GradientCheckResult(passed=" << (r.passed() ? "True" : "False") << ", blocks=" << r.blocks.size()
           << ", max_abs_error=" << r.max_abs_error() << ", max_rel_error=" << r.max_rel_error() << ")";
        return os.str();
      });

  m.def(
      "perturb", refuse_complex(&perturb), py::arg("X"), py::arg("xi"), py::arg("frame"),
      "The perturbed pose: exp(xi^) X (world) or X exp(xi^) (body), xi = [w; v]. ValueError for a "
      "non-finite input or result.");

  static const std::string check_doc = std::string(R"(Checks an analytic Jacobian of f against finite differences on SE(3).

check_pose_gradient(f, X, analytic, options)       f(X) -> array; analytic (m, 6)
check_pose_gradient(f, X1, X2, analytic, options)  f(X1, X2) -> array; analytic (m, 12) = [pose 1 | pose 2]
f returns a number or an array (flattened to m outputs); a (6,) / (12,) analytic is one row.
Poses are perturbed through the exponential map on options.frame (world: the X1 / X2 blocks of
ContactDerivatives, body: the X12 blocks). Returns a GradientCheckResult (truthy if passed).
)") + kConventionsDoc;
  m.def(
      "check_pose_gradient",
      [](const py::function& f, const Pose& X, const Real<Eigen::MatrixXd>& A, const GradientCheckOptions& o) {
        return check_pose_gradient(wrap1(f), X, rows_of(A), o);
      },
      py::arg("f"), py::arg("X"), py::arg("analytic"), py::arg("options") = GradientCheckOptions{}, check_doc.c_str());
  m.def(
      "check_pose_gradient",
      [](const py::function& f, const Pose& X1, const Pose& X2, const Real<Eigen::MatrixXd>& A,
         const GradientCheckOptions& o) { return check_pose_gradient(wrap2(f), X1, X2, rows_of(A), o); },
      py::arg("f"), py::arg("X1"), py::arg("X2"), py::arg("analytic"), py::arg("options") = GradientCheckOptions{});
  m.def(
      "check_gradient",
      [](const py::function& f, const Real<Eigen::VectorXd>& q, const Real<Eigen::MatrixXd>& A, const GradientCheckOptions& o) {
        return check_gradient(wrapv(f), q, q.size() == 1 ? static_cast<const Eigen::MatrixXd&>(A) : rows_of(A), o);
      },
      py::arg("f"), py::arg("q"), py::arg("analytic"), py::arg("options") = GradientCheckOptions{},
      "Checks the Jacobian (m, n) of f(q) -> array (plain vector input q (n,)) against finite differences.");
  m.def(
      "numeric_jacobian",
      [](const py::function& f, const Pose& X, const GradientCheckOptions& o) {
        return numeric_jacobian(wrap1(f), X, o);
      },
      py::arg("f"), py::arg("X"), py::arg("options") = GradientCheckOptions{},
      "Finite-difference Jacobian (m, 6) of f(X) on options.frame.");
  m.def(
      "numeric_jacobian",
      [](const py::function& f, const Pose& X1, const Pose& X2, const GradientCheckOptions& o) {
        return numeric_jacobian(wrap2(f), X1, X2, o);
      },
      py::arg("f"), py::arg("X1"), py::arg("X2"), py::arg("options") = GradientCheckOptions{},
      "Finite-difference Jacobian (m, 12) of f(X1, X2).");
}

}  // namespace diffcol::python
