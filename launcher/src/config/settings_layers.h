// SPDX-License-Identifier: Apache-2.0
#pragma once
// The settings' layers, merged in one place. Precedence, later wins: built-in values <
// configs/defaults.yaml < HOROVOD_* in the environment < --config-file < flags.
// plan/launch_request.h resolves the rest of the command line around them.

#include <string>
#include <vector>

#include "config/env_map.h"
#include "config/run_options.h"
#include "config/tunables.h"

namespace hvd::launcher::config {

/// The settings layers alone (defaults file, HOROVOD_* in `env`, --config-file, flags),
/// validated; `sources` gets the files that were merged.
Settings resolve_settings(const RunOptions& opts, const std::string& defaults_path,
                          std::vector<std::string>& sources, const EnvMap& env = {});

/// Applies the command-line layer of `opts` on top of `settings`.
void apply_flags(Settings& settings, const RunOptions& opts);

}  // namespace hvd::launcher::config
