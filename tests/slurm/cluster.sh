#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cluster.sh: a private, throw-away Slurm cluster on this machine for the test suite.
#
#   cluster.sh start DIR [--nodes N] [--own-network]
#                          build DIR (config, state, spool, logs, pid files, per-node /tmp),
#                          start slurmctld and N slurmd "nodes" (default 2: node1 ... nodeN, 8
#                          CPUs and gpu:4 each, each in its own mount+UTS namespace with a
#                          private /tmp, a private /dev/shm and host name nodeN, so PMIx and Open
#                          MPI see N hosts), wait until every node is idle. With --own-network
#                          each node also gets a network namespace: a veth pair into a bridge on
#                          the host, address 10.213.B.(10+i)/24 (B picked among free subnets),
#                          the host at 10.213.B.1; without it the nodes share the host's network
#                          at 127.0.0.1. Silent on success; on failure prints the daemon logs'
#                          tails, stops what it started and exits non-zero.
#   cluster.sh shape DIR NODE RATE|off
#                          (--own-network only) limit NODE's link to RATE (tc's units, e.g.
#                          200mbit) in both directions with a token bucket (tbf), or remove the
#                          limit. tbf, not netem: netem is not in every kernel (not in CI's).
#   cluster.sh stop DIR    kill the daemons (TERM, then KILL) and every process left in the
#                          nodes' namespaces (slurmstepd, stray tasks). Removes only pid files;
#                          logs stay for debugging. Idempotent; safe after a failed start.
#   cluster.sh env DIR     print `export SLURM_CONF=...` for clients (eval or source it).
#
# Facts behind the config: shared/docs/slurm-test-cluster.md (Debian 12, slurm-wlm 22.05, root, no munge).
# DIR must not be under /tmp (each node has its own /tmp); the test suite uses <build>/slurm-cluster.
# Ports are picked at start among free ones, so two clusters (two build trees) can run side by
# side. Env knobs: HVD_SLURM_START_TIMEOUT (seconds, default 60), HVD_SLURM_DEBUG (slurm log
# level, default info).
set -euo pipefail

readonly MARKER=.hvd-slurm-cluster
PROG=$(basename "$0")

die() { echo "$PROG: $*" >&2; exit 1; }
usage() {
  echo "usage: $PROG start DIR [--nodes N] [--own-network] | stop DIR | env DIR |" \
       "shape DIR NODE RATE|off" >&2
  exit 2
}

[[ $# -ge 2 ]] || usage
CMD=$1
[[ -n $2 ]] || usage
DIR=$(realpath -m -- "$2")
[[ $DIR != / ]] || die "refusing to use / as the cluster folder"
shift 2

CONF=$DIR/slurm.conf
RUN=$DIR/run          # pid files, recorded namespaces, the node list, the network's bridge
LOG=$DIR/log

OWN_NETWORK=0 SUBNET='' NODES=(node1 node2)
if [[ $CMD == start ]]; then
  while (($#)); do
    case $1 in
      --nodes)
        [[ ${2:-} =~ ^[1-8]$ ]] || die "--nodes takes 1 to 8, not '${2:-}'"
        NODES=()
        for ((i = 1; i <= $2; i++)); do NODES+=("node$i"); done
        shift 2 ;;
      --own-network) OWN_NETWORK=1; shift ;;
      *) usage ;;
    esac
  done
else
  [[ $CMD == shape ]] || (($# == 0)) || usage
fi
if [[ $CMD != start && -f $RUN/nodes ]]; then
  read -r -a NODES <"$RUN/nodes"   # what start made
fi
DAEMONS=(ctld "${NODES[@]}")   # each runs in its own mount namespace

# ---------------------------------------------------------------------------------------------
# helpers

# pid_alive PID [NAME...]: PID runs (not a zombie) and, when NAMEs are given, its command name
# is one of them (guards against pid reuse).
pid_alive() {
  local pid=$1 comm st
  shift
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  st=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  st=${st##*) }
  [[ ${st%% *} != Z ]] || return 1
  (($# == 0)) && return 0
  comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [[ " $* " == *" $comm "* ]]
}

# daemon_comm NAME: the command name of daemon NAME (ctld or a node).
daemon_comm() { if [[ $1 == ctld ]]; then echo slurmctld; else echo slurmd; fi; }

# The host's own mount namespace; never kill by namespace when it matches this.
HOST_MNTNS=$(readlink /proc/self/ns/mnt)
INIT_MNTNS=$(readlink /proc/1/ns/mnt 2>/dev/null || true)

# ns_pids NAME NS: pids of all live processes in mount namespace NS, but only if that namespace
# really is daemon NAME's: its /tmp must be DIR/tmp/NAME (a namespace's inode number can be
# reused once it is gone, e.g. after a crash and a reboot).
ns_pids() {
  local name=$1 ns=$2 p pids want got
  [[ -n $ns && $ns != "$HOST_MNTNS" && $ns != "$INIT_MNTNS" ]] || return 0
  # One find for all processes (a readlink per process would fork hundreds of times). Zombies
  # have no readable ns link, so they drop out.
  mapfile -t pids < <(find /proc/[0-9]*/ns/mnt -maxdepth 0 -printf '%l %p\n' 2>/dev/null |
    awk -v ns="$ns" '$1 == ns { split($2, a, "/"); print a[3] }')
  ((${#pids[@]})) || return 0
  want=$(stat -L -c %d:%i "$DIR/tmp/$name" 2>/dev/null) || return 0
  for p in "${pids[@]}"; do
    got=$(stat -L -c %d:%i "/proc/$p/root/tmp" 2>/dev/null) || continue
    [[ $got == "$want" ]] && { printf '%s\n' "${pids[@]}"; return 0; }
    echo "$PROG: namespace $ns is not $name's any more; leaving it alone" >&2
    return 0
  done
  return 0
}

# All pids this cluster owns: the daemons and everything in their namespaces (slurmscriptd,
# slurmstepd, tasks and whatever the tasks left behind).
cluster_pids() {
  local d pid
  for d in ctld "${NODES[@]}"; do
    if [[ -f $RUN/hvd-$d.pid ]]; then
      pid=$(<"$RUN/hvd-$d.pid")
      # Until unshare and sh have exec'ed the daemon, its pid has their names.
      pid_alive "$pid" unshare sh "$(daemon_comm "$d")" && echo "$pid"
    fi
    [[ -f $RUN/hvd-$d.mntns ]] && ns_pids "$d" "$(<"$RUN/hvd-$d.mntns")"
  done
  return 0
}

# wait_gone TENTHS: wait up to TENTHS/10 s until no cluster process is left.
wait_gone() {
  local i
  for ((i = 0; i < $1; i++)); do
    [[ -z $(cluster_pids) ]] && return 0
    sleep 0.1
  done
  [[ -z $(cluster_pids) ]]
}

# Bounded: TERM everything, wait up to 1.5 s, KILL what is left (slurmstepd ignores TERM), wait up
# to 5 s. Then only pid and namespace files are removed.
stop_cluster() {
  local pids
  [[ -d $RUN ]] || return 0
  pids=$(cluster_pids | sort -u)
  if [[ -n $pids ]]; then
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    if ! wait_gone 15; then
      pids=$(cluster_pids | sort -u)
      # shellcheck disable=SC2086
      [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
      wait_gone 50 || true
    fi
  fi
  pids=$(cluster_pids | sort -u)
  if [[ -n $pids ]]; then
    echo "$PROG: processes survived SIGKILL:" >&2
    ps -o pid,stat,comm,args -p "$(tr '\n' ',' <<<"$pids" | sed 's/,$//')" >&2 || true
    return 1
  fi
  rm -f "$RUN"/*.pid "$RUN"/*.mntns
  # The veth pairs went with the nodes' network namespaces; the bridge is the host's.
  if [[ -f $RUN/bridge ]]; then
    ip link del "$(<"$RUN/bridge")" 2>/dev/null || true
    rm -f "$RUN/bridge"
  fi
  return 0
}

# The daemons' log files, then their stdout/stderr (which shows what failed before logging).
print_logs() {
  local f
  for f in "$LOG"/*.log "$LOG"/*.out; do
    [[ -f $f ]] || continue
    echo "----- tail of $f -----" >&2
    tail -n "$([[ $f == *.log ]] && echo 30 || echo 10)" "$f" >&2 || true
  done
}

# pick_ports N: N distinct TCP ports that no socket uses now (listening or connected, IPv4 or
# IPv6), from 20000-31999, below Linux's default ephemeral range (32768-60999).
pick_ports() {
  local n=$1 used port tries=0 chosen=() f h
  used=$(for f in /proc/net/tcp /proc/net/tcp6; do
           [[ -r $f ]] && awk 'NR > 1 { split($2, a, ":"); print a[2] }' "$f"
         done | sort -u | while read -r h; do echo $((16#$h)); done)
  while ((${#chosen[@]} < n)); do
    ((tries++ < 1000)) || die "could not find $n free TCP ports"
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
    grep -qx "$port" <<<"$used" && continue
    [[ " ${chosen[*]} " == *" $port "* ]] && continue
    chosen+=("$port")
  done
  echo "${chosen[@]}"
}

# make_bridge: the host's side of --own-network: a bridge in a free 10.213.B.0/24, the host at .1.
make_bridge() {
  local b
  for b in $(shuf -i 1-254 -n 40); do
    ip -o -4 addr show | grep -q " 10\.213\.$b\." && continue
    ip link add "hvdbr$b" type bridge 2>/dev/null || continue   # taken by another cluster
    echo "hvdbr$b" >"$RUN/bridge"
    SUBNET=10.213.$b
    ip addr add "$SUBNET.1/24" dev "hvdbr$b" && ip link set "hvdbr$b" up && return 0
    die "could not configure bridge hvdbr$b"
  done
  die "no free 10.213.B.0/24 subnet for the cluster's network"
}

# node_veth NODE: the host's end of NODE's veth pair (names stay under IFNAMSIZ).
node_veth() { local br; br=$(<"$RUN/bridge"); echo "hvd${br#hvdbr}n${1#node}"; }

# connect_node NODE PID: a veth pair from the bridge into NODE's network namespace (eth0 there);
# the node's start script waits for eth0 and configures it.
connect_node() {
  local veth
  veth=$(node_veth "$1")
  if ! ip link add "$veth" type veth peer name eth0 netns "$2" ||
     ! ip link set "$veth" master "$(<"$RUN/bridge")" up; then
    fail_start "could not connect $1 to the cluster's network"
  fi
}

# shape NODE RATE|off: a token bucket on both ends of NODE's veth pair (both directions).
shape_node() {
  local node=$1 rate=$2 pid veth
  [[ -f $RUN/bridge ]] || die "the cluster in $DIR has no network of its own (start --own-network)"
  [[ -f $RUN/hvd-$node.pid ]] || die "no node $node in the cluster in $DIR"
  pid=$(<"$RUN/hvd-$node.pid")
  veth=$(node_veth "$node")
  if [[ $rate == off ]]; then
    tc qdisc del dev "$veth" root 2>/dev/null || true
    nsenter -t "$pid" -n tc qdisc del dev eth0 root 2>/dev/null || true
  else
    tc qdisc replace dev "$veth" root tbf rate "$rate" burst 64kb latency 200ms
    nsenter -t "$pid" -n tc qdisc replace dev eth0 root tbf rate "$rate" burst 64kb latency 200ms
  fi
}

# node_addr I: the I-th node's address (1-based); host_addr: the host's, as the nodes reach it.
node_addr() { if ((OWN_NETWORK)); then echo "$SUBNET.$((10 + $1))"; else echo 127.0.0.1; fi; }
host_addr() { if ((OWN_NETWORK)); then echo "$SUBNET.1"; else echo 127.0.0.1; fi; }

write_config() {
  local ctld_port=$1 level=${HVD_SLURM_DEBUG:-info} i
  shift
  local ports=("$@")
  cat >"$CONF" <<EOF
# Generated by $PROG start; private test cluster, see shared/docs/slurm-test-cluster.md.
ClusterName=hvdtest
SlurmctldHost=$(hostname -s)($(host_addr))
SlurmctldPort=$ctld_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
# Requeue (t0170): a requeued batch job may start again only cred_expire s later (default 120).
AuthInfo=cred_expire=20
JobRequeue=1
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
SlurmctldDebug=$level
SlurmdDebug=$level
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
MpiDefault=none
GresTypes=gpu
SlurmdParameters=config_overrides
KillWait=2
MessageTimeout=10
SlurmctldTimeout=30
SlurmdTimeout=60
InactiveLimit=0
MinJobAge=30
WaitTime=0
EOF
  for ((i = 1; i <= ${#NODES[@]}; i++)); do
    echo "NodeName=node$i NodeHostname=localhost NodeAddr=$(node_addr "$i") Port=${ports[i - 1]}" \
         "CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000 Gres=gpu:4" \
         "State=UNKNOWN" >>"$CONF"
  done
  echo "PartitionName=debug Nodes=node[1-${#NODES[@]}] Default=YES MaxTime=01:00:00 State=UP" \
    >>"$CONF"
  # Four distinct character devices that exist everywhere stand in for GPUs; plain files are
  # refused ("not a valid character or block device").
  cat >"$DIR/gres.conf" <<EOF
Name=gpu File=/dev/null,/dev/zero,/dev/full,/dev/urandom
EOF
}

# nodes_idle: sinfo reports every node idle.
nodes_idle() {
  local out n
  out=$(SLURM_CONF=$CONF timeout 10 sinfo -N -h -o '%N %t' 2>/dev/null) || return 1
  for n in "${NODES[@]}"; do
    grep -qE "^$n idle\$" <<<"$out" || return 1
  done
}

fail_start() {
  echo "$PROG: start failed: $*" >&2
  if [[ -f $CONF ]]; then
    echo "----- sinfo -N -----" >&2
    SLURM_CONF=$CONF timeout 10 sinfo -N -o '%N %t %E' >&2 2>&1 || true
  fi
  print_logs
  stop_cluster || true
  exit 1
}

# launch NAME UNSHARE_OPTS... -- SCRIPT [ARGS...]: run SCRIPT (sh; $1 NAME, $2 its private
# tmp, $3 the config, then ARGS) under unshare, record its pid and, once unshare has made it,
# its mount namespace.
launch() {
  local name=$1 opts=() pid ns i
  shift
  while [[ $1 != -- ]]; do opts+=("$1"); shift; done
  shift
  unshare "${opts[@]}" --propagation private sh -c "$1" sh "$name" "$DIR/tmp/$name" "$CONF" \
    "${@:2}" </dev/null >"$LOG/$name.out" 2>&1 &
  pid=$!
  echo "$pid" >"$RUN/hvd-$name.pid"
  # Never record the host's own namespace (before unshare(2) the child is still in it).
  ns=
  for ((i = 0; i < 50; i++)); do
    ns=$(readlink "/proc/$pid/ns/mnt" 2>/dev/null) || { ns=; break; }
    [[ $ns != "$HOST_MNTNS" ]] && break
    ns=
    sleep 0.1
  done
  [[ -n $ns ]] || fail_start "$(daemon_comm "$name") for $name did not start"
  echo "$ns" >"$RUN/hvd-$name.mntns"
}

# stop_leftover: stop the cluster an earlier start left in DIR, with that start's nodes.
stop_leftover() {
  local NODES=("${NODES[@]}")   # dynamic scope: stop_cluster sees these
  if [[ -f $RUN/nodes ]]; then read -r -a NODES <"$RUN/nodes"; fi
  stop_cluster
}

start_cluster() {
  local n ports timeout=${HVD_SLURM_START_TIMEOUT:-60}
  [[ $(id -u) -eq 0 ]] || die "must run as root (slurmd, unshare and mount need it)"
  local t
  for t in slurmctld slurmd sinfo unshare mount hostname; do
    command -v "$t" >/dev/null || die "$t not found in PATH"
  done
  # Each node sees its own /tmp; the cluster folder must be visible to all of them.
  local realdir
  realdir=$(realpath -m -- "$DIR")
  [[ $realdir != /tmp && $realdir != /tmp/* ]] || die "DIR must not be under /tmp: $DIR"

  # Leftovers from an earlier run (crash, Ctrl-C) go first; then start from empty folders
  # (stale PMIx sockets in a reused spool break srun --mpi=pmix).
  if [[ -d $DIR ]]; then
    if [[ -n $(ls -A "$DIR") && ! -e $DIR/$MARKER ]]; then
      die "$DIR exists, is not empty and was not made by $PROG; refusing to clean it"
    fi
    stop_leftover || die "could not stop the cluster left in $DIR"
    find "$DIR" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +
  fi
  mkdir -p "$DIR" "$RUN" "$LOG" "$DIR/state" "$DIR/spool"
  touch "$DIR/$MARKER"
  for n in "${DAEMONS[@]}"; do
    mkdir -p "$DIR/tmp/$n"
    chmod 1777 "$DIR/tmp/$n"
  done
  for n in "${NODES[@]}"; do mkdir -p "$DIR/spool/$n"; done

  echo "${NODES[*]}" >"$RUN/nodes"
  if ((OWN_NETWORK)); then make_bridge; fi
  read -r -a ports <<<"$(pick_ports $((${#NODES[@]} + 1)))"
  write_config "${ports[@]}"
  export SLURM_CONF=$CONF
  # Daemons must not think they run inside some outer job.
  while read -r v; do
    [[ $v == SLURM_CONF ]] || unset "$v"
  done < <(compgen -e | grep '^SLURM_' || true)

  # Every daemon runs in the foreground (-D) in the background of this script, with its output
  # in a file so that nobody (ctest) waits on our pipes, in its own mount namespace with a
  # private /tmp (DIR/tmp/NAME): stop then finds everything it forked (slurmscriptd,
  # slurmstepd, tasks) by namespace, even after the daemon itself died. The nodes also get
  # their own UTS namespace with host name nodeN: PMIx's /tmp/spmix_appdir_* and Open MPI's
  # host-name-based locality need both. Each node also gets a /dev/shm of its own, as real nodes
  # have: with one shared /dev/shm, the same job on two clusters (or a stale file from an earlier
  # cluster) names the same Open MPI segment (vader_segment.nodeN.<job hash>.<local rank>), and
  # one process's exit removes another's (seen once in CI: open(2) ENOENT, then SIGSEGV). The
  # node's tmpfs lives as long as its namespace; tests read it as /proc/<slurmd pid>/root/dev/shm.
  # unshare execs sh, which execs the daemon, so $! is the daemon's pid.
  # shellcheck disable=SC2016  # $1..$3 are sh's arguments
  launch ctld -m -- 'mount --bind "$2" /tmp && exec slurmctld -D -f "$3"'
  local i=0 net_opts=() net_script=
  if ((OWN_NETWORK)); then
    net_opts=(-n)
    # $4: the node's address, $5: the host's. eth0 appears once the host has made the pair. A
    # sysfs of the namespace's own, so /sys/class/net lists the node's NICs (preflight's check),
    # with the host's cgroup tree moved over into it (slurmd needs /sys/fs/cgroup).
    # shellcheck disable=SC2016
    net_script='mkdir -p /tmp/.hvd-cgroup && mount --rbind /sys/fs/cgroup /tmp/.hvd-cgroup &&
      mount -t sysfs sysfs /sys && mount --move /tmp/.hvd-cgroup /sys/fs/cgroup &&
      ip link set lo up && t=0 && while ! ip link show eth0 >/dev/null 2>&1; do
        t=$((t + 1)); [ $t -lt 200 ] || exit 1; sleep 0.05; done &&
      ip addr add "$4/24" dev eth0 && ip link set eth0 up && ip route add default via "$5" &&'
  fi
  for n in "${NODES[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2016
    launch "$n" -m -u "${net_opts[@]}" -- 'hostname "$1" && mount --bind "$2" /tmp &&
      mount -t tmpfs -o mode=1777,size=50% "shm-$1" /dev/shm && '"$net_script"'
      exec slurmd -D -f "$3" -N "$1"' "$(node_addr "$i")" "$(host_addr)"
    if ((OWN_NETWORK)); then connect_node "$n" "$(<"$RUN/hvd-$n.pid")"; fi
  done

  local deadline=$((SECONDS + timeout))
  while ! nodes_idle; do
    for n in "${DAEMONS[@]}"; do
      pid_alive "$(<"$RUN/hvd-$n.pid")" ||
        fail_start "$(daemon_comm "$n") for $n exited"
    done
    ((SECONDS < deadline)) || fail_start "nodes not idle after ${timeout}s"
    sleep 0.5
  done
}

case $CMD in
  start)
    # A port picked as free can be taken before the daemon binds it; then try other ports.
    for attempt in 1 2 3; do
      set +e
      (set -e; start_cluster)
      rc=$?
      set -e
      ((rc == 0)) && exit 0
      grep -qs 'Address already in use' "$LOG"/*.log "$LOG"/*.out || exit "$rc"
      ((attempt < 3)) && echo "$PROG: a port was taken; starting again with other ports" >&2
    done
    exit "$rc"
    ;;
  stop)
    stop_cluster || die "some processes could not be stopped"
    ;;
  shape)
    [[ $# -eq 2 ]] || usage
    shape_node "$1" "$2"
    ;;
  env)
    [[ -f $CONF ]] || die "no cluster config at $CONF (run '$PROG start $DIR' first)"
    printf 'export SLURM_CONF=%q\n' "$CONF"
    ;;
  *) usage ;;
esac
