# SPDX-License-Identifier: Apache-2.0
"""Horovod 0.28's allreduce and grouped_allreduce on libhvd: the async forms return handles,
the plain forms are autograd functions with Horovod's gradient (the same allreduce of the
gradient); op=Adasum is libhvd's too, with adasum.py's checks."""

import torch

from . import _hvd_torch as _lib
from . import adasum, handles, wire
from .basics import Adasum, lib_op, op_from
from .compression import Compression
from .handles import synchronize
from .process_sets import global_process_set, process_set_id, set_size


def _start(kind, tensors, in_place, name, op, prescale_factor, postscale_factor, process_set):
    """Starts the allreduce of `tensors` (a list; one libhvd operation each, or one fused group
    for `kind` 'grouped_allreduce'); one handle whose result is the list of outputs. Every
    check is made before anything is enqueued, the same on every rank."""
    ps = process_set_id(process_set)
    if not tensors:
        raise ValueError('hvdrun.torch: a grouped allreduce needs at least one tensor')
    if op == Adasum:
        adasum.check(process_set, set_size(process_set))
        lop = adasum.LIB_OP
    else:
        lop = lib_op(op)
    srcs = [wire.for_reduction(t) for t in tensors]
    base = handles.op_name(name, kind, ps)
    names = [base] if kind == 'allreduce' else ['%s.%d' % (base, i) for i in range(len(srcs))]
    keys = handles.claim(kind, ps, names)
    if op == Adasum:
        refused = adasum.refused_dtype(srcs, keys)
        if refused is not None:
            return refused
        srcs = [adasum.on_host(s) for s in srcs]
    pre, post = float(prescale_factor), float(postscale_factor)
    dsts = [s if in_place else torch.empty_like(s) for s in srcs]
    for s in srcs:
        wire.ready(s)

    def finish(_):
        results = []
        for t, d in zip(tensors, dsts):
            if in_place:
                if d is not t:
                    t.copy_(d)
                results.append(t)
            else:
                results.append(wire.back(d, t.dtype).to(t.device))  # .to: Adasum's host copy
        return results

    if kind == 'allreduce':
        enqueue = lambda: _lib.allreduce_async(base, srcs[0], dsts[0], lop, pre, post, ps)
    else:
        enqueue = lambda: list(_lib.grouped_allreduce_async(names, srcs, dsts, lop, pre, post, ps))
    return handles.submit(enqueue, (tensors, srcs, dsts), finish, keys)


def _single(handle):
    """A one-tensor handle gives its one result (the grouped machinery gives lists)."""
    pending = handles._pending[handle]
    finish = pending.finish
    pending.finish = lambda p: finish(p)[0]
    return handle


def allreduce_async(tensor, average=None, name=None, op=None, prescale_factor=1.0,
                    postscale_factor=1.0, process_set=global_process_set):
    """Starts an out-of-place allreduce of `tensor`; returns a handle for synchronize()."""
    return _single(_start('allreduce', [tensor], False, name, op_from(op, average),
                          prescale_factor, postscale_factor, process_set))


def allreduce_async_(tensor, average=None, name=None, op=None, prescale_factor=1.0,
                     postscale_factor=1.0, process_set=global_process_set):
    """Starts an in-place allreduce of `tensor`; returns a handle for synchronize()."""
    return _single(_start('allreduce', [tensor], True, name, op_from(op, average),
                          prescale_factor, postscale_factor, process_set))


def allreduce_(tensor, average=None, name=None, op=None, prescale_factor=1.0,
               postscale_factor=1.0, process_set=global_process_set):
    """In-place allreduce; returns `tensor`."""
    return synchronize(allreduce_async_(tensor, average, name, op, prescale_factor,
                                        postscale_factor, process_set))


# The autograd functions make incoming gradients contiguous: autograd often hands over
# expanded views (the gradient of a sum), which libhvd cannot read as one buffer.

class _AllreduceFunction(torch.autograd.Function):
    # d(allreduce)/dx is the same allreduce of the gradient (Horovod's HorovodAllreduce).
    @staticmethod
    def forward(ctx, tensor, average, name, op, prescale_factor, postscale_factor, process_set):
        ctx.args = (average, op, prescale_factor, postscale_factor, process_set)
        return synchronize(allreduce_async(tensor, average, name, op, prescale_factor,
                                           postscale_factor, process_set))

    @staticmethod
    def backward(ctx, grad_output):
        average, op, pre, post, process_set = ctx.args
        return (allreduce(grad_output.contiguous(), average=average, op=op, prescale_factor=pre,
                          postscale_factor=post, process_set=process_set),
                None, None, None, None, None, None)


def allreduce(tensor, average=None, name=None, compression=Compression.none, op=None,
              prescale_factor=1.0, postscale_factor=1.0, process_set=global_process_set):
    """Out-of-place allreduce (differentiable); returns a new tensor."""
    compressed, ctx = compression.compress(tensor)
    reduced = _AllreduceFunction.apply(compressed, average, name, op, prescale_factor,
                                       postscale_factor, process_set)
    return compression.decompress(reduced, ctx)


def grouped_allreduce_async(tensors, average=None, name=None, op=None, prescale_factor=1.0,
                            postscale_factor=1.0, process_set=global_process_set):
    """Starts one fused allreduce of `tensors` (out of place); one handle for all."""
    return _start('grouped_allreduce', list(tensors), False, name, op_from(op, average),
                  prescale_factor, postscale_factor, process_set)


def grouped_allreduce_async_(tensors, average=None, name=None, op=None, prescale_factor=1.0,
                             postscale_factor=1.0, process_set=global_process_set):
    """Starts one fused in-place allreduce of `tensors`; one handle for all."""
    return _start('grouped_allreduce', list(tensors), True, name, op_from(op, average),
                  prescale_factor, postscale_factor, process_set)


def grouped_allreduce_(tensors, average=None, name=None, op=None, prescale_factor=1.0,
                       postscale_factor=1.0, process_set=global_process_set):
    return synchronize(grouped_allreduce_async_(tensors, average, name, op, prescale_factor,
                                                postscale_factor, process_set))


class _GroupedAllreduceFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, average, name, op, prescale_factor, postscale_factor, process_set,
                *tensors):
        ctx.args = (average, op, prescale_factor, postscale_factor, process_set)
        return tuple(synchronize(grouped_allreduce_async(
            tensors, average, name, op, prescale_factor, postscale_factor, process_set)))

    @staticmethod
    def backward(ctx, *grad_outputs):
        average, op, pre, post, process_set = ctx.args
        grads = grouped_allreduce([g.contiguous() for g in grad_outputs], average=average, op=op,
                                  prescale_factor=pre, postscale_factor=post,
                                  process_set=process_set)
        return (None,) * 6 + tuple(grads)


def grouped_allreduce(tensors, average=None, name=None, compression=Compression.none, op=None,
                      prescale_factor=1.0, postscale_factor=1.0, process_set=global_process_set):
    """Out-of-place fused allreduce of a list of tensors (differentiable); returns a list."""
    pairs = [compression.compress(t) for t in tensors]
    reduced = _GroupedAllreduceFunction.apply(average, name, op, prescale_factor,
                                              postscale_factor, process_set,
                                              *[c for c, _ in pairs])
    return [compression.decompress(r, ctx) for r, (_, ctx) in zip(reduced, pairs)]
