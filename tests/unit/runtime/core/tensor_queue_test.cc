// SPDX-License-Identifier: Apache-2.0
// TensorQueue and HandleState on their own: the hand-off between API threads and the loop.

#include "core/tensor_queue.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace core = hvd::core;
using hvd::ErrorCode;
using hvd::Status;

namespace {

core::TensorEntry entry(const std::string& name) {
  core::TensorEntry e;
  e.request.name = name;
  e.handle = std::make_shared<core::HandleState>();
  return e;
}

std::vector<std::shared_ptr<core::HandleState>> handles(int n) {
  std::vector<std::shared_ptr<core::HandleState>> out;
  for (int i = 0; i < n; ++i) out.push_back(std::make_shared<core::HandleState>());
  return out;
}

}  // namespace

TEST_CASE("handle: complete_all completes every handle, waiters on any of them return") {
  const auto hs = handles(50);
  std::vector<Status> seen(hs.size());
  std::thread waiter([&] {
    for (size_t i = 0; i < hs.size(); ++i) seen[i] = hs[i]->wait();  // in turn, as a caller does
  });
  core::HandleState::complete_all(hs, Status::error(ErrorCode::kUsage, "all of them"));
  waiter.join();
  for (size_t i = 0; i < hs.size(); ++i) {
    CHECK(hs[i]->done());
    CHECK(seen[i].message() == "all of them");
  }
  CHECK_THROWS_AS(hs[0]->complete(Status()), hvd::InternalError);  // still exactly once
}

TEST_CASE("tensor queue: a name in flight or twice in one group is refused, nothing queued") {
  core::TensorQueue q;
  REQUIRE(q.add(entry("a")).ok());
  const Status again = q.add(entry("a"));
  CHECK(again.message().find("tensor 'a' is already in flight") != std::string::npos);
  const Status twice = q.add_group({entry("b"), entry("c"), entry("b")});
  CHECK(twice.message().find("tensor 'b' is already in flight") != std::string::npos);
  CHECK(q.size() == 1);
  CHECK(q.pop_fresh().size() == 1);
  REQUIRE(q.add_group({entry("b"), entry("c")}).ok());
  CHECK(q.size() == 3);
}

TEST_CASE("tensor queue: the idle wait returns for fresh work, for wake(), or at its deadline") {
  core::TensorQueue q;
  const auto far = std::chrono::steady_clock::now() + std::chrono::hours(1);
  REQUIRE(q.add(entry("x")).ok());
  q.wait_for_fresh(far);  // fresh work already there: returns at once
  CHECK(q.pop_fresh().size() == 1);
  q.wait_for_fresh(std::chrono::steady_clock::now() + std::chrono::milliseconds(1));  // deadline
  std::thread adder([&] { REQUIRE(q.add(entry("y")).ok()); });
  q.wait_for_fresh(far);  // woken by the add (before or during the wait)
  adder.join();
  CHECK(q.pop_fresh().size() == 1);
  std::thread waker([&] { q.wake(); });
  q.wait_for_fresh(far);  // woken by wake()
  waker.join();
  CHECK(q.pop_fresh().empty());
}

TEST_CASE("tensor queue: fail_all fails what is queued and refuses later adds") {
  core::TensorQueue q;
  core::TensorEntry e = entry("p");
  const auto h = e.handle;
  REQUIRE(q.add(std::move(e)).ok());
  q.fail_all(Status::error(ErrorCode::kUsage, "gone"));
  CHECK(h->wait().message() == "gone");
  CHECK(q.add(entry("q")).message() == "gone");
  CHECK(q.size() == 0);
}

TEST_CASE("tensor_queue: names are per process set, fail_set fails only that set") {
  core::TensorQueue q;
  core::TensorEntry in_global = entry("w");
  core::TensorEntry in_set = entry("w");
  in_set.process_set = 3;
  const auto global_handle = in_global.handle;
  const auto set_handle = in_set.handle;
  REQUIRE(q.add(std::move(in_global)).ok());
  REQUIRE(q.add(std::move(in_set)).ok());  // the same name in another set is no duplicate
  core::TensorEntry again = entry("w");
  again.process_set = 3;
  CHECK_FALSE(q.add(std::move(again)).ok());  // but twice in one set is
  const std::vector<core::FreshRequest> fresh = q.pop_fresh();
  REQUIRE(fresh.size() == 2);
  CHECK(fresh[0].process_set == 0);
  CHECK(fresh[1].process_set == 3);

  q.fail_set(3, Status::error(ErrorCode::kUsage, "process set 3 was removed"));
  CHECK(set_handle->done());
  CHECK(set_handle->wait().message() == "process set 3 was removed");
  CHECK_FALSE(global_handle->done());
  CHECK(q.take(0, {"w"}).size() == 1);
  CHECK(q.size() == 0);
}

// The queue's keys view each entry's own name (no copy): names past the short-string buffer,
// entries moved out in another order than they came, and names reused once taken.
TEST_CASE("tensor queue: long names are found, taken in any order and reusable once taken") {
  core::TensorQueue q;
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) {  // enough to rehash the table while entries are in it
    names.push_back("model/layer_" + std::to_string(i) + "/weights/gradient");
  }
  for (const std::string& n : names) REQUIRE(q.add(entry(n)).ok());
  CHECK_FALSE(q.add(entry(names[7])).ok());
  const std::vector<std::string> backwards(names.rbegin(), names.rend());
  std::vector<core::TensorEntry> out;
  out.push_back(entry("already here"));  // take() appends
  q.take(0, backwards, out);
  REQUIRE(out.size() == names.size() + 1);
  for (size_t i = 0; i < backwards.size(); ++i) CHECK(out[i + 1].request.name == backwards[i]);
  CHECK(q.size() == 0);
  CHECK_FALSE(q.take_if_queued(0, names[0]).has_value());
  // The next step: the same names again, now in the nodes of the entries taken above.
  for (const std::string& n : names) REQUIRE(q.add(entry(n)).ok());
  CHECK_FALSE(q.add(entry(names[299])).ok());
  core::TensorEntry other_set = entry(names[299]);
  other_set.process_set = 2;
  CHECK(q.add(std::move(other_set)).ok());
  for (size_t i = 0; i < names.size(); i += 2) {
    const std::optional<core::TensorEntry> back = q.take_if_queued(0, names[i]);
    REQUIRE(back.has_value());
    CHECK(back->request.name == names[i]);
  }
  CHECK(q.size() == names.size() / 2 + 1);
  CHECK(q.take(2, {names[299]}).at(0).process_set == 2);
}

TEST_CASE("tensor queue: pop_fresh into a reused buffer replaces what the buffer held") {
  core::TensorQueue q;
  std::vector<core::FreshRequest> buffer(5);  // left over from an earlier cycle
  REQUIRE(q.add_group({entry("a"), entry("b")}).ok());
  q.pop_fresh(buffer);
  REQUIRE(buffer.size() == 2);
  CHECK(buffer[0].request->name == "a");
  CHECK(buffer[1].request->name == "b");
  q.pop_fresh(buffer);
  CHECK(buffer.empty());
  REQUIRE(q.add(entry("c")).ok());
  q.pop_fresh(buffer);
  REQUIRE(buffer.size() == 1);
  CHECK(buffer[0].request->name == "c");
}

TEST_CASE("tensor queue: a fresh request leads to its queued entry, which stays put") {
  core::TensorQueue q;
  std::vector<float> data(4);
  core::TensorEntry first = entry("first");
  first.input = hvd::BufferView{data.data(), data.size(), hvd::DataType::kFloat32, {}};
  REQUIRE(q.add(std::move(first)).ok());
  std::vector<core::FreshRequest> fresh = q.pop_fresh();
  REQUIRE(fresh.size() == 1);
  const core::TensorEntry& queued = core::entry_of(*fresh[0].request);
  CHECK(&queued.request == fresh[0].request);
  CHECK(queued.input.data == data.data());
  // Many more entries (the table rehashes) and some taken: the first one has not moved.
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i) {
    names.push_back("more/" + std::to_string(i));
    REQUIRE(q.add(entry(names.back())).ok());
  }
  q.take(0, {names.begin(), names.begin() + 100});
  CHECK(&core::entry_of(*fresh[0].request) == &queued);
  CHECK(queued.request.name == "first");
  CHECK(queued.input.data == data.data());
  CHECK(q.take(0, {"first"}).at(0).input.data == data.data());
}

TEST_CASE("handle: wait() on a handle completed before it returns that status every time") {
  core::HandleState h;
  h.complete(Status::error(ErrorCode::kUsage, "early"));
  CHECK(h.done());
  CHECK(h.wait().message() == "early");
  CHECK(h.wait().message() == "early");
}

// The hand-off as the runtime does it, under contention: API threads add and wait at once
// while one thread (the loop's part) pops and completes in its own order, reusing its buffers.
TEST_CASE("tensor queue: many threads adding and waiting at once each see their own result") {
  core::TensorQueue q;
  constexpr int kThreads = 6, kPerThread = 200;
  std::atomic<int> completed{0};
  std::thread loop([&] {
    std::vector<core::FreshRequest> fresh;
    std::vector<core::TensorEntry> taken;
    std::vector<std::string> names;
    while (completed.load() < kThreads * kPerThread) {
      q.wait_for_fresh(std::chrono::steady_clock::now() + std::chrono::milliseconds(5));
      q.pop_fresh(fresh);
      names.clear();
      for (const core::FreshRequest& f : fresh) names.push_back(f.request->name);
      taken.clear();
      q.take(0, names, taken);
      for (core::TensorEntry& e : taken) {
        // Each handle's status names its own tensor: a mix-up between entries shows.
        e.handle->complete(Status::error(ErrorCode::kUsage, e.request.name));
      }
      completed += static_cast<int>(taken.size());
    }
  });
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // The same names every round, as a training step reuses them once the last completed.
        const std::string name = "thread_" + std::to_string(t) + "/tensor_" + std::to_string(i % 3);
        core::TensorEntry e = entry(name);
        const auto h = e.handle;
        if (!q.add(std::move(e)).ok()) {
          ++wrong;
          continue;
        }
        if (h->wait().message() != name) ++wrong;
      }
    });
  }
  for (std::thread& c : callers) c.join();
  loop.join();
  CHECK(wrong.load() == 0);
  CHECK(q.size() == 0);
}
