// SPDX-License-Identifier: Apache-2.0
#include "core/join_zeros.h"

#include <memory>

namespace hvd::core {

std::vector<TensorEntry> JoinZeros::entries_for(const control::Response& response,
                                                TensorQueue& queue) {
  std::vector<TensorEntry> entries;
  entries.reserve(response.names.size());
  for (size_t i = 0; i < response.names.size(); ++i) {
    if (std::optional<TensorEntry> own = queue.take_if_queued(0, response.names[i])) {
      entries.push_back(std::move(*own));
      continue;
    }
    // Only allreduces on host memory run with joined ranks (the coordinator fails the rest),
    // and an error response needs no memory: its count is then 0.
    const int64_t count = i < response.counts.size() ? response.counts[i] : 0;
    TensorEntry zeros;
    zeros.request.name = response.names[i];
    zeros.request.type = response.type;
    zeros.request.dtype = response.dtype;
    zeros.request.op = response.op;
    zeros.request.shape = {count};
    std::vector<char>& bytes =
        buffers_.emplace_back(static_cast<size_t>(count) * dtype_size(response.dtype));
    zeros.input = BufferView{bytes.data(), static_cast<size_t>(count), response.dtype, Device{}};
    zeros.output = zeros.input;
    zeros.handle = new_handle();
    entries.push_back(std::move(zeros));
  }
  return entries;
}

}  // namespace hvd::core
