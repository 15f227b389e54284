// SPDX-License-Identifier: Apache-2.0
#pragma once
// spin_briefly: polls a flag for a few microseconds, yielding the core between polls, before a
// caller falls back to sleeping on a condition variable. The hand-offs between an API thread
// and the background loop (enqueue -> loop, loop -> waiting caller) are each a futex wake and
// a context switch when the other side sleeps, which costs more than a small collective
// itself; a peer that comes back within the spin finds its partner awake. Yielding keeps an
// oversubscribed host (more ranks than cores) making progress while one thread spins.
//
// Not on every thread: a helper thread (the background loop) of a process confined to one core
// shares that core with the thread that computes, and while it polls or yields the compute
// thread waits for the core (a backward pass whose hooks enqueue tensors while the loop
// negotiates them). Such a thread sleeps at once; the enqueue and the peer's doorbell wake it.
// Measured on the CNN of scripts/bench-torch.sh at 2 ranks, 4 pairs of runs: hvd/ddp 0.90-1.02
// with the loop polling, 0.93-1.05 without, higher in each pair.

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace hvd {

namespace detail {
inline thread_local bool waits_may_spin = true;
}  // namespace detail

/// Whether the calling thread's waits may poll before they sleep (spin_briefly and the shm
/// transport's waits). True unless set_waits_may_spin(false) was called on this thread.
inline bool waits_may_spin() { return detail::waits_may_spin; }
inline void set_waits_may_spin(bool may) { detail::waits_may_spin = may; }

/// The number of CPUs the calling thread may run on (its affinity mask); 0 if unknown.
inline int allowed_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  return CPU_COUNT(&set);
}

/// Whether the calling thread may run on one CPU only (hvdrun binds each rank to its own core
/// when the node has enough), as its affinity was the first time this thread asked. Polling then
/// only keeps the core from the thread it waits for, or, if it yields, gives the core to
/// another process (a job beside this one) for the rest of that one's time slice.
inline bool on_one_cpu() {
  thread_local const bool one = allowed_cpu_count() == 1;
  return one;
}

/// How long a waiter polls before it sleeps.
inline constexpr std::chrono::microseconds kSpinBeforeSleep{50};

/// Returns true as soon as `ready()` is true, false once kSpinBeforeSleep (or `deadline`, if
/// sooner) has passed without it; ready() at once on a thread whose waits may not spin, or that
/// runs on one CPU (what it waits for is another thread of this process, which needs that CPU).
template <typename Ready>
bool spin_briefly(Ready ready, std::chrono::steady_clock::time_point deadline =
                                   std::chrono::steady_clock::time_point::max()) {
  if (ready()) return true;  // often already: then no clock read (~20 ns each here)
  if (!waits_may_spin() || on_one_cpu()) return false;
  const auto now = std::chrono::steady_clock::now();
  const auto end = std::min(deadline, now + kSpinBeforeSleep);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace hvd
