# SPDX-License-Identifier: Apache-2.0
"""Horovod 0.28's horovod.torch.mpi_ops on libhvd: the collectives (allreduce_ops.py,
gather_ops.py, reducescatter_ops.py; handles.py for poll and synchronize), barrier and join.
Argument names, defaults and return types follow Horovod's."""

from . import _hvd_torch as _lib
from .allreduce_ops import (allreduce, allreduce_, allreduce_async, allreduce_async_,
                            grouped_allreduce, grouped_allreduce_, grouped_allreduce_async,
                            grouped_allreduce_async_)
from .exceptions import HorovodInternalError
from .gather_ops import (allgather, allgather_async, alltoall, alltoall_async, broadcast,
                         broadcast_, broadcast_async, broadcast_async_, grouped_allgather,
                         grouped_allgather_async)
from .handles import poll, require_init, synchronize
from .process_sets import global_process_set, process_set_id
from .reducescatter_ops import (grouped_reducescatter, grouped_reducescatter_async, reducescatter,
                                reducescatter_async)


# ---- synchronisation -------------------------------------------------------------------------

def barrier(process_set=global_process_set):
    """Returns once every rank has called barrier()."""
    ps = process_set_id(process_set)
    require_init()
    try:
        _lib.barrier(ps)
    except RuntimeError as e:
        raise HorovodInternalError(str(e))


def join(device=-1):
    """A function that indicates that the rank finished processing data.

    All ranks that did not call join() continue to process allreduce operations; this rank
    takes part in them with zeros (an average still divides by size()). Other collectives fail
    while some rank has joined. This function blocks the Python thread (not others) until all
    ranks join.

    Arguments:
        device: Horovod's device for the zero tensors; libhvd keeps them in host memory, so
                allreduces of CUDA tensors fail while a rank has joined.

    Returns:
        The id of the rank that joined last.
    """
    require_init()
    try:
        return _lib.join(int(device))
    except RuntimeError as e:
        raise HorovodInternalError(str(e))
