// SPDX-License-Identifier: Apache-2.0
#pragma once
// IdleWatch: --idle-timeout S. A program that never calls libhvd is out of reach of libhvd's
// stall check; when it hangs, its output stops. The supervisor tells this watch about every
// rank's output, and once no rank has written a byte for S seconds, the watch says which ranks
// have been silent since when, so that the supervisor can stop the job.
//
// Time is passed in, never read here: the tests replay any history without waiting.

#include <chrono>
#include <string>
#include <vector>

namespace hvd::launcher::exec {

/// hvdrun's exit code when --idle-timeout stopped the job (cli/exit_codes.h lists it).
inline constexpr int kIdleTimeoutExitCode = 8;

class IdleWatch {
 public:
  using Clock = std::chrono::steady_clock;
  using WallClock = std::chrono::system_clock;

  /// `timeout` 0: off (expired() is never true). `start`: when the ranks were started, the
  /// "last output" of a rank that has written nothing.
  IdleWatch(int num_ranks, std::chrono::seconds timeout, Clock::time_point start);

  bool enabled() const { return timeout_.count() > 0; }
  /// Rank `rank` wrote output at `now` (a rank out of range is ignored: srun's own lines).
  void saw_output(int rank, Clock::time_point now);
  /// When the job will have been silent for the timeout, unless a rank writes before then.
  Clock::time_point deadline() const { return last_any_ + timeout_; }
  bool expired(Clock::time_point now) const { return enabled() && now >= deadline(); }
  /// One line for stderr: the silence, and each rank's last output (ranks that share it by
  /// the second are listed together, "ranks 0-2,5"), as wall-clock time and seconds ago.
  /// `wall_now` is the wall-clock time at `now`.
  std::string report(Clock::time_point now, WallClock::time_point wall_now) const;

 private:
  std::chrono::seconds timeout_;
  Clock::time_point start_;
  Clock::time_point last_any_;
  std::vector<Clock::time_point> last_;  // per rank; start_ until it writes
};

/// "0-2,5,7-9" for sorted distinct ranks.
std::string rank_ranges(const std::vector<int>& ranks);

}  // namespace hvd::launcher::exec
