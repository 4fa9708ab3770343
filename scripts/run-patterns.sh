#!/usr/bin/env bash
# run-patterns.sh - the patterns benchmark of issue 19 in one command:
# ordinary OpenMP kernels in the shapes a DSM finds hard (bench/patterns:
# adi, fft, mg, cg, wavefront, tiny, reduce, ep) and the three
# applications (apps/: jacobi, spmv, gmres), each as
#
#   libomp 1x1 and 1x2            (clang -fopenmp, OMP_NUM_THREADS)
#   dsmomp 2x1 on one host        (dsmrun -n 2)
#   dsmomp 2x1 across two hosts   (dsmrun --hosts over ssh, UCX_TLS=tcp)
#   MPI 2 ranks, one host and across the hosts, where an equivalent
#   exists (tiny: MPI_Bcast + MPI_Barrier; reduce: MPI_Allreduce; the
#   applications' *_mpi)
#
# in one session, in rounds (every run once per round), the median per
# configuration.  The hosts are network namespaces of tests/hosts/netns.sh
# (a bridge, an sshd in each), as in scripts/run-hosts-bench.sh; MPICH
# starts there with hydra's ssh launcher.  Every run checks its own
# answer; a run that fails or hangs is kept in the table as such.
# Writes OUTDIR/table.md (time per step, ratio to libomp 1x2, the DSM
# statistics per step of every dsmomp run), patterns.json, patterns.png
# and raw/ (every run's output and DSM_STATS_FILE).  Needs root for the
# hosts; --no-hosts leaves the TCP columns out.
#
# Usage: scripts/run-patterns.sh [--no-hosts] [OUTDIR] [driver options]
#   (default OUTDIR: BUILD/patterns-results).  Driver options
#   (bench/patterns/run_patterns.py --help): --repeats R (rounds, default
#   3), --budget S (seconds of timed steps per pattern run, default 1),
#   --kernels adi,fft,... , --size 'adi=-n 64', --wait-policy
#   active|passive|unset (default active), --timeout S (a run longer than
#   this counts as hung, default 60).
# Environment: DSM_BUILDDIR (default build); DSM_SKIP_SETUP=1 skips
# scripts/setup.sh (package check and build).
# Exit status: 0 when every run succeeded, 1 when one failed, 2 bad usage.
set -eo pipefail
cd "$(dirname "$0")/.."
builddir=${DSM_BUILDDIR:-build}
hosts=1
if [ "${1:-}" = --no-hosts ]; then
  hosts=0
  shift
fi
out=$builddir/patterns-results
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  out=$1
  shift
fi
if [ -z "${DSM_SKIP_SETUP:-}" ]; then
  DSM_BUILDDIR=$builddir scripts/setup.sh >/dev/null
fi
for p in runtime/launcher/dsmrun bench/patterns/adi_dsm \
         bench/patterns/adi_libomp bench/patterns/tiny_mpi apps/jacobi_dsm; do
  [ -x "$builddir/$p" ] || { echo "run-patterns: $builddir/$p is not built" >&2; exit 2; }
done
mkdir -p "$out"
python=/usr/bin/python3
[ -x "$python" ] || python=python3

host_options=()
if [ $hosts = 1 ]; then
  command -v mpiexec >/dev/null || { echo "run-patterns: no mpiexec" >&2; exit 2; }
  [ "$(id -u)" -eq 0 ] ||
    { echo "run-patterns: the hosts need root (network namespaces); --no-hosts leaves them out" >&2; exit 2; }
  . tests/hosts/netns.sh
  hosts_require_root
  hosts_create 2
  hosts_start_sshd
  set +u
  printf '#!/bin/sh\nexec %s "$@"\n' "$DSM_SSH" > "$HOSTS_TMP/ssh-for-mpi"
  chmod +x "$HOSTS_TMP/ssh-for-mpi"
  host_options=(--ns1 "${HOSTS_NS[1]}" --ns2 "${HOSTS_NS[2]}"
                --hosts "${HOSTS_ADDR[1]},${HOSTS_ADDR[2]}"
                --mpi-ssh "$HOSTS_TMP/ssh-for-mpi")
fi
# not exec: the EXIT trap of netns.sh removes the hosts afterwards
"$python" bench/patterns/run_patterns.py --builddir "$builddir" --out "$out" \
  "${host_options[@]}" "$@"
