#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A checkpoint notice on this machine (the Slurm version, with the requeue, is
# tests/slurm/t0170-preempt-requeue.sh):
#  - SIGUSR2 to hvdrun reaches both ranks, which finish the step, checkpoint and exit 0; hvdrun
#    exits 0 and, not being in a Slurm job, says there is nothing to requeue; resuming to the
#    end gives the weights of an uninterrupted run, bit for bit;
#  - HVD_CHECKPOINT_FILE alone (no signal) makes a lone hvd-train checkpoint and exit 0 too.
# The trainer waits at step 10 for the notice (--test-pause-at-step), so nothing races.
# Usage: preempt.sh HVDRUN HVD_TRAIN WEIGHTS_COMPARE SCRATCH_DIR
set -euo pipefail
hvdrun="$1" train="$2" compare="$3" tmp="$4"
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAILED: $*" >&2; exit 1; }
common=(--synthetic --synthetic-samples 2048 --hidden 128,64 -b 32 --num-warmup-batches 0 -q
        --steps 30)

# wait_for PATTERN FILE: until FILE has a line matching PATTERN (ctest's TIMEOUT bounds it).
wait_for() { until grep -qE -- "$1" "$2" 2>/dev/null; do sleep 0.1; done; }

"$hvdrun" -np 2 -- "$train" "${common[@]}" --save-weights "$tmp/straight.bin"

"$hvdrun" -np 2 --requeue-on-signal -- "$train" "${common[@]}" --checkpoint "$tmp/ck.bin" \
  --test-pause-at-step 10 >"$tmp/first.out" 2>&1 &
pid=$!
wait_for 'Pausing before step 10' "$tmp/first.out"
kill -USR2 "$pid"
wait "$pid" || { cat "$tmp/first.out"; fail "hvdrun exited $? after the notice"; }
cat "$tmp/first.out"
grep -q 'received SIGUSR2 (preemption notice)' "$tmp/first.out" || fail "no notice line"
grep -q 'Checkpoint due (SIGUSR2): saved step 11 ' "$tmp/first.out" || fail "no checkpoint line"
grep -q 'not in a Slurm job' "$tmp/first.out" || fail "no 'nothing to requeue' line"
"$hvdrun" -np 2 -- "$train" "${common[@]}" --checkpoint "$tmp/ck.bin" --resume \
  --save-weights "$tmp/resumed.bin" | tee "$tmp/second.out"
grep -q 'Resumed from .*ck.bin at step 11' "$tmp/second.out" || fail "did not resume at step 11"
"$compare" "$tmp/straight.bin" "$tmp/resumed.bin"

# The file alone.
HVD_CHECKPOINT_FILE="$tmp/notice" "$train" "${common[@]}" --checkpoint "$tmp/ck1.bin" \
  --test-pause-at-step 5 >"$tmp/file.out" 2>&1 &
pid=$!
wait_for 'Pausing before step 5' "$tmp/file.out"
touch "$tmp/notice"
wait "$pid" || { cat "$tmp/file.out"; fail "hvd-train exited $? after the file appeared"; }
grep -q 'Checkpoint due (HVD_CHECKPOINT_FILE): saved step 6 ' "$tmp/file.out" ||
  { cat "$tmp/file.out"; fail "no checkpoint on the file"; }
echo "preempt: notice at step 10, checkpoint, resume: bit-identical; the file works alone"
