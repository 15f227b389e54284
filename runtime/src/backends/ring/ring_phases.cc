// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/ring_phases.h"

#include <algorithm>
#include <cstring>

#include "hvd/error.h"

namespace hvd::backends::ring {
namespace {

// Index of block (rank - k) modulo n, for k in [0, 2n).
size_t behind(int rank, int k, int n) { return static_cast<size_t>((rank - k + 2 * n) % n); }

}  // namespace

Blocks even_blocks(size_t total, int n) {
  Blocks b;
  const auto ranks = static_cast<size_t>(n);
  size_t at = 0;
  for (size_t r = 0; r < ranks; ++r) {
    const size_t c = total / ranks + (r < total % ranks ? 1 : 0);
    b.offset.push_back(at);
    b.count.push_back(c);
    at += c;
  }
  return b;
}

Blocks blocks_of(const std::vector<size_t>& counts) {
  Blocks b;
  size_t at = 0;
  for (const size_t c : counts) {
    b.offset.push_back(at);
    b.count.push_back(c);
    at += c;
  }
  return b;
}

BlockPieces::BlockPieces(const PieceList& list, const Blocks& blocks) : dtype_(list.dtype()) {
  const size_t n = blocks.count.size();
  const size_t es = dtype_size(dtype_);
  const PieceSpan all = list.all();  // no empty pieces
  // A cut inside a piece adds one: at most one per block boundary. Written in place through
  // `out`, then trimmed (as PieceList's constructor, for the same reason).
  pieces_.resize(all.size + n);
  Piece* out = pieces_.data();
  first_.reserve(n + 1);
  size_t i = 0;       // the piece at the cut
  size_t within = 0;  // bytes of it before the cut
  size_t next = 0;    // element offset where block b must start
  for (size_t b = 0; b < n; ++b) {
    HVD_CHECK(blocks.offset[b] == next && blocks.count[b] <= list.count() - next, "block ", b,
              " at ", blocks.offset[b], " of ", blocks.count[b], " elements after ", next, " of ",
              list.count());
    first_.push_back(static_cast<size_t>(out - pieces_.data()));
    for (size_t left = blocks.count[b] * es; left > 0;) {
      const Piece& p = all.first[i];
      const size_t len = std::min(p.bytes - within, left);
      out->data = p.data + within;
      out->bytes = len;
      ++out;
      left -= len;
      within += len;
      if (within == p.bytes) {
        ++i;
        within = 0;
      }
    }
    next += blocks.count[b];
  }
  HVD_CHECK(next == list.count(), n, " blocks cover ", next, " of ", list.count(), " elements");
  pieces_.resize(static_cast<size_t>(out - pieces_.data()));
  first_.push_back(pieces_.size());
}

void ring_reduce_scatter(Transport& t, const BlockPieces& buf, ReduceOp op) {
  const int n = t.size();
  const int r = t.rank();
  HVD_CHECK(buf.blocks() == static_cast<size_t>(n), buf.blocks(), " blocks for ", n, " ranks");
  // Step s: send block r-s-1 (holding s+1 contributions) to r+1; receive block r-s-2 from
  // r-1 and fold it in. After n-1 steps block r holds all n contributions.
  for (int s = 0; s + 1 < n; ++s) {
    t.send_recv_reduce((r + 1) % n, buf.block(behind(r, s + 1, n)), (r + n - 1) % n,
                       buf.block(behind(r, s + 2, n)), buf.dtype(), op);
  }
}

void ring_reduce_scatter_to(Transport& t, const BufferView& in, BufferView out,
                            const Blocks& blocks, ReduceOp op) {
  const int n = t.size();
  const int r = t.rank();
  const size_t es = dtype_size(in.dtype);
  const auto own = static_cast<size_t>(r);
  HVD_CHECK(out.count == blocks.count[own], "output of ", out.count, " elements for a block of ",
            blocks.count[own]);
  if (n == 1) {
    if (out.count > 0) std::memcpy(out.data, in.slice(blocks.offset[0], 0).data, out.bytes());
    return;
  }
  const size_t largest = *std::max_element(blocks.count.begin(), blocks.count.end());
  std::vector<char> scratch(2 * largest * es);
  char* spare[2] = {scratch.data(), scratch.data() + largest * es};
  const void* carry = nullptr;  // block r-s-1 reduced over s+1 ranks
  // Same schedule as ring_reduce_scatter, but each block is accumulated in scratch from a
  // copy of this rank's contribution, and the last one (block r) directly in `out`.
  for (int s = 0; s + 1 < n; ++s) {
    const size_t send = behind(r, s + 1, n);
    const size_t recv = behind(r, s + 2, n);
    void* acc = s + 2 == n ? out.data : spare[s % 2];
    if (blocks.count[recv] > 0) {
      std::memcpy(acc, in.slice(blocks.offset[recv], 0).data, blocks.count[recv] * es);
    }
    const void* src = s == 0 ? in.slice(blocks.offset[send], 0).data : carry;
    t.send_recv_reduce((r + 1) % n, src, blocks.count[send] * es, (r + n - 1) % n, acc,
                       blocks.count[recv], in.dtype, op);
    carry = acc;
  }
}

void ring_allgather(Transport& t, const BlockPieces& buf) {
  const int n = t.size();
  const int r = t.rank();
  HVD_CHECK(buf.blocks() == static_cast<size_t>(n), buf.blocks(), " blocks for ", n, " ranks");
  // Step s: forward block r-s (received in step s-1, or our own) to r+1; receive r-s-1.
  for (int s = 0; s + 1 < n; ++s) {
    t.send_recv((r + 1) % n, buf.block(behind(r, s, n)), (r + n - 1) % n,
                buf.block(behind(r, s + 1, n)));
  }
}

}  // namespace hvd::backends::ring
