#!/bin/sh
# expect-terminate.sh - runs cxx_escape under dsmrun on NODES x THREADS
# and checks that the job fails, that the node of thread 1 says
# std::terminate was called by that thread, and that the C++ library's
# handler named the exception.
#
#   expect-terminate.sh DSMRUN NODES THREADS PROGRAM
#
# Test helper, suite 'cxx'.  Exit status 0 when the job ended so.
dsmrun=$1 nodes=$2 threads=$3 program=$4
err=$("$dsmrun" -n "$nodes" -t "$threads" "$program" 2>&1 >/dev/null)
status=$?
printf '%s\n' "$err"
if [ $status -eq 0 ]; then
    echo "expect-terminate: the job succeeded" >&2
    exit 1
fi
for want in "std::terminate called by OpenMP thread 1 (global thread" \
            "terminate called after throwing an instance of 'std::runtime_error'" \
            "escaped from the region"; do
    case $err in
    *"$want"*) ;;
    *) echo "expect-terminate: no '$want' (exit status $status)" >&2
       exit 1 ;;
    esac
done
exit 0
