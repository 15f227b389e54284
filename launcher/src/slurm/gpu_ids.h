// SPDX-License-Identifier: Apache-2.0
#pragma once
// GPU index lists as Slurm and CUDA write them: SLURM_STEP_GPUS, SLURM_JOB_GPUS and a numeric
// CUDA_VISIBLE_DEVICES ("0,1,2,3", "0-3", "0-1,4").

#include <string_view>
#include <vector>

namespace hvd::launcher::slurm {

/// Parses comma-separated GPU indices "N" or ranges "N-M" (N <= M) in the order written, since
/// order carries meaning in CUDA_VISIBLE_DEVICES ("3,2": device 0 is GPU 3). Surrounding
/// whitespace is ignored and blank text gives an empty list.
/// Throws SchedulerError quoting the text and the bad piece for anything else: a UUID or MIG
/// name ("GPU-8f2..."), a negative or descending range, an empty piece ("0,,1"), an index above
/// 65535, or an index listed twice (which would give two ranks one device by accident).
std::vector<int> parse_gpu_ids(std::string_view text);

}  // namespace hvd::launcher::slurm
