// SPDX-License-Identifier: Apache-2.0
// allreduce over both real transports, for 1 to 8 rank threads, every dtype and op, both
// algorithms (recursive doubling, ring) and element counts 0, 1, N-1, a prime and a few MiB.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "backends/ring/collectives.h"
#include "hvd/str_cat.h"
#include "unit/runtime/common/typed_data.h"
#include "unit/runtime/ring/ring_world.h"

using hvd::DataType;
using hvd::ReduceOp;
using hvd::str_cat;
using hvd::test::TransportKind;
namespace test = hvd::test;
namespace ring = hvd::backends::ring;

namespace {

ring::CollectiveOptions doubling() { return {std::numeric_limits<size_t>::max()}; }
ring::CollectiveOptions ring_only() { return {0}; }

// One allreduce of the standard inputs; "" when every element matches the reference.
std::string allreduce_once(ring::Transport& t, DataType dt, ReduceOp op, size_t count,
                           const ring::CollectiveOptions& opts) {
  std::vector<char> buf = test::make_input(dt, op, t.rank(), count);
  ring::allreduce(t, hvd::BufferView{buf.data(), count, dt, {}}, op, opts);
  const std::string bad = test::first_mismatch(
      dt, buf.data(), count, [&](size_t i) { return test::expected_value(dt, op, t.size(), i); });
  if (bad.empty()) return bad;
  return str_cat("rank ", t.rank(), " of ", t.size(), ", ", op_name(op), ", small_bytes ",
                 opts.small_bytes, ": ", bad);
}

void every_dtype_and_op(TransportKind kind) {
  for (int n = 1; n <= 8; ++n) {
    test::run_world(kind, n, [&](ring::Transport& t) {
      const size_t counts[] = {0, 1, static_cast<size_t>(n - 1), 1009};
      for (const DataType dt : test::kAllDtypes) {
        for (const ReduceOp op : test::kAllOps) {
          for (const size_t count : counts) {
            CHECK(allreduce_once(t, dt, op, count, ring::CollectiveOptions{}) == "");
          }
          // The default threshold sends all of the above to recursive doubling.
          CHECK(allreduce_once(t, dt, op, 1009, ring_only()) == "");
          CHECK(allreduce_once(t, dt, op, static_cast<size_t>(n - 1), ring_only()) == "");
        }
      }
    });
  }
}

void a_few_mib(TransportKind kind) {
  for (int n = 1; n <= 8; ++n) {
    test::run_world(kind, n, [&](ring::Transport& t) {
      const size_t floats = (size_t{3} << 18) + 7;  // 3 MiB of float32, not a multiple of n
      CHECK(allreduce_once(t, DataType::kFloat32, ReduceOp::kSum, floats, {}) == "");
      CHECK(allreduce_once(t, DataType::kBFloat16, ReduceOp::kAverage, size_t{1} << 19, {}) == "");
      CHECK(allreduce_once(t, DataType::kInt64, ReduceOp::kMax, (size_t{1} << 17) + 1, {}) == "");
    });
  }
}

// Inputs that are not exactly representable, so that rounding depends on the order of the
// reduction: every rank must still end with the same bits.
void bitwise_identical(TransportKind kind, const ring::CollectiveOptions& opts) {
  for (const int n : {2, 3, 5, 8}) {
    const size_t count = 4099;
    std::vector<std::vector<float>> results(static_cast<size_t>(n));
    test::run_world(kind, n, [&](ring::Transport& t) {
      std::vector<float> buf(count);
      for (size_t i = 0; i < count; ++i)
        buf[i] = std::sin(static_cast<float>(i * 7 + 1) * (t.rank() + 1));
      ring::allreduce(t, hvd::BufferView{buf.data(), count, DataType::kFloat32, {}}, ReduceOp::kSum,
                      opts);
      results[static_cast<size_t>(t.rank())] = buf;
    });
    for (size_t i = 0; i < count; ++i) {
      double want = 0;
      for (int r = 0; r < n; ++r) want += std::sin(static_cast<float>(i * 7 + 1) * (r + 1));
      if (std::fabs(results[0][i] - want) > 1e-5)
        FAIL("element ", i, ": ", results[0][i], " != ", want);
    }
    for (int r = 1; r < n; ++r) {
      CAPTURE(n);
      CAPTURE(r);
      CHECK(std::memcmp(results[0].data(), results[static_cast<size_t>(r)].data(),
                        count * sizeof(float)) == 0);
    }
  }
}

}  // namespace

TEST_CASE("ring allreduce: every dtype and op over shm, 1 to 8 ranks") {
  every_dtype_and_op(TransportKind::kShm);
}

TEST_CASE("ring allreduce: every dtype and op over tcp, 1 to 8 ranks") {
  every_dtype_and_op(TransportKind::kTcp);
}

TEST_CASE("ring allreduce: a few MiB over shm, 1 to 8 ranks") { a_few_mib(TransportKind::kShm); }

TEST_CASE("ring allreduce: a few MiB over tcp, 1 to 8 ranks") { a_few_mib(TransportKind::kTcp); }

TEST_CASE("ring allreduce: every rank gets the same bits") {
  for (const TransportKind kind : {TransportKind::kShm, TransportKind::kTcp}) {
    CAPTURE(test::kind_name(kind));
    bitwise_identical(kind, doubling());
    bitwise_identical(kind, ring_only());
  }
}

TEST_CASE("ring allreduce: 64 MiB over shm, 2 ranks") {
  test::run_world(TransportKind::kShm, 2, [&](ring::Transport& t) {
    CHECK(allreduce_once(t, DataType::kFloat32, ReduceOp::kSum, size_t{16} << 20, {}) == "");
  });
}
