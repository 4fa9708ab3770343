#!/bin/sh
# fortran-modules.sh - runs a Fortran compile command with its module files
# (.mod) in a directory of their own: gfortran writes them to the current
# directory, where two programs built at the same time (one source built by
# dsmfort and by gfortran, two programs with a module of the same name)
# would overwrite each other's.  A build helper of meson's custom targets
# (tests/programs, tests/apps, apps).
#
#   fortran-modules.sh DIR COMPILER [ARGS...]     (adds -J DIR)
set -eu
dir=$1
shift
mkdir -p "$dir"
exec "$@" -J "$dir"
