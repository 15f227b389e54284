// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_stream.h"

#include <thread>

#include "backends/cuda/cuda_error.h"
#include "hvd/error.h"

namespace hvd::backends::cuda {

CudaStream::CudaStream(int device) : device_(device) {
  HVD_CUDA_CHECK(cudaSetDevice(device));
  HVD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

CudaStream::~CudaStream() {
  // Errors are ignored: the stream goes away either way, and a destructor must not throw.
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

void CudaStream::wait(std::chrono::milliseconds timeout, const char* what,
                      const std::function<bool()>& enqueued) const {
  poll_until(timeout, what, [&] {
    if (enqueued && !enqueued()) return false;
    const cudaError_t state = cudaStreamQuery(stream_);
    if (state == cudaErrorNotReady) return false;
    HVD_CUDA_CHECK(state);
    return true;
  });
}

void poll_until(std::chrono::milliseconds timeout, const char* what,
                const std::function<bool()>& done) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto spin_until = start + std::chrono::microseconds(200);
  const auto deadline = start + timeout;
  while (!done()) {
    const auto now = Clock::now();
    if (now >= deadline) {
      throw TimeoutError(str_cat(what, " did not finish within ", timeout.count() / 1000.0, " s (",
                                 "a rank that died or stopped calling libhvd stalls "
                                 "every collective; HVD_NCCL_TIMEOUT sets this limit)"));
    }
    if (now < spin_until) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

}  // namespace hvd::backends::cuda
