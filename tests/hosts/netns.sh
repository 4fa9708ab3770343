# netns.sh - the multi-host test harness: "hosts" that are network
# namespaces on this machine, joined by veth pairs to a bridge that lives in
# its own namespace, each with an address and an sshd; optionally a
# single-machine Slurm (munge, slurmctld, one slurmd per host) configured in
# a temporary directory.
#
# Sourced by the tests in tests/hosts (bash).  Entry points:
#   hosts_require_root              skip (exit 77) unless root with ip netns
#   hosts_create N                  namespaces $HOSTS_NS[1..N], addresses
#                                   $HOSTS_ADDR[1..N]; cleanup on exit
#   hosts_add_interface NAME NET    a second interface NAME in each host,
#                                   address NET.I (a veth pair whose other
#                                   end stays in the bridge's namespace,
#                                   unbridged): $HOSTS_AUX_ADDR[1..N]
#   hosts_start_sshd                an sshd in each; sets DSM_SSH
#   hosts_start_slurm               munge + slurmctld + slurmds; sets
#                                   HOSTS_SLURM_ENV (env ... prefix)
#   hosts_run I CMD...              run CMD inside host I
#   hosts_procs I NAME              pids named NAME inside host I
# Every name carries a per-run id (pid and random), so two runs can go on
# at once; everything is undone by the EXIT trap, also when a test fails.
# A step that cannot run (no root, a package missing) prints why and exits
# 77, which meson reports as a skip, never as a pass.

set -u

HOSTS_ID=$(printf '%x%04x' $$ $((RANDOM)) | tail -c 7)
HOSTS_TMP=
HOSTS_COUNT=0
HOSTS_SW=
HOSTS_NS=()
HOSTS_ADDR=()
HOSTS_DAEMON_PIDS=()
HOSTS_AUX_ADDR=()

hosts_skip() {
  echo "SKIP: $*"
  exit 77
}

hosts_require_root() {
  [ "$(id -u)" -eq 0 ] || hosts_skip "needs root (network namespaces)"
  command -v ip >/dev/null || hosts_skip "ip (iproute2) is not installed"
  ip netns list >/dev/null 2>&1 || hosts_skip "ip netns does not work here"
}

hosts_cleanup() {
  local status=$?
  set +e
  local pid ns
  for pid in "${HOSTS_DAEMON_PIDS[@]}"; do
    kill -9 "$pid" 2>/dev/null
  done
  for ns in "${HOSTS_NS[@]}"; do
    [ -n "$ns" ] || continue
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      kill -9 "$pid" 2>/dev/null
    done
  done
  sleep 0.2   # let the kernel release the killed processes' sockets
  for ns in "${HOSTS_NS[@]}" $HOSTS_SW; do
    [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
  done
  [ -n "$HOSTS_TMP" ] && rm -rf "$HOSTS_TMP"
  exit $status
}

# hosts_create N: N namespaces on one bridge, 10.77.0.1 ... 10.77.0.N
# (the subnet is private to this run's bridge, so runs do not collide).
hosts_create() {
  local n=$1 i
  HOSTS_COUNT=$n
  HOSTS_TMP=$(mktemp -d /tmp/dsm-hosts.XXXXXX)
  chmod 0755 "$HOSTS_TMP"
  trap hosts_cleanup EXIT
  trap 'exit 130' INT TERM
  HOSTS_SW=dsw$HOSTS_ID
  ip netns add "$HOSTS_SW" || hosts_skip "cannot create a network namespace"
  ip -n "$HOSTS_SW" link add br0 type bridge || hosts_skip "no bridge support"
  ip -n "$HOSTS_SW" link set br0 up
  for ((i = 1; i <= n; i++)); do
    local ns=dh${HOSTS_ID}h$i
    HOSTS_NS[$i]=$ns
    HOSTS_ADDR[$i]=10.77.0.$i
    ip netns add "$ns" || hosts_skip "cannot create a network namespace"
    ip -n "$HOSTS_SW" link add "v$i" type veth peer name eth0 netns "$ns" ||
      hosts_skip "no veth support"
    ip -n "$HOSTS_SW" link set "v$i" master br0 up
    ip -n "$ns" addr add "10.77.0.$i/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
  done
}

# hosts_add_interface NAME NET: e.g. aux0 10.78.0 gives host I the
# address 10.78.0.I/24 on an interface of its own, up and running, that
# leads nowhere (its peer is not on the bridge).
hosts_add_interface() {
  local name=$1 net=$2 i
  for ((i = 1; i <= HOSTS_COUNT; i++)); do
    ip -n "$HOSTS_SW" link add "x$i" type veth peer name "$name" \
      netns "${HOSTS_NS[$i]}" || hosts_skip "no veth support"
    ip -n "$HOSTS_SW" link set "x$i" up
    ip -n "${HOSTS_NS[$i]}" addr add "$net.$i/24" dev "$name"
    ip -n "${HOSTS_NS[$i]}" link set "$name" up
    HOSTS_AUX_ADDR[$i]=$net.$i
  done
}

hosts_run() {
  local i=$1
  shift
  ip netns exec "${HOSTS_NS[$i]}" "$@"
}

hosts_procs() {
  local i=$1 name=$2 pid
  for pid in $(ip netns pids "${HOSTS_NS[$i]}"); do
    [ "$(cat /proc/$pid/comm 2>/dev/null)" = "$name" ] && echo "$pid"
  done
}

# Waits until PATTERN is a file; fails after 10 s.
hosts_wait_file() {
  local i
  for ((i = 0; i < 100; i++)); do
    [ -e "$1" ] && return 0
    sleep 0.1
  done
  return 1
}

hosts_start_sshd() {
  local sshd i
  sshd=$(command -v sshd || echo /usr/sbin/sshd)
  [ -x "$sshd" ] || hosts_skip "sshd is not installed (openssh-server)"
  command -v ssh >/dev/null || hosts_skip "ssh is not installed"
  command -v ssh-keygen >/dev/null || hosts_skip "ssh-keygen is not installed"
  mkdir -p /run/sshd   # sshd's privilege separation directory
  # throwaway keys: nothing in ~/.ssh is read or written
  ssh-keygen -q -t ed25519 -N '' -f "$HOSTS_TMP/host_key" || exit 1
  ssh-keygen -q -t ed25519 -N '' -f "$HOSTS_TMP/id" || exit 1
  cp "$HOSTS_TMP/id.pub" "$HOSTS_TMP/authorized_keys"
  chmod 0600 "$HOSTS_TMP/authorized_keys"
  for ((i = 1; i <= HOSTS_COUNT; i++)); do
    cat > "$HOSTS_TMP/sshd_$i.conf" <<CONF
ListenAddress ${HOSTS_ADDR[$i]}
Port 22
HostKey $HOSTS_TMP/host_key
PidFile $HOSTS_TMP/sshd_$i.pid
AuthorizedKeysFile $HOSTS_TMP/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
LogLevel ERROR
MaxStartups 100
CONF
    hosts_run "$i" "$sshd" -f "$HOSTS_TMP/sshd_$i.conf" \
      -E "$HOSTS_TMP/sshd_$i.log" ||
      { echo "FAIL: sshd did not start in host $i"; cat "$HOSTS_TMP/sshd_$i.log"; exit 1; }
    hosts_wait_file "$HOSTS_TMP/sshd_$i.pid" ||
      { echo "FAIL: sshd wrote no pid file in host $i"; exit 1; }
    HOSTS_DAEMON_PIDS+=("$(cat "$HOSTS_TMP/sshd_$i.pid")")
  done
  export DSM_SSH="ssh -T -F /dev/null -o BatchMode=yes -o ConnectTimeout=5 -i $HOSTS_TMP/id -o IdentitiesOnly=yes -o UserKnownHostsFile=$HOSTS_TMP/known_hosts -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR"
  # every host answers (an early failure names the host, not the job)
  for ((i = 1; i <= HOSTS_COUNT; i++)); do
    hosts_run 1 $DSM_SSH "${HOSTS_ADDR[$i]}" true ||
      { echo "FAIL: ssh to host $i does not work"; cat "$HOSTS_TMP/sshd_$i.log"; exit 1; }
  done
}

# hosts_start_slurm: munged (root namespace, private socket and key),
# slurmctld in host 1, one slurmd per host; each daemon runs in its own UTS
# namespace with hostname hI, the node name Slurm looks for.  Sets
# HOSTS_SLURM_ENV, the variables the Slurm clients need.
hosts_start_slurm() {
  local i t
  for d in munged slurmctld slurmd salloc srun sinfo unshare; do
    command -v $d >/dev/null || [ -x /usr/sbin/$d ] ||
      hosts_skip "$d is not installed (munge, slurmctld, slurmd, slurm-client)"
  done
  local S=$HOSTS_TMP/slurm
  mkdir -p "$S/ctld" && chmod 0700 "$S"
  dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$S/munge.key"
  /usr/sbin/munged --socket="$S/munge.sock" --key-file="$S/munge.key" \
    --pid-file="$S/munged.pid" --log-file="$S/munged.log" \
    --seed-file="$S/munged.seed" --force ||
    { cat "$S/munged.log"; hosts_skip "munged does not start here"; }
  hosts_wait_file "$S/munged.pid" || hosts_skip "munged wrote no pid file"
  HOSTS_DAEMON_PIDS+=("$(cat "$S/munged.pid")")

  cat > "$S/slurm.conf" <<CONF
ClusterName=dsm$HOSTS_ID
SlurmctldHost=h1(${HOSTS_ADDR[1]})
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge.sock
CredType=cred/munge
StateSaveLocation=$S/ctld
SlurmdSpoolDir=$S/slurmd.%n
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.%n.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
KillWait=2
InactiveLimit=0
SlurmctldDebug=info
SlurmdDebug=info
CONF
  for ((i = 1; i <= HOSTS_COUNT; i++)); do
    echo "NodeName=h$i NodeAddr=${HOSTS_ADDR[$i]} CPUs=$(nproc) State=UNKNOWN" >> "$S/slurm.conf"
  done
  echo "PartitionName=dsm Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >> "$S/slurm.conf"
  # slurmd needs a cgroup plugin even with task/none: the kind mounted
  if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
    printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' > "$S/cgroup.conf"
  else
    echo 'CgroupPlugin=cgroup/v1' > "$S/cgroup.conf"
  fi
  export SLURM_CONF=$S/slurm.conf
  HOSTS_SLURM_ENV="SLURM_CONF=$S/slurm.conf"

  hosts_run 1 unshare --uts sh -c "hostname h1 && exec /usr/sbin/slurmctld -i" ||
    { cat "$S/slurmctld.log"; hosts_skip "slurmctld does not start here"; }
  for ((i = 1; i <= HOSTS_COUNT; i++)); do
    hosts_run "$i" unshare --uts sh -c "hostname h$i && exec /usr/sbin/slurmd" ||
      { cat "$S/slurmd.h$i.log"; hosts_skip "slurmd does not start here"; }
  done
  for ((t = 0; t < 300; t++)); do
    local idle
    idle=$(hosts_run 1 sinfo -h -N -o %t 2>/dev/null | grep -c '^idle')
    [ "$idle" -eq "$HOSTS_COUNT" ] && return 0
    sleep 0.1
  done
  hosts_run 1 sinfo -N 2>&1
  tail -5 "$S/slurmctld.log" "$S"/slurmd.*.log
  echo "FAIL: the Slurm nodes did not become idle"
  exit 1
}
