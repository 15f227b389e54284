#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""hvdrun.torch.SyncBatchNorm against torch's own batch norm on the global batch.

Every rank draws, from the same seed, the batches of all ranks (of different sizes, one of them
empty in one case) and the output gradient; it runs torch.nn.BatchNorm1d/2d on their
concatenation as the reference, and SyncBatchNorm on its own slice. Outputs, input gradients,
running statistics and num_batches_tracked must match the reference's (for this rank's rows),
and the weight and bias gradients summed over ranks must match the reference's (SyncBatchNorm
leaves them local, as Horovod does; DistributedOptimizer averages them). Two training steps,
then one in eval mode. Tolerance: 1e-9 in float64, 1e-4 in float32 (relative to the largest
value compared). Prints one line per rank,
    torch_sync_batch_norm: rank R of N on HOST checks C failures F
(check_ranks.py wants the same C on every rank) and each failed check on stderr.
"""
import sys

import torch
import torch.nn as nn

import hvdrun.torch as hvd

from tally import check, report


def close(got, want, what, tol):
    if got is None or want is None:
        check(got is None and want is None, '%s: one is None (%r, %r)' % (what, got, want))
        return
    ok = got.shape == want.shape
    diff = (got.double() - want.double()).abs().max().item() if ok and got.numel() else 0.0
    scale = max(1.0, want.double().abs().max().item()) if want.numel() else 1.0
    check(ok and diff <= tol * scale,
          '%s: shapes %s/%s, max difference %.3g (tolerance %.3g)'
          % (what, tuple(got.shape), tuple(want.shape), diff, tol * scale))


def batch_sizes(n, seed, with_empty):
    sizes = [2 + (seed + i) % 3 for i in range(n)]  # 2, 3 or 4 rows: different on each rank
    if with_empty:
        sizes[-1] = 0
    return sizes


def reference_module(dims, channels, **kwargs):
    return (nn.BatchNorm1d if dims <= 3 else nn.BatchNorm2d)(channels, **kwargs)


def run_case(name, shape_tail, dtype, seed, with_empty=False, **kwargs):
    """One layer configuration: two training steps and one eval step."""
    r, n = hvd.rank(), hvd.size()
    tol = 1e-9 if dtype == torch.float64 else 1e-4
    channels = shape_tail[0]
    gen = torch.Generator().manual_seed(seed)
    ref = reference_module(1 + len(shape_tail), channels, **kwargs).to(dtype)
    sbn = hvd.SyncBatchNorm(channels, **kwargs).to(dtype)
    if ref.affine:
        with torch.no_grad():
            ref.weight.copy_(torch.rand(channels, generator=gen, dtype=dtype) + 0.5)
            ref.bias.copy_(torch.randn(channels, generator=gen, dtype=dtype))
            sbn.weight.copy_(ref.weight)
            sbn.bias.copy_(ref.bias)

    for step in range(2):
        what = '%s step %d' % (name, step)
        sizes = batch_sizes(n, seed + step, with_empty)
        offset = sum(sizes[:r])
        x_all = torch.randn(sum(sizes), *shape_tail, generator=gen, dtype=dtype) * 3 + 1
        dy_all = torch.randn(x_all.shape, generator=gen, dtype=dtype)
        for m in (ref, sbn):
            m.zero_grad()
        x_ref = x_all.clone().requires_grad_()
        y_ref = ref(x_ref)
        (y_ref * dy_all).sum().backward()
        x = x_all[offset:offset + sizes[r]].clone().requires_grad_()
        y = sbn(x)
        (y * dy_all[offset:offset + sizes[r]]).sum().backward()

        rows = slice(offset, offset + sizes[r])
        close(y.detach(), y_ref.detach()[rows], what + ': output', tol)
        close(x.grad, x_ref.grad[rows], what + ': input gradient', tol)
        if ref.affine:
            close(hvd.allreduce(sbn.weight.grad, op=hvd.Sum), ref.weight.grad,
                  what + ': weight gradient summed over ranks', tol)
            close(hvd.allreduce(sbn.bias.grad, op=hvd.Sum), ref.bias.grad,
                  what + ': bias gradient summed over ranks', tol)
        else:
            check(sbn.weight is None, what + ': no weight without affine')
        close(sbn.running_mean, ref.running_mean, what + ': running_mean', tol)
        close(sbn.running_var, ref.running_var, what + ': running_var', tol)
        close(sbn.num_batches_tracked, ref.num_batches_tracked, what + ': num_batches_tracked', 0)

    ref.eval()
    sbn.eval()
    x_eval = torch.randn(3, *shape_tail, generator=gen, dtype=dtype)
    with torch.no_grad():
        # Eval with running statistics is local; without them it still syncs (every rank
        # normalizes the same rows, so the result is the local batch norm).
        close(sbn(x_eval), ref(x_eval), name + ' eval: output', tol)


def check_errors():
    sbn = hvd.SyncBatchNorm(4)
    try:
        sbn(torch.ones(4))
        check(False, '1-D input: no ValueError')
    except ValueError:
        check(True, '1-D input raises ValueError')
    check(isinstance(sbn, torch.nn.modules.batchnorm._BatchNorm), 'a _BatchNorm subclass')


def main():
    hvd.init()
    f64 = torch.float64
    run_case('1d (N,C)', (5,), f64, seed=1)
    run_case('1d (N,C,L)', (4, 7), f64, seed=2)
    run_case('2d (N,C,H,W)', (3, 5, 6), f64, seed=3)
    run_case('2d float32', (3, 4, 4), torch.float32, seed=4)
    run_case('2d no affine', (3, 4, 4), f64, seed=5, affine=False)
    run_case('2d momentum None', (2, 3, 3), f64, seed=6, momentum=None)
    run_case('1d no running stats', (4, 3), f64, seed=7, track_running_stats=False)
    run_case('2d one rank empty', (3, 4, 4), f64, seed=8, with_empty=True)
    check_errors()
    r, n = hvd.rank(), hvd.size()
    hvd.shutdown()
    return report('torch_sync_batch_norm', r, n)


if __name__ == '__main__':
    sys.exit(main())
