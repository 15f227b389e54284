// SPDX-License-Identifier: Apache-2.0
#pragma once
// CycleTurns: which thread runs this rank's next controller cycle (issue 14). Cycles are
// collective (every rank runs the same sequence, and each cycle's vote waits for the other
// ranks), but nothing ties them to one thread: an API thread that waits on a handle runs the
// cycles itself until its handle completes, instead of handing its request to the background
// loop and being woken by it afterwards (two futex wakes and context switches, more than an
// 8-byte collective costs). The loop runs cycles only while no caller drives them, so the
// periodic vote (stall checks, shutdown, other ranks' requests) still runs when nobody waits.
//
// Exactly one thread holds the turn (runs a cycle) at a time. Callers that wait while another
// thread's cycle runs sleep until it ends, then look at their own handle again, so that a
// caller whose tensor another caller's cycle completed returns without running one.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace hvd::core {

class CycleTurns {
 public:
  using Clock = std::chrono::steady_clock;
  /// `cycle` runs one cycle of this rank and never throws (the runtime fails its handles and
  /// calls close() itself). `loop_has_work` tells a caller that stops driving whether to wake
  /// the loop at once rather than let it find the work at its next cycle_time.
  CycleTurns(std::function<void()> cycle, std::function<bool()> loop_has_work);

  /// An API thread waiting for `done`: runs cycles, taking turns with other waiting callers,
  /// until `done` is true. Returns early (the caller then waits as before) once the caller path
  /// or the turns are closed.
  void drive_until(const std::atomic<bool>& done);

  /// The loop, before it looks for work: returns once no caller drives cycles (at once when
  /// none does), or on close(). Checks again every `period`, since a caller that leaves with
  /// nothing for the loop to do does not wake it.
  void wait_while_callers_drive(std::chrono::microseconds period);
  /// The loop: sleeps until `deadline`, a wake_loop(), close(), or a caller that leaves work;
  /// false when the deadline ended it.
  bool sleep_until(Clock::time_point deadline);
  /// The loop takes the turn: false (and the loop runs nothing) while a cycle runs, a caller
  /// drives, or after close(); also when a caller ran the latest cycle less than `cycle_time`
  /// ago and nothing woke the loop since (an enqueue's wake that came before that cycle is
  /// stale: the request is the caller's to cycle). A true take is ended with release().
  bool try_take_for_loop(std::chrono::microseconds cycle_time);
  void release_from_loop();

  /// When the latest cycle ended.
  Clock::time_point last_cycle_end() const;
  /// A caller ran the latest cycle (and callers may still run cycles): a request enqueued now is
  /// most likely that caller's next, which its wait() cycles itself, so the enqueue leaves the
  /// loop asleep.
  bool caller_ran_last() const { return caller_ran_last_.load(std::memory_order_acquire); }
  /// The loop found nothing queued a cycle time after a caller's cycle that ended at
  /// `cycle_end`: enqueues wake the loop again (caller_ran_last() is false), unless a cycle
  /// has run or is running since.
  void hand_back_to_loop(Clock::time_point cycle_end);

  /// From now on only the loop runs cycles; returns once no caller's cycle is running. For
  /// CUDA tensors (see Runtime::enqueue_group).
  void close_caller_path();
  /// Callers may still run cycles (close_caller_path() and close() end that).
  bool caller_path_open() const;
  /// No cycle is started after this (the run stopped or failed); wakes every waiting thread.
  void close();
  /// Wakes the loop from wait_while_callers_drive() or sleep_until() (shutdown asks it to run).
  void wake_loop();
  /// Blocks until no caller is inside drive_until(); after close() none comes in again.
  void wait_for_no_drivers();

  /// Cycles run so far by callers and by the loop (for tests and diagnostics).
  uint64_t caller_cycles() const { return caller_cycles_.load(std::memory_order_relaxed); }
  uint64_t loop_cycles() const { return loop_cycles_.load(std::memory_order_relaxed); }

 private:
  void end_turn_locked(bool by_caller);

  const std::function<void()> cycle_;
  const std::function<bool()> loop_has_work_;
  mutable std::mutex mutex_;
  std::condition_variable turn_ended_;  // a cycle ended, a caller left, or close()
  std::condition_variable loop_wake_;   // the loop's sleeps
  bool running_ = false;                // a thread holds the turn
  bool running_by_caller_ = false;
  std::atomic<bool> running_flag_{false};  // running_, for spinning without the mutex
  int drivers_ = 0;                        // callers inside drive_until()
  bool caller_path_ = true;
  bool closed_ = false;
  bool loop_woken_ = false;  // wake_loop() or a caller that left work, since the loop's last sleep
  Clock::time_point last_end_ = Clock::now();
  std::atomic<bool> caller_ran_last_{false};
  std::atomic<uint64_t> caller_cycles_{0};
  std::atomic<uint64_t> loop_cycles_{0};
};

}  // namespace hvd::core
