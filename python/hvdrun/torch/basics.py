# SPDX-License-Identifier: Apache-2.0
"""Queries and constants: ranks, what this build has, the timeline switch, and the reduction
ops, with Horovod 0.28's names and values. A leaf of the package (it imports only the extension
and exceptions.py), so every other module may import it; init() and shutdown(), which need the
collectives, are in lifecycle.py."""

import os

from . import _hvd_torch as _lib
from .exceptions import HorovodInternalError

# Horovod's op values (horovod.common.basics); mapped to libhvd's ReduceOp in _LIB_OPS.
Average = 0
Sum = 1
Adasum = 2
Min = 3
Max = 4
Product = 5

# libhvd's ReduceOp: kSum, kAverage, kMin, kMax, kProduct (kAdasum, 5, is adasum.LIB_OP: only
# the allreduce takes it).
_LIB_OPS = {Sum: 0, Average: 1, Min: 2, Max: 3, Product: 4}
_OP_NAMES = {Average: 'Average', Sum: 'Sum', Adasum: 'Adasum', Min: 'Min', Max: 'Max',
             Product: 'Product'}


def lib_op(op):
    """libhvd's value for Horovod's `op` in an element-wise reduction; Adasum (which only the
    allreduce takes, allreduce_ops.py) and unknown values raise."""
    if op == Adasum:
        raise NotImplementedError(
            'hvdrun.torch: op=Adasum is only for allreduce and grouped_allreduce; '
            'use Average or Sum here')
    if op not in _LIB_OPS:
        raise ValueError('hvdrun.torch: unknown reduction op %r; use Average, Sum, Min, Max '
                         'or Product' % (op,))
    return _LIB_OPS[op]


def op_from(op, average):
    """Horovod's handling of the deprecated `average` argument: op wins, else average picks
    Average or Sum, else Average."""
    if op is not None:
        if average is not None:
            raise ValueError('The op parameter supersedes average. Please provide only one of them.')
        return op
    if average is not None:
        return Average if average else Sum
    return Average


def is_initialized():
    return bool(_lib.is_initialized())


def _initialized(value):
    if not _lib.is_initialized():
        raise ValueError('Horovod has not been initialized; use hvd.init().')
    return value


def size():
    return _initialized(_lib.size())


def rank():
    return _initialized(_lib.rank())


def local_size():
    return _initialized(_lib.local_size())


def local_rank():
    return _initialized(_lib.local_rank())


def cross_size():
    return _initialized(_lib.cross_size())


def cross_rank():
    return _initialized(_lib.cross_rank())


def mpi_built():
    return bool(_lib.MPI_BUILT)


def mpi_enabled():
    """True when libhvd moves tensors over MPI (HVD_BACKEND=mpi in an MPI build)."""
    return mpi_built() and os.environ.get('HVD_BACKEND', 'auto') == 'mpi'


def mpi_threads_supported():
    """As Horovod: an error unless MPI is in use; libhvd's MPI backend asks for
    MPI_THREAD_MULTIPLE and refuses less than MPI_THREAD_SERIALIZED."""
    if not mpi_enabled():
        raise ValueError('Horovod MPI is not enabled; hvdrun.torch uses MPI only with '
                         'HVD_BACKEND=mpi')
    return True


def gloo_built():
    return False  # libhvd's own ring replaces Gloo


def gloo_enabled():
    return False


def nccl_built():
    """As Horovod: NCCL's version code (NCCL_VERSION_CODE, 22805 for 2.28.5) when libhvd was
    built with NCCL, else 0. Scripts compare it with a version (`nccl_built() >= 2700`)."""
    if not _lib.NCCL_BUILT:
        return 0
    try:
        major, minor, patch = (int(part) for part in _lib.NCCL_VERSION.split('.'))
    except ValueError:
        return 1  # built with NCCL of a version its header did not tell
    # NCCL_VERSION(X,Y,Z) in nccl.h: X*10000 + Y*100 + Z from 2.9 on, X*1000 + Y*100 + Z before.
    return major * (10000 if (major, minor) >= (2, 9) else 1000) + minor * 100 + patch


def cuda_built():
    return bool(_lib.CUDA_BUILT)


def rocm_built():
    return False


def ddl_built():
    return False


def ccl_built():
    return False


def _timeline_call(fn, *args):
    _initialized(None)
    try:
        fn(*args)
    except RuntimeError as e:
        if str(e).startswith('usage: '):
            raise ValueError('hvdrun.torch: ' + str(e)[len('usage: '):])
        raise HorovodInternalError(str(e))


def start_timeline(file_path, mark_cycles=False):
    """Starts recording a timeline of every rank's collectives (call it on every rank). Each
    rank writes FILE.rank<N>.bin; stop_timeline() merges them into `file_path`, one track
    group per rank, viewable in Perfetto or chrome://tracing. ValueError when a timeline is
    being recorded already (hvdrun --timeline-filename, or an earlier call)."""
    _timeline_call(_lib.start_timeline, str(file_path), bool(mark_cycles))


def stop_timeline():
    """Stops the timeline on every rank (call it on every rank); rank 0 merges the ranks' files
    into the path start_timeline() was given."""
    _timeline_call(_lib.stop_timeline)
