#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# libhvd under srun --mpi=pmix (no hvdrun, so no store address to advertise) across node1 and
# node2 over the TCP ring. The nodes' names (node1, node2) resolve nowhere on this test cluster,
# so no route to another host can be found: init must fail on every rank with one clear line
# naming the host tried and HVD_RING_ADDRESS, rather than listening on 0.0.0.0 and failing
# later. With HVD_RING_ADDRESS=127.0.0.1 (both "nodes" are this machine) the same job runs.
# usage: t0160-pmix-ring-address.sh WORKDIR RUNTIME_PROBE
source "$(dirname "$0")/lib.sh"
[[ $# -eq 2 ]] || fail "usage: $0 WORKDIR RUNTIME_PROBE"
probe=$(realpath -- "$2")
use_workdir "$1"
bounded srun --mpi=list 2>&1 | grep -qw pmix || skip "srun has no pmix MPI plugin"
export HVD_BOOTSTRAP=pmix HVD_RING_TRANSPORT=tcp HVD_BOOTSTRAP_TIMEOUT=30
run_step() { bounded srun --mpi=pmix -N2 -n4 --ntasks-per-node=2 "$probe" 2>&1; }

set +e
out=$(HVD_RING_ADDRESS='' run_step)
rc=$?
set -e
echo "$out"
[[ $rc -ne 0 ]] || fail "the step succeeded although no rank can find its address"
expect_count 4 "found no address of this host \(node[12]\) that the other hosts of the job reach: tried node[12] \(does not resolve\); set HVD_RING_ADDRESS" "$out" "the error on every rank"

out=$(HVD_RING_ADDRESS=127.0.0.1 run_step) || fail "with HVD_RING_ADDRESS=127.0.0.1: $out"
echo "$out"
expect_count 1 '^runtime_probe: 4 ranks ok$' "$out" "the run with HVD_RING_ADDRESS"
echo "PASS: no route is a clear error naming HVD_RING_ADDRESS; with it the TCP ring runs"
