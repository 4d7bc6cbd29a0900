// Integration of the penalty system with SUNDIALS CVODES: BDF, Newton iterations, dense linear
// solver with the analytic Jacobian or CVODES' difference quotients; forward sensitivities with
// the analytic sensitivity right-hand side J·s + ∂f/∂k. docs/sim.md.
#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <Eigen/LU>

#include <chrono>
#include <ctime>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "penalty_impl.hpp"

namespace diffcol::sim {

namespace {

struct Run {
  PenaltySystem::Impl* sys = nullptr;
  int n = 0;
  std::string rhs_error;   // the last failure of a callback
  std::string cv_message;  // the last message of CVODES' error handler
  bool track_penetration = true;
  double max_penetration = 0.0;
  Eigen::MatrixXd J;       // the Jacobian of the sensitivity right-hand side
  Eigen::VectorXd dfdk;
  Eigen::Matrix<double, 6, 1> momentum;  // (P, L) of t0, the target of the projection
  SUNLinearSolver klu = nullptr;         // LinearSolverKind::sparse
};

// A run over the system: its counters reset.
Run start_run(PenaltySystem::Impl& sys, int n) {
  sys.collision_s = 0.0;
  sys.contact_solves = 0;
  sys.fd_pair_jacobians = 0;
  Run run;
  run.sys = &sys;
  run.n = n;
  return run;
}

int rhs_cb(realtype, N_Vector y, N_Vector ydot, void* user) {
  Run& r = *static_cast<Run*>(user);
  try {
    r.sys->assemble(N_VGetArrayPointer(y), N_VGetArrayPointer(ydot), nullptr, nullptr);
    if (r.track_penetration) r.max_penetration = std::max(r.max_penetration, r.sys->last_max_penetration);
    return 0;
  } catch (const std::exception& e) {
    r.rhs_error = e.what();
    return 1;  // recoverable: CVODES retries with a smaller step
  }
}

int jac_cb(realtype, N_Vector y, N_Vector, SUNMatrix Jm, void* user, N_Vector, N_Vector, N_Vector) {
  Run& r = *static_cast<Run*>(user);
  try {
    r.sys->assemble(N_VGetArrayPointer(y), nullptr, nullptr, SM_DATA_D(Jm));
    return 0;
  } catch (const std::exception& e) {
    r.rhs_error = e.what();
    return 1;
  }
}

// The analytic Jacobian into a compressed-column matrix: the nonzero 13 × 13 blocks and the
// diagonal (kept so that CVODES' I − γJ keeps the pattern); KLU re-analyses the new pattern.
int jac_sparse_cb(realtype, N_Vector y, N_Vector, SUNMatrix Jm, void* user, N_Vector, N_Vector, N_Vector) {
  Run& r = *static_cast<Run*>(user);
  try {
    const int n = r.n, nb = n / 13;
    r.J.resize(n, n);
    r.sys->assemble(N_VGetArrayPointer(y), nullptr, nullptr, r.J.data());
    std::vector<char> nz(static_cast<size_t>(nb) * static_cast<size_t>(nb), 0);
    long nnz = 0;
    for (int bj = 0; bj < nb; ++bj)
      for (int bi = 0; bi < nb; ++bi) {
        const bool on = bi == bj || !r.J.block<13, 13>(13 * bi, 13 * bj).isZero(0.0);
        nz[static_cast<size_t>(bj) * nb + bi] = on;
        nnz += on ? 169 : 0;
      }
    if (SM_NNZ_S(Jm) < nnz && SUNSparseMatrix_Reallocate(Jm, nnz) != 0) return -1;
    sunindextype* colptr = SM_INDEXPTRS_S(Jm);
    sunindextype* rows = SM_INDEXVALS_S(Jm);
    double* data = SM_DATA_S(Jm);
    sunindextype k = 0;
    for (int j = 0; j < n; ++j) {
      colptr[j] = k;
      const int bj = j / 13;
      for (int bi = 0; bi < nb; ++bi) {
        if (!nz[static_cast<size_t>(bj) * nb + bi]) continue;
        for (int i = 13 * bi; i < 13 * bi + 13; ++i) {
          rows[k] = i;
          data[k++] = r.J(i, j);
        }
      }
    }
    colptr[n] = k;
    if (r.klu) SUNLinSol_KLUReInit(r.klu, Jm, SM_NNZ_S(Jm), SUNKLU_REINIT_PARTIAL);
    return 0;
  } catch (const std::exception& e) {
    r.rhs_error = e.what();
    return 1;
  }
}

int sens_cb(int Ns, realtype, N_Vector y, N_Vector, N_Vector* yS, N_Vector* ySdot, void* user, N_Vector, N_Vector) {
  Run& r = *static_cast<Run*>(user);
  try {
    r.J.resize(r.n, r.n);
    r.dfdk.resize(r.n);
    r.sys->assemble(N_VGetArrayPointer(y), nullptr, r.dfdk.data(), r.J.data());
    for (int j = 0; j < Ns; ++j) {
      Eigen::Map<const Eigen::VectorXd> s(N_VGetArrayPointer(yS[j]), r.n);
      Eigen::Map<Eigen::VectorXd> sd(N_VGetArrayPointer(ySdot[j]), r.n);
      sd.noalias() = r.J * s;
      if (j == Ns - 1) sd += r.dfdk;  // the last parameter is the stiffness
    }
    return 0;
  } catch (const std::exception& e) {
    r.rhs_error = e.what();
    return 1;
  }
}

// CVODES' projection (SimOptions::project_momentum): the velocities back onto the momentum of t0.
int proj_cb(realtype, N_Vector y, N_Vector corr, realtype, N_Vector err, void* user) {
  Run& r = *static_cast<Run*>(user);
  r.sys->momentum_correction(N_VGetArrayPointer(y), r.momentum, N_VGetArrayPointer(corr),
                             err ? N_VGetArrayPointer(err) : nullptr);
  return 0;
}

void err_cb(int, const char* module, const char* function, char* msg, void* data) {
  static_cast<Run*>(data)->cv_message = std::string(module) + "::" + function + ": " + msg;
}

// A direct solver for CVODES' Newton matrix M = I − γJ that factors each group of coupled free
// bodies on its own (LinearSolverKind::dense_blocks): bodies interact only through contacts, so
// M is block diagonal up to a permutation, with one dense block per connected component of the
// contact graph. The components come from the nonzero 13 × 13 blocks of M at each setup; each is
// factored with partial pivoting (Eigen). Exact like the dense LU, at the cost of the components.
struct BlockSolver {
  int bodies = 0;
  std::vector<int> parent;
  std::vector<std::vector<int>> groups;           // the free-body indices of each component
  std::vector<Eigen::PartialPivLU<Eigen::MatrixXd>> lu;
  Eigen::VectorXd tmp;
  int last_flag = 0;

  int find(int i) {
    while (parent[static_cast<size_t>(i)] != i) i = parent[static_cast<size_t>(i)] = parent[static_cast<size_t>(parent[static_cast<size_t>(i)])];
    return i;
  }
  int setup(const double* M, int n) {
    const int nb = n / 13;
    parent.resize(static_cast<size_t>(nb));
    std::iota(parent.begin(), parent.end(), 0);
    for (int j = 0; j < nb; ++j)
      for (int i = 0; i < nb; ++i) {
        if (i == j || find(i) == find(j)) continue;
        bool nz = false;
        for (int c = 0; c < 13 && !nz; ++c) {
          const double* col = M + static_cast<size_t>(13 * j + c) * n + 13 * i;
          for (int r = 0; r < 13; ++r)
            if (col[r] != 0.0) {
              nz = true;
              break;
            }
        }
        if (nz) parent[static_cast<size_t>(find(i))] = find(j);
      }
    std::vector<int> slot(static_cast<size_t>(nb), -1);
    groups.clear();
    for (int i = 0; i < nb; ++i) {
      const int r = find(i);
      if (slot[static_cast<size_t>(r)] < 0) {
        slot[static_cast<size_t>(r)] = static_cast<int>(groups.size());
        groups.emplace_back();
      }
      groups[static_cast<size_t>(slot[static_cast<size_t>(r)])].push_back(i);
    }
    lu.resize(groups.size());
    Eigen::MatrixXd block;
    for (size_t g = 0; g < groups.size(); ++g) {
      const auto& gr = groups[g];
      const int m = 13 * static_cast<int>(gr.size());
      block.resize(m, m);
      for (size_t bj = 0; bj < gr.size(); ++bj)
        for (int c = 0; c < 13; ++c) {
          const double* col = M + static_cast<size_t>(13 * gr[bj] + c) * n;
          for (size_t bi = 0; bi < gr.size(); ++bi)
            for (int r = 0; r < 13; ++r) block(static_cast<int>(13 * bi) + r, static_cast<int>(13 * bj) + c) = col[13 * gr[bi] + r];
        }
      lu[g].compute(block);
      const auto& U = lu[g].matrixLU();
      for (int i = 0; i < m; ++i)
        if (U(i, i) == 0.0 || !std::isfinite(U(i, i))) return last_flag = i + 1;  // singular: CVODES retries
    }
    return last_flag = 0;
  }
  void solve(double* x, const double* b) {
    for (size_t g = 0; g < groups.size(); ++g) {
      const auto& gr = groups[g];
      const int m = 13 * static_cast<int>(gr.size());
      tmp.resize(m);
      for (size_t bi = 0; bi < gr.size(); ++bi)
        for (int r = 0; r < 13; ++r) tmp[static_cast<int>(13 * bi) + r] = b[13 * gr[bi] + r];
      tmp = lu[g].solve(tmp).eval();
      for (size_t bi = 0; bi < gr.size(); ++bi)
        for (int r = 0; r < 13; ++r) x[13 * gr[bi] + r] = tmp[static_cast<int>(13 * bi) + r];
    }
  }
};

BlockSolver& block_of(SUNLinearSolver S) { return *static_cast<BlockSolver*>(S->content); }

SUNLinearSolver new_block_solver(SUNContext ctx) {
  SUNLinearSolver S = SUNLinSolNewEmpty(ctx);
  if (!S) return nullptr;
  S->content = new BlockSolver();
  S->ops->gettype = [](SUNLinearSolver) { return SUNLINEARSOLVER_DIRECT; };
  S->ops->getid = [](SUNLinearSolver) { return SUNLINEARSOLVER_CUSTOM; };
  S->ops->initialize = [](SUNLinearSolver) { return 0; };
  S->ops->setup = [](SUNLinearSolver s, SUNMatrix A) {
    const int flag = block_of(s).setup(SM_DATA_D(A), static_cast<int>(SM_ROWS_D(A)));
    return flag == 0 ? 0 : SUNLS_LUFACT_FAIL;
  };
  S->ops->solve = [](SUNLinearSolver s, SUNMatrix, N_Vector x, N_Vector b, realtype) {
    block_of(s).solve(N_VGetArrayPointer(x), N_VGetArrayPointer(b));
    return 0;
  };
  S->ops->lastflag = [](SUNLinearSolver s) { return static_cast<sunindextype>(block_of(s).last_flag); };
  S->ops->free = [](SUNLinearSolver s) {
    if (!s) return 0;
    delete static_cast<BlockSolver*>(s->content);
    s->content = nullptr;
    SUNLinSolFreeEmpty(s);
    return 0;
  };
  return S;
}

// RAII owner of the CVODES objects.
struct Cvodes {
  SUNContext ctx = nullptr;
  N_Vector y = nullptr;
  SUNMatrix A = nullptr;
  SUNLinearSolver LS = nullptr;
  void* mem = nullptr;
  N_Vector* yS = nullptr;
  int Ns = 0;
  ~Cvodes() {
    if (yS) N_VDestroyVectorArray(yS, Ns);
    if (mem) CVodeFree(&mem);
    if (LS) SUNLinSolFree(LS);
    if (A) SUNMatDestroy(A);
    if (y) N_VDestroy(y);
    if (ctx) SUNContext_Free(&ctx);
  }
};

void check(int flag, const char* what) {
  if (flag < 0) throw std::runtime_error(std::string("CVODES ") + what + " failed: " + CVodeGetReturnFlagName(flag));
}

void setup(Cvodes& cv, Run& run, const Eigen::VectorXd& y0, double t0, const SimOptions& o) {
  check(SUNContext_Create(nullptr, &cv.ctx), "SUNContext_Create");
  const auto n = static_cast<sunindextype>(y0.size());
  cv.y = N_VNew_Serial(n, cv.ctx);
  if (!cv.y) throw std::runtime_error("CVODES: N_VNew_Serial failed");
  Eigen::Map<Eigen::VectorXd>(N_VGetArrayPointer(cv.y), y0.size()) = y0;
  cv.mem = CVodeCreate(CV_BDF, cv.ctx);
  if (!cv.mem) throw std::runtime_error("CVODES: CVodeCreate failed");
  check(CVodeSetErrHandlerFn(cv.mem, err_cb, &run), "CVodeSetErrHandlerFn");
  check(CVodeInit(cv.mem, rhs_cb, t0, cv.y), "CVodeInit");
  check(CVodeSetUserData(cv.mem, &run), "CVodeSetUserData");
  check(CVodeSStolerances(cv.mem, o.rtol, o.atol), "CVodeSStolerances");
  if (o.linear_solver == LinearSolverKind::sparse) {
    cv.A = SUNSparseMatrix(n, n, 169 * (n / 13), CSC_MAT, cv.ctx);
    cv.LS = cv.A ? SUNLinSol_KLU(cv.y, cv.A, cv.ctx) : nullptr;
    run.klu = cv.LS;
  } else {
    cv.A = SUNDenseMatrix(n, n, cv.ctx);
    cv.LS = o.linear_solver == LinearSolverKind::dense ? SUNLinSol_Dense(cv.y, cv.A, cv.ctx) : new_block_solver(cv.ctx);
  }
  if (!cv.A || !cv.LS) throw std::runtime_error("CVODES: matrix or linear solver creation failed");
  check(CVodeSetLinearSolver(cv.mem, cv.LS, cv.A), "CVodeSetLinearSolver");
  check(CVodeSetJacFn(cv.mem, o.linear_solver == LinearSolverKind::sparse ? jac_sparse_cb
                              : o.jacobian == JacobianMode::analytic   ? jac_cb
                                                                       : nullptr),
        "CVodeSetJacFn");
  if (o.max_step > 0.0) check(CVodeSetMaxStep(cv.mem, o.max_step), "CVodeSetMaxStep");
  check(CVodeSetMaxNumSteps(cv.mem, o.max_steps), "CVodeSetMaxNumSteps");
  check(CVodeSetMaxOrd(cv.mem, o.max_order), "CVodeSetMaxOrd");
  check(CVodeSetMaxHnilWarns(cv.mem, -1), "CVodeSetMaxHnilWarns");
  if (o.jacobian_frequency > 0) {
    check(CVodeSetLSetupFrequency(cv.mem, o.jacobian_frequency), "CVodeSetLSetupFrequency");
    check(CVodeSetJacEvalFrequency(cv.mem, o.jacobian_frequency), "CVodeSetJacEvalFrequency");
  }
}

void read_stats(void* mem, SimStats& s) {
  long v = 0;
  CVodeGetNumSteps(mem, &v), s.steps = v;
  CVodeGetNumRhsEvals(mem, &v), s.rhs_evaluations = v;
  CVodeGetNumJacEvals(mem, &v), s.jacobian_evaluations = v;
  CVodeGetNumLinRhsEvals(mem, &v), s.fd_rhs_evaluations = v;
  CVodeGetNumNonlinSolvIters(mem, &v), s.newton_iterations = v;
  CVodeGetNumErrTestFails(mem, &v), s.error_test_failures = v;
  CVodeGetNumNonlinSolvConvFails(mem, &v), s.convergence_failures = v;
}

std::string failure_message(int flag, double t, const Run& run) {
  std::string m = std::string(CVodeGetReturnFlagName(flag)) + " at t = " + std::to_string(t);
  if (!run.cv_message.empty()) m += " (" + run.cv_message + ")";
  if (!run.rhs_error.empty()) m += "; last right-hand side failure: " + run.rhs_error;
  return m;
}

// Validates the initial state: finite, no interpenetration unless allowed.
void check_initial(PenaltySystem& sys, PenaltySystem::Impl& impl, const Eigen::VectorXd& y0,
                   const SimOptions& options, const char* who) {
  options.validate();
  if (y0.size() != sys.state_size())
    throw std::invalid_argument(std::string(who) + ": initial state of size " + std::to_string(y0.size()) +
                                ", expected " + std::to_string(sys.state_size()));
  for (Eigen::Index i = 0; i < y0.size(); ++i)
    if (!std::isfinite(y0[i])) throw std::invalid_argument(std::string(who) + ": initial state entry " + std::to_string(i) + " is not finite");
  impl.margin = options.margin;
  double delta = 0.0;
  try {
    delta = sys.max_penetration(y0);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string(who) + ": the contacts at t0 cannot be evaluated: " + e.what());
  }
  if (delta > 0.0 && !options.allow_initial_penetration) {
    const auto [a, b] = impl.deepest_pair;
    const auto name = [&](int shape) {
      const int body = impl.scene.shape(shape).body;
      const std::string& nm = impl.scene.body(body).name;
      return "body " + std::to_string(body) + (nm.empty() ? "" : " ('" + nm + "')");
    };
    throw std::invalid_argument(std::string(who) + ": " + name(a) + " and " + name(b) +
                                " interpenetrate at t0 (penetration " + std::to_string(delta) +
                                "); separate them or set allow_initial_penetration");
  }
}

// The automatic largest step (SimOptions::max_step = 0): the time for two bodies to close the
// broad-phase margin at the current speeds (plus what gravity adds over `horizon`), so that no
// step can carry a pair from outside the margin through a contact.
double auto_max_step(const PenaltySystem::Impl& s, const double* y, double horizon) {
  double speed = 0.0;
  for (size_t k = 0; k < s.free_bodies.size(); ++k) {
    const double* yk = y + 13 * k;
    const double v = Eigen::Map<const Vec3>(yk + 7).norm(), w = Eigen::Map<const Vec3>(yk + 10).norm();
    speed = std::max(speed, v + w * s.body_extent[static_cast<size_t>(s.free_bodies[k])]);
  }
  speed = 2.0 * (speed + s.gravity.norm() * horizon);
  const double d = s.margin > 0.0 ? s.margin : 0.1 * s.min_radius;
  return speed > 0.0 ? d / speed : 0.0;
}

// Advances to `target` (CV_NORMAL); with the automatic largest step, in chunks of at most 25
// such steps, re-estimated from the state at the start of each.
int advance(Cvodes& cv, const Run& run, const SimOptions& o, double target, realtype& t) {
  for (;;) {
    double tout = target;
    if (o.max_step == 0.0) {
      const double h = auto_max_step(*run.sys, N_VGetArrayPointer(cv.y), target - t);
      CVodeSetMaxStep(cv.mem, h);
      if (h > 0.0) tout = std::min(target, t + 25.0 * h);
    }
    const int flag = CVode(cv.mem, tout, cv.y, &t, CV_NORMAL);
    if (flag < 0 || tout >= target) return flag;
  }
}

}  // namespace

SimResult PenaltySystem::simulate(const std::vector<BodyState>& initial, const std::vector<double>& output_times,
                                  const SimOptions& options) {
  return simulate(pack(initial), output_times, options);
}

SensitivityResult PenaltySystem::simulate_sensitivities(const std::vector<BodyState>& initial, double duration,
                                                        const SimOptions& options) {
  return simulate_sensitivities(pack(initial), duration, options);
}

SimResult PenaltySystem::simulate(const Eigen::VectorXd& y0, const std::vector<double>& output_times,
                                  const SimOptions& options) {
  if (output_times.size() < 2) throw std::invalid_argument("simulate: at least two output times (t0 and one more)");
  for (size_t i = 0; i < output_times.size(); ++i) {
    if (!std::isfinite(output_times[i])) throw std::invalid_argument("simulate: output time " + std::to_string(i) + " is not finite");
    if (i > 0 && !(output_times[i] > output_times[i - 1]))
      throw std::invalid_argument("simulate: output times must increase (time " + std::to_string(i) + ")");
  }
  Impl& impl = *impl_;
  check_initial(*this, impl, y0, options, "simulate");
  const auto wall0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();
  Run run = start_run(impl, state_size());
  SimResult res;
  res.times.push_back(output_times.front());
  res.states.push_back(unpack(y0));
  res.final_time = output_times.front();
  res.final_state = res.states.back();
  res.final_y = y0;
  Cvodes cv;
  setup(cv, run, y0, output_times.front(), options);
  const bool projected = options.project_momentum && impl.momentum_invariant();
  if (projected) {
    const SystemInvariants inv = invariants(y0);
    run.momentum << inv.linear, inv.angular;
    check(CVodeSetProjFn(cv.mem, proj_cb), "CVodeSetProjFn");
  }
  res.success = true;
  for (size_t i = 1; i < output_times.size(); ++i) {
    realtype t = output_times[i - 1];
    const int flag = advance(cv, run, options, output_times[i], t);
    Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(cv.y), run.n);
    if (projected && flag >= 0 && y.allFinite()) {
      // the output is CVODES' interpolant between two projected steps: projected as they are
      Eigen::VectorXd corr(run.n);
      impl.momentum_correction(y.data(), run.momentum, corr.data(), nullptr);
      y += corr;
    }
    if (flag < 0) {
      res.success = false;
      res.message = failure_message(flag, t, run);
      // CVODES leaves the last successful step's state in y on these failures
      if (y.allFinite() && t >= res.final_time) {
        res.final_time = t;
        res.final_state = unpack(y);
        res.final_y = y;
      }
      break;
    }
    res.times.push_back(t);
    res.states.push_back(unpack(y));
    res.final_time = t;
    res.final_state = res.states.back();
    res.final_y = y;
  }
  read_stats(cv.mem, res.stats);
  res.stats.contact_solves = impl.contact_solves;
  res.stats.fd_pair_jacobians = impl.fd_pair_jacobians;
  res.stats.collision_s = impl.collision_s;
  res.stats.max_penetration = run.max_penetration;
  res.stats.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  res.stats.cpu_s = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  return res;
}

SensitivityResult PenaltySystem::simulate_sensitivities(const Eigen::VectorXd& y0, double duration,
                                                        const SimOptions& options) {
  if (!(duration > 0.0) || !std::isfinite(duration))
    throw std::invalid_argument("simulate_sensitivities: duration must be finite and > 0");
  Impl& impl = *impl_;
  check_initial(*this, impl, y0, options, "simulate_sensitivities");
  const auto wall0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();
  Run run = start_run(impl, state_size());
  const int n = run.n;
  SensitivityResult res;
  Cvodes cv;
  setup(cv, run, y0, 0.0, options);
  cv.Ns = n + 1;
  cv.yS = N_VCloneVectorArray(cv.Ns, cv.y);
  if (!cv.yS) throw std::runtime_error("CVODES: N_VCloneVectorArray failed");
  for (int j = 0; j < cv.Ns; ++j) {
    Eigen::Map<Eigen::VectorXd> s(N_VGetArrayPointer(cv.yS[j]), n);
    s.setZero();
    if (j < n) s[j] = 1.0;
  }
  check(CVodeSensInit(cv.mem, cv.Ns, CV_STAGGERED, sens_cb, cv.yS), "CVodeSensInit");
  check(CVodeSensEEtolerances(cv.mem), "CVodeSensEEtolerances");
  check(CVodeSetSensErrCon(cv.mem, SUNTRUE), "CVodeSetSensErrCon");
  realtype t = 0.0;
  const int flag = advance(cv, run, options, duration, t);
  res.final_time = t;
  res.final_state = Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(cv.y), n);
  if (flag < 0) {
    res.message = failure_message(flag, t, run);
  } else {
    const int sflag = CVodeGetSens(cv.mem, &t, cv.yS);
    if (sflag < 0) {
      res.message = std::string("CVodeGetSens: ") + CVodeGetReturnFlagName(sflag);
    } else {
      res.success = true;
      res.d_initial.resize(n, n);
      for (int j = 0; j < n; ++j) res.d_initial.col(j) = Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(cv.yS[j]), n);
      res.d_stiffness = Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(cv.yS[n]), n);
    }
  }
  read_stats(cv.mem, res.stats);
  res.stats.contact_solves = impl.contact_solves;
  res.stats.fd_pair_jacobians = impl.fd_pair_jacobians;
  res.stats.collision_s = impl.collision_s;
  res.stats.max_penetration = run.max_penetration;
  res.stats.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  res.stats.cpu_s = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  return res;
}

}  // namespace diffcol::sim
