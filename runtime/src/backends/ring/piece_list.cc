// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/piece_list.h"

#include "hvd/error.h"

namespace hvd::backends::ring {

PieceList::PieceList(const std::vector<BufferView>& tensors) {
  if (!tensors.empty()) dtype_ = tensors.front().dtype;
  // Written in place through `out`, then trimmed: push_back of each Piece cost more than the
  // rest of building a list of 100 tensors (a stall on the Piece it assembles on the stack).
  many_.resize(tensors.size());
  Piece* out = many_.data();
  for (const BufferView& t : tensors) {
    HVD_CHECK(t.dtype == dtype_ && t.device.is_cpu(),
              "a piece list needs host tensors of one dtype");
    if (t.count == 0) continue;
    char* data = static_cast<char*>(t.data);
    // A tensor that starts where the last piece ends extends it: tensors carved out of one
    // allocation (a framework's gradient bucket) move as one run, copied and reduced in one
    // call instead of one per tensor.
    if (out != many_.data() && out[-1].data + out[-1].bytes == data) {
      out[-1].bytes += t.bytes();
    } else {
      out->data = data;
      out->bytes = t.bytes();
      ++out;
    }
    count_ += t.count;
  }
  many_.resize(static_cast<size_t>(out - many_.data()));
}

PieceList::PieceList(const BufferView& buf)
    : one_{static_cast<char*>(buf.data), buf.bytes()}, dtype_(buf.dtype), count_(buf.count) {
  HVD_CHECK(buf.device.is_cpu(), "a piece list needs host memory, not device ", buf.device.index);
}

}  // namespace hvd::backends::ring
