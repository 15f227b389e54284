# SPDX-License-Identifier: Apache-2.0
"""Horovod 0.28's allgather, grouped_allgather, broadcast and alltoall on libhvd, with
Horovod's gradients (torch/mpi_ops.py there):
  allgather: the averaged gradient of the whole output, narrowed to this rank's rows;
  broadcast: the averaged gradient on the root, zero elsewhere;
  alltoall:  an alltoall of the gradient with the received splits."""

import torch

from . import _hvd_torch as _lib
from . import handles, wire
from .allreduce_ops import allreduce, grouped_allreduce
from .handles import synchronize
from .process_sets import global_process_set, process_set_id, set_rank, set_size


def _start_allgather(kind, tensors, name, process_set):
    ps = process_set_id(process_set)
    for t in tensors:
        if t.dim() == 0:
            raise ValueError('hvdrun.torch: allgather needs tensors of at least one dimension')
    srcs = [wire.for_moving(t) for t in tensors]
    base = handles.op_name(name, kind, ps)
    names = [base] if kind == 'allgather' else ['%s.%d' % (base, i) for i in range(len(srcs))]
    keys = handles.claim(kind, ps, names)
    for s in srcs:
        wire.ready(s)
    return handles.submit(
        lambda: [_lib.allgather_async(n, s, ps) for n, s in zip(names, srcs)], (tensors, srcs),
        lambda p: [handles.gathered(t, i, s.dtype) for t, i, s in zip(tensors, p.ids, srcs)],
        keys)


def allgather_async(tensor, name=None, process_set=global_process_set):
    """Starts an allgather (concatenation along the first dimension, which may differ)."""
    handle = _start_allgather('allgather', [tensor], name, process_set)
    pending = handles._pending[handle]
    pending.finish = (lambda f: lambda p: f(p)[0])(pending.finish)
    return handle


def grouped_allgather_async(tensors, name=None, process_set=global_process_set):
    """Starts allgathers of several tensors; one handle, a list as its result."""
    return _start_allgather('grouped_allgather', list(tensors), name, process_set)


def _rows_offset(rows, process_set):
    """Where this rank's `rows` start in an allgather's output: the ranks' counts gathered."""
    counts = allgather(torch.tensor([rows], dtype=torch.int32), process_set=process_set)
    return int(counts[:set_rank(process_set)].sum())


class _AllgatherFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, name, process_set):
        ctx.rows = tensor.shape[0]
        ctx.process_set = process_set
        return synchronize(allgather_async(tensor, name, process_set))

    @staticmethod
    def backward(ctx, grad_output):
        reduced = allreduce(grad_output.contiguous(), average=True, process_set=ctx.process_set)
        offset = _rows_offset(ctx.rows, ctx.process_set)
        return reduced.narrow(0, offset, ctx.rows), None, None


def allgather(tensor, name=None, process_set=global_process_set):
    """Every rank's `tensor` concatenated along the first dimension (differentiable)."""
    return _AllgatherFunction.apply(tensor, name, process_set)


class _GroupedAllgatherFunction(torch.autograd.Function):
    # Horovod's HorovodGroupedAllgather: allgather's gradient for each tensor, the averages
    # made by one grouped allreduce.
    @staticmethod
    def forward(ctx, name, process_set, *tensors):
        ctx.rows = [t.shape[0] for t in tensors]
        ctx.process_set = process_set
        return tuple(synchronize(grouped_allgather_async(tensors, name, process_set)))

    @staticmethod
    def backward(ctx, *grad_outputs):
        reduced = grouped_allreduce([g.contiguous() for g in grad_outputs], average=True,
                                    process_set=ctx.process_set)
        counts = allgather(torch.tensor([ctx.rows], dtype=torch.int32),
                           process_set=ctx.process_set)
        offsets = counts[:set_rank(ctx.process_set)].sum(dim=0).tolist()
        return (None, None) + tuple(r.narrow(0, int(o), n)
                                    for r, o, n in zip(reduced, offsets, ctx.rows))


def grouped_allgather(tensors, name=None, process_set=global_process_set):
    """allgather of each of `tensors`, done together (differentiable); returns a list."""
    return list(_GroupedAllgatherFunction.apply(name, process_set, *tensors))


# ---- broadcast -------------------------------------------------------------------------------

def _broadcast_async(tensor, in_place, root_rank, name, process_set):
    ps = process_set_id(process_set)
    src = wire.for_moving(tensor)
    name = handles.op_name(name, 'broadcast', ps)
    keys = handles.claim('broadcast', ps, [name])
    dst = src if in_place else torch.empty_like(src)
    wire.ready(src)
    return handles.submit(lambda: _lib.broadcast_async(name, src, dst, int(root_rank), ps),
                          (tensor, src, dst),
                          lambda _: tensor if in_place else wire.back(dst, tensor.dtype), keys)


def broadcast_async(tensor, root_rank, name=None, process_set=global_process_set):
    """Starts a broadcast of root_rank's `tensor` into a new tensor."""
    return _broadcast_async(tensor, False, root_rank, name, process_set)


def broadcast_async_(tensor, root_rank, name=None, process_set=global_process_set):
    """Starts a broadcast of root_rank's `tensor` into `tensor` on every rank."""
    return _broadcast_async(tensor, True, root_rank, name, process_set)


def broadcast_(tensor, root_rank, name=None, process_set=global_process_set):
    return synchronize(broadcast_async_(tensor, root_rank, name, process_set))


class _BroadcastFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, root_rank, name, process_set):
        ctx.root_rank = root_rank
        ctx.process_set = process_set
        return synchronize(broadcast_async(tensor, root_rank, name, process_set))

    @staticmethod
    def backward(ctx, grad_output):
        reduced = allreduce(grad_output.contiguous(), average=True, process_set=ctx.process_set)
        if _lib.rank() != ctx.root_rank:
            reduced *= 0
        return reduced, None, None, None


def broadcast(tensor, root_rank, name=None, process_set=global_process_set):
    """root_rank's `tensor`, as a new tensor on every rank (differentiable)."""
    return _BroadcastFunction.apply(tensor, root_rank, name, process_set)


# ---- alltoall --------------------------------------------------------------------------------

def _alltoall_counts(tensor, splits, n):
    """The rows this rank sends to each of the n ranks, after Horovod's checks at enqueue
    (EnqueueTensorAlltoall): each fails here, on this rank, as Horovod's ValueError. splits may
    add up to fewer rows than the tensor has: the rest are not sent, as in Horovod."""
    rows = tensor.shape[0]
    if splits is not None and not isinstance(splits, torch.Tensor):
        splits = torch.tensor(splits, dtype=torch.int32)
    if splits is not None:
        if splits.dim() > 1:
            raise ValueError('alltoall expects a 1D splits tensor')
        if splits.dtype != torch.int32:
            raise ValueError('alltoall expects splits to contain 32-bit integer elements.')
    if splits is None or splits.numel() == 0:
        if rows % n:
            raise ValueError('splits not provided, but first dimension of tensor is not an even '
                             'multiple of the number of workers.')
        return [rows // n] * n
    counts = splits.tolist()
    if len(counts) != n:
        raise ValueError('Number of entries in splits does not equal number of workers.')
    if sum(counts) > rows:
        raise ValueError('Sum of splits entries is greater than the first dimension of tensor.')
    if min(counts) < 0:
        raise ValueError('hvdrun.torch: alltoall splits must not be negative: %s' % counts)
    return counts


def alltoall_async(tensor, splits=None, name=None, process_set=global_process_set):
    """Starts an alltoall; synchronize() gives (output, received_splits). splits[r] rows go to
    rank r; without splits, each rank's rows in n equal blocks (ranks may have different
    numbers of rows). A CUDA tensor without splits moves on the device and needs the same shape
    on every rank."""
    ps = process_set_id(process_set)
    if tensor.dim() == 0:
        raise ValueError('hvdrun.torch: alltoall needs a tensor of at least one dimension')
    n = set_size(process_set)
    counts = _alltoall_counts(tensor, splits, n)
    src = wire.for_moving(tensor)
    name = handles.op_name(name, 'alltoall', ps)
    keys = handles.claim('alltoall', ps, [name])
    wire.ready(src)
    if splits is None and tensor.is_cuda:
        dst = torch.empty_like(src)
        received = torch.full((n,), tensor.shape[0] // n, dtype=torch.int32)
        return handles.submit(lambda: _lib.alltoall_async(name, src, dst, ps), (tensor, src, dst),
                              lambda _: (wire.back(dst, tensor.dtype), received), keys)
    sent = src.narrow(0, 0, sum(counts))  # rows past the splits' sum stay here

    def finish(pending):
        lib_id = pending.ids[0]
        received = torch.tensor(_lib.received_splits(lib_id), dtype=torch.int32)
        return handles.gathered(tensor, lib_id, src.dtype), received

    return handles.submit(lambda: _lib.alltoallv_async(name, sent, counts, ps), (tensor, src),
                          finish, keys)


class _AlltoallFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, splits, name, process_set):
        output, received = synchronize(alltoall_async(tensor, splits, name, process_set))
        ctx.received = received
        ctx.process_set = process_set
        ctx.rows = tensor.shape[0]
        if splits is None:
            return output
        ctx.mark_non_differentiable(received)
        return output, received

    @staticmethod
    def backward(ctx, grad_output, *unused):
        grad, _ = synchronize(alltoall_async(grad_output.contiguous(), splits=ctx.received,
                                             process_set=ctx.process_set))
        if grad.shape[0] < ctx.rows:  # rows past the splits' sum were not sent: no gradient
            grad = torch.cat([grad, grad.new_zeros((ctx.rows - grad.shape[0],) + grad.shape[1:])])
        return grad, None, None, None


def alltoall(tensor, splits=None, name=None, process_set=global_process_set):
    """Block r of `tensor`'s rows goes to rank r. Returns the received rows, and with
    `splits` also the rows received from each rank (differentiable)."""
    return _AlltoallFunction.apply(tensor, splits, name, process_set)
