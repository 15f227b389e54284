// SPDX-License-Identifier: Apache-2.0
#pragma once
// Pieces: a message as an ordered list of runs of memory, so that a fused allreduce sends,
// receives and reduces the tensors where they lie instead of packing them into one buffer and
// out again. A contiguous buffer is a list of one piece: the transports and the ring phases
// have a single code path for both. Empty pieces are allowed and skipped.

#include <cstddef>
#include <utility>

namespace hvd::backends::ring {

/// `bytes` bytes at `data`. A piece that is only read (a send) is never written through.
struct Piece {
  char* data = nullptr;
  size_t bytes = 0;
};

/// Consecutive pieces, not owned.
struct PieceSpan {
  const Piece* first = nullptr;
  size_t size = 0;

  const Piece* begin() const { return first; }
  const Piece* end() const { return first + size; }
  size_t bytes() const {
    size_t n = 0;
    for (const Piece& p : *this) n += p.bytes;
    return n;
  }
};

/// A read or write position in a PieceSpan, advancing through its bytes in order.
class PieceCursor {
 public:
  explicit PieceCursor(PieceSpan span) : span_(span) { skip_empty(); }

  /// Calls fn(pointer, length) for each contiguous run of the next n bytes (n must not pass
  /// the end) and moves past them.
  template <typename Fn>
  void take(size_t n, Fn&& fn) {
    while (n > 0) {
      const Piece& p = span_.first[index_];
      const size_t len = p.bytes - offset_ < n ? p.bytes - offset_ : n;
      fn(p.data + offset_, len);
      offset_ += len;
      n -= len;
      skip_empty();
    }
  }

  /// Moves past the next n bytes.
  void skip(size_t n) {
    take(n, [](char*, size_t) {});
  }

  /// The contiguous run at the cursor, at most `max` bytes ({nullptr, 0} at the end).
  std::pair<char*, size_t> run(size_t max) const {
    if (index_ == span_.size) return {nullptr, 0};
    const Piece& p = span_.first[index_];
    return {p.data + offset_, p.bytes - offset_ < max ? p.bytes - offset_ : max};
  }

 private:
  // Moves past a finished piece and any empty ones after it.
  void skip_empty() {
    while (index_ < span_.size && offset_ == span_.first[index_].bytes) {
      ++index_;
      offset_ = 0;
    }
  }

  PieceSpan span_;
  size_t index_ = 0;
  size_t offset_ = 0;
};

}  // namespace hvd::backends::ring
