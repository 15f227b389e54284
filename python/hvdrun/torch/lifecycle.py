# SPDX-License-Identifier: Apache-2.0
"""init() and shutdown(): starting and stopping libhvd, and the Python state that lives exactly
as long as one runtime (handles, process sets, is_homogeneous). Apart from basics.py because
they use the collectives, which use basics: basics stays a leaf that everything may import."""

import torch

from . import _hvd_torch as _lib
from . import handles
from . import process_sets as _sets
from .basics import _initialized
from .checkpoint_notice import _install_notice_handlers
from .gather_ops import allgather

_homogeneous = None


def _check_init_arguments(comm, process_sets):
    if comm is not None and not hasattr(comm, 'Get_size') and list(comm) != list(range(len(comm))):
        raise NotImplementedError('hvdrun.torch: init(comm=...) with a subset of ranks is not '
                                  'supported; make that subset a process set instead')
    if process_sets is not None and process_sets != 'dynamic' and not isinstance(
            process_sets, (list, tuple)):
        raise ValueError('hvdrun.torch: init(process_sets=...) takes a list of ProcessSet '
                         'objects or "dynamic"')


def init(comm=None, process_sets=None):
    """Finds the other ranks (through hvdrun's environment, PMIx, MPI, or alone) and starts
    libhvd. Works again after shutdown(). `process_sets`: Horovod's static process sets, a list
    of ProcessSet objects registered here on every rank (or "dynamic", which changes nothing:
    add_process_set() always works). `comm` (an MPI communicator, or a list of ranks) must span
    every rank: libhvd's world is the job's, and a subset is a process set."""
    global _homogeneous
    _check_init_arguments(comm, process_sets)
    _install_notice_handlers()
    if _lib.is_initialized():
        return  # as libhvd: a second init does nothing
    handles.reset()
    _lib.init()
    _sets._init_global()
    # Horovod computes this at init: whether every node runs the same number of ranks.
    counts = allgather(torch.tensor([_lib.local_size()], dtype=torch.int32),
                       name='hvdrun.init.local_sizes')
    _homogeneous = bool((counts == counts[0]).all())
    if isinstance(process_sets, (list, tuple)):
        for ps in process_sets:
            _sets.add_process_set(ps)


def shutdown():
    """Stops libhvd; operations still in flight fail. init() may be called again."""
    global _homogeneous
    try:
        _lib.shutdown()  # fails what is still in flight; only then drop the tensors it used
    finally:
        handles.reset()
        _sets._forget_all()
        _homogeneous = None


def is_homogeneous():
    """Whether every node runs the same number of ranks (found by init())."""
    return _initialized(_homogeneous)
