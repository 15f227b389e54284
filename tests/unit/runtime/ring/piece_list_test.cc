// SPDX-License-Identifier: Apache-2.0
// PieceList (tensors as one buffer, adjacent ones merged), BlockPieces (that buffer cut into
// the ring's blocks) and PieceCursor (a position in a list of pieces).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/ring/piece_list.h"
#include "backends/ring/ring_phases.h"

using hvd::BufferView;
using hvd::DataType;
namespace ring = hvd::backends::ring;

namespace {

BufferView int32s(int32_t* data, size_t count) { return {data, count, DataType::kInt32, {}}; }

char* bytes_of(int32_t* p) { return reinterpret_cast<char*>(p); }

// Each block's pieces as "offset:bytes" from `base`, blocks separated by '|'.
std::string layout(const ring::BlockPieces& b, const char* base) {
  std::string out;
  for (size_t i = 0; i < b.blocks(); ++i) {
    if (i > 0) out += "|";
    for (const ring::Piece& p : b.block(i)) {
      out += std::to_string(p.data - base) + ":" + std::to_string(p.bytes) + " ";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("piece list: tensors that follow each other in memory become one piece") {
  std::vector<int32_t> mem(20);
  int32_t* m = mem.data();
  SUBCASE("consecutive views of one buffer, empty ones among them") {
    const ring::PieceList list(
        {int32s(m, 3), int32s(m + 3, 0), int32s(m + 3, 5), int32s(m + 8, 2)});
    CHECK(list.count() == 10);
    REQUIRE(list.all().size == 1);
    CHECK(list.all().first[0].data == bytes_of(m));
    CHECK(list.all().first[0].bytes == 40);
  }
  SUBCASE("a gap, or memory out of order, starts a new piece") {
    // [0,3) [3,5) | gap | [6,8) | [2,3) out of order | [3,4)
    const ring::PieceList list(
        {int32s(m, 3), int32s(m + 3, 2), int32s(m + 6, 2), int32s(m + 2, 1), int32s(m + 3, 1)});
    CHECK(list.count() == 9);
    const ring::PieceSpan all = list.all();
    REQUIRE(all.size == 3);
    CHECK(all.first[0].data == bytes_of(m));
    CHECK(all.first[0].bytes == 20);
    CHECK(all.first[1].data == bytes_of(m + 6));
    CHECK(all.first[1].bytes == 8);
    CHECK(all.first[2].data == bytes_of(m + 2));  // [2,3) and [3,4) meet again
    CHECK(all.first[2].bytes == 8);
    CHECK(all.bytes() == list.bytes());
  }
  SUBCASE("separate allocations stay separate pieces") {
    std::vector<int32_t> a(3), b(5);
    const ring::PieceList list({int32s(a.data(), 3), int32s(b.data(), 5)});
    CHECK(list.all().size == (a.data() + 3 == b.data() ? 1 : 2));
    CHECK(list.count() == 8);
  }
  SUBCASE("no tensors, or only empty ones: no piece") {
    CHECK(ring::PieceList(std::vector<BufferView>{}).all().size == 0);
    CHECK(ring::PieceList({int32s(m, 0), int32s(m, 0)}).all().size == 0);
  }
  SUBCASE("mixed dtypes are a bug") {
    CHECK_THROWS(ring::PieceList({int32s(m, 1), BufferView{m + 1, 1, DataType::kFloat32, {}}}));
  }
}

TEST_CASE("piece list: one contiguous buffer is one piece, an empty one none") {
  std::vector<int16_t> a(6);
  const ring::PieceList list(BufferView{a.data(), a.size(), DataType::kInt16, {}});
  CHECK(list.count() == 6);
  REQUIRE(list.all().size == 1);
  CHECK(list.all().first[0].bytes == 12);
  CHECK(ring::PieceList(BufferView{a.data(), 0, DataType::kInt16, {}}).all().size == 0);
}

TEST_CASE("block pieces: blocks cut pieces and span several, by element") {
  // Pieces (in elements): [0,3) at a, [3,8) at b (separate: one element apart in one buffer).
  std::vector<int32_t> mem(9);
  int32_t* a = mem.data();
  int32_t* b = mem.data() + 4;
  const char* base = bytes_of(a);
  const ring::PieceList list({int32s(a, 3), int32s(b, 5)});
  REQUIRE(list.all().size == 2);
  SUBCASE("a block within a piece, one across the boundary, one to the end") {
    const ring::BlockPieces blocks(list, ring::blocks_of({2, 3, 3}));
    CHECK(blocks.dtype() == DataType::kInt32);
    CHECK(layout(blocks, base) == "0:8 |8:4 16:8 |24:12 ");
  }
  SUBCASE("blocks that end exactly where pieces end") {
    CHECK(layout(ring::BlockPieces(list, ring::blocks_of({3, 5})), base) == "0:12 |16:20 ");
  }
  SUBCASE("empty blocks, first, between and last") {
    CHECK(layout(ring::BlockPieces(list, ring::blocks_of({0, 3, 0, 5, 0})), base) ==
          "|0:12 ||16:20 |");
  }
  SUBCASE("one block per element") {
    const ring::BlockPieces blocks(list, ring::even_blocks(8, 8));
    REQUIRE(blocks.blocks() == 8);
    for (size_t i = 0; i < 8; ++i) {
      REQUIRE(blocks.block(i).size == 1);
      CHECK(blocks.block(i).first[0].bytes == 4);
      CHECK(blocks.block(i).first[0].data == bytes_of(i < 3 ? a + i : b + (i - 3)));
    }
  }
  SUBCASE("a contiguous buffer") {
    const ring::BlockPieces blocks(ring::PieceList(int32s(a, 9)), ring::even_blocks(9, 2));
    CHECK(layout(blocks, base) == "0:20 |20:16 ");
  }
  SUBCASE("blocks that do not cover the list exactly are a bug") {
    CHECK_THROWS(ring::BlockPieces(list, ring::blocks_of({3, 4})));
    CHECK_THROWS(ring::BlockPieces(list, ring::blocks_of({3, 6})));
    ring::Blocks apart = ring::blocks_of({3, 5});
    apart.offset[1] = 4;
    CHECK_THROWS(ring::BlockPieces(list, apart));
  }
}

TEST_CASE("piece cursor: takes runs across pieces and skips empty ones") {
  char x[3] = {'a', 'b', 'c'}, y[2] = {'d', 'e'};
  const ring::Piece pieces[] = {{x, 0}, {x, 3}, {y, 0}, {y, 2}, {x, 0}};
  ring::PieceCursor c(ring::PieceSpan{pieces, 5});
  std::string seen;
  c.take(2, [&](char* p, size_t n) { seen += std::string(p, n) + "|"; });
  c.take(3, [&](char* p, size_t n) { seen += std::string(p, n) + "|"; });
  CHECK(seen == "ab|c|de|");
  CHECK(c.run(10).second == 0);
}
