// SPDX-License-Identifier: Apache-2.0
#include "profile/profile_loader.h"

#include <string>

#include "config/yaml_file.h"
#include "hvd/error.h"
#include "profile/embedded_local.h"
#include "profile/profile_merge.h"
#include "profile/profile_schema.h"

// The public entry points. The `extends:` merge and ProfileOrigins live in profile_merge.cc,
// the schema and its checks in profile_schema.cc.

namespace hvd::launcher::profile {

MergedProfile merge_profile_file(const std::string& path, const ProfileResolver& resolve_parent) {
  return merge_profile(path, config::load_yaml_file(path), resolve_parent);
}

SiteProfile parse_profile(const YAML::Node& merged, const ProfileOrigins& origins) {
  return read_profile(merged, origins);
}

SiteProfile load_profile_file(const std::string& path, const ProfileResolver& resolve_parent) {
  const MergedProfile merged = merge_profile_file(path, resolve_parent);
  SiteProfile p = parse_profile(merged.root, merged.origins);
  p.source = path;
  p.sources = merged.sources;
  return p;
}

MergedProfile embedded_local_merged() {
  const ProfileResolver none = [](const std::string& name) -> std::string {
    throw ConfigError(str_cat("the embedded profile cannot extend '", name, "'"));
  };
  return merge_profile(kEmbeddedLocalName,
                       config::load_yaml_text(kEmbeddedLocalYaml, kEmbeddedLocalName), none);
}

SiteProfile embedded_local_profile() {
  const MergedProfile merged = embedded_local_merged();
  return parse_profile(merged.root, merged.origins);
}

}  // namespace hvd::launcher::profile
