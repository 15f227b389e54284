// SPDX-License-Identifier: Apache-2.0
#pragma once
// After the ranks end, hvdrun merges their per-rank timelines into the one file the user named
// (--timeline-filename), with a track group per rank. Done here rather than by rank 0 so that
// it also works when ranks were killed.

#include <optional>
#include <string>

#include "config/tunables.h"

namespace hvd::launcher::exec {

/// Where the trace of an attempt that was restarted goes: "tl.json", 0 -> "tl.attempt-0.json"
/// (".json" kept last so that viewers still recognise it). The last attempt's is `base` itself.
std::string timeline_attempt_path(const std::string& base, int attempt);

/// Throws UsageError when the timeline's folder does not exist: found out only at the end, the
/// job's whole trace was lost with a warning.
void require_timeline_folder(const config::Tunables& tunables);

/// Merges the rank files of `tunables.timeline_filename` for `ranks` ranks (named with `tag`,
/// the plan's HVD_TIMELINE_TAG) into that file, or
/// into timeline_attempt_path() for an attempt about to be restarted (its ranks' files are
/// rewritten by the next attempt); says on stderr what it merged and which ranks left no
/// usable file. Does nothing without a timeline.
void finish_timeline(const config::Tunables& tunables, int ranks, const std::string& tag,
                     std::optional<int> attempt = {});

}  // namespace hvd::launcher::exec
