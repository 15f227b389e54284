// SPDX-License-Identifier: Apache-2.0
// hvdrun: builds the command line, runs the chosen command, and turns errors into one line on
// stderr and a distinct exit code (cli/exit_codes.h). The only place that catches.

#include <unistd.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/argv_compat.h"
#include "cli/check_build_cmd.h"
#include "cli/exec_rank_cmd.h"
#include "cli/exit_codes.h"
#include "cli/profiles_cmd.h"
#include "cli/run_cmd.h"
#include "cli/sbatch_cmd.h"
#include "hvd/build_config.h"

using namespace hvd::launcher;

namespace {
// One line on stderr and the exit code for an error that stops hvdrun before or while it runs.
int report(const std::exception& e, int code, const char* what = "error") {
  std::cerr << "hvdrun: " << what << ": " << e.what() << std::endl;
  return code;
}
}  // namespace

int main(int argc, char** argv) {
  const EnvMap env = env_from_environ(environ);
  CLI::App app{"hvdrun: run a program as N ranks of a distributed job, on this machine or in a "
               "Slurm allocation, with each rank's identity, rendezvous, GPU and CPU binding set.\n\n"
               "Usage: hvdrun -np N [options] -- PROGRAM [ARGS...]\n"
               "       hvdrun sbatch|profiles|exec-rank ... (see hvdrun COMMAND --help)", "hvdrun"};
  app.set_version_flag("-v,--version", std::string("hvdrun ") + HVD_VERSION);
  app.footer(cli::kExitCodeHelp);
  app.prefix_command();  // everything from the program on belongs to the program
  config::RunOptions opts;
  cli::register_run_options(app, opts);
  cli::ExecRankOptions exec_rank;
  CLI::App* exec_rank_cmd = cli::register_exec_rank(app, exec_rank);
  cli::SbatchOptions sbatch;
  CLI::App* sbatch_cmd = cli::register_sbatch(app, sbatch);
  CLI::App* profiles_cmd = cli::register_profiles_command(app);

  std::vector<std::string> args(argv, argv + argc);
  args = cli::normalize_horovodrun_args(args, cli::options_taking_value(app));
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
    exec_rank.command = cli::take_command(*exec_rank_cmd, app);
    sbatch.command = cli::take_command(*sbatch_cmd, app);
    opts.command = cli::take_command(app.remaining());
    if (*exec_rank_cmd) return cli::run_exec_rank(exec_rank, env);
    if (*sbatch_cmd) return cli::run_sbatch(sbatch, env);
    if (*profiles_cmd) return cli::run_profiles_command(*profiles_cmd, env);
    if (opts.check_build) return cli::run_check_build(opts.json, env);
    return cli::run_command(opts, env);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "hvdrun: error: " << e.what() << "; see hvdrun --help" << std::endl;
    return cli::kExitUsage;
  } catch (const hvd::Error& e) {
    return report(e, cli::exit_code_for(e.code()));
  } catch (const std::exception& e) {
    return report(e, cli::kExitInternal, "internal error");
  }
}
