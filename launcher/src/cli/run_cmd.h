// SPDX-License-Identifier: Apache-2.0
#pragma once
// The run command: `hvdrun -np N [options] -- PROGRAM ARGS...`, in every mode.

#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/env_map.h"
#include "config/run_options.h"

namespace hvd::launcher::cli {

/// Adds the run options (horovodrun's names) to `app`, writing into `opts`.
void register_run_options(CLI::App& app, config::RunOptions& opts);

/// Every spelling of every option of `app` that takes a value (for normalize_horovodrun_args).
std::set<std::string> options_taking_value(const CLI::App& app);

/// The program and its arguments from what CLI11 left unparsed. Throws UsageError for an
/// unknown option in hvdrun's part of the line (before the program).
std::vector<std::string> take_command(const std::vector<std::string>& remaining,
                                      const CLI::App& owner,
                                      const std::string& command_name = "hvdrun");

/// The program given to subcommand `sub`. CLI11 hands what follows a "--" after a
/// subcommand's options to the parent app, so both are looked at.
std::vector<std::string> take_command(const CLI::App& sub, const CLI::App& app);

/// Throws UsageError when CLI11 left words of subcommand `sub` unparsed: an unknown option
/// (with the option it was probably meant to be) or a stray word. A command that takes no
/// program calls it, so that a typo is not quietly dropped.
void refuse_leftovers(const CLI::App& sub, const std::string& command_name);

/// Runs the command the options describe (plan/make_plan.h picks the mode: one srun step inside
/// a Slurm job, mpirun with --mpi, else ranks on this machine), or prints its plan with
/// --dry-run. Returns hvdrun's exit code; throws hvd::Error for anything that stops the run
/// before it starts.
int run_command(const config::RunOptions& opts, const EnvMap& env);

}  // namespace hvd::launcher::cli
