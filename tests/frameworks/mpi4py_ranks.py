#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Each rank of COMM_WORLD prints its place and checks that the world talks.

    mpi4py_ranks: rank R of N on HOST sum S
S is the allreduce of every rank's number, so a world of singletons (MPI_Init without a
launcher it understands: every process rank 0 of 1) shows up even when N looks right.
Exits 1 when the sum is not 0+1+...+(N-1).
"""
import sys

from mpi4py import MPI


def main() -> int:
    world = MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    total = world.allreduce(rank, op=MPI.SUM)
    print(f"mpi4py_ranks: rank {rank} of {size} on {MPI.Get_processor_name()} sum {total}",
          flush=True)
    return 0 if total == size * (size - 1) // 2 else 1


if __name__ == "__main__":
    sys.exit(main())
