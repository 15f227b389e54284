// SPDX-License-Identifier: Apache-2.0
#pragma once
// Loading a site profile: read the file, follow `extends:` (maps merge recursively, lists and
// scalars replace), remember which file wrote each value, and validate everything into a
// SiteProfile. Every error is a ConfigError "FILE:LINE:COL: KEY.PATH: what is wrong", pointing
// at the file that wrote the value even when it came through `extends:`.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "profile/site_profile.h"

namespace hvd::launcher::profile {

/// Returns the path of the profile a file names in `extends:`; throws ConfigError when there is
/// none of that name.
using ProfileResolver = std::function<std::string(const std::string& name)>;

/// Which file wrote each key of a merged profile. Paths are key paths as errors print them:
/// "node.gpus", and "env[2]" for a list item (recorded with the item node itself).
class ProfileOrigins {
 public:
  /// Records that `key` (the key node as written, or the list item) in `file` set `path`.
  void record(const std::string& path, const std::string& file, const YAML::Node& key);
  /// Forgets everything recorded below `path`, whose value another file replaced.
  void forget_below(const std::string& path);
  /// The file that wrote `path` or, for paths not recorded (a missing "env[2].reason"), its
  /// nearest recorded ancestor. The root path "" is the profile's own file.
  const std::string& file_of(const std::string& path) const;
  /// "FILE:LINE:COL" of the key that set `path` (or of its nearest recorded ancestor).
  std::string where_key(const std::string& path) const;

 private:
  struct Origin {
    std::string file;
    YAML::Node key;
  };
  const Origin& find(const std::string& path) const;
  std::map<std::string, Origin> by_path_;
};

/// A profile with its `extends:` chain merged, before validation.
struct MergedProfile {
  YAML::Node root;  // the merged mapping, without `extends:`
  ProfileOrigins origins;
  std::vector<std::string> sources;  // the files merged, farthest parent first, the file last
};

/// Reads `path` and its parents. Each file must be a mapping whose `name` equals its file stem.
/// Throws ConfigError for unreadable or malformed files, an unknown parent or an extends cycle.
MergedProfile merge_profile_file(const std::string& path, const ProfileResolver& resolve_parent);

/// Validates a merged profile (see site-profiles/README.md for the schema) and converts it.
/// Throws ConfigError at the first problem: unknown key, wrong type, missing required field,
/// impossible node shape, malformed walltime or regex, env entry without reason, unknown guard.
SiteProfile parse_profile(const YAML::Node& merged, const ProfileOrigins& origins);

/// merge_profile_file + parse_profile; `source` and `sources` are set from the files.
SiteProfile load_profile_file(const std::string& path, const ProfileResolver& resolve_parent);

/// The `local` profile compiled into hvdrun (profile/embedded_local.h), merged, for
/// `profiles show local` when no local.yaml is installed. Its file is named
/// kEmbeddedLocalName in errors and sources.
MergedProfile embedded_local_merged();

/// The embedded `local` profile, validated; `source` and `sources` are empty.
SiteProfile embedded_local_profile();

/// What errors and `profiles show` call the embedded local profile.
inline constexpr const char* kEmbeddedLocalName = "<embedded>/local.yaml";

}  // namespace hvd::launcher::profile
