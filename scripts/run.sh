#!/usr/bin/env bash
# The main job: set up and build (scripts/setup.sh), then run the benchmark of the iDCOL solver
# over the seed's ergodic pose sweep for every pair of benchmark shapes, with FCL as baseline,
# and the iDCOL seed's ten-body simulation (`diffcol demo ten-bodies`, writing ten-bodies.html).
# Sized to finish in about a minute on 2 cores.
#
#   bash scripts/run.sh                 # default: bench --poses 20000 --baseline fcl, then the demo
#   bash scripts/run.sh --quick --json  # any arguments replace the defaults: the bench only (docs/cli.md)
# Environment: DIFFCOL_BENCH_POSES (default 20000), BUILD_DIR (default build).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export BUILD_DIR="${BUILD_DIR:-build}"
bash scripts/setup.sh

BIN="$BUILD_DIR/apps/diffcol"
if [[ ! -x "$BIN" ]]; then
  echo "run.sh: $BIN was not built (is DIFFCOL_BUILD_APPS on?)" >&2
  exit 1
fi

if (($# > 0)); then
  echo "run.sh: $BIN bench $*"
  exec "$BIN" bench "$@"
fi
args=(--poses "${DIFFCOL_BENCH_POSES:-20000}" --baseline fcl)
echo "run.sh: $BIN bench ${args[*]}"
"$BIN" bench "${args[@]}"
echo "run.sh: $BIN demo ten-bodies --out ten-bodies.html"
exec "$BIN" demo ten-bodies --out ten-bodies.html
