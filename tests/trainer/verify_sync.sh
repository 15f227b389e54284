#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --verify-sync: after every step all ranks hold bit-identical weights (2 and 3 ranks, real
# Fashion-MNIST-sized layers on synthetic data); and when one rank's weights are nudged by one
# ulp, every rank stops with exit code 6 and says so.
# Usage: verify_sync.sh HVDRUN HVD_TRAIN WEIGHTS_COMPARE SCRATCH_DIR
set -euo pipefail
hvdrun="$1" train="$2" tmp="$4"
rm -rf "$tmp" && mkdir -p "$tmp"
common=(--synthetic --synthetic-samples 2048 --hidden 256,128 --steps 40 -b 16 --verify-sync -q)

for np in 2 3; do
  "$hvdrun" -np "$np" -- "$train" "${common[@]}"
done

rc=0
"$hvdrun" -np 2 -- "$train" "${common[@]}" --test-perturb-rank 1 >"$tmp/out" 2>&1 || rc=$?
cat "$tmp/out"
if [ "$rc" -ne 6 ] || ! grep -q "parameters differ between ranks after step 1 " "$tmp/out"; then
  echo "FAILED: a perturbed rank was not caught (exit $rc, want 6)" >&2
  exit 1
fi
echo "verify_sync: identical weights every step on 2 and 3 ranks; divergence caught"
