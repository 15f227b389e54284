// SPDX-License-Identifier: Apache-2.0
#pragma once
// CudaStream: the one non-blocking stream on which libhvd's GPU lane queues everything (NCCL
// collectives and the copy and scale kernels), so that they run in order without ever
// synchronising with the caller's streams or the legacy default stream. Waiting polls with a
// deadline instead of blocking in cudaStreamSynchronize, so that a collective whose peer died
// ends in an error instead of a hang. Used only from the background loop's thread.

#include <cuda_runtime.h>

#include <chrono>
#include <functional>

namespace hvd::backends::cuda {

class CudaStream {
 public:
  /// Makes `device` current on the calling thread and creates the stream on it. Throws
  /// BackendError (no such device, no driver).
  explicit CudaStream(int device);
  ~CudaStream();
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return stream_; }
  int device() const { return device_; }

  /// Returns once all the work queued so far has finished. `enqueued` (may be empty) runs on
  /// every round first: it returns false while work is still being queued (a non-blocking NCCL
  /// call in progress) and throws to stop waiting (NCCL's asynchronous errors). Throws
  /// BackendError for a CUDA error and TimeoutError, naming `what`, when `timeout` passes.
  void wait(std::chrono::milliseconds timeout, const char* what,
            const std::function<bool()>& enqueued = {}) const;

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
};

/// Polls `done` until it returns true, calling it as often as is cheap for the first
/// microseconds (small collectives finish in a few) and then every 50 microseconds. Throws
/// TimeoutError "<what> did not finish within N s" when `timeout` passes first.
void poll_until(std::chrono::milliseconds timeout, const char* what,
                const std::function<bool()>& done);

}  // namespace hvd::backends::cuda
