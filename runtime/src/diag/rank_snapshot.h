// SPDX-License-Identifier: Apache-2.0
#pragma once
// What one rank's libhvd can say about itself when hvdrun asks (`hvdrun why`): the collectives
// it has submitted and not yet run, the last one it ran, and how long it has been quiet. Times
// are ages in seconds, not clock readings: hvdrun compares ranks on different hosts.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hvd::diag {

/// One collective this rank submitted.
struct OpRecord {
  std::string name;      // the tensor's name ("grad.fc1", "allreduce.noname.13")
  std::string op;        // "allreduce", "broadcast", ...
  int process_set = 0;   // 0: all ranks
  uint64_t seq = 0;      // this rank's submission count when it was submitted (1 = first)
  double age_s = 0;      // pending: how long it has waited; last_done: how long ago it ran
};

/// A rank's queue as seen at one moment.
struct QueueView {
  std::vector<OpRecord> pending;     // submitted, not yet run; oldest first
  std::optional<OpRecord> last_done;
  uint64_t submitted = 0;
  uint64_t completed = 0;
  double quiet_s = 0;  // since the latest submission or run: with nothing pending, computing
};

/// The JSON that a rank sends hvdrun (hvd/why_protocol.h): {"pending": [...], "last_done": ...,
/// "submitted", "completed", "quiet_s"}.
std::string to_json(const QueueView& view);

}  // namespace hvd::diag
