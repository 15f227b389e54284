# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# lib.sh: sourced by the Slurm smoke tests (t*.sh). Needs bash and SLURM_CONF (set by ctest's
# slurm_cluster fixture, see CMakeLists.txt). Exit 77 means "skipped" (SKIP_RETURN_CODE).
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# A test run inside an outer Slurm job (ctest under salloc) must not look like a step of it:
# drop every SLURM_* variable but SLURM_CONF.
while read -r _v; do
  [[ $_v == SLURM_CONF ]] || unset "$_v"
done < <(compgen -e | grep '^SLURM_' || true)
unset _v

[[ -n ${SLURM_CONF:-} && -f $SLURM_CONF ]] ||
  fail "SLURM_CONF is not set or missing; run through ctest (fixture slurm_cluster) or source" \
       "'tests/slurm/cluster.sh env DIR'"

# srun/sbatch with a bound: a hung step must fail the test, not the whole ctest run.
HVD_SLURM_CMD_TIMEOUT=${HVD_SLURM_CMD_TIMEOUT:-120}
bounded() { timeout -k 5 "$HVD_SLURM_CMD_TIMEOUT" "$@"; }

# use_workdir DIR: make DIR empty and cd there. Tasks on the nodes must see it, so it must not
# be under /tmp (each node has its own /tmp); the tests pass a folder under the build tree.
use_workdir() {
  local dir
  dir=$(realpath -m -- "$1")
  [[ $dir != /tmp && $dir != /tmp/* ]] || fail "work folder must not be under /tmp: $dir"
  rm -rf -- "$dir"
  mkdir -p -- "$dir"
  cd -- "$dir"
}

# count_lines PATTERN TEXT: how many lines of TEXT match the extended regex PATTERN.
count_lines() { grep -cE -- "$1" <<<"$2" || true; }

# expect_count N PATTERN TEXT WHAT
expect_count() {
  local got
  got=$(count_lines "$2" "$3")
  [[ $got -eq $1 ]] || fail "$4: expected $1 lines matching '$2', got $got"
}

# wait_job JOBID: wait (bounded) until the job has finished; print its final state and exit code
# as "STATE EXITCODE" (e.g. "COMPLETED 0:0"). Polls scontrol every 0.2 s: sbatch --wait polls
# with a back-off of seconds. Finished jobs stay visible for MinJobAge (30 s).
wait_job() {
  local id=$1 info state code deadline=$((SECONDS + HVD_SLURM_CMD_TIMEOUT))
  while ((SECONDS < deadline)); do
    info=$(scontrol -o show job "$id" 2>/dev/null) || fail "job $id: scontrol show job failed"
    state=$(grep -oE 'JobState=[A-Z_]+' <<<"$info" | cut -d= -f2)
    code=$(grep -oE ' ExitCode=[0-9]+:[0-9]+' <<<"$info" | cut -d= -f2)
    case $state in
      PENDING | CONFIGURING | RUNNING | COMPLETING | SUSPENDED | "") sleep 0.2 ;;
      *) echo "$state $code"; return 0 ;;
    esac
  done
  timeout 10 scancel "$id" || true
  fail "job $id did not finish within ${HVD_SLURM_CMD_TIMEOUT}s"
}

# node_shm NODE: NODE's /dev/shm as the host sees it. Each node of the test cluster has a tmpfs
# of its own, in its slurmd's mount namespace (cluster.sh).
node_shm() {
  local pid
  pid=$(<"${HVD_SLURM_CLUSTER_DIR:?set by the ctest fixture}/run/hvd-$1.pid") ||
    fail "no pid file for $1's slurmd"
  echo "/proc/$pid/root/dev/shm"
}
