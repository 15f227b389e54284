#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No run segment outlives a Slurm step: `hvdrun exec-rank` stays its rank's parent and removes
# /dev/shm/hvd-<run id>-<rank pid>-* when the rank ends, on every node. Each of 4 tasks (2 on
# node1, 2 on node2) creates a segment as the shm transport does (fault_probe "segment"); rank 1
# is then SIGKILLed (as a rank killed during transport setup), the others exit 0 without
# removing theirs. srun runs exec-rank directly, without hvdrun, whose own end-of-job cleanup
# would hide what exec-rank leaves. Each node's /dev/shm is its own tmpfs (cluster.sh); this
# script reads them through /proc (lib.sh node_shm).
# srun must also still see rank 1 killed by SIGKILL: exec-rank ends as its rank ended.
# usage: t0150-exec-rank-shm-cleanup.sh WORKDIR HVDRUN FAULT_PROBE
source "$(dirname "$0")/lib.sh"
[[ $# -eq 3 ]] || fail "usage: $0 WORKDIR HVDRUN FAULT_PROBE"
hvdrun=$2
probe=$3
use_workdir "$1"

export HVD_RUN_ID="t0150-$$-$RANDOM"
leftovers() {
  local n
  for n in node1 node2; do
    find "$(node_shm "$n")/" -maxdepth 1 -name "hvd-$HVD_RUN_ID-*" -printf "$n:%f\n"
  done
}
[[ -z $(leftovers) ]] || fail "segments of run $HVD_RUN_ID exist before the step"

set +e
out=$(bounded srun -N2 -n4 --ntasks-per-node=2 "$hvdrun" exec-rank -- "$probe" segment 1 "$PWD" 2>&1)
rc=$?
set -e
echo "$out"
echo "srun exit code: $rc"
[[ $(find . -maxdepth 1 -name 'ready.*' | wc -l) -eq 4 ]] ||
  fail "not every rank created its segment (ready files: $(ls))"
[[ $rc -ne 0 ]] || fail "srun exited 0 although rank 1 was killed"
grep -qE 'task 1: Killed' <<<"$out" || fail "srun did not report task 1 as killed by a signal"
left=$(leftovers)
if [[ -n $left ]]; then
  for n in node1 node2; do rm -f "$(node_shm "$n")/hvd-$HVD_RUN_ID"-*; done
  fail "segments left in /dev/shm: $left"
fi
echo "PASS: no segment of the run left on node1 or node2; rank 1 reported as killed"
