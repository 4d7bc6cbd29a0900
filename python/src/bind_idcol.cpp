// Python bindings of include/diffcol/idcol/: the iDCOL contact solver, its derivatives, the Hertz
// wrenches, the generalized-coordinate chain rule and the ergodic sweep.
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "bindings.hpp"
#include "diffcol/batch/result_fields.hpp"
#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/euclidean.hpp"
#include "diffcol/idcol/ergodic.hpp"
#include "diffcol/idcol/hessians.hpp"
#include "diffcol/idcol/sphere_pair.hpp"

namespace diffcol::python {

// SolveOptions checks: SolveOptions::validate (the same ranges as the CLI, apps/parse.cpp).
void check_solve_options(const idcol::SolveOptions& o) { o.validate(); }

std::string field_doc(const std::string& name, const std::string& shape) {
  static const std::pair<const char*, const char*> kFields[] = {
      {"residual_norm", "|f_c|_2 at the returned point"},
      {"alpha", "alpha*, the minimum scaling: > 1 separated, 1 touching, < 1 penetrating"},
      {"x_B1", "x*, the touching point of the scaled bodies, in body 1's frame"},
      {"lambda1", "multiplier lambda1 of (10)"},
      {"lambda2", "multiplier lambda2 of (10)"},
      {"p1_B1", "witness point on body 1's surface, in body 1's frame, eq. (29)"},
      {"p2_B1", "witness point on body 2's surface, in body 1's frame, eq. (29)"},
      {"gap", "d_D, eq. (30): > 0 separated, < 0 penetrating"},
      {"normal_B1", "unit normal out of body 1 (towards body 2), in body 1's frame, eq. (3)"},
      {"x_W", "x*, in the world frame"},
      {"p1_W", "witness point on body 1's surface, in the world frame"},
      {"p2_W", "witness point on body 2's surface, in the world frame"},
      {"normal_W", "unit normal out of body 1, in the world frame"},
      {"z", "z = (x_B1, alpha, lambda1, lambda2)"},
      {"fn", "the Hertz normal force f_n"},
      {"Fc1_B1", "the wrench on body 1 [torque; force] in body 1's frame"},
      {"Fc2_B2", "the wrench on body 2 [torque; force] in body 2's frame"},
      {"Fc1_W", "the wrench on body 1 [torque; force] in world coordinates"},
      {"Fc2_W", "the wrench on body 2 [torque; force] in world coordinates"},
  };
  auto wrt = [](const std::string& in) -> std::string {
    return in == "X12"  ? "the body twist [w; v] of body 2 relative to body 1 (X_12 <- X_12 exp(xi^))"
           : in == "X1" ? "the world twist [w; v] of body 1 (X_W1 <- exp(eta^) X_W1)"
                        : "the world twist [w; v] of body 2 (X_W2 <- exp(eta^) X_W2)";
  };
  return block_doc(name, shape, kFields, wrt, "; rows: components of the output, columns: the twist");
}

namespace bind_idcol_local {

using idcol::ContactDerivatives;
using idcol::ContactSolution;
using idcol::SolveOptions;

void check_hertz(const idcol::HertzModel& h) {
  if (!(h.stiffness > 0.0) || !std::isfinite(h.stiffness))
    throw std::invalid_argument("HertzModel: stiffness must be finite and > 0");
  if (!(h.exponent >= 1.0) || !std::isfinite(h.exponent))
    throw std::invalid_argument("HertzModel: exponent must be finite and >= 1");
}

// A read-write option field whose setter validates the whole struct.
std::string solution_repr(const ContactSolution& s) {
  std::ostringstream os;
  os.precision(10);
  os << "ContactSolution(status=" << diffcol::status_name(s.status) << ", alpha=" << s.alpha << ", gap=" << s.gap
     << ", iterations=" << s.iterations << ")";
  return os.str();
}

std::string derivatives_repr(const ContactDerivatives& d) {
  std::ostringstream os;
  os.precision(10);
  os << "ContactDerivatives(status=" << diffcol::status_name(d.status) << ", kkt_condition=" << d.kkt_condition
     << ")";
  return os.str();
}

std::string wrenches_repr(const idcol::ContactWrenches& w) {
  std::ostringstream os;
  os.precision(10);
  os << "ContactWrenches(status=" << diffcol::status_name(w.status)
     << ", in_contact=" << (w.in_contact ? "True" : "False") << ", penetration=" << w.penetration << ", f_n=" << w.f_n
     << ")";
  return os.str();
}

}  // namespace bind_idcol_local

void bind_idcol(py::module_& m) {
  using namespace bind_idcol_local;
  // ------------------------------------------------------------------ options, status, result

  py::class_<SolveOptions> opts(m, "SolveOptions", "Solver settings; the defaults suit every pair of the built-in shapes.");
  opts.def(py::init([](double tolerance, int max_iterations, int max_attempts, double surrogate_factor,
                       double coincident_tolerance, bool warm_start, bool continuation, double polish_threshold,
                       bool warm_predictor, int last_resort_iterations) {
             SolveOptions o;
             o.tolerance = tolerance;
             o.max_iterations = max_iterations;
             o.max_attempts = max_attempts;
             o.surrogate_factor = surrogate_factor;
             o.coincident_tolerance = coincident_tolerance;
             o.warm_start = warm_start;
             o.continuation = continuation;
             o.polish_threshold = polish_threshold;
             o.warm_predictor = warm_predictor;
             o.last_resort_iterations = last_resort_iterations;
             check_solve_options(o);
             return o;
           }),
           py::kw_only(), py::arg("tolerance") = SolveOptions{}.tolerance,
           py::arg("max_iterations") = SolveOptions{}.max_iterations,
           py::arg("max_attempts") = SolveOptions{}.max_attempts,
           py::arg("surrogate_factor") = SolveOptions{}.surrogate_factor,
           py::arg("coincident_tolerance") = SolveOptions{}.coincident_tolerance,
           py::arg("warm_start") = SolveOptions{}.warm_start, py::arg("continuation") = SolveOptions{}.continuation,
           py::arg("polish_threshold") = SolveOptions{}.polish_threshold,
           py::arg("warm_predictor") = SolveOptions{}.warm_predictor,
           py::arg("last_resort_iterations") = SolveOptions{}.last_resort_iterations,
           "Keyword arguments override the defaults. Raises ValueError for values out of range.");
  def_checked(opts, "tolerance", &SolveOptions::tolerance, "Tolerance on |f_c|_2, in [1e-14, 1e-3].", check_solve_options);
  def_checked(opts, "max_iterations", &SolveOptions::max_iterations, "Newton iterations per attempt.", check_solve_options);
  def_checked(opts, "max_attempts", &SolveOptions::max_attempts, "Cold-start attempts.", check_solve_options);
  def_checked(opts, "surrogate_factor", &SolveOptions::surrogate_factor, "f_S in [1, 1e6] of eq. (21).", check_solve_options);
  def_checked(opts, "coincident_tolerance", &SolveOptions::coincident_tolerance,
              "Relative: |r| <= tol (r1_out + r2_out) counts as coincident origins.", check_solve_options);
  def_checked(opts, "polish_threshold", &SolveOptions::polish_threshold,
              "After convergence one more Newton step (reusing the final factorization) is taken when it would "
              "move x, log alpha or lambda by more than this, relative: sharpens ill-conditioned solutions for the "
              "derivatives. 0: always; float('inf'): never (>= 0).",
              check_solve_options);
  def_checked(opts, "last_resort_iterations", &SolveOptions::last_resort_iterations,
              "When every attempt has failed: one more attempt from the first cold start with this many Newton "
              "iterations (0: none; in [0, 100000]). Flat, high-aspect shapes against much larger ones converge, "
              "but slowly.",
              check_solve_options);
  opts.def_readwrite("warm_start", &SolveOptions::warm_start,
                     "ContactPair / ContactBatch: start from the previous solution when there is one.")
      .def_readwrite("continuation", &SolveOptions::continuation,
                     "Ramp beta or n from a smoother shape if direct attempts fail.")
      .def_readwrite("warm_predictor", &SolveOptions::warm_predictor,
                     "Warm start from the previous solution moved to first order along the pose change (T_c xi); "
                     "falls back to the previous solution itself where that step is large.")
      .def("__repr__", [](const SolveOptions& o) {
        std::ostringstream os;
        os << "SolveOptions(tolerance=" << o.tolerance << ", max_iterations=" << o.max_iterations
           << ", max_attempts=" << o.max_attempts << ", surrogate_factor=" << o.surrogate_factor
           << ", coincident_tolerance=" << o.coincident_tolerance << ", warm_start=" << (o.warm_start ? "True" : "False")
           << ", continuation=" << (o.continuation ? "True" : "False") << ", polish_threshold=" << o.polish_threshold
           << ", warm_predictor=" << (o.warm_predictor ? "True" : "False")
           << ", last_resort_iterations=" << o.last_resort_iterations << ")";
        return os.str();
      });

  py::class_<ContactSolution> sol(m, "ContactSolution", doc(std::string(R"(Result of one contact solve (seed eq. (8)-(10), (29)-(30)).

Fields (read-only; vectors are numpy arrays, same names as the C++ members):
  status               SolveStatus
  iterations, jacobian_evaluations, attempts (int), warm_started (bool), residual_norm
  alpha                alpha*, the minimum uniform scaling at which the scaled bodies touch:
                       > 1 separated, 1 touching, < 1 penetrating
  x_B1 (3,)            the touching point of the scaled bodies, in body 1's frame
  lambda1, lambda2     the multipliers of (10)
  p1_B1, p2_B1 (3,)    witness points on body 1's and body 2's surface, eq. (29)
  gap                  d_D = (1 - 1/alpha) |r|, eq. (30): > 0 separated, < 0 penetrating
  normal_B1 (3,)       unit normal out of body 1 (towards body 2), eq. (3)
  x_W, p1_W, p2_W, normal_W (3,)  the same in the world frame
  grad1, hess1 (3,), (3, 3)  gradient and Hessian of phi1 at y1 = x*/alpha* (body 1's frame)
  grad2, hess2 (3,), (3, 3)  gradient and Hessian of phi2 at y2 = R^T (x* - r)/alpha* (body 2's
                       frame), from the last KKT evaluation: what contact_derivatives needs
  X_12 (Pose)          pose of body 2 in body 1 used by the solve
  kkt_jacobian (6, 6)  J_c at the solution, columns (x, log alpha, lambda1, lambda2)
)") + kConventionsDoc));
  sol.def_readonly("status", &ContactSolution::status, "SolveStatus of the solve.")
      .def_readonly("iterations", &ContactSolution::iterations, "Newton steps over all attempts.")
      .def_readonly("jacobian_evaluations", &ContactSolution::jacobian_evaluations, "Evaluations of (f_c, J_c).")
      .def_readonly("attempts", &ContactSolution::attempts, "1: the first attempt succeeded.")
      .def_readonly("warm_started", &ContactSolution::warm_started, "The accepted attempt started from a previous solution.")
      .def_readonly("closed_form", &ContactSolution::closed_form,
                    "The solution came from the closed form of two spheres (every field as the Newton solve "
                    "would give it); False for every other solve.")
      .def_readonly("X_12", &ContactSolution::X_12, "Pose of body 2 in body 1.")
      .def_readonly("X_W1", &ContactSolution::X_W1, "Pose of body 1 used by the solve (identity on invalid input).")
      .def_readonly("kkt_jacobian", &ContactSolution::kkt_jacobian,
                    "J_c (6, 6) at z* in unscaled variables; rows (10a), (10b), (10c) x3, (10d).")
      .def_readonly("grad1", &ContactSolution::grad1,
                    "Gradient of phi1 at y1 = x*/alpha*, body 1's frame (3,) (from the last KKT evaluation).")
      .def_readonly("hess1", &ContactSolution::hess1, "Hessian of phi1 at y1, body 1's frame (3, 3).")
      .def_readonly("grad2", &ContactSolution::grad2,
                    "Gradient of phi2 at y2 = R^T (x* - r)/alpha*, body 2's frame (3,).")
      .def_readonly("hess2", &ContactSolution::hess2, "Hessian of phi2 at y2, body 2's frame (3, 3).")
      .def_property_readonly("ok", &ContactSolution::ok, "True when converged or coincident_origins (a bool, not a method).")
      .def("__repr__", &solution_repr);
  batch::for_each_solution_field([&](const char* name, auto member) {
    using M = std::remove_cvref_t<decltype(std::declval<ContactSolution>().*member)>;
    sol.def_readonly(name, member, doc(field_doc(name, shape_text<M>())));
  });

  static const std::string solve_doc = std::string(R"(Solves the iDCOL contact problem for one pair of shapes (cold start).

Finds alpha* = the smallest uniform scaling of both bodies about their own origins at which the
scaled bodies touch, and the touching point x* (seed eq. (8), KKT system (10)), then the witness
points, the gap and the normal.

Args:
  shape1, shape2: the shapes (any primitive or Shape).
  X_W1, X_W2: world poses of body 1 and body 2 (Pose, [x, y, z, qw, qx, qy, qz] or 4x4).
  options: SolveOptions (default SolveOptions()).
Returns:
  ContactSolution (fields named as in C++: alpha, x_B1, p1_B1, p2_B1, gap, normal_B1, x_W, ...).
  A failed solve is reported by .status, never by an exception.
Raises:
  ValueError for an invalid pose (non-finite, zero quaternion, not a rotation) or options.

Derivatives: contact_derivatives(solution, frame=ReferenceFrame.world). For repeated queries of the same pair use ContactPair (warm
starts), for many pairs ContactBatch (threads).
)") + kConventionsDoc;
  m.def(
      "solve_contact",
      [](const Shape& s1, const PoseArg& X1, const Shape& s2, const PoseArg& X2, const SolveOptions& o) {
        check_solve_options(o);
        return idcol::solve_contact(s1, X1.value, s2, X2.value, o);
      },
      py::arg("shape1"), py::arg("X_W1"), py::arg("shape2"), py::arg("X_W2"), py::arg("options") = SolveOptions{},
      solve_doc.c_str());


  // ------------------------------------------------------------------ two spheres, closed form
  m.def(
      "sphere_pair_contact",
      [](const py::object& radius1, const py::object& centre1, const py::object& radius2, const py::object& centre2) {
        // radii: scalars or (n,); centres: (3,) or (n, 3); a single entry broadcasts against n
        const DoubleArray r1 = as_double_array(radius1, "radius1"), r2 = as_double_array(radius2, "radius2");
        bool single1 = false, single2 = false;
        const std::vector<Vec3> c1 = points_from(centre1, "centre1", true, &single1);
        const std::vector<Vec3> c2 = points_from(centre2, "centre2", true, &single2);
        const auto count = [](const DoubleArray& a, const char* what) -> py::ssize_t {
          if (a.ndim() == 0) return -1;
          if (a.ndim() != 1) throw std::invalid_argument(std::string(what) + ": expected a number or shape (n,)");
          return a.shape(0);
        };
        const py::ssize_t sizes[4] = {count(r1, "radius1"), single1 ? -1 : static_cast<py::ssize_t>(c1.size()),
                                      count(r2, "radius2"), single2 ? -1 : static_cast<py::ssize_t>(c2.size())};
        py::ssize_t n = -1;
        for (py::ssize_t k : sizes) {
          if (k < 0) continue;
          if (n >= 0 && k != n)
            throw std::invalid_argument("sphere_pair_contact: radius1, centre1, radius2 and centre2 have " +
                                        std::to_string(n) + " and " + std::to_string(k) + " entries");
          n = k;
        }
        const bool batch = n >= 0;
        if (!batch) n = 1;
        const auto radius_at = [](const DoubleArray& a, py::ssize_t i, const char* what) {
          const double R = a.ndim() == 0 ? *a.data() : a.data()[i];
          if (!(R >= kMinLength && R <= kMaxLength)) {
            std::ostringstream msg;
            msg << what << ": radii must lie in [1e-100, 1e100], got " << R;
            throw std::invalid_argument(msg.str());
          }
          return R;
        };
        const auto shape = [&](std::vector<py::ssize_t> tail) {
          if (batch) tail.insert(tail.begin(), n);
          return tail;
        };
        py::array_t<double> alpha(shape({})), gap(shape({})), distance(shape({}));
        py::array_t<double> normal(shape({3})), x(shape({3})), p1(shape({3})), p2(shape({3}));
        py::array_t<double> Ja(shape({3})), Jg(shape({3})), Jn(shape({3, 3}));
        py::array_t<bool> ok(shape({}));
        idcol::SpherePairContact out;
        for (py::ssize_t i = 0; i < n; ++i) {
          const double R1 = radius_at(r1, i, "radius1"), R2 = radius_at(r2, i, "radius2");
          idcol::sphere_pair_contact(R1, c1[single1 ? 0 : i], R2, c2[single2 ? 0 : i], out);
          alpha.mutable_data()[i] = out.alpha;
          gap.mutable_data()[i] = out.gap;
          distance.mutable_data()[i] = out.distance;
          ok.mutable_data()[i] = out.ok();
          for (int k = 0; k < 3; ++k) {
            normal.mutable_data()[3 * i + k] = out.normal_W[k];
            x.mutable_data()[3 * i + k] = out.x_W[k];
            p1.mutable_data()[3 * i + k] = out.p1_W[k];
            p2.mutable_data()[3 * i + k] = out.p2_W[k];
            Ja.mutable_data()[3 * i + k] = out.J_alpha_c2[k];
            Jg.mutable_data()[3 * i + k] = out.J_gap_c2[k];
            for (int j = 0; j < 3; ++j) Jn.mutable_data()[9 * i + 3 * k + j] = out.J_normal_c2(k, j);
          }
        }
        py::dict d;
        d["ok"] = ok;
        d["alpha"] = alpha;
        d["gap"] = gap;
        d["distance"] = distance;
        d["normal_W"] = normal;
        d["x_W"] = x;
        d["p1_W"] = p1;
        d["p2_W"] = p2;
        d["J_alpha_c2"] = Ja;
        d["J_gap_c2"] = Jg;
        d["J_normal_c2"] = Jn;
        return d;
      },
      py::arg("radius1"), py::arg("centre1"), py::arg("radius2"), py::arg("centre2"),
      R"(Two spheres in closed form with the derivatives with respect to the centres (C++
idcol::sphere_pair_contact, include/diffcol/idcol/sphere_pair.hpp): ~20 ns per pair in C++.

radius1, radius2: numbers or arrays (n,); centre1, centre2: world points (3,) or (n, 3). Entries of
length n broadcast against single ones. Returns a dict of arrays (a leading axis n when any input has one):
  ok (False where the centres coincide: the normal's derivative does not exist), alpha = rho/(R1+R2),
  gap = rho - (R1+R2), distance = rho = |c2 - c1|, normal_W = (c2 - c1)/rho, x_W, p1_W = c1 + R1 n,
  p2_W = c2 - R2 n, J_alpha_c2 = n/(R1+R2), J_gap_c2 = n, J_normal_c2 = (I - n n^T)/rho (3, 3).
Derivatives with respect to c1: -J_alpha_c2, -J_gap_c2, -J_normal_c2; of the points:
d p1/d c2 = R1 J_normal_c2, d p2/d c2 = I - R2 J_normal_c2, d x/d c2 = R1/(R1+R2) I (and
d/d c1 = I - d/d c2 for each point).
Raises:
  ValueError for radii outside [1e-100, 1e100], non-finite centres or mismatched lengths.)");

  // ------------------------------------------------------------------ ContactPair
  py::class_<idcol::ContactPair>(m, "ContactPair", R"(A pair of shapes with warm-start state, for repeated queries.

solve(X_W1, X_W2) starts from the previous solution of this pair when options.warm_start is set
and that solution succeeded (falling back to a cold start if needed). The results are those of
the C++ ContactPair, bit for bit.)")
      .def(py::init([](Shape s1, Shape s2, const SolveOptions& o) {
             check_solve_options(o);
             return idcol::ContactPair(std::move(s1), std::move(s2), o);
           }),
           py::arg("shape1"), py::arg("shape2"), py::arg("options") = SolveOptions{})
      .def(
          "solve", [](idcol::ContactPair& p, const PoseArg& X1, const PoseArg& X2) { return p.solve(X1.value, X2.value); },
          py::arg("X_W1"), py::arg("X_W2"), "Solves at the given world poses (warm-started); returns a ContactSolution.")
      .def(
          "solve_cold",
          [](idcol::ContactPair& p, const PoseArg& X1, const PoseArg& X2) { return p.solve_cold(X1.value, X2.value); },
          py::arg("X_W1"), py::arg("X_W2"), "Solves from a cold start; the result becomes the next warm start.")
      .def(
          "solve_from",
          [](idcol::ContactPair& p, const PoseArg& X1, const PoseArg& X2, const ContactSolution& guess) {
            return p.solve_from(X1.value, X2.value, guess);
          },
          py::arg("X_W1"), py::arg("X_W2"), py::arg("guess"), "Solves starting from a given solution.")
      .def_property_readonly(
          "last", [](const idcol::ContactPair& p) { return p.last(); }, "The last solution (a copy).")
      .def("reset_warm_start", &idcol::ContactPair::reset_warm_start, "The next solve() starts cold.")
      .def(
          "derivatives",
          [](const idcol::ContactPair& p, ReferenceFrame f) { return idcol::contact_derivatives(p, f); },
          py::arg("frame") = ReferenceFrame::world, "contact_derivatives of the last solution.")
      .def_property_readonly("shape1", &idcol::ContactPair::shape1, "Shape of body 1.")
      .def_property_readonly("shape2", &idcol::ContactPair::shape2, "Shape of body 2.")
      .def_property(
          "options", [](const idcol::ContactPair& p) { return p.options(); },
          [](idcol::ContactPair& p, const SolveOptions& o) {
            check_solve_options(o);
            p.options() = o;
          },
          "SolveOptions of this pair (a copy; assign a whole SolveOptions to change it).");

  // ------------------------------------------------------------------ derivatives

  py::class_<ContactDerivatives> der(m, "ContactDerivatives", doc(std::string(R"(All first-order derivatives of one contact solution (seed eq. (24)-(30), (B38)-(B39)).

Blocks J_<output>_<input> (numpy arrays, read-only, the C++ names):
  inputs:  X12 = body twist of body 2 relative to body 1 (X_12 <- X_12 exp(xi^)),
           X1, X2 = twists of body 1, body 2 in .frame (ReferenceFrame; default world:
           X_Wi <- exp(eta^) X_Wi)
  outputs: z = (x_B1, alpha, lambda1, lambda2) (X12 only), alpha, lambda1, lambda2, gap,
           x_B1, p1_B1, p2_B1, normal_B1 and (X1, X2 only) x_W, p1_W, p2_W, normal_W.
Scalar outputs: shape (6,); 3-vectors: (3, 6); J_z_X12: (6, 6). Columns [w; v].
status: DerivativeStatus; when not ok every block is zero.
)") + kConventionsDoc));
  der.def_readonly("status", &ContactDerivatives::status, "DerivativeStatus; every block is zero unless ok.")
      .def_readonly("frame", &ContactDerivatives::frame, "ReferenceFrame of the X1 / X2 columns.")
      .def_property_readonly("ok", &ContactDerivatives::ok, "status == DerivativeStatus.ok (a bool, not a method).")
      .def("__repr__", &derivatives_repr)
      .def_readonly("kkt_condition", &ContactDerivatives::kkt_condition,
                    "1-norm condition number of the equilibrated KKT Jacobian (unit-free); 0 when not computed.");
  batch::for_each_derivative_block([&](const char* name, auto member) {
    using M = std::remove_cvref_t<decltype(std::declval<ContactDerivatives>().*member)>;
    der.def_readonly(name, member, doc(field_doc(name, shape_text<M>())));
  });

  static const std::string deriv_doc = std::string(R"(Derivatives of a contact solution (implicit function theorem on (10)).

Args:
  solution: the ContactSolution returned by solve_contact / ContactPair (it carries the poses of
    the solve, the shapes' derivatives and the factored KKT Jacobian: nothing else is needed).
  frame: ReferenceFrame of the X1 / X2 columns: world (default), local or local_world_aligned,
    each about its body's pose in the solve (docs/conventions.md).
Returns:
  ContactDerivatives with every block J_<out>_<X12|X1|X2> (see help(diffcol.ContactDerivatives)).
)") + kConventionsDoc;
  m.def(
      "contact_derivatives",
      [](const ContactSolution& s, ReferenceFrame f) { return idcol::contact_derivatives(s, f); },
      py::arg("solution"), py::arg("frame") = ReferenceFrame::world, deriv_doc.c_str());
  m.def(
      "contact_derivatives",
      [](const idcol::ContactPair& p, ReferenceFrame f) { return idcol::contact_derivatives(p, f); },
      py::arg("pair"), py::arg("frame") = ReferenceFrame::world, "Derivatives of pair.last.");

  m.def("alpha_gradient_envelope", &idcol::alpha_gradient_envelope, py::arg("solution"),
        R"(d alpha*/d xi (6,) by the envelope theorem (eq. (9), (25a)), xi = body twist of X_12 [w; v].
No linear solve, no shape evaluation; zero unless the solution is converged with r != 0.)");
  m.def(
      "alpha_gradient_envelope_world",
      [](const ContactSolution& s, ReferenceFrame f) {
        return Eigen::Matrix<double, 12, 1>(idcol::alpha_gradient_envelope_world(s, f).transpose());
      },
      py::arg("solution"), py::arg("frame") = ReferenceFrame::world,
      "d alpha*/d [eta1 | eta2] (12,): the envelope gradient with respect to the twists of body 1 and 2 in frame.");

  // ------------------------------------------------------------------ Hertz wrenches
  py::class_<idcol::HertzModel> hertz(m, "HertzModel", "Hertz normal force f_n = k delta^p, delta = -gap (eq. (31)).");
  hertz.def(py::init([](double k, double p) {
              idcol::HertzModel h{k, p};
              check_hertz(h);
              return h;
            }),
            py::arg("stiffness") = 1.0, py::arg("exponent") = 1.5,
            "Raises ValueError unless stiffness > 0 and exponent >= 1 (both finite).");
  def_checked(hertz, "stiffness", &idcol::HertzModel::stiffness, "k > 0 (force / length^p).", check_hertz);
  def_checked(hertz, "exponent", &idcol::HertzModel::exponent, "p >= 1.", check_hertz);

  py::class_<idcol::ContactWrenches>(m, "ContactWrenches", doc(std::string(R"(Penalty contact wrenches (eq. (32)) and their Jacobians ((B40)-(B44)).

Wrenches are 6-vectors [torque; force]:
  F_c1_B1  on body 1, in body 1's frame, about body 1's origin (force -f_n n at x*)
  F_c2_B2  the reaction on body 2, in body 2's frame, about body 2's origin
  F_c1_W, F_c2_W  the same in world coordinates about the world origin (F_c1_W + F_c2_W = 0)
Jacobians: J_fn_* (6,), J_Fc*_* (6, 6) with twist columns [w; v] (X12 / X1 / X2 as elsewhere;
X1 / X2 in .frame, the frame of the derivatives they were built from).
)") + kConventionsDoc))
      .def_readonly("status", &idcol::ContactWrenches::status, "DerivativeStatus of the Jacobians (see class doc).")
      .def_property_readonly("ok", &idcol::ContactWrenches::ok, "status == DerivativeStatus.ok (a bool, not a method).")
      .def("__repr__", &wrenches_repr)
      .def_readonly("frame", &idcol::ContactWrenches::frame, "ReferenceFrame of the X1 / X2 columns.")
      .def_readonly("in_contact", &idcol::ContactWrenches::in_contact, "delta > 0.")
      .def_readonly("penetration", &idcol::ContactWrenches::penetration, "delta = -gap.")
      .def_readonly("f_n", &idcol::ContactWrenches::f_n, "Normal force magnitude (31).")
      .def_readonly("F_c1_B1", &idcol::ContactWrenches::F_c1_B1, "Wrench on body 1 [torque; force], body 1's frame, about its origin (6,).")
      .def_readonly("F_c2_B2", &idcol::ContactWrenches::F_c2_B2, "Reaction on body 2 [torque; force], body 2's frame, about its origin (6,).")
      .def_readonly("F_c1_W", &idcol::ContactWrenches::F_c1_W, "Wrench on body 1 in world coordinates about the world origin (6,).")
      .def_readonly("F_c2_W", &idcol::ContactWrenches::F_c2_W, "Wrench on body 2 in world coordinates about the world origin (6,).")
      .def_readonly("J_fn_X12", &idcol::ContactWrenches::J_fn_X12, doc(field_doc("J_fn_X12", "(6,)")))
      .def_readonly("J_fn_X1", &idcol::ContactWrenches::J_fn_X1, doc(field_doc("J_fn_X1", "(6,)")))
      .def_readonly("J_fn_X2", &idcol::ContactWrenches::J_fn_X2, doc(field_doc("J_fn_X2", "(6,)")))
      .def_readonly("J_Fc1_B1_X12", &idcol::ContactWrenches::J_Fc1_B1_X12, doc(field_doc("J_Fc1_B1_X12", "(6, 6)")))
      .def_readonly("J_Fc1_B1_X1", &idcol::ContactWrenches::J_Fc1_B1_X1, doc(field_doc("J_Fc1_B1_X1", "(6, 6)")))
      .def_readonly("J_Fc1_B1_X2", &idcol::ContactWrenches::J_Fc1_B1_X2, doc(field_doc("J_Fc1_B1_X2", "(6, 6)")))
      .def_readonly("J_Fc2_B2_X12", &idcol::ContactWrenches::J_Fc2_B2_X12, doc(field_doc("J_Fc2_B2_X12", "(6, 6)")))
      .def_readonly("J_Fc2_B2_X1", &idcol::ContactWrenches::J_Fc2_B2_X1, doc(field_doc("J_Fc2_B2_X1", "(6, 6)")))
      .def_readonly("J_Fc2_B2_X2", &idcol::ContactWrenches::J_Fc2_B2_X2, doc(field_doc("J_Fc2_B2_X2", "(6, 6)")))
      .def_readonly("J_Fc1_W_X1", &idcol::ContactWrenches::J_Fc1_W_X1, doc(field_doc("J_Fc1_W_X1", "(6, 6)")))
      .def_readonly("J_Fc1_W_X2", &idcol::ContactWrenches::J_Fc1_W_X2, doc(field_doc("J_Fc1_W_X2", "(6, 6)")))
      .def_readonly("J_Fc2_W_X1", &idcol::ContactWrenches::J_Fc2_W_X1, doc(field_doc("J_Fc2_W_X1", "(6, 6)")))
      .def_readonly("J_Fc2_W_X2", &idcol::ContactWrenches::J_Fc2_W_X2, doc(field_doc("J_Fc2_W_X2", "(6, 6)")));

  m.def(
      "hertz_wrenches",
      [](const ContactSolution& s, const idcol::HertzModel& h) {
        check_hertz(h);
        return idcol::hertz_wrenches(s, h);
      },
      py::arg("solution"), py::arg("model") = idcol::HertzModel{}, "Wrench values only (Jacobian blocks zero).");
  m.def(
      "hertz_wrenches",
      [](const ContactSolution& s, const ContactDerivatives& d, const idcol::HertzModel& h) {
        check_hertz(h);
        return idcol::hertz_wrenches(s, d, h);
      },
      py::arg("solution"), py::arg("derivatives"), py::arg("model") = idcol::HertzModel{},
      "Wrenches and their Jacobians; derivatives = contact_derivatives of the same solution.");

  // ------------------------------------------------------------------ generalized coordinates
  // A body Jacobian J: 6 rows, finite entries.
  const auto checked_body_jacobian = [](const Eigen::MatrixXd& J) -> const Eigen::MatrixXd& {
    if (J.rows() != 6 || !J.allFinite()) throw std::invalid_argument("BodyJacobian: J must be a finite (6, n) array");
    return J;
  };
  py::class_<BodyJacobian>(m, "BodyJacobian", "The geometric Jacobian (6, n) of one rigid body, rows [w; v].")
      .def(py::init([checked_body_jacobian](const Real<Eigen::MatrixXd>& J, ReferenceFrame c, const PoseArg& X) {
             return BodyJacobian{checked_body_jacobian(J), c, X.value};
           }),
           py::arg("J"), py::arg("frame") = ReferenceFrame::world, py::arg("X_WB") = Pose{})
      .def_property(
          "J", [](const BodyJacobian& b) { return b.J; },
          [checked_body_jacobian](BodyJacobian& b, const Real<Eigen::MatrixXd>& J) { b.J = checked_body_jacobian(J); },
          "The Jacobian (6, n), rows [w; v] (finite).")
      .def_readwrite("frame", &BodyJacobian::frame, "ReferenceFrame of J q_dot.")
      .def_readwrite("X_WB", &BodyJacobian::X_WB, "The body's pose (read by the local frames).");
  m.def(
      "shape_body_twist_map", [](const PoseArg& X) { return shape_body_twist_map(X.value); }, py::arg("X_BS"),
      "Ad_{X_BS^-1}: the body twist of a shape mounted at X_BS from the body twist of its body.");
  m.def(
      "to_coordinates",
      [](Real<Eigen::MatrixXd> J1, Real<Eigen::MatrixXd> J2, const BodyJacobian& b1, const BodyJacobian& b2) {
        // a (6,) gradient arrives as a 6 x 1 column: use it as the 1 x 6 row it is
        if (J1.rows() == 6 && J1.cols() == 1) J1.transposeInPlace();
        if (J2.rows() == 6 && J2.cols() == 1) J2.transposeInPlace();
        return to_coordinates(J1, J2, b1, b2);
      },
      py::arg("J_out_X1"), py::arg("J_out_X2"), py::arg("body1"),
        py::arg("body2"),
        "Chain rule to generalized coordinates: J_out_X1 M1 J1 + J_out_X2 M2 J2 (k, n). Scalar blocks "
        "(6,) are taken as 1 x 6. Raises ValueError on mismatched sizes.");

  // ------------------------------------------------------------------ ergodic sweep
  py::class_<idcol::ErgodicSweep>(m, "ErgodicSweep", R"(The seed's ergodic pose sweep (Sec. V, Table I).

Pose of body 2 (body 1 at the identity) at sample i, t = i dt: distance
r = cbrt(rmin^3 + (rmax^3 - rmin^3) u) with u, the direction and the quaternion driven by
incommensurate frequencies sqrt(2), sqrt(3), ..., sqrt(17).)")
      .def(py::init<>())
      .def_readwrite("rmin", &idcol::ErgodicSweep::rmin, "Smallest distance of body 2's origin from body 1's.")
      .def_readwrite("rmax", &idcol::ErgodicSweep::rmax, "Largest distance.")
      .def_readwrite("dt", &idcol::ErgodicSweep::dt, "Time step between samples (1e-4).")
      .def_static("for_pair", &idcol::ErgodicSweep::for_pair, py::arg("shape1"), py::arg("shape2"),
                  "The sweep of a pair: rmin = 0.1 min(inner radii), rmax = 2 max(outer radii).")
      .def("pose", &idcol::ErgodicSweep::pose, py::arg("i"), "Pose of body 2 at sample i.")
      .def(
          "poses",
          [](const idcol::ErgodicSweep& s, long n, long start) {
            if (n < 0) throw std::invalid_argument("ErgodicSweep.poses: n must be >= 0");
            py::array_t<double> out({static_cast<py::ssize_t>(n), py::ssize_t{4}, py::ssize_t{4}});
            double* d = out.mutable_data();
            for (long i = 0; i < n; ++i) {
              const Eigen::Matrix4d T = pose_to_matrix(s.pose(start + i));
              Eigen::Map<Eigen::Matrix<double, 4, 4, Eigen::RowMajor>>(d + 16 * i) = T;
            }
            return out;
          },
          py::arg("n"), py::arg("start") = 0,
          "Poses of samples start, ..., start + n - 1 as an (n, 4, 4) array (exact: the same R and p as pose(i)).");

  m.def("benchmark_shape", &idcol::benchmark_shape, py::arg("name"),
        "A benchmark shape of the seed by name: 'sphere', 'ellipsoid', 'poly', 'tc', 'se', 'sec'. "
        "Raises ValueError for another name.");
  m.def("benchmark_shape_names", &idcol::benchmark_shape_names, "['sphere', 'ellipsoid', 'poly', 'tc', 'se', 'sec'].");
  // ------------------------------------------------------------------ Euclidean distance
  py::class_<idcol::DistanceResult>(m, "DistanceResult", R"(Euclidean distance of two separated iDCOL shapes.

distance = |p2_W - p1_W|, closest points p1_W, p2_W on the surfaces (world), normal_W from body 1
to body 2; contact_gap is iDCOL's d_D of the same pair, for comparison.)")
      .def_readonly("status", &idcol::DistanceResult::status, "DistanceStatus of the query")
      .def_property_readonly("ok", &idcol::DistanceResult::ok, "status == DistanceStatus.separated (a bool).")
      .def_readonly("distance", &idcol::DistanceResult::distance, "|p2_W - p1_W|")
      .def_readonly("p1_W", &idcol::DistanceResult::p1_W, "closest point on body 1, world (3,)")
      .def_readonly("p2_W", &idcol::DistanceResult::p2_W, "closest point on body 2, world (3,)")
      .def_readonly("normal_W", &idcol::DistanceResult::normal_W, "unit normal from body 1 to body 2, world (3,)")
      .def_readonly("mu1", &idcol::DistanceResult::mu1, "KKT multiplier of body 1")
      .def_readonly("mu2", &idcol::DistanceResult::mu2, "KKT multiplier of body 2")
      .def_readonly("iterations", &idcol::DistanceResult::iterations, "Newton iterations")
      .def_readonly("residual_norm", &idcol::DistanceResult::residual_norm, "scaled KKT residual")
      .def_readonly("contact_gap", &idcol::DistanceResult::contact_gap, "iDCOL's d_D (30) of the start")
      .def("__repr__", [](const idcol::DistanceResult& r) {
        std::ostringstream os;
        os.precision(17);
        os << "DistanceResult(status=" << diffcol::status_name(r.status) << ", distance=" << r.distance
           << ", contact_gap=" << r.contact_gap << ", iterations=" << r.iterations << ")";
        return os.str();
      });
  m.def(
      "euclidean_distance",
      [](const Shape& s1, const PoseArg& X1, const Shape& s2, const PoseArg& X2, const py::object& start,
         double tolerance, int max_iterations) {
        idcol::DistanceOptions o;
        o.tolerance = tolerance;
        o.max_iterations = max_iterations;
        o.validate();
        if (!start.is_none())
          return idcol::euclidean_distance(s1, X1.value, s2, X2.value, start.cast<const ContactSolution&>(), o);
        return idcol::euclidean_distance(s1, X1.value, s2, X2.value, o);
      },
      py::arg("shape1"), py::arg("X_W1"), py::arg("shape2"), py::arg("X_W2"), py::arg("start") = py::none(),
      py::arg("tolerance") = idcol::DistanceOptions{}.tolerance,
      py::arg("max_iterations") = idcol::DistanceOptions{}.max_iterations,
      R"(The Euclidean distance and closest points of two shapes (Newton on the closest-point KKT conditions).

Args:
  shape1, shape2: shapes; X_W1, X_W2: their world poses.
  start: optional ContactSolution of solve_contact for the same pair and poses (else one is solved).
  tolerance: on the scaled KKT residual; max_iterations: Newton iterations.
Returns DistanceResult. Raises ValueError for an invalid pose or options.)");
  py::class_<idcol::DistanceDerivatives>(m, "DistanceDerivatives", R"(Derivatives of a DistanceResult with respect to
the twists [w; v] of body 1 (X1) and body 2 (X2) in .frame (default world: X_Wi <- exp(eta^) X_Wi).
J_distance_Xi (1, 6); J_p1_W_Xi, J_p2_W_Xi, J_normal_W_Xi (3, 6).)")
      .def_readonly("status", &idcol::DistanceDerivatives::status, "DistanceDerivativeStatus")
      .def_readonly("frame", &idcol::DistanceDerivatives::frame, "ReferenceFrame of the X1 / X2 columns")
      .def_property_readonly("ok", &idcol::DistanceDerivatives::ok, "status == DistanceDerivativeStatus.ok (a bool).")
      .def_readonly("J_distance_X1", &idcol::DistanceDerivatives::J_distance_X1, "d distance / d (twist [w; v] in frame of body 1), (1, 6)")
      .def_readonly("J_distance_X2", &idcol::DistanceDerivatives::J_distance_X2, "d distance / d (twist [w; v] in frame of body 2), (1, 6)")
      .def_readonly("J_p1_W_X1", &idcol::DistanceDerivatives::J_p1_W_X1, "d p1_W / d (twist [w; v] in frame of body 1), (3, 6)")
      .def_readonly("J_p1_W_X2", &idcol::DistanceDerivatives::J_p1_W_X2, "d p1_W / d (twist [w; v] in frame of body 2), (3, 6)")
      .def_readonly("J_p2_W_X1", &idcol::DistanceDerivatives::J_p2_W_X1, "d p2_W / d (twist [w; v] in frame of body 1), (3, 6)")
      .def_readonly("J_p2_W_X2", &idcol::DistanceDerivatives::J_p2_W_X2, "d p2_W / d (twist [w; v] in frame of body 2), (3, 6)")
      .def_readonly("J_normal_W_X1", &idcol::DistanceDerivatives::J_normal_W_X1, "d normal_W / d (twist [w; v] in frame of body 1), (3, 6)")
      .def_readonly("J_normal_W_X2", &idcol::DistanceDerivatives::J_normal_W_X2, "d normal_W / d (twist [w; v] in frame of body 2), (3, 6)")
      .def("__repr__", [](const idcol::DistanceDerivatives& d) {
        return std::string("DistanceDerivatives(status=") + diffcol::status_name(d.status) + ")";
      });
  m.def(
      "distance_derivatives",
      [](const idcol::DistanceResult& r, ReferenceFrame f) { return idcol::distance_derivatives(r, f); },
      py::arg("result"), py::arg("frame") = ReferenceFrame::world, "DistanceDerivatives of a DistanceResult (envelope theorem; IFT on the KKT conditions).");

  // ------------------------------------------------------------------ second order, shape parameters
  py::enum_<idcol::HessianOutputs>(m, "HessianOutputs", "Which two-pose blocks contact_hessians fills.")
      .value("all", idcol::HessianOutputs::all, "scalars and the vector outputs")
      .value("scalars", idcol::HessianOutputs::scalars, "alpha, lambda1, lambda2, gap only");
  py::class_<idcol::ContactHessians> hes(m, "ContactHessians", R"(Second-order derivatives of one contact solution.

H_<out>_X12: d^2 f(X_12 exp(xi^)) / d xi_a d xi_b at xi = 0, xi = body twist [w; v] of body 2
  relative to body 1: (6, 6) for alpha, lambda1, lambda2, gap; (3, 6, 6) for x_B1, p1_B1, p2_B1,
  normal_B1 (one matrix per component).
H_<out>: the Hessian over both poses, columns [zeta1 | zeta2] in .frame: the Hessian of
  f(exp((M1 zeta1)^) X_W1, exp((M2 zeta2)^) X_W2), M_i = world_twist_from_frame(frame, X_Wi)
  (world: exp(eta^) X; local: X exp(zeta^)): (12, 12), or (3, 12, 12) for vectors.
All symmetric: the symmetric part of the derivative of the first derivatives (docs/idcol.md,
"Second-order and shape derivatives"). status: DerivativeStatus; every block zero unless ok.)");
  hes.def_readonly("status", &idcol::ContactHessians::status, "DerivativeStatus; every block is zero unless ok.")
      .def_readonly("frame", &idcol::ContactHessians::frame, "ReferenceFrame of the twists of the two-pose blocks.")
      .def_property_readonly("ok", &idcol::ContactHessians::ok, "status == DerivativeStatus.ok (a bool).")
      .def_readonly("H_alpha_X12", &idcol::ContactHessians::H_alpha_X12, "d2 alpha / d xi2 (6, 6), xi = body twist of X_12")
      .def_readonly("H_lambda1_X12", &idcol::ContactHessians::H_lambda1_X12, "d2 lambda1 / d xi2 (6, 6)")
      .def_readonly("H_lambda2_X12", &idcol::ContactHessians::H_lambda2_X12, "d2 lambda2 / d xi2 (6, 6)")
      .def_readonly("H_gap_X12", &idcol::ContactHessians::H_gap_X12, "d2 gap / d xi2 (6, 6)")
      .def_readonly("H_alpha", &idcol::ContactHessians::H_alpha, "Hessian of alpha over [zeta1 | zeta2] in frame (12, 12)")
      .def_readonly("H_lambda1", &idcol::ContactHessians::H_lambda1, "Hessian of lambda1 over [zeta1 | zeta2] (12, 12)")
      .def_readonly("H_lambda2", &idcol::ContactHessians::H_lambda2, "Hessian of lambda2 over [zeta1 | zeta2] (12, 12)")
      .def_readonly("H_gap", &idcol::ContactHessians::H_gap, "Hessian of the gap d_D over [zeta1 | zeta2] (12, 12)")
      .def("__repr__", [](const idcol::ContactHessians& h) {
        return std::string("ContactHessians(status=") + diffcol::status_name(h.status) +
               ", frame=" + reference_frame_name(h.frame) + ")";
      });
  const auto stack3 = [](const auto& arr) {
    constexpr int N = std::remove_cvref_t<decltype(arr[0])>::RowsAtCompileTime;
    py::array_t<double> out({3, N, N});
    auto v = out.template mutable_unchecked<3>();
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) v(k, i, j) = arr[k](i, j);
    return out;
  };
#define DIFFCOL_HESSIAN_VECTOR(name)                                                                   \
  hes.def_property_readonly(#name, [stack3](const idcol::ContactHessians& h) { return stack3(h.name); }, \
                            "(3, N, N): one symmetric matrix per component")
  DIFFCOL_HESSIAN_VECTOR(H_x_B1_X12);
  DIFFCOL_HESSIAN_VECTOR(H_p1_B1_X12);
  DIFFCOL_HESSIAN_VECTOR(H_p2_B1_X12);
  DIFFCOL_HESSIAN_VECTOR(H_normal_B1_X12);
  DIFFCOL_HESSIAN_VECTOR(H_x_B1);
  DIFFCOL_HESSIAN_VECTOR(H_p1_B1);
  DIFFCOL_HESSIAN_VECTOR(H_p2_B1);
  DIFFCOL_HESSIAN_VECTOR(H_normal_B1);
#undef DIFFCOL_HESSIAN_VECTOR
  m.def(
      "contact_hessians",
      [](const Shape& s1, const Shape& s2, const ContactSolution& s, ReferenceFrame f, idcol::HessianOutputs o) {
        return idcol::contact_hessians(s1, s2, s, f, o);
      },
      py::arg("shape1"), py::arg("shape2"), py::arg("solution"), py::arg("frame") = ReferenceFrame::world,
      py::arg("outputs") = idcol::HessianOutputs::all,
      R"(ContactHessians of a solution of these shapes (second-order implicit function theorem on (10),
with the shapes' third derivatives at the contact). frame: the twists of the two-pose blocks.)");
  m.def(
      "contact_hessians",
      [](const idcol::ContactPair& p, ReferenceFrame f, idcol::HessianOutputs o) {
        return idcol::contact_hessians(p, f, o);
      },
      py::arg("pair"), py::arg("frame") = ReferenceFrame::world, py::arg("outputs") = idcol::HessianOutputs::all,
      "ContactHessians of pair.last.");

  m.def("shape_parameter_count", &idcol::shape_parameter_count, py::arg("shape"),
        "Number of parameters of the shape that shape_derivatives differentiates.");
  m.def(
      "shape_parameter_names",
      [](const Shape& s) {
        std::vector<std::string> out;
        for (int i = 0; i < idcol::shape_parameter_count(s); ++i) out.push_back(idcol::shape_parameter_name(s, i));
        return out;
      },
      py::arg("shape"),
      "Names of the parameters, in the order of the columns of ShapeDerivatives: sphere radius; superellipsoid "
      "a, b, c; superelliptic cylinder radius, half_height; smooth polytope beta, length; smooth truncated cone "
      "beta, bottom_radius, top_radius, bottom_extent, top_extent.");
  py::class_<idcol::ShapeDerivatives> sd(m, "ShapeDerivatives", R"(Derivatives with respect to the shapes' parameters.

Columns: shape 1's parameters (count1, shape_parameter_names(shape1)), then shape 2's (count2).
d_alpha, d_lambda1, d_lambda2, d_gap: (count1 + count2,); d_x_B1, d_p1_B1, d_p2_B1, d_normal_B1 and
the world-frame d_x_W, d_p1_W, d_p2_W, d_normal_W: (3, count1 + count2). Every block zero unless ok.)");
  sd.def_readonly("status", &idcol::ShapeDerivatives::status, "DerivativeStatus; every block is zero unless ok.")
      .def_property_readonly("ok", &idcol::ShapeDerivatives::ok, "status == DerivativeStatus.ok (a bool).")
      .def_readonly("count1", &idcol::ShapeDerivatives::count1, "number of parameters of shape 1 (the first columns)")
      .def_readonly("count2", &idcol::ShapeDerivatives::count2, "number of parameters of shape 2 (the next columns)")
      .def("__repr__", [](const idcol::ShapeDerivatives& d) {
        return std::string("ShapeDerivatives(status=") + diffcol::status_name(d.status) +
               ", count1=" + std::to_string(d.count1) + ", count2=" + std::to_string(d.count2) + ")";
      });
#define DIFFCOL_SHAPE_ROW(name)                                                                  \
  sd.def_property_readonly(#name, [](const idcol::ShapeDerivatives& d) {                          \
    return Eigen::VectorXd(d.name.leftCols(d.count1 + d.count2).transpose());                     \
  }, "d " #name " / d (parameters of shape 1, then shape 2), (count1 + count2,)")
#define DIFFCOL_SHAPE_ROWS3(name)                                                                \
  sd.def_property_readonly(#name, [](const idcol::ShapeDerivatives& d) {                          \
    return Eigen::MatrixXd(d.name.leftCols(d.count1 + d.count2));                                 \
  }, "d " #name " / d (parameters of shape 1, then shape 2), (3, count1 + count2)")
  DIFFCOL_SHAPE_ROW(d_alpha);
  DIFFCOL_SHAPE_ROW(d_lambda1);
  DIFFCOL_SHAPE_ROW(d_lambda2);
  DIFFCOL_SHAPE_ROW(d_gap);
  DIFFCOL_SHAPE_ROWS3(d_x_B1);
  DIFFCOL_SHAPE_ROWS3(d_p1_B1);
  DIFFCOL_SHAPE_ROWS3(d_p2_B1);
  DIFFCOL_SHAPE_ROWS3(d_normal_B1);
  DIFFCOL_SHAPE_ROWS3(d_x_W);
  DIFFCOL_SHAPE_ROWS3(d_p1_W);
  DIFFCOL_SHAPE_ROWS3(d_p2_W);
  DIFFCOL_SHAPE_ROWS3(d_normal_W);
#undef DIFFCOL_SHAPE_ROW
#undef DIFFCOL_SHAPE_ROWS3
  m.def(
      "shape_derivatives",
      [](const Shape& s1, const Shape& s2, const ContactSolution& s) { return idcol::shape_derivatives(s1, s2, s); },
      py::arg("shape1"), py::arg("shape2"), py::arg("solution"),
      "ShapeDerivatives of a solution of these shapes (implicit function theorem on (10) in the parameters).");
  m.def(
      "shape_derivatives", [](const idcol::ContactPair& p) { return idcol::shape_derivatives(p); }, py::arg("pair"),
      "ShapeDerivatives of pair.last.");
}

}  // namespace diffcol::python
