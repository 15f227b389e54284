// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/ring_backend.h"

#include "backends/adasum/vhdd.h"
#include "backends/ring/collectives.h"

namespace hvd::backends::ring {

void RingBackend::allreduce(BufferView buf, ReduceOp op) { ring::allreduce(*transport_, buf, op); }
void RingBackend::allreduce_pieces(const std::vector<BufferView>& tensors, ReduceOp op) {
  ring::allreduce(*transport_, PieceList(tensors), op);
}
void RingBackend::adasum(BufferView buf, const std::vector<size_t>& tensor_counts) {
  Transport& t = *transport_;
  adasum::allreduce(
      t.rank(), t.size(), buf, tensor_counts,
      [&t](int peer, const void* send, size_t send_bytes, void* recv, size_t recv_bytes) {
        t.send_recv(peer, send, send_bytes, peer, recv, recv_bytes);
      },
      adasum_scratch_);
}
void RingBackend::broadcast(BufferView buf, int root) { ring::broadcast(*transport_, buf, root); }
void RingBackend::allgatherv(BufferView in, BufferView out, const std::vector<size_t>& counts) {
  ring::allgatherv(*transport_, in, out, counts);
}
void RingBackend::reducescatter(BufferView in, BufferView out, const std::vector<size_t>& counts,
                                ReduceOp op) {
  ring::reducescatter(*transport_, in, out, counts, op);
}
void RingBackend::alltoall(BufferView in, const std::vector<size_t>& send_counts, BufferView out,
                           const std::vector<size_t>& recv_counts) {
  ring::alltoall(*transport_, in, send_counts, out, recv_counts);
}
void RingBackend::barrier() { ring::barrier(*transport_); }

}  // namespace hvd::backends::ring
