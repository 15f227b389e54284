// SPDX-License-Identifier: Apache-2.0
#pragma once
// RingBackend: the built-in backend for host tensors: ring collectives over a Transport
// (shared memory between ranks of one host, TCP across hosts). Needs no MPI.

#include <memory>
#include <string>
#include <vector>

#include "backends/adasum/kernels.h"
#include "backends/backend.h"
#include "transport/transport.h"

namespace hvd::backends::ring {

class RingBackend : public Backend {
 public:
  /// `label` says which transport it runs on ("shm" or "tcp"), for check-build and timelines.
  RingBackend(std::unique_ptr<Transport> transport, std::string label)
      : transport_(std::move(transport)), name_("ring/" + label) {}

  std::string_view name() const override { return name_; }
  bool supports(Device device, DataType dtype, ReduceOp op) const override {
    if (op == ReduceOp::kAdasum) return device.is_cpu() && adasum::supports_dtype(dtype);
    return device.is_cpu() && op != ReduceOp::kAverage;
  }
  void allreduce(BufferView buf, ReduceOp op) override;
  bool reduces_pieces() const override { return true; }
  void allreduce_pieces(const std::vector<BufferView>& tensors, ReduceOp op) override;
  void adasum(BufferView buf, const std::vector<size_t>& tensor_counts) override;
  void broadcast(BufferView buf, int root) override;
  void allgatherv(BufferView in, BufferView out, const std::vector<size_t>& counts) override;
  void reducescatter(BufferView in, BufferView out, const std::vector<size_t>& counts,
                     ReduceOp op) override;
  void alltoall(BufferView in, const std::vector<size_t>& send_counts, BufferView out,
                const std::vector<size_t>& recv_counts) override;
  void barrier() override;

  Transport& transport() { return *transport_; }

 private:
  std::unique_ptr<Transport> transport_;
  std::string name_;
  std::vector<char> adasum_scratch_;
};

}  // namespace hvd::backends::ring
