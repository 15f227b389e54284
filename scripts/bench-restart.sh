#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --max-restarts: the time from a rank's failure to all ranks running again. Each rank first
# meets the others through libhvd (hvd-whoami); then rank 1 notes the time and exits 3, and the
# others wait in `sleep` (which SIGTERM ends at once). In the restarted attempt every rank notes
# when it starts, meets the others through libhvd again (a new store and secret) and notes that
# too. Two rows: failure -> the last rank's process started, failure -> the last rank through
# the new rendezvous. Median of RUNS jobs.
# Usage: scripts/bench-restart.sh [RUNS=10] [NP=4]            (ranks on this machine)
#        scripts/bench-restart.sh --slurm [RUNS=10]           (2 nodes x 2 ranks, private
#                                                              test cluster; needs root)
set -euo pipefail
cd "$(dirname "$0")/.."
slurm=0
if [ "${1:-}" = "--slurm" ]; then slurm=1; shift; fi
runs="${1:-10}"
np="${2:-4}"
build="${HVD_BUILD_DIR:-build}"
hvdrun="$PWD/$build/bin/hvdrun"
whoami="$PWD/$build/bin/hvd-whoami"
[ -x "$hvdrun" ] && [ -x "$whoami" ] || { echo "bench-restart: build first (scripts/build.sh)" >&2; exit 1; }
work="$PWD/$build/bench-restart"   # not /tmp: Slurm's nodes each have their own
rm -rf "$work" && mkdir -p "$work"

rank='r=$HOROVOD_RANK d=$BENCH_DIR
if [ "$TORCHELASTIC_RESTART_COUNT" = 0 ]; then
  "$WHOAMI" >/dev/null || exit 1
  if [ "$r" = 1 ]; then date +%s%N >"$d/fail"; exit 3; fi
  exec sleep 600
fi
date +%s%N >"$d/start.$r"; "$WHOAMI" >/dev/null || exit 1; date +%s%N >"$d/ready.$r"'

launch=("$hvdrun" -np "$np")
where="this machine, $np ranks"
if [ "$slurm" = 1 ]; then
  cluster="$PWD/$build/bench-slurm-cluster"
  trap 'bash tests/slurm/cluster.sh stop "$cluster" >/dev/null 2>&1 || true' EXIT
  bash tests/slurm/cluster.sh start "$cluster"
  eval "$(bash tests/slurm/cluster.sh env "$cluster")"
  unset SLURM_JOB_ID SLURM_JOBID
  launch=(salloc --quiet -N 2 --ntasks-per-node=2 "$hvdrun" --profile
          "$PWD/tests/data/site-profiles/hvdtest.yaml")
  where="Slurm test cluster, 2 nodes x 2 ranks, new srun step"
  np=4
fi

ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f\n", (b - a) / 1e6 }'; }
latest() { cat "$@" | sort -n | tail -1; }
: >"$work/results"
for ((i = 0; i < runs; i++)); do
  dir="$work/run.$i" && mkdir -p "$dir"
  BENCH_DIR="$dir" WHOAMI="$whoami" "${launch[@]}" --max-restarts 1 -- /bin/sh -c "$rank" \
    >"$dir/out" 2>&1 || { cat "$dir/out"; echo "bench-restart: run $i failed" >&2; exit 1; }
  fail=$(cat "$dir/fail")
  echo "started $(ms "$fail" "$(latest "$dir"/start.*)")" >>"$work/results"
  echo "ready $(ms "$fail" "$(latest "$dir"/ready.*)")" >>"$work/results"
done
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }
printf '%-72s %4s %10s %14s\n' "from rank 1's failure to ... ($where)" runs "median(ms)" "range(ms)"
for what in started ready; do
  label="all $np rank processes started again"
  [ "$what" = ready ] && label="all $np ranks through the new rendezvous (hvd-whoami)"
  values=$(awk -v w="$what" '$1 == w { print $2 }' "$work/results")
  printf '%-72s %4s %10s %14s\n' "$label" "$runs" "$(median <<<"$values")" "$(range <<<"$values")"
done
