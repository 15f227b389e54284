#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A short hvdrun.torch training run, for the pip-installed package (t0550-pip-venv.sh).

Each rank starts from its own weights and sees its own data; broadcast_parameters and the
DistributedOptimizer must leave every rank with rank 0's start and the averaged steps, so the
final weights agree. Prints one line per rank:
    pip_train: rank R of N checksum C module M version V
M is the file hvdrun.torch was imported from (the test checks it is the venv's copy). Exits 1
when the loss did not fall or a rank's weights differ from rank 0's.
"""
import sys

import torch

import hvdrun
import hvdrun.torch as hvd

STEPS = 20


def main() -> int:
    hvd.init()
    torch.manual_seed(1000 + hvd.rank())
    model = torch.nn.Linear(4, 1)
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                         named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    x = torch.randn(64, 4)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    same = torch.equal(hvd.broadcast(flat, root_rank=0), flat)
    checksum = float(flat.double().sum())
    print('pip_train: rank %d of %d checksum %.12g module %s version %s'
          % (hvd.rank(), hvd.size(), checksum, hvd.__file__, hvdrun.__version__), flush=True)
    hvd.shutdown()
    return 0 if same and losses[-1] < losses[0] else 1


if __name__ == '__main__':
    sys.exit(main())
