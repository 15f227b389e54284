#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The rendezvous store under a simulated bootstrap: hvd-store-sim (runtime/bench/
# store_bootstrap_sim.cc) starts a real, authenticated KvServer and N ranks as threads in a few
# processes, each doing what a rank's start does against the store. One line per N.
# Usage: scripts/bench-store.sh [N...] (default 256 1024 4096 16384).
set -euo pipefail
cd "$(dirname "$0")/.."
sim="${HVD_STORE_SIM:-./build/bin/hvd-store-sim}"
[ -x "$sim" ] || { echo "bench-store: build first (ninja -C build hvd-store-sim)" >&2; exit 1; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 1024 4096 16384)
# The server holds one descriptor per rank and the workers one each: raise the soft limit as
# far as the hard one allows (hvd-store-sim also does so for the server).
ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
for n in "${sizes[@]}"; do
  "$sim" --ranks "$n"
done
