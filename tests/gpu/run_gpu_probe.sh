#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_gpu_probe.sh HVDRUN GPU_PROBE NP [PROBE ARGS...]: runs gpu_probe under `hvdrun -np NP`.
# NP "max" means min(GPUs, 4): NCCL refuses two ranks on one GPU. Exits 77 (ctest's skip)
# when CUDA sees no GPU, or when NP is max and there is only one (np=1 covers that).
set -uo pipefail
hvdrun="$1" probe="$2" np="$3"
shift 3
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
exec "$hvdrun" -np "$np" -- "$probe" "$@"
