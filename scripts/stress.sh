#!/usr/bin/env bash
# stress.sh - run every multi-node test while a CPU hog occupies every core,
# with same-host lanes and without (DSM_SAME_HOST_LANES=0), and report each
# failure.  Races that a quiet machine hides (a message that comes before
# what it asks for, a wait that depends on another node's application
# thread) show up here; see doc/reliability.md, "Stress mode".
#
# Usage: scripts/stress.sh [-n ROUNDS] [-C BUILDDIR] [-j JOBS]
#                          [-m MULTIPLIER] [--lanes both|on|off] [--no-hog]
#                          [NAME_REGEX]
#   -n ROUNDS       rounds (default 1); every round runs every selected
#                   test once per lane mode
#   -C BUILDDIR     the build to test (default ./build, or DSM_BUILDDIR)
#   -j JOBS         tests run at once (default 1); more jobs load the
#                   machine more and end a round sooner
#   -m MULTIPLIER   meson's --timeout-multiplier (default 3: a loaded
#                   machine is slow, a hang still ends as a timeout)
#   --lanes MODE    both (default), on (as the tests are defined) or off
#   --no-hog        no CPU hog (to compare)
#   NAME_REGEX      only tests whose name matches (grep -E)
# Multi-node tests: those that run dsmrun with 2 or more nodes, and those
# whose command or environment names dsmrun (the failure, hang-report,
# cross-check and usage-error scripts), in every suite but hosts, fuzz
# and soak.  Without lanes, tests that pin DSM_SAME_HOST_LANES or expect
# lanes (TT_EXPECT_LANES) are left out.
# Logs: BUILDDIR/meson-logs/stress/ROUND-MODE.txt (meson's test logs).
# Exit status: 0 when every run passed, 1 otherwise; the last line is
# "stress: R rounds, N runs, F failed".
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=1
builddir=${DSM_BUILDDIR:-build}
multiplier=3
jobs=1
lanes=both
hog=1
pattern=
while (($#)); do
  case $1 in
    -n) rounds=$2; shift 2 ;;
    -C) builddir=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -m) multiplier=$2; shift 2 ;;
    --lanes) lanes=$2; shift 2 ;;
    --no-hog) hog=0; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    -*) echo "stress: unknown option $1" >&2; exit 2 ;;
    *) pattern=$1; shift ;;
  esac
done
case $lanes in
  both) modes=(on off) ;;
  on|off) modes=("$lanes") ;;
  *) echo "stress: --lanes both, on or off" >&2; exit 2 ;;
esac
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "stress: -n needs a count" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "stress: -j needs a count" >&2; exit 2; }
[ -f "$builddir/build.ninja" ] || { echo "stress: no build in $builddir (scripts/setup.sh)" >&2; exit 2; }

meson compile -C "$builddir" > /dev/null

# select MODE: the names of the multi-node tests to run in lane mode MODE
select_tests() {
  meson introspect --tests "$builddir" | python3 -c '
import json, re, sys
mode, pattern = sys.argv[1], sys.argv[2]
WITH_VALUE = {"-n", "--nodes", "-t", "--threads", "--kill-grace", "--timeout",
              "--hosts", "--hostfile", "--ssh", "--interface", "-x", "--env"}
def nodes(cmd):
    """dsmrun -n N ...: N (its options come before the program)."""
    n, i = 1, 1
    while i < len(cmd) and cmd[i].startswith("-"):
        opt = cmd[i].split("=", 1)[0]
        if opt in ("-n", "--nodes"):
            n = int(cmd[i].split("=", 1)[1] if "=" in cmd[i] else cmd[i + 1])
        i += 2 if opt in WITH_VALUE and "=" not in cmd[i] else 1
    return n
for t in json.load(sys.stdin):
    suites = [s.split(":")[-1] for s in t["suite"]]
    if set(suites) & {"hosts", "fuzz", "soak"}:
        continue
    cmd, env = t["cmd"], t["env"]
    if cmd[0].endswith("/dsmrun"):
        multi = nodes(cmd) >= 2
    else:
        multi = any("dsmrun" in a for a in cmd[1:]) or \
                any("dsmrun" in v for v in env.values())
    if not multi or (pattern and not re.search(pattern, t["name"])):
        continue
    if mode == "off" and ("DSM_SAME_HOST_LANES" in env or
                          "TT_EXPECT_LANES" in env):
        continue
    print(t["name"])
' "$1" "$pattern"
}

hogs=()
stop_hog() {
  local pid
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null || true; done
  hogs=()
}
trap stop_hog EXIT
trap 'exit 130' INT TERM
if ((hog)); then
  for ((c = 0; c < $(nproc); c++)); do
    ( while :; do :; done ) &
    hogs+=($!)
  done
fi

logdir=$builddir/meson-logs/stress
rm -rf "$logdir"   # this invocation's logs only
mkdir -p "$logdir"
total=0
failed=0
start=$SECONDS
for ((round = 1; round <= rounds; round++)); do
  for mode in "${modes[@]}"; do
    mapfile -t names < <(select_tests "$mode")
    ((${#names[@]})) || continue
    lane_env=()
    [ "$mode" = off ] && lane_env=(DSM_SAME_HOST_LANES=0)
    echo "== stress: round $round, lanes $mode: ${#names[@]} tests," \
         "$jobs at once $( ((hog)) && echo "beside $(nproc) busy loops")"
    env "${lane_env[@]}" meson test -C "$builddir" --no-rebuild \
      --num-processes "$jobs" --timeout-multiplier "$multiplier" "${names[@]}" \
      > "$logdir/round$round-$mode.out" 2>&1 || true
    cp "$builddir/meson-logs/testlog.txt" "$logdir/round$round-$mode.txt"
    # one JSON object per test run: name and result
    read -r runs bad < <(python3 -c '
import json, sys
runs = bad = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs += 1
    if r["result"] not in ("OK", "EXPECTEDFAIL", "SKIP"):
        bad += 1
        print("stress: FAILED %s (lanes %s): %s after %.1f s" % (
            r["name"], sys.argv[2], r["result"], r["duration"]),
            file=sys.stderr)
print(runs, bad)
' "$builddir/meson-logs/testlog.json" "$mode")
    total=$((total + runs))
    failed=$((failed + bad))
    echo "== stress: round $round, lanes $mode: $runs runs, $bad failed" \
         "($((SECONDS - start)) s so far; log $logdir/round$round-$mode.txt)"
  done
done
stop_hog
echo "stress: $rounds rounds, $total runs, $failed failed"
((failed == 0))
