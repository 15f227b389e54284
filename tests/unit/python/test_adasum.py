# SPDX-License-Identifier: Apache-2.0
"""adasum.py: Horovod's refusals (the combination itself is libhvd's, checked against the formula
in tests/unit/runtime/ring/adasum_test.cc and, through hvdrun.torch, in
tests/frameworks/torch_reference.py)."""

import pytest
import torch

from hvdrun.torch import adasum, process_sets


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


@pytest.mark.parametrize('dtype', [torch.float16, torch.float32, torch.float64])
def test_float_dtypes_are_taken(dtype):
    assert adasum.refused_dtype([torch.zeros(2, dtype=dtype)], keys=None) is None


def test_host_tensors_are_passed_as_they_are():
    t = torch.ones(3)
    assert adasum.on_host(t) is t
