# SPDX-License-Identifier: Apache-2.0
"""Horovod 0.28's collectives on libhvd: the async forms return int handles, poll() and
synchronize() finish them, and the plain forms are autograd functions with Horovod's
gradients. Argument names, defaults and return types follow horovod.torch.mpi_ops."""

import itertools

import torch

from . import _hvd_torch as _lib
from . import wire
from .basics import Average, Sum, lib_op, op_from, rank
from .compression import Compression
from .exceptions import HorovodInternalError
from .process_sets import global_process_set, process_set_id, set_rank, set_size


class _Pending:
    """One handle given to the caller: libhvd's operations behind it, the tensors they read or
    write (kept alive until synchronize), and how to make the result once they are done."""
    __slots__ = ('ids', 'keep', 'finish')

    def __init__(self, ids, keep, finish):
        self.ids, self.keep, self.finish = ids, keep, finish


_pending = {}
_handles = itertools.count(1)
_unnamed = {}  # per process set id: a counter


def _reset():
    """Forgets everything in flight; init() and shutdown() call it, as Horovod resets its map."""
    global _handles
    _pending.clear()
    _handles = itertools.count(1)
    _unnamed.clear()


def _name(name, kind, ps=0):
    # The ranks of a set issue its unnamed operations in the same order, so the same counter
    # value names the same tensor on each of them. One counter per set: a rank's operations in
    # other sets must not shift the numbers (Horovod's single counter does).
    if name is not None:
        return name
    counter = _unnamed.get(ps)
    if counter is None:
        counter = _unnamed[ps] = itertools.count()
    return '%s.noname.%d' % (kind, next(counter))


def _submit(enqueue, keep, finish):
    """Runs `enqueue` (returns libhvd handle ids) and registers the result under a new handle."""
    ids = enqueue()
    handle = next(_handles)
    _pending[handle] = _Pending(ids if isinstance(ids, list) else [ids], keep, finish)
    return handle


def poll(handle):
    """True once the operation behind `handle` is done; synchronize() then does not block."""
    pending = _pending.get(handle)
    if pending is None:
        raise ValueError('hvdrun.torch: unknown handle %r' % (handle,))
    return all(_lib.poll(i) for i in pending.ids)


def synchronize(handle):
    """Waits for `handle` and returns its result; HorovodInternalError if it failed."""
    pending = _pending.pop(handle, None)
    if pending is None:
        return None
    error = None
    for i in pending.ids:
        try:
            _lib.wait(i)
        except RuntimeError as e:  # wait for the rest of a group before reporting
            error = error or e
    try:
        if error is not None:
            raise HorovodInternalError(str(error))
        return pending.finish(pending)
    finally:
        for i in pending.ids:
            _lib.release(i)


# ---- allreduce -------------------------------------------------------------------------------

def _allreduce_async(tensor, output, name, op, prescale_factor, postscale_factor, process_set):
    """output None: out of place. Otherwise `output` is `tensor` (the in-place forms)."""
    ps = process_set_id(process_set)
    lop = lib_op(op)
    src = wire.for_reduction(tensor)
    dst = src if output is not None else torch.empty_like(src)
    wire.ready(src)
    name = _name(name, 'allreduce', ps)

    def finish(_):
        if output is None:
            return wire.back(dst, tensor.dtype)
        if dst is not tensor:
            tensor.copy_(dst)
        return tensor

    return _submit(lambda: _lib.allreduce_async(name, src, dst, lop, float(prescale_factor),
                                                float(postscale_factor), ps),
                   (tensor, src, dst), finish)


def allreduce_async(tensor, average=None, name=None, op=None, prescale_factor=1.0,
                    postscale_factor=1.0, process_set=global_process_set):
    """Starts an out-of-place allreduce of `tensor`; returns a handle for synchronize()."""
    op = op_from(op, average)
    return _allreduce_async(tensor, None, name, op, prescale_factor, postscale_factor,
                            process_set)


def allreduce_async_(tensor, average=None, name=None, op=None, prescale_factor=1.0,
                     postscale_factor=1.0, process_set=global_process_set):
    """Starts an in-place allreduce of `tensor`; returns a handle for synchronize()."""
    op = op_from(op, average)
    return _allreduce_async(tensor, tensor, name, op, prescale_factor, postscale_factor,
                            process_set)


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


# ---- grouped allreduce -----------------------------------------------------------------------

def _grouped_allreduce_async(tensors, in_place, name, op, prescale_factor, postscale_factor,
                             process_set):
    ps = process_set_id(process_set)
    tensors = list(tensors)
    if not tensors:
        raise ValueError('hvdrun.torch: a grouped allreduce needs at least one tensor')
    lop = lib_op(op)
    base = _name(name, 'grouped_allreduce', ps)
    names = ['%s.%d' % (base, i) for i in range(len(tensors))]
    srcs = []
    for t in tensors:
        src = wire.for_reduction(t)
        if prescale_factor != 1.0:
            # libhvd's grouped call has no scale factors: scale a copy here.
            src = wire.scale_(src.clone() if src is t else src, prescale_factor)
        srcs.append(src)
    dsts = [s if in_place else torch.empty_like(s) for s in srcs]
    for s in srcs:
        wire.ready(s)

    def finish(_):
        results = []
        for t, d in zip(tensors, dsts):
            wire.scale_(d, postscale_factor)
            if in_place:
                if d is not t:
                    t.copy_(d)
                results.append(t)
            else:
                results.append(wire.back(d, t.dtype))
        return results

    return _submit(lambda: list(_lib.grouped_allreduce_async(names, srcs, dsts, lop, ps)),
                   (tensors, srcs, dsts), finish)


def grouped_allreduce_async(tensors, average=None, name=None, op=None, prescale_factor=1.0,
                            postscale_factor=1.0, process_set=global_process_set):
    """Starts one fused allreduce of `tensors` (out of place); one handle for all."""
    return _grouped_allreduce_async(tensors, False, name, op_from(op, average), prescale_factor,
                                    postscale_factor, process_set)


def grouped_allreduce_async_(tensors, average=None, name=None, op=None, prescale_factor=1.0,
                             postscale_factor=1.0, process_set=global_process_set):
    """Starts one fused in-place allreduce of `tensors`; one handle for all."""
    return _grouped_allreduce_async(tensors, True, name, op_from(op, average), prescale_factor,
                                    postscale_factor, process_set)


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


# ---- allgather -------------------------------------------------------------------------------

def _gathered(tensor, lib_id, moved_dtype):
    # libhvd leaves the result in host memory owned by the handle: one copy into a new tensor.
    out = torch.empty(_lib.output_shape(lib_id), dtype=moved_dtype)
    _lib.copy_output(lib_id, out)
    out = wire.back(out, tensor.dtype)
    return out.to(tensor.device) if tensor.device.type != 'cpu' else out


def allgather_async(tensor, name=None, process_set=global_process_set):
    """Starts an allgather (concatenation along the first dimension, which may differ)."""
    ps = process_set_id(process_set)
    if tensor.dim() == 0:
        raise ValueError('hvdrun.torch: allgather needs a tensor of at least one dimension')
    src = wire.for_moving(tensor)
    wire.ready(src)
    name = _name(name, 'allgather', ps)
    return _submit(lambda: _lib.allgather_async(name, src, ps), (tensor, src),
                   lambda p: _gathered(tensor, p.ids[0], src.dtype))


class _AllgatherFunction(torch.autograd.Function):
    # Horovod's gradient: the averaged gradient of the whole output, narrowed to this rank's rows.
    @staticmethod
    def forward(ctx, tensor, name, process_set):
        ctx.rows = tensor.shape[0]
        ctx.process_set = process_set
        return synchronize(allgather_async(tensor, name, process_set))

    @staticmethod
    def backward(ctx, grad_output):
        reduced = allreduce(grad_output.contiguous(), average=True, process_set=ctx.process_set)
        rows = allgather(torch.tensor([ctx.rows], dtype=torch.int64),
                         process_set=ctx.process_set).view(-1)
        offset = int(rows[:set_rank(ctx.process_set)].sum())
        return reduced.narrow(0, offset, ctx.rows), None, None


def allgather(tensor, name=None, process_set=global_process_set):
    """Every rank's `tensor` concatenated along the first dimension (differentiable)."""
    return _AllgatherFunction.apply(tensor, name, process_set)


def grouped_allgather_async(tensors, name=None, process_set=global_process_set):
    """Starts allgathers of several tensors; one handle, a list as its result."""
    ps = process_set_id(process_set)
    tensors = list(tensors)
    base = _name(name, 'grouped_allgather', ps)
    srcs = [wire.for_moving(t) for t in tensors]
    for s in srcs:
        if s.dim() == 0:
            raise ValueError('hvdrun.torch: allgather needs tensors of at least one dimension')
        wire.ready(s)
    return _submit(
        lambda: [_lib.allgather_async('%s.%d' % (base, i), s, ps) for i, s in enumerate(srcs)],
        (tensors, srcs),
        lambda p: [_gathered(t, i, s.dtype) for t, i, s in zip(tensors, p.ids, srcs)])


def grouped_allgather(tensors, name=None, process_set=global_process_set):
    return synchronize(grouped_allgather_async(tensors, name, process_set))


# ---- broadcast -------------------------------------------------------------------------------

def _broadcast_async(tensor, in_place, root_rank, name, process_set):
    ps = process_set_id(process_set)
    src = wire.for_moving(tensor)
    dst = src if in_place else torch.empty_like(src)
    wire.ready(src)
    name = _name(name, 'broadcast', ps)
    return _submit(lambda: _lib.broadcast_async(name, src, dst, int(root_rank), ps),
                   (tensor, src, dst),
                   lambda _: tensor if in_place else wire.back(dst, tensor.dtype))


def broadcast_async(tensor, root_rank, name=None, process_set=global_process_set):
    """Starts a broadcast of root_rank's `tensor` into a new tensor."""
    return _broadcast_async(tensor, False, root_rank, name, process_set)


def broadcast_async_(tensor, root_rank, name=None, process_set=global_process_set):
    """Starts a broadcast of root_rank's `tensor` into `tensor` on every rank."""
    return _broadcast_async(tensor, True, root_rank, name, process_set)


def broadcast_(tensor, root_rank, name=None, process_set=global_process_set):
    return synchronize(broadcast_async_(tensor, root_rank, name, process_set))


class _BroadcastFunction(torch.autograd.Function):
    # Horovod's gradient: the averaged gradient on the root, zero elsewhere.
    @staticmethod
    def forward(ctx, tensor, root_rank, name, process_set):
        ctx.root_rank = root_rank
        ctx.process_set = process_set
        return synchronize(broadcast_async(tensor, root_rank, name, process_set))

    @staticmethod
    def backward(ctx, grad_output):
        reduced = allreduce(grad_output.contiguous(), average=True, process_set=ctx.process_set)
        if rank() != ctx.root_rank:
            reduced *= 0
        return reduced, None, None, None


def broadcast(tensor, root_rank, name=None, process_set=global_process_set):
    """root_rank's `tensor`, as a new tensor on every rank (differentiable)."""
    return _BroadcastFunction.apply(tensor, root_rank, name, process_set)


# ---- alltoall --------------------------------------------------------------------------------

def _splits_list(tensor, splits):
    if tensor.dim() == 0:
        raise ValueError('hvdrun.torch: alltoall needs a tensor of at least one dimension')
    if splits is None:
        return None
    splits = [int(s) for s in (splits.tolist() if isinstance(splits, torch.Tensor) else splits)]
    # The counts are checked in negotiation (one per rank, >= 0, adding up to the rows), so
    # that a wrong list fails the operation on every rank instead of leaving the others waiting.
    return splits


def alltoall_async(tensor, splits=None, name=None, process_set=global_process_set):
    """Starts an alltoall; synchronize() gives (output, received_splits). Without splits the
    first dimension is split in equal blocks (it must be a multiple of the ranks, and every
    rank passes the same shape); with splits, splits[r] rows go to rank r, uneven or not."""
    ps = process_set_id(process_set)
    counts = _splits_list(tensor, splits)
    src = wire.for_moving(tensor)
    wire.ready(src)
    name = _name(name, 'alltoall', ps)
    if counts is None:
        dst = torch.empty_like(src)
        n = set_size(process_set)
        received = torch.full((n,), tensor.shape[0] // n, dtype=torch.int32)
        return _submit(lambda: _lib.alltoall_async(name, src, dst, ps), (tensor, src, dst),
                       lambda _: (wire.back(dst, tensor.dtype), received))

    def finish(pending):
        lib_id = pending.ids[0]
        received = torch.tensor(_lib.received_splits(lib_id), dtype=torch.int32)
        return _gathered(tensor, lib_id, src.dtype), received

    return _submit(lambda: _lib.alltoallv_async(name, src, counts, ps), (tensor, src), finish)


class _AlltoallFunction(torch.autograd.Function):
    # The gradient goes back the way the rows came: an alltoall with the received splits.
    @staticmethod
    def forward(ctx, tensor, splits, name, process_set):
        output, received = synchronize(alltoall_async(tensor, splits, name, process_set))
        ctx.received = received
        ctx.process_set = process_set
        if splits is None:
            return output
        ctx.mark_non_differentiable(received)
        return output, received

    @staticmethod
    def backward(ctx, grad_output, *unused):
        grad, _ = alltoall(grad_output.contiguous(), splits=ctx.received, process_set=ctx.process_set)
        return grad, None, None, None


def alltoall(tensor, splits=None, name=None, process_set=global_process_set):
    """Block r of `tensor`'s rows goes to rank r. Returns the received rows, and with
    `splits` also the rows received from each rank (differentiable)."""
    return _AlltoallFunction.apply(tensor, splits, name, process_set)


# ---- reducescatter ---------------------------------------------------------------------------

def _scatter_rows(rows, n, r):
    # libhvd's split: the first rows % n ranks get one row more (as Horovod's).
    return rows // n + (1 if r < rows % n else 0)


def _reducescatter_enqueue(tensor, name, lop, prescale_factor, process_set):
    if tensor.dim() == 0:
        raise ValueError('hvdrun.torch: reducescatter needs a tensor of at least one dimension')
    src = wire.for_reduction(tensor)
    if prescale_factor != 1.0:  # libhvd's reducescatter has no scale factors
        src = wire.scale_(src.clone() if src is tensor else src, prescale_factor)
    ps = process_set_id(process_set)
    shape = ((_scatter_rows(src.shape[0], set_size(process_set), set_rank(process_set)),)
             + tuple(src.shape[1:]))
    dst = torch.empty(shape, dtype=src.dtype, device=src.device)
    wire.ready(src)
    return src, dst, lambda: _lib.reducescatter_async(name, src, dst, lop, ps)


def reducescatter_async(tensor, name=None, op=Average, process_set=global_process_set,
                        prescale_factor=1.0, postscale_factor=1.0):
    """Starts a reduction of `tensor` whose result is scattered by rows over the ranks."""
    lop = lib_op(op)
    src, dst, enqueue = _reducescatter_enqueue(
        tensor, _name(name, 'reducescatter', process_set_id(process_set)), lop, prescale_factor,
        process_set)
    return _submit(enqueue, (tensor, src, dst),
                   lambda _: wire.back(wire.scale_(dst, postscale_factor), tensor.dtype))


class _ReducescatterFunction(torch.autograd.Function):
    # The gradient of each row comes from the rank that holds it: an allgather (divided by the
    # ranks for Average).
    @staticmethod
    def forward(ctx, tensor, name, op, process_set, prescale_factor, postscale_factor):
        ctx.op = op
        ctx.process_set = process_set
        return synchronize(reducescatter_async(tensor, name, op, process_set, prescale_factor,
                                               postscale_factor))

    @staticmethod
    def backward(ctx, grad_output):
        grad = allgather(grad_output.contiguous(), process_set=ctx.process_set)
        if ctx.op == Average:
            grad = grad / set_size(ctx.process_set)
        return grad, None, None, None, None, None


def reducescatter(tensor, name=None, compression=Compression.none, op=Average,
                  process_set=global_process_set, prescale_factor=1.0, postscale_factor=1.0):
    """This rank's rows of the reduction of `tensor` over the ranks (differentiable)."""
    compressed, ctx = compression.compress(tensor)
    reduced = _ReducescatterFunction.apply(compressed, name, op, process_set, prescale_factor,
                                           postscale_factor)
    return compression.decompress(reduced, ctx)


def grouped_reducescatter_async(tensors, name=None, op=Average, process_set=global_process_set,
                                prescale_factor=1.0, postscale_factor=1.0):
    """Starts reducescatters of several tensors; one handle, a list as its result."""
    lop = lib_op(op)
    tensors = list(tensors)
    base = _name(name, 'grouped_reducescatter', process_set_id(process_set))
    parts = [_reducescatter_enqueue(t, '%s.%d' % (base, i), lop, prescale_factor, process_set)
             for i, t in enumerate(tensors)]
    return _submit(lambda: [enqueue() for _, _, enqueue in parts], (tensors, parts),
                   lambda _: [wire.back(wire.scale_(dst, postscale_factor), t.dtype)
                              for t, (_, dst, _) in zip(tensors, parts)])


def grouped_reducescatter(tensors, name=None, compression=Compression.none, op=Average,
                          process_set=global_process_set, prescale_factor=1.0,
                          postscale_factor=1.0):
    pairs = [compression.compress(t) for t in tensors]
    reduced = synchronize(grouped_reducescatter_async([c for c, _ in pairs], name, op,
                                                      process_set, prescale_factor,
                                                      postscale_factor))
    return [compression.decompress(r, ctx) for r, (_, ctx) in zip(reduced, pairs)]


# ---- synchronisation -------------------------------------------------------------------------

def barrier(process_set=global_process_set):
    """Returns once every rank has called barrier()."""
    ps = process_set_id(process_set)
    try:
        _lib.barrier(ps)
    except RuntimeError as e:
        raise HorovodInternalError(str(e))


def join(device=-1):
    """A function that indicates that the rank finished processing data.

    All ranks that did not call join() continue to process allreduce operations; this rank
    takes part in them with zeros (an average still divides by size()). Other collectives fail
    while some rank has joined. This function blocks the Python thread (not others) until all
    ranks join.

    Arguments:
        device: Horovod's device for the zero tensors; libhvd keeps them in host memory, so
                allreduces of CUDA tensors fail while a rank has joined.

    Returns:
        The id of the rank that joined last.
    """
    try:
        return _lib.join(int(device))
    except RuntimeError as e:
        raise HorovodInternalError(str(e))
