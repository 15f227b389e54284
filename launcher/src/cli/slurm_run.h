// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun [-np N] -- CMD` inside a Slurm job: one srun step whose tasks are the ranks, each
// running `hvdrun exec-rank -- CMD`.

#include <string>

#include "config/env_map.h"
#include "config/run_options.h"
#include "profile/site_profile.h"

namespace hvd::launcher::cli {

/// The profile to use: --profile when given, else the one detected from SLURM_CLUSTER_NAME or
/// the host name, else the embedded `local` profile.
profile::SiteProfile resolve_profile(const std::string& requested, const EnvMap& env);

/// Prints the plan (--dry-run) or runs the step; returns hvdrun's exit code.
int run_in_allocation(const config::RunOptions& opts, const EnvMap& env);

}  // namespace hvd::launcher::cli
