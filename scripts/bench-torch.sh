#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hvdrun.torch against torch's own data parallelism, in the same processes launched by this
# build's hvdrun, in one run, interleaved (so all see the same machine load):
#  1. Training (scripts/bench/torch_train.py --impl hvd,ddp,local): the same model, synthetic data
#     and batch per rank, with hvdrun.torch's DistributedOptimizer, with DistributedDataParallel
#     over gloo, and alone (local: no communication, the ceiling of any data-parallel
#     implementation), three copies of the model in each rank's process, trained in turns of a few
#     steps; on 1 and 2 ranks, for an MLP and the CNN of the Fashion-MNIST example (28x28) and
#     torchvision's ResNet-18 (62 parameter tensors) on 32x32 images. hvd and DDP wrap at every
#     size, as users' scripts do. Every rank gets one intra-op thread (OMP_NUM_THREADS=1,
#     torch.set_num_threads(1)), so each rank is one "device" and 1 -> 2 ranks measures
#     data-parallel scaling, as in bench-train.sh. (Separate processes, as before, measured mostly
#     which process got the faster memory and core: the same code's CPU time per image varied by up
#     to 1.5x between processes on the 2-core VM.)
#  2. One tensor's allreduce (scripts/bench/torch_allreduce.py), 8 B to 64 MiB on 2 ranks:
#     hvdrun.torch.allreduce_ against torch.distributed.all_reduce (gloo), in the same processes.
#
# Usage: scripts/bench-torch.sh [--rounds N] [--steps-scale X] [--allreduce-scale X]
#                               [--models mlp,cnn,resnet18] [--no-allreduce] [--competitor]
#                               [--verify-every N]
# --verify-every N: each round also trains the three on 2 ranks under hvdrun --verify-every N (the
# check runs in hvd's steps), and a table compares the runs with and without it: hvd/ddp with the
# check over hvd/ddp without (noisy on a shared machine), and the check's own time per step over the
# step time (its overhead as measured inside the run). The timed steps must reach N for a check to
# run: raise --steps-scale (the step counts are below; e.g. --steps-scale 5 for mlp and cnn).
# --competitor: one CPU-bound process per core (pinned to it with taskset when there is one)
# for the whole run, as another job on the same nodes would be: a rank whose helper threads
# spin or wake often loses its core's time slices to it. They are killed when the script
# ends, Ctrl-C and errors included.
# Defaults (3 rounds, the step counts below) take about three minutes on 2 cores; --rounds 5
# --steps-scale 3 --allreduce-scale 3 gives steadier medians. Prints every run, then medians:
# img/s of all ranks, ratio hvd/ddp (target >= 1.1 at 2 ranks, >= 1.0 at 1), wait on
# communication per step (how each is measured: torch_train.py's docstring), scaling efficiency
# 1 -> 2 ranks, and per size the allreduce times and ratio hvd/gloo (target <= 1.0). Ends with
# the load average. Rank 0's process CPU time per image (all its threads, in each side's own
# steps) is printed too. "local/ddp" is the ceiling of hvd/ddp: the rate of the same steps with
# nothing communicated and no wrapper, timed on the slowest rank (each rank trains "local" at its
# own core's pace, and a synchronous step waits for the slowest), over DDP's.
set -euo pipefail
cd "$(dirname "$0")/.."
hvdrun="${HVDRUN:-./build/bin/hvdrun}"
python="${PYTHON:-/usr/bin/python3}"   # Debian's python3-torch, not a virtualenv's
rounds=3 steps_scale=1 allreduce_scale=1 models=mlp,cnn,resnet18 allreduce=1 competitor=0
verify_every=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --steps-scale) steps_scale="$2"; shift 2 ;;
    --allreduce-scale) allreduce_scale="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --no-allreduce) allreduce=0; shift ;;
    --competitor) competitor=1; shift ;;
    --verify-every) verify_every="$2"; shift 2 ;;
    *) echo "bench-torch: unknown argument '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
[ -x "$hvdrun" ] || { echo "bench-torch: build first (scripts/build.sh)" >&2; exit 1; }
"$python" -c "import torch, torchvision" 2>/dev/null ||
  { echo "bench-torch: $python lacks torch or torchvision (python3-torch, python3-torchvision)" >&2; exit 1; }
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

competitors=()
stop_competitors() {
  [ ${#competitors[@]} -eq 0 ] || kill "${competitors[@]}" 2>/dev/null || true
  competitors=()
}
# EXIT covers errors (set -e) and normal ends; a signal first turns into an exit.
trap stop_competitors EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$competitor" = 1 ]; then
  # One per core this script may run on (the ranks' cores among them).
  read -ra cores <<<"$("$python" -c 'import os; print(*sorted(os.sched_getaffinity(0)))')"
  for c in "${cores[@]}"; do
    if command -v taskset >/dev/null; then
      taskset -c "$c" "$python" -c 'while True: pass' &
    else
      "$python" -c 'while True: pass' &
    fi
    competitors+=($!)
  done
  echo "competitor: ${#competitors[@]} CPU-bound process(es), one per core (pids ${competitors[*]})"
fi

# model batch-per-rank warmup steps steps-per-turn (torch_train.py --block)
declare -A config=([mlp]="64 5 60 10" [cnn]="64 3 20 5" [resnet18]="32 2 6 2")
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { sed -n "s|.* $1 \([0-9.]*\).*|\1|p" <<<"$2"; }

# run IMPL MODEL NP ORDER -> rank 0's "bench-torch: ..." lines, one per side (ORDER: the sides,
# comma-separated, in the first turn's order). IMPL sides: those; hvdv: the same under
# --verify-every (the check runs in hvd's steps).
run() {
  local impl="$1" model="$2" np="$3" order="$4" batch warmup steps block out flags=()
  read -r batch warmup steps block <<<"${config[$model]}"
  steps=$(awk -v s="$steps" -v x="$steps_scale" 'BEGIN { printf "%d", s * x }')
  [ "$impl" = hvdv ] && flags=(--verify-every "$verify_every")
  out=$("$hvdrun" "${flags[@]}" -np "$np" -- "$python" scripts/bench/torch_train.py \
        --impl "$order" --model "$model" --batch-size "$batch" --warmup "$warmup" \
        --steps "$steps" --block "$block" 2>&1) ||
    { echo "$out" >&2; exit 1; }
  grep -o 'bench-torch: .*' <<<"$out"
}

declare -A img slowest wait cpu verify_ms step_ms checks
IFS=, read -ra model_list <<<"$models"
for ((r = 1; r <= rounds; r++)); do
  for model in "${model_list[@]}"; do
    for np in 1 2; do
      # Rotate which side takes the first turn in the process.
      case $((r % 3)) in
        1) order=hvd,ddp,local ;;
        2) order=ddp,local,hvd ;;
        0) order=local,hvd,ddp ;;
      esac
      runs="sides"
      if [ "$verify_every" -gt 0 ] && [ "$np" = 2 ]; then
        if [ $((r % 2)) -eq 0 ]; then runs="hvdv sides"; else runs="sides hvdv"; fi
      fi
      for run_impl in $runs; do
        # Not `done < <(run ...)`: a failed run's exit would end only that subshell, and the
        # medians would quietly lose a round.
        lines=$(run "$run_impl" "$model" "$np" "$order")
        while read -r line; do
          impl=$(sed -n 's/^bench-torch: impl \([a-z]*\) .*/\1/p' <<<"$line")
          [ "$run_impl" = hvdv ] && impl=${impl}v  # hvdv, ddpv, localv
          echo "round $r  $impl  $line"
          verify_ms["$model/$impl/$np"]+="$(field verify_ms_per_step "$line") "
          step_ms["$model/$impl/$np"]+="$(field step_ms "$line") "
          checks["$model/$impl/$np"]="$(field verify_checks "$line")"
          img["$model/$impl/$np"]+="$(field 'img/s' "$line") "
          slowest["$model/$impl/$np"]+="$(field 'slowest_rank_img/s' "$line") "
          wait["$model/$impl/$np"]+="$(field wait_ms "$line") "
          cpu["$model/$impl/$np"]+="$(field cpu_ms_per_img "$line") "
        done <<<"$lines"
      done
    done
  done
done

med() { tr ' ' '\n' <<<"$1" | grep . | median; }
echo
printf '%-9s %3s %10s %10s %8s %12s %12s %14s %14s %11s %9s\n' model np "hvd img/s" \
  "ddp img/s" "hvd/ddp" "hvd wait ms" "ddp wait ms" "hvd CPU ms/img" "ddp CPU ms/img" \
  "local img/s" "local/ddp"
for model in "${model_list[@]}"; do
  for np in 1 2; do
    h=$(med "${img[$model/hvd/$np]}") d=$(med "${img[$model/ddp/$np]}")
    l=$(med "${slowest[$model/local/$np]}")
    printf '%-9s %3d %10.1f %10.1f %8.3f %12.2f %12.2f %14.3f %14.3f %11.1f %9.3f\n' "$model" \
      "$np" "$h" "$d" "$(awk -v h="$h" -v d="$d" 'BEGIN { print h / d }')" \
      "$(med "${wait[$model/hvd/$np]}")" "$(med "${wait[$model/ddp/$np]}")" \
      "$(med "${cpu[$model/hvd/$np]}")" "$(med "${cpu[$model/ddp/$np]}")" \
      "$l" "$(awk -v l="$l" -v d="$d" 'BEGIN { print l / d }')"
  done
  awk -v h1="$(med "${img[$model/hvd/1]}")" -v h2="$(med "${img[$model/hvd/2]}")" \
      -v d1="$(med "${img[$model/ddp/1]}")" -v d2="$(med "${img[$model/ddp/2]}")" -v m="$model" 'BEGIN {
    printf "%-9s scaling 1->2 ranks: hvd %.2fx (efficiency %.3f), ddp %.2fx (efficiency %.3f); 2-rank hvd/ddp %.3f (target >= 1.1)\n",
           m, h2 / h1, h2 / (2 * h1), d2 / d1, d2 / (2 * d1), h2 / d2 }'
done
echo "training: medians of $rounds round(s), hvd, ddp and local in the same processes in turns of a few steps (local img/s: the slowest rank's); 1 thread per rank$(
  [ "$competitor" = 1 ] && echo "; a CPU-bound competitor on each core"); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$verify_every" -gt 0 ]; then
  echo
  printf '%-9s %10s %12s %10s %7s %14s %10s %12s\n' model "hvd/ddp" "with check" \
    "ratio" checks "check ms/step" "step ms" "overhead %"
  for model in "${model_list[@]}"; do
    # hvd/ddp with the check over hvd/ddp without: each against DDP in its own processes.
    ratio() { awk -v h="$(med "${img[$model/$1/2]}")" -v d="$(med "${img[$model/$2/2]}")" \
      'BEGIN { print h / d }'; }
    h=$(ratio hvd ddp) v=$(ratio hvdv ddpv)
    c=$(med "${verify_ms[$model/hvdv/2]}") t=$(med "${step_ms[$model/hvdv/2]}")
    printf '%-9s %10.3f %12.3f %10.4f %7s %14.4f %10.2f %12.3f\n' "$model" "$h" "$v" \
      "$(awk -v h="$h" -v v="$v" 'BEGIN { print v / h }')" "${checks[$model/hvdv/2]}" "$c" "$t" \
      "$(awk -v c="$c" -v t="$t" 'BEGIN { print 100 * c / t }')"
  done
  echo "verify: 2 ranks, hvdrun --verify-every $verify_every; ratio = hvd/ddp with / without the check (img/s against DDP in the same processes, medians of $rounds round(s)); overhead = the checks' time per step / step time (target <= 0.5 %); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

if [ "$allreduce" = 1 ]; then
  echo
  printf '%10s %6s %12s %12s %9s\n' bytes reps "hvd us" "gloo us" "hvd/gloo"
  out=$("$hvdrun" -np 2 -- "$python" scripts/bench/torch_allreduce.py --scale "$allreduce_scale" 2>&1) ||
    { echo "$out" >&2; exit 1; }
  grep -o 'bench-torch-allreduce: .*' <<<"$out" | while read -r line; do
    printf '%10d %6d %12.1f %12.1f %9.3f\n' "$(field bytes "$line")" "$(field reps "$line")" \
      "$(field hvd_us "$line")" "$(field gloo_us "$line")" "$(field ratio "$line")"
  done
  echo "allreduce: 2 ranks, float32 Sum in place, median per size (target hvd/gloo <= 1.0); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
