// SPDX-License-Identifier: Apache-2.0
// Folding (control/vote_fold.h) through whole runtimes: a small cached allreduce that rides on
// the cache vote gives the result the backend gave it before it was cached, bit for bit, for
// every dtype and op, with prescale, postscale and averaging, in place or not; and it calls the
// backend no more. A tensor that must not fold (too big) still calls the backend every time.

#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "control/vote_fold.h"
#include "core/runtime.h"
#include "fakes/fake_backend.h"
#include "fakes/fake_channel.h"
#include "fakes/thread_world.h"
#include "hvd/str_cat.h"
#include "unit/runtime/common/typed_data.h"

namespace control = hvd::control;
namespace core = hvd::core;
namespace test = hvd::test;
using hvd::BufferView;
using hvd::DataType;
using hvd::ReduceOp;

namespace {

// The fake backend, counting its allreduces.
class CountingBackend : public test::FakeBackend {
 public:
  CountingBackend(test::FakeChannelHub& hub, int rank, long& calls)
      : FakeBackend(hub, rank), calls_(calls) {}
  void allreduce(BufferView buf, ReduceOp op) override {
    ++calls_;
    FakeBackend::allreduce(buf, op);
  }

 private:
  long& calls_;
};

control::Request allreduce_request(const std::string& name, DataType dt, ReduceOp op,
                                   size_t count) {
  control::Request r;
  r.name = name;
  r.type = control::OpType::kAllreduce;
  r.dtype = dt;
  r.op = op;
  r.shape = {static_cast<int64_t>(count)};
  r.prescale = 0.5;
  r.postscale = 3.0;
  return r;
}

// Runs `body(rank, runtime, backend_calls)` as `size` ranks.
template <typename Body>
void spawn_counted(int size, Body&& body) {
  test::FakeChannelHub channel_hub(size), backend_hub(size);
  test::spawn(size, [&](int rank) {
    hvd::bootstrap::WorldInfo world;
    world.rank = rank;
    world.size = size;
    core::RuntimeOptions options;
    options.cycle_time = std::chrono::microseconds(200);
    long calls = 0;
    core::Runtime rt(world, std::make_unique<test::FakeChannel>(channel_hub, rank),
                     std::make_unique<CountingBackend>(backend_hub, rank, calls), options);
    body(rank, rt, calls);
  });
}

void run(core::Runtime& rt, const control::Request& r, void* in, void* out, size_t count) {
  const hvd::Status s = rt.enqueue(r, {in, count, r.dtype, {}}, {out, count, r.dtype, {}})->wait();
  REQUIRE_MESSAGE(s.ok(), s.message());
}

}  // namespace

TEST_CASE("folding: the same results as the backend's, every dtype and op, 1 to 8 ranks") {
  for (int size = 1; size <= 8; ++size) {
    CAPTURE(size);
    spawn_counted(size, [&](int rank, core::Runtime& rt, long& calls) {
      for (const DataType dt : test::kAllDtypes) {
        for (const ReduceOp op : test::kAllOps) {
          const size_t count = control::kFoldBytes / hvd::dtype_size(dt);  // the most that folds
          const control::Request r =
              allreduce_request(hvd::str_cat(dtype_name(dt), "/", op_name(op)), dt, op, count);
          const std::vector<char> in = test::make_input(dt, op, rank, count);
          std::vector<char> input = in, by_backend(in.size()), folded(in.size());
          run(rt, r, input.data(), by_backend.data(), count);  // negotiated: the backend runs it
          const long backend_calls = calls;
          run(rt, r, input.data(), folded.data(), count);  // cached: rides on the vote
          CHECK(calls == backend_calls);
          CHECK(input == in);  // the prescale did not touch the caller's input
          CHECK(std::memcmp(folded.data(), by_backend.data(), in.size()) == 0);
          run(rt, r, input.data(), input.data(), count);  // in place
          CHECK(calls == backend_calls);
          CHECK(std::memcmp(input.data(), by_backend.data(), in.size()) == 0);
        }
      }
    });
  }
}

TEST_CASE("folding: a tensor one element too big for the vote calls the backend every time") {
  spawn_counted(3, [&](int rank, core::Runtime& rt, long& calls) {
    const size_t count = control::kFoldBytes / sizeof(float) + 1;
    const control::Request r = allreduce_request("big", DataType::kFloat32, ReduceOp::kSum, count);
    std::vector<float> in(count, static_cast<float>(rank + 1)), out(count);
    for (long step = 1; step <= 3; ++step) {
      run(rt, r, in.data(), out.data(), count);
      CHECK(calls == step);
      CHECK(out == std::vector<float>(count, 9.0f));  // 0.5 * (1 + 2 + 3) * 3
    }
  });
}

TEST_CASE("folding: ranks submitting at their own pace, with tensors mixed in cycles") {
  // Each rank enqueues two small tensors per step. Even steps: in the same order everywhere,
  // waiting on the first before the second (one tensor per cycle: folded). Odd steps: in a
  // rank-dependent order without waiting in between (cycles with one or both, mixed).
  spawn_counted(4, [&](int rank, core::Runtime& rt, long&) {
    for (int step = 0; step < 30; ++step) {
      std::vector<float> a(4, static_cast<float>(rank + step)), b(2, static_cast<float>(rank));
      const control::Request ra = allreduce_request("a", DataType::kFloat32, ReduceOp::kSum, 4);
      control::Request rb = allreduce_request("b", DataType::kFloat32, ReduceOp::kAverage, 2);
      const bool a_first = step % 2 == 0 || (rank + step) % 3 != 0;
      auto first = a_first ? rt.enqueue(ra, {a.data(), 4, DataType::kFloat32, {}},
                                        {a.data(), 4, DataType::kFloat32, {}})
                           : rt.enqueue(rb, {b.data(), 2, DataType::kFloat32, {}},
                                        {b.data(), 2, DataType::kFloat32, {}});
      if (step % 2 == 0) REQUIRE(first->wait().ok());
      auto second = a_first ? rt.enqueue(rb, {b.data(), 2, DataType::kFloat32, {}},
                                         {b.data(), 2, DataType::kFloat32, {}})
                            : rt.enqueue(ra, {a.data(), 4, DataType::kFloat32, {}},
                                         {a.data(), 4, DataType::kFloat32, {}});
      REQUIRE(first->wait().ok());
      REQUIRE(second->wait().ok());
      // a: 0.5 * sum(rank + step) * 3 = 1.5 * (6 + 4 step); b: 0.5 * 1.5 * 3 = 2.25
      CHECK(a == std::vector<float>(4, 1.5f * static_cast<float>(6 + 4 * step)));
      CHECK(b == std::vector<float>(2, 2.25f));
    }
  });
}
