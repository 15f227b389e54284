# SPDX-License-Identifier: Apache-2.0
"""Compression.none and Compression.fp16 over every dtype libhvd moves: what travels, and what
comes back, against the same conversions done by hand with torch."""

import pytest
import torch

from hvdrun.torch import Compression

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.uint8, torch.int8,
          torch.int16, torch.int32, torch.int64]


def sample(dtype):
    # Values float16 cannot hold exactly (1/3, 70000 overflows it), so that a compression that
    # skipped the round trip would differ from the reference.
    values = torch.tensor([0.0, 1.0 / 3.0, -2.5, 1000.25, 70000.0, -7.0], dtype=torch.float64)
    if not dtype.is_floating_point:
        values = values.clamp(torch.iinfo(dtype).min, torch.iinfo(dtype).max)
    return values.to(dtype)


@pytest.mark.parametrize('dtype', DTYPES, ids=str)
def test_none_sends_the_tensor_itself(dtype):
    tensor = sample(dtype)
    sent, ctx = Compression.none.compress(tensor)
    assert sent is tensor
    assert Compression.none.decompress(sent, ctx) is sent


@pytest.mark.parametrize('dtype', DTYPES, ids=str)
def test_fp16_sends_floats_as_float16_and_restores_the_dtype(dtype):
    tensor = sample(dtype)
    sent, ctx = Compression.fp16.compress(tensor)
    expected_wire = torch.float16 if dtype.is_floating_point else dtype
    assert sent.dtype == expected_wire
    assert torch.equal(sent, tensor.to(expected_wire))
    back = Compression.fp16.decompress(sent, ctx)
    assert back.dtype == dtype
    assert torch.equal(back, tensor.to(expected_wire).to(dtype))
