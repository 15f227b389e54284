// SPDX-License-Identifier: Apache-2.0
// broadcast, allgatherv, reducescatter, alltoall and barrier over both real transports, for
// 1 to 8 rank threads and element counts 0, 1, N-1, a prime and a large one.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "backends/ring/collectives.h"
#include "hvd/error.h"
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

// A value that identifies (rank, element) and survives every dtype used here.
int32_t tag(int rank, size_t i) { return static_cast<int32_t>(rank * 1000003 + i * 7) % 100000; }

size_t sum(const std::vector<size_t>& v) { return std::accumulate(v.begin(), v.end(), size_t{0}); }

std::vector<size_t> element_counts(int n, size_t large) {
  return {0, 1, static_cast<size_t>(n - 1), 1009, large};
}

std::string check_broadcast(ring::Transport& t, size_t count, int root, size_t small_bytes) {
  std::vector<int32_t> buf(count);
  for (size_t i = 0; i < count; ++i) buf[i] = t.rank() == root ? tag(root, i) : -1;
  ring::broadcast(t, BufferView{buf.data(), count, DataType::kInt32, {}}, root, {small_bytes});
  for (size_t i = 0; i < count; ++i) {
    if (buf[i] != tag(root, i)) {
      return str_cat("rank ", t.rank(), " of ", t.size(), " root ", root, " count ", count,
                     ": element ", i, " is ", buf[i]);
    }
  }
  return "";
}

// Rank r contributes counts[r] elements; `counts` are per-rank variations around `count`.
std::vector<size_t> uneven_counts(int n, size_t count) {
  std::vector<size_t> counts;
  for (int r = 0; r < n; ++r)
    counts.push_back(r % 3 == 1 ? count / 2 : count + static_cast<size_t>(r));
  return counts;
}

std::string check_allgatherv(ring::Transport& t, const std::vector<size_t>& counts) {
  const auto me = static_cast<size_t>(t.rank());
  std::vector<double> mine(counts[me]);
  for (size_t i = 0; i < mine.size(); ++i) mine[i] = tag(t.rank(), i);
  std::vector<double> out(sum(counts), -1);
  ring::allgatherv(t, BufferView{mine.data(), mine.size(), DataType::kFloat64, {}},
                   BufferView{out.data(), out.size(), DataType::kFloat64, {}}, counts);
  size_t at = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    for (size_t i = 0; i < counts[r]; ++i, ++at) {
      if (out[at] != tag(static_cast<int>(r), i)) {
        return str_cat("rank ", me, ": element ", i, " of rank ", r, "'s block is ", out[at]);
      }
    }
  }
  return "";
}

std::string check_reducescatter(ring::Transport& t, DataType dt, ReduceOp op,
                                const std::vector<size_t>& counts) {
  const size_t total = sum(counts);
  const std::vector<char> in = test::make_input(dt, op, t.rank(), total);
  const std::vector<char> before = in;
  const auto me = static_cast<size_t>(t.rank());
  std::vector<char> out(counts[me] * dtype_size(dt));
  ring::reducescatter(t, BufferView{const_cast<char*>(in.data()), total, dt, {}},
                      BufferView{out.data(), counts[me], dt, {}}, counts, op);
  const size_t first = sum(std::vector<size_t>(counts.begin(), counts.begin() + t.rank()));
  const std::string bad = test::first_mismatch(dt, out.data(), counts[me], [&](size_t i) {
    return test::expected_value(dt, op, t.size(), first + i);
  });
  if (in != before) return "reducescatter changed its input";
  return bad.empty() ? bad : str_cat("rank ", me, " ", op_name(op), ": ", bad);
}

// Rank r sends (r + j) % 4 * scale elements to rank j.
std::string check_alltoall(ring::Transport& t, size_t scale) {
  const int n = t.size();
  const int me = t.rank();
  const auto amount = [&](int from, int to) {
    return static_cast<size_t>((from + to) % 4) * scale;
  };
  std::vector<size_t> send_counts;
  std::vector<size_t> recv_counts;
  for (int j = 0; j < n; ++j) {
    send_counts.push_back(amount(me, j));
    recv_counts.push_back(amount(j, me));
  }
  std::vector<int64_t> send;
  for (int j = 0; j < n; ++j) {
    for (size_t i = 0; i < amount(me, j); ++i) send.push_back(tag(me, i) * 100 + j);
  }
  std::vector<int64_t> recv(sum(recv_counts), -1);
  ring::alltoall(t, BufferView{send.data(), send.size(), DataType::kInt64, {}}, send_counts,
                 BufferView{recv.data(), recv.size(), DataType::kInt64, {}}, recv_counts);
  size_t at = 0;
  for (int j = 0; j < n; ++j) {
    for (size_t i = 0; i < amount(j, me); ++i, ++at) {
      if (recv[at] != int64_t{tag(j, i)} * 100 + me) {
        return str_cat("rank ", me, ": element ", i, " from rank ", j, " is ", recv[at]);
      }
    }
  }
  return "";
}

void broadcasts(TransportKind kind) {
  for (int n = 1; n <= 8; ++n) {
    test::run_world(kind, n, [&](ring::Transport& t) {
      for (const size_t count : element_counts(n, size_t{1} << 19)) {
        for (const int root : {0, n - 1, n / 2}) {
          CHECK(check_broadcast(t, count, root, size_t{64} << 10) == "");
          CHECK(check_broadcast(t, count, root, 0) == "");  // scatter + allgather
        }
      }
    });
  }
}

void allgathervs(TransportKind kind) {
  for (int n = 1; n <= 8; ++n) {
    test::run_world(kind, n, [&](ring::Transport& t) {
      for (const size_t count : element_counts(n, size_t{1} << 16)) {
        CHECK(check_allgatherv(t, std::vector<size_t>(static_cast<size_t>(n), count)) == "");
        CHECK(check_allgatherv(t, uneven_counts(n, count)) == "");
      }
    });
  }
}

void reducescatters(TransportKind kind) {
  for (int n = 1; n <= 8; ++n) {
    test::run_world(kind, n, [&](ring::Transport& t) {
      for (const size_t count : element_counts(n, size_t{1} << 16)) {
        for (const ReduceOp op : test::kAllOps) {
          CHECK(check_reducescatter(t, DataType::kFloat32, op, uneven_counts(n, count)) == "");
        }
        CHECK(check_reducescatter(t, DataType::kInt32, ReduceOp::kAverage,
                                  std::vector<size_t>(static_cast<size_t>(n), count)) == "");
        CHECK(check_reducescatter(t, DataType::kFloat16, ReduceOp::kSum, uneven_counts(n, count)) ==
              "");
      }
    });
  }
}

void alltoalls(TransportKind kind) {
  for (int n = 1; n <= 8; ++n) {
    test::run_world(kind, n, [&](ring::Transport& t) {
      for (const size_t scale : {size_t{0}, size_t{1}, size_t{1009}, size_t{1} << 17}) {
        CHECK(check_alltoall(t, scale) == "");
      }
      for (int i = 0; i < 3; ++i) ring::barrier(t);
    });
  }
}

}  // namespace

TEST_CASE("ring broadcast: over shm and tcp, 1 to 8 ranks") {
  broadcasts(TransportKind::kShm);
  broadcasts(TransportKind::kTcp);
}

TEST_CASE("ring allgatherv: even and uneven counts over shm and tcp, 1 to 8 ranks") {
  allgathervs(TransportKind::kShm);
  allgathervs(TransportKind::kTcp);
}

TEST_CASE("ring reducescatter: every op over shm and tcp, 1 to 8 ranks") {
  reducescatters(TransportKind::kShm);
  reducescatters(TransportKind::kTcp);
}

TEST_CASE("ring alltoall and barrier: over shm and tcp, 1 to 8 ranks") {
  alltoalls(TransportKind::kShm);
  alltoalls(TransportKind::kTcp);
}

TEST_CASE("ring collectives: inconsistent arguments are bugs, reported as InternalError") {
  test::run_world(TransportKind::kShm, 1, [&](ring::Transport& t) {
    std::vector<float> buf(4);
    const BufferView view{buf.data(), buf.size(), DataType::kFloat32, {}};
    CHECK_THROWS_AS(ring::allgatherv(t, view, view, {2, 2}), hvd::InternalError);
    CHECK_THROWS_AS(ring::reducescatter(t, view, view.slice(0, 1), {3}, ReduceOp::kSum),
                    hvd::InternalError);
    CHECK_THROWS_AS(ring::broadcast(t, view, 1), hvd::InternalError);
    const BufferView on_gpu{buf.data(), buf.size(), DataType::kFloat32, hvd::Device{0}};
    CHECK_THROWS_AS(ring::allreduce(t, on_gpu, ReduceOp::kSum), hvd::InternalError);
  });
}
