// SPDX-License-Identifier: Apache-2.0
#include "test_crash.h"

#include <cstdio>
#include <cstdlib>

namespace hvd::train {

void crash_once_if_asked(const TrainOptions& o, int rank, int64_t step) {
  if (o.test_crash_at_step < 0 || o.restart_count != 0) return;
  if (rank != o.test_crash_rank || step != o.test_crash_at_step) return;
  std::fprintf(stderr, "hvd-train: rank %d crashing at step %lld (--test-crash-at-step)\n", rank,
               static_cast<long long>(step));
  std::fflush(stderr);
  std::_Exit(3);
}

}  // namespace hvd::train
