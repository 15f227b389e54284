// SPDX-License-Identifier: Apache-2.0
#pragma once
// Backend: moves and reduces bytes for one communicator (all ranks of the run). Knows nothing
// about tensor names, fusion or negotiation. Called only from the background loop, and every
// rank calls the same operations in the same order. Throws BackendError/TimeoutError on
// failure (a dead peer included), never hangs past its deadline.

#include <string_view>
#include <vector>

#include "common/buffer.h"
#include "hvd/error.h"
#include "hvd/tensor.h"

namespace hvd::backends {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  /// Capability probe used by the registry; must not communicate.
  virtual bool supports(Device device, DataType dtype, ReduceOp op) const = 0;

  /// In place. kAverage is never passed: the executor sums and scales.
  virtual void allreduce(BufferView buf, ReduceOp op) = 0;
  /// Whether allreduce_pieces() may be called: the backend reduces the tensors of a fused
  /// response where they lie. Otherwise (MPI and NCCL, whose libraries want one contiguous
  /// buffer) the executor packs them into its fusion buffer and calls allreduce().
  virtual bool reduces_pieces() const { return false; }
  /// In place: `tensors` (host memory, one dtype, any of them empty) reduced as one buffer
  /// of their concatenation. Only where reduces_pieces(); kAverage as for allreduce().
  virtual void allreduce_pieces(const std::vector<BufferView>& tensors, ReduceOp op) {
    (void)tensors;
    (void)op;
    HVD_CHECK(false, name(), " reduces only contiguous buffers (see reduces_pieces())");
  }
  /// In place: Horovod's Adasum (backends/adasum/vhdd.h) of `buf`, the concatenation of tensors
  /// of `tensor_counts` elements, each combined with its own coefficients. Only where
  /// supports(device, dtype, ReduceOp::kAdasum); allreduce() never gets kAdasum.
  virtual void adasum(BufferView buf, const std::vector<size_t>& tensor_counts) {
    (void)buf;
    (void)tensor_counts;
    HVD_CHECK(false, name(), " has no Adasum (see supports())");
  }
  virtual void broadcast(BufferView buf, int root) = 0;
  /// `out` holds counts[r] elements from each rank r, in rank order.
  virtual void allgatherv(BufferView in, BufferView out, const std::vector<size_t>& counts) = 0;
  /// Reduces `in` (sum of counts elements) and leaves block `rank` (counts[rank]) in `out`.
  virtual void reducescatter(BufferView in, BufferView out, const std::vector<size_t>& counts,
                             ReduceOp op) = 0;
  /// Sends send_counts[r] elements of `in` to rank r; receives recv_counts[r] from each.
  virtual void alltoall(BufferView in, const std::vector<size_t>& send_counts, BufferView out,
                        const std::vector<size_t>& recv_counts) = 0;
  virtual void barrier() = 0;
};

}  // namespace hvd::backends
