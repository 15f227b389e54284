#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The verdict's gate (issue 26): each fault, REPEAT times, on NP local ranks; every run must end
# with hvdrun stopping the hung job (exit 7) and a verdict that names rank 1 and its function
# (tests/why/check_verdict.py, the same check as the why_* ctests, which run each fault once).
# A benchmark-style script, not a ctest: it takes minutes. Prints one row per fault.
# Usage: scripts/why-gate.sh [REPEAT=20] [NP=4]
# Not here yet: the 2-node run on the test Slurm cluster (hvdrun asks only ranks it started).
set -euo pipefail
cd "$(dirname "$0")/.."
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
check=("$py" tests/why/check_verdict.py --expect-rank 1)
fault=("$py" "$PWD/tests/why/fault_rank.py")

# name | expected words | the program after "--"
run_fault() {
  local name="$1" expect="$2"; shift 2
  local ok=0 start end
  start=$(date +%s)
  for ((i = 0; i < repeat; i++)); do
    if "${check[@]}" --expect "$expect" -- "$hvdrun" -np "$np" "${fast[@]}" -- "$@" \
         >/dev/null 2>"$build/why-gate-$name.err"; then
      ok=$((ok + 1))
    fi
  done
  end=$(date +%s)
  awk -v n="$name" -v ok="$ok" -v r="$repeat" -v s="$((end - start))" \
    'BEGIN { printf "%-16s %3d of %3d   %5.1f s per run\n", n, ok, r, s / r }'
}

echo "fault            caught       time"
run_fault skip     '`grad.2`'        "${fault[@]}" skip "$lib" @READY@
run_fault extra    '`extra.tensor`'  "${fault[@]}" extra "$lib" @READY@
run_fault sigstop  'is stopped'      "${fault[@]}" stop "$lib" @READY@
run_fault loop     'spin_forever'    "${fault[@]}" loop "$lib" @READY@
run_fault loader   '`next_batch`'    "${fault[@]}" loader "$lib" @READY@
run_fault native   '`wait_for_data`' "$probe" @READY@
