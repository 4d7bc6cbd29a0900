#pragma once
// numpy <-> C++ conversions shared by the bindings of the mesh, manifold and ssdf layers. Every
// conversion checks shapes and finiteness and throws std::invalid_argument (-> ValueError) naming
// the argument, so bad arrays never reach the library.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"

namespace diffcol::python {

using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// obj as a C-contiguous double array; ValueError naming `what` if it is not numeric, TypeError
/// if it is complex (reject_complex).
inline DoubleArray as_double_array(const py::handle& obj, const std::string& what) {
  reject_complex(obj, what);
  DoubleArray a;
  try {
    a = DoubleArray::ensure(obj);
  } catch (const py::error_already_set&) {
  }
  if (!a) throw std::invalid_argument(what + ": expected an array of numbers");
  return a;
}

inline void require_finite(const double* x, py::ssize_t n, const std::string& what) {
  for (py::ssize_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) throw std::invalid_argument(what + ": entries must be finite");
}

/// Points and other coordinates: finite and at most kMaxLength (1e100) in magnitude, so that no
/// squared distance overflows.
inline void require_coordinates(const double* x, py::ssize_t n, const std::string& what) {
  for (py::ssize_t i = 0; i < n; ++i)
    if (!(std::abs(x[i]) <= kMaxLength)) throw std::invalid_argument(what + ": entries must be finite and at most 1e100 in magnitude");
}

/// A 3-vector from an array-like of shape (3,).
inline Vec3 vec3_from(const py::handle& obj, const std::string& what, bool finite = true) {
  const DoubleArray a = as_double_array(obj, what);
  if (a.ndim() != 1 || a.shape(0) != 3) throw std::invalid_argument(what + ": expected shape (3,)");
  if (finite) require_coordinates(a.data(), 3, what);
  return Vec3(a.data()[0], a.data()[1], a.data()[2]);
}

/// A 6-vector from an array-like of shape (6,).
inline Vec6 vec6_from(const py::handle& obj, const std::string& what) {
  const DoubleArray a = as_double_array(obj, what);
  if (a.ndim() != 1 || a.shape(0) != 6) throw std::invalid_argument(what + ": expected shape (6,)");
  require_finite(a.data(), 6, what);
  Vec6 v;
  for (int i = 0; i < 6; ++i) v[i] = a.data()[i];
  return v;
}

/// Points from an (n, 3) array (or one (3,) point when allow_single; `single` tells which).
inline std::vector<Vec3> points_from(const py::handle& obj, const std::string& what, bool allow_single = false,
                                     bool* single = nullptr, bool finite = true) {
  const DoubleArray a = as_double_array(obj, what);
  if (single) *single = false;
  if (allow_single && a.ndim() == 1 && a.shape(0) == 3) {
    if (single) *single = true;
    if (finite) require_coordinates(a.data(), 3, what);
    return {Vec3(a.data()[0], a.data()[1], a.data()[2])};
  }
  if (a.ndim() != 2 || a.shape(1) != 3)
    throw std::invalid_argument(what + (allow_single ? ": expected shape (3,) or (n, 3)" : ": expected shape (n, 3)"));
  if (finite) require_coordinates(a.data(), a.size(), what);
  std::vector<Vec3> out(static_cast<size_t>(a.shape(0)));
  for (size_t i = 0; i < out.size(); ++i) out[i] = Vec3(a.data()[3 * i], a.data()[3 * i + 1], a.data()[3 * i + 2]);
  return out;
}

/// An (n, 3) array of points.
inline py::array_t<double> points_to_array(const std::vector<Vec3>& v) {
  py::array_t<double> a({static_cast<py::ssize_t>(v.size()), static_cast<py::ssize_t>(3)});
  double* d = a.mutable_data();
  for (size_t i = 0; i < v.size(); ++i)
    for (int k = 0; k < 3; ++k) d[3 * i + k] = v[i][k];
  return a;
}

/// An (n, k) int32 array from fixed-size integer arrays.
template <class A>
py::array_t<int> index_rows_to_array(const std::vector<A>& v) {
  constexpr py::ssize_t k = static_cast<py::ssize_t>(std::tuple_size<A>::value);
  py::array_t<int> a({static_cast<py::ssize_t>(v.size()), k});
  int* d = a.mutable_data();
  for (size_t i = 0; i < v.size(); ++i)
    for (py::ssize_t j = 0; j < k; ++j) d[static_cast<py::ssize_t>(i) * k + j] = v[i][static_cast<size_t>(j)];
  return a;
}

/// A 1-D array of doubles.
inline py::array_t<double> vector_to_array(const std::vector<double>& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

/// A 1-D array of doubles from an array-like of shape (n,) (n >= 1 when nonempty).
inline std::vector<double> vector_from(const py::handle& obj, const std::string& what, bool nonempty = true,
                                       bool finite = false) {
  const DoubleArray a = as_double_array(obj, what);
  if (a.ndim() != 1) throw std::invalid_argument(what + ": expected a 1-D array");
  if (nonempty && a.shape(0) < 1) throw std::invalid_argument(what + ": must not be empty");
  if (finite) require_finite(a.data(), a.size(), what);
  return std::vector<double>(a.data(), a.data() + a.size());
}

}  // namespace diffcol::python
