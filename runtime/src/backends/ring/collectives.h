// SPDX-License-Identifier: Apache-2.0
#pragma once
// Collective algorithms over a Transport. They see only ranks and byte exchanges, never a
// socket or a segment, so each runs unchanged over TCP, shared memory or a test fake.
//
// Every rank of the transport must call the same collective with the same counts, dtype,
// op, root and options, in the same order. Buffers are host memory. Any rank count and any
// element count (including 0, and fewer elements than ranks) works. Errors: the transport's
// TimeoutError/BackendError pass through; inconsistent arguments (a counts vector of the
// wrong length, an output of the wrong size) are bugs and raise InternalError via HVD_CHECK.
// All ranks end with bitwise-identical allreduce results (each element is reduced in one
// order and then copied), except for min/max of +0 and -0.

#include <cstddef>
#include <vector>

#include "backends/ring/piece_list.h"
#include "common/buffer.h"
#include "transport/transport.h"

namespace hvd::backends::ring {

struct CollectiveOptions {
  /// Messages of at most this many bytes take the latency-optimal algorithm (recursive
  /// doubling for allreduce, a binomial tree for broadcast); larger ones the bandwidth-
  /// optimal ring (reduce-scatter + allgather; scatter + allgather).
  size_t small_bytes = size_t{64} << 10;
};

/// In place: every rank's buf becomes the element-wise reduction of all ranks' bufs.
/// kAverage is a sum followed by a division by size() (exact truncating division for
/// integer types).
void allreduce(Transport& t, BufferView buf, ReduceOp op, const CollectiveOptions& opts = {});
/// The same over the concatenation of buf's tensors, each reduced where it lies (a fused
/// response without a fusion buffer); opts.small_bytes compares with their total.
void allreduce(Transport& t, const PieceList& buf, ReduceOp op, const CollectiveOptions& opts = {});

/// In place: every rank's buf becomes root's buf.
void broadcast(Transport& t, BufferView buf, int root, const CollectiveOptions& opts = {});

/// out (sum(counts) elements) becomes the concatenation, in rank order, of every rank's
/// `mine` (counts[rank] elements). `mine` may be the matching slice of `out`.
void allgatherv(Transport& t, const BufferView& mine, BufferView out,
                const std::vector<size_t>& counts);

/// Reduces `in` (sum(counts) elements, unchanged) over all ranks and leaves block `rank`
/// (counts[rank] elements, at offset sum(counts[0..rank))) in `out`. in and out must not
/// overlap.
void reducescatter(Transport& t, const BufferView& in, BufferView out,
                   const std::vector<size_t>& counts, ReduceOp op);

/// Sends send_counts[j] elements (consecutive blocks of `send`, in rank order) to each rank
/// j and receives recv_counts[j] elements from each rank j into consecutive blocks of
/// `recv`. send_counts[j] on this rank must equal recv_counts[rank] on rank j. send and
/// recv must not overlap.
void alltoall(Transport& t, const BufferView& send, const std::vector<size_t>& send_counts,
              BufferView recv, const std::vector<size_t>& recv_counts);

/// Returns once every rank has entered it (dissemination barrier, ceil(log2 size) rounds).
void barrier(Transport& t);

}  // namespace hvd::backends::ring
