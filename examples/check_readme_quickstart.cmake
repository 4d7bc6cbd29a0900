# Checks that the C++ block of README.md between the markers
#   <!-- quickstart:begin -->  and  <!-- quickstart:end -->
# (a ```cpp fenced block) is identical to examples/quickstart.cpp.
# Usage: cmake -DREADME=README.md -DEXAMPLE=examples/quickstart.cpp [-DOUT_DIR=dir] -P check_readme_quickstart.cmake
# On a mismatch, the README's block is written to OUT_DIR/readme_quickstart_block.cpp if OUT_DIR is set.
if(NOT DEFINED README OR NOT DEFINED EXAMPLE)
  message(FATAL_ERROR "usage: cmake -DREADME=<README.md> -DEXAMPLE=<quickstart.cpp> -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)

set(begin_marker "<!-- quickstart:begin -->\n```cpp\n")
set(end_marker "```\n<!-- quickstart:end -->")
string(FIND "${readme}" "${begin_marker}" b)
string(FIND "${readme}" "${end_marker}" e)
if(b LESS 0 OR e LESS 0)
  message(FATAL_ERROR "${README}: quickstart markers not found; expected a line '<!-- quickstart:begin -->', "
                      "a ```cpp fence, the code, a closing ``` fence and a line '<!-- quickstart:end -->'")
endif()
string(LENGTH "${begin_marker}" blen)
math(EXPR start "${b} + ${blen}")
math(EXPR len "${e} - ${start}")
if(len LESS 0)
  message(FATAL_ERROR "${README}: quickstart end marker comes before the begin marker")
endif()
string(SUBSTRING "${readme}" ${start} ${len} block)

if(NOT block STREQUAL example)
  set(hint "")
  if(DEFINED OUT_DIR)
    set(out "${OUT_DIR}/readme_quickstart_block.cpp")
    file(WRITE "${out}" "${block}")
    set(hint "\nCompare with: diff -u ${EXAMPLE} ${out}")
  endif()
  message(FATAL_ERROR "The quickstart block of ${README} differs from ${EXAMPLE}: "
                      "copy examples/quickstart.cpp into the README between the markers.${hint}")
endif()
message(STATUS "README quickstart block is identical to ${EXAMPLE}")
