#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_gpu_probe.sh [--expect-failure REGEX] HVDRUN GPU_PROBE NP [HVDRUN FLAGS...] [-- PROBE ARGS]
# Runs gpu_probe under `hvdrun [FLAGS] -np NP`. NP "max" means min(GPUs, 4): NCCL refuses two
# ranks on one GPU. Exits 77 (ctest's skip) when CUDA sees no GPU, or when NP is max and there
# is only one (np=1 covers that). With --expect-failure, passes only when the run fails (not
# by timing out) and its output matches REGEX: for runs where a rank is killed on purpose.
set -uo pipefail
expect=""
if [ "${1:-}" = --expect-failure ]; then
  expect="$2"
  shift 2
fi
hvdrun="$1" probe="$2" np="$3"
shift 3
flags=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  flags+=("$1")
  shift
done
[ $# -gt 0 ] && shift  # the --
gpus="$("$probe" --device-count)"
rc=$?
if [ "$rc" -ne 0 ]; then exit "$rc"; fi
if [ "$np" = max ]; then
  np=$((gpus < 4 ? gpus : 4))
  if [ "$np" -lt 2 ]; then
    echo "run_gpu_probe: $gpus GPU(s): the multi-rank case needs 2; skipped"
    exit 77
  fi
fi
if [ -z "$expect" ]; then
  exec "$hvdrun" "${flags[@]}" -np "$np" -- "$probe" "$@"
fi
rc=0
out="$(timeout -k 5 "${HVD_PROBE_TIMEOUT:-300}" "$hvdrun" "${flags[@]}" -np "$np" -- "$probe" "$@" 2>&1)" ||
  rc=$?
echo "$out"
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
  echo "FAIL: exit $rc; the run should have failed by itself" >&2
  exit 1
fi
if ! grep -Eq -- "$expect" <<<"$out"; then
  echo "FAIL: exit $rc, but the output does not match: $expect" >&2
  exit 1
fi
echo "PASS: exit $rc: $(grep -Eo -- "$expect" <<<"$out" | head -n 1)"
