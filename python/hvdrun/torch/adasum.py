# SPDX-License-Identifier: Apache-2.0
"""Horovod's Adasum reduction (op=hvd.Adasum): what Python adds to libhvd's.

libhvd combines the ranks' tensors itself (runtime/src/backends/adasum/vhdd.h): the pairwise
    (1 - a.b / (2|a|^2)) a + (1 - a.b / (2|b|^2)) b
in Horovod's recursive halving and doubling, each tensor of a fused group with its own
coefficients. Here are Horovod's refusals, made before anything is sent and the same on every
rank, and the way CUDA tensors go: through host copies, as Horovod's MPI Adasum takes them (its
NCCL variant, which sums within a node first, is not built here).
"""

import torch

from . import handles
from .exceptions import HorovodInternalError
from .process_sets import global_process_set, process_set_id

LIB_OP = 5  # libhvd's ReduceOp::kAdasum
_DTYPES = (torch.float16, torch.float32, torch.float64)


def check(process_set, ranks):
    """Horovod's errors for an Adasum allreduce it cannot do."""
    if process_set is not None and process_set_id(process_set) != global_process_set.process_set_id:
        raise NotImplementedError('Adasum does not support non-global process sets yet.')
    if ranks & (ranks - 1):
        raise NotImplementedError('Running Adasum with non-power of 2 ranks is not supported yet.')


def refused_dtype(tensors, keys):
    """A handle that fails as Horovod's does for a dtype Adasum lacks, or None. Horovod fails it
    in its background op, on every rank, so the error comes from synchronize()."""
    bad = [t.dtype for t in tensors if t.dtype not in _DTYPES]
    if not bad:
        return None

    def fail():
        raise HorovodInternalError('Adasum: unsupported data type %s; Adasum takes float16, '
                                   'float32 and float64' % (bad[0],))
    return handles.submit_local(fail, keys=keys)


def on_host(tensor):
    """The tensor libhvd's Adasum reads: `tensor`, or a host copy of a CUDA one."""
    return tensor.detach().cpu() if tensor.is_cuda else tensor
