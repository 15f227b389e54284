#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# slurm_probe.sh MODE PROBE HVDRUN PROFILE WORKDIR: bootstrap_probe as 4 ranks over node1 and
# node2 of the private Slurm cluster (2 per node), checked by check_probe.sh.
#   pmix    srun --mpi=pmix -N2 -n4 PROBE, HVD_BOOTSTRAP=pmix, then again without it
#   mpi     the same with HVD_BOOTSTRAP=mpi (Open MPI's direct launch under PMIx)
#   hvdrun  salloc -N2 ... hvdrun --mpi -- PROBE, no HVD_BOOTSTRAP (srun + exec-rank + hvdrun's
#           store; --mpi sets PMIX_RANK too, so this also checks the chain's order)
# Skips (77) when this Slurm has no pmix MPI plugin.
check=$(realpath -- "$(dirname "$0")/check_probe.sh")
source "$(dirname "$0")/../slurm/lib.sh"
[[ $# -eq 5 ]] || fail "usage: $0 pmix|mpi|hvdrun PROBE HVDRUN PROFILE WORKDIR"
mode=$1 probe=$(realpath -- "$2") hvdrun=$(realpath -- "$3") profile=$4
[[ $probe != /tmp/* ]] || fail "the probe must not be under /tmp (nodes have a private /tmp)"
use_workdir "$5"
bounded srun --mpi=list 2>&1 | grep -qw pmix || skip "srun has no pmix MPI plugin"

expect=(--size 4 --local-size 2 --cross-size 2)
export HVD_PROBE_TIMEOUT=$HVD_SLURM_CMD_TIMEOUT
case $mode in
  pmix | mpi)
    # Both "nodes" are this machine: Open MPI over loopback TCP and shared memory (as t0120).
    export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
    export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader,tcp}
    export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo}
    export HVD_BOOTSTRAP=$mode
    bash "$check" 4 "$mode" -- srun --mpi=pmix -N2 -n4 --ntasks-per-node=2 \
      "$probe" --method "$mode" "${expect[@]}"
    if [[ $mode == pmix ]]; then  # and unforced: the chain itself must choose pmix under srun
      unset HVD_BOOTSTRAP
      bash "$check" 4 pmix -- srun --mpi=pmix -N2 -n4 --ntasks-per-node=2 \
        "$probe" --method pmix "${expect[@]}"
    fi ;;
  hvdrun)
    unset HVD_BOOTSTRAP
    bash "$check" 4 hvdrun -- salloc --quiet -N2 --ntasks-per-node=2 \
      "$hvdrun" --mpi --profile "$profile" -- "$probe" --method hvdrun "${expect[@]}" ;;
  *) fail "unknown mode $mode" ;;
esac
