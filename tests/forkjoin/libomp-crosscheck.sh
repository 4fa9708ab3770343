#!/bin/sh
# libomp-crosscheck.sh - the libomp cross-check: runs one test program
# built by dsmcc under dsmrun on NODES x THREADS, and the same source built
# by plain clang -fopenmp (libomp) with OMP_NUM_THREADS = NODES * THREADS,
# and compares their "result:" lines (see omp_check.h).
#
#   libomp-crosscheck.sh DSMRUN NODES THREADS DSMOMP_PROGRAM LIBOMP_PROGRAM
#
# Test helper, suite 'forkjoin'.  Exit status 0 when both runs succeeded
# and printed the same, non-empty, result lines.
dsmrun=$1 nodes=$2 threads=$3 dsm_prog=$4 omp_prog=$5
dsm_out=$("$dsmrun" -n "$nodes" -t "$threads" "$dsm_prog") || {
    echo "libomp-crosscheck: the dsmomp run failed" >&2
    exit 1
}
omp_out=$(OMP_NUM_THREADS=$((nodes * threads)) "$omp_prog") || {
    echo "libomp-crosscheck: the libomp run failed" >&2
    exit 1
}
dsm_results=$(printf '%s\n' "$dsm_out" | grep '^result:')
omp_results=$(printf '%s\n' "$omp_out" | grep '^result:')
if [ -z "$dsm_results" ]; then
    echo "libomp-crosscheck: the program printed no result lines" >&2
    exit 1
fi
if [ "$dsm_results" != "$omp_results" ]; then
    echo "libomp-crosscheck: results differ (dsmomp, then libomp):" >&2
    printf '%s\n----\n%s\n' "$dsm_results" "$omp_results" >&2
    exit 1
fi
printf '%s\n' "$dsm_results"
echo "libomp-crosscheck: $(printf '%s\n' "$dsm_results" | wc -l) result" \
     "lines identical"
