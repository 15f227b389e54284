// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two halves of a ring collective, shared by allreduce, broadcast, allgatherv and
// reducescatter (collectives.cc). Rank r sends to r+1 and receives from r-1 in each of the
// size-1 steps; each step is one full-duplex send_recv, and the transports move a block in
// pieces, reducing each piece as it arrives, so transfer and reduction are pipelined.
// The in-place phases work on a PieceList cut into blocks (BlockPieces): a block may cover
// parts of several tensors of a fused response, which are then sent and reduced where they lie.

#include <cstddef>
#include <vector>

#include "backends/ring/piece_list.h"
#include "common/buffer.h"
#include "transport/transport.h"

namespace hvd::backends::ring {

/// Block r of a buffer: elements [offset[r], offset[r] + count[r]).
struct Blocks {
  std::vector<size_t> offset;
  std::vector<size_t> count;
};

/// `total` elements split into n blocks whose sizes differ by at most one.
Blocks even_blocks(size_t total, int n);
/// Consecutive blocks of the given sizes.
Blocks blocks_of(const std::vector<size_t>& counts);

/// The pieces of a PieceList cut at the boundaries of consecutive blocks that cover it, so
/// that each block is a run of whole pieces the transports take as they are. Cut once per
/// collective: slicing the list again for every send and receive cost more than moving a
/// fused response's small tensors.
class BlockPieces {
 public:
  /// Requires blocks that start at 0, follow each other and end at list.count().
  BlockPieces(const PieceList& list, const Blocks& blocks);

  DataType dtype() const { return dtype_; }
  size_t blocks() const { return first_.size() - 1; }
  /// The pieces of block b, in order (none for an empty block).
  PieceSpan block(size_t b) const {
    return {pieces_.data() + first_[b], first_[b + 1] - first_[b]};
  }

 private:
  std::vector<Piece> pieces_;
  std::vector<size_t> first_;  // block b is pieces_[first_[b], first_[b + 1])
  DataType dtype_;
};

/// In place, one block per rank. Afterwards block `rank` of buf holds the reduction of that
/// block over all ranks (other blocks hold partial results).
void ring_reduce_scatter(Transport& t, const BlockPieces& buf, ReduceOp op);

/// Reads `in` (all blocks, unchanged) and leaves the reduction of block `rank` over all
/// ranks in `out`, using two block-sized scratch buffers instead of a copy of `in`.
void ring_reduce_scatter_to(Transport& t, const BufferView& in, BufferView out,
                            const Blocks& blocks, ReduceOp op);

/// In place, one block per rank. Before: block `rank` of buf is this rank's. After: every
/// block is everyone's.
void ring_allgather(Transport& t, const BlockPieces& buf);

}  // namespace hvd::backends::ring
