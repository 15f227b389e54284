#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Launch overhead inside a Slurm allocation: `hvdrun -- /bin/true` (one srun step of exec-rank
# shims) against a plain `srun /bin/true` of the same shape, interleaved in one allocation on
# the private test cluster (tests/slurm/cluster.sh; needs root). Median of RUNS each.
# Two rows split hvdrun's cost: the exact srun line hvdrun runs (from --dry-run), once with
# /bin/true in place of exec-rank (srun's own flags) and once as is (exec-rank in every task);
# what hvdrun adds beyond the second is its own planning, store and waiting.
# Two more rows show what MPI programs pay: hvdrun --mpi (srun --mpi=pmix with the test
# profile), and srun with the flags hvdrun --mpi passes (--mpi=pmix, --label,
# --kill-on-bad-exit=1), which separates the PMIx plugin's cost from hvdrun's.
# Usage: scripts/bench-slurm-launch.sh [RUNS=20]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"
build="${HVD_BUILD_DIR:-build}"
hvdrun="$PWD/$build/bin/hvdrun"
[ -x "$hvdrun" ] || { echo "bench-slurm-launch: build first (scripts/build.sh)" >&2; exit 1; }
cluster="$PWD/$build/bench-slurm-cluster"
trap 'bash tests/slurm/cluster.sh stop "$cluster" >/dev/null 2>&1 || true' EXIT
bash tests/slurm/cluster.sh start "$cluster"
eval "$(bash tests/slurm/cluster.sh env "$cluster")"
unset SLURM_JOB_ID SLURM_JOBID  # never measure inside someone else's allocation

# Runs inside the allocation: alternates the commands and prints one "name ms" per run.
measure='
t() { local s=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
      echo "$s $EPOCHREALTIME" | awk "{ printf \"%.3f\n\", (\$2 - \$1) * 1000 }"; }
same_flags=(srun --ntasks-per-node=4 --mpi=pmix --label --kill-on-bad-exit=1 /bin/true)
# The step line hvdrun runs, and the same with /bin/true where exec-rank starts.
mapfile -t step < <("$HVDRUN" --dry-run --profile hvdtest -- /bin/true |
  /usr/bin/python3 -c "import json, sys; print(*json.load(sys.stdin)[\"starter\"][\"argv\"], sep=\"\n\")")
for ((k = 0; k < ${#step[@]}; k++)); do [[ ${step[k]} == "$HVDRUN" ]] && break; done
((k < ${#step[@]})) || { echo "no $HVDRUN in the dry-run srun line" >&2; exit 1; }
step_flags=("${step[@]:0:k}" /bin/true)
t "$HVDRUN" --profile hvdtest -- /bin/true >/dev/null; t srun --ntasks-per-node=4 /bin/true >/dev/null
for ((i = 0; i < RUNS; i++)); do
  echo "hvdrun $(t "$HVDRUN" --profile hvdtest -- /bin/true)"
  echo "srun $(t srun --ntasks-per-node=4 /bin/true)"
  echo "step_true $(t "${step_flags[@]}")"
  echo "step_exec_rank $(t "${step[@]}")"
  echo "srun_flags $(t "${same_flags[@]}")"
  echo "hvdrun_mpi $(t "$HVDRUN" --mpi --profile hvdtest -- /bin/true)"
done'
results=$(HVDRUN="$hvdrun" RUNS="$runs" salloc --quiet -N 2 --ntasks-per-node=4 bash -c "$measure")
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
hvd=$(awk '$1 == "hvdrun" { print $2 }' <<<"$results" | median)
plain=$(awk '$1 == "srun" { print $2 }' <<<"$results" | median)
flags=$(awk '$1 == "srun_flags" { print $2 }' <<<"$results" | median)
with_mpi=$(awk '$1 == "hvdrun_mpi" { print $2 }' <<<"$results" | median)
step_true=$(awk '$1 == "step_true" { print $2 }' <<<"$results" | median)
step_exec_rank=$(awk '$1 == "step_exec_rank" { print $2 }' <<<"$results" | median)
printf '%-58s %5s %11s\n' "command (2 nodes x 4 ranks, inside one salloc)" "runs" "median(ms)"
printf '%-58s %5d %11.1f\n' "hvdrun --profile hvdtest -- /bin/true" "$runs" "$hvd"
printf '%-58s %5d %11.1f\n' "srun --ntasks-per-node=4 /bin/true" "$runs" "$plain"
printf '%-58s %5d %11.1f\n' "hvdrun's srun line, /bin/true instead of exec-rank" "$runs" "$step_true"
printf '%-58s %5d %11.1f\n' "hvdrun's srun line (exec-rank -- /bin/true)" "$runs" "$step_exec_rank"
printf '%-58s %5d %11.1f\n' "srun ... --mpi=pmix --label --kill-on-bad-exit=1 /bin/true" "$runs" "$flags"
printf '%-58s %5d %11.1f\n' "hvdrun --mpi --profile hvdtest -- /bin/true" "$runs" "$with_mpi"
awk -v h="$hvd" -v s="$plain" 'BEGIN {
  over = h - s; limit = (s * 0.10 > 50) ? s * 0.10 : 50;
  printf "hvdrun adds %.1f ms (%.1f%%) over plain srun; target: at most max(10%%, 50 ms) = %.1f ms\n", over, 100 * over / s, limit }'
awk -v h="$hvd" -v s="$plain" -v t="$step_true" -v e="$step_exec_rank" 'BEGIN {
  printf "of which: srun flags %.1f ms, exec-rank in the tasks %.1f ms, hvdrun itself %.1f ms\n",
    t - s, e - t, h - e }'
awk -v h="$with_mpi" -v f="$flags" 'BEGIN { printf "hvdrun --mpi over srun with the same flags: %.1f ms\n", h - f }'
