// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `extends:` merge behind merge_profile_file (profile_loader.h): a profile is laid onto its
// merged parent (maps merge key by key, lists and scalars replace) while ProfileOrigins records
// which file wrote each key. Private to profile/.

#include <string>

#include <yaml-cpp/yaml.h>

#include "profile/profile_loader.h"

namespace hvd::launcher::profile {

/// Merges `root`, the parsed text of `file`, onto the parents its `extends:` chain names, each
/// found through `resolve` and read from disk. Every file must be a mapping whose `name` is its
/// file stem, with each key a plain name given once. Throws ConfigError otherwise, and for an
/// unknown parent or an extends cycle.
MergedProfile merge_profile(const std::string& file, const YAML::Node& root,
                            const ProfileResolver& resolve);

/// The key path of `key` under `prefix` ("node" + "gpus" -> "node.gpus"; "" + "name" ->
/// "name"), as ProfileOrigins records paths and errors print them.
std::string join_key(const std::string& prefix, const std::string& key);

/// A node's value as errors quote it: "'TEXT'" for a scalar, else "a mapping", "a list" or
/// "nothing".
std::string describe(const YAML::Node& n);

}  // namespace hvd::launcher::profile
