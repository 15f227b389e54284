# SPDX-License-Identifier: Apache-2.0
"""batch_norm_kernels.py's CPU formulas, used the way SyncBatchNorm uses them with one batch
split over several ranks (here, chunks in one process), against torch's own batch norm and its
autograd over the whole batch."""

import pytest
import torch
import torch.nn.functional as F

from hvdrun.torch import batch_norm_kernels as kernels

EPS, MOMENTUM = 1e-5, 0.1
SPLITS = [[6], [2, 4], [3, 0, 2, 1]]  # rows per rank; an empty rank takes part too
SHAPES = [(5,), (3, 4, 2)]  # channels; then spatial dimensions for (N, C, H, W)


def synced_forward(chunks, weight, bias, running):
    # As SyncBatchNorm counts: the values per channel (rows times spatial positions).
    counts = torch.tensor([[float(c.numel() // c.shape[1])] for c in chunks],
                          dtype=torch.float64)
    rows = [kernels.stats(c, EPS) for c in chunks]
    mean_all = torch.stack([m for m, _ in rows])
    invstd_all = torch.stack([i for _, i in rows])
    mean, invstd = kernels.gather_stats_with_counts(chunks[0], mean_all, invstd_all, running[0],
                                                    running[1], MOMENTUM, EPS, counts)
    outputs = [kernels.elemt(c, weight, bias, mean, invstd, EPS) for c in chunks]
    return outputs, mean, invstd, counts


def synced_backward(chunks, grads, weight, mean, invstd, counts):
    # What each rank computes, then the sums SyncBatchNorm allreduces, then each rank's part.
    parts = [kernels.backward_reduce(g, c, mean, invstd, weight, True, weight is not None, True)
             for g, c in zip(grads, chunks)]
    sum_dy = sum(p[0] for p in parts)
    sum_dy_xmu = sum(p[1] for p in parts)
    grad_inputs = [kernels.backward_elemt(g, c, mean, invstd, weight, sum_dy, sum_dy_xmu,
                                          counts.view(-1).to(torch.int32))
                   for g, c in zip(grads, chunks)]
    grad_weight = sum(p[2] for p in parts) if weight is not None else None
    return grad_inputs, grad_weight, sum(p[3] for p in parts)


@pytest.mark.parametrize('affine', [True, False])
@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('split', SPLITS, ids=str)
def test_split_batch_matches_torch_on_the_whole_batch(split, shape, affine):
    gen = torch.Generator().manual_seed(len(split) * 10 + len(shape))
    x = torch.randn((sum(split),) + shape, generator=gen, dtype=torch.float64) * 3 + 1
    dy = torch.randn(x.shape, generator=gen, dtype=torch.float64)
    channels = shape[0]
    weight = torch.rand(channels, generator=gen, dtype=torch.float64) + 0.5 if affine else None
    bias = torch.randn(channels, generator=gen, dtype=torch.float64) if affine else None

    ref_x = x.clone().requires_grad_()
    ref_w = weight.clone().requires_grad_() if affine else None
    ref_b = bias.clone().requires_grad_() if affine else None
    ref_running = (torch.zeros(channels, dtype=torch.float64),
                   torch.ones(channels, dtype=torch.float64))
    ref_y = F.batch_norm(ref_x, ref_running[0], ref_running[1], ref_w, ref_b, training=True,
                         momentum=MOMENTUM, eps=EPS)
    ref_y.backward(dy)

    chunks, grads = list(torch.split(x, split)), list(torch.split(dy, split))
    running = (torch.zeros(channels, dtype=torch.float64),
               torch.ones(channels, dtype=torch.float64))
    outputs, mean, invstd, counts = synced_forward(chunks, weight, bias, running)
    grad_inputs, grad_weight, grad_bias = synced_backward(chunks, grads, weight, mean, invstd,
                                                          counts)

    close = dict(rtol=1e-10, atol=1e-10)
    assert torch.allclose(torch.cat(outputs), ref_y.detach(), **close)
    assert torch.allclose(running[0], ref_running[0], **close)
    assert torch.allclose(running[1], ref_running[1], **close)
    assert torch.allclose(torch.cat(grad_inputs), ref_x.grad, **close)
    if affine:
        assert torch.allclose(grad_weight, ref_w.grad, **close)
        assert torch.allclose(grad_bias, ref_b.grad, **close)
