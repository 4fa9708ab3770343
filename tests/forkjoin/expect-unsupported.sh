#!/bin/sh
# expect-unsupported.sh - runs omp_unsupported for one construct under
# dsmrun and checks that the job fails with "dsmomp: WHAT is not supported
# (in FUNCTION...)" (through expect-fatal.sh); with SOURCE, the message
# must also end its place with "FILE:LINE", the line of SOURCE that carries
# the comment "here: CONSTRUCT" (the program was built with -g).
#
#   expect-unsupported.sh DSMRUN NODES PROGRAM CONSTRUCT 'MESSAGE PART' \
#                         [FUNCTION [SOURCE]]
#
# Test helper, suite 'forkjoin'.  Exit status 0 when the job failed with
# the message.
dsmrun=$1 nodes=$2 program=$3 construct=$4 message=$5 function=$6 source=$7
want="dsmomp: $message is not supported"
if [ -n "$function" ]; then
    want="$want (in $function"
    if [ -n "$source" ]; then
        line=$(grep -n "here: $construct " "$source" | cut -d: -f1)
        if [ -z "$line" ]; then
            echo "expect-unsupported: no 'here: $construct' in $source" >&2
            exit 1
        fi
        want="$want, *$(basename "$source"):$line)"
    else
        want="$want)"
    fi
fi
exec sh "$(dirname "$0")/expect-fatal.sh" "$dsmrun" "$nodes" "$program" \
    "$construct" "$want"
