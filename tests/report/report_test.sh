#!/bin/sh
# report_test.sh CASE - the job's statistics table, its JSON document and the
# sharing report, on programs built to show one pattern each (this folder).
# Environment (from meson): DSMRUN, PYTHON, CHECK (report_check.py), DSM_H
# (include/dsm.h: the counters the table must show), SRCDIR (the programs'
# sources: the lines the report must name are found by their markers),
# HEATMAP (scripts/dsm-heatmap) and the programs: FALSE_SHARING, PING_PONG,
# HOMED_AWAY, FLAG.  Exit: 0 pass, 1 fail, 77 skip.
set -u
CASE=${1:?usage: report_test.sh CASE}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
export DSM_TIMEOUT=30
unset DSM_STATS DSM_STATS_FILE DSM_REPORT DSM_MIGRATE_AFTER

fail() { echo "FAIL: $*"; exit 1; }
check() { "$PYTHON" "$CHECK" "$@" || exit 1; }

# run N T PROGRAM: the job exits 0; stdout in $TMP/out, stderr in $TMP/err
run() {
  n=$1 t=$2
  shift 2
  "$DSMRUN" -n "$n" -t "$t" "$@" > "$TMP/out" 2> "$TMP/err"
  status=$?
  [ $status -eq 0 ] || { cat "$TMP/out" "$TMP/err"; fail "job exited $status"; }
  grep -q '^result: ' "$TMP/out" || { cat "$TMP/out"; fail "no result line"; }
}

# line SOURCE MARKER: the line of the source that carries the marker comment
line() {
  l=$(grep -nF "/* $2 */" "$SRCDIR/$1" | head -1 | cut -d: -f1)
  [ -n "$l" ] || fail "no marker '/* $2 */' in $1"
  echo "$1:$l"
}

case $CASE in
  table_2|table_3)
    n=${CASE#table_}
    DSM_STATS=1 DSM_REPORT=off run "$n" 1 "$FALSE_SHARING"
    check table "$TMP/err" "$n" "$DSM_H"
    check no-report "$TMP/err"
    # the statistics go to stderr, the program's output alone to stdout
    ! grep -q 'dsm statistics' "$TMP/out" || fail "the table on stdout"
    # DSM_STATS_FILE: the same table there, nothing on stderr
    DSM_STATS=1 DSM_REPORT=off DSM_STATS_FILE="$TMP/table" \
      run "$n" 2 "$FALSE_SHARING"
    check table "$TMP/table" "$n" "$DSM_H"
    ! grep -q 'dsm statistics' "$TMP/err" || fail "the table on stderr too"
    ;;
  json_2|json_3)
    n=${CASE#json_}
    DSM_STATS=json run "$n" 1 "$FALSE_SHARING"
    check json "$TMP/out" "$n" "$DSM_H"
    # the sharing section names the global array
    grep -q '"name": "hits"' "$TMP/out" || { cat "$TMP/out"; fail "no hits in the JSON"; }
    DSM_STATS=json DSM_STATS_FILE="$TMP/doc.json" run "$n" 1 "$FALSE_SHARING"
    check json "$TMP/doc.json" "$n" "$DSM_H"
    ! grep -q '"version"' "$TMP/out" || fail "the document on stdout too"
    ;;
  false_sharing_3x1|false_sharing_2x2)
    layout=${CASE#false_sharing_}
    DSM_REPORT=sharing run "${layout%x*}" "${layout#*x}" "$FALSE_SHARING"
    check entry "$TMP/err" "false sharing" "global \`hits'"
    check entry "$TMP/err" "false sharing" "heap block allocated at" \
      "$(line report_false_sharing.c 'the heap array') "
    ;;
  ping_pong)
    DSM_REPORT=sharing run 3 1 "$PING_PONG"
    check entry "$TMP/err" "ping-pong" "global \`token'"
    ;;
  homed_away)
    # without home migration the grid stays at node 0
    DSM_MIGRATE_AFTER=0 DSM_REPORT=sharing run 2 2 "$HOMED_AWAY"
    grid=$(line report_homed_away.c 'the grid')
    check entry "$TMP/err" "homed away from its writer" \
      "heap block allocated at" "$grid "
    # with it, the grid's home follows its writer: no longer homed away
    DSM_MIGRATE_AFTER=1 DSM_REPORT=sharing run 2 2 "$HOMED_AWAY"
    ! "$PYTHON" "$CHECK" entry "$TMP/err" "homed away from its writer" \
      "heap block allocated at" "$grid " > /dev/null ||
      { cat "$TMP/err"; fail "homed away although its home migrated"; }
    ;;
  flag)
    DSM_REPORT=sharing run 2 1 "$FLAG"
    check entry "$TMP/err" "flag spun on" "global \`ready'"
    check flush "$TMP/err" "$(line report_flag.c 'the flush loop')"
    ;;
  auto)
    # DSM_STATS=1 alone: the report follows the table when a node spent 5%
    # of its run in the protocol (polling across nodes mostly does), and
    # then names the flag
    DSM_STATS=1 run 2 1 "$FLAG"
    check table "$TMP/err" 2 "$DSM_H"
    check auto "$TMP/err"
    if grep -q '^dsm sharing report:' "$TMP/err"; then
      check entry "$TMP/err" "flag spun on" "global \`ready'"
    fi
    DSM_STATS=1 DSM_REPORT=off run 2 1 "$FLAG"
    check no-report "$TMP/err"
    ;;
  heatmap_summary)
    DSM_STATS=json run 2 1 "$FALSE_SHARING"
    "$PYTHON" "$HEATMAP" --summary "$TMP/out" > "$TMP/rows" ||
      { cat "$TMP/rows"; fail "dsm-heatmap --summary"; }
    grep -Eq '^hits +0x[0-9a-f]+ false_sharing ( [0-9]+)+$' "$TMP/rows" ||
      { cat "$TMP/rows"; fail "no row for hits, false sharing, with a timeline"; }
    ;;
  heatmap_png)
    "$PYTHON" -c 'import matplotlib' 2> /dev/null ||
      { echo "SKIP: $PYTHON has no matplotlib"; exit 77; }
    DSM_STATS=json run 2 1 "$FALSE_SHARING"
    "$PYTHON" "$HEATMAP" "$TMP/out" -o "$TMP/map.png" ||
      fail "dsm-heatmap"
    "$PYTHON" "$HEATMAP" --transpose "$TMP/out" -o "$TMP/map_t.png" ||
      fail "dsm-heatmap --transpose"
    for f in "$TMP/map.png" "$TMP/map_t.png"; do
      [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '211PNG' ] ||
        fail "$f is not a PNG"
    done
    ;;
  *)
    fail "unknown case $CASE"
    ;;
esac
echo "ok: $CASE"
