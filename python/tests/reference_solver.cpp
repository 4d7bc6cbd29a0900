// A tiny C++ program the pytest suite compares the Python module with (bit for bit).
//
// Reads queries from stdin, one per line:
//   MODE SHAPE1 SHAPE2 x1 y1 z1 qw1 qx1 qy1 qz1 x2 y2 z2 qw2 qx2 qy2 qz2
// MODE: "cold" = idcol::solve_contact; "warm" = ContactPair::solve on one pair per
// (SHAPE1, SHAPE2) kept across lines (warm-started in line order). SHAPEs are benchmark names.
// For every query it prints the ContactSolution and its ContactDerivatives, one field per line
// ("name v1 v2 ...", doubles with 17 significant digits: they read back exactly), then "end".
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "diffcol/batch/result_fields.hpp"
#include "diffcol/idcol/ergodic.hpp"

namespace {

using namespace diffcol;

void print_values(const char* name, const double* v, long n) {
  std::printf("%s", name);
  for (long i = 0; i < n; ++i) std::printf(" %.17g", v[i]);
  std::printf("\n");
}

template <class M>
void print_field(const char* name, const M& m) {
  if constexpr (std::is_arithmetic_v<M>) {
    print_values(name, &m, 1);
  } else {
    print_values(name, m.data(), m.size());  // row-major blocks: rows in order
  }
}

}  // namespace

int main() {
  std::map<std::pair<std::string, std::string>, idcol::ContactPair> pairs;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::istringstream in(line);
    std::string mode, n1, n2;
    double v[14];
    in >> mode >> n1 >> n2;
    for (double& x : v) in >> x;
    if (!in) {
      std::fprintf(stderr, "reference_solver: bad line '%s'\n", line.c_str());
      return 2;
    }
    const Pose X1 = Pose::from_quaternion(Vec3(v[0], v[1], v[2]), v[3], v[4], v[5], v[6]);
    const Pose X2 = Pose::from_quaternion(Vec3(v[7], v[8], v[9]), v[10], v[11], v[12], v[13]);
    const Shape s1 = idcol::benchmark_shape(n1);
    const Shape s2 = idcol::benchmark_shape(n2);
    idcol::ContactSolution sol;
    if (mode == "cold") {
      sol = idcol::solve_contact(s1, X1, s2, X2);
    } else if (mode == "warm") {
      auto it = pairs.find({n1, n2});
      if (it == pairs.end()) it = pairs.emplace(std::make_pair(n1, n2), idcol::ContactPair(s1, s2)).first;
      sol = it->second.solve(X1, X2);
    } else {
      std::fprintf(stderr, "reference_solver: unknown mode '%s'\n", mode.c_str());
      return 2;
    }
    const idcol::ContactDerivatives d = idcol::contact_derivatives(s1, s2, X1, sol);
    std::printf("status %d\niterations %d\nattempts %d\nwarm_started %d\n", static_cast<int>(sol.status),
                sol.iterations, sol.attempts, sol.warm_started ? 1 : 0);
    batch::for_each_solution_field([&](const char* name, auto member) { print_field(name, sol.*member); });
    std::printf("derivative_status %d\n", static_cast<int>(d.status));
    batch::for_each_derivative_block([&](const char* name, auto member) { print_field(name, d.*member); });
    std::printf("end\n");
  }
  return 0;
}
