# SPDX-License-Identifier: Apache-2.0
"""wire.py: how tensors travel (bool as bytes). Scaling is libhvd's (reduce_kernels_test.cc, and
tests/frameworks/exact_scaling.py through every call form)."""

import pytest
import torch

from hvdrun.torch import wire

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.uint8, torch.int8,
          torch.int16, torch.int32, torch.int64]


def sample(dtype):
    values = [0, 1, -1, 7, -7, 41, 33]
    if unsigned(dtype):
        values = [abs(v) for v in values]
    return torch.tensor(values, dtype=torch.float64).to(dtype)


def test_bool_is_refused_for_reductions_and_moved_as_its_bytes():
    flags = torch.tensor([True, False, True])
    with pytest.raises(TypeError):
        wire.for_reduction(flags)
    moved = wire.for_moving(flags)
    assert moved.dtype == torch.uint8
    assert moved.data_ptr() == flags.data_ptr()  # a view: nothing is copied
    assert moved.tolist() == [int(f) for f in flags.tolist()]
    assert torch.equal(wire.back(moved, torch.bool), flags)


@pytest.mark.parametrize('dtype', DTYPES, ids=str)
def test_other_dtypes_travel_unchanged(dtype):
    tensor = sample(dtype)
    assert wire.for_reduction(tensor) is tensor
    assert wire.for_moving(tensor) is tensor
    assert wire.back(tensor, dtype) is tensor


def unsigned(dtype):
    return not dtype.is_floating_point and torch.iinfo(dtype).min == 0
