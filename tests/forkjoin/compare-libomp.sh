#!/bin/sh
# compare-libomp.sh - a measurement, not a test: the wall time of the
# forkjoin test programs on 1 node x 2 threads with dsmomp (dsmcc,
# dsmrun -n 1 -t 2) against the same sources built with plain
# clang -fopenmp (libomp, OMP_NUM_THREADS=2), so that "the shared-memory
# case stays cheap" has a figure.  Prints a table of medians.
#
#   tests/forkjoin/compare-libomp.sh [BUILD_DIR [RUNS]]
#
# BUILD_DIR: a configured and built meson build directory (default: build);
# RUNS: runs per program and runtime (default 7).  OMP_WAIT_POLICY is
# passed through unchanged to both runtimes and printed.  The dsmomp time
# includes dsmrun starting the node and the runtime's start-up (UCX): the
# first row, a program with one parallel region (omp_exit), measures that,
# and the last column subtracts it from each program's time.
build=${1:-build}
runs=${2:-7}
dir=$build/tests/forkjoin
dsmrun=$build/runtime/launcher/dsmrun
if [ ! -x "$dsmrun" ]; then
    echo "compare-libomp: no $dsmrun: build first" >&2
    exit 2
fi

now_us() { echo $(($(date +%s%N) / 1000)); }

# median of the numbers on standard input
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# time_runs COMMAND...: RUNS wall times in microseconds, one a line
time_runs() {
    i=0
    while [ $i -lt "$runs" ]; do
        t0=$(now_us)
        if ! "$@" >/dev/null 2>&1; then
            echo "compare-libomp: $* failed" >&2
            exit 1
        fi
        t1=$(now_us)
        echo $((t1 - t0))
        i=$((i + 1))
    done
}

echo "1 node x 2 threads, median of $runs runs," \
     "OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)}"
startup=$(time_runs env DSM_TIMEOUT=20 "$dsmrun" -n 1 -t 2 "$dir/omp_exit" \
          return 0 | median)
printf '%-16s %10s %10s %7s %18s\n' program 'dsmomp ms' 'libomp ms' ratio \
       'dsmomp-startup ms'
awk -v d="$startup" 'BEGIN {printf "%-16s %10.1f\n", "start-up", d / 1000}'
for omp in "$dir"/omp_*_libomp; do
    name=$(basename "$omp" _libomp)
    [ -x "$dir/$name" ] || continue
    d=$(time_runs env DSM_TIMEOUT=20 "$dsmrun" -n 1 -t 2 "$dir/$name" | median)
    l=$(time_runs env OMP_NUM_THREADS=2 "$omp" | median)
    awk -v n="$name" -v d="$d" -v l="$l" -v s="$startup" \
        'BEGIN {printf "%-16s %10.1f %10.1f %7.1f %18.1f\n", n, d / 1000,
                l / 1000, d / l, (d - s) / 1000}'
done
