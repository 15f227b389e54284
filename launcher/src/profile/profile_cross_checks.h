// SPDX-License-Identifier: Apache-2.0
#pragma once
// The site-profile checks that look at more than one key (node shape against GPU lists, the GPU
// request syntax, the default partition, env names and the rendezvous port), run once every
// value has been read. Private to profile/.

#include <yaml-cpp/yaml.h>

#include "profile/profile_reader.h"
#include "profile/site_profile.h"

namespace hvd::launcher::profile {

/// root[section][key], or an undefined node when either is missing.
YAML::Node value_at(const YAML::Node& root, const char* section, const char* key);

/// Throws ConfigError (through `r`) at the first inconsistency of `s`, read from `root`.
void check_across_keys(const Reader& r, const YAML::Node& root, const SiteProfile& s);

}  // namespace hvd::launcher::profile
