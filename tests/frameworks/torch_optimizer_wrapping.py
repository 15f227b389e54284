#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a wrapped optimizer sees under hvdrun.torch, as under Horovod 0.28:

- DistributedOptimizer(sparse_as_dense=True) around torch.optim.SparseAdam on an
  nn.Embedding(sparse=True): the gradient travels dense and comes back sparse, so the sparse-only
  optimizer trains, to the parameters of one process stepping on all ranks' batches.
- broadcast_optimizer_state with parameters that have no gradient or no state (a frozen layer,
  an unused one, SGD's None momentum buffer): every rank ends with rank 0's state and options;
  parameters without state are skipped. A new optimizer first gets Horovod's initial state (one
  local step on zero gradients), with the wrapped optimizer's step, also when only rank 0 has
  state (resuming from its checkpoint).
- Horovod's hook rule: a DistributedOptimizer hooks the gradients only on ranks in its process
  set, and in a one-rank job only when HOROVOD_ELASTIC=1. A rank outside the set steps on its
  own gradient; the set's ranks on their average (against plain torch from every rank's batch).

Prints "torch_optimizer_wrapping: rank R of N on HOST checks C failures F"; exits 1 on failure.
"""
import os
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


def check_state_on_root_only(r, n):
    """Horovod's resume: rank 0 loads a checkpoint into its DistributedOptimizer, the others
    start new ones; broadcast_optimizer_state gives the new ones their initial state with the
    wrapped optimizer's own step (a DistributedOptimizer step there would wait in an allreduce
    that rank 0 never joins), then rank 0's."""
    torch.manual_seed(3)
    net = torch.nn.Linear(4, 3)
    opt = hvd.DistributedOptimizer(torch.optim.Adam(net.parameters(), lr=0.01),
                                   named_parameters=net.named_parameters())
    if r == 0:  # a checkpoint's state: three plain steps of a copy (net's hooks would allreduce)
        copy = torch.nn.Linear(4, 3)
        copy.load_state_dict(net.state_dict())
        local = torch.optim.Adam(copy.parameters(), lr=0.01)
        for _ in range(3):
            local.zero_grad()
            copy(torch.ones(2, 4)).sum().backward()
            local.step()
        opt.load_state_dict(local.state_dict())
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    state, _ = same_as_rank0(opt, 'state on rank 0 only')
    check(all(v['step'] == 3.0 for v in state.values()) and len(state) == 2,
          'state on rank 0 only: every rank has the checkpoint\'s 3 steps, for the 2 trained '
          'parameters: %s' % {i: v['step'] for i, v in state.items()})


def batch_of(k):
    return torch.randn(2, 3, generator=torch.Generator().manual_seed(200 + k))


def gradients_of(k, weight, bias):
    """Rank k's gradients of its loss at the given weights, with plain torch."""
    ref = torch.nn.Linear(3, 2)
    with torch.no_grad():
        ref.weight.copy_(weight)
        ref.bias.copy_(bias)
    (ref(batch_of(k)) ** 2).sum().backward()
    return ref.weight.grad, ref.bias.grad


def check_set_membership(r, n):
    """Every rank but the last in the optimizer's set (at 2 ranks a one-rank set)."""
    members = list(range(n - 1))
    inside = r in members
    if n > 1:
        ps = hvd.add_process_set(members)
    torch.manual_seed(11)
    net = torch.nn.Linear(3, 2)
    w0, b0 = net.weight.detach().clone(), net.bias.detach().clone()
    opt = hvd.DistributedOptimizer(torch.optim.SGD(net.parameters(), lr=0.5),
                                   named_parameters=net.named_parameters(),
                                   process_set=ps if n > 1 else hvd.global_process_set)
    (net(batch_of(r)) ** 2).sum().backward()
    try:
        opt.step()
    except Exception as e:  # noqa: BLE001 - the failure is the finding
        check(False, 'a step %s the set raised %r' % ('in' if inside else 'outside', e))
    else:
        ranks = members if inside and n > 1 else [r]
        grads = [gradients_of(k, w0, b0) for k in ranks]
        want_w = w0 - 0.5 * sum(g[0] for g in grads) / len(ranks)
        want_b = b0 - 0.5 * sum(g[1] for g in grads) / len(ranks)
        check(torch.allclose(net.weight.detach(), want_w, atol=1e-6) and
              torch.allclose(net.bias.detach(), want_b, atol=1e-6),
              'a step %s the set: %s gradient' % ('in' if inside else 'outside',
                                                    'the set\'s average' if inside else 'its own'))
    if n > 1:
        hvd.barrier()
        hvd.remove_process_set(ps)


def check_elastic_hooks(r, n):
    """Hooks make zero_grad() between backward and step() an error (Horovod's race guard)."""
    for elastic in (False, True):
        old = os.environ.pop('HOROVOD_ELASTIC', None)
        if elastic:
            os.environ['HOROVOD_ELASTIC'] = '1'
        net = torch.nn.Linear(3, 2)
        opt = hvd.DistributedOptimizer(torch.optim.SGD(net.parameters(), lr=0.1),
                                       named_parameters=net.named_parameters())
        os.environ.pop('HOROVOD_ELASTIC', None)
        if old is not None:
            os.environ['HOROVOD_ELASTIC'] = old
        net(batch_of(r)).sum().backward()
        try:
            opt.zero_grad()
            hooked = False
        except AssertionError:
            hooked = True
        check(hooked == (n > 1 or elastic), 'hooks at %d rank(s) with HOROVOD_ELASTIC %s: %s'
              % (n, 'set' if elastic else 'unset', hooked))
        opt.step()


def main():
    hvd.init()
    r, n = hvd.rank(), hvd.size()
    for part in (check_sparse_adam, check_broadcast_state, check_new_optimizer,
                 check_state_on_root_only, check_set_membership, check_elastic_hooks):
        part(r, n)
    hvd.shutdown()
    return report('torch_optimizer_wrapping', r, n)


if __name__ == '__main__':
    sys.exit(main())
