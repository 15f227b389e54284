// SPDX-License-Identifier: Apache-2.0
#pragma once
// Turns one rank's decoded timeline into Chrome-trace events (the JSON objects of a trace
// array), viewable in Perfetto or chrome://tracing. The layout is Horovod's, one group of
// tracks per rank: pid = rank; tid 0 ("marks") holds instant marks (CYCLE_START, FATAL,
// EVENTS_DROPPED); each tensor has its own tid (its id + 1), named after it, with a B/E pair
// per phase. A phase recorded on a group of tensors becomes a B/E pair on each of their tracks.

#include <cstddef>
#include <functional>
#include <string_view>

#include "timeline_decode.h"

namespace hvd::core {

/// What write_chrome_events() wrote and left out.
struct ChromeEventCounts {
  size_t written = 0;
  /// Events naming a tensor, group or name whose record is not in the file (lost to damage).
  size_t unresolved = 0;
};

/// Calls `emit` with each event of `timeline` as one serialized JSON object, as rank `pid`:
/// the tracks' names first, then the events in time order (ties keep the file's order).
ChromeEventCounts write_chrome_events(const DecodedTimeline& timeline, int pid,
                                      const std::function<void(std::string_view)>& emit);

}  // namespace hvd::core
