#!/bin/sh
# expect-unsupported.sh - runs omp_unsupported for one construct under
# dsmrun and checks that the job fails with "dsmomp: WHAT is not supported"
# on stderr.
#
#   expect-unsupported.sh DSMRUN NODES PROGRAM CONSTRUCT 'MESSAGE PART'
#
# Test helper, suite 'forkjoin'.  Exit status 0 when the job failed with
# the message.
dsmrun=$1 nodes=$2 program=$3 construct=$4 message=$5
err=$("$dsmrun" -n "$nodes" -t 1 "$program" "$construct" 2>&1 >/dev/null)
status=$?
printf '%s\n' "$err"
if [ $status -eq 0 ]; then
    echo "expect-unsupported: $construct: the job succeeded" >&2
    exit 1
fi
case $err in
*"dsmomp: $message is not supported"*) exit 0 ;;
esac
echo "expect-unsupported: $construct: no 'dsmomp: $message is not" \
     "supported' message (exit status $status)" >&2
exit 1
