// SPDX-License-Identifier: Apache-2.0
#pragma once
// Finding site profiles: the search path, lookup by name or path, and detection of the site
// hvdrun runs on. Parsing and validation are profile_loader.h's.

#include <optional>
#include <string>
#include <vector>

#include "config/env_map.h"
#include "profile/profile_loader.h"
#include "profile/site_profile.h"

namespace hvd::launcher::profile {

/// A profile file in the search path, or the embedded local profile (empty `path`).
struct ProfileEntry {
  std::string name;
  std::string path;         // empty for the embedded local profile
  std::string shadowed_by;  // the path that wins for this name ("<embedded>" never wins over a
                            // file); empty when this entry is the one used
  std::string description;  // list_profiles only
  std::string error;        // list_profiles only: why the profile does not load; empty if valid
};

/// The folders searched, in order: each entry of $HVDRUN_PROFILE_PATH (colon-separated),
/// $HOME/.config/hvdrun, then the install's share/hvdrun/site-profiles (when found).
std::vector<std::string> profile_search_dirs(const EnvMap& env);

/// The NAME.yaml files of `dirs` (sorted by name within a folder, folders in order), then the
/// embedded local profile. The first entry of a name wins; later ones get `shadowed_by`. Reads
/// no file.
std::vector<ProfileEntry> scan_profiles(const std::vector<std::string>& dirs);

/// scan_profiles over profile_search_dirs, with each profile loaded to fill `description` or
/// `error`; a broken file is listed with its error, not thrown.
std::vector<ProfileEntry> list_profiles(const EnvMap& env);

/// Resolves `extends:` names for the profile at `profile_file`: NAME.yaml in the same folder
/// first, then the winning NAME in the search path. Throws ConfigError for an unknown name.
ProfileResolver make_resolver(const std::string& profile_file, const EnvMap& env);

/// The file `name_or_path` means: a path when it contains '/' or ends in .yaml, otherwise the
/// winning profile of that name. Empty for the embedded local profile. Throws ConfigError for
/// an unknown name, listing the known ones.
std::string locate_profile(const std::string& name_or_path, const EnvMap& env);

/// locate_profile, then load and validate. Throws ConfigError.
SiteProfile find_profile(const std::string& name_or_path, const EnvMap& env);

/// locate_profile, then merge without validating (for `profiles show`). Throws ConfigError.
MergedProfile find_merged_profile(const std::string& name_or_path, const EnvMap& env);

/// The profile for the machine hvdrun runs on: the first profile (in search order) whose
/// detect.cluster_names holds $SLURM_CLUSTER_NAME, else the first whose
/// detect.hostname_patterns fully match `hostname`; nullopt when none does (outside Slurm that
/// means "local"). Throws ConfigError when a profile in the search path does not load.
std::optional<std::string> detect_profile(const EnvMap& env, const std::string& hostname);

/// The profile to use: `requested` (--profile) when given, else the one detected from
/// SLURM_CLUSTER_NAME or this host's name, else the embedded `local` profile.
SiteProfile resolve_profile(const std::string& requested, const EnvMap& env);

}  // namespace hvd::launcher::profile
