#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sbatch: a two-node batch job whose script runs srun; its output file (in WORKDIR, which the
# nodes see) shows two tasks per node, and a failing script's exit status comes back.
# usage: t0130-sbatch.sh WORKDIR
source "$(dirname "$0")/lib.sh"
[[ $# -eq 1 ]] || fail "usage: $0 WORKDIR"
use_workdir "$1"

cat >job.sh <<'JOB'
#!/bin/sh
echo "batch host $(hostname) nodes $SLURM_JOB_NODELIST"
srun sh -c 'echo "task $SLURM_PROCID host $(hostname)"'
JOB
id=$(bounded sbatch --parsable -N2 --ntasks-per-node=2 -J hvd-t0130 -o "$PWD/job.out" job.sh)
result=$(wait_job "$id")
out=$(cat job.out 2>/dev/null || true)
echo "$out"
[[ $result == "COMPLETED 0:0" ]] || fail "job $id ended $result"
expect_count 1 '^batch host node1 nodes node\[1-2\]$' "$out" "batch script line"
expect_count 2 '^task [0-3] host node1$' "$out" "tasks on node1"
expect_count 2 '^task [0-3] host node2$' "$out" "tasks on node2"

# A failing batch script's status comes back.
printf '#!/bin/sh\nexit 3\n' >fail.sh
id=$(bounded sbatch --parsable -N1 -J hvd-t0130-fail -o "$PWD/fail.out" fail.sh)
result=$(wait_job "$id")
[[ $result == "FAILED 3:0" ]] || fail "failing job $id ended '$result', expected 'FAILED 3:0'"
echo "PASS: sbatch on two nodes"
