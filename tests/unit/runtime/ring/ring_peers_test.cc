// SPDX-License-Identifier: Apache-2.0
// The peer sets of ring_peers.h: symmetric, O(log n), and enough for every collective: over TCP
// a transport refuses (InternalError) to talk to a rank outside its set, so running them all
// on a rank count that is not a power of two proves the set complete.
#include "transport/ring_peers.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "backends/ring/collectives.h"
#include "hvd/error.h"
#include "unit/runtime/ring/ring_world.h"

using hvd::BufferView;
using hvd::DataType;
using hvd::ReduceOp;
namespace test = hvd::test;
namespace ring = hvd::backends::ring;

namespace {

int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

}  // namespace

TEST_CASE("ring peers: symmetric, without self, at most 3 log2(n) + 2 of them") {
  for (const int n : {1, 2, 3, 5, 6, 7, 8, 12, 33, 100, 257, 1024, 4096, 16384}) {
    CAPTURE(n);
    size_t most = 0;
    for (int r = 0; r < n; ++r) {
      const std::vector<int> peers = ring::algorithm_peers(r, n);
      most = std::max(most, peers.size());
      CHECK(std::find(peers.begin(), peers.end(), r) == peers.end());
      if (n > 300 && r % 97 != 0) continue;  // the symmetry check is quadratic
      for (const int p : peers) {
        const std::vector<int> back = ring::algorithm_peers(p, n);
        CHECK(std::binary_search(back.begin(), back.end(), r));
      }
    }
    CHECK(most <= static_cast<size_t>(3 * ceil_log2(n) + 2));
  }
}

TEST_CASE("ring tcp: 13 ranks run every collective over their peers' connections only") {
  constexpr int kN = 13;
  test::run_world(test::TransportKind::kTcp, kN, [&](ring::Transport& t) {
    const int r = t.rank();
    CHECK(dynamic_cast<ring::TcpTransport&>(t).connections() ==
          ring::algorithm_peers(r, kN).size());
    for (const size_t count : {size_t{3}, size_t{100000}}) {  // doubling, then the ring
      std::vector<int64_t> v(count, r + 1);
      ring::allreduce(t, BufferView{v.data(), count, DataType::kInt64, {}}, ReduceOp::kSum);
      CHECK(v.front() == kN * (kN + 1) / 2);
      std::vector<int32_t> b(count, r == 5 ? 7 : 0);  // small: tree; large: scatter + ring
      ring::broadcast(t, BufferView{b.data(), count, DataType::kInt32, {}}, 5);
      CHECK(std::count(b.begin(), b.end(), 7) == static_cast<std::ptrdiff_t>(count));
    }
    std::vector<size_t> send_counts, recv_counts;
    for (int j = 0; j < kN; ++j) {
      send_counts.push_back(static_cast<size_t>((r + 2 * j) % 5));  // rank r sends j this many
      recv_counts.push_back(static_cast<size_t>((j + 2 * r) % 5));
    }
    std::vector<int32_t> send,
        recv(std::accumulate(recv_counts.begin(), recv_counts.end(), size_t{0}));
    for (int j = 0; j < kN; ++j) {
      send.insert(send.end(), send_counts[static_cast<size_t>(j)], r * 100 + j);
    }
    ring::alltoall(t, BufferView{send.data(), send.size(), DataType::kInt32, {}}, send_counts,
                   BufferView{recv.data(), recv.size(), DataType::kInt32, {}}, recv_counts);
    size_t at = 0;
    for (int j = 0; j < kN; ++j) {
      for (size_t i = 0; i < recv_counts[static_cast<size_t>(j)]; ++i) {
        CHECK(recv[at++] == j * 100 + r);
      }
    }
    ring::barrier(t);
  });
}
