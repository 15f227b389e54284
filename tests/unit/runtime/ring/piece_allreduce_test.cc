// SPDX-License-Identifier: Apache-2.0
// The fused allreduce over pieces (piece_list.h): tensors reduced where they lie, as one
// buffer of their concatenation, over both real transports, 1 to 8 rank threads, every dtype
// and op, both algorithms. Each tensor is its own allocation of exactly its size, so a chunk
// or block boundary that splits a piece and then writes past it is an ASan report; or the
// tensors are carved out of one allocation, where adjacent ones merge into one piece and the
// gaps left between some of them must stay untouched.
#include <doctest/doctest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/ring/collectives.h"
#include "backends/ring/piece_list.h"
#include "backends/ring/ring_backend.h"
#include "hvd/str_cat.h"
#include "unit/runtime/common/typed_data.h"
#include "unit/runtime/ring/ring_world.h"

using hvd::BufferView;
using hvd::DataType;
using hvd::ReduceOp;
using hvd::str_cat;
using hvd::test::TransportKind;
namespace test = hvd::test;
namespace ring = hvd::backends::ring;

namespace {

ring::CollectiveOptions pieces_doubling() { return {std::numeric_limits<size_t>::max()}; }
ring::CollectiveOptions pieces_ring_only() { return {0}; }

// Where the tensors of a fused response lie: each in its own allocation, or carved out of one
// buffer in order (a framework's gradient bucket), where the pieces merge into runs (a gap of
// one element after every third tensor keeps some apart).
enum class Layout { kSeparate, kCarved };

constexpr unsigned char kGapByte = 0x5A;

// The standard input of `total` elements, cut into tensors of `sizes` elements.
struct Tensors {
  std::vector<std::unique_ptr<char[]>> memory;
  std::vector<BufferView> views;
  std::vector<std::pair<const char*, size_t>> gaps;  // kCarved: bytes no tensor owns

  Tensors(DataType dt, ReduceOp op, int rank, const std::vector<size_t>& sizes,
          Layout layout = Layout::kSeparate) {
    size_t total = 0;
    for (const size_t s : sizes) total += s;
    const std::vector<char> whole = test::make_input(dt, op, rank, total);
    const size_t es = hvd::dtype_size(dt);
    if (layout == Layout::kCarved) {
      // One allocation of exactly the tensors and gaps, so a run written past its end is an
      // ASan report.
      memory.emplace_back(new char[(total + sizes.size() / 3) * es]);
    }
    char* next = layout == Layout::kCarved ? memory.front().get() : nullptr;
    size_t at = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const size_t s = sizes[i];
      if (layout == Layout::kSeparate) {
        // new char[0] is a valid, distinct allocation: an empty tensor still has an address.
        memory.emplace_back(new char[s * es]);
        next = memory.back().get();
      }
      if (s > 0) std::memcpy(next, whole.data() + at * es, s * es);
      views.push_back(BufferView{next, s, dt, {}});
      at += s;
      next += s * es;
      if (layout == Layout::kCarved && i % 3 == 2) {
        std::memset(next, kGapByte, es);
        gaps.emplace_back(next, es);
        next += es;
      }
    }
  }

  std::vector<char> joined() const {
    std::vector<char> out;
    for (const BufferView& v : views) {
      const char* p = static_cast<const char*>(v.data);
      out.insert(out.end(), p, p + v.bytes());
    }
    return out;
  }

  bool gaps_untouched() const {
    for (const auto& [at, n] : gaps) {
      for (size_t i = 0; i < n; ++i) {
        if (static_cast<unsigned char>(at[i]) != kGapByte) return false;
      }
    }
    return true;
  }
};

// One fused allreduce of tensors of `sizes`; "" when every element matches the reference.
std::string fused_once(ring::Transport& t, DataType dt, ReduceOp op,
                       const std::vector<size_t>& sizes, const ring::CollectiveOptions& opts,
                       Layout layout = Layout::kSeparate) {
  Tensors in(dt, op, t.rank(), sizes, layout);
  ring::allreduce(t, ring::PieceList(in.views), op, opts);
  const std::vector<char> got = in.joined();
  std::string bad =
      test::first_mismatch(dt, got.data(), got.size() / hvd::dtype_size(dt),
                           [&](size_t i) { return test::expected_value(dt, op, t.size(), i); });
  if (bad.empty() && !in.gaps_untouched()) bad = "a gap between tensors was written";
  if (bad.empty()) return bad;
  return str_cat("rank ", t.rank(), " of ", t.size(), ", ", op_name(op), ", ", sizes.size(),
                 layout == Layout::kCarved ? " tensors of one buffer" : " tensors",
                 ", small_bytes ", opts.small_bytes, ": ", bad);
}

// Odd sizes, empty tensors first, in the middle and last, and one tensor larger than a block
// for up to 8 ranks next to many smaller than one.
const std::vector<size_t> kOddSizes = {0, 1, 3, 0, 7, 129, 1, 0, 1000, 2, 5, 0};

void pieces_every_dtype_and_op(TransportKind kind) {
  for (int n = 1; n <= 8; ++n) {
    test::run_world(kind, n, [&](ring::Transport& t) {
      for (const DataType dt : test::kAllDtypes) {
        for (const ReduceOp op : test::kAllOps) {
          CHECK(fused_once(t, dt, op, kOddSizes, ring::CollectiveOptions{}) == "");
          CHECK(fused_once(t, dt, op, kOddSizes, pieces_doubling()) == "");
          CHECK(fused_once(t, dt, op, kOddSizes, pieces_ring_only()) == "");
          CHECK(fused_once(t, dt, op, kOddSizes, pieces_doubling(), Layout::kCarved) == "");
          CHECK(fused_once(t, dt, op, kOddSizes, pieces_ring_only(), Layout::kCarved) == "");
          // Fewer elements than ranks, and nothing at all.
          CHECK(fused_once(t, dt, op, {0, 1, 0}, pieces_ring_only()) == "");
          CHECK(fused_once(t, dt, op, {0, 0}, pieces_ring_only()) == "");
          CHECK(fused_once(t, dt, op, {}, ring::CollectiveOptions{}) == "");
        }
      }
    });
  }
}

// Pieces larger than the transports' chunks (shm publishes at most 128 KiB at a time, TCP
// reduces through a 1 MiB scratch ring) and not multiples of them: chunks split pieces and
// pieces split chunks.
void larger_than_a_chunk(TransportKind kind) {
  for (const int n : {2, 3, 8}) {
    test::run_world(kind, n, [&](ring::Transport& t) {
      const std::vector<size_t> sizes = {100003, 0, 1, 65537, 300001, 17};
      CHECK(fused_once(t, DataType::kFloat32, ReduceOp::kSum, sizes, {}) == "");
      CHECK(fused_once(t, DataType::kFloat64, ReduceOp::kMax, sizes, {}) == "");
      CHECK(fused_once(t, DataType::kFloat16, ReduceOp::kAverage, sizes, {}) == "");
      std::vector<size_t> many(300, 1021);  // 300 x ~4 KiB, as the fusion benchmark
      CHECK(fused_once(t, DataType::kFloat32, ReduceOp::kSum, many, {}) == "");
      // Merged runs of three tensors, larger than a chunk, cut by blocks and chunks.
      CHECK(fused_once(t, DataType::kFloat32, ReduceOp::kSum, sizes, {}, Layout::kCarved) == "");
      CHECK(fused_once(t, DataType::kInt8, ReduceOp::kMin, many, {}, Layout::kCarved) == "");
    });
  }
}

}  // namespace

TEST_CASE("fused ring allreduce over pieces: every dtype and op over shm, 1 to 8 ranks") {
  pieces_every_dtype_and_op(TransportKind::kShm);
}

TEST_CASE("fused ring allreduce over pieces: every dtype and op over tcp, 1 to 8 ranks") {
  pieces_every_dtype_and_op(TransportKind::kTcp);
}

TEST_CASE("fused ring allreduce over pieces: pieces larger than a chunk over shm") {
  larger_than_a_chunk(TransportKind::kShm);
}

TEST_CASE("fused ring allreduce over pieces: pieces larger than a chunk over tcp") {
  larger_than_a_chunk(TransportKind::kTcp);
}

TEST_CASE("ring backend: reduces the tensors of a fused response in place") {
  test::run_world(TransportKind::kShm, 3, [&](ring::Transport& t) {
    // The backend takes ownership of its transport: give it a view that forwards.
    struct Borrowed final : ring::Transport {
      explicit Borrowed(ring::Transport& inner) : inner_(inner) {}
      int rank() const override { return inner_.rank(); }
      int size() const override { return inner_.size(); }
      std::chrono::milliseconds timeout() const override { return inner_.timeout(); }
      void send_recv(int to, ring::PieceSpan send, int from, ring::PieceSpan recv) override {
        inner_.send_recv(to, send, from, recv);
      }
      void send_recv_reduce(int to, ring::PieceSpan send, int from, ring::PieceSpan acc,
                            DataType dtype, ReduceOp op) override {
        inner_.send_recv_reduce(to, send, from, acc, dtype, op);
      }
      ring::Transport& inner_;
    };
    ring::RingBackend backend(std::make_unique<Borrowed>(t), "shm");
    CHECK(backend.reduces_pieces());
    Tensors in(DataType::kInt32, ReduceOp::kSum, t.rank(), kOddSizes);
    backend.allreduce_pieces(in.views, ReduceOp::kSum);
    const std::vector<char> got = in.joined();
    CHECK(test::first_mismatch(DataType::kInt32, got.data(), got.size() / 4, [&](size_t i) {
            return test::expected_value(DataType::kInt32, ReduceOp::kSum, t.size(), i);
          }) == "");
  });
}
