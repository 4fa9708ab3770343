#!/bin/sh
# usage_error.sh - runs a command that is given bad input and checks that
# it exits with status 2 after exactly one line on stderr (lines from the
# launcher, "dsmrun: ...", naming the node that ended the job, aside).
# Test helper for tests/apps (suite 'apps').  Usage: usage_error.sh CMD...
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
"$@" >/dev/null 2>"$err"
status=$?
lines=$(grep -vc '^dsmrun: ' "$err")
cat "$err" >&2
if [ "$status" -ne 2 ]; then
    echo "usage_error: '$*' exited $status, expected 2" >&2
    exit 1
fi
if [ "$lines" -ne 1 ]; then
    echo "usage_error: '$*' wrote $lines lines on stderr, expected 1" >&2
    exit 1
fi
exit 0
