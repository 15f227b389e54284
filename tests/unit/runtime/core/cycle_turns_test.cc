// SPDX-License-Identifier: Apache-2.0
// CycleTurns alone: which thread runs the cycles, with counting cycles instead of a runtime.

#include "core/cycle_turns.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

using hvd::core::CycleTurns;

namespace {

// A cycle time that has always passed: the loop may take any free turn.
constexpr std::chrono::microseconds kDue{0};

// Spins (yielding) until `ready` is true; no deadline: a test that hangs fails by ctest's.
void until(const std::atomic<bool>& ready) {
  while (!ready.load()) std::this_thread::yield();
}

}  // namespace

TEST_CASE("cycle turns: a waiting caller runs the cycles on its own thread, the loop none") {
  std::atomic<bool> done{false};
  std::atomic<int> cycles{0};
  std::vector<std::thread::id> ran_on;
  std::atomic<bool> loop_took{false};
  CycleTurns* self = nullptr;
  CycleTurns turns(
      [&] {
        ran_on.push_back(std::this_thread::get_id());
        if (self->try_take_for_loop(kDue)) loop_took = true;  // a cycle runs: refused
        if (++cycles == 3) done = true;
      },
      [] { return false; });
  self = &turns;
  CHECK_FALSE(turns.caller_ran_last());
  turns.drive_until(done);
  CHECK(cycles.load() == 3);
  CHECK(ran_on == std::vector<std::thread::id>(3, std::this_thread::get_id()));
  CHECK_FALSE(loop_took.load());
  CHECK(turns.caller_cycles() == 3);
  CHECK(turns.loop_cycles() == 0);
  CHECK(turns.caller_ran_last());
  // Nobody drives now, but a caller ran the latest cycle: the loop leaves the next one to it
  // until a cycle time has passed. Then it takes the turn, and its cycle clears
  // caller_ran_last().
  CHECK_FALSE(turns.try_take_for_loop(std::chrono::hours(1)));
  REQUIRE(turns.try_take_for_loop(kDue));
  CHECK_FALSE(turns.try_take_for_loop(kDue));
  turns.release_from_loop();
  CHECK(turns.loop_cycles() == 1);
  CHECK_FALSE(turns.caller_ran_last());
}

TEST_CASE("cycle turns: callers take turns, one whose flag another's cycle set runs no more") {
  // Cycle 1 completes "a", cycle 2 completes "b", whichever thread runs them: exactly two
  // cycles run, since a caller stops as soon as its own flag is set.
  std::atomic<bool> a{false}, b{false};
  std::atomic<int> cycles{0};
  CycleTurns turns(
      [&] {
        const int n = ++cycles;
        if (n == 1) a = true;
        if (n == 2) b = true;
      },
      [] { return false; });
  std::thread first([&] { turns.drive_until(a); });
  std::thread second([&] { turns.drive_until(b); });
  first.join();
  second.join();
  CHECK(cycles.load() == 2);
  CHECK(turns.caller_cycles() == 2);
}

TEST_CASE("cycle turns: closing the caller path waits for a caller's cycle, then callers wait") {
  std::atomic<bool> never{false}, in_cycle{false}, release{false}, closed{false};
  std::atomic<bool> ran_after_close{false};
  std::atomic<int> cycles{0};
  CycleTurns turns(
      [&] {
        if (closed) ran_after_close = true;
        ++cycles;
        in_cycle = true;
        until(release);
        if (closed) ran_after_close = true;  // the closer returned while this cycle ran
      },
      [] { return false; });
  std::thread driver([&] { turns.drive_until(never); });  // returns once the path is closed
  until(in_cycle);
  std::atomic<int> cycles_at_close{0};
  std::thread closer([&] {
    turns.close_caller_path();
    cycles_at_close = cycles.load();
    closed = true;
  });
  // The driver holds the turn: the loop may not take it meanwhile.
  CHECK_FALSE(turns.try_take_for_loop(kDue));
  release = true;
  closer.join();
  driver.join();
  CHECK_FALSE(ran_after_close.load());
  CHECK(cycles.load() == cycles_at_close.load());
  CHECK_FALSE(turns.caller_ran_last());
  // A caller now runs nothing and leaves at once; the loop runs the cycles.
  turns.drive_until(never);
  CHECK(cycles.load() == cycles_at_close.load());
  REQUIRE(turns.try_take_for_loop(kDue));
  turns.release_from_loop();
}

TEST_CASE("cycle turns: close() sends waiting callers away, and none comes in after") {
  std::atomic<bool> never{false}, in_cycle{false}, release{false};
  std::atomic<int> cycles{0};
  CycleTurns turns(
      [&] {
        ++cycles;
        in_cycle = true;
        until(release);
      },
      [] { return false; });
  std::thread driver([&] { turns.drive_until(never); });
  std::thread waiter([&] { turns.drive_until(never); });
  until(in_cycle);
  turns.close();
  release = true;
  driver.join();
  waiter.join();
  turns.wait_for_no_drivers();
  CHECK(cycles.load() == 1);
  turns.drive_until(never);
  CHECK(cycles.load() == 1);
  CHECK_FALSE(turns.try_take_for_loop(kDue));
}

TEST_CASE("cycle turns: the last caller out wakes the loop when it leaves work behind") {
  std::atomic<bool> done{false}, work{false};
  CycleTurns turns([&] { done = true; }, [&] { return work.load(); });
  work = true;
  turns.drive_until(done);
  // The wake is pending: a sleep far longer than the test may take returns at once (a lost
  // wake fails the test by ctest's timeout).
  turns.sleep_until(CycleTurns::Clock::now() + std::chrono::hours(1));
  CHECK(done.load());
}
