#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# srun --mpi=pmix -N2 -n4: an Open MPI allreduce (tests/helpers/mpi_allreduce.c) spanning both
# nodes. Skips (77) when this Slurm has no pmix MPI plugin.
# usage: t0120-pmix-mpi-allreduce.sh MPI_ALLREDUCE_EXE WORKDIR
source "$(dirname "$0")/lib.sh"
[[ $# -eq 2 ]] || fail "usage: $0 MPI_ALLREDUCE_EXE WORKDIR"
exe=$(realpath -- "$1")
[[ -x $exe ]] || fail "not an executable: $exe"
[[ $exe != /tmp/* ]] || fail "the program must not be under /tmp (nodes have a private /tmp)"
use_workdir "$2"

bounded srun --mpi=list 2>&1 | grep -qw pmix || skip "srun has no pmix MPI plugin"

# Both "nodes" are this machine: TCP over loopback always works, while the default NIC choice
# (and UCX/openib probing) depends on the machine. Callers may override these.
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader,tcp}
export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo}

out=$(bounded srun --mpi=pmix -N2 -n4 --ntasks-per-node=2 "$exe")
echo "$out"
expect_count 1 '^allreduce ok: 4 ranks on 2 hosts$' "$out" "allreduce summary"
expect_count 2 '^rank [0-3] of 4 on node1 sum 6 ok$' "$out" "ranks on node1"
expect_count 2 '^rank [0-3] of 4 on node2 sum 6 ok$' "$out" "ranks on node2"
echo "PASS: PMIx allreduce across node1 and node2"
