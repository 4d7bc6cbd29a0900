#pragma once
/// @file host_info.hpp
/// The machine a `diffcol bench` run measured (CPU, vector ISA, compiler), printed above its table
/// and stored as "host" in its JSON: the same build runs 1.4–2.6× apart on the hosts this project
/// has drawn (docs/idcol.md, "The host matters"), so every figure carries its host.

#include <string>

#include <nlohmann/json.hpp>

namespace diffcol::cli {

struct HostInfo {
  std::string cpu = "unknown";  ///< /proc/cpuinfo "model name" ("unknown" where there is none)
  int cpu_family = -1;          ///< /proc/cpuinfo "cpu family" (x86), -1 if unknown
  int cpu_model = -1;           ///< /proc/cpuinfo "model" (x86), -1 if unknown
  int logical_cpus = 0;         ///< std::thread::hardware_concurrency() (0: unknown)
  std::string isa;              ///< widest vector ISA the library has kernels for that the CPU offers:
                                ///< "AVX-512F", "AVX2+FMA" or "baseline"
  int smooth_planes_width = 1;  ///< lanes of the smooth polytope's face evaluation (detail::smooth_planes_width())
  std::string compiler;         ///< compiler of this program (__VERSION__)
};

/// Reads the host once (cheap: one pass over /proc/cpuinfo).
HostInfo host_info();
/// {"cpu", "cpu_family", "cpu_model", "logical_cpus", "isa", "smooth_planes_width", "compiler"}.
nlohmann::ordered_json host_json(const HostInfo& h);
/// One line for the table header: "host: <cpu> (family F, model M), N logical CPUs, <isa>, smooth
/// polytope width W, compiler <version>".
std::string host_line(const HostInfo& h);

}  // namespace diffcol::cli
