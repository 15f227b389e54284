// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/piece_list.h"

#include "hvd/error.h"

namespace hvd::backends::ring {

PieceList::PieceList(const std::vector<BufferView>& tensors) {
  if (!tensors.empty()) dtype_ = tensors.front().dtype;
  // One allocation: growing by doubling cost more than the rest of building a list of 100.
  many_.reserve(tensors.size());
  for (const BufferView& t : tensors) {
    HVD_CHECK(t.dtype == dtype_ && t.device.is_cpu(),
              "a piece list needs host tensors of one dtype");
    if (t.count == 0) continue;
    char* data = static_cast<char*>(t.data);
    // A tensor that starts where the last piece ends extends it: tensors carved out of one
    // allocation (a framework's gradient bucket) move as one run, copied and reduced in one
    // call instead of one per tensor.
    if (!many_.empty() && many_.back().data + many_.back().bytes == data) {
      many_.back().bytes += t.bytes();
    } else {
      many_.push_back(Piece{data, t.bytes()});
    }
    count_ += t.count;
  }
}

PieceList::PieceList(const BufferView& buf)
    : one_{static_cast<char*>(buf.data), buf.bytes()}, dtype_(buf.dtype), count_(buf.count) {
  HVD_CHECK(buf.device.is_cpu(), "a piece list needs host memory, not device ", buf.device.index);
}

}  // namespace hvd::backends::ring
