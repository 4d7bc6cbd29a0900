// Python bindings of include/diffcol/status.hpp: the statuses shared by idcol, dcol, qp and the
// scene (diffcol.SolveStatus, DerivativeStatus, DistanceStatus, DistanceDerivativeStatus).
#include "bindings.hpp"

#include "diffcol/status.hpp"

namespace diffcol::python {

void bind_status(py::module_& m) {
  py::enum_<SolveStatus>(m, "SolveStatus", R"(How a solve ended (idcol, dcol, qp, scene pairs, qp.solve_qp).
Each layer returns a subset: idcol ok, coincident_origins, not_converged, invalid_input; dcol all six;
qp.proximity ok, not_converged, numerical_error, invalid_input, not_certified; qp.solve_qp ok,
not_converged, numerical_error, invalid_input; scene pairs ok, coincident_origins, not_converged,
invalid_input.)")
      .value("ok", SolveStatus::ok, "converged (within the layer's tolerance, certified where the layer certifies)")
      .value("coincident_origins", SolveStatus::coincident_origins,
             "the origins coincide: alpha = 0; witness points, normal and gap are the finite limits")
      .value("not_converged", SolveStatus::not_converged, "iteration limit reached: the fields hold the last finite iterate")
      .value("invalid_input", SolveStatus::invalid_input, "a pose or an option is not valid: numeric fields are zero")
      .value("numerical_error", SolveStatus::numerical_error,
             "a factorization failed or an iterate was not finite: the last finite iterate")
      .value("not_certified", SolveStatus::not_certified,
             "the solver's own tests passed, its independent certificate did not: not to be trusted");
  py::enum_<DerivativeStatus>(m, "DerivativeStatus", R"(Why (some) derivatives are not available (idcol, dcol, qp).
idcol: ok, coincident_origins, solve_failed, invalid_input, singular, ill_conditioned; dcol: ok,
coincident_origins, solve_failed, invalid_input, singular; qp: ok, non_unique_minimizer, cores_touch,
solve_failed, invalid_input.)")
      .value("ok", DerivativeStatus::ok)
      .value("coincident_origins", DerivativeStatus::coincident_origins, "alpha* = 0: not differentiable there")
      .value("solve_failed", DerivativeStatus::solve_failed, "the solve's status is not ok: every block zero")
      .value("invalid_input", DerivativeStatus::invalid_input, "a pose is not valid: every block zero")
      .value("singular", DerivativeStatus::singular, "the KKT system is singular or a derivative is not finite")
      .value("ill_conditioned", DerivativeStatus::ill_conditioned,
             "idcol: the equilibrated KKT Jacobian's condition number exceeds 1e6 (kkt_condition): derivatives not "
             "trustworthy; use alpha_gradient_envelope or a smoother shape")
      .value("non_unique_minimizer", DerivativeStatus::non_unique_minimizer,
             "qp: parallel overlapping segments / edges / faces: witness Jacobians with the non-unique directions held fixed")
      .value("cores_touch", DerivativeStatus::cores_touch,
             "qp capsule-capsule |p1 - p2| ~ 0: crossing axes give the one-sided gradient of the reported normal's side; "
             "parallel ones J_signed_distance = J_normal = 0, J_closest_i = J_p_i");
  py::enum_<DistanceStatus>(m, "DistanceStatus", R"(How a Euclidean distance query ended.
idcol: separated, touching_or_overlapping, not_converged, invalid_input; dcol: separated,
touching_or_overlapping, not_certified, invalid_input.)")
      .value("separated", DistanceStatus::separated, "the distance of the separated shapes (converged, or certified)")
      .value("touching_or_overlapping", DistanceStatus::touching_or_overlapping,
             "the shapes meet: distance = 0 (not a penetration depth)")
      .value("not_converged", DistanceStatus::not_converged, "idcol: the contact solve or the Newton iterations failed")
      .value("invalid_input", DistanceStatus::invalid_input, "options out of range")
      .value("not_certified", DistanceStatus::not_certified,
             "dcol: the iterations ended above the tolerance; distance and lower_bound bracket it");
  py::enum_<DistanceDerivativeStatus>(m, "DistanceDerivativeStatus",
                                      "Why Euclidean distance derivatives are (not) available.")
      .value("ok", DistanceDerivativeStatus::ok)
      .value("distance_only", DistanceDerivativeStatus::distance_only,
             "closest points not unique or ill-determined (parallel flat patches): distance blocks only")
      .value("not_separated", DistanceDerivativeStatus::not_separated, "every block zero");
  m.def("status_name", py::overload_cast<SolveStatus>(&status_name), py::arg("status"),
        "The name of a status: 'ok', 'not_converged', ... (the enum's member name).");
  m.def("status_name", py::overload_cast<DerivativeStatus>(&status_name), py::arg("status"));
  m.def("status_name", py::overload_cast<DistanceStatus>(&status_name), py::arg("status"));
  m.def("status_name", py::overload_cast<DistanceDerivativeStatus>(&status_name), py::arg("status"));
}

}  // namespace diffcol::python
