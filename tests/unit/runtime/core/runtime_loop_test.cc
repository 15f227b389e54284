// SPDX-License-Identifier: Apache-2.0
// When the background loop runs a cycle (core/runtime_loop.cc): tensors submitted in a burst
// share one, as in Horovod, whose loop takes whatever was queued once per cycle time. Ranks as
// threads, each rank's Runtime over fakes; the fake backend counts the allreduces it runs.

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
#include "fakes/thread_world.h"

namespace core = hvd::core;
namespace control = hvd::control;
using hvd::BufferView;
using hvd::DataType;

namespace {

class CountingBackend : public hvd::test::FakeBackend {
 public:
  CountingBackend(hvd::test::FakeChannelHub& hub, int rank, std::atomic<int>& allreduces)
      : FakeBackend(hub, rank), allreduces_(allreduces) {}
  void allreduce(BufferView buf, hvd::ReduceOp op) override {
    ++allreduces_;
    FakeBackend::allreduce(buf, op);
  }

 private:
  std::atomic<int>& allreduces_;
};

control::Request loop_allreduce_of(const std::string& name, size_t count) {
  control::Request r;
  r.name = name;
  r.type = control::OpType::kAllreduce;
  r.dtype = DataType::kFloat32;
  r.shape = {static_cast<int64_t>(count)};
  r.op = hvd::ReduceOp::kSum;
  return r;
}

// Each rank submits `tensors` allreduces `gap` apart and waits for none of them (as a backward
// pass's hooks do), then polls until all are done. Returns, per rank, how many allreduces its
// backend ran, after checking every sum against the ranks' inputs.
std::vector<int> burst_of(int ranks, int tensors, std::chrono::milliseconds gap,
                          std::chrono::microseconds cycle_time) {
  core::RuntimeOptions options;
  options.cycle_time = cycle_time;
  hvd::test::FakeChannelHub channel_hub(ranks), backend_hub(ranks);
  std::vector<std::atomic<int>> allreduces(static_cast<size_t>(ranks));
  std::vector<int> counts(static_cast<size_t>(ranks));
  hvd::test::spawn(ranks, [&](int rank) {
    hvd::bootstrap::WorldInfo world;
    world.rank = rank;
    world.size = ranks;
    std::atomic<int>& mine = allreduces[static_cast<size_t>(rank)];
    core::Runtime rt(world, std::make_unique<hvd::test::FakeChannel>(channel_hub, rank),
                     std::make_unique<CountingBackend>(backend_hub, rank, mine), options);
    std::vector<std::vector<float>> data;
    for (int t = 0; t < tensors; ++t) {
      // Element i of tensor t on rank r: r + t + i, summed over the ranks below.
      std::vector<float> x(4);
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(rank + t + i);
      data.push_back(std::move(x));
    }
    std::vector<std::shared_ptr<core::HandleState>> handles;
    for (int t = 0; t < tensors; ++t) {
      if (t > 0) std::this_thread::sleep_for(gap);
      auto& x = data[static_cast<size_t>(t)];
      BufferView b{x.data(), x.size(), DataType::kFloat32, {}};
      handles.push_back(
          rt.enqueue(loop_allreduce_of("burst." + std::to_string(t), x.size()), b, b));
    }
    for (const auto& h : handles) {
      while (!h->done()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      CHECK(h->wait().ok());
    }
    for (int t = 0; t < tensors; ++t) {
      for (size_t i = 0; i < 4; ++i) {
        float want = 0;
        for (int r = 0; r < ranks; ++r) want += static_cast<float>(r + t + i);
        CHECK(data[static_cast<size_t>(t)][i] == want);
      }
    }
    counts[static_cast<size_t>(rank)] = mine.load();
  });
  return counts;
}

}  // namespace

TEST_CASE(
    "loop: tensors submitted within a cycle time of the first share one cycle and one "
    "fused allreduce") {
  // 5 tensors 2 ms apart, well inside a 300 ms cycle time: the enqueue of the first wakes the
  // loop, which waits out the cycle time for the rest (before, it voted at once, with only the
  // first, and the others followed in cycles of their own).
  for (const int ranks : {2, 3}) {
    CAPTURE(ranks);
    for (const int allreduces :
         burst_of(ranks, 5, std::chrono::milliseconds(2), std::chrono::milliseconds(300))) {
      CHECK(allreduces == 1);
    }
  }
}

TEST_CASE("loop: tensors submitted more than a cycle time apart are not held for each other") {
  // The same burst with a cycle time shorter than the gap: each tensor is cycled on its own,
  // so a tensor waits at most a cycle time for company.
  for (const int allreduces :
       burst_of(2, 3, std::chrono::milliseconds(60), std::chrono::milliseconds(1))) {
    CHECK(allreduces == 3);
  }
}

TEST_CASE(
    "loop: a cycle time after a caller's cycle with nothing queued, enqueues wake the loop "
    "again, without a vote") {
  // The hooks of a training step's backward pass come after the optimizer's synchronize() ran
  // the previous step's cycles on the caller's thread, and nobody waits for them until the
  // next synchronize(): the loop must take them, so that they overlap the backward pass.
  core::RuntimeOptions options;
  options.cycle_time = std::chrono::milliseconds(10);
  hvd::test::FakeChannelHub channel_hub(2), backend_hub(2);
  hvd::test::spawn(2, [&](int rank) {
    hvd::bootstrap::WorldInfo world;
    world.rank = rank;
    world.size = 2;
    core::Runtime rt(world, std::make_unique<hvd::test::FakeChannel>(channel_hub, rank),
                     std::make_unique<hvd::test::FakeBackend>(backend_hub, rank), options);
    // Caller-run cycles, enough of them without other process sets that the periodic vote is
    // 100 ms away (vote_period()).
    for (int step = 0; step < 12; ++step) {
      std::vector<float> x{1.0f};
      BufferView b{x.data(), 1, DataType::kFloat32, {}};
      REQUIRE(
          rt.enqueue(loop_allreduce_of("caller." + std::to_string(step), 1), b, b)->wait().ok());
      CHECK(x[0] == 2.0f);
    }
    REQUIRE(rt.turns().caller_ran_last());
    const uint64_t loop_before = rt.turns().loop_cycles();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK_FALSE(rt.turns().caller_ran_last());
    CHECK(rt.turns().loop_cycles() == loop_before);  // handed back without a vote
    std::vector<float> y{static_cast<float>(rank)};
    BufferView b{y.data(), 1, DataType::kFloat32, {}};
    const auto h = rt.enqueue(loop_allreduce_of("hook", 1), b, b);
    while (!h->done()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(h->wait().ok());
    CHECK(y[0] == 1.0f);
    CHECK(rt.turns().loop_cycles() > loop_before);
  });
}
