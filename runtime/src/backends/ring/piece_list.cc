// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/piece_list.h"

#include <algorithm>

#include "hvd/error.h"

namespace hvd::backends::ring {

PieceList::PieceList(const std::vector<BufferView>& tensors) {
  if (!tensors.empty()) dtype_ = tensors.front().dtype;
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
      starts_.push_back(count_);
    }
    count_ += t.count;
  }
}

PieceList::PieceList(const BufferView& buf)
    : one_{static_cast<char*>(buf.data), buf.bytes()}, dtype_(buf.dtype), count_(buf.count) {
  HVD_CHECK(buf.device.is_cpu(), "a piece list needs host memory, not device ", buf.device.index);
}

PieceSpan PieceList::slice(size_t first, size_t n, std::vector<Piece>& out) const {
  HVD_CHECK(first <= count_ && n <= count_ - first, "elements [", first, ", ", first + n,
            ") of a piece list of ", count_);
  out.clear();
  if (n == 0) return {};
  const size_t es = dtype_size(dtype_);
  if (many_.empty()) {
    out.push_back(Piece{one_.data + first * es, n * es});
    return {out.data(), 1};
  }
  // The last piece starting at or before `first`: the one that holds it.
  auto i = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), first) -
                               starts_.begin()) -
           1;
  size_t at = first;
  const size_t end = first + n;
  for (; at < end; ++i) {
    const size_t piece_end = starts_[i] + many_[i].bytes / es;
    const size_t stop = std::min(end, piece_end);
    out.push_back(Piece{many_[i].data + (at - starts_[i]) * es, (stop - at) * es});
    at = stop;
  }
  return {out.data(), out.size()};
}

}  // namespace hvd::backends::ring
