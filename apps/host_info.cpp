// The machine a benchmark ran on (host_info.hpp).
#include "host_info.hpp"

#include <fstream>
#include <sstream>
#include <thread>

#include "diffcol/shapes/smooth_polytope.hpp"

namespace diffcol::cli {

namespace {

// s without leading and trailing blanks.
std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

int to_int(const std::string& s) {
  try {
    return std::stoi(s);
  } catch (...) {
    return -1;
  }
}

}  // namespace

HostInfo host_info() {
  HostInfo h;
  // /proc/cpuinfo: "key<TAB>: value" lines, one block per logical CPU; the first block is enough
  std::ifstream in("/proc/cpuinfo");
  bool have_name = false, have_family = false, have_model = false;
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      if (have_name) break;  // end of the first processor's block
      continue;
    }
    const std::string key = trimmed(line.substr(0, colon)), value = trimmed(line.substr(colon + 1));
    if (!have_name && key == "model name" && !value.empty()) {
      h.cpu = value;
      have_name = true;
    } else if (!have_family && key == "cpu family") {
      h.cpu_family = to_int(value);
      have_family = true;
    } else if (!have_model && key == "model") {
      h.cpu_model = to_int(value);
      have_model = true;
    }
  }
  h.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) h.isa = "AVX-512F";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) h.isa = "AVX2+FMA";
  else h.isa = "baseline";
#else
  h.isa = "baseline";
#endif
  h.smooth_planes_width = detail::smooth_planes_width();
#ifdef __VERSION__
  h.compiler = __VERSION__;
#endif
  return h;
}

nlohmann::ordered_json host_json(const HostInfo& h) {
  nlohmann::ordered_json j;
  j["cpu"] = h.cpu;
  j["cpu_family"] = h.cpu_family;
  j["cpu_model"] = h.cpu_model;
  j["logical_cpus"] = h.logical_cpus;
  j["isa"] = h.isa;
  j["smooth_planes_width"] = h.smooth_planes_width;
  j["compiler"] = h.compiler;
  return j;
}

std::string host_line(const HostInfo& h) {
  std::ostringstream os;
  os << "host: " << h.cpu;
  if (h.cpu_family >= 0 && h.cpu_model >= 0) os << " (family " << h.cpu_family << ", model " << h.cpu_model << ")";
  os << ", " << h.logical_cpus << " logical CPUs, " << h.isa << ", smooth polytope width " << h.smooth_planes_width;
  if (!h.compiler.empty()) os << ", compiler " << h.compiler;
  return os.str();
}

}  // namespace diffcol::cli
