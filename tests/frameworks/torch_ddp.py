#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A few DDP training steps over gloo that rely only on the environment a launcher sets.

init_process_group("gloo") gets no address, rank or size: torch reads MASTER_ADDR, MASTER_PORT,
RANK and WORLD_SIZE (env://), which hvdrun sets for every rank. Each rank starts from different
weights and sees different data, so equal parameters at the end show that DDP both broadcast
rank 0's weights and averaged the gradients. Prints one line per rank:
    torch_ddp: rank R of N local_rank L local_size M on HOST checksum C
and exits 1 if any rank's parameters differ from rank 0's or the identity variables disagree
with the process group.
"""
import os
import socket
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

STEPS = 5


def checksum(model: torch.nn.Module) -> torch.Tensor:
    return torch.stack([p.detach().double().sum() for p in model.parameters()]).sum()


def main() -> int:
    dist.init_process_group("gloo")
    rank, size = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ["LOCAL_RANK"])
    local_size = int(os.environ["LOCAL_WORLD_SIZE"])
    identity_ok = (rank == int(os.environ["RANK"]) and size == int(os.environ["WORLD_SIZE"])
                   and 0 <= local_rank < local_size <= size)

    torch.manual_seed(1000 + rank)  # different initial weights on every rank
    model = DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(STEPS):
        inputs = torch.randn(32, 8)  # this rank's own batch
        loss = torch.nn.functional.mse_loss(model(inputs), inputs.sum(dim=1, keepdim=True))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    mine = checksum(model)
    everyone = [torch.zeros_like(mine) for _ in range(size)]
    dist.all_gather(everyone, mine)
    same = all(torch.equal(c, everyone[0]) for c in everyone)
    print(f"torch_ddp: rank {rank} of {size} local_rank {local_rank} local_size {local_size} "
          f"on {socket.gethostname()} checksum {mine.item():.12e}", flush=True)
    dist.destroy_process_group()
    if not same:
        print(f"torch_ddp: rank {rank}: parameters differ between ranks: "
              f"{[c.item() for c in everyone]}", file=sys.stderr)
    if not identity_ok:
        print(f"torch_ddp: rank {rank}: environment disagrees with the process group",
              file=sys.stderr)
    return 0 if same and identity_ok else 1


if __name__ == "__main__":
    sys.exit(main())
