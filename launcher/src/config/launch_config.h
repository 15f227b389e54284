// SPDX-License-Identifier: Apache-2.0
#pragma once
// LaunchConfig: everything a local launch needs, merged in one place.
// Precedence, later wins: built-in values < configs/defaults.yaml < --config-file < flags.

#include <set>
#include <string>
#include <vector>

#include "binding/binding_policy.h"
#include "config/env_map.h"
#include "config/host_spec.h"
#include "config/run_options.h"
#include "config/tunables.h"

namespace hvd::launcher::config {

struct LaunchConfig {
  Settings settings;
  std::vector<std::string> sources;  // the files merged, in order
  int num_proc = 0;
  HostSlots host;                    // this machine, and the slots it offers
  std::vector<std::string> command;
  binding::BindPolicy bind_to = binding::BindPolicy::kAuto;
  std::string output_dir;            // --output-filename; empty = none
  bool dry_run = false;
};

/// Merges the layers. `defaults_path` may be empty or name a missing file (built-in values then
/// stand); `machine_names` decides which -H hosts are this machine.
/// Throws UsageError for inconsistent flags and ConfigError for bad files.
LaunchConfig resolve_launch_config(const RunOptions& opts, const std::string& defaults_path,
                                   const std::set<std::string>& machine_names,
                                   const EnvMap& env = {});

/// The settings layers alone (defaults file, HOROVOD_* in `env`, --config-file, flags),
/// validated; `sources` gets the files that were merged.
Settings resolve_settings(const RunOptions& opts, const std::string& defaults_path,
                          std::vector<std::string>& sources, const EnvMap& env = {});

/// Applies the command-line layer of `opts` on top of `settings`.
void apply_flags(Settings& settings, const RunOptions& opts);

}  // namespace hvd::launcher::config
