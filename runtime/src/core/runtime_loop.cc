// SPDX-License-Identifier: Apache-2.0
// The background loop of core/runtime.h: when it runs a cycle. Cycles themselves (what one
// negotiates and runs) are in runtime.cc.
#include <algorithm>

#include "common/spin_wait.h"
#include "core/runtime.h"

namespace hvd::core {
namespace {

// The longest wait between two periodic votes of a job with nothing in flight
// (Runtime::vote_period()): how late an idle job sees a peer's death or a shutdown.
constexpr std::chrono::microseconds kLongestIdleVotePeriod{100'000};

}  // namespace

bool Runtime::work_in_flight() const {
  // Tensors this rank submitted that some other rank has not: that rank is about to submit
  // them, and its enqueue wakes its own loop, so start the next cycle at once to meet it
  // rather than sleep out a cycle.
  // A joined rank (hvd.join) has nothing of its own in flight, but takes part in every
  // allreduce of the others: idling here would add up to a cycle time to each of theirs.
  if (global_.controller.joined()) return true;
  for (const auto& [id, set] : sets_.member_sets()) {
    if (set->controller.in_flight() > 0) return true;
  }
  return false;
}

// The periodic vote of a rank with nothing in flight shows that it is alive (stall checks,
// shutdown, a peer's death), and lets other process sets' cycles run: they follow the global
// vote, on ranks that wait for it (control::CycleResult::set_work). After each vote in which no
// rank had such work the next one waits twice as long, up to kLongestIdleVotePeriod, so that a
// job without process sets soon votes only 10 times a second while it has nothing in flight.
// Nothing else waits for these votes: a rank's own tensors start a cycle when they are enqueued
// (gather_burst()), and a rank with work in flight votes again at once.
std::chrono::microseconds Runtime::vote_period() const {
  const uint64_t doublings = std::min<uint64_t>(quiet_votes_.load(std::memory_order_relaxed), 16);
  return std::clamp(options_.cycle_time * (int64_t{1} << doublings), options_.cycle_time,
                    std::max(options_.cycle_time, kLongestIdleVotePeriod));
}

// Cycles are collective (each one votes over the cache bits), so a rank that starts one early
// only waits inside it for the others: ranks stay in lockstep whatever each one waits here,
// and whichever thread of a rank runs its cycles.
void Runtime::wait_for_turn() {
  for (;;) {
    // Callers that wait run the cycles (the periodic vote included) until they leave.
    turns_->wait_while_callers_drive(options_.cycle_time);
    // After the shutdown cycle there is nothing left to wait for.
    if (stopped_) return;
    // shutdown() wakes both the queue's wait and the turns' sleeps. One of them may already be
    // used up by the time the loop gets here (a wait that returned for it, then found the turn
    // taken): the request itself, not a wake-up, makes the stopping cycle run now.
    if (shutdown_requested_) return;
    const auto last_end = turns_->last_cycle_end();
    // A lone rank has nobody to vote with and nothing that can stall: its loop sleeps until
    // woken (its callers run their own cycles at submit).
    const auto lone_wait = CycleTurns::Clock::now() + std::chrono::hours(1);
    if (turns_->caller_ran_last()) {
      // Requests queued since are most likely that caller's next, which its wait() cycles with
      // no hand-off; any other is taken at the cycle time, as Horovod's loop always did. A
      // caller that leaves work in flight behind (more_work_) wakes the loop.
      if (turns_->sleep_until(world_.size == 1 ? lone_wait : last_end + options_.cycle_time)) {
        return;
      }
      if (world_.size == 1) continue;
      // A caller's cycle since the sleep began moves the cycle time on.
      if (CycleTurns::Clock::now() < turns_->last_cycle_end() + options_.cycle_time) continue;
      if (queue_.has_fresh()) return;
      // Nothing queued: from now on an enqueue wakes the loop, as the hooks of a training
      // step's backward pass, which nobody waits for until the optimizer steps.
      turns_->hand_back_to_loop(last_end);
      continue;
    }
    if (more_work_) return;
    // Idle: wait for the next enqueue, but at most until the vote period ends (counted from
    // the end of the latest cycle, which the ranks leave together, not from its start: a rank
    // that entered late would otherwise wake early again every cycle and spin in the next vote
    // until the others arrive).
    const auto vote_due = world_.size == 1 ? lone_wait : last_end + vote_period();
    queue_.wait_for_fresh(vote_due);
    gather_burst();
    return;
  }
}

// An enqueue woke the idle loop: its cycle starts one cycle time later (HOROVOD_CYCLE_TIME), as
// Horovod's loop takes whatever was queued once a cycle time, so that the tensors of a burst
// share one negotiation and fuse. A backward pass's hooks come one parameter at a time, some
// hundred microseconds apart: cycled one by one, they cost the CNN of scripts/bench-torch.sh
// ~8 cycles a step on each rank, each a wake-up of the loop on the compute thread's core.
// Nothing that waits is delayed: a caller that waits on a handle runs the cycles itself
// (CycleTurns), and a rank with work in flight votes at once.
void Runtime::gather_burst() {
  if (world_.size == 1 || !queue_.has_fresh() || shutdown_requested_ || more_work_) return;
  turns_->sleep_until(CycleTurns::Clock::now() + options_.cycle_time);
}

void Runtime::loop() {
  // On one core this thread shares it with the rank's compute thread: sleep, never poll.
  set_waits_may_spin(!on_one_cpu());
  while (!stopped_) {
    wait_for_turn();
    // A caller runs the next cycle, or ran one since the loop woke. A caller's latest cycle
    // leaves the next to that caller for a cycle time, but not the stopping one.
    const auto leave_to_caller =
        shutdown_requested_ ? std::chrono::microseconds(0) : options_.cycle_time;
    if (stopped_ || !turns_->try_take_for_loop(leave_to_caller)) continue;
    run_cycle_or_fail();
    turns_->release_from_loop();
  }
  if (!failed_) queue_.fail_all(Status::error(ErrorCode::kUsage, "libhvd has been shut down"));
  timeline_.close_at_end();
}

}  // namespace hvd::core
