// SPDX-License-Identifier: Apache-2.0
#include "cli/commands.h"

#include <iostream>

#include "cli/check_build_cmd.h"
#include "cli/exit_codes.h"
#include "cli/profiles_cmd.h"
#include "cli/run_cmd.h"
#include "hvd/build_config.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::launcher::cli {
namespace {

constexpr const char* kUsage =
    "Usage: hvdrun -np N [options] -- PROGRAM [ARGS...]\n"
    "       hvdrun sbatch|profiles|exec-rank|report|predict|preflight|why ... (see hvdrun COMMAND --help)";

}  // namespace

void register_commands(CLI::App& app, Commands& c) {
  // Here rather than in main() so that the man page (tools/hvdrun_docs.cc) says the same.
  app.description(std::string(kHvdrunSummary) + ".\n\n" + kUsage);
  app.set_version_flag("-v,--version", std::string("hvdrun ") + HVD_VERSION);
  app.footer(kExitCodeHelp);
  app.prefix_command();  // everything from the program on belongs to the program
  register_run_options(app, c.run);
  c.exec_rank_cmd = register_exec_rank(app, c.exec_rank);
  c.sbatch_cmd = register_sbatch(app, c.sbatch);
  c.profiles_cmd = register_profiles_command(app);
  c.report_cmd = register_report(app, c.report);
  c.predict_cmd = register_predict(app, c.predict);
  c.preflight_cmd = register_preflight(app, c.preflight);
  c.why_cmd = register_why(app, c.why);
  c.why_node_cmd = register_why_node(app);
  // A subcommand inherits the footer its parent had when it was made: the run's table.
  for (CLI::App* tool : {c.sbatch_cmd, c.profiles_cmd, c.report_cmd, c.predict_cmd, c.why_cmd}) {
    tool->footer(kToolExitCodeHelp);
    for (CLI::App* sub : tool->get_subcommands({})) sub->footer(kToolExitCodeHelp);
  }
}

// The first run option given before a subcommand's name ("" for none). Such an option belongs
// to a run, and the subcommand would never see it: `hvdrun --profile X preflight` must not
// quietly check with the detected profile.
std::string run_option_before(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() > 0) return option->get_name();
  }
  return "";
}

void refuse_run_options_before(const CLI::App& app, const CLI::App& sub) {
  const std::string option = run_option_before(app);
  if (option.empty()) return;
  const std::string& name = sub.get_name();
  const std::string where =
      sub.get_option_no_throw(option) != nullptr
          ? str_cat("put it after the command (hvdrun ", name, " ", option, " ...)")
          : str_cat("hvdrun ", name, " has no ", option, "; see hvdrun ", name, " --help");
  throw UsageError(str_cat(option, " before '", name, "' is an option of a run, which hvdrun ",
                           name, " would not see: ", where));
}

// An empty value reads as "not given" to the commands (an empty path or name is their unset):
// `--config-file "$CFG"` with CFG unset must not quietly run without the file. Nor may an
// option take the "--" that starts the program (`--config-file -- prog`). Not for exec-rank,
// whose options hvdrun itself writes into the srun line.
void refuse_missing_values(const CLI::App& app) {
  if (app.get_name() == "exec-rank") return;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional() || option->get_items_expected_max() <= 0) continue;
    for (const std::string& value : option->results()) {
      if (value.empty()) {
        throw UsageError(
            str_cat(option->get_name(), ": the value is empty; give one, or leave the option out"));
      }
      if (value == "--") {
        throw UsageError(str_cat(option->get_name(),
                                 ": its value is missing (it took the -- before the program); "
                                 "give it one"));
      }
    }
  }
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name().empty() || sub->parsed()) refuse_missing_values(*sub);  // groups too
  }
}

int dispatch(const CLI::App& app, Commands& c, const EnvMap& env) {
  refuse_missing_values(app);
  for (const CLI::App* sub : {c.exec_rank_cmd, c.sbatch_cmd, c.profiles_cmd, c.report_cmd,
                              c.predict_cmd, c.preflight_cmd, c.why_cmd, c.why_node_cmd}) {
    if (*sub) refuse_run_options_before(app, *sub);
  }
  if (*c.exec_rank_cmd) {
    c.exec_rank.command = take_command(*c.exec_rank_cmd, app);
    return run_exec_rank(c.exec_rank, env);
  }
  if (*c.sbatch_cmd) {
    c.sbatch.command = take_command(*c.sbatch_cmd, app);
    return run_sbatch(c.sbatch, env);
  }
  // These take no program: a word CLI11 left over is a typo, never to be dropped quietly.
  if (*c.profiles_cmd) {
    refuse_leftovers(*c.profiles_cmd, "hvdrun profiles");
    for (const CLI::App* sub : c.profiles_cmd->get_subcommands()) {
      refuse_leftovers(*sub, "hvdrun profiles " + sub->get_name());
    }
    return run_profiles_command(*c.profiles_cmd, env);
  }
  if (*c.report_cmd) {
    refuse_leftovers(*c.report_cmd, "hvdrun report");
    return run_report(c.report, env);
  }
  if (*c.predict_cmd) {
    refuse_leftovers(*c.predict_cmd, "hvdrun predict");
    return run_predict(c.predict, env);
  }
  if (*c.preflight_cmd) {
    refuse_leftovers(*c.preflight_cmd, "hvdrun preflight");
    return run_preflight(c.preflight, env);
  }
  if (*c.why_cmd) {
    refuse_leftovers(*c.why_cmd, "hvdrun why");
    return run_why(c.why, std::cout);
  }
  if (*c.why_node_cmd) {
    refuse_leftovers(*c.why_node_cmd, "hvdrun why-node");
    return run_why_node(env);
  }
  c.run.command = take_command(app.remaining(), app);
  if (c.run.check_build) {
    return run_check_build(c.run.json, c.run.horovod_compat.value_or(false), env);
  }
  return run_command(c.run, env);
}

}  // namespace hvd::launcher::cli
