// SPDX-License-Identifier: Apache-2.0
#include "control/vote_fold.h"

#include <cstdint>

namespace hvd::control {

bool can_fold(const Response& r) {
  if (r.kind != Response::Kind::kRun || r.type != OpType::kAllreduce || r.names.size() != 1 ||
      r.counts.size() != 1 || r.group != -1 || r.with_joined || r.op == ReduceOp::kAdasum) {
    return false;
  }
  // A count from a peer's response is checked before it is multiplied.
  const int64_t count = r.counts[0];
  const size_t element = dtype_size(r.dtype);
  return element > 0 && count > 0 && static_cast<uint64_t>(count) <= kFoldBytes / element;
}

size_t fold_bytes(const Response& r) {
  return static_cast<size_t>(r.counts[0]) * dtype_size(r.dtype);
}

}  // namespace hvd::control
