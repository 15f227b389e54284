// SPDX-License-Identifier: Apache-2.0
#pragma once
// StallInspector: notices tensors that some ranks submitted and others never did (after
// horovod/common/stall_inspector.cc). The coordinator feeds it the requests it receives and the
// tensors it runs; once per cycle it asks which tensors have waited too long, so that the user
// sees which ranks are missing instead of a silent hang.
//
// Pure bookkeeping: no I/O, no threads, no communication. The clock is injected so that tests
// move time by hand.

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.h"

namespace hvd::control {

/// Thresholds, in Horovod's units and defaults (HOROVOD_STALL_CHECK_TIME_SECONDS,
/// HOROVOD_STALL_SHUTDOWN_TIME_SECONDS).
struct StallConfig {
  double warning_seconds = 60.0;
  /// 0 turns the shutdown off; otherwise must be >= warning_seconds.
  double shutdown_seconds = 0.0;
  /// The job's own pace (issue 26): once the step period is known (kPeriodSamples samples of
  /// the time between two submissions of a name), a tensor is stalled after this many periods,
  /// but never sooner than floor_seconds nor later than warning_seconds. 0: only the fixed time.
  double period_multiple = 20.0;
  double floor_seconds = 5.0;
};

/// One tensor that some ranks submitted and others have not.
struct StalledTensor {
  std::string name;
  std::vector<int> missing_ranks;  // ascending
  Clock::Duration waited{};        // since the first rank submitted it
};

/// What one check() found.
struct StallReport {
  /// Tensors due for a warning now, by name. A tensor appears at most once per warning period.
  std::vector<StalledTensor> stalled;
  /// True when some tensor has waited longer than shutdown_seconds (never when that is 0).
  bool shutdown = false;
  /// The wait after which a tensor counted as stalled (threshold_seconds() at the check).
  double threshold_seconds = 0;
};

/// Tracks, per tensor name, when the first rank submitted it and which ranks have.
/// Not thread-safe: owned and called by the coordinator's background loop only.
class StallInspector {
 public:
  /// Throws ConfigError for thresholds that make no sense (warning <= 0, shutdown < 0, or
  /// 0 < shutdown < warning). `clock` must outlive the inspector.
  StallInspector(int world_size, StallConfig config, const Clock& clock);

  /// `rank` has submitted `tensor`. The first call for a name starts its wait; repeats are
  /// harmless. rank must be in [0, world_size) (HVD_CHECK).
  void record_ready(std::string_view tensor, int rank);
  /// The same with the time already read: one clock read for a whole negotiation, not one per
  /// tensor.
  void record_ready(std::string_view tensor, int rank, Clock::TimePoint now);
  Clock::TimePoint now() const { return clock_.now(); }
  /// A cached tensor (never negotiated, so never record_ready()) ran at `now`: a sample of the
  /// step period, as a name's first submission is.
  void record_run(const std::string& tensor, Clock::TimePoint now) { observe_period(tensor, now); }
  /// `tensor` ran (or was dropped): forget it. Unknown names are ignored.
  void record_done(std::string_view tensor);

  /// Tensors whose wait passed warning_seconds and that were not reported in the last warning
  /// period; tensors every rank has submitted are not stalls and are skipped.
  StallReport check(Clock::TimePoint now);
  /// At the clock's time; with nothing pending (steady state), without reading the clock.
  StallReport check() { return pending_.empty() ? StallReport{} : check(clock_.now()); }

  /// Tensors submitted by at least one rank and not yet done.
  size_t pending() const { return pending_.size(); }
  /// After how long a wait a tensor is stalled now: period_multiple step periods within
  /// [floor_seconds, warning_seconds] once the period is known, else warning_seconds.
  double threshold_seconds() const;
  /// The step period observed so far (a slowly decaying maximum); 0 before kPeriodSamples.
  double step_period_seconds() const { return period_samples_ >= kPeriodSamples ? period_s_ : 0; }
  const StallConfig& config() const { return config_; }

 private:
  struct Entry {
    Clock::TimePoint first_seen;
    Clock::TimePoint last_warned;
    bool warned = false;
    int ready_count = 0;
    std::vector<bool> ready;  // by rank
  };

  // A name's first submission, a step after its last one: one sample of the step period.
  void observe_period(const std::string& name, Clock::TimePoint now);
  static constexpr int kPeriodSamples = 3;
  // Names remembered for the period; past this the memory starts over (names made per step,
  // Horovod's "allreduce.noname.N", would otherwise grow it without end).
  static constexpr size_t kMaxPeriodNames = 4096;

  int world_size_;
  StallConfig config_;
  std::unordered_map<std::string, Clock::TimePoint> last_first_seen_;
  double period_s_ = 0;
  int period_samples_ = 0;
  const Clock& clock_;
  std::map<std::string, Entry, std::less<>> pending_;  // ordered: reports come sorted by name
};

/// Horovod-style warning: a header line naming the threshold, then one line per tensor,
/// "[missing ranks: 1, 3] tensor: grad/layer2". Empty when `stalled` is empty.
std::string format_stall_warning(const std::vector<StalledTensor>& stalled, double warning_seconds);

}  // namespace hvd::control
