// SPDX-License-Identifier: Apache-2.0
#pragma once
// Host-side planning for fused copies, kept free of CUDA so that it is tested everywhere:
// where each tensor sits in a fusion buffer, and how a list of copies is cut into the
// equal-sized chunks that the batched CUDA copy kernel hands out to its thread blocks.

#include <cstddef>
#include <vector>

#include "backends/memory_ops.h"

namespace hvd::backends {

struct FusionLayout {
  std::vector<size_t> offsets;  // where tensor i starts
  size_t total_bytes = 0;       // the end of the last tensor (not padded)
};

/// Packs tensors of `bytes` in order, each starting at a multiple of `alignment` (>= 1).
FusionLayout plan_fusion_layout(const std::vector<size_t>& bytes, size_t alignment);

/// The segments to copy `views` into (or, with `into_fusion` false, out of) a fusion buffer at
/// `fusion` laid out as `layout`. Empty tensors give no segment.
std::vector<CopySegment> plan_fusion_copies(const std::vector<BufferView>& views, void* fusion,
                                            const FusionLayout& layout, bool into_fusion);

/// `segments` cut into chunks of at most `max_chunk_bytes` (> 0), in order, with empty
/// segments dropped. A chunk starts at a multiple of max_chunk_bytes within its segment, so a
/// power-of-two chunk size keeps each chunk as aligned as its segment.
std::vector<CopySegment> plan_copy_chunks(const std::vector<CopySegment>& segments,
                                          size_t max_chunk_bytes);

}  // namespace hvd::backends
