// SPDX-License-Identifier: Apache-2.0
#include "core/cycle_turns.h"

#include <utility>

#include "common/spin_wait.h"

namespace hvd::core {

CycleTurns::CycleTurns(std::function<void()> cycle, std::function<bool()> loop_has_work)
    : cycle_(std::move(cycle)), loop_has_work_(std::move(loop_has_work)) {}

void CycleTurns::drive_until(const std::atomic<bool>& done) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (closed_ || !caller_path_) return;
  ++drivers_;
  while (!done.load(std::memory_order_acquire) && !closed_ && caller_path_) {
    if (running_) {
      // Another thread's cycle may complete this handle: it most often ends within the spin
      // (a small collective), which saves the sleep and wake.
      lock.unlock();
      spin_briefly([&] {
        return done.load(std::memory_order_acquire) ||
               !running_flag_.load(std::memory_order_acquire);
      });
      lock.lock();
      if (running_ && !done.load(std::memory_order_acquire)) turn_ended_.wait(lock);
      continue;
    }
    running_ = true;
    running_by_caller_ = true;
    running_flag_.store(true, std::memory_order_release);
    lock.unlock();
    cycle_();
    lock.lock();
    end_turn_locked(true);
  }
  --drivers_;
  // The last caller out leaves nothing behind for the loop in the common case (its own tensor
  // was the only work), and then the loop keeps sleeping; otherwise it starts at once.
  if (drivers_ == 0 && (!caller_path_ || loop_has_work_())) {
    loop_woken_ = true;
    loop_wake_.notify_one();
  }
  if (drivers_ == 0) turn_ended_.notify_all();  // wait_for_no_drivers()
}

void CycleTurns::end_turn_locked(bool by_caller) {
  running_ = false;
  running_by_caller_ = false;
  running_flag_.store(false, std::memory_order_release);
  last_end_ = Clock::now();
  (by_caller ? caller_cycles_ : loop_cycles_).fetch_add(1, std::memory_order_relaxed);
  caller_ran_last_.store(by_caller && caller_path_, std::memory_order_release);
  turn_ended_.notify_all();
}

void CycleTurns::wait_while_callers_drive(std::chrono::microseconds period) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!closed_ && !loop_woken_ && (running_ || drivers_ > 0)) {
    loop_wake_.wait_for(lock, period);
  }
}

bool CycleTurns::sleep_until(Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  // loop_woken_ stays set: try_take_for_loop() reads and clears it.
  return loop_wake_.wait_until(lock, deadline, [this] { return closed_ || loop_woken_; });
}

bool CycleTurns::try_take_for_loop(std::chrono::microseconds cycle_time) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool woken = loop_woken_;
  loop_woken_ = false;
  if (closed_ || running_ || drivers_ > 0) return false;
  if (caller_ran_last_.load(std::memory_order_relaxed) && !woken &&
      Clock::now() < last_end_ + cycle_time) {
    return false;
  }
  running_ = true;
  running_flag_.store(true, std::memory_order_release);
  return true;
}

void CycleTurns::release_from_loop() {
  std::lock_guard<std::mutex> lock(mutex_);
  end_turn_locked(false);
}

void CycleTurns::hand_back_to_loop(Clock::time_point cycle_end) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_ || drivers_ > 0 || last_end_ != cycle_end) return;
  caller_ran_last_.store(false, std::memory_order_release);
}

CycleTurns::Clock::time_point CycleTurns::last_cycle_end() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_end_;
}

void CycleTurns::close_caller_path() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!caller_path_) return;
  caller_path_ = false;
  caller_ran_last_.store(false, std::memory_order_release);
  turn_ended_.notify_all();  // waiting callers fall back to the plain wait
  loop_woken_ = true;
  loop_wake_.notify_one();
  turn_ended_.wait(lock, [this] { return !running_by_caller_; });
}

bool CycleTurns::caller_path_open() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return caller_path_ && !closed_;
}

void CycleTurns::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    caller_ran_last_.store(false, std::memory_order_release);
  }
  turn_ended_.notify_all();
  loop_wake_.notify_all();
}

void CycleTurns::wake_loop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    loop_woken_ = true;
  }
  loop_wake_.notify_all();
}

void CycleTurns::wait_for_no_drivers() {
  std::unique_lock<std::mutex> lock(mutex_);
  turn_ended_.wait(lock, [this] { return drivers_ == 0; });
}

}  // namespace hvd::core
