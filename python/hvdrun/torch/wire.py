# SPDX-License-Identifier: Apache-2.0
"""How a torch tensor travels through libhvd when libhvd lacks its dtype, and scaling that
works for every dtype.

libhvd has uint8, int32, int64, float16, bfloat16, float32 and float64. int8 and int16 (and
bool) are carried here, in Python, until the runtime has them:
- collectives that only move bytes (broadcast, allgather, alltoall) send the same bytes under
  a dtype of the same width (a view, no copy);
- reductions widen to int32 (a copy), reduce, and narrow back. Narrowing wraps modulo 2^8 or
  2^16, which is what a native int8/int16 sum or product would give; min, max and the
  truncating integer average are exact.
"""

import torch

_WIDENED = {torch.int8: torch.int32, torch.int16: torch.int32}
_SAME_WIDTH = {torch.int8: torch.uint8, torch.int16: torch.float16, torch.bool: torch.uint8}


def for_reduction(tensor):
    """The tensor to reduce: `tensor` itself, or an int32 copy for int8/int16."""
    if tensor.dtype == torch.bool:
        raise TypeError('hvdrun.torch: bool tensors cannot be reduced; convert them to uint8')
    wide = _WIDENED.get(tensor.dtype)
    return tensor if wide is None else tensor.to(wide)


def for_moving(tensor):
    """The tensor to move: `tensor`, or a view of its bytes under a dtype libhvd has."""
    same = _SAME_WIDTH.get(tensor.dtype)
    return tensor if same is None else tensor.view(same)


def back(result, dtype):
    """`result` in `dtype` again: a view for moved bytes, a narrowing copy for reductions."""
    if result.dtype == dtype:
        return result
    if _SAME_WIDTH.get(dtype) == result.dtype:
        return result.view(dtype)
    return result.to(dtype)


def scale_(tensor, factor):
    """tensor *= factor in place; integers are truncated toward zero, as libhvd scales them."""
    if factor == 1.0:
        return tensor
    if tensor.dtype.is_floating_point:
        return tensor.mul_(factor)
    return tensor.copy_(torch.trunc(tensor.double() * factor).to(tensor.dtype))


def ready(tensor):
    """libhvd reads a CUDA tensor as soon as it is enqueued: wait for the stream writing it."""
    if tensor.is_cuda:
        torch.cuda.current_stream(tensor.device).synchronize()
