#!/usr/bin/env bash
# run-main.sh - set up (packages, build) and run the main job: an
# application on two local nodes started by dsmrun, with its statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
builddir=${DSM_BUILDDIR:-build}
echo "== heat diffusion on the DSM API, 2 local nodes x 1 thread =="
DSM_STATS=1 "$builddir/runtime/launcher/dsmrun" -n 2 "$builddir/apps/heat_dsm" 2000000 200
