#!/usr/bin/env bash
# setup.sh - install the Debian packages dsmomp needs (only those missing),
# then configure and build it in ./build with clang.  Idempotent.
# Usage: scripts/setup.sh [extra meson setup options]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential clang libomp-dev llvm-14-dev llvm-14-tools libclang-rt-14-dev
  gfortran gcc-12-plugin-dev
  meson ninja-build pkg-config
  libucx-dev ucx-utils libsigsegv-dev libcmocka-dev
  mpich libmpich-dev
  python3 python3-matplotlib iproute2 procps
  openssh-server openssh-client munge slurmctld slurmd slurm-client
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

builddir=${DSM_BUILDDIR:-build}
if [ ! -f "$builddir/build.ninja" ]; then
  CC=clang meson setup "$builddir" "$@"
fi
meson compile -C "$builddir"
