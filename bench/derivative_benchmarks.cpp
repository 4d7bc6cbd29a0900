// Google Benchmark: idcol::contact_derivatives on precomputed cold solutions of the ergodic sweep.
//
//  Derivatives/<body1>-<body2>   all first-order derivatives of one solution (contact_derivatives)
//  Envelope/<body1>-<body2>      dα/dξ alone through the envelope theorem
//
// Each iteration is one call; the solutions are computed before timing and cycled through.
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "diffcol/idcol/contact.hpp"
#include "diffcol/idcol/derivatives.hpp"
#include "diffcol/idcol/ergodic.hpp"

namespace derivative_benchmarks {  // one namespace per file: the benchmarks are built as a unity build

namespace idcol = diffcol::idcol;
using diffcol::Pose;

constexpr long kSolutions = 4096;

struct PairData {
  diffcol::Shape s1, s2;
  std::vector<idcol::ContactSolution> sols;
};

PairData make_pair_data(const std::string& n1, const std::string& n2) {
  PairData d{idcol::benchmark_shape(n1), idcol::benchmark_shape(n2), {}};
  const auto sweep = idcol::ErgodicSweep::for_pair(d.s1, d.s2);
  idcol::ContactPair pair(d.s1, d.s2);
  for (long i = 0; d.sols.size() < static_cast<size_t>(kSolutions); i += 7) {
    const auto& s = pair.solve_cold(Pose::identity(), sweep.pose(i));
    if (s.status == diffcol::SolveStatus::ok) d.sols.push_back(s);
  }
  return d;
}

void BM_Derivatives(benchmark::State& state, const std::string& n1, const std::string& n2) {
  const PairData d = make_pair_data(n1, n2);
  idcol::ContactDerivatives out;
  size_t i = 0;
  for (auto _ : state) {
    idcol::contact_derivatives(d.sols[i], out);
    benchmark::DoNotOptimize(&out);
    benchmark::ClobberMemory();
    if (++i == d.sols.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Envelope(benchmark::State& state, const std::string& n1, const std::string& n2) {
  const PairData d = make_pair_data(n1, n2);
  size_t i = 0;
  for (auto _ : state) {
    auto g = idcol::alpha_gradient_envelope(d.sols[i]);
    benchmark::DoNotOptimize(g.data());
    if (++i == d.sols.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

const bool registered = [] {
  for (const auto& a : idcol::benchmark_shape_names())
    for (const auto& b : idcol::benchmark_shape_names()) {
      benchmark::RegisterBenchmark(("Derivatives/" + a + "-" + b).c_str(),
                                   [a, b](benchmark::State& st) { BM_Derivatives(st, a, b); });
    }
  for (const auto& a : idcol::benchmark_shape_names())
    benchmark::RegisterBenchmark(("Envelope/" + a + "-" + a).c_str(),
                                 [a](benchmark::State& st) { BM_Envelope(st, a, a); });
  return true;
}();

}  // namespace derivative_benchmarks
