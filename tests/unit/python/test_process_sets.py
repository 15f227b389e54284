# SPDX-License-Identifier: Apache-2.0
"""process_sets.py: registering, querying and removing sets, against what the fake libhvd's
table says for each world size, rank and subset; and Horovod's errors."""

import itertools

import pytest

from hvdrun.torch import HorovodInternalError, process_sets
from hvdrun.torch.process_sets import ProcessSet

WORLDS = [(size, rank) for size in (1, 2, 3, 4) for rank in range(size)]


def subsets(size):
    ranks = range(size)
    return [list(c) for n in range(1, size + 1) for c in itertools.combinations(ranks, n)]


@pytest.mark.parametrize('size,rank', WORLDS)
def test_registered_set_answers_from_its_ranks(fake, size, rank):
    fake.reset(size=size, rank=rank)
    process_sets._init_global()
    assert process_sets.global_process_set.ranks == list(range(size))
    for ranks in subsets(size):
        ps = process_sets.add_process_set(list(reversed(ranks)))
        assert ps.ranks == sorted(ranks)
        assert fake.sets[process_sets.process_set_id(ps)] == sorted(ranks)
        assert ps.size() == process_sets.set_size(ps) == len(ranks)
        assert ps.included() == (rank in ranks)
        expected_rank = sorted(ranks).index(rank) if rank in ranks else -1
        assert ps.rank() == process_sets.set_rank(ps) == expected_rank


def test_unregistered_sets_answer_none_and_are_refused_for_collectives(fake):
    ps = ProcessSet([1, 0])
    assert (ps.size(), ps.rank(), ps.included()) == (None, None, None)
    with pytest.raises(ValueError):
        process_sets.process_set_id(ps)
    with pytest.raises(ValueError):
        process_sets.process_set_id([0, 1])  # a list is no ProcessSet
    assert process_sets.process_set_id(None) == 0


def test_add_twice_and_libhvd_refusals(fake):
    ps = process_sets.add_process_set([0])
    with pytest.raises(ValueError):
        process_sets.add_process_set(ps)
    fake.add_error = RuntimeError('usage: these ranks form a set already')
    with pytest.raises(ValueError):
        process_sets.add_process_set([0])
    fake.add_error = RuntimeError('backend: a peer is gone')
    with pytest.raises(HorovodInternalError):
        process_sets.add_process_set([0])


def test_remove(fake):
    with pytest.raises(ValueError):
        process_sets.remove_process_set(process_sets.global_process_set)
    assert process_sets.remove_process_set(ProcessSet([0])) is False
    ps = process_sets.add_process_set([0])
    set_id = ps.process_set_id
    assert process_sets.remove_process_set(ps) is True
    assert set_id not in fake.sets and ps.process_set_id is None
    again = process_sets.add_process_set([0])
    fake.remove_error = RuntimeError('usage: no such set')
    assert process_sets.remove_process_set(again) is False
    fake.remove_error = RuntimeError('timeout: the other ranks did not come')
    with pytest.raises(HorovodInternalError):
        process_sets.remove_process_set(again)


def test_shutdown_forgets_every_registered_set(fake):
    registered = [process_sets.add_process_set([0]) for _ in range(3)]
    process_sets._forget_all()
    assert [ps.process_set_id for ps in registered] == [None] * 3
    assert process_sets.global_process_set.process_set_id == 0
