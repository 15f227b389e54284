// SPDX-License-Identifier: Apache-2.0
// --config-file and configs/defaults.yaml: YAML text applied onto the defaults, then validated.
#include <string>

#include "config/tunables.h"
#include "config/yaml_file.h"
#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace config = hvd::launcher::config;
  return hvd::fuzz::expect_only_hvd_errors([&] {
    const std::string text(hvd::fuzz::as_text(data, size));
    config::Settings settings;
    config::apply_yaml(settings, config::load_yaml_text(text, "fuzz.yaml"), "fuzz.yaml");
    config::validate(settings, "fuzz.yaml");
    config::to_json(settings).dump();
  });
}
