// SPDX-License-Identifier: Apache-2.0
// Cycles run by the threads that wait on handles (issue 14), together with the background
// loop: ranks as threads, each rank's Runtime over fakes. Runs in the TSan tree in CI.

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/runtime.h"
#include "fakes/fake_backend.h"
#include "fakes/fake_channel.h"
#include "fakes/runtime_world.h"
#include "fakes/thread_world.h"
#include "hvd/error.h"

namespace core = hvd::core;
namespace control = hvd::control;
using hvd::BufferView;
using hvd::DataType;

namespace {

// Long enough that the loop never runs a periodic cycle while a test runs: every cycle is then
// run by a caller, or by the loop woken by an enqueue.
constexpr std::chrono::hours kNoPeriodicCycle{1};

control::Request allreduce_of(const std::string& name, size_t count) {
  return hvd::test::request(name, control::OpType::kAllreduce, DataType::kFloat32,
                            {static_cast<int64_t>(count)});
}

// An allreduce of 13 elements throws, on every rank alike (before exchanging, so that no rank
// waits for another); the thread it threw on is recorded.
class ThrowingBackend : public hvd::test::FakeBackend {
 public:
  static constexpr size_t kThrowingCount = 13;
  ThrowingBackend(hvd::test::FakeChannelHub& hub, int rank, std::atomic<std::thread::id>& thrower)
      : FakeBackend(hub, rank), thrower_(thrower) {}
  void allreduce(BufferView buf, hvd::ReduceOp op) override {
    if (buf.count == kThrowingCount) {
      thrower_ = std::this_thread::get_id();
      throw hvd::BackendError("the fake backend failed on purpose");
    }
    FakeBackend::allreduce(buf, op);
  }

 private:
  std::atomic<std::thread::id>& thrower_;
};

// One float 1.0 per rank, summed: returns the sum (the number of ranks when all went well).
float sum_of_ones(core::Runtime& rt, const std::string& name) {
  std::vector<float> x{1.0f};
  BufferView b{x.data(), 1, DataType::kFloat32, {}};
  const hvd::Status s = rt.enqueue(allreduce_of(name, 1), b, b)->wait();
  REQUIRE_MESSAGE(s.ok(), s.message());
  return x[0];
}

// Allreduces until every rank saw a caller run its latest cycle before the step. From then on
// the loop sleeps (an enqueue after a caller's cycle does not wake it, and kNoPeriodicCycle), so
// that every later cycle runs on the thread that waits. Collective.
void until_callers_drive(core::Runtime& rt) {
  for (int step = 0;; ++step) {
    REQUIRE(step < 10000);
    std::vector<float> loop_ran_last{rt.turns().caller_ran_last() ? 0.0f : 1.0f};
    BufferView b{loop_ran_last.data(), 1, DataType::kFloat32, {}};
    REQUIRE(rt.enqueue(allreduce_of("warm." + std::to_string(step), 1), b, b)->wait().ok());
    if (loop_ran_last[0] == 0.0f) return;
  }
}

}  // namespace

TEST_CASE("caller cycles: threads that wait race the background loop, and every sum is exact") {
  // A short cycle time keeps the loop busy with periodic cycles beside the callers'; one
  // thread per rank only polls, so that its tensors are cycled by the loop or by other callers.
  constexpr int kRanks = 3, kThreads = 3, kSteps = 60;
  core::RuntimeOptions options;
  options.cycle_time = std::chrono::microseconds(20);
  hvd::test::spawn_runtimes(kRanks, options, [](int rank, core::Runtime& rt) {
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&rt, &wrong, rank, t] {
        for (int step = 0; step < kSteps; ++step) {
          std::vector<float> x(static_cast<size_t>(1 + step % 5), static_cast<float>(rank + t));
          BufferView b{x.data(), x.size(), DataType::kFloat32, {}};
          const std::string name = "t" + std::to_string(t) + "." + std::to_string(step);
          const auto h = rt.enqueue(allreduce_of(name, x.size()), b, b);
          if (t == 0) {
            while (!h->done()) std::this_thread::yield();
          }
          if (!h->wait().ok()) ++wrong;
          // Sum over ranks of (rank + t).
          const float want = static_cast<float>(kRanks * (kRanks - 1) / 2 + kRanks * t);
          for (float v : x) {
            if (v != want) ++wrong;
          }
        }
      });
    }
    for (std::thread& th : threads) th.join();
    CHECK(wrong.load() == 0);
  });
}

TEST_CASE("caller cycles: once a caller ran the latest cycle, the next ones run on its thread") {
  core::RuntimeOptions options;
  options.cycle_time = kNoPeriodicCycle;
  hvd::test::spawn_runtimes(2, options, [](int, core::Runtime& rt) {
    until_callers_drive(rt);
    const uint64_t loop_before = rt.turns().loop_cycles();
    const uint64_t callers_before = rt.turns().caller_cycles();
    for (int step = 0; step < 20; ++step) CHECK(sum_of_ones(rt, "s" + std::to_string(step)) == 2);
    CHECK(rt.turns().loop_cycles() == loop_before);
    CHECK(rt.turns().caller_cycles() >= callers_before + 20);
  });
}

TEST_CASE("caller cycles: an exception in a caller's cycle fails every pending handle") {
  constexpr int kRanks = 2;
  core::RuntimeOptions options;
  options.cycle_time = kNoPeriodicCycle;
  hvd::test::FakeChannelHub channel_hub(kRanks), backend_hub(kRanks);
  hvd::test::spawn(kRanks, [&](int rank) {
    std::atomic<std::thread::id> thrower{};
    hvd::bootstrap::WorldInfo world;
    world.rank = rank;
    world.size = kRanks;
    core::Runtime rt(world, std::make_unique<hvd::test::FakeChannel>(channel_hub, rank),
                     std::make_unique<ThrowingBackend>(backend_hub, rank, thrower), options);
    until_callers_drive(rt);
    // Only rank 0 submits "lonely": it stays pending, and a second thread waits on it (and so
    // takes turns running cycles with the first).
    std::vector<float> lonely(2), boom(ThrowingBackend::kThrowingCount);
    BufferView lb{lonely.data(), lonely.size(), DataType::kFloat32, {}};
    BufferView bb{boom.data(), boom.size(), DataType::kFloat32, {}};
    const uint64_t loop_before = rt.turns().loop_cycles();
    std::shared_ptr<core::HandleState> pending;
    hvd::Status pending_status;
    std::thread other;
    if (rank == 0) {
      pending = rt.enqueue(allreduce_of("lonely", lonely.size()), lb, lb);
      other = std::thread([&] { pending_status = pending->wait(); });
    }
    const std::thread::id other_id = other.get_id();
    const hvd::Status failed = rt.enqueue(allreduce_of("boom", boom.size()), bb, bb)->wait();
    if (other.joinable()) other.join();
    CHECK(failed.code() == hvd::ErrorCode::kBackend);
    CHECK(failed.message().find("failed on purpose") != std::string::npos);
    const std::thread::id threw_on = thrower.load();
    // The loop slept throughout: the cycle that threw ran on a thread that waited.
    CHECK(rt.turns().loop_cycles() == loop_before);
    CHECK((threw_on == std::this_thread::get_id() || threw_on == other_id));
    if (rank == 0) {
      CHECK(pending_status.code() == hvd::ErrorCode::kBackend);
      CHECK(pending_status.message() == failed.message());
    }
    // Later calls get the same error.
    std::vector<float> late(1);
    BufferView later{late.data(), 1, DataType::kFloat32, {}};
    CHECK(rt.enqueue(allreduce_of("late", 1), later, later)->wait().message() == failed.message());
  });
}

TEST_CASE("caller cycles: the thread that ran the failing cycle is the one that waited") {
  core::RuntimeOptions options;
  options.cycle_time = kNoPeriodicCycle;
  hvd::test::FakeChannelHub channel_hub(1), backend_hub(1);
  std::atomic<std::thread::id> thrower{};
  hvd::bootstrap::WorldInfo world;
  world.rank = 0;
  world.size = 1;
  core::Runtime rt(world, std::make_unique<hvd::test::FakeChannel>(channel_hub, 0),
                   std::make_unique<ThrowingBackend>(backend_hub, 0, thrower), options);
  until_callers_drive(rt);
  std::vector<float> boom(ThrowingBackend::kThrowingCount);
  BufferView bb{boom.data(), boom.size(), DataType::kFloat32, {}};
  CHECK_FALSE(rt.enqueue(allreduce_of("boom", boom.size()), bb, bb)->wait().ok());
  CHECK(thrower.load() == std::this_thread::get_id());
}

TEST_CASE("caller cycles: shutdown while a caller runs cycles for a tensor that never completes") {
  core::RuntimeOptions options;
  options.cycle_time = std::chrono::microseconds(200);
  // Rank 1 shuts down only once rank 0's caller has run a cycle: a shutdown before would stop
  // rank 0 in whichever cycle came first, perhaps before its caller drove any.
  std::atomic<bool> caller_drives{false};
  hvd::test::spawn_runtimes(2, options, [&caller_drives](int rank, core::Runtime& rt) {
    std::vector<float> x(2);
    BufferView xb{x.data(), 2, DataType::kFloat32, {}};
    hvd::Status waited;
    std::thread waiter;
    if (rank == 0) {
      // Rank 1 never submits it: the waiting thread drives cycles until shutdown.
      const auto h = rt.enqueue(allreduce_of("never", 2), xb, xb);
      waiter = std::thread([h, &waited] { waited = h->wait(); });
      while (rt.turns().caller_cycles() == 0) std::this_thread::yield();
      caller_drives = true;
    } else {
      while (!caller_drives.load()) std::this_thread::yield();
    }
    rt.shutdown();
    if (waiter.joinable()) waiter.join();
    if (rank == 0) CHECK(waited.message() == "libhvd has been shut down");
    CHECK(rt.enqueue(allreduce_of("after", 2), xb, xb)->wait().message() ==
          "libhvd has been shut down");
  });
}

TEST_CASE("caller cycles: once a CUDA tensor is queued, only the loop runs cycles") {
  // The GPU lane's device is current on the loop's thread only (runtime.cc). This build's fake
  // runtime has no GPU lane, so the CUDA tensor itself fails; what matters is who runs after.
  core::RuntimeOptions options;
  options.cycle_time = std::chrono::microseconds(200);
  hvd::test::spawn_runtimes(1, options, [](int, core::Runtime& rt) {
    CHECK(sum_of_ones(rt, "before") == 1);
    std::vector<float> x(2);
    BufferView gpu{x.data(), 2, DataType::kFloat32, hvd::Device{0}};
    control::Request r = allreduce_of("on.gpu", 2);
    r.device = hvd::Device{0};
    CHECK_FALSE(rt.enqueue(r, gpu, gpu)->wait().ok());
    const uint64_t callers_before = rt.turns().caller_cycles();
    for (int step = 0; step < 5; ++step) CHECK(sum_of_ones(rt, "after" + std::to_string(step)) == 1);
    CHECK(rt.turns().caller_cycles() == callers_before);
    CHECK_FALSE(rt.turns().caller_ran_last());
  });
}

TEST_CASE("caller cycles: a lone rank completes CPU tensors at submit, its loop stays asleep") {
  // A short cycle time: a loop that still woke for periodic cycles would run dozens here.
  core::RuntimeOptions options;
  options.cycle_time = std::chrono::microseconds(200);
  hvd::test::spawn_runtimes(1, options, [](int, core::Runtime& rt) {
    for (int step = 0; step < 20; ++step) {
      std::vector<float> x{2.0f, 3.0f};
      BufferView b{x.data(), 2, DataType::kFloat32, {}};
      const auto h = rt.enqueue(allreduce_of("one." + std::to_string(step), 2), b, b);
      CHECK(h->done());  // before anyone waited or polled
      CHECK(h->wait().ok());
      CHECK(x == std::vector<float>{2.0f, 3.0f});
    }
    std::vector<float> x(3, 1.0f), y(4, 1.0f);
    const std::vector<BufferView> views{{x.data(), 3, DataType::kFloat32, {}},
                                        {y.data(), 4, DataType::kFloat32, {}}};
    const auto group = rt.enqueue_group({allreduce_of("g.x", 3), allreduce_of("g.y", 4)}, views,
                                        views);
    for (const auto& h : group) CHECK(h->done());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(rt.turns().loop_cycles() == 0);
  });
}
