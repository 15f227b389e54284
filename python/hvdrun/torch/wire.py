# SPDX-License-Identifier: Apache-2.0
"""How a torch tensor travels through libhvd, and scaling that works for every dtype.

libhvd has every dtype Horovod has on CPU (uint8, int8, int16, int32, int64, float16,
bfloat16, float32, float64). bool, which Horovod moves but does not reduce, is moved as the
bytes of a uint8 view.
"""

import torch

_SAME_WIDTH = {torch.bool: torch.uint8}


def for_reduction(tensor):
    """The tensor to reduce (bool cannot be)."""
    if tensor.dtype == torch.bool:
        raise TypeError('hvdrun.torch: bool tensors cannot be reduced; convert them to uint8')
    return tensor


def for_moving(tensor):
    """The tensor to move: `tensor`, or a view of its bytes under a dtype libhvd has."""
    same = _SAME_WIDTH.get(tensor.dtype)
    return tensor if same is None else tensor.view(same)


def back(result, dtype):
    """`result` (moved as a view) in `dtype` again."""
    return result if result.dtype == dtype else result.view(dtype)


_HALVES = (torch.float16, torch.bfloat16)


def scale_(tensor, factor):
    """tensor *= factor in place, as libhvd scales (reduce_kernels.h scale()) and so as
    Horovod: float32/float64 in their own precision; float16/bfloat16 in float32 on CPU (torch's
    own mul_ would round the factor first); on a GPU, float16 by the factor rounded to float16,
    as Horovod's GPU kernel; integers in float64, truncated toward zero, saturated at the
    type's range."""
    if factor == 1.0:
        return tensor
    dtype = tensor.dtype
    if dtype in _HALVES:
        if tensor.is_cuda and dtype == torch.float16:
            factor = float(torch.tensor(factor, dtype=dtype))
        return tensor.copy_(tensor.float().mul_(factor))
    if dtype.is_floating_point:
        return tensor.mul_(factor)
    info = torch.iinfo(dtype)
    scaled = torch.trunc(tensor.double() * factor).nan_to_num_(0.0)
    result = scaled.clamp(info.min, info.max).to(dtype)
    # float64 cannot hold int64's maximum: the clamp's upper bound rounds up to 2^63.
    return tensor.copy_(result.masked_fill_(scaled >= float(info.max), info.max))


def ready(tensor):
    """libhvd reads a CUDA tensor as soon as it is enqueued: wait for the stream writing it."""
    if tensor.is_cuda:
        torch.cuda.current_stream(tensor.device).synchronize()
