# SPDX-License-Identifier: Apache-2.0
"""Process sets are not in libhvd yet: only the global set exists, and the names that create
others raise."""

_NOT_YET = ('hvdrun.torch: process sets are not supported yet (libhvd has no sub-groups); '
            'every collective runs over all ranks')


class ProcessSet:
    """Horovod's ProcessSet; only global_process_set (all ranks) can be used."""

    def __init__(self, ranks_or_comm=None):
        self.ranks = ranks_or_comm
        self.process_set_id = 0 if ranks_or_comm is None else None

    def size(self):
        from .basics import size
        return size()

    def rank(self):
        from .basics import rank
        return rank()

    def included(self):
        return True

    def __repr__(self):
        return 'ProcessSet(global)' if self.ranks is None else 'ProcessSet(%r)' % (self.ranks,)


global_process_set = ProcessSet()


def check_process_set(process_set):
    if process_set is not global_process_set and process_set is not None:
        raise NotImplementedError(_NOT_YET)


def add_process_set(process_set):
    raise NotImplementedError(_NOT_YET)


def remove_process_set(process_set):
    raise NotImplementedError(_NOT_YET)
