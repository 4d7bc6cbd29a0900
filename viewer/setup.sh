#!/usr/bin/env bash
# Installs what the HTML viewer needs, only what is missing (idempotent):
#   1. three.js from npm into viewer/node_modules (`npm ci`, versions pinned by package-lock.json);
#      needs node and npm (Debian: nodejs, npm; installed here when missing);
#   2. Debian's chromium, for the headless-browser test (viewer/tests/browser_test.py).
# apt-get runs as root directly, otherwise through sudo. Reconfigure CMake afterwards to build
# the diffcol_view library and `diffcol view`.
#
# Environment: DIFFCOL_SKIP_APT=1 installs no Debian package; DIFFCOL_VIEWER_NO_CHROMIUM=1 skips 2.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

is_installed() {
  dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed$'
}

apt_install() {
  if [[ "${DIFFCOL_SKIP_APT:-0}" == 1 ]]; then
    echo "viewer/setup.sh: DIFFCOL_SKIP_APT=1: not installing $*" >&2
    return 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "viewer/setup.sh: apt-get not found; install $* by other means" >&2
    return 1
  fi
  local SUDO=()
  if [[ "$(id -u)" != 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "viewer/setup.sh: not root and sudo not found; as root: apt-get install $*" >&2
      return 1
    fi
    SUDO=(sudo)
  fi
  echo "viewer/setup.sh: installing $*"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
}

# 1. three.js
if ! command -v npm >/dev/null 2>&1; then
  apt_install nodejs npm
fi
if [[ -f node_modules/three/package.json ]] &&
   [[ "$(node -p 'require("./node_modules/three/package.json").version')" == \
      "$(node -p 'require("./package-lock.json").packages["node_modules/three"].version')" ]]; then
  echo "viewer/setup.sh: three.js $(node -p 'require("./node_modules/three/package.json").version') is installed"
else
  npm ci --no-audit --no-fund
fi

# 2. chromium for the browser test
if [[ "${DIFFCOL_VIEWER_NO_CHROMIUM:-0}" != 1 ]]; then
  if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    echo "viewer/setup.sh: chromium is installed"
  elif command -v dpkg >/dev/null 2>&1 && ! is_installed chromium; then
    apt_install chromium
  fi
fi
echo "viewer/setup.sh: done (reconfigure CMake to build diffcol_view and 'diffcol view')"
