// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun sbatch --profile P -N 4 -t 02:00:00 -A acct -- CMD`: render a batch script, print
// it or write it (--output), or hand it to sbatch (--submit) and print the job id. The script
// says in comments what hvdrun will run in the job (plan/batch_preview.h); --explain prints
// only that.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/env_map.h"
#include "slurm/sbatch_render.h"

namespace hvd::launcher::cli {

struct SbatchOptions {
  std::string profile;
  slurm::BatchRequest request;
  std::string output;         // write the script here instead of printing it
  std::string template_file;  // the user's own template
  bool submit = false;
  int submit_timeout_seconds = 60;  // how long --submit waits for sbatch
  bool explain = false;       // print what hvdrun will run in the job, nothing else
  bool preflight = false;     // hvdrun preflight --strict in the job before the program
  std::vector<std::string> hvdrun_args;  // --hvdrun-arg: options for hvdrun inside the job
  std::vector<std::string> command;
};

CLI::App* register_sbatch(CLI::App& app, SbatchOptions& options);

/// Returns 0; throws UsageError/ConfigError for a request that cannot work and SchedulerError
/// when sbatch is missing or rejects the script (with sbatch's own words).
int run_sbatch(const SbatchOptions& options, const EnvMap& env);

}  // namespace hvd::launcher::cli
