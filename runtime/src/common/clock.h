// SPDX-License-Identifier: Apache-2.0
#pragma once
// Clock: the time source that timing logic (stall inspector, timeline) takes by injection, so
// tests can drive time by hand instead of sleeping.

#include <atomic>
#include <chrono>

namespace hvd {

/// A monotonic time source. Implementations must be safe to call from any thread.
class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Duration = std::chrono::steady_clock::duration;

  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

/// The real monotonic clock (std::chrono::steady_clock).
class SteadyClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
};

/// A clock that moves only when told to; for tests. Starts at an arbitrary fixed point far from
/// zero so that "time since epoch" arithmetic is exercised with realistic magnitudes.
class FakeClock final : public Clock {
 public:
  FakeClock() : ticks_(std::chrono::duration_cast<Duration>(std::chrono::hours(1000)).count()) {}
  TimePoint now() const override { return TimePoint(Duration(ticks_.load())); }
  void advance(Duration d) { ticks_ += d.count(); }
  void set(TimePoint t) { ticks_ = t.time_since_epoch().count(); }

 private:
  std::atomic<Duration::rep> ticks_;
};

}  // namespace hvd
