// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun preflight`: before a long job, check every node of the allocation (or this machine)
// in a few seconds: GPUs, the profile's NICs, clocks, memory bandwidth, and libhvd allreduce
// latency and bandwidth over all ranks, within each node and between nodes. hvd-preflight (the
// rank program, found beside hvdrun) measures; this command judges (preflight/verdict.h), prints
// a table per node and per link, and with --strict fails when something is flagged.

#include <string>

#include <CLI/CLI.hpp>

#include "cli/exit_codes.h"
#include "config/env_map.h"
#include "config/run_options.h"

namespace hvd::launcher::cli {

struct PreflightOptions {
  config::RunOptions run;  // where and how many ranks: the run command's options that apply
  double threshold = 0.7;
  bool strict = false;
  std::string json_file;
  int bytes = 4 << 20;     // the timed large allreduce
};

CLI::App* register_preflight(CLI::App& app, PreflightOptions& options);

/// Runs hvd-preflight as the plan for these options says, prints the verdict and returns 0, a
/// rank's exit code when hvd-preflight failed, or kExitPreflightFlagged with --strict. Throws
/// hvd::Error as the run command does, and ConfigError for an unreadable report.
int run_preflight(const PreflightOptions& options, const EnvMap& env);

}  // namespace hvd::launcher::cli
