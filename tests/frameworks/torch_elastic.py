#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A training script written for elastic Horovod (`hvd.elastic.run`, `TorchState`,
`ElasticSampler`), run unchanged under hvdrun --horovod-compat on a fixed set of ranks, plus
imports from Horovod's submodules (`horovod.torch.mpi_ops`, ...). Checks that run() starts
every rank from rank 0's state, that the sampler splits an epoch among the ranks and resumes
it from a commit, that restore() rolls back to the last commit, and that a failed collective
inside run() restores and raises. Prints one line per rank,
    torch_elastic: rank R of N on HOST checks C failures F
"""
import sys
import warnings

import torch

import horovod.torch as hvd
from horovod.torch.compression import Compression
from horovod.torch.elastic.sampler import ElasticSampler
from horovod.torch.elastic.state import TorchState
from horovod.torch.mpi_ops import Sum, allreduce
from horovod.torch.optimizer import DistributedOptimizer

from tally import check, report


def main():
    hvd.init()
    r, n = hvd.rank(), hvd.size()
    check(allreduce(torch.ones(1), op=Sum).item() == n, 'allreduce from horovod.torch.mpi_ops')

    torch.manual_seed(r)  # different weights on each rank: run() must make them rank 0's
    model = torch.nn.Linear(3, 1)
    opt = DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1 * n),
                               named_parameters=model.named_parameters(),
                               compression=Compression.none)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    with warnings.catch_warnings():  # torch warns of a scheduler step before any optimizer step
        warnings.simplefilter('ignore')
        for _ in range(r):  # rank-dependent scheduler state, also to be replaced by rank 0's
            scheduler.step()
    data = [torch.full((3,), float(i)) for i in range(10)]
    sampler = ElasticSampler(data, shuffle=True, seed=4)
    check(ElasticSampler is hvd.elastic.ElasticSampler and TorchState is hvd.elastic.TorchState,
          'horovod.torch.elastic.sampler and .state are hvd.elastic')
    state = TorchState(model, opt, scheduler=scheduler, sampler=sampler,
                                   epoch=10 * r, seen=[])

    @hvd.elastic.run
    def train(state):
        weights = hvd.allgather(state.model.weight.detach())
        check(bool((weights == weights[0]).all()), 'run(): every rank has rank 0 weights')
        check(state.epoch == 0, 'run(): the plain attribute is rank 0 value: %r' % state.epoch)
        check(state.scheduler.last_epoch == 0, 'run(): the scheduler state is rank 0 one')
        for state.epoch in range(state.epoch, 2):
            seen = []
            for batch, index in enumerate(state.sampler):
                seen.append(index)
                state.optimizer.zero_grad()
                state.model(data[index]).sum().backward()
                state.optimizer.step()
                state.sampler.record_batch(batch, 1)
                state.commit()
            everyone = sorted(i for s in hvd.allgather_object(seen) for i in s)
            check(set(everyone) == set(range(10)) and len(everyone) == len(seen) * n,
                  'epoch %d: the ranks share the dataset evenly: %r' % (state.epoch, everyone))
            state.sampler.set_epoch(state.epoch + 1)
            state.scheduler.step()
        return 'finished'

    check(train(state) == 'finished', 'run() returns what the function returns')
    weights = hvd.allgather(model.weight.detach())
    check(bool((weights == weights[0]).all()), 'after training: the same weights on all ranks')

    # restore(): back to the last commit, for the model and plain attributes alike.
    committed = model.weight.detach().clone()
    state.epoch = 7
    state.commit()
    with torch.no_grad():
        model.weight.add_(1.0)
    state.epoch = 8
    state.restore()
    check(torch.equal(model.weight.detach(), committed), 'restore(): the committed weights')
    check(state.epoch == 7, 'restore(): the committed epoch')

    # The sampler resumes an epoch where the commit left it.
    state.sampler.set_epoch(5)
    full = list(state.sampler)
    state.sampler.record_batch(0, 2)
    state.commit()
    state.sampler.record_batch(1, 2)
    state.restore()
    resumed = list(state.sampler)
    check(state.sampler.processed_num == 2 * n and len(resumed) == -(-(10 - 2 * n) // n),
          'sampler after restore: %d processed, %d left for this rank'
          % (state.sampler.processed_num, len(resumed)))
    check(full != resumed or n * 2 >= 10, 'sampler after restore: skips what was processed')

    # A failed collective inside run(): the state goes back to the commit and the error is raised.
    @hvd.elastic.run
    def failing(state):
        state.epoch = 99
        raise hvd.HorovodInternalError('a peer failed')

    try:
        failing(state)
        check(False, 'run() re-raises HorovodInternalError')
    except hvd.HorovodInternalError:
        check(state.epoch == 7, 'run() restored the committed state on HorovodInternalError')

    hvd.shutdown()
    return report('torch_elastic', r, n)


if __name__ == '__main__':
    sys.exit(main())
