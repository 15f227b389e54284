#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Training in which the last rank kills itself with SIGKILL in the middle of step 5.

The other ranks must see HorovodInternalError from a collective (not hang, not crash). They
ignore SIGTERM, which hvdrun sends them as soon as the killed rank is gone, so that what ends
them is the runtime's error and not the signal (run it with a long --kill-grace-seconds; the
test's timeout catches a hang). Each survivor prints
    torch_killed_rank: rank R raised HorovodInternalError
and exits 0; check_killed_rank.py checks those lines and hvdrun's exit code.
"""
import os
import signal
import sys

import torch

import hvdrun.torch as hvd


def main():
    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    victim = size - 1
    if rank != victim:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    model = torch.nn.Linear(64, 64)
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01),
                                         named_parameters=model.named_parameters())
    try:
        for step in range(1000):
            optimizer.zero_grad()
            model(torch.randn(8, 64)).sum().backward()
            if step == 5 and rank == victim:
                os.kill(os.getpid(), signal.SIGKILL)
            optimizer.step()
    except hvd.HorovodInternalError as e:
        print('torch_killed_rank: rank %d raised HorovodInternalError: %s' % (rank, e),
              flush=True)
        return 0
    print('torch_killed_rank: rank %d finished 1000 steps without an error' % rank, flush=True)
    return 1


if __name__ == '__main__':
    sys.exit(main())
