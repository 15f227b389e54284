#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# srun -N2 -n8: four tasks on each of node1 and node2; inside a task the host name is the node's
# (each slurmd has its own UTS namespace) and SLURM_NODEID matches it.
# usage: t0100-srun-two-nodes.sh WORKDIR
source "$(dirname "$0")/lib.sh"
[[ $# -eq 1 ]] || fail "usage: $0 WORKDIR"
use_workdir "$1"

# shellcheck disable=SC2016  # expanded by the task's sh
out=$(bounded srun -N2 -n8 --ntasks-per-node=4 sh -c \
  'echo "task $SLURM_PROCID nodeid $SLURM_NODEID host $(hostname) node $SLURMD_NODENAME"')
echo "$out"
expect_count 8 '^task [0-7] ' "$out" "tasks"
expect_count 4 '^task [0-7] nodeid 0 host node1 node node1$' "$out" "tasks on node1"
expect_count 4 '^task [0-7] nodeid 1 host node2 node node2$' "$out" "tasks on node2"
[[ $(awk '{print $2}' <<<"$out" | sort -u | wc -l) -eq 8 ]] || fail "task ids are not distinct"
echo "PASS: 4 tasks on each of node1, node2"
