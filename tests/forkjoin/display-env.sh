#!/bin/sh
# display-env.sh - OMP_DISPLAY_ENV at start-up: with true, node 0 (and no
# other node) prints the OpenMP version, the ICVs and the layout once; with
# verbose, also dsmomp's settings; with false, nothing.
#
#   display-env.sh DSMRUN PROGRAM
#
# Test helper, suite 'forkjoin'.  Exit status 0 when every case printed
# what it should and the program succeeded.
dsmrun=$1 program=$2
fail() { echo "display-env: $*" >&2; exit 1; }
count() { printf '%s\n' "$1" | grep -c "$2"; }

err=$(OMP_DISPLAY_ENV=true "$dsmrun" -n 3 -t 2 "$program" 2>&1 >/dev/null) ||
    fail "the job with OMP_DISPLAY_ENV=true failed: $err"
printf '%s\n' "$err"
[ "$(count "$err" '^OPENMP DISPLAY ENVIRONMENT BEGIN$')" -eq 1 ] ||
    fail "true: not exactly one block"
[ "$(count "$err" '^OPENMP DISPLAY ENVIRONMENT END$')" -eq 1 ] ||
    fail "true: no end of the block"
for line in "  _OPENMP='201811'" "  \[host\] OMP_NUM_THREADS='6'" \
            "  \[host\] OMP_PLACES='{0:[0-9]*},{[0-9]*:[0-9]*},{" \
            "  \[host\] DSM_SIZE='3'" "  \[host\] DSM_THREADS='2'" \
            "  \[host\] OMP_DISPLAY_ENV='TRUE'"; do
    [ "$(count "$err" "^$line")" -eq 1 ] || fail "true: no line $line"
done
[ "$(count "$err" 'DSM_REGION_BASE')" -eq 0 ] ||
    fail "true: dsmomp's settings shown without verbose"

err=$(OMP_DISPLAY_ENV=verbose OMP_SCHEDULE=monotonic:dynamic,3 \
      "$dsmrun" -n 2 -t 1 "$program" 2>&1 >/dev/null) ||
    fail "the job with OMP_DISPLAY_ENV=verbose failed: $err"
for line in "  \[host\] DSM_REGION_BASE='0x" "  \[host\] DSM_TIMEOUT='" \
            "  \[host\] OMP_SCHEDULE='monotonic:dynamic,3'" \
            "  \[host\] OMP_DISPLAY_ENV='VERBOSE'"; do
    [ "$(count "$err" "^$line")" -eq 1 ] || fail "verbose: no line $line"
done

err=$(OMP_DISPLAY_ENV=false "$dsmrun" -n 2 -t 1 "$program" 2>&1 >/dev/null) ||
    fail "the job with OMP_DISPLAY_ENV=false failed: $err"
[ "$(count "$err" 'OPENMP DISPLAY')" -eq 0 ] || fail "false: a block"
echo "display-env: true, verbose and false as expected"
