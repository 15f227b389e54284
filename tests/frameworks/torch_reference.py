#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""hvdrun.torch against a reference computed in plain torch, over the product of collective x
form (plain, _async, in-place) x dtype x op x scale factors x process set (tests/frameworks/
CMakeLists.txt runs it for 1 to 4 ranks).

Every rank makes its input from (seed, case, rank), so each rank can make every other rank's
input too: the reference is the global computation in plain torch over all ranks' inputs, with
no communication and no hand-written numbers. Values are compared exactly for integers and
within a tolerance for floats. For float32/float64 the gradient is checked: the upstream
gradient of rank k is made from (seed, case, k) too; the reference is
torch.autograd.grad(sum_k <upstream_k, out_k>, my input) over the same global computation,
times Horovod's convention for the collective (HorovodAllgather/HorovodBroadcast average the
gradient over the set, 1/size; HorovodReducescatter multiplies it by size; allreduce with Min,
Max or Product returns the same allreduce of the upstream gradients). Then Horovod's errors. Scale factors and averages are checked to the bit too (exact_scaling.py).

Prints `torch_reference: rank R of N on HOST checks C failures F`; exits 1 on a failure.
"""
import math
import sys
import zlib

import torch

import hvdrun.torch as hvd
from tally import check, raises, report
from adasum_reference import adasum
from exact_scaling import exact_scaling_cases

INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
GRAD_DTYPES = (torch.float32, torch.float64)
SCALES = [(1.0, 1.0), (2.0, 0.5)]
TOL = {torch.float16: 2e-2, torch.bfloat16: 6e-2, torch.float32: 1e-5, torch.float64: 1e-10}
_case = [0]


def make(key, k, shape, dtype):
    """Rank k's input for case `key`: small integers (no overflow, even for Product) or normal
    floats, the same on every rank that makes it."""
    g = torch.Generator().manual_seed(zlib.crc32(repr((key, k)).encode()))
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    return torch.randint(0, 4, shape, generator=g).to(dtype)


def scaled(x, factor, dtype):
    """x * factor as Horovod scales a buffer: integers truncated toward zero."""
    if factor == 1.0:
        return x
    return x * factor if dtype.is_floating_point else torch.trunc(x * factor)


def reduce(xs, op, pre, post, dtype):
    """Horovod's allreduce of float64 copies xs (one per rank), as float64."""
    xs = [scaled(x, pre, dtype) for x in xs]
    if op == hvd.Adasum:
        out = adasum([x.reshape(-1) for x in xs]).reshape(xs[0].shape)
    else:
        fn = {hvd.Sum: torch.add, hvd.Average: torch.add, hvd.Min: torch.minimum,
              hvd.Max: torch.maximum, hvd.Product: torch.mul}[op]
        out = xs[0]
        for x in xs[1:]:
            out = fn(out, x)
    if op == hvd.Average:
        post = post / len(xs)
    return scaled(out, post, dtype)


def guarded(fn):
    """A case that raises is a failed check, and the run goes on (with the same error on
    every rank, the ranks stay in step)."""
    def run(*args):
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 - any error is this case's failure
            check(False, '%s: raised %r' % (args[-1] if args else fn.__name__, e))
    return run


@guarded
def call(fn, t, kw, what):
    return fn(t, kw)


def same(got, want, what):
    """got (a tensor of the case's dtype) against want (float64 or the dtype)."""
    ok = got.shape == want.shape
    if ok and got.numel():
        dtype = got.dtype
        if dtype.is_floating_point:
            tol = TOL[dtype]
            ok = torch.allclose(got.double(), want.double().to(dtype).double(), rtol=tol,
                                atol=tol)
        else:
            ok = torch.equal(got, want.to(dtype))
    check(ok, '%s: got %s, want %s' % (what, got.flatten()[:6].tolist(),
                                       want.flatten()[:6].tolist()))


@guarded
def grad_check(fn_hvd, fn_ref, key, shapes, rank_pos, members, dtype, factor, what):
    """fn_hvd(x) -> this rank's outputs; fn_ref(xs per rank) -> every rank's outputs. Compares
    x.grad with factor * d(sum_k <u_k, out_k>)/dx (float64 reference)."""
    n = len(members)
    x = make(key, members[rank_pos], shapes[rank_pos], dtype).requires_grad_()
    outs = fn_hvd(x)
    ups = [make((key, 'up', i), members[rank_pos], o.shape, dtype) for i, o in enumerate(outs)]
    sum(((o * u).sum() for o, u in zip(outs, ups)), torch.zeros((), dtype=dtype)).backward()
    xs = [make(key, members[k], shapes[k], dtype).double().requires_grad_() for k in range(n)]
    ref_outs = fn_ref(xs)
    loss = 0
    for k in range(n):
        for i, o in enumerate(ref_outs[k]):
            loss = loss + (o * make((key, 'up', i), members[k], o.shape, dtype).double()).sum()
    (want,) = torch.autograd.grad(loss, xs[rank_pos], allow_unused=True)
    want = torch.zeros_like(xs[rank_pos]) if want is None else want  # a broadcast's non-root
    same(x.grad, want * factor, what + ' grad')


def forms(base, grouped=False):
    """The forms of a collective as functions (tensor(s), kwargs) -> result(s)."""
    out = {base: lambda t, kw: getattr(hvd, base)(t, **kw),
           base + '_async': lambda t, kw: hvd.synchronize(getattr(hvd, base + '_async')(t, **kw))}
    if hasattr(hvd, base + '_'):
        def in_place(t, kw):
            copy = [c.clone() for c in t] if grouped else t.clone()
            res = getattr(hvd, base + '_')(copy, **kw)
            return res
        out[base + '_'] = in_place
    if hasattr(hvd, base + '_async_'):
        def in_place_async(t, kw):
            copy = [c.clone() for c in t] if grouped else t.clone()
            return hvd.synchronize(getattr(hvd, base + '_async_')(copy, **kw))
        out[base + '_async_'] = in_place_async
    return out


def allreduce_cases(pos, members, ps, grouped):
    n = len(members)
    ops = [hvd.Sum, hvd.Average, hvd.Min, hvd.Max, hvd.Product]
    base = 'grouped_allreduce' if grouped else 'allreduce'
    shapes = [(3, 2), (5,)] if grouped else [(4, 3)]
    for dtype in INTS + FLOATS:
        dops = ops + ([hvd.Adasum] if dtype in (torch.float16, torch.float32, torch.float64)
                      and ps is hvd.global_process_set and not n & (n - 1) else [])
        for op in dops:
            for pre, post in SCALES:
                if op == hvd.Product and pre != 1.0 and dtype in (torch.uint8, torch.int8):
                    continue  # (2 * 3) ** 4 overflows 8 bits: no defined result to compare
                key = (base, str(dtype), op, pre, ps.ranks)
                xs = [[make((key, i), m, s, dtype) for i, s in enumerate(shapes)] for m in members]
                want = [reduce([x[i].double() if dtype.is_floating_point else x[i].long()
                                for x in xs], op, pre, post, dtype) for i in range(len(shapes))]
                kw = dict(op=op, prescale_factor=pre, postscale_factor=post, process_set=ps)
                for form, fn in forms(base, grouped).items():
                    got = call(fn, xs[pos] if grouped else xs[pos][0], kw, form)
                    if got is None:
                        continue
                    got = got if grouped else [got]
                    for i, (g, w) in enumerate(zip(got, want)):
                        same(g, w, '%s %s op %d scale %s/%s set %s #%d'
                             % (form, dtype, op, pre, post, ps.ranks, i))
                if dtype not in GRAD_DTYPES:
                    continue
                def fn_hvd(x):
                    if grouped:
                        return hvd.grouped_allreduce([x, x * 2], **kw)
                    return [hvd.allreduce(x, **kw)]
                what = '%s %s op %d scale %s/%s set %s' % (base, dtype, op, pre, post, ps.ranks)
                if op in (hvd.Sum, hvd.Average):
                    def fn_ref(xs_):
                        outs = [reduce(xs_, op, pre, post, dtype)]
                        if grouped:
                            outs.append(reduce([x * 2 for x in xs_], op, pre, post, dtype))
                        return [outs] * n
                    grad_check(fn_hvd, fn_ref, key, [shapes[0]] * n, pos, members, dtype, 1.0,
                               what)
                elif not grouped:
                    other_op_grad(fn_hvd, xs[pos][0], key, members, pos, shapes[0], dtype, op,
                                  pre, post, what + ' grad')


@guarded
def other_op_grad(fn_hvd, x, key, members, pos, shape, dtype, op, pre, post, what):
    # Min, Max, Product, Adasum: Horovod's gradient is the same allreduce of the upstream
    # gradients (HorovodAllreduce.backward), not d(op)/dx.
    x = x.clone().requires_grad_()
    ups = [make((key, 'up'), m, shape, dtype) for m in members]
    (fn_hvd(x)[0] * ups[pos]).sum().backward()
    same(x.grad, reduce([u.double() for u in ups], op, pre, post, dtype), what)


def gather_cases(pos, members, ps, grouped):
    n = len(members)
    base = 'grouped_allgather' if grouped else 'allgather'
    for dtype in INTS + FLOATS + [torch.bool]:
        key = (base, str(dtype), ps.ranks)
        shapes = [[(m + 1, 2), (2 * m + 1,)] for m in range(n)]
        if not grouped:
            shapes = [[s[0]] for s in shapes]
        xs = [[make((key, i), members[k], s, dtype) for i, s in enumerate(shapes[k])]
              for k in range(n)]
        want = [torch.cat([xs[k][i] for k in range(n)]) for i in range(len(shapes[0]))]
        for form, fn in forms(base, grouped).items():
            got = call(fn, xs[pos] if grouped else xs[pos][0], dict(process_set=ps), form)
            if got is None:
                continue
            for i, (g, w) in enumerate(zip(got if grouped else [got], want)):
                same(g, w, '%s %s set %s #%d' % (form, dtype, ps.ranks, i))
        if dtype in GRAD_DTYPES:
            grad_check(lambda x: hvd.grouped_allgather([x, x * 3], process_set=ps) if grouped
                       else [hvd.allgather(x, process_set=ps)],
                       lambda xs_: [[torch.cat(xs_)] + ([torch.cat([x * 3 for x in xs_])]
                                                        if grouped else [])] * n,
                       key, [s[0] for s in shapes], pos, members, dtype, 1.0 / n,
                       '%s %s set %s' % (base, dtype, ps.ranks))


def broadcast_cases(pos, members, ps):
    n = len(members)
    root = members[-1]
    for dtype in INTS + FLOATS + [torch.bool]:
        key = ('broadcast', str(dtype), ps.ranks)
        x = make(key, members[pos], (3, 2), dtype)
        want = make(key, root, (3, 2), dtype)
        for form, fn in forms('broadcast').items():
            same(fn(x, dict(root_rank=root, process_set=ps)), want,
                 '%s %s set %s' % (form, dtype, ps.ranks))
        if dtype in GRAD_DTYPES:
            grad_check(lambda t: [hvd.broadcast(t, root, process_set=ps)],
                       lambda xs_: [[xs_[-1]]] * n, key, [(3, 2)] * n, pos, members, dtype,
                       1.0 / n, 'broadcast %s set %s' % (dtype, ps.ranks))


def alltoall_cases(pos, members, ps):
    n = len(members)
    splits = [[(k + j) % 3 for j in range(n)] for k in range(n)]
    for dtype in INTS + FLOATS + [torch.bool]:
        key = ('alltoall', str(dtype), ps.ranks)
        shapes = [(sum(splits[k]), 2) for k in range(n)]

        def ref(xs_):
            blocks = [list(torch.split(xs_[k], splits[k])) for k in range(n)]
            return [[torch.cat([blocks[k][j] for k in range(n)])] for j in range(n)]
        xs = [make(key, members[k], shapes[k], dtype) for k in range(n)]
        want = ref(xs)[pos][0]
        kw = dict(splits=torch.tensor(splits[pos], dtype=torch.int32), process_set=ps)
        got, recv = hvd.alltoall(xs[pos], **kw)
        same(got, want, 'alltoall %s set %s' % (dtype, ps.ranks))
        check(recv.tolist() == [splits[k][pos] for k in range(n)], 'alltoall received splits')
        got, _ = hvd.synchronize(hvd.alltoall_async(xs[pos], **kw))
        same(got, want, 'alltoall_async %s set %s' % (dtype, ps.ranks))
        even = [make((key, 'even'), m, (2 * n, 2), dtype) for m in members]
        same(hvd.alltoall(even[pos], process_set=ps),
             torch.cat([e[2 * pos:2 * pos + 2] for e in even]), 'alltoall even %s' % dtype)
        if dtype in GRAD_DTYPES:
            grad_check(lambda t: [hvd.alltoall(t, **kw)[0]], ref, key, shapes, pos, members,
                       dtype, 1.0, 'alltoall %s set %s' % (dtype, ps.ranks))


def reducescatter_cases(pos, members, ps, grouped):
    n = len(members)
    base = 'grouped_reducescatter' if grouped else 'reducescatter'
    shapes = [(2 * n + 1, 2), (n + 2,)] if grouped else [(2 * n + 1, 2)]

    def rows(total, k):
        return total // n + (1 if k < total % n else 0)

    def blocks(t):
        return list(torch.split(t, [rows(t.shape[0], k) for k in range(n)]))
    for dtype in INTS + FLOATS:
        for op in (hvd.Sum, hvd.Average):
            for pre, post in SCALES:
                key = (base, str(dtype), op, pre, ps.ranks)
                xs = [[make((key, i), m, s, dtype) for i, s in enumerate(shapes)] for m in members]
                want = [blocks(reduce([x[i].double() if dtype.is_floating_point else x[i].long()
                                       for x in xs], op, pre, post, dtype))[pos]
                        for i in range(len(shapes))]
                kw = dict(op=op, prescale_factor=pre, postscale_factor=post, process_set=ps)
                for form, fn in forms(base, grouped).items():
                    got = call(fn, xs[pos] if grouped else xs[pos][0], kw, form)
                    if got is None:
                        continue
                    for i, (g, w) in enumerate(zip(got if grouped else [got], want)):
                        same(g, w, '%s %s op %d scale %s/%s set %s #%d'
                             % (form, dtype, op, pre, post, ps.ranks, i))
                if dtype in GRAD_DTYPES:
                    grad_check(
                        lambda x: hvd.grouped_reducescatter([x, x * 2], **kw) if grouped
                        else [hvd.reducescatter(x, **kw)],
                        lambda xs_: [[blocks(reduce(xs_, op, pre, post, dtype))[k]]
                                     + ([blocks(reduce([x * 2 for x in xs_], op, pre, post,
                                                       dtype))[k]] if grouped else [])
                                     for k in range(n)],
                        key, [shapes[0]] * n, pos, members, dtype, float(n),
                        '%s %s op %d scale %s/%s set %s' % (base, dtype, op, pre, post,
                                                           ps.ranks))


def adasum_scale_cases(r, n):
    """Adasum of parallel vectors is their average, at any scale: vectors of float32's or
    float16's smallest normal values (their squared norms far below 1e-8) and of the largest
    values whose squares still fit in double. Horovod's own stability test, in plain torch
    (float64 at its extremes is out of reach: its squares do not fit in double)."""
    if n & (n - 1):
        return
    for dtype in (torch.float32, torch.float16):
        info = torch.finfo(dtype)
        g = torch.Generator().manual_seed(31)
        direction = torch.randn(256, generator=g, dtype=torch.float64)
        for scale in (info.tiny, math.sqrt(info.max)):
            factors = 1.0 + torch.rand(n, generator=g, dtype=torch.float64)
            xs = [(direction * scale * f).to(dtype) for f in factors]
            got = hvd.allreduce(xs[r].clone(), op=hvd.Adasum, name='adasum.scale')
            want = torch.stack([x.double() for x in xs]).mean(0)
            error = (got.double() - want).norm() / want.norm()
            check(bool(error < 4 * info.eps), 'Adasum of parallel %s vectors of scale %g: '
                  'relative error %g from their average' % (dtype, scale, error))


def error_cases(r, n):
    t = torch.ones(4, 2)
    nc = torch.ones(4, 4).t()
    for what, fn in [('allreduce', lambda x: hvd.allreduce(x)),
                     ('allgather', lambda x: hvd.allgather(x)),
                     ('broadcast', lambda x: hvd.broadcast(x, 0)),
                     ('alltoall', lambda x: hvd.alltoall(x)),
                     ('reducescatter', lambda x: hvd.reducescatter(x))]:
        raises(ValueError, lambda: fn(nc), '%s of a non-contiguous tensor' % what)
    # A name still in flight: Horovod's ValueError at once, on the submitting rank only.
    for what, start in [('allreduce', lambda nm: hvd.allreduce_async(t, name=nm)),
                        ('allgather', lambda nm: hvd.allgather_async(t, name=nm)),
                        ('broadcast', lambda nm: hvd.broadcast_async(t, 0, name=nm)),
                        ('alltoall', lambda nm: hvd.alltoall_async(t.repeat(n, 1), name=nm)),
                        ('reducescatter', lambda nm: hvd.reducescatter_async(t, name=nm)),
                        ('grouped_allreduce',
                         lambda nm: hvd.grouped_allreduce_async([t], name=nm))]:
        # A lone rank's collective waits for its first poll or synchronize, as Horovod's are
        # asynchronous. From 2 ranks, the others submit only after rank 0's second try (the
        # broadcast 'go.' orders it), so rank 0's first one is still in flight then.
        if r == 0:
            handle = start('dup.' + what)
            raises(ValueError, lambda: start('dup.' + what), '%s: a name in flight' % what)
            if n > 1:
                hvd.broadcast(torch.zeros(1), 0, name='go.' + what)
        else:
            hvd.broadcast(torch.zeros(1), 0, name='go.' + what)
            handle = start('dup.' + what)
        hvd.synchronize(handle)
        hvd.synchronize(start('dup.' + what))  # free again once done
        check(True, '%s: the name is free after synchronize' % what)
    if n & (n - 1):
        raises(NotImplementedError, lambda: hvd.allreduce(t, op=hvd.Adasum),
               'Adasum at a size that is no power of two')
    else:
        raises(hvd.HorovodInternalError,
               lambda: hvd.allreduce(torch.ones(3, dtype=torch.int32), op=hvd.Adasum),
               'Adasum of int32')
    if n > 1:
        raises(RuntimeError, lambda: hvd.allreduce(torch.ones(r + 1), name='mm.ar'),
               'allreduce shapes differ across ranks')
        raises(RuntimeError, lambda: hvd.allgather(torch.ones(2, r + 1), name='mm.ag'),
               'allgather trailing dimensions differ across ranks')
        raises(RuntimeError, lambda: hvd.reducescatter(torch.ones(r + 2), name='mm.rs'),
               'reducescatter shapes differ across ranks')


def main():
    hvd.init()
    r, n = hvd.rank(), hvd.size()
    sets = [hvd.global_process_set]
    if n >= 2:
        sets.append(hvd.add_process_set(list(range(1, n))))
    for ps in sets:
        if r not in ps.ranks:
            continue
        members = ps.ranks
        pos = members.index(r)
        for grouped in (False, True):
            allreduce_cases(pos, members, ps, grouped)
            gather_cases(pos, members, ps, grouped)
            reducescatter_cases(pos, members, ps, grouped)
        broadcast_cases(pos, members, ps)
        alltoall_cases(pos, members, ps)
        exact_scaling_cases(pos, members, ps)
    hvd.barrier()
    adasum_scale_cases(r, n)
    error_cases(r, n)
    hvd.barrier()
    return report('torch_reference', r, n)


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Exception:
        import traceback
        traceback.print_exc()
        sys.exit(1)
