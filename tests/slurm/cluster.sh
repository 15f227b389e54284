#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cluster.sh: a private, throw-away Slurm cluster on this machine for the test suite.
#
#   cluster.sh start DIR   build DIR (config, state, spool, logs, pid files, per-node /tmp),
#                          start slurmctld and two slurmd "nodes" (node1, node2: 8 CPUs and
#                          gpu:4 each, each in its own mount+UTS namespace with a private /tmp,
#                          a private /dev/shm and host name nodeN, so PMIx and Open MPI see two
#                          hosts), wait until
#                          both nodes are idle. Silent on success; on failure prints the daemon
#                          logs' tails, stops what it started and exits non-zero.
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

readonly NODES=(node1 node2)
readonly DAEMONS=(ctld "${NODES[@]}")   # each runs in its own mount namespace
readonly MARKER=.hvd-slurm-cluster
PROG=$(basename "$0")

die() { echo "$PROG: $*" >&2; exit 1; }
usage() { echo "usage: $PROG start|stop|env DIR" >&2; exit 2; }

[[ $# -eq 2 ]] || usage
CMD=$1
[[ -n $2 ]] || usage
DIR=$(realpath -m -- "$2")
[[ $DIR != / ]] || die "refusing to use / as the cluster folder"

CONF=$DIR/slurm.conf
RUN=$DIR/run          # pid files and recorded namespaces
LOG=$DIR/log

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
  for d in "${DAEMONS[@]}"; do
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

write_config() {
  local ctld_port=$1 p1=$2 p2=$3 level=${HVD_SLURM_DEBUG:-info}
  cat >"$CONF" <<EOF
# Generated by $PROG start; private test cluster, see shared/docs/slurm-test-cluster.md.
ClusterName=hvdtest
SlurmctldHost=$(hostname -s)(127.0.0.1)
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
NodeName=node1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$p1 CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000 Gres=gpu:4 State=UNKNOWN
NodeName=node2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$p2 CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000 Gres=gpu:4 State=UNKNOWN
PartitionName=debug Nodes=node[1-2] Default=YES MaxTime=01:00:00 State=UP
EOF
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

# launch NAME UNSHARE_OPTS... -- SCRIPT: run SCRIPT (sh; $1 NAME, $2 its private tmp, $3 the
# config) under unshare, record its pid and, once unshare has made it, its mount namespace.
launch() {
  local name=$1 opts=() pid ns i
  shift
  while [[ $1 != -- ]]; do opts+=("$1"); shift; done
  shift
  unshare "${opts[@]}" --propagation private sh -c "$1" sh "$name" "$DIR/tmp/$name" "$CONF" \
    </dev/null >"$LOG/$name.out" 2>&1 &
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
    stop_cluster || die "could not stop the cluster left in $DIR"
    find "$DIR" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +
  fi
  mkdir -p "$DIR" "$RUN" "$LOG" "$DIR/state" "$DIR/spool"
  touch "$DIR/$MARKER"
  for n in "${DAEMONS[@]}"; do
    mkdir -p "$DIR/tmp/$n"
    chmod 1777 "$DIR/tmp/$n"
  done
  for n in "${NODES[@]}"; do mkdir -p "$DIR/spool/$n"; done

  read -r -a ports <<<"$(pick_ports 3)"
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
  for n in "${NODES[@]}"; do
    # shellcheck disable=SC2016
    launch "$n" -m -u -- 'hostname "$1" && mount --bind "$2" /tmp &&
      mount -t tmpfs -o mode=1777,size=50% "shm-$1" /dev/shm && exec slurmd -D -f "$3" -N "$1"'
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
  env)
    [[ -f $CONF ]] || die "no cluster config at $CONF (run '$PROG start $DIR' first)"
    printf 'export SLURM_CONF=%q\n' "$CONF"
    ;;
  *) usage ;;
esac
