# SPDX-License-Identifier: Apache-2.0
"""Horovod 0.28's reducescatter and grouped_reducescatter on libhvd, with Horovod's gradient
(HorovodReducescatter.backward): the upstream gradient times the set's size for Sum, times the
prescale and postscale factors, allgathered. For Average that is size() times the gradient of
the average, and for Sum size() times the gradient of the sum: Horovod's convention, kept so
that scripts train as they do under Horovod."""

import torch

from . import _hvd_torch as _lib
from . import handles, wire
from .basics import Average, Sum, lib_op
from .compression import Compression
from .gather_ops import allgather, grouped_allgather
from .handles import synchronize
from .process_sets import global_process_set, process_set_id, set_rank, set_size


def _scatter_rows(rows, n, r):
    # libhvd's split: the first rows % n ranks get one row more (as Horovod's).
    return rows // n + (1 if r < rows % n else 0)


def _start(kind, tensors, name, op, process_set, prescale_factor, postscale_factor):
    """One handle for the reducescatters of `tensors`; its result is the list of this rank's
    blocks. Every check comes before anything is enqueued and depends only on what every rank
    passes alike (dtype, dimensions, op), so a bad input fails on every rank the same way."""
    ps = process_set_id(process_set)
    lop = lib_op(op)
    pre, post = float(prescale_factor), float(postscale_factor)
    for t in tensors:
        if t.dim() == 0:
            raise ValueError('hvdrun.torch: reducescatter needs tensors of at least one '
                             'dimension')
    srcs = [wire.for_reduction(t) for t in tensors]
    base = handles.op_name(name, kind, ps)
    names = [base] if kind == 'reducescatter' else ['%s.%d' % (base, i) for i in range(len(srcs))]
    keys = handles.claim(kind, ps, names)
    n, r = set_size(process_set), set_rank(process_set)
    dsts = [torch.empty((_scatter_rows(s.shape[0], n, r),) + tuple(s.shape[1:]), dtype=s.dtype,
                        device=s.device) for s in srcs]
    for s in srcs:
        wire.ready(s)
    return handles.submit(
        lambda: [_lib.reducescatter_async(nm, s, d, lop, pre, post, ps)
                 for nm, s, d in zip(names, srcs, dsts)],
        (tensors, srcs, dsts),
        lambda _: [wire.back(d, t.dtype) for t, d in zip(tensors, dsts)], keys)


def reducescatter_async(tensor, name=None, op=Average, process_set=global_process_set,
                        prescale_factor=1.0, postscale_factor=1.0):
    """Starts a reduction of `tensor` whose result is scattered by rows over the ranks."""
    handle = _start('reducescatter', [tensor], name, op, process_set, prescale_factor,
                    postscale_factor)
    pending = handles._pending[handle]
    pending.finish = (lambda f: lambda p: f(p)[0])(pending.finish)
    return handle


def grouped_reducescatter_async(tensors, name=None, op=Average, process_set=global_process_set,
                                prescale_factor=1.0, postscale_factor=1.0):
    """Starts reducescatters of several tensors; one handle, a list as its result."""
    return _start('grouped_reducescatter', list(tensors), name, op, process_set, prescale_factor,
                  postscale_factor)


def _grad_factor(op, process_set, pre, post):
    return (set_size(process_set) if op == Sum else 1) * pre * post


class _ReducescatterFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, name, op, process_set, prescale_factor, postscale_factor):
        ctx.factor = _grad_factor(op, process_set, prescale_factor, postscale_factor)
        ctx.process_set = process_set
        return synchronize(reducescatter_async(tensor, name, op, process_set, prescale_factor,
                                               postscale_factor))

    @staticmethod
    def backward(ctx, grad_output):
        grad = allgather((grad_output * ctx.factor).contiguous(), process_set=ctx.process_set)
        return grad, None, None, None, None, None


def reducescatter(tensor, name=None, compression=Compression.none, op=Average,
                  process_set=global_process_set, prescale_factor=1.0, postscale_factor=1.0):
    """This rank's rows of the reduction of `tensor` over the ranks (differentiable)."""
    compressed, ctx = compression.compress(tensor)
    reduced = _ReducescatterFunction.apply(compressed, name, op, process_set, prescale_factor,
                                           postscale_factor)
    return compression.decompress(reduced, ctx)


class _GroupedReducescatterFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, name, op, process_set, prescale_factor, postscale_factor, *tensors):
        ctx.factor = _grad_factor(op, process_set, prescale_factor, postscale_factor)
        ctx.process_set = process_set
        return tuple(synchronize(grouped_reducescatter_async(
            tensors, name, op, process_set, prescale_factor, postscale_factor)))

    @staticmethod
    def backward(ctx, *grad_outputs):
        grads = grouped_allgather([(g * ctx.factor).contiguous() for g in grad_outputs],
                                  process_set=ctx.process_set)
        return (None,) * 5 + tuple(grads)


def grouped_reducescatter(tensors, name=None, compression=Compression.none, op=Average,
                          process_set=global_process_set, prescale_factor=1.0,
                          postscale_factor=1.0):
    """reducescatter of each of `tensors`, done together (differentiable); returns a list."""
    pairs = [compression.compress(t) for t in tensors]
    reduced = _GroupedReducescatterFunction.apply(name, op, process_set, prescale_factor,
                                                  postscale_factor, *[c for c, _ in pairs])
    return [compression.decompress(r, ctx) for r, (_, ctx) in zip(reduced, pairs)]
