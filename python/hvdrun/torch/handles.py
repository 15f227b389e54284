# SPDX-License-Identifier: Apache-2.0
"""Horovod's int handles over libhvd's operations: submit registers one, poll() and
synchronize() finish it. Also the names: unnamed operations get counters, and a name still in
flight cannot be submitted again (Horovod's ValueError)."""

import itertools

import torch

from . import _hvd_torch as _lib
from . import wire
from .exceptions import HorovodInternalError

# Horovod's message (common/tensor_queue.cc) for a name that is still being processed.
DUPLICATE_NAME = ('Requested to allreduce, allgather, or broadcast a tensor with the same name '
                  'as another tensor that is currently being processed.  If you want to '
                  'request another tensor, use a different tensor name.')


class _Pending:
    """One handle given to the caller: libhvd's operations behind it, the tensors they read or
    write (kept alive until synchronize), and how to make the result once they are done.
    `start`: a lone rank's enqueue, not yet run (see submit)."""
    __slots__ = ('ids', 'keep', 'finish', 'keys', 'start')

    def __init__(self, ids, keep, finish, keys, start=None):
        self.ids, self.keep, self.finish, self.keys = ids, keep, finish, keys
        self.start = start


def _as_list(ids):
    return ids if isinstance(ids, list) else [ids]


def _started(pending):
    """libhvd's operation ids, after running a lone rank's deferred enqueue."""
    if pending.start is not None:
        start, pending.start = pending.start, None
        pending.ids = _as_list(start())
    return pending.ids


_pending = {}
_handles = itertools.count(1)
_unnamed = {}  # per process set id: a counter
_in_flight = {}  # (kind, process set id, name) -> the handle that submitted it


def reset():
    """Forgets everything in flight; init() and shutdown() call it, as Horovod resets its map."""
    global _handles
    _pending.clear()
    _handles = itertools.count(1)
    _unnamed.clear()
    _in_flight.clear()


def op_name(name, kind, ps=0):
    # The ranks of a set issue its unnamed operations in the same order, so the same counter
    # value names the same tensor on each of them. One counter per set: a rank's operations in
    # other sets must not shift the numbers (Horovod's single counter does).
    if name is not None:
        return name
    counter = _unnamed.get(ps)
    if counter is None:
        counter = _unnamed[ps] = itertools.count()
    return '%s.noname.%d' % (kind, next(counter))


def _busy(handle):
    pending = _pending.get(handle)
    return pending is not None and (pending.start is not None or
                                    not all(_lib.poll(i) for i in pending.ids))


def claim(kind, ps, names):
    """ValueError (Horovod's, at once and before anything is enqueued) when one of `names` is
    still being processed. Horovod keys its tensor table by "kind.name" per process set, and a
    name is free again once its operation is done, synchronized or not."""
    keys = [(kind, ps, n) for n in names]
    if len(set(keys)) != len(keys) or any(_busy(_in_flight.get(k)) for k in keys):
        raise ValueError(DUPLICATE_NAME)
    return keys


def require_init():
    """Before init() or after shutdown(): Horovod's HorovodInternalError, raised when the
    operation is started (Horovod's enqueue raises it, not synchronize)."""
    if not _lib.is_initialized():
        raise HorovodInternalError('Horovod has not been initialized; use hvd.init().')


def submit(enqueue, keep, finish, keys=()):
    """Runs `enqueue` (returns libhvd handle ids) and registers the result under a new handle;
    `keys` (from claim()) are in flight until it is done.

    A lone rank's libhvd does a collective inside its enqueue: there is nobody to wait for.
    Horovod's are asynchronous at every size: its background thread runs them after the
    submit returns, and a poll() at once says False. So a lone rank's enqueue runs at the
    handle's first poll() or its synchronize(), on the caller's thread as before, and costs
    no thread wake-up."""
    require_init()
    handle = next(_handles)
    if _lib.size() == 1:
        _pending[handle] = _Pending([], keep, finish, keys, start=enqueue)
    else:
        _pending[handle] = _Pending(_as_list(enqueue()), keep, finish, keys)
    for k in keys:
        _in_flight[k] = handle
    return handle


def submit_local(result_fn, keep=(), keys=()):
    """A handle whose result needs no communication (computed at synchronize)."""
    return submit(lambda: [], keep, lambda _: result_fn(), keys)


def poll(handle):
    """True once the operation behind `handle` is done; synchronize() then does not block.
    A lone rank's first poll runs the deferred operation and says False: it was not done when
    asked (see submit)."""
    pending = _pending.get(handle)
    if pending is None:
        raise ValueError('hvdrun.torch: unknown handle %r' % (handle,))
    if pending.start is not None:
        _started(pending)
        return False
    return all(_lib.poll(i) for i in pending.ids)


def synchronize(handle):
    """Waits for `handle` and returns its result; HorovodInternalError if it failed."""
    pending = _pending.pop(handle, None)
    if pending is None:
        return None
    for k in pending.keys:
        if _in_flight.get(k) == handle:
            del _in_flight[k]
    error = None
    for i in _started(pending):
        try:
            _lib.wait(i)
        except RuntimeError as e:  # wait for the rest of a group before reporting
            error = error or e
    try:
        if error is not None:
            raise HorovodInternalError(str(error))
        return pending.finish(pending)
    finally:
        for i in pending.ids:
            _lib.release(i)


def gathered(tensor, lib_id, moved_dtype):
    """The result of an allgather or alltoallv: libhvd leaves it in host memory owned by the
    handle; one copy into a new tensor."""
    out = torch.empty(_lib.output_shape(lib_id), dtype=moved_dtype)
    _lib.copy_output(lib_id, out)
    out = wire.back(out, tensor.dtype)
    return out.to(tensor.device) if tensor.device.type != 'cpu' else out
