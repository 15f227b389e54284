#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real data on 2 ranks: Fashion-MNIST (Debian's dataset-fashion-mnist) to at least 85% test
# accuracy in 3 epochs of a 784-256-10 MLP (seconds on 2 cores). Prints the figure reached.
# Skips (77) when the data set is not installed.
# Usage: fashion_mnist.sh HVDRUN HVD_TRAIN WEIGHTS_COMPARE SCRATCH_DIR
set -euo pipefail
hvdrun="$1" train="$2" tmp="$4"
data=/usr/share/datasets/fashion-mnist
if [ ! -r "$data/train-images-idx3-ubyte.gz" ]; then
  echo "fashion_mnist: $data not installed (Debian package dataset-fashion-mnist); skipping"
  exit 77
fi
rm -rf "$tmp" && mkdir -p "$tmp"
"$hvdrun" -np 2 -- "$train" --data-dir "$data" --hidden 256 --epochs 3 -b 64 --lr 0.05 \
  --verify-sync -q --json "$tmp/report.json" | tee "$tmp/out"
accuracy=$(grep -o 'test accuracy [0-9.]*' "$tmp/out" | tail -1 | awk '{ print $3 }')
grep -q '"tool": "hvd-train"' "$tmp/report.json"
echo "fashion_mnist: test accuracy after 3 epochs on 2 ranks: $accuracy (need >= 0.85)"
awk -v a="$accuracy" 'BEGIN { exit !(a >= 0.85) }'
