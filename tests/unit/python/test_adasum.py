# SPDX-License-Identifier: Apache-2.0
"""adasum.py's pairwise formula and tree against Adasum's definition computed in plain Python
(lists of floats), and Horovod's refusals."""

import random

import pytest
import torch

from hvdrun.torch import adasum, process_sets


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def reference_pair(a, b):
    """(1 - a.b / (2|a|^2)) a + (1 - a.b / (2|b|^2)) b; a coefficient whose |x|^2 is below
    1e-8 stays 1 (AdasumMPI)."""
    ab, aa, bb = dot(a, b), dot(a, a), dot(b, b)
    ca = 1.0 - ab / (2.0 * aa) if aa >= 1e-8 else 1.0
    cb = 1.0 - ab / (2.0 * bb) if bb >= 1e-8 else 1.0
    return [ca * x + cb * y for x, y in zip(a, b)]


def reference_tree(vectors):
    """Recursive halving: the first half's Adasum combined with the second half's."""
    if len(vectors) == 1:
        return vectors[0]
    half = len(vectors) // 2
    return reference_pair(reference_tree(vectors[:half]), reference_tree(vectors[half:]))


def vectors(count, length, seed):
    rng = random.Random(seed)
    return [[rng.uniform(-2.0, 2.0) for _ in range(length)] for _ in range(count)]


def as_tensor(v):
    return torch.tensor(v, dtype=torch.float64)


@pytest.mark.parametrize('length', [1, 3, 64])
@pytest.mark.parametrize('seed', range(4))
def test_pair_matches_the_definition(seed, length):
    a, b = vectors(2, length, seed)
    got = adasum.combine(as_tensor(a), as_tensor(b))
    assert torch.allclose(got, as_tensor(reference_pair(a, b)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('tiny_side', ['a', 'b', 'both'])
def test_pair_keeps_coefficient_one_for_a_near_zero_vector(tiny_side):
    a, b = vectors(2, 5, 11)
    if tiny_side in ('a', 'both'):
        a = [x * 1e-6 for x in a]
    if tiny_side in ('b', 'both'):
        b = [x * 1e-6 for x in b]
    got = adasum.combine(as_tensor(a), as_tensor(b))
    assert torch.allclose(got, as_tensor(reference_pair(a, b)), rtol=1e-12, atol=1e-18)


@pytest.mark.parametrize('ranks', [1, 2, 4, 8, 16])
def test_tree_matches_recursive_halving(ranks):
    vs = vectors(ranks, 17, ranks)
    got = adasum.tree([as_tensor(v) for v in vs])
    assert torch.allclose(got, as_tensor(reference_tree(vs)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('ranks', range(1, 17))
def test_check_refuses_a_rank_count_that_is_no_power_of_two(fake, ranks):
    if ranks & (ranks - 1):
        with pytest.raises(NotImplementedError):
            adasum.check(None, ranks)
    else:
        adasum.check(None, ranks)


def test_check_refuses_a_subset_process_set(fake):
    fake.reset(size=2)
    process_sets._init_global()
    adasum.check(process_sets.global_process_set, 2)
    subset = process_sets.add_process_set([0, 1])
    with pytest.raises(NotImplementedError):
        adasum.check(subset, 2)
