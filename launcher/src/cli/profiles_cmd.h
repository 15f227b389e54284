// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun profiles list|show NAME|validate FILE...`: the site profiles hvdrun can see.

#include <ostream>

#include <CLI/CLI.hpp>

#include "config/env_map.h"

namespace hvd::launcher::cli {

/// Adds the `profiles` subcommand and its `list`, `show` and `validate` subcommands to `app`;
/// returns `profiles`. The values stay in the returned App (read by run_profiles_command).
CLI::App* register_profiles_command(CLI::App& app);

/// Runs the parsed `profiles` subcommand, printing to `out`. Returns 0; throws ConfigError
/// (exit code 3) for a profile that does not load, after printing "FILE: ok" for the files
/// before it.
int run_profiles_command(const CLI::App& profiles_subcommand, const EnvMap& env, std::ostream& out);

/// The same, printing to stdout.
int run_profiles_command(const CLI::App& profiles_subcommand, const EnvMap& env);

}  // namespace hvd::launcher::cli
