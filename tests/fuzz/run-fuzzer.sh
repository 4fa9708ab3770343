#!/bin/sh
# run-fuzzer.sh - run one libFuzzer harness for a fixed number of inputs,
# starting from its seed corpus, without writing to the source tree.
#
#   run-fuzzer.sh FUZZER SEED_CORPUS_DIR RUNS [libFuzzer options...]
#
# New inputs go to a temporary directory (removed afterwards); a crashing
# input is saved as FUZZER-crash-* next to the fuzzer, for adding to the
# corpus once the bug is fixed.  The seed is fixed (FUZZ_SEED, default 1)
# so that CI runs the same inputs every time; set FUZZ_SEED to explore.
# Exit status: the fuzzer's (0 when no check failed).
set -eu
fuzzer=$1
corpus=$2
runs=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/dsm-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
status=0
"$fuzzer" -runs="$runs" -seed="${FUZZ_SEED:-1}" -print_final_stats=1 \
    -artifact_prefix="$fuzzer-" "$@" "$work" "$corpus" || status=$?
exit "$status"
