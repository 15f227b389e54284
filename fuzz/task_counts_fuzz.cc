// SPDX-License-Identifier: Apache-2.0
// SLURM_TASKS_PER_NODE ("2(x3),1"): expansion, and compression of what expanded.
#include "fuzz_harness.h"
#include "slurm/task_counts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace slurm = hvd::launcher::slurm;
  return hvd::fuzz::expect_only_hvd_errors([&] {
    const std::vector<int> counts = slurm::expand_task_counts(hvd::fuzz::as_text(data, size));
    if (!counts.empty()) slurm::compress_task_counts(counts);
  });
}
