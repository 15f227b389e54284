// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun report FILE.json... [-o DIR] [--format png,svg]`: pictures of hvd-bench and hvd-train
// results, drawn by gnuplot.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/env_map.h"

namespace hvd::launcher::cli {

struct ReportOptions {
  std::vector<std::string> files;
  std::string output_dir = ".";
  std::string formats = "png,svg";
  int timeout_seconds = 60;
};

CLI::App* register_report(CLI::App& app, ReportOptions& options);

/// Draws every picture, prints the paths written, returns 0. Throws ConfigError (exit 3) for a
/// missing or invalid input, LaunchError (exit 5) when gnuplot is missing or fails.
int run_report(const ReportOptions& options, const EnvMap& env);

}  // namespace hvd::launcher::cli
