#pragma once
// Internal to src/manifold/: the exception each manifold entry point throws on bad input.
#include <stdexcept>
#include <string>

namespace diffcol::manifold::detail {

// Throws std::invalid_argument("diffcol::manifold::<fn>: <what>").
[[noreturn]] inline void fail(const char* fn, const std::string& what) {
  throw std::invalid_argument(std::string("diffcol::manifold::") + fn + ": " + what);
}

}  // namespace diffcol::manifold::detail
