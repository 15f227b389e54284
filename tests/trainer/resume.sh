#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checkpoint and resume on 2 ranks: 20 steps, stop, resume to 40 steps ends bit-identical to 40
# steps in one go (weights, momentum and sample order all restored). The checkpoint is
# rewritten by rename, so no temporary file stays behind.
# Usage: resume.sh HVDRUN HVD_TRAIN WEIGHTS_COMPARE SCRATCH_DIR
set -euo pipefail
hvdrun="$1" train="$2" compare="$3" tmp="$4"
rm -rf "$tmp" && mkdir -p "$tmp"
# 2048 samples / (2 x 32) = 32 steps per epoch: the stop is mid-epoch, and an epoch-end
# checkpoint (step 32) is written during the resumed run.
common=(--synthetic --synthetic-samples 2048 --hidden 128,64 -b 32 --num-warmup-batches 0 -q)

"$hvdrun" -np 2 -- "$train" "${common[@]}" --steps 40 --save-weights "$tmp/straight.bin"
"$hvdrun" -np 2 -- "$train" "${common[@]}" --steps 20 --checkpoint "$tmp/ck.bin"
"$hvdrun" -np 2 -- "$train" "${common[@]}" --steps 40 --checkpoint "$tmp/ck.bin" --resume \
  --save-weights "$tmp/resumed.bin" | tee "$tmp/out"
grep -q "Resumed from .*ck.bin at step 20" "$tmp/out"
"$compare" "$tmp/straight.bin" "$tmp/resumed.bin"
"$compare" "$tmp/straight.bin" "$tmp/ck.bin"   # the final checkpoint is the end state too
leftover=$(find "$tmp" -name '*.tmp.*' | wc -l)
[ "$leftover" -eq 0 ] || { echo "FAILED: $leftover temporary checkpoint files left" >&2; exit 1; }
echo "resume: 20 + 20 steps = 40 steps, bit-identical"
