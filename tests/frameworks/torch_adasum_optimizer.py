#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""DistributedOptimizer(op=hvd.Adasum) against its definition, computed here with plain torch.

Horovod 0.28 (_DistributedAdasumOptimizer): each rank steps the wrapped optimizer on its own
gradient, the change of each parameter (new - old) is combined over the ranks by Adasum, and
every rank's parameter becomes old + the combination; the wrapped optimizer's state stays each
rank's own. This script replays every rank in-process (each rank's data comes from a seed, each
has its own copy of the model and optimizer), combines the changes with the Adasum formula
written out below, and compares with what hvdrun.torch gave. At one rank Horovod uses the plain
wrapper (the local step); at a rank count that is no power of two, Horovod's allreduce raises
NotImplementedError from the gradient hook.

Prints "torch_adasum_optimizer: rank R of N on HOST checks C failures F"; exits 1 on a failure.
"""
import copy
import sys

import torch

import hvdrun.torch as hvd
from tally import check, report
from adasum_reference import adasum

OPTIMIZERS = [
    ('SGD momentum', lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
    ('Adam', lambda ps: torch.optim.Adam(ps, lr=0.01, weight_decay=0.01)),
]


def new_model():
    torch.manual_seed(11)
    return torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))


def batch(k, step, part=0):
    """Rank k's data for a step (and a backward pass within it): from a seed, so every rank can
    regenerate every other rank's."""
    g = torch.Generator().manual_seed(1000 * step + 10 * part + k)
    return torch.randn(6, 5, generator=g), torch.randn(6, 2, generator=g)


def loss_of(model, k, step, part=0):
    x, y = batch(k, step, part)
    return torch.nn.functional.mse_loss(model(x), y)


def train(r, make, steps, passes, compression=hvd.Compression.none):
    model = new_model()
    opt = hvd.DistributedOptimizer(make(model.parameters()), op=hvd.Adasum,
                                   named_parameters=model.named_parameters(),
                                   backward_passes_per_step=passes, compression=compression)
    for s in range(steps):
        opt.zero_grad()
        for part in range(passes):
            loss_of(model, r, s, part).backward()
        opt.step()
    return model


def reference(n, make, steps, passes, fp16=False):
    """Every rank's local step on its own copy, the changes combined by Adasum per tensor
    (with fp16: the changes travel, and the combination comes back, as float16)."""
    shared = new_model()
    copies = [copy.deepcopy(shared) for _ in range(n)]
    opts = [make(c.parameters()) for c in copies]
    for s in range(steps):
        changes = []
        for k, (c, opt) in enumerate(zip(copies, opts)):
            with torch.no_grad():
                for q, p in zip(c.parameters(), shared.parameters()):
                    q.copy_(p)
            opt.zero_grad()
            for part in range(passes):
                loss_of(c, k, s, part).backward()
            opt.step()
            # At one rank nothing travels: Horovod's plain wrapper, no compression.
            travel = (lambda t: t.half()) if fp16 and n > 1 else (lambda t: t)
            changes.append([travel(q - p).detach().double().reshape(-1)
                            for q, p in zip(c.parameters(), shared.parameters())])
        with torch.no_grad():
            for i, p in enumerate(shared.parameters()):
                combined = adasum([ch[i] for ch in changes]) if n > 1 else changes[0][i]
                combined = combined.half() if fp16 and n > 1 else combined
                p.add_(combined.reshape(p.shape).to(p.dtype))
    return shared


def check_against_reference(r, n):
    fp16 = hvd.Compression.fp16
    cases = [(name, make, steps, passes, hvd.Compression.none, 1e-5)
             for name, make in OPTIMIZERS for steps, passes in ((3, 1), (2, 2))]
    cases.append((OPTIMIZERS[0][0] + ' fp16', OPTIMIZERS[0][1], 2, 1, fp16, 1e-3))
    for name, make, steps, passes, compression, tol in cases:
        what = 'Adasum %s, %d steps of %d passes' % (name, steps, passes)
        got = train(r, make, steps, passes, compression)
        want = reference(n, make, steps, passes, compression is fp16)
        for (pname, p), q in zip(got.named_parameters(), want.parameters()):
            diff = (p.detach().double() - q.detach().double()).abs().max().item()
            check(diff <= tol, '%s: %s differs from the formula by %g' % (what, pname, diff))
        flat = torch.cat([p.detach().reshape(-1) for p in got.parameters()]).reshape(1, -1)
        gathered = hvd.allgather(flat, name='adasum.params')
        check(bool((gathered == gathered[0]).all()), '%s: the same on every rank' % what)


def check_behaviour(r, n):
    """Horovod's Adasum wrapper: no skip_synchronize, a zero gradient from the start, and only
    the global process set."""
    model = new_model()
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1), op=hvd.Adasum)
    if n > 1:  # at one rank Horovod wraps with the plain DistributedOptimizer
        check(all(p.grad is not None and not p.grad.any() for p in model.parameters()),
              'Adasum wrapper: zero gradients from the start')
        try:
            with opt.skip_synchronize():
                pass
            check(False, 'Adasum wrapper: skip_synchronize() did not raise')
        except AssertionError:
            check(True, 'Adasum wrapper: skip_synchronize() raises AssertionError')
    # A step with no backward: every parameter is stepped on its (zero) gradient and reduced.
    before = [p.detach().clone() for p in model.parameters()]
    opt.step()
    check(all(torch.equal(a, p.detach()) for a, p in zip(before, model.parameters())),
          'Adasum wrapper: a step on zero gradients changes nothing')
    if n > 2:  # a set that is not the global one
        subset = hvd.add_process_set([0, 1])
        try:
            hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1), op=hvd.Adasum,
                                     process_set=subset)
            check(False, 'Adasum wrapper with a process set: did not raise')
        except NotImplementedError:
            check(True, 'Adasum wrapper with a process set raises NotImplementedError')
        hvd.remove_process_set(subset)


def check_not_power_of_two(r, n):
    """Horovod's Adasum allreduce raises at a rank count that is no power of two: here from
    the gradient hook, inside backward."""
    model = new_model()
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1), op=hvd.Adasum,
                                   named_parameters=model.named_parameters())
    try:
        loss_of(model, r, 0).backward()
        check(False, 'Adasum at %d ranks: backward did not raise' % n)
    except NotImplementedError:
        check(True, 'Adasum at %d ranks raises NotImplementedError' % n)
    del opt


def main():
    hvd.init()
    r, n = hvd.rank(), hvd.size()
    if n & (n - 1):
        check_not_power_of_two(r, n)
    else:
        check_against_reference(r, n)
        check_behaviour(r, n)
    hvd.shutdown()
    return report('torch_adasum_optimizer', r, n)


if __name__ == '__main__':
    sys.exit(main())
