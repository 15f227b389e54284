// SPDX-License-Identifier: Apache-2.0
#pragma once
// BufferView: memory the runtime reads or writes, without owning it.

#include <cstddef>

#include "hvd/tensor.h"

namespace hvd {

struct BufferView {
  void* data = nullptr;
  size_t count = 0;  // elements, not bytes
  DataType dtype = DataType::kFloat32;
  Device device;

  size_t bytes() const { return count * dtype_size(dtype); }
  /// Elements [first, first + n) of this buffer.
  BufferView slice(size_t first, size_t n) const {
    return {static_cast<char*>(data) + first * dtype_size(dtype), n, dtype, device};
  }
};

}  // namespace hvd
