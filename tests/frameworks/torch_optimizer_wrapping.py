#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a wrapped optimizer sees under hvdrun.torch, as under Horovod 0.28:

- DistributedOptimizer(sparse_as_dense=True) around torch.optim.SparseAdam on an
  nn.Embedding(sparse=True): the gradient travels dense and comes back sparse, so the sparse-only
  optimizer trains, to the parameters of one process stepping on all ranks' batches.
- broadcast_optimizer_state with parameters that have no gradient or no state (a frozen layer,
  an unused one, SGD's None momentum buffer): every rank ends with rank 0's state and options;
  parameters without state are skipped. A new optimizer first gets Horovod's initial state (one
  local step on zero gradients).

Prints "torch_optimizer_wrapping: rank R of N on HOST checks C failures F"; exits 1 on failure.
"""
import sys

import torch

import hvdrun.torch as hvd
from tally import check, report

ROWS = 8


def lookups(k, step):
    """Rank k's rows for a step, and the weights of its loss: from a seed, so that one process
    can regenerate every rank's."""
    g = torch.Generator().manual_seed(100 * step + k)
    return torch.randint(0, ROWS, (5,), generator=g), torch.randn(5, 3, generator=g)


def loss_of(emb, k, step):
    rows, weights = lookups(k, step)
    return (emb(rows) * weights).sum()


def new_embedding():
    torch.manual_seed(5)
    return torch.nn.Embedding(ROWS, 3, sparse=True)


def check_sparse_adam(r, n):
    for sparse_as_dense in (True, False):
        what = 'SparseAdam, sparse_as_dense=%s' % sparse_as_dense
        emb = new_embedding()
        opt = hvd.DistributedOptimizer(torch.optim.SparseAdam(emb.parameters(), lr=0.1),
                                       named_parameters=emb.named_parameters(),
                                       sparse_as_dense=sparse_as_dense)
        try:
            for s in range(3):
                opt.zero_grad()
                loss_of(emb, r, s).backward()
                opt.step()
            check(emb.weight.grad.is_sparse, '%s: the wrapped optimizer got a sparse gradient'
                  % what)
        except RuntimeError as e:
            check(False, '%s: %s' % (what, e))
            continue
        ref = new_embedding()
        ref_opt = torch.optim.SparseAdam(ref.parameters(), lr=0.1)
        for s in range(3):  # the average of the ranks' losses: the averaged gradient
            ref_opt.zero_grad()
            (sum(loss_of(ref, k, s) for k in range(n)) / n).backward()
            ref_opt.step()
        diff = (emb.weight.detach() - ref.weight.detach()).abs().max().item()
        check(diff <= 1e-5, '%s: differs from one process by %g' % (what, diff))
        gathered = hvd.allgather(emb.weight.detach().reshape(1, -1), name='sparse.weights')
        check(bool((gathered == gathered[0]).all()), '%s: the same on every rank' % what)


class Net(torch.nn.Module):
    """A used layer, one that forward never touches, and a frozen one."""

    def __init__(self):
        super().__init__()
        self.used = torch.nn.Linear(4, 3)
        self.unused = torch.nn.Linear(4, 3)
        self.frozen = torch.nn.Linear(3, 2)
        self.frozen.requires_grad_(False)

    def forward(self, x):
        return self.frozen(self.used(x))


def described(opt):
    """The optimizer's state and options as plain values, by position: comparable across
    ranks (a missing state is absent, a None buffer stays None)."""
    params = [p for group in opt.param_groups for p in group['params']]
    state = {}
    for i, p in enumerate(params):
        if p in opt.state:
            state[i] = {k: (v.tolist() if torch.is_tensor(v) else v)
                        for k, v in opt.state[p].items()}
    options = [{k: v for k, v in group.items() if k != 'params'} for group in opt.param_groups]
    return state, options


def same_as_rank0(opt, what):
    mine = described(opt)
    root = hvd.broadcast_object(mine, 0, name='state.' + what)
    check(mine == root, '%s: every rank has rank 0\'s state and options' % what)
    return mine


def check_broadcast_state(r, n):
    makers = [('Adam', lambda ps, lr: torch.optim.Adam(ps, lr=lr)),
              ('SGD without momentum', lambda ps, lr: torch.optim.SGD(ps, lr=lr)),
              ('SGD with momentum', lambda ps, lr: torch.optim.SGD(ps, lr=lr, momentum=0.9))]
    for name, make in makers:
        for wrapped in (False, True):
            what = '%s%s' % (name, ' in DistributedOptimizer' if wrapped else '')
            torch.manual_seed(3)
            net = Net()  # a new one each time: a wrapper's hooks stay on its model
            opt = make(net.parameters(), 0.1 * (r + 1))  # options that differ per rank
            if wrapped:
                opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
            opt.zero_grad()
            net(torch.full((2, 4), float(r + 1))).sum().backward()
            opt.step()  # state for `used` only, different on each rank
            try:
                hvd.broadcast_optimizer_state(opt, root_rank=0)
            except Exception as e:  # noqa: BLE001 - the failure is the finding
                check(False, '%s: broadcast_optimizer_state raised %r' % (what, e))
                continue
            state, _ = same_as_rank0(opt, what)
            params = [p for group in opt.param_groups for p in group['params']]
            # The wrapper gives `unused` a zero gradient at more than one rank (another rank
            # may have used it), so the step gives it state too, as in Horovod.
            trained = [net.used.weight, net.used.bias]
            if wrapped and n > 1:
                trained += [net.unused.weight, net.unused.bias]
            stateful = sorted(i for i, p in enumerate(params) if any(p is q for q in trained))
            check(sorted(state) == stateful,
                  '%s: only the trained parameters have state: %s' % (what, sorted(state)))


def check_new_optimizer(r, n):
    """Horovod gives a new optimizer its state before broadcasting: zero gradients on the
    trainable parameters and one local step (the wrapped one for a DistributedOptimizer)."""
    for wrapped in (False, True):
        what = 'a new Adam%s' % (' in DistributedOptimizer' if wrapped else '')
        torch.manual_seed(3)
        net = Net()
        opt = torch.optim.Adam(net.parameters(), lr=0.01)
        if wrapped:
            opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        state, _ = same_as_rank0(opt, what)
        trainable = [p for p in net.parameters() if p.requires_grad]
        check(all(p in opt.state and float(opt.state[p]['step']) == 1.0 for p in trainable),
              '%s: every trainable parameter has state after one step' % what)
        check(all(not opt.state[p]['exp_avg'].any() for p in trainable if p in opt.state),
              '%s: zero first moments' % what)
        check(all(p.grad is not None and not p.grad.any() for p in trainable),
              '%s: zero gradients left in p.grad' % what)
        check(net.frozen.weight not in opt.state, '%s: no state for the frozen layer' % what)


def main():
    hvd.init()
    r, n = hvd.rank(), hvd.size()
    for part in (check_sparse_adam, check_broadcast_state, check_new_optimizer):
        part(r, n)
    hvd.shutdown()
    return report('torch_optimizer_wrapping', r, n)


if __name__ == '__main__':
    sys.exit(main())
