#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --max-restarts with a real training run: rank 1 crashes once at step 40 (after the epoch-end
# checkpoint at step 32); hvdrun stops rank 0, starts both again from a new rendezvous, they
# resume from the checkpoint, and the run ends bit-identical to one that never crashed.
# Usage: restart.sh HVDRUN HVD_TRAIN WEIGHTS_COMPARE SCRATCH_DIR
set -euo pipefail
hvdrun="$1" train="$2" compare="$3" tmp="$4"
rm -rf "$tmp" && mkdir -p "$tmp"
# 2048 samples / (2 x 32) = 32 steps per epoch; 64 steps in all.
common=(--synthetic --synthetic-samples 2048 --hidden 128,64 -b 32 --num-warmup-batches 0 -q
        --steps 64)

"$hvdrun" -np 2 -- "$train" "${common[@]}" --save-weights "$tmp/straight.bin"
# The same command line serves both attempts: --resume starts fresh while there is no checkpoint.
"$hvdrun" -np 2 --max-restarts 1 --output-filename "$tmp/logs" -- "$train" "${common[@]}" \
  --checkpoint "$tmp/ck.bin" --resume --test-crash-at-step 40 --save-weights "$tmp/restarted.bin" \
  >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; echo "FAILED: hvdrun exited $?" >&2; exit 1; }
cat "$tmp/out" "$tmp/err"
must() { grep -q "$1" "$2" || { echo "FAILED: no '$1' in $2" >&2; exit 1; }; }
must "hvdrun: restart 1 of 1 after rank 1 failed (exit 3)" "$tmp/err"
must "rank 1 crashing at step 40" "$tmp/err"
must "Resumed from .*ck.bin at step 32" "$tmp/out"
# Rank 1's log holds both attempts, the restart marked between them.
must "crashing at step 40" "$tmp/logs/rank.1/stderr"
must "^hvdrun: restart 1 of 1 after rank 1 failed (exit 3)$" "$tmp/logs/rank.1/stderr"
"$compare" "$tmp/straight.bin" "$tmp/restarted.bin"
echo "restart: crash at step 40, restart, resume from step 32, 64 steps bit-identical"
