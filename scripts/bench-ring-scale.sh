#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bootstrap time and sockets per rank of the TCP ring at simulated scale (hvd-ring-scale: ranks
# as threads in forked processes, one real rendezvous store), the O(log N) peers against the
# full mesh that every rank used to open. One JSON line per run.
# Usage: scripts/bench-ring-scale.sh [MAX_RANKS]   (default 4096; 16384 needs a few GB and
# minutes). The full mesh runs up to 1024 ranks: at 4096 it would need 16.8M sockets in all,
# 4097 per rank (N - 1 peers, the listener and the store connection).
set -euo pipefail
cd "$(dirname "$0")/.."
tool="${HVD_RING_SCALE:-./build/bin/hvd-ring-scale}"
[ -x "$tool" ] || { echo "bench-ring-scale: build hvd-ring-scale first" >&2; exit 1; }
max="${1:-4096}"
echo "# $(nproc) cores; load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
# About 128 ranks per process keeps each process's descriptors (ranks x sockets) under 20000.
for n in 256 1024 4096 16384; do
  [ "$n" -le "$max" ] || break
  "$tool" --ranks "$n" --procs $(( (n + 127) / 128 ))
done
"$tool" --ranks 256 --procs 16 --full-mesh
[ "$max" -ge 1024 ] && "$tool" --ranks 1024 --procs 64 --full-mesh
exit 0
