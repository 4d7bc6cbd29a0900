// solve(): a TrajectoryProblem through Ipopt's C++ TNLP interface (docs/plan.md).
#include <chrono>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <string>

#include <coin/IpIpoptApplication.hpp>
#include <coin/IpIpoptCalculatedQuantities.hpp>
#include <coin/IpIpoptData.hpp>
#include <coin/IpTNLP.hpp>

#include "diffcol/plan/trajectory.hpp"

namespace diffcol::plan {

namespace {

using Ipopt::Index;
using Ipopt::Number;

constexpr double kIpoptInf = 1e20;  // beyond nlp_{lower,upper}_bound_inf (±1e19): unbounded

const char* status_name(Ipopt::ApplicationReturnStatus s) {
  switch (s) {
    case Ipopt::Solve_Succeeded: return "Solve_Succeeded";
    case Ipopt::Solved_To_Acceptable_Level: return "Solved_To_Acceptable_Level";
    case Ipopt::Infeasible_Problem_Detected: return "Infeasible_Problem_Detected";
    case Ipopt::Search_Direction_Becomes_Too_Small: return "Search_Direction_Becomes_Too_Small";
    case Ipopt::Diverging_Iterates: return "Diverging_Iterates";
    case Ipopt::User_Requested_Stop: return "User_Requested_Stop";
    case Ipopt::Feasible_Point_Found: return "Feasible_Point_Found";
    case Ipopt::Maximum_Iterations_Exceeded: return "Maximum_Iterations_Exceeded";
    case Ipopt::Restoration_Failed: return "Restoration_Failed";
    case Ipopt::Error_In_Step_Computation: return "Error_In_Step_Computation";
    case Ipopt::Maximum_CpuTime_Exceeded: return "Maximum_CpuTime_Exceeded";
    case Ipopt::Not_Enough_Degrees_Of_Freedom: return "Not_Enough_Degrees_Of_Freedom";
    case Ipopt::Invalid_Problem_Definition: return "Invalid_Problem_Definition";
    case Ipopt::Invalid_Option: return "Invalid_Option";
    case Ipopt::Invalid_Number_Detected: return "Invalid_Number_Detected";
    case Ipopt::Unrecoverable_Exception: return "Unrecoverable_Exception";
    case Ipopt::NonIpopt_Exception_Thrown: return "NonIpopt_Exception_Thrown";
    case Ipopt::Insufficient_Memory: return "Insufficient_Memory";
    case Ipopt::Internal_Error: return "Internal_Error";
  }
  return "unknown";
}

std::string status_message(Ipopt::ApplicationReturnStatus s) {
  switch (s) {
    case Ipopt::Solve_Succeeded: return "";
    case Ipopt::Solved_To_Acceptable_Level: return "solved to the acceptable tolerances only";
    case Ipopt::Infeasible_Problem_Detected:
    case Ipopt::Restoration_Failed:
      return "Ipopt could not find a point meeting the constraints near this initial guess: the collision rows "
             "(with the bounds and the dynamics) may be infeasible, e.g. a goal inside an obstacle or closer to one "
             "than the bound, a passage narrower than the bound allows, or too few knots; try another initial guess, "
             "more knots or a smaller bound";
    case Ipopt::Maximum_Iterations_Exceeded: return "the iteration limit was reached (SolveOptions::max_iterations)";
    case Ipopt::Maximum_CpuTime_Exceeded: return "the time limit was reached (SolveOptions::max_seconds)";
    case Ipopt::Invalid_Option: return "an Ipopt option was rejected (see its name and value in the options)";
    case Ipopt::Not_Enough_Degrees_Of_Freedom: return "more equality constraints than free variables";
    case Ipopt::Invalid_Number_Detected: return "a function or derivative returned NaN or Inf";
    default: return "Ipopt stopped without a solution";
  }
}

class TrajectoryNlp : public Ipopt::TNLP {
 public:
  TrajectoryNlp(TrajectoryProblem& p, const Eigen::VectorXd& x0, const SolveResult* warm, SolveResult& out, HessianMode mode)
      : p_(p), x0_(x0), warm_(warm), out_(out), hessian_(mode != HessianMode::limited_memory),
        exact_(mode == HessianMode::exact) {
    p_.jacobian_structure(rows_, cols_);
    if (exact_) {
      p_.lagrangian_hessian_structure(hrows_, hcols_);
    } else if (hessian_) {
      p_.objective_hessian_structure(hrows_, hcols_);
      p_.objective_hessian_values(hvalues_);
    }
    p_.variable_bounds(xl_, xu_);
    p_.constraint_bounds(gl_, gu_);
  }

  bool get_nlp_info(Index& n, Index& m, Index& nnz_jac_g, Index& nnz_h_lag, IndexStyleEnum& style) override {
    n = p_.num_variables();
    m = p_.num_constraints();
    nnz_jac_g = static_cast<Index>(rows_.size());
    nnz_h_lag = static_cast<Index>(hrows_.size());
    style = C_STYLE;
    return true;
  }

  bool get_bounds_info(Index n, Number* x_l, Number* x_u, Index m, Number* g_l, Number* g_u) override {
    auto clip = [](double v) { return std::isinf(v) ? (v > 0 ? kIpoptInf : -kIpoptInf) : v; };
    for (Index i = 0; i < n; ++i) {
      x_l[i] = clip(xl_[i]);
      x_u[i] = clip(xu_[i]);
    }
    for (Index i = 0; i < m; ++i) {
      g_l[i] = clip(gl_[i]);
      g_u[i] = clip(gu_[i]);
    }
    return true;
  }

  bool get_starting_point(Index n, bool init_x, Number* x, bool init_z, Number* z_L, Number* z_U, Index m,
                          bool init_lambda, Number* lambda) override {
    if (init_x)
      for (Index i = 0; i < n; ++i) x[i] = x0_[i];
    if (init_z) {
      if (!warm_ || warm_->z_lower.size() != n) return false;
      for (Index i = 0; i < n; ++i) {
        z_L[i] = warm_->z_lower[i];
        z_U[i] = warm_->z_upper[i];
      }
    }
    if (init_lambda) {
      if (!warm_ || warm_->lambda.size() != m) return false;
      for (Index i = 0; i < m; ++i) lambda[i] = warm_->lambda[i];
    }
    return true;
  }

  bool eval_f(Index n, const Number* x, bool, Number& f) override {
    return guard([&] { f = p_.objective(load(n, x)); });
  }
  bool eval_grad_f(Index n, const Number* x, bool, Number* g) override {
    return guard([&] {
      p_.objective_gradient(load(n, x), grad_);
      for (Index i = 0; i < n; ++i) g[i] = grad_[i];
    });
  }
  bool eval_g(Index n, const Number* x, bool, Index m, Number* g) override {
    return guard([&] {
      p_.constraints(load(n, x), gv_);
      for (Index i = 0; i < m; ++i) g[i] = gv_[i];
    });
  }
  bool eval_jac_g(Index n, const Number* x, bool, Index, Index nele, Index* iRow, Index* jCol, Number* values) override {
    if (!values) {
      for (Index i = 0; i < nele; ++i) {
        iRow[i] = rows_[static_cast<size_t>(i)];
        jCol[i] = cols_[static_cast<size_t>(i)];
      }
      return true;
    }
    return guard([&] {
      p_.jacobian_values(load(n, x), jv_);
      for (Index i = 0; i < nele; ++i) values[i] = jv_[i];
    });
  }
  // HessianMode::objective: σ·∇²f of the built-in terms (constant); the constraints' curvature is
  // left out. HessianMode::exact: σ·∇²f + Σ λ_i·∇²g_i (TrajectoryProblem::lagrangian_hessian_values).
  bool eval_h(Index n, const Number* x, bool, Number obj_factor, Index m, const Number* lambda, bool, Index nele,
              Index* iRow, Index* jCol, Number* values) override {
    if (!hessian_) return false;
    if (!values) {
      for (Index i = 0; i < nele; ++i) {
        iRow[i] = hrows_[static_cast<size_t>(i)];
        jCol[i] = hcols_[static_cast<size_t>(i)];
      }
      return true;
    }
    if (exact_)
      return guard([&] {
        lam_ = Eigen::Map<const Eigen::VectorXd>(lambda, m);
        p_.lagrangian_hessian_values(load(n, x), obj_factor, lam_, hv_);
        for (Index i = 0; i < nele; ++i) values[i] = hv_[i];
      });
    for (Index i = 0; i < nele; ++i) values[i] = obj_factor * hvalues_[i];
    return true;
  }

  void finalize_solution(Ipopt::SolverReturn, Index n, const Number* x, const Number* z_L, const Number* z_U, Index m,
                         const Number* g, const Number* lambda, Number obj_value, const Ipopt::IpoptData* ip_data,
                         Ipopt::IpoptCalculatedQuantities*) override {
    out_.x = Eigen::Map<const Eigen::VectorXd>(x, n);
    out_.z_lower = Eigen::Map<const Eigen::VectorXd>(z_L, n);
    out_.z_upper = Eigen::Map<const Eigen::VectorXd>(z_U, n);
    out_.lambda = Eigen::Map<const Eigen::VectorXd>(lambda, m);
    out_.objective = obj_value;
    if (ip_data) out_.iterations = ip_data->iter_count();
    double v = 0.0;
    for (Index i = 0; i < n; ++i) v = std::max({v, xl_[i] - x[i], x[i] - xu_[i]});
    for (Index i = 0; i < m; ++i) v = std::max({v, gl_[i] - g[i], g[i] - gu_[i]});
    out_.constraint_violation = v;
  }

  std::string error;

 private:
  const Eigen::VectorXd& load(Index n, const Number* x) {
    xb_ = Eigen::Map<const Eigen::VectorXd>(x, n);
    return xb_;
  }
  template <class F>
  bool guard(F&& f) {
    try {
      f();
      return true;
    } catch (const std::exception& e) {
      if (error.empty()) error = e.what();
      return false;
    }
  }

  TrajectoryProblem& p_;
  Eigen::VectorXd x0_;
  const SolveResult* warm_;
  SolveResult& out_;
  bool hessian_, exact_;
  std::vector<int> rows_, cols_, hrows_, hcols_;
  Eigen::VectorXd hvalues_;
  Eigen::VectorXd xl_, xu_, gl_, gu_, xb_, grad_, gv_, jv_, lam_, hv_;
};

void check_options(const SolveOptions& o) {
  auto positive = [](double v, const char* name) {
    if (!std::isfinite(v) || !(v > 0.0)) throw std::invalid_argument(std::string("plan: SolveOptions::") + name + " must be finite and > 0");
  };
  positive(o.tolerance, "tolerance");
  positive(o.acceptable_tolerance, "acceptable_tolerance");
  positive(o.constraint_tolerance, "constraint_tolerance");
  positive(o.fd_step, "fd_step");
  if (o.max_iterations < 0) throw std::invalid_argument("plan: SolveOptions::max_iterations must be ≥ 0");
  if (!std::isfinite(o.max_seconds) || o.max_seconds < 0.0)
    throw std::invalid_argument("plan: SolveOptions::max_seconds must be finite and ≥ 0");
  if (o.print_level < 0 || o.print_level > 12) throw std::invalid_argument("plan: SolveOptions::print_level must be in 0..12");
  if (o.limited_memory_size < 1) throw std::invalid_argument("plan: SolveOptions::limited_memory_size must be ≥ 1");
}

SolveResult run(TrajectoryProblem& problem, const SolveOptions& options, const Eigen::VectorXd& x0, const SolveResult* warm) {
  check_options(options);
  const auto t0 = std::chrono::steady_clock::now();
  SolveResult out;
  problem.set_fd_gradients(options.fd_gradients, options.fd_step);
  problem.reset_counters();
  Ipopt::SmartPtr<Ipopt::IpoptApplication> app = IpoptApplicationFactory();
  Ipopt::SmartPtr<Ipopt::OptionsList> opt = app->Options();
  bool ok = opt->SetStringValue("sb", "yes");
  ok &= opt->SetIntegerValue("print_level", options.print_level);
  ok &= opt->SetNumericValue("tol", options.tolerance);
  ok &= opt->SetNumericValue("acceptable_tol", options.acceptable_tolerance);
  ok &= opt->SetNumericValue("constr_viol_tol", options.constraint_tolerance);
  ok &= opt->SetIntegerValue("max_iter", options.max_iterations);
  if (options.max_seconds > 0.0) ok &= opt->SetNumericValue("max_cpu_time", options.max_seconds);
  const bool objective_hessian = options.hessian == HessianMode::objective;
  if (objective_hessian && !problem.spec().costs.empty())
    throw std::invalid_argument("plan: HessianMode::objective does not cover user costs; use HessianMode::limited_memory");
  if (options.hessian == HessianMode::exact) {
    const std::string why = problem.exact_hessian_unsupported();
    if (!why.empty())
      throw std::invalid_argument("plan: HessianMode::exact does not cover " + why + "; use HessianMode::limited_memory");
  }
  ok &= opt->SetStringValue("hessian_approximation",
                            options.hessian == HessianMode::limited_memory ? "limited-memory" : "exact");
  ok &= opt->SetIntegerValue("limited_memory_max_history", options.limited_memory_size);
  // Ipopt picks the adaptive barrier update itself with the limited-memory Hessian and the
  // monotone one with exact Hessians, where the arm and the quadrotors took 2-5x the iterations
  // or failed (docs/notes/plan.md); string_options below may set it back
  if (options.hessian == HessianMode::exact) ok &= opt->SetStringValue("mu_strategy", "adaptive");
  if (warm) {
    ok &= opt->SetStringValue("warm_start_init_point", "yes");
    ok &= opt->SetNumericValue("warm_start_bound_push", 1e-9);
    ok &= opt->SetNumericValue("warm_start_mult_bound_push", 1e-9);
    ok &= opt->SetNumericValue("mu_init", 1e-6);
  }
  for (const auto& [k, v] : options.string_options) ok &= opt->SetStringValue(k, v);
  for (const auto& [k, v] : options.numeric_options) ok &= opt->SetNumericValue(k, v);
  for (const auto& [k, v] : options.integer_options) ok &= opt->SetIntegerValue(k, v);
  if (!ok) throw std::invalid_argument("plan: Ipopt rejected an option (a name or a value out of range)");
  if (app->Initialize() != Ipopt::Solve_Succeeded) throw std::runtime_error("plan: Ipopt failed to initialize");
  Ipopt::SmartPtr<TrajectoryNlp> nlp = new TrajectoryNlp(problem, x0, warm, out, options.hessian);
  const Ipopt::ApplicationReturnStatus status = app->OptimizeTNLP(Ipopt::SmartPtr<Ipopt::TNLP>(Ipopt::GetRawPtr(nlp)));
  out.status = status_name(status);
  out.success = status == Ipopt::Solve_Succeeded || status == Ipopt::Solved_To_Acceptable_Level;
  out.message = status_message(status);
  if (!nlp->error.empty()) out.message += (out.message.empty() ? "" : "; ") + std::string("evaluation failed: ") + nlp->error;
  if (out.x.size() != problem.num_variables()) out.x = x0;
  out.configurations = problem.configurations(out.x);
  out.collision_s = problem.collision_seconds();
  out.collision_queries = problem.collision_queries();
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  problem.set_fd_gradients(false, options.fd_step);
  return out;
}

}  // namespace

SolveResult solve(TrajectoryProblem& problem, const SolveOptions& options, const Eigen::VectorXd& x0) {
  Eigen::VectorXd x = x0.size() ? x0 : problem.static_guess();
  if (x.size() != problem.num_variables())
    throw std::invalid_argument("plan: x0 has " + std::to_string(x.size()) + " entries, expected " +
                                std::to_string(problem.num_variables()));
  if (!x.allFinite()) throw std::invalid_argument("plan: x0 is not finite");
  return run(problem, options, x, nullptr);
}

SolveResult solve_warm(TrajectoryProblem& problem, const SolveResult& previous, const SolveOptions& options) {
  if (previous.x.size() != problem.num_variables() || previous.lambda.size() != problem.num_constraints())
    throw std::invalid_argument("plan: the warm start is not a result of a problem of this size");
  if (!previous.x.allFinite()) throw std::invalid_argument("plan: the warm start's x is not finite");
  return run(problem, options, previous.x, &previous);
}

}  // namespace diffcol::plan
