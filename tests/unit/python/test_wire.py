# SPDX-License-Identifier: Apache-2.0
"""wire.py: how tensors travel (bool as bytes) and scale_, against the arithmetic done in
Python on the elements."""

import math

import pytest
import torch

from hvdrun.torch import wire

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.uint8, torch.int8,
          torch.int16, torch.int32, torch.int64]
FACTORS = [1.0, 0.5, -1.0 / 3.0, 3.0, 2.75]


def sample(dtype):
    # Products with every factor stay inside int8: an overflow would test the cast, not scale_.
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


# A negative factor has no result in an unsigned dtype.
@pytest.mark.parametrize('dtype,factor', [(d, f) for d in DTYPES for f in FACTORS
                                          if f >= 0 or not unsigned(d)], ids=str)
def test_scale_in_place(dtype, factor):
    tensor = sample(dtype)
    before = tensor.tolist()
    result = wire.scale_(tensor, factor)
    assert result is tensor
    if dtype.is_floating_point:
        # The product rounded once to the dtype: float16/bfloat16 allow their own precision.
        expected = torch.tensor([v * factor for v in before], dtype=torch.float64).to(dtype)
        tolerance = {torch.float16: 1e-3, torch.bfloat16: 8e-3}.get(dtype, 1e-6)
        assert torch.allclose(tensor.double(), expected.double(), rtol=tolerance, atol=0)
    else:
        assert tensor.tolist() == [math.trunc(v * factor) for v in before]


@pytest.mark.parametrize('dtype', [torch.float16, torch.bfloat16], ids=str)
def test_16_bit_floats_scale_in_float32_as_libhvd_and_horovod(dtype):
    # torch's own half.mul_(python float) rounds the factor to the dtype first; libhvd's and
    # Horovod's CPU scaling multiply in float32 by the float32 factor and round once.
    values = torch.arange(-300, 301, dtype=torch.float64).to(dtype)
    factor = 0.4173
    expected = (values.float() * torch.tensor(factor, dtype=torch.float32)).to(dtype)
    assert torch.equal(wire.scale_(values.clone(), factor), expected)


@pytest.mark.parametrize('dtype', [torch.int8, torch.uint8, torch.int32, torch.int64], ids=str)
def test_integers_saturate_at_their_range_as_libhvd(dtype):
    info = torch.iinfo(dtype)
    tensor = torch.tensor([info.min, info.max], dtype=dtype)
    assert wire.scale_(tensor.clone(), 4.0).tolist() == [info.min, info.max]
    if info.min < 0:
        assert wire.scale_(tensor.clone(), -4.0).tolist() == [info.max, info.min]
