# SPDX-License-Identifier: Apache-2.0
"""Horovod's helpers for starting training in step: parameters, optimizer state and arbitrary
Python objects broadcast from one rank, and objects gathered from all."""

import collections
import inspect
import io
import pickle

import torch

from .adasum_optimizer import _DistributedAdasumOptimizer
from .basics import rank
from .mpi_ops import allgather, broadcast_, broadcast_async_, synchronize
from .optimizer import _DistributedOptimizer
from .process_sets import global_process_set, process_set_id, set_size


def broadcast_parameters(params, root_rank, process_set=global_process_set):
    """Overwrites `params` (a state_dict, or a list of tensors or (name, tensor) pairs such as
    model.named_parameters()) with root_rank's values, in place."""
    process_set_id(process_set)
    if isinstance(params, dict):
        params = sorted(params.items())
    elif isinstance(params, list):
        params = [p if isinstance(p, tuple) else (None, p) for p in params]
    else:
        raise ValueError('invalid params of type: %s' % type(params))
    handles = []
    for i, (name, p) in enumerate(params):
        if p is None:
            continue
        # Unnamed tensors get their position: every rank lists the same parameters in order.
        tensor = p.data if isinstance(p, torch.nn.Parameter) else p
        handles.append(broadcast_async_(tensor, root_rank,
                                        name='broadcast_parameters.%s' % (name or i),
                                        process_set=process_set))
    for h in handles:
        synchronize(h)


def broadcast_optimizer_state(optimizer, root_rank, model=None, process_set=global_process_set):
    """Makes every rank's optimizer state root_rank's, as Horovod does: each state tensor is
    broadcast in place (named '<state name>.<occurrence>'), the state's non-tensor values and
    every group's options (lr, momentum, betas...) in one object. Parameters without state are
    skipped; every rank must list its parameters in the same order and have state for the same
    ones, as Horovod requires too. A new optimizer first gets its state (_initialize_state)."""
    process_set_id(process_set)
    if isinstance(optimizer, torch.optim.LBFGS):
        raise ValueError('cannot broadcast torch.optim.LBFGS state')
    if not optimizer.state_dict()['state']:
        _initialize_state(optimizer)
    state_dict = optimizer.state_dict()
    if not state_dict['state']:
        return  # a stateless optimizer (SGD without momentum): nothing to broadcast
    tensors, values, places = _state_by_key(optimizer, state_dict)
    broadcast_parameters(tensors, root_rank, process_set=process_set)
    options = [{k: v for k, v in group.items() if k != 'params'}
               for group in state_dict['param_groups']]
    values, options = broadcast_object((values, options), root_rank,
                                       name='broadcast_optimizer_state', process_set=process_set)
    for key, value in values.items():
        param, name = places[key]
        optimizer.state[param][name] = value
    for group, received in zip(optimizer.param_groups, options):
        group.update(received)


def _state_by_key(optimizer, state_dict):
    """The state under Horovod's keys ('exp_avg.3': the third parameter with an exp_avg): the
    tensors as (key, tensor) in parameter order, the other values by key, and where each value
    goes back (parameter, state name)."""
    tensors, values, places = [], {}, {}
    occurrences = collections.defaultdict(int)
    for saved, group in zip(state_dict['param_groups'], optimizer.param_groups):
        for pid, param in zip(saved['params'], group['params']):
            for name, value in state_dict['state'].get(pid, {}).items():
                occurrences[name] += 1
                key = '%s.%d' % (name, occurrences[name])
                if torch.is_tensor(value):
                    tensors.append((key, value))
                else:
                    values[key] = value
                    places[key] = (param, name)
    return tensors, values, places


def _initialize_state(optimizer):
    """Horovod's start for a new optimizer: one local step on zero gradients, so that every
    rank has state (Adam's moments, its step count 1) to receive. It leaves the zero gradients
    in p.grad and moves parameters only where the zero step does (weight decay), as Horovod."""
    for group in optimizer.param_groups:
        for p in group['params']:
            if p.requires_grad:
                p.grad = p.data.new(p.size()).zero_()
                if isinstance(optimizer, torch.optim.SparseAdam):
                    p.grad = p.grad.to_sparse()
    # torch.optim.Optimizer.__init__ wraps its class's step() for the profiler (functools.wraps),
    # so the class's own step is compared unwrapped.
    own_step = inspect.unwrap(vars(type(optimizer)).get('step'))
    if own_step in (_DistributedOptimizer.step, _DistributedAdasumOptimizer.step):
        # The wrapped optimizer's step: DistributedOptimizer.step() would allreduce, and a
        # rank calling this alone (its optimizer new, root's loaded) would wait for the others.
        super(type(optimizer), optimizer).step()
    else:
        optimizer.step()


def _to_bytes(obj):
    buf = io.BytesIO()
    pickle.dump(obj, buf)
    return torch.frombuffer(bytearray(buf.getvalue()), dtype=torch.uint8)


def broadcast_object(obj, root_rank=0, name=None, process_set=global_process_set):
    """root_rank's `obj` (anything picklable), returned on every rank."""
    process_set_id(process_set)
    name = name or type(obj).__name__
    payload = _to_bytes(obj) if rank() == root_rank else torch.empty(0, dtype=torch.uint8)
    length = torch.tensor([payload.numel()], dtype=torch.int64)
    broadcast_(length, root_rank, name='broadcast_object.%s.size' % name,
               process_set=process_set)
    if rank() != root_rank:
        payload = torch.empty(int(length.item()), dtype=torch.uint8)
    broadcast_(payload, root_rank, name='broadcast_object.%s.data' % name,
               process_set=process_set)
    return obj if rank() == root_rank else pickle.loads(payload.numpy().tobytes())


def allgather_object(obj, name=None, process_set=global_process_set):
    """Every rank's `obj` (anything picklable), as a list in rank order."""
    process_set_id(process_set)
    name = name or type(obj).__name__
    payload = _to_bytes(obj)
    lengths = allgather(torch.tensor([payload.numel()], dtype=torch.int64),
                        name='allgather_object.%s.sizes' % name, process_set=process_set)
    data = allgather(payload, name='allgather_object.%s.data' % name,
                     process_set=process_set).numpy().tobytes()
    out, offset = [], 0
    for n in lengths.tolist():
        out.append(pickle.loads(data[offset:offset + n]))
        offset += n
    assert len(out) == set_size(process_set)
    return out
