# SPDX-License-Identifier: Apache-2.0
"""The checks and counts both distributed optimizers share (optimizer_bookkeeping.py), and
DistributedOptimizer's argument checks, at one rank over a fake libhvd."""

import pytest
import torch

import hvdrun.torch as hvd
from hvdrun.torch.optimizer_bookkeeping import count_backward_pass, validated_names


def model_and_groups():
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    return model, [{'params': list(model.parameters())}]


def test_validated_names_default_and_refusals():
    model, groups = model_and_groups()
    default = [('p%d' % i, p) for i, p in enumerate(model.parameters())]
    assert validated_names(groups, None, default) is default
    named = list(model.named_parameters())
    assert validated_names(groups, iter(named), default) == named
    with pytest.raises(ValueError, match='tuples'):
        validated_names(groups, [p for _, p in named], default)
    with pytest.raises(ValueError, match='unique'):
        validated_names(groups, [('same', p) for _, p in named], default)
    left_out = named[1:]
    with pytest.raises(ValueError, match=str(id(named[0][1]))):
        validated_names(groups, left_out, default)


@pytest.mark.parametrize('passes', [1, 2, 3])
def test_count_backward_pass_allows_exactly_the_passes_per_step(passes):
    p = torch.nn.Parameter(torch.zeros(2))
    p.grad = torch.zeros(2)
    delay = {p: passes}
    started = {}
    for done in range(1, passes + 1):
        count_backward_pass(started, delay, p)
        assert delay[p] == passes - done
    started[p] = ('a handle', None)  # the last pass started its allreduce
    with pytest.raises(AssertionError, match='backward_passes_per_step'):
        count_backward_pass(started, delay, p)


def test_distributed_optimizer_argument_checks(fake):
    model, _ = model_and_groups()
    sgd = torch.optim.SGD(model.parameters(), lr=0.1)
    for op in (hvd.Sum, hvd.Min, hvd.Max, hvd.Product, hvd.Adasum):
        with pytest.raises(ValueError, match='gradient_predivide_factor'):
            hvd.DistributedOptimizer(sgd, op=op, gradient_predivide_factor=2.0)
    with pytest.raises(ValueError, match='not registered'):
        hvd.DistributedOptimizer(sgd, process_set=hvd.ProcessSet([0]))
    wrapped = hvd.DistributedOptimizer(sgd, named_parameters=model.named_parameters())
    assert isinstance(wrapped, torch.optim.SGD)
    assert fake.enqueued == []


def horovod_split_list(items, n):
    """horovod.common.util.split_list as Horovod 0.28.1 has it: n nearly even runs."""
    d, r = divmod(len(items), n)
    return [items[i * d + min(i, r):(i + 1) * d + min(i + 1, r)] for i in range(n)]


@pytest.mark.parametrize('layers', [1, 3, 5])
@pytest.mark.parametrize('groups', [1, 2, 3, 4, 7, 20])
def test_groups_as_a_number_cut_as_horovods_split_list(fake, layers, groups):
    model = torch.nn.Sequential(*[torch.nn.Linear(2, 2) for _ in range(layers)])
    wrapped = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                       groups=groups)
    want = [run for run in horovod_split_list(list(model.parameters()), groups) if run]
    assert [[id(p) for p in g] for g in wrapped._groups] == [[id(p) for p in g] for g in want]


def test_groups_as_lists_and_horovods_refusals(fake):
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    w0, b0, w1, b1 = model.parameters()
    b1.requires_grad_(False)
    sgd = torch.optim.SGD(model.parameters(), lr=0.1)
    wrapped = hvd.DistributedOptimizer(sgd, groups=[[w1, b1, w0]])
    # Only trainable parameters; the rest one by one, in order.
    assert [[id(p) for p in g] for g in wrapped._groups] == [[id(w1), id(w0)], [id(b0)]]
    for bad, match in [(0, 'non-negative integer'), (-1, 'non-negative integer'),
                       ('2', 'non-negative integer'), ([[w0, 'x']], 'torch.Tensor'),
                       ([[w0], [w0]], 'only appear once')]:
        with pytest.raises(ValueError, match=match):
            hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1), groups=bad)
