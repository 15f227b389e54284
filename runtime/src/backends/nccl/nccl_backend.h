// SPDX-License-Identifier: Apache-2.0
#pragma once
// NcclBackend: the backend for CUDA tensors. Every call queues its NCCL operations on the GPU
// lane's stream (cuda_stream.h) and returns once they finished, polling the stream and NCCL's
// asynchronous error against a deadline: a peer that died makes the call abort the
// communicator and throw (BackendError, or TimeoutError after the deadline), never hang.
//
// Uneven allgatherv is a group of ncclBroadcasts (one per rank's block) and uneven
// reducescatter a group of ncclReduces; even counts take ncclAllGather/ncclReduceScatter.
// Alltoall is a group of ncclSend/ncclRecv; the block a rank keeps is copied on the stream.

#include <chrono>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/cuda_memory.h"
#include "backends/cuda/cuda_stream.h"
#include "backends/nccl/nccl_comm.h"

namespace hvd::backends::nccl {

class NcclBackend final : public Backend {
 public:
  /// Takes the communicator; `stream` is shared with the lane's CudaMemory so that copies,
  /// kernels and collectives run in order. `timeout` bounds every call.
  NcclBackend(std::shared_ptr<cuda::CudaStream> stream, std::unique_ptr<NcclComm> comm, int rank,
              int size, std::chrono::milliseconds timeout);
  ~NcclBackend() override;
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  std::string_view name() const override { return "nccl"; }
  /// Memory on the lane's CUDA device; every dtype; every op but kAverage.
  bool supports(Device device, DataType dtype, ReduceOp op) const override;

  void allreduce(BufferView buf, ReduceOp op) override;
  void broadcast(BufferView buf, int root) override;
  void allgatherv(BufferView in, BufferView out, const std::vector<size_t>& counts) override;
  void reducescatter(BufferView in, BufferView out, const std::vector<size_t>& counts,
                     ReduceOp op) override;
  void alltoall(BufferView in, const std::vector<size_t>& send_counts, BufferView out,
                const std::vector<size_t>& recv_counts) override;
  void barrier() override;

 private:
  // Waits until what was queued finished; aborts the communicator on error or timeout.
  void finish(const char* what);
  void check_counts(const std::vector<size_t>& counts, const char* what) const;

  std::shared_ptr<cuda::CudaStream> stream_;
  std::unique_ptr<NcclComm> comm_;
  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
  cuda::CudaBuffer barrier_word_{cuda::CudaBuffer::Kind::kDevice};
};

}  // namespace hvd::backends::nccl
