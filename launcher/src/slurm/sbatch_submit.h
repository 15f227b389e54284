// SPDX-License-Identifier: Apache-2.0
#pragma once
// Handing a rendered batch script to sbatch.

#include <string>

#include "config/env_map.h"

namespace hvd::launcher::slurm {

/// Runs `sbatch --parsable` with `script` on stdin (never a predictable file name) and returns
/// the job id. Throws SchedulerError with sbatch's own message when it rejects the script, or
/// when sbatch is not found.
std::string submit_batch_script(const std::string& script, const EnvMap& env);

}  // namespace hvd::launcher::slurm
