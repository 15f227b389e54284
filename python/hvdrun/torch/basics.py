# SPDX-License-Identifier: Apache-2.0
"""Set-up and queries: init, shutdown, ranks, what this build has, and the reduction ops, with
Horovod 0.28's names and values."""

import os

import torch

from . import _hvd_torch as _lib

# Horovod's op values (horovod.common.basics); mapped to libhvd's ReduceOp in _LIB_OPS.
Average = 0
Sum = 1
Adasum = 2
Min = 3
Max = 4
Product = 5

# libhvd's ReduceOp: kSum, kAverage, kMin, kMax, kProduct.
_LIB_OPS = {Sum: 0, Average: 1, Min: 2, Max: 3, Product: 4}
_OP_NAMES = {Average: 'Average', Sum: 'Sum', Adasum: 'Adasum', Min: 'Min', Max: 'Max',
             Product: 'Product'}

_homogeneous = None


def lib_op(op):
    """libhvd's value for Horovod's `op`; Adasum and unknown values raise."""
    if op == Adasum:
        raise NotImplementedError(
            'hvdrun.torch: op=Adasum is not supported (libhvd has no Adasum reduction); '
            'use Average or Sum')
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


def init(comm=None, process_sets=None):
    """Finds the other ranks (through hvdrun's environment, PMIx, MPI, or alone) and starts
    libhvd. Works again after shutdown(). `process_sets`: Horovod's static process sets, a list
    of ProcessSet objects registered here on every rank (or "dynamic", which changes nothing:
    add_process_set() always works). `comm` (an MPI communicator, or a list of ranks) must span
    every rank: libhvd's world is the job's, and a subset is a process set."""
    global _homogeneous
    if comm is not None and not hasattr(comm, 'Get_size') and list(comm) != list(range(len(comm))):
        raise NotImplementedError('hvdrun.torch: init(comm=...) with a subset of ranks is not '
                                  'supported; make that subset a process set instead')
    if process_sets is not None and process_sets != 'dynamic' and not isinstance(
            process_sets, (list, tuple)):
        raise ValueError('hvdrun.torch: init(process_sets=...) takes a list of ProcessSet '
                         'objects or "dynamic"')
    from . import mpi_ops, process_sets as _sets
    from .checkpoint_notice import _install_notice_handlers
    _install_notice_handlers()
    if _lib.is_initialized():
        return  # as libhvd: a second init does nothing
    mpi_ops._reset()
    _lib.init()
    _sets._init_global()
    # Horovod computes this at init: whether every node runs the same number of ranks.
    counts = mpi_ops.allgather(torch.tensor([_lib.local_size()], dtype=torch.int32),
                               name='hvdrun.init.local_sizes')
    _homogeneous = bool((counts == counts[0]).all())
    if isinstance(process_sets, (list, tuple)):
        for ps in process_sets:
            _sets.add_process_set(ps)


def shutdown():
    """Stops libhvd; operations still in flight fail. init() may be called again."""
    global _homogeneous
    from . import mpi_ops, process_sets as _sets
    try:
        _lib.shutdown()  # fails what is still in flight; only then drop the tensors it used
    finally:
        mpi_ops._reset()
        _sets._forget_all()
        _homogeneous = None


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


def is_homogeneous():
    return _initialized(_homogeneous)


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
    return bool(_lib.NCCL_BUILT)


def cuda_built():
    return bool(_lib.CUDA_BUILT)


def rocm_built():
    return False


def ddl_built():
    return False


def ccl_built():
    return False


def _timeline_call(fn, *args):
    from .exceptions import HorovodInternalError
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
