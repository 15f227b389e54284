// SPDX-License-Identifier: Apache-2.0
#pragma once
// Horovod's Adasum allreduce (op=hvd.Adasum) by vector halving and distance doubling (VHDD), as
// Horovod's adasum.h does it, over any pairwise byte exchange (the ring's transport, MPI):
//
//   level 1, 2, 4, ... < size: rank r and rank r ^ level split the segment of the buffer they
//     both hold: the rank without bit `level` keeps the first half, the other the second, and
//     each sends the half it gives up. The 2 * level ranks that share r / (2 * level) now hold
//     disjoint pieces of two partial results, L (their lower half's) and R (the upper half's):
//     they sum each tensor's piece-wise L.R, |L|^2 and |R|^2 (recursive doubling over rank ^ m,
//     m <= level), and each combines its piece into
//       (1 - L.R / (2|L|^2)) L + (1 - L.R / (2|R|^2)) R        (kernels.h)
//   then, levels in reverse: each rank swaps its finished piece with rank ^ level, so that every
//   rank ends with the whole result.
//
// The ranks therefore combine in Horovod's tree: (0,1), (2,3), ... first, then pairs of pairs.
// Each tensor of a fused buffer has its own coefficients. A rank sends about twice the buffer in
// all, in 2 log2(size) steps, and talks only to ranks r ^ 2^k: the recursive-doubling peers
// (transport/ring_peers.h). Every rank of a group computes the same sums in the same order, so
// the ranks end with bitwise-identical results.

#include <cstddef>
#include <functional>
#include <vector>

#include "common/buffer.h"

namespace hvd::backends::adasum {

/// Sends `send_bytes` of `send` to rank `peer` while receiving `recv_bytes` into `recv` from it.
/// Either side may be 0 bytes; `send` and `recv` never overlap.
using PairExchange =
    std::function<void(int peer, const void* send, size_t send_bytes, void* recv, size_t recv_bytes)>;

/// Whether Adasum can run among `size` ranks (a power of two, as Horovod requires).
bool supports_size(int size);

/// In place on every rank: `buf` (host memory, float16/32/64; the concatenation of tensors of
/// `tensor_counts` elements) becomes the Adasum of all ranks' bufs. Every rank calls it with the
/// same counts. `scratch` is reused between calls. ConfigError when !supports_size(size);
/// the exchange's errors pass through.
void allreduce(int rank, int size, BufferView buf, const std::vector<size_t>& tensor_counts,
               const PairExchange& exchange, std::vector<char>& scratch);

}  // namespace hvd::backends::adasum
