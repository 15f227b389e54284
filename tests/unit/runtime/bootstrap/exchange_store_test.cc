// SPDX-License-Identifier: Apache-2.0
// ExchangeStore (the PMIx and MPI stores' semantics) over an in-process allgather: N ranks as
// threads.
#include "bootstrap/exchange_store.h"

#include <doctest/doctest.h>

#include <condition_variable>
#include <memory>
#include <mutex>

#include "hvd/error.h"
#include "rank_threads.h"

namespace boot = hvd::bootstrap;
using std::chrono::milliseconds;

namespace {

constexpr milliseconds kLong(20000);  // liveness bound, never reached when things work
constexpr milliseconds kShort(200);   // meant to expire

// The allgather of `size` threads: the last to arrive publishes everyone's blobs.
class Hub {
 public:
  explicit Hub(int size) : size_(size), slots_(static_cast<size_t>(size)) {}
  int size() const { return size_; }
  std::vector<std::string> allgather(int rank, const std::string& mine, milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    slots_[static_cast<size_t>(rank)] = mine;
    const uint64_t round = round_;
    if (++arrived_ == size_) {
      result_ = slots_;
      arrived_ = 0;
      ++round_;
      ready_.notify_all();
      return result_;
    }
    if (!ready_.wait_for(lock, timeout, [&] { return round_ != round; })) {
      throw hvd::TimeoutError("fake allgather: not every rank arrived");
    }
    return result_;  // the next round cannot finish before this rank joins it
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  int size_;
  int arrived_ = 0;
  uint64_t round_ = 0;
  std::vector<std::string> slots_, result_;
};

class HubExchange final : public boot::Exchange {
 public:
  HubExchange(Hub& hub, int rank) : hub_(hub), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return hub_.size(); }
  std::string name() const override { return "fake"; }
  std::vector<std::string> allgather(const std::string& mine, milliseconds timeout) override {
    return hub_.allgather(rank_, mine, timeout);
  }

 private:
  Hub& hub_;
  int rank_;
};

}  // namespace

TEST_CASE("exchange store: set, barrier, get across 4 ranks") {
  constexpr int kSize = 4;
  Hub hub(kSize);
  std::vector<std::string> got(kSize), own(kSize), later(kSize);
  const auto errors = hvd::test::run_ranks(kSize, [&](int r) {
    boot::ExchangeStore store(std::make_unique<HubExchange>(hub, r));
    store.set("addr/" + std::to_string(r), "host" + std::to_string(r));
    own[r] = store.get("addr/" + std::to_string(r), kLong);  // own keys: at once
    store.barrier("after-set", kLong);
    got[r] = store.get("addr/" + std::to_string((r + 1) % kSize), kLong);
    if (r == 0) store.set("uid", std::string("\0id", 3));  // one rank publishes
    store.barrier("uid", kLong);
    later[r] = store.get("uid", kLong);
  });
  for (int r = 0; r < kSize; ++r) {
    CHECK(hvd::test::what_of(errors[r]) == "");
    CHECK(own[r] == "host" + std::to_string(r));
    CHECK(got[r] == "host" + std::to_string((r + 1) % kSize));
    CHECK(later[r] == std::string("\0id", 3));
  }
}

TEST_CASE("exchange store: get of a key not yet shared fails at once and says why") {
  Hub hub(2);
  const auto errors = hvd::test::run_ranks(2, [&](int r) {
    boot::ExchangeStore store(std::make_unique<HubExchange>(hub, r));
    store.set("k" + std::to_string(r), "v");
    store.get("k" + std::to_string(1 - r), kLong);  // no barrier in between
  });
  for (const auto& e : errors) {
    CHECK(hvd::test::what_of(e).find("is unknown on rank") != std::string::npos);
    CHECK(hvd::test::what_of(e).find("shares values only at barrier() (0 so far)") !=
          std::string::npos);
  }
}

TEST_CASE("exchange store: ranks at different barriers are told so") {
  Hub hub(2);
  const auto errors = hvd::test::run_ranks(2, [&](int r) {
    boot::ExchangeStore store(std::make_unique<HubExchange>(hub, r));
    store.barrier(r == 0 ? "first" : "second", kLong);
  });
  CHECK_THROWS_WITH_AS(std::rethrow_exception(errors[0]),
                       doctest::Contains("rank 0 is at barrier 'first' but rank 1 is at 'second'"),
                       hvd::BootstrapError);
  CHECK(errors[1] != nullptr);
}

TEST_CASE("exchange store: a missing rank makes barrier time out, naming the barrier") {
  Hub hub(3);
  const auto errors = hvd::test::run_ranks(2, [&](int r) {  // rank 2 never comes
    boot::ExchangeStore store(std::make_unique<HubExchange>(hub, r));
    store.barrier("wait-for-all", kShort);
  });
  for (const auto& e : errors) {
    CHECK_THROWS_WITH_AS(std::rethrow_exception(e),
                         doctest::Contains("barrier 'wait-for-all' over fake on rank"),
                         hvd::TimeoutError);
  }
}

TEST_CASE("exchange store: a single process is its own world") {
  boot::ExchangeStore store(std::make_unique<boot::SoloExchange>());
  store.set("a", "1");
  CHECK(store.get("a", kShort) == "1");
  store.barrier("b", kShort);
  store.set("a", "2");  // overwriting
  store.barrier("b", kShort);
  CHECK(store.get("a", kShort) == "2");
  CHECK_THROWS_AS(store.get("never", kShort), hvd::BootstrapError);
}
