# SPDX-License-Identifier: Apache-2.0
"""The five batch-norm kernels SyncBatchNorm is built from (torch.batch_norm_stats,
batch_norm_gather_stats_with_counts, batch_norm_elemt, batch_norm_backward_reduce,
batch_norm_backward_elemt), with the same arguments and results on every device.

Torch 1.13 has them for CUDA only (Debian's CPU build raises NotImplementedError), and Horovod
therefore refuses CPU input. hvdrun's ranks are often CPU processes, so on CPU the same formulas
run as plain tensor operations; CUDA tensors still go to torch's fused kernels. Channels are
dimension 1; statistics reduce over every other dimension."""

import torch


def _per_channel(t, like):
    """A (C,) tensor shaped to broadcast against `like` (N, C, ...)."""
    return t.view([1, -1] + [1] * (like.dim() - 2))


def _reduce_dims(x):
    return [0] + list(range(2, x.dim()))


def stats(x, eps):
    """This rank's per-channel mean and 1/sqrt(biased variance + eps)."""
    if x.is_cuda:
        return torch.batch_norm_stats(x, eps)
    dims = _reduce_dims(x)
    var, mean = torch.var_mean(x, dim=dims, unbiased=False)
    return mean, torch.rsqrt(var + eps)


def gather_stats_with_counts(x, mean_all, invstd_all, running_mean, running_var, momentum, eps,
                             counts):
    """Global mean and invstd from every rank's (count, mean, invstd) rows; updates the running
    statistics in place (unbiased variance, as BatchNorm) when they are given."""
    if x.is_cuda:
        return torch.batch_norm_gather_stats_with_counts(
            x, mean_all, invstd_all, running_mean, running_var, momentum, eps, counts)
    # A rank with an empty batch sends NaN statistics for no samples: leave it out.
    present = counts.view(-1) > 0
    counts = counts.view(-1)[present].to(mean_all.dtype).view(-1, 1)
    mean_all, invstd_all = mean_all[present], invstd_all[present]
    total = counts.sum()
    mean = (counts * mean_all).sum(0) / total
    # Each rank's biased variance, back from its invstd; the parallel-variance merge adds the
    # spread of the ranks' means around the global one.
    var_all = invstd_all.pow(-2) - eps
    var = (counts * (var_all + (mean_all - mean).pow(2))).sum(0) / total
    if running_mean is not None:
        running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype), alpha=momentum)
    if running_var is not None:
        unbiased = var * (total / (total - 1)) if total > 1 else var
        running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype), alpha=momentum)
    return mean, torch.rsqrt(var + eps)


def elemt(x, weight, bias, mean, invstd, eps):
    """(x - mean) * invstd * weight + bias."""
    if x.is_cuda:
        return torch.batch_norm_elemt(x, weight, bias, mean, invstd, eps)
    y = (x - _per_channel(mean, x)) * _per_channel(invstd, x)
    if weight is not None:
        y = y * _per_channel(weight, x)
    if bias is not None:
        y = y + _per_channel(bias, x)
    return y


def backward_reduce(dy, x, mean, invstd, weight, input_g, weight_g, bias_g):
    """This rank's sum(dy), sum(dy * (x - mean)) and, from them, grad_weight and grad_bias
    (None where not asked for)."""
    if x.is_cuda:
        return torch.batch_norm_backward_reduce(dy, x, mean, invstd, weight, input_g, weight_g,
                                                bias_g)
    dims = _reduce_dims(x)
    sum_dy = dy.sum(dims)
    sum_dy_xmu = (dy * (x - _per_channel(mean, x))).sum(dims)
    grad_weight = sum_dy_xmu * invstd if weight_g else None
    grad_bias = sum_dy if bias_g else None
    return sum_dy, sum_dy_xmu, grad_weight, grad_bias


def backward_elemt(dy, x, mean, invstd, weight, sum_dy, sum_dy_xmu, counts):
    """The input gradient from the global sums (over all ranks) and every rank's count."""
    if x.is_cuda:
        return torch.batch_norm_backward_elemt(dy, x, mean, invstd, weight, sum_dy, sum_dy_xmu,
                                               counts)
    total = counts.sum().item()
    mean_dy = _per_channel(sum_dy / total, x)
    mean_dy_xmu = _per_channel(sum_dy_xmu / total, x)
    scale = invstd if weight is None else invstd * weight
    xmu = x - _per_channel(mean, x)
    return (dy - mean_dy - xmu * _per_channel(invstd.pow(2), x) * mean_dy_xmu) * \
        _per_channel(scale, x)
