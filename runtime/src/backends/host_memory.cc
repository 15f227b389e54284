// SPDX-License-Identifier: Apache-2.0
#include "backends/host_memory.h"

#include <cstring>

#include "common/reduce_kernels.h"

namespace hvd::backends {

void HostMemory::copy(const std::vector<CopySegment>& segments) {
  for (const CopySegment& s : segments) {
    if (s.bytes > 0) std::memcpy(s.dst, s.src, s.bytes);
  }
}

void HostMemory::scale(BufferView buf, double factor) {
  hvd::scale(buf.data, buf.count, buf.dtype, factor);
}

void HostMemory::to_host(void* dst, const void* src, size_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
}

void* HostMemory::buffer(BufferSlot s, size_t bytes) {
  std::vector<char>& b = slot(s);
  if (b.size() < bytes) b.resize(bytes);  // persistent: grows, never shrinks
  return b.data();
}

size_t HostMemory::buffer_bytes(BufferSlot s) const {
  return s == BufferSlot::kFusion ? fusion_.size() : scratch_.size();
}

}  // namespace hvd::backends
