#!/usr/bin/env bash
# The test command: set up and build (scripts/setup.sh) with DIFFCOL_SANITIZE=ON and
# DIFFCOL_QUICK_BUILD=ON (the Release library in unity groups, CMakeLists.txt), then
#   1. release    ctest on the Release build in build/, every test not labelled `sanitized`:
#                 the GoogleTest executables against the Release library (their own code compiled
#                 with the sanitizers, see below), python_pytest, the CLI, the examples and the
#                 viewer's browser test, at full sizes
#   2. python     `import diffcol` works for /usr/bin/python3 from another directory (setup.sh's .pth)
#   3. sanitize   the tests labelled `sanitized`: the same test objects linked against the
#                 sanitized twin of the library (AddressSanitizer + UBSan, -Og, assertions on), the
#                 sanitized CLI, viewer and examples (no Python module; ASan's stack-use-after-scope
#                 check on the library only; one CTest test per GoogleTest executable), at reduced
#                 sizes (DIFFCOL_ERGODIC_POSES=1000, DIFFCOL_SSDF_POINTS=1000, DIFFCOL_SCM_TRIALS=2,
#                 DIFFCOL_DERIV_POSES=12, DIFFCOL_QP_DERIV_POSES=40, DIFFCOL_DCOL_DERIV_POSES=8,
#                 DIFFCOL_MANIFOLD_FUZZ_SAMPLES=200, DIFFCOL_SSDF_FUZZ_SAMPLES=200, DIFFCOL_EUCLIDEAN_SAMPLES=40,
#                 DIFFCOL_SCENE_BODIES=150, DIFFCOL_MANIFOLD_CULLING_POSES=4, DIFFCOL_HESS_POSES=1,
#                 DIFFCOL_QP_HESS_POSES=1, DIFFCOL_DCOL_HESS_POSES=1, DIFFCOL_DCOL_HESS_PAIR_STRIDE=5;
#                 five numerical test units have no sanitized twin, see tests/CMakeLists.txt, and
#                 the browser test runs its `diffcol view` commands without the browser).
#                 One build tree holds both (CMakeLists.txt, DIFFCOL_SANITIZE): each test file is
#                 compiled once, not once per build.
#   4. install    cmake --install build into a temporary prefix, then configure, build and run
#                 tests/consumer against it (find_package(diffcol))
#   5. readme     the README's C++ quickstart block is identical to examples/quickstart.cpp
# Every step runs even if an earlier one failed (except those that need the build); a summary
# is printed at the end and the exit status is non-zero if any step failed.
#
# Environment: JOBS (ctest parallelism, default 2); BUILD_DIR (default build);
# DIFFCOL_SKIP_ASAN=1 skips step 3 (local use only; the summary says FAILED).
# shellcheck disable=SC2317  # step functions are called indirectly through run_step
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
ROOT="$(pwd)"
JOBS="${JOBS:-2}"
export BUILD_DIR="${BUILD_DIR:-build}"
# the viewer's browser test fails (instead of skipping) when chromium is missing
export DIFFCOL_REQUIRE_CHROMIUM=1

TMP="$(mktemp -d "${TMPDIR:-/tmp}/diffcol-test.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

names=() results=() times=()
failed=0

# run_step NAME FUNCTION: runs FUNCTION, records PASS/FAIL and the time taken.
run_step() {
  local name="$1" fn="$2" t0 rc
  echo
  echo "=================== $name ==================="
  t0=$SECONDS
  "$fn"
  rc=$?
  names+=("$name")
  times+=("$((SECONDS - t0))s")
  if ((rc == 0)); then
    results+=("PASS")
  else
    results+=("FAIL (exit $rc)")
    failed=1
  fi
  return "$rc"
}

skip_step() {
  names+=("$1") results+=("SKIPPED ($2)") times+=("-")
  failed=1
}

summary() {
  echo
  echo "=================== summary ==================="
  local i
  for i in "${!names[@]}"; do
    printf '  %-10s %-28s %s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
  done
  echo "  total      ${SECONDS}s"
  if ((failed)); then
    echo "RESULT: FAILED"
  else
    echo "RESULT: all passed"
  fi
}

# The sanitizers' options for every test that runs instrumented code (both runs).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

step_setup() {
  DIFFCOL_SANITIZE=ON DIFFCOL_QUICK_BUILD=ON bash scripts/setup.sh
}

step_release() {
  ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$JOBS" --timeout 600 -LE sanitized
}

step_python() {
  (cd "$TMP" && /usr/bin/python3 -c "import diffcol; print('python: import diffcol ->', diffcol.__file__)")
}

step_sanitize() {
  DIFFCOL_ERGODIC_POSES=1000 DIFFCOL_SSDF_POINTS=1000 DIFFCOL_SCM_TRIALS=2 DIFFCOL_DERIV_POSES=12 \
  DIFFCOL_QP_DERIV_POSES=40 DIFFCOL_DCOL_DERIV_POSES=8 DIFFCOL_MANIFOLD_FUZZ_SAMPLES=200 \
  DIFFCOL_SSDF_FUZZ_SAMPLES=200 DIFFCOL_EUCLIDEAN_SAMPLES=40 DIFFCOL_SCENE_BODIES=150 \
  DIFFCOL_MANIFOLD_CULLING_POSES=4 DIFFCOL_HESS_POSES=1 DIFFCOL_QP_HESS_POSES=1 DIFFCOL_DCOL_HESS_POSES=1 \
  DIFFCOL_DCOL_HESS_PAIR_STRIDE=5 \
    ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$JOBS" --timeout 600 -L sanitized
}

step_install() {
  local prefix="$TMP/prefix" cbuild="$TMP/consumer-build" found
  cmake --install "$BUILD_DIR" --prefix "$prefix" || return 1
  cmake -S tests/consumer -B "$cbuild" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix" || return 1
  # find_package must have found the installed package, not anything else on the machine.
  found="$(sed -n 's/^diffcol_DIR:PATH=//p' "$cbuild/CMakeCache.txt")"
  echo "consumer: diffcol_DIR=$found"
  case "$found" in
    "$prefix"/*) ;;
    *) echo "consumer: find_package(diffcol) did not resolve to the install prefix $prefix" >&2; return 1 ;;
  esac
  cmake --build "$cbuild" || return 1
  "$cbuild/consumer"
}

step_readme() {
  if ! cmake -DREADME="$ROOT/README.md" -DEXAMPLE="$ROOT/examples/quickstart.cpp" -DOUT_DIR="$TMP" \
             -P examples/check_readme_quickstart.cmake; then
    [[ -f "$TMP/readme_quickstart_block.cpp" ]] &&
      diff -u examples/quickstart.cpp "$TMP/readme_quickstart_block.cpp" | sed 's/^/    /'
    return 1
  fi
}

if ! run_step setup step_setup; then
  skip_step release "setup failed"
  skip_step python "setup failed"
  skip_step sanitize "setup failed"
  skip_step install "setup failed"
else
  run_step release step_release
  run_step python step_python
  if [[ "${DIFFCOL_SKIP_ASAN:-0}" == 1 ]]; then
    skip_step sanitize "DIFFCOL_SKIP_ASAN=1"
  else
    run_step sanitize step_sanitize
  fi
  run_step install step_install
fi
run_step readme step_readme

summary
exit "$failed"
