# SPDX-License-Identifier: Apache-2.0
"""Horovod's Adasum reduction (op=hvd.Adasum) for CPU tensors.

Two ranks' vectors a and b combine into
    (1 - a.b / (2|a|^2)) a + (1 - a.b / (2|b|^2)) b
(a coefficient stays 1 where its |x|^2 < 1e-8, as in Horovod's AdasumMPI), and the ranks combine
in recursive halving/doubling order: level 1 pairs ranks (0,1), (2,3), ...; level 2 combines
the pairs' results, and so on, so the number of ranks must be a power of two, as Horovod
requires. Each tensor is combined on its own (Horovod computes the dot products per tensor in
a fused buffer too).

libhvd has no Adasum reduction: every rank allgathers all ranks' tensors and computes the same
tree locally in float64, which gives Horovod's result (up to its float32/float16 rounding) at
the cost of moving n times the bytes of a ring allreduce. A native one belongs in libhvd.
"""

import torch

from . import _hvd_torch as _lib
from . import handles, wire
from .exceptions import HorovodInternalError
from .process_sets import global_process_set, process_set_id

_DTYPES = (torch.float16, torch.float32, torch.float64)


def combine(a, b):
    """Adasum of two float64 vectors."""
    dot = torch.dot(a, b)
    a_sq, b_sq = torch.dot(a, a), torch.dot(b, b)
    a_coeff = 1.0 - dot / a_sq * 0.5 if a_sq >= 1e-8 else 1.0
    b_coeff = 1.0 - dot / b_sq * 0.5 if b_sq >= 1e-8 else 1.0
    return a_coeff * a + b_coeff * b


def tree(vectors):
    """Adasum of a power-of-two list of float64 vectors, in Horovod's order."""
    level = list(vectors)
    while len(level) > 1:
        level = [combine(level[i], level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def check(process_set, ranks):
    """Horovod's errors for an Adasum allreduce it cannot do (raised before anything is sent,
    the same on every rank)."""
    if process_set is not None and process_set_id(process_set) != global_process_set.process_set_id:
        raise NotImplementedError('Adasum does not support non-global process sets yet.')
    if ranks & (ranks - 1):
        raise NotImplementedError('Running Adasum with non-power of 2 ranks is not supported yet.')


def allreduce_async(tensors, outputs, names, prescale_factor, postscale_factor, keys):
    """Starts Adasum allreduces of `tensors` into `outputs` (None: new tensors); one handle,
    whose result is the list of outputs. `keys`: the caller's claim() of `names`."""
    # Horovod fails an Adasum of another dtype in its background op, on every rank, so the
    # error comes from synchronize(); nothing is sent here either.
    bad = [t.dtype for t in tensors if t.dtype not in _DTYPES]
    if bad:
        def fail():
            raise HorovodInternalError('Adasum: unsupported data type %s; Adasum takes '
                                       'float16, float32 and float64' % (bad[0],))
        return handles.submit_local(fail, keys=keys)
    # One row per rank: the allgather stacks the ranks' tensors.
    flats = [t.detach().reshape(1, -1).contiguous() for t in tensors]
    for f in flats:
        wire.ready(f)

    def finish(pending):
        results = []
        for t, out, f, lib_id in zip(tensors, outputs, flats, pending.ids):
            rows = handles.gathered(f, lib_id, f.dtype).double() * float(prescale_factor)
            result = (tree(list(rows)) * float(postscale_factor)).to(t.dtype)
            result = result.reshape(t.shape).to(t.device)
            if out is not None:
                out.copy_(result)
                result = out
            results.append(result)
        return results

    ps = global_process_set.process_set_id
    return handles.submit(lambda: [_lib.allgather_async(n, f, ps) for n, f in zip(names, flats)],
                          (tensors, flats), finish, keys)
