#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Launch overhead: `hvdrun -np 8 -- /bin/true` against `mpirun --oversubscribe -np 8 /bin/true`,
# interleaved in one run (so both see the same machine load), median of RUNS each.
# Usage: scripts/bench-launch.sh [RUNS=20] [NP=8]. Prints a table and the ratio of medians.
# HVD_PROGRAM=PATH runs that program under hvdrun instead of /bin/true, e.g. hvd-whoami, whose
# ranks all connect to the store and authenticate: then hvdrun's time runs from launch to every
# rank having proven the run's secret (mpirun still runs /bin/true).
# HVDRUN_BASELINE=PATH (an older build's hvdrun) adds it as a third command in the same
# interleaved loop, with HVD_BASELINE_PROGRAM (default: the same program) under it, and prints
# the new/old ratio: what a change costs at launch, measured under the same load.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"
np="${2:-8}"
hvdrun="${HVDRUN:-./build/bin/hvdrun}"
[ -x "$hvdrun" ] || { echo "bench-launch: build first (scripts/build.sh)" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "bench-launch: mpirun not found (openmpi-bin)" >&2; exit 1; }
mpirun_flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun_flags+=(--allow-run-as-root)

hvd_program="${HVD_PROGRAM:-/bin/true}"
hvd_cmd=("$hvdrun" -np "$np" -- "$hvd_program")
mpi_cmd=(mpirun "${mpirun_flags[@]}" -np "$np" /bin/true)
base_hvdrun="${HVDRUN_BASELINE:-}"
base_cmd=()
if [ -n "$base_hvdrun" ]; then
  [ -x "$base_hvdrun" ] || { echo "bench-launch: HVDRUN_BASELINE=$base_hvdrun is not executable" >&2; exit 1; }
  base_cmd=("$base_hvdrun" -np "$np" -- "${HVD_BASELINE_PROGRAM:-$hvd_program}")
fi

# Wall time of one command in milliseconds; bash's EPOCHREALTIME avoids forking a timer.
time_ms() {
  local start end
  start=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || { echo "bench-launch: failed: $*" >&2; exit 1; }
  end=$EPOCHREALTIME
  echo "$start $end" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One warm-up each, so that neither pays for a cold page cache.
time_ms "${hvd_cmd[@]}" >/dev/null
time_ms "${mpi_cmd[@]}" >/dev/null
[ ${#base_cmd[@]} -eq 0 ] || time_ms "${base_cmd[@]}" >/dev/null
hvd_times=()
mpi_times=()
base_times=()
for ((i = 0; i < runs; i++)); do
  hvd_times+=("$(time_ms "${hvd_cmd[@]}")")
  mpi_times+=("$(time_ms "${mpi_cmd[@]}")")
  [ ${#base_cmd[@]} -eq 0 ] || base_times+=("$(time_ms "${base_cmd[@]}")")
done
hvd_median=$(printf '%s\n' "${hvd_times[@]}" | median)
mpi_median=$(printf '%s\n' "${mpi_times[@]}" | median)
hvd_min=$(printf '%s\n' "${hvd_times[@]}" | sort -g | head -1)
mpi_min=$(printf '%s\n' "${mpi_times[@]}" | sort -g | head -1)

printf '%-48s %6s %12s %10s\n' "command" "runs" "median(ms)" "min(ms)"
printf '%-48s %6d %12.1f %10.1f\n' "hvdrun -np $np -- $(basename "$hvd_program")" "$runs" "$hvd_median" "$hvd_min"
printf '%-48s %6d %12.1f %10.1f\n' "mpirun --oversubscribe -np $np /bin/true" "$runs" "$mpi_median" "$mpi_min"
awk -v h="$hvd_median" -v m="$mpi_median" 'BEGIN { printf "ratio hvdrun/mpirun (medians): %.3f (target <= 0.5)\n", h / m }'
if [ ${#base_cmd[@]} -gt 0 ]; then
  base_median=$(printf '%s\n' "${base_times[@]}" | median)
  base_min=$(printf '%s\n' "${base_times[@]}" | sort -g | head -1)
  printf '%-48s %6d %12.1f %10.1f\n' "baseline hvdrun -np $np -- $(basename "${base_cmd[-1]}")" "$runs" "$base_median" "$base_min"
  awk -v h="$hvd_median" -v b="$base_median" 'BEGIN { printf "ratio hvdrun/baseline (medians): %.3f\n", h / b }'
  awk -v h="$hvd_median" -v b="$base_median" -v m="$mpi_median" 'BEGIN { printf "baseline/mpirun (medians): %.3f\n", b / m }'
fi
