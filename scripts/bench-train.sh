#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hvd-train against the same MLP in PyTorch (DistributedDataParallel over gloo), both launched by
# hvdrun on the same ranks, synthetic data and batch, interleaved in one run so both see the same
# machine load. Two models: a small one (784-1024-1024-10, 1.9M parameters) and one with a
# ResNet-50-sized gradient volume (784-4096-4096-1280-10, 25.3M parameters).
#
# Fairness: every rank of both gets one core's worth of math: OMP_NUM_THREADS=1 and
# OPENBLAS_NUM_THREADS=1 (both multiply on Debian's OpenBLAS), hvd-train --threads 1 and
# torch.set_num_threads(1). Each rank is then one "CPU" device, as each rank would own one GPU,
# so 1 -> 2 ranks measures data-parallel scaling rather than a change in threads per rank.
#
# Usage: scripts/bench-train.sh [ROUNDS=3]. Prints each run's total img/sec, then a table of
# medians with the ratio hvd-train/torch and each one's scaling efficiency from 1 to 2 ranks.
# Both also report rank 0's process CPU time per image (all its threads, over the timed steps):
# on a shared machine wall-clock rates follow the other jobs' load; CPU time per image does not.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
hvdrun="${HVDRUN:-./build/bin/hvdrun}"
train="${HVD_TRAIN:-./build/bin/hvd-train}"
python="${PYTHON:-/usr/bin/python3}"   # Debian's python3-torch, not a virtualenv's
[ -x "$hvdrun" ] && [ -x "$train" ] || { echo "bench-train: build first (scripts/build.sh)" >&2; exit 1; }
"$python" -c "import torch" 2>/dev/null || { echo "bench-train: $python has no torch (Debian python3-torch)" >&2; exit 1; }
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

# name hidden batch warmup batches-per-iter iters
configs=("small 1024,1024 64 10 10 10" "resnet50-sized 4096,4096,1280 32 3 5 4")

total_of() { sed -n 's/.*Total img\/sec on [0-9]* CPU(s): \([0-9.]*\) .*/\1/p' "$1" | tail -1; }
cpu_of() { sed -n 's/.*CPU time per image: \([0-9.]*\) ms.*/\1/p' "$1" | tail -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run IMPL NP CONFIG... -> prints "total-img/sec cpu-ms-per-image"
run() {
  local impl="$1" np="$2" hidden="$3" batch="$4" warmup="$5" per_iter="$6" iters="$7" out
  out=$(mktemp)
  local timing=(--num-warmup-batches "$warmup" --num-batches-per-iter "$per_iter" --num-iters "$iters")
  if [ "$impl" = hvd-train ]; then
    "$hvdrun" -np "$np" -- "$train" --synthetic --hidden "$hidden" -b "$batch" --threads 1 \
      "${timing[@]}" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
  else
    "$hvdrun" -np "$np" -- "$python" scripts/bench/torch_mlp.py --hidden "$hidden" \
      --batch-size "$batch" --threads 1 "${timing[@]}" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
  fi
  echo "$(total_of "$out") $(cpu_of "$out")"
  rm -f "$out"
}

declare -A results cpu_results
for config in "${configs[@]}"; do
  read -r name hidden batch warmup per_iter iters <<<"$config"
  for ((r = 1; r <= rounds; r++)); do
    for np in 1 2; do
      for impl in hvd-train torch; do
        read -r value cpu < <(run "$impl" "$np" "$hidden" "$batch" "$warmup" "$per_iter" "$iters")
        printf 'round %d  %-15s %-9s np=%d  total %8.1f img/sec  %7.3f CPU ms/image\n' \
          "$r" "$name" "$impl" "$np" "$value" "$cpu"
        results["$name/$impl/$np"]+="$value "
        cpu_results["$name/$impl/$np"]+="$cpu "
      done
    done
  done
done

echo
printf '%-15s %3s %6s %16s %12s %7s %18s %14s\n' model np batch "hvd-train img/s" "torch img/s" \
  ratio "hvd-train CPU ms/img" "torch CPU ms/img"
for config in "${configs[@]}"; do
  read -r name hidden batch _ <<<"$config"
  for np in 1 2; do
    h=$(tr ' ' '\n' <<<"${results[$name/hvd-train/$np]}" | grep . | median)
    t=$(tr ' ' '\n' <<<"${results[$name/torch/$np]}" | grep . | median)
    hc=$(tr ' ' '\n' <<<"${cpu_results[$name/hvd-train/$np]}" | grep . | median)
    tc=$(tr ' ' '\n' <<<"${cpu_results[$name/torch/$np]}" | grep . | median)
    printf '%-15s %3d %6d %16.1f %12.1f %7.3f %18.3f %14.3f\n' "$name" "$np" "$batch" "$h" "$t" \
      "$(awk -v h="$h" -v t="$t" 'BEGIN { print h / t }')" "$hc" "$tc"
    eval "m_${np}_h=$h m_${np}_t=$t"
  done
  awk -v h1="$m_1_h" -v h2="$m_2_h" -v t1="$m_1_t" -v t2="$m_2_t" -v n="$name" 'BEGIN {
    printf "%-15s scaling efficiency 1->2 ranks: hvd-train %.3f, torch %.3f (target ratio >= 1.0)\n",
           n, h2 / (2 * h1), t2 / (2 * t1) }'
done
echo "medians of $rounds interleaved rounds; 1 BLAS thread per rank; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
