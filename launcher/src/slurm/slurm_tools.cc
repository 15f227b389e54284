// SPDX-License-Identifier: Apache-2.0
#include "slurm/slurm_tools.h"

#include "hvd/error.h"
#include "proc/program_lookup.h"

namespace hvd::launcher::slurm {

std::string find_slurm_tool(const std::string& tool, const EnvMap& env) {
  try {
    return proc::resolve_program(tool, env);
  } catch (const LaunchError&) {
    throw SchedulerError(str_cat(tool, " was not found in PATH (", env_string(env, "PATH", ""),
                                 "); load your site's Slurm module, or run on a machine with "
                                 "Slurm's client commands"));
  }
}

}  // namespace hvd::launcher::slurm
