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

namespace detail {
inline thread_local bool may_spin = true;
}  // namespace detail

/// Whether the waits of the calling thread may poll before they sleep (spin_briefly() here,
/// the ring transports' waits). On by default. The background loop turns it off for its own
/// thread: it runs cycles while the application computes, most often on the same cores (one
/// per rank), so every microsecond it polls for a peer is taken from the application's
/// compute; a caller that waits on a handle has nothing else to run and keeps polling.
inline bool may_spin() { return detail::may_spin; }
/// Sets may_spin() for the calling thread.
inline void set_may_spin(bool on) { detail::may_spin = on; }

/// Returns true as soon as `ready()` is true, false once kSpinBeforeSleep (or `deadline`, if
/// sooner) has passed without it; at once when !may_spin().
template <typename Ready>
bool spin_briefly(Ready ready, std::chrono::steady_clock::time_point deadline =
                                   std::chrono::steady_clock::time_point::max()) {
  if (ready()) return true;  // often already: then no clock read (~20 ns each here)
  if (!may_spin()) return false;
  const auto now = std::chrono::steady_clock::now();
  const auto end = std::min(deadline, now + kSpinBeforeSleep);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace hvd
