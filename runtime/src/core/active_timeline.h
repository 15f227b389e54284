// SPDX-License-Identifier: Apache-2.0
#pragma once
// ActiveTimeline: which timeline a rank writes now, if any. HOROVOD_TIMELINE starts one with
// the runtime; hvd.start_timeline() and stop_timeline() switch one on and off while it runs.
// Every thread reads current(); only start() and stop() change it. Writers live until this
// object ends, so a thread that loaded the pointer just before a stop records into a closed
// writer, which ignores it.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hvd/status.h"
#include "timeline/timeline.h"

namespace hvd::core {

class ActiveTimeline {
 public:
  /// Starts writing at once when options.filename is set (HOROVOD_TIMELINE), with its epoch
  /// now. `options` is also what start() begins from. Throws when the file cannot be created.
  ActiveTimeline(const TimelineOptions& options, int rank);

  /// The timeline being written; null when none. Thread-safe.
  TimelineWriter* current() const { return current_.load(); }
  /// Starts writing this rank's timeline (timeline_rank_path(path, rank)) with its epoch now.
  /// Error when one is being written already, or the file cannot be created.
  Status start(const std::string& path, bool mark_cycles);
  /// Closes the running timeline and says where it was (its base path), and whether start()
  /// started it; error when none is being written, or writing failed.
  Status stop(std::string* base, bool* from_api);
  /// Closes the running timeline at the end of the run; a failure to write it is ignored, so
  /// that it cannot turn a finished run into a failed one.
  void close_at_end() noexcept;

 private:
  const TimelineOptions options_;
  const int rank_;
  std::atomic<TimelineWriter*> current_{nullptr};
  std::mutex mutex_;  // guards writers_ and the changes of current_
  std::vector<std::unique_ptr<TimelineWriter>> writers_;
  bool from_api_ = false;  // started by start(), not HOROVOD_TIMELINE
  std::string base_;       // the running timeline's base path (timeline_rank_path())
};

}  // namespace hvd::core
