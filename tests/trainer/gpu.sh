#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU path (cuBLAS and the CUDA kernels): 20 steps on a GPU end within float tolerance of
# the same 20 steps on the CPU, alone and on 2 ranks. Skips (77) without CUDA or a GPU.
# Usage: gpu.sh HVDRUN HVD_TRAIN WEIGHTS_COMPARE SCRATCH_DIR
set -euo pipefail
hvdrun="$1" train="$2" compare="$3" tmp="$4"
rm -rf "$tmp" && mkdir -p "$tmp"
common=(--synthetic --synthetic-samples 2048 --hidden 256,128 --steps 20 -b 32
        --num-warmup-batches 0 -q)
rc=0
"$train" "${common[@]}" --device gpu --save-weights "$tmp/gpu.bin" 2>"$tmp/err" || rc=$?
if grep -qE "no CUDA device is visible|this build has no CUDA" "$tmp/err"; then
  echo "gpu: $(cat "$tmp/err"); skipping"
  exit 77
fi
[ "$rc" -eq 0 ] || { cat "$tmp/err" >&2; exit "$rc"; }
"$train" "${common[@]}" --device cpu --save-weights "$tmp/cpu.bin"
"$compare" "$tmp/cpu.bin" "$tmp/gpu.bin" 1e-4
"$hvdrun" -np 2 -- "$train" "${common[@]}" -b 16 --device gpu --verify-sync \
  --save-weights "$tmp/gpu2.bin"
"$compare" "$tmp/cpu.bin" "$tmp/gpu2.bin" 1e-4
echo "gpu: GPU weights match CPU weights after 20 steps (1 and 2 ranks)"
