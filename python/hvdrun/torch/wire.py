# SPDX-License-Identifier: Apache-2.0
"""How a torch tensor travels through libhvd.

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


def ready(tensor):
    """libhvd reads a CUDA tensor as soon as it is enqueued: wait for the stream writing it."""
    if tensor.is_cuda:
        torch.cuda.current_stream(tensor.device).synchronize()
