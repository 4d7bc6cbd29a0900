#pragma once
/// @file timing.hpp
/// Timing loops of `diffcol bench` (shared by the diffcol sweep and the FCL baseline).
///
/// Every measurement makes two passes over the same precomputed inputs:
///  - a batch pass, timed as a whole with no clock calls inside the loop: its total divided by
///    the number of calls is the headline mean (not inflated by the ~20–30 ns per clock read);
///  - a timed pass, with std::chrono::steady_clock read around every call: the per-call
///    distribution (median, p99, max) and the per-call mean, which includes the clock overhead.
/// Nothing is allocated inside either loop (the per-call buffer is sized beforehand).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <vector>

#include <time.h>

#include <nlohmann/json.hpp>

namespace diffcol::cli {

using BenchClock = std::chrono::steady_clock;

struct Timing {
  double mean_us = 0;        ///< batch time / calls (steady_clock, wall)
  double mean_cpu_us = 0;    ///< batch thread CPU time / calls: excludes preemption on a busy machine
  double mean_timed_us = 0;  ///< mean of the per-call times (includes the clock overhead)
  double median_us = 0;      ///< per-call, lower median
  double p99_us = 0;         ///< per-call, nearest-rank 99th percentile
  double max_us = 0;         ///< per-call maximum
};

/// {"mean_us", "mean_cpu_us", "mean_timed_us", "median_us", "p99_us", "max_us"} (json_out.cpp).
nlohmann::ordered_json timing_json(const Timing& t);

/// CPU time of the calling thread in seconds (CLOCK_THREAD_CPUTIME_ID).
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Percentiles of the per-call times in ns (reorders `ns`).
inline void fill_percentiles(std::vector<double>& ns, Timing& t) {
  const size_t n = ns.size();
  if (n == 0) return;
  double sum = 0;
  for (double v : ns) sum += v;
  t.mean_timed_us = sum / static_cast<double>(n) * 1e-3;
  const size_t i99 = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(n))) - 1;
  std::nth_element(ns.begin(), ns.begin() + static_cast<std::ptrdiff_t>(i99), ns.end());
  t.p99_us = ns[i99] * 1e-3;
  t.max_us = *std::max_element(ns.begin() + static_cast<std::ptrdiff_t>(i99), ns.end()) * 1e-3;
  const size_t imed = (n - 1) / 2;
  std::nth_element(ns.begin(), ns.begin() + static_cast<std::ptrdiff_t>(imed),
                   ns.begin() + static_cast<std::ptrdiff_t>(i99));
  t.median_us = (imed == i99 ? ns[i99] : ns[imed]) * 1e-3;
}

/// Runs `warmup` untimed calls, then the batch pass (calling record(call(i)) for every i, so the
/// results are consumed), then the timed pass. reset() is called before each pass so both passes
/// see the same state (e.g. no warm start at i = 0). `ns` must have size n (reused storage).
template <class Reset, class Call, class Record>
Timing time_loop(size_t n, size_t warmup, Reset&& reset, Call&& call, Record&& record, std::vector<double>& ns) {
  Timing t;
  reset();
  for (size_t i = 0; i < std::min(warmup, n); ++i) (void)call(i);

  reset();
  const double c0 = thread_cpu_seconds();
  const auto t0 = BenchClock::now();
  for (size_t i = 0; i < n; ++i) record(call(i));
  const auto t1 = BenchClock::now();
  const double c1 = thread_cpu_seconds();
  t.mean_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / static_cast<double>(n);
  t.mean_cpu_us = (c1 - c0) * 1e6 / static_cast<double>(n);

  reset();
  for (size_t i = 0; i < n; ++i) {
    const auto a = BenchClock::now();
    (void)call(i);
    const auto b = BenchClock::now();
    ns[i] = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
  }
  fill_percentiles(ns, t);
  return t;
}

/// Median cost in ns of one steady_clock::now() read (back-to-back pairs).
inline double clock_overhead_ns(size_t samples = 200000) {
  std::vector<double> d(samples);
  for (size_t i = 0; i < samples; ++i) {
    const auto a = BenchClock::now();
    const auto b = BenchClock::now();
    d[i] = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
  }
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(samples / 2), d.end());
  return d[samples / 2];
}

}  // namespace diffcol::cli
