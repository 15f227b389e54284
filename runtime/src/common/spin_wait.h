// SPDX-License-Identifier: Apache-2.0
#pragma once
// spin_briefly: polls a flag for a few microseconds, yielding the core between polls, before a
// caller falls back to sleeping on a condition variable. The hand-offs between an API thread
// and the background loop (enqueue -> loop, loop -> waiting caller) are each a futex wake and
// a context switch when the other side sleeps, which costs more than a small collective
// itself; a peer that comes back within the spin finds its partner awake. Yielding keeps an
// oversubscribed host (more ranks than cores) making progress while one thread spins.

#include <algorithm>
#include <chrono>
#include <thread>

namespace hvd {

/// How long a waiter polls before it sleeps.
inline constexpr std::chrono::microseconds kSpinBeforeSleep{50};

/// Returns true as soon as `ready()` is true, false once kSpinBeforeSleep (or `deadline`, if
/// sooner) has passed without it.
template <typename Ready>
bool spin_briefly(Ready ready, std::chrono::steady_clock::time_point deadline =
                                   std::chrono::steady_clock::time_point::max()) {
  if (ready()) return true;  // often already: then no clock read (~20 ns each here)
  const auto now = std::chrono::steady_clock::now();
  const auto end = std::min(deadline, now + kSpinBeforeSleep);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace hvd
