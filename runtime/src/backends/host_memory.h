// SPDX-License-Identifier: Apache-2.0
#pragma once
// HostMemory: MemoryOps for host tensors: memcpy and the reduce kernels, as the executor did
// before it had a device path (fusion entries are packed with no padding).

#include <vector>

#include "backends/memory_ops.h"

namespace hvd::backends {

class HostMemory final : public MemoryOps {
 public:
  void copy(const std::vector<CopySegment>& segments) override;
  void scale(BufferView buf, double factor) override;
  void to_host(void* dst, const void* src, size_t bytes) override;
  void* buffer(BufferSlot slot, size_t bytes) override;
  size_t buffer_bytes(BufferSlot slot) const override;
  size_t fusion_alignment() const override { return 1; }

 private:
  std::vector<char>& slot(BufferSlot s) { return s == BufferSlot::kFusion ? fusion_ : scratch_; }
  std::vector<char> fusion_;
  std::vector<char> scratch_;
};

}  // namespace hvd::backends
