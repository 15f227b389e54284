#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The verdict's gate (issue 26): each fault, REPEAT times, on NP ranks, one fault at a time.
# A hang must end with hvdrun stopping the job (exit 7) and a verdict that names rank 1 and its
# function; a shape mismatch must fail the job naming rank 1 and its function; a flipped
# parameter bit (--verify-every's test hook in tests/frameworks/torch_verify_every.py) must end
# the job with exit 6 naming the last rank. The checks are tests/why/check_verdict.py and
# tests/frameworks/check_exit.py, the same as the why_* and torch_verify_* ctests, which run each
# fault once. A benchmark-style script, not a ctest: it takes minutes. One row per fault.
#
# Usage: scripts/why-gate.sh [--slurm] [REPEAT=20] [NP=4]
#   --slurm  on the private 2-node test cluster (tests/slurm/cluster.sh, started and stopped
#            here), NP/2 ranks per node, hvdrun inside `salloc -N 2`: the ranks are then out of
#            hvdrun's reach and `hvdrun why-node` collects on each node.
set -euo pipefail
cd "$(dirname "$0")/.."
slurm=0
if [ "${1:-}" = --slurm ]; then
  slurm=1
  shift
fi
repeat="${1:-20}"
np="${2:-4}"
build="${HVD_BUILD_DIR:-build}"
hvdrun="$PWD/$build/bin/hvdrun"
lib="$PWD/$build/lib/libhvd.so"
probe="$PWD/$build/bin/why_probe"
py=/usr/bin/python3
for f in "$hvdrun" "$lib" "$probe"; do
  [ -e "$f" ] || { echo "why-gate: $f is missing; build first (scripts/build.sh)" >&2; exit 1; }
done
fast=(--stall-check-warning-time-seconds 2 --stall-check-shutdown-time-seconds 4
      --kill-grace-seconds 2)
fault=("$py" "$PWD/tests/why/fault_rank.py")
verdict=("$py" "$PWD/tests/why/check_verdict.py" --expect-rank 1)
exit_check=("$py" "$PWD/tests/frameworks/check_exit.py")
launch=("$hvdrun")
work="$PWD/$build/why-gate"
mkdir -p "$work"
if [ "$slurm" = 1 ]; then
  cluster="$PWD/$build/why-gate-cluster"
  "${BASH:-bash}" tests/slurm/cluster.sh start "$cluster"
  trap '"${BASH:-bash}" tests/slurm/cluster.sh stop "$cluster"' EXIT
  eval "$("${BASH:-bash}" tests/slurm/cluster.sh env "$cluster")"
  unset SLURM_JOB_ID SLURM_JOBID
  launch=(/usr/bin/salloc --quiet -N 2 "--ntasks-per-node=$((np / 2))" "$hvdrun"
          --profile "$PWD/tests/data/site-profiles/hvdtest.yaml")
  verdict+=(--work "$work")  # the nodes' /tmp is private: the job's files go to the build tree
fi

# name | the check and its arguments, up to "--" | hvdrun's options and program after "--"
run_fault() {
  local name="$1" ok=0 start end
  shift
  start=$(date +%s)
  for ((i = 0; i < repeat; i++)); do
    if "$@" >/dev/null 2>"$work/$name.err"; then
      ok=$((ok + 1))
    else
      cp "$work/$name.err" "$work/$name.failed-$i.err"
    fi
  done
  end=$(date +%s)
  awk -v n="$name" -v ok="$ok" -v r="$repeat" -v s="$((end - start))" \
    'BEGIN { printf "%-16s %3d of %3d   %5.1f s per run\n", n, ok, r, s / r }'
}
hung() {  # EXPECTED-WORDS PROGRAM...: a fault that hangs the job
  local expect="$1"
  shift
  "${verdict[@]}" --expect "$expect" -- "${launch[@]}" -np "$np" "${fast[@]}" -- "$@"
}

echo "fault            caught       time   ($([ "$slurm" = 1 ] && echo "Slurm, 2 nodes" || echo local), $np ranks)"
run_fault skip     hung '`grad.2`'        "${fault[@]}" skip "$lib" @READY@
run_fault extra    hung '`extra.tensor`'  "${fault[@]}" extra "$lib" @READY@
run_fault sigstop  hung 'is stopped'      "${fault[@]}" stop "$lib" @READY@
run_fault loop     hung 'spin_forever'    "${fault[@]}" loop "$lib" @READY@
run_fault loader   hung '`next_batch`'    "${fault[@]}" loader "$lib" @READY@
run_fault native   hung '`wait_for_data`' "$probe" @READY@
run_fault shape    "${verdict[@]}" --error --expect shape --expect train_step -- \
                   "${launch[@]}" -np "$np" "${fast[@]}" -- "${fault[@]}" shape "$lib" @READY@
if "$py" -c 'import torch' 2>/dev/null; then
  run_fault bitflip env HVD_VERIFY_EVERY=5 "${exit_check[@]}" --exit 6 \
            --expect "ParametersDivergedError: .*rank $((np - 1)) differs" -- \
            "${launch[@]}" -np "$np" -- "$py" "$PWD/tests/frameworks/torch_verify_every.py" --uncaught
else
  echo "bitflip          skipped: no torch for $py"
fi
