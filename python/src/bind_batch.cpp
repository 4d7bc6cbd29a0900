// Python bindings of include/diffcol/batch/: ContactBatch with numpy pose arrays in and numpy
// result arrays out; the GIL is released while the poses are converted, the pairs solved and
// the results copied.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bindings.hpp"
#include "diffcol/batch/contact_batch.hpp"
#include "diffcol/batch/result_fields.hpp"
#include "diffcol/shapes/smooth_polytope.hpp"

namespace diffcol::python {

namespace bind_batch_local {

using idcol::ContactDerivatives;
using idcol::ContactSolution;
using CArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// ------------------------------------------------------------------ result containers

/// Named numpy arrays of one batch solve (attributes are generated from the field tables).
struct BatchResult {
  py::dict arrays;
  py::object derivatives = py::none();
  long steps = 0;
  int pairs = 0;
};
struct BatchDerivatives {
  py::dict arrays;
  std::vector<std::string> blocks;  // the computed blocks (the others are absent)
};

// AttributeError / KeyError text for a block that was not computed.
std::string missing_block_text(const BatchDerivatives& d, const std::string& name) {
  std::string have;
  for (const std::string& b : d.blocks) have += (have.empty() ? "" : ", ") + b;
  if (batch::DerivativeBlocks::index_of(name) < 0)
    return "BatchDerivatives: no block named '" + name + "'";
  return "BatchDerivatives: block " + name + " was not computed (this solve computed: " +
         (have.empty() ? std::string("none") : have) + "); ask for it with ContactBatch(..., blocks=[...])";
}

// Shape of one field of a result (after the leading (T, P) or (P,) axes).
template <class M>
std::vector<py::ssize_t> field_shape() {
  if constexpr (std::is_arithmetic_v<M>) {
    return {};
  } else if constexpr (M::RowsAtCompileTime == 1 || M::ColsAtCompileTime == 1) {
    return {M::SizeAtCompileTime};
  } else {
    static_assert(M::IsRowMajor, "matrix blocks are copied row-major");
    return {M::RowsAtCompileTime, M::ColsAtCompileTime};
  }
}

template <class M>
const double* field_data(const M& v) {
  if constexpr (std::is_arithmetic_v<M>) {
    return &v;
  } else {
    return v.data();
  }
}

template <class M>
constexpr long field_size() {
  if constexpr (std::is_arithmetic_v<M>) {
    return 1;
  } else {
    return M::SizeAtCompileTime;
  }
}

// ------------------------------------------------------------------ pose arguments

// A parsed pose argument: one pose for every query, or an array of poses.
struct PoseInput {
  bool single = true;
  Pose pose;                      // when single
  CArray data;                    // otherwise: contiguous doubles
  int layout = 7;                 // 7: [x, y, z, qw, qx, qy, qz]; 16: row-major 4x4
  std::vector<py::ssize_t> lead;  // leading axes: (P,) or (T, P)
};

std::string shape_text(const py::array& a) {
  std::ostringstream os;
  os << "(";
  for (py::ssize_t k = 0; k < a.ndim(); ++k) os << (k ? ", " : "") << a.shape(k);
  os << (a.ndim() == 1 ? ",)" : ")");
  return os.str();
}

PoseInput parse_poses(const py::object& obj, const char* what) {
  PoseInput in;
  if (py::isinstance<Pose>(obj)) {
    in.pose = obj.cast<Pose>();
    return in;
  }
  reject_complex(obj, what);
  CArray a;
  try {
    a = CArray::ensure(obj);
  } catch (const py::error_already_set&) {
  }
  if (!a)
    throw std::invalid_argument(std::string(what) + ": expected a Pose or an array of poses (..., 7) or (..., 4, 4)");
  const py::ssize_t nd = a.ndim();
  int layout = 0;
  py::ssize_t lead_nd = 0;
  if (nd >= 1 && a.shape(nd - 1) == 7) {
    layout = 7;
    lead_nd = nd - 1;
  } else if (nd >= 2 && a.shape(nd - 1) == 4 && a.shape(nd - 2) == 4) {
    layout = 16;
    lead_nd = nd - 2;
  }
  if (layout == 0 || lead_nd > 2)
    throw std::invalid_argument(std::string(what) +
                                ": expected poses of shape (7,), (P, 7), (T, P, 7), (4, 4), (P, 4, 4) or (T, P, 4, 4) "
                                "(one pair over N poses: (N, 7) or (N, 4, 4)), got an array of shape " +
                                shape_text(a));
  if (lead_nd == 0) {
    in.pose = pose_from_object(a, what);
    return in;
  }
  in.single = false;
  in.data = a;
  in.layout = layout;
  for (py::ssize_t k = 0; k < lead_nd; ++k) in.lead.push_back(a.shape(k));
  return in;
}

// ------------------------------------------------------------------ derivative blocks

// blocks=: "all", one name, or an iterable of names (blocks, groups "J_gap", or "all").
batch::DerivativeBlocks parse_blocks(const py::handle& obj) {
  if (py::isinstance<py::str>(obj)) {
    batch::DerivativeBlocks b;
    return b.add(obj.cast<std::string>());
  }
  std::vector<std::string> names;
  try {
    for (const py::handle& item : py::iter(obj)) {
      if (!py::isinstance<py::str>(item)) throw py::type_error("");
      names.push_back(item.cast<std::string>());
    }
  } catch (const py::error_already_set&) {
    throw py::type_error("blocks: expected \"all\", a block name or a list of block names such as [\"J_gap\"]");
  } catch (const py::type_error&) {
    throw py::type_error("blocks: expected \"all\", a block name or a list of block names such as [\"J_gap\"]");
  }
  return batch::DerivativeBlocks::from_names(names);  // std::invalid_argument -> ValueError
}

// ------------------------------------------------------------------ the Python-side batch

struct PyContactBatch {
  batch::ContactBatch batch;
  std::vector<Pose> X1, X2;  // converted poses, reused between calls
  std::mutex mutex;          // one solve at a time (the GIL is released during a solve)

  PyContactBatch(const std::vector<std::pair<Shape, Shape>>& pairs, batch::BatchOptions opt) : batch(pairs, opt) {}
  PyContactBatch(Shape s1, Shape s2, batch::BatchOptions opt) : batch(std::move(s1), std::move(s2), opt) {}
};

// The fields of BatchResult besides the ContactSolution table.
const char* const kCounterFields[] = {"status", "iterations", "jacobian_evaluations", "attempts", "warm_started", "X_12"};

// "(a, b)" of a leading shape.
std::string lead_text(const std::vector<py::ssize_t>& lead) {
  std::string s = "(";
  for (size_t k = 0; k < lead.size(); ++k) s += (k ? ", " : "") + std::to_string(lead[k]);
  return s + (lead.size() == 1 ? ",)" : ")");
}

BatchResult solve_batch(PyContactBatch& self, const py::object& X_W1, const py::object& X_W2) {
  const long P = self.batch.num_pairs();
  PoseInput in1 = parse_poses(X_W1, "X_W1");
  PoseInput in2 = parse_poses(X_W2, "X_W2");
  // leading axes of the result: those of the array arguments, which must agree
  std::vector<py::ssize_t> lead = {static_cast<py::ssize_t>(P)};
  if (!in1.single) lead = in1.lead;
  if (!in2.single) {
    if (!in1.single && in1.lead != in2.lead)
      throw std::invalid_argument("X_W1 and X_W2: the pose arrays must have the same leading shape, got " +
                                  lead_text(in1.lead) + " and " + lead_text(in2.lead));
    lead = in2.lead;
  }
  // one pair over N poses: (N, 7) or (N, 4, 4) arrays for a batch of one pair
  const bool over_poses = P == 1 && lead.size() == 1 && !(in1.single && in2.single);
  if (!over_poses && lead.back() != P) {
    std::string expected = "(" + std::to_string(P) + ", 7), (" + std::to_string(P) + ", 4, 4), (T, " +
                           std::to_string(P) + ", 7) or (T, " + std::to_string(P) + ", 4, 4)";
    throw std::invalid_argument("ContactBatch.solve: the poses' last leading axis must be the number of pairs (" +
                                std::to_string(P) + "): expected poses of shape " + expected +
                                " (or one pose for every query), got leading shape " + lead_text(lead) +
                                (P == 1 ? std::string("; one pair over N poses: (N, 7) or (N, 4, 4)") : std::string()));
  }
  const long T = over_poses ? static_cast<long>(lead[0]) : (lead.size() == 2 ? static_cast<long>(lead[0]) : 1);
  const long n = over_poses ? T : T * P;
  const bool with_derivatives = self.batch.options().derivatives;
  const batch::DerivativeBlocks blocks = self.batch.options().blocks;

  // allocate every output array now (GIL held); the copies below run without the GIL, on the
  // batch's threads, each over a range [b, e) of queries
  BatchResult res;
  res.steps = T;
  res.pairs = static_cast<int>(P);
  using Copy = std::function<void(const ContactSolution*, const ContactDerivatives*, long, long)>;
  std::vector<Copy> copies;
  auto make = [&](py::dict& into, const char* name, auto dtype_tag, const std::vector<py::ssize_t>& tail) {
    using D = decltype(dtype_tag);
    std::vector<py::ssize_t> shape = lead;
    shape.insert(shape.end(), tail.begin(), tail.end());
    py::array_t<D> arr(shape);
    into[name] = arr;
    return arr.mutable_data();
  };
  {
    std::uint8_t* st = make(res.arrays, "status", std::uint8_t{}, {});
    std::int32_t* it = make(res.arrays, "iterations", std::int32_t{}, {});
    std::int32_t* je = make(res.arrays, "jacobian_evaluations", std::int32_t{}, {});
    std::int32_t* at = make(res.arrays, "attempts", std::int32_t{}, {});
    bool* ws = make(res.arrays, "warm_started", bool{}, {});
    double* x12 = make(res.arrays, "X_12", double{}, {4, 4});
    copies.emplace_back([=](const ContactSolution* s, const ContactDerivatives*, long b, long e) {
      for (long i = b; i < e; ++i) {
        st[i] = static_cast<std::uint8_t>(s[i].status);
        it[i] = s[i].iterations;
        je[i] = s[i].jacobian_evaluations;
        at[i] = s[i].attempts;
        ws[i] = s[i].warm_started;
        Eigen::Map<Eigen::Matrix<double, 4, 4, Eigen::RowMajor>>(x12 + 16 * i) = pose_to_matrix(s[i].X_12);
      }
    });
  }
  batch::for_each_solution_field([&](const char* name, auto member) {
    using M = std::remove_cvref_t<decltype(std::declval<ContactSolution>().*member)>;
    double* out = make(res.arrays, name, double{}, field_shape<M>());
    copies.emplace_back([=](const ContactSolution* s, const ContactDerivatives*, long b, long e) {
      constexpr long k = field_size<M>();
      for (long i = b; i < e; ++i) std::memcpy(out + k * i, field_data(s[i].*member), sizeof(double) * k);
    });
  });
  if (with_derivatives) {
    BatchDerivatives d;
    d.blocks = blocks.names();
    std::uint8_t* st = make(d.arrays, "status", std::uint8_t{}, {});
    copies.emplace_back([=](const ContactSolution*, const ContactDerivatives* der, long b, long e) {
      for (long i = b; i < e; ++i) st[i] = static_cast<std::uint8_t>(der[i].status);
    });
    batch::for_each_derivative_block([&](const char* name, auto member) {
      if (!blocks.contains(name)) return;  // not computed: no array
      using M = std::remove_cvref_t<decltype(std::declval<ContactDerivatives>().*member)>;
      double* out = make(d.arrays, name, double{}, field_shape<M>());
      copies.emplace_back([=](const ContactSolution*, const ContactDerivatives* der, long b, long e) {
        constexpr long k = field_size<M>();
        for (long i = b; i < e; ++i) std::memcpy(out + k * i, field_data(der[i].*member), sizeof(double) * k);
      });
    });
    res.derivatives = py::cast(std::move(d));
  }

  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(self.mutex);
    if (over_poses) {
      // a single pose stays one pose (solve_poses uses it for every query)
      for (auto [in, out, what] : {std::make_tuple(&in1, &self.X1, "X_W1"), std::make_tuple(&in2, &self.X2, "X_W2")}) {
        out->resize(in->single ? 1 : static_cast<size_t>(n));
        if (in->single) {
          (*out)[0] = in->pose;
          continue;
        }
        // converted on the batch's threads (which also wakes them before the solve); on an
        // invalid pose, again in order, so that the error names the first one
        const double* data = in->data.data();
        const int layout = in->layout;
        Pose* dst = out->data();
        std::atomic<bool> bad{false};
        auto convert = [&](long b, long e) {
          try {
            poses_from_buffer(data + static_cast<size_t>(b) * static_cast<size_t>(layout), e - b, layout, what, dst + b);
          } catch (const std::invalid_argument&) {
            bad.store(true, std::memory_order_relaxed);
          }
        };
        self.batch.parallel_for(n, 256, convert);
        if (bad.load()) poses_from_buffer(data, n, layout, what, dst);
      }
      self.batch.solve_poses(self.X1, self.X2);
    } else {
      self.X1.resize(static_cast<size_t>(n));
      self.X2.resize(static_cast<size_t>(n));
      for (auto [in, out, what] : {std::make_tuple(&in1, &self.X1, "X_W1"), std::make_tuple(&in2, &self.X2, "X_W2")}) {
        if (in->single) {
          std::fill(out->begin(), out->end(), in->pose);
        } else {
          poses_from_buffer(in->data.data(), n, in->layout, what, out->data());
        }
      }
      self.batch.solve(self.X1, self.X2, T);
    }
    const ContactSolution* sols = self.batch.solutions().data();
    const ContactDerivatives* ders = with_derivatives ? self.batch.all_derivatives().data() : nullptr;
    auto copy_range = [&](long b, long e) {
      for (const Copy& copy : copies) copy(sols, ders, b, e);
    };
    self.batch.parallel_for(n, 512, copy_range);
  }
  return res;
}

// BatchOptions from the constructor's keywords; blocks= turns derivatives on unless it is off.
batch::BatchOptions batch_options(int num_threads, const idcol::SolveOptions& options, const py::object& derivatives,
                                  ReferenceFrame frame, const py::object& blocks) {
  check_solve_options(options);
  batch::BatchOptions o;
  o.num_threads = num_threads;
  o.solve = options;
  o.frame = frame;
  o.derivatives = derivatives.is_none() ? !blocks.is_none() : derivatives.cast<bool>();
  if (!blocks.is_none()) {
    if (!o.derivatives)
      throw std::invalid_argument("ContactBatch: blocks= was given with derivatives=False (drop one of them)");
    o.blocks = parse_blocks(blocks);
  }
  return o;
}

// Boolean array: the status array (uint8) holds one of the values `good` (or `also_good`).
py::object status_is(const py::object& status, int good, int also_good) {
  return status.attr("__eq__")(good).attr("__or__")(status.attr("__eq__")(also_good));
}

// "k/n": how many entries of a boolean array are true.
std::string count_text(const py::object& ok) {
  return std::to_string(ok.attr("sum")().cast<long>()) + "/" + std::to_string(ok.attr("size").cast<long>());
}

}  // namespace bind_batch_local

void bind_batch(py::module_& m) {
  using namespace bind_batch_local;
  m.def("available_cores", &batch::available_cores, "Number of CPUs this process may run on (>= 1).");
  m.def(
      "build_info",
      [] {
        py::dict d;
#ifdef __VERSION__
        d["compiler"] = std::string(__VERSION__);
#else
        d["compiler"] = std::string();
#endif
        d["smooth_planes_width"] = ::diffcol::detail::smooth_planes_width();
        return d;
      },
      "{'compiler': the compiler of this module (__VERSION__), 'smooth_planes_width': lanes of the smooth "
      "polytope's face evaluation}: the build half of the host line `diffcol bench` prints.");

  // ------------------------------------------------------------------ results
  py::class_<BatchResult> res(m, "BatchResult", R"(Results of ContactBatch.solve as numpy arrays.

Every array has the leading shape of the pose arguments: (P,) for one step, (T, P) for T steps,
(N,) for one pair over N poses, followed by the field's own shape. Fields (the names of ContactSolution's members):
  status (uint8, SolveStatus values), iterations, jacobian_evaluations, attempts (int32),
  warm_started (bool), residual_norm, alpha, lambda1, lambda2, gap (float64),
  x_B1, p1_B1, p2_B1, normal_B1, x_W, p1_W, p2_W, normal_W (..., 3), X_12 (..., 4, 4).
derivatives: None, or a BatchDerivatives (if the batch computes derivatives).
Element [t, p] (one pair over N poses: [i]) equals solution(t, p) (solution(i, 0)) of the
batch, bit for bit.)");
  res.def_readonly("steps", &BatchResult::steps, "T (1 for a single step; N for one pair over N poses).")
      .def_readonly("pairs", &BatchResult::pairs, "P.")
      .def_readonly("derivatives", &BatchResult::derivatives, "None or BatchDerivatives.")
      .def(
          "as_dict", [](const BatchResult& r) { return py::dict(r.arrays); }, "The arrays as a dict {name: array}.")
      .def(
          "__getitem__", [](const BatchResult& r, const std::string& k) { return r.arrays[py::str(k)]; },
          py::arg("name"));
  const char* const counter_docs[] = {"SolveStatus values (uint8), shape (...).", "Newton steps (int32), shape (...).",
                                       "Evaluations of (f_c, J_c) (int32), shape (...).", "Attempts (int32), shape (...).",
                                       "Warm-started (bool), shape (...).", "Pose of body 2 in body 1, shape (..., 4, 4)."};
  for (size_t k = 0; k < std::size(kCounterFields); ++k) {
    const char* name = kCounterFields[k];
    res.def_property_readonly(name, [name](const BatchResult& r) { return r.arrays[name]; }, counter_docs[k]);
  }
  constexpr int kConverged = static_cast<int>(diffcol::SolveStatus::ok);
  constexpr int kCoincident = static_cast<int>(diffcol::SolveStatus::coincident_origins);
  res.def_property_readonly(
         "ok", [](const BatchResult& r) { return status_is(r.arrays["status"], kConverged, kCoincident); },
         "Boolean array, shape (...): ContactSolution.ok of every query (converged or coincident_origins).")
      .def("__repr__", [](const BatchResult& r) {
        return "BatchResult(steps=" + std::to_string(r.steps) + ", pairs=" + std::to_string(r.pairs) +
               ", ok=" + count_text(status_is(r.arrays["status"], kConverged, kCoincident)) +
               ", derivatives=" + (r.derivatives.is_none() ? "False" : "True") + ")";
      });
  batch::for_each_solution_field([&](const char* name, auto member) {
    using M = std::remove_cvref_t<decltype(std::declval<ContactSolution>().*member)>;
    res.def_property_readonly(
        name, [name](const BatchResult& r) { return r.arrays[name]; },
        doc("Per query, leading axes (P,) or (T, P): " + field_doc(name, "(...) + " + shape_text<M>())));
  });

  py::class_<BatchDerivatives> der(m, "BatchDerivatives", doc(std::string(R"(Derivatives of every query of a ContactBatch.solve.

status: (...,) uint8 DerivativeStatus values; the blocks J_<out>_<X12|X1|X2> of ContactDerivatives
the batch was asked for (ContactBatch(..., blocks=...); default J_gap_* and J_alpha_*) with the
leading (P,), (T, P) or (N,) axes: scalar outputs (..., 6), 3-vectors (..., 3, 6), J_z_X12
(..., 6, 6). Blocks not computed are absent: reading one raises AttributeError (KeyError for
d["name"]) naming the blocks that were computed. blocks: their names; "J_gap_X1" in d.
)") + kConventionsDoc));
  der.def(
         "as_dict", [](const BatchDerivatives& d) { return py::dict(d.arrays); }, "The arrays as a dict {name: array}.")
      .def(
          "__getitem__",
          [](const BatchDerivatives& d, const std::string& k) -> py::object {
            if (!d.arrays.contains(py::str(k))) throw py::key_error(missing_block_text(d, k));
            return d.arrays[py::str(k)];
          },
          py::arg("name"))
      .def(
          "__contains__", [](const BatchDerivatives& d, const std::string& k) { return d.arrays.contains(py::str(k)); },
          py::arg("name"))
      .def_property_readonly(
          "blocks", [](const BatchDerivatives& d) { return d.blocks; }, "Names of the computed blocks.")
      .def(
          "__dir__",
          [](const py::object& self) {
            // the attributes that exist: the blocks not computed are left out
            const BatchDerivatives& d = self.cast<const BatchDerivatives&>();
            py::list out;
            for (const py::handle& name : py::module_::import("builtins").attr("object").attr("__dir__")(self)) {
              const std::string n = name.cast<std::string>();
              if (batch::DerivativeBlocks::index_of(n) < 0 || d.arrays.contains(py::str(n))) out.append(name);
            }
            return out;
          },
          "The attribute names, without the blocks that were not computed.")
      .def_property_readonly(
          "status", [](const BatchDerivatives& d) { return d.arrays["status"]; },
          "DerivativeStatus values (uint8), shape (...).");
  constexpr int kDerivativeOk = static_cast<int>(diffcol::DerivativeStatus::ok);
  der.def_property_readonly(
         "ok", [](const BatchDerivatives& d) { return status_is(d.arrays["status"], kDerivativeOk, kDerivativeOk); },
         "Boolean array, shape (...): ContactDerivatives.ok of every query (status == DerivativeStatus.ok).")
      .def("__repr__", [](const BatchDerivatives& d) {
        const py::object st = d.arrays["status"];
        return "BatchDerivatives(shape=" + py::repr(st.attr("shape")).cast<std::string>() +
               ", ok=" + count_text(status_is(st, kDerivativeOk, kDerivativeOk)) + ")";
      });
  batch::for_each_derivative_block([&](const char* name, auto member) {
    using M = std::remove_cvref_t<decltype(std::declval<ContactDerivatives>().*member)>;
    der.def_property_readonly(
        name,
        [name](const BatchDerivatives& d) -> py::object {
          if (!d.arrays.contains(name)) throw py::attribute_error(missing_block_text(d, name));
          return d.arrays[name];
        },
        doc("Per query, leading axes (P,) or (T, P): " + field_doc(name, "(...) + " + shape_text<M>())));
  });

  // ------------------------------------------------------------------ the batch
  py::class_<PyContactBatch>(m, "ContactBatch", doc(std::string(R"(Many pairs of shapes (any mix of types) solved together on a thread pool.

ContactBatch(pairs, *, num_threads=0, options=SolveOptions(), derivatives=False, frame=world, blocks=None)
ContactBatch(shape1, shape2, *, ...)   one pair, to solve at N poses (below)
  pairs: list of (shape1, shape2); pair p is index p of the pose arrays.
  num_threads: threads per call, the caller included; 0 = all available cores.
  options: SolveOptions of every pair. options.warm_start selects the schedule:
    True  (default): pairs are spread over the threads; each pair is solved at its steps in
          order, warm-started from its previous solution (also across calls): simulation, MPC.
    False: every (step, pair) query is an independent cold solve, all spread over the threads.
  derivatives: also compute derivatives for every query (the blocks below).
  frame: ReferenceFrame of the derivatives' X1 / X2 columns (default world).
  blocks: the derivative blocks to compute and return: "all", or a list of block names
    ("J_gap_X1"), groups of one output over its inputs ("J_gap" = J_gap_X12, J_gap_X1, J_gap_X2;
    "J_p1_W", "J_normal_W", "J_z", ...). Default (None): ["J_gap", "J_alpha"]. Giving blocks
    turns derivatives on. Only J_gap / J_alpha blocks: the envelope gradient (no linear solve;
    equal to contact_derivatives to the solve's accuracy, its status ok also where
    contact_derivatives reports ill_conditioned); any other set: contact_derivatives, bit for bit,
    of which only the requested blocks are copied out.

solve(X_W1, X_W2) takes world poses of body 1 and body 2 as arrays of shape
  (P, 7) or (P, 4, 4)       one step: pose of each pair ([x, y, z, qw, qx, qy, qz] or 4x4),
  (T, P, 7) or (T, P, 4, 4) T steps (a rollout), solved in step order,
  (N, 7) or (N, 4, 4)       a batch of one pair: N poses of that pair, N independent cold solves
                            spread over the threads whatever warm_start (results (N, ...));
                            (T, 1, 7) is a rollout of the one pair instead,
or a single Pose / (7,) / (4, 4) used for every query, and returns a BatchResult. The GIL is
released while solving. Results equal the one-by-one calls bit for bit (ContactPair.solve in
step order per pair, resp. solve_contact; then contact_derivatives) for any thread count.
Invalid poses raise ValueError (nothing is solved then).
)") + kConventionsDoc))
      .def(py::init([](const std::vector<std::pair<Shape, Shape>>& pairs, int num_threads,
                       const idcol::SolveOptions& options, const py::object& derivatives, ReferenceFrame frame,
                       const py::object& blocks) {
             return std::make_unique<PyContactBatch>(pairs, batch_options(num_threads, options, derivatives, frame, blocks));
           }),
           py::arg("pairs") = std::vector<std::pair<Shape, Shape>>{}, py::kw_only(), py::arg("num_threads") = 0,
           py::arg("options") = idcol::SolveOptions{}, py::arg("derivatives") = py::none(),
           py::arg("frame") = ReferenceFrame::world, py::arg("blocks") = py::none())
      .def(py::init([](Shape shape1, Shape shape2, int num_threads, const idcol::SolveOptions& options,
                       const py::object& derivatives, ReferenceFrame frame, const py::object& blocks) {
             return std::make_unique<PyContactBatch>(std::move(shape1), std::move(shape2),
                                                     batch_options(num_threads, options, derivatives, frame, blocks));
           }),
           py::arg("shape1"), py::arg("shape2"), py::kw_only(), py::arg("num_threads") = 0,
           py::arg("options") = idcol::SolveOptions{}, py::arg("derivatives") = py::none(),
           py::arg("frame") = ReferenceFrame::world, py::arg("blocks") = py::none())
      .def_property(
          "blocks", [](const PyContactBatch& b) { return b.batch.options().blocks.names(); },
          [](PyContactBatch& b, const py::object& blocks) {
            const batch::DerivativeBlocks parsed = parse_blocks(blocks);
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(b.mutex);
            b.batch.set_blocks(parsed);
          },
          "Names of the derivative blocks the next solves compute (assign a list of names, groups or \"all\").")
      .def(
          "add_pair",
          [](PyContactBatch& b, Shape s1, Shape s2) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(b.mutex);
            return b.batch.add_pair(std::move(s1), std::move(s2));
          },
          py::arg("shape1"), py::arg("shape2"), "Appends a pair; returns its index.")
      .def_property_readonly(
          "num_pairs", [](const PyContactBatch& b) { return b.batch.num_pairs(); }, "P.")
      .def_property_readonly(
          "num_threads", [](const PyContactBatch& b) { return b.batch.num_threads(); }, "Threads per call.")
      .def_property(
          "options", [](const PyContactBatch& b) { return b.batch.options().solve; },
          [](PyContactBatch& b, const idcol::SolveOptions& o) {
            check_solve_options(o);
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(b.mutex);
            b.batch.set_solve_options(o);
          },
          "SolveOptions of every pair (assign a whole SolveOptions to change them).")
      .def_property(
          "derivatives", [](const PyContactBatch& b) { return b.batch.options().derivatives; },
          [](PyContactBatch& b, bool on) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(b.mutex);
            b.batch.set_derivatives(on);
          },
          "Whether solve() also computes derivatives.")
      .def_property_readonly(
          "frame", [](const PyContactBatch& b) { return b.batch.options().frame; },
          "ReferenceFrame of the derivatives' X1 / X2 columns (set at construction).")
      .def("solve", &solve_batch, py::arg("X_W1"), py::arg("X_W2"),
           "Solves every pair at the given poses (see the class docstring); returns a BatchResult.")
      .def(
          "solution",
          [](PyContactBatch& b, long step, int pair) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(b.mutex);
            return b.batch.solution(step, pair);
          },
          py::arg("step"), py::arg("pair"), "The ContactSolution of (step, pair) of the last solve (IndexError outside).")
      .def(
          "contact_derivatives",
          [](PyContactBatch& b, long step, int pair) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(b.mutex);
            return b.batch.derivatives(step, pair);
          },
          py::arg("step"), py::arg("pair"),
          "The ContactDerivatives of (step, pair) of the last solve (the blocks not computed are zero).")
      .def(
          "shapes",
          [](PyContactBatch& b, int i) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(b.mutex);
            return std::make_pair(b.batch.pair(i).shape1(), b.batch.pair(i).shape2());
          },
          py::arg("pair"), "(shape1, shape2) of a pair.")
      .def(
          "reset_warm_start",
          [](PyContactBatch& b) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(b.mutex);
            b.batch.reset_warm_start();
          },
          "Forgets every pair's warm start: the next solve starts cold.");
}

}  // namespace diffcol::python
