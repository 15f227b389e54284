# SPDX-License-Identifier: Apache-2.0
"""hvdrun.torch: Horovod 0.28's horovod.torch API over libhvd.

    import hvdrun.torch as hvd          # or, under hvdrun --horovod-compat:
    import horovod.torch as hvd

Adasum: the allreduce (adasum.py) and DistributedOptimizer(op=Adasum) (adasum_optimizer.py).
"""

from .basics import (Adasum, Average, Max, Min, Product, Sum, ccl_built, cross_rank, cross_size,
                     cuda_built, ddl_built, gloo_built, gloo_enabled, is_initialized, local_rank,
                     local_size, mpi_built, mpi_enabled, mpi_threads_supported, nccl_built, rank,
                     rocm_built, size, start_timeline, stop_timeline)
from . import elastic
from .checkpoint_notice import checkpoint_requested
from .compression import Compression
from .exceptions import HorovodInternalError, HostsUpdatedInterrupt
from .functions import (allgather_object, broadcast_object, broadcast_optimizer_state,
                        broadcast_parameters)
from .lifecycle import init, is_homogeneous, shutdown
from .mpi_ops import (allgather, allgather_async, allreduce, allreduce_, allreduce_async,
                      allreduce_async_, alltoall, alltoall_async, barrier, broadcast, broadcast_,
                      broadcast_async, broadcast_async_, grouped_allgather,
                      grouped_allgather_async, grouped_allreduce, grouped_allreduce_,
                      grouped_allreduce_async, grouped_allreduce_async_, grouped_reducescatter,
                      grouped_reducescatter_async, join, poll, reducescatter,
                      reducescatter_async, synchronize)
from .optimizer import DistributedOptimizer
from .process_sets import ProcessSet, add_process_set, global_process_set, remove_process_set
from .sparse import sparse_allreduce_async
from .sync_batch_norm import SyncBatchNorm

# The Python stack for `hvdrun why` (python/why): sitecustomize installs it already when hvdrun
# put its folder on PYTHONPATH; installing here covers `python -S` and a PYTHONPATH rebuilt by
# the program. Registered before hvd.init(), so that libhvd's handler chains to it.
try:
    import hvdrun_stack_dump as _stack_dump
    _stack_dump.install()
except ImportError:
    pass
