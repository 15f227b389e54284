# SPDX-License-Identifier: Apache-2.0
"""handles.py's bookkeeping over a fake libhvd: names for unnamed operations, Horovod's
duplicate-name refusal, and synchronize() waiting for, releasing and reporting libhvd's
operations."""

import pytest

from hvdrun.torch import HorovodInternalError, handles


@pytest.mark.parametrize('kind', ['allreduce', 'broadcast'])
def test_unnamed_operations_count_per_process_set(fake, kind):
    order = [0, 0, 3, 0, 3, 5]
    issued = {}
    for ps in order:
        expected = '%s.noname.%d' % (kind, issued.get(ps, 0))
        issued[ps] = issued.get(ps, 0) + 1
        assert handles.op_name(None, kind, ps) == expected
    assert handles.op_name('mine', kind, 0) == 'mine'


def test_a_name_in_flight_is_refused_until_it_is_done(fake):
    fake.reset(size=2)
    with pytest.raises(ValueError):
        handles.claim('allreduce', 0, ['x', 'x'])
    keys = handles.claim('allreduce', 0, ['x'])
    handle = handles.submit(lambda: 7, None, lambda p: 'result', keys)
    fake.done[7] = False
    with pytest.raises(ValueError, match='same name'):
        handles.claim('allreduce', 0, ['x'])
    handles.claim('allreduce', 1, ['x'])  # another set, another table
    handles.claim('broadcast', 0, ['x'])  # another kind
    fake.done[7] = True
    handles.claim('allreduce', 0, ['x'])  # done, even unsynchronized: free again
    assert handles.synchronize(handle) == 'result'


@pytest.mark.parametrize('failing', [[], [11], [12], [10, 12]])
def test_synchronize_waits_for_all_releases_all_then_reports(fake, failing):
    ids = [10, 11, 12]
    fake.reset(size=2)
    for i in failing:
        fake.wait_errors[i] = RuntimeError('backend: operation %d failed' % i)
    handle = handles.submit(lambda: list(ids), None, lambda pending: list(pending.ids))
    assert handles.poll(handle)
    if failing:
        with pytest.raises(HorovodInternalError, match='operation %d' % failing[0]):
            handles.synchronize(handle)
    else:
        assert handles.synchronize(handle) == ids
    assert fake.waited == ids and fake.released == ids
    assert handles.synchronize(handle) is None  # Horovod: an unknown handle gives None
    with pytest.raises(ValueError):
        handles.poll(handle)


def test_a_lone_rank_enqueues_at_the_first_poll_or_synchronize(fake):
    """Horovod's collectives are asynchronous at size 1 too (poll() at once says False); a lone
    rank's libhvd would finish one inside its enqueue, so the enqueue waits for the handle's
    first poll() or synchronize()."""
    started = []
    keys = handles.claim('allreduce', 0, ['x'])
    polled = handles.submit(lambda: started.append('polled') or 7, None, lambda p: p.ids, keys)
    waited = handles.submit(lambda: started.append('waited') or [8, 9], None, lambda p: p.ids)
    assert started == []
    with pytest.raises(ValueError, match='same name'):  # not started is still in flight
        handles.claim('allreduce', 0, ['x'])
    assert handles.poll(polled) is False and started == ['polled']
    assert handles.poll(polled) is True and started == ['polled']
    assert handles.synchronize(waited) == [8, 9] and started == ['polled', 'waited']
    assert handles.synchronize(polled) == [7]
    assert fake.waited == [8, 9, 7] and fake.released == [8, 9, 7]


def test_local_results_need_no_libhvd(fake):
    handle = handles.submit_local(lambda: 42)
    assert handles.synchronize(handle) == 42
    assert fake.waited == [] and fake.enqueued == []


def test_before_init_every_operation_raises_horovods_error_when_started(fake):
    import torch
    import hvdrun.torch as hvd
    fake.reset(initialized=False)
    for start in (lambda: hvd.allreduce_async(torch.ones(2)),
                  lambda: hvd.allgather_async(torch.ones(2)),
                  lambda: hvd.broadcast_async(torch.ones(2), 0),
                  lambda: hvd.barrier(), lambda: hvd.join()):
        with pytest.raises(HorovodInternalError, match='has not been initialized'):
            start()
    assert fake.enqueued == []
