// SPDX-License-Identifier: Apache-2.0
#pragma once
// For the restart tests (--max-restarts): one rank dies at a chosen step, in the job's first
// attempt only, so that the restarted job (TORCHELASTIC_RESTART_COUNT > 0) resumes from its
// checkpoint and runs to the end.

#include <cstdint>

#include "options.h"

namespace hvd::train {

/// Ends this process at once with exit code 3, as a crash would (no checkpoint, no goodbye to
/// the other ranks), when `rank` is --test-crash-rank, `step` is --test-crash-at-step and the
/// job has not been restarted yet (o.restart_count 0). Does nothing otherwise.
void crash_once_if_asked(const TrainOptions& o, int rank, int64_t step);

}  // namespace hvd::train
