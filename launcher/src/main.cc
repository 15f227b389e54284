// SPDX-License-Identifier: Apache-2.0
// hvdrun: builds the command line, runs the chosen command, and turns errors into one line on
// stderr and a distinct exit code (cli/exit_codes.h). The only place that catches.

#include <unistd.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/argv_compat.h"
#include "cli/check_build_cmd.h"
#include "cli/exit_codes.h"
#include "cli/run_cmd.h"
#include "hvd/build_config.h"

using namespace hvd::launcher;

int main(int argc, char** argv) {
  const EnvMap env = env_from_environ(environ);
  CLI::App app{"hvdrun: run a program as N ranks of a distributed job, with each rank's identity, "
               "rendezvous, GPU and CPU binding set up.\n\n"
               "Usage: hvdrun -np N [options] -- PROGRAM [ARGS...]",
               "hvdrun"};
  app.set_version_flag("-v,--version", std::string("hvdrun ") + HVD_VERSION);
  app.footer(cli::kExitCodeHelp);
  app.prefix_command();  // everything from the program on belongs to the program
  config::RunOptions opts;
  cli::register_run_options(app, opts);

  std::vector<std::string> args(argv, argv + argc);
  args = cli::normalize_horovodrun_args(args, cli::options_taking_value(app));
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
    opts.command = cli::take_command(app.remaining());
    if (opts.check_build) return cli::run_check_build(opts.json, env);
    return cli::run_local(opts, env);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "hvdrun: error: " << e.what() << "; see hvdrun --help" << std::endl;
    return cli::kExitUsage;
  } catch (const hvd::Error& e) {
    std::cerr << "hvdrun: error: " << e.what() << std::endl;
    return cli::exit_code_for(e.code());
  } catch (const std::exception& e) {
    std::cerr << "hvdrun: internal error: " << e.what() << std::endl;
    return cli::kExitInternal;
  }
}
