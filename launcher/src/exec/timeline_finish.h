// SPDX-License-Identifier: Apache-2.0
#pragma once
// After the ranks end, hvdrun merges their per-rank timelines into the one file the user named
// (--timeline-filename), with a track group per rank. Done here rather than by rank 0 so that
// it also works when ranks were killed.

#include "config/tunables.h"

namespace hvd::launcher::exec {

/// Merges the rank files of `tunables.timeline_filename` for `ranks` ranks; says on stderr what
/// it merged and which ranks left no usable file. Does nothing without a timeline.
void finish_timeline(const config::Tunables& tunables, int ranks);

}  // namespace hvd::launcher::exec
