#!/bin/sh
# crosscheck.sh - one corpus test: runs a program built by dsmcc under
# dsmrun on NODES x THREADS, and the same source built by plain
# clang -fopenmp (libomp) with OMP_NUM_THREADS = NODES * THREADS, and
# requires both to exit 0 and to print the same, non-empty, "result:"
# lines on stdout.
#
#   crosscheck.sh DSMRUN NODES THREADS DSMOMP_PROGRAM LIBOMP_PROGRAM \
#                 [NAME=VALUE...]
#
# The environment (OMP_SCHEDULE, DSM_TIMEOUT, ...) reaches both runs; the
# NAME=VALUE arguments are set for the libomp run only.  Test helper,
# suite 'programs' (tests/programs/meson.build); run-corpus.sh does the
# same outside meson.  Exit status 0 when the results agree.
dsmrun=$1 nodes=$2 threads=$3 dsm_prog=$4 omp_prog=$5
shift 5

dsm_out=$("$dsmrun" -n "$nodes" -t "$threads" "$dsm_prog")
status=$?
if [ $status -ne 0 ]; then
    echo "crosscheck: the dsmomp run failed (exit status $status)" >&2
    exit 1
fi
omp_out=$(env OMP_NUM_THREADS=$((nodes * threads)) "$@" "$omp_prog")
status=$?
if [ $status -ne 0 ]; then
    echo "crosscheck: the reference run (libomp, libgomp) failed (exit status $status)" >&2
    exit 1
fi
dsm_results=$(printf '%s\n' "$dsm_out" | grep '^result:')
omp_results=$(printf '%s\n' "$omp_out" | grep '^result:')
if [ -z "$dsm_results" ]; then
    echo "crosscheck: the program printed no result lines" >&2
    exit 1
fi
if [ "$dsm_results" != "$omp_results" ]; then
    echo "crosscheck: results differ (dsmomp, then libomp):" >&2
    printf '%s\n----\n%s\n' "$dsm_results" "$omp_results" >&2
    exit 1
fi
printf '%s\n' "$dsm_results"
echo "crosscheck: $(printf '%s\n' "$dsm_results" | wc -l) result lines" \
     "identical"
