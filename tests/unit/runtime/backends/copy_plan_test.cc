// SPDX-License-Identifier: Apache-2.0
// The host-side planning of fused copies: fusion-buffer layout and the chunk list of the
// batched CUDA copy kernel (plain C++, tested without a GPU).

#include "backends/copy_plan.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

using hvd::BufferView;
using hvd::DataType;
using hvd::backends::CopySegment;
using hvd::backends::FusionLayout;
using hvd::backends::plan_copy_chunks;
using hvd::backends::plan_fusion_copies;
using hvd::backends::plan_fusion_layout;

TEST_CASE("copy plan: alignment 1 packs tensors back to back, as the host path always did") {
  const FusionLayout l = plan_fusion_layout({6, 0, 3, 8}, 1);
  CHECK(l.offsets == std::vector<size_t>{0, 6, 6, 9});
  CHECK(l.total_bytes == 17);
}

TEST_CASE("copy plan: alignment 16 starts every tensor on a 16-byte boundary") {
  const FusionLayout l = plan_fusion_layout({6, 0, 16, 2, 40}, 16);
  CHECK(l.offsets == std::vector<size_t>{0, 16, 16, 32, 48});
  CHECK(l.total_bytes == 88);  // the last tensor is not padded
  CHECK(plan_fusion_layout({}, 16).total_bytes == 0);
  CHECK_THROWS(plan_fusion_layout({1}, 0));
}

TEST_CASE("copy plan: fusion copies go in and out through the layout, skipping empty tensors") {
  std::vector<char> a(6), b(0), c(4);
  const std::vector<BufferView> views = {{a.data(), 6, DataType::kUInt8, {}},
                                         {b.data(), 0, DataType::kUInt8, {}},
                                         {c.data(), 1, DataType::kFloat32, {}}};
  const FusionLayout l = plan_fusion_layout({6, 0, 4}, 16);
  std::vector<char> fusion(l.total_bytes);
  const auto in = plan_fusion_copies(views, fusion.data(), l, true);
  REQUIRE(in.size() == 2);
  CHECK(in[0].src == a.data());
  CHECK(in[0].dst == fusion.data());
  CHECK(in[0].bytes == 6);
  CHECK(in[1].src == c.data());
  CHECK(in[1].dst == fusion.data() + 16);
  CHECK(in[1].bytes == 4);
  const auto out = plan_fusion_copies(views, fusion.data(), l, false);
  REQUIRE(out.size() == 2);
  CHECK(out[1].src == fusion.data() + 16);
  CHECK(out[1].dst == c.data());
  CHECK_THROWS(plan_fusion_copies(views, fusion.data(), plan_fusion_layout({6}, 16), true));
}

TEST_CASE("copy plan: chunks cover every segment exactly, at most max bytes each") {
  std::vector<char> src(1000), dst(1000);
  const std::vector<CopySegment> segments = {{src.data(), dst.data(), 300},
                                             {src.data() + 300, dst.data() + 300, 0},
                                             {src.data() + 300, dst.data() + 300, 64},
                                             {src.data() + 364, dst.data() + 364, 636}};
  const auto chunks = plan_copy_chunks(segments, 128);
  // 300 -> 128+128+44; 0 -> none; 64 -> 64; 636 -> 4*128+124.
  REQUIRE(chunks.size() == 3 + 1 + 5);
  size_t total = 0;
  for (const CopySegment& c : chunks) {
    CHECK(c.bytes > 0);
    CHECK(c.bytes <= 128);
    total += c.bytes;
  }
  CHECK(total == 1000);
  CHECK(chunks[1].src == src.data() + 128);
  CHECK(chunks[2].bytes == 44);
  CHECK(chunks[3].dst == dst.data() + 300);
  CHECK(chunks[8].src == src.data() + 364 + 512);
  CHECK(chunks[8].bytes == 124);
  CHECK_THROWS(plan_copy_chunks(segments, 0));
}

TEST_CASE("copy plan: carrying out the planned chunks reproduces a fused buffer byte for byte") {
  std::vector<std::vector<uint8_t>> tensors;
  std::vector<BufferView> views;
  std::vector<size_t> bytes;
  for (size_t n : {1u, 17u, 0u, 300u, 5u, 1024u}) {
    tensors.emplace_back(n);
    std::iota(tensors.back().begin(), tensors.back().end(), static_cast<uint8_t>(n));
  }
  for (auto& t : tensors) {
    views.push_back({t.data(), t.size(), DataType::kUInt8, {}});
    bytes.push_back(t.size());
  }
  const FusionLayout l = plan_fusion_layout(bytes, 16);
  std::vector<uint8_t> fusion(l.total_bytes, 0xEE);
  for (const CopySegment& c :
       plan_copy_chunks(plan_fusion_copies(views, fusion.data(), l, true), 64))
    std::memcpy(c.dst, c.src, c.bytes);
  for (size_t i = 0; i < tensors.size(); ++i) {
    // An empty tensor's data() may be null, which memcmp must not get even for 0 bytes (UBSan).
    CHECK((tensors[i].empty() ||
           std::memcmp(fusion.data() + l.offsets[i], tensors[i].data(), tensors[i].size()) == 0));
    std::fill(tensors[i].begin(), tensors[i].end(), 0);
  }
  for (const CopySegment& c :
       plan_copy_chunks(plan_fusion_copies(views, fusion.data(), l, false), 64))
    std::memcpy(c.dst, c.src, c.bytes);
  CHECK(tensors[3][299] == static_cast<uint8_t>(300 + 299));
  CHECK(tensors[5][1023] == static_cast<uint8_t>(1024 + 1023));
}
