#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks `hvdrun predict` against measurement on this machine: a 1-rank hvd-train run and a
# 2-rank hvd-bench run feed the prediction for 1, 2 and 4 ranks, which are then run and
# measured (the same synthetic MLP, batch and threads). Prints predicted against measured
# samples/s and the error. One core's math per rank (OMP_NUM_THREADS=1, --threads 1), so ranks
# beyond the cores share them; predict is told the cores (--cores-per-node).
# Usage: scripts/bench-predict.sh [HIDDEN=1024,1024] [BATCH=64]
set -euo pipefail
cd "$(dirname "$0")/.."
hidden="${1:-1024,1024}"
batch="${2:-64}"
bin="${HVD_BUILD_DIR:-build}/bin"
[ -x "$bin/hvdrun" ] && [ -x "$bin/hvd-train" ] && [ -x "$bin/hvd-bench" ] ||
  { echo "bench-predict: build first (scripts/build.sh)" >&2; exit 1; }
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cores=$(getconf _NPROCESSORS_ONLN)  # not nproc: it follows OMP_NUM_THREADS
train() {  # NP JSON
  "$bin/hvdrun" -np "$1" -- "$bin/hvd-train" --synthetic --hidden "$hidden" -b "$batch" \
    --threads 1 --num-warmup-batches 5 --num-batches-per-iter 10 --num-iters 5 -q \
    --json "$2" >/dev/null
}
train 1 "$out/t1.json"
"$bin/hvdrun" -np 2 -- "$bin/hvd-bench" -b 8 -e 64M -f 4 -w 5 --rounds 3 --peers none \
  --json "$out/bench.json" >/dev/null
"$bin/hvdrun" predict --train "$out/t1.json" --intra "$out/bench.json" --ranks-per-node 1,2,4 \
  --nodes 1 --cores-per-node "$cores" --json "$out/predict.json"
for np in 2 4; do train "$np" "$out/t$np.json"; done
echo
printf '%-6s %14s %14s %8s\n' ranks "predicted/s" "measured/s" error
/usr/bin/python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
pred = {r["ranks"]: r["samples_per_sec"] for r in json.load(open(f"{out}/predict.json"))["rows"]}
for np in (1, 2, 4):
    measured = json.load(open(f"{out}/t{np}.json"))["img_per_sec_total"]["mean"]
    print(f"{np:<6} {pred[np]:14.1f} {measured:14.1f} {100 * (pred[np] - measured) / measured:+7.1f}%")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
