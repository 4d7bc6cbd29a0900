// JSON output of the diffcol CLI: 17 significant digits for every floating-point number.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "cli.hpp"
#include "timing.hpp"

namespace diffcol::cli {
namespace {

bool is_scalar(const Json& j) { return !j.is_array() && !j.is_object(); }

void write_scalar(std::ostream& os, const Json& j) {
  if (j.is_number_float()) {
    os << format_number(j.get<double>());
  } else {
    os << j.dump();  // strings (escaped), integers, booleans, null
  }
}

void write_rec(std::ostream& os, const Json& j, int indent, int depth) {
  if (is_scalar(j)) {
    write_scalar(os, j);
    return;
  }
  const std::string pad(static_cast<size_t>(indent * (depth + 1)), ' ');
  const std::string pad_end(static_cast<size_t>(indent * depth), ' ');
  if (j.is_array()) {
    if (j.empty()) {
      os << "[]";
      return;
    }
    bool flat = true;
    for (const auto& e : j) flat = flat && is_scalar(e);
    if (flat) {  // arrays of numbers (vectors, matrix rows) on one line
      os << "[";
      for (size_t i = 0; i < j.size(); ++i) {
        if (i) os << ", ";
        write_scalar(os, j[i]);
      }
      os << "]";
      return;
    }
    os << "[\n";
    for (size_t i = 0; i < j.size(); ++i) {
      os << pad;
      write_rec(os, j[i], indent, depth + 1);
      os << (i + 1 < j.size() ? ",\n" : "\n");
    }
    os << pad_end << "]";
    return;
  }
  if (j.empty()) {
    os << "{}";
    return;
  }
  os << "{\n";
  size_t i = 0;
  for (auto it = j.begin(); it != j.end(); ++it, ++i) {
    os << pad << Json(it.key()).dump() << ": ";
    write_rec(os, it.value(), indent, depth + 1);
    os << (i + 1 < j.size() ? ",\n" : "\n");
  }
  os << pad_end << "}";
}

}  // namespace

std::string format_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string fixed(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

void write_json(std::ostream& os, const Json& j, int indent) {
  write_rec(os, j, indent, 0);
  os << "\n";
}

Json vec_json(const Vec3& v) { return Json::array({v.x(), v.y(), v.z()}); }

Json pose_json(const Pose& X) {
  const Eigen::Quaterniond q = X.quaternion();
  Json j;
  j["position"] = vec_json(X.p);
  j["quaternion"] = Json::array({q.w(), q.x(), q.y(), q.z()});
  return j;
}

Json solution_json(const idcol::ContactSolution& s) {
  Json j;
  j["status"] = diffcol::status_name(s.status);
  j["ok"] = s.ok();
  j["iterations"] = s.iterations;
  j["jacobian_evaluations"] = s.jacobian_evaluations;
  j["attempts"] = s.attempts;
  j["residual_norm"] = s.residual_norm;
  j["alpha"] = s.alpha;
  j["x_B1"] = vec_json(s.x_B1);
  j["lambda1"] = s.lambda1;
  j["lambda2"] = s.lambda2;
  j["p1_B1"] = vec_json(s.p1_B1);
  j["p2_B1"] = vec_json(s.p2_B1);
  j["gap"] = s.gap;
  j["normal_B1"] = vec_json(s.normal_B1);
  j["x_W"] = vec_json(s.x_W);
  j["p1_W"] = vec_json(s.p1_W);
  j["p2_W"] = vec_json(s.p2_W);
  j["normal_W"] = vec_json(s.normal_W);
  j["X_12"] = pose_json(s.X_12);
  Json K = Json::array();
  for (int r = 0; r < 6; ++r) {
    Json row = Json::array();
    for (int c = 0; c < 6; ++c) row.push_back(s.kkt_jacobian(r, c));
    K.push_back(row);
  }
  j["kkt_jacobian"] = K;
  return j;
}


Json derivatives_json(const idcol::ContactDerivatives& d) {
  Json j;
  j["status"] = diffcol::status_name(d.status);
  j["ok"] = d.ok();
  j["frame"] = reference_frame_name(d.frame);
  j["layout"] =
      "J_<out>_<in>: rows = components of <out>, 6 columns = twist of <in> ordered [omega; v]; "
      "X1, X2 = twist of body 1, body 2 in `frame` (world: X_Wi <- exp(eta^) X_Wi; the full 12-column Jacobian is "
      "[J_<out>_X1 | J_<out>_X2]); X12 = body twist of body 2 relative to body 1 (X_12 <- X_12 exp(xi^)); "
      "_B1 = body 1's frame, _W = world; z = (x_B1, alpha, lambda1, lambda2); all blocks zero unless status is ok";
#define DIFFCOL_BLOCK(name) j[#name] = rows_json(d.name)
  DIFFCOL_BLOCK(J_z_X12);
  DIFFCOL_BLOCK(J_alpha_X12);
  DIFFCOL_BLOCK(J_lambda1_X12);
  DIFFCOL_BLOCK(J_lambda2_X12);
  DIFFCOL_BLOCK(J_gap_X12);
  DIFFCOL_BLOCK(J_x_B1_X12);
  DIFFCOL_BLOCK(J_p1_B1_X12);
  DIFFCOL_BLOCK(J_p2_B1_X12);
  DIFFCOL_BLOCK(J_normal_B1_X12);

  DIFFCOL_BLOCK(J_alpha_X1);
  DIFFCOL_BLOCK(J_lambda1_X1);
  DIFFCOL_BLOCK(J_lambda2_X1);
  DIFFCOL_BLOCK(J_gap_X1);
  DIFFCOL_BLOCK(J_x_B1_X1);
  DIFFCOL_BLOCK(J_x_W_X1);
  DIFFCOL_BLOCK(J_p1_B1_X1);
  DIFFCOL_BLOCK(J_p1_W_X1);
  DIFFCOL_BLOCK(J_p2_B1_X1);
  DIFFCOL_BLOCK(J_p2_W_X1);
  DIFFCOL_BLOCK(J_normal_B1_X1);
  DIFFCOL_BLOCK(J_normal_W_X1);

  DIFFCOL_BLOCK(J_alpha_X2);
  DIFFCOL_BLOCK(J_lambda1_X2);
  DIFFCOL_BLOCK(J_lambda2_X2);
  DIFFCOL_BLOCK(J_gap_X2);
  DIFFCOL_BLOCK(J_x_B1_X2);
  DIFFCOL_BLOCK(J_x_W_X2);
  DIFFCOL_BLOCK(J_p1_B1_X2);
  DIFFCOL_BLOCK(J_p1_W_X2);
  DIFFCOL_BLOCK(J_p2_B1_X2);
  DIFFCOL_BLOCK(J_p2_W_X2);
  DIFFCOL_BLOCK(J_normal_B1_X2);
  DIFFCOL_BLOCK(J_normal_W_X2);
#undef DIFFCOL_BLOCK
  return j;
}

Json solve_options_json(const idcol::SolveOptions& o) {
  Json j;
  j["tolerance"] = o.tolerance;
  j["max_iterations"] = o.max_iterations;
  j["max_attempts"] = o.max_attempts;
  j["surrogate_factor"] = o.surrogate_factor;
  j["coincident_tolerance"] = o.coincident_tolerance;
  j["continuation"] = o.continuation;
  j["last_resort_iterations"] = o.last_resort_iterations;
  return j;
}

Json timing_json(const Timing& t) {
  Json j;
  j["mean_us"] = t.mean_us;
  j["mean_cpu_us"] = t.mean_cpu_us;
  j["mean_timed_us"] = t.mean_timed_us;
  j["median_us"] = t.median_us;
  j["p99_us"] = t.p99_us;
  j["max_us"] = t.max_us;
  return j;
}

}  // namespace diffcol::cli
