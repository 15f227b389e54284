// SPDX-License-Identifier: Apache-2.0
#pragma once
// RankReport: what hvdrun knows about one rank when it gives a verdict: the rank's own answer
// (its libhvd queue and its stack, sent to the store: hvd/why_protocol.h), or, when it did not
// answer, what the process table says (stopped, gone).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "why/stack_frame.h"

namespace hvd::launcher::why {

/// A collective as a rank reported it (runtime/src/diag/rank_snapshot.h).
struct OpInfo {
  std::string name;
  std::string op;
  int process_set = 0;
  uint64_t seq = 0;
  double age_s = 0;  // pending: waited for; last done: how long ago
};

enum class RankCondition {
  kAnswered,  // it sent its state
  kStopped,   // the process is stopped (SIGSTOP, a debugger): it cannot answer
  kSilent,    // running, but no answer in time (no libhvd, or too busy)
  kGone,      // the process has exited
};

struct RankReport {
  int rank = -1;
  std::string host;
  int64_t pid = 0;
  RankCondition condition = RankCondition::kSilent;
  bool has_libhvd = false;  // the answer came from libhvd (queue fields are meaningful)
  std::vector<OpInfo> pending;  // oldest first
  std::optional<OpInfo> last_done;
  double quiet_s = 0;
  uint64_t submitted = 0;
  uint64_t completed = 0;
  std::string python_stack;
  std::string native_stack;
  std::optional<Frame> where;  // the user's innermost frame in the main thread
};

/// The answer rank `rank` sent (JSON, hvd/why_protocol.h). Throws ConfigError naming the rank
/// and the field when it is not the expected shape.
RankReport parse_rank_answer(int rank, const std::string& json);

/// Fills report.where from its Python stack, or else its native stack.
void locate(RankReport& report);

/// The report as JSON (`hvdrun why --json`, the verdict file).
nlohmann::json to_json(const RankReport& report);

/// "answered", "stopped", "silent", "gone".
const char* condition_name(RankCondition c);

}  // namespace hvd::launcher::why
