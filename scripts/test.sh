#!/usr/bin/env bash
# test.sh - set up (packages, build) and run every test suite.
# Exit status is meson test's: non-zero when any test fails.  The last line
# is the plain summary "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
builddir=${DSM_BUILDDIR:-build}
status=0
meson test -C "$builddir" --print-errorlogs --num-processes 2 "$@" || status=$?
log="$builddir/meson-logs/testlog.txt"
if [ -f "$log" ]; then
  count() { awk -v k="$1" '$1 == k { v = $NF } END { print v + 0 }' "$log"; }
  passed=$(( $(count 'Ok:') + $(count 'Expected') ))
  failed=$(( $(count 'Fail:') + $(count 'Unexpected') + $(count 'Timeout:') ))
  echo "tests: $passed passed, $failed failed"
fi
exit "$status"
