# SPDX-License-Identifier: Apache-2.0
"""Horovod's argument errors, raised on the calling rank before anything is enqueued (the fake
libhvd records every enqueue): the same on every rank, so no rank waits for another."""

import pytest
import torch

import hvdrun.torch as hvd
from hvdrun.torch import lifecycle

ALLREDUCES = [
    lambda t, **kw: hvd.allreduce(t, **kw),
    lambda t, **kw: hvd.allreduce_async(t, **kw),
    lambda t, **kw: hvd.allreduce_async_(t, **kw),
    lambda t, **kw: hvd.grouped_allreduce([t], **kw),
    lambda t, **kw: hvd.grouped_allreduce_async_([t], **kw),
]


@pytest.mark.parametrize('call', ALLREDUCES)
@pytest.mark.parametrize('case', ['bool', 'unknown op', 'op and average', 'unregistered set',
                                  'adasum at 3 ranks'])
def test_allreduce_refusals(fake, call, case):
    fake.reset(size=3)
    tensor = torch.ones(4)
    error, kwargs = ValueError, {}
    if case == 'bool':
        error, tensor = TypeError, torch.ones(4, dtype=torch.bool)
    elif case == 'unknown op':
        kwargs = {'op': 99}
    elif case == 'op and average':
        kwargs = {'op': hvd.Sum, 'average': True}
    elif case == 'unregistered set':
        kwargs = {'process_set': hvd.ProcessSet([0, 1])}
    else:
        error, kwargs = NotImplementedError, {'op': hvd.Adasum}
    with pytest.raises(error):
        call(tensor, **kwargs)
    assert fake.enqueued == []


def test_grouped_allreduce_needs_a_tensor(fake):
    with pytest.raises(ValueError):
        hvd.grouped_allreduce_async([])
    assert fake.enqueued == []


@pytest.mark.parametrize('comm,process_sets,error', [
    ([1, 0], None, NotImplementedError),   # not every rank in order: a subset
    ([0, 2], None, NotImplementedError),
    (None, 'static', ValueError),          # neither a list nor "dynamic"
    (None, 3, ValueError),
])
def test_init_refusals(fake, comm, process_sets, error):
    with pytest.raises(error):
        lifecycle.init(comm=comm, process_sets=process_sets)
    assert fake.enqueued == []
