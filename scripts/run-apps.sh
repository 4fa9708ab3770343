#!/usr/bin/env bash
# run-apps.sh - the application comparison in one command: each kernel
# (Jacobi, SpMV, GMRES) on the same problem with libomp (1 process),
# dsmomp (1 and N nodes, dsmrun) and MPICH (N x T ranks), and SpMV's C++
# port (dsmc++, libomp) beside its C version; prints a table
# with speed-ups, ratios and the DSM statistics of every run, checks that
# all answers agree and the targets, and writes apps.json and apps.png.
# Builds first (scripts/setup.sh; DSM_SKIP_SETUP=1 skips it).
#
# Usage: scripts/run-apps.sh [--nodes N] [--threads T] [--repeat R]
#          [--kernels jacobi,spmv,gmres] [--out DIR]
#          [--jacobi-n SIZE] [--jacobi-k ITERATIONS]
#          [--spmv-matrix lap7|lap27|band] [--spmv-s SIZE] [--spmv-k ITER]
#          [--gmres-matrix lap7|lap27|band] [--gmres-s SIZE] [--gmres-m M]
# Defaults fit a 2-core machine: 2 nodes x 1 thread, best of 5 (taken in
# rounds: every version once per round); Jacobi
# 1000^2 x 100 sweeps; SpMV on the 7-point Laplacian of a 64^3 grid x 100;
# GMRES(30) to 1e-8 on that of a 32^3 grid.  DSM_BUILDDIR picks the build
# directory (default build).  Exit status 0 when every run succeeded and
# all agreed (a missed target is reported, not an error).
set -euo pipefail
cd "$(dirname "$0")/.."
builddir=${DSM_BUILDDIR:-build}
if [ -z "${DSM_SKIP_SETUP:-}" ]; then
  DSM_BUILDDIR=$builddir scripts/setup.sh
fi
# Debian's python3 is the one setup.sh gives matplotlib.
python=/usr/bin/python3
[ -x "$python" ] || python=python3
exec "$python" apps/compare.py --builddir "$builddir" "$@"
