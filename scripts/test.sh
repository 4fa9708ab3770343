#!/usr/bin/env bash
# test.sh - set up (packages, build) and run every test suite.
# Exit status is meson test's: non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
builddir=${DSM_BUILDDIR:-build}
meson test -C "$builddir" --print-errorlogs --num-processes 2 "$@"
