// SPDX-License-Identifier: Apache-2.0
// Hierarchical allreduce (reduce-scatter in the host, allreduce across hosts, allgather in the
// host) built by make_hierarchical_backend() over real transports, for rank threads that
// pretend to sit on several hosts: every dtype and op, element counts 0, 1, fewer than the
// ranks of a host, a prime; equal bits on every rank; the flat fallback for uneven hosts.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/ring/hierarchical_backend.h"
#include "bootstrap/world_info.h"
#include "fakes/kv_client_store.h"
#include "fakes/thread_world.h"
#include "hvd/str_cat.h"
#include "store/kv_server.h"
#include "unit/runtime/common/typed_data.h"
#include "unit/runtime/ring/ring_world.h"

using hvd::DataType;
using hvd::ReduceOp;
using hvd::str_cat;
namespace test = hvd::test;
namespace ring = hvd::backends::ring;

namespace {

// The world of `rank` when host h runs ranks_per_host[h] consecutive ranks.
hvd::bootstrap::WorldInfo world_of(int rank, const std::vector<int>& ranks_per_host) {
  hvd::bootstrap::WorldInfo w;
  w.rank = rank;
  w.cross_size = static_cast<int>(ranks_per_host.size());
  int first = 0;
  for (int h = 0; h < w.cross_size; ++h) {
    const int n = ranks_per_host[static_cast<size_t>(h)];
    if (rank >= first && rank < first + n) {
      w.cross_rank = h;
      w.local_rank = rank - first;
      w.local_size = n;
    }
    first += n;
  }
  w.size = first;
  return w;
}

// Runs fn(backend, rank) on one thread per rank, each with the backend built for its host.
template <typename Fn>
void run_hosts(const std::vector<int>& ranks_per_host, Fn&& fn) {
  hvd::store::KvServer server("127.0.0.1", 0, test::test_secret());
  const hvd::bootstrap::WorldInfo whole = world_of(0, ranks_per_host);
  test::spawn(whole.size, [&](int rank) {
    test::KvClientStore store(server.port(), whole.size);
    const auto world = world_of(rank, ranks_per_host);
    std::unique_ptr<ring::RingBackend> backend =
        ring::make_hierarchical_backend({"tcp", "shm"}, store, world, test::test_secret(),
                                        ring::transport_setup({}, world, test::kLiveness));
    fn(*backend, rank);
  });
}

std::string topology(const std::vector<int>& hosts) {
  std::string s;
  for (int n : hosts) s += str_cat(s.empty() ? "" : "+", n);
  return s;
}

}  // namespace

TEST_CASE("hierarchical allreduce: every dtype and op on 1 to 3 hosts, equal bits everywhere") {
  const std::vector<std::vector<int>> layouts = {{3},    {1, 1},    {2, 2},
                                                 {3, 3}, {2, 2, 2}, {1, 1, 1, 1}};
  for (const auto& hosts : layouts) {
    CAPTURE(topology(hosts));
    std::mutex mutex;
    std::vector<std::vector<char>> results;  // one per (rank, case), compared across ranks
    std::vector<std::string> names;
    run_hosts(hosts, [&](ring::RingBackend& backend, int rank) {
      CHECK(std::string(backend.name()) == "ring/hierarchical/tcp");
      const int size = backend.transport().size();
      const size_t counts[] = {0, 1, static_cast<size_t>(hosts[0] - 1), 1009};
      std::vector<std::vector<char>> mine;
      for (const DataType dt : test::kAllDtypes) {
        for (const ReduceOp op : test::kAllOps) {
          if (op == ReduceOp::kAverage) continue;  // the executor sums and scales
          for (const size_t count : counts) {
            std::vector<char> buf = test::make_input(dt, op, rank, count);
            backend.allreduce(hvd::BufferView{buf.data(), count, dt, {}}, op);
            CHECK_MESSAGE(
                test::first_mismatch(
                    dt, buf.data(), count,
                    [&](size_t i) { return test::expected_value(dt, op, size, i); }) == "",
                str_cat("rank ", rank, " ", dtype_name(dt), " ", op_name(op), " count ", count));
            mine.push_back(std::move(buf));
          }
        }
      }
      const std::lock_guard<std::mutex> lock(mutex);
      if (results.empty()) {
        results = std::move(mine);
      } else {
        REQUIRE(results.size() == mine.size());
        for (size_t c = 0; c < mine.size(); ++c) CHECK(results[c] == mine[c]);
      }
    });
  }
}

TEST_CASE("hierarchical allreduce: a few MiB of float32, and collectives other than allreduce") {
  run_hosts({2, 2}, [](ring::RingBackend& backend, int rank) {
    const size_t count = (size_t{3} << 20) + 7;
    std::vector<char> buf = test::make_input(DataType::kFloat32, ReduceOp::kSum, rank, count);
    backend.allreduce(hvd::BufferView{buf.data(), count, DataType::kFloat32, {}}, ReduceOp::kSum);
    CHECK(test::first_mismatch(DataType::kFloat32, buf.data(), count, [&](size_t i) {
            return test::expected_value(DataType::kFloat32, ReduceOp::kSum, 4, i);
          }) == "");
    // Broadcast runs on the flat transport.
    int64_t v = rank == 3 ? 42 : -1;
    backend.broadcast(hvd::BufferView{&v, 1, DataType::kInt64, {}}, 3);
    CHECK(v == 42);
    backend.barrier();
  });
}

TEST_CASE("hierarchical allreduce falls back to the flat ring when hosts run different numbers") {
  run_hosts({2, 1}, [](ring::RingBackend& backend, int rank) {
    CHECK(std::string(backend.name()) == "ring/tcp");
    std::vector<char> buf = test::make_input(DataType::kInt32, ReduceOp::kSum, rank, 5);
    backend.allreduce(hvd::BufferView{buf.data(), 5, DataType::kInt32, {}}, ReduceOp::kSum);
    CHECK(test::first_mismatch(DataType::kInt32, buf.data(), 5, [&](size_t i) {
            return test::expected_value(DataType::kInt32, ReduceOp::kSum, 3, i);
          }) == "");
  });
}
