#!/usr/bin/env bash
# run-corpus.sh - runs every program of the corpus (tests/programs, known
# failures included) on every layout, outside meson, and prints a
# pass/fail matrix (program x layout), the pass rate, and the first error
# line of each failure.
#
#   tests/programs/run-corpus.sh BUILD_DIR [-t SECONDS] [-l 1x2,2x1,...]
#                                [NAME...]
#
# BUILD_DIR is a configured and built tree (scripts/setup.sh): the program
# table comes from BUILD_DIR/tests/programs/corpus.list (written by
# meson), dsmrun and dsmcc from the build.  Every program is built by
# dsmcc and by the plain compiler into BUILD_DIR/tests/programs/corpus-run
# (with the build logs); a run that does not end within SECONDS (default
# 30) is killed and counted as a hang.  Each run is classified:
#   ok     both runs exit 0 with identical "result:" lines
#   BUILD  dsmcc could not build the program (compile or link error)
#   HANG   the dsmomp run did not end in time
#   CRASH  a node died of a signal (dsmrun exit status > 128)
#   FATAL  the runtime ended the job (exit status 70: unsupported
#          construct, runtime error)
#   FAIL   the program found a wrong result (exit status 1) or another
#          non-zero status
#   DIFF   both exited 0 but the result lines differ
#   REF    the plain (libomp) build failed: a bug in the program
# Exit status 0 when every run passed.
set -u

usage() {
    echo "usage: $0 BUILD_DIR [-t SECONDS] [-l LAYOUT,...] [NAME...]" >&2
    exit 2
}
[ $# -ge 1 ] || usage
build=$(cd "$1" && pwd) || usage
shift
limit=30
layouts="1x2 2x1 3x1 2x2"
while [ $# -gt 0 ]; do
    case $1 in
    -t) [ $# -ge 2 ] || usage; limit=$2; shift 2 ;;
    -l) [ $# -ge 2 ] || usage; layouts=${2//,/ }; shift 2 ;;
    -h|--help) usage ;;
    -*) usage ;;
    *) break ;;
    esac
done
only=" $* "

list=$build/tests/programs/corpus.list
dsmrun=$build/runtime/launcher/dsmrun
[ -f "$list" ] || { echo "run-corpus: no $list (configure and build first)" >&2; exit 2; }
[ -x "$dsmrun" ] || { echo "run-corpus: no $dsmrun (build first)" >&2; exit 2; }
work=$build/tests/programs/corpus-run
mkdir -p "$work"

declare -A dsm_cc plain_cc
names=() ; declare -A src kind envs libenvs known
flags="" sources=""
while IFS='|' read -r tag a b c d e f; do
    case $tag in
    sources) sources=$a ;;
    flags) flags=$a ;;
    compiler) dsm_cc[$a]=$b; plain_cc[$a]=$c ;;
    program)
        if [ "$only" != "  " ] && [[ $only != *" $a "* ]]; then continue; fi
        names+=("$a"); src[$a]=$b; kind[$a]=$c; envs[$a]=$d
        libenvs[$a]=$e; known[$a]=$f ;;
    esac
done < "$list"
[ ${#names[@]} -gt 0 ] || { echo "run-corpus: no program selected" >&2; exit 2; }

# first interesting line of a log: skip dsmrun's own summary lines and
# UCX's backtrace decoration when something else was said
first_error() {
    local line
    line=$(grep -v -e '^dsmrun:' -e '^==== backtrace' -e '^ *[0-9]* *0x' \
               -e '^=================' -e '^$' -e '^result:' "$1" | head -n 1)
    [ -n "$line" ] || line=$(grep -v '^$' "$1" | head -n 1)
    printf '%s' "${line:0:160}"
}

declare -A cell why
passed=0 total=0 programs_ok=0
for name in "${names[@]}"; do
    k=${kind[$name]}
    dsm_bin=$work/$name.dsmomp plain_bin=$work/$name.plain
    # shellcheck disable=SC2086  # commands and flags are word lists
    # a build's own directory (Fortran modules) where the table says
    # @PRIVATE_DIR@; flags after the source: they end with libraries (-lm)
    dsm_cmd=${dsm_cc[$k]//@PRIVATE_DIR@/$work/$name.dsmomp.d}
    plain_cmd=${plain_cc[$k]//@PRIVATE_DIR@/$work/$name.plain.d}
    ${dsm_cmd} "$sources/${src[$name]}" $flags -o "$dsm_bin" \
        >"$work/$name.dsmomp.build.log" 2>&1
    dsm_built=$?
    # shellcheck disable=SC2086
    ${plain_cmd} "$sources/${src[$name]}" $flags -o "$plain_bin" \
        >"$work/$name.plain.build.log" 2>&1
    plain_built=$?
    all_ok=1
    for layout in $layouts; do
        nodes=${layout%x*} threads=${layout#*x}
        key="$name $layout" log=$work/$name.$layout
        total=$((total + 1))
        if [ $plain_built -ne 0 ]; then
            cell[$key]=REF why[$key]="plain build: $(first_error "$work/$name.plain.build.log")"
            all_ok=0; continue
        fi
        if [ $dsm_built -ne 0 ]; then
            # a link error names every missing symbol, else the first error
            line=$(grep -o "undefined reference to \`[^']*'" \
                       "$work/$name.dsmomp.build.log" |
                   sed "s/.*\`//; s/'$//" | sort -u | paste -sd ' ')
            if [ -n "$line" ]; then
                line="undefined: $line"
            else
                line=$(grep -m1 'error' "$work/$name.dsmomp.build.log")
            fi
            cell[$key]=BUILD why[$key]=${line:0:240}
            all_ok=0; continue
        fi
        # shellcheck disable=SC2086
        env DSM_TIMEOUT=20 ${envs[$name]} timeout -k 10 "$limit" \
            "$dsmrun" -n "$nodes" -t "$threads" "$dsm_bin" \
            >"$log.dsmomp.out" 2>"$log.dsmomp.err"
        dsm_status=$?
        # shellcheck disable=SC2086
        env ${envs[$name]} ${libenvs[$name]} \
            OMP_NUM_THREADS=$((nodes * threads)) \
            timeout -k 10 "$limit" "$plain_bin" \
            >"$log.plain.out" 2>"$log.plain.err"
        plain_status=$?
        if [ $plain_status -ne 0 ]; then
            cell[$key]=REF
            why[$key]="libomp run, status $plain_status: $(first_error "$log.plain.err")"
        elif [ $dsm_status -eq 124 ] || [ $dsm_status -eq 137 ]; then
            cell[$key]=HANG
            line=$(grep -v -e '^dsmrun:' -e '^$' "$log.dsmomp.err" | head -n 1)
            why[$key]="no end within $limit s${line:+; ${line:0:120}}"
        elif [ $dsm_status -gt 128 ]; then
            cell[$key]=CRASH
            why[$key]="status $dsm_status: $(first_error "$log.dsmomp.err")"
        elif [ $dsm_status -eq 70 ]; then
            cell[$key]=FATAL why[$key]=$(first_error "$log.dsmomp.err")
        elif [ $dsm_status -ne 0 ]; then
            cell[$key]=FAIL
            why[$key]="status $dsm_status: $(first_error "$log.dsmomp.err")"
        elif ! grep -q '^result:' "$log.dsmomp.out" ||
             [ "$(grep '^result:' "$log.dsmomp.out")" != \
               "$(grep '^result:' "$log.plain.out")" ]; then
            cell[$key]=DIFF
            why[$key]="dsmomp: $(grep -m1 '^result:' "$log.dsmomp.out") / libomp: $(grep -m1 '^result:' "$log.plain.out")"
        else
            cell[$key]=ok
            passed=$((passed + 1))
            continue
        fi
        all_ok=0
    done
    [ $all_ok -eq 1 ] && programs_ok=$((programs_ok + 1))
done

width=8
for name in "${names[@]}"; do
    [ ${#name} -gt "$width" ] && width=${#name}
done
printf "%-${width}s" program
for layout in $layouts; do printf ' %-6s' "$layout"; done
printf ' %s\n' "meson"
for name in "${names[@]}"; do
    printf "%-${width}s" "$name"
    for layout in $layouts; do printf ' %-6s' "${cell[$name $layout]}"; done
    if [ -n "${known[$name]}" ]; then printf ' %s\n' "known failing"
    else printf ' %s\n' "tested"; fi
done
echo
echo "pass rate: $passed of $total runs ($((100 * passed / total))%)," \
     "$programs_ok of ${#names[@]} programs on every layout"
if [ $passed -ne $total ]; then
    echo
    echo "failures (first error line; logs in $work):"
    for name in "${names[@]}"; do
        for layout in $layouts; do
            key="$name $layout"
            [ "${cell[$key]}" = ok ] && continue
            printf '  %s %s %s: %s\n' "$name" "$layout" "${cell[$key]}" \
                "${why[$key]}"
        done
    done
    exit 1
fi
exit 0
