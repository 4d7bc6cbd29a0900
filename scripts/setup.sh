#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for diffcol and builds it.
#  1. Installs the build dependencies with apt-get (only those missing; `apt-get update` only
#     if something is missing; sudo only when not root).
#  2. Configures and builds in Release into build/ (Ninja).
# Idempotent: a second run installs nothing and rebuilds only what changed.
#
# Environment: BUILD_DIR (default build), DIFFCOL_SKIP_APT=1 skips step 1.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR="${BUILD_DIR:-build}"

PACKAGES=(build-essential cmake ninja-build libeigen3-dev libgtest-dev libbenchmark-dev
          nlohmann-json3-dev libfcl-dev pkg-config)

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

echo "setup.sh: configuring and building (Release) in $BUILD_DIR/"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" --parallel "$(nproc 2>/dev/null || echo 2)"
echo "setup.sh: done"
