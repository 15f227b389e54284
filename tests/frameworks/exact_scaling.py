# SPDX-License-Identifier: Apache-2.0
"""Bit-exact checks of scale factors and averages, for torch_reference.py.

The reference cases there compare floats within a tolerance, which a scaling that rounds
differently from Horovod's passes. Here every rank reduces the same integer-valued float tensor,
as Horovod's own tests do (the sum of n equal values is then exact or rounded once), and
integer tensors that differ by rank (their sums are exact, and an average need not divide
evenly). So the result is defined to the bit by Horovod's scaling rules, computed here in plain
torch:
  - a scale factor multiplies float32/float64 in their own precision, float16/bfloat16 in
    float32 (Horovod's CPU ScaleBuffer), and integers in float64, truncated toward zero;
  - Average is a Sum whose postscale is divided by the number of ranks: one multiplication
    (Horovod's `postscale_factor /= size`), integers included.
Over allreduce, grouped_allreduce, reducescatter and grouped_reducescatter in every form, every
dtype, Sum and Average, and prescale, postscale and both.
"""
import torch

import hvdrun.torch as hvd
from tally import check

FACTORS = [(0.4173, 1.0), (0.4173, 1.7319), (1.0, 2.0)]
DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]


def rule_scaled(x, factor, dtype):
    """x (of dtype) times factor, as Horovod scales a buffer on the CPU."""
    if factor == 1.0:
        return x
    if dtype in (torch.float16, torch.bfloat16):
        return (x.float() * torch.tensor(factor, dtype=torch.float32)).to(dtype)
    if dtype.is_floating_point:
        return x * torch.tensor(factor, dtype=dtype)
    return torch.trunc(x.double() * factor).to(dtype)


def expected(xs, op, pre, post, dtype):
    """The reduction of xs (one per rank). Floats are n equal values: their sum is exact in
    float64, and one conversion to dtype rounds it once, as a ring's additions do (v + v is
    exact). Integers add exactly."""
    n = len(xs)
    scaled = [rule_scaled(x, pre, dtype) for x in xs]
    if dtype.is_floating_point:
        total = (scaled[0].double() * n).to(dtype)
    else:
        total = sum(s.long() for s in scaled).to(dtype)
    return rule_scaled(total, post / n if op == hvd.Average else post, dtype)


def inputs(dtype, shape, seed, members):
    """Every member's input: integers small enough that no dtype overflows after a sum over 4
    ranks and a factor; the same on every rank for floats, plus the rank for integers."""
    low, high = {torch.uint8: (0, 20), torch.int8: (-10, 10)}.get(dtype, (-100, 100))
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(low, high + 1, shape, generator=g)
    return [(x if dtype.is_floating_point else x + k).to(dtype) for k in members]


def _calls(pos, n):
    """(name, fn(tensor, kw) -> this rank's result, this rank's part of the full result)."""
    rows = slice(2 * pos, 2 * pos + 2)  # 2n rows: 2 per rank
    whole = lambda w: w
    block = lambda w: w[rows]

    def in_place(fn):
        return lambda t, kw: fn(t.clone(), **kw)

    return [
        ('allreduce', lambda t, kw: hvd.allreduce(t, **kw), whole),
        ('allreduce_async', lambda t, kw: hvd.synchronize(hvd.allreduce_async(t, **kw)), whole),
        ('allreduce_', in_place(hvd.allreduce_), whole),
        ('allreduce_async_',
         lambda t, kw: hvd.synchronize(hvd.allreduce_async_(t.clone(), **kw)), whole),
        ('grouped_allreduce', lambda t, kw: hvd.grouped_allreduce([t, t], **kw)[1], whole),
        ('grouped_allreduce_',
         lambda t, kw: hvd.grouped_allreduce_([t.clone(), t.clone()], **kw)[0], whole),
        ('grouped_allreduce_async', lambda t, kw: hvd.synchronize(
            hvd.grouped_allreduce_async([t, t], **kw))[0], whole),
        ('reducescatter', lambda t, kw: hvd.reducescatter(t, **kw), block),
        ('reducescatter_async',
         lambda t, kw: hvd.synchronize(hvd.reducescatter_async(t, **kw)), block),
        ('grouped_reducescatter',
         lambda t, kw: hvd.grouped_reducescatter([t, t], **kw)[1], block),
        ('grouped_reducescatter_async', lambda t, kw: hvd.synchronize(
            hvd.grouped_reducescatter_async([t, t], **kw))[0], block),
    ]


def exact_scaling_cases(pos, members, ps):
    n = len(members)
    calls = _calls(pos, n)
    for i, dtype in enumerate(DTYPES):
        xs = inputs(dtype, (2 * n, 3), 7000 + i, members)
        x = xs[pos]
        for op in (hvd.Sum, hvd.Average):
            for pre, post in FACTORS:
                want = expected(xs, op, pre, post, dtype)
                kw = dict(op=op, prescale_factor=pre, postscale_factor=post, process_set=ps)
                for name, fn, part in calls:
                    what = '%s %s op %d scale %s/%s set %s (exact)' % (name, dtype, op, pre, post,
                                                                        ps.ranks)
                    try:
                        got = fn(x, kw)
                    except Exception as e:  # noqa: BLE001 - any error is this case's failure
                        check(False, '%s: raised %r' % (what, e))
                        continue
                    mine = part(want)
                    check(got.dtype == dtype and torch.equal(got, mine),
                          '%s: got %s, want %s' % (what, got.flatten()[:4].tolist(),
                                                   mine.flatten()[:4].tolist()))
