// SPDX-License-Identifier: Apache-2.0
#pragma once
// All of hvdrun's commands on one CLI11 app: the run command (the app itself), sbatch,
// profiles, exec-rank, report, predict, preflight, why and --check-build.

#include <CLI/CLI.hpp>

#include "cli/exec_rank_cmd.h"
#include "cli/predict_cmd.h"
#include "cli/preflight_cmd.h"
#include "cli/report_cmd.h"
#include "cli/sbatch_cmd.h"
#include "cli/why_cmd.h"
#include "cli/why_node_cmd.h"
#include "config/env_map.h"
#include "config/run_options.h"

namespace hvd::launcher::cli {

/// What hvdrun does, in one sentence (the man page's NAME line, --help's first line).
inline constexpr const char* kHvdrunSummary =
    "hvdrun: run a program as N ranks of a distributed job, on this machine or in a "
    "Slurm allocation, with each rank's identity, rendezvous, GPU and CPU binding set";

struct Commands {
  config::RunOptions run;
  ExecRankOptions exec_rank;
  SbatchOptions sbatch;
  ReportOptions report;
  PredictOptions predict;
  PreflightOptions preflight;
  WhyOptions why;
  CLI::App* exec_rank_cmd = nullptr;
  CLI::App* sbatch_cmd = nullptr;
  CLI::App* profiles_cmd = nullptr;
  CLI::App* report_cmd = nullptr;
  CLI::App* predict_cmd = nullptr;
  CLI::App* preflight_cmd = nullptr;
  CLI::App* why_cmd = nullptr;
  CLI::App* why_node_cmd = nullptr;
};

/// Adds the description, every option and subcommand to `app`; `commands` receives the parsed
/// values.
void register_commands(CLI::App& app, Commands& commands);

/// After app.parse(): runs the command that was given and returns hvdrun's exit code.
int dispatch(const CLI::App& app, Commands& commands, const EnvMap& env);

}  // namespace hvd::launcher::cli
