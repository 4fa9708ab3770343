#!/bin/bash
# hosts_test.sh CASE - dsmrun across hosts: network namespaces joined by a
# bridge (netns.sh), nodes started over ssh or by srun, UCX forced onto TCP.
# Environment (from meson): DSMRUN, OMP_REDUCTION, OMP_ATOMIC, JACOBI (OpenMP
# programs built by dsmcc that check their own answers), REPORT_FALSE_SHARING,
# REPORT_CHECK, REPORT_PYTHON, REPORT_SRC, DSM_H (tests/report), NODE_ECHO (a node
# program without the runtime), NODE_FAILURE (a DSM program that puts its
# nodes in known states), BOARD_PROBE (reads an activity board).
# Exit: 0 pass, 1 fail, 77 skip (no root, a package missing).
set -u
. "$(dirname "$0")/netns.sh"

CASE=${1:?usage: hosts_test.sh CASE}
fail() { echo "FAIL: $*"; exit 1; }

export UCX_TLS=tcp        # one kernel: UCX would pick shared memory
export DSM_TIMEOUT=30
unset SLURM_JOB_ID

# The processes of the job in every host, other than the daemons.
job_procs() {
  local i pid comm
  for ((i = 1; i <= HOSTS_COUNT; i++)); do
    for pid in $(ip netns pids "${HOSTS_NS[$i]}" 2>/dev/null); do
      comm=$(cat /proc/$pid/comm 2>/dev/null) || continue
      case $comm in
        # the daemons, and the allocation (salloc), which outlives the job
        sshd|munged|slurmctld|slurmscriptd|slurmd|salloc) ;;
        *) echo "host $i: $pid $comm" ;;
      esac
    done
  done
}

expect_nothing_left() {
  local left i
  for ((i = 0; i < 50; i++)); do   # ssh sessions close asynchronously
    left=$(job_procs)
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  fail "processes left after the job: $left"
}

# no_sanitizer_report FILE: in a sanitizer build, nodes on other hosts
# get the test setup's ASAN_OPTIONS and UBSAN_OPTIONS through dsmrun and
# halt on a finding; node agents started by sshd run with the sanitizers'
# defaults, under which a UBSan finding only prints.  So the job's output
# must hold no report at all.
no_sanitizer_report() {
  ! grep -Eq 'runtime error:|ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|SUMMARY: [A-Za-z]*Sanitizer' "$1" ||
    { cat "$1"; fail "a sanitizer report in the job's output"; }
}

hostlist() {   # hostlist N: the first N hosts' addresses, comma-separated
  local i list=
  for ((i = 1; i <= $1; i++)); do list+=${list:+,}${HOSTS_ADDR[$i]}; done
  echo "$list"
}

# run_ok N HOW PROGRAM ARGS: the job on N hosts exits 0; with HOW=slurm
# dsmrun runs inside an allocation of N nodes.
run_ok() {
  local n=$1 how=$2
  shift 2
  local out=$HOSTS_TMP/out
  if [ "$how" = ssh ]; then
    DSM_LOG_LEVEL=debug hosts_run 1 "$DSMRUN" --hosts "$(hostlist "$n")" \
      "$@" > "$out" 2>&1
  else
    DSM_LOG_LEVEL=debug hosts_run 1 env $HOSTS_SLURM_ENV salloc -Q -N "$n" \
      "$DSMRUN" "$@" > "$out" 2>&1
  fi
  local status=$?
  [ $status -eq 0 ] || { cat "$out"; fail "job on $n hosts by $how exited $status"; }
  no_sanitizer_report "$out"
  check_tcp "$out" "$n"
  expect_nothing_left
}

# UCX really used TCP between the hosts: every node printed its lanes
# (DSM_LOG_LEVEL=debug), which name tcp on eth0 and no shared memory.
check_tcp() {
  local out=$1 n=$2
  grep -Eq 'lane\[[0-9]+\]: +[0-9]+:tcp/eth0' "$out" ||
    { cat "$out"; fail "no TCP lane on eth0 in UCX's endpoint report"; }
  ! grep -Eq 'lane\[[0-9]+\]: +[0-9]+:(posix|sysv|cma|xpmem|knem)' "$out" ||
    { cat "$out"; fail "UCX used shared memory between hosts"; }
  local up
  up=$(grep -c 'transport up: node' "$out")
  [ "$up" -eq "$n" ] || { cat "$out"; fail "$up of $n nodes came up"; }
}

# wait_running N NAME: NAME runs in each of the first N hosts.
wait_running() {
  local n=$1 name=$2 i t
  for ((t = 0; t < 300; t++)); do
    local all=1
    for ((i = 1; i <= n; i++)); do
      [ -n "$(hosts_procs "$i" "$name")" ] || all=0
    done
    [ $all -eq 1 ] && return 0
    sleep 0.1
  done
  fail "$name did not start on all $n hosts"
}

# Kill one thing, then measure (process checks, 0.1 s apart) how long
# until dsmrun has exited and nothing of the job is left: at most 5 s for
# the job's own processes.  Slurm's step daemon (slurmstepd) ends on
# Slurm's schedule: it waits KillWait (2 s, netns.sh) after its SIGTERM,
# and took more than 5 s in all on a loaded machine; it gets 30 s.
expect_gone_within_5s() {
  local dsmrun_pid=$1 what=$2 start now elapsed ours_gone=
  start=$(date +%s%N)
  while :; do
    now=$(date +%s%N)
    elapsed=$(( (now - start) / 1000000 ))
    local left
    left=$(job_procs)
    if [ -z "$ours_gone" ] && ! kill -0 "$dsmrun_pid" 2>/dev/null &&
       [ -z "$(grep -v ' slurmstepd$' <<< "$left")" ]; then
      ours_gone=$elapsed
      echo "$what: dsmrun and the job's processes were gone after ${elapsed} ms"
    fi
    if [ -n "$ours_gone" ] && [ -z "$left" ]; then
      echo "$what: the whole job was gone after ${elapsed} ms"
      return 0
    fi
    [ -n "$ours_gone" ] || [ $elapsed -le 5000 ] ||
      { echo "$left"; fail "$what: job still there after 5 s"; }
    [ $elapsed -le 30000 ] ||
      { echo "$left"; fail "$what: Slurm's step daemon still there after 30 s"; }
    sleep 0.1
  done
}

kill_node_case() {
  local how=$1 n=3 out=$HOSTS_TMP/out
  if [ "$how" = ssh ]; then
    hosts_run 1 "$DSMRUN" --hosts "$(hostlist $n)" "$JACOBI" -n 300 \
      -k 1000000 > "$out" 2>&1 &
  else
    hosts_run 1 env $HOSTS_SLURM_ENV salloc -Q -N $n "$DSMRUN" "$JACOBI" \
      -n 300 -k 1000000 > "$out" 2>&1 &
  fi
  local launcher=$!
  wait_running $n "$(basename "$JACOBI" | cut -c1-15)"
  sleep 1   # past the wire-up: the nodes are computing
  # dsmrun itself (under salloc, or exec'd by ip netns exec)
  local pid dsmrun_pid=
  for pid in $(hosts_procs 1 dsmrun); do
    grep -q -- --node-agent /proc/$pid/cmdline || dsmrun_pid=$pid
  done
  [ -n "$dsmrun_pid" ] || fail "no dsmrun process"
  local victim devices
  victim=$(hosts_procs 2 "$(basename "$JACOBI" | cut -c1-15)")
  # its agent restricted UCX to the interface towards node 0 (ssh_ucx_listeners)
  devices=$(tr '\0' '\n' < /proc/$victim/environ | sed -n 's/^UCX_NET_DEVICES=//p')
  [ "${devices%%,*}" = eth0 ] || fail "the node has UCX_NET_DEVICES='$devices', not eth0"
  kill -9 $victim
  expect_gone_within_5s "$dsmrun_pid" "node on host 2 killed"
  wait "$launcher"
  local status=$?
  [ $status -ne 0 ] || fail "the job exited 0 after a node was killed"
  grep -q "node 1" "$out" || { cat "$out"; fail "the failed node is not named"; }
  # its agent names what it was doing, read from the board on its host
  grep -Eq "node 1 on host [^:]*: pid $victim killed by signal 9 \(Killed\) while [a-z]" "$out" ||
    { cat "$out"; fail "the agent does not say what the killed node was doing"; }
  no_sanitizer_report "$out"
  cat "$out"
}

# job_listeners I: "ADDRESS PROCESS" for every listening TCP socket in
# host I other than the daemons' (a socket nobody holds counts, as "?").
job_listeners() {
  hosts_run "$1" ss -ltnpH | awk '{
      addr = $4; sub(/:[^:]*$/, "", addr); gsub(/[][]/, "", addr)
      name = "?"
      if (match($0, /users:\(\("[^"]*"/)) name = substr($0, RSTART + 9, RLENGTH - 10)
      print addr, name }' |
    grep -vE ' (sshd|munged|slurmctld|slurmd|slurmstepd)$'
}

# wait_text FILE PATTERN COUNT: COUNT lines of FILE match PATTERN (10 s).
wait_text() {
  local t
  for ((t = 0; t < 100; t++)); do
    [ "$(grep -c -- "$2" "$1")" -ge "$3" ] && return 0
    sleep 0.1
  done
  cat "$1"
  fail "'$2' did not appear $3 times"
}

# listeners_case DEVICES: a 2-host job (Jacobi, UCX_TLS=tcp) with
# UCX_NET_DEVICES left to dsmrun (DEVICES=dsmrun) or set by the user;
# once every node is wired up (UCX has opened every interface it will),
# each node's UCX_NET_DEVICES and every listener of the job in each host.
# Prints the listeners; sets OTHER_LISTENERS (those not on the host's eth0
# address) and NODE_LISTENERS (those of the nodes).
listeners_case() {
  local devices=$1 prog i node value expected
  prog=$(basename "$JACOBI" | cut -c1-15)
  if [ "$devices" = dsmrun ]; then
    # eth0 and commas up to DSM_LAUNCH_NET_DEVICES_WIDTH (launch_env.h)
    expected=eth0$(printf "%$((127 - 4))s" '' | tr ' ' ,)
    env -u UCX_NET_DEVICES DSM_LOG_LEVEL=debug ip netns exec "${HOSTS_NS[1]}" \
      "$DSMRUN" --hosts "$(hostlist 2)" "$JACOBI" -n 300 -k 1000000 \
      > "$HOSTS_TMP/out" 2>&1 &
  else
    expected=$devices
    UCX_NET_DEVICES=$devices DSM_LOG_LEVEL=debug ip netns exec "${HOSTS_NS[1]}" \
      "$DSMRUN" --hosts "$(hostlist 2)" "$JACOBI" -n 300 -k 1000000 \
      > "$HOSTS_TMP/out" 2>&1 &
  fi
  local launcher=$!
  wait_running 2 "$prog"
  wait_text "$HOSTS_TMP/out" 'transport up: node' 2
  OTHER_LISTENERS=0
  NODE_LISTENERS=0
  for ((i = 1; i <= 2; i++)); do
    node=$(hosts_procs "$i" "$prog")
    value=$(tr '\0' '\n' < /proc/$node/environ | sed -n 's/^UCX_NET_DEVICES=//p')
    [ "$value" = "$expected" ] ||
      fail "host $i: the node has UCX_NET_DEVICES='$value', not '$expected'"
    job_listeners "$i" > "$HOSTS_TMP/listeners"
    echo "host $i, UCX_NET_DEVICES by $devices: listeners" $(sort "$HOSTS_TMP/listeners" | uniq -c)
    OTHER_LISTENERS=$((OTHER_LISTENERS +
      $(awk -v a="${HOSTS_ADDR[$i]}" '$1 != a' "$HOSTS_TMP/listeners" | wc -l)))
    NODE_LISTENERS=$((NODE_LISTENERS +
      $(awk -v p="$prog" '$2 == p' "$HOSTS_TMP/listeners" | wc -l)))
  done
  kill -INT "$launcher"
  expect_gone_within_5s "$launcher" "SIGINT to dsmrun"
  wait "$launcher"
  no_sanitizer_report "$HOSTS_TMP/out"
}

# bad_input EXPECTED-TEXT ARGS...: dsmrun (run in host 1) fails with one
# line containing the text, and nothing is left running.
bad_input() {
  local expected=$1
  shift
  local out=$HOSTS_TMP/out
  hosts_run 1 "$@" > "$out" 2>&1
  local status=$?
  [ $status -ne 0 ] || { cat "$out"; fail "'$*' succeeded"; }
  grep -q -- "$expected" "$out" ||
    { cat "$out"; fail "'$*': no message containing '$expected'"; }
  local lines
  lines=$(grep -c '^dsmrun: ' "$out")
  [ "$lines" -le 2 ] || { cat "$out"; fail "'$*': $lines messages, not one error"; }
  no_sanitizer_report "$out"
  echo "ok: $expected ($(grep '^dsmrun: ' "$out" | head -1))"
  expect_nothing_left
}

hosts_require_root
[ -x "${DSMRUN:-}" ] || fail "DSMRUN is not set"


# hang_report_case HOW: the lock deadlock of omp_deadlock on 2 hosts.
# With --timeout 10, dsmrun exits 124 after the hang report, in which each
# node's agent printed its node's thread: waiting for the lock the other
# holds; then with SIGQUIT to dsmrun once node 1's board (on host 2, read
# through its agent) shows the wait: exit 131 and the same report.
hang_report_case() {
  local how=$1 out=$HOSTS_TMP/out status t state agent
  local expect0 expect1
  expect0="node 0 on host [^ ]* thread 0 \(tid [0-9]+\): waiting for a lock grant from node 0 \(lock [0-9]+ of node 0\) while holding 1 lock"
  expect1="node 1 on host [^ ]* thread 0 \(tid [0-9]+\): waiting for a lock grant from node 0 \(lock [0-9]+ of node 0\) while holding 1 lock"
  run_deadlock() {
    if [ "$how" = ssh ]; then
      hosts_run 1 "$DSMRUN" "$@" --hosts "$(hostlist 2)" "$OMP_DEADLOCK" locks
    else
      hosts_run 1 env $HOSTS_SLURM_ENV salloc -Q -N 2 "$DSMRUN" "$@" \
        "$OMP_DEADLOCK" locks
    fi
  }
  local start=$SECONDS
  run_deadlock --timeout 10 > "$out" 2>&1
  status=$?
  cat "$out"
  echo "figure: --timeout 10 over $how: dsmrun exited $status after $((SECONDS - start)) s"
  [ $status -eq 124 ] || fail "dsmrun --timeout exited $status, not 124"
  grep -q "the job ran longer than --timeout 10 s" "$out" || fail "no timeout message"
  grep -Eq "$expect0" "$out" || fail "node 0's agent did not report its thread"
  grep -Eq "$expect1" "$out" || fail "node 1's agent did not report its thread"
  no_sanitizer_report "$out"
  expect_nothing_left

  run_deadlock > "$out" 2>&1 &
  local launcher=$! pid dsmrun_pid=
  wait_running 2 omp_deadlock
  for pid in $(hosts_procs 1 dsmrun); do
    grep -q -- --node-agent /proc/$pid/cmdline || dsmrun_pid=$pid
  done
  [ -n "$dsmrun_pid" ] || fail "no dsmrun process"
  # Both nodes must be in the deadlock itself, each waiting for the second
  # lock while holding the first: a node seen waiting for its first lock,
  # or still spinning on the other's flag, is not there yet.
  local deadlocked="waiting for a lock grant*while holding 1 lock*"
  local rank host states
  for ((t = 0; t < 200; t++)); do
    states=
    for rank in 0 1; do
      state=
      for host in 1 2; do
        for agent in $(hosts_procs $host dsmrun); do
          state=$("$BOARD_PROBE" "$agent" $rank 2>/dev/null) || state=
          [ -n "$state" ] && break 2
        done
      done
      states+="node $rank: '$state' "
      [[ "$state" == $deadlocked ]] || continue 2
    done
    break
  done
  [ $t -lt 200 ] || fail "the nodes never both waited for their second lock (last: $states)"
  kill -QUIT "$dsmrun_pid"
  expect_gone_within_5s "$dsmrun_pid" "SIGQUIT to dsmrun"
  wait "$launcher"
  status=$?
  cat "$out"
  [ $status -eq 131 ] || fail "dsmrun exited $status after SIGQUIT, not 131"
  grep -Eq "$expect0" "$out" || fail "SIGQUIT: node 0's agent did not report its thread"
  grep -Eq "$expect1" "$out" || fail "SIGQUIT: node 1's agent did not report its thread"
  no_sanitizer_report "$out"
  expect_nothing_left
}

case $CASE in
  ssh_2_hosts)
    hosts_create 2
    hosts_start_sshd
    run_ok 2 ssh "$OMP_REDUCTION"
    # atomics made by the word's home, requested over TCP (each a round
    # trip: 100 per thread and kind keep a loaded machine within the limit)
    run_ok 2 ssh "$OMP_ATOMIC" 100
    # messages between hosts; waiting threads take them, the progress
    # threads sleep through a ping-pong (over TCP an armed worker woke
    # them for every message)
    run_ok 2 ssh "$NODE_TP_AM"
    # the same atomics served by a real-time progress thread (or an
    # ordinary one where the system refuses: either is said)
    DSM_PROGRESS_REALTIME=1 DSM_LOG_LEVEL=debug hosts_run 1 "$DSMRUN" \
      --hosts "$(hostlist 2)" "$OMP_ATOMIC" 100 > "$HOSTS_TMP/out" 2>&1 ||
      { cat "$HOSTS_TMP/out"; fail "DSM_PROGRESS_REALTIME=1 job failed"; }
    [ "$(grep -c 'progress thread: \(real-time\|ordinary scheduling\)' \
         "$HOSTS_TMP/out")" -eq 2 ] ||
      { cat "$HOSTS_TMP/out"; fail "DSM_PROGRESS_REALTIME=1: no word from both progress threads"; }
    no_sanitizer_report "$HOSTS_TMP/out"
    # the rendezvous interface, by option and by variable
    hosts_run 1 "$DSMRUN" -v --interface eth0 --hosts "$(hostlist 2)" \
      "$OMP_REDUCTION" > "$HOSTS_TMP/out" 2>&1 || { cat "$HOSTS_TMP/out"; fail "--interface eth0"; }
    grep -q "rendezvous ${HOSTS_ADDR[1]}:" "$HOSTS_TMP/out" ||
      { cat "$HOSTS_TMP/out"; fail "--interface eth0: rendezvous not on eth0"; }
    no_sanitizer_report "$HOSTS_TMP/out"
    DSM_INTERFACE=lo hosts_run 1 "$DSMRUN" -v --hosts "${HOSTS_ADDR[1]}" \
      "$OMP_REDUCTION" > "$HOSTS_TMP/out" 2>&1 || { cat "$HOSTS_TMP/out"; fail "DSM_INTERFACE=lo"; }
    grep -q "rendezvous 127.0.0.1:" "$HOSTS_TMP/out" ||
      { cat "$HOSTS_TMP/out"; fail "DSM_INTERFACE=lo: rendezvous not on lo"; }
    no_sanitizer_report "$HOSTS_TMP/out"
    expect_nothing_left
    ;;
  ssh_3_hosts)
    hosts_create 3
    hosts_start_sshd
    run_ok 3 ssh "$JACOBI" -n 61 -k 23 -c
    # a hostfile with slots: 2 nodes on host 1, 1 on host 2
    printf '# test\n%s slots=2\n\n%s\n' "${HOSTS_ADDR[1]}" "${HOSTS_ADDR[2]}" \
      > "$HOSTS_TMP/hostfile"
    DSM_LOG_LEVEL=debug hosts_run 1 "$DSMRUN" --hostfile "$HOSTS_TMP/hostfile" \
      "$JACOBI" -n 61 -k 23 -c > "$HOSTS_TMP/out" 2>&1 ||
      { cat "$HOSTS_TMP/out"; fail "hostfile job failed"; }
    grep -q 'transport up: node 2 of 3' "$HOSTS_TMP/out" ||
      { cat "$HOSTS_TMP/out"; fail "hostfile slots not used"; }
    no_sanitizer_report "$HOSTS_TMP/out"
    # atomics in a job where two nodes share a host and one does not
    hosts_run 1 "$DSMRUN" --hostfile "$HOSTS_TMP/hostfile" -t 2 \
      "$OMP_ATOMIC" 100 > "$HOSTS_TMP/out" 2>&1 ||
      { cat "$HOSTS_TMP/out"; fail "atomics on 2+1 nodes failed"; }
    no_sanitizer_report "$HOSTS_TMP/out"
    expect_nothing_left
    ;;
  ssh_stats)
    # one table and one report for a job on 3 hosts, gathered by node 0
    # over the job's connections (tests/report)
    hosts_create 3
    hosts_start_sshd
    hosts_run 1 env DSM_STATS=1 DSM_REPORT=sharing "$DSMRUN" \
      --hosts "$(hostlist 3)" "$REPORT_FALSE_SHARING" \
      > "$HOSTS_TMP/out" 2> "$HOSTS_TMP/err" ||
      { cat "$HOSTS_TMP/out" "$HOSTS_TMP/err"; fail "DSM_STATS=1 job"; }
    no_sanitizer_report "$HOSTS_TMP/err"
    "$REPORT_PYTHON" "$REPORT_CHECK" table "$HOSTS_TMP/err" 3 "$DSM_H" ||
      fail "the table across hosts"
    "$REPORT_PYTHON" "$REPORT_CHECK" entry "$HOSTS_TMP/err" "false sharing" \
      "global \`hits'" || fail "the global array across hosts"
    # node 2's heap block is named by node 0 (the block's node names it)
    line=$(grep -nF '/* the heap array */' "$REPORT_SRC/report_false_sharing.c" |
           cut -d: -f1)
    "$REPORT_PYTHON" "$REPORT_CHECK" entry "$HOSTS_TMP/err" "false sharing" \
      "heap block allocated at" "report_false_sharing.c:$line " ||
      fail "the heap array across hosts"
    hosts_run 1 env DSM_STATS=json DSM_STATS_FILE="$HOSTS_TMP/doc.json" \
      "$DSMRUN" --hosts "$(hostlist 3)" "$REPORT_FALSE_SHARING" \
      > "$HOSTS_TMP/out" 2>&1 ||
      { cat "$HOSTS_TMP/out"; fail "DSM_STATS=json job"; }
    no_sanitizer_report "$HOSTS_TMP/out"
    "$REPORT_PYTHON" "$REPORT_CHECK" json "$HOSTS_TMP/doc.json" 3 "$DSM_H" ||
      fail "the JSON document across hosts"
    expect_nothing_left
    ;;
  ssh_kill_node)
    hosts_create 3
    hosts_start_sshd
    kill_node_case ssh
    ;;
  ssh_kill_dsmrun|slurm_kill_dsmrun)
    hosts_create 2
    if [ "$CASE" = ssh_kill_dsmrun ]; then
      hosts_start_sshd
      ip netns exec "${HOSTS_NS[1]}" "$DSMRUN" --hosts "$(hostlist 2)" \
        "$JACOBI" -n 300 -k 1000000 > "$HOSTS_TMP/out" 2>&1 &
    else
      hosts_start_slurm
      hosts_run 1 env $HOSTS_SLURM_ENV salloc -Q -N 2 "$DSMRUN" "$JACOBI" \
        -n 300 -k 1000000 > "$HOSTS_TMP/out" 2>&1 &
    fi
    launcher=$!
    wait_running 2 "$(basename "$JACOBI" | cut -c1-15)"
    sleep 1
    dsmrun_pid=
    for pid in $(hosts_procs 1 dsmrun); do
      grep -q -- --node-agent /proc/$pid/cmdline || dsmrun_pid=$pid
    done
    [ -n "$dsmrun_pid" ] || fail "no dsmrun process"
    kill -9 "$dsmrun_pid"
    expect_gone_within_5s "$dsmrun_pid" "dsmrun killed"
    wait "$launcher"
    ;;
  ssh_layout_token_sigint)
    hosts_create 3
    hosts_start_sshd
    # identical layout and no randomisation on every host
    # node_echo is the launcher's test node, not built with dsmcc
    DSMRUN_ANY_PROGRAM=1 hosts_run 1 "$DSMRUN" --hosts "$(hostlist 3)" \
      "$NODE_ECHO" report \
      > "$HOSTS_TMP/out" 2>&1 || { cat "$HOSTS_TMP/out"; fail "report job failed"; }
    cat "$HOSTS_TMP/out"
    no_sanitizer_report "$HOSTS_TMP/out"
    [ "$(grep -c '^node .* token ok aslr off layout' "$HOSTS_TMP/out")" -eq 3 ] ||
      fail "not every node reported token ok, aslr off"
    [ "$(sed -n 's/.* layout \([^ ]*\) .*/\1/p' "$HOSTS_TMP/out" | sort -u | wc -l)" -eq 1 ] ||
      fail "the address-space layout differs between hosts"
    expect_nothing_left
    # the token is on no command line; SIGINT reaches every node
    DSMRUN_ANY_PROGRAM=1 ip netns exec "${HOSTS_NS[1]}" "$DSMRUN" \
      --hosts "$(hostlist 2)" "$NODE_ECHO" block > "$HOSTS_TMP/out" 2>&1 &
    launcher=$!
    wait_running 2 node_echo
    node=$(hosts_procs 2 node_echo)
    token=$(tr '\0' '\n' < /proc/$node/environ | sed -n 's/^DSM_TOKEN=//p')
    [ ${#token} -eq 32 ] || fail "node has no token"
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
      ! tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null | grep -q "$token" ||
        fail "the token is on the command line of pid $pid"
    done
    kill -INT "$launcher"
    expect_gone_within_5s "$launcher" "SIGINT to dsmrun"
    wait "$launcher"
    status=$?
    [ $status -eq 130 ] || { cat "$HOSTS_TMP/out"; fail "exit status $status after SIGINT, not 130"; }
    no_sanitizer_report "$HOSTS_TMP/out"
    ;;
  ssh_environment)
    hosts_create 2
    hosts_start_sshd
    # The sanitizer runtimes' options reach remote nodes as the DSM_* ones
    # do: those of the sanitizer test setup, else stand-ins with the
    # runtimes' default values (ignored by a program built without them).
    export ASAN_OPTIONS=${ASAN_OPTIONS:-verbosity=0}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-verbosity=0}
    export LSAN_OPTIONS=${LSAN_OPTIONS:-verbosity=0}
    # -x and DSM_PASS_ENV add names; anything else stays behind
    HOSTS_X_OPTION=one HOSTS_X_LIST=two HOSTS_X_NOT=three \
      DSM_PASS_ENV=HOSTS_X_LIST DSMRUN_ANY_PROGRAM=1 \
      ip netns exec "${HOSTS_NS[1]}" "$DSMRUN" \
      -x HOSTS_X_OPTION --hosts "$(hostlist 2)" "$NODE_ECHO" block \
      > "$HOSTS_TMP/out" 2>&1 &
    launcher=$!
    wait_running 2 node_echo
    for i in 1 2; do
      node=$(hosts_procs "$i" node_echo)
      tr '\0' '\n' < /proc/$node/environ > "$HOSTS_TMP/environ.$i"
      for expected in "ASAN_OPTIONS=$ASAN_OPTIONS" "UBSAN_OPTIONS=$UBSAN_OPTIONS" \
          "LSAN_OPTIONS=$LSAN_OPTIONS" HOSTS_X_OPTION=one HOSTS_X_LIST=two; do
        grep -qxF -- "$expected" "$HOSTS_TMP/environ.$i" ||
          { cat "$HOSTS_TMP/environ.$i"; fail "host $i: the node's environment lacks $expected"; }
      done
      ! grep -q '^HOSTS_X_NOT=' "$HOSTS_TMP/environ.$i" ||
        fail "host $i: a variable neither listed nor named with -x reached the node"
    done
    echo "both nodes have the sanitizer options, the -x and the DSM_PASS_ENV variable, and not the other"
    kill -INT "$launcher"
    expect_gone_within_5s "$launcher" "SIGINT to dsmrun"
    wait "$launcher"
    no_sanitizer_report "$HOSTS_TMP/out"
    ;;
  ssh_ucx_listeners)
    hosts_create 2
    hosts_add_interface aux0 10.78.0   # a third address UCX could listen on
    hosts_start_sshd
    command -v ss >/dev/null || hosts_skip "ss (iproute2) is not installed"
    # dsmrun restricts UCX to the rendezvous interface: no listener of the
    # job anywhere else (neither 127.0.0.1 nor aux0)
    listeners_case dsmrun
    [ "$NODE_LISTENERS" -gt 0 ] || fail "no UCX listener seen: the check saw nothing"
    [ "$OTHER_LISTENERS" -eq 0 ] ||
      fail "$OTHER_LISTENERS listeners of the job on another address than eth0's"
    # the user's choice wins, and then UCX listens elsewhere too (which
    # shows that the check above can see it).  Not "all": UCX would also
    # use aux0, which leads nowhere, and the wire-up would fail ("No route
    # to host"), as it does without dsmrun's restriction.
    listeners_case eth0,lo
    [ "$OTHER_LISTENERS" -gt 0 ] ||
      fail "UCX_NET_DEVICES=eth0,lo: no listener outside eth0; the check cannot fail"
    # the right answer over TCP, restricted
    run_ok 2 ssh "$JACOBI" -n 61 -k 23 -c
    # shared memory is not among the devices UCX_NET_DEVICES restricts: with
    # UCX free to choose, nodes of one machine still take it
    env -u UCX_TLS DSM_LOG_LEVEL=debug ip netns exec "${HOSTS_NS[1]}" \
      "$DSMRUN" --hosts "$(hostlist 2)" "$JACOBI" -n 61 -k 23 -c \
      > "$HOSTS_TMP/out" 2>&1 || { cat "$HOSTS_TMP/out"; fail "the job without UCX_TLS failed"; }
    no_sanitizer_report "$HOSTS_TMP/out"
    grep -Eq 'lane\[[0-9]+\]: +[0-9]+:(posix|sysv|cma)/memory' "$HOSTS_TMP/out" ||
      { cat "$HOSTS_TMP/out"; fail "no shared-memory lane: UCX_NET_DEVICES removed shared memory"; }
    echo "without UCX_TLS: shared-memory lanes" \
      $(grep -Eo '[0-9]+:(posix|sysv|cma)/memory' "$HOSTS_TMP/out" | sed 's/^[0-9]*://' | sort | uniq -c)
    expect_nothing_left
    ;;
  ssh_kill_in_barrier)
    hosts_create 3
    hosts_start_sshd
    # node 0 computes for ever, nodes 1 and 2 wait in a barrier
    hosts_run 1 "$DSMRUN" --hosts "$(hostlist 3)" "$NODE_FAILURE" barrier \
      > "$HOSTS_TMP/out" 2>&1 &
    launcher=$!
    wait_running 3 node_failure
    dsmrun_pid=
    for pid in $(hosts_procs 1 dsmrun); do
      grep -q -- --node-agent /proc/$pid/cmdline || dsmrun_pid=$pid
    done
    [ -n "$dsmrun_pid" ] || fail "no dsmrun process"
    agent=$(hosts_procs 2 dsmrun)
    # the kill lands in the state under test: node 1's board on host 2,
    # read through its agent's descriptor, says it waits in the barrier.
    # Node 1 waits in the program's first barrier too (until node 0 comes)
    # and computes briefly after it: only once its "ready" line, printed
    # after that barrier, is out does its wait mean the barrier under test.
    waiting="waiting for the barrier departure from node 0"
    for ((t = 0; t < 300; t++)); do
      state=
      if grep -q '^node 1 pid [0-9]* ready' "$HOSTS_TMP/out"; then
        state=$("$BOARD_PROBE" "$agent" 1) ||
          fail "the agent on host 2 (pid $agent) holds no activity board"
        [[ "$state" == "$waiting"* ]] && break
      fi
      sleep 0.1
    done
    [[ "$state" == "$waiting"* ]] || fail "node 1 never waited in the barrier (last: '$state')"
    victim=$(hosts_procs 2 node_failure)
    kill -9 "$victim"
    expect_gone_within_5s "$dsmrun_pid" "node 1 on host 2 killed in a barrier"
    wait "$launcher"
    status=$?
    cat "$HOSTS_TMP/out"
    [ $status -ne 0 ] || fail "the job exited 0 after a node was killed"
    grep -qF "node 1 on host ${HOSTS_ADDR[2]}: pid $victim killed by signal 9 (Killed) while $waiting" \
      "$HOSTS_TMP/out" || fail "dsmrun's output does not say what node 1 was doing"
    no_sanitizer_report "$HOSTS_TMP/out"
    ;;
  ssh_bad_input)
    hosts_create 2
    hosts_start_sshd
    bad_input "10.77.0.99" "$DSMRUN" --hosts "${HOSTS_ADDR[1]},10.77.0.99" \
      "$OMP_REDUCTION"
    bad_input "blank host entry" "$DSMRUN" --hosts "${HOSTS_ADDR[1]},,${HOSTS_ADDR[2]}" \
      "$OMP_REDUCTION"
    bad_input "blank host entry" "$DSMRUN" --hosts "${HOSTS_ADDR[1]}," "$OMP_REDUCTION"
    bad_input "listed twice" "$DSMRUN" --hosts "${HOSTS_ADDR[1]},${HOSTS_ADDR[1]}" \
      "$OMP_REDUCTION"
    bad_input "No such file" "$DSMRUN" --hostfile "$HOSTS_TMP/missing" \
      "$OMP_REDUCTION"
    bad_input "only 2 slots" "$DSMRUN" -n 3 --hosts "$(hostlist 2)" \
      "$OMP_REDUCTION"
    bad_input "interface 'nosuch0' does not exist" "$DSMRUN" --interface nosuch0 \
      --hosts "$(hostlist 2)" "$OMP_REDUCTION"
    # node 0 on an interface host 2 has no route to: host 2's agent cannot
    # find its interface towards node 0 (UCX_NET_DEVICES) and says so
    hosts_add_interface aux0 10.78.0
    ip -n "${HOSTS_NS[2]}" addr flush dev aux0
    bad_input "node 1 on host ${HOSTS_ADDR[2]}: no route to node 0's address 10.78.0.1" \
      "$DSMRUN" --interface aux0 --hosts "$(hostlist 2)" "$OMP_REDUCTION"
    ;;
  slurm_2_hosts|slurm_3_hosts)
    n=${CASE:6:1}
    hosts_create "$n"
    hosts_start_slurm
    run_ok "$n" slurm "$JACOBI" -n 61 -k 23 -c
    ;;
  slurm_kill_node)
    hosts_create 3
    hosts_start_slurm
    kill_node_case slurm
    ;;
  slurm_bad_input)
    hosts_create 2
    hosts_start_slurm
    bad_input "Slurm allocation" env $HOSTS_SLURM_ENV salloc -Q -N 2 \
      "$DSMRUN" -n 3 "$OMP_REDUCTION"
    ;;
  ssh_hang_report)
    hosts_create 2
    hosts_start_sshd
    hang_report_case ssh
    ;;
  slurm_hang_report)
    hosts_create 2
    hosts_start_slurm
    hang_report_case slurm
    ;;
  *)
    fail "unknown case $CASE"
    ;;
esac
echo "PASS: $CASE"
