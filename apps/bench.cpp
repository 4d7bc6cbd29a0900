// `diffcol bench`: the seed's ergodic benchmark (Sec. V, Table I) over ordered shape pairs.
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <unistd.h>

#include "cli.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/hessians.hpp"
#include "diffcol/idcol/sphere_pair.hpp"
#include "diffcol/idcol/ergodic.hpp"
#include "fcl_baseline.hpp"
#include "host_info.hpp"
#include "timing.hpp"

namespace diffcol::cli {
namespace {

constexpr long kDefaultPoses = 1000000;
constexpr long kQuickPoses = 20000;
/// Cold solutions stored at a time for the derivative timing (about 1 KB each).
constexpr size_t kDerivChunk = 4096;

struct SolveStats {
  Timing timing;
  double iterations = 0, jacobian_evaluations = 0, attempts = 0;
  double converged_pct = 0;
  long failures = 0;  ///< solves with !ok()
};

/// contact_derivatives on the cold solutions (batch timing only).
struct DerivStats {
  double mean_us = 0;      ///< batch wall time / calls
  double mean_cpu_us = 0;  ///< batch thread CPU time / calls
  double ok_pct = 0;       ///< status == ok
};

struct PairResult {
  std::string name1, name2;
  idcol::ErgodicSweep sweep;
  SolveStats cold, warm;
  DerivStats deriv;
  DerivStats hess;         ///< idcol::contact_hessians (every output, world twists)
  DerivStats hess_scalars; ///< the same with HessianOutputs::scalars
  DerivStats shape;        ///< idcol::shape_derivatives
  bool has_closed_form = false;
  DerivStats closed_form;  ///< sphere-sphere only: idcol::sphere_pair_contact at the same poses
  bool has_fcl = false;
  fcl_baseline::Result fcl;
};

struct Accum {
  long iterations = 0, jac = 0, attempts = 0, ok = 0;
  char* penetrating = nullptr;  // optional: gap < 0 per pose (batch pass, in order)
  void operator()(const idcol::ContactSolution& s) {
    iterations += s.iterations;
    jac += s.jacobian_evaluations;
    attempts += s.attempts;
    ok += s.ok();
    if (penetrating) *penetrating++ = s.gap < 0;
  }
  void fill(SolveStats& st, size_t n) const {
    const double dn = static_cast<double>(n);
    st.iterations = static_cast<double>(iterations) / dn;
    st.jacobian_evaluations = static_cast<double>(jac) / dn;
    st.attempts = static_cast<double>(attempts) / dn;
    st.converged_pct = 100.0 * static_cast<double>(ok) / dn;
    st.failures = static_cast<long>(n) - ok;
  }
};


Json stats_json(const SolveStats& s) {
  Json j = timing_json(s.timing);
  j["iterations_mean"] = s.iterations;
  j["jacobian_evaluations_mean"] = s.jacobian_evaluations;
  j["attempts_mean"] = s.attempts;
  j["converged_pct"] = s.converged_pct;
  j["failures"] = s.failures;
  return j;
}

}  // namespace

void print_bench_usage(std::ostream& os) {
  os << R"(usage: diffcol bench [--shapes LIST] [--poses N | --quick] [--repeat R] [--json]
                     [--baseline fcl [--fcl-solver libccd|indep] [--fcl-tolerance T] [--fcl-unsigned]]

The seed's ergodic benchmark (Sec. V, Table I): for every ordered pair of the benchmark
shapes, body 1 at the identity and body 2 at the poses idcol::ErgodicSweep::for_pair(...).pose(i),
i = 0..N-1, solved
  cold: ContactPair::solve_cold at every pose;
  warm: ContactPair::solve in sequence (warm-started from the previous pose).
Reports mean / median / p99 / max microseconds per solve, mean Newton iterations, mean
Jacobian evaluations and the converged percentage, and the mean cost of
idcol::contact_derivatives on the cold solutions (batch-timed, no per-call clocks) with its
ratio to the cold solve, and likewise of idcol::contact_hessians (every output; and scalars
only) and idcol::shape_derivatives (hessians.hpp); for sphere-sphere also the lean closed form
idcol::sphere_pair_contact (sphere_pair.hpp) at the same poses. The mean comes from timing the whole
sweep without per-call clock reads; the percentiles from per-call steady_clock times.

Options
  --method M           idcol (default, everything here), qp (DiffPills: 'diffcol bench --method qp
                       --help') or dcol (DCOL primitives: 'diffcol bench --method dcol --help')
  --shapes LIST        comma-separated subset of sphere,ellipsoid,poly,tc,se,sec (default: all six)
  --poses N            poses per pair (default 1000000, as in the seed)
  --quick              20000 poses per pair (unless --poses is given)
  --repeat R           run the whole sweep R times (default 1) and keep, per pair and per column
                       (cold, warm, derivatives, FCL), the run with the lowest mean: on a shared
                       machine a burst of load then spoils one run of a pair, not all of them
  --json               machine-readable JSON on stdout instead of the table
  --baseline fcl       also time FCL's GJK distance query on the nearest exact shapes
  --fcl-solver S       libccd (default) or indep
  --fcl-tolerance T    FCL's distance_tolerance (default 1e-6)
  --fcl-unsigned       enable_signed_distance = false: no EPA, penetrating queries return -1
                       (implied by --fcl-solver indep, which has no signed distance in FCL 0.7)
  --tolerance T        diffcol residual tolerance, in [1e-14, 1e-3] (default 1e-10)
  --no-continuation    disable diffcol's continuation fallback
  --no-warm-predictor  warm starts from the previous solution itself (SolveOptions::warm_predictor
                       = false) instead of its first-order prediction
  --progress           print per-pair progress on stderr (default: when stderr is a terminal)
)";
}

int cmd_bench(const std::vector<std::string>& args0) {
  std::vector<std::string> args = args0;
  const std::string method = take_method(args);
  if (method == "qp") return cmd_bench_qp(args);
  if (method == "dcol") return cmd_bench_dcol(args);
  std::vector<std::string> names = idcol::benchmark_shape_names();
  long n_poses = -1, repeat = 1;
  bool quick = false, as_json = false, with_fcl = false;
  bool progress = isatty(2) != 0;
  fcl_baseline::Options fopt;
  idcol::SolveOptions sopt;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      print_bench_usage(std::cout);
      return kExitOk;
    } else if (take_option(args, i, "--shapes", v)) {
      names.clear();
      for (const std::string& s : split(v, ",")) {
        const auto& all = idcol::benchmark_shape_names();
        if (std::find(all.begin(), all.end(), s) == all.end())
          throw InputError("--shapes: unknown benchmark shape '" + s + "' (expected sphere, ellipsoid, poly, tc, se, sec)");
        if (std::find(names.begin(), names.end(), s) == names.end()) names.push_back(s);
      }
    } else if (take_option(args, i, "--poses", v)) {
      n_poses = parse_long(v, "--poses", 1, 100000000);
    } else if (take_option(args, i, "--repeat", v)) {
      repeat = parse_long(v, "--repeat", 1, 100);
    } else if (a == "--quick") {
      quick = true;
    } else if (a == "--json") {
      as_json = true;
    } else if (take_option(args, i, "--baseline", v)) {
      if (v != "fcl") throw InputError("--baseline: unknown baseline '" + v + "' (only 'fcl')");
      with_fcl = true;
    } else if (take_option(args, i, "--fcl-solver", v)) {
      if (v != "libccd" && v != "indep") throw InputError("--fcl-solver: expected libccd or indep, got '" + v + "'");
      fopt.solver = v;
    } else if (a == "--fcl-unsigned") {
      fopt.signed_distance = false;
    } else if (take_option(args, i, "--fcl-tolerance", v)) {
      fopt.tolerance = parse_double(v, "--fcl-tolerance");
      if (!(fopt.tolerance > 0)) throw InputError("--fcl-tolerance must be > 0");
    } else if (take_option(args, i, "--tolerance", v)) {
      sopt.tolerance = parse_double(v, "--tolerance");
      if (!(sopt.tolerance >= 1e-14 && sopt.tolerance <= 1e-3))  // SolveOptions::validate()'s range
        throw InputError("--tolerance must be in [1e-14, 1e-3]");
    } else if (a == "--no-continuation") {
      sopt.continuation = false;
    } else if (a == "--no-warm-predictor") {
      sopt.warm_predictor = false;
    } else if (a == "--progress") {
      progress = true;
    } else {
      throw InputError("bench: unknown argument '" + a + "' (see diffcol bench --help)");
    }
  }
  if (n_poses < 0) n_poses = quick ? kQuickPoses : kDefaultPoses;
  // FCL 0.7's GST_INDEP solver does not implement signed distance (its penetrating queries abort).
  if (fopt.solver == "indep") fopt.signed_distance = false;
  if (with_fcl && !fcl_baseline::available())
    throw InputError("--baseline fcl: this diffcol was built without FCL (install libfcl-dev and configure "
                     "with -DDIFFCOL_WITH_FCL=ON)");

  const size_t n = static_cast<size_t>(n_poses);
  const size_t warmup = std::min<size_t>(n, 1000);
  const double clock_ns = clock_overhead_ns();
  std::vector<Pose> poses(n);   // reused for every pair
  std::vector<double> ns(n);    // per-call times, reused
  std::vector<char> penetrating(with_fcl ? n : 0);  // diffcol's verdict per pose, for the FCL comparison
  const Pose I = Pose::identity();
  std::vector<idcol::ContactSolution> sols(std::min(n, kDerivChunk));  // cold solutions for the derivative timing
  idcol::ContactDerivatives deriv;                                     // reused output
  idcol::ContactHessians hess;                                         // reused output
  idcol::ShapeDerivatives shape_d;                                     // reused output

  std::vector<PairResult> results;
  const size_t total = names.size() * names.size();
  auto run_pair = [&](const std::string& n1, const std::string& n2, size_t index, long round) {
    PairResult r;
    r.name1 = n1;
    r.name2 = n2;
    if (progress) {
      std::cerr << "[" << index + 1 << "/" << total;
      if (repeat > 1) std::cerr << ", round " << round + 1 << "/" << repeat;
      std::cerr << "] " << n1 << "-" << n2 << " ..." << std::flush;
    }
    const Shape s1 = idcol::benchmark_shape(n1), s2 = idcol::benchmark_shape(n2);
    r.sweep = idcol::ErgodicSweep::for_pair(s1, s2);
    for (size_t i = 0; i < n; ++i) poses[i] = r.sweep.pose(static_cast<long>(i));

    {  // cold: solve_cold at every pose
      idcol::ContactPair pair(s1, s2, sopt);
      Accum acc;
      if (with_fcl) acc.penetrating = penetrating.data();
      r.cold.timing = time_loop(
          n, warmup, [&] { pair.reset_warm_start(); },
          [&](size_t i) -> const idcol::ContactSolution& { return pair.solve_cold(I, poses[i]); },
          [&](const idcol::ContactSolution& s) { acc(s); }, ns);
      acc.fill(r.cold, n);
    }
    {  // derivatives: contact_derivatives on the cold solutions of the same poses. The solutions are
       // recomputed (untimed) into a preallocated buffer, kDerivChunk at a time, then the
       // derivatives of the chunk are timed as one batch (no per-call clocks, no allocation).
      idcol::ContactPair pair(s1, s2, sopt);
      // one batch timing per function: wall and CPU seconds, ok count
      struct Batch {
        double wall_s = 0, cpu_s = 0;
        long ok = 0;
        void fill(DerivStats& d, double dn) const {
          d.mean_us = wall_s * 1e6 / dn;
          d.mean_cpu_us = cpu_s * 1e6 / dn;
          d.ok_pct = 100.0 * static_cast<double>(ok) / dn;
        }
      } bd, bh, bhs, bs;
      const auto time_batch = [&](size_t m, Batch& acc, auto&& fn) {
        const double c0 = thread_cpu_seconds();
        const auto t0 = BenchClock::now();
        for (size_t k = 0; k < m; ++k) acc.ok += fn(sols[k]);
        const auto t1 = BenchClock::now();
        const double c1 = thread_cpu_seconds();
        acc.wall_s += std::chrono::duration<double>(t1 - t0).count();
        acc.cpu_s += c1 - c0;
      };
      const auto f_deriv = [&](const idcol::ContactSolution& s) {
        idcol::contact_derivatives(s, deriv);
        return deriv.ok();
      };
      const auto f_hess = [&](const idcol::ContactSolution& s) {
        idcol::contact_hessians(s1, s2, s, hess);
        return hess.ok();
      };
      const auto f_hess_s = [&](const idcol::ContactSolution& s) {
        idcol::contact_hessians(s1, s2, s, hess, ReferenceFrame::world, idcol::HessianOutputs::scalars);
        return hess.ok();
      };
      const auto f_shape = [&](const idcol::ContactSolution& s) {
        idcol::shape_derivatives(s1, s2, s, shape_d);
        return shape_d.ok();
      };
      for (size_t b = 0; b < n; b += sols.size()) {
        const size_t m = std::min(sols.size(), n - b);
        for (size_t k = 0; k < m; ++k) sols[k] = pair.solve_cold(I, poses[b + k]);
        if (b == 0)
          for (size_t k = 0; k < std::min(warmup, m); ++k) {
            f_deriv(sols[k]);
            f_hess(sols[k]);
            f_shape(sols[k]);
          }
        time_batch(m, bd, f_deriv);
        time_batch(m, bh, f_hess);
        time_batch(m, bhs, f_hess_s);
        time_batch(m, bs, f_shape);
      }
      const double dn = static_cast<double>(n);
      bd.fill(r.deriv, dn);
      bh.fill(r.hess, dn);
      bhs.fill(r.hess_scalars, dn);
      bs.fill(r.shape, dn);
    }
    if (s1.type() == ShapeType::sphere && s2.type() == ShapeType::sphere) {
      // two spheres: the lean closed form (values and centre derivatives) at the same poses
      const double R1 = s1.outer_radius(), R2 = s2.outer_radius();
      idcol::SpherePairContact sp;
      for (size_t i = 0; i < warmup; ++i) idcol::sphere_pair_contact(R1, I.p, R2, poses[i].p, sp);
      long ok = 0;
      const double c0 = thread_cpu_seconds();
      const auto t0 = BenchClock::now();
      for (size_t i = 0; i < n; ++i) {
        idcol::sphere_pair_contact(R1, I.p, R2, poses[i].p, sp);
        ok += sp.ok();
      }
      const auto t1 = BenchClock::now();
      const double c1 = thread_cpu_seconds();
      const double dn = static_cast<double>(n);
      r.closed_form.mean_us = std::chrono::duration<double>(t1 - t0).count() * 1e6 / dn;
      r.closed_form.mean_cpu_us = (c1 - c0) * 1e6 / dn;
      r.closed_form.ok_pct = 100.0 * static_cast<double>(ok) / dn;
      r.has_closed_form = true;
    }
    {  // warm: a separate pair, solve in sequence; reset so that every pass starts cold at i = 0
      idcol::ContactPair pair(s1, s2, sopt);
      Accum acc;
      r.warm.timing = time_loop(
          n, warmup, [&] { pair.reset_warm_start(); },
          [&](size_t i) -> const idcol::ContactSolution& { return pair.solve(I, poses[i]); },
          [&](const idcol::ContactSolution& s) { acc(s); }, ns);
      acc.fill(r.warm, n);
    }
    if (with_fcl) {
      r.fcl = fcl_baseline::run(s1, s2, poses, fopt, warmup, ns, penetrating);
      r.has_fcl = true;
    }
    if (progress)
      std::cerr << " cold " << fixed(r.cold.timing.mean_us, 2) << " us, warm " << fixed(r.warm.timing.mean_us, 2)
                << " us, derivatives " << fixed(r.deriv.mean_us, 2) << " us, hessians "
                << fixed(r.hess.mean_us, 2) << " us, shape " << fixed(r.shape.mean_us, 2) << " us\n";
    return r;
  };
  // --repeat: whole sweeps one after another; per pair and column the run with the lowest mean
  for (long round = 0; round < repeat; ++round) {
    size_t index = 0;
    for (const std::string& n1 : names)
      for (const std::string& n2 : names) {
        PairResult r = run_pair(n1, n2, index, round);
        if (round == 0) {
          results.push_back(std::move(r));
        } else {
          PairResult& best = results[index];
          if (r.cold.timing.mean_us < best.cold.timing.mean_us) best.cold = r.cold;
          if (r.warm.timing.mean_us < best.warm.timing.mean_us) best.warm = r.warm;
          if (r.deriv.mean_us < best.deriv.mean_us) best.deriv = r.deriv;
          if (r.hess.mean_us < best.hess.mean_us) best.hess = r.hess;
          if (r.hess_scalars.mean_us < best.hess_scalars.mean_us) best.hess_scalars = r.hess_scalars;
          if (r.shape.mean_us < best.shape.mean_us) best.shape = r.shape;
          if (r.has_closed_form && r.closed_form.mean_us < best.closed_form.mean_us) best.closed_form = r.closed_form;
          if (r.has_fcl && r.fcl.timing.mean_us < best.fcl.timing.mean_us) best.fcl = r.fcl;
        }
        ++index;
      }
  }

  if (as_json) {
    Json out;
    out["benchmark"] = "ergodic";
    out["poses"] = n_poses;
    out["repeat"] = repeat;
    out["dt"] = idcol::ErgodicSweep{}.dt;
    out["shapes"] = names;
    out["clock_overhead_ns"] = clock_ns;
    out["host"] = host_json(host_info());
    Json so = solve_options_json(sopt);
    so["warm_predictor"] = sopt.warm_predictor;
    out["solver_options"] = so;
    if (with_fcl) {
      Json f;
      f["version"] = fcl_baseline::version();
      f["solver"] = fopt.solver;
      f["distance_tolerance"] = fopt.tolerance;
      f["enable_signed_distance"] = fopt.signed_distance;
      f["enable_nearest_points"] = fopt.nearest_points;
      Json geo;
      for (const std::string& s : names) geo[s] = fcl_baseline::describe(idcol::benchmark_shape(s));
      f["geometries"] = geo;
      out["fcl"] = f;
    } else {
      out["fcl"] = nullptr;
    }
    Json pairs = Json::array();
    for (const PairResult& r : results) {
      Json p;
      p["shape1"] = r.name1;
      p["shape2"] = r.name2;
      p["rmin"] = r.sweep.rmin;
      p["rmax"] = r.sweep.rmax;
      p["cold"] = stats_json(r.cold);
      p["warm"] = stats_json(r.warm);
      const auto deriv_json = [&](const DerivStats& ds) {
        Json d;
        d["mean_us"] = ds.mean_us;
        d["mean_cpu_us"] = ds.mean_cpu_us;
        d["ok_pct"] = ds.ok_pct;
        d["ratio_over_cold_pct"] = 100.0 * ds.mean_us / r.cold.timing.mean_us;
        return d;
      };
      p["derivatives"] = deriv_json(r.deriv);
      p["hessians"] = deriv_json(r.hess);
      p["hessians_scalars"] = deriv_json(r.hess_scalars);
      p["shape_derivatives"] = deriv_json(r.shape);
      if (r.has_closed_form) p["closed_form"] = deriv_json(r.closed_form);
      if (r.has_fcl) {
        Json f = timing_json(r.fcl.timing);
        f["penetrating_pct"] = r.fcl.penetrating_pct;
        f["failed_pct"] = r.fcl.failed_pct;
        f["agreement_pct"] = r.fcl.agreement_pct;
        f["aborts"] = r.fcl.aborts;
        f["exceptions"] = r.fcl.exceptions;
        f["hangs"] = r.fcl.hangs;
        if (!r.fcl.error.empty()) f["error"] = r.fcl.error;
        f["ratio_fcl_over_cold"] = r.fcl.timing.mean_us / r.cold.timing.mean_us;
        f["ratio_fcl_over_warm"] = r.fcl.timing.mean_us / r.warm.timing.mean_us;
        p["fcl"] = f;
      }
      pairs.push_back(p);
    }
    out["pairs"] = pairs;
    write_json(std::cout, out);
    return kExitOk;
  }

  // ------------------------------------------------------------------ table
  std::ostream& os = std::cout;
  os << "diffcol ergodic benchmark: " << n_poses << " poses per ordered pair (body 1 at identity), dt = "
     << idcol::ErgodicSweep{}.dt << ", tolerance " << sopt.tolerance;
  if (repeat > 1) os << "; best of " << repeat << " sweeps per pair and column";
  os << "\n"
     << "times in microseconds per solve; mean = batch time / N (no per-call clocks); med/p99/max from "
        "per-call steady_clock times (clock read ~"
     << fixed(clock_ns, 0) << " ns, included)\n"
     << host_line(host_info()) << "\n";
  if (with_fcl) {
    os << "FCL " << fcl_baseline::version() << " baseline: fcl::distance, GJK solver " << fopt.solver
       << (fopt.signed_distance ? ", signed distance (EPA when penetrating)" : ", unsigned (-1 when penetrating)")
       << ", nearest points, distance_tolerance " << fopt.tolerance << "; geometries:\n";
    for (const std::string& s : names)
      os << "  " << std::left << std::setw(10) << s << std::right << "-> "
         << fcl_baseline::describe(idcol::benchmark_shape(s)) << "\n";
  }
  os << "\n";
  char line[512];
  // one section (cold or warm) of a table row
  auto section = [](const SolveStats& s) {
    char b[160];
    std::snprintf(b, sizeof b, "%8.3f %7.3f %6.2f %6.2f %8.1f %5.2f %5.2f %6.2f", s.timing.mean_us,
                  s.timing.mean_cpu_us, s.timing.median_us, s.timing.p99_us, s.timing.max_us, s.iterations,
                  s.jacobian_evaluations, s.converged_pct);
    return std::string(b);
  };
  const char* head = "    mean     cpu    med    p99      max  iter   jac  conv%";
  std::snprintf(line, sizeof line, "%-20s | %-58s | %-58s | %-15s | %-33s", "", "cold (solve_cold at every pose)",
                "warm (solve in sequence)", "derivatives", "hessians, shape derivatives");
  os << line;
  if (with_fcl) os << " | FCL distance";
  os << "\n";
  std::snprintf(line, sizeof line, "%-20s | %-58s | %-58s | %-15s | %-33s", "body1-body2", head, head,
                "   mean d/cold%", "   hess  h/cold  h_s/cold s/cold");
  os << line;
  if (with_fcl) os << " |     mean     cpu    med  fcl/cold fcl/warm  pen%  fail%  agree%";
  os << "\n" << std::string(with_fcl ? 263 : 196, '-') << "\n";
  double wall_sum = 0, cpu_sum = 0;
  for (const PairResult& r : results) {
    const std::string pair = r.name1 + "-" + r.name2;
    const double cold_us = r.cold.timing.mean_us;
    std::snprintf(line, sizeof line, "%-20s | %-58s | %-58s | %7.3f %7.1f | %7.3f %6.2f %9.2f %6.2f", pair.c_str(),
                  section(r.cold).c_str(), section(r.warm).c_str(), r.deriv.mean_us, 100.0 * r.deriv.mean_us / cold_us,
                  r.hess.mean_us, r.hess.mean_us / cold_us, r.hess_scalars.mean_us / cold_us,
                  r.shape.mean_us / cold_us);
    os << line;
    wall_sum += r.cold.timing.mean_us + r.warm.timing.mean_us;
    cpu_sum += r.cold.timing.mean_cpu_us + r.warm.timing.mean_cpu_us;
    if (r.has_fcl && !r.fcl.error.empty()) {
      os << " | FAILED: " << r.fcl.error;
    } else if (r.has_fcl) {
      std::snprintf(line, sizeof line, " | %8.3f %7.3f %6.2f %9.2f %8.2f %5.1f %6.3f %7.2f", r.fcl.timing.mean_us,
                    r.fcl.timing.mean_cpu_us, r.fcl.timing.median_us, r.fcl.timing.mean_us / r.cold.timing.mean_us,
                    r.fcl.timing.mean_us / r.warm.timing.mean_us, r.fcl.penetrating_pct, r.fcl.failed_pct,
                    r.fcl.agreement_pct);
      os << line;
    }
    os << "\n";
  }
  os << "mean: batch wall time / N; cpu: batch thread CPU time / N; med, p99, max: per call; iter: Newton "
        "iterations, jac: Jacobian evaluations per solve (means); conv%: ok() solves;\n"
        "derivatives: mean batch wall time of idcol::contact_derivatives per cold solution (same poses), "
        "d/cold%: that mean / the cold-solve mean;\n"
        "hess: the same for idcol::contact_hessians (every output, world twists), h/cold its ratio to the cold "
        "mean; h_s/cold: HessianOutputs::scalars; s/cold: idcol::shape_derivatives\n";
  if (with_fcl)
    os << "fcl/cold, fcl/warm: ratios of the means; pen%: FCL distance < 0; fail%: FCL queries that aborted, threw, "
          "hung (> 2 s) or returned NaN (timed as they ran); agree%: FCL and diffcol agree on penetrating vs "
          "separated\n";
  for (const PairResult& r : results) {
    if (!r.has_closed_form) continue;
    std::snprintf(line, sizeof line,
                  "%s-%s in closed form (idcol::sphere_pair_contact: alpha, gap, normal, points and their "
                  "centre derivatives): mean %.4f us, cpu %.4f us, %.1f%% of the cold solve, %.2f%% ok\n",
                  r.name1.c_str(), r.name2.c_str(), r.closed_form.mean_us, r.closed_form.mean_cpu_us,
                  100.0 * r.closed_form.mean_us / r.cold.timing.mean_us, r.closed_form.ok_pct);
    os << line;
  }
  if (wall_sum > 1.1 * cpu_sum)
    os << "note: wall-clock means exceed CPU-time means by " << fixed(100.0 * (wall_sum / cpu_sum - 1.0), 0)
       << "%: the machine is busy (preemption); the cpu column is the better estimate\n";

  // Table-I-style matrix of the mean: body 1 down, body 2 across.
  os << "\nmean us per solve, cold / warm (rows: body 1, columns: body 2)\n";
  std::snprintf(line, sizeof line, "%-10s", "");
  os << line;
  for (const std::string& c : names) {
    std::snprintf(line, sizeof line, " %15s", c.c_str());
    os << line;
  }
  os << "\n";
  size_t k = 0;
  for (const std::string& row : names) {
    std::snprintf(line, sizeof line, "%-10s", row.c_str());
    os << line;
    for (size_t c = 0; c < names.size(); ++c, ++k) {
      const std::string cell = fixed(results[k].cold.timing.mean_us, 2) + " / " + fixed(results[k].warm.timing.mean_us, 2);
      std::snprintf(line, sizeof line, " %15s", cell.c_str());
      os << line;
    }
    os << "\n";
  }
  if (with_fcl) {
    os << "\nFCL mean us per query (rows: body 1, columns: body 2)\n";
    std::snprintf(line, sizeof line, "%-10s", "");
    os << line;
    for (const std::string& c : names) {
      std::snprintf(line, sizeof line, " %10s", c.c_str());
      os << line;
    }
    os << "\n";
    k = 0;
    for (const std::string& row : names) {
      std::snprintf(line, sizeof line, "%-10s", row.c_str());
      os << line;
      for (size_t c = 0; c < names.size(); ++c, ++k) {
        std::snprintf(line, sizeof line, " %10.3f", results[k].fcl.timing.mean_us);
        os << line;
      }
      os << "\n";
    }
  }
  long failures = 0;
  for (const PairResult& r : results) failures += r.cold.failures + r.warm.failures;
  os << "\n" << (failures == 0 ? "all solves converged" : std::to_string(failures) + " solves did not converge")
     << "\n";
  return kExitOk;
}

}  // namespace diffcol::cli
