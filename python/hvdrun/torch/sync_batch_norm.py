# SPDX-License-Identifier: Apache-2.0
"""Horovod 0.28's SyncBatchNorm: batch normalization whose statistics are those of the whole
global batch (every rank's samples), for when each rank holds only a few samples.

Forward in training: each rank's per-channel count, mean and invstd are allgathered and merged
into the global ones; backward allreduces (Sum) the two per-channel sums the input gradient
needs. Weight and bias gradients stay local, as in Horovod: DistributedOptimizer averages them
with the others. In eval mode (with running statistics) and on one rank it is plain batch norm.

Unlike Horovod, CPU input works too (batch_norm_kernels.py says why and how)."""

import torch
import torch.nn.functional as F
from torch.autograd.function import Function
from torch.nn.modules.batchnorm import _BatchNorm

from . import batch_norm_kernels as kernels
from .basics import Sum
from .mpi_ops import allgather_async, allreduce_async, synchronize
from .process_sets import global_process_set, process_set_id


class SyncBatchNorm(_BatchNorm):
    """Synchronous N-dimensional batch norm over all ranks; the arguments are BatchNorm's
    (`num_features` is C of an (N, C, ...) input) plus Horovod's `process_set` (the statistics
    are those of the set's ranks' batches). Every rank of the set must call forward and
    backward the same number of times."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_set=global_process_set):
        super().__init__(num_features, eps, momentum, affine, track_running_stats)
        process_set_id(process_set)  # registered, or ValueError now
        self.process_set = process_set

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError('expected at least 2D input (got {}D input)'.format(input.dim()))

    def _average_factor(self):
        # BatchNorm's rule: momentum None means a cumulative average over the batches seen.
        if self.momentum is not None:
            return self.momentum
        if self.training and self.track_running_stats:
            return 1.0 / float(self.num_batches_tracked)
        return 0.0

    def _run_bn(self, input):
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training or not self.track_running_stats,
                            self._average_factor(), self.eps)

    @torch.jit.unused
    def _maybe_run_sync_bn(self, input):
        if self.process_set.size() == 1:
            return self._run_bn(input)
        return _SyncBatchNorm.apply(input, self.weight, self.bias, self.running_mean,
                                    self.running_var, self.eps, self._average_factor(),
                                    self.process_set)

    def forward(self, input):
        self._check_input_dim(input)
        if self.training and self.track_running_stats:
            self.num_batches_tracked = self.num_batches_tracked + 1
        if not self.training and self.track_running_stats:
            return self._run_bn(input)
        return self._maybe_run_sync_bn(input)


class _SyncBatchNorm(Function):
    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, process_set):
        input = input.contiguous()
        count = torch.tensor([input.numel() // input.size(1)])
        mean, invstd = kernels.stats(input, eps)

        # Fixed names, as Horovod's: the three finish before the next layer's start.
        count_handle = allgather_async(count.unsqueeze(0), name='sync_batch_norm.count',
                                       process_set=process_set)
        mean_handle = allgather_async(mean.unsqueeze(0), name='sync_batch_norm.mean',
                                      process_set=process_set)
        invstd_handle = allgather_async(invstd.unsqueeze(0), name='sync_batch_norm.invstd',
                                        process_set=process_set)
        count_all = synchronize(count_handle)
        mean_all = synchronize(mean_handle)
        invstd_all = synchronize(invstd_handle)

        mean, invstd = kernels.gather_stats_with_counts(
            input, mean_all, invstd_all, running_mean, running_var, momentum, eps,
            count_all.view(-1).to(dtype=mean_all.dtype, device=input.device))

        ctx.save_for_backward(input, weight, mean, invstd, count_all)
        ctx.process_set = process_set
        return kernels.elemt(input, weight, bias, mean, invstd, eps)

    @staticmethod
    def backward(ctx, grad_output):
        grad_output = grad_output.contiguous()
        saved_input, weight, mean, invstd, count_all = ctx.saved_tensors
        need_input_grad, need_weight_grad, need_bias_grad = ctx.needs_input_grad[0:3]

        sum_dy, sum_dy_xmu, grad_weight, grad_bias = kernels.backward_reduce(
            grad_output, saved_input, mean, invstd, weight, need_input_grad, need_weight_grad,
            need_bias_grad)

        grad_input = None
        if need_input_grad:
            sum_dy_handle = allreduce_async(sum_dy, op=Sum, name='sync_batch_norm.sum_dy',
                                            process_set=ctx.process_set)
            sum_dy_xmu_handle = allreduce_async(sum_dy_xmu, op=Sum,
                                                name='sync_batch_norm.sum_dy_xmu',
                                                process_set=ctx.process_set)
            sum_dy = synchronize(sum_dy_handle)
            sum_dy_xmu = synchronize(sum_dy_xmu_handle)
            counts = count_all.view(-1).to(dtype=torch.int, device=grad_output.device)
            grad_input = kernels.backward_elemt(grad_output, saved_input, mean, invstd, weight,
                                                sum_dy, sum_dy_xmu, counts)

        if weight is None or not need_weight_grad:
            grad_weight = None
        if weight is None or not need_bias_grad:
            grad_bias = None
        return grad_input, grad_weight, grad_bias, None, None, None, None, None
