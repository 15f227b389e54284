// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_memory.h"

#include <algorithm>
#include <cstring>

#include "backends/copy_plan.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/cuda_kernels.h"

namespace hvd::backends::cuda {

void* CudaBuffer::reserve(size_t bytes) {
  if (bytes <= bytes_ && data_ != nullptr) return data_;
  release();
  // Grow by at least half again, so that a slowly growing fusion size does not reallocate on
  // every step; at least 256 bytes, so that an empty request still gets a valid pointer.
  const size_t want = std::max({bytes, bytes_ + bytes_ / 2, size_t{256}});
  if (kind_ == Kind::kDevice) {
    HVD_CUDA_CHECK(cudaMalloc(&data_, want));
  } else {
    HVD_CUDA_CHECK(cudaMallocHost(&data_, want));
  }
  bytes_ = want;
  return data_;
}

void CudaBuffer::release() noexcept {
  if (data_ == nullptr) return;
  // cudaFree waits for the device; errors cannot be reported from here and change nothing.
  if (kind_ == Kind::kDevice) {
    (void)cudaFree(data_);
  } else {
    (void)cudaFreeHost(data_);
  }
  data_ = nullptr;
  bytes_ = 0;
}

CudaMemory::CudaMemory(std::shared_ptr<CudaStream> stream, std::chrono::milliseconds timeout)
    : stream_(std::move(stream)), timeout_(timeout) {}

CudaMemory::~CudaMemory() {
  // The buffers belong to the stream's device, whichever thread destroys them.
  (void)cudaSetDevice(stream_->device());
}

void CudaMemory::copy(const std::vector<CopySegment>& segments) {
  if (segments.empty()) return;
  if (segments.size() == 1) {
    const CopySegment& s = segments[0];
    HVD_CUDA_CHECK(cudaMemcpyAsync(s.dst, s.src, s.bytes, cudaMemcpyDefault, stream_->get()));
    return wait("a CUDA copy");
  }
  const std::vector<CopySegment> chunks = plan_copy_chunks(segments, kCopyChunkBytes);
  const size_t list_bytes = chunks.size() * sizeof(CopySegment);
  // The staging buffer is free again: every earlier upload was waited for.
  void* staging = chunks_staging_.reserve(list_bytes);
  std::memcpy(staging, chunks.data(), list_bytes);
  void* list = chunks_.reserve(list_bytes);
  HVD_CUDA_CHECK(
      cudaMemcpyAsync(list, staging, list_bytes, cudaMemcpyHostToDevice, stream_->get()));
  launch_batched_copy(static_cast<const CopySegment*>(list), chunks.size(), stream_->get());
  wait("the batched CUDA copy");
}

void CudaMemory::scale(BufferView buf, double factor) {
  launch_scale(buf.data, buf.count, buf.dtype, factor, stream_->get());
  wait("a CUDA scale kernel");
}

void CudaMemory::to_host(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  HVD_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_->get()));
  wait("a copy from the GPU");
}

void* CudaMemory::buffer(BufferSlot slot, size_t bytes) {
  return (slot == BufferSlot::kFusion ? fusion_ : scratch_).reserve(bytes);
}

size_t CudaMemory::buffer_bytes(BufferSlot slot) const {
  return (slot == BufferSlot::kFusion ? fusion_ : scratch_).bytes();
}

}  // namespace hvd::backends::cuda
