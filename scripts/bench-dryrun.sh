#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `hvdrun --dry-run` inside a (pretend) allocation of N one-task nodes: the time to predict
# every rank's environment, which must grow linearly with N.
# Usage: scripts/bench-dryrun.sh [N...] (default 256 1024 4096 16384). HVDRUN picks the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
hvdrun="${HVDRUN:-./build/bin/hvdrun}"
[ -x "$hvdrun" ] || { echo "bench-dryrun: build first (ninja -C build hvdrun)" >&2; exit 1; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 1024 4096 16384)
printf '%8s %10s\n' nodes seconds
for n in "${sizes[@]}"; do
  start=$EPOCHREALTIME
  env -i PATH="$PATH" HOME="${HOME:-/root}" SLURM_JOB_ID=4242 \
    SLURM_JOB_NODELIST="node[$(printf '%05d' 1)-$(printf '%05d' "$n")]" \
    SLURM_TASKS_PER_NODE="1(x$n)" SLURM_NTASKS="$n" SLURM_JOB_NUM_NODES="$n" \
    "$hvdrun" --dry-run -- /bin/true >/dev/null
  end=$EPOCHREALTIME
  echo "$n $start $end" | awk '{ printf "%8d %10.3f\n", $1, $3 - $2 }'
done
