#pragma once
// Numbers in shape descriptions and error messages: six significant digits.

#include <sstream>
#include <string>

namespace diffcol::scene::detail {

inline std::string format_number(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

}  // namespace diffcol::scene::detail
