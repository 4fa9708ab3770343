#!/bin/sh
# check_ir.sh - run a command that prints LLVM IR (clang -S -emit-llvm -o -,
# or opt -S) and check the output with FileCheck against the CHECK lines of
# a test file.  The atomic suite's tests of the dsm-atomic plug-in.
#
# Usage: check_ir.sh [--expect-error] [--no-native-atomics]
#                    FILECHECK TESTFILE PREFIXES -- COMMAND [ARGS...]
#   PREFIXES             FileCheck's --check-prefixes (comma-separated)
#   --expect-error       COMMAND must fail; its standard error is checked
#                        (otherwise it must succeed; standard output checked)
#   --no-native-atomics  also fail on any atomic instruction or libatomic
#                        call left anywhere in the output
set -u
expect_error=0
no_native=0
while :; do
    case ${1-} in
    --expect-error) expect_error=1; shift ;;
    --no-native-atomics) no_native=1; shift ;;
    *) break ;;
    esac
done
if [ $# -lt 5 ] || [ "$4" != -- ]; then
    echo "check_ir.sh: usage: check_ir.sh [options] FILECHECK TESTFILE PREFIXES -- COMMAND..." >&2
    exit 2
fi
filecheck=$1
testfile=$2
prefixes=$3
shift 4

out=$(mktemp) || exit 2
err=$(mktemp) || exit 2
trap 'rm -f "$out" "$err"' EXIT

"$@" >"$out" 2>"$err"
status=$?
echo "check_ir.sh: $* -> exit status $status"
checked=$out
if [ $expect_error -eq 1 ]; then
    [ $status -ne 0 ] || { echo "check_ir.sh: expected a failure"; exit 1; }
    checked=$err
elif [ $status -ne 0 ]; then
    cat "$err"
    echo "check_ir.sh: the command failed"
    exit 1
fi

if [ $no_native -eq 1 ]; then
    set -- '--implicit-check-not== atomicrmw ' \
        '--implicit-check-not== cmpxchg ' \
        '--implicit-check-not=load atomic ' \
        '--implicit-check-not=store atomic ' \
        '--implicit-check-not=@__atomic_'
else
    set --
fi
"$filecheck" --input-file="$checked" --check-prefixes="$prefixes" "$@" \
    "$testfile"
