#!/bin/sh
# gnu-abi-coverage.sh - every entry point of GCC's OpenMP ABI that the
# system's libgomp exports (GOMP_*, the OpenMP API omp_* in C and
# gfortran's omp_*_ routines) is exported by libdsmomp too, so that no
# gcc- or gfortran-built OpenMP program fails to link with dsmgcc or
# dsmfort.  The plug-in interface (GOMP_PLUGIN_*), OpenACC (acc_*,
# GOACC_*) and the symbol version names are not OpenMP's.
#
#   gnu-abi-coverage.sh LIBDSMOMP [LIBGOMP]
#
# Test helper, suite 'gnu'.  Exit status 0 when nothing is missing.
dsm=$1
gomp=${2:-$(gcc -print-file-name=libgomp.so.1)}
[ -f "$gomp" ] || gomp=/usr/lib/x86_64-linux-gnu/libgomp.so.1
exported() {
    nm -D --defined-only "$1" | awk '{print $3}' | sed 's/@.*//' | sort -u
}
want=$(exported "$gomp" | grep -E '^(GOMP_|omp_)' |
       grep -v -E '^GOMP_(PLUGIN_|[0-9])')
have=$(exported "$dsm")
missing=$(printf '%s\n' "$want" | while read -r sym; do
    printf '%s\n' "$have" | grep -qx "$sym" || printf '%s\n' "$sym"
done)
count=$(printf '%s\n' "$want" | wc -l)
if [ -n "$missing" ]; then
    echo "gnu-abi-coverage: libdsmomp lacks these entries of $gomp:"
    printf '  %s\n' $missing
    exit 1
fi
echo "gnu-abi-coverage: all $count GOMP_* and omp_* entries of $gomp are exported"
