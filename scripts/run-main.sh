#!/usr/bin/env bash
# run-main.sh - set up (packages, build) and run the main job: the Jacobi
# solver (apps/jacobi_omp.c, an ordinary OpenMP program built with dsmcc)
# on two local nodes started by dsmrun, with its DSM statistics, and its
# MPI equivalent (apps/jacobi_mpi.c) on two MPICH ranks beside it; both
# print time, residual and checksum, then the ratio of the times.
# Usage: scripts/run-main.sh [SIZE [ITERATIONS]]   (defaults 1000 100)
# DSM_BUILDDIR picks the build directory (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
builddir=${DSM_BUILDDIR:-build}
size=${1:-1000}
iterations=${2:-100}

echo "== Jacobi ${size}x${size}, ${iterations} sweeps: dsmomp, 2 local nodes x 1 thread =="
dsm=$(DSM_STATS=1 "$builddir/runtime/launcher/dsmrun" -n 2 -t 1 \
      "$builddir/apps/jacobi_dsm" -n "$size" -k "$iterations" -v region)
echo "$dsm"
echo "== the same with MPICH, 2 ranks =="
mpi=$(mpiexec -n 2 "$builddir/apps/jacobi_mpi" -n "$size" -k "$iterations")
echo "$mpi"

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
awk -v d="$(field time "$dsm")" -v m="$(field time "$mpi")" \
    -v rd="$(field checksum "$dsm")" -v rm="$(field checksum "$mpi")" \
    'BEGIN { same = (rd - rm) ^ 2 <= (1e-9 * rm) ^ 2
             printf "dsmomp/MPI time: %.2f; checksums %s\n", d / m,
                    same ? "agree" : "DIFFER"
             exit same ? 0 : 1 }'
