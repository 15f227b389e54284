// SPDX-License-Identifier: Apache-2.0
#pragma once
// The GPU lane's CUDA kernels (cuda_kernels.cu): one batched copy for the fusion buffer and
// element-wise scaling for every dtype. Each call queues one launch on `stream` and returns;
// the caller waits on the stream. Throws BackendError when the launch fails.

#include <cuda_runtime.h>

#include <cstddef>

#include "backends/memory_ops.h"
#include "hvd/tensor.h"

namespace hvd::backends::cuda {

/// The largest chunk one thread block copies at a time (see copy_plan.h); a power of two, so
/// that chunks keep their segment's alignment.
constexpr size_t kCopyChunkBytes = size_t{64} << 10;

/// Copies `count` chunks (a device array of CopySegment, each of at most kCopyChunkBytes, none
/// overlapping another's destination) in one launch. Aligned chunks move 16 bytes per load.
void launch_batched_copy(const CopySegment* chunks, size_t count, cudaStream_t stream);

/// data[i] *= factor with the host's semantics (reduce_kernels.h scale()): floating types in
/// their own precision (16-bit ones in float, rounded to nearest-even); integers in double,
/// truncated toward zero and saturated at the type's range. One difference, Horovod's too:
/// float16 is multiplied by the factor rounded to float16, as Horovod's GPU kernel does.
void launch_scale(void* data, size_t count, DataType dtype, double factor, cudaStream_t stream);

}  // namespace hvd::backends::cuda
