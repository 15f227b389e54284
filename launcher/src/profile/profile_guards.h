// SPDX-License-Identifier: Apache-2.0
#pragma once
// Guards: named checks a site profile switches on (`guards: [no_gpus_per_task]`) that refuse a
// request known to break on that site, with a one-line reason, before anything is submitted.

#include <string>
#include <vector>

#include "config/env_map.h"
#include "profile/site_profile.h"

namespace hvd::launcher::profile {

/// What the user asked for, as far as the guards need to know.
struct GuardContext {
  /// srun or #SBATCH flags the user added, as typed ("--gpus-per-task=1" or "--gpus-per-task",
  /// "1").
  std::vector<std::string> srun_flags;
  /// The environment that will reach the ranks (the profile's env, the user's exports).
  EnvMap rank_env;
};

/// The guard names a profile may list, in the order they are documented.
const std::vector<std::string>& known_guards();

/// Runs every guard `profile` lists. Throws UsageError for a refused flag and ConfigError for a
/// refused environment, naming the site, the guard and why; throws ConfigError for an unknown
/// guard name (the loader refuses those first).
void check_guards(const SiteProfile& profile, const GuardContext& context);

}  // namespace hvd::launcher::profile
