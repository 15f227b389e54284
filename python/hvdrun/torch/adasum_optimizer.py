# SPDX-License-Identifier: Apache-2.0
"""Horovod's DistributedOptimizer(op=Adasum) at more than one rank (_DistributedAdasumOptimizer
in Horovod 0.28's horovod/torch/optimizer.py): Adasum combines model updates, not gradients.

Each rank runs the wrapped optimizer on its own gradient, for one parameter at a time, from the
gradient's hook (so it overlaps the rest of backward, as the allreduce of a gradient does). The
parameter's change (new - old) is Adasum-allreduced in place, and step() sets every rank's
parameter to old + the combined change. The wrapped optimizer's state (momentum, Adam's moments)
stays local to each rank and sees only local gradients, as in Horovod.
"""

from contextlib import contextmanager

import torch

from .basics import Adasum
from .mpi_ops import allreduce_async_, synchronize
from .optimizer_bookkeeping import count_backward_pass, validated_names
from .verify import Verifier


class _DistributedAdasumOptimizer(torch.optim.Optimizer):
    def __init__(self, params, named_parameters, compression, backward_passes_per_step=1):
        super(self.__class__, self).__init__(params)
        self._compression = compression
        # As Horovod's: unnamed parameters are numbered within each group, so an optimizer of
        # several groups needs named_parameters (the repeated names raise ValueError).
        default = [('allreduce.noname.%s' % i, v)
                   for group in self.param_groups for i, v in enumerate(group['params'])]
        named_parameters = validated_names(self.param_groups, named_parameters, default)
        self._parameter_names = {v: k for k, v in sorted(named_parameters)}
        self.backward_passes_per_step = backward_passes_per_step
        self._allreduce_delay = {v: backward_passes_per_step for _, v in sorted(named_parameters)}
        self._handles = {}
        self._grad_accs = []
        self._requires_update = set()
        self._synchronized = False
        self._should_synchronize = True
        # Each parameter's value before its local step: the combined change is added to it.
        self._starting_models = {p: torch.zeros_like(p, requires_grad=False)
                                 for _, p in named_parameters}
        self._register_hooks()
        self._verifier = Verifier.from_env(named_parameters, owner='Adasum optimizer')

    def set_backward_passes_per_step(self, passes):
        self.backward_passes_per_step = passes
        for p in self._allreduce_delay:
            self._allreduce_delay[p] = passes

    def _register_hooks(self):
        for group in self.param_groups:
            for p in group['params']:
                if p.requires_grad:
                    # A zero gradient from the start, as Horovod: a parameter whose hook never
                    # fires is still stepped (and allreduced) by step().
                    p.grad = p.data.new(p.size()).zero_()
                    self._requires_update.add(p)
                    grad_acc = p.expand_as(p).grad_fn.next_functions[0][0]
                    grad_acc.register_hook(self._make_hook(p))
                    self._grad_accs.append(grad_acc)

    def _allreduce_grad_async(self, p):
        """The wrapped optimizer's step on p alone; p then holds its change, which starts its
        Adasum allreduce (in place, so p's own memory carries it without compression)."""
        start = self._starting_models[p]
        stashed = []
        for group in self.param_groups:
            stashed.append(group['params'])
            group['params'] = [p] if any(p is v for v in group['params']) else []
        try:
            start.data.copy_(p)
            super(self.__class__, self).step()
            p.data.sub_(start)
            compressed, ctx = self._compression.compress(p)
            handle = allreduce_async_(compressed.data, name=self._parameter_names.get(p),
                                      op=Adasum)
        finally:
            for saved, group in zip(stashed, self.param_groups):
                group['params'] = saved
        return handle, ctx

    def _make_hook(self, p):
        def hook(*ignore):
            count_backward_pass(self._handles, self._allreduce_delay, p)
            handle, ctx = None, None
            if self._allreduce_delay[p] == 0:
                handle, ctx = self._allreduce_grad_async(p)
            self._handles[p] = (handle, ctx)
        return hook

    def synchronize(self):
        """Nothing to do: step() waits for the combined changes (Horovod's is a no-op too)."""

    @contextmanager
    def skip_synchronize(self):
        raise AssertionError('Skipping synchronization is not supported when using Adasum '
                             'optimizer.')
        yield  # a generator, so the error comes on entering the block, as in Horovod

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for p in self._requires_update - set(self._handles):
            self._handles[p] = self._allreduce_grad_async(p)
        for p, (handle, ctx) in list(self._handles.items()):
            if handle is None:  # step() before backward_passes_per_step passes: reduce now
                handle, ctx = self._allreduce_grad_async(p)
                self._handles[p] = (handle, ctx)
            delta = self._compression.decompress(synchronize(handle), ctx)
            start = self._starting_models[p]
            start.data.add_(delta.data)
            p.data.copy_(start)
            self._allreduce_delay[p] = self.backward_passes_per_step
        self._handles.clear()
        if self._verifier is not None:
            self._verifier.after_step()
        return loss

    def zero_grad(self, *args, **kwargs):
        if self._handles:
            raise AssertionError('optimizer.zero_grad() was called after loss.backward() but '
                                 'before optimizer.step() or optimizer.synchronize(). This is '
                                 'prohibited as it can cause a race condition.')
        return super(self.__class__, self).zero_grad(*args, **kwargs)
