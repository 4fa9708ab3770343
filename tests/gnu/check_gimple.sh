#!/bin/sh
# check_gimple.sh - the gnu suite's test of dsm's GCC plug-in: compiles a
# test file with gcc or gfortran (the plug-in loaded by the command given),
# checks the GIMPLE dump after the pass ("optimized") with FileCheck
# against the lines of each check prefix of the file (one FileCheck run
# per prefix: gcc orders a file's functions its own way, so each prefix
# names one function) and, with --no-native, that the
# assembly has no atomic instruction and no call to an __atomic or __sync
# builtin left.
#
# Usage: check_gimple.sh [--no-native] [--expect-error] FILECHECK TESTFILE
#                        PREFIXES -- COMPILER [ARGS...]
#   PREFIXES: comma-separated FileCheck prefixes.
#   COMPILER ARGS must compile TESTFILE; the script adds -S, -o and the
#   dump option.  --expect-error: the compiler must fail, and its standard
#   error is checked instead of the dump.
set -u
no_native=0
expect_error=0
while :; do
    case ${1-} in
    --no-native) no_native=1; shift ;;
    --expect-error) expect_error=1; shift ;;
    *) break ;;
    esac
done
if [ $# -lt 5 ] || [ "$4" != -- ]; then
    echo "check_gimple.sh: usage: check_gimple.sh [options] FILECHECK TESTFILE PREFIXES -- COMPILER..." >&2
    exit 2
fi
filecheck=$1 testfile=$2 prefixes=$3
shift 4
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
testfile=$(cd "$(dirname "$testfile")" && pwd)/$(basename "$testfile")

# in the temporary directory: gfortran writes its module files where it runs
(cd "$dir" && "$@" -S -o "$dir/out.s" -fdump-tree-optimized="$dir/out.gimple" \
    "$testfile") 2>"$dir/err"
status=$?
echo "check_gimple.sh: $* -> exit status $status"
if [ $expect_error -eq 1 ]; then
    cat "$dir/err"
    [ $status -ne 0 ] || { echo "check_gimple.sh: expected a failure"; exit 1; }
    exec "$filecheck" --input-file="$dir/err" --check-prefixes="$prefixes" \
        "$testfile"
fi
if [ $status -ne 0 ]; then
    cat "$dir/err"
    echo "check_gimple.sh: the compiler failed"
    exit 1
fi
rc=0
for prefix in $(echo "$prefixes" | tr ',' ' '); do
    "$filecheck" --input-file="$dir/out.gimple" --check-prefix="$prefix" \
        "$testfile" || rc=1
done
[ $rc -eq 0 ] || exit 1
if [ $no_native -eq 1 ]; then
    # lock-prefixed instructions, xchg and cmpxchg on memory, mfence, and
    # calls to libatomic or the builtins
    if grep -n -E '^\s+(lock\b|xchg[bwlq]?\s.*\(|cmpxchg|mfence)|call\s+_*(atomic|sync)_' \
            "$dir/out.s"; then
        echo "check_gimple.sh: native atomics left in the assembly"
        exit 1
    fi
fi
exit 0
