// SPDX-License-Identifier: Apache-2.0
// The runtime's loop, controller, executor and fusion together, with N ranks as threads.

#include "core/runtime.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "fakes/fake_backend.h"
#include "fakes/fake_channel.h"
#include "fakes/runtime_world.h"
#include "fakes/thread_world.h"

namespace core = hvd::core;
namespace control = hvd::control;
using hvd::BufferView;
using hvd::DataType;
using hvd::test::FakeBackend;
using hvd::test::FakeChannel;
using hvd::test::FakeChannelHub;

namespace {

// Runs `body` as `size` ranks on threads, each with its own Runtime; rethrows the first failure.
void spawn(int size, const std::function<void(int, core::Runtime&)>& body,
           size_t fusion_threshold = size_t{64} << 20,
           std::chrono::microseconds cycle_time = std::chrono::microseconds(200)) {
  core::RuntimeOptions options;
  options.controller.fusion_threshold_bytes = fusion_threshold;
  options.cycle_time = cycle_time;
  hvd::test::spawn_runtimes(size, options, body);
}

control::Request req(const std::string& name, control::OpType type, DataType dtype,
                     std::vector<int64_t> shape, hvd::ReduceOp op = hvd::ReduceOp::kSum) {
  return hvd::test::request(name, type, dtype, std::move(shape), op);
}

}  // namespace

TEST_CASE("runtime: hundreds of small tensors in different orders are reduced exactly") {
  for (int size : {1, 3, 4}) {
    CAPTURE(size);
    spawn(size, [size](int rank, core::Runtime& rt) {
      constexpr int kTensors = 200;
      std::vector<std::vector<int64_t>> data(kTensors);
      std::vector<int> order(kTensors);
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), std::mt19937(static_cast<unsigned>(rank)));
      std::vector<std::shared_ptr<core::HandleState>> handles(kTensors);
      for (int i : order) {
        data[static_cast<size_t>(i)].assign(static_cast<size_t>(1 + i % 7), rank * 1000 + i);
        auto& d = data[static_cast<size_t>(i)];
        BufferView buf{d.data(), d.size(), DataType::kInt64, {}};
        handles[static_cast<size_t>(i)] =
            rt.enqueue(req("t" + std::to_string(i), control::OpType::kAllreduce, DataType::kInt64,
                           {static_cast<int64_t>(d.size())}),
                       buf, buf);
      }
      for (int i = 0; i < kTensors; ++i) {
        REQUIRE(handles[static_cast<size_t>(i)]->wait().ok());
        const int64_t want = 1000 * size * (size - 1) / 2 + static_cast<int64_t>(size) * i;
        for (int64_t v : data[static_cast<size_t>(i)]) CHECK(v == want);
      }
    });
  }
}

TEST_CASE("runtime: average, broadcast, allgather with uneven first dimensions") {
  spawn(3, [](int rank, core::Runtime& rt) {
    std::vector<double> avg(5, rank * 3.0);
    BufferView a{avg.data(), avg.size(), DataType::kFloat64, {}};
    auto h1 = rt.enqueue(
        req("avg", control::OpType::kAllreduce, DataType::kFloat64, {5}, hvd::ReduceOp::kAverage),
        a, a);
    std::vector<float> b(4, static_cast<float>(rank));
    BufferView bb{b.data(), b.size(), DataType::kFloat32, {}};
    control::Request br = req("b", control::OpType::kBroadcast, DataType::kFloat32, {4});
    br.root = 2;
    auto h2 = rt.enqueue(br, bb, bb);
    std::vector<int32_t> g(static_cast<size_t>(2 * (rank + 1)), rank);  // rank+1 rows of 2
    BufferView gb{g.data(), g.size(), DataType::kInt32, {}};
    auto h3 =
        rt.enqueue(req("g", control::OpType::kAllgather, DataType::kInt32, {rank + 1, 2}), gb, gb);
    REQUIRE(h1->wait().ok());
    REQUIRE(h2->wait().ok());
    REQUIRE(h3->wait().ok());
    for (double v : avg) CHECK(v == doctest::Approx(3.0));  // (0 + 3 + 6) / 3
    for (float v : b) CHECK(v == 2.0f);
    CHECK(h3->output_shape == std::vector<int64_t>{6, 2});
    const auto* out = reinterpret_cast<const int32_t*>(h3->output.data());
    CHECK(std::vector<int32_t>(out, out + 12) ==
          std::vector<int32_t>{0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2});
  });
}

TEST_CASE("runtime: a disagreement fails that tensor on every rank and the rest still runs") {
  // Rank 1 submits "z" only after rank 0 has seen its second "z" refused: otherwise the first
  // "z" could complete before the second is enqueued, which is then no duplicate at all.
  std::atomic<bool> refusal_checked{false};
  spawn(2, [&refusal_checked](int rank, core::Runtime& rt) {
    std::vector<float> x(3, 1.0f), y(rank == 0 ? 3 : 4, 1.0f);
    BufferView xb{x.data(), x.size(), DataType::kFloat32, {}};
    BufferView yb{y.data(), y.size(), DataType::kFloat32, {}};
    auto hy = rt.enqueue(
        req("y", control::OpType::kAllreduce, DataType::kFloat32, {static_cast<int64_t>(y.size())}),
        yb, yb);
    auto hx = rt.enqueue(req("x", control::OpType::kAllreduce, DataType::kFloat32, {3}), xb, xb);
    const hvd::Status sy = hy->wait();
    CHECK_FALSE(sy.ok());
    CHECK(sy.message().find("mismatched shapes for tensor 'y'") != std::string::npos);
    CHECK(hx->wait().ok());
    CHECK(x[0] == 2.0f);
    // The same name twice in flight on one rank is refused at once.
    std::vector<float> z(1);
    BufferView zb{z.data(), 1, DataType::kFloat32, {}};
    if (rank == 1) {
      while (!refusal_checked.load()) std::this_thread::yield();
    }
    auto first = rt.enqueue(req("z", control::OpType::kAllreduce, DataType::kFloat32, {1}), zb, zb);
    if (rank == 0) {
      auto again =
          rt.enqueue(req("z", control::OpType::kAllreduce, DataType::kFloat32, {1}), zb, zb);
      const std::string message = again->wait().message();
      CHECK_MESSAGE(message.find("already in flight") != std::string::npos, message);
      refusal_checked.store(true);
    }
    CHECK(first->wait().ok());
  });
}

TEST_CASE("runtime: a negative dimension on one rank fails that allgather on every rank") {
  // Issue 10's reproducer: rank 1 allgathers {-1, 4} while rank 0 is well-behaved. Before,
  // rank 0 sized its output from the wrapped row count and overflowed its heap.
  spawn(2, [](int rank, core::Runtime& rt) {
    const std::vector<int64_t> shape =
        rank == 1 ? std::vector<int64_t>{-1, 4} : std::vector<int64_t>{2, 4};
    // TensorView::count(), which the API sizes buffers with, is 0 for the invalid shape.
    std::vector<float> data(rank == 1 ? 0 : 8, 1.0f);
    BufferView b{data.data(), data.size(), DataType::kFloat32, {}};
    auto h = rt.enqueue(req("g", control::OpType::kAllgather, DataType::kFloat32, shape), b, b);
    const hvd::Status s = h->wait();
    REQUIRE_FALSE(s.ok());
    CHECK(s.code() == hvd::ErrorCode::kUsage);
    CHECK_MESSAGE(s.message().find("allgather 'g': rank 1 gave shape [-1, 4]") != std::string::npos,
                  s.message());
    CHECK(h->output.empty());
    // The runtime is unharmed: the next collective runs.
    std::vector<float> x(3, 1.0f);
    BufferView xb{x.data(), x.size(), DataType::kFloat32, {}};
    CHECK(rt.enqueue(req("x", control::OpType::kAllreduce, DataType::kFloat32, {3}), xb, xb)
              ->wait()
              .ok());
    CHECK(x[0] == 2.0f);
  });
}

TEST_CASE("runtime: a shape whose size overflows int64 is refused on every rank") {
  spawn(2, [](int, core::Runtime& rt) {
    const std::vector<int64_t> shape{int64_t{1} << 40, int64_t{1} << 40};
    BufferView b{nullptr, 0, DataType::kFloat32, {}};
    auto h = rt.enqueue(req("big", control::OpType::kAllreduce, DataType::kFloat32, shape), b, b);
    const hvd::Status s = h->wait();
    REQUIRE_FALSE(s.ok());
    CHECK_MESSAGE(s.message().find("more bytes than fit in int64") != std::string::npos,
                  s.message());
  });
}

TEST_CASE("runtime: shutdown fails what is still pending, with a clear message") {
  spawn(2, [](int rank, core::Runtime& rt) {
    std::vector<float> x(2);
    BufferView xb{x.data(), 2, DataType::kFloat32, {}};
    // Only rank 0 submits: it can never complete.
    std::shared_ptr<core::HandleState> h;
    if (rank == 0)
      h = rt.enqueue(req("lonely", control::OpType::kAllreduce, DataType::kFloat32, {2}), xb, xb);
    rt.shutdown();
    if (rank == 0) CHECK(h->wait().message() == "libhvd has been shut down");
    auto late =
        rt.enqueue(req("late", control::OpType::kAllreduce, DataType::kFloat32, {2}), xb, xb);
    CHECK_FALSE(late->wait().ok());
  });
}

TEST_CASE("runtime: an enqueue wakes an idle loop, and shutdown does not wait out the cycle") {
  // A cycle time far longer than the test may take: a loop that slept out its cycles before
  // the next one (or before noticing shutdown) would make this run for minutes.
  const auto long_cycle = std::chrono::seconds(60);
  const auto start = std::chrono::steady_clock::now();
  spawn(
      2,
      [](int rank, core::Runtime& rt) {
        for (int step = 0; step < 3; ++step) {
          std::vector<float> x{static_cast<float>(rank + step)};
          BufferView xb{x.data(), 1, DataType::kFloat32, {}};
          const std::string name = "lone." + std::to_string(step);
          auto h =
              rt.enqueue(req(name, control::OpType::kAllreduce, DataType::kFloat32, {1}), xb, xb);
          REQUIRE(h->wait().ok());
          CHECK(x[0] == static_cast<float>(1 + 2 * step));
        }
        rt.shutdown();
      },
      size_t{64} << 20, long_cycle);
  CHECK(std::chrono::steady_clock::now() - start < long_cycle);
}

TEST_CASE("runtime: a group is queued whole, and a name twice in one group is refused") {
  spawn(2, [](int, core::Runtime& rt) {
    std::vector<float> a(3, 1.0f), b(5, 2.0f);
    BufferView av{a.data(), 3, DataType::kFloat32, {}}, bv{b.data(), 5, DataType::kFloat32, {}};
    control::Request ra = req("ga", control::OpType::kAllreduce, DataType::kFloat32, {3});
    control::Request rb = req("gb", control::OpType::kAllreduce, DataType::kFloat32, {5});
    ra.group = rb.group = 1;
    // First the refusal, which is local: done after the group, it raced with the other rank's
    // shutdown (a runtime whose peer has gone fails every later enqueue with that error).
    const auto twice = rt.enqueue_group({ra, ra}, {av, av}, {av, av});
    for (auto& h : twice) {
      const std::string message = h->wait().message();
      CHECK_MESSAGE(message.find("already in flight") != std::string::npos, message);
    }
    // The refused group left nothing behind: the same names go through whole.
    for (auto& h : rt.enqueue_group({ra, rb}, {av, bv}, {av, bv})) CHECK(h->wait().ok());
    CHECK(a[0] == 2.0f);
    CHECK(b[4] == 4.0f);
  });
}
