#!/bin/sh
# check_output.sh - run a command, show its output, and check its exit
# status and that its output (stdout and stderr together) contains each
# expected text.
#
# Usage: check_output.sh STATUS [-e TEXT]... -- COMMAND [ARGS...]
#   STATUS  0 (must succeed) or fail (must exit non-zero)
# Used by the transport suite for jobs whose messages matter.
set -u
want=$1
shift
texts=''
count=0
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    [ "$1" = -e ] || { echo "check_output.sh: bad argument $1" >&2; exit 2; }
    count=$((count + 1))
    eval "text_$count=\$2"
    shift 2
done
[ $# -gt 0 ] && shift
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
status=$?
cat "$out"
echo "check_output.sh: exit status $status"
rc=0
if [ "$want" = 0 ] && [ $status -ne 0 ]; then
    echo "check_output.sh: expected success"; rc=1
elif [ "$want" = fail ] && [ $status -eq 0 ]; then
    echo "check_output.sh: expected failure"; rc=1
fi
i=1
while [ $i -le $count ]; do
    eval "text=\$text_$i"
    if ! grep -qF -- "$text" "$out"; then
        echo "check_output.sh: missing in the output: $text"; rc=1
    fi
    i=$((i + 1))
done
exit $rc
