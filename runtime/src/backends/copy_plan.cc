// SPDX-License-Identifier: Apache-2.0
#include "backends/copy_plan.h"

#include "hvd/error.h"

namespace hvd::backends {

FusionLayout plan_fusion_layout(const std::vector<size_t>& bytes, size_t alignment) {
  HVD_CHECK(alignment > 0, "fusion alignment of 0");
  FusionLayout layout;
  layout.offsets.reserve(bytes.size());
  size_t at = 0;
  for (size_t b : bytes) {
    at = (at + alignment - 1) / alignment * alignment;
    layout.offsets.push_back(at);
    at += b;
  }
  layout.total_bytes = at;
  return layout;
}

std::vector<CopySegment> plan_fusion_copies(const std::vector<BufferView>& views, void* fusion,
                                            const FusionLayout& layout, bool into_fusion) {
  HVD_CHECK(views.size() == layout.offsets.size(), views.size(), " tensors for a layout of ",
            layout.offsets.size());
  std::vector<CopySegment> segments;
  segments.reserve(views.size());
  for (size_t i = 0; i < views.size(); ++i) {
    const size_t bytes = views[i].bytes();
    if (bytes == 0) continue;
    char* slot = static_cast<char*>(fusion) + layout.offsets[i];
    segments.push_back(into_fusion ? CopySegment{views[i].data, slot, bytes}
                                   : CopySegment{slot, views[i].data, bytes});
  }
  return segments;
}

std::vector<CopySegment> plan_copy_chunks(const std::vector<CopySegment>& segments,
                                          size_t max_chunk_bytes) {
  HVD_CHECK(max_chunk_bytes > 0, "chunks of 0 bytes");
  std::vector<CopySegment> chunks;
  size_t total = 0;
  for (const CopySegment& s : segments) total += (s.bytes + max_chunk_bytes - 1) / max_chunk_bytes;
  chunks.reserve(total);
  for (const CopySegment& s : segments) {
    for (size_t first = 0; first < s.bytes; first += max_chunk_bytes) {
      const size_t n = s.bytes - first < max_chunk_bytes ? s.bytes - first : max_chunk_bytes;
      chunks.push_back(CopySegment{static_cast<const char*>(s.src) + first,
                                   static_cast<char*>(s.dst) + first, n});
    }
  }
  return chunks;
}

}  // namespace hvd::backends
