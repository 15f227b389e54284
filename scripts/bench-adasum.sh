#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# op=Adasum's cost, measured (scripts/bench/torch_adasum.py): libhvd's Adasum against a Sum
# allreduce of the same tensor and against Adasum done with torch.distributed (all_gather over
# gloo, then Horovod's pairwise tree on every rank), in the same processes, on 2 and 4 ranks of
# this machine, float32 tensors of 4 KiB to 16 MiB. One line per size and rank count:
#   bench-adasum: ranks N bytes B reps R adasum_us A sum_us S gather_us G adasum/sum .. adasum/gather ..
# Usage: scripts/bench-adasum.sh [--scale X] [--max-bytes B] [--ranks "2 4"]
# Environment: HVD_BUILD_DIR (default ./build), HVD_FRAMEWORK_PYTHON (default /usr/bin/python3).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${HVD_BUILD_DIR:-./build}"
python="${HVD_FRAMEWORK_PYTHON:-/usr/bin/python3}"
scale=1 max_bytes=$((16 << 20)) ranks="2 4"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --scale) scale="$2"; shift 2 ;;
    --max-bytes) max_bytes="$2"; shift 2 ;;
    --ranks) ranks="$2"; shift 2 ;;
    -h|--help) sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-adasum: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for np in $ranks; do
  if (( np & (np - 1) )); then
    echo "bench-adasum: --ranks $np: Adasum needs a power-of-two number of ranks" >&2; exit 2
  fi
  OMP_NUM_THREADS=1 "$build/bin/hvdrun" -np "$np" -- "$python" scripts/bench/torch_adasum.py \
    --scale "$scale" --max-bytes "$max_bytes" 2>&1 | grep -E '^(\[0\]<stdout>:)?bench-adasum:' |
    sed 's/^\[0\]<stdout>://'
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
