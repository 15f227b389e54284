#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPUs without GPUs: each node has gpu:4 (character devices stand in). With --gpus-per-node=4
# every task sees all four (CUDA_VISIBLE_DEVICES=0,1,2,3, SLURM_GPUS_ON_NODE=4); with
# --gpus-per-task=1 each task on a node gets its own one.
# usage: t0110-gres-gpus.sh WORKDIR
source "$(dirname "$0")/lib.sh"
[[ $# -eq 1 ]] || fail "usage: $0 WORKDIR"
use_workdir "$1"

# shellcheck disable=SC2016  # expanded by the task's sh
probe='echo "host $(hostname) task $SLURM_PROCID cvd=${CUDA_VISIBLE_DEVICES-unset} on_node=${SLURM_GPUS_ON_NODE-unset} step_gpus=${SLURM_STEP_GPUS-unset}"'

out=$(bounded srun -N2 -n8 --ntasks-per-node=4 --gpus-per-node=4 sh -c "$probe")
echo "$out"
for n in node1 node2; do
  expect_count 4 "^host $n task [0-7] cvd=0,1,2,3 on_node=4 step_gpus=0,1,2,3\$" "$out" \
    "--gpus-per-node=4 on $n"
done

out=$(bounded srun -N2 -n8 --ntasks-per-node=4 --gpus-per-task=1 sh -c "$probe")
echo "$out"
for n in node1 node2; do
  for g in 0 1 2 3; do
    expect_count 1 "^host $n task [0-7] cvd=$g on_node=4 step_gpus=$g\$" "$out" \
      "--gpus-per-task=1 on $n, GPU $g"
  done
done
echo "PASS: gres gpu:4 on both nodes"
