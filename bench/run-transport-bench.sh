#!/bin/sh
# run-transport-bench.sh - the transport layer's latencies beside raw UCX,
# measured in one run on this machine.
#
# Usage: bench/run-transport-bench.sh BUILD_DIR [ITERATIONS] [REPEATS]
#   BUILD_DIR   a configured and built meson build directory
#   ITERATIONS  per figure (default 100000)
#   REPEATS     each program runs this many times and the median of its
#               means is shown, on every side alike (default 5): the
#               machine is shared, and single runs are noisy both ways
#
# Columns, mean latency in microseconds:
#   dsmomp      bench/transport_bench under dsmrun -n 2 (two nodes, one
#               machine, UCX's default transports: shared memory)
#   perftest    ucx_perftest on localhost: ucp_am_lat -s 8 for the
#               ping-pong, ucp_get -s 4096 -O 1, ucp_fadd -s 8 -O 1.
#               perftest lets UCX allocate its buffers; on shared memory
#               UCX then maps them and reads/writes directly (rkey_ptr)
#   raw UCP     bench/transport_raw_ucx: the same operations written
#               directly against UCP on the same kind of memory the
#               transport registers (memfd region, heap control words);
#               for such memory UCX 1.13 on shared memory has no
#               one-sided path and serves get and atomics through the
#               target's progress.  Single-threaded worker, no wake-up
#   raw mt      the same with the worker the transport needs: thread
#               mode MULTI and the wake-up feature
# Ratios are dsmomp / other.  Waiting: every side polls (dsmomp waits
# inside the runtime; its progress thread sleeps meanwhile); the "node 1
# idle" rows have node 1's application thread asleep, so only its
# progress thread serves.
set -eu

build=${1:?usage: run-transport-bench.sh BUILD_DIR [ITERATIONS] [REPEATS]}
iters=${2:-100000}
repeats=${3:-5}
dsmrun=$build/runtime/launcher/dsmrun
bench=$build/bench/transport_bench
raw=$build/bench/transport_raw_ucx
for f in "$dsmrun" "$bench" "$raw"; do
    [ -x "$f" ] || { echo "missing $f: build first" >&2; exit 2; }
done
command -v ucx_perftest >/dev/null ||
    { echo "ucx_perftest not found (Debian package ucx-utils)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results=$work/results          # lines: name value
: >"$results"

# Record the RESULT lines of a program.
record() {
    while read -r tag name value _; do
        # an if, not [ ] &&: a last line that is no RESULT (PERCENTILES)
        # would be the function's status, and set -e would end the script
        if [ "$tag" = RESULT ]; then
            echo "$name $value" >>"$results"
        fi
    done
}

port=$((30000 + $$ % 20000))

# perftest NAME ARGS...: one server/client pair; records NAME's average
# latency (third number of the final line).  A port someone else holds
# makes the server exit at once: then the next port is tried.
perftest() {
    name=$1
    shift
    attempts=0
    while :; do
        attempts=$((attempts + 1))
        port=$((port + 1))
        ucx_perftest -p "$port" >"$work/server.out" 2>&1 &
        server=$!
        tries=0
        ok=1
        n=${perftest_iters:-$iters}
        until ucx_perftest 127.0.0.1 -p "$port" "$@" -n "$n" \
                -w "$((n / 10))" -f >"$work/client.out" 2>&1; do
            tries=$((tries + 1))
            if ! kill -0 "$server" 2>/dev/null || [ $tries -ge 50 ]; then
                ok=0
                break
            fi
            sleep 0.1   # the server is not listening yet
        done
        if [ $ok = 1 ]; then
            wait "$server" || true
            break
        fi
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        if [ $attempts -ge 5 ]; then
            echo "ucx_perftest $* failed:" >&2
            cat "$work/client.out" "$work/server.out" >&2
            return 1
        fi
    done
    value=$(awk '$1 ~ /^[0-9]+$/ { v = $3 } $1 == "Final:" { v = $4 }
                 END { print v }' "$work/client.out")
    echo "$name $value" >>"$results"
}

echo "transport benchmark: $iters iterations, median of $repeats runs," \
     "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "UCX: $(ucx_info -v | sed -n 's/^# Version //p'), UCX_TLS=${UCX_TLS:-default}"
i=0
while [ $i -lt "$repeats" ]; do
    i=$((i + 1))
    "$dsmrun" -n 2 "$bench" "$iters" | record
    "$raw" "$iters" | record
    "$raw" "$iters" mt | record
    perftest perftest_am_lat_8 -t ucp_am_lat -s 8
    perftest perftest_get_4k -t ucp_get -s 4096 -O 1
    perftest perftest_fadd64 -t ucp_fadd -s 8 -O 1
    # a prefetch run's size, fewer iterations (as transport_bench)
    perftest_iters=$((iters / 50))
    perftest perftest_get_256k -t ucp_get -s 262144 -O 1
    unset perftest_iters
done

median() {
    awk -v n="$1" '$1 == n { print $2 }' "$results" | sort -g >"$work/values"
    count=$(wc -l <"$work/values")
    if [ "$count" -eq 0 ]; then
        echo -
    else
        sed -n "$(( (count + 1) / 2 ))p" "$work/values"
    fi
}

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a == "-" || b == "-" || b + 0 == 0) print "-";
        else printf "%.2f", a / b }'
}

FORMAT='%-28s %8s %9s %6s %8s %6s %8s %6s\n'

# row LABEL OURS PERFTEST RAW (RAW_mt is the multi-thread raw figure)
row() {
    ours=$(median "$2")
    pt=$(median "$3")
    rw=$(median "$4")
    mt=$(median "$4_mt")
    printf "$FORMAT" "$1" "$ours" "$pt" "$(ratio "$ours" "$pt")" \
        "$rw" "$(ratio "$ours" "$rw")" "$mt" "$(ratio "$ours" "$mt")"
}

echo
printf "$FORMAT" operation dsmomp perftest ratio 'raw UCP' ratio \
    'raw mt' ratio
printf "$FORMAT" '' us us '' us '' us ''
row 'AM ping-pong 8 B (half RTT)' am_lat_8 perftest_am_lat_8 raw_am_lat_8
row '  reply from the handler' am_lat_8_hdl perftest_am_lat_8 raw_am_lat_8
row 'get 4 KiB' get_4k perftest_get_4k raw_get_4k
row '  node 1 idle' get_4k_idle perftest_get_4k raw_get_4k
row 'get 256 KiB' get_256k perftest_get_256k raw_get_256k
row 'atomic fetch-add 64-bit' fadd64 perftest_fadd64 raw_fadd64
row '  node 1 idle' fadd64_idle perftest_fadd64 raw_fadd64
