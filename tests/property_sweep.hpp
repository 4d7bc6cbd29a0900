#pragma once
// Settings and failure counts of a property-based sweep (tests/test_*_properties.cpp): the number
// of samples, the seed, a first sample to start at and verbosity from the environment, one random
// generator per sample (so a sample can be rerun alone), and failures counted by class with the
// first few described as test failures.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace diffcol::test {

/// <PREFIX>_SAMPLES (default `samples`), <PREFIX>_SEED (default `seed`), <PREFIX>_FIRST (default 0:
/// start at that sample; with _SAMPLES = _FIRST + 1 one sample runs alone) and DIFFCOL_FUZZ_VERBOSE
/// (set: every failure is described on stdout, not only the first few).
struct SweepSettings {
  long samples = 0;
  long seed = 0;
  long first = 0;
  bool verbose = false;

  SweepSettings(const std::string& prefix, long default_samples, long default_seed) {
    samples = env_count((prefix + "_SAMPLES").c_str(), default_samples);
    seed = env_count((prefix + "_SEED").c_str(), default_seed);
    if (const char* f = std::getenv((prefix + "_FIRST").c_str()); f != nullptr && *f != '\0') {
      char* end = nullptr;
      first = std::strtol(f, &end, 10);
      if (end == f || *end != '\0' || first < 0) {
        std::fprintf(stderr, "%s_FIRST='%s' is not a non-negative integer; starting at 0\n", prefix.c_str(), f);
        first = 0;
      }
    }
    verbose = std::getenv("DIFFCOL_FUZZ_VERBOSE") != nullptr;
  }

  /// The generator of sample t: a function of (seed, t) only.
  std::mt19937_64 generator(long t) const {
    std::seed_seq s{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(t >> 32), 0x5eedu};
    return std::mt19937_64(s);
  }
};

/// Failures by class. report() counts one failure of a class and describes it (a GoogleTest
/// failure for the first `described_limit` of the sweep, stdout when verbose); note() counts an
/// event that is not a failure (printed with the counts).
class FailureCounts {
 public:
  explicit FailureCounts(bool verbose, int described_limit = 10) : verbose_(verbose), limit_(described_limit) {}

  void report(const std::string& cls, const std::string& what) {
    ++failures_[cls];
    if (described_++ < limit_) ADD_FAILURE() << cls << ": " << what;
    else if (verbose_) std::printf("%s: %s\n", cls.c_str(), what.c_str());
  }
  /// A failure counted but not a test failure by itself (the caller bounds its count).
  void tolerate(const std::string& cls, const std::string& what) {
    ++failures_[cls];
    if (verbose_) std::printf("%s (tolerated): %s\n", cls.c_str(), what.c_str());
  }
  void note(const std::string& cls, long n = 1) { notes_[cls] += n; }
  long failures(const std::string& cls) const {
    const auto it = failures_.find(cls);
    return it == failures_.end() ? 0 : it->second;
  }
  long note_count(const std::string& cls) const {
    const auto it = notes_.find(cls);
    return it == notes_.end() ? 0 : it->second;
  }
  long total_failures() const {
    long n = 0;
    for (const auto& [k, v] : failures_) n += v;
    return n;
  }
  /// One line per class: "<title>: failures by class: a 0, b 3; counts: ...".
  void print(const std::string& title) const {
    std::printf("%s: failures by class:", title.c_str());
    if (failures_.empty()) std::printf(" none");
    for (const auto& [k, v] : failures_) std::printf(" [%s] %ld", k.c_str(), v);
    std::printf("\n%s: counts:", title.c_str());
    for (const auto& [k, v] : notes_) std::printf(" [%s] %ld", k.c_str(), v);
    std::printf("\n");
  }

 private:
  bool verbose_;
  int limit_;
  int described_ = 0;
  std::map<std::string, long> failures_, notes_;
};

/// Random draws and descriptions for the sweeps (a namespace of their own: the sweeps share
/// unity builds with other test files).
namespace sweep {

using Rng = std::mt19937_64;

inline double uniform(Rng& rng, double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
/// 10^U(a, b).
inline double log_uniform(Rng& rng, double a, double b) { return std::pow(10.0, uniform(rng, a, b)); }
inline Mat3 rotation(Rng& rng) {
  std::mt19937 r(static_cast<unsigned>(rng()));
  return random_rotation(r);
}
inline Vec3 direction(Rng& rng) {
  std::mt19937 r(static_cast<unsigned>(rng()));
  return random_unit(r);
}
/// The pose with its translation × f.
inline Pose scaled_pose(const Pose& X, double f) { return make_pose(X.R, f * X.p); }
/// A rotation that maps the axes onto the axes (a signed permutation, det 1).
inline Mat3 axis_rotation(Rng& rng) {
  int perm[3] = {0, 1, 2};
  std::shuffle(perm, perm + 3, rng);
  Mat3 R = Mat3::Zero();
  for (int i = 0; i < 3; ++i) R(i, perm[i]) = rng() % 2 == 0 ? 1.0 : -1.0;
  if (R.determinant() < 0.0) R.col(0) = -R.col(0);
  return R;
}
/// ± a coordinate axis.
inline Vec3 axis_direction(Rng& rng) {
  Vec3 v = Vec3::Zero();
  v[static_cast<int>(rng() % 3)] = rng() % 2 == 0 ? 1.0 : -1.0;
  return v;
}
/// Vectors and poses with every digit (for reproducers).
inline std::string vec(const Vec3& v) {
  std::ostringstream o;
  o.precision(17);
  o << "(" << v.x() << ", " << v.y() << ", " << v.z() << ")";
  return o.str();
}
inline std::string pose(const Pose& X) {
  std::ostringstream o;
  o.precision(17);
  o << "R [" << X.R.reshaped().transpose() << "] p " << vec(X.p);
  return o.str();
}

}  // namespace sweep

}  // namespace diffcol::test
