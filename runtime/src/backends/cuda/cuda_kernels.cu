// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <limits>

#include "backends/cuda/cuda_error.h"

namespace hvd::backends::cuda {
namespace {

constexpr unsigned kThreads = 256;
// Enough blocks to fill an H100 (132 SMs) several times over; the grid-stride loops cover the
// rest.
constexpr size_t kMaxBlocks = 4096;

unsigned blocks_for(size_t items) {
  const size_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

// One block per chunk (grid-stride over chunks). When source and destination share their
// alignment modulo 16, a byte head brings both to 16 bytes and the body moves uint4 vectors.
__global__ void batched_copy_kernel(const CopySegment* chunks, size_t count) {
  for (size_t c = blockIdx.x; c < count; c += gridDim.x) {
    const CopySegment s = chunks[c];
    const char* src = static_cast<const char*>(s.src);
    char* dst = static_cast<char*>(s.dst);
    const size_t n = s.bytes;
    const uintptr_t misalign = reinterpret_cast<uintptr_t>(src) & 15u;
    if (misalign != (reinterpret_cast<uintptr_t>(dst) & 15u)) {
      for (size_t i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
      continue;
    }
    size_t head = (16u - misalign) & 15u;
    if (head > n) head = n;
    for (size_t i = threadIdx.x; i < head; i += blockDim.x) dst[i] = src[i];
    const size_t vectors = (n - head) / 16;
    const uint4* vsrc = reinterpret_cast<const uint4*>(src + head);
    uint4* vdst = reinterpret_cast<uint4*>(dst + head);
    for (size_t i = threadIdx.x; i < vectors; i += blockDim.x) vdst[i] = vsrc[i];
    for (size_t i = head + vectors * 16 + threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
  }
}

template <typename T>
__global__ void scale_floating_kernel(T* data, size_t n, T factor) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    data[i] = data[i] * factor;
  }
}

__global__ void scale_half_kernel(__half* data, size_t n, float factor) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    data[i] = __float2half_rn(__half2float(data[i]) * factor);
  }
}

__global__ void scale_bfloat16_kernel(__nv_bfloat16* data, size_t n, float factor) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    data[i] = __float2bfloat16_rn(__bfloat162float(data[i]) * factor);
  }
}

// The type's range is passed in (as T and as double) because numeric_limits is not device
// code.
template <typename T>
__global__ void scale_integer_kernel(T* data, size_t n, double factor, T min_value, T max_value) {
  const double lo = static_cast<double>(min_value);
  const double hi = static_cast<double>(max_value);
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    const double x = static_cast<double>(data[i]) * factor;
    if (x != x) {
      data[i] = 0;
    } else if (x <= lo) {
      data[i] = min_value;
    } else if (x >= hi) {
      data[i] = max_value;
    } else {
      data[i] = static_cast<T>(x);  // truncates toward zero
    }
  }
}

template <typename T>
void scale_integer(void* data, size_t n, double factor, cudaStream_t stream) {
  scale_integer_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(data), n, factor,
                                                                  std::numeric_limits<T>::min(),
                                                                  std::numeric_limits<T>::max());
}

}  // namespace

void launch_batched_copy(const CopySegment* chunks, size_t count, cudaStream_t stream) {
  if (count == 0) return;
  const unsigned blocks = static_cast<unsigned>(count < kMaxBlocks ? count : kMaxBlocks);
  batched_copy_kernel<<<blocks, kThreads, 0, stream>>>(chunks, count);
  HVD_CUDA_CHECK(cudaGetLastError());
}

void launch_scale(void* data, size_t count, DataType dtype, double factor, cudaStream_t stream) {
  if (count == 0) return;
  const unsigned blocks = blocks_for(count);
  switch (dtype) {
    case DataType::kUInt8:
      scale_integer<uint8_t>(data, count, factor, stream);
      break;
    case DataType::kInt8:
      scale_integer<int8_t>(data, count, factor, stream);
      break;
    case DataType::kInt16:
      scale_integer<int16_t>(data, count, factor, stream);
      break;
    case DataType::kInt32:
      scale_integer<int32_t>(data, count, factor, stream);
      break;
    case DataType::kInt64:
      scale_integer<int64_t>(data, count, factor, stream);
      break;
    case DataType::kFloat16: {
      // As Horovod's GPU scaling (__hmul by __float2half(factor)): the factor rounded to half.
      // The product of two halves is exact in float, so one rounding gives __hmul's result.
      const float half_factor = __half2float(__float2half_rn(static_cast<float>(factor)));
      scale_half_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__half*>(data), count,
                                                         half_factor);
      break;
    }
    case DataType::kBFloat16:
      scale_bfloat16_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data),
                                                             count, static_cast<float>(factor));
      break;
    case DataType::kFloat32:
      scale_floating_kernel<float><<<blocks, kThreads, 0, stream>>>(
          static_cast<float*>(data), count, static_cast<float>(factor));
      break;
    case DataType::kFloat64:
      scale_floating_kernel<double>
          <<<blocks, kThreads, 0, stream>>>(static_cast<double*>(data), count, factor);
      break;
  }
  HVD_CUDA_CHECK(cudaGetLastError());
}

}  // namespace hvd::backends::cuda
