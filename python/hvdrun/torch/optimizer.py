# SPDX-License-Identifier: Apache-2.0
"""Horovod's DistributedOptimizer: each gradient's allreduce starts from a hook the moment
autograd has accumulated it, so communication overlaps the rest of backward; step() waits for
them all (synchronize) and then runs the wrapped optimizer."""

import os
import warnings
from contextlib import contextmanager

import torch

from .adasum_optimizer import _DistributedAdasumOptimizer
from .basics import Adasum, Average, size
from .compression import Compression
from .mpi_ops import allreduce_async_, grouped_allreduce_async_, synchronize
from .optimizer_bookkeeping import count_backward_pass, validated_names
from .process_sets import global_process_set, process_set_id, set_size
from .sparse import sparse_allreduce_async
from .verify import Verifier


class _DistributedOptimizer(torch.optim.Optimizer):
    def __init__(self, params, named_parameters, compression, backward_passes_per_step=1,
                 op=Average, gradient_predivide_factor=1.0, groups=None, sparse_as_dense=False,
                 process_set=global_process_set):
        super(self.__class__, self).__init__(params)
        process_set_id(process_set)  # registered: ValueError now rather than at the first step
        self._compression = compression
        self.op = op
        self.gradient_predivide_factor = gradient_predivide_factor
        self.sparse_as_dense = sparse_as_dense
        self.process_set = process_set

        default = [('allreduce.noname.%s.%s' % (i, j), v)
                   for i, group in enumerate(self.param_groups)
                   for j, v in enumerate(group['params'])]
        named_parameters = validated_names(self.param_groups, named_parameters, default)

        # Names are what every rank agrees on: the allreduce of a gradient is keyed by its
        # parameter's name, whatever order the hooks fire in.
        self._parameter_names = {v: 'allreduce.' + k for k, v in sorted(named_parameters)}
        self.backward_passes_per_step = backward_passes_per_step
        self._allreduce_delay = {v: backward_passes_per_step for _, v in sorted(named_parameters)}
        self._handles = {}
        self._grad_accs = []
        self._requires_update = set()
        self._synchronized = False
        self._should_synchronize = True

        self._groups = self._make_groups(groups)
        self._group_of = {p: i for i, g in enumerate(self._groups or []) for p in g}
        self._group_ready = {}

        # Horovod's rule: no hooks on a rank outside the set, nor in a one-rank job unless it is
        # elastic (HOROVOD_ELASTIC=1), which may grow. Gradients of a rank outside the set stay
        # its own (synchronize() returns at once).
        self._included = process_set is None or bool(process_set.included())
        if self._included and (size() > 1 or os.environ.get('HOROVOD_ELASTIC') == '1'):
            self._register_hooks()
        # HVD_VERIFY_EVERY (hvdrun --verify-every): compare the ranks' parameters (verify.py).
        self._verifier = (Verifier.from_env(named_parameters, process_set)
                          if self._included and set_size(process_set) > 1 else None)

    def load_state_dict(self, *args, **kwargs):
        """The wrapped optimizer's, after dropping pending allreduces and resetting the
        accumulation count (Horovod does, so a restored state starts a clean step)."""
        self._handles = {}
        self._synchronized = False
        self._should_synchronize = True
        for p in self._allreduce_delay:
            self._allreduce_delay[p] = self.backward_passes_per_step
        super(self.__class__, self).load_state_dict(*args, **kwargs)

    def set_backward_passes_per_step(self, passes):
        self.backward_passes_per_step = passes
        for p in self._allreduce_delay:
            self._allreduce_delay[p] = passes

    def _make_groups(self, groups):
        """Horovod 0.28's groups: None; a number n of groups (the trainable parameters in order,
        cut into n nearly even runs as Horovod's split_list does); or lists of parameters reduced
        together, each parameter in no list forming a group of its own."""
        if groups is None:
            return None
        if not (isinstance(groups, list) or (isinstance(groups, int) and groups > 0)):
            raise ValueError('groups should be a non-negative integer or '
                             'a list of list of torch.Tensor.')
        params = [p for group in self.param_groups for p in group['params'] if p.requires_grad]
        if isinstance(groups, int):
            d, r = divmod(len(params), groups)
            runs = [params[i * d + min(i, r):(i + 1) * d + min(i + 1, r)] for i in range(groups)]
            return [run for run in runs if run]
        seen = set()
        for group in groups:
            for p in group:
                if not isinstance(p, torch.Tensor):
                    raise ValueError('groups must consist of torch.Tensor.')
                if id(p) in seen:
                    raise ValueError('A parameter can only appear once in groups.')
                seen.add(id(p))
        trainable = {id(p) for p in params}
        out = [[p for p in group if id(p) in trainable] for group in groups]
        out += [[p] for p in params if id(p) not in seen]  # the rest, one by one
        return [g for g in out if g]

    def _register_hooks(self):
        for group in self.param_groups:
            for p in group['params']:
                if p.requires_grad:
                    self._requires_update.add(p)
                    # The AccumulateGrad node of p: its hook runs once p.grad is complete.
                    grad_acc = p.expand_as(p).grad_fn.next_functions[0][0]
                    grad_acc.register_hook(self._make_hook(p))
                    self._grad_accs.append(grad_acc)

    def _scale_factors(self):
        if self.op == Average:
            return 1.0 / self.gradient_predivide_factor, self.gradient_predivide_factor
        return 1.0, 1.0

    def _dense_grad(self, p):
        """The tensor whose allreduce gives p's gradient. A sparse gradient stays p.grad (the
        wrapped optimizer may take only sparse ones, as SparseAdam): a dense copy travels, and
        synchronize() puts the result back as a sparse tensor, as Horovod does."""
        if p.grad is None:
            # A rank whose forward did not use p still takes part with zeros: others may have.
            p.grad = p.data.new(p.size()).zero_()
        if p.grad.is_sparse:
            if not self.sparse_as_dense:
                raise NotImplementedError('hvdrun.torch: with groups, sparse gradients are '
                                          'allreduced only with sparse_as_dense=True')
            return p.grad.to_dense()
        return p.grad

    def _allreduce_grad_async(self, p):
        if p.grad is not None and p.grad.is_sparse and not self.sparse_as_dense:
            # Indices and values gathered (no compression, as in Horovod); synchronize() calls
            # the returned function for the new sparse gradient.
            return sparse_allreduce_async(p.grad, self._parameter_names.get(p), self.op,
                                          self.process_set), None
        tensor = self._dense_grad(p)
        compressed, ctx = self._compression.compress(tensor)
        pre, post = self._scale_factors()
        handle = allreduce_async_(compressed, name=self._parameter_names.get(p), op=self.op,
                                  prescale_factor=pre, postscale_factor=post,
                                  process_set=self.process_set)
        return handle, (compressed, ctx)

    def _allreduce_group_async(self, index):
        members = self._groups[index]
        pairs = [self._compression.compress(self._dense_grad(p)) for p in members]
        pre, post = self._scale_factors()
        handle = grouped_allreduce_async_(
            [c for c, _ in pairs], name='grouped.' + self._parameter_names.get(members[0]),
            op=self.op, prescale_factor=pre, postscale_factor=post,
            process_set=self.process_set)
        for i, p in enumerate(members):
            self._handles[p] = (handle, (pairs[i][0], pairs[i][1], i))

    def _make_hook(self, p):
        def hook(*ignore):
            count_backward_pass(self._handles, self._allreduce_delay, p)
            if self._allreduce_delay[p] > 0:
                self._handles[p] = (None, None)
                return
            if self._groups is None:
                self._handles[p] = self._allreduce_grad_async(p)
                return
            index = self._group_of[p]
            ready = self._group_ready.setdefault(index, set())
            ready.add(p)
            self._handles[p] = (None, None)
            if len(ready) == len(self._groups[index]):
                del self._group_ready[index]
                self._allreduce_group_async(index)
        return hook

    def synchronize(self):
        """Waits for every gradient's allreduce (starting those whose hooks did not fire) and
        puts the results in p.grad."""
        if not self._included:
            self._synchronized = True
            return
        for p in self._requires_update - set(self._handles):
            self._handles[p] = (None, None)
        if self._groups is not None:
            for index in {self._group_of[p] for p, (h, _) in self._handles.items() if h is None}:
                self._group_ready.pop(index, None)
                self._allreduce_group_async(index)
        else:
            for p, (handle, _) in list(self._handles.items()):
                if handle is None:
                    self._handles[p] = self._allreduce_grad_async(p)
        results = {}
        for p, (handle, ctx) in self._handles.items():
            self._allreduce_delay[p] = self.backward_passes_per_step
            if callable(handle):  # a sparse allreduce: a sparse tensor of every rank's rows
                grad = handle()
            else:
                if handle not in results:
                    results[handle] = synchronize(handle)
                output = results[handle]
                if self._groups is not None:
                    output, ctx = output[ctx[2]], ctx[1]
                else:
                    ctx = ctx[1]
                grad = self._compression.decompress(output, ctx)
            if p.grad.is_sparse:
                # Back to sparse in place (a sparse tensor has no set_), as Horovod does: the
                # wrapped optimizer gets the sparse gradient it may require.
                p.grad.zero_().add_(grad if grad.is_sparse else grad.to_sparse())
            elif grad is not p.grad:
                p.grad.copy_(grad)
        self._handles.clear()
        self._synchronized = True

    @contextmanager
    def skip_synchronize(self):
        """step() inside this block does not synchronize (the caller did, e.g. to clip)."""
        self._should_synchronize = False
        try:
            yield
        finally:
            self._should_synchronize = True

    def step(self, closure=None):
        if self._should_synchronize:
            if self._synchronized:
                warnings.warn('optimizer.step() called without optimizer.skip_synchronize() '
                              'context after optimizer.synchronize(). This can cause training '
                              'slowdown. You may want to consider using '
                              'optimizer.skip_synchronize() context if you use '
                              'optimizer.synchronize() in your code.')
            self.synchronize()
        self._synchronized = False
        loss = super(self.__class__, self).step(closure)
        if self._verifier is not None:
            self._verifier.after_step()
        return loss

    def zero_grad(self, *args, **kwargs):
        if self._handles:
            raise AssertionError('optimizer.zero_grad() was called after loss.backward() but '
                                 'before optimizer.step() or optimizer.synchronize(). This is '
                                 'prohibited as it can cause a race condition.')
        return super(self.__class__, self).zero_grad(*args, **kwargs)


def DistributedOptimizer(optimizer, named_parameters=None, compression=Compression.none,
                         backward_passes_per_step=1, op=Average, gradient_predivide_factor=1.0,
                         num_groups=0, groups=None, sparse_as_dense=False,
                         process_set=global_process_set):
    """Wraps `optimizer` so that step() applies gradients averaged (op) over all ranks; see
    Horovod 0.28's horovod.torch.DistributedOptimizer for every argument."""
    if gradient_predivide_factor != 1.0 and op != Average:
        raise ValueError('gradient_predivide_factor not supported with op != Average')
    if num_groups != 0:
        warnings.warn('Parameter `num_groups` has been replaced by `groups` and will be removed '
                      'in v0.23.0.', DeprecationWarning)
        if groups is None:
            groups = num_groups
    if op == Adasum and size() > 1:
        # Adasum combines each rank's model update, not gradients (adasum_optimizer.py); at one
        # rank Horovod uses the plain wrapper, as here.
        if process_set_id(process_set) != global_process_set.process_set_id:
            raise NotImplementedError('Adasum does not support non-global process sets yet.')
        cls = type(optimizer.__class__.__name__, (optimizer.__class__,),
                   dict(_DistributedAdasumOptimizer.__dict__))
        return cls(optimizer.param_groups, named_parameters, compression,
                   backward_passes_per_step)
    cls = type(optimizer.__class__.__name__, (optimizer.__class__,),
               dict(_DistributedOptimizer.__dict__))
    return cls(optimizer.param_groups, named_parameters, compression, backward_passes_per_step,
               op, gradient_predivide_factor, groups, sparse_as_dense, process_set)
