// SPDX-License-Identifier: Apache-2.0
// Site profiles: YAML text through the `extends:` merge and the schema. A profile's `name` must
// be its file's stem, so the input is named after the name it gives (when it gives one); a
// parent it extends is refused, as no other file exists here.
#include <string>

#include "config/yaml_file.h"
#include "fuzz_harness.h"
#include "profile/profile_loader.h"
#include "profile/profile_merge.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace profile = hvd::launcher::profile;
  return hvd::fuzz::expect_only_hvd_errors([&] {
    const std::string text(hvd::fuzz::as_text(data, size));
    const YAML::Node root = hvd::launcher::config::load_yaml_text(text, "fuzz.yaml");
    std::string stem = "fuzz";
    if (root.IsMap() && root["name"] && root["name"].IsScalar()) {
      stem = root["name"].Scalar();
      if (stem.find('/') != std::string::npos) stem = "fuzz";
    }
    const profile::ProfileResolver no_parents = [](const std::string& name) -> std::string {
      throw hvd::ConfigError("fuzz: no parent profile '" + name + "'");
    };
    const profile::MergedProfile merged =
        profile::merge_profile("/fuzz/" + stem + ".yaml", root, no_parents);
    profile::parse_profile(merged.root, merged.origins);
  });
}
