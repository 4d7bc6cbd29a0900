#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for diffcol and builds it.
#  1. Installs the build dependencies with apt-get (only those missing; `apt-get update` only
#     if something is missing; sudo only when not root).
#  2. Configures and builds in Release into build/ (Ninja).
#  3. Makes `import diffcol` work for /usr/bin/python3 from any directory: writes diffcol-build.pth
#     (one line: the absolute path of build/python) into that interpreter's site-packages
#     (sysconfig purelib, e.g. /usr/local/lib/python3.11/dist-packages); sudo only when not root.
# Idempotent: a second run installs nothing and rebuilds only what changed.
#
# Environment: BUILD_DIR (default build), DIFFCOL_SANITIZE=ON also builds the sanitized twins
# (the CMake option; the test command sets it, default OFF), DIFFCOL_QUICK_BUILD=ON compiles
# the Release library in unity groups (the test command sets it, default OFF), DIFFCOL_SKIP_APT=1 skips step 1,
# DIFFCOL_SKIP_VIEWER=1 skips the viewer's set-up (viewer/setup.sh: three.js from npm,
# chromium), DIFFCOL_SKIP_PTH=1 skips step 3, DIFFCOL_PYTHON (default /usr/bin/python3),
# DIFFCOL_PYTHON_SITE (the directory for the .pth file; default: the interpreter's purelib).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR="${BUILD_DIR:-build}"

PACKAGES=(build-essential cmake ninja-build libeigen3-dev libgtest-dev libbenchmark-dev
          nlohmann-json3-dev libfcl-dev pkg-config libtinyobjloader-dev libmujoco-dev libqhull-dev
          liburdfdom-dev libtinyxml2-dev coinor-libipopt-dev libompl-dev libsundials-dev libsuitesparse-dev
          python3-dev python3-pybind11 python3-numpy python3-pytest python3-torch
          python3-setuptools python3-wheel python3-pip python3-venv
          python3-dask python3-distributed python3-scipy)

# The viewer's Debian packages (viewer/setup.sh: node and npm for three.js, chromium for the
# browser test) join the same apt-get run when missing: one `apt-get update` and one install on
# a fresh machine instead of two of each.
if [[ "${DIFFCOL_SKIP_VIEWER:-0}" != 1 ]]; then
  command -v npm >/dev/null 2>&1 || PACKAGES+=(nodejs npm)
  if [[ "${DIFFCOL_VIEWER_NO_CHROMIUM:-0}" != 1 ]] && ! command -v chromium >/dev/null 2>&1 &&
     ! command -v chromium-browser >/dev/null 2>&1; then
    PACKAGES+=(chromium)
  fi
fi

is_installed() {
  # dpkg -s also succeeds for removed packages whose config files remain; require "install ok installed".
  dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed$'
}

if [[ "${DIFFCOL_SKIP_APT:-0}" != 1 ]]; then
  if ! command -v dpkg >/dev/null 2>&1; then
    echo "setup.sh: dpkg not found: this script installs dependencies on Debian/Ubuntu only." >&2
    echo "          Install ${PACKAGES[*]} by other means and rerun with DIFFCOL_SKIP_APT=1." >&2
    exit 1
  fi
  missing=()
  for p in "${PACKAGES[@]}"; do
    is_installed "$p" || missing+=("$p")
  done
  if ((${#missing[@]} > 0)); then
    echo "setup.sh: installing ${missing[*]}"
    SUDO=()
    if [[ "$(id -u)" != 0 ]]; then
      if ! command -v sudo >/dev/null 2>&1; then
        echo "setup.sh: not root and sudo not found; install as root: apt-get install ${missing[*]}" >&2
        exit 1
      fi
      SUDO=(sudo)
    fi
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  else
    echo "setup.sh: all build dependencies are installed"
  fi
fi

# A build directory configured with another generator cannot be reused with Ninja.
cache="$BUILD_DIR/CMakeCache.txt"
if [[ -f "$cache" ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; then
  echo "setup.sh: $BUILD_DIR was configured with another generator; reconfiguring from scratch"
  rm -rf "$cache" "$BUILD_DIR/CMakeFiles"
fi

# The viewer's three.js (npm) and the browser its test uses (Debian chromium); DIFFCOL_SKIP_VIEWER=1 skips.
if [[ "${DIFFCOL_SKIP_VIEWER:-0}" != 1 ]]; then
  bash viewer/setup.sh
fi

echo "setup.sh: configuring and building (Release, DIFFCOL_SANITIZE=${DIFFCOL_SANITIZE:-OFF}, DIFFCOL_QUICK_BUILD=${DIFFCOL_QUICK_BUILD:-OFF}) in $BUILD_DIR/"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDIFFCOL_SANITIZE="${DIFFCOL_SANITIZE:-OFF}" \
  -DDIFFCOL_QUICK_BUILD="${DIFFCOL_QUICK_BUILD:-OFF}"
cmake --build "$BUILD_DIR" --parallel "$(nproc 2>/dev/null || echo 2)"

# Step 3: the Python package in $BUILD_DIR/python/diffcol, importable from anywhere.
install_pth() {
  local py="${DIFFCOL_PYTHON:-/usr/bin/python3}" pkg site pth line
  pkg="$BUILD_DIR/python/diffcol"
  if ! compgen -G "$pkg/_diffcol*.so" >/dev/null; then
    echo "setup.sh: the Python module was not built (see the cmake messages); skipping the .pth file"
    return 0
  fi
  if [[ ! -x "$py" ]]; then
    echo "setup.sh: $py not found; skipping the .pth file (use PYTHONPATH=$BUILD_DIR/python)"
    return 0
  fi
  line="$(cd "$BUILD_DIR/python" && pwd)"
  site="${DIFFCOL_PYTHON_SITE:-$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')}"
  pth="$site/diffcol-build.pth"
  if [[ -f "$pth" && "$(cat "$pth")" == "$line" ]]; then
    echo "setup.sh: $pth already points at $line"
  else
    echo "setup.sh: writing $pth -> $line"
    if mkdir -p "$site" 2>/dev/null && [[ -w "$site" ]]; then
      printf '%s\n' "$line" >"$pth"
    elif [[ "$(id -u)" != 0 ]] && command -v sudo >/dev/null 2>&1; then
      sudo mkdir -p "$site" && printf '%s\n' "$line" | sudo tee "$pth" >/dev/null
    else
      echo "setup.sh: cannot write $pth; use PYTHONPATH=$line instead" >&2
      return 0
    fi
  fi
  # check from a neutral directory (not the source tree)
  if [[ -z "${DIFFCOL_PYTHON_SITE:-}" ]]; then
    (cd / && "$py" -c "import diffcol; print('setup.sh: import diffcol OK ->', diffcol.__file__)")
  fi
}
if [[ "${DIFFCOL_SKIP_PTH:-0}" != 1 ]]; then
  install_pth
fi
echo "setup.sh: done"
