#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Data parallelism changes nothing but speed: 2 ranks x batch 32 and 4 ranks x batch 16 end with
# the weights of 1 rank x batch 64 (same seed, same sample order), within float rounding. And
# 2 ranks x batch 64 (twice the global batch) must NOT match, so the tolerance means something.
# Bucketed allreduces (--bucket-mb) give the same bits as one allreduce per layer.
# Usage: equivalence.sh HVDRUN HVD_TRAIN WEIGHTS_COMPARE SCRATCH_DIR
set -euo pipefail
hvdrun="$1" train="$2" compare="$3" tmp="$4"
rm -rf "$tmp" && mkdir -p "$tmp"
common=(--synthetic --synthetic-samples 2048 --hidden 128,64 --steps 24 --num-warmup-batches 0
        --lr 0.05 --momentum 0.9 -q)
tolerance=1e-6

"$train" "${common[@]}" -b 64 --save-weights "$tmp/one_rank.bin"
"$hvdrun" -np 2 -- "$train" "${common[@]}" -b 32 --save-weights "$tmp/two_ranks.bin"
"$hvdrun" -np 4 -- "$train" "${common[@]}" -b 16 --save-weights "$tmp/four_ranks.bin"
"$hvdrun" -np 2 -- "$train" "${common[@]}" -b 64 --save-weights "$tmp/two_ranks_b64.bin"
# Buckets of adjacent layers ({2,1} and {0} at 30 KiB) reduce the same sums as one per layer.
"$hvdrun" -np 2 -- "$train" "${common[@]}" -b 32 --bucket-mb 0.03 \
  --save-weights "$tmp/two_ranks_buckets.bin"

"$compare" "$tmp/one_rank.bin" "$tmp/two_ranks.bin" "$tolerance"
"$compare" "$tmp/one_rank.bin" "$tmp/four_ranks.bin" "$tolerance"
"$compare" "$tmp/two_ranks.bin" "$tmp/two_ranks_buckets.bin"   # bit-identical
if "$compare" "$tmp/one_rank.bin" "$tmp/two_ranks_b64.bin" "$tolerance"; then
  echo "FAILED: a global batch of 128 ended with the weights of a global batch of 64" >&2
  exit 1
fi
echo "equivalence: 1x64 = 2x32 = 4x16 within $tolerance"
