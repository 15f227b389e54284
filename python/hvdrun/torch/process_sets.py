# SPDX-License-Identifier: Apache-2.0
"""Horovod 0.28's process sets over libhvd's (hvd::add_process_set): subsets of the ranks that
run collectives among themselves, each with its own negotiation and connections in libhvd.

Adding and removing a set is collective over ALL ranks (Horovod's dynamic process sets; no
HOROVOD_DYNAMIC_PROCESS_SETS is needed), and every rank gets the same id for it. Inside a set,
rank() is the position in the set; a broadcast's root_rank stays a global rank."""

from . import _hvd_torch as _lib
from .exceptions import HorovodInternalError


class ProcessSet:
    """A set of ranks. ProcessSet([0, 2]) is only a description until add_process_set() (or
    init(process_sets=...)) registers it; then process_set_id is its id and size(), rank() and
    included() answer (None before, as in Horovod)."""

    def __init__(self, ranks_or_comm):
        if hasattr(ranks_or_comm, 'Get_group'):  # an mpi4py communicator, as Horovod takes
            group = ranks_or_comm.Get_group()
            from mpi4py import MPI
            world = MPI.COMM_WORLD.Get_group()
            ranks = MPI.Group.Translate_ranks(group, list(range(group.Get_size())), world)
            self.mpi_comm = ranks_or_comm
        else:
            ranks = ranks_or_comm
            self.mpi_comm = None
        self.ranks = sorted(int(r) for r in ranks)
        self.process_set_id = None

    def _invalidate(self):
        self.process_set_id = None

    def size(self):
        if self.process_set_id is None:
            return None
        return len(_lib.process_set_ranks(self.process_set_id))

    def rank(self):
        if self.process_set_id is None:
            return None
        return _lib.process_set_rank(self.process_set_id)

    def included(self):
        if self.process_set_id is None:
            return None
        return _lib.process_set_rank(self.process_set_id) >= 0

    def __str__(self):
        return 'ProcessSet(process_set_id=%s, ranks=%s)' % (self.process_set_id, self.ranks)

    __repr__ = __str__


global_process_set = ProcessSet([])
global_process_set.process_set_id = 0
_registered = []  # the sets add_process_set() registered in this runtime


def _forget_all():
    """shutdown(): a set's id means nothing to the next runtime."""
    for ps in _registered:
        ps._invalidate()
    _registered.clear()


def _init_global():
    """After init(): the global set's ranks are every rank's."""
    global_process_set.ranks = list(range(_lib.size()))


def process_set_id(process_set):
    """The libhvd id of `process_set` for a collective; ValueError when it is not registered or
    this rank is not in it."""
    if process_set is None:
        return 0
    if not isinstance(process_set, ProcessSet):
        raise ValueError('hvdrun.torch: process_set must be a ProcessSet, not %r'
                         % type(process_set).__name__)
    if process_set.process_set_id is None:
        raise ValueError('hvdrun.torch: %s is not registered; add it with '
                         'hvd.add_process_set() on every rank first' % (process_set,))
    return process_set.process_set_id


def set_size(process_set):
    """The number of ranks of `process_set` (the global one when None)."""
    return len(_lib.process_set_ranks(process_set_id(process_set)))


def set_rank(process_set):
    """This rank's position in `process_set`."""
    return _lib.process_set_rank(process_set_id(process_set))


def add_process_set(process_set):
    """Registers `process_set` (a ProcessSet or a list of ranks) on every rank and returns it.
    Collective: every rank calls it with the same ranks. ValueError when it is registered
    already or its ranks form a set already."""
    if not isinstance(process_set, ProcessSet):
        process_set = ProcessSet(process_set)
    if process_set.process_set_id is not None:
        raise ValueError('hvdrun.torch: %s is registered already' % (process_set,))
    try:
        process_set.process_set_id = _lib.add_process_set(process_set.ranks)
    except RuntimeError as e:
        if str(e).startswith('usage: '):
            raise ValueError('hvdrun.torch: ' + str(e)[len('usage: '):])
        raise HorovodInternalError(str(e))
    _registered.append(process_set)
    return process_set


def remove_process_set(process_set):
    """Removes a registered set on every rank (collective); True when it was removed, False
    when it was not registered. The global set cannot be removed (ValueError)."""
    if process_set.process_set_id == 0:
        raise ValueError('hvdrun.torch: the global process set cannot be removed')
    if process_set.process_set_id is None:
        return False
    try:
        _lib.remove_process_set(process_set.process_set_id)
    except RuntimeError as e:
        if str(e).startswith('usage: '):
            return False
        raise HorovodInternalError(str(e))
    process_set._invalidate()
    if process_set in _registered:
        _registered.remove(process_set)
    return True
