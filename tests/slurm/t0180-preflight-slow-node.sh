#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hvdrun preflight names the one slow node. A cluster of its own: 4 nodes, each in a network
# namespace with a veth pair into a bridge and an address of its own (cluster.sh start --nodes 4
# --own-network), so that node-to-node traffic crosses real links that tc can slow. 4 nodes, not
# 2: preflight times the links of a ring of node leaders, and a node is named when both of its
# links are slow; with 2 nodes there is one link and no node to name.
#  1. no shaping: preflight --strict flags nothing and exits 0;
#  2. node2's link limited to 200 Mbit/s both ways (tbf; netem is not in CI's kernel):
#     --strict exits 6, the verdict flags node2 and only node2, and prints --exclude=node2.
# The threshold is 0.3, not the default 0.7: 4 nodes share this machine's 2 cores, and the
# unshaped links' busbw varies by up to 2x from run to run; the shaped link is ~30x slower.
# Prints preflight's wall time (the benchmark row). Skips (77) where the kernel cannot make
# bridges or tbf qdiscs.
# usage: t0180-preflight-slow-node.sh WORKDIR HVDRUN CLUSTER_SH CHECK_PREFLIGHT PROFILE
source "$(dirname "$0")/lib.sh"
[[ $# -eq 5 ]] || fail "usage: $0 WORKDIR HVDRUN CLUSTER_SH CHECK_PREFLIGHT PROFILE"
hvdrun=$2 cluster_sh=$3 check=$4 profile=$5
use_workdir "$1"

ip link add hvdt0180probe type bridge 2>/dev/null || skip "cannot create a bridge here"
ip link del hvdt0180probe
cluster=$PWD/cluster
trap 'bash "$cluster_sh" stop "$cluster" >/dev/null 2>&1 || true' EXIT
bash "$cluster_sh" start "$cluster" --nodes 4 --own-network
export SLURM_CONF=$cluster/slurm.conf

preflight() {
  bounded /usr/bin/python3 "$check" --nodes 4 --links 4 --json-dir "$PWD" "$@" -- \
    /usr/bin/salloc --quiet -N 4 --ntasks-per-node=1 \
    "$hvdrun" preflight --strict --threshold 0.3 --profile "$profile"
}

echo "== 1. no link slowed: nothing flagged"
preflight --expect-exit 0 --expect-flagged '' || fail "preflight flagged a node or link of a healthy cluster"

echo "== 2. node2's link limited to 200mbit: node2 flagged"
bash "$cluster_sh" shape "$cluster" node2 200mbit || skip "tc cannot add a tbf qdisc here"
preflight --expect-exit 6 --expect-flagged node2 --expect-text=--exclude=node2 ||
  fail "preflight did not name node2 (and only node2)"
echo "PASS: a healthy cluster passes; the slowed node2 is named, with --exclude=node2"
