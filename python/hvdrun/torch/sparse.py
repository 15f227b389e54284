# SPDX-License-Identifier: Apache-2.0
"""Horovod's allreduce of a sparse tensor (the gradient of nn.Embedding(sparse=True)): each
rank's indices and values are allgathered, and the COO tensor of all of them is the sum, since
a sparse tensor's duplicate indices add up. Only the rows some rank touched travel."""

import torch

from .basics import Average, Sum, lib_op
from .mpi_ops import allgather_async, synchronize
from .process_sets import global_process_set, set_size


def sparse_allreduce_async(tensor, name, op, process_set=global_process_set):
    """Starts the allreduce of sparse `tensor`; returns a function that waits for it and
    returns the reduced sparse tensor (Horovod's handle for sparse tensors is such a callable).
    Sum and Average only: gathered entries are summed, which is no min, max or product."""
    if not tensor.is_sparse:
        raise ValueError('hvdrun.torch: sparse_allreduce_async needs a sparse tensor; '
                         'use allreduce_async for a dense one')
    lib_op(op)  # Adasum and unknown ops: the same errors as the dense allreduce
    if op not in (Average, Sum):
        raise NotImplementedError('hvdrun.torch: a sparse allreduce sums the gathered entries, '
                                  'so it takes op=Sum or Average only')
    # Allgather concatenates along the first dimension: indices go as (nnz, ndim) rows.
    indices = tensor._indices().t().contiguous()
    values = tensor._values().contiguous()
    part = (lambda what: None) if name is None else (lambda what: '%s.%s' % (name, what))
    indices_handle = allgather_async(indices, name=part('indices'), process_set=process_set)
    values_handle = allgather_async(values, name=part('values'), process_set=process_set)
    ranks = set_size(process_set)
    shape = tensor.size()

    def result():
        gathered_values = synchronize(values_handle)
        gathered_indices = synchronize(indices_handle)
        if op == Average:
            gathered_values = gathered_values / ranks
        return torch.sparse_coo_tensor(gathered_indices.t(), gathered_values, shape)

    return result
