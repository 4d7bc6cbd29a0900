// Python bindings of include/diffcol/math/smooth.hpp as the submodule diffcol.smooth: the smooth
// operators of the Contax seed (Sec. III) with their derivatives and hard (t = 0) modes.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "diffcol/math/smooth.hpp"

namespace diffcol::python {

namespace bind_smooth_local {

const char* const kTemperatureDoc =
    "\nTemperature t >= 0 in the units of the input; t = 0 is the hard (non-smoothed) operator.\n"
    "ValueError on t < 0 or a non-finite t.";

std::string with_t(const char* text) { return std::string(text) + kTemperatureDoc; }

// NaN inputs are rejected (±inf is allowed: the operators define their limits, e.g. a masked -inf
// entry of logsumexp).
void reject_nan(const double* v, size_t n, const char* what) {
  for (size_t i = 0; i < n; ++i)
    if (std::isnan(v[i])) throw std::invalid_argument(std::string(what) + ": NaN input");
}

std::vector<double> values_from(const py::object& obj, const char* what) {
  std::vector<double> v = vector_from(obj, what);
  reject_nan(v.data(), v.size(), what);
  return v;
}

// The top-K family sorts and differences its inputs: every entry must be finite.
void require_finite_entries(const std::vector<double>& v, const char* what) {
  require_finite(v.data(), static_cast<py::ssize_t>(v.size()), what);
}

// A soft permutation matrix: entries in [0, 1].
void require_soft_permutation(const std::vector<double>& p) {
  for (double e : p)
    if (!(e >= 0.0 && e <= 1.0)) throw std::invalid_argument("P: entries must be in [0, 1] (P = soft_top_k(x, k, t)[0])");
}

template <class A>
A finite_result(A out, const char* what) {
  const double* d = out.data();
  for (py::ssize_t i = 0; i < out.size(); ++i)
    if (!std::isfinite(d[i])) throw std::invalid_argument(std::string(what) + ": the result overflows");
  return out;
}

template <auto F, class... A>
double checked(A... a) {
  const double args[] = {static_cast<double>(a)...};
  reject_nan(args, sizeof...(A), "smooth");
  return F(a...);
}

// (value, weights) of logsumexp / softmin.
template <double (*F)(const double*, int, double, double*)>
py::tuple value_and_weights(const py::object& x, double t) {
  const std::vector<double> v = values_from(x, "x");
  py::array_t<double> w(static_cast<py::ssize_t>(v.size()));
  const double value = F(v.data(), static_cast<int>(v.size()), t, w.mutable_data());
  return py::make_tuple(value, w);
}

template <void (*F)(const double*, int, double, double*)>
py::array_t<double> weights_only(const py::object& x, double t) {
  const std::vector<double> v = values_from(x, "x");
  py::array_t<double> w(static_cast<py::ssize_t>(v.size()));
  F(v.data(), static_cast<int>(v.size()), t, w.mutable_data());
  return w;
}

std::vector<double> matrix_from(const py::object& obj, py::ssize_t rows, py::ssize_t cols, const std::string& what) {
  const DoubleArray a = as_double_array(obj, what);
  if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) != cols)
    throw std::invalid_argument(what + ": expected shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  reject_nan(a.data(), static_cast<size_t>(a.size()), what.c_str());
  return std::vector<double>(a.data(), a.data() + a.size());
}

}  // namespace bind_smooth_local

void bind_smooth(py::module_& parent) {
  using namespace bind_smooth_local;
  py::module_ m = parent.def_submodule("smooth", R"(Smooth operators of the Contax seed, Sec. III (C++ include/diffcol/math/smooth.hpp).

sigmoid (soft comparison), soft_sign, softplus, soft_clip, soft_greater, soft_within, logsumexp,
softmin, soft_argmax, soft_argmin and the SoftSort top-K (soft_top_k with its VJP / JVP). Every
operator takes a temperature t >= 0 in the units of its input; t = 0 is the hard operator
("Ours-NS"). Overflow-free: |x|/t up to 1e300 gives finite results. NaN inputs raise ValueError;
±inf is allowed where the operator has a finite limit (e.g. a masked -inf entry of logsumexp,
softplus(-inf) = 0); the top-K family needs finite entries.)");

  m.def("sigmoid", &checked<&smooth::sigmoid, double, double>, py::arg("x"), py::arg("t"),
        doc(with_t("Soft step sigma(x/t) = 1/(1+exp(-x/t)), the soft comparison [x > 0]; hard: step with 0.5 at 0.")));
  m.def("sigmoid_derivative", &checked<&smooth::sigmoid_derivative, double, double>, py::arg("x"), py::arg("t"),
        doc(with_t("d sigmoid(x, t)/dx = sigma(1 - sigma)/t; hard: 0.")));
  m.def(
      "softplus",
      [](double x, double t, bool derivative) -> py::object {
        reject_nan(&x, 1, "softplus: x");
        if (x == std::numeric_limits<double>::infinity())
          throw std::invalid_argument("softplus: x = +inf (the result would be +inf)");
        double dx = 0.0;
        const double v = smooth::softplus(x, t, &dx);
        if (derivative) return py::make_tuple(v, dx);
        return py::float_(v);
      },
      py::arg("x"), py::arg("t"), py::arg("derivative") = false,
      doc(with_t("Softplus t*log(1+exp(x/t)) (smooth relu); hard: max(x, 0).\n"
                 "derivative=True returns (value, d/dx) with d/dx = sigma(x/t).")));
  m.def("soft_sign", &checked<&smooth::soft_sign, double, double>, py::arg("x"), py::arg("t"),
        doc(with_t("Soft sign tanh(x/t); hard: sign(x), 0 at 0.")));
  m.def("soft_sign_derivative", &checked<&smooth::soft_sign_derivative, double, double>, py::arg("x"), py::arg("t"),
        doc(with_t("d soft_sign(x, t)/dx = (1 - tanh^2(x/t))/t; hard: 0.")));
  m.def("soft_clip", &checked<&smooth::soft_clip, double, double, double, double>, py::arg("x"), py::arg("lo"), py::arg("hi"), py::arg("t"),
        doc(with_t("Soft clip lo + s+(x - lo) - s+(x - hi); hard: clamp(x, lo, hi). ValueError also on lo > hi.")));
  m.def(
      "soft_clip_derivative",
      [](double x, double lo, double hi, double t) {
        const double args[] = {x, lo, hi};
        reject_nan(args, 3, "soft_clip_derivative");
        double dlo = 0.0, dhi = 0.0;
        const double dx = smooth::soft_clip_derivative(x, lo, hi, t, &dlo, &dhi);
        return py::make_tuple(dx, dlo, dhi);
      },
      py::arg("x"), py::arg("lo"), py::arg("hi"), py::arg("t"),
      doc(with_t("Derivatives of soft_clip: (d/dx, d/dlo, d/dhi). Hard: 1 inside, 0 outside, 0.5 at a bound.")));
  m.def("soft_greater", &checked<&smooth::soft_greater, double, double, double>, py::arg("a"), py::arg("b"), py::arg("t"),
        doc(with_t("Soft comparison [a > b] = sigma((a - b)/t); hard: step (0.5 when a == b).")));
  m.def("soft_within", &checked<&smooth::soft_within, double, double, double, double>, py::arg("x"), py::arg("lo"), py::arg("hi"), py::arg("t"),
        doc(with_t("Soft indicator [lo <= x <= hi] = sigma((x - lo)/t) sigma((hi - x)/t).")));
  m.def("logsumexp", &value_and_weights<&smooth::logsumexp>, py::arg("x"), py::arg("t"),
        doc(with_t("Logsumexp t*log(sum exp(x_i/t)) (smooth max) of x (n,), n >= 1: returns (value, weights), weights (n,)\n"
                   "= softmax(x/t) = d value/dx (hard: max and one-hot at the first argmax).")));
  m.def("softmin", &value_and_weights<&smooth::softmin>, py::arg("x"), py::arg("t"),
        doc(with_t("Softmin -t*log(sum exp(-x_i/t)) of x (n,): returns (value, weights), weights = softmax(-x/t) = d value/dx\n"
                   "(hard: min and one-hot at the first argmin).")));
  m.def("soft_argmax", &weights_only<&smooth::soft_argmax>, py::arg("x"), py::arg("t"),
        doc(with_t("Soft argmax: softmax(x/t) (n,), summing to 1; hard: one-hot at the first argmax.")));
  m.def("soft_argmin", &weights_only<&smooth::soft_argmin>, py::arg("x"), py::arg("t"),
        doc(with_t("Soft argmin: softmax(-x/t) (n,); hard: one-hot at the first argmin.")));
  m.def(
      "soft_top_k",
      [](const py::object& x, int k, double t) {
        const std::vector<double> v = values_from(x, "x");
        const int n = static_cast<int>(v.size());
        if (k < 1 || k > n) throw std::invalid_argument("soft_top_k: k must be in [1, n]");
        require_finite_entries(v, "soft_top_k: x");
        py::array_t<double> P({static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(n)});
        py::array_t<int> order(static_cast<py::ssize_t>(k));
        smooth::soft_top_k(v.data(), n, k, t, P.mutable_data(), order.mutable_data());
        return py::make_tuple(P, order);
      },
      py::arg("x"), py::arg("k"), py::arg("t"),
      doc(with_t("SoftSort top-K of x (n,): returns (P (k, n), order (k,) int32). With s = x sorted decreasingly (ties by\n"
                 "index), P[r, j] = exp(-|s_r - x_j|/t) / sum_l exp(-|s_r - x_l|/t): row r is a soft one-hot of the\n"
                 "r-th largest entry (rows sum to 1); order[r] is its index (the hard top-K). Selected values: P @ x.")));
  m.def(
      "soft_top_k_vjp",
      [](const py::object& x, int k, double t, const py::object& P, const py::object& G) {
        const std::vector<double> v = values_from(x, "x");
        const int n = static_cast<int>(v.size());
        if (k < 1 || k > n) throw std::invalid_argument("soft_top_k_vjp: k must be in [1, n]");
        const std::vector<double> p = matrix_from(P, k, n, "P"), g = matrix_from(G, k, n, "G");
        require_finite_entries(v, "soft_top_k_vjp: x");
        require_soft_permutation(p);
        require_finite_entries(g, "soft_top_k_vjp: G");
        py::array_t<double> out(static_cast<py::ssize_t>(n));
        smooth::soft_top_k_vjp(v.data(), n, k, t, p.data(), g.data(), out.mutable_data());
        return finite_result(out, "soft_top_k_vjp");
      },
      py::arg("x"), py::arg("k"), py::arg("t"), py::arg("P"), py::arg("G"),
      doc(with_t("Vector-Jacobian product of soft_top_k: dL/dx (n,) from G = dL/dP (k, n); P = soft_top_k(x, k, t)[0].\n"
                 "The sort permutation is treated as locally constant. Hard: zero.")));
  m.def(
      "soft_top_k_jvp",
      [](const py::object& x, int k, double t, const py::object& P, const py::object& dx) {
        const std::vector<double> v = values_from(x, "x");
        const int n = static_cast<int>(v.size());
        if (k < 1 || k > n) throw std::invalid_argument("soft_top_k_jvp: k must be in [1, n]");
        const std::vector<double> p = matrix_from(P, k, n, "P"), d = values_from(dx, "dx");
        if (static_cast<int>(d.size()) != n) throw std::invalid_argument("dx: expected shape (n,)");
        require_finite_entries(v, "soft_top_k_jvp: x");
        require_soft_permutation(p);
        require_finite_entries(d, "soft_top_k_jvp: dx");
        py::array_t<double> out({static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(n)});
        smooth::soft_top_k_jvp(v.data(), n, k, t, p.data(), d.data(), out.mutable_data());
        return finite_result(out, "soft_top_k_jvp");
      },
      py::arg("x"), py::arg("k"), py::arg("t"), py::arg("P"), py::arg("dx"),
      doc(with_t("Jacobian-vector product of soft_top_k: dP (k, n) = (dP/dx) dx for a direction dx (n,). Hard: zero.")));
}

}  // namespace diffcol::python
