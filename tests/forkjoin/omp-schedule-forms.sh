#!/bin/sh
# omp-schedule-forms.sh - runs omp_api_schedule under every form of
# OMP_SCHEDULE (each kind, with no chunk, chunk 1 and chunk 5, with no
# modifier, monotonic: and nonmonotonic:, and in other letter cases) with
# dsmomp on NODES x THREADS and with libomp, through libomp-crosscheck.sh:
# the result lines (omp_get_schedule's answers, before and after every
# omp_set_schedule combination) must be identical.
#
#   omp-schedule-forms.sh CROSSCHECK DSMRUN NODES THREADS DSMOMP_PROGRAM \
#                         LIBOMP_PROGRAM
#
# Test helper, suite 'forkjoin'.  Exit status 0 when every form matched.
crosscheck=$1 dsmrun=$2 nodes=$3 threads=$4 dsm_prog=$5 omp_prog=$6
failed=0 forms=0
for modifier in '' monotonic: nonmonotonic:; do
    for kind in static dynamic guided auto; do
        for chunk in '' ,1 ,5; do
            set -- "$@" "$modifier$kind$chunk"
        done
    done
done
shift 6
for form in "$@" DYNAMIC Guided,3 MONOTONIC:dynamic,50 Monotonic:Auto; do
    forms=$((forms + 1))
    if ! out=$(OMP_SCHEDULE=$form sh "$crosscheck" "$dsmrun" "$nodes" \
               "$threads" "$dsm_prog" "$omp_prog" 2>&1); then
        printf 'OMP_SCHEDULE=%s: differs or failed:\n%s\n' "$form" "$out"
        failed=$((failed + 1))
    else
        printf 'OMP_SCHEDULE=%s: %s\n' "$form" \
               "$(printf '%s\n' "$out" | grep '^result: OMP_SCHEDULE')"
    fi
done
echo "omp-schedule-forms: $failed of $forms forms failed"
[ $failed -eq 0 ]
