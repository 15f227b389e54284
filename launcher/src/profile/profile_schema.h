// SPDX-License-Identifier: Apache-2.0
#pragma once
// The site-profile schema behind parse_profile (profile_loader.h): one table row per key, each
// converting and checking its value, then the checks across keys (node shape, GPU request,
// partitions, env). Private to profile/.

#include <yaml-cpp/yaml.h>

#include "profile/profile_loader.h"
#include "profile/site_profile.h"

namespace hvd::launcher::profile {

/// Validates `root`, a profile merged through `extends:`, and converts it. Errors point at the
/// file `origins` says wrote the value. Throws ConfigError at the first problem.
SiteProfile read_profile(const YAML::Node& root, const ProfileOrigins& origins);

}  // namespace hvd::launcher::profile
