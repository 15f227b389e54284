// SPDX-License-Identifier: Apache-2.0
#pragma once
// LaneSelector: picks the lane (backend + memory operations) for a tensor by its device and
// dtype. Host tensors take the host lane. CUDA tensors take the GPU lane, which is created on
// the first CUDA response: creating it is collective (NCCL's communicator), and that is safe
// there because every rank executes the responses in the same order. A build without the GPU
// backend has no factory, and a CUDA tensor gets an error that says how to rebuild.
// Called only from the background loop.

#include <exception>
#include <functional>
#include <optional>

#include "backends/lane.h"
#include "hvd/tensor.h"

namespace hvd::core {

/// Makes the GPU lane for CUDA device `device`; collective (every rank calls it for the same
/// response). Throws hvd::Error subclasses.
using GpuLaneFactory = std::function<backends::Lane(Device device)>;

class LaneSelector {
 public:
  /// `gpu` empty: this libhvd has no GPU backend.
  LaneSelector(backends::Lane host, GpuLaneFactory gpu);

  /// The lane for tensors on `device` of `dtype`, to be reduced with `op` (kAverage is asked
  /// as the kSum it runs as). Throws ConfigError for a CUDA tensor in a build without the GPU
  /// backend, for a second CUDA device (one GPU per rank) and for what the lane's backend does
  /// not support; the GPU lane's creation error, again for every later CUDA tensor (the ranks
  /// would no longer agree on whether a communicator exists, so it is never retried).
  backends::Lane& select(Device device, DataType dtype, ReduceOp op);

  /// Sets the GPU lane's factory, before the first select() of a CUDA tensor (a process set's
  /// factory needs the set's channel, which exists only once the set does).
  void set_gpu_factory(GpuLaneFactory gpu) { gpu_factory_ = std::move(gpu); }

  /// The host lane's backend (a process set splits the MPI backend's communicator).
  backends::Backend& host_backend() { return *host_.backend; }

  /// Whether the GPU lane exists (created by an earlier select()).
  bool has_gpu_lane() const { return gpu_lane_.backend != nullptr; }

 private:
  backends::Lane& gpu_lane(Device device);

  backends::Lane host_;
  GpuLaneFactory gpu_factory_;
  backends::Lane gpu_lane_;
  std::optional<int> gpu_device_;   // the CUDA device the GPU lane was made for
  std::exception_ptr gpu_failure_;  // why the GPU lane could not be made
};

}  // namespace hvd::core
