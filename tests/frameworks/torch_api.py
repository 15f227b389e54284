#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every function of hvdrun.torch in one run, on CPU tensors: torch's start-up costs seconds per
rank, so one script checks them all (tests/frameworks/CMakeLists.txt runs it for 1 to 4 ranks).

Each rank computes what every collective must give from the rank numbers alone and compares:
integers exactly, floats exactly where the values are small integers, within a tolerance
where rounding is allowed. Prints one line per rank,
    torch_api: rank R of N on HOST checks C failures F
(check_ranks.py wants the same C on every rank) and each failed check on stderr; exits 1 if
any check failed.
"""
import os
import sys
import warnings

import torch

import hvdrun.torch as hvd

DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
          torch.bfloat16, torch.float32, torch.float64]
SHAPES = [(0,), (1,), (17,), (3, 5)]

from tally import check, raises, report
from adasum_reference import adasum


def same(got, want, what, tol=0.0):
    ok = got.shape == want.shape and got.dtype == want.dtype
    if ok and got.numel():
        diff = (got.double() - want.double()).abs().max().item()
        ok = diff <= tol
    check(ok, '%s: got %s %s, want %s %s' % (what, tuple(got.shape), got.dtype,
                                             tuple(want.shape), want.dtype)
          + ('' if ok or not got.numel() or got.shape != want.shape
             else ' (values %s vs %s)' % (got.flatten()[:6].tolist(), want.flatten()[:6].tolist())))


def values(shape, dtype, r, mod=5):
    """Small positive integers that depend on the rank: exact in every dtype."""
    n = 1
    for d in shape:
        n *= d
    return (torch.arange(n, dtype=torch.int64).reshape(shape) % mod + r + 1).to(dtype)


def over_ranks(fn, shape, dtype, n, mod=5):
    """fn applied across the ranks' values, in int64/float64, then in `dtype` (integers wrap
    as a native reduction in that dtype would)."""
    acc = None
    for k in range(n):
        v = values(shape, torch.float64 if dtype.is_floating_point else torch.int64, k, mod)
        acc = v if acc is None else fn(acc, v)
    return acc


def tol_for(dtype):
    return {torch.float16: 1e-2, torch.bfloat16: 5e-2}.get(dtype, 1e-6)


def check_queries(r, n):
    env = os.environ
    check(hvd.is_initialized(), 'is_initialized after init')
    check(n == int(env['HOROVOD_SIZE']), 'size() %d vs HOROVOD_SIZE' % n)
    check(r == int(env['HOROVOD_RANK']), 'rank() %d vs HOROVOD_RANK' % r)
    check(hvd.local_rank() == int(env['HOROVOD_LOCAL_RANK']), 'local_rank()')
    check(hvd.local_size() == int(env['HOROVOD_LOCAL_SIZE']), 'local_size()')
    check(hvd.cross_rank() == int(env['HOROVOD_CROSS_RANK']), 'cross_rank()')
    check(hvd.cross_size() == int(env['HOROVOD_CROSS_SIZE']), 'cross_size()')
    # One host, or the Slurm test's 2 nodes x 2 tasks: the same number of ranks everywhere.
    check(hvd.is_homogeneous() is True, 'is_homogeneous')
    for f in (hvd.mpi_built, hvd.cuda_built, hvd.gloo_built, hvd.rocm_built,
              hvd.ddl_built, hvd.ccl_built, hvd.mpi_enabled, hvd.gloo_enabled):
        check(isinstance(f(), bool), '%s() returns a bool' % f.__name__)
    check(not hvd.gloo_built() and not hvd.rocm_built() and not hvd.ddl_built()
          and not hvd.ccl_built(), 'gloo/rocm/ddl/ccl are never built')
    # Horovod's nccl_built() is NCCL_VERSION_CODE or 0: scripts skip NCCL paths with
    # `nccl_built() < 2700`, so True (1) would read as an NCCL too old for alltoall.
    nccl = hvd.nccl_built()
    check(type(nccl) is int and (nccl >= 2700) == hvd.cuda_built() and (nccl == 0) != (nccl >= 2700),
          'nccl_built() %r: a version code when built with CUDA (%s), else 0'
          % (nccl, hvd.cuda_built()))
    if not hvd.mpi_enabled():
        raises(ValueError, hvd.mpi_threads_supported, 'mpi_threads_supported without MPI')
    check([hvd.Average, hvd.Sum, hvd.Adasum, hvd.Min, hvd.Max, hvd.Product] == [0, 1, 2, 3, 4, 5],
          "Horovod's op values")


def check_allreduce(r, n):
    ops = [(hvd.Sum, lambda a, b: a + b), (hvd.Min, torch.minimum), (hvd.Max, torch.maximum)]
    for dtype in DTYPES:
        for shape in SHAPES:
            where = '%s %s' % (dtype, shape)
            mine = values(shape, dtype, r)
            for op, fn in ops:
                want = over_ranks(fn, shape, dtype, n).to(dtype)
                same(hvd.allreduce(mine, op=op), want, 'allreduce op %d %s' % (op, where))
            # Product: factors of at most 5, so that 4 ranks' product (<= 120) is exact in
            # every dtype.
            want = over_ranks(lambda a, b: a * b, shape, dtype, n, mod=2).to(dtype)
            same(hvd.allreduce(values(shape, dtype, r, mod=2), op=hvd.Product), want,
                 'allreduce Product %s' % where)
            total = over_ranks(lambda a, b: a + b, shape, dtype, n)
            want = (total / n if dtype.is_floating_point else total // n).to(dtype)
            same(hvd.allreduce(mine), want, 'allreduce Average %s' % where, tol_for(dtype))
            # In place, async with poll, and the deprecated average= argument.
            t = mine.clone()
            out = hvd.allreduce_(t, op=hvd.Sum)
            check(out is t, 'allreduce_ returns its argument %s' % where)
            same(t, over_ranks(lambda a, b: a + b, shape, dtype, n).to(dtype),
                 'allreduce_ Sum %s' % where)
            h = hvd.allreduce_async(mine, average=False)
            while not hvd.poll(h):
                pass
            same(hvd.synchronize(h), over_ranks(lambda a, b: a + b, shape, dtype, n).to(dtype),
                 'allreduce_async average=False %s' % where)
            t = mine.clone()
            h = hvd.allreduce_async_(t, op=hvd.Max, name='max.%s.%s' % (dtype, shape))
            check(hvd.synchronize(h) is t, 'allreduce_async_ result is its argument')
            same(t, over_ranks(torch.maximum, shape, dtype, n).to(dtype), 'allreduce_async_ Max %s' % where)
        same(mine, values(SHAPES[-1], dtype, r), 'allreduce leaves its input alone %s' % dtype)
    # Scale factors (floats: 2 * sum * 0.25).
    x = values((9,), torch.float32, r)
    want = over_ranks(lambda a, b: a + b, (9,), torch.float32, n).float() * 0.5
    same(hvd.allreduce(x, op=hvd.Sum, prescale_factor=2.0, postscale_factor=0.25), want,
         'allreduce prescale/postscale')
    same(hvd.allreduce(x, op=hvd.Average, postscale_factor=float(n)),
         over_ranks(lambda a, b: a + b, (9,), torch.float32, n).float(), 'Average * postscale n',
         1e-5)
    # fp16 compression: float32 in, float32 out.
    y = hvd.allreduce(x, op=hvd.Sum, compression=hvd.Compression.fp16)
    same(y, over_ranks(lambda a, b: a + b, (9,), torch.float32, n).float(),
         'allreduce with Compression.fp16')
    same(hvd.allreduce(x, op=hvd.Sum, compression=hvd.Compression.none),
         over_ranks(lambda a, b: a + b, (9,), torch.float32, n).float(), 'Compression.none')


def check_grouped_allreduce(r, n):
    for dtype in (torch.int8, torch.int32, torch.float32, torch.bfloat16):
        tensors = [values(s, dtype, r) for s in [(3,), (0,), (2, 7), (1,)]]
        wants = [over_ranks(lambda a, b: a + b, t.shape, dtype, n).to(dtype) for t in tensors]
        outs = hvd.grouped_allreduce(tensors, op=hvd.Sum)
        check(isinstance(outs, list) and len(outs) == 4, 'grouped_allreduce returns a list')
        for o, w in zip(outs, wants):
            same(o, w, 'grouped_allreduce Sum %s' % dtype)
        h = hvd.grouped_allreduce_async(tensors, op=hvd.Max)
        for o, t in zip(hvd.synchronize(h), tensors):
            same(o, over_ranks(torch.maximum, t.shape, dtype, n).to(dtype),
                 'grouped_allreduce_async Max %s' % dtype)
        copies = [t.clone() for t in tensors]
        outs = hvd.grouped_allreduce_(copies, op=hvd.Sum)
        check(all(o is c for o, c in zip(outs, copies)), 'grouped_allreduce_ is in place')
        for c, w in zip(copies, wants):
            same(c, w, 'grouped_allreduce_ %s' % dtype)
        copies = [t.clone() for t in tensors]
        hvd.synchronize(hvd.grouped_allreduce_async_(copies, op=hvd.Sum, prescale_factor=2.0,
                                                     postscale_factor=0.5))
        for c, w in zip(copies, wants):
            same(c, w, 'grouped_allreduce_async_ with scale factors %s' % dtype)
    f = [values((4,), torch.float32, r), values((5,), torch.float32, r)]
    for o, t in zip(hvd.grouped_allreduce(f), f):
        same(o, (over_ranks(lambda a, b: a + b, t.shape, torch.float32, n) / n).float(),
             'grouped_allreduce Average', 1e-6)


def rows_of(k, dtype, cols=3):
    """Rank k's allgather input: k + 1 rows (rank 0 one row; also a rank with none below)."""
    return (torch.arange((k + 1) * cols).reshape(k + 1, cols) % 7 + 10 * k).to(dtype)


def check_allgather(r, n):
    for dtype in DTYPES:
        want = torch.cat([rows_of(k, dtype) for k in range(n)])
        same(hvd.allgather(rows_of(r, dtype)), want, 'allgather %s' % dtype)
        same(hvd.synchronize(hvd.allgather_async(rows_of(r, dtype))), want,
             'allgather_async %s' % dtype)
    # A rank with no rows, and 1-D odd sizes.
    mine = torch.arange(r * 3, dtype=torch.int64)  # rank 0 gives nothing
    same(hvd.allgather(mine), torch.cat([torch.arange(k * 3) for k in range(n)]),
         'allgather with an empty part')
    outs = hvd.grouped_allgather([rows_of(r, torch.int32), rows_of(r, torch.float64, cols=1)])
    same(outs[0], torch.cat([rows_of(k, torch.int32) for k in range(n)]), 'grouped_allgather 0')
    same(outs[1], torch.cat([rows_of(k, torch.float64, 1) for k in range(n)]),
         'grouped_allgather 1')
    outs = hvd.synchronize(hvd.grouped_allgather_async([rows_of(r, torch.int8)]))
    same(outs[0], torch.cat([rows_of(k, torch.int8) for k in range(n)]),
         'grouped_allgather_async')


def check_broadcast(r, n):
    for dtype in DTYPES:
        for root in range(n):
            for shape in [(0,), (5,), (2, 3)]:
                mine = values(shape, dtype, r)
                want = values(shape, dtype, root)
                same(hvd.broadcast(mine, root), want, 'broadcast %s root %d' % (dtype, root))
                same(mine, values(shape, dtype, r), 'broadcast leaves its input alone')
                t = mine.clone()
                check(hvd.broadcast_(t, root) is t, 'broadcast_ returns its argument')
                same(t, want, 'broadcast_ %s root %d' % (dtype, root))
                same(hvd.synchronize(hvd.broadcast_async(mine, root)), want, 'broadcast_async')
                t = mine.clone()
                hvd.synchronize(hvd.broadcast_async_(t, root_rank=root))
                same(t, want, 'broadcast_async_')


def check_alltoall(r, n):
    for dtype in DTYPES:
        mine = (torch.arange(2 * n * 2).reshape(2 * n, 2) + 20 * r).to(dtype)
        # Block r of every rank j's rows: rows 2r, 2r+1 of rank j.
        want = torch.cat([(torch.arange(2 * n * 2).reshape(2 * n, 2) + 20 * j)[2 * r:2 * r + 2]
                          for j in range(n)]).to(dtype)
        same(hvd.alltoall(mine), want, 'alltoall %s' % dtype)
        out, received = hvd.alltoall(mine, splits=[2] * n)
        same(out, want, 'alltoall with equal splits %s' % dtype)
        same(received, torch.full((n,), 2, dtype=torch.int32), 'alltoall received splits')
        out, received = hvd.synchronize(hvd.alltoall_async(
            mine, splits=torch.tensor([2] * n, dtype=torch.int32)))
        same(out, want, 'alltoall_async %s' % dtype)
        # An empty splits tensor means no splits, as in Horovod.
        out, _ = hvd.alltoall(mine, splits=torch.zeros(0, dtype=torch.int32))
        same(out, want, 'alltoall with empty splits %s' % dtype)
    empty = torch.zeros(0, 3)
    same(hvd.alltoall(empty), empty, 'alltoall of no rows')
    # Uneven splits: rank j sends (j + k) % 3 rows to rank k (none at times), each row saying
    # who sent it to whom; ranks have different first dimensions.
    def sent(j, k, dtype):
        rows = (j + k) % 3
        return (torch.full((rows, 2), 10 * j + k) + torch.arange(rows).unsqueeze(1)).to(dtype)
    for dtype in DTYPES:
        splits = [(r + k) % 3 for k in range(n)]
        mine = torch.cat([sent(r, k, dtype) for k in range(n)])
        out, received = hvd.alltoall(mine, splits=splits)
        same(out, torch.cat([sent(j, r, dtype) for j in range(n)]),
             'alltoall with uneven splits %s' % dtype)
        same(received, torch.tensor([(j + r) % 3 for j in range(n)], dtype=torch.int32),
             'alltoall received splits (uneven)')
    out, received = hvd.synchronize(hvd.alltoall_async(
        torch.arange(float(r + 1)), splits=torch.tensor([r + 1] + [0] * (n - 1), dtype=torch.int32)))
    want = torch.cat([torch.arange(float(j + 1)) for j in range(n)]) if r == 0 else torch.zeros(0)
    same(out, want, 'alltoall_async: every row to rank 0, splits as a tensor')
    # Without splits each rank cuts its own rows in n blocks: rank j has (j + 1) * n rows.
    mine = torch.arange(float((r + 1) * n)) + 100 * r
    want = torch.cat([(torch.arange(float((j + 1) * n)) + 100 * j)[(j + 1) * r:(j + 1) * (r + 1)]
                      for j in range(n)])
    same(hvd.alltoall(mine), want, 'alltoall without splits, ranks with different rows')
    # Splits that add up to fewer rows than the tensor has: the rest stay (Horovod too).
    out, received = hvd.alltoall(torch.arange(float(n + 2)) + 100 * r, splits=[1] * n)
    same(out, torch.tensor([100.0 * j + r for j in range(n)]), 'alltoall of the first rows only')
    # Horovod's checks at enqueue: ValueError on the calling rank (here every rank calls alike).
    bad = [([4] + [0] * (n - 1), 'splits adding up to more rows than the tensor has'),
           (torch.tensor([1] * n), 'splits of int64 (Horovod takes int32 only)'),
           (torch.ones((1, n), dtype=torch.int32), 'splits of two dimensions'),
           ([1] * (n + 1), 'one split more than ranks')]
    for splits, what in bad:
        raises(ValueError, lambda: hvd.alltoall(torch.zeros(3), splits=splits), 'alltoall: ' + what)
    if n > 1:
        raises(ValueError, lambda: hvd.alltoall(torch.zeros(n + 1)),
               'alltoall without splits of rows that are no multiple of the ranks')


def check_reducescatter(r, n):
    for dtype in DTYPES:
        for rows in (2 * n + 1, n, 1):  # odd, one row each, fewer rows than ranks
            shape = (rows, 3)
            total = over_ranks(lambda a, b: a + b, shape, dtype, n)
            lo = sum(rows // n + (1 if k < rows % n else 0) for k in range(r))
            mine_rows = rows // n + (1 if r < rows % n else 0)
            want = total[lo:lo + mine_rows].to(dtype)
            same(hvd.reducescatter(values(shape, dtype, r), op=hvd.Sum), want,
                 'reducescatter Sum %s rows %d' % (dtype, rows))
            avg = (total / n if dtype.is_floating_point else total // n)[lo:lo + mine_rows]
            same(hvd.reducescatter(values(shape, dtype, r)), avg.to(dtype),
                 'reducescatter default (Average) %s rows %d' % (dtype, rows), tol_for(dtype))
    shape = (2 * n + 1, 2)
    total = over_ranks(lambda a, b: a + b, shape, torch.float32, n).float()
    lo = sum(shape[0] // n + (1 if k < shape[0] % n else 0) for k in range(r))
    mine_rows = shape[0] // n + (1 if r < shape[0] % n else 0)
    outs = hvd.grouped_reducescatter([values(shape, torch.float32, r)] * 2, op=hvd.Sum,
                                     prescale_factor=2.0, postscale_factor=0.5)
    for o in outs:
        same(o, total[lo:lo + mine_rows], 'grouped_reducescatter with scale factors')
    o = hvd.synchronize(hvd.reducescatter_async(values(shape, torch.float32, r), op=hvd.Max))
    same(o, over_ranks(torch.maximum, shape, torch.float32, n).float()[lo:lo + mine_rows],
         'reducescatter_async Max')
    o = hvd.synchronize(hvd.grouped_reducescatter_async([values(shape, torch.float32, r)],
                                                        op=hvd.Min))[0]
    same(o, over_ranks(torch.minimum, shape, torch.float32, n).float()[lo:lo + mine_rows],
         'grouped_reducescatter_async Min')


def check_gradients(r, n):
    # allreduce: the gradient is the same allreduce of the incoming gradient.
    x = torch.ones(5, requires_grad=True)
    (hvd.allreduce(x, op=hvd.Sum) * (r + 1)).sum().backward()
    same(x.grad, torch.full((5,), float(sum(k + 1 for k in range(n)))), 'allreduce Sum grad')
    x = torch.ones(5, requires_grad=True)
    (hvd.allreduce(x) * (r + 1)).sum().backward()
    same(x.grad, torch.full((5,), (n + 1) / 2.0), 'allreduce Average grad', 1e-6)
    # allgather: the averaged gradient of the output, this rank's rows.
    x = torch.ones(r + 1, 2, requires_grad=True)
    y = hvd.allgather(x)
    weights = torch.arange(y.shape[0], dtype=torch.float32).unsqueeze(1) * (r + 1)
    (y * weights).sum().backward()
    lo = sum(k + 1 for k in range(r))
    rows = torch.arange(lo, lo + r + 1, dtype=torch.float32).unsqueeze(1).expand(r + 1, 2)
    same(x.grad, rows * (n + 1) / 2.0, 'allgather grad', 1e-5)
    # broadcast: the averaged gradient on the root, zero elsewhere.
    for root in range(n):
        x = torch.ones(4, requires_grad=True)
        (hvd.broadcast(x, root) * (r + 1)).sum().backward()
        want = (n + 1) / 2.0 if r == root else 0.0
        same(x.grad, torch.full((4,), want), 'broadcast grad root %d' % root, 1e-6)
    # alltoall: gradients go back where the rows came from.
    x = torch.ones(2 * n, requires_grad=True)
    y = hvd.alltoall(x)
    (y * torch.arange(2 * n, dtype=torch.float32)).sum().backward()
    # Rank j received my block j at its rows 2r, 2r+1, whose weights are 2r, 2r+1.
    same(x.grad, torch.tensor([2.0 * r + k for j in range(n) for k in range(2)]), 'alltoall grad')
    x = torch.ones(2 * n, requires_grad=True)
    y, received = hvd.alltoall(x, splits=[2] * n)
    (y * 3).sum().backward()
    same(x.grad, torch.full((2 * n,), 3.0), 'alltoall with splits grad')
    # Uneven splits: the gradient of the rows I sent to rank k is what rank k's weights
    # (100 k + position) gave the rows it received from me.
    splits = [(r + k) % 3 for k in range(n)]
    x = torch.ones(sum(splits), requires_grad=True)
    y, _ = hvd.alltoall(x, splits=splits)
    (y * (torch.arange(y.shape[0], dtype=torch.float32) + 100 * r)).sum().backward()
    want = []
    for k in range(n):
        offset = sum((j + k) % 3 for j in range(r))
        want += [100.0 * k + offset + i for i in range((r + k) % 3)]
    same(x.grad, torch.tensor(want, dtype=torch.float32).reshape(-1), 'alltoall uneven grad')
    # reducescatter: each row's gradient comes from the rank that holds it, times size() (Horovod's
    # HorovodReducescatter.backward: size() times the gradient of the sum or of the average).
    rows = 2 * n + 1
    owner = [k for k in range(n) for _ in range(rows // n + (1 if k < rows % n else 0))]
    for op, div in ((hvd.Sum, 1.0), (hvd.Average, float(n))):
        x = torch.ones(rows, 2, requires_grad=True)
        (hvd.reducescatter(x, op=op) * (r + 1)).sum().backward()
        want = torch.tensor(owner, dtype=torch.float32).add(1).unsqueeze(1).expand(rows, 2) * n / div
        same(x.grad, want, 'reducescatter grad op %d' % op, 1e-6)
    # grouped allreduce is differentiable too.
    a, b = torch.ones(3, requires_grad=True), torch.ones(2, requires_grad=True)
    ya, yb = hvd.grouped_allreduce([a, b], op=hvd.Sum)
    ((ya + 1).sum() + (yb * 2).sum()).backward()
    same(a.grad, torch.full((3,), float(n)), 'grouped_allreduce grad a')
    same(b.grad, torch.full((2,), 2.0 * n), 'grouped_allreduce grad b')


def check_errors(r, n):
    if n & (n - 1):  # Horovod's Adasum needs a power-of-two number of ranks
        raises(NotImplementedError, lambda: hvd.allreduce(torch.ones(3), op=hvd.Adasum),
               'Adasum at a rank count that is no power of two')
    else:  # the Adasum of equal vectors is that vector
        same(hvd.allreduce(torch.ones(3), op=hvd.Adasum), torch.ones(3), 'Adasum of equal ones')
    raises(ValueError, lambda: hvd.allreduce(torch.ones(3), op=42), 'an unknown op')
    raises(ValueError, lambda: hvd.allreduce(torch.ones(4, 4).t()), 'a non-contiguous tensor')
    raises(ValueError, lambda: hvd.poll(10 ** 9), 'poll of an unknown handle')
    check(hvd.synchronize(10 ** 9) is None, 'synchronize of an unknown handle gives None')
    raises(TypeError, lambda: hvd.allreduce(torch.ones(2, dtype=torch.complex64)),
           'a dtype libhvd lacks')
    # A root that is no rank: every rank gets the error, and the next collective works.
    raises(hvd.HorovodInternalError, lambda: hvd.broadcast(torch.ones(2), n, name='bad.root'),
           'broadcast from root %d of %d ranks' % (n, n))
    raises(hvd.HorovodInternalError, lambda: hvd.broadcast(torch.ones(2), -1, name='neg.root'),
           'broadcast from root -1')
    if n > 1:
        # Ranks that disagree about one name: the ranks involved raise, the rest goes on.
        raises(hvd.HorovodInternalError,
               lambda: hvd.allreduce(torch.ones(r + 1), name='mismatch.shape'), 'shape mismatch')
        raises(hvd.HorovodInternalError,
               lambda: hvd.allreduce(torch.ones(3, dtype=torch.float32 if r else torch.float64),
                                     name='mismatch.dtype'), 'dtype mismatch')
        raises(hvd.HorovodInternalError,
               lambda: hvd.allreduce(torch.ones(3), op=hvd.Sum if r else hvd.Max,
                                     name='mismatch.op'), 'op mismatch')
        raises(hvd.HorovodInternalError,
               lambda: hvd.broadcast(torch.ones(3), root_rank=r, name='mismatch.root'),
               'root mismatch')
    same(hvd.allreduce(torch.ones(3), op=hvd.Sum, name='after.errors'),
         torch.full((3,), float(n)), 'a collective after the errors')
    hvd.barrier()
    check(True, 'barrier returns')


def check_process_sets(r, n):
    """Every collective in a process set (the even ranks, the odd ranks), with the set's own
    rank numbering; the same name in a set and in the global set at once; the errors."""
    unregistered = hvd.ProcessSet([0])
    check(unregistered.size() is None and unregistered.included() is None,
          'an unregistered set answers None')
    raises(ValueError, lambda: hvd.allreduce(torch.ones(1), process_set=unregistered),
           'a collective in an unregistered set')
    check(hvd.global_process_set.size() == n and hvd.global_process_set.rank() == r,
          'the global set: size and rank')
    raises(ValueError, lambda: hvd.remove_process_set(hvd.global_process_set),
           'the global set cannot be removed')
    if n == 1:
        # The only possible set is every rank, which the global set already is.
        raises(ValueError, lambda: hvd.add_process_set([0]), 'a set of every rank is set 0')
        return
    evens = [k for k in range(n) if k % 2 == 0]
    odds = [k for k in range(n) if k % 2 == 1]
    even_set = hvd.add_process_set(evens)                      # a list of ranks
    odd_set = hvd.add_process_set(hvd.ProcessSet(odds[::-1]))  # a ProcessSet, any order
    mine, other = (even_set, odd_set) if r % 2 == 0 else (odd_set, even_set)
    members = mine.ranks
    m, p = len(members), members.index(r)
    check(mine.included() and not other.included(), 'included()')
    check(mine.size() == m and mine.rank() == p, 'size() and rank() in the set')
    check(other.rank() == -1, "rank() in a set this rank is not in is -1")
    raises(ValueError, lambda: hvd.add_process_set(evens), 'a duplicate set')
    raises(ValueError, lambda: hvd.add_process_set([0, n]), 'a rank outside the world')
    raises(ValueError, lambda: hvd.add_process_set(even_set), 'a set registered already')
    for dtype in DTYPES:
        mine_v = values((17,), dtype, r)
        want = None
        for k in members:
            v = values((17,), torch.float64 if dtype.is_floating_point else torch.int64, k)
            want = v if want is None else want + v
        same(hvd.allreduce(mine_v, op=hvd.Sum, process_set=mine), want.to(dtype),
             'allreduce in a set %s' % dtype, tol_for(dtype))
        if dtype.is_floating_point:
            same(hvd.allreduce(mine_v, process_set=mine), (want / m).to(dtype),
                 'average in a set %s' % dtype, tol_for(dtype))
        same(hvd.allgather(rows_of(r, dtype), process_set=mine),
             torch.cat([rows_of(k, dtype) for k in members]), 'allgather in a set %s' % dtype)
        root = members[-1]
        same(hvd.broadcast(values((4,), dtype, r), root, process_set=mine),
             values((4,), dtype, root), 'broadcast from global rank %d in a set' % root)
    # Alltoall: set rank q gets block q; reducescatter: this rank's rows.
    send = torch.arange(2 * m).reshape(2 * m, 1) + 100 * r
    same(hvd.alltoall(send, process_set=mine),
         torch.cat([(torch.arange(2 * m).reshape(2 * m, 1) + 100 * k)[2 * p:2 * p + 2]
                    for k in members]), 'alltoall in a set')
    # Uneven: q + 1 rows to set rank q, each saying which global rank sent it.
    splits = [q + 1 for q in range(m)]
    out, received = hvd.alltoall(torch.full((sum(splits),), r), splits=splits, process_set=mine)
    same(out, torch.cat([torch.full((p + 1,), k) for k in members]), 'uneven alltoall in a set')
    check(received.tolist() == [p + 1] * m, 'alltoall received splits in a set')
    rows = torch.ones(m + 1, 2, dtype=torch.int64) * (r + 1)
    got = hvd.reducescatter(rows, op=hvd.Sum, process_set=mine)
    same(got, torch.full((2 if p == 0 else 1, 2), sum(k + 1 for k in members), dtype=torch.int64),
         'reducescatter in a set')
    # Gradients flow within the set: allreduce's is the set's average.
    x = torch.ones(3, requires_grad=True)
    (hvd.allreduce(x, process_set=mine) * (r + 1)).sum().backward()
    same(x.grad, torch.full((3,), sum(k + 1 for k in members) / m), 'allreduce grad in a set',
         1e-6)
    # The same name in the set and the global set at once: names are per set.
    h_set = hvd.allreduce_async(torch.ones(2), name='both', op=hvd.Sum, process_set=mine)
    h_all = hvd.allreduce_async(torch.ones(2), name='both', op=hvd.Sum)
    same(hvd.synchronize(h_set), torch.full((2,), float(m)), 'a name in the set')
    same(hvd.synchronize(h_all), torch.full((2,), float(n)), 'the same name in the global set')
    check(hvd.broadcast_object('from %d' % members[0], root_rank=members[0], process_set=mine)
          == 'from %d' % members[0], 'broadcast_object in a set')
    check(hvd.allgather_object(r, process_set=mine) == members, 'allgather_object in a set')
    raises(ValueError, lambda: hvd.allreduce(torch.ones(1), process_set=hvd.ProcessSet([99])),
           'a set never added')
    raises(hvd.HorovodInternalError, lambda: hvd.allreduce(torch.ones(1), process_set=other),
           'a set this rank is not in')
    # DistributedOptimizer over a set: the set's members end with the same weights.
    torch.manual_seed(7)
    model = torch.nn.Linear(3, 1)
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                   named_parameters=model.named_parameters(), process_set=mine)
    model(torch.full((2, 3), float(r))).sum().backward()
    opt.step()
    w = hvd.allgather(model.weight.detach(), process_set=mine)
    check(bool((w == w[0]).all()), 'DistributedOptimizer in a set: same weights on its ranks')
    # SyncBatchNorm over the set: the statistics of the set's batches together.
    bn = hvd.SyncBatchNorm(2, process_set=mine).double()
    batch = lambda k: torch.arange(6, dtype=torch.float64).reshape(3, 2) * (k + 1)
    reference = torch.nn.BatchNorm1d(2).double()(torch.cat([batch(k) for k in members]))
    same(bn(batch(r)), reference[3 * p:3 * p + 3], 'SyncBatchNorm in a set', 1e-9)
    hvd.barrier(process_set=mine)
    check(hvd.remove_process_set(odd_set) and hvd.remove_process_set(even_set),
          'remove_process_set returns True')
    check(hvd.remove_process_set(even_set) is False, 'removing a removed set returns False')
    check(even_set.process_set_id is None and even_set.size() is None, 'a removed set is invalid')
    again = hvd.add_process_set(evens)
    if r % 2 == 0:
        same(hvd.allreduce(torch.ones(1), op=hvd.Sum, process_set=again),
             torch.full((1,), float(len(evens))), 'a set added again')
    else:
        check(not again.included(), 'a set added again: not included')
    hvd.remove_process_set(again)


def check_timeline(r, n):
    """start_timeline/stop_timeline at run time: rank 0 ends with one trace holding every
    rank's events, the named tensor's included."""
    import json
    import tempfile
    # In the working directory: every rank's file must be where rank 0 can merge it, and the
    # nodes of the test cluster share that, not /tmp.
    where = hvd.broadcast_object(tempfile.mkdtemp(prefix='hvd-tl-', dir=os.getcwd())
                                 if r == 0 else None, 0, name='timeline.dir')
    path = os.path.join(where, 'run.json')
    hvd.start_timeline(path, mark_cycles=True)
    raises(ValueError, lambda: hvd.start_timeline(path), 'start_timeline twice')
    hvd.allreduce(torch.ones(4), name='timeline.tensor')
    hvd.stop_timeline()
    raises(ValueError, hvd.stop_timeline, 'stop_timeline with none running')
    found = None
    if r == 0:
        with open(path) as f:
            events = json.load(f)
        found = {
            'ranks': sorted({e.get('pid') for e in events if e.get('ph') in ('B', 'E')}),
            'tensor': any(e.get('args', {}).get('name') == 'timeline.tensor'
                          for e in events if e.get('ph') == 'M'),
            'cycles': any(e.get('name') == 'CYCLE_START' for e in events),
        }
    found = hvd.broadcast_object(found, 0, name='timeline.found')
    check(found['ranks'] == list(range(n)), 'timeline: every rank in the merged trace: %s'
          % found['ranks'])
    check(found['tensor'], 'timeline: the named tensor has its track')
    check(found['cycles'], 'timeline: mark_cycles records CYCLE_START')
    # A second timeline after the first, to another file.
    hvd.start_timeline(os.path.join(where, 'again.json'))
    hvd.stop_timeline()
    written = hvd.broadcast_object(os.path.exists(os.path.join(where, 'again.json'))
                                   if r == 0 else None, 0, name='timeline.again')
    check(written, 'timeline: a second one is written')
    hvd.barrier()
    if r == 0:
        import shutil
        shutil.rmtree(where, ignore_errors=True)


def check_helpers(r, n):
    check(hvd.broadcast_object({'rank': r, 'list': [r] * 3}, root_rank=0)
          == {'rank': 0, 'list': [0] * 3}, 'broadcast_object from 0')
    check(hvd.broadcast_object('from %d' % r, root_rank=n - 1) == 'from %d' % (n - 1),
          'broadcast_object from the last rank')
    check(hvd.allgather_object({'r': r}) == [{'r': k} for k in range(n)], 'allgather_object')
    torch.manual_seed(100 + r)  # every rank starts from different weights
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    torch.manual_seed(100)
    reference = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        same(p.detach(), q.detach(), 'broadcast_parameters state_dict: %s' % name)
    torch.manual_seed(200 + r)
    model2 = torch.nn.Linear(3, 3)
    hvd.broadcast_parameters(list(model2.named_parameters()), root_rank=n - 1)
    gathered = hvd.allgather(model2.weight.detach().reshape(1, -1))
    check(bool((gathered == gathered[0]).all()), 'broadcast_parameters named_parameters')
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.full((2, 4), float(r + 1))).sum().backward()
    opt.step()  # momentum buffers that differ per rank
    kept = opt.state[next(iter(model.parameters()))]['momentum_buffer']
    opt.param_groups[0]['lr'] = 0.1 * (r + 1)  # options that differ per rank
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    check(opt.state[next(iter(model.parameters()))]['momentum_buffer'] is kept,
          'broadcast_optimizer_state: state tensors are broadcast in place, as in Horovod')
    lrs = hvd.allgather(torch.tensor([opt.param_groups[0]['lr']]))
    same(lrs, torch.full((n,), 0.1), 'broadcast_optimizer_state: every rank has rank 0\'s lr')
    buf = opt.state[next(iter(model.parameters()))]['momentum_buffer'].reshape(1, -1)
    gathered = hvd.allgather(buf)
    check(bool((gathered == gathered[0]).all()), 'broadcast_optimizer_state momentum buffers')


def train_steps(r, n, steps, **kwargs):
    """A few DistributedOptimizer steps on rank-dependent data; returns the model and the
    same steps done on one process over all ranks' data (the definition)."""
    torch.manual_seed(7)
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    torch.manual_seed(7)
    reference = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    passes = kwargs.get('backward_passes_per_step', 1)
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.5),
                                   named_parameters=model.named_parameters(), **kwargs)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.5)
    data = lambda k, s, p: torch.sin(torch.arange(24, dtype=torch.float32).reshape(4, 6)
                                     * (k + 1) + s + 0.3 * p)
    for s in range(steps):
        opt.zero_grad()
        for p in range(passes):
            model(data(r, s, p)).pow(2).mean().backward()
        opt.step()
        ref_opt.zero_grad()
        for p in range(passes):
            loss = sum(reference(data(k, s, p)).pow(2).mean() for k in range(n)) / n
            loss.backward()
        ref_opt.step()
    return model, reference, opt


def check_optimizer_names():
    """Horovod's ValueErrors for names: a repeated name (listed), and the Adasum optimizer's
    unnamed parameters numbered within each group, which repeat across two groups."""
    two = [torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2))]
    def repeated(op):
        hvd.DistributedOptimizer(torch.optim.SGD(two, lr=0.1), op=op,
                                 named_parameters=[('w', two[0]), ('w', two[1])])
    for op in (hvd.Average, hvd.Adasum):
        try:
            repeated(op)
            check(False, 'a repeated parameter name (%s) raises' % op)
        except ValueError as e:
            check('Found duplicates: w' in str(e), 'the repeated name is listed: %s' % e)
    groups = [{'params': [two[0]]}, {'params': [two[1]], 'lr': 0.5}]
    if hvd.size() == 1:  # Horovod's DistributedOptimizer at one rank, whatever the op
        hvd.DistributedOptimizer(torch.optim.SGD(groups, lr=0.1), op=hvd.Adasum)
        return
    raises(ValueError, lambda: hvd.DistributedOptimizer(torch.optim.SGD(groups, lr=0.1),
                                                        op=hvd.Adasum),
           'Adasum optimizer of two groups without named_parameters (Horovod numbers per group)')
    hvd.DistributedOptimizer(torch.optim.SGD(groups, lr=0.1))  # numbered i.j: no repeats


def check_optimizer(r, n):
    for kwargs, tol in [({}, 1e-5), ({'groups': 2}, 1e-5), ({'gradient_predivide_factor': 2.0}, 1e-5),
                        ({'compression': hvd.Compression.fp16}, 1e-2),
                        ({'backward_passes_per_step': 2}, 1e-5),
                        ({'sparse_as_dense': True}, 1e-5)]:
        model, reference, _ = train_steps(r, n, 3, **kwargs)
        for (name, p), q in zip(model.named_parameters(), reference.parameters()):
            same(p.detach(), q.detach(), 'DistributedOptimizer %s: %s' % (kwargs, name), tol)
        flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()]).reshape(1, -1)
        gathered = hvd.allgather(flat)
        check(bool((gathered == gathered[0]).all()),
              'DistributedOptimizer %s: every rank has the same parameters' % kwargs)
    # Sum: n times the averaged gradient.
    model, _, opt = train_steps(r, n, 0, op=hvd.Sum)
    raises(ValueError, lambda: hvd.DistributedOptimizer(
        torch.optim.SGD(model.parameters(), lr=0.1), op=hvd.Sum, gradient_predivide_factor=2.0),
        'gradient_predivide_factor with op=Sum')
    check_optimizer_names()
    # synchronize() by hand (to clip), then step() inside skip_synchronize().
    torch.manual_seed(3)
    model = torch.nn.Linear(3, 1)
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=1.0),
                                   named_parameters=model.named_parameters())
    model(torch.full((1, 3), float(r + 1))).sum().backward()
    opt.synchronize()
    same(model.weight.grad, torch.full((1, 3), (n + 1) / 2.0), 'synchronize() averages', 1e-6)
    if n > 1:
        model(torch.ones(1, 3)).sum().backward()
        raises(AssertionError, opt.zero_grad, 'zero_grad between backward and step')
        opt.synchronize()
    with opt.skip_synchronize():
        opt.step()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        opt.synchronize()
        opt.step()
    check(any('skip_synchronize' in str(w.message) for w in caught),
          'step() after synchronize() without skip_synchronize warns')


def check_sparse(r, n):
    """sparse_allreduce_async (Horovod's, for nn.Embedding(sparse=True) gradients) and the
    DistributedOptimizer's sparse path, against dense arithmetic."""
    rows = n + 2
    dense = lambda k: torch.zeros(rows, 3).index_fill_(0, torch.tensor([k, k + 2]), k + 1.0)
    # Rank 0 has no entries at all (nnz 0), the others two rows each, overlapping with rank k+2.
    local = (dense(r) if r > 0 else torch.zeros(rows, 3)).to_sparse()
    total = sum(dense(k) for k in range(1, n)) if n > 1 else torch.zeros(rows, 3)
    for op, want in ((hvd.Sum, total), (hvd.Average, total / n)):
        got = hvd.sparse_allreduce_async(local, 'sparse.%d' % op, op)()
        check(got.is_sparse, 'sparse_allreduce gives a sparse tensor (op %d)' % op)
        same(got.to_dense(), want, 'sparse_allreduce op %d' % op, 1e-6)
    raises(NotImplementedError, lambda: hvd.sparse_allreduce_async(local, 'sparse.min', hvd.Min),
           'sparse_allreduce with Min')
    raises(ValueError, lambda: hvd.sparse_allreduce_async(torch.ones(2), 'sparse.dense', hvd.Sum),
           'sparse_allreduce of a dense tensor')
    # An embedding with sparse gradients, trained on rank-dependent rows, against one process
    # that averages all ranks' losses, and against sparse_as_dense.
    lookups = lambda k: torch.tensor([k, (k + 1) % rows, k])
    results = []
    for sparse_as_dense in (False, True):
        torch.manual_seed(5)
        emb = torch.nn.Embedding(rows, 2, sparse=True)
        opt = hvd.DistributedOptimizer(torch.optim.SGD(emb.parameters(), lr=0.1),
                                       named_parameters=emb.named_parameters(),
                                       sparse_as_dense=sparse_as_dense)
        for _ in range(3):
            opt.zero_grad()
            emb(lookups(r)).pow(2).sum().backward()
            opt.step()
        results.append(emb.weight.detach().clone())
    torch.manual_seed(5)
    ref = torch.nn.Embedding(rows, 2, sparse=True)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    for _ in range(3):
        ref_opt.zero_grad()
        (sum(ref(lookups(k)).pow(2).sum() for k in range(n)) / n).backward()
        ref_opt.step()
    same(results[0], ref.weight.detach(), 'DistributedOptimizer with sparse gradients', 1e-6)
    same(results[0], results[1], 'sparse gradients: the same as sparse_as_dense', 1e-6)


def check_join(r, n):
    """hvd.join(): rank r has data for r + 2 steps; ranks that ran out join, the others go on
    with zeros from them (an average still divides by n), and the last rank to join is n - 1.
    The same number of checks on every rank."""
    sums_ok = avgs_ok = True
    others_ok = {op: True for op in ('Min', 'Max', 'Product', 'Adasum')}
    for s in range(r + 2):
        with_data = [k for k in range(n) if k + 2 > s]
        got = hvd.allreduce(torch.full((5,), float(r + 1)), op=hvd.Sum, name='join.sum')
        sums_ok = sums_ok and bool((got == float(sum(k + 1 for k in with_data))).all())
        avg = hvd.allreduce(torch.full((3,), 6.0), name='join.avg')
        avgs_ok = avgs_ok and bool((avg == 6.0 * len(with_data) / n).all())
        # Every other op takes the joined ranks' zeros, as Horovod's: what each rank gives.
        given = [torch.tensor([k + 1.0, -(k + 1.0), 0.5 * k]) if k in with_data
                 else torch.zeros(3) for k in range(n)]
        mine = given[r].clone()
        for name, ref in [('Min', lambda xs: torch.stack(xs).min(0).values),
                          ('Max', lambda xs: torch.stack(xs).max(0).values),
                          ('Product', lambda xs: torch.stack(xs).prod(0)),
                          ('Adasum', adasum)]:
            if name == 'Adasum' and n & (n - 1):
                continue
            got = hvd.allreduce(mine, op=getattr(hvd, name), name='join.' + name)
            others_ok[name] = others_ok[name] and torch.allclose(got, ref(given), atol=1e-6)
    check(sums_ok, 'allreduce Sum with joined ranks: over the ranks that still have data')
    check(avgs_ok, 'allreduce Average with joined ranks: divides by every rank')
    for name, ok in others_ok.items():
        check(ok, 'allreduce %s with joined ranks: their zeros take part' % name)
    check(hvd.join() == n - 1, 'join() returns the last rank to join')
    check(hvd.join() in range(n), 'join() again, with nothing in flight')
    # Other collectives fail while a rank has joined, on the ranks that submitted them.
    if r == 0:
        last = hvd.join()
        check(last == n - 1 or n == 1, 'rank 0 joined first; the last rank is another')
    else:
        raises(hvd.HorovodInternalError,
               lambda: hvd.broadcast(torch.ones(2), 1, name='join.bcast'),
               'broadcast while rank 0 has joined')
        hvd.join()
    same(hvd.allreduce(torch.ones(2), op=hvd.Sum, name='join.after'), torch.full((2,), float(n)),
         'allreduce after join')
    # DistributedOptimizer with uneven batches per rank, as Horovod users run it: rank r has r + 1
    # batches. Loss sum(model(x)) has gradients that do not depend on the weights, so the
    # expected weights follow in closed form: each step subtracts lr times the sum of the
    # gradients of the ranks with a batch at that step, divided by n.
    torch.manual_seed(11)
    model = torch.nn.Linear(4, 1)
    w0, b0 = model.weight.detach().clone(), model.bias.detach().clone()
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                   named_parameters=model.named_parameters())
    batch = lambda k, s: torch.arange(8, dtype=torch.float32).reshape(2, 4) * (k + 1) + s
    for s in range(r + 1):
        opt.zero_grad()
        model(batch(r, s)).sum().backward()
        opt.step()
    last = hvd.join()
    w_want, b_want = w0.clone(), b0.clone()
    for s in range(r + 1):
        with_batch = [k for k in range(n) if k + 1 > s]
        w_want -= 0.1 * sum(batch(k, s).sum(0, keepdim=True) for k in with_batch) / n
        b_want -= 0.1 * sum(torch.full((1,), 2.0) for _ in with_batch) / n
    same(model.weight.detach(), w_want, 'DistributedOptimizer with uneven batches: weight', 1e-5)
    same(model.bias.detach(), b_want, 'DistributedOptimizer with uneven batches: bias', 1e-5)
    check(last == n - 1, 'DistributedOptimizer: the rank with the most batches joins last')


def check_cuda(r, n):
    """CUDA tensors go through NCCL: only where this build has the GPU backend and the rank
    sees a GPU (hvdrun gives each local rank one); skipped, and said so, elsewhere."""
    if not (hvd.nccl_built() and torch.cuda.is_available()):
        if r == 0:
            print('CUDA checks of torch_api.py skipped (nccl_built %s, cuda available %s)'
                  % (hvd.nccl_built(), torch.cuda.is_available()), flush=True)
        return
    dev = torch.device('cuda', 0)
    for dtype in (torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16,
                  torch.bfloat16, torch.float32, torch.float64):
        x = values((33,), dtype, r).to(dev)
        y = hvd.allreduce(x, op=hvd.Sum)
        check(y.is_cuda, 'allreduce of a CUDA tensor stays on the GPU')
        same(y.cpu(), over_ranks(lambda a, b: a + b, (33,), dtype, n).to(dtype),
             'CUDA allreduce %s' % dtype)
        same(hvd.broadcast(x, 0).cpu(), values((33,), dtype, 0), 'CUDA broadcast %s' % dtype)
        g = hvd.allgather(rows_of(r, dtype).to(dev))
        check(g.is_cuda, 'allgather of a CUDA tensor is on the GPU')
        same(g.cpu(), torch.cat([rows_of(k, dtype) for k in range(n)]), 'CUDA allgather %s' % dtype)
    raises(hvd.HorovodInternalError, lambda: hvd.allreduce(torch.ones(3, dtype=torch.int16,
                                                                     device=dev)),
           'int16 on the GPU (NCCL has none)')


def check_reinit():
    hvd.shutdown()
    check(not hvd.is_initialized(), 'is_initialized after shutdown')
    raises(ValueError, hvd.size, 'size() after shutdown')
    hvd.init()
    check(hvd.is_initialized(), 'init again after shutdown')
    same(hvd.allreduce(torch.ones(2), op=hvd.Sum), torch.full((2,), float(hvd.size())),
         'allreduce after init, shutdown, init')
    mpi_launched = any(k in os.environ for k in ('OMPI_COMM_WORLD_SIZE', 'PMI_SIZE', 'PMI_RANK',
                                                  'PMIX_RANK', 'MV2_COMM_WORLD_SIZE'))
    if hvd.mpi_built() and not mpi_launched and hvd.size() > 1:
        # An init that fails on every rank after the bootstrap met in hvdrun's store (the MPI
        # backend without mpirun), then a retry with a good setting: the retry must not arrive
        # at the failed attempt's barriers again.
        hvd.shutdown()
        os.environ['HVD_BACKEND'] = 'mpi'
        raises(RuntimeError, hvd.init, 'init with HVD_BACKEND=mpi under hvdrun')
        os.environ['HVD_BACKEND'] = 'ring'
        hvd.init()
        same(hvd.allreduce(torch.ones(2), op=hvd.Sum), torch.full((2,), float(hvd.size())),
             'allreduce after a failed init and a retry')


def main():
    hvd.init()
    hvd.init()  # a second init does nothing
    r, n = hvd.rank(), hvd.size()
    for part in (check_queries, check_allreduce, check_grouped_allreduce, check_allgather,
                 check_broadcast, check_alltoall, check_reducescatter, check_gradients,
                 check_errors, check_process_sets, check_timeline, check_helpers,
                 check_optimizer, check_sparse, check_join, check_cuda):
        part(r, n)
    check_reinit()
    hvd.shutdown()
    return report('torch_api', r, n)


if __name__ == '__main__':
    sys.exit(main())
