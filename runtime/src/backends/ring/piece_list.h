// SPDX-License-Identifier: Apache-2.0
#pragma once
// PieceList: the tensors of a fused allreduce seen as one buffer of their concatenated
// elements, without copying them together. The ring phases cut it into blocks by element
// offset, as they would a contiguous buffer (BlockPieces, ring_phases.h): a block may begin
// or end inside a tensor and may span many of them. One contiguous buffer is a list of one
// piece, held without allocating (small allreduces are latency-bound).

#include <cstddef>
#include <vector>

#include "common/buffer.h"
#include "transport/pieces.h"

namespace hvd::backends::ring {

class PieceList {
 public:
  /// The concatenation of `tensors` (all host memory of one dtype; any may be empty).
  /// Tensors that follow each other in memory become one piece.
  explicit PieceList(const std::vector<BufferView>& tensors);
  /// One contiguous buffer (host memory).
  explicit PieceList(const BufferView& buf);

  DataType dtype() const { return dtype_; }
  /// Elements in all pieces together.
  size_t count() const { return count_; }
  size_t bytes() const { return count_ * dtype_size(dtype_); }
  /// Every non-empty piece, in order.
  PieceSpan all() const {
    if (!many_.empty()) return {many_.data(), many_.size()};
    return {&one_, one_.bytes > 0 ? size_t{1} : size_t{0}};
  }

 private:
  Piece one_;                // the piece of a contiguous buffer
  std::vector<Piece> many_;  // or those of the non-empty tensors, adjacent ones merged
  DataType dtype_ = DataType::kFloat32;
  size_t count_ = 0;
};

}  // namespace hvd::backends::ring
