// SPDX-License-Identifier: Apache-2.0
#pragma once
// CudaMemory: MemoryOps for CUDA tensors. A copy phase is one batched kernel launch (plus one
// upload of its chunk list), whatever the number of tensors; scaling is one kernel; the
// fusion and scratch buffers are device memory that grows and stays. Everything is queued on
// the GPU lane's stream (shared with the NCCL backend, so it runs in order with the
// collectives) and waited for with a deadline before returning.

#include <chrono>
#include <memory>
#include <vector>

#include "backends/cuda/cuda_stream.h"
#include "backends/memory_ops.h"

namespace hvd::backends::cuda {

/// Memory that frees itself: device memory (cudaMalloc) or pinned host memory (cudaMallocHost).
class CudaBuffer {
 public:
  enum class Kind { kDevice, kPinnedHost };
  explicit CudaBuffer(Kind kind) : kind_(kind) {}
  ~CudaBuffer() { release(); }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  /// At least `bytes` (contents not kept when it grows). Throws BackendError.
  void* reserve(size_t bytes);
  size_t bytes() const { return bytes_; }

 private:
  void release() noexcept;
  Kind kind_;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

class CudaMemory final : public MemoryOps {
 public:
  /// `timeout` bounds every wait on `stream`.
  CudaMemory(std::shared_ptr<CudaStream> stream, std::chrono::milliseconds timeout);
  ~CudaMemory() override;
  CudaMemory(const CudaMemory&) = delete;
  CudaMemory& operator=(const CudaMemory&) = delete;

  void copy(const std::vector<CopySegment>& segments) override;
  void scale(BufferView buf, double factor) override;
  void to_host(void* dst, const void* src, size_t bytes) override;
  void* buffer(BufferSlot slot, size_t bytes) override;
  size_t buffer_bytes(BufferSlot slot) const override;
  /// 16 bytes: the batched copy kernel moves aligned data as uint4 vectors.
  size_t fusion_alignment() const override { return 16; }

 private:
  void wait(const char* what) const { stream_->wait(timeout_, what); }

  std::shared_ptr<CudaStream> stream_;
  std::chrono::milliseconds timeout_;
  CudaBuffer fusion_{CudaBuffer::Kind::kDevice};
  CudaBuffer scratch_{CudaBuffer::Kind::kDevice};
  CudaBuffer chunks_{CudaBuffer::Kind::kDevice};              // the copy kernel's chunk list
  CudaBuffer chunks_staging_{CudaBuffer::Kind::kPinnedHost};  // its upload source
};

}  // namespace hvd::backends::cuda
