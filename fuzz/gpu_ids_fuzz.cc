// SPDX-License-Identifier: Apache-2.0
// GPU index lists (SLURM_STEP_GPUS, CUDA_VISIBLE_DEVICES).
#include "fuzz_harness.h"
#include "slurm/gpu_ids.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return hvd::fuzz::expect_only_hvd_errors(
      [&] { hvd::launcher::slurm::parse_gpu_ids(hvd::fuzz::as_text(data, size)); });
}
