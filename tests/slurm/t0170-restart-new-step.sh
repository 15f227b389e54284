#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --max-restarts inside an allocation: when a rank fails, hvdrun starts a new srun step (a new
# step id), with a new run id and TORCHELASTIC_RESTART_COUNT=1 on every task of both nodes.
# 4 ranks (2 on node1, 2 on node2); rank 1 exits 3 in the first attempt only.
# usage: t0170-restart-new-step.sh WORKDIR HVDRUN PROFILE
source "$(dirname "$0")/lib.sh"
[[ $# -eq 3 ]] || fail "usage: $0 WORKDIR HVDRUN PROFILE"
hvdrun=$2
profile=$3
use_workdir "$1"

rank_script='echo "attempt=$TORCHELASTIC_RESTART_COUNT step=$SLURM_STEP_ID run=$HVD_RUN_ID node=$SLURMD_NODENAME"
if [ "$SLURM_PROCID" = 1 ] && [ "$TORCHELASTIC_RESTART_COUNT" = 0 ]; then exit 3; fi'
set +e
out=$(bounded salloc --quiet -N2 --ntasks-per-node=2 "$hvdrun" --profile "$profile" \
  --max-restarts 1 -- /bin/sh -c "$rank_script" 2>&1)
rc=$?
set -e
echo "$out"
[[ $rc -eq 0 ]] || fail "hvdrun exited $rc; the restarted step should have ended cleanly"
expect_count 1 '^hvdrun: restart 1 of 1 after rank 1 failed \(exit 3\)$' "$out" "restart line"
expect_count 4 '<stdout>:attempt=1 ' "$out" "ranks of the second attempt"
expect_count 2 '<stdout>:attempt=1 .*node=node2' "$out" "second-attempt ranks on node2"
steps0=$(grep -oE '<stdout>:attempt=0 step=[0-9]+' <<<"$out" | sed 's/.*step=//' | sort -u)
steps1=$(grep -oE '<stdout>:attempt=1 step=[0-9]+' <<<"$out" | sed 's/.*step=//' | sort -u)
runs0=$(grep -oE '<stdout>:attempt=0 .* run=[^ ]+' <<<"$out" | sed 's/.*run=//' | sort -u)
runs1=$(grep -oE '<stdout>:attempt=1 .* run=[^ ]+' <<<"$out" | sed 's/.*run=//' | sort -u)
[[ $(wc -l <<<"$steps0") -eq 1 && $(wc -l <<<"$steps1") -eq 1 ]] ||
  fail "each attempt should be one step: '$steps0' / '$steps1'"
[[ -n $steps0 && -n $steps1 && $steps0 != "$steps1" ]] ||
  fail "the restart did not start a new srun step (step ids '$steps0' and '$steps1')"
[[ $(wc -l <<<"$runs1") -eq 1 && -n $runs0 && $runs0 != "$runs1" ]] ||
  fail "the restart did not get a new run id ('$runs0' / '$runs1')"
echo "PASS: rank 1 failed in step $steps0; hvdrun restarted all 4 ranks in step $steps1 with a new run id"
