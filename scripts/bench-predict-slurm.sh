#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks `hvdrun predict` across nodes, on the private Slurm cluster with real links: 2 nodes in
# network namespaces of their own (tests/slurm/cluster.sh start --nodes 2 --own-network), both
# links limited to RATE with tbf (netem is not in this kernel). A 1-rank hvd-train run on one
# node and a 2-node hvd-bench run (one rank per node, over that link) feed the prediction for 1
# and 2 nodes; then 2 nodes are run and measured (the same synthetic MLP, batch and threads).
# Prints predicted against measured samples/s and the error. Needs root (the cluster).
# Usage: scripts/bench-predict-slurm.sh [RATE=1gbit] [HIDDEN=1024,1024] [BATCH=64]
set -euo pipefail
cd "$(dirname "$0")/.."
rate="${1:-1gbit}"
hidden="${2:-1024,1024}"
batch="${3:-64}"
build="${HVD_BUILD_DIR:-build}"
bin="$build/bin"
[ -x "$bin/hvdrun" ] && [ -x "$bin/hvd-train" ] && [ -x "$bin/hvd-bench" ] ||
  { echo "bench-predict-slurm: build first (scripts/build.sh)" >&2; exit 1; }
bin=$(realpath "$bin")
profile=$PWD/tests/data/site-profiles/hvdtest-own-network.yaml
# Under the build tree, not /tmp: the nodes have /tmp folders of their own.
work=$(realpath -m "$build/bench-predict-slurm")
cluster=$work/cluster
mkdir -p "$work"
cluster_sh=$PWD/tests/slurm/cluster.sh  # absolute: the trap runs after the cd below
trap 'bash "$cluster_sh" stop "$cluster" >/dev/null 2>&1 || true' EXIT
bash "$cluster_sh" start "$cluster" --nodes 2 --own-network
for n in node1 node2; do bash "$cluster_sh" shape "$cluster" "$n" "$rate"; done
eval "$(bash "$cluster_sh" env "$cluster")"
cd "$work"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

train() {  # NODES JSON
  salloc --quiet -N "$1" --ntasks-per-node=1 "$bin/hvdrun" --profile "$profile" -- \
    "$bin/hvd-train" --synthetic --hidden "$hidden" -b "$batch" --threads 1 \
    --num-warmup-batches 5 --num-batches-per-iter 10 --num-iters 5 -q --json "$2" >/dev/null
}
train 1 "$work/t1.json"
salloc --quiet -N 2 --ntasks-per-node=1 "$bin/hvdrun" --profile "$profile" -- \
  "$bin/hvd-bench" -b 8 -e 64M -f 4 -w 3 --rounds 3 --peers none --json "$work/inter.json" \
  >/dev/null
# One rank per node, so the intra-node figures never enter; the cores are the host's two,
# shared by the nodes, and each rank keeps one busy.
"$bin/hvdrun" predict --train "$work/t1.json" --inter "$work/inter.json" --ranks-per-node 1 \
  --nodes 1,2 --json "$work/predict.json"
train 2 "$work/t2.json"
echo
echo "link: $rate both ways (tbf) between node1 and node2"
printf '%-6s %14s %14s %8s\n' nodes "predicted/s" "measured/s" error
/usr/bin/python3 - "$work" <<'PY'
import json, sys
out = sys.argv[1]
pred = {r["nodes"]: r["samples_per_sec"] for r in json.load(open(f"{out}/predict.json"))["rows"]}
for n in (1, 2):
    measured = json.load(open(f"{out}/t{n}.json"))["img_per_sec_total"]["mean"]
    print(f"{n:<6} {pred[n]:14.1f} {measured:14.1f} {100 * (pred[n] - measured) / measured:+7.1f}%")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
