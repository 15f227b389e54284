// SPDX-License-Identifier: Apache-2.0
#pragma once
// Finding srun and its version for --check-build.

#include <string>

#include "config/env_map.h"

namespace hvd::launcher::check {

struct SrunInfo {
  std::string path;     // empty when srun is not in PATH
  std::string version;  // e.g. "slurm-wlm 22.05.8"; empty when it would not say
};

/// Looks for srun in the PATH of `env` and asks `srun --version`. srun refuses to answer even
/// that without a Slurm configuration (as on a login-less workstation), so a second try points
/// SLURM_CONF at a throwaway minimal one.
SrunInfo probe_srun(const EnvMap& env);

}  // namespace hvd::launcher::check
