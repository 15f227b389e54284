// SPDX-License-Identifier: Apache-2.0
#pragma once
// Handing a rendered batch script to sbatch.

#include <chrono>
#include <string>

#include "config/env_map.h"

namespace hvd::launcher::slurm {

/// How long `hvdrun sbatch --submit` waits for sbatch: a hung slurmctld must not hang hvdrun.
inline constexpr std::chrono::seconds kSubmitTimeout{60};

/// Runs `sbatch --parsable` (proc::run_for_output) with `script` on stdin (never a predictable
/// file name) and returns the job id. Throws SchedulerError with sbatch's own message when it
/// rejects the script, when sbatch is not found, or when it does not answer within `limit`
/// (it is killed with its process group then).
std::string submit_batch_script(const std::string& script, const EnvMap& env,
                                std::chrono::seconds limit = kSubmitTimeout);

}  // namespace hvd::launcher::slurm
