#!/bin/sh
# expect-fatal.sh - runs PROGRAM ARG under dsmrun on NODES x 1 and checks
# that the job fails with a node's "fatal: MESSAGE" line on stderr:
# for the calls that must end the job with a message (an impossible
# request, a routine or construct with no meaning across nodes).  MESSAGE
# is a shell pattern (* matches anything).
#
#   expect-fatal.sh DSMRUN NODES PROGRAM ARG 'MESSAGE PATTERN'
#
# Test helper, suite 'forkjoin'.  Exit status 0 when the job failed with
# the message.
dsmrun=$1 nodes=$2 program=$3 arg=$4 message=$5
err=$("$dsmrun" -n "$nodes" -t 1 "$program" "$arg" 2>&1 >/dev/null)
status=$?
printf '%s\n' "$err"
if [ $status -eq 0 ]; then
    echo "expect-fatal: $arg: the job succeeded" >&2
    exit 1
fi
case $err in
*"fatal: "$message*) exit 0 ;;
esac
echo "expect-fatal: $arg: no 'fatal: $message' message (exit status" \
     "$status)" >&2
exit 1
