// SPDX-License-Identifier: Apache-2.0
// hvd.join() through the whole runtime (loop, controller, cache vote, executor), N ranks as
// threads: ranks that ran out of data join, the others keep reducing with zeros from them.

#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "control/join_rules.h"
#include "core/runtime.h"
#include "fakes/fake_backend.h"
#include "fakes/fake_channel.h"
#include "fakes/runtime_world.h"
#include "fakes/thread_world.h"

namespace core = hvd::core;
namespace control = hvd::control;
using hvd::BufferView;
using hvd::DataType;
using hvd::ReduceOp;
using hvd::test::FakeBackend;
using hvd::test::FakeChannel;
using hvd::test::FakeChannelHub;

namespace {

void spawn_joining(int size, const std::function<void(int, core::Runtime&)>& body,
                   size_t cache_capacity = 1024) {
  core::RuntimeOptions options;
  options.controller.cache_capacity = cache_capacity;
  options.cycle_time = std::chrono::microseconds(200);
  hvd::test::spawn_runtimes(size, options, body);
}

control::Request join_request(const std::string& name, control::OpType type, DataType dtype,
                              std::vector<int64_t> shape, hvd::ReduceOp op = hvd::ReduceOp::kSum) {
  return hvd::test::request(name, type, dtype, std::move(shape), op);
}

// What hvd::join() does over a Runtime: returns the last joined rank, or the error.
hvd::Status join(core::Runtime& rt, int* last) {
  BufferView none{nullptr, 0, DataType::kUInt8, {}};
  auto h = rt.enqueue(
      join_request(control::kJoinName, control::OpType::kJoin, DataType::kUInt8, {0}), none, none);
  hvd::Status s = h->wait();
  *last = h->last_joined_rank;
  return s;
}

int join_ok(core::Runtime& rt) {
  int last = -2;
  const hvd::Status s = join(rt, &last);
  REQUIRE_MESSAGE(s.ok(), s.message());
  return last;
}

// Synchronous allreduce of `data` under `name`.
hvd::Status allreduce(core::Runtime& rt, const std::string& name, std::vector<double>& data,
                      ReduceOp op = ReduceOp::kSum) {
  BufferView b{data.data(), data.size(), DataType::kFloat64, {}};
  return rt
      .enqueue(join_request(name, control::OpType::kAllreduce, DataType::kFloat64,
                            {static_cast<int64_t>(data.size())}, op),
               b, b)
      ->wait();
}

int steps_of(int rank) { return 2 * rank + 1; }  // the last rank has the most data

}  // namespace

TEST_CASE("join: uneven steps per rank, sums over the ranks that submitted, zeros from the rest") {
  // Cached and negotiated responses alike, and a cache of 2 that the 2 tensors per step and the
  // join keep evicting from.
  for (size_t cache : {size_t{1024}, size_t{2}, size_t{0}}) {
    for (int size : {1, 2, 3, 4}) {
      CAPTURE(cache);
      CAPTURE(size);
      spawn_joining(
          size,
          [size](int rank, core::Runtime& rt) {
            for (int step = 0; step < steps_of(rank); ++step) {
              // Two tensors per step, submitted together, so that they fuse.
              std::vector<double> a(3, rank + 1.0), b(5, 10.0 * (rank + 1));
              BufferView av{a.data(), a.size(), DataType::kFloat64, {}};
              BufferView bv{b.data(), b.size(), DataType::kFloat64, {}};
              auto ha = rt.enqueue(
                  join_request("a", control::OpType::kAllreduce, DataType::kFloat64, {3}), av, av);
              auto hb = rt.enqueue(
                  join_request("b", control::OpType::kAllreduce, DataType::kFloat64, {5}), bv, bv);
              REQUIRE(ha->wait().ok());
              REQUIRE(hb->wait().ok());
              double want = 0;  // ranks that still have data at this step
              for (int r = 0; r < size; ++r) want += steps_of(r) > step ? r + 1.0 : 0.0;
              CHECK(a[0] == want);
              CHECK(a[2] == want);
              CHECK(b[4] == 10.0 * want);
            }
            CHECK(join_ok(rt) == size - 1);
          },
          cache);
    }
  }
}

TEST_CASE("join: average divides by every rank, joined ones included (Horovod's semantics)") {
  spawn_joining(4, [](int rank, core::Runtime& rt) {
    for (int step = 0; step < steps_of(rank); ++step) {
      std::vector<double> g(4, 8.0);
      REQUIRE(allreduce(rt, "avg", g, ReduceOp::kAverage).ok());
      double ranks_with_data = 0;
      for (int r = 0; r < 4; ++r) ranks_with_data += steps_of(r) > step ? 1 : 0;
      CHECK(g[0] == doctest::Approx(8.0 * ranks_with_data / 4));
    }
    CHECK(join_ok(rt) == 3);
  });
}

TEST_CASE("join: with nothing in flight, twice in a row, and collectives afterwards") {
  spawn_joining(3, [](int rank, core::Runtime& rt) {
    const int first = join_ok(rt);
    CHECK(first >= 0);
    CHECK(first < 3);
    CHECK(join_ok(rt) >= 0);
    // Every rank is active again: a plain allreduce and a broadcast run as before.
    std::vector<double> x(2, rank + 1.0);
    REQUIRE(allreduce(rt, "after", x).ok());
    CHECK(x[0] == 6.0);
    std::vector<float> b(2, static_cast<float>(rank));
    BufferView bb{b.data(), b.size(), DataType::kFloat32, {}};
    control::Request br = join_request("bc", control::OpType::kBroadcast, DataType::kFloat32, {2});
    br.root = 1;
    REQUIRE(rt.enqueue(br, bb, bb)->wait().ok());
    CHECK(b[1] == 1.0f);
    // And a second uneven round, after the first join reset every rank.
    for (int step = 0; step < 3 - rank; ++step) {
      std::vector<double> y(1, 1.0);
      REQUIRE(allreduce(rt, "after", y).ok());
      CHECK(y[0] == static_cast<double>(3 - step));  // ranks 0..2 run 3, 2, 1 steps
    }
    CHECK(join_ok(rt) == 0);
  });
}

TEST_CASE(
    "join: other collectives fail on the ranks that submitted them, naming the joined; "
    "a min takes the zeros") {
  for (size_t cache : {size_t{1024}, size_t{0}}) {
    CAPTURE(cache);
    spawn_joining(
        3,
        [](int rank, core::Runtime& rt) {
          // A broadcast every rank runs first, so that (with the cache on) it is cached, and the
          // refusal below goes through the joined rank's invalidation of it.
          std::vector<float> b(2, static_cast<float>(rank));
          BufferView bb{b.data(), b.size(), DataType::kFloat32, {}};
          control::Request br =
              join_request("bc", control::OpType::kBroadcast, DataType::kFloat32, {2});
          br.root = 2;
          REQUIRE(rt.enqueue(br, bb, bb)->wait().ok());
          if (rank == 2) {
            CHECK(join_ok(rt) == 1);
            return;
          }
          const hvd::Status bs = rt.enqueue(br, bb, bb)->wait();
          REQUIRE_FALSE(bs.ok());
          CHECK_MESSAGE(bs.message().find("broadcast 'bc' cannot run while rank(s) 2 have "
                                          "joined") != std::string::npos,
                        bs.message());
          std::vector<int32_t> g(2, rank);
          BufferView gb{g.data(), g.size(), DataType::kInt32, {}};
          const hvd::Status gs =
              rt.enqueue(join_request("g", control::OpType::kAllgather, DataType::kInt32, {1, 2}),
                         gb, gb)
                  ->wait();
          CHECK_MESSAGE(
              gs.message().find("only allreduce runs with joined ranks") != std::string::npos,
              gs.message());
          // Every allreduce op takes the joined rank's zeros, as Horovod's: the min of 5, 5, 0.
          std::vector<double> m(2, 5.0);
          const hvd::Status ms = allreduce(rt, "min", m, ReduceOp::kMin);
          REQUIRE_MESSAGE(ms.ok(), ms.message());
          CHECK(m[0] == 0.0);
          // Sums still run, and the ranks join in turn.
          std::vector<double> s(2, 1.0);
          REQUIRE(allreduce(rt, "sum", s).ok());
          CHECK(s[0] == 2.0);
          if (rank == 1) {
            std::vector<double> t(2, 1.0);
            REQUIRE(allreduce(rt, "sum", t).ok());  // rank 0 joins meanwhile, or already has
            CHECK(t[0] == 1.0);
          }
          CHECK(join_ok(rt) == 1);
        },
        cache);
  }
}

TEST_CASE("join: a rank that joined with a tensor of its own in flight contributes that tensor") {
  spawn_joining(2, [](int rank, core::Runtime& rt) {
    std::vector<double> mine(2, rank + 1.0);
    BufferView mv{mine.data(), mine.size(), DataType::kFloat64, {}};
    std::shared_ptr<core::HandleState> h;
    if (rank == 0) {
      // Submitted, then joined before it completes: its data still counts.
      h = rt.enqueue(join_request("own", control::OpType::kAllreduce, DataType::kFloat64, {2}), mv,
                     mv);
      join_ok(rt);  // which rank joined last depends on the threads' timing here
      REQUIRE(h->wait().ok());
      CHECK(mine[0] == 3.0);
      return;
    }
    REQUIRE(allreduce(rt, "own", mine).ok());
    CHECK(mine[0] == 3.0);
    join_ok(rt);
  });
}

TEST_CASE("join: a grouped allreduce runs whole with zeros for the joined ranks") {
  spawn_joining(3, [](int rank, core::Runtime& rt) {
    for (int step = 0; step < steps_of(rank); ++step) {
      std::vector<double> a(2, 1.0), b(3, 2.0);
      BufferView av{a.data(), a.size(), DataType::kFloat64, {}};
      BufferView bv{b.data(), b.size(), DataType::kFloat64, {}};
      control::Request ra =
          join_request("grp.a", control::OpType::kAllreduce, DataType::kFloat64, {2});
      control::Request rb =
          join_request("grp.b", control::OpType::kAllreduce, DataType::kFloat64, {3});
      ra.group = rb.group = 7;
      for (auto& h : rt.enqueue_group({ra, rb}, {av, bv}, {av, bv})) REQUIRE(h->wait().ok());
      double with_data = 0;
      for (int r = 0; r < 3; ++r) with_data += steps_of(r) > step ? 1 : 0;
      CHECK(a[1] == with_data);
      CHECK(b[2] == 2.0 * with_data);
    }
    CHECK(join_ok(rt) == 2);
  });
}
