#!/usr/bin/env bash
# test.sh - set up (packages, build) and run every test suite, twice:
#   1. the normal build (./build, or DSM_BUILDDIR): every suite, the
#      libFuzzer harnesses (suite 'fuzz') included;
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build (./build-asan,
#      or TEST_ASAN_BUILDDIR) with the protocol's invariant checks compiled
#      in (-Dinvariants=true): every suite again, the fuzzers left out (they
#      carry both sanitizers in either build).
# TEST_SANITIZE=0 skips the second run (a quicker local check; CI runs
# both).  Extra arguments go to both `meson test` runs (--suite X, names).
# See doc/reliability.md, "Sanitizers" and "Fuzzing".
#
# Exit status: non-zero when any test of either run fails.  The last line
# is the plain summary "tests: N passed, N failed" over both runs; just
# before it, every failed test is named with the end of its output (CI
# shows only the end of this script's output).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
builddir=${DSM_BUILDDIR:-build}
asandir=${TEST_ASAN_BUILDDIR:-build-asan}

passed=0
failed=0
status=0
failures=$(mktemp)
trap 'rm -f "$failures"' EXIT
# note_failures DIR LABEL: append each failed test of DIR's last run, with
# the last lines of its output, to $failures
note_failures() {
  local json="$1/meson-logs/testlog.json"
  [ -f "$json" ] || return 0
  if python3 - "$json" "$2" >> "$failures" <<'PY'
import json, sys
bad = {"FAIL", "TIMEOUT", "UNEXPECTEDPASS", "ERROR"}
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get("result") not in bad:
        continue
    print(f"-- {sys.argv[2]}: {t['name']}: {t['result']} "
          f"(exit {t.get('returncode')}, {t.get('duration', 0):.1f} s)")
    out = ((t.get("stdout") or "").splitlines() +
           (t.get("stderr") or "").splitlines())
    for text in out[-12:]:
        print("   " + text[:200])
PY
  then :; else echo "-- $2: (the failed tests could not be listed)" >> "$failures"; fi
}
# run_suite DIR LABEL [meson test arguments...]: run, then add its counts
run_suite() {
  local dir=$1 label=$2
  shift 2
  echo "== test.sh: $label ($dir)"
  local start=$SECONDS
  local log="$dir/meson-logs/testlog.txt"
  rm -f "$log" "$dir/meson-logs/testlog.json"   # no test run: count nothing
  meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" || status=1
  if [ -f "$log" ]; then
    count() { awk -v k="$1" '$1 == k { v = $NF } END { print v + 0 }' "$log"; }
    local p=$(( $(count 'Ok:') + $(count 'Expected') ))
    local f=$(( $(count 'Fail:') + $(count 'Unexpected') + $(count 'Timeout:') ))
    echo "== test.sh: $label: $p passed, $f failed in $((SECONDS - start)) s"
    passed=$((passed + p))
    failed=$((failed + f))
  fi
  note_failures "$dir" "$label"
}

run_suite "$builddir" "normal build" "$@"

if [ "${TEST_SANITIZE:-1}" != 0 ]; then
  # -Db_lundef=false: libdsmomp.so leaves the sanitizer runtime's symbols
  # undefined; the executable that loads it provides them.
  if [ ! -f "$asandir/build.ninja" ]; then
    CC=clang meson setup "$asandir" -Db_sanitize=address,undefined \
      -Db_lundef=false -Dfuzzers=disabled -Dinvariants=true
  else
    meson configure "$asandir" -Dinvariants=true
  fi
  start=$SECONDS
  meson compile -C "$asandir"
  echo "== test.sh: sanitizer build compiled in $((SECONDS - start)) s"
  run_suite "$asandir" "AddressSanitizer + UndefinedBehaviorSanitizer build" "$@"
fi

if [ -s "$failures" ]; then
  echo "== test.sh: the failed tests"
  cat "$failures"
fi
echo "tests: $passed passed, $failed failed"
exit "$status"
