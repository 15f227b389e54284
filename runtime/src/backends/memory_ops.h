// SPDX-License-Identifier: Apache-2.0
#pragma once
// MemoryOps: what the executor does to tensor memory besides communicating (copies into and
// out of the fusion buffer, scaling, scratch space), for one kind of memory. Host memory uses
// memcpy and the reduce kernels; CUDA memory uses one batched kernel per copy phase on the
// NCCL backend's stream. Called only from the background loop.

#include <cstddef>
#include <vector>

#include "common/buffer.h"

namespace hvd::backends {

/// `bytes` bytes from `src` to `dst`; the two never overlap.
struct CopySegment {
  const void* src = nullptr;
  void* dst = nullptr;
  size_t bytes = 0;
};

/// The persistent buffers a MemoryOps keeps: they grow to the largest request and stay.
enum class BufferSlot { kFusion, kScratch };

class MemoryOps {
 public:
  virtual ~MemoryOps() = default;
  /// Copies every segment; returns once all are done. Throws BackendError/TimeoutError.
  virtual void copy(const std::vector<CopySegment>& segments) = 0;
  /// buf *= factor, with reduce_kernels.h's scale() semantics for every dtype.
  virtual void scale(BufferView buf, double factor) = 0;
  /// Copies `bytes` from this memory to host memory `dst`.
  virtual void to_host(void* dst, const void* src, size_t bytes) = 0;
  /// At least `bytes` of the persistent buffer `slot` (contents not kept when it grows).
  virtual void* buffer(BufferSlot slot, size_t bytes) = 0;
  /// Bytes held by `slot` now.
  virtual size_t buffer_bytes(BufferSlot slot) const = 0;
  /// Where each tensor starts in the fusion buffer is rounded up to this many bytes (a multiple
  /// of every dtype's size), so that copy kernels can move whole vectors.
  virtual size_t fusion_alignment() const = 0;
};

}  // namespace hvd::backends
