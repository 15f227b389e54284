// SPDX-License-Identifier: Apache-2.0
#pragma once
// PieceList: the tensors of a fused allreduce seen as one buffer of their concatenated
// elements, without copying them together. The ring phases address it by element offset, as
// they would a contiguous buffer, and get back the pieces of memory that a block covers: a
// block may begin or end inside a tensor and may span many of them. One contiguous buffer is
// a list of one piece.

#include <cstddef>
#include <vector>

#include "backends/ring/pieces.h"
#include "common/buffer.h"

namespace hvd::backends::ring {

class PieceList {
 public:
  /// The concatenation of `tensors` (all host memory of one dtype; any may be empty).
  explicit PieceList(const std::vector<BufferView>& tensors);
  /// One contiguous buffer.
  explicit PieceList(const BufferView& buf) : PieceList(std::vector<BufferView>{buf}) {}

  DataType dtype() const { return dtype_; }
  /// Elements in all pieces together.
  size_t count() const { return count_; }
  size_t bytes() const { return count_ * dtype_size(dtype_); }
  /// Every piece, in order.
  PieceSpan all() const { return {pieces_.data(), pieces_.size()}; }
  /// The pieces holding elements [first, first + n), written to `out` (its old contents go),
  /// which the returned span views. Requires first + n <= count().
  PieceSpan slice(size_t first, size_t n, std::vector<Piece>& out) const;
  /// The tensors, as given.
  const std::vector<BufferView>& tensors() const { return tensors_; }

 private:
  std::vector<BufferView> tensors_;
  std::vector<Piece> pieces_;   // non-empty tensors only
  std::vector<size_t> starts_;  // element offset of each piece
  DataType dtype_ = DataType::kFloat32;
  size_t count_ = 0;
};

}  // namespace hvd::backends::ring
