// SPDX-License-Identifier: Apache-2.0
#pragma once
// Finding Slurm's commands.

#include <string>

#include "config/env_map.h"

namespace hvd::launcher::slurm {

/// The path of `tool` (srun, sbatch, scontrol) in the PATH of `env`. Throws SchedulerError
/// saying it is missing and what to do about it.
std::string find_slurm_tool(const std::string& tool, const EnvMap& env);

}  // namespace hvd::launcher::slurm
