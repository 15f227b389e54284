#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hvdrun --verify-every 5 with hvd-train: clean runs of 2 and 3 ranks pass every check; a bit
# flipped in one parameter of one rank after its first step is caught at the check after step 5,
# hvdrun exits 6, and the message names the ranks and the parameter. The 3-rank case takes
# the interval from HVD_VERIFY_EVERY set directly, as for horovodrun or mpirun users.
# Usage: verify_every.sh HVDRUN HVD_TRAIN WEIGHTS_COMPARE SCRATCH_DIR
set -euo pipefail
hvdrun="$1" train="$2" tmp="$4"
rm -rf "$tmp" && mkdir -p "$tmp"
common=(--synthetic --synthetic-samples 2048 --hidden 256,128 --steps 20 -b 16 -q)

for np in 2 3; do
  "$hvdrun" --verify-every 5 -np "$np" -- "$train" "${common[@]}" | tee "$tmp/out"
  grep -q "Parameters identical on all $np ranks at each of 4 checks (every 5 steps)" "$tmp/out"
done

# expect_caught NP WHO HVDRUN_ARGS...: a flipped bit in layer1.bias on the last rank.
expect_caught() {
  local np="$1" who="$2" rc=0
  shift 2
  "$@" -np "$np" -- "$train" "${common[@]}" --test-perturb-rank $((np - 1)) \
    --test-perturb-param layer1.bias >"$tmp/out" 2>&1 || rc=$?
  cat "$tmp/out"
  local want="parameters differ between ranks after step 5 (--verify-every 5): $who; the first"
  want+=" that differs is layer1.bias (parameter 4 of 6)"
  # The first rank to exit ends the job: the others may be stopped before they print theirs.
  if [ "$rc" -ne 6 ] || ! grep -qF "$want" "$tmp/out"; then
    echo "FAILED: $np ranks: want exit 6 and: $want (exit $rc)" >&2
    exit 1
  fi
}
expect_caught 2 "ranks hold 2 different sets of parameters (rank 0; rank 1; no majority to tell which are wrong)" \
  "$hvdrun" --verify-every 5
HVD_VERIFY_EVERY=5 expect_caught 3 "rank 2 differs from the other 2 rank(s)" "$hvdrun"
echo "verify_every: clean runs pass every check on 2 and 3 ranks; a flipped bit is caught and named"
